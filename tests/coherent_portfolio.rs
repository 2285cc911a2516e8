//! The streaming portfolio call on the bundled German credit file: one JSON line
//! per applicant in input order, each declined applicant's answer equal to the
//! single-applicant call's, cancellation after a chunk, unknown columns and bad
//! rows reported by name.

use cfx::coherent::portfolio::{PortfolioOptions, explain_portfolio};
use cfx::coherent::{Config, explain};
use cfx::data::{bundled_german_path, german_credit};
use cfx::model::{LinearModel, LogisticFit, Model};
use cfx::schema::Schema;
use std::path::PathBuf;

fn fitted() -> (Schema, LinearModel, Vec<Vec<f64>>) {
    let d = german_credit(&bundled_german_path()).unwrap();
    let (train, _) = d.holdout_split();
    let mut schema = train.schema.clone();
    schema.fit_weights(&train.rows).unwrap();
    let x = schema.encode_rows(&train.rows).unwrap();
    let model = LinearModel::fit(&x, &train.labels, LogisticFit::default()).unwrap();
    (schema, model, d.rows)
}

fn temp(name: &str) -> PathBuf {
    std::env::temp_dir().join(format!("cfx-portfolio-{}-{name}", std::process::id()))
}

fn options(chunk_rows: usize) -> PortfolioOptions {
    PortfolioOptions {
        ignore_columns: vec!["creditability".into()],
        chunk_rows,
    }
}

fn lines(path: &PathBuf) -> Vec<serde_json::Value> {
    std::fs::read_to_string(path)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

#[test]
fn portfolio_lines_match_single_explanations_in_input_order() {
    let (schema, model, rows) = fitted();
    let out = temp("all.jsonl");
    let config = Config {
        batch_threads: 2,
        ..Config::default()
    };
    let mut calls = Vec::new();
    let summary = explain_portfolio(
        &schema,
        &model,
        &bundled_german_path(),
        &out,
        &config,
        &options(97),
        &mut |done| {
            calls.push(done);
            true
        },
    )
    .unwrap();
    let got = lines(&out);
    std::fs::remove_file(&out).unwrap();
    assert_eq!(got.len(), rows.len());
    assert_eq!(summary.rows, rows.len());
    assert!(!summary.cancelled);
    assert_eq!(summary.errors, 0);
    assert_eq!(summary.accepted + summary.declined, rows.len());
    assert_eq!(calls.len(), rows.len().div_ceil(97));
    assert_eq!(calls.last(), Some(&rows.len()));
    let mut declined = 0;
    for (k, (line, raw)) in got.iter().zip(&rows).enumerate() {
        assert_eq!(line["row"], k);
        let x = schema.encode(raw).unwrap();
        if model.accepts(&x) {
            assert_eq!(line["decision"], "accepted");
            continue;
        }
        declined += 1;
        assert_eq!(line["decision"], "declined", "row {k}");
        let single = explain(&schema, &model, raw, &config).unwrap();
        let cf = &single.counterfactuals[0];
        assert_eq!(line["counterfactual"]["cost"].as_f64().unwrap(), cf.cost);
        assert_eq!(line["proved_by"], "separable");
        let raw_out: Vec<f64> =
            serde_json::from_value(line["counterfactual"]["raw"].clone()).unwrap();
        assert_eq!(raw_out, cf.raw);
        assert_eq!(
            line["counterfactual"]["changes"].as_array().unwrap().len(),
            cf.changes.len()
        );
    }
    assert_eq!(declined, summary.declined);
    assert!(declined >= 100, "{declined} declined");
    assert_eq!(summary.with_recourse, declined);
}

#[test]
fn portfolio_cancels_after_a_chunk() {
    let (schema, model, _) = fitted();
    let out = temp("cancel.jsonl");
    let summary = explain_portfolio(
        &schema,
        &model,
        &bundled_german_path(),
        &out,
        &Config::default(),
        &options(50),
        &mut |_| false,
    )
    .unwrap();
    let got = lines(&out);
    std::fs::remove_file(&out).unwrap();
    assert!(summary.cancelled);
    assert_eq!(summary.rows, 50);
    assert_eq!(got.len(), 50);
}

#[test]
fn portfolio_refuses_unknown_columns_and_reports_bad_rows_by_name() {
    let (schema, model, _) = fitted();
    let out = temp("refused.jsonl");
    let err = explain_portfolio(
        &schema,
        &model,
        &bundled_german_path(),
        &out,
        &Config::default(),
        &PortfolioOptions::default(),
        &mut |_| true,
    )
    .unwrap_err();
    assert!(err.to_string().contains("'creditability'"), "{err}");
    // A bad row is a line of the output, and the run goes on.
    let text = std::fs::read_to_string(bundled_german_path()).unwrap();
    let mut rows: Vec<String> = text.lines().take(4).map(String::from).collect();
    assert!(rows[1].contains(",radio/television,"));
    rows[1] = rows[1].replacen(",radio/television,", ",spaceship,", 1);
    let input = temp("bad.csv");
    std::fs::write(&input, rows.join("\n")).unwrap();
    let summary = explain_portfolio(
        &schema,
        &model,
        &input,
        &out,
        &Config::default(),
        &options(10),
        &mut |_| true,
    )
    .unwrap();
    let got = lines(&out);
    std::fs::remove_file(&out).unwrap();
    std::fs::remove_file(&input).unwrap();
    assert_eq!(summary.rows, 3);
    assert_eq!(summary.errors, 1, "{got:?}");
    let bad = got.iter().find(|l| l.get("error").is_some()).unwrap();
    let msg = bad["error"].as_str().unwrap();
    assert!(
        msg.contains("column 'purpose'") && msg.contains("spaceship"),
        "{msg}"
    );
    assert!(got.iter().all(|l| l["row"].is_u64()));
}
