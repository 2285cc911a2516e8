//! Through C, a robust result says whether its row is advice (issue 25):
//! `cfx_robust_result_to_json` carries `advice` — `valid` when the model
//! accepts the method's row, `no_advice` (the row kept as `best_effort`) when
//! it does not and no repair exists — and so do the getters
//! `cfx_robust_result_advice_status`, `_advice_raw` and `_advice_describe`.

use cfx::ffi::advice::cfx_advice_status;
use cfx::ffi::model::*;
use cfx::ffi::robust::*;
use cfx::ffi::schema::*;
use cfx::ffi::status::cfx_status;
use std::ffi::{CString, c_char};
use std::ptr::{null, null_mut};

/// The example applicant schema with only income mutable, its increase
/// limited to `limit` (format 2), and the example model.
fn setup(limit: &str) -> (*const cfx_schema, *const cfx_model) {
    let schema = format!(
        r#"{{
  "format_version": 2,
  "features": [
    {{ "name": "income", "kind": "contiguous", "lower": 0.0, "upper": 100000.0, "integer": true{limit} }},
    {{
      "name": "months_since_delinquency", "kind": "contiguous", "lower": 0.0, "upper": 120.0, "integer": true,
      "special_states": [ {{ "code": -7.0, "label": "no delinquency record" }} ],
      "actionability": {{ "mutable": false }}
    }},
    {{ "name": "housing", "kind": "categorical", "levels": ["own", "rent", "free"], "actionability": {{ "mutable": false }} }},
    {{ "name": "age", "kind": "contiguous", "lower": 18.0, "upper": 90.0, "integer": true, "actionability": {{ "mutable": false }} }}
  ]
}}"#
    );
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let mj = std::fs::read_to_string(root.join("examples/c/data/applicant_model.json")).unwrap();
    let (sj, mj) = (CString::new(schema).unwrap(), CString::new(mj).unwrap());
    let (mut s, mut m) = (null(), null());
    unsafe {
        assert_eq!(cfx_schema_from_json(sj.as_ptr(), &mut s), cfx_status::Ok);
        assert_eq!(cfx_model_from_json(s, mj.as_ptr(), &mut m), cfx_status::Ok);
    }
    (s, m)
}

/// What the advice getters say of a result: status, advice row, description.
struct Getters {
    status: i32,
    advice: Vec<f64>,
    text: String,
}

/// Reads the three advice getters, each with the buffer protocol.
unsafe fn getters(result: *const cfx_robust_result) -> Getters {
    unsafe {
        let mut status = -1;
        assert_eq!(
            cfx_robust_result_advice_status(result, &mut status),
            cfx_status::Ok
        );
        let mut need = usize::MAX;
        let st = cfx_robust_result_advice_raw(result, null_mut(), 0, &mut need);
        let mut advice = vec![f64::NAN; need];
        if need > 0 {
            assert_eq!(st, cfx_status::BufferTooSmall);
            assert_eq!(
                cfx_robust_result_advice_raw(result, advice.as_mut_ptr(), need, &mut need),
                cfx_status::Ok
            );
        } else {
            assert_eq!(st, cfx_status::Ok);
        }
        let mut need = 0;
        assert_eq!(
            cfx_robust_result_advice_describe(result, null_mut(), 0, &mut need),
            cfx_status::BufferTooSmall
        );
        let mut buf = vec![0 as c_char; need];
        assert_eq!(
            cfx_robust_result_advice_describe(result, buf.as_mut_ptr(), need, &mut need),
            cfx_status::Ok
        );
        let text = std::ffi::CStr::from_ptr(buf.as_ptr())
            .to_str()
            .unwrap()
            .to_string();
        Getters {
            status,
            advice,
            text,
        }
    }
}

/// Wachter through C on the applicant (income 30,000, no delinquency record,
/// renting, 30): the result's JSON under `advice`, and the summary's validity.
fn wachter_advice(limit: &str) -> (serde_json::Value, i32) {
    let (v, valid, _) = wachter_advice_getters(limit);
    (v, valid)
}

/// [`wachter_advice`] with what the getters say.
fn wachter_advice_getters(limit: &str) -> (serde_json::Value, i32, Getters) {
    let (schema, model) = setup(limit);
    unsafe {
        let mut noise = null();
        assert_eq!(
            cfx_noise_gaussian_new(schema, 0.01, &mut noise),
            cfx_status::Ok
        );
        let raw = [30000.0, -7.0, 1.0, 30.0];
        let mut result = null();
        assert_eq!(
            cfx_robust_generate(
                schema,
                model,
                noise,
                0,
                null(),
                raw.as_ptr(),
                4,
                &mut result
            ),
            cfx_status::Ok
        );
        let mut valid = -1;
        assert_eq!(
            cfx_robust_result_summary(
                result,
                &mut valid,
                null_mut(),
                null_mut(),
                null_mut(),
                null_mut(),
                null_mut(),
                null_mut(),
                null_mut()
            ),
            cfx_status::Ok
        );
        let mut need = 0;
        assert_eq!(
            cfx_robust_result_to_json(result, null(), null(), null_mut(), 0, &mut need),
            cfx_status::BufferTooSmall
        );
        let mut buf = vec![0 as c_char; need];
        assert_eq!(
            cfx_robust_result_to_json(result, null(), null(), buf.as_mut_ptr(), need, &mut need),
            cfx_status::Ok
        );
        let text = std::ffi::CStr::from_ptr(buf.as_ptr()).to_str().unwrap();
        let v: serde_json::Value = serde_json::from_str(text).unwrap();
        let g = getters(result);
        cfx_robust_result_free(result);
        cfx_noise_free(noise);
        cfx_model_free(model);
        cfx_schema_free(schema);
        (v["result"].clone(), valid, g)
    }
}

#[test]
fn an_accepted_row_is_valid_advice() {
    let (r, valid) = wachter_advice("");
    assert_eq!(valid, 1);
    let a = &r["advice"];
    assert_eq!(a["outcome"], "valid", "{a}");
    assert_eq!(a["advice"], r["raw"]);
    assert!(a["probability"].as_f64().unwrap() > 0.5);
    assert!(a["rejected_because"].is_null());
}

/// Income may rise by 1,000 only: the model still declines Wachter's row,
/// and no change within the limit is accepted (score −0.133 at the applicant,
/// income weighs 4 per 100,000: about +3,400 is needed), so there is no advice
/// and the row is the best effort.
#[test]
fn a_declined_row_is_no_advice_with_its_best_effort() {
    let (r, valid) = wachter_advice(r#", "actionability": { "max_increase": { "units": 1000 } }"#);
    assert_eq!(valid, 0);
    let a = &r["advice"];
    assert_eq!(a["outcome"], "no_advice", "{a}");
    assert!(a["advice"].is_null());
    assert_eq!(a["best_effort"], r["raw"]);
    assert!(
        a["rejected_because"]
            .as_str()
            .unwrap()
            .contains("declined by the model"),
        "{a}"
    );
    assert!(a["probability"].as_f64().unwrap() <= 0.5);
}

/// The getters agree with the JSON: status code, advice row, description.
fn assert_getters_match_json(r: &serde_json::Value, g: &Getters) {
    let a = &r["advice"];
    let expected = match (a["outcome"].as_str().unwrap(), a["repair_scope"].as_str()) {
        ("valid", _) => cfx_advice_status::Valid,
        ("repaired", Some("whole_schema")) => cfx_advice_status::RepairedWholeSchema,
        ("repaired", _) => cfx_advice_status::RepairedMovedFeatures,
        ("no_advice", _) => cfx_advice_status::NoAdvice,
        other => panic!("unknown outcome {other:?}"),
    };
    assert_eq!(g.status, expected as i32, "{a}");
    let row: Vec<f64> = a["advice"]
        .as_array()
        .map(|v| v.iter().map(|x| x.as_f64().unwrap()).collect())
        .unwrap_or_default();
    assert_eq!(g.advice, row, "{a}");
}

#[test]
fn the_getters_say_valid_advice_and_its_row() {
    let (r, _, g) = wachter_advice_getters("");
    assert_getters_match_json(&r, &g);
    assert_eq!(g.status, cfx_advice_status::Valid as i32);
    let raw: Vec<f64> = r["raw"]
        .as_array()
        .unwrap()
        .iter()
        .map(|x| x.as_f64().unwrap())
        .collect();
    assert_eq!(g.advice, raw);
    assert!(g.text.starts_with("income: 30000 → "), "{}", g.text);
    assert!(g.text.contains("(accepted, probability 0."), "{}", g.text);
}

#[test]
fn the_getters_say_no_advice_with_an_empty_row() {
    let (r, _, g) =
        wachter_advice_getters(r#", "actionability": { "max_increase": { "units": 1000 } }"#);
    assert_getters_match_json(&r, &g);
    assert_eq!(g.status, cfx_advice_status::NoAdvice as i32);
    assert!(g.advice.is_empty());
    assert!(
        g.text.starts_with(
            "no valid advice found (the method's best effort was declined by the model"
        ),
        "{}",
        g.text
    );
}

#[test]
fn the_getters_refuse_null_arguments() {
    unsafe {
        let mut status = 0;
        assert_eq!(
            cfx_robust_result_advice_status(null(), &mut status),
            cfx_status::NullArgument
        );
        let mut n = 0;
        assert_eq!(
            cfx_robust_result_advice_raw(null(), null_mut(), 0, &mut n),
            cfx_status::NullArgument
        );
        assert_eq!(
            cfx_robust_result_advice_describe(null(), null_mut(), 0, &mut n),
            cfx_status::NullArgument
        );
    }
}
