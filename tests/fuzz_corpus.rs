//! Replays every committed fuzz input — the seed corpora (`fuzz/seeds/<target>`)
//! and the inputs that once failed (`fuzz/regressions/<target>`) — through
//! the fuzz targets' own bodies (`fuzz/bodies`, shared with the libFuzzer
//! entries), so `cargo test` catches a regression without the fuzz build.
//! Each body asserts that no call ends in `CFX_STATUS_PANIC` and that round
//! trips hold value by value; a failing input fails this test, named.

#[path = "../fuzz/bodies/mod.rs"]
#[allow(dead_code)]
mod bodies;
#[path = "common/fuzz_inputs.rs"]
mod fuzz_inputs;

use fuzz_inputs::input_paths;
use std::path::{Path, PathBuf};

/// Every fuzz target: its name (the folder of its inputs) and its body.
/// A fuzz target's body: it takes the raw input and asserts what must hold.
type Body = fn(&[u8]);

const TARGETS: &[(&str, Body)] = &[
    ("csv_reading", bodies::csv_reading::run),
    ("json_and_encoding", bodies::json_and_encoding::run),
    ("model_prediction", bodies::model_prediction::run),
    ("policy_json", bodies::policy_json::run),
    ("schema_builder", bodies::schema_builder::run),
    ("scorecard_import", bodies::scorecard_import::run),
    ("tree_import", bodies::tree_import::run),
    ("uncertainty", bodies::uncertainty::run),
];

/// Runs `target`'s body on each input; a failure names the input.
fn replay(target: &str, body: fn(&[u8]), files: &[PathBuf]) {
    for path in files {
        let data = std::fs::read(path).expect("a readable fuzz input");
        let outcome = std::panic::catch_unwind(|| body(&data));
        assert!(
            outcome.is_ok(),
            "fuzz target {target} fails on {}",
            path.display()
        );
    }
}

#[test]
fn every_seed_passes_its_target() {
    for (target, body) in TARGETS {
        let files = input_paths("seeds", target);
        assert!(
            files.len() >= 2,
            "fuzz target {target} has {} seeds; each has a small seed corpus",
            files.len()
        );
        replay(target, *body, &files);
    }
}

#[test]
fn every_recorded_failure_stays_fixed() {
    let mut n = 0;
    for (target, body) in TARGETS {
        let files = input_paths("regressions", target);
        n += files.len();
        replay(target, *body, &files);
    }
    assert!(n > 0, "fuzz/regressions holds the inputs that once failed");
}

/// Every libFuzzer target in `fuzz/Cargo.toml` is replayed here, and every
/// replayed one is a libFuzzer target.
#[test]
fn the_replay_covers_every_fuzz_target() {
    let declared = fuzz_inputs::declared_targets();
    let replayed: Vec<&str> = TARGETS.iter().map(|(n, _)| *n).collect();
    assert_eq!(declared, replayed);
}

/// The importer seeds that hold a valid table or model load (so the fuzzer
/// starts from inputs that reach the round-trip and scoring checks), and the
/// ones named for a defect are refused.
#[test]
fn importer_seeds_load_unless_named_for_a_defect() {
    use bodies::common::{applicant_schema, c_string, split};
    use cfx::ffi::model::{cfx_model, cfx_model_free, cfx_model_from_json};
    use cfx::ffi::scorecard::{
        cfx_scorecard_import, cfx_scorecard_import_csv_with_options, cfx_scorecard_import_free,
    };
    use cfx::ffi::status::cfx_status;
    use cfx::ffi::trees::{cfx_model_from_lightgbm_text, cfx_model_from_xgboost_json};
    let defective = |p: &Path| {
        let n = p.file_name().unwrap().to_str().unwrap();
        ["gap", "misspelled", "unknown"]
            .iter()
            .any(|d| n.contains(d))
    };
    for path in input_paths("seeds", "scorecard_import") {
        let data = std::fs::read(&path).unwrap();
        let parts = split(&data, 3);
        let text = c_string(parts[1]).unwrap();
        let st = unsafe {
            if parts[0][0] % 4 < 2 {
                let mut imp: *const cfx_scorecard_import = std::ptr::null();
                let st = cfx_scorecard_import_csv_with_options(
                    applicant_schema(),
                    (parts[0][0] % 4) as i32,
                    text.as_ptr(),
                    bodies::scorecard_import::UNUSED_INCOME_SCALED.as_ptr(),
                    &mut imp,
                );
                cfx_scorecard_import_free(imp);
                st
            } else {
                let mut m: *const cfx_model = std::ptr::null();
                let st = cfx_model_from_json(applicant_schema(), text.as_ptr(), &mut m);
                cfx_model_free(m);
                st
            }
        };
        assert_eq!(
            st == cfx_status::Ok,
            !defective(&path),
            "{} gives {st:?}",
            path.display()
        );
    }
    for path in input_paths("seeds", "tree_import") {
        let data = std::fs::read(&path).unwrap();
        let parts = split(&data, 4);
        let (text, opts) = (c_string(parts[1]).unwrap(), c_string(parts[2]).unwrap());
        let opts = if parts[0][0] & 2 != 0 {
            opts.as_ptr()
        } else {
            std::ptr::null()
        };
        let mut m: *const cfx_model = std::ptr::null();
        let st = unsafe {
            if parts[0][0] & 1 == 0 {
                cfx_model_from_xgboost_json(applicant_schema(), text.as_ptr(), opts, &mut m)
            } else {
                cfx_model_from_lightgbm_text(applicant_schema(), text.as_ptr(), opts, &mut m)
            }
        };
        unsafe { cfx_model_free(m) };
        assert_eq!(
            st == cfx_status::Ok,
            !defective(&path),
            "{} gives {st:?}",
            path.display()
        );
    }
}
