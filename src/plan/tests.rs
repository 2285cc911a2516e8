use super::*;

fn lcg(state: &mut u64) -> f64 {
    *state = state
        .wrapping_mul(6364136223846793005)
        .wrapping_add(1442695040888963407);
    (*state >> 11) as f64 / (1u64 << 53) as f64
}

#[test]
fn cantelli_closed_form_for_one_option() {
    // J = 1: L* = m²/(m² + s²) with m = xᵀμ̂, s² = xᵀΣ̂x (one-sided Chebyshev).
    let mean = vec![0.3, 1.0, -0.5];
    let cov = vec![0.2, 0.05, 0.0, 0.05, 0.3, 0.1, 0.0, 0.1, 0.4];
    let u = ModelUncertainty::new(mean.clone(), cov.clone()).unwrap();
    let x = vec![1.0, 0.8, -0.4];
    let m: f64 = x.iter().zip(&mean).map(|(a, b)| a * b).sum();
    let mut s2 = 0.0;
    for i in 0..3 {
        for k in 0..3 {
            s2 += x[i] * cov[i * 3 + k] * x[k];
        }
    }
    let want = m * m / (m * m + s2);
    for program in [BoundProgram::Full, BoundProgram::Reduced] {
        let b = lower_validity_bound_with(
            &[x.clone()],
            &u,
            0.0,
            BoundOptions {
                program,
                solve_trivial: false,
            },
        )
        .unwrap();
        assert_eq!(b.status, SolveStatus::Optimal, "{program:?}");
        assert!(
            (b.value - want).abs() < 1e-6,
            "{program:?}: {} vs {want}",
            b.value
        );
    }
}

#[test]
fn reduced_program_matches_full_program() {
    let mut s = 7u64;
    for case in 0..6 {
        let d = 4 + case % 3;
        let jn = 1 + case % 4;
        let mean: Vec<f64> = (0..d)
            .map(|i| if i == 0 { 1.0 } else { lcg(&mut s) - 0.3 })
            .collect();
        let a: Vec<f64> = (0..d * d).map(|_| lcg(&mut s) - 0.5).collect();
        let mut cov = vec![0.0; d * d];
        for i in 0..d {
            for k in 0..d {
                cov[i * d + k] = (0..d).map(|t| a[i * d + t] * a[k * d + t]).sum::<f64>() * 0.2
                    + if i == k { 0.02 } else { 0.0 };
            }
        }
        let u = ModelUncertainty::new(mean.clone(), cov).unwrap();
        let plan: Vec<Vec<f64>> = (0..jn)
            .map(|_| {
                let mut x: Vec<f64> = (0..d)
                    .map(|i| if i == 0 { 1.0 } else { lcg(&mut s) })
                    .collect();
                // keep μ̂ inside so the program is not trivial
                let m: f64 = x.iter().zip(&mean).map(|(p, q)| p * q).sum();
                if m < 0.3 {
                    let n2: f64 = mean[1..].iter().map(|v| v * v).sum();
                    for i in 1..d {
                        x[i] += (0.3 - m) * mean[i] / n2;
                    }
                }
                x
            })
            .collect();
        let full = lower_validity_bound_with(
            &plan,
            &u,
            0.0,
            BoundOptions {
                program: BoundProgram::Full,
                solve_trivial: false,
            },
        )
        .unwrap();
        let red = lower_validity_bound(&plan, &u, 0.0).unwrap();
        assert_eq!(red.program, BoundProgram::Reduced);
        assert!(full.status.is_usable() && red.status.is_usable());
        assert!(
            (full.value - red.value).abs() < 1e-5,
            "case {case}: {} vs {}",
            full.value,
            red.value
        );
        // the Gelbrich program at a tiny radius approaches the ρ = 0 value from below
        let g = lower_validity_bound(&plan, &u, 1e-4).unwrap();
        assert!(
            g.value <= red.value + 1e-5 && g.value > red.value - 0.05,
            "{} {}",
            g.value,
            red.value
        );
    }
}

/// Instance `k` of the cvxpy oracle (mirrors `instance` in benches/peers/copa_cvxpy.py).
fn peer_instance(k: usize) -> (f64, ModelUncertainty, Vec<Vec<f64>>) {
    let mut g = 12345u64 + 1000 * k as u64;
    let d = 3 + k % 4;
    let jn = 1 + k % 3;
    let rho = [0.0, 0.05, 0.2][(k / 3) % 3];
    let mean: Vec<f64> = (0..d).map(|_| 2.0 * lcg(&mut g) - 1.0).collect();
    let a: Vec<f64> = (0..d * d).map(|_| 2.0 * lcg(&mut g) - 1.0).collect();
    let mut cov = vec![0.0; d * d];
    for i in 0..d {
        for t in 0..d {
            let s: f64 = (0..d).map(|r| a[i * d + r] * a[t * d + r]).sum();
            cov[i * d + t] = 0.3 * s / d as f64 + if i == t { 0.05 } else { 0.0 };
        }
    }
    let mut plan = vec![vec![0.0; d]; jn];
    for x in plan.iter_mut() {
        x[0] = 1.0;
        for v in x.iter_mut().skip(1) {
            *v = 2.0 * lcg(&mut g) - 1.0;
        }
    }
    if k % 2 == 0 {
        let n2: f64 = mean[1..].iter().map(|v| v * v).sum();
        for x in plan.iter_mut() {
            let m: f64 = x.iter().zip(&mean).map(|(p, q)| p * q).sum();
            if m < 0.5 {
                for i in 1..d {
                    x[i] += (0.5 - m) * mean[i] / n2;
                }
            }
        }
    }
    (rho, ModelUncertainty::new(mean, cov).unwrap(), plan)
}

// Numbers printed by `benches/peers/copa_cvxpy.py check` (cvxpy 1.9.3 + Clarabel 0.11.1;
// SCS 3.3.1 at eps 1e-9 agreed to all printed digits), always solving the SDP.
const PEER_LOWER: [f64; 24] = [
    0.4518363, 0.0000000, 0.1115173, 0.0000000, 0.0945631, 0.0000000, 0.0556488, 0.0000000,
    0.0091360, 0.0000000, 0.0249057, 0.0000000, 0.1299540, 0.0000000, 0.0860075, 0.0000000,
    0.0000000, 0.0000000, 0.3023940, 0.0000000, 0.0516298, 0.0000000, 0.0631289, 0.0000000,
];
const PEER_UPPER: [f64; 24] = [
    1.0000000, 0.0976598, 1.0000000, 1.0000000, 1.0000000, 0.1867469, 1.0000000, 0.6580748,
    1.0000000, 0.1332305, 1.0000000, 0.1639646, 1.0000000, 0.2939098, 1.0000000, 0.4425217,
    1.0000000, 0.5227562, 1.0000000, 0.0972309, 1.0000000, 0.1841277, 1.0000000, 0.3116337,
];

#[test]
fn bounds_agree_with_cvxpy_clarabel() {
    for k in 0..24 {
        let (rho, u, plan) = peer_instance(k);
        // default path: Proposition 2.4 shortcut and the reduced program at ρ = 0
        let l = lower_validity_bound(&plan, &u, rho).unwrap();
        let up = upper_validity_bound(&plan, &u, rho).unwrap();
        assert!(l.status.is_usable() && up.status.is_usable(), "k={k}");
        assert!(
            (l.value - PEER_LOWER[k]).abs() < 1e-4,
            "k={k} L* {} vs {}",
            l.value,
            PEER_LOWER[k]
        );
        assert!(
            (up.value - PEER_UPPER[k]).abs() < 1e-4,
            "k={k} U* {} vs {}",
            up.value,
            PEER_UPPER[k]
        );
        assert_eq!(l.trivial.is_some(), mean_margin(&plan, &u) <= 0.0);
        // the full programs, solved even where Proposition 2.4 decides
        let o = BoundOptions {
            program: BoundProgram::Full,
            solve_trivial: true,
        };
        let lf = lower_validity_bound_with(&plan, &u, rho, o).unwrap();
        let uf = upper_validity_bound_with(&plan, &u, rho, o).unwrap();
        assert!(
            (lf.value - PEER_LOWER[k]).abs() < 1e-4,
            "k={k} full L* {} vs {}",
            lf.value,
            PEER_LOWER[k]
        );
        assert!(
            (uf.value - PEER_UPPER[k]).abs() < 1e-4,
            "k={k} full U* {} vs {}",
            uf.value,
            PEER_UPPER[k]
        );
    }
}
