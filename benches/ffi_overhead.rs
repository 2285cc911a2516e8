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
use criterion::{Criterion, black_box, criterion_group};
use std::ptr::null_mut;

/// One German applicant, the fitted logistic model, the noise, the estimator
/// and a workspace, both as Rust values and as C handles, so that the Rust
/// call and the C call do exactly the same work.
struct EstimateFixture {
    est: cfx::robust::Estimator,
    any: cfx::model::AnyModel,
    ws: cfx::robust::Workspace,
    row: Vec<f64>,
    schema: *const cfx::ffi::schema::cfx_schema,
    model: *const cfx_model,
    noise: *const cfx::ffi::robust::cfx_noise,
    est_h: *const cfx::ffi::robust::cfx_estimator,
    ws_h: *mut cfx::ffi::robust::cfx_workspace,
}

impl EstimateFixture {
    fn new() -> Self {
        use cfx::ffi::robust::*;
        use cfx::ffi::schema::cfx_schema_from_json;
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
        let ws = Workspace::new(&any, 1);
        let row = x[0].clone();
        unsafe {
            let json = std::ffi::CString::new(d.schema.to_json()).unwrap();
            let mut schema = std::ptr::null();
            assert_eq!(
                cfx_schema_from_json(json.as_ptr(), &mut schema),
                cfx_status::Ok
            );
            let mut model = std::ptr::null();
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
            EstimateFixture {
                est,
                any,
                ws,
                row,
                schema,
                model,
                noise: noise_h,
                est_h,
                ws_h,
            }
        }
    }

    fn rust(&mut self) -> f64 {
        self.est
            .estimate(&self.any, black_box(&self.row), &mut self.ws)
            .unwrap()
            .invalidation
            .value
    }

    fn c_abi(&mut self) -> f64 {
        let (mut a, mut b, mut c, mut d) = (0.0, 0.0, 0.0, 0.0);
        let st = unsafe {
            cfx::ffi::robust::cfx_estimator_estimate(
                self.est_h,
                self.model,
                self.ws_h,
                black_box(self.row.as_ptr()),
                self.row.len(),
                &mut a,
                &mut b,
                &mut c,
                &mut d,
            )
        };
        assert_eq!(st, cfx_status::Ok);
        a
    }
}

impl Drop for EstimateFixture {
    fn drop(&mut self) {
        use cfx::ffi::robust::*;
        unsafe {
            cfx_workspace_free(self.ws_h);
            cfx_estimator_free(self.est_h);
            cfx_noise_free(self.noise);
            cfx_model_free(self.model);
            cfx::ffi::schema::cfx_schema_free(self.schema);
        }
    }
}

fn bench_estimate(c: &mut Criterion) {
    let mut f = EstimateFixture::new();
    let mut g = c.benchmark_group("estimate K=10000");
    g.bench_function("rust", |b| b.iter(|| f.rust()));
    g.bench_function("c_abi", |b| b.iter(|| f.c_abi()));
    g.finish();
}

/// `CFX_FFI_COUNT=<rust|c_abi>:<n>`: run `n` estimates through one path and
/// exit, for counting instructions with callgrind, which (unlike a timer on a
/// shared machine) gives the same count on every run:
/// `valgrind --tool=callgrind --callgrind-out-file=/dev/null <bench binary>`
/// with n = 1 and n = 21 for each path; (I(21) − I(1)) / 20 is the cost of
/// one estimate. BENCHMARKS.md records the figures.
fn count_mode(spec: &str) {
    let (path, n) = spec
        .split_once(':')
        .expect("CFX_FFI_COUNT=<rust|c_abi>:<n>");
    let n: usize = n.parse().expect("n");
    let mut f = EstimateFixture::new();
    let mut acc = 0.0;
    for _ in 0..n {
        acc += match path {
            "rust" => f.rust(),
            "c_abi" => f.c_abi(),
            other => panic!("unknown path {other}"),
        };
    }
    println!("{path} x{n}: sum of invalidation rates {acc}");
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

fn main() {
    if let Ok(spec) = std::env::var("CFX_FFI_COUNT") {
        count_mode(&spec);
        return;
    }
    benches();
    Criterion::default().configure_from_args().final_summary();
}
