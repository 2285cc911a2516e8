//! `cfx notices`: adverse-action notices for a whole book through the
//! library's `cfx::notice::notices_csv`, one JSON line per declined
//! applicant, optionally with the notices' advice ledger.

use crate::common::{self, Failure, ModelArgs};
use cfx::coherent::{Config, Robustness};
use cfx::data::Dataset;
use cfx::notice::{
    DEFAULT_NOTICE_ROBUSTNESS, NoticeBookOptions, NoticeOptions, ReasonOptions, ReasonTable,
    Reference, ReferenceKind, notices_csv,
};
use std::path::PathBuf;

/// Adverse-action notices (principal reasons and advice) for every declined applicant.
#[derive(clap::Args, Debug)]
#[command(after_help = "\
Examples:
  cfx notices -s schema.json -m model.json --reference applicants.csv \\
      --reasons german_reasons.csv applicants.csv -o notices.jsonl
  cfx notices -s schema.json -m model.json --reference book.csv --at-cutoff 0.5 \\
      --ignore default --id-column id --ledger ledger.jsonl book.csv -o notices.jsonl

Each line is one declined applicant, in input order: {\"notice\": {…}, \"row\": k}
(and \"id\" with --id-column), or {\"error\": …, \"row\": k}; accepted applicants get
no line. A notice ranks the principal reasons against the reference population
(Regulation B's comment 9(b)(2)-5: all applicants, or those at or slightly above the
cut-off) and carries the exact engine's cheapest change, its waiting option and its
robust version, each reason marked by whether the advice acts on it. The outputs are
replaced only once the whole book is done; they may not be an input.")]
pub struct Args {
    /// The schema JSON.
    #[arg(long, short = 's', value_name = "FILE")]
    schema: PathBuf,
    #[command(flatten)]
    model: ModelArgs,
    /// The applicants' CSV (a header naming the schema's features).
    #[arg(value_name = "APPLICANTS.csv")]
    input: PathBuf,
    /// Where the JSON lines go.
    #[arg(long, short = 'o', value_name = "FILE")]
    output: PathBuf,
    /// The reference population: a CSV of applicants under the schema (other columns ignored).
    #[arg(long, value_name = "FILE")]
    reference: PathBuf,
    /// Rank against the accepted applicants scoring at most this far above the cut-off
    /// (log-odds; points for a scorecard) instead of against all applicants.
    #[arg(long, value_name = "BAND")]
    at_cutoff: Option<f64>,
    /// The bank's reason table (CSV feature,direction,code,statement, or JSON).
    #[arg(long, value_name = "FILE")]
    reasons: Option<PathBuf>,
    /// At most this many principal reasons.
    #[arg(long, default_value_t = 4, value_name = "N")]
    max_reasons: usize,
    /// Skip the necessity proofs (one re-solve per changed feature).
    #[arg(long)]
    no_necessity: bool,
    /// The robust version's slip variance σ² and largest invalidation rate, or "none"
    /// [default: 0.01,0.1]; a third part picks a tree ensemble's box: "reals" (the default) or
    /// "reachable-values" (slips clipped to the range and rounded to the data's grid).
    #[arg(long, value_name = "SIGMA2,RATE[,BOX]")]
    robust: Option<String>,
    /// Columns of the input that are not features (the label), comma-separated.
    #[arg(long, value_delimiter = ',', value_name = "COLUMNS")]
    ignore: Vec<String>,
    /// The column holding each application's id (written into its line and its ledger records).
    #[arg(long, value_name = "COLUMN")]
    id_column: Option<String>,
    /// Also write the notices' advice ledger (JSON lines, each record with its notice id),
    /// for `cfx revalidate` under the next model.
    #[arg(long, value_name = "FILE")]
    ledger: Option<PathBuf>,
    /// Seconds the solver may take per solve.
    #[arg(long, default_value_t = 10.0, value_name = "SECONDS")]
    time_limit: f64,
    #[command(flatten)]
    limit: common::NodeLimit,
}

fn robustness(text: Option<&str>) -> Result<Option<Robustness>, Failure> {
    match text {
        None => Ok(Some(DEFAULT_NOTICE_ROBUSTNESS)),
        Some(text) => common::parse_robustness(text),
    }
}

pub fn run(a: Args) -> Result<(), Failure> {
    common::check_output(&a.output, &[&a.input, &a.reference])?;
    if let Some(l) = &a.ledger {
        common::check_output(l, &[&a.input, &a.reference, &a.output])?;
    }
    let schema = common::read_schema(&a.schema)?;
    let loaded = a.model.load(&schema)?;
    let table = cfx::data::read_csv(&a.reference)?;
    let rows = cfx::data::rows_under_schema(&table, &schema)?;
    let n = rows.len();
    let data = Dataset {
        schema: schema.clone(),
        rows,
        labels: vec![0.0; n],
    };
    let kind = match a.at_cutoff {
        Some(band) => ReferenceKind::AtCutoff { band },
        None => ReferenceKind::AllApplicants,
    };
    let reference = Reference::new(&loaded.model, &data, kind)?;
    let reasons = match &a.reasons {
        Some(p) => {
            let text = common::read_text(p)?;
            Some(if text.trim_start().starts_with('{') {
                ReasonTable::from_json(&text, &schema)?
            } else {
                ReasonTable::from_csv(&text, &schema)?
            })
        }
        None => None,
    };
    let config = a.limit.apply(Config {
        time_limit_seconds: a.time_limit,
        ..Config::default()
    });
    config.validate()?;
    let opts = NoticeOptions {
        reasons: ReasonOptions {
            max_reasons: a.max_reasons,
            ..ReasonOptions::default()
        },
        config,
        skip_necessity: a.no_necessity,
        robustness: robustness(a.robust.as_deref())?,
    };
    let book = NoticeBookOptions {
        ignore_columns: a.ignore.clone(),
        id_column: a.id_column.clone(),
    };
    let s = notices_csv(
        &loaded.model,
        &schema,
        &a.input,
        &a.output,
        a.ledger.as_deref(),
        &reference,
        reasons.as_ref(),
        &opts,
        &book,
    )?;
    let mut text = format!(
        "{} rows: {} declined, {} notices, {} errors; notices in '{}'\n",
        s.rows,
        s.declined,
        s.declined - s.errors,
        s.errors,
        a.output.display()
    );
    if let Some(l) = &a.ledger {
        text.push_str(&format!(
            "{} ledger records (each with its notice id) in '{}'\n",
            s.ledger_records,
            l.display()
        ));
    }
    common::print(&text)
}
