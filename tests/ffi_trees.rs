//! The tree importers through the C ABI: from a string and from a file, with
//! and without options; the result scores like the Rust import; bad input is a
//! status with a message.

use cfx::ffi::model::*;
use cfx::ffi::schema::*;
use cfx::ffi::status::cfx_status;
use cfx::ffi::trees::*;
use cfx::model::Model;
use cfx::model::trees::ImportOptions;
use std::ffi::CString;
use std::ptr::null;

const LGBM: &str = "tree\nversion=v4\nnum_class=1\nnum_tree_per_iteration=1\nlabel_index=0\n\
    max_feature_idx=0\nobjective=binary sigmoid:1\nfeature_names=x\nfeature_infos=[-9:10]\n\
    tree_sizes=161\n\nTree=0\nnum_leaves=2\nnum_cat=0\nsplit_feature=0\nsplit_gain=1\n\
    threshold=-7.5\ndecision_type=10\nleft_child=-1\nright_child=-2\nleaf_value=-1 1\n\
    is_linear=0\nshrinkage=1\n\nend of trees\n";

fn schema() -> cfx::schema::Schema {
    cfx::schema::Schema::new(vec![
        cfx::schema::Feature::contiguous("x", 0.0, 10.0)
            .integer()
            .with_special(-7.0, "none"),
    ])
    .unwrap()
}

#[test]
fn tree_models_load_from_strings_and_files_through_the_c_abi() {
    let rust = schema();
    let sj = CString::new(rust.to_json()).unwrap();
    let text = CString::new(LGBM).unwrap();
    let missing = CString::new(r#"{"special_as_missing": ["x"]}"#).unwrap();
    let bad_opts = CString::new(r#"{"colour": 1}"#).unwrap();
    let path = std::env::temp_dir().join(format!("cfx_ffi_trees_{}.txt", std::process::id()));
    std::fs::write(&path, LGBM).unwrap();
    let cpath = CString::new(path.to_str().unwrap()).unwrap();
    let nowhere = CString::new("/nonexistent/cfx/model.txt").unwrap();
    let (mut s, mut m, mut m2, mut bad) = (null(), null(), null(), null());
    unsafe {
        assert_eq!(cfx_schema_from_json(sj.as_ptr(), &mut s), cfx_status::Ok);
        assert_eq!(
            cfx_model_from_lightgbm_text(s, text.as_ptr(), null(), &mut m),
            cfx_status::Ok
        );
        assert_eq!(
            cfx_model_from_lightgbm_file(s, cpath.as_ptr(), missing.as_ptr(), &mut m2),
            cfx_status::Ok
        );
        let mut kind = -1;
        assert_eq!(cfx_model_get_kind(m, &mut kind), cfx_status::Ok);
        assert_eq!(kind, cfx_model_kind::Trees as i32);
        // −7 reaches the trees as its code (right, +1) or as missing (default left, −1).
        for (model, expect) in [(m, 1.0), (m2, -1.0)] {
            let (mut score, mut p, mut acc) = (0.0, 0.0, 0);
            let row = [-7.0];
            assert_eq!(
                cfx_model_predict_raw(model, s, row.as_ptr(), 1, &mut score, &mut p, &mut acc),
                cfx_status::Ok
            );
            assert_eq!(score, expect);
        }
        let direct =
            cfx::model::TreeEnsemble::from_lightgbm_text(LGBM, &rust, &ImportOptions::default())
                .unwrap();
        assert_eq!(direct.score(&rust.encode(&[-7.0]).unwrap()), 1.0);
        assert_eq!(
            cfx_model_from_lightgbm_text(s, text.as_ptr(), bad_opts.as_ptr(), &mut bad),
            cfx_status::FormatError
        );
        assert_eq!(
            cfx_model_from_xgboost_json(s, text.as_ptr(), null(), &mut bad),
            cfx_status::FormatError
        );
        assert_eq!(
            cfx_model_from_xgboost_file(s, nowhere.as_ptr(), null(), &mut bad),
            cfx_status::IoError
        );
        assert_eq!(
            cfx_model_from_lightgbm_text(s, null(), null(), &mut bad),
            cfx_status::NullArgument
        );
        assert!(bad.is_null());
        cfx_model_free(m);
        cfx_model_free(m2);
        cfx_schema_free(s);
    }
    std::fs::remove_file(&path).ok();
}

/// `cfx_model_check_favourable` on the German applicants and the hand-written
/// German trees of bindings/testdata (margins in its README): the AUC equals
/// the hand margins' pairwise count over every (good, bad) pair; declared a
/// model of default, the same trees are refused with the option to change.
#[test]
fn the_favourable_class_is_checked_on_labelled_applicants_through_the_c_abi() {
    use cfx::ffi::data::*;
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let german = cfx::data::german_credit(&cfx::data::bundled_german_path()).unwrap();
    let sc = &german.schema;
    let (dur, amt) = (
        sc.index_of("duration_in_month").unwrap(),
        sc.index_of("credit_amount").unwrap(),
    );
    let chk = sc.index_of("status_of_existing_checking_account").unwrap();
    let none = match &sc.features[chk].kind {
        cfx::schema::FeatureKind::Categorical { levels } => levels
            .iter()
            .position(|l| l == "no checking account")
            .unwrap() as f64,
        _ => unreachable!(),
    };
    let hand = |r: &[f64]| {
        (if r[dur] < 24.0 { 0.5 } else { -0.5 })
            + if r[amt] < 4000.0 {
                if r[dur] < 12.0 { 0.5 } else { 0.375 }
            } else {
                -0.375
            }
            + if r[chk] == none { 0.25 } else { -0.25 }
    };
    let (mut wins, mut pairs) = (0.0, 0.0);
    for (a, la) in german.rows.iter().zip(&german.labels) {
        for (b, lb) in german.rows.iter().zip(&german.labels) {
            if *la == 1.0 && *lb == 0.0 {
                let (x, y) = (hand(a), hand(b));
                pairs += 1.0;
                wins += if x > y {
                    1.0
                } else if x == y {
                    0.5
                } else {
                    0.0
                };
            }
        }
    }
    let expected = wins / pairs;
    assert!(expected > 0.5);
    let path = CString::new(
        root.join("bindings/testdata/german_trees_xgboost.json")
            .to_str()
            .unwrap(),
    )
    .unwrap();
    let good = CString::new(r#"{"favourable_class": 1}"#).unwrap();
    let bad = CString::new(r#"{"score_is": "probability_of_default"}"#).unwrap();
    let (mut d, mut s, mut m, mut m0) = (null(), null(), null(), null());
    unsafe {
        assert_eq!(cfx_dataset_load_german(null(), &mut d), cfx_status::Ok);
        assert_eq!(cfx_dataset_schema(d, &mut s), cfx_status::Ok);
        assert_eq!(
            cfx_model_from_xgboost_file(s, path.as_ptr(), good.as_ptr(), &mut m),
            cfx_status::Ok
        );
        assert_eq!(
            cfx_model_from_xgboost_file(s, path.as_ptr(), bad.as_ptr(), &mut m0),
            cfx_status::Ok
        );
        let mut auc = f64::NAN;
        assert_eq!(cfx_model_check_favourable(m, d, &mut auc), cfx_status::Ok);
        assert!((auc - expected).abs() < 1e-12, "{auc} vs {expected}");
        let mut untouched = -1.0;
        assert_eq!(
            cfx_model_check_favourable(m0, d, &mut untouched),
            cfx_status::InvalidArgument
        );
        assert_eq!(untouched, -1.0);
        let msg = cfx::ffi::error::last_error().unwrap_or_default();
        assert!(msg.contains("favourable_class"), "{msg}");
        assert_eq!(
            cfx_model_check_favourable(m, null(), &mut auc),
            cfx_status::NullArgument
        );
        cfx_model_free(m);
        cfx_model_free(m0);
        cfx_schema_free(s);
        cfx_dataset_free(d);
    }
}
