//! Advice the model accepts, or none (issue 25): a layer above the methods.
//!
//! The gradient methods (Wachter et al. 2017; PROBE and CROCO, Guyomard et
//! al. 2023) and COPA (Bui, Nguyen & Nguyen 2022) search a relaxation and
//! round; under a preset's change limits their final row is often still
//! declined by today's model. A declined row is not advice: a person who
//! follows it is declined again. [`check_or_repair`] checks a method's final
//! row with the model and with the schema's actionability rules
//! ([`Schema::check_advice`]) and returns one of three outcomes:
//!
//! * [`Outcome::Valid`] — the method's own row, accepted and actionable;
//! * [`Outcome::Repaired`] — the method's row was declined (or broke a rule),
//!   and the exact engine ([`crate::coherent::explain`], Russell 2019) found the
//!   cheapest accepted row that changes only the features the method moved,
//!   within the same schema (its actionability, limits and orders) —
//!   [`RepairScope::MovedFeatures`]; when no such row exists (the gradient
//!   methods move numerical features only, and under a preset's limits those
//!   alone often cannot flip the decision), the cheapest accepted row under
//!   the whole schema — [`RepairScope::WholeSchema`], the exact engine's own
//!   answer, said so;
//! * [`Outcome::NoAdvice`] — neither: "no valid advice found". The method's
//!   row is kept as `best_effort`, for diagnosis only, never as advice.
//!
//! The methods do not import each other (`robust` and `plan` know nothing of
//! `coherent`); this module sits above them.

use crate::coherent::{Config, explain};
use crate::error::Result;
use crate::model::Model;
use crate::schema::{Change, Schema};
use serde::Serialize;

/// What became of a method's answer.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Outcome {
    /// The method's row: accepted by the model and actionable.
    Valid,
    /// The exact engine's cheapest accepted row over the features the method moved.
    Repaired,
    /// No valid advice found.
    NoAdvice,
}

impl Outcome {
    /// In words, for a report.
    pub fn as_str(self) -> &'static str {
        match self {
            Outcome::Valid => "valid",
            Outcome::Repaired => "repaired by the exact engine",
            Outcome::NoAdvice => "no valid advice found",
        }
    }
}

/// Over which features a repair searched.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum RepairScope {
    /// Only the features the method moved.
    MovedFeatures,
    /// Every feature the schema lets move (the method's own moves did not suffice).
    WholeSchema,
}

/// A method's answer after the check.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Checked {
    pub outcome: Outcome,
    /// The advice (raw row); `None` for [`Outcome::NoAdvice`].
    pub advice: Option<Vec<f64>>,
    /// What the advice changes, in the data's own words (empty without advice).
    pub changes: Vec<Change>,
    /// The model's probability of the favourable outcome at the advice (or at
    /// the best effort, when there is no advice).
    pub probability: f64,
    /// The method's own final row, kept for diagnosis.
    pub best_effort: Vec<f64>,
    /// Where the repair searched (`Repaired` only).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub repair_scope: Option<RepairScope>,
    /// Why the method's own row is not the advice (declined, or the rule it
    /// breaks); `None` when it is.
    pub rejected_because: Option<String>,
}

impl Checked {
    /// True when there is advice (valid or repaired).
    pub fn has_advice(&self) -> bool {
        self.advice.is_some()
    }

    /// One line for a person: the advice and how it was obtained, or that
    /// there is none.
    pub fn describe(&self) -> String {
        let moves: Vec<String> = self
            .changes
            .iter()
            .map(|c| format!("{}: {} → {}", c.name, c.from_text, c.to_text))
            .collect();
        match self.outcome {
            Outcome::Valid => format!(
                "{} (accepted, probability {:.3})",
                moves.join("; "),
                self.probability
            ),
            Outcome::Repaired => format!(
                "{} (repaired by the exact engine {}: the method's own answer was {}; accepted, probability {:.3})",
                moves.join("; "),
                match self.repair_scope {
                    Some(RepairScope::WholeSchema) => {
                        "over every actionable feature, the method's own moves not sufficing"
                    }
                    _ => "over the features the method moved",
                },
                self.rejected_because.as_deref().unwrap_or("not advice"),
                self.probability
            ),
            Outcome::NoAdvice => format!(
                "no valid advice found (the method's best effort was {})",
                self.rejected_because.as_deref().unwrap_or("not advice")
            ),
        }
    }
}

/// Checks `answer` (a method's final raw row for the applicant `factual`) with
/// `model` and `schema`'s rules; when it fails and `repair` is given, asks the
/// exact engine (with that configuration) for the cheapest accepted row that
/// moves only the features `answer` moved, then, failing that, for the
/// cheapest accepted row under `schema`. Errors: rows of the wrong length,
/// a model the exact engine cannot encode (only when a repair is needed).
pub fn check_or_repair(
    schema: &Schema,
    model: &dyn Model,
    factual: &[f64],
    answer: &[f64],
    repair: Option<&Config>,
) -> Result<Checked> {
    check_after_waiting(schema, model, factual, answer, 0, repair)
}

/// [`check_or_repair`] for an answer that first waits `months` (a P-DQN plan
/// with a wait step): the rules are checked against the row after waiting
/// ([`Schema::check_advice`]). A repair (only for `months == 0`: the exact
/// engine here answers for the applicant as they are) is as there.
pub fn check_after_waiting(
    schema: &Schema,
    model: &dyn Model,
    factual: &[f64],
    answer: &[f64],
    months: u32,
    repair: Option<&Config>,
) -> Result<Checked> {
    crate::error::check_len("factual row", schema.n_features(), factual.len())?;
    crate::error::check_len("answer row", schema.n_features(), answer.len())?;
    let repair = repair.filter(|_| months == 0);
    let encoded = schema.encode(answer)?;
    let probability = model.probability(&encoded);
    let rejected = if let Err(e) = schema.check_advice(factual, answer, months) {
        Some(format!("not actionable: {}", e.message()))
    } else if !model.accepts(&encoded) {
        Some(format!(
            "declined by the model (probability {probability:.3})"
        ))
    } else if schema.describe_changes(factual, answer).is_empty() {
        Some("no change".into())
    } else {
        None
    };
    let Some(why) = rejected else {
        return Ok(Checked {
            outcome: Outcome::Valid,
            advice: Some(answer.to_vec()),
            changes: schema.describe_changes(factual, answer),
            probability,
            best_effort: answer.to_vec(),
            repair_scope: None,
            rejected_because: None,
        });
    };
    let none = Checked {
        outcome: Outcome::NoAdvice,
        advice: None,
        changes: Vec::new(),
        probability,
        best_effort: answer.to_vec(),
        repair_scope: None,
        rejected_because: Some(why.clone()),
    };
    let Some(config) = repair else {
        return Ok(none);
    };
    let restricted = restrict_to_moved(schema, factual, answer)?;
    let scopes = [
        (restricted.as_ref(), RepairScope::MovedFeatures),
        (Some(schema), RepairScope::WholeSchema),
    ];
    for (s, scope) in scopes {
        let Some(s) = s else { continue };
        let ex = explain(s, model, factual, config)?;
        let Some(cf) = ex.counterfactuals.first() else {
            continue;
        };
        // The exact engine's row is accepted and actionable under a schema
        // that only tightens `schema`; checked again, not assumed.
        let enc = schema.encode(&cf.raw)?;
        let p = model.probability(&enc);
        if !model.accepts(&enc) || schema.check_advice(factual, &cf.raw, 0).is_err() {
            continue;
        }
        return Ok(Checked {
            outcome: Outcome::Repaired,
            advice: Some(cf.raw.clone()),
            changes: schema.describe_changes(factual, &cf.raw),
            probability: p,
            best_effort: answer.to_vec(),
            repair_scope: Some(scope),
            rejected_because: Some(why),
        });
    }
    Ok(none)
}

/// `schema` with every feature that `answer` leaves at the applicant's value
/// made immutable; `None` when the answer moves nothing.
pub fn restrict_to_moved(
    schema: &Schema,
    factual: &[f64],
    answer: &[f64],
) -> Result<Option<Schema>> {
    let moved: Vec<usize> = schema
        .describe_changes(factual, answer)
        .iter()
        .map(|c| c.feature)
        .collect();
    if moved.is_empty() {
        return Ok(None);
    }
    let mut features = schema.features.clone();
    for (i, f) in features.iter_mut().enumerate() {
        if !moved.contains(&i) {
            f.actionability.mutable = false;
        }
    }
    Ok(Some(
        Schema::new_with_waiting(features, schema.waiting())?
            .with_max_features_changed(schema.max_features_changed)?,
    ))
}
