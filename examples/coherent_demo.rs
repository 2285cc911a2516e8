//! Optimal coherent counterfactuals (Russell 2019) for declined applicants, in plain
//! words, with 3 diverse alternatives each.
//!
//! `cargo run --release --example coherent_demo -- [heloc|german] [N]`
//! prints the first N (default 5) declined held-out applicants and then timing
//! and validity statistics of the optimal counterfactual over every declined
//! held-out applicant (one thread).

use cfx::coherent::{Config, Outcome, explain, explain_diverse};
use cfx::data::{bundled_german_path, german_credit, heloc, shared_data_dir};
use cfx::model::{LinearModel, LogisticFit, Model};
use std::time::Instant;

fn main() -> cfx::Result<()> {
    let args: Vec<String> = std::env::args().collect();
    let which = args.get(1).map_or("heloc", |s| s.as_str());
    let show: usize = args.get(2).and_then(|s| s.parse().ok()).unwrap_or(5);
    let data = match which {
        "german" => german_credit(&bundled_german_path())?,
        _ => heloc(&shared_data_dir().join("heloc.csv"))?,
    };
    let (train, test) = data.holdout_split();
    let mut schema = train.schema.clone();
    schema.fit_weights(&train.rows)?;
    let model = LinearModel::fit(
        &schema.encode_rows(&train.rows)?,
        &train.labels,
        LogisticFit::default(),
    )?;
    let declined: Vec<&Vec<f64>> = test
        .rows
        .iter()
        .filter(|r| {
            schema
                .encode(r)
                .map(|x| !model.accepts(&x))
                .unwrap_or(false)
        })
        .collect();
    println!(
        "{which}: {} held-out applicants, {} declined by the logistic model",
        test.rows.len(),
        declined.len()
    );
    let config = Config {
        n_diverse: 4,
        ..Config::default()
    };
    for (k, r) in declined.iter().take(show).enumerate() {
        let ex = explain_diverse(&schema, &model, r, &config)?;
        println!("\napplicant {k}: {}", ex.to_text().trim_end());
    }
    let mut times = Vec::new();
    let (mut valid, mut optimal, mut costs, mut sparsity) = (0, 0, 0.0, 0.0);
    let t0 = Instant::now();
    for r in &declined {
        let t = Instant::now();
        let ex = explain(&schema, &model, r, &Config::default())?;
        times.push(t.elapsed().as_secs_f64() * 1e3);
        if let Some(cf) = ex.counterfactuals.first() {
            if model.accepts(&cf.encoded) && schema.check_actionable(r, &cf.raw).is_ok() {
                valid += 1;
            }
            costs += cf.cost;
            sparsity += cf.changes.len() as f64;
        }
        if ex.outcome == Outcome::Optimal {
            optimal += 1;
        }
    }
    let total = t0.elapsed().as_secs_f64();
    times.sort_by(f64::total_cmp);
    let n = times.len().max(1) as f64;
    println!(
        "\noptimal counterfactual for all {} declined: {valid} valid+coherent+actionable, {optimal} proven optimal; \
         mean cost {:.3}, mean features changed {:.2}; time per applicant median {:.2} ms, p90 {:.2} ms, total {:.1} s",
        declined.len(),
        costs / n,
        sparsity / n,
        times.get(times.len() / 2).copied().unwrap_or(f64::NAN),
        times.get(times.len() * 9 / 10).copied().unwrap_or(f64::NAN),
        total
    );
    Ok(())
}
