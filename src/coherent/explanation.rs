//! What the exact engine answers: an [`Explanation`] holding the
//! [`Outcome`] of its programs, the [`Counterfactual`]s found (or, when none
//! exists, the [`ConstraintGroup`]s that block one), their plain-words text,
//! and the [`cost`] the programs minimise.

use super::{ProvedBy, Robustness};
use crate::error::{Result, check_len};
use crate::schema::{Change, FeatureKind, Schema};
use serde::{Deserialize, Serialize};

/// A group of actionability constraints, as named in infeasibility reports.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ConstraintGroup {
    /// Immutable features.
    Immutables,
    /// Increase-only / decrease-only directions.
    Directions,
    /// Actionable bounds tighter than the data range, and change limits.
    Bounds,
    /// Forbidden special-state / level transitions.
    ForbiddenTransitions,
}

impl ConstraintGroup {
    /// All groups, in report order.
    pub const ALL: [ConstraintGroup; 4] = [
        ConstraintGroup::Immutables,
        ConstraintGroup::Directions,
        ConstraintGroup::Bounds,
        ConstraintGroup::ForbiddenTransitions,
    ];

    /// A bit per group (Immutables = 1, Directions = 2, Bounds = 4,
    /// ForbiddenTransitions = 8), for compact sets across the C ABI.
    pub fn bit(self) -> u32 {
        match self {
            ConstraintGroup::Immutables => 1,
            ConstraintGroup::Directions => 2,
            ConstraintGroup::Bounds => 4,
            ConstraintGroup::ForbiddenTransitions => 8,
        }
    }

    /// The group in words.
    pub fn name(self) -> &'static str {
        match self {
            ConstraintGroup::Immutables => "immutable features",
            ConstraintGroup::Directions => "directions of change",
            ConstraintGroup::Bounds => "actionable bounds and change limits",
            ConstraintGroup::ForbiddenTransitions => "forbidden transitions",
        }
    }
}

/// What the solver said, mapped from HiGHS's raw model status by cfx.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "status", rename_all = "snake_case")]
pub enum Outcome {
    /// Proven optimal within [`Config::mip_gap`](super::Config::mip_gap).
    Optimal,
    /// The time limit stopped the search; with a solution it is feasible but not
    /// proven optimal (see the reported MIP gap).
    TimeLimit { has_solution: bool },
    /// No counterfactual exists under the schema's constraints. Each entry of
    /// `blocking` is a smallest set of constraint groups whose relaxation (alone,
    /// everything else kept) makes recourse possible, found by re-solving. An
    /// empty list means even relaxing every group leaves no recourse: the model
    /// accepts no coherent applicant reachable from this one.
    Infeasible {
        blocking: Vec<Vec<ConstraintGroup>>,
        /// Sets of groups whose relaxed re-solve ended with neither an answer
        /// nor a proof of infeasibility (a time limit or another status):
        /// whether relaxing them restores recourse is unknown, and a `blocking`
        /// set containing one of them may not be smallest.
        #[serde(default, skip_serializing_if = "Vec::is_empty")]
        undecided: Vec<Vec<ConstraintGroup>>,
    },
    /// Any other solver outcome (other limits, solver errors, statuses unknown to
    /// cfx, or an answer that failed the strict acceptance test after the margin
    /// retries: raw status −2; the separable solver's node limit, with
    /// [`SolverChoice::Separable`](super::SolverChoice::Separable) only: raw status −3), with HiGHS's raw model
    /// status.
    Unknown { raw_status: i32 },
}

impl Outcome {
    /// The union of the blocking groups of an infeasible outcome, as a bit set
    /// (see [`ConstraintGroup::bit`]); 0 otherwise.
    pub fn blocking_mask(&self) -> u32 {
        match self {
            Outcome::Infeasible { blocking, .. } => {
                blocking.iter().flatten().fold(0, |m, g| m | g.bit())
            }
            _ => 0,
        }
    }
}

/// One counterfactual: a real applicant the model accepts.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Counterfactual {
    /// The raw row (decoded by [`Schema::decode`]).
    pub raw: Vec<f64>,
    /// Its encoding.
    pub encoded: Vec<f64>,
    /// The changed features, in the data's own units and state labels.
    pub changes: Vec<Change>,
    /// Weighted L1 cost ([`cost`]) from the applicant.
    pub cost: f64,
    /// Model score (log-odds) and probability of the favourable outcome.
    pub score: f64,
    pub probability: f64,
    /// The status of the solve that produced it (Optimal, or TimeLimit).
    pub status: Outcome,
    /// The solver's objective value (equals `cost` up to solver tolerance).
    pub objective: f64,
    /// The proven relative gap: HiGHS's MIP gap, or the separable solver's
    /// pruning tolerance (`1e-11`).
    pub mip_gap: f64,
    /// The decision margin of the solve that produced it: [`Config::margin`](super::Config::margin),
    /// or the escalated one (×100, at most twice) when the answer at the
    /// configured margin failed the strict acceptance test after decoding.
    pub margin: f64,
    /// Wall-clock seconds of the solves that produced it.
    pub solve_seconds: f64,
    /// The solver that proved it.
    pub proved_by: ProvedBy,
    /// With [`Config::robustness`](super::Config::robustness): the exact invalidation rate Γ of this
    /// answer under the target's noise ([`crate::noise::linear_invalidation_rate`]),
    /// at most the target by construction.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub invalidation_rate: Option<f64>,
    /// Plausibility flags of the changed values, empty until annotated with
    /// [`crate::plausibility::Plausibility`] ([`Explanation::assess_plausibility`]).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub plausibility: Vec<crate::plausibility::PlausibilityFlag>,
}

impl Counterfactual {
    /// The changes in plain words, e.g.
    /// `MSinceMostRecentDelq: 'condition not met' (-7) → 24; NumSatisfactoryTrades: 12 → 19`.
    pub fn describe(&self) -> String {
        self.changes
            .iter()
            .map(|c| c.to_string())
            .collect::<Vec<_>>()
            .join("; ")
    }
}

/// The answer for one applicant.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Explanation {
    /// The applicant's raw row, score and probability.
    pub factual: Vec<f64>,
    pub factual_score: f64,
    pub factual_probability: f64,
    /// The model's threshold `t`.
    pub threshold: f64,
    /// Outcome of the first (optimal) solve.
    pub outcome: Outcome,
    /// The solver that proved the outcome (and every counterfactual's own
    /// certificate names its solver too).
    pub proved_by: ProvedBy,
    /// The counterfactuals: the optimal one first, then diverse alternatives.
    pub counterfactuals: Vec<Counterfactual>,
    /// Set when [`explain_diverse`](super::explain_diverse) stopped early because a re-solve ended with
    /// neither an answer nor a proof of infeasibility (a time limit or another
    /// status): that solve's outcome. Fewer alternatives are then a limit of
    /// the search, not a property of the applicant.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub diversity_stopped: Option<Outcome>,
    /// The robustness target every counterfactual meets ([`Config::robustness`](super::Config::robustness)).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub robustness: Option<Robustness>,
}

impl Explanation {
    /// Fills every counterfactual's plausibility flags (issue 16): which
    /// changed values land outside the 1–99% range of the training data's
    /// accepted applicants, and how far.
    pub fn assess_plausibility(
        &mut self,
        schema: &Schema,
        ranges: &crate::plausibility::Plausibility,
    ) -> Result<()> {
        for cf in &mut self.counterfactuals {
            cf.plausibility = ranges.assess(schema, &self.factual, &cf.raw)?;
        }
        Ok(())
    }

    /// Whether counterfactual `k` has an implausible changed value (after
    /// [`Explanation::assess_plausibility`]).
    pub fn implausible(&self, k: usize) -> bool {
        self.counterfactuals
            .get(k)
            .is_some_and(|c| c.plausibility.iter().any(|f| f.implausible))
    }

    /// The explanation in plain words, one line per counterfactual.
    pub fn to_text(&self) -> String {
        // A scorecard without a scaling has no probability: speak in points.
        let points = self.factual_probability.is_nan();
        let mut out = if points {
            format!(
                "declined: score {}\n",
                crate::schema::fmt_num(self.factual_score)
            )
        } else {
            format!(
                "declined: probability {:.3} ≤ {:.3}\n",
                self.factual_probability, self.threshold
            )
        };
        if self.counterfactuals.is_empty() {
            match &self.outcome {
                Outcome::Infeasible {
                    blocking,
                    undecided,
                } if blocking.is_empty() && undecided.is_empty() => {
                    out.push_str("no recourse: the model accepts no reachable applicant\n")
                }
                Outcome::Infeasible {
                    blocking,
                    undecided,
                } => {
                    let names = |sets: &[Vec<ConstraintGroup>]| {
                        sets.iter()
                            .map(|s| s.iter().map(|g| g.name()).collect::<Vec<_>>().join(" + "))
                            .collect::<Vec<_>>()
                            .join(", or ")
                    };
                    out.push_str("no recourse under the stated constraints");
                    if !blocking.is_empty() {
                        out.push_str(&format!("; blocked by: {}", names(blocking)));
                    }
                    if !undecided.is_empty() {
                        out.push_str(&format!(
                            "; undecided (solver stopped): {}",
                            names(undecided)
                        ));
                    }
                    out.push('\n');
                }
                other => out.push_str(&format!("no answer: {other:?}\n")),
            }
        }
        for (k, cf) in self.counterfactuals.iter().enumerate() {
            // An answer a limit stopped the search at is not called optimal:
            // its proven lower bound is said instead.
            let unproven = match cf.status {
                Outcome::Optimal => None,
                _ => Some(format!(
                    "found, not proven optimal: optimum ≥ {:.3}",
                    cf.cost * (1.0 - cf.mip_gap.clamp(0.0, 1.0))
                )),
            };
            let plain = match (k, &unproven) {
                (0, Some(u)) => u.as_str(),
                (0, None) => "optimal",
                _ => "alternative",
            };
            let mut head = match (&self.robustness, &cf.status) {
                (Some(r), Outcome::Optimal) if k == 0 => format!("{}, proven optimal", r.label()),
                (Some(r), _) => format!("{}, {plain}", r.label()),
                (None, _) => plain.to_string(),
            };
            // "Optimal" is for the decision rule solved: a margin beyond the
            // numerical one (Config::margin's default, 1e-6) is part of it, so
            // it is said.
            if k == 0 && cf.margin > 2e-6 {
                head.push_str(&format!(
                    " for acceptance by a margin of {} above the cut-off",
                    crate::schema::fmt_num(cf.margin)
                ));
            }
            if points {
                out.push_str(&format!(
                    "{head} (cost {:.3}, score {}): {}\n",
                    cf.cost,
                    crate::schema::fmt_num(cf.score),
                    cf.describe()
                ));
            } else {
                out.push_str(&format!(
                    "{head} (cost {:.3}, probability {:.3}): {}\n",
                    cf.cost,
                    cf.probability,
                    cf.describe()
                ));
            }
            let odd = crate::plausibility::describe_implausible(&cf.plausibility);
            if !odd.is_empty() {
                out.push_str(&format!("  implausible: {odd}\n"));
            }
        }
        out
    }
}

/// The weighted L1 cost of moving raw row `from` to raw row `to` (objective 16
/// with the signs of `seed-formulas.md` §1.3):
/// * value → value: `W^c·|Δslot|`;
/// * value → special state `j`: `W_j`; special `k` → special `j`: `W_k + W_j`;
/// * special `k` → value: `W_k + W^c·|slot − anchor|`, the anchor being the fitted
///   median slot clamped to the actionable range;
/// * categorical level `k` → `j`: `W_k + W_j`.
pub fn cost(schema: &Schema, from: &[f64], to: &[f64]) -> Result<f64> {
    check_len("raw row", schema.n_features(), from.len())?;
    check_len("raw row", schema.n_features(), to.len())?;
    let mut total = 0.0;
    for (i, f) in schema.features.iter().enumerate() {
        let sa = f.state_of(from[i])?;
        let sb = f.state_of(to[i])?;
        let w = schema.weights(i);
        total += match &f.kind {
            FeatureKind::Contiguous { .. } => {
                let ind = |s: usize| if s == 0 { 0.0 } else { w.states[s - 1] };
                let slot = |raw: f64| schema.value_to_slot(i, raw);
                match (sa, sb) {
                    (0, 0) => w.value * (slot(to[i]) - slot(from[i])).abs(),
                    (0, j) => ind(j),
                    (k, 0) => {
                        let (lo, hi) = schema.actionable_range(i).unwrap_or((0.0, 0.0));
                        let anchor = w
                            .anchor
                            .clamp(slot(lo).min(slot(hi)), slot(hi).max(slot(lo)));
                        ind(k) + w.value * (slot(to[i]) - anchor).abs()
                    }
                    (k, j) if k == j => 0.0,
                    (k, j) => ind(k) + ind(j),
                }
            }
            FeatureKind::Categorical { .. } => {
                if sa == sb {
                    0.0
                } else {
                    w.states[sa] + w.states[sb]
                }
            }
        };
    }
    Ok(total)
}
