//! Robust advice on tree ensembles over the values an applicant can reach
//! ([`BoxKind::ReachableValues`]) against brute force.
//!
//! The oracle shares nothing with the search but the cell gap, the node
//! array, the normal quantile and the half-widths (`oracle_half`): its own
//! landing of a slip (`oracle_land`: clipped to the schema's range, rounded
//! to the nearest whole number or `L + k·step` inside it, written again from
//! the schema rather than the ensemble's inputs), its own reachable sets
//! (every grid value from the landing of `x − δ` to that of `x + δ`, listed
//! one by one; a real-valued feature, only clipped, is the interval between
//! its landed ends), its own reach of a test (`oracle_worst_reachable`: a
//! side is reached when one of the reachable values goes there — not the
//! interval trick of `tree_box`), and `Schema::check_actionable` and `cost`.
//! With the reals' oracle (`tree_box_tests`) it shares what does not depend
//! on the box: each test's rule written out again, the walk to each tree's
//! least reached leaf and the library's sum of them, and the enumeration of
//! candidate rows (every grid point; on a real-valued feature a point per
//! interval between thresholds and thresholds shifted by ± the half-width).

use super::random_trees::{candidates, independent_margin, random_tree_case, same_cost};
use super::tree_box_tests::{
    cheapest_by_enumeration, oracle_goes_left, oracle_half, oracle_least_leaves, stump,
};
use crate::coherent::{BoxKind, Config, Explanation, Outcome, ProvedBy, Robustness, explain};
use crate::model::trees::{FeatureInput, Node, Source, Test};
use crate::model::{Model, TreeEnsemble, logit};
use crate::noise::{normal_cdf, normal_quantile};
use crate::schema::{FeatureKind, Schema};
use rand::{Rng, SeedableRng};
use rand_xoshiro::Xoshiro256PlusPlus;

/// Where a slip of contiguous feature `i` to raw `u` lands: clipped to the
/// range, then the nearest point of the data's grid inside it (ties away
/// from the grid's origin).
fn oracle_land(schema: &Schema, i: usize, u: f64) -> f64 {
    let FeatureKind::Contiguous {
        lower,
        upper,
        integer,
        step,
        ..
    } = &schema.features[i].kind
    else {
        panic!("feature {i} is not contiguous");
    };
    let c = u.max(*lower).min(*upper);
    let (base, g) = match (step, integer) {
        (Some(s), _) => (*lower, *s),
        (None, true) => (0.0, 1.0),
        (None, false) => return c,
    };
    let first = base + ((lower - base) / g - 1e-9).ceil() * g;
    let last = base + ((upper - base) / g + 1e-9).floor() * g;
    (base + ((c - base) / g).round() * g).max(first).min(last)
}

/// What the trees may see of feature `i` of a raw row after any slip of at
/// most `half[i]`: every reachable grid value, listed; or, for a real-valued
/// feature, the interval between its landed ends; else the fixed value (a
/// special state's code, NaN when declared missing, or a level).
enum Seen {
    Values(Vec<f64>),
    Interval(f64, f64),
}

fn seen_reachable(
    schema: &Schema,
    ens: &TreeEnsemble,
    half: &[f64],
    raw: &[f64],
    i: usize,
) -> Seen {
    let f = &schema.features[i];
    if f.is_contiguous() && f.state_of(raw[i]).unwrap() == 0 && half[i] > 0.0 {
        let lo = oracle_land(schema, i, raw[i] - half[i]);
        let hi = oracle_land(schema, i, raw[i] + half[i]);
        let FeatureKind::Contiguous { integer, step, .. } = &f.kind else {
            unreachable!()
        };
        let g = match (step, integer) {
            (Some(s), _) => *s,
            (None, true) => 1.0,
            (None, false) => return Seen::Interval(lo, hi),
        };
        let n = ((hi - lo) / g).round() as i64;
        return Seen::Values((0..=n).map(|j| lo + j as f64 * g).collect());
    }
    let v = match &ens.inputs()[i] {
        FeatureInput::Value { specials, .. } => match specials.iter().find(|s| s.code == raw[i]) {
            Some(s) if s.as_missing => f64::NAN,
            _ => raw[i],
        },
        FeatureInput::Levels { .. } => raw[i],
    };
    Seen::Values(vec![v])
}

/// Each tree's least leaf over the values reachable from the raw row, summed
/// as the library sums: a side of a test is reached when one of the
/// reachable values goes there, each walked by the test's rule; on a
/// real-valued feature (all its tests are `x ≤ t`) the low end goes left
/// when any does, the high end right when any does.
fn oracle_worst_reachable(schema: &Schema, ens: &TreeEnsemble, half: &[f64], raw: &[f64]) -> f64 {
    let seen: Vec<Seen> = (0..schema.n_features())
        .map(|i| seen_reachable(schema, ens, half, raw, i))
        .collect();
    oracle_least_leaves(ens, &|n| match &seen[n.feature as usize] {
        Seen::Values(vs) => (
            vs.iter().any(|&v| oracle_goes_left(ens, n, v)),
            vs.iter().any(|&v| !oracle_goes_left(ens, n, v)),
        ),
        Seen::Interval(a, b) => (oracle_goes_left(ens, n, *a), !oracle_goes_left(ens, n, *b)),
    })
}

/// The cheapest row all of whose reachable values clear `need`, by
/// enumeration of every candidate row.
fn brute_force_reachable(
    schema: &Schema,
    ens: &TreeEnsemble,
    factual: &[f64],
    half: &[f64],
    need: f64,
) -> Option<f64> {
    cheapest_by_enumeration(schema, ens, factual, half, &|row| {
        oracle_worst_reachable(schema, ens, half, row) >= need
    })
}

/// Robust advice under `r`'s slips over the box `box_kind`, the other
/// settings the defaults.
fn explain_over(
    schema: &Schema,
    ens: &TreeEnsemble,
    factual: &[f64],
    r: Robustness,
    box_kind: BoxKind,
) -> Explanation {
    let config = Config {
        robustness: Some(Robustness { box_kind, ..r }),
        ..Config::default()
    };
    explain(schema, ens, factual, &config).unwrap()
}

fn reachable(sigma2: f64, invalidation_target: f64) -> Robustness {
    Robustness {
        sigma2,
        invalidation_target,
        box_kind: BoxKind::ReachableValues,
    }
}

#[test]
fn reachable_robust_tree_optima_equal_brute_force_on_random_small_ensembles() {
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(4347);
    let (mut feasible, mut infeasible) = (0, 0);
    let (mut cheaper, mut dearer, mut only_reachable) = (0, 0, 0);
    for case in 0..300 {
        let (schema, factual, ens) =
            random_tree_case(&mut rng, case, [Source::Xgboost, Source::Lightgbm]);
        let r = reachable([0.0004, 0.0025, 0.01][case % 3], 0.2);
        let half = oracle_half(&schema, &r);
        let config = Config {
            robustness: Some(r),
            ..Config::default()
        };
        let need = logit(ens.threshold()) + config.margin;
        let oracle = brute_force_reachable(&schema, &ens, &factual, &half, need);
        let ex = explain(&schema, &ens, &factual, &config).unwrap();
        assert_eq!(ex.proved_by, ProvedBy::TreeSearch);
        let reals = explain_over(&schema, &ens, &factual, r, BoxKind::Reals);
        match (oracle, ex.counterfactuals.first()) {
            (Some(best), Some(cf)) => {
                assert_eq!(ex.outcome, Outcome::Optimal, "case {case}");
                assert!(
                    same_cost(cf.cost, best),
                    "case {case}: {} vs brute force {best}\n{}\n{factual:?}\n{:?}\nhalf {half:?}",
                    cf.cost,
                    schema.to_json(),
                    cf.raw
                );
                schema.check_actionable(&factual, &cf.raw).unwrap();
                // Every reachable value accepted: by the oracle's walker, and
                // at random clip-and-round slips by the oracle's plain
                // evaluator.
                let thr = logit(ens.threshold());
                assert!(oracle_worst_reachable(&schema, &ens, &half, &cf.raw) > thr);
                for _ in 0..50 {
                    let mut y = cf.raw.clone();
                    for (i, f) in schema.features.iter().enumerate() {
                        if half[i] > 0.0 && f.is_contiguous() && f.state_of(y[i]).unwrap() == 0 {
                            let e = rng.random_range(-half[i]..=half[i]);
                            y[i] = oracle_land(&schema, i, y[i] + e);
                        }
                    }
                    assert!(independent_margin(&ens, &y) > thr, "case {case}: {y:?}");
                }
                // Γ ≤ γ under clip-and-round slips: Γ̃ within four standard
                // errors.
                let g = cf.invalidation_rate.expect("a robust answer reports Γ̃");
                let se = (0.2 * 0.8 / super::tree_box::GAMMA_SAMPLES as f64).sqrt();
                assert!(g <= 0.2 + 4.0 * se, "case {case}: Γ̃ = {g}");
                match reals.counterfactuals.first() {
                    Some(rc) if same_cost(rc.cost, cf.cost) => {}
                    Some(rc) if rc.cost > cf.cost => cheaper += 1,
                    Some(_) => dearer += 1,
                    None => only_reachable += 1,
                }
                feasible += 1;
            }
            (None, None) => {
                assert!(
                    matches!(ex.outcome, Outcome::Infeasible { .. }),
                    "case {case}: {:?}",
                    ex.outcome
                );
                infeasible += 1;
            }
            (o, c) => panic!(
                "case {case}: oracle {o:?} vs search {:?} ({:?})\n{}\n{factual:?}\nhalf {half:?}",
                c.map(|c| (&c.raw, c.cost)),
                ex.outcome,
                schema.to_json()
            ),
        }
    }
    eprintln!(
        "reachable-value robust trees vs brute force: {feasible} feasible ({cheaper} cheaper \
         than over the reals, {dearer} dearer, {only_reachable} with no answer over the reals), \
         {infeasible} infeasible"
    );
    assert!(feasible >= 150, "feasible cases: {feasible}");
    assert!(infeasible >= 10, "infeasible cases: {infeasible}");
    assert!(
        cheaper + only_reachable >= 10,
        "cases where reachable values are cheaper: {cheaper} + {only_reachable}"
    );
}

#[test]
fn reachable_worst_case_score_equals_the_oracle_walker_at_random_rows() {
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(78);
    let mut differ = 0;
    for case in 0..200 {
        let (schema, factual, ens) =
            random_tree_case(&mut rng, case, [Source::Xgboost, Source::Lightgbm]);
        let half: Vec<f64> = (0..schema.n_features())
            .map(|_| [0.0, 0.25, 0.5, 1.0, 1.5][rng.random_range(0..5)])
            .collect();
        let b = super::tree_box::TreeBox::new(&half, BoxKind::ReachableValues);
        let cands: Vec<Vec<f64>> = (0..schema.n_features())
            .map(|i| candidates(&schema, &ens, &factual, i, half[i]))
            .collect();
        for j in 0..20 {
            let row: Vec<f64> = if j == 0 {
                factual.clone()
            } else {
                cands
                    .iter()
                    .map(|c| c[rng.random_range(0..c.len())])
                    .collect()
            };
            let x = schema.encode(&row).unwrap();
            let got = super::tree_box::worst_case_score_in(&schema, &ens, b, &x);
            let want = oracle_worst_reachable(&schema, &ens, &half, &row);
            assert!(
                (got - want).abs() <= 1e-12 * want.abs().max(1.0),
                "case {case}: {got} vs {want} at {row:?}, half {half:?}"
            );
            let reals = super::tree_box::worst_case_score(&schema, &ens, &half, &x);
            differ += usize::from(reals != got);
        }
    }
    eprintln!("reachable vs reals worst case: {differ} of 4000 rows differ");
    assert!(differ >= 50, "rows where the two boxes differ: {differ}");
}

/// Closed form on the stump of `tree_box_tests`, its test moved to
/// XGBoost's hist-style `x < 51` (a balance of 50 or less is declined),
/// with δ = 1.3: over the reals the cheapest balance whose box stays at or
/// above 51 is 53 (52 − 1.3 = 50.7 < 51); the values an applicant at 52 can
/// reach are round(50.7) = 51 … round(53.3) = 53, all accepted, so the
/// reachable-value answer is 52, cheaper. Its Γ under clip-and-round slips
/// is P(52 + ε < 50.5) = Φ(−1.5/σ), σ = 1.3/Φ⁻¹(0.95); over the reals 52
/// would have P(52 + ε < 51) = Φ(−1/σ) > γ = 0.1.
#[test]
fn reachable_robust_advice_on_a_stump_is_the_closed_form() {
    let (schema, mut ens) = stump();
    let mut nodes = ens.nodes().to_vec();
    nodes[0].threshold = 51.0;
    ens = TreeEnsemble::new(
        Source::Xgboost,
        0.0,
        0.5,
        ens.inputs().to_vec(),
        vec![0],
        nodes,
        vec![],
    )
    .unwrap();
    let factual = [10.0, 30.0];
    let z = normal_quantile(0.95);
    let sigma = 1.3 / z; // data units; the balance spans 100
    let r = reachable((sigma / 100.0).powi(2), 0.1);
    let plain = explain(&schema, &ens, &factual, &Config::default()).unwrap();
    assert_eq!(plain.counterfactuals[0].raw, vec![51.0, 30.0]);
    let over = |box_kind| explain_over(&schema, &ens, &factual, r, box_kind);
    let reals = over(BoxKind::Reals);
    assert_eq!(reals.counterfactuals[0].raw, vec![53.0, 30.0]);
    let ex = over(BoxKind::ReachableValues);
    assert_eq!(ex.outcome, Outcome::Optimal);
    let cf = &ex.counterfactuals[0];
    assert_eq!(cf.raw, vec![52.0, 30.0]);
    assert!(cf.cost < reals.counterfactuals[0].cost);
    let want = normal_cdf(-1.5 / sigma);
    let se = (want * (1.0 - want) / super::tree_box::GAMMA_SAMPLES as f64).sqrt();
    let g = cf.invalidation_rate.unwrap();
    assert!((g - want).abs() < 4.0 * se, "Γ̃ = {g} vs Φ(−1.5/σ) = {want}");
    assert!(normal_cdf(-1.0 / sigma) > 0.1);
}

/// A stump on the balance of [`stump`] (0..100, integer) declining balances
/// below 97.5 and above 100.5 (a split past the range, as a model trained on
/// a wider range may hold).
pub(crate) fn clipped_stump() -> (Schema, TreeEnsemble) {
    let (schema, ens) = stump();
    let leaf = Node::leaf;
    let test = |threshold: f64, left: u32| Node {
        test: Test::BelowF32,
        feature: 0,
        threshold,
        default_left: true,
        left,
        right: left + 1,
        value: 0.0,
    };
    let nodes = vec![
        test(97.5, 1),
        leaf(-2.0),
        test(100.5, 3),
        leaf(2.0),
        leaf(-2.0),
    ];
    let ens = TreeEnsemble::new(
        Source::Xgboost,
        0.0,
        0.5,
        ens.inputs().to_vec(),
        vec![0],
        nodes,
        vec![],
    )
    .unwrap();
    (schema, ens)
}

/// The range's upper bound on [`clipped_stump`], δ = 1.645. Over the reals
/// no balance works (99 reaches 97.355, 100 reaches 101.645); over reachable
/// values the slips of 100 land on 98 … 100 (clipped), all accepted: the
/// answer is 100.
#[test]
fn reachable_values_clip_at_the_range_where_the_reals_box_has_no_answer() {
    let (schema, ens) = clipped_stump();
    let factual = [10.0, 30.0];
    let r = reachable(1e-4, 0.1); // σ = 1 data unit, δ = Φ⁻¹(0.95)
    let reals = explain_over(&schema, &ens, &factual, r, BoxKind::Reals);
    assert!(
        matches!(reals.outcome, Outcome::Infeasible { .. }),
        "{:?}",
        reals.outcome
    );
    let ex = explain_over(&schema, &ens, &factual, r, BoxKind::ReachableValues);
    assert_eq!(ex.outcome, Outcome::Optimal);
    let cf = &ex.counterfactuals[0];
    assert_eq!(cf.raw, vec![100.0, 30.0]);
    // Declined only when 100 + ε lands below 97.5: ε < −2.5.
    let want = normal_cdf(-2.5);
    let se = (want * (1.0 - want) / super::tree_box::GAMMA_SAMPLES as f64).sqrt();
    let g = cf.invalidation_rate.unwrap();
    assert!((g - want).abs() < 4.0 * se, "Γ̃ = {g} vs Φ(−2.5) = {want}");
}

/// Reachable values are a tree-ensemble notion: a linear model's robust
/// margin is the closed form over the reals, and it refuses them.
#[test]
fn a_linear_model_refuses_reachable_values() {
    use crate::model::LinearModel;
    let (schema, _) = stump();
    let model = LinearModel::new(vec![4.0, 0.0], -3.0, 0.5).unwrap();
    let config = Config {
        robustness: Some(reachable(1e-4, 0.1)),
        ..Config::default()
    };
    let err = explain(&schema, &model, &[10.0, 30.0], &config)
        .unwrap_err()
        .to_string();
    assert!(err.contains("reachable") && err.contains("tree"), "{err}");
    // The default box still works there.
    let ok = Config {
        robustness: Some(Robustness {
            box_kind: BoxKind::Reals,
            ..reachable(1e-4, 0.1)
        }),
        ..Config::default()
    };
    assert!(explain(&schema, &model, &[10.0, 30.0], &ok).is_ok());
}

/// The setting's JSON: the default box is not written (a configuration's
/// fingerprint from before the setting is unchanged) and read back when
/// absent; reachable values are written and read by name.
#[test]
fn the_box_kind_is_written_only_when_not_the_default() {
    let plain = Robustness {
        box_kind: BoxKind::Reals,
        ..reachable(0.01, 0.1)
    };
    let json = serde_json::to_string(&plain).unwrap();
    assert_eq!(json, r#"{"sigma2":0.01,"invalidation_target":0.1}"#);
    assert_eq!(serde_json::from_str::<Robustness>(&json).unwrap(), plain);
    let json = serde_json::to_string(&reachable(0.01, 0.1)).unwrap();
    assert!(json.contains(r#""box_kind":"reachable_values""#), "{json}");
    assert_eq!(
        serde_json::from_str::<Robustness>(&json).unwrap(),
        reachable(0.01, 0.1)
    );
    assert!(reachable(0.01, 0.1).label().contains("reachable values"));
    assert!(!plain.label().contains("reachable"));
}
