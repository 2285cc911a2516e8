//! Distance weights of the weighted L1 cost (Russell 2019, §3.2; reference code
//! `encode_pandas`, recorded in `seed-formulas.md` §1.2).
//!
//! * Contiguous slot: `1/MAD` of the scaled in-range values, where MAD is the
//!   median absolute deviation from the median. Fallbacks as the reference code:
//!   MAD = 0 → `1.48·std`; no data → 1; then `MAD ← max(MAD, 1e-4)`.
//! * Each special state or level indicator: `1/(1.48·std(indicator))` over all
//!   rows. The reference code comments "should be median" (the median of a 0/1
//!   indicator is usually 0) and means to fall back to `1e-4` when the std is 0
//!   but its line is a comparison, not an assignment; cfx applies the intended
//!   fallback, so a never-seen state costs `1e4`.
//!
//! The *anchor* is the median scaled in-range value: the MIP starts a feature
//! from it when the applicant is in a special state (reference code:
//! `if v < 0: v = c.med[0]`).

use super::{Feature, FeatureKind, Schema};
use crate::error::{Error, Result};
use serde::{Deserialize, Serialize};

/// Floor of a MAD or standard deviation (reference code's `1e-4`).
pub const MIN_SPREAD: f64 = 1e-4;

/// The weights of one feature's encoded columns.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FeatureWeights {
    /// Weight of a unit change of the contiguous slot (0 for categoricals).
    #[serde(default)]
    pub value: f64,
    /// Weight of each indicator (special states, or levels), in encoded order.
    pub states: Vec<f64>,
    /// Median scaled in-range value (contiguous only; 0.5 when unknown).
    #[serde(default = "half")]
    pub anchor: f64,
}

fn half() -> f64 {
    0.5
}

impl FeatureWeights {
    /// Unit weights: one per unit of the scaled slot, one per indicator.
    pub fn unit(f: &Feature) -> FeatureWeights {
        let n_ind = f.encoded_width() - usize::from(f.is_contiguous());
        FeatureWeights {
            value: if f.is_contiguous() { 1.0 } else { 0.0 },
            states: vec![1.0; n_ind],
            anchor: 0.5,
        }
    }

    pub(super) fn validate(&self, f: &Feature) -> Result<()> {
        let n_ind = f.encoded_width() - usize::from(f.is_contiguous());
        if self.states.len() != n_ind {
            return Err(Error::InvalidSchema(format!(
                "feature '{}': {} state weights given, {} expected",
                f.name,
                self.states.len(),
                n_ind
            )));
        }
        let ok = |v: f64| v.is_finite() && v >= 0.0;
        if !ok(self.value) || !self.states.iter().all(|&v| ok(v)) {
            return Err(Error::InvalidSchema(format!(
                "feature '{}': weights must be finite and non-negative",
                f.name
            )));
        }
        if !(0.0..=1.0).contains(&self.anchor) {
            return Err(Error::InvalidSchema(format!(
                "feature '{}': anchor must lie in [0, 1]",
                f.name
            )));
        }
        Ok(())
    }
}

/// Median of a non-empty slice (sorts a copy).
pub fn median(values: &[f64]) -> f64 {
    let mut v = values.to_vec();
    v.sort_by(f64::total_cmp);
    let n = v.len();
    if n == 0 {
        f64::NAN
    } else if n % 2 == 1 {
        v[n / 2]
    } else {
        0.5 * (v[n / 2 - 1] + v[n / 2])
    }
}

/// Population standard deviation (as NumPy's default `std`).
pub fn std_dev(values: &[f64]) -> f64 {
    if values.is_empty() {
        return f64::NAN;
    }
    let n = values.len() as f64;
    let m = values.iter().sum::<f64>() / n;
    (values.iter().map(|v| (v - m) * (v - m)).sum::<f64>() / n).sqrt()
}

impl Schema {
    /// Fits every feature's distance weights on raw rows (see the module docs).
    pub fn fit_weights(&mut self, rows: &[Vec<f64>]) -> Result<()> {
        if rows.is_empty() {
            return Err(Error::InvalidArgument(
                "cannot fit distance weights on no rows".into(),
            ));
        }
        let mut all = Vec::with_capacity(self.n_features());
        for (i, f) in self.features.iter().enumerate() {
            let mut states_seen = vec![0usize; f.n_states()];
            let mut slots = Vec::new();
            for r in rows {
                crate::error::check_len("raw row", self.n_features(), r.len())?;
                let s = f.state_of(r[i])?;
                states_seen[s] += 1;
                if s == 0 && f.is_contiguous() {
                    slots.push(self.value_to_slot(i, r[i]));
                }
            }
            let n = rows.len() as f64;
            let indicator_weight = |count: usize| {
                let p = count as f64 / n;
                let sd = 1.48 * (p * (1.0 - p)).sqrt();
                1.0 / if sd > 0.0 { sd } else { MIN_SPREAD }
            };
            let w = match &f.kind {
                FeatureKind::Contiguous { .. } => {
                    let (value, anchor) = if slots.is_empty() {
                        (1.0, 0.5)
                    } else {
                        let med = median(&slots);
                        let dev: Vec<f64> = slots.iter().map(|v| (v - med).abs()).collect();
                        let mut mad = median(&dev);
                        if mad == 0.0 {
                            mad = 1.48 * std_dev(&slots);
                        }
                        if !mad.is_finite() {
                            mad = 1.0;
                        }
                        (1.0 / mad.max(MIN_SPREAD), med)
                    };
                    FeatureWeights {
                        value,
                        states: states_seen[1..]
                            .iter()
                            .map(|&c| indicator_weight(c))
                            .collect(),
                        anchor,
                    }
                }
                FeatureKind::Categorical { .. } => FeatureWeights {
                    value: 0.0,
                    states: states_seen.iter().map(|&c| indicator_weight(c)).collect(),
                    anchor: 0.5,
                },
            };
            all.push(w);
        }
        for (f, w) in self.features.iter_mut().zip(all) {
            f.weights = Some(w);
        }
        Ok(())
    }
}

/// Which distance weights a schema carries (see [`Schema::weights_kind`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum WeightsKind {
    /// No feature has weights: every method uses unit weights (one per unit
    /// of a scaled slot, one per indicator), which is rarely what a lender
    /// wants — fit them on data (Russell 2019, §3.2 of "Efficient search for
    /// diverse coherent explanations").
    Unit,
    /// Every feature has weights (fitted on data, or given in the schema's JSON).
    Fitted,
    /// Some features have weights and others use unit weights (a schema put
    /// together by hand from parts).
    Mixed,
}

impl Schema {
    /// Which distance weights the schema carries: a schema from the builder
    /// or from JSON without `weights` has unit weights until
    /// [`Schema::fit_weights`] is called; a schema inferred from data, or
    /// taken from [`crate::data::Dataset::schema_with_fitted_weights`], has
    /// fitted ones.
    pub fn weights_kind(&self) -> WeightsKind {
        let with = self.features.iter().filter(|f| f.weights.is_some()).count();
        if with == 0 {
            WeightsKind::Unit
        } else if with == self.features.len() {
            WeightsKind::Fitted
        } else {
            WeightsKind::Mixed
        }
    }

    /// The weight of being in state `s` of feature `i` (cost scale applied), as
    /// [`Schema::weights`] gives it but without allocating: a contiguous
    /// feature's value state weighs 0, its special state `j ≥ 1` weighs
    /// `states[j − 1]`; a categorical level `j` weighs `states[j]`.
    pub fn state_weight(&self, i: usize, s: usize) -> f64 {
        let f = &self.features[i];
        let scale = f.actionability.cost_scale;
        let k = if f.is_contiguous() {
            if s == 0 {
                return 0.0;
            }
            s - 1
        } else {
            s
        };
        f.weights
            .as_ref()
            .map_or(1.0, |w| w.states.get(k).copied().unwrap_or(f64::NAN))
            * scale
    }

    /// The weight of a unit change of feature `i`'s slot (cost scale applied),
    /// as [`Schema::weights`] gives it but without allocating.
    pub fn value_weight(&self, i: usize) -> f64 {
        let f = &self.features[i];
        let unit = if f.is_contiguous() { 1.0 } else { 0.0 };
        f.weights.as_ref().map_or(unit, |w| w.value) * f.actionability.cost_scale
    }

    /// The anchor slot of feature `i` (0.5 when no weights were fitted), as
    /// [`Schema::weights`] gives it but without allocating.
    pub fn anchor(&self, i: usize) -> f64 {
        self.features[i].weights.as_ref().map_or(0.5, |w| w.anchor)
    }
}
