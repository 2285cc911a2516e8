//! The exact engine's settings ([`Config`]): which solver proves the answer,
//! how alternatives are made diverse, the robustness-to-slips target and the
//! limits of one solve. Kept apart from the engine so that the settings every
//! binding passes as JSON read in one place.

use super::highs::Options;
use crate::error::{Error, Result};
use crate::schema::Schema;
use serde::{Deserialize, Serialize};

/// How alternatives are made diverse.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum DiversityRule {
    /// Russell's procedure as the reference code (`give_explanation`/`fix_values`)
    /// implements it (`seed-formulas.md` §1.4): after each explanation, forbid
    /// each change it made, one feature at a time in index order, re-solving after
    /// each and dropping a constraint that makes the program infeasible.
    #[default]
    Russell,
    /// Russell's procedure exactly as the reference code publishes it, including
    /// its case (b), which adds `d_{i,c} = 1` (the feature must stay in its value
    /// range) instead of forbidding the change: kept for reproducing the
    /// reference code's explanations.
    RussellReferenceCode,
    /// Each new explanation must leave at least one feature of every earlier
    /// explanation's changed set unchanged (the "flipsets" of actionable recourse,
    /// Ustun et al. 2019): a no-good cut `Σ_{i∈S_e} z_i ≤ |S_e| − 1` per earlier set.
    DistinctSubsets,
}

/// Which solver proves the answer.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum SolverChoice {
    /// The separable solver when the program is separable (a linear model or a
    /// points scorecard, and every constraint per feature: all but
    /// [`DiversityRule::DistinctSubsets`]), the tree search for a tree
    /// ensemble (the distinct-subsets rule included), else HiGHS; also HiGHS should the
    /// separable branch and bound hit its node limit, or the tree search hit
    /// its node limit before finding any answer (with an answer, the tree
    /// search's answer is returned with its proven lower bound).
    #[default]
    Auto,
    /// Always the HiGHS MIP.
    Mip,
    /// Always the separable solver; a call it cannot express (the
    /// distinct-subsets rule) is an `InvalidArgument` error.
    Separable,
    /// Always the tree-ensemble search of [`tree_search`](super::tree_search) (tree ensembles
    /// only, every diversity rule included; another model is an
    /// `InvalidArgument` error).
    TreeSearch,
}

/// The solver that proved an answer (part of its certificate).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ProvedBy {
    /// HiGHS on the mixed-integer program of `program.rs`.
    Highs,
    /// The separable multiple-choice-knapsack branch and bound of [`separable`](super::separable).
    Separable,
    /// The best-first tree-ensemble search of [`tree_search`](super::tree_search).
    TreeSearch,
}

/// Solver and method configuration. Defaults are documented per field.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Config {
    /// Wall-clock limit per MIP solve, seconds (default 10). A solve that hits it
    /// with an incumbent reports [`Outcome::TimeLimit`](super::Outcome::TimeLimit). The separable solver
    /// has a node limit instead (see [`SolverChoice`]).
    pub time_limit_seconds: f64,
    /// HiGHS threads per solve (default 1; [`explain_batch`](super::explain_batch) parallelises across
    /// applicants instead).
    pub threads: usize,
    /// HiGHS relative MIP gap (default `1e-9`: the answer is proven optimal up to
    /// rounding; HiGHS's own default `1e-4` would let costs differ by 0.01%).
    pub mip_gap: f64,
    /// The decision constraint is `score ≥ logit(t) + margin` (default `1e-6`).
    /// cfx accepts when the probability is strictly above `t`; the margin keeps
    /// the answer off the boundary. If a decoded answer still fails the strict
    /// test (solver tolerance), the solve is repeated with the margin ×100, at
    /// most twice. A points scorecard's totals are exact and its ties are
    /// accepted, so its first solve uses margin 0 (retries raise it to 1e-9,
    /// then 1e-7).
    pub margin: f64,
    /// Number of explanations [`explain_diverse`](super::explain_diverse) returns at most (default 5).
    pub n_diverse: usize,
    /// The diversity rule of [`explain_diverse`](super::explain_diverse) (default Russell).
    pub diversity: DiversityRule,
    /// Worker threads of [`explain_batch`](super::explain_batch); 0 = all available cores (default 0).
    pub batch_threads: usize,
    /// Which solver proves the answers (default [`SolverChoice::Auto`]).
    #[serde(default)]
    pub solver: SolverChoice,
    /// Branch-and-bound nodes the separable solver or the tree search may
    /// visit per solve (default 200,000; HELOC applicants need at most a few
    /// hundred). Past it, `Auto` re-solves on HiGHS and `Separable` reports
    /// [`Outcome::Unknown`](super::Outcome::Unknown) with raw status [`SEPARABLE_NODE_LIMIT_STATUS`](super::SEPARABLE_NODE_LIMIT_STATUS);
    /// the tree search returns the best answer found with
    /// [`Outcome::TimeLimit`](super::Outcome::TimeLimit) and its proven gap (without an answer: as the
    /// separable solver). The tree search also stops at
    /// [`Config::time_limit_seconds`].
    #[serde(default = "default_node_limit")]
    pub node_limit: usize,
    /// Robust advice (default none): the answer must stay accepted under
    /// Gaussian slips with at most the stated invalidation rate (linear
    /// models: exactly; tree ensembles: its whole box is accepted). See
    /// [`Robustness`].
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub robustness: Option<Robustness>,
    /// For a ReLU network: tighten the bounds of the units after the first
    /// layer by LP (OBBT, see the exact-engine guide) before the MIP (default
    /// true). Off, the big-M rows use interval bounds only — the plain
    /// formulation, proven optimal all the same, usually slower. Written
    /// out only when off, so existing fingerprints do not change.
    #[serde(default = "yes", skip_serializing_if = "is_yes")]
    pub mlp_bound_tightening: bool,
}

fn yes() -> bool {
    true
}

fn is_yes(b: &bool) -> bool {
    *b
}

/// A robustness target for the exact engine: the answer x̌ must keep
/// `Γ(x̌) ≤ invalidation_target`, Γ the probability that the model declines
/// the applicant's slightly-off implementation `x̌ + ε`, ε ~ N(0, σ²I) on the
/// value slot of every mutable contiguous feature (the default noise columns
/// of [`crate::noise`], [`crate::noise::NoiseModel::gaussian_for_schema`]; σ² a
/// variance, as CROCO's `sigma2`, Guyomard et al. 2023 §2.2).
///
/// For a linear (logistic) model Γ has a closed form and "Γ ≤ γ" is exactly
/// the linear constraint `score ≥ logit(t) + σ‖w_S‖·Φ⁻¹(1 − γ)`
/// ([`crate::noise::linear_robust_margin`]), `w_S` the weights of the noisy
/// columns. Both solvers add that margin to the decision row, so the answer is
/// the cheapest coherent, actionable counterfactual meeting the target,
/// proven optimal rather than searched for by CROCO's or PROBE's descent.
///
/// For a tree ensemble Γ has no closed form, but the model is piecewise
/// constant, so robustness is proven over a box ([`super::tree_box`]): the
/// answer is the cheapest coherent counterfactual whose whole box — each
/// mutable contiguous value within `z·σ·(upper − lower)` of the answer's,
/// `z = Φ⁻¹(1 − γ/(2m))` over the `m` noisy features — is accepted, each
/// tree at its worst leaf over the box, with [`Config::margin`] to spare;
/// by the union bound its Γ ≤ γ. The tree search proves it (HiGHS does not:
/// [`SolverChoice::Mip`] refuses it) and the answer reports a Monte Carlo Γ̃.
/// Scorecards and networks refuse it: use CROCO or PROBE for them.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Robustness {
    /// The noise variance σ² on each noisy (encoded, min–max scaled) slot.
    pub sigma2: f64,
    /// The largest acceptable invalidation rate γ, in (0, 1).
    pub invalidation_target: f64,
    /// Tree ensembles: which neighbourhood of the answer must be accepted
    /// ([`BoxKind`]; default the box over the reals). Written out only when
    /// not the default, so existing fingerprints do not change.
    #[serde(default, skip_serializing_if = "BoxKind::is_reals")]
    pub box_kind: BoxKind,
}

/// The neighbourhood robust advice on a tree ensemble proves accepted
/// ([`super::tree_box`]): each mutable contiguous feature within its
/// half-width δ_f = z·σ·(upper − lower) of the answer's value, read one of
/// two ways.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum BoxKind {
    /// Every real value within ±δ_f, neither clipped to the feature's range
    /// nor rounded to its grid (the default, and the only meaning before
    /// 6 December 2026).
    #[default]
    Reals,
    /// Every value the applicant can actually end at: a slip `ε` with
    /// `|ε| ≤ δ_f` lands on `round(clip(x_f + ε))`, clipped to the feature's
    /// range and rounded to the nearest point of the data's grid (whole
    /// numbers of an integer feature, `L + k·step` of a step feature; a
    /// real-valued feature is only clipped). Per feature the box is the
    /// interval between the smallest and the largest such value,
    /// `[round(clip(x_f − δ_f)), round(clip(x_f + δ_f))]` — a threshold test
    /// sees the finite set of reachable grid values exactly as it sees that
    /// interval. Never wider than needed for the realized values: narrower
    /// than the reals box where the range clips it or rounding pulls an end
    /// inwards, and up to half a grid step wider where rounding pushes an end
    /// outwards (a slip of δ_f − 0.4 on an integer feature is reported as a
    /// change of round(δ_f − 0.4)). Only tree ensembles take it: a linear
    /// model's robust margin is the closed form of Gaussian slips over the
    /// reals.
    ReachableValues,
}

impl BoxKind {
    /// Whether this is the default, [`BoxKind::Reals`].
    pub fn is_reals(&self) -> bool {
        *self == BoxKind::Reals
    }
}

impl Robustness {
    /// The noise the target speaks of, on `schema`'s default columns.
    pub fn noise(&self, schema: &Schema) -> Result<crate::noise::NoiseModel> {
        crate::noise::NoiseModel::gaussian_for_schema(schema, self.sigma2)
    }

    /// The target in words, e.g. `robust to slips (σ² = 0.01, ≤ 10% declined)`
    /// (`… declined, over reachable values)` with [`BoxKind::ReachableValues`]).
    pub fn label(&self) -> String {
        format!(
            "robust to slips (σ² = {}, ≤ {}% declined{})",
            crate::schema::fmt_num(self.sigma2),
            crate::schema::fmt_num(100.0 * self.invalidation_target),
            match self.box_kind {
                BoxKind::Reals => "",
                BoxKind::ReachableValues => ", over reachable values",
            }
        )
    }

    pub(crate) fn validate(&self) -> Result<()> {
        if !(self.sigma2.is_finite() && self.sigma2 >= 0.0) {
            return Err(Error::InvalidArgument(format!(
                "robustness sigma2 (a variance) must be finite and ≥ 0, got {}",
                self.sigma2
            )));
        }
        if !(self.invalidation_target > 0.0 && self.invalidation_target < 1.0) {
            return Err(Error::InvalidArgument(format!(
                "robustness invalidation_target must lie strictly between 0 and 1, got {}",
                self.invalidation_target
            )));
        }
        Ok(())
    }
}

fn default_node_limit() -> usize {
    200_000
}

impl Default for Config {
    fn default() -> Self {
        Config {
            time_limit_seconds: 10.0,
            threads: 1,
            mip_gap: 1e-9,
            margin: 1e-6,
            n_diverse: 5,
            diversity: DiversityRule::Russell,
            batch_threads: 0,
            solver: SolverChoice::Auto,
            node_limit: default_node_limit(),
            robustness: None,
            mlp_bound_tightening: true,
        }
    }
}

impl Config {
    /// Checks every field's domain.
    pub fn validate(&self) -> Result<()> {
        let bad = |m: String| Err(Error::InvalidArgument(m));
        if self.time_limit_seconds.is_nan() || self.time_limit_seconds <= 0.0 {
            return bad(format!(
                "time_limit_seconds must be positive, got {}",
                self.time_limit_seconds
            ));
        }
        if !(self.mip_gap.is_finite() && self.mip_gap >= 0.0) {
            return bad(format!(
                "mip_gap must be finite and ≥ 0, got {}",
                self.mip_gap
            ));
        }
        if !(self.margin.is_finite() && self.margin >= 0.0) {
            return bad(format!(
                "margin must be finite and ≥ 0, got {}",
                self.margin
            ));
        }
        if self.n_diverse == 0 {
            return bad("n_diverse must be at least 1".into());
        }
        if self.node_limit == 0 {
            return bad("node_limit must be at least 1".into());
        }
        if self.threads == 0 || self.threads > 1024 {
            return bad(format!("threads must be in 1..=1024, got {}", self.threads));
        }
        if let Some(r) = &self.robustness {
            r.validate()?;
        }
        Ok(())
    }

    pub(super) fn options(&self) -> Options {
        Options {
            time_limit: self.time_limit_seconds,
            threads: self.threads,
            mip_rel_gap: self.mip_gap,
            mip_abs_gap: 1e-9,
            feasibility_tol: 1e-9,
            presolve: true,
            sub_mips_and_restarts: true,
        }
    }
}
