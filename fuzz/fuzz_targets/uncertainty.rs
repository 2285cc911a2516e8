//! libFuzzer entry of the `uncertainty` body (`fuzz/bodies/uncertainty.rs`).
#![no_main]

#[path = "../bodies/common.rs"]
mod common;
#[path = "../bodies/uncertainty.rs"]
mod uncertainty;

libfuzzer_sys::fuzz_target!(|data: &[u8]| uncertainty::run(data));
