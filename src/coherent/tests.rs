use super::random_instances::{self, LINEAR_ORACLE, random_factual};
use super::*;
use crate::model::LinearModel;
use crate::schema::{Direction, Feature, FeatureKind, FeatureWeights, Transition};
use rand::{Rng, SeedableRng};
use rand_xoshiro::Xoshiro256PlusPlus;
use std::cell::RefCell;
use std::collections::VecDeque;

/// What the test hook does to one solve of `solve_program`.
#[derive(Debug, Clone, Copy)]
pub(super) enum Forced {
    /// The solve does not run and ends with this status and no solution.
    NoSolution(MipStatus),
    /// The solve runs and its answer is reported with this status, as when a
    /// limit stops HiGHS with that answer as its incumbent.
    Incumbent(MipStatus),
}

thread_local! {
    /// What happens to the next solves of this thread (`None`: solve for real).
    static FORCED: RefCell<VecDeque<Option<Forced>>> = const { RefCell::new(VecDeque::new()) };
}

/// Test hook of `solve_program`: what is forced on this solve, if anything.
pub(super) fn forced() -> Option<Forced> {
    FORCED.with(|f| f.borrow_mut().pop_front().flatten())
}

/// Scripts the next solves of this thread (cleared by the next script).
pub(super) fn force(script: Vec<Option<Forced>>) {
    FORCED.with(|f| *f.borrow_mut() = script.into());
}

/// Scripts the statuses (without a solution) of the next solves of this thread.
fn force_statuses(script: Vec<Option<MipStatus>>) {
    force(
        script
            .into_iter()
            .map(|s| s.map(Forced::NoSolution))
            .collect(),
    );
}

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

/// A destination with the state it lands in and whether it is the factual
/// value itself (staying put in the value state).
#[derive(Debug, Clone)]
struct Tagged {
    dest: Dest,
    state: usize,
    stays: bool,
}

/// A constraint Russell's procedure adds on one feature (Russell 2019 §1.4, in the
/// oracle's terms of states and values).
#[derive(Debug, Clone, Copy, PartialEq)]
enum Restriction {
    /// (a): the feature may not end in this state.
    ForbidState(usize),
    /// (b): the feature must end in this state.
    RequireState(usize),
    /// (c): in the value state the value must stay the factual one.
    FreezeValue,
}

impl Restriction {
    fn allows(self, t: &Tagged) -> bool {
        match self {
            Restriction::ForbidState(s) => t.state != s,
            Restriction::RequireState(s) => t.state == s,
            Restriction::FreezeValue => t.state != 0 || t.stays,
        }
    }
}

fn destinations(schema: &Schema, model: &LinearModel, factual: &[f64], i: usize) -> Vec<Tagged> {
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
            out.push(Tagged {
                dest: Dest::Fixed {
                    score: mw[lay.start + s],
                    cost: move_cost(s),
                },
                state: s,
                stays: s == s_f,
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
            out.push(Tagged {
                dest: Dest::Fixed {
                    score: a_slot * fixed_value + mw[lay.start + s],
                    cost: move_cost(s),
                },
                state: s,
                stays: s == s_f,
            });
            continue;
        }
        // Value state.
        let slot = |raw: f64| schema.value_to_slot(i, raw);
        let (lo, hi) = schema.move_range(i, factual[i]).unwrap();
        let (anchor, base) = if s_f == 0 {
            (slot(factual[i]), 0.0)
        } else {
            (w.anchor.clamp(slot(lo), slot(hi)), ind_w(s_f))
        };
        if s_f == 0 {
            out.push(Tagged {
                dest: Dest::Fixed {
                    score: a_slot * anchor,
                    cost: 0.0,
                },
                state: 0,
                stays: true,
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
        // The minimum change (issue 43): a value→value move of at least m.
        let m = if s_f == 0 {
            f.actionability.min_change.unwrap_or(0.0)
        } else {
            0.0
        };
        let advice = f.actionability.advice_step;
        if *integer || step.is_some() || advice.is_some() {
            // The advice grid: the multiples of its step (on the data's grid).
            let (g, origin) = match advice {
                Some(a) => (a, (lower / a).ceil() * a),
                None => (
                    step.unwrap_or(1.0),
                    // An integer feature without a step lives on the whole numbers, which
                    // start at ⌈lower⌉ when the lower bound is fractional.
                    if step.is_none() { lower.ceil() } else { *lower },
                ),
            };
            let mut k = 0.0;
            loop {
                let raw = origin + k * g;
                if raw > upper + 1e-9 {
                    break;
                }
                k += 1.0;
                if raw < lo - 1e-9 || raw > hi + 1e-9 || !ok_dir(raw) {
                    continue;
                }
                if (raw - factual[i]).abs() < m - 1e-9 {
                    continue;
                }
                if *integer && (raw - raw.round()).abs() > 1e-9 {
                    continue;
                }
                let c = slot(raw);
                out.push(Tagged {
                    dest: Dest::Fixed {
                        score: a_slot * c,
                        cost: base + w.value * (c - anchor).abs(),
                    },
                    state: 0,
                    stays: false,
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
            // Less the band (v − m, v + m) the minimum change excludes.
            let band = m / (upper - lower);
            let pieces = if band > 0.0 {
                vec![(a, b.min(anchor - band)), (a.max(anchor + band), b)]
            } else {
                vec![(a, b)]
            };
            for (a, b) in pieces {
                if a <= b + 1e-12 {
                    out.push(Tagged {
                        dest: Dest::Interval {
                            a,
                            b: b.max(a),
                            v: anchor,
                            w: w.value,
                            alpha: a_slot,
                            base,
                            score0: 0.0,
                        },
                        state: 0,
                        stays: false,
                    });
                }
            }
        }
    }
    out
}

/// Whether a solver's cost equals the oracle's: 1e-9 relative (the solvers
/// run at a relative gap and feasibility tolerance of 1e-9), so that a
/// solver even 1e-6 short of the optimum fails.
pub(crate) fn same_cost(a: f64, b: f64) -> bool {
    (a - b).abs() <= 1e-9 * a.abs().max(b.abs()).max(1.0)
}

/// Exact optimum by enumeration + greedy LP; `None` when infeasible.
pub(crate) fn brute_force(
    schema: &Schema,
    model: &LinearModel,
    factual: &[f64],
    margin: f64,
) -> Option<f64> {
    let none = vec![Vec::new(); schema.n_features()];
    brute_force_with(schema, model, factual, margin, &none)
}

/// [`brute_force`] with feature `j` frozen at the applicant's state and
/// value: the oracle of the notices' necessity test.
pub(crate) fn brute_force_frozen(
    schema: &Schema,
    model: &LinearModel,
    factual: &[f64],
    margin: f64,
    j: usize,
) -> Option<f64> {
    let mut r = vec![Vec::new(); schema.n_features()];
    let s = schema.features[j].state_of(factual[j]).unwrap();
    r[j] = vec![Restriction::RequireState(s), Restriction::FreezeValue];
    brute_force_with(schema, model, factual, margin, &r)
}

/// [`brute_force`] under per-feature restrictions (Russell's diversity fixes).
/// A frozen value (c) keeps only the stay-put destination of the value state;
/// an interval is never the factual point alone, so it is dropped.
fn brute_force_with(
    schema: &Schema,
    model: &LinearModel,
    factual: &[f64],
    margin: f64,
    restrictions: &[Vec<Restriction>],
) -> Option<f64> {
    brute_force_full(schema, model, factual, margin, restrictions, &[])
}

/// [`brute_force_with`] plus no-good sets (the distinct-subsets rule): every
/// combination must leave at least one feature of each set unchanged, i.e.
/// pick its stay-put destination. (A combination whose interval happens to
/// end at the factual value has a twin of equal cost that stays put, so
/// counting intervals as changes loses no optimum.)
fn brute_force_full(
    schema: &Schema,
    model: &LinearModel,
    factual: &[f64],
    margin: f64,
    restrictions: &[Vec<Restriction>],
    nogoods: &[Vec<usize>],
) -> Option<f64> {
    let n = schema.n_features();
    let tagged: Vec<Vec<Tagged>> = (0..n)
        .map(|i| {
            destinations(schema, model, factual, i)
                .into_iter()
                .filter(|t| restrictions[i].iter().all(|r| r.allows(t)))
                .collect()
        })
        .collect();
    let dests: Vec<Vec<Dest>> = tagged
        .iter()
        .map(|ts| ts.iter().map(|t| t.dest.clone()).collect())
        .collect();
    let need = logit(model.threshold) + margin - model.bias;
    let mut best: Option<f64> = None;
    let mut idx = vec![0usize; n];
    if dests.iter().any(|d| d.is_empty()) {
        return None;
    }
    loop {
        let allowed = nogoods
            .iter()
            .all(|set| set.iter().any(|&i| tagged[i][idx[i]].stays));
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
        if allowed && deficit <= 1e-12 && best.is_none_or(|b| cost < b) {
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

/// A random schema of the linear and scorecard oracles.
pub(crate) fn random_schema(rng: &mut Xoshiro256PlusPlus) -> Schema {
    random_instances::random_schema(rng, &LINEAR_ORACLE)
}

pub(crate) fn random_model(
    schema: &Schema,
    factual: &[f64],
    rng: &mut Xoshiro256PlusPlus,
) -> LinearModel {
    let w: Vec<f64> = (0..schema.encoded_dim())
        .map(|_| rng.random_range(-3.0..3.0))
        .collect();
    let t = rng.random_range(0.3..0.7);
    let x = schema.encode(factual).unwrap();
    let s: f64 = w.iter().zip(&x).map(|(a, b)| a * b).sum();
    let bias = logit(t) - rng.random_range(0.05..3.0) - s;
    LinearModel::new(w, bias, t).unwrap()
}

pub(super) fn check_counterfactual(
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
        same_cost(cf.objective, c),
        "objective {} vs cost {}",
        cf.objective,
        c
    );
}

#[test]
fn both_solvers_equal_brute_force_on_random_small_schemas() {
    for (solver, by) in [
        (SolverChoice::Mip, ProvedBy::Highs),
        (SolverChoice::Separable, ProvedBy::Separable),
    ] {
        optimum_equals_brute_force(solver, by);
    }
}

fn optimum_equals_brute_force(solver: SolverChoice, by: ProvedBy) {
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(2019);
    let config = Config {
        solver,
        ..Config::default()
    };
    let (mut feasible, mut infeasible) = (0, 0);
    for case in 0..400 {
        let schema = random_schema(&mut rng);
        let factual = random_factual(&schema, &mut rng);
        let model = random_model(&schema, &factual, &mut rng);
        let oracle = brute_force(&schema, &model, &factual, config.margin);
        let ex = explain(&schema, &model, &factual, &config).unwrap();
        assert_eq!(ex.proved_by, by);
        match (oracle, ex.counterfactuals.first()) {
            (Some(best), Some(cf)) => {
                assert_eq!(ex.outcome, Outcome::Optimal);
                assert_eq!(cf.proved_by, by);
                check_counterfactual(&schema, &model, &factual, cf);
                assert!(
                    same_cost(cf.cost, best),
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

/// `random_schema` with change limits on some contiguous features: units or
/// fractions, increase or decrease, small enough to bind often.
pub(super) fn random_limited_schema(rng: &mut Xoshiro256PlusPlus) -> Schema {
    use crate::schema::ChangeLimit;
    let mut feats = random_schema(rng).features;
    for f in &mut feats {
        let FeatureKind::Contiguous { lower, upper, .. } = f.kind else {
            continue;
        };
        let span = upper - lower;
        let limit = |rng: &mut Xoshiro256PlusPlus| {
            if rng.random_bool(0.5) {
                ChangeLimit::Units((rng.random_range(0.0..0.3) * span * 2.0).round() / 2.0)
            } else {
                ChangeLimit::Fraction(rng.random_range(0.0..0.3))
            }
        };
        if rng.random_bool(0.6) {
            f.actionability.max_increase = Some(limit(rng));
        }
        if rng.random_bool(0.6) {
            f.actionability.max_decrease = Some(limit(rng));
        }
    }
    Schema::new(feats).unwrap()
}

/// Change limits are bounds of the polytope and of the separable menus: both
/// solvers equal the brute-force oracle (which enumerates within
/// `Schema::move_range`, the limits' one definition) and never exceed a limit.
#[test]
fn both_solvers_honour_change_limits_and_equal_brute_force() {
    for solver in [SolverChoice::Mip, SolverChoice::Separable] {
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(16);
        let config = Config {
            solver,
            ..Config::default()
        };
        let (mut feasible, mut bound) = (0, 0);
        for case in 0..300 {
            let schema = random_limited_schema(&mut rng);
            let factual = random_factual(&schema, &mut rng);
            let model = random_model(&schema, &factual, &mut rng);
            let unlimited = {
                let mut feats = schema.features.clone();
                for f in &mut feats {
                    f.actionability.max_increase = None;
                    f.actionability.max_decrease = None;
                }
                Schema::new(feats).unwrap()
            };
            let oracle = brute_force(&schema, &model, &factual, config.margin);
            let free = brute_force(&unlimited, &model, &factual, config.margin);
            let ex = explain(&schema, &model, &factual, &config).unwrap();
            match (oracle, ex.counterfactuals.first()) {
                (Some(best), Some(cf)) => {
                    check_counterfactual(&schema, &model, &factual, cf);
                    schema.check_advice(&factual, &cf.raw, 0).unwrap();
                    assert!(
                        same_cost(cf.cost, best),
                        "case {case} ({solver:?}): {} vs brute force {best}",
                        cf.cost
                    );
                    feasible += 1;
                    if free.is_some_and(|f| f < best - 1e-6) {
                        bound += 1;
                    }
                }
                (None, None) => {}
                (o, c) => panic!(
                    "case {case} ({solver:?}): oracle {o:?} vs {:?}\n{}",
                    c.map(|c| (&c.raw, c.cost)),
                    schema.to_json()
                ),
            }
        }
        assert!(feasible >= 100, "feasible cases: {feasible}");
        // The limits must have bound (cost more than without them) often.
        assert!(bound >= 10, "cases where a limit bound: {bound}");
    }
}

/// Advice grids and minimum changes (issue 43) are part of the polytope and
/// of the separable menus: both solvers equal the brute-force oracle (which
/// enumerates the multiples of each advice step and leaves out the band
/// the minimum change excludes, on its own), every answer is on its grid
/// and meets the minimum change (`Schema::check_advice`), and the grids and
/// minimums bind (cost more than without them) in many cases.
#[test]
fn both_solvers_honour_advice_grids_and_min_changes_and_equal_brute_force() {
    for solver in [SolverChoice::Mip, SolverChoice::Separable] {
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(43);
        let config = Config {
            solver,
            ..Config::default()
        };
        let (mut feasible, mut bound) = (0, 0);
        for case in 0..300 {
            let plain = random_schema(&mut rng);
            let schema = random_instances::with_random_advice(plain.clone(), &mut rng);
            let factual = random_factual(&schema, &mut rng);
            let model = random_model(&schema, &factual, &mut rng);
            let oracle = brute_force(&schema, &model, &factual, config.margin);
            let free = brute_force(&plain, &model, &factual, config.margin);
            let ex = explain(&schema, &model, &factual, &config).unwrap();
            match (oracle, ex.counterfactuals.first()) {
                (Some(best), Some(cf)) => {
                    check_counterfactual(&schema, &model, &factual, cf);
                    schema
                        .check_advice(&factual, &cf.raw, 0)
                        .unwrap_or_else(|e| {
                            panic!("case {case} ({solver:?}): {e}\n{}", schema.to_json())
                        });
                    assert!(
                        same_cost(cf.cost, best),
                        "case {case} ({solver:?}): {} vs brute force {best}\n{}\n{factual:?}\n{:?}",
                        cf.cost,
                        schema.to_json(),
                        cf.raw
                    );
                    feasible += 1;
                    if free.is_some_and(|f| f < best - 1e-6) {
                        bound += 1;
                    }
                }
                (None, None) => {}
                (o, c) => panic!(
                    "case {case} ({solver:?}): oracle {o:?} vs {:?}\n{}\n{factual:?}",
                    c.map(|c| (&c.raw, c.cost)),
                    schema.to_json()
                ),
            }
        }
        assert!(feasible >= 100, "feasible cases: {feasible}");
        assert!(bound >= 30, "cases where a grid or minimum bound: {bound}");
    }
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
            blocking: vec![vec![ConstraintGroup::Immutables]],
            undecided: vec![]
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
            ],
            undecided: vec![]
        }
    );
}

#[test]
fn no_recourse_at_all_reports_an_empty_blocking_list() {
    let schema = two_feature_schema();
    let model = LinearModel::new(vec![0.0; schema.encoded_dim()], -1.0, 0.5).unwrap();
    let ex = explain(&schema, &model, &[30.0, 40.0, 0.0], &Config::default()).unwrap();
    assert_eq!(
        ex.outcome,
        Outcome::Infeasible {
            blocking: vec![],
            undecided: vec![]
        }
    );
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
        assert!(same_cost(cf.cost, best));
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
    assert!(same_cost(cf.cost, best));
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
        solver: SolverChoice::Mip,
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

// ---------------------------------------------------------------------------
// A wider family of random schemas for the oracle: non-integer steps, integer
// features with fractional lower bounds, equal bounds (data range and
// actionable range), zero model weights and zero distance weights, up to three
// special states.
// ---------------------------------------------------------------------------

fn wide_random_schema(rng: &mut Xoshiro256PlusPlus) -> Schema {
    let n = rng.random_range(2..=4);
    let mut feats = Vec::new();
    for i in 0..n {
        let kind = rng.random_range(0..3);
        let name = format!("f{i}");
        let mut f = match kind {
            0 => {
                let lo = (rng.random_range(-5.0..5.0f64) * 4.0).round() / 4.0;
                let step = [None, None, Some(0.25), Some(0.5), Some(1.5), Some(2.5)]
                    [rng.random_range(0..6)];
                let width = if rng.random_bool(0.08) {
                    0.0
                } else {
                    match step {
                        Some(g) => g * rng.random_range(1..6) as f64,
                        None => rng.random_range(0.5..10.0),
                    }
                };
                let mut f = Feature::contiguous(&name, lo, lo + width);
                if let FeatureKind::Contiguous {
                    step: st,
                    fixed_value,
                    ..
                } = &mut f.kind
                {
                    *st = step;
                    if rng.random_bool(0.3) {
                        *fixed_value = rng.random_range(0.0..1.0);
                    }
                }
                f
            }
            1 => {
                let fractional = rng.random_bool(0.5);
                let lo = rng.random_range(0..4) as f64 + if fractional { 0.5 } else { 0.0 };
                let hi = lo.ceil() + rng.random_range(0..6) as f64;
                let mut f = Feature::contiguous(&name, lo, hi).integer();
                if !fractional && rng.random_bool(0.3) {
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
            let FeatureKind::Contiguous {
                lower,
                upper,
                integer,
                step,
                ..
            } = f.kind.clone()
            else {
                unreachable!()
            };
            for j in 0..rng.random_range(0..=3) {
                f = f.with_special(lower - 1.0 - j as f64, &format!("special{j}"));
            }
            if rng.random_bool(0.35) {
                // Actionable bounds on the feature's grid, sometimes equal.
                let (origin, g) = match (integer, step) {
                    (_, Some(g)) => (lower, g),
                    (true, None) => (lower.ceil(), 1.0),
                    (false, None) => (lower, (upper - lower) / 8.0),
                };
                let points = if g > 0.0 {
                    ((upper - origin) / g + 1e-9).floor() as i64
                } else {
                    0
                };
                let ka = rng.random_range(0..=points);
                let kb = if rng.random_bool(0.25) {
                    ka
                } else {
                    rng.random_range(ka..=points)
                };
                f.actionability.lower = Some(origin + ka as f64 * g);
                f.actionability.upper = Some((origin + kb as f64 * g).min(upper));
            }
        }
        if rng.random_bool(0.15) {
            f = f.immutable();
        }
        random_instances::random_direction_and_forbidden(&mut f, rng, 0.3, true);
        let n_ind = f.encoded_width() - usize::from(f.is_contiguous());
        let mut weight = || {
            if rng.random_bool(0.15) {
                0.0
            } else {
                rng.random_range(0.2..3.0)
            }
        };
        let value = if f.is_contiguous() { weight() } else { 0.0 };
        let states = (0..n_ind).map(|_| weight()).collect();
        f.weights = Some(FeatureWeights {
            value,
            states,
            anchor: rng.random_range(0.0..1.0),
        });
        feats.push(f);
    }
    Schema::new(feats).unwrap()
}

/// A model declining the factual, with about a fifth of its weights zero.
fn sparse_random_model(
    schema: &Schema,
    factual: &[f64],
    rng: &mut Xoshiro256PlusPlus,
) -> LinearModel {
    let w: Vec<f64> = (0..schema.encoded_dim())
        .map(|_| {
            if rng.random_bool(0.2) {
                0.0
            } else {
                rng.random_range(-3.0..3.0)
            }
        })
        .collect();
    let t = rng.random_range(0.3..0.7);
    let x = schema.encode(factual).unwrap();
    let s: f64 = w.iter().zip(&x).map(|(a, b)| a * b).sum();
    let bias = logit(t) - rng.random_range(0.05..3.0) - s;
    LinearModel::new(w, bias, t).unwrap()
}

#[test]
fn mip_optimum_equals_brute_force_on_wider_random_schemas() {
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(2024);
    let config = Config::default();
    let (mut feasible, mut infeasible) = (0, 0);
    for case in 0..400 {
        let schema = wide_random_schema(&mut rng);
        let factual = random_factual(&schema, &mut rng);
        let model = sparse_random_model(&schema, &factual, &mut rng);
        let oracle = brute_force(&schema, &model, &factual, config.margin);
        let ex = explain(&schema, &model, &factual, &config).unwrap();
        match (oracle, ex.counterfactuals.first()) {
            (Some(best), Some(cf)) => {
                check_counterfactual(&schema, &model, &factual, cf);
                assert!(
                    same_cost(cf.cost, best),
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
    assert!(feasible >= 200, "feasible cases: {feasible}");
    assert!(infeasible >= 5, "infeasible cases: {infeasible}");
}

/// Russell's procedure checked round by round against the oracle. For each
/// explanation the MIP returned, the oracle replays the procedure on that
/// explanation's changes — (a) forbid the new special state or level, (b) keep
/// the factual special state (the reference code: require the value state),
/// (c) freeze the value — keeping a restriction only when the oracle still finds
/// a counterfactual, and the next explanation's cost must equal the oracle's
/// optimum under the accumulated restrictions. When the MIP stops early, either
/// every restriction of the round was dropped or the oracle's optimum repeats
/// the cost of an earlier explanation.
#[test]
fn russell_diversity_matches_brute_force_round_by_round() {
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(1904);
    for (rule, reference) in [
        (DiversityRule::Russell, false),
        (DiversityRule::RussellReferenceCode, true),
    ] {
        let config = Config {
            diversity: rule,
            n_diverse: 4,
            ..Config::default()
        };
        let (mut rounds, mut stops) = (0, 0);
        for case in 0..150 {
            let schema = wide_random_schema(&mut rng);
            let factual = random_factual(&schema, &mut rng);
            let model = sparse_random_model(&schema, &factual, &mut rng);
            let ex = explain_diverse(&schema, &model, &factual, &config).unwrap();
            let cfs = &ex.counterfactuals;
            let mut restrictions = vec![Vec::new(); schema.n_features()];
            for k in 1..=cfs.len() {
                if k == config.n_diverse {
                    break;
                }
                let mut kept = 0;
                for ch in &cfs[k - 1].changes {
                    let i = ch.feature;
                    let f = &schema.features[i];
                    let s_new = f.state_of(ch.to).unwrap();
                    let s_old = f.state_of(factual[i]).unwrap();
                    let r = if !f.is_contiguous() || s_new != 0 {
                        Restriction::ForbidState(s_new)
                    } else if s_old != 0 && reference {
                        Restriction::RequireState(0)
                    } else if s_old != 0 {
                        Restriction::RequireState(s_old)
                    } else {
                        Restriction::FreezeValue
                    };
                    restrictions[i].push(r);
                    if brute_force_with(&schema, &model, &factual, config.margin, &restrictions)
                        .is_none()
                    {
                        restrictions[i].pop();
                    } else {
                        kept += 1;
                    }
                }
                let want =
                    brute_force_with(&schema, &model, &factual, config.margin, &restrictions)
                        .expect("the restrictions kept leave a counterfactual");
                if k < cfs.len() {
                    let got = cfs[k].cost;
                    assert!(
                        same_cost(got, want),
                        "{rule:?} case {case} round {k}: MIP {got} vs brute force {want}\n{}\n\
                         {factual:?}\n{model:?}\n{restrictions:?}",
                        schema.to_json()
                    );
                    check_counterfactual(&schema, &model, &factual, &cfs[k]);
                    rounds += 1;
                } else {
                    let repeats = cfs.iter().any(|c| same_cost(c.cost, want));
                    assert!(
                        kept == 0 || repeats,
                        "{rule:?} case {case}: stopped after {k} explanations although the \
                         oracle finds a new optimum {want}\n{}\n{factual:?}\n{model:?}\n\
                         {restrictions:?}",
                        schema.to_json()
                    );
                    stops += 1;
                }
            }
        }
        assert!(
            rounds >= 30 && stops >= 20,
            "{rule:?}: {rounds} rounds, {stops} stops"
        );
    }
}

/// Russell's case (b) with two special states: the applicant sits in "−8",
/// the cheapest change moves into the value range, the next cheapest moves
/// to "−7". The evident intent keeps "−8" in the second explanation (neither
/// the value range nor "−7"), so `other` must carry it; the reference code's
/// `d_{i,c} = 1` instead forces the value range and repeats the optimum.
#[test]
fn russell_case_b_with_two_special_states_keeps_the_factual_state() {
    let mut delq = Feature::contiguous("delq", 0.0, 10.0)
        .with_special(-7.0, "no record")
        .with_special(-8.0, "no usable trades");
    delq.weights = Some(FeatureWeights {
        value: 0.1,
        states: vec![0.1, 0.2],
        anchor: 0.5,
    });
    let mut other = Feature::contiguous("other", 0.0, 10.0);
    other.weights = Some(FeatureWeights {
        value: 5.0,
        states: vec![],
        anchor: 0.5,
    });
    let schema = Schema::new(vec![delq, other]).unwrap();
    // columns: delq slot, [−7], [−8], other slot
    let model = LinearModel::new(vec![2.0, 1.0, -3.0, 6.0], -1.5, 0.5).unwrap();
    let factual = [-8.0, 2.0];
    let config = Config {
        n_diverse: 3,
        ..Config::default()
    };
    let ex = explain_diverse(&schema, &model, &factual, &config).unwrap();
    let raws: Vec<&Vec<f64>> = ex.counterfactuals.iter().map(|c| &c.raw).collect();
    assert!(raws.len() >= 2, "{raws:?}");
    assert!(raws[0][0] >= 0.0, "{raws:?}");
    assert_eq!(raws[1][0], -8.0, "{raws:?}");
    assert!(raws[1][1] > 2.0, "{raws:?}");
    // the oracle agrees on both costs
    let n = schema.n_features();
    let best = brute_force(&schema, &model, &factual, config.margin).unwrap();
    assert!(same_cost(ex.counterfactuals[0].cost, best));
    let mut r = vec![Vec::new(); n];
    r[0].push(Restriction::RequireState(2));
    let second = brute_force_with(&schema, &model, &factual, config.margin, &r).unwrap();
    assert!(same_cost(ex.counterfactuals[1].cost, second));
    // without the fix, "−7" would be the runner-up: the test separates the rules
    r[0] = vec![Restriction::FreezeValue];
    let to_minus7 = brute_force_with(&schema, &model, &factual, config.margin, &r).unwrap();
    assert!(to_minus7 < second);
    let reference = Config {
        diversity: DiversityRule::RussellReferenceCode,
        ..config
    };
    let ex = explain_diverse(&schema, &model, &factual, &reference).unwrap();
    assert_eq!(ex.counterfactuals.len(), 1);
}

// ---------------------------------------------------------------------------
// Solver outcomes reported as they are.
// ---------------------------------------------------------------------------

/// With margin 0 the MIP's optimum sits on the boundary (score exactly
/// logit(t) = 0 at trades = 3: 10·0.3 − 3), which the strict acceptance test
/// refuses; the solve is repeated at margin 1e-9 and the answer (trades = 4)
/// says so in its `margin`, also in its JSON. At the default margin nothing
/// escalates and the answer reports the configured margin.
#[test]
fn an_escalated_margin_is_reported() {
    let schema = Schema::new(vec![Feature::contiguous("trades", 0.0, 10.0).integer()]).unwrap();
    let model = LinearModel::new(vec![10.0], -3.0, 0.5).unwrap();
    let zero = Config {
        margin: 0.0,
        ..Config::default()
    };
    let ex = explain(&schema, &model, &[1.0], &zero).unwrap();
    let cf = &ex.counterfactuals[0];
    assert_eq!(cf.raw, vec![4.0]);
    assert_eq!(cf.margin, 1e-9);
    let json = serde_json::to_value(&ex).unwrap();
    assert_eq!(
        json["counterfactuals"][0]["margin"],
        serde_json::json!(1e-9)
    );
    let ex = explain(&schema, &model, &[1.0], &Config::default()).unwrap();
    assert_eq!(ex.counterfactuals[0].raw, vec![4.0]);
    assert_eq!(ex.counterfactuals[0].margin, 1e-6);
}

/// Russell's procedure drops a fix only when the program is infeasible: a
/// re-solve that ends on a time limit or an unknown status stops the
/// procedure and is reported in `diversity_stopped` (the first solve runs for
/// real; the hook forces the second). A forced infeasible re-solve drops the
/// fix instead, without a report.
#[test]
fn russell_stops_on_an_undecided_solve_and_drops_only_infeasible_fixes() {
    let schema = two_feature_schema();
    let mut w = vec![0.0; schema.encoded_dim()];
    w[1] = -3.0; // less debt helps
    w[2] = 3.0; // so does "no debt record"
    w[4] = 3.0; // and owning
    let model = LinearModel::new(w, -2.0, 0.5).unwrap();
    let factual = [30.0, 40.0, 0.0];
    // The statuses are forced on HiGHS, so the MIP path is chosen explicitly.
    let config = Config {
        n_diverse: 3,
        solver: SolverChoice::Mip,
        ..Config::default()
    };
    let free = explain_diverse(&schema, &model, &factual, &config).unwrap();
    assert!(free.counterfactuals.len() >= 2, "{free:?}");
    assert_eq!(free.diversity_stopped, None);
    for (status, outcome) in [
        (
            MipStatus::TimeLimit,
            Outcome::TimeLimit {
                has_solution: false,
            },
        ),
        (MipStatus::Unknown(15), Outcome::Unknown { raw_status: 15 }),
    ] {
        force_statuses(vec![None, Some(status)]);
        let ex = explain_diverse(&schema, &model, &factual, &config).unwrap();
        force_statuses(vec![]);
        assert_eq!(ex.counterfactuals.len(), 1);
        assert_eq!(ex.counterfactuals[0].raw, free.counterfactuals[0].raw);
        assert_eq!(ex.diversity_stopped, Some(outcome.clone()));
        let json = serde_json::to_value(&ex).unwrap();
        assert_eq!(
            json["diversity_stopped"],
            serde_json::to_value(&outcome).unwrap()
        );
    }
    // A forced infeasible re-solve is a proof: the only fix of the round (the
    // optimum changes debt alone) is dropped, so the procedure ends normally
    // with no alternative, and nothing is reported as stopped.
    assert_eq!(free.counterfactuals[0].changes.len(), 1);
    force_statuses(vec![None, Some(MipStatus::Infeasible)]);
    let ex = explain_diverse(&schema, &model, &factual, &config).unwrap();
    force_statuses(vec![]);
    assert_eq!(ex.diversity_stopped, None);
    assert_eq!(ex.counterfactuals.len(), 1, "{ex:?}");
    // The same for distinct subsets.
    let subsets = Config {
        diversity: DiversityRule::DistinctSubsets,
        ..config
    };
    force_statuses(vec![None, Some(MipStatus::TimeLimit)]);
    let ex = explain_diverse(&schema, &model, &factual, &subsets).unwrap();
    force_statuses(vec![]);
    assert_eq!(ex.counterfactuals.len(), 1);
    assert_eq!(
        ex.diversity_stopped,
        Some(Outcome::TimeLimit {
            has_solution: false
        })
    );
}

/// A relaxed re-solve that times out makes its groups "undecided", not
/// blocking and not cleared: only age helps and age is immutable, so relaxing
/// the immutables is the one smallest blocking set. When that re-solve times
/// out, the outcome says so, and the blocking sets found instead (supersets
/// of it) are reported as such, with the text naming both.
#[test]
fn a_timed_out_relaxed_solve_is_undecided_not_blocking() {
    let schema = two_feature_schema();
    let mut w = vec![0.0; schema.encoded_dim()];
    w[0] = 4.0;
    let model = LinearModel::new(w, -3.0, 0.5).unwrap();
    let factual = [30.0, 40.0, 0.0];
    // the first solve (infeasible) for real, then the first relaxation (immutables) times out
    force_statuses(vec![None, Some(MipStatus::TimeLimit)]);
    let mip = Config {
        solver: SolverChoice::Mip,
        ..Config::default()
    };
    let ex = explain(&schema, &model, &factual, &mip).unwrap();
    force_statuses(vec![]);
    let Outcome::Infeasible {
        blocking,
        undecided,
    } = &ex.outcome
    else {
        panic!("{:?}", ex.outcome)
    };
    assert_eq!(undecided, &vec![vec![ConstraintGroup::Immutables]]);
    assert!(!blocking.is_empty());
    for set in blocking {
        assert!(
            set.contains(&ConstraintGroup::Immutables) && set.len() == 2,
            "{set:?}"
        );
    }
    let text = ex.to_text();
    assert!(
        text.contains("undecided") && text.contains("immutable"),
        "{text}"
    );
}

/// The distinct-subsets rule checked round by round against the oracle:
/// explanation k must cost what the oracle finds when every combination
/// leaves at least one feature of each earlier explanation's changed set
/// unchanged; when the MIP stops early the oracle finds nothing either.
#[test]
fn distinct_subsets_match_brute_force_round_by_round() {
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(2021);
    let config = Config {
        diversity: DiversityRule::DistinctSubsets,
        n_diverse: 4,
        ..Config::default()
    };
    let (mut rounds, mut stops) = (0, 0);
    for case in 0..150 {
        let schema = wide_random_schema(&mut rng);
        let factual = random_factual(&schema, &mut rng);
        let model = sparse_random_model(&schema, &factual, &mut rng);
        let ex = explain_diverse(&schema, &model, &factual, &config).unwrap();
        let cfs = &ex.counterfactuals;
        let none = vec![Vec::new(); schema.n_features()];
        let mut nogoods: Vec<Vec<usize>> = Vec::new();
        for k in 1..=cfs.len() {
            if k == config.n_diverse {
                break;
            }
            nogoods.push(cfs[k - 1].changes.iter().map(|c| c.feature).collect());
            let want = brute_force_full(&schema, &model, &factual, config.margin, &none, &nogoods);
            if k < cfs.len() {
                let want = want.expect("the oracle finds the MIP's alternative");
                assert!(
                    same_cost(cfs[k].cost, want),
                    "case {case} round {k}: MIP {} vs brute force {want}\n{}\n{factual:?}\n\
                     {model:?}\n{nogoods:?}",
                    cfs[k].cost,
                    schema.to_json()
                );
                check_counterfactual(&schema, &model, &factual, &cfs[k]);
                rounds += 1;
            } else {
                assert!(
                    want.is_none(),
                    "case {case}: stopped after {k} explanations although the oracle finds {want:?}\n\
                     {}\n{factual:?}\n{model:?}\n{nogoods:?}",
                    schema.to_json()
                );
                stops += 1;
            }
        }
    }
    assert!(
        rounds >= 40 && stops >= 20,
        "{rounds} rounds, {stops} stops"
    );
}

/// Robust advice (Config::robustness) on 300 random small schemas, both
/// solvers: the answer's exact Γ meets the target, and its cost equals the
/// brute-force optimum under the closed-form margin computed by hand
/// (σ·‖w_S‖·Φ⁻¹(1 − γ) over the value slots of the mutable contiguous
/// features) — the independent oracle of the optimality claim.
#[test]
fn robust_advice_meets_its_target_at_the_brute_force_optimum() {
    for solver in [SolverChoice::Mip, SolverChoice::Separable] {
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(16);
        let (mut found, mut with_margin) = (0, 0);
        for case in 0..300 {
            let schema = random_schema(&mut rng);
            let factual = random_factual(&schema, &mut rng);
            let model = random_model(&schema, &factual, &mut rng);
            let gamma = [0.01, 0.1, 0.3][case % 3];
            let sigma2 = 0.01;
            let config = Config {
                solver,
                robustness: Some(Robustness {
                    sigma2,
                    invalidation_target: gamma,
                    box_kind: Default::default(),
                }),
                ..Config::default()
            };
            let mut norm2 = 0.0;
            for (i, f) in schema.features.iter().enumerate() {
                if let Some(c) = schema.layout(i).value {
                    if f.actionability.mutable {
                        norm2 += model.weights[c] * model.weights[c];
                    }
                }
            }
            let by_hand = sigma2.sqrt() * norm2.sqrt() * crate::noise::normal_quantile(1.0 - gamma);
            let oracle = brute_force(&schema, &model, &factual, by_hand + config.margin);
            let ex = explain(&schema, &model, &factual, &config).unwrap();
            match (oracle, ex.counterfactuals.first()) {
                (Some(best), Some(cf)) => {
                    check_counterfactual(&schema, &model, &factual, cf);
                    assert!(
                        same_cost(cf.cost, best),
                        "case {case} ({solver:?}): robust optimum {} vs brute force {best}",
                        cf.cost
                    );
                    let g = cf.invalidation_rate.expect("robust answers carry Γ");
                    let noise =
                        crate::noise::NoiseModel::gaussian_for_schema(&schema, sigma2).unwrap();
                    let exact = crate::noise::linear_invalidation_rate(&model, &cf.encoded, &noise)
                        .unwrap();
                    assert!((g - exact).abs() < 1e-15);
                    assert!(g <= gamma * (1.0 + 1e-9), "case {case}: Γ = {g} > {gamma}");
                    found += 1;
                    with_margin += usize::from(by_hand > 1e-3);
                }
                (None, None) => {
                    assert!(matches!(ex.outcome, Outcome::Infeasible { .. }))
                }
                (o, c) => panic!("case {case}: oracle {o:?} vs {:?}", c.map(|c| c.cost)),
            }
        }
        assert!(
            found >= 60 && with_margin >= 60,
            "{found} found, {with_margin} with a margin"
        );
    }
}

/// Robustness is refused where the closed form does not exist, and bad
/// targets are errors.
#[test]
fn robust_advice_refuses_bad_targets() {
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(7);
    let schema = random_schema(&mut rng);
    let factual = random_factual(&schema, &mut rng);
    let model = random_model(&schema, &factual, &mut rng);
    for (sigma2, gamma) in [
        (0.01, 0.0),
        (0.01, 1.0),
        (-1.0, 0.1),
        (f64::NAN, 0.1),
        (0.01, f64::NAN),
    ] {
        let config = Config {
            robustness: Some(Robustness {
                sigma2,
                invalidation_target: gamma,
                box_kind: Default::default(),
            }),
            ..Config::default()
        };
        assert!(matches!(
            explain(&schema, &model, &factual, &config),
            Err(Error::InvalidArgument(_))
        ));
    }
    let json = r#"{"sigma2": 0.01, "invalidation_target": 0.1, "sigma": 1}"#;
    let err = serde_json::from_str::<Robustness>(json)
        .unwrap_err()
        .to_string();
    assert!(err.contains("sigma"), "{err}");
}
