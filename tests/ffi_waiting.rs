//! Waiting advice through the C ABI (issue #16): `cfx_coherent_explain_with_waiting`
//! and the `cfx_waiting_advice_*` accessors give, bit for bit, what the Rust
//! `explain_with_waiting` gives — on German credit under `german_credit_advice`
//! and on HELOC under `heloc_advice`, with both solvers — a solve stopped at
//! the node limit is reported unproven, not as an error or as "no advice",
//! and misuse returns a status without writing any out-parameter.

use cfx::coherent::{Config, SolverChoice, waiting::explain_with_waiting};
use cfx::data::presets::{german_credit_advice, heloc_advice};
use cfx::data::{bundled_german_path, german_credit, heloc};
use cfx::ffi::config::*;
use cfx::ffi::model::*;
use cfx::ffi::schema::*;
use cfx::ffi::status::cfx_status;
use cfx::ffi::waiting_advice::*;
use cfx::model::{AnyModel, LinearModel, LogisticFit, Model};
use cfx::schema::{Feature, Schema, TimeGrowth, Waiting};
use std::ffi::{CString, c_char};
use std::ptr::{null, null_mut};

mod common;

fn string_of(f: impl Fn(*mut c_char, usize, *mut usize) -> cfx_status) -> String {
    let mut need = 0;
    assert_eq!(f(null_mut(), 0, &mut need), cfx_status::BufferTooSmall);
    let mut buf = vec![0 as c_char; need];
    let mut n = 0;
    assert_eq!(f(buf.as_mut_ptr(), need, &mut n), cfx_status::Ok);
    assert_eq!(n, need);
    unsafe { std::ffi::CStr::from_ptr(buf.as_ptr()) }
        .to_str()
        .unwrap()
        .to_string()
}

fn row_of(f: impl Fn(*mut f64, usize, *mut usize) -> cfx_status, d: usize) -> Vec<f64> {
    let mut buf = vec![f64::NAN; d];
    let mut n = 0;
    assert_eq!(f(buf.as_mut_ptr(), d, &mut n), cfx_status::Ok);
    assert_eq!(n, d);
    buf
}

/// C handles of a Rust schema and linear model (through their JSON, the
/// documented way across the ABI).
fn handles(schema: &Schema, model: &LinearModel) -> (*const cfx_schema, *const cfx_model) {
    let s = CString::new(schema.to_json()).unwrap();
    let m = CString::new(AnyModel::Linear(model.clone()).to_json()).unwrap();
    let (mut sh, mut mh) = (null(), null());
    unsafe {
        assert_eq!(cfx_schema_from_json(s.as_ptr(), &mut sh), cfx_status::Ok);
        assert_eq!(cfx_model_from_json(sh, m.as_ptr(), &mut mh), cfx_status::Ok);
    }
    (sh, mh)
}

fn solver_config(solver: SolverChoice) -> *const cfx_config {
    let code = match solver {
        SolverChoice::Auto => 0,
        SolverChoice::Mip => 1,
        SolverChoice::Separable => 2,
        SolverChoice::TreeSearch => 3,
    };
    let (mut b, mut c) = (null_mut(), null());
    unsafe {
        assert_eq!(cfx_config_builder_new(&mut b), cfx_status::Ok);
        assert_eq!(cfx_config_builder_set_solver(b, code), cfx_status::Ok);
        assert_eq!(cfx_config_build(b, &mut c), cfx_status::Ok);
    }
    c
}

/// Every accessor of the C advice against the Rust advice of the same row.
fn assert_same_as_rust(
    schema: &Schema,
    model: &LinearModel,
    rows: &[Vec<f64>],
    solver: SolverChoice,
) -> usize {
    let (sh, mh) = handles(schema, model);
    let config = solver_config(solver);
    let rust_cfg = Config {
        solver,
        ..Config::default()
    };
    let d = schema.n_features();
    let mut waited_some = 0;
    for raw in rows {
        let rust = explain_with_waiting(schema, model, raw, &rust_cfg).unwrap();
        assert!(rust.is_proven(), "{}", rust.describe());
        unsafe {
            let mut a = null();
            assert_eq!(
                cfx_coherent_explain_with_waiting(sh, mh, config, raw.as_ptr(), d, &mut a),
                cfx_status::Ok
            );
            let mut outcome = -1;
            assert_eq!(cfx_waiting_advice_outcome(a, &mut outcome), cfx_status::Ok);
            assert_eq!(outcome, if rust.advice.is_some() { 0 } else { 1 });
            let mut proven = -1;
            assert_eq!(cfx_waiting_advice_proven(a, &mut proven), cfx_status::Ok);
            assert_eq!(proven, 1);
            let text = string_of(|b, c, n| cfx_waiting_advice_describe(a, b, c, n));
            assert_eq!(text, rust.describe());
            let json = string_of(|b, c, n| cfx_waiting_advice_to_json(a, b, c, n));
            let v: serde_json::Value = serde_json::from_str(&json).unwrap();
            assert_eq!(v["kind"], "waiting_advice");
            match rust.advice {
                None => assert!(v["result"].is_null()),
                Some(r) => {
                    let (mut months, mut wait, mut total, mut by) =
                        (u32::MAX, f64::NAN, f64::NAN, 9);
                    assert_eq!(
                        cfx_waiting_advice_summary(a, &mut months, &mut wait, &mut total, &mut by),
                        cfx_status::Ok
                    );
                    assert_eq!(months, r.months);
                    assert_eq!(wait.to_bits(), r.wait_cost.to_bits());
                    assert_eq!(total.to_bits(), r.cost.to_bits());
                    let expected_by = match r.proved_by {
                        None => -1,
                        Some(cfx::coherent::ProvedBy::Highs) => 0,
                        Some(cfx::coherent::ProvedBy::Separable) => 1,
                        Some(cfx::coherent::ProvedBy::TreeSearch) => 2,
                    };
                    assert_eq!(by, expected_by);
                    let waited = row_of(|b, c, n| cfx_waiting_advice_waited_row(a, b, c, n), d);
                    assert_eq!(waited, r.waited);
                    let fin = row_of(|b, c, n| cfx_waiting_advice_final_row(a, b, c, n), d);
                    assert_eq!(fin, r.raw);
                    assert!(model.accepts(&schema.encode(&fin).unwrap()));
                    assert_eq!(text, r.describe());
                    assert_eq!(v["result"]["months"], r.months);
                    assert_eq!(v["result"]["cost"].as_f64().unwrap(), r.cost);
                    assert_eq!(v["result"]["proven"], true);
                    assert!(v["result"].get("unproven").is_none());
                    assert!(v["result"]["counterfactual"].get("solve_seconds").is_none());
                    if r.months > 0 {
                        waited_some += 1;
                        assert!(text.starts_with(&format!("wait {} months", r.months)));
                    }
                }
            }
            cfx_waiting_advice_free(a);
        }
    }
    unsafe {
        cfx_config_free(config);
        cfx_model_free(mh);
        cfx_schema_free(sh);
    }
    waited_some
}

fn declined(schema: &Schema, model: &LinearModel, rows: &[Vec<f64>], n: usize) -> Vec<Vec<f64>> {
    let out: Vec<Vec<f64>> = rows
        .iter()
        .filter(|r| !model.accepts(&schema.encode(r).unwrap()))
        .take(n)
        .cloned()
        .collect();
    assert_eq!(out.len(), n);
    out
}

#[test]
fn german_waiting_advice_through_the_c_abi_equals_rust() {
    let data = german_credit(&bundled_german_path()).unwrap();
    let (train, test) = data.holdout_split();
    let model = LinearModel::fit(&train.encoded(), &train.labels, LogisticFit::default()).unwrap();
    let schema = german_credit_advice(&data.schema, 0.05).unwrap();
    let rows = declined(&schema, &model, &test.rows, 8);
    for solver in [
        SolverChoice::Auto,
        SolverChoice::Mip,
        SolverChoice::Separable,
    ] {
        assert_same_as_rust(&schema, &model, &rows, solver);
    }
}

#[test]
fn heloc_waiting_advice_through_the_c_abi_equals_rust() {
    let Some(path) = common::shared("heloc.csv") else {
        return;
    };
    let d = heloc(&path).unwrap();
    let (train, test) = d.holdout_split();
    let mut fitted = train.schema.clone();
    fitted.fit_weights(&train.rows).unwrap();
    let x = fitted.encode_rows(&train.rows).unwrap();
    let model = LinearModel::fit(&x, &train.labels, LogisticFit::default()).unwrap();
    // Cheap waiting, so that time is the answer for some applicants.
    let schema = heloc_advice(&fitted, 0.01).unwrap();
    let rows = declined(&schema, &model, &test.rows, 8);
    let waited = assert_same_as_rust(&schema, &model, &rows, SolverChoice::Auto);
    assert_same_as_rust(&schema, &model, &rows[..3], SolverChoice::Mip);
    assert!(waited > 0, "no HELOC applicant waits at 0.01 per month");
}

#[test]
fn no_advice_is_a_result_and_misuse_is_refused_without_writing() {
    // Nothing can move and there is no waiting: no advice, a result.
    let schema = Schema::new(vec![
        Feature::contiguous("income", 0.0, 100.0).immutable(),
        Feature::contiguous("debt", 0.0, 100.0),
    ])
    .unwrap();
    let model = LinearModel::new(vec![4.0, 0.0], -3.0, 0.5).unwrap();
    let (s, m) = handles(&schema, &model);
    let sentinel = 0x10 as *const cfx_waiting_advice;
    unsafe {
        let row = [20.0, 50.0];
        let mut a = null();
        assert_eq!(
            cfx_coherent_explain_with_waiting(s, m, null(), row.as_ptr(), 2, &mut a),
            cfx_status::Ok
        );
        let mut outcome = -1;
        assert_eq!(cfx_waiting_advice_outcome(a, &mut outcome), cfx_status::Ok);
        assert_eq!(outcome, cfx_waiting_outcome::NoAdvice as i32);
        let mut months = 77;
        assert_eq!(
            cfx_waiting_advice_summary(a, &mut months, null_mut(), null_mut(), null_mut()),
            cfx_status::NotFound
        );
        assert_eq!(months, 77);
        let mut buf = [f64::NAN; 2];
        let mut n = 5;
        assert_eq!(
            cfx_waiting_advice_final_row(a, buf.as_mut_ptr(), 2, &mut n),
            cfx_status::NotFound
        );
        assert_eq!(
            cfx_waiting_advice_waited_row(a, buf.as_mut_ptr(), 2, &mut n),
            cfx_status::NotFound
        );
        assert!(buf.iter().all(|x| x.is_nan()));
        assert_eq!(n, 5);
        let text = string_of(|b, c, n| cfx_waiting_advice_describe(a, b, c, n));
        assert!(text.starts_with("no advice"), "{text}");
        cfx_waiting_advice_free(a);

        // Bad calls: a status, the out-parameter untouched.
        let mut out = sentinel;
        let accepted = [90.0, 50.0];
        let nan = [f64::NAN, 50.0];
        let cases: [(cfx_status, cfx_status); 6] = [
            (
                cfx_coherent_explain_with_waiting(s, m, null(), accepted.as_ptr(), 2, &mut out),
                cfx_status::InvalidArgument,
            ),
            (
                cfx_coherent_explain_with_waiting(s, m, null(), nan.as_ptr(), 2, &mut out),
                cfx_status::InvalidArgument,
            ),
            (
                cfx_coherent_explain_with_waiting(s, m, null(), row.as_ptr(), 1, &mut out),
                cfx_status::DimensionMismatch,
            ),
            (
                cfx_coherent_explain_with_waiting(null(), m, null(), row.as_ptr(), 2, &mut out),
                cfx_status::NullArgument,
            ),
            (
                cfx_coherent_explain_with_waiting(s, m, null(), null(), 2, &mut out),
                cfx_status::NullArgument,
            ),
            (
                cfx_coherent_explain_with_waiting(s, m, null(), row.as_ptr(), 2, null_mut()),
                cfx_status::NullArgument,
            ),
        ];
        for (k, (got, want)) in cases.into_iter().enumerate() {
            assert_eq!(got, want, "case {k}");
        }
        assert_eq!(out, sentinel);
        let mut o = -1;
        assert_eq!(
            cfx_waiting_advice_outcome(null(), &mut o),
            cfx_status::NullArgument
        );
        assert_eq!(o, -1);
        cfx_waiting_advice_free(null());
        cfx_model_free(m);
        cfx_schema_free(s);
    }
}

/// A configuration with the separable solver and its node limit.
fn node_limited_config(nodes: usize) -> *const cfx_config {
    let (mut b, mut c) = (null_mut(), null());
    unsafe {
        assert_eq!(cfx_config_builder_new(&mut b), cfx_status::Ok);
        assert_eq!(cfx_config_builder_set_solver(b, 2), cfx_status::Ok);
        assert_eq!(cfx_config_builder_set_node_limit(b, nodes), cfx_status::Ok);
        assert_eq!(cfx_config_build(b, &mut c), cfx_status::Ok);
    }
    c
}

/// The outcome, the proof flag, the words and the JSON `result` of one advice.
fn read_advice(
    schema: *const cfx_schema,
    model: *const cfx_model,
    config: *const cfx_config,
    row: &[f64],
) -> (i32, i32, String, serde_json::Value, Option<u32>) {
    unsafe {
        let mut a = null();
        assert_eq!(
            cfx_coherent_explain_with_waiting(
                schema,
                model,
                config,
                row.as_ptr(),
                row.len(),
                &mut a
            ),
            cfx_status::Ok
        );
        let (mut outcome, mut proven) = (-1, -1);
        assert_eq!(cfx_waiting_advice_outcome(a, &mut outcome), cfx_status::Ok);
        assert_eq!(cfx_waiting_advice_proven(a, &mut proven), cfx_status::Ok);
        let text = string_of(|b, c, n| cfx_waiting_advice_describe(a, b, c, n));
        let json = string_of(|b, c, n| cfx_waiting_advice_to_json(a, b, c, n));
        let mut months = u32::MAX;
        let months =
            (cfx_waiting_advice_summary(a, &mut months, null_mut(), null_mut(), null_mut())
                == cfx_status::Ok)
                .then_some(months);
        cfx_waiting_advice_free(a);
        let v: serde_json::Value = serde_json::from_str(&json).unwrap();
        (outcome, proven, text, v["result"].clone(), months)
    }
}

/// Income 0..100 in whole units and months 0..10 growing one a month, waiting
/// at 0.001 a month; the model `4·slot(income) + w·slot(months) − 3` declines
/// income 20 at month 0, and no month's income need is a whole number at the
/// separable solver's root, so a node limit of 1 stops every month's solve.
/// With `w` 1 waiting alone is never accepted: `UNPROVEN`, no advice; with `w`
/// 3 it is from month 8: `FOUND`, not proven. Without the limit both are
/// proven. Also: the node limit's setter refuses 0 and reaches the config JSON.
#[test]
fn a_node_limit_gives_unproven_advice_through_the_c_abi() {
    let schema = Schema::new_with_waiting(
        vec![
            Feature::contiguous("income", 0.0, 100.0).integer(),
            Feature::contiguous("months", 0.0, 10.0)
                .integer()
                .grows_with_time(TimeGrowth {
                    per_month: 1.0,
                    ends_in: None,
                    ..Default::default()
                }),
        ],
        Some(Waiting {
            cost_per_month: 0.001,
            max_months: 10,
        }),
    )
    .unwrap();
    let row = [20.0, 0.0];
    let limited = node_limited_config(1);
    let full = solver_config(SolverChoice::Separable);
    let node_limit = serde_json::json!({"status": "unknown", "raw_status": -3});

    let model = LinearModel::new(vec![4.0, 1.0], -3.0, 0.5).unwrap();
    let (s, m) = handles(&schema, &model);
    let (outcome, proven, text, result, months) = read_advice(s, m, limited, &row);
    assert_eq!(outcome, cfx_waiting_outcome::Unproven as i32);
    assert_eq!((proven, months), (0, None));
    assert!(
        text.starts_with(
            "no advice found, and none proven impossible: the separable solver's node limit"
        ),
        "{text}"
    );
    assert_eq!(
        result,
        serde_json::json!({"proven": false, "unproven": node_limit})
    );
    let (outcome, proven, _, result, months) = read_advice(s, m, full, &row);
    assert_eq!((outcome, proven, months), (0, 1, Some(10)));
    assert_eq!(result["proven"], true);
    unsafe {
        cfx_model_free(m);
        cfx_schema_free(s);
    }

    let model = LinearModel::new(vec![4.0, 3.0], -3.0, 0.5).unwrap();
    let (s, m) = handles(&schema, &model);
    let (outcome, proven, text, result, months) = read_advice(s, m, limited, &row);
    assert_eq!(outcome, cfx_waiting_outcome::Found as i32);
    assert_eq!((proven, months), (0, Some(8)));
    assert!(text.starts_with("wait 8 months"), "{text}");
    assert!(
        text.ends_with("(not proven optimal: the separable solver's node limit stopped a solve)")
    );
    assert_eq!(result["months"], 8);
    assert_eq!(result["proven"], false);
    assert_eq!(result["unproven"], node_limit);
    let (outcome, proven, text, result, months) = read_advice(s, m, full, &row);
    assert_eq!((outcome, proven, months), (0, 1, Some(8)));
    assert!(!text.contains("proven"), "{text}");
    assert_eq!(result["proven"], true);
    unsafe {
        cfx_model_free(m);
        cfx_schema_free(s);
    }

    unsafe {
        let mut b = null_mut();
        assert_eq!(cfx_config_builder_new(&mut b), cfx_status::Ok);
        assert_eq!(
            cfx_config_builder_set_node_limit(b, 0),
            cfx_status::InvalidArgument
        );
        cfx_config_builder_free(b);
        let json = string_of(|b, c, n| cfx_config_to_json(limited, b, c, n));
        let v: serde_json::Value = serde_json::from_str(&json).unwrap();
        assert_eq!(v["node_limit"], 1);
        let json = string_of(|b, c, n| cfx_config_to_json(full, b, c, n));
        let v: serde_json::Value = serde_json::from_str(&json).unwrap();
        assert!(v.get("node_limit").is_none(), "unset: left out of the JSON");
        cfx_config_free(limited);
        cfx_config_free(full);
    }
}
