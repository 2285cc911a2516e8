//! Robustness of counterfactuals through the C ABI: noise models, Monte Carlo
//! estimators, workspaces and the three generators — CROCO (Guyomard et al.
//! 2023, "Generating robust counterfactual explanations"), PROBE (Pawelczyk et
//! al. 2023, "Probabilistically robust recourse") and Wachter et al. 2017
//! ("Counterfactual explanations without opening the black box").
//!
//! `cfx_noise` and `cfx_estimator` are immutable and `Arc`-backed (share them
//! across threads). `cfx_workspace` is mutable and `Box`-backed: one per
//! thread. The workspace-based entry points (`cfx_estimator_estimate`,
//! `cfx_estimator_bound`, `cfx_estimator_probe_rate`,
//! `cfx_estimator_exact_rate`) never allocate on success (tested with a
//! counting allocator in `tests/robust_no_alloc.rs`).

use super::advice::{advice_row, cfx_advice_status};
use super::config::{SolverConfig, cfx_config};
use super::export::{Provenance, model_fingerprint, result_json, schema_fingerprint};
use super::handle::{
    ArcHandle, BoxHandle, arc_clone, arc_free, arc_into_raw, arc_ref, box_free, box_into_raw,
    box_mut, count_in, enum_in, finite, finite_in, optional_out, out_param, slice_in,
    write_optional, write_slice, write_str,
};
use super::model::cfx_model;
use super::schema::cfx_schema;
use super::status::{FfiError, FfiResult, cfx_status};
use crate::model::{AnyModel, Model};
use crate::robust::{
    CrocoConfig, Estimate, Estimator, GuaranteeLimits, NoiseModel, ProbeConfig,
    RobustCounterfactual, Sampling, WachterConfig, Workspace, croco, invalidation_bound,
    linear_invalidation_rate, probe as probe_method, probe_invalidation_rate, wachter,
};
use crate::schema::Schema;
use std::ffi::c_char;
use std::sync::Arc;

/// Noise distributions for robustness estimates (`int32_t` in C): the `kind`
/// of `cfx_noise_new`. One convention everywhere: a Gaussian is given by its
/// **variance** σ² (CROCO's `sigma2`, Guyomard et al. 2023), never by σ.
#[repr(i32)]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum cfx_noise_model {
    /// ε ~ N(0, diag(σ₁², …, σ_d²)) on the chosen encoded columns, each given
    /// by its variance σ_j².
    Gaussian = 0,
    /// ε_j uniform on [−h_j, h_j] per chosen column, given by its half-width
    /// h_j (the CROCO reference code's alternative, which passes its `sigma2`
    /// as the half-width).
    Uniform = 1,
}

/// A noise distribution over the encoded space. Thread-safe (immutable);
/// free with `cfx_noise_free`.
pub struct cfx_noise {
    _private: [u8; 0],
}

unsafe impl ArcHandle for cfx_noise {
    type Rust = NoiseModel;
}

/// A Monte Carlo estimator (noise model, sample count K, sampling path).
/// Thread-safe (immutable); free with `cfx_estimator_free`.
pub struct cfx_estimator {
    _private: [u8; 0],
}

unsafe impl ArcHandle for cfx_estimator {
    type Rust = Estimator;
}

/// Every buffer of an estimate and its seeded xoshiro256++ generator. Not
/// thread-safe: one workspace per thread. Free with `cfx_workspace_free`.
pub struct cfx_workspace {
    _private: [u8; 0],
}

unsafe impl BoxHandle for cfx_workspace {
    type Rust = Workspace;
}

/// A robust counterfactual with its figures. Thread-safe (immutable); free
/// with `cfx_robust_result_free`.
pub struct cfx_robust_result {
    _private: [u8; 0],
}

/// The Rust side of a result: the counterfactual and the schema and model it
/// was computed with (named in the JSON export by their fingerprints).
pub struct RobustResult {
    pub counterfactual: RobustCounterfactual,
    /// The counterfactual checked with the model (`crate::advice`): the
    /// method's row when accepted, else the exact engine's repair over the
    /// features it moved, else "no valid advice found".
    pub advice: crate::advice::Checked,
    schema: Arc<Schema>,
    model: Arc<AnyModel>,
}

impl std::ops::Deref for RobustResult {
    type Target = RobustCounterfactual;
    fn deref(&self) -> &RobustCounterfactual {
        &self.counterfactual
    }
}

unsafe impl ArcHandle for cfx_robust_result {
    type Rust = RobustResult;
}

/// Sampling paths of an estimator (`int32_t` in C).
#[repr(i32)]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum cfx_sampling {
    /// The exact one-dimensional projection for a linear model with Gaussian
    /// noise (K draws instead of K·d), the generic loop otherwise.
    Auto = 0,
    /// Always perturb every noisy column and evaluate the model.
    Generic = 1,
}

impl cfx_sampling {
    fn from_i32(v: i32) -> Option<Self> {
        match v {
            0 => Some(Self::Auto),
            1 => Some(Self::Generic),
            _ => None,
        }
    }
}

/// Robust counterfactual generators (`int32_t` in C).
#[repr(i32)]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum cfx_robust_method {
    /// Wachter et al. in CARLA's form (validity only).
    Wachter = 0,
    /// PROBE: hinge on the first-order invalidation rate.
    Probe = 1,
    /// CROCO, Algorithm 1: the bound (m + Θ̃)/(1 − t) meets the target.
    Croco = 2,
}

impl cfx_robust_method {
    fn from_i32(v: i32) -> Option<Self> {
        match v {
            0 => Some(Self::Wachter),
            1 => Some(Self::Probe),
            2 => Some(Self::Croco),
            _ => None,
        }
    }
}

/// Isotropic Gaussian noise N(0, σ²I) on the value slots of the schema's
/// mutable contiguous features. `sigma2` is the **variance** σ² (CROCO's
/// `sigma2`; 0.01 in the paper), finite and ≥ 0. Thread-safe.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cfx_noise_gaussian_new(
    schema: *const cfx_schema,
    sigma2: f64,
    out_noise: *mut *const cfx_noise,
) -> cfx_status {
    ffi_boundary! {
        let out = out_param(out_noise, "out_noise")?;
        let s = arc_ref(schema, "schema")?;
        let n = NoiseModel::gaussian_for_schema(s, finite(sigma2, "sigma2")?)?;
        out.write(arc_into_raw(Arc::new(n)));
        Ok(())
    }
}

/// Noise on chosen encoded columns: `kind` is a `cfx_noise_model`
/// (`CFX_NOISE_MODEL_GAUSSIAN`: `scale[j]` is the **variance** σ_j² on
/// `columns[j]`, as `sigma2` of `cfx_noise_gaussian_new`;
/// `CFX_NOISE_MODEL_UNIFORM`: `scale[j]` is the half-width `h` of U[−h, h]).
/// Columns sorted and distinct; `n_scale == n_columns`; every scale finite
/// and ≥ 0.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cfx_noise_new(
    kind: i32,
    columns: *const usize,
    n_columns: usize,
    scale: *const f64,
    n_scale: usize,
    out_noise: *mut *const cfx_noise,
) -> cfx_status {
    ffi_boundary! {
        let out = out_param(out_noise, "out_noise")?;
        let kind = enum_in(kind, "kind", |v| match v {
            0 => Some(cfx_noise_model::Gaussian),
            1 => Some(cfx_noise_model::Uniform),
            _ => None,
        })?;
        let cols = slice_in(columns, n_columns, "columns")?.to_vec();
        let sc = finite_in(scale, n_scale, "scale")?.to_vec();
        crate::error::check_len("scale", cols.len(), sc.len())?;
        let n = match kind {
            cfx_noise_model::Uniform => NoiseModel::diagonal_uniform(cols, sc)?,
            cfx_noise_model::Gaussian => NoiseModel::diagonal_gaussian(cols, sc)?,
        };
        out.write(arc_into_raw(Arc::new(n)));
        Ok(())
    }
}

/// Frees a noise model (NULL is a no-op). Any thread, once.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cfx_noise_free(noise: *const cfx_noise) {
    ffi_boundary! {
        arc_free(noise)
    }
}

/// An estimator of Γ̃ and Θ̃ with `k` ≥ 2 samples; `sampling` is a
/// `cfx_sampling`. Thread-safe.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cfx_estimator_new(
    noise: *const cfx_noise,
    k: usize,
    sampling: i32,
    out_estimator: *mut *const cfx_estimator,
) -> cfx_status {
    ffi_boundary! {
        let out = out_param(out_estimator, "out_estimator")?;
        let n = arc_ref(noise, "noise")?;
        let sampling = match enum_in(sampling, "sampling", cfx_sampling::from_i32)? {
            cfx_sampling::Auto => Sampling::Auto,
            cfx_sampling::Generic => Sampling::Generic,
        };
        let e = Estimator::new(n.clone(), count_in(k, "k")?)?.with_sampling(sampling);
        out.write(arc_into_raw(Arc::new(e)));
        Ok(())
    }
}

/// Frees an estimator (NULL is a no-op). Any thread, once.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cfx_estimator_free(estimator: *const cfx_estimator) {
    ffi_boundary! {
        arc_free(estimator)
    }
}

/// A workspace sized for `model`, its generator seeded with `seed`.
/// Not thread-safe: use it from one thread at a time.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cfx_workspace_new(
    model: *const cfx_model,
    seed: u64,
    out_workspace: *mut *mut cfx_workspace,
) -> cfx_status {
    ffi_boundary! {
        let out = out_param(out_workspace, "out_workspace")?;
        let m = arc_ref(model, "model")?;
        out.write(box_into_raw(Workspace::new(m, seed)));
        Ok(())
    }
}

/// Restarts the workspace's generator from `seed`. Not thread-safe.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cfx_workspace_reseed(ws: *mut cfx_workspace, seed: u64) -> cfx_status {
    ffi_boundary! {
        box_mut(ws, "workspace")?.reseed(seed);
        Ok(())
    }
}

/// Frees a workspace (NULL is a no-op). Any thread, once.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cfx_workspace_free(ws: *mut cfx_workspace) {
    ffi_boundary! {
        box_free(ws)
    }
}

/// Γ̃ (fraction of K noisy copies the model rejects, Guyomard et al. 2023, eq. 3) and Θ̃
/// (mean of 1 − f) with their standard errors, at the encoded point `x`.
/// Any out-parameter may be NULL. Never allocates on success. The estimator
/// and model are thread-safe; the workspace is not (one per thread).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cfx_estimator_estimate(
    estimator: *const cfx_estimator,
    model: *const cfx_model,
    ws: *mut cfx_workspace,
    x: *const f64,
    x_len: usize,
    out_gamma: *mut f64,
    out_gamma_se: *mut f64,
    out_theta: *mut f64,
    out_theta_se: *mut f64,
) -> cfx_status {
    ffi_boundary! {
        let e = arc_ref(estimator, "estimator")?;
        let m = arc_ref(model, "model")?;
        let w = box_mut(ws, "workspace")?;
        let x = slice_in(x, x_len, "x")?;
        let r = e.estimate(m, x, w)?;
        write_estimate(&r, out_gamma, out_gamma_se, out_theta, out_theta_se);
        Ok(())
    }
}

fn write_estimate(r: &Estimate, g: *mut f64, gse: *mut f64, t: *mut f64, tse: *mut f64) {
    if let Some(o) = optional_out(g) {
        o.write(r.invalidation.value);
    }
    if let Some(o) = optional_out(gse) {
        o.write(r.invalidation.std_error);
    }
    if let Some(o) = optional_out(t) {
        o.write(r.soft.value);
    }
    if let Some(o) = optional_out(tse) {
        o.write(r.soft.std_error);
    }
}

/// CROCO's bound (Guyomard et al. 2023, Propositions 1–2; Hoeffding form derived):
/// Θ̃ from K draws, `bound = (m + Θ̃)/(1 − t)` and its confidence
/// `1 − exp(−2Km²)`; `m` > 0. Any out-parameter may be NULL. Never allocates
/// on success. Workspace: one per thread.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cfx_estimator_bound(
    estimator: *const cfx_estimator,
    model: *const cfx_model,
    ws: *mut cfx_workspace,
    x: *const f64,
    x_len: usize,
    m: f64,
    out_theta: *mut f64,
    out_bound: *mut f64,
    out_confidence: *mut f64,
) -> cfx_status {
    ffi_boundary! {
        let e = arc_ref(estimator, "estimator")?;
        let model = arc_ref(model, "model")?;
        let w = box_mut(ws, "workspace")?;
        let x = slice_in(x, x_len, "x")?;
        let (soft, b) = e.bound(model, x, m, w)?;
        if let Some(o) = optional_out(out_theta) {
            o.write(soft.value);
        }
        if let Some(o) = optional_out(out_bound) {
            o.write(b.value);
        }
        if let Some(o) = optional_out(out_confidence) {
            o.write(b.confidence);
        }
        Ok(())
    }
}

/// PROBE's first-order invalidation rate 1 − Φ(g/√(∇gᵀΣ∇g)) with the
/// estimator's (Gaussian) noise; no sampling. Never allocates on success.
/// Workspace: one per thread.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cfx_estimator_probe_rate(
    estimator: *const cfx_estimator,
    model: *const cfx_model,
    ws: *mut cfx_workspace,
    x: *const f64,
    x_len: usize,
    out_rate: *mut f64,
) -> cfx_status {
    ffi_boundary! {
        let out = out_param(out_rate, "out_rate")?;
        let e = arc_ref(estimator, "estimator")?;
        let m = arc_ref(model, "model")?;
        let w = box_mut(ws, "workspace")?;
        let x = slice_in(x, x_len, "x")?;
        out.write(probe_invalidation_rate(m, x, &e.noise, w)?);
        Ok(())
    }
}

/// The exact Γ of a logistic model under the estimator's Gaussian noise,
/// Φ((logit(t) − (w·x + b))/√(wᵀΣw)) (Guyomard et al. 2023, §2.3). `INVALID_ARGUMENT` for
/// an MLP or uniform noise. Never allocates on success. Thread-safe.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cfx_estimator_exact_rate(
    estimator: *const cfx_estimator,
    model: *const cfx_model,
    x: *const f64,
    x_len: usize,
    out_rate: *mut f64,
) -> cfx_status {
    ffi_boundary! {
        let out = out_param(out_rate, "out_rate")?;
        let e = arc_ref(estimator, "estimator")?;
        let m = arc_ref(model, "model")?;
        let AnyModel::Linear(lin) = m else {
            return Err(FfiError::invalid(
                "the exact invalidation rate needs a linear model".to_string(),
            ));
        };
        let x = slice_in(x, x_len, "x")?;
        out.write(linear_invalidation_rate(lin, x, &e.noise)?);
        Ok(())
    }
}

/// Γ̃ and Θ̃ for `n_points` encoded rows (`points` row-major, `n_points ×
/// input_dim` values) on `threads` threads (0 = all cores). Random streams
/// are per fixed chunk of points, so the same `seed` gives the same bits for
/// any thread count. `out_gamma`/`out_theta` hold `n_points` values each
/// (either may be NULL). Allocates one workspace per thread. Thread-safe.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cfx_estimator_estimate_batch(
    estimator: *const cfx_estimator,
    model: *const cfx_model,
    points: *const f64,
    n_points: usize,
    seed: u64,
    threads: usize,
    out_gamma: *mut f64,
    out_theta: *mut f64,
) -> cfx_status {
    ffi_boundary! {
        let e = arc_ref(estimator, "estimator")?;
        let m = arc_ref(model, "model")?;
        let len = n_points.checked_mul(m.input_dim()).ok_or_else(|| {
            FfiError::invalid("n_points × input_dim overflows".to_string())
        })?;
        let pts = slice_in(points, len, "points")?;
        let g = if out_gamma.is_null() { None } else { Some(out_gamma) };
        let t = if out_theta.is_null() { None } else { Some(out_theta) };
        if threads > 0 {
            count_in(threads, "threads")?;
        }
        let r = e.estimate_batch(m, pts, seed, threads)?;
        for (i, est) in r.iter().enumerate() {
            if let Some(p) = g {
                // SAFETY: the caller provides n_points values (documented).
                unsafe { p.add(i).write(est.invalidation.value) };
            }
            if let Some(p) = t {
                unsafe { p.add(i).write(est.soft.value) };
            }
        }
        Ok(())
    }
}

/// Runs one generator with the method's defaults overridden by the settings
/// the C configuration has (unset = the method's default).
fn generate(
    method: cfx_robust_method,
    cfg: &SolverConfig,
    s: &crate::schema::Schema,
    m: &AnyModel,
    n: &NoiseModel,
    raw: &[f64],
) -> FfiResult<RobustCounterfactual> {
    fn set<T>(slot: &mut T, v: Option<T>) {
        if let Some(v) = v {
            *slot = v;
        }
    }
    let samples = || cfg.n_samples.map(|v| count_in(v, "n_samples")).transpose();
    Ok(match method {
        cfx_robust_method::Wachter => {
            let mut c = WachterConfig::default();
            set(&mut c.seed, cfg.seed);
            wachter(s, m, n, raw, &c)?
        }
        cfx_robust_method::Probe => {
            let mut c = ProbeConfig::default();
            set(&mut c.check_samples, samples()?);
            set(&mut c.invalidation_target, cfg.target);
            set(&mut c.target_eps, cfg.target_epsilon);
            set(&mut c.seed, cfg.seed);
            probe_method(s, m, n, raw, &c)?
        }
        cfx_robust_method::Croco => {
            let mut c = CrocoConfig::default();
            set(&mut c.k, samples()?);
            set(&mut c.m, cfg.bound_m);
            set(&mut c.robustness_target, cfg.target);
            set(&mut c.robustness_epsilon, cfg.target_epsilon);
            set(&mut c.seed, cfg.seed);
            croco(s, m, n, raw, &c)?
        }
    })
}

/// Generates a robust counterfactual for the raw applicant row `raw`
/// (`raw_len == n_features`) with `method` (a `cfx_robust_method`) under
/// `noise`, all searches and evaluations seeded. `config` may be NULL (the
/// paper defaults); it supplies `n_samples` (CROCO's K; PROBE's check
/// samples), `bound_m` (CROCO's m), `target` (Γ̄_t / PROBE's target),
/// `target_epsilon` and `seed`. Only numerical features move; the result is
/// coherent and rounded. A target that was not met is not an error: read
/// `target_met`. A row the model declines is not advice: the result's JSON
/// (`cfx_robust_result_to_json`) says under `advice` whether the row is
/// `valid`, `repaired` (the exact engine's cheapest accepted row over the
/// features the method moved) or `no_advice` (the method's row kept as
/// `best_effort`); so do `cfx_robust_result_advice_status`,
/// `cfx_robust_result_advice_raw` and `cfx_robust_result_advice_describe`.
/// Thread-safe.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cfx_robust_generate(
    schema: *const cfx_schema,
    model: *const cfx_model,
    noise: *const cfx_noise,
    method: i32,
    config: *const cfx_config,
    raw: *const f64,
    raw_len: usize,
    out_result: *mut *const cfx_robust_result,
) -> cfx_status {
    ffi_boundary! {
        let out = out_param(out_result, "out_result")?;
        let s = arc_clone(schema, "schema")?;
        let m = arc_clone(model, "model")?;
        let n = arc_ref(noise, "noise")?;
        let method = enum_in(method, "method", cfx_robust_method::from_i32)?;
        let defaults = SolverConfig::default();
        let cfg = if config.is_null() {
            &defaults
        } else {
            arc_ref(config, "config")?
        };
        let raw = slice_in(raw, raw_len, "raw")?;
        let counterfactual = generate(method, cfg, &s, &m, n, raw)?;
        // A model the exact engine cannot take (or a repair that fails) leaves
        // the check alone: a declined row is then "no valid advice found".
        let advice = crate::advice::check_or_repair(
            &s,
            &*m,
            raw,
            &counterfactual.raw,
            Some(&crate::coherent::Config::default()),
        )
        .or_else(|_| crate::advice::check_or_repair(&s, &*m, raw, &counterfactual.raw, None))?;
        out.write(arc_into_raw(Arc::new(RobustResult { counterfactual, advice, schema: s, model: m })));
        Ok(())
    }
}

/// The figures of a robust counterfactual (any out-parameter may be NULL):
/// validity (1/0), whether the method's target was met (1/0), probability,
/// L1 distance (encoded), Γ̃ and Θ̃ on 10,000 fresh draws, the bound
/// (m = 0.02) and its confidence. Thread-safe.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cfx_robust_result_summary(
    result: *const cfx_robust_result,
    out_valid: *mut i32,
    out_target_met: *mut i32,
    out_probability: *mut f64,
    out_distance: *mut f64,
    out_gamma: *mut f64,
    out_theta: *mut f64,
    out_bound: *mut f64,
    out_confidence: *mut f64,
) -> cfx_status {
    ffi_boundary! {
        let r = arc_ref(result, "result")?;
        write_optional([
            (out_valid, i32::from(r.valid)),
            (out_target_met, i32::from(r.target_met)),
        ]);
        write_optional([
            (out_probability, r.probability),
            (out_distance, r.l1_distance),
            (out_gamma, r.invalidation.value),
            (out_theta, r.soft.value),
            (out_bound, r.bound.value),
            (out_confidence, r.bound.confidence),
        ]);
        Ok(())
    }
}

/// The counterfactual as a raw row (`n_features` values; buffer protocol).
/// Thread-safe.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cfx_robust_result_raw(
    result: *const cfx_robust_result,
    buf: *mut f64,
    cap: usize,
    out_len: *mut usize,
) -> cfx_status {
    ffi_boundary! {
        let r = arc_ref(result, "result")?;
        write_slice(&r.raw, buf, cap, out_len, "buf")
    }
}

/// The counterfactual encoded (`encoded_dim` values; buffer protocol).
/// Thread-safe.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cfx_robust_result_encoded(
    result: *const cfx_robust_result,
    buf: *mut f64,
    cap: usize,
    out_len: *mut usize,
) -> cfx_status {
    ffi_boundary! {
        let r = arc_ref(result, "result")?;
        write_slice(&r.encoded, buf, cap, out_len, "buf")
    }
}

/// What the counterfactual is as advice (issue 25), a `cfx_advice_status`:
/// `CFX_ADVICE_STATUS_VALID` (the method's row is accepted and actionable),
/// `..._REPAIRED_MOVED_FEATURES` / `..._REPAIRED_WHOLE_SCHEMA` (the method's
/// row was declined or broke a rule; the exact engine's cheapest accepted row,
/// over the features the method moved or over every actionable feature, is
/// the advice: `cfx_robust_result_advice_raw`) or `..._NO_ADVICE` ("no valid
/// advice found"; `cfx_robust_result_raw` is the method's best effort, for
/// diagnosis only). Thread-safe.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cfx_robust_result_advice_status(
    result: *const cfx_robust_result,
    out_status: *mut i32,
) -> cfx_status {
    ffi_boundary! {
        let out = out_param(out_status, "out_status")?;
        let r = arc_ref(result, "result")?;
        out.write(cfx_advice_status::of(&r.advice) as i32);
        Ok(())
    }
}

/// The advice as a raw row (`n_features` values; buffer protocol): the
/// method's row when valid, the exact engine's repair when repaired, and no
/// values (`*out_len == 0`) when there is no valid advice. Thread-safe.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cfx_robust_result_advice_raw(
    result: *const cfx_robust_result,
    buf: *mut f64,
    cap: usize,
    out_len: *mut usize,
) -> cfx_status {
    ffi_boundary! {
        let r = arc_ref(result, "result")?;
        write_slice(advice_row(&r.advice), buf, cap, out_len, "buf")
    }
}

/// The advice in one line for a person (string buffer protocol): its changes
/// in the data's own words and how it was obtained ("… (accepted, probability
/// 0.612)", "… (repaired by the exact engine over the features the method
/// moved: the method's own answer was declined by the model …)"), or "no
/// valid advice found (the method's best effort was …)". Thread-safe.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cfx_robust_result_advice_describe(
    result: *const cfx_robust_result,
    buf: *mut c_char,
    cap: usize,
    out_len: *mut usize,
) -> cfx_status {
    ffi_boundary! {
        let r = arc_ref(result, "result")?;
        write_str(&r.advice.describe(), buf, cap, out_len, "buf")
    }
}

/// A robust result's JSON: the counterfactual's fields and what its bound
/// can say at all (`crate::robust::GuaranteeLimits`: the floor m/(1 − t)).
#[derive(serde::Serialize)]
struct RobustJson<'a> {
    #[serde(flatten)]
    counterfactual: &'a RobustCounterfactual,
    /// What the counterfactual is as advice (`crate::advice::Checked`).
    advice: &'a crate::advice::Checked,
    #[serde(skip_serializing_if = "Option::is_none")]
    guarantee_limits: Option<&'a GuaranteeLimits>,
}

/// The result as versioned JSON (string buffer protocol), with the
/// fingerprints of the schema and model the result was computed with (kept
/// in the result), and under `guarantee_limits` the floor m/(1 − t) below
/// which CROCO's bound cannot go for its margin and the model's threshold. `schema` and `model` may be NULL; when given, they must be
/// those (the same fingerprints), else `INVALID_ARGUMENT`. Thread-safe.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cfx_robust_result_to_json(
    result: *const cfx_robust_result,
    schema: *const cfx_schema,
    model: *const cfx_model,
    buf: *mut c_char,
    cap: usize,
    out_len: *mut usize,
) -> cfx_status {
    ffi_boundary! {
        let r = arc_ref(result, "result")?;
        if !schema.is_null() {
            let given = schema_fingerprint(arc_ref(schema, "schema")?);
            let kept = schema_fingerprint(&r.schema);
            if given != kept {
                return Err(FfiError::invalid(format!(
                    "the result was computed with schema {kept}, not with the given {given}"
                )));
            }
        }
        if !model.is_null() {
            let given = model_fingerprint(arc_ref(model, "model")?);
            let kept = model_fingerprint(&r.model);
            if given != kept {
                return Err(FfiError::invalid(format!(
                    "the result was computed with model {kept}, not with the given {given}"
                )));
            }
        }
        let p = Provenance {
            schema: Some(&r.schema),
            model: Some(&r.model),
            ..Default::default()
        };
        let limits = GuaranteeLimits::of_bound(&r.counterfactual.bound, r.model.threshold()).ok();
        let v = RobustJson {
            counterfactual: &r.counterfactual,
            advice: &r.advice,
            guarantee_limits: limits.as_ref(),
        };
        let json = result_json("robust_counterfactual", &p, &v)?;
        write_str(&json, buf, cap, out_len, "buf")
    }
}

/// Frees a result (NULL is a no-op). Any thread, once.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cfx_robust_result_free(result: *const cfx_robust_result) {
    ffi_boundary! {
        arc_free(result)
    }
}

/// `1 − exp(−2Km²)`, the confidence of CROCO's bound with K draws and margin
/// m (derived Hoeffding form). Returns NaN for m ≤ 0 or non-finite m.
#[unsafe(no_mangle)]
pub extern "C" fn cfx_robust_bound_confidence(k: usize, m: f64) -> f64 {
    ffi_boundary! {
        match invalidation_bound(0.0, m, 0.5, k.max(1)) {
            Ok(b) => b.confidence,
            Err(_) => f64::NAN,
        }
    }
}
