//! The solver configuration: a builder (`cfx_config_builder`, mutable,
//! `Box`-backed) that becomes an immutable `cfx_config` (`Arc`-backed).
//!
//! The configuration is one plain Rust struct, [`SolverConfig`], of optional
//! settings. Every method's own core configuration (`coherent::Config`,
//! `robust::CrocoConfig`, the COPA and RL configs, …) keeps its documented
//! paper defaults and is filled from a `SolverConfig` by its FFI file:
//! `if let Some(v) = cfg.time_limit_seconds { core.time_limit = v }`. A field
//! left `None` means "the method's default". Setters validate their values
//! (finite, in range); settings a method does not use are ignored by it.
//! A method helper that needs a new setting adds one field here and one
//! `cfx_config_builder_set_<field>` function below (append only).

use super::handle::{
    ArcHandle, BoxHandle, arc_free, arc_into_raw, arc_ref, box_free, box_into_raw, box_mut,
    box_take, count_in, elements, enum_in, finite, out_param, slice_in, write_str,
};
use super::status::{FfiError, FfiResult, cfx_status};
use serde::{Deserialize, Serialize};
use std::ffi::c_char;
use std::sync::Arc;

/// Diversity rules for sets of counterfactuals (`int32_t` in C).
#[repr(i32)]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub enum cfx_diversity_rule {
    /// Russell's `fix_values` as published in the reference code (Russell 2019, "Efficient search for diverse coherent explanations",
    /// including its rule (b) that keeps a variable contiguous).
    RussellCode = 0,
    /// Russell's procedure with rule (b) read as intended: forbid the change.
    RussellIntended = 1,
    /// Distinct feature subsets: each new explanation leaves at least one
    /// feature of every earlier explanation unchanged (actionable recourse's flipsets).
    DistinctSubsets = 2,
}

impl cfx_diversity_rule {
    fn from_i32(v: i32) -> Option<Self> {
        match v {
            0 => Some(Self::RussellCode),
            1 => Some(Self::RussellIntended),
            2 => Some(Self::DistinctSubsets),
            _ => None,
        }
    }
}

/// Which solver proves coherent counterfactuals (`int32_t` in C).
#[repr(i32)]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub enum cfx_solver_choice {
    /// The exact separable solver when the model is linear or a scorecard,
    /// the exact tree search when it is a tree ensemble, each when every
    /// constraint is per feature; else HiGHS (the default).
    Auto = 0,
    /// Always the HiGHS mixed-integer program.
    Mip = 1,
    /// Always the separable solver (a call it cannot express is refused).
    Separable = 2,
    /// Always the tree-ensemble search (tree models only; a call it cannot
    /// express is refused).
    TreeSearch = 3,
}

impl cfx_solver_choice {
    fn from_i32(v: i32) -> Option<Self> {
        match v {
            0 => Some(Self::Auto),
            1 => Some(Self::Mip),
            2 => Some(Self::Separable),
            3 => Some(Self::TreeSearch),
            _ => None,
        }
    }
}

/// The neighbourhood robust advice on a tree ensemble proves accepted
/// (`int32_t` in C; `coherent::BoxKind`), set with
/// `cfx_config_builder_set_robust_box`.
#[repr(i32)]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum cfx_robust_box {
    /// Every real value within each changeable value's half-width of the
    /// answer's, neither clipped to the range nor rounded (the default).
    Reals = 0,
    /// Every value the applicant can actually end at: a slip clipped to the
    /// feature's range and rounded to the data's grid (whole numbers, or
    /// `lower + k·step`).
    ReachableValues = 1,
}

impl cfx_robust_box {
    fn from_i32(v: i32) -> Option<Self> {
        match v {
            0 => Some(Self::Reals),
            1 => Some(Self::ReachableValues),
            _ => None,
        }
    }
}

/// Reinforcement-learning (P-DQN) hyper-parameters; `None` = the method's default.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct RlSettings {
    pub episodes: Option<usize>,
    pub max_steps: Option<usize>,
    pub discount: Option<f64>,
    pub learning_rate_actor: Option<f64>,
    pub learning_rate_param: Option<f64>,
    pub batch_size: Option<usize>,
    pub replay_capacity: Option<usize>,
    pub epsilon_start: Option<f64>,
    pub epsilon_end: Option<f64>,
    pub hidden: Option<Vec<usize>>,
}

/// Every setting a method may read; `None` = the method's documented default.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct SolverConfig {
    /// Wall-clock limit per solve, seconds.
    pub time_limit_seconds: Option<f64>,
    /// Solver threads (1 = deterministic single thread).
    pub threads: Option<usize>,
    /// Relative MIP gap at which the solver may stop.
    pub mip_gap: Option<f64>,
    /// Score margin required beyond the decision threshold.
    pub margin: Option<f64>,
    /// How many counterfactuals to return at most, the optimum included.
    pub n_diverse: Option<usize>,
    pub diversity_rule: Option<cfx_diversity_rule>,
    /// Monte Carlo sample count K.
    pub n_samples: Option<usize>,
    /// The `m` of the invalidation bound (CROCO: Guyomard et al. 2023, "Generating robust counterfactual explanations", Proposition 2).
    pub bound_m: Option<f64>,
    /// Target invalidation rate Γ_t (or validity target, per method).
    pub target: Option<f64>,
    /// Tolerance around the target.
    pub target_epsilon: Option<f64>,
    /// Seed of every random step.
    pub seed: Option<u64>,
    /// COPA loss weights (COPA: Bui, Nguyen & Nguyen 2022, "Counterfactual plans under distributional ambiguity", problem 6): robustness λ₂ and diversity λ₁.
    pub copa_robust_weight: Option<f64>,
    pub copa_diversity_weight: Option<f64>,
    /// COPA ambiguity radius ρ (Gelbrich ball).
    pub copa_radius: Option<f64>,
    pub rl: RlSettings,
    /// Robust advice from the exact engine: noise variance σ² and the largest
    /// acceptable invalidation rate γ (`coherent::Robustness`). Left out of
    /// the JSON when unset, so that the fingerprints of configurations made
    /// before this setting existed do not change.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub robust_advice: Option<RobustAdvice>,
    /// The coherent program's solver (`None` = auto; left out of the JSON
    /// when unset, so older fingerprints are unchanged).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub solver: Option<cfx_solver_choice>,
    /// Branch-and-bound nodes the separable solver may visit per solve
    /// (`coherent::Config::node_limit`; left out of the JSON when unset, so
    /// older fingerprints are unchanged).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub node_limit: Option<usize>,
    /// Book runs (`cfx_portfolio_explain`, `cfx_revalidate_ledger`) resume
    /// from an interrupted run's partial file (`None` = no; left out of the
    /// JSON when unset, so older fingerprints are unchanged).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub resume: Option<bool>,
    /// Whether the exact engine tightens a ReLU network's bounds by LP
    /// (`coherent::Config::mlp_bound_tightening`; `None` = yes; left out of
    /// the JSON when unset, so older fingerprints are unchanged).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub mlp_bound_tightening: Option<bool>,
    /// The deployment report's names of the models
    /// (`cfx_config_builder_set_model_labels`): the old model(s) the advice
    /// was issued under and the new one. Left out of the JSON when unset, so
    /// older fingerprints are unchanged.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub old_model_label: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub new_model_label: Option<String>,
    /// The box of robust advice on a tree ensemble
    /// (`cfx_config_builder_set_robust_box`; `None` = over the reals; left
    /// out of the JSON when unset, so older fingerprints are unchanged).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub robust_box: Option<cfx_robust_box>,
}

/// The settings of `cfx_config_builder_set_robust_advice`. Read back from
/// a config's JSON by `cfx_ledger_from_portfolio` (both fields required,
/// no other key).
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RobustAdvice {
    pub sigma2: f64,
    pub invalidation_target: f64,
}

/// The core's robustness target of a config's robust advice over its box:
/// `None` without robust advice; the box of `robust_box`, the reals when
/// unset. The one mapping from the config's settings to
/// `coherent::Robustness`, used by the explain calls' core config and by
/// `cfx_ledger_from_portfolio`, which reads the two settings back from the
/// run's config JSON — so a kept ledger states the target the run solved
/// for.
pub(crate) fn robustness_of(
    advice: Option<RobustAdvice>,
    robust_box: Option<cfx_robust_box>,
) -> Option<crate::coherent::Robustness> {
    advice.map(|r| crate::coherent::Robustness {
        sigma2: r.sigma2,
        invalidation_target: r.invalidation_target,
        box_kind: match robust_box {
            None | Some(cfx_robust_box::Reals) => crate::coherent::BoxKind::Reals,
            Some(cfx_robust_box::ReachableValues) => crate::coherent::BoxKind::ReachableValues,
        },
    })
}

impl SolverConfig {
    /// Canonical JSON of the settings (for fingerprints in result exports).
    pub fn to_json(&self) -> String {
        serde_json::to_string_pretty(self).expect("a config always serialises")
    }
}

/// A mutable configuration builder. Not thread-safe: use it from one thread
/// at a time. `cfx_config_build` consumes it; otherwise free it with
/// `cfx_config_builder_free` (from any thread, once).
pub struct cfx_config_builder {
    _private: [u8; 0],
}

unsafe impl BoxHandle for cfx_config_builder {
    type Rust = SolverConfig;
}

/// An immutable configuration. Thread-safe: may be shared by many threads
/// and freed from any thread, exactly once, with `cfx_config_free`.
pub struct cfx_config {
    _private: [u8; 0],
}

unsafe impl ArcHandle for cfx_config {
    type Rust = SolverConfig;
}

fn set(b: *mut cfx_config_builder, f: impl FnOnce(&mut SolverConfig)) -> FfiResult<()> {
    f(box_mut(b, "builder")?);
    Ok(())
}

fn non_negative(v: f64, param: &str) -> FfiResult<f64> {
    if finite(v, param)? < 0.0 {
        return Err(FfiError::invalid(format!("{param} must be ≥ 0, got {v}")));
    }
    Ok(v)
}

fn positive_f(v: f64, param: &str) -> FfiResult<f64> {
    if finite(v, param)? <= 0.0 {
        return Err(FfiError::invalid(format!("{param} must be > 0, got {v}")));
    }
    Ok(v)
}

fn unit_interval(v: f64, param: &str) -> FfiResult<f64> {
    if !(0.0..=1.0).contains(&finite(v, param)?) {
        return Err(FfiError::invalid(format!(
            "{param} must be in [0, 1], got {v}"
        )));
    }
    Ok(v)
}

/// A new builder with every setting unset (each method's defaults apply).
/// `*out_builder` is owned by the caller.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cfx_config_builder_new(
    out_builder: *mut *mut cfx_config_builder,
) -> cfx_status {
    ffi_boundary! {
        let out = out_param(out_builder, "out_builder")?;
        out.write(box_into_raw(SolverConfig::default()));
        Ok(())
    }
}

/// Time limit per solve in seconds (> 0). Not thread-safe (builder).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cfx_config_builder_set_time_limit(
    b: *mut cfx_config_builder,
    seconds: f64,
) -> cfx_status {
    ffi_boundary! {
        let v = positive_f(seconds, "seconds")?;
        set(b, |c| c.time_limit_seconds = Some(v))
    }
}

/// Solver threads (≥ 1). Not thread-safe (builder).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cfx_config_builder_set_threads(
    b: *mut cfx_config_builder,
    threads: usize,
) -> cfx_status {
    ffi_boundary! {
        let v = count_in(threads, "threads")?;
        set(b, |c| c.threads = Some(v))
    }
}

/// Relative MIP gap (≥ 0). Not thread-safe (builder).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cfx_config_builder_set_mip_gap(
    b: *mut cfx_config_builder,
    gap: f64,
) -> cfx_status {
    ffi_boundary! {
        let v = non_negative(gap, "gap")?;
        set(b, |c| c.mip_gap = Some(v))
    }
}

/// Score margin beyond the threshold (≥ 0). Not thread-safe (builder).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cfx_config_builder_set_margin(
    b: *mut cfx_config_builder,
    margin: f64,
) -> cfx_status {
    ffi_boundary! {
        let v = non_negative(margin, "margin")?;
        set(b, |c| c.margin = Some(v))
    }
}

/// How many counterfactuals `cfx_coherent_explain_diverse` returns at most,
/// the optimum included (≥ 1; 1 = the optimum alone); for a COPA plan, the
/// number of options. Not thread-safe (builder).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cfx_config_builder_set_n_diverse(
    b: *mut cfx_config_builder,
    n: usize,
) -> cfx_status {
    ffi_boundary! {
        let v = count_in(n, "n")?;
        set(b, |c| c.n_diverse = Some(v))
    }
}

/// Diversity rule: a `cfx_diversity_rule` value. Not thread-safe (builder).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cfx_config_builder_set_diversity_rule(
    b: *mut cfx_config_builder,
    rule: i32,
) -> cfx_status {
    ffi_boundary! {
        let v = enum_in(rule, "rule", cfx_diversity_rule::from_i32)?;
        set(b, |c| c.diversity_rule = Some(v))
    }
}

/// The solver of coherent counterfactuals: a `cfx_solver_choice` value
/// (default auto: the exact separable solver for linear models and
/// scorecards whenever every constraint is per feature, else HiGHS). The
/// result names the solver that proved it (`cfx_coherent_result_proved_by`).
/// Not thread-safe (builder).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cfx_config_builder_set_solver(
    b: *mut cfx_config_builder,
    solver: i32,
) -> cfx_status {
    ffi_boundary! {
        let v = enum_in(solver, "solver", cfx_solver_choice::from_i32)?;
        set(b, |c| c.solver = Some(v))
    }
}

/// Branch-and-bound nodes the exact separable solver may visit per solve
/// (≥ 1; default 200,000, far more than credit applicants need). Past it, a
/// solve with solver auto is handed to HiGHS, and one with solver separable
/// ends unproven: `cfx_coherent_result_outcome` says `UNKNOWN` (raw status
/// −3 in the result's JSON), and waiting advice says so through
/// `cfx_waiting_advice_proven` and the `UNPROVEN` outcome. Deterministic,
/// unlike the time limit. Not thread-safe (builder).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cfx_config_builder_set_node_limit(
    b: *mut cfx_config_builder,
    nodes: usize,
) -> cfx_status {
    ffi_boundary! {
        let v = count_in(nodes, "nodes")?;
        set(b, |c| c.node_limit = Some(v))
    }
}

/// Monte Carlo sample count K (≥ 1). Not thread-safe (builder).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cfx_config_builder_set_n_samples(
    b: *mut cfx_config_builder,
    k: usize,
) -> cfx_status {
    ffi_boundary! {
        let v = count_in(k, "k")?;
        set(b, |c| c.n_samples = Some(v))
    }
}

/// The `m > 0` of the invalidation bound (CROCO: Guyomard et al. 2023, "Generating robust counterfactual explanations", Proposition 2). Not
/// thread-safe (builder).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cfx_config_builder_set_bound_m(
    b: *mut cfx_config_builder,
    m: f64,
) -> cfx_status {
    ffi_boundary! {
        let v = positive_f(m, "m")?;
        set(b, |c| c.bound_m = Some(v))
    }
}

/// Target rate in [0, 1] and its tolerance ε ≥ 0 (e.g. CROCO's Γ̄_t and
/// robustness ε). Not thread-safe (builder).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cfx_config_builder_set_target(
    b: *mut cfx_config_builder,
    target: f64,
    epsilon: f64,
) -> cfx_status {
    ffi_boundary! {
        let t = unit_interval(target, "target")?;
        let e = non_negative(epsilon, "epsilon")?;
        set(b, |c| {
            c.target = Some(t);
            c.target_epsilon = Some(e);
        })
    }
}

/// Robust advice from the exact engine (coherent methods, logistic models and
/// tree ensembles): every counterfactual must keep its invalidation rate Γ —
/// the chance that the model declines the applicant's implementation slipped
/// by Gaussian noise of variance `sigma2` (≥ 0) on each changeable value's
/// encoded slot — at most `invalidation_target` (strictly between 0 and 1).
/// Under a logistic model the answer is the cheapest coherent counterfactual
/// meeting that target, proven optimal (closed-form margin
/// σ‖w_S‖·Φ⁻¹(1 − γ)). Under a tree ensemble it is the cheapest one whose
/// whole box (each changeable value within z·σ·(upper − lower) of the
/// answer's, z = Φ⁻¹(1 − γ/(2m)) over the m changeable values) is accepted,
/// each tree at its worst leaf over the box, proven by the tree search (the
/// MIP solver refuses it), so that Γ ≤ γ by the union bound. Read Γ with
/// `cfx_coherent_result_invalidation_rate` (trees: a Monte Carlo estimate,
/// 10,000 samples, fixed seed). A scorecard or network refuses it
/// (`INVALID_ARGUMENT`). Not thread-safe (builder).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cfx_config_builder_set_robust_advice(
    b: *mut cfx_config_builder,
    sigma2: f64,
    invalidation_target: f64,
) -> cfx_status {
    ffi_boundary! {
        let s = non_negative(sigma2, "sigma2")?;
        let t = finite(invalidation_target, "invalidation_target")?;
        if !(t > 0.0 && t < 1.0) {
            return Err(FfiError::invalid(format!(
                "invalidation_target must lie strictly between 0 and 1, got {t}"
            )));
        }
        set(b, |c| {
            c.robust_advice = Some(RobustAdvice {
                sigma2: s,
                invalidation_target: t,
            })
        })
    }
}

/// Which neighbourhood robust advice on a tree ensemble proves accepted: a
/// `cfx_robust_box` value. `CFX_ROBUST_BOX_REALS` (the default): every real
/// value within each changeable value's half-width z·σ·(upper − lower) of
/// the answer's. `CFX_ROBUST_BOX_REACHABLE_VALUES`: every value the
/// applicant can actually end at — a slip clipped to the feature's range and
/// rounded to the data's grid (whole numbers of an integer feature,
/// lower + k·step of a step feature; a real-valued feature is only clipped),
/// so the box per feature runs from the landing of the answer minus the
/// half-width to that of the answer plus it: narrower where the range clips
/// or rounding pulls an end in, up to half a grid step wider where rounding
/// pushes it out; Γ (`cfx_coherent_result_invalidation_rate`) is then
/// estimated under the same clip-and-round slips. Takes effect with
/// `cfx_config_builder_set_robust_advice`; an explanation under a logistic
/// model refuses reachable values (`INVALID_ARGUMENT`: its closed-form
/// margin is over the reals). Not thread-safe (builder).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cfx_config_builder_set_robust_box(
    b: *mut cfx_config_builder,
    box_kind: i32,
) -> cfx_status {
    ffi_boundary! {
        let v = enum_in(box_kind, "box_kind", cfx_robust_box::from_i32)?;
        set(b, |c| c.robust_box = Some(v))
    }
}

/// Seed of every random step (same inputs + seed → same bits). Not
/// thread-safe (builder).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cfx_config_builder_set_seed(
    b: *mut cfx_config_builder,
    seed: u64,
) -> cfx_status {
    ffi_boundary! { set(b, |c| c.seed = Some(seed)) }
}

/// COPA loss weights (≥ 0): robustness and diversity (COPA: Bui, Nguyen & Nguyen 2022, "Counterfactual plans under distributional ambiguity", problem 6).
/// Not thread-safe (builder).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cfx_config_builder_set_copa_weights(
    b: *mut cfx_config_builder,
    robust_weight: f64,
    diversity_weight: f64,
) -> cfx_status {
    ffi_boundary! {
        let r = non_negative(robust_weight, "robust_weight")?;
        let d = non_negative(diversity_weight, "diversity_weight")?;
        set(b, |c| {
            c.copa_robust_weight = Some(r);
            c.copa_diversity_weight = Some(d);
        })
    }
}

/// COPA ambiguity radius ρ ≥ 0. Not thread-safe (builder).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cfx_config_builder_set_copa_radius(
    b: *mut cfx_config_builder,
    rho: f64,
) -> cfx_status {
    ffi_boundary! {
        let v = non_negative(rho, "rho")?;
        set(b, |c| c.copa_radius = Some(v))
    }
}

/// RL training length: episodes (≥ 1) and steps per episode (≥ 1). Not
/// thread-safe (builder).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cfx_config_builder_set_rl_episodes(
    b: *mut cfx_config_builder,
    episodes: usize,
    max_steps: usize,
) -> cfx_status {
    ffi_boundary! {
        let e = count_in(episodes, "episodes")?;
        let s = count_in(max_steps, "max_steps")?;
        set(b, |c| {
            c.rl.episodes = Some(e);
            c.rl.max_steps = Some(s);
        })
    }
}

/// RL optimisation: discount γ in [0, 1], learning rates of the actor and of
/// the action parameters (> 0), mini-batch size (≥ 1), replay capacity
/// (≥ batch size). Not thread-safe (builder).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cfx_config_builder_set_rl_training(
    b: *mut cfx_config_builder,
    discount: f64,
    learning_rate_actor: f64,
    learning_rate_param: f64,
    batch_size: usize,
    replay_capacity: usize,
) -> cfx_status {
    ffi_boundary! {
        let g = unit_interval(discount, "discount")?;
        let la = positive_f(learning_rate_actor, "learning_rate_actor")?;
        let lp = positive_f(learning_rate_param, "learning_rate_param")?;
        let bs = count_in(batch_size, "batch_size")?;
        count_in(replay_capacity, "replay_capacity")?;
        if replay_capacity < bs {
            return Err(FfiError::invalid(format!(
                "replay_capacity ({replay_capacity}) must be at least batch_size ({bs})"
            )));
        }
        set(b, |c| {
            c.rl.discount = Some(g);
            c.rl.learning_rate_actor = Some(la);
            c.rl.learning_rate_param = Some(lp);
            c.rl.batch_size = Some(bs);
            c.rl.replay_capacity = Some(replay_capacity);
        })
    }
}

/// RL ε-greedy exploration from `start` down to `end` (both in [0, 1],
/// end ≤ start). Not thread-safe (builder).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cfx_config_builder_set_rl_exploration(
    b: *mut cfx_config_builder,
    start: f64,
    end: f64,
) -> cfx_status {
    ffi_boundary! {
        let s = unit_interval(start, "start")?;
        let e = unit_interval(end, "end")?;
        if e > s {
            return Err(FfiError::invalid(format!("end ({e}) must not exceed start ({s})")));
        }
        set(b, |c| {
            c.rl.epsilon_start = Some(s);
            c.rl.epsilon_end = Some(e);
        })
    }
}

/// RL network hidden-layer widths (`n_hidden ≥ 1` values, each ≥ 1). Not
/// thread-safe (builder).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cfx_config_builder_set_rl_hidden(
    b: *mut cfx_config_builder,
    hidden: *const usize,
    n_hidden: usize,
) -> cfx_status {
    ffi_boundary! {
        let h = slice_in(hidden, count_in(n_hidden, "n_hidden")?, "hidden")?;
        for &w in h {
            count_in(w, "hidden width")?;
        }
        // consecutive widths are the shapes of the network's weight matrices
        for pair in h.windows(2) {
            elements(pair, "hidden widths' weight matrix")?;
        }
        let h = h.to_vec();
        set(b, |c| c.rl.hidden = Some(h))
    }
}

/// Whether a book run — `cfx_portfolio_explain`, `cfx_revalidate_ledger` —
/// resumes an interrupted run of the same output (`resume` 1 or 0; default
/// 0; any other value is `INVALID_ARGUMENT`): the
/// lines a cancelled or killed run left in its partial file
/// (`<output>.cfx-partial`, or the newest hidden
/// `.<name>.<pid>-<n>-<nanos>.cfx-partial` whose process is gone) are checked
/// against the input and kept, and the run goes on from the next row; the
/// output is byte for byte an uninterrupted run's, on any thread count.
/// A partial file written by another run (another schema, model, input or
/// settings) is refused with `INVALID_ARGUMENT` naming the difference.
/// Without a partial file the run starts at the first row. Other methods
/// ignore it. Not thread-safe (builder).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cfx_config_builder_set_resume(
    b: *mut cfx_config_builder,
    resume: i32,
) -> cfx_status {
    ffi_boundary! {
        let r = super::handle::flag(resume, "resume")?;
        set(b, |c| c.resume = Some(r))
    }
}

/// Whether the exact engine, on a ReLU network, tightens each unit's
/// pre-activation bounds with LPs over the applicant's actionable box after
/// interval arithmetic (optimisation-based bound tightening; `tighten` 1, the
/// default) or keeps the interval bounds (0: the textbook big-M program, the
/// reference the tightened one is checked against). Both are exact: the
/// bounds only decide how many units need a binary and how tight their
/// big-M rows are, never the optimum. Any other value is `INVALID_ARGUMENT`.
/// Other model kinds ignore it. Not thread-safe (builder).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cfx_config_builder_set_mlp_bound_tightening(
    b: *mut cfx_config_builder,
    tighten: i32,
) -> cfx_status {
    ffi_boundary! {
        let t = super::handle::flag(tighten, "tighten")?;
        set(b, |c| c.mlp_bound_tightening = Some(t))
    }
}

/// The caller's names of the models in a re-validation's deployment report
/// (`cfx_revalidate_ledger`; `new_model` and `old_models` of
/// `cfx_deployment_report_to_json`, and the HTML page), each shown beside
/// the model's fingerprint ("scorecard 2025-Q4", "XGBoost challenger").
/// `old_label` (NULL: none, the fingerprint alone) names every model the
/// ledger's advice was issued under. `new_label` (NULL: none) names the new
/// model. A later call replaces both. UTF-8, not
/// empty, at most 200 bytes, else `INVALID_ARGUMENT`. The labels change no
/// result or output line (a resumed run may use other labels). Other methods
/// ignore them. Not thread-safe (builder).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cfx_config_builder_set_model_labels(
    b: *mut cfx_config_builder,
    old_label: *const c_char,
    new_label: *const c_char,
) -> cfx_status {
    ffi_boundary! {
        let label = |p: *const c_char, name: &str| -> FfiResult<Option<String>> {
            if p.is_null() {
                return Ok(None);
            }
            match super::handle::str_in(p, name)? {
                "" => Err(FfiError::invalid(format!("{name} must not be empty"))),
                l if l.len() > 200 => Err(FfiError::invalid(format!(
                    "{name} must be at most 200 bytes, got {}",
                    l.len()
                ))),
                l => Ok(Some(l.to_string())),
            }
        };
        let (old, new) = (label(old_label, "old_label")?, label(new_label, "new_label")?);
        set(b, |c| {
            c.old_model_label = old;
            c.new_model_label = new;
        })
    }
}

/// The model labels of `config` (NULL: none): `(old, new)`.
pub(super) fn model_labels_of(
    config: *const cfx_config,
) -> FfiResult<(Option<String>, Option<String>)> {
    if config.is_null() {
        return Ok((None, None));
    }
    let c = arc_ref(config, "config")?;
    Ok((c.old_model_label.clone(), c.new_model_label.clone()))
}

/// Whether `config` (NULL: the defaults) asks book runs to resume.
pub(super) fn resume_of(config: *const cfx_config) -> FfiResult<bool> {
    if config.is_null() {
        return Ok(false);
    }
    Ok(arc_ref(config, "config")?.resume.unwrap_or(false))
}

/// Turns the builder into an immutable configuration. The builder is
/// consumed in every case (success or failure, as long as it is not NULL):
/// do not use or free it afterwards. `*out_config` is owned by the caller.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cfx_config_build(
    builder: *mut cfx_config_builder,
    out_config: *mut *const cfx_config,
) -> cfx_status {
    ffi_boundary! {
        let cfg = box_take(builder, "builder")?;
        let out = out_param(out_config, "out_config")?;
        out.write(arc_into_raw(Arc::<SolverConfig>::from(cfg)));
        Ok(())
    }
}

/// The settings as JSON (unset settings are `null`; string buffer
/// protocol). Thread-safe.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cfx_config_to_json(
    config: *const cfx_config,
    buf: *mut c_char,
    cap: usize,
    out_len: *mut usize,
) -> cfx_status {
    ffi_boundary! {
        let c = arc_ref(config, "config")?;
        write_str(&c.to_json(), buf, cap, out_len, "buf")
    }
}

/// Releases a builder that was not built. NULL is a no-op. Any thread, once.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cfx_config_builder_free(builder: *mut cfx_config_builder) {
    ffi_boundary! { box_free(builder) }
}

/// Releases a configuration. NULL is a no-op. Any thread, once.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cfx_config_free(config: *const cfx_config) {
    ffi_boundary! { arc_free(config) }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn builder_validates_and_build_consumes() {
        unsafe {
            let mut b = std::ptr::null_mut();
            assert_eq!(cfx_config_builder_new(&mut b), cfx_status::Ok);
            assert_eq!(cfx_config_builder_set_time_limit(b, 2.5), cfx_status::Ok);
            assert_eq!(
                cfx_config_builder_set_time_limit(b, f64::NAN),
                cfx_status::InvalidArgument
            );
            assert_eq!(
                cfx_config_builder_set_rl_hidden(b, std::ptr::null(), 0),
                cfx_status::InvalidArgument
            );
            assert_eq!(
                cfx_config_builder_set_rl_hidden(b, [64, 32].as_ptr(), 2),
                cfx_status::Ok
            );
            assert_eq!(
                cfx_config_builder_set_target(b, 1.5, 0.0),
                cfx_status::InvalidArgument
            );
            assert_eq!(cfx_config_builder_set_seed(b, 42), cfx_status::Ok);
            assert_eq!(
                cfx_config_builder_set_mlp_bound_tightening(b, 2),
                cfx_status::InvalidArgument
            );
            assert_eq!(
                cfx_config_builder_set_mlp_bound_tightening(b, 0),
                cfx_status::Ok
            );
            assert_eq!(
                cfx_config_builder_set_rl_training(b, 0.8, 1e-3, 1e-3, 64, 32),
                cfx_status::InvalidArgument
            );
            let mut c = std::ptr::null();
            assert_eq!(cfx_config_build(b, &mut c), cfx_status::Ok);
            let cfg = arc_ref(c, "c").unwrap();
            assert_eq!(cfg.time_limit_seconds, Some(2.5));
            assert_eq!(cfg.rl.hidden, Some(vec![64, 32]));
            assert_eq!(cfg.seed, Some(42));
            assert_eq!(cfg.mlp_bound_tightening, Some(false));
            assert!(
                !super::super::coherent::core_config(c)
                    .unwrap()
                    .mlp_bound_tightening
            );
            assert_eq!(cfg.target, None);
            assert_eq!(cfg.rl.batch_size, None);
            cfx_config_free(c);
            cfx_config_free(std::ptr::null());
            cfx_config_builder_free(std::ptr::null_mut());
            assert_eq!(
                cfx_config_build(std::ptr::null_mut(), &mut c),
                cfx_status::NullArgument
            );
        }
    }
}
