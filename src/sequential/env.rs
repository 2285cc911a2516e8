//! The sequential-counterfactual environment of Panagiotou & Ntoutsi 2023 (§4.1 of
//! `seed-formulas.md`): state `s_t = (x_t, b_t)`, action `a_t = (k, u_k)`,
//! rewards `R^bin` and `R^prob` (§4.2).

use crate::error::{Error, Result, check_len};
use crate::model::Model;
use crate::schema::{Direction, FeatureKind, Schema, Waiting};
use serde::{Deserialize, Serialize};

/// Which reward of Panagiotou & Ntoutsi 2023 the agent learns from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum RewardKind {
    /// `R^bin` (Panagiotou & Ntoutsi 2023, eq. 2): Pos on success, Pen on failure, `−β·δ` otherwise.
    Binary,
    /// `R^prob` (Panagiotou & Ntoutsi 2023, eq. 3): as `R^bin`, but a non-terminal step earns
    /// `α·(P(s_{t+1}) − P(s_0)) − β·δ`.
    Probability,
}

/// The constants of Panagiotou & Ntoutsi 2023's rewards.
///
/// The paper sets `(α, β) = (10, 1)`, `Pos = α·thr = 5` with `thr = 0.5`, and
/// `Pen = −2·Pos = −10` (Panagiotou & Ntoutsi 2023, §4 "Experimental setup").
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RewardParams {
    pub alpha: f64,
    pub beta: f64,
    /// Reward of a success terminal (counterfactual found).
    pub pos: f64,
    /// Reward of a failure terminal (constraint violated, feature re-used, steps exhausted).
    pub pen: f64,
}

impl RewardParams {
    /// The paper's constants for a classifier threshold `thr`: `Pos = α·thr`, `Pen = −2·Pos`.
    pub fn paper(thr: f64) -> RewardParams {
        let alpha = 10.0;
        RewardParams {
            alpha,
            beta: 1.0,
            pos: alpha * thr,
            pen: -2.0 * alpha * thr,
        }
    }

    pub(crate) fn validate(&self) -> Result<()> {
        crate::error::check_finite(
            "reward parameters",
            &[self.alpha, self.beta, self.pos, self.pen],
        )
    }
}

impl Default for RewardParams {
    /// `RewardParams::paper(0.5)`: `(α, β, Pos, Pen) = (10, 1, 5, −10)`.
    fn default() -> Self {
        RewardParams::paper(0.5)
    }
}

/// How one mutable feature turns the continuous parameter `u ∈ [−1, 1]` into a new raw value.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum ActionMap {
    /// A contiguous feature: `segments[0]` is "a value in `[lo, hi]`", the other
    /// segments are the reachable special states' codes.
    Contiguous {
        lo: f64,
        hi: f64,
        integer: bool,
        /// Grid `origin + k·step` (the feature's data lower bound is the origin).
        step: Option<(f64, f64)>,
        special_codes: Vec<f64>,
    },
    /// A categorical feature with `n` levels.
    Categorical { n: usize },
}

/// The name of the waiting action among a policy's actions (no feature is
/// called so: it is not a feature but "wait `m` months").
pub const WAIT_ACTION: &str = "wait";

/// The discrete half of the hybrid action space: one action per mutable raw
/// feature, each with its own map from `u ∈ [−1, 1]` to a raw value, and —
/// when the schema declares a waiting action — one last action "wait".
///
/// # Parameter mapping (documented choice; Panagiotou & Ntoutsi 2023 only says `x_{t+1}[k] = u_k`)
/// Let `v = (u + 1)/2 ∈ [0, 1]` and let the feature have `m` segments; segment
/// `j = min(⌊v·m⌋, m − 1)` is chosen and `τ = v·m − j ∈ [0, 1]` is the position inside it.
/// * contiguous, no special states (`m = 1`): the value `lo + v·(hi − lo)` over the
///   **actionable** range `[lo, hi]`, snapped to the step grid / whole numbers
///   (staying inside `[lo, hi]`);
/// * contiguous with special states: `m = 1 + r` equal segments, segment 0 is the
///   value `lo + τ·(hi − lo)` (snapped as above), segment `j ≥ 1` the `j`-th
///   *reachable* special state — one some other state may move into under the
///   forbidden transitions (HELOC's "no bureau record" is never reachable, so it
///   gets no segment);
/// * categorical with `n` levels: `m = n` equal segments, segment `j` is level `j`.
///
/// On a schema without change limits and without waiting (the paper's
/// setting) this map is fixed, and direction rules are not built into it: a
/// move against the allowed direction is a failure terminal, as the paper's
/// "violating a feature constraint".
///
/// # Advice schemas (issues #16, #43: change limits, a waiting action, advice grids or minimum changes)
/// When the schema states what a person can actually do, the map is taken
/// relative to the applicant's own value `a` (each feature is set once per
/// episode, so its current value is the applicant's), and every action the
/// agent can take is allowed ([`ActionSpace::value_within`]):
/// * the value segment spans [`Schema::move_range`]`(i, a)` (the actionable
///   range tightened by the change limits, the one definition every method
///   uses), cut at `a` by the direction, snapped to the grid inside it — the
///   advice grid and beyond the minimum change when the feature has them
///   ([`Schema::nearest_advisable`]); it is offered only when the move into
///   the value state is allowed;
/// * the special states and categorical levels offered are those the
///   feature may move into from its current state (forbidden transitions and,
///   for a categorical, the direction over the level order); staying is
///   always among them;
/// * "wait": the `(min(⌊v·n⌋, n − 1) + 1)`-th of the `n` months `w_1 < … <
///   w_n` the applicant may be advised to wait ([`Schema::advisable_waits`]
///   without 0), `n` equal segments — the months up to the schema's
///   `max_months`, shortened when a longer wait would carry a feature that
///   refuses to pass its upper bound past it, without the waits that would
///   leave a time feature outside its advised range
///   ([`ActionSpace::months_among`]). An applicant who may not wait at all
///   (`n = 0`) is offered the shortest wait, which the schema refuses:
///   choosing it is a violation, like any move the rules forbid.
#[derive(Debug, Clone, PartialEq)]
pub struct ActionSpace {
    pub(crate) features: Vec<usize>,
    pub(crate) maps: Vec<ActionMap>,
    /// The map is relative to the applicant (the schema has change limits or waiting).
    within_advice: bool,
    /// The waiting action (the last action), when the schema declares one.
    wait: Option<Waiting>,
}

impl ActionSpace {
    /// One action per mutable feature of `schema`, in schema order, then
    /// "wait" when the schema declares a waiting action.
    pub fn new(schema: &Schema) -> Result<ActionSpace> {
        let mut features = Vec::new();
        let mut maps = Vec::new();
        for (i, f) in schema.features.iter().enumerate() {
            if !f.actionability.mutable {
                continue;
            }
            let map = match &f.kind {
                FeatureKind::Contiguous {
                    lower,
                    integer,
                    step,
                    special_states,
                    ..
                } => {
                    let (lo, hi) = schema.actionable_range(i).expect("contiguous");
                    let n_states = f.n_states();
                    let special_codes = special_states
                        .iter()
                        .enumerate()
                        .filter(|(j, _)| {
                            (0..n_states).any(|from| {
                                from != j + 1 && schema.transition_allowed(i, from, j + 1)
                            })
                        })
                        .map(|(_, s)| s.code)
                        .collect();
                    ActionMap::Contiguous {
                        lo,
                        hi,
                        integer: *integer,
                        step: step.map(|s| (*lower, s)),
                        special_codes,
                    }
                }
                FeatureKind::Categorical { levels } => ActionMap::Categorical { n: levels.len() },
            };
            features.push(i);
            maps.push(map);
        }
        let wait = schema.waiting();
        if features.is_empty() && wait.is_none() {
            return Err(Error::InvalidArgument(
                "the schema has no mutable feature: there is no action to take".into(),
            ));
        }
        let within_advice = wait.is_some()
            || schema.features.iter().any(|f| {
                let a = &f.actionability;
                a.max_increase.is_some()
                    || a.max_decrease.is_some()
                    || a.advice_step.is_some()
                    || a.min_change.is_some()
            });
        Ok(ActionSpace {
            features,
            maps,
            within_advice,
            wait,
        })
    }

    /// Number of discrete actions `K` (mutable features, plus "wait" when the
    /// schema has it; also the step budget).
    pub fn len(&self) -> usize {
        self.features.len() + usize::from(self.wait.is_some())
    }

    /// Always false: a space is built only with at least one action.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The raw feature index behind feature action `k` (`None` for "wait").
    pub fn feature(&self, k: usize) -> Option<usize> {
        self.features.get(k).copied()
    }

    /// The raw feature indices of the feature actions ("wait" has none).
    pub fn features(&self) -> &[usize] {
        &self.features
    }

    /// The index of the "wait" action, when the schema declares waiting.
    pub fn wait_action(&self) -> Option<usize> {
        self.wait.map(|_| self.features.len())
    }

    /// Whether the map is relative to the applicant (change limits or waiting
    /// in the schema), see the type docs.
    pub fn within_advice(&self) -> bool {
        self.within_advice
    }

    /// The actions' names: the features' names, then [`WAIT_ACTION`].
    pub fn names(&self, schema: &Schema) -> Vec<String> {
        let mut out: Vec<String> = self
            .features
            .iter()
            .map(|&i| schema.features[i].name.clone())
            .collect();
        if self.wait.is_some() {
            out.push(WAIT_ACTION.into());
        }
        out
    }

    /// The months "wait" with parameter `u` waits under the schema's
    /// `max_months` alone (`0` without a waiting action); an applicant's own
    /// limit is [`ActionSpace::months_within`].
    pub fn months(&self, u: f64) -> u32 {
        self.months_within(u, u32::MAX)
    }

    /// The months "wait" with parameter `u` waits for an applicant who may
    /// wait at most `longest` months ([`Schema::longest_wait`]): `u` spread
    /// over `{1, …, min(longest, max_months)}`, so every wait offered is
    /// allowed; `1` when `longest` is 0 (that wait is refused by the schema,
    /// the step a violation); `0` without a waiting action.
    pub fn months_within(&self, u: f64, longest: u32) -> u32 {
        let Some(w) = self.wait else { return 0 };
        let m = w.max_months.min(longest).max(1) as usize;
        (segment(unit(u), m).0 + 1) as u32
    }

    /// The months "wait" with parameter `u` waits for an applicant who may be
    /// advised to wait the months `waits` (ascending, ≥ 1: the non-zero
    /// [`Schema::advisable_waits`]): `u` spread over them in equal segments,
    /// so every wait offered is advisable; `1` when `waits` is empty (that
    /// wait is refused by the schema, the step a violation); `0` without a
    /// waiting action. With waits `1..=longest` it is
    /// [`ActionSpace::months_within`]`(u, longest)`.
    pub fn months_among(&self, u: f64, waits: &[u32]) -> u32 {
        if self.wait.is_none() {
            return 0;
        }
        if waits.is_empty() {
            return 1;
        }
        waits[segment(unit(u), waits.len()).0]
    }

    /// The raw value feature action `k` with parameter `u` sets under the
    /// paper's fixed map (see the type docs). `u` is clamped to `[−1, 1]`; a
    /// NaN parameter maps to `u = −1`. For "wait" it is [`ActionSpace::months`].
    pub fn value(&self, k: usize, u: f64) -> f64 {
        let v = unit(u);
        let Some(map) = self.maps.get(k) else {
            return f64::from(self.months(u));
        };
        match map {
            ActionMap::Contiguous {
                lo,
                hi,
                integer,
                step,
                special_codes,
            } => {
                let (j, tau) = segment(v, 1 + special_codes.len());
                if j > 0 {
                    return special_codes[j - 1];
                }
                snap(lo + tau * (hi - lo), *lo, *hi, *integer, *step)
            }
            ActionMap::Categorical { n } => segment(v, *n).0 as f64,
        }
    }

    /// The raw value feature action `k` with parameter `u` sets for a feature
    /// whose current raw value is `from` (the applicant's own), under the
    /// advice map (see the type docs): always a move [`Schema::check_advice`]
    /// allows. Never allocates. On a schema that is not an advice schema it is
    /// [`ActionSpace::value`].
    pub fn value_within(&self, schema: &Schema, k: usize, u: f64, from: f64) -> f64 {
        if !self.within_advice || k >= self.features.len() {
            return self.value(k, u);
        }
        let v = unit(u);
        let i = self.features[k];
        let f = &schema.features[i];
        let Ok(sa) = f.state_of(from) else {
            return from;
        };
        match (&self.maps[k], &f.kind) {
            (
                ActionMap::Contiguous { integer, step, .. },
                FeatureKind::Contiguous { special_states, .. },
            ) => {
                let value = if schema.transition_allowed(i, sa, 0) {
                    value_segment(schema, i, from, sa, *integer, *step)
                } else {
                    None
                };
                let allowed = |s: &usize| schema.transition_allowed(i, sa, *s);
                let n_special = (1..=special_states.len()).filter(allowed).count();
                let m = usize::from(value.is_some()) + n_special;
                if m == 0 {
                    return from;
                }
                let (mut j, tau) = segment(v, m);
                if let Some((lo, hi)) = value {
                    if j == 0 {
                        let x = lo + tau * (hi - lo);
                        let a = &f.actionability;
                        if a.advice_step.is_some() || a.min_change.is_some() {
                            // On the advice grid, beyond the minimum change (issue 43).
                            return schema.nearest_advisable(i, from, x, lo, hi);
                        }
                        return snap_within(x, lo, hi, *integer, *step).unwrap_or(from);
                    }
                    j -= 1;
                }
                (1..=special_states.len())
                    .filter(allowed)
                    .nth(j)
                    .map_or(from, |s| special_states[s - 1].code)
            }
            (ActionMap::Categorical { n }, _) => {
                let dir = f.actionability.direction;
                let allowed = |l: &usize| {
                    schema.transition_allowed(i, sa, *l)
                        && match dir {
                            Direction::Any => true,
                            Direction::IncreaseOnly => *l >= sa,
                            Direction::DecreaseOnly => *l <= sa,
                        }
                };
                let m = (0..*n).filter(allowed).count();
                if m == 0 {
                    return from;
                }
                let j = segment(v, m).0;
                (0..*n).filter(allowed).nth(j).map_or(from, |l| l as f64)
            }
            _ => from,
        }
    }
}

/// `u ∈ [−1, 1]` (clamped; NaN as −1) as `v = (u + 1)/2 ∈ [0, 1]`.
fn unit(u: f64) -> f64 {
    let u = if u.is_nan() { -1.0 } else { u.clamp(-1.0, 1.0) };
    (u + 1.0) / 2.0
}

/// Segment `j = min(⌊v·m⌋, m − 1)` of `m` equal ones and the position `τ ∈ [0, 1]` in it.
fn segment(v: f64, m: usize) -> (usize, f64) {
    let s = v * m as f64;
    let j = (s.floor() as usize).min(m - 1);
    (j, (s - j as f64).clamp(0.0, 1.0))
}

/// The value range an advice action may set for contiguous feature `i` from
/// raw value `from` in state `sa`: [`Schema::move_range`], cut at `from` by the
/// direction when the feature stays in its value state; `None` when no grid
/// point lies inside (then staying is the only value move, which needs no
/// segment: a special state's own segment, or `from` itself, covers it).
fn value_segment(
    schema: &Schema,
    i: usize,
    from: f64,
    sa: usize,
    integer: bool,
    step: Option<(f64, f64)>,
) -> Option<(f64, f64)> {
    let (mut lo, mut hi) = schema.move_range(i, from)?;
    if sa == 0 {
        match schema.features[i].actionability.direction {
            Direction::IncreaseOnly => lo = lo.max(from),
            Direction::DecreaseOnly => hi = hi.min(from),
            Direction::Any => {}
        }
        if lo > hi {
            // The applicant sits outside what may be reached: staying is allowed.
            return Some((from, from));
        }
    }
    snap_within(lo, lo, hi, integer, step).map(|_| (lo, hi))
}

/// Snaps `x` to the step grid and to whole numbers inside `[lo, hi]`; `None`
/// when no grid point lies inside.
fn snap_within(x: f64, lo: f64, hi: f64, integer: bool, step: Option<(f64, f64)>) -> Option<f64> {
    const TOL: f64 = 1e-9;
    let mut v = x.clamp(lo, hi);
    if let Some((origin, st)) = step {
        let kl = ((lo - origin) / st - TOL).ceil();
        let kh = ((hi - origin) / st + TOL).floor();
        if kl > kh {
            return None;
        }
        v = origin + ((v - origin) / st).round().clamp(kl, kh) * st;
    }
    if integer {
        let (il, ih) = ((lo - TOL).ceil(), (hi + TOL).floor());
        if il > ih {
            return None;
        }
        v = v.round().clamp(il, ih);
    }
    Some(v)
}

/// Snaps `x ∈ [lo, hi]` to the step grid and to whole numbers, staying inside `[lo, hi]`.
fn snap(x: f64, lo: f64, hi: f64, integer: bool, step: Option<(f64, f64)>) -> f64 {
    let mut v = x;
    if let Some((origin, st)) = step {
        let k = ((v - origin) / st).round();
        v = origin + k * st;
        if v > hi + 1e-9 {
            v -= st;
        }
        if v < lo - 1e-9 {
            v += st;
        }
    }
    if integer {
        v = v.round();
        if v > hi {
            v = hi.floor();
        }
        if v < lo {
            v = lo.ceil();
        }
    }
    if v < lo || v > hi {
        // No grid point inside [lo, hi]: keep the clamped value (the schema check decides).
        v = v.clamp(lo, hi);
    }
    v
}

/// Why an episode ended without a counterfactual.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Failure {
    /// The chosen feature was already changed in this episode (Panagiotou & Ntoutsi 2023: "re-using the same action").
    Reused,
    /// The new value breaks an actionability rule (direction, bounds, forbidden transition).
    Violation,
    /// All `K` steps (or the lowered budget, see [`Environment::set_max_steps`])
    /// were used without flipping the decision. Panagiotou & Ntoutsi 2023 does not
    /// say what happens then (seed-formulas §5.5); cfx treats it as a failure
    /// terminal with reward `Pen`, because every action left would re-use a
    /// feature, which the paper penalises with `Pen`.
    OutOfSteps,
}

/// What one step led to.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(tag = "outcome", content = "reason", rename_all = "snake_case")]
pub enum StepOutcome {
    Continue,
    Success,
    Failure(Failure),
}

impl StepOutcome {
    pub fn is_terminal(&self) -> bool {
        !matches!(self, StepOutcome::Continue)
    }
}

/// The result of [`Environment::step`].
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct StepResult {
    pub reward: f64,
    pub outcome: StepOutcome,
    /// Probability of the favourable outcome after the step (unchanged on a failure).
    pub probability: f64,
    /// The raw value before and after (equal when the step failed).
    pub from: f64,
    pub to: f64,
    /// `δ(x_t, x_{t+1})`: ℓ2 distance of the encoded rows before and after the step.
    pub distance: f64,
}

/// One applicant's episode: the environment of Panagiotou & Ntoutsi 2023 over one schema and model.
///
/// Reward choice for `δ` (Panagiotou & Ntoutsi 2023 eq. 2–3 are reconstructions, seed-formulas
/// §4.2): cfx uses the **per-step** distance `δ(x_t, x_{t+1}) = ‖x_{t+1} − x_t‖₂`
/// on the encoded rows. Summed over an episode it is the length of the path
/// the applicant walks, so every change is charged once, when it is made. The
/// alternative `δ(x_0, x_{t+1})` would charge the first change again at every
/// later step, so an episode's cost would depend on the *order* of the changes
/// and long plans would pay for early steps several times.
/// The success and failure terminals earn exactly `Pos` / `Pen` (no distance term).
///
/// Buffers are allocated once by [`Environment::new`]; `reset`/`step` never allocate
/// on a plain schema (except for the error text of an actionability violation);
/// on an advice schema a step's guard check copies the row once.
#[derive(Debug, Clone)]
pub struct Environment<'a> {
    schema: &'a Schema,
    model: &'a dyn Model,
    actions: ActionSpace,
    reward: RewardKind,
    params: RewardParams,
    raw0: Vec<f64>,
    raw: Vec<f64>,
    raw_next: Vec<f64>,
    x0: Vec<f64>,
    x: Vec<f64>,
    x_next: Vec<f64>,
    used: Vec<bool>,
    t: usize,
    p0: f64,
    p: f64,
    scratch: Vec<f64>,
    last_violation: Option<Error>,
    max_steps: usize,
    /// The features "wait" moves.
    time_features: Vec<usize>,
    /// The months the applicant may be advised to wait, 0 excluded
    /// ([`Schema::advisable_waits`]), set by `reset`: the wait action takes
    /// one of them. Time features are immutable to every other action and
    /// "wait" is taken at most once, so the applicant's own values are the
    /// ones a wait starts from.
    waits: Vec<u32>,
}

impl<'a> Environment<'a> {
    /// An environment over `schema` and `model` (whose input must be the schema's encoding).
    pub fn new(
        schema: &'a Schema,
        model: &'a dyn Model,
        reward: RewardKind,
        params: RewardParams,
    ) -> Result<Environment<'a>> {
        crate::model::check_model_for_schema(model, schema, "the schema")?;
        params.validate()?;
        if model.as_scorecard().is_some() {
            return Err(Error::InvalidArgument(
                "the sequential agent rewards and decides by probability > threshold; a points \
                 scorecard decides by points ≥ cutoff (and may have no probability): use the \
                 coherent MIP for its exact counterfactuals"
                    .into(),
            ));
        }
        let actions = ActionSpace::new(schema)?;
        let (n, d, k) = (schema.n_features(), schema.encoded_dim(), actions.len());
        Ok(Environment {
            schema,
            model,
            actions,
            reward,
            params,
            raw0: vec![0.0; n],
            raw: vec![0.0; n],
            raw_next: vec![0.0; n],
            x0: vec![0.0; d],
            x: vec![0.0; d],
            x_next: vec![0.0; d],
            used: vec![false; k],
            t: 0,
            p0: 0.0,
            p: 0.0,
            scratch: vec![0.0; model.scratch_len()],
            last_violation: None,
            max_steps: k,
            time_features: schema.time_features(),
            waits: Vec::with_capacity(schema.waiting().map_or(1, |w| w.max_months as usize + 1)),
        })
    }

    pub fn actions(&self) -> &ActionSpace {
        &self.actions
    }
    pub fn schema(&self) -> &Schema {
        self.schema
    }
    /// Length of the state vector `(x_t, b_t)`: encoded dimension + `K`.
    pub fn state_dim(&self) -> usize {
        self.schema.encoded_dim() + self.actions.len()
    }
    /// Step budget: `K` (Panagiotou & Ntoutsi 2023) unless lowered with [`Environment::set_max_steps`].
    pub fn max_steps(&self) -> usize {
        self.max_steps
    }
    /// Lowers the step budget below `K` (ReLAX uses 3); `None` or values above
    /// `K` mean `K`, the paper's budget (repeating a feature is a failure, so no
    /// episode can use more). A budget of 0 is refused.
    pub fn set_max_steps(&mut self, max_steps: Option<usize>) -> Result<()> {
        let k = self.actions.len();
        match max_steps {
            Some(0) => Err(Error::InvalidArgument(
                "max_steps must be at least 1".into(),
            )),
            Some(m) => {
                self.max_steps = m.min(k);
                Ok(())
            }
            None => {
                self.max_steps = k;
                Ok(())
            }
        }
    }
    /// Steps taken in the current episode.
    pub fn t(&self) -> usize {
        self.t
    }
    /// Current raw row.
    pub fn raw(&self) -> &[f64] {
        &self.raw
    }
    /// The applicant's raw row at the start of the episode.
    pub fn initial_raw(&self) -> &[f64] {
        &self.raw0
    }
    /// Current encoded row.
    pub fn encoded(&self) -> &[f64] {
        &self.x
    }
    /// The applicant's encoded row at the start.
    pub fn initial_encoded(&self) -> &[f64] {
        &self.x0
    }
    /// Current probability of the favourable outcome.
    pub fn probability(&self) -> f64 {
        self.p
    }
    /// Whether the current row is accepted by the model.
    pub fn accepted(&self) -> bool {
        self.p > self.model.threshold()
    }
    /// The actionability error of the last violating step, if any.
    pub fn last_violation(&self) -> Option<&Error> {
        self.last_violation.as_ref()
    }

    /// Whether the next row changes at most the schema's
    /// `max_features_changed` features by action, counted from the
    /// applicant's own row (the time features move only by waiting and are
    /// not counted). Allocation-free.
    fn within_cap(&self) -> Result<()> {
        let Some(cap) = self.schema.max_features_changed else {
            return Ok(());
        };
        let n = (0..self.raw0.len())
            .filter(|i| {
                !self.time_features.contains(i)
                    && (self.raw_next[*i] - self.raw0[*i]).abs() > crate::schema::COHERENCE_TOL
            })
            .count();
        if n > cap {
            return Err(Error::InvalidArgument(format!(
                "the plan changes {n} features, more than the {cap} one piece of advice may change (max_features_changed)"
            )));
        }
        Ok(())
    }

    /// Starts an episode at the raw row `raw` (validated and encoded).
    pub fn reset(&mut self, raw: &[f64]) -> Result<()> {
        check_len("raw row", self.schema.n_features(), raw.len())?;
        crate::error::check_finite("raw row", raw)?;
        self.schema.encode_into(raw, &mut self.x0)?;
        self.schema.advisable_waits_into(raw, &mut self.waits)?;
        self.waits.retain(|&m| m > 0);
        self.raw0.copy_from_slice(raw);
        self.raw.copy_from_slice(raw);
        self.x.copy_from_slice(&self.x0);
        self.used.fill(false);
        self.t = 0;
        self.p0 = self
            .model
            .probability_of_score(self.model.score_in(&self.x0, &mut self.scratch));
        self.p = self.p0;
        self.last_violation = None;
        Ok(())
    }

    /// Writes the state `s_t = (x_t, b_t)` into `out` ([`Environment::state_dim`] values).
    pub fn write_state(&self, out: &mut [f64]) {
        let d = self.x.len();
        out[..d].copy_from_slice(&self.x);
        for (o, &u) in out[d..].iter_mut().zip(&self.used) {
            *o = if u { 1.0 } else { 0.0 };
        }
    }

    /// Takes action `(k, u)`: sets feature `k` to the value `u` maps to (Panagiotou & Ntoutsi 2023 §3:
    /// `x_{t+1}[k] = u_k`, `b_{t+1}[k] += 1`). Terminal order: re-use, then
    /// actionability, then success, then the step budget.
    ///
    /// "Wait" (an extension for advice schemas; the paper has no waiting)
    /// moves every time feature by `m` months as [`Schema::after_waiting`]
    /// says, `m` = [`ActionSpace::months_among`]`(u, `the applicant's
    /// [`Schema::advisable_waits`]`)`; its result reports `from = 0`,
    /// `to = m`. Its `δ` is `cost_per_month·m`, the price the schema puts on
    /// time — the time features' own movement is the wait, not an effort, as
    /// in the exact engine's waiting advice — so `R^prob` earns
    /// `α·(P(s_{t+1}) − P(s_0)) − β·cost_per_month·m` on a non-terminal wait;
    /// every other reward is the paper's.
    pub fn step(&mut self, k: usize, u: f64) -> Result<StepResult> {
        if k >= self.actions.len() {
            return Err(Error::InvalidArgument(format!(
                "action {k} does not exist (there are {})",
                self.actions.len()
            )));
        }
        let fi = self.actions.feature(k);
        let from = fi.map_or(0.0, |i| self.raw[i]);
        let fail = |this: &mut Self, why: Failure| {
            this.t += 1;
            StepResult {
                reward: this.params.pen,
                outcome: StepOutcome::Failure(why),
                probability: this.p,
                from,
                to: from,
                distance: 0.0,
            }
        };
        if self.used[k] {
            return Ok(fail(self, Failure::Reused));
        }
        self.raw_next.copy_from_slice(&self.raw);
        let (to, months) = match fi {
            Some(i) => {
                let to = self.actions.value_within(self.schema, k, u, from);
                self.raw_next[i] = to;
                (to, 0)
            }
            None => {
                let months = self.actions.months_among(u, &self.waits);
                // Only an applicant who may not wait at all is refused (here,
                // or by `check_advice` below for a wait out of its advised
                // range; `months_among`): a violation, as any forbidden move.
                if let Err(e) =
                    self.schema
                        .after_waiting_into(&self.raw, months, &mut self.raw_next)
                {
                    self.last_violation = Some(e);
                    self.used[k] = true;
                    return Ok(fail(self, Failure::Violation));
                }
                (f64::from(months), months)
            }
        };
        // Change limits are measured from the applicant's own value; every
        // action is used once, so `from` is still that value (waiting moves
        // only the time features, which no other action touches).
        // On the paper's plain schema (no limits, no waiting) `check_advice`
        // adds nothing to `check_actionable`; it is skipped there, which keeps
        // that step allocation-free. On an advice schema every action is
        // allowed by construction and the check (one row copy) guards it.
        let checked = if months > 0 {
            self.schema.check_advice(&self.raw, &self.raw_next, months)
        } else {
            self.schema
                .check_actionable(&self.raw, &self.raw_next)
                .and_then(|()| {
                    if self.actions.within_advice() {
                        self.schema.check_advice(&self.raw, &self.raw_next, 0)
                    } else {
                        Ok(())
                    }
                })
        };
        // The schema's cap on features changed (issue 25) counts the whole
        // plan so far, from the applicant's own row.
        let checked = checked.and_then(|()| self.within_cap());
        if let Err(e) = checked {
            self.last_violation = Some(e);
            self.used[k] = true;
            return Ok(fail(self, Failure::Violation));
        }
        self.schema.encode_into(&self.raw_next, &mut self.x_next)?;
        let distance = match self.schema.waiting() {
            Some(w) if months > 0 => w.cost_per_month * f64::from(months),
            _ => self
                .x
                .iter()
                .zip(&self.x_next)
                .map(|(a, b)| (a - b) * (a - b))
                .sum::<f64>()
                .sqrt(),
        };
        std::mem::swap(&mut self.raw, &mut self.raw_next);
        std::mem::swap(&mut self.x, &mut self.x_next);
        self.used[k] = true;
        self.t += 1;
        self.p = self
            .model
            .probability_of_score(self.model.score_in(&self.x, &mut self.scratch));
        let (reward, outcome) = if self.p > self.model.threshold() {
            (self.params.pos, StepOutcome::Success)
        } else if self.t >= self.max_steps {
            (self.params.pen, StepOutcome::Failure(Failure::OutOfSteps))
        } else {
            let shaped = match self.reward {
                RewardKind::Binary => 0.0,
                RewardKind::Probability => self.params.alpha * (self.p - self.p0),
            };
            (shaped - self.params.beta * distance, StepOutcome::Continue)
        };
        Ok(StepResult {
            reward,
            outcome,
            probability: self.p,
            from,
            to,
            distance,
        })
    }
}
