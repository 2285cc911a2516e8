//! The advice ledger and its re-validation against a new model (issue 28).
//!
//! Oracles: the new model's own decision on every advised and repaired row;
//! HiGHS (an independent solver) for the optimality of each repair; the same
//! model, which must break nothing; the stream's own single-record calls for
//! its lines, on every thread count and chunk size.

use cfx::coherent::{Config, SolverChoice, explain};
use cfx::data::{bundled_german_path, german_credit};
use cfx::model::{AnyModel, LinearModel, LogisticFit, Model};
use cfx::plan::{
    CorrectionConfig, EnsembleConfig, ModelUncertainty, lower_validity_bound, with_intercept,
};
use cfx::revalidate::{
    AdviceKind, LedgerRecord, PromiseStatus, RevalidateOptions, copa_corrected_advice, revalidate,
    revalidate_ledger,
};
use cfx::schema::Schema;
use rand::{Rng, SeedableRng};
use rand_xoshiro::Xoshiro256PlusPlus;
use std::path::PathBuf;

/// The German schema, the model fitted on the training part, one fitted on a
/// bootstrap resample of it (seeded), and the held-out rows.
fn fitted() -> (Schema, AnyModel, AnyModel, Vec<Vec<f64>>) {
    let d = german_credit(&bundled_german_path()).unwrap();
    let (train, test) = d.holdout_split();
    let mut schema = train.schema.clone();
    schema.fit_weights(&train.rows).unwrap();
    let x = schema.encode_rows(&train.rows).unwrap();
    let a = LinearModel::fit(&x, &train.labels, LogisticFit::default()).unwrap();
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(28);
    let (mut xb, mut yb) = (Vec::new(), Vec::new());
    for _ in 0..x.len() {
        let k = rng.random_range(0..x.len());
        xb.push(x[k].clone());
        yb.push(train.labels[k]);
    }
    let b = LinearModel::fit(&xb, &yb, LogisticFit::default()).unwrap();
    (schema, AnyModel::Linear(a), AnyModel::Linear(b), test.rows)
}

fn temp(name: &str) -> PathBuf {
    std::env::temp_dir().join(format!("cfx-revalidate-{}-{name}", std::process::id()))
}

/// Advice for the first `n` declined held-out applicants under `model`.
fn ledger(schema: &Schema, model: &AnyModel, rows: &[Vec<f64>], n: usize) -> Vec<LedgerRecord> {
    let config = Config::default();
    rows.iter()
        .filter(|r| !model.accepts(&schema.encode(r).unwrap()))
        .take(n)
        .enumerate()
        .filter_map(|(k, r)| {
            let ex = explain(schema, model, r, &config).unwrap();
            let mut rec =
                LedgerRecord::from_explanation(schema, model, &format!("app-{k}"), &ex).unwrap()?;
            rec.group = Some(if k % 2 == 0 { "even" } else { "odd" }.into());
            Some(rec)
        })
        .collect()
}

#[test]
fn the_same_model_breaks_no_promise() {
    let (schema, a, _, rows) = fitted();
    let records = ledger(&schema, &a, &rows, 40);
    assert!(records.len() >= 30, "records: {}", records.len());
    for r in &records {
        assert_eq!(r.kind, AdviceKind::Explain);
        let v = revalidate(&schema, &a, r, &Config::default()).unwrap();
        assert_eq!(v.status, PromiseStatus::Kept, "{}", r.id);
        assert!(v.margin > 0.0 && !v.model_changed && v.repair.is_none());
        assert!(v.probability.unwrap() > a.threshold());
    }
}

#[test]
fn a_refitted_model_breaks_some_promises_and_every_repair_is_accepted_and_optimal() {
    let (schema, a, b, rows) = fitted();
    let records = ledger(&schema, &a, &rows, 60);
    let highs = Config {
        solver: SolverChoice::Mip,
        ..Config::default()
    };
    let (mut kept, mut broken) = (0, 0);
    for r in &records {
        let v = revalidate(&schema, &b, r, &Config::default()).unwrap();
        assert!(v.model_changed);
        let advised_accepted = b.accepts(&schema.encode(&r.advised).unwrap());
        match v.status {
            PromiseStatus::Kept => {
                assert!(advised_accepted, "{}", r.id);
                kept += 1;
            }
            PromiseStatus::Broken => {
                assert!(!advised_accepted, "{}", r.id);
                broken += 1;
                let repair = v.repair.as_ref().expect("a repair");
                assert!(b.accepts(&schema.encode(&repair.raw).unwrap()), "{}", r.id);
                assert_eq!(repair.outcome, "optimal");
                assert_eq!(v.extra_cost, Some(repair.cost));
                // HiGHS from the advised row: the same optimum.
                let h = explain(&schema, &b, &r.advised, &highs).unwrap();
                let hc = h.counterfactuals[0].cost;
                assert!(
                    (repair.cost - hc).abs() <= 1e-9 * hc.max(1.0),
                    "{}: {} vs HiGHS {hc}",
                    r.id,
                    repair.cost
                );
                let from = v
                    .applicant_repair
                    .as_ref()
                    .expect("a repair from the applicant");
                assert!(b.accepts(&schema.encode(&from.raw).unwrap()));
                schema.check_advice(&r.applicant, &from.raw, 0).unwrap();
            }
        }
    }
    eprintln!("refitted model: {kept} kept, {broken} broken");
    assert!(kept >= 1 && broken >= 1, "kept {kept}, broken {broken}");
}

#[test]
fn the_stream_is_byte_identical_on_any_thread_count_and_chunk_size_and_reports_the_counts() {
    let (schema, a, b, rows) = fitted();
    let records = ledger(&schema, &a, &rows, 60);
    let input = temp("ledger.jsonl");
    let mut text = String::new();
    for (k, r) in records.iter().enumerate() {
        text += &r.to_json();
        text.push('\n');
        if k == 5 {
            text += "{\"format\": \"cfx-ledger\", \"format_version\": 1, \"oops\": 1}\n\n";
        }
    }
    std::fs::write(&input, &text).unwrap();
    let mut first: Option<Vec<u8>> = None;
    let mut reports = Vec::new();
    for (threads, chunk) in [(1, 4096), (2, 1), (3, 7), (2, 4096)] {
        let out = temp(&format!("out-{threads}-{chunk}.jsonl"));
        let config = Config {
            batch_threads: threads,
            ..Config::default()
        };
        let report = revalidate_ledger(
            &schema,
            &b,
            &input,
            &out,
            &config,
            &RevalidateOptions {
                chunk_rows: chunk,
                ..RevalidateOptions::default()
            },
        )
        .unwrap();
        let bytes = std::fs::read(&out).unwrap();
        std::fs::remove_file(&out).ok();
        match &first {
            None => first = Some(bytes),
            Some(f) => assert!(f == &bytes, "threads {threads} chunk {chunk}"),
        }
        reports.push(report);
    }
    std::fs::remove_file(&input).ok();
    assert!(reports.windows(2).all(|w| w[0] == w[1]));
    let report = &reports[0];
    let lines: Vec<serde_json::Value> = String::from_utf8(first.unwrap())
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(lines.len(), records.len() + 1);
    assert_eq!(report.errors, 1);
    assert!(lines[6]["error"].as_str().unwrap().contains("oops"));
    // Each line equals the single-record call.
    let mut broken = 0;
    for (k, r) in records.iter().enumerate() {
        let line = &lines[if k <= 5 { k } else { k + 1 }];
        let mut v =
            serde_json::to_value(revalidate(&schema, &b, r, &Config::default()).unwrap()).unwrap();
        v["record"] = (if k <= 5 { k } else { k + 1 }).into();
        assert_eq!(line, &v, "record {k}");
        broken += usize::from(line["status"] == "broken");
    }
    assert_eq!(report.records, records.len());
    assert_eq!(report.broken, broken);
    assert_eq!(report.kept + report.broken, report.records);
    let groups: usize = report.groups.values().map(|g| g.records).sum();
    assert_eq!(groups, report.records);
    if broken > 0 {
        let q = report.extra_cost.unwrap();
        assert!(q.min <= q.median && q.median <= q.p90 && q.p90 <= q.max);
        assert!(!report.features_behind_breaks.is_empty());
        // The features behind the breaks, recounted from each repair's row
        // against its advised row with the schema's own change list.
        let mut counted = std::collections::BTreeMap::<String, usize>::new();
        for (k, r) in records.iter().enumerate() {
            let line = &lines[if k <= 5 { k } else { k + 1 }];
            let Some(raw) = line["repair"]["raw"].as_array() else {
                continue;
            };
            let raw: Vec<f64> = raw.iter().map(|v| v.as_f64().unwrap()).collect();
            for c in schema.describe_changes(&r.advised, &raw) {
                *counted.entry(c.name).or_default() += 1;
            }
        }
        let reported: std::collections::BTreeMap<String, usize> =
            report.features_behind_breaks.iter().cloned().collect();
        assert_eq!(reported, counted);
        let binned: usize = report.extra_cost_histogram.iter().map(|h| h.2).sum();
        assert_eq!(binned, report.repaired);
    }
    // The HTML page: the counts, four plots, every label escaped.
    let mut labelled = report.clone();
    labelled
        .groups
        .insert("<script>".into(), Default::default());
    labelled.robust_records = 5;
    labelled.robust_broken = 1;
    let html = labelled.to_html("German credit: refit <B>");
    assert!(html.contains(&format!("<td>{}</td>", report.records)));
    assert!(html.contains("refit &lt;B&gt;") && html.contains("&lt;script&gt;"));
    assert!(!html.contains("<script>"));
    assert_eq!(html.matches("<svg").count(), 4);
    assert_eq!(html.matches("</svg>").count(), 4);
}

#[test]
fn a_ledger_of_another_schema_or_format_is_refused_and_writes_nothing() {
    let (schema, a, b, rows) = fitted();
    let records = ledger(&schema, &a, &rows, 3);
    // Another schema: the same features, one of other actionability.
    let mut other = schema.clone();
    other.features[0].actionability.mutable = !other.features[0].actionability.mutable;
    let err = revalidate(&other, &b, &records[0], &Config::default()).unwrap_err();
    assert!(err.to_string().contains("issued under schema"), "{err}");
    let input = temp("other.jsonl");
    let out = temp("other-out.jsonl");
    std::fs::write(&input, records[0].to_json() + "\n").unwrap();
    let err = revalidate_ledger(
        &other,
        &b,
        &input,
        &out,
        &Config::default(),
        &RevalidateOptions::default(),
    )
    .unwrap_err();
    assert!(err.to_string().contains("issued under schema"), "{err}");
    assert!(!out.exists(), "nothing is written for a refused ledger");
    // Another format version, unknown keys, wrong lengths.
    let mut v: serde_json::Value = serde_json::from_str(&records[0].to_json()).unwrap();
    v["format_version"] = 2.into();
    assert!(LedgerRecord::from_json(&v.to_string()).is_err());
    v["format_version"] = 1.into();
    v["advisd"] = 1.into();
    let err = LedgerRecord::from_json(&v.to_string()).unwrap_err();
    assert!(err.to_string().contains("advisd"), "{err}");
    let mut short = records[0].clone();
    short.advised.pop();
    assert!(revalidate(&schema, &b, &short, &Config::default()).is_err());
    std::fs::remove_file(&input).ok();
    // A record round-trips through its JSON line.
    assert_eq!(
        LedgerRecord::from_json(&records[1].to_json()).unwrap(),
        records[1]
    );
}

/// The COPA-corrected version of issued advice (Bui, Nguyen & Nguyen 2022,
/// §3). Oracles: the schema's own rules for the applicant; L* of the one-option
/// plan (the SDP, computed here apart from the correction) before and after;
/// the new model's decision on every corrected row, counted against the
/// stream's report.
#[test]
fn copa_corrected_versions_follow_the_rules_and_are_counted_by_the_report() {
    let (schema, a, b, rows) = fitted();
    let d = german_credit(&bundled_german_path()).unwrap();
    let (train, _) = d.holdout_split();
    let x = schema.encode_rows(&train.rows).unwrap();
    let unc = ModelUncertainty::from_ensemble(
        &x,
        &train.labels,
        EnsembleConfig {
            refits: 200,
            seed: 5,
            ..EnsembleConfig::default()
        },
    )
    .unwrap();
    let mut records = ledger(&schema, &a, &rows, 30);
    let cfg = CorrectionConfig::default();
    let lower = |row: &[f64]| {
        lower_validity_bound(
            &[with_intercept(&schema.encode(row).unwrap())],
            &unc,
            cfg.rho,
        )
        .unwrap()
        .value
    };
    let (mut with, mut raised) = (0, 0);
    for r in records.iter_mut() {
        let Some(c) = copa_corrected_advice(&schema, &unc, &r.applicant, &r.advised, cfg).unwrap()
        else {
            continue;
        };
        schema.check_advice(&r.applicant, &c, 0).unwrap();
        let (before, after) = (lower(&r.advised), lower(&c));
        raised += usize::from(after > before + 1e-9);
        r.copa_advised = Some(c);
        with += 1;
    }
    assert!(
        with >= 20,
        "{with} of {} records got a COPA version",
        records.len()
    );
    // On these applicants the correction raised L* for every record (measured:
    // e.g. 0.000 → 0.501, 0.245 → 0.551); snapping onto grids could in
    // principle lose some of it, which this would catch.
    assert_eq!(raised, with, "L* rose for only {raised} of {with}");
    // The ledger keeps it; re-validation re-scores it; the report counts it.
    let input = temp("copa-ledger.jsonl");
    let text: String = records.iter().map(|r| r.to_json() + "\n").collect();
    std::fs::write(&input, &text).unwrap();
    let mut copa_broken = 0;
    for r in &records {
        assert_eq!(&LedgerRecord::from_json(&r.to_json()).unwrap(), r);
        let v = revalidate(&schema, &b, r, &Config::default()).unwrap();
        let expected = r
            .copa_advised
            .as_ref()
            .map(|c| b.accepts(&schema.encode(c).unwrap()));
        assert_eq!(v.copa_kept, expected, "{}", r.id);
        copa_broken += usize::from(expected == Some(false));
    }
    let out = temp("copa-out.jsonl");
    let report = revalidate_ledger(
        &schema,
        &b,
        &input,
        &out,
        &Config::default(),
        &RevalidateOptions::default(),
    )
    .unwrap();
    std::fs::remove_file(&input).ok();
    std::fs::remove_file(&out).ok();
    assert_eq!(report.copa_records, with);
    assert_eq!(report.copa_broken, copa_broken);
    assert!(
        report
            .to_html("copa")
            .contains("COPA-corrected version broken")
    );
}

/// A ReLU MLP (16 units) trained (seeded) on the same training part as
/// [`fitted`]'s models.
fn relu_mlp() -> AnyModel {
    let d = german_credit(&bundled_german_path()).unwrap();
    let (train, _) = d.holdout_split();
    let mut schema = train.schema.clone();
    schema.fit_weights(&train.rows).unwrap();
    let x = schema.encode_rows(&train.rows).unwrap();
    let opts = cfx::model::MlpTraining {
        hidden: vec![16],
        epochs: 20,
        seed: 41,
        ..Default::default()
    };
    AnyModel::Mlp(cfx::model::MlpModel::train(&x, &train.labels, &opts).unwrap())
}

/// [`relu_mlp`] with its hidden layer switched to tanh units: the exact
/// engine proves answers for ReLU networks only, so it cannot repair for
/// this one.
fn mlp() -> AnyModel {
    let d = german_credit(&bundled_german_path()).unwrap();
    let (train, _) = d.holdout_split();
    let json = relu_mlp().to_json();
    assert!(json.contains("\"relu\""));
    AnyModel::from_json(&json.replacen("\"relu\"", "\"tanh\"", 1), &train.schema).unwrap()
}

/// Issue 41, honest outcomes: a new model the exact engine cannot repair for
/// (a tanh MLP) breaks promises that are counted as broken without a repair,
/// with the reason, not as unreadable records; the report's counts add up.
/// Oracle: the MLP's own decision on every advised row.
#[test]
fn promises_an_mlp_breaks_are_broken_without_repair_and_the_counts_add_up() {
    let (schema, a, _, rows) = fitted();
    let new = mlp();
    let records = ledger(&schema, &a, &rows, 60);
    let input = temp("mlp-ledger.jsonl");
    let output = temp("mlp-out.jsonl");
    let text: String = records.iter().map(|r| r.to_json() + "\n").collect();
    std::fs::write(&input, text).unwrap();
    let report = revalidate_ledger(
        &schema,
        &new,
        &input,
        &output,
        &Config::default(),
        &RevalidateOptions::default(),
    )
    .unwrap();
    let out = std::fs::read_to_string(&output).unwrap();
    let lines: Vec<serde_json::Value> = out
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(lines.len(), records.len());
    let mut broken = 0;
    for (r, v) in records.iter().zip(&lines) {
        assert!(v.get("error").is_none(), "{}: {v}", r.id);
        let accepted = new.accepts(&schema.encode(&r.advised).unwrap());
        if accepted {
            assert_eq!(v["status"], "kept", "{}", r.id);
            assert_eq!(v["outcome"], "kept", "{}", r.id);
        } else {
            broken += 1;
            assert_eq!(v["status"], "broken", "{}", r.id);
            assert_eq!(v["outcome"], "no_repair", "{}", r.id);
            assert_eq!(v["repair_outcome"], "not_repairable", "{}", r.id);
            let why = v["no_repair_reason"].as_str().unwrap();
            assert!(why.contains("ReLU networks only"), "{}: {why}", r.id);
            assert!(v["repair"].is_null());
        }
    }
    eprintln!("MLP: {broken} of {} promises broken", records.len());
    assert!(
        broken >= 1,
        "the MLP breaks no promise: the test shows nothing"
    );
    assert_eq!(report.errors, 0);
    assert_eq!(report.records, records.len());
    assert_eq!(report.broken, broken);
    assert_eq!(report.kept + report.broken, report.records);
    assert_eq!(report.repaired + report.no_repair, report.broken);
    assert_eq!(report.no_repair, broken);
    assert_eq!(report.repaired_proven, 0);
    assert_eq!(
        report.no_repair_reasons.get("not_repairable").copied(),
        Some(broken)
    );
    assert_eq!(report.contacts.len(), broken);
    for c in &report.contacts {
        assert!(c.repair.is_empty() && c.repair_status.starts_with("no repair: "));
        assert_eq!(lines[c.record]["id"], c.id.as_str());
    }
    let html = report.to_html("t");
    assert!(html.contains("<tr><th>broken, with a proven repair</th><td>0</td></tr>"));
    assert!(html.contains(&format!(
        "<tr><th>broken, no repair</th><td>{broken}</td></tr>"
    )));
    assert!(html.contains("Customers to contact"));
    let _ = std::fs::remove_file(&input);
    let _ = std::fs::remove_file(&output);
}

/// Issue 39: promises a ReLU network breaks are repaired by the exact
/// engine's network MIP, each repair proven optimal, accepted by the
/// network's own forward pass, actionable from the advised row and costing
/// what it says from there; the applicant's own repair likewise from the
/// applicant's row; the report's counts add up. Oracle: the network's
/// forward pass and the schema's rules (optimality itself is held against
/// brute force in `coherent::mlp_tests` on random small instances).
#[test]
fn promises_a_relu_network_breaks_are_repaired_and_accepted_by_it() {
    let (schema, a, _, rows) = fitted();
    let new = relu_mlp();
    let records = ledger(&schema, &a, &rows, 30);
    let (mut broken, mut repaired) = (0, 0);
    for r in &records {
        let v = revalidate(&schema, &new, r, &Config::default()).unwrap();
        let accepted = new.accepts(&schema.encode(&r.advised).unwrap());
        if accepted {
            assert_eq!(v.status, PromiseStatus::Kept, "{}", r.id);
            continue;
        }
        broken += 1;
        assert_eq!(v.status, PromiseStatus::Broken, "{}", r.id);
        let Some(rep) = &v.repair else {
            assert_eq!(v.repair_outcome.as_deref(), Some("infeasible"), "{}", r.id);
            continue;
        };
        repaired += 1;
        assert_eq!(rep.outcome, "optimal", "{}", r.id);
        assert_eq!(rep.proved_by, Some(cfx::coherent::ProvedBy::Highs));
        assert!(new.accepts(&schema.encode(&rep.raw).unwrap()), "{}", r.id);
        schema.check_actionable(&r.advised, &rep.raw).unwrap();
        let c = cfx::coherent::cost(&schema, &r.advised, &rep.raw).unwrap();
        assert!((c - rep.cost).abs() < 1e-9, "{}: {c} vs {}", r.id, rep.cost);
        assert_eq!(v.extra_cost, Some(rep.cost));
        let own = v
            .applicant_repair
            .as_ref()
            .expect("a repair from the applicant");
        assert!(new.accepts(&schema.encode(&own.raw).unwrap()), "{}", r.id);
        schema.check_actionable(&r.applicant, &own.raw).unwrap();
    }
    eprintln!(
        "ReLU MLP: {broken} of {} broken, {repaired} repaired",
        records.len()
    );
    assert!(
        repaired >= 1,
        "no promise was repaired: the test shows nothing"
    );
    let input = temp("relu-ledger.jsonl");
    let output = temp("relu-out.jsonl");
    let text: String = records.iter().map(|r| r.to_json() + "\n").collect();
    std::fs::write(&input, text).unwrap();
    let report = revalidate_ledger(
        &schema,
        &new,
        &input,
        &output,
        &Config::default(),
        &RevalidateOptions::default(),
    )
    .unwrap();
    let _ = std::fs::remove_file(&input);
    let _ = std::fs::remove_file(&output);
    assert_eq!(report.errors, 0);
    assert_eq!(report.broken, broken);
    assert_eq!(report.repaired, repaired);
    assert_eq!(report.repaired + report.no_repair, report.broken);
}

/// Issue 41: an applicant's alternatives are one promise with options
/// (kept while one option is), the report names the models with the
/// caller's labels, counts only proven repairs as proven, and a repair
/// that needs no change names no solver. Oracles: the refitted model's own
/// decisions, grouped by hand; the repairs' own outcome labels.
#[test]
fn alternatives_are_one_promise_and_the_report_names_the_models() {
    let (schema, a, b, rows) = fitted();
    let config = Config {
        n_diverse: 3,
        ..Config::default()
    };
    let mut records = Vec::new();
    for (k, r) in rows
        .iter()
        .filter(|r| !a.accepts(&schema.encode(r).unwrap()))
        .take(25)
        .enumerate()
    {
        let ex = cfx::coherent::explain_diverse(&schema, &a, r, &config).unwrap();
        records.extend(LedgerRecord::from_diverse(&schema, &a, &format!("app-{k}"), &ex).unwrap());
    }
    let input = temp("diverse-ledger.jsonl");
    let output = temp("diverse-out.jsonl");
    let text: String = records.iter().map(|r| r.to_json() + "\n").collect();
    std::fs::write(&input, text).unwrap();
    let (fa, fb) = (
        cfx::json::model_fingerprint(&a),
        cfx::json::model_fingerprint(&b),
    );
    let mut options = RevalidateOptions::default();
    options
        .model_labels
        .insert(fa.clone(), "logistic 2025".into());
    options
        .model_labels
        .insert(fb.clone(), "logistic 2026".into());
    let report =
        revalidate_ledger(&schema, &b, &input, &output, &Config::default(), &options).unwrap();
    // by hand: options per applicant, kept when one option is
    let mut by_promise: std::collections::BTreeMap<String, (usize, usize)> = Default::default();
    for r in &records {
        let base = r.id.rsplit_once('/').unwrap().0.to_string();
        let e = by_promise.entry(base).or_default();
        e.0 += 1;
        e.1 += usize::from(b.accepts(&schema.encode(&r.advised).unwrap()));
    }
    let p = report.promises;
    assert_eq!(p.promises, by_promise.len());
    assert_eq!(p.kept, by_promise.values().filter(|v| v.1 > 0).count());
    assert_eq!(p.broken, p.promises - p.kept);
    assert_eq!(
        p.with_options,
        by_promise.values().filter(|v| v.0 > 1).count()
    );
    assert_eq!(
        p.options_partly_broken,
        by_promise.values().filter(|v| v.1 > 0 && v.1 < v.0).count()
    );
    assert!(p.with_options >= 5, "{p:?}");
    assert!(p.promises < report.records);
    assert_eq!(report.new_model.fingerprint, fb);
    assert_eq!(report.new_model.label.as_deref(), Some("logistic 2026"));
    assert_eq!(report.old_models.len(), 1);
    assert_eq!(report.old_models[0].fingerprint, fa);
    assert_eq!(report.old_models[0].label.as_deref(), Some("logistic 2025"));
    assert_eq!(report.old_models[0].records, records.len());
    assert_eq!(report.decision_margin, Config::default().margin);
    // proven repairs: those whose repair is labelled optimal
    let out = std::fs::read_to_string(&output).unwrap();
    let mut proven = 0;
    let mut no_change = 0;
    for line in out.lines() {
        let v: serde_json::Value = serde_json::from_str(line).unwrap();
        proven += usize::from(v["repair"]["outcome"] == "optimal");
        if v["applicant_repair"]["outcome"] == "no_change_needed" {
            no_change += 1;
            assert!(v["applicant_repair"]["proved_by"].is_null(), "{v}");
            assert_eq!(v["applicant_repair"]["changes"], serde_json::json!([]));
        } else if !v["applicant_repair"].is_null() {
            assert!(v["applicant_repair"]["proved_by"].is_string(), "{v}");
        }
    }
    eprintln!("{p:?}; {proven} proven repairs, {no_change} applicants need no change");
    assert_eq!(report.repaired_proven, proven);
    assert_eq!(
        report.kept + report.repaired + report.no_repair,
        report.records
    );
    assert_eq!(report.contacts.len(), report.broken);
    let html = report.to_html("t");
    assert!(html.contains("logistic 2026") && html.contains(&fa));
    // The labels without fingerprints: the new model's and the old ones',
    // a fingerprint's own label first.
    let unkeyed = RevalidateOptions {
        model_labels: [(fa.clone(), "logistic 2025".to_string())].into(),
        new_model_label: Some("challenger".into()),
        old_model_label: Some("champion".into()),
        ..RevalidateOptions::default()
    };
    let again =
        revalidate_ledger(&schema, &b, &input, &output, &Config::default(), &unkeyed).unwrap();
    assert_eq!(again.new_model.label.as_deref(), Some("challenger"));
    assert_eq!(again.old_models[0].label.as_deref(), Some("logistic 2025"));
    let unkeyed = RevalidateOptions {
        model_labels: Default::default(),
        ..unkeyed
    };
    let again =
        revalidate_ledger(&schema, &b, &input, &output, &Config::default(), &unkeyed).unwrap();
    assert_eq!(again.old_models[0].label.as_deref(), Some("champion"));
    assert_eq!(again.new_model.label.as_deref(), Some("challenger"));
    let _ = std::fs::remove_file(&input);
    let _ = std::fs::remove_file(&output);
}

/// Issue 41, inputs that belong together: a new model built for another
/// schema (one feature more) is refused, naming both, before anything is
/// written — never "kept" on the wrong columns, never a panic.
#[test]
fn a_new_model_for_another_schema_is_refused_naming_both() {
    let (schema, a, _, rows) = fitted();
    let records = ledger(&schema, &a, &rows, 3);
    let AnyModel::Linear(lin) = &a else {
        unreachable!()
    };
    let mut w = lin.weights.clone();
    w.push(0.3);
    let wider = AnyModel::Linear(LinearModel::new(w, lin.bias, lin.threshold).unwrap());
    let e = revalidate(&schema, &wider, &records[0], &Config::default())
        .unwrap_err()
        .to_string();
    assert!(e.contains("model") && e.contains("schema"), "{e}");
    let input = temp("wider-ledger.jsonl");
    let output = temp("wider-out.jsonl");
    std::fs::write(&input, records[0].to_json() + "\n").unwrap();
    let e = revalidate_ledger(
        &schema,
        &wider,
        &input,
        &output,
        &Config::default(),
        &RevalidateOptions::default(),
    )
    .unwrap_err()
    .to_string();
    assert!(e.contains("model") && e.contains("schema"), "{e}");
    assert!(!output.exists());
    let _ = std::fs::remove_file(&input);
}
