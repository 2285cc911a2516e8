//! A trained P-DQN policy (Panagiotou & Ntoutsi 2023) and what it is used
//! for: its JSON file ([`Policy::to_json`], [`Policy::from_json`]), greedy
//! rollouts that allocate nothing after the first ([`Policy::rollout_in`]) and
//! the plan of steps in the data's own words ([`Plan`]). Training the policy is
//! `agent.rs`; a policy file is read without it.

use super::agent::{PdqnConfig, greedy_action};
use super::env::{ActionSpace, Environment, Failure, RewardKind, RewardParams, StepOutcome};
use crate::error::{Error, Result, check_len};
use crate::model::Model;
use crate::nn::Network;
use crate::schema::Schema;
use serde::{Deserialize, Serialize};

/// Version of the policy JSON format written by [`Policy::to_json`].
pub const POLICY_FORMAT_VERSION: u32 = 1;

/// A trained policy: the actor-parameter and Q networks of P-DQN, the action
/// features it was trained on, and how it was trained.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Policy {
    pub format_version: u32,
    /// Names of the actions: the schema's mutable features, in order, then
    /// [`super::WAIT_ACTION`] when the schema declares waiting.
    pub action_features: Vec<String>,
    /// Encoded dimension of the schema the policy was trained on.
    pub encoded_dim: usize,
    pub reward: RewardKind,
    pub reward_params: RewardParams,
    pub config: PdqnConfig,
    /// State → one parameter per action (tanh output).
    pub actor_param: Network,
    /// State ⊕ all parameters → one Q-value per action.
    pub q: Network,
}

/// One step of a policy's plan, in the data's own words.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PlanStep {
    /// Raw feature index and name. A wait step moves no single feature: its
    /// index is the schema's number of features and its name
    /// [`super::WAIT_ACTION`]; `waited` lists what time moved.
    pub feature: usize,
    pub name: String,
    /// The raw value before and after; for a wait step `0` and the months.
    pub from: f64,
    pub to: f64,
    pub from_text: String,
    pub to_text: String,
    /// Probability of the favourable outcome after the step.
    pub probability: f64,
    /// False when the step set the value the feature already had (a legal but
    /// idle step: the policy spends one of its `K` steps on it).
    pub changed: bool,
    /// What the step led to.
    pub outcome: StepOutcome,
    /// Months waited (0 for a feature step).
    #[serde(default, skip_serializing_if = "is_zero")]
    pub months: u32,
    /// The time features a wait step moved, from → to.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub waited: Vec<crate::schema::Change>,
}

fn is_zero(m: &u32) -> bool {
    *m == 0
}

fn is_zero_usize(m: &usize) -> bool {
    *m == 0
}

impl PlanStep {
    /// The step in words: `"credit_amount: 5000 → 4000"`, or for a wait
    /// `"wait 9 months: MSinceMostRecentDelq 15 → 24, …"`.
    pub fn text(&self) -> String {
        if self.months == 0 {
            return format!("{}: {} → {}", self.name, self.from_text, self.to_text);
        }
        let moved: Vec<String> = self
            .waited
            .iter()
            .map(|c| format!("{} {} → {}", c.name, c.from_text, c.to_text))
            .collect();
        let unit = if self.months == 1 { "month" } else { "months" };
        if moved.is_empty() {
            format!(
                "{WAIT} {} {unit}: nothing moves",
                self.months,
                WAIT = super::WAIT_ACTION
            )
        } else {
            format!(
                "{WAIT} {} {unit}: {}",
                self.months,
                moved.join(", "),
                WAIT = super::WAIT_ACTION
            )
        }
    }
}

/// A policy's answer to one applicant: the steps it takes, in order.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Plan {
    /// Probability of the favourable outcome before any step.
    pub initial_probability: f64,
    /// The steps that change something; a step that set the value a feature
    /// already had (or waited without moving anything) is not shown.
    pub steps: Vec<PlanStep>,
    /// Steps the policy took that changed nothing (dropped from `steps`).
    #[serde(default, skip_serializing_if = "is_zero_usize")]
    pub idle_steps: usize,
    /// True when the last step flipped the decision (or the applicant was already accepted).
    pub success: bool,
    /// True when the applicant was accepted as they are (no steps).
    pub already_accepted: bool,
    /// The raw row after the last applied step.
    pub final_row: Vec<f64>,
    /// The reason of an actionability violation, when the plan ended on one.
    pub violation: Option<String>,
    /// Plausibility flags of the values the plan changed (final row against
    /// the applicant); empty until annotated ([`Plan::assess_plausibility`]).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub plausibility: Vec<crate::plausibility::PlausibilityFlag>,
}

impl Plan {
    /// Fills the plausibility flags (issue 16); `factual` is the applicant's raw row.
    pub fn assess_plausibility(
        &mut self,
        schema: &crate::schema::Schema,
        factual: &[f64],
        ranges: &crate::plausibility::Plausibility,
    ) -> crate::error::Result<()> {
        self.plausibility = ranges.assess(schema, factual, &self.final_row)?;
        Ok(())
    }
}

/// Scratch of [`Policy::rollout_in`]; build once per thread with [`Policy::workspace`].
#[derive(Debug, Clone)]
pub struct PolicyWorkspace {
    state: Vec<f64>,
    params: Vec<f64>,
    q_in: Vec<f64>,
    out_k: Vec<f64>,
    scratch: Vec<f64>,
}

/// One greedy step recorded by [`Policy::rollout_in`].
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct RolloutStep {
    /// Action index (position among the mutable features).
    pub action: usize,
    pub from: f64,
    pub to: f64,
    pub probability: f64,
    pub outcome: StepOutcome,
}

impl Policy {
    /// Number of actions `K`.
    pub fn n_actions(&self) -> usize {
        self.action_features.len()
    }

    /// Checks that the policy fits `schema` (same mutable features in the same
    /// order, the same waiting action or none, same encoded dimension) and that its networks are well formed.
    pub fn check_schema(&self, schema: &Schema) -> Result<ActionSpace> {
        let actions = ActionSpace::new(schema)?;
        check_len(
            "policy encoded dimension vs schema",
            schema.encoded_dim(),
            self.encoded_dim,
        )?;
        check_len(
            "policy actions vs schema mutable features",
            actions.len(),
            self.n_actions(),
        )?;
        for (j, name) in actions.names(schema).iter().enumerate() {
            if *name != self.action_features[j] {
                return Err(Error::InvalidArgument(format!(
                    "policy action {j} is '{}' but the schema's action is '{name}'",
                    self.action_features[j]
                )));
            }
        }
        Ok(actions)
    }

    fn validate(&self) -> Result<()> {
        self.actor_param.validate()?;
        self.q.validate()?;
        self.reward_params.validate()?;
        let (k, sd) = (self.n_actions(), self.encoded_dim + self.n_actions());
        check_len(
            "actor-parameter network inputs",
            sd,
            self.actor_param.n_inputs(),
        )?;
        check_len(
            "actor-parameter network outputs",
            k,
            self.actor_param.n_outputs(),
        )?;
        check_len("Q network inputs", sd + k, self.q.n_inputs())?;
        check_len("Q network outputs", k, self.q.n_outputs())?;
        Ok(())
    }

    /// Writes the policy as JSON with its format version.
    pub fn to_json(&self) -> String {
        serde_json::to_string(self).expect("a policy always serialises")
    }

    /// Reads a policy from JSON, refusing other format versions, unknown keys
    /// (named with their place, [`crate::json`]) and malformed networks.
    /// Policies written before `config.max_steps` existed still load (the
    /// default budget `K`).
    pub fn from_json(json: &str) -> Result<Policy> {
        let v = crate::json::parse(json, "policy")?;
        let version = crate::json::format_version(&v, "policy")?;
        if version != POLICY_FORMAT_VERSION {
            return Err(Error::Format(format!(
                "policy format version {version} is not supported (this cfx reads {POLICY_FORMAT_VERSION})"
            )));
        }
        let p: Policy = crate::json::from_value(&v, "policy")?;
        p.validate()?;
        Ok(p)
    }

    /// Saves the policy to a JSON file, replaced only once complete
    /// ([`crate::output`]): a failed save leaves an earlier policy file whole.
    pub fn save(&self, path: &std::path::Path) -> Result<()> {
        crate::output::write_file(path, &[], self.to_json().as_bytes())
    }

    /// Loads a policy from a JSON file.
    pub fn load(path: &std::path::Path) -> Result<Policy> {
        Policy::from_json(&std::fs::read_to_string(path)?)
    }

    /// The environment this policy acts in (its reward and step budget) over `schema` and `model`.
    pub fn environment<'a>(
        &self,
        schema: &'a Schema,
        model: &'a dyn Model,
    ) -> Result<Environment<'a>> {
        self.check_schema(schema)?;
        let mut env = Environment::new(schema, model, self.reward, self.reward_params)?;
        env.set_max_steps(self.config.max_steps)?;
        Ok(env)
    }

    /// Scratch buffers for [`Policy::rollout_in`].
    pub fn workspace(&self) -> PolicyWorkspace {
        let (k, sd) = (self.n_actions(), self.encoded_dim + self.n_actions());
        PolicyWorkspace {
            state: vec![0.0; sd],
            params: vec![0.0; k],
            q_in: vec![0.0; sd + k],
            out_k: vec![0.0; k],
            scratch: vec![0.0; self.actor_param.scratch_len().max(self.q.scratch_len())],
        }
    }

    /// Runs the greedy policy from the environment's current state until a
    /// terminal, appending the steps to `steps` (cleared first). Allocates
    /// nothing once `steps` has capacity `K`. Returns the final outcome
    /// (`Success` without steps when the applicant is already accepted).
    pub fn rollout_in(
        &self,
        env: &mut Environment<'_>,
        ws: &mut PolicyWorkspace,
        steps: &mut Vec<RolloutStep>,
    ) -> Result<StepOutcome> {
        check_len(
            "policy state dimension vs environment",
            ws.state.len(),
            env.state_dim(),
        )?;
        steps.clear();
        if env.accepted() {
            return Ok(StepOutcome::Success);
        }
        loop {
            env.write_state(&mut ws.state);
            let a = greedy_action(
                &self.actor_param,
                &self.q,
                &ws.state,
                &mut ws.params,
                &mut ws.q_in,
                &mut ws.out_k,
                &mut ws.scratch,
            );
            let r = env.step(a, ws.params[a])?;
            steps.push(RolloutStep {
                action: a,
                from: r.from,
                to: r.to,
                probability: r.probability,
                outcome: r.outcome,
            });
            if r.outcome.is_terminal() {
                return Ok(r.outcome);
            }
        }
    }

    /// The policy's plan for one applicant (raw row): its greedy steps, each
    /// as feature, from → to in words and the probability after the step.
    pub fn answer(&self, schema: &Schema, model: &dyn Model, raw: &[f64]) -> Result<Plan> {
        self.check_schema(schema)?;
        let mut env = self.environment(schema, model)?;
        let mut ws = self.workspace();
        let mut steps = Vec::with_capacity(self.n_actions());
        env.reset(raw)?;
        let initial_probability = env.probability();
        let already_accepted = env.accepted();
        let outcome = self.rollout_in(&mut env, &mut ws, &mut steps)?;
        // Replays the steps on the applicant's row to say what each wait moved.
        let mut row = raw.to_vec();
        let mut plan_steps = Vec::with_capacity(steps.len());
        let mut idle_steps = 0;
        for st in &steps {
            let applied = !matches!(
                st.outcome,
                StepOutcome::Failure(Failure::Reused | Failure::Violation)
            );
            let step = match env.actions().feature(st.action) {
                Some(fi) => {
                    if applied {
                        row[fi] = st.to;
                    }
                    PlanStep {
                        feature: fi,
                        name: schema.features[fi].name.clone(),
                        from: st.from,
                        to: st.to,
                        from_text: schema.describe_value(fi, st.from),
                        to_text: schema.describe_value(fi, st.to),
                        probability: st.probability,
                        changed: st.from != st.to,
                        outcome: st.outcome,
                        months: 0,
                        waited: Vec::new(),
                    }
                }
                None => {
                    let months = st.to as u32;
                    // A wait the schema refused (past an upper bound a
                    // feature refuses to pass) moved nothing.
                    let waited = match schema.after_waiting(&row, months) {
                        Ok(waited_row) => {
                            let waited = schema.describe_changes(&row, &waited_row);
                            if applied {
                                row = waited_row;
                            }
                            waited
                        }
                        Err(_) if !applied => Vec::new(),
                        Err(e) => return Err(e),
                    };
                    PlanStep {
                        feature: schema.n_features(),
                        name: super::WAIT_ACTION.into(),
                        from: st.from,
                        to: st.to,
                        from_text: "0 months".into(),
                        to_text: format!("{months} months"),
                        probability: st.probability,
                        changed: !waited.is_empty(),
                        outcome: st.outcome,
                        months,
                        waited,
                    }
                }
            };
            // A step that changes nothing is not advice: the plan shown drops
            // it (the policy spent one of its `K` steps on it; `idle_steps`
            // counts them). A terminal step keeps its outcome in `success`.
            if step.changed {
                plan_steps.push(step);
            } else {
                idle_steps += 1;
            }
        }
        Ok(Plan {
            idle_steps,
            initial_probability,
            steps: plan_steps,
            success: outcome == StepOutcome::Success,
            already_accepted,
            final_row: env.raw().to_vec(),
            violation: env.last_violation().map(|e| e.to_string()),
            plausibility: Vec::new(),
        })
    }
}
