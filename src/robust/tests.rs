use super::*;
use crate::model::{LinearModel, MlpModel, MlpTraining, Model, logit, sigmoid};
use crate::schema::{Direction, Feature, Schema};
use rand::{Rng, SeedableRng};
use rand_xoshiro::Xoshiro256PlusPlus;

/// Gauss–Hermite nodes and weights for E[g(Z)], Z ~ N(0, 1) (probabilists'
/// Hermite, Golub–Welsch: eigen-decomposition of the Jacobi matrix).
fn gauss_hermite(n: usize) -> (Vec<f64>, Vec<f64>) {
    let mut j = nalgebra::DMatrix::<f64>::zeros(n, n);
    for i in 1..n {
        let b = (i as f64).sqrt();
        j[(i, i - 1)] = b;
        j[(i - 1, i)] = b;
    }
    let e = nalgebra::SymmetricEigen::new(j);
    let nodes = e.eigenvalues.iter().copied().collect();
    let weights = (0..n).map(|k| e.eigenvectors[(0, k)].powi(2)).collect();
    (nodes, weights)
}

/// Θ for a logistic model with Gaussian noise: E[σ(−(s + τZ))] (Guyomard et al. 2023, §2.3).
fn theta_gh(s: f64, tau: f64) -> f64 {
    let (z, w) = gauss_hermite(80);
    z.iter()
        .zip(&w)
        .map(|(z, w)| w * sigmoid(-(s + tau * z)))
        .sum()
}

fn all_cols(d: usize) -> Vec<usize> {
    (0..d).collect()
}

#[test]
fn normal_cdf_matches_reference_values() {
    // Reference values from mpmath (50 digits), rounded.
    let cases = [
        (0.0, 0.5),
        (-1.0, 0.158_655_253_931_457_05),
        (1.96, 0.975_002_104_851_780_2),
        (-5.0, 2.866_515_718_791_939e-7),
        (-10.0, 7.619_853_024_160_527e-24),
        (3.0, 0.998_650_101_968_369_9),
    ];
    for (x, want) in cases {
        let got = normal_cdf(x);
        assert!(
            ((got - want) / want).abs() < 1e-14,
            "Φ({x}) = {got}, want {want}"
        );
    }
    assert!((normal_pdf(0.0) - 0.398_942_280_401_432_7).abs() < 1e-16);
}

#[test]
fn seed_example_closed_forms() {
    // seed-formulas §2.3: w = (1.5, −2, 0.5), b = −0.3, x̌ = (0.4, −0.2, 0.3), σ² = 0.02.
    let m = LinearModel::new(vec![1.5, -2.0, 0.5], -0.3, 0.5).unwrap();
    let x = [0.4, -0.2, 0.3];
    let noise = NoiseModel::gaussian(0.02, all_cols(3)).unwrap();
    let g = linear_invalidation_rate(&m, &x, &noise).unwrap();
    assert!((g - 0.009_200).abs() < 5e-7, "Γ = {g}");
    let m7 = m.clone().with_threshold(0.7).unwrap();
    let g7 = linear_invalidation_rate(&m7, &x, &noise).unwrap();
    assert!((g7 - 0.497_01).abs() < 5e-6, "Γ(t=0.7) = {g7}");
    let tau = noise.projected_std(&m.weights);
    let th = theta_gh(0.85, tau);
    assert!((th - 0.304_65).abs() < 5e-6, "Θ = {th}");
}

#[test]
fn gauss_hermite_rule_is_exact_on_moments() {
    let (z, w) = gauss_hermite(80);
    let moment = |p: i32| z.iter().zip(&w).map(|(z, w)| w * z.powi(p)).sum::<f64>();
    assert!((moment(0) - 1.0).abs() < 1e-12);
    assert!(moment(1).abs() < 1e-12);
    assert!((moment(2) - 1.0).abs() < 1e-10);
    assert!((moment(4) - 3.0).abs() < 1e-9);
}

/// A random linear case with Γ away from 0 and 1.
struct Case {
    model: LinearModel,
    x: Vec<f64>,
    noise: NoiseModel,
}

fn random_case(rng: &mut Xoshiro256PlusPlus, i: usize) -> Case {
    let d = [2, 5, 23, 60][i % 4];
    let t = [0.5, 0.3, 0.7, 0.6][(i / 4) % 4];
    let sigma2 = [0.005, 0.01, 0.02, 0.1][(i / 16) % 4];
    let w: Vec<f64> = (0..d).map(|_| rng.random_range(-3.0..3.0)).collect();
    let x: Vec<f64> = (0..d).map(|_| rng.random::<f64>()).collect();
    let cols: Vec<usize> = (0..d).filter(|j| j % 3 != 1 || d == 2).collect();
    let noise = if i % 5 == 4 {
        let std: Vec<f64> = cols.iter().map(|_| rng.random_range(0.02..0.3)).collect();
        NoiseModel::diagonal_gaussian(cols, std.iter().map(|s| s * s).collect()).unwrap()
    } else {
        NoiseModel::gaussian(sigma2, cols).unwrap()
    };
    let tau = noise.projected_std(&w);
    // place the score within ±2τ of the threshold's logit
    let wx: f64 = w.iter().zip(&x).map(|(a, b)| a * b).sum();
    let b = logit(t) - wx + rng.random_range(-2.0..2.0) * tau;
    Case {
        model: LinearModel::new(w, b, t).unwrap(),
        x,
        noise,
    }
}

#[test]
fn mc_invalidation_rate_agrees_with_closed_form_on_120_linear_cases() {
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(7);
    let k = 4000;
    for i in 0..120 {
        let c = random_case(&mut rng, i);
        let exact = linear_invalidation_rate(&c.model, &c.x, &c.noise).unwrap();
        let se = (exact * (1.0 - exact) / k as f64).sqrt();
        for sampling in [Sampling::Generic, Sampling::Auto] {
            let est = Estimator::new(c.noise.clone(), k)
                .unwrap()
                .with_sampling(sampling);
            let mut ws = Workspace::new(&c.model, i as u64);
            let r = est.invalidation_rate(&c.model, &c.x, &mut ws).unwrap();
            assert!(
                (r.value - exact).abs() <= 4.0 * se + 1e-12,
                "case {i} {sampling:?}: Γ̃ = {} ± {}, Γ = {exact}",
                r.value,
                r.std_error
            );
            assert!(
                (r.std_error - se).abs() < 0.2 * se + 1e-3,
                "case {i}: SE {} vs {se}",
                r.std_error
            );
        }
    }
}

#[test]
fn mc_soft_rate_agrees_with_gauss_hermite() {
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(11);
    let k = 4000;
    for i in 0..40 {
        let c = random_case(&mut rng, i);
        if c.noise.scale().windows(2).any(|w| w[0] != w[1]) {
            continue;
        }
        let s = c.model.bias
            + c.model
                .weights
                .iter()
                .zip(&c.x)
                .map(|(a, b)| a * b)
                .sum::<f64>();
        let theta = theta_gh(s, c.noise.projected_std(&c.model.weights));
        for sampling in [Sampling::Generic, Sampling::Auto] {
            let est = Estimator::new(c.noise.clone(), k)
                .unwrap()
                .with_sampling(sampling);
            let mut ws = Workspace::new(&c.model, 100 + i as u64);
            let r = est.soft_invalidation_rate(&c.model, &c.x, &mut ws).unwrap();
            assert!(
                (r.value - theta).abs() <= 4.0 * r.std_error,
                "case {i} {sampling:?}: Θ̃ = {} ± {}, Θ = {theta}",
                r.value,
                r.std_error
            );
        }
    }
}

/// PROBE's rate 1 − Φ(g/(σ‖∇g‖)) (PROBE 2023, eq. 4) on a hand-built ReLU
/// network and on a logistic model at t = 0.7, against numbers worked out by
/// hand and evaluated with mpmath (40 digits).
///
/// Network: hidden W₁ = [[1, −1], [0.5, 2]], b₁ = (0.1, −0.2), ReLU; output
/// W₂ = (2, −1), b₂ = 0.3; t = 0.6. At x = (0.8, 0.3) both hidden units are
/// active (pre-activations 0.6 and 0.8), so the score is 2·0.6 − 0.8 + 0.3 =
/// 0.7 and its gradient 2·(1, −1) − (0.5, 2) = (1.5, −4). With noise standard
/// deviations (0.1, 0.05), σ‖∇g‖ = √(0.15² + 0.2²) = 0.25 and
/// g = 0.7 − logit(0.6), so u = 1.178139567567342 and 1 − Φ(u) =
/// 0.11937048503673144.
///
/// Logistic model of seed-formulas §2.3 (w = (1.5, −2, 0.5), b = −0.3,
/// x̌ = (0.4, −0.2, 0.3), σ² = 0.02) at t = 0.7: s = 0.85, τ = √0.13,
/// 1 − Φ((0.85 − logit 0.7)/τ) = 0.49701020020043614.
#[test]
fn probe_rate_matches_hand_computed_values() {
    use crate::nn::{Activation, Dense, Network};
    let net = Network {
        layers: vec![
            Dense {
                n_in: 2,
                n_out: 2,
                weights: vec![1.0, -1.0, 0.5, 2.0],
                bias: vec![0.1, -0.2],
                activation: Activation::Relu,
            },
            Dense {
                n_in: 2,
                n_out: 1,
                weights: vec![2.0, -1.0],
                bias: vec![0.3],
                activation: Activation::Identity,
            },
        ],
    };
    let mlp = MlpModel::new(net, 0.6).unwrap();
    let x = [0.8, 0.3];
    assert!((mlp.score(&x) - 0.7).abs() < 1e-15);
    let noise = NoiseModel::diagonal_gaussian(vec![0, 1], vec![0.1 * 0.1, 0.05 * 0.05]).unwrap();
    let mut ws = Workspace::new(&mlp, 0);
    let p = probe_invalidation_rate(&mlp, &x, &noise, &mut ws).unwrap();
    let want = 0.119_370_485_036_731_44;
    assert!(
        (p - want).abs() < 1e-14,
        "PROBE on the network: {p} vs {want}"
    );
    assert_eq!(ws.grad, vec![1.5, -4.0]);

    // Both hidden units stay active within 5 noise standard deviations, so the
    // network is linear where the noise lands and PROBE's rate is the true Γ:
    // the Monte Carlo estimate must agree within 4 standard errors.
    let k = 40_000;
    let est = Estimator::new(noise, k).unwrap();
    let mut ws = Workspace::new(&mlp, 17);
    let r = est.invalidation_rate(&mlp, &x, &mut ws).unwrap();
    let se = (want * (1.0 - want) / k as f64).sqrt();
    assert!(
        (r.value - want).abs() <= 4.0 * se,
        "Γ̃ on the network {} vs {want} ± {se}",
        r.value
    );

    let m = LinearModel::new(vec![1.5, -2.0, 0.5], -0.3, 0.7).unwrap();
    let xl = [0.4, -0.2, 0.3];
    let noise = NoiseModel::gaussian(0.02, all_cols(3)).unwrap();
    let mut ws = Workspace::new(&m, 0);
    let p = probe_invalidation_rate(&m, &xl, &noise, &mut ws).unwrap();
    let want = 0.497_010_200_200_436_1;
    assert!((p - want).abs() < 1e-14, "PROBE at t = 0.7: {p} vs {want}");
    let exact = linear_invalidation_rate(&m, &xl, &noise).unwrap();
    assert!((exact - want).abs() < 1e-14, "exact Γ at t = 0.7: {exact}");
}

#[test]
fn uniform_noise_matches_its_closed_form() {
    // One noisy column: P(s + w·u ≤ thr), u ~ U[−h, h] = clamp((c/w + h)/(2h)), c = thr − s.
    let m = LinearModel::new(vec![2.0, -1.0], 0.1, 0.5).unwrap();
    let k = 20_000;
    for (i, &x0) in [-0.2, -0.1, -0.05, 0.0, 0.03].iter().enumerate() {
        let x = [x0, 0.0];
        let h = 0.15;
        let noise = NoiseModel::uniform(h, vec![0]).unwrap();
        let s = 2.0 * x0 + 0.1;
        let exact = ((-s / 2.0 + h) / (2.0 * h)).clamp(0.0, 1.0);
        let est = Estimator::new(noise, k).unwrap();
        let mut ws = Workspace::new(&m, i as u64);
        let r = est.invalidation_rate(&m, &x, &mut ws).unwrap();
        let se = (exact * (1.0 - exact) / k as f64).sqrt();
        assert!(
            (r.value - exact).abs() <= 4.0 * se + 1e-12,
            "x0 {x0}: {} vs {exact}",
            r.value
        );
    }
}

#[test]
fn bound_confidence_matches_hoeffding_table() {
    // seed-formulas §2.2 derived table of 1 − exp(−2Km²)
    let table = [
        (100, 0.05, 0.3935),
        (100, 0.1, 0.8647),
        (500, 0.05, 0.9179),
        (500, 0.1, 0.99995),
        (1000, 0.02, 0.5507),
        (5000, 0.01, 0.6321),
        (10000, 0.02, 0.99967),
    ];
    for (k, m, want) in table {
        assert!((bound_confidence(k, m) - want).abs() < 5e-5, "K={k} m={m}");
    }
    let b = invalidation_bound(0.2, 0.1, 0.5, 500).unwrap();
    assert!((b.value - 0.6).abs() < 1e-15);
    assert!(invalidation_bound(1.2, 0.1, 0.5, 500).is_err());
    assert!(invalidation_bound(0.2, 0.0, 0.5, 500).is_err());
    assert!(invalidation_bound(0.2, 0.1, 1.0, 500).is_err());
}

/// Smallest count c with P(Bin(n, p) ≥ c) ≤ alpha (exact, in log space).
fn binomial_upper_critical(n: usize, p: f64, alpha: f64) -> usize {
    let (lp, lq) = (p.ln(), (1.0 - p).ln());
    let mut log_pmf = vec![0.0; n + 1];
    log_pmf[0] = n as f64 * lq;
    for k in 0..n {
        log_pmf[k + 1] = log_pmf[k] + ((n - k) as f64 / (k + 1) as f64).ln() + lp - lq;
    }
    let mut tail = 0.0;
    for c in (0..=n).rev() {
        tail += log_pmf[c].exp();
        if tail > alpha {
            return c + 1;
        }
    }
    0
}

/// The Hoeffding step of CROCO's guarantee, tested directly: for K i.i.d.
/// values of 1 − f in [0, 1] with mean Θ, P(Θ̃ ≤ Θ − m) ≤ e^{−2Km²} = p₀.
///
/// Θ is computed independently (mpmath's quadrature: Θ = 0.47415859776283878
/// for s = 0.2, τ = √6.5; the 80-node Gauss–Hermite rule agrees within 2e-9).
/// Over N = 2,000 seeds the number of seeds with Θ̃ ≤ Θ − m is Binomial(N, p)
/// with p ≤ p₀, and the binomial's upper tail grows with p, so the count may
/// exceed p₀N only by binomial slack: the test allows counts below the
/// exact critical value c with P(Bin(N, p₀) ≥ c) ≤ 10⁻⁶ (at p₀ = e⁻¹ that is
/// a frequency of about p₀ + 4.8·√(p₀(1 − p₀)/N) ≈ 0.42). A biased Θ̃ or a
/// confidence computed with the wrong exponent exceeds it. Both sampling
/// paths are checked; and on every seed, a bound that misses Γ must come
/// with Θ̃ < Θ − m (Markov's step, Γ ≤ Θ/(1 − t), is exact arithmetic).
#[test]
fn hoeffding_step_holds_over_2000_seeds() {
    let model = LinearModel::new(vec![3.0, -2.0], 0.2 - 0.5, 0.5).unwrap();
    let x = [0.5, 0.5];
    let noise = NoiseModel::gaussian(0.5, all_cols(2)).unwrap();
    let tau = noise.projected_std(&model.weights);
    let theta = 0.474_158_597_762_838_8;
    assert!((theta_gh(0.2, tau) - theta).abs() < 2e-9);
    let gamma = linear_invalidation_rate(&model, &x, &noise).unwrap();
    let seeds = 2000;
    for (k, m) in [(20, 0.15), (50, 0.1), (200, 0.06), (1000, 0.03)] {
        let p0 = (-2.0 * k as f64 * m * m).exp();
        let critical = binomial_upper_critical(seeds, p0, 1e-6);
        for sampling in [Sampling::Generic, Sampling::Auto] {
            let est = Estimator::new(noise.clone(), k)
                .unwrap()
                .with_sampling(sampling);
            let mut below = 0;
            for seed in 0..seeds {
                let mut ws = Workspace::new(&model, 50_000 + seed as u64);
                let (e, b) = est.bound(&model, &x, m, &mut ws).unwrap();
                let low = e.value <= theta - m;
                below += usize::from(low);
                assert!((b.confidence - (1.0 - p0)).abs() < 1e-15);
                if gamma > b.value {
                    assert!(low, "K={k} m={m} seed {seed}: bound missed with Θ̃ ≥ Θ − m");
                }
            }
            assert!(
                below < critical,
                "K={k} m={m} {sampling:?}: Θ̃ ≤ Θ − m on {below}/{seeds} seeds, \
                 Hoeffding allows fewer than {critical} (p₀ = {p0})"
            );
        }
    }
}

#[test]
fn binomial_critical_value_matches_exact_sums() {
    // Bin(2000, 0.5): the exact critical value from mpmath's binomial sums is 1107.
    assert_eq!(binomial_upper_critical(2000, 0.5, 1e-6), 1107);
    // Bin(10, 0.5): P(X ≥ 9) = 11/1024 > 0.01 ≥ P(X = 10) = 1/1024.
    assert_eq!(binomial_upper_critical(10, 0.5, 0.01), 10);
}

fn small_mlp(d: usize, seed: u64) -> MlpModel {
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(seed);
    let x: Vec<Vec<f64>> = (0..400)
        .map(|_| (0..d).map(|_| rng.random::<f64>()).collect())
        .collect();
    let y: Vec<f64> = x
        .iter()
        .map(|r| f64::from(r[0] + 0.5 * r[1] - 0.3 * r[2 % d] + 0.2 * (r[0] * 6.0).sin() > 0.6))
        .collect();
    MlpModel::train(
        &x,
        &y,
        &MlpTraining {
            hidden: vec![16],
            epochs: 20,
            ..Default::default()
        },
    )
    .unwrap()
}

#[test]
fn estimates_are_reproducible_and_batch_is_thread_count_invariant() {
    let mlp = small_mlp(6, 1);
    let noise = NoiseModel::gaussian(0.01, vec![0, 1, 2, 4]).unwrap();
    let est = Estimator::new(noise, 300).unwrap();
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(9);
    let n = 2 * BATCH_CHUNK + 37;
    let pts: Vec<f64> = (0..n * 6).map(|_| rng.random::<f64>()).collect();
    let one = est.estimate_batch(&mlp, &pts, 42, 1).unwrap();
    for threads in [2, 3, 0] {
        let many = est.estimate_batch(&mlp, &pts, 42, threads).unwrap();
        assert_eq!(one, many, "{threads} threads");
    }
    let other = est.estimate_batch(&mlp, &pts, 43, 2).unwrap();
    assert_ne!(one, other);
    // The stream of chunk 1 is the seed's generator jumped once.
    let mut stream = Xoshiro256PlusPlus::seed_from_u64(42);
    stream.jump();
    let mut ws = Workspace::new(&mlp, 0);
    ws.set_rng(stream);
    for j in 0..3 {
        let i = BATCH_CHUNK + j;
        let e = est
            .estimate(&mlp, &pts[i * 6..(i + 1) * 6], &mut ws)
            .unwrap();
        assert_eq!(e, one[i]);
    }
    // Same seed, same calls → same bits.
    let mut a = Workspace::new(&mlp, 5);
    let mut b = Workspace::new(&mlp, 5);
    let x = &pts[..6];
    assert_eq!(
        est.estimate(&mlp, x, &mut a).unwrap(),
        est.estimate(&mlp, x, &mut b).unwrap()
    );
}

#[test]
fn bad_input_is_an_error_not_a_panic() {
    let m = LinearModel::new(vec![1.0, 2.0], 0.0, 0.5).unwrap();
    let noise = NoiseModel::gaussian(0.01, vec![0, 1]).unwrap();
    let est = Estimator::new(noise.clone(), 100).unwrap();
    let mut ws = Workspace::new(&m, 0);
    assert!(est.estimate(&m, &[f64::NAN, 0.0], &mut ws).is_err());
    assert!(est.estimate(&m, &[0.0], &mut ws).is_err());
    assert!(Estimator::new(noise.clone(), 1).is_err());
    assert!(NoiseModel::gaussian(-0.1, vec![0]).is_err());
    assert!(NoiseModel::gaussian(f64::NAN, vec![0]).is_err());
    assert!(NoiseModel::gaussian(0.1, vec![1, 0]).is_err());
    assert!(NoiseModel::diagonal_gaussian(vec![0, 1], vec![0.1]).is_err());
    let far = Estimator::new(NoiseModel::gaussian(0.01, vec![5]).unwrap(), 10).unwrap();
    assert!(far.estimate(&m, &[0.0, 0.0], &mut ws).is_err());
    let uni = NoiseModel::uniform(0.1, vec![0]).unwrap();
    assert!(probe_invalidation_rate(&m, &[0.0, 0.0], &uni, &mut ws).is_err());
    assert!(linear_invalidation_rate(&m, &[0.0, 0.0], &uni).is_err());
    let other = LinearModel::new(vec![1.0, 2.0, 3.0], 0.0, 0.5).unwrap();
    assert!(est.estimate(&other, &[0.0, 0.0, 0.0], &mut ws).is_err());
    assert!(est.estimate_batch(&m, &[0.0, 0.0, 0.0], 0, 1).is_err());
}

#[test]
fn no_noise_gives_certain_answers() {
    let m = LinearModel::new(vec![1.0, 2.0], -1.0, 0.5).unwrap();
    let noise = NoiseModel::gaussian(0.0, vec![0, 1]).unwrap();
    assert_eq!(
        linear_invalidation_rate(&m, &[1.0, 1.0], &noise).unwrap(),
        0.0
    );
    assert_eq!(
        linear_invalidation_rate(&m, &[0.0, 0.0], &noise).unwrap(),
        1.0
    );
    let mut ws = Workspace::new(&m, 0);
    assert_eq!(
        probe_invalidation_rate(&m, &[1.0, 1.0], &noise, &mut ws).unwrap(),
        0.0
    );
    let est = Estimator::new(noise, 50)
        .unwrap()
        .with_sampling(Sampling::Generic);
    assert_eq!(
        est.invalidation_rate(&m, &[0.0, 0.0], &mut ws)
            .unwrap()
            .value,
        1.0
    );
}

/// A small credit-like schema: two mutable contiguous (one integer), one
/// increase-only, one immutable contiguous, one categorical.
fn toy_schema() -> Schema {
    Schema::new(vec![
        Feature::contiguous("income", 0.0, 100.0),
        Feature::contiguous("debts", 0.0, 20.0).integer(),
        Feature::contiguous("years_at_job", 0.0, 40.0)
            .integer()
            .direction(Direction::IncreaseOnly),
        Feature::contiguous("age", 18.0, 80.0).immutable(),
        Feature::categorical("housing", &["rent", "own", "free"]),
    ])
    .unwrap()
}

fn toy_linear() -> LinearModel {
    // columns: income, debts, years, age, housing×3
    LinearModel::new(vec![9.0, -6.0, 4.5, 1.5, -0.9, 1.2, 0.0], -3.6, 0.5).unwrap()
}

fn check_schema_respected(schema: &Schema, raw: &[f64], r: &RobustCounterfactual) {
    assert_eq!(r.raw[3], raw[3], "immutable age changed");
    assert_eq!(r.raw[4], raw[4], "categorical changed");
    assert_eq!(r.raw[1].fract(), 0.0, "integer feature not whole");
    assert!(r.raw[2] >= raw[2], "increase-only feature decreased");
    schema.check_actionable(raw, &r.raw).unwrap();
    let re = schema.encode(&r.raw).unwrap();
    assert!(
        re.iter()
            .zip(&r.encoded)
            .all(|(a, b)| (a - b).abs() < 1e-12)
    );
}

#[test]
fn generators_on_a_linear_model_meet_their_targets_and_respect_the_schema() {
    let schema = toy_schema();
    let model = toy_linear();
    let noise = NoiseModel::gaussian_for_schema(&schema, 0.01).unwrap();
    assert_eq!(noise.columns(), &[0, 1, 2]);
    let raw = [20.0, 12.0, 3.0, 30.0, 0.0];
    assert!(!model.accepts(&schema.encode(&raw).unwrap()));

    let w = wachter(&schema, &model, &noise, &raw, &WachterConfig::default()).unwrap();
    assert!(w.valid && w.target_met);
    check_schema_respected(&schema, &raw, &w);

    // The bound (m + Θ̃)/(1 − t) is at least m/(1 − t) = 0.2, so targets must exceed it.
    // λ from 0.1 in steps of 0.025 (still four rounds): with the default λ = 1
    // the L1 term outweighs the vanishing gradient of (1 − f)² on this steep toy.
    let cfg = CrocoConfig {
        n_iter: 300,
        robustness_target: 0.25,
        lambda: 0.1,
        lambda_step: 0.025,
        ..Default::default()
    };
    let c = croco(&schema, &model, &noise, &raw, &cfg).unwrap();
    check_schema_respected(&schema, &raw, &c);
    assert!(c.valid && c.target_met, "{c:?}");
    let exact = linear_invalidation_rate(&model, &c.encoded, &noise).unwrap();
    assert!(exact <= 0.25, "CROCO's realised Γ = {exact}");
    let sb = c.search_bound.unwrap();
    assert!(sb.value < 0.26 && exact <= sb.value);
    // Wachter stops at the boundary: nearer, but far less robust.
    assert!(w.l1_distance < c.l1_distance);
    assert!(w.invalidation.value > exact);

    let pcfg = ProbeConfig {
        invalidation_target: 0.2,
        ..Default::default()
    };
    let p = probe(&schema, &model, &noise, &raw, &pcfg).unwrap();
    check_schema_respected(&schema, &raw, &p);
    assert!(p.valid && p.target_met, "{p:?}");
    let exact_p = linear_invalidation_rate(&model, &p.encoded, &noise).unwrap();
    assert!(exact_p < 0.2 + 0.02, "PROBE's realised Γ = {exact_p}");
    assert!((p.probe_rate.unwrap() - exact_p).abs() < 1e-12);
    // reported figures are consistent
    for r in [&w, &c, &p] {
        let d: f64 = r
            .encoded
            .iter()
            .zip(schema.encode(&raw).unwrap())
            .map(|(a, b)| (a - b).abs())
            .sum();
        assert!((r.l1_distance - d).abs() < 1e-12);
        assert_eq!(r.invalidation.k, 10_000);
        // the reported bound is CROCO's (m + Θ̃)/(1 − t) with confidence 1 − e^{−2Km²}
        let b = r.bound;
        assert!(b.margin > 0.0 && b.k == r.soft.k);
        assert!((b.value - (b.margin + r.soft.value) / (1.0 - model.threshold)).abs() < 1e-15);
        let conf = 1.0 - (-2.0 * b.k as f64 * b.margin * b.margin).exp();
        assert!((b.confidence - conf).abs() < 1e-15);
    }
    // same seed → same bits
    assert_eq!(croco(&schema, &model, &noise, &raw, &cfg).unwrap(), c);
}

#[test]
fn croco_on_an_mlp_meets_its_target() {
    let schema = toy_schema();
    let d = schema.encoded_dim();
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(2);
    let rows: Vec<Vec<f64>> = (0..600)
        .map(|_| {
            vec![
                rng.random_range(0.0..100.0),
                rng.random_range(0..=20) as f64,
                rng.random_range(0..=40) as f64,
                rng.random_range(18..=80) as f64,
                rng.random_range(0..3) as f64,
            ]
        })
        .collect();
    let x = schema.encode_rows(&rows).unwrap();
    let lin = toy_linear();
    // noisy labels, as real credit data has: the MLP is not saturated
    let y: Vec<f64> = x
        .iter()
        .map(|r| f64::from(rng.random::<f64>() < lin.probability(r)))
        .collect();
    let mlp = MlpModel::train(
        &x,
        &y,
        &MlpTraining {
            epochs: 40,
            ..Default::default()
        },
    )
    .unwrap();
    assert_eq!(mlp.input_dim(), d);
    let noise = NoiseModel::gaussian_for_schema(&schema, 0.01).unwrap();
    let cfg = CrocoConfig {
        n_iter: 200,
        k: 200,
        lambda: 0.1,
        lambda_step: 0.025,
        ..Default::default()
    };
    let declined: Vec<&Vec<f64>> = rows
        .iter()
        .filter(|r| !mlp.accepts(&schema.encode(r).unwrap()))
        .take(5)
        .collect();
    assert_eq!(declined.len(), 5);
    let mut met = 0;
    for raw in declined {
        let c = croco(&schema, &mlp, &noise, raw, &cfg).unwrap();
        check_schema_respected(&schema, raw, &c);
        assert!(c.valid, "{c:?}");
        met += usize::from(c.target_met);
        let tol = 0.01 + 3.0 * c.invalidation.std_error;
        assert!(
            c.invalidation.value <= 0.3 + tol,
            "Γ̃ = {}",
            c.invalidation.value
        );
    }
    assert!(met >= 4, "CROCO met its bound target for {met}/5");
}

#[test]
fn soft_rate_gradient_matches_finite_differences_with_common_random_numbers() {
    // With the same seed the K noise draws are the same, so central differences
    // of Θ̃ differentiate the very sample average whose gradient we compute.
    let mlp = small_mlp(5, 4);
    let lin = LinearModel::new(vec![1.0, -2.0, 0.5, 0.0, 3.0], 0.2, 0.5).unwrap();
    let x = [0.5, 0.3, 0.6, 0.2, 0.4];
    for generic in [false, true] {
        let noise = NoiseModel::gaussian(0.02, vec![0, 1, 3, 4]).unwrap();
        let mut est = Estimator::new(noise, 500).unwrap();
        if generic {
            est = est.with_sampling(Sampling::Generic);
        }
        for model in [&mlp as &dyn Model, &lin as &dyn Model] {
            let mut ws = Workspace::new(model, 9);
            est.soft_rate_with_gradient(model, &x, &mut ws).unwrap();
            let g = ws.acc.clone();
            let h = 1e-6;
            for j in 0..5 {
                let mut xp = x;
                let mut xm = x;
                xp[j] += h;
                xm[j] -= h;
                ws.reseed(9);
                let fp = est
                    .soft_invalidation_rate(model, &xp, &mut ws)
                    .unwrap()
                    .value;
                ws.reseed(9);
                let fm = est
                    .soft_invalidation_rate(model, &xm, &mut ws)
                    .unwrap()
                    .value;
                let fd = (fp - fm) / (2.0 * h);
                assert!(
                    (fd - g[j]).abs() < 1e-5 * (1.0 + fd.abs()),
                    "j {j}: fd {fd} vs {}",
                    g[j]
                );
            }
        }
    }
}

#[test]
fn probe_rate_gradient_matches_finite_differences_on_a_relu_network() {
    let mlp = small_mlp(4, 6);
    let noise =
        NoiseModel::diagonal_gaussian(vec![0, 1, 2, 3], vec![0.01, 0.0025, 0.04, 0.01]).unwrap();
    let mut ws = Workspace::new(&mlp, 0);
    let x = [0.45, 0.35, 0.5, 0.6];
    let (p, u, n, _) = estimate::probe_parts(&mlp, &x, &noise, &mut ws).unwrap();
    assert!(p > 0.0 && p < 1.0);
    let analytic: Vec<f64> = ws.grad.iter().map(|g| -normal_pdf(u) * g / n).collect();
    let h = 1e-7;
    for j in 0..4 {
        let mut xp = x;
        let mut xm = x;
        xp[j] += h;
        xm[j] -= h;
        let fp = probe_invalidation_rate(&mlp, &xp, &noise, &mut ws).unwrap();
        let fm = probe_invalidation_rate(&mlp, &xm, &noise, &mut ws).unwrap();
        let fd = (fp - fm) / (2.0 * h);
        assert!(
            (fd - analytic[j]).abs() < 1e-5 * (1.0 + fd.abs()),
            "j {j}: {fd} vs {}",
            analytic[j]
        );
    }
}

#[test]
fn generators_refuse_bad_input() {
    let schema = toy_schema();
    let model = toy_linear();
    let noise = NoiseModel::gaussian_for_schema(&schema, 0.01).unwrap();
    let raw = [20.0, 12.0, 3.0, 30.0, 0.0];
    let bad_raws: [&[f64]; 3] = [
        &[f64::NAN, 12.0, 3.0, 30.0, 0.0],
        &[20.0, 12.0],
        &[20.0, 12.0, 3.0, 30.0, 7.0],
    ];
    for bad in bad_raws {
        assert!(wachter(&schema, &model, &noise, bad, &WachterConfig::default()).is_err());
        assert!(croco(&schema, &model, &noise, bad, &CrocoConfig::default()).is_err());
        assert!(probe(&schema, &model, &noise, bad, &ProbeConfig::default()).is_err());
    }
    let uniform = NoiseModel::uniform(0.1, vec![0, 1]).unwrap();
    assert!(probe(&schema, &model, &uniform, &raw, &ProbeConfig::default()).is_err());
    let other = LinearModel::new(vec![1.0; 3], 0.0, 0.5).unwrap();
    assert!(croco(&schema, &other, &noise, &raw, &CrocoConfig::default()).is_err());
    let bad_cfg = CrocoConfig {
        lr: f64::NAN,
        ..Default::default()
    };
    assert!(croco(&schema, &model, &noise, &raw, &bad_cfg).is_err());
    let bad_cfg = CrocoConfig {
        robustness_target: 1.5,
        ..Default::default()
    };
    assert!(croco(&schema, &model, &noise, &raw, &bad_cfg).is_err());
    // CROCO with uniform noise works (the reference code supports it).
    let cfg = CrocoConfig {
        n_iter: 100,
        k: 100,
        lambda: 0.1,
        lambda_step: 0.025,
        ..Default::default()
    };
    let c = croco(&schema, &model, &uniform, &raw, &cfg).unwrap();
    assert!(c.valid && c.probe_rate.is_none());
}

#[test]
fn applicant_noise_skips_special_states_and_immutables() {
    let schema = Schema::new(vec![
        Feature::contiguous("a", 0.0, 10.0).with_special(-7.0, "condition not met"),
        Feature::contiguous("b", 0.0, 10.0),
        Feature::contiguous("c", 0.0, 10.0).immutable(),
        Feature::categorical("d", &["x", "y"]),
    ])
    .unwrap();
    // encoded: a slot 0, a=-7 indicator 1, b slot 2, c slot 3, d 4..6
    assert_eq!(NoiseModel::default_columns(&schema), vec![0, 2]);
    let n = NoiseModel::gaussian_for_applicant(&schema, &[-7.0, 3.0, 1.0, 0.0], 0.01).unwrap();
    assert_eq!(n.columns(), &[2]);
    let n = NoiseModel::gaussian_for_applicant(&schema, &[4.0, 3.0, 1.0, 1.0], 0.04).unwrap();
    assert_eq!(n.columns(), &[0, 2]);
    assert!((n.scale()[0] - 0.2).abs() < 1e-15);
    assert!(NoiseModel::gaussian_for_applicant(&schema, &[4.0, 3.0], 0.01).is_err());
    assert!(NoiseModel::gaussian_for_applicant(&schema, &[5.5e3, 3.0, 1.0, 1.0], 0.01).is_err());
}

#[test]
fn vectorisable_exp_is_within_two_ulp_of_the_library_exp() {
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(77);
    let mut worst = 0.0f64;
    for i in 0..200_000 {
        let x: f64 = match i % 4 {
            0 => rng.random_range(-745.0..709.7),
            1 => rng.random_range(-40.0..40.0),
            2 => rng.random_range(-1.0..1.0),
            _ => rng.random_range(-1e-6..1e-6),
        };
        let (a, b) = (estimate::exp_det(x), x.exp());
        if b < f64::MIN_POSITIVE {
            // Subnormal results: absolute error of a few subnormal steps.
            assert!((a - b).abs() <= 4.0 * 5e-324, "{x}: {a} vs {b}");
            continue;
        }
        let ulp = (b.to_bits() as i64 - a.to_bits() as i64).unsigned_abs();
        worst = worst.max(ulp as f64);
        assert!(ulp <= 2, "exp({x}): {a} vs {b} ({ulp} ulp)");
    }
    assert!(worst <= 2.0);
    for (x, want) in [
        (0.0, 1.0),
        (710.0, f64::INFINITY),
        (1e4, f64::INFINITY),
        (-746.0, 0.0),
        (-1e4, 0.0),
        (f64::INFINITY, f64::INFINITY),
        (f64::NEG_INFINITY, 0.0),
    ] {
        assert_eq!(estimate::exp_det(x), want, "exp({x})");
    }
    assert!(estimate::exp_det(f64::NAN).is_nan());
}

/// The generic loop one sample at a time, as it was before block scoring:
/// build the point, score it, count and sum. Returns (Σ invalid, Σ(1 − f)).
fn one_at_a_time<M: Model + ?Sized>(
    model: &M,
    x: &[f64],
    noise: &NoiseModel,
    k: usize,
    rng: &mut Xoshiro256PlusPlus,
) -> (u64, f64) {
    use rand_distr::{Distribution, StandardNormal};
    let thr = logit(model.threshold());
    let mut point = x.to_vec();
    let (mut hard, mut soft) = (0, 0.0);
    for _ in 0..k {
        for (&c, &s) in noise.columns().iter().zip(noise.scale()) {
            let e = match noise.kind() {
                NoiseKind::Gaussian => {
                    let z: f64 = StandardNormal.sample(&mut *rng);
                    s * z
                }
                NoiseKind::Uniform => s * (2.0 * rng.random::<f64>() - 1.0),
            };
            point[c] = x[c] + e;
        }
        let sc = model.score(&point);
        hard += u64::from(sc <= thr);
        soft += 1.0 - sigmoid(sc);
    }
    (hard, soft)
}

/// Block scoring draws the same samples in the same order as scoring one at
/// a time: the same Γ̃ (bit for bit on the logistic model, whose block scores
/// are exact; the same count on the MLP), Θ̃ within rounding, and the
/// generator left at the same position.
#[test]
fn block_scoring_matches_scoring_one_sample_at_a_time() {
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(99);
    let d = 11;
    let mlp = small_mlp(d, 9);
    for case in 0..24 {
        let w: Vec<f64> = (0..d).map(|_| rng.random_range(-2.0..2.0)).collect();
        let lin = LinearModel::new(w, rng.random_range(-1.0..1.0), 0.5).unwrap();
        let x: Vec<f64> = (0..d).map(|_| rng.random::<f64>()).collect();
        let cols: Vec<usize> = (0..d).filter(|j| (j + case) % 3 != 0).collect();
        let noise = if case % 2 == 0 {
            NoiseModel::gaussian(0.05, cols).unwrap()
        } else {
            NoiseModel::uniform(0.3, cols).unwrap()
        };
        let k = 2 + case * 97;
        let est = Estimator::new(noise.clone(), k)
            .unwrap()
            .with_sampling(Sampling::Generic);
        for model in [&lin as &dyn Model, &mlp as &dyn Model] {
            let seed = 1000 + case as u64;
            let mut ws = Workspace::new(model, seed);
            let e = est.estimate(model, &x, &mut ws).unwrap();
            let mut r = Xoshiro256PlusPlus::seed_from_u64(seed);
            let (hard, soft) = one_at_a_time(model, &x, &noise, k, &mut r);
            assert_eq!(e.invalidation.value, hard as f64 / k as f64, "case {case}");
            let want = soft / k as f64;
            assert!(
                (e.soft.value - want).abs() <= 1e-13,
                "case {case}: Θ̃ {} vs {want}",
                e.soft.value
            );
            assert_eq!(ws.rng.random::<u64>(), r.random::<u64>(), "case {case}");
        }
    }
}

#[test]
fn normal_quantile_inverts_the_cdf_and_matches_tables() {
    // Tabulated quantiles (mpmath, 50 digits, rounded).
    let cases = [
        (0.5, 0.0),
        (0.9, 1.281_551_565_544_600_4),
        (0.975, 1.959_963_984_540_054),
        (0.1, -1.281_551_565_544_600_4),
        (1e-10, -6.361_340_902_404_056),
        (0.01, -2.326_347_874_040_841),
    ];
    for (p, want) in cases {
        let got = normal_quantile(p);
        assert!(
            (got - want).abs() <= 1e-13 * want.abs().max(1.0),
            "Φ⁻¹({p}) = {got}, want {want}"
        );
    }
    // Φ(Φ⁻¹(p)) = p across the three branches of the approximation.
    for k in 1..2000 {
        let p = k as f64 / 2000.0;
        for p in [p, p * 1e-6] {
            let back = normal_cdf(normal_quantile(p));
            assert!(((back - p) / p).abs() < 1e-12, "Φ(Φ⁻¹({p})) = {back}");
        }
    }
    assert_eq!(normal_quantile(0.0), f64::NEG_INFINITY);
    assert_eq!(normal_quantile(1.0), f64::INFINITY);
    assert!(normal_quantile(1.5).is_nan() && normal_quantile(f64::NAN).is_nan());
}

/// At a point whose score sits exactly at `logit(t) + margin`, the closed-form
/// Γ is the target; above it Γ is below the target, below it above; and the
/// margin is σ‖w_S‖·Φ⁻¹(1 − γ) computed by hand from the noisy columns only.
#[test]
fn robust_margin_puts_the_target_on_the_boundary() {
    let m = LinearModel::new(vec![1.5, -2.0, 0.5, 4.0], -0.3, 0.4).unwrap();
    let noise = NoiseModel::gaussian(0.01, vec![0, 1, 2]).unwrap(); // column 3 is not noisy
    for gamma in [0.01, 0.1, 0.25, 0.49] {
        let margin = linear_robust_margin(&m, &noise, gamma).unwrap();
        let by_hand = 0.1 * (1.5f64 * 1.5 + 4.0 + 0.25).sqrt() * normal_quantile(1.0 - gamma);
        assert!((margin - by_hand).abs() < 1e-12, "{margin} vs {by_hand}");
        // Move along column 3 (not noisy) so the score hits logit(t) + margin + δ.
        for delta in [-1e-3, 0.0, 1e-3] {
            let base = [0.2, 0.1, 0.3, 0.0];
            let s0 = m.score(&base);
            let mut x = base;
            x[3] = (logit(m.threshold) + margin + delta - s0) / 4.0;
            let g = linear_invalidation_rate(&m, &x, &noise).unwrap();
            if delta == 0.0 {
                assert!(
                    (g - gamma).abs() < 1e-9 * gamma.max(1e-3),
                    "Γ = {g}, target {gamma}"
                );
            } else if delta > 0.0 {
                assert!(
                    g < gamma,
                    "Γ = {g} above the target {gamma} above the margin"
                );
            } else {
                assert!(
                    g > gamma,
                    "Γ = {g} below the target {gamma} below the margin"
                );
            }
        }
    }
    // γ ≥ ½ needs no margin beyond acceptance.
    assert_eq!(linear_robust_margin(&m, &noise, 0.6).unwrap(), 0.0);
    assert_eq!(linear_robust_margin(&m, &noise, 0.5).unwrap(), 0.0);
    // Bad input is an error.
    assert!(linear_robust_margin(&m, &noise, 0.0).is_err());
    assert!(linear_robust_margin(&m, &noise, 1.0).is_err());
    assert!(linear_robust_margin(&m, &noise, f64::NAN).is_err());
    let uniform = NoiseModel::uniform(0.1, vec![0]).unwrap();
    assert!(linear_robust_margin(&m, &uniform, 0.1).is_err());
    let too_wide = NoiseModel::gaussian(0.01, vec![7]).unwrap();
    assert!(linear_robust_margin(&m, &too_wide, 0.1).is_err());
}

/// CROCO's floor is the bound at Θ̃ = 0, m/(1 − t) by hand, never above any
/// bound; a target is certifiable exactly when it exceeds the floor (just below
/// `soft_rate_for_target` the bound is below the target, at it it is not); the
/// K for a confidence is the least with `bound_confidence ≥` it.
#[test]
fn guarantee_limits_floor_target_and_samples() {
    for &(m, t, k) in &[(0.02, 0.5, 10_000usize), (0.1, 0.5, 500), (0.05, 0.3, 2000)] {
        let g = GuaranteeLimits::new(m, t, k).unwrap();
        assert_eq!(g.floor, invalidation_bound(0.0, m, t, k).unwrap().value);
        assert!((g.floor - m / (1.0 - t)).abs() < 1e-15);
        assert_eq!(g.confidence, bound_confidence(k, m));
        for theta in [0.0, 0.01, 0.3, 1.0] {
            assert!(invalidation_bound(theta, m, t, k).unwrap().value >= g.floor);
        }
        for target in [0.01, 0.05, 0.1, 0.3] {
            let need = g.soft_rate_for_target(target);
            assert_eq!(g.can_certify(target), need > 0.0, "m {m} t {t} γ {target}");
            if need > 0.0 {
                let b = invalidation_bound(need * (1.0 - 1e-9), m, t, k).unwrap();
                assert!(b.value < target);
                let b = invalidation_bound(need * (1.0 + 1e-9), m, t, k).unwrap();
                assert!(b.value > target);
                assert!(m < g.margin_for_target(target));
            } else {
                assert!(invalidation_bound(0.0, m, t, k).unwrap().value >= target);
                assert!(m >= g.margin_for_target(target));
            }
            let words = g.in_words(g.floor + 0.2, target);
            assert!(words.contains("cannot go below m/(1 − t)"), "{words}");
        }
    }
    // the demo's setting: m = 0.02, t = 0.5 gives a 4% floor, so 10% needs Θ̃ < 0.03
    let g = GuaranteeLimits::new(0.02, 0.5, 10_000).unwrap();
    assert!((g.floor - 0.04).abs() < 1e-15);
    assert!((g.soft_rate_for_target(0.1) - 0.03).abs() < 1e-15);
    for &(m, c) in &[
        (0.02, 1.0 - (-8.0f64).exp()),
        (0.1, 0.95),
        (0.05, 0.999),
        (0.3, 0.5),
    ] {
        let k = GuaranteeLimits::samples_for_confidence(m, c).unwrap();
        assert!(
            bound_confidence(k, m) >= c * (1.0 - 1e-15),
            "m {m} c {c} K {k}"
        );
        assert!(
            k == 1 || bound_confidence(k - 1, m) < c,
            "m {m} c {c} K {k}"
        );
    }
    assert!(GuaranteeLimits::samples_for_confidence(0.0, 0.9).is_err());
    assert!(GuaranteeLimits::samples_for_confidence(0.1, 1.0).is_err());
    assert!(GuaranteeLimits::samples_for_confidence(1e-200, 0.9).is_err());
    assert!(GuaranteeLimits::new(0.0, 0.5, 10).is_err());
    assert!(GuaranteeLimits::new(1.5, 0.5, 10).is_err());
    assert!(GuaranteeLimits::new(0.1, 1.0, 10).is_err());
    assert!(GuaranteeLimits::new(0.1, 0.5, 0).is_err());
}
