//! The portfolio's JSON lines kept as ledger records (issue 28).
//!
//! Oracle: the single-applicant call. A portfolio run on the first rows of the
//! bundled German credit file (with an application id, a branch and one bad
//! row) is converted; every record must equal `LedgerRecord::from_explanation`
//! of a fresh `explain` of its applicant, and the same model must break none
//! of them. Files that are not one run's input and output are refused and
//! leave no ledger behind.

use cfx::coherent::portfolio::{PortfolioOptions, explain_portfolio};
use cfx::coherent::{Config, explain};
use cfx::data::{bundled_german_path, german_credit};
use cfx::model::{AnyModel, LinearModel, LogisticFit, Model};
use cfx::revalidate::{
    LedgerRecord, PortfolioLedgerOptions, RevalidateOptions, ledger_from_portfolio,
    revalidate_ledger,
};
use cfx::schema::Schema;
use std::path::PathBuf;

const N: usize = 150;
/// The data row whose first feature holds an unknown level.
const BAD: usize = 7;

fn fitted() -> (Schema, AnyModel, AnyModel, Vec<Vec<f64>>) {
    let d = german_credit(&bundled_german_path()).unwrap();
    let (train, test) = d.holdout_split();
    let mut schema = train.schema.clone();
    schema.fit_weights(&train.rows).unwrap();
    let x = schema.encode_rows(&train.rows).unwrap();
    let a = LinearModel::fit(&x, &train.labels, LogisticFit::default()).unwrap();
    let xt = schema.encode_rows(&test.rows).unwrap();
    let b = LinearModel::fit(&xt, &test.labels, LogisticFit::default()).unwrap();
    (schema, AnyModel::Linear(a), AnyModel::Linear(b), d.rows)
}

fn temp(name: &str) -> PathBuf {
    std::env::temp_dir().join(format!(
        "cfx-ledger-portfolio-{}-{name}",
        std::process::id()
    ))
}

/// The first `N` German applicants with an application id and a branch
/// (empty for every fifth row) before their columns, a blank line after row
/// 3 and an unknown level in row `BAD`.
fn book(path: &PathBuf) {
    let text = std::fs::read_to_string(bundled_german_path()).unwrap();
    let mut lines = text.lines();
    let mut out = format!("application_id,branch,{}\n", lines.next().unwrap());
    for (k, line) in lines.take(N).enumerate() {
        let branch = ["north", "south", "east", "west", ""][k % 5];
        let line = if k == BAD {
            format!("bogus{}", &line[line.find(',').unwrap()..])
        } else {
            line.to_string()
        };
        out.push_str(&format!("A{:04},{branch},{line}\n", 1000 + k));
        if k == 3 {
            out.push('\n');
        }
    }
    std::fs::write(path, out).unwrap();
}

fn portfolio_options() -> PortfolioOptions {
    PortfolioOptions {
        ignore_columns: vec![
            "creditability".into(),
            "application_id".into(),
            "branch".into(),
        ],
        chunk_rows: 16,
        resume: false,
    }
}

fn ledger_options() -> PortfolioLedgerOptions {
    PortfolioLedgerOptions {
        ignore_columns: vec!["creditability".into()],
        id_column: Some("application_id".into()),
        group_column: Some("branch".into()),
        issued: Some("2026-12-02".into()),
        robustness: None,
    }
}

/// The book, its portfolio run under `model`: (csv, explanations).
fn run(schema: &Schema, model: &AnyModel, tag: &str) -> (PathBuf, PathBuf) {
    run_with(schema, model, tag, &Config::default())
}

/// [`run`] under `config` (two batch threads).
fn run_with(schema: &Schema, model: &AnyModel, tag: &str, config: &Config) -> (PathBuf, PathBuf) {
    let (csv, lines) = (temp(&format!("{tag}.csv")), temp(&format!("{tag}.jsonl")));
    book(&csv);
    let config = Config {
        batch_threads: 2,
        ..*config
    };
    let s = explain_portfolio(
        schema,
        model,
        &csv,
        &lines,
        &config,
        &portfolio_options(),
        &mut |_| true,
    )
    .unwrap();
    assert_eq!((s.rows, s.errors), (N, 1));
    (csv, lines)
}

#[test]
fn every_record_is_the_single_calls_record_and_the_same_model_breaks_none() {
    let (schema, a, _, rows) = fitted();
    let (csv, lines) = run(&schema, &a, "oracle");
    let ledger = temp("oracle-ledger.jsonl");
    let counts =
        ledger_from_portfolio(&schema, &a, &csv, &lines, &ledger, &ledger_options()).unwrap();
    assert_eq!(counts.rows, N);
    assert_eq!(counts.errors, 1);
    assert_eq!(
        counts.accepted + counts.records + counts.without_counterfactual + counts.errors,
        N
    );
    assert!(counts.records >= 10, "{counts:?}");

    // The oracle: each declined row of the book, explained on its own.
    let text = std::fs::read_to_string(&ledger).unwrap();
    let records: Vec<LedgerRecord> = text
        .lines()
        .map(|l| LedgerRecord::from_json(l).unwrap())
        .collect();
    let mut expected = Vec::new();
    for (k, raw) in rows.iter().take(N).enumerate() {
        if k == BAD {
            continue;
        }
        if a.accepts(&schema.encode(raw).unwrap()) {
            continue;
        }
        let ex = explain(&schema, &a, raw, &Config::default()).unwrap();
        if ex.counterfactuals.is_empty() {
            continue;
        }
        let id = format!("A{:04}", 1000 + k);
        let mut r = LedgerRecord::from_explanation(&schema, &a, &id, &ex)
            .unwrap()
            .unwrap();
        r.issued = Some("2026-12-02".into());
        r.group = ["north", "south", "east", "west"]
            .get(k % 5)
            .map(|g| g.to_string());
        expected.push(r);
    }
    assert_eq!(records.len(), expected.len());
    for (got, want) in records.iter().zip(&expected) {
        assert_eq!(got, want, "record {}", want.id);
    }
    assert!(records.iter().any(|r| r.group.is_none()));

    // Without the id and group columns: ids by row number, no groups.
    let plain = temp("oracle-plain.jsonl");
    let options = PortfolioLedgerOptions {
        ignore_columns: portfolio_options().ignore_columns,
        ..PortfolioLedgerOptions::default()
    };
    let c2 = ledger_from_portfolio(&schema, &a, &csv, &lines, &plain, &options).unwrap();
    assert_eq!(c2, counts);
    let plain_records: Vec<LedgerRecord> = std::fs::read_to_string(&plain)
        .unwrap()
        .lines()
        .map(|l| LedgerRecord::from_json(l).unwrap())
        .collect();
    for (p, r) in plain_records.iter().zip(&records) {
        let k: usize = r.id[1..].parse::<usize>().unwrap() - 1000;
        assert_eq!(p.id, format!("row-{k}"));
        assert!(p.group.is_none() && p.issued.is_none());
        assert_eq!(
            (&p.applicant, &p.advised, p.cost),
            (&r.applicant, &r.advised, r.cost)
        );
    }

    // The same model keeps every promise.
    let report = revalidate_ledger(
        &schema,
        &a,
        &ledger,
        &temp("oracle-revalidated.jsonl"),
        &Config::default(),
        &RevalidateOptions::default(),
    )
    .unwrap();
    assert_eq!(
        (report.records, report.kept, report.broken, report.errors),
        (records.len(), records.len(), 0, 0)
    );
    assert_eq!(
        report.groups["north"].records,
        records
            .iter()
            .filter(|r| r.group.as_deref() == Some("north"))
            .count()
    );
}

#[test]
fn files_of_another_run_are_refused_and_leave_no_ledger() {
    let (schema, a, b, _) = fitted();
    let (csv, lines) = run(&schema, &a, "refused");
    let ledger = temp("refused-ledger.jsonl");
    let text = std::fs::read_to_string(&lines).unwrap();
    let all: Vec<&str> = text.lines().collect();
    let refused = |lines_text: String, model: &AnyModel, options: &PortfolioLedgerOptions| {
        let l = temp("refused-lines.jsonl");
        std::fs::write(&l, lines_text).unwrap();
        let e = ledger_from_portfolio(&schema, model, &csv, &l, &ledger, options)
            .unwrap_err()
            .to_string();
        assert!(!ledger.exists(), "a refused conversion left a ledger: {e}");
        e
    };
    let opts = ledger_options();
    // A line missing at the end (a cancelled run), and one in the middle.
    let e = refused(all[..N - 1].join("\n"), &a, &opts);
    assert!(
        e.contains(&format!("explanations end after {} lines", N - 1)),
        "{e}"
    );
    let mut gap = all.clone();
    gap.remove(20);
    let e = refused(gap.join("\n"), &a, &opts);
    assert!(e.contains("line 21 is the answer for row 21"), "{e}");
    // A line too many.
    let e = refused(format!("{text}{}\n", all[0]), &a, &opts);
    assert!(
        e.contains(&format!("the CSV ends after {N} data rows")),
        "{e}"
    );
    // Another model than the run's.
    let e = refused(text.clone(), &b, &opts);
    assert!(e.contains("the model gives it"), "{e}");
    // Not a portfolio line.
    let e = refused("{\"format\": \"cfx-ledger\"}\n".into(), &a, &opts);
    assert!(e.contains("not a portfolio line"), "{e}");
    // A header the run would have refused, and a missing id column.
    let bare = PortfolioLedgerOptions::default();
    let e = refused(text.clone(), &a, &bare);
    assert!(
        e.contains("column 'application_id'") && e.contains("ignore_columns"),
        "{e}"
    );
    let e = refused(
        text.clone(),
        &a,
        &PortfolioLedgerOptions {
            id_column: Some("app".into()),
            ignore_columns: portfolio_options().ignore_columns,
            ..opts.clone()
        },
    );
    assert!(e.contains("no column for the id column 'app'"), "{e}");
    // The ledger may not overwrite an input.
    let before = std::fs::read(&csv).unwrap();
    let e = ledger_from_portfolio(&schema, &a, &csv, &lines, &csv, &opts)
        .unwrap_err()
        .to_string();
    assert!(e.contains("writing it would destroy the input"), "{e}");
    assert_eq!(std::fs::read(&csv).unwrap(), before);
}

/// A run with a robustness target writes robust advice: its lines carry each
/// counterfactual's invalidation rate and its records are kind `robust`, each
/// equal to the single call's record (`LedgerRecord::from_explanation` of a
/// fresh robust `explain`, whose kind is `robust` too).
#[test]
fn a_robust_run_writes_robust_records() {
    let (schema, a, _, rows) = fitted();
    let config = Config {
        robustness: Some(cfx::coherent::Robustness {
            sigma2: 0.01,
            invalidation_target: 0.1,
            box_kind: Default::default(),
        }),
        ..Config::default()
    };
    let (csv, lines) = run_with(&schema, &a, "robust", &config);
    let text = std::fs::read_to_string(&lines).unwrap();
    assert!(text.contains("\"invalidation_rate\""));
    let ledger = temp("robust-ledger.jsonl");
    // The run's target, which its lines do not carry, given to the converter.
    let options = PortfolioLedgerOptions {
        robustness: config.robustness,
        ..ledger_options()
    };
    let counts = ledger_from_portfolio(&schema, &a, &csv, &lines, &ledger, &options).unwrap();
    assert!(counts.records >= 10, "{counts:?}");
    let records: Vec<LedgerRecord> = std::fs::read_to_string(&ledger)
        .unwrap()
        .lines()
        .map(|l| LedgerRecord::from_json(l).unwrap())
        .collect();
    let mut expected = Vec::new();
    for (k, raw) in rows.iter().take(N).enumerate() {
        if k == BAD || a.accepts(&schema.encode(raw).unwrap()) {
            continue;
        }
        let ex = explain(&schema, &a, raw, &config).unwrap();
        if ex.counterfactuals.is_empty() {
            continue;
        }
        let id = format!("A{:04}", 1000 + k);
        let mut r = LedgerRecord::from_explanation(&schema, &a, &id, &ex)
            .unwrap()
            .unwrap();
        r.issued = Some("2026-12-02".into());
        r.group = ["north", "south", "east", "west"]
            .get(k % 5)
            .map(|g| g.to_string());
        expected.push(r);
    }
    assert_eq!(records.len(), expected.len());
    for (got, want) in records.iter().zip(&expected) {
        assert_eq!(got.kind, cfx::revalidate::AdviceKind::Robust);
        assert_eq!(got.robustness, config.robustness);
        assert_eq!(got, want, "record {}", want.id);
    }
    // Without the run's target the records say none (the lines do not say
    // it); a target that is not one is refused before anything is written.
    let bare = temp("robust-bare.jsonl");
    ledger_from_portfolio(&schema, &a, &csv, &lines, &bare, &ledger_options()).unwrap();
    for (line, want) in std::fs::read_to_string(&bare)
        .unwrap()
        .lines()
        .zip(&expected)
    {
        let got = LedgerRecord::from_json(line).unwrap();
        assert!(!line.contains("robustness"), "{line}");
        assert_eq!(
            got,
            LedgerRecord {
                robustness: None,
                ..want.clone()
            }
        );
    }
    let impossible = PortfolioLedgerOptions {
        robustness: Some(cfx::coherent::Robustness {
            invalidation_target: 1.5,
            ..config.robustness.unwrap()
        }),
        ..ledger_options()
    };
    let nowhere = temp("robust-impossible.jsonl");
    let e = ledger_from_portfolio(&schema, &a, &csv, &lines, &nowhere, &impossible)
        .unwrap_err()
        .to_string();
    assert!(e.contains("invalidation_target"), "{e}");
    assert!(!nowhere.exists());
}
