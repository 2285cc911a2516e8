use super::*;
use crate::model::LinearModel;
use crate::schema::{Feature, FeatureWeights, Transition};
use rand::{Rng, SeedableRng};
use rand_xoshiro::Xoshiro256PlusPlus;

// ---------------------------------------------------------------------------
// Brute-force oracle.
//
// Every feature's possible destinations are listed: each discrete state (special
// state, level), each grid point of an integer/step feature, staying put, and —
// for a real-valued feature — one continuous interval. Every combination of the
// discrete choices is enumerated; what remains is the LP
//     min Σ W_i |c_i − v_i|  s.t.  Σ α_i c_i ≥ R,  c_i ∈ [a_i, b_i]
// with one constraint, solved exactly by the fractional-knapsack greedy: start
// each c_i at the point of [a_i, b_i] nearest v_i, then move the variables with
// the lowest cost per unit of score (W_i/|α_i|) towards their favourable end
// until the deficit is covered. (Moving away from the nearest point costs
// exactly W_i per unit of slot, so each variable has one constant rate; the
// greedy is the exact LP optimum of a continuous knapsack.)
// The oracle knows nothing of the MIP's variables: it works on states and slots.
// ---------------------------------------------------------------------------

#[derive(Debug, Clone)]
enum Dest {
    /// A fixed encoded state: (state, slot value), score contribution, cost.
    Fixed { score: f64, cost: f64 },
    /// A continuous slot in [a, b] with cost base + w·|c − v|, score α·c + score0.
    Interval {
        a: f64,
        b: f64,
        v: f64,
        w: f64,
        alpha: f64,
        base: f64,
        score0: f64,
    },
}

fn destinations(schema: &Schema, model: &LinearModel, factual: &[f64], i: usize) -> Vec<Dest> {
    let f = &schema.features[i];
    let lay = schema.layout(i);
    let w = schema.weights(i);
    let s_f = f.state_of(factual[i]).unwrap();
    let mw = &model.weights;
    let mut out = Vec::new();
    let ind_w = |s: usize| -> f64 {
        if f.is_contiguous() {
            if s == 0 { 0.0 } else { w.states[s - 1] }
        } else {
            w.states[s]
        }
    };
    let move_cost = |s: usize| if s == s_f { 0.0 } else { ind_w(s_f) + ind_w(s) };
    for s in 0..f.n_states() {
        if !schema.transition_allowed(i, s_f, s) {
            continue;
        }
        if !f.is_contiguous() {
            if s != s_f {
                match f.actionability.direction {
                    Direction::IncreaseOnly if s < s_f => continue,
                    Direction::DecreaseOnly if s > s_f => continue,
                    _ => {}
                }
            }
            out.push(Dest::Fixed {
                score: mw[lay.start + s],
                cost: move_cost(s),
            });
            continue;
        }
        let FeatureKind::Contiguous {
            lower,
            upper,
            integer,
            step,
            fixed_value,
            ..
        } = &f.kind
        else {
            unreachable!()
        };
        let a_slot = mw[lay.start];
        if s > 0 {
            out.push(Dest::Fixed {
                score: a_slot * fixed_value + mw[lay.start + s],
                cost: move_cost(s),
            });
            continue;
        }
        // Value state.
        let slot = |raw: f64| schema.value_to_slot(i, raw);
        let (lo, hi) = schema.actionable_range(i).unwrap();
        let (anchor, base) = if s_f == 0 {
            (slot(factual[i]), 0.0)
        } else {
            (w.anchor.clamp(slot(lo), slot(hi)), ind_w(s_f))
        };
        if s_f == 0 {
            out.push(Dest::Fixed {
                score: a_slot * anchor,
                cost: 0.0,
            });
        }
        if s_f == 0 && !f.actionability.mutable {
            continue;
        }
        let dir = if s_f == 0 {
            f.actionability.direction
        } else {
            Direction::Any
        };
        let ok_dir = |raw: f64| match dir {
            Direction::IncreaseOnly => raw >= factual[i] - 1e-12,
            Direction::DecreaseOnly => raw <= factual[i] + 1e-12,
            Direction::Any => true,
        };
        if *integer || step.is_some() {
            let g = step.unwrap_or(1.0);
            let mut k = 0.0;
            loop {
                let raw = lower + k * g;
                if raw > upper + 1e-9 {
                    break;
                }
                k += 1.0;
                if raw < lo - 1e-9 || raw > hi + 1e-9 || !ok_dir(raw) {
                    continue;
                }
                if *integer && (raw - raw.round()).abs() > 1e-9 {
                    continue;
                }
                let c = slot(raw);
                out.push(Dest::Fixed {
                    score: a_slot * c,
                    cost: base + w.value * (c - anchor).abs(),
                });
            }
        } else {
            let (mut a, mut b) = (slot(lo), slot(hi));
            if s_f == 0 {
                match dir {
                    Direction::IncreaseOnly => a = a.max(anchor),
                    Direction::DecreaseOnly => b = b.min(anchor),
                    Direction::Any => {}
                }
            }
            if a <= b + 1e-12 {
                out.push(Dest::Interval {
                    a,
                    b: b.max(a),
                    v: anchor,
                    w: w.value,
                    alpha: a_slot,
                    base,
                    score0: 0.0,
                });
            }
        }
    }
    out
}

/// Exact optimum by enumeration + greedy LP; `None` when infeasible.
fn brute_force(schema: &Schema, model: &LinearModel, factual: &[f64], margin: f64) -> Option<f64> {
    let n = schema.n_features();
    let dests: Vec<Vec<Dest>> = (0..n)
        .map(|i| destinations(schema, model, factual, i))
        .collect();
    let need = logit(model.threshold) + margin - model.bias;
    let mut best: Option<f64> = None;
    let mut idx = vec![0usize; n];
    if dests.iter().any(|d| d.is_empty()) {
        return None;
    }
    loop {
        let mut score = 0.0;
        let mut cost = 0.0;
        let mut conts: Vec<(f64, f64)> = Vec::new(); // (rate, capacity in score)
        for i in 0..n {
            match &dests[i][idx[i]] {
                Dest::Fixed { score: s, cost: c } => {
                    score += s;
                    cost += c;
                }
                &Dest::Interval {
                    a,
                    b,
                    v,
                    w,
                    alpha,
                    base,
                    score0,
                } => {
                    let start = v.clamp(a, b);
                    score += alpha * start + score0;
                    cost += base + w * (start - v).abs();
                    let room = if alpha > 0.0 { b - start } else { start - a };
                    if alpha != 0.0 && room > 0.0 {
                        conts.push((w / alpha.abs(), alpha.abs() * room));
                    }
                }
            }
        }
        let mut deficit = need - score;
        conts.sort_by(|x, y| x.0.total_cmp(&y.0));
        for (rate, cap) in conts {
            if deficit <= 0.0 {
                break;
            }
            let take = cap.min(deficit);
            cost += rate * take;
            deficit -= take;
        }
        if deficit <= 1e-12 && best.is_none_or(|b| cost < b) {
            best = Some(cost);
        }
        // next combination
        let mut k = 0;
        loop {
            if k == n {
                return best;
            }
            idx[k] += 1;
            if idx[k] < dests[k].len() {
                break;
            }
            idx[k] = 0;
            k += 1;
        }
    }
}

pub(super) fn random_schema(rng: &mut Xoshiro256PlusPlus) -> Schema {
    let n = rng.random_range(2..=4);
    let mut feats = Vec::new();
    for i in 0..n {
        let kind = rng.random_range(0..3);
        let name = format!("f{i}");
        let mut f = match kind {
            0 => {
                let lo = rng.random_range(-5.0..5.0f64).round();
                let mut f = Feature::contiguous(&name, lo, lo + rng.random_range(1.0..10.0));
                if let FeatureKind::Contiguous { fixed_value, .. } = &mut f.kind {
                    if rng.random_bool(0.3) {
                        *fixed_value = rng.random_range(0.0..1.0);
                    }
                }
                f
            }
            1 => {
                let lo = rng.random_range(0..4) as f64;
                let mut f =
                    Feature::contiguous(&name, lo, lo + rng.random_range(1..7) as f64).integer();
                if rng.random_bool(0.3) {
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
            if rng.random_bool(0.3) {
                if let FeatureKind::Contiguous {
                    lower, upper, step, ..
                } = &f.kind
                {
                    let g = step.unwrap_or(0.5);
                    let span = ((upper - lower) / g).floor();
                    let a = lower + (rng.random_range(0.0..=span / 2.0)).floor() * g;
                    let b = a + (rng.random_range(0.0..=(upper - a) / g)).floor() * g;
                    f.actionability.lower = Some(a);
                    f.actionability.upper = Some(b.min(*upper));
                }
            }
        }
        if rng.random_bool(0.15) {
            f = f.immutable();
        }
        f.actionability.direction = match rng.random_range(0..5) {
            0 => Direction::IncreaseOnly,
            1 => Direction::DecreaseOnly,
            _ => Direction::Any,
        };
        let ns = f.n_states();
        if ns > 1 && rng.random_bool(0.3) {
            let to = rng.random_range(0..ns);
            let from = if rng.random_bool(0.5) {
                "*".to_string()
            } else {
                f.state_name(rng.random_range(0..ns)).to_string()
            };
            let to = f.state_name(to).to_string();
            f.actionability
                .forbidden_transitions
                .push(Transition { from, to });
        }
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
        feats.push(f);
    }
    Schema::new(feats).unwrap()
}

pub(super) fn random_factual(schema: &Schema, rng: &mut Xoshiro256PlusPlus) -> Vec<f64> {
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
                    rng.random_range(*lower as i64..=*upper as i64) as f64
                } else {
                    rng.random_range(*lower..=*upper)
                }
            }
            FeatureKind::Categorical { levels } => rng.random_range(0..levels.len()) as f64,
        })
        .collect()
}

fn random_model(schema: &Schema, factual: &[f64], rng: &mut Xoshiro256PlusPlus) -> LinearModel {
    let w: Vec<f64> = (0..schema.encoded_dim())
        .map(|_| rng.random_range(-3.0..3.0))
        .collect();
    let t = rng.random_range(0.3..0.7);
    let x = schema.encode(factual).unwrap();
    let s: f64 = w.iter().zip(&x).map(|(a, b)| a * b).sum();
    let bias = logit(t) - rng.random_range(0.05..3.0) - s;
    LinearModel::new(w, bias, t).unwrap()
}

fn check_counterfactual(
    schema: &Schema,
    model: &LinearModel,
    factual: &[f64],
    cf: &Counterfactual,
) {
    let enc = schema.encode(&cf.raw).unwrap();
    assert_eq!(schema.decode(&enc).unwrap(), cf.raw, "decodes coherently");
    assert!(
        model.accepts(&enc),
        "flips the decision: p = {}",
        model.probability(&enc)
    );
    schema.check_actionable(factual, &cf.raw).unwrap();
    let c = cost(schema, factual, &cf.raw).unwrap();
    assert!((c - cf.cost).abs() < 1e-9);
    assert!(
        (cf.objective - c).abs() < 1e-6,
        "objective {} vs cost {}",
        cf.objective,
        c
    );
}

#[test]
fn mip_optimum_equals_brute_force_on_random_small_schemas() {
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(2019);
    let config = Config::default();
    let (mut feasible, mut infeasible) = (0, 0);
    for case in 0..400 {
        let schema = random_schema(&mut rng);
        let factual = random_factual(&schema, &mut rng);
        let model = random_model(&schema, &factual, &mut rng);
        let oracle = brute_force(&schema, &model, &factual, config.margin);
        let ex = explain(&schema, &model, &factual, &config).unwrap();
        match (oracle, ex.counterfactuals.first()) {
            (Some(best), Some(cf)) => {
                assert_eq!(ex.outcome, Outcome::Optimal);
                check_counterfactual(&schema, &model, &factual, cf);
                assert!(
                    (cf.cost - best).abs() < 1e-6,
                    "case {case}: MIP {} vs brute force {best}\n{}\n{factual:?}\n{model:?}",
                    cf.cost,
                    schema.to_json()
                );
                feasible += 1;
            }
            (None, None) => {
                assert!(
                    matches!(ex.outcome, Outcome::Infeasible { .. }),
                    "{:?}",
                    ex.outcome
                );
                infeasible += 1;
            }
            (o, c) => panic!(
                "case {case}: oracle {o:?} vs MIP {:?}\n{}\n{factual:?}\n{model:?}",
                c.map(|c| (&c.raw, c.cost)),
                schema.to_json()
            ),
        }
    }
    // Both branches must have been exercised for the test to mean anything.
    assert!(feasible >= 200, "feasible cases: {feasible}");
    assert!(infeasible >= 5, "infeasible cases: {infeasible}");
}

#[test]
fn diverse_sets_are_distinct_valid_and_ordered_by_cost() {
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(7);
    for rule in [DiversityRule::Russell, DiversityRule::DistinctSubsets] {
        let config = Config {
            diversity: rule,
            n_diverse: 4,
            ..Config::default()
        };
        let mut multi = 0;
        for _ in 0..60 {
            let schema = random_schema(&mut rng);
            let factual = random_factual(&schema, &mut rng);
            let model = random_model(&schema, &factual, &mut rng);
            let ex = explain_diverse(&schema, &model, &factual, &config).unwrap();
            let cfs = &ex.counterfactuals;
            assert!(cfs.len() <= 4);
            for (k, cf) in cfs.iter().enumerate() {
                check_counterfactual(&schema, &model, &factual, cf);
                for other in &cfs[..k] {
                    assert!(!same_row(&cf.raw, &other.raw));
                    // constraints only accumulate, so costs never decrease
                    assert!(cf.cost >= other.cost - 1e-6);
                }
                if rule == DiversityRule::DistinctSubsets {
                    for other in &cfs[..k] {
                        let keeps_one = other
                            .changes
                            .iter()
                            .any(|c| !cf.changes.iter().any(|d| d.feature == c.feature));
                        assert!(keeps_one, "{:?} vs {:?}", cf.changes, other.changes);
                    }
                }
            }
            if cfs.len() > 1 {
                multi += 1;
            }
        }
        assert!(multi >= 10, "{rule:?}: only {multi} multi-explanation sets");
    }
}

fn two_feature_schema() -> Schema {
    let age = Feature::contiguous("age", 18.0, 80.0).integer().immutable();
    let debt = Feature::contiguous("debt", 0.0, 100.0)
        .with_special(-7.0, "no debt record")
        .direction(Direction::DecreaseOnly);
    let housing = Feature::categorical("housing", &["rent", "own", "free"]);
    Schema::new(vec![age, debt, housing]).unwrap()
}

#[test]
fn no_recourse_names_the_immutables() {
    let schema = two_feature_schema();
    // Only age helps (higher age → accepted); debt and housing are irrelevant.
    let mut w = vec![0.0; schema.encoded_dim()];
    w[0] = 4.0;
    let model = LinearModel::new(w, -3.0, 0.5).unwrap();
    let factual = [30.0, 40.0, 0.0];
    let ex = explain(&schema, &model, &factual, &Config::default()).unwrap();
    assert!(ex.counterfactuals.is_empty());
    assert_eq!(
        ex.outcome,
        Outcome::Infeasible {
            blocking: vec![vec![ConstraintGroup::Immutables]]
        }
    );
    assert_eq!(ex.outcome.blocking_mask(), 1);
    assert!(
        ex.to_text().contains("immutable features"),
        "{}",
        ex.to_text()
    );
}

#[test]
fn no_recourse_names_the_direction_and_transition_groups() {
    let mut schema = two_feature_schema();
    // Only more debt helps, but debt may only decrease, and moving to the special
    // state "no debt record" (which would also help) is forbidden.
    let mut w = vec![0.0; schema.encoded_dim()];
    w[1] = 3.0;
    w[2] = 5.0;
    schema.features[1]
        .actionability
        .forbidden_transitions
        .push(Transition {
            from: "*".into(),
            to: "no debt record".into(),
        });
    let schema = Schema::new(schema.features).unwrap();
    let model = LinearModel::new(w, -2.0, 0.5).unwrap();
    let factual = [30.0, 40.0, 0.0];
    let ex = explain(&schema, &model, &factual, &Config::default()).unwrap();
    assert_eq!(
        ex.outcome,
        Outcome::Infeasible {
            blocking: vec![
                vec![ConstraintGroup::Directions],
                vec![ConstraintGroup::ForbiddenTransitions]
            ]
        }
    );
}

#[test]
fn no_recourse_at_all_reports_an_empty_blocking_list() {
    let schema = two_feature_schema();
    let model = LinearModel::new(vec![0.0; schema.encoded_dim()], -1.0, 0.5).unwrap();
    let ex = explain(&schema, &model, &[30.0, 40.0, 0.0], &Config::default()).unwrap();
    assert_eq!(ex.outcome, Outcome::Infeasible { blocking: vec![] });
}

#[test]
fn integer_and_step_features_land_on_their_grid() {
    let mut trades = Feature::contiguous("trades", 0.0, 40.0).integer();
    trades.weights = Some(FeatureWeights {
        value: 1.0,
        states: vec![],
        anchor: 0.5,
    });
    let mut months = Feature::contiguous("months", 0.0, 60.0).with_special(-7.0, "never");
    if let FeatureKind::Contiguous { step, .. } = &mut months.kind {
        *step = Some(6.0);
    }
    let schema = Schema::new(vec![trades, months]).unwrap();
    // score = 3.1·slot(trades) + 2.3·slot(months) + 1·[never] − 3
    let model = LinearModel::new(vec![3.1, 2.3, 1.0], -3.0, 0.5).unwrap();
    for factual in [[3.0, 12.0], [10.0, -7.0], [0.0, 0.0]] {
        let ex = explain(&schema, &model, &factual, &Config::default()).unwrap();
        let cf = &ex.counterfactuals[0];
        check_counterfactual(&schema, &model, &factual, cf);
        assert_eq!(cf.raw[0].fract(), 0.0, "{:?}", cf.raw);
        assert!(
            cf.raw[1] == -7.0 || (cf.raw[1] / 6.0).fract() == 0.0,
            "{:?}",
            cf.raw
        );
        let best = brute_force(&schema, &model, &factual, 1e-6).unwrap();
        assert!((cf.cost - best).abs() < 1e-6);
    }
}

#[test]
fn russell_case_b_forbids_the_change_from_a_special_state() {
    // The cheapest move is special → value on `delq`; the second explanation must
    // keep `delq` at its factual special state (the evident intent of case b).
    let mut delq = Feature::contiguous("delq", 0.0, 10.0).with_special(-7.0, "no record");
    delq.weights = Some(FeatureWeights {
        value: 0.1,
        states: vec![0.1],
        anchor: 0.5,
    });
    let mut other = Feature::contiguous("other", 0.0, 10.0);
    other.weights = Some(FeatureWeights {
        value: 5.0,
        states: vec![],
        anchor: 0.5,
    });
    let schema = Schema::new(vec![delq, other]).unwrap();
    let model = LinearModel::new(vec![2.0, -3.0, 6.0], -1.5, 0.5).unwrap();
    let factual = [-7.0, 2.0];
    let config = Config {
        n_diverse: 2,
        ..Config::default()
    };
    let ex = explain_diverse(&schema, &model, &factual, &config).unwrap();
    assert_eq!(ex.counterfactuals.len(), 2);
    assert!(
        ex.counterfactuals[0].raw[0] >= 0.0,
        "{:?}",
        ex.counterfactuals[0].raw
    );
    assert_eq!(
        ex.counterfactuals[1].raw[0], -7.0,
        "{:?}",
        ex.counterfactuals[1].raw
    );
    assert!(ex.counterfactuals[1].raw[1] > 2.0);
    // The reference code's case (b) only pins delq to its value range, so the
    // optimum repeats and the procedure stops after one explanation.
    let reference = Config {
        diversity: DiversityRule::RussellReferenceCode,
        ..config
    };
    let ex = explain_diverse(&schema, &model, &factual, &reference).unwrap();
    assert_eq!(ex.counterfactuals.len(), 1);
}

#[test]
fn factual_outside_its_actionable_range_may_stay_or_move_into_it() {
    let mut a = Feature::contiguous("a", 0.0, 10.0);
    a.actionability.lower = Some(5.0);
    a.actionability.upper = Some(8.0);
    let b = Feature::contiguous("b", 0.0, 10.0);
    let schema = Schema::new(vec![a, b]).unwrap();
    // Needs +1 score. a may stay at 2 or move into [5, 8]: a → 5 gives +3 for
    // cost 0.3; b alone needs 0 → 5 for cost 0.5. Optimal: a → 5 (a → 3, the
    // cheapest move without the range, is not allowed).
    let model = LinearModel::new(vec![10.0, 2.0], -3.0, 0.5).unwrap();
    let factual = [2.0, 0.0];
    let ex = explain(&schema, &model, &factual, &Config::default()).unwrap();
    let cf = &ex.counterfactuals[0];
    check_counterfactual(&schema, &model, &factual, cf);
    assert!((cf.raw[0] - 5.0).abs() < 1e-6, "{:?}", cf.raw);
    let best = brute_force(&schema, &model, &factual, 1e-6).unwrap();
    assert!((cf.cost - best).abs() < 1e-6);
}

#[test]
fn bad_inputs_are_errors_not_panics() {
    let schema = two_feature_schema();
    let model = LinearModel::new(vec![0.1; schema.encoded_dim()], -5.0, 0.5).unwrap();
    let c = Config::default();
    assert!(explain(&schema, &model, &[30.0, 40.0], &c).is_err());
    assert!(explain(&schema, &model, &[30.0, f64::NAN, 0.0], &c).is_err());
    assert!(
        explain(&schema, &model, &[30.5, 40.0, 0.0], &c).is_err(),
        "off-grid age"
    );
    assert!(
        explain(&schema, &model, &[30.0, 40.0, 7.0], &c).is_err(),
        "no level 7"
    );
    let bad = Config { margin: -1.0, ..c };
    assert!(explain(&schema, &model, &[30.0, 40.0, 0.0], &bad).is_err());
    let accepting = LinearModel::new(vec![0.1; schema.encoded_dim()], 5.0, 0.5).unwrap();
    assert!(explain(&schema, &accepting, &[30.0, 40.0, 0.0], &c).is_err());
    let short = LinearModel::new(vec![0.1; 2], -5.0, 0.5).unwrap();
    assert!(explain(&schema, &short, &[30.0, 40.0, 0.0], &c).is_err());
}

#[test]
fn batch_is_in_input_order_and_matches_single_calls() {
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(99);
    let schema = random_schema(&mut rng);
    let mut rows = Vec::new();
    while rows.len() < 12 {
        rows.push(random_factual(&schema, &mut rng));
    }
    let w: Vec<f64> = (0..schema.encoded_dim())
        .map(|_| rng.random_range(-3.0..3.0))
        .collect();
    let model = LinearModel::new(w, -4.0, 0.5).unwrap();
    let config = Config {
        batch_threads: 3,
        n_diverse: 3,
        ..Config::default()
    };
    let batch = explain_batch(&schema, &model, &rows, &config, true).unwrap();
    assert_eq!(batch.len(), rows.len());
    for (r, b) in rows.iter().zip(&batch) {
        let single = explain_diverse(&schema, &model, r, &config);
        match (single, b) {
            (Ok(s), Ok(b)) => {
                assert_eq!(s.factual, b.factual);
                assert_eq!(s.outcome, b.outcome);
                let raws = |e: &Explanation| {
                    e.counterfactuals
                        .iter()
                        .map(|c| c.raw.clone())
                        .collect::<Vec<_>>()
                };
                assert_eq!(raws(&s), raws(b));
            }
            (Err(a), Err(b)) => assert_eq!(&a, b),
            (a, b) => panic!("{a:?} vs {b:?}"),
        }
    }
}

#[test]
fn plain_words_name_states_and_values() {
    let schema = two_feature_schema();
    let mut w = vec![0.0; schema.encoded_dim()];
    w[2] = 3.0; // the "no debt record" indicator helps
    let model = LinearModel::new(w, -2.0, 0.5).unwrap();
    let ex = explain(&schema, &model, &[30.0, 40.0, 0.0], &Config::default()).unwrap();
    let text = ex.counterfactuals[0].describe();
    assert_eq!(text, "debt: 40 → 'no debt record' (-7)");
    assert!(ex.to_text().starts_with("declined"));
}

#[test]
fn mip_json_describes_the_program_explain_solves() {
    let schema = two_feature_schema();
    let mut w = vec![0.0; schema.encoded_dim()];
    w[2] = 3.0;
    let model = LinearModel::new(w, -2.0, 0.5).unwrap();
    let factual = [30.0, 40.0, 0.0];
    let v: serde_json::Value =
        serde_json::from_str(&mip_json(&schema, &model, &factual, &Config::default()).unwrap())
            .unwrap();
    let n = v["cost"].as_array().unwrap().len();
    let m = v["row_lower"].as_array().unwrap().len();
    assert!(n > 0 && m > 0);
    for key in ["lower", "upper", "integer"] {
        assert_eq!(v[key].as_array().unwrap().len(), n, "{key}");
    }
    assert_eq!(v["row_upper"].as_array().unwrap().len(), m);
    assert_eq!(v["row_start"].as_array().unwrap().len(), m);
    // The program's value at the factual is the offset plus the signed state
    // costs, i.e. zero: the objective is the cost of the change.
    let ex = explain(&schema, &model, &factual, &Config::default()).unwrap();
    assert!((ex.counterfactuals[0].objective - 1.0).abs() < 1e-9);
}

#[test]
fn a_time_limit_is_an_outcome_not_an_error() {
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(5);
    let config = Config {
        time_limit_seconds: 1e-9,
        ..Config::default()
    };
    let mut seen = 0;
    for _ in 0..20 {
        let schema = random_schema(&mut rng);
        let factual = random_factual(&schema, &mut rng);
        let model = random_model(&schema, &factual, &mut rng);
        let ex = explain(&schema, &model, &factual, &config).unwrap();
        match &ex.outcome {
            Outcome::TimeLimit { has_solution } => {
                assert_eq!(*has_solution, !ex.counterfactuals.is_empty());
                seen += 1;
            }
            // HiGHS may settle a tiny program in presolve before it looks at the clock.
            Outcome::Optimal | Outcome::Infeasible { .. } => {}
            other => panic!("{other:?}"),
        }
        for cf in &ex.counterfactuals {
            check_counterfactual(&schema, &model, &factual, cf);
        }
    }
    assert!(seen > 0, "no solve reported the time limit");
}
