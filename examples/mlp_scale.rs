//! The exact engine on ReLU networks of the sizes the literature reports
//! (Kanamori et al., DACE, IJCAI 2020: German with one hidden layer of 200
//! units, FICO/HELOC with 200), against the textbook big-M formulation.
//!
//! ```text
//! cargo run --release --example mlp_scale -- german heloc [--n 20] [--limit 60] [--no-reference] [--shape 1x200] [--from K]
//! ```
//!
//! Per data set it fits MLPs with cfx's own trainer (seed 0, default
//! settings) on the training part — German 1×200; HELOC 2×32 and 1×200 —,
//! takes the first `--n` held-out applicants each network declines, and
//! explains each twice on one thread: with the default program (first layer
//! bounded per feature, deeper layers by LP bound tightening, see the
//! exact-engine guide) and with the reference, the same engine with
//! `mlp_bound_tightening = false` (interval arithmetic over the box of the
//! encoded inputs, the plain big-M of Tjeng et al. 2019), each with a
//! `--limit` second time limit. Every answer is re-scored by the network's
//! own forward pass. `--shape` runs only the networks of that shape (`1x200`,
//! `2x32`); `--from K` skips the first K declined applicants (their numbers
//! then start at 0 again). Prints, per network:
//!
//! `mlp_scale: <data> <hidden layers>: proven P/N, median T ms (reference MIP median R ms), identical costs on M/M; CPU median C ms`
//!
//! "proven" counts applicants with an optimal answer or a proof that none
//! exists; "identical" compares the two programs' costs (1e-9 relative)
//! wherever both proved. Times are wall-clock milliseconds of `explain`,
//! bounds and program building included; "CPU" is the process's CPU time
//! of the default program's explanations (what a loaded machine does not
//! inflate). HELOC is read from the shared data
//! directory (`CFX_SHARED_DATA`, default `../shared/data`).

use cfx::coherent::{Config, Explanation, Outcome, explain};
use cfx::data::{Dataset, bundled_german_path, german_credit, heloc, shared_data_dir};
use cfx::model::{MlpModel, MlpTraining, Model};
use cfx::schema::Schema;

fn arg<T: std::str::FromStr>(args: &[String], name: &str, default: T) -> T {
    args.iter()
        .position(|a| a == name)
        .and_then(|k| args.get(k + 1))
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

fn median(mut v: Vec<f64>) -> f64 {
    if v.is_empty() {
        return f64::NAN;
    }
    v.sort_by(f64::total_cmp);
    let n = v.len();
    if n % 2 == 1 {
        v[n / 2]
    } else {
        0.5 * (v[n / 2 - 1] + v[n / 2])
    }
}

fn proven(ex: &Explanation) -> bool {
    matches!(ex.outcome, Outcome::Optimal | Outcome::Infeasible { .. })
}

/// The process's CPU time in milliseconds (`clock_gettime`), which a loaded
/// machine does not inflate as it does wall-clock time.
fn cpu_ms() -> f64 {
    let mut t = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: `t` is a valid timespec for the call to fill.
    let rc = unsafe { libc::clock_gettime(libc::CLOCK_PROCESS_CPUTIME_ID, &mut t) };
    if rc != 0 {
        return f64::NAN;
    }
    t.tv_sec as f64 * 1e3 + t.tv_nsec as f64 * 1e-6
}

/// One explanation with its wall-clock and CPU milliseconds.
fn timed(
    schema: &Schema,
    m: &MlpModel,
    row: &[f64],
    config: &Config,
) -> cfx::Result<(Explanation, f64, f64)> {
    let (t, c) = (std::time::Instant::now(), cpu_ms());
    let ex = explain(schema, m, row, config)?;
    Ok((ex, t.elapsed().as_secs_f64() * 1e3, cpu_ms() - c))
}

/// Explains the first `n` declined held-out applicants of one network.
fn run(
    data: &str,
    train: &Dataset,
    test: &Dataset,
    schema: &Schema,
    hidden: &[usize],
    args: &[String],
) -> cfx::Result<()> {
    let shape = if hidden.iter().all(|&h| h == hidden[0]) {
        format!("{}x{}", hidden.len(), hidden[0])
    } else {
        format!("{hidden:?}")
    };
    let wanted = args
        .iter()
        .position(|a| a == "--shape")
        .and_then(|k| args.get(k + 1));
    if wanted.is_some_and(|s| *s != shape) {
        return Ok(());
    }
    let n: usize = arg(args, "--n", 20);
    let limit: f64 = arg(args, "--limit", 60.0);
    let reference = !args.iter().any(|a| a == "--no-reference");
    let opts = MlpTraining {
        hidden: hidden.to_vec(),
        ..MlpTraining::default()
    };
    let t = std::time::Instant::now();
    let m = MlpModel::train(&train.encoded(), &train.labels, &opts)?;
    let fit_s = t.elapsed().as_secs_f64();
    let declined: Vec<&Vec<f64>> = test
        .rows
        .iter()
        .filter(|r| schema.encode(r).is_ok_and(|e| !m.accepts(&e)))
        .skip(arg(args, "--from", 0))
        .take(n)
        .collect();
    let config = Config {
        time_limit_seconds: limit,
        ..Config::default()
    };
    let plain = Config {
        mlp_bound_tightening: false,
        ..config
    };
    let (mut ms, mut cpu, mut ref_ms) = (Vec::new(), Vec::new(), Vec::new());
    let (mut n_proven, mut both, mut same) = (0, 0, 0);
    for (k, row) in declined.iter().enumerate() {
        let (ex, t, c) = timed(schema, &m, row, &config)?;
        ms.push(t);
        cpu.push(c);
        n_proven += usize::from(proven(&ex));
        for cf in &ex.counterfactuals {
            assert!(m.accepts(&schema.encode(&cf.raw)?), "the network declines");
        }
        let cost = ex.counterfactuals.first().map(|c| c.cost);
        let line = format!(
            "{data} {hidden:?} #{k}: {:?} {cost:?} {t:.0} ms (CPU {c:.0} ms)",
            ex.outcome
        );
        if reference {
            let (rx, rt, _) = timed(schema, &m, row, &plain)?;
            ref_ms.push(rt);
            let rcost = rx.counterfactuals.first().map(|c| c.cost);
            if proven(&ex) && proven(&rx) {
                both += 1;
                let eq = match (cost, rcost) {
                    (Some(a), Some(b)) => (a - b).abs() <= 1e-9 * a.abs().max(b.abs()).max(1.0),
                    (None, None) => true,
                    _ => false,
                };
                same += usize::from(eq);
            }
            eprintln!("{line}; reference {:?} {rcost:?} {rt:.0} ms", rx.outcome);
        } else {
            eprintln!("{line}");
        }
    }
    let shape = shape.replace('x', "×");
    eprintln!("{data} {shape}: fitted in {fit_s:.1} s");
    println!(
        "mlp_scale: {data} {shape}: proven {n_proven}/{}, median {:.0} ms (reference MIP median {:.0} ms), identical costs on {same}/{both}; CPU median {:.0} ms",
        declined.len(),
        median(ms),
        median(ref_ms),
        median(cpu),
    );
    Ok(())
}

fn main() -> cfx::Result<()> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let wanted = |d: &str| args.iter().any(|a| a == d);
    if wanted("german") {
        let data = german_credit(&bundled_german_path())?;
        let (train, test) = data.holdout_split();
        let mut schema = train.schema.clone();
        schema.fit_weights(&train.rows)?;
        run("german", &train, &test, &schema, &[200], &args)?;
    }
    if wanted("heloc") {
        let data = heloc(&shared_data_dir().join("heloc.csv"))?;
        let (train, test) = data.holdout_split();
        let mut schema = train.schema.clone();
        schema.fit_weights(&train.rows)?;
        run("heloc", &train, &test, &schema, &[32, 32], &args)?;
        run("heloc", &train, &test, &schema, &[200], &args)?;
    }
    Ok(())
}
