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
