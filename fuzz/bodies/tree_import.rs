//! Fuzzes the tree-ensemble importers against the example applicant schema:
//! XGBoost's JSON model (`cfx_model_from_xgboost_json`) and LightGBM's text
//! model (`cfx_model_from_lightgbm_text`), with or without import options.
//! Input: a selector byte (format, options on/off), the model text, the
//! options JSON, numbers for an applicant. Any input gives a status other
//! than `PANIC`; an imported model writes JSON that reads back to the same
//! JSON and scores the applicant bit for bit as the original, with a
//! probability in [0, 1] and `accepted ⇔ probability > threshold`.
use super::common::{
    applicant, applicant_schema, c_string, model_round_trip, ok, predict_applicant, small_numbers,
    split,
};
use cfx::ffi::model::{cfx_model, cfx_model_free, cfx_model_threshold};
use cfx::ffi::trees::{cfx_model_from_lightgbm_text, cfx_model_from_xgboost_json};

/// One fuzz input (shared by the libFuzzer target and `tests/fuzz_corpus.rs`).
pub fn run(data: &[u8]) {
    let parts = split(data, 4);
    let selector = parts[0].first().copied().unwrap_or(0);
    let (Some(text), Some(options)) = (c_string(parts[1]), c_string(parts[2])) else {
        return;
    };
    let options = if selector & 2 != 0 {
        options.as_ptr()
    } else {
        std::ptr::null()
    };
    let raw = applicant(&small_numbers(parts[3]));
    unsafe {
        let mut model: *const cfx_model = std::ptr::null();
        let loaded = if selector & 1 == 0 {
            ok(
                cfx_model_from_xgboost_json(applicant_schema(), text.as_ptr(), options, &mut model),
                "cfx_model_from_xgboost_json",
            )
        } else {
            ok(
                cfx_model_from_lightgbm_text(
                    applicant_schema(),
                    text.as_ptr(),
                    options,
                    &mut model,
                ),
                "cfx_model_from_lightgbm_text",
            )
        };
        if !loaded {
            return;
        }
        let again = model_round_trip(model, &raw);
        let prediction = predict_applicant(model, &raw);
        let (_, p, accepted) = prediction.expect("an imported model scores a coherent applicant");
        let mut t = 0.0;
        assert!(ok(cfx_model_threshold(model, &mut t), "threshold"));
        assert!((0.0..=1.0).contains(&p), "probability {p}");
        assert_eq!(
            accepted == 1,
            p > t,
            "accepted {accepted} with p {p}, t {t}"
        );
        cfx_model_free(again);
        cfx_model_free(model);
    }
}
