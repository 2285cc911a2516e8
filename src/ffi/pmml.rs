//! Importing a PMML 4.x model (`cfx::model::pmml`): a `Scorecard` or a binary
//! logit `RegressionModel`, from a string or from a file, onto a schema. The
//! result is an ordinary `cfx_model` (kind `CFX_MODEL_KIND_SCORECARD` or
//! `CFX_MODEL_KIND_LINEAR`) that every call taking a model accepts.
//!
//! `options_json` may be NULL (no declarations) or a JSON object with the
//! optional keys `favourable_class` (a classifier's accepted target category:
//! required for a RegressionModel), `threshold` (accepted iff the probability
//! of the favourable class > threshold; default 0.5), `accept`
//! (`"at_or_above"` or `"at_or_below"`: required for a Scorecard), `cutoff`
//! (the scorecard's cutoff in the file's score units: required for a
//! Scorecard), `scaling` (`{"factor": …, "offset": …}`, log-odds of the
//! favourable outcome = (score − offset)/factor) and `special_as_missing`
//! (contiguous features whose special states reach the model as missing
//! values); an unknown key is `CFX_STATUS_FORMAT_ERROR`. A model, element or
//! attribute cfx does not evaluate exactly — and hostile XML (a DOCTYPE, an
//! entity, a foreign namespace, a file above 64 MiB) — is
//! `CFX_STATUS_FORMAT_ERROR` naming the element and its line in
//! `cfx_last_error_message`. What the import assumed is the `import_report`
//! list of the model's JSON (`cfx_model_to_json`). Thread-safe.

use super::handle::{arc_into_raw, arc_ref, optional_str_in, out_param, str_in};
use super::model::cfx_model;
use super::schema::cfx_schema;
use super::status::{FfiResult, cfx_status};
use crate::model::pmml::{self, PmmlOptions};
use crate::schema::Schema;
use std::ffi::c_char;
use std::sync::Arc;

fn options(options_json: *const c_char) -> FfiResult<PmmlOptions> {
    let json = optional_str_in(options_json, "options_json")?;
    Ok(crate::json::options_or_default(
        json,
        "PMML import options",
    )?)
}

/// Imports a PMML document given as a string (see the module docs). On
/// success `*out_model` owns a new handle.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cfx_model_from_pmml_str(
    schema: *const cfx_schema,
    pmml: *const c_char,
    options_json: *const c_char,
    out_model: *mut *const cfx_model,
) -> cfx_status {
    ffi_boundary! {
        let out = out_param(out_model, "out_model")?;
        let s: &Schema = arc_ref(schema, "schema")?;
        let text = str_in(pmml, "pmml")?;
        let m = pmml::from_pmml_str(text, s, &options(options_json)?)?;
        out.write(arc_into_raw(Arc::new(m)));
        Ok(())
    }
}

/// Imports a PMML file (`CFX_STATUS_IO_ERROR` when it cannot be read). On
/// success `*out_model` owns a new handle.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cfx_model_from_pmml_file(
    schema: *const cfx_schema,
    path: *const c_char,
    options_json: *const c_char,
    out_model: *mut *const cfx_model,
) -> cfx_status {
    ffi_boundary! {
        let out = out_param(out_model, "out_model")?;
        let s: &Schema = arc_ref(schema, "schema")?;
        let p = str_in(path, "path")?;
        let m = pmml::from_pmml_file(std::path::Path::new(p), s, &options(options_json)?)?;
        out.write(arc_into_raw(Arc::new(m)));
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ffi::model::{cfx_model_free, cfx_model_predict_raw, cfx_model_to_json};
    use std::ffi::CString;

    fn data(name: &str) -> CString {
        let p = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("tests/data/pmml")
            .join(name);
        CString::new(p.to_str().unwrap()).unwrap()
    }

    /// The SAS-style scorecard through the C ABI: row 0 of the committed data
    /// scores jpmml-evaluator's 'Final Score', the report is in the JSON, and
    /// bad input is a status with a message.
    #[test]
    fn a_pmml_scorecard_through_the_c_abi() {
        let text = std::fs::read_to_string(
            std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/pmml/schema.json"),
        )
        .unwrap();
        let schema = Schema::from_json(&text).unwrap();
        let s = arc_into_raw::<cfx_schema>(Arc::new(schema));
        let opts = CString::new(r#"{"accept": "at_or_above", "cutoff": 560}"#).unwrap();
        let rows = std::fs::read_to_string(
            std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/pmml/rows.csv"),
        )
        .unwrap();
        let row0: Vec<f64> = rows
            .lines()
            .nth(1)
            .unwrap()
            .split(',')
            .map(|v| v.parse().unwrap())
            .collect();
        let want: f64 = std::fs::read_to_string(
            std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
                .join("tests/data/pmml/scorecard_sas_scores.csv"),
        )
        .unwrap()
        .lines()
        .nth(1)
        .unwrap()
        .split(',')
        .nth(1)
        .unwrap()
        .parse()
        .unwrap();
        unsafe {
            let mut m: *const cfx_model = std::ptr::null();
            let path = data("scorecard_sas.pmml");
            assert_eq!(
                cfx_model_from_pmml_file(s, path.as_ptr(), opts.as_ptr(), &mut m),
                cfx_status::Ok
            );
            let (mut score, mut p, mut acc) = (0.0, 0.0, -1);
            assert_eq!(
                cfx_model_predict_raw(m, s, row0.as_ptr(), 5, &mut score, &mut p, &mut acc),
                cfx_status::Ok
            );
            assert_eq!(score, want);
            assert_eq!(acc, i32::from(want >= 560.0));
            let mut len = 0;
            cfx_model_to_json(m, std::ptr::null_mut(), 0, &mut len);
            let mut buf = vec![0 as c_char; len];
            assert_eq!(
                cfx_model_to_json(m, buf.as_mut_ptr(), len, &mut len),
                cfx_status::Ok
            );
            let json = std::ffi::CStr::from_ptr(buf.as_ptr()).to_str().unwrap();
            assert!(
                json.contains("import_report") && json.contains("RC_AGE_MID"),
                "{json}"
            );
            cfx_model_free(m);
            // No declaration: refused with the option to give.
            let mut m2: *const cfx_model = std::ptr::null();
            assert_eq!(
                cfx_model_from_pmml_file(s, path.as_ptr(), std::ptr::null(), &mut m2),
                cfx_status::FormatError
            );
            assert!(
                crate::ffi::error::last_error()
                    .unwrap_or_default()
                    .contains("at_or_above")
            );
            assert!(m2.is_null());
            let hostile = CString::new("<!DOCTYPE x [<!ENTITY a \"b\">]><PMML/>").unwrap();
            assert_eq!(
                cfx_model_from_pmml_str(s, hostile.as_ptr(), opts.as_ptr(), &mut m2),
                cfx_status::FormatError
            );
            let unknown = CString::new(r#"{"acept": "at_or_above"}"#).unwrap();
            assert_eq!(
                cfx_model_from_pmml_file(s, path.as_ptr(), unknown.as_ptr(), &mut m2),
                cfx_status::FormatError
            );
            let missing = CString::new("/nonexistent/m.pmml").unwrap();
            assert_eq!(
                cfx_model_from_pmml_file(s, missing.as_ptr(), opts.as_ptr(), &mut m2),
                cfx_status::IoError
            );
            assert_eq!(
                cfx_model_from_pmml_str(s, std::ptr::null(), opts.as_ptr(), &mut m2),
                cfx_status::NullArgument
            );
            assert!(m2.is_null());
            crate::ffi::schema::cfx_schema_free(s);
        }
    }
}
