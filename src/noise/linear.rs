//! Closed forms for a linear (logistic) model under Gaussian noise: the exact
//! invalidation rate Γ and the score margin that meets a target Γ (Guyomard
//! et al. 2023, §2.3, derived). Shared below the methods: `robust` uses the
//! rate as an oracle and a fast path, the exact engine (`coherent`) turns the
//! margin into a linear constraint of its program.

use super::{NoiseKind, NoiseModel, normal_cdf, normal_quantile};
use crate::error::{Error, Result, check_finite, check_len};
use crate::model::{LinearModel, logit};

/// The exact Γ of a linear (logistic) model under Gaussian noise (Guyomard et al. 2023,
/// §2.3, derived): `Γ = Φ((logit(t) − (w·x̌ + b))/√(wᵀΣw))`, the sum running
/// over the noisy columns only. With no noise on any weighted column the
/// answer is 0 or 1. An oracle for tests and a fast path for users.
pub fn linear_invalidation_rate(model: &LinearModel, x: &[f64], noise: &NoiseModel) -> Result<f64> {
    check_len("encoded point", model.weights.len(), x.len())?;
    check_finite("encoded point", x)?;
    noise.check_dim(x.len())?;
    if noise.kind() != NoiseKind::Gaussian {
        return Err(Error::InvalidArgument(
            "the closed-form invalidation rate needs Gaussian noise".into(),
        ));
    }
    let s = model.bias + model.weights.iter().zip(x).map(|(a, b)| a * b).sum::<f64>();
    let thr = logit(model.threshold);
    let tau = noise.projected_std(&model.weights);
    if tau == 0.0 {
        return Ok(if s <= thr { 1.0 } else { 0.0 });
    }
    Ok(normal_cdf((thr - s) / tau))
}

/// The score margin that makes a linear (logistic) model's advice robust to
/// slips: `σ_w·Φ⁻¹(1 − γ)` with `σ_w = √(wᵀΣw)` over the noisy columns
/// ([`NoiseModel::projected_std`]), so that for any encoded point x̌
///
/// `Γ(x̌) ≤ γ  ⇔  w·x̌ + b ≥ logit(t) + σ_w·Φ⁻¹(1 − γ)`.
///
/// Derivation (Guyomard et al. 2023, §2.3, with cfx's conventions): the noisy copy
/// `x̌ + ε`, ε ~ N(0, Σ) on the noise's columns, is declined when
/// `w·(x̌ + ε) + b ≤ logit(t)`; `w·ε ~ N(0, σ_w²)`, so
/// `Γ = Φ((logit(t) − s)/σ_w)` with `s = w·x̌ + b` ([`linear_invalidation_rate`]),
/// and Φ increasing gives `Γ ≤ γ ⇔ (logit(t) − s)/σ_w ≤ Φ⁻¹(γ) = −Φ⁻¹(1 − γ)`.
/// For isotropic noise of variance σ² this is `σ·‖w_S‖·Φ⁻¹(1 − γ)`.
///
/// The margin is a linear constraint on the score, which is why the exact
/// coherent engine can optimise under it (`coherent::Robustness`). For `γ ≥ ½`
/// it is ≤ 0: acceptance alone (Γ < ½) already meets the target, and the
/// margin returned is 0. Errors: non-Gaussian noise, a noise column outside
/// the model, `γ` outside (0, 1).
pub fn linear_robust_margin(
    model: &LinearModel,
    noise: &NoiseModel,
    invalidation_target: f64,
) -> Result<f64> {
    noise.check_dim(model.weights.len())?;
    if noise.kind() != NoiseKind::Gaussian {
        return Err(Error::InvalidArgument(
            "the closed-form robust margin needs Gaussian noise".into(),
        ));
    }
    if !(invalidation_target > 0.0 && invalidation_target < 1.0) {
        return Err(Error::InvalidArgument(format!(
            "the invalidation target must lie strictly between 0 and 1, got {invalidation_target}"
        )));
    }
    let sigma_w = noise.projected_std(&model.weights);
    // Φ⁻¹(1 − γ) = −Φ⁻¹(γ), without rounding 1 − γ for a small γ.
    Ok((-sigma_w * normal_quantile(invalidation_target)).max(0.0))
}
