//! Counterfactual plans under model shift through the C ABI — COPA (Bui,
//! Nguyen & Nguyen 2022, "Counterfactual plans under distributional
//! ambiguity"); see [`crate::plan`]. `cfx_uncertainty` (the moments (μ̂, Σ̂) of the future
//! model parameters θ̃ = (bias, w)) and `cfx_copa_result` are immutable and
//! `Arc`-backed: share them across threads.

use super::advice::{advice_row, cfx_advice_status};
use super::config::cfx_config;
use super::data::cfx_dataset;
use super::export::{Provenance, fingerprint, result_json};
use super::handle::{
    ArcHandle, arc_clone, arc_free, arc_into_raw, arc_ref, count_in, elements, finite, finite_in,
    out_param, write_optional, write_slice, write_str,
};
use super::model::cfx_model;
use super::schema::cfx_schema;
use super::status::{FfiError, FfiResult, cfx_status};
use crate::advice::Checked;
use crate::model::AnyModel;
use crate::plan::{
    BoundsReading, CopaConfig, CopaPlan, CorrectionConfig, EnsembleConfig, ModelUncertainty,
    SolveStatus, TrivialCase, ValidityBound, copa_plan, correct_plan, lower_validity_bound,
    upper_validity_bound, with_intercept,
};
use crate::schema::Schema;
use serde::Serialize;
use std::ffi::c_char;
use std::sync::Arc;

/// The nominal mean μ̂ and covariance Σ̂ of the future model parameters
/// θ̃ = (bias, w) (intercept first). Thread-safe (immutable); free with
/// `cfx_uncertainty_free`.
pub struct cfx_uncertainty {
    _private: [u8; 0],
}

unsafe impl ArcHandle for cfx_uncertainty {
    type Rust = ModelUncertainty;
}

/// A COPA plan with its metrics, validity bounds and plain-words description.
/// Thread-safe (immutable); free with `cfx_copa_result_free`.
pub struct cfx_copa_result {
    _private: [u8; 0],
}

/// The Rust side of a COPA result: the plan, its description and its inputs
/// (for the JSON export).
pub struct CopaResult {
    pub plan: CopaPlan,
    pub text: String,
    schema: Arc<Schema>,
    uncertainty: Arc<ModelUncertainty>,
    seed: u64,
    /// What the bounds say (None when a bound's solve was not usable).
    reading: Option<BoundsReadingJson>,
    /// Each option checked with today's model (`crate::advice`), when the plan
    /// was made with one (`cfx_copa_plan_new_checked`), with that model.
    checked: Option<(Vec<Checked>, Arc<AnyModel>)>,
}

/// [`BoundsReading`] with its sentence, as the result's JSON carries it.
#[derive(Serialize)]
struct BoundsReadingJson {
    #[serde(flatten)]
    reading: BoundsReading,
    in_words: String,
}

unsafe impl ArcHandle for cfx_copa_result {
    type Rust = CopaResult;
}

/// How a validity bound was obtained (`int32_t` in C): the solver's outcome,
/// or the closed-form case that decided it without a program.
#[repr(i32)]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum cfx_copa_status {
    /// Solved to the default tolerances.
    Optimal = 0,
    /// Solved to reduced tolerances only; the value is usable but less precise.
    NearOptimal = 1,
    /// The program has no feasible point; the value is NaN.
    Infeasible = 2,
    /// The program is unbounded; the value is NaN.
    Unbounded = 3,
    /// The iteration or time limit stopped the solver; the value is NaN.
    Limit = 4,
    /// The solver failed numerically; the value is NaN.
    NumericalFailure = 5,
    /// Some option has μ̂ᵀx̃ ≤ 0, so L* = 0 (Proposition 2.4); no program ran.
    TrivialMeanOutside = 6,
    /// Every option has μ̂ᵀx̃ > 0, so U* = 1 (Proposition 2.4); no program ran.
    TrivialMeanInside = 7,
    /// A degenerate input decided the value in closed form; no program ran.
    Trivial = 8,
}

impl cfx_copa_status {
    /// The C code of a bound's outcome.
    pub fn of(b: &ValidityBound) -> cfx_copa_status {
        match (b.status, b.trivial) {
            (_, Some(TrivialCase::MeanOutside)) => Self::TrivialMeanOutside,
            (_, Some(TrivialCase::MeanInside)) => Self::TrivialMeanInside,
            (SolveStatus::Optimal, None) => Self::Optimal,
            (SolveStatus::NearOptimal, None) => Self::NearOptimal,
            (SolveStatus::Infeasible, None) => Self::Infeasible,
            (SolveStatus::Unbounded, None) => Self::Unbounded,
            (SolveStatus::Limit, None) => Self::Limit,
            (SolveStatus::NumericalFailure, None) => Self::NumericalFailure,
            (SolveStatus::Trivial, None) => Self::Trivial,
        }
    }

    /// Decodes a C value (`None` when out of range).
    pub fn from_i32(v: i32) -> Option<Self> {
        Some(match v {
            0 => Self::Optimal,
            1 => Self::NearOptimal,
            2 => Self::Infeasible,
            3 => Self::Unbounded,
            4 => Self::Limit,
            5 => Self::NumericalFailure,
            6 => Self::TrivialMeanOutside,
            7 => Self::TrivialMeanInside,
            8 => Self::Trivial,
            _ => return None,
        })
    }
}

/// Moments given by the caller: `mean` has `d` values (θ = (bias, w), the
/// intercept first, `d` ≥ 2), `cov` is Σ̂ row-major with `cov_len == d·d`
/// values, symmetric positive semidefinite. Non-finite values are refused.
/// On success `*out_uncertainty` owns a new handle. Thread-safe.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cfx_uncertainty_new(
    mean: *const f64,
    d: usize,
    cov: *const f64,
    cov_len: usize,
    out_uncertainty: *mut *const cfx_uncertainty,
) -> cfx_status {
    ffi_boundary! {
        let out = out_param(out_uncertainty, "out_uncertainty")?;
        elements(&[d, d], "Σ̂ (d × d)")?;
        let m = finite_in(mean, d, "mean")?.to_vec();
        let c = finite_in(cov, cov_len, "cov")?.to_vec();
        let u = ModelUncertainty::new(m, c)?;
        out.write(arc_into_raw(Arc::new(u)));
        Ok(())
    }
}

/// Moments estimated from `refits` (≥ 2) logistic regressions, each refitted
/// on a random half of `train` (seeded with `seed`); Σ̂ is 1.5 × the sample
/// covariance (COPA's experiments use 1000 refits). On success
/// `*out_uncertainty` owns a new handle. Thread-safe.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cfx_uncertainty_from_dataset(
    train: *const cfx_dataset,
    refits: usize,
    seed: u64,
    out_uncertainty: *mut *const cfx_uncertainty,
) -> cfx_status {
    ffi_boundary! {
        let out = out_param(out_uncertainty, "out_uncertainty")?;
        let t = arc_ref(train, "train")?;
        let cfg = EnsembleConfig {
            refits: count_in(refits, "refits")?,
            cov_scale: 1.5,
            seed,
            ..EnsembleConfig::default()
        };
        let u = ModelUncertainty::from_ensemble(&t.encoded(), &t.labels, cfg)?;
        out.write(arc_into_raw(Arc::new(u)));
        Ok(())
    }
}

/// The dimension d of θ (1 + the encoded dimension). Thread-safe.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cfx_uncertainty_dim(
    uncertainty: *const cfx_uncertainty,
    out_dim: *mut usize,
) -> cfx_status {
    ffi_boundary! {
        let out = out_param(out_dim, "out_dim")?;
        out.write(arc_ref(uncertainty, "uncertainty")?.dim());
        Ok(())
    }
}

/// Frees an uncertainty (NULL is a no-op). Any thread, once.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cfx_uncertainty_free(uncertainty: *const cfx_uncertainty) {
    ffi_boundary! {
        arc_free(uncertainty)
    }
}

/// `n_options × dim` encoded rows (no intercept) as options with the intercept.
fn plan_in(options: *const f64, n_options: usize, dim: usize) -> FfiResult<Vec<Vec<f64>>> {
    let len = n_options
        .checked_mul(dim)
        .ok_or_else(|| FfiError::invalid("n_options × dim overflows".to_string()))?;
    let xs = finite_in(options, len, "options")?;
    if dim == 0 {
        return Err(FfiError::invalid("dim must be ≥ 1".to_string()));
    }
    Ok(xs.chunks(dim).map(with_intercept).collect())
}

/// The bounds L* ≤ P(every option stays valid) ≤ U* of a plan under the
/// future model, over every law within Gelbrich distance `rho` (finite, ≥ 0)
/// of the moments (Bui, Nguyen & Nguyen 2022, Theorems 2.2–2.3). `options` holds `n_options`
/// encoded rows **without** the intercept, row-major, `dim` values each
/// (`dim == d − 1`). `*out_lower`/`*out_upper` receive the bounds (NaN when
/// the solver's outcome is not usable); `out_lower_status`/`out_upper_status`
/// (may be NULL) receive `cfx_copa_status` codes. A failed solve is not an
/// error: read the status. Thread-safe.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cfx_copa_bounds(
    uncertainty: *const cfx_uncertainty,
    options: *const f64,
    n_options: usize,
    dim: usize,
    rho: f64,
    out_lower: *mut f64,
    out_upper: *mut f64,
    out_lower_status: *mut i32,
    out_upper_status: *mut i32,
) -> cfx_status {
    ffi_boundary! {
        let lo = out_param(out_lower, "out_lower")?;
        let up = out_param(out_upper, "out_upper")?;
        let u = arc_ref(uncertainty, "uncertainty")?;
        let plan = plan_in(options, n_options, dim)?;
        let rho = finite(rho, "rho")?;
        let l = lower_validity_bound(&plan, u, rho)?;
        let h = upper_validity_bound(&plan, u, rho)?;
        lo.write(l.value);
        up.write(h.value);
        write_optional([
            (out_lower_status, cfx_copa_status::of(&l) as i32),
            (out_upper_status, cfx_copa_status::of(&h) as i32),
        ]);
        Ok(())
    }
}

/// Corrects a plan (Bui, Nguyen & Nguyen 2022, §3): the Requirement projection of every option
/// onto {x : μ̂ᵀx̃ ≥ 0.1}, then the Mahalanobis improvement (perturbation
/// limit `delta` ≥ 0) of the ⌈J/2⌉ options with the largest dual weights of
/// L* at radius `rho` (finite, ≥ 0). Every coordinate may move (no schema
/// constraints). `options` as in `cfx_copa_bounds` (`n_options × dim`, no
/// intercept); the corrected options go to `buf` in the same layout (buffer
/// protocol, `n_options × dim` values). `out_lower_before`/`out_lower_after`
/// (may be NULL) receive L* of the plan as given and as corrected (NaN when a
/// solve was not usable). Thread-safe.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cfx_copa_correct(
    uncertainty: *const cfx_uncertainty,
    options: *const f64,
    n_options: usize,
    dim: usize,
    rho: f64,
    delta: f64,
    buf: *mut f64,
    cap: usize,
    out_len: *mut usize,
    out_lower_before: *mut f64,
    out_lower_after: *mut f64,
) -> cfx_status {
    ffi_boundary! {
        let u = arc_ref(uncertainty, "uncertainty")?;
        let plan = plan_in(options, n_options, dim)?;
        let cfg = CorrectionConfig {
            rho: finite(rho, "rho")?,
            delta: finite(delta, "delta")?,
            ..CorrectionConfig::default()
        };
        let c = correct_plan(&plan, u, cfg, None)?;
        let flat: Vec<f64> = c.plan.iter().flat_map(|x| x[1..].iter().copied()).collect();
        write_slice(&flat, buf, cap, out_len, "buf")?;
        write_optional([
            (out_lower_before, c.lower_before.value),
            (out_lower_after, c.lower_after.value),
        ]);
        Ok(())
    }
}

/// A COPA plan (Bui, Nguyen & Nguyen 2022, §4) for the raw applicant row `raw`
/// (`raw_len == n_features`): only the value slots of mutable contiguous
/// features move, within their actionable ranges and directions; every option
/// decodes into a coherent raw row. `uncertainty` must have `d == 1 +
/// encoded_dim`. `config` may be NULL (COPA defaults: 5 options, weights
/// diversity 50 / validity 2, ρ = 0, seed 0); it supplies `n_diverse` (the
/// number of options J), `seed`, `copa_weights` (validity λ₂ = robust weight,
/// diversity λ₁) and `copa_radius` (ρ of the reported bounds). On success
/// `*out_result` owns a new handle. Thread-safe.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cfx_copa_plan_new(
    schema: *const cfx_schema,
    uncertainty: *const cfx_uncertainty,
    config: *const cfx_config,
    raw: *const f64,
    raw_len: usize,
    out_result: *mut *const cfx_copa_result,
) -> cfx_status {
    ffi_boundary! {
        let out = out_param(out_result, "out_result")?;
        let r = plan_new(schema, uncertainty, None, config, raw, raw_len)?;
        out.write(arc_into_raw(Arc::new(r)));
        Ok(())
    }
}

/// `cfx_copa_plan_new`, then every option checked with today's `model` (its
/// encoding that of `schema`) as the robust methods' rows are (issue 25;
/// `crate::advice`): an option the model accepts and the schema allows is
/// valid advice; one it declines (or that breaks a rule) is repaired by the
/// exact engine (Russell 2019) — the cheapest accepted row over the features
/// the option moved, else over every actionable feature — or is "no valid
/// advice found". Read each option's outcome with
/// `cfx_copa_result_option_advice_status` and its advice with
/// `cfx_copa_result_option_advice_raw`; `cfx_copa_result_describe` then
/// describes the advice, not the raw options. Thread-safe.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cfx_copa_plan_new_checked(
    schema: *const cfx_schema,
    uncertainty: *const cfx_uncertainty,
    model: *const cfx_model,
    config: *const cfx_config,
    raw: *const f64,
    raw_len: usize,
    out_result: *mut *const cfx_copa_result,
) -> cfx_status {
    ffi_boundary! {
        let out = out_param(out_result, "out_result")?;
        let m = arc_clone(model, "model")?;
        let r = plan_new(schema, uncertainty, Some(m), config, raw, raw_len)?;
        out.write(arc_into_raw(Arc::new(r)));
        Ok(())
    }
}

/// The plan of `cfx_copa_plan_new`, its options checked with `model` when
/// one is given.
fn plan_new(
    schema: *const cfx_schema,
    uncertainty: *const cfx_uncertainty,
    model: Option<Arc<AnyModel>>,
    config: *const cfx_config,
    raw: *const f64,
    raw_len: usize,
) -> FfiResult<CopaResult> {
    let s = arc_clone(schema, "schema")?;
    let u = arc_clone(uncertainty, "uncertainty")?;
    let mut c = CopaConfig::default();
    if !config.is_null() {
        let cfg = arc_ref(config, "config")?;
        if let Some(j) = cfg.n_diverse {
            c.options = count_in(j, "n_diverse")?;
        }
        if let Some(seed) = cfg.seed {
            c.seed = seed;
        }
        if let Some(w) = cfg.copa_robust_weight {
            c.validity_weight = w;
        }
        if let Some(w) = cfg.copa_diversity_weight {
            c.diversity_weight = w;
        }
        if let Some(r) = cfg.copa_radius {
            c.rho = r;
        }
    }
    let raw = finite_in(raw, raw_len, "raw")?;
    if let Some(m) = &model {
        crate::model::check_model_for_schema(m.as_ref(), &s, "the schema")?;
    }
    let plan = copa_plan(&s, &u, raw, c)?;
    let checked = match model {
        None => None,
        Some(m) => {
            let mut all = Vec::with_capacity(plan.raw.len());
            for option in &plan.raw {
                all.push(check_option(&s, &m, raw, option)?);
            }
            Some((all, m))
        }
    };
    let text = describe(&s, raw, &plan, checked.as_ref().map(|(c, _)| &c[..]));
    let reading = plan
        .read_bounds(&u, c.rho)
        .ok()
        .map(|reading| BoundsReadingJson {
            in_words: reading.in_words(),
            reading,
        });
    let r = CopaResult {
        plan,
        text,
        schema: s,
        uncertainty: u,
        seed: c.seed,
        reading,
        checked,
    };
    Ok(r)
}

/// One option checked and, when it is not advice, repaired by the exact
/// engine; a model the exact engine cannot take leaves the check alone (a
/// declined option is then "no valid advice found"), as for the robust methods.
fn check_option(s: &Schema, m: &AnyModel, raw: &[f64], option: &[f64]) -> FfiResult<Checked> {
    Ok(
        crate::advice::check_or_repair(
            s,
            m,
            raw,
            option,
            Some(&crate::coherent::Config::default()),
        )
        .or_else(|_| crate::advice::check_or_repair(s, m, raw, option, None))?,
    )
}

/// One line per distinct option, `option k: change; change; …` (or `no
/// change`; options that are the same row share one line, `options 1, 2 and
/// 3 (the same row): …`); for a checked plan, the advice each option became
/// ([`Checked::describe`]).
fn describe(schema: &Schema, raw: &[f64], plan: &CopaPlan, checked: Option<&[Checked]>) -> String {
    let mut t = String::new();
    if let Some(checked) = checked {
        let rows: Vec<Vec<f64>> = checked
            .iter()
            .map(|c| c.advice.clone().unwrap_or_else(|| c.best_effort.clone()))
            .collect();
        for g in crate::plan::coinciding_options(&rows) {
            let label = crate::plan::options_label(&g);
            t.push_str(&format!("{label}: {}\n", checked[g[0]].describe()));
        }
        return t;
    }
    for g in crate::plan::coinciding_options(&plan.raw) {
        let words: Vec<String> = schema
            .describe_changes(raw, &plan.raw[g[0]])
            .iter()
            .map(|c| c.to_string())
            .collect();
        let words = if words.is_empty() {
            "no change".to_string()
        } else {
            words.join("; ")
        };
        t.push_str(&format!("{}: {}\n", crate::plan::options_label(&g), words));
    }
    t
}

/// The number of options J of the plan. Thread-safe.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cfx_copa_result_n_options(
    result: *const cfx_copa_result,
    out_n: *mut usize,
) -> cfx_status {
    ffi_boundary! {
        let out = out_param(out_n, "out_n")?;
        out.write(arc_ref(result, "result")?.plan.raw.len());
        Ok(())
    }
}

/// Option `k` (0-based) as a raw row (`n_features` values; buffer protocol).
/// `NOT_FOUND` when `k >= n_options`. Thread-safe.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cfx_copa_result_option_raw(
    result: *const cfx_copa_result,
    k: usize,
    buf: *mut f64,
    cap: usize,
    out_len: *mut usize,
) -> cfx_status {
    ffi_boundary! {
        let r = arc_ref(result, "result")?;
        let o = r.plan.raw.get(k).ok_or_else(|| {
            FfiError::new(
                cfx_status::NotFound,
                format!("option {k} is out of range (the plan has {})", r.plan.raw.len()),
            )
        })?;
        write_slice(o, buf, cap, out_len, "buf")
    }
}

/// Option `k`'s advice check (k 0-based), for a plan made with
/// `cfx_copa_plan_new_checked`: `NOT_FOUND` when `k >= n_options`,
/// `INVALID_ARGUMENT` when the plan was made without a model.
fn option_checked(r: &CopaResult, k: usize) -> FfiResult<&Checked> {
    let Some((checked, _)) = &r.checked else {
        return Err(FfiError::invalid(
            "the plan was made without a model, so its options are not checked as advice: make it with cfx_copa_plan_new_checked".to_string(),
        ));
    };
    checked.get(k).ok_or_else(|| {
        FfiError::new(
            cfx_status::NotFound,
            format!(
                "option {k} is out of range (the plan has {})",
                checked.len()
            ),
        )
    })
}

/// What option `k` (0-based) is as advice, a `cfx_advice_status` (as
/// `cfx_robust_result_advice_status`): valid, repaired by the exact engine
/// (over the features the option moved, or over every actionable feature), or
/// no valid advice. Only for a plan made with `cfx_copa_plan_new_checked`
/// (else `INVALID_ARGUMENT`); `NOT_FOUND` when `k >= n_options`. Thread-safe.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cfx_copa_result_option_advice_status(
    result: *const cfx_copa_result,
    k: usize,
    out_status: *mut i32,
) -> cfx_status {
    ffi_boundary! {
        let out = out_param(out_status, "out_status")?;
        let c = option_checked(arc_ref(result, "result")?, k)?;
        out.write(cfx_advice_status::of(c) as i32);
        Ok(())
    }
}

/// Option `k`'s advice as a raw row (`n_features` values; buffer protocol):
/// the option itself when valid, the exact engine's repair when repaired, no
/// values (`*out_len == 0`) when there is no valid advice. Only for a plan
/// made with `cfx_copa_plan_new_checked` (else `INVALID_ARGUMENT`);
/// `NOT_FOUND` when `k >= n_options`. Thread-safe.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cfx_copa_result_option_advice_raw(
    result: *const cfx_copa_result,
    k: usize,
    buf: *mut f64,
    cap: usize,
    out_len: *mut usize,
) -> cfx_status {
    ffi_boundary! {
        let c = option_checked(arc_ref(result, "result")?, k)?;
        write_slice(advice_row(c), buf, cap, out_len, "buf")
    }
}

/// The figures of the plan (any out-parameter may be NULL): proximity (mean
/// ℓ2 distance to the applicant, encoded), diversity (det K), the validity
/// proxy min_j μ̂ᵀx̃_j/‖Σ̂^{1/2}x̃_j‖, and the bounds L* and U* at the
/// configured ρ (NaN when their solve was not usable). Thread-safe.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cfx_copa_result_metrics(
    result: *const cfx_copa_result,
    out_proximity: *mut f64,
    out_diversity: *mut f64,
    out_validity: *mut f64,
    out_lower: *mut f64,
    out_upper: *mut f64,
) -> cfx_status {
    ffi_boundary! {
        let p = &arc_ref(result, "result")?.plan;
        write_optional([
            (out_proximity, p.proximity),
            (out_diversity, p.diversity),
            (out_validity, p.validity),
            (out_lower, p.lower.value),
            (out_upper, p.upper.value),
        ]);
        Ok(())
    }
}

/// The plan in plain words, one line per option (`option 1: …`), as written
/// when the plan was made (string buffer protocol). Thread-safe.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cfx_copa_result_describe(
    result: *const cfx_copa_result,
    buf: *mut c_char,
    cap: usize,
    out_len: *mut usize,
) -> cfx_status {
    ffi_boundary! {
        let r = arc_ref(result, "result")?;
        write_str(&r.text, buf, cap, out_len, "buf")
    }
}

#[derive(Serialize)]
struct CopaJson<'a> {
    plan: &'a CopaPlan,
    description: &'a str,
    /// What L* and U* say and, when vacuous, why (`cfx::plan::BoundsReading`).
    #[serde(skip_serializing_if = "Option::is_none")]
    bounds_reading: Option<&'a BoundsReadingJson>,
    /// Each option as advice (`crate::advice::Checked`), for a checked plan.
    #[serde(skip_serializing_if = "Option::is_none")]
    advice: Option<&'a [Checked]>,
}

/// The result as versioned JSON (kind `"copa_plan"`; string buffer protocol),
/// with the schema and uncertainty fingerprints and the seed, and under
/// `bounds_reading` what L* and U* say (when vacuous, why in numbers, and
/// its sentence in `in_words`). Thread-safe.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cfx_copa_result_to_json(
    result: *const cfx_copa_result,
    buf: *mut c_char,
    cap: usize,
    out_len: *mut usize,
) -> cfx_status {
    ffi_boundary! {
        let r = arc_ref(result, "result")?;
        let u = serde_json::to_string(&*r.uncertainty).map_err(crate::Error::from)?;
        let p = Provenance {
            schema: Some(&r.schema),
            model: r.checked.as_ref().map(|(_, m)| &**m),
            extra_inputs: vec![("uncertainty".to_string(), fingerprint(&u))],
            seed: Some(r.seed),
        };
        let v = CopaJson {
            plan: &r.plan,
            description: &r.text,
            bounds_reading: r.reading.as_ref(),
            advice: r.checked.as_ref().map(|(c, _)| &c[..]),
        };
        write_str(&result_json("copa_plan", &p, &v)?, buf, cap, out_len, "buf")
    }
}

/// Frees a result (NULL is a no-op). Any thread, once.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cfx_copa_result_free(result: *const cfx_copa_result) {
    ffi_boundary! {
        arc_free(result)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::ptr;

    fn toy() -> *const cfx_uncertainty {
        let mean = [-1.0, 2.0, 1.0];
        let cov = [0.5, 0.0, 0.0, 0.0, 0.2, 0.0, 0.0, 0.0, 0.3];
        let mut u = ptr::null();
        let st = unsafe { cfx_uncertainty_new(mean.as_ptr(), 3, cov.as_ptr(), 9, &mut u) };
        assert_eq!(st, cfx_status::Ok);
        u
    }

    #[test]
    fn one_option_lower_bound_is_cantelli() {
        let u = toy();
        let x = [0.8, 0.5];
        let (mut lo, mut up, mut ls, mut us) = (0.0, 0.0, -1, -1);
        let st = unsafe {
            cfx_copa_bounds(u, x.as_ptr(), 1, 2, 0.0, &mut lo, &mut up, &mut ls, &mut us)
        };
        assert_eq!(st, cfx_status::Ok);
        let mu: f64 = -1.0 + 2.0 * 0.8 + 0.5;
        let s2 = 0.5 + 0.2 * 0.64 + 0.3 * 0.25;
        assert!((lo - mu * mu / (mu * mu + s2)).abs() < 1e-5, "{lo}");
        assert_eq!(up, 1.0);
        assert_eq!(ls, cfx_copa_status::Optimal as i32);
        assert_eq!(us, cfx_copa_status::TrivialMeanInside as i32);
        assert_eq!(
            cfx_copa_status::from_i32(us),
            Some(cfx_copa_status::TrivialMeanInside)
        );
        assert_eq!(cfx_copa_status::from_i32(9), None);
        unsafe { cfx_uncertainty_free(u) };
    }

    #[test]
    fn misuse_is_refused_without_writing() {
        let u = toy();
        let x = [0.8, 0.5];
        let mut lo = 7.0;
        let st = unsafe {
            cfx_copa_bounds(
                u,
                x.as_ptr(),
                1,
                2,
                0.0,
                &mut lo,
                ptr::null_mut(),
                ptr::null_mut(),
                ptr::null_mut(),
            )
        };
        assert_eq!(st, cfx_status::NullArgument);
        assert_eq!(lo, 7.0);
        let mut up = 0.0;
        let st = unsafe {
            cfx_copa_bounds(
                u,
                [0.8, 0.5, 0.1].as_ptr(),
                1,
                3,
                0.0,
                &mut lo,
                &mut up,
                ptr::null_mut(),
                ptr::null_mut(),
            )
        };
        assert_eq!(st, cfx_status::DimensionMismatch);
        let st = unsafe {
            cfx_copa_bounds(
                u,
                x.as_ptr(),
                1,
                2,
                f64::NAN,
                &mut lo,
                &mut up,
                ptr::null_mut(),
                ptr::null_mut(),
            )
        };
        assert_eq!(st, cfx_status::InvalidArgument);
        assert_eq!(lo, 7.0);
        let bad = [1.0, 0.0];
        let mut v = ptr::null();
        let st = unsafe { cfx_uncertainty_new(bad.as_ptr(), 2, bad.as_ptr(), 2, &mut v) };
        assert_eq!(st, cfx_status::DimensionMismatch);
        assert!(v.is_null());
        unsafe { cfx_uncertainty_free(u) };
    }

    #[test]
    fn correction_does_not_lower_the_bound() {
        let u = toy();
        let x = [0.2, 0.1, 0.8, 0.5];
        let mut n = 0;
        let mut buf = [0.0; 4];
        let (mut before, mut after) = (f64::NAN, f64::NAN);
        let st = unsafe {
            cfx_copa_correct(
                u,
                x.as_ptr(),
                2,
                2,
                0.0,
                0.1,
                buf.as_mut_ptr(),
                4,
                &mut n,
                &mut before,
                &mut after,
            )
        };
        assert_eq!(st, cfx_status::Ok);
        assert_eq!(n, 4);
        assert_eq!(before, 0.0);
        assert!(after > before, "{after}");
        let st = unsafe {
            cfx_copa_correct(
                u,
                x.as_ptr(),
                2,
                2,
                0.0,
                0.1,
                ptr::null_mut(),
                0,
                &mut n,
                ptr::null_mut(),
                ptr::null_mut(),
            )
        };
        assert_eq!(st, cfx_status::BufferTooSmall);
        assert_eq!(n, 4);
        unsafe { cfx_uncertainty_free(u) };
    }

    /// The plan's JSON carries the reading of its bounds: the same L* and U*,
    /// a meaning that matches them, and r₀ = min_j x_jᵀμ̂/‖x_j‖ recomputed here
    /// from the JSON's own options.
    #[test]
    fn plan_json_carries_the_reading_of_its_bounds() {
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
        let sj = std::ffi::CString::new(
            std::fs::read_to_string(root.join("examples/c/data/applicant_schema.json")).unwrap(),
        )
        .unwrap();
        let mut schema = ptr::null();
        let mut n = 0usize;
        unsafe {
            assert_eq!(
                super::super::schema::cfx_schema_from_json(sj.as_ptr(), &mut schema),
                cfx_status::Ok
            );
            assert_eq!(
                super::super::schema::cfx_schema_encoded_dim(schema, &mut n),
                cfx_status::Ok
            );
        }
        let d = n + 1;
        let mut mean = vec![0.3; d];
        mean[0] = -1.0;
        let cov: Vec<f64> = (0..d * d)
            .map(|k| if k / d == k % d { 0.2 } else { 0.0 })
            .collect();
        let mut u = ptr::null();
        let raw = [30000.0, -7.0, 1.0, 30.0];
        let mut result = ptr::null();
        unsafe {
            assert_eq!(
                cfx_uncertainty_new(mean.as_ptr(), d, cov.as_ptr(), d * d, &mut u),
                cfx_status::Ok
            );
            assert_eq!(
                cfx_copa_plan_new(schema, u, ptr::null(), raw.as_ptr(), 4, &mut result),
                cfx_status::Ok
            );
        }
        let mut need = 0usize;
        let st = unsafe { cfx_copa_result_to_json(result, ptr::null_mut(), 0, &mut need) };
        assert_eq!(st, cfx_status::BufferTooSmall);
        let mut buf = vec![0 as c_char; need];
        let st = unsafe { cfx_copa_result_to_json(result, buf.as_mut_ptr(), need, &mut need) };
        assert_eq!(st, cfx_status::Ok);
        let text = unsafe { std::ffi::CStr::from_ptr(buf.as_ptr()) }
            .to_str()
            .unwrap()
            .to_string();
        let v: serde_json::Value = serde_json::from_str(&text).unwrap();
        let plan = &v["result"]["plan"];
        let reading = &v["result"]["bounds_reading"];
        let (lo, up) = (
            plan["lower"]["value"].as_f64().unwrap(),
            plan["upper"]["value"].as_f64().unwrap(),
        );
        assert_eq!(reading["lower"].as_f64(), Some(lo));
        assert_eq!(reading["upper"].as_f64(), Some(up));
        assert_eq!(reading["uncertain_parameters"].as_u64(), Some(d as u64));
        let want = match (lo <= 1e-6, up >= 1.0 - 1e-6) {
            (false, false) => "informative",
            (true, false) => "vacuous_lower",
            (false, true) => "vacuous_upper",
            (true, true) => "vacuous_both",
        };
        assert_eq!(reading["meaning"], want, "{text}");
        let words = reading["in_words"].as_str().unwrap();
        assert_eq!(words.is_empty(), want == "informative", "{words}");
        let r0 = plan["encoded"]
            .as_array()
            .unwrap()
            .iter()
            .map(|o| {
                let x: Vec<f64> = std::iter::once(1.0)
                    .chain(o.as_array().unwrap().iter().map(|v| v.as_f64().unwrap()))
                    .collect();
                let m: f64 = x.iter().zip(&mean).map(|(a, b)| a * b).sum();
                m / x.iter().map(|v| v * v).sum::<f64>().sqrt()
            })
            .fold(f64::INFINITY, f64::min);
        let got = reading["zero_radius"].as_f64().unwrap();
        assert!((got - r0).abs() < 1e-9 * (1.0 + r0.abs()), "{got} vs {r0}");
        unsafe {
            cfx_copa_result_free(result);
            cfx_uncertainty_free(u);
            super::super::schema::cfx_schema_free(schema);
        }
    }
}
