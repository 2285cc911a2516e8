//! Fuzzes what a caller hands cfx as text and numbers: schema and model JSON
//! through the C ABI (`cfx_schema_from_json`, `cfx_model_from_json`) and the
//! encode/decode entry points. Any input must give a status, never a crash,
//! and a successfully loaded schema must round-trip its own rows.
#![no_main]

use cfx::ffi::model::{cfx_model, cfx_model_free, cfx_model_from_json};
use cfx::ffi::schema::{
    cfx_schema, cfx_schema_decode, cfx_schema_encode, cfx_schema_encoded_dim, cfx_schema_free,
    cfx_schema_from_json, cfx_schema_n_features,
};
use libfuzzer_sys::fuzz_target;
use std::ffi::CString;

fuzz_target!(|data: &[u8]| {
    // First byte splits the input: schema JSON | model JSON | numbers.
    let Some((&cut, rest)) = data.split_first() else {
        return;
    };
    let cut = (cut as usize).min(rest.len());
    let (schema_text, tail) = rest.split_at(cut);
    let mid = tail.len() / 2;
    let (model_text, numbers) = tail.split_at(mid);
    let Ok(schema_c) = CString::new(schema_text) else {
        return;
    };
    let Ok(model_c) = CString::new(model_text) else {
        return;
    };
    unsafe {
        let mut schema: *const cfx_schema = std::ptr::null();
        if cfx_schema_from_json(schema_c.as_ptr(), &mut schema) != cfx::ffi::status::cfx_status::Ok
        {
            return;
        }
        let mut model: *const cfx_model = std::ptr::null();
        let _ = cfx_model_from_json(schema, model_c.as_ptr(), &mut model);
        cfx_model_free(model);
        let (mut n, mut d) = (0usize, 0usize);
        cfx_schema_n_features(schema, &mut n);
        cfx_schema_encoded_dim(schema, &mut d);
        let raw: Vec<f64> = numbers
            .chunks(8)
            .map(|c| {
                let mut b = [0u8; 8];
                b[..c.len()].copy_from_slice(c);
                f64::from_le_bytes(b)
            })
            .chain(std::iter::repeat(0.0))
            .take(n.max(1))
            .collect();
        let mut enc = vec![0.0; d];
        let mut len = 0usize;
        if cfx_schema_encode(
            schema,
            raw.as_ptr(),
            raw.len(),
            enc.as_mut_ptr(),
            d,
            &mut len,
        ) == cfx::ffi::status::cfx_status::Ok
        {
            let mut back = vec![0.0; n];
            let st = cfx_schema_decode(schema, enc.as_ptr(), d, back.as_mut_ptr(), n, &mut len);
            assert_eq!(
                st,
                cfx::ffi::status::cfx_status::Ok,
                "an encoded row must decode"
            );
        }
        // Arbitrary encoded vectors: any status is fine, no crash.
        let mut back = vec![0.0; n];
        let enc2: Vec<f64> = raw
            .iter()
            .copied()
            .chain(std::iter::repeat(0.5))
            .take(d)
            .collect();
        let _ = cfx_schema_decode(
            schema,
            enc2.as_ptr(),
            enc2.len(),
            back.as_mut_ptr(),
            n,
            &mut len,
        );
        cfx_schema_free(schema);
    }
});
