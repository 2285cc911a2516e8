//! The ONNX importer against onnxruntime's outputs (committed by
//! benches/peers/onnx_peers.py: the oracle is onnxruntime itself), and against
//! hostile or inexact files.

use super::*;
use crate::model::Model;
use crate::model::trees::Output;

fn data(name: &str) -> std::path::PathBuf {
    std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data/onnx")
        .join(name)
}

fn schema() -> Schema {
    Schema::from_json(&std::fs::read_to_string(data("schema.json")).unwrap()).unwrap()
}

fn csv(name: &str) -> Vec<Vec<f64>> {
    std::fs::read_to_string(data(name))
        .unwrap()
        .lines()
        .skip(1)
        .map(|l| l.split(',').map(|v| v.parse().unwrap()).collect())
        .collect()
}

fn cases() -> Vec<serde_json::Value> {
    serde_json::from_str(&std::fs::read_to_string(data("cases.json")).unwrap()).unwrap()
}

fn options(case: &serde_json::Value) -> OnnxOptions {
    serde_json::from_value(case["options"].clone()).unwrap()
}

/// The probability tolerance: onnxruntime's outputs are float32. A tree
/// ensemble takes the same leaves and the same float32 sum, so only the
/// logistic differs (cfx's in f64 of the float32 margin, onnxruntime's in
/// float32): a few float32 ulps, 2⁻²². A linear or MLP model evaluates the
/// float32 weights in f64 on the uncast inputs, onnxruntime in float32: 1e-6.
fn tolerance(m: &AnyModel) -> f64 {
    if m.as_trees().is_some() {
        (2.0f64).powi(-22)
    } else {
        1e-6
    }
}

/// Every accepted case scores every committed row as onnxruntime does (to
/// float32 precision, see `tolerance`) and decides every row as it does at
/// the 0.5 cutoff; every refused case is refused with its cause named.
#[test]
fn every_committed_case_matches_onnxruntime_or_is_refused() {
    let s = schema();
    let rows = csv("rows.csv");
    let mut accepted = 0;
    let mut refused = 0;
    let mut forest_rows = 0;
    for case in cases() {
        let name = case["name"].as_str().unwrap();
        let opts = options(&case);
        let got = from_onnx_file(&data(case["file"].as_str().unwrap()), &s, &opts);
        if let Some(words) = case.get("refuse").and_then(|w| w.as_str()) {
            let e = got.map(|_| ()).expect_err(name).to_string();
            assert!(e.contains(words), "{name}: refusal '{e}' lacks '{words}'");
            refused += 1;
            continue;
        }
        let m = got.unwrap_or_else(|e| panic!("{name}: {e}"));
        let scores = csv(case["scores"].as_str().unwrap());
        assert_eq!(scores.len(), rows.len(), "{name}");
        // favourable_class 0: cfx's probability is that of the first class.
        let first_favourable = opts.favourable_class == Some(0);
        let tol = tolerance(&m);
        let mut worst: f64 = 0.0;
        for (raw, want) in rows.iter().zip(&scores) {
            let p1 = want[1];
            let x = s.encode(raw).unwrap();
            let p = m.probability(&x);
            let p_second = if first_favourable { 1.0 - p } else { p };
            worst = worst.max((p_second - p1).abs());
            assert!(
                (p_second - p1).abs() <= tol,
                "{name}: row {raw:?}: cfx {p_second}, onnxruntime {p1}"
            );
            if (p1 - 0.5).abs() > tol {
                let accepted_by_ort = if first_favourable { p1 < 0.5 } else { p1 > 0.5 };
                assert_eq!(m.accepts(&x), accepted_by_ort, "{name}: row {raw:?}");
            }
            if let Some(t) = m.as_trees() {
                // The raw evaluator agrees with the encoded one bit for bit.
                assert_eq!(t.margin_raw(raw), m.score(&x), "{name}: row {raw:?}");
                if t.output() == Output::Probability {
                    // A forest: the favourable class's own output, to the bit
                    // (onnxruntime's probability tensor is float32).
                    let want = if first_favourable { want[2] } else { want[1] };
                    assert_eq!((p as f32) as f64, want, "{name}: row {raw:?}");
                    forest_rows += 1;
                }
            }
        }
        assert!(
            m.to_json().contains("import_report"),
            "{name}: the report is in the JSON"
        );
        eprintln!("{name}: max |Δp| = {worst:e} over {} rows", rows.len());
        accepted += 1;
    }
    assert!(
        accepted >= 10 && refused >= 5,
        "{accepted} accepted, {refused} refused"
    );
    assert!(forest_rows >= 6 * rows.len(), "{forest_rows} forest rows");
}

/// The favourable class must be declared, and a declaration of a class the
/// model does not have is refused.
#[test]
fn the_favourable_class_is_required_and_checked() {
    let s = schema();
    let e = from_onnx_file(&data("sklearn_gb.onnx"), &s, &OnnxOptions::default())
        .unwrap_err()
        .to_string();
    assert!(e.contains("favourable_class"), "{e}");
    let opts = OnnxOptions {
        favourable_class: Some(7),
        ..Default::default()
    };
    let e = from_onnx_file(&data("sklearn_gb.onnx"), &s, &opts)
        .unwrap_err()
        .to_string();
    assert!(e.contains("not a class"), "{e}");
}

/// Declaring the other class flips the decision of every row exactly: the
/// margin is negated (a sign flip) and the cutoff becomes 1 − c.
#[test]
fn the_other_class_negates_the_margin_exactly() {
    let s = schema();
    let one = from_onnx_file(
        &data("xgboost.onnx"),
        &s,
        &OnnxOptions {
            favourable_class: Some(1),
            special_as_missing: vec!["income".into()],
            ..Default::default()
        },
    )
    .unwrap();
    let zero = from_onnx_file(
        &data("xgboost.onnx"),
        &s,
        &OnnxOptions {
            favourable_class: Some(0),
            special_as_missing: vec!["income".into()],
            ..Default::default()
        },
    )
    .unwrap();
    for raw in csv("rows.csv") {
        let x = s.encode(&raw).unwrap();
        assert_eq!(one.score(&x), -zero.score(&x));
    }
}

/// Hostile bytes: empty, garbage, a truncated file, a file above the limit
/// (checked before reading) — each a format error, never a panic.
#[test]
fn hostile_bytes_are_refused() {
    let s = schema();
    let opts = OnnxOptions {
        favourable_class: Some(1),
        ..Default::default()
    };
    for bytes in [
        &b""[..],
        &b"\x0a\xff\xff\xff\xff\x0f"[..],
        &b"not an onnx file at all"[..],
    ] {
        let e = from_onnx_bytes(bytes, &s, &opts).unwrap_err();
        assert!(matches!(e, Error::Format(_)), "{e}");
    }
    let full = std::fs::read(data("sklearn_gb.onnx")).unwrap();
    for cut in [1, 10, 100, full.len() / 3, full.len() - 1] {
        assert!(
            from_onnx_bytes(&full[..cut], &s, &opts).is_err(),
            "cut {cut}"
        );
    }
    let big = vec![0u8; MAX_ONNX_BYTES + 1];
    let e = from_onnx_bytes(&big, &s, &opts).unwrap_err().to_string();
    assert!(e.contains("limit"), "{e}");
    let e = from_onnx_file(std::path::Path::new("/nonexistent/m.onnx"), &s, &opts).unwrap_err();
    assert!(matches!(e, Error::Io(_)), "{e}");
}

/// A wrong column count is refused naming the option; a column that names
/// nothing in the schema is refused naming it.
#[test]
fn columns_are_checked_against_the_input_and_the_schema() {
    let s = schema();
    let e = from_onnx_file(
        &data("logistic_onehot.onnx"),
        &s,
        &OnnxOptions {
            favourable_class: Some(0),
            ..Default::default()
        },
    )
    .unwrap_err()
    .to_string();
    assert!(e.contains("\"columns\""), "{e}");
    let mut cols: Vec<String> = [
        "age",
        "income",
        "utilization",
        "delinq",
        "housing=own",
        "housing=rent",
        "housing=castle",
    ]
    .iter()
    .map(|c| c.to_string())
    .collect();
    let e = from_onnx_file(
        &data("logistic_onehot.onnx"),
        &s,
        &OnnxOptions {
            favourable_class: Some(0),
            columns: Some(cols.clone()),
            ..Default::default()
        },
    )
    .unwrap_err()
    .to_string();
    assert!(e.contains("housing=castle"), "{e}");
    cols[6] = "housing=other".into();
    assert!(
        from_onnx_file(
            &data("logistic_onehot.onnx"),
            &s,
            &OnnxOptions {
                favourable_class: Some(0),
                columns: Some(cols),
                ..Default::default()
            },
        )
        .is_ok()
    );
}

/// The committed counterfactuals (benches/peers/onnx_peers.py
/// --counterfactuals): cfx's proven-optimal counterfactuals of the first
/// declined applicants under a linear, a tree-ensemble and a ReLU MLP graph,
/// each re-scored by onnxruntime (the independent oracle: its probability is
/// in the file) and accepted by it. cfx finds the same counterfactuals again
/// (a drift check: the rows were written by cfx) and accepts them.
#[test]
fn committed_counterfactuals_are_accepted_by_onnxruntime_and_found_again() {
    let path = data("counterfactuals.csv");
    let Ok(text) = std::fs::read_to_string(&path) else {
        panic!("{} is committed", path.display());
    };
    let s = schema();
    let rows = csv("rows.csv");
    let cases = cases();
    let mut per_model: std::collections::BTreeMap<String, usize> = Default::default();
    for line in text.lines().skip(1) {
        let cells: Vec<&str> = line.split(',').collect();
        let (name, row) = (cells[0], cells[1].parse::<usize>().unwrap());
        assert_eq!(cells[2], "optimal", "{line}");
        let case = cases.iter().find(|c| c["name"] == name).unwrap();
        let opts = options(case);
        let m = from_onnx_file(&data(case["file"].as_str().unwrap()), &s, &opts).unwrap();
        let cf: Vec<f64> = cells[4..9].iter().map(|v| v.parse().unwrap()).collect();
        let p1: f64 = cells[9].parse().unwrap();
        let by_ort = if opts.favourable_class == Some(0) {
            p1 < 0.5
        } else {
            p1 > 0.5
        };
        assert!(
            by_ort && cells[10] == "1",
            "{line}: onnxruntime declines it"
        );
        let ex = crate::coherent::explain(&s, &m, &rows[row], &crate::coherent::Config::default())
            .unwrap();
        let got = &ex.counterfactuals[0];
        // Found again (drift: cfx wrote these rows): equal up to the last
        // bits of a continuous value, which the MIP's formulation (bounds,
        // its start) may move without changing the optimum.
        assert_eq!(got.raw.len(), cf.len(), "{name} row {row}");
        for (g, w) in got.raw.iter().zip(&cf) {
            assert!(
                (g - w).abs() <= 1e-9 * w.abs().max(1.0),
                "{name} row {row}: {:?} against {cf:?}",
                got.raw
            );
        }
        assert!(m.accepts(&s.encode(&cf).unwrap()));
        *per_model.entry(name.to_string()).or_default() += 1;
    }
    assert!(per_model.len() >= 2, "{per_model:?}");
    assert!(per_model.values().all(|&n| n >= 5), "{per_model:?}");
}
