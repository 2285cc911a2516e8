//! What a pair of validity bounds says, in numbers (issue 16): when L* = 0 or
//! U* = 1, why, and what would make them informative.
//!
//! Everything here is read off the bounds' own definitions (Bui, Nguyen & Nguyen 2022, COPA:
//! Bui, Nguyen & Nguyen 2022, Theorems 2.2–2.3 and Proposition 2.4) with two
//! facts proved in [`super::bounds`]'s docs and `plan::tests`:
//!
//! 1. **The Gelbrich ball moves the mean by up to ρ in Euclidean norm** (the pair
//!    `(μ̂ + ρu, Σ̂)`, ‖u‖ = 1, is in the ball). So if `ρ ≥ r₀ = min_j x_jᵀμ̂/‖x_j‖`
//!    (the Euclidean distance from μ̂ to the nearest option's boundary), the ball
//!    holds a mean that declines option j, and Proposition 2.4 at that pair gives
//!    **L* = 0 for every ρ ≥ r₀**. Likewise, if μ̂ accepts every option, U* = 1 at
//!    every ρ (Proposition 2.4), and if it does not, **U* = 1 for every ρ beyond
//!    the distance from μ̂ to the polyhedron Θ = {θ : x_jᵀθ ≥ 0 ∀j}** (computed
//!    here as a small nonnegative quadratic program, [`distance_to_plan`]).
//! 2. **One option at a time has a closed form.** The ball projects onto the
//!    Gelbrich disc of `(x_jᵀθ̃/‖x_j‖)`'s mean and standard deviation, and over
//!    laws with a given mean m > 0 and deviation s the least probability of
//!    acceptance is Cantelli's `m²/(m² + s²)`; over the disc it is
//!    `L*_j(ρ) = cos²(atan2(ŝ_j, m̂_j) + asin(ρ/D_j))` (0 once that angle reaches
//!    π/2), the form `plan::tests::one_option_bounds_equal_the_gelbrich_disc_closed_form_*`
//!    checks against the programs. Every law in the ball fails option j with
//!    probability at most `1 − L*_j(ρ)`, so by the union bound
//!    **L*(ρ) ≥ 1 − Σ_j (1 − L*_j(ρ))**, and L* > 0 for every ρ below the radius
//!    `r₊` where that sum reaches 1. At ρ = 0 the condition reads
//!    `Σ_j 1/(1 + z_j²) < 1`, z_j = x_jᵀμ̂ / ‖x_j‖_Σ̂ the option's margin in
//!    standard deviations of its score: every `z_j > √(J − 1)` suffices.
//!
//! So L*'s zero crossing lies in `[r₊, r₀]`; with one option both ends are the
//! same number and the crossing is exact. Between them the program decides (the
//! options may fail together, which the union bound cannot see).

use super::bounds::ValidityBound;
use super::uncertainty::ModelUncertainty;
use crate::error::{Error, Result, check_finite, check_len};
use serde::Serialize;

/// A bound within this of 0 (L*) or 1 (U*) says nothing. The programs are
/// solved to duality gaps of about 1e-8, so this leaves room for their error.
pub const VACUOUS_TOLERANCE: f64 = 1e-6;

/// Which of the two bounds carry information.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum BoundsMeaning {
    /// 0 < L* and U* < 1.
    Informative,
    /// L* = 0 (nothing guaranteed), U* < 1.
    VacuousLower,
    /// U* = 1 (nothing excluded), L* > 0.
    VacuousUpper,
    /// L* = 0 and U* = 1: the pair says nothing.
    VacuousBoth,
}

/// Why L* is 0 (or that it is not).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum LowerReason {
    /// L* > 0.
    Informative,
    /// Today's mean model already declines an option: L* = 0 at every ρ.
    MeanDeclines,
    /// ρ ≥ r₀: the ball holds a mean model that declines the closest option.
    RadiusReachesBoundary,
    /// ρ < r₀, yet L* = 0: the spread Σ̂ lets the options fail together.
    SpreadTooWide,
}

/// Why U* is 1 (or that it is not).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum UpperReason {
    /// U* < 1.
    Informative,
    /// Today's mean model accepts every option: U* = 1 at every ρ.
    MeanAccepts,
    /// ρ is at least the distance from μ̂ to the plan's acceptance region.
    RadiusReachesPlan,
    /// ρ is below that distance, yet U* = 1: the spread Σ̂ reaches it.
    SpreadTooWide,
}

/// A pair (L*, U*) at radius ρ, read: what it means and, when it says
/// nothing, why in numbers and what would change that. Built by
/// [`BoundsReading::new`]; [`BoundsReading::in_words`] says it for a person.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct BoundsReading {
    pub lower: f64,
    pub upper: f64,
    pub rho: f64,
    pub meaning: BoundsMeaning,
    pub lower_reason: LowerReason,
    pub upper_reason: UpperReason,
    /// d = dim μ̂: the intercept and the weights, each uncertain.
    pub uncertain_parameters: usize,
    /// The number of directions in which Σ̂ varies (eigenvalues above
    /// 1e-12 · the largest, the rule of the reduced programs).
    pub covariance_rank: usize,
    /// tr Σ̂: the total variance of the parameters.
    pub covariance_trace: f64,
    /// J.
    pub options: usize,
    /// r₀ = min_j x_jᵀμ̂/‖x_j‖: L* = 0 for every ρ ≥ r₀ (negative when μ̂
    /// declines an option).
    pub zero_radius: f64,
    /// The option (0-based) attaining r₀: the first to fail as ρ grows.
    pub closest_option: usize,
    /// r₊: L* > 0 for every ρ < r₊ (the union of the one-option closed
    /// forms); None when that union says nothing even at ρ = 0.
    pub sure_radius: Option<f64>,
    /// The union bound `max(0, 1 − Σ_j (1 − L*_j(ρ)))` at ρ, a closed-form
    /// lower bound on L*.
    pub union_lower: f64,
    /// min_j z_j, z_j = x_jᵀμ̂ / ‖x_j‖_Σ̂: the closest option's margin in
    /// standard deviations of its score (infinite when no option's score varies).
    pub smallest_z: f64,
    /// The distance from μ̂ to Θ = {θ : x_jᵀθ ≥ 0 ∀j} (0 when μ̂ ∈ Θ): U* = 1
    /// for every ρ beyond it.
    pub plan_distance: f64,
}

/// Per option: `(m̂_j, ŝ_j)`, the mean and standard deviation of `x_jᵀθ̃/‖x_j‖`
/// under (μ̂, Σ̂). An all-zero option is refused (it has no boundary).
fn normalised_moments(plan: &[Vec<f64>], unc: &ModelUncertainty) -> Result<Vec<(f64, f64)>> {
    let d = unc.dim();
    plan.iter()
        .enumerate()
        .map(|(j, x)| {
            let norm = x.iter().map(|v| v * v).sum::<f64>().sqrt();
            if norm == 0.0 {
                return Err(Error::InvalidArgument(format!(
                    "option {j} is all zeros: it has no decision boundary"
                )));
            }
            let m: f64 = x.iter().zip(&unc.mean).map(|(a, b)| a * b).sum();
            let mut var = 0.0;
            for i in 0..d {
                for k in 0..d {
                    var += x[i] * unc.cov[i * d + k] * x[k];
                }
            }
            Ok((m / norm, var.max(0.0).sqrt() / norm))
        })
        .collect()
}

/// The one-option lower bound over the Gelbrich disc (module docs, 2.):
/// `cos²(atan2(ŝ, m̂) + asin(ρ/D))`, 0 once the angle reaches π/2 or ρ ≥ D.
pub fn one_option_lower(m_hat: f64, s_hat: f64, rho: f64) -> f64 {
    let dist = m_hat.hypot(s_hat);
    if m_hat <= 0.0 || rho >= dist {
        return 0.0;
    }
    let angle = s_hat.atan2(m_hat) + (rho / dist).asin();
    if angle < std::f64::consts::FRAC_PI_2 {
        angle.cos().powi(2)
    } else {
        0.0
    }
}

/// `max(0, 1 − Σ_j (1 − L*_j(ρ)))`, written `Σ_j L*_j − (J − 1)` so that a
/// tiny L*_j is not lost to rounding in `1 − L*_j`.
fn union_lower(moments: &[(f64, f64)], rho: f64) -> f64 {
    let sum: f64 = moments
        .iter()
        .map(|&(m, s)| one_option_lower(m, s, rho))
        .sum();
    (sum - (moments.len() - 1) as f64).max(0.0)
}

/// The distance from μ̂ to Θ = {θ : Xθ ≥ 0}: `min ‖θ − μ̂‖ s.t. x_jᵀθ ≥ 0`,
/// through its dual `max_{λ ≥ 0} −½λᵀGλ − λᵀm` (G = XXᵀ, m = Xμ̂; the
/// projection is μ̂ + Xᵀλ), solved by cyclic coordinate descent (exact
/// minimisation along each λ_j, clipped at 0; it converges for any PSD G).
/// Returns 0 when μ̂ ∈ Θ.
pub fn distance_to_plan(plan: &[Vec<f64>], unc: &ModelUncertainty) -> f64 {
    let jn = plan.len();
    let dot = |a: &[f64], b: &[f64]| a.iter().zip(b).map(|(x, y)| x * y).sum::<f64>();
    let m: Vec<f64> = plan.iter().map(|x| dot(x, &unc.mean)).collect();
    if m.iter().all(|&v| v >= 0.0) {
        return 0.0;
    }
    let g: Vec<Vec<f64>> = plan
        .iter()
        .map(|a| plan.iter().map(|b| dot(a, b)).collect())
        .collect();
    let mut lambda = vec![0.0; jn];
    // gradient of ½λᵀGλ + λᵀm is Gλ + m = Xθ with θ = μ̂ + Xᵀλ
    let mut grad = m.clone();
    for _ in 0..100_000 {
        let mut moved = 0.0f64;
        for j in 0..jn {
            if g[j][j] <= 0.0 {
                continue;
            }
            let new = (lambda[j] - grad[j] / g[j][j]).max(0.0);
            let step = new - lambda[j];
            if step != 0.0 {
                for k in 0..jn {
                    grad[k] += g[k][j] * step;
                }
                lambda[j] = new;
                moved = moved.max(step.abs() * g[j][j].sqrt());
            }
        }
        if moved < 1e-14 {
            break;
        }
    }
    // ‖θ − μ̂‖ = ‖Xᵀλ‖
    let mut sq = 0.0;
    for j in 0..jn {
        for k in 0..jn {
            sq += lambda[j] * g[j][k] * lambda[k];
        }
    }
    sq.max(0.0).sqrt()
}

impl BoundsReading {
    /// Reads `lower` (L*) and `upper` (U*), computed for `plan` (options with
    /// the intercept first, as for the bounds) under `unc` at radius `rho`.
    /// Solves no program: every figure is a closed form of (μ̂, Σ̂, plan, ρ).
    pub fn new(
        plan: &[Vec<f64>],
        unc: &ModelUncertainty,
        rho: f64,
        lower: &ValidityBound,
        upper: &ValidityBound,
    ) -> Result<BoundsReading> {
        if plan.is_empty() {
            return Err(Error::InvalidArgument(
                "a plan needs at least one option".into(),
            ));
        }
        for x in plan {
            check_len("plan option (with intercept)", unc.dim(), x.len())?;
            check_finite("plan option", x)?;
        }
        if !(rho.is_finite() && rho >= 0.0) {
            return Err(Error::InvalidArgument(format!(
                "the radius ρ must be finite and ≥ 0, got {rho}"
            )));
        }
        for (name, b) in [("L*", lower), ("U*", upper)] {
            if !(b.value.is_finite() && (0.0..=1.0).contains(&b.value)) {
                return Err(Error::InvalidArgument(format!(
                    "{name} must be a number in [0, 1] to be read, got {} (status {:?})",
                    b.value, b.status
                )));
            }
        }
        let moments = normalised_moments(plan, unc)?;
        let (closest_option, zero_radius) = moments
            .iter()
            .enumerate()
            .map(|(j, &(m, _))| (j, m))
            .fold((0, f64::INFINITY), |a, b| if b.1 < a.1 { b } else { a });
        let smallest_z = moments
            .iter()
            .map(|&(m, s)| {
                if s > 0.0 {
                    m / s
                } else {
                    m.signum() * f64::INFINITY
                }
            })
            .fold(f64::INFINITY, f64::min);
        let sure_radius = if union_lower(&moments, 0.0) <= 0.0 {
            None
        } else {
            // Σ_j(1 − L*_j(ρ)) is continuous and nondecreasing in ρ and reaches
            // J ≥ 1 at ρ = r₀ (the closest option's L*_j is 0 there): bisect.
            let (mut lo, mut hi) = (0.0, zero_radius);
            for _ in 0..200 {
                let mid = 0.5 * (lo + hi);
                if union_lower(&moments, mid) > 0.0 {
                    lo = mid;
                } else {
                    hi = mid;
                }
                if hi - lo <= 1e-15 * hi.max(1.0) {
                    break;
                }
            }
            Some(lo)
        };
        let plan_distance = distance_to_plan(plan, unc);
        let lower_vacuous = lower.value <= VACUOUS_TOLERANCE;
        let upper_vacuous = upper.value >= 1.0 - VACUOUS_TOLERANCE;
        let lower_reason = if !lower_vacuous {
            LowerReason::Informative
        } else if zero_radius <= 0.0 {
            LowerReason::MeanDeclines
        } else if rho >= zero_radius {
            LowerReason::RadiusReachesBoundary
        } else {
            LowerReason::SpreadTooWide
        };
        let upper_reason = if !upper_vacuous {
            UpperReason::Informative
        } else if zero_radius > 0.0 {
            UpperReason::MeanAccepts
        } else if rho >= plan_distance {
            UpperReason::RadiusReachesPlan
        } else {
            UpperReason::SpreadTooWide
        };
        let meaning = match (lower_vacuous, upper_vacuous) {
            (false, false) => BoundsMeaning::Informative,
            (true, false) => BoundsMeaning::VacuousLower,
            (false, true) => BoundsMeaning::VacuousUpper,
            (true, true) => BoundsMeaning::VacuousBoth,
        };
        let cov = unc.cov_matrix();
        let ev = cov.clone().symmetric_eigen().eigenvalues;
        let top = ev.iter().fold(0.0f64, |a, &b| a.max(b));
        let covariance_rank = ev.iter().filter(|&&v| top > 0.0 && v > 1e-12 * top).count();
        Ok(BoundsReading {
            lower: lower.value,
            upper: upper.value,
            rho,
            meaning,
            lower_reason,
            upper_reason,
            uncertain_parameters: unc.dim(),
            covariance_rank,
            covariance_trace: cov.trace(),
            options: plan.len(),
            zero_radius,
            closest_option,
            sure_radius,
            union_lower: union_lower(&moments, rho),
            smallest_z,
            plan_distance,
        })
    }

    /// The reading for a person: empty when both bounds are informative,
    /// otherwise one sentence per vacuous bound, with the numbers.
    pub fn in_words(&self) -> String {
        let mut parts = Vec::new();
        let j = self.options;
        let params = format!(
            "{} uncertain parameters (Σ̂ of rank {}, total variance {})",
            self.uncertain_parameters,
            self.covariance_rank,
            sig3(self.covariance_trace)
        );
        let sure = match self.sure_radius {
            Some(r) if r > 0.0 => format!("L* > 0 is certain for ρ < {}", sig3(r)),
            _ => format!(
                "L* > 0 is certain once every option's margin exceeds √(J − 1) = {:.2} standard deviations \
                 (now {:.2} for the closest)",
                ((j - 1) as f64).sqrt(),
                self.smallest_z
            ),
        };
        match self.lower_reason {
            LowerReason::Informative => {}
            LowerReason::MeanDeclines => parts.push(format!(
                "L* = 0 says nothing: today's mean model already declines option {} \
                 (its margin is {}); L* is 0 at every ρ until that option is accepted by μ̂",
                self.closest_option + 1,
                sig3(self.zero_radius)
            )),
            LowerReason::RadiusReachesBoundary => parts.push(format!(
                "L* = 0 says nothing: {params}; ρ = {} is at least {}, the distance from μ̂ at \
                 which option {} could fail, so the ball holds a model that declines it; informative \
                 only for ρ < {} ({sure}), or with options further from the boundary",
                self.rho,
                sig3(self.zero_radius),
                self.closest_option + 1,
                sig3(self.zero_radius)
            )),
            LowerReason::SpreadTooWide => parts.push(format!(
                "L* = 0 says nothing: {params}; ρ = {} is below {}, the distance at which option {} \
                 could fail, but the spread is too wide: the closest option lies {:.2} standard \
                 deviations of its score from the boundary and the {j} options may fail together; \
                 {sure}; a tighter Σ̂ (more data or refits) or options further from the boundary would \
                 make it informative",
                self.rho,
                sig3(self.zero_radius),
                self.closest_option + 1,
                self.smallest_z
            )),
        }
        match self.upper_reason {
            UpperReason::Informative => {}
            UpperReason::MeanAccepts => parts.push(
                "U* = 1 says nothing: today's mean model accepts every option, and then U* = 1 at \
                 every ρ (Proposition 2.4); only a plan μ̂ declines can have U* < 1"
                    .to_string(),
            ),
            UpperReason::RadiusReachesPlan => parts.push(format!(
                "U* = 1 says nothing: ρ = {} is at least {}, the distance from μ̂ to a model that \
                 accepts every option; informative at most for ρ < {}",
                self.rho,
                sig3(self.plan_distance),
                sig3(self.plan_distance)
            )),
            UpperReason::SpreadTooWide => parts.push(format!(
                "U* = 1 says nothing: {params}; a model accepting every option lies {} from μ̂ \
                 (beyond ρ = {}), but the spread Σ̂ reaches it; a tighter Σ̂ would make it informative",
                sig3(self.plan_distance),
                self.rho
            )),
        }
        parts.join("; ")
    }
}

/// `x` with three significant digits, without an exponent for ordinary sizes.
fn sig3(x: f64) -> String {
    if x == 0.0 || !x.is_finite() {
        return format!("{x}");
    }
    let digits = (2 - x.abs().log10().floor() as i32).clamp(0, 12) as usize;
    format!("{x:.digits$}")
}
