//! COPA's options checked as advice through C (issue 25):
//! `cfx_copa_plan_new_checked` checks every option with today's model as
//! `cfx::advice::check_or_repair` does in Rust (the oracle here: the same
//! check run in Rust on the options read back through C), repairs a declined
//! option with the exact engine, and says so per option
//! (`cfx_copa_result_option_advice_status`, `_option_advice_raw`, the plan's
//! description and JSON).

use cfx::advice::{Outcome, RepairScope, check_or_repair};
use cfx::coherent::Config;
use cfx::ffi::advice::cfx_advice_status;
use cfx::ffi::copa::*;
use cfx::ffi::model::*;
use cfx::ffi::schema::*;
use cfx::ffi::status::cfx_status;
use cfx::model::{AnyModel, Model};
use cfx::schema::Schema;
use std::ffi::{CStr, CString, c_char};
use std::ptr::{null, null_mut};

const MODEL: &str = r#"{ "format_version": 1, "kind": "linear",
  "weights": [4.0, 1.5, 0.8, 0.5, -0.3, 0.0, 1.0], "bias": -3.0, "threshold": 0.5 }"#;

/// The example applicant schema with only income mutable (its increase
/// limited by `limit`, format 2).
fn schema_json(limit: &str) -> String {
    format!(
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
    )
}

/// The applicant: income 30,000, no delinquency record, renting, 30.
const RAW: [f64; 4] = [30000.0, -7.0, 1.0, 30.0];

/// What C said of a checked plan.
struct Plan {
    options: Vec<Vec<f64>>,
    status: Vec<i32>,
    advice: Vec<Vec<f64>>,
    text: String,
    json: serde_json::Value,
}

fn read_doubles(f: impl Fn(*mut f64, usize, &mut usize) -> cfx_status) -> Vec<f64> {
    let mut need = usize::MAX;
    let st = f(null_mut(), 0, &mut need);
    if need == 0 {
        assert_eq!(st, cfx_status::Ok);
        return Vec::new();
    }
    assert_eq!(st, cfx_status::BufferTooSmall);
    let mut v = vec![f64::NAN; need];
    assert_eq!(f(v.as_mut_ptr(), need, &mut need), cfx_status::Ok);
    v
}

fn read_string(f: impl Fn(*mut c_char, usize, &mut usize) -> cfx_status) -> String {
    let mut need = 0;
    assert_eq!(f(null_mut(), 0, &mut need), cfx_status::BufferTooSmall);
    let mut b = vec![0 as c_char; need];
    assert_eq!(f(b.as_mut_ptr(), need, &mut need), cfx_status::Ok);
    unsafe { CStr::from_ptr(b.as_ptr()) }
        .to_str()
        .unwrap()
        .to_string()
}

/// A checked COPA plan through C, the future model's mean `(bias, w)` with
/// covariance 0.05·I.
fn checked_plan(limit: &str, mean: &[f64]) -> Plan {
    let (sj, mj) = (
        CString::new(schema_json(limit)).unwrap(),
        CString::new(MODEL).unwrap(),
    );
    let d = mean.len();
    let cov: Vec<f64> = (0..d * d)
        .map(|k| if k / d == k % d { 0.05 } else { 0.0 })
        .collect();
    unsafe {
        let (mut s, mut m, mut u, mut r) = (null(), null(), null(), null());
        assert_eq!(cfx_schema_from_json(sj.as_ptr(), &mut s), cfx_status::Ok);
        assert_eq!(cfx_model_from_json(s, mj.as_ptr(), &mut m), cfx_status::Ok);
        assert_eq!(
            cfx_uncertainty_new(mean.as_ptr(), d, cov.as_ptr(), d * d, &mut u),
            cfx_status::Ok
        );
        assert_eq!(
            cfx_copa_plan_new_checked(s, u, m, null(), RAW.as_ptr(), 4, &mut r),
            cfx_status::Ok
        );
        let mut n = 0;
        assert_eq!(cfx_copa_result_n_options(r, &mut n), cfx_status::Ok);
        let mut plan = Plan {
            options: Vec::new(),
            status: Vec::new(),
            advice: Vec::new(),
            text: read_string(|b, c, o| cfx_copa_result_describe(r, b, c, o)),
            json: serde_json::from_str(&read_string(|b, c, o| cfx_copa_result_to_json(r, b, c, o)))
                .unwrap(),
        };
        for k in 0..n {
            plan.options.push(read_doubles(|b, c, o| {
                cfx_copa_result_option_raw(r, k, b, c, o)
            }));
            plan.advice.push(read_doubles(|b, c, o| {
                cfx_copa_result_option_advice_raw(r, k, b, c, o)
            }));
            let mut st = -1;
            assert_eq!(
                cfx_copa_result_option_advice_status(r, k, &mut st),
                cfx_status::Ok
            );
            plan.status.push(st);
        }
        let mut st = -1;
        assert_eq!(
            cfx_copa_result_option_advice_status(r, n, &mut st),
            cfx_status::NotFound
        );
        cfx_copa_result_free(r);
        cfx_uncertainty_free(u);
        cfx_model_free(m);
        cfx_schema_free(s);
        plan
    }
}

/// The oracle: each option read back through C, checked in Rust.
fn assert_as_in_rust(limit: &str, plan: &Plan) {
    let schema = Schema::from_json(&schema_json(limit)).unwrap();
    let model = AnyModel::from_json(MODEL, &schema).unwrap();
    assert_eq!(plan.options.len(), 5, "COPA's default J");
    let lines: Vec<&str> = plan.text.lines().collect();
    // Options that are the same row share one line (`cfx::plan::coinciding_options`).
    let rows: Vec<Vec<f64>> = plan
        .options
        .iter()
        .zip(&plan.advice)
        .map(|(o, a)| if a.is_empty() { o.clone() } else { a.clone() })
        .collect();
    let groups = cfx::plan::coinciding_options(&rows);
    assert_eq!(lines.len(), groups.len(), "{}", plan.text);
    let line_of = |k: usize| groups.iter().position(|g| g.contains(&k)).unwrap();
    for (k, option) in plan.options.iter().enumerate() {
        let c = check_or_repair(&schema, &model, &RAW, option, Some(&Config::default())).unwrap();
        let code = match (c.outcome, c.repair_scope) {
            (Outcome::Valid, _) => cfx_advice_status::Valid,
            (Outcome::Repaired, Some(RepairScope::WholeSchema)) => {
                cfx_advice_status::RepairedWholeSchema
            }
            (Outcome::Repaired, _) => cfx_advice_status::RepairedMovedFeatures,
            (Outcome::NoAdvice, _) => cfx_advice_status::NoAdvice,
        };
        assert_eq!(plan.status[k], code as i32, "option {k}");
        assert_eq!(
            plan.advice[k],
            c.advice.clone().unwrap_or_default(),
            "option {k}"
        );
        let g = &groups[line_of(k)];
        assert_eq!(
            lines[line_of(k)],
            format!("{}: {}", cfx::plan::options_label(g), c.describe())
        );
        assert_eq!(
            plan.json["result"]["advice"][k]["outcome"],
            match c.outcome {
                Outcome::Valid => "valid",
                Outcome::Repaired => "repaired",
                Outcome::NoAdvice => "no_advice",
            }
        );
        // Advice, when there is some, is accepted by the model (scored here
        // by hand: logistic of w·x + b on the encoded row).
        if !plan.advice[k].is_empty() {
            let x = schema.encode(&plan.advice[k]).unwrap();
            let w = [4.0, 1.5, 0.8, 0.5, -0.3, 0.0, 1.0];
            let z: f64 = -3.0 + w.iter().zip(&x).map(|(a, b)| a * b).sum::<f64>();
            assert!(z >= 0.0, "option {k}: advice declined (score {z})");
            assert!(model.accepts(&x));
        }
    }
    assert!(
        plan.json["inputs"].to_string().contains("model")
            || plan.json.to_string().contains("model"),
        "the JSON names the model: {}",
        plan.json
    );
}

/// The future model's mean is today's model: COPA's options are accepted
/// today, so each is valid advice, the option itself.
#[test]
fn options_the_model_accepts_are_valid_advice() {
    let mean = [-3.0, 4.0, 1.5, 0.8, 0.5, -0.3, 0.0, 1.0];
    let plan = checked_plan("", &mean);
    assert_as_in_rust("", &plan);
    assert!(
        plan.status
            .iter()
            .all(|&s| s == cfx_advice_status::Valid as i32),
        "{}",
        plan.text
    );
    for (k, s) in plan.status.iter().enumerate() {
        if *s == cfx_advice_status::Valid as i32 {
            assert_eq!(plan.advice[k], plan.options[k]);
        }
    }
}

/// The future model's mean weighs income negatively (−4 where today's model
/// has +4): COPA's options lower income, which today's model declines; the
/// exact engine repairs them over income, the feature the option moved.
#[test]
fn options_the_model_declines_are_repaired_over_the_moved_features() {
    let mean = [-3.0, -4.0, 1.5, 0.8, 0.5, -0.3, 0.0, 1.0];
    let plan = checked_plan("", &mean);
    assert_as_in_rust("", &plan);
    assert!(
        plan.status
            .iter()
            .all(|&s| s == cfx_advice_status::RepairedMovedFeatures as i32),
        "{:?}\n{}",
        plan.status,
        plan.text
    );
    // The repair is the cheapest accepted income: 1 less is declined
    // (scored by hand), and nothing else moved.
    let w = [4.0, 1.5, 0.8, 0.5, -0.3, 0.0, 1.0];
    let schema = Schema::from_json(&schema_json("")).unwrap();
    for a in &plan.advice {
        assert_eq!(&a[1..], &RAW[1..]);
        let mut less = a.clone();
        less[0] -= 1.0;
        let x = schema.encode(&less).unwrap();
        let z: f64 = -3.0 + w.iter().zip(&x).map(|(a, b)| a * b).sum::<f64>();
        assert!(z < 0.0, "income {} is accepted too", less[0]);
    }
    assert!(
        plan.text
            .contains("repaired by the exact engine over the features the method moved")
    );
}

/// Income may rise by 1,000 only: no accepted row exists, every option is
/// "no valid advice found" with an empty advice row.
#[test]
fn options_without_an_accepted_row_are_no_advice() {
    let limit = r#", "actionability": { "max_increase": { "units": 1000 } }"#;
    let mean = [-3.0, 4.0, 1.5, 0.8, 0.5, -0.3, 0.0, 1.0];
    let plan = checked_plan(limit, &mean);
    assert_as_in_rust(limit, &plan);
    assert!(
        plan.status
            .iter()
            .all(|&s| s == cfx_advice_status::NoAdvice as i32),
        "{:?}",
        plan.status
    );
    assert!(plan.advice.iter().all(|a| a.is_empty()));
    for line in plan.text.lines() {
        assert!(line.contains(": no valid advice found ("), "{line}");
    }
}

/// A plan made without a model says so when asked for an option's advice;
/// a model of another encoding is refused.
#[test]
fn an_unchecked_plan_and_a_mismatched_model_are_refused_clearly() {
    let sj = CString::new(schema_json("")).unwrap();
    let mean = [-3.0, 4.0, 1.5, 0.8, 0.5, -0.3, 0.0, 1.0];
    let cov: Vec<f64> = (0..64)
        .map(|k| if k / 8 == k % 8 { 0.05 } else { 0.0 })
        .collect();
    let short = CString::new(
        r#"{ "format_version": 1, "kind": "linear", "weights": [1.0], "bias": 0.0, "threshold": 0.5 }"#,
    )
    .unwrap();
    unsafe {
        let (mut s, mut u, mut r, mut m) = (null(), null(), null(), null());
        assert_eq!(cfx_schema_from_json(sj.as_ptr(), &mut s), cfx_status::Ok);
        assert_eq!(
            cfx_uncertainty_new(mean.as_ptr(), 8, cov.as_ptr(), 64, &mut u),
            cfx_status::Ok
        );
        assert_eq!(
            cfx_copa_plan_new(s, u, null(), RAW.as_ptr(), 4, &mut r),
            cfx_status::Ok
        );
        let mut st = -1;
        assert_eq!(
            cfx_copa_result_option_advice_status(r, 0, &mut st),
            cfx_status::InvalidArgument
        );
        let mut buf = vec![0 as c_char; 1024];
        assert_eq!(
            cfx::ffi::error::cfx_last_error_message(buf.as_mut_ptr(), 1024),
            cfx_status::Ok
        );
        let msg = CStr::from_ptr(buf.as_ptr()).to_str().unwrap();
        assert!(msg.contains("cfx_copa_plan_new_checked"), "{msg}");
        assert_eq!(st, -1, "written only on success");
        let mut n = 0;
        assert_eq!(
            cfx_copa_result_option_advice_raw(r, 0, null_mut(), 0, &mut n),
            cfx_status::InvalidArgument
        );
        cfx_copa_result_free(r);
        // A model of another encoding may not even load under this schema;
        // when it does, the checked plan refuses it.
        if cfx_model_from_json(s, short.as_ptr(), &mut m) == cfx_status::Ok {
            let mut r2 = null();
            assert_eq!(
                cfx_copa_plan_new_checked(s, u, m, null(), RAW.as_ptr(), 4, &mut r2),
                cfx_status::InvalidArgument
            );
            assert!(r2.is_null());
            cfx_model_free(m);
        }
        let mut r3 = null();
        assert_eq!(
            cfx_copa_plan_new_checked(s, u, null(), null(), RAW.as_ptr(), 4, &mut r3),
            cfx_status::NullArgument
        );
        cfx_uncertainty_free(u);
        cfx_schema_free(s);
    }
}

/// The bindings' test data (`bindings/testdata/advice_check_schema.json`) is
/// this test's schema, so their expected outcomes are these.
#[test]
fn the_bindings_test_schema_is_this_one() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let file =
        std::fs::read_to_string(root.join("bindings/testdata/advice_check_schema.json")).unwrap();
    assert_eq!(
        Schema::from_json(&file).unwrap(),
        Schema::from_json(&schema_json("")).unwrap()
    );
}
