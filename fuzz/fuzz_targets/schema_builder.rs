//! libFuzzer entry of the `schema_builder` body (`fuzz/bodies/schema_builder.rs`).
#![no_main]

#[path = "../bodies/common.rs"]
mod common;
#[path = "../bodies/schema_builder.rs"]
mod schema_builder;

libfuzzer_sys::fuzz_target!(|data: &[u8]| schema_builder::run(data));
