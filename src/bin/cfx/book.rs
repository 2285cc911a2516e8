//! `cfx book`: a whole book of applicants through the library's portfolio
//! stream (`cfx::portfolio::explain_portfolio`), one JSON line per applicant,
//! with a progress bar only when stderr is a terminal.

use crate::common::{self, Failure, ModelArgs};
use cfx::coherent::Config;
use cfx::portfolio::summary::{GroupBy, summarize};
use cfx::portfolio::{PortfolioOptions, explain_portfolio};
use cfx::revalidate::{PortfolioLedgerOptions, ledger_from_portfolio};
use std::io::IsTerminal;
use std::path::{Path, PathBuf};

/// Explains every applicant of a CSV file into JSON lines (the portfolio stream).
#[derive(clap::Args, Debug)]
#[command(after_help = "\
Examples:
  cfx book --schema schema.json --model xgb.json --options '{\"favourable_class\": 0}' \\
      applicants.csv -o answers.jsonl --threads 2
  cfx book -s schema.json -m model.json applicants.csv -o answers.jsonl \\
      --ignore id,default --summary-html burden.html

Each line of the output is one applicant, in input order, keys sorted: accepted
({\"decision\": \"accepted\", …}), declined with its cheapest change or null, or an
{\"error\": …} naming the row and column of a row that cannot be read. The output is
replaced only once the run is complete; it may not be the input. A progress bar
(rows per second, time left) is drawn on stderr when it is a terminal.")]
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
    /// Worker threads (0: every core). The output does not depend on it.
    #[arg(long, default_value_t = 0, value_name = "N")]
    threads: usize,
    /// Columns of the input that are not features (an id, the label), comma-separated.
    #[arg(long, value_delimiter = ',', value_name = "COLUMNS")]
    ignore: Vec<String>,
    /// Seconds the solver may take per applicant.
    #[arg(long, default_value_t = 10.0, value_name = "SECONDS")]
    time_limit: f64,
    #[command(flatten)]
    limit: common::NodeLimit,
    /// How far above the cut-off advice must land, in log-odds of the favourable outcome
    /// (a scorecard: in points). Advice exactly at the cut-off breaks under the next model's
    /// smallest shift; 0.2 puts a 0.5 cut-off's advice at probability 0.55 or more.
    #[arg(long, default_value_t = 1e-6, value_name = "LOGODDS")]
    margin: f64,
    /// Also write the burden summary (who gets recourse, at what cost, which changes) as
    /// an HTML page.
    #[arg(long, value_name = "FILE")]
    summary_html: Option<PathBuf>,
    /// Robust advice: each answer's slip variance σ² and largest invalidation rate, and for
    /// a tree ensemble its box: "reals" (the default) or "reachable-values" (slips clipped to
    /// the range and rounded to the data's grid). Each line then carries its
    /// invalidation_rate, and the ledger's records are robust ones with this target.
    /// Default: plain advice ("none").
    #[arg(long, value_name = "SIGMA2,RATE[,BOX]")]
    robust: Option<String>,
    /// Also keep the answers as a ledger of given advice (JSON lines), for
    /// `cfx revalidate` under the next model.
    #[arg(long, value_name = "FILE")]
    ledger: Option<PathBuf>,
    /// The ledger records' ids: this column of the input (default: row-<k>).
    #[arg(long, value_name = "COLUMN", requires = "ledger")]
    id_column: Option<String>,
    /// Group the summary by this column of the input.
    #[arg(long, value_name = "COLUMN", requires = "summary_html")]
    group_by: Option<String>,
    /// Continue a run that was killed or cancelled: the lines its partial file kept
    /// beside OUTPUT are checked against the input and the same model, schema and
    /// settings (a mismatch is refused), and the rest is explained. The result is
    /// byte-identical to an uninterrupted run; with no partial file it starts afresh.
    /// Without --resume a run starts afresh and, once complete, removes what
    /// interrupted runs of OUTPUT left.
    #[arg(long)]
    resume: bool,
}

/// Data rows of the input, for the progress bar's length (a record spanning
/// lines in quotes makes it a slight overestimate; the bar ends at the end).
fn count_rows(path: &Path) -> Option<u64> {
    use std::io::Read;
    let mut f = std::fs::File::open(path).ok()?;
    let mut buf = vec![0u8; 1 << 16];
    let (mut lines, mut last) = (0u64, b'\n');
    loop {
        let n = f.read(&mut buf).ok()?;
        if n == 0 {
            break;
        }
        lines += buf[..n].iter().filter(|&&b| b == b'\n').count() as u64;
        last = buf[n - 1];
    }
    if last != b'\n' {
        lines += 1;
    }
    Some(lines.saturating_sub(1))
}

pub fn run(a: Args) -> Result<(), Failure> {
    common::check_output(&a.output, &[&a.input])?;
    common::note_stale_partials(&a.output, a.resume);
    for extra in [&a.summary_html, &a.ledger].into_iter().flatten() {
        common::check_output(extra, &[&a.input, &a.output])?;
    }
    let schema = common::read_schema(&a.schema)?;
    let loaded = a.model.load(&schema)?;
    let config = a.limit.apply(Config {
        batch_threads: a.threads,
        time_limit_seconds: a.time_limit,
        margin: a.margin,
        robustness: match a.robust.as_deref() {
            Some(text) => common::parse_robustness(text)?,
            None => None,
        },
        ..Config::default()
    });
    // A bad setting is bad input (2); what the method refuses after this is the model (5).
    config.validate()?;
    let options = PortfolioOptions {
        ignore_columns: a.ignore.clone(),
        resume: a.resume,
        ..PortfolioOptions::default()
    };
    let bar = if std::io::stderr().is_terminal() {
        let bar = indicatif::ProgressBar::new(count_rows(&a.input).unwrap_or(0));
        bar.set_style(
            indicatif::ProgressStyle::with_template(
                "{bar:40} {pos}/{len} rows, {per_sec}, {eta} left",
            )
            .expect("a valid template"),
        );
        Some(bar)
    } else {
        None
    };
    let mut progress = |done: usize| {
        if let Some(b) = &bar {
            b.set_position(done as u64);
        }
        true
    };
    let result = explain_portfolio(
        &schema,
        &loaded.model,
        &a.input,
        &a.output,
        &config,
        &options,
        &mut progress,
    );
    if let Some(b) = &bar {
        b.finish_and_clear();
    }
    // Argument errors are ours and checked above: what the stream refuses
    // before reading is the model's kind (or its width against the schema).
    let s = result.map_err(|e| match e {
        cfx::Error::InvalidArgument(_) | cfx::Error::DimensionMismatch { .. } => Failure::model(e),
        e => Failure::of(e),
    })?;
    let mut text = format!(
        "{} rows: {} accepted, {} declined ({} with recourse), {} errors; answers in '{}'\n",
        s.rows,
        s.accepted,
        s.declined,
        s.with_recourse,
        s.errors,
        a.output.display()
    );
    if let Some(ledger) = &a.ledger {
        let options = PortfolioLedgerOptions {
            ignore_columns: a.ignore.clone(),
            id_column: a.id_column.clone(),
            robustness: config.robustness,
            ..Default::default()
        };
        let c = ledger_from_portfolio(
            &schema,
            &loaded.model,
            &a.input,
            &a.output,
            ledger,
            &options,
        )?;
        text.push_str(&format!(
            "{} ledger records (declined applicants with advice) in '{}'\n",
            c.records,
            ledger.display()
        ));
    }
    if let Some(h) = &a.summary_html {
        let by = a.group_by.as_ref().map(|c| GroupBy {
            column: c.clone(),
            edges: Vec::new(),
        });
        let report = summarize(&schema, &a.input, &a.output, by.as_ref())?;
        report.save_html("cfx: the burden of recourse across the book", 10, h)?;
        text.push_str(&format!("summary in '{}'\n", h.display()));
    }
    common::print(&text)
}
