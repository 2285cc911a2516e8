//! The tree MIP's first incumbent ([`super::build`]'s start): a complete,
//! consistent assignment of every column, which HiGHS takes as its first
//! incumbent, and which never changes an answer — a wrong start is dropped.
//!
//! Oracles: the point the start's columns decode to is walked again by the
//! library's own evaluator (`TreeEnsemble::leaf_raw`, `accepts`) and by the
//! brute-force oracle's (`independent_margin`), priced by `coherent::cost`,
//! and bounded below by the brute-force optimum; HiGHS, stopped before its
//! root node (`mip_max_nodes = 0`), holds the start's objective when given it
//! and nothing without it.

use super::tests::{brute_force, independent_margin, random_tree_case, same_cost};
use super::{StartMap, build_mapped};
use crate::coherent::Config;
use crate::coherent::cost;
use crate::coherent::highs::{self, MipStatus, Options};
use crate::coherent::program::Program;
use crate::model::trees::{ImportOptions, Source};
use crate::model::{Model, TreeEnsemble, logit};
use crate::schema::Schema;
use rand::SeedableRng;
use rand_xoshiro::Xoshiro256PlusPlus;

fn options(prog: &Program) -> Options {
    Options {
        presolve: prog.presolve,
        sub_mips_and_restarts: prog.sub_mips_and_restarts,
        ..Config::default().options()
    }
}

/// The raw row a program's columns decode to.
fn decoded(schema: &Schema, prog: &Program, x: &[f64]) -> Vec<f64> {
    schema.decode(&prog.encoded(schema, x)).unwrap()
}

/// Checks a start column by column against the library's and the oracle's
/// readings of the point it decodes to, and HiGHS's acceptance of it;
/// returns the start's objective.
fn check_start(
    schema: &Schema,
    ens: &TreeEnsemble,
    factual: &[f64],
    prog: &Program,
    map: &StartMap,
    x: &[f64],
    what: &str,
) -> f64 {
    let m = &prog.mip;
    assert!(m.max_violation(x) <= 1e-10, "{what}: the start is feasible");
    let raw = decoded(schema, prog, x);
    let enc = schema.encode(&raw).unwrap();
    assert!(
        ens.accepts(&enc),
        "{what}: the library accepts the start's point"
    );
    if ens.output() == crate::model::trees::Output::Margin {
        let need = logit(ens.threshold());
        assert!(
            independent_margin(ens, &raw) >= need,
            "{what}: the oracle's evaluator accepts it"
        );
    }
    schema.check_actionable(factual, &raw).unwrap();
    // Each tree's λ: 1 on the leaf the library's walk of the point reaches.
    for (root, leaf_col) in &map.leaves {
        let reached = ens.leaf_raw(*root, &raw);
        for (&k, &c) in leaf_col {
            let want = if std::ptr::eq(reached, &ens.nodes()[k]) {
                1.0
            } else {
                0.0
            };
            assert_eq!(x[c], want, "{what}: tree at {root}, leaf {k}");
        }
    }
    // The objective prices the point as `coherent::cost` does (a real-valued
    // slot may sit CELL_GAP inside its cell).
    let objective = m.objective(x);
    let priced = cost(schema, factual, &raw).unwrap();
    assert!(
        (objective - priced).abs() <= 1e-6 * priced.max(1.0),
        "{what}: objective {objective} vs cost {priced}"
    );
    // HiGHS stopped before its root holds the start, and nothing without it.
    let opts = options(prog);
    let first = highs::first_incumbent(m, &opts, Some(x));
    assert!(first.has_solution, "{what}: HiGHS took the start");
    assert!(
        same_cost(first.objective, objective),
        "{what}: HiGHS's first incumbent {} vs the start's {objective}",
        first.objective
    );
    let none = highs::first_incumbent(m, &opts, None);
    assert!(!none.has_solution, "{what}: without the start, nothing");
    objective
}

/// The factual's own columns (declined: the decision row fails), with the
/// leaves of `lie` (a feasible start): leaves that contradict the splits.
fn wrong_start(
    schema: &Schema,
    ens: &TreeEnsemble,
    factual: &[f64],
    prog: &Program,
    map: &StartMap,
    cell_raw: &[Vec<f64>],
    lie: &[f64],
) -> (Vec<f64>, Vec<f64>) {
    let enc = schema.encode(factual).unwrap();
    let endings: Vec<(usize, f64)> = (0..schema.n_features())
        .map(|i| {
            let slot = schema.layout(i).value.map_or(0.0, |v| enc[v]);
            (prog.vars[i].factual_state, slot)
        })
        .collect();
    let stay = map.columns(prog, ens, cell_raw, &endings).unwrap();
    let mut lying = stay.clone();
    for leaf_col in map.leaves.iter().map(|(_, l)| l) {
        for &c in leaf_col.values() {
            lying[c] = lie[c];
        }
    }
    (stay, lying)
}

#[test]
fn the_tree_mips_start_is_a_feasible_point_highs_holds_and_no_start_changes_the_optimum() {
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(4343);
    let margin = Config::default().margin;
    let (mut started, mut feasible) = (0, 0);
    for case in 0..150 {
        let (schema, factual, ens) =
            random_tree_case(&mut rng, case, [Source::Xgboost, Source::Lightgbm]);
        let (prog, map, cell_raw) =
            build_mapped(&schema, &ens, &factual, margin, f64::INFINITY).unwrap();
        let oracle = brute_force(&schema, &ens, &factual, margin);
        if oracle.is_some() {
            feasible += 1;
        }
        let Some(x) = prog.start.clone() else {
            continue;
        };
        started += 1;
        let what = format!("case {case}");
        let objective = check_start(&schema, &ens, &factual, &prog, &map, &x, &what);
        let best = oracle.expect("a start is a feasible point: the oracle finds one");
        assert!(
            objective >= best - 1e-9 * best.max(1.0),
            "{what}: the start {objective} undercuts the optimum {best}"
        );
        // The same optimum from the start, from wrong starts and from none.
        let (stay, lying) = wrong_start(&schema, &ens, &factual, &prog, &map, &cell_raw, &x);
        let opts = options(&prog);
        for bad in [&stay, &lying] {
            assert!(
                prog.mip.max_violation(bad) > 1e-6,
                "{what}: the wrong start is wrong"
            );
            let first = highs::first_incumbent(&prog.mip, &opts, Some(bad));
            assert!(!first.has_solution, "{what}: HiGHS dropped the wrong start");
        }
        let half = vec![0.5; x.len()];
        for (start, name) in [
            (None, "none"),
            (Some(&x[..]), "the start"),
            (Some(&stay[..]), "the factual's columns"),
            (Some(&lying[..]), "leaves contradicting the splits"),
            (Some(&half[..]), "every column at 0.5"),
        ] {
            let sol = highs::solve_from(&prog.mip, &opts, start);
            assert_eq!(sol.status, MipStatus::Optimal, "{what}, {name}");
            assert!(
                same_cost(sol.objective, best),
                "{what}, start {name}: HiGHS {} vs brute force {best}",
                sol.objective
            );
        }
    }
    eprintln!("tree MIP starts: {started} of {feasible} feasible cases");
    assert!(feasible >= 80, "feasible cases: {feasible}");
    assert!(
        started * 10 >= feasible * 9,
        "the heuristic starts {started} of {feasible} feasible cases"
    );
}

/// The peer's HELOC models, 100 and 1000 trees: the start of the first
/// declined held-out applicants checked as above (HiGHS's first incumbent).
#[test]
fn heloc_peer_models_get_a_start_highs_takes_as_its_first_incumbent() {
    let Some(path) = crate::data::shared_test_file("heloc.csv") else {
        return;
    };
    let peers = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("target/peers");
    let files = [
        "heloc_xgb.json",
        "heloc_xgb_1000x8.json",
        "heloc_lgbm_1000x63.txt",
    ];
    if files.iter().any(|f| !peers.join(f).exists()) {
        assert!(
            std::env::var_os("CI").is_none(),
            "the peer's tree models missing under CI (run benches/peers/trees_train.py)"
        );
        eprintln!("notice: the peer's tree models are absent; test skipped");
        return;
    }
    let d = crate::data::heloc(&path).unwrap();
    let (train, test) = d.holdout_split();
    let mut schema = train.schema.clone();
    schema.fit_weights(&train.rows).unwrap();
    let opts = ImportOptions::default();
    let margin = Config::default().margin;
    for file in files {
        let text = std::fs::read_to_string(peers.join(file)).unwrap();
        let ens = if file.ends_with(".json") {
            TreeEnsemble::from_xgboost_json(&text, &schema, &opts).unwrap()
        } else {
            TreeEnsemble::from_lightgbm_text(&text, &schema, &opts).unwrap()
        };
        let declined = test
            .rows
            .iter()
            .filter(|r| !ens.accepts(&schema.encode(r).unwrap()))
            .take(2);
        for (k, r) in declined.enumerate() {
            let (prog, map, _) = build_mapped(&schema, &ens, r, margin, f64::INFINITY).unwrap();
            let x = prog.start.clone().expect("a start on HELOC");
            check_start(&schema, &ens, r, &prog, &map, &x, &format!("{file} #{k}"));
        }
    }
}
