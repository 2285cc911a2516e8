//! A boosted PMML model through the C ABI's existing PMML entry point
//! (`cfx_model_from_pmml_file`): sklearn2pmml's HistGradientBoosting file
//! (`missingValueStrategy="defaultChild"`) becomes a tree ensemble whose
//! margin on every committed row equals jpmml-evaluator's (within 1e-9;
//! tests/data/pmml/trees, benches/peers/pmml_tree_peers.py); a random
//! forest is a format error with a message and no model.

use cfx::ffi::error::cfx_last_error_message;
use cfx::ffi::model::*;
use cfx::ffi::schema::*;
use cfx::ffi::status::cfx_status;
use std::ffi::{CStr, CString};
use std::path::Path;
use std::ptr::null;

fn data(name: &str) -> std::path::PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data/pmml")
        .join(name)
}

fn csv(name: &str) -> Vec<Vec<f64>> {
    std::fs::read_to_string(data(name))
        .unwrap()
        .lines()
        .skip(1)
        .map(|l| l.split(',').map(|v| v.parse().unwrap()).collect())
        .collect()
}

#[test]
fn a_boosted_pmml_model_loads_and_scores_through_the_c_abi() {
    let sj = CString::new(std::fs::read_to_string(data("schema.json")).unwrap()).unwrap();
    let path = CString::new(data("trees/hgb.pmml").to_str().unwrap()).unwrap();
    let rf = CString::new(data("trees/rf.pmml").to_str().unwrap()).unwrap();
    let opts =
        CString::new(r#"{"favourable_class": "0", "special_as_missing": ["income"]}"#).unwrap();
    let rows = csv("rows.csv");
    let want = csv("trees/hgb_scores.csv");
    let (mut s, mut m, mut bad) = (null(), null(), null());
    unsafe {
        assert_eq!(cfx_schema_from_json(sj.as_ptr(), &mut s), cfx_status::Ok);
        assert_eq!(
            cfx::ffi::pmml::cfx_model_from_pmml_file(s, path.as_ptr(), opts.as_ptr(), &mut m),
            cfx_status::Ok
        );
        let mut kind = -1;
        assert_eq!(cfx_model_get_kind(m, &mut kind), cfx_status::Ok);
        assert_eq!(kind, cfx_model_kind::Trees as i32);
        for (row, w) in rows.iter().zip(&want) {
            let (mut score, mut p, mut acc) = (0.0, 0.0, -1);
            assert_eq!(
                cfx_model_predict_raw(m, s, row.as_ptr(), row.len(), &mut score, &mut p, &mut acc),
                cfx_status::Ok
            );
            // The favourable class is 0: cfx's margin is minus jpmml's of class 1.
            assert!(
                (score + w[3]).abs() <= 1e-9 * w[3].abs().max(1.0),
                "{score} vs {}",
                w[3]
            );
            assert!((p - w[1]).abs() <= 1e-9 * w[1], "{p} vs {}", w[1]);
            assert_eq!(acc == 1, w[1] > 0.5);
        }
        // A random forest (averaged votes) whose trees predict null where a
        // missing value arrives: refused once income's specials are declared
        // missing, naming the strategy and the line ...
        assert_eq!(
            cfx::ffi::pmml::cfx_model_from_pmml_file(s, rf.as_ptr(), opts.as_ptr(), &mut bad),
            cfx_status::FormatError
        );
        assert!(bad.is_null());
        let mut buf = vec![0 as std::ffi::c_char; 1024];
        assert_eq!(
            cfx_last_error_message(buf.as_mut_ptr(), buf.len()),
            cfx_status::Ok
        );
        let msg = CStr::from_ptr(buf.as_ptr()).to_string_lossy();
        assert!(
            msg.contains("nullPrediction") && msg.contains("line"),
            "{msg}"
        );
        // ... and read without them: jpmml-evaluator's probability of class 0
        // to the bit on every committed row (rf_scores.csv: row, p0, p1, ...).
        let rf_opts = CString::new(r#"{"favourable_class": "0"}"#).unwrap();
        let mut f = null();
        assert_eq!(
            cfx::ffi::pmml::cfx_model_from_pmml_file(s, rf.as_ptr(), rf_opts.as_ptr(), &mut f),
            cfx_status::Ok
        );
        for (row, w) in rows.iter().zip(&csv("trees/rf_scores.csv")) {
            let (mut score, mut p, mut acc) = (0.0, 0.0, -1);
            assert_eq!(
                cfx_model_predict_raw(f, s, row.as_ptr(), row.len(), &mut score, &mut p, &mut acc),
                cfx_status::Ok
            );
            assert_eq!(p, w[1], "{p} vs {}", w[1]);
            assert_eq!(acc == 1, w[1] > 0.5);
        }
        cfx_model_free(f);
        cfx_model_free(m);
        cfx_schema_free(s);
    }
}
