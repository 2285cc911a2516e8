//! The cost of the C ABI: one German applicant scored by the fitted logistic
//! regression through `cfx_model_predict` (NULL checks, finiteness check,
//! panic boundary, last-error clear) versus the same work in Rust
//! (`rust_checked`: finiteness and length checks, score, sigmoid) and the bare
//! `Model::score_in` (`rust`). On the development machine (loaded, 2 cores)
//! `c_abi` and `rust_checked` were equal within noise (≈ 450 ns): the
//! boundary itself costs nothing measurable; the input validation does.
//! Run with `cargo bench --bench ffi_overhead`.

use cfx::ffi::model::{cfx_model, cfx_model_linear_new, cfx_model_predict};
use cfx::ffi::status::cfx_status;
use cfx::model::{LinearModel, Model};
use criterion::{Criterion, black_box, criterion_group, criterion_main};
use std::ptr::null_mut;

fn bench(c: &mut Criterion) {
    let d = cfx::data::german_credit(&cfx::data::bundled_german_path()).unwrap();
    let x = d.encoded();
    let m = LinearModel::fit(&x, &d.labels, Default::default()).unwrap();
    let mut handle: *const cfx_model = std::ptr::null();
    let st = unsafe {
        cfx_model_linear_new(
            m.weights.as_ptr(),
            m.weights.len(),
            m.bias,
            m.threshold,
            &mut handle,
        )
    };
    assert_eq!(st, cfx_status::Ok);
    let row = &x[0];
    let mut g = c.benchmark_group("score one applicant");
    g.bench_function("rust", |b| b.iter(|| m.score_in(black_box(row), &mut [])));
    g.bench_function("rust_checked", |b| {
        b.iter(|| {
            let r = black_box(row);
            cfx::error::check_finite("x", r).unwrap();
            cfx::error::check_len("x", m.input_dim(), r.len()).unwrap();
            cfx::model::sigmoid(m.score_in(r, &mut []))
        })
    });
    g.bench_function("c_abi", |b| {
        b.iter(|| {
            let mut s = 0.0;
            unsafe {
                cfx_model_predict(
                    handle,
                    black_box(row.as_ptr()),
                    row.len(),
                    &mut s,
                    null_mut(),
                    null_mut(),
                )
            };
            s
        })
    });
    g.finish();
    unsafe { cfx::ffi::model::cfx_model_free(handle) };
}

criterion_group!(benches, bench);
criterion_main!(benches);
