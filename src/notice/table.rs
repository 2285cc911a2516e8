//! The bank's reason table: each feature (or feature and direction) mapped to
//! its reason code and the statement the applicant reads. The bank owns it —
//! Regulation B asks for the specific reasons, and only the bank can word
//! them for its products; cfx ships reviewed tables for its bundled data
//! (`data/reasons/`) and checks that a table fits the schema.
//!
//! A table is JSON (`{"format_version": 1, "entries": [...]}`) or CSV with
//! the header `feature,direction,code,statement`. `direction` is `low` (the
//! applicant's value is below the reference average), `high`, or empty/`any`.
//! An entry may also name a model's own reason code with an empty feature
//! (a PMML scorecard's codes), giving that code its statement.

use super::rank::Direction;
use crate::error::{Error, Result};
use crate::schema::Schema;
use serde::{Deserialize, Serialize};

/// Version of the reason-table JSON format.
pub const REASON_TABLE_FORMAT_VERSION: u32 = 1;

/// Which side of the reference average an entry is for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "snake_case")]
pub enum EntryDirection {
    #[default]
    Any,
    Low,
    High,
}

/// One row of a reason table.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ReasonEntry {
    /// The schema feature (empty for an entry that words a model's own code).
    #[serde(default)]
    pub feature: String,
    #[serde(default)]
    pub direction: EntryDirection,
    pub code: String,
    pub statement: String,
}

/// A bank's reason table (see the module docs).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ReasonTable {
    pub format_version: u32,
    pub entries: Vec<ReasonEntry>,
}

impl ReasonTable {
    /// A table from its entries, checked against `schema`.
    pub fn new(entries: Vec<ReasonEntry>, schema: &Schema) -> Result<ReasonTable> {
        let t = ReasonTable {
            format_version: REASON_TABLE_FORMAT_VERSION,
            entries,
        };
        t.check(schema)?;
        Ok(t)
    }

    /// Reads a JSON table and checks it against `schema`.
    pub fn from_json(json: &str, schema: &Schema) -> Result<ReasonTable> {
        let v = crate::json::parse(json, "reason table")?;
        let version = crate::json::format_version(&v, "reason table")?;
        if version != REASON_TABLE_FORMAT_VERSION {
            return Err(Error::Format(format!(
                "reason table format version {version} is not supported (this cfx reads \
                 {REASON_TABLE_FORMAT_VERSION})"
            )));
        }
        let t: ReasonTable = crate::json::from_value(&v, "reason table")?;
        t.check(schema)?;
        Ok(t)
    }

    /// Reads a CSV table (header `feature,direction,code,statement`) and
    /// checks it against `schema`.
    pub fn from_csv(text: &str, schema: &Schema) -> Result<ReasonTable> {
        let table = crate::data::parse_csv(text)?;
        let want = ["feature", "direction", "code", "statement"];
        if table.header != want {
            return Err(Error::Format(format!(
                "reason table CSV: the header must be {}, got {}",
                want.join(","),
                table.header.join(",")
            )));
        }
        let entries = table
            .rows
            .iter()
            .enumerate()
            .map(|(k, r)| {
                let direction = match r[1].trim() {
                    "" | "any" => EntryDirection::Any,
                    "low" => EntryDirection::Low,
                    "high" => EntryDirection::High,
                    other => {
                        return Err(Error::Format(format!(
                            "reason table CSV, row {}: direction '{other}' is not low, high or \
                             any",
                            k + 2
                        )));
                    }
                };
                Ok(ReasonEntry {
                    feature: r[0].trim().to_string(),
                    direction,
                    code: r[2].trim().to_string(),
                    statement: r[3].trim().to_string(),
                })
            })
            .collect::<Result<_>>()?;
        ReasonTable::new(entries, schema)
    }

    /// The table as JSON.
    pub fn to_json(&self) -> String {
        serde_json::to_string_pretty(self).expect("a reason table always serialises")
    }

    /// Every feature named exists, codes and statements are not empty, and no
    /// feature/direction (or code-only entry) appears twice.
    pub fn check(&self, schema: &Schema) -> Result<()> {
        let bad = |k: usize, m: String| Err(Error::Format(format!("reason table entry {k}: {m}")));
        for (k, e) in self.entries.iter().enumerate() {
            if e.code.trim().is_empty() || e.statement.trim().is_empty() {
                return bad(k, "the code and the statement must not be empty".into());
            }
            if !e.feature.is_empty() {
                schema.index_of(&e.feature).map_err(|_| {
                    Error::Format(format!(
                        "reason table entry {k}: '{}' is not a feature of the schema",
                        e.feature
                    ))
                })?;
            } else if e.direction != EntryDirection::Any {
                return bad(k, "an entry for a model's code has no direction".into());
            }
            let dup = self.entries[..k].iter().any(|o| {
                if e.feature.is_empty() {
                    o.feature.is_empty() && o.code == e.code
                } else {
                    o.feature == e.feature && o.direction == e.direction
                }
            });
            if dup {
                return bad(
                    k,
                    format!(
                        "'{}' appears twice",
                        if e.feature.is_empty() {
                            &e.code
                        } else {
                            &e.feature
                        }
                    ),
                );
            }
        }
        Ok(())
    }

    /// The entry of a feature for the applicant's direction: the entry for
    /// that direction, else the feature's `any` entry.
    pub fn for_feature(&self, feature: &str, direction: Direction) -> Option<&ReasonEntry> {
        let want = match direction {
            Direction::Low => Some(EntryDirection::Low),
            Direction::High => Some(EntryDirection::High),
            _ => None,
        };
        want.and_then(|w| {
            self.entries
                .iter()
                .find(|e| e.feature == feature && e.direction == w)
        })
        .or_else(|| {
            self.entries
                .iter()
                .find(|e| e.feature == feature && e.direction == EntryDirection::Any)
        })
    }

    /// The statement of a model's own code (a code-only entry).
    pub fn for_code(&self, code: &str) -> Option<&ReasonEntry> {
        self.entries
            .iter()
            .find(|e| e.feature.is_empty() && e.code == code)
    }
}
