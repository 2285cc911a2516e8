//! The scorecard program against brute-force enumeration.
//!
//! The oracle knows nothing of the MIP: for every feature it lists where the
//! applicant may go — each allowed special state or level (with its points),
//! staying put, every grid point of an integer/step feature inside the
//! actionable range and direction, and for a real-valued feature the cheapest
//! point of every bin in closed form (the point of the bin's interval ∩ the
//! actionable range ∩ the direction's half-line nearest the anchor, an
//! excluded edge kept `OPEN_EDGE_GAP` away, the tolerance the MIP documents) —
//! and enumerates every combination, keeping the cheapest whose points reach
//! the cutoff.

use super::program::{CLOSED_EDGE_GAP, OPEN_EDGE_GAP};
use super::random_instances::random_factual;
use super::tests::random_schema;
use super::*;
use crate::model::Model;
use crate::model::scorecard::{Bin, BinRange, Characteristic, Scorecard};
use crate::schema::{Direction, FeatureKind};
use rand::{Rng, SeedableRng};
use rand_xoshiro::Xoshiro256PlusPlus;

/// A destination of one feature: (points, cost).
type Dest = (f64, f64);

fn points(rng: &mut Xoshiro256PlusPlus) -> f64 {
    // Whole points half of the time, so that totals tie with the cutoff.
    if rng.random_bool(0.5) {
        rng.random_range(-5..=8) as f64
    } else {
        rng.random_range(-5.0..8.0)
    }
}

/// A random partition of `items` into 1–3 groups.
fn groups<T: Clone>(items: &[T], rng: &mut Xoshiro256PlusPlus) -> Vec<Vec<T>> {
    let k = rng.random_range(1..=3usize.min(items.len().max(1)));
    let mut out = vec![Vec::new(); k];
    for (j, it) in items.iter().enumerate() {
        let g = if j < k { j } else { rng.random_range(0..k) };
        out[g].push(it.clone());
    }
    out.retain(|g| !g.is_empty());
    out
}

fn random_scorecard(schema: &Schema, rng: &mut Xoshiro256PlusPlus) -> Vec<Characteristic> {
    let mut out = Vec::new();
    for f in &schema.features {
        if rng.random_bool(0.1) {
            continue; // not on the scorecard: 0 points
        }
        let mut bins = Vec::new();
        match &f.kind {
            FeatureKind::Contiguous {
                lower,
                upper,
                integer,
                step,
                special_states,
                ..
            } => {
                let n_cuts = rng.random_range(0..=3);
                let mut cuts: Vec<f64> = (0..n_cuts)
                    .map(|_| {
                        let g = step.unwrap_or(1.0);
                        if (*integer || step.is_some()) && rng.random_bool(0.7) {
                            // on a grid point or half-way between two
                            let k = rng.random_range(0..=((upper - lower) / g) as i64) as f64;
                            lower + k * g + if rng.random_bool(0.5) { 0.0 } else { g / 2.0 }
                        } else {
                            rng.random_range(*lower..=*upper)
                        }
                    })
                    .collect();
                cuts.sort_by(f64::total_cmp);
                cuts.dedup();
                let mut lo: Option<f64> = None;
                let mut lo_closed = false;
                for &c in &cuts {
                    let left_has_edge = rng.random_bool(0.5);
                    bins.push(Bin {
                        range: BinRange::Interval {
                            lower: lo,
                            upper: Some(c),
                            lower_closed: lo_closed,
                            upper_closed: left_has_edge,
                        },
                        points: points(rng),
                    });
                    lo = Some(c);
                    lo_closed = !left_has_edge;
                }
                bins.push(Bin {
                    range: BinRange::Interval {
                        lower: lo,
                        upper: None,
                        lower_closed: lo_closed,
                        upper_closed: false,
                    },
                    points: points(rng),
                });
                let codes: Vec<f64> = special_states.iter().map(|s| s.code).collect();
                if !codes.is_empty() {
                    for g in groups(&codes, rng) {
                        bins.push(Bin {
                            range: BinRange::Special { codes: g },
                            points: points(rng),
                        });
                    }
                }
            }
            FeatureKind::Categorical { levels } => {
                for g in groups(levels, rng) {
                    bins.push(Bin {
                        range: BinRange::Levels { levels: g },
                        points: points(rng),
                    });
                }
            }
        }
        out.push(Characteristic {
            feature: f.name.clone(),
            bins,
        });
    }
    out
}

/// Every destination of feature `i` (see the module docs).
fn destinations(schema: &Schema, card: &Scorecard, factual: &[f64], i: usize) -> Vec<Dest> {
    let f = &schema.features[i];
    let w = schema.weights(i);
    let s_f = f.state_of(factual[i]).unwrap();
    // The change in points when feature i alone takes a state / raw value.
    let own = card.score_raw(schema, factual).unwrap();
    let points_at = |raw: f64| {
        let mut row = factual.to_vec();
        row[i] = raw;
        card.score_raw(schema, &row).unwrap() - own
    };
    let ind_w = |s: usize| -> f64 {
        if f.is_contiguous() {
            if s == 0 { 0.0 } else { w.states[s - 1] }
        } else {
            w.states[s]
        }
    };
    let move_cost = |s: usize| if s == s_f { 0.0 } else { ind_w(s_f) + ind_w(s) };
    let mut out = Vec::new();
    let FeatureKind::Contiguous {
        lower,
        upper,
        integer,
        step,
        special_states,
        ..
    } = &f.kind
    else {
        for s in 0..f.n_states() {
            if !schema.transition_allowed(i, s_f, s) {
                continue;
            }
            if s != s_f {
                match f.actionability.direction {
                    Direction::IncreaseOnly if s < s_f => continue,
                    Direction::DecreaseOnly if s > s_f => continue,
                    _ => {}
                }
            }
            out.push((points_at(s as f64), move_cost(s)));
        }
        return out;
    };
    for s in 1..f.n_states() {
        if schema.transition_allowed(i, s_f, s) {
            out.push((points_at(special_states[s - 1].code), move_cost(s)));
        }
    }
    if s_f == 0 {
        out.push((points_at(factual[i]), 0.0)); // stay
        if !f.actionability.mutable {
            return out;
        }
    } else if !schema.transition_allowed(i, s_f, 0) {
        return out;
    }
    let slot = |raw: f64| schema.value_to_slot(i, raw);
    let (lo, hi) = schema.actionable_range(i).unwrap();
    let (anchor, base) = if s_f == 0 {
        (slot(factual[i]), 0.0)
    } else {
        (w.anchor.clamp(slot(lo), slot(hi)), ind_w(s_f))
    };
    let dir = if s_f == 0 {
        f.actionability.direction
    } else {
        Direction::Any
    };
    let (mut a, mut b) = (slot(lo), slot(hi));
    match dir {
        Direction::IncreaseOnly => a = a.max(anchor),
        Direction::DecreaseOnly => b = b.min(anchor),
        Direction::Any => {}
    }
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
            Some(st) => (st, (lower / st).ceil() * st),
            None => (step.unwrap_or(1.0), *lower),
        };
        let mut k = 0.0;
        loop {
            let raw = origin + k * g;
            if raw > upper + 1e-9 {
                break;
            }
            k += 1.0;
            if *integer && (raw - raw.round()).abs() > 1e-9 {
                continue;
            }
            if (raw - factual[i]).abs() < m - 1e-9 {
                continue;
            }
            let c = slot(raw);
            if c < a - 1e-12 || c > b + 1e-12 {
                continue;
            }
            out.push((points_at(raw), base + w.value * (c - anchor).abs()));
        }
        return out;
    }
    if upper <= lower {
        out.push((points_at(*lower), base));
        return out;
    }
    // A real-valued feature: the cheapest point of each bin.
    let card_char = card.characteristics.iter().find(|c| c.feature == f.name);
    let Some(ch) = card_char else {
        // Not scored: moving never pays; the cheapest value is the anchor's.
        if a <= b {
            out.push((0.0, base + w.value * (anchor.clamp(a, b) - anchor).abs()));
        }
        return out;
    };
    // The feature's own points now, to turn a bin's points into a change.
    let own_points = {
        let mut probe = ch.clone();
        for b in &mut probe.bins {
            b.points = 0.0;
        }
        let mut row = factual.to_vec();
        // points of the factual state: total minus the total with this
        // characteristic zeroed
        let mut others = card.characteristics.clone();
        let k = others.iter().position(|c| c.feature == f.name).unwrap();
        others[k] = probe;
        let zeroed = Scorecard::new(schema, card.base_points, card.cutoff, None, others).unwrap();
        row[i] = factual[i];
        own - zeroed.score_raw(schema, &row).unwrap()
    };
    for bin in &ch.bins {
        let BinRange::Interval {
            lower: bl,
            upper: bu,
            lower_closed,
            upper_closed,
        } = &bin.range
        else {
            continue;
        };
        let bl = bl.map_or(f64::NEG_INFINITY, |v| {
            slot(v)
                + if *lower_closed {
                    CLOSED_EDGE_GAP
                } else {
                    OPEN_EDGE_GAP
                }
        });
        let bu = bu.map_or(f64::INFINITY, |v| {
            slot(v)
                - if *upper_closed {
                    CLOSED_EDGE_GAP
                } else {
                    OPEN_EDGE_GAP
                }
        });
        let (p, q) = (a.max(bl), b.min(bu));
        // Less the band (v − m, v + m) the minimum change excludes.
        let band = m / (upper - lower);
        let pieces = if band > 0.0 {
            vec![(p, q.min(anchor - band)), (p.max(anchor + band), q)]
        } else {
            vec![(p, q)]
        };
        for (p, q) in pieces {
            if p <= q {
                let c = anchor.clamp(p, q);
                out.push((bin.points - own_points, base + w.value * (c - anchor).abs()));
            }
        }
    }
    out
}

fn brute_force(schema: &Schema, card: &Scorecard, factual: &[f64]) -> Option<f64> {
    let n = schema.n_features();
    let dests: Vec<Vec<Dest>> = (0..n)
        .map(|i| destinations(schema, card, factual, i))
        .collect();
    if dests.iter().any(|d| d.is_empty()) {
        return None;
    }
    let need = card.cutoff - card.score_raw(schema, factual).unwrap();
    let mut best: Option<f64> = None;
    let mut idx = vec![0usize; n];
    loop {
        let (mut pts, mut cost) = (0.0, 0.0);
        for i in 0..n {
            pts += dests[i][idx[i]].0;
            cost += dests[i][idx[i]].1;
        }
        if pts >= need - 1e-9 && best.is_none_or(|b| cost < b) {
            best = Some(cost);
        }
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

/// A random schema (2–4 features: real, integer and step grids, special states,
/// categoricals, bounds, directions, immutables, forbidden transitions), some
/// features with zero distance weights.
fn schema_with_zero_weights(rng: &mut Xoshiro256PlusPlus) -> Schema {
    let s = random_schema(rng);
    let mut features = s.features.clone();
    for f in &mut features {
        if rng.random_bool(0.15) {
            if let Some(w) = &mut f.weights {
                w.value = 0.0;
                for x in &mut w.states {
                    *x = 0.0;
                }
            }
        }
    }
    Schema::new(features).unwrap()
}

fn check_answer(schema: &Schema, card: &Scorecard, factual: &[f64], cf: &Counterfactual) {
    let enc = schema.encode(&cf.raw).unwrap();
    assert_eq!(schema.decode(&enc).unwrap(), cf.raw, "decodes coherently");
    let pts = card.score_raw(schema, &cf.raw).unwrap();
    assert!(
        pts >= card.cutoff,
        "accepted: {pts} vs cutoff {}",
        card.cutoff
    );
    assert_eq!(cf.score, pts);
    assert!(card.accepts(&enc));
    schema.check_actionable(factual, &cf.raw).unwrap();
    assert!((cost(schema, factual, &cf.raw).unwrap() - cf.cost).abs() < 1e-9);
    assert!(
        (cf.objective - cf.cost).abs() < 1e-6,
        "objective {} vs cost {}",
        cf.objective,
        cf.cost
    );
}

/// A random scorecard instance: schema (some zero distance weights), a
/// coherent applicant, and a card whose cutoff lies 0.1–4 points above the
/// applicant's total (whole points 60% of the time, so that answers tie with it).
fn random_card_instance(rng: &mut Xoshiro256PlusPlus) -> (Schema, Vec<f64>, Scorecard) {
    let schema = schema_with_zero_weights(rng);
    card_instance_on(schema, rng)
}

/// [`random_card_instance`] on a given schema.
fn card_instance_on(schema: Schema, rng: &mut Xoshiro256PlusPlus) -> (Schema, Vec<f64>, Scorecard) {
    let factual = random_factual(&schema, rng);
    let chars = random_scorecard(&schema, rng);
    let base = rng.random_range(-3..=3) as f64;
    let probe = Scorecard::new(&schema, base, 0.0, None, chars.clone()).unwrap();
    let own = probe.score_raw(&schema, &factual).unwrap();
    let cutoff = if rng.random_bool(0.6) {
        own + rng.random_range(1..=4) as f64
    } else {
        own + rng.random_range(0.1..4.0)
    };
    let card = Scorecard::new(&schema, base, cutoff, None, chars).unwrap();
    (schema, factual, card)
}

fn solver_config(solver: SolverChoice) -> Config {
    Config {
        solver,
        ..Config::default()
    }
}

#[test]
fn scorecard_mip_optimum_equals_brute_force_on_random_small_scorecards() {
    scorecard_optimum_equals_brute_force(SolverChoice::Mip, ProvedBy::Highs);
}

#[test]
fn scorecard_separable_optimum_equals_brute_force_on_random_small_scorecards() {
    scorecard_optimum_equals_brute_force(SolverChoice::Separable, ProvedBy::Separable);
}

/// `solver`'s optimum against the brute-force oracle on 300 feasible random
/// small scorecards (and the infeasible ones met on the way).
fn scorecard_optimum_equals_brute_force(solver: SolverChoice, by: ProvedBy) {
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(2021);
    let config = solver_config(solver);
    let (mut feasible, mut infeasible, mut ties) = (0, 0, 0);
    let mut case = 0;
    while feasible < 300 {
        case += 1;
        assert!(case < 5000, "too few usable cases");
        let (schema, factual, card) = random_card_instance(&mut rng);
        let oracle = brute_force(&schema, &card, &factual);
        let ex = explain(&schema, &card, &factual, &config).unwrap();
        assert_eq!(ex.proved_by, by);
        match (oracle, ex.counterfactuals.first()) {
            (Some(best), Some(cf)) => {
                assert_eq!(ex.outcome, Outcome::Optimal, "case {case}");
                check_answer(&schema, &card, &factual, cf);
                assert!(
                    same_cost(cf.cost, best),
                    "case {case}: {by:?} {} vs brute force {best}\n{}\n{factual:?}\n{}",
                    cf.cost,
                    schema.to_json(),
                    crate::model::AnyModel::Scorecard(card.clone()).to_json()
                );
                ties += usize::from(cf.score == card.cutoff);
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
                "case {case}: oracle {o:?} vs {by:?} {:?}\n{}\n{factual:?}\n{}",
                c.map(|c| (&c.raw, c.cost)),
                schema.to_json(),
                crate::model::AnyModel::Scorecard(card.clone()).to_json()
            ),
        }
    }
    assert!(infeasible >= 5, "infeasible cases: {infeasible}");
    assert!(ties >= 5, "answers exactly at the cutoff: {ties}");
}

/// Advice grids and minimum changes (issue 43) under scorecards: both solvers
/// equal the brute force over every multiple of each advice step and every
/// bin's cheapest point outside the band the minimum change excludes, and
/// every answer is on its grid and meets its minimum (`Schema::check_advice`).
#[test]
fn scorecard_optima_honour_advice_grids_and_min_changes_against_brute_force() {
    for (solver, by) in [
        (SolverChoice::Mip, ProvedBy::Highs),
        (SolverChoice::Separable, ProvedBy::Separable),
    ] {
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(4343);
        let config = solver_config(solver);
        let mut feasible = 0;
        for case in 0..300 {
            let plain = schema_with_zero_weights(&mut rng);
            let schema = super::random_instances::with_random_advice(plain, &mut rng);
            let (schema, factual, card) = card_instance_on(schema, &mut rng);
            let oracle = brute_force(&schema, &card, &factual);
            let ex = explain(&schema, &card, &factual, &config).unwrap();
            assert_eq!(ex.proved_by, by);
            match (oracle, ex.counterfactuals.first()) {
                (Some(best), Some(cf)) => {
                    check_answer(&schema, &card, &factual, cf);
                    schema
                        .check_advice(&factual, &cf.raw, 0)
                        .unwrap_or_else(|e| {
                            panic!("case {case} {by:?}: {e}\n{}", schema.to_json())
                        });
                    assert!(
                        same_cost(cf.cost, best),
                        "case {case}: {by:?} {} vs brute force {best}\n{}\n{factual:?}\n{}",
                        cf.cost,
                        schema.to_json(),
                        crate::model::AnyModel::Scorecard(card.clone()).to_json()
                    );
                    feasible += 1;
                }
                (None, None) => {}
                (o, c) => panic!(
                    "case {case}: oracle {o:?} vs {by:?} {:?}\n{}\n{factual:?}\n{}",
                    c.map(|c| (&c.raw, c.cost)),
                    schema.to_json(),
                    crate::model::AnyModel::Scorecard(card.clone()).to_json()
                ),
            }
        }
        assert!(feasible >= 150, "feasible cases: {feasible}");
    }
}

#[test]
fn scorecard_diverse_sets_are_distinct_valid_and_ordered_by_cost() {
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(77);
    for rule in [DiversityRule::Russell, DiversityRule::DistinctSubsets] {
        let config = Config {
            diversity: rule,
            n_diverse: 4,
            ..Config::default()
        };
        let mut multi = 0;
        for _ in 0..80 {
            let schema = random_schema(&mut rng);
            let factual = random_factual(&schema, &mut rng);
            let chars = random_scorecard(&schema, &mut rng);
            let probe = Scorecard::new(&schema, 0.0, 0.0, None, chars.clone()).unwrap();
            let own = probe.score_raw(&schema, &factual).unwrap();
            let card = Scorecard::new(
                &schema,
                0.0,
                own + rng.random_range(1..=4) as f64,
                None,
                chars,
            )
            .unwrap();
            let ex = explain_diverse(&schema, &card, &factual, &config).unwrap();
            let cfs = &ex.counterfactuals;
            assert!(cfs.len() <= 4);
            for (k, cf) in cfs.iter().enumerate() {
                check_answer(&schema, &card, &factual, cf);
                for other in &cfs[..k] {
                    assert!(!same_row(&cf.raw, &other.raw));
                    assert!(cf.cost >= other.cost - 1e-6);
                }
            }
            multi += usize::from(cfs.len() > 1);
        }
        assert!(multi >= 10, "{rule:?}: sets with alternatives: {multi}");
    }
}

#[test]
fn scorecard_no_recourse_names_the_blocking_groups() {
    use crate::schema::Feature;
    // One immutable integer feature decides everything.
    let schema = Schema::new(vec![
        Feature::contiguous("age", 18.0, 80.0).integer().immutable(),
        Feature::categorical("c", &["a", "b"]),
    ])
    .unwrap();
    let card = Scorecard::new(
        &schema,
        0.0,
        10.0,
        None,
        vec![Characteristic {
            feature: "age".into(),
            bins: vec![
                Bin {
                    range: BinRange::Interval {
                        lower: None,
                        upper: Some(30.0),
                        lower_closed: false,
                        upper_closed: false,
                    },
                    points: 0.0,
                },
                Bin {
                    range: BinRange::Interval {
                        lower: Some(30.0),
                        upper: None,
                        lower_closed: true,
                        upper_closed: false,
                    },
                    points: 10.0,
                },
            ],
        }],
    )
    .unwrap();
    let ex = explain(&schema, &card, &[25.0, 0.0], &Config::default()).unwrap();
    assert_eq!(
        ex.outcome,
        Outcome::Infeasible {
            blocking: vec![vec![ConstraintGroup::Immutables]],
            undecided: Vec::new(),
        }
    );
    // Mutable: the cheapest move is exactly onto the closed edge 30.
    let mut f = schema.features.clone();
    f[0].actionability.mutable = true;
    let schema = Schema::new(f).unwrap();
    let ex = explain(&schema, &card, &[25.0, 0.0], &Config::default()).unwrap();
    assert_eq!(ex.counterfactuals[0].raw, vec![30.0, 0.0]);
    assert_eq!(ex.counterfactuals[0].score, 10.0);
    let text = ex.to_text();
    assert!(text.starts_with("declined: score 0\n"), "{text}");
    assert!(
        text.contains("(cost 0.081, score 10): age: 25 → 30"),
        "{text}"
    );
    // Already accepted: an error, as for linear models.
    assert!(explain(&schema, &card, &[30.0, 0.0], &Config::default()).is_err());
}

fn same_cost(a: f64, b: f64) -> bool {
    (a - b).abs() <= 1e-9 * a.abs().max(b.abs()) + 1e-12
}

/// Issue 14's oracle for scorecards: on 10,000 random scorecards (special
/// states, categoricals, integer and step grids, open and closed edges,
/// directions, bounds, immutables, forbidden transitions, zero weights, whole
/// points tying with the cutoff) the separable solver's cost equals the HiGHS
/// MIP's within 1e-9 relative, and feasibility (with the blocking groups)
/// agrees. `auto` picks the separable solver.
#[test]
fn scorecard_separable_cost_equals_highs_on_10000_random_scorecards() {
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(1314);
    let (mip, sep) = (
        solver_config(SolverChoice::Mip),
        solver_config(SolverChoice::Auto),
    );
    let (mut feasible, mut infeasible, mut positive) = (0, 0, 0);
    for case in 0..10_000 {
        let (schema, factual, card) = random_card_instance(&mut rng);
        let a = explain(&schema, &card, &factual, &sep).unwrap();
        let b = explain(&schema, &card, &factual, &mip).unwrap();
        assert_eq!(a.proved_by, ProvedBy::Separable);
        assert_eq!(b.proved_by, ProvedBy::Highs);
        match (a.counterfactuals.first(), b.counterfactuals.first()) {
            (Some(x), Some(y)) => {
                assert_eq!(a.outcome, Outcome::Optimal);
                check_answer(&schema, &card, &factual, x);
                assert!(
                    same_cost(x.cost, y.cost),
                    "case {case}: separable {} vs HiGHS {}\n{}\n{factual:?}\n{}\n{:?}\n{:?}",
                    x.cost,
                    y.cost,
                    schema.to_json(),
                    crate::model::AnyModel::Scorecard(card.clone()).to_json(),
                    x.raw,
                    y.raw
                );
                feasible += 1;
                positive += usize::from(x.cost > 0.0);
            }
            (None, None) => {
                assert!(matches!(a.outcome, Outcome::Infeasible { .. }));
                assert_eq!(a.outcome, b.outcome, "case {case}: same blocking groups");
                infeasible += 1;
            }
            (x, y) => panic!(
                "case {case}: separable {:?} vs HiGHS {:?} ({:?} / {:?})\n{}\n{factual:?}\n{}",
                x.map(|c| (&c.raw, c.cost)),
                y.map(|c| (&c.raw, c.cost)),
                a.outcome,
                b.outcome,
                schema.to_json(),
                crate::model::AnyModel::Scorecard(card.clone()).to_json()
            ),
        }
    }
    eprintln!("feasible {feasible} (positive cost {positive}), infeasible {infeasible}");
    assert!(
        feasible >= 5_000 && positive >= 4_000,
        "{feasible} / {positive}"
    );
    assert!(infeasible >= 100, "infeasible cases: {infeasible}");
}

/// Russell's diversity rounds (both readings of rule (b)) on scorecards: the
/// separable solver's sets cost what HiGHS's cost, round by round. Points
/// are real-valued here and every distance weight positive, so that optima are
/// unique and both solvers' answers (hence the next rounds' fixes) coincide.
#[test]
fn scorecard_russell_rounds_cost_the_same_on_both_solvers() {
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(2019);
    let mut multi = 0;
    let mut compared = 0;
    for rule in [DiversityRule::Russell, DiversityRule::RussellReferenceCode] {
        for case in 0..300 {
            let schema = random_schema(&mut rng);
            let factual = random_factual(&schema, &mut rng);
            let mut chars = random_scorecard(&schema, &mut rng);
            for ch in &mut chars {
                for b in &mut ch.bins {
                    b.points += rng.random_range(0.0..1e-3);
                }
            }
            let probe = Scorecard::new(&schema, 0.0, 0.0, None, chars.clone()).unwrap();
            let own = probe.score_raw(&schema, &factual).unwrap();
            let card = Scorecard::new(&schema, 0.0, own + rng.random_range(0.1..4.0), None, chars)
                .unwrap();
            let run = |solver| {
                let c = Config {
                    solver,
                    diversity: rule,
                    n_diverse: 4,
                    ..Config::default()
                };
                explain_diverse(&schema, &card, &factual, &c).unwrap()
            };
            let a = run(SolverChoice::Separable);
            let b = run(SolverChoice::Mip);
            let costs =
                |e: &Explanation| e.counterfactuals.iter().map(|c| c.cost).collect::<Vec<_>>();
            let (ca, cb) = (costs(&a), costs(&b));
            // A round may tie (two answers of equal cost); the rounds after a
            // tie may then differ. Compare up to and including the first tie.
            let mut tie = false;
            assert!(
                !ca.is_empty() || cb.is_empty(),
                "case {case} {rule:?}: {ca:?} vs {cb:?}"
            );
            for (k, (x, y)) in a.counterfactuals.iter().zip(&b.counterfactuals).enumerate() {
                assert!(
                    same_cost(x.cost, y.cost),
                    "case {case} {rule:?} round {k}: {ca:?} vs {cb:?}"
                );
                compared += 1;
                if !same_row(&x.raw, &y.raw) {
                    tie = true;
                    break;
                }
            }
            if !tie {
                assert_eq!(ca.len(), cb.len(), "case {case} {rule:?}: {ca:?} vs {cb:?}");
            }
            for cf in &a.counterfactuals {
                assert_eq!(cf.proved_by, ProvedBy::Separable);
                check_answer(&schema, &card, &factual, cf);
            }
            multi += usize::from(ca.len() > 1);
        }
    }
    eprintln!("{multi} multi-explanation sets, {compared} rounds compared");
    assert!(multi >= 100, "only {multi} multi-explanation sets");
}
