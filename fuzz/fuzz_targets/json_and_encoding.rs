//! libFuzzer entry of the `json_and_encoding` body (`fuzz/bodies/json_and_encoding.rs`).
#![no_main]

#[path = "../bodies/common.rs"]
mod common;
#[path = "../bodies/json_and_encoding.rs"]
mod json_and_encoding;

libfuzzer_sys::fuzz_target!(|data: &[u8]| json_and_encoding::run(data));
