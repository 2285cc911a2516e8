//! The one error type of the numerical core.
//!
//! Misuse and bad input are errors; solver outcomes (infeasible, time limit,
//! numerical trouble) are values carried by each method's result type.

use thiserror::Error;

/// Every way a call into cfx can be refused.
#[derive(Debug, Error, Clone, PartialEq)]
pub enum Error {
    /// An argument is out of its domain (NaN, negative where positive is needed, …).
    #[error("invalid argument: {0}")]
    InvalidArgument(String),
    /// Two inputs disagree on a length or a dimension.
    #[error("dimension mismatch: {what}: expected {expected}, got {got}")]
    DimensionMismatch {
        what: String,
        expected: usize,
        got: usize,
    },
    /// A feature, level or state named by the caller does not exist.
    #[error("not found: {0}")]
    NotFound(String),
    /// A schema is inconsistent (duplicate names, empty levels, L > U, …).
    #[error("invalid schema: {0}")]
    InvalidSchema(String),
    /// An encoded vector does not decode into a real applicant.
    #[error("incoherent encoding of feature '{feature}': {reason}")]
    Incoherent { feature: String, reason: String },
    /// Reading or parsing a data file failed.
    #[error("data error: {0}")]
    Data(String),
    /// A JSON document is malformed or of an unsupported version.
    #[error("format error: {0}")]
    Format(String),
    /// An input/output error (missing file, permission, …).
    #[error("i/o error: {0}")]
    Io(String),
    /// A solver failed in a way that is not a solver outcome (it could not even start).
    #[error("solver error: {0}")]
    Solver(String),
    /// The caller asked to stop (a progress callback returned false).
    #[error("cancelled: {0}")]
    Cancelled(String),
}

impl Error {
    /// The message without the status words of [`std::fmt::Display`]
    /// ("invalid argument: …"), for texts written for a person (an advice
    /// check's reason, the command line's one-line error), where the status
    /// is said otherwise or not at all.
    pub fn message(&self) -> String {
        match self {
            Error::InvalidArgument(m)
            | Error::NotFound(m)
            | Error::InvalidSchema(m)
            | Error::Data(m)
            | Error::Format(m)
            | Error::Io(m)
            | Error::Solver(m)
            | Error::Cancelled(m) => m.clone(),
            Error::DimensionMismatch {
                what,
                expected,
                got,
            } => format!("{what}: expected {expected}, got {got}"),
            Error::Incoherent { feature, reason } => {
                format!("incoherent value of feature '{feature}': {reason}")
            }
        }
    }
}

/// Result alias used throughout cfx.
pub type Result<T> = std::result::Result<T, Error>;

impl From<std::io::Error> for Error {
    fn from(e: std::io::Error) -> Self {
        Error::Io(e.to_string())
    }
}

impl From<serde_json::Error> for Error {
    fn from(e: serde_json::Error) -> Self {
        Error::Format(e.to_string())
    }
}

/// Checks that every value of a slice is finite, naming the input in the error.
pub fn check_finite(what: &str, values: &[f64]) -> Result<()> {
    match values.iter().position(|v| !v.is_finite()) {
        None => Ok(()),
        Some(i) => Err(Error::InvalidArgument(format!(
            "{what}[{i}] is not finite ({})",
            values[i]
        ))),
    }
}

/// Checks a slice length, naming the input in the error.
pub fn check_len(what: &str, expected: usize, got: usize) -> Result<()> {
    if expected == got {
        Ok(())
    } else {
        Err(Error::DimensionMismatch {
            what: what.to_string(),
            expected,
            got,
        })
    }
}
