//! Fuzzes the schema builder: the input is a program of builder calls (add a
//! contiguous or categorical feature, add a special state, set
//! actionability, build) with fuzzer-chosen arguments, including invalid
//! ones. Every call gives a status other than `PANIC`; a built schema has
//! one feature per successful add, and its JSON reads back to the same JSON.
use super::common::{c_string, ok, read_string};
use cfx::ffi::schema::{
    cfx_schema, cfx_schema_free, cfx_schema_from_json, cfx_schema_n_features, cfx_schema_to_json,
};
use cfx::ffi::schema_builder::{
    cfx_schema_build, cfx_schema_builder, cfx_schema_builder_add_categorical,
    cfx_schema_builder_add_contiguous, cfx_schema_builder_add_special_state,
    cfx_schema_builder_free, cfx_schema_builder_new, cfx_schema_builder_set_actionability,
};
use std::ffi::CString;

/// A number from two bytes: moderate, sometimes integral, sometimes extreme.
fn number(a: u8, b: u8) -> f64 {
    match b {
        255 => f64::NAN,
        254 => f64::INFINITY,
        253 => 1e308,
        _ => (a as f64 - 128.0) + (b % 4) as f64 * 0.25,
    }
}

/// One fuzz input (shared by the libFuzzer target and `tests/fuzz_corpus.rs`).
pub fn run(data: &[u8]) {
    let mut bytes = data.iter().copied();
    let mut next = || bytes.next().unwrap_or(0);
    unsafe {
        let mut b: *mut cfx_schema_builder = std::ptr::null_mut();
        assert!(ok(cfx_schema_builder_new(&mut b), "new"));
        let mut added = 0usize;
        for _ in 0..16 {
            let op = next();
            if op == 0 {
                // abandon the builder
                cfx_schema_builder_free(b);
                return;
            }
            // names f0..f7: repeats test the duplicate check
            let name = CString::new(format!("f{}", next() % 8)).unwrap();
            match op % 5 {
                0 => {
                    let (lo, hi) = (number(next(), next()), number(next(), next()));
                    let integer = (next() % 3) as i32; // 2 is not a flag
                    if ok(
                        cfx_schema_builder_add_contiguous(b, name.as_ptr(), lo, hi, integer),
                        "add_contiguous",
                    ) {
                        added += 1;
                    }
                }
                1 => {
                    let n = (next() % 5) as usize;
                    let levels: Vec<CString> = (0..n)
                        .map(|_| CString::new(format!("l{}", next() % 4)).unwrap())
                        .collect();
                    let ptrs: Vec<*const std::ffi::c_char> =
                        levels.iter().map(|l| l.as_ptr()).collect();
                    if ok(
                        cfx_schema_builder_add_categorical(b, name.as_ptr(), ptrs.as_ptr(), n),
                        "add_categorical",
                    ) {
                        added += 1;
                    }
                }
                2 => {
                    let code = number(next(), next());
                    let label = CString::new(format!("s{}", next() % 3)).unwrap();
                    ok(
                        cfx_schema_builder_add_special_state(b, code, label.as_ptr()),
                        "add_special_state",
                    );
                }
                3 => {
                    let (m, d) = ((next() % 3) as i32, (next() % 4) as i32);
                    ok(
                        cfx_schema_builder_set_actionability(b, m, d),
                        "set_actionability",
                    );
                }
                _ => break,
            }
        }
        // build consumes the builder, whatever its outcome
        let mut s: *const cfx_schema = std::ptr::null();
        if !ok(cfx_schema_build(b, &mut s), "build") {
            return;
        }
        let mut n = 0usize;
        assert!(ok(cfx_schema_n_features(s, &mut n), "n_features"));
        assert_eq!(n, added, "features in the built schema vs successful adds");
        let json = read_string("cfx_schema_to_json", |buf, c, l| {
            cfx_schema_to_json(s, buf, c, l)
        })
        .unwrap();
        let json_c = c_string(json.as_bytes()).unwrap();
        let mut again: *const cfx_schema = std::ptr::null();
        assert!(
            ok(cfx_schema_from_json(json_c.as_ptr(), &mut again), "reload"),
            "{json}"
        );
        let json2 = read_string("cfx_schema_to_json", |buf, c, l| {
            cfx_schema_to_json(again, buf, c, l)
        })
        .unwrap();
        assert_eq!(json, json2, "schema JSON does not round-trip");
        cfx_schema_free(again);
        cfx_schema_free(s);
    }
}
