//! Diagnosis: bounds on the probability that every option of a plan stays valid
//! under the random future model θ̃ (Bui, Nguyen & Nguyen 2022, Theorems 2.2 and 2.3, Proposition 2.4).
//!
//! A plan is `J` vectors `x_j ∈ ℝ^d` **with the intercept first** (`x_j[0] = 1`,
//! see [`super::with_intercept`]); option `j` is valid for θ when `x_jᵀθ ≥ 0`, and
//! the plan is valid when every option is: `θ ∈ Θ = {θ : x_jᵀθ ≥ 0 ∀j}`.
//!
//! * `L* = inf { Q(θ̃ ∈ Θ°) : Q has moments (μ, Σ) with G((μ,Σ),(μ̂,Σ̂)) ≤ ρ }`
//! * `U* = sup { Q(θ̃ ∈ Θ)  : same ambiguity set }` (an upper bound on it, by the S-lemma).
//!
//! # The reduced ρ = 0 program (why L* only depends on `Xθ`)
//!
//! Let `X ∈ ℝ^{J×d}` stack the options, `Y = Xθ̃`. Validity is the event
//! `{Y_j > 0 ∀j}`, a function of `Y` alone. When θ̃ has mean μ̂ and covariance Σ̂,
//! `Y` has mean `m = Xμ̂` and covariance `S = XΣ̂Xᵀ`. Conversely, **every** law of a
//! random `Y` with moments `(m, S)` is the law of `Xθ̃` for some θ̃ with moments
//! `(μ̂, Σ̂)`: take `R` independent of `Y` with mean 0 and covariance
//! `Σ̂ − Σ̂XᵀS⁺XΣ̂` (a Schur complement of the PSD matrix `[[S, XΣ̂],[Σ̂Xᵀ, Σ̂]]`,
//! hence PSD) and set `θ̃ = μ̂ + Σ̂XᵀS⁺(Y − m) + R`. Its mean is μ̂; its covariance
//! is `Σ̂XᵀS⁺SS⁺XΣ̂ + Σ̂ − Σ̂XᵀS⁺XΣ̂ = Σ̂` (as `S⁺SS⁺ = S⁺`). And `Xθ̃ = Y` almost
//! surely: `XR` has covariance `S − SS⁺S = 0`, so `XR = 0` a.s., and
//! `Y − m ∈ range(S)` a.s. (its covariance is `S`), so `SS⁺(Y − m) = Y − m`.
//! Hence the infimum over laws of θ̃ equals the infimum over laws of `Y` with
//! moments `(m, S)`: the generalized Chebyshev bound of Vandenberghe, Boyd and
//! Comanor in dimension `J` instead of `d`, an SDP with PSD blocks of size `J + 1`
//! instead of `d + 1`. (For ρ > 0 the Gelbrich ball does not map onto a Gelbrich
//! ball of `Y` exactly, because `X` is not an isometry; the projected program
//! below is used there.)
//!
//! Rank-deficient `S` (repeated or linearly dependent options, or a degenerate
//! Σ̂): write `S = U_r Λ_r U_rᵀ` over the eigenvalues above `1e-12 · λ_max`, and
//! `Y = m + U_r η` with η of mean 0 and covariance `Λ_r` (positive definite), so
//! the same argument applies to η with the affine events `m_j + (U_r)_{j·}η > 0`.
//! This keeps the moment matrix of the SDP strictly positive definite (a Slater
//! point exists), which interior-point solvers need. If `r = 0`, `Y = m`
//! deterministically and `L* = 1[m_j > 0 ∀j]`.
//!
//! # The projected program (any ρ, both bounds)
//!
//! Let `V ∈ ℝ^{d×r}` have orthonormal columns whose span contains every option
//! (the Q factor of `Xᵀ`, `r = J`; used when `J < d`), and `a = Vᵀθ`. As
//! `VVᵀx_j = x_j`, `x_jᵀθ = x̃_jᵀa` with `x̃_j = Vᵀx_j`: validity depends on θ
//! through `a` only. cfx solves the *same* programs of Theorems 2.2 and 2.3 in
//! `ℝ^r`, with the data `(Vᵀμ̂, VᵀΣ̂V)`, the options `x̃_j` and the same ρ. Why the
//! optimal values are equal:
//!
//! 1. **The Gelbrich ball projects onto the Gelbrich ball.** The image of
//!    `{(μ,Σ) : G((μ,Σ),(μ̂,Σ̂)) ≤ ρ}` under `(μ,Σ) ↦ (Vᵀμ, VᵀΣV)` is
//!    `{(m,S) : G((m,S),(Vᵀμ̂,VᵀΣ̂V)) ≤ ρ}`. ⊆: `G` is the 2-Wasserstein distance
//!    between the Gaussian laws with these moments, and the 1-Lipschitz map `Vᵀ`
//!    does not increase it. ⊇: given `(m,S)` in the small ball, take an optimal
//!    jointly Gaussian coupling `(â, a)` of `N(Vᵀμ̂, VᵀΣ̂V)` and `N(m, S)`, glue
//!    `θ̂ ~ N(μ̂, Σ̂)` to it with `Vᵀθ̂ = â` (θ̂ given â is Gaussian), and set
//!    `θ = θ̂ + V(a − â)`. θ is Gaussian, `Vᵀθ = a`, and
//!    `E‖θ − θ̂‖² = E‖a − â‖² ≤ ρ²`, so `G` of its moments (the least such cost) is ≤ ρ.
//! 2. **Both programs are `min over certificates f of sup over the ball of E f(θ̃)`**,
//!    `f(θ) = [θ;1]ᵀF[θ;1]` quadratic: for U*, `f ≥ 0` and
//!    `f − 1 − Σλ_jx_jᵀθ ≥ 0` everywhere (the S-lemma form of `f ≥ 1` on Θ);
//!    for L* (the dual program, [`lower_full`]), `f ≥ 0` and `f − 1 + τ_jx_jᵀθ ≥ 0`
//!    for each j (`f ≥ 1` where option j fails); the Gelbrich-ball supremum of a
//!    quadratic's expectation is what the γ-blocks express. A certificate `g` on
//!    `ℝ^r` gives `g(Vᵀθ)` on `ℝ^d`, feasible with the same multipliers and the
//!    same worst-case expectation (it depends on the moments of `a = Vᵀθ̃`
//!    only, and by 1. these range over the small ball). Conversely, given a
//!    feasible `f` on `ℝ^d`, let `g(a) = min_b f(Va + V_⊥b)`: f is a convex
//!    quadratic bounded below, so the minimum is attained and `g` is again a
//!    convex quadratic; it keeps every constraint (the terms `x_jᵀθ = x̃_jᵀa`
//!    do not depend on b), and `g(Vᵀθ) ≤ f(θ)` pointwise, so its worst-case
//!    expectation is no larger. Hence the optimal values coincide.
//!
//! The argument uses nothing about the certificates' relaxation, so it holds for
//! U*'s S-lemma bound as well as for the exact L*. The blocks shrink from `2d`
//! and `d + 1` to `2J` and `J + 1`: at d = 20, J = 5, L*'s dual program goes
//! from 2443 cone rows and 448 variables to 208 and 43 (see BENCHMARKS.md).

#[cfg(test)]
use super::conic::SymVar;
use super::conic::{Aff, ConicSolution, Program, SolveStatus};
use super::uncertainty::{ModelUncertainty, psd_sqrt};
use crate::error::{Error, Result, check_finite, check_len};
use nalgebra::{DMatrix, DVector};
use serde::{Deserialize, Serialize};

/// Which program computes a bound.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "snake_case")]
pub enum BoundProgram {
    /// The fastest exact program: the reduced one (see [`BoundProgram::Reduced`]).
    #[default]
    Auto,
    /// Always the full d-dimensional program of the paper, as printed.
    Full,
    /// The J-dimensional program with the same value (module docs): for L* at
    /// ρ = 0 the generalized Chebyshev bound of `Y = Xθ̃` by the dense solver,
    /// otherwise the paper's program projected onto the span of the options
    /// (when `J ≥ d` the projection gains nothing, so the full program runs and
    /// is reported as `Full`).
    Reduced,
}

/// Options of [`lower_validity_bound_with`] / [`upper_validity_bound_with`].
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct BoundOptions {
    pub program: BoundProgram,
    /// Solve the program even when Proposition 2.4 gives the answer (for testing).
    pub solve_trivial: bool,
}

/// Which case of Proposition 2.4 held, if any.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum TrivialCase {
    /// μ̂ ∉ Θ° (some option has `x_jᵀμ̂ ≤ 0`): L* = 0.
    MeanOutside,
    /// μ̂ ∈ Θ° (every option has `x_jᵀμ̂ > 0`): U* = 1.
    MeanInside,
}

/// A validity bound and how it was obtained.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ValidityBound {
    /// The bound, clipped to [0, 1]; NaN when the status is not usable.
    pub value: f64,
    pub status: SolveStatus,
    /// Set when Proposition 2.4 decided the value without a program.
    pub trivial: Option<TrivialCase>,
    /// L* only: the optimal λ_j (the worst-case probability mass violating option j);
    /// the Mahalanobis correction improves the options with the largest λ_j.
    pub lambdas: Vec<f64>,
    /// Which program ran (`Auto` when none did).
    pub program: BoundProgram,
    /// Interior-point iterations (Newton steps for the dense ρ = 0 solver).
    pub iterations: u32,
    /// A bound on the duality gap of the solve: the exact bound lies within
    /// `gap` of `value` (0 when no program ran; for the reduced ρ = 0 program
    /// `value` is certified, i.e. never above the exact L*, and `gap` is the
    /// barrier's ν/t; for clarabel's solves, |primal − dual objective|).
    #[serde(default)]
    pub gap: f64,
}

fn check_inputs(plan: &[Vec<f64>], unc: &ModelUncertainty, rho: f64) -> Result<()> {
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
    Ok(())
}

/// `min_j x_jᵀμ̂`: positive iff μ̂ ∈ Θ° (Proposition 2.4).
pub fn mean_margin(plan: &[Vec<f64>], unc: &ModelUncertainty) -> f64 {
    plan.iter()
        .map(|x| x.iter().zip(&unc.mean).map(|(a, b)| a * b).sum::<f64>())
        .fold(f64::INFINITY, f64::min)
}

/// L* with the default options (the reduced programs, see [`BoundProgram::Reduced`]).
pub fn lower_validity_bound(
    plan: &[Vec<f64>],
    unc: &ModelUncertainty,
    rho: f64,
) -> Result<ValidityBound> {
    lower_validity_bound_with(plan, unc, rho, BoundOptions::default())
}

/// U* with the default options (the projected program when `J < d`).
pub fn upper_validity_bound(
    plan: &[Vec<f64>],
    unc: &ModelUncertainty,
    rho: f64,
) -> Result<ValidityBound> {
    upper_validity_bound_with(plan, unc, rho, BoundOptions::default())
}

fn trivial(value: f64, case: TrivialCase, j: usize) -> ValidityBound {
    ValidityBound {
        value,
        status: SolveStatus::Trivial,
        trivial: Some(case),
        lambdas: vec![0.0; j],
        program: BoundProgram::Auto,
        iterations: 0,
        gap: 0.0,
    }
}

/// The lower bound L* (Bui, Nguyen & Nguyen 2022, Theorem 2.2; ρ = 0 variant as in the reference
/// `zero_lower_validity_bound`). Returns `L* = 0` without solving when μ̂ ∉ Θ°
/// (Proposition 2.4) unless `opts.solve_trivial`.
pub fn lower_validity_bound_with(
    plan: &[Vec<f64>],
    unc: &ModelUncertainty,
    rho: f64,
    opts: BoundOptions,
) -> Result<ValidityBound> {
    check_inputs(plan, unc, rho)?;
    if !opts.solve_trivial && mean_margin(plan, unc) <= 0.0 {
        return Ok(trivial(0.0, TrivialCase::MeanOutside, plan.len()));
    }
    let full = opts.program == BoundProgram::Full;
    if !full && rho == 0.0 {
        return Ok(lower_reduced(plan, unc));
    }
    if !full && let Some((pu, pplan)) = project_onto_options(plan, unc) {
        let mut b = lower_full(&pplan, &pu, rho);
        b.program = BoundProgram::Reduced;
        return Ok(b);
    }
    if rho > 0.0 {
        return Ok(lower_full(plan, unc, rho));
    }
    let p = unc.cov_matrix() + unc.mean_vector() * unc.mean_vector().transpose();
    let a: Vec<DVector<f64>> = plan.iter().map(|x| DVector::from_column_slice(x)).collect();
    let mut b = chebyshev_lower(&unc.mean_vector(), &p, &a, &vec![0.0; plan.len()]);
    b.program = BoundProgram::Full;
    Ok(b)
}

/// The data of the projected program (module docs): `(Vᵀμ̂, VᵀΣ̂V)` and the
/// options `Vᵀx_j`, with V the Q factor of `Xᵀ`; None when `J ≥ d`, where the
/// full program is no larger.
pub(crate) fn project_onto_options(
    plan: &[Vec<f64>],
    unc: &ModelUncertainty,
) -> Option<(ModelUncertainty, Vec<Vec<f64>>)> {
    let (jn, d) = (plan.len(), unc.dim());
    if jn >= d {
        return None;
    }
    let xt = DMatrix::from_fn(d, jn, |i, j| plan[j][i]);
    let v = xt.clone().qr().q(); // d × J, orthonormal columns, span ⊇ the options
    let mean = v.transpose() * unc.mean_vector();
    let s = v.transpose() * unc.cov_matrix() * &v;
    let s = (&s + s.transpose()) * 0.5;
    let px = v.transpose() * xt; // J × J, column j = Vᵀx_j
    Some((
        ModelUncertainty {
            mean: mean.iter().copied().collect(),
            cov: (0..jn * jn).map(|k| s[(k / jn, k % jn)]).collect(),
        },
        (0..jn)
            .map(|j| px.column(j).iter().copied().collect())
            .collect(),
    ))
}

/// The generalized Chebyshev lower bound (Vandenberghe–Boyd–Comanor): the
/// infimum of `P(a_jᵀη + b_j > 0 ∀j)` over laws of η with mean `m` and second
/// moment `p`:
/// `1 − max Σλ_j` s.t. `W_j = [[Z_j, z_j],[z_jᵀ, λ_j]] ⪰ 0`,
/// `a_jᵀz_j + b_jλ_j ≤ 0`, `Σ_j W_j ⪯ [[p, m],[mᵀ, 1]]`.
/// With `b = 0`, `a_j = x_j`, `m = μ̂`, `p = Σ̂ + μ̂μ̂ᵀ` this is exactly the ρ = 0
/// program of seed-formulas §3.3.
#[cfg(test)]
pub(crate) fn chebyshev_lower_primal(
    m: &DVector<f64>,
    p: &DMatrix<f64>,
    a: &[DVector<f64>],
    b: &[f64],
) -> ValidityBound {
    let r = m.len();
    let mut prog = Program::new();
    let ws: Vec<SymVar> = a.iter().map(|_| prog.sym(r + 1)).collect();
    for (j, w) in ws.iter().enumerate() {
        prog.psd(r + 1, |i, k| Aff::var(w.at(i, k)));
        let mut e = Aff::default().term(w.at(r, r), -b[j]);
        for i in 0..r {
            e = e.term(w.at(i, r), -a[j][i]);
        }
        prog.nonneg(vec![e]);
        prog.objective(w.at(r, r), -1.0);
    }
    prog.psd(r + 1, |i, k| {
        let c = if k < r {
            p[(i, k)]
        } else if i < r {
            m[i]
        } else {
            1.0
        };
        let mut e = Aff::constant(c);
        for w in &ws {
            e = e.term(w.at(i, k), -1.0);
        }
        e
    });
    primal_lower(&prog.solve(), &ws, r)
}

/// L* from a solved primal program: λ_j is the corner entry of `W_j` (size `n + 1`).
#[cfg(test)]
fn primal_lower(sol: &ConicSolution, ws: &[SymVar], n: usize) -> ValidityBound {
    let lambdas: Vec<f64> = ws.iter().map(|w| sol.x[w.at(n, n)]).collect();
    finish_lower(
        sol.status,
        lambdas,
        BoundProgram::Full,
        sol.iterations,
        sol.gap(),
    )
}

fn finish_lower(
    status: SolveStatus,
    lambdas: Vec<f64>,
    program: BoundProgram,
    iterations: u32,
    gap: f64,
) -> ValidityBound {
    let value = if status.is_usable() {
        (1.0 - lambdas.iter().sum::<f64>()).clamp(0.0, 1.0)
    } else {
        f64::NAN
    };
    ValidityBound {
        value,
        status,
        trivial: None,
        lambdas,
        program,
        iterations,
        gap,
    }
}

/// L* from a solved dual program whose J shifted blocks `[[P, q + τ_j a_j/2],
/// [·, s − 1]] ⪰ 0` (of size `n + 1`) start at the rows `firsts`: λ_j is the
/// corner entry of block j's dual matrix, and the value is the dual objective,
/// the certified one: `1 − objective`.
fn certified_lower(sol: &ConicSolution, firsts: &[usize], n: usize) -> ValidityBound {
    let corner = n * (n + 1) / 2 + n;
    let lambdas: Vec<f64> = firsts.iter().map(|&f| sol.z[f + corner]).collect();
    let mut out = finish_lower(
        sol.status,
        lambdas,
        BoundProgram::Full,
        sol.iterations,
        sol.gap(),
    );
    if out.status.is_usable() {
        out.value = (1.0 - sol.objective).clamp(0.0, 1.0);
    }
    out
}

/// The reduced ρ = 0 data: `Y = Xθ̃ = m + U_rη`, η with mean 0 and covariance
/// `diag(λ)` (the eigenvalues of `XΣ̂Xᵀ` above `1e-12·λ_max`), `u[j]` the row
/// j of `U_r` (see the module docs).
pub(crate) enum Reduced {
    /// `XΣ̂Xᵀ = 0`: `Y = m` deterministically.
    Deterministic(f64),
    Program {
        lambda: Vec<f64>,
        u: Vec<Vec<f64>>,
        m: Vec<f64>,
    },
}

pub(crate) fn reduce(plan: &[Vec<f64>], unc: &ModelUncertainty) -> Reduced {
    let jn = plan.len();
    let d = unc.dim();
    let x = DMatrix::from_fn(jn, d, |j, i| plan[j][i]);
    let m = &x * unc.mean_vector();
    let s = &x * unc.cov_matrix() * x.transpose();
    let s = (&s + s.transpose()) * 0.5;
    let e = s.symmetric_eigen();
    let lmax = e.eigenvalues.iter().fold(0.0f64, |a, &b| a.max(b));
    let keep: Vec<usize> = (0..jn)
        .filter(|&k| lmax > 0.0 && e.eigenvalues[k] > 1e-12 * lmax)
        .collect();
    if keep.is_empty() {
        return Reduced::Deterministic(if m.iter().all(|&v| v > 0.0) { 1.0 } else { 0.0 });
    }
    Reduced::Program {
        lambda: keep.iter().map(|&k| e.eigenvalues[k]).collect(),
        u: (0..jn)
            .map(|j| keep.iter().map(|&k| e.eigenvectors[(j, k)]).collect())
            .collect(),
        m: m.iter().copied().collect(),
    }
}

/// The reduced ρ = 0 program in the coordinates of `Y = Xθ̃` (see the module
/// docs), solved by the dense barrier solver of [`super::chebyshev`]; clarabel
/// if that solver reports a numerical failure.
fn lower_reduced(plan: &[Vec<f64>], unc: &ModelUncertainty) -> ValidityBound {
    lower_reduced_dense(plan, unc).unwrap_or_else(|| lower_reduced_clarabel(plan, unc))
}

fn deterministic(value: f64, jn: usize) -> ValidityBound {
    ValidityBound {
        value,
        status: SolveStatus::Trivial,
        trivial: None,
        lambdas: vec![0.0; jn],
        program: BoundProgram::Reduced,
        iterations: 0,
        gap: 0.0,
    }
}

/// Options whose margin exceeds this many standard deviations are left out of
/// the dense program (their violation probability is at most `1/(1 + z²)` ≤
/// 1e-12 under any law with these moments, by Cantelli's inequality, and that
/// amount is subtracted from the value so that it stays a certified lower
/// bound); keeping them would put entries of 1e6 next to entries of 1 in the
/// Newton system.
const FAR_Z: f64 = 1e6;

/// The reduced program by the dense solver; None on its numerical failure.
pub(crate) fn lower_reduced_dense(
    plan: &[Vec<f64>],
    unc: &ModelUncertainty,
) -> Option<ValidityBound> {
    let jn = plan.len();
    let (lambda, u, m) = match reduce(plan, unc) {
        Reduced::Deterministic(v) => return Some(deterministic(v, jn)),
        Reduced::Program { lambda, u, m } => (lambda, u, m),
    };
    // whiten (ξ = Λ^{-1/2}η) and scale each event to ‖a_j‖ = 1: b_j is the z-score
    let mut lambdas = vec![0.0; jn];
    let (mut a, mut b, mut in_prog) = (Vec::new(), Vec::new(), Vec::new());
    for j in 0..jn {
        let aj: Vec<f64> = u[j]
            .iter()
            .zip(&lambda)
            .map(|(v, l)| v * l.sqrt())
            .collect();
        let sd = aj.iter().map(|v| v * v).sum::<f64>().sqrt();
        let z = m[j] / sd;
        if z > FAR_Z {
            lambdas[j] = 1.0 / (1.0 + z * z);
        } else if z < -FAR_Z || !z.is_finite() {
            // deterministically (or all but surely) violated: L* = 0 exactly
            let mut out = deterministic(0.0, jn);
            out.lambdas[j] = 1.0;
            out.status = SolveStatus::Optimal;
            return Some(out);
        } else {
            a.push(aj.iter().map(|v| v / sd).collect::<Vec<f64>>());
            b.push(z);
            in_prog.push(j);
        }
    }
    let far: f64 = lambdas.iter().sum();
    if a.is_empty() {
        let mut out = deterministic((1.0 - far).clamp(0.0, 1.0), jn);
        out.lambdas = lambdas;
        out.status = SolveStatus::Optimal;
        return Some(out);
    }
    let sol = super::chebyshev::solve(&a, &b)?;
    for (k, &j) in in_prog.iter().enumerate() {
        lambdas[j] = sol.lambdas[k];
    }
    Some(ValidityBound {
        value: (1.0 - sol.objective - far).clamp(0.0, 1.0),
        status: SolveStatus::Optimal,
        trivial: None,
        lambdas,
        program: BoundProgram::Reduced,
        iterations: sol.newton_steps,
        gap: sol.gap,
    })
}

/// The reduced program by clarabel (the fallback, and the oracle of the tests).
pub(crate) fn lower_reduced_clarabel(plan: &[Vec<f64>], unc: &ModelUncertainty) -> ValidityBound {
    let jn = plan.len();
    let (lambda, u, m) = match reduce(plan, unc) {
        Reduced::Deterministic(v) => return deterministic(v, jn),
        Reduced::Program { lambda, u, m } => (lambda, u, m),
    };
    let r = lambda.len();
    let mean = DVector::zeros(r);
    let p = DMatrix::from_fn(r, r, |a, b| if a == b { lambda[a] } else { 0.0 });
    let a: Vec<DVector<f64>> = u
        .iter()
        .map(|row| DVector::from_column_slice(row))
        .collect();
    let mut out = chebyshev_lower(&mean, &p, &a, &m);
    out.program = BoundProgram::Reduced;
    out
}

/// The full Gelbrich-ball program of Theorem 2.2 (seed-formulas §3.3), written
/// as printed (primal form); kept to cross-check the dual form in tests.
#[cfg(test)]
pub(crate) fn lower_full_primal(
    plan: &[Vec<f64>],
    unc: &ModelUncertainty,
    rho: f64,
) -> ValidityBound {
    lower_full_primal_with_moments(plan, unc, rho).0
}

/// [`lower_full_primal`] with the worst-case moments it found: the primal's
/// mean μ and second moment M (row-major d × d), so tests can check that they
/// lie in the Gelbrich ball and attain L* (a law with mean μ and covariance
/// `M − μμᵀ`).
#[cfg(test)]
pub(crate) fn lower_full_primal_with_moments(
    plan: &[Vec<f64>],
    unc: &ModelUncertainty,
    rho: f64,
) -> (ValidityBound, Vec<f64>, Vec<f64>) {
    let d = unc.dim();
    let sh = unc.cov_matrix();
    let mh = &unc.mean;
    let mut prog = Program::new();
    let mu = prog.vars(d);
    let sigma = prog.sym(d);
    let mm = prog.sym(d);
    let c = prog.vars(d * d); // C[i][k] at c + i*d + k
    let ws: Vec<SymVar> = plan.iter().map(|_| prog.sym(d + 1)).collect();
    // ‖μ̂‖² − 2μ̂ᵀμ + Tr[M + Σ̂ − 2C] ≤ ρ²
    let mut e = Aff::constant(rho * rho - mh.iter().map(|v| v * v).sum::<f64>() - sh.trace());
    for i in 0..d {
        e = e
            .term(mu + i, 2.0 * mh[i])
            .term(mm.at(i, i), -1.0)
            .term(c + i * d + i, 2.0);
    }
    prog.nonneg(vec![e]);
    // [[Σ, C],[Cᵀ, Σ̂]] ⪰ 0
    prog.psd(2 * d, |i, k| {
        if k < d {
            Aff::var(sigma.at(i, k))
        } else if i < d {
            Aff::var(c + i * d + (k - d))
        } else {
            Aff::constant(sh[(i - d, k - d)])
        }
    });
    // [[M − Σ, μ],[μᵀ, 1]] ⪰ 0
    prog.psd(d + 1, |i, k| {
        if k < d {
            Aff::var(mm.at(i, k)).term(sigma.at(i, k), -1.0)
        } else if i < d {
            Aff::var(mu + i)
        } else {
            Aff::constant(1.0)
        }
    });
    for (j, w) in ws.iter().enumerate() {
        prog.psd(d + 1, |i, k| Aff::var(w.at(i, k)));
        let mut e = Aff::default();
        for i in 0..d {
            e = e.term(w.at(i, d), -plan[j][i]);
        }
        prog.nonneg(vec![e]);
        prog.objective(w.at(d, d), -1.0);
    }
    // Σ_j W_j ⪯ [[M, μ],[μᵀ, 1]]
    prog.psd(d + 1, |i, k| {
        let mut e = if k < d {
            Aff::var(mm.at(i, k))
        } else if i < d {
            Aff::var(mu + i)
        } else {
            Aff::constant(1.0)
        };
        for w in &ws {
            e = e.term(w.at(i, k), -1.0);
        }
        e
    });
    let sol = prog.solve();
    let mean = (0..d).map(|i| sol.x[mu + i]).collect();
    let second = (0..d * d).map(|i| sol.x[mm.at(i / d, i % d)]).collect();
    (primal_lower(&sol, &ws, d), mean, second)
}

/// The dual of the generalized Chebyshev program, solved with clarabel (the
/// reduced ρ = 0 path uses the dense solver of [`super::chebyshev`] on the same
/// program and this one as its fallback and test oracle): with
/// `Ω = [[p, m],[mᵀ, 1]]`, `E = e_{r+1}e_{r+1}ᵀ`, `A_j = [[0, a_j/2],[a_jᵀ/2, b_j]]`,
///
/// `1 − L* = min Tr(ΩY) s.t. Y ⪰ 0, Y + τ_jA_j − E ⪰ 0, τ_j ≥ 0`
///
/// (Lagrangian duality of the primal in [`chebyshev_lower_primal`]: the
/// supremum over `W_j ⪰ 0` of `⟨W_j, E − τ_jA_j − Y⟩` is finite iff
/// `Y + τ_jA_j − E ⪰ 0`; read as a certificate, `f(η) = [η;1]ᵀY[η;1]` is ≥ 0
/// everywhere and ≥ 1 on each violation set, so `E f ≥ P(violation)`). Both
/// programs are strictly feasible, so the values agree. The primal's `W_j` are
/// the duals of the J constraints `Y + τ_jA_j − E ⪰ 0`, so λ_j is read from the
/// solver's dual vector. Why the dual: its variables are one (r+1)-matrix shared
/// by every cone, so the interior-point KKT system stays of size ≈ (r+1)²/2,
/// while the primal's J coupled matrices make it J times larger and dense
/// (measured 30–100× slower with clarabel's direct solver at d = 20, J = 5).
fn chebyshev_lower(
    m: &DVector<f64>,
    p: &DMatrix<f64>,
    a: &[DVector<f64>],
    b: &[f64],
) -> ValidityBound {
    let r = m.len();
    let omega = |i: usize, k: usize| {
        let (i, k) = (i.min(k), i.max(k));
        if k < r {
            p[(i, k)]
        } else if i < r {
            m[i]
        } else {
            1.0
        }
    };
    let mut prog = Program::new();
    let y = prog.sym(r + 1);
    let tau = prog.vars(a.len());
    for i in 0..=r {
        for k in 0..=r {
            prog.objective(y.at(i, k), omega(i, k));
        }
    }
    prog.nonneg((0..a.len()).map(|j| Aff::var(tau + j)).collect());
    prog.psd(r + 1, |i, k| Aff::var(y.at(i, k)));
    let firsts: Vec<usize> = (0..a.len())
        .map(|j| {
            prog.psd(r + 1, |i, k| {
                let e = Aff::var(y.at(i, k));
                if k < r {
                    e
                } else if i < r {
                    e.term(tau + j, 0.5 * a[j][i])
                } else {
                    e.term(tau + j, b[j]).plus(-1.0)
                }
            })
        })
        .collect();
    certified_lower(&prog.solve(), &firsts, r)
}

/// The dual of Theorem 2.2's program, which is what cfx solves for ρ > 0:
///
/// `1 − L* = min γ(ρ² − ‖μ̂‖² − Tr Σ̂) + Tr(ΦΣ̂) + ψ₀ + s` over
/// `γ ≥ 0, τ_j ≥ 0, P ∈ S^d, q ∈ ℝ^d, s, ψ₀ ∈ ℝ, Φ ∈ S^d` with
/// `[[γI − P, −γI],[−γI, Φ]] ⪰ 0`, `[[γI − P, −γμ̂ − q],[·, ψ₀]] ⪰ 0`,
/// `Y = [[P, q],[qᵀ, s]] ⪰ 0`, `[[P, q + τ_j x_j/2],[·, s − 1]] ⪰ 0 ∀j`.
///
/// Derivation (Lagrangian of the primal in seed-formulas §3.3 with multipliers
/// γ for the Gelbrich inequality, `[[Ψ₁₁, ·],[·, Φ]]` for `[[Σ, C],[Cᵀ, Σ̂]] ⪰ 0`,
/// `[[Ψ, ψ],[ψᵀ, ψ₀]]` for `[[M − Σ, μ],[μᵀ, 1]] ⪰ 0`, τ_j for `x_jᵀz_j ≤ 0`, Y for
/// the moment inequality): stationarity in Σ, M, C, μ gives `Ψ₁₁ = Ψ = γI − P`,
/// the off-diagonal block `−γI`, and `ψ = −γμ̂ − q`; stationarity in `W_j ⪰ 0`
/// gives the last constraints. It is the Theorem 2.3 program with one S-lemma
/// multiplier per violation set. λ_j are the duals of the last J constraints.
fn lower_full(plan: &[Vec<f64>], unc: &ModelUncertainty, rho: f64) -> ValidityBound {
    let d = unc.dim();
    let sh = unc.cov_matrix();
    let mh = &unc.mean;
    let mut prog = Program::new();
    let pp = prog.sym(d);
    let q = prog.vars(d);
    let s = prog.vars(1);
    let gamma = prog.vars(1);
    let psi0 = prog.vars(1);
    let phi = prog.sym(d);
    let tau = prog.vars(plan.len());
    prog.objective(
        gamma,
        rho * rho - mh.iter().map(|v| v * v).sum::<f64>() - sh.trace(),
    );
    for i in 0..d {
        for k in 0..d {
            prog.objective(phi.at(i, k), sh[(i, k)]);
        }
    }
    prog.objective(psi0, 1.0);
    prog.objective(s, 1.0);
    let mut nn = vec![Aff::var(gamma)];
    nn.extend((0..plan.len()).map(|j| Aff::var(tau + j)));
    prog.nonneg(nn);
    let g_minus_p = |i: usize, k: usize| {
        let e = Aff::default().term(pp.at(i, k), -1.0);
        if i == k { e.term(gamma, 1.0) } else { e }
    };
    prog.psd(2 * d, |i, k| {
        if k < d {
            g_minus_p(i, k)
        } else if i < d {
            if i == k - d {
                Aff::default().term(gamma, -1.0)
            } else {
                Aff::default()
            }
        } else {
            Aff::var(phi.at(i - d, k - d))
        }
    });
    prog.psd(d + 1, |i, k| {
        if k < d {
            g_minus_p(i, k)
        } else if i < d {
            Aff::default().term(gamma, -mh[i]).term(q + i, -1.0)
        } else {
            Aff::var(psi0)
        }
    });
    let y_entry = |i: usize, k: usize| {
        if k < d {
            Aff::var(pp.at(i, k))
        } else if i < d {
            Aff::var(q + i)
        } else {
            Aff::var(s)
        }
    };
    prog.psd(d + 1, y_entry);
    let firsts: Vec<usize> = plan
        .iter()
        .enumerate()
        .map(|(j, x)| {
            prog.psd(d + 1, |i, k| {
                let e = y_entry(i, k);
                if k < d {
                    e
                } else if i < d {
                    e.term(tau + j, 0.5 * x[i])
                } else {
                    e.plus(-1.0)
                }
            })
        })
        .collect();
    certified_lower(&prog.solve(), &firsts, d)
}

/// The upper bound U* (Bui, Nguyen & Nguyen 2022, Theorem 2.3; seed-formulas §3.4). At ρ = 0 the
/// moment-matching form `min E[f(θ̃)] = Tr(Z(Σ̂ + μ̂μ̂ᵀ)) + 2zᵀμ̂ + z₀` over the same
/// quadratic certificates `f(θ) = θᵀZθ + 2zᵀθ + z₀` (f ≥ 0 everywhere, f ≥ 1 on Θ
/// via the S-lemma multipliers λ_j) is used; it is the γ → ∞ limit of the
/// Gelbrich program, whose ρ = 0 ball is a single moment pair. Returns `U* = 1`
/// without solving when μ̂ ∈ Θ° (Proposition 2.4) unless `opts.solve_trivial`.
pub fn upper_validity_bound_with(
    plan: &[Vec<f64>],
    unc: &ModelUncertainty,
    rho: f64,
    opts: BoundOptions,
) -> Result<ValidityBound> {
    check_inputs(plan, unc, rho)?;
    if !opts.solve_trivial && mean_margin(plan, unc) > 0.0 {
        return Ok(trivial(1.0, TrivialCase::MeanInside, plan.len()));
    }
    if opts.program != BoundProgram::Full
        && let Some((pu, pplan)) = project_onto_options(plan, unc)
    {
        let mut b = upper_program(&pplan, &pu, rho);
        b.program = BoundProgram::Reduced;
        return Ok(b);
    }
    Ok(upper_program(plan, unc, rho))
}

/// Theorem 2.3's program (seed-formulas §3.4) on the data given.
fn upper_program(plan: &[Vec<f64>], unc: &ModelUncertainty, rho: f64) -> ValidityBound {
    let d = unc.dim();
    let jn = plan.len();
    let sh = unc.cov_matrix();
    let mh = &unc.mean;
    let mut prog = Program::new();
    let z0 = prog.vars(1);
    let z = prog.vars(d);
    let zz = prog.sym(d);
    let lam = prog.vars(jn);
    prog.nonneg((0..jn).map(|j| Aff::var(lam + j)).collect());
    // [[Z, z],[zᵀ, z₀]] ⪰ 0
    prog.psd(d + 1, |i, k| {
        if k < d {
            Aff::var(zz.at(i, k))
        } else if i < d {
            Aff::var(z + i)
        } else {
            Aff::var(z0)
        }
    });
    // [[Z, z − Σλ_j x_j/2],[·, z₀ − 1]] ⪰ 0
    prog.psd(d + 1, |i, k| {
        if k < d {
            Aff::var(zz.at(i, k))
        } else if i < d {
            let mut e = Aff::var(z + i);
            for (j, x) in plan.iter().enumerate() {
                e = e.term(lam + j, -0.5 * x[i]);
            }
            e
        } else {
            Aff::var(z0).plus(-1.0)
        }
    });
    prog.objective(z0, 1.0);
    if rho == 0.0 {
        let p = &sh + unc.mean_vector() * unc.mean_vector().transpose();
        for i in 0..d {
            prog.objective(z + i, 2.0 * mh[i]);
            for k in 0..d {
                // Tr(Z P) = Σ_ik Z_ik P_ik, each off-diagonal variable appears twice.
                prog.objective(zz.at(i, k), p[(i, k)]);
            }
        }
    } else {
        let r = psd_sqrt(&sh);
        let gamma = prog.vars(1);
        let q = prog.vars(1);
        let qq = prog.sym(d);
        prog.nonneg(vec![Aff::var(gamma), Aff::var(q)]);
        prog.objective(
            gamma,
            rho * rho - mh.iter().map(|v| v * v).sum::<f64>() - sh.trace(),
        );
        prog.objective(q, 1.0);
        for i in 0..d {
            prog.objective(qq.at(i, i), 1.0);
        }
        let g_minus_z = |i: usize, k: usize| {
            let e = Aff::default().term(zz.at(i, k), -1.0);
            if i == k { e.term(gamma, 1.0) } else { e }
        };
        // [[γI − Z, γΣ̂^{1/2}],[γΣ̂^{1/2}, Q]] ⪰ 0
        prog.psd(2 * d, |i, k| {
            if k < d {
                g_minus_z(i, k)
            } else if i < d {
                Aff::default().term(gamma, r[(i, k - d)])
            } else {
                Aff::var(qq.at(i - d, k - d))
            }
        });
        // [[γI − Z, γμ̂ + z],[·, q]] ⪰ 0
        prog.psd(d + 1, |i, k| {
            if k < d {
                g_minus_z(i, k)
            } else if i < d {
                Aff::var(z + i).term(gamma, mh[i])
            } else {
                Aff::var(q)
            }
        });
    }
    let sol = prog.solve();
    let value = if sol.status.is_usable() {
        sol.objective.clamp(0.0, 1.0)
    } else {
        f64::NAN
    };
    ValidityBound {
        value,
        status: sol.status,
        trivial: None,
        lambdas: (0..jn).map(|j| sol.x[lam + j]).collect(),
        program: BoundProgram::Full,
        iterations: sol.iterations,
        gap: sol.gap(),
    }
}
