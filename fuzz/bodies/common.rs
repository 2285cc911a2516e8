//! Shared by the fuzz targets: a caught panic (`CFX_STATUS_PANIC`) is a
//! failure libFuzzer must see, so every call's status goes through [`check`];
//! strings come back through the size-query protocol; inputs are split into
//! parts.
#![allow(dead_code)]

use cfx::ffi::status::cfx_status;
use std::ffi::{CString, c_char};

/// Fails the run when `call` ended in a caught panic, with the library's
/// last-error message (which names the panic and its place); returns the status.
pub fn check(st: cfx_status, call: &str) -> cfx_status {
    if st == cfx_status::Panic {
        panic!("{call} panicked: {}", last_error());
    }
    st
}

/// The calling thread's last-error message from the library.
pub fn last_error() -> String {
    let mut msg = vec![0u8; cfx::ffi::error::cfx_last_error_length().max(1)];
    let _ = unsafe { cfx::ffi::error::cfx_last_error_message(msg.as_mut_ptr().cast(), msg.len()) };
    let end = msg.iter().position(|&b| b == 0).unwrap_or(msg.len());
    String::from_utf8_lossy(&msg[..end]).into_owned()
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

struct SharedSchema(*const cfx::ffi::schema::cfx_schema);
unsafe impl Send for SharedSchema {}
unsafe impl Sync for SharedSchema {}

/// The example applicant schema (`examples/c/data/applicant_schema.json`:
/// income, months since delinquency with the special code −7, housing
/// own/rent/free, immutable age), loaded once through the C ABI.
pub fn applicant_schema() -> *const cfx::ffi::schema::cfx_schema {
    static SCHEMA: std::sync::OnceLock<SharedSchema> = std::sync::OnceLock::new();
    SCHEMA
        .get_or_init(|| {
            let json = c_string(include_bytes!(
                "../../examples/c/data/applicant_schema.json"
            ))
            .unwrap();
            let mut s: *const cfx::ffi::schema::cfx_schema = std::ptr::null();
            assert!(ok(
                unsafe { cfx::ffi::schema::cfx_schema_from_json(json.as_ptr(), &mut s) },
                "applicant schema"
            ));
            SharedSchema(s)
        })
        .0
}

/// An applicant of the example schema from fuzzer numbers: whole income in
/// [0, 100000], months since delinquency in [0, 120] or the code −7, a
/// housing level, age in [18, 90]; every row is coherent.
pub fn applicant(numbers: &[f64]) -> [f64; 4] {
    let pick = |k: usize, d: f64| numbers.get(k).copied().unwrap_or(d);
    [
        (pick(0, 3.0).abs() * 1000.0).round().min(100000.0),
        if pick(1, 0.0) < 0.0 {
            -7.0
        } else {
            (pick(1, 0.0) * 10.0).round().min(120.0)
        },
        (pick(2, 0.0).abs().round()) % 3.0,
        (18.0 + pick(3, 2.0).abs() * 4.0).round().min(90.0),
    ]
}

/// Score, probability and decision of a model on a raw applicant of the
/// example schema, if the call succeeds (any status but `PANIC`).
pub fn predict_applicant(
    model: *const cfx::ffi::model::cfx_model,
    raw: &[f64; 4],
) -> Option<(f64, f64, i32)> {
    let (mut s, mut p, mut a) = (0.0, 0.0, 0i32);
    let st = unsafe {
        cfx::ffi::model::cfx_model_predict_raw(
            model,
            applicant_schema(),
            raw.as_ptr(),
            raw.len(),
            &mut s,
            &mut p,
            &mut a,
        )
    };
    ok(st, "cfx_model_predict_raw").then_some((s, p, a))
}

/// A model's JSON, read back: the reloaded model writes the same JSON and
/// scores `raw` bit for bit as the original. Returns the reloaded model
/// (the caller frees it).
pub fn model_round_trip(
    model: *const cfx::ffi::model::cfx_model,
    raw: &[f64; 4],
) -> *const cfx::ffi::model::cfx_model {
    use cfx::ffi::model::{cfx_model, cfx_model_from_json, cfx_model_to_json};
    let json = read_string("cfx_model_to_json", |b, c, n| unsafe {
        cfx_model_to_json(model, b, c, n)
    })
    .expect("a loaded model writes its JSON");
    let json_c = c_string(json.as_bytes()).unwrap();
    let mut again: *const cfx_model = std::ptr::null();
    assert!(
        ok(
            unsafe { cfx_model_from_json(applicant_schema(), json_c.as_ptr(), &mut again) },
            "reload"
        ),
        "a model's own JSON does not load ({}): {json}",
        last_error()
    );
    let json2 = read_string("cfx_model_to_json", |b, c, n| unsafe {
        cfx_model_to_json(again, b, c, n)
    })
    .unwrap();
    assert_eq!(json, json2, "model JSON does not round-trip");
    let a = predict_applicant(model, raw);
    let b = predict_applicant(again, raw);
    assert_eq!(
        a.map(|(s, p, d)| (s.to_bits(), p.to_bits(), d)),
        b.map(|(s, p, d)| (s.to_bits(), p.to_bits(), d)),
        "the reloaded model scores {raw:?} differently"
    );
    again
}
