//! libFuzzer entry of the `scorecard_import` body (`fuzz/bodies/scorecard_import.rs`).
#![no_main]

#[path = "../bodies/common.rs"]
mod common;
#[path = "../bodies/scorecard_import.rs"]
mod scorecard_import;

libfuzzer_sys::fuzz_target!(|data: &[u8]| scorecard_import::run(data));
