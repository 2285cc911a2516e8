//! `cfx_policy` and `cfx_plan`: sequential counterfactuals learned by P-DQN
//! (Panagiotou & Ntoutsi 2023, "Learning impartial policies for sequential
//! counterfactual explanations using deep reinforcement learning";
//! [`crate::sequential`]).
//!
//! A policy is trained once (`cfx_policy_train`, with a progress callback that
//! can cancel), saved and loaded as versioned JSON, and then answers each
//! declined applicant instantly with a plan: a sequence of steps, each one
//! feature set to a new value, with the probability after the step.
//! Policies and plans are immutable and `Arc`-backed: share them across threads.

use super::config::cfx_config;
use super::data::cfx_dataset;
use super::export::{Provenance, fingerprint, result_json};
use super::handle::{
    ArcHandle, arc_free, arc_into_raw, arc_ref, enum_in, finite_in, optional_out, out_param,
    str_in, write_str,
};
use super::model::cfx_model;
use super::schema::cfx_schema;
use super::status::{FfiError, cfx_status};
use crate::model::{AnyModel, Model};
use crate::schema::Schema;
use crate::sequential::{self, PdqnConfig, Plan, Policy, Progress, RewardKind, RewardParams};
use std::ffi::{c_char, c_void};
use std::sync::Arc;

/// A trained P-DQN policy. Thread-safe: may be used from many threads at once
/// and freed from any thread, exactly once, with `cfx_policy_free`.
pub struct cfx_policy {
    _private: [u8; 0],
}

unsafe impl ArcHandle for cfx_policy {
    type Rust = Policy;
}

/// A policy's plan for one applicant. Thread-safe: may be used from many
/// threads at once and freed from any thread, exactly once, with `cfx_plan_free`.
pub struct cfx_plan {
    _private: [u8; 0],
}

/// A plan with what produced it (for its JSON export).
pub struct PlanResult {
    plan: Plan,
    schema: Schema,
    model: AnyModel,
    policy_fingerprint: String,
    seed: u64,
}

unsafe impl ArcHandle for cfx_plan {
    type Rust = PlanResult;
}

/// The reward a policy learns from (`int32_t` in C).
#[repr(i32)]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum cfx_reward_kind {
    /// R^bin (Panagiotou & Ntoutsi 2023, eq. 2): Pos on success, Pen on failure, −β·δ otherwise.
    Binary = 0,
    /// R^prob (Panagiotou & Ntoutsi 2023, eq. 3): adds α·(P(s_{t+1}) − P(s_0)) on non-terminal steps.
    Probability = 1,
}

impl cfx_reward_kind {
    fn from_i32(v: i32) -> Option<Self> {
        match v {
            0 => Some(Self::Binary),
            1 => Some(Self::Probability),
            _ => None,
        }
    }
}

/// Training progress passed to a `cfx_progress_fn`.
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct cfx_progress {
    /// Episodes finished so far, and the total to train.
    pub episodes_done: usize,
    pub episodes_total: usize,
    /// Environment steps so far.
    pub steps: usize,
    /// Current exploration rate ε.
    pub epsilon: f64,
    /// Fraction of successful episodes since the previous report.
    pub success_rate: f64,
    /// Mean episode return since the previous report.
    pub mean_reward: f64,
}

/// A progress callback: called on the training thread with the progress and
/// the caller's `user_data`; return `true` to go on, `false` to stop training
/// (the training call then returns `CFX_STATUS_CANCELLED`). It must return
/// normally: a callback that throws (a C++ exception), longjmps or otherwise
/// unwinds through cfx is undefined behaviour, and so is freeing, inside it,
/// a handle the training call uses.
pub type cfx_progress_fn =
    Option<unsafe extern "C" fn(progress: *const cfx_progress, user_data: *mut c_void) -> bool>;

/// The evaluation metrics of Panagiotou & Ntoutsi 2023 for a policy on a test set (see `cfx_policy_evaluate`).
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct cfx_sequential_metrics {
    /// Declined test applicants (the episodes) and already accepted ones (skipped).
    pub n_instances: usize,
    pub n_already_accepted: usize,
    /// Counterfactuals found / declined applicants.
    pub satisfiability: f64,
    /// Mean number of features changed, over the found counterfactuals (NaN if none).
    pub sparsity: f64,
    /// Mean ℓ2 distance (encoded space) of the found counterfactuals (NaN if none).
    pub distance: f64,
    /// Mean probability of the favourable outcome of the found counterfactuals (NaN if none).
    pub target_probability: f64,
    /// Normalised action entropy H ∈ [0, 1] (Panagiotou & Ntoutsi 2023).
    pub entropy: f64,
}

/// The P-DQN settings from a solver configuration: the RL fields and the seed
/// override [`PdqnConfig::default`] (ReLAX's values, 40,000 episodes).
fn pdqn_config(cfg: Option<&super::config::SolverConfig>) -> PdqnConfig {
    let mut c = PdqnConfig::default();
    if let Some(s) = cfg {
        let rl = &s.rl;
        if let Some(v) = rl.episodes {
            c.episodes = v;
        }
        if let Some(v) = rl.max_steps {
            c.max_steps = Some(v);
        }
        if let Some(v) = rl.discount {
            c.gamma = v;
        }
        if let Some(v) = rl.learning_rate_actor {
            c.lr_q = v;
        }
        if let Some(v) = rl.learning_rate_param {
            c.lr_param = v;
        }
        if let Some(v) = rl.batch_size {
            c.batch_size = v;
        }
        if let Some(v) = rl.replay_capacity {
            c.replay_capacity = v;
        }
        if let Some(v) = rl.epsilon_start {
            c.epsilon_start = v;
        }
        if let Some(v) = rl.epsilon_end {
            c.epsilon_final = v;
        }
        if let Some(v) = &rl.hidden {
            c.hidden = v.clone();
        }
        if let Some(v) = s.seed {
            c.seed = v;
        }
    }
    c.progress_every = (c.episodes / 100).max(1);
    c
}

/// Trains a P-DQN policy (Panagiotou & Ntoutsi 2023) on the declined applicants of `train`
/// against `model`. `config` may be NULL (every default: ReLAX's settings,
/// 40,000 episodes, seed 42); its RL settings (`cfx_config_builder_set_rl_*`)
/// and seed apply. `reward` is a `cfx_reward_kind`. `progress` may be NULL;
/// otherwise it is called about every hundredth of the run and after the last
/// episode, with `user_data`; returning `false` stops training with
/// `CFX_STATUS_CANCELLED` and no policy. The same inputs and seed give the
/// same policy bits. On success `*out_policy` owns a new handle.
/// Thread-safe with respect to the input handles.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cfx_policy_train(
    train: *const cfx_dataset,
    model: *const cfx_model,
    config: *const cfx_config,
    reward: i32,
    progress: cfx_progress_fn,
    user_data: *mut c_void,
    out_policy: *mut *const cfx_policy,
) -> cfx_status {
    ffi_boundary! {
        let out = out_param(out_policy, "out_policy")?;
        let d = arc_ref(train, "train")?;
        let m = arc_ref(model, "model")?;
        let cfg = if config.is_null() { None } else { Some(arc_ref(config, "config")?) };
        let kind = match enum_in(reward, "reward", cfx_reward_kind::from_i32)? {
            cfx_reward_kind::Binary => RewardKind::Binary,
            cfx_reward_kind::Probability => RewardKind::Probability,
        };
        let pdqn = pdqn_config(cfg);
        let params = RewardParams::paper(m.threshold());
        let trained = sequential::train(&d.schema, m, &d.rows, kind, params, &pdqn, |p: &Progress| {
            match progress {
                None => true,
                Some(f) => {
                    let c = cfx_progress {
                        episodes_done: p.episodes_done,
                        episodes_total: p.episodes_total,
                        steps: p.steps,
                        epsilon: p.epsilon,
                        success_rate: p.success_rate,
                        mean_reward: p.mean_reward,
                    };
                    // SAFETY: a caller-supplied C function; it receives a pointer
                    // valid for the duration of the call and its own user data.
                    unsafe { f(&c, user_data) }
                }
            }
        })?;
        out.write(arc_into_raw(Arc::new(trained.policy)));
        Ok(())
    }
}

/// Reads a policy from JSON (as written by `cfx_policy_to_json`); refuses
/// other format versions, unknown or misspelled keys (named in the message)
/// and malformed networks (`FORMAT_ERROR`, `DIMENSION_MISMATCH`). On success `*out_policy` owns a new handle.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cfx_policy_from_json(
    json: *const c_char,
    out_policy: *mut *const cfx_policy,
) -> cfx_status {
    ffi_boundary! {
        let out = out_param(out_policy, "out_policy")?;
        let p = Policy::from_json(str_in(json, "json")?)?;
        out.write(arc_into_raw(Arc::new(p)));
        Ok(())
    }
}

/// Writes the policy as versioned JSON (string buffer protocol). Thread-safe.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cfx_policy_to_json(
    policy: *const cfx_policy,
    buf: *mut c_char,
    cap: usize,
    out_len: *mut usize,
) -> cfx_status {
    ffi_boundary! {
        let p = arc_ref(policy, "policy")?;
        write_str(&p.to_json(), buf, cap, out_len, "buf")
    }
}

/// Saves the policy as a JSON file at `path`, replaced only once complete
/// (`IO_ERROR` on failure, an earlier file at `path` then untouched). Thread-safe.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cfx_policy_save(
    policy: *const cfx_policy,
    path: *const c_char,
) -> cfx_status {
    ffi_boundary! {
        let p = arc_ref(policy, "policy")?;
        p.save(std::path::Path::new(str_in(path, "path")?))?;
        Ok(())
    }
}

/// Loads a policy saved by `cfx_policy_save`. On success `*out_policy` owns a new handle.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cfx_policy_load(
    path: *const c_char,
    out_policy: *mut *const cfx_policy,
) -> cfx_status {
    ffi_boundary! {
        let out = out_param(out_policy, "out_policy")?;
        let p = Policy::load(std::path::Path::new(str_in(path, "path")?))?;
        out.write(arc_into_raw(Arc::new(p)));
        Ok(())
    }
}

/// The number of actions K (the schema's mutable features). Thread-safe.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cfx_policy_n_actions(
    policy: *const cfx_policy,
    out_n: *mut usize,
) -> cfx_status {
    ffi_boundary! {
        let out = out_param(out_n, "out_n")?;
        out.write(arc_ref(policy, "policy")?.n_actions());
        Ok(())
    }
}

/// The policy's greedy plan for one applicant (`raw`: a raw row of `schema`,
/// `raw_len == n_features`). `schema` must have the mutable features the policy
/// was trained on (`INVALID_ARGUMENT` / `DIMENSION_MISMATCH` otherwise). A plan
/// that finds no counterfactual is a value (`cfx_plan_success` gives 0), not an
/// error. On success `*out_plan` owns a new handle. Thread-safe.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cfx_policy_answer(
    policy: *const cfx_policy,
    schema: *const cfx_schema,
    model: *const cfx_model,
    raw: *const f64,
    raw_len: usize,
    out_plan: *mut *const cfx_plan,
) -> cfx_status {
    ffi_boundary! {
        let out = out_param(out_plan, "out_plan")?;
        let p = arc_ref(policy, "policy")?;
        let s = arc_ref(schema, "schema")?;
        let m = arc_ref(model, "model")?;
        let raw = finite_in(raw, raw_len, "raw")?;
        let plan = p.answer(s, m, raw)?;
        let r = PlanResult {
            plan,
            schema: s.clone(),
            model: m.clone(),
            policy_fingerprint: fingerprint(&p.to_json()),
            seed: p.config.seed,
        };
        out.write(arc_into_raw(Arc::new(r)));
        Ok(())
    }
}

/// The evaluation metrics of Panagiotou & Ntoutsi 2023 for the policy on the declined applicants of `test`
/// (greedy episodes), written into `*out_metrics`. Thread-safe.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cfx_policy_evaluate(
    policy: *const cfx_policy,
    model: *const cfx_model,
    test: *const cfx_dataset,
    out_metrics: *mut cfx_sequential_metrics,
) -> cfx_status {
    ffi_boundary! {
        let out = out_param(out_metrics, "out_metrics")?;
        let p = arc_ref(policy, "policy")?;
        let m = arc_ref(model, "model")?;
        let d = arc_ref(test, "test")?;
        let e = sequential::evaluate(p, &d.schema, m, &d.rows)?.metrics;
        out.write(cfx_sequential_metrics {
            n_instances: e.n_instances,
            n_already_accepted: e.n_already_accepted,
            satisfiability: e.satisfiability,
            sparsity: e.sparsity,
            distance: e.distance,
            target_probability: e.target_probability,
            entropy: e.entropy,
        });
        Ok(())
    }
}

/// Releases a policy handle. NULL is a no-op. May be called from any thread,
/// exactly once per handle.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cfx_policy_free(policy: *const cfx_policy) {
    ffi_boundary! { arc_free(policy) }
}

fn plan_step(r: &PlanResult, index: usize) -> Result<&sequential::PlanStep, FfiError> {
    r.plan.steps.get(index).ok_or_else(|| {
        FfiError::from(crate::Error::NotFound(format!(
            "step {index} does not exist (the plan has {})",
            r.plan.steps.len()
        )))
    })
}

/// The number of steps of the plan (0 when the applicant is already accepted). Thread-safe.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cfx_plan_n_steps(plan: *const cfx_plan, out_n: *mut usize) -> cfx_status {
    ffi_boundary! {
        let out = out_param(out_n, "out_n")?;
        out.write(arc_ref(plan, "plan")?.plan.steps.len());
        Ok(())
    }
}

/// `*out_success` = 1 when the plan ends accepted (or the applicant already
/// was), else 0; `*out_initial_probability` (may be NULL) = the probability
/// before any step. Thread-safe.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cfx_plan_success(
    plan: *const cfx_plan,
    out_success: *mut i32,
    out_initial_probability: *mut f64,
) -> cfx_status {
    ffi_boundary! {
        let out = out_param(out_success, "out_success")?;
        let r = arc_ref(plan, "plan")?;
        if let Some(o) = optional_out(out_initial_probability) { o.write(r.plan.initial_probability) }
        out.write(r.plan.success as i32);
        Ok(())
    }
}

/// Step `index` (0-based) of the plan: the raw feature index, its raw value
/// before and after, and the probability of the favourable outcome after the
/// step. A "wait" step (schemas with a waiting action) moves no single
/// feature: its index is the schema's number of features, its values 0 and
/// the months waited (`cfx_plan_step_text` lists what time moved). Any out-parameter may be NULL when not wanted. `NOT_FOUND` when
/// `index` is past the last step. Thread-safe.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cfx_plan_step(
    plan: *const cfx_plan,
    index: usize,
    out_feature: *mut usize,
    out_from: *mut f64,
    out_to: *mut f64,
    out_probability: *mut f64,
) -> cfx_status {
    ffi_boundary! {
        let st = plan_step(arc_ref(plan, "plan")?, index)?;
        if let Some(o) = optional_out(out_feature) { o.write(st.feature) }
        if let Some(o) = optional_out(out_from) { o.write(st.from) }
        if let Some(o) = optional_out(out_to) { o.write(st.to) }
        if let Some(o) = optional_out(out_probability) { o.write(st.probability) }
        Ok(())
    }
}

/// Step `index` in words, `"<feature>: <from> → <to>"` with the data's own
/// level and special-state names, or `"wait <m> months: <feature> <from> →
/// <to>, …"` for a wait (string buffer protocol). Thread-safe.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cfx_plan_step_text(
    plan: *const cfx_plan,
    index: usize,
    buf: *mut c_char,
    cap: usize,
    out_len: *mut usize,
) -> cfx_status {
    ffi_boundary! {
        let st = plan_step(arc_ref(plan, "plan")?, index)?;
        let text = st.text();
        write_str(&text, buf, cap, out_len, "buf")
    }
}

/// The plan as versioned result JSON (`kind` "sequential_plan"; inputs: the
/// schema, model and policy fingerprints; the policy's training seed), string
/// buffer protocol. Thread-safe.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cfx_plan_to_json(
    plan: *const cfx_plan,
    buf: *mut c_char,
    cap: usize,
    out_len: *mut usize,
) -> cfx_status {
    ffi_boundary! {
        let r = arc_ref(plan, "plan")?;
        let prov = Provenance {
            schema: Some(&r.schema),
            model: Some(&r.model),
            extra_inputs: vec![("policy".to_string(), r.policy_fingerprint.clone())],
            seed: Some(r.seed),
        };
        write_str(&result_json("sequential_plan", &prov, &r.plan)?, buf, cap, out_len, "buf")
    }
}

/// Releases a plan handle. NULL is a no-op. May be called from any thread,
/// exactly once per handle.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cfx_plan_free(plan: *const cfx_plan) {
    ffi_boundary! { arc_free(plan) }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::LinearModel;
    use crate::schema::Feature;

    fn toy() -> (Schema, AnyModel, crate::data::Dataset) {
        let schema = Schema::new(vec![
            Feature::contiguous("income", 0.0, 100.0),
            Feature::categorical("housing", &["rent", "own"]),
        ])
        .unwrap();
        let model = AnyModel::Linear(LinearModel::new(vec![6.0, 0.0, 1.0], -4.0, 0.5).unwrap());
        let rows: Vec<Vec<f64>> = (0..40)
            .map(|i| vec![(i * 2) as f64, (i % 2) as f64])
            .collect();
        let labels = vec![0.0; rows.len()];
        let d = crate::data::Dataset {
            schema: schema.clone(),
            rows,
            labels,
        };
        (schema, model, d)
    }

    #[test]
    fn train_answer_and_errors_through_the_c_abi() {
        let (schema, model, d) = toy();
        let (s, m, d) = (
            arc_into_raw::<cfx_schema>(Arc::new(schema)),
            arc_into_raw::<cfx_model>(Arc::new(model)),
            arc_into_raw::<cfx_dataset>(Arc::new(d)),
        );
        let mut cfg = super::super::config::SolverConfig::default();
        cfg.rl.episodes = Some(200);
        cfg.rl.hidden = Some(vec![16]);
        cfg.rl.replay_capacity = Some(300);
        cfg.seed = Some(3);
        let c = arc_into_raw::<cfx_config>(Arc::new(cfg));
        unsafe {
            let mut p: *const cfx_policy = std::ptr::null();
            // Bad enum value, NULL out-parameter.
            assert_eq!(
                cfx_policy_train(d, m, c, 5, None, std::ptr::null_mut(), &mut p),
                cfx_status::InvalidArgument
            );
            assert_eq!(
                cfx_policy_train(d, m, c, 0, None, std::ptr::null_mut(), std::ptr::null_mut()),
                cfx_status::NullArgument
            );
            // (The cancelling callback is tested from tests/ffi_sequential.rs: an
            // `extern "C"` callback cannot live in src/ffi, see tests/ffi_wrapped.rs.)
            assert_eq!(
                cfx_policy_train(d, m, c, 1, None, std::ptr::null_mut(), &mut p),
                cfx_status::Ok
            );
            let mut k = 0;
            assert_eq!(cfx_policy_n_actions(p, &mut k), cfx_status::Ok);
            assert_eq!(k, 2);
            // Same seed, same policy bits.
            let mut p2: *const cfx_policy = std::ptr::null();
            assert_eq!(
                cfx_policy_train(d, m, c, 1, None, std::ptr::null_mut(), &mut p2),
                cfx_status::Ok
            );
            assert_eq!(arc_ref(p, "p").unwrap(), arc_ref(p2, "p2").unwrap());
            let raw = [10.0, 0.0];
            let mut plan: *const cfx_plan = std::ptr::null();
            assert_eq!(
                cfx_policy_answer(p, s, m, raw.as_ptr(), 2, &mut plan),
                cfx_status::Ok
            );
            let r = arc_ref(plan, "plan").unwrap();
            let expect = arc_ref(p, "p")
                .unwrap()
                .answer(arc_ref(s, "s").unwrap(), arc_ref(m, "m").unwrap(), &raw)
                .unwrap();
            assert_eq!(r.plan, expect);
            let mut n = 0;
            assert_eq!(cfx_plan_n_steps(plan, &mut n), cfx_status::Ok);
            assert_eq!(n, expect.steps.len());
            assert_eq!(
                cfx_plan_step(
                    plan,
                    n,
                    std::ptr::null_mut(),
                    std::ptr::null_mut(),
                    std::ptr::null_mut(),
                    std::ptr::null_mut()
                ),
                cfx_status::NotFound
            );
            let bad = [f64::NAN, 0.0];
            let mut plan2: *const cfx_plan = std::ptr::null();
            assert_eq!(
                cfx_policy_answer(p, s, m, bad.as_ptr(), 2, &mut plan2),
                cfx_status::InvalidArgument
            );
            assert_eq!(
                cfx_policy_answer(p, s, m, raw.as_ptr(), 1, &mut plan2),
                cfx_status::DimensionMismatch
            );
            let mut out: *const cfx_policy = std::ptr::null();
            assert_eq!(
                cfx_policy_from_json(c"{}".as_ptr(), &mut out),
                cfx_status::FormatError
            );
            let mut metrics = std::mem::zeroed::<cfx_sequential_metrics>();
            assert_eq!(cfx_policy_evaluate(p, m, d, &mut metrics), cfx_status::Ok);
            assert_eq!(metrics.n_instances + metrics.n_already_accepted, 40);
            cfx_plan_free(plan);
            cfx_policy_free(p2);
            cfx_policy_free(p);
            arc_free(c);
            arc_free(d);
            arc_free(m);
            arc_free(s);
        }
    }
}
