//! `cfx_status`: what every fallible entry point returns, and how a
//! [`crate::Error`] becomes one.

use crate::Error;
use std::ffi::c_char;

/// The result of a call. The numbers are part of the ABI and never change:
/// retired values stay reserved, new ones are appended before `PANIC`.
///
/// Solver outcomes (optimal, infeasible, time limit, …) are not statuses: a
/// call that ran the solver returns `CFX_STATUS_OK` and the outcome is read
/// from the result. After any non-OK status, `cfx_last_error_message` gives a
/// readable explanation on the same thread.
#[repr(i32)]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum cfx_status {
    /// Success.
    Ok = 0,
    /// A required pointer (handle, buffer with non-zero length, out-parameter, string) was NULL.
    NullArgument = 1,
    /// An argument is outside its domain (NaN/inf, negative count, bad enum value, invalid UTF-8, …).
    InvalidArgument = 2,
    /// Two inputs disagree on a length or dimension (e.g. a model and a schema).
    DimensionMismatch = 3,
    /// The caller's buffer is too small; the needed length was written to `*out_len`.
    BufferTooSmall = 4,
    /// A named feature, level, index or row does not exist.
    NotFound = 5,
    /// A schema is inconsistent (duplicate names, empty levels, lower > upper, …).
    InvalidSchema = 6,
    /// An encoded vector does not decode into a real applicant.
    Incoherent = 7,
    /// Reading or parsing a data file failed.
    DataError = 8,
    /// A JSON document is malformed or of an unsupported version.
    FormatError = 9,
    /// An input/output error (missing file, permission, …).
    IoError = 10,
    /// A solver could not even start (this is not an outcome such as infeasible).
    SolverError = 11,
    /// The caller asked to stop (a progress callback returned false).
    Cancelled = 12,
    /// A Rust panic was caught at the boundary: a bug in cfx. Handles used by
    /// the failed call may be in an unknown state: free them.
    Panic = 99,
}

impl cfx_status {
    /// Every status, for tests and bindings.
    pub const ALL: [cfx_status; 14] = [
        cfx_status::Ok,
        cfx_status::NullArgument,
        cfx_status::InvalidArgument,
        cfx_status::DimensionMismatch,
        cfx_status::BufferTooSmall,
        cfx_status::NotFound,
        cfx_status::InvalidSchema,
        cfx_status::Incoherent,
        cfx_status::DataError,
        cfx_status::FormatError,
        cfx_status::IoError,
        cfx_status::SolverError,
        cfx_status::Cancelled,
        cfx_status::Panic,
    ];

    /// The status with this number, if any.
    pub fn from_i32(v: i32) -> Option<cfx_status> {
        Self::ALL.iter().copied().find(|s| *s as i32 == v)
    }

    /// The constant name, as in the header (static, NUL-terminated).
    pub fn name(self) -> &'static std::ffi::CStr {
        match self {
            cfx_status::Ok => c"CFX_STATUS_OK",
            cfx_status::NullArgument => c"CFX_STATUS_NULL_ARGUMENT",
            cfx_status::InvalidArgument => c"CFX_STATUS_INVALID_ARGUMENT",
            cfx_status::DimensionMismatch => c"CFX_STATUS_DIMENSION_MISMATCH",
            cfx_status::BufferTooSmall => c"CFX_STATUS_BUFFER_TOO_SMALL",
            cfx_status::NotFound => c"CFX_STATUS_NOT_FOUND",
            cfx_status::InvalidSchema => c"CFX_STATUS_INVALID_SCHEMA",
            cfx_status::Incoherent => c"CFX_STATUS_INCOHERENT",
            cfx_status::DataError => c"CFX_STATUS_DATA_ERROR",
            cfx_status::FormatError => c"CFX_STATUS_FORMAT_ERROR",
            cfx_status::IoError => c"CFX_STATUS_IO_ERROR",
            cfx_status::SolverError => c"CFX_STATUS_SOLVER_ERROR",
            cfx_status::Cancelled => c"CFX_STATUS_CANCELLED",
            cfx_status::Panic => c"CFX_STATUS_PANIC",
        }
    }
}

/// A refused call on its way to C: a status and the message for the last-error slot.
#[derive(Debug, Clone, PartialEq)]
pub struct FfiError {
    pub status: cfx_status,
    pub message: String,
}

/// What the body of a status-returning entry point evaluates to.
pub type FfiResult<T> = std::result::Result<T, FfiError>;

impl FfiError {
    pub fn new(status: cfx_status, message: impl Into<String>) -> FfiError {
        FfiError {
            status,
            message: message.into(),
        }
    }
    /// `NULL_ARGUMENT` naming the parameter.
    pub fn null(param: &str) -> FfiError {
        FfiError::new(cfx_status::NullArgument, format!("{param} is NULL"))
    }
    /// `INVALID_ARGUMENT` with a message.
    pub fn invalid(message: impl Into<String>) -> FfiError {
        FfiError::new(cfx_status::InvalidArgument, message)
    }
}

impl From<Error> for FfiError {
    fn from(e: Error) -> FfiError {
        let status = match &e {
            Error::InvalidArgument(_) => cfx_status::InvalidArgument,
            Error::DimensionMismatch { .. } => cfx_status::DimensionMismatch,
            Error::NotFound(_) => cfx_status::NotFound,
            Error::InvalidSchema(_) => cfx_status::InvalidSchema,
            Error::Incoherent { .. } => cfx_status::Incoherent,
            Error::Data(_) => cfx_status::DataError,
            Error::Format(_) => cfx_status::FormatError,
            Error::Io(_) => cfx_status::IoError,
            Error::Solver(_) => cfx_status::SolverError,
            Error::Cancelled(_) => cfx_status::Cancelled,
        };
        FfiError::new(status, e.to_string())
    }
}

/// A static, NUL-terminated name for a status number, e.g.
/// `"CFX_STATUS_NULL_ARGUMENT"`; `"CFX_STATUS_UNKNOWN"` for a number that is
/// not a status. The status is passed as `int32_t` so any number is safe.
///
/// Never returns NULL; the string must not be freed. Thread-safe.
#[unsafe(no_mangle)]
pub extern "C" fn cfx_status_str(status: i32) -> *const c_char {
    ffi_boundary! {
        match cfx_status::from_i32(status) {
            Some(s) => s.name().as_ptr(),
            None => c"CFX_STATUS_UNKNOWN".as_ptr(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_are_fixed() {
        let expected = [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 99];
        let got: Vec<i32> = cfx_status::ALL.iter().map(|s| *s as i32).collect();
        assert_eq!(got, expected);
        for s in cfx_status::ALL {
            assert_eq!(cfx_status::from_i32(s as i32), Some(s));
        }
        assert_eq!(cfx_status::from_i32(13), None);
    }

    #[test]
    fn every_core_error_has_its_status() {
        let cases = [
            (
                Error::InvalidArgument("x".into()),
                cfx_status::InvalidArgument,
            ),
            (
                Error::DimensionMismatch {
                    what: "x".into(),
                    expected: 1,
                    got: 2,
                },
                cfx_status::DimensionMismatch,
            ),
            (Error::NotFound("x".into()), cfx_status::NotFound),
            (Error::InvalidSchema("x".into()), cfx_status::InvalidSchema),
            (
                Error::Incoherent {
                    feature: "f".into(),
                    reason: "r".into(),
                },
                cfx_status::Incoherent,
            ),
            (Error::Data("x".into()), cfx_status::DataError),
            (Error::Format("x".into()), cfx_status::FormatError),
            (Error::Io("x".into()), cfx_status::IoError),
            (Error::Solver("x".into()), cfx_status::SolverError),
            (Error::Cancelled("x".into()), cfx_status::Cancelled),
        ];
        for (e, s) in cases {
            let msg = e.to_string();
            let f = FfiError::from(e);
            assert_eq!(f.status, s);
            assert_eq!(f.message, msg);
        }
    }

    #[test]
    fn status_str_names_and_unknown() {
        let name = |v| unsafe { std::ffi::CStr::from_ptr(cfx_status_str(v)) };
        assert_eq!(name(0).to_str().unwrap(), "CFX_STATUS_OK");
        assert_eq!(name(4).to_str().unwrap(), "CFX_STATUS_BUFFER_TOO_SMALL");
        assert_eq!(name(99).to_str().unwrap(), "CFX_STATUS_PANIC");
        assert_eq!(name(-5).to_str().unwrap(), "CFX_STATUS_UNKNOWN");
        assert_eq!(name(1234).to_str().unwrap(), "CFX_STATUS_UNKNOWN");
    }
}
