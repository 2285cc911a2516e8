//! Criterion benches of COPA's validity bounds and plan generator (Bui, Nguyen & Nguyen 2022).
//! The same instances are timed in cvxpy by `benches/peers/copa_cvxpy.py bench`.

use cfx::plan::{
    BoundOptions, BoundProgram, CopaConfig, EncodedBox, ModelUncertainty, copa_plan_encoded,
    lower_validity_bound_with, upper_validity_bound_with,
};
use criterion::{Criterion, criterion_group, criterion_main};
use std::hint::black_box;

fn lcg(s: &mut u64) -> f64 {
    *s = s
        .wrapping_mul(6364136223846793005)
        .wrapping_add(1442695040888963407);
    (*s >> 11) as f64 / (1u64 << 53) as f64
}

/// Mirrors `bench_instance` in benches/peers/copa_cvxpy.py: J = 5 options with
/// μ̂ inside Θ at margin 1, and the plan with the first option mirrored (μ̂ outside,
/// so that U* needs its program).
fn bench_instance(d: usize) -> (ModelUncertainty, Vec<Vec<f64>>, Vec<Vec<f64>>) {
    let mut g = 2024 + d as u64;
    let mut mean: Vec<f64> = (0..d).map(|_| 2.0 * lcg(&mut g) - 1.0).collect();
    mean[0] = 1.0;
    let a: Vec<f64> = (0..d * d).map(|_| 2.0 * lcg(&mut g) - 1.0).collect();
    let mut cov = vec![0.0; d * d];
    for i in 0..d {
        for t in 0..d {
            let s: f64 = (0..d).map(|r| a[i * d + r] * a[t * d + r]).sum();
            cov[i * d + t] = 0.1 * s / d as f64 + if i == t { 0.01 } else { 0.0 };
        }
    }
    let n2: f64 = mean[1..].iter().map(|v| v * v).sum();
    let mut plan = vec![vec![0.0; d]; 5];
    for x in plan.iter_mut() {
        x[0] = 1.0;
        for v in x.iter_mut().skip(1) {
            *v = 2.0 * lcg(&mut g) - 1.0;
        }
        let m: f64 = x.iter().zip(&mean).map(|(p, q)| p * q).sum();
        for i in 1..d {
            x[i] += (1.0 - m) * mean[i] / n2;
        }
    }
    let mut outside = plan.clone();
    for i in 1..d {
        outside[0][i] = -outside[0][i] - 2.0 * mean[i] / n2;
    }
    (ModelUncertainty::new(mean, cov).unwrap(), plan, outside)
}

fn bounds(c: &mut Criterion) {
    for d in [20usize, 50] {
        let (u, plan, outside) = bench_instance(d);
        let mut group = c.benchmark_group(format!("plan_bounds_d{d}_j5"));
        group.sample_size(10);
        let full = BoundOptions {
            program: BoundProgram::Full,
            solve_trivial: false,
        };
        let auto = BoundOptions::default();
        // The default path solves every program in the options' span (J = 5
        // dimensions); the paper's d-dimensional programs take seconds even
        // with faer's LDLᵀ (see BENCHMARKS.md) and are benched at d = 20 only.
        let mut lower = vec![
            ("lower_rho0_reduced", 0.0, auto),
            ("lower_rho0.05_reduced", 0.05, auto),
        ];
        let mut upper = vec![
            ("upper_rho0_reduced", 0.0, auto),
            ("upper_rho0.05_reduced", 0.05, auto),
        ];
        if d == 20 {
            lower.push(("lower_rho0_full", 0.0, full));
            lower.push(("lower_rho0.05_full", 0.05, full));
            upper.push(("upper_rho0_full", 0.0, full));
            upper.push(("upper_rho0.05_full", 0.05, full));
        }
        for (name, rho, opts) in lower {
            let v = lower_validity_bound_with(&plan, &u, rho, opts).unwrap();
            eprintln!(
                "{name} d={d}: L* = {:.6} ({:?}, {} iterations)",
                v.value, v.status, v.iterations
            );
            group.bench_function(name, |b| {
                b.iter(|| lower_validity_bound_with(black_box(&plan), &u, rho, opts).unwrap())
            });
        }
        for (name, rho, opts) in upper {
            let v = upper_validity_bound_with(&outside, &u, rho, opts).unwrap();
            eprintln!(
                "{name} d={d}: U* = {:.6} ({:?}, {} iterations)",
                v.value, v.status, v.iterations
            );
            group.bench_function(name, |b| {
                b.iter(|| upper_validity_bound_with(black_box(&outside), &u, rho, opts).unwrap())
            });
        }
        group.finish();
    }
}

fn plan(c: &mut Criterion) {
    let d = 20;
    let (u, _, _) = bench_instance(d);
    let x0 = vec![0.5; d - 1];
    let bx = EncodedBox {
        lo: vec![0.0; d - 1],
        hi: vec![1.0; d - 1],
    };
    let cfg = CopaConfig::default();
    let p = copa_plan_encoded(&x0, &u, &bx, cfg).unwrap();
    eprintln!(
        "copa d={d}: {} iterations, proximity {:.3}, diversity {:.3e}, validity {:.3}, L* {:.4}",
        p.iterations, p.proximity, p.diversity, p.validity, p.lower.value
    );
    let mut group = c.benchmark_group("plan_copa");
    group.sample_size(10);
    group.bench_function("copa_plan_d20_j5", |b| {
        b.iter(|| copa_plan_encoded(black_box(&x0), &u, &bx, cfg).unwrap())
    });
    group.finish();
}

criterion_group!(benches, bounds, plan);
criterion_main!(benches);
