//! Mixed-data schemas as credit bureaus have them (Russell 2019, §3).
//!
//! A feature is either **contiguous** — a value in `[L, U]`, optionally integer or
//! on a step grid, *or* one of a few special states such as FICO's −7/−8/−9 — or
//! **categorical** (named levels; a binary feature is a two-level categorical).
//!
//! # Raw rows
//! A raw applicant row holds one `f64` per feature: a contiguous feature holds its
//! value or the code of its special state; a categorical feature holds the
//! **0-based index of its level**. This keeps rows plain numeric arrays across the
//! C ABI; [`Schema::describe_value`] gives them back in words.
//!
//! # States
//! Every feature has a finite set of *states*: for a contiguous feature state 0 is
//! "a value in range" and state `j ≥ 1` is its `j`-th special state; for a
//! categorical feature state `j` is level `j`. Actionability rules
//! (forbidden transitions) and the MIP's indicators speak of these states.

mod advice;
mod encoding;
mod feature;
mod grid;
mod weights;

pub use advice::{AfterWaiting, ChangeLimit, PastUpper, TimeGrowth, Waiting};
pub use encoding::{COHERENCE_TOL, FeatureLayout};
pub use feature::{Actionability, Direction, Feature, FeatureKind, SpecialState, Transition};
pub use weights::{FeatureWeights, WeightsKind};

use crate::error::{Error, Result};
use serde::{Deserialize, Serialize};
use std::collections::HashSet;

/// Version of the schema JSON format written by [`Schema::to_json`].
/// Version 2 adds change limits, time growth and the waiting action
/// (the `advice` module); version 1 documents (without those keys) are still read.
pub const SCHEMA_FORMAT_VERSION: u32 = 2;

/// The longest wait a schema may declare (50 years): advice beyond it is no
/// advice, and the separable solver loops over every month.
pub const MAX_WAIT_MONTHS: u32 = 600;

/// An ordered set of features: the vocabulary every method, model and answer shares.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Schema {
    pub format_version: u32,
    pub features: Vec<Feature>,
    /// The "wait `m` months" action (format 2; see the `advice` module).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub waiting: Option<Waiting>,
    /// The most features one piece of advice may change (format 2; issue 25:
    /// a plan option that changes 13 features is not advice a person can
    /// follow). Every method honours it: [`Schema::check_advice`] refuses
    /// more, the exact engine solves under it, `crate::advice` repairs.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_features_changed: Option<usize>,
    #[serde(skip)]
    layout: Vec<FeatureLayout>,
    #[serde(skip)]
    forbidden: Vec<Vec<(Option<usize>, Option<usize>)>>,
    #[serde(skip)]
    dim: usize,
}

impl Schema {
    /// Builds and validates a schema.
    pub fn new(features: Vec<Feature>) -> Result<Schema> {
        Schema::new_with_waiting(features, None)
    }

    fn new_unchecked(features: Vec<Feature>) -> Schema {
        Schema {
            format_version: SCHEMA_FORMAT_VERSION,
            features,
            waiting: None,
            max_features_changed: None,
            layout: Vec::new(),
            forbidden: Vec::new(),
            dim: 0,
        }
    }

    /// Reads a schema from JSON and validates it. Unknown keys anywhere are
    /// refused ([`crate::json`]): a misspelled `"mutabel": false` must not
    /// leave a protected attribute mutable.
    pub fn from_json(json: &str) -> Result<Schema> {
        let v = crate::json::parse(json, "schema")?;
        let version = crate::json::format_version(&v, "schema")?;
        if version != 1 && version != SCHEMA_FORMAT_VERSION {
            return Err(Error::Format(format!(
                "schema format version {version} is not supported (this cfx reads 1 and {SCHEMA_FORMAT_VERSION})"
            )));
        }
        let mut s: Schema = crate::json::from_value(&v, "schema")?;
        if version == 1 {
            if let Some(key) = s.format_2_key() {
                return Err(Error::Format(format!(
                    "schema: key '{key}' needs format_version 2 (this document says 1)"
                )));
            }
        }
        s.format_version = SCHEMA_FORMAT_VERSION;
        s.validate_and_index()?;
        Ok(s)
    }

    /// Writes the schema as pretty JSON (stable field order).
    pub fn to_json(&self) -> String {
        serde_json::to_string_pretty(self).expect("a schema always serialises")
    }

    /// The first key of format 2 the schema uses, if any.
    fn format_2_key(&self) -> Option<&'static str> {
        if self.waiting.is_some() {
            return Some("waiting");
        }
        if self.max_features_changed.is_some() {
            return Some("max_features_changed");
        }
        self.features.iter().find_map(|f| {
            let a = &f.actionability;
            if a.max_increase.is_some() {
                Some("max_increase")
            } else if a.max_decrease.is_some() {
                Some("max_decrease")
            } else if a.grows_with_time.is_some() {
                Some("grows_with_time")
            } else if !a.level_order.is_empty() {
                Some("level_order")
            } else if a.advice_step.is_some() {
                Some("advice_step")
            } else if a.min_change.is_some() {
                Some("min_change")
            } else {
                None
            }
        })
    }

    fn validate_and_index(&mut self) -> Result<()> {
        if self.features.is_empty() {
            return Err(Error::InvalidSchema(
                "a schema needs at least one feature".into(),
            ));
        }
        if let Some(w) = &self.waiting {
            if !w.cost_per_month.is_finite() || w.cost_per_month < 0.0 {
                return Err(Error::InvalidSchema(format!(
                    "waiting: cost_per_month must be finite and non-negative, got {}",
                    w.cost_per_month
                )));
            }
            if w.max_months == 0 || w.max_months > MAX_WAIT_MONTHS {
                return Err(Error::InvalidSchema(format!(
                    "waiting: max_months must be in 1..={MAX_WAIT_MONTHS}, got {}",
                    w.max_months
                )));
            }
        }
        if self.max_features_changed == Some(0) {
            return Err(Error::InvalidSchema(
                "max_features_changed must be at least 1 (0 would forbid every advice)".into(),
            ));
        }
        for f in &mut self.features {
            f.round_integer_bounds_inward()?;
        }
        let mut names = HashSet::new();
        let mut layout = Vec::with_capacity(self.features.len());
        let mut forbidden = Vec::with_capacity(self.features.len());
        let mut start = 0usize;
        for f in &self.features {
            let fail = |m: String| Err(Error::InvalidSchema(format!("feature '{}': {m}", f.name)));
            if f.name.trim().is_empty() {
                return Err(Error::InvalidSchema("a feature has an empty name".into()));
            }
            if !names.insert(f.name.as_str()) {
                return Err(Error::InvalidSchema(format!(
                    "duplicate feature name '{}'",
                    f.name
                )));
            }
            match &f.kind {
                FeatureKind::Contiguous {
                    lower,
                    upper,
                    integer,
                    step,
                    special_states,
                    fixed_value,
                } => {
                    if !lower.is_finite() || !upper.is_finite() {
                        return fail(format!("bounds must be finite, got [{lower}, {upper}]"));
                    }
                    if lower > upper {
                        return fail(format!("lower bound {lower} exceeds upper bound {upper}"));
                    }
                    // The encoding divides by U − L: a width that overflows
                    // (e.g. [-1e308, 1e308]) would decode every value to NaN.
                    if !(upper - lower).is_finite() {
                        return fail(format!(
                            "the width of [{lower}, {upper}] overflows; give bounds whose difference is finite"
                        ));
                    }
                    if let Some(st) = step {
                        if !st.is_finite() || *st <= 0.0 {
                            return fail(format!("step must be positive, got {st}"));
                        }
                        if *integer && st.fract() != 0.0 {
                            return fail(format!(
                                "an integer feature needs a whole-number step, got {st}"
                            ));
                        }
                        // lower + k·step holds no whole number when lower is fractional.
                        if *integer && lower.fract() != 0.0 {
                            return fail(format!(
                                "an integer feature on a step grid needs a whole-number lower bound, got {lower}"
                            ));
                        }
                        // The grid is lower + k·step; the upper bound must be on it
                        // (with the tolerance decoding uses), or the range's top
                        // would be a value no applicant can take.
                        let k = ((upper - lower) / st).round();
                        let tol = COHERENCE_TOL * (upper - lower).max(1.0);
                        if ((lower + k * st) - upper).abs() > tol {
                            return fail(format!(
                                "upper bound {upper} is not on the grid {lower} + k·{st}"
                            ));
                        }
                    }
                    if !fixed_value.is_finite() {
                        return fail("fixed_value must be finite".into());
                    }
                    let mut codes = HashSet::new();
                    let mut labels = HashSet::new();
                    for s in special_states {
                        if !s.code.is_finite() {
                            return fail(format!("special code {} is not finite", s.code));
                        }
                        if s.code >= *lower && s.code <= *upper {
                            return fail(format!(
                                "special code {} lies inside the value range [{lower}, {upper}]",
                                s.code
                            ));
                        }
                        if !codes.insert(s.code.to_bits()) {
                            return fail(format!("duplicate special code {}", s.code));
                        }
                        if s.label.is_empty() || s.label == "value" || s.label == "*" {
                            return fail(format!(
                                "special state {} needs a distinct label",
                                s.code
                            ));
                        }
                        if !labels.insert(s.label.as_str()) {
                            return fail(format!("duplicate special label '{}'", s.label));
                        }
                    }
                    let a = &f.actionability;
                    let lo = a.lower.unwrap_or(*lower);
                    let hi = a.upper.unwrap_or(*upper);
                    if !lo.is_finite() || !hi.is_finite() || lo > hi {
                        return fail(format!("actionable bounds [{lo}, {hi}] are invalid"));
                    }
                    if lo < *lower || hi > *upper {
                        return fail(format!(
                            "actionable bounds [{lo}, {hi}] exceed the value range [{lower}, {upper}]"
                        ));
                    }
                }
                FeatureKind::Categorical { levels } => {
                    if levels.is_empty() {
                        return fail("a categorical feature needs at least one level".into());
                    }
                    let mut seen = HashSet::new();
                    for l in levels {
                        if l == "*" || !seen.insert(l.as_str()) {
                            return fail(format!("duplicate or reserved level name '{l}'"));
                        }
                    }
                    if f.actionability.lower.is_some() || f.actionability.upper.is_some() {
                        return fail("actionable bounds apply to contiguous features only".into());
                    }
                }
            }
            if let Err(m) = f.validate_advice(self.waiting.is_some()) {
                return fail(m);
            }
            if let Err(m) = f.validate_grid() {
                return fail(m);
            }
            if !f.actionability.cost_scale.is_finite() || f.actionability.cost_scale <= 0.0 {
                return fail(format!(
                    "cost_scale must be positive, got {}",
                    f.actionability.cost_scale
                ));
            }
            let mut rules = Vec::new();
            for t in &f.actionability.forbidden_transitions {
                rules.push((f.resolve_state(&t.from)?, f.resolve_state(&t.to)?));
            }
            match f.order_rules() {
                Ok(r) => rules.extend(r),
                Err(m) => return fail(m),
            }
            forbidden.push(rules);
            if let Some(w) = &f.weights {
                w.validate(f)?;
            }
            let width = f.encoded_width();
            layout.push(FeatureLayout::new(f, start));
            start += width;
        }
        self.layout = layout;
        self.forbidden = forbidden;
        self.dim = start;
        Ok(())
    }

    /// Number of raw features.
    pub fn n_features(&self) -> usize {
        self.features.len()
    }

    /// Length of an encoded vector.
    pub fn encoded_dim(&self) -> usize {
        self.dim
    }

    /// Where feature `i` lives in the encoded vector.
    pub fn layout(&self, i: usize) -> &FeatureLayout {
        &self.layout[i]
    }

    /// The index of a feature by name.
    pub fn index_of(&self, name: &str) -> Result<usize> {
        self.features
            .iter()
            .position(|f| f.name == name)
            .ok_or_else(|| Error::NotFound(format!("no feature named '{name}'")))
    }

    /// Names of the encoded columns ("feature", "feature=level", "feature=label").
    pub fn encoded_names(&self) -> Vec<String> {
        let mut out = Vec::with_capacity(self.dim);
        for f in &self.features {
            match &f.kind {
                FeatureKind::Contiguous { special_states, .. } => {
                    out.push(f.name.clone());
                    for s in special_states {
                        out.push(format!("{}={}", f.name, s.label));
                    }
                }
                FeatureKind::Categorical { levels } => {
                    for l in levels {
                        out.push(format!("{}={}", f.name, l));
                    }
                }
            }
        }
        out
    }

    /// Whether feature `i` may move from state `from` to state `to`
    /// (always true when the states are equal; false for any change of an immutable feature).
    pub fn transition_allowed(&self, i: usize, from: usize, to: usize) -> bool {
        if from == to {
            return true;
        }
        if !self.features[i].actionability.mutable {
            return false;
        }
        !self.forbidden[i]
            .iter()
            .any(|(f, t)| f.is_none_or(|f| f == from) && t.is_none_or(|t| t == to))
    }

    /// The raw value bounds an applicant may move a contiguous feature within:
    /// the data range tightened by the actionable bounds.
    pub fn actionable_range(&self, i: usize) -> Option<(f64, f64)> {
        match &self.features[i].kind {
            FeatureKind::Contiguous { lower, upper, .. } => {
                let a = &self.features[i].actionability;
                Some((a.lower.unwrap_or(*lower), a.upper.unwrap_or(*upper)))
            }
            FeatureKind::Categorical { .. } => None,
        }
    }

    /// Checks that moving the raw row `from` to `to` respects every actionability
    /// rule (immutables, directions, bounds, forbidden transitions). Returns the
    /// first violation in words.
    pub fn check_actionable(&self, from: &[f64], to: &[f64]) -> Result<()> {
        crate::error::check_len("raw row", self.n_features(), from.len())?;
        crate::error::check_len("raw row", self.n_features(), to.len())?;
        for (i, f) in self.features.iter().enumerate() {
            let (a, b) = (from[i], to[i]);
            let sa = f.state_of(a)?;
            let sb = f.state_of(b)?;
            let changed = sa != sb || (a - b).abs() > COHERENCE_TOL;
            let violation =
                |m: String| Error::InvalidArgument(format!("feature '{}': {m}", f.name));
            if !changed {
                continue;
            }
            if !f.actionability.mutable {
                return Err(violation("is immutable but changed".into()));
            }
            if !self.transition_allowed(i, sa, sb) {
                return Err(violation(format!(
                    "the move '{}' → '{}' is forbidden",
                    f.state_name(sa),
                    f.state_name(sb)
                )));
            }
            let dir = f.index_direction();
            let ordered = f.is_contiguous() && sa == 0 && sb == 0 || !f.is_contiguous();
            if ordered {
                if dir == Direction::IncreaseOnly && b < a - COHERENCE_TOL {
                    return Err(violation(format!("may only increase, but {a} → {b}")));
                }
                if dir == Direction::DecreaseOnly && b > a + COHERENCE_TOL {
                    return Err(violation(format!("may only decrease, but {a} → {b}")));
                }
            }
            if sb == 0 {
                if let Some((lo, hi)) = self.actionable_range(i) {
                    if b < lo - COHERENCE_TOL || b > hi + COHERENCE_TOL {
                        return Err(violation(format!(
                            "{b} is outside the actionable range [{lo}, {hi}]"
                        )));
                    }
                }
            }
        }
        Ok(())
    }

    /// A raw value in words: `24`, `'no delinquency record' (-7)`, `'rent'`.
    pub fn describe_value(&self, i: usize, raw: f64) -> String {
        let f = &self.features[i];
        match (&f.kind, f.state_of(raw)) {
            (FeatureKind::Contiguous { special_states, .. }, Ok(s)) if s > 0 => {
                format!("'{}' ({})", special_states[s - 1].label, fmt_num(raw))
            }
            (FeatureKind::Categorical { levels }, Ok(s)) => format!("'{}'", levels[s]),
            _ => fmt_num(raw),
        }
    }

    /// The features that differ between two raw rows, in the data's own words.
    pub fn describe_changes(&self, from: &[f64], to: &[f64]) -> Vec<Change> {
        let mut out = Vec::new();
        for i in 0..self.n_features().min(from.len()).min(to.len()) {
            if (from[i] - to[i]).abs() > COHERENCE_TOL {
                out.push(Change {
                    feature: i,
                    name: self.features[i].name.clone(),
                    from: from[i],
                    to: to[i],
                    from_text: self.describe_value(i, from[i]),
                    to_text: self.describe_value(i, to[i]),
                });
            }
        }
        out
    }

    /// The distance weights of feature `i`, unit weights when none were fitted.
    pub fn weights(&self, i: usize) -> FeatureWeights {
        let f = &self.features[i];
        let mut w = f.weights.clone().unwrap_or_else(|| FeatureWeights::unit(f));
        let c = f.actionability.cost_scale;
        w.value *= c;
        for s in &mut w.states {
            *s *= c;
        }
        w
    }

    /// Per-encoded-column L1 weights (cost scale applied), for methods that need a flat vector.
    pub fn encoded_weights(&self) -> Vec<f64> {
        let mut out = vec![0.0; self.dim];
        for i in 0..self.n_features() {
            let w = self.weights(i);
            let l = &self.layout[i];
            if let Some(v) = l.value {
                out[v] = w.value;
            }
            for (k, j) in l.indicators.clone().enumerate() {
                out[j] = w.states[k];
            }
        }
        out
    }

    /// Mask over encoded columns: true where the column belongs to a mutable feature.
    pub fn mutable_mask(&self) -> Vec<bool> {
        let mut out = vec![false; self.dim];
        for (i, f) in self.features.iter().enumerate() {
            let l = &self.layout[i];
            out[l.start..l.start + l.width].fill(f.actionability.mutable);
        }
        out
    }
}

/// One changed feature of an explanation.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Change {
    pub feature: usize,
    pub name: String,
    pub from: f64,
    pub to: f64,
    pub from_text: String,
    pub to_text: String,
}

impl std::fmt::Display for Change {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}: {} → {}", self.name, self.from_text, self.to_text)
    }
}

/// Formats a number without trailing noise: integers without decimals.
pub fn fmt_num(v: f64) -> String {
    if v.fract() == 0.0 && v.abs() < 1e15 {
        format!("{}", v as i64)
    } else {
        let s = format!("{v:.4}");
        s.trim_end_matches('0').trim_end_matches('.').to_string()
    }
}

#[cfg(test)]
mod advice_tests;
#[cfg(test)]
mod grid_tests;
#[cfg(test)]
mod tests;
