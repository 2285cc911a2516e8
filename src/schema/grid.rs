//! Advice a person can carry out (issue 43): the values a contiguous feature
//! may be advised, in one place.
//!
//! * **The value grid.** Data hold whatever was measured: an income of
//!   43,217, a balance of 1,873.50. Advice names amounts in round steps:
//!   "an income of 45,000", "a balance below 1,500". A feature's
//!   [`Actionability::advice_step`](super::Actionability::advice_step) `A`
//!   puts every advised value on the multiples of `A` — the grid is anchored
//!   at 0, not at the applicant's value. Anchored at the applicant, a step of
//!   1,000 from 43,217 would advise 44,217, a value no person would name;
//!   anchored at 0 the advised value is round in both directions (up to
//!   45,000, down to 42,000) and the same for every applicant, so two
//!   applicants told "45,000" were told the same thing. How small a move is
//!   worth advising is the other half ([`Schema::min_change`]), not the grid's
//!   business. Without an advice step the grid is the data's own (whole
//!   numbers for an integer feature, `L + k·step` for a step feature, none
//!   for a real-valued one). The advice grid must lie on the data's grid
//!   (validation: `A` a whole multiple of the data's step, and that grid
//!   passing through 0), so every advised value is one the data can hold.
//!   Only grid points inside the move range ([`Schema::move_range`]:
//!   actionable bounds, change limits) are advised; where none lies inside,
//!   the value can only stay. A move from a special state into the value
//!   range lands on the grid too.
//! * **Staying put is always allowed**, on the grid or not: an applicant at
//!   43,217 is never told to move to a grid point to keep what they have.
//! * **The minimum change.** [`Actionability::min_change`](super::Actionability::min_change)
//!   `m`: a value→value move changes the feature by at least `m` in absolute
//!   value (or not at all). It bounds the change, not the value, so it also
//!   holds for features without a grid. A move between the value range and a
//!   special state has no amount, and is not bound by it.
//!
//! Every method takes the grid from [`Schema::grid_points`] and the minimum
//! change from [`Schema::min_change`]: the exact engine's program (grid
//! points as an integer `k`, the minimum change as a disjunction with two
//! binaries, `coherent::program`), the separable solver's and the tree
//! search's menus (`coherent::separable::menu`), and [`Schema::check_advice`],
//! through which the advice layer (`crate::advice`) repairs or refuses the
//! answers of the gradient, plan and sequential methods.

use super::{COHERENCE_TOL, Feature, FeatureKind, Schema};
use crate::error::{Error, Result};

/// Whether `x` is a whole number, within a relative tolerance of rounding.
fn whole(x: f64) -> bool {
    (x - x.round()).abs() <= 1e-9 * x.abs().max(1.0)
}

impl Feature {
    /// Advises the feature's value in whole multiples of `step` (contiguous features).
    pub fn advice_step(mut self, step: f64) -> Feature {
        self.actionability.advice_step = Some(step);
        self
    }

    /// Advises a change of the feature's value of at least `m`, or none
    /// (contiguous features).
    pub fn min_change(mut self, m: f64) -> Feature {
        self.actionability.min_change = Some(m);
        self
    }

    /// Checks the advice step and minimum change (called by schema validation).
    pub(super) fn validate_grid(&self) -> std::result::Result<(), String> {
        let a = &self.actionability;
        if a.advice_step.is_none() && a.min_change.is_none() {
            return Ok(());
        }
        let FeatureKind::Contiguous {
            lower,
            integer,
            step,
            ..
        } = &self.kind
        else {
            return Err("advice_step and min_change apply to contiguous features only".into());
        };
        if a.grows_with_time.is_some() {
            return Err(
                "a feature that grows with time moves only by waiting: advice_step and min_change do not apply to it"
                    .into(),
            );
        }
        if let Some(m) = a.min_change {
            if !m.is_finite() || m < 0.0 {
                return Err(format!(
                    "min_change must be finite and non-negative, got {m}"
                ));
            }
        }
        let Some(st) = a.advice_step else {
            return Ok(());
        };
        if !st.is_finite() || st <= 0.0 {
            return Err(format!("advice_step must be finite and positive, got {st}"));
        }
        match (step, integer) {
            (Some(ds), _) if !whole(st / ds) || !whole(lower / ds) => {
                return Err(format!(
                    "advice_step {st} must be a whole multiple of the data's step {ds}, on a data \
                     grid ({lower} + k·{ds}) that passes through 0, so that every advised value is \
                     one the data can hold"
                ));
            }
            (None, true) if !whole(st) => {
                return Err(format!(
                    "an integer feature's advice_step must be a whole number, got {st}"
                ));
            }
            _ => {}
        }
        Ok(())
    }
}

impl Schema {
    /// The grid the values advised for contiguous feature `i` lie on, as
    /// `(origin, step)` (values `origin + k·step`): the multiples of its
    /// advice step, else the data's grid (whole numbers of an integer
    /// feature, `L + k·step` of a step feature); `None` for a real-valued
    /// feature without an advice step, or a categorical one.
    pub fn value_grid(&self, i: usize) -> Option<(f64, f64)> {
        let f = &self.features[i];
        let FeatureKind::Contiguous {
            lower,
            integer,
            step,
            ..
        } = &f.kind
        else {
            return None;
        };
        match (f.actionability.advice_step, step, integer) {
            (Some(a), _, _) => Some((0.0, a)),
            (None, Some(s), _) => Some((*lower, *s)),
            (None, None, true) => Some((0.0, 1.0)),
            (None, None, false) => None,
        }
    }

    /// The points of [`Schema::value_grid`] in `[lo, hi]` (raw units) as
    /// `(first point ≥ lo, step, K)`: the points `first + k·step`, `k ∈
    /// 0..=K`, `K < 0` meaning none lies in the interval; `None` without a
    /// grid. Every method's grid comes from here.
    pub fn grid_points(&self, i: usize, lo: f64, hi: f64) -> Option<(f64, f64, i64)> {
        let (origin, g) = self.value_grid(i)?;
        let f = &self.features[i];
        let data_integer = f.actionability.advice_step.is_none()
            && matches!(
                f.kind,
                FeatureKind::Contiguous {
                    integer: true,
                    step: None,
                    ..
                }
            );
        let base = if data_integer {
            let tol = COHERENCE_TOL * (hi - lo).abs().max(1.0);
            (lo - tol).ceil()
        } else {
            origin + ((lo - origin) / g - COHERENCE_TOL).ceil() * g
        };
        let k = ((hi - base) / g + COHERENCE_TOL).floor();
        Some((base, g, if k.is_finite() { k as i64 } else { -1 }))
    }

    /// Whether raw value `v` of contiguous feature `i` lies on its
    /// [`Schema::value_grid`] (within [`COHERENCE_TOL`] of the range's
    /// width, as decoding snaps); true without a grid.
    pub fn on_value_grid(&self, i: usize, v: f64) -> bool {
        let Some((origin, g)) = self.value_grid(i) else {
            return true;
        };
        let width = match &self.features[i].kind {
            FeatureKind::Contiguous { lower, upper, .. } => upper - lower,
            FeatureKind::Categorical { .. } => 0.0,
        };
        let k = ((v - origin) / g).round();
        (origin + k * g - v).abs() <= COHERENCE_TOL * width.max(1.0)
    }

    /// Whether any feature has an advice step or a minimum change (issue 43):
    /// waiting then takes the outer loop ([`crate::coherent::waiting::explain_with_waiting`]).
    pub fn has_advice_grids(&self) -> bool {
        self.features
            .iter()
            .any(|f| f.actionability.advice_step.is_some() || f.actionability.min_change.is_some())
    }

    /// The smallest value→value change advice may make to feature `i` (raw
    /// units; 0 when the schema sets none, and for categorical features).
    pub fn min_change(&self, i: usize) -> f64 {
        if self.features[i].is_contiguous() {
            self.features[i].actionability.min_change.unwrap_or(0.0)
        } else {
            0.0
        }
    }

    /// Why moving contiguous feature `i` from raw `from` to raw `to` (both
    /// coherent) is not advice a person can carry out — off the advice grid,
    /// or a change smaller than the minimum — or `None` when it is (staying
    /// put always is). Part of [`Schema::check_advice`].
    pub(super) fn grid_violation(&self, i: usize, from: f64, to: f64) -> Option<String> {
        let f = &self.features[i];
        if !f.is_contiguous() || (to - from).abs() <= COHERENCE_TOL {
            return None;
        }
        if f.state_of(to).ok()? != 0 {
            return None;
        }
        if let Some(a) = f.actionability.advice_step {
            if !self.on_value_grid(i, to) {
                return Some(format!(
                    "{from} → {to}: advice moves it to multiples of {a} (advice_step)"
                ));
            }
        }
        let m = self.min_change(i);
        if f.state_of(from).ok()? == 0 && (to - from).abs() < m - COHERENCE_TOL * m.max(1.0) {
            return Some(format!(
                "{from} → {to} changes it by less than {m} (min_change)"
            ));
        }
        None
    }

    /// The value in `[lo, hi]` (raw, within the move range) nearest `x` that
    /// advice may move contiguous feature `i` to from raw `from`: a point of
    /// its [`Schema::value_grid`] (any value without one) outside the band
    /// the minimum change excludes around a `from` in the value state; `from`
    /// itself when there is none. For methods that choose a value and must
    /// deliver it on the grid (the sequential agent's actions).
    pub fn nearest_advisable(&self, i: usize, from: f64, x: f64, lo: f64, hi: f64) -> f64 {
        let f = &self.features[i];
        let m = if f.state_of(from).ok() == Some(0) {
            self.min_change(i)
        } else {
            0.0
        };
        let nearest = |a: f64, b: f64| -> Option<f64> {
            if a > b {
                return None;
            }
            match self.grid_points(i, a, b) {
                None => Some(x.clamp(a, b)),
                Some((_, _, k)) if k < 0 => None,
                Some((base, g, k)) => {
                    Some(base + ((x - base) / g).round().clamp(0.0, k as f64) * g)
                }
            }
        };
        let parts = if m > 0.0 {
            [(lo, hi.min(from - m)), (lo.max(from + m), hi)]
        } else {
            [(lo, hi), (1.0, 0.0)]
        };
        parts
            .iter()
            .filter_map(|&(a, b)| nearest(a, b))
            .min_by(|p, q| (p - x).abs().total_cmp(&(q - x).abs()))
            .unwrap_or(from)
    }

    /// The same schema with feature `i`'s advice step and minimum change set
    /// (`None`: cleared); validated. Errors: no feature `i`, a categorical or
    /// time feature, a step that is not positive and finite or not on the
    /// data's grid, a negative or non-finite minimum change.
    pub fn with_advice_grid(
        mut self,
        i: usize,
        step: Option<f64>,
        min_change: Option<f64>,
    ) -> Result<Schema> {
        let n = self.n_features();
        let f = self.features.get_mut(i).ok_or_else(|| {
            Error::InvalidArgument(format!("feature {i} does not exist (there are {n})"))
        })?;
        f.actionability.advice_step = step;
        f.actionability.min_change = min_change;
        self.validate_and_index()?;
        Ok(self)
    }
}
