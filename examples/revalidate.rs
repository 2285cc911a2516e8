//! Deployment day: re-validating every issued recommendation against a new model.
//!
//! ```text
//! python3 benches/peers/trees_train.py      # the XGBoost model, target/peers/heloc_xgb.json
//! cargo run --release --example revalidate -- heloc [--threads T]
//! ```
//!
//! Issues advice for every declined held-out HELOC applicant under cfx's
//! logistic model (the optimal counterfactual, and its robust version: σ² =
//! 0.01, at most 10% invalidated, and its COPA-corrected version: Bui, Nguyen &
//! Nguyen 2022, §3, under the moments of 200 refits on random halves of the
//! training part), keeps it in an advice ledger (JSON lines,
//! `cfx::revalidate::LedgerRecord`), then re-validates the ledger against
//! (a) a logistic model refitted on a bootstrap resample of the training part
//! (seed 28), (b) the HELOC points scorecard (`heloc_scorecard_table.csv`),
//! (c) the peer's 100-tree XGBoost model, each with one line, last:
//!
//! `revalidate: <model>: B/N promises broken (P%), median extra cost C, robust advice broken B'/N', R records per second`
//!
//! and writes each deployment report as JSON and as an HTML page with plots
//! beside the ledger (`target/revalidate/`).

use cfx::coherent::{Config, Robustness, cost, explain};
use cfx::data::{heloc, shared_data_dir};
use cfx::model::scorecard::import::{ImportOptions as CardOptions, from_optbinning_path};
use cfx::model::trees::ImportOptions;
use cfx::model::{AnyModel, LinearModel, LogisticFit, Model, ScoreScaling, TreeEnsemble};
use cfx::plan::{CorrectionConfig, EnsembleConfig, ModelUncertainty};
use cfx::revalidate::{LedgerRecord, RevalidateOptions, copa_corrected_advice, revalidate_ledger};
use rand::{Rng, SeedableRng};
use rand_xoshiro::Xoshiro256PlusPlus;
use std::path::Path;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().collect();
    if args.get(1).map(String::as_str) != Some("heloc") {
        return Err("usage: revalidate heloc [--threads T]".into());
    }
    let threads: usize = args
        .iter()
        .position(|a| a == "--threads")
        .and_then(|k| args.get(k + 1))
        .and_then(|v| v.parse().ok())
        .unwrap_or(0);
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let dir = shared_data_dir();
    let d = heloc(&dir.join("heloc.csv"))?;
    let (train, test) = d.holdout_split();
    let mut schema = train.schema.clone();
    schema.fit_weights(&train.rows)?;
    let x = schema.encode_rows(&train.rows)?;
    let issued_under =
        AnyModel::Linear(LinearModel::fit(&x, &train.labels, LogisticFit::default())?);

    // (a) A refit on a bootstrap resample.
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(28);
    let (mut xb, mut yb) = (Vec::new(), Vec::new());
    for _ in 0..x.len() {
        let k = rng.random_range(0..x.len());
        xb.push(x[k].clone());
        yb.push(train.labels[k]);
    }
    let refit = AnyModel::Linear(LinearModel::fit(&xb, &yb, LogisticFit::default())?);
    // (b) The points scorecard (scaled as the scorecard example reads it).
    let card = from_optbinning_path(
        &schema,
        &dir.join("heloc_scorecard_table.csv"),
        &CardOptions {
            cutoff: 630.4667319422892,
            scaling: Some(ScoreScaling::new(46.267864502602755, 630.4667319422892)?),
            refuse_unlisted_levels: false,
            favourable: Default::default(),
            unused_features: Vec::new(),
        },
    )?
    .scorecard;
    // (c) The peer's XGBoost model.
    let xgb_path = root.join("target/peers/heloc_xgb.json");
    let xgb_text = std::fs::read_to_string(&xgb_path).map_err(|e| {
        format!(
            "{}: {e} (run benches/peers/trees_train.py)",
            xgb_path.display()
        )
    })?;
    let xgb = TreeEnsemble::from_xgboost_json(&xgb_text, &schema, &ImportOptions::default())?;

    // The issuer's estimate of how its model may move, for the COPA-corrected versions.
    let uncertainty = ModelUncertainty::from_ensemble(
        &x,
        &train.labels,
        EnsembleConfig {
            refits: 200,
            seed: 2022,
            ..EnsembleConfig::default()
        },
    )?;

    // Issue the advice.
    let plain = Config::default();
    let robust = Config {
        robustness: Some(Robustness {
            sigma2: 0.01,
            invalidation_target: 0.1,
            box_kind: Default::default(),
        }),
        ..Config::default()
    };
    let out_dir = root.join("target/revalidate");
    std::fs::create_dir_all(&out_dir)?;
    let ledger_path = out_dir.join("heloc_ledger.jsonl");
    let mut ledger = String::new();
    let mut issued = 0;
    let (mut issued_costs, mut robust_costs, mut copa_costs) = (Vec::new(), Vec::new(), Vec::new());
    for (k, r) in test.rows.iter().enumerate() {
        if issued_under.accepts(&schema.encode(r)?) {
            continue;
        }
        let ex = explain(&schema, &issued_under, r, &plain)?;
        let Some(mut rec) =
            LedgerRecord::from_explanation(&schema, &issued_under, &format!("heloc-{k}"), &ex)?
        else {
            continue;
        };
        rec.issued = Some("2026-12-02".into());
        let rx = explain(&schema, &issued_under, r, &robust)?;
        rec.robust_advised = rx.counterfactuals.first().map(|c| c.raw.clone());
        rec.copa_advised = copa_corrected_advice(
            &schema,
            &uncertainty,
            r,
            &rec.advised,
            CorrectionConfig::default(),
        )?;
        issued_costs.push(rec.cost);
        if let Some(c) = &rec.robust_advised {
            robust_costs.push(cost(&schema, r, c)?);
        }
        if let Some(c) = &rec.copa_advised {
            copa_costs.push(cost(&schema, r, c)?);
        }
        ledger += &rec.to_json();
        ledger.push('\n');
        issued += 1;
    }
    std::fs::write(&ledger_path, &ledger)?;
    println!(
        "issued: {issued} promises to declined held-out HELOC applicants ({})",
        ledger_path.display()
    );
    println!(
        "issued: median cost {:.3}; robust versions for {} (median cost {:.3}), COPA-corrected \
         versions for {} (median cost {:.3})",
        median(&mut issued_costs),
        robust_costs.len(),
        median(&mut robust_costs),
        copa_costs.len(),
        median(&mut copa_costs)
    );

    let config = Config {
        batch_threads: threads,
        ..Config::default()
    };
    let models = [
        ("logistic refit (bootstrap)", refit),
        ("points scorecard", AnyModel::Scorecard(card)),
        ("xgboost 100x4", AnyModel::Trees(xgb)),
    ];
    let mut lines = Vec::new();
    for (name, model) in &models {
        let slug: String = name
            .chars()
            .map(|c| if c.is_ascii_alphanumeric() { c } else { '_' })
            .collect();
        let out = out_dir.join(format!("heloc_{slug}.jsonl"));
        let t = std::time::Instant::now();
        let report = revalidate_ledger(
            &schema,
            model,
            &ledger_path,
            &out,
            &config,
            &RevalidateOptions::default(),
        )?;
        let seconds = t.elapsed().as_secs_f64();
        std::fs::write(
            out_dir.join(format!("heloc_{slug}_report.json")),
            serde_json::to_string_pretty(&report)?,
        )?;
        std::fs::write(
            out_dir.join(format!("heloc_{slug}_report.html")),
            report.to_html(&format!(
                "HELOC advice issued under the logistic model, re-validated against the {name}"
            )),
        )?;
        let top: Vec<String> = report
            .features_behind_breaks
            .iter()
            .take(3)
            .map(|(f, n)| format!("{f} ({n})"))
            .collect();
        println!(
            "{name}: {} kept, {} broken, {} repaired, {} errors; repairs most often change {}; \
             COPA-corrected advice broken {}/{}",
            report.kept,
            report.broken,
            report.repaired,
            report.errors,
            top.join(", "),
            report.copa_broken,
            report.copa_records
        );
        lines.push(format!(
            "revalidate: {name}: {}/{} promises broken ({:.1}%), median extra cost {}, robust advice broken {}/{}, {:.0} records per second",
            report.broken,
            report.records,
            100.0 * report.broken_share,
            report
                .extra_cost
                .map_or("-".into(), |q| format!("{:.3}", q.median)),
            report.robust_broken,
            report.robust_records,
            report.records as f64 / seconds
        ));
    }
    for l in &lines {
        println!("{l}");
    }
    Ok(())
}

fn median(v: &mut [f64]) -> f64 {
    if v.is_empty() {
        return f64::NAN;
    }
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}
