//! Where a schema comes from, through the C entry points: the builder with
//! every actionability field (checked against the same schema read from
//! JSON), the distance weights a schema says it has, a dataset's schema with
//! weights fitted on its rows (against weights computed by hand from
//! Russell 2019's §3.2 rules), and schema inference from a CSV with special
//! codes given by the caller (against a file whose schema is known, and
//! against cfx's own HELOC loader on the real data).

use cfx::ffi::data::*;
use cfx::ffi::schema::*;
use cfx::ffi::schema_builder::*;
use cfx::ffi::status::cfx_status;
use serde_json::Value;
use std::ffi::{CString, c_char};
use std::ptr::{null, null_mut};

mod common;
use common::last_error_message as last_error;

fn c(s: &str) -> CString {
    CString::new(s).unwrap()
}

fn json_of(schema: *const cfx_schema) -> Value {
    let mut need = 0;
    unsafe {
        assert_eq!(
            cfx_schema_to_json(schema, null_mut(), 0, &mut need),
            cfx_status::BufferTooSmall
        );
        let mut buf = vec![0 as c_char; need];
        assert_eq!(
            cfx_schema_to_json(schema, buf.as_mut_ptr(), need, &mut need),
            cfx_status::Ok
        );
        serde_json::from_str(std::ffi::CStr::from_ptr(buf.as_ptr()).to_str().unwrap()).unwrap()
    }
}

fn weights_kind(schema: *const cfx_schema) -> i32 {
    let mut k = -1;
    unsafe {
        assert_eq!(cfx_schema_weights_kind(schema, &mut k), cfx_status::Ok);
    }
    k
}

fn from_json(text: &str) -> *const cfx_schema {
    let mut s = null();
    unsafe {
        assert_eq!(
            cfx_schema_from_json(c(text).as_ptr(), &mut s),
            cfx_status::Ok,
            "{}",
            last_error()
        );
    }
    s
}

/// A builder schema using every actionability field, and the same schema
/// written as JSON by hand: both must have the same canonical JSON.
#[test]
fn builder_sets_every_actionability_field_as_json_does() {
    let json = r#"{"format_version": 1, "features": [
      {"name": "income", "kind": "contiguous", "lower": 0, "upper": 100000, "step": 500,
       "special_states": [{"code": -7, "label": "no record"}],
       "actionability": {"direction": "increase_only", "lower": 1000, "upper": 90000,
                         "cost_scale": 2.5,
                         "forbidden_transitions": [{"from": "value", "to": "no record"}]}},
      {"name": "housing", "kind": "categorical", "levels": ["rent", "own", "free"],
       "actionability": {"cost_scale": 0.5,
                         "forbidden_transitions": [{"from": "own", "to": "*"}]}},
      {"name": "age", "kind": "contiguous", "lower": 18, "upper": 99, "integer": true,
       "actionability": {"mutable": false}}
    ]}"#;
    let want = from_json(json);
    unsafe {
        let mut b = null_mut();
        assert_eq!(cfx_schema_builder_new(&mut b), cfx_status::Ok);
        let ok = |st: cfx_status| assert_eq!(st, cfx_status::Ok, "{}", last_error());
        ok(cfx_schema_builder_add_contiguous(
            b,
            c("income").as_ptr(),
            0.0,
            100000.0,
            0,
        ));
        ok(cfx_schema_builder_add_special_state(
            b,
            -7.0,
            c("no record").as_ptr(),
        ));
        ok(cfx_schema_builder_set_step(b, 500.0));
        ok(cfx_schema_builder_set_actionability(b, 1, 1));
        ok(cfx_schema_builder_set_actionable_bounds(b, 1000.0, 90000.0));
        ok(cfx_schema_builder_set_cost_scale(b, 2.5));
        ok(cfx_schema_builder_add_forbidden_transition(
            b,
            c("value").as_ptr(),
            c("no record").as_ptr(),
        ));
        let levels = [c("rent"), c("own"), c("free")];
        let ptrs: Vec<*const c_char> = levels.iter().map(|l| l.as_ptr()).collect();
        ok(cfx_schema_builder_add_categorical(
            b,
            c("housing").as_ptr(),
            ptrs.as_ptr(),
            3,
        ));
        ok(cfx_schema_builder_set_cost_scale(b, 0.5));
        ok(cfx_schema_builder_add_forbidden_transition(
            b,
            c("own").as_ptr(),
            c("*").as_ptr(),
        ));
        // Fields that do not apply to a categorical are refused at once.
        assert_eq!(
            cfx_schema_builder_set_step(b, 1.0),
            cfx_status::InvalidArgument
        );
        assert!(last_error().contains("housing"), "{}", last_error());
        assert_eq!(
            cfx_schema_builder_set_actionable_bounds(b, 0.0, 1.0),
            cfx_status::InvalidArgument
        );
        ok(cfx_schema_builder_add_contiguous(
            b,
            c("age").as_ptr(),
            18.0,
            99.0,
            1,
        ));
        ok(cfx_schema_builder_set_actionability(b, 0, 0));
        // Bad values are refused and change nothing.
        for (st, what) in [
            (cfx_schema_builder_set_cost_scale(b, 0.0), "cost 0"),
            (cfx_schema_builder_set_cost_scale(b, f64::NAN), "cost NaN"),
            (cfx_schema_builder_set_step(b, -1.0), "step −1"),
            (
                cfx_schema_builder_set_actionable_bounds(b, 50.0, 40.0),
                "lower > upper",
            ),
            (
                cfx_schema_builder_set_actionable_bounds(b, f64::INFINITY, 40.0),
                "infinite bound",
            ),
        ] {
            assert_eq!(st, cfx_status::InvalidArgument, "{what}");
        }
        assert_eq!(
            cfx_schema_builder_add_forbidden_transition(b, null(), c("*").as_ptr()),
            cfx_status::NullArgument
        );
        let mut s = null();
        ok(cfx_schema_build(b, &mut s));
        assert_eq!(json_of(s), json_of(want));
        assert_eq!(weights_kind(s), cfx_weights_kind::Unit as i32);
        cfx_schema_free(s);
        cfx_schema_free(want);
    }
}

/// Values that only the whole schema can judge are refused when it is built,
/// each with `INVALID_SCHEMA` (`NOT_FOUND` for an unknown state) naming the
/// feature.
#[test]
fn builder_refuses_inconsistent_actionability_at_build() {
    type Step = Box<dyn Fn(*mut cfx_schema_builder) -> cfx_status>;
    let cases: Vec<(&str, Step, cfx_status)> = vec![
        (
            "bounds outside the range",
            Box::new(|b| unsafe { cfx_schema_builder_set_actionable_bounds(b, -5.0, 5.0) }),
            cfx_status::InvalidSchema,
        ),
        (
            "unknown state",
            Box::new(|b| unsafe {
                cfx_schema_builder_add_forbidden_transition(
                    b,
                    c("value").as_ptr(),
                    c("bankrupt").as_ptr(),
                )
            }),
            cfx_status::NotFound,
        ),
        (
            "upper bound off the grid",
            Box::new(|b| unsafe { cfx_schema_builder_set_step(b, 3.0) }),
            cfx_status::InvalidSchema,
        ),
        (
            "fractional step of an integer feature",
            Box::new(|b| unsafe { cfx_schema_builder_set_step(b, 0.5) }),
            cfx_status::InvalidSchema,
        ),
    ];
    for (what, step, want) in cases {
        unsafe {
            let mut b = null_mut();
            assert_eq!(cfx_schema_builder_new(&mut b), cfx_status::Ok);
            assert_eq!(
                cfx_schema_builder_add_contiguous(b, c("months").as_ptr(), 0.0, 10.0, 1),
                cfx_status::Ok
            );
            assert_eq!(step(b), cfx_status::Ok, "{what}: {}", last_error());
            let mut s = null();
            assert_eq!(cfx_schema_build(b, &mut s), want, "{what}");
            assert!(s.is_null());
            assert!(last_error().contains("months"), "{what}: {}", last_error());
        }
    }
}

#[test]
fn a_schema_says_which_weights_it_has() {
    let unit = from_json(
        r#"{"format_version": 1, "features": [
        {"name": "a", "kind": "contiguous", "lower": 0, "upper": 1},
        {"name": "b", "kind": "categorical", "levels": ["x", "y"]}]}"#,
    );
    let mixed = from_json(
        r#"{"format_version": 1, "features": [
        {"name": "a", "kind": "contiguous", "lower": 0, "upper": 1,
         "weights": {"value": 3, "states": [], "anchor": 0.5}},
        {"name": "b", "kind": "categorical", "levels": ["x", "y"]}]}"#,
    );
    assert_eq!(weights_kind(unit), cfx_weights_kind::Unit as i32);
    assert_eq!(weights_kind(mixed), cfx_weights_kind::Mixed as i32);
    unsafe {
        let rows = [0.2, 0.0, 0.7, 1.0];
        let mut fitted = null();
        assert_eq!(
            cfx_schema_fit_weights(unit, rows.as_ptr(), 2, 2, &mut fitted),
            cfx_status::Ok
        );
        assert_eq!(weights_kind(fitted), cfx_weights_kind::Fitted as i32);
        assert_eq!(weights_kind(unit), cfx_weights_kind::Unit as i32);
        let mut k = 0;
        assert_eq!(
            cfx_schema_weights_kind(null(), &mut k),
            cfx_status::NullArgument
        );
        assert_eq!(
            cfx_schema_weights_kind(unit, null_mut()),
            cfx_status::NullArgument
        );
        for s in [unit, mixed, fitted] {
            cfx_schema_free(s);
        }
    }
}

fn temp_csv(name: &str, text: &str) -> (std::path::PathBuf, CString) {
    let dir = std::env::temp_dir().join(format!("cfx-schema-sources-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let p = dir.join(name);
    std::fs::write(&p, text).unwrap();
    let cp = c(p.to_str().unwrap());
    (p, cp)
}

/// Four applicants; `income` in [0, 10] reads 0, 2, 4, 10 (slots 0, 0.2, 0.4,
/// 1: median 0.3, absolute deviations 0.3, 0.1, 0.1, 0.7, MAD 0.2, weight 5);
/// `housing` is `own` in 3 of 4 rows (each level indicator has p = 1/4 or 3/4,
/// weight 1/(1.48·√(3/16)) = 1.56040…). The anchor is the median slot 0.3.
const FOUR: &str = "income,housing,outcome\n0,own,good\n2,own,bad\n4,rent,good\n10,own,good\n";

#[test]
fn a_dataset_offers_its_schema_with_weights_fitted_on_its_rows() {
    let schema = from_json(
        r#"{"format_version": 1, "features": [
        {"name": "income", "kind": "contiguous", "lower": 0, "upper": 10},
        {"name": "housing", "kind": "categorical", "levels": ["rent", "own"]}]}"#,
    );
    let (_, path) = temp_csv("four.csv", FOUR);
    unsafe {
        let mut d = null();
        assert_eq!(
            cfx_dataset_from_csv(
                schema,
                path.as_ptr(),
                c("outcome").as_ptr(),
                c("good").as_ptr(),
                &mut d
            ),
            cfx_status::Ok,
            "{}",
            last_error()
        );
        let mut own = null();
        assert_eq!(cfx_dataset_schema(d, &mut own), cfx_status::Ok);
        assert_eq!(weights_kind(own), cfx_weights_kind::Unit as i32);
        let mut fitted = null();
        assert_eq!(cfx_dataset_fitted_schema(d, &mut fitted), cfx_status::Ok);
        assert_eq!(weights_kind(fitted), cfx_weights_kind::Fitted as i32);
        let j = json_of(fitted);
        let inc = &j["features"][0]["weights"];
        assert!(
            (inc["value"].as_f64().unwrap() - 5.0).abs() < 1e-12,
            "{inc}"
        );
        assert!(
            (inc["anchor"].as_f64().unwrap() - 0.3).abs() < 1e-12,
            "{inc}"
        );
        let want = 1.0 / (1.48 * (3.0f64 / 16.0).sqrt());
        for w in j["features"][1]["weights"]["states"].as_array().unwrap() {
            assert!((w.as_f64().unwrap() - want).abs() < 1e-12, "{w} vs {want}");
        }
        // The dataset's own schema is untouched.
        let mut again = null();
        assert_eq!(cfx_dataset_schema(d, &mut again), cfx_status::Ok);
        assert_eq!(weights_kind(again), cfx_weights_kind::Unit as i32);
        let mut out = null();
        assert_eq!(
            cfx_dataset_fitted_schema(null(), &mut out),
            cfx_status::NullArgument
        );
        assert_eq!(
            cfx_dataset_fitted_schema(d, null_mut()),
            cfx_status::NullArgument
        );
        for s in [schema, own, fitted, again] {
            cfx_schema_free(s);
        }
        cfx_dataset_free(d);
    }
}

struct Infer<'a> {
    path: &'a CString,
    target: &'a str,
    favourable: &'a str,
    delimiter: u8,
    drop: &'a [&'a str],
    categorical: &'a [&'a str],
    specials: &'a [(f64, &'a str, Option<&'a str>)],
}

fn infer(a: &Infer) -> (cfx_status, *const cfx_dataset) {
    let hold = |v: &[&str]| v.iter().map(|s| c(s)).collect::<Vec<_>>();
    let drop = hold(a.drop);
    let cat = hold(a.categorical);
    let labels: Vec<CString> = a.specials.iter().map(|s| c(s.1)).collect();
    let cols: Vec<Option<CString>> = a.specials.iter().map(|s| s.2.map(c)).collect();
    let ptrs = |v: &[CString]| v.iter().map(|s| s.as_ptr()).collect::<Vec<_>>();
    let (pd, pc, pl) = (ptrs(&drop), ptrs(&cat), ptrs(&labels));
    let pcol: Vec<*const c_char> = cols
        .iter()
        .map(|o| o.as_ref().map_or(null(), |s| s.as_ptr()))
        .collect();
    let codes: Vec<f64> = a.specials.iter().map(|s| s.0).collect();
    let mut d = null();
    let st = unsafe {
        cfx_dataset_infer_csv(
            a.path.as_ptr(),
            c(a.target).as_ptr(),
            c(a.favourable).as_ptr(),
            a.delimiter as c_char,
            1,
            if pd.is_empty() { null() } else { pd.as_ptr() },
            pd.len(),
            if pc.is_empty() { null() } else { pc.as_ptr() },
            pc.len(),
            if codes.is_empty() {
                null()
            } else {
                codes.as_ptr()
            },
            if pl.is_empty() { null() } else { pl.as_ptr() },
            if pcol.is_empty() {
                null()
            } else {
                pcol.as_ptr()
            },
            codes.len(),
            &mut d,
        )
    };
    (st, d)
}

/// A semicolon-separated file whose schema is known: an identifier dropped,
/// a numeric code column declared categorical, a special code −7 on one
/// column only, a missing value read as a special state labelled `NA`.
#[test]
fn schema_inference_from_a_csv_with_caller_given_special_codes() {
    let text = "id;months;debt;region;status\n\
                a1;12;-7;1;ok\n\
                a2;-7;2.5;2;late\n\
                a3;24;NA;1;ok\n\
                a4;36;0.5;3;ok\n";
    let (_, path) = temp_csv("semi.csv", text);
    let base = Infer {
        path: &path,
        target: "status",
        favourable: "ok",
        delimiter: b';',
        drop: &["id"],
        categorical: &["region"],
        specials: &[
            (-7.0, "no record", Some("debt")),
            (-1.0, "NA", Some("debt")),
        ],
    };
    let (st, d) = infer(&base);
    assert_eq!(st, cfx_status::Ok, "{}", last_error());
    unsafe {
        let mut s = null();
        assert_eq!(cfx_dataset_schema(d, &mut s), cfx_status::Ok);
        assert_eq!(weights_kind(s), cfx_weights_kind::Fitted as i32);
        let j = json_of(s);
        let f = j["features"].as_array().unwrap();
        let names: Vec<&str> = f.iter().map(|x| x["name"].as_str().unwrap()).collect();
        assert_eq!(names, ["months", "debt", "region"]);
        // months: −7 is not declared for it, so it is an ordinary value.
        assert_eq!(f[0]["kind"], "contiguous");
        assert_eq!(
            (f[0]["lower"].as_f64(), f[0]["upper"].as_f64()),
            (Some(-7.0), Some(36.0))
        );
        assert_eq!(f[0]["integer"], true);
        assert!(f[0].get("special_states").is_none());
        // debt: range of the non-special values, two special states.
        assert_eq!(
            (f[1]["lower"].as_f64(), f[1]["upper"].as_f64()),
            (Some(0.5), Some(2.5))
        );
        assert_eq!(f[1]["integer"], false);
        let labels: Vec<&str> = f[1]["special_states"]
            .as_array()
            .unwrap()
            .iter()
            .map(|s| s["label"].as_str().unwrap())
            .collect();
        assert_eq!(labels.len(), 2);
        assert!(labels.contains(&"no record") && labels.contains(&"NA"));
        assert_eq!(f[2]["kind"], "categorical");
        assert_eq!(f[2]["levels"], serde_json::json!(["1", "2", "3"]));
        let mut row = [0.0; 3];
        let mut n = 0;
        assert_eq!(
            cfx_dataset_row(d, 2, row.as_mut_ptr(), 3, &mut n),
            cfx_status::Ok
        );
        assert_eq!(row, [24.0, -1.0, 0.0]);
        let mut label = -1.0;
        assert_eq!(cfx_dataset_label(d, 1, &mut label), cfx_status::Ok);
        assert_eq!(label, 0.0);
        cfx_schema_free(s);
        cfx_dataset_free(d);
    }
    // Without the NA special state the missing value is an error naming it.
    let (st, d) = infer(&Infer {
        specials: &[(-7.0, "no record", Some("debt"))],
        ..base
    });
    assert_eq!(st, cfx_status::DataError);
    assert!(d.is_null());
    let m = last_error();
    assert!(m.contains("debt") && m.contains("NA"), "{m}");
    // A named column the file lacks.
    for bad in [
        Infer {
            drop: &["ident"],
            ..base
        },
        Infer {
            categorical: &["zone"],
            ..base
        },
        Infer {
            specials: &[(-7.0, "no record", Some("debts"))],
            ..base
        },
        Infer {
            target: "state",
            ..base
        },
    ] {
        let (st, d) = infer(&bad);
        assert_eq!(st, cfx_status::NotFound, "{}", last_error());
        assert!(d.is_null());
    }
    // Read with commas, the file is one column: the target is not found.
    let (st, _) = infer(&Infer {
        delimiter: b',',
        ..base
    });
    assert_eq!(st, cfx_status::NotFound);
    let (st, _) = infer(&Infer {
        favourable: "OK",
        ..base
    });
    assert_eq!(st, cfx_status::DataError);
    assert!(last_error().contains("'ok'"), "{}", last_error());
    // A count without its array, and a has_header that is not 0 or 1, are refused.
    unsafe {
        let mut d = null();
        assert_eq!(
            cfx_dataset_infer_csv(
                path.as_ptr(),
                c("status").as_ptr(),
                c("ok").as_ptr(),
                b';' as c_char,
                1,
                null(),
                1,
                null(),
                0,
                null(),
                null(),
                null(),
                0,
                &mut d
            ),
            cfx_status::NullArgument
        );
        assert_eq!(
            cfx_dataset_infer_csv(
                path.as_ptr(),
                c("status").as_ptr(),
                c("ok").as_ptr(),
                b';' as c_char,
                2,
                null(),
                0,
                null(),
                0,
                null(),
                null(),
                null(),
                0,
                &mut d
            ),
            cfx_status::InvalidArgument
        );
    }
}

/// FICO HELOC inferred through the C call with the special codes −7/−8/−9
/// given by the caller has the features, ranges, special states and fitted
/// weights of cfx's HELOC loader. The loader runs the same inference in Rust,
/// so this checks the C path (arrays of codes, labels and columns; NULL
/// column = every column) rather than the inference itself, which the
/// semicolon file above checks against a schema known by hand.
#[test]
fn heloc_inferred_in_c_matches_the_hand_declared_loader() {
    let Some(p) = common::shared("heloc.csv") else {
        return;
    };
    let path = c(p.to_str().unwrap());
    let specials = [
        (-7.0, "condition not met", None),
        (-8.0, "no usable trades", None),
        (-9.0, "no bureau record", None),
    ];
    let (st, d) = infer(&Infer {
        path: &path,
        target: "RiskPerformance",
        favourable: "Good",
        delimiter: b',',
        drop: &[],
        categorical: &[],
        specials: &specials,
    });
    assert_eq!(st, cfx_status::Ok, "{}", last_error());
    let known = cfx::data::heloc(&p).unwrap();
    unsafe {
        let mut s = null();
        assert_eq!(cfx_dataset_schema(d, &mut s), cfx_status::Ok);
        assert_eq!(weights_kind(s), cfx_weights_kind::Fitted as i32);
        let j = json_of(s);
        let f = j["features"].as_array().unwrap();
        assert_eq!(f.len(), known.schema.n_features());
        for (got, want) in f.iter().zip(&known.schema.features) {
            assert_eq!(got["name"].as_str().unwrap(), want.name);
            let cfx::schema::FeatureKind::Contiguous {
                lower,
                upper,
                special_states,
                ..
            } = &want.kind
            else {
                panic!("HELOC features are contiguous");
            };
            assert_eq!(got["lower"].as_f64(), Some(*lower), "{}", want.name);
            assert_eq!(got["upper"].as_f64(), Some(*upper), "{}", want.name);
            let mut codes: Vec<f64> = got["special_states"]
                .as_array()
                .map(|a| a.iter().map(|s| s["code"].as_f64().unwrap()).collect())
                .unwrap_or_default();
            let mut want_codes: Vec<f64> = special_states.iter().map(|s| s.code).collect();
            codes.sort_by(f64::total_cmp);
            want_codes.sort_by(f64::total_cmp);
            assert_eq!(codes, want_codes, "{}", want.name);
            assert_eq!(
                got["weights"],
                serde_json::to_value(want.weights.as_ref().unwrap()).unwrap(),
                "{}",
                want.name
            );
        }
        let mut n = 0;
        assert_eq!(cfx_dataset_n_rows(d, &mut n), cfx_status::Ok);
        assert_eq!(n, known.rows.len());
        cfx_schema_free(s);
        cfx_dataset_free(d);
    }
}
