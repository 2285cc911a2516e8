//! What a scorecard file says about adverse-action reason codes (PMML 4.4
//! `Scorecard`, the element FICO designed with Zementis), kept with the
//! scorecard for the reason-code work that reads it: the codes and baselines
//! of each characteristic and bin, the algorithm and the baseline method.
//!
//! cfx does not yet rank reasons from it. As jpmml-evaluator computes them, a
//! characteristic's difference is `baseline − partial score` (`pointsBelow`)
//! or `partial − baseline` (`pointsAbove`); differences are summed per code,
//! codes with a negative total dropped and the rest ranked descending.

use serde::{Deserialize, Serialize};

/// How a characteristic's contribution to a reason is measured.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ReasonCodeAlgorithm {
    /// `baseline − partial score` (PMML's default).
    PointsBelow,
    /// `partial score − baseline`.
    PointsAbove,
}

/// The reason code and baseline of one bin of a characteristic.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct BinReason {
    /// The code the file gives this bin (the attribute's own, else its
    /// characteristic's), if any.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reason_code: Option<String>,
    /// The bin's partial score as the file writes it (before any negation
    /// for a score where low is favourable).
    pub partial_score: f64,
    /// Where the bin was read (e.g. `Attribute at line 42`).
    pub source: String,
}

/// The reason codes of one characteristic, in the order of the scorecard's
/// characteristics; `bins` is parallel to the cfx characteristic's bins.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CharacteristicReasons {
    /// The file's name of the characteristic.
    pub name: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reason_code: Option<String>,
    /// The characteristic's baseline (its own, else the scorecard's).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub baseline_score: Option<f64>,
    pub bins: Vec<BinReason>,
}

/// The reason-code description of a scorecard (see the module docs).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ReasonCodes {
    /// PMML `useReasonCodes`.
    pub use_reason_codes: bool,
    pub algorithm: ReasonCodeAlgorithm,
    /// PMML `baselineMethod` (`max`, `min`, `mean`, `neutral`, `other`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub baseline_method: Option<String>,
    /// The scorecard-wide `baselineScore`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub baseline_score: Option<f64>,
    /// True when cfx's points are the file's score negated (a score where low
    /// is favourable, accepted at or below its cutoff).
    #[serde(default)]
    pub points_negated: bool,
    pub characteristics: Vec<CharacteristicReasons>,
}
