//! Strict JSON readers: every earlier shape of cfx's schema, model and policy
//! files still loads (`tests/reference/formats/`), and a misspelled or unknown
//! key is a `FORMAT_ERROR` naming the key and its place, in Rust and through
//! the C ABI.

use cfx::Error;
use cfx::ffi::model::{cfx_model, cfx_model_free, cfx_model_from_json};
use cfx::ffi::schema::{cfx_schema, cfx_schema_free, cfx_schema_from_json};
use cfx::ffi::sequential::{cfx_policy, cfx_policy_free, cfx_policy_from_json};
use cfx::ffi::status::cfx_status;
use cfx::model::{AnyModel, Model};
use cfx::schema::{Direction, FeatureKind, Schema};
use cfx::sequential::Policy;
use std::ffi::{CString, c_char};
use std::ptr::null;

fn reference(file: &str) -> String {
    let p = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/reference/formats")
        .join(file);
    std::fs::read_to_string(&p).unwrap_or_else(|e| panic!("{}: {e}", p.display()))
}

fn c_last_error() -> String {
    let n = cfx::ffi::error::cfx_last_error_length();
    let mut buf = vec![0 as c_char; n.max(1)];
    assert_eq!(
        unsafe { cfx::ffi::error::cfx_last_error_message(buf.as_mut_ptr(), buf.len()) },
        cfx_status::Ok
    );
    unsafe { std::ffi::CStr::from_ptr(buf.as_ptr()) }
        .to_str()
        .unwrap()
        .to_string()
}

fn expect_format_error<T: std::fmt::Debug>(r: cfx::Result<T>, needles: &[&str]) {
    match r {
        Err(Error::Format(m)) => {
            for n in needles {
                assert!(m.contains(n), "'{m}' lacks '{n}'");
            }
        }
        other => panic!("expected a format error containing {needles:?}, got {other:?}"),
    }
}

/// A one-feature-per-kind schema with the given `age` actionability object.
fn schema_with_age_actionability(actionability: &str) -> String {
    format!(
        r#"{{"format_version": 1, "features": [
            {{"name": "income", "kind": "contiguous", "lower": 0, "upper": 10}},
            {{"name": "housing", "kind": "categorical", "levels": ["own", "rent"]}},
            {{"name": "savings", "kind": "contiguous", "lower": 0, "upper": 5}},
            {{"name": "age", "kind": "contiguous", "lower": 18, "upper": 90, "actionability": {actionability}}}
        ]}}"#
    )
}

#[test]
fn earlier_schema_shape_loads_with_every_key() {
    let s = Schema::from_json(&reference("schema_v1.json")).unwrap();
    assert_eq!(s.n_features(), 4);
    let delq = &s.features[0];
    match &delq.kind {
        FeatureKind::Contiguous {
            lower,
            upper,
            integer,
            special_states,
            ..
        } => {
            assert_eq!((*lower, *upper, *integer), (0.0, 83.0, true));
            assert_eq!(special_states.len(), 2);
            assert_eq!(special_states[1].label, "no bureau record");
        }
        other => panic!("{other:?}"),
    }
    assert_eq!(delq.actionability.direction, Direction::IncreaseOnly);
    assert_eq!(delq.actionability.upper, Some(60.0));
    assert_eq!(delq.actionability.cost_scale, 2.0);
    // the forbidden move into "no bureau record" holds
    assert!(!s.transition_allowed(0, 0, 2));
    assert!(s.transition_allowed(0, 2, 0));
    assert_eq!(s.weights(0).value, 7.0); // 3.5 × cost scale 2
    assert!(
        matches!(s.features[1].kind, FeatureKind::Contiguous { step: Some(st), .. } if st == 50.0)
    );
    assert!(!s.transition_allowed(2, 0, 2));
    assert!(!s.features[3].actionability.mutable);
    // and it reads back to itself
    assert_eq!(Schema::from_json(&s.to_json()).unwrap(), s);
}

#[test]
fn earlier_model_shapes_load() {
    let s1 = Schema::from_json(
        r#"{"format_version": 1, "features": [{"name": "a", "kind": "contiguous", "lower": 0, "upper": 1},
            {"name": "b", "kind": "contiguous", "lower": 0, "upper": 1}]}"#,
    )
    .unwrap();
    let lin = AnyModel::from_json(&reference("model_linear_v1.json"), &s1).unwrap();
    assert_eq!(lin.threshold(), 0.4);
    assert!((lin.score(&[1.0, 1.0]) - (0.75 - 1.25 + 0.5)).abs() < 1e-15);
    let mlp = AnyModel::from_json(&reference("model_mlp_v1.json"), &s1).unwrap();
    assert_eq!(mlp.threshold(), 0.6);
    // x = (1, 0.5): hidden relu(1 − 0.5) = 0.5, relu(0.5 + 1 − 0.5) = 1; 1.5·0.5 − 0.25·1 + 0.1
    assert!((mlp.score(&[1.0, 0.5]) - 0.6).abs() < 1e-15);
    for m in [lin, mlp] {
        assert_eq!(AnyModel::from_json(&m.to_json(), &s1).unwrap(), m);
    }
}

#[test]
fn policy_written_before_max_steps_loads() {
    let p = Policy::from_json(&reference("policy_v1_before_max_steps.json")).unwrap();
    assert_eq!(p.config.max_steps, None);
    assert_eq!(p.config.episodes, 50);
    assert_eq!(p.action_features, vec!["x".to_string()]);
    assert_eq!(Policy::from_json(&p.to_json()).unwrap(), p);
}

#[test]
fn misspelled_schema_keys_are_format_errors_naming_key_and_place() {
    expect_format_error(
        Schema::from_json(&schema_with_age_actionability(r#"{"mutabel": false}"#)),
        &[
            "unknown key 'mutabel' in features[3] ('age').actionability",
            "expected one of: mutable, direction, lower, upper, cost_scale, forbidden_transitions",
        ],
    );
    expect_format_error(
        Schema::from_json(&schema_with_age_actionability(r#"{"immutable": true}"#)),
        &["unknown key 'immutable' in features[3] ('age').actionability"],
    );
    let typo = schema_with_age_actionability("{}").replace(
        r#""actionability": {}"#,
        r#""actionabilty": {"mutable": false}"#,
    );
    expect_format_error(
        Schema::from_json(&typo),
        &["unknown key 'actionabilty' in features[3] ('age');"],
    );
    // nested objects: special states, transitions, weights, the top level
    let cases = [
        (
            r#"{"format_version": 1, "features": [{"name": "d", "kind": "contiguous", "lower": 0, "upper": 9,
               "special_states": [{"code": -7, "label": "none", "lable": "x"}]}]}"#,
            "unknown key 'lable' in features[0] ('d').special_states[0]",
        ),
        (
            r#"{"format_version": 1, "features": [{"name": "d", "kind": "contiguous", "lower": 0, "upper": 9,
               "actionability": {"forbidden_transitions": [{"from": "*", "too": "value"}]}}]}"#,
            "unknown key 'too' in features[0] ('d').actionability.forbidden_transitions[0]",
        ),
        (
            r#"{"format_version": 1, "features": [{"name": "d", "kind": "contiguous", "lower": 0, "upper": 9,
               "weights": {"value": 1, "states": [], "anchr": 0.5}}]}"#,
            "unknown key 'anchr' in features[0] ('d').weights",
        ),
        (
            r#"{"format_version": 1, "features": [{"name": "d", "kind": "contiguous", "lower": 0, "upper": 9}],
               "feature_weights": {}}"#,
            "unknown key 'feature_weights' in the top-level object",
        ),
        (
            r#"{"format_version": 1, "features": [{"name": "d", "kind": "contiguous", "lower": 0, "upper": 9,
               "interger": true}]}"#,
            "unknown key 'interger' in features[0] ('d')",
        ),
    ];
    for (json, needle) in cases {
        expect_format_error(Schema::from_json(json), &[needle]);
    }
}

#[test]
fn a_key_of_the_other_feature_kind_is_refused() {
    expect_format_error(
        Schema::from_json(
            r#"{"format_version": 1, "features": [{"name": "d", "kind": "contiguous", "lower": 0, "upper": 9,
               "levels": ["a", "b"]}]}"#,
        ),
        &[
            "features[0] ('d')",
            "key 'levels' does not apply to a contiguous feature",
        ],
    );
    for key in [
        r#""lower": 0"#,
        r#""upper": 1"#,
        r#""integer": false"#,
        r#""step": 1"#,
        r#""special_states": []"#,
        r#""fixed_value": 0"#,
    ] {
        let json = format!(
            r#"{{"format_version": 1, "features": [{{"name": "h", "kind": "categorical", "levels": ["a", "b"], {key}}}]}}"#
        );
        let name = key.split('"').nth(1).unwrap();
        expect_format_error(
            Schema::from_json(&json),
            &[
                "features[0] ('h')",
                &format!("key '{name}' does not apply to a categorical feature"),
            ],
        );
    }
    expect_format_error(
        Schema::from_json(
            r#"{"format_version": 1, "features": [{"name": "d", "kind": "contiguous", "lower": 0}]}"#,
        ),
        &["needs keys 'lower' and 'upper'"],
    );
    expect_format_error(
        Schema::from_json(
            r#"{"format_version": 1, "features": [{"name": "d", "kind": "ordinal", "lower": 0}]}"#,
        ),
        &["features[0] ('d').kind", "unknown variant `ordinal`"],
    );
}

#[test]
fn misspelled_model_and_policy_keys_are_format_errors() {
    let s1 = Schema::from_json(
        r#"{"format_version": 1, "features": [{"name": "a", "kind": "contiguous", "lower": 0, "upper": 1},
            {"name": "b", "kind": "contiguous", "lower": 0, "upper": 1}]}"#,
    )
    .unwrap();
    let typo = reference("model_linear_v1.json").replace("\"threshold\"", "\"threshhold\"");
    expect_format_error(
        AnyModel::from_json(&typo, &s1),
        &[
            "unknown key 'threshhold'",
            "expected one of: weights, bias, threshold",
        ],
    );
    let typo = reference("model_mlp_v1.json").replace(
        "\"activation\": \"identity\"",
        "\"activation\": \"identity\", \"dropout\": 0.5",
    );
    expect_format_error(
        AnyModel::from_json(&typo, &s1),
        &["unknown key 'dropout' in network.layers[1]"],
    );
    let typo = reference("model_mlp_v1.json").replace("\"network\"", "\"netwrk\"");
    expect_format_error(AnyModel::from_json(&typo, &s1), &["unknown key 'netwrk'"]);
    let v2 =
        reference("model_linear_v1.json").replace("\"format_version\": 1", "\"format_version\": 2");
    expect_format_error(
        AnyModel::from_json(&v2, &s1),
        &["format version 2 is not supported"],
    );

    let p = reference("policy_v1_before_max_steps.json");
    expect_format_error(
        Policy::from_json(&p.replace("\"gamma\"", "\"gama\"")),
        &["unknown key 'gama' in config"],
    );
    expect_format_error(
        Policy::from_json(&p.replace("\"pen\"", "\"penalty\"")),
        &["unknown key 'penalty' in reward_params"],
    );
    expect_format_error(
        Policy::from_json(&p.replace("\"encoded_dim\"", "\"encoded_dims\"")),
        &["unknown key 'encoded_dims' in the top-level object"],
    );
}

fn cstring(s: &str) -> CString {
    CString::new(s).unwrap()
}

#[test]
fn misspellings_are_format_errors_through_the_c_abi() {
    unsafe {
        for (actionability, key) in [
            (r#"{"mutabel": false}"#, "mutabel"),
            (r#"{"immutable": true}"#, "immutable"),
        ] {
            let json = cstring(&schema_with_age_actionability(actionability));
            let mut out: *const cfx_schema = null();
            assert_eq!(
                cfx_schema_from_json(json.as_ptr(), &mut out),
                cfx_status::FormatError
            );
            assert!(out.is_null());
            let m = c_last_error();
            assert!(
                m.contains(&format!(
                    "unknown key '{key}' in features[3] ('age').actionability"
                )),
                "{m}"
            );
        }
        let typo = schema_with_age_actionability("{}").replace(
            r#""actionability": {}"#,
            r#""actionabilty": {"mutable": false}"#,
        );
        let json = cstring(&typo);
        let mut out: *const cfx_schema = null();
        assert_eq!(
            cfx_schema_from_json(json.as_ptr(), &mut out),
            cfx_status::FormatError
        );
        assert!(c_last_error().contains("unknown key 'actionabilty' in features[3] ('age')"));

        let sj = cstring(
            r#"{"format_version": 1, "features": [{"name": "a", "kind": "contiguous", "lower": 0, "upper": 1},
                {"name": "b", "kind": "contiguous", "lower": 0, "upper": 1}]}"#,
        );
        let mut schema: *const cfx_schema = null();
        assert_eq!(
            cfx_schema_from_json(sj.as_ptr(), &mut schema),
            cfx_status::Ok
        );
        let mj =
            cstring(&reference("model_linear_v1.json").replace("\"threshold\"", "\"threshhold\""));
        let mut model: *const cfx_model = null();
        assert_eq!(
            cfx_model_from_json(schema, mj.as_ptr(), &mut model),
            cfx_status::FormatError
        );
        assert!(model.is_null());
        assert!(c_last_error().contains("unknown key 'threshhold'"));
        let mj = cstring(&reference("model_linear_v1.json"));
        assert_eq!(
            cfx_model_from_json(schema, mj.as_ptr(), &mut model),
            cfx_status::Ok
        );
        cfx_model_free(model);
        cfx_schema_free(schema);

        let pj =
            cstring(&reference("policy_v1_before_max_steps.json").replace("\"tau_q\"", "\"tauq\""));
        let mut policy: *const cfx_policy = null();
        assert_eq!(
            cfx_policy_from_json(pj.as_ptr(), &mut policy),
            cfx_status::FormatError
        );
        assert!(policy.is_null());
        assert!(c_last_error().contains("unknown key 'tauq' in config"));
        let pj = cstring(&reference("policy_v1_before_max_steps.json"));
        assert_eq!(
            cfx_policy_from_json(pj.as_ptr(), &mut policy),
            cfx_status::Ok
        );
        cfx_policy_free(policy);
    }
}
