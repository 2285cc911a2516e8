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
//!
//! # The box of reachable values
//! With [`BoxKind::ReachableValues`] the box holds every value the applicant
//! can actually end at rather than every real: a slip `ε_f` lands on
//! `R_f(x_f + ε_f)`, `R_f` = clip to the feature's range, then round to the
//! nearest point of the data's grid in it ([`reachable_value`]; a real-valued
//! feature is only clipped). `R_f` is monotone, so for `|ε_f| ≤ δ_f` the
//! realized values are the grid values from `R_f(x_f − δ_f)` to
//! `R_f(x_f + δ_f)`, and a threshold test reaches a side for one of them
//! exactly when it reaches it for the interval between the two: the box per
//! feature is `[R_f(x_f − δ_f), R_f(x_f + δ_f)]` (`TreeBox::interval`), the
//! same worst-leaf walk proves it, and the union bound holds as before, now
//! for the slips the applicant can make: Γ ≤ γ with Γ measured under
//! clip-and-round slips, which [`invalidation_rate`] samples. The box is
//! narrower than the reals box where the range clips it or rounding pulls an
//! end inwards, and up to half a grid step wider where rounding pushes an
//! end outwards. The grid is the *data's* (whole numbers, `L + k·step`), not
//! the advice grid (`schema::grid`): an applicant advised 45,000 in
//! steps of 1,000 who ends at 44,700 is scored at 44,700.

use super::trees::reaches;
use super::{BoxKind, Robustness};
use crate::error::Result;
use crate::model::Model;
use crate::model::TreeEnsemble;
use crate::model::trees::{FeatureInput, Test};
use crate::noise::{NoiseKind, NoiseModel, normal_quantile};
use crate::schema::COHERENCE_TOL;
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

/// The box of robust advice on a tree ensemble: per-feature half-widths
/// (data units, [`half_widths`]) and how a slip lands ([`BoxKind`]). Every
/// consumer — the menus' cuts, the search's per-option reach masks, the
/// worst-case walk — reads a point's box through `TreeBox::interval`.
#[derive(Debug, Clone, Copy)]
pub struct TreeBox<'a> {
    half: &'a [f64],
    kind: BoxKind,
}

impl<'a> TreeBox<'a> {
    /// The box of half-widths `half` (empty or all zero: no box) read as `kind`.
    pub fn new(half: &'a [f64], kind: BoxKind) -> TreeBox<'a> {
        TreeBox { half, kind }
    }

    /// The box over the reals of half-widths `half`.
    pub fn reals(half: &'a [f64]) -> TreeBox<'a> {
        TreeBox::new(half, BoxKind::Reals)
    }

    /// The half-widths (data units; may be empty).
    pub fn half(&self) -> &'a [f64] {
        self.half
    }

    /// How a slip lands.
    pub fn kind(&self) -> BoxKind {
        self.kind
    }

    /// Feature `f`'s half-width (0 past the end).
    pub fn half_width(&self, f: usize) -> f64 {
        self.half.get(f).copied().unwrap_or(0.0)
    }

    /// Whether the box is a point (no half-width above 0).
    pub fn is_point(&self) -> bool {
        self.half.iter().all(|&d| d == 0.0)
    }

    /// The interval the box gives feature `f` of the encoded row `x`:
    /// `Some((lo, hi))` when `x` holds it in its value state and its
    /// half-width `δ > 0` — over the reals `(v − δ, v + δ)`, `v` what the
    /// trees see of it; over reachable values `(R(v − δ), R(v + δ))`
    /// ([`reachable_value`]) — `None` when the box leaves it fixed.
    pub(crate) fn interval(
        &self,
        schema: &Schema,
        ens: &TreeEnsemble,
        f: usize,
        x: &[f64],
    ) -> Option<(f64, f64)> {
        let d = self.half_width(f);
        if d <= 0.0 {
            return None;
        }
        let lay = schema.layout(f);
        lay.value?;
        if lay.indicators.clone().any(|c| x[c] > 0.5) {
            return None; // a special state
        }
        let v = ens.encoded_input(f, x);
        Some(match self.kind {
            BoxKind::Reals => (v - d, v + d),
            BoxKind::ReachableValues => {
                let input = &ens.inputs()[f];
                (reachable_value(input, v - d), reachable_value(input, v + d))
            }
        })
    }
}

/// Where a slip to `u` (data units) of a value feature lands
/// ([`BoxKind::ReachableValues`]): clipped to the feature's range, then on
/// a grid feature the nearest grid point inside the range (ties away from
/// the grid's origin, as `f64::round`); identity on any other input.
pub fn reachable_value(input: &FeatureInput, u: f64) -> f64 {
    let FeatureInput::Value {
        lower, upper, grid, ..
    } = input
    else {
        return u;
    };
    let (lower, upper) = (*lower, *upper);
    let c = u.clamp(lower, upper);
    match grid {
        Some((base, step)) => {
            let k_lo = ((lower - base) / step - COHERENCE_TOL).ceil();
            let k_hi = ((upper - base) / step + COHERENCE_TOL).floor();
            if k_lo > k_hi {
                return c;
            }
            base + ((c - base) / step).round().clamp(k_lo, k_hi) * step
        }
        None => c,
    }
}

/// The worst score of the encoded row `x` over its box (half-widths `half`,
/// data units; empty = no box): per tree the least leaf value among the leaves
/// whose region meets the box, summed as the library sums
/// (`TreeEnsemble::sum_tree_values`). Equal to the score when every
/// half-width is 0.
pub fn worst_case_score(schema: &Schema, ens: &TreeEnsemble, half: &[f64], x: &[f64]) -> f64 {
    worst_case_score_in(schema, ens, TreeBox::reals(half), x)
}

/// [`worst_case_score`] over the box `b` (either [`BoxKind`]).
pub fn worst_case_score_in(schema: &Schema, ens: &TreeEnsemble, b: TreeBox, x: &[f64]) -> f64 {
    let boxes: Vec<Option<(f64, f64)>> = (0..ens.inputs().len())
        .map(|f| b.interval(schema, ens, f, x))
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
/// [`GAMMA_SEED`]): a tree ensemble's Γ has no closed form. Under
/// [`BoxKind::ReachableValues`] each slipped value lands where the applicant
/// can end ([`reachable_value`]: clipped to the range, rounded to the data's
/// grid), the slips the box speaks of; the same draws as over the reals. Written here
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
    // The noisy columns' features (value slots), for the landing.
    let noise_features: Vec<usize> = (0..schema.n_features())
        .filter(|&f| {
            schema
                .layout(f)
                .value
                .is_some_and(|c| noise.columns().contains(&c))
        })
        .collect();
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
        if r.box_kind == BoxKind::ReachableValues {
            land(schema, ens, &noise_features, &mut point);
        }
        declined += usize::from(!ens.accepts(&point));
    }
    Ok(declined as f64 / GAMMA_SAMPLES as f64)
}

/// Lands the slipped value slot of each feature in `features` of the encoded
/// row `point` where the applicant can end ([`reachable_value`]), written
/// back as its slot.
fn land(schema: &Schema, ens: &TreeEnsemble, features: &[usize], point: &mut [f64]) {
    for &f in features {
        let Some(c) = schema.layout(f).value else {
            continue;
        };
        if let FeatureKind::Contiguous { lower, upper, .. } = &schema.features[f].kind {
            let span = upper - lower;
            let v = reachable_value(&ens.inputs()[f], lower + point[c] * span);
            point[c] = if span > 0.0 { (v - lower) / span } else { 0.0 };
        }
    }
}
