//! Fuzzes policy JSON (`cfx_policy_from_json`): any input gives a status
//! other than `PANIC`; a loaded policy writes JSON that reads back to the
//! same JSON with the same number of actions, and answering the example
//! applicant schema's applicant gives a status (a plan of at most one step
//! per action when it succeeds, whose JSON can be read).
use super::common::{c_string, check, ok, read_string};
use cfx::ffi::model::{cfx_model, cfx_model_from_json};
use cfx::ffi::schema::{cfx_schema, cfx_schema_from_json};
use cfx::ffi::sequential::{
    cfx_plan, cfx_plan_free, cfx_plan_n_steps, cfx_plan_to_json, cfx_policy, cfx_policy_answer,
    cfx_policy_free, cfx_policy_from_json, cfx_policy_n_actions, cfx_policy_to_json,
};
use std::sync::OnceLock;

struct Toy(*const cfx_schema, *const cfx_model);
unsafe impl Send for Toy {}
unsafe impl Sync for Toy {}

fn toy() -> &'static Toy {
    static TOY: OnceLock<Toy> = OnceLock::new();
    TOY.get_or_init(|| unsafe {
        let s_json = c_string(include_bytes!(
            "../../examples/c/data/applicant_schema.json"
        ))
        .unwrap();
        let m_json =
            c_string(include_bytes!("../../examples/c/data/applicant_model.json")).unwrap();
        let mut s: *const cfx_schema = std::ptr::null();
        let mut m: *const cfx_model = std::ptr::null();
        assert!(ok(cfx_schema_from_json(s_json.as_ptr(), &mut s), "schema"));
        assert!(ok(cfx_model_from_json(s, m_json.as_ptr(), &mut m), "model"));
        Toy(s, m)
    })
}

/// One fuzz input (shared by the libFuzzer target and `tests/fuzz_corpus.rs`).
pub fn run(data: &[u8]) {
    let Some(text) = c_string(data) else {
        return;
    };
    unsafe {
        let mut policy: *const cfx_policy = std::ptr::null();
        if !ok(
            cfx_policy_from_json(text.as_ptr(), &mut policy),
            "cfx_policy_from_json",
        ) {
            return;
        }
        let json = read_string("cfx_policy_to_json", |b, c, n| {
            cfx_policy_to_json(policy, b, c, n)
        })
        .expect("a loaded policy writes its JSON");
        let json_c = c_string(json.as_bytes()).unwrap();
        let mut again: *const cfx_policy = std::ptr::null();
        assert!(ok(
            cfx_policy_from_json(json_c.as_ptr(), &mut again),
            "reload"
        ));
        let json2 = read_string("cfx_policy_to_json", |b, c, n| {
            cfx_policy_to_json(again, b, c, n)
        })
        .unwrap();
        assert_eq!(json, json2, "policy JSON does not round-trip");
        let (mut k, mut k2) = (0usize, 0usize);
        assert!(ok(cfx_policy_n_actions(policy, &mut k), "n_actions"));
        assert!(ok(cfx_policy_n_actions(again, &mut k2), "n_actions"));
        assert_eq!(k, k2);

        let raw = [30000.0, -7.0, 1.0, 30.0];
        let mut plan: *const cfx_plan = std::ptr::null();
        let t = toy();
        if ok(
            cfx_policy_answer(policy, t.0, t.1, raw.as_ptr(), raw.len(), &mut plan),
            "answer",
        ) {
            let mut n = 0usize;
            assert!(ok(cfx_plan_n_steps(plan, &mut n), "n_steps"));
            assert!(n <= k, "{n} steps with {k} actions");
            read_string("cfx_plan_to_json", |b, c, n| {
                cfx_plan_to_json(plan, b, c, n)
            })
            .expect("a plan writes its JSON");
            cfx_plan_free(plan);
        }
        check(
            cfx_policy_answer(policy, t.0, t.1, raw.as_ptr(), 3, &mut plan),
            "short row",
        );
        cfx_policy_free(again);
        cfx_policy_free(policy);
    }
}
