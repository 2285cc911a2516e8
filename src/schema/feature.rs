//! One feature of a schema: its kind (contiguous with special states, or
//! categorical), its actionability (mutability, direction, bounds, forbidden
//! transitions) and its states. The [`Schema`](super::Schema) that orders
//! features and encodes rows is `mod.rs`.

use super::{COHERENCE_TOL, ChangeLimit, FeatureWeights, TimeGrowth};
use crate::error::{Error, Result};
use serde::{Deserialize, Serialize};

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
    /// The advice grid (contiguous features; format 2): a value the advice
    /// moves the feature to is a whole multiple of this step ("income in
    /// steps of 1,000"), whatever grid the data has. Staying put is always
    /// allowed, on the grid or not. See [`Schema::value_grid`](super::Schema::value_grid).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub advice_step: Option<f64>,
    /// The smallest change worth advising (contiguous features; format 2): a
    /// move of the value, if any, is at least this far from the applicant's
    /// own value ("pay 25 more" is not advice). See
    /// [`Schema::min_change`](super::Schema::min_change).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub min_change: Option<f64>,
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
            advice_step: None,
            min_change: None,
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
    pub(super) fn resolve_state(&self, name: &str) -> Result<Option<usize>> {
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
    pub(super) fn round_integer_bounds_inward(&mut self) -> Result<()> {
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
