//! A small, strict CSV reader (RFC 4180 quoting, LF or CRLF line ends).

use crate::error::{Error, Result};
use std::path::Path;

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
}

/// Reads a CSV file; a missing file, ragged rows or bad quoting are errors.
pub fn read_csv(path: &Path) -> Result<Table> {
    let text = std::fs::read_to_string(path)
        .map_err(|e| Error::Io(format!("cannot read '{}': {e}", path.display())))?;
    parse_csv(&text).map_err(|e| match e {
        Error::Data(m) => Error::Data(format!("{}: {m}", path.display())),
        other => other,
    })
}

/// Parses CSV text (first line is the header).
pub fn parse_csv(text: &str) -> Result<Table> {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let mut records: Vec<(usize, Vec<String>)> = Vec::new();
    let mut field = String::new();
    let mut record = Vec::new();
    let mut in_quotes = false;
    let mut line = 1usize;
    let mut record_line = 1usize;
    let mut chars = text.chars().peekable();
    let mut field_started = false;
    while let Some(c) = chars.next() {
        if in_quotes {
            match c {
                '"' if chars.peek() == Some(&'"') => {
                    chars.next();
                    field.push('"');
                }
                '"' => in_quotes = false,
                '\n' => {
                    line += 1;
                    field.push(c)
                }
                _ => field.push(c),
            }
            continue;
        }
        match c {
            '"' if !field_started => {
                in_quotes = true;
                field_started = true;
            }
            '"' => {
                return Err(Error::Data(format!(
                    "line {line}: stray quote inside a field"
                )));
            }
            ',' => {
                record.push(std::mem::take(&mut field));
                field_started = false;
            }
            '\r' if chars.peek() == Some(&'\n') => {}
            '\n' => {
                record.push(std::mem::take(&mut field));
                field_started = false;
                let r = std::mem::take(&mut record);
                if !(r.len() == 1 && r[0].is_empty()) {
                    records.push((record_line, r));
                }
                line += 1;
                record_line = line;
            }
            _ => {
                field.push(c);
                field_started = true;
            }
        }
    }
    if in_quotes {
        return Err(Error::Data(format!(
            "line {record_line}: unterminated quoted field"
        )));
    }
    if field_started || !field.is_empty() || !record.is_empty() {
        record.push(field);
        records.push((record_line, record));
    }
    let mut it = records.into_iter();
    let (_, header) = it
        .next()
        .ok_or_else(|| Error::Data("the file is empty (no header)".into()))?;
    let header: Vec<String> = header.into_iter().map(|h| h.trim().to_string()).collect();
    let mut rows = Vec::new();
    for (ln, r) in it {
        if r.len() != header.len() {
            return Err(Error::Data(format!(
                "line {ln}: {} fields, but the header has {}",
                r.len(),
                header.len()
            )));
        }
        rows.push(r);
    }
    Ok(Table { header, rows })
}
