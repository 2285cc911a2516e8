//! Exports what `benches/peers/mlp_peers.py` needs to check cfx's exact
//! engine on a ReLU network with a formulation of its own: the schema, the
//! network, the declined applicants and cfx's answers for them.
//!
//! ```text
//! cargo run --release --example mlp_peers_export -- <german|heloc> <hidden,…> <n> <out.json> [--preset] [--limit S]
//! ```
//!
//! The network is fitted by cfx's own trainer (seed 0, default settings but
//! the hidden layers, e.g. `200` or `32,32`) on the fixed training part over
//! the schema with fitted distance weights; `--preset` puts the data set's
//! advice preset on that schema (immutables, orders, change limits, the cap
//! on features changed). The applicants are the first `n` held-out rows the
//! network declines; each is explained once with a `--limit` second time
//! limit (default 120). The file holds the schema and model as cfx writes
//! them (`Schema::to_json`, `AnyModel::to_json`), so that a test can read the
//! very same network back.

use cfx::coherent::{Config, Outcome, explain};
use cfx::data::presets::{german_credit_advice, heloc_advice};
use cfx::data::{bundled_german_path, german_credit, heloc, shared_data_dir};
use cfx::model::{AnyModel, MlpModel, MlpTraining, Model};
use serde_json::json;
use std::time::Instant;

fn main() -> cfx::Result<()> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let positional: Vec<&String> = args
        .iter()
        .enumerate()
        .filter(|(k, a)| !a.starts_with("--") && (*k == 0 || args[k - 1] != "--limit"))
        .map(|(_, a)| a)
        .collect();
    let usage = || {
        cfx::Error::InvalidArgument(
            "usage: mlp_peers_export <german|heloc> <hidden,…> <n> <out.json> [--preset] \
             [--limit S]"
                .into(),
        )
    };
    let [which, hidden, n, out] = positional[..] else {
        return Err(usage());
    };
    let hidden: Vec<usize> = hidden
        .split(',')
        .map(|h| h.parse().map_err(|_| usage()))
        .collect::<cfx::Result<_>>()?;
    let n: usize = n.parse().map_err(|_| usage())?;
    let preset = args.iter().any(|a| a == "--preset");
    let limit: f64 = args
        .iter()
        .position(|a| a == "--limit")
        .and_then(|k| args.get(k + 1))
        .and_then(|v| v.parse().ok())
        .unwrap_or(120.0);
    let data = match which.as_str() {
        "heloc" => heloc(&shared_data_dir().join("heloc.csv"))?,
        "german" => german_credit(&bundled_german_path())?,
        _ => return Err(usage()),
    };
    let (train, test) = data.holdout_split();
    let mut fitted = train.schema.clone();
    fitted.fit_weights(&train.rows)?;
    let schema = match (preset, which.as_str()) {
        (false, _) => fitted.clone(),
        (true, "heloc") => heloc_advice(&fitted, 0.05)?,
        (true, _) => german_credit_advice(&fitted, 0.05)?,
    };
    let opts = MlpTraining {
        hidden: hidden.clone(),
        ..MlpTraining::default()
    };
    let mlp = MlpModel::train(&fitted.encode_rows(&train.rows)?, &train.labels, &opts)?;
    let applicants: Vec<Vec<f64>> = test
        .rows
        .iter()
        .filter(|r| schema.encode(r).is_ok_and(|x| !mlp.accepts(&x)))
        .take(n)
        .cloned()
        .collect();
    let config = Config {
        time_limit_seconds: limit,
        ..Config::default()
    };
    let mut answers = Vec::new();
    for (k, r) in applicants.iter().enumerate() {
        let t = Instant::now();
        let ex = explain(&schema, &mlp, r, &config)?;
        let ms = t.elapsed().as_secs_f64() * 1e3;
        let outcome = match ex.outcome {
            Outcome::Optimal => "optimal",
            Outcome::Infeasible { .. } => "infeasible",
            _ => "unproven",
        };
        let cf = ex.counterfactuals.first();
        eprintln!(
            "  cfx #{k}: {outcome} {:?} ({ms:.0} ms)",
            cf.map(|c| c.cost)
        );
        answers.push(json!({
            "outcome": outcome,
            "cost": cf.map(|c| c.cost),
            "raw": cf.map(|c| c.raw.clone()),
            "probability": cf.map(|c| mlp.probability(&c.encoded)),
            "ms": ms,
        }));
    }
    let doc = json!({
        "dataset": which,
        "hidden": hidden,
        "preset": preset,
        "schema": serde_json::from_str::<serde_json::Value>(&schema.to_json())?,
        "model": serde_json::from_str::<serde_json::Value>(&AnyModel::Mlp(mlp).to_json())?,
        "applicants": applicants,
        "cfx": answers,
    });
    std::fs::write(out, doc.to_string())?;
    println!("wrote {out}: {} applicants", applicants.len());
    Ok(())
}
