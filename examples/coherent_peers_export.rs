//! Exports what `benches/peers/coherent_peers.py` needs to compare cfx's coherent
//! MIP with peers on the same model and applicants, and cfx's own measurements.
//!
//! `cargo run --release --example coherent_peers_export -- <german|heloc> <n> <out.json>`

use cfx::coherent::{Config, SolverChoice, explain, explain_diverse, mip_json};
use cfx::data::{bundled_german_path, german_credit, heloc, shared_data_dir};
use cfx::model::{LinearModel, LogisticFit, Model};
use serde_json::json;
use std::time::Instant;

fn main() -> cfx::Result<()> {
    let args: Vec<String> = std::env::args().collect();
    let which = args.get(1).map_or("german", |s| s.as_str()).to_string();
    let n: usize = args.get(2).and_then(|s| s.parse().ok()).unwrap_or(20);
    let out = args
        .get(3)
        .cloned()
        .unwrap_or_else(|| format!("{which}.json"));
    let data = match which.as_str() {
        "heloc" => heloc(&shared_data_dir().join("heloc.csv"))?,
        _ => german_credit(&bundled_german_path())?,
    };
    let (train, test) = data.holdout_split();
    let mut schema = train.schema.clone();
    schema.fit_weights(&train.rows)?;
    let model = LinearModel::fit(
        &schema.encode_rows(&train.rows)?,
        &train.labels,
        LogisticFit::default(),
    )?;
    let applicants: Vec<Vec<f64>> = test
        .rows
        .iter()
        .filter(|r| {
            schema
                .encode(r)
                .map(|x| !model.accepts(&x))
                .unwrap_or(false)
        })
        .take(n)
        .cloned()
        .collect();
    // The peers solve the MIP, so cfx's rows are timed on HiGHS too (the
    // separable solver is compared with HiGHS by `examples/portfolio.rs`).
    let config = Config {
        solver: SolverChoice::Mip,
        ..Config::default()
    };
    let diverse = Config {
        n_diverse: 5,
        ..config
    };
    let mut mips = Vec::new();
    let mut optimal = Vec::new();
    let mut five = Vec::new();
    for r in &applicants {
        mips.push(serde_json::from_str::<serde_json::Value>(&mip_json(
            &schema, &model, r, &config,
        )?)?);
        for (is_diverse, cfg, sink) in [(false, &config, &mut optimal), (true, &diverse, &mut five)]
        {
            let t = Instant::now();
            let ex = if is_diverse {
                explain_diverse(&schema, &model, r, cfg)?
            } else {
                explain(&schema, &model, r, cfg)?
            };
            let ms = t.elapsed().as_secs_f64() * 1e3;
            let cfs: Vec<_> = ex
                .counterfactuals
                .iter()
                .map(|cf| {
                    json!({
                        "raw": cf.raw,
                        "cost": cf.cost,
                        "objective": cf.objective,
                        "valid": model.accepts(&cf.encoded),
                        "coherent": schema.decode(&cf.encoded).ok().as_ref() == Some(&cf.raw),
                        "actionable": schema.check_actionable(r, &cf.raw).is_ok(),
                        "sparsity": cf.changes.len(),
                    })
                })
                .collect();
            sink.push(json!({"ms": ms, "counterfactuals": cfs}));
        }
    }
    let doc = json!({
        "dataset": which,
        "schema": serde_json::from_str::<serde_json::Value>(&schema.to_json())?,
        "model": {"weights": model.weights, "bias": model.bias, "threshold": model.threshold},
        "train_rows": train.rows,
        "train_labels": train.labels,
        "applicants": applicants,
        "mips": mips,
        "cfx_optimal": optimal,
        "cfx_diverse5": five,
    });
    std::fs::write(&out, doc.to_string())?;
    println!("wrote {out}: {} applicants", applicants.len());
    Ok(())
}
