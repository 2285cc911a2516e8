//! libFuzzer entry of the `policy_json` body (`fuzz/bodies/policy_json.rs`).
#![no_main]

#[path = "../bodies/common.rs"]
mod common;
#[path = "../bodies/policy_json.rs"]
mod policy_json;

libfuzzer_sys::fuzz_target!(|data: &[u8]| policy_json::run(data));
