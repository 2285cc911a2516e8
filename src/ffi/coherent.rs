//! `cfx_coherent_result`: optimal coherent counterfactuals by mixed-integer
//! programming (Russell 2019, "Efficient search for diverse coherent explanations") — see [`crate::coherent`]. The result
//! is immutable and `Arc`-backed; the HiGHS instance lives only inside the
//! explain call.

use super::config::{
    SolverConfig, cfx_config, cfx_diversity_rule, cfx_solver_choice, robustness_of,
};
use super::export::{Provenance, result_json};
use super::handle::{
    ArcHandle, arc_clone, arc_free, arc_into_raw, arc_ref, finite_in, optional_out, out_param,
    write_optional, write_slice, write_str,
};
use super::model::cfx_model;
use super::schema::cfx_schema;
use super::status::{FfiError, FfiResult, cfx_status};
use crate::coherent::{
    Config, DiversityRule, Explanation, Outcome, ProvedBy, SolverChoice, explain, explain_batch,
    explain_diverse,
};
use crate::model::AnyModel;
use crate::schema::Schema;
use std::ffi::c_char;
use std::sync::Arc;

/// What the solver said (`int32_t` in C), read with `cfx_coherent_result_outcome`.
#[repr(i32)]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum cfx_coherent_outcome {
    /// Proven optimal within the configured MIP gap.
    Optimal = 0,
    /// The time limit stopped the search (a counterfactual is present when one was found).
    TimeLimit = 1,
    /// No counterfactual exists under the schema's constraints; the blocking
    /// constraint groups are given as a bit mask (1 immutables, 2 directions,
    /// 4 bounds, 8 forbidden transitions; 0 = no recourse even with all relaxed).
    Infeasible = 2,
    /// Any other solver outcome.
    Unknown = 3,
}

/// The explanation of one applicant. Thread-safe: may be read from many
/// threads at once and freed from any thread, exactly once, with
/// `cfx_coherent_result_free`.
pub struct cfx_coherent_result {
    _private: [u8; 0],
}

/// The Rust side of a result: the explanation and its inputs (for the JSON export).
pub struct CoherentResult {
    pub explanation: Explanation,
    pub(super) schema: Arc<Schema>,
    pub(super) model: Arc<AnyModel>,
}

unsafe impl ArcHandle for cfx_coherent_result {
    type Rust = CoherentResult;
}

/// The core configuration from the C configuration (NULL = every default).
pub(super) fn core_config(config: *const cfx_config) -> FfiResult<Config> {
    let mut c = Config::default();
    if config.is_null() {
        return Ok(c);
    }
    let s: &SolverConfig = arc_ref(config, "config")?;
    if let Some(v) = s.time_limit_seconds {
        c.time_limit_seconds = v;
    }
    if let Some(v) = s.threads {
        c.threads = v;
    }
    if let Some(v) = s.mip_gap {
        c.mip_gap = v;
    }
    if let Some(v) = s.margin {
        c.margin = v;
    }
    if let Some(v) = s.n_diverse {
        c.n_diverse = v;
    }
    if let Some(v) = s.solver {
        c.solver = match v {
            cfx_solver_choice::Auto => SolverChoice::Auto,
            cfx_solver_choice::Mip => SolverChoice::Mip,
            cfx_solver_choice::Separable => SolverChoice::Separable,
            cfx_solver_choice::TreeSearch => SolverChoice::TreeSearch,
        };
    }
    if let Some(v) = s.node_limit {
        c.node_limit = v;
    }
    if let Some(v) = s.mlp_bound_tightening {
        c.mlp_bound_tightening = v;
    }
    if let Some(r) = s.diversity_rule {
        c.diversity = match r {
            cfx_diversity_rule::RussellCode => DiversityRule::RussellReferenceCode,
            cfx_diversity_rule::RussellIntended => DiversityRule::Russell,
            cfx_diversity_rule::DistinctSubsets => DiversityRule::DistinctSubsets,
        };
    }
    if let Some(r) = robustness_of(s.robust_advice, s.robust_box) {
        c.robustness = Some(r);
    }
    c.validate()?;
    Ok(c)
}

fn run(
    schema: *const cfx_schema,
    model: *const cfx_model,
    config: *const cfx_config,
    row: *const f64,
    row_len: usize,
    out_result: *mut *const cfx_coherent_result,
    diverse: bool,
) -> FfiResult<()> {
    let out = out_param(out_result, "out_result")?;
    let s = arc_clone(schema, "schema")?;
    let m = arc_clone(model, "model")?;
    let row = finite_in(row, row_len, "row")?;
    let cfg = core_config(config)?;
    let explanation = if diverse {
        explain_diverse(&s, m.as_ref(), row, &cfg)?
    } else {
        explain(&s, m.as_ref(), row, &cfg)?
    };
    out.write(arc_into_raw(Arc::new(CoherentResult {
        explanation,
        schema: s,
        model: m,
    })));
    Ok(())
}

/// The optimal coherent counterfactual of a declined applicant (`row`: one raw
/// value per feature; categorical = level index) under a logistic model, a
/// scorecard, a tree ensemble or a ReLU network, or a proof that none exists.
/// `config` may be NULL (defaults: 10 s per solve, 1 thread, MIP gap 1e-9,
/// margin 1e-6). Errors: `INVALID_ARGUMENT` for an MLP with tanh or sigmoid
/// units, an applicant already accepted, or a bad configuration;
/// `DIMENSION_MISMATCH`; `INCOHERENT` for an incoherent row. Infeasibility and
/// time limits are outcomes, not errors. `*out_result` is owned by the caller.
/// Thread-safe (schema, model and config are only read).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cfx_coherent_explain(
    schema: *const cfx_schema,
    model: *const cfx_model,
    config: *const cfx_config,
    row: *const f64,
    row_len: usize,
    out_result: *mut *const cfx_coherent_result,
) -> cfx_status {
    ffi_boundary! { run(schema, model, config, row, row_len, out_result, false) }
}

/// The optimal counterfactual followed by up to `n_diverse − 1` diverse
/// alternatives (configuration: `cfx_config_builder_set_n_diverse`, default 5,
/// and `cfx_config_builder_set_diversity_rule`, default Russell's procedure
/// with rule (b) read as intended). Otherwise as `cfx_coherent_explain`.
/// Thread-safe.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cfx_coherent_explain_diverse(
    schema: *const cfx_schema,
    model: *const cfx_model,
    config: *const cfx_config,
    row: *const f64,
    row_len: usize,
    out_result: *mut *const cfx_coherent_result,
) -> cfx_status {
    ffi_boundary! { run(schema, model, config, row, row_len, out_result, true) }
}

/// The solver outcome (a `cfx_coherent_outcome` value) and, optionally (NULL =
/// not wanted), the bit mask of blocking constraint groups of an infeasible
/// outcome (0 otherwise). Thread-safe.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cfx_coherent_result_outcome(
    result: *const cfx_coherent_result,
    out_outcome: *mut i32,
    out_blocking_mask: *mut u32,
) -> cfx_status {
    ffi_boundary! {
        let out = out_param(out_outcome, "out_outcome")?;
        let r = arc_ref(result, "result")?;
        let o = &r.explanation.outcome;
        let code = match o {
            Outcome::Optimal => cfx_coherent_outcome::Optimal,
            Outcome::TimeLimit { .. } => cfx_coherent_outcome::TimeLimit,
            Outcome::Infeasible { .. } => cfx_coherent_outcome::Infeasible,
            Outcome::Unknown { .. } => cfx_coherent_outcome::Unknown,
        };
        if let Some(m) = optional_out(out_blocking_mask) {
            m.write(o.blocking_mask());
        }
        out.write(code as i32);
        Ok(())
    }
}

/// Which solver proved the result (`int32_t` in C), read with
/// `cfx_coherent_result_proved_by`.
#[repr(i32)]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum cfx_proved_by {
    /// HiGHS on the mixed-integer program (Russell 2019).
    Highs = 0,
    /// The exact separable branch and bound (a multiple-choice knapsack over
    /// per-feature options), for linear models and scorecards.
    Separable = 1,
    /// The exact best-first search over tree ensembles' split cells.
    TreeSearch = 2,
}

/// The solver that proved the result, optimum or infeasibility (a
/// `cfx_proved_by` value); choose it with `cfx_config_builder_set_solver`.
/// Thread-safe.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cfx_coherent_result_proved_by(
    result: *const cfx_coherent_result,
    out_proved_by: *mut i32,
) -> cfx_status {
    ffi_boundary! {
        let out = out_param(out_proved_by, "out_proved_by")?;
        out.write(match arc_ref(result, "result")?.explanation.proved_by {
            ProvedBy::Highs => cfx_proved_by::Highs,
            ProvedBy::Separable => cfx_proved_by::Separable,
            ProvedBy::TreeSearch => cfx_proved_by::TreeSearch,
        } as i32);
        Ok(())
    }
}

/// The number of counterfactuals in the result (0 when there is none).
/// Thread-safe.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cfx_coherent_result_count(
    result: *const cfx_coherent_result,
    out_count: *mut usize,
) -> cfx_status {
    ffi_boundary! {
        let out = out_param(out_count, "out_count")?;
        out.write(arc_ref(result, "result")?.explanation.counterfactuals.len());
        Ok(())
    }
}

fn counterfactual(r: &CoherentResult, k: usize) -> FfiResult<&crate::coherent::Counterfactual> {
    let n = r.explanation.counterfactuals.len();
    r.explanation.counterfactuals.get(k).ok_or_else(|| {
        FfiError::new(
            cfx_status::NotFound,
            format!("counterfactual {k} does not exist (the result has {n})"),
        )
    })
}

/// The raw row of counterfactual `k` (0 = the optimal one) into `buf`
/// (array buffer protocol; one value per feature). `NOT_FOUND` when `k` is out
/// of range. Thread-safe.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cfx_coherent_result_counterfactual(
    result: *const cfx_coherent_result,
    k: usize,
    buf: *mut f64,
    cap: usize,
    out_len: *mut usize,
) -> cfx_status {
    ffi_boundary! {
        let r = arc_ref(result, "result")?;
        write_slice(&counterfactual(r, k)?.raw, buf, cap, out_len, "buf")
    }
}

/// The certificate of counterfactual `k`: weighted L1 cost (Russell 2019, eq. 16),
/// model score and probability, HiGHS objective value, relative MIP gap, and
/// wall-clock solve seconds. Every out-parameter is optional (NULL = not
/// wanted). `NOT_FOUND` when `k` is out of range. Thread-safe.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cfx_coherent_result_certificate(
    result: *const cfx_coherent_result,
    k: usize,
    out_cost: *mut f64,
    out_score: *mut f64,
    out_probability: *mut f64,
    out_objective: *mut f64,
    out_mip_gap: *mut f64,
    out_solve_seconds: *mut f64,
) -> cfx_status {
    ffi_boundary! {
        let r = arc_ref(result, "result")?;
        let cf = counterfactual(r, k)?;
        write_optional([
            (out_cost, cf.cost),
            (out_score, cf.score),
            (out_probability, cf.probability),
            (out_objective, cf.objective),
            (out_mip_gap, cf.mip_gap),
            (out_solve_seconds, cf.solve_seconds),
        ]);
        Ok(())
    }
}

/// The invalidation rate Γ of counterfactual `k` under the robust-advice
/// noise (`cfx_config_builder_set_robust_advice`): exact under a logistic
/// model, at most its target; under a tree ensemble the Monte Carlo estimate
/// Γ̃ (10,000 samples, fixed seed) of a Γ proven at most the target; NaN
/// when the result was computed without robust advice. `NOT_FOUND` when `k`
/// is out of range. Thread-safe.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cfx_coherent_result_invalidation_rate(
    result: *const cfx_coherent_result,
    k: usize,
    out_rate: *mut f64,
) -> cfx_status {
    ffi_boundary! {
        let out = out_param(out_rate, "out_rate")?;
        let r = arc_ref(result, "result")?;
        out.write(counterfactual(r, k)?.invalidation_rate.unwrap_or(f64::NAN));
        Ok(())
    }
}

/// The explanation in plain words, one line per counterfactual, e.g.
/// `optimal (cost 1.687, probability 0.503): MSinceMostRecentInqexcl7days: 0 → 12`
/// (string buffer protocol). Thread-safe.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cfx_coherent_result_describe(
    result: *const cfx_coherent_result,
    buf: *mut c_char,
    cap: usize,
    out_len: *mut usize,
) -> cfx_status {
    ffi_boundary! {
        let r = arc_ref(result, "result")?;
        write_str(&r.explanation.to_text(), buf, cap, out_len, "buf")
    }
}

/// An explanation as JSON without its solve times, so the exported bytes
/// depend only on the inputs.
fn explanation_json(e: &Explanation) -> crate::Result<serde_json::Value> {
    let mut v = serde_json::to_value(e).map_err(crate::Error::from)?;
    if let Some(cfs) = v.get_mut("counterfactuals").and_then(|c| c.as_array_mut()) {
        for cf in cfs {
            if let Some(o) = cf.as_object_mut() {
                o.remove("solve_seconds");
            }
        }
    }
    Ok(v)
}

/// An explanation as the versioned JSON `cfx_coherent_result_to_json` writes,
/// for the Rust front ends (the `cfx` command line's `explain --json`) that
/// must write the same bytes as every binding.
pub fn coherent_result_json(
    explanation: &Explanation,
    schema: &Schema,
    model: &AnyModel,
) -> crate::Result<String> {
    let v = explanation_json(explanation)?;
    let p = Provenance {
        schema: Some(schema),
        model: Some(model),
        ..Default::default()
    };
    result_json("coherent", &p, &v)
}

/// The result as versioned JSON (kind `"coherent"`; string buffer protocol).
/// Solve times are left out so the bytes depend only on the inputs; read them
/// with `cfx_coherent_result_certificate`. Thread-safe.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cfx_coherent_result_to_json(
    result: *const cfx_coherent_result,
    buf: *mut c_char,
    cap: usize,
    out_len: *mut usize,
) -> cfx_status {
    ffi_boundary! {
        let r = arc_ref(result, "result")?;
        let json = coherent_result_json(&r.explanation, &r.schema, &r.model)?;
        write_str(&json, buf, cap, out_len, "buf")
    }
}

/// Releases a result. NULL is a no-op. Any thread, once.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cfx_coherent_result_free(result: *const cfx_coherent_result) {
    ffi_boundary! { arc_free(result) }
}

/// The explanations of many applicants, in input order: each applicant has a
/// status (`CFX_STATUS_OK` when it was explained) and, when explained, a
/// `cfx_coherent_result`. Thread-safe: may be read from many threads at once
/// and freed from any thread, exactly once, with `cfx_coherent_batch_free`.
pub struct cfx_coherent_batch {
    _private: [u8; 0],
}

/// The Rust side of a batch: one explained result or refusal per applicant.
pub struct CoherentBatch {
    entries: Vec<FfiResult<Arc<CoherentResult>>>,
    schema: Arc<Schema>,
    model: Arc<AnyModel>,
}

unsafe impl ArcHandle for cfx_coherent_batch {
    type Rust = CoherentBatch;
}

/// The optimal coherent counterfactual of each of `n_rows` applicants
/// (`rows`: `n_rows × n_features` raw values, row-major; `rows_len` must equal
/// `n_rows × n_features`, else `DIMENSION_MISMATCH`; NULL only with
/// `n_rows == 0`, which gives an empty batch). The configuration's thread count
/// (`cfx_config_builder_set_threads`, default 1) is the number of applicants
/// solved at once; each solve uses one HiGHS thread, so applicant `i`'s answer
/// equals `cfx_coherent_explain` of row `i` with one thread, whatever the
/// count. An applicant that cannot be explained (already accepted, incoherent)
/// does not fail the call: its status and message are read with
/// `cfx_coherent_batch_status`/`cfx_coherent_batch_error`. Errors of the call
/// itself: `NULL_ARGUMENT`, `DIMENSION_MISMATCH`, `INVALID_ARGUMENT` (a NaN or
/// infinite value, an MLP with tanh or sigmoid units, a bad configuration). `*out_batch` is owned by
/// the caller. Thread-safe (schema, model and config are only read).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cfx_coherent_explain_batch(
    schema: *const cfx_schema,
    model: *const cfx_model,
    config: *const cfx_config,
    rows: *const f64,
    rows_len: usize,
    n_rows: usize,
    out_batch: *mut *const cfx_coherent_batch,
) -> cfx_status {
    ffi_boundary! {
        let out = out_param(out_batch, "out_batch")?;
        let s = arc_clone(schema, "schema")?;
        let m = arc_clone(model, "model")?;
        let d = s.n_features();
        let len = n_rows
            .checked_mul(d)
            .ok_or_else(|| FfiError::invalid("n_rows × n_features overflows"))?;
        crate::error::check_len("rows_len (n_rows × n_features)", len, rows_len)?;
        let data = finite_in(rows, rows_len, "rows")?;
        let mut cfg = core_config(config)?;
        cfg.batch_threads = cfg.threads;
        cfg.threads = 1;
        let rows: Vec<Vec<f64>> = data.chunks(d.max(1)).map(<[f64]>::to_vec).collect();
        // The scoped workers run under one coordinating thread: `thread::scope`
        // on the caller's thread would make std allocate a `Thread` record for
        // it that is never freed when that thread is a C main thread (valgrind
        // reports it as possibly lost). A panic in there is re-raised here, where
        // the boundary turns it into CFX_STATUS_PANIC.
        let explained = {
            let (s, m) = (s.clone(), m.clone());
            std::thread::Builder::new()
                .spawn(move || explain_batch(&s, m.as_ref(), &rows, &cfg, false))
                .map_err(|e| {
                    FfiError::new(cfx_status::SolverError, format!("cannot start a thread: {e}"))
                })?
                .join()
                .unwrap_or_else(|p| std::panic::resume_unwind(p))?
        };
        let entries = explained
            .into_iter()
            .map(|e| {
                e.map(|explanation| {
                    Arc::new(CoherentResult {
                        explanation,
                        schema: s.clone(),
                        model: m.clone(),
                    })
                })
                .map_err(FfiError::from)
            })
            .collect();
        out.write(arc_into_raw(Arc::new(CoherentBatch {
            entries,
            schema: s,
            model: m,
        })));
        Ok(())
    }
}

fn entry(b: &CoherentBatch, i: usize) -> FfiResult<&FfiResult<Arc<CoherentResult>>> {
    let n = b.entries.len();
    b.entries.get(i).ok_or_else(|| {
        FfiError::new(
            cfx_status::NotFound,
            format!("applicant {i} does not exist (the batch has {n})"),
        )
    })
}

/// The number of applicants in the batch (`n_rows` of the call). Thread-safe.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cfx_coherent_batch_count(
    batch: *const cfx_coherent_batch,
    out_count: *mut usize,
) -> cfx_status {
    ffi_boundary! {
        let out = out_param(out_count, "out_count")?;
        out.write(arc_ref(batch, "batch")?.entries.len());
        Ok(())
    }
}

/// The status of applicant `i` (a `cfx_status` value: `CFX_STATUS_OK` when it
/// was explained, else why not, e.g. `CFX_STATUS_INVALID_ARGUMENT` for an
/// applicant already accepted). `NOT_FOUND` when `i` is out of range.
/// Thread-safe.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cfx_coherent_batch_status(
    batch: *const cfx_coherent_batch,
    i: usize,
    out_status: *mut i32,
) -> cfx_status {
    ffi_boundary! {
        let out = out_param(out_status, "out_status")?;
        let e = entry(arc_ref(batch, "batch")?, i)?;
        out.write(match e {
            Ok(_) => cfx_status::Ok,
            Err(f) => f.status,
        } as i32);
        Ok(())
    }
}

/// Why applicant `i` was not explained (empty when it was; string buffer
/// protocol). `NOT_FOUND` when `i` is out of range. Thread-safe.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cfx_coherent_batch_error(
    batch: *const cfx_coherent_batch,
    i: usize,
    buf: *mut c_char,
    cap: usize,
    out_len: *mut usize,
) -> cfx_status {
    ffi_boundary! {
        let e = entry(arc_ref(batch, "batch")?, i)?;
        let msg = e.as_ref().err().map_or("", |f| f.message.as_str());
        write_str(msg, buf, cap, out_len, "buf")
    }
}

/// The result of applicant `i` as a `cfx_coherent_result` (read it with the
/// `cfx_coherent_result_*` functions; `*out_result` is a new reference owned by
/// the caller, free it with `cfx_coherent_result_free`; the batch may be freed
/// first). When the applicant was not explained, returns its status with its
/// message as the last error; `NOT_FOUND` when `i` is out of range.
/// Thread-safe.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cfx_coherent_batch_result(
    batch: *const cfx_coherent_batch,
    i: usize,
    out_result: *mut *const cfx_coherent_result,
) -> cfx_status {
    ffi_boundary! {
        let out = out_param(out_result, "out_result")?;
        match entry(arc_ref(batch, "batch")?, i)? {
            Ok(r) => {
                out.write(arc_into_raw(r.clone()));
                Ok(())
            }
            Err(f) => Err(FfiError::new(f.status, format!("applicant {i}: {}", f.message))),
        }
    }
}

/// One applicant of a batch in the JSON export.
#[derive(serde::Serialize)]
struct BatchEntryJson<'a> {
    status: &'a str,
    error: Option<&'a str>,
    explanation: Option<serde_json::Value>,
}

/// The batch as versioned JSON (kind `"coherent_batch"`; string buffer
/// protocol): `result.applicants` lists, in input order, each applicant's
/// status name, error message (null when explained) and explanation (as in
/// `cfx_coherent_result_to_json`, without solve times; null when not
/// explained). Thread-safe.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cfx_coherent_batch_to_json(
    batch: *const cfx_coherent_batch,
    buf: *mut c_char,
    cap: usize,
    out_len: *mut usize,
) -> cfx_status {
    ffi_boundary! {
        let b = arc_ref(batch, "batch")?;
        let mut applicants = Vec::with_capacity(b.entries.len());
        for e in &b.entries {
            applicants.push(match e {
                Ok(r) => BatchEntryJson {
                    status: "CFX_STATUS_OK",
                    error: None,
                    explanation: Some(explanation_json(&r.explanation)?),
                },
                Err(f) => BatchEntryJson {
                    status: f.status.name().to_str().unwrap_or("CFX_STATUS_UNKNOWN"),
                    error: Some(&f.message),
                    explanation: None,
                },
            });
        }
        let p = Provenance {
            schema: Some(&b.schema),
            model: Some(&b.model),
            ..Default::default()
        };
        let v = serde_json::json!({ "applicants": applicants });
        write_str(&result_json("coherent_batch", &p, &v)?, buf, cap, out_len, "buf")
    }
}

/// Releases a batch. Results taken from it with `cfx_coherent_batch_result`
/// stay valid. NULL is a no-op. Any thread, once.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cfx_coherent_batch_free(batch: *const cfx_coherent_batch) {
    ffi_boundary! { arc_free(batch) }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::LinearModel;
    use crate::schema::Feature;

    fn inputs() -> (*const cfx_schema, *const cfx_model) {
        let s = Schema::new(vec![
            Feature::contiguous("income", 0.0, 100.0),
            Feature::contiguous("age", 18.0, 80.0).integer().immutable(),
        ])
        .unwrap();
        let m = LinearModel::new(vec![4.0, 3.0], -3.0, 0.5).unwrap();
        (
            arc_into_raw::<cfx_schema>(Arc::new(s)),
            arc_into_raw::<cfx_model>(Arc::new(AnyModel::Linear(m))),
        )
    }

    #[test]
    fn explain_through_the_c_abi_matches_the_core() {
        let (s, m) = inputs();
        unsafe {
            let row = [20.0, 30.0];
            let mut r = std::ptr::null();
            assert_eq!(
                cfx_coherent_explain(s, m, std::ptr::null(), row.as_ptr(), 2, &mut r),
                cfx_status::Ok
            );
            let (mut o, mut mask) = (-1, 99);
            assert_eq!(
                cfx_coherent_result_outcome(r, &mut o, &mut mask),
                cfx_status::Ok
            );
            assert_eq!((o, mask), (0, 0));
            let mut n = 0;
            assert_eq!(cfx_coherent_result_count(r, &mut n), cfx_status::Ok);
            assert_eq!(n, 1);
            let mut out = [0.0; 2];
            assert_eq!(
                cfx_coherent_result_counterfactual(r, 0, out.as_mut_ptr(), 2, &mut n),
                cfx_status::Ok
            );
            // 4·slot + 3·(12/62) − 3 ≥ 1e-6 → income slot ≥ 0.6048…
            let core = explain(
                arc_ref(s, "s").unwrap(),
                arc_ref(m, "m").unwrap(),
                &row,
                &Config::default(),
            )
            .unwrap();
            assert_eq!(out.to_vec(), core.counterfactuals[0].raw);
            let mut cost = f64::NAN;
            assert_eq!(
                cfx_coherent_result_certificate(
                    r,
                    0,
                    &mut cost,
                    std::ptr::null_mut(),
                    std::ptr::null_mut(),
                    std::ptr::null_mut(),
                    std::ptr::null_mut(),
                    std::ptr::null_mut()
                ),
                cfx_status::Ok
            );
            assert_eq!(cost, core.counterfactuals[0].cost);
            assert_eq!(
                cfx_coherent_result_counterfactual(r, 1, out.as_mut_ptr(), 2, &mut n),
                cfx_status::NotFound
            );
            cfx_coherent_result_free(r);
            // An accepted applicant is an error, a NaN row too.
            let rich = [90.0, 30.0];
            assert_eq!(
                cfx_coherent_explain(s, m, std::ptr::null(), rich.as_ptr(), 2, &mut r),
                cfx_status::InvalidArgument
            );
            let nan = [f64::NAN, 30.0];
            assert_eq!(
                cfx_coherent_explain(s, m, std::ptr::null(), nan.as_ptr(), 2, &mut r),
                cfx_status::InvalidArgument
            );
            arc_free(s);
            arc_free(m);
        }
    }

    /// Robust advice through the C builder: the answer sits where the closed
    /// form puts it (income slot s with 4s + 3·12/62 − 3 = 0.1·4·Φ⁻¹(0.9) +
    /// 1e-6, income the only noisy column), its Γ is the target, and a bad
    /// target is refused by the setter.
    #[test]
    fn robust_advice_through_the_c_abi_meets_its_target() {
        use super::super::config::{
            cfx_config_build, cfx_config_builder_new, cfx_config_builder_set_robust_advice,
            cfx_config_free,
        };
        let (s, m) = inputs();
        unsafe {
            let mut b = std::ptr::null_mut();
            assert_eq!(cfx_config_builder_new(&mut b), cfx_status::Ok);
            for (s2, t) in [(0.01, 0.0), (0.01, 1.0), (-0.1, 0.1), (0.01, f64::NAN)] {
                assert_eq!(
                    cfx_config_builder_set_robust_advice(b, s2, t),
                    cfx_status::InvalidArgument
                );
            }
            assert_eq!(
                cfx_config_builder_set_robust_advice(b, 0.01, 0.1),
                cfx_status::Ok
            );
            let mut c = std::ptr::null();
            assert_eq!(cfx_config_build(b, &mut c), cfx_status::Ok);
            let row = [20.0, 30.0];
            let mut r = std::ptr::null();
            assert_eq!(
                cfx_coherent_explain(s, m, c, row.as_ptr(), 2, &mut r),
                cfx_status::Ok
            );
            let mut out = [0.0; 2];
            let mut n = 0;
            assert_eq!(
                cfx_coherent_result_counterfactual(r, 0, out.as_mut_ptr(), 2, &mut n),
                cfx_status::Ok
            );
            let z = 1.281_551_565_544_600_4; // Φ⁻¹(0.9)
            let slot = (0.1 * 4.0 * z + 1e-6 + 3.0 - 3.0 * 12.0 / 62.0) / 4.0;
            assert!(
                (out[0] - 100.0 * slot).abs() < 1e-6,
                "{out:?} vs {}",
                100.0 * slot
            );
            let mut gamma = f64::NAN;
            assert_eq!(
                cfx_coherent_result_invalidation_rate(r, 0, &mut gamma),
                cfx_status::Ok
            );
            assert!(gamma <= 0.1 && gamma > 0.1 - 1e-5, "Γ = {gamma}");
            assert_eq!(
                cfx_coherent_result_invalidation_rate(r, 1, &mut gamma),
                cfx_status::NotFound
            );
            let mut text = vec![0 as c_char; 1024];
            assert_eq!(
                cfx_coherent_result_describe(r, text.as_mut_ptr(), 1024, &mut n),
                cfx_status::Ok
            );
            let text = std::ffi::CStr::from_ptr(text.as_ptr()).to_str().unwrap();
            assert!(
                text.contains("robust to slips (σ² = 0.01, ≤ 10% declined), proven optimal"),
                "{text}"
            );
            cfx_coherent_result_free(r);
            // Without robust advice the rate is NaN.
            assert_eq!(
                cfx_coherent_explain(s, m, std::ptr::null(), row.as_ptr(), 2, &mut r),
                cfx_status::Ok
            );
            assert_eq!(
                cfx_coherent_result_invalidation_rate(r, 0, &mut gamma),
                cfx_status::Ok
            );
            assert!(gamma.is_nan());
            cfx_coherent_result_free(r);
            cfx_config_free(c);
            arc_free(s);
            arc_free(m);
        }
    }

    /// Robust advice on a tree ensemble through the C builder's one robust
    /// setting: the stump's closed form (`coherent::tree_box_tests`): balance
    /// 53 where plain advice says 51, Γ̃ near Φ(−2.5); the MIP solver refuses it.
    #[test]
    fn robust_tree_advice_through_the_c_abi_is_the_closed_form() {
        use super::super::config::{
            cfx_config_build, cfx_config_builder_new, cfx_config_builder_set_robust_advice,
            cfx_config_builder_set_solver, cfx_config_free,
        };
        let (schema, ens) = crate::coherent::tree_box_tests::stump();
        let s = arc_into_raw::<cfx_schema>(Arc::new(schema));
        let m = arc_into_raw::<cfx_model>(Arc::new(AnyModel::Trees(ens)));
        unsafe {
            let mut b = std::ptr::null_mut();
            assert_eq!(cfx_config_builder_new(&mut b), cfx_status::Ok);
            assert_eq!(
                cfx_config_builder_set_robust_advice(b, 1e-4, 0.1),
                cfx_status::Ok
            );
            let mut c = std::ptr::null();
            assert_eq!(cfx_config_build(b, &mut c), cfx_status::Ok);
            let row = [10.0, 30.0];
            let mut r = std::ptr::null();
            assert_eq!(
                cfx_coherent_explain(s, m, c, row.as_ptr(), 2, &mut r),
                cfx_status::Ok
            );
            let mut out = [0.0; 2];
            let mut n = 0;
            assert_eq!(
                cfx_coherent_result_counterfactual(r, 0, out.as_mut_ptr(), 2, &mut n),
                cfx_status::Ok
            );
            assert_eq!(out, [53.0, 30.0]);
            let mut gamma = f64::NAN;
            assert_eq!(
                cfx_coherent_result_invalidation_rate(r, 0, &mut gamma),
                cfx_status::Ok
            );
            let want = crate::noise::normal_cdf(-2.5);
            assert!((gamma - want).abs() < 0.004, "Γ̃ = {gamma}");
            cfx_coherent_result_free(r);
            cfx_config_free(c);
            // The MIP solver cannot prove a box: a readable refusal.
            let mut b = std::ptr::null_mut();
            assert_eq!(cfx_config_builder_new(&mut b), cfx_status::Ok);
            assert_eq!(
                cfx_config_builder_set_robust_advice(b, 1e-4, 0.1),
                cfx_status::Ok
            );
            assert_eq!(
                cfx_config_builder_set_solver(b, cfx_solver_choice::Mip as i32),
                cfx_status::Ok
            );
            let mut c = std::ptr::null();
            assert_eq!(cfx_config_build(b, &mut c), cfx_status::Ok);
            assert_eq!(
                cfx_coherent_explain(s, m, c, row.as_ptr(), 2, &mut r),
                cfx_status::InvalidArgument
            );
            assert!(
                super::super::error::last_error()
                    .unwrap()
                    .contains("tree search")
            );
            cfx_config_free(c);
            arc_free(s);
            arc_free(m);
        }
    }

    /// The box of reachable values through the C builder
    /// (`cfx_config_builder_set_robust_box`), on the stump of
    /// `coherent::tree_box_reach_tests::clipped_stump`: over the reals no
    /// balance is robust, over reachable values 100 is (its slips clipped at
    /// the range's bound); an unknown box is refused with a readable error.
    #[test]
    fn reachable_values_through_the_c_abi_clip_at_the_range() {
        use super::super::config::{
            cfx_config_build, cfx_config_builder_free, cfx_config_builder_new,
            cfx_config_builder_set_robust_advice, cfx_config_builder_set_robust_box,
            cfx_config_free, cfx_robust_box,
        };
        let (schema, ens) = crate::coherent::tree_box_reach_tests::clipped_stump();
        let s = arc_into_raw::<cfx_schema>(Arc::new(schema));
        let m = arc_into_raw::<cfx_model>(Arc::new(AnyModel::Trees(ens)));
        let row = [10.0, 30.0];
        unsafe {
            let explain = |kind: cfx_robust_box| {
                let mut b = std::ptr::null_mut();
                assert_eq!(cfx_config_builder_new(&mut b), cfx_status::Ok);
                assert_eq!(
                    cfx_config_builder_set_robust_advice(b, 1e-4, 0.1),
                    cfx_status::Ok
                );
                assert_eq!(
                    cfx_config_builder_set_robust_box(b, kind as i32),
                    cfx_status::Ok
                );
                let mut c = std::ptr::null();
                assert_eq!(cfx_config_build(b, &mut c), cfx_status::Ok);
                let mut r = std::ptr::null();
                assert_eq!(
                    cfx_coherent_explain(s, m, c, row.as_ptr(), 2, &mut r),
                    cfx_status::Ok
                );
                cfx_config_free(c);
                let mut out = [0.0; 2];
                let mut n = 0;
                let st = cfx_coherent_result_counterfactual(r, 0, out.as_mut_ptr(), 2, &mut n);
                let text = json_of(r);
                cfx_coherent_result_free(r);
                (st, out, text)
            };
            let (st, _, _) = explain(cfx_robust_box::Reals);
            assert_ne!(st, cfx_status::Ok, "over the reals no balance is robust");
            let (st, out, text) = explain(cfx_robust_box::ReachableValues);
            assert_eq!(st, cfx_status::Ok);
            assert_eq!(out, [100.0, 30.0]);
            assert!(text.contains("reachable_values"), "{text}");
            let mut b = std::ptr::null_mut();
            assert_eq!(cfx_config_builder_new(&mut b), cfx_status::Ok);
            assert_eq!(
                cfx_config_builder_set_robust_box(b, 7),
                cfx_status::InvalidArgument
            );
            assert!(
                super::super::error::last_error()
                    .unwrap()
                    .contains("box_kind")
            );
            cfx_config_builder_free(b);
            arc_free(s);
            arc_free(m);
        }
    }

    /// A configuration with `threads` solver threads, through the C builder.
    fn threads_config(threads: usize) -> *const cfx_config {
        use super::super::config::{
            cfx_config_build, cfx_config_builder_new, cfx_config_builder_set_threads,
        };
        let mut b = std::ptr::null_mut();
        let mut c = std::ptr::null();
        unsafe {
            assert_eq!(cfx_config_builder_new(&mut b), cfx_status::Ok);
            assert_eq!(cfx_config_builder_set_threads(b, threads), cfx_status::Ok);
            assert_eq!(cfx_config_build(b, &mut c), cfx_status::Ok);
        }
        c
    }

    fn json_of(r: *const cfx_coherent_result) -> String {
        let mut n = 0;
        let mut buf = vec![0 as c_char; 1 << 16];
        unsafe {
            assert_eq!(
                cfx_coherent_result_to_json(r, buf.as_mut_ptr(), buf.len(), &mut n),
                cfx_status::Ok
            );
            std::ffi::CStr::from_ptr(buf.as_ptr())
                .to_str()
                .unwrap()
                .to_string()
        }
    }

    #[test]
    fn batch_equals_the_single_applicant_call_for_every_row() {
        let (s, m) = inputs();
        // Row 2 is already accepted: its status is INVALID_ARGUMENT, the others are explained.
        let rows = [20.0, 30.0, 0.0, 18.0, 90.0, 30.0, 30.0, 50.0, 5.0, 60.0];
        for threads in [1, 2, 3] {
            let c = threads_config(threads);
            unsafe {
                let mut b = std::ptr::null();
                assert_eq!(
                    cfx_coherent_explain_batch(s, m, c, rows.as_ptr(), 10, 5, &mut b),
                    cfx_status::Ok
                );
                let mut n = 0;
                assert_eq!(cfx_coherent_batch_count(b, &mut n), cfx_status::Ok);
                assert_eq!(n, 5);
                for (i, row) in rows.chunks(2).enumerate() {
                    let mut single = std::ptr::null();
                    let st1 =
                        cfx_coherent_explain(s, m, std::ptr::null(), row.as_ptr(), 2, &mut single);
                    let mut st = -1;
                    assert_eq!(cfx_coherent_batch_status(b, i, &mut st), cfx_status::Ok);
                    assert_eq!(st, st1 as i32, "applicant {i}");
                    let mut r = std::ptr::null();
                    let st2 = cfx_coherent_batch_result(b, i, &mut r);
                    assert_eq!(st2, st1, "applicant {i}");
                    let last = crate::ffi::error::last_error();
                    let mut len = 0;
                    let mut msg = vec![0 as c_char; 512];
                    assert_eq!(
                        cfx_coherent_batch_error(b, i, msg.as_mut_ptr(), 512, &mut len),
                        cfx_status::Ok
                    );
                    if st1 == cfx_status::Ok {
                        assert_eq!(len, 1, "empty message");
                        assert_eq!(json_of(r), json_of(single), "applicant {i}");
                        for k in 0..2 {
                            let (mut a, mut z) = (f64::NAN, f64::NAN);
                            let null = std::ptr::null_mut();
                            let ca = cfx_coherent_result_certificate(
                                r, k, &mut a, null, null, null, null, null,
                            );
                            let cz = cfx_coherent_result_certificate(
                                single, k, &mut z, null, null, null, null, null,
                            );
                            assert_eq!(ca, cz);
                            assert_eq!(a.to_bits(), z.to_bits());
                        }
                        cfx_coherent_result_free(r);
                        cfx_coherent_result_free(single);
                    } else {
                        assert!(r.is_null());
                        assert_eq!(i, 2);
                        assert!(len > 1);
                        let text = std::ffi::CStr::from_ptr(msg.as_ptr()).to_str().unwrap();
                        assert_eq!(last.unwrap(), format!("applicant 2: {text}"));
                    }
                }
                assert_eq!(
                    cfx_coherent_batch_status(b, 5, &mut 0),
                    cfx_status::NotFound
                );
                let mut len = 0;
                assert_eq!(
                    cfx_coherent_batch_to_json(b, std::ptr::null_mut(), 0, &mut len),
                    cfx_status::BufferTooSmall
                );
                let mut buf = vec![0 as c_char; len];
                assert_eq!(
                    cfx_coherent_batch_to_json(b, buf.as_mut_ptr(), len, &mut len),
                    cfx_status::Ok
                );
                let text = std::ffi::CStr::from_ptr(buf.as_ptr()).to_str().unwrap();
                let v: serde_json::Value = serde_json::from_str(text).unwrap();
                assert_eq!(v["kind"], "coherent_batch");
                let a = v["result"]["applicants"].as_array().unwrap();
                assert_eq!(a.len(), 5);
                assert_eq!(a[0]["status"], "CFX_STATUS_OK");
                assert_eq!(a[2]["status"], "CFX_STATUS_INVALID_ARGUMENT");
                assert!(a[2]["explanation"].is_null());
                assert!(
                    a[0]["explanation"]["counterfactuals"][0]
                        .get("solve_seconds")
                        .is_none()
                );
                cfx_coherent_batch_free(b);
                super::super::config::cfx_config_free(c);
            }
        }
        arc_free(s);
        arc_free(m);
    }

    #[test]
    fn batch_misuse_is_refused_without_writing() {
        let (s, m) = inputs();
        let null = std::ptr::null();
        let sentinel = 0x10 as *const cfx_coherent_batch;
        unsafe {
            let mut b = sentinel;
            // NULL rows with n > 0.
            assert_eq!(
                cfx_coherent_explain_batch(s, m, null, std::ptr::null(), 4, 2, &mut b),
                cfx_status::NullArgument
            );
            assert_eq!(b, sentinel);
            // Wrong length (n·d = 4).
            let rows = [20.0, 30.0, 10.0, 40.0, 1.0];
            for len in [3, 5, 0] {
                assert_eq!(
                    cfx_coherent_explain_batch(s, m, null, rows.as_ptr(), len, 2, &mut b),
                    cfx_status::DimensionMismatch
                );
            }
            assert_eq!(b, sentinel);
            // Overflowing n.
            assert_eq!(
                cfx_coherent_explain_batch(s, m, null, rows.as_ptr(), 4, usize::MAX, &mut b),
                cfx_status::InvalidArgument
            );
            // NaN anywhere refuses the whole call.
            let nan = [20.0, 30.0, 10.0, f64::NAN];
            assert_eq!(
                cfx_coherent_explain_batch(s, m, null, nan.as_ptr(), 4, 2, &mut b),
                cfx_status::InvalidArgument
            );
            assert_eq!(b, sentinel);
            // NULL handles and out-parameter.
            assert_eq!(
                cfx_coherent_explain_batch(std::ptr::null(), m, null, rows.as_ptr(), 4, 2, &mut b),
                cfx_status::NullArgument
            );
            assert_eq!(
                cfx_coherent_explain_batch(s, m, null, rows.as_ptr(), 4, 2, std::ptr::null_mut()),
                cfx_status::NullArgument
            );
            assert_eq!(b, sentinel);
            // n = 0: an empty batch (NULL rows allowed).
            assert_eq!(
                cfx_coherent_explain_batch(s, m, null, std::ptr::null(), 0, 0, &mut b),
                cfx_status::Ok
            );
            let mut n = 7;
            assert_eq!(cfx_coherent_batch_count(b, &mut n), cfx_status::Ok);
            assert_eq!(n, 0);
            let mut r = std::ptr::null();
            assert_eq!(
                cfx_coherent_batch_result(b, 0, &mut r),
                cfx_status::NotFound
            );
            assert!(r.is_null());
            cfx_coherent_batch_free(b);
            cfx_coherent_batch_free(std::ptr::null());
            arc_free(s);
            arc_free(m);
        }
    }
}
