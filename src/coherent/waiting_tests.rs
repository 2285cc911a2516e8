//! The outer loop over waits against brute force, for both solvers.

use super::random_instances::random_factual;
use super::tests::{brute_force, random_limited_schema, random_model};
use super::waiting::{WaitingAdvice, WaitingExplanation, explain_with_waiting};
use super::*;
use crate::schema::{Feature, TimeGrowth, Waiting};
use rand::{Rng, SeedableRng};
use rand_xoshiro::Xoshiro256PlusPlus;

/// The advice of an explanation that must be proven (no solve stopped at a
/// limit): the optimum, or `None` when none exists.
fn proven(w: WaitingExplanation) -> Option<WaitingAdvice> {
    assert!(w.is_proven(), "unproven: {:?}", w.unproven);
    w.advice
}

/// Half the features that end in a special state close before their upper
/// bound (`TimeGrowth::ends_after`, a reporting window shorter than the
/// data's range): anywhere in `[0, upper]`, whole or not.
fn random_ends_after(rng: &mut Xoshiro256PlusPlus, ends: bool, upper: f64) -> Option<f64> {
    (ends && rng.random_bool(0.5)).then(|| {
        let t = rng.random_range(0.0..=upper);
        if rng.random_bool(0.5) { t.round() } else { t }
    })
}

/// A random limited schema with one or two features that grow with time
/// (integer or real, capped or ending in a special state, at the upper bound
/// or before it) and a waiting action.
fn random_time_schema(rng: &mut Xoshiro256PlusPlus) -> Schema {
    let mut feats = random_limited_schema(rng).features;
    for t in 0..rng.random_range(1..=2) {
        let upper = rng.random_range(3.0..20.0f64).round();
        let mut f = Feature::contiguous(&format!("t{t}"), 0.0, upper);
        let integer = rng.random_bool(0.5);
        if integer {
            f = f.integer();
        }
        let ends = rng.random_bool(0.4);
        if ends {
            f = f.with_special(-7.0, "aged off");
        }
        let per_month = if integer {
            [1.0, 0.5, 2.0][rng.random_range(0..3)]
        } else {
            rng.random_range(0.3..2.0)
        };
        f = f.grows_with_time(TimeGrowth {
            per_month,
            ends_in: ends.then(|| "aged off".into()),
            ends_after: random_ends_after(rng, ends, upper),
            ..Default::default()
        });
        feats.push(f);
    }
    if rng.random_bool(0.5) {
        // A categorical of duration bands (German credit's employment): it
        // moves up its order only by waiting, a band at a time.
        let mut f = Feature::categorical("tenure", &["none", "long", "short", "mid"]);
        f.actionability.level_order = vec!["short".into(), "mid".into(), "long".into()];
        f = f.grows_with_time(TimeGrowth {
            band_months: [
                ("short".to_string(), rng.random_range(1..=4)),
                ("mid".to_string(), rng.random_range(1..=6)),
            ]
            .into(),
            ..Default::default()
        });
        feats.push(f);
    }
    Schema::new_with_waiting(
        feats,
        Some(Waiting {
            cost_per_month: rng.random_range(0.02..0.6),
            max_months: rng.random_range(1..=12),
        }),
    )
    .unwrap()
}

/// min over the months `months` of cost·m + (0 if the waited row, read from
/// `schema`, is accepted, else the brute-force optimum), and its month.
fn cheapest_over(
    schema: &Schema,
    model: &crate::model::LinearModel,
    factual: &[f64],
    months: impl IntoIterator<Item = u32>,
    margin: f64,
) -> Option<(f64, u32)> {
    let w = schema.waiting().unwrap();
    let mut best: Option<(f64, u32)> = None;
    for m in months {
        let waited = schema.after_waiting(factual, m).unwrap();
        let inner = if model.accepts(&schema.encode(&waited).unwrap()) {
            Some(0.0)
        } else {
            brute_force(schema, model, &waited, margin)
        };
        if let Some(c) = inner {
            let total = c + w.cost_per_month * f64::from(m);
            if best.is_none_or(|(b, _)| total < b - 1e-12) {
                best = Some((total, m));
            }
        }
    }
    best
}

/// min over every month up to the schema's maximum of cost·m + (0 if the
/// waited row is accepted, else the brute-force optimum).
fn oracle(
    schema: &Schema,
    model: &crate::model::LinearModel,
    factual: &[f64],
    margin: f64,
) -> Option<(f64, u32)> {
    cheapest_over(
        schema,
        model,
        factual,
        0..=schema.waiting().unwrap().max_months,
        margin,
    )
}

#[test]
fn waiting_advice_equals_brute_force_over_every_wait_for_both_solvers() {
    for solver in [SolverChoice::Mip, SolverChoice::Separable] {
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(1609);
        let config = Config {
            solver,
            ..Config::default()
        };
        let (mut feasible, mut waited, mut infeasible, mut early) = (0, 0, 0, 0);
        for case in 0..250 {
            let schema = random_time_schema(&mut rng);
            let factual = random_factual(&schema, &mut rng);
            let model = random_model(&schema, &factual, &mut rng);
            let expected = oracle(&schema, &model, &factual, config.margin);
            let got = proven(explain_with_waiting(&schema, &model, &factual, &config).unwrap());
            match (expected, got) {
                (Some((best, _)), Some(advice)) => {
                    assert!(
                        super::tests::same_cost(advice.cost, best),
                        "case {case} ({solver:?}): {} (wait {}) vs brute force {best}\n{}",
                        advice.cost,
                        advice.months,
                        schema.to_json()
                    );
                    schema
                        .check_advice(&factual, &advice.raw, advice.months)
                        .unwrap();
                    assert!(model.accepts(&schema.encode(&advice.raw).unwrap()));
                    let w = schema.waiting().unwrap();
                    let moves = advice.counterfactual.as_ref().map_or(0.0, |c| c.cost);
                    assert!(
                        (advice.cost - w.cost_per_month * f64::from(advice.months) - moves).abs()
                            < 1e-9
                    );
                    assert_eq!(
                        advice.waited,
                        schema.after_waiting(&factual, advice.months).unwrap()
                    );
                    feasible += 1;
                    if advice.months > 0 {
                        waited += 1;
                        if closed_early(&schema, &factual, &advice.waited) {
                            early += 1;
                        }
                    }
                }
                (None, None) => infeasible += 1,
                (e, g) => panic!(
                    "case {case} ({solver:?}): oracle {e:?} vs {:?}\n{}",
                    g.map(|a| (a.cost, a.months)),
                    schema.to_json()
                ),
            }
        }
        assert!(feasible >= 100, "feasible: {feasible}");
        assert!(waited >= 20, "answers that wait: {waited}");
        assert!(infeasible >= 1, "infeasible: {infeasible}");
        assert!(early >= 3, "answers past a window closed early: {early}");
    }
}

/// True when the wait took a time feature whose window closes before its
/// upper bound (`ends_after < U`) from a value into its end state.
fn closed_early(schema: &Schema, factual: &[f64], waited: &[f64]) -> bool {
    schema.time_features().into_iter().any(|i| {
        let f = &schema.features[i];
        let (Some(t), crate::schema::FeatureKind::Contiguous { upper, .. }) = (
            f.actionability
                .grows_with_time
                .as_ref()
                .and_then(|g| g.ends_after),
            &f.kind,
        ) else {
            return false;
        };
        t < *upper && f.state_of(factual[i]).unwrap() == 0 && f.state_of(waited[i]).unwrap() != 0
    })
}

#[test]
fn without_a_waiting_action_the_advice_is_the_plain_optimum() {
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(7);
    let config = Config::default();
    let mut seen = 0;
    for _ in 0..40 {
        let schema = random_limited_schema(&mut rng);
        let factual = random_factual(&schema, &mut rng);
        let model = random_model(&schema, &factual, &mut rng);
        let plain = explain(&schema, &model, &factual, &config).unwrap();
        let advice = proven(explain_with_waiting(&schema, &model, &factual, &config).unwrap());
        match (plain.counterfactuals.first(), advice) {
            (Some(cf), Some(a)) => {
                assert_eq!(a.months, 0);
                assert!((a.cost - cf.cost).abs() < 1e-9);
                seen += 1;
            }
            (None, None) => {}
            (p, a) => panic!("{:?} vs {:?}", p.map(|c| c.cost), a.map(|a| a.cost)),
        }
    }
    assert!(seen >= 10);
}

/// A random limited schema with one to three features that grow with time —
/// real-valued, integer, or on a step grid (so that growth is floored to whole
/// steps, e.g. 1/12 of a year per month), capped at their upper bound or
/// ending in a special state (at the upper bound or at an earlier
/// `ends_after`) — and a waiting action of up to 36 months that
/// is free in about one case in five.
fn random_wide_time_schema(rng: &mut Xoshiro256PlusPlus) -> Schema {
    let mut feats = random_limited_schema(rng).features;
    for t in 0..rng.random_range(1..=3) {
        let grain = [0.0, 1.0, 1.0, 2.0, 3.0, 0.5, 0.25][rng.random_range(0..7)];
        let steps = rng.random_range(4..30) as f64;
        let upper = if grain > 0.0 { grain * steps } else { steps };
        let mut f = Feature::contiguous(&format!("t{t}"), 0.0, upper);
        if grain > 0.0 {
            if grain.fract() == 0.0 {
                f = f.integer();
            }
            if grain != 1.0 {
                if let crate::schema::FeatureKind::Contiguous { step, .. } = &mut f.kind {
                    *step = Some(grain);
                }
            }
        }
        let ends = rng.random_bool(0.4);
        if ends {
            f = f.with_special(-7.0, "aged off");
        }
        let per_month = if grain > 0.0 {
            [1.0, 0.5, 2.0, 1.0 / 12.0, 0.4, grain][rng.random_range(0..6)]
        } else {
            rng.random_range(0.1..2.0)
        };
        f = f.grows_with_time(TimeGrowth {
            per_month,
            ends_in: ends.then(|| "aged off".into()),
            ends_after: random_ends_after(rng, ends, upper),
            ..Default::default()
        });
        feats.push(f);
    }
    let cost_per_month = if rng.random_bool(0.2) {
        0.0
    } else {
        rng.random_range(0.005..0.3)
    };
    Schema::new_with_waiting(
        feats,
        Some(Waiting {
            cost_per_month,
            max_months: rng.random_range(1..=36),
        }),
    )
    .unwrap()
}

/// The one MIP (waiting as an integer variable over breakpoint months) against
/// the outer loop on the separable solver — an independent solver, itself
/// checked against brute force above — on 300 random schemas with time
/// features (floors on integer and step grids, caps, `ends_in` states, free
/// waiting, waits up to 36 months), a third of them with a robustness target:
/// the same feasibility and the same cost within 1e-9 relative (the months
/// may differ where several tie). Each MIP answer is checked on its own too:
/// accepted, within the schema's rules and change limits, its waited row the
/// schema's, its cost the wait's price plus the moves', and its invalidation
/// rate within the target.
#[test]
fn one_mip_with_waiting_as_a_variable_equals_the_outer_loop() {
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(2016);
    let (mut feasible, mut waited, mut free, mut ended, mut early, mut robust, mut infeasible) =
        (0, 0, 0, 0, 0, 0, 0);
    let mut worst = 0.0f64;
    for case in 0..300 {
        let schema = random_wide_time_schema(&mut rng);
        let factual = random_factual(&schema, &mut rng);
        let model = random_model(&schema, &factual, &mut rng);
        let robustness = rng.random_bool(1.0 / 3.0).then(|| Robustness {
            sigma2: rng.random_range(0.001..0.01),
            invalidation_target: rng.random_range(0.1..0.4),
            box_kind: Default::default(),
        });
        let mip = Config {
            solver: SolverChoice::Mip,
            robustness,
            ..Config::default()
        };
        let separable = Config {
            solver: SolverChoice::Separable,
            ..mip
        };
        let one = proven(waiting::one_program(&schema, &model, &factual, &mip).unwrap());
        let outer = proven(waiting::outer_loop(&schema, &model, &factual, &separable).unwrap());
        let ctx = || format!("case {case}\n{}", schema.to_json());
        match (one, outer) {
            (Some(a), Some(b)) => {
                let rel = (a.cost - b.cost).abs() / b.cost.abs().max(1e-300);
                worst = worst.max(if a.cost == b.cost { 0.0 } else { rel });
                assert!(
                    a.cost == b.cost || rel <= 1e-9,
                    "one MIP {} (wait {}) vs outer loop {} (wait {}): {}",
                    a.cost,
                    a.months,
                    b.cost,
                    b.months,
                    ctx()
                );
                assert_eq!(a.proved_by, Some(ProvedBy::Highs));
                let w = schema.waiting().unwrap();
                assert!(a.months <= w.max_months);
                assert_eq!(a.waited, schema.after_waiting(&factual, a.months).unwrap());
                assert_eq!(
                    a.wait_cost,
                    w.cost_per_month * f64::from(a.months),
                    "{}",
                    ctx()
                );
                schema.check_advice(&factual, &a.raw, a.months).unwrap();
                let enc = schema.encode(&a.raw).unwrap();
                assert!(model.accepts(&enc), "{}", ctx());
                let moves = cost(&schema, &a.waited, &a.raw).unwrap();
                assert!((a.cost - a.wait_cost - moves).abs() < 1e-12, "{}", ctx());
                match &a.counterfactual {
                    Some(cf) => {
                        assert_eq!(cf.raw, a.raw);
                        assert!(!cf.changes.is_empty());
                        assert!((cf.cost - moves).abs() < 1e-12);
                    }
                    None => assert_eq!(a.raw, a.waited),
                }
                if let Some(r) = robustness {
                    let gamma = crate::noise::linear_invalidation_rate(
                        &model,
                        &enc,
                        &r.noise(&schema).unwrap(),
                    )
                    .unwrap();
                    assert!(
                        gamma <= r.invalidation_target + 1e-9,
                        "Γ {gamma}: {}",
                        ctx()
                    );
                    robust += 1;
                }
                feasible += 1;
                if a.months > 0 {
                    waited += 1;
                    if w.cost_per_month == 0.0 {
                        free += 1;
                    }
                    let specials = schema.time_features().into_iter().any(|i| {
                        schema.features[i].state_of(a.waited[i]).unwrap() != 0
                            && schema.features[i].state_of(factual[i]).unwrap() == 0
                    });
                    if specials {
                        ended += 1;
                    }
                    if closed_early(&schema, &factual, &a.waited) {
                        early += 1;
                    }
                }
            }
            (None, None) => infeasible += 1,
            (a, b) => panic!(
                "one MIP {:?} vs outer loop {:?}: {}",
                a.map(|a| (a.cost, a.months)),
                b.map(|b| (b.cost, b.months)),
                ctx()
            ),
        }
    }
    eprintln!(
        "one MIP vs outer loop: {feasible} feasible ({waited} wait, {free} free waits, \
         {ended} into an ended state, {early} of them before the upper bound, {robust} robust), \
         {infeasible} infeasible; \
         worst relative difference {worst:e}"
    );
    assert!(feasible >= 150, "feasible: {feasible}");
    assert!(waited >= 30, "answers that wait: {waited}");
    assert!(free >= 3, "free waits: {free}");
    assert!(ended >= 3, "waits into an ended state: {ended}");
    assert!(early >= 3, "waits past a window closed early: {early}");
    assert!(robust >= 40, "robust answers: {robust}");
    assert!(infeasible >= 1, "infeasible: {infeasible}");
}

/// The breakpoint form has one binary per month at which the waited row
/// changes, and no more: on a schema whose only time feature is age in whole
/// years (1/12 of a year per month), 36 months have 4 breakpoints (0, 12, 24, 36).
#[test]
fn the_wait_variable_has_one_binary_per_breakpoint_month() {
    let schema = Schema::new_with_waiting(
        vec![
            Feature::contiguous("amount", 0.0, 10.0),
            Feature::contiguous("age", 18.0, 75.0)
                .integer()
                .grows_with_time(TimeGrowth {
                    per_month: 1.0 / 12.0,
                    ends_in: None,
                    ..Default::default()
                }),
        ],
        Some(Waiting {
            cost_per_month: 0.01,
            max_months: 36,
        }),
    )
    .unwrap();
    let model = crate::model::LinearModel::new(vec![1.0, 2.0], -3.0, 0.5).unwrap();
    let factual = [1.0, 30.0];
    let (scoring, _) = prepare(&schema, &model, &factual, &Config::default()).unwrap();
    let mut prog = program::Program::build(&schema, scoring, &factual, 1e-6).unwrap();
    waiting::add_wait_variable(&mut prog, &schema, scoring, &factual).unwrap();
    let w = prog.wait.as_ref().unwrap();
    assert_eq!(
        w.breakpoints.iter().map(|b| b.0).collect::<Vec<_>>(),
        [0, 12, 24, 36]
    );
    // Each year of age adds 2/57 to the score (slot of 75 − 18 = 57 years).
    let row = prog.decision_row;
    let entries: Vec<(usize, f64)> = (prog.mip.row_start[row]
        ..prog
            .mip
            .row_start
            .get(row + 1)
            .copied()
            .unwrap_or(prog.mip.row_index.len()))
        .map(|e| (prog.mip.row_index[e], prog.mip.row_value[e]))
        .collect();
    for (b, &(_, z)) in w.breakpoints.iter().enumerate().skip(1) {
        let (_, d) = entries.iter().find(|(c, _)| *c == z).unwrap();
        assert!((d - 2.0 * b as f64 / 57.0).abs() < 1e-12, "{d}");
    }
}

/// Income 0..100 in whole units and months 0..10 growing one a month, waiting
/// at `price` a month for up to 10 months; the model `4·slot(income) +
/// months_weight·slot(months) − 3` declines income 20 at month 0. The income
/// a month needs (`75 − 2.5·months_weight·m`, plus the margin) is never a
/// whole number at the root relaxation of the separable solver, so a node
/// limit of 1 stops every month's solve. With `months_weight` 3 waiting alone
/// is accepted from month 8 on (0.8 + 0.3·8 > 3).
fn limited_case(price: f64, months_weight: f64) -> (Schema, crate::model::LinearModel) {
    let schema = Schema::new_with_waiting(
        vec![
            Feature::contiguous("income", 0.0, 100.0).integer(),
            Feature::contiguous("months", 0.0, 10.0)
                .integer()
                .grows_with_time(TimeGrowth {
                    per_month: 1.0,
                    ends_in: None,
                    ..Default::default()
                }),
        ],
        Some(Waiting {
            cost_per_month: price,
            max_months: 10,
        }),
    )
    .unwrap();
    let model = crate::model::LinearModel::new(vec![4.0, months_weight], -3.0, 0.5).unwrap();
    (schema, model)
}

const LIMITED_APPLICANT: [f64; 2] = [20.0, 0.0];

/// The outer loop with the separable solver's node limit (raw status −3, a
/// deterministic limit) reports what it could not prove instead of skipping
/// the months: no advice found and none proven impossible, or the best advice
/// found (waiting alone) marked unproven. Without the limit both are proven.
#[test]
fn the_outer_loop_at_the_node_limit_reports_unproven_advice() {
    let limited = Config {
        solver: SolverChoice::Separable,
        node_limit: 1,
        ..Config::default()
    };
    let full = Config {
        node_limit: Config::default().node_limit,
        ..limited
    };
    let node_limit = Some(Outcome::Unknown {
        raw_status: SEPARABLE_NODE_LIMIT_STATUS,
    });

    // Waiting alone is never accepted: every month stops at the limit.
    let (schema, model) = limited_case(0.001, 1.0);
    let w = explain_with_waiting(&schema, &model, &LIMITED_APPLICANT, &limited).unwrap();
    assert_eq!(w.advice, None);
    assert_eq!(w.unproven, node_limit);
    assert!(!w.is_proven());
    assert!(
        w.describe().starts_with(
            "no advice found, and none proven impossible: the separable solver's node limit"
        ),
        "{}",
        w.describe()
    );
    let proven = explain_with_waiting(&schema, &model, &LIMITED_APPLICANT, &full).unwrap();
    assert!(proven.is_proven());
    assert_eq!(proven.advice.unwrap().months, 10);

    // Waiting 8 months alone is accepted: the best advice found, unproven
    // (months 0..7 stopped at the limit and might hold cheaper moves).
    let (schema, model) = limited_case(0.001, 3.0);
    let w = explain_with_waiting(&schema, &model, &LIMITED_APPLICANT, &limited).unwrap();
    let a = w.advice.as_ref().unwrap();
    assert_eq!((a.months, a.counterfactual.as_ref()), (8, None));
    assert_eq!(a.cost, 0.001 * 8.0);
    assert_eq!(w.unproven, node_limit);
    assert!(
        w.describe().starts_with("wait 8 months"),
        "{}",
        w.describe()
    );
    assert!(
        w.describe()
            .ends_with("(not proven optimal: the separable solver's node limit stopped a solve)")
    );
    let proven = explain_with_waiting(&schema, &model, &LIMITED_APPLICANT, &full).unwrap();
    assert!(proven.is_proven());
    assert_eq!(
        proven.advice.as_ref(),
        Some(a),
        "waiting alone is also the optimum"
    );
    assert!(
        proven.describe().starts_with("wait 8 months") && !proven.describe().contains("proven")
    );
}

/// On the outer loop a month whose solve stopped at a time limit with an
/// answer gives that answer as a candidate, marked unproven: here the
/// separable solver's node limit sends the month to HiGHS (`Auto`), whose
/// answer the test hook reports as stopped by the time limit.
#[test]
fn the_outer_loop_keeps_a_time_limited_answer_unproven() {
    let (schema, model) = limited_case(0.5, 1.0); // waiting never pays
    let auto = Config {
        node_limit: 1,
        ..Config::default()
    };
    let optimum = explain_with_waiting(&schema, &model, &LIMITED_APPLICANT, &auto).unwrap();
    assert!(optimum.is_proven(), "{:?}", optimum.unproven);
    let best = optimum.advice.unwrap();
    assert_eq!(best.months, 0);
    assert_eq!(best.proved_by, Some(ProvedBy::Highs));

    let time_limit = MipStatus::TimeLimit;
    tests::force(vec![Some(tests::Forced::Incumbent(time_limit))]);
    let w = explain_with_waiting(&schema, &model, &LIMITED_APPLICANT, &auto);
    tests::force(vec![]);
    let w = w.unwrap();
    let stopped = Outcome::TimeLimit { has_solution: true };
    assert_eq!(w.unproven, Some(stopped.clone()));
    let a = w.advice.unwrap();
    assert_eq!((a.months, &a.raw, a.cost), (0, &best.raw, best.cost));
    assert_eq!(a.counterfactual.unwrap().status, stopped);
}

/// The one MIP: an answer HiGHS returns at a time limit (outcome `TimeLimit`
/// with a solution, the answer's own certificate) is kept and marked
/// unproven; a stop without an answer is "no advice found, none proven
/// impossible" — or waiting alone, unproven, when it is accepted — and not
/// an error; a proof of infeasibility stays proven.
#[test]
fn the_one_mip_at_a_limit_reports_unproven_advice() {
    let mip = Config {
        solver: SolverChoice::Mip,
        ..Config::default()
    };
    let run =
        |schema: &Schema, model: &crate::model::LinearModel, script: Option<tests::Forced>| {
            tests::force(vec![script]);
            let w = explain_with_waiting(schema, model, &LIMITED_APPLICANT, &mip);
            tests::force(vec![]);
            w.unwrap()
        };
    let with_answer = Outcome::TimeLimit { has_solution: true };
    let without = Outcome::TimeLimit {
        has_solution: false,
    };

    let (schema, model) = limited_case(0.001, 1.0);
    let optimum = run(&schema, &model, None);
    assert!(optimum.is_proven());
    let best = optimum.advice.unwrap();
    assert_eq!(best.months, 10);
    let w = run(
        &schema,
        &model,
        Some(tests::Forced::Incumbent(MipStatus::TimeLimit)),
    );
    assert_eq!(w.unproven, Some(with_answer.clone()));
    let a = w.advice.as_ref().unwrap();
    assert_eq!((a.months, &a.raw, a.cost), (10, &best.raw, best.cost));
    assert_eq!(a.counterfactual.as_ref().unwrap().status, with_answer);
    assert!(w.describe().ends_with(
        "(not proven optimal: the time limit stopped a solve before its answer was proven cheapest)"
    ));
    let w = run(
        &schema,
        &model,
        Some(tests::Forced::NoSolution(MipStatus::TimeLimit)),
    );
    assert_eq!((w.advice, w.unproven), (None, Some(without.clone())));
    let w = run(
        &schema,
        &model,
        Some(tests::Forced::NoSolution(MipStatus::OtherLimit(14))),
    );
    assert_eq!(
        (w.advice, w.unproven),
        (None, Some(Outcome::Unknown { raw_status: 14 }))
    );
    let w = run(
        &schema,
        &model,
        Some(tests::Forced::NoSolution(MipStatus::Infeasible)),
    );
    assert_eq!((w.advice, w.unproven), (None, None));

    // Waiting alone is accepted from month 8: with no answer from the MIP it
    // is the best advice found, unproven; with a proof of infeasibility (of
    // moves over the months before), the optimum.
    let (schema, model) = limited_case(0.001, 3.0);
    let optimum = run(&schema, &model, None);
    assert!(optimum.is_proven());
    let alone = optimum.advice.unwrap();
    assert_eq!((alone.months, alone.counterfactual.as_ref()), (8, None));
    let w = run(
        &schema,
        &model,
        Some(tests::Forced::NoSolution(MipStatus::TimeLimit)),
    );
    assert_eq!(
        (w.advice.as_ref(), w.unproven),
        (Some(&alone), Some(without))
    );
    let w = run(
        &schema,
        &model,
        Some(tests::Forced::Incumbent(MipStatus::TimeLimit)),
    );
    assert_eq!(
        (w.advice.as_ref(), w.unproven),
        (Some(&alone), Some(with_answer))
    );
    let w = run(
        &schema,
        &model,
        Some(tests::Forced::NoSolution(MipStatus::Infeasible)),
    );
    assert_eq!((w.advice.as_ref(), w.unproven), (Some(&alone), None));
}

/// `schema` with, in about two cases of three, each contiguous time feature
/// that enters no end state refusing to pass its upper bound
/// (`past_upper: refuse`); the features that refuse.
fn refusing_variant(rng: &mut Xoshiro256PlusPlus, schema: &Schema) -> (Schema, Vec<usize>) {
    let mut feats = schema.features.clone();
    let mut refused = Vec::new();
    for (i, f) in feats.iter_mut().enumerate() {
        let contiguous = f.is_contiguous();
        if let Some(g) = &mut f.actionability.grows_with_time {
            if contiguous && g.ends_in.is_none() && rng.random_bool(2.0 / 3.0) {
                g.past_upper = crate::schema::PastUpper::Refuse;
                refused.push(i);
            }
        }
    }
    let s = Schema::new_with_waiting(feats, schema.waiting()).unwrap();
    (s, refused)
}

/// `schema` with the upper bounds of `features` raised far out of reach of
/// any wait (on their grids): its waits grow those values as they truly
/// would, neither capped nor refused.
fn widened(schema: &Schema, features: &[usize]) -> Schema {
    let mut feats = schema.features.clone();
    for &i in features {
        if let crate::schema::FeatureKind::Contiguous { upper, step, .. } = &mut feats[i].kind {
            *upper += 1000.0 * step.unwrap_or(1.0);
        }
    }
    Schema::new_with_waiting(feats, schema.waiting()).unwrap()
}

/// The upper bound of contiguous feature `i`.
fn upper_of(schema: &Schema, i: usize) -> f64 {
    match &schema.features[i].kind {
        crate::schema::FeatureKind::Contiguous { upper, .. } => *upper,
        crate::schema::FeatureKind::Categorical { .. } => unreachable!("contiguous"),
    }
}

/// The optimum when waits past an upper bound are refused, by enumeration
/// apart from the code under test: every month up to the schema's maximum
/// whose truly grown values ([`widened`]) stay within the refusing features'
/// bounds, its waited row read from the capping schema (the same row
/// there), priced with brute force on that schema; and the months allowed.
fn refusing_oracle(
    capped: &Schema,
    refused: &[usize],
    model: &crate::model::LinearModel,
    factual: &[f64],
    margin: f64,
) -> (Option<(f64, u32)>, Vec<u32>) {
    let wide = widened(capped, refused);
    let allowed: Vec<u32> = (0..=capped.waiting().unwrap().max_months)
        .filter(|&m| {
            let grown = wide.after_waiting(factual, m).unwrap();
            refused
                .iter()
                .all(|&i| grown[i] <= upper_of(capped, i) + crate::schema::COHERENCE_TOL)
        })
        .collect();
    let best = cheapest_over(capped, model, factual, allowed.iter().copied(), margin);
    (best, allowed)
}

/// Waiting that refuses to carry a feature past its upper bound, on both
/// exact paths (the one MIP's months and breakpoints, the outer loop over
/// months), against the cheapest advice over every allowed wait enumerated
/// apart ([`refusing_oracle`]): the same cost; the months within
/// [`Schema::longest_wait`], which is the last allowed month (the allowed
/// months are `0..=` it); no refusing feature past its bound; the advice
/// allowed by `check_advice`. The oracle differs from the capping schema's
/// optimum in enough cases that the limit is seen to bind.
#[test]
fn waiting_that_refuses_past_the_upper_bound_equals_enumeration_of_the_allowed_waits() {
    for solver in [SolverChoice::Mip, SolverChoice::Separable] {
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(2025);
        let config = Config {
            solver,
            ..Config::default()
        };
        let (mut feasible, mut waited, mut limited, mut binding, mut infeasible) = (0, 0, 0, 0, 0);
        for case in 0..600 {
            let capped = random_time_schema(&mut rng);
            let (schema, refused) = refusing_variant(&mut rng, &capped);
            let factual = random_factual(&schema, &mut rng);
            let model = random_model(&schema, &factual, &mut rng);
            let (expected, allowed) =
                refusing_oracle(&capped, &refused, &model, &factual, config.margin);
            let longest = schema.longest_wait(&factual).unwrap();
            let max = schema.waiting().unwrap().max_months;
            assert_eq!(allowed, (0..=longest).collect::<Vec<_>>(), "case {case}");
            if longest < max {
                limited += 1;
                let cap = oracle(&capped, &model, &factual, config.margin);
                let differ = match (expected, cap) {
                    (Some((a, _)), Some((b, _))) => (a - b).abs() > 1e-9,
                    (a, b) => a.is_some() != b.is_some(),
                };
                binding += usize::from(differ);
            }
            let got = proven(explain_with_waiting(&schema, &model, &factual, &config).unwrap());
            let ctx = || format!("case {case} ({solver:?})\n{}", schema.to_json());
            match (expected, got) {
                (Some((best, _)), Some(advice)) => {
                    assert!(
                        super::tests::same_cost(advice.cost, best),
                        "{} (wait {}) vs enumeration {best}: {}",
                        advice.cost,
                        advice.months,
                        ctx()
                    );
                    assert!(advice.months <= longest, "{}", ctx());
                    for &i in &refused {
                        assert!(advice.waited[i] <= upper_of(&schema, i) + 1e-9, "{}", ctx());
                    }
                    assert_eq!(
                        advice.waited,
                        capped.after_waiting(&factual, advice.months).unwrap()
                    );
                    schema
                        .check_advice(&factual, &advice.raw, advice.months)
                        .unwrap();
                    assert!(model.accepts(&schema.encode(&advice.raw).unwrap()));
                    feasible += 1;
                    waited += usize::from(advice.months > 0);
                }
                (None, None) => infeasible += 1,
                (e, g) => panic!(
                    "enumeration {e:?} vs {:?}: {}",
                    g.map(|a| (a.cost, a.months)),
                    ctx()
                ),
            }
        }
        eprintln!(
            "refusing waits ({solver:?}): {feasible} feasible ({waited} wait), {limited} \
             applicants with a shortened wait ({binding} whose optimum it changes), \
             {infeasible} infeasible"
        );
        assert!(feasible >= 250, "feasible: {feasible}");
        assert!(waited >= 60, "answers that wait: {waited}");
        assert!(limited >= 100, "shortened waits: {limited}");
        assert!(binding >= 10, "optima the refusal changes: {binding}");
        assert!(infeasible >= 1, "infeasible: {infeasible}");
    }
}

/// `schema` with a random advised range on about two in three of its
/// contiguous time features (anywhere in `[0, U]`, so that an applicant may
/// lie below, inside or above it), and those features.
fn advised_variant(rng: &mut Xoshiro256PlusPlus, schema: &Schema) -> (Schema, Vec<usize>) {
    let mut s = schema.clone();
    let mut ranged = Vec::new();
    for i in schema.time_features() {
        if !schema.features[i].is_contiguous() || !rng.random_bool(0.67) {
            continue;
        }
        let upper = upper_of(schema, i);
        let low = rng.random_range(0.0..=0.7 * upper);
        let high = rng.random_range(low..=upper);
        s = s.with_advised_range(i, Some((low, high))).unwrap();
        ranged.push(i);
    }
    (s, ranged)
}

/// The optimum when waits must leave each ranged time feature unchanged, in
/// a special state or inside its advised range, by enumeration apart from
/// the code under test: every month up to the schema's maximum, its waited
/// row read from the schema without ranges (`plain`, the same growth), kept
/// when that row passes the rule as written here, priced with brute force;
/// and the months kept.
fn advised_oracle(
    plain: &Schema,
    ranged: &Schema,
    features: &[usize],
    model: &crate::model::LinearModel,
    factual: &[f64],
    margin: f64,
) -> (Option<(f64, u32)>, Vec<u32>) {
    let tol = crate::schema::COHERENCE_TOL;
    let kept: Vec<u32> = (0..=plain.waiting().unwrap().max_months)
        .filter(|&m| {
            let waited = plain.after_waiting(factual, m).unwrap();
            features.iter().all(|&i| {
                let g = ranged.features[i].actionability.grows_with_time.as_ref();
                let (low, high) = g.and_then(|g| g.advised_range).unwrap();
                (waited[i] - factual[i]).abs() <= tol
                    || plain.features[i].state_of(waited[i]).unwrap() != 0
                    || (low - tol..=high + tol).contains(&waited[i])
            })
        })
        .collect();
    let best = cheapest_over(plain, model, factual, kept.iter().copied(), margin);
    (best, kept)
}

/// Waits limited to the time features' advised ranges
/// ([`crate::schema::TimeGrowth::advised_range`]), on both exact paths (the
/// one MIP's breakpoints, the outer loop), against the cheapest advice over
/// the months enumerated apart ([`advised_oracle`]): the same cost, every
/// wait advised among those months, the advice allowed by `check_advice`;
/// [`Schema::advisable_waits`] equals the months enumerated. Enough cases
/// have a gap ("now, or from month k") and enough optima differ from the
/// schema without ranges that the ranges are seen to bind.
#[test]
fn waiting_within_advised_ranges_equals_enumeration_of_the_advisable_waits() {
    for solver in [SolverChoice::Mip, SolverChoice::Separable] {
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(2512);
        let config = Config {
            solver,
            ..Config::default()
        };
        let (mut feasible, mut waited, mut gaps, mut binding, mut infeasible) = (0, 0, 0, 0, 0);
        for case in 0..500 {
            let plain = random_time_schema(&mut rng);
            let (schema, ranged) = advised_variant(&mut rng, &plain);
            let factual = random_factual(&schema, &mut rng);
            let model = random_model(&schema, &factual, &mut rng);
            let (expected, kept) =
                advised_oracle(&plain, &schema, &ranged, &model, &factual, config.margin);
            let ctx = || format!("case {case} ({solver:?})\n{}", schema.to_json());
            assert_eq!(schema.advisable_waits(&factual).unwrap(), kept, "{}", ctx());
            if kept.windows(2).any(|p| p[1] > p[0] + 1) {
                gaps += 1;
            }
            let unranged = oracle(&plain, &model, &factual, config.margin);
            binding += usize::from(match (expected, unranged) {
                (Some((a, _)), Some((b, _))) => (a - b).abs() > 1e-9,
                (a, b) => a.is_some() != b.is_some(),
            });
            let got = proven(explain_with_waiting(&schema, &model, &factual, &config).unwrap());
            match (expected, got) {
                (Some((best, _)), Some(advice)) => {
                    assert!(
                        super::tests::same_cost(advice.cost, best),
                        "{} (wait {}) vs enumeration {best}: {}",
                        advice.cost,
                        advice.months,
                        ctx()
                    );
                    assert!(kept.contains(&advice.months), "{}", ctx());
                    schema
                        .check_advice(&factual, &advice.raw, advice.months)
                        .unwrap();
                    assert!(model.accepts(&schema.encode(&advice.raw).unwrap()));
                    feasible += 1;
                    waited += usize::from(advice.months > 0);
                }
                (None, None) => infeasible += 1,
                (e, g) => panic!(
                    "enumeration {e:?} vs {:?}: {}",
                    g.map(|a| (a.cost, a.months)),
                    ctx()
                ),
            }
        }
        eprintln!(
            "advised ranges ({solver:?}): {feasible} feasible ({waited} wait), {gaps} with a \
             gap in the advisable waits, {binding} optima the ranges change, {infeasible} infeasible"
        );
        assert!(feasible >= 200, "feasible: {feasible}");
        assert!(waited >= 40, "answers that wait: {waited}");
        assert!(gaps >= 20, "gaps: {gaps}");
        assert!(binding >= 20, "optima the ranges change: {binding}");
        assert!(infeasible >= 1, "infeasible: {infeasible}");
    }
}
