//! The portfolio's answers kept as ledger records (issue 28): every
//! explanation cfx writes can be re-validated against the next model, the
//! portfolio stream's JSON lines included.
//!
//! A portfolio line ([`crate::coherent::portfolio::explain_portfolio`]) holds
//! the advised row and its cost but not the applicant's row, which a ledger
//! record needs (re-validation repairs from it). So the converter reads the
//! portfolio's input CSV and its output lines in lockstep, one record and one
//! line at a time (constant memory however long the book): line `k` must say
//! `"row": k`, and both must end together, else the files are not one run's
//! input and output and the conversion is refused. The CSV is read by the
//! portfolio's own reader (`portfolio::input`: the same records, blank lines,
//! trimmed cells, header rules and line numbers), values under the schema by
//! [`crate::data::row_under_schema_into`].
//!
//! Each row is checked against its line: the model must give the applicant
//! the probability the line reports and decide as it says, so a CSV or model
//! other than the run's is refused rather than recorded under a wrong
//! applicant or fingerprint.

use super::{AdviceKind, LedgerRecord};
use crate::coherent::Robustness;
use crate::error::{Error, Result};
use crate::json::{model_fingerprint, schema_fingerprint};
use crate::model::{AnyModel, Model};
use crate::output::Output;
use crate::portfolio::ApplicantsCsv;
use crate::schema::Schema;
use serde::{Deserialize, Serialize};
use std::io::{BufRead, BufReader};
use std::path::Path;

/// Options of [`ledger_from_portfolio`].
#[derive(Debug, Clone, Default, PartialEq)]
pub struct PortfolioLedgerOptions {
    /// The portfolio run's [`crate::coherent::portfolio::PortfolioOptions::ignore_columns`]:
    /// columns of the CSV that are not features.
    pub ignore_columns: Vec<String>,
    /// The column whose cell is each record's id (an application number);
    /// `None`: `"row-<k>"`, `k` the 0-based data row. It may be a feature or
    /// any other column (it counts as ignored).
    pub id_column: Option<String>,
    /// The column whose cell is each record's group (empty cell: no group).
    /// It counts as ignored too.
    pub group_column: Option<String>,
    /// Every record's issue text (e.g. the run's date).
    pub issued: Option<String>,
    /// The portfolio run's [`crate::coherent::Config::robustness`], which its
    /// lines do not carry (a robust line says only its Γ): the
    /// [`LedgerRecord::robustness`] of every robust record. `None`: robust
    /// records are written without it. A line without Γ (plain advice) gets
    /// no target whatever this says.
    pub robustness: Option<Robustness>,
}

/// What a conversion read and wrote.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize)]
pub struct PortfolioLedgerCounts {
    /// Portfolio lines read (one per CSV data row).
    pub rows: usize,
    /// Ledger records written: declined applicants with a counterfactual.
    pub records: usize,
    pub accepted: usize,
    /// Declined applicants without a counterfactual (nothing was promised).
    pub without_counterfactual: usize,
    /// The portfolio's `error` lines, skipped.
    pub errors: usize,
}

/// One portfolio line, the keys the ledger needs (the others are ignored).
#[derive(Deserialize)]
struct Line {
    row: usize,
    #[serde(default)]
    decision: Option<String>,
    #[serde(default)]
    error: Option<String>,
    #[serde(default)]
    probability: Option<f64>,
    #[serde(default)]
    counterfactual: Option<Advice>,
}

#[derive(Deserialize)]
struct Advice {
    cost: f64,
    raw: Vec<f64>,
    /// Present on robust advice only (the portfolio's lines).
    #[serde(default)]
    invalidation_rate: Option<f64>,
}

/// Reads `csv` (the portfolio's input) and `explanations` (its output lines)
/// in lockstep and writes one ledger record per declined applicant with a
/// counterfactual to `ledger` (created, or replaced once complete): kind
/// [`AdviceKind::Explain`] ([`AdviceKind::Robust`] for a line whose
/// counterfactual carries its `invalidation_rate`: a run with a robustness
/// target, which the lines do not say: such a record's
/// [`LedgerRecord::robustness`] is `options.robustness`), issued under `schema` and
/// `model` (the ones the
/// portfolio ran under), the applicant's row from the CSV, the advised row
/// and cost from the line, id, group and issue text as `options` say.
///
/// Errors (nothing is written: `ledger` is replaced only once complete, so
/// it stays as it was): a robustness target that is not one, an unreadable
/// input or unwritable output, `ledger`
/// naming an input file (the same file, a symbolic or hard link to it;
/// refused before anything is opened), a header as the
/// portfolio would refuse it or without the id or group column, and any sign
/// that the files are not one run's input and output under this model: a
/// line of another row, more or fewer lines than data rows, a row that does
/// not read though its line explains it, a probability or decision the model
/// does not give that row, an empty id. `error` lines are skipped and counted.
pub fn ledger_from_portfolio(
    schema: &Schema,
    model: &AnyModel,
    csv: &Path,
    explanations: &Path,
    ledger: &Path,
    options: &PortfolioLedgerOptions,
) -> Result<PortfolioLedgerCounts> {
    crate::model::check_model_for_schema(model, schema, "the schema")?;
    if let Some(r) = &options.robustness {
        r.validate()?;
    }
    crate::output::check_not_input(ledger, &[csv, explanations])?;
    let open = |p: &Path| {
        std::fs::File::open(p)
            .map(BufReader::new)
            .map_err(|e| Error::Io(format!("cannot read '{}': {e}", p.display())))
    };
    let mut rows = Rows::open(schema, open(csv)?, csv, options)?;
    let mut lines = open(explanations)?;
    // Dropped on an error: the partial file goes, the ledger stays as it was.
    let mut out = Output::create(ledger, &[csv, explanations])?;
    let counts = convert(
        schema,
        model,
        &mut rows,
        &mut lines,
        explanations,
        &mut out,
        options,
    )?;
    out.commit()?;
    Ok(counts)
}

/// The portfolio's input, one data row at a time, read by the portfolio's
/// own reader.
struct Rows<'a, R> {
    schema: &'a Schema,
    applicants: ApplicantsCsv<R>,
    /// `cols[i]`: the column of feature `i`.
    cols: Vec<usize>,
    id: Option<usize>,
    group: Option<usize>,
    raw: Vec<f64>,
}

impl<'a, R: BufRead> Rows<'a, R> {
    fn open(
        schema: &'a Schema,
        input: R,
        path: &Path,
        options: &PortfolioLedgerOptions,
    ) -> Result<Self> {
        let applicants = ApplicantsCsv::new(input, &path.display().to_string())?;
        let other = |c: &str| {
            options.ignore_columns.iter().any(|i| i == c)
                || [&options.id_column, &options.group_column]
                    .iter()
                    .any(|e| e.as_deref() == Some(c))
        };
        let cols = applicants.feature_columns(
            schema,
            other,
            ": pass the portfolio run's ignore_columns",
        )?;
        let id = options
            .id_column
            .as_deref()
            .map(|c| applicants.column(c, "the id column"))
            .transpose()?;
        let group = options
            .group_column
            .as_deref()
            .map(|c| applicants.column(c, "the group column"))
            .transpose()?;
        Ok(Rows {
            schema,
            applicants,
            cols,
            id,
            group,
            raw: Vec::new(),
        })
    }

    /// Reads the next data record; `false` at the end.
    fn next_record(&mut self) -> Result<bool> {
        self.applicants.next_record()
    }

    /// The file line of the current record (1-based).
    fn line(&self) -> usize {
        self.applicants.line()
    }

    /// The current record's values under the schema, into `self.raw`.
    fn parse(&mut self, row: usize) -> Result<()> {
        self.applicants.check_width()?;
        crate::data::row_under_schema_into(
            self.applicants.cells(),
            self.schema,
            &self.cols,
            row,
            &mut self.raw,
        )
    }

    fn cell(&self, col: usize) -> &str {
        &self.applicants.cells()[col]
    }

    fn name(&self) -> &str {
        self.applicants.name()
    }
}

fn convert<R: BufRead>(
    schema: &Schema,
    model: &AnyModel,
    rows: &mut Rows<'_, R>,
    lines: &mut impl BufRead,
    explanations: &Path,
    out: &mut Output,
    options: &PortfolioLedgerOptions,
) -> Result<PortfolioLedgerCounts> {
    let fingerprints = (schema_fingerprint(schema), model_fingerprint(model));
    let mut counts = PortfolioLedgerCounts::default();
    let mut text = String::new();
    let mut line_no = 0usize;
    let mut encoded = vec![0.0; schema.encoded_dim()];
    let lines_name = explanations.display().to_string();
    let csv_name = rows.name().to_string();
    let not_one_run = |what: String| {
        Error::Data(format!(
            "{what}: '{}' is not the portfolio output of '{}' (pass the CSV, options and model \
             of the run that wrote it)",
            lines_name, csv_name
        ))
    };
    loop {
        // The next non-blank portfolio line.
        text.clear();
        let line = loop {
            let n = lines
                .read_line(&mut text)
                .map_err(|e| Error::Io(format!("cannot read '{lines_name}': {e}")))?;
            if n == 0 {
                break None;
            }
            line_no += 1;
            if !text.trim().is_empty() {
                break Some(text.trim());
            }
            text.clear();
        };
        let row = counts.rows;
        let has_record = rows.next_record()?;
        let line = match (line, has_record) {
            (None, false) => return Ok(counts),
            (None, true) => {
                return Err(not_one_run(format!(
                    "the explanations end after {row} lines but the CSV has more data rows \
                     (line {} is data row {row}; a cancelled run?)",
                    rows.line()
                )));
            }
            (Some(_), false) => {
                return Err(not_one_run(format!(
                    "the CSV ends after {row} data rows but the explanations go on (line \
                     {line_no})"
                )));
            }
            (Some(l), true) => l,
        };
        let parsed: Line = serde_json::from_str(line).map_err(|e| {
            Error::Format(format!(
                "'{lines_name}' line {line_no}: not a portfolio line ({e})"
            ))
        })?;
        if parsed.row != row {
            return Err(not_one_run(format!(
                "line {line_no} is the answer for row {}, but the CSV's next data row is {row}",
                parsed.row
            )));
        }
        counts.rows += 1;
        if parsed.error.is_some() {
            counts.errors += 1;
            continue;
        }
        let declined = match parsed.decision.as_deref() {
            Some("accepted") => false,
            Some("declined") => true,
            other => {
                return Err(Error::Format(format!(
                    "'{lines_name}' line {line_no}: decision {other:?}, expected \"accepted\" or \
                     \"declined\""
                )));
            }
        };
        // The row must read and the model must see it as the line says.
        rows.parse(row)
            .map_err(|e| not_one_run(format!("data row {row} does not read ({e})")))?;
        let scored = schema
            .encode_into(&rows.raw, &mut encoded)
            .ok()
            .map(|()| (model.accepts(&encoded), model.probability(&encoded)));
        let Some((accepts, probability)) = scored else {
            return Err(not_one_run(format!("data row {row} does not encode")));
        };
        let reported = parsed.probability.unwrap_or(f64::NAN);
        if accepts == declined || (probability - reported).abs() > 1e-9 {
            return Err(not_one_run(format!(
                "line {line_no} says row {row} is {} with probability {reported}, the model gives \
                 it {probability} ({})",
                if declined { "declined" } else { "accepted" },
                if accepts { "accepted" } else { "declined" }
            )));
        }
        if !declined {
            counts.accepted += 1;
            continue;
        }
        let Some(advice) = parsed.counterfactual else {
            counts.without_counterfactual += 1;
            continue;
        };
        let id = match rows.id {
            Some(c) => {
                let id = rows.cell(c);
                if id.is_empty() {
                    return Err(Error::Data(format!(
                        "'{}' line {}: the id column is empty (every record needs an id)",
                        rows.name(),
                        rows.line()
                    )));
                }
                id.to_string()
            }
            None => format!("row-{row}"),
        };
        let robust = advice.invalidation_rate.is_some();
        let mut record = LedgerRecord::with_fingerprints(
            schema,
            &fingerprints,
            &id,
            if robust {
                AdviceKind::Robust
            } else {
                AdviceKind::Explain
            },
            &rows.raw,
            &advice.raw,
            advice.cost,
        )?;
        if robust {
            record.robustness = options.robustness;
        }
        record.issued = options.issued.clone();
        record.group = rows
            .group
            .map(|c| rows.cell(c).to_string())
            .filter(|g| !g.is_empty());
        let mut json = record.to_json();
        json.push('\n');
        out.write_all(json.as_bytes())?;
        counts.records += 1;
    }
}
