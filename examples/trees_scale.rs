//! The exact tree search against HiGHS on production-size tree ensembles.
//!
//! ```text
//! python3 benches/peers/trees_train.py     # writes the models into target/peers
//! cargo run --release --example trees_scale [-- --n 20] [--highs-n K] [--highs-limit S] [--all]
//!     [--model NAME] [--from K] [--limit 60] [--node-limit N] [--only 2,9,17] [--search [--merged] [--no-budget] [--by-option] [--by-total] [--keep-dominated] [--propagate] [--no-fixing] [--strong K[,AFTER[,RELIABLE]]]]
//!     [--highs-in-process] [--strict]
//! ```
//!
//! Trains nothing itself: it reads the peer's HELOC models (XGBoost 100 trees
//! of depth 4; LightGBM 100 trees of 15 leaves; XGBoost 500 trees of depth 6;
//! LightGBM 500 trees of 31 leaves; XGBoost 1000 trees of depth 8 and LightGBM
//! 1000 trees of 63 leaves, both at learning rate 0.05),
//! checks that cfx scores every HELOC row as the library exported it, then
//! explains the first `--n` declined held-out applicants of each model with
//! the tree search (the default solver for trees) and with HiGHS on the same
//! program (`SolverChoice::Mip`, `--highs-limit` seconds each, on the first
//! `--highs-n` of them), one thread. By default HiGHS runs on every applicant
//! of the 100-tree models (60 s each), the first 5 of the 500-tree models
//! (60 s each) and the first one of each 1000-tree model (360 s): HiGHS
//! needs minutes of CPU to prove an applicant of the 1000-tree models (it
//! starts from the tree MIP's first incumbent, the tree search's answer within
//! 1,000 nodes, and must still prove optimality by its own bound), so that the
//! whole run keeps to about 30 minutes on an idle 2-core machine
//! (BENCHMARKS.md, "Tree ensembles"); `--highs-n` and `--highs-limit` set
//! every model's. `--all` explains every
//! declined held-out applicant; `--model NAME` runs the models whose name
//! contains NAME, `--from K` starts at the K-th applicant; `--limit S` and
//! `--node-limit N` set the tree search's time and node limits (default 60 s
//! and the library's default); `--only K,L,…` explains only those applicants.
//! `--search` runs the tree search itself on each applicant (no HiGHS) and
//! prints its status, nodes, proven bound, wall-clock and CPU time and the
//! options reduced-cost fixing removed (`TreeSearch::fixed_options`), the
//! figures to compare bounds by on a loaded machine; with `--merged`, under the merged bound
//! (`TreeSearch::set_merged_bound`); with `--no-budget`, without the
//! feature-budget bound (`TreeSearch::set_budget_bound`); with `--by-option`,
//! its bound by options instead of by classes
//! (`TreeSearch::set_budget_by_option`); with `--by-total`, keeping to each
//! leaf's whole extra (`TreeSearch::set_budget_by_total`); with
//! `--keep-dominated`, keeping each tree's dominated leaves in the
//! feature-budget bound (`TreeSearch::set_budget_dominance`); with `--propagate`,
//! with the domains' propagation (`TreeSearch::set_propagation`); with
//! `--no-fixing`, without reduced-cost fixing (`TreeSearch::set_fixing`); with
//! `--strong K,AFTER,RELIABLE`, branching by strong branching over `K`
//! candidate splits from the `AFTER`-th node on (default 0), trusting a split
//! class's pseudocosts after `RELIABLE` observations per side (default 0:
//! never) instead of the search's default (`TreeSearch::set_strong_branching`;
//! `--strong 1` is the single rule alone).
//!
//! Each applicant's HiGHS program is solved in a child process of its own
//! (this example again, with `--highs-solve`; `--highs-child`, once needed
//! for it, is still accepted), killed when it runs a quarter of its time
//! limit and 10 s past it; `--highs-in-process` solves in this process, with
//! no watchdog. HiGHS does not always
//! hold its time limit (an LP inside its RENS sub-MIP, or root cut separation,
//! can run for many minutes past it), so a run over every declined applicant
//! needs a watchdog; each child also starts from a fresh HiGHS, so no solve
//! depends on the ones before it. A killed solve is reported as such and
//! counted on a line of its own; it is never counted as agreement.
//! `--strict` makes the run an oracle check: it fails unless both solvers
//! proved every applicant (optimal or infeasible) with identical answers
//! (`make trees-every-applicant`).
//!
//! Prints one line per model, last:
//!
//! `trees_scale: <model>: proven P/N, median T ms (highs median H ms, R×), identical costs on M/M; highs on K/N (S s each): proven A, answer at its limit B, none C, killed D`
//!
//! (and before them `<model>: tree search cpu C s in all`).
//! "identical" means equal to 1e-9 relative wherever both solvers proved
//! optimality (or both proved infeasibility); "highs on K/N" counts the
//! applicants HiGHS ran on, and of them those it proved, answered at its time
//! limit without a proof, left without an answer and had killed;
//! times are wall-clock milliseconds per applicant of `explain`,
//! and the tree search's CPU time (this thread's), which load inflates less on
//! a shared machine.

#[path = "common/thread_cpu.rs"]
mod thread_cpu;
use cfx::coherent::separable::Workspace;
use cfx::coherent::tree_search::{SearchStatus, TreeSearch};
use cfx::coherent::{Config, Explanation, Outcome, SolverChoice, explain};
use cfx::data::{heloc, shared_data_dir};
use cfx::model::trees::ImportOptions;
use cfx::model::{Model, TreeEnsemble, logit};
use std::path::Path;

#[path = "common/peer_models.rs"]
mod peer_models;
use peer_models::{equal_rows, margins, median};

/// The default HiGHS budget of the 500-tree models: the first 5 applicants,
/// 60 s each.
const HIGHS_500: (usize, f64) = (5, 60.0);
/// The 1000-tree models': HiGHS proves an applicant there in minutes of CPU
/// even from the tree MIP's start (BENCHMARKS.md, "Tree ensembles").
const HIGHS_1000X8: (usize, f64) = (1, 360.0);
const HIGHS_1000X63: (usize, f64) = (1, 360.0);
/// A HiGHS child is killed `a·limit + b` seconds after it starts.
const HIGHS_GRACE: (f64, f64) = (1.25, 10.0);

fn arg<T: std::str::FromStr>(args: &[String], name: &str, default: T) -> T {
    args.iter()
        .position(|a| a == name)
        .and_then(|k| args.get(k + 1))
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

/// Explains `row`; returns the explanation, wall-clock and CPU milliseconds.
fn timed(
    schema: &cfx::schema::Schema,
    model: &TreeEnsemble,
    row: &[f64],
    config: &Config,
) -> Result<(Explanation, f64, f64), cfx::Error> {
    let (t, c) = (
        std::time::Instant::now(),
        thread_cpu::thread_cpu_seconds() * 1e3,
    );
    let ex = explain(schema, model, row, config)?;
    Ok((
        ex,
        t.elapsed().as_secs_f64() * 1e3,
        thread_cpu::thread_cpu_seconds() * 1e3 - c,
    ))
}

/// What a HiGHS solve answered, as the parent compares it: the outcome
/// (`optimal`, `infeasible` or another outcome's name), wall-clock
/// milliseconds and the cost of the first counterfactual.
struct HighsAnswer {
    outcome: String,
    ms: f64,
    cost: Option<f64>,
}

impl HighsAnswer {
    fn of(ex: &Explanation, ms: f64) -> Self {
        let outcome = match ex.outcome {
            Outcome::Optimal => "optimal".to_string(),
            Outcome::Infeasible { .. } => "infeasible".to_string(),
            ref o => format!("{o:?}").replace(char::is_whitespace, ""),
        };
        let cost = ex.counterfactuals.first().map(|c| c.cost);
        HighsAnswer { outcome, ms, cost }
    }

    /// The child's one line: `highs-solve: OUTCOME MS COST` (`-` for no cost;
    /// the cost printed exactly, to 17 significant digits).
    fn line(&self) -> String {
        format!(
            "highs-solve: {} {:.3} {}",
            self.outcome,
            self.ms,
            self.cost.map_or("-".into(), |c| format!("{c:.17e}"))
        )
    }

    fn parse(text: &str) -> Option<Self> {
        let l = text.lines().find_map(|l| l.strip_prefix("highs-solve: "))?;
        let mut it = l.split(' ');
        let outcome = it.next()?.to_string();
        let ms = it.next()?.parse().ok()?;
        let cost = it.next()?.parse().ok();
        Some(HighsAnswer { outcome, ms, cost })
    }
}

/// Runs `exe --model NAME --only K --highs-solve …` and waits at most
/// `deadline` seconds; `None` when the child had to be killed (or failed).
fn highs_in_child(
    name: &str,
    k: usize,
    highs_limit: f64,
    deadline: f64,
) -> Result<Option<HighsAnswer>, Box<dyn std::error::Error>> {
    use std::io::Read;
    let mut child = std::process::Command::new(std::env::current_exe()?)
        .args([
            "--model",
            name,
            "--all",
            "--only",
            &k.to_string(),
            "--highs-solve",
        ])
        .args(["--highs-limit", &highs_limit.to_string()])
        .stdout(std::process::Stdio::piped())
        .spawn()?;
    let start = std::time::Instant::now();
    loop {
        if child.try_wait()?.is_some() {
            let mut text = String::new();
            if let Some(mut out) = child.stdout.take() {
                out.read_to_string(&mut text)?;
            }
            return Ok(HighsAnswer::parse(&text));
        }
        if start.elapsed().as_secs_f64() > deadline {
            child.kill()?;
            child.wait()?;
            return Ok(None);
        }
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().collect();
    let highs_solve = args.iter().any(|a| a == "--highs-solve");
    let highs_child = !args.iter().any(|a| a == "--highs-in-process");
    let all = args.iter().any(|a| a == "--all");
    let n: usize = if all {
        usize::MAX
    } else {
        arg(&args, "--n", 20)
    };
    let highs_n_arg: Option<usize> = arg(&args, "--highs-n", String::new()).parse().ok();
    let highs_limit_arg: Option<f64> = arg(&args, "--highs-limit", String::new()).parse().ok();
    let peers = Path::new(env!("CARGO_MANIFEST_DIR")).join("target/peers");
    let d = heloc(&shared_data_dir().join("heloc.csv"))?;
    let (train, test) = d.holdout_split();
    let mut schema = train.schema.clone();
    schema.fit_weights(&train.rows)?;
    let opts = ImportOptions::default();
    // Per model: name, files, and the default HiGHS budget (applicants,
    // seconds each) that keeps the whole run within 30 minutes (module docs).
    let models = [
        (
            "xgboost 100x4",
            "heloc_xgb.json",
            "heloc_xgb_margins.csv",
            usize::MAX,
            60.0,
        ),
        (
            "lightgbm 100x15",
            "heloc_lgbm.txt",
            "heloc_lgbm_margins.csv",
            usize::MAX,
            60.0,
        ),
        (
            "xgboost 500x6",
            "heloc_xgb_500x6.json",
            "heloc_xgb_500x6_margins.csv",
            HIGHS_500.0,
            HIGHS_500.1,
        ),
        (
            "lightgbm 500x31",
            "heloc_lgbm_500x31.txt",
            "heloc_lgbm_500x31_margins.csv",
            HIGHS_500.0,
            HIGHS_500.1,
        ),
        (
            "xgboost 1000x8",
            "heloc_xgb_1000x8.json",
            "heloc_xgb_1000x8_margins.csv",
            HIGHS_1000X8.0,
            HIGHS_1000X8.1,
        ),
        (
            "lightgbm 1000x63",
            "heloc_lgbm_1000x63.txt",
            "heloc_lgbm_1000x63_margins.csv",
            HIGHS_1000X63.0,
            HIGHS_1000X63.1,
        ),
    ];
    let search = Config {
        time_limit_seconds: arg(&args, "--limit", 60.0),
        node_limit: arg(&args, "--node-limit", Config::default().node_limit),
        batch_threads: 1,
        ..Config::default()
    };
    let mut lines = Vec::new();
    let only: String = arg(&args, "--model", String::new());
    let from: usize = arg(&args, "--from", 0);
    let only_k: Vec<usize> = arg(&args, "--only", String::new())
        .split(',')
        .filter_map(|k| k.parse().ok())
        .collect();
    let raw_search = args.iter().any(|a| a == "--search");
    let merged = args.iter().any(|a| a == "--merged");
    let budget = !args.iter().any(|a| a == "--no-budget");
    let propagate = args.iter().any(|a| a == "--propagate");
    let fixing = !args.iter().any(|a| a == "--no-fixing");
    let by_option = args.iter().any(|a| a == "--by-option");
    let by_total = args.iter().any(|a| a == "--by-total");
    let dominance = !args.iter().any(|a| a == "--keep-dominated");
    let strong: Vec<usize> = arg(&args, "--strong", String::new())
        .split(',')
        .filter_map(|s| s.parse().ok())
        .collect();
    let strict = args.iter().any(|a| a == "--strict");
    let mut failures = Vec::new();
    for (name, file, margin_file, default_n, default_limit) in models {
        if !name.contains(only.as_str()) {
            continue;
        }
        let highs_n = highs_n_arg.unwrap_or(default_n);
        let highs_limit = highs_limit_arg.unwrap_or(default_limit);
        let highs = Config {
            time_limit_seconds: highs_limit,
            solver: SolverChoice::Mip,
            batch_threads: 1,
            ..Config::default()
        };
        let text = std::fs::read_to_string(peers.join(file))
            .map_err(|e| format!("{file}: {e} (run benches/peers/trees_train.py)"))?;
        let model = if file.ends_with(".json") {
            TreeEnsemble::from_xgboost_json(&text, &schema, &opts)?
        } else {
            TreeEnsemble::from_lightgbm_text(&text, &schema, &opts)?
        };
        if !highs_solve {
            let lib = margins(&peers.join(margin_file))?;
            let equal = equal_rows(&model, &d.rows, &lib);
            println!(
                "{name}: margins equal the library's on {equal}/{} rows",
                lib.len()
            );
        }
        let declined: Vec<&Vec<f64>> = test
            .rows
            .iter()
            .filter(|r| schema.encode(r).is_ok_and(|e| !model.accepts(&e)))
            .take(n)
            .collect();
        let (mut proven, mut ms, mut highs_ms) = (0, Vec::new(), Vec::new());
        let (mut compared, mut identical, mut overran) = (0, 0, Vec::new());
        let mut cpu_total = 0.0;
        // HiGHS: applicants run, proven (optimal or infeasible), answered at
        // its limit, and stopped without an answer.
        let (mut h_runs, mut h_proven, mut h_at_limit, mut h_none) = (0, 0, 0, 0);
        for (k, r) in declined.iter().enumerate().skip(from) {
            if !only_k.is_empty() && !only_k.contains(&k) {
                continue;
            }
            if highs_solve {
                let (hx, ht, _) = timed(&schema, &model, r, &highs)?;
                println!("{}", HighsAnswer::of(&hx, ht).line());
                continue;
            }
            if raw_search {
                let t = std::time::Instant::now();
                let c0 = thread_cpu::thread_cpu_seconds() * 1e3;
                let mut ws = Workspace::new();
                ws.build_tree_cells(&schema, &model, r, &[])?;
                let mut ts = TreeSearch::new();
                ts.prepare(&ws, &schema, &model)?;
                ts.set_merged_bound(merged);
                ts.set_budget_bound(budget);
                ts.set_propagation(propagate);
                ts.set_fixing(fixing);
                ts.set_budget_by_option(by_option);
                ts.set_budget_by_total(by_total);
                ts.set_budget_dominance(dominance);
                if let Some(&k) = strong.first() {
                    ts.set_strong_branching(
                        k,
                        strong.get(1).copied().unwrap_or(0),
                        strong.get(2).copied().unwrap_or(0),
                    );
                }
                let need = logit(model.threshold()) + Config::default().margin;
                let res = ts.solve(&model, need, search.node_limit, search.time_limit_seconds);
                let t = t.elapsed().as_secs_f64() * 1e3;
                let cpu = thread_cpu::thread_cpu_seconds() * 1e3 - c0;
                cpu_total += cpu;
                ms.push(t);
                let bound = match res.status {
                    SearchStatus::Optimal => {
                        proven += 1;
                        res.cost
                    }
                    SearchStatus::LimitWithAnswer { lower_bound } => lower_bound,
                    _ => f64::NAN,
                };
                println!(
                    "  applicant {k}: search {:?} nodes {} cost {:.6} bound {bound:.4} {t:.0} ms (cpu {cpu:.0} ms), {} options fixed",
                    res.status,
                    res.nodes,
                    res.cost,
                    ts.fixed_options()
                );
                continue;
            }
            let (ex, t, cpu) = timed(&schema, &model, r, &search)?;
            ms.push(t);
            cpu_total += cpu;
            if ex.outcome == Outcome::Optimal {
                proven += 1;
            }
            let cost = ex.counterfactuals.first().map(|c| c.cost);
            let mut line = format!(
                "  applicant {k}: tree search {:?} {t:.1} ms (cpu {cpu:.1} ms) cost {}",
                ex.outcome,
                cost.map_or("-".into(), |c| format!("{c:.6}"))
            );
            if k < highs_n {
                h_runs += 1;
            }
            let answer = if k >= highs_n {
                None
            } else if highs_child {
                let deadline = HIGHS_GRACE.0 * highs_limit + HIGHS_GRACE.1;
                let got = highs_in_child(name, k, highs_limit, deadline)?;
                if got.is_none() {
                    overran.push(k);
                    line += &format!("; highs killed after {deadline:.0} s (time limit not held)");
                }
                got
            } else {
                let (hx, ht, _) = timed(&schema, &model, r, &highs)?;
                Some(HighsAnswer::of(&hx, ht))
            };
            if let Some(h) = answer {
                let (ht, hcost) = (h.ms, h.cost);
                if h.outcome == "optimal" || h.outcome == "infeasible" {
                    h_proven += 1;
                } else if hcost.is_some() {
                    h_at_limit += 1;
                } else {
                    h_none += 1;
                }
                highs_ms.push(ht);
                line += &format!(
                    "; highs {} {ht:.0} ms cost {}",
                    h.outcome,
                    hcost.map_or("-".into(), |c| format!("{c:.6}"))
                );
                if ex.outcome == Outcome::Optimal && h.outcome == "optimal" {
                    compared += 1;
                    let same = match (cost, hcost) {
                        (Some(a), Some(b)) => (a - b).abs() <= 1e-9 * a.abs().max(1.0),
                        _ => false,
                    };
                    if same {
                        identical += 1;
                    } else {
                        line += "  ← COSTS DIFFER";
                    }
                }
                // Both proven infeasible also agree.
                if matches!(ex.outcome, Outcome::Infeasible { .. }) && h.outcome == "infeasible" {
                    compared += 1;
                    identical += 1;
                }
            }
            // Every applicant's line, before the next solve starts: a run
            // that stops shows where.
            println!("{line}");
        }
        if highs_solve {
            continue;
        }
        if !overran.is_empty() {
            lines.push(format!(
                "trees_scale: {name}: highs killed past its time limit on {} applicants: {overran:?}",
                overran.len()
            ));
        }
        if strict && (identical != ms.len() || compared != ms.len()) {
            failures.push(format!(
                "{name}: identical on {identical} of {} applicants ({compared} compared)",
                ms.len()
            ));
        }
        let (t, h) = (median(&mut ms), median(&mut highs_ms));
        println!("  {name}: tree search cpu {:.1} s in all", cpu_total * 1e-3);
        lines.push(format!(
            "trees_scale: {name}: proven {proven}/{}, median {t:.1} ms (highs median {h:.0} ms, {:.0}×), identical costs on {identical}/{compared}; highs on {h_runs}/{} ({highs_limit:.0} s each): proven {h_proven}, answer at its limit {h_at_limit}, none {h_none}, killed {}",
            ms.len(),
            h / t,
            ms.len(),
            overran.len()
        ));
    }
    for l in &lines {
        println!("{l}");
    }
    if !failures.is_empty() {
        return Err(format!("trees_scale --strict: {}", failures.join("; ")).into());
    }
    Ok(())
}
