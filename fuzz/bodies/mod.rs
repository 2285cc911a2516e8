//! The fuzz targets' bodies, one module per target: the libFuzzer entries
//! (`fuzz/fuzz_targets/*.rs`) and the corpus replay (`tests/fuzz_corpus.rs`)
//! run the same code.
pub mod common;
pub mod csv_reading;
pub mod json_and_encoding;
pub mod model_prediction;
pub mod policy_json;
pub mod schema_builder;
pub mod scorecard_import;
pub mod tree_import;
pub mod uncertainty;
