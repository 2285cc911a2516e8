//! # cfx — counterfactual explanations for credit scoring
//!
//! cfx tells an applicant turned down by a credit-scoring model what they could
//! change to be accepted, and how far that advice can be trusted. The numerical
//! core works in the encoded space of one [`schema::Schema`] and one
//! [`model::Model`]; every answer is decoded back through the same schema, so
//! coherence is checked in one place.
//!
//! | module | owns |
//! |---|---|
//! | [`schema`] | feature kinds, actionability, encoding/decoding, distance weights, JSON |
//! | [`data`] | CSV loading, schema inference, the real credit datasets, hold-out split |
//! | [`nn`] | dense layers, backprop, Adam (shared by the MLP and the RL agent) |
//! | [`model`] | the `Model` trait, logistic regression, MLP |
//! | [`coherent`] | optimal coherent counterfactuals by MIP (Russell 2019) on HiGHS, diversity, infeasibility reasons |
//! | [`robust`] | noise models, allocation-free Γ̃/Θ̃ estimators and bounds, Wachter/PROBE/CROCO |
//! | [`sequential`] | RL sequential counterfactuals: environment, rewards, P-DQN, policy files, metrics (Panagiotou & Ntoutsi 2023) |
//! | [`ffi`] | the C ABI: opaque handles, `cfx_status`, last error, panic boundary (header `include/cfx.h`) |
//! | [`plan`] | COPA: model uncertainty, Gelbrich distance, L*/U* validity bounds (SDPs), corrections, plan generator |

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
pub mod plan;
pub mod plausibility;
pub mod portfolio;
pub mod revalidate;
pub mod robust;
pub mod schema;
pub mod sequential;
pub mod workers;

pub use error::{Error, Result};
