//! The cost of the C ABI: one German applicant scored by the fitted logistic
//! regression through `cfx_model_predict` (NULL checks, finiteness check,
//! panic boundary, last-error clear) versus the same work in Rust
//! (`rust_checked`: finiteness and length checks, score, sigmoid) and the bare
//! `Model::score_in` (`rust`). On the development machine (loaded, 2 cores)
//! `c_abi` and `rust_checked` were equal within noise (≈ 450 ns): the
//! boundary itself costs nothing measurable; the input validation does.
//!
//! The second group is the target: one Monte Carlo estimate (Γ̃ and
//! Θ̃, K = 10,000, generic sampling, σ² = 0.01 on German credit's changeable
//! values) through `cfx_estimator_estimate` with a caller-owned workspace versus
//! `Estimator::estimate` in Rust with the same model type (`AnyModel`), noise,
//! seed and workspace reuse. Figures in BENCHMARKS.md.
//! Run with `cargo bench --bench ffi_overhead`.

use cfx::ffi::model::{cfx_model, cfx_model_free, cfx_model_linear_new, cfx_model_predict};
use cfx::ffi::status::cfx_status;
use cfx::model::{LinearModel, Model};
use criterion::{Criterion, black_box, criterion_group, criterion_main};
use std::ptr::null_mut;

fn bench_estimate(c: &mut Criterion) {
    use cfx::ffi::robust::*;
    use cfx::ffi::schema::{cfx_schema, cfx_schema_free, cfx_schema_from_json};
    use cfx::model::AnyModel;
    use cfx::robust::{Estimator, NoiseModel, Sampling, Workspace};
    let d = cfx::data::german_credit(&cfx::data::bundled_german_path()).unwrap();
    let x = d.encoded();
    let m = LinearModel::fit(&x, &d.labels, Default::default()).unwrap();
    let any = AnyModel::Linear(m.clone());
    let k = 10_000;
    let sigma2 = 0.01;
    let noise = NoiseModel::gaussian_for_schema(&d.schema, sigma2).unwrap();
    let est = Estimator::new(noise, k)
        .unwrap()
        .with_sampling(Sampling::Generic);
    let mut ws = Workspace::new(&any, 1);
    let row = x[0].clone();
    unsafe {
        let json = std::ffi::CString::new(d.schema.to_json()).unwrap();
        let mut schema: *const cfx_schema = std::ptr::null();
        assert_eq!(
            cfx_schema_from_json(json.as_ptr(), &mut schema),
            cfx_status::Ok
        );
        let mut model: *const cfx_model = std::ptr::null();
        assert_eq!(
            cfx_model_linear_new(
                m.weights.as_ptr(),
                m.weights.len(),
                m.bias,
                m.threshold,
                &mut model
            ),
            cfx_status::Ok
        );
        let mut noise_h = std::ptr::null();
        assert_eq!(
            cfx_noise_gaussian_new(schema, sigma2, &mut noise_h),
            cfx_status::Ok
        );
        let mut est_h = std::ptr::null();
        assert_eq!(cfx_estimator_new(noise_h, k, 1, &mut est_h), cfx_status::Ok);
        let mut ws_h = null_mut();
        assert_eq!(cfx_workspace_new(model, 1, &mut ws_h), cfx_status::Ok);
        let mut g = c.benchmark_group("estimate K=10000");
        g.bench_function("rust", |b| {
            b.iter(|| est.estimate(&any, black_box(&row), &mut ws).unwrap())
        });
        g.bench_function("c_abi", |b| {
            b.iter(|| {
                let (mut a, mut b2, mut c2, mut d2) = (0.0, 0.0, 0.0, 0.0);
                let st = cfx_estimator_estimate(
                    est_h,
                    model,
                    ws_h,
                    black_box(row.as_ptr()),
                    row.len(),
                    &mut a,
                    &mut b2,
                    &mut c2,
                    &mut d2,
                );
                assert_eq!(st, cfx_status::Ok);
                a
            })
        });
        g.finish();
        cfx_workspace_free(ws_h);
        cfx_estimator_free(est_h);
        cfx_noise_free(noise_h);
        cfx_model_free(model);
        cfx_schema_free(schema);
    }
}

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

criterion_group!(benches, bench, bench_estimate);
criterion_main!(benches);
