//! # cfx — counterfactual explanations for credit scoring
//!
//! cfx tells an applicant turned down by a credit-scoring model what they could
//! change to be accepted, and how far that advice can be trusted. The numerical
//! core works in the encoded space of one [`schema::Schema`] and one
//! [`model::Model`]; every answer is decoded back through the same schema, so
//! coherence is checked in one place.
//!
//! The modules stand in layers; each uses only the layers below it
//! (`tests/layering.rs` enforces this):
//!
//! | layer | module | owns |
//! |---|---|---|
//! | core | [`schema`] | feature kinds, actionability, encoding/decoding, distance weights, JSON |
//! | core | [`model`] | the `Model` trait, logistic regression, MLP, points scorecards (and the bundled German one), tree ensembles, their importers |
//! | core | [`nn`] | dense layers, backprop, Adam (shared by the MLP and the RL agent) |
//! | core | [`json`], [`error`], [`workers`] | strict JSON reading and fingerprints, the error type, worker threads |
//! | shared | [`data`] | CSV loading, schema inference, the real credit datasets, hold-out split (no models) |
//! | shared | [`noise`] | noise models, the standard normal, the closed-form invalidation rate and robust margin of a linear model (Guyomard et al. 2023) |
//! | shared | [`plausibility`] | the accepted applicants' 1–99% ranges that flag implausible advice |
//! | method | [`coherent`] | optimal coherent counterfactuals by MIP (Russell 2019) on HiGHS, the separable and tree solvers, diversity, infeasibility reasons, waiting |
//! | method | [`robust`] | Monte Carlo Γ̃/Θ̃ estimators and bounds, Wachter/PROBE/CROCO |
//! | method | [`plan`] | COPA: model uncertainty, Gelbrich distance, L*/U* validity bounds (SDPs), corrections, plan generator |
//! | method | [`sequential`] | RL sequential counterfactuals: environment, rewards, P-DQN, policy files, metrics (Panagiotou & Ntoutsi 2023) |
//! | above the methods | [`advice`] | checks any method's answer against the model and the advice rules, repairs it with the exact engine |
//! | above the methods | [`revalidate`] | re-validates a ledger of given advice under a new model or schema |
//! | above the methods | [`portfolio`] | a book of applicants from CSV explained into JSON lines, and its summary |
//! | C ABI | [`ffi`] | the C ABI: opaque handles, `cfx_status`, last error, panic boundary (header `include/cfx.h`) |
//!
//! No method imports another: what several methods share (the noise models,
//! the closed forms) sits below them, and what combines methods sits above.
//! `data` reads files and infers schemas but knows no model. Items that moved
//! between modules are re-exported at their old paths (`robust::NoiseModel`,
//! `coherent::portfolio`, `data::german_scorecard`, …).

// Numerical kernels index several arrays with one loop variable; iterator
// chains would hide the equations they implement.
#![allow(clippy::needless_range_loop)]

pub mod advice;
pub mod coherent;
pub mod data;
pub mod error;
pub mod ffi;
pub mod json;
pub mod model;
pub mod nn;
pub mod noise;
pub mod notice;
pub mod output;
pub mod plan;
pub mod plausibility;
pub mod portfolio;
pub mod revalidate;
pub mod robust;
pub mod schema;
pub mod sequential;
pub mod workers;

pub use error::{Error, Result};

/// The Rust snippets of `README.md` and of every chapter of `docs/guide/`,
/// compiled and run as doctests by `cargo test --release` (issue 26: no snippet
/// may go stale). Set-up a reader does not need to see is in rustdoc's hidden
/// `# ` lines; the doctests run in the crate root, where `examples/data` and
/// `../shared/data` are found. `tests/docs/run_snippets.py` checks that every
/// Markdown file is listed here and runs the other languages' snippets.
#[cfg(doctest)]
pub mod guide {
    #[doc = include_str!("../README.md")]
    pub struct Readme;
    #[doc = include_str!("../docs/guide/README.md")]
    pub struct Contents;
    #[doc = include_str!("../docs/guide/schemas-and-presets.md")]
    pub struct SchemasAndPresets;
    #[doc = include_str!("../docs/guide/exact-engine.md")]
    pub struct ExactEngine;
    #[doc = include_str!("../docs/guide/scorecards.md")]
    pub struct Scorecards;
    #[doc = include_str!("../docs/guide/gradient-boosted-models.md")]
    pub struct GradientBoostedModels;
    #[doc = include_str!("../docs/guide/pmml.md")]
    pub struct Pmml;
    #[doc = include_str!("../docs/guide/catboost.md")]
    pub struct Catboost;
    #[doc = include_str!("../docs/guide/ebm.md")]
    pub struct Ebm;
    #[doc = include_str!("../docs/guide/notices.md")]
    pub struct Notices;
    #[doc = include_str!("../docs/guide/onnx.md")]
    pub struct Onnx;
    #[doc = include_str!("../docs/guide/live-models.md")]
    pub struct LiveModels;
    #[doc = include_str!("../docs/guide/robustness.md")]
    pub struct Robustness;
    #[doc = include_str!("../docs/guide/plans.md")]
    pub struct Plans;
    #[doc = include_str!("../docs/guide/revalidation.md")]
    pub struct Revalidation;
    #[doc = include_str!("../docs/guide/sequential.md")]
    pub struct Sequential;
    #[doc = include_str!("../docs/guide/c-abi.md")]
    pub struct CAbi;
    #[doc = include_str!("../docs/guide/bindings.md")]
    pub struct Bindings;
    #[doc = include_str!("../docs/guide/portfolio-and-spark.md")]
    pub struct PortfolioAndSpark;
    #[doc = include_str!("../docs/guide/data.md")]
    pub struct Data;
    #[doc = include_str!("../docs/guide/architecture.md")]
    pub struct Architecture;
    #[doc = include_str!("../docs/guide/demo.md")]
    pub struct Demo;
    #[doc = include_str!("../docs/guide/hardening.md")]
    pub struct Hardening;
    #[doc = include_str!("../docs/guide/benchmarks-and-experiments.md")]
    pub struct BenchmarksAndExperiments;
    #[doc = include_str!("../docs/guide/development.md")]
    pub struct Development;
    #[doc = include_str!("../docs/guide/command-line.md")]
    pub struct CommandLine;
    #[doc = include_str!("../docs/guide/bring-your-own-data.md")]
    pub struct BringYourOwnData;
}
