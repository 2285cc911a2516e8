//! `cfx revalidate`: a ledger of given advice re-checked under a new model
//! (`cfx::revalidate::revalidate_ledger`), broken promises repaired, and the
//! deployment report for a model-risk committee.

use crate::common::{self, Failure, ModelArgs};
use cfx::coherent::Config;
use cfx::revalidate::{DeploymentReport, RevalidateOptions, revalidate_ledger};
use std::path::PathBuf;

/// Re-validates a ledger of given advice under a new model.
#[derive(clap::Args, Debug)]
#[command(after_help = "\
Examples:
  cfx revalidate --schema schema.json --ledger ledger.jsonl \\
      --new-model xgb-2026.json --options '{\"favourable_class\": 0}' \\
      --old-label 'scorecard 2025-Q4' --new-label 'XGBoost 2026' \\
      -o revalidated.jsonl --report report.html

Each output line is one ledger record: kept (the new model still accepts the advice) or
broken, with its repair from the advised row. The report counts them and draws the
broken share, the extra cost and the features behind the breaks.")]
pub struct Args {
    /// The schema the advice was issued under.
    #[arg(long, short = 's', value_name = "FILE")]
    schema: PathBuf,
    /// The ledger (JSON lines of given advice, e.g. from `cfx book --ledger`).
    #[arg(long, value_name = "FILE")]
    ledger: PathBuf,
    #[command(flatten)]
    model: NewModel,
    /// Where the re-validated records go (JSON lines).
    #[arg(long, short = 'o', value_name = "FILE")]
    output: PathBuf,
    /// The deployment report as an HTML page.
    #[arg(long, value_name = "FILE")]
    report: Option<PathBuf>,
    /// The report as JSON (the bytes cfx_deployment_report_to_json writes).
    #[arg(long, value_name = "FILE")]
    report_json: Option<PathBuf>,
    /// Worker threads (0: every core).
    #[arg(long, default_value_t = 0, value_name = "N")]
    threads: usize,
    /// Seconds the solver may take per repair.
    #[arg(long, default_value_t = 10.0, value_name = "SECONDS")]
    time_limit: f64,
    #[command(flatten)]
    limit: common::NodeLimit,
    /// Continue a re-validation that was killed or cancelled from its partial file beside
    /// OUTPUT (checked against the ledger, the model and the settings; a mismatch is
    /// refused). The result is byte-identical to an uninterrupted run. Without --resume a
    /// run starts afresh and, once complete, removes what interrupted runs of OUTPUT left.
    #[arg(long)]
    resume: bool,
    /// The report's name for the model(s) the ledger's advice was issued under
    /// ("scorecard 2025-Q4"), shown beside each fingerprint.
    #[arg(long, value_name = "LABEL")]
    old_label: Option<String>,
    /// The report's name for the new model ("XGBoost challenger").
    #[arg(long, value_name = "LABEL")]
    new_label: Option<String>,
}

/// The new model: the same arguments as every command's model, named for
/// what it is here.
#[derive(clap::Args, Debug)]
struct NewModel {
    /// The new model file.
    #[arg(long = "new-model", value_name = "FILE")]
    model: PathBuf,
    /// Its format (see `cfx explain --help`); guessed from the name when left out.
    #[arg(long)]
    format: Option<String>,
    /// Its import options (JSON inline or a file).
    #[arg(long, value_name = "JSON|FILE")]
    options: Option<String>,
}

pub fn run(a: Args) -> Result<(), Failure> {
    common::check_output(&a.output, &[&a.ledger])?;
    common::note_stale_partials(&a.output, a.resume);
    for extra in [&a.report, &a.report_json].into_iter().flatten() {
        common::check_output(extra, &[&a.ledger, &a.output])?;
    }
    let schema = common::read_schema(&a.schema)?;
    let model = ModelArgs {
        model: a.model.model.clone(),
        format: a.model.format.clone(),
        options: a.model.options.clone(),
    };
    let loaded = model.load(&schema)?;
    let config = a.limit.apply(Config {
        batch_threads: a.threads,
        time_limit_seconds: a.time_limit,
        ..Config::default()
    });
    // A bad setting is bad input (2).
    config.validate()?;
    let report = revalidate_ledger(
        &schema,
        &loaded.model,
        &a.ledger,
        &a.output,
        &config,
        &RevalidateOptions {
            resume: a.resume,
            old_model_label: a.old_label.clone(),
            new_model_label: a.new_label.clone(),
            ..RevalidateOptions::default()
        },
    )?;
    if let Some(h) = &a.report {
        let html = report.to_html(DeploymentReport::DEFAULT_TITLE);
        cfx::output::write_file(h, &[&a.ledger, &a.output], html.as_bytes())?;
    }
    if let Some(j) = &a.report_json {
        // The bytes of cfx_deployment_report_to_json.
        let json = serde_json::to_string(&report).map_err(|e| Failure::of(e.into()))?;
        cfx::output::write_file(j, &[&a.ledger, &a.output], json.as_bytes())?;
    }
    common::print(&format!(
        "{} records: {} kept, {} broken ({} repaired, {} without repair), {} errors; \
         re-validated records in '{}'\n",
        report.records,
        report.kept,
        report.broken,
        report.repaired,
        report.no_repair,
        report.errors,
        a.output.display()
    ))
}
