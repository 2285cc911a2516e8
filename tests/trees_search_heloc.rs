//! The exact tree search on FICO HELOC with the peer's 100-tree XGBoost and
//! LightGBM models (`benches/peers/trees_train.py`, read from `target/peers/`):
//! every declined held-out applicant under the XGBoost model gets a
//! proven-optimal, valid, coherent, actionable counterfactual (the first 40
//! under LightGBM's, at least 90% proven: its 15-leaf trees leave a few
//! applicants to the node limit, answered with their proven gap); on the first declined applicants the optimum
//! equals HiGHS's on the very same program (the independent solver as
//! oracle, 1e-9 relative); an answer found at a node limit is labelled as
//! such, with a lower bound that the proven optimum respects.

use cfx::coherent::separable::Workspace;
use cfx::coherent::tree_search::{SearchStatus, TreeSearch};
use cfx::coherent::{
    Config, DiversityRule, Outcome, ProvedBy, SolverChoice, explain, explain_diverse,
};
use cfx::data::{heloc, shared_data_dir};
use cfx::model::trees::ImportOptions;
use cfx::model::{Model, TreeEnsemble, logit};
use cfx::schema::Schema;
use std::path::Path;

mod common;

/// Applicants compared with HiGHS, per model.
const AGAINST_HIGHS: usize = 20;

/// The HELOC schema, the held-out rows and the peer's models by name.
type Loaded = (Schema, Vec<Vec<f64>>, Vec<(&'static str, TreeEnsemble)>);

fn load() -> Option<Loaded> {
    let peers = Path::new(env!("CARGO_MANIFEST_DIR")).join("target/peers");
    let data_path = shared_data_dir().join("heloc.csv");
    let files = [peers.join("heloc_xgb.json"), peers.join("heloc_lgbm.txt")];
    if !data_path.exists() || files.iter().any(|f| !f.exists()) {
        if common::in_ci() {
            panic!(
                "the peer's models or HELOC missing under CI (run benches/peers/trees_train.py)"
            );
        }
        eprintln!("notice: the peer's tree models or HELOC are absent; test skipped");
        return None;
    }
    let d = heloc(&data_path).unwrap();
    let (train, test) = d.holdout_split();
    let mut schema = train.schema.clone();
    schema.fit_weights(&train.rows).unwrap();
    let opts = ImportOptions::default();
    let xgb = TreeEnsemble::from_xgboost_json(
        &std::fs::read_to_string(&files[0]).unwrap(),
        &schema,
        &opts,
    )
    .unwrap();
    let lgbm = TreeEnsemble::from_lightgbm_text(
        &std::fs::read_to_string(&files[1]).unwrap(),
        &schema,
        &opts,
    )
    .unwrap();
    Some((
        schema,
        test.rows,
        vec![("xgboost", xgb), ("lightgbm", lgbm)],
    ))
}

fn same_cost(a: f64, b: f64) -> bool {
    (a - b).abs() <= 1e-9 * a.abs().max(b.abs()).max(1.0)
}

#[test]
fn every_declined_heloc_applicant_gets_a_proven_optimum_equal_to_highs_on_the_first() {
    let Some((schema, rows, models)) = load() else {
        return;
    };
    let search = Config {
        time_limit_seconds: 120.0,
        batch_threads: 1,
        ..Config::default()
    };
    let highs = Config {
        solver: SolverChoice::Mip,
        ..search
    };
    for (name, model) in &models {
        let all = *name == "xgboost";
        let declined: Vec<&Vec<f64>> = rows
            .iter()
            .filter(|r| !model.accepts(&schema.encode(r).unwrap()))
            .take(if all { usize::MAX } else { 40 })
            .collect();
        assert!(
            !all || declined.len() > 1000,
            "{name}: {} declined",
            declined.len()
        );
        let (mut compared, mut proven) = (0, 0);
        for (k, r) in declined.iter().enumerate() {
            let ex = explain(&schema, model, r, &search).unwrap();
            assert_eq!(ex.proved_by, ProvedBy::TreeSearch);
            // HELOC's schema leaves every declined applicant some recourse:
            // proven optimal, or (LightGBM, a few) an answer at the node limit
            // with its proven gap.
            match ex.outcome {
                Outcome::Optimal => proven += 1,
                Outcome::TimeLimit { has_solution: true } if !all => {
                    assert!(ex.counterfactuals[0].mip_gap > 0.0)
                }
                ref o => panic!("{name} applicant {k}: {o:?}"),
            }
            let cf = &ex.counterfactuals[0];
            let enc = schema.encode(&cf.raw).unwrap();
            assert_eq!(schema.decode(&enc).unwrap(), cf.raw, "coherent");
            assert!(model.accepts(&enc), "{name} applicant {k}: accepted");
            assert_eq!(model.score(&enc), model.margin_raw(&cf.raw));
            schema.check_actionable(r, &cf.raw).unwrap();
            assert!(same_cost(cf.objective, cf.cost));
            if k < AGAINST_HIGHS && ex.outcome == Outcome::Optimal {
                let hx = explain(&schema, model, r, &highs).unwrap();
                assert_eq!(hx.proved_by, ProvedBy::Highs);
                assert_eq!(hx.outcome, Outcome::Optimal, "{name} applicant {k} (HiGHS)");
                let h = hx.counterfactuals[0].cost;
                assert!(
                    same_cost(cf.cost, h),
                    "{name} applicant {k}: tree search {} vs HiGHS {h}",
                    cf.cost
                );
                compared += 1;
            }
        }
        eprintln!(
            "{name}: {proven}/{} declined applicants proven optimal, {compared} equal to HiGHS",
            declined.len()
        );
        assert!(proven * 10 >= declined.len() * 9, "{name}: {proven} proven");
        assert!(compared >= AGAINST_HIGHS - 2, "{name}: {compared} compared");
    }
}

#[test]
fn an_answer_at_the_node_limit_is_labelled_with_a_lower_bound_the_optimum_respects() {
    let Some((schema, rows, models)) = load() else {
        return;
    };
    let (_, model) = &models[0];
    // The proofs (up to some 60,000 nodes) get the time a loaded machine
    // needs; the default 10 s is a wall-clock limit.
    let full = Config {
        time_limit_seconds: 120.0,
        batch_threads: 1,
        ..Config::default()
    };
    let mut labelled = 0;
    for r in rows
        .iter()
        .filter(|r| !model.accepts(&schema.encode(r).unwrap()))
        .take(40)
    {
        let best = explain(&schema, model, r, &full).unwrap();
        assert_eq!(best.outcome, Outcome::Optimal);
        let opt = best.counterfactuals[0].cost;
        let tight = Config {
            node_limit: 3,
            ..full
        };
        let ex = explain(&schema, model, r, &tight).unwrap();
        match (&ex.outcome, ex.counterfactuals.first()) {
            (Outcome::Optimal, Some(cf)) => assert!(same_cost(cf.cost, opt)),
            (Outcome::TimeLimit { has_solution: true }, Some(cf)) => {
                let enc = schema.encode(&cf.raw).unwrap();
                assert!(model.accepts(&enc));
                schema.check_actionable(r, &cf.raw).unwrap();
                let lower = cf.cost * (1.0 - cf.mip_gap);
                assert!(cf.cost >= opt - 1e-9, "{} < optimum {opt}", cf.cost);
                assert!(lower <= opt + 1e-9, "bound {lower} > optimum {opt}");
                assert!(cf.mip_gap > 0.0 || same_cost(cf.cost, opt));
                let text = ex.to_text();
                assert!(
                    text.contains("found, not proven optimal: optimum ≥"),
                    "{text}"
                );
                labelled += 1;
            }
            other => panic!("{other:?}"),
        }
    }
    assert!(labelled >= 5, "answers at the node limit: {labelled}");
}

#[test]
fn under_the_heloc_preset_the_tree_search_keeps_every_limit_and_equals_highs() {
    let Some((schema, rows, models)) = load() else {
        return;
    };
    // Change limits relative to the applicant, immutables, bounds. Without
    // the preset's cap on features changed: an optimum over it moves the run
    // to HiGHS (`coherent::cap_tests` checks that path on random ensembles),
    // and this test is about the tree search's own answers.
    let preset = cfx::data::presets::priced_preset("heloc", &schema)
        .unwrap()
        .unwrap()
        .with_max_features_changed(None)
        .unwrap();
    let search = Config {
        time_limit_seconds: 120.0,
        batch_threads: 1,
        ..Config::default()
    };
    let highs = Config {
        solver: SolverChoice::Mip,
        ..search
    };
    let (_, model) = &models[0];
    let mut answered = 0;
    for (k, r) in rows
        .iter()
        .filter(|r| !model.accepts(&schema.encode(r).unwrap()))
        .take(12)
        .enumerate()
    {
        let a = explain(&preset, model, r, &search).unwrap();
        let h = explain(&preset, model, r, &highs).unwrap();
        assert_eq!(a.proved_by, ProvedBy::TreeSearch);
        match (a.counterfactuals.first(), h.counterfactuals.first()) {
            (Some(x), Some(y)) => {
                assert_eq!(
                    (&a.outcome, &h.outcome),
                    (&Outcome::Optimal, &Outcome::Optimal)
                );
                preset.check_advice(r, &x.raw, 0).unwrap();
                assert!(
                    same_cost(x.cost, y.cost),
                    "applicant {k}: tree search {} vs HiGHS {}",
                    x.cost,
                    y.cost
                );
                answered += 1;
            }
            (None, None) => assert_eq!(a.outcome, h.outcome, "applicant {k}"),
            other => panic!("applicant {k}: {other:?}"),
        }
    }
    // 2 of the 12 since the preset advises burdens, balances and inquiries
    // only down and moves nobody out of "no usable trades" (issue 25; 4+
    // before): the comparison is not empty.
    assert!(answered >= 2, "answered under the preset: {answered}");
}

/// The distinct-subsets rule on the tree search and on HiGHS: while the two
/// sets have changed the same features, the next programs are the same, so
/// each round's optimal cost must agree.
#[test]
fn distinct_subsets_on_the_tree_search_equal_highs_round_by_round() {
    let Some((schema, rows, models)) = load() else {
        return;
    };
    let search = Config {
        n_diverse: 3,
        diversity: DiversityRule::DistinctSubsets,
        time_limit_seconds: 120.0,
        batch_threads: 1,
        ..Config::default()
    };
    let highs = Config {
        solver: SolverChoice::Mip,
        ..search
    };
    let mut compared = 0;
    for (name, model) in &models {
        for (k, r) in rows
            .iter()
            .filter(|r| !model.accepts(&schema.encode(r).unwrap()))
            .take(4)
            .enumerate()
        {
            let a = explain_diverse(&schema, model, r, &search).unwrap();
            let h = explain_diverse(&schema, model, r, &highs).unwrap();
            assert_eq!(a.proved_by, ProvedBy::TreeSearch);
            assert!(
                !a.counterfactuals.is_empty() && !h.counterfactuals.is_empty(),
                "{name} applicant {k}: no alternative"
            );
            // While both sets change the same features, their cuts are the
            // same, so the sets must be equally long: a shorter one would
            // pass a comparison by `zip` alone.
            let mut same_cuts = true;
            for (x, y) in a.counterfactuals.iter().zip(&h.counterfactuals) {
                assert!(
                    same_cost(x.cost, y.cost),
                    "{name} applicant {k}: tree search {} vs HiGHS {}",
                    x.cost,
                    y.cost
                );
                compared += 1;
                let changed = |c: &cfx::coherent::Counterfactual| -> Vec<usize> {
                    c.changes.iter().map(|ch| ch.feature).collect()
                };
                if changed(x) != changed(y) {
                    same_cuts = false;
                    break;
                }
            }
            if same_cuts {
                assert_eq!(
                    a.counterfactuals.len(),
                    h.counterfactuals.len(),
                    "{name} applicant {k}: tree search and HiGHS give sets of different lengths \
                     under the same cuts"
                );
            }
        }
    }
    assert!(compared >= 12, "rounds compared: {compared}");
}

#[test]
fn the_merged_bound_proves_within_a_node_limit_the_per_tree_bound_does_not_reach() {
    let Some((schema, rows, models)) = load() else {
        return;
    };
    let (_, model) = &models[0];
    // XGBoost's 10th declined applicant: the per-tree bound proves its optimum
    // in 14,745 nodes, the merged bound in 4,963, the feature-budget bound in
    // 373 (485 before it counted one way per feature; node counts are
    // deterministic; this test prints them with `--nocapture`, the command
    // BENCHMARKS.md gives).
    let r = rows
        .iter()
        .filter(|r| !model.accepts(&schema.encode(r).unwrap()))
        .nth(10)
        .unwrap();
    let need = logit(model.threshold()) + Config::default().margin;
    let mut ws = Workspace::new();
    ws.build_tree_cells(&schema, model, r, &[]).unwrap();
    let mut ts = TreeSearch::new();
    ts.prepare(&ws, &schema, model).unwrap();
    // The per-tree bound alone, then the merged bound on top of it (the
    // feature-budget bound, on by default, is measured at the end), all under
    // the single branching rule, which the node counts above were measured
    // by: the test compares bounds, not branchings.
    ts.set_strong_branching(1, 0, 0);
    ts.set_budget_bound(false);
    let full = ts.solve(model, need, 1_000_000, f64::INFINITY);
    assert_eq!(full.status, SearchStatus::Optimal);
    assert!(full.nodes > 8_000, "per-tree bound: {} nodes", full.nodes);
    let short = ts.solve(model, need, 8_000, f64::INFINITY);
    assert!(
        matches!(short.status, SearchStatus::LimitWithAnswer { .. }),
        "{:?}",
        short.status
    );
    ts.set_merged_bound(true);
    let merged = ts.solve(model, need, 8_000, f64::INFINITY);
    assert_eq!(merged.status, SearchStatus::Optimal, "merged bound");
    assert!(
        same_cost(merged.cost, full.cost),
        "{} vs {}",
        merged.cost,
        full.cost
    );
    // The proof agrees with HiGHS on the same program.
    let highs = Config {
        solver: SolverChoice::Mip,
        time_limit_seconds: 120.0,
        batch_threads: 1,
        ..Config::default()
    };
    let hx = explain(&schema, model, r, &highs).unwrap();
    assert_eq!(hx.outcome, Outcome::Optimal);
    assert!(same_cost(hx.counterfactuals[0].cost, merged.cost));
    // The feature-budget bound (the default) proves the same optimum in
    // fewer nodes than the per-tree bound alone.
    ts.set_merged_bound(false);
    ts.set_budget_bound(true);
    let budget = ts.solve(model, need, 1_000_000, f64::INFINITY);
    assert_eq!(budget.status, SearchStatus::Optimal, "budget bound");
    assert!(same_cost(budget.cost, full.cost));
    // The domains' propagation (off by default) proves the same optimum.
    ts.set_propagation(true);
    let propagated = ts.solve(model, need, 1_000_000, f64::INFINITY);
    ts.set_propagation(false);
    assert_eq!(propagated.status, SearchStatus::Optimal, "propagation");
    assert!(same_cost(propagated.cost, hx.counterfactuals[0].cost));
    eprintln!(
        "nodes: per-tree {}, merged {}, feature-budget {}",
        full.nodes, merged.nodes, budget.nodes
    );
    // Not merely fewer: at least four times fewer (373 against 14,745 when
    // written), so a bound that lost most of its strength fails here.
    assert!(
        budget.nodes * 4 < full.nodes,
        "feature-budget {} nodes against per-tree {}",
        budget.nodes,
        full.nodes
    );
}
