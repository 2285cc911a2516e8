//! Advice that may wait (issue #16): "wait 9 months: MSinceMostRecentDelq
//! 15 → 24, …; then lower the credit amount 5000 → 4200".
//!
//! The features that grow with time are immutable to every action
//! ([`crate::schema::TimeGrowth`]); waiting `m` months moves them all, as
//! [`Schema::after_waiting`] says. For a fixed `m` the program is therefore the
//! plain one of the waited row: the time features are held at their waited
//! values, every other feature moves within the same bounds (waiting leaves
//! them, so change limits measured from the waited row are those measured
//! from the applicant), and the cost of the moves from the waited row equals
//! the cost from the applicant minus nothing (the time features' own moves
//! are the wait, priced at `cost_per_month·m` instead). So the outer loop
//!
//! ```text
//! min over m ∈ {0, …, M} of  cost_per_month·m + OPT(after_waiting(x, m))
//! ```
//!
//! is exact for either solver, and stops as soon as `cost_per_month·m` alone
//! reaches the best total found (every inner optimum is non-negative).
//! A waited row the model already accepts needs no move at all.

use super::{Config, Counterfactual, ProvedBy, explain};
use crate::error::{Error, Result, check_finite, check_len};
use crate::model::Model;
use crate::schema::{Change, Schema};
use serde::{Deserialize, Serialize};

/// The cheapest advice over every allowed wait.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct WaitingAdvice {
    /// Months to wait (0: act now).
    pub months: u32,
    /// `cost_per_month · months`.
    pub wait_cost: f64,
    /// The applicant's row after waiting, before any move.
    pub waited: Vec<f64>,
    /// The row to reach: the waited row, moved.
    pub raw: Vec<f64>,
    /// The moves after waiting (empty when waiting alone is accepted), with
    /// their certificate; `None` when waiting alone is accepted.
    pub counterfactual: Option<Counterfactual>,
    /// `wait_cost` plus the moves' cost.
    pub cost: f64,
    /// The changes the wait makes (time features), in words.
    pub wait_changes: Vec<Change>,
    /// The solver that proved the moves' optimum (`None`: waiting alone is accepted).
    pub proved_by: Option<ProvedBy>,
}

impl WaitingAdvice {
    /// In words: `wait 9 months: age_in_years: 28 → 28; …; then duration: 30 → 24`.
    pub fn describe(&self) -> String {
        let moves = self
            .counterfactual
            .as_ref()
            .map(|cf| cf.describe())
            .filter(|s| !s.is_empty());
        if self.months == 0 {
            return moves.unwrap_or_else(|| "no change".into());
        }
        let waits: Vec<String> = self.wait_changes.iter().map(|c| c.to_string()).collect();
        let mut out = format!("wait {} months", self.months);
        if !waits.is_empty() {
            out += &format!(" ({})", waits.join("; "));
        }
        if let Some(m) = moves {
            out += &format!(", then {m}");
        }
        out
    }
}

/// The cheapest advice for a declined applicant when waiting is one of the
/// actions: the exact minimum over the schema's waits (module docs) of the
/// wait's cost plus the optimal coherent counterfactual of the waited row,
/// each proven by [`Config::solver`]. Without a waiting action in the schema,
/// this is [`explain`]'s optimum. `Ok(None)`: no wait and no move is accepted.
pub fn explain_with_waiting(
    schema: &Schema,
    model: &dyn Model,
    factual: &[f64],
    config: &Config,
) -> Result<Option<WaitingAdvice>> {
    check_len("raw row", schema.n_features(), factual.len())?;
    check_finite("applicant row", factual)?;
    config.validate()?;
    let x0 = schema.encode(factual)?;
    if model.accepts(&x0) {
        return Err(Error::InvalidArgument(
            "the applicant is already accepted".into(),
        ));
    }
    let (price, max) = schema
        .waiting()
        .map_or((0.0, 0), |w| (w.cost_per_month, w.max_months));
    let mut best: Option<WaitingAdvice> = None;
    for m in 0..=max {
        let wait_cost = price * f64::from(m);
        if best.as_ref().is_some_and(|b| wait_cost >= b.cost) {
            break;
        }
        let waited = schema.after_waiting(factual, m)?;
        let wait_changes = schema.describe_changes(factual, &waited);
        let accepted_now = model.accepts(&schema.encode(&waited)?);
        let (counterfactual, raw, moves_cost, proved_by) = if accepted_now {
            (None, waited.clone(), 0.0, None)
        } else {
            let ex = explain(schema, model, &waited, config)?;
            let Some(cf) = ex.counterfactuals.into_iter().next() else {
                continue;
            };
            let (raw, c) = (cf.raw.clone(), cf.cost);
            (Some(cf), raw, c, Some(ex.proved_by))
        };
        let total = wait_cost + moves_cost;
        if best.as_ref().is_none_or(|b| total < b.cost - 1e-12) {
            best = Some(WaitingAdvice {
                months: m,
                wait_cost,
                waited,
                raw,
                counterfactual,
                cost: total,
                wait_changes,
                proved_by,
            });
        }
    }
    Ok(best)
}
