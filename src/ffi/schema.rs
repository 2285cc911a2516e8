//! `cfx_schema`: the features every model, method and answer shares.
//! Immutable and `Arc`-backed: share it across threads freely.

use super::handle::{
    ArcHandle, arc_free, arc_into_raw, arc_ref, finite_in, out_param, str_in, write_slice,
    write_str,
};
use super::status::{FfiError, cfx_status};
use crate::schema::{Schema, WeightsKind};
use std::ffi::c_char;
use std::sync::Arc;

/// An immutable feature schema. Thread-safe: may be used from many threads at
/// once and freed from any thread, exactly once, with `cfx_schema_free`.
pub struct cfx_schema {
    _private: [u8; 0],
}

unsafe impl ArcHandle for cfx_schema {
    type Rust = Schema;
}

/// Reads and validates a schema from JSON (`json`: NUL-terminated UTF-8).
/// On success `*out_schema` owns a new handle (free with `cfx_schema_free`).
/// Errors: `FORMAT_ERROR` (malformed JSON, unsupported version, an unknown
/// or misspelled key, named with its place in the message), `INVALID_SCHEMA`
/// (inconsistent features), `NULL_ARGUMENT`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cfx_schema_from_json(
    json: *const c_char,
    out_schema: *mut *const cfx_schema,
) -> cfx_status {
    ffi_boundary! {
        let out = out_param(out_schema, "out_schema")?;
        let json = str_in(json, "json")?;
        let s = Schema::from_json(json)?;
        out.write(arc_into_raw(Arc::new(s)));
        Ok(())
    }
}

/// Writes the schema as JSON (UTF-8, NUL-terminated) into `buf`; `*out_len`
/// gets the bytes needed including the NUL (also on `BUFFER_TOO_SMALL`, so
/// `(NULL, 0, &n)` queries the size). Thread-safe.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cfx_schema_to_json(
    schema: *const cfx_schema,
    buf: *mut c_char,
    cap: usize,
    out_len: *mut usize,
) -> cfx_status {
    ffi_boundary! {
        let s = arc_ref(schema, "schema")?;
        write_str(&s.to_json(), buf, cap, out_len, "buf")
    }
}

/// The number of features (the length of a raw row). Thread-safe.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cfx_schema_n_features(
    schema: *const cfx_schema,
    out_n: *mut usize,
) -> cfx_status {
    ffi_boundary! {
        let out = out_param(out_n, "out_n")?;
        out.write(arc_ref(schema, "schema")?.n_features());
        Ok(())
    }
}

/// The encoded dimension (the length of a model's input). Thread-safe.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cfx_schema_encoded_dim(
    schema: *const cfx_schema,
    out_dim: *mut usize,
) -> cfx_status {
    ffi_boundary! {
        let out = out_param(out_dim, "out_dim")?;
        out.write(arc_ref(schema, "schema")?.encoded_dim());
        Ok(())
    }
}

/// The name of feature `index` into `buf` (string buffer protocol).
/// `NOT_FOUND` when `index >= n_features`. Thread-safe.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cfx_schema_feature_name(
    schema: *const cfx_schema,
    index: usize,
    buf: *mut c_char,
    cap: usize,
    out_len: *mut usize,
) -> cfx_status {
    ffi_boundary! {
        let s = arc_ref(schema, "schema")?;
        let f = s.features.get(index).ok_or_else(|| {
            FfiError::new(
                cfx_status::NotFound,
                format!("feature index {index} is out of range (the schema has {})", s.n_features()),
            )
        })?;
        write_str(&f.name, buf, cap, out_len, "buf")
    }
}

/// The index of the feature called `name`; `NOT_FOUND` if there is none.
/// Thread-safe.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cfx_schema_index_of(
    schema: *const cfx_schema,
    name: *const c_char,
    out_index: *mut usize,
) -> cfx_status {
    ffi_boundary! {
        let out = out_param(out_index, "out_index")?;
        let s = arc_ref(schema, "schema")?;
        let i = s.index_of(str_in(name, "name")?)?;
        out.write(i);
        Ok(())
    }
}

/// Encodes a raw row (`raw_len == n_features`; categorical values are level
/// indices, special codes allowed) into `out` (`encoded_dim` values; array
/// buffer protocol with `*out_len`). Errors: `DIMENSION_MISMATCH`,
/// `INVALID_ARGUMENT` (NaN/inf, out-of-range value). Thread-safe.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cfx_schema_encode(
    schema: *const cfx_schema,
    raw: *const f64,
    raw_len: usize,
    out: *mut f64,
    cap: usize,
    out_len: *mut usize,
) -> cfx_status {
    ffi_boundary! {
        let s = arc_ref(schema, "schema")?;
        let raw = finite_in(raw, raw_len, "raw")?;
        let x = s.encode(raw)?;
        write_slice(&x, out, cap, out_len, "out")
    }
}

/// Decodes an encoded vector (`x_len == encoded_dim`) into a raw row
/// (`n_features` values into `out`). Incoherent vectors (two indicators on,
/// a slot outside [0, 1], …) are refused with `INCOHERENT` naming the
/// feature. Thread-safe.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cfx_schema_decode(
    schema: *const cfx_schema,
    x: *const f64,
    x_len: usize,
    out: *mut f64,
    cap: usize,
    out_len: *mut usize,
) -> cfx_status {
    ffi_boundary! {
        let s = arc_ref(schema, "schema")?;
        let x = finite_in(x, x_len, "x")?;
        let raw = s.decode(x)?;
        write_slice(&raw, out, cap, out_len, "out")
    }
}

/// The changes from raw row `from` to raw row `to` in the data's own words,
/// one line per changed feature (`name: old → new\n`), into `buf` (string
/// buffer protocol). Both rows must have `n_features` finite values.
/// Thread-safe.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cfx_schema_describe_changes(
    schema: *const cfx_schema,
    from: *const f64,
    from_len: usize,
    to: *const f64,
    to_len: usize,
    buf: *mut c_char,
    cap: usize,
    out_len: *mut usize,
) -> cfx_status {
    ffi_boundary! {
        let s = arc_ref(schema, "schema")?;
        let from = finite_in(from, from_len, "from")?;
        let to = finite_in(to, to_len, "to")?;
        crate::error::check_len("from", s.n_features(), from.len())?;
        crate::error::check_len("to", s.n_features(), to.len())?;
        let text: String = s
            .describe_changes(from, to)
            .iter()
            .map(|c| format!("{c}\n"))
            .collect();
        write_str(&text, buf, cap, out_len, "buf")
    }
}

/// A new schema equal to `schema` with distance weights fitted on raw rows
/// (`rows`: `n_rows × n_features` values, row-major). The input handle is
/// unchanged (handles are immutable). Thread-safe.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cfx_schema_fit_weights(
    schema: *const cfx_schema,
    rows: *const f64,
    n_rows: usize,
    n_cols: usize,
    out_schema: *mut *const cfx_schema,
) -> cfx_status {
    ffi_boundary! {
        let out = out_param(out_schema, "out_schema")?;
        let s = arc_ref(schema, "schema")?;
        crate::error::check_len("n_cols", s.n_features(), n_cols)?;
        let len = n_rows.checked_mul(n_cols).ok_or_else(|| FfiError::invalid("n_rows × n_cols overflows"))?;
        let data = finite_in(rows, len, "rows")?;
        let rows: Vec<Vec<f64>> = data.chunks(n_cols.max(1)).map(|r| r.to_vec()).collect();
        let mut fitted = s.clone();
        fitted.fit_weights(&rows)?;
        out.write(arc_into_raw(Arc::new(fitted)));
        Ok(())
    }
}

/// Which distance weights a schema carries (`int32_t` in C), as reported by
/// `cfx_schema_weights_kind`.
#[repr(i32)]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum cfx_weights_kind {
    /// No feature has weights: methods use unit weights. A schema from the
    /// builder or from JSON without `weights` is in this state until
    /// `cfx_schema_fit_weights` (or `cfx_dataset_fitted_schema`) fits them.
    Unit = 0,
    /// Every feature has distance weights (fitted on data, or given in JSON).
    Fitted = 1,
    /// Some features have weights, the others use unit weights.
    Mixed = 2,
}

/// Which distance weights the schema carries (a `cfx_weights_kind` value in
/// `*out_kind`): `CFX_WEIGHTS_KIND_UNIT` means every cost is measured in unit
/// weights, which changes most answers; see `cfx_dataset_fitted_schema`.
/// Thread-safe.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cfx_schema_weights_kind(
    schema: *const cfx_schema,
    out_kind: *mut i32,
) -> cfx_status {
    ffi_boundary! {
        let out = out_param(out_kind, "out_kind")?;
        let k = match arc_ref(schema, "schema")?.weights_kind() {
            WeightsKind::Unit => cfx_weights_kind::Unit,
            WeightsKind::Fitted => cfx_weights_kind::Fitted,
            WeightsKind::Mixed => cfx_weights_kind::Mixed,
        };
        out.write(k as i32);
        Ok(())
    }
}

/// The fingerprint of the schema's canonical JSON (`"fnv1a64:<hex>"`), as
/// written in result exports (string buffer protocol). Thread-safe.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cfx_schema_fingerprint(
    schema: *const cfx_schema,
    buf: *mut c_char,
    cap: usize,
    out_len: *mut usize,
) -> cfx_status {
    ffi_boundary! {
        let s = arc_ref(schema, "schema")?;
        write_str(&super::export::schema_fingerprint(s), buf, cap, out_len, "buf")
    }
}

/// An actionability preset (issue #16) applied to a schema of its dataset
/// (`cfx_dataset_load_german` / `_heloc`): 0 German credit (age only by
/// waiting, never past 75; no move into "no checking account", "critical account", "unknown/
/// no savings account", "for free" housing; amount −50 %/+25 %, duration ±12
/// months; employment, savings and checking balance never to a worse level),
/// 1 HELOC (the month-counting features only by waiting, a wait that would
/// carry one past the data's largest value refused; burden −30 points,
/// inquiries and high-utilisation trades −2 per recommendation, derogatory
/// counts never down; burdens and shares advised in multiples of 5 points,
/// by at least 5). The German amount is advised in multiples of 100 DM,
/// by at least 250, the duration in multiples of 3 months, by at least 3.
/// Waiting costs `waiting_cost_per_month` per month, up to 24 months. `NOT_FOUND`
/// when the schema lacks a feature the preset names. `*out_schema` is owned by
/// the caller; thread-safe.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cfx_schema_advice_preset(
    schema: *const cfx_schema,
    preset: i32,
    waiting_cost_per_month: f64,
    out_schema: *mut *const cfx_schema,
) -> cfx_status {
    ffi_boundary! {
        let s = arc_ref(schema, "schema")?;
        let cost = super::handle::finite(waiting_cost_per_month, "waiting_cost_per_month")?;
        let out = out_param(out_schema, "out_schema")?;
        let advised = match preset {
            0 => crate::data::presets::german_credit_advice(s, cost)?,
            1 => crate::data::presets::heloc_advice(s, cost)?,
            _ => return Err(FfiError::invalid(format!("preset must be 0 (German) or 1 (HELOC), got {preset}"))),
        };
        out.write(arc_into_raw(Arc::new(advised)));
        Ok(())
    }
}

/// Releases a schema handle. NULL is a no-op. Objects that hold the schema
/// (models, datasets) keep their own reference. May be called from any
/// thread, exactly once per handle.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cfx_schema_free(schema: *const cfx_schema) {
    ffi_boundary! { arc_free(schema) }
}
