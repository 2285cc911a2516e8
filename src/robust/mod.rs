//! Robust counterfactuals (Guyomard et al. 2023: CROCO, with PROBE and Wachter): how likely
//! is advice to be invalidated when the applicant implements it only
//! approximately, a guarantee on that risk, and generators that meet a target.
//!
//! - [`NoiseModel`] (from [`crate::noise`], shared with the exact engine):
//!   Gaussian N(0, σ²I) (σ² a variance, as CROCO's `sigma2`), diagonal
//!   Gaussian, uniform box — on a set of encoded columns (default: the value
//!   slots of mutable contiguous features).
//! - [`Estimator`] + [`Workspace`]: Γ̃ (Guyomard et al. 2023, eq. 3) and Θ̃ with standard
//!   errors, allocation-free; the CROCO bound [`invalidation_bound`]
//!   (Propositions 1–2, Hoeffding form derived); PROBE's
//!   [`probe_invalidation_rate`]; the exact [`linear_invalidation_rate`] and
//!   the score margin [`linear_robust_margin`] that meets a target Γ exactly
//!   (both in [`crate::noise`]);
//!   multi-core [`Estimator::estimate_batch`] with per-chunk jump() streams.
//! - Generators [`wachter`], [`probe`], [`croco`] returning a
//!   [`RobustCounterfactual`] with validity, distance, Γ̃, Θ̃, bound, confidence.

mod batch;
mod estimate;
mod generate;

/// The noise models now live in [`crate::noise`], below the methods that share them;
/// re-exported here so existing paths keep working.
pub use crate::noise::{NoiseKind, NoiseModel};
/// The closed-form rate and margin of a linear model now live in [`crate::noise`]
/// (the exact engine shares them); re-exported here.
pub use crate::noise::{linear_invalidation_rate, linear_robust_margin};
/// The standard normal distribution now lives in [`crate::noise`]; re-exported here.
pub use crate::noise::{normal_cdf, normal_pdf, normal_quantile};
pub use batch::BATCH_CHUNK;
pub use estimate::{
    Bound, Estimate, Estimator, GuaranteeLimits, McRate, Sampling, Workspace, bound_confidence,
    invalidation_bound, probe_invalidation_rate,
};
pub use generate::{
    CrocoConfig, Evaluation, Method, ProbeConfig, RobustCounterfactual, WachterConfig, croco,
    probe, wachter,
};

#[cfg(test)]
mod tests;
