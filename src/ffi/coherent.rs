//! `cfx_coherent_result`: optimal coherent counterfactuals by mixed-integer
//! programming (seed 000, Russell 2019) — see [`crate::coherent`]. The result
//! is immutable and `Arc`-backed; the HiGHS instance lives only inside the
//! explain call.

use super::config::{SolverConfig, cfx_config, cfx_diversity_rule};
use super::export::{Provenance, result_json};
use super::handle::{
    ArcHandle, arc_clone, arc_free, arc_into_raw, arc_ref, finite_in, optional_out, out_param,
    write_slice, write_str,
};
use super::model::cfx_model;
use super::schema::cfx_schema;
use super::status::{FfiError, FfiResult, cfx_status};
use crate::coherent::{Config, DiversityRule, Explanation, Outcome, explain, explain_diverse};
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
    schema: Arc<Schema>,
    model: Arc<AnyModel>,
}

unsafe impl ArcHandle for cfx_coherent_result {
    type Rust = CoherentResult;
}

/// The core configuration from the C configuration (NULL = every default).
fn core_config(config: *const cfx_config) -> FfiResult<Config> {
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
    if let Some(r) = s.diversity_rule {
        c.diversity = match r {
            cfx_diversity_rule::RussellCode => DiversityRule::RussellReferenceCode,
            cfx_diversity_rule::RussellIntended => DiversityRule::Russell,
            cfx_diversity_rule::DistinctSubsets => DiversityRule::DistinctSubsets,
        };
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
/// value per feature; categorical = level index) under a logistic model, or a
/// proof that none exists. `config` may be NULL (defaults: 10 s per solve,
/// 1 thread, MIP gap 1e-9, margin 1e-6). Errors: `INVALID_ARGUMENT` for an MLP
/// model, an applicant already accepted, or a bad configuration;
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

/// The certificate of counterfactual `k`: weighted L1 cost (seed 000, eq. 16),
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
        for (p, v) in [
            (out_cost, cf.cost),
            (out_score, cf.score),
            (out_probability, cf.probability),
            (out_objective, cf.objective),
            (out_mip_gap, cf.mip_gap),
            (out_solve_seconds, cf.solve_seconds),
        ] {
            if let Some(o) = optional_out(p) {
                o.write(v);
            }
        }
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
        let mut v = serde_json::to_value(&r.explanation).map_err(crate::Error::from)?;
        if let Some(cfs) = v.get_mut("counterfactuals").and_then(|c| c.as_array_mut()) {
            for cf in cfs {
                if let Some(o) = cf.as_object_mut() {
                    o.remove("solve_seconds");
                }
            }
        }
        let p = Provenance {
            schema: Some(&r.schema),
            model: Some(&r.model),
            ..Default::default()
        };
        write_str(&result_json("coherent", &p, &v)?, buf, cap, out_len, "buf")
    }
}

/// Releases a result. NULL is a no-op. Any thread, once.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cfx_coherent_result_free(result: *const cfx_coherent_result) {
    ffi_boundary! { arc_free(result) }
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
}
