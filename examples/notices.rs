//! Adverse-action notices for HELOC's declined held-out applicants (issue 40):
//! principal reasons that agree with the exact engine's advice, under the
//! logistic model, the optbinning scorecard and the 100-tree XGBoost model.
//!
//! ```text
//! cargo run --release --example notices -- heloc [--n N] [--necessity]
//! ```
//!
//! For each model it prints
//! `notices: <model>: N declined, reasons for N/N, advice acts on reason 1 for
//! A/N, reason 1 immutable or time-driven for I/N; median T ms per notice`
//! (the first `--n` declined held-out applicants, 100 by default; the
//! necessity proofs, one re-solve per changed feature, with `--necessity`),
//! and writes one HTML notice per model into `target/notices/`. The schema
//! is HELOC's advice preset (`cfx::data::presets::priced_preset`). The
//! reference population is the training part's applicants at or slightly
//! above the cut-off (the band below); the reason table is the shipped
//! `examples/data/reasons/heloc_reasons.csv`. Needs `../shared/data/heloc.csv`
//! and, for XGBoost, `target/peers/heloc_xgb.json`
//! (`benches/peers/trees_train.py`).

use cfx::coherent::Config;
use cfx::data::{heloc, shared_data_dir};
use cfx::model::scorecard::import::{ImportOptions, from_optbinning_path};
use cfx::model::{LinearModel, LogisticFit, Model, ScoreScaling, TreeEnsemble};
use cfx::notice::{NoticeOptions, ReasonTable, Reference, ReferenceKind, notice, to_html};
use std::path::Path;
use std::time::Instant;

fn run(
    name: &str,
    model: &dyn Model,
    data: (&cfx::data::Dataset, &cfx::data::Dataset),
    band: f64,
    table: &ReasonTable,
    n: usize,
    necessity: bool,
) -> cfx::Result<()> {
    let (train, test) = data;
    let schema = &train.schema;
    let reference = Reference::new(model, train, ReferenceKind::AtCutoff { band })?;
    let opts = NoticeOptions {
        config: Config {
            time_limit_seconds: 30.0,
            ..Config::default()
        },
        skip_necessity: !necessity,
        ..Default::default()
    };
    let declined: Vec<&Vec<f64>> = test
        .rows
        .iter()
        .filter(|r| schema.encode(r).is_ok_and(|x| !model.accepts(&x)))
        .take(n)
        .collect();
    let (mut with_reasons, mut acts, mut fixed) = (0, 0, 0);
    let mut ms = Vec::new();
    let out = Path::new(env!("CARGO_MANIFEST_DIR")).join("target/notices");
    std::fs::create_dir_all(&out).map_err(|e| cfx::Error::Io(e.to_string()))?;
    for (k, r) in declined.iter().enumerate() {
        let t = Instant::now();
        let nt = notice(model, schema, r, &reference, Some(table), &opts)?;
        ms.push(t.elapsed().as_secs_f64() * 1e3);
        if let Some(m) = nt.marks.first() {
            with_reasons += 1;
            acts += usize::from(m.advice_acts);
            fixed += usize::from(m.immutable || m.time_driven);
        }
        if k == 0 {
            std::fs::write(out.join(format!("heloc_{name}.html")), to_html(&nt))
                .map_err(|e| cfx::Error::Io(e.to_string()))?;
        }
    }
    ms.sort_by(f64::total_cmp);
    let n = declined.len();
    println!(
        "notices: {name}: {n} declined, reasons for {with_reasons}/{n}, advice acts on reason 1 \
         for {acts}/{n}, reason 1 immutable or time-driven for {fixed}/{n}; median {:.1} ms per \
         notice",
        ms.get(n / 2).copied().unwrap_or(f64::NAN)
    );
    Ok(())
}

fn main() -> cfx::Result<()> {
    let args: Vec<String> = std::env::args().collect();
    if args.get(1).map(String::as_str) != Some("heloc") {
        return Err(cfx::Error::InvalidArgument(
            "usage: cargo run --release --example notices -- heloc [--n N] [--necessity]".into(),
        ));
    }
    let n = args
        .iter()
        .position(|a| a == "--n")
        .and_then(|k| args.get(k + 1))
        .map_or(Ok(100), |v| v.parse::<usize>())
        .map_err(|e| cfx::Error::InvalidArgument(format!("--n: {e}")))?;
    let necessity = args.iter().any(|a| a == "--necessity");
    let dir = shared_data_dir();
    let d = heloc(&dir.join("heloc.csv"))?;
    let (mut train, mut test) = d.holdout_split();
    let mut schema = train.schema.clone();
    schema.fit_weights(&train.rows)?;
    // HELOC's advice preset: history immutable, the months-since features
    // driven by time, burdens and inquiries decrease-only.
    let schema =
        cfx::data::presets::priced_preset("heloc", &schema)?.expect("HELOC has an advice preset");
    train.schema = schema.clone();
    test.schema = schema.clone();
    let table = ReasonTable::from_csv(
        &std::fs::read_to_string(
            Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/data/reasons/heloc_reasons.csv"),
        )
        .map_err(|e| cfx::Error::Io(e.to_string()))?,
        &schema,
    )?;
    let lin = LinearModel::fit(
        &schema.encode_rows(&train.rows)?,
        &train.labels,
        LogisticFit::default(),
    )?;
    run("logistic", &lin, (&train, &test), 0.5, &table, n, necessity)?;
    let options = ImportOptions {
        cutoff: 630.4667319422892,
        scaling: Some(ScoreScaling::new(46.267864502602755, 630.4667319422892)?),
        refuse_unlisted_levels: false,
        favourable: Default::default(),
        unused_features: Vec::new(),
    };
    let card =
        from_optbinning_path(&schema, &dir.join("heloc_scorecard_table.csv"), &options)?.scorecard;
    run(
        "scorecard",
        &card,
        (&train, &test),
        20.0,
        &table,
        n,
        necessity,
    )?;
    let xgb_path = Path::new(env!("CARGO_MANIFEST_DIR")).join("target/peers/heloc_xgb.json");
    match std::fs::read_to_string(&xgb_path) {
        Ok(text) => {
            let xgb = TreeEnsemble::from_xgboost_json(
                &text,
                &schema,
                &cfx::model::trees::ImportOptions::default(),
            )?;
            run("xgboost", &xgb, (&train, &test), 0.5, &table, n, necessity)?;
        }
        Err(_) => eprintln!(
            "notices: xgboost: {} absent (run benches/peers/trees_train.py)",
            xgb_path.display()
        ),
    }
    Ok(())
}
