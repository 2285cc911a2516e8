//! `make demo`'s sequential part: a short P-DQN training run (Panagiotou & Ntoutsi 2023) on the
//! bundled German credit data with a progress bar, then the step-by-step plan
//! the trained policy gives one declined applicant of the held-out part.
//!
//! ```text
//! cargo run --release --example sequential_demo -- [german|heloc] [episodes]
//! ```
//! The short run uses a smaller network and a faster ε decay than the paper's
//! settings (`PdqnConfig::default()`, 40,000 episodes) so that it ends in seconds.
//!
//! The agent acts under the data set's advice preset
//! (`cfx::data::presets::priced_preset`, as `examples/credit_recourse.rs`):
//! every action it can take stays within the change limits, age moves only by
//! waiting, and "wait m months" is one of its actions — for the months that
//! leave every month counter inside the accepted applicants' 1–99% range
//! (`Plausibility::advise_waits_within`).

use cfx::data;
use cfx::model::{LinearModel, LogisticFit, Model};
use cfx::plausibility::Plausibility;
use cfx::sequential::{PdqnConfig, RewardKind, RewardParams, evaluate, train};
use std::io::{IsTerminal, Write};
use std::time::Instant;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let which = std::env::args().nth(1).unwrap_or_else(|| "german".into());
    let episodes: usize = std::env::args().nth(2).map_or(Ok(1500), |s| s.parse())?;
    run(&which, None, episodes)
}

/// The sequential demo on data set `which` (german, heloc), read from `path`
/// or from where cfx finds it, trained for `episodes`. `cfx demo` runs this
/// same code (src/bin/cfx/demo.rs).
pub fn run(
    which: &str,
    path: Option<&std::path::Path>,
    episodes: usize,
) -> Result<(), Box<dyn std::error::Error>> {
    let d = match which {
        "german" => data::german_credit(&path.map_or_else(data::bundled_german_path, Into::into))?,
        "heloc" => data::heloc(
            &path.map_or_else(|| data::shared_data_dir().join("heloc.csv"), Into::into),
        )?,
        other => return Err(format!("unknown dataset '{other}' (german, heloc)").into()),
    };
    let (tr, te) = d.holdout_split();
    let model = LinearModel::fit(&tr.encoded(), &tr.labels, LogisticFit::default())?;
    // A preset changes actionability only: the model scores its rows unchanged.
    let schema = data::presets::priced_preset(which, &d.schema)?.ok_or("no advice preset")?;
    // Waits land month counters where accepted applicants are (the advised
    // ranges: their 1–99% range), as in the exact engine's advice.
    let schema = Plausibility::fit(&schema, &tr.rows, &tr.labels)?.advise_waits_within(&schema)?;
    let w = schema.waiting().expect("presets declare waiting");
    println!(
        "advice preset (cfx::data::presets): waiting up to {} months ({:.4} per month in the distance)",
        w.max_months, w.cost_per_month
    );
    println!("== sequential counterfactuals (P-DQN, R^prob reward) on {which} ==");
    let cfg = PdqnConfig {
        episodes,
        hidden: vec![64],
        initial_memory: 500,
        epsilon_steps: 2 * episodes,
        epsilon_final: 0.1,
        progress_every: (episodes / 50).max(1),
        ..PdqnConfig::default()
    };
    let started = Instant::now();
    let tty = std::io::stderr().is_terminal();
    let trained = train(
        &schema,
        &model,
        &tr.rows,
        RewardKind::Probability,
        RewardParams::default(),
        &cfg,
        |p| {
            let width = 40;
            let done = p.episodes_done * width / p.episodes_total;
            let line = format!(
                "training [{}{}] {}/{} episodes, success {:.0}%, mean reward {:.2}",
                "#".repeat(done),
                "-".repeat(width - done),
                p.episodes_done,
                p.episodes_total,
                100.0 * p.success_rate,
                p.mean_reward
            );
            if tty {
                eprint!("\r{line}");
                let _ = std::io::stderr().flush();
            } else if p.episodes_done % (p.episodes_total / 5).max(1) == 0 {
                eprintln!("{line}");
            }
            true
        },
    )?;
    if tty {
        eprintln!();
    }
    println!(
        "trained {} episodes in {:.1} s",
        episodes,
        started.elapsed().as_secs_f64()
    );
    let ev = evaluate(&trained.policy, &schema, &model, &te.rows)?;
    let m = ev.metrics;
    println!(
        "held-out: {} declined applicants, counterfactuals found for {:.0}%, {:.1} features changed on average, entropy {:.2}",
        m.n_instances,
        100.0 * m.satisfiability,
        m.sparsity,
        m.entropy
    );
    let first_found = ev
        .episodes
        .iter()
        .find(|e| e.outcome == cfx::sequential::StepOutcome::Success)
        .or(ev.episodes.first());
    if let Some(e) = first_found {
        let plan = trained.policy.answer(&schema, &model, &te.rows[e.row])?;
        println!(
            "\nplan for held-out applicant #{} (probability of good risk {:.1}%, threshold {:.0}%):",
            e.row,
            100.0 * plan.initial_probability,
            100.0 * model.threshold()
        );
        // Steps that change nothing are not in the plan (`Plan::idle_steps`).
        for (t, st) in plan.steps.iter().enumerate() {
            println!(
                "  step {}: {}  (probability {:.1}%)",
                t + 1,
                st.text(),
                100.0 * st.probability
            );
        }
        println!(
            "  {}",
            if plan.success {
                "→ accepted".to_string()
            } else if plan.steps.is_empty() {
                "→ no valid advice found".to_string()
            } else {
                format!(
                    "→ no counterfactual ({})",
                    plan.violation
                        .as_deref()
                        .unwrap_or("steps exhausted or feature re-used")
                )
            }
        );
    }
    Ok(())
}
