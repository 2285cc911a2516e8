//! libFuzzer entry of the `tree_import` body (`fuzz/bodies/tree_import.rs`).
#![no_main]

#[path = "../bodies/common.rs"]
mod common;
#[path = "../bodies/tree_import.rs"]
mod tree_import;

libfuzzer_sys::fuzz_target!(|data: &[u8]| tree_import::run(data));
