//! Shared by the fuzz targets: a caught panic (`CFX_STATUS_PANIC`) is a
//! failure libFuzzer must see, so every call's status goes through [`check`];
//! strings come back through the size-query protocol; inputs are split into
//! parts.
#![allow(dead_code)]

use cfx::ffi::status::cfx_status;
use std::ffi::{CString, c_char};

/// Fails the run when `call` ended in a caught panic; returns the status.
pub fn check(st: cfx_status, call: &str) -> cfx_status {
    assert_ne!(st, cfx_status::Panic, "{call} panicked");
    st
}

/// [`check`], then whether the call succeeded.
pub fn ok(st: cfx_status, call: &str) -> bool {
    check(st, call) == cfx_status::Ok
}

/// A string result read with the size-query protocol (`None` when the call
/// fails); a successful size query must be followed by a successful copy.
pub fn read_string(
    call: &str,
    f: impl Fn(*mut c_char, usize, *mut usize) -> cfx_status,
) -> Option<String> {
    let mut need = 0usize;
    if check(f(std::ptr::null_mut(), 0, &mut need), call) != cfx_status::BufferTooSmall {
        return None;
    }
    let mut buf = vec![0u8; need];
    let st = check(f(buf.as_mut_ptr().cast(), need, &mut need), call);
    assert_eq!(
        st,
        cfx_status::Ok,
        "{call}: the copy after a size query failed"
    );
    assert_eq!(buf.last(), Some(&0), "{call}: no terminating NUL");
    buf.pop();
    Some(String::from_utf8(buf).expect("cfx writes UTF-8"))
}

/// Splits `data` into `n` parts: the first `2(n − 1)` bytes give the lengths
/// of the first `n − 1` parts (little-endian u16, clamped to what is left),
/// so the fuzzer controls every part's length.
pub fn split(data: &[u8], n: usize) -> Vec<&[u8]> {
    let k = (2 * (n - 1)).min(data.len());
    let (head, mut rest) = data.split_at(k);
    let mut parts = Vec::with_capacity(n);
    for c in head.chunks(2) {
        let len = u16::from_le_bytes([c[0], *c.get(1).unwrap_or(&0)]) as usize;
        let (a, b) = rest.split_at(len.min(rest.len()));
        parts.push(a);
        rest = b;
    }
    parts.push(rest);
    while parts.len() < n {
        parts.push(&[]);
    }
    parts
}

/// A C string of the bytes, or `None` when they hold a NUL.
pub fn c_string(bytes: &[u8]) -> Option<CString> {
    CString::new(bytes).ok()
}

/// Little-endian f64s from the bytes (a short last chunk zero-padded).
pub fn f64s(bytes: &[u8]) -> Vec<f64> {
    bytes
        .chunks(8)
        .map(|c| {
            let mut b = [0u8; 8];
            b[..c.len()].copy_from_slice(c);
            f64::from_le_bytes(b)
        })
        .collect()
}

/// Numbers from the bytes that stay finite and moderate: each byte pair
/// `(a, b)` gives `(a − 128) / 8 + b / 2048`.
pub fn small_numbers(bytes: &[u8]) -> Vec<f64> {
    bytes
        .chunks(2)
        .map(|c| (c[0] as f64 - 128.0) / 8.0 + c.get(1).map_or(0.0, |&b| b as f64 / 2048.0))
        .collect()
}

/// Equal up to rounding of a value on a scale of `scale`.
pub fn close(a: f64, b: f64, scale: f64) -> bool {
    a == b || (a - b).abs() <= 1e-9 * scale.abs().max(a.abs()).max(1.0)
}
