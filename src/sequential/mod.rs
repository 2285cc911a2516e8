//! Sequential counterfactuals learned by deep reinforcement learning
//! (Panagiotou & Ntoutsi 2023, "Learning impartial policies for
//! sequential counterfactual explanations using Deep RL", arXiv 2311.00523).
//!
//! Once trained, a policy answers every declined applicant instantly with a
//! *sequence* of steps — first change this feature, then that one — each step
//! one feature set to a new value, until the model's decision flips.
//!
//! * [`Environment`]: state `s_t = (x_t, b_t)` (encoded row ⊕ used-feature
//!   indicators over the mutable features), hybrid action `a_t = (k, u_k)`,
//!   failure terminals (actionability violation, re-used feature, step budget `K`
//!   exhausted), success terminal (decision flipped), rewards `R^bin` / `R^prob`.
//! * [`train`]: P-DQN (actor-parameter network + Q network, ε-greedy with random
//!   parameters, replay, Adam, Polyak targets, gradient clipping) with a progress
//!   callback that can cancel.
//! * [`Policy`]: versioned JSON file; [`Policy::answer`] gives the greedy plan.
//! * [`evaluate`]: satisfiability, sparsity, distance, target probability, the
//!   normalised action entropy ([`action_entropy`]) and the Sankey flows
//!   ([`SankeyFlows`], CSV and SVG).

mod agent;
mod env;
mod metrics;
mod policy;

pub use agent::{EpisodeEnd, PdqnConfig, Progress, Trainer, Training, train};
pub use env::{
    ActionSpace, Environment, Failure, RewardKind, RewardParams, StepOutcome, StepResult,
    WAIT_ACTION,
};
pub use metrics::{
    EpisodeRecord, Evaluation, SankeyFlows, SankeyLink, SankeyNode, SequentialMetrics,
    action_entropy, evaluate, flows_of, metrics_of,
};
pub use policy::{POLICY_FORMAT_VERSION, Plan, PlanStep, Policy, PolicyWorkspace, RolloutStep};

#[cfg(test)]
mod tests;
