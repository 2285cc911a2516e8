//! CSV files as text tables, read with the `csv` crate (RFC 4180 quoting, LF
//! or CRLF line ends, any one-byte delimiter).
//!
//! A table is refused when it cannot be read without guessing: ragged rows,
//! a header with an empty or repeated name (which column would a feature
//! name?), or no data rows at all.

use crate::error::{Error, Result};
use std::path::Path;

/// How a CSV file is laid out.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CsvOptions {
    /// The field delimiter (`b','`; `b';'` is common in European credit files).
    pub delimiter: u8,
    /// Whether the first record names the columns. Without a header the
    /// columns are named by position, `column 1`, `column 2`, … (see
    /// [`Table::name_columns`] to give them names).
    pub has_header: bool,
}

impl Default for CsvOptions {
    /// Comma-separated, with a header.
    fn default() -> Self {
        CsvOptions {
            delimiter: b',',
            has_header: true,
        }
    }
}

impl CsvOptions {
    fn check(&self) -> Result<()> {
        let d = self.delimiter;
        if d == b'"' || d == b'\n' || d == b'\r' || !d.is_ascii() {
            return Err(Error::InvalidArgument(format!(
                "the delimiter must be an ASCII character other than a quote or a line end, got byte {d}"
            )));
        }
        Ok(())
    }
}

/// A CSV file as text cells: a header and rows of the same width.
#[derive(Debug, Clone, PartialEq)]
pub struct Table {
    pub header: Vec<String>,
    pub rows: Vec<Vec<String>>,
}

impl Table {
    /// Index of a column by name.
    pub fn column(&self, name: &str) -> Result<usize> {
        self.header
            .iter()
            .position(|h| h == name)
            .ok_or_else(|| Error::NotFound(format!("no column named '{name}'")))
    }

    /// Names the columns of a table read without a header (the names must be
    /// as many as the columns, non-empty and distinct).
    pub fn name_columns(mut self, names: Vec<String>) -> Result<Table> {
        if names.len() != self.header.len() {
            return Err(Error::Data(format!(
                "the file has {} columns, but {} names were given ({})",
                self.header.len(),
                names.len(),
                names.join(", ")
            )));
        }
        check_header(&names)?;
        self.header = names;
        Ok(self)
    }
}

fn check_header(header: &[String]) -> Result<()> {
    let mut seen = std::collections::HashMap::new();
    for (j, h) in header.iter().enumerate() {
        if h.is_empty() {
            return Err(Error::Data(format!("header: column {} has no name", j + 1)));
        }
        if let Some(first) = seen.insert(h.as_str(), j) {
            return Err(Error::Data(format!(
                "header: the name '{h}' is used by columns {} and {}",
                first + 1,
                j + 1
            )));
        }
    }
    Ok(())
}

/// Reads a comma-separated CSV file with a header; see [`read_csv_with`].
pub fn read_csv(path: &Path) -> Result<Table> {
    read_csv_with(path, &CsvOptions::default())
}

/// Reads a CSV file; a missing file, ragged rows, bad quoting, an empty or
/// repeated header name, or a file without data rows are errors naming the
/// file (and the line).
pub fn read_csv_with(path: &Path, opts: &CsvOptions) -> Result<Table> {
    let bytes = std::fs::read(path)
        .map_err(|e| Error::Io(format!("cannot read '{}': {e}", path.display())))?;
    parse_csv_with(&bytes, opts).map_err(|e| match e {
        Error::Data(m) => Error::Data(format!("{}: {m}", path.display())),
        other => other,
    })
}

/// Parses comma-separated CSV text whose first line is the header.
pub fn parse_csv(text: &str) -> Result<Table> {
    parse_csv_with(text.as_bytes(), &CsvOptions::default())
}

/// Parses CSV bytes (UTF-8, an optional byte-order mark) laid out as `opts` says.
/// Blank lines are skipped; header names are trimmed.
pub fn parse_csv_with(bytes: &[u8], opts: &CsvOptions) -> Result<Table> {
    opts.check()?;
    let bytes = bytes.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(bytes);
    // The csv crate reads an unterminated quoted field to the end of the
    // file; in a well-formed file quotes come in pairs (`""` escapes too).
    if bytes.iter().filter(|&&b| b == b'"').count() % 2 == 1 {
        return Err(Error::Data(
            "unterminated quoted field (the file has an odd number of double quotes)".into(),
        ));
    }
    let mut reader = ::csv::ReaderBuilder::new()
        .delimiter(opts.delimiter)
        .has_headers(false)
        .flexible(true)
        .from_reader(bytes);
    let mut header: Option<Vec<String>> = None;
    let mut rows = Vec::new();
    for record in reader.records() {
        let record = record.map_err(|e| Error::Data(describe_csv_error(&e)))?;
        let line = record.position().map_or(0, |p| p.line());
        let cells: Vec<String> = record.iter().map(str::to_string).collect();
        match &header {
            None if opts.has_header => {
                let names: Vec<String> = cells.iter().map(|h| h.trim().to_string()).collect();
                check_header(&names)?;
                header = Some(names);
            }
            None => {
                header = Some((1..=cells.len()).map(|j| format!("column {j}")).collect());
                rows.push(cells);
            }
            Some(h) => {
                if cells.len() != h.len() {
                    return Err(Error::Data(format!(
                        "line {line}: {} fields, but the {} has {}",
                        cells.len(),
                        if opts.has_header {
                            "header"
                        } else {
                            "first row"
                        },
                        h.len()
                    )));
                }
                rows.push(cells);
            }
        }
    }
    let header = header.ok_or_else(|| Error::Data("the file is empty".into()))?;
    if rows.is_empty() {
        return Err(Error::Data("the file has a header but no data rows".into()));
    }
    Ok(Table { header, rows })
}

fn describe_csv_error(e: &::csv::Error) -> String {
    match e.kind() {
        ::csv::ErrorKind::Utf8 { pos, err } => format!(
            "line {}: field {} is not valid UTF-8",
            pos.as_ref().map_or(0, |p| p.line()),
            err.field() + 1
        ),
        _ => e.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quoting_line_ends_and_delimiters() {
        let t = parse_csv("a,b\r\n\"x, y\",\"say \"\"hi\"\"\"\n\n1,2").unwrap();
        assert_eq!(t.header, vec!["a", "b"]);
        assert_eq!(t.rows, vec![vec!["x, y", "say \"hi\""], vec!["1", "2"]]);
        let semi = CsvOptions {
            delimiter: b';',
            has_header: true,
        };
        let t = parse_csv_with("\u{feff}montant;durée\n1,5;12\n".as_bytes(), &semi).unwrap();
        assert_eq!(t.header, vec!["montant", "durée"]);
        assert_eq!(t.rows, vec![vec!["1,5", "12"]]);
        let bare = CsvOptions {
            delimiter: b'\t',
            has_header: false,
        };
        let t = parse_csv_with(b"1\t2\n3\t4\n", &bare).unwrap();
        assert_eq!(t.header, vec!["column 1", "column 2"]);
        assert_eq!(t.rows.len(), 2);
        let t = t.name_columns(vec!["x".into(), "y".into()]).unwrap();
        assert_eq!(t.column("y").unwrap(), 1);
    }

    #[test]
    fn unreadable_tables_are_refused_with_their_line() {
        let e = parse_csv("a,b\n1,2\n3\n").unwrap_err();
        assert!(
            matches!(&e, Error::Data(m) if m.contains("line 3") && m.contains("1 fields")),
            "{e}"
        );
        let e = parse_csv("a,b\n").unwrap_err();
        assert!(
            matches!(&e, Error::Data(m) if m.contains("no data rows")),
            "{e}"
        );
        assert!(matches!(parse_csv(""), Err(Error::Data(m)) if m.contains("empty")));
        let e = parse_csv("a,b,a\n1,2,3\n").unwrap_err();
        assert!(
            matches!(&e, Error::Data(m) if m.contains("'a' is used by columns 1 and 3")),
            "{e}"
        );
        let e = parse_csv("a,,c\n1,2,3\n").unwrap_err();
        assert!(
            matches!(&e, Error::Data(m) if m.contains("column 2 has no name")),
            "{e}"
        );
        let e = parse_csv_with(b"a\n\xff\n", &CsvOptions::default()).unwrap_err();
        assert!(
            matches!(&e, Error::Data(m) if m.contains("not valid UTF-8")),
            "{e}"
        );
        let quote = CsvOptions {
            delimiter: b'"',
            has_header: true,
        };
        assert!(matches!(
            parse_csv_with(b"a\n1\n", &quote),
            Err(Error::InvalidArgument(_))
        ));
        let t = parse_csv_with(
            b"1,2\n",
            &CsvOptions {
                delimiter: b',',
                has_header: false,
            },
        )
        .unwrap();
        assert!(t.clone().name_columns(vec!["x".into()]).is_err());
        assert!(t.name_columns(vec!["x".into(), "x".into()]).is_err());
    }
}
