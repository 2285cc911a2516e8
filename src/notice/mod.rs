//! Principal reasons for a declined applicant (adverse-action notices).
//!
//! A lender that declines an application must give the *specific principal
//! reasons* (US Regulation B, 12 CFR 1002.9(b)(2); usually at most four), and
//! the EU Consumer Credit Directive 2023/2225 (Art. 18) gives the applicant a
//! right to a clear explanation of an automated assessment. This module ranks
//! the features that pulled the applicant's score down, exactly, for every
//! model kind of cfx; the notice built from them carries the advice of the
//! exact engine as well, so that reasons and advice cannot contradict each
//! other.
//!
//! # What a contribution is
//! Every method splits the applicant's score (in the model's own units: the
//! log-odds of the favourable outcome, or the points of a scorecard) into a
//! *base value* — the score of the reference — plus one contribution per
//! schema feature, `score = base + Σ contributions` (the efficiency property
//! of Shapley values; exact for every method here). A negative contribution
//! pulls the applicant towards a decline; the principal reasons are the most
//! negative ones, at most [`ReasonOptions::max_reasons`].
//!
//! # The reference (Regulation B, comment 9(b)(2)-5)
//! The commentary names two rankings: against the average of the applicants
//! *at or slightly above the minimum passing score*, and against the average
//! of *all applicants*. [`Reference`] builds either population from a dataset
//! the bank gives ([`ReferenceKind`]); "slightly above" is the bank's band in
//! score units.
//!
//! # One method per model kind (named in the result, [`Method`])
//! * linear: `w_j · (x_j − x̄_j)` summed over the feature's encoded columns —
//!   the Shapley value of a linear model against the reference mean, exact;
//! * scorecards: each characteristic's points minus a baseline; with PMML's
//!   reason codes (`reasonCodeAlgorithm`, `baselineScore`) exactly as PMML 4.4
//!   defines them, differences summed per reason code;
//! * tree ensembles: exact TreeSHAP — interventional against the reference
//!   rows (Lundberg et al., Nature Machine Intelligence 2020, §"Interventional
//!   Tree SHAP"), or path-dependent with the training covers (Algorithm 2 of
//!   Lundberg, Erion & Lee, arXiv 1802.03888), which is what XGBoost's
//!   `pred_contribs` and LightGBM's `pred_contrib` compute;
//! * MLPs: Baseline Shapley (Sundararajan & Najmi, ICML 2020) against the
//!   reference mean, by exact enumeration of all `2^d` feature subsets —
//!   refused above [`ReasonOptions::mlp_max_features`] features rather than
//!   approximated.

mod book;
mod consistency;
mod linear;
mod mlp;
mod rank;
pub mod reference;
mod render;
mod scorecard;
pub mod table;
mod trees;

#[cfg(test)]
mod tests;

pub use book::{BookSummary, NoticeBookOptions, notices_csv, notices_jsonl};
pub use consistency::{
    Advice, AdviceVersion, DEFAULT_NOTICE_ROBUSTNESS, NOTICE_FORMAT_VERSION, Necessity, Notice,
    NoticeOptions, ReasonMark, notice,
};
pub use rank::{Direction, FeatureContribution, Reason, ReasonSet};
pub use reference::{Reference, ReferenceKind};
pub use render::to_html;
pub use table::{ReasonEntry, ReasonTable};

use crate::error::{Error, Result};
use crate::model::Model;
use crate::schema::Schema;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// Which TreeSHAP a tree ensemble's reasons use.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "snake_case")]
pub enum TreeShapMode {
    /// Against the reference rows (each row a baseline, averaged): ties the
    /// ranking to Regulation B's reference population.
    #[default]
    Interventional,
    /// With the training covers, as XGBoost's `pred_contribs` and LightGBM's
    /// `pred_contrib` compute it (the reference population is not used).
    PathDependent,
}

/// The baseline a scorecard's points are compared with.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Default)]
#[serde(tag = "kind", rename_all = "snake_case", deny_unknown_fields)]
pub enum ScorecardBaseline {
    /// The model's own reason codes and baselines when it carries them (a
    /// PMML scorecard with `useReasonCodes`), else [`ScorecardBaseline::ReferenceMean`].
    #[default]
    Model,
    /// Each characteristic's mean points over the reference population.
    ReferenceMean,
    /// Each characteristic's highest points (the classic "points below max").
    Max,
    /// Each characteristic's lowest points.
    Min,
    /// The bank's baseline per characteristic (by feature name; every
    /// characteristic must have one).
    Given { baselines: BTreeMap<String, f64> },
}

/// How reasons are computed and how many are given.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct ReasonOptions {
    /// At most this many principal reasons (Regulation B's commentary: "more
    /// than four reasons is not likely to be helpful").
    pub max_reasons: usize,
    pub tree_shap: TreeShapMode,
    pub scorecard_baseline: ScorecardBaseline,
    /// Baseline Shapley of an MLP enumerates `2^d` subsets of its `d`
    /// features: refused above this many (at most [`MLP_FEATURE_LIMIT`]).
    pub mlp_max_features: usize,
}

/// The most features exact Baseline Shapley is ever asked to enumerate
/// (`2^24` model evaluations, a few seconds for a small network).
pub const MLP_FEATURE_LIMIT: usize = 24;

impl Default for ReasonOptions {
    fn default() -> Self {
        ReasonOptions {
            max_reasons: 4,
            tree_shap: TreeShapMode::Interventional,
            scorecard_baseline: ScorecardBaseline::Model,
            mlp_max_features: 20,
        }
    }
}

impl ReasonOptions {
    fn validate(&self) -> Result<()> {
        if self.max_reasons == 0 {
            return Err(Error::InvalidArgument(
                "max_reasons must be at least 1".into(),
            ));
        }
        if self.mlp_max_features > MLP_FEATURE_LIMIT {
            return Err(Error::InvalidArgument(format!(
                "mlp_max_features is {}, above cfx's limit of {MLP_FEATURE_LIMIT} for exact \
                 enumeration",
                self.mlp_max_features
            )));
        }
        Ok(())
    }
}

/// The method that made a ranking.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Method {
    /// `w_j · (x_j − x̄_j)`, exact.
    LinearExact,
    /// PMML's reason codes: baseline minus partial score (`pointsBelow`) or
    /// partial minus baseline (`pointsAbove`), summed per code, negative
    /// totals dropped.
    ScorecardPmmlReasonCodes,
    /// Each characteristic's points minus the bank's chosen baseline.
    ScorecardPointsVsBaseline,
    /// Exact path-dependent TreeSHAP with the training covers.
    TreeShapPathDependent,
    /// Exact interventional TreeSHAP against the reference rows.
    TreeShapInterventional,
    /// Baseline Shapley against the reference mean, exact enumeration.
    BaselineShapleyExact,
}

impl Method {
    /// The method in one sentence, for a notice.
    pub fn describe(self) -> &'static str {
        match self {
            Method::LinearExact => {
                "each feature's weight times the applicant's difference from the reference \
                 average (exact for a linear model)"
            }
            Method::ScorecardPmmlReasonCodes => {
                "the scorecard's own reason codes: points below each characteristic's \
                 baseline, summed per reason code (PMML 4.4 Scorecard)"
            }
            Method::ScorecardPointsVsBaseline => {
                "each characteristic's points compared with its baseline"
            }
            Method::TreeShapPathDependent => {
                "exact path-dependent TreeSHAP (the contributions XGBoost and LightGBM compute)"
            }
            Method::TreeShapInterventional => {
                "exact interventional TreeSHAP against the reference applicants"
            }
            Method::BaselineShapleyExact => {
                "exact Baseline Shapley values against the reference average (all feature \
                 subsets enumerated)"
            }
        }
    }
}

/// A reason code's total under PMML's rules (see [`Method::ScorecardPmmlReasonCodes`]).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CodeTotal {
    pub code: String,
    /// The summed difference (positive: adverse), in the file's points.
    pub total: f64,
    /// The schema features whose bins carry the code for this applicant.
    pub features: Vec<usize>,
    /// Each feature's own difference, parallel to `features`.
    pub differences: Vec<f64>,
}

/// An applicant's score split into a base value and per-feature contributions.
#[derive(Debug, Clone, PartialEq)]
pub struct Attribution {
    pub method: Method,
    /// The model's score of the applicant.
    pub score: f64,
    /// `score − Σ contributions`: the reference's score (its expectation
    /// for the Shapley methods).
    pub base_value: f64,
    /// One per schema feature, in the model's score units; negative pulls
    /// the applicant towards a decline.
    pub contributions: Vec<f64>,
    /// PMML's per-code totals in PMML's rank order (negative totals dropped),
    /// for [`Method::ScorecardPmmlReasonCodes`].
    pub codes: Option<Vec<CodeTotal>>,
    /// Whether the reference population was used (false for path-dependent
    /// TreeSHAP and PMML's own baselines).
    pub uses_reference: bool,
}

/// Splits the model's score of the raw applicant row into contributions,
/// with the method the model kind calls for (see the module docs). The one
/// place the model kinds are dispatched.
pub fn attribute(
    model: &dyn Model,
    schema: &Schema,
    raw: &[f64],
    reference: &Reference,
    opts: &ReasonOptions,
) -> Result<Attribution> {
    opts.validate()?;
    crate::model::check_model_for_schema(model, schema, "the schema")?;
    reference.check_schema(schema)?;
    let x = schema.encode(raw)?;
    if let Some(lin) = model.as_linear() {
        Ok(linear::attribute(lin, schema, &x, reference))
    } else if let Some(card) = model.as_scorecard() {
        scorecard::attribute(card, schema, raw, reference, &opts.scorecard_baseline)
    } else if let Some(ens) = model.as_trees() {
        match opts.tree_shap {
            TreeShapMode::PathDependent => trees::path_dependent(ens, &x),
            TreeShapMode::Interventional => Ok(trees::interventional(ens, &x, reference)),
        }
    } else if let Some(net) = model.as_mlp() {
        mlp::attribute(net, schema, &x, reference, opts.mlp_max_features)
    } else {
        Err(Error::InvalidArgument(
            "reasons are computed for linear, scorecard, tree-ensemble and MLP models; this \
             model is none of them"
                .into(),
        ))
    }
}

/// The principal reasons of a raw applicant row: [`attribute`], then ranked,
/// each reason given its code and statement from `table` when one is given
/// (a PMML scorecard's own codes otherwise).
pub fn reasons(
    model: &dyn Model,
    schema: &Schema,
    raw: &[f64],
    reference: &Reference,
    table: Option<&ReasonTable>,
    opts: &ReasonOptions,
) -> Result<ReasonSet> {
    let attribution = attribute(model, schema, raw, reference, opts)?;
    rank::rank(
        schema,
        raw,
        reference,
        &attribution,
        table,
        opts.max_reasons,
    )
}
