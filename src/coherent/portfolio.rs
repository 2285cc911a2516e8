//! Streaming portfolio explanations (issue 14): a whole book of applicants
//! from a CSV file, explained on all cores, one JSON line per applicant.
//!
//! The file is read a chunk of [`PortfolioOptions::chunk_rows`] records at a
//! time; each chunk is explained by [`explain_batch`] (all cores, results in
//! input order) and written before the next is read, so memory is bounded by
//! the chunk, not by the number of rows. After each chunk a progress callback
//! hears how many rows are done and may cancel (what was written stays, the
//! file ends after the last whole chunk).
//!
//! Each output line is one JSON object, in input order:
//! * `{"row": k, "decision": "accepted", "probability": p}`;
//! * `{"row": k, "decision": "declined", "probability": p, "outcome": {...},
//!   "proved_by": "separable", "counterfactual": {"cost", "probability",
//!   "raw", "changes", "status", "proved_by"} | null}`;
//! * `{"row": k, "error": "..."}` for a row that cannot be read or explained
//!   (the message names the row and column); the run goes on.
//!
//! `row` counts data records from 0.

use super::{Config, explain_batch};
use crate::data::{CsvOptions, parse_csv_with, row_under_schema};
use crate::error::{Error, Result};
use crate::model::Model;
use crate::schema::Schema;
use serde::Serialize;
use std::io::{BufRead, BufReader, BufWriter, Write};
use std::path::Path;

/// Options of [`explain_portfolio`].
#[derive(Debug, Clone, PartialEq)]
pub struct PortfolioOptions {
    /// Columns of the input that are not features and are to be skipped (the
    /// outcome label, an id); any other column the schema does not know is an
    /// error naming it.
    pub ignore_columns: Vec<String>,
    /// Records read, explained and written at a time (default 4096).
    pub chunk_rows: usize,
}

impl Default for PortfolioOptions {
    fn default() -> Self {
        PortfolioOptions {
            ignore_columns: Vec::new(),
            chunk_rows: 4096,
        }
    }
}

/// What a portfolio run did.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize)]
pub struct PortfolioSummary {
    /// Rows written (every row read before a cancellation).
    pub rows: usize,
    pub accepted: usize,
    pub declined: usize,
    /// Declined applicants with a counterfactual.
    pub with_recourse: usize,
    /// Rows that could not be read or explained.
    pub errors: usize,
    /// The progress callback cancelled the run.
    pub cancelled: bool,
}

/// Reads one CSV record (several lines when a quoted field holds line ends);
/// `None` at the end of the file.
pub(super) fn next_record(reader: &mut impl BufRead, buf: &mut String) -> Result<Option<()>> {
    buf.clear();
    loop {
        let n = reader
            .read_line(buf)
            .map_err(|e| Error::Io(format!("cannot read the applicants: {e}")))?;
        if n == 0 {
            return Ok(if buf.trim().is_empty() {
                None
            } else {
                Some(())
            });
        }
        let quotes = buf.matches('"').count();
        if quotes % 2 == 1 {
            continue; // inside a quoted field
        }
        if buf.trim().is_empty() {
            buf.clear();
            continue; // a blank line between records
        }
        return Ok(Some(()));
    }
}

/// The cells of one record, trimmed. Parsed as a headerless one-row table:
/// read as a header it would be refused as a file without data rows, and a
/// data row's repeated values would be refused as duplicate column names.
pub(super) fn cells(record: &str) -> Result<Vec<String>> {
    let opts = CsvOptions {
        has_header: false,
        ..CsvOptions::default()
    };
    let mut table = parse_csv_with(record.as_bytes(), &opts)?;
    Ok(table
        .rows
        .pop()
        .unwrap_or_default()
        .into_iter()
        .map(|c| c.trim().to_string())
        .collect())
}

/// Explains every applicant of the CSV file `input` (a header naming the
/// schema's features, categorical levels by name) and writes one JSON line per
/// applicant to `output` (created or truncated). `progress(rows_done)` is
/// called after each chunk; returning `false` cancels the run.
///
/// Errors (nothing is explained): a bad configuration, a non-linear model, an
/// unreadable input or unwritable output, a header missing a feature or naming
/// a column neither a feature nor in [`PortfolioOptions::ignore_columns`].
/// Errors of single rows are lines of the output, not errors of the call.
pub fn explain_portfolio(
    schema: &Schema,
    model: &dyn Model,
    input: &Path,
    output: &Path,
    config: &Config,
    options: &PortfolioOptions,
    progress: &mut dyn FnMut(usize) -> bool,
) -> Result<PortfolioSummary> {
    config.validate()?;
    if options.chunk_rows == 0 {
        return Err(Error::InvalidArgument(
            "chunk_rows must be at least 1".into(),
        ));
    }
    if model.as_linear().is_none() {
        return Err(Error::InvalidArgument(
            "the coherent program needs a linear (logistic) model".into(),
        ));
    }
    let file = std::fs::File::open(input)
        .map_err(|e| Error::Io(format!("cannot read '{}': {e}", input.display())))?;
    let mut reader = BufReader::new(file);
    let mut record = String::new();
    if next_record(&mut reader, &mut record)?.is_none() {
        return Err(Error::Data(format!(
            "'{}' is empty (no header)",
            input.display()
        )));
    }
    let header = cells(record.trim_start_matches('\u{feff}'))?;
    for h in &header {
        let known = schema.features.iter().any(|f| &f.name == h)
            || options.ignore_columns.iter().any(|c| c == h);
        if !known {
            return Err(Error::Data(format!(
                "column '{h}' of '{}' is neither a feature of the schema nor an ignored column",
                input.display()
            )));
        }
    }
    let cols = schema
        .features
        .iter()
        .map(|f| {
            header.iter().position(|h| h == &f.name).ok_or_else(|| {
                Error::Data(format!(
                    "'{}' has no column for feature '{}'",
                    input.display(),
                    f.name
                ))
            })
        })
        .collect::<Result<Vec<_>>>()?;
    let out = std::fs::File::create(output)
        .map_err(|e| Error::Io(format!("cannot write '{}': {e}", output.display())))?;
    let mut out = BufWriter::new(out);
    let write_err =
        |e: std::io::Error| Error::Io(format!("cannot write '{}': {e}", output.display()));
    let mut summary = PortfolioSummary::default();
    let mut line = 1usize; // the header's
    let mut next_data_row = 0usize; // 0-based index of the next data row
    loop {
        // Read a chunk: each row parsed, or its error.
        let mut parsed: Vec<Result<Vec<f64>>> = Vec::with_capacity(options.chunk_rows);
        while parsed.len() < options.chunk_rows {
            if next_record(&mut reader, &mut record)?.is_none() {
                break;
            }
            line += 1;
            let data_row = next_data_row;
            next_data_row += 1;
            let row = cells(record.trim_end_matches(['\r', '\n'])).and_then(|c| {
                if c.len() != header.len() {
                    return Err(Error::Data(format!(
                        "row {line}: {} fields, but the header has {}",
                        c.len(),
                        header.len()
                    )));
                }
                row_under_schema(&c, schema, &cols, data_row)
            });
            line += record.matches('\n').count().saturating_sub(1);
            parsed.push(row);
        }
        if parsed.is_empty() {
            break;
        }
        // Accepted applicants need no explanation; the declined go to the batch.
        let mut probability = vec![f64::NAN; parsed.len()];
        let mut declined_rows = Vec::new();
        let mut declined_at = Vec::new();
        for (k, r) in parsed.iter().enumerate() {
            if let Ok(raw) = r {
                match schema.encode(raw) {
                    Ok(x) => {
                        probability[k] = model.probability(&x);
                        if !model.accepts(&x) {
                            declined_rows.push(raw.clone());
                            declined_at.push(k);
                        }
                    }
                    Err(_) => {
                        declined_rows.push(raw.clone()); // explain reports the error
                        declined_at.push(k);
                    }
                }
            }
        }
        let explained = explain_batch(schema, model, &declined_rows, config, false)?;
        let mut answers = explained.into_iter().zip(declined_at).peekable();
        for (k, r) in parsed.into_iter().enumerate() {
            let row = summary.rows;
            let value = match r {
                Err(e) => {
                    summary.errors += 1;
                    serde_json::json!({ "row": row, "error": e.to_string() })
                }
                Ok(_) if answers.peek().is_some_and(|(_, at)| *at == k) => {
                    let (answer, _) = answers.next().unwrap_or((
                        Err(Error::Solver("internal: a batch answer is missing".into())),
                        k,
                    ));
                    match answer {
                        Err(e) => {
                            summary.errors += 1;
                            serde_json::json!({ "row": row, "error": e.to_string() })
                        }
                        Ok(ex) => {
                            summary.declined += 1;
                            let cf = ex.counterfactuals.first().map(|c| {
                                serde_json::json!({
                                    "cost": c.cost,
                                    "probability": c.probability,
                                    "raw": c.raw,
                                    "changes": c.changes,
                                    "status": c.status,
                                    "proved_by": c.proved_by,
                                })
                            });
                            if cf.is_some() {
                                summary.with_recourse += 1;
                            }
                            serde_json::json!({
                                "row": row,
                                "decision": "declined",
                                "probability": ex.factual_probability,
                                "outcome": ex.outcome,
                                "proved_by": ex.proved_by,
                                "counterfactual": cf,
                            })
                        }
                    }
                }
                Ok(_) => {
                    summary.accepted += 1;
                    serde_json::json!({
                        "row": row,
                        "decision": "accepted",
                        "probability": probability[k],
                    })
                }
            };
            serde_json::to_writer(&mut out, &value)
                .map_err(|e| Error::Io(format!("cannot write '{}': {e}", output.display())))?;
            out.write_all(b"\n").map_err(write_err)?;
            summary.rows += 1;
        }
        if !progress(summary.rows) {
            summary.cancelled = true;
            break;
        }
    }
    out.flush().map_err(write_err)?;
    Ok(summary)
}
