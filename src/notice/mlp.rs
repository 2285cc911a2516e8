//! Reasons of an MLP: Baseline Shapley (Sundararajan & Najmi, "The many
//! Shapley values for model explanation", ICML 2020, §4.1) with the reference
//! mean as the baseline: the game `v(S) = f(x_S, b_{N∖S})` over the schema's
//! features (a feature's encoded columns move together), and
//! `φ_i = Σ_{S ⊆ N∖{i}} |S|!(d−|S|−1)!/d! · (v(S ∪ {i}) − v(S))`, computed by
//! evaluating the network on all `2^d` hybrid points. Exact; its cost doubles
//! with each feature, so it is refused above the caller's limit instead of
//! being approximated.

use super::{Attribution, Method, Reference};
use crate::error::{Error, Result};
use crate::model::{MlpModel, Model};
use crate::schema::Schema;

pub(super) fn attribute(
    model: &MlpModel,
    schema: &Schema,
    x: &[f64],
    reference: &Reference,
    max_features: usize,
) -> Result<Attribution> {
    let d = schema.n_features();
    if d > max_features {
        return Err(Error::InvalidArgument(format!(
            "exact Baseline Shapley of an MLP enumerates 2^d subsets of its d features; this \
             schema has {d} features, above the limit of {max_features} (ReasonOptions::\
             mlp_max_features, at most {}): cfx does not approximate reasons",
            super::MLP_FEATURE_LIMIT
        )));
    }
    let base = reference.mean_encoded();
    let mut scratch = vec![0.0; model.scratch_len()];
    let mut point = base.to_vec();
    let n = 1usize << d;
    let mut v = vec![0.0; n];
    // Gray-code order: consecutive subsets differ in one feature, so each
    // point is the previous one with one feature's columns swapped.
    let mut mask = 0usize;
    v[0] = model.score_in(&point, &mut scratch);
    for k in 1..n {
        let i = k.trailing_zeros() as usize;
        mask ^= 1 << i;
        let l = schema.layout(i);
        let src = if mask & (1 << i) != 0 { x } else { base };
        point[l.start..l.start + l.width].copy_from_slice(&src[l.start..l.start + l.width]);
        v[mask] = model.score_in(&point, &mut scratch);
    }
    // Shapley weights |S|!(d−|S|−1)!/d! by subset size.
    let weight: Vec<f64> = (0..d)
        .map(|s| 1.0 / (d as f64 * binomial(d - 1, s)))
        .collect();
    let mut contributions = vec![0.0; d];
    for (i, phi) in contributions.iter_mut().enumerate() {
        let bit = 1 << i;
        let mut acc = 0.0;
        for s in 0..n {
            if s & bit == 0 {
                acc += weight[s.count_ones() as usize] * (v[s | bit] - v[s]);
            }
        }
        *phi = acc;
    }
    Ok(Attribution {
        method: Method::BaselineShapleyExact,
        score: v[n - 1],
        base_value: v[0],
        contributions,
        codes: None,
        uses_reference: true,
    })
}

/// `C(n, k)` as a float (exact below 2^53).
pub(super) fn binomial(n: usize, k: usize) -> f64 {
    let k = k.min(n - k);
    let mut r = 1.0;
    for j in 0..k {
        r = r * (n - j) as f64 / (j + 1) as f64;
    }
    r.round()
}
