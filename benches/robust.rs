//! Speed of the robustness estimators (issue 7): Γ̃ and Θ̃ at K = 10,000 on
//! HELOC's encoded space, for the logistic and the MLP model, on both sampling
//! paths; the floor (drawing the K·d normal numbers alone); batches on 1 and 2
//! threads. Writes the inputs to `target/robust_bench_inputs.json` so the NumPy
//! peer (`benches/peers/robust_numpy.py`) times the same estimates.

use cfx::data::{heloc, shared_data_dir};
use cfx::model::{LinearModel, LogisticFit, MlpModel, MlpTraining};
use cfx::robust::{Estimator, NoiseModel, Sampling, Workspace};
use criterion::{Criterion, Throughput, black_box, criterion_group, criterion_main};
use rand::SeedableRng;
use rand_distr::{Distribution, StandardNormal};
use rand_xoshiro::Xoshiro256PlusPlus;

const K: usize = 10_000;

struct Setup {
    lin: LinearModel,
    mlp: MlpModel,
    noise: NoiseModel,
    x: Vec<f64>,
    rows: Vec<Vec<f64>>,
}

fn setup() -> Setup {
    let data = heloc(&shared_data_dir().join("heloc.csv")).expect("HELOC at ../shared/data");
    let x_all = data.encoded();
    let lin = LinearModel::fit(&x_all, &data.labels, LogisticFit::default()).unwrap();
    let mlp = MlpModel::train(
        &x_all,
        &data.labels,
        &MlpTraining {
            epochs: 3,
            ..Default::default()
        },
    )
    .unwrap();
    let noise = NoiseModel::gaussian_for_schema(&data.schema, 0.01).unwrap();
    let x = x_all[0].clone();
    let json = serde_json::json!({
        "k": K,
        "sigma2": 0.01,
        "x": x,
        "noise_columns": noise.columns(),
        "linear": { "weights": lin.weights, "bias": lin.bias },
        "mlp": mlp.network.layers.iter().map(|l| serde_json::json!({
            "n_in": l.n_in, "n_out": l.n_out, "weights": l.weights, "bias": l.bias
        })).collect::<Vec<_>>(),
        "batch_points": 10_000,
    });
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("target");
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("robust_bench_inputs.json"), json.to_string()).unwrap();
    println!(
        "HELOC: encoded dimension {}, noisy columns {}",
        x.len(),
        noise.columns().len()
    );
    Setup {
        lin,
        mlp,
        noise,
        x,
        rows: x_all,
    }
}

fn estimators(c: &mut Criterion) {
    let s = setup();
    let generic = Estimator::new(s.noise.clone(), K)
        .unwrap()
        .with_sampling(Sampling::Generic);
    let auto = Estimator::new(s.noise.clone(), K).unwrap();
    let mut g = c.benchmark_group("robust_k10000");
    g.throughput(Throughput::Elements(K as u64));
    let mut ws = Workspace::new(&s.lin, 1);
    g.bench_function("normal_floor_k_times_d", |b| {
        let n = K * s.noise.columns().len();
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(3);
        b.iter(|| {
            let mut acc = 0.0;
            for _ in 0..n {
                let z: f64 = StandardNormal.sample(&mut rng);
                acc += z;
            }
            black_box(acc)
        })
    });
    g.bench_function("gamma_linear_generic", |b| {
        b.iter(|| {
            generic
                .invalidation_rate(&s.lin, black_box(&s.x), &mut ws)
                .unwrap()
        })
    });
    g.bench_function("theta_linear_generic", |b| {
        b.iter(|| {
            generic
                .soft_invalidation_rate(&s.lin, black_box(&s.x), &mut ws)
                .unwrap()
        })
    });
    g.bench_function("gamma_linear_projection", |b| {
        b.iter(|| {
            auto.invalidation_rate(&s.lin, black_box(&s.x), &mut ws)
                .unwrap()
        })
    });
    g.bench_function("theta_linear_projection", |b| {
        b.iter(|| {
            auto.soft_invalidation_rate(&s.lin, black_box(&s.x), &mut ws)
                .unwrap()
        })
    });
    let mut wm = Workspace::new(&s.mlp, 2);
    g.bench_function("gamma_mlp_generic", |b| {
        b.iter(|| {
            generic
                .invalidation_rate(&s.mlp, black_box(&s.x), &mut wm)
                .unwrap()
        })
    });
    g.bench_function("theta_mlp_generic", |b| {
        b.iter(|| {
            generic
                .soft_invalidation_rate(&s.mlp, black_box(&s.x), &mut wm)
                .unwrap()
        })
    });
    g.finish();

    // Batch: 10,000 counterfactuals (HELOC rows), Γ̃ and Θ̃ at K = 10,000 each,
    // linear model on the projection path; 1 and 2 threads.
    let pts: Vec<f64> = s
        .rows
        .iter()
        .cycle()
        .take(10_000)
        .flatten()
        .copied()
        .collect();
    let mut g = c.benchmark_group("robust_batch10000");
    g.sample_size(10);
    g.throughput(Throughput::Elements(10_000));
    for threads in [1, 2] {
        g.bench_function(format!("linear_projection_{threads}_threads"), |b| {
            b.iter(|| auto.estimate_batch(&s.lin, &pts, 7, threads).unwrap())
        });
    }
    let small = Estimator::new(s.noise.clone(), 100).unwrap();
    for threads in [1, 2] {
        g.bench_function(format!("mlp_generic_k100_{threads}_threads"), |b| {
            b.iter(|| small.estimate_batch(&s.mlp, &pts, 7, threads).unwrap())
        });
    }
    g.finish();
}

criterion_group!(benches, estimators);
criterion_main!(benches);
