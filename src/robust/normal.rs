//! The standard normal distribution: density φ and distribution function Φ.
//!
//! Φ is computed as `½·erfc(−x/√2)` with `libm::erfc` (a port of FreeBSD's msun
//! `erfc`, accurate to about one ulp). Going through `erfc` rather than `1 + erf`
//! keeps full *relative* accuracy in the lower tail, where invalidation rates of
//! robust counterfactuals live (Γ ≈ 1e-6 must not round to 0 or to noise).
//! `libm` was already in the dependency tree (through `plotters`); it is now a
//! direct dependency for this one function.

/// `1/√(2π)`.
const INV_SQRT_2PI: f64 = 0.398_942_280_401_432_7;

/// Standard normal density φ(x).
#[inline]
pub fn normal_pdf(x: f64) -> f64 {
    INV_SQRT_2PI * (-0.5 * x * x).exp()
}

/// Standard normal distribution function Φ(x) = P(Z ≤ x).
#[inline]
pub fn normal_cdf(x: f64) -> f64 {
    0.5 * libm::erfc(-x * std::f64::consts::FRAC_1_SQRT_2)
}
