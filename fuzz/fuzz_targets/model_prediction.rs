//! libFuzzer entry of the `model_prediction` body (`fuzz/bodies/model_prediction.rs`).
#![no_main]

#[path = "../bodies/common.rs"]
mod common;
#[path = "../bodies/model_prediction.rs"]
mod model_prediction;

libfuzzer_sys::fuzz_target!(|data: &[u8]| model_prediction::run(data));
