//! Robust advice on HELOC's tree ensembles, and whether it survives the next
//! model.
//!
//! ```text
//! make peers-trees     # or: python3 benches/peers/trees_train.py [--retrained-only]
//! cargo run --release --example trees_robust -- heloc [--n 20] [--sigma2 1e-4] [--gamma 0.1] [--limit 60] [--box reachable]
//! ```
//!
//! Trains nothing itself: it reads the peer's XGBoost HELOC models (100 trees
//! of depth 4; 500 trees of depth 6) and, for each, "the next model": the same
//! settings trained again with another seed and row subsampling 0.8
//! (`benches/peers/trees_train.py`, `heloc_xgb_retrained.json`,
//! `heloc_xgb_500x6_retrained.json`). For the first `--n` declined held-out
//! applicants it asks the exact engine for plain advice and for robust advice
//! (`Config::robustness`: slips N(0, σ²) on every mutable value's slot,
//! invalidation target γ; for trees the cheapest answer whose whole box is
//! accepted, `coherent::tree_box`), one thread, `--limit` seconds each, and
//! prints per model
//!
//! `trees_robust: <model>: proven P/N robust answers, Γ̃ median G (plain answers: G0), broken by a retrained model B/N (plain: B0)`
//!
//! P counts the applicants whose robust advice is proven: optimal, or proven
//! infeasible (no change's box is accepted); Γ̃ is the Monte Carlo invalidation
//! rate under the same slips (10,000 samples, fixed seed) of the robust and of
//! the plain answers; B counts answers the retrained model declines (of the
//! applicants with an answer of that kind). Before it, per model, the robust
//! solves' CPU time (this thread's clock: the limit is wall time, so on a
//! shared machine the CPU a solve had says more) and the median proven gap
//! of the answers not proven optimal. `--box reachable` proves the box of the
//! values an applicant can reach instead of the reals box
//! (`BoxKind::ReachableValues`: slips clipped to the range and rounded to the
//! data's grid, Γ̃ of both answers under the same slips); the model's name in
//! the lines then ends in ", reachable values".

#[path = "common/thread_cpu.rs"]
mod thread_cpu;
use cfx::coherent::{BoxKind, Config, Outcome, Robustness, explain, tree_box};
use cfx::data::{heloc, shared_data_dir};
use cfx::model::trees::ImportOptions;
use cfx::model::{Model, TreeEnsemble};
use std::path::Path;

#[path = "common/peer_models.rs"]
#[allow(dead_code)]
mod peer_models;
use peer_models::median;

fn arg<T: std::str::FromStr>(args: &[String], name: &str, default: T) -> T {
    args.iter()
        .position(|a| a == name)
        .and_then(|k| args.get(k + 1))
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    if args.first().map(String::as_str) != Some("heloc") {
        return Err(
            "usage: trees_robust heloc [--n 20] [--sigma2 1e-4] [--gamma 0.1] [--limit 60] \
             [--model 500x6] [--box reachable]"
                .into(),
        );
    }
    let n: usize = arg(&args, "--n", 20);
    let box_kind = match arg(&args, "--box", String::from("reals")).as_str() {
        "reals" => BoxKind::Reals,
        "reachable" => BoxKind::ReachableValues,
        other => return Err(format!("--box must be reals or reachable, got {other}").into()),
    };
    let robustness = Robustness {
        sigma2: arg(&args, "--sigma2", 1e-4),
        invalidation_target: arg(&args, "--gamma", 0.1),
        box_kind,
    };
    let limit: f64 = arg(&args, "--limit", 60.0);
    // `--model 500x6`: the models whose name contains it (default: both).
    let only: String = arg(&args, "--model", String::new());
    let peers = Path::new(env!("CARGO_MANIFEST_DIR")).join("target/peers");
    let d = heloc(&shared_data_dir().join("heloc.csv"))?;
    let (train, test) = d.holdout_split();
    let mut schema = train.schema.clone();
    schema.fit_weights(&train.rows)?;
    let opts = ImportOptions::default();
    let read = |file: &str| -> Result<TreeEnsemble, Box<dyn std::error::Error>> {
        let text = std::fs::read_to_string(peers.join(file))
            .map_err(|e| format!("{file}: {e} (run benches/peers/trees_train.py)"))?;
        Ok(TreeEnsemble::from_xgboost_json(&text, &schema, &opts)?)
    };
    let half = tree_box::half_widths(&schema, &robustness)?;
    println!(
        "box half-widths (data units, σ² = {}, γ = {}): {}",
        robustness.sigma2,
        robustness.invalidation_target,
        schema
            .features
            .iter()
            .zip(&half)
            .filter(|(_, h)| **h > 0.0)
            .map(|(f, h)| format!("{} ±{h:.3}", f.name))
            .collect::<Vec<_>>()
            .join(", ")
    );
    let plain_cfg = Config {
        time_limit_seconds: limit,
        batch_threads: 1,
        ..Config::default()
    };
    let robust_cfg = Config {
        robustness: Some(robustness),
        ..plain_cfg
    };
    let mut lines = Vec::new();
    for (name, file, next_file) in [
        (
            "xgboost 100x4",
            "heloc_xgb.json",
            "heloc_xgb_retrained.json",
        ),
        (
            "xgboost 500x6",
            "heloc_xgb_500x6.json",
            "heloc_xgb_500x6_retrained.json",
        ),
    ] {
        if !only.is_empty() && !name.contains(only.as_str()) {
            continue;
        }
        let model = read(file)?;
        let next = read(next_file)?;
        let name = match box_kind {
            BoxKind::Reals => name.to_string(),
            BoxKind::ReachableValues => format!("{name}, reachable values"),
        };
        let declined: Vec<&Vec<f64>> = test
            .rows
            .iter()
            .filter(|r| schema.encode(r).is_ok_and(|e| !model.accepts(&e)))
            .take(n)
            .collect();
        let (mut proven, mut g, mut g0) = (0, Vec::new(), Vec::new());
        let (mut broken, mut broken0, mut with, mut with0) = (0, 0, 0, 0);
        let (mut cpus, mut gaps) = (Vec::new(), Vec::new());
        for (k, r) in declined.iter().enumerate() {
            let plain = explain(&schema, &model, r, &plain_cfg)?;
            if let Some(cf) = plain.counterfactuals.first() {
                with0 += 1;
                g0.push(tree_box::invalidation_rate(
                    &schema,
                    &model,
                    &robustness,
                    &cf.encoded,
                )?);
                broken0 += usize::from(!next.accepts(&cf.encoded));
            }
            let cpu = thread_cpu::thread_cpu_seconds() * 1e3;
            let robust = explain(&schema, &model, r, &robust_cfg)?;
            let cpu = thread_cpu::thread_cpu_seconds() * 1e3 - cpu;
            cpus.push(cpu);
            let mut line = format!("{name} #{k}: ");
            if let Some(cf) = robust.counterfactuals.first() {
                with += 1;
                if !matches!(robust.outcome, Outcome::Optimal) {
                    gaps.push(cf.mip_gap);
                }
                let rate = cf.invalidation_rate.unwrap_or(f64::NAN);
                g.push(rate);
                let lost = !next.accepts(&cf.encoded);
                broken += usize::from(lost);
                line += &format!(
                    "robust cost {:.4} (gap {:.3}, plain {:.4}), Γ̃ {rate:.4} (plain {:.4}), \
                     {:.0} ms ({cpu:.0} ms CPU), {}",
                    cf.cost,
                    cf.mip_gap,
                    plain.counterfactuals.first().map_or(f64::NAN, |c| c.cost),
                    g0.last().copied().unwrap_or(f64::NAN),
                    1e3 * cf.solve_seconds,
                    if lost { "broken" } else { "kept" }
                );
            } else {
                line += &format!("no robust answer ({:?})", robust.outcome);
            }
            proven += usize::from(matches!(
                robust.outcome,
                Outcome::Optimal | Outcome::Infeasible { .. }
            ));
            println!("{line}");
        }
        let unproven = if gaps.is_empty() {
            "no unproven answers".to_string()
        } else {
            format!(
                "unproven gaps median {:.3} ({} answers)",
                median(&mut gaps.clone()),
                gaps.len()
            )
        };
        println!(
            "{name}: robust solves' CPU median {:.0} ms, total {:.1} s; {unproven}",
            median(&mut cpus.clone()),
            cpus.iter().sum::<f64>() / 1e3,
        );
        lines.push(format!(
            "trees_robust: {name}: proven {proven}/{} robust answers, Γ̃ median {:.4} \
             (plain answers: {:.4}), broken by a retrained model {broken}/{with} (plain: \
             {broken0}/{with0})",
            declined.len(),
            median(&mut g),
            median(&mut g0)
        ));
    }
    for l in lines {
        println!("{l}");
    }
    Ok(())
}
