//! Counterfactual plans under model shift (COPA: Bui, Nguyen & Nguyen
//! ICLR 2022), for linear models.
//!
//! A lender retrains its model; a plan of `J` recourse options given today must
//! still be accepted by tomorrow's model. The future parameters θ̃ = (bias, w) are
//! random with nominal moments (μ̂, Σ̂) ([`ModelUncertainty`], estimated from an
//! ensemble of refits or given), and the truth lies within Gelbrich distance ρ of
//! them. This module gives COPA's three tools:
//!
//! * **diagnosis**: the bounds L* ≤ P(every option stays valid) ≤ U*
//!   ([`lower_validity_bound`], [`upper_validity_bound`]), semidefinite programs
//!   solved with clarabel, with an exact faster program of size J + 1 at ρ = 0
//!   solved by a dense barrier method of its own (clarabel as its fallback);
//! * **correction**: the Requirement projection and the Mahalanobis improvement
//!   ([`project_requirement`], [`correct_plan`]);
//! * **construction**: the COPA plan generator ([`copa_plan`]);
//! * **reading**: what a pair of bounds says and, when vacuous, why in numbers
//!   ([`BoundsReading`]).

// Index loops mirror the papers' subscripts (x_j[i], Σ̂_ik); they read clearer than iterator chains.
#![allow(clippy::needless_range_loop)]

mod bounds;
mod chebyshev;
mod conic;
mod copa;
mod correction;
mod reading;
mod uncertainty;

pub use bounds::{
    BoundOptions, BoundProgram, TrivialCase, ValidityBound, lower_validity_bound,
    lower_validity_bound_with, mean_margin, upper_validity_bound, upper_validity_bound_with,
};
pub use conic::SolveStatus;
pub use copa::{
    CopaConfig, CopaPlan, DPP_DIAGONAL, EncodedBox, coinciding_options, copa_box, copa_plan,
    copa_plan_encoded, decode_options, options_label, plan_metrics,
};
pub use correction::{
    CorrectedPlan, CorrectionConfig, Improvement, correct_plan, correct_plan_in_box,
    mahalanobis_improve, mahalanobis_ratio, project_requirement,
};
pub use reading::{
    BoundsMeaning, BoundsReading, LowerReason, UpperReason, VACUOUS_TOLERANCE, distance_to_plan,
    one_option_lower,
};
pub use uncertainty::{
    EnsembleConfig, ModelUncertainty, gelbrich_distance, psd_sqrt, theta_of, with_intercept,
};

#[cfg(test)]
mod tests;
