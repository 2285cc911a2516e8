//! Fuzzes what a caller hands cfx as text and numbers: schema and model JSON
//! through the C ABI (`cfx_schema_from_json`, `cfx_model_from_json`) and the
//! encode/decode entry points. Any input must give a status other than
//! `PANIC`; a loaded schema must write JSON that loads back to the same JSON,
//! and a row that encodes must decode back to itself value by value (within
//! rounding on the feature's scale) and re-encode to the same vector.
use super::common::{c_string, check, close, f64s, ok, read_string, split};
use cfx::ffi::model::{cfx_model, cfx_model_free, cfx_model_from_json};
use cfx::ffi::schema::{
    cfx_schema, cfx_schema_decode, cfx_schema_encode, cfx_schema_encoded_dim, cfx_schema_free,
    cfx_schema_from_json, cfx_schema_n_features, cfx_schema_to_json,
};
use cfx::schema::{COHERENCE_TOL, FeatureKind, Schema};

/// One fuzz input (shared by the libFuzzer target and `tests/fuzz_corpus.rs`).
pub fn run(data: &[u8]) {
    let parts = split(data, 3);
    let (Some(schema_c), Some(model_c)) = (c_string(parts[0]), c_string(parts[1])) else {
        return;
    };
    unsafe {
        let mut schema: *const cfx_schema = std::ptr::null();
        if !ok(
            cfx_schema_from_json(schema_c.as_ptr(), &mut schema),
            "cfx_schema_from_json",
        ) {
            return;
        }
        let rust = Schema::from_json(std::str::from_utf8(parts[0]).unwrap())
            .expect("the Rust reader accepts what the C reader accepts");
        // JSON round trip: written, read back, written again: the same text.
        let json = read_string("cfx_schema_to_json", |b, c, n| {
            cfx_schema_to_json(schema, b, c, n)
        })
        .expect("a loaded schema writes its JSON");
        let json_c = c_string(json.as_bytes()).unwrap();
        let mut again: *const cfx_schema = std::ptr::null();
        assert!(ok(
            cfx_schema_from_json(json_c.as_ptr(), &mut again),
            "reload"
        ));
        let json2 = read_string("cfx_schema_to_json", |b, c, n| {
            cfx_schema_to_json(again, b, c, n)
        })
        .unwrap();
        assert_eq!(json, json2, "schema JSON does not round-trip");
        cfx_schema_free(again);

        let mut model: *const cfx_model = std::ptr::null();
        check(
            cfx_model_from_json(schema, model_c.as_ptr(), &mut model),
            "cfx_model_from_json",
        );
        cfx_model_free(model);

        let (mut n, mut d) = (0usize, 0usize);
        assert!(ok(cfx_schema_n_features(schema, &mut n), "n_features"));
        assert!(ok(cfx_schema_encoded_dim(schema, &mut d), "encoded_dim"));
        let numbers = f64s(parts[2]);
        let raw: Vec<f64> = numbers
            .iter()
            .copied()
            .chain(std::iter::repeat(0.0))
            .take(n.max(1))
            .collect();
        let mut enc = vec![0.0; d];
        let mut len = 0usize;
        if ok(
            cfx_schema_encode(
                schema,
                raw.as_ptr(),
                raw.len(),
                enc.as_mut_ptr(),
                d,
                &mut len,
            ),
            "cfx_schema_encode",
        ) {
            let mut back = vec![0.0; n];
            assert!(
                ok(
                    cfx_schema_decode(schema, enc.as_ptr(), d, back.as_mut_ptr(), n, &mut len),
                    "cfx_schema_decode"
                ),
                "an encoded row must decode"
            );
            for (i, f) in rust.features.iter().enumerate() {
                // An in-range value of an integer or step feature is snapped
                // onto its grid by encoding, by at most the documented tolerance.
                let (scale, expected) = match &f.kind {
                    FeatureKind::Contiguous { lower, upper, .. } => {
                        let expected = if f.state_of(raw[i]) == Ok(0) {
                            let v = rust
                                .snap_to_grid(i, raw[i])
                                .expect("an encoded value is on its grid");
                            assert!(
                                (v - raw[i]).abs() <= COHERENCE_TOL * (upper - lower).max(1.0),
                                "feature {i}: {} snapped to {v}, beyond the tolerance",
                                raw[i]
                            );
                            v
                        } else {
                            raw[i]
                        };
                        (lower.abs().max(upper.abs()), expected)
                    }
                    // A level index within the tolerance of a whole
                    // number is that level (`Feature::state_of`).
                    FeatureKind::Categorical { .. } => {
                        let k = raw[i].round();
                        assert!(
                            (raw[i] - k).abs() <= COHERENCE_TOL,
                            "feature {i}: level index {} encoded",
                            raw[i]
                        );
                        (1.0, k)
                    }
                };
                assert!(
                    close(expected, back[i], scale),
                    "feature {i}: {} decodes back as {}",
                    raw[i],
                    back[i]
                );
            }
            let mut enc2 = vec![0.0; d];
            assert!(ok(
                cfx_schema_encode(schema, back.as_ptr(), n, enc2.as_mut_ptr(), d, &mut len),
                "re-encode"
            ));
            for (a, b) in enc.iter().zip(&enc2) {
                assert!(close(*a, *b, 1.0), "re-encoding changed {a} to {b}");
            }
        }
        // Arbitrary encoded vectors: any status but PANIC.
        let mut back = vec![0.0; n];
        let enc2: Vec<f64> = numbers
            .iter()
            .copied()
            .chain(std::iter::repeat(0.5))
            .take(d)
            .collect();
        check(
            cfx_schema_decode(
                schema,
                enc2.as_ptr(),
                enc2.len(),
                back.as_mut_ptr(),
                n,
                &mut len,
            ),
            "cfx_schema_decode (arbitrary)",
        );
        cfx_schema_free(schema);
    }
}
