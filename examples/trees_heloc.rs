//! Gradient-boosted trees on FICO HELOC: cfx's margins against XGBoost's and
//! LightGBM's own on every row, then proven-optimal coherent counterfactuals
//! for declined held-out applicants under the 100-tree XGBoost model.
//!
//! Needs the peer export of `python3 benches/peers/trees_train.py` in
//! `target/peers/` and HELOC in `../shared/data/`.
//!
//! ```sh
//! cargo run --release --example trees_heloc [-- --n 20]
//! ```

use cfx::coherent::{Config, Outcome, explain};
use cfx::data::{heloc, shared_data_dir};
use cfx::model::trees::ImportOptions;
use cfx::model::{Model, TreeEnsemble};
use std::path::Path;

fn margins(path: &Path) -> Result<Vec<f64>, String> {
    let text = std::fs::read_to_string(path).map_err(|e| format!("{}: {e}", path.display()))?;
    text.lines()
        .skip(1)
        .map(|l| {
            l.split_once(',')
                .and_then(|(_, m)| m.parse::<f64>().ok())
                .ok_or_else(|| format!("{}: bad line '{l}'", path.display()))
        })
        .collect()
}

/// CPU seconds this thread has used (the machine may be shared: wall-clock
/// times then overstate the solver's work).
fn thread_cpu_seconds() -> f64 {
    let mut ts = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: a valid clock id and a valid out-pointer.
    unsafe { libc::clock_gettime(libc::CLOCK_THREAD_CPUTIME_ID, &mut ts) };
    ts.tv_sec as f64 + ts.tv_nsec as f64 * 1e-9
}

fn median(v: &mut [f64]) -> f64 {
    v.sort_by(f64::total_cmp);
    match v.len() {
        0 => f64::NAN,
        n if n % 2 == 1 => v[n / 2],
        n => 0.5 * (v[n / 2 - 1] + v[n / 2]),
    }
}

fn equal_rows(model: &TreeEnsemble, rows: &[Vec<f64>], lib: &[f64]) -> usize {
    rows.iter()
        .zip(lib)
        .filter(|(r, m)| (model.margin_raw(r) - **m).abs() <= 1e-6)
        .count()
}

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
        ..Config::default()
    };
    let mut optimal = 0;
    let mut ms = Vec::new();
    let mut cpu_ms = Vec::new();
    for (k, r) in declined.iter().enumerate() {
        let cpu = thread_cpu_seconds();
        let ex = explain(&schema, &xgb, r, &config)?;
        let cpu = (thread_cpu_seconds() - cpu) * 1e3;
        cpu_ms.push(cpu);
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
