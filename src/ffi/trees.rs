//! Importing a bank's gradient-boosted model (`cfx::model::trees`): XGBoost's
//! JSON model, LightGBM's text model, CatBoost's JSON model and an Explainable
//! Boosting Machine's JSON (interpret), from a string or from a file, onto a
//! schema. The result is an ordinary `cfx_model` (kind `CFX_MODEL_KIND_TREES`)
//! that every call taking a model accepts; the coherent MIP explains it
//! exactly, the gradient generators refuse it (`CFX_STATUS_INVALID_ARGUMENT`).
//!
//! `options_json` may be NULL (defaults) or a JSON object with the optional
//! keys `columns` (model column → `{"feature": …, "level": …}`),
//! `special_as_missing` (feature names whose special states the model saw as
//! missing values), `threshold` (the cutoff on the library's probability,
//! default 0.5: accepted above it, or below it when class 0 is favourable), `trees` (`"all"` or `"best_iteration"`, required
//! for an XGBoost model recording `best_iteration`), `category_codes` (feature →
//! level → the library's category code, for a model without category names),
//! `unseen_levels` (feature → levels the model never saw) and `missing_levels`
//! (feature → the level standing for a missing value), `favourable_class` (0 or
//! 1: which class of the model is the favourable outcome; 0 for a model of the
//! probability of default, whose margin cfx then negates) or its words
//! `score_is` (`"probability_of_default"` / `"probability_of_favourable"`) —
//! undeclared, class 1 is assumed and the import report says so in capitals;
//! check the declaration on labelled applicants with
//! `cfx_model_check_favourable` — and `missing` (XGBoost only: the value the
//! live `XGBClassifier(missing=…)` treats as missing, which the JSON does not
//! record; a special state's code equal to it reaches the trees as missing, a
//! value inside a feature's range is refused); an unknown key is
//! `CFX_STATUS_FORMAT_ERROR`. A model the importer does not understand, or one it
//! could only read by guessing, is `CFX_STATUS_FORMAT_ERROR` with the reason and
//! the option to give in `cfx_last_error_message`. What the import assumed is the
//! `import_report` list of the model's JSON (`cfx_model_to_json`). Thread-safe.

use super::handle::{arc_into_raw, arc_ref, optional_str_in, out_param, str_in};
use super::model::cfx_model;
use super::schema::cfx_schema;
use super::status::{FfiResult, cfx_status};
use crate::error::Error;
use crate::model::trees::ImportOptions;
use crate::model::{AnyModel, TreeEnsemble};
use crate::schema::Schema;
use std::ffi::c_char;
use std::sync::Arc;

/// Which library's format.
#[derive(Clone, Copy)]
enum Format {
    Xgboost,
    Lightgbm,
    Catboost,
    Ebm,
}

fn import(
    schema: *const cfx_schema,
    text: &str,
    format: Format,
    options_json: *const c_char,
    out_model: *mut *const cfx_model,
) -> FfiResult<()> {
    let out = out_param(out_model, "out_model")?;
    let s: &Schema = arc_ref(schema, "schema")?;
    let json = optional_str_in(options_json, "options_json")?;
    let options: ImportOptions = crate::json::options_or_default(json, "import options")?;
    let m = match format {
        Format::Xgboost => TreeEnsemble::from_xgboost_json(text, s, &options)?,
        Format::Lightgbm => TreeEnsemble::from_lightgbm_text(text, s, &options)?,
        Format::Catboost => TreeEnsemble::from_catboost_json(text, s, &options)?,
        Format::Ebm => TreeEnsemble::from_ebm_json(text, s, &options)?,
    };
    out.write(arc_into_raw(Arc::new(AnyModel::Trees(m))));
    Ok(())
}

fn read(path: *const c_char) -> FfiResult<String> {
    let p = str_in(path, "path")?;
    Ok(std::fs::read_to_string(p).map_err(|e| Error::Io(format!("{p}: {e}")))?)
}

/// Imports an XGBoost JSON model (`Booster.save_model("m.json")`, objective
/// `binary:logistic`) given as a string. On success `*out_model` owns a new handle.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cfx_model_from_xgboost_json(
    schema: *const cfx_schema,
    json: *const c_char,
    options_json: *const c_char,
    out_model: *mut *const cfx_model,
) -> cfx_status {
    ffi_boundary! {
        import(schema, str_in(json, "json")?, Format::Xgboost, options_json, out_model)
    }
}

/// Imports an XGBoost JSON model from a file (`CFX_STATUS_IO_ERROR` when it
/// cannot be read). On success `*out_model` owns a new handle.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cfx_model_from_xgboost_file(
    schema: *const cfx_schema,
    path: *const c_char,
    options_json: *const c_char,
    out_model: *mut *const cfx_model,
) -> cfx_status {
    ffi_boundary! {
        import(schema, &read(path)?, Format::Xgboost, options_json, out_model)
    }
}

/// Imports a LightGBM text model (`Booster.save_model("m.txt")`, objective
/// `binary`) given as a string. On success `*out_model` owns a new handle.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cfx_model_from_lightgbm_text(
    schema: *const cfx_schema,
    text: *const c_char,
    options_json: *const c_char,
    out_model: *mut *const cfx_model,
) -> cfx_status {
    ffi_boundary! {
        import(schema, str_in(text, "text")?, Format::Lightgbm, options_json, out_model)
    }
}

/// Imports a LightGBM text model from a file (`CFX_STATUS_IO_ERROR` when it
/// cannot be read). On success `*out_model` owns a new handle.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cfx_model_from_lightgbm_file(
    schema: *const cfx_schema,
    path: *const c_char,
    options_json: *const c_char,
    out_model: *mut *const cfx_model,
) -> cfx_status {
    ffi_boundary! {
        import(schema, &read(path)?, Format::Lightgbm, options_json, out_model)
    }
}

/// Imports a CatBoost JSON model (`save_model("m.json", format="json",
/// pool=…)`, loss Logloss, oblivious trees; CTR features refused) given as a
/// string. The options are the tree importers' (`missing`, `trees` and
/// `category_codes` do not apply). On success `*out_model` owns a new handle.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cfx_model_from_catboost_json_str(
    schema: *const cfx_schema,
    json: *const c_char,
    options_json: *const c_char,
    out_model: *mut *const cfx_model,
) -> cfx_status {
    ffi_boundary! {
        import(schema, str_in(json, "json")?, Format::Catboost, options_json, out_model)
    }
}

/// Imports a CatBoost JSON model from a file (`CFX_STATUS_IO_ERROR` when it
/// cannot be read). On success `*out_model` owns a new handle.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cfx_model_from_catboost_json_file(
    schema: *const cfx_schema,
    path: *const c_char,
    options_json: *const c_char,
    out_model: *mut *const cfx_model,
) -> cfx_status {
    ffi_boundary! {
        import(schema, &read(path)?, Format::Catboost, options_json, out_model)
    }
}

/// Imports an Explainable Boosting Machine (interpret's JSON, `ebm.to_json`,
/// version "1.0", binary classifier) given as a string: one tree per main term
/// or pair. The options are the tree importers' (`missing`, `trees` and
/// `category_codes` do not apply). On success `*out_model` owns a new handle.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cfx_model_from_ebm_json_str(
    schema: *const cfx_schema,
    json: *const c_char,
    options_json: *const c_char,
    out_model: *mut *const cfx_model,
) -> cfx_status {
    ffi_boundary! {
        import(schema, str_in(json, "json")?, Format::Ebm, options_json, out_model)
    }
}

/// Imports an Explainable Boosting Machine's JSON from a file
/// (`CFX_STATUS_IO_ERROR` when it cannot be read). On success `*out_model`
/// owns a new handle.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cfx_model_from_ebm_json_file(
    schema: *const cfx_schema,
    path: *const c_char,
    options_json: *const c_char,
    out_model: *mut *const cfx_model,
) -> cfx_status {
    ffi_boundary! {
        import(schema, &read(path)?, Format::Ebm, options_json, out_model)
    }
}
