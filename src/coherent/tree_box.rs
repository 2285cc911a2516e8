//! Robust advice for tree ensembles ([`Config::robustness`](super::Config::robustness) on a tree
//! model): the cheapest change whose whole neighbourhood — a box of
//! per-feature tolerances in data units — is accepted.
//!
//! # The box
//! For an answer `x` and half-widths `δ_f ≥ 0` (data units), the box `B(x)`
//! holds every row that differs from `x` only in the values of contiguous
//! features that `x` holds in their value state (not a special state, not a
//! categorical), each by at most `δ_f`: `y_f ∈ [x_f − δ_f, x_f + δ_f]` over
//! the reals — not clipped to the feature's range and not rounded to its grid,
//! because a slip (the noise of [`crate::noise`]) is neither. A tree ensemble
//! is piecewise constant, so its worst score over the box is exact:
//!
//! ```text
//! worst(x) = base + Σ_t min { value(ℓ) : ℓ a leaf of t whose region meets B(x) }
//! ```
//!
//! (each tree's worst leaf over the box, [`worst_case_score`]; the trees may
//! take their worst leaves at different points of the box, so this is a lower
//! bound on the least score over the box, and exact for one tree). Robust
//! advice asks `worst(x) ≥ logit(t) + margin` ([`Config::margin`](super::Config::margin) is the
//! margin option on the score), proven by the tree search
//! ([`super::tree_search`], [`TreeSearch::set_box`](super::tree_search::TreeSearch::set_box)).
//!
//! # The box of a robustness target
//! [`Robustness`] speaks of Gaussian slips N(0, σ²) on the value slot of every
//! mutable contiguous feature (the `m` default noise columns of
//! [`crate::noise::NoiseModel::gaussian_for_schema`]; a slot is the value
//! min–max scaled to the feature's range). For a tree ensemble Γ has no closed
//! form; [`half_widths`] takes `δ_f = z·σ·(upper_f − lower_f)` with
//! `z = Φ⁻¹(1 − γ/(2m))`, so that by the union bound the slips leave the box
//! with probability at most `m·2(1 − Φ(z)) = γ`: an answer whose whole box is
//! accepted has `Γ ≤ γ` — a sufficient condition, proven, and conservative (the
//! answer's Γ is usually far below γ). The answer's Γ̃ is then estimated by
//! Monte Carlo ([`invalidation_rate`]: CROCO's estimator, Guyomard et al.
//! 2023, eq. 3, with [`GAMMA_SAMPLES`] samples and seed [`GAMMA_SEED`]).

use super::Robustness;
use super::trees::reaches;
use crate::error::Result;
use crate::model::Model;
use crate::model::TreeEnsemble;
use crate::model::trees::Test;
use crate::noise::{NoiseKind, NoiseModel, normal_quantile};
use crate::schema::{FeatureKind, Schema};
use rand::{Rng, SeedableRng};
use rand_distr::{Distribution, StandardNormal};
use rand_xoshiro::Xoshiro256PlusPlus;

/// Monte Carlo samples of the Γ̃ reported for a robust tree answer.
pub const GAMMA_SAMPLES: usize = 10_000;

/// Seed of the Monte Carlo Γ̃ of a robust tree answer (fixed, so that the same
/// answer always reports the same Γ̃).
pub const GAMMA_SEED: u64 = 0x7265_6275_7374;

/// The box half-widths (data units, one per feature) of a robustness target
/// on a tree ensemble: `z·σ·(upper − lower)` for every mutable contiguous
/// feature, `z = Φ⁻¹(1 − γ/(2m))` over the `m` noisy features (see the
/// module's documentation); 0 elsewhere.
pub fn half_widths(schema: &Schema, r: &Robustness) -> Result<Vec<f64>> {
    let noisy = NoiseModel::default_columns(schema);
    let mut out = vec![0.0; schema.n_features()];
    if noisy.is_empty() || r.sigma2 == 0.0 {
        return Ok(out);
    }
    let m = noisy.len() as f64;
    let z = normal_quantile(1.0 - r.invalidation_target / (2.0 * m));
    let sigma = r.sigma2.sqrt();
    for (i, f) in schema.features.iter().enumerate() {
        if let FeatureKind::Contiguous { lower, upper, .. } = &f.kind {
            if f.actionability.mutable && schema.layout(i).value.is_some() {
                out[i] = z * sigma * (upper - lower);
            }
        }
    }
    Ok(out)
}

/// The interval the box gives feature `f` of the encoded row `x`: `Some((v −
/// δ, v + δ))` when `x` holds it in its value state and `δ > 0`, `v` what the
/// trees see of it; `None` when the box leaves it fixed.
pub(crate) fn interval(
    schema: &Schema,
    ens: &TreeEnsemble,
    half: &[f64],
    f: usize,
    x: &[f64],
) -> Option<(f64, f64)> {
    let d = half.get(f).copied().unwrap_or(0.0);
    if d <= 0.0 {
        return None;
    }
    let lay = schema.layout(f);
    lay.value?;
    if lay.indicators.clone().any(|c| x[c] > 0.5) {
        return None; // a special state
    }
    let v = ens.encoded_input(f, x);
    Some((v - d, v + d))
}

/// The worst score of the encoded row `x` over its box (half-widths `half`,
/// data units; empty = no box): per tree the least leaf value among the leaves
/// whose region meets the box, summed as the library sums
/// ([`TreeEnsemble::sum_tree_values`]). Equal to the score when every
/// half-width is 0.
pub fn worst_case_score(schema: &Schema, ens: &TreeEnsemble, half: &[f64], x: &[f64]) -> f64 {
    let boxes: Vec<Option<(f64, f64)>> = (0..ens.inputs().len())
        .map(|f| interval(schema, ens, half, f, x))
        .collect();
    let nodes = ens.nodes();
    let mut stack: Vec<usize> = Vec::new();
    let worst = ens.roots().iter().map(|&r| {
        let mut least = f64::INFINITY;
        stack.clear();
        stack.push(r as usize);
        while let Some(k) = stack.pop() {
            let node = &nodes[k];
            if node.test == Test::Leaf {
                least = least.min(node.value);
                continue;
            }
            let f = node.feature as usize;
            let (left, right) = match boxes[f] {
                Some((a, b)) => reaches(ens, node, a, b),
                None => {
                    let l = ens.goes_left(node, ens.encoded_input(f, x));
                    (l, !l)
                }
            };
            if left {
                stack.push(node.left as usize);
            }
            if right {
                stack.push(node.right as usize);
            }
        }
        least
    });
    let worst: Vec<f64> = worst.collect();
    ens.sum_tree_values(worst.into_iter())
}

/// Γ̃ of the encoded answer `x` under the target's Gaussian slips (CROCO's
/// Monte Carlo estimator, Guyomard et al. 2023, eq. 3: the share of
/// [`GAMMA_SAMPLES`] noisy copies `x + ε` the ensemble declines, seed
/// [`GAMMA_SEED`]): a tree ensemble's Γ has no closed form. Written here
/// rather than borrowed from `robust` (CROCO's module), as the exact engine
/// uses no other method (tests/layering.rs); its oracle is the closed form
/// Φ(−2.5) of the stump test.
pub fn invalidation_rate(
    schema: &Schema,
    ens: &TreeEnsemble,
    r: &Robustness,
    x: &[f64],
) -> Result<f64> {
    let noise = r.noise(schema)?;
    noise.check_dim(x.len())?;
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(GAMMA_SEED);
    let mut point = x.to_vec();
    let mut declined = 0usize;
    for _ in 0..GAMMA_SAMPLES {
        for (&c, &s) in noise.columns().iter().zip(noise.scale()) {
            let e = match noise.kind() {
                NoiseKind::Gaussian => {
                    let z: f64 = StandardNormal.sample(&mut rng);
                    s * z
                }
                NoiseKind::Uniform => {
                    let u: f64 = rng.random();
                    s * (2.0 * u - 1.0)
                }
            };
            point[c] = x[c] + e;
        }
        declined += usize::from(!ens.accepts(&point));
    }
    Ok(declined as f64 / GAMMA_SAMPLES as f64)
}
