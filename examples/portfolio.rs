//! Both solvers of the coherent program side by side on a whole declined book,
//! then a million applicants streamed through the portfolio call.
//!
//! `cargo run --release --example portfolio -- [heloc|german|taiwan] [ROWS] [THREADS]`
//! explains every declined held-out applicant with the separable solver and
//! with HiGHS (one thread, one call of `coherent::explain` each, timed end to
//! end: input checks, solve, decode and the answer's change list); then it
//! writes ROWS applicants (default 1,000,000; 0 skips this part), resampled
//! from the declined rows (seeded) with every in-range value moved by up to two
//! grid steps (so that rows differ), to a temporary CSV, and streams them
//! through `coherent::portfolio::explain_portfolio` on THREADS worker threads
//! (default 1) into a temporary JSON-lines file (both removed afterwards).
//!
//! It prints percentiles of both solvers' times, the stream's counts and the
//! process's peak resident memory (Linux `VmHWM`) before and after the stream,
//! and as its last two lines (issue 14):
//!
//! `separable vs highs: median A µs vs B µs (R×), identical costs on N/M`
//! `portfolio: 1000000 applicants in S s on 1 thread (X per second)`
//!
//! `cargo run --release --example portfolio -- heloc-xgb [ROWS] [THREADS]`
//! streams ROWS (default 10,000) resampled declined HELOC applicants through
//! the portfolio call under the peer's 100-tree XGBoost model
//! (`target/peers/heloc_xgb.json`, `benches/peers/trees_train.py`), explained
//! by the exact tree search, and prints last, with the peak resident memory
//! before and after the stream,
//! `portfolio(trees): xgboost 100x4: 10000 applicants in S s on T threads`;
//! `heloc-xgb500` does the same under the peer's 500-tree model of depth 6
//! (`target/peers/heloc_xgb_500x6.json`). With a fourth argument `search`
//! (`-- heloc-xgb 1000 1 search`) it runs, instead of the stream, the tree
//! search alone (menus and search as `explain` builds them, one thread) on
//! the declined of the same resampled applicants, and prints the search
//! nodes and this thread's CPU time per declined applicant (with the
//! environment variable `CFX_DUMP` set, also one line per applicant on
//! stderr: nodes, menus' and search's CPU milliseconds, cost). A fifth
//! argument `strong=K,AFTER,RELIABLE` sets that search's branching
//! (`TreeSearch::set_strong_branching(K, AFTER, RELIABLE)`; `strong=1`: the
//! single rule alone) instead of the default; an argument `dominated=keep`
//! keeps each tree's dominated leaves in the feature-budget bound
//! (`TreeSearch::set_budget_dominance(false)`); a fifth (or sixth) argument
//! `roots=K` writes the roots of the K applicants whose searches took the
//! most nodes, as the feature-budget bound reads them
//! (`TreeSearch::root_leaves`, with the proven optimum and the node count),
//! to `target/peers/tree_roots/NN.json` for
//! `benches/peers/tree_root_relaxations.py` (BENCHMARKS.md §4).
//!
//! where R = B / A and N counts the applicants whose two answers are equally
//! feasible and cost the same within 1e-9 relative. Timing belongs here, not
//! in the tests.

#[path = "common/thread_cpu.rs"]
mod thread_cpu;
use cfx::coherent::portfolio::{PortfolioOptions, explain_portfolio};
use cfx::coherent::separable::Workspace;
use cfx::coherent::tree_search::{SearchStatus, TreeSearch};
use cfx::coherent::{Config, Explanation, SolverChoice, explain};
use cfx::data::{bundled_german_path, german_credit, heloc, shared_data_dir, taiwan};
use cfx::model::{LinearModel, LogisticFit, Model};
use cfx::schema::{FeatureKind, Schema, fmt_num};
use rand::{Rng, SeedableRng};
use rand_xoshiro::Xoshiro256PlusPlus;
use std::io::Write;
use std::time::Instant;

/// Peak resident memory of this process in MiB (Linux; NaN elsewhere).
fn peak_rss_mib() -> f64 {
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|s| {
            s.lines()
                .find(|l| l.starts_with("VmHWM:"))
                .and_then(|l| l.split_whitespace().nth(1)?.parse::<f64>().ok())
        })
        .map_or(f64::NAN, |kib| kib / 1024.0)
}

/// A declined row with each in-range contiguous value moved by up to two grid
/// steps (one unit when not on a grid), kept inside its actionable range.
fn jittered(schema: &Schema, row: &[f64], rng: &mut Xoshiro256PlusPlus) -> Vec<f64> {
    let mut out = row.to_vec();
    for (i, f) in schema.features.iter().enumerate() {
        if let FeatureKind::Contiguous {
            lower, upper, step, ..
        } = &f.kind
        {
            if f.state_of(row[i]).ok() == Some(0) {
                let g = step.unwrap_or(1.0);
                let v = row[i] + g * rng.random_range(-2..=2) as f64;
                if v >= *lower && v <= *upper {
                    out[i] = v;
                }
            }
        }
    }
    out
}

/// `n` applicants resampled from `declined` (seeded), each jittered, one at
/// a time (a million rows are never held at once).
fn resampled<'a>(
    schema: &'a Schema,
    declined: &'a [Vec<f64>],
    n: usize,
) -> impl Iterator<Item = Vec<f64>> + 'a {
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(14);
    (0..n).map(move |_| {
        let k = rng.random_range(0..declined.len());
        jittered(schema, &declined[k], &mut rng)
    })
}

/// Writes `n` resampled applicants as CSV (the schema's columns, levels by name).
fn write_applicants(
    schema: &Schema,
    declined: &[Vec<f64>],
    n: usize,
    path: &std::path::Path,
) -> std::io::Result<()> {
    let mut w = std::io::BufWriter::new(std::fs::File::create(path)?);
    let names: Vec<&str> = schema.features.iter().map(|f| f.name.as_str()).collect();
    writeln!(w, "{}", names.join(","))?;
    for row in resampled(schema, declined, n) {
        let cells: Vec<String> = schema
            .features
            .iter()
            .zip(&row)
            .map(|(f, &v)| match &f.kind {
                FeatureKind::Categorical { levels } => levels[v as usize].clone(),
                FeatureKind::Contiguous { .. } => fmt_num(v),
            })
            .collect();
        writeln!(w, "{}", cells.join(","))?;
    }
    w.flush()
}

fn percentile(sorted: &[f64], p: f64) -> f64 {
    sorted[((sorted.len() - 1) as f64 * p).round() as usize]
}

fn timed(
    schema: &cfx::schema::Schema,
    model: &LinearModel,
    rows: &[Vec<f64>],
    solver: SolverChoice,
) -> cfx::Result<(Vec<f64>, Vec<Explanation>)> {
    let config = Config {
        solver,
        ..Config::default()
    };
    let mut micros = Vec::with_capacity(rows.len());
    let mut answers = Vec::with_capacity(rows.len());
    for r in rows {
        let t = Instant::now();
        let ex = explain(schema, model, r, &config)?;
        micros.push(t.elapsed().as_secs_f64() * 1e6);
        answers.push(ex);
    }
    Ok((micros, answers))
}

/// Writes `n` applicants resampled from `declined` to a temporary CSV, streams
/// them through `explain_portfolio` on `threads` workers into a temporary JSON
/// lines file (both removed afterwards), and returns the summary and the
/// stream's seconds.
fn stream(
    schema: &Schema,
    model: &dyn Model,
    declined: &[Vec<f64>],
    n: usize,
    threads: usize,
) -> cfx::Result<(cfx::coherent::portfolio::PortfolioSummary, f64)> {
    let dir = std::env::temp_dir();
    let input = dir.join(format!("cfx-portfolio-{}.csv", std::process::id()));
    let output = dir.join(format!("cfx-portfolio-{}.jsonl", std::process::id()));
    write_applicants(schema, declined, n, &input)
        .map_err(|e| cfx::Error::Io(format!("cannot write {}: {e}", input.display())))?;
    let config = Config {
        batch_threads: threads,
        ..Config::default()
    };
    let t = Instant::now();
    let summary = explain_portfolio(
        schema,
        model,
        &input,
        &output,
        &config,
        &PortfolioOptions::default(),
        &mut |_| true,
    );
    let s = t.elapsed().as_secs_f64();
    let _ = std::fs::remove_file(&input);
    let _ = std::fs::remove_file(&output);
    Ok((summary?, s))
}

/// Writes each root of `hardest` (nodes, applicant, optimum, root) to
/// `target/peers/tree_roots/NN.json`, NN its rank by nodes.
fn write_roots(
    hardest: &[(usize, usize, f64, cfx::coherent::tree_search::RootLeaves)],
) -> cfx::Result<()> {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("target/peers/tree_roots");
    let io = |e: std::io::Error| cfx::Error::Io(format!("{}: {e}", dir.display()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).map_err(io)?;
    for (rank, (nodes, applicant, optimum, root)) in hardest.iter().enumerate() {
        let doc = serde_json::json!({
            "applicant": applicant, "nodes": nodes, "optimum": optimum, "root": root,
        });
        std::fs::write(dir.join(format!("{rank:02}.json")), doc.to_string()).map_err(io)?;
    }
    println!(
        "portfolio(trees): the roots of the {} applicants with the most nodes written to {}",
        hardest.len(),
        dir.display()
    );
    Ok(())
}

/// The search-alone run's settings (see the module docs): the branching
/// (`strong=`), whether the bound keeps dominated leaves (`dominated=keep`),
/// and how many of the hardest roots to write (`roots=`).
#[derive(Clone, Copy)]
struct SearchSettings {
    strong: Option<[usize; 3]>,
    keep_dominated: bool,
    roots: usize,
}

/// The tree search alone on the declined of the `n` resampled applicants
/// (the menus and the search as `explain` builds and runs them, without its
/// decoding and checks): nodes and CPU per declined applicant; with `roots`
/// above 0, the roots of the `roots` applicants with the most nodes written
/// ([`write_roots`]).
fn search_alone(
    schema: &Schema,
    model: &cfx::model::TreeEnsemble,
    declined: &[Vec<f64>],
    n: usize,
    name: &str,
    settings: &SearchSettings,
) -> cfx::Result<()> {
    let SearchSettings {
        strong,
        keep_dominated,
        roots,
    } = *settings;
    let config = Config::default();
    // The roots of the applicants with the most nodes so far: (nodes,
    // applicant, optimum, root).
    let mut hardest: Vec<(usize, usize, f64, cfx::coherent::tree_search::RootLeaves)> = Vec::new();
    let need = model.score_threshold() + config.margin;
    let (mut ws, mut ts) = (Workspace::new(), TreeSearch::new());
    let mut nodes: Vec<usize> = Vec::new();
    let (mut proven, mut cpu, mut menus) = (0usize, 0.0, 0.0);
    for row in resampled(schema, declined, n) {
        if model.accepts(&schema.encode(&row)?) {
            continue;
        }
        let c0 = thread_cpu::thread_cpu_seconds();
        ws.build_tree_cells(schema, model, &row, &[])?;
        ts.prepare(&ws, schema, model)?;
        if let Some([k, after, reliable]) = strong {
            ts.set_strong_branching(k, after, reliable);
        }
        ts.set_budget_dominance(!keep_dominated);
        let c1 = thread_cpu::thread_cpu_seconds();
        let res = ts.solve(model, need, config.node_limit, f64::INFINITY);
        let c2 = thread_cpu::thread_cpu_seconds();
        if roots > 0 && (hardest.len() < roots || res.nodes > hardest[roots - 1].0) {
            if let Some(root) = ts.root_leaves(model, need) {
                hardest.push((res.nodes, nodes.len(), res.cost, root));
                hardest.sort_by(|a, b| b.0.cmp(&a.0).then(a.1.cmp(&b.1)));
                hardest.truncate(roots);
            }
        }
        cpu += c2 - c0;
        menus += c1 - c0;
        if std::env::var("CFX_DUMP").is_ok() {
            eprintln!(
                "{} {:.3} {:.3} {:.9}",
                res.nodes,
                1e3 * (c1 - c0),
                1e3 * (c2 - c1),
                res.cost
            );
        }
        proven += usize::from(matches!(
            res.status,
            SearchStatus::Optimal | SearchStatus::Infeasible
        ));
        nodes.push(res.nodes);
    }
    if roots > 0 {
        write_roots(&hardest)?;
    }
    let total: usize = nodes.iter().sum();
    let k = nodes.len().max(1);
    nodes.sort_unstable();
    let at = |p: f64| nodes.get(((nodes.len().max(1) - 1) as f64 * p).round() as usize);
    println!(
        "portfolio(trees): {name}: search alone on the {} declined of {n} applicants: proven {proven}, \
         nodes {total} ({:.1} per applicant, median {}, p99 {}, max {}), cpu {:.3} ms per applicant \
         ({:.3} ms of it menus)",
        nodes.len(),
        total as f64 / k as f64,
        at(0.5).copied().unwrap_or(0),
        at(0.99).copied().unwrap_or(0),
        nodes.last().copied().unwrap_or(0),
        1e3 * cpu / k as f64,
        1e3 * menus / k as f64
    );
    Ok(())
}

/// The HELOC book streamed under the peer's XGBoost model (see the module docs).
fn trees_portfolio(
    file: &str,
    name: &str,
    n: usize,
    threads: usize,
    search_only: bool,
    settings: &SearchSettings,
) -> cfx::Result<()> {
    let data = heloc(&shared_data_dir().join("heloc.csv"))?;
    let (train, test) = data.holdout_split();
    let mut schema = train.schema.clone();
    schema.fit_weights(&train.rows)?;
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("target/peers")
        .join(file);
    let json = std::fs::read_to_string(&path).map_err(|e| {
        cfx::Error::Io(format!(
            "{}: {e} (run benches/peers/trees_train.py)",
            path.display()
        ))
    })?;
    let model = cfx::model::TreeEnsemble::from_xgboost_json(
        &json,
        &schema,
        &cfx::model::trees::ImportOptions::default(),
    )?;
    let mut declined = Vec::new();
    for r in &test.rows {
        if !model.accepts(&schema.encode(r)?) {
            declined.push(r.clone());
        }
    }
    if search_only {
        return search_alone(&schema, &model, &declined, n, name, settings);
    }
    let before = peak_rss_mib();
    let (summary, s) = stream(&schema, &model, &declined, n, threads)?;
    let after = peak_rss_mib();
    println!(
        "portfolio(trees): {} declined, {} with recourse, {} errors; peak resident memory {before:.0} MiB before the stream, {after:.0} MiB after",
        summary.declined, summary.with_recourse, summary.errors
    );
    println!(
        "portfolio(trees): {name}: {} applicants in {s:.1} s on {threads} thread{}",
        summary.rows,
        if threads == 1 { "" } else { "s" }
    );
    Ok(())
}

fn main() -> cfx::Result<()> {
    let which = std::env::args().nth(1).unwrap_or_else(|| "heloc".into());
    if which == "heloc-xgb" || which == "heloc-xgb500" {
        let args: Vec<String> = std::env::args().collect();
        let n = args
            .get(2)
            .map_or(Ok(10_000), |s| s.parse::<usize>())
            .map_err(|_| cfx::Error::InvalidArgument("the row count is not a number".into()))?;
        let threads = args
            .get(3)
            .map_or(Ok(1), |s| s.parse::<usize>())
            .map_err(|_| cfx::Error::InvalidArgument("the thread count is not a number".into()))?;
        let (file, name) = if which == "heloc-xgb" {
            ("heloc_xgb.json", "xgboost 100x4")
        } else {
            ("heloc_xgb_500x6.json", "xgboost 500x6")
        };
        let search_only = args.get(4).is_some_and(|a| a == "search");
        let strong: Vec<usize> = args
            .iter()
            .skip(5)
            .find_map(|a| a.strip_prefix("strong="))
            .map(|a| a.split(',').filter_map(|s| s.parse().ok()).collect())
            .unwrap_or_default();
        let strong =
            (!strong.is_empty()).then(|| [0, 1, 2].map(|j| strong.get(j).copied().unwrap_or(0)));
        let roots = match args.iter().skip(5).find_map(|a| a.strip_prefix("roots=")) {
            Some(k) => k
                .parse::<usize>()
                .map_err(|_| cfx::Error::InvalidArgument("roots=K: K is not a number".into()))?,
            None => 0,
        };
        let settings = SearchSettings {
            strong,
            keep_dominated: args.iter().skip(5).any(|a| a == "dominated=keep"),
            roots,
        };
        return trees_portfolio(file, name, n, threads.max(1), search_only, &settings);
    }
    let data = match which.as_str() {
        "german" => german_credit(&bundled_german_path())?,
        "taiwan" => taiwan(&shared_data_dir().join("taiwan_default.csv"))?,
        "heloc" => heloc(&shared_data_dir().join("heloc.csv"))?,
        other => {
            return Err(cfx::Error::InvalidArgument(format!(
                "unknown data set '{other}' (heloc, german, taiwan, heloc-xgb or heloc-xgb500)"
            )));
        }
    };
    let (train, test) = data.holdout_split();
    let mut schema = train.schema.clone();
    schema.fit_weights(&train.rows)?;
    let model = LinearModel::fit(
        &schema.encode_rows(&train.rows)?,
        &train.labels,
        LogisticFit::default(),
    )?;
    let mut declined = Vec::new();
    for r in &test.rows {
        if !model.accepts(&schema.encode(r)?) {
            declined.push(r.clone());
        }
    }
    // One untimed pass each first, so that both start warm.
    let warm = &declined[..declined.len().min(20)];
    timed(&schema, &model, warm, SolverChoice::Separable)?;
    timed(&schema, &model, warm, SolverChoice::Mip)?;
    let (mut a, sep) = timed(&schema, &model, &declined, SolverChoice::Separable)?;
    let (mut b, mip) = timed(&schema, &model, &declined, SolverChoice::Mip)?;
    let identical = sep
        .iter()
        .zip(&mip)
        .filter(
            |(x, y)| match (x.counterfactuals.first(), y.counterfactuals.first()) {
                (Some(x), Some(y)) => {
                    (x.cost - y.cost).abs() <= 1e-9 * x.cost.abs().max(y.cost.abs()) + 1e-12
                }
                (None, None) => x.outcome == y.outcome,
                _ => false,
            },
        )
        .count();
    a.sort_by(f64::total_cmp);
    b.sort_by(f64::total_cmp);
    let (ma, mb) = (percentile(&a, 0.5), percentile(&b, 0.5));
    println!(
        "{which}: {} declined held-out applicants; separable p90 {:.1} µs, p99 {:.1} µs, max {:.1} µs; highs p90 {:.0} µs, p99 {:.0} µs, max {:.0} µs",
        declined.len(),
        percentile(&a, 0.9),
        percentile(&a, 0.99),
        a[a.len() - 1],
        percentile(&b, 0.9),
        percentile(&b, 0.99),
        b[b.len() - 1]
    );
    let side_by_side = format!(
        "separable vs highs: median {ma:.1} µs vs {mb:.0} µs ({:.0}×), identical costs on {identical}/{}",
        mb / ma,
        declined.len()
    );
    let args: Vec<String> = std::env::args().collect();
    let n = match args.get(2) {
        None => 1_000_000,
        Some(s) => s.parse::<usize>().map_err(|_| {
            cfx::Error::InvalidArgument(format!("the row count '{s}' is not a number"))
        })?,
    };
    let threads = match args.get(3) {
        None => 1,
        Some(s) => s.parse::<usize>().ok().filter(|&t| t > 0).ok_or_else(|| {
            cfx::Error::InvalidArgument(format!("the thread count '{s}' is not a positive number"))
        })?,
    };
    if n == 0 {
        println!("{side_by_side}");
        return Ok(());
    }
    let before = peak_rss_mib();
    let (summary, s) = stream(&schema, &model, &declined, n, threads)?;
    let after = peak_rss_mib();
    println!(
        "portfolio: {} declined, {} with recourse, {} errors; peak resident memory {before:.0} MiB before the stream, {after:.0} MiB after",
        summary.declined, summary.with_recourse, summary.errors
    );
    // The two lines of issue 14, last.
    println!("{side_by_side}");
    println!(
        "portfolio: {} applicants in {s:.1} s on {threads} thread{} ({:.0} per second)",
        summary.rows,
        if threads == 1 { "" } else { "s" },
        summary.rows as f64 / s
    );
    Ok(())
}
