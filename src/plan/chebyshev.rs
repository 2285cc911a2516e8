//! A small dense interior-point solver for the reduced ρ = 0 program of L*
//! (the generalized Chebyshev bound of Vandenberghe, Boyd and Comanor in the
//! coordinates of `Y = Xθ̃`, see [`super::bounds`]).
//!
//! # Why a dedicated solver
//!
//! The reduced program has about 26 scalar variables and six 6 × 6 PSD blocks at
//! J = 5. clarabel solves it in ~10 iterations, but each iteration pays for a
//! sparse LDLᵀ of its homogeneous embedding (symbolic set-up, permutation,
//! refinement) and a LAPACK eigen/SVD per block: 4–6 ms per call on an idle
//! machine, of which the arithmetic proper is a few µs. Here the barrier
//! Newton system is a dense 26 × 26 matrix and each block needs one 6 × 6
//! Cholesky; a call takes 60–80 Newton steps, 1.8 ms at d = 20, J = 5 measured
//! on a loaded 2-core machine (BENCHMARKS.md). clarabel stays the
//! oracle in the tests and the fallback if this solver reports a failure.
//!
//! # The program
//!
//! After the whitening `ξ = Λ^{-1/2}η` (η has mean 0 and covariance Λ, so ξ has
//! mean 0 and covariance I) and scaling each option's affine event
//! `a_jᵀξ + b_j > 0` so that `‖a_j‖ = 1` (which does not change the event), the
//! moment matrix is `Ω = I` and the dual program of
//! [`super::bounds`]'s `chebyshev_lower` reads
//!
//! `1 − L* = min tr(Y) s.t. Y ⪰ 0, F_j = Y + τ_jA_j − E ⪰ 0, τ_j ≥ 0`,
//!
//! with `A_j = [[0, a_j/2],[a_jᵀ/2, b_j]]` and `E = e_{r+1}e_{r+1}ᵀ`. `b_j` is the
//! option's margin in standard deviations (`m_j / sd(x_jᵀθ̃)`).
//!
//! # The method (Boyd & Vandenberghe, *Convex Optimization*, §11.3)
//!
//! The barrier method: for t = t₀, μt₀, μ²t₀, … minimise
//! `t·tr(Y) − log det Y − Σ_j log det F_j − Σ_j log τ_j` by Newton's method with
//! a feasibility-preserving backtracking line search, from the strictly
//! feasible start `Y = 2I`, small `τ_j > 0`. The barrier parameter is
//! `ν = (r+1)(J+1) + J`; at a centred point the duality gap is `ν/t`
//! (§11.2.2), and the loop stops when `ν/t ≤ GAP`. Every iterate is strictly
//! feasible, so `1 − tr(Y)` is a certified lower bound on L* (any feasible Y
//! certifies `E f(ξ) ≥ P(violation)` for `f(ξ) = [ξ;1]ᵀY[ξ;1]`), at most `ν/t`
//! below the exact value. The dual matrices at the centred point are
//! `W_j = F_j⁻¹ / t` (the primal `W_j` of the Chebyshev program), and
//! `λ_j = (W_j)_{r+1,r+1}` is the worst-case probability of violating option j.

use nalgebra::{DMatrix, DVector};

/// Stop when the barrier's duality-gap bound ν/t is at most this.
pub(crate) const GAP: f64 = 1e-8;
/// Barrier parameter growth factor μ.
const MU: f64 = 50.0;
/// Newton's method stops centring when λ²/2 ≤ this (λ the Newton decrement).
const CENTRED: f64 = 1e-10;
const MAX_NEWTON: u32 = 400;

/// The outcome of [`solve`].
#[derive(Debug, Clone)]
pub(crate) struct DenseSolution {
    /// `tr(Y)` at the last (strictly feasible) iterate: an upper bound on 1 − L*.
    pub objective: f64,
    /// `λ_j = (F_j⁻¹)_{r+1,r+1} / t`.
    pub lambdas: Vec<f64>,
    /// The duality-gap bound ν/t.
    pub gap: f64,
    /// Newton steps taken in total.
    pub newton_steps: u32,
}

/// Index of `Y_{ab}` (a ≤ b) in the variable vector.
fn idx(a: usize, b: usize) -> usize {
    let (a, b) = if a <= b { (a, b) } else { (b, a) };
    b * (b + 1) / 2 + a
}

struct Problem<'a> {
    n: usize,
    nt: usize,
    a: &'a [Vec<f64>],
    b: &'a [f64],
}

impl Problem<'_> {
    fn y(&self, x: &[f64]) -> DMatrix<f64> {
        DMatrix::from_fn(self.n, self.n, |i, k| x[idx(i, k)])
    }

    /// `F_j(x) = Y + τ_jA_j − E`.
    fn f(&self, y: &DMatrix<f64>, j: usize, tau: f64) -> DMatrix<f64> {
        let r = self.n - 1;
        let mut f = y.clone();
        for i in 0..r {
            let v = 0.5 * tau * self.a[j][i];
            f[(i, r)] += v;
            f[(r, i)] += v;
        }
        f[(r, r)] += tau * self.b[j] - 1.0;
        f
    }

    /// The blocks' Cholesky factors, or None if x is not strictly feasible.
    fn blocks(&self, x: &[f64]) -> Option<Vec<nalgebra::Cholesky<f64, nalgebra::Dyn>>> {
        let jn = self.a.len();
        if !x[self.nt..].iter().all(|&t| t > 0.0) {
            return None;
        }
        let y = self.y(x);
        let mut out = Vec::with_capacity(jn + 1);
        out.push(y.clone().cholesky()?);
        for j in 0..jn {
            out.push(self.f(&y, j, x[self.nt + j]).cholesky()?);
        }
        Some(out)
    }

    /// The barrier objective `t·tr(Y) − Σ log det − Σ log τ`, or None if infeasible.
    fn value(&self, x: &[f64], t: f64) -> Option<f64> {
        let ch = self.blocks(x)?;
        let mut v = t * (0..self.n).map(|i| x[idx(i, i)]).sum::<f64>();
        for c in &ch {
            let l = c.l_dirty();
            for i in 0..self.n {
                v -= 2.0 * l[(i, i)].ln();
            }
        }
        v -= x[self.nt..].iter().map(|t| t.ln()).sum::<f64>();
        Some(v)
    }
}

/// Solves `min tr(Y)` as in the module docs for options `(a_j, b_j)` with
/// `‖a_j‖ = 1` in `ℝ^r`. Returns None on a numerical failure (a Newton system
/// that is not positive definite, a line search that finds no decrease, or
/// the step limit); the caller then uses clarabel.
pub(crate) fn solve(a: &[Vec<f64>], b: &[f64]) -> Option<DenseSolution> {
    let jn = a.len();
    let r = a.first()?.len();
    let n = r + 1;
    let nt = n * (n + 1) / 2;
    let nv = nt + jn;
    let pr = Problem { n, nt, a, b };
    let nu = (n * (jn + 1) + jn) as f64;

    // strictly feasible start: Y = 2I, τ_j‖A_j‖ ≤ ½ so that F_j ⪰ ½I.
    let mut x = vec![0.0; nv];
    for i in 0..n {
        x[idx(i, i)] = 2.0;
    }
    for j in 0..jn {
        let na: f64 = a[j].iter().map(|v| v * v).sum::<f64>().sqrt();
        x[nt + j] = 0.5 / (1.0 + b[j].abs() + 0.5 * na);
    }
    let mut t = 1.0;
    let mut steps = 0u32;
    let mut g = DVector::<f64>::zeros(nv);
    let mut h = DMatrix::<f64>::zeros(nv, nv);
    let mut last_dx = vec![0.0; nv];
    loop {
        // centring: Newton's method on the barrier at this t
        let mut last_decrement2 = f64::INFINITY;
        loop {
            if steps >= MAX_NEWTON {
                return None;
            }
            let ch = pr.blocks(&x)?;
            g.fill(0.0);
            h.fill(0.0);
            for i in 0..n {
                g[idx(i, i)] = t;
            }
            for (k, c) in ch.iter().enumerate() {
                let w = c.inverse();
                // y–y part: tr(W B_ab W B_cd) with B_ab = κ_ab(e_ae_bᵀ + e_be_aᵀ)
                for bb in 0..n {
                    for aa in 0..=bb {
                        let p = idx(aa, bb);
                        let kp = if aa == bb { 0.5 } else { 1.0 };
                        g[p] -= 2.0 * kp * w[(aa, bb)];
                        for dd in 0..n {
                            for cc in 0..=dd {
                                let q = idx(cc, dd);
                                if q > p {
                                    continue;
                                }
                                let kq = if cc == dd { 0.5 } else { 1.0 };
                                let v = 2.0
                                    * kp
                                    * kq
                                    * (w[(bb, cc)] * w[(aa, dd)] + w[(bb, dd)] * w[(aa, cc)]);
                                h[(p, q)] += v;
                            }
                        }
                    }
                }
                if k == 0 {
                    continue;
                }
                let j = k - 1;
                let tj = nt + j;
                // A_j as a matrix, M = W A_j W
                let mut am = DMatrix::<f64>::zeros(n, n);
                for i in 0..r {
                    am[(i, r)] = 0.5 * a[j][i];
                    am[(r, i)] = 0.5 * a[j][i];
                }
                am[(r, r)] = b[j];
                let wa = &w * &am;
                let m = &wa * &w;
                g[tj] -= wa.trace() + 1.0 / x[tj];
                for bb in 0..n {
                    for aa in 0..=bb {
                        let kp = if aa == bb { 0.5 } else { 1.0 };
                        h[(tj, idx(aa, bb))] += 2.0 * kp * m[(aa, bb)];
                    }
                }
                h[(tj, tj)] += (&m * &am).trace() + 1.0 / (x[tj] * x[tj]);
            }
            // mirror the lower triangle, then solve with a Jacobi-scaled Cholesky
            for p in 0..nv {
                for q in 0..p {
                    h[(q, p)] = h[(p, q)];
                }
            }
            let dsc: Vec<f64> = (0..nv)
                .map(|p| 1.0 / h[(p, p)].max(1e-300).sqrt())
                .collect();
            let hs = DMatrix::from_fn(nv, nv, |p, q| h[(p, q)] * dsc[p] * dsc[q]);
            let gs = DVector::from_fn(nv, |p, _| -g[p] * dsc[p]);
            let dx = hs.cholesky()?.solve(&gs);
            let dx: Vec<f64> = (0..nv).map(|p| dx[p] * dsc[p]).collect();
            let slope: f64 = (0..nv).map(|p| g[p] * dx[p]).sum();
            let decrement2 = -slope;
            if !decrement2.is_finite() {
                return None;
            }
            steps += 1;
            last_dx = dx;
            // centred, or stalled at the rounding floor (centred as well as f64 allows)
            if decrement2 / 2.0 <= CENTRED
                || (decrement2 < 1e-6 && decrement2 >= 0.5 * last_decrement2)
            {
                break;
            }
            let dx = &last_dx;
            // Inside the region of quadratic convergence (λ < ½) the full step
            // is feasible and decreases the barrier (self-concordance, §9.6.4);
            // there the Armijo test would only compare rounding noise of
            // t·tr(Y) ≈ 1e9, so the full step is taken whenever it is feasible.
            if decrement2 < 0.25 {
                let xn: Vec<f64> = x.iter().zip(dx.iter()).map(|(v, d)| v + d).collect();
                if pr.blocks(&xn).is_some() {
                    if xn == x {
                        // the step is below f64's resolution of x: centred as well as it can be
                        break;
                    }
                    x = xn;
                    last_decrement2 = decrement2;
                    continue;
                }
            }
            // backtracking line search (α = 0.01, β = 0.5), feasibility first
            let f0 = pr.value(&x, t)?;
            let mut s = 1.0;
            let mut accepted = false;
            for _ in 0..60 {
                let xn: Vec<f64> = x.iter().zip(dx.iter()).map(|(v, d)| v + s * d).collect();
                if let Some(f1) = pr.value(&xn, t)
                    && f1 <= f0 + 0.01 * s * slope
                {
                    x = xn;
                    accepted = true;
                    break;
                }
                s *= 0.5;
            }
            if !accepted {
                return None;
            }
            last_decrement2 = decrement2;
        }
        if nu / t <= GAP {
            break;
        }
        t *= MU;
    }
    // The dual matrices at the (approximately) centred point: W_j = F_j⁻¹/t
    // (§11.2.2), λ_j = (W_j)_{r+1,r+1}. At t ≈ 1e10 the blocks F_j are nearly
    // singular (that is complementary slackness), so the inverse and with it
    // λ_j carry a relative error of about 1e-6 (measured against clarabel's
    // duals); the value tr(Y) is not affected, being a primal quantity.
    let ch = pr.blocks(&x)?;
    let lambdas = (0..jn).map(|j| ch[j + 1].inverse()[(r, r)] / t).collect();
    Some(DenseSolution {
        objective: (0..n).map(|i| x[idx(i, i)]).sum(),
        lambdas,
        gap: nu / t,
        newton_steps: steps,
    })
}
