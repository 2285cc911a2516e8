//! The encoding of Russell 2019 (§3): a contiguous-with-special-states
//! variable becomes its contiguous slot plus one indicator per special state; a
//! categorical becomes its one-hot indicators.
//!
//! The contiguous slot is the value min–max scaled to `[0, 1]` by the feature's
//! `[L, U]`: `(v − L)/(U − L)` (0 when `U = L`). Russell's reference code scales by
//! `max(col[col ≥ 0])`, which is the same map when `L = 0`; scaling by the range
//! keeps every slot in `[0, 1]` for features with negative values too, so noise
//! levels (σ² = 0.01 in CROCO) and gradient steps mean the same on every feature.
//! While in a special state the slot holds the fixed value `F_i` (default 0).

use super::{Feature, FeatureKind, Schema};
use crate::error::{Error, Result, check_len};
use std::ops::Range;

/// Tolerance used when deciding whether an encoded vector is coherent:
/// indicators within this of 0/1, slots within this of `[0, 1]`, integers within
/// this of a whole number (in raw units).
pub const COHERENCE_TOL: f64 = 1e-6;

/// Where one feature lives in the encoded vector.
#[derive(Debug, Clone, PartialEq)]
pub struct FeatureLayout {
    /// First encoded column of the feature.
    pub start: usize,
    /// Number of encoded columns.
    pub width: usize,
    /// The contiguous slot (contiguous features only).
    pub value: Option<usize>,
    /// The indicator columns: special states in order, or levels in order.
    pub indicators: Range<usize>,
}

impl FeatureLayout {
    pub(super) fn new(f: &Feature, start: usize) -> FeatureLayout {
        match &f.kind {
            FeatureKind::Contiguous { special_states, .. } => FeatureLayout {
                start,
                width: 1 + special_states.len(),
                value: Some(start),
                indicators: start + 1..start + 1 + special_states.len(),
            },
            FeatureKind::Categorical { levels } => FeatureLayout {
                start,
                width: levels.len(),
                value: None,
                indicators: start..start + levels.len(),
            },
        }
    }

    /// The encoded column of state `s` (see the schema module docs): for a
    /// contiguous feature state 0 has no indicator (`None`).
    pub fn indicator_of_state(&self, s: usize) -> Option<usize> {
        match self.value {
            Some(_) => (s > 0).then(|| self.indicators.start + s - 1),
            None => Some(self.indicators.start + s),
        }
    }
}

impl Schema {
    /// The encoded slot of a raw in-range value of contiguous feature `i`.
    pub fn value_to_slot(&self, i: usize, raw: f64) -> f64 {
        match &self.features[i].kind {
            FeatureKind::Contiguous { lower, upper, .. } => {
                if upper > lower {
                    (raw - lower) / (upper - lower)
                } else {
                    0.0
                }
            }
            FeatureKind::Categorical { .. } => f64::NAN,
        }
    }

    /// The raw value of an encoded slot of contiguous feature `i` (no rounding).
    pub fn slot_to_value(&self, i: usize, slot: f64) -> f64 {
        match &self.features[i].kind {
            FeatureKind::Contiguous { lower, upper, .. } => lower + slot * (upper - lower),
            FeatureKind::Categorical { .. } => f64::NAN,
        }
    }

    /// The in-range value `v` of contiguous feature `i` on the feature's step
    /// grid and, for an integer feature, a whole number: within
    /// [`COHERENCE_TOL`] (relative to the range's width) it is snapped there and
    /// clamped to `[L, U]`, otherwise refused naming the feature. Encoding and
    /// decoding both go through it, so a row that encodes decodes back to itself.
    pub fn snap_to_grid(&self, i: usize, v: f64) -> Result<f64> {
        let f = &self.features[i];
        let FeatureKind::Contiguous {
            lower,
            upper,
            integer,
            step,
            ..
        } = &f.kind
        else {
            return Ok(v);
        };
        let bad = |reason: String| Error::Incoherent {
            feature: f.name.clone(),
            reason,
        };
        let mut v = v;
        let tol = COHERENCE_TOL * (upper - lower).max(1.0);
        if let Some(st) = step {
            let k = ((v - lower) / st).round();
            let snapped = lower + k * st;
            // `is_none_or`: a NaN distance (a non-finite value) is off the grid too.
            if (snapped - v)
                .abs()
                .partial_cmp(&tol)
                .is_none_or(|o| o.is_gt())
            {
                return Err(bad(format!(
                    "value {v} is not on the grid {lower} + k·{st}"
                )));
            }
            v = snapped;
        }
        if *integer {
            let r = v.round();
            if (r - v).abs().partial_cmp(&tol).is_none_or(|o| o.is_gt()) {
                return Err(bad(format!("value {v} is not a whole number")));
            }
            v = r;
        }
        Ok(v.clamp(*lower, *upper))
    }

    /// Encodes a raw row into `out` (length [`Schema::encoded_dim`]).
    /// Values of integer or step features must be on their grid (within
    /// [`COHERENCE_TOL`]; see [`Schema::snap_to_grid`]).
    pub fn encode_into(&self, raw: &[f64], out: &mut [f64]) -> Result<()> {
        check_len("raw row", self.n_features(), raw.len())?;
        check_len("encoded output", self.encoded_dim(), out.len())?;
        for (i, f) in self.features.iter().enumerate() {
            let l = &self.layout[i];
            let s = f.state_of(raw[i])?;
            out[l.start..l.start + l.width].fill(0.0);
            match &f.kind {
                FeatureKind::Contiguous { fixed_value, .. } => {
                    if s == 0 {
                        let v = self.snap_to_grid(i, raw[i])?;
                        out[l.start] = self.value_to_slot(i, v).clamp(0.0, 1.0);
                    } else {
                        out[l.start] = *fixed_value;
                        out[l.start + s] = 1.0;
                    }
                }
                FeatureKind::Categorical { .. } => out[l.start + s] = 1.0,
            }
        }
        Ok(())
    }

    /// Encodes a raw row.
    pub fn encode(&self, raw: &[f64]) -> Result<Vec<f64>> {
        let mut out = vec![0.0; self.encoded_dim()];
        self.encode_into(raw, &mut out)?;
        Ok(out)
    }

    /// Encodes many raw rows.
    pub fn encode_rows(&self, rows: &[Vec<f64>]) -> Result<Vec<Vec<f64>>> {
        rows.iter().map(|r| self.encode(r)).collect()
    }

    /// The state feature `i` is in within an encoded vector, refusing incoherent ones.
    pub fn encoded_state(&self, i: usize, x: &[f64]) -> Result<usize> {
        let f = &self.features[i];
        let l = &self.layout[i];
        let bad = |reason: String| Error::Incoherent {
            feature: f.name.clone(),
            reason,
        };
        let mut on = None;
        for (k, j) in l.indicators.clone().enumerate() {
            let v = x[j];
            if !v.is_finite() {
                return Err(bad(format!("indicator {k} is not finite")));
            }
            if (v - 1.0).abs() <= COHERENCE_TOL {
                if on.is_some() {
                    return Err(bad("two indicators are on".into()));
                }
                on = Some(k);
            } else if v.abs() > COHERENCE_TOL {
                return Err(bad(format!("indicator {k} is {v}, neither 0 nor 1")));
            }
        }
        match (&f.kind, on) {
            (FeatureKind::Contiguous { .. }, None) => Ok(0),
            (FeatureKind::Contiguous { .. }, Some(k)) => Ok(k + 1),
            (FeatureKind::Categorical { .. }, Some(k)) => Ok(k),
            (FeatureKind::Categorical { .. }, None) => Err(bad("no level indicator is on".into())),
        }
    }

    /// Decodes an encoded vector into a raw row, refusing incoherent vectors (two
    /// indicators on, a slot outside `[0, 1]`, an off-grid or non-integer value)
    /// with an error that names the feature. Values within [`COHERENCE_TOL`] are
    /// snapped (integers rounded, slots clamped).
    pub fn decode(&self, x: &[f64]) -> Result<Vec<f64>> {
        check_len("encoded vector", self.encoded_dim(), x.len())?;
        let mut raw = vec![0.0; self.n_features()];
        for (i, f) in self.features.iter().enumerate() {
            let s = self.encoded_state(i, x)?;
            let l = &self.layout[i];
            let bad = |reason: String| Error::Incoherent {
                feature: f.name.clone(),
                reason,
            };
            raw[i] = match &f.kind {
                FeatureKind::Contiguous {
                    lower,
                    upper,
                    special_states,
                    ..
                } => {
                    if s > 0 {
                        special_states[s - 1].code
                    } else {
                        let slot = x[l.start];
                        if !slot.is_finite() {
                            return Err(bad("value slot is not finite".into()));
                        }
                        if !(-COHERENCE_TOL..=1.0 + COHERENCE_TOL).contains(&slot) {
                            return Err(bad(format!(
                                "value {} lies outside [{lower}, {upper}]",
                                self.slot_to_value(i, slot)
                            )));
                        }
                        let v = self.slot_to_value(i, slot.clamp(0.0, 1.0));
                        self.snap_to_grid(i, v)?
                    }
                }
                FeatureKind::Categorical { .. } => s as f64,
            };
        }
        Ok(raw)
    }
}
