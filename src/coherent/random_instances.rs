//! The random schemas and factual rows of the oracle tests: the linear and
//! scorecard programs against brute force (`tests.rs`, `scorecard_tests.rs`,
//! `separable_tests.rs`) and the tree program against brute force
//! (`trees_tests.rs`, and the tree evaluation tests of `model::trees`). One
//! generator; what the two families draw differently is a [`SchemaDraw`],
//! kept as it was so that the oracles test the very instances they always
//! did (the same seed draws the same schemas).

use crate::schema::{Direction, Feature, FeatureKind, FeatureWeights, Schema, Transition};
use rand::Rng;
use rand_xoshiro::Xoshiro256PlusPlus;

/// What a family of random schemas draws: 2–4 features, each real-valued,
/// integer (sometimes on a grid of 2) or categorical (2–3 levels), with up to
/// two special states below the range, sometimes actionable bounds, an
/// immutable flag, a direction, a forbidden transition, and random weights.
pub(crate) struct SchemaDraw {
    /// A real-valued feature's lower bound (drawn, then rounded) and width.
    pub real_lower: (f64, f64),
    pub real_width: (f64, f64),
    /// How often a real-valued feature gets a fixed value in [0, 1) (`None`:
    /// never, and nothing drawn).
    pub fixed_value: Option<f64>,
    /// An integer feature's lower bound and width.
    pub integer_lower: (i32, i32),
    pub integer_width: (i32, i32),
    /// How often an integer feature is put on a grid of 2.
    pub grid: f64,
    /// How often a numeric feature gets actionable bounds; the grid they lie
    /// on when the feature has no step; whether the upper bound is drawn too
    /// (else it is the feature's upper end).
    pub bounds: f64,
    pub bounds_grid: f64,
    pub bounds_upper: bool,
    /// How often a feature is immutable.
    pub immutable: f64,
    /// How often a feature forbids a transition into a state; whether its
    /// origin is sometimes one state (else always any state, `*`).
    pub forbidden: f64,
    pub forbidden_from_one: bool,
}

/// The schemas of the linear and scorecard oracles.
pub(crate) const LINEAR_ORACLE: SchemaDraw = SchemaDraw {
    real_lower: (-5.0, 5.0),
    real_width: (1.0, 10.0),
    fixed_value: Some(0.3),
    integer_lower: (0, 4),
    integer_width: (1, 7),
    grid: 0.3,
    bounds: 0.3,
    bounds_grid: 0.5,
    bounds_upper: true,
    immutable: 0.15,
    forbidden: 0.3,
    forbidden_from_one: true,
};

/// The schemas of the tree oracle.
pub(crate) const TREE_ORACLE: SchemaDraw = SchemaDraw {
    real_lower: (-3.0, 3.0),
    real_width: (1.0, 6.0),
    fixed_value: None,
    integer_lower: (0, 3),
    integer_width: (2, 8),
    grid: 0.25,
    bounds: 0.25,
    bounds_grid: 1.0,
    bounds_upper: false,
    immutable: 0.1,
    forbidden: 0.25,
    forbidden_from_one: false,
};

/// A random schema of the family `d`.
pub(crate) fn random_schema(rng: &mut Xoshiro256PlusPlus, d: &SchemaDraw) -> Schema {
    let n = rng.random_range(2..=4);
    let mut feats = Vec::new();
    for i in 0..n {
        let kind = rng.random_range(0..3);
        let name = format!("f{i}");
        let mut f = match kind {
            0 => {
                let lo = rng.random_range(d.real_lower.0..d.real_lower.1).round();
                let mut f = Feature::contiguous(
                    &name,
                    lo,
                    lo + rng.random_range(d.real_width.0..d.real_width.1),
                );
                if let (Some(p), FeatureKind::Contiguous { fixed_value, .. }) =
                    (d.fixed_value, &mut f.kind)
                {
                    if rng.random_bool(p) {
                        *fixed_value = rng.random_range(0.0..1.0);
                    }
                }
                f
            }
            1 => {
                let lo = rng.random_range(d.integer_lower.0..d.integer_lower.1) as f64;
                let width = rng.random_range(d.integer_width.0..d.integer_width.1) as f64;
                let mut f = Feature::contiguous(&name, lo, lo + width).integer();
                if rng.random_bool(d.grid) {
                    if let FeatureKind::Contiguous { step, upper, .. } = &mut f.kind {
                        *step = Some(2.0);
                        *upper = lo + 2.0 * rng.random_range(1..4) as f64;
                    }
                }
                f
            }
            _ => {
                let k = rng.random_range(2..=3);
                let levels: Vec<String> = (0..k).map(|j| format!("l{j}")).collect();
                let refs: Vec<&str> = levels.iter().map(|s| s.as_str()).collect();
                Feature::categorical(&name, &refs)
            }
        };
        if kind < 2 {
            let lower = match &f.kind {
                FeatureKind::Contiguous { lower, .. } => *lower,
                _ => 0.0,
            };
            for j in 0..rng.random_range(0..=2) {
                f = f.with_special(lower - 1.0 - j as f64, &format!("special{j}"));
            }
            if rng.random_bool(d.bounds) {
                if let FeatureKind::Contiguous {
                    lower, upper, step, ..
                } = &f.kind
                {
                    let g = step.unwrap_or(d.bounds_grid);
                    let span = ((upper - lower) / g).floor();
                    let a = lower + (rng.random_range(0.0..=span / 2.0)).floor() * g;
                    let b = if d.bounds_upper {
                        let b = a + (rng.random_range(0.0..=(upper - a) / g)).floor() * g;
                        b.min(*upper)
                    } else {
                        *upper
                    };
                    f.actionability.lower = Some(a);
                    f.actionability.upper = Some(b);
                }
            }
        }
        if rng.random_bool(d.immutable) {
            f = f.immutable();
        }
        random_direction_and_forbidden(&mut f, rng, d.forbidden, d.forbidden_from_one);
        random_weights(&mut f, rng);
        feats.push(f);
    }
    Schema::new(feats).unwrap()
}

/// Random distance weights of `f` (value weight, one weight per discrete
/// state or level, anchor), each in the ranges every random-instance test uses.
pub(crate) fn random_weights(f: &mut Feature, rng: &mut Xoshiro256PlusPlus) {
    let n_ind = f.encoded_width() - usize::from(f.is_contiguous());
    f.weights = Some(FeatureWeights {
        value: if f.is_contiguous() {
            rng.random_range(0.2..3.0)
        } else {
            0.0
        },
        states: (0..n_ind).map(|_| rng.random_range(0.2..3.0)).collect(),
        anchor: rng.random_range(0.0..1.0),
    });
}

/// A random direction of `f` (increase only, decrease only, or any: 1, 1
/// and 3 in 5), then, with probability `forbidden`, a forbidden transition
/// into one of its states: from any state (`*`), or, when `from_one`, half
/// the time from one state.
pub(crate) fn random_direction_and_forbidden(
    f: &mut Feature,
    rng: &mut Xoshiro256PlusPlus,
    forbidden: f64,
    from_one: bool,
) {
    f.actionability.direction = match rng.random_range(0..5) {
        0 => Direction::IncreaseOnly,
        1 => Direction::DecreaseOnly,
        _ => Direction::Any,
    };
    let ns = f.n_states();
    if ns > 1 && rng.random_bool(forbidden) {
        let to = rng.random_range(0..ns);
        let from = if !from_one || rng.random_bool(0.5) {
            "*".to_string()
        } else {
            f.state_name(rng.random_range(0..ns)).to_string()
        };
        let to = f.state_name(to).to_string();
        f.actionability
            .forbidden_transitions
            .push(Transition { from, to });
    }
}

/// A random factual row of `schema`: a special state or a value on the
/// feature's grid or range, a level.
pub(crate) fn random_factual(schema: &Schema, rng: &mut Xoshiro256PlusPlus) -> Vec<f64> {
    schema
        .features
        .iter()
        .map(|f| match &f.kind {
            FeatureKind::Contiguous {
                lower,
                upper,
                integer,
                step,
                special_states,
                ..
            } => {
                let s = rng.random_range(0..=special_states.len());
                if s > 0 {
                    special_states[s - 1].code
                } else if let Some(g) = step {
                    lower + (rng.random_range(0.0..=(upper - lower) / g)).floor() * g
                } else if *integer {
                    rng.random_range(lower.ceil() as i64..=upper.floor() as i64) as f64
                } else {
                    rng.random_range(*lower..=*upper)
                }
            }
            FeatureKind::Categorical { levels } => rng.random_range(0..levels.len()) as f64,
        })
        .collect()
}

/// `schema` with advice grids and minimum changes (issue 43) drawn on its
/// contiguous features: half of them advised in whole multiples of a step
/// on the data's grid (0.5, 1 or 2 for a real-valued feature, 2 or 3 for an
/// integer one, 4 for one on a grid of 2 from an even lower bound), half of
/// them with a minimum change of up to 40 % of the range. Drawn after the
/// schema, so the schema families draw the instances they always did.
pub(crate) fn with_random_advice(schema: Schema, rng: &mut Xoshiro256PlusPlus) -> Schema {
    let mut feats = schema.features;
    for f in &mut feats {
        let FeatureKind::Contiguous {
            lower,
            upper,
            integer,
            step,
            ..
        } = f.kind
        else {
            continue;
        };
        if rng.random_bool(0.5) {
            f.actionability.advice_step = match (step, integer) {
                (Some(s), _) if (lower / s).fract() == 0.0 => Some(2.0 * s),
                (Some(_), _) => None,
                (None, true) => Some(rng.random_range(2..=3) as f64),
                (None, false) => Some([0.5, 1.0, 2.0][rng.random_range(0..3)]),
            };
        }
        if rng.random_bool(0.5) {
            let m = (rng.random_range(0.0..0.4) * (upper - lower) * 4.0).round() / 4.0;
            f.actionability.min_change = Some(m);
        }
    }
    Schema::new(feats).unwrap()
}
