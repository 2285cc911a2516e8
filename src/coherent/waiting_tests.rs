//! The outer loop over waits against brute force, for both solvers.

use super::tests::{brute_force, random_factual, random_limited_schema, random_model};
use super::waiting::explain_with_waiting;
use super::*;
use crate::schema::{Feature, TimeGrowth, Waiting};
use rand::{Rng, SeedableRng};
use rand_xoshiro::Xoshiro256PlusPlus;

/// A random limited schema with one or two features that grow with time
/// (integer or real, capped or ending in a special state) and a waiting action.
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

/// min over m of cost·m + (0 if the waited row is accepted, else the brute-force optimum).
fn oracle(
    schema: &Schema,
    model: &crate::model::LinearModel,
    factual: &[f64],
    margin: f64,
) -> Option<(f64, u32)> {
    let w = schema.waiting().unwrap();
    let mut best: Option<(f64, u32)> = None;
    for m in 0..=w.max_months {
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

#[test]
fn waiting_advice_equals_brute_force_over_every_wait_for_both_solvers() {
    for solver in [SolverChoice::Mip, SolverChoice::Separable] {
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(1609);
        let config = Config {
            solver,
            ..Config::default()
        };
        let (mut feasible, mut waited, mut infeasible) = (0, 0, 0);
        for case in 0..250 {
            let schema = random_time_schema(&mut rng);
            let factual = random_factual(&schema, &mut rng);
            let model = random_model(&schema, &factual, &mut rng);
            let expected = oracle(&schema, &model, &factual, config.margin);
            let got = explain_with_waiting(&schema, &model, &factual, &config).unwrap();
            match (expected, got) {
                (Some((best, _)), Some(advice)) => {
                    assert!(
                        (advice.cost - best).abs() < 1e-6,
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
    }
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
        let advice = explain_with_waiting(&schema, &model, &factual, &config).unwrap();
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
