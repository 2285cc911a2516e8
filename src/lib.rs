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
//! | [`plan`] | COPA: model uncertainty, Gelbrich distance, L*/U* validity bounds (SDPs), corrections, plan generator |

pub mod data;
pub mod error;
pub mod model;
pub mod nn;
pub mod plan;
pub mod schema;

pub use error::{Error, Result};
