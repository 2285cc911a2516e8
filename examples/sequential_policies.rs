//! Panagiotou & Ntoutsi 2023's comparison (its Table 2): P-DQN policies trained with the binary
//! reward R^bin and the probability reward R^prob, on German credit (bundled)
//! and FICO HELOC (if `../shared/data/heloc.csv` is present), 80/20 split,
//! several seeds; prints satisfiability, sparsity, distance, target probability
//! and action entropy as mean ± std, and writes the Sankey flows (CSV + SVG) of
//! the first seed.
//!
//! ```text
//! cargo run --release --example sequential_policies -- [--episodes N] [--seeds S]
//!     [--data german,heloc] [--rewards bin,prob] [--schedule paper|short] [--out DIR] [--quiet]
//! ```
//! `--schedule paper` (default) uses `PdqnConfig::default()` (ReLAX's settings);
//! `--schedule short` suits budgets of a few thousand episodes (hidden [64],
//! learning after 500 transitions, ε 0.8 → 0.1 over two steps per episode).
//! The paper trains 40,000 episodes (the default here); `--episodes 2000` gives a quick run.
//! The classifier is logistic regression (C = 1) fitted on the 80%: Panagiotou & Ntoutsi 2023 does
//! not give its classifiers' settings.

use cfx::data::{Dataset, bundled_german_path, german_credit, heloc, shared_data_dir};
use cfx::model::{LinearModel, LogisticFit, accuracy};
use cfx::sequential::{
    Evaluation, PdqnConfig, Progress, RewardKind, RewardParams, SequentialMetrics, evaluate, train,
};
use std::io::Write;
use std::path::PathBuf;
use std::time::Instant;

struct Args {
    episodes: usize,
    seeds: u64,
    data: Vec<String>,
    out: PathBuf,
    quiet: bool,
    short: bool,
    rewards: Vec<RewardKind>,
}

fn parse_args() -> Args {
    let mut a = Args {
        episodes: 40_000,
        seeds: 5,
        data: vec!["german".into(), "heloc".into()],
        out: PathBuf::from("target/sequential_policies"),
        quiet: false,
        short: false,
        rewards: vec![RewardKind::Binary, RewardKind::Probability],
    };
    let mut it = std::env::args().skip(1);
    while let Some(k) = it.next() {
        let mut val = || it.next().unwrap_or_else(|| panic!("{k} needs a value"));
        match k.as_str() {
            "--episodes" => a.episodes = val().parse().expect("--episodes N"),
            "--seeds" => a.seeds = val().parse().expect("--seeds S"),
            "--data" => a.data = val().split(',').map(String::from).collect(),
            "--out" => a.out = PathBuf::from(val()),
            "--quiet" => a.quiet = true,
            "--schedule" => a.short = val() == "short",
            "--rewards" => {
                a.rewards = val()
                    .split(',')
                    .map(|r| match r {
                        "bin" => RewardKind::Binary,
                        "prob" => RewardKind::Probability,
                        other => panic!("unknown reward {other} (bin, prob)"),
                    })
                    .collect()
            }
            other => panic!("unknown argument {other}"),
        }
    }
    a
}

/// The 80/20 split of Panagiotou & Ntoutsi 2023: row `i` is held out when `i mod 10 ≥ 8`
/// (deterministic, like `Dataset::holdout_split`).
fn split_80_20(d: &Dataset) -> (Dataset, Dataset) {
    let (tr, te): (Vec<usize>, Vec<usize>) = (0..d.rows.len()).partition(|i| i % 10 < 8);
    (d.subset(&tr), d.subset(&te))
}

fn mean_std(v: &[f64]) -> (f64, f64) {
    let v: Vec<f64> = v.iter().copied().filter(|x| x.is_finite()).collect();
    if v.is_empty() {
        return (f64::NAN, f64::NAN);
    }
    let m = v.iter().sum::<f64>() / v.len() as f64;
    let var = v.iter().map(|x| (x - m) * (x - m)).sum::<f64>() / v.len() as f64;
    (m, var.sqrt())
}

/// Draws a progress bar on a terminal (one line, redrawn in place); when
/// stderr is not a terminal, prints one line per tenth of the run instead.
fn progress_bar(label: &str, p: &Progress, started: Instant) {
    use std::io::IsTerminal;
    let tty = std::io::stderr().is_terminal();
    let tenth = (p.episodes_total / 10).max(1);
    if !tty && p.episodes_done % tenth != 0 && p.episodes_done != p.episodes_total {
        return;
    }
    let width = 30;
    let done = p.episodes_done * width / p.episodes_total.max(1);
    let secs = started.elapsed().as_secs_f64();
    let line = format!(
        "{label:<20} [{}{}] {:>6}/{:<6} eps={:.2} success={:>5.1}% reward={:>6.2} {:>5.0} episodes/s",
        "#".repeat(done),
        " ".repeat(width - done),
        p.episodes_done,
        p.episodes_total,
        p.epsilon,
        100.0 * p.success_rate,
        p.mean_reward,
        p.episodes_done as f64 / secs.max(1e-9),
    );
    if tty {
        eprint!("\r{line}");
        if p.episodes_done == p.episodes_total {
            eprintln!();
        }
    } else {
        eprintln!("{line}");
    }
    let _ = std::io::stderr().flush();
}

fn main() -> cfx::Result<()> {
    let args = parse_args();
    std::fs::create_dir_all(&args.out)?;
    println!(
        "P-DQN sequential counterfactuals (Panagiotou & Ntoutsi 2023): {} episodes, {} seeds, 80/20 split",
        args.episodes, args.seeds
    );
    let mut table = Vec::new();
    for name in &args.data {
        let data = match name.as_str() {
            "german" => german_credit(&bundled_german_path())?,
            "heloc" => {
                let p = shared_data_dir().join("heloc.csv");
                if !p.exists() {
                    println!("(HELOC skipped: {} not found)", p.display());
                    continue;
                }
                heloc(&p)?
            }
            other => panic!("unknown data set {other}"),
        };
        let (tr, te) = split_80_20(&data);
        let model = LinearModel::fit(&tr.encoded(), &tr.labels, LogisticFit::default())?;
        let k = data
            .schema
            .features
            .iter()
            .filter(|f| f.actionability.mutable)
            .count();
        println!(
            "\n{name}: {} train / {} test rows, {} features ({k} mutable), encoded dim {}, test accuracy {:.3}",
            tr.rows.len(),
            te.rows.len(),
            data.schema.n_features(),
            data.schema.encoded_dim(),
            accuracy(&model, &te.encoded(), &te.labels)
        );
        for &reward in &args.rewards {
            let mut ms: Vec<SequentialMetrics> = Vec::new();
            let mut eps_per_s = Vec::new();
            for seed in 0..args.seeds {
                let mut cfg = PdqnConfig {
                    episodes: args.episodes,
                    seed: 42 + seed,
                    progress_every: (args.episodes / 100).max(1),
                    ..PdqnConfig::default()
                };
                if args.short {
                    // A budget of a few thousand episodes: smaller network, learning
                    // from 500 transitions on, ε from 0.8 down to 0.1 over 2 steps per episode.
                    cfg.hidden = vec![64];
                    cfg.initial_memory = 500;
                    cfg.epsilon_steps = 2 * args.episodes;
                    cfg.epsilon_final = 0.1;
                }
                let label = format!("{name} {reward:?} s{seed}");
                let started = Instant::now();
                let trained = train(
                    &data.schema,
                    &model,
                    &tr.rows,
                    reward,
                    RewardParams::default(),
                    &cfg,
                    |p| {
                        if !args.quiet {
                            progress_bar(&label, p, started);
                        }
                        true
                    },
                )?;
                let secs = started.elapsed().as_secs_f64();
                eps_per_s.push(args.episodes as f64 / secs);
                let ev: Evaluation = evaluate(&trained.policy, &data.schema, &model, &te.rows)?;
                if seed == 0 {
                    let stem = format!(
                        "{name}_{}",
                        if reward == RewardKind::Binary {
                            "rbin"
                        } else {
                            "rprob"
                        }
                    );
                    std::fs::write(
                        args.out.join(format!("{stem}_steps.csv")),
                        ev.flows.steps_csv(),
                    )?;
                    std::fs::write(
                        args.out.join(format!("{stem}_links.csv")),
                        ev.flows.links_csv(),
                    )?;
                    ev.flows.save_svg(
                        &args.out.join(format!("{stem}_sankey.svg")),
                        &format!("{name}, P-DQN {reward:?} reward, seed {}", cfg.seed),
                    )?;
                    trained
                        .policy
                        .save(&args.out.join(format!("{stem}_policy.json")))?;
                    // One declined applicant's plan, in words.
                    if let Some(e) = ev.episodes.first() {
                        let plan = trained
                            .policy
                            .answer(&data.schema, &model, &te.rows[e.row])?;
                        println!(
                            "  plan for test applicant {} ({reward:?}, P = {:.3}):",
                            e.row, plan.initial_probability
                        );
                        for (t, st) in plan.steps.iter().enumerate() {
                            println!(
                                "    {}. {}: {} → {}{}   P = {:.3} {:?}",
                                t + 1,
                                st.name,
                                st.from_text,
                                st.to_text,
                                if st.changed { "" } else { " (no change)" },
                                st.probability,
                                st.outcome
                            );
                        }
                    }
                }
                println!(
                    "  {reward:?} seed {}: sat {:.3} spars {:.2} dist {:.3} prob {:.3} H {:.3}  ({:.1} s, {:.0} episodes/s)",
                    cfg.seed,
                    ev.metrics.satisfiability,
                    ev.metrics.sparsity,
                    ev.metrics.distance,
                    ev.metrics.target_probability,
                    ev.metrics.entropy,
                    secs,
                    args.episodes as f64 / secs
                );
                ms.push(ev.metrics);
            }
            table.push((name.clone(), reward, ms, mean_std(&eps_per_s).0));
        }
    }
    println!(
        "\n| data | reward | satisfiability | sparsity | distance | target prob. | entropy | episodes/s |"
    );
    println!("|---|---|---|---|---|---|---|---|");
    for (name, reward, ms, eps) in &table {
        let col = |f: &dyn Fn(&SequentialMetrics) -> f64| {
            let (m, s) = mean_std(&ms.iter().map(f).collect::<Vec<_>>());
            format!("{m:.3} ± {s:.3}")
        };
        println!(
            "| {name} | {} | {} | {} | {} | {} | {} | {eps:.0} |",
            if *reward == RewardKind::Binary {
                "R^bin"
            } else {
                "R^prob"
            },
            col(&|m| m.satisfiability),
            col(&|m| m.sparsity),
            col(&|m| m.distance),
            col(&|m| m.target_probability),
            col(&|m| m.entropy),
        );
    }
    println!(
        "\nSankey flows and policies written to {}",
        args.out.display()
    );
    Ok(())
}
