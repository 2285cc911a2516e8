//! P-DQN (Xiong et al. 2018) over the hybrid action space of Panagiotou & Ntoutsi 2023, as
//! ReLAX (Panagiotou & Ntoutsi 2023's reference [3]) uses it: the training
//! settings, the replay buffer, the learner and the trainer. The trained
//! [`Policy`], its file and its rollouts are `policy.rs`.

use super::env::{Environment, RewardKind, RewardParams, StepOutcome};
use super::policy::{POLICY_FORMAT_VERSION, Policy};
use crate::error::{Error, Result, check_len};
use crate::model::Model;
use crate::nn::{Activation, Adam, Cache, Gradients, Network};
use crate::schema::Schema;
use rand::{Rng, SeedableRng};
use rand_xoshiro::Xoshiro256PlusPlus;
use serde::{Deserialize, Serialize};

/// P-DQN training settings.
///
/// Defaults are the **ReLAX / CARLA-port** values (`conf/agent/pdqm.yaml`,
/// seed-formulas §4.3), not Panagiotou & Ntoutsi 2023's own (which were not found), except the
/// episode budget, which is Panagiotou & Ntoutsi 2023's 40,000. Differences from ReLAX, chosen
/// for a small deterministic implementation and documented here:
/// * uniform replay (ReLAX uses prioritised replay with priority 0.1);
/// * single-pass P-DQN (ReLAX sets `multipass`, i.e. MP-DQN);
/// * constant learning rates (ReLAX decays them towards 1e-5 on an unstated schedule);
/// * the actor-parameter network's output layer keeps its random initialisation
///   (ReLAX's `initialise_params` sets it from fixed values).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct PdqnConfig {
    /// Training episodes (Panagiotou & Ntoutsi 2023: 40,000).
    pub episodes: usize,
    /// Hidden layer sizes of both networks (ReLAX: `[128]`).
    pub hidden: Vec<usize>,
    /// Minibatch size (64).
    pub batch_size: usize,
    /// Adam learning rate of the Q network (ReLAX `lr_actor` 1e-3).
    pub lr_q: f64,
    /// Adam learning rate of the actor-parameter network (ReLAX `lr_actor_param` 1e-3).
    pub lr_param: f64,
    /// Discount γ (0.8).
    pub gamma: f64,
    /// Gradient-norm clipping of both networks (10).
    pub clip_grad: f64,
    /// ε-greedy: initial and final ε, and environment steps of the linear decay (0.8 → 0.35 over 60,000).
    pub epsilon_start: f64,
    pub epsilon_final: f64,
    pub epsilon_steps: usize,
    /// Polyak factors of the target networks (τ_Q 0.01, τ_param 0.001).
    pub tau_q: f64,
    pub tau_param: f64,
    /// Replay capacity (80,000) and the number of stored transitions before learning starts (3,666).
    pub replay_capacity: usize,
    pub initial_memory: usize,
    /// One gradient update every this many environment steps (1, as P-DQN).
    pub update_every: usize,
    /// Call the progress callback every this many episodes (the last episode always reports).
    pub progress_every: usize,
    /// Step budget per episode; `None` = `K`, the number of mutable features (Panagiotou & Ntoutsi 2023).
    pub max_steps: Option<usize>,
    /// The seed of every random draw (ReLAX: 42).
    pub seed: u64,
}

impl Default for PdqnConfig {
    fn default() -> Self {
        PdqnConfig {
            episodes: 40_000,
            hidden: vec![128],
            batch_size: 64,
            lr_q: 1e-3,
            lr_param: 1e-3,
            gamma: 0.8,
            clip_grad: 10.0,
            epsilon_start: 0.8,
            epsilon_final: 0.35,
            epsilon_steps: 60_000,
            tau_q: 0.01,
            tau_param: 0.001,
            replay_capacity: 80_000,
            initial_memory: 3_666,
            update_every: 1,
            progress_every: 100,
            max_steps: None,
            seed: 42,
        }
    }
}

impl PdqnConfig {
    fn validate(&self) -> Result<()> {
        let bad = |m: &str| Err(Error::InvalidArgument(format!("P-DQN config: {m}")));
        crate::error::check_finite(
            "P-DQN config",
            &[
                self.lr_q,
                self.lr_param,
                self.gamma,
                self.clip_grad,
                self.epsilon_start,
                self.epsilon_final,
                self.tau_q,
                self.tau_param,
            ],
        )?;
        if self.episodes == 0 {
            return bad("episodes must be positive");
        }
        if self.hidden.contains(&0) {
            return bad("hidden layer sizes must be positive");
        }
        if self.batch_size == 0 || self.replay_capacity < self.batch_size {
            return bad("batch_size must be positive and at most replay_capacity");
        }
        if self.lr_q <= 0.0 || self.lr_param <= 0.0 || self.clip_grad <= 0.0 {
            return bad("learning rates and clip_grad must be positive");
        }
        if !(0.0..=1.0).contains(&self.gamma) {
            return bad("gamma must lie in [0, 1]");
        }
        let unit = |v: f64| (0.0..=1.0).contains(&v);
        if !unit(self.epsilon_start)
            || !unit(self.epsilon_final)
            || !unit(self.tau_q)
            || !unit(self.tau_param)
        {
            return bad("epsilons and Polyak factors must lie in [0, 1]");
        }
        if self.max_steps == Some(0) {
            return bad("max_steps must be at least 1");
        }
        if self.update_every == 0 || self.progress_every == 0 {
            return bad("update_every and progress_every must be positive");
        }
        Ok(())
    }

    /// ε after `steps` environment steps (linear decay, then constant).
    pub fn epsilon(&self, steps: usize) -> f64 {
        if steps >= self.epsilon_steps {
            self.epsilon_final
        } else {
            let f = steps as f64 / self.epsilon_steps as f64;
            self.epsilon_start + (self.epsilon_final - self.epsilon_start) * f
        }
    }
}

/// Training progress, reported through the callback of [`train`].
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Progress {
    pub episodes_done: usize,
    pub episodes_total: usize,
    /// Environment steps so far.
    pub steps: usize,
    /// Current exploration rate.
    pub epsilon: f64,
    /// Fraction of successful episodes since the previous report.
    pub success_rate: f64,
    /// Mean undiscounted episode return since the previous report.
    pub mean_reward: f64,
}

/// What [`train`] returns: the policy and every progress report.
#[derive(Debug, Clone)]
pub struct Training {
    pub policy: Policy,
    pub history: Vec<Progress>,
}

/// Flat ring buffer of transitions.
struct Replay {
    cap: usize,
    sd: usize,
    k: usize,
    len: usize,
    next: usize,
    states: Vec<f64>,
    next_states: Vec<f64>,
    params: Vec<f64>,
    actions: Vec<usize>,
    rewards: Vec<f64>,
    dones: Vec<bool>,
}

impl Replay {
    fn new(cap: usize, sd: usize, k: usize) -> Replay {
        Replay {
            cap,
            sd,
            k,
            len: 0,
            next: 0,
            states: Vec::new(),
            next_states: Vec::new(),
            params: Vec::new(),
            actions: Vec::new(),
            rewards: Vec::new(),
            dones: Vec::new(),
        }
    }

    fn push(&mut self, s: &[f64], a: usize, p: &[f64], r: f64, s2: &[f64], done: bool) {
        if self.len < self.cap {
            self.states.extend_from_slice(s);
            self.next_states.extend_from_slice(s2);
            self.params.extend_from_slice(p);
            self.actions.push(a);
            self.rewards.push(r);
            self.dones.push(done);
            self.len += 1;
        } else {
            let i = self.next;
            self.states[i * self.sd..(i + 1) * self.sd].copy_from_slice(s);
            self.next_states[i * self.sd..(i + 1) * self.sd].copy_from_slice(s2);
            self.params[i * self.k..(i + 1) * self.k].copy_from_slice(p);
            self.actions[i] = a;
            self.rewards[i] = r;
            self.dones[i] = done;
        }
        self.next = (self.next + 1) % self.cap;
    }
}

/// The learner's state: networks, targets, optimisers and scratch buffers
/// (allocated once; a training step allocates nothing).
struct Learner {
    cfg: PdqnConfig,
    sd: usize,
    k: usize,
    actor: Network,
    actor_target: Network,
    q: Network,
    q_target: Network,
    adam_actor: Adam,
    adam_q: Adam,
    actor_cache: Cache,
    q_cache: Cache,
    g_actor: Gradients,
    g_q: Gradients,
    g_q_unused: Gradients,
    q_in: Vec<f64>,
    d_q_in: Vec<f64>,
    d_out: Vec<f64>,
    out_k: Vec<f64>,
    scratch: Vec<f64>,
    batch: Vec<usize>,
}

fn sizes(n_in: usize, hidden: &[usize], n_out: usize) -> Vec<usize> {
    let mut s = vec![n_in];
    s.extend_from_slice(hidden);
    s.push(n_out);
    s
}

/// Deterministic sub-seeds of one user seed (SplitMix64 step).
fn sub_seed(seed: u64, i: u64) -> u64 {
    let mut z = seed.wrapping_add(0x9E37_79B9_7F4A_7C15_u64.wrapping_mul(i + 1));
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

impl Learner {
    fn new(cfg: &PdqnConfig, sd: usize, k: usize) -> Learner {
        let actor = Network::new(
            &sizes(sd, &cfg.hidden, k),
            Activation::Relu,
            Activation::Tanh,
            sub_seed(cfg.seed, 1),
        );
        let q = Network::new(
            &sizes(sd + k, &cfg.hidden, k),
            Activation::Relu,
            Activation::Identity,
            sub_seed(cfg.seed, 2),
        );
        let width = actor.scratch_len().max(q.scratch_len());
        Learner {
            cfg: cfg.clone(),
            sd,
            k,
            adam_actor: Adam::new(&actor, cfg.lr_param),
            adam_q: Adam::new(&q, cfg.lr_q),
            actor_cache: actor.cache(),
            q_cache: q.cache(),
            g_actor: actor.gradients(),
            g_q: q.gradients(),
            g_q_unused: q.gradients(),
            actor_target: actor.clone(),
            q_target: q.clone(),
            actor,
            q,
            q_in: vec![0.0; sd + k],
            d_q_in: vec![0.0; sd + k],
            d_out: vec![0.0; k],
            out_k: vec![0.0; k],
            scratch: vec![0.0; width],
            batch: vec![0; cfg.batch_size],
        }
    }

    /// Greedy action and all parameters for state `s` (written into `params`).
    fn greedy(&mut self, s: &[f64], params: &mut [f64]) -> usize {
        greedy_action(
            &self.actor,
            &self.q,
            s,
            params,
            &mut self.q_in,
            &mut self.out_k,
            &mut self.scratch,
        )
    }

    /// One P-DQN update from a uniform minibatch: the Q network's TD step, then
    /// the actor-parameter step ascending `Σ_k Q(s, x_param(s))_k`, then Polyak targets.
    fn learn(&mut self, replay: &Replay, rng: &mut Xoshiro256PlusPlus) {
        let (sd, k) = (self.sd, self.k);
        let b = self.cfg.batch_size;
        for j in 0..b {
            self.batch[j] = rng.random_range(0..replay.len);
        }
        let inv_b = 1.0 / b as f64;
        // --- Q network: ½(Q(s, x_a)_a − y)², y = r + γ(1 − done)·max_k Q'(s', x'(s'))_k.
        self.g_q.zero();
        for j in 0..b {
            let i = self.batch[j];
            let next = (!replay.dones[i]).then(|| &replay.next_states[i * sd..(i + 1) * sd]);
            let y = td_target(
                (&self.actor_target, &self.q_target),
                self.cfg.gamma,
                replay.rewards[i],
                next,
                &mut self.q_in,
                &mut self.out_k,
                &mut self.scratch,
            );
            self.q_in[..sd].copy_from_slice(&replay.states[i * sd..(i + 1) * sd]);
            self.q_in[sd..].copy_from_slice(&replay.params[i * k..(i + 1) * k]);
            let a = replay.actions[i];
            let qa = self.q.forward_cached(&self.q_in, &mut self.q_cache)[a];
            self.d_out.fill(0.0);
            self.d_out[a] = (qa - y) * inv_b;
            self.q.backward(
                &self.q_in,
                &mut self.q_cache,
                &self.d_out,
                &mut self.g_q,
                None,
            );
        }
        self.g_q.clip_norm(self.cfg.clip_grad);
        self.adam_q.step(&mut self.q, &self.g_q);
        // --- actor-parameter network: minimise −Σ_k Q(s, x_param(s))_k.
        self.g_actor.zero();
        for j in 0..b {
            let i = self.batch[j];
            let s = &replay.states[i * sd..(i + 1) * sd];
            let xp = self.actor.forward_cached(s, &mut self.actor_cache);
            self.q_in[..sd].copy_from_slice(s);
            self.q_in[sd..].copy_from_slice(xp);
            self.q.forward_cached(&self.q_in, &mut self.q_cache);
            self.d_out.fill(-inv_b);
            self.q.backward(
                &self.q_in,
                &mut self.q_cache,
                &self.d_out,
                &mut self.g_q_unused,
                Some(&mut self.d_q_in),
            );
            self.actor.backward(
                s,
                &mut self.actor_cache,
                &self.d_q_in[sd..],
                &mut self.g_actor,
                None,
            );
        }
        self.g_actor.clip_norm(self.cfg.clip_grad);
        self.adam_actor.step(&mut self.actor, &self.g_actor);
        self.q_target.soft_update(&self.q, self.cfg.tau_q);
        self.actor_target
            .soft_update(&self.actor, self.cfg.tau_param);
    }
}

/// The target of P-DQN's Q step (Xiong et al. 2018, Algorithm 1):
/// `y = r` for a terminal transition (`next = None`), otherwise
/// `y = r + γ·max_k Q'(s', x'(s'))_k` with the target networks
/// `targets = (actor-parameter network x', Q network Q')` at the next state s'.
/// `q_in`, `out_k` and `scratch` are caller buffers (sizes as in [`Learner`]).
pub(crate) fn td_target(
    targets: (&Network, &Network),
    gamma: f64,
    reward: f64,
    next: Option<&[f64]>,
    q_in: &mut [f64],
    out_k: &mut [f64],
    scratch: &mut [f64],
) -> f64 {
    let Some(s2) = next else {
        return reward;
    };
    let (actor, q) = targets;
    let sd = s2.len();
    q_in[..sd].copy_from_slice(s2);
    actor.forward_in(s2, &mut q_in[sd..], scratch);
    q.forward_in(q_in, out_k, scratch);
    let m = out_k.iter().cloned().fold(f64::NEG_INFINITY, f64::max);
    reward + gamma * m
}

/// `argmax_k Q(s, x_param(s))_k`, writing `x_param(s)` into `params`. Never allocates.
pub(super) fn greedy_action(
    actor: &Network,
    q: &Network,
    s: &[f64],
    params: &mut [f64],
    q_in: &mut [f64],
    out_k: &mut [f64],
    scratch: &mut [f64],
) -> usize {
    let sd = s.len();
    actor.forward_in(s, params, scratch);
    q_in[..sd].copy_from_slice(s);
    q_in[sd..].copy_from_slice(params);
    q.forward_in(q_in, out_k, scratch);
    let mut best = 0;
    for (j, &v) in out_k.iter().enumerate() {
        if v > out_k[best] {
            best = j;
        }
    }
    best
}

/// How an episode ended, as reported by [`Trainer::step`].
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct EpisodeEnd {
    pub outcome: StepOutcome,
    /// Undiscounted return of the episode.
    pub reward: f64,
    /// Steps the episode took.
    pub steps: usize,
}

/// P-DQN training, one environment step at a time (what [`train`] loops over;
/// public so benchmarks and callers with their own loop can drive it).
pub struct Trainer<'a> {
    env: Environment<'a>,
    rows: &'a [Vec<f64>],
    declined: Vec<usize>,
    learner: Learner,
    replay: Replay,
    rng: Xoshiro256PlusPlus,
    s: Vec<f64>,
    s2: Vec<f64>,
    params: Vec<f64>,
    steps: usize,
    episodes: usize,
    in_episode: bool,
    ret: f64,
    ep_steps: usize,
    reward: RewardKind,
    reward_params: RewardParams,
}

impl<'a> Trainer<'a> {
    /// A trainer on the declined applicants among `rows` (raw rows); refuses bad
    /// settings, malformed rows, and training sets without a declined applicant.
    pub fn new(
        schema: &'a Schema,
        model: &'a dyn Model,
        rows: &'a [Vec<f64>],
        reward: RewardKind,
        reward_params: RewardParams,
        config: &PdqnConfig,
    ) -> Result<Trainer<'a>> {
        config.validate()?;
        let mut env = Environment::new(schema, model, reward, reward_params)?;
        env.set_max_steps(config.max_steps)?;
        let mut scratch = vec![0.0; model.scratch_len()];
        let mut enc = vec![0.0; schema.encoded_dim()];
        let mut declined = Vec::new();
        for (r, row) in rows.iter().enumerate() {
            check_len(&format!("raw row {r}"), schema.n_features(), row.len())?;
            crate::error::check_finite(&format!("raw row {r}"), row)?;
            schema.encode_into(row, &mut enc)?;
            if model.probability_of_score(model.score_in(&enc, &mut scratch)) <= model.threshold() {
                declined.push(r);
            }
        }
        if declined.is_empty() {
            return Err(Error::InvalidArgument(
                "no declined applicant among the training rows: nothing to learn".into(),
            ));
        }
        let sd = env.state_dim();
        let k = env.actions().len();
        // Both networks' sizes, refused when absurd before anything is allocated.
        crate::nn::check_sizes(&sizes(sd, &config.hidden, k))?;
        crate::nn::check_sizes(&sizes(sd + k, &config.hidden, k))?;
        Ok(Trainer {
            learner: Learner::new(config, sd, k),
            replay: Replay::new(config.replay_capacity, sd, k),
            rng: Xoshiro256PlusPlus::seed_from_u64(sub_seed(config.seed, 3)),
            s: vec![0.0; sd],
            s2: vec![0.0; sd],
            params: vec![0.0; k],
            steps: 0,
            episodes: 0,
            in_episode: false,
            ret: 0.0,
            ep_steps: 0,
            env,
            rows,
            declined,
            reward,
            reward_params,
        })
    }

    /// Environment steps taken so far.
    pub fn steps(&self) -> usize {
        self.steps
    }
    /// Episodes finished so far.
    pub fn episodes(&self) -> usize {
        self.episodes
    }
    /// Current exploration rate.
    pub fn epsilon(&self) -> f64 {
        self.learner.cfg.epsilon(self.steps)
    }

    /// One environment step (starting an episode on a uniformly drawn declined
    /// applicant when none is running), stored in the replay buffer, followed by
    /// one P-DQN update once the buffer holds `initial_memory` transitions.
    /// Returns how the episode ended when this step ended it.
    pub fn step(&mut self) -> Result<Option<EpisodeEnd>> {
        let cfg = &self.learner.cfg;
        if !self.in_episode {
            let r = self.declined[self.rng.random_range(0..self.declined.len())];
            self.env.reset(&self.rows[r])?;
            self.env.write_state(&mut self.s);
            self.in_episode = true;
            self.ret = 0.0;
            self.ep_steps = 0;
        }
        let k = self.params.len();
        let eps = cfg.epsilon(self.steps);
        let a = if self.rng.random::<f64>() < eps {
            for p in self.params.iter_mut() {
                *p = self.rng.random_range(-1.0..=1.0);
            }
            self.rng.random_range(0..k)
        } else {
            self.learner.greedy(&self.s, &mut self.params)
        };
        let res = self.env.step(a, self.params[a])?;
        self.env.write_state(&mut self.s2);
        let done = res.outcome.is_terminal();
        self.replay
            .push(&self.s, a, &self.params, res.reward, &self.s2, done);
        self.ret += res.reward;
        self.steps += 1;
        self.ep_steps += 1;
        let cfg = &self.learner.cfg;
        // Learning starts once `initial_memory` transitions are stored (at most a full buffer).
        let start = cfg
            .initial_memory
            .max(cfg.batch_size)
            .min(cfg.replay_capacity);
        if self.replay.len >= start && self.steps % cfg.update_every == 0 {
            self.learner.learn(&self.replay, &mut self.rng);
        }
        std::mem::swap(&mut self.s, &mut self.s2);
        if done {
            self.in_episode = false;
            self.episodes += 1;
            return Ok(Some(EpisodeEnd {
                outcome: res.outcome,
                reward: self.ret,
                steps: self.ep_steps,
            }));
        }
        Ok(None)
    }

    /// Runs steps until the current (or next) episode ends.
    pub fn episode(&mut self) -> Result<EpisodeEnd> {
        loop {
            if let Some(e) = self.step()? {
                return Ok(e);
            }
        }
    }

    /// The policy as trained so far.
    pub fn policy(&self) -> Policy {
        let schema = self.env.schema();
        Policy {
            format_version: POLICY_FORMAT_VERSION,
            action_features: self.env.actions().names(schema),
            encoded_dim: schema.encoded_dim(),
            reward: self.reward,
            reward_params: self.reward_params,
            config: self.learner.cfg.clone(),
            actor_param: self.learner.actor.clone(),
            q: self.learner.q.clone(),
        }
    }
}

/// Trains a P-DQN policy on the declined applicants among `rows` (raw rows),
/// one uniformly drawn applicant per episode, for `config.episodes` episodes.
///
/// `progress` is called every `config.progress_every` episodes and after the
/// last one; returning `false` stops training and `train` returns
/// [`Error::Cancelled`] (no partial policy: a half-trained policy is not
/// something to hand to applicants; a caller who wants one drives a [`Trainer`]).
///
/// Everything random (network initialisation, applicant draws, exploration,
/// minibatches) comes from `config.seed`: the same inputs and seed give the same
/// policy bits.
pub fn train(
    schema: &Schema,
    model: &dyn Model,
    rows: &[Vec<f64>],
    reward: RewardKind,
    reward_params: RewardParams,
    config: &PdqnConfig,
    mut progress: impl FnMut(&Progress) -> bool,
) -> Result<Training> {
    let mut tr = Trainer::new(schema, model, rows, reward, reward_params, config)?;
    let mut history = Vec::new();
    let (mut window_n, mut window_succ, mut window_ret) = (0usize, 0usize, 0.0);
    for ep in 0..config.episodes {
        let end = tr.episode()?;
        window_n += 1;
        window_ret += end.reward;
        if end.outcome == StepOutcome::Success {
            window_succ += 1;
        }
        if (ep + 1) % config.progress_every == 0 || ep + 1 == config.episodes {
            let p = Progress {
                episodes_done: ep + 1,
                episodes_total: config.episodes,
                steps: tr.steps(),
                epsilon: tr.epsilon(),
                success_rate: window_succ as f64 / window_n as f64,
                mean_reward: window_ret / window_n as f64,
            };
            history.push(p);
            (window_n, window_succ, window_ret) = (0, 0, 0.0);
            if !progress(&p) {
                return Err(Error::Cancelled(format!(
                    "training stopped by the progress callback after {} of {} episodes",
                    ep + 1,
                    config.episodes
                )));
            }
        }
    }
    Ok(Training {
        policy: tr.policy(),
        history,
    })
}
