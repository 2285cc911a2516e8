//! libFuzzer entry of the `csv_reading` body (`fuzz/bodies/csv_reading.rs`).
#![no_main]

#[path = "../bodies/common.rs"]
mod common;
#[path = "../bodies/csv_reading.rs"]
mod csv_reading;

libfuzzer_sys::fuzz_target!(|data: &[u8]| csv_reading::run(data));
