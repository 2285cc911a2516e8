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
//! are the wait, priced at `cost_per_month·m` instead). The answer is
//!
//! ```text
//! min over m ∈ W(x) of  cost_per_month·m + OPT(after_waiting(x, m))
//! ```
//!
//! where `W(x)` is [`Schema::advisable_waits`]`(x)`: the months from 0 to the
//! schema's `max_months`, shortened for this applicant when a longer wait
//! would carry a feature that refuses to pass its upper bound past it
//! (`past_upper: refuse`, [`Schema::longest_wait`]), without the waits that
//! would leave a time feature outside its advised range
//! ([`crate::schema::TimeGrowth::advised_range`]). cfx finds the minimum in
//! one of two exact ways, both over these months only.
//!
//! # One MIP (HiGHS)
//! On the MIP path ([`Config::solver`] `Mip`, a linear model or a points
//! scorecard) waiting is one integer variable of the program: `m ∈ [0, M]`,
//! priced `cost_per_month·m` in the objective, chosen through one binary per
//! *breakpoint* month,
//!
//! ```text
//! Σ_b z_b = 1,   m = Σ_b k_b·z_b,
//! ```
//!
//! where the breakpoints `k_0 = 0 < k_1 < …` are the months of `W(x)` at which
//! the waited row differs from the one of the month of `W(x)` before (a time
//! feature steps to its next grid point, reaches its cap, or enters the state
//! time ends in). Every month of a run without a change waits for the same row
//! and costs more than the run's first month (the price is non-negative), so
//! the first month of each run is the only one an optimum needs (whether a
//! month is advisable depends on its waited row alone, so a run is advisable
//! throughout or not at all): the breakpoint form is exact and has far
//! fewer binaries than one per month (German's age steps once in 12 months).
//! Each time feature's encoding after the wait is `Σ_b z_b·enc_i(after_waiting
//! (x, k_b))`, floors, caps and `ends_in` states included, since each `z_b`
//! carries the encoding of its whole waited row. Both models take
//! that encoding through a sum over features (the logistic score
//! `b + Σ_i a_i·enc_i`, the scorecard's points), so it enters the decision
//! row as `Σ_b Δ_b·z_b`, `Δ_b` the score of the row after `k_b` months less
//! the applicant's: the projection of the program onto the other features'
//! columns and `m` is the one of the linked encodings, with one entry per
//! breakpoint instead of a column per encoded slot. The time features'
//! own columns keep the applicant's values (they are immutable to actions)
//! and the read-back puts the chosen month's encoding in their place
//! (`WaitColumns::apply`). The robust margin of [`Config::robustness`]
//! (`σ‖w_S‖·Φ⁻¹(1 − γ)`, `S` the mutable features' slots) does not involve the
//! time features, so the same constant margin holds for the final row.
//!
//! # The outer loop (separable solver, tree ensembles)
//! The separable solver takes one waited row at a time, and a tree ensemble's
//! score is not a sum over features: there cfx loops over the months, one
//! solve per month, stopping as soon as `cost_per_month·m` alone reaches the
//! best total found (every inner optimum is non-negative). A waited row the
//! model already accepts needs no move at all.
//!
//! # What is proven
//! Solver outcomes are results, not errors, and the advice says what was
//! proven ([`WaitingExplanation::unproven`]). A solve that stops at a limit
//! (HiGHS's time limit, the separable solver's node limit) or with another
//! status proves nothing about its program: an answer it returns is accepted
//! but may not be cheapest, and no answer is not "none exists". The one MIP is
//! proven when HiGHS proves it optimal or infeasible. On the outer loop each
//! month is proven when its solve is optimal or infeasible (or its waited row
//! is accepted as it stands); a month that is not could still hold cheaper
//! advice, down to its wait's cost alone, so the advice is proven only when
//! every such month's wait costs at least the advice found. The early stop
//! needs no proof: it compares the wait's cost with advice actually found,
//! which is accepted whether or not it is proven cheapest. When an unproven
//! solve returned accepted advice, or another month's did, that advice is
//! kept (the best found), marked unproven.

use super::program::{Program, Scoring};
use super::{
    Config, Counterfactual, Outcome, ProvedBy, SEPARABLE_NODE_LIMIT_STATUS, Solved, SolverChoice,
};
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
    /// The solver of the advice (its proof of optimality unless
    /// [`WaitingExplanation::unproven`] says otherwise): [`ProvedBy::Highs`]
    /// when the one MIP solved the wait and the moves together (module docs),
    /// also when waiting alone is accepted; on the outer loop, the solver of
    /// the chosen month's moves (`None`: waiting alone is accepted).
    pub proved_by: Option<ProvedBy>,
}

/// What [`explain_with_waiting`] found and what it proved: the four cases are
/// advice proven optimal, advice not proven optimal, no advice proven to
/// exist, and no advice found without a proof that none exists.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct WaitingExplanation {
    /// The cheapest advice found (`None`: none found). When the explanation
    /// is proven it is the optimum; otherwise the best advice the solves
    /// returned, accepted by the model but perhaps not the cheapest.
    pub advice: Option<WaitingAdvice>,
    /// `None` when the explanation is proven: the advice is optimal, or no
    /// advice exists. Otherwise the outcome of the (first) solve that stopped
    /// with neither a proof of optimality nor of infeasibility — a time limit
    /// ([`Outcome::TimeLimit`], with or without an answer), the separable
    /// solver's node limit (raw status [`SEPARABLE_NODE_LIMIT_STATUS`]) or
    /// another status — on a program that could still hold cheaper advice
    /// (module docs, "What is proven"). Kept apart from errors: a limit is a
    /// property of the search, not of the input.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub unproven: Option<Outcome>,
}

impl WaitingExplanation {
    /// Whether the explanation is proven: the advice optimal, or none exists.
    pub fn is_proven(&self) -> bool {
        self.unproven.is_none()
    }

    /// In words: the advice ([`WaitingAdvice::describe`]), followed by
    /// `(not proven optimal: …)` when unproven; without advice, `no advice: no
    /// wait and no move is accepted` when that is proven, else `no advice
    /// found, and none proven impossible: …`.
    pub fn describe(&self) -> String {
        match (&self.advice, &self.unproven) {
            (Some(a), None) => a.describe(),
            (Some(a), Some(o)) => format!("{} (not proven optimal: {})", a.describe(), stopped(o)),
            (None, None) => "no advice: no wait and no move is accepted".into(),
            (None, Some(o)) => format!(
                "no advice found, and none proven impossible: {}",
                stopped(o)
            ),
        }
    }
}

/// Why a solve proved nothing, in words.
fn stopped(o: &Outcome) -> String {
    match o {
        Outcome::TimeLimit { has_solution: true } => {
            "the time limit stopped a solve before its answer was proven cheapest".into()
        }
        Outcome::TimeLimit {
            has_solution: false,
        } => "the time limit stopped a solve before it found an answer".into(),
        Outcome::Unknown {
            raw_status: SEPARABLE_NODE_LIMIT_STATUS,
        } => "the separable solver's node limit stopped a solve".into(),
        Outcome::Unknown { raw_status: -2 } => {
            "a solve's answer failed the strict acceptance test after the margin retries".into()
        }
        Outcome::Unknown { raw_status } => {
            format!("a solve ended with solver status {raw_status}")
        }
        Outcome::Optimal | Outcome::Infeasible { .. } => "a solve ended without a proof".into(),
    }
}

/// Whether a solve's outcome proves its program's answer: optimal, or
/// infeasible (no answer exists).
fn proves(o: &Outcome) -> bool {
    matches!(o, Outcome::Optimal | Outcome::Infeasible { .. })
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
/// proven by [`Config::solver`]: one MIP with the months as a variable for
/// `Mip` and a linear model or scorecard without advice grids, the outer loop
/// over months otherwise ([`WaitingAdvice::proved_by`] names the solver). Without a waiting action
/// in the schema, this is [`super::explain`]'s optimum. Advice `None` with a
/// proven explanation: no wait and no move is accepted. A solve that stops at
/// a limit (time, nodes) or with another status is a result, not an error:
/// the explanation is then marked unproven ([`WaitingExplanation::unproven`])
/// and carries the best advice found, if any. Errors: bad input only (as
/// [`super::explain`]).
pub fn explain_with_waiting(
    schema: &Schema,
    model: &dyn Model,
    factual: &[f64],
    config: &Config,
) -> Result<WaitingExplanation> {
    check_len("raw row", schema.n_features(), factual.len())?;
    check_finite("applicant row", factual)?;
    config.validate()?;
    let x0 = schema.encode(factual)?;
    if model.accepts(&x0) {
        return Err(Error::InvalidArgument(
            "the applicant is already accepted".into(),
        ));
    }
    let additive = model.as_linear().is_some() || model.as_scorecard().is_some();
    // With advice grids or minimum changes the months go in the outer loop:
    // under the German preset with grids, HiGHS 1.16 proved a one-MIP optimum
    // (4.58) dearer than a point of the same program it accepts as a start
    // (4.26) and than the loop's per-month optima; the loop's programs are
    // the plain explain's, whose optima the grid oracles check.
    if schema.waiting().is_some()
        && config.solver == SolverChoice::Mip
        && additive
        && !schema.has_advice_grids()
    {
        one_program(schema, model, factual, config)
    } else {
        outer_loop(schema, model, factual, config)
    }
}

/// The months-to-wait variable of a program (module docs, "One MIP").
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct WaitColumns {
    /// The integer column `m ∈ [0, M]`, priced `cost_per_month` per month.
    pub months_col: usize,
    /// Each breakpoint month `k_b` and its binary `z_b`.
    pub breakpoints: Vec<(u32, usize)>,
    pub cost_per_month: f64,
    /// The first month whose waited row the model accepts as it stands (with
    /// the robust margin), if any: the breakpoints stop before it.
    pub wait_alone: Option<u32>,
    /// The months of the last answer read back (set by the solve).
    pub chosen: Option<u32>,
}

impl WaitColumns {
    /// The months a solution waits: the breakpoint whose binary is set.
    pub fn months(&self, x: &[f64]) -> u32 {
        self.breakpoints
            .iter()
            .max_by(|a, b| x[a.1].total_cmp(&x[b.1]))
            .map_or(0, |&(k, _)| k)
    }

    /// Puts the chosen month's encoding of the time features into `enc` (the
    /// program keeps the applicant's values in their own columns) and returns
    /// the waited row with the wait's cost.
    pub fn apply(
        &self,
        schema: &Schema,
        factual: &[f64],
        x: &[f64],
        enc: &mut [f64],
    ) -> Result<(Vec<f64>, f64)> {
        let months = self.months(x);
        let waited = schema.after_waiting(factual, months)?;
        let waited_enc = schema.encode(&waited)?;
        for i in schema.time_features() {
            let l = schema.layout(i);
            enc[l.start..l.start + l.width]
                .copy_from_slice(&waited_enc[l.start..l.start + l.width]);
        }
        Ok((waited, self.cost_per_month * f64::from(months)))
    }
}

/// The score a program's decision row sums, for a model whose score is a sum
/// over features: log-odds of a linear model, points of a scorecard.
fn additive_score(schema: &Schema, scoring: Scoring<'_>, raw: &[f64]) -> Result<f64> {
    match scoring {
        Scoring::Linear(m, _) => Ok(m.score(&schema.encode(raw)?)),
        Scoring::Scorecard(c) => c.score_raw(schema, raw),
        Scoring::Trees(..) | Scoring::Mlp(..) => Err(Error::Solver(
            "internal: a tree ensemble's or a network's score is not a sum over features; \
             waiting takes the outer loop"
                .into(),
        )),
    }
}

/// Adds the months-to-wait variable to a program built for the applicant
/// (module docs, "One MIP"): `m`, the breakpoint binaries, `Σ z = 1`,
/// `m = Σ k·z`, and each breakpoint's score change in the decision row. The
/// breakpoints stop before the first month whose waited row the model accepts
/// as it stands ([`WaitColumns::wait_alone`]): waiting that long costs less
/// than waiting longer, with or without moves.
pub(super) fn add_wait_variable(
    prog: &mut Program,
    schema: &Schema,
    scoring: Scoring<'_>,
    factual: &[f64],
) -> Result<()> {
    let Some(w) = schema.waiting() else {
        return Ok(());
    };
    // The applicant's own months (module docs): no breakpoint lies beyond
    // the longest, none at a wait the schema does not advise.
    let waits = schema.advisable_waits(factual)?;
    let longest = waits.last().copied().unwrap_or(0);
    let base = additive_score(schema, scoring, factual)?;
    let months_col = prog
        .mip
        .add_col(w.cost_per_month, 0.0, f64::from(longest), true);
    let mut one = Vec::new();
    let mut link = vec![(months_col, 1.0)];
    let mut decision = Vec::new();
    let mut breakpoints = Vec::new();
    let mut last: Option<Vec<f64>> = None;
    let mut wait_alone = None;
    for k in waits {
        let row = schema.after_waiting(factual, k)?;
        if last.as_ref() == Some(&row) {
            continue;
        }
        if scoring.judge(schema, &row, &schema.encode(&row)?)?.2 {
            wait_alone = Some(k);
            break;
        }
        let z = prog.mip.add_col(0.0, 0.0, 1.0, true);
        one.push((z, 1.0));
        link.push((z, -f64::from(k)));
        let delta = additive_score(schema, scoring, &row)? - base;
        if delta != 0.0 {
            decision.push((z, delta));
        }
        breakpoints.push((k, z));
        last = Some(row);
    }
    prog.mip.add_row(1.0, 1.0, &one);
    prog.mip.add_row(0.0, 0.0, &link);
    prog.mip.extend_row(prog.decision_row, &decision);
    prog.wait = Some(WaitColumns {
        months_col,
        breakpoints,
        cost_per_month: w.cost_per_month,
        wait_alone,
        chosen: None,
    });
    Ok(())
}

/// The waiting advice as one MIP on HiGHS (module docs, "One MIP"). Proven
/// when HiGHS proves the MIP optimal or infeasible; an answer from a stopped
/// solve (a time limit with an incumbent) is kept, unproven, and so is
/// waiting alone when the MIP stopped without an answer.
pub(super) fn one_program(
    schema: &Schema,
    model: &dyn Model,
    factual: &[f64],
    config: &Config,
) -> Result<WaitingExplanation> {
    let (scoring, _) = super::prepare(schema, model, factual, config)?;
    let mut prog = Program::build(schema, scoring, factual, scoring.first_margin(config))?;
    add_wait_variable(&mut prog, schema, scoring, factual)?;
    // The cap on features changed by action (issue 25) is a row of this MIP
    // from the start: HiGHS solves it once either way.
    if let Some(cap) = schema.max_features_changed {
        prog.cap_features_changed(schema, cap);
    }
    let price = schema.waiting().map_or(0.0, |w| w.cost_per_month);
    let wait_alone = prog.wait.as_ref().and_then(|w| w.wait_alone);
    let alone = |months: u32| -> Result<WaitingAdvice> {
        let waited = schema.after_waiting(factual, months)?;
        let wait_cost = price * f64::from(months);
        Ok(WaitingAdvice {
            months,
            wait_cost,
            wait_changes: schema.describe_changes(factual, &waited),
            raw: waited.clone(),
            waited,
            counterfactual: None,
            cost: wait_cost,
            proved_by: Some(ProvedBy::Highs),
        })
    };
    match super::solve_program(schema, scoring, &mut prog, factual, config)? {
        Solved::Found(cf) => {
            // The certificate of the answer: `Optimal`, or the limit that
            // stopped HiGHS with this incumbent (then the MIP's optimum, over
            // the months before `wait_alone`, may be cheaper than either).
            let unproven = (!proves(&cf.status)).then(|| cf.status.clone());
            let months = prog.wait.as_ref().and_then(|w| w.chosen).ok_or_else(|| {
                Error::Solver("internal: the waiting MIP's answer has no month".into())
            })?;
            let wait_cost = price * f64::from(months);
            let cost = wait_cost + cf.cost;
            if let Some(k) = wait_alone.filter(|&k| price * f64::from(k) <= cost) {
                return Ok(WaitingExplanation {
                    advice: Some(alone(k)?),
                    unproven,
                });
            }
            let waited = schema.after_waiting(factual, months)?;
            let raw = cf.raw.clone();
            let advice = WaitingAdvice {
                months,
                wait_cost,
                wait_changes: schema.describe_changes(factual, &waited),
                waited,
                raw,
                counterfactual: (!cf.changes.is_empty()).then_some(*cf),
                cost,
                proved_by: Some(ProvedBy::Highs),
            };
            Ok(WaitingExplanation {
                advice: Some(advice),
                unproven,
            })
        }
        // No wait before `wait_alone` and no move is accepted: waiting alone
        // (if it ever is accepted) is the optimum.
        Solved::NoSolution(Outcome::Infeasible { .. }) => Ok(WaitingExplanation {
            advice: wait_alone.map(alone).transpose()?,
            unproven: None,
        }),
        // Neither an answer nor a proof: waiting alone, when accepted, is the
        // best advice found, and cheaper advice may exist either way.
        Solved::NoSolution(other) => Ok(WaitingExplanation {
            advice: wait_alone.map(alone).transpose()?,
            unproven: Some(other),
        }),
    }
}

/// The waiting advice by one solve per month (module docs, "The outer loop").
/// A waited row counts as accepted as it stands when the model accepts it
/// with the robust margin of [`Config::robustness`] (the margin is part of
/// the decision for every row the advice ends in); a row accepted without it
/// is explained like any other, to the cheapest moves that meet the target.
/// A month whose solve proves nothing (module docs, "What is proven") still
/// gives its answer, if any, as a candidate, and leaves the advice unproven
/// unless its wait alone costs at least the advice found.
pub(super) fn outer_loop(
    schema: &Schema,
    model: &dyn Model,
    factual: &[f64],
    config: &Config,
) -> Result<WaitingExplanation> {
    let price = schema.waiting().map_or(0.0, |w| w.cost_per_month);
    // The applicant's own months (module docs); only 0 without waiting.
    let waits = schema.advisable_waits(factual)?;
    let robust = super::prepare(schema, model, factual, config)?.0;
    let mut best: Option<WaitingAdvice> = None;
    // The first month whose solve proved nothing: the least total its advice
    // could have (its wait's cost; the waits' costs grow with the month, so
    // later such months could have no less) and that solve's outcome.
    let mut unproven: Option<(f64, Outcome)> = None;
    for m in waits {
        let wait_cost = price * f64::from(m);
        if best.as_ref().is_some_and(|b| wait_cost >= b.cost) {
            break;
        }
        let waited = schema.after_waiting(factual, m)?;
        let wait_changes = schema.describe_changes(factual, &waited);
        let accepted_now = robust.judge(schema, &waited, &schema.encode(&waited)?)?.2;
        let (counterfactual, raw, moves_cost, proved_by) = if accepted_now {
            (None, waited.clone(), 0.0, None)
        } else {
            let ex = super::explain_row(schema, model, &waited, config)?;
            if !proves(&ex.outcome) && unproven.is_none() {
                unproven = Some((wait_cost, ex.outcome.clone()));
            }
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
    // An unproven month matters unless even its wait alone costs at least the
    // advice found.
    let unproven = unproven
        .filter(|(least, _)| best.as_ref().is_none_or(|b| *least < b.cost))
        .map(|(_, o)| o);
    Ok(WaitingExplanation {
        advice: best,
        unproven,
    })
}
