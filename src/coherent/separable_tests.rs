//! The separable solver against its oracles: a hand-solved knapsack, the HiGHS
//! MIP on 10,000 random instances (an independent solver of the same program),
//! and Russell's diversity rounds on both solvers.

use super::random_instances::random_factual;
use super::separable::{Extension, MenuOption, SolveStatus, Workspace};
use super::tests::{check_counterfactual, random_model, random_schema};
use super::*;
use crate::model::LinearModel;
use crate::schema::Feature;
use rand::{Rng, SeedableRng};
use rand_xoshiro::Xoshiro256PlusPlus;

fn point(state: usize, gain: f64, cost: f64) -> MenuOption {
    MenuOption {
        state,
        slot: 0.0,
        gain,
        cost,
        extension: None,
    }
}

/// A multiple-choice knapsack solved by hand (every combination enumerated on
/// paper):
/// * feature 0: stay (gain 0, cost 0); A (6, 3); B (9, 7);
/// * feature 1: stay; C (5, 2); a grid run from (0, 0) of 4 whole steps of (+2, +1.5);
/// * feature 2: stay, extended by a continuous run of 3 units of (+1, +1).
///
/// Need 10: A + C (11) for 5; the next best, A + 2 steps, costs 6.
/// Need 12: A + C + 1 unit for 6 (A + 3 steps 7.5; B + 1 step + 1 unit 9.5).
/// Need 13.5: A + C + 2.5 units for 7.5 (A + 4 steps 9; B + C 9).
/// Need 17: B + C + 3 units or A + 4 steps + 3 units, both 12 (B + 4 steps 13).
/// Need 21: the largest gains sum to 9 + 8 + 3 = 20: no recourse.
#[test]
fn hand_solved_knapsack() {
    let mut ws = Workspace::new();
    ws.clear();
    ws.push_option(point(0, 0.0, 0.0));
    ws.push_option(point(1, 6.0, 3.0));
    ws.push_option(point(2, 9.0, 7.0));
    ws.end_feature();
    ws.push_option(point(0, 0.0, 0.0));
    ws.push_option(point(1, 5.0, 2.0));
    ws.push_option(MenuOption {
        state: 2,
        slot: 0.0,
        gain: 0.0,
        cost: 0.0,
        extension: Some(Extension {
            d_slot: 0.25,
            d_gain: 2.0,
            d_cost: 1.5,
            units: 4.0,
            whole: true,
        }),
    });
    ws.end_feature();
    ws.push_option(MenuOption {
        state: 0,
        slot: 0.0,
        gain: 0.0,
        cost: 0.0,
        extension: Some(Extension {
            d_slot: 0.1,
            d_gain: 1.0,
            d_cost: 1.0,
            units: 3.0,
            whole: false,
        }),
    });
    ws.end_feature();
    let s = ws.solve(10.0);
    assert_eq!(s.status, SolveStatus::Optimal);
    assert!((s.cost - 5.0).abs() < 1e-12, "{s:?}");
    assert_eq!(ws.picks()[0].option, 1);
    assert_eq!(ws.picks()[1].option, 1);
    let s = ws.solve(12.0);
    assert!((s.cost - 6.0).abs() < 1e-12, "{s:?} {:?}", ws.picks());
    assert!((ws.picks()[2].units - 1.0).abs() < 1e-12);
    let s = ws.solve(13.5);
    assert!((s.cost - 7.5).abs() < 1e-12, "{s:?} {:?}", ws.picks());
    let s = ws.solve(17.0);
    assert!((s.cost - 12.0).abs() < 1e-12, "{s:?} {:?}", ws.picks());
    assert_eq!(ws.solve(21.0).status, SolveStatus::Infeasible);
    // A node limit is reported, not guessed around.
    assert_eq!(ws.solve_with_limit(12.0, 1).status, SolveStatus::NodeLimit);
}

/// A random instance: the coherent tests' random schemas (special states,
/// categoricals, integer and step grids, directions, actionable bounds,
/// forbidden transitions, immutables), sometimes two of them side by side, with
/// some distance and model weights zeroed or made equal (ties).
fn random_instance(rng: &mut Xoshiro256PlusPlus, ties: bool) -> (Schema, Vec<f64>, LinearModel) {
    let mut feats = random_schema(rng).features;
    if rng.random_bool(0.5) {
        for mut f in random_schema(rng).features {
            f.name = format!("g{}", f.name);
            feats.push(f);
        }
    }
    for f in feats.iter_mut().filter(|_| ties) {
        if let Some(w) = &mut f.weights {
            match rng.random_range(0..6) {
                0 => w.value = 0.0,
                1 => w.value = 1.0,
                _ => {}
            }
            for s in &mut w.states {
                match rng.random_range(0..8) {
                    0 => *s = 0.0,
                    1 | 2 => *s = 1.0,
                    _ => {}
                }
            }
        }
    }
    let schema = Schema::new(feats).unwrap();
    let factual = random_factual(&schema, rng);
    let m = random_model(&schema, &factual, rng);
    let mut w = m.weights.clone();
    for v in w.iter_mut().filter(|_| ties) {
        match rng.random_range(0..8) {
            0 => *v = 0.0,
            1 => *v = v.round(),
            _ => {}
        }
    }
    let x = schema.encode(&factual).unwrap();
    let s: f64 = w.iter().zip(&x).map(|(a, b)| a * b).sum();
    let bias = logit(m.threshold) - rng.random_range(0.05..3.0) - s;
    let model = LinearModel::new(w, bias, m.threshold).unwrap();
    (schema, factual, model)
}

fn same_cost(a: f64, b: f64) -> bool {
    (a - b).abs() <= 1e-9 * a.abs().max(b.abs()) + 1e-12
}

/// The separable answer `x` and HiGHS's `y` agree: the same cost within 1e-9
/// relative, or HiGHS's answer falls short of the decision `target` (within its
/// feasibility tolerance, 1e-9) and undercuts by no more than 2e-9.
fn answers_agree(x: &Counterfactual, y: &Counterfactual, target: f64) -> bool {
    same_cost(x.cost, y.cost) || (y.score < target && y.cost < x.cost && x.cost - y.cost <= 2e-9)
}

#[test]
fn separable_cost_equals_highs_on_10000_random_instances() {
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(14);
    let mip = Config {
        solver: SolverChoice::Mip,
        ..Config::default()
    };
    let sep = Config {
        solver: SolverChoice::Separable,
        ..Config::default()
    };
    let (mut feasible, mut infeasible, mut positive) = (0, 0, 0);
    let mut worst: f64 = 0.0;
    let mut tolerance_cases = 0;
    for case in 0..10_000 {
        let (schema, factual, model) = random_instance(&mut rng, true);
        let a = explain(&schema, &model, &factual, &sep).unwrap();
        let b = explain(&schema, &model, &factual, &mip).unwrap();
        assert_eq!(a.proved_by, ProvedBy::Separable);
        assert_eq!(b.proved_by, ProvedBy::Highs);
        match (a.counterfactuals.first(), b.counterfactuals.first()) {
            (Some(x), Some(y)) => {
                assert_eq!(a.outcome, Outcome::Optimal);
                check_counterfactual(&schema, &model, &factual, x);
                let rel = (x.cost - y.cost).abs() / x.cost.abs().max(y.cost.abs()).max(1e-300);
                // The separable answer meets the decision target exactly.
                let target = logit(model.threshold) + sep.margin;
                assert!(
                    x.score >= target - 1e-12,
                    "case {case}: {} < {target}",
                    x.score
                );
                // HiGHS meets it within its feasibility tolerance (1e-9): an answer
                // whose score falls short of the target may undercut the exact
                // optimum by that tolerance's worth of cost, never more.
                let highs_used_tolerance =
                    y.score < target && y.cost < x.cost && x.cost - y.cost <= 2e-9;
                if highs_used_tolerance && !same_cost(x.cost, y.cost) {
                    tolerance_cases += 1;
                } else {
                    assert!(
                        same_cost(x.cost, y.cost),
                        "case {case}: separable {} vs HiGHS {}\n{}\n{factual:?}\n{model:?}\n{:?}\n{:?}",
                        x.cost,
                        y.cost,
                        schema.to_json(),
                        x.raw,
                        y.raw
                    );
                    if x.cost.max(y.cost) > 1e-12 {
                        worst = worst.max(rel);
                    }
                }
                feasible += 1;
                if x.cost > 0.0 {
                    positive += 1;
                }
            }
            (None, None) => {
                assert!(matches!(a.outcome, Outcome::Infeasible { .. }));
                assert_eq!(a.outcome, b.outcome, "case {case}: same blocking groups");
                infeasible += 1;
            }
            (x, y) => panic!(
                "case {case}: separable {:?} vs HiGHS {:?} ({:?} / {:?})\n{}\n{factual:?}\n{model:?}",
                x.map(|c| (&c.raw, c.cost)),
                y.map(|c| (&c.raw, c.cost)),
                a.outcome,
                b.outcome,
                schema.to_json()
            ),
        }
    }
    eprintln!(
        "feasible {feasible}, infeasible {infeasible}, worst relative difference {worst:e}, \
         HiGHS within its feasibility tolerance below the target: {tolerance_cases}"
    );
    assert!(
        tolerance_cases * 100 <= feasible,
        "{tolerance_cases} tolerance cases"
    );
    assert!(
        feasible >= 5_000 && positive >= 4_000,
        "{feasible} / {positive}"
    );
    assert!(infeasible >= 100, "infeasible cases: {infeasible}");
}

#[test]
fn russell_rounds_cost_the_same_on_both_solvers() {
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(2020);
    let mut multi = 0;
    for rule in [DiversityRule::Russell, DiversityRule::RussellReferenceCode] {
        for case in 0..300 {
            // Without ties: with several optima the two solvers may pick
            // different ones, and the procedure's next fixes then differ.
            let (schema, factual, model) = random_instance(&mut rng, false);
            let run = |solver| {
                let c = Config {
                    solver,
                    diversity: rule,
                    n_diverse: 4,
                    ..Config::default()
                };
                explain_diverse(&schema, &model, &factual, &c).unwrap()
            };
            let a = run(SolverChoice::Separable);
            let b = run(SolverChoice::Mip);
            let costs =
                |e: &Explanation| e.counterfactuals.iter().map(|c| c.cost).collect::<Vec<_>>();
            let (ca, cb) = (costs(&a), costs(&b));
            assert_eq!(ca.len(), cb.len(), "case {case} {rule:?}: {ca:?} vs {cb:?}");
            let target = logit(model.threshold) + Config::default().margin;
            for (x, y) in a.counterfactuals.iter().zip(&b.counterfactuals) {
                assert!(
                    answers_agree(x, y, target),
                    "case {case} {rule:?}: {ca:?} vs {cb:?}"
                );
            }
            for cf in &a.counterfactuals {
                assert_eq!(cf.proved_by, ProvedBy::Separable);
                check_counterfactual(&schema, &model, &factual, cf);
            }
            if ca.len() > 1 {
                multi += 1;
            }
        }
    }
    assert!(multi >= 100, "only {multi} multi-explanation sets");
}

#[test]
fn the_solver_choice_is_validated_and_serialised() {
    let c = Config::default();
    assert_eq!(c.solver, SolverChoice::Auto);
    let json = serde_json::to_string(&Config {
        solver: SolverChoice::Separable,
        ..c
    })
    .unwrap();
    assert!(json.contains("\"solver\":\"separable\""), "{json}");
    let back: Config = serde_json::from_str(&json).unwrap();
    assert_eq!(back.solver, SolverChoice::Separable);
    // A configuration written before the field existed reads as auto.
    let old = json.replace(",\"solver\":\"separable\"", "");
    assert_eq!(
        serde_json::from_str::<Config>(&old).unwrap().solver,
        SolverChoice::Auto
    );
    let bad = json.replace("\"separable\"", "\"simplex\"");
    assert!(serde_json::from_str::<Config>(&bad).is_err());
    // The separable solver cannot express the distinct-subsets rule's cuts.
    let schema = Schema::new(vec![Feature::contiguous("a", 0.0, 1.0)]).unwrap();
    let model = LinearModel::new(vec![3.0], -2.0, 0.5).unwrap();
    let forced = Config {
        solver: SolverChoice::Separable,
        diversity: DiversityRule::DistinctSubsets,
        ..c
    };
    assert!(matches!(
        explain_diverse(&schema, &model, &[0.0], &forced),
        Err(Error::InvalidArgument(_))
    ));
    // Auto runs the cuts on HiGHS and says so.
    let auto = Config {
        diversity: DiversityRule::DistinctSubsets,
        ..c
    };
    let ex = explain_diverse(&schema, &model, &[0.0], &auto).unwrap();
    assert_eq!(ex.proved_by, ProvedBy::Highs);
    let ex = explain(&schema, &model, &[0.0], &c).unwrap();
    assert_eq!(ex.proved_by, ProvedBy::Separable);
    let v: serde_json::Value = serde_json::to_value(&ex).unwrap();
    assert_eq!(v["proved_by"], "separable");
    assert_eq!(v["counterfactuals"][0]["proved_by"], "separable");
}

#[test]
fn a_node_limit_falls_back_to_highs_under_auto_and_is_reported_when_forced() {
    // An instance whose root relaxation is fractional: the first branch needs a
    // second node.
    let mut a = Feature::contiguous("a", 0.0, 10.0).integer();
    a.weights = Some(crate::schema::FeatureWeights {
        value: 1.0,
        states: vec![],
        anchor: 0.5,
    });
    let b = Feature::categorical("b", &["x", "y", "z"]);
    let schema = Schema::new(vec![a, b]).unwrap();
    // score = 2.05·slot(a) + 0.9·[y] + 1.4·[z] − 1.5
    let model = LinearModel::new(vec![2.05, 0.0, 0.9, 1.4], -1.5, 0.5).unwrap();
    let factual = [3.0, 0.0];
    let exact = explain(&schema, &model, &factual, &Config::default()).unwrap();
    assert_eq!(exact.proved_by, ProvedBy::Separable);
    let limited = |solver| Config {
        solver,
        node_limit: 1,
        ..Config::default()
    };
    let auto = explain(&schema, &model, &factual, &limited(SolverChoice::Auto)).unwrap();
    assert_eq!(auto.proved_by, ProvedBy::Highs);
    assert_eq!(auto.counterfactuals[0].proved_by, ProvedBy::Highs);
    assert!(same_cost(
        auto.counterfactuals[0].cost,
        exact.counterfactuals[0].cost
    ));
    let forced = explain(&schema, &model, &factual, &limited(SolverChoice::Separable)).unwrap();
    assert_eq!(
        forced.outcome,
        Outcome::Unknown {
            raw_status: SEPARABLE_NODE_LIMIT_STATUS
        }
    );
    assert!(forced.counterfactuals.is_empty());
    let zero = Config {
        node_limit: 0,
        ..Config::default()
    };
    assert!(zero.validate().is_err());
}
