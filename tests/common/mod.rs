//! Helpers shared by the integration tests.
#![allow(dead_code)]

use std::path::PathBuf;

/// Whether `value`, the content of the `CI` variable, means "running under CI":
/// set to anything but empty, `0` or `false` (CI services set `CI=true`).
pub fn ci_flag(value: Option<&str>) -> bool {
    matches!(value, Some(v) if !v.is_empty() && v != "0" && !v.eq_ignore_ascii_case("false"))
}

/// Whether the tests run under CI, where nothing may be skipped.
pub fn in_ci() -> bool {
    ci_flag(std::env::var("CI").ok().as_deref())
}

/// Path of a dataset in the shared folder (`CFX_SHARED_DATA`, default
/// `../shared/data` beside the crate), or `None` (with a notice) when it is
/// absent outside CI. Under CI a missing file fails the test instead of
/// skipping it.
pub fn shared(file: &str) -> Option<PathBuf> {
    let p = cfx::data::shared_data_dir().join(file);
    if p.exists() {
        return Some(p);
    }
    assert!(
        !in_ci(),
        "{} is missing under CI (set CFX_SHARED_DATA to the shared data folder)",
        p.display()
    );
    eprintln!(
        "notice: {} not found; skipping (set CFX_SHARED_DATA)",
        p.display()
    );
    None
}

/// The calling thread's last-error message, read as C reads it
/// (`cfx_last_error_message` into a buffer).
pub fn last_error_message() -> String {
    let mut buf = vec![0 as std::ffi::c_char; 4096];
    unsafe {
        assert_eq!(
            cfx::ffi::error::cfx_last_error_message(buf.as_mut_ptr(), buf.len()),
            cfx::ffi::status::cfx_status::Ok
        );
        std::ffi::CStr::from_ptr(buf.as_ptr())
            .to_string_lossy()
            .into_owned()
    }
}
