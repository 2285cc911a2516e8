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
use crate::workers::BALANCE_SHARES;
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
        // A regular file's size lets the stream see the end coming
        // ([`RecordReader::fill_balanced`]); a pipe's is unknown.
        let size = file
            .metadata()
            .ok()
            .filter(|m| m.is_file())
            .map(|m| m.len());
        let mut csv = ApplicantsCsv::new(BufReader::new(file), &path.display().to_string())?;
        csv.records.size = size;
        Ok(csv)
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
        let mut records = RecordReader::after_header(reader);
        records.bytes = text.len() as u64;
        Ok(ApplicantsCsv {
            name: name.to_string(),
            header,
            records,
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
    /// The file's size in bytes when known (a regular file), the bytes read
    /// so far (header included) and of them the data records'.
    size: Option<u64>,
    bytes: u64,
    data_bytes: u64,
}

/// The fewest rows [`RecordReader::fill_balanced`] cuts a chunk to.
const MIN_BALANCED_ROWS: usize = 8;

impl<R: BufRead> RecordReader<R> {
    /// Reads the records of a file whose header (line 1) `reader` has read.
    fn after_header(reader: R) -> Self {
        RecordReader {
            reader,
            line: 1,
            next_row: 0,
            size: None,
            bytes: 0,
            data_bytes: 0,
        }
    }

    /// Appends the next record to `text` and says where it is; `None` at the
    /// end of the file.
    fn append(&mut self, text: &mut String) -> Result<Option<RecordAt>> {
        let Some(range) = append_record(&mut self.reader, text)? else {
            return Ok(None);
        };
        self.bytes += range.len() as u64;
        self.data_bytes += range.len() as u64;
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

    /// [`RecordReader::fill`] for a pool of `workers`: up to `max_rows`
    /// records, fewer as the end of the file comes near, so that the workers
    /// finish together. With chunks of a fixed size the last ones decide
    /// when the run ends: a book of 10,000 applicants under a tree ensemble
    /// (milliseconds each) in chunks of 4,096 kept one of two workers idle
    /// for a third of the run, and a book smaller than one chunk ran on one
    /// worker however many there were (issue 43). Each chunk is at most a
    /// [`BALANCE_SHARES`]th of a worker's even share of the rows left
    /// (guided scheduling), the rows left estimated from the file's size and
    /// the mean bytes of the records read; a file of unknown size (a pipe)
    /// keeps `max_rows`. The chunks change no output.
    pub(super) fn fill_balanced(
        &mut self,
        chunk: &mut RawChunk,
        max_rows: usize,
        workers: usize,
    ) -> Result<()> {
        chunk.text.clear();
        chunk.records.clear();
        chunk.first_row = self.next_row;
        let mut rows = max_rows;
        while chunk.records.len() < rows {
            let Some(at) = self.append(&mut chunk.text)? else {
                break;
            };
            chunk.records.push(at);
            if chunk.records.len() == 1 {
                // One record read at least: the mean is known.
                rows = self.balanced_rows(max_rows, workers);
            }
        }
        Ok(())
    }

    /// The rows of the chunk under way ([`RecordReader::fill_balanced`]).
    fn balanced_rows(&self, max_rows: usize, workers: usize) -> usize {
        let Some(size) = self.size else {
            return max_rows;
        };
        let per_row = self.data_bytes as f64 / self.next_row.max(1) as f64;
        if per_row <= 0.0 {
            return max_rows;
        }
        // The record just read, and the ones after it.
        let left = 1.0 + size.saturating_sub(self.bytes) as f64 / per_row;
        let share = (left / (BALANCE_SHARES * workers.max(1)) as f64).ceil() as usize;
        share.clamp(MIN_BALANCED_ROWS.min(max_rows), max_rows)
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

    /// Records of equal length, so that the rows left are known exactly.
    fn equal_records(rows: usize) -> String {
        let mut text = String::from("id,value\n");
        for k in 0..rows {
            text += &format!("{k:05},{:03}\n", k * 7 % 1000);
        }
        text
    }

    /// Every chunk of `fill_balanced` until the end: their sizes, after
    /// checking that they hold every record once, in order.
    fn balanced_chunks(
        text: &str,
        size: Option<u64>,
        max_rows: usize,
        workers: usize,
    ) -> Vec<usize> {
        let csv = ApplicantsCsv::new(std::io::Cursor::new(text.as_bytes()), "book").unwrap();
        let mut records = csv.into_records();
        records.size = size;
        let (mut chunk, mut sizes, mut next) = (RawChunk::default(), Vec::new(), 0);
        loop {
            records
                .fill_balanced(&mut chunk, max_rows, workers)
                .unwrap();
            if chunk.records.is_empty() {
                return sizes;
            }
            assert_eq!(chunk.first_row, next);
            for at in &chunk.records {
                assert_eq!(&chunk.text[at.range.clone()][..6], format!("{next:05},"));
                next += 1;
            }
            sizes.push(chunk.records.len());
        }
    }

    /// With the file's size known, each chunk is a quarter of a worker's
    /// share of the rows left (at least 8, at most the maximum), so the
    /// chunks shrink toward the end and a small book is spread over the
    /// workers; without it, every chunk is the maximum. Every record is read
    /// once, in order.
    #[test]
    fn balanced_chunks_shrink_toward_the_end_and_cover_every_record() {
        let rows = 1000;
        let text = equal_records(rows);
        let size = Some(text.len() as u64);
        for (max_rows, workers) in [(100, 2), (4096, 16), (3, 2), (4096, 1)] {
            let sizes = balanced_chunks(&text, size, max_rows, workers);
            assert_eq!(sizes.iter().sum::<usize>(), rows);
            let mut left = rows;
            for &k in &sizes {
                let share = left.div_ceil(BALANCE_SHARES * workers);
                let expect = share
                    .clamp(MIN_BALANCED_ROWS.min(max_rows), max_rows)
                    .min(left);
                assert_eq!(
                    k, expect,
                    "{max_rows} rows at most, {workers} workers: {sizes:?}"
                );
                left -= k;
            }
        }
        // Two workers, chunks of 100 at most: full chunks while the rows
        // left are many, then fewer, down to the least.
        let sizes = balanced_chunks(&text, size, 100, 2);
        assert_eq!(&sizes[..3], &[100, 100, 100]);
        assert!(sizes.len() > 10 && sizes.windows(2).all(|w| w[1] <= w[0]));
        assert!(*sizes.last().unwrap() <= MIN_BALANCED_ROWS);
        // A book smaller than one chunk still reaches every worker.
        let small_text = equal_records(120);
        let small = balanced_chunks(&small_text, Some(small_text.len() as u64), 4096, 4);
        assert!(small.len() >= 8, "{small:?}");
        // A pipe (no size): the maximum every time.
        let piped = balanced_chunks(&text, None, 100, 2);
        assert_eq!(piped, vec![100; 10]);
    }
}
