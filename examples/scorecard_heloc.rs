//! The bank's own scorecard, explained exactly: the HELOC scorecard made with
//! optbinning 1.0.0 (`../shared/data/heloc_scorecard_table.csv`) imported with
//! its scaling (log-odds of Good = (score − 630.4667319422892) /
//! 46.267864502602755, found by rebuilding the table with optbinning) and the
//! cutoff at probability ½; scores checked against optbinning's own export
//! (`target/peers/heloc_scorecard_scores.csv`, written by
//! `benches/peers/scorecard_optbinning.py`), then every declined held-out
//! applicant (row i with i mod 10 ≥ 7) explained by the coherent MIP on one
//! core. The time per counterfactual is the solve's own wall time.
//!
//! `cargo run --release --example scorecard_heloc [-- <peer scores.csv>]`

use cfx::coherent::{Config, Outcome, explain};
use cfx::data::{heloc, shared_data_dir};
use cfx::model::ScoreScaling;
use cfx::model::scorecard::import::{ImportOptions, from_optbinning_path};
use std::path::PathBuf;

fn main() -> cfx::Result<()> {
    let peer = std::env::args()
        .nth(1)
        .map(PathBuf::from)
        .unwrap_or_else(|| {
            PathBuf::from(env!("CARGO_MANIFEST_DIR"))
                .join("target/peers/heloc_scorecard_scores.csv")
        });
    let dir = shared_data_dir();
    let d = heloc(&dir.join("heloc.csv"))?;
    let (train, _) = d.holdout_split();
    let mut schema = d.schema.clone();
    schema.fit_weights(&train.rows)?;
    let options = ImportOptions {
        cutoff: 630.4667319422892,
        scaling: Some(ScoreScaling::new(46.267864502602755, 630.4667319422892)?),
    };
    let imported = from_optbinning_path(&schema, &dir.join("heloc_scorecard_table.csv"), &options)?;
    print!("{}", imported.report.to_text());
    let card = imported.scorecard;

    let text = std::fs::read_to_string(&peer).map_err(|e| {
        cfx::Error::Io(format!(
            "cannot read optbinning's scores at '{}' ({e}); run benches/peers/scorecard_optbinning.py",
            peer.display()
        ))
    })?;
    let mut equal = 0;
    let mut rows = 0;
    for line in text.lines().skip(1).filter(|l| !l.trim().is_empty()) {
        let (r, s) = line
            .split_once(',')
            .ok_or_else(|| cfx::Error::Format(format!("bad line '{line}'")))?;
        let r: usize = r
            .trim()
            .parse()
            .map_err(|_| cfx::Error::Format(line.into()))?;
        let s: f64 = s
            .trim()
            .parse()
            .map_err(|_| cfx::Error::Format(line.into()))?;
        let ours = card.score_raw(&schema, &d.rows[r])?;
        equal += usize::from((ours - s).abs() <= 1e-9);
        rows += 1;
    }

    let config = Config::default();
    let mut times = Vec::new();
    let mut declined = 0;
    let mut optimal = 0;
    for (i, row) in d.rows.iter().enumerate() {
        if i % 10 < 7 || card.accepts_points(card.score_raw(&schema, row)?) {
            continue;
        }
        declined += 1;
        let ex = explain(&schema, &card, row, &config)?;
        if let (Outcome::Optimal, Some(cf)) = (&ex.outcome, ex.counterfactuals.first()) {
            let valid = card.accepts_points(card.score_raw(&schema, &cf.raw)?)
                && schema.check_actionable(row, &cf.raw).is_ok();
            optimal += usize::from(valid);
            times.push(cf.solve_seconds * 1e3);
        }
    }
    times.sort_by(f64::total_cmp);
    let median = if times.is_empty() {
        f64::NAN
    } else {
        times[times.len() / 2]
    };
    println!(
        "scorecard: scores equal optbinning on {equal}/{rows} rows; optimal counterfactuals for \
         {optimal}/{declined} declined; median {median:.2} ms per counterfactual"
    );
    Ok(())
}
