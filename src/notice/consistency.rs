//! The notice: principal reasons and the exact engine's advice, made
//! consistent by construction.
//!
//! A bank that ranks reasons with one tool and advises with another can send
//! "reason 1: too many recent inquiries" beside "advice: raise your savings".
//! Here both come from the same model and schema, and every reason is marked:
//! whether the cheapest change acts on it, whether the preset makes it
//! immutable or time-driven, and whether it is *necessary* — present in every
//! cheapest change. Necessity is proven by the exact engine: feature `j` is
//! necessary iff forbidding any change to `j` makes the problem infeasible or
//! strictly more expensive (re-solving with `j` frozen; a feature the optimum
//! does not change is not necessary, the optimum itself being the witness).
//! A notice whose first reason no advice acts on says so in plain words
//! (Fernández-Loría, Provost & Han, arXiv 2001.07417: importance and what
//! flips a decision are different things; the applicant should not be left
//! to guess which one a reason is).

use super::{ReasonOptions, ReasonSet, ReasonTable, Reference};
use crate::coherent::{self, Config, Outcome};
use crate::error::{Error, Result};
use crate::model::Model;
use crate::schema::{Change, Schema};
use serde::Serialize;

/// Version of the notice JSON format.
pub const NOTICE_FORMAT_VERSION: u32 = 1;

/// How a notice is made.
#[derive(Debug, Clone, Default)]
pub struct NoticeOptions {
    pub reasons: ReasonOptions,
    /// The exact engine's settings for the advice and the necessity proofs.
    pub config: Config,
    /// Skip the necessity proofs (one re-solve per changed feature).
    pub skip_necessity: bool,
}

/// Whether every cheapest change must touch a feature.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Necessity {
    /// Frozen, the problem is infeasible or strictly more expensive.
    Necessary,
    /// Some cheapest change leaves it alone.
    NotNecessary,
    /// The re-solve ended without a proof either way (a time limit), or the
    /// proofs were skipped.
    Undecided,
}

/// How one reason stands against the advice.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ReasonMark {
    pub rank: usize,
    /// The cheapest change moves one of the reason's features.
    pub advice_acts: bool,
    /// Every feature of the reason is immutable under the schema's preset.
    pub immutable: bool,
    /// A feature of the reason changes only with time (the preset's waiting rules).
    pub time_driven: bool,
    /// Whether every cheapest change must touch the reason's main feature.
    pub necessity: Necessity,
}

/// The exact engine's cheapest change, as the notice carries it.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Advice {
    /// `optimal`, `time_limit`, `infeasible` or `unknown`.
    pub status: String,
    /// The changes of the cheapest accepted applicant (empty without one).
    pub changes: Vec<Change>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cost: Option<f64>,
    /// The advice in plain words.
    pub text: String,
}

/// One declined applicant's notice (see the module docs).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Notice {
    pub format_version: u32,
    /// A fingerprint of the schema, the model's score and the applicant's
    /// row: the same notice has the same id.
    pub id: String,
    pub applicant: Vec<f64>,
    pub reasons: ReasonSet,
    /// Parallel to `reasons.reasons`.
    pub marks: Vec<ReasonMark>,
    /// `None` when the exact engine does not take this model kind (the
    /// reason is in `advice_error`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub advice: Option<Advice>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub advice_error: Option<String>,
    /// The features every cheapest change must touch.
    pub necessary_features: Vec<String>,
    /// Set when no advice acts on the first reason: why, in plain words.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub first_reason_note: Option<String>,
}

impl Notice {
    /// The notice as JSON.
    pub fn to_json(&self) -> String {
        serde_json::to_string_pretty(self).expect("a notice always serialises")
    }
}

/// Makes the notice of a declined raw applicant row (an accepted one is an
/// error: there is nothing to notify).
pub fn notice(
    model: &dyn Model,
    schema: &Schema,
    raw: &[f64],
    reference: &Reference,
    table: Option<&ReasonTable>,
    opts: &NoticeOptions,
) -> Result<Notice> {
    let reasons = super::reasons(model, schema, raw, reference, table, &opts.reasons)?;
    let x = schema.encode(raw)?;
    if model.accepts(&x) {
        return Err(Error::InvalidArgument(
            "the model accepts this applicant: an adverse-action notice is for a declined one"
                .into(),
        ));
    }
    let (advice, advice_error, changed, optimum) =
        match coherent::explain(schema, model, raw, &opts.config) {
            Ok(ex) => {
                let cf = ex.counterfactuals.first();
                let changed: Vec<usize> = cf
                    .map(|c| c.changes.iter().map(|ch| ch.feature).collect())
                    .unwrap_or_default();
                let advice = Advice {
                    status: status_name(&ex.outcome).into(),
                    changes: cf.map(|c| c.changes.clone()).unwrap_or_default(),
                    cost: cf.map(|c| c.cost),
                    text: match cf {
                        Some(c) => {
                            format!("To be approved, the smallest change is: {}.", c.describe())
                        }
                        None => "No change to what can change under this model's rules would lead \
                                 to approval."
                            .into(),
                    },
                };
                (Some(advice), None, changed, cf.map(|c| c.cost))
            }
            Err(e) => (None, Some(e.to_string()), Vec::new(), None),
        };
    let necessity = |i: usize| -> Result<Necessity> {
        if !changed.contains(&i) {
            return Ok(if optimum.is_some() {
                Necessity::NotNecessary
            } else {
                Necessity::Undecided
            });
        }
        if opts.skip_necessity {
            return Ok(Necessity::Undecided);
        }
        necessary(
            schema,
            model,
            raw,
            &opts.config,
            i,
            optimum.expect("changed ⇒ optimum"),
        )
    };
    let mut necessary_features = Vec::new();
    for &i in &changed {
        if necessity(i)? == Necessity::Necessary {
            necessary_features.push(schema.features[i].name.clone());
        }
    }
    let mut marks = Vec::new();
    for r in &reasons.reasons {
        let idx: Vec<usize> = r
            .features
            .iter()
            .map(|n| schema.index_of(n))
            .collect::<Result<_>>()?;
        let main = schema.index_of(&r.feature)?;
        marks.push(ReasonMark {
            rank: r.rank,
            advice_acts: idx.iter().any(|i| changed.contains(i)),
            immutable: idx
                .iter()
                .all(|&i| !schema.features[i].actionability.mutable),
            time_driven: idx
                .iter()
                .any(|&i| schema.features[i].actionability.grows_with_time.is_some()),
            necessity: if necessary_features.contains(&r.feature) {
                Necessity::Necessary
            } else {
                necessity(main)?
            },
        });
    }
    let first_reason_note = first_note(&reasons, &marks, advice.as_ref());
    let id = crate::json::fingerprint(&format!(
        "{}|{:?}|{:e}",
        crate::json::schema_fingerprint(schema),
        raw,
        reasons.score
    ));
    Ok(Notice {
        format_version: NOTICE_FORMAT_VERSION,
        id,
        applicant: raw.to_vec(),
        reasons,
        marks,
        advice,
        advice_error,
        necessary_features,
        first_reason_note,
    })
}

fn status_name(o: &Outcome) -> &'static str {
    match o {
        Outcome::Optimal => "optimal",
        Outcome::TimeLimit { .. } => "time_limit",
        Outcome::Infeasible { .. } => "infeasible",
        Outcome::Unknown { .. } => "unknown",
    }
}

/// Feature `i`, changed by an optimum of cost `best`: re-solves with `i`
/// frozen (immutable) and compares (see the module docs).
pub(crate) fn necessary(
    schema: &Schema,
    model: &dyn Model,
    raw: &[f64],
    config: &Config,
    i: usize,
    best: f64,
) -> Result<Necessity> {
    let mut frozen = schema.clone();
    frozen.features[i].actionability.mutable = false;
    frozen.features[i].actionability.grows_with_time = None;
    let frozen = Schema::from_json(&frozen.to_json())?;
    let ex = coherent::explain(&frozen, model, raw, config)?;
    Ok(match (&ex.outcome, ex.counterfactuals.first()) {
        (Outcome::Infeasible { .. }, _) => Necessity::Necessary,
        (Outcome::Optimal, Some(cf)) => {
            // Both solves are proven within the MIP gap: a difference above
            // it is a strict increase.
            let tol = config.mip_gap.max(1e-9) * best.abs().max(1.0);
            if cf.cost > best + tol {
                Necessity::Necessary
            } else {
                Necessity::NotNecessary
            }
        }
        _ => Necessity::Undecided,
    })
}

fn first_note(
    reasons: &ReasonSet,
    marks: &[ReasonMark],
    advice: Option<&Advice>,
) -> Option<String> {
    let (r, m) = (reasons.reasons.first()?, marks.first()?);
    if m.advice_acts {
        return None;
    }
    let what = r.statement.clone().unwrap_or_else(|| r.feature.clone());
    let why = if m.immutable {
        "it is something that cannot be changed"
    } else if m.time_driven {
        "it changes only with time"
    } else {
        "changing it is not the smallest way to approval"
    };
    Some(match advice {
        Some(a) if !a.changes.is_empty() => format!(
            "The main reason for this decision is \"{what}\". The advice below does not ask you \
             to change it, because {why}; the smallest change that would lead to approval \
             concerns other factors."
        ),
        _ => format!(
            "The main reason for this decision is \"{what}\". No advice is given for it, because \
             {why}, and no change that can be made would lead to approval under this model."
        ),
    })
}

/// What [`notices_jsonl`] wrote.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct BookSummary {
    pub rows: usize,
    pub declined: usize,
    /// Declined rows whose notice failed (an error line was written instead).
    pub errors: usize,
}

/// Notices for a whole book: one compact JSON line per declined applicant of
/// `rows` (raw rows under `schema`), `{"row": k, "notice": {...}}`, or
/// `{"row": k, "error": "..."}` when that applicant's notice could not be
/// made (an incoherent row, say): one bad row does not stop the book.
/// Accepted applicants get no line.
pub fn notices_jsonl<W: std::io::Write>(
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
        declined: 0,
        errors: 0,
    };
    let io = |e: std::io::Error| Error::Io(format!("writing the notices: {e}"));
    for (k, raw) in rows.iter().enumerate() {
        let line = match schema.encode(raw) {
            Ok(x) if model.accepts(&x) => continue,
            Ok(_) => {
                summary.declined += 1;
                match notice(model, schema, raw, reference, table, opts) {
                    Ok(n) => serde_json::json!({"row": k, "notice": n}),
                    Err(e) => {
                        summary.errors += 1;
                        serde_json::json!({"row": k, "error": e.to_string()})
                    }
                }
            }
            Err(e) => {
                summary.declined += 1;
                summary.errors += 1;
                serde_json::json!({"row": k, "error": e.to_string()})
            }
        };
        writeln!(out, "{line}").map_err(io)?;
    }
    Ok(summary)
}
