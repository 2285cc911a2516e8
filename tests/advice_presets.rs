//! The German advice preset (issue #16) honoured by every method: the exact
//! engine with waiting, Wachter, PROBE, CROCO and COPA never move a person into
//! a forbidden level, never age them except by waiting, and never exceed a
//! change limit (checked by `Schema::check_advice`, the limits' one definition,
//! and again here by the preset's own numbers).

use cfx::coherent::waiting::{WaitingAdvice, explain_with_waiting};
use cfx::coherent::{Config, ProvedBy, Robustness, SolverChoice};
use cfx::data::presets::{german_credit_advice, heloc_advice};
use cfx::data::{bundled_german_path, german_credit, heloc};
use cfx::model::{LinearModel, LogisticFit, MlpModel, MlpTraining, Model};
use cfx::plan::{CopaConfig, EnsembleConfig, ModelUncertainty, copa_plan};
use cfx::robust::{CrocoConfig, NoiseModel, ProbeConfig, WachterConfig, croco, probe, wachter};
use cfx::schema::Schema;

mod common;

const FORBIDDEN: [(&str, &str); 4] = [
    ("status_of_existing_checking_account", "no checking account"),
    (
        "credit_history",
        "critical account/ other credits existing (not at this bank)",
    ),
    ("savings_account_and_bonds", "unknown/ no savings account"),
    ("housing", "for free"),
];

/// The preset's own numbers, independent of `move_range`: amount −50 %/+25 %,
/// duration ±12, age only as waiting says, no move into a forbidden level.
fn assert_signable(s: &Schema, from: &[f64], to: &[f64], months: u32, method: &str) {
    s.check_advice(from, to, months)
        .unwrap_or_else(|e| panic!("{method}: {e}"));
    assert_on_grids(s, from, to, &GERMAN_GRIDS, method);
    let idx = |n: &str| s.index_of(n).unwrap();
    let (a, d, age) = (
        idx("credit_amount"),
        idx("duration_in_month"),
        idx("age_in_years"),
    );
    assert!(
        to[a] >= 0.5 * from[a] - 1e-6 && to[a] <= 1.25 * from[a] + 1e-6,
        "{method}: amount {} → {}",
        from[a],
        to[a]
    );
    assert!(
        (to[d] - from[d]).abs() <= 12.0 + 1e-9,
        "{method}: duration {} → {}",
        from[d],
        to[d]
    );
    let aged = from[age] + (f64::from(months) / 12.0).floor();
    assert_eq!(
        to[age],
        aged.min(75.0),
        "{method}: age {} → {} after {months} months",
        from[age],
        to[age]
    );
    for (name, level) in FORBIDDEN {
        let i = idx(name);
        if to[i] != from[i] {
            assert_ne!(
                s.describe_value(i, to[i]),
                format!("'{level}'"),
                "{method}: moved into {level}"
            );
        }
    }
}

/// German credit under its preset: the logistic model fitted on the training
/// part, every declined held-out applicant, and the training part.
fn german() -> (Schema, LinearModel, Vec<Vec<f64>>, cfx::data::Dataset) {
    let data = german_credit(&bundled_german_path()).unwrap();
    let (train, test) = data.holdout_split();
    let model = LinearModel::fit(&train.encoded(), &train.labels, LogisticFit::default()).unwrap();
    let schema = german_credit_advice(&data.schema, 0.05).unwrap();
    let declined: Vec<Vec<f64>> = test
        .rows
        .iter()
        .filter(|r| !model.accepts(&schema.encode(r).unwrap()))
        .cloned()
        .collect();
    (schema, model, declined, train)
}

/// [`german`] with the first 12 declined applicants.
fn setup() -> (Schema, LinearModel, Vec<Vec<f64>>, cfx::data::Dataset) {
    let (schema, model, mut declined, train) = german();
    declined.truncate(12);
    assert_eq!(declined.len(), 12);
    (schema, model, declined, train)
}

#[test]
fn the_exact_engine_with_waiting_gives_signable_advice_with_both_solvers() {
    let (schema, model, declined, _) = setup();
    for solver in [SolverChoice::Mip, SolverChoice::Separable] {
        let cfg = Config {
            solver,
            ..Config::default()
        };
        let mut answered = 0;
        for raw in &declined {
            if let Some(a) = proven_advice(&schema, &model, raw, &cfg) {
                assert!(model.accepts(&schema.encode(&a.raw).unwrap()));
                assert_signable(&schema, raw, &a.raw, a.months, "MIP with waiting");
                answered += 1;
            }
        }
        assert!(answered >= 10, "{solver:?}: {answered} answers");
    }
}

/// What a data set's preset must hold of an answer (`Schema::check_advice`
/// and the preset's own numbers): [`assert_signable`] for German credit,
/// [`assert_heloc_signable`] for HELOC.
type Signable = fn(&Schema, &[f64], &[f64], u32, &str);

/// Wachter, PROBE and CROCO (σ² = 0.01 noise, 100 iterations for PROBE and
/// CROCO) on each of `declined`: every answer is signable.
fn gradient_methods_stay_signable(
    schema: &Schema,
    model: &LinearModel,
    declined: &[Vec<f64>],
    signable: Signable,
) {
    let noise = NoiseModel::gaussian_for_schema(schema, 0.01).unwrap();
    // The methods' own rows keep the limits; the cap on features changed is
    // the advice layer's to enforce (`every_*_answer_is_accepted_or_no_advice`).
    let limits = &without_cap(schema);
    for raw in declined {
        let w = wachter(schema, model, &noise, raw, &WachterConfig::default()).unwrap();
        signable(limits, raw, &w.raw, 0, "Wachter");
        let p = probe(
            schema,
            model,
            &noise,
            raw,
            &ProbeConfig {
                n_iter: 100,
                ..Default::default()
            },
        )
        .unwrap();
        signable(limits, raw, &p.raw, 0, "PROBE");
        let c = croco(
            schema,
            model,
            &noise,
            raw,
            &CrocoConfig {
                n_iter: 100,
                ..Default::default()
            },
        )
        .unwrap();
        signable(limits, raw, &c.raw, 0, "CROCO");
    }
}

/// `schema` without its cap on features changed and its advice grids and
/// minimum changes: what the methods' own rows must keep (the gradient
/// methods and COPA search a relaxation; the advice layer repairs an answer
/// over the cap, off a grid or under a minimum change, and delivers none of
/// them: `checked_advice`).
fn without_cap(schema: &Schema) -> Schema {
    without_grids(&schema.clone().with_max_features_changed(None).unwrap())
}

/// `schema` without its advice grids and minimum changes.
fn without_grids(schema: &Schema) -> Schema {
    let mut s = schema.clone();
    for i in 0..s.n_features() {
        if s.features[i].is_contiguous() && s.features[i].actionability.grows_with_time.is_none() {
            s = s.with_advice_grid(i, None, None).unwrap();
        }
    }
    s
}

/// The advice grids of a preset, written out here independently of its
/// constants: `(feature, step, minimum change)`. An answer under a schema
/// that has them (not the methods' own rows, `without_cap`) moves each such
/// feature to a multiple of its step, by at least its minimum, or not at all.
fn assert_on_grids(s: &Schema, from: &[f64], to: &[f64], grids: &[(&str, f64, f64)], method: &str) {
    for &(name, step, least) in grids {
        let i = s.index_of(name).unwrap();
        if s.features[i].actionability.advice_step.is_none() || to[i] == from[i] || to[i] < 0.0 {
            continue;
        }
        assert!(
            (to[i] / step - (to[i] / step).round()).abs() < 1e-9,
            "{method}: {name} {} → {} is not a multiple of {step}",
            from[i],
            to[i]
        );
        if from[i] >= 0.0 {
            assert!(
                (to[i] - from[i]).abs() >= least - 1e-9,
                "{method}: {name} {} → {} moves less than {least}",
                from[i],
                to[i]
            );
        }
    }
}

const GERMAN_GRIDS: [(&str, f64, f64); 2] = [
    ("credit_amount", 100.0, 250.0),
    ("duration_in_month", 3.0, 3.0),
];

const HELOC_GRIDS: [(&str, f64, f64); 4] = [
    ("NetFractionRevolvingBurden", 5.0, 5.0),
    ("NetFractionInstallBurden", 5.0, 5.0),
    ("PercentTradesWBalance", 5.0, 5.0),
    ("PercentInstallTrades", 5.0, 5.0),
];

/// COPA under the uncertainty of `refits` refits of the logistic model on
/// the encoded training rows `x` (initial noise 0.1), for each of `declined`:
/// every option of every plan is signable.
fn copa_plans_stay_signable(
    schema: &Schema,
    x: &[Vec<f64>],
    labels: &[f64],
    refits: usize,
    declined: &[Vec<f64>],
    signable: Signable,
) {
    let mu = ModelUncertainty::from_ensemble(
        x,
        labels,
        EnsembleConfig {
            refits,
            ..EnsembleConfig::default()
        },
    )
    .unwrap();
    for raw in declined {
        let plan = copa_plan(
            schema,
            &mu,
            raw,
            CopaConfig {
                init_noise: 0.1,
                ..CopaConfig::default()
            },
        )
        .unwrap();
        for option in &plan.raw {
            signable(&without_cap(schema), raw, option, 0, "COPA");
        }
    }
}

#[test]
fn wachter_probe_and_croco_stay_within_the_preset() {
    let (schema, model, declined, _) = setup();
    gradient_methods_stay_signable(&schema, &model, &declined[..6], assert_signable);
}

#[test]
fn copa_plans_stay_within_the_preset() {
    let (schema, _, declined, train) = setup();
    copa_plans_stay_signable(
        &schema,
        &train.encoded(),
        &train.labels,
        100,
        &declined[..3],
        assert_signable,
    );
}

/// The German orders, written out here independently of the preset's constant:
/// levels from worst to best.
const ORDERS: [(&str, &[&str]); 3] = [
    (
        "present_employment_since",
        &[
            "unemployed",
            "... < 1 year",
            "1 <= ... < 4 years",
            "4 <= ... < 7 years",
            "... >= 7 years",
        ],
    ),
    (
        "savings_account_and_bonds",
        &[
            "... < 100 DM",
            "100 <= ... < 500 DM",
            "500 <= ... < 1000 DM",
            "... >= 1000 DM",
        ],
    ),
    (
        "status_of_existing_checking_account",
        &[
            "... < 0 DM",
            "0 <= ... < 200 DM",
            "... >= 200 DM / salary assignments for at least 1 year",
        ],
    ),
];

/// The moves of an ordered feature to a worse level (by the names above, not
/// by the schema), in words.
fn moves_down(s: &Schema, from: &[f64], to: &[f64]) -> Vec<String> {
    let mut out = Vec::new();
    for (name, order) in ORDERS {
        let i = s.index_of(name).unwrap();
        let rank = |v: f64| {
            let level = s.describe_value(i, v);
            order.iter().position(|l| format!("'{l}'") == level)
        };
        if let (Some(a), Some(b)) = (rank(from[i]), rank(to[i])) {
            if b < a {
                out.push(format!(
                    "{name}: {} → {}",
                    s.describe_value(i, from[i]),
                    s.describe_value(i, to[i])
                ));
            }
        }
    }
    out
}

/// Every declined held-out German applicant: the optimal answer of the MIP and
/// of the separable solver, the robust answer (σ² = 0.01, ≤ 10 % declined) and
/// the answer with waiting never move employment, savings or the checking
/// balance to a worse level. Without the orders, the same applicants' answers
/// do move some of them down (the statement is not empty).
#[test]
fn no_method_moves_an_ordered_level_down_under_the_german_preset() {
    let (schema, model, declined, _) = german();
    let mut unordered = schema.clone();
    for f in &mut unordered.features {
        if !f.actionability.level_order.is_empty() {
            f.actionability.level_order.clear();
            f.actionability.direction = cfx::schema::Direction::Any;
            // employment too (the preset moves it only by waiting, up its
            // duration bands): the contrast is the orders' own
            f.actionability.mutable = true;
            f.actionability.grows_with_time = None;
        }
    }
    let unordered = Schema::new_with_waiting(unordered.features, schema.waiting()).unwrap();
    assert!(declined.len() > 50, "{} declined", declined.len());
    let robust = cfx::coherent::Robustness {
        sigma2: 0.01,
        invalidation_target: 0.1,
        box_kind: Default::default(),
    };
    let configs = [
        ("MIP", SolverChoice::Mip, None),
        ("separable", SolverChoice::Separable, None),
        ("robust MIP", SolverChoice::Mip, Some(robust)),
    ];
    let mut downs_without_orders = 0;
    for (method, solver, robustness) in configs {
        let cfg = Config {
            solver,
            robustness,
            ..Config::default()
        };
        let mut answered = 0;
        for raw in &declined {
            let ex = cfx::coherent::explain(&schema, &model, raw, &cfg).unwrap();
            for cf in &ex.counterfactuals {
                schema.check_actionable(raw, &cf.raw).unwrap();
                let down = moves_down(&schema, raw, &cf.raw);
                assert!(down.is_empty(), "{method}: {down:?}");
                answered += 1;
            }
            let free = cfx::coherent::explain(&unordered, &model, raw, &cfg).unwrap();
            for cf in &free.counterfactuals {
                downs_without_orders += moves_down(&schema, raw, &cf.raw).len();
            }
        }
        assert!(
            answered > declined.len() / 2,
            "{method}: {answered} answers"
        );
    }
    for raw in &declined {
        if let Some(a) = proven_advice(&schema, &model, raw, &Config::default()) {
            let down = moves_down(&schema, raw, &a.raw);
            assert!(down.is_empty(), "waiting: {down:?}");
        }
    }
    assert!(
        downs_without_orders > 0,
        "without the orders nothing moves down"
    );
}

/// The order in the schema JSON: it round-trips, a level that is not the
/// feature's is an error naming both, a misspelled key is still refused, and
/// a format 1 document without it still loads; with `increase_only` it forbids
/// exactly the moves to a worse listed level.
#[test]
fn a_level_order_reads_validates_and_forbids_moves_down() {
    let data = german_credit(&bundled_german_path()).unwrap();
    let schema = german_credit_advice(&data.schema, 0.05).unwrap();
    let json = schema.to_json();
    assert!(json.contains("\"level_order\""));
    let again = Schema::from_json(&json).unwrap();
    assert_eq!(again.to_json(), json);
    // Savings: employment keeps its order but is immutable under the preset.
    let i = schema.index_of("savings_account_and_bonds").unwrap();
    let level = |name: &str| {
        let cfx::schema::FeatureKind::Categorical { levels } = &schema.features[i].kind else {
            unreachable!()
        };
        levels.iter().position(|l| l == name).unwrap()
    };
    let order = ORDERS[1].1;
    for (ra, a) in order.iter().enumerate() {
        for (rb, b) in order.iter().enumerate() {
            assert_eq!(
                schema.transition_allowed(i, level(a), level(b)),
                rb >= ra,
                "{a} → {b}"
            );
        }
    }
    // A level of another feature.
    // Not a level (the first mention of '... < 1 year' after employment's
    // order; its duration bands, which name it too, come later).
    let feature_at = json.find("\"present_employment_since\"").unwrap();
    let order_at = feature_at + json[feature_at..].find("\"level_order\"").unwrap();
    let at = order_at + json[order_at..].find("\"... < 1 year\"").unwrap();
    let bad = format!(
        "{}\"... < 2 years\"{}",
        &json[..at],
        &json[at + "\"... < 1 year\"".len()..]
    );
    let e = Schema::from_json(&bad).unwrap_err().to_string();
    assert!(
        e.contains("present_employment_since") && e.contains("... < 2 years"),
        "{e}"
    );
    // An unknown key beside it is still refused, naming the key.
    let typo = json.replacen("\"level_order\"", "\"level_ordr\"", 1);
    let e = Schema::from_json(&typo).unwrap_err().to_string();
    assert!(e.contains("level_ordr"), "{e}");
    // Format 1 documents cannot carry it (and still load without it).
    let plain = Schema::from_json(&data.schema.to_json().replacen(
        "\"format_version\": 2",
        "\"format_version\": 1",
        1,
    ))
    .unwrap();
    assert_eq!(plain.n_features(), data.schema.n_features());
}

/// The HELOC preset's limits written out here: (feature, largest decrease),
/// in the feature's units, for an applicant in the value state.
const HELOC_DECREASES: [(&str, f64); 9] = [
    ("NetFractionRevolvingBurden", 30.0),
    ("NetFractionInstallBurden", 30.0),
    ("PercentTradesWBalance", 20.0),
    ("NumInqLast6M", 2.0),
    ("NumInqLast6Mexcl7days", 2.0),
    ("NumBank2NatlTradesWHighUtilization", 2.0),
    ("NumRevolvingTradesWBalance", 2.0),
    ("NumTrades60Ever2DerogPubRec", 0.0),
    ("NumTrades90Ever2DerogPubRec", 0.0),
];

/// HELOC under its preset (weights fitted on the training part).
struct Heloc {
    /// The plain schema with fitted weights.
    fitted: Schema,
    /// The preset on it.
    schema: Schema,
    /// The logistic model fitted on the training part.
    model: LinearModel,
    /// The training part, raw and encoded, and its labels.
    rows: Vec<Vec<f64>>,
    x: Vec<Vec<f64>>,
    labels: Vec<f64>,
    /// The first declined held-out applicants.
    declined: Vec<Vec<f64>>,
}

/// [`Heloc`] with the first `n` declined applicants (there are that many),
/// or `None` when the shared data is absent outside CI.
fn heloc_declined(n: usize) -> Option<Heloc> {
    let path = common::shared("heloc.csv")?;
    let d = heloc(&path).unwrap();
    let (train, test) = d.holdout_split();
    let mut fitted = train.schema.clone();
    fitted.fit_weights(&train.rows).unwrap();
    let x = fitted.encode_rows(&train.rows).unwrap();
    let model = LinearModel::fit(&x, &train.labels, LogisticFit::default()).unwrap();
    let schema = heloc_advice(&fitted, 0.05).unwrap();
    let declined: Vec<Vec<f64>> = test
        .rows
        .iter()
        .filter(|r| !model.accepts(&schema.encode(r).unwrap()))
        .take(n)
        .cloned()
        .collect();
    assert_eq!(declined.len(), n);
    Some(Heloc {
        fitted,
        schema,
        model,
        rows: train.rows,
        x,
        labels: train.labels,
        declined,
    })
}

fn assert_heloc_signable(s: &Schema, from: &[f64], to: &[f64], months: u32, method: &str) {
    s.check_advice(from, to, months)
        .unwrap_or_else(|e| panic!("{method}: {e}"));
    assert_on_grids(s, from, to, &HELOC_GRIDS, method);
    for (name, down) in HELOC_DECREASES {
        let i = s.index_of(name).unwrap();
        // Both in the value state (special codes are negative, values are not).
        if from[i] >= 0.0 && to[i] >= 0.0 {
            assert!(
                to[i] >= from[i] - down - 1e-6,
                "{method}: {name} {} → {} (at most −{down})",
                from[i],
                to[i]
            );
        }
    }
}

/// The first 40 declined held-out HELOC applicants: the exact engine with
/// waiting (separable solver on all, HiGHS on 10), Wachter, PROBE, CROCO (all
/// 40) and COPA (3) keep within the preset's change limits.
#[test]
fn every_method_keeps_the_heloc_change_limits() {
    let Some(Heloc {
        fitted,
        schema,
        model,
        x,
        labels,
        declined,
        ..
    }) = heloc_declined(40)
    else {
        return;
    };
    // Without the limits some answer would cut the revolving burden by more
    // than 30 points (the statement is not empty).
    let mut over_without = 0;
    let unlimited = heloc_advice_without_limits(&fitted);
    for (k, raw) in declined.iter().enumerate() {
        for solver in [SolverChoice::Separable, SolverChoice::Mip] {
            if solver == SolverChoice::Mip && k >= 10 {
                continue;
            }
            let cfg = Config {
                solver,
                ..Config::default()
            };
            if let Some(a) = proven_advice(&schema, &model, raw, &cfg) {
                assert!(model.accepts(&schema.encode(&a.raw).unwrap()));
                assert_heloc_signable(&schema, raw, &a.raw, a.months, "exact engine");
            }
        }
        let free = cfx::coherent::explain(&unlimited, &model, raw, &Config::default()).unwrap();
        let burden = schema.index_of("NetFractionRevolvingBurden").unwrap();
        for cf in &free.counterfactuals {
            over_without += usize::from(raw[burden] >= 0.0 && cf.raw[burden] < raw[burden] - 30.0);
        }
    }
    assert!(
        over_without > 0,
        "no unlimited answer cuts the burden by > 30"
    );
    gradient_methods_stay_signable(&schema, &model, &declined, assert_heloc_signable);
    copa_plans_stay_signable(
        &schema,
        &x,
        &labels,
        20,
        &declined[..3],
        assert_heloc_signable,
    );
}

/// The HELOC preset with its change limits removed (the contrast above).
fn heloc_advice_without_limits(fitted: &Schema) -> Schema {
    let s = heloc_advice(fitted, 0.05).unwrap();
    let mut features = s.features.clone();
    for f in &mut features {
        f.actionability.max_increase = None;
        f.actionability.max_decrease = None;
    }
    Schema::new_with_waiting(features, s.waiting()).unwrap()
}

/// The one MIP (waiting as an integer variable, `SolverChoice::Mip`) against
/// the outer loop over months on the separable solver (`Separable`), for the
/// same applicant: the same feasibility and costs equal within 1e-9 relative
/// (the months may differ where several tie); the MIP's answer is signable
/// advice of its own. Returns (answers, answers that wait).
fn one_mip_equals_outer_loop(
    schema: &Schema,
    model: &LinearModel,
    declined: &[Vec<f64>],
    robustness: Option<Robustness>,
    what: &str,
) -> (usize, usize) {
    // The one MIP serves schemas without advice grids or minimum changes
    // (with them waiting takes the outer loop, `coherent::waiting`), so its
    // equality with the loop is checked on the preset without its grids.
    let schema = &without_grids(schema);
    let mip = Config {
        solver: SolverChoice::Mip,
        robustness,
        ..Config::default()
    };
    let separable = Config {
        solver: SolverChoice::Separable,
        ..mip
    };
    let (mut answered, mut waited, mut by_separable) = (0, 0, 0);
    for (k, raw) in declined.iter().enumerate() {
        let one = proven_advice(schema, model, raw, &mip);
        let outer = proven_advice(schema, model, raw, &separable);
        match (one, outer) {
            (Some(a), Some(b)) => {
                assert!(
                    a.cost == b.cost || (a.cost - b.cost).abs() <= 1e-9 * b.cost.abs(),
                    "{what} applicant {k}: one MIP {} (wait {}) vs outer loop {} (wait {})",
                    a.cost,
                    a.months,
                    b.cost,
                    b.months
                );
                assert_eq!(a.proved_by, Some(ProvedBy::Highs));
                // The outer loop runs the separable solver, and moves to
                // HiGHS only where an optimum broke the preset's cap on
                // features changed (then its capped MIP per month is still
                // another program than the one MIP with the wait variable).
                assert!(
                    matches!(
                        b.proved_by,
                        None | Some(ProvedBy::Separable) | Some(ProvedBy::Highs)
                    ),
                    "{what}: outer loop {:?}",
                    b.proved_by
                );
                by_separable += usize::from(b.proved_by == Some(ProvedBy::Separable));
                check_waiting_advice(schema, model, raw, &a, what);
                answered += 1;
                if a.months > 0 {
                    waited += 1;
                }
            }
            (None, None) => {}
            (a, b) => panic!(
                "{what} applicant {k}: one MIP {:?} vs outer loop {:?}",
                a.map(|a| a.cost),
                b.map(|b| b.cost)
            ),
        }
    }
    assert!(
        answered == 0 || by_separable > 0,
        "{what}: the separable solver proved none of the outer loop's answers"
    );
    (answered, waited)
}

/// The waiting advice of a run that must be proven (every solve finished:
/// these applicants need a few hundred separable nodes and milliseconds of
/// HiGHS): the optimum, or `None` when none exists.
fn proven_advice(
    schema: &Schema,
    model: &dyn Model,
    raw: &[f64],
    config: &Config,
) -> Option<WaitingAdvice> {
    let w = explain_with_waiting(schema, model, raw, config).unwrap();
    assert!(w.is_proven(), "unproven: {:?}", w.unproven);
    w.advice
}

fn check_waiting_advice(s: &Schema, model: &dyn Model, raw: &[f64], a: &WaitingAdvice, what: &str) {
    s.check_advice(raw, &a.raw, a.months)
        .unwrap_or_else(|e| panic!("{what}: {e}"));
    assert!(model.accepts(&s.encode(&a.raw).unwrap()), "{what}");
    assert_eq!(a.waited, s.after_waiting(raw, a.months).unwrap());
    let moves = cfx::coherent::cost(s, &a.waited, &a.raw).unwrap();
    assert!((a.cost - a.wait_cost - moves).abs() < 1e-12, "{what}");
}

#[test]
fn german_one_mip_with_waiting_equals_the_outer_loop_on_every_declined_applicant() {
    let (schema, model, declined, _) = german();
    assert!(declined.len() >= 30, "declined: {}", declined.len());
    let (answered, _) = one_mip_equals_outer_loop(&schema, &model, &declined, None, "German");
    assert!(
        answered * 10 >= declined.len() * 9,
        "{answered} of {}",
        declined.len()
    );
    for raw in &declined {
        let a = proven_advice(
            &schema,
            &model,
            raw,
            &Config {
                solver: SolverChoice::Mip,
                ..Config::default()
            },
        );
        if let Some(a) = a {
            assert_signable(&schema, raw, &a.raw, a.months, "one MIP with waiting");
        }
    }
    let robust = Robustness {
        sigma2: 0.01,
        invalidation_target: 0.1,
        box_kind: Default::default(),
    };
    let (answered, _) =
        one_mip_equals_outer_loop(&schema, &model, &declined, Some(robust), "German, robust");
    assert!(
        answered * 2 >= declined.len(),
        "robust: {answered} of {}",
        declined.len()
    );
}

#[test]
fn heloc_one_mip_with_waiting_equals_the_outer_loop_on_200_declined_applicants() {
    let Some(Heloc {
        schema,
        model,
        declined,
        ..
    }) = heloc_declined(200)
    else {
        return;
    };
    let (answered, waited) = one_mip_equals_outer_loop(&schema, &model, &declined, None, "HELOC");
    eprintln!("HELOC: {answered} of 200 answered, {waited} wait");
    // 165 since burdens, balances and inquiries move only down, "no usable
    // trades" neither way, and at most 5 features change per answer (issue
    // 25; 179 with the bureau score and the delinquency history immutable
    // and trades limited, 180+ before those).
    assert!(answered >= 160, "answered: {answered}");
}

/// `priced_preset` is the named preset with one month priced as the distance
/// prices a month's growth of the cheapest time feature, computed by hand
/// here: German age grows 1/12 year a month, so the price is
/// `W_age·(1/12)/(U − L)`.
#[test]
fn priced_preset_prices_a_month_by_hand() {
    let d = cfx::data::german_credit(&cfx::data::bundled_german_path()).unwrap();
    let s = &d.schema;
    let age = s.index_of("age_in_years").unwrap();
    let cfx::schema::FeatureKind::Contiguous { lower, upper, .. } = s.features[age].kind else {
        panic!("age is contiguous")
    };
    let want = s.weights(age).value * (1.0 / 12.0) / (upper - lower);
    let p = cfx::data::presets::priced_preset("german", s)
        .unwrap()
        .unwrap();
    let got = p.waiting().unwrap().cost_per_month;
    assert!(
        (got - want).abs() < 1e-12 * want.max(1.0),
        "{got} vs {want}"
    );
    assert_eq!(p, cfx::data::presets::german_credit_advice(s, got).unwrap());
    assert!(
        cfx::data::presets::priced_preset("taiwan", s)
            .unwrap()
            .is_none()
    );
    assert!(cfx::data::presets::month_price(s, &[("no_such_feature", 1.0)]).is_err());
}

// ------------------------------------------------------------- issue 25

/// Features no answer may move under the German preset, written out here
/// independently of the preset's constants: durations only time moves, and
/// the instalment rate that follows from amount, duration and income.
const GERMAN_FIXED: [&str; 3] = [
    "present_employment_since",
    "present_residence_since",
    "installment_rate_in_percentage_of_disposable_income",
];

/// Features no answer may move under the HELOC preset: the bureau's score and
/// the delinquency and derogatory history (the month counters move only by
/// waiting, and no method here waits).
const HELOC_FIXED: [&str; 11] = [
    "ExternalRiskEstimate",
    "NumTrades60Ever2DerogPubRec",
    "NumTrades90Ever2DerogPubRec",
    "PercentTradesNeverDelq",
    "MaxDelq2PublicRecLast12M",
    "MaxDelqEver",
    "MSinceOldestTradeOpen",
    "MSinceMostRecentTradeOpen",
    "AverageMInFile",
    "MSinceMostRecentDelq",
    "MSinceMostRecentInqexcl7days",
];

/// The HELOC trade limits written out here: (feature, largest move either way).
const HELOC_TRADE_LIMITS: [(&str, f64); 4] = [
    ("NumTotalTrades", 3.0),
    ("NumSatisfactoryTrades", 3.0),
    ("NumTradesOpeninLast12M", 3.0),
    ("PercentInstallTrades", 15.0),
];

/// What one method's answers became.
#[derive(Default, Debug)]
struct Outcomes {
    valid: usize,
    repaired: usize,
    /// Of `repaired`: over the features the method moved.
    repaired_moved: usize,
    none: usize,
    /// The method's own answers that changed more features than the preset's
    /// cap (`max_features_changed`): never given as they were.
    over_cap: usize,
}

/// Checks one answer with `cfx::advice::check_or_repair` (repairing with the
/// exact engine) and asserts what the advice must hold: accepted by the model
/// (scored here again), actionable under the preset, none of `fixed` moved,
/// and `extra` (the preset's own numbers).
#[allow(clippy::too_many_arguments)]
fn checked_advice(
    schema: &Schema,
    model: &dyn Model,
    raw: &[f64],
    answer: &[f64],
    fixed: &[&str],
    extra: Signable,
    method: &str,
    tally: &mut Outcomes,
) {
    let c =
        cfx::advice::check_or_repair(schema, model, raw, answer, Some(&Config::default())).unwrap();
    assert_eq!(c.best_effort, answer, "{method}: the best effort is kept");
    let cap = schema
        .max_features_changed
        .expect("the presets cap the features one answer changes");
    if schema.features_changed(raw, answer, 0).unwrap() > cap {
        tally.over_cap += 1;
        assert_ne!(
            c.outcome,
            cfx::advice::Outcome::Valid,
            "{method}: over the cap"
        );
    }
    match c.outcome {
        cfx::advice::Outcome::Valid => {
            tally.valid += 1;
            assert_eq!(c.advice.as_deref(), Some(answer), "{method}");
        }
        cfx::advice::Outcome::Repaired => tally.repaired += 1,
        cfx::advice::Outcome::NoAdvice => {
            tally.none += 1;
            if std::env::var("CFX_DEBUG_ADVICE").is_ok() {
                eprintln!("{method}: {}", c.describe());
            }
            assert!(c.advice.is_none() && c.changes.is_empty(), "{method}");
            assert!(
                c.describe().starts_with("no valid advice found"),
                "{method}"
            );
            return;
        }
    }
    let advice = c.advice.as_deref().unwrap();
    assert!(
        model.accepts(&schema.encode(advice).unwrap()),
        "{method}: advice declined: {}",
        c.describe()
    );
    extra(schema, raw, advice, 0, method);
    let n = schema.features_changed(raw, advice, 0).unwrap();
    assert!(
        n <= cap,
        "{method}: advice changes {n} features (cap {cap}): {}",
        c.describe()
    );
    for name in fixed {
        let i = schema.index_of(name).unwrap();
        assert_eq!(advice[i], raw[i], "{method} moved {name}: {}", c.describe());
    }
    if c.outcome == cfx::advice::Outcome::Repaired {
        // A repair over the moved features moves only features the method
        // itself moved; in every case the method's own row was not advice.
        let moved = schema.describe_changes(raw, answer);
        if c.repair_scope == Some(cfx::advice::RepairScope::MovedFeatures) {
            tally.repaired_moved += 1;
            for ch in schema.describe_changes(raw, advice) {
                assert!(
                    moved.iter().any(|m| m.feature == ch.feature),
                    "{method}: the repair moved {} which the method left",
                    ch.name
                );
            }
        }
        assert!(
            !model.accepts(&schema.encode(answer).unwrap())
                || schema.check_advice(raw, answer, 0).is_err(),
            "{method}: repaired a valid answer"
        );
        assert!(c.describe().contains("repaired"), "{method}");
    }
}

/// Every method under a preset on `declined`: the exact engine's optimum,
/// Wachter, PROBE and CROCO (100 iterations per round) on all, COPA
/// (`refits` refits, J = 5) on the first `n_copa`. Returns the outcomes of
/// the gradient methods and of COPA.
#[allow(clippy::too_many_arguments)]
fn every_method_valid_or_none(
    schema: &Schema,
    model: &dyn Model,
    x: &[Vec<f64>],
    labels: &[f64],
    declined: &[Vec<f64>],
    n_copa: usize,
    fixed: &[&str],
    extra: Signable,
) -> (Outcomes, Outcomes) {
    let noise = NoiseModel::gaussian_for_schema(schema, 0.01).unwrap();
    let mu = ModelUncertainty::from_ensemble(
        x,
        labels,
        EnsembleConfig {
            refits: 50,
            ..EnsembleConfig::default()
        },
    )
    .unwrap();
    let (mut gradient, mut copa, mut exact) = (
        Outcomes::default(),
        Outcomes::default(),
        Outcomes::default(),
    );
    for (k, raw) in declined.iter().enumerate() {
        let ex = cfx::coherent::explain(schema, model, raw, &Config::default()).unwrap();
        for cf in &ex.counterfactuals {
            checked_advice(schema, model, raw, &cf.raw, fixed, extra, "MIP", &mut exact);
        }
        let probe_cfg = ProbeConfig {
            n_iter: 100,
            invalidation_target: 0.1,
            ..Default::default()
        };
        let croco_cfg = CrocoConfig {
            n_iter: 100,
            robustness_target: 0.1,
            ..Default::default()
        };
        let w = wachter(schema, model, &noise, raw, &WachterConfig::default()).unwrap();
        let p = probe(schema, model, &noise, raw, &probe_cfg).unwrap();
        let c = croco(schema, model, &noise, raw, &croco_cfg).unwrap();
        for (r, method) in [(w, "Wachter"), (p, "PROBE"), (c, "CROCO")] {
            checked_advice(
                schema,
                model,
                raw,
                &r.raw,
                fixed,
                extra,
                method,
                &mut gradient,
            );
        }
        if k < n_copa {
            let plan = copa_plan(
                schema,
                &mu,
                raw,
                CopaConfig {
                    init_noise: 0.1,
                    ..CopaConfig::default()
                },
            )
            .unwrap();
            for option in &plan.raw {
                checked_advice(schema, model, raw, option, fixed, extra, "COPA", &mut copa);
            }
        }
    }
    // The exact engine's answers need no repair.
    assert_eq!(exact.repaired + exact.none, 0, "{exact:?}");
    eprintln!("gradient methods {gradient:?}, COPA {copa:?}, exact {exact:?}");
    (gradient, copa)
}

/// Issue 25 on German credit: for the first 40 declined held-out applicants,
/// every answer of the exact engine, Wachter, PROBE, CROCO (all 40) and COPA
/// (first 10) is accepted by the model or is "no valid advice found", and
/// none moves a duration or the instalment rate. The check is not empty:
/// some method's own answer was declined and had to be repaired or dropped.
#[test]
fn every_german_answer_is_accepted_or_no_advice() {
    let (schema, model, mut declined, train) = german();
    declined.truncate(40);
    assert_eq!(declined.len(), 40);
    let (gradient, copa) = every_method_valid_or_none(
        &schema,
        &model,
        &train.encoded(),
        &train.labels,
        &declined,
        10,
        &GERMAN_FIXED,
        assert_signable,
    );
    assert!(
        gradient.repaired + gradient.none + copa.repaired + copa.none > 0,
        "no answer needed the check"
    );
    assert!(gradient.valid + gradient.repaired >= 60, "{gradient:?}");
}

fn assert_heloc_trades(s: &Schema, from: &[f64], to: &[f64], months: u32, method: &str) {
    assert_heloc_signable(s, from, to, months, method);
    for (name, limit) in HELOC_TRADE_LIMITS {
        let i = s.index_of(name).unwrap();
        if from[i] >= 0.0 && to[i] >= 0.0 {
            assert!(
                (to[i] - from[i]).abs() <= limit + 1e-6,
                "{method}: {name} {} → {} (at most ±{limit})",
                from[i],
                to[i]
            );
        }
    }
}

/// Issue 25 on HELOC: the same for the first 40 declined held-out applicants
/// (COPA on the first 5): accepted or no advice, the bureau score and the
/// delinquency history never moved, trades within a few accounts.
#[test]
fn every_heloc_answer_is_accepted_or_no_advice() {
    let Some(h) = heloc_declined(40) else {
        return;
    };
    let (gradient, copa) = every_method_valid_or_none(
        &h.schema,
        &h.model,
        &h.x,
        &h.labels,
        &h.declined,
        5,
        &HELOC_FIXED,
        assert_heloc_trades,
    );
    assert!(
        gradient.repaired + gradient.none + copa.repaired + copa.none > 0,
        "no answer needed the check"
    );
    assert!(gradient.valid + gradient.repaired >= 40, "{gradient:?}");
    // COPA moves every trade count at once: its own options break the cap
    // and are never handed out as they are.
    assert!(copa.over_cap > 0, "{copa:?}");
}

/// A short P-DQN training (400 episodes, seed 7): enough for plans to end,
/// cheap enough for a test.
fn short_pdqn() -> cfx::sequential::PdqnConfig {
    cfx::sequential::PdqnConfig {
        episodes: 400,
        hidden: vec![16],
        batch_size: 16,
        epsilon_steps: 800,
        epsilon_final: 0.2,
        initial_memory: 100,
        replay_capacity: 4000,
        progress_every: 400,
        seed: 7,
        ..cfx::sequential::PdqnConfig::default()
    }
}

/// A P-DQN plan shows no step that changes nothing: a short training under
/// the German preset, then the plans of the first 40 declined applicants —
/// every step shown changes its feature (or waiting moves something), the
/// steps replayed give the final row, and no step moves a duration or the
/// instalment rate. Idle steps the policy took are counted (`idle_steps`),
/// not shown.
#[test]
fn pdqn_plans_have_no_idle_steps_under_the_german_preset() {
    use cfx::sequential::{RewardKind, RewardParams, train};
    let (schema, model, mut declined, tr) = german();
    declined.truncate(40);
    let cfg = short_pdqn();
    let policy = train(
        &schema,
        &model,
        &tr.rows,
        RewardKind::Probability,
        RewardParams::default(),
        &cfg,
        |_| true,
    )
    .unwrap()
    .policy;
    let mut idle = 0;
    for raw in &declined {
        let plan = policy.answer(&schema, &model, raw).unwrap();
        idle += plan.idle_steps;
        let mut row = raw.clone();
        let mut months = 0;
        for st in &plan.steps {
            assert!(st.changed, "idle step shown: {}", st.text());
            if st.months > 0 {
                assert!(!st.waited.is_empty(), "{}", st.text());
                months += st.months;
                row = schema.after_waiting(&row, st.months).unwrap();
            } else {
                assert_ne!(st.from, st.to, "{}", st.text());
                assert!(!GERMAN_FIXED.contains(&st.name.as_str()), "{}", st.text());
                row[st.feature] = st.to;
            }
        }
        if plan.violation.is_none() {
            assert_eq!(row, plan.final_row);
            schema.check_advice(raw, &plan.final_row, months).unwrap();
        }
        for name in GERMAN_FIXED {
            let i = schema.index_of(name).unwrap();
            assert_eq!(plan.final_row[i], raw[i], "{name}");
        }
    }
    eprintln!("idle steps dropped: {idle}");
}

/// Both presets cap the features one piece of advice changes (issue 25), and
/// the cap is what `check_advice` enforces: an answer over it is refused
/// with a message naming the cap, the same answer within it passes.
#[test]
fn the_presets_cap_the_features_one_answer_changes() {
    use cfx::data::presets::{GERMAN_MAX_FEATURES_CHANGED, HELOC_MAX_FEATURES_CHANGED};
    let (schema, model, declined, _) = german();
    assert_eq!(
        schema.max_features_changed,
        Some(GERMAN_MAX_FEATURES_CHANGED)
    );
    assert_eq!(GERMAN_MAX_FEATURES_CHANGED, 3);
    assert_eq!(HELOC_MAX_FEATURES_CHANGED, 5);
    if let Some(h) = heloc_declined(1) {
        assert_eq!(
            h.schema.max_features_changed,
            Some(HELOC_MAX_FEATURES_CHANGED)
        );
    }
    // An answer that changes four levers: amount, duration, savings,
    // checking balance (each within the preset) is refused for the cap alone.
    let raw = &declined[0];
    let mut four = raw.clone();
    let idx = |n: &str| schema.index_of(n).unwrap();
    let (a, d) = (idx("credit_amount"), idx("duration_in_month"));
    // On the preset's grids: 100 DM and 3 months, by at least 250 DM and 3.
    four[a] = ((raw[a] * 0.85) / 100.0).round() * 100.0;
    assert!(raw[a] - four[a] >= 250.0, "{} → {}", raw[a], four[a]);
    four[d] = if raw[d] > 12.0 {
        ((raw[d] - 6.0) / 3.0).round() * 3.0
    } else {
        ((raw[d] + 6.0) / 3.0).round() * 3.0
    };
    let mut moved = 2;
    for (name, _) in [
        ("savings_account_and_bonds", ()),
        ("status_of_existing_checking_account", ()),
        ("other_installment_plans", ()),
        ("housing", ()),
        ("job", ()),
    ] {
        if moved == 4 {
            break;
        }
        let i = idx(name);
        let mut cand = four.clone();
        let levels = schema.features[i].n_states();
        for l in 0..levels {
            cand[i] = l as f64;
            if cand[i] != raw[i] && {
                let mut one = raw.clone();
                one[i] = cand[i];
                schema.check_advice(raw, &one, 0).is_ok()
            } {
                four = cand;
                moved += 1;
                break;
            }
        }
    }
    assert_eq!(moved, 4, "four allowed levers found");
    assert_eq!(schema.features_changed(raw, &four, 0).unwrap(), 4);
    let e = schema.check_advice(raw, &four, 0).unwrap_err().to_string();
    assert!(e.contains("max_features_changed"), "{e}");
    let uncapped = schema.clone().with_max_features_changed(None).unwrap();
    uncapped.check_advice(raw, &four, 0).unwrap();
    // The advice layer never hands it out as it is.
    let c = cfx::advice::check_or_repair(&schema, &model, raw, &four, Some(&Config::default()))
        .unwrap();
    assert_ne!(c.outcome, cfx::advice::Outcome::Valid);
    if let Some(adv) = &c.advice {
        assert!(schema.features_changed(raw, adv, 0).unwrap() <= 3);
    }
}

/// True when the months since the last inquiry are beyond the HELOC preset's
/// window: a number of months past its last month (23), where the bureau
/// reports −7.
fn beyond_the_inquiry_window(s: &Schema, row: &[f64]) -> bool {
    use cfx::data::presets::HELOC_WINDOWS;
    HELOC_WINDOWS.iter().any(|&(name, last)| {
        let i = s.index_of(name).unwrap();
        s.features[i].state_of(row[i]).unwrap() == 0 && row[i] > last
    })
}

/// Issue 25: under the HELOC preset no answer leaves the months since the last
/// inquiry beyond the bureau's window (23 months; −7 past it), whether it
/// comes from waiting alone, the exact engine's waiting advice or a P-DQN plan
/// (a short `R^prob` training), on the first 40 declined held-out applicants.
/// The check is not empty: every one of them with an inquiry on record who may
/// wait 24 months (no other month count would pass its bound) ends in −7
/// after 24 months, and a wait of 24 months is within the preset.
#[test]
fn heloc_waiting_never_leaves_an_inquiry_beyond_its_window() {
    use cfx::sequential::{RewardKind, RewardParams, train};
    let Some(h) = heloc_declined(40) else {
        return;
    };
    let s = &h.schema;
    let inq = s.index_of("MSinceMostRecentInqexcl7days").unwrap();
    let mut closed = 0;
    for raw in &h.declined {
        let longest = s.longest_wait(raw).unwrap();
        for m in 0..=longest {
            assert!(!beyond_the_inquiry_window(
                s,
                &s.after_waiting(raw, m).unwrap()
            ));
        }
        if raw[inq] >= 0.0 && longest == 24 {
            assert_eq!(s.after_waiting(raw, 24).unwrap()[inq], -7.0);
            closed += 1;
        }
    }
    assert!(
        closed >= 10,
        "applicants with an inquiry on record: {closed}"
    );
    let (mut answered, mut waited) = (0, 0);
    for raw in &h.declined {
        if let Some(a) = proven_advice(s, &h.model, raw, &Config::default()) {
            check_waiting_advice(s, &h.model, raw, &a, "HELOC waiting advice");
            assert!(!beyond_the_inquiry_window(s, &a.raw), "{:?}", a.raw);
            answered += 1;
            waited += usize::from(a.months > 0);
        }
    }
    let cfg = short_pdqn();
    let train_rows: Vec<Vec<f64>> = {
        let d = heloc(&common::shared("heloc.csv").unwrap()).unwrap();
        d.holdout_split().0.rows
    };
    let policy = train(
        s,
        &h.model,
        &train_rows,
        RewardKind::Probability,
        RewardParams::default(),
        &cfg,
        |_| true,
    )
    .unwrap()
    .policy;
    let mut plans_waiting = 0;
    for raw in &h.declined {
        let plan = policy.answer(s, &h.model, raw).unwrap();
        let months: u32 = plan.steps.iter().map(|st| st.months).sum();
        plans_waiting += usize::from(months > 0);
        assert!(
            !beyond_the_inquiry_window(s, &plan.final_row),
            "P-DQN plan waits {months} months: {:?}",
            plan.final_row
        );
        if plan.violation.is_none() {
            s.check_advice(raw, &plan.final_row, months).unwrap();
        }
    }
    eprintln!(
        "exact engine: {answered} answers, {waited} waiting; P-DQN: {plans_waiting} plans waiting"
    );
    // Both methods wait here (25 and 18 of 40 when written): the check is not empty.
    assert!(waited >= 5, "exact engine answers that wait: {waited}");
    assert!(plans_waiting >= 5, "P-DQN plans that wait: {plans_waiting}");
}

/// The presets' month counters and age refuse to be carried past their
/// upper bounds (the data's largest values; issue 25): which features
/// refuse and which keep their end state, and the longest wait of
/// applicants near a bound, worked by hand.
#[test]
fn the_presets_refuse_waits_past_the_upper_bounds() {
    use cfx::schema::{FeatureKind, PastUpper};
    let refusing = |s: &Schema| -> Vec<(String, f64)> {
        s.features
            .iter()
            .filter_map(|f| {
                let g = f.actionability.grows_with_time.as_ref()?;
                let FeatureKind::Contiguous { upper, .. } = &f.kind else {
                    return None;
                };
                (g.past_upper == PastUpper::Refuse).then(|| (f.name.clone(), *upper))
            })
            .collect()
    };
    let (schema, _, declined, _) = german();
    assert_eq!(refusing(&schema), vec![("age_in_years".to_string(), 75.0)]);
    let age = schema.index_of("age_in_years").unwrap();
    let mut raw = declined[0].clone();
    // Whole years, 1/12 a month: from 74, 75 after 12 months, 76 after 24.
    for (years, longest) in [(30.0, 24), (73.0, 24), (74.0, 23), (75.0, 11)] {
        raw[age] = years;
        assert_eq!(schema.longest_wait(&raw).unwrap(), longest, "age {years}");
    }
    let Some(h) = heloc_declined(40) else {
        return;
    };
    let s = &h.schema;
    assert_eq!(
        refusing(s),
        [
            ("MSinceOldestTradeOpen", 803.0),
            ("MSinceMostRecentTradeOpen", 383.0),
            ("AverageMInFile", 383.0),
            ("MSinceMostRecentDelq", 83.0),
        ]
        .map(|(n, u)| (n.to_string(), u))
    );
    // The inquiry window still ends in −7 rather than refusing.
    let inq = s.index_of("MSinceMostRecentInqexcl7days").unwrap();
    let g = s.features[inq]
        .actionability
        .grows_with_time
        .as_ref()
        .unwrap();
    assert_eq!(
        (g.past_upper, g.ends_in.as_deref()),
        (PastUpper::Cap, Some("-7"))
    );
    let delq = s.index_of("MSinceMostRecentDelq").unwrap();
    // The other counters far from their bounds (or in a special state).
    let far = |r: &[f64]| {
        [
            ("MSinceOldestTradeOpen", 790.0),
            ("MSinceMostRecentTradeOpen", 370.0),
            ("AverageMInFile", 370.0),
        ]
        .iter()
        .all(|&(n, most)| r[s.index_of(n).unwrap()] <= most)
    };
    let mut near = 0;
    for raw in &h.declined {
        if raw[delq] >= 0.0 && far(raw) {
            let mut r = raw.clone();
            r[delq] = 80.0;
            assert_eq!(s.longest_wait(&r).unwrap(), 3);
            r[delq] = 83.0;
            assert_eq!(s.longest_wait(&r).unwrap(), 0);
            assert!(s.after_waiting(&r, 1).is_err());
            near += 1;
        }
    }
    assert!(near >= 5, "{near}");
}

/// Under the HELOC preset, applicants moved near the bound of the months
/// since their most recent delinquency (within 0–24 months of 83): the
/// exact engine's waiting advice (one MIP and outer loop, equal) and a short
/// P-DQN's plans never wait past the applicant's longest wait nor carry a
/// refusing feature past its bound.
#[test]
fn heloc_waiting_advice_never_passes_a_refusing_bound() {
    use cfx::schema::PastUpper;
    use cfx::sequential::{RewardKind, RewardParams, train};
    let Some(h) = heloc_declined(40) else {
        return;
    };
    let s = &h.schema;
    let delq = s.index_of("MSinceMostRecentDelq").unwrap();
    let refusing: Vec<(usize, f64)> = (0..s.n_features())
        .filter(|&i| {
            s.features[i]
                .actionability
                .grows_with_time
                .as_ref()
                .is_some_and(|g| g.past_upper == PastUpper::Refuse)
        })
        .map(|i| match &s.features[i].kind {
            cfx::schema::FeatureKind::Contiguous { upper, .. } => (i, *upper),
            cfx::schema::FeatureKind::Categorical { .. } => unreachable!("contiguous"),
        })
        .collect();
    let near: Vec<Vec<f64>> = h
        .declined
        .iter()
        .enumerate()
        .filter(|(_, r)| r[delq] >= 0.0)
        .map(|(k, r)| {
            let mut r = r.clone();
            r[delq] = 83.0 - (k % 25) as f64;
            r
        })
        .filter(|r| !h.model.accepts(&s.encode(r).unwrap()))
        .collect();
    assert!(near.len() >= 10, "{}", near.len());
    let within = |r: &[f64], row: &[f64], months: u32, what: &str| {
        assert!(
            months <= s.longest_wait(r).unwrap(),
            "{what}: {months} months"
        );
        for &(i, upper) in &refusing {
            assert!(row[i] <= upper, "{what}: {} {}", s.features[i].name, row[i]);
        }
    };
    let (answered, waited) = one_mip_equals_outer_loop(s, &h.model, &near, None, "HELOC near");
    eprintln!(
        "HELOC near the bound: {answered} of {} answered, {waited} wait",
        near.len()
    );
    assert!(answered >= near.len() / 2, "{answered}");
    let mip = Config {
        solver: SolverChoice::Mip,
        ..Config::default()
    };
    let mut limited = 0;
    for r in &near {
        limited += usize::from(s.longest_wait(r).unwrap() < 24);
        if let Some(a) = proven_advice(s, &h.model, r, &mip) {
            within(r, &a.waited, a.months, "exact engine");
            within(r, &a.raw, a.months, "exact engine");
        }
    }
    assert!(limited >= 5, "{limited}");
    let policy = train(
        s,
        &h.model,
        &near,
        RewardKind::Probability,
        RewardParams::default(),
        &short_pdqn(),
        |_| true,
    )
    .unwrap()
    .policy;
    for r in &near {
        let plan = policy.answer(s, &h.model, r).unwrap();
        let months = plan.steps.iter().map(|st| st.months).sum();
        within(r, &plan.final_row, months, "P-DQN");
    }
}

/// The time features `to` moves outside the plausible ranges of the accepted
/// training applicants (their names), as cfx's plausibility check flags them.
fn implausible_time_moves(
    s: &Schema,
    p: &cfx::plausibility::Plausibility,
    from: &[f64],
    to: &[f64],
) -> Vec<String> {
    let time = s.time_features();
    p.assess(s, from, to)
        .unwrap()
        .into_iter()
        .filter(|f| f.implausible && time.contains(&f.feature))
        .map(|f| f.to_string())
        .collect()
}

/// Issue 25: with the advised ranges of the accepted training applicants
/// (`Plausibility::advise_waits_within`), no waiting answer under either
/// preset moves a time feature to where cfx's plausibility check flags it —
/// the exact engine's waiting advice (one MIP and outer loop, equal) and a
/// short P-DQN's plans on the first 40 declined held-out applicants. The
/// ranges bind: without them some HELOC answers wait into flagged values
/// (3 of 40 when written, MSinceOldestTradeOpen 21 → 31 among them), and the advice changes for
/// those applicants. Every answer is still signable advice.
#[test]
fn waits_land_time_features_where_accepted_applicants_are() {
    use cfx::plausibility::Plausibility;
    use cfx::sequential::{RewardKind, RewardParams, train};
    let (gs, gm, mut gd, gtrain) = german();
    gd.truncate(40);
    let mut cases = vec![(
        "German",
        gs.clone(),
        gm,
        gd,
        gtrain.rows.clone(),
        gtrain.labels.clone(),
    )];
    if let Some(h) = heloc_declined(40) {
        cases.push(("HELOC", h.schema, h.model, h.declined, h.rows, h.labels));
    }
    for (what, plain, model, declined, rows, labels) in cases {
        let p = Plausibility::fit(&plain, &rows, &labels).unwrap();
        let s = p.advise_waits_within(&plain).unwrap();
        let (answered, waited) = one_mip_equals_outer_loop(&s, &model, &declined, None, what);
        let (mut flagged_without, mut changed) = (0, 0);
        for raw in &declined {
            let with = proven_advice(&s, &model, raw, &Config::default());
            if let Some(a) = &with {
                check_waiting_advice(&s, &model, raw, a, what);
                let moves = implausible_time_moves(&s, &p, raw, &a.raw);
                assert!(moves.is_empty(), "{what}: {} — {moves:?}", a.describe());
            }
            let without = proven_advice(&plain, &model, raw, &Config::default());
            if let Some(b) = &without {
                if !implausible_time_moves(&plain, &p, raw, &b.raw).is_empty() {
                    flagged_without += 1;
                    assert!(
                        with.as_ref().is_none_or(|a| a.raw != b.raw),
                        "{what}: the ranges left a flagged wait: {}",
                        b.describe()
                    );
                }
            }
            changed += usize::from(with.map(|a| a.raw) != without.map(|b| b.raw));
        }
        let policy = train(
            &s,
            &model,
            &rows,
            RewardKind::Probability,
            RewardParams::default(),
            &short_pdqn(),
            |_| true,
        )
        .unwrap()
        .policy;
        let mut plans_waiting = 0;
        for raw in &declined {
            let plan = policy.answer(&s, &model, raw).unwrap();
            let months: u32 = plan.steps.iter().map(|st| st.months).sum();
            plans_waiting += usize::from(months > 0);
            let moves = implausible_time_moves(&s, &p, raw, &plan.final_row);
            assert!(
                moves.is_empty(),
                "{what}: P-DQN waits {months} months: {moves:?}"
            );
            if plan.violation.is_none() {
                s.check_advice(raw, &plan.final_row, months).unwrap();
            }
        }
        eprintln!(
            "{what}: exact engine {answered} answers ({waited} wait), {changed} changed by the \
             ranges, {flagged_without} flagged without them; P-DQN {plans_waiting} plans wait"
        );
        assert!(
            waited >= 3,
            "{what}: exact engine answers that wait: {waited}"
        );
        if what == "HELOC" {
            assert!(
                flagged_without >= 1,
                "HELOC: flagged without ranges: {flagged_without}"
            );
        }
    }
}

// ------------------------------------------------------------- issue 39

/// A small ReLU network (one hidden layer of 16 units, seed 0) fitted by cfx
/// on the encoded training rows `x`: small, so that the exact engine's
/// repairs stay cheap in a test; the advice layer treats it as any model.
fn small_mlp(x: &[Vec<f64>], labels: &[f64]) -> MlpModel {
    MlpModel::train(
        x,
        labels,
        &MlpTraining {
            hidden: vec![16],
            ..MlpTraining::default()
        },
    )
    .unwrap()
}

/// The first `n` of `rows` the network declines under `schema`.
fn declined_by(schema: &Schema, m: &MlpModel, rows: &[Vec<f64>], n: usize) -> Vec<Vec<f64>> {
    let d: Vec<Vec<f64>> = rows
        .iter()
        .filter(|r| !m.accepts(&schema.encode(r).unwrap()))
        .take(n)
        .cloned()
        .collect();
    assert_eq!(d.len(), n, "the network declines fewer than {n}");
    d
}

/// Issue 39 on German credit with a ReLU network: for the first 12 held-out
/// applicants the network declines, every answer of the exact engine,
/// Wachter, PROBE, CROCO (all 12) and COPA (first 4; its plans come from
/// logistic refits, and are then checked against the network) is accepted
/// by the network's own forward pass or is "no valid advice found" — never
/// declined advice — and keeps the preset (`checked_advice`). The exact
/// engine's own answers need no repair; some method's answer did.
#[test]
fn every_german_answer_is_accepted_or_no_advice_with_an_mlp() {
    let (schema, _, _, train) = german();
    let x = train.encoded();
    let mlp = small_mlp(&x, &train.labels);
    let test = german_credit(&bundled_german_path())
        .unwrap()
        .holdout_split()
        .1;
    let declined = declined_by(&schema, &mlp, &test.rows, 12);
    let (gradient, copa) = every_method_valid_or_none(
        &schema,
        &mlp,
        &x,
        &train.labels,
        &declined,
        4,
        &GERMAN_FIXED,
        assert_signable,
    );
    assert!(
        gradient.repaired + gradient.none + copa.repaired + copa.none > 0,
        "no answer needed the check"
    );
    assert!(gradient.repaired > 0, "{gradient:?}");
    assert!(gradient.valid + gradient.repaired >= 24, "{gradient:?}");
}

/// Issue 39 on HELOC with a ReLU network: the same for the first 12
/// held-out applicants the network declines (COPA on the first 3).
#[test]
fn every_heloc_answer_is_accepted_or_no_advice_with_an_mlp() {
    let Some(h) = heloc_declined(1) else {
        return;
    };
    let mlp = small_mlp(&h.x, &h.labels);
    let d = heloc(&common::shared("heloc.csv").unwrap()).unwrap();
    let test = d.holdout_split().1;
    let declined = declined_by(&h.schema, &mlp, &test.rows, 12);
    let (gradient, copa) = every_method_valid_or_none(
        &h.schema,
        &mlp,
        &h.x,
        &h.labels,
        &declined,
        3,
        &HELOC_FIXED,
        assert_heloc_trades,
    );
    assert!(
        gradient.repaired + gradient.none + copa.repaired + copa.none > 0,
        "no answer needed the check"
    );
    assert!(gradient.valid + gradient.repaired >= 12, "{gradient:?}");
}

/// Issue 39: waiting advice with a ReLU network under the German preset (the
/// outer loop over months, each month's optimum proven by the network's
/// MIP; `coherent::mlp_waiting_tests` holds it against brute force on random
/// instances) for the first 8 applicants the network declines: proven,
/// accepted by the network's forward pass, signable after the wait it names,
/// costing the wait's price plus the moves from the waited row, and never
/// dearer than the best advice without waiting (the exact engine's optimum
/// for the applicant as they are, a month-0 candidate). A P-DQN trained
/// briefly on the network: every plan's final row, checked by the advice
/// layer after its waits, is accepted by the network or "no valid advice
/// found", and a plan that does not wait and is declined is repaired by the
/// exact engine or is no advice.
#[test]
fn waiting_and_pdqn_advice_with_an_mlp_under_the_german_preset() {
    use cfx::sequential::{RewardKind, RewardParams, train};
    let (schema, _, _, tr) = german();
    let mlp = small_mlp(&tr.encoded(), &tr.labels);
    let test = german_credit(&bundled_german_path())
        .unwrap()
        .holdout_split()
        .1;
    let declined = declined_by(&schema, &mlp, &test.rows, 8);
    let (mut answered, mut waited) = (0, 0);
    for raw in &declined {
        let now = cfx::coherent::explain(&schema, &mlp, raw, &Config::default()).unwrap();
        let a = proven_advice(&schema, &mlp, raw, &Config::default());
        let Some(a) = a else {
            assert!(now.counterfactuals.is_empty(), "month 0 had advice");
            continue;
        };
        check_waiting_advice(&schema, &mlp, raw, &a, "MLP waiting advice");
        assert_signable(&schema, raw, &a.raw, a.months, "MLP waiting advice");
        if let Some(cf) = now.counterfactuals.first() {
            assert!(a.cost <= cf.cost + 1e-9, "{} > {}", a.cost, cf.cost);
        }
        answered += 1;
        waited += usize::from(a.months > 0);
    }
    eprintln!("MLP waiting: {answered} of 8 answered, {waited} wait");
    assert!(answered >= 6, "{answered}");
    let policy = train(
        &schema,
        &mlp,
        &tr.rows,
        RewardKind::Probability,
        RewardParams::default(),
        &short_pdqn(),
        |_| true,
    )
    .unwrap()
    .policy;
    let (mut advice, mut none, mut repaired) = (0, 0, 0);
    for raw in &declined {
        let plan = policy.answer(&schema, &mlp, raw).unwrap();
        let months: u32 = plan.steps.iter().map(|st| st.months).sum();
        let c = cfx::advice::check_after_waiting(
            &schema,
            &mlp,
            raw,
            &plan.final_row,
            months,
            Some(&Config::default()),
        )
        .unwrap();
        match (&c.advice, c.outcome) {
            (None, cfx::advice::Outcome::NoAdvice) => none += 1,
            (Some(row), o) => {
                assert!(
                    mlp.score(&schema.encode(row).unwrap()) > cfx::model::logit(0.5),
                    "P-DQN advice declined: {}",
                    c.describe()
                );
                let m = if o == cfx::advice::Outcome::Repaired {
                    assert_eq!(months, 0, "a plan that waits is never repaired");
                    repaired += 1;
                    0
                } else {
                    months
                };
                assert_signable(&schema, raw, row, m, "P-DQN");
                advice += 1;
            }
            (None, o) => panic!("{o:?} without advice"),
        }
    }
    eprintln!("MLP P-DQN: {advice} advice ({repaired} repaired), {none} none");
    assert_eq!(advice + none, declined.len());
}
