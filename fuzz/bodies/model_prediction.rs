//! Fuzzes model JSON that is then used for prediction: a model read for the
//! example applicant schema (`examples/c/data/applicant_schema.json`) must
//! write JSON that reads back to the same JSON, the reloaded model must give
//! the same score bit for bit on the fuzzer's applicant, every probability
//! must lie in [0, 1] with `accepted` saying `probability > t`, and
//! `cfx_model_probability_batch` must agree with `cfx_model_predict` row by
//! row (status and bits), writing nothing when it refuses.
use super::common::{c_string, check, ok, read_string, small_numbers, split};
use cfx::ffi::model::{
    cfx_model, cfx_model_free, cfx_model_from_json, cfx_model_predict, cfx_model_predict_raw,
    cfx_model_probability_batch, cfx_model_threshold, cfx_model_to_json,
};
use cfx::ffi::schema::{cfx_schema, cfx_schema_from_json};
use cfx::ffi::status::cfx_status;
use std::sync::OnceLock;

struct Shared(*const cfx_schema);
unsafe impl Send for Shared {}
unsafe impl Sync for Shared {}

fn schema() -> *const cfx_schema {
    static SCHEMA: OnceLock<Shared> = OnceLock::new();
    SCHEMA
        .get_or_init(|| {
            let json = c_string(include_bytes!(
                "../../examples/c/data/applicant_schema.json"
            ))
            .unwrap();
            let mut s: *const cfx_schema = std::ptr::null();
            assert!(ok(
                unsafe { cfx_schema_from_json(json.as_ptr(), &mut s) },
                "schema"
            ));
            Shared(s)
        })
        .0
}

/// (score, probability, accepted) of a raw row, if the call succeeds.
unsafe fn predict_raw(m: *const cfx_model, raw: &[f64]) -> Option<(f64, f64, i32)> {
    let (mut s, mut p, mut a) = (0.0, 0.0, 0i32);
    let st = unsafe {
        cfx_model_predict_raw(m, schema(), raw.as_ptr(), raw.len(), &mut s, &mut p, &mut a)
    };
    ok(st, "cfx_model_predict_raw").then_some((s, p, a))
}

fn check_probability(p: f64, accepted: i32, threshold: f64) {
    assert!((0.0..=1.0).contains(&p), "probability {p}");
    assert_eq!(
        accepted == 1,
        p > threshold,
        "accepted {accepted} with p {p}, t {threshold}"
    );
}

/// One fuzz input (shared by the libFuzzer target and `tests/fuzz_corpus.rs`).
pub fn run(data: &[u8]) {
    let parts = split(data, 2);
    let Some(model_c) = c_string(parts[0]) else {
        return;
    };
    let numbers = small_numbers(parts[1]);
    unsafe {
        let mut model: *const cfx_model = std::ptr::null();
        if !ok(
            cfx_model_from_json(schema(), model_c.as_ptr(), &mut model),
            "cfx_model_from_json",
        ) {
            return;
        }
        let json = read_string("cfx_model_to_json", |b, c, n| {
            cfx_model_to_json(model, b, c, n)
        })
        .expect("a loaded model writes its JSON");
        let json_c = c_string(json.as_bytes()).unwrap();
        let mut again: *const cfx_model = std::ptr::null();
        assert!(ok(
            cfx_model_from_json(schema(), json_c.as_ptr(), &mut again),
            "reload"
        ));
        let json2 = read_string("cfx_model_to_json", |b, c, n| {
            cfx_model_to_json(again, b, c, n)
        })
        .unwrap();
        assert_eq!(json, json2, "model JSON does not round-trip");
        let mut t = 0.0;
        assert!(ok(cfx_model_threshold(model, &mut t), "threshold"));

        // A raw applicant: income, months (or the special code), housing level, age.
        let pick = |k: usize, d: f64| numbers.get(k).copied().unwrap_or(d);
        let raw = [
            (pick(0, 3.0).abs() * 1000.0).round(),
            if pick(1, 0.0) < 0.0 {
                -7.0
            } else {
                (pick(1, 0.0) * 10.0).round()
            },
            (pick(2, 0.0).abs().round()) % 3.0,
            (18.0 + pick(3, 2.0).abs() * 4.0).round(),
        ];
        if let Some((s, p, a)) = predict_raw(model, &raw) {
            check_probability(p, a, t);
            let (s2, p2, a2) = predict_raw(again, &raw).expect("the reloaded model predicts");
            assert_eq!(
                (s.to_bits(), p.to_bits(), a),
                (s2.to_bits(), p2.to_bits(), a2)
            );
        }
        // An arbitrary encoded vector: any status but PANIC; a probability in [0, 1].
        let x: Vec<f64> = numbers
            .iter()
            .copied()
            .chain(std::iter::repeat(0.5))
            .take(7)
            .collect();
        let (mut s, mut p, mut a) = (0.0, 0.0, 0i32);
        let st = check(
            cfx_model_predict(model, x.as_ptr(), x.len(), &mut s, &mut p, &mut a),
            "cfx_model_predict",
        );
        if st == cfx_status::Ok {
            check_probability(p, a, t);
        }
        // The same row twice as a batch: the status of the single call (a NaN
        // score refused, not returned), its probability bit for bit, and on
        // failure nothing written.
        let rows: Vec<f64> = x.iter().chain(&x).copied().collect();
        let (mut out, mut n) = ([-1.0; 2], 77usize);
        let batch = check(
            cfx_model_probability_batch(model, rows.as_ptr(), 2, out.as_mut_ptr(), 2, &mut n),
            "cfx_model_probability_batch",
        );
        assert_eq!(batch, st, "batch vs single row");
        if st == cfx_status::Ok {
            assert_eq!(
                (out[0].to_bits(), out[1].to_bits(), n),
                (p.to_bits(), p.to_bits(), 2)
            );
        } else {
            assert_eq!((out, n), ([-1.0; 2], 77), "a refused batch wrote");
        }
        check(
            cfx_model_predict(
                model,
                x.as_ptr(),
                x.len().saturating_sub(1),
                &mut s,
                &mut p,
                &mut a,
            ),
            "short x",
        );
        cfx_model_free(again);
        cfx_model_free(model);
    }
}
