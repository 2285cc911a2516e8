//! Library and ABI versions. The header carries the same numbers as
//! `CFX_VERSION_MAJOR/MINOR/PATCH`, `CFX_VERSION_STRING` and
//! `CFX_ABI_VERSION` (cbindgen.toml `after_includes`); `tests/header.rs`
//! checks all of them against `Cargo.toml`.

use std::ffi::c_char;

/// The ABI version: bumped on any change that breaks a compiled caller
/// (a removed or changed function, a renumbered status). A binding checks it
/// at load time against the value it was built for.
pub const ABI_VERSION: u32 = 2;

const VERSION: &str = concat!(env!("CARGO_PKG_VERSION"), "\0");

fn part(i: usize) -> u32 {
    env!("CARGO_PKG_VERSION")
        .split(['.', '-', '+'])
        .nth(i)
        .and_then(|p| p.parse().ok())
        .unwrap_or(0)
}

/// The cfx version as a static NUL-terminated string, e.g. `"0.1.0"`.
/// Never NULL, never freed. Thread-safe.
#[unsafe(no_mangle)]
pub extern "C" fn cfx_version_string() -> *const c_char {
    ffi_boundary! { VERSION.as_ptr() as *const c_char }
}

/// The major version number. Thread-safe.
#[unsafe(no_mangle)]
pub extern "C" fn cfx_version_major() -> u32 {
    ffi_boundary! { part(0) }
}

/// The minor version number. Thread-safe.
#[unsafe(no_mangle)]
pub extern "C" fn cfx_version_minor() -> u32 {
    ffi_boundary! { part(1) }
}

/// The patch version number. Thread-safe.
#[unsafe(no_mangle)]
pub extern "C" fn cfx_version_patch() -> u32 {
    ffi_boundary! { part(2) }
}

/// The ABI version (see `CFX_ABI_VERSION`). Thread-safe.
#[unsafe(no_mangle)]
pub extern "C" fn cfx_abi_version() -> u32 {
    ffi_boundary! { ABI_VERSION }
}
