//! Block evaluation of noisy copies ([`Model::score_perturbed`]) against the
//! plain one-point score on random inputs.

use super::*;
use crate::nn::{Activation, Network};
use rand::{Rng, SeedableRng};
use rand_xoshiro::Xoshiro256PlusPlus;

/// Noisy columns: a random sorted subset of `0..d` (sometimes all, sometimes none).
fn random_cols(rng: &mut Xoshiro256PlusPlus, d: usize) -> Vec<usize> {
    let p: f64 = rng.random();
    (0..d).filter(|_| rng.random::<f64>() < p).collect()
}

/// Scores of `n` noisy copies of `x` from `score_perturbed` and from `score_in`
/// on the explicitly built points.
fn both<M: Model>(
    model: &M,
    x: &[f64],
    cols: &[usize],
    rng: &mut Xoshiro256PlusPlus,
    n: usize,
) -> (Vec<f64>, Vec<f64>) {
    let d = x.len();
    let mut deltas = vec![0.0; d * PERTURBED_BLOCK];
    for k in 0..cols.len() {
        for s in 0..n {
            deltas[k * PERTURBED_BLOCK + s] = rng.random_range(-1.5..1.5);
        }
    }
    let mut scratch = vec![0.0; model.perturbed_scratch_len()];
    model.prepare_perturbed(x, cols, &mut scratch);
    let mut fast = vec![0.0; PERTURBED_BLOCK];
    model.score_perturbed(x, cols, &deltas, n, &mut fast, &mut scratch);
    let mut plain = Vec::with_capacity(n);
    let mut point = x.to_vec();
    for s in 0..n {
        for (k, &c) in cols.iter().enumerate() {
            point[c] = x[c] + deltas[k * PERTURBED_BLOCK + s];
        }
        plain.push(model.score(&point));
    }
    fast.truncate(n);
    (fast, plain)
}

#[test]
fn linear_block_scores_equal_the_plain_score_bit_for_bit() {
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(11);
    for case in 0..200 {
        let d = 1 + case % 60;
        let w: Vec<f64> = (0..d).map(|_| rng.random_range(-3.0..3.0)).collect();
        let m = LinearModel::new(w, rng.random_range(-1.0..1.0), 0.5).unwrap();
        let x: Vec<f64> = (0..d).map(|_| rng.random_range(-2.0..2.0)).collect();
        let cols = random_cols(&mut rng, d);
        let n = 1 + case % PERTURBED_BLOCK;
        let (fast, plain) = both(&m, &x, &cols, &mut rng, n);
        for (f, p) in fast.iter().zip(&plain) {
            assert_eq!(f.to_bits(), p.to_bits(), "case {case}: {f} vs {p}");
        }
        // Through AnyModel too.
        let (fast, plain) = both(&AnyModel::Linear(m), &x, &cols, &mut rng, n);
        for (f, p) in fast.iter().zip(&plain) {
            assert_eq!(f.to_bits(), p.to_bits(), "case {case}: {f} vs {p}");
        }
    }
}

/// The MLP block evaluation regroups the first layer's sum (base point plus
/// an update on the noisy columns), so it may differ from the plain forward
/// pass in the last bits: within 1e-12 relative to the size of the terms.
#[test]
fn mlp_block_scores_equal_the_plain_forward_pass_within_1e_12() {
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(12);
    let shapes: [&[usize]; 5] = [
        &[57, 50, 1],
        &[7, 1],
        &[13, 9, 5, 1],
        &[3, 17, 1],
        &[30, 8, 1],
    ];
    let mut exact = 0usize;
    let mut total = 0usize;
    for (case, sizes) in shapes.iter().cycle().take(60).enumerate() {
        let hidden = [Activation::Relu, Activation::Tanh, Activation::Sigmoid][case % 3];
        let net = Network::new(sizes, hidden, Activation::Identity, case as u64);
        let m = MlpModel::new(net, 0.5).unwrap();
        let d = sizes[0];
        let x: Vec<f64> = (0..d).map(|_| rng.random_range(-2.0..2.0)).collect();
        let cols = random_cols(&mut rng, d);
        let n = 1 + (case * 7) % PERTURBED_BLOCK;
        let (fast, plain) = both(&m, &x, &cols, &mut rng, n);
        let any = both(&AnyModel::Mlp(m.clone()), &x, &cols, &mut rng, n);
        for (f, p) in fast.iter().zip(&plain).chain(any.0.iter().zip(&any.1)) {
            assert!(
                (f - p).abs() <= 1e-12 * (1.0 + p.abs()),
                "case {case} {sizes:?}: {f} vs {p}"
            );
            exact += usize::from(f.to_bits() == p.to_bits());
            total += 1;
        }
    }
    // Noise-free copies (no noisy column) take the base point's exact sum.
    assert!(exact > 0 && total > 0);
}

/// The two-layer MLP block kernels use `f64::mul_add`, which is exactly
/// rounded, so the dispatched variant (AVX2 + FMA where the CPU has both)
/// must give the bits of a plain scalar evaluation in the same order: the
/// first layer as `(W₁x + b₁)_o` then one fused term per noisy column in
/// order, the output unit with eight fused lanes summed as `crate::nn::dot`
/// sums them.
#[test]
fn mlp_block_scores_equal_a_scalar_fused_evaluation_bit_for_bit() {
    fn fused_dot(a: &[f64], b: &[f64]) -> f64 {
        let mut acc = [0.0f64; 8];
        let whole = a.len() / 8 * 8;
        for i in 0..whole {
            acc[i % 8] = a[i].mul_add(b[i], acc[i % 8]);
        }
        let mut s =
            ((acc[0] + acc[1]) + (acc[2] + acc[3])) + ((acc[4] + acc[5]) + (acc[6] + acc[7]));
        for i in whole..a.len() {
            s = a[i].mul_add(b[i], s);
        }
        s
    }
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(13);
    let shapes: [&[usize]; 4] = [&[57, 50, 1], &[7, 3, 1], &[3, 17, 1], &[30, 8, 1]];
    for (case, sizes) in shapes.iter().cycle().take(40).enumerate() {
        let hidden = [Activation::Relu, Activation::Tanh, Activation::Sigmoid][case % 3];
        let net = Network::new(sizes, hidden, Activation::Identity, 100 + case as u64);
        let m = MlpModel::new(net, 0.5).unwrap();
        let d = sizes[0];
        let x: Vec<f64> = (0..d).map(|_| rng.random_range(-2.0..2.0)).collect();
        let cols = random_cols(&mut rng, d);
        let n = 1 + (case * 11) % PERTURBED_BLOCK;
        let mut deltas = vec![0.0; d * PERTURBED_BLOCK];
        for k in 0..cols.len() {
            for s in 0..n {
                deltas[k * PERTURBED_BLOCK + s] = rng.random_range(-1.5..1.5);
            }
        }
        let mut scratch = vec![0.0; m.perturbed_scratch_len()];
        m.prepare_perturbed(&x, &cols, &mut scratch);
        let mut fast = vec![0.0; PERTURBED_BLOCK];
        m.score_perturbed(&x, &cols, &deltas, n, &mut fast, &mut scratch);
        let (l1, l2) = (&m.network.layers[0], &m.network.layers[1]);
        for (s, f) in fast[..n].iter().enumerate() {
            let h: Vec<f64> = (0..l1.n_out)
                .map(|o| {
                    let row = &l1.weights[o * l1.n_in..(o + 1) * l1.n_in];
                    let mut z = crate::nn::dot(row, &x) + l1.bias[o];
                    for (k, &c) in cols.iter().enumerate() {
                        z = row[c].mul_add(deltas[k * PERTURBED_BLOCK + s], z);
                    }
                    l1.activation.apply(z)
                })
                .collect();
            let want = l2
                .activation
                .apply(fused_dot(&l2.weights[..l2.n_in], &h) + l2.bias[0]);
            assert_eq!(
                f.to_bits(),
                want.to_bits(),
                "case {case} {sizes:?}: {f} vs {want}"
            );
        }
    }
}

#[test]
fn default_block_scores_build_the_same_points() {
    // A model that keeps the trait's default block evaluation.
    #[derive(Debug)]
    struct Plain(LinearModel);
    impl Model for Plain {
        fn input_dim(&self) -> usize {
            self.0.input_dim()
        }
        fn threshold(&self) -> f64 {
            0.5
        }
        fn score_in(&self, x: &[f64], s: &mut [f64]) -> f64 {
            self.0.score_in(x, s)
        }
        fn score_gradient_in(&self, x: &[f64], g: &mut [f64], s: &mut [f64]) -> f64 {
            self.0.score_gradient_in(x, g, s)
        }
    }
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(13);
    let d = 9;
    let w: Vec<f64> = (0..d).map(|_| rng.random_range(-3.0..3.0)).collect();
    let m = Plain(LinearModel::new(w, 0.3, 0.5).unwrap());
    let x: Vec<f64> = (0..d).map(|_| rng.random_range(-2.0..2.0)).collect();
    let (fast, plain) = both(&m, &x, &[1, 4, 8], &mut rng, 37);
    for (f, p) in fast.iter().zip(&plain) {
        assert_eq!(f.to_bits(), p.to_bits());
    }
}

/// Found by the bounded fuzz run (fuzz/regressions/model_prediction): finite
/// weights ±1e308 overflow to +∞ and −∞ on an input of 16, whose sum is NaN;
/// the checked score refuses it and keeps every finite score.
#[test]
fn a_score_that_overflows_to_nan_is_refused() {
    let m = AnyModel::Linear(LinearModel::new(vec![1e308, -1e308], 0.0, 0.5).unwrap());
    assert!(m.score(&[16.0, 16.0]).is_nan());
    assert!(matches!(
        m.checked_score(&[16.0, 16.0]),
        Err(Error::InvalidArgument(_))
    ));
    assert_eq!(m.checked_score(&[0.5, 0.5]).unwrap(), 0.0);
    assert_eq!(m.checked_score(&[16.0, 0.0]).unwrap(), f64::INFINITY);
}
