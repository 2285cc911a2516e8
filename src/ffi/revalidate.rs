//! `cfx_revalidate_*`: the advice ledger and the re-validation of issued
//! advice against a new model ([`crate::revalidate`], issue 28), from C.
//!
//! A ledger record is written from a coherent result (which keeps the schema
//! and model it was computed under, so their fingerprints need no argument);
//! one record, or a whole ledger file streamed to a JSON-lines file, is
//! re-validated against a new model. The stream's deployment report is a
//! handle (`cfx_deployment_report`), not a buffer argument of the streaming
//! call: a buffer too small would otherwise mean streaming the whole ledger
//! again just to learn the report's length.

use super::coherent::{cfx_coherent_result, core_config};
use super::config::{RobustAdvice, cfx_config, cfx_robust_box, robustness_of};
use super::copa::cfx_uncertainty;
use super::handle::{
    ArcHandle, arc_clone, arc_free, arc_into_raw, arc_ref, finite, optional_str_in, out_param,
    str_in, write_str,
};
use super::model::cfx_model;
use super::schema::cfx_schema;
use super::status::{FfiError, FfiResult, cfx_status};
use super::waiting_advice::cfx_waiting_advice;
use crate::json::{model_fingerprint, schema_fingerprint};
use crate::plan::CorrectionConfig;
use crate::revalidate::{
    DeploymentReport, LedgerRecord, PortfolioLedgerOptions, RevalidateOptions,
    copa_corrected_advice, ledger_from_portfolio, revalidate, revalidate_ledger,
};
use std::ffi::c_char;
use std::path::PathBuf;
use std::sync::Arc;

/// The ledger record (one `cfx-ledger` JSON line, format version 1, no line
/// end; string buffer protocol) of the optimal counterfactual of `result`:
/// the applicant's row, the advised row, its cost, the kind (`"robust"` when
/// `result` was computed with a robustness target, else `"explain"`), the
/// fingerprints of the schema and model `result` was computed under, `id`
/// (the issuer's opaque id, e.g. an application number), `issued` (opaque
/// text such as an ISO date; NULL = none) and the cfx version. When
/// `robust_result` is not NULL, its optimal counterfactual — the robust
/// version of the same advice (`cfx_config_builder_set_robust_advice`) — is
/// kept as `robust_advised`, so re-validation can tell whether the robust
/// advice would have survived the new model. A robust record, and one with
/// a robust version, says what its robust advice is robust to in the key
/// `robustness` (`{"sigma2", "invalidation_target"}`, plus `"box_kind":
/// "reachable_values"` for a tree ensemble's box of reachable values): the
/// target of `result` when it has one, else that of `robust_result` (absent
/// when neither has one). `group` (NULL = none) labels the
/// record for the deployment report's breakdown. Errors: `NULL_ARGUMENT`;
/// `NOT_FOUND` when `result` (or `robust_result`) holds no counterfactual
/// (infeasible, or a time limit without an answer); `INVALID_ARGUMENT` when
/// `robust_result` is of another applicant, schema or model. Thread-safe.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cfx_ledger_record_from_coherent_result(
    result: *const cfx_coherent_result,
    robust_result: *const cfx_coherent_result,
    id: *const c_char,
    issued: *const c_char,
    group: *const c_char,
    buf: *mut c_char,
    cap: usize,
    out_len: *mut usize,
) -> cfx_status {
    ffi_boundary! {
        let record = coherent_record(result, None, robust_result, id, issued, group, out_len)?;
        write_str(&record.to_json(), buf, cap, out_len, "buf")
    }
}

/// The ledger record (string buffer protocol, as
/// `cfx_ledger_record_from_coherent_result`) of counterfactual `k` of a
/// diverse result (`cfx_coherent_explain_diverse`): id `"<id>/<k>"`, kind
/// `"explain"` for the optimal one (`k = 0`) and `"diverse"` for the others,
/// as the Rust core's `LedgerRecord::from_diverse`, so every option the
/// applicant was shown can be re-validated. `robust_result`, `issued` and
/// `group` as in `cfx_ledger_record_from_coherent_result` (NULL = none).
/// Errors: `NULL_ARGUMENT`; `NOT_FOUND` when `result` has no counterfactual
/// `k` (`k` at or beyond `cfx_coherent_result_count`) or `robust_result`
/// holds none; `INVALID_ARGUMENT` when `robust_result` is of another
/// applicant, schema or model. Thread-safe.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cfx_ledger_record_from_coherent_result_at(
    result: *const cfx_coherent_result,
    k: usize,
    robust_result: *const cfx_coherent_result,
    id: *const c_char,
    issued: *const c_char,
    group: *const c_char,
    buf: *mut c_char,
    cap: usize,
    out_len: *mut usize,
) -> cfx_status {
    ffi_boundary! {
        let record = coherent_record(result, Some(k), robust_result, id, issued, group, out_len)?;
        write_str(&record.to_json(), buf, cap, out_len, "buf")
    }
}

/// The ledger record of a coherent result: its optimal counterfactual
/// (`at = None`, kind by the result's robustness target) or counterfactual
/// `k` of a diverse set (`at = Some(k)`), with the robust version, issue
/// text and group filled in.
fn coherent_record(
    result: *const cfx_coherent_result,
    at: Option<usize>,
    robust_result: *const cfx_coherent_result,
    id: *const c_char,
    issued: *const c_char,
    group: *const c_char,
    out_len: *mut usize,
) -> FfiResult<LedgerRecord> {
    let _ = out_param(out_len, "out_len")?;
    let r = arc_ref(result, "result")?;
    let id = str_in(id, "id")?;
    let issued = optional_str_in(issued, "issued")?;
    let group = optional_str_in(group, "group")?;
    let none = |what: &str| {
        FfiError::new(
            cfx_status::NotFound,
            format!(
                "{what} holds no counterfactual ({:?}): there is no advice to record",
                r.explanation.outcome
            ),
        )
    };
    let mut record = match at {
        None => LedgerRecord::from_explanation(&r.schema, &r.model, id, &r.explanation)?
            .ok_or_else(|| none("result"))?,
        Some(k) => LedgerRecord::from_diverse_at(&r.schema, &r.model, id, &r.explanation, k)?
            .ok_or_else(|| {
                FfiError::new(
                    cfx_status::NotFound,
                    format!(
                        "counterfactual {k} does not exist (the result has {}): pass k below \
                         cfx_coherent_result_count",
                        r.explanation.counterfactuals.len()
                    ),
                )
            })?,
    };
    record.issued = issued.map(String::from);
    record.group = group.map(String::from);
    if !robust_result.is_null() {
        let rr = arc_ref(robust_result, "robust_result")?;
        if schema_fingerprint(&rr.schema) != record.schema
            || model_fingerprint(&rr.model) != record.model
            || rr.explanation.factual != r.explanation.factual
        {
            return Err(FfiError::invalid(
                "robust_result was computed for another applicant, schema or model than \
                 result: pass the robust advice of the same applicant under the same model",
            ));
        }
        let cf = rr.explanation.counterfactuals.first().ok_or_else(|| {
            FfiError::new(
                cfx_status::NotFound,
                format!(
                    "robust_result holds no counterfactual ({:?}): there is no robust advice to \
                     record (pass NULL to record the advice alone)",
                    rr.explanation.outcome
                ),
            )
        })?;
        record.robust_advised = Some(cf.raw.clone());
        // A robust record keeps its own target; a plain one takes its
        // robust version's.
        if record.robustness.is_none() {
            record.robustness = rr.explanation.robustness;
        }
    }
    Ok(record)
}

/// The ledger record (string buffer protocol, as
/// `cfx_ledger_record_from_coherent_result`) of waiting advice: kind
/// `"waiting"`, the advised row being the row after waiting and moving, the
/// cost the wait's plus the move's. `issued` and `group` may be NULL.
/// Errors: `NULL_ARGUMENT`; `NOT_FOUND` when `advice` holds none
/// (`NO_ADVICE` or `UNPROVEN`). Thread-safe.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cfx_ledger_record_from_waiting_advice(
    advice: *const cfx_waiting_advice,
    id: *const c_char,
    issued: *const c_char,
    group: *const c_char,
    buf: *mut c_char,
    cap: usize,
    out_len: *mut usize,
) -> cfx_status {
    ffi_boundary! {
        let _ = out_param(out_len, "out_len")?;
        let a = arc_ref(advice, "advice")?;
        let id = str_in(id, "id")?;
        let issued = optional_str_in(issued, "issued")?;
        let group = optional_str_in(group, "group")?;
        let mut record =
            LedgerRecord::from_waiting(&a.schema, &a.model, id, &a.applicant, &a.explanation)?
                .ok_or_else(|| {
                    FfiError::new(
                        cfx_status::NotFound,
                        format!(
                            "advice holds none ({}): there is no advice to record",
                            a.explanation.describe()
                        ),
                    )
                })?;
        record.issued = issued.map(String::from);
        record.group = group.map(String::from);
        write_str(&record.to_json(), buf, cap, out_len, "buf")
    }
}

/// The `options_json` of `cfx_ledger_from_portfolio` (unknown keys refused).
#[derive(serde::Deserialize, Default)]
#[serde(deny_unknown_fields)]
struct PortfolioLedgerJson {
    #[serde(default)]
    ignore_columns: Vec<String>,
    #[serde(default)]
    id_column: Option<String>,
    #[serde(default)]
    group_column: Option<String>,
    #[serde(default)]
    issued: Option<String>,
    #[serde(default)]
    robustness: Option<crate::coherent::Robustness>,
    /// The run's configuration JSON (`cfx_config_to_json`), of which only
    /// the robust advice is read.
    #[serde(default)]
    config: Option<serde_json::Map<String, serde_json::Value>>,
}

/// The settings of a config JSON (`cfx_config_to_json`) that make its
/// robustness target; the other keys are ignored, a malformed one of these
/// refused.
#[derive(serde::Deserialize)]
struct ConfigRobustnessJson {
    /// An object (read as [`RobustAdvice`]), not the array serde would also
    /// take for a struct.
    #[serde(default)]
    robust_advice: Option<serde_json::Map<String, serde_json::Value>>,
    #[serde(default)]
    robust_box: Option<cfx_robust_box>,
}

/// The robustness target of `options_json`: its `robustness`, or that of the
/// config JSON under `config` (`robustness_of`, as the explain calls make
/// it), never both.
fn portfolio_robustness(o: &PortfolioLedgerJson) -> FfiResult<Option<crate::coherent::Robustness>> {
    let Some(config) = &o.config else {
        return Ok(o.robustness);
    };
    if o.robustness.is_some() {
        return Err(FfiError::invalid(
            "portfolio ledger options: give the run's robustness target either as \
             `robustness` or through `config`, not both"
                .to_string(),
        ));
    }
    let c: ConfigRobustnessJson = serde_json::from_value(serde_json::Value::Object(config.clone()))
        .map_err(|e| {
            crate::error::Error::Format(format!("portfolio ledger options: config: {e}"))
        })?;
    let advice = c
        .robust_advice
        .map(|a| serde_json::from_value::<RobustAdvice>(serde_json::Value::Object(a)))
        .transpose()
        .map_err(|e| {
            crate::error::Error::Format(format!(
                "portfolio ledger options: config: robust_advice: {e}"
            ))
        })?;
    Ok(robustness_of(advice, c.robust_box))
}

/// Keeps a portfolio run's answers as a ledger: reads the run's input CSV
/// `csv_path` and its output `explanations_path` (`cfx_portfolio_explain`'s
/// JSON lines) in lockstep, one row at a time, and writes one `cfx-ledger`
/// record per declined applicant with a counterfactual to `ledger_path`
/// (created, or replaced once complete; kind `"explain"`, or `"robust"` for a line whose
/// counterfactual carries its `invalidation_rate`; the applicant's row from the CSV,
/// the advised row and cost from the line, fingerprints of `schema` and
/// `model`, which must be the run's). `options_json` may be NULL (defaults)
/// or a JSON object with the optional keys `ignore_columns` (the run's
/// ignored columns, so the CSV reads as the run read it), `id_column` (the
/// column of each record's id, e.g. an application number; default
/// `"row-<k>"`, `k` the 0-based data row), `group_column` (each record's
/// group; an empty cell gives none), `issued` (every record's issue
/// text), `config` (the run's configuration JSON as `cfx_config_to_json`
/// wrote it, an object: its `robust_advice` and `robust_box` make the run's
/// robustness target as the explain calls make it, none without robust
/// advice; its other keys are ignored) and `robustness` (the target given
/// directly, an object `{"sigma2", "invalidation_target"[, "box_kind":
/// "reachable_values"]}`, as the core writes it). The lines do not carry
/// the target: it becomes the `robustness` key of every `"robust"` record,
/// which otherwise has none. Unknown keys, and a malformed `robust_advice`
/// or `robust_box` under `config`, are refused (`FORMAT_ERROR`); so are
/// (`INVALID_ARGUMENT`) a target that is not one and `config` together with
/// `robustness`. The id and group columns count as ignored. `error` lines are skipped. On success
/// `*out_records` receives the number of records written. Errors (nothing is
/// written; an existing ledger file stays as it was): `NULL_ARGUMENT`;
/// `IO_ERROR` (unreadable input, unwritable output); `INVALID_ARGUMENT`
/// (`ledger_path` names an input: the same file, a symbolic or hard link);
/// `DATA_ERROR` (a header the run would refuse or without the id or group
/// column, an empty id, and files that are not one run's input and output
/// under `model`: a line of another row, more or fewer lines than data rows,
/// a probability or decision `model` does not give that row);
/// `FORMAT_ERROR` (a line that is not a portfolio line). Thread-safe
/// (schema and model are only read).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cfx_ledger_from_portfolio(
    schema: *const cfx_schema,
    model: *const cfx_model,
    csv_path: *const c_char,
    explanations_path: *const c_char,
    ledger_path: *const c_char,
    options_json: *const c_char,
    out_records: *mut usize,
) -> cfx_status {
    ffi_boundary! {
        let out = out_param(out_records, "out_records")?;
        let s = arc_ref(schema, "schema")?;
        let m = arc_ref(model, "model")?;
        let csv = PathBuf::from(str_in(csv_path, "csv_path")?);
        let lines = PathBuf::from(str_in(explanations_path, "explanations_path")?);
        let ledger = PathBuf::from(str_in(ledger_path, "ledger_path")?);
        let json = optional_str_in(options_json, "options_json")?;
        let o: PortfolioLedgerJson =
            crate::json::options_or_default(json, "portfolio ledger options")?;
        let robustness = portfolio_robustness(&o)?;
        let options = PortfolioLedgerOptions {
            ignore_columns: o.ignore_columns,
            id_column: o.id_column,
            group_column: o.group_column,
            issued: o.issued,
            robustness,
        };
        let counts = ledger_from_portfolio(s, m, &csv, &lines, &ledger, &options)?;
        out.write(counts.records);
        Ok(())
    }
}

/// The ledger record `record_json` (one `cfx-ledger` line) with its
/// COPA-corrected version kept as `copa_advised` (string buffer protocol):
/// the advised row moved by Bui, Nguyen & Nguyen's (2022, §3) correction —
/// the Requirement projection, then the Mahalanobis improvement with
/// perturbation limit `delta` (finite, ≥ 0) at Gelbrich radius `rho`
/// (finite, ≥ 0) — inside what the applicant may change, so that it stays
/// valid under more of the models `uncertainty` (the moments of the issuer's
/// refits, `d == 1 + encoded_dim`) suggests; as the Rust core's
/// `copa_corrected_advice`. Re-validation (`cfx_revalidate_record`,
/// `cfx_revalidate_ledger`) then says whether that version would have
/// survived the new model. `schema` must be the one the record was issued
/// under. When the corrected row breaks a rule of the schema for the
/// applicant (a limit, a direction, a grid), no version is kept: the call
/// returns `NOT_FOUND`, writes nothing, and the record stays as it was.
/// Errors: `NULL_ARGUMENT`; `FORMAT_ERROR` (not a ledger line);
/// `INVALID_ARGUMENT` (another schema's record, an uncertainty of another
/// dimension, `rho` or `delta` not finite); `NOT_FOUND` as above.
/// Thread-safe.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cfx_ledger_record_add_copa_version(
    schema: *const cfx_schema,
    uncertainty: *const cfx_uncertainty,
    record_json: *const c_char,
    rho: f64,
    delta: f64,
    buf: *mut c_char,
    cap: usize,
    out_len: *mut usize,
) -> cfx_status {
    ffi_boundary! {
        let _ = out_param(out_len, "out_len")?;
        let s = arc_ref(schema, "schema")?;
        let u = arc_ref(uncertainty, "uncertainty")?;
        let mut record = LedgerRecord::from_json(str_in(record_json, "record_json")?)?;
        let cfg = CorrectionConfig {
            rho: finite(rho, "rho")?,
            delta: finite(delta, "delta")?,
            ..CorrectionConfig::default()
        };
        record.check_issued_under(&schema_fingerprint(s))?;
        let corrected = copa_corrected_advice(s, u, &record.applicant, &record.advised, cfg)?
            .ok_or_else(|| {
                FfiError::new(
                    cfx_status::NotFound,
                    format!(
                        "ledger record '{}': the COPA-corrected version breaks a rule of the \
                         schema for this applicant, so none is kept (keep the record as it was)",
                        record.id
                    ),
                )
            })?;
        record.copa_advised = Some(corrected);
        write_str(&record.to_json(), buf, cap, out_len, "buf")
    }
}

/// Re-validates one ledger record (`record_json`: one `cfx-ledger` line, as
/// written by `cfx_ledger_record_from_coherent_result`) against `new_model`
/// and writes the re-validation as JSON (string buffer protocol): `status`
/// (`"kept"` or `"broken"`), the advised row's `margin` and `probability`
/// under the new model, `model_changed`, and for a broken promise the exact
/// engine's cheapest `repair` from the advised row (its cost is `extra_cost`,
/// what keeping the promise costs more) and `applicant_repair` from the
/// applicant's row, or `repair_outcome` and `no_repair_reason` when there
/// is none; `outcome` (`"kept"`, `"repaired"` or `"no_repair"`); `robust_kept`
/// when the record holds robust advice. The bytes equal the Rust core's
/// `serde_json` of [`crate::revalidate::Revalidation`]. `config` may be NULL
/// (defaults; it sets the repairs' solver and limits). `schema` must be the
/// schema the advice was issued under. Errors: `NULL_ARGUMENT`;
/// `FORMAT_ERROR` (not a ledger line, another format version, an unknown
/// key); `INVALID_ARGUMENT` (another schema's record, rows of the wrong
/// length or non-finite, a bad configuration, a scorecard or tree ensemble
/// read with another schema); `DIMENSION_MISMATCH` (a new model of another
/// encoded dimension than the schema's); `INCOHERENT` (an advised row that
/// is not a real applicant). A new model the exact engine cannot repair for
/// is no error: its broken promises are `"no_repair"`. Thread-safe (schema, model and config are only read).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cfx_revalidate_record(
    schema: *const cfx_schema,
    new_model: *const cfx_model,
    config: *const cfx_config,
    record_json: *const c_char,
    buf: *mut c_char,
    cap: usize,
    out_len: *mut usize,
) -> cfx_status {
    ffi_boundary! {
        let _ = out_param(out_len, "out_len")?;
        let s = arc_ref(schema, "schema")?;
        let m = arc_ref(new_model, "new_model")?;
        let cfg = core_config(config)?;
        let record = LedgerRecord::from_json(str_in(record_json, "record_json")?)?;
        let v = revalidate(s, m, &record, &cfg)?;
        let json = serde_json::to_string(&v).map_err(crate::Error::from)?;
        write_str(&json, buf, cap, out_len, "buf")
    }
}

/// The deployment report of a `cfx_revalidate_ledger` run. Thread-safe: may
/// be read from many threads at once and freed from any thread, exactly once,
/// with `cfx_deployment_report_free`.
pub struct cfx_deployment_report {
    _private: [u8; 0],
}

/// A deployment report and the files it was made from (the ledger and the
/// re-validation output), which `cfx_deployment_report_write_html` never
/// writes over.
pub struct LedgerReport {
    report: DeploymentReport,
    sources: Vec<PathBuf>,
}

unsafe impl ArcHandle for cfx_deployment_report {
    type Rust = LedgerReport;
}

/// Streams the ledger file `input_path` (one `cfx-ledger` JSON line per
/// record; blank lines skipped) and re-validates every record against
/// `new_model`, writing one JSON line per record, in input order, to
/// `output_path` (created, or replaced once complete): the `cfx_revalidate_record` JSON
/// plus `record` (the record's 0-based number), or `{"error", "record"}` for
/// a record that cannot be read or re-validated (the run goes on). Records are
/// read, re-validated and written `chunk_rows` at a time (0 = 4096), so memory
/// stays flat however long the ledger; `threads` records are re-validated at
/// once (0 = all cores; each repair uses one solver thread). The output is
/// byte for byte the same on any thread count and chunk size. `config` may
/// be NULL (defaults). The ledger is refused before anything is written when
/// its first record cannot be read (`FORMAT_ERROR`) or was issued under
/// another schema (`INVALID_ARGUMENT`). Other errors: `NULL_ARGUMENT`,
/// `INVALID_ARGUMENT` (a bad configuration; `output_path` naming the ledger —
/// the same file, a symbolic or hard link — refused before anything is
/// opened), `IO_ERROR` (unreadable input, unwritable output; an existing
/// `output_path` stays as it was, it is replaced only once the run is
/// complete). With `cfx_config_builder_set_resume(builder, 1)` a killed
/// run is resumed from its partial file, the output and the report an
/// uninterrupted run's (a partial file of another run: `INVALID_ARGUMENT`).
/// On success `*out_report` receives the deployment
/// report (counts, extra-cost quantiles, the features behind breaks, robust
/// advice broken, per-group counts; read it with
/// `cfx_deployment_report_to_json`), owned by the caller. Thread-safe
/// (schema, model and config are only read).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cfx_revalidate_ledger(
    schema: *const cfx_schema,
    new_model: *const cfx_model,
    config: *const cfx_config,
    input_path: *const c_char,
    output_path: *const c_char,
    threads: usize,
    chunk_rows: usize,
    out_report: *mut *const cfx_deployment_report,
) -> cfx_status {
    ffi_boundary! {
        let out = out_param(out_report, "out_report")?;
        let s = arc_clone(schema, "schema")?;
        let m = arc_clone(new_model, "new_model")?;
        let input = PathBuf::from(str_in(input_path, "input_path")?);
        let output = PathBuf::from(str_in(output_path, "output_path")?);
        let mut cfg = core_config(config)?;
        cfg.batch_threads = threads;
        cfg.threads = 1;
        let labels = super::config::model_labels_of(config)?;
        let options = RevalidateOptions {
            chunk_rows: if chunk_rows == 0 {
                RevalidateOptions::default().chunk_rows
            } else {
                chunk_rows
            },
            resume: super::config::resume_of(config)?,
            old_model_label: labels.0,
            new_model_label: labels.1,
            ..RevalidateOptions::default()
        };
        // The core runs on a thread of its own, as the portfolio's does:
        // scoped workers spawned from a C main thread would leave std's record
        // of that thread unfreed.
        let sources = vec![input.clone(), output.clone()];
        let worker = std::thread::Builder::new()
            .spawn(move || revalidate_ledger(&s, m.as_ref(), &input, &output, &cfg, &options))
            .map_err(|e| {
                FfiError::new(cfx_status::SolverError, format!("cannot start a thread: {e}"))
            })?;
        let report = worker.join().unwrap_or_else(|p| std::panic::resume_unwind(p))?;
        out.write(arc_into_raw(Arc::new(LedgerReport { report, sources })));
        Ok(())
    }
}

/// The deployment report as JSON (string buffer protocol): `records`,
/// `kept`, `broken`, `broken_share`, `errors`, `repaired` (of which
/// `repaired_proven`), `no_repair` (by reason: `no_repair_reasons`),
/// `decision_margin`, `extra_cost`
/// (`min`, `median`, `p90`, `max`, `mean` of the extra cost of keeping each
/// repaired promise; null without one), `features_behind_breaks` (`[feature,
/// count]`, most often first), `robust_records`, `robust_broken`,
/// `groups` (`{label: {records, broken}}`, `""` for records without a
/// group), `new_model` and `old_models` (`fingerprint`, `label`, `records`),
/// `promises` (an applicant's alternatives counted as one promise) and
/// `contacts` (every broken record: `record`, `id`, `promise`, `group`,
/// `broke`, `repair`, `extra_cost`, `repair_status`). Thread-safe.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cfx_deployment_report_to_json(
    report: *const cfx_deployment_report,
    buf: *mut c_char,
    cap: usize,
    out_len: *mut usize,
) -> cfx_status {
    ffi_boundary! {
        let r = &arc_ref(report, "report")?.report;
        let json = serde_json::to_string(r).map_err(crate::Error::from)?;
        write_str(&json, buf, cap, out_len, "buf")
    }
}

/// The deployment report as one self-contained HTML page (string buffer
/// protocol; UTF-8): the counts, and inline SVG bar plots of the broken share
/// per group, the extra cost's distribution, the features behind the breaks
/// and — when the ledger held robust advice — the issued against the robust
/// advice; no script, no external file, for a model-risk committee's pack.
/// `title` (UTF-8, HTML-escaped in the page; NULL = a default title) heads
/// the page. The bytes equal the Rust core's `DeploymentReport::to_html`.
/// Errors: `NULL_ARGUMENT`; `INVALID_ARGUMENT` (a title that is not UTF-8).
/// Thread-safe.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cfx_deployment_report_to_html(
    report: *const cfx_deployment_report,
    title: *const c_char,
    buf: *mut c_char,
    cap: usize,
    out_len: *mut usize,
) -> cfx_status {
    ffi_boundary! {
        let _ = out_param(out_len, "out_len")?;
        let r = &arc_ref(report, "report")?.report;
        let title = optional_str_in(title, "title")?.unwrap_or(DeploymentReport::DEFAULT_TITLE);
        write_str(&r.to_html(title), buf, cap, out_len, "buf")
    }
}

/// Writes the deployment report's HTML page (`cfx_deployment_report_to_html`,
/// `title` NULL = the default title) to the file `html_path` (created, or
/// replaced once complete). The report's sources — the ledger and the
/// re-validation output of its `cfx_revalidate_ledger` run — are never
/// written over: an `html_path` naming one of them (the same file, a symbolic
/// or hard link to it) is refused with `INVALID_ARGUMENT` naming both paths,
/// before anything is opened. Errors: `NULL_ARGUMENT`, `INVALID_ARGUMENT`,
/// `IO_ERROR` (the file cannot be written; an existing one stays as it was).
/// Thread-safe.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cfx_deployment_report_write_html(
    report: *const cfx_deployment_report,
    title: *const c_char,
    html_path: *const c_char,
) -> cfx_status {
    ffi_boundary! {
        let r = arc_ref(report, "report")?;
        let title = optional_str_in(title, "title")?.unwrap_or(DeploymentReport::DEFAULT_TITLE);
        let path = str_in(html_path, "html_path")?;
        let sources: Vec<&std::path::Path> = r.sources.iter().map(PathBuf::as_path).collect();
        r.report.save_html(title, std::path::Path::new(path), &sources)?;
        Ok(())
    }
}

/// Releases a deployment report. NULL is a no-op. Any thread, once.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cfx_deployment_report_free(report: *const cfx_deployment_report) {
    ffi_boundary! { arc_free(report) }
}

#[cfg(test)]
mod tests {
    use super::super::coherent::{cfx_coherent_explain, cfx_coherent_result_free};
    use super::super::config::{
        cfx_config, cfx_config_build, cfx_config_builder_new, cfx_config_builder_set_robust_advice,
        cfx_config_builder_set_robust_box, cfx_config_free,
    };
    use super::*;
    use crate::model::AnyModel;
    use std::ptr::{null, null_mut};

    /// A config from the C builder: robust advice at (σ², γ) over `box_kind`
    /// (0 the reals, 1 reachable values), or plain advice.
    fn config(robust: Option<(f64, f64, i32)>) -> *const cfx_config {
        unsafe {
            let mut b = null_mut();
            assert_eq!(cfx_config_builder_new(&mut b), cfx_status::Ok);
            if let Some((sigma2, target, box_kind)) = robust {
                assert_eq!(
                    cfx_config_builder_set_robust_advice(b, sigma2, target),
                    cfx_status::Ok
                );
                assert_eq!(
                    cfx_config_builder_set_robust_box(b, box_kind),
                    cfx_status::Ok
                );
            }
            // The build consumes the builder.
            let mut c = null();
            assert_eq!(cfx_config_build(b, &mut c), cfx_status::Ok);
            c
        }
    }

    /// The portfolio options' `config` (a config JSON of the C builder, as
    /// `cfx_config_to_json` writes it, with all its other keys) gives the
    /// robustness target the explain calls make of that config
    /// (`core_config`): reachable values, the reals, none without robust
    /// advice. Refused: `config` with `robustness`, a malformed
    /// `robust_advice` or `robust_box`, a `config` that is not an object.
    #[test]
    fn portfolio_options_read_the_robustness_of_the_config_json() {
        use super::super::config::cfx_config_to_json;
        let json_of = |c: *const cfx_config| {
            let mut buf = vec![0 as c_char; 4096];
            let mut n = 0usize;
            assert_eq!(
                unsafe { cfx_config_to_json(c, buf.as_mut_ptr(), buf.len(), &mut n) },
                cfx_status::Ok
            );
            unsafe { std::ffi::CStr::from_ptr(buf.as_ptr()) }
                .to_str()
                .unwrap()
                .to_string()
        };
        let read = |options: &str| -> FfiResult<Option<crate::coherent::Robustness>> {
            let o: PortfolioLedgerJson =
                crate::json::options_or_default(Some(options), "portfolio ledger options")?;
            portfolio_robustness(&o)
        };
        for robust in [Some((0.01, 0.2, 1)), Some((0.01, 0.2, 0)), None] {
            let c = config(robust);
            let text = json_of(c);
            let got = read(&format!(r#"{{"issued": "2026-12-06", "config": {text}}}"#)).unwrap();
            let want = super::super::coherent::core_config(c).unwrap().robustness;
            assert_eq!(got, want, "{text}");
            match robust {
                Some((_, _, 1)) => {
                    assert_eq!(
                        got.unwrap().box_kind,
                        crate::coherent::BoxKind::ReachableValues
                    );
                    assert!(text.contains("ReachableValues"), "{text}");
                }
                Some(_) => assert_eq!(got.unwrap().box_kind, crate::coherent::BoxKind::Reals),
                None => assert!(got.is_none()),
            }
            unsafe { cfx_config_free(c) };
        }
        let both = read(
            r#"{"config": {"robust_advice": {"sigma2": 0.01, "invalidation_target": 0.2}},
                "robustness": {"sigma2": 0.01, "invalidation_target": 0.2}}"#,
        )
        .unwrap_err();
        assert_eq!(both.status, cfx_status::InvalidArgument, "{}", both.message);
        assert!(
            both.message.contains("`robustness`") && both.message.contains("`config`"),
            "{}",
            both.message
        );
        for bad in [
            r#"{"config": {"robust_advice": {"sigma2": 0.01}}}"#,
            r#"{"config": {"robust_advice": {"sigma2": "0.01", "invalidation_target": 0.2}}}"#,
            r#"{"config": {"robust_advice": {"sigma2": 0.01, "invalidation_target": 0.2, "radius": 1}}}"#,
            r#"{"config": {"robust_advice": [0.01, 0.2]}}"#,
            r#"{"config": {"robust_advice": {"sigma2": 0.01, "invalidation_target": 0.2}, "robust_box": "Cube"}}"#,
            r#"{"config": [1, 2]}"#,
        ] {
            let e = read(bad).unwrap_err();
            assert_eq!(e.status, cfx_status::FormatError, "{bad}: {}", e.message);
        }
    }

    /// The record JSON of `result` (and `robust_result`, or NULL).
    fn record(
        result: *const cfx_coherent_result,
        robust: *const cfx_coherent_result,
    ) -> serde_json::Value {
        let id = std::ffi::CString::new("app-1").unwrap();
        let mut buf = vec![0 as c_char; 1 << 16];
        let mut n = 0usize;
        let st = unsafe {
            cfx_ledger_record_from_coherent_result(
                result,
                robust,
                id.as_ptr(),
                null(),
                null(),
                buf.as_mut_ptr(),
                buf.len(),
                &mut n,
            )
        };
        assert_eq!(st, cfx_status::Ok);
        let text = unsafe { std::ffi::CStr::from_ptr(buf.as_ptr()) }
            .to_str()
            .unwrap();
        // The core reads what C wrote, the target included.
        let back = LedgerRecord::from_json(text).unwrap();
        assert_eq!(back.to_json(), text);
        serde_json::from_str(text).unwrap()
    }

    /// The records C writes of robust advice on a tree ensemble say what the
    /// advice is robust to: the `robustness` key holds the config's σ², γ
    /// and box (`"box_kind": "reachable_values"`; the default box over the
    /// reals is not written), on a record of kind `robust` and on a plain
    /// record given its robust version; a plain record alone has no key.
    #[test]
    fn ledger_records_of_robust_tree_advice_carry_their_target() {
        let (schema, ens) = crate::coherent::tree_box_tests::stump();
        let s = arc_into_raw::<cfx_schema>(Arc::new(schema));
        let m = arc_into_raw::<cfx_model>(Arc::new(AnyModel::Trees(ens)));
        let row = [10.0, 30.0];
        let explain = |c: *const cfx_config| {
            let mut r = null();
            let st = unsafe { cfx_coherent_explain(s, m, c, row.as_ptr(), 2, &mut r) };
            assert_eq!(st, cfx_status::Ok);
            r
        };
        let (reach_c, reals_c, plain_c) = (
            config(Some((1e-4, 0.1, 1))),
            config(Some((0.0004, 0.2, 0))),
            config(None),
        );
        let (reach, reals, plain) = (explain(reach_c), explain(reals_c), explain(plain_c));
        let v = record(reach, null());
        assert_eq!(v["kind"], "robust");
        assert_eq!(
            v["robustness"],
            serde_json::json!({
                "sigma2": 1e-4,
                "invalidation_target": 0.1,
                "box_kind": "reachable_values"
            })
        );
        let core = arc_ref(reach, "reach").unwrap().explanation.robustness;
        assert_eq!(
            serde_json::from_value::<crate::coherent::Robustness>(v["robustness"].clone()).unwrap(),
            core.unwrap()
        );
        let v = record(reals, null());
        assert_eq!(
            v["robustness"],
            serde_json::json!({"sigma2": 0.0004, "invalidation_target": 0.2})
        );
        let v = record(plain, reach);
        assert_eq!(v["kind"], "explain");
        assert_eq!(v["robustness"]["box_kind"], "reachable_values");
        assert!(v["robust_advised"].is_array());
        // A robust record keeps its own target beside another robust version.
        let v = record(reals, reach);
        assert!(v["robustness"].get("box_kind").is_none(), "{v}");
        let v = record(plain, null());
        assert!(v.get("robustness").is_none(), "{v}");
        unsafe {
            for r in [reach, reals, plain] {
                cfx_coherent_result_free(r);
            }
            for c in [reach_c, reals_c, plain_c] {
                cfx_config_free(c);
            }
        }
        arc_free(s);
        arc_free(m);
    }
}
