//! The PMML tree reader against jpmml-evaluator's probabilities (committed
//! by benches/peers/pmml_tree_peers.py for models sklearn2pmml converted from
//! XGBoost, LightGBM and scikit-learn), and against inexact or hostile files.

use super::*;
use crate::model::{Model, TreeEnsemble, sigmoid};

fn data(name: &str) -> std::path::PathBuf {
    std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data/pmml")
        .join(name)
}

fn schema() -> Schema {
    Schema::from_json(&std::fs::read_to_string(data("schema.json")).unwrap()).unwrap()
}

fn rows() -> Vec<Vec<f64>> {
    std::fs::read_to_string(data("rows.csv"))
        .unwrap()
        .lines()
        .skip(1)
        .map(|l| l.split(',').map(|v| v.parse().unwrap()).collect())
        .collect()
}

fn text(name: &str) -> String {
    std::fs::read_to_string(data(&format!("trees/{name}.pmml"))).unwrap()
}

fn opts(favourable: &str, missing: &[&str]) -> PmmlOptions {
    PmmlOptions {
        favourable_class: Some(favourable.into()),
        special_as_missing: missing.iter().map(|s| s.to_string()).collect(),
        ..Default::default()
    }
}

fn trees(text: &str, o: &PmmlOptions) -> Result<TreeEnsemble> {
    match from_pmml_str(text, &schema(), o)? {
        AnyModel::Trees(t) => Ok(t),
        other => panic!("not a tree ensemble: {other:?}"),
    }
}

fn err(r: Result<TreeEnsemble>) -> String {
    match r {
        Ok(_) => panic!("accepted"),
        Err(e) => e.to_string(),
    }
}

/// The accepted models and the features read as missing at their codes.
const ACCEPTED: [(&str, &[&str]); 5] = [
    ("xgb", &["income"]),
    ("xgb_nan2", &["income", "delinq"]),
    ("lgb", &["income"]),
    ("gbc", &[]),
    ("hgb", &["income"]),
];

/// jpmml-evaluator's (P(0), P(1), margin of class 1) of every row.
fn jpmml(name: &str) -> Vec<[f64; 3]> {
    std::fs::read_to_string(data(&format!("trees/{name}_scores.csv")))
        .unwrap()
        .lines()
        .skip(1)
        .map(|l| {
            let c: Vec<f64> = l.split(',').map(|v| v.parse().unwrap()).collect();
            [c[1], c[2], c[3]]
        })
        .collect()
}

/// Every row of every accepted model against jpmml-evaluator (the oracle:
/// the reference PMML evaluator on the same file): under
/// `x-mathContext="float"` (XGBoost) the margin to the bit, in double within
/// 1e-9 (the factors folded into the leaves); the probability of class 1
/// within 1e-9 relative (float models: 4e-7, jpmml's single-precision
/// logistic); through the encoding the same bits as the raw row; the model of
/// class 0 is the exact negation; the decision at 0.5 is jpmml's.
#[test]
fn boosted_models_score_every_row_as_jpmml_evaluator() {
    let s = schema();
    let rows = rows();
    for (name, missing) in ACCEPTED {
        let m1 = trees(&text(name), &opts("1", missing)).unwrap();
        let m0 = trees(&text(name), &opts("0", missing)).unwrap();
        let float = name.starts_with("xgb");
        assert_eq!(
            m1.source(),
            if float {
                crate::model::trees::Source::PmmlF32
            } else {
                crate::model::trees::Source::PmmlF64
            }
        );
        let want = jpmml(name);
        assert_eq!(want.len(), rows.len());
        for (k, (raw, [p0, p1, y])) in rows.iter().zip(want).enumerate() {
            let got = m1.margin_raw(raw);
            if float {
                assert_eq!(got, y, "{name} row {k}: margin {got} vs jpmml {y}");
            } else {
                assert!(
                    (got - y).abs() <= 1e-9 * y.abs().max(1.0),
                    "{name} row {k}: margin {got} vs jpmml {y}"
                );
            }
            let tol = if float { 4e-7 } else { 1e-9 };
            let p = sigmoid(got);
            assert!((p - p1).abs() <= tol * p1, "{name} row {k}: {p} vs {p1}");
            let x = s.encode(raw).unwrap();
            assert_eq!(m1.score(&x).to_bits(), got.to_bits(), "{name} row {k}");
            assert_eq!(m0.margin_raw(raw), -got, "{name} row {k}");
            assert_eq!(m0.accepts(&x), p0 > 0.5, "{name} row {k}: {p0}");
        }
    }
}

/// The same rows scored with a missing value where the file's trees take
/// their default (the models trained with NaN): reading the code as a number
/// instead changes some rows (so the declaration is needed, and checked).
#[test]
fn special_states_as_missing_are_needed() {
    let rows = rows();
    for (name, missing) in ACCEPTED.iter().filter(|(_, m)| !m.is_empty()) {
        let as_codes = trees(&text(name), &opts("1", &[])).unwrap();
        let want = jpmml(name);
        let differ = rows
            .iter()
            .zip(&want)
            .filter(|(raw, w)| (as_codes.margin_raw(raw) - w[2]).abs() > 1e-9)
            .count();
        assert!(differ > 0, "{name}: {missing:?} never matters");
    }
}

/// Files cfx cannot evaluate exactly are refused, naming the element and
/// its line (or the option to declare); none is accepted.
#[test]
fn tree_models_cfx_cannot_read_exactly_are_refused() {
    let xgb = text("xgb");
    let hgb = text("hgb");
    let gbc = text("gbc");
    let o_xgb = opts("0", &["income"]);
    let o_gbc = opts("0", &[]);
    // The first segment's <True/> of the inner sum, replaced.
    let seg = xgb.find("<Segment id=\"1\">").unwrap();
    let inner = xgb[seg + 10..].find("<Segment id=\"1\">").unwrap() + seg + 10;
    let t = xgb[inner..].find("<True/>").unwrap() + inner;
    let false_segment = format!("{}<False/>{}", &xgb[..t], &xgb[t + 7..]);
    let first_pred = xgb.find("<SimplePredicate field=\"float(").unwrap();
    let end = xgb[first_pred..].find("/>").unwrap() + first_pred + 2;
    let joined = format!(
        "{}<CompoundPredicate booleanOperator=\"and\">{}<SimplePredicate field=\"age\" \
         operator=\"lessThan\" value=\"40\"/></CompoundPredicate>{}",
        &xgb[..first_pred],
        &xgb[first_pred..end],
        &xgb[end..]
    );
    let leaf = xgb.find("<Node score=").unwrap();
    let leaf_end = xgb[leaf..].find('>').unwrap() + leaf + 1;
    let with = |what: &str| format!("{}{what}{}", &xgb[..leaf_end], &xgb[leaf_end..]);
    let cases: Vec<(&str, String, PmmlOptions, &str)> = vec![
        (
            "a weighted segment in a forest",
            text("rf").replacen("<Segment id=\"1\">", "<Segment id=\"1\" weight=\"2\">", 1),
            o_gbc.clone(),
            "segment weight",
        ),
        (
            "a forest's leaf with probabilities",
            text("rf").replacen(
                "<ScoreDistribution value=\"0\" recordCount",
                "<ScoreDistribution value=\"0\" probability=\"0.5\" recordCount",
                1,
            ),
            o_gbc.clone(),
            "'probability' in a ScoreDistribution",
        ),
        (
            "a forest's leaf of an unknown class",
            text("rf").replacen(
                "<ScoreDistribution value=\"0\"",
                "<ScoreDistribution value=\"2\"",
                1,
            ),
            o_gbc.clone(),
            "not a target category",
        ),
        (
            "a forest reached by a missing value under nullPrediction",
            text("rf"),
            opts("0", &["income"]),
            "missingValueStrategy=\"nullPrediction\"",
        ),
        (
            "a forest of regression trees",
            text("rf").replacen(
                "<TreeModel functionName=\"classification\"",
                "<TreeModel functionName=\"regression\"",
                1,
            ),
            o_gbc.clone(),
            "must be a classification",
        ),
        (
            "one decision tree",
            text("dt"),
            o_gbc.clone(),
            "a single TreeModel",
        ),
        (
            "voted forest",
            text("rf").replace("\"average\"", "\"majorityVote\""),
            o_gbc.clone(),
            "majorityVote",
        ),
        (
            "nullPrediction reached by a missing value",
            gbc.clone(),
            opts("0", &["income"]),
            "missingValueStrategy=\"nullPrediction\"",
        ),
        (
            "aggregateNodes reached by a missing value",
            hgb.replace("\"defaultChild\"", "\"aggregateNodes\""),
            o_xgb.clone(),
            "aggregateNodes",
        ),
        (
            "defaultChild without a default",
            hgb.replace(" defaultChild=", " x-defaultChild="),
            o_xgb.clone(),
            "names no defaultChild",
        ),
        (
            "returnNullPrediction reachable",
            gbc.replace("returnLastPrediction", "returnNullPrediction"),
            o_gbc.clone(),
            "no prediction",
        ),
        (
            "no favourable class",
            xgb.clone(),
            opts("", &["income"]),
            "neither '1' nor '0'",
        ),
        (
            "unknown element in a tree",
            with("<Foo/>"),
            o_xgb.clone(),
            "<Foo>",
        ),
        (
            "ScoreDistribution in a summed tree",
            with("<ScoreDistribution value=\"1\" recordCount=\"3\"/>"),
            o_xgb.clone(),
            "ScoreDistribution",
        ),
        (
            "wrong namespace",
            xgb.replace("PMML-4_4", "PMML-3_2"),
            o_xgb.clone(),
            "namespace",
        ),
        (
            "truncated",
            xgb[..xgb[..xgb.len() / 2].rfind('\n').unwrap()].to_string(),
            o_xgb.clone(),
            "truncated",
        ),
        (
            "a DTD",
            xgb.replacen("<PMML", "<!DOCTYPE PMML [<!ENTITY a \"aaaa\">]>\n<PMML", 1),
            o_xgb.clone(),
            "DOCTYPE",
        ),
        (
            "a segment selected by a predicate",
            false_segment,
            o_xgb.clone(),
            "other than <True>",
        ),
        (
            "a predicate joining two features",
            joined,
            o_xgb.clone(),
            "several features",
        ),
        (
            "a derived field that computes",
            xgb.replacen(
                "<FieldRef field=\"utilization\"/>",
                "<Apply function=\"log\"><FieldRef field=\"utilization\"/></Apply>",
                1,
            ),
            o_xgb.clone(),
            "derived field other than",
        ),
        (
            "mixed precisions",
            xgb.replacen(
                "noTrueChildStrategy=\"returnLastPrediction\" x-mathContext=\"float\"",
                "noTrueChildStrategy=\"returnLastPrediction\" x-mathContext=\"double\"",
                1,
            ),
            o_xgb.clone(),
            "mathContext",
        ),
        (
            "a float rescaleFactor",
            xgb.replacen(
                "<Target rescaleConstant",
                "<Target rescaleFactor=\"2\" rescaleConstant",
                1,
            ),
            o_xgb.clone(),
            "rescaleFactor",
        ),
        (
            "a float logit coefficient",
            xgb.replacen("coefficient=\"1.0\"", "coefficient=\"2.0\"", 1),
            o_xgb.clone(),
            "1·x + 0",
        ),
        (
            "a regression at the top",
            xgb.replacen(
                "<MiningModel functionName=\"classification\"",
                "<MiningModel functionName=\"regression\"",
                1,
            ),
            o_xgb.clone(),
            "only classification MiningModels",
        ),
    ];
    let n = cases.len();
    for (what, doc, o, needle) in cases {
        let e = err(trees(&doc, &o));
        assert!(e.contains(needle), "{what}: {e}");
        let named = e.contains("line") || e.contains("favourable") || e.contains("DOCTYPE");
        assert!(named, "{what}: the message names no element or line: {e}");
    }
    assert_eq!(n, 24);
    // Without the declaration the classes are named.
    let e = err(trees(
        &xgb,
        &PmmlOptions {
            special_as_missing: vec!["income".into()],
            ..Default::default()
        },
    ));
    assert!(e.contains("favourable_class"), "{e}");
}

/// The committed counterfactuals (`pmml_tree_peers.py counterfactuals`: cfx's
/// proven-optimal counterfactuals of the first five declined rows of the
/// XGBoost and HistGradientBoosting files, re-scored by jpmml-evaluator):
/// each is accepted by jpmml (P(bad) < 0.5) and by cfx; the first of each
/// model is proven optimal again here and must be the same row — a drift
/// check only (cfx wrote it).
#[test]
fn committed_counterfactuals_are_accepted_by_jpmml_and_found_again() {
    use crate::coherent::{Config, Outcome, explain};
    let s = schema();
    let rows = rows();
    let text_cf = std::fs::read_to_string(data("trees/counterfactuals.csv")).unwrap();
    let mut seen: Vec<String> = Vec::new();
    let mut n = 0;
    for line in text_cf.lines().skip(1) {
        let c: Vec<&str> = line.split(',').collect();
        let (name, row) = (c[0], c[1].parse::<usize>().unwrap());
        let cf: Vec<f64> = c[2..7].iter().map(|v| v.parse().unwrap()).collect();
        let p_bad: f64 = c[7].parse().unwrap();
        assert!(p_bad < 0.5, "{name} row {row}: jpmml declines {cf:?}");
        let missing: &[&str] = ACCEPTED.iter().find(|(n, _)| *n == name).unwrap().1;
        let m = AnyModel::Trees(trees(&text(name), &opts("0", missing)).unwrap());
        assert!(m.accepts(&s.encode(&cf).unwrap()), "{name} row {row}");
        assert!(
            !m.accepts(&s.encode(&rows[row]).unwrap()),
            "{name} row {row}"
        );
        n += 1;
        if !seen.iter().any(|x| x == name) {
            seen.push(name.to_string());
            let ex = explain(&s, &m, &rows[row], &Config::default()).unwrap();
            assert_eq!(ex.outcome, Outcome::Optimal, "{name} row {row}");
            let again = &ex.counterfactuals[0].raw;
            assert!(
                again.iter().zip(&cf).all(|(a, b)| (a - b).abs() <= 1e-9),
                "{name} row {row}: {again:?} now, {cf:?} committed"
            );
        }
    }
    assert_eq!(seen.len(), 2);
    assert_eq!(n, 10);
}

/// jpmml-evaluator's probabilities of the committed random forests, one per
/// row (`pmml_tree_peers.py`): the favourable class's probability is
/// jpmml's to the bit (the oracle: the reference evaluator on the same file),
/// for either favourable class; the decision at 0.5 is jpmml's probability
/// compared with 0.5; through the encoding the same bits.
#[test]
fn random_forests_score_every_row_as_jpmml_evaluator() {
    let s = schema();
    let rows = rows();
    for (name, missing) in FORESTS {
        let m1 = trees(&text(name), &opts("1", missing)).unwrap();
        let m0 = trees(&text(name), &opts("0", missing)).unwrap();
        let want = jpmml(name);
        assert_eq!(want.len(), rows.len(), "{name}");
        let (mut acc1, mut acc0) = (0, 0);
        for (k, (raw, [p0, p1, _])) in rows.iter().zip(want).enumerate() {
            let x = s.encode(raw).unwrap();
            assert_eq!(m1.probability(&x), p1, "{name} row {k}");
            assert_eq!(m0.probability(&x), p0, "{name} row {k}");
            assert_eq!(
                m1.score(&x).to_bits(),
                m1.margin_raw(raw).to_bits(),
                "{name} {k}"
            );
            assert_eq!(m1.accepts(&x), p1 > 0.5, "{name} row {k}: {p1}");
            assert_eq!(m0.accepts(&x), p0 > 0.5, "{name} row {k}: {p0}");
            acc1 += usize::from(p1 > 0.5);
            acc0 += usize::from(p0 > 0.5);
        }
        assert!(acc1 > 0 && acc0 > 0, "{name}: one class accepts every row");
    }
}

/// The committed forests, with the features read as missing at their codes.
const FORESTS: &[(&str, &[&str])] = &[
    ("rf", &[]),
    ("rf_balanced_deep", &[]),
    ("rf_leaf_nobootstrap", &[]),
    ("rf_subsample_weights", &[]),
    ("extra_trees", &[]),
];

/// A forest's cut-off as a score is the largest sum whose mean is at most
/// the threshold: checked against the definition on every sum near `t·n`
/// (the oracle: the division itself, one ulp at a time) for many `t`, `n`.
#[test]
fn a_forest_cut_off_is_the_mean_compared_with_the_threshold() {
    use crate::model::trees::Output;
    let mut checked = 0;
    for n in 1u32..=64 {
        for k in 1..200 {
            let t = f64::from(k) / 200.0 + f64::from(n) * 1e-17;
            let o = Output::MeanOf { trees: n };
            let cut = o.score_of_probability(t);
            let mut s = f64::from(n) * t;
            for _ in 0..8 {
                s = crate::model::trees::ulp_step(s, false);
            }
            for _ in 0..16 {
                assert_eq!(s > cut, o.probability(s) > t, "n {n} t {t} s {s}");
                s = crate::model::trees::ulp_step(s, true);
                checked += 1;
            }
        }
    }
    assert!(checked > 100_000);
}

/// The committed forest counterfactuals (`pmml_tree_peers.py
/// forest_counterfactuals`: cfx's proven-optimal counterfactuals of the first
/// five declined rows of `rf` and `extra_trees`, class 0 favourable,
/// re-scored by jpmml-evaluator, the oracle): each is accepted by jpmml and by
/// cfx, its factual declined; the first of each is proven optimal again here
/// and must be the same row — a drift check only (cfx wrote it).
#[test]
fn committed_forest_counterfactuals_are_accepted_by_jpmml_and_found_again() {
    use crate::coherent::{Config, Outcome, explain};
    let s = schema();
    let rows = rows();
    let text_cf = std::fs::read_to_string(data("trees/forest_counterfactuals.csv")).unwrap();
    let mut seen: Vec<String> = Vec::new();
    let mut n = 0;
    for line in text_cf.lines().skip(1) {
        let c: Vec<&str> = line.split(',').collect();
        let (name, row) = (c[0], c[1].parse::<usize>().unwrap());
        let cf: Vec<f64> = c[2..7].iter().map(|v| v.parse().unwrap()).collect();
        let p_bad: f64 = c[7].parse().unwrap();
        assert!(p_bad < 0.5, "{name} row {row}: jpmml declines {cf:?}");
        let m = AnyModel::Trees(trees(&text(name), &opts("0", &[])).unwrap());
        assert!(m.accepts(&s.encode(&cf).unwrap()), "{name} row {row}");
        assert!(
            !m.accepts(&s.encode(&rows[row]).unwrap()),
            "{name} row {row}"
        );
        n += 1;
        if !seen.iter().any(|x| x == name) {
            seen.push(name.to_string());
            let ex = explain(&s, &m, &rows[row], &Config::default()).unwrap();
            assert_eq!(ex.outcome, Outcome::Optimal, "{name} row {row}");
            let again = &ex.counterfactuals[0].raw;
            assert!(
                again.iter().zip(&cf).all(|(a, b)| (a - b).abs() <= 1e-9),
                "{name} row {row}: {again:?} now, {cf:?} committed"
            );
        }
    }
    assert_eq!(seen.len(), 2);
    assert_eq!(n, 10);
}
