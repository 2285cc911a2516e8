//! `cfx_notice`: the adverse-action notice of a declined applicant — the
//! principal reasons and the exact engine's advice, made consistent by
//! construction (see [`crate::notice`]). The notice is immutable and
//! `Arc`-backed; it is read as versioned JSON or as a self-contained HTML page.

use super::coherent::core_config;
use super::config::cfx_config;
use super::data::cfx_dataset;
use super::export::{Provenance, fingerprint, result_json};
use super::handle::{
    ArcHandle, arc_clone, arc_free, arc_into_raw, arc_ref, finite_in, optional_str_in, out_param,
    str_in, write_str,
};
use super::model::cfx_model;
use super::schema::cfx_schema;
use super::status::{FfiResult, cfx_status};
use crate::coherent::Robustness;
use crate::model::AnyModel;
use crate::notice::{
    self, DEFAULT_NOTICE_ROBUSTNESS, Notice, NoticeBookOptions, NoticeOptions, ReasonOptions,
    ReasonTable, Reference, ReferenceKind, ScorecardBaseline, TreeShapMode,
};
use crate::schema::Schema;
use std::ffi::c_char;
use std::sync::Arc;

/// One declined applicant's notice. Thread-safe: may be read from many
/// threads at once and freed from any thread, exactly once, with
/// `cfx_notice_free`.
pub struct cfx_notice {
    _private: [u8; 0],
}

/// The Rust side of a notice: the notice and its inputs (for the JSON export).
pub struct NoticeResult {
    notice: Notice,
    schema: Arc<Schema>,
    model: Arc<AnyModel>,
    /// Fingerprints of the reference population and the reason table.
    inputs: Vec<(String, String)>,
}

unsafe impl ArcHandle for cfx_notice {
    type Rust = NoticeResult;
}

/// The `options_json` of `cfx_notice_explain` (unknown keys refused).
#[derive(serde::Deserialize)]
#[serde(default, deny_unknown_fields)]
struct NoticeJson {
    max_reasons: usize,
    reference: ReferenceKind,
    reason_table_path: Option<String>,
    reason_table: Option<serde_json::Value>,
    necessity: bool,
    tree_shap: TreeShapMode,
    scorecard_baseline: ScorecardBaseline,
    mlp_max_features: usize,
    /// `null`: no robust version (the notice says it was not requested).
    robustness: Option<Robustness>,
    /// `cfx_notice_book` only.
    ignore_columns: Vec<String>,
    /// `cfx_notice_book` only.
    id_column: Option<String>,
}

impl Default for NoticeJson {
    fn default() -> Self {
        let r = ReasonOptions::default();
        NoticeJson {
            max_reasons: r.max_reasons,
            reference: ReferenceKind::AllApplicants,
            reason_table_path: None,
            reason_table: None,
            necessity: true,
            tree_shap: r.tree_shap,
            scorecard_baseline: r.scorecard_baseline,
            mlp_max_features: r.mlp_max_features,
            robustness: Some(DEFAULT_NOTICE_ROBUSTNESS),
            ignore_columns: Vec::new(),
            id_column: None,
        }
    }
}

impl NoticeJson {
    /// The options JSON (NULL: the defaults).
    fn read(options_json: *const c_char) -> FfiResult<NoticeJson> {
        let json = optional_str_in(options_json, "options_json")?;
        Ok(crate::json::options_or_default(json, "notice options")?)
    }

    fn notice_options(&self, config: *const cfx_config) -> FfiResult<NoticeOptions> {
        Ok(NoticeOptions {
            reasons: ReasonOptions {
                max_reasons: self.max_reasons,
                tree_shap: self.tree_shap,
                scorecard_baseline: self.scorecard_baseline.clone(),
                mlp_max_features: self.mlp_max_features,
            },
            config: core_config(config)?,
            skip_necessity: !self.necessity,
            robustness: self.robustness,
        })
    }
}

/// The bank's reason table from the options: a file (JSON when its text
/// starts with `{`, else CSV) or an inline JSON table; both is an error.
fn reason_table(o: &NoticeJson, schema: &Schema) -> FfiResult<Option<(ReasonTable, String)>> {
    let text = match (&o.reason_table_path, &o.reason_table) {
        (Some(_), Some(_)) => {
            return Err(crate::Error::InvalidArgument(
                "notice options: give reason_table_path or reason_table, not both".into(),
            )
            .into());
        }
        (None, None) => return Ok(None),
        (Some(p), None) => std::fs::read_to_string(p)
            .map_err(|e| crate::Error::Io(format!("reason table '{p}': {e}")))?,
        (None, Some(v)) => v.to_string(),
    };
    let table = if text.trim_start().starts_with('{') {
        ReasonTable::from_json(&text, schema)?
    } else {
        ReasonTable::from_csv(&text, schema)?
    };
    let fp = fingerprint(&table.to_json());
    Ok(Some((table, fp)))
}

/// The adverse-action notice of a declined applicant (`row`: one raw value
/// per feature; categorical = level index): at most `max_reasons` principal
/// reasons ranked against a reference population drawn from `reference` (a
/// dataset under `schema`), each with the bank's code and statement when a
/// reason table is given, and the exact engine's cheapest change with each
/// reason marked — whether the advice acts on it, whether it is immutable or
/// time-driven under the schema's preset, and whether every cheapest change
/// must touch it (proven by re-solving with the feature frozen). The method
/// of the ranking depends on the model kind and is named in the notice.
/// `config` may be NULL (the defaults of `cfx_coherent_explain`).
/// `options_json` may be NULL (defaults) or a JSON object with the optional
/// keys `max_reasons` (default 4), `reference` (`{"kind": "all_applicants"}`,
/// the default, or `{"kind": "at_cutoff", "band": b}`: the accepted rows
/// scoring at most `b` above the cut-off, in log-odds or points),
/// `reason_table_path` (a reason table file, CSV `feature,direction,code,statement`
/// or JSON) or `reason_table` (the JSON table inline), `necessity` (default
/// true; false skips the proofs), `tree_shap` (`"interventional"`, the
/// default, or `"path_dependent"`), `scorecard_baseline` (`{"kind": "model"}`,
/// the default, `"reference_mean"`, `"max"`, `"min"`, or `"given"` with
/// `baselines`), `mlp_max_features` (default 20, at most 24) and
/// `robustness` (the target of the robust version of the advice,
/// `{"sigma2": s, "invalidation_target": g}`, default σ² = 0.01 and 10 %;
/// `null`: not computed). The notice also carries the exact engine's waiting
/// option; a version that does not exist for this schema or model kind is
/// marked `not_available` with the reason in words (robust advice: linear
/// models only). `*out_notice` is owned by the caller. Errors: `NULL_ARGUMENT`;
/// `FORMAT_ERROR` (bad options JSON, unknown keys, a bad reason table);
/// `INVALID_ARGUMENT` (an accepted applicant, a reference selection with no
/// rows, a reference dataset under another schema, an MLP with too many
/// features, bad options or configuration); `DIMENSION_MISMATCH`;
/// `INCOHERENT`; `IO_ERROR` (an unreadable table file). A model the exact
/// engine does not take still gets its reasons: the notice then carries
/// `advice_error` instead of advice. Thread-safe (the inputs are only read).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cfx_notice_explain(
    schema: *const cfx_schema,
    model: *const cfx_model,
    reference: *const cfx_dataset,
    config: *const cfx_config,
    row: *const f64,
    row_len: usize,
    options_json: *const c_char,
    out_notice: *mut *const cfx_notice,
) -> cfx_status {
    ffi_boundary! {
        let out = out_param(out_notice, "out_notice")?;
        let s = arc_clone(schema, "schema")?;
        let m = arc_clone(model, "model")?;
        let data = arc_ref(reference, "reference")?;
        let row = finite_in(row, row_len, "row")?;
        let o = NoticeJson::read(options_json)?;
        if !o.ignore_columns.is_empty() || o.id_column.is_some() {
            return Err(crate::Error::InvalidArgument(
                "notice options: ignore_columns and id_column are options of cfx_notice_book"
                    .into(),
            )
            .into());
        }
        let opts = o.notice_options(config)?;
        let table = reason_table(&o, &s)?;
        let r = Reference::new(m.as_ref(), data, o.reference)?;
        let n = notice::notice(m.as_ref(), &s, row, &r, table.as_ref().map(|t| &t.0), &opts)?;
        let mut inputs = vec![(
            "reference".to_string(),
            fingerprint(&serde_json::to_string(&(&data.rows, &o.reference)).map_err(crate::Error::from)?),
        )];
        if let Some((_, fp)) = table {
            inputs.push(("reason_table".to_string(), fp));
        }
        out.write(arc_into_raw(Arc::new(NoticeResult { notice: n, schema: s, model: m, inputs })));
        Ok(())
    }
}

/// The notice as versioned JSON (kind `"notice"`; string buffer protocol):
/// `result` is the notice itself (`format_version`, `id`, `reasons` with the
/// method, the reference and each reason's code, statement and contribution,
/// `marks`, `advice`, `necessary_features`, `first_reason_note`), `inputs`
/// fingerprints the schema, model, reference population and reason table.
/// Thread-safe.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cfx_notice_to_json(
    notice: *const cfx_notice,
    buf: *mut c_char,
    cap: usize,
    out_len: *mut usize,
) -> cfx_status {
    ffi_boundary! {
        let n = arc_ref(notice, "notice")?;
        let p = Provenance {
            schema: Some(&n.schema),
            model: Some(&n.model),
            extra_inputs: n.inputs.clone(),
            ..Default::default()
        };
        write_str(&result_json("notice", &p, &n.notice)?, buf, cap, out_len, "buf")
    }
}

/// The notice as a printable, self-contained HTML page (string buffer
/// protocol): no script and no external resource; the reasons with their
/// codes, statements and the applicant's values, an inline SVG bar chart of
/// how much each lowered the score, the note about the first reason when no
/// advice acts on it, the advice in plain language and how the reasons were
/// ranked. Thread-safe.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cfx_notice_to_html(
    notice: *const cfx_notice,
    buf: *mut c_char,
    cap: usize,
    out_len: *mut usize,
) -> cfx_status {
    ffi_boundary! {
        let n = arc_ref(notice, "notice")?;
        write_str(&notice::to_html(&n.notice), buf, cap, out_len, "buf")
    }
}

/// Notices for a whole book: every declined applicant of the CSV file
/// `input_path` (a header naming the schema's features, categorical levels
/// by name) gets one JSON line in `output_path`, in input order —
/// `{"notice": {...}, "row": k}` (with `"id"` when `options_json` names an
/// `id_column`), or `{"error": "...", "row": k}` for a row whose notice cannot
/// be made (the run goes on); accepted applicants get no line. Each notice is
/// the one `cfx_notice_explain` makes for that row with the same arguments.
/// With `ledger_path` (NULL: none) the notices' advice is also written as an
/// advice ledger for `cfx_revalidate_ledger`: per notice, the cheapest change
/// with its robust version, and the waiting option when it waits, each record
/// carrying the notice's id (`"notice"`), so re-validation names the notices
/// whose promises break; record ids are the id column's cells, else
/// `row-<k>`. `config` may be NULL (the defaults of `cfx_coherent_explain`).
/// `options_json` may be NULL or take the keys of
/// `cfx_notice_explain` plus `ignore_columns` (an array: columns that are not
/// features, e.g. the label) and `id_column`. Both outputs are written as
/// every cfx output: never over an input or each other (refused before
/// anything is opened), through a partial file renamed over the target only
/// when the whole book is done, so a failed or killed run leaves both targets
/// as they were. `*out_declined` (may be NULL) receives the number of lines
/// written. Errors: `NULL_ARGUMENT`, `INVALID_ARGUMENT` (an output naming an
/// input, a reference dataset or model of another schema, bad options or
/// configuration), `FORMAT_ERROR` (bad options JSON or reason table),
/// `IO_ERROR` (unreadable input, unwritable output), `DATA_ERROR` (a header
/// without a feature or with an unknown column). Thread-safe.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cfx_notice_book(
    schema: *const cfx_schema,
    model: *const cfx_model,
    reference: *const cfx_dataset,
    config: *const cfx_config,
    input_path: *const c_char,
    output_path: *const c_char,
    ledger_path: *const c_char,
    options_json: *const c_char,
    out_declined: *mut usize,
) -> cfx_status {
    ffi_boundary! {
        let s = arc_clone(schema, "schema")?;
        let m = arc_clone(model, "model")?;
        let data = arc_ref(reference, "reference")?;
        let input = std::path::PathBuf::from(str_in(input_path, "input_path")?);
        let output = std::path::PathBuf::from(str_in(output_path, "output_path")?);
        let ledger = if ledger_path.is_null() {
            None
        } else {
            Some(std::path::PathBuf::from(str_in(ledger_path, "ledger_path")?))
        };
        let o = NoticeJson::read(options_json)?;
        let opts = o.notice_options(config)?;
        let table = reason_table(&o, &s)?;
        let r = Reference::new(m.as_ref(), data, o.reference)?;
        let book = NoticeBookOptions {
            ignore_columns: o.ignore_columns.clone(),
            id_column: o.id_column.clone(),
        };
        let sum = notice::notices_csv(
            &m,
            &s,
            &input,
            &output,
            ledger.as_deref(),
            &r,
            table.as_ref().map(|t| &t.0),
            &opts,
            &book,
        )?;
        super::handle::write_optional([(out_declined, sum.declined)]);
        Ok(())
    }
}

/// Releases a notice. NULL is a no-op. Any thread, once.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cfx_notice_free(notice: *const cfx_notice) {
    ffi_boundary! { arc_free(notice) }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ffi::data::{cfx_dataset_free, cfx_dataset_load_german, cfx_dataset_schema};
    use crate::ffi::error::{cfx_last_error_length, cfx_last_error_message};
    use crate::ffi::model::{cfx_model_fit_linear, cfx_model_free};
    use crate::ffi::schema::cfx_schema_free;
    use crate::model::Model;
    use std::ffi::{CStr, CString};
    use std::ptr::{null, null_mut};

    fn text(f: impl Fn(*mut c_char, usize, *mut usize) -> cfx_status) -> String {
        let mut need = 0;
        assert_eq!(f(null_mut(), 0, &mut need), cfx_status::BufferTooSmall);
        let mut buf = vec![0 as c_char; need];
        assert_eq!(f(buf.as_mut_ptr(), need, &mut need), cfx_status::Ok);
        unsafe { CStr::from_ptr(buf.as_ptr()) }
            .to_str()
            .unwrap()
            .to_string()
    }

    fn last_error() -> String {
        let n = cfx_last_error_length();
        let mut buf = vec![0 as c_char; n.max(1)];
        unsafe {
            assert_eq!(
                cfx_last_error_message(buf.as_mut_ptr(), n.max(1)),
                cfx_status::Ok
            );
            CStr::from_ptr(buf.as_ptr()).to_str().unwrap().to_string()
        }
    }

    /// The notice options' robust version reads the box of issue 43 as
    /// `Robustness` reads it everywhere (`"box_kind"`, default the reals), and
    /// an unknown box is refused by name.
    #[test]
    fn notice_options_read_the_robust_box() {
        use crate::coherent::BoxKind;
        let read =
            |j: &str| crate::json::options_or_default::<NoticeJson>(Some(j), "notice options");
        let o = read(
            r#"{"robustness": {"sigma2": 0.01, "invalidation_target": 0.1,
                "box_kind": "reachable_values"}}"#,
        )
        .unwrap();
        assert_eq!(o.robustness.unwrap().box_kind, BoxKind::ReachableValues);
        let o = read(r#"{"robustness": {"sigma2": 0.01, "invalidation_target": 0.1}}"#).unwrap();
        assert_eq!(o.robustness.unwrap().box_kind, BoxKind::Reals);
        assert_eq!(
            NoticeJson::default().robustness.unwrap().box_kind,
            BoxKind::Reals
        );
        let Err(e) = read(
            r#"{"robustness": {"sigma2": 0.01, "invalidation_target": 0.1, "box_kind": "integers"}}"#,
        ) else {
            panic!("an unknown box is refused");
        };
        let e = e.to_string();
        assert!(
            e.contains("integers") && e.contains("reachable_values"),
            "{e}"
        );
    }

    /// The C notice is the core's notice (the oracle: `cfx::notice::notice`
    /// called directly on the same objects), in the result envelope; its
    /// page is the core's page; bad input is a status and a message, and
    /// the out-parameter is left alone.
    #[test]
    fn the_c_notice_is_the_cores_and_bad_input_is_refused() {
        unsafe {
            let (mut d, mut s, mut m) = (null(), null(), null());
            assert_eq!(cfx_dataset_load_german(null(), &mut d), cfx_status::Ok);
            assert_eq!(cfx_dataset_schema(d, &mut s), cfx_status::Ok);
            assert_eq!(cfx_model_fit_linear(d, 1.0, &mut m), cfx_status::Ok);
            let (data, schema, model) = (
                arc_ref(d, "d").unwrap(),
                arc_ref(s, "s").unwrap(),
                arc_ref(m, "m").unwrap(),
            );
            let accepted = |r: &[f64]| model.accepts(&schema.encode(r).unwrap());
            let declined = data.rows.iter().find(|r| !accepted(r)).unwrap().clone();
            let ok = data.rows.iter().find(|r| accepted(r)).unwrap().clone();
            let table_path = concat!(
                env!("CARGO_MANIFEST_DIR"),
                "/examples/data/reasons/german_reasons.csv"
            );
            let opts = CString::new(format!(
                r#"{{"max_reasons": 3, "reference": {{"kind": "at_cutoff", "band": 1.0}},
                    "reason_table_path": "{table_path}", "necessity": false}}"#
            ))
            .unwrap();
            let mut n = null();
            let st = cfx_notice_explain(
                s,
                m,
                d,
                null(),
                declined.as_ptr(),
                declined.len(),
                opts.as_ptr(),
                &mut n,
            );
            assert_eq!(st, cfx_status::Ok, "{}", last_error());

            let table =
                ReasonTable::from_csv(&std::fs::read_to_string(table_path).unwrap(), schema)
                    .unwrap();
            let reference =
                Reference::new(model, data, ReferenceKind::AtCutoff { band: 1.0 }).unwrap();
            let mut o = NoticeOptions {
                skip_necessity: true,
                ..Default::default()
            };
            o.reasons.max_reasons = 3;
            let core =
                notice::notice(model, schema, &declined, &reference, Some(&table), &o).unwrap();
            assert!(!core.reasons.reasons.is_empty() && core.reasons.reasons.len() <= 3);

            let json = text(|b, c, l| cfx_notice_to_json(n, b, c, l));
            let v: serde_json::Value = serde_json::from_str(&json).unwrap();
            assert_eq!(v["kind"], "notice");
            assert_eq!(v["result"], serde_json::to_value(&core).unwrap());
            assert!(
                v["inputs"]["reference"].is_string() && v["inputs"]["reason_table"].is_string()
            );
            let html = text(|b, c, l| cfx_notice_to_html(n, b, c, l));
            assert_eq!(html, notice::to_html(&core));
            assert!(!html.contains("<script"));

            // Refusals: each a status with a message, `out` untouched.
            let sentinel = std::ptr::dangling::<cfx_notice>();
            let cases: Vec<(&[f64], Option<&str>, cfx_status, &str)> = vec![
                (&ok, None, cfx_status::InvalidArgument, "accepts"),
                (
                    &declined,
                    Some(r#"{"max_reason": 3}"#),
                    cfx_status::FormatError,
                    "max_reason",
                ),
                (
                    &declined,
                    Some("not json"),
                    cfx_status::FormatError,
                    "notice options",
                ),
                (
                    &declined,
                    Some(r#"{"reason_table_path": "x.csv", "reason_table": {}}"#),
                    cfx_status::InvalidArgument,
                    "not both",
                ),
                (
                    &declined,
                    Some(r#"{"reason_table_path": "/nonexistent/reasons.csv"}"#),
                    cfx_status::IoError,
                    "reasons.csv",
                ),
                (
                    &declined,
                    Some(r#"{"max_reasons": 0}"#),
                    cfx_status::InvalidArgument,
                    "max_reasons",
                ),
                (&declined[..3], None, cfx_status::DimensionMismatch, ""),
            ];
            for (row, options, status, needle) in cases {
                let o = options.map(|t| CString::new(t).unwrap());
                let mut out = sentinel;
                let st = cfx_notice_explain(
                    s,
                    m,
                    d,
                    null(),
                    row.as_ptr(),
                    row.len(),
                    o.as_ref().map_or(null(), |c| c.as_ptr()),
                    &mut out,
                );
                assert_eq!(st, status, "{options:?}: {}", last_error());
                assert!(
                    last_error().contains(needle),
                    "{options:?}: {}",
                    last_error()
                );
                assert_eq!(out, sentinel);
            }
            let mut out = sentinel;
            let st = cfx_notice_explain(
                s,
                m,
                null(),
                null(),
                declined.as_ptr(),
                declined.len(),
                null(),
                &mut out,
            );
            assert_eq!(st, cfx_status::NullArgument);
            assert!(last_error().contains("reference"));
            assert_eq!(out, sentinel);
            assert_eq!(
                cfx_notice_to_json(null(), null_mut(), 0, &mut 0),
                cfx_status::NullArgument
            );

            cfx_notice_free(n);
            cfx_notice_free(null());
            cfx_model_free(m);
            cfx_schema_free(s);
            cfx_dataset_free(d);
        }
    }
}
