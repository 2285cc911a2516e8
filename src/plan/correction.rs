//! Correction of a given plan (Bui, Nguyen & Nguyen 2022, §3): first the Requirement projection
//! puts μ̂ inside Θ (so that L* can be positive, Proposition 2.4), then the
//! Mahalanobis improvement moves the options that bind L* most.

use super::bounds::{ValidityBound, lower_validity_bound};
use super::conic::{Aff, Program, SolveStatus};
use super::copa::{EncodedBox, project_feasible};
use super::uncertainty::ModelUncertainty;
use crate::error::{Error, Result, check_finite, check_len};
use serde::{Deserialize, Serialize};

fn dot(a: &[f64], b: &[f64]) -> f64 {
    a.iter().zip(b).map(|(p, q)| p * q).sum()
}

fn free_mask(d: usize, free: Option<&[bool]>) -> Result<Vec<bool>> {
    let mut m = match free {
        Some(f) => {
            check_len("free mask (with intercept)", d, f.len())?;
            f.to_vec()
        }
        None => vec![true; d],
    };
    m[0] = false; // the intercept feature stays 1
    Ok(m)
}

/// The Requirement projection (Bui, Nguyen & Nguyen 2022, §3.1; reference `_project`): the
/// Euclidean projection of `x` (intercept first) onto `{x' : μ̂ᵀx' ≥ ε}` within
/// the affine set where the intercept and the non-`free` coordinates are fixed:
/// `x'_F = x_F + max(0, ε − μ̂ᵀx) μ̂_F / ‖μ̂_F‖²` on the free coordinates F.
/// (The reference code frees every coordinate but the intercept; `free = None`
/// does the same.) When μ̂ vanishes on F no move helps and `x` is returned as is.
pub fn project_requirement(
    x: &[f64],
    mean: &[f64],
    epsilon: f64,
    free: Option<&[bool]>,
) -> Result<Vec<f64>> {
    check_len("option (with intercept)", mean.len(), x.len())?;
    check_finite("option", x)?;
    check_finite("epsilon", &[epsilon])?;
    let f = free_mask(x.len(), free)?;
    Ok(project_with_mask(x, mean, epsilon, &f))
}

pub(crate) fn project_with_mask(x: &[f64], mean: &[f64], epsilon: f64, f: &[bool]) -> Vec<f64> {
    let gap = epsilon - dot(mean, x);
    let n2: f64 = (0..x.len())
        .filter(|&i| f[i])
        .map(|i| mean[i] * mean[i])
        .sum();
    let mut out = x.to_vec();
    if gap > 0.0 && n2 > 0.0 {
        for i in 0..x.len() {
            if f[i] {
                out[i] += gap * mean[i] / n2;
            }
        }
    }
    out
}

/// `μ̂ᵀx / ‖Σ̂^{1/2}x‖`: the Mahalanobis distance from μ̂ to the hyperplane
/// `{θ : xᵀθ = 0}`, signed (Lemma 4.1's per-option validity radius).
pub fn mahalanobis_ratio(x: &[f64], unc: &ModelUncertainty) -> f64 {
    let d = unc.dim();
    let mut q = 0.0;
    for i in 0..d {
        for k in 0..d {
            q += x[i] * unc.cov[i * d + k] * x[k];
        }
    }
    dot(&unc.mean, x) / q.max(0.0).sqrt()
}

/// One Mahalanobis improvement step.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Improvement {
    /// The improved option (the input when the program failed or was infeasible).
    pub x: Vec<f64>,
    pub status: SolveStatus,
    pub ratio_before: f64,
    pub ratio_after: f64,
}

/// The Mahalanobis improvement of one option (Bui, Nguyen & Nguyen 2022, §3.2; seed-formulas §3.7):
/// `max μ̂ᵀx'/‖Σ̂^{1/2}x'‖ s.t. ‖x' − x‖₂ ≤ Δ, x'[0] = 1` (and the non-free
/// coordinates fixed), solved exactly as the convex program obtained by the
/// Charnes–Cooper substitution `z = t·x'`:
/// `min zᵀΣ̂z s.t. ‖z − t x‖₂ ≤ Δt, μ̂ᵀz = 1, z[0] = t, t ≥ 0`, so that the ratio
/// is `1/‖Σ̂^{1/2}z‖` at the optimum and `x' = z/t`.
pub fn mahalanobis_improve(
    x: &[f64],
    unc: &ModelUncertainty,
    delta: f64,
    free: Option<&[bool]>,
) -> Result<Improvement> {
    let d = unc.dim();
    check_len("option (with intercept)", d, x.len())?;
    check_finite("option", x)?;
    if !(delta.is_finite() && delta >= 0.0) {
        return Err(Error::InvalidArgument(format!(
            "Δ must be ≥ 0, got {delta}"
        )));
    }
    let f = free_mask(d, free)?;
    Ok(improve_with_mask(x, unc, delta, &f, None))
}

pub(crate) fn improve_with_mask(
    x: &[f64],
    unc: &ModelUncertainty,
    delta: f64,
    f: &[bool],
    bx: Option<&EncodedBox>,
) -> Improvement {
    let d = unc.dim();
    let before = mahalanobis_ratio(x, unc);
    let mut prog = Program::new();
    let z = prog.vars(d);
    let t = prog.vars(1);
    for i in 0..d {
        for k in i..d {
            let c = unc.cov[i * d + k];
            if c != 0.0 {
                prog.quadratic(z + i, z + k, 2.0 * c);
            }
        }
    }
    let mut eq = vec![];
    let mut e = Aff::constant(-1.0);
    for i in 0..d {
        e = e.term(z + i, unc.mean[i]);
    }
    eq.push(e);
    for i in 0..d {
        if !f[i] {
            eq.push(Aff::var(z + i).term(t, -x[i]));
        }
    }
    prog.zero(eq);
    prog.nonneg(vec![Aff::var(t)]);
    let mut cone = vec![Aff::default().term(t, delta)];
    for i in 0..d {
        if f[i] {
            cone.push(Aff::var(z + i).term(t, -x[i]));
        }
    }
    prog.soc(cone);
    if let Some(b) = bx {
        // lo ≤ z/t ≤ hi  ⇔  z − lo·t ≥ 0 and hi·t − z ≥ 0 (t > 0)
        let mut rows = Vec::new();
        for i in 1..d {
            if f[i] {
                rows.push(Aff::var(z + i).term(t, -b.lo[i - 1]));
                rows.push(Aff::default().term(t, b.hi[i - 1]).term(z + i, -1.0));
            }
        }
        prog.nonneg(rows);
    }
    let sol = prog.solve();
    let tv = sol.x.get(t).copied().unwrap_or(f64::NAN);
    if sol.status.is_usable() && tv > 0.0 && tv.is_finite() {
        let mut xn: Vec<f64> = (0..d).map(|i| sol.x[z + i] / tv).collect();
        xn[0] = 1.0;
        for i in 0..d {
            if !f[i] {
                xn[i] = x[i];
            }
        }
        let after = mahalanobis_ratio(&xn, unc);
        if after >= before || before.is_nan() {
            return Improvement {
                x: xn,
                status: sol.status,
                ratio_before: before,
                ratio_after: after,
            };
        }
    }
    Improvement {
        x: x.to_vec(),
        status: if sol.status.is_usable() {
            SolveStatus::NumericalFailure
        } else {
            sol.status
        },
        ratio_before: before,
        ratio_after: before,
    }
}

/// Settings of [`correct_plan`] (defaults: the reference experiments, seed-formulas §3.7).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct CorrectionConfig {
    /// ε of the Requirement projection (reference `epsilon_pgd` = 0.1).
    pub epsilon: f64,
    /// Number of options to improve; `None` = ⌊(J + 1)/2⌋ (3 for J = 5).
    pub k: Option<usize>,
    /// Perturbation limit Δ of each improvement (reference 0.1).
    pub delta: f64,
    /// Radius ρ of the Gelbrich ball for L* (reference 0.01).
    pub rho: f64,
}

impl Default for CorrectionConfig {
    fn default() -> Self {
        CorrectionConfig {
            epsilon: 0.1,
            k: None,
            delta: 0.1,
            rho: 0.01,
        }
    }
}

/// A corrected plan and L* along the way.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CorrectedPlan {
    /// The corrected options (intercept first).
    pub plan: Vec<Vec<f64>>,
    /// L* of the plan as given.
    pub lower_before: ValidityBound,
    /// L* after the Requirement projection.
    pub lower_projected: ValidityBound,
    /// L* after the Mahalanobis improvement.
    pub lower_after: ValidityBound,
    /// Indices of the improved options (largest λ_j of the projected plan's L*).
    pub improved: Vec<usize>,
    /// One improvement record per improved option.
    pub improvements: Vec<Improvement>,
}

/// Requirement projection of every option, then the Mahalanobis improvement of
/// the K options with the largest dual weights λ_j of L* (Bui, Nguyen & Nguyen 2022, §3).
/// `free` (length d, intercept first) marks the coordinates an applicant may
/// change; the intercept is never free.
pub fn correct_plan(
    plan: &[Vec<f64>],
    unc: &ModelUncertainty,
    cfg: CorrectionConfig,
    free: Option<&[bool]>,
) -> Result<CorrectedPlan> {
    let f = free_mask(unc.dim(), free)?;
    correct(plan, unc, cfg, &f, None)
}

/// [`correct_plan`] within an encoded box (no intercept; `lo = hi` holds a
/// coordinate), as [`super::copa_box`] gives for an applicant: the projection
/// alternates with the clamp to the box (as in the COPA generator), and the
/// Mahalanobis program gets the linear constraints `lo·t ≤ z ≤ hi·t`.
pub fn correct_plan_in_box(
    plan: &[Vec<f64>],
    unc: &ModelUncertainty,
    cfg: CorrectionConfig,
    bx: &EncodedBox,
) -> Result<CorrectedPlan> {
    let d = unc.dim();
    check_len("box lower", d - 1, bx.lo.len())?;
    check_len("box upper", d - 1, bx.hi.len())?;
    let mut f = vec![false; d];
    for i in 1..d {
        f[i] = bx.hi[i - 1] > bx.lo[i - 1];
    }
    correct(plan, unc, cfg, &f, Some(bx))
}

fn correct(
    plan: &[Vec<f64>],
    unc: &ModelUncertainty,
    cfg: CorrectionConfig,
    f: &[bool],
    bx: Option<&EncodedBox>,
) -> Result<CorrectedPlan> {
    check_finite("epsilon", &[cfg.epsilon])?;
    if !(cfg.delta.is_finite() && cfg.delta >= 0.0) {
        return Err(Error::InvalidArgument(format!(
            "Δ must be ≥ 0, got {}",
            cfg.delta
        )));
    }
    let before = lower_validity_bound(plan, unc, cfg.rho)?;
    let projected: Vec<Vec<f64>> = plan
        .iter()
        .map(|x| match bx {
            None => project_with_mask(x, &unc.mean, cfg.epsilon, f),
            Some(b) => {
                let mut y = x[1..].to_vec();
                project_feasible(&mut y, &unc.mean, cfg.epsilon, b, f);
                super::uncertainty::with_intercept(&y)
            }
        })
        .collect();
    let mid = lower_validity_bound(&projected, unc, cfg.rho)?;
    let k = cfg.k.unwrap_or(plan.len().div_ceil(2)).min(plan.len());
    let mut order: Vec<usize> = (0..plan.len()).collect();
    order.sort_by(|&a, &b| mid.lambdas[b].total_cmp(&mid.lambdas[a]).then(a.cmp(&b)));
    let chosen: Vec<usize> = order[..k].to_vec();
    let mut out = projected.clone();
    let mut imps = Vec::new();
    for &j in &chosen {
        let imp = improve_with_mask(&projected[j], unc, cfg.delta, f, bx);
        out[j] = imp.x.clone();
        imps.push(imp);
    }
    let after = lower_validity_bound(&out, unc, cfg.rho)?;
    Ok(CorrectedPlan {
        plan: out,
        lower_before: before,
        lower_projected: mid,
        lower_after: after,
        improved: chosen,
        improvements: imps,
    })
}
