//! Robust counterfactual generators with Adam: Wachter (CARLA's form and λ
//! schedule, Guyomard et al. 2023 §2.6), PROBE (hinge on Γ̃_PROBE, §2.5) and CROCO
//! (Algorithm 1, §2.4), for any [`Model`] (linear and MLP).
//!
//! # How the schema is respected
//! - **Only numerical features move** — the value slot of each mutable
//!   contiguous feature whose factual value is in range (not in a special
//!   state). Categorical features, indicators and special states are never
//!   changed. This is what CROCO's experiments do ("only numerical features are
//!   changed", Guyomard et al. 2023 §2.4); CARLA re-imposes one-hot coherence on every
//!   iterate (`reconstruct_encoding_constraints`), which for features that are
//!   never moved is the identity, so coherence holds by construction.
//! - After every Adam step each moving slot is **clamped** to its actionable
//!   range (the schema's bounds, tightened to the factual value for
//!   increase-only / decrease-only features). CARLA's Wachter "clamp" is a
//!   no-op on a clone; we clamp for real, because a counterfactual outside the
//!   schema is not advice.
//! - The result is decoded with [`Schema::decode`]. Integer (and step-grid)
//!   features are **rounded**: to the nearest admissible value first; if that
//!   loses the acceptance the continuous point had, every rounded feature is
//!   instead rounded away from the factual value (a slightly larger move in
//!   the direction the optimiser chose). All reported figures (validity,
//!   distance, Γ̃, Θ̃, bound) are those of the rounded, decoded point.
//! - Timeouts of the reference codes (`t_max_min`) are replaced by a cap on λ
//!   rounds, so the same inputs and seed give the same bits on any machine.
//!
//! Distances are the plain L1 norm in the encoded space (min–max scaled
//! slots), as in CARLA's `‖x′ − x‖₁` and CROCO's `λ‖δ‖₁`.

use super::estimate::{
    Bound, Estimator, McRate, Sampling, Workspace, invalidation_bound, probe_parts,
};
use crate::error::{Error, Result};
use crate::model::{Model, sigmoid};
use crate::noise::normal_pdf;
use crate::noise::{NoiseKind, NoiseModel};
use crate::schema::{Change, Direction, FeatureKind, Schema};

/// Which generator produced a counterfactual.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Method {
    Wachter,
    Probe,
    Croco,
}

/// How each result is evaluated after the search.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Evaluation {
    /// Fresh Monte Carlo samples for Γ̃ and Θ̃ (CARLA's robustness metric uses 10,000).
    pub samples: usize,
    /// Hoeffding margin m of the reported bound; with 10,000 samples, m = 0.02
    /// gives confidence 1 − e⁻⁸ ≈ 0.99966.
    pub margin: f64,
}

impl Default for Evaluation {
    fn default() -> Self {
        Evaluation {
            samples: 10_000,
            margin: 0.02,
        }
    }
}

/// Wachter et al. as implemented in CARLA (Guyomard et al. 2023, §2.6): minimise
/// `−log f(x′) + λ‖x′ − x‖₁` (the mean BCE against `[0, 1]`), stopping as soon
/// as `f(x′) > t`; after each block of `n_iter` steps without success
/// `λ ← λ − lambda_step` (no floor, as in CARLA).
#[derive(Debug, Clone, PartialEq)]
pub struct WachterConfig {
    pub lr: f64,
    pub lambda: f64,
    pub lambda_step: f64,
    pub n_iter: usize,
    /// Replaces CARLA's 0.5-minute timeout.
    pub max_rounds: usize,
    pub evaluation: Evaluation,
    pub seed: u64,
}

impl Default for WachterConfig {
    fn default() -> Self {
        WachterConfig {
            lr: 0.01,
            lambda: 0.01,
            lambda_step: 0.05,
            n_iter: 1000,
            max_rounds: 10,
            evaluation: Evaluation::default(),
            seed: 0,
        }
    }
}

/// PROBE (Guyomard et al. 2023, §2.5): minimise
/// `hinge_weight·max(0, Γ̃_PROBE − target) + BCE(f(x′), y_target) + λ‖x′ − x‖₁`
/// with Adam (amsgrad); after each block of `n_iter` steps, success is
/// `f > t` and a Monte Carlo Γ̃ on `check_samples` draws below
/// `target + target_eps`; otherwise `λ ← λ − lambda_step`. Defaults are those
/// of the CARLA-style copy of the reference code (the authors' repository was
/// not available; seed-formulas §2.5), with the round cap replacing its timeout.
#[derive(Debug, Clone, PartialEq)]
pub struct ProbeConfig {
    pub lr: f64,
    pub lambda: f64,
    pub lambda_step: f64,
    pub n_iter: usize,
    pub max_rounds: usize,
    pub invalidation_target: f64,
    pub target_eps: f64,
    pub hinge_weight: f64,
    /// The probability target of the BCE term (`[0.45, 0.55]` in the reference ⇒ 0.55).
    pub y_target: f64,
    pub check_samples: usize,
    pub evaluation: Evaluation,
    pub seed: u64,
}

impl Default for ProbeConfig {
    fn default() -> Self {
        ProbeConfig {
            lr: 0.001,
            lambda: 0.01,
            lambda_step: 0.10,
            n_iter: 100,
            max_rounds: 30,
            invalidation_target: 0.35,
            target_eps: 0.001,
            hinge_weight: 3.0,
            y_target: 0.55,
            check_samples: 10_000,
            evaluation: Evaluation::default(),
            seed: 0,
        }
    }
}

/// CROCO, Algorithm 1 (Guyomard et al. 2023, §2.4):
/// `L(δ) = ((m + Θ̃(x+δ))/(1−t) − Γ̄_t)² + (1 − f(x+δ))² + λ‖δ‖₁`, K fresh
/// noise samples per step, Adam (amsgrad, not reset between rounds), `n_iter`
/// steps per round; success when `f > t` and the bound is below
/// `Γ̄_t + robustness_epsilon`; else `λ ← λ − 0.25`, stopping when `λ ≤ 0`.
/// (The reference loop's `while f ≤ t and bound > …` reads `and` where the
/// stated algorithm means "until both hold"; we implement the latter.)
#[derive(Debug, Clone, PartialEq)]
pub struct CrocoConfig {
    /// K (`n_samples`).
    pub k: usize,
    pub lr: f64,
    /// Hoeffding margin m.
    pub m: f64,
    pub lambda: f64,
    pub lambda_step: f64,
    pub n_iter: usize,
    /// Γ̄_t.
    pub robustness_target: f64,
    pub robustness_epsilon: f64,
    pub evaluation: Evaluation,
    pub seed: u64,
}

impl Default for CrocoConfig {
    fn default() -> Self {
        CrocoConfig {
            k: 500,
            lr: 0.01,
            m: 0.1,
            lambda: 1.0,
            lambda_step: 0.25,
            n_iter: 1000,
            robustness_target: 0.3,
            robustness_epsilon: 0.01,
            evaluation: Evaluation::default(),
            seed: 0,
        }
    }
}

/// A counterfactual and how far it can be trusted.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct RobustCounterfactual {
    pub method: Method,
    /// The counterfactual, encoded (rounded and coherent).
    pub encoded: Vec<f64>,
    /// The counterfactual as a raw row.
    pub raw: Vec<f64>,
    /// What changed, in the data's own words.
    pub changes: Vec<Change>,
    /// f(x̌).
    pub probability: f64,
    /// f(x̌) > t.
    pub valid: bool,
    /// ‖x̌ − x‖₁ in the encoded space.
    pub l1_distance: f64,
    /// Γ̃ on `evaluation.samples` fresh draws.
    pub invalidation: McRate,
    /// Θ̃ on the same draws.
    pub soft: McRate,
    /// `(m + Θ̃)/(1 − t)` with `m = evaluation.margin` and its confidence.
    pub bound: Bound,
    /// Γ̃_PROBE at x̌ (Gaussian noise only).
    pub probe_rate: Option<f64>,
    /// CROCO only: the algorithm's own bound (K = `k`, margin `m`) at x̌.
    pub search_bound: Option<Bound>,
    /// Adam steps taken.
    pub iterations: usize,
    /// λ rounds used.
    pub rounds: usize,
    pub final_lambda: f64,
    /// The method's target: validity (Wachter), Γ̃ below the target (PROBE),
    /// bound below Γ̄_t + ε (CROCO). When false, this is the best effort.
    pub target_met: bool,
    /// Plausibility flags of the changed values, empty until annotated with
    /// [`crate::plausibility::Plausibility`] ([`RobustCounterfactual::assess_plausibility`]).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub plausibility: Vec<crate::plausibility::PlausibilityFlag>,
}

/// Adam with amsgrad, PyTorch's update rule (the reference codes all use
/// `optim.Adam(…, amsgrad=True)`).
struct AmsGrad {
    lr: f64,
    t: i32,
    m: Vec<f64>,
    v: Vec<f64>,
    vmax: Vec<f64>,
}

impl AmsGrad {
    fn new(lr: f64, n: usize) -> AmsGrad {
        AmsGrad {
            lr,
            t: 0,
            m: vec![0.0; n],
            v: vec![0.0; n],
            vmax: vec![0.0; n],
        }
    }
    fn step(&mut self, y: &mut [f64], g: &[f64]) {
        const B1: f64 = 0.9;
        const B2: f64 = 0.999;
        const EPS: f64 = 1e-8;
        self.t = self.t.saturating_add(1);
        let bc1 = 1.0 - B1.powi(self.t);
        let bc2 = 1.0 - B2.powi(self.t);
        for i in 0..y.len() {
            self.m[i] = B1 * self.m[i] + (1.0 - B1) * g[i];
            self.v[i] = B2 * self.v[i] + (1.0 - B2) * g[i] * g[i];
            self.vmax[i] = self.vmax[i].max(self.v[i]);
            let denom = self.vmax[i].sqrt() / bc2.sqrt() + EPS;
            y[i] -= self.lr / bc1 * self.m[i] / denom;
        }
    }
}

/// The moving slots of one factual and their bounds.
struct Setup {
    x0: Vec<f64>,
    raw0: Vec<f64>,
    cols: Vec<usize>,
    feats: Vec<usize>,
    lo: Vec<f64>,
    hi: Vec<f64>,
}

impl Setup {
    fn new<M: Model + ?Sized>(
        schema: &Schema,
        model: &M,
        noise: &NoiseModel,
        raw: &[f64],
    ) -> Result<Setup> {
        crate::model::check_model_for_schema(model, schema, "the schema")?;
        crate::model::require_input_gradient(model, "a gradient counterfactual generator")?;
        noise.check_dim(schema.encoded_dim())?;
        let x0 = schema.encode(raw)?;
        let (mut cols, mut feats, mut lo, mut hi) = (vec![], vec![], vec![], vec![]);
        for (i, f) in schema.features.iter().enumerate() {
            let FeatureKind::Contiguous { lower, upper, .. } = &f.kind else {
                continue;
            };
            if !f.actionability.mutable || upper <= lower || f.state_of(raw[i])? != 0 {
                continue;
            }
            let c = schema
                .layout(i)
                .value
                .expect("contiguous features have a value slot");
            let (alo, ahi) = schema.move_range(i, raw[i]).expect("contiguous");
            let (mut l, mut h) = (schema.value_to_slot(i, alo), schema.value_to_slot(i, ahi));
            match f.actionability.direction {
                Direction::IncreaseOnly => l = l.max(x0[c]),
                Direction::DecreaseOnly => h = h.min(x0[c]),
                Direction::Any => {}
            }
            if h < l {
                continue;
            }
            cols.push(c);
            feats.push(i);
            lo.push(l);
            hi.push(h);
        }
        Ok(Setup {
            x0,
            raw0: raw.to_vec(),
            cols,
            feats,
            lo,
            hi,
        })
    }

    fn y0(&self) -> Vec<f64> {
        self.cols.iter().map(|&c| self.x0[c]).collect()
    }

    fn assemble(&self, y: &[f64], x: &mut [f64]) {
        x.copy_from_slice(&self.x0);
        for (&c, &v) in self.cols.iter().zip(y) {
            x[c] = v;
        }
    }

    fn clamp(&self, y: &mut [f64]) {
        for ((v, &l), &h) in y.iter_mut().zip(&self.lo).zip(&self.hi) {
            *v = v.clamp(l, h);
        }
    }

    /// Adds the subgradient of `λ‖y − y0‖₁` (0 at a kink, as autograd's `abs`).
    fn add_l1(&self, y: &[f64], lambda: f64, g: &mut [f64]) {
        for (j, (&v, &c)) in y.iter().zip(&self.cols).enumerate() {
            let d = v - self.x0[c];
            if d != 0.0 {
                g[j] += lambda * d.signum();
            }
        }
    }

    /// The encoded point with integer / grid features rounded (see module docs).
    fn rounded(&self, schema: &Schema, y: &[f64], away: bool) -> Vec<f64> {
        let mut x = self.x0.clone();
        for (j, (&c, &i)) in self.cols.iter().zip(&self.feats).enumerate() {
            let FeatureKind::Contiguous {
                lower,
                integer,
                step,
                ..
            } = &schema.features[i].kind
            else {
                continue;
            };
            let mut slot = y[j];
            if *integer || step.is_some() {
                let v = schema.slot_to_value(i, y[j]);
                let v0 = self.raw0[i];
                let snap = |v: f64, up: Option<bool>| -> f64 {
                    let (origin, unit) = match step {
                        Some(st) => (*lower, *st),
                        None => (0.0, 1.0),
                    };
                    let k = (v - origin) / unit;
                    let k = match up {
                        None => k.round(),
                        Some(true) => k.ceil(),
                        Some(false) => k.floor(),
                    };
                    let r = origin + k * unit;
                    if *integer { r.round() } else { r }
                };
                let first = if away { Some(v >= v0) } else { None };
                let lo_raw = schema.slot_to_value(i, self.lo[j]);
                let hi_raw = schema.slot_to_value(i, self.hi[j]);
                let inside = |r: f64| r >= lo_raw - 1e-9 && r <= hi_raw + 1e-9;
                let mut r = snap(v, first);
                if !inside(r) {
                    r = [snap(v, Some(false)), snap(v, Some(true))]
                        .into_iter()
                        .find(|&r| inside(r))
                        .unwrap_or(v0);
                }
                slot = schema.value_to_slot(i, r);
            }
            x[c] = slot.clamp(0.0, 1.0);
        }
        x
    }
}

fn check_positive(what: &str, v: f64) -> Result<()> {
    if v.is_finite() && v > 0.0 {
        Ok(())
    } else {
        Err(Error::InvalidArgument(format!(
            "{what} must be positive, got {v}"
        )))
    }
}

struct Search {
    y: Vec<f64>,
    iterations: usize,
    rounds: usize,
    lambda: f64,
}

#[allow(clippy::too_many_arguments)]
fn finish<M: Model + ?Sized>(
    method: Method,
    schema: &Schema,
    model: &M,
    noise: &NoiseModel,
    setup: &Setup,
    search: Search,
    evaluation: &Evaluation,
    seed: u64,
    target: impl Fn(&RobustCounterfactual, &mut Workspace) -> Result<(bool, Option<Bound>)>,
) -> Result<RobustCounterfactual> {
    let mut cont = setup.x0.clone();
    setup.assemble(&search.y, &mut cont);
    let mut x = setup.rounded(schema, &search.y, false);
    if model.accepts(&cont) && !model.accepts(&x) {
        let away = setup.rounded(schema, &search.y, true);
        if model.accepts(&away) {
            x = away;
        }
    }
    let raw = schema.decode(&x)?;
    let mut ws = Workspace::new(model, seed ^ 0x5eed_e7a1_0000_0001);
    let est = Estimator::new(noise.clone(), evaluation.samples)?.with_sampling(Sampling::Generic);
    let e = est.estimate(model, &x, &mut ws)?;
    let bound = invalidation_bound(
        e.soft.value,
        evaluation.margin,
        model.threshold(),
        evaluation.samples,
    )?;
    let probe_rate = if noise.kind() == NoiseKind::Gaussian {
        Some(probe_parts(model, &x, noise, &mut ws)?.0)
    } else {
        None
    };
    let probability = model.probability(&x);
    let mut out = RobustCounterfactual {
        method,
        changes: schema.describe_changes(&setup.raw0, &raw),
        l1_distance: x.iter().zip(&setup.x0).map(|(a, b)| (a - b).abs()).sum(),
        encoded: x,
        raw,
        probability,
        valid: probability > model.threshold(),
        invalidation: e.invalidation,
        soft: e.soft,
        bound,
        probe_rate,
        search_bound: None,
        iterations: search.iterations,
        rounds: search.rounds,
        final_lambda: search.lambda,
        target_met: false,
        plausibility: Vec::new(),
    };
    let (met, sb) = target(&out, &mut ws)?;
    out.target_met = met;
    out.search_bound = sb;
    Ok(out)
}

/// Wachter et al. in CARLA's form (Guyomard et al. 2023, §2.6) for the raw factual row `raw`.
/// `noise` is used only to report robustness.
pub fn wachter<M: Model + ?Sized>(
    schema: &Schema,
    model: &M,
    noise: &NoiseModel,
    raw: &[f64],
    cfg: &WachterConfig,
) -> Result<RobustCounterfactual> {
    check_positive("lr", cfg.lr)?;
    let setup = Setup::new(schema, model, noise, raw)?;
    let t = model.threshold();
    let mut y = setup.y0();
    let mut adam = AmsGrad::new(cfg.lr, y.len());
    let mut x = setup.x0.clone();
    let mut grad = vec![0.0; x.len()];
    let mut scratch = vec![0.0; model.scratch_len()];
    let mut g = vec![0.0; y.len()];
    let (mut lambda, mut iterations, mut rounds) = (cfg.lambda, 0, 0);
    'outer: while rounds < cfg.max_rounds {
        rounds += 1;
        for it in 0..=cfg.n_iter {
            setup.assemble(&y, &mut x);
            let f = sigmoid(model.score_gradient_in(&x, &mut grad, &mut scratch));
            if f > t {
                break 'outer;
            }
            if it == cfg.n_iter {
                break;
            }
            // d(−log f)/dx = −(1 − f) ∇score
            for (gj, &c) in g.iter_mut().zip(&setup.cols) {
                *gj = -(1.0 - f) * grad[c];
            }
            setup.add_l1(&y, lambda, &mut g);
            adam.step(&mut y, &g);
            setup.clamp(&mut y);
            iterations += 1;
        }
        lambda -= cfg.lambda_step;
    }
    let search = Search {
        y,
        iterations,
        rounds,
        lambda,
    };
    finish(
        Method::Wachter,
        schema,
        model,
        noise,
        &setup,
        search,
        &cfg.evaluation,
        cfg.seed,
        |r, _| Ok((r.valid, None)),
    )
}

/// PROBE (Guyomard et al. 2023, §2.5) for the raw factual row `raw`; `noise` must be Gaussian.
pub fn probe<M: Model + ?Sized>(
    schema: &Schema,
    model: &M,
    noise: &NoiseModel,
    raw: &[f64],
    cfg: &ProbeConfig,
) -> Result<RobustCounterfactual> {
    check_positive("lr", cfg.lr)?;
    if noise.kind() != NoiseKind::Gaussian {
        return Err(Error::InvalidArgument("PROBE needs Gaussian noise".into()));
    }
    let setup = Setup::new(schema, model, noise, raw)?;
    let t = model.threshold();
    let check = Estimator::new(noise.clone(), cfg.check_samples.max(2))?;
    let mut ws = Workspace::new(model, cfg.seed);
    let mut y = setup.y0();
    let mut adam = AmsGrad::new(cfg.lr, y.len());
    let mut x = setup.x0.clone();
    let mut g = vec![0.0; y.len()];
    let (mut lambda, mut iterations, mut rounds) = (cfg.lambda, 0, 0);
    let target = cfg.invalidation_target;
    while rounds < cfg.max_rounds {
        rounds += 1;
        for _ in 0..cfg.n_iter {
            setup.assemble(&y, &mut x);
            let (gp, u, n, sc) = probe_parts(model, &x, noise, &mut ws)?;
            let f = sigmoid(sc);
            // BCE against [1 − y_t, y_t] on the two class probabilities: d/dscore = f − y_t.
            let mut coef = f - cfg.y_target;
            if gp > target && n > 0.0 {
                // hinge: d(1 − Φ(u))/dx = −φ(u) ∇score / N. For ReLU networks and
                // linear models the score is piecewise linear, so the term through
                // ∇N vanishes almost everywhere — what autograd computes in PROBE's
                // reference code; for smooth activations it is dropped (derived).
                coef += cfg.hinge_weight * (-normal_pdf(u) / n);
            }
            for (gj, &c) in g.iter_mut().zip(&setup.cols) {
                *gj = coef * ws.grad[c];
            }
            setup.add_l1(&y, lambda, &mut g);
            adam.step(&mut y, &g);
            setup.clamp(&mut y);
            iterations += 1;
        }
        setup.assemble(&y, &mut x);
        if model.probability(&x) > t {
            let r = check.invalidation_rate(model, &x, &mut ws)?;
            if r.value < target + cfg.target_eps {
                break;
            }
        }
        lambda -= cfg.lambda_step;
    }
    let search = Search {
        y,
        iterations,
        rounds,
        lambda,
    };
    finish(
        Method::Probe,
        schema,
        model,
        noise,
        &setup,
        search,
        &cfg.evaluation,
        cfg.seed,
        |r, _| {
            Ok((
                r.valid && r.invalidation.value < target + cfg.target_eps,
                None,
            ))
        },
    )
}

/// CROCO, Algorithm 1 (Guyomard et al. 2023, §2.4) for the raw factual row `raw`.
pub fn croco<M: Model + ?Sized>(
    schema: &Schema,
    model: &M,
    noise: &NoiseModel,
    raw: &[f64],
    cfg: &CrocoConfig,
) -> Result<RobustCounterfactual> {
    check_positive("lr", cfg.lr)?;
    check_positive("m", cfg.m)?;
    if !(cfg.robustness_target > 0.0 && cfg.robustness_target < 1.0) {
        return Err(Error::InvalidArgument(format!(
            "the robustness target must lie in (0, 1), got {}",
            cfg.robustness_target
        )));
    }
    let setup = Setup::new(schema, model, noise, raw)?;
    let t = model.threshold();
    let est = Estimator::new(noise.clone(), cfg.k)?;
    let mut ws = Workspace::new(model, cfg.seed);
    let mut y = setup.y0();
    let mut adam = AmsGrad::new(cfg.lr, y.len());
    let mut x = setup.x0.clone();
    let mut grad = vec![0.0; x.len()];
    let mut scratch = vec![0.0; model.scratch_len()];
    let mut g = vec![0.0; y.len()];
    let (mut lambda, mut iterations, mut rounds) = (cfg.lambda, 0, 0);
    let goal = cfg.robustness_target + cfg.robustness_epsilon;
    loop {
        rounds += 1;
        for _ in 0..cfg.n_iter {
            setup.assemble(&y, &mut x);
            let f = sigmoid(model.score_gradient_in(&x, &mut grad, &mut scratch));
            let theta = est.soft_rate_with_gradient(model, &x, &mut ws)?;
            let b = (cfg.m + theta) / (1.0 - t);
            // d/dx of (b − Γ̄)²  and of (1 − f)² (MSE against [0, 1] on two softmax outputs)
            let c_rob = 2.0 * (b - cfg.robustness_target) / (1.0 - t);
            let c_cls = -2.0 * (1.0 - f) * f * (1.0 - f);
            for (gj, &c) in g.iter_mut().zip(&setup.cols) {
                *gj = c_rob * ws.acc[c] + c_cls * grad[c];
            }
            setup.add_l1(&y, lambda, &mut g);
            adam.step(&mut y, &g);
            setup.clamp(&mut y);
            iterations += 1;
        }
        setup.assemble(&y, &mut x);
        if model.probability(&x) > t {
            let theta = est.soft_invalidation_rate(model, &x, &mut ws)?.value;
            if (cfg.m + theta) / (1.0 - t) < goal {
                break;
            }
        }
        lambda -= cfg.lambda_step;
        if lambda <= 0.0 {
            break;
        }
    }
    let search = Search {
        y,
        iterations,
        rounds,
        lambda,
    };
    let k = cfg.k;
    let m = cfg.m;
    finish(
        Method::Croco,
        schema,
        model,
        noise,
        &setup,
        search,
        &cfg.evaluation,
        cfg.seed,
        |r, ws| {
            // The algorithm's own criterion, re-checked on the rounded point with K fresh draws.
            let est = Estimator::new(noise.clone(), k)?;
            let theta = est.soft_invalidation_rate(model, &r.encoded, ws)?.value;
            let b = invalidation_bound(theta, m, t, k)?;
            Ok((r.valid && b.value < goal, Some(b)))
        },
    )
}

impl RobustCounterfactual {
    /// Fills the plausibility flags of the changed values (issue 16);
    /// `factual` is the applicant's raw row.
    pub fn assess_plausibility(
        &mut self,
        schema: &Schema,
        factual: &[f64],
        ranges: &crate::plausibility::Plausibility,
    ) -> Result<()> {
        self.plausibility = ranges.assess(schema, factual, &self.raw)?;
        Ok(())
    }

    /// The guarantee in words, for an applicant: the reported bound
    /// (Propositions 1–2 of Guyomard et al. 2023) with its confidence, and the measured rate.
    pub fn guarantee_in_words(&self, sigma2: f64) -> String {
        format!(
            "if this advice is followed only approximately (random slips of variance {sigma2} on each \
             changeable value, in the scaled units), it stays accepted in {:.1}% of {} simulated \
             attempts; with confidence {:.2}%, the chance of being turned down again is at most {:.1}%",
            100.0 * (1.0 - self.invalidation.value),
            self.invalidation.k,
            100.0 * self.bound.confidence,
            100.0 * self.bound.value.min(1.0)
        )
    }
}
