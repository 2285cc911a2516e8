//! `cfx_waiting_advice`: the cheapest advice when waiting is one of the
//! actions (issue #16) — "wait 9 months (…), then lower the credit amount" —
//! see [`crate::coherent::waiting`]. The handle is immutable and `Arc`-backed.
//! "No wait and no move is accepted" is a result (read with
//! `cfx_waiting_advice_outcome`), not an error.

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
use crate::coherent::waiting::{WaitingAdvice, explain_with_waiting};
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

/// The Rust side: the advice (`None`: no wait and no move is accepted) and its
/// inputs (for the JSON export).
pub struct WaitingResult {
    advice: Option<WaitingAdvice>,
    schema: Arc<Schema>,
    model: Arc<AnyModel>,
}

unsafe impl ArcHandle for cfx_waiting_advice {
    type Rust = WaitingResult;
}

/// The advice, or `NOT_FOUND` when there is none.
fn found(r: &WaitingResult) -> FfiResult<&WaitingAdvice> {
    r.advice.as_ref().ok_or_else(|| {
        FfiError::new(
            cfx_status::NotFound,
            "no advice: no wait within the schema's maximum and no move is accepted",
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
/// succeeds and `cfx_waiting_advice_outcome` says `NO_ADVICE`. Errors:
/// `INVALID_ARGUMENT` for an applicant already accepted, an MLP model, a NaN
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
        let advice = explain_with_waiting(&s, m.as_ref(), row, &cfg)?;
        out.write(arc_into_raw(Arc::new(WaitingResult {
            advice,
            schema: s,
            model: m,
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
    Found = 0,
    /// No wait within the schema's maximum and no move is accepted; every
    /// accessor except `_outcome`, `_describe`, `_to_json` and `_free` returns
    /// `NOT_FOUND`.
    NoAdvice = 1,
}

/// Whether there is advice (a `cfx_waiting_outcome` value). Thread-safe.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cfx_waiting_advice_outcome(
    advice: *const cfx_waiting_advice,
    out_outcome: *mut i32,
) -> cfx_status {
    ffi_boundary! {
        let out = out_param(out_outcome, "out_outcome")?;
        out.write(match arc_ref(advice, "advice")?.advice {
            Some(_) => cfx_waiting_outcome::Found,
            None => cfx_waiting_outcome::NoAdvice,
        } as i32);
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
/// does not wait; when there is no advice, a sentence saying so (string
/// buffer protocol). Thread-safe.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cfx_waiting_advice_describe(
    advice: *const cfx_waiting_advice,
    buf: *mut c_char,
    cap: usize,
    out_len: *mut usize,
) -> cfx_status {
    ffi_boundary! {
        let r = arc_ref(advice, "advice")?;
        let text = r.advice.as_ref().map_or_else(
            || "no advice: no wait and no move is accepted".to_string(),
            WaitingAdvice::describe,
        );
        write_str(&text, buf, cap, out_len, "buf")
    }
}

/// The advice as JSON without the moves' solve time, so the bytes depend only
/// on the inputs (`null` when there is no advice).
fn advice_json(a: Option<&WaitingAdvice>) -> FfiResult<serde_json::Value> {
    let mut v = serde_json::to_value(a).map_err(crate::Error::from)?;
    if let Some(cf) = v
        .get_mut("counterfactual")
        .and_then(serde_json::Value::as_object_mut)
    {
        cf.remove("solve_seconds");
    }
    Ok(v)
}

/// The advice as versioned JSON (kind `"waiting_advice"`; `result` is `null`
/// when there is no advice; string buffer protocol). The moves' solve time is
/// left out so the bytes depend only on the inputs. Thread-safe.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cfx_waiting_advice_to_json(
    advice: *const cfx_waiting_advice,
    buf: *mut c_char,
    cap: usize,
    out_len: *mut usize,
) -> cfx_status {
    ffi_boundary! {
        let r = arc_ref(advice, "advice")?;
        let v = advice_json(r.advice.as_ref())?;
        let p = Provenance {
            schema: Some(&r.schema),
            model: Some(&r.model),
            ..Default::default()
        };
        write_str(&result_json("waiting_advice", &p, &v)?, buf, cap, out_len, "buf")
    }
}

/// Releases the advice. NULL is a no-op. Any thread, once.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cfx_waiting_advice_free(advice: *const cfx_waiting_advice) {
    ffi_boundary! { arc_free(advice) }
}
