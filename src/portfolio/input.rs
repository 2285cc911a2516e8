//! The applicants' CSV as cfx reads a book: one reader for the portfolio
//! stream ([`super::explain_portfolio`]), its summary's group column
//! ([`super::summary`]) and the ledger made from a portfolio run
//! ([`crate::revalidate::ledger_from_portfolio`]), so that all three see the
//! same records, cells and line numbers.
//!
//! A record is one line, or several when a quoted field holds line ends
//! (RFC 4180); blank lines between records are skipped and not counted in
//! line numbers; cells are trimmed; the header may start with a byte-order
//! mark. Data records are read raw and in order (the serial part of the
//! stream, [`RecordReader`]) and split into cells where they are used
//! ([`cells`]), so the parallel stream splits them on its workers.

use crate::data::{CsvOptions, parse_csv_with};
use crate::error::{Error, Result};
use crate::schema::Schema;
use std::io::{BufRead, BufReader};
use std::path::Path;

/// The applicants' file after its header: the header's cells, then data
/// records one at a time with their cells and file lines.
pub(crate) struct ApplicantsCsv<R> {
    /// The file's name in messages.
    name: String,
    header: Vec<String>,
    records: RecordReader<R>,
    text: String,
    at: Option<RecordAt>,
    cells: Vec<String>,
}

impl ApplicantsCsv<BufReader<std::fs::File>> {
    /// Opens `path` and reads its header (refused when the file is empty).
    pub(crate) fn open(path: &Path) -> Result<Self> {
        let file = std::fs::File::open(path)
            .map_err(|e| Error::Io(format!("cannot read '{}': {e}", path.display())))?;
        ApplicantsCsv::new(BufReader::new(file), &path.display().to_string())
    }
}

impl<R: BufRead> ApplicantsCsv<R> {
    /// Reads the header of `reader`, named `name` in messages.
    pub(crate) fn new(mut reader: R, name: &str) -> Result<Self> {
        let mut text = String::new();
        if append_record(&mut reader, &mut text)?.is_none() {
            return Err(Error::Data(format!("'{name}' is empty (no header)")));
        }
        let header = cells(text.trim_start_matches('\u{feff}'))?;
        Ok(ApplicantsCsv {
            name: name.to_string(),
            header,
            records: RecordReader::after_header(reader),
            text,
            at: None,
            cells: Vec::new(),
        })
    }

    /// The file's name in messages.
    pub(crate) fn name(&self) -> &str {
        &self.name
    }

    /// The header's cells.
    pub(crate) fn header(&self) -> &[String] {
        &self.header
    }

    /// The column named `column`; the error calls it `what` (e.g. "feature").
    pub(crate) fn column(&self, column: &str, what: &str) -> Result<usize> {
        self.header.iter().position(|h| h == column).ok_or_else(|| {
            Error::Data(format!(
                "'{}' has no column for {what} '{column}'",
                self.name
            ))
        })
    }

    /// Checks that every column is a feature of `schema` or an `other` one
    /// (the error ends with `hint`, what to do) and returns the column of
    /// every feature, in the schema's order.
    pub(crate) fn feature_columns(
        &self,
        schema: &Schema,
        other: impl Fn(&str) -> bool,
        hint: &str,
    ) -> Result<Vec<usize>> {
        for h in &self.header {
            if !schema.features.iter().any(|f| &f.name == h) && !other(h) {
                return Err(Error::Data(format!(
                    "column '{h}' of '{}' is neither a feature of the schema nor an ignored \
                     column{hint}",
                    self.name
                )));
            }
        }
        schema
            .features
            .iter()
            .map(|f| self.column(&f.name, "feature"))
            .collect()
    }

    /// Reads the next data record and splits it into cells (their number is
    /// not checked: see [`ApplicantsCsv::check_width`]); `false` at the end
    /// of the file.
    pub(crate) fn next_record(&mut self) -> Result<bool> {
        self.text.clear();
        self.at = self.records.append(&mut self.text)?;
        let Some(at) = &self.at else {
            self.cells.clear();
            return Ok(false);
        };
        self.cells = cells(self.text[at.range.clone()].trim_end_matches(['\r', '\n']))?;
        Ok(true)
    }

    /// The current record's cells.
    pub(crate) fn cells(&self) -> &[String] {
        &self.cells
    }

    /// The file line the current record starts on (1-based; the header's is
    /// 1; 0 before the first record).
    pub(crate) fn line(&self) -> usize {
        self.at.as_ref().map_or(0, |at| at.line)
    }

    /// Refuses a current record whose field count is not the header's.
    pub(crate) fn check_width(&self) -> Result<()> {
        check_width(self.cells.len(), self.header.len(), self.line())
    }

    /// The raw data records from here on, for the stream's chunks.
    pub(super) fn into_records(self) -> RecordReader<R> {
        self.records
    }
}

/// The refusal of a record of `n` fields under a header of `header_len`,
/// the record starting on file line `line`.
pub(super) fn check_width(n: usize, header_len: usize, line: usize) -> Result<()> {
    if n == header_len {
        return Ok(());
    }
    Err(Error::Data(format!(
        "line {line}: {n} fields, but the header has {header_len}"
    )))
}

/// Appends one CSV record (several lines when a quoted field holds line ends;
/// blank lines between records skipped) to `text` and returns its byte range
/// there; `None` at the end of the file, `text` unchanged.
fn append_record(
    reader: &mut impl BufRead,
    text: &mut String,
) -> Result<Option<std::ops::Range<usize>>> {
    let start = text.len();
    let mut quotes = 0usize;
    loop {
        let line_start = text.len();
        let n = reader
            .read_line(text)
            .map_err(|e| Error::Io(format!("cannot read the applicants: {e}")))?;
        if n == 0 {
            if text[start..].trim().is_empty() {
                text.truncate(start);
                return Ok(None);
            }
            return Ok(Some(start..text.len()));
        }
        quotes += text.as_bytes()[line_start..]
            .iter()
            .filter(|&&b| b == b'"')
            .count();
        if quotes % 2 == 1 {
            continue; // inside a quoted field
        }
        if text[start..].trim().is_empty() {
            text.truncate(start);
            continue; // a blank line between records
        }
        return Ok(Some(start..text.len()));
    }
}

/// The cells of a record that holds no quote, no line end and no byte-order
/// mark, trimmed: such a record is split at its commas exactly as the CSV
/// reader of [`cells`] would split it, without building a reader per record
/// (which cost a fifth of a portfolio run). `None` for any other record.
pub(super) fn plain_cells(record: &str) -> Option<impl Iterator<Item = &str>> {
    let plain = !record.starts_with('\u{feff}')
        && !record.bytes().any(|b| matches!(b, b'"' | b'\r' | b'\n'));
    plain.then(|| record.split(',').map(str::trim))
}

/// The cells of one record, trimmed. Parsed as a headerless one-row table:
/// read as a header it would be refused as a file without data rows, and a
/// data row's repeated values would be refused as duplicate column names.
pub(super) fn cells(record: &str) -> Result<Vec<String>> {
    if let Some(plain) = plain_cells(record) {
        return Ok(plain.map(String::from).collect());
    }
    csv_cells(record)
}

/// [`cells`] through the CSV reader (quoted fields, embedded line ends).
pub(super) fn csv_cells(record: &str) -> Result<Vec<String>> {
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

/// The position of one record in its chunk's text.
#[derive(Debug, Clone)]
pub(super) struct RecordAt {
    pub(super) range: std::ops::Range<usize>,
    /// The file line the record starts on (1-based; the header is line 1),
    /// counted as the serial reader always has: blank lines between records
    /// are not counted.
    pub(super) line: usize,
}

/// Raw records, read in order and not yet parsed: the serial input work.
#[derive(Debug, Default)]
pub(super) struct RawChunk {
    /// 0-based data-row index of the first record.
    pub(super) first_row: usize,
    pub(super) text: String,
    pub(super) records: Vec<RecordAt>,
}

/// The serial reader: records in file order, with their lines and rows.
pub(super) struct RecordReader<R> {
    reader: R,
    /// The last line read (the header's is 1).
    line: usize,
    next_row: usize,
}

impl<R: BufRead> RecordReader<R> {
    /// Reads the records of a file whose header (line 1) `reader` has read.
    fn after_header(reader: R) -> Self {
        RecordReader {
            reader,
            line: 1,
            next_row: 0,
        }
    }

    /// Appends the next record to `text` and says where it is; `None` at the
    /// end of the file.
    fn append(&mut self, text: &mut String) -> Result<Option<RecordAt>> {
        let Some(range) = append_record(&mut self.reader, text)? else {
            return Ok(None);
        };
        self.line += 1;
        let newlines = text.as_bytes()[range.clone()]
            .iter()
            .filter(|&&b| b == b'\n')
            .count();
        let at = RecordAt {
            range,
            line: self.line,
        };
        self.line += newlines.saturating_sub(1);
        self.next_row += 1;
        Ok(Some(at))
    }

    /// Refills `chunk` (its buffers reused) with up to `rows` records; an
    /// empty chunk at the end of the file.
    pub(super) fn fill(&mut self, chunk: &mut RawChunk, rows: usize) -> Result<()> {
        chunk.text.clear();
        chunk.records.clear();
        chunk.first_row = self.next_row;
        while chunk.records.len() < rows {
            let Some(at) = self.append(&mut chunk.text)? else {
                break;
            };
            chunk.records.push(at);
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The in-place split agrees with the CSV reader on every record it
    /// accepts, and leaves quoted fields, line ends and byte-order marks to
    /// the reader.
    #[test]
    fn plain_cells_agree_with_the_csv_reader() {
        let records = [
            "1,2,3",
            " a , b ,c ",
            ",,",
            "x",
            "é,ü , ß",
            "  ,1",
            "a\tb,c",
            "12.5,-7,A11",
        ];
        for r in records {
            let plain: Vec<String> = plain_cells(r).unwrap().map(String::from).collect();
            assert_eq!(plain, csv_cells(r).unwrap(), "{r:?}");
            assert_eq!(cells(r).unwrap(), plain, "{r:?}");
        }
        for r in ["\"a,b\",c", "a\rb,c", "\u{feff}a,b", "a,\"\"", "a\nb"] {
            assert!(plain_cells(r).is_none(), "{r:?}");
        }
        assert_eq!(cells("\"a,b\", c").unwrap(), vec!["a,b", "c"]);
    }
}
