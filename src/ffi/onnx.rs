//! Importing an ONNX model (`cfx::model::onnx`): a binary classifier graph
//! (`LinearClassifier`, MatMul/Gemm layers, `TreeEnsembleClassifier` /
//! `TreeEnsembleRegressor`), from a file or from bytes in memory (as a model
//! registry hands them out), onto a schema. The
//! result is an ordinary `cfx_model` (kind `CFX_MODEL_KIND_LINEAR`,
//! `CFX_MODEL_KIND_MLP` or `CFX_MODEL_KIND_TREES`) that every call taking a
//! model accepts.
//!
//! `options_json` may be NULL (no declarations: refused, since the favourable
//! class must be declared) or a JSON object with the optional keys `columns`
//! (the input tensor's columns in order: schema feature names, or
//! `"<feature>=<level>"` for a one-hot column; default: the schema's features
//! in order), `favourable_class` (the integer label of the class the bank
//! accepts), `favourable_label` (the same for string labels), `score_is`
//! (`"probability_of_default"` or `"probability_of_favourable"`),
//! `threshold` (the cutoff on the model's probability of its second class;
//! default 0.5), `special_as_missing` (contiguous features whose special states
//! reach the model as NaN) and `category_codes` (per categorical feature read
//! as a level-index column, the value of each level); an unknown key is
//! `CFX_STATUS_FORMAT_ERROR`. An operator, domain or graph shape cfx does not
//! evaluate exactly — and a truncated or corrupt protobuf, a file above 64 MiB
//! — is `CFX_STATUS_FORMAT_ERROR` naming the node in `cfx_last_error_message`.
//! What the import assumed is the `import_report` list of the model's JSON
//! (`cfx_model_to_json`). Thread-safe.

use super::handle::{arc_into_raw, arc_ref, optional_str_in, out_param, slice_in, str_in};
use super::model::cfx_model;
use super::schema::cfx_schema;
use super::status::{FfiResult, cfx_status};
use crate::model::onnx::{self, OnnxOptions};
use crate::schema::Schema;
use std::ffi::c_char;
use std::sync::Arc;

fn options(options_json: *const c_char) -> FfiResult<OnnxOptions> {
    let json = optional_str_in(options_json, "options_json")?;
    Ok(crate::json::options_or_default(
        json,
        "ONNX import options",
    )?)
}

/// Imports an ONNX file (`CFX_STATUS_IO_ERROR` when it cannot be read). On
/// success `*out_model` owns a new handle.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cfx_model_from_onnx_file(
    schema: *const cfx_schema,
    path: *const c_char,
    options_json: *const c_char,
    out_model: *mut *const cfx_model,
) -> cfx_status {
    ffi_boundary! {
        let out = out_param(out_model, "out_model")?;
        let s: &Schema = arc_ref(schema, "schema")?;
        let p = str_in(path, "path")?;
        let m = onnx::from_onnx_file(std::path::Path::new(p), s, &options(options_json)?)?;
        out.write(arc_into_raw(Arc::new(m)));
        Ok(())
    }
}

/// Imports an ONNX model from the `bytes_len` bytes at `bytes` (the content of
/// a `.onnx` file, e.g. as a model registry returns it), with the options of
/// `cfx_model_from_onnx_file`. `bytes` may be NULL only when `bytes_len` is 0
/// (else `CFX_STATUS_NULL_ARGUMENT`); no bytes, garbage or a truncated
/// protobuf is `CFX_STATUS_FORMAT_ERROR` with the reason. The bytes are only
/// read during the call. On success `*out_model` owns a new handle.
/// Thread-safe.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cfx_model_from_onnx_bytes(
    schema: *const cfx_schema,
    bytes: *const u8,
    bytes_len: usize,
    options_json: *const c_char,
    out_model: *mut *const cfx_model,
) -> cfx_status {
    ffi_boundary! {
        let out = out_param(out_model, "out_model")?;
        let s: &Schema = arc_ref(schema, "schema")?;
        let b = slice_in(bytes, bytes_len, "bytes")?;
        let m = onnx::from_onnx_bytes(b, s, &options(options_json)?)?;
        out.write(arc_into_raw(Arc::new(m)));
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ffi::model::{cfx_model_free, cfx_model_predict_raw, cfx_model_to_json};
    use std::ffi::CString;

    fn data(name: &str) -> std::path::PathBuf {
        std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("tests/data/onnx")
            .join(name)
    }

    /// scikit-learn's gradient boosting through the C ABI: row 0 of the committed data gets onnxruntime's probability (to
    /// float32 precision), the report is in the JSON, and bad input is a
    /// status with a message.
    #[test]
    fn an_onnx_tree_ensemble_through_the_c_abi() {
        let schema =
            Schema::from_json(&std::fs::read_to_string(data("schema.json")).unwrap()).unwrap();
        let s = arc_into_raw::<cfx_schema>(Arc::new(schema));
        let opts = CString::new(r#"{"favourable_class": 1}"#).unwrap();
        let rows = std::fs::read_to_string(data("rows.csv")).unwrap();
        let row0: Vec<f64> = rows
            .lines()
            .nth(1)
            .unwrap()
            .split(',')
            .map(|v| v.parse().unwrap())
            .collect();
        let want: f64 = std::fs::read_to_string(data("sklearn_gb_scores.csv"))
            .unwrap()
            .lines()
            .nth(1)
            .unwrap()
            .split(',')
            .nth(1)
            .unwrap()
            .parse()
            .unwrap();
        let bytes = std::fs::read(data("sklearn_gb.onnx")).unwrap();
        let path = CString::new(data("sklearn_gb.onnx").to_str().unwrap()).unwrap();
        unsafe {
            {
                let mut m: *const cfx_model = std::ptr::null();
                let st = cfx_model_from_onnx_file(s, path.as_ptr(), opts.as_ptr(), &mut m);
                assert_eq!(st, cfx_status::Ok);
                let (mut score, mut p, mut acc) = (0.0, 0.0, -1);
                assert_eq!(
                    cfx_model_predict_raw(m, s, row0.as_ptr(), 5, &mut score, &mut p, &mut acc),
                    cfx_status::Ok
                );
                assert!((p - want).abs() < 1e-6, "{p} vs {want}");
                assert_eq!(acc, i32::from(want > 0.5));
                let mut len = 0;
                cfx_model_to_json(m, std::ptr::null_mut(), 0, &mut len);
                let mut buf = vec![0 as c_char; len];
                assert_eq!(
                    cfx_model_to_json(m, buf.as_mut_ptr(), len, &mut len),
                    cfx_status::Ok
                );
                let json = std::ffi::CStr::from_ptr(buf.as_ptr()).to_str().unwrap();
                assert!(json.contains("import_report"), "{json}");
                cfx_model_free(m);
            }
            let mut m2: *const cfx_model = std::ptr::null();
            // No declaration: refused with the option to give.
            assert_eq!(
                cfx_model_from_onnx_file(s, path.as_ptr(), std::ptr::null(), &mut m2),
                cfx_status::FormatError
            );
            assert!(
                crate::ffi::error::last_error()
                    .unwrap_or_default()
                    .contains("favourable_class")
            );
            assert!(m2.is_null());
            let truncated =
                std::env::temp_dir().join(format!("cfx-onnx-{}.onnx", std::process::id()));
            std::fs::write(&truncated, &bytes[..bytes.len() / 2]).unwrap();
            let tpath = CString::new(truncated.to_str().unwrap()).unwrap();
            assert_eq!(
                cfx_model_from_onnx_file(s, tpath.as_ptr(), opts.as_ptr(), &mut m2),
                cfx_status::FormatError
            );
            std::fs::remove_file(&truncated).unwrap();
            let unknown = CString::new(r#"{"favorable_class": 1}"#).unwrap();
            assert_eq!(
                cfx_model_from_onnx_file(s, path.as_ptr(), unknown.as_ptr(), &mut m2),
                cfx_status::FormatError
            );
            let missing = CString::new("/nonexistent/m.onnx").unwrap();
            assert_eq!(
                cfx_model_from_onnx_file(s, missing.as_ptr(), opts.as_ptr(), &mut m2),
                cfx_status::IoError
            );
            assert_eq!(
                cfx_model_from_onnx_file(s, std::ptr::null(), opts.as_ptr(), &mut m2),
                cfx_status::NullArgument
            );
            assert!(m2.is_null());
            crate::ffi::schema::cfx_schema_free(s);
        }
    }

    /// The same graph from memory scores every committed row exactly as from
    /// the file (same handle JSON: the one reader behind both); NULL with a
    /// length, no bytes, garbage and a truncated protobuf are statuses with a
    /// message, and no handle.
    #[test]
    fn an_onnx_model_from_bytes_equals_the_file() {
        let schema =
            Schema::from_json(&std::fs::read_to_string(data("schema.json")).unwrap()).unwrap();
        let s = arc_into_raw::<cfx_schema>(Arc::new(schema));
        let opts = CString::new(r#"{"favourable_class": 1}"#).unwrap();
        let bytes = std::fs::read(data("sklearn_gb.onnx")).unwrap();
        let path = CString::new(data("sklearn_gb.onnx").to_str().unwrap()).unwrap();
        let rows = std::fs::read_to_string(data("rows.csv")).unwrap();
        let rows: Vec<Vec<f64>> = rows
            .lines()
            .skip(1)
            .map(|l| l.split(',').map(|v| v.parse().unwrap()).collect())
            .collect();
        let json = |m: *const cfx_model| unsafe {
            let mut len = 0;
            cfx_model_to_json(m, std::ptr::null_mut(), 0, &mut len);
            let mut buf = vec![0 as c_char; len];
            assert_eq!(
                cfx_model_to_json(m, buf.as_mut_ptr(), len, &mut len),
                cfx_status::Ok
            );
            std::ffi::CStr::from_ptr(buf.as_ptr())
                .to_str()
                .unwrap()
                .to_owned()
        };
        unsafe {
            let (mut a, mut b): (*const cfx_model, *const cfx_model) =
                (std::ptr::null(), std::ptr::null());
            assert_eq!(
                cfx_model_from_onnx_file(s, path.as_ptr(), opts.as_ptr(), &mut a),
                cfx_status::Ok
            );
            assert_eq!(
                cfx_model_from_onnx_bytes(s, bytes.as_ptr(), bytes.len(), opts.as_ptr(), &mut b),
                cfx_status::Ok
            );
            assert_eq!(json(a), json(b));
            for row in &rows {
                let (mut sa, mut pa, mut aa) = (0.0, 0.0, -1);
                let (mut sb, mut pb, mut ab) = (0.0, 0.0, -1);
                cfx_model_predict_raw(a, s, row.as_ptr(), row.len(), &mut sa, &mut pa, &mut aa);
                cfx_model_predict_raw(b, s, row.as_ptr(), row.len(), &mut sb, &mut pb, &mut ab);
                assert_eq!(
                    (sa.to_bits(), pa.to_bits(), aa),
                    (sb.to_bits(), pb.to_bits(), ab)
                );
            }
            cfx_model_free(a);
            cfx_model_free(b);
            let mut m: *const cfx_model = std::ptr::null();
            let last = || crate::ffi::error::last_error().unwrap_or_default();
            assert_eq!(
                cfx_model_from_onnx_bytes(s, std::ptr::null(), 10, opts.as_ptr(), &mut m),
                cfx_status::NullArgument
            );
            assert!(last().contains("bytes is NULL"), "{}", last());
            for (b, len) in [(std::ptr::null(), 0), (bytes.as_ptr(), 0)] {
                assert_eq!(
                    cfx_model_from_onnx_bytes(s, b, len, opts.as_ptr(), &mut m),
                    cfx_status::FormatError
                );
                assert!(last().contains("no bytes"), "{}", last());
            }
            let garbage = b"this is not an ONNX model \xff\xfe";
            assert_eq!(
                cfx_model_from_onnx_bytes(
                    s,
                    garbage.as_ptr(),
                    garbage.len(),
                    opts.as_ptr(),
                    &mut m
                ),
                cfx_status::FormatError
            );
            assert!(last().contains("ONNX"), "{}", last());
            assert_eq!(
                cfx_model_from_onnx_bytes(
                    s,
                    bytes.as_ptr(),
                    bytes.len() / 2,
                    opts.as_ptr(),
                    &mut m
                ),
                cfx_status::FormatError
            );
            assert!(last().contains("ONNX"), "{}", last());
            assert!(m.is_null());
            crate::ffi::schema::cfx_schema_free(s);
        }
    }
}
