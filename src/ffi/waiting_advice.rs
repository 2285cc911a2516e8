//! `cfx_waiting_advice`: the cheapest advice when waiting is one of the
//! actions (issue #16) — "wait 9 months (…), then lower the credit amount" —
//! see [`crate::coherent::waiting`]. The handle is immutable and `Arc`-backed.
//! "No wait and no move is accepted" is a result (read with
//! `cfx_waiting_advice_outcome`), not an error, and so is a solve that stops
//! at a limit: the advice then says it is not proven (`UNPROVEN`,
//! `cfx_waiting_advice_proven`).

use super::coherent::{cfx_proved_by, core_config};
use super::config::cfx_config;
use super::export::{Provenance, result_json};
use super::handle::{
    ArcHandle, arc_clone, arc_free, arc_into_raw, arc_ref, finite_in, out_param, write_optional,
    write_slice, write_str,
};
use super::model::cfx_model;
use super::schema::cfx_schema;
use super::status::{FfiError, FfiResult, cfx_status};
use crate::coherent::ProvedBy;
use crate::coherent::waiting::{WaitingAdvice, WaitingExplanation, explain_with_waiting};
use crate::model::AnyModel;
use crate::schema::Schema;
use std::ffi::c_char;
use std::sync::Arc;

/// The advice of one applicant, or the finding that there is none. Thread-safe:
/// may be read from many threads at once and freed from any thread, exactly
/// once, with `cfx_waiting_advice_free`.
pub struct cfx_waiting_advice {
    _private: [u8; 0],
}

/// The Rust side: the explanation (the advice, if any, and whether it is
/// proven) and its inputs (for the JSON export).
pub struct WaitingResult {
    pub(super) explanation: WaitingExplanation,
    pub(super) schema: Arc<Schema>,
    pub(super) model: Arc<AnyModel>,
    /// The applicant's row, for the advice ledger (`cfx_ledger_record_from_waiting_advice`).
    pub(super) applicant: Vec<f64>,
}

unsafe impl ArcHandle for cfx_waiting_advice {
    type Rust = WaitingResult;
}

/// The advice, or `NOT_FOUND` when there is none.
fn found(r: &WaitingResult) -> FfiResult<&WaitingAdvice> {
    let e = &r.explanation;
    e.advice.as_ref().ok_or_else(|| {
        FfiError::new(
            cfx_status::NotFound,
            if e.is_proven() {
                "no advice: no wait within the schema's maximum and no move is accepted".into()
            } else {
                e.describe()
            },
        )
    })
}

/// The cheapest advice for a declined applicant (`row`: one raw value per
/// feature; categorical = level index) when waiting is an action of the
/// schema (`cfx_schema_builder_set_waiting`, `cfx_schema_advice_preset`):
/// the exact minimum over every allowed wait `m` of `cost_per_month·m` plus
/// the optimal coherent counterfactual of the row after waiting, each proven
/// by the configured solver. Without a waiting action it is
/// `cfx_coherent_explain`'s optimum. `config` may be NULL (defaults, as in
/// `cfx_coherent_explain`). When no wait and no move is accepted the call
/// succeeds and `cfx_waiting_advice_outcome` says `NO_ADVICE`. A solve that
/// stops at a limit (the time limit, the separable solver's node limit) or
/// with another status is not an error either: the call succeeds with the
/// best advice found, which `cfx_waiting_advice_proven` says is not proven
/// optimal, or with `UNPROVEN` when none was found. Errors:
/// `INVALID_ARGUMENT` for an applicant already accepted, an MLP with tanh or
/// sigmoid units, a NaN
/// value or a bad configuration; `DIMENSION_MISMATCH`; `INCOHERENT` for an
/// incoherent row. `*out_advice` is owned by the caller. Thread-safe (schema,
/// model and config are only read).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cfx_coherent_explain_with_waiting(
    schema: *const cfx_schema,
    model: *const cfx_model,
    config: *const cfx_config,
    row: *const f64,
    row_len: usize,
    out_advice: *mut *const cfx_waiting_advice,
) -> cfx_status {
    ffi_boundary! {
        let out = out_param(out_advice, "out_advice")?;
        let s = arc_clone(schema, "schema")?;
        let m = arc_clone(model, "model")?;
        let row = finite_in(row, row_len, "row")?;
        let cfg = core_config(config)?;
        let explanation = explain_with_waiting(&s, m.as_ref(), row, &cfg)?;
        out.write(arc_into_raw(Arc::new(WaitingResult {
            explanation,
            schema: s,
            model: m,
            applicant: row.to_vec(),
        })));
        Ok(())
    }
}

/// Whether there is advice (`int32_t` in C), read with
/// `cfx_waiting_advice_outcome`.
#[repr(i32)]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum cfx_waiting_outcome {
    /// Advice was found: wait, move, or both (read it with the accessors).
    /// It is the proven optimum unless `cfx_waiting_advice_proven` says 0
    /// (a solve stopped at a limit: the best advice found, accepted by the
    /// model but perhaps not the cheapest).
    Found = 0,
    /// Proven: no wait within the schema's maximum and no move is accepted;
    /// every accessor except `_outcome`, `_proven`, `_describe`, `_to_json`
    /// and `_free` returns `NOT_FOUND`.
    NoAdvice = 1,
    /// No advice was found and none was proven impossible: a solve stopped at
    /// a limit (the time limit, the separable solver's node limit) or with
    /// another status before either (`_describe` says which). Advice may
    /// exist; a longer time limit or a larger node limit may find it. The
    /// accessors answer as for `NO_ADVICE`.
    Unproven = 2,
}

/// Whether there is advice (a `cfx_waiting_outcome` value). Thread-safe.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cfx_waiting_advice_outcome(
    advice: *const cfx_waiting_advice,
    out_outcome: *mut i32,
) -> cfx_status {
    ffi_boundary! {
        let out = out_param(out_outcome, "out_outcome")?;
        let e = &arc_ref(advice, "advice")?.explanation;
        out.write(match (&e.advice, e.is_proven()) {
            (Some(_), _) => cfx_waiting_outcome::Found,
            (None, true) => cfx_waiting_outcome::NoAdvice,
            (None, false) => cfx_waiting_outcome::Unproven,
        } as i32);
        Ok(())
    }
}

/// Whether the outcome is proven (`*out_proven`: 1 or 0): with `FOUND`, 1
/// when the advice is the proven optimum over every allowed wait and 0 when a
/// solve stopped at a limit or with another status (the advice is the best
/// found, accepted by the model but perhaps not the cheapest); always 1 with
/// `NO_ADVICE` and 0 with `UNPROVEN`. Thread-safe.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cfx_waiting_advice_proven(
    advice: *const cfx_waiting_advice,
    out_proven: *mut i32,
) -> cfx_status {
    ffi_boundary! {
        let out = out_param(out_proven, "out_proven")?;
        let e = &arc_ref(advice, "advice")?.explanation;
        out.write(i32::from(e.is_proven()));
        Ok(())
    }
}

/// The advice in numbers: months to wait (0: act now), the wait's cost
/// (`cost_per_month · months`), the total cost (the wait's plus the moves'
/// weighted L1 cost, Russell 2019 eq. 16) and the solver that proved the
/// moves' optimum (a `cfx_proved_by` value, or −1 when waiting alone is
/// accepted and nothing moves). Every out-parameter is optional (NULL = not
/// wanted). `NOT_FOUND` when there is no advice. Thread-safe.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cfx_waiting_advice_summary(
    advice: *const cfx_waiting_advice,
    out_months: *mut u32,
    out_wait_cost: *mut f64,
    out_total_cost: *mut f64,
    out_proved_by: *mut i32,
) -> cfx_status {
    ffi_boundary! {
        let a = found(arc_ref(advice, "advice")?)?;
        write_optional([(out_months, a.months)]);
        write_optional([(out_wait_cost, a.wait_cost), (out_total_cost, a.cost)]);
        let proved_by = match a.proved_by {
            None => -1,
            Some(ProvedBy::Highs) => cfx_proved_by::Highs as i32,
            Some(ProvedBy::Separable) => cfx_proved_by::Separable as i32,
            Some(ProvedBy::TreeSearch) => cfx_proved_by::TreeSearch as i32,
        };
        write_optional([(out_proved_by, proved_by)]);
        Ok(())
    }
}

/// The applicant's raw row after waiting, before any move (array buffer
/// protocol; one value per feature). `NOT_FOUND` when there is no advice.
/// Thread-safe.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cfx_waiting_advice_waited_row(
    advice: *const cfx_waiting_advice,
    buf: *mut f64,
    cap: usize,
    out_len: *mut usize,
) -> cfx_status {
    ffi_boundary! {
        let a = found(arc_ref(advice, "advice")?)?;
        write_slice(&a.waited, buf, cap, out_len, "buf")
    }
}

/// The raw row to reach: the waited row, moved (equal to the waited row when
/// waiting alone is accepted; array buffer protocol). `NOT_FOUND` when there
/// is no advice. Thread-safe.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cfx_waiting_advice_final_row(
    advice: *const cfx_waiting_advice,
    buf: *mut f64,
    cap: usize,
    out_len: *mut usize,
) -> cfx_status {
    ffi_boundary! {
        let a = found(arc_ref(advice, "advice")?)?;
        write_slice(&a.raw, buf, cap, out_len, "buf")
    }
}

/// The advice in plain words, e.g. `wait 9 months (age_in_years: 28 → 28; …),
/// then duration_in_month: 30 → 24`, or `no change` / the moves alone when it
/// does not wait, followed by `(not proven optimal: <why>)` when it is not
/// proven; with `NO_ADVICE` a sentence starting `no advice:`, with
/// `UNPROVEN` one starting `no advice found, and none proven impossible:`
/// that names the limit (string buffer protocol). Thread-safe.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cfx_waiting_advice_describe(
    advice: *const cfx_waiting_advice,
    buf: *mut c_char,
    cap: usize,
    out_len: *mut usize,
) -> cfx_status {
    ffi_boundary! {
        let r = arc_ref(advice, "advice")?;
        write_str(&r.explanation.describe(), buf, cap, out_len, "buf")
    }
}

/// The explanation as JSON without the moves' solve time, so the bytes depend
/// only on the inputs: `null` when no advice is proven to exist; otherwise the
/// advice's fields (none without advice), `proven`, and when not proven,
/// `unproven` (the outcome of the solve that stopped).
fn advice_json(e: &WaitingExplanation) -> crate::Result<serde_json::Value> {
    if e.advice.is_none() && e.is_proven() {
        return Ok(serde_json::Value::Null);
    }
    let mut v = match &e.advice {
        Some(a) => serde_json::to_value(a)?,
        None => serde_json::json!({}),
    };
    if let Some(cf) = v
        .get_mut("counterfactual")
        .and_then(serde_json::Value::as_object_mut)
    {
        cf.remove("solve_seconds");
    }
    if let Some(o) = v.as_object_mut() {
        o.insert("proven".into(), e.is_proven().into());
        if let Some(u) = &e.unproven {
            o.insert("unproven".into(), serde_json::to_value(u)?);
        }
    }
    Ok(v)
}

/// The advice as versioned JSON (kind `"waiting_advice"`; string buffer
/// protocol). `result` is `null` with `NO_ADVICE`; otherwise an object with
/// `"proven"` (`cfx_waiting_advice_proven`) and, when not proven,
/// `"unproven"`: the outcome of the solve that stopped (e.g.
/// `{"status": "time_limit", "has_solution": true}`, or `{"status":
/// "unknown", "raw_status": -3}` for the separable solver's node limit). With
/// `FOUND` the object also has the advice's fields (`months`, `wait_cost`,
/// `waited`, `raw`, `counterfactual`, `cost`, `wait_changes`, `proved_by`);
/// with `UNPROVEN` it has no others. The moves' solve time is left out so the
/// bytes depend only on the inputs. Thread-safe.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cfx_waiting_advice_to_json(
    advice: *const cfx_waiting_advice,
    buf: *mut c_char,
    cap: usize,
    out_len: *mut usize,
) -> cfx_status {
    ffi_boundary! {
        let r = arc_ref(advice, "advice")?;
        let json = waiting_advice_json(&r.explanation, &r.schema, &r.model)?;
        write_str(&json, buf, cap, out_len, "buf")
    }
}

/// Waiting advice as the versioned JSON `cfx_waiting_advice_to_json` writes,
/// for the Rust front ends (the `cfx` command line's `explain --json`) that
/// must write the same bytes as every binding.
pub fn waiting_advice_json(
    explanation: &WaitingExplanation,
    schema: &Schema,
    model: &AnyModel,
) -> crate::Result<String> {
    let v = advice_json(explanation)?;
    let p = Provenance {
        schema: Some(schema),
        model: Some(model),
        ..Default::default()
    };
    result_json("waiting_advice", &p, &v)
}

/// Releases the advice. NULL is a no-op. Any thread, once.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cfx_waiting_advice_free(advice: *const cfx_waiting_advice) {
    ffi_boundary! { arc_free(advice) }
}
