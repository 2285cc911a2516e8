//! What a method's answer is as advice, through C (issue 25): the status code
//! shared by the robust result (`cfx_robust_result_advice_status`) and the
//! options of a COPA plan checked with the model
//! (`cfx_copa_result_option_advice_status`). The check and the repair live in
//! [`crate::advice`]; this file only names its outcome for C.

use crate::advice::{Checked, Outcome, RepairScope};

/// What became of a method's answer (`int32_t` in C): the outcome of cfx's
/// advice check (`advice::check_or_repair`).
#[repr(i32)]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum cfx_advice_status {
    /// The method's own row: accepted by the model and actionable.
    Valid = 0,
    /// The method's row was not advice; the exact engine's cheapest accepted
    /// row over the features the method moved is.
    RepairedMovedFeatures = 1,
    /// The method's own moves did not suffice; the exact engine's cheapest
    /// accepted row over every actionable feature is the advice.
    RepairedWholeSchema = 2,
    /// No valid advice found: the method's row is kept for diagnosis only.
    NoAdvice = 3,
}

impl cfx_advice_status {
    /// The code of a checked answer.
    pub fn of(c: &Checked) -> Self {
        match (c.outcome, c.repair_scope) {
            (Outcome::Valid, _) => Self::Valid,
            (Outcome::Repaired, Some(RepairScope::WholeSchema)) => Self::RepairedWholeSchema,
            (Outcome::Repaired, _) => Self::RepairedMovedFeatures,
            (Outcome::NoAdvice, _) => Self::NoAdvice,
        }
    }
}

/// The advice row of a checked answer: empty when there is none.
pub(crate) fn advice_row(c: &Checked) -> &[f64] {
    c.advice.as_deref().unwrap_or(&[])
}
