//! The sequential-counterfactual environment of seed 003 (§4.1 of
//! `seed-formulas.md`): state `s_t = (x_t, b_t)`, action `a_t = (k, u_k)`,
//! rewards `R^bin` and `R^prob` (§4.2).

use crate::error::{Error, Result, check_len};
use crate::model::{Model, sigmoid};
use crate::schema::{FeatureKind, Schema};
use serde::{Deserialize, Serialize};

/// Which reward of seed 003 the agent learns from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum RewardKind {
    /// `R^bin` (seed 003, eq. 2): Pos on success, Pen on failure, `−β·δ` otherwise.
    Binary,
    /// `R^prob` (seed 003, eq. 3): as `R^bin`, but a non-terminal step earns
    /// `α·(P(s_{t+1}) − P(s_0)) − β·δ`.
    Probability,
}

/// The constants of seed 003's rewards.
///
/// The paper sets `(α, β) = (10, 1)`, `Pos = α·thr = 5` with `thr = 0.5`, and
/// `Pen = −2·Pos = −10` (seed 003, §4 "Experimental setup").
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

/// The discrete half of the hybrid action space: one action per mutable raw
/// feature, each with its own map from `u ∈ [−1, 1]` to a raw value.
///
/// # Parameter mapping (documented choice; seed 003 only says `x_{t+1}[k] = u_k`)
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
/// Direction rules are not built into the map: a move against the allowed
/// direction is a failure terminal, as the paper's "violating a feature constraint".
#[derive(Debug, Clone, PartialEq)]
pub struct ActionSpace {
    pub(crate) features: Vec<usize>,
    pub(crate) maps: Vec<ActionMap>,
}

impl ActionSpace {
    /// One action per mutable feature of `schema`, in schema order.
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
        if features.is_empty() {
            return Err(Error::InvalidArgument(
                "the schema has no mutable feature: there is no action to take".into(),
            ));
        }
        Ok(ActionSpace { features, maps })
    }

    /// Number of discrete actions `K` (= mutable features = the step budget).
    pub fn len(&self) -> usize {
        self.features.len()
    }

    /// Always false: a space is built only with at least one action.
    pub fn is_empty(&self) -> bool {
        self.features.is_empty()
    }

    /// The raw feature index behind action `k`.
    pub fn feature(&self, k: usize) -> usize {
        self.features[k]
    }

    /// The raw feature indices of all actions.
    pub fn features(&self) -> &[usize] {
        &self.features
    }

    /// The raw value action `k` with parameter `u` sets (see the type docs).
    /// `u` is clamped to `[−1, 1]`; a NaN parameter maps to `u = −1`.
    pub fn value(&self, k: usize, u: f64) -> f64 {
        let u = if u.is_nan() { -1.0 } else { u.clamp(-1.0, 1.0) };
        let v = (u + 1.0) / 2.0;
        let segment = |m: usize| -> (usize, f64) {
            let s = v * m as f64;
            let j = (s.floor() as usize).min(m - 1);
            (j, (s - j as f64).clamp(0.0, 1.0))
        };
        match &self.maps[k] {
            ActionMap::Contiguous {
                lo,
                hi,
                integer,
                step,
                special_codes,
            } => {
                let (j, tau) = segment(1 + special_codes.len());
                if j > 0 {
                    return special_codes[j - 1];
                }
                snap(lo + tau * (hi - lo), *lo, *hi, *integer, *step)
            }
            ActionMap::Categorical { n } => segment(*n).0 as f64,
        }
    }
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
    /// The chosen feature was already changed in this episode (seed 003: "re-using the same action").
    Reused,
    /// The new value breaks an actionability rule (direction, bounds, forbidden transition).
    Violation,
    /// All `K` steps (or the lowered budget, see [`Environment::set_max_steps`])
    /// were used without flipping the decision. Seed 003 does not
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

/// One applicant's episode: the environment of seed 003 over one schema and model.
///
/// Reward choice for `δ` (seed 003 eq. 2–3 are reconstructions, seed-formulas
/// §4.2): cfx uses the **per-step** distance `δ(x_t, x_{t+1}) = ‖x_{t+1} − x_t‖₂`
/// on the encoded rows. Summed over an episode it is the length of the path
/// the applicant walks, so every change is charged once, when it is made. The
/// alternative `δ(x_0, x_{t+1})` would charge the first change again at every
/// later step, so an episode's cost would depend on the *order* of the changes
/// and long plans would pay for early steps several times.
/// The success and failure terminals earn exactly `Pos` / `Pen` (no distance term).
///
/// Buffers are allocated once by [`Environment::new`]; `reset`/`step` never allocate
/// (except for the error text of an actionability violation).
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
}

impl<'a> Environment<'a> {
    /// An environment over `schema` and `model` (whose input must be the schema's encoding).
    pub fn new(
        schema: &'a Schema,
        model: &'a dyn Model,
        reward: RewardKind,
        params: RewardParams,
    ) -> Result<Environment<'a>> {
        check_len(
            "model input vs schema encoded dimension",
            schema.encoded_dim(),
            model.input_dim(),
        )?;
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
    /// Step budget: `K` (seed 003) unless lowered with [`Environment::set_max_steps`].
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

    /// Starts an episode at the raw row `raw` (validated and encoded).
    pub fn reset(&mut self, raw: &[f64]) -> Result<()> {
        check_len("raw row", self.schema.n_features(), raw.len())?;
        crate::error::check_finite("raw row", raw)?;
        self.schema.encode_into(raw, &mut self.x0)?;
        self.raw0.copy_from_slice(raw);
        self.raw.copy_from_slice(raw);
        self.x.copy_from_slice(&self.x0);
        self.used.fill(false);
        self.t = 0;
        self.p0 = sigmoid(self.model.score_in(&self.x0, &mut self.scratch));
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

    /// Takes action `(k, u)`: sets feature `k` to the value `u` maps to (seed 003 §3:
    /// `x_{t+1}[k] = u_k`, `b_{t+1}[k] += 1`). Terminal order: re-use, then
    /// actionability, then success, then the step budget.
    pub fn step(&mut self, k: usize, u: f64) -> Result<StepResult> {
        if k >= self.actions.len() {
            return Err(Error::InvalidArgument(format!(
                "action {k} does not exist (there are {})",
                self.actions.len()
            )));
        }
        let fi = self.actions.feature(k);
        let from = self.raw[fi];
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
        let to = self.actions.value(k, u);
        self.raw_next.copy_from_slice(&self.raw);
        self.raw_next[fi] = to;
        // Change limits are measured from the applicant's own value; every
        // action is used once, so `from` is still that value.
        let checked = self
            .schema
            .check_actionable(&self.raw, &self.raw_next)
            .and_then(|()| self.schema.check_advice(&self.raw, &self.raw_next, 0));
        if let Err(e) = checked {
            self.last_violation = Some(e);
            self.used[k] = true;
            return Ok(fail(self, Failure::Violation));
        }
        self.schema.encode_into(&self.raw_next, &mut self.x_next)?;
        let distance = self
            .x
            .iter()
            .zip(&self.x_next)
            .map(|(a, b)| (a - b) * (a - b))
            .sum::<f64>()
            .sqrt();
        std::mem::swap(&mut self.raw, &mut self.raw_next);
        std::mem::swap(&mut self.x, &mut self.x_next);
        self.used[k] = true;
        self.t += 1;
        self.p = sigmoid(self.model.score_in(&self.x, &mut self.scratch));
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
