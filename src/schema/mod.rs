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
mod weights;

pub use advice::{AfterWaiting, ChangeLimit, TimeGrowth, Waiting};
pub use encoding::{COHERENCE_TOL, FeatureLayout};
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

/// A special state of a contiguous feature (e.g. FICO HELOC's −9 "no bureau record").
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SpecialState {
    /// The code the raw data uses for this state; it must lie outside `[L, U]`.
    pub code: f64,
    /// A human-readable label, used in explanations.
    pub label: String,
}

/// What values a feature takes.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum FeatureKind {
    /// A value in `[lower, upper]`, or one of `special_states`.
    Contiguous {
        lower: f64,
        upper: f64,
        /// Values must be whole numbers.
        #[serde(default)]
        integer: bool,
        /// Values must lie on the grid `lower + k·step`.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        step: Option<f64>,
        #[serde(default, skip_serializing_if = "Vec::is_empty")]
        special_states: Vec<SpecialState>,
        /// The encoded contiguous slot while in a special state (Russell 2019's `F_i`, default 0).
        #[serde(default)]
        fixed_value: f64,
    },
    /// One of named levels, one-hot encoded.
    Categorical { levels: Vec<String> },
}

/// Which way a contiguous value (or an ordered categorical's level index) may move.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Direction {
    #[default]
    Any,
    IncreaseOnly,
    DecreaseOnly,
}

/// A forbidden move `(from, to)` between state indices of one feature, resolved
/// (`None`: any state).
pub(crate) type StateRule = (Option<usize>, Option<usize>);

/// A forbidden move between two states of one feature. States are named by
/// `"value"` (the contiguous range), a special state's label or code (`"-9"`), a
/// level name, or `"*"` (any state).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Transition {
    pub from: String,
    pub to: String,
}

fn default_true() -> bool {
    true
}
fn default_one() -> f64 {
    1.0
}
fn is_true(b: &bool) -> bool {
    *b
}
fn is_one(v: &f64) -> bool {
    *v == 1.0
}

/// What an applicant can change about a feature.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Actionability {
    /// Immutable features (age at application, sex, …) never change.
    #[serde(default = "default_true", skip_serializing_if = "is_true")]
    pub mutable: bool,
    /// Direction of allowed value changes. For a contiguous feature it constrains
    /// value→value moves; for a categorical it constrains the level index.
    #[serde(default)]
    pub direction: Direction,
    /// Bounds tighter than the data range, in raw units (contiguous features only).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub lower: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub upper: Option<f64>,
    /// Multiplies the feature's distance weights (cost of changing it).
    #[serde(default = "default_one", skip_serializing_if = "is_one")]
    pub cost_scale: f64,
    /// Moves between states that are not allowed.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub forbidden_transitions: Vec<Transition>,
    /// The largest increase from the applicant's value (contiguous features; format 2).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_increase: Option<ChangeLimit>,
    /// The largest decrease from the applicant's value (contiguous features; format 2).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_decrease: Option<ChangeLimit>,
    /// The feature grows while the applicant waits, and moves no other way (format 2).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub grows_with_time: Option<TimeGrowth>,
    /// Categorical features: levels from worst to best (all of them or some;
    /// a level not listed is outside the order). With an order, `direction`
    /// speaks of it instead of the level index — `increase_only`: only to a
    /// better listed level, `decrease_only`: only to a worse one — and the
    /// schema turns it into forbidden transitions (`Feature::order_rules`),
    /// so every method that honours forbidden transitions honours the order
    /// (format 2).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub level_order: Vec<String>,
}

impl Default for Actionability {
    fn default() -> Self {
        Actionability {
            mutable: true,
            direction: Direction::Any,
            lower: None,
            upper: None,
            cost_scale: 1.0,
            forbidden_transitions: Vec::new(),
            max_increase: None,
            max_decrease: None,
            grows_with_time: None,
            level_order: Vec::new(),
        }
    }
}

/// One column of the applicant data.
///
/// In JSON the kind's keys sit beside the name (`{"name": "age", "kind":
/// "contiguous", "lower": 18, …}`). It is read through a flat representation
/// holding every key of either kind, because serde's `flatten` would let
/// unknown keys through.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(try_from = "FeatureRepr")]
pub struct Feature {
    pub name: String,
    #[serde(flatten)]
    pub kind: FeatureKind,
    #[serde(default)]
    pub actionability: Actionability,
    /// Distance weights of the feature's encoded columns (Russell 2019 §3.2); `None`
    /// until fitted on data or set by the user, then unit weights are used.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub weights: Option<FeatureWeights>,
}

/// Which kind a feature's JSON declares.
#[derive(Deserialize)]
#[serde(rename_all = "snake_case")]
enum KindTag {
    Contiguous,
    Categorical,
}

/// A feature as written in JSON: every key of either kind, so that unknown
/// keys are refused and a key of the other kind (`levels` on a contiguous
/// feature) is named in the error.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct FeatureRepr {
    name: String,
    kind: KindTag,
    lower: Option<f64>,
    upper: Option<f64>,
    integer: Option<bool>,
    step: Option<f64>,
    special_states: Option<Vec<SpecialState>>,
    fixed_value: Option<f64>,
    levels: Option<Vec<String>>,
    #[serde(default)]
    actionability: Actionability,
    #[serde(default)]
    weights: Option<FeatureWeights>,
}

impl TryFrom<FeatureRepr> for Feature {
    type Error = String;

    fn try_from(r: FeatureRepr) -> std::result::Result<Feature, String> {
        let foreign = |key: &str, kind: &str, own: &str| {
            format!(
                "key '{key}' does not apply to a {kind} feature (its keys are: name, kind, {own}, actionability, weights)"
            )
        };
        const CONTIGUOUS_KEYS: &str = "lower, upper, integer, step, special_states, fixed_value";
        let kind = match r.kind {
            KindTag::Contiguous => {
                if r.levels.is_some() {
                    return Err(foreign("levels", "contiguous", CONTIGUOUS_KEYS));
                }
                let (Some(lower), Some(upper)) = (r.lower, r.upper) else {
                    return Err("a contiguous feature needs keys 'lower' and 'upper'".into());
                };
                FeatureKind::Contiguous {
                    lower,
                    upper,
                    integer: r.integer.unwrap_or(false),
                    step: r.step,
                    special_states: r.special_states.unwrap_or_default(),
                    fixed_value: r.fixed_value.unwrap_or(0.0),
                }
            }
            KindTag::Categorical => {
                let given = [
                    ("lower", r.lower.is_some()),
                    ("upper", r.upper.is_some()),
                    ("integer", r.integer.is_some()),
                    ("step", r.step.is_some()),
                    ("special_states", r.special_states.is_some()),
                    ("fixed_value", r.fixed_value.is_some()),
                ];
                if let Some((key, _)) = given.iter().find(|(_, present)| *present) {
                    return Err(foreign(key, "categorical", "levels"));
                }
                let Some(levels) = r.levels else {
                    return Err("a categorical feature needs the key 'levels'".into());
                };
                FeatureKind::Categorical { levels }
            }
        };
        Ok(Feature {
            name: r.name,
            kind,
            actionability: r.actionability,
            weights: r.weights,
        })
    }
}

impl Feature {
    /// A contiguous feature without special states.
    pub fn contiguous(name: &str, lower: f64, upper: f64) -> Feature {
        Feature {
            name: name.to_string(),
            kind: FeatureKind::Contiguous {
                lower,
                upper,
                integer: false,
                step: None,
                special_states: Vec::new(),
                fixed_value: 0.0,
            },
            actionability: Actionability::default(),
            weights: None,
        }
    }

    /// A categorical feature with the given levels.
    pub fn categorical(name: &str, levels: &[&str]) -> Feature {
        Feature {
            name: name.to_string(),
            kind: FeatureKind::Categorical {
                levels: levels.iter().map(|s| s.to_string()).collect(),
            },
            actionability: Actionability::default(),
            weights: None,
        }
    }

    /// Marks the feature integer-valued (contiguous only; no-op otherwise).
    pub fn integer(mut self) -> Feature {
        if let FeatureKind::Contiguous { integer, .. } = &mut self.kind {
            *integer = true;
        }
        self
    }

    /// Adds a special state (contiguous only; no-op otherwise).
    pub fn with_special(mut self, code: f64, label: &str) -> Feature {
        if let FeatureKind::Contiguous { special_states, .. } = &mut self.kind {
            special_states.push(SpecialState {
                code,
                label: label.to_string(),
            });
        }
        self
    }

    /// Makes the feature immutable.
    pub fn immutable(mut self) -> Feature {
        self.actionability.mutable = false;
        self
    }

    /// Sets the allowed direction of change.
    pub fn direction(mut self, d: Direction) -> Feature {
        self.actionability.direction = d;
        self
    }

    /// Number of states (see the module docs).
    pub fn n_states(&self) -> usize {
        match &self.kind {
            FeatureKind::Contiguous { special_states, .. } => 1 + special_states.len(),
            FeatureKind::Categorical { levels } => levels.len(),
        }
    }

    /// Number of encoded columns.
    pub fn encoded_width(&self) -> usize {
        match &self.kind {
            FeatureKind::Contiguous { special_states, .. } => 1 + special_states.len(),
            FeatureKind::Categorical { levels } => levels.len(),
        }
    }

    /// True for contiguous features.
    pub fn is_contiguous(&self) -> bool {
        matches!(self.kind, FeatureKind::Contiguous { .. })
    }

    /// The name of state `s`: "value", a special state's label, or a level name.
    pub fn state_name(&self, s: usize) -> &str {
        match &self.kind {
            FeatureKind::Contiguous { special_states, .. } => {
                if s == 0 {
                    "value"
                } else {
                    &special_states[s - 1].label
                }
            }
            FeatureKind::Categorical { levels } => &levels[s],
        }
    }

    /// The direction that constrains the raw level index (or, for a contiguous
    /// feature, the value): the declared direction, except for a categorical
    /// with a [`Actionability::level_order`], whose direction is carried by
    /// `Feature::order_rules` instead.
    pub fn index_direction(&self) -> Direction {
        if self.is_contiguous() || self.actionability.level_order.is_empty() {
            self.actionability.direction
        } else {
            Direction::Any
        }
    }

    /// The forbidden `(from, to)` level pairs that a [`Actionability::level_order`]
    /// with a direction implies: every move from one listed level to a listed
    /// level on the wrong side of it. Errors (for validation) name the level
    /// that is not one of the feature's, a duplicate, or an order on a
    /// contiguous feature.
    pub(crate) fn order_rules(&self) -> std::result::Result<Vec<StateRule>, String> {
        let order = &self.actionability.level_order;
        if order.is_empty() {
            return Ok(Vec::new());
        }
        let FeatureKind::Categorical { levels } = &self.kind else {
            return Err("level_order applies to categorical features only".into());
        };
        let mut ranked: Vec<usize> = Vec::with_capacity(order.len());
        for name in order {
            let Some(j) = levels.iter().position(|l| l == name) else {
                return Err(format!(
                    "level_order names '{name}', which is not one of its levels"
                ));
            };
            if ranked.contains(&j) {
                return Err(format!("level_order names '{name}' twice"));
            }
            ranked.push(j);
        }
        let mut rules = Vec::new();
        for (ra, &a) in ranked.iter().enumerate() {
            for (rb, &b) in ranked.iter().enumerate() {
                let wrong_way = match self.actionability.direction {
                    Direction::IncreaseOnly => rb < ra,
                    Direction::DecreaseOnly => rb > ra,
                    Direction::Any => false,
                };
                if wrong_way {
                    rules.push((Some(a), Some(b)));
                }
            }
        }
        Ok(rules)
    }

    /// Resolves a state name (see [`Transition`]); `None` stands for `"*"`.
    fn resolve_state(&self, name: &str) -> Result<Option<usize>> {
        if name == "*" {
            return Ok(None);
        }
        let found = match &self.kind {
            FeatureKind::Contiguous { special_states, .. } => {
                if name == "value" {
                    Some(0)
                } else {
                    special_states
                        .iter()
                        .position(|s| s.label == name || name.parse::<f64>().ok() == Some(s.code))
                        .map(|j| j + 1)
                }
            }
            FeatureKind::Categorical { levels } => levels.iter().position(|l| l == name),
        };
        found.map(Some).ok_or_else(|| {
            Error::NotFound(format!(
                "feature '{}' has no state named '{}'",
                self.name, name
            ))
        })
    }

    /// An integer feature without a step grid takes the whole numbers in
    /// `[L, U]`; fractional bounds are rounded inward to `[⌈L⌉, ⌊U⌋]` (actionable
    /// bounds between `L` and `⌈L⌉` or `⌊U⌋` and `U` move to those ends), which keeps that value set and makes
    /// both ends of the encoded slot values an applicant can take. Left as
    /// given, `[1, 100000.5]` would map slot 1 to 100000.5, which decoding must
    /// refuse as not whole. Numbers within [`COHERENCE_TOL`] of a whole number
    /// are taken as that number. A range that holds no whole number is refused.
    /// (With a step grid the bounds are checked instead: the grid `L + k·step`
    /// changes when `L` moves, so a fractional `L` is refused, not rounded.)
    fn round_integer_bounds_inward(&mut self) -> Result<()> {
        let FeatureKind::Contiguous {
            lower,
            upper,
            integer: true,
            step: None,
            ..
        } = &mut self.kind
        else {
            return Ok(());
        };
        let up = |v: f64| {
            if (v - v.round()).abs() <= COHERENCE_TOL {
                v.round()
            } else {
                v.ceil()
            }
        };
        let down = |v: f64| {
            if (v - v.round()).abs() <= COHERENCE_TOL {
                v.round()
            } else {
                v.floor()
            }
        };
        let (l, u) = (up(*lower), down(*upper));
        if l > u && *lower <= *upper {
            return Err(Error::InvalidSchema(format!(
                "feature '{}': the integer feature's range [{lower}, {upper}] holds no whole number",
                self.name
            )));
        }
        // Actionable bounds inside the given range but outside the rounded one
        // move to its ends (the same whole numbers stay actionable); others
        // are left for validation to judge.
        let inside = |v: f64| v >= *lower && v <= *upper;
        let a = &mut self.actionability;
        a.lower = a.lower.map(|v| if inside(v) { v.clamp(l, u) } else { v });
        a.upper = a.upper.map(|v| if inside(v) { v.clamp(l, u) } else { v });
        (*lower, *upper) = (l, u);
        Ok(())
    }
    /// The state of a raw value, or an error naming the feature.
    pub fn state_of(&self, raw: f64) -> Result<usize> {
        let bad = |reason: String| Error::Incoherent {
            feature: self.name.clone(),
            reason,
        };
        if raw.is_nan() {
            return Err(bad("value is NaN".into()));
        }
        match &self.kind {
            FeatureKind::Contiguous {
                lower,
                upper,
                special_states,
                ..
            } => {
                if let Some(j) = special_states.iter().position(|s| s.code == raw) {
                    return Ok(j + 1);
                }
                if raw < *lower - COHERENCE_TOL || raw > *upper + COHERENCE_TOL {
                    return Err(bad(format!(
                        "{raw} is neither in [{lower}, {upper}] nor a special code"
                    )));
                }
                Ok(0)
            }
            FeatureKind::Categorical { levels } => {
                let k = raw.round();
                if (raw - k).abs() > COHERENCE_TOL || k < 0.0 || k as usize >= levels.len() {
                    return Err(bad(format!(
                        "{raw} is not a level index in 0..{}",
                        levels.len()
                    )));
                }
                Ok(k as usize)
            }
        }
    }
}

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
mod tests;
