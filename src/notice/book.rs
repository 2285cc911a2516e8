//! Notices for a whole book: one JSON line per declined applicant, from rows
//! in memory ([`notices_jsonl`]) or streamed from the applicants' CSV file
//! into a file ([`notices_csv`]), written as [`crate::output`] writes every
//! file (never over an input; a partial file renamed over the target only
//! when the run is complete), optionally with the advice ledger of the
//! notices beside it ([`crate::revalidate::LedgerRecord::from_notice`]: each
//! record carries its notice's id, so re-validating the ledger under the
//! next model names the notices whose promises break).
//!
//! A line is `{"notice": {...}, "row": k}` (keys sorted; `"id"` first when
//! the book has an id column), or `{"error": "...", "row": k}` when that
//! applicant's notice cannot be made — one bad row does not stop the book.
//! Accepted applicants get no line. `row` counts data records from 0.

use super::consistency::{Notice, NoticeOptions, notice};
use super::{ReasonTable, Reference};
use crate::error::{Error, Result};
use crate::model::{AnyModel, Model};
use crate::output::Output;
use crate::portfolio::ApplicantsCsv;
use crate::revalidate::LedgerRecord;
use crate::schema::Schema;
use serde::Serialize;
use std::io::Write;
use std::path::Path;

/// What a book of notices wrote.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Default)]
pub struct BookSummary {
    pub rows: usize,
    pub declined: usize,
    /// Declined rows whose notice failed (an error line was written instead).
    pub errors: usize,
    /// Ledger records written ([`notices_csv`] with a ledger; 0 otherwise).
    pub ledger_records: usize,
}

/// The line of row `k`: its notice, or why there is none; `None` for an
/// accepted applicant.
fn line(
    model: &dyn Model,
    schema: &Schema,
    raw: Result<&[f64]>,
    reference: &Reference,
    table: Option<&ReasonTable>,
    opts: &NoticeOptions,
) -> Option<Result<Notice>> {
    let raw = match raw {
        Ok(r) => r,
        Err(e) => return Some(Err(e)),
    };
    match schema.encode(raw) {
        Ok(x) if model.accepts(&x) => None,
        Ok(_) => Some(notice(model, schema, raw, reference, table, opts)),
        Err(e) => Some(Err(e)),
    }
}

fn json_line(k: usize, id: Option<&str>, n: &Result<Notice>) -> serde_json::Value {
    let mut v = match n {
        Ok(n) => serde_json::json!({"row": k, "notice": n}),
        Err(e) => serde_json::json!({"row": k, "error": e.to_string()}),
    };
    if let Some(id) = id {
        v["id"] = id.into();
    }
    v
}

/// Notices for a whole book of raw rows under `schema`, one compact JSON
/// line each to `out` (module docs).
pub fn notices_jsonl<W: Write>(
    model: &dyn Model,
    schema: &Schema,
    rows: &[Vec<f64>],
    reference: &Reference,
    table: Option<&ReasonTable>,
    opts: &NoticeOptions,
    out: &mut W,
) -> Result<BookSummary> {
    crate::model::check_model_for_schema(model, schema, "the schema")?;
    let mut summary = BookSummary {
        rows: rows.len(),
        ..BookSummary::default()
    };
    let io = |e: std::io::Error| Error::Io(format!("writing the notices: {e}"));
    for (k, raw) in rows.iter().enumerate() {
        let Some(n) = line(model, schema, Ok(raw), reference, table, opts) else {
            continue;
        };
        summary.declined += 1;
        summary.errors += usize::from(n.is_err());
        writeln!(out, "{}", json_line(k, None, &n)).map_err(io)?;
    }
    Ok(summary)
}

/// How [`notices_csv`] reads its book.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct NoticeBookOptions {
    /// Columns of the input that are not features (the label, an id); any
    /// other column the schema does not know is an error naming it.
    pub ignore_columns: Vec<String>,
    /// The column holding each application's id: written into its line as
    /// `"id"` and used as its ledger records' ids (default `row-<k>`).
    pub id_column: Option<String>,
}

/// Notices for every declined applicant of the CSV file `input` (a header
/// naming the schema's features, categorical levels by name), one JSON line
/// each to `output` (module docs), and with `ledger` the notices' advice
/// ledger ([`LedgerRecord::from_notice`], one JSON line per record). Both
/// files are created, or replaced once the whole book is done; neither may
/// be an input or the other. Errors (nothing is replaced): an output naming
/// an input, a model not made for the schema, a reference or reason table of
/// another schema, an unreadable input or unwritable output, a header
/// missing a feature or naming an unknown column. Errors of single rows are
/// lines of the output.
#[allow(clippy::too_many_arguments)]
pub fn notices_csv(
    model: &AnyModel,
    schema: &Schema,
    input: &Path,
    output: &Path,
    ledger: Option<&Path>,
    reference: &Reference,
    table: Option<&ReasonTable>,
    opts: &NoticeOptions,
    book: &NoticeBookOptions,
) -> Result<BookSummary> {
    crate::output::check_not_input(output, &[input])?;
    if let Some(l) = ledger {
        crate::output::check_not_input(l, &[input, output])?;
    }
    crate::model::check_model_for_schema(model, schema, "the schema")?;
    reference.check_schema(schema)?;
    if let Some(t) = table {
        t.check(schema)?;
    }
    let mut csv = ApplicantsCsv::open(input)?;
    let id_col = book
        .id_column
        .as_deref()
        .map(|c| csv.column(c, "the id column"))
        .transpose()?;
    let cols = csv.feature_columns(
        schema,
        |c| book.ignore_columns.iter().any(|i| i == c) || book.id_column.as_deref() == Some(c),
        "",
    )?;
    let mut out = Output::create(output, &[input])?;
    let mut ledger_out = match ledger {
        Some(l) => Some(Output::create(l, &[input, output])?),
        None => None,
    };
    let mut summary = BookSummary::default();
    let mut raw = Vec::new();
    let mut text = String::new();
    while csv.next_record()? {
        let k = summary.rows;
        summary.rows += 1;
        let parsed = csv.check_width().and_then(|()| {
            crate::data::row_under_schema_into(csv.cells(), schema, &cols, k, &mut raw)
        });
        let Some(n) = line(
            model,
            schema,
            parsed.map(|()| raw.as_slice()),
            reference,
            table,
            opts,
        ) else {
            continue;
        };
        summary.declined += 1;
        summary.errors += usize::from(n.is_err());
        let id = id_col.map(|c| csv.cells()[c].clone());
        text.clear();
        text.push_str(&json_line(k, id.as_deref(), &n).to_string());
        text.push('\n');
        out.write_all(text.as_bytes())?;
        if let (Some(l), Ok(n)) = (ledger_out.as_mut(), &n) {
            let rid = id.unwrap_or_else(|| format!("row-{k}"));
            for r in LedgerRecord::from_notice(schema, model, &rid, n)? {
                l.write_all(r.to_json().as_bytes())?;
                l.write_all(b"\n")?;
                summary.ledger_records += 1;
            }
        }
    }
    out.commit()?;
    if let Some(l) = ledger_out {
        l.commit()?;
    }
    Ok(summary)
}
