//! The C entry points called from Rust: the same handles and protocols the C
//! programs use, checked without a C toolchain (and on 8 Rust threads).

use cfx::ffi::config::*;
use cfx::ffi::data::*;
use cfx::ffi::model::*;
use cfx::ffi::schema::*;
use cfx::ffi::status::cfx_status;
use std::ffi::{CString, c_char};
use std::ptr::{null, null_mut};

mod common;

fn toy() -> (*const cfx_schema, *const cfx_model) {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let s = CString::new(
        std::fs::read_to_string(root.join("examples/c/data/applicant_schema.json")).unwrap(),
    )
    .unwrap();
    let m = CString::new(
        std::fs::read_to_string(root.join("examples/c/data/applicant_model.json")).unwrap(),
    )
    .unwrap();
    let mut schema = null();
    let mut model = null();
    unsafe {
        assert_eq!(
            cfx_schema_from_json(s.as_ptr(), &mut schema),
            cfx_status::Ok
        );
        assert_eq!(
            cfx_model_from_json(schema, m.as_ptr(), &mut model),
            cfx_status::Ok
        );
    }
    (schema, model)
}

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

#[test]
fn toy_applicant_is_scored_as_by_hand() {
    let (schema, model) = toy();
    unsafe {
        let raw = [30000.0, -7.0, 1.0, 30.0];
        let mut x = [0.0; 7];
        let mut n = 0;
        assert_eq!(
            cfx_schema_encode(schema, raw.as_ptr(), 4, x.as_mut_ptr(), 7, &mut n),
            cfx_status::Ok
        );
        // income slot 0.3, special state on, rent, age (30-18)/72
        let want = [0.3, 0.0, 1.0, 0.0, 1.0, 0.0, 12.0 / 72.0];
        for (a, b) in x.iter().zip(want) {
            assert!((a - b).abs() < 1e-12);
        }
        let (mut s, mut p, mut acc) = (0.0, 0.0, -1);
        assert_eq!(
            cfx_model_predict(model, x.as_ptr(), 7, &mut s, &mut p, &mut acc),
            cfx_status::Ok
        );
        // 4·0.3 + 0.8 − 0.3 + 1·(1/6) − 3
        let score = 1.2 + 0.8 - 0.3 + 1.0 / 6.0 - 3.0;
        assert!((s - score).abs() < 1e-12);
        assert!((p - 1.0 / (1.0 + (-score).exp())).abs() < 1e-12);
        assert_eq!(acc, 0);
        let mut back = [0.0; 4];
        assert_eq!(
            cfx_schema_decode(schema, x.as_ptr(), 7, back.as_mut_ptr(), 4, &mut n),
            cfx_status::Ok
        );
        assert_eq!(back, raw);
        let json = string_of(|b, c, l| cfx_schema_to_json(schema, b, c, l));
        assert_eq!(
            cfx::schema::Schema::from_json(&json).unwrap().n_features(),
            4
        );
        let mj = string_of(|b, c, l| cfx_model_to_json(model, b, c, l));
        let mut again = null();
        let mjc = CString::new(mj.clone()).unwrap();
        assert_eq!(
            cfx_model_from_json(schema, mjc.as_ptr(), &mut again),
            cfx_status::Ok
        );
        assert_eq!(string_of(|b, c, l| cfx_model_to_json(again, b, c, l)), mj);
        cfx_model_free(again);
        cfx_model_free(model);
        cfx_schema_free(schema);
    }
}

#[test]
fn failures_leave_out_parameters_untouched() {
    let (schema, model) = toy();
    unsafe {
        let sentinel = 0x1234 as *const cfx_model;
        let mut out = sentinel;
        let bad =
            CString::new("{\"format_version\":1,\"kind\":\"linear\",\"weights\":[1],\"bias\":0}")
                .unwrap();
        assert_eq!(
            cfx_model_from_json(schema, bad.as_ptr(), &mut out),
            cfx_status::DimensionMismatch
        );
        assert_eq!(out, sentinel);
        let mut n = 77usize;
        assert_eq!(
            cfx_schema_n_features(null(), &mut n),
            cfx_status::NullArgument
        );
        assert_eq!(n, 77);
        let mut d = 5.0;
        assert_eq!(
            cfx_model_predict(
                model,
                [f64::NAN; 7].as_ptr(),
                7,
                &mut d,
                null_mut(),
                null_mut()
            ),
            cfx_status::InvalidArgument
        );
        assert_eq!(d, 5.0);
        cfx_model_free(model);
        cfx_schema_free(schema);
    }
}

/// A model whose finite weights (±1e308) overflow to +∞ and −∞ on one row
/// scores it NaN: every scoring call refuses that row with
/// `INVALID_ARGUMENT` and a message saying why, and writes nothing — not the
/// out-parameters, not a value of the batch's buffer, not `*out_len`. A row
/// that overflows one way only keeps its score (+∞, probability 1).
#[test]
fn a_score_that_overflows_to_nan_is_refused_by_every_scoring_call() {
    const NAN_SCORE: &str = "not a number: its terms overflow to opposite infinities";
    let (schema, toy_model) = toy();
    unsafe {
        cfx_model_free(toy_model);
        let mut linear = null();
        assert_eq!(
            cfx_model_linear_new([1e308, -1e308].as_ptr(), 2, 0.0, 0.5, &mut linear),
            cfx_status::Ok
        );
        let (mut s, mut p, mut acc) = (5.0, 6.0, 7);
        assert_eq!(
            cfx_model_predict(linear, [16.0, 16.0].as_ptr(), 2, &mut s, &mut p, &mut acc),
            cfx_status::InvalidArgument
        );
        let msg = common::last_error_message();
        assert!(msg.contains(NAN_SCORE), "{msg}");
        assert_eq!((s, p, acc), (5.0, 6.0, 7));

        // The batch: row 1 of three is the NaN one.
        let rows = [0.5, 0.5, 16.0, 16.0, 16.0, 0.0];
        let mut out = [-1.0; 3];
        let mut n = 99;
        assert_eq!(
            cfx_model_probability_batch(linear, rows.as_ptr(), 3, out.as_mut_ptr(), 3, &mut n),
            cfx_status::InvalidArgument
        );
        let msg = common::last_error_message();
        assert!(
            msg.contains("row 1 of x") && msg.contains(NAN_SCORE),
            "{msg}"
        );
        assert_eq!((out, n), ([-1.0; 3], 99));
        // Also when the buffer is too small: the row is refused first.
        assert_eq!(
            cfx_model_probability_batch(linear, rows.as_ptr(), 3, null_mut(), 0, &mut n),
            cfx_status::InvalidArgument
        );
        assert_eq!(n, 99);
        // Without it, the batch is the single calls' probabilities.
        let good = [0.5, 0.5, 16.0, 0.0];
        assert_eq!(
            cfx_model_probability_batch(linear, good.as_ptr(), 2, out.as_mut_ptr(), 3, &mut n),
            cfx_status::Ok
        );
        assert_eq!((&out[..2], n), (&[0.5, 1.0][..], 2));
        assert_eq!(
            cfx_model_predict(linear, [16.0, 0.0].as_ptr(), 2, &mut s, &mut p, &mut acc),
            cfx_status::Ok
        );
        assert_eq!((s, p, acc), (f64::INFINITY, 1.0, 1));
        cfx_model_free(linear);

        // A raw applicant of the toy schema (encoded values in [0, 1]): an MLP
        // whose two hidden units add 1e308 + 1e308 = +∞ for a renter with the
        // special state on, and whose output is their difference.
        let mlp_json = CString::new(
            r#"{"format_version": 1, "kind": "mlp", "network": {"layers": [
                {"n_in": 7, "n_out": 2, "activation": "relu", "bias": [0, 0],
                 "weights": [0, 0, 1e308, 0, 1e308, 0, 0, 0, 0, 1e308, 0, 1e308, 0, 0]},
                {"n_in": 2, "n_out": 1, "activation": "identity", "bias": [0],
                 "weights": [1e308, -1e308]}]}, "threshold": 0.5}"#,
        )
        .unwrap();
        let mut mlp = null();
        assert_eq!(
            cfx_model_from_json(schema, mlp_json.as_ptr(), &mut mlp),
            cfx_status::Ok
        );
        let raw = [30000.0, -7.0, 1.0, 30.0];
        assert_eq!(
            cfx_model_predict_raw(mlp, schema, raw.as_ptr(), 4, &mut s, &mut p, &mut acc),
            cfx_status::InvalidArgument
        );
        let msg = common::last_error_message();
        assert!(msg.contains(NAN_SCORE), "{msg}");
        assert_eq!((s, p, acc), (f64::INFINITY, 1.0, 1));
        let mut x = [0.0; 7];
        assert_eq!(
            cfx_schema_encode(schema, raw.as_ptr(), 4, x.as_mut_ptr(), 7, &mut n),
            cfx_status::Ok
        );
        assert_eq!(
            cfx_model_predict(mlp, x.as_ptr(), 7, &mut s, &mut p, &mut acc),
            cfx_status::InvalidArgument
        );
        let mut one = [-1.0];
        n = 99;
        assert_eq!(
            cfx_model_probability_batch(mlp, x.as_ptr(), 1, one.as_mut_ptr(), 1, &mut n),
            cfx_status::InvalidArgument
        );
        let msg = common::last_error_message();
        assert!(
            msg.contains("row 0 of x") && msg.contains(NAN_SCORE),
            "{msg}"
        );
        assert_eq!((one, n), ([-1.0], 99));
        cfx_model_free(mlp);
        cfx_schema_free(schema);
    }
}

#[test]
fn eight_threads_share_one_model_and_schema() {
    let (schema, model) = toy();
    let (s_addr, m_addr) = (schema as usize, model as usize);
    let row = |r: usize| {
        [
            1000.0 * (r % 100) as f64,
            if r % 2 == 0 { -7.0 } else { (r % 120) as f64 },
            (r % 3) as f64,
            18.0 + (r % 70) as f64,
        ]
    };
    let reference: Vec<f64> = (0..1000)
        .map(|r| {
            let mut p = 0.0;
            let raw = row(r);
            unsafe {
                assert_eq!(
                    cfx_model_predict_raw(
                        model,
                        schema,
                        raw.as_ptr(),
                        4,
                        null_mut(),
                        &mut p,
                        null_mut()
                    ),
                    cfx_status::Ok
                );
            }
            p
        })
        .collect();
    std::thread::scope(|sc| {
        for t in 0..8 {
            let reference = &reference;
            sc.spawn(move || {
                let (schema, model) = (s_addr as *const cfx_schema, m_addr as *const cfx_model);
                for (r, want) in reference.iter().enumerate() {
                    let raw = row(r);
                    let mut x = [0.0; 7];
                    let (mut n, mut p) = (0, 0.0);
                    unsafe {
                        assert_eq!(
                            cfx_schema_encode(schema, raw.as_ptr(), 4, x.as_mut_ptr(), 7, &mut n),
                            cfx_status::Ok
                        );
                        assert_eq!(
                            cfx_model_predict(model, x.as_ptr(), n, null_mut(), &mut p, null_mut()),
                            cfx_status::Ok
                        );
                    }
                    assert_eq!(p.to_bits(), want.to_bits());
                    if r % 100 == t {
                        let name = CString::new(format!("missing{t}")).unwrap();
                        let mut i = 0;
                        unsafe {
                            assert_eq!(
                                cfx_schema_index_of(schema, name.as_ptr(), &mut i),
                                cfx_status::NotFound
                            );
                        }
                        let msg = cfx::ffi::error::last_error().unwrap();
                        assert!(msg.contains(&format!("missing{t}")), "{msg}");
                    }
                }
            });
        }
    });
    // freed from another thread than the one that created them
    std::thread::spawn(move || unsafe {
        cfx_model_free(m_addr as *const cfx_model);
        cfx_schema_free(s_addr as *const cfx_schema);
    })
    .join()
    .unwrap();
}

#[test]
fn german_dataset_split_and_fitted_model() {
    unsafe {
        let mut d = null();
        assert_eq!(cfx_dataset_load_german(null(), &mut d), cfx_status::Ok);
        let (mut tr, mut te) = (null(), null());
        assert_eq!(
            cfx_dataset_holdout_split(d, &mut tr, &mut te),
            cfx_status::Ok
        );
        let (mut a, mut b, mut c) = (0, 0, 0);
        cfx_dataset_n_rows(d, &mut a);
        cfx_dataset_n_rows(tr, &mut b);
        cfx_dataset_n_rows(te, &mut c);
        assert_eq!((a, b, c), (1000, 700, 300));
        let mut m = null();
        assert_eq!(cfx_model_fit_linear(tr, 1.0, &mut m), cfx_status::Ok);
        assert_eq!(
            cfx_model_fit_linear(tr, -1.0, &mut m),
            cfx_status::InvalidArgument
        );
        let mut dim = 0;
        cfx_model_input_dim(m, &mut dim);
        assert_eq!(dim, 61);
        let mut kind = -1;
        cfx_model_get_kind(m, &mut kind);
        assert_eq!(kind, cfx_model_kind::Linear as i32);
        let mut mlp = null();
        assert_eq!(
            cfx_model_train_mlp(tr, [8usize].as_ptr(), 1, 2, 64, 1e-3, 1e-4, 3, &mut mlp),
            cfx_status::Ok
        );
        cfx_model_get_kind(mlp, &mut kind);
        assert_eq!(kind, cfx_model_kind::Mlp as i32);
        let mut cb = null_mut();
        cfx_config_builder_new(&mut cb);
        cfx_config_builder_free(cb);
        cfx_model_free(mlp);
        cfx_model_free(m);
        cfx_dataset_free(te);
        cfx_dataset_free(tr);
        cfx_dataset_free(d);
    }
}

#[test]
fn schema_built_in_code_equals_the_json_one() {
    use cfx::ffi::schema_builder::*;
    let (from_json, model) = toy();
    unsafe {
        let mut b = null_mut();
        assert_eq!(cfx_schema_builder_new(&mut b), cfx_status::Ok);
        let c = |s: &str| CString::new(s).unwrap();
        let (income, months, housing, age) = (
            c("income"),
            c("months_since_delinquency"),
            c("housing"),
            c("age"),
        );
        let (label, own, rent, free) = (c("no delinquency record"), c("own"), c("rent"), c("free"));
        // nothing to attach to yet
        assert_eq!(
            cfx_schema_builder_set_actionability(b, 0, 0),
            cfx_status::InvalidArgument
        );
        assert_eq!(
            cfx_schema_builder_add_contiguous(b, income.as_ptr(), 0.0, 100000.0, 1),
            cfx_status::Ok
        );
        assert_eq!(
            cfx_schema_builder_add_contiguous(b, months.as_ptr(), 0.0, 120.0, 1),
            cfx_status::Ok
        );
        assert_eq!(
            cfx_schema_builder_add_special_state(b, -7.0, label.as_ptr()),
            cfx_status::Ok
        );
        let levels = [own.as_ptr(), rent.as_ptr(), free.as_ptr()];
        assert_eq!(
            cfx_schema_builder_add_categorical(b, housing.as_ptr(), levels.as_ptr(), 3),
            cfx_status::Ok
        );
        assert_eq!(
            cfx_schema_builder_add_special_state(b, -7.0, label.as_ptr()),
            cfx_status::InvalidArgument
        );
        assert_eq!(
            cfx_schema_builder_add_categorical(b, housing.as_ptr(), null(), 2),
            cfx_status::NullArgument
        );
        assert_eq!(
            cfx_schema_builder_add_contiguous(b, age.as_ptr(), 18.0, 90.0, 2),
            cfx_status::InvalidArgument
        );
        assert_eq!(
            cfx_schema_builder_add_contiguous(b, age.as_ptr(), 18.0, f64::INFINITY, 1),
            cfx_status::InvalidArgument
        );
        assert_eq!(
            cfx_schema_builder_add_contiguous(b, age.as_ptr(), 18.0, 90.0, 1),
            cfx_status::Ok
        );
        assert_eq!(
            cfx_schema_builder_set_actionability(b, 0, 7),
            cfx_status::InvalidArgument
        );
        assert_eq!(
            cfx_schema_builder_set_actionability(b, 0, 0),
            cfx_status::Ok
        );
        let mut built = null();
        assert_eq!(cfx_schema_build(b, &mut built), cfx_status::Ok);
        assert_eq!(
            string_of(|p, n, l| cfx_schema_to_json(built, p, n, l)),
            string_of(|p, n, l| cfx_schema_to_json(from_json, p, n, l))
        );
        // a duplicate name is refused at build time, and the builder is consumed
        let mut b2 = null_mut();
        cfx_schema_builder_new(&mut b2);
        cfx_schema_builder_add_contiguous(b2, age.as_ptr(), 18.0, 90.0, 1);
        cfx_schema_builder_add_contiguous(b2, age.as_ptr(), 18.0, 90.0, 1);
        let mut none = null();
        assert_eq!(cfx_schema_build(b2, &mut none), cfx_status::InvalidSchema);
        assert!(none.is_null());
        // finite bounds whose width overflows are refused when the schema is built
        let mut b3 = null_mut();
        cfx_schema_builder_new(&mut b3);
        assert_eq!(
            cfx_schema_builder_add_contiguous(b3, age.as_ptr(), -1e308, 1e308, 0),
            cfx_status::Ok
        );
        assert_eq!(cfx_schema_build(b3, &mut none), cfx_status::InvalidSchema);
        assert!(none.is_null());
        assert!(cfx::ffi::error::last_error().unwrap().contains("overflows"));
        cfx_schema_builder_free(null_mut());
        cfx_schema_free(built);
        cfx_model_free(model);
        cfx_schema_free(from_json);
    }
}

/// The default paths of the shared datasets name the files that exist.
#[test]
fn shared_datasets_load_from_their_default_paths() {
    if common::shared("heloc.csv").is_none() || common::shared("taiwan_default.csv").is_none() {
        return;
    }
    for (load, rows) in [
        (
            cfx_dataset_load_heloc as unsafe extern "C" fn(_, _) -> _,
            10459usize,
        ),
        (cfx_dataset_load_taiwan, 30000),
    ] {
        unsafe {
            let mut d = null();
            assert_eq!(load(null(), &mut d), cfx_status::Ok);
            let mut n = 0usize;
            assert_eq!(cfx_dataset_n_rows(d, &mut n), cfx_status::Ok);
            assert_eq!(n, rows);
            cfx_dataset_free(d);
        }
    }
}

/// A level order through the builder reaches the schema as forbidden moves
/// down; a name that is not a level fails the build naming it; an order on a
/// contiguous feature is refused at once; nothing is written on failure.
#[test]
fn a_level_order_through_the_c_builder() {
    use cfx::ffi::schema_builder::*;
    let c = |s: &str| CString::new(s).unwrap();
    let (savings, high, low, unknown) = (c("savings"), c("high"), c("low"), c("unknown"));
    unsafe {
        let mut b = null_mut();
        assert_eq!(cfx_schema_builder_new(&mut b), cfx_status::Ok);
        let levels = [high.as_ptr(), low.as_ptr(), unknown.as_ptr()];
        cfx_schema_builder_add_categorical(b, savings.as_ptr(), levels.as_ptr(), 3);
        let order = [low.as_ptr(), high.as_ptr()];
        assert_eq!(
            cfx_schema_builder_set_level_order(b, order.as_ptr(), 2),
            cfx_status::Ok
        );
        assert_eq!(
            cfx_schema_builder_set_level_order(b, null(), 2),
            cfx_status::NullArgument
        );
        assert_eq!(
            cfx_schema_builder_set_actionability(b, 1, 1),
            cfx_status::Ok
        );
        let mut s = null();
        assert_eq!(cfx_schema_build(b, &mut s), cfx_status::Ok);
        let json = string_of(|buf, cap, need| cfx_schema_to_json(s, buf, cap, need));
        let rust = cfx::schema::Schema::from_json(&json).unwrap();
        assert_eq!(rust.features[0].actionability.level_order, ["low", "high"]);
        // high (0) → low (1) is down by the order; unknown (2) → low is free.
        assert!(!rust.transition_allowed(0, 0, 1));
        assert!(rust.transition_allowed(0, 1, 0));
        assert!(rust.transition_allowed(0, 2, 1));
        cfx_schema_free(s);

        let mut b = null_mut();
        cfx_schema_builder_new(&mut b);
        cfx_schema_builder_add_categorical(b, savings.as_ptr(), levels.as_ptr(), 2);
        let medium = c("medium");
        let order = [low.as_ptr(), medium.as_ptr()];
        cfx_schema_builder_set_level_order(b, order.as_ptr(), 2);
        let mut s = null();
        assert_eq!(cfx_schema_build(b, &mut s), cfx_status::InvalidSchema);
        assert!(s.is_null());
        let msg = cfx::ffi::error::last_error().unwrap();
        assert!(msg.contains("savings") && msg.contains("medium"), "{msg}");

        let mut b = null_mut();
        cfx_schema_builder_new(&mut b);
        cfx_schema_builder_add_contiguous(b, savings.as_ptr(), 0.0, 1.0, 0);
        assert_eq!(
            cfx_schema_builder_set_level_order(b, order.as_ptr(), 2),
            cfx_status::InvalidArgument
        );
        cfx_schema_builder_free(b);
    }
}

/// Change limits, time growth and waiting through the builder, and the advice
/// presets on the German schema: what the C API builds is what Rust checks.
#[test]
fn change_limits_time_and_presets_through_the_c_api() {
    use cfx::ffi::schema_builder::*;
    let c = |s: &str| CString::new(s).unwrap();
    unsafe {
        let mut b = null_mut();
        assert_eq!(cfx_schema_builder_new(&mut b), cfx_status::Ok);
        let (amount, age) = (c("amount"), c("age"));
        cfx_schema_builder_add_contiguous(b, amount.as_ptr(), 250.0, 20000.0, 0);
        assert_eq!(
            cfx_schema_builder_set_change_limits(b, 2, 0.1, 2, 0.5),
            cfx_status::Ok
        );
        assert_eq!(
            cfx_schema_builder_set_change_limits(b, 7, 0.1, 0, 0.0),
            cfx_status::InvalidArgument
        );
        cfx_schema_builder_add_contiguous(b, age.as_ptr(), 18.0, 75.0, 1);
        assert_eq!(
            cfx_schema_builder_set_time_growth(b, 1.0 / 12.0, null()),
            cfx_status::Ok
        );
        assert_eq!(cfx_schema_builder_set_waiting(b, 0.1, 24), cfx_status::Ok);
        let mut s = null();
        assert_eq!(cfx_schema_build(b, &mut s), cfx_status::Ok);
        let json = string_of(|buf, cap, need| cfx_schema_to_json(s, buf, cap, need));
        let rust = cfx::schema::Schema::from_json(&json).unwrap();
        assert_eq!(rust.move_range(0, 6000.0), Some((3000.0, 6600.0)));
        assert_eq!(rust.time_features(), vec![1]);
        assert_eq!(rust.waiting().unwrap().max_months, 24);
        cfx_schema_free(s);
        // Time growth without waiting is an invalid schema.
        let mut b = null_mut();
        cfx_schema_builder_new(&mut b);
        cfx_schema_builder_add_contiguous(b, age.as_ptr(), 18.0, 75.0, 1);
        cfx_schema_builder_set_time_growth(b, 1.0, null());
        let mut s = null();
        assert_eq!(cfx_schema_build(b, &mut s), cfx_status::InvalidSchema);

        let mut d = null();
        assert_eq!(cfx_dataset_load_german(null(), &mut d), cfx_status::Ok);
        let mut german = null();
        assert_eq!(cfx_dataset_schema(d, &mut german), cfx_status::Ok);
        let mut advised = null();
        assert_eq!(
            cfx_schema_advice_preset(german, 0, 0.05, &mut advised),
            cfx_status::Ok
        );
        let json = string_of(|buf, cap, need| cfx_schema_to_json(advised, buf, cap, need));
        let rust = cfx::schema::Schema::from_json(&json).unwrap();
        let age = rust.index_of("age_in_years").unwrap();
        let employment = rust.index_of("present_employment_since").unwrap();
        assert!(!rust.features[age].actionability.mutable);
        // Age grows by the month; employment moves up its duration bands.
        assert_eq!(rust.time_features(), vec![employment, age]);
        // The HELOC preset needs HELOC's features: NOT_FOUND on German.
        let mut wrong = null();
        assert_eq!(
            cfx_schema_advice_preset(german, 1, 0.05, &mut wrong),
            cfx_status::NotFound
        );
        assert_eq!(
            cfx_schema_advice_preset(german, 9, 0.05, &mut wrong),
            cfx_status::InvalidArgument
        );
        cfx_schema_free(advised);
        cfx_schema_free(german);
        cfx_dataset_free(d);
    }
}

/// Advice grids and minimum changes through the builder (issue 43): the
/// schema JSON's `advice_step` and `min_change`; 0 clears; a negative or
/// non-finite value, a categorical or a NULL builder is a status and a
/// message, and a step off the data's grid is refused at build.
#[test]
fn advice_grids_through_the_builder() {
    use cfx::ffi::schema_builder::*;
    let c = |s: &str| CString::new(s).unwrap();
    let (income, n, level) = (c("income"), c("n"), c("a"));
    let levels = [level.as_ptr()];
    let last_error = || cfx::ffi::error::last_error().unwrap();
    unsafe {
        let mut b = null_mut();
        assert_eq!(cfx_schema_builder_new(&mut b), cfx_status::Ok);
        cfx_schema_builder_add_contiguous(b, income.as_ptr(), 0.0, 100000.0, 0);
        assert_eq!(
            cfx_schema_builder_set_advice_grid(b, 1000.0, 2000.0),
            cfx_status::Ok
        );
        for (step, least) in [(-1.0, 0.0), (f64::NAN, 0.0), (1000.0, f64::INFINITY)] {
            assert_eq!(
                cfx_schema_builder_set_advice_grid(b, step, least),
                cfx_status::InvalidArgument
            );
            assert!(last_error().contains("finite and non-negative"));
        }
        cfx_schema_builder_add_contiguous(b, n.as_ptr(), 0.0, 10.0, 1);
        assert_eq!(
            cfx_schema_builder_set_advice_grid(b, 0.0, 2.0),
            cfx_status::Ok
        );
        let mut s = null();
        assert_eq!(cfx_schema_build(b, &mut s), cfx_status::Ok);
        let json = string_of(|buf, cap, need| cfx_schema_to_json(s, buf, cap, need));
        cfx_schema_free(s);
        let rust = cfx::schema::Schema::from_json(&json).unwrap();
        assert_eq!(rust.value_grid(0), Some((0.0, 1000.0)));
        assert_eq!(
            (rust.value_grid(1), rust.min_change(1)),
            (Some((0.0, 1.0)), 2.0)
        );
        assert_eq!(rust.features[1].actionability.advice_step, None);
        // A step off the whole numbers of an integer feature: refused at build.
        let mut b = null_mut();
        cfx_schema_builder_new(&mut b);
        cfx_schema_builder_add_contiguous(b, n.as_ptr(), 0.0, 10.0, 1);
        assert_eq!(
            cfx_schema_builder_set_advice_grid(b, 2.5, 0.0),
            cfx_status::Ok
        );
        let mut s = null();
        assert_eq!(cfx_schema_build(b, &mut s), cfx_status::InvalidSchema);
        assert!(s.is_null() && last_error().contains("whole number"));
        // A categorical, and a NULL builder.
        let mut b = null_mut();
        cfx_schema_builder_new(&mut b);
        cfx_schema_builder_add_categorical(b, n.as_ptr(), levels.as_ptr(), 1);
        assert_eq!(
            cfx_schema_builder_set_advice_grid(b, 1.0, 0.0),
            cfx_status::InvalidArgument
        );
        assert!(last_error().contains("categorical"));
        cfx_schema_builder_free(b);
        assert_eq!(
            cfx_schema_builder_set_advice_grid(null_mut(), 1.0, 0.0),
            cfx_status::NullArgument
        );
    }
}

/// The builder's last advice setters (issue 25): the cap on features changed,
/// duration bands and a time window that closes early give the schema JSON's
/// fields; a bad value is a status and a message, and nothing is built.
#[test]
fn cap_bands_and_early_windows_through_the_builder() {
    use cfx::ffi::schema_builder::*;
    let c = |s: &str| CString::new(s).unwrap();
    let names = ["unemployed", "< 1 year", "1 to 4 years", ">= 4 years"].map(c);
    let levels: Vec<*const c_char> = names.iter().map(|n| n.as_ptr()).collect();
    let (job, inq, gone, amount) = (c("job"), c("inq"), c("gone"), c("amount"));
    let last_error = || cfx::ffi::error::last_error().unwrap();
    unsafe {
        // A builder with employment bands, an inquiry window closing after 23
        // of 24 months and a cap of 2.
        let draft = || {
            let mut b = null_mut();
            assert_eq!(cfx_schema_builder_new(&mut b), cfx_status::Ok);
            cfx_schema_builder_add_contiguous(b, amount.as_ptr(), 250.0, 20000.0, 0);
            cfx_schema_builder_add_categorical(b, job.as_ptr(), levels.as_ptr(), 4);
            assert_eq!(
                cfx_schema_builder_set_level_order(b, levels.as_ptr(), 4),
                cfx_status::Ok
            );
            cfx_schema_builder_add_contiguous(b, inq.as_ptr(), 0.0, 24.0, 1);
            cfx_schema_builder_add_special_state(b, -7.0, gone.as_ptr());
            assert_eq!(
                cfx_schema_builder_set_time_growth(b, 1.0, gone.as_ptr()),
                cfx_status::Ok
            );
            cfx_schema_builder_set_waiting(b, 0.1, 24);
            b
        };
        let b = draft();
        assert_eq!(
            cfx_schema_builder_set_time_growth_ends_after(b, 23.0),
            cfx_status::Ok
        );
        assert_eq!(
            cfx_schema_builder_set_max_features_changed(b, 2),
            cfx_status::Ok
        );
        let mut s = null();
        assert_eq!(cfx_schema_build(b, &mut s), cfx_status::Ok);
        let json = string_of(|buf, cap, need| cfx_schema_to_json(s, buf, cap, need));
        cfx_schema_free(s);
        let rust = cfx::schema::Schema::from_json(&json).unwrap();
        assert_eq!(rust.max_features_changed, Some(2));
        let g = rust.features[2]
            .actionability
            .grows_with_time
            .as_ref()
            .unwrap();
        assert_eq!(g.ends_after, Some(23.0));
        // 0 months since the last inquiry, 24 months on: the window has closed.
        assert_eq!(
            rust.after_waiting(&[1000.0, 1.0, 0.0], 24).unwrap()[2],
            -7.0
        );

        // Duration bands on the categorical, added last.
        let mut b = null_mut();
        cfx_schema_builder_new(&mut b);
        cfx_schema_builder_add_categorical(b, job.as_ptr(), levels.as_ptr(), 4);
        cfx_schema_builder_set_level_order(b, levels.as_ptr(), 4);
        assert_eq!(
            cfx_schema_builder_set_band_months(b, levels[1], 12),
            cfx_status::Ok
        );
        assert_eq!(
            cfx_schema_builder_set_band_months(b, levels[2], 36),
            cfx_status::Ok
        );
        let nope = c("retired");
        assert_eq!(
            cfx_schema_builder_set_band_months(b, nope.as_ptr(), 12),
            cfx_status::NotFound
        );
        assert!(last_error().contains("retired"), "{}", last_error());
        cfx_schema_builder_set_waiting(b, 0.1, 60);
        let mut s = null();
        assert_eq!(cfx_schema_build(b, &mut s), cfx_status::Ok);
        let json = string_of(|buf, cap, need| cfx_schema_to_json(s, buf, cap, need));
        cfx_schema_free(s);
        let rust = cfx::schema::Schema::from_json(&json).unwrap();
        assert!(!rust.features[0].actionability.mutable);
        // "< 1 year" (1): 12 months to "1 to 4 years", 36 more to ">= 4 years".
        assert_eq!(rust.after_waiting(&[1.0], 11).unwrap(), vec![1.0]);
        assert_eq!(rust.after_waiting(&[1.0], 12).unwrap(), vec![2.0]);
        assert_eq!(rust.after_waiting(&[1.0], 48).unwrap(), vec![3.0]);

        // Bad values: a status and a message, nothing built.
        let b = draft();
        assert_eq!(
            cfx_schema_builder_set_max_features_changed(b, 0),
            cfx_status::InvalidArgument
        );
        assert!(last_error().contains("at least 1"), "{}", last_error());
        assert_eq!(
            cfx_schema_builder_set_band_months(b, levels[1], 12),
            cfx_status::InvalidArgument,
            "bands on the contiguous inquiry feature"
        );
        assert!(last_error().contains("categorical"), "{}", last_error());
        assert_eq!(
            cfx_schema_builder_set_time_growth_ends_after(b, f64::NAN),
            cfx_status::InvalidArgument
        );
        assert_eq!(
            cfx_schema_builder_set_time_growth_ends_after(b, 30.0),
            cfx_status::Ok
        );
        let mut s = null();
        assert_eq!(cfx_schema_build(b, &mut s), cfx_status::InvalidSchema);
        assert!(s.is_null());
        assert!(last_error().contains("ends_after"), "{}", last_error());
        // ends_after on a feature that does not grow with time.
        let mut b = null_mut();
        cfx_schema_builder_new(&mut b);
        cfx_schema_builder_add_contiguous(b, amount.as_ptr(), 250.0, 20000.0, 0);
        assert_eq!(
            cfx_schema_builder_set_time_growth_ends_after(b, 300.0),
            cfx_status::InvalidArgument
        );
        assert!(last_error().contains("does not grow with time"));
        // A band with no next level in the order is refused at build.
        cfx_schema_builder_add_categorical(b, job.as_ptr(), levels.as_ptr(), 4);
        cfx_schema_builder_set_level_order(b, levels.as_ptr(), 4);
        assert_eq!(
            cfx_schema_builder_set_band_months(b, levels[3], 12),
            cfx_status::Ok
        );
        cfx_schema_builder_set_waiting(b, 0.1, 24);
        let mut s = null();
        assert_eq!(cfx_schema_build(b, &mut s), cfx_status::InvalidSchema);
        assert!(last_error().contains("no next band"), "{}", last_error());
        // NULL builders are refused too.
        assert_eq!(
            cfx_schema_builder_set_max_features_changed(null_mut(), 2),
            cfx_status::NullArgument
        );
        assert_eq!(
            cfx_schema_builder_set_band_months(null_mut(), levels[1], 12),
            cfx_status::NullArgument
        );
        assert_eq!(
            cfx_schema_builder_set_time_growth_ends_after(null_mut(), 1.0),
            cfx_status::NullArgument
        );
    }
}

/// A time feature that refuses to pass its upper bound, through the
/// builder: the schema JSON's `"past_upper": "refuse"`, the applicant's
/// longest wait shortened by it, 0 back to capping; a bad flag, the call on
/// a feature that does not grow with time, refusing with an `ends_in` state
/// and a NULL builder are statuses with messages.
#[test]
fn refusing_to_pass_the_upper_bound_through_the_builder() {
    use cfx::ffi::schema_builder::*;
    use cfx::schema::PastUpper;
    let c = |s: &str| CString::new(s).unwrap();
    let (since, gone, amount) = (c("since"), c("gone"), c("amount"));
    let last_error = || cfx::ffi::error::last_error().unwrap();
    unsafe {
        let draft = |ends_in: *const c_char| {
            let mut b = null_mut();
            assert_eq!(cfx_schema_builder_new(&mut b), cfx_status::Ok);
            cfx_schema_builder_add_contiguous(b, amount.as_ptr(), 250.0, 20000.0, 0);
            cfx_schema_builder_add_contiguous(b, since.as_ptr(), 0.0, 83.0, 1);
            cfx_schema_builder_add_special_state(b, -7.0, gone.as_ptr());
            assert_eq!(
                cfx_schema_builder_set_time_growth(b, 1.0, ends_in),
                cfx_status::Ok
            );
            cfx_schema_builder_set_waiting(b, 0.1, 24);
            b
        };
        let built = |b| {
            let mut s = null();
            assert_eq!(cfx_schema_build(b, &mut s), cfx_status::Ok);
            let json = string_of(|buf, cap, need| cfx_schema_to_json(s, buf, cap, need));
            cfx_schema_free(s);
            cfx::schema::Schema::from_json(&json).unwrap()
        };
        let b = draft(std::ptr::null());
        assert_eq!(
            cfx_schema_builder_set_time_growth_refuse_past_upper(b, 1),
            cfx_status::Ok
        );
        let rust = built(b);
        let g = rust.features[1]
            .actionability
            .grows_with_time
            .as_ref()
            .unwrap();
        assert_eq!(g.past_upper, PastUpper::Refuse);
        assert!(rust.to_json().contains("\"past_upper\": \"refuse\""));
        // 80 months since: 3 more reach 83, the fourth would pass it.
        assert_eq!(rust.longest_wait(&[1000.0, 80.0]).unwrap(), 3);
        assert!(rust.after_waiting(&[1000.0, 80.0], 4).is_err());
        // 0 sets capping back.
        let b = draft(std::ptr::null());
        cfx_schema_builder_set_time_growth_refuse_past_upper(b, 1);
        assert_eq!(
            cfx_schema_builder_set_time_growth_refuse_past_upper(b, 0),
            cfx_status::Ok
        );
        let rust = built(b);
        assert_eq!(rust.longest_wait(&[1000.0, 80.0]).unwrap(), 24);
        assert_eq!(rust.after_waiting(&[1000.0, 80.0], 4).unwrap()[1], 83.0);

        // Bad values: a status and a message, nothing built.
        let b = draft(std::ptr::null());
        assert_eq!(
            cfx_schema_builder_set_time_growth_refuse_past_upper(b, 2),
            cfx_status::InvalidArgument
        );
        assert!(last_error().contains("refuse"), "{}", last_error());
        cfx_schema_builder_free(b);
        // With an end state, refusing is a contradiction found at build.
        let b = draft(gone.as_ptr());
        assert_eq!(
            cfx_schema_builder_set_time_growth_refuse_past_upper(b, 1),
            cfx_status::Ok
        );
        let mut s = null();
        assert_eq!(cfx_schema_build(b, &mut s), cfx_status::InvalidSchema);
        assert!(s.is_null());
        assert!(
            last_error().contains("past_upper") && last_error().contains("ends_in"),
            "{}",
            last_error()
        );
        // On a feature that does not grow with time, or before any feature.
        let mut b = null_mut();
        cfx_schema_builder_new(&mut b);
        assert_eq!(
            cfx_schema_builder_set_time_growth_refuse_past_upper(b, 1),
            cfx_status::InvalidArgument
        );
        assert!(last_error().contains("no feature"), "{}", last_error());
        cfx_schema_builder_add_contiguous(b, amount.as_ptr(), 250.0, 20000.0, 0);
        assert_eq!(
            cfx_schema_builder_set_time_growth_refuse_past_upper(b, 1),
            cfx_status::InvalidArgument
        );
        assert!(last_error().contains("does not grow with time"));
        cfx_schema_builder_free(b);
        assert_eq!(
            cfx_schema_builder_set_time_growth_refuse_past_upper(null_mut(), 1),
            cfx_status::NullArgument
        );
    }
}

/// Advised ranges through the C ABI. The builder's range on a growing file
/// age keeps the exact engine's waits inside it (the schema JSON's
/// `"advised_range"`; a wait into the `ends_in` state is not judged), and
/// `cfx_plausibility_advise_waits` sets it to the accepted applicants'
/// 1–99% range; a bad range is a status and a message.
///
/// The file's age in [0, 100] months grows a month a month; x in [0, 10] is
/// an integer. The model's score is `10·file/100 − 3·x/10 − 2.45`: with
/// x = 0 a file of 25 months or more is accepted, with x = 10 one of 55;
/// a month of waiting (cost 0.01) adds 0.1 to the score, lowering x by 1
/// (cost 0.1 in unit weights) adds 0.3.
#[test]
fn advised_ranges_through_the_builder_and_from_plausibility() {
    use cfx::ffi::plausibility::*;
    use cfx::ffi::schema_builder::*;
    use cfx::ffi::waiting_advice::*;
    let c = |s: &str| CString::new(s).unwrap();
    let (file, x, inq, gone) = (c("file"), c("x"), c("inq"), c("gone"));
    let last_error = || cfx::ffi::error::last_error().unwrap();
    unsafe {
        let files = |range: Option<(f64, f64)>| {
            let mut b = null_mut();
            assert_eq!(cfx_schema_builder_new(&mut b), cfx_status::Ok);
            cfx_schema_builder_add_contiguous(b, file.as_ptr(), 0.0, 100.0, 1);
            assert_eq!(
                cfx_schema_builder_set_time_growth(b, 1.0, null()),
                cfx_status::Ok
            );
            if let Some((low, high)) = range {
                assert_eq!(
                    cfx_schema_builder_set_time_growth_advised_range(b, low, high),
                    cfx_status::Ok
                );
            }
            cfx_schema_builder_add_contiguous(b, x.as_ptr(), 0.0, 10.0, 1);
            cfx_schema_builder_set_waiting(b, 0.01, 24);
            let mut s = null();
            let st = cfx_schema_build(b, &mut s);
            (st, s)
        };
        let rust_of = |s: *const cfx_schema| {
            let json = string_of(|buf, cap, need| cfx_schema_to_json(s, buf, cap, need));
            (cfx::schema::Schema::from_json(&json).unwrap(), json)
        };
        let range_of = |rust: &cfx::schema::Schema, i: usize| {
            let g = rust.features[i].actionability.grows_with_time.as_ref();
            g.and_then(|g| g.advised_range)
        };
        let mut model = null();
        assert_eq!(
            cfx_model_linear_new([10.0, -3.0].as_ptr(), 2, -2.45, 0.5, &mut model),
            cfx_status::Ok
        );
        // Months, total cost and final row of the advice (None: no advice).
        let advise = |s: *const cfx_schema, m: *const cfx_model, row: &[f64]| {
            let mut a = null();
            assert_eq!(
                cfx_coherent_explain_with_waiting(s, m, null(), row.as_ptr(), row.len(), &mut a),
                cfx_status::Ok
            );
            let mut outcome = -1;
            cfx_waiting_advice_outcome(a, &mut outcome);
            let out = (outcome == cfx_waiting_outcome::Found as i32).then(|| {
                let (mut months, mut total) = (0u32, 0.0);
                assert_eq!(
                    cfx_waiting_advice_summary(a, &mut months, null_mut(), &mut total, null_mut()),
                    cfx_status::Ok
                );
                let mut row = vec![0.0; 4];
                let mut n = 0;
                assert_eq!(
                    cfx_waiting_advice_final_row(a, row.as_mut_ptr(), 4, &mut n),
                    cfx_status::Ok
                );
                row.truncate(n);
                (months, total, row)
            });
            cfx_waiting_advice_free(a);
            out
        };

        let (st, free) = files(None);
        assert_eq!(st, cfx_status::Ok);
        let (st, ranged) = files(Some((30.0, 40.0)));
        assert_eq!(st, cfx_status::Ok);
        let (rust, json) = rust_of(ranged);
        assert!(json.contains("\"advised_range\""), "{json}");
        assert_eq!(range_of(&rust, 0), Some((30.0, 40.0)));
        assert_eq!(range_of(&rust, 1), None);
        assert!(!rust_of(free).1.contains("advised_range"));
        // File 20: the waits that land in [30, 40] are 10 to 20 months; file
        // 45: none but 0.
        let within: Vec<u32> = std::iter::once(0).chain(10..=20).collect();
        assert_eq!(rust.advisable_waits(&[20.0, 0.0]).unwrap(), within);
        assert_eq!(rust.advisable_waits(&[45.0, 10.0]).unwrap(), vec![0]);
        // Five months reach 25 without the range; within it, ten (30).
        let (months, cost, row) = advise(free, model, &[20.0, 0.0]).unwrap();
        assert_eq!((months, row), (5, vec![25.0, 0.0]));
        assert!((cost - 0.05).abs() < 1e-9, "{cost}");
        let (months, cost, row) = advise(ranged, model, &[20.0, 0.0]).unwrap();
        assert_eq!((months, row), (10, vec![30.0, 0.0]));
        assert!((cost - 0.10).abs() < 1e-9, "{cost}");
        // File 45, x 10: ten months (55) cost 0.10, less than lowering x to 6
        // (0.4); above the range every wait leaves it, so x moves.
        let (months, cost, row) = advise(free, model, &[45.0, 10.0]).unwrap();
        assert_eq!((months, row), (10, vec![55.0, 10.0]));
        assert!((cost - 0.10).abs() < 1e-9, "{cost}");
        let (months, cost, row) = advise(ranged, model, &[45.0, 10.0]).unwrap();
        assert_eq!((months, row), (0, vec![45.0, 6.0]));
        assert!((cost - 0.4).abs() < 1e-9, "{cost}");

        // The plausible range of accepted files 30..=40 (type-7 quantiles:
        // 30 + 0.1·1 and 39 + 0.9·1); declined rows are not counted.
        let mut rows = Vec::new();
        for f in 30..=40 {
            rows.extend([f64::from(f), 5.0]);
        }
        rows.extend([0.0, 0.0, 60.0, 10.0, 100.0, 3.0]);
        let labels: Vec<f64> = (0..14).map(|k| f64::from(u8::from(k < 11))).collect();
        let mut p = null();
        assert_eq!(
            cfx_plausibility_fit(
                free,
                rows.as_ptr(),
                rows.len(),
                14,
                labels.as_ptr(),
                labels.len(),
                &mut p
            ),
            cfx_status::Ok
        );
        let mut advised = null();
        assert_eq!(
            cfx_plausibility_advise_waits(p, &mut advised),
            cfx_status::Ok
        );
        let (rust, json) = rust_of(advised);
        assert_eq!(json.matches("\"advised_range\"").count(), 1, "{json}");
        let (low, high) = range_of(&rust, 0).unwrap();
        assert!((low - 30.1).abs() < 1e-9 && (high - 39.9).abs() < 1e-9);
        // The fitted schema itself is unchanged.
        assert!(!rust_of(free).1.contains("advised_range"));
        // File 20: waits 0 and 11 to 19 land in [30.1, 39.9]; 11 is accepted.
        let within: Vec<u32> = std::iter::once(0).chain(11..=19).collect();
        assert_eq!(rust.advisable_waits(&[20.0, 0.0]).unwrap(), within);
        let (months, _, row) = advise(advised, model, &[20.0, 0.0]).unwrap();
        assert_eq!((months, row), (11, vec![31.0, 0.0]));
        let (months, _, row) = advise(advised, model, &[45.0, 10.0]).unwrap();
        assert_eq!((months, row), (0, vec![45.0, 6.0]));
        assert_eq!(
            cfx_plausibility_advise_waits(null(), &mut advised),
            cfx_status::NullArgument
        );
        assert_eq!(
            cfx_plausibility_advise_waits(p, null_mut()),
            cfx_status::NullArgument
        );
        cfx_schema_free(advised);
        cfx_plausibility_free(p);
        cfx_schema_free(ranged);
        cfx_schema_free(free);
        cfx_model_free(model);

        // A wait into the ends_in state is not judged: months since the last
        // inquiry in [0, 24], "gone" (-7) past 24, the range [0, 5]; from 20,
        // waits of 1 to 4 months (21 to 24) are not advised, 5 and more are.
        let mut b = null_mut();
        cfx_schema_builder_new(&mut b);
        cfx_schema_builder_add_contiguous(b, inq.as_ptr(), 0.0, 24.0, 1);
        cfx_schema_builder_add_special_state(b, -7.0, gone.as_ptr());
        cfx_schema_builder_set_time_growth(b, 1.0, gone.as_ptr());
        assert_eq!(
            cfx_schema_builder_set_time_growth_advised_range(b, 0.0, 5.0),
            cfx_status::Ok
        );
        cfx_schema_builder_set_waiting(b, 0.01, 24);
        let mut s = null();
        assert_eq!(cfx_schema_build(b, &mut s), cfx_status::Ok);
        let (rust, _) = rust_of(s);
        let waits: Vec<u32> = std::iter::once(0).chain(5..=24).collect();
        assert_eq!(rust.advisable_waits(&[20.0]).unwrap(), waits);
        // From 2: 1 to 3 months land in [3, 5], 4 to 22 in [6, 24], then gone.
        let waits: Vec<u32> = (0..=3).chain(23..=24).collect();
        assert_eq!(rust.advisable_waits(&[2.0]).unwrap(), waits);
        // The model accepts only "gone": five months.
        let mut m = null();
        cfx_model_linear_new([0.0, 5.0].as_ptr(), 2, -3.0, 0.5, &mut m);
        let (months, _, row) = advise(s, m, &[20.0]).unwrap();
        assert_eq!((months, row), (5, vec![-7.0]));
        cfx_model_free(m);
        cfx_schema_free(s);

        // low > high is found at build; a non-finite bound and a feature
        // that does not grow with time at once; a NULL builder.
        let mut b = null_mut();
        cfx_schema_builder_new(&mut b);
        cfx_schema_builder_add_contiguous(b, file.as_ptr(), 0.0, 100.0, 1);
        cfx_schema_builder_set_time_growth(b, 1.0, null());
        assert_eq!(
            cfx_schema_builder_set_time_growth_advised_range(b, f64::NAN, 40.0),
            cfx_status::InvalidArgument
        );
        assert!(last_error().contains("low"), "{}", last_error());
        assert_eq!(
            cfx_schema_builder_set_time_growth_advised_range(b, 30.0, f64::INFINITY),
            cfx_status::InvalidArgument
        );
        assert_eq!(
            cfx_schema_builder_set_time_growth_advised_range(b, 40.0, 30.0),
            cfx_status::Ok
        );
        cfx_schema_builder_set_waiting(b, 0.01, 24);
        let mut s = null();
        assert_eq!(cfx_schema_build(b, &mut s), cfx_status::InvalidSchema);
        assert!(s.is_null());
        assert!(
            last_error().contains("advised_range") && last_error().contains("low ≤ high"),
            "{}",
            last_error()
        );
        let mut b = null_mut();
        cfx_schema_builder_new(&mut b);
        cfx_schema_builder_add_contiguous(b, x.as_ptr(), 0.0, 10.0, 1);
        assert_eq!(
            cfx_schema_builder_set_time_growth_advised_range(b, 0.0, 5.0),
            cfx_status::InvalidArgument
        );
        assert!(last_error().contains("does not grow with time"));
        cfx_schema_builder_free(b);
        assert_eq!(
            cfx_schema_builder_set_time_growth_advised_range(null_mut(), 0.0, 5.0),
            cfx_status::NullArgument
        );
    }
}

/// A ReLU network trained through the C ABI is explained by the exact engine
/// through the same entry point as any model: proven optimal by HiGHS, and
/// the network itself (`cfx_model_predict`) accepts the answer. A tanh
/// network is refused with `INVALID_ARGUMENT` and a message saying why.
#[test]
fn the_exact_engine_explains_an_mlp_through_the_c_api() {
    use cfx::ffi::coherent::*;
    use cfx::ffi::error::cfx_last_error_message;
    unsafe {
        let mut d = null();
        assert_eq!(cfx_dataset_load_german(null(), &mut d), cfx_status::Ok);
        let (mut tr, mut te) = (null(), null());
        assert_eq!(
            cfx_dataset_holdout_split(d, &mut tr, &mut te),
            cfx_status::Ok
        );
        let mut schema = null();
        assert_eq!(cfx_dataset_schema(tr, &mut schema), cfx_status::Ok);
        let mut mlp = null();
        assert_eq!(
            cfx_model_train_mlp(tr, [8usize].as_ptr(), 1, 20, 64, 2e-3, 1e-4, 3, &mut mlp),
            cfx_status::Ok
        );
        let (mut n_rows, mut width) = (0, 0);
        cfx_dataset_n_rows(te, &mut n_rows);
        cfx_schema_encoded_dim(schema, &mut width);
        let accepts = |raw: &[f64]| {
            let mut x = vec![0.0; width];
            let mut n = 0;
            assert_eq!(
                cfx_schema_encode(
                    schema,
                    raw.as_ptr(),
                    raw.len(),
                    x.as_mut_ptr(),
                    width,
                    &mut n
                ),
                cfx_status::Ok
            );
            let (mut s, mut p, mut acc) = (0.0, 0.0, -1);
            assert_eq!(
                cfx_model_predict(mlp, x.as_ptr(), width, &mut s, &mut p, &mut acc),
                cfx_status::Ok
            );
            acc == 1
        };
        let mut explained = 0;
        for k in 0..n_rows {
            let mut row = [0.0; 64];
            let mut len = 0;
            assert_eq!(
                cfx_dataset_row(te, k, row.as_mut_ptr(), 64, &mut len),
                cfx_status::Ok
            );
            let row = &row[..len];
            if accepts(row) {
                continue;
            }
            let mut r = null();
            assert_eq!(
                cfx_coherent_explain(schema, mlp, null(), row.as_ptr(), len, &mut r),
                cfx_status::Ok
            );
            let (mut outcome, mut by) = (-1, -1);
            cfx_coherent_result_outcome(r, &mut outcome, null_mut());
            cfx_coherent_result_proved_by(r, &mut by);
            assert_eq!(outcome, cfx_coherent_outcome::Optimal as i32);
            assert_eq!(by, cfx_proved_by::Highs as i32);
            let mut cf = [0.0; 64];
            let mut n = 0;
            assert_eq!(
                cfx_coherent_result_counterfactual(r, 0, cf.as_mut_ptr(), 64, &mut n),
                cfx_status::Ok
            );
            assert!(accepts(&cf[..n]), "the network declines the answer");
            cfx_coherent_result_free(r);
            explained += 1;
            if explained == 3 {
                break;
            }
        }
        assert_eq!(explained, 3);
        // The same network with tanh units: refused, with the reason.
        let json = string_of(|b, c, l| cfx_model_to_json(mlp, b, c, l));
        let tanh = CString::new(json.replacen("\"relu\"", "\"tanh\"", 1)).unwrap();
        let mut bad = null();
        assert_eq!(
            cfx_model_from_json(schema, tanh.as_ptr(), &mut bad),
            cfx_status::Ok
        );
        let mut row = [0.0; 64];
        let mut len = 0;
        cfx_dataset_row(te, 0, row.as_mut_ptr(), 64, &mut len);
        let mut r = null();
        assert_eq!(
            cfx_coherent_explain(schema, bad, null(), row.as_ptr(), len, &mut r),
            cfx_status::InvalidArgument
        );
        assert!(r.is_null());
        let mut msg = [0 as c_char; 512];
        cfx_last_error_message(msg.as_mut_ptr(), 512);
        let msg = std::ffi::CStr::from_ptr(msg.as_ptr()).to_string_lossy();
        assert!(msg.contains("ReLU networks only"), "{msg}");
        cfx_model_free(bad);
        cfx_model_free(mlp);
        cfx_schema_free(schema);
        cfx_dataset_free(te);
        cfx_dataset_free(tr);
        cfx_dataset_free(d);
    }
}
