//! Monte Carlo estimates of the recourse invalidation rate Γ and CROCO's soft
//! rate Θ, the CROCO bound and PROBE's first-order approximation (the exact Γ of
//! a linear model under Gaussian noise, shared with the exact engine, is in
//! [`crate::noise`]).
//!
//! Every estimate runs in a caller-owned [`Workspace`] that holds every buffer
//! and the seeded xoshiro256++ generator, so an estimate of K samples never
//! touches the heap (tested with a counting allocator in
//! `tests/robust_no_alloc.rs`).
//!
//! The generic loop draws 64 samples at a time (in the order of drawing them
//! one by one) and scores the block through [`Model::score_perturbed`], which
//! models implement with SIMD-friendly block code; Θ̃'s `1 − σ` uses a
//! vectorisable `exp` ([`exp_det`]) and eight fixed partial sums.

use crate::error::{Error, Result, check_finite, check_len};
use crate::model::{LinearModel, Model, PERTURBED_BLOCK, logit, sigmoid, simd_fn};
use crate::noise::normal_cdf;
use crate::noise::{NoiseKind, NoiseModel};
use rand::{Rng, SeedableRng};
use rand_distr::{Distribution, StandardNormal};
use rand_xoshiro::Xoshiro256PlusPlus;

/// Every buffer an estimate needs, plus its random generator.
///
/// Create one per thread and reuse it: estimates draw from its generator in
/// sequence, so the same workspace seed and the same calls give the same bits.
#[derive(Debug, Clone)]
pub struct Workspace {
    dim: usize,
    pub(crate) point: Vec<f64>,
    pub(crate) scratch: Vec<f64>,
    pub(crate) grad: Vec<f64>,
    pub(crate) acc: Vec<f64>,
    /// A block of noise, column-major: `deltas[k·PERTURBED_BLOCK + s]` is
    /// sample s's noise on the k-th noisy column.
    deltas: Vec<f64>,
    /// The scores of a block of samples (or its standard normals).
    scores: Vec<f64>,
    /// The model's block-evaluation scratch ([`Model::perturbed_scratch_len`]).
    perturbed: Vec<f64>,
    pub(crate) rng: Xoshiro256PlusPlus,
}

impl Workspace {
    /// A workspace sized for `model`, its generator seeded with `seed`.
    pub fn new<M: Model + ?Sized>(model: &M, seed: u64) -> Workspace {
        let dim = model.input_dim();
        Workspace {
            dim,
            point: vec![0.0; dim],
            scratch: vec![0.0; model.scratch_len()],
            grad: vec![0.0; dim],
            acc: vec![0.0; dim],
            deltas: vec![0.0; dim * PERTURBED_BLOCK],
            scores: vec![0.0; PERTURBED_BLOCK],
            perturbed: vec![0.0; model.perturbed_scratch_len()],
            rng: Xoshiro256PlusPlus::seed_from_u64(seed),
        }
    }

    /// Restarts the generator from `seed`.
    pub fn reseed(&mut self, seed: u64) {
        self.rng = Xoshiro256PlusPlus::seed_from_u64(seed);
    }

    /// Replaces the generator (used by batch estimation to hand out streams).
    pub fn set_rng(&mut self, rng: Xoshiro256PlusPlus) {
        self.rng = rng;
    }

    /// The encoded dimension this workspace serves.
    pub fn dim(&self) -> usize {
        self.dim
    }

    fn check<M: Model + ?Sized>(&self, model: &M) -> Result<()> {
        if model.input_dim() != self.dim
            || model.scratch_len() > self.scratch.len()
            || model.perturbed_scratch_len() > self.perturbed.len()
        {
            return Err(Error::InvalidArgument(
                "this workspace was made for another model".into(),
            ));
        }
        Ok(())
    }
}

/// Θ̃, its bound and PROBE need the model's probability.
fn check_probability<M: Model + ?Sized>(model: &M) -> Result<()> {
    if model.has_probability() {
        Ok(())
    } else {
        Err(Error::InvalidArgument(
            "this model has no probability (a scorecard without a scaling): Θ̃ and the CROCO \
             bound need one; give the scorecard its scaling, or use the invalidation rate Γ̃"
                .into(),
        ))
    }
}

/// A Monte Carlo mean with its standard error `s/√K` (s the sample standard
/// deviation with the K − 1 divisor).
#[derive(Debug, Clone, Copy, PartialEq, Default, serde::Serialize)]
pub struct McRate {
    pub value: f64,
    pub std_error: f64,
    pub k: usize,
}

/// Γ̃ and Θ̃ from the same K samples.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct Estimate {
    /// Γ̃ (Guyomard et al. 2023, eq. 3): the fraction of noisy copies the model rejects.
    pub invalidation: McRate,
    /// Θ̃ (Guyomard et al. 2023, §2.2): the mean of `1 − f` over the noisy copies.
    pub soft: McRate,
}

/// CROCO's high-probability bound on Γ (Guyomard et al. 2023, Propositions 1–2).
#[derive(Debug, Clone, Copy, PartialEq, Default, serde::Serialize)]
pub struct Bound {
    /// `(m + Θ̃)/(1 − t)`.
    pub value: f64,
    /// `1 − exp(−2Km²)`: the probability (over the K draws) that Γ ≤ `value`.
    pub confidence: f64,
    pub margin: f64,
    pub k: usize,
}

/// How an estimate draws its samples.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Sampling {
    /// The projection fast path when the model is linear and the noise
    /// Gaussian, the generic loop otherwise.
    #[default]
    Auto,
    /// Always perturb every noisy column and evaluate the model (any model, any noise).
    Generic,
}

/// A Monte Carlo estimator: a noise model, a sample count K and a sampling path.
#[derive(Debug, Clone, PartialEq)]
pub struct Estimator {
    pub noise: NoiseModel,
    pub k: usize,
    pub sampling: Sampling,
}

/// Bernoulli/bounded-mean standard error from a sum and a sum of squares.
#[inline]
fn mc_rate(sum: f64, sum_sq: f64, k: usize) -> McRate {
    let kf = k as f64;
    let mean = sum / kf;
    let var = ((sum_sq - kf * mean * mean) / (kf - 1.0)).max(0.0);
    McRate {
        value: mean,
        std_error: (var / kf).sqrt(),
        k,
    }
}

/// The CROCO bound `(m + Θ̃)/(1 − t)` and its confidence `1 − exp(−2Km²)`
/// (Guyomard et al. 2023, Proposition 2). **Derived**: the paper's exact printed form was
/// not recovered; this is Markov's inequality on `1 − f` (Proposition 1,
/// Γ ≤ Θ/(1 − t)) combined with the one-sided Hoeffding inequality
/// P(Θ − Θ̃ ≥ m) ≤ exp(−2Km²) for K i.i.d. variables in [0, 1].
pub fn invalidation_bound(theta: f64, margin: f64, threshold: f64, k: usize) -> Result<Bound> {
    if !(0.0..=1.0).contains(&theta) {
        return Err(Error::InvalidArgument(format!(
            "Θ̃ must lie in [0, 1], got {theta}"
        )));
    }
    if !(margin.is_finite() && margin > 0.0) {
        return Err(Error::InvalidArgument(format!(
            "the margin m must be positive, got {margin}"
        )));
    }
    if !(threshold > 0.0 && threshold < 1.0) {
        return Err(Error::InvalidArgument(format!(
            "the threshold must lie strictly between 0 and 1, got {threshold}"
        )));
    }
    if k == 0 {
        return Err(Error::InvalidArgument("K must be positive".into()));
    }
    Ok(Bound {
        value: (margin + theta) / (1.0 - threshold),
        confidence: bound_confidence(k, margin),
        margin,
        k,
    })
}

/// `1 − exp(−2Km²)` (Guyomard et al. 2023, §2.2; derived Hoeffding form).
pub fn bound_confidence(k: usize, margin: f64) -> f64 {
    -(-2.0 * k as f64 * margin * margin).exp_m1()
}

/// What CROCO's guarantee `(m + Θ̃)/(1 − t)` (Guyomard et al. 2023, Propositions 1–2;
/// Guyomard et al. 2023) can and cannot say for a chosen Hoeffding margin m,
/// decision threshold t and sample count K (issue 16: "with confidence
/// 99.97%, at most 51.2%" must say that it cannot go below m/(1 − t)).
///
/// * the **floor** `m/(1 − t)`: the bound at Θ̃ = 0, the smallest value it can
///   take, i.e. no invalidation target at or below it can be certified, however
///   robust the counterfactual;
/// * the **margin needed for a target** γ: the bound is below γ only if
///   `m < γ(1 − t)`;
/// * the **soft rate needed**: the bound is below γ exactly when
///   `Θ̃ < γ(1 − t) − m`, i.e. the model's mean probability under noise is above
///   `1 − γ(1 − t) + m`;
/// * the **samples for a confidence** 1 − δ at margin m: `1 − exp(−2Km²) ≥
///   1 − δ` iff `K ≥ ln(1/δ)/(2m²)` (the one-sided Hoeffding inequality).
#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize)]
pub struct GuaranteeLimits {
    pub margin: f64,
    pub threshold: f64,
    pub k: usize,
    /// `m/(1 − t)`.
    pub floor: f64,
    /// `1 − exp(−2Km²)`.
    pub confidence: f64,
}

impl GuaranteeLimits {
    /// The limits for margin `m ∈ (0, 1]`, threshold `t ∈ (0, 1)` and `k ≥ 1` samples.
    pub fn new(margin: f64, threshold: f64, k: usize) -> Result<GuaranteeLimits> {
        if margin > 1.0 {
            return Err(Error::InvalidArgument(format!(
                "the margin m must be at most 1 (Θ̃ lies in [0, 1]), got {margin}"
            )));
        }
        let floor = invalidation_bound(0.0, margin, threshold, k)?;
        Ok(GuaranteeLimits {
            margin,
            threshold,
            k,
            floor: floor.value,
            confidence: floor.confidence,
        })
    }

    /// The limits of a bound CROCO reported (its margin and K) at threshold `t`.
    pub fn of_bound(bound: &Bound, threshold: f64) -> Result<GuaranteeLimits> {
        GuaranteeLimits::new(bound.margin, threshold, bound.k)
    }

    /// Whether the bound can certify a target γ at all: γ > m/(1 − t).
    pub fn can_certify(&self, target: f64) -> bool {
        target > self.floor
    }

    /// The supremum of the margins that can certify `target`: `γ(1 − t)`
    /// (the bound is below γ only for m strictly below it).
    pub fn margin_for_target(&self, target: f64) -> f64 {
        target * (1.0 - self.threshold)
    }

    /// The supremum of the Θ̃ with which the bound certifies `target`:
    /// `γ(1 − t) − m`; not positive when the target is at or below the floor.
    pub fn soft_rate_for_target(&self, target: f64) -> f64 {
        target * (1.0 - self.threshold) - self.margin
    }

    /// The least K giving `confidence` (in (0, 1)) at margin `m > 0`:
    /// `⌈ln(1/δ)/(2m²)⌉`, δ = 1 − confidence.
    pub fn samples_for_confidence(margin: f64, confidence: f64) -> Result<usize> {
        if !(margin.is_finite() && margin > 0.0) {
            return Err(Error::InvalidArgument(format!(
                "the margin m must be positive, got {margin}"
            )));
        }
        if !(confidence > 0.0 && confidence < 1.0) {
            return Err(Error::InvalidArgument(format!(
                "the confidence must lie strictly between 0 and 1, got {confidence}"
            )));
        }
        let k = (-(-confidence).ln_1p() / (2.0 * margin * margin)).ceil();
        if k >= usize::MAX as f64 {
            return Err(Error::InvalidArgument(format!(
                "confidence {confidence} at margin {margin} needs more than usize::MAX samples"
            )));
        }
        Ok((k as usize).max(1))
    }

    /// The limits for a person, for a reported bound `value` and the `target`
    /// it was meant to meet.
    pub fn in_words(&self, value: f64, target: f64) -> String {
        let theta = (value * (1.0 - self.threshold) - self.margin).max(0.0);
        let mut s = format!(
            "this guarantee cannot go below m/(1 − t) = {:.1}% for this setting (margin m = {}, \
             threshold t = {}, K = {}); ",
            100.0 * self.floor,
            self.margin,
            self.threshold,
            self.k,
        );
        if value >= 1.0 {
            s.push_str(&format!(
                "here the bound is {:.1}%, above 100%, so it says nothing: that floor plus Θ̃/(1 − t) \
                 with Θ̃ = {theta:.3}, the mean of 1 − f over the noisy copies",
                100.0 * value
            ));
        } else {
            s.push_str(&format!(
                "{:.1}% is that floor plus Θ̃/(1 − t), Θ̃ = {theta:.3} the mean of 1 − f over the noisy copies",
                100.0 * value
            ));
        }
        let need = self.soft_rate_for_target(target);
        if need > 0.0 {
            s.push_str(&format!(
                "; certifying {:.0}% needs Θ̃ < {:.3}, i.e. the model's mean probability under noise above {:.3}",
                100.0 * target,
                need,
                1.0 - need
            ));
        } else {
            s.push_str(&format!(
                "; {:.0}% cannot be certified with m = {}: that needs m < {:.3}",
                100.0 * target,
                self.margin,
                self.margin_for_target(target)
            ));
        }
        s
    }
}

impl Estimator {
    /// An estimator with K samples (K ≥ 2, so that a standard error exists).
    pub fn new(noise: NoiseModel, k: usize) -> Result<Estimator> {
        if k < 2 {
            return Err(Error::InvalidArgument(format!(
                "K must be at least 2, got {k}"
            )));
        }
        Ok(Estimator {
            noise,
            k,
            sampling: Sampling::Auto,
        })
    }

    /// The same estimator with another sampling path.
    pub fn with_sampling(mut self, sampling: Sampling) -> Estimator {
        self.sampling = sampling;
        self
    }

    fn check<M: Model + ?Sized>(&self, model: &M, x: &[f64], ws: &Workspace) -> Result<()> {
        ws.check(model)?;
        check_len("encoded point", model.input_dim(), x.len())?;
        check_finite("encoded point", x)?;
        self.noise.check_dim(x.len())?;
        if self.k < 2 {
            return Err(Error::InvalidArgument(format!(
                "K must be at least 2, got {}",
                self.k
            )));
        }
        Ok(())
    }

    /// Γ̃(x̌; K, p_ε) = (1/K) Σ 1[f(x̌ + ε_k) ≤ t] (Guyomard et al. 2023, eq. 3, in CARLA's
    /// form `mean(1 − h(x̌ + ε))`; it equals `mean(h(x̌) − h(x̌ + ε))` for an
    /// accepted x̌, the only case the paper considers). Never allocates.
    pub fn invalidation_rate<M: Model + ?Sized>(
        &self,
        model: &M,
        x: &[f64],
        ws: &mut Workspace,
    ) -> Result<McRate> {
        self.check(model, x, ws)?;
        let (h, _, _) = self.run::<M, true, false>(model, x, ws);
        Ok(mc_rate(h, h, self.k))
    }

    /// Θ̃(x̌; K, p_ε) = (1/K) Σ (1 − f(x̌ + ε_k)) (Guyomard et al. 2023, §2.2). Never
    /// allocates. Refuses a model without a probability (an unscaled scorecard).
    pub fn soft_invalidation_rate<M: Model + ?Sized>(
        &self,
        model: &M,
        x: &[f64],
        ws: &mut Workspace,
    ) -> Result<McRate> {
        self.check(model, x, ws)?;
        check_probability(model)?;
        let (_, s, s2) = self.run::<M, false, true>(model, x, ws);
        Ok(mc_rate(s, s2, self.k))
    }

    /// Γ̃ and Θ̃ from the same K samples. Never allocates. Refuses a model
    /// without a probability (an unscaled scorecard: use
    /// [`Estimator::invalidation_rate`]).
    pub fn estimate<M: Model + ?Sized>(
        &self,
        model: &M,
        x: &[f64],
        ws: &mut Workspace,
    ) -> Result<Estimate> {
        self.check(model, x, ws)?;
        check_probability(model)?;
        let (h, s, s2) = self.run::<M, true, true>(model, x, ws);
        Ok(Estimate {
            invalidation: mc_rate(h, h, self.k),
            soft: mc_rate(s, s2, self.k),
        })
    }

    /// Θ̃ and the CROCO bound with margin `m` (Guyomard et al. 2023, Proposition 2). Never allocates.
    pub fn bound<M: Model + ?Sized>(
        &self,
        model: &M,
        x: &[f64],
        margin: f64,
        ws: &mut Workspace,
    ) -> Result<(McRate, Bound)> {
        let soft = self.soft_invalidation_rate(model, x, ws)?;
        let b = invalidation_bound(soft.value, margin, model.threshold(), self.k)?;
        Ok((soft, b))
    }

    /// The sampling loop. Returns (Σ invalid, Σ(1 − f), Σ(1 − f)²). A sample
    /// is invalid when the model would decline it: its score is below
    /// [`Model::score_threshold`], or at it unless [`Model::accepts_ties`].
    fn run<M: Model + ?Sized, const HARD: bool, const SOFT: bool>(
        &self,
        model: &M,
        x: &[f64],
        ws: &mut Workspace,
    ) -> (f64, f64, f64) {
        let thr = model.score_threshold();
        let ties = model.accepts_ties();
        if self.sampling == Sampling::Auto && self.noise.kind() == NoiseKind::Gaussian {
            if let Some(lin) = model.as_linear() {
                return projection_loop::<HARD, SOFT>(lin, x, &self.noise, self.k, thr, ws);
            }
        }
        let Workspace {
            deltas,
            scores,
            perturbed,
            rng,
            ..
        } = ws;
        let cols = self.noise.columns();
        let scale = self.noise.scale();
        model.prepare_perturbed(x, cols, perturbed);
        // A local copy of the generator stays in registers (stores into the
        // noise block could otherwise alias it); it is written back below.
        let mut r = rng.clone();
        let rng = &mut r;
        let mut hard = 0u64;
        let mut lanes = SoftLanes::default();
        let mut left = self.k;
        while left > 0 {
            // Samples are drawn in the same order as one at a time: sample by
            // sample, column by column; a block is then scored at once.
            let n = left.min(PERTURBED_BLOCK);
            for s in 0..n {
                let ds = deltas[s..].iter_mut().step_by(PERTURBED_BLOCK);
                match self.noise.kind() {
                    NoiseKind::Gaussian => {
                        for (d, &sc) in ds.zip(scale) {
                            let z: f64 = StandardNormal.sample(rng);
                            *d = sc * z;
                        }
                    }
                    NoiseKind::Uniform => {
                        for (d, &sc) in ds.zip(scale) {
                            let u: f64 = rng.random();
                            *d = sc * (2.0 * u - 1.0);
                        }
                    }
                }
            }
            model.score_perturbed(x, cols, deltas, n, scores, perturbed);
            if HARD {
                hard += if ties {
                    scores[..n].iter().map(|&v| u64::from(v < thr)).sum::<u64>()
                } else {
                    scores[..n]
                        .iter()
                        .map(|&v| u64::from(v <= thr))
                        .sum::<u64>()
                };
            }
            if SOFT {
                model.scores_to_log_odds(&mut scores[..n]);
                soft_block(&scores[..n], &mut lanes);
            }
            left -= n;
        }
        ws.rng = r;
        let (soft, soft2) = lanes.totals();
        (hard as f64, soft, soft2)
    }
}

impl Estimator {
    /// Θ̃ at `x` from K fresh samples and its gradient
    /// `∇Θ̃ = −(1/K) Σ f_k(1 − f_k) ∇score(x + ε_k)` (the noise is additive, so
    /// the derivative with respect to x is the derivative at each sample),
    /// left in `ws.acc`. Linear + Gaussian uses the projection fast path
    /// (∇score = w everywhere). Used by CROCO; never allocates.
    pub(crate) fn soft_rate_with_gradient<M: Model + ?Sized>(
        &self,
        model: &M,
        x: &[f64],
        ws: &mut Workspace,
    ) -> Result<f64> {
        self.check(model, x, ws)?;
        let kf = self.k as f64;
        if self.sampling == Sampling::Auto && self.noise.kind() == NoiseKind::Gaussian {
            if let Some(lin) = model.as_linear() {
                let s = lin.bias + lin.weights.iter().zip(x).map(|(a, b)| a * b).sum::<f64>();
                let tau = self.noise.projected_std(&lin.weights);
                let (mut soft, mut slope) = (0.0, 0.0);
                for _ in 0..self.k {
                    let z: f64 = StandardNormal.sample(&mut ws.rng);
                    let f = sigmoid(s + tau * z);
                    soft += 1.0 - f;
                    slope += f * (1.0 - f);
                }
                for (a, w) in ws.acc.iter_mut().zip(&lin.weights) {
                    *a = -slope / kf * w;
                }
                return Ok(soft / kf);
            }
        }
        let Workspace {
            point,
            scratch,
            grad,
            acc,
            rng,
            ..
        } = ws;
        point.copy_from_slice(x);
        acc.fill(0.0);
        let cols = self.noise.columns();
        let scale = self.noise.scale();
        let mut soft = 0.0;
        for _ in 0..self.k {
            match self.noise.kind() {
                NoiseKind::Gaussian => {
                    for (&c, &s) in cols.iter().zip(scale) {
                        let z: f64 = StandardNormal.sample(rng);
                        point[c] = x[c] + s * z;
                    }
                }
                NoiseKind::Uniform => {
                    for (&c, &s) in cols.iter().zip(scale) {
                        let u: f64 = rng.random();
                        point[c] = x[c] + s * (2.0 * u - 1.0);
                    }
                }
            }
            let sc = model.score_gradient_in(point, grad, scratch);
            let f = sigmoid(sc);
            soft += 1.0 - f;
            let c = -f * (1.0 - f) / kf;
            for (a, g) in acc.iter_mut().zip(grad.iter()) {
                *a += c * g;
            }
        }
        Ok(soft / kf)
    }
}

/// Eight running sums of `1 − f` and of `(1 − f)²`: sample i goes to lane
/// `i mod 8` (blocks hold a multiple of 8 samples), and the lanes are added
/// in a fixed tree at the end. A single running sum would serialise on the
/// latency of the add; lanes keep the result independent of the SIMD width.
#[derive(Default)]
struct SoftLanes {
    sum: [f64; 8],
    sum_sq: [f64; 8],
}

impl SoftLanes {
    fn totals(&self) -> (f64, f64) {
        let t = |a: &[f64; 8]| ((a[0] + a[1]) + (a[2] + a[3])) + ((a[4] + a[5]) + (a[6] + a[7]));
        (t(&self.sum), t(&self.sum_sq))
    }
}

/// ln 2 split as fdlibm does: the high part has 32 significant bits, so that
/// `k·LN2_HI` is exact for every |k| < 2¹¹; `LN2_HI + LN2_LO` is ln 2 to 2⁻⁸⁵.
const LN2_HI: f64 = f64::from_bits(0x3fe6_2e42_fee0_0000);
const LN2_LO: f64 = f64::from_bits(0x3dea_39ef_3579_3c76);
/// 1.5·2⁵²: adding it rounds a double below 2⁵¹ in magnitude to an integer
/// (to nearest, ties to even), which then sits in the low bits of the sum.
const ROUND: f64 = 6_755_399_441_055_744.0;

/// `eˣ` in straight-line arithmetic that vectorises (the platform `exp` is a
/// call per value): `x = k·ln 2 + r` with `|r| ≤ ½ ln 2` (Cody–Waite, `k·ln2_hi`
/// exact), `eʳ` by its Taylor polynomial of degree 13 (truncation below
/// 5·10⁻¹⁸ relative), and `2ᵏ` built from exponent bits in two factors so
/// that over- and underflow come out as ∞ and 0. Within 2 ulp of the correctly
/// rounded value (tested against `f64::exp`); the same bits on every CPU,
/// since it calls no library and its Horner steps are `f64::mul_add`, which is
/// exactly rounded everywhere (a `vfmadd` in the AVX2 + FMA variant of
/// [`soft_block`], a software fma on the baseline). The fused steps halve the
/// polynomial's instruction count: Θ̃ on the projection path went from 61 to
/// 54 µs at K = 10,000 (BENCHMARKS.md).
#[inline(always)]
pub(crate) fn exp_det(x: f64) -> f64 {
    // Clamp so that k fits the two-factor scaling (NaN passes through).
    let x = x.clamp(-746.0, 710.0);
    let t = x * std::f64::consts::LOG2_E + ROUND;
    let kf = t - ROUND;
    let k = (t.to_bits() as i64).wrapping_sub(ROUND.to_bits() as i64);
    let r = (x - kf * LN2_HI) - kf * LN2_LO;
    const C: [f64; 14] = [
        1.0,
        1.0,
        1.0 / 2.0,
        1.0 / 6.0,
        1.0 / 24.0,
        1.0 / 120.0,
        1.0 / 720.0,
        1.0 / 5_040.0,
        1.0 / 40_320.0,
        1.0 / 362_880.0,
        1.0 / 3_628_800.0,
        1.0 / 39_916_800.0,
        1.0 / 479_001_600.0,
        1.0 / 6_227_020_800.0,
    ];
    let mut p = C[13];
    for &c in C[..13].iter().rev() {
        p = p.mul_add(r, c);
    }
    let k1 = k >> 1;
    let k2 = k - k1;
    let f1 = f64::from_bits(((k1 + 1023) as u64) << 52);
    let f2 = f64::from_bits(((k2 + 1023) as u64) << 52);
    p * f1 * f2
}

/// `1 − σ(s) = 1/(1 + eˢ)` with [`exp_det`]. Overflow is harmless: `eˢ = ∞` gives 0.
#[inline(always)]
fn one_minus_sigmoid(s: f64) -> f64 {
    1.0 / (1.0 + exp_det(s))
}

simd_fn! {
    fma:
    /// Adds `1 − σ(s)` and its square for each score of a block into the lanes.
    fn soft_block(scores: &[f64], lanes: &mut SoftLanes) {
        let chunks = scores.chunks_exact(8);
        let rest = chunks.remainder();
        for c in chunks {
            for l in 0..8 {
                let v = one_minus_sigmoid(c[l]);
                lanes.sum[l] += v;
                lanes.sum_sq[l] += v * v;
            }
        }
        for (l, &sc) in rest.iter().enumerate() {
            let v = one_minus_sigmoid(sc);
            lanes.sum[l] += v;
            lanes.sum_sq[l] += v * v;
        }
    }
}

/// The linear + Gaussian fast path: the score of x̌ + ε is `s + w·ε` and
/// `w·ε ~ N(0, τ²)` with `τ² = Σ σ_c² w_c²` over the noisy columns, so drawing
/// one standard normal per sample and using `s + τz` is **exact in
/// distribution** (K draws instead of K·d).
fn projection_loop<const HARD: bool, const SOFT: bool>(
    lin: &LinearModel,
    x: &[f64],
    noise: &NoiseModel,
    k: usize,
    thr: f64,
    ws: &mut Workspace,
) -> (f64, f64, f64) {
    let s = lin.bias + lin.weights.iter().zip(x).map(|(a, b)| a * b).sum::<f64>();
    let tau = noise.projected_std(&lin.weights);
    let Workspace { scores, rng, .. } = ws;
    // A local copy of the generator stays in registers; written back below.
    let mut r = rng.clone();
    let mut hard = 0u64;
    if HARD && !SOFT {
        // s + τz ≤ thr  ⟺  τz ≤ thr − s
        let c = thr - s;
        for _ in 0..k {
            let z: f64 = StandardNormal.sample(&mut r);
            hard += u64::from(tau * z <= c);
        }
        *rng = r;
        return (hard as f64, 0.0, 0.0);
    }
    let mut lanes = SoftLanes::default();
    let mut left = k;
    while left > 0 {
        // Draw a block of normals, then score it at once.
        let n = left.min(PERTURBED_BLOCK);
        let block = &mut scores[..n];
        for v in block.iter_mut() {
            let z: f64 = StandardNormal.sample(&mut r);
            *v = s + tau * z;
        }
        if HARD {
            hard += block.iter().map(|&v| u64::from(v <= thr)).sum::<u64>();
        }
        soft_block(block, &mut lanes);
        left -= n;
    }
    *rng = r;
    let (soft, soft2) = lanes.totals();
    (hard as f64, soft, soft2)
}

/// PROBE's first-order approximation of Γ under Gaussian noise (Guyomard et al. 2023,
/// §2.5, PROBE eq. 4): `Γ̃_PROBE = 1 − Φ(g/√(∇gᵀΣ∇g))` with `g` the score
/// minus `logit(t)` (the paper's `g` is the logit, with `t = 0.5` implicit; the
/// shift by `logit(t)` is our generalisation to other thresholds — **derived**,
/// and exact for linear models, see [`crate::noise::linear_invalidation_rate`]). When
/// `∇gᵀΣ∇g = 0` the point is certain: 0 if accepted, 1 otherwise. Uniform noise
/// is refused (the approximation is Gaussian). Never allocates.
pub fn probe_invalidation_rate<M: Model + ?Sized>(
    model: &M,
    x: &[f64],
    noise: &NoiseModel,
    ws: &mut Workspace,
) -> Result<f64> {
    Ok(probe_parts(model, x, noise, ws)?.0)
}

/// (Γ̃_PROBE, u = g/N, N, score); the gradient of the score is left in `ws.grad`.
pub(crate) fn probe_parts<M: Model + ?Sized>(
    model: &M,
    x: &[f64],
    noise: &NoiseModel,
    ws: &mut Workspace,
) -> Result<(f64, f64, f64, f64)> {
    crate::model::require_input_gradient(model, "PROBE's first-order rate")?;
    ws.check(model)?;
    check_len("encoded point", model.input_dim(), x.len())?;
    check_finite("encoded point", x)?;
    noise.check_dim(x.len())?;
    if noise.kind() != NoiseKind::Gaussian {
        return Err(Error::InvalidArgument(
            "PROBE's approximation needs Gaussian noise".into(),
        ));
    }
    let sc = model.score_gradient_in(x, &mut ws.grad, &mut ws.scratch);
    let g = sc - logit(model.threshold());
    let n = noise.projected_std(&ws.grad);
    if n == 0.0 {
        return Ok((if g > 0.0 { 0.0 } else { 1.0 }, f64::NAN, 0.0, sc));
    }
    let u = g / n;
    Ok((1.0 - normal_cdf(u), u, n, sc))
}
