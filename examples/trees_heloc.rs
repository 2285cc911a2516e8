//! Gradient-boosted trees on FICO HELOC: cfx's margins against XGBoost's and
//! LightGBM's own on every row, then proven-optimal coherent counterfactuals
//! for declined held-out applicants under the 100-tree XGBoost model, by the
//! exact tree search (the default; `--mip` proves them on HiGHS instead).
//!
//! Needs the peer export of `python3 benches/peers/trees_train.py` in
//! `target/peers/` and HELOC in `../shared/data/`.
//!
//! ```sh
//! cargo run --release --example trees_heloc [-- --n 20] [--mip]
//! cargo run --release --example trees_heloc -- --peers target/peers/trees_dice.jsonl
//! ```
//!
//! With `--peers FILE` (the JSONL of `benches/peers/trees_dice.py`) it instead
//! judges the peers' answers on cfx's terms, applicant by applicant against
//! cfx's own proven-optimal answer: valid (accepted by the model), coherent
//! (a state of every feature's schema, on its grid, actionable from the
//! applicant: directions, bounds, forbidden transitions), and the cost on
//! cfx's objective (`coherent::cost`).

#[path = "common/thread_cpu.rs"]
mod thread_cpu;
use cfx::coherent::{Config, Outcome, cost, explain};
use cfx::data::{heloc, shared_data_dir};
use cfx::model::trees::ImportOptions;
use cfx::model::{Model, TreeEnsemble};
use std::path::Path;

#[path = "common/peer_models.rs"]
mod peer_models;
use peer_models::{equal_rows, margins, median};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().collect();
    let n = args
        .iter()
        .position(|a| a == "--n")
        .and_then(|k| args.get(k + 1))
        .map_or(Ok(20), |v| v.parse::<usize>())?;
    let peers = Path::new(env!("CARGO_MANIFEST_DIR")).join("target/peers");
    let d = heloc(&shared_data_dir().join("heloc.csv"))?;
    let (train, test) = d.holdout_split();
    let mut schema = train.schema.clone();
    schema.fit_weights(&train.rows)?;
    let opts = ImportOptions::default();
    let xgb = TreeEnsemble::from_xgboost_json(
        &std::fs::read_to_string(peers.join("heloc_xgb.json"))?,
        &schema,
        &opts,
    )?;
    let lgbm = TreeEnsemble::from_lightgbm_text(
        &std::fs::read_to_string(peers.join("heloc_lgbm.txt"))?,
        &schema,
        &opts,
    )?;
    let xm = margins(&peers.join("heloc_xgb_margins.csv"))?;
    let lm = margins(&peers.join("heloc_lgbm_margins.csv"))?;
    let x_eq = equal_rows(&xgb, &d.rows, &xm);
    let l_eq = equal_rows(&lgbm, &d.rows, &lm);

    let declined: Vec<&Vec<f64>> = test
        .rows
        .iter()
        .filter(|r| schema.encode(r).is_ok_and(|e| !xgb.accepts(&e)))
        .take(n)
        .collect();
    let config = Config {
        time_limit_seconds: 120.0,
        solver: if args.iter().any(|a| a == "--mip") {
            cfx::coherent::SolverChoice::Mip
        } else {
            cfx::coherent::SolverChoice::Auto
        },
        ..Config::default()
    };
    if let Some(k) = args.iter().position(|a| a == "--peers") {
        let path = args.get(k + 1).ok_or("--peers needs a file")?;
        return judge_peers(Path::new(path), &d.rows, &schema, &xgb, &config);
    }
    let mut optimal = 0;
    let mut ms = Vec::new();
    let mut cpu_ms = Vec::new();
    // Where the time goes: HiGHS's solve (the counterfactual's solve_seconds)
    // against the whole of explain (building the MIP, solving, re-scoring).
    let (mut highs_ms, mut explain_ms) = (0.0, 0.0);
    for (k, r) in declined.iter().enumerate() {
        let cpu = thread_cpu::thread_cpu_seconds();
        let wall = std::time::Instant::now();
        let ex = explain(&schema, &xgb, r, &config)?;
        let wall = wall.elapsed().as_secs_f64() * 1e3;
        let cpu = (thread_cpu::thread_cpu_seconds() - cpu) * 1e3;
        cpu_ms.push(cpu);
        explain_ms += wall;
        let Some(cf) = ex.counterfactuals.first() else {
            println!("applicant {k}: {:?}", ex.outcome);
            continue;
        };
        let enc = schema.encode(&cf.raw)?;
        let valid = xgb.accepts(&enc) && schema.check_actionable(r, &cf.raw).is_ok();
        if ex.outcome == Outcome::Optimal && valid {
            optimal += 1;
        }
        ms.push(cf.solve_seconds * 1e3);
        highs_ms += cf.solve_seconds * 1e3;
        println!(
            "applicant {k}: {:?}, {:.0} ms, {cpu:.0} ms CPU, cost {:.4}, p {:.3} → {:.3}: {}",
            ex.outcome,
            cf.solve_seconds * 1e3,
            cf.cost,
            ex.factual_probability,
            cf.probability,
            cf.describe()
        );
    }
    let median_wall = median(&mut ms);
    println!(
        "the solver's search ({}): {:.1}% of explain's wall-clock time ({highs_ms:.0} of {explain_ms:.0} ms)",
        if config.solver == cfx::coherent::SolverChoice::Mip {
            "HiGHS"
        } else {
            "tree search"
        },
        100.0 * highs_ms / explain_ms
    );
    println!(
        "median {:.0} ms CPU per counterfactual (explain, this thread)",
        median(&mut cpu_ms)
    );
    println!(
        "trees: xgboost margins equal on {x_eq}/{} rows; lightgbm margins equal on {l_eq}/{} rows; \
         optimal counterfactuals for {optimal}/{} declined; median {median_wall:.0} ms per counterfactual",
        d.rows.len(),
        d.rows.len(),
        declined.len()
    );
    Ok(())
}

/// One peer's tally over its answers.
#[derive(Default)]
struct Tally {
    calls: usize,
    answered: usize,
    valid: usize,
    coherent: usize,
    valid_coherent: usize,
    cheaper_than_cfx: usize,
    ratios: Vec<f64>,
    seconds: Vec<f64>,
}

/// Judges the peers' answers in `path` (see the module docs) and prints one
/// line per answer and a summary per peer.
fn judge_peers(
    path: &Path,
    rows: &[Vec<f64>],
    schema: &cfx::schema::Schema,
    xgb: &TreeEnsemble,
    config: &Config,
) -> Result<(), Box<dyn std::error::Error>> {
    let text = std::fs::read_to_string(path).map_err(|e| format!("{}: {e}", path.display()))?;
    let mut cfx_cost: std::collections::BTreeMap<usize, f64> = Default::default();
    let mut cfx_ms = Vec::new();
    let mut tallies: std::collections::BTreeMap<String, Tally> = Default::default();
    for line in text.lines().filter(|l| !l.trim().is_empty()) {
        let rec: serde_json::Value = serde_json::from_str(line)?;
        let peer = rec["peer"]
            .as_str()
            .ok_or("record without peer")?
            .to_string();
        let row = rec["row"].as_u64().ok_or("record without row")? as usize;
        let factual = rows.get(row).ok_or("row out of range")?;
        if let std::collections::btree_map::Entry::Vacant(e) = cfx_cost.entry(row) {
            let ex = explain(schema, xgb, factual, config)?;
            let cf = ex
                .counterfactuals
                .first()
                .ok_or("cfx found no counterfactual")?;
            if ex.outcome != Outcome::Optimal {
                return Err(format!("row {row}: cfx's answer is {:?}", ex.outcome).into());
            }
            cfx_ms.push(cf.solve_seconds * 1e3);
            e.insert(cf.cost);
        }
        let best = cfx_cost[&row];
        let t = tallies.entry(peer.clone()).or_default();
        t.calls += 1;
        t.seconds.push(rec["seconds"].as_f64().unwrap_or(f64::NAN));
        let Some(cf) = rec["counterfactual"].as_array() else {
            println!("{peer} row {row}: no answer");
            continue;
        };
        let cf: Vec<f64> = cf.iter().filter_map(|v| v.as_f64()).collect();
        t.answered += 1;
        let enc = schema.encode(&cf);
        // Accepted as the library scores the same numbers (an incoherent value
        // such as −5 is still a number to XGBoost).
        let valid = xgb.margin_raw(&cf) > cfx::model::logit(xgb.threshold());
        let why = enc.as_ref().err().map(|e| e.to_string()).or_else(|| {
            schema
                .check_actionable(factual, &cf)
                .err()
                .map(|e| e.to_string())
        });
        let c = cost(schema, factual, &cf).ok();
        t.valid += usize::from(valid);
        t.coherent += usize::from(why.is_none());
        if valid && why.is_none() {
            let c = c.ok_or("a coherent answer without a cost")?;
            t.valid_coherent += 1;
            t.ratios.push(c / best);
            t.cheaper_than_cfx += usize::from(c < best - 1e-9);
        }
        println!(
            "{peer} row {row}: valid {valid}, coherent {}, cost {} (cfx {best:.4})",
            why.as_deref().unwrap_or("yes"),
            c.map_or("-".to_string(), |c| format!("{c:.4}"))
        );
    }
    println!(
        "cfx: {}/{} proven optimal, valid and coherent; median {:.0} ms per counterfactual",
        cfx_cost.len(),
        cfx_cost.len(),
        median(&mut cfx_ms)
    );
    for (peer, mut t) in tallies {
        println!(
            "{peer}: {} calls, {} answered, {} valid, {} coherent, {} valid and coherent; \
             cost / cfx's median {:.2} (min {:.2}); cheaper than cfx: {}; median {:.0} ms per call",
            t.calls,
            t.answered,
            t.valid,
            t.coherent,
            t.valid_coherent,
            median(&mut t.ratios.clone()),
            t.ratios.iter().copied().fold(f64::INFINITY, f64::min),
            t.cheaper_than_cfx,
            median(&mut t.seconds) * 1e3
        );
    }
    Ok(())
}
