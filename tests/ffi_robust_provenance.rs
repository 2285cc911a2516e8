//! The robust result's JSON names the schema and model it was computed with
//! (kept in the result), whatever handles the caller passes to the export.

use cfx::ffi::model::*;
use cfx::ffi::robust::*;
use cfx::ffi::schema::*;
use cfx::ffi::status::cfx_status;
use std::ffi::{CString, c_char};
use std::ptr::{null, null_mut};

fn read(path: &str) -> CString {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    CString::new(std::fs::read_to_string(root.join(path)).unwrap()).unwrap()
}

fn fingerprint_of(f: impl Fn(*mut c_char, usize, *mut usize) -> cfx_status) -> String {
    let mut buf = vec![0 as c_char; 64];
    let mut n = 0;
    assert_eq!(f(buf.as_mut_ptr(), buf.len(), &mut n), cfx_status::Ok);
    unsafe { std::ffi::CStr::from_ptr(buf.as_ptr()) }
        .to_str()
        .unwrap()
        .to_string()
}

#[test]
fn robust_json_names_the_schema_and_model_it_was_computed_with() {
    unsafe {
        let (sj, mj) = (
            read("examples/c/data/applicant_schema.json"),
            read("examples/c/data/applicant_model.json"),
        );
        let (mut schema, mut model, mut other) = (null(), null(), null());
        assert_eq!(
            cfx_schema_from_json(sj.as_ptr(), &mut schema),
            cfx_status::Ok
        );
        assert_eq!(
            cfx_model_from_json(schema, mj.as_ptr(), &mut model),
            cfx_status::Ok
        );
        // a second model over the same schema: another bias
        let oj = CString::new(
            mj.to_str()
                .unwrap()
                .replace("\"bias\": -3.0", "\"bias\": -2.5"),
        )
        .unwrap();
        assert_eq!(
            cfx_model_from_json(schema, oj.as_ptr(), &mut other),
            cfx_status::Ok
        );
        let mut noise = null();
        assert_eq!(
            cfx_noise_gaussian_new(schema, 0.01, &mut noise),
            cfx_status::Ok
        );
        let raw = [30000.0, -7.0, 1.0, 30.0];
        let mut result = null();
        assert_eq!(
            cfx_robust_generate(
                schema,
                model,
                noise,
                0,
                null(),
                raw.as_ptr(),
                4,
                &mut result
            ),
            cfx_status::Ok
        );
        let json = |s, m| {
            let mut need = 0;
            let st = cfx_robust_result_to_json(result, s, m, null_mut(), 0, &mut need);
            if st != cfx_status::BufferTooSmall {
                return Err(st);
            }
            let mut buf = vec![0 as c_char; need];
            assert_eq!(
                cfx_robust_result_to_json(result, s, m, buf.as_mut_ptr(), need, &mut need),
                cfx_status::Ok
            );
            let text = std::ffi::CStr::from_ptr(buf.as_ptr())
                .to_str()
                .unwrap()
                .to_string();
            Ok(serde_json::from_str::<serde_json::Value>(&text).unwrap())
        };
        let want_schema = fingerprint_of(|b, c, n| cfx_schema_fingerprint(schema, b, c, n));
        let want_model = fingerprint_of(|b, c, n| cfx_model_fingerprint(model, b, c, n));
        assert_ne!(
            want_model,
            fingerprint_of(|b, c, n| cfx_model_fingerprint(other, b, c, n))
        );
        for (s, m) in [(schema, model), (null(), null())] {
            let v = json(s, m).unwrap();
            assert_eq!(v["inputs"]["schema"], want_schema.as_str());
            assert_eq!(v["inputs"]["model"], want_model.as_str());
            // what the bound can say at all: its floor m/(1 − t), t = 0.5 in the model file
            let r = &v["result"];
            let margin = r["bound"]["margin"].as_f64().unwrap();
            let floor = r["guarantee_limits"]["floor"].as_f64().unwrap();
            assert_eq!(r["guarantee_limits"]["threshold"].as_f64(), Some(0.5));
            assert!(
                (floor - margin / 0.5).abs() < 1e-15,
                "{floor} vs m = {margin}"
            );
            assert!(r["bound"]["value"].as_f64().unwrap() >= floor);
        }
        // another model than the one the result was computed with is refused
        assert_eq!(
            json(schema, other).unwrap_err(),
            cfx_status::InvalidArgument
        );
        assert!(
            cfx::ffi::error::last_error()
                .unwrap()
                .contains("computed with model")
        );
        cfx_robust_result_free(result);
        cfx_noise_free(noise);
        cfx_model_free(other);
        cfx_model_free(model);
        cfx_schema_free(schema);
    }
}
