//! The bank's HELOC model in each form it may live in — a PMML scorecard, a
//! PMML boosted model, ONNX logistic regression, tree ensemble and ReLU MLP,
//! CatBoost and an EBM — each made by its real producer
//! (`benches/peers/model_formats_peers.py write`, into `target/peers/formats/`),
//! read by cfx's importer, checked on every HELOC row against the producer's
//! own evaluation, and explained: the first declined held-out applicants
//! (row i with i mod 10 ≥ 7) by cfx's exact engine, each counterfactual then
//! re-scored by the producer's evaluator (`model_formats_peers.py rescore`,
//! run from here as a child process in the producers' environments). One line
//! per model:
//!
//! ```text
//! model_formats: <format> <model>: scores equal R/R rows; counterfactuals proven P/N, accepted by <evaluator> A/N; median T ms
//! ```
//!
//! "Equal" is each format's exactness as the import tests define it: a PMML
//! scorecard's score to the bit (jpmml-evaluator sums the same doubles in the
//! same order); a PMML double-precision tree model's probability within 1e-9
//! relative (float32 models: 4e-7, jpmml's single-precision logistic);
//! onnxruntime's float32 probability within 2⁻²² for trees (same leaves, same
//! float32 sum, only the logistic differs) and 1e-6 for linear and MLP graphs
//! (cfx evaluates the float32 weights in f64 on the uncast inputs); CatBoost's
//! and interpret's margins within 1e-9 relative. A counterfactual is
//! "accepted" when the producer's evaluator puts it on the accepted side of
//! the cutoff: score ≥ the scorecard's cutoff, probability of Good > ½.
//! Proven: the engine's outcome is `Optimal`; an applicant whose search hit
//! the time limit with an answer has that answer re-scored too. T is the
//! wall time of one `explain` call (one thread), median over the applicants.
//!
//! ```sh
//! make model-formats        # the producers' files, then this example
//! cargo run --release --example model_formats -- heloc [--n 20] [--limit 30] [--dir DIR]
//! ```

use cfx::coherent::{Config, Outcome, explain};
use cfx::data::{heloc, shared_data_dir};
use cfx::model::onnx::{OnnxOptions, from_onnx_file};
use cfx::model::pmml::{Accept, PmmlOptions, from_pmml_file};
use cfx::model::trees::{ImportOptions, Source};
use cfx::model::{AnyModel, Model, TreeEnsemble, sigmoid};
use cfx::schema::Schema;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Instant;

// `equal_rows` there compares margins at 1e-6; the formats here have their own rules.
#[allow(dead_code)]
#[path = "common/peer_models.rs"]
mod peer_models;
use peer_models::{margins, median};

/// The scorecard's cutoff: the points at probability ½ of its scaling (the
/// optbinning table's, `examples/scorecard_heloc.rs`).
const CUTOFF: f64 = 630.4667319422892;

/// What a file's rows are compared on, and how closely (see the module docs).
#[derive(Clone, Copy)]
enum Exactness {
    /// The scorecard's points, to the bit.
    Points,
    /// P(Good) from the tree margin, within this relative tolerance.
    TreeProbability(f64),
    /// P(Good) of the model, within this absolute tolerance.
    Probability(f64),
    /// The tree margin, within 1e-9 relative.
    Margin,
}

struct Spec {
    format: &'static str,
    model: &'static str,
    /// File stem in the peers' folder: `<stem>.<ext>`, `<stem>_scores.csv`.
    stem: &'static str,
    ext: &'static str,
    evaluator: &'static str,
}

const SPECS: [Spec; 7] = [
    Spec {
        format: "PMML",
        model: "scorecard",
        stem: "heloc_scorecard",
        ext: "pmml",
        evaluator: "jpmml-evaluator",
    },
    Spec {
        format: "PMML",
        model: "LightGBM 50x8 of default",
        stem: "heloc_lgbm",
        ext: "pmml",
        evaluator: "jpmml-evaluator",
    },
    Spec {
        format: "ONNX",
        model: "logistic",
        stem: "heloc_logistic",
        ext: "onnx",
        evaluator: "onnxruntime",
    },
    Spec {
        format: "ONNX",
        model: "gradient boosting 100x3",
        stem: "heloc_gb",
        ext: "onnx",
        evaluator: "onnxruntime",
    },
    Spec {
        format: "ONNX",
        model: "MLP 1x16",
        stem: "heloc_mlp",
        ext: "onnx",
        evaluator: "onnxruntime",
    },
    Spec {
        format: "CatBoost",
        model: "100x4",
        stem: "heloc_catboost",
        ext: "json",
        evaluator: "catboost",
    },
    Spec {
        format: "EBM",
        model: "23 terms + 5 pairs",
        stem: "heloc_ebm",
        ext: "json",
        evaluator: "interpret",
    },
];

/// Reads one producer's file with cfx's importer for it. The class the bank
/// wants is Good: class 1 of every model but the PMML LightGBM, a model of
/// default whose class 0 is declared favourable (cfx negates its margin, so
/// the probability compared is P(Good) = jpmml-evaluator's probability(0));
/// the scorecard accepts at or above its cutoff. Returns the model and how
/// its rows are compared.
fn read(spec: &Spec, path: &Path, schema: &Schema) -> cfx::Result<(AnyModel, Exactness)> {
    let trees = ImportOptions {
        favourable_class: Some(1),
        ..Default::default()
    };
    Ok(match (spec.format, spec.model) {
        ("PMML", "scorecard") => {
            let opts = PmmlOptions {
                accept: Some(Accept::AtOrAbove),
                cutoff: Some(CUTOFF),
                ..Default::default()
            };
            (from_pmml_file(path, schema, &opts)?, Exactness::Points)
        }
        ("PMML", _) => {
            let opts = PmmlOptions {
                favourable_class: Some("0".into()),
                ..Default::default()
            };
            let m = from_pmml_file(path, schema, &opts)?;
            let float = m.as_trees().map(TreeEnsemble::source) == Some(Source::PmmlF32);
            (
                m,
                Exactness::TreeProbability(if float { 4e-7 } else { 1e-9 }),
            )
        }
        ("ONNX", _) => {
            let opts = OnnxOptions {
                favourable_class: Some(1),
                ..Default::default()
            };
            let m = from_onnx_file(path, schema, &opts)?;
            let tol = if m.as_trees().is_some() {
                2f64.powi(-22)
            } else {
                1e-6
            };
            (m, Exactness::Probability(tol))
        }
        ("CatBoost", _) => (
            AnyModel::Trees(TreeEnsemble::from_catboost_json(
                &std::fs::read_to_string(path)?,
                schema,
                &trees,
            )?),
            Exactness::Margin,
        ),
        _ => (
            AnyModel::Trees(TreeEnsemble::from_ebm_json(
                &std::fs::read_to_string(path)?,
                schema,
                &trees,
            )?),
            Exactness::Margin,
        ),
    })
}

/// How far cfx's score of `raw` lies from the producer's (`want`) on `how`'s
/// quantity, and whether that is within `how`'s tolerance (a row cfx cannot
/// encode, or a rule that does not fit the model, is never equal).
fn compare(m: &AnyModel, schema: &Schema, raw: &[f64], want: f64, how: Exactness) -> (f64, bool) {
    let Ok(x) = schema.encode(raw) else {
        return (f64::INFINITY, false);
    };
    let (got, tol) = match (how, m.as_trees()) {
        (Exactness::Points, _) => (m.score(&x), 0.0),
        (Exactness::TreeProbability(rel), Some(t)) => (sigmoid(t.margin_raw(raw)), rel * want),
        (Exactness::Probability(abs), _) => (m.probability(&x), abs),
        (Exactness::Margin, Some(t)) => (t.margin_raw(raw), 1e-9 * want.abs().max(1.0)),
        _ => return (f64::INFINITY, false),
    };
    let delta = (got - want).abs();
    (delta, delta <= tol)
}

/// One model's counts, before the producer's re-scoring.
struct Run {
    equal: usize,
    rows: usize,
    proven: usize,
    millis: Vec<f64>,
}

fn arg<T: std::str::FromStr>(args: &[String], name: &str, default: T) -> Result<T, String> {
    match args.iter().position(|a| a == name) {
        None => Ok(default),
        Some(k) => args
            .get(k + 1)
            .and_then(|v| v.parse().ok())
            .ok_or_else(|| format!("{name} needs a value")),
    }
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    if args.first().map(String::as_str) != Some("heloc") {
        return Err(
            "usage: model_formats heloc [--n N] [--limit SECONDS] [--dir DIR] \
                    (the models are trained on HELOC)"
                .into(),
        );
    }
    let n: usize = arg(&args, "--n", 20)?;
    let limit: f64 = arg(&args, "--limit", 30.0)?;
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    let dir: PathBuf = arg(&args, "--dir", root.join("target/peers/formats"))?;
    let d = heloc(&shared_data_dir().join("heloc.csv"))?;
    let (train, _) = d.holdout_split();
    let mut schema = train.schema.clone();
    schema.fit_weights(&train.rows)?;
    let config = Config {
        time_limit_seconds: limit,
        ..Config::default()
    };

    let mut runs = Vec::new();
    for spec in &SPECS {
        let path = dir.join(format!("{}.{}", spec.stem, spec.ext));
        if !path.exists() {
            return Err(format!(
                "{} is absent: run `make model-formats` (or python3 \
                 benches/peers/model_formats_peers.py write)",
                path.display()
            )
            .into());
        }
        let (m, how) = read(spec, &path, &schema)?;
        let want = margins(&dir.join(format!("{}_scores.csv", spec.stem)))?;
        if want.len() != d.rows.len() {
            return Err(format!(
                "{}_scores.csv has {} rows, HELOC {}",
                spec.stem,
                want.len(),
                d.rows.len()
            )
            .into());
        }
        let (mut equal_rows, mut worst) = (0, 0.0f64);
        for (r, w) in d.rows.iter().zip(&want) {
            let (delta, equal) = compare(&m, &schema, r, *w, how);
            equal_rows += usize::from(equal);
            worst = worst.max(delta);
        }
        // The first n declined held-out applicants, explained; every answer
        // written for the producer's re-scoring.
        let mut out = format!(
            "row,outcome,{}\n",
            schema
                .features
                .iter()
                .map(|f| f.name.as_str())
                .collect::<Vec<_>>()
                .join(",")
        );
        let mut run = Run {
            equal: equal_rows,
            rows: d.rows.len(),
            proven: 0,
            millis: Vec::new(),
        };
        for (i, r) in d.rows.iter().enumerate().filter(|(i, _)| i % 10 >= 7) {
            if run.millis.len() == n {
                break;
            }
            if m.accepts(&schema.encode(r)?) {
                continue;
            }
            let t = Instant::now();
            let e = explain(&schema, &m, r, &config)?;
            run.millis.push(t.elapsed().as_secs_f64() * 1e3);
            let outcome = match e.outcome {
                Outcome::Optimal => "optimal",
                Outcome::TimeLimit { .. } => "time_limit",
                _ => "other",
            };
            run.proven += usize::from(e.outcome == Outcome::Optimal);
            if let Some(cf) = e.counterfactuals.first() {
                let vals: Vec<String> = cf.raw.iter().map(|v| format!("{v:?}")).collect();
                out.push_str(&format!("{i},{outcome},{}\n", vals.join(",")));
            }
            eprint!(".");
        }
        eprintln!(
            " {} {}: largest |cfx − producer| {worst:e}",
            spec.format, spec.model
        );
        std::fs::write(dir.join(format!("{}_counterfactuals.csv", spec.stem)), out)?;
        let _ = std::fs::remove_file(dir.join(format!("{}_rescored.csv", spec.stem)));
        runs.push(run);
    }

    // The producers re-score the answers (their output on stderr: stdout is the lines).
    let script = root.join("benches/peers/model_formats_peers.py");
    let status = Command::new("python3")
        .arg(&script)
        .arg("rescore")
        .arg("--dir")
        .arg(&dir)
        .stdout(Stdio::from(std::io::stderr()))
        .status()?;
    if !status.success() {
        return Err(format!("{} rescore failed ({status})", script.display()).into());
    }
    let mut stdout = std::io::stdout().lock();
    for (spec, run) in SPECS.iter().zip(&mut runs) {
        let rescored = std::fs::read_to_string(dir.join(format!("{}_rescored.csv", spec.stem)))?;
        let accepted = rescored
            .lines()
            .skip(1)
            .filter(|l| l.ends_with(",1"))
            .count();
        let asked = run.millis.len();
        writeln!(
            stdout,
            "model_formats: {} {}: scores equal {}/{} rows; counterfactuals proven {}/{asked}, \
             accepted by {} {accepted}/{asked}; median {:.2} ms",
            spec.format,
            spec.model,
            run.equal,
            run.rows,
            run.proven,
            spec.evaluator,
            median(&mut run.millis)
        )?;
    }
    Ok(())
}
