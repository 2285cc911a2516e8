//! Construction: the COPA plan generator (Bui, Nguyen & Nguyen 2022, §4, problem (6); reference
//! `DroDicePGDAD`), for an applicant of a [`Schema`] or directly in an encoded box.

use super::bounds::{ValidityBound, lower_validity_bound, upper_validity_bound};
use super::correction::project_with_mask;
use super::uncertainty::{ModelUncertainty, with_intercept};
use crate::error::{Error, Result, check_finite, check_len};
use crate::schema::{Direction, FeatureKind, Schema};
use nalgebra::DMatrix;
use rand::SeedableRng;
use rand_distr::{Distribution, StandardNormal};
use rand_xoshiro::Xoshiro256PlusPlus;
use serde::{Deserialize, Serialize};

/// Settings of the COPA generator. Defaults: the reference code's `DroDicePGDAD`
/// with the German-credit weights (seed-formulas §3.8–3.9).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct CopaConfig {
    /// Number of options J (paper: 5).
    pub options: usize,
    /// λ₁, weight of the DPP diversity det K (German: 50).
    pub diversity_weight: f64,
    /// λ₂, weight of the validity proxy of Lemma 4.1 (German: 2).
    pub validity_weight: f64,
    /// ε of the feasible set X = {x : μ̂ᵀx ≥ ε} (reference `epsilon_pgd` 0.1).
    pub epsilon: f64,
    /// Adam step size (reference 0.005).
    pub learning_rate: f64,
    /// Iterations at most (reference 1000).
    pub max_iter: usize,
    /// Stop after `patience` consecutive iterations whose loss changed by at most `tol`
    /// (reference: 3 and 1e-7).
    pub tol: f64,
    pub patience: usize,
    /// Standard deviation of the Gaussian initialisation around the applicant (reference 1).
    pub init_noise: f64,
    /// Radius of the Gelbrich ball for the reported L*/U* (0: the exact fast path).
    pub rho: f64,
    pub seed: u64,
}

impl Default for CopaConfig {
    fn default() -> Self {
        CopaConfig {
            options: 5,
            diversity_weight: 50.0,
            validity_weight: 2.0,
            epsilon: 0.1,
            learning_rate: 0.005,
            max_iter: 1000,
            tol: 1e-7,
            patience: 3,
            init_noise: 1.0,
            rho: 0.0,
            seed: 0,
        }
    }
}

/// The diversity kernel's diagonal term (reference `compute_dpp`).
pub const DPP_DIAGONAL: f64 = 1e-4;

/// A COPA plan.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CopaPlan {
    /// The J options, encoded (no intercept).
    pub encoded: Vec<Vec<f64>>,
    /// The J options as raw rows (only set by [`copa_plan`], which has a schema).
    pub raw: Vec<Vec<f64>>,
    /// Per option, the plausibility flags of its changed values; empty until
    /// annotated ([`CopaPlan::assess_plausibility`]).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub plausibility: Vec<Vec<crate::plausibility::PlausibilityFlag>>,
    /// Proximity: mean ℓ2 distance to the applicant in the encoded space.
    pub proximity: f64,
    /// Diversity: det K, K_ij = 1/(1 + ‖x_i − x_j‖₂) + 1e-4·δ_ij.
    pub diversity: f64,
    /// Validity proxy of Lemma 4.1: min_j μ̂ᵀx̃_j / ‖Σ̂^{1/2}x̃_j‖ (x̃ = (1, x)).
    pub validity: f64,
    /// Whether every option satisfies μ̂ᵀx̃_j ≥ ε after the final rounding.
    pub requirement_met: bool,
    pub lower: ValidityBound,
    pub upper: ValidityBound,
    /// Adam iterations run.
    pub iterations: usize,
}

/// The options that are the same row, grouped: indices in order of first
/// occurrence (`[[0, 1, 2, 3, 4]]` when all five coincide). COPA's diversity
/// term (a DPP over the options) cannot separate options that its box binds
/// at the same corner — under a preset's change limits every option may end
/// at the same limits — and a person offered "five options" that are one row
/// is misled; callers that describe a plan list each distinct row once, with
/// the options it stands for.
pub fn coinciding_options(rows: &[Vec<f64>]) -> Vec<Vec<usize>> {
    let mut groups: Vec<Vec<usize>> = Vec::new();
    for (k, row) in rows.iter().enumerate() {
        match groups.iter_mut().find(|g| rows[g[0]] == *row) {
            Some(g) => g.push(k),
            None => groups.push(vec![k]),
        }
    }
    groups
}

/// "option 3" or "options 1, 2 and 4 (the same row)", 1-based.
pub fn options_label(group: &[usize]) -> String {
    match group {
        [k] => format!("option {}", k + 1),
        _ => {
            let names: Vec<String> = group.iter().map(|k| (k + 1).to_string()).collect();
            let (last, rest) = names.split_last().expect("a group is never empty");
            format!("options {} and {last} (the same row)", rest.join(", "))
        }
    }
}

impl CopaPlan {
    /// Fills each option's plausibility flags (issue 16); `factual` is the
    /// applicant's raw row. Needs the raw options ([`copa_plan`]'s).
    pub fn assess_plausibility(
        &mut self,
        schema: &Schema,
        factual: &[f64],
        ranges: &crate::plausibility::Plausibility,
    ) -> Result<()> {
        self.plausibility = self
            .raw
            .iter()
            .map(|o| ranges.assess(schema, factual, o))
            .collect::<Result<_>>()?;
        Ok(())
    }

    /// What the plan's bounds (computed at `rho` under `unc`, as
    /// [`copa_plan`] did with `cfg.rho`) say, and why when they say nothing.
    pub fn read_bounds(
        &self,
        unc: &ModelUncertainty,
        rho: f64,
    ) -> Result<super::reading::BoundsReading> {
        let plan: Vec<Vec<f64>> = self.encoded.iter().map(|x| with_intercept(x)).collect();
        super::reading::BoundsReading::new(&plan, unc, rho, &self.lower, &self.upper)
    }
}

/// Proximity, diversity and validity proxy of a plan (encoded options, no intercept).
pub fn plan_metrics(
    applicant: &[f64],
    options: &[Vec<f64>],
    unc: &ModelUncertainty,
) -> Result<(f64, f64, f64)> {
    if options.is_empty() {
        return Err(Error::InvalidArgument(
            "a plan needs at least one option".into(),
        ));
    }
    check_len("applicant (encoded)", unc.dim() - 1, applicant.len())?;
    for x in options {
        check_len("option (encoded)", applicant.len(), x.len())?;
        check_finite("option", x)?;
    }
    let o = Objective::new(applicant, unc, 0.0, 0.0);
    let (prox, div, val, _) = o.terms(options, false);
    Ok((prox, div, val))
}

struct Objective<'a> {
    x0: &'a [f64],
    mean: &'a [f64],
    cov: DMatrix<f64>,
    w_div: f64,
    w_val: f64,
}

fn dist(a: &[f64], b: &[f64]) -> f64 {
    a.iter()
        .zip(b)
        .map(|(p, q)| (p - q) * (p - q))
        .sum::<f64>()
        .sqrt()
}

impl<'a> Objective<'a> {
    fn new(x0: &'a [f64], unc: &'a ModelUncertainty, w_div: f64, w_val: f64) -> Self {
        Objective {
            x0,
            mean: &unc.mean,
            cov: unc.cov_matrix(),
            w_div,
            w_val,
        }
    }

    /// (proximity, det K, min_j r_j, gradient of the loss) for encoded options.
    /// Loss (6): proximity − λ₁ det K − λ₂ min_j r_j; the gradient is a
    /// subgradient (proximity at x_j = x₀, and the min at its first minimiser).
    fn terms(&self, xs: &[Vec<f64>], want_grad: bool) -> (f64, f64, f64, Vec<Vec<f64>>) {
        let jn = xs.len();
        let n = self.x0.len();
        let mut grad = if want_grad {
            vec![vec![0.0; n]; jn]
        } else {
            Vec::new()
        };
        // proximity
        let mut prox = 0.0;
        for (j, x) in xs.iter().enumerate() {
            let dj = dist(x, self.x0);
            prox += dj / jn as f64;
            if want_grad && dj > 0.0 {
                for i in 0..n {
                    grad[j][i] += (x[i] - self.x0[i]) / (dj * jn as f64);
                }
            }
        }
        // diversity
        let mut k = DMatrix::<f64>::zeros(jn, jn);
        let mut dd = DMatrix::<f64>::zeros(jn, jn);
        for a in 0..jn {
            for b in 0..jn {
                let dab = dist(&xs[a], &xs[b]);
                dd[(a, b)] = dab;
                k[(a, b)] = 1.0 / (1.0 + dab) + if a == b { DPP_DIAGONAL } else { 0.0 };
            }
        }
        let det = k.determinant();
        if want_grad && self.w_div != 0.0 {
            // ∂det/∂K = det·K⁻¹ (K symmetric); K_ab = K_ba both move with x_a.
            if let Some(inv) = k.clone().try_inverse() {
                for a in 0..jn {
                    for b in 0..jn {
                        let dab = dd[(a, b)];
                        if a == b || dab == 0.0 {
                            continue;
                        }
                        let coef =
                            2.0 * det * inv[(a, b)] * (-1.0 / ((1.0 + dab) * (1.0 + dab))) / dab;
                        for i in 0..n {
                            grad[a][i] -= self.w_div * coef * (xs[a][i] - xs[b][i]);
                        }
                    }
                }
            }
        }
        // validity proxy (Lemma 4.1)
        let mut best = f64::INFINITY;
        let mut arg = 0;
        let mut parts = Vec::with_capacity(jn);
        for (j, x) in xs.iter().enumerate() {
            let xt = nalgebra::DVector::from_vec(with_intercept(x));
            let sx = &self.cov * &xt;
            let s = xt.dot(&sx).max(0.0).sqrt();
            let m: f64 = xt.iter().zip(self.mean).map(|(p, q)| p * q).sum();
            let r = m / s;
            if r < best {
                best = r;
                arg = j;
            }
            parts.push((m, s, sx));
        }
        if want_grad && self.w_val != 0.0 {
            let (m, s, sx) = &parts[arg];
            if *s > 0.0 {
                for i in 0..n {
                    let g = self.mean[i + 1] / s - m * sx[i + 1] / (s * s * s);
                    grad[arg][i] -= self.w_val * g;
                }
            }
        }
        (prox, det, best, grad)
    }

    fn loss(&self, xs: &[Vec<f64>]) -> f64 {
        let (p, d, v, _) = self.terms(xs, false);
        p - self.w_div * d - self.w_val * v
    }
}

/// The feasible box of COPA's variables: `lo[i] ≤ x[i] ≤ hi[i]`, with `lo = hi`
/// for held coordinates.
#[derive(Debug, Clone, PartialEq)]
pub struct EncodedBox {
    pub lo: Vec<f64>,
    pub hi: Vec<f64>,
}

/// Projection onto X ∩ box by alternating the two projections (POCS, 50 rounds at
/// most): the Requirement projection of §3.6 on the free coordinates, then the
/// clamp to the box (the reference code projects then clamps once). Reaches a
/// point of the intersection when it is non-empty and the rounds suffice.
pub(crate) fn project_feasible(
    x: &mut [f64],
    mean: &[f64],
    eps: f64,
    bx: &EncodedBox,
    free: &[bool],
) {
    for _ in 0..50 {
        let xt = with_intercept(x);
        let p = project_with_mask(&xt, mean, eps, free);
        let mut moved = 0.0f64;
        for i in 0..x.len() {
            let v = p[i + 1].clamp(bx.lo[i], bx.hi[i]);
            moved = moved.max((v - x[i]).abs());
            x[i] = v;
        }
        let m: f64 = with_intercept(x).iter().zip(mean).map(|(a, b)| a * b).sum();
        if m >= eps - 1e-12 || moved < 1e-15 {
            break;
        }
    }
}

/// COPA in the encoded space: minimises problem (6) by projected Adam from
/// `x₀ + N(0, init_noise²)` on the free coordinates (Bui, Nguyen & Nguyen 2022, §4; reference
/// `DroDicePGDAD`: Adam step, Requirement projection, clamp to the box, gradient
/// zero on held coordinates). `applicant` is encoded (no intercept).
pub fn copa_plan_encoded(
    applicant: &[f64],
    unc: &ModelUncertainty,
    bx: &EncodedBox,
    cfg: CopaConfig,
) -> Result<CopaPlan> {
    let n = applicant.len();
    check_len("applicant (encoded) vs θ dimension − 1", unc.dim() - 1, n)?;
    check_len("box lower", n, bx.lo.len())?;
    check_len("box upper", n, bx.hi.len())?;
    check_finite("applicant", applicant)?;
    check_finite("box", &bx.lo)?;
    check_finite("box", &bx.hi)?;
    if bx.lo.iter().zip(&bx.hi).any(|(a, b)| a > b) {
        return Err(Error::InvalidArgument("box with lower > upper".into()));
    }
    if cfg.options == 0 {
        return Err(Error::InvalidArgument(
            "a plan needs at least one option".into(),
        ));
    }
    for (name, v) in [
        ("diversity_weight", cfg.diversity_weight),
        ("validity_weight", cfg.validity_weight),
        ("epsilon", cfg.epsilon),
        ("learning_rate", cfg.learning_rate),
        ("init_noise", cfg.init_noise),
        ("tol", cfg.tol),
    ] {
        if !v.is_finite() {
            return Err(Error::InvalidArgument(format!("{name} is not finite")));
        }
    }
    let mut free = vec![false; n + 1];
    for i in 0..n {
        free[i + 1] = bx.hi[i] > bx.lo[i];
    }
    let obj = Objective::new(applicant, unc, cfg.diversity_weight, cfg.validity_weight);
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(cfg.seed);
    let mut xs: Vec<Vec<f64>> = (0..cfg.options)
        .map(|_| {
            let mut x = applicant.to_vec();
            for i in 0..n {
                if free[i + 1] {
                    let e: f64 = StandardNormal.sample(&mut rng);
                    x[i] += cfg.init_noise * e;
                }
                x[i] = x[i].clamp(bx.lo[i], bx.hi[i]);
            }
            project_feasible(&mut x, &unc.mean, cfg.epsilon, bx, &free);
            x
        })
        .collect();
    let (b1, b2, ae) = (0.9, 0.999, 1e-8);
    let mut m1 = vec![vec![0.0; n]; cfg.options];
    let mut m2 = vec![vec![0.0; n]; cfg.options];
    let mut last = obj.loss(&xs);
    let mut calm = 0;
    let mut it = 0;
    while it < cfg.max_iter {
        it += 1;
        let (_, _, _, g) = obj.terms(&xs, true);
        let c1 = 1.0 - f64::powi(b1, it as i32);
        let c2 = 1.0 - f64::powi(b2, it as i32);
        for j in 0..cfg.options {
            for i in 0..n {
                if !free[i + 1] {
                    continue;
                }
                let gi = g[j][i];
                m1[j][i] = b1 * m1[j][i] + (1.0 - b1) * gi;
                m2[j][i] = b2 * m2[j][i] + (1.0 - b2) * gi * gi;
                xs[j][i] -= cfg.learning_rate * (m1[j][i] / c1) / ((m2[j][i] / c2).sqrt() + ae);
            }
            project_feasible(&mut xs[j], &unc.mean, cfg.epsilon, bx, &free);
        }
        let now = obj.loss(&xs);
        if (now - last).abs() <= cfg.tol {
            calm += 1;
            if calm >= cfg.patience {
                break;
            }
        } else {
            calm = 0;
        }
        last = now;
    }
    finish(applicant, unc, xs, Vec::new(), cfg, it)
}

fn finish(
    applicant: &[f64],
    unc: &ModelUncertainty,
    xs: Vec<Vec<f64>>,
    raw: Vec<Vec<f64>>,
    cfg: CopaConfig,
    iterations: usize,
) -> Result<CopaPlan> {
    let obj = Objective::new(applicant, unc, 0.0, 0.0);
    let (proximity, diversity, validity, _) = obj.terms(&xs, false);
    let plan: Vec<Vec<f64>> = xs.iter().map(|x| with_intercept(x)).collect();
    let requirement_met = super::bounds::mean_margin(&plan, unc) >= cfg.epsilon - 1e-9;
    let lower = lower_validity_bound(&plan, unc, cfg.rho)?;
    let upper = upper_validity_bound(&plan, unc, cfg.rho)?;
    Ok(CopaPlan {
        encoded: xs,
        raw,
        plausibility: Vec::new(),
        proximity,
        diversity,
        validity,
        requirement_met,
        lower,
        upper,
        iterations,
    })
}

/// The feature grid of a contiguous feature: (base, step) when values must be
/// whole numbers or on a step grid.
fn grid(schema: &Schema, i: usize) -> Option<(f64, f64)> {
    match &schema.features[i].kind {
        FeatureKind::Contiguous {
            lower,
            step,
            integer,
            ..
        } => match (step, integer) {
            (Some(s), _) => Some((*lower, *s)),
            (None, true) => Some((0.0, 1.0)),
            _ => None,
        },
        FeatureKind::Categorical { .. } => None,
    }
}

/// The encoded box COPA may move an applicant within, and whether each encoded
/// column may move. COPA moves encoded columns continuously, which would leave
/// one-hot groups fractional; to keep every option decodable into a real
/// applicant, **only the value slot of a mutable contiguous feature that is
/// currently in its value state** moves, within its actionable range and its
/// direction (increase-only: from the current value up). Indicator columns,
/// special states and immutable features are held.
pub fn copa_box(schema: &Schema, applicant_raw: &[f64]) -> Result<EncodedBox> {
    let x0 = schema.encode(applicant_raw)?;
    let mut lo = x0.clone();
    let mut hi = x0.clone();
    for (i, f) in schema.features.iter().enumerate() {
        let l = schema.layout(i);
        let (Some(v), true) = (l.value, f.actionability.mutable) else {
            continue;
        };
        if f.state_of(applicant_raw[i])? != 0 {
            continue;
        }
        let Some((a, b)) = schema.move_range(i, applicant_raw[i]) else {
            continue;
        };
        let (mut sa, mut sb) = (
            schema.value_to_slot(i, a).clamp(0.0, 1.0),
            schema.value_to_slot(i, b).clamp(0.0, 1.0),
        );
        match f.actionability.direction {
            Direction::IncreaseOnly => sa = sa.max(x0[v]),
            Direction::DecreaseOnly => sb = sb.min(x0[v]),
            Direction::Any => {}
        }
        // the applicant may sit outside the actionable range already: never force a move
        sa = sa.min(x0[v]);
        sb = sb.max(x0[v]);
        lo[v] = sa;
        hi[v] = sb;
    }
    Ok(EncodedBox { lo, hi })
}

/// A COPA plan for a raw applicant row (Bui, Nguyen & Nguyen 2022, §4): [`copa_box`] decides what
/// may move, [`copa_plan_encoded`] optimises, then each value of an integer or
/// stepped feature is snapped to its grid (towards the side that raises
/// `μ̂ᵀx̃`, i.e. up when its mean weight is positive, staying inside the box; the
/// applicant's own value when no grid point fits) so that every option decodes
/// into a raw row. The reported metrics, requirement check and L*/U* are those of
/// the snapped options.
pub fn copa_plan(
    schema: &Schema,
    unc: &ModelUncertainty,
    applicant_raw: &[f64],
    cfg: CopaConfig,
) -> Result<CopaPlan> {
    let x0 = schema.encode(applicant_raw)?;
    let bx = copa_box(schema, applicant_raw)?;
    let cont = copa_plan_encoded(&x0, unc, &bx, cfg)?;
    let (raw, xs) = decode_options(schema, unc, applicant_raw, &cont.encoded)?;
    finish(&x0, unc, xs, raw, cfg, cont.iterations)
}

/// Raw rows and their exact encodings.
pub type DecodedOptions = (Vec<Vec<f64>>, Vec<Vec<f64>>);

/// Snaps encoded options (no intercept; moved only within [`copa_box`]) onto the
/// grids of integer and stepped features — towards the side that raises `μ̂ᵀx̃`
/// (up when the feature's mean weight is positive), staying inside the box, the
/// applicant's own value when no grid point fits — and decodes them. Returns the
/// raw rows and their exact re-encodings.
pub fn decode_options(
    schema: &Schema,
    unc: &ModelUncertainty,
    applicant_raw: &[f64],
    options: &[Vec<f64>],
) -> Result<DecodedOptions> {
    check_len(
        "θ dimension − 1 vs encoded dimension",
        schema.encoded_dim(),
        unc.dim() - 1,
    )?;
    let x0 = schema.encode(applicant_raw)?;
    let bx = copa_box(schema, applicant_raw)?;
    let mut xs = options.to_vec();
    for x in xs.iter_mut() {
        check_len("option (encoded)", x0.len(), x.len())?;
        for i in 0..schema.n_features() {
            let Some(v) = schema.layout(i).value else {
                continue;
            };
            if bx.lo[v] == bx.hi[v] {
                continue;
            }
            if let Some((base, step)) = grid(schema, i) {
                let raw = schema.slot_to_value(i, x[v]);
                let k = (raw - base) / step;
                let up = unc.mean[v + 1] > 0.0;
                let cands = if up {
                    [k.ceil(), k.floor()]
                } else {
                    [k.floor(), k.ceil()]
                };
                let mut chosen = x0[v];
                for kk in cands {
                    let s = schema.value_to_slot(i, base + kk * step);
                    if s >= bx.lo[v] - 1e-12 && s <= bx.hi[v] + 1e-12 {
                        chosen = s.clamp(bx.lo[v], bx.hi[v]);
                        break;
                    }
                }
                x[v] = chosen;
            }
        }
    }
    let raw: Vec<Vec<f64>> = xs.iter().map(|x| schema.decode(x)).collect::<Result<_>>()?;
    let enc: Vec<Vec<f64>> = raw
        .iter()
        .map(|r| schema.encode(r))
        .collect::<Result<_>>()?;
    Ok((raw, enc))
}

#[cfg(test)]
pub(crate) fn loss_and_grad(
    applicant: &[f64],
    unc: &ModelUncertainty,
    w_div: f64,
    w_val: f64,
    xs: &[Vec<f64>],
) -> (f64, Vec<Vec<f64>>) {
    let o = Objective::new(applicant, unc, w_div, w_val);
    let (_, _, _, g) = o.terms(xs, true);
    (o.loss(xs), g)
}
