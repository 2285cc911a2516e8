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
//!
//! # Three versions of the advice
//! Next to the cheapest change the notice carries the exact engine's two
//! other answers, each marked against the reasons the same way:
//! * the *waiting option* ([`crate::coherent::waiting::explain_with_waiting`]):
//!   the cheapest advice when waiting is one of the actions, proven over
//!   every month the schema allows — a reason that only time moves ("months
//!   since the most recent delinquency") is often addressed by waiting and by
//!   nothing else;
//! * the *robust version* ([`Config::robustness`]): advice that stays
//!   approved when it is carried out a little imprecisely (Gaussian slips
//!   with at most the stated invalidation rate; the closed-form margin of
//!   Pawelczyk et al., ICLR 2023, for a logistic model).
//!
//! Either may be missing, and the notice then says why in words
//! ([`AdviceVersion::status`] `"not_available"`): the schema has no waiting
//! rule, no robustness target was set, or the model kind has no exact robust
//! advice (the exact engine proves it for linear models only: tree
//! ensembles, scorecards and networks get "not available for this model
//! kind" rather than an approximation).

use super::{ReasonOptions, ReasonSet, ReasonTable, Reference};
use crate::coherent::{self, BoxKind, Config, Outcome, Robustness};
use crate::error::{Error, Result};
use crate::model::Model;
use crate::schema::{Change, Schema};
use serde::Serialize;

/// Version of the notice JSON format (2: the waiting option, the robust
/// version and their marks).
pub const NOTICE_FORMAT_VERSION: u32 = 2;

/// The robustness target of a notice's robust advice unless the bank sets
/// another: σ² = 0.01 on each min–max scaled slot, at most 10 % of slipped
/// implementations declined (the target of cfx's robustness examples).
pub const DEFAULT_NOTICE_ROBUSTNESS: Robustness = Robustness {
    sigma2: 0.01,
    invalidation_target: 0.1,
    box_kind: BoxKind::Reals,
};

/// How a notice is made.
#[derive(Debug, Clone)]
pub struct NoticeOptions {
    pub reasons: ReasonOptions,
    /// The exact engine's settings for the advice and the necessity proofs
    /// (its own `robustness` is not used: see [`NoticeOptions::robustness`]).
    pub config: Config,
    /// Skip the necessity proofs (one re-solve per changed feature).
    pub skip_necessity: bool,
    /// The target of the robust version of the advice (default
    /// [`DEFAULT_NOTICE_ROBUSTNESS`]; `None`: not computed, and the notice
    /// says it was not requested).
    pub robustness: Option<Robustness>,
}

impl Default for NoticeOptions {
    fn default() -> Self {
        NoticeOptions {
            reasons: ReasonOptions::default(),
            config: Config::default(),
            skip_necessity: false,
            robustness: Some(DEFAULT_NOTICE_ROBUSTNESS),
        }
    }
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
    /// The waiting option moves one of the reason's features (by the wait
    /// or by a change after it).
    pub waiting_acts: bool,
    /// The robust version of the advice moves one of the reason's features.
    pub robust_acts: bool,
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
    /// The raw row the advice leads to (what an advice ledger records).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub advised: Option<Vec<f64>>,
    /// The advice in plain words.
    pub text: String,
}

/// The waiting option or the robust version of the advice (module docs,
/// "Three versions of the advice").
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct AdviceVersion {
    /// `optimal`, `time_limit`, `infeasible` or `unknown` as for [`Advice`],
    /// or `not_available` (`text` says why).
    pub status: String,
    /// Every change from the applicant's row to the advised row, the wait's
    /// own changes included (empty without advice).
    pub changes: Vec<Change>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cost: Option<f64>,
    /// The raw row the advice leads to (after waiting, where it waits).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub advised: Option<Vec<f64>>,
    /// Months to wait (the waiting option with advice; 0: act now).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub months: Option<u32>,
    /// The robustness target in words (the robust version).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub target: Option<String>,
    /// The robustness target itself (the robust version): not part of the
    /// notice's JSON, which says it in words (`target`), but kept for the
    /// ledger records of the notice's advice ([`LedgerRecord::robustness`](crate::revalidate::LedgerRecord::robustness)).
    #[serde(skip)]
    pub robustness: Option<Robustness>,
    /// The version in plain words, or why it is not available.
    pub text: String,
}

impl AdviceVersion {
    fn not_available(text: String, target: Option<Robustness>) -> AdviceVersion {
        AdviceVersion {
            status: "not_available".into(),
            changes: Vec::new(),
            cost: None,
            advised: None,
            months: None,
            target: target.map(|t| t.label()),
            robustness: target,
            text,
        }
    }

    /// Whether the version moves feature `i`.
    fn touches(&self, i: usize) -> bool {
        self.changes.iter().any(|c| c.feature == i)
    }
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
    /// The cheapest advice when waiting is one of the actions.
    pub waiting: AdviceVersion,
    /// The advice that stays approved under small slips.
    pub robust: AdviceVersion,
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
                    advised: cf.map(|c| c.raw.clone()),
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
    let mut plain = opts.config;
    plain.robustness = None;
    let waiting = waiting_option(model, schema, raw, &plain);
    let robust = robust_version(model, schema, raw, &plain, opts.robustness);
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
            waiting_acts: idx.iter().any(|&i| waiting.touches(i)),
            robust_acts: idx.iter().any(|&i| robust.touches(i)),
        });
    }
    let first_reason_note = first_note(&reasons, &marks, advice.as_ref(), &waiting);
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
        waiting,
        robust,
        necessary_features,
        first_reason_note,
    })
}

/// The exact engine's waiting advice as a notice carries it.
fn waiting_option(
    model: &dyn Model,
    schema: &Schema,
    raw: &[f64],
    config: &Config,
) -> AdviceVersion {
    if schema.waiting().is_none() {
        return AdviceVersion::not_available(
            "Not available: this model's rules do not count waiting as a way to approval.".into(),
            None,
        );
    }
    let ex = match coherent::waiting::explain_with_waiting(schema, model, raw, config) {
        Ok(ex) => ex,
        Err(e) => {
            return AdviceVersion::not_available(
                format!("Not available for this model kind: {e}"),
                None,
            );
        }
    };
    let status = match (&ex.advice, &ex.unproven) {
        (_, Some(o)) => status_name(o),
        (Some(_), None) => "optimal",
        (None, None) => "infeasible",
    };
    match &ex.advice {
        Some(a) => AdviceVersion {
            status: status.into(),
            changes: schema.describe_changes(raw, &a.raw),
            cost: Some(a.cost),
            advised: Some(a.raw.clone()),
            months: Some(a.months),
            target: None,
            robustness: None,
            text: if a.months == 0 {
                "Waiting would not make approval any easier: the smallest change above is also \
                 the smallest when waiting is allowed."
                    .into()
            } else {
                format!(
                    "If you can wait, the smallest way to approval is: {}.",
                    a.describe()
                )
            },
        },
        None => AdviceVersion {
            status: status.into(),
            changes: Vec::new(),
            cost: None,
            advised: None,
            months: None,
            target: None,
            robustness: None,
            text: if status == "infeasible" {
                "Waiting does not lead to approval either: no wait the rules allow, with or \
                 without changes, would be approved."
                    .into()
            } else {
                format!("No waiting advice was found: {}.", ex.describe())
            },
        },
    }
}

/// The exact engine's robust advice as a notice carries it (linear models
/// only: module docs).
fn robust_version(
    model: &dyn Model,
    schema: &Schema,
    raw: &[f64],
    config: &Config,
    target: Option<Robustness>,
) -> AdviceVersion {
    let Some(target) = target else {
        return AdviceVersion::not_available(
            "Not requested: no robustness target was set for these notices.".into(),
            None,
        );
    };
    if model.as_linear().is_none() {
        return AdviceVersion::not_available(
            "Not available for this model kind: cfx proves advice that stays approved under \
                 small slips only for linear (logistic) models."
                .into(),
            Some(target),
        );
    }
    let mut c = *config;
    c.robustness = Some(target);
    let ex = match coherent::explain(schema, model, raw, &c) {
        Ok(ex) => ex,
        Err(e) => {
            return AdviceVersion::not_available(format!("Not available: {e}"), Some(target));
        }
    };
    match ex.counterfactuals.first() {
        Some(cf) => AdviceVersion {
            status: status_name(&ex.outcome).into(),
            changes: cf.changes.clone(),
            cost: Some(cf.cost),
            advised: Some(cf.raw.clone()),
            months: None,
            target: Some(target.label()),
            robustness: Some(target),
            text: format!(
                "To stay approved even if the change is carried out a little imprecisely, the \
                 smallest change is: {}.",
                cf.describe()
            ),
        },
        None => AdviceVersion {
            status: status_name(&ex.outcome).into(),
            changes: Vec::new(),
            cost: None,
            advised: None,
            months: None,
            target: Some(target.label()),
            robustness: Some(target),
            text: "No change that can be made would stay approved with this safety margin.".into(),
        },
    }
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
    waiting: &AdviceVersion,
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
    let by_waiting = if m.waiting_acts && waiting.months.is_some_and(|k| k > 0) {
        " Waiting, as the waiting option below describes, would address it."
    } else {
        ""
    };
    let note = match advice {
        Some(a) if !a.changes.is_empty() => format!(
            "The main reason for this decision is \"{what}\". The advice below does not ask you \
             to change it, because {why}; the smallest change that would lead to approval \
             concerns other factors."
        ),
        _ => format!(
            "The main reason for this decision is \"{what}\". No advice is given for it, because \
             {why}, and no change that can be made would lead to approval under this model."
        ),
    };
    Some(note + by_waiting)
}
