//! The CatBoost and EBM importers against the producers' own scores: the
//! models, rows and margins committed under tests/data/catboost and
//! tests/data/ebm (written by `benches/peers/catboost_ebm_peers.py write`
//! with CatBoost 1.2.10 and interpret 0.7.8). Oracle: CatBoost's
//! `predict(prediction_type="RawFormulaVal")` and interpret's
//! `ebm.decision_function` on every row — the data's rows, rows with missing
//! values and never-seen categories, and rows at and next to every border /
//! cut. The models predict default (class 1), so they are read with
//! `favourable_class: 0` and cfx's margin is minus the producer's.

use super::{ImportOptions, Source, TreeEnsemble};
use crate::model::Model;
use crate::schema::{Feature, Schema};
use std::collections::BTreeMap;

fn file(dir: &str, name: &str) -> String {
    let p = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data")
        .join(dir)
        .join(name);
    std::fs::read_to_string(&p).unwrap_or_else(|e| panic!("{}: {e}", p.display()))
}

fn schema() -> Schema {
    Schema::new(vec![
        Feature::contiguous("income", 5.0, 200.0),
        Feature::contiguous("debt", 0.0, 1.5).with_special(-1.0, "not reported"),
        Feature::contiguous("age", 18.0, 80.0).integer(),
        Feature::categorical("home", &["own", "rent", "mortgage", "council"]),
        Feature::categorical("purpose", &["car", "house", "study", "business"]),
    ])
    .unwrap()
}

fn options(favourable: i64, unseen_home: bool) -> ImportOptions {
    let mut unseen = BTreeMap::new();
    if unseen_home {
        unseen.insert("home".to_string(), vec!["council".to_string()]);
    }
    ImportOptions {
        favourable_class: Some(favourable),
        special_as_missing: vec!["debt".into()],
        unseen_levels: unseen,
        ..ImportOptions::default()
    }
}

fn rows(csv: &str) -> Vec<Vec<f64>> {
    csv.lines()
        .skip(1)
        .map(|l| l.split(',').map(|v| v.parse::<f64>().unwrap()).collect())
        .collect()
}

fn margins(csv: &str) -> Vec<f64> {
    csv.lines()
        .skip(1)
        .map(|l| l.split(',').nth(1).unwrap().parse::<f64>().unwrap())
        .collect()
}

/// The importer of each committed folder: one place that knows which reader
/// reads which producer's files.
type Reader = fn(&str, &Schema, &ImportOptions) -> crate::Result<TreeEnsemble>;
const READERS: [(&str, Reader); 2] = [
    ("catboost", TreeEnsemble::from_catboost_json),
    ("ebm", TreeEnsemble::from_ebm_json),
];

/// Reads `tests/data/<dir>/<name>.json` with the folder's reader.
fn read(dir: &str, name: &str, opts: &ImportOptions) -> crate::Result<TreeEnsemble> {
    let (_, reader) = READERS
        .iter()
        .find(|(d, _)| *d == dir)
        .unwrap_or_else(|| panic!("no reader for tests/data/{dir}"));
    reader(&file(dir, &format!("{name}.json")), &schema(), opts)
}

/// cfx's margin `got` equals the producer's `want` to 1e-9 relative.
fn same_margin(what: &str, got: f64, want: f64) {
    assert!(
        (got - want).abs() <= 1e-9 * want.abs().max(1.0),
        "{what}: cfx {got}, producer {want}"
    );
}

/// Imports `name` and checks every committed row: cfx's margin is `sign` ×
/// the producer's to 1e-9 relative, and a row that round-trips the encoding
/// scores the same through the `Model` trait. Returns the model.
fn exact(dir: &str, name: &str, opts: &ImportOptions, sign: f64) -> TreeEnsemble {
    let s = schema();
    let m = read(dir, name, opts).unwrap_or_else(|e| panic!("{name}: refused: {e}"));
    let rows = rows(&file(dir, &format!("{name}_rows.csv")));
    let lib = margins(&file(dir, &format!("{name}_margins.csv")));
    assert_eq!(rows.len(), lib.len(), "{name}");
    assert!(rows.len() >= 200, "{name}: {} rows", rows.len());
    let mut round_trips = 0;
    for (i, (r, l)) in rows.iter().zip(&lib).enumerate() {
        let got = m.margin_raw(r);
        same_margin(&format!("{name} row {i} {r:?}"), got, sign * l);
        if let Ok(e) = s.encode(r) {
            if s.decode(&e).unwrap() == *r {
                assert_eq!(m.score(&e), got, "{name} row {i}: encoded and raw agree");
                round_trips += 1;
            }
        }
    }
    assert!(round_trips >= 100, "{name}: {round_trips} rows round-trip");
    m
}

fn refused(dir: &str, name: &str, opts: &ImportOptions, needle: &str) {
    match read(dir, name, opts) {
        Ok(_) => panic!("{name}: accepted, expected a refusal containing '{needle}'"),
        Err(e) => assert!(
            e.to_string().contains(needle),
            "{name}: refused, but '{e}' lacks '{needle}'"
        ),
    }
}

#[test]
fn catboost_models_score_every_row_as_catboost_does() {
    for name in [
        "cb_nan_min",
        "cb_nan_max",
        "cb_nan_forbidden",
        "cb_depth1",
        "cb_depth8",
        "cb_early",
        "cb_scaled",
    ] {
        let m = exact("catboost", name, &options(0, false), -1.0);
        assert_eq!(m.source(), Source::Catboost);
    }
    exact("catboost", "cb_onehot", &options(0, true), -1.0);
    // String labels ["bad", "good"]: class 1 is "good", favourable.
    let m = exact("catboost", "cb_labels", &options(1, false), 1.0);
    assert!(
        m.import_report().iter().any(|l| l.contains("'good'")),
        "{:?}",
        m.import_report()
    );
}

/// The rule's two halves matter: with the missing values sent the other way,
/// or the border compared in float64 instead of float32, rows disagree.
#[test]
fn catboost_nan_modes_and_float32_borders_are_each_needed() {
    let s = schema();
    for (name, nan_rows_min) in [("cb_nan_min", 1), ("cb_nan_max", 1)] {
        let m = TreeEnsemble::from_catboost_json(
            &file("catboost", &format!("{name}.json")),
            &s,
            &options(0, false),
        )
        .unwrap();
        let rows = rows(&file("catboost", &format!("{name}_rows.csv")));
        let lib = margins(&file("catboost", &format!("{name}_margins.csv")));
        let mut nodes = m.nodes().to_vec();
        for n in nodes.iter_mut() {
            n.default_left = !n.default_left;
        }
        let flipped = TreeEnsemble::new(
            m.source(),
            m.base_score(),
            0.5,
            m.inputs().to_vec(),
            m.roots().to_vec(),
            nodes,
            m.level_left.clone(),
        )
        .unwrap();
        let wrong = rows
            .iter()
            .zip(&lib)
            .filter(|(r, l)| (flipped.margin_raw(r) + **l).abs() > 1e-9)
            .count();
        assert!(
            wrong >= nan_rows_min,
            "{name}: flipping NaN changes {wrong} rows"
        );
        // Thresholds at the border itself (`float(x) < border`) instead of
        // the next float32: the rows on the borders disagree.
        let mut nodes = m.nodes().to_vec();
        for n in nodes.iter_mut().filter(|n| n.test == super::Test::BelowF32) {
            let t = n.threshold as f32;
            n.threshold = f32::from_bits(t.to_bits() - u32::from(t > 0.0)) as f64;
        }
        let at_border = TreeEnsemble::new(
            m.source(),
            m.base_score(),
            0.5,
            m.inputs().to_vec(),
            m.roots().to_vec(),
            nodes,
            m.level_left.clone(),
        )
        .unwrap();
        let wrong = rows
            .iter()
            .zip(&lib)
            .filter(|(r, l)| (at_border.margin_raw(r) + **l).abs() > 1e-9)
            .count();
        assert!(wrong >= 5, "{name}: '<' at the border changes {wrong} rows");
    }
}

#[test]
fn catboost_models_cfx_cannot_read_exactly_are_refused_with_what_to_do() {
    let o = options(0, true);
    refused("catboost", "cb_ctr", &o, "one_hot_max_size");
    refused("catboost", "cb_onehot_nohash", &o, "pool=Pool(");
    refused("catboost", "cb_depthwise", &o, "SymmetricTree");
    refused("catboost", "cb_multiclass", &o, "MultiClass");
    refused("catboost", "cb_regression", &o, "RMSE");
    refused("catboost", "cb_truncated", &o, "not JSON");
    // A one-hot model whose schema level the model never saw, undeclared.
    refused("catboost", "cb_onehot", &options(0, false), "council");
    // XGBoost's `missing` option has no meaning here.
    let mut m = options(0, false);
    m.missing = Some(-7.0);
    refused("catboost", "cb_nan_min", &m, "XGBoost's setting");
}

#[test]
fn ebm_models_score_every_row_as_interpret_does() {
    for name in ["ebm_main", "ebm_pairs", "ebm_mono"] {
        let m = exact("ebm", name, &options(0, false), -1.0);
        assert_eq!(m.source(), Source::Ebm);
    }
    let m = exact("ebm", "ebm_cat", &options(0, true), -1.0);
    assert!(m.n_trees() >= 7, "{} terms", m.n_trees());
    exact("ebm", "ebm_labels", &options(1, false), 1.0);
}

/// A value equal to a cut falls in the upper bin: with `x ≤ cut` instead, the
/// rows on the cuts disagree with interpret.
#[test]
fn ebm_cuts_send_equal_values_up() {
    let s = schema();
    let m =
        TreeEnsemble::from_ebm_json(&file("ebm", "ebm_main.json"), &s, &options(0, false)).unwrap();
    let rows = rows(&file("ebm", "ebm_main_rows.csv"));
    let lib = margins(&file("ebm", "ebm_main_margins.csv"));
    let mut nodes = m.nodes().to_vec();
    for n in nodes
        .iter_mut()
        .filter(|n| n.test == super::Test::AtMostNanMissing && n.threshold < f64::MAX)
    {
        n.threshold = f64::from_bits(if n.threshold > 0.0 {
            n.threshold.to_bits() + 1
        } else {
            n.threshold.to_bits() - 1
        });
    }
    let at_most = TreeEnsemble::new(
        m.source(),
        m.base_score(),
        0.5,
        m.inputs().to_vec(),
        m.roots().to_vec(),
        nodes,
        m.level_left.clone(),
    )
    .unwrap();
    let wrong = rows
        .iter()
        .zip(&lib)
        .filter(|(r, l)| (at_most.margin_raw(r) + **l).abs() > 1e-9)
        .count();
    assert!(wrong >= 5, "'x ≤ cut' changes {wrong} rows");
}

#[test]
fn ebm_models_cfx_cannot_read_exactly_are_refused() {
    let o = options(0, true);
    refused("ebm", "ebm_regression", &o, "identity");
    refused("ebm", "ebm_multiclass", &o, "mlogit");
    refused("ebm", "ebm_truncated", &o, "not JSON");
    refused("ebm", "ebm_threeway", &o, "3 features");
    refused("ebm", "ebm_cat", &options(0, false), "council");
    let mut v: serde_json::Value = serde_json::from_str(&file("ebm", "ebm_main.json")).unwrap();
    v["version"] = "2.0".into();
    let r = TreeEnsemble::from_ebm_json(&v.to_string(), &schema(), &o);
    assert!(r.unwrap_err().to_string().contains("version"));
    // A score table of the wrong shape.
    let mut v: serde_json::Value = serde_json::from_str(&file("ebm", "ebm_main.json")).unwrap();
    v["ebm"]["terms"][0]["scores"].as_array_mut().unwrap().pop();
    let r = TreeEnsemble::from_ebm_json(&v.to_string(), &schema(), &o);
    assert!(r.unwrap_err().to_string().contains("scores"));
}

/// The committed counterfactuals (`catboost_ebm_peers.py counterfactuals`:
/// cfx's proven-optimal counterfactuals of the first five declined applicants
/// of two models per format, re-scored by CatBoost / interpret): each is
/// accepted by the producer (its margin of default below 0), and cfx's margin
/// of it is minus the producer's. The first of each model is proven optimal
/// again here and must be the same row — a drift check only (cfx wrote it).
#[test]
fn committed_counterfactuals_are_accepted_by_the_producers_and_found_again() {
    use crate::coherent::{Config, Outcome, explain};
    use crate::model::AnyModel;
    let s = schema();
    for (dir, _) in READERS {
        let text = file(dir, "counterfactuals.csv");
        let mut seen: Vec<String> = Vec::new();
        for line in text.lines().skip(1) {
            let cells: Vec<&str> = line.split(',').collect();
            let (name, row) = (cells[0], cells[1].parse::<usize>().unwrap());
            let cf: Vec<f64> = cells[2..7].iter().map(|v| v.parse().unwrap()).collect();
            let producer: f64 = cells[7].parse().unwrap();
            let unseen = name == "cb_onehot" || name == "ebm_cat";
            let m = read(dir, name, &options(0, unseen)).unwrap();
            assert!(
                producer < 0.0,
                "{name} row {row}: the producer declines {cf:?}"
            );
            same_margin(&format!("{name} row {row}"), m.margin_raw(&cf), -producer);
            if !seen.iter().any(|n| n == name) {
                seen.push(name.to_string());
                let factual = &rows(&file(dir, &format!("{name}_rows.csv")))[row];
                let model = AnyModel::Trees(m);
                let ex = explain(&s, &model, factual, &Config::default()).unwrap();
                assert_eq!(ex.outcome, Outcome::Optimal, "{name} row {row}");
                let again = &ex.counterfactuals[0].raw;
                assert!(
                    again.iter().zip(&cf).all(|(a, b)| (a - b).abs() <= 1e-9),
                    "{name} row {row}: {again:?} now, {cf:?} committed"
                );
            }
        }
        assert_eq!(seen.len(), 2, "{dir}: two models");
    }
}
