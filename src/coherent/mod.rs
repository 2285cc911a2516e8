//! Coherent, diverse counterfactuals by mixed-integer programming (seed 000:
//! Russell, "Efficient Search for Diverse Coherent Explanations", FAT* 2019).
//!
//! For a linear / logistic model over the mixed encoding of a [`Schema`], find
//! the cheapest change (weighted L1 of §1.3 of `seed-formulas.md`) that moves a
//! declined applicant strictly above the acceptance threshold and that maps back
//! onto a real applicant — **exactly**: the program is the mixed-polytope MIP of
//! seed 000, eqs. (4)–(21) (see [`program`](self) docs in `program.rs`), solved to
//! proven optimality by HiGHS, and every answer is decoded through
//! [`Schema::decode`] and checked against the model before it is returned.
//!
//! * [`explain`]: the optimal counterfactual, or a proof that none exists under the
//!   stated constraints together with the constraint groups that block it
//!   ([`Outcome::Infeasible`]).
//! * [`explain_diverse`]: up to [`Config::n_diverse`] alternatives, by Russell's
//!   procedure ([`DiversityRule::Russell`]) or by distinct feature subsets
//!   ([`DiversityRule::DistinctSubsets`]).
//! * [`explain_batch`]: many applicants on all cores, results in input order.
//! * [`cost`]: the objective of the MIP, computed directly on two raw rows.

mod highs;
mod program;
mod trees;

#[cfg(test)]
mod tests;

use crate::error::{Error, Result, check_finite, check_len};
use crate::model::{LinearModel, Model, TreeEnsemble, logit, sigmoid};
use crate::schema::{COHERENCE_TOL, Change, Direction, FeatureKind, Schema};
use highs::{MipSolution, MipStatus, Options};
use program::Program;
use serde::{Deserialize, Serialize};

/// How alternatives are made diverse.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum DiversityRule {
    /// Russell's procedure as the reference code (`give_explanation`/`fix_values`)
    /// implements it (`seed-formulas.md` §1.4): after each explanation, forbid
    /// each change it made, one feature at a time in index order, re-solving after
    /// each and dropping a constraint that makes the program infeasible.
    #[default]
    Russell,
    /// Russell's procedure exactly as the reference code publishes it, including
    /// its case (b), which adds `d_{i,c} = 1` (the feature must stay in its value
    /// range) instead of forbidding the change: kept for reproducing the
    /// reference code's explanations.
    RussellReferenceCode,
    /// Each new explanation must leave at least one feature of every earlier
    /// explanation's changed set unchanged (the "flipsets" of actionable recourse,
    /// Ustun et al. 2019): a no-good cut `Σ_{i∈S_e} z_i ≤ |S_e| − 1` per earlier set.
    DistinctSubsets,
}

/// Solver and method configuration. Defaults are documented per field.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Config {
    /// Wall-clock limit per MIP solve, seconds (default 10). A solve that hits it
    /// with an incumbent reports [`Outcome::TimeLimit`].
    pub time_limit_seconds: f64,
    /// HiGHS threads per solve (default 1; [`explain_batch`] parallelises across
    /// applicants instead).
    pub threads: usize,
    /// HiGHS relative MIP gap (default `1e-9`: the answer is proven optimal up to
    /// rounding; HiGHS's own default `1e-4` would let costs differ by 0.01%).
    pub mip_gap: f64,
    /// The decision constraint is `score ≥ logit(t) + margin` (default `1e-6`).
    /// cfx accepts when the probability is strictly above `t`; the margin keeps
    /// the answer off the boundary. If a decoded answer still fails the strict
    /// test (solver tolerance), the solve is repeated with the margin ×100, at
    /// most twice.
    pub margin: f64,
    /// Number of explanations [`explain_diverse`] returns at most (default 5).
    pub n_diverse: usize,
    /// The diversity rule of [`explain_diverse`] (default Russell).
    pub diversity: DiversityRule,
    /// Worker threads of [`explain_batch`]; 0 = all available cores (default 0).
    pub batch_threads: usize,
}

impl Default for Config {
    fn default() -> Self {
        Config {
            time_limit_seconds: 10.0,
            threads: 1,
            mip_gap: 1e-9,
            margin: 1e-6,
            n_diverse: 5,
            diversity: DiversityRule::Russell,
            batch_threads: 0,
        }
    }
}

impl Config {
    /// Checks every field's domain.
    pub fn validate(&self) -> Result<()> {
        let bad = |m: String| Err(Error::InvalidArgument(m));
        if self.time_limit_seconds.is_nan() || self.time_limit_seconds <= 0.0 {
            return bad(format!(
                "time_limit_seconds must be positive, got {}",
                self.time_limit_seconds
            ));
        }
        if !(self.mip_gap.is_finite() && self.mip_gap >= 0.0) {
            return bad(format!(
                "mip_gap must be finite and ≥ 0, got {}",
                self.mip_gap
            ));
        }
        if !(self.margin.is_finite() && self.margin >= 0.0) {
            return bad(format!(
                "margin must be finite and ≥ 0, got {}",
                self.margin
            ));
        }
        if self.n_diverse == 0 {
            return bad("n_diverse must be at least 1".into());
        }
        if self.threads == 0 || self.threads > 1024 {
            return bad(format!("threads must be in 1..=1024, got {}", self.threads));
        }
        Ok(())
    }

    fn options(&self) -> Options {
        Options {
            time_limit: self.time_limit_seconds,
            threads: self.threads,
            mip_rel_gap: self.mip_gap,
            mip_abs_gap: 1e-9,
            feasibility_tol: 1e-9,
            presolve: true,
        }
    }
}

/// A group of actionability constraints, as named in infeasibility reports.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ConstraintGroup {
    /// Immutable features.
    Immutables,
    /// Increase-only / decrease-only directions.
    Directions,
    /// Actionable bounds tighter than the data range.
    Bounds,
    /// Forbidden special-state / level transitions.
    ForbiddenTransitions,
}

impl ConstraintGroup {
    /// All groups, in report order.
    pub const ALL: [ConstraintGroup; 4] = [
        ConstraintGroup::Immutables,
        ConstraintGroup::Directions,
        ConstraintGroup::Bounds,
        ConstraintGroup::ForbiddenTransitions,
    ];

    /// A bit per group (Immutables = 1, Directions = 2, Bounds = 4,
    /// ForbiddenTransitions = 8), for compact sets across the C ABI.
    pub fn bit(self) -> u32 {
        match self {
            ConstraintGroup::Immutables => 1,
            ConstraintGroup::Directions => 2,
            ConstraintGroup::Bounds => 4,
            ConstraintGroup::ForbiddenTransitions => 8,
        }
    }

    /// The group in words.
    pub fn name(self) -> &'static str {
        match self {
            ConstraintGroup::Immutables => "immutable features",
            ConstraintGroup::Directions => "directions of change",
            ConstraintGroup::Bounds => "actionable bounds",
            ConstraintGroup::ForbiddenTransitions => "forbidden transitions",
        }
    }
}

/// What the solver said, mapped from HiGHS's raw model status by cfx.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "status", rename_all = "snake_case")]
pub enum Outcome {
    /// Proven optimal within [`Config::mip_gap`].
    Optimal,
    /// The time limit stopped the search; with a solution it is feasible but not
    /// proven optimal (see the reported MIP gap).
    TimeLimit { has_solution: bool },
    /// No counterfactual exists under the schema's constraints. Each entry of
    /// `blocking` is a smallest set of constraint groups whose relaxation (alone,
    /// everything else kept) makes recourse possible, found by re-solving. An
    /// empty list means even relaxing every group leaves no recourse: the model
    /// accepts no coherent applicant reachable from this one.
    Infeasible { blocking: Vec<Vec<ConstraintGroup>> },
    /// Any other solver outcome (other limits, solver errors, statuses unknown to
    /// cfx, or an answer that failed the strict acceptance test after the margin
    /// retries: raw status −2), with HiGHS's raw model status.
    Unknown { raw_status: i32 },
}

impl Outcome {
    /// The union of the blocking groups of an infeasible outcome, as a bit set
    /// (see [`ConstraintGroup::bit`]); 0 otherwise.
    pub fn blocking_mask(&self) -> u32 {
        match self {
            Outcome::Infeasible { blocking } => {
                blocking.iter().flatten().fold(0, |m, g| m | g.bit())
            }
            _ => 0,
        }
    }
}

/// One counterfactual: a real applicant the model accepts.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Counterfactual {
    /// The raw row (decoded by [`Schema::decode`]).
    pub raw: Vec<f64>,
    /// Its encoding.
    pub encoded: Vec<f64>,
    /// The changed features, in the data's own units and state labels.
    pub changes: Vec<Change>,
    /// Weighted L1 cost ([`cost`]) from the applicant.
    pub cost: f64,
    /// Model score (log-odds) and probability of the favourable outcome.
    pub score: f64,
    pub probability: f64,
    /// The status of the solve that produced it (Optimal, or TimeLimit).
    pub status: Outcome,
    /// HiGHS objective value (equals `cost` up to solver tolerance).
    pub objective: f64,
    /// HiGHS relative MIP gap.
    pub mip_gap: f64,
    /// Wall-clock seconds of the solves that produced it.
    pub solve_seconds: f64,
}

impl Counterfactual {
    /// The changes in plain words, e.g.
    /// `MSinceMostRecentDelq: 'condition not met' (-7) → 24; NumSatisfactoryTrades: 12 → 19`.
    pub fn describe(&self) -> String {
        self.changes
            .iter()
            .map(|c| c.to_string())
            .collect::<Vec<_>>()
            .join("; ")
    }
}

/// The answer for one applicant.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Explanation {
    /// The applicant's raw row, score and probability.
    pub factual: Vec<f64>,
    pub factual_score: f64,
    pub factual_probability: f64,
    /// The model's threshold `t`.
    pub threshold: f64,
    /// Outcome of the first (optimal) solve.
    pub outcome: Outcome,
    /// The counterfactuals: the optimal one first, then diverse alternatives.
    pub counterfactuals: Vec<Counterfactual>,
}

impl Explanation {
    /// The explanation in plain words, one line per counterfactual.
    pub fn to_text(&self) -> String {
        let mut out = format!(
            "declined: probability {:.3} ≤ {:.3}\n",
            self.factual_probability, self.threshold
        );
        if self.counterfactuals.is_empty() {
            match &self.outcome {
                Outcome::Infeasible { blocking } if blocking.is_empty() => {
                    out.push_str("no recourse: the model accepts no reachable applicant\n")
                }
                Outcome::Infeasible { blocking } => {
                    let sets: Vec<String> = blocking
                        .iter()
                        .map(|s| s.iter().map(|g| g.name()).collect::<Vec<_>>().join(" + "))
                        .collect();
                    out.push_str(&format!(
                        "no recourse under the stated constraints; blocked by: {}\n",
                        sets.join(", or ")
                    ));
                }
                other => out.push_str(&format!("no answer: {other:?}\n")),
            }
        }
        for (k, cf) in self.counterfactuals.iter().enumerate() {
            let head = if k == 0 { "optimal" } else { "alternative" };
            out.push_str(&format!(
                "{head} (cost {:.3}, probability {:.3}): {}\n",
                cf.cost,
                cf.probability,
                cf.describe()
            ));
        }
        out
    }
}

/// The weighted L1 cost of moving raw row `from` to raw row `to` (objective 16
/// with the signs of `seed-formulas.md` §1.3):
/// * value → value: `W^c·|Δslot|`;
/// * value → special state `j`: `W_j`; special `k` → special `j`: `W_k + W_j`;
/// * special `k` → value: `W_k + W^c·|slot − anchor|`, the anchor being the fitted
///   median slot clamped to the actionable range;
/// * categorical level `k` → `j`: `W_k + W_j`.
pub fn cost(schema: &Schema, from: &[f64], to: &[f64]) -> Result<f64> {
    check_len("raw row", schema.n_features(), from.len())?;
    check_len("raw row", schema.n_features(), to.len())?;
    let mut total = 0.0;
    for (i, f) in schema.features.iter().enumerate() {
        let sa = f.state_of(from[i])?;
        let sb = f.state_of(to[i])?;
        let w = schema.weights(i);
        total += match &f.kind {
            FeatureKind::Contiguous { .. } => {
                let ind = |s: usize| if s == 0 { 0.0 } else { w.states[s - 1] };
                let slot = |raw: f64| schema.value_to_slot(i, raw);
                match (sa, sb) {
                    (0, 0) => w.value * (slot(to[i]) - slot(from[i])).abs(),
                    (0, j) => ind(j),
                    (k, 0) => {
                        let (lo, hi) = schema.actionable_range(i).unwrap_or((0.0, 0.0));
                        let anchor = w
                            .anchor
                            .clamp(slot(lo).min(slot(hi)), slot(hi).max(slot(lo)));
                        ind(k) + w.value * (slot(to[i]) - anchor).abs()
                    }
                    (k, j) if k == j => 0.0,
                    (k, j) => ind(k) + ind(j),
                }
            }
            FeatureKind::Categorical { .. } => {
                if sa == sb {
                    0.0
                } else {
                    w.states[sa] + w.states[sb]
                }
            }
        };
    }
    Ok(total)
}

/// The model side of the MIP, routed by model kind in this one place: a linear
/// model's score is one row over the schema's polytope (Russell 2019); a tree
/// ensemble's is OCEAN's leaf and split indicators joined to the same polytope
/// (Parmentier & Vidal 2021; `trees.rs`).
#[derive(Debug, Clone, Copy)]
enum Scorer<'m> {
    Linear(&'m LinearModel),
    Trees(&'m TreeEnsemble),
}

impl<'m> Scorer<'m> {
    fn of(model: &'m dyn Model) -> Result<Scorer<'m>> {
        if let Some(l) = model.as_linear() {
            return Ok(Scorer::Linear(l));
        }
        if let Some(t) = model.as_trees() {
            return Ok(Scorer::Trees(t));
        }
        Err(Error::InvalidArgument(
            "the coherent MIP needs a linear (logistic) model or a tree ensemble; use a robust \
             or sequential method for MLPs"
                .into(),
        ))
    }

    fn model(self) -> &'m dyn Model {
        match self {
            Scorer::Linear(m) => m,
            Scorer::Trees(m) => m,
        }
    }

    /// The program for one applicant.
    fn build(self, schema: &Schema, factual: &[f64], margin: f64) -> Result<Program> {
        match self {
            Scorer::Linear(m) => Program::build(schema, m, factual, margin),
            Scorer::Trees(m) => trees::build(schema, m, factual, margin),
        }
    }

    fn score(self, encoded: &[f64]) -> f64 {
        self.model().score(encoded)
    }

    fn threshold(self) -> f64 {
        self.model().threshold()
    }
}

/// Checks the inputs and returns the model's side of the MIP and the factual's score.
fn prepare<'m>(
    schema: &Schema,
    model: &'m dyn Model,
    factual: &[f64],
    config: &Config,
) -> Result<(Scorer<'m>, f64)> {
    config.validate()?;
    let lin = Scorer::of(model)?;
    check_len(
        "model input dimension vs schema encoded dimension",
        schema.encoded_dim(),
        model.input_dim(),
    )?;
    if let Scorer::Trees(t) = lin {
        t.check_schema(schema)?;
    }
    check_len("raw row", schema.n_features(), factual.len())?;
    check_finite("applicant row", factual)?;
    let x = schema.encode(factual)?;
    schema.decode(&x)?; // refuses off-grid or non-integer values of the applicant
    let score = lin.score(&x);
    if score > logit(lin.threshold()) {
        return Err(Error::InvalidArgument(format!(
            "the applicant is already accepted (probability {:.6} > {})",
            sigmoid(score),
            lin.threshold()
        )));
    }
    Ok((lin, score))
}

/// Reads a solution back: decode, re-score, cost. `None` when it fails the strict
/// acceptance test after decoding.
fn read_solution(
    schema: &Schema,
    model: Scorer<'_>,
    prog: &Program,
    factual: &[f64],
    sol: &MipSolution,
    seconds: f64,
) -> Result<Option<Counterfactual>> {
    let enc = prog.encoded(schema, &sol.x);
    let raw = schema
        .decode(&enc)
        .map_err(|e| Error::Solver(format!("internal: the MIP solution does not decode ({e})")))?;
    let encoded = schema.encode(&raw)?;
    let score = model.score(&encoded);
    if score <= logit(model.threshold()) {
        return Ok(None);
    }
    let status = match sol.status {
        MipStatus::Optimal => Outcome::Optimal,
        MipStatus::TimeLimit => Outcome::TimeLimit { has_solution: true },
        MipStatus::Unknown(c) | MipStatus::OtherLimit(c) | MipStatus::Error(c) => {
            Outcome::Unknown { raw_status: c }
        }
        MipStatus::Infeasible => Outcome::Unknown { raw_status: 8 },
    };
    Ok(Some(Counterfactual {
        changes: schema.describe_changes(factual, &raw),
        cost: cost(schema, factual, &raw)?,
        probability: sigmoid(score),
        score,
        raw,
        encoded,
        status,
        objective: sol.objective,
        mip_gap: sol.mip_gap,
        solve_seconds: seconds,
    }))
}

/// Result of one solve with margin retries.
enum Solved {
    Found(Box<Counterfactual>, MipSolution),
    NoSolution(Outcome),
}

fn outcome_without_solution(status: MipStatus) -> Outcome {
    match status {
        MipStatus::Infeasible => Outcome::Infeasible {
            blocking: Vec::new(),
        },
        MipStatus::TimeLimit => Outcome::TimeLimit {
            has_solution: false,
        },
        MipStatus::Optimal => Outcome::Unknown { raw_status: 7 },
        MipStatus::OtherLimit(c) | MipStatus::Error(c) | MipStatus::Unknown(c) => {
            Outcome::Unknown { raw_status: c }
        }
    }
}

fn solve_program(
    schema: &Schema,
    model: Scorer<'_>,
    prog: &mut Program,
    factual: &[f64],
    config: &Config,
) -> Result<Solved> {
    let opts = Options {
        presolve: prog.presolve,
        ..config.options()
    };
    let mut margin = config.margin;
    let mut seconds = 0.0;
    for _ in 0..3 {
        prog.set_margin(margin);
        let sol = highs::solve(&prog.mip, &opts);
        seconds += sol.seconds;
        if !sol.has_solution {
            return Ok(Solved::NoSolution(outcome_without_solution(sol.status)));
        }
        if let Some(cf) = read_solution(schema, model, prog, factual, &sol, seconds)? {
            prog.set_margin(config.margin);
            return Ok(Solved::Found(Box::new(cf), sol));
        }
        margin = (margin * 100.0).max(1e-9);
    }
    prog.set_margin(config.margin);
    Ok(Solved::NoSolution(Outcome::Unknown { raw_status: -2 }))
}

/// The schema with the given constraint groups lifted (used to find what blocks
/// recourse).
fn relaxed(schema: &Schema, groups: &[ConstraintGroup]) -> Result<Schema> {
    let mut features = schema.features.clone();
    for f in &mut features {
        for g in groups {
            match g {
                ConstraintGroup::Immutables => f.actionability.mutable = true,
                ConstraintGroup::Directions => f.actionability.direction = Direction::Any,
                ConstraintGroup::Bounds => {
                    f.actionability.lower = None;
                    f.actionability.upper = None;
                }
                ConstraintGroup::ForbiddenTransitions => {
                    f.actionability.forbidden_transitions.clear()
                }
            }
        }
    }
    Schema::new(features)
}

/// Finds the smallest sets of constraint groups whose relaxation restores
/// recourse, by re-solving with each subset of groups relaxed (by size, skipping
/// supersets of sets already found).
fn blocking_groups(
    schema: &Schema,
    model: Scorer<'_>,
    factual: &[f64],
    config: &Config,
) -> Result<Vec<Vec<ConstraintGroup>>> {
    let mut found: Vec<u32> = Vec::new();
    let mut subsets: Vec<u32> = (1u32..16).collect();
    subsets.sort_by_key(|m| (m.count_ones(), *m));
    let mut quick = *config;
    quick.mip_gap = 1e-2; // feasibility is all that matters here
    for mask in subsets {
        if found.iter().any(|&f| f & !mask == 0) {
            continue;
        }
        let groups: Vec<ConstraintGroup> = ConstraintGroup::ALL
            .into_iter()
            .filter(|g| mask & g.bit() != 0)
            .collect();
        let s = relaxed(schema, &groups)?;
        let mut prog = model.build(&s, factual, config.margin)?;
        if let Solved::Found(..) = solve_program(&s, model, &mut prog, factual, &quick)? {
            found.push(mask);
        }
    }
    Ok(found
        .into_iter()
        .map(|m| {
            ConstraintGroup::ALL
                .into_iter()
                .filter(|g| m & g.bit() != 0)
                .collect()
        })
        .collect())
}

fn new_explanation(model: Scorer<'_>, factual: &[f64], score: f64) -> Explanation {
    Explanation {
        factual: factual.to_vec(),
        factual_score: score,
        factual_probability: sigmoid(score),
        threshold: model.threshold(),
        outcome: Outcome::Unknown { raw_status: 0 },
        counterfactuals: Vec::new(),
    }
}

/// The first solve of [`explain`] and [`explain_diverse`].
fn first(
    schema: &Schema,
    lin: Scorer<'_>,
    factual: &[f64],
    config: &Config,
    ex: &mut Explanation,
) -> Result<Option<(Program, MipSolution)>> {
    let mut prog = lin.build(schema, factual, config.margin)?;
    match solve_program(schema, lin, &mut prog, factual, config)? {
        Solved::Found(cf, sol) => {
            ex.outcome = cf.status.clone();
            ex.counterfactuals.push(*cf);
            Ok(Some((prog, sol)))
        }
        Solved::NoSolution(Outcome::Infeasible { .. }) => {
            ex.outcome = Outcome::Infeasible {
                blocking: blocking_groups(schema, lin, factual, config)?,
            };
            Ok(None)
        }
        Solved::NoSolution(o) => {
            ex.outcome = o;
            Ok(None)
        }
    }
}

/// The optimal coherent counterfactual of a declined applicant (seed 000, eqs.
/// 4–21), or why there is none.
///
/// Errors: a non-linear model, mismatched dimensions, a non-finite or incoherent
/// applicant row, an applicant who is already accepted, or a bad [`Config`].
/// Solver outcomes (infeasible, time limit) are [`Outcome`]s, not errors.
pub fn explain(
    schema: &Schema,
    model: &dyn Model,
    factual: &[f64],
    config: &Config,
) -> Result<Explanation> {
    let (lin, score) = prepare(schema, model, factual, config)?;
    let mut ex = new_explanation(lin, factual, score);
    first(schema, lin, factual, config, &mut ex)?;
    Ok(ex)
}

fn same_row(a: &[f64], b: &[f64]) -> bool {
    a.iter().zip(b).all(|(x, y)| (x - y).abs() <= COHERENCE_TOL)
}

/// The optimal counterfactual followed by up to `config.n_diverse − 1` diverse
/// alternatives, by [`Config::diversity`]. All returned counterfactuals are
/// pairwise distinct raw rows.
///
/// Russell's procedure (§1.4 of `seed-formulas.md`, reference `fix_values`): for
/// each feature the last explanation changed, in index order,
/// * (a) moved into a special state or categorical level `u`: forbid `u`
///   (`d_{i,u} = 0`);
/// * (b) moved from a special state into the value range: the reference code adds
///   `d_{i,c} = 1`, which does not forbid the change and reads as a bug; cfx
///   implements the evident intent — **forbid the change** by fixing the factual
///   special state (`d_{i,own} = 1`);
/// * (c) value → value: freeze it (`l_i = u_i = 0`);
///
/// re-solving after each; a constraint that makes the program infeasible is
/// dropped again (the program is then the one already solved, so its previous
/// optimum is kept without a re-solve). The solution after the last feature is
/// the next explanation; constraints accumulate; the procedure stops at
/// `n_diverse` explanations or when an explanation repeats an earlier one.
/// Each alternative's `solve_seconds` is the sum over its round's solves.
pub fn explain_diverse(
    schema: &Schema,
    model: &dyn Model,
    factual: &[f64],
    config: &Config,
) -> Result<Explanation> {
    let (lin, score) = prepare(schema, model, factual, config)?;
    let mut ex = new_explanation(lin, factual, score);
    let Some((mut prog, _)) = first(schema, lin, factual, config, &mut ex)? else {
        return Ok(ex);
    };
    match config.diversity {
        DiversityRule::Russell => russell(schema, lin, factual, config, &mut prog, &mut ex, false)?,
        DiversityRule::RussellReferenceCode => {
            russell(schema, lin, factual, config, &mut prog, &mut ex, true)?
        }
        DiversityRule::DistinctSubsets => {
            distinct_subsets(schema, lin, factual, config, &mut prog, &mut ex)?
        }
    }
    Ok(ex)
}

fn russell(
    schema: &Schema,
    lin: Scorer<'_>,
    factual: &[f64],
    config: &Config,
    prog: &mut Program,
    ex: &mut Explanation,
    reference_case_b: bool,
) -> Result<()> {
    while ex.counterfactuals.len() < config.n_diverse {
        let last = ex.counterfactuals.last().cloned();
        let Some(last) = last else { break };
        let mut current: Option<Counterfactual> = None;
        let mut seconds = 0.0;
        for ch in &last.changes {
            let i = ch.feature;
            let fv = &prog.vars[i];
            let f = &schema.features[i];
            let s_new = f.state_of(ch.to)?;
            let s_old = fv.factual_state;
            // (col, new lower, new upper)
            let fixes: Vec<(usize, f64, f64)> = if !fv.contiguous || s_new != 0 {
                vec![(fv.state_cols[s_new], 0.0, 0.0)] // (a)
            } else if s_old != 0 && reference_case_b {
                vec![(fv.state_cols[0], 1.0, 1.0)] // (b) as the reference code has it
            } else if s_old != 0 {
                vec![(fv.state_cols[s_old], 1.0, 1.0)] // (b), evident intent
            } else {
                [fv.l, fv.u]
                    .into_iter()
                    .flatten()
                    .map(|c| (c, 0.0, 0.0))
                    .collect() // (c)
            };
            let saved: Vec<(usize, f64, f64)> = fixes
                .iter()
                .map(|&(c, _, _)| (c, prog.mip.lower[c], prog.mip.upper[c]))
                .collect();
            let mut contradictory = false;
            for &(c, lo, hi) in &fixes {
                let (lo, hi) = (lo.max(prog.mip.lower[c]), hi.min(prog.mip.upper[c]));
                contradictory |= lo > hi;
                prog.mip.lower[c] = lo;
                prog.mip.upper[c] = hi;
            }
            let keep = if contradictory {
                false
            } else {
                match solve_program(schema, lin, prog, factual, config)? {
                    Solved::Found(cf, sol) => {
                        seconds += sol.seconds;
                        current = Some(*cf);
                        true
                    }
                    Solved::NoSolution(_) => false,
                }
            };
            if !keep {
                for (c, lo, hi) in saved {
                    prog.mip.lower[c] = lo;
                    prog.mip.upper[c] = hi;
                }
            }
        }
        let Some(mut cf) = current else { break };
        if ex.counterfactuals.iter().any(|p| same_row(&p.raw, &cf.raw)) {
            break;
        }
        cf.solve_seconds = seconds;
        ex.counterfactuals.push(cf);
    }
    Ok(())
}

fn distinct_subsets(
    schema: &Schema,
    lin: Scorer<'_>,
    factual: &[f64],
    config: &Config,
    prog: &mut Program,
    ex: &mut Explanation,
) -> Result<()> {
    while ex.counterfactuals.len() < config.n_diverse {
        let Some(last) = ex.counterfactuals.last() else {
            break;
        };
        let changed: Vec<usize> = last.changes.iter().map(|c| c.feature).collect();
        if changed.is_empty() {
            break;
        }
        let zs: Vec<(usize, f64)> = changed
            .iter()
            .map(|&i| (prog.changed_indicator(i), 1.0))
            .collect();
        prog.mip
            .add_row(f64::NEG_INFINITY, (changed.len() - 1) as f64, &zs);
        match solve_program(schema, lin, prog, factual, config)? {
            Solved::Found(cf, _) => {
                if ex.counterfactuals.iter().any(|p| same_row(&p.raw, &cf.raw)) {
                    break;
                }
                ex.counterfactuals.push(*cf);
            }
            Solved::NoSolution(_) => break,
        }
    }
    Ok(())
}

/// Explains many applicants on `config.batch_threads` threads (0 = all cores):
/// contiguous chunks, one per thread, results in input order. Each solve uses
/// [`Config::threads`] HiGHS threads and a fixed random seed, so the answers
/// (all but the measured times) do not depend on the thread count.
/// `diverse` selects [`explain_diverse`] over [`explain`].
pub fn explain_batch(
    schema: &Schema,
    model: &dyn Model,
    rows: &[Vec<f64>],
    config: &Config,
    diverse: bool,
) -> Result<Vec<Result<Explanation>>> {
    config.validate()?;
    if rows.is_empty() {
        return Ok(Vec::new());
    }
    let threads = if config.batch_threads == 0 {
        std::thread::available_parallelism().map_or(1, |n| n.get())
    } else {
        config.batch_threads
    }
    .min(rows.len())
    .max(1);
    let chunk = rows.len().div_ceil(threads);
    let one = |r: &Vec<f64>| {
        if diverse {
            explain_diverse(schema, model, r, config)
        } else {
            explain(schema, model, r, config)
        }
    };
    if threads == 1 {
        return Ok(rows.iter().map(one).collect());
    }
    let parts: Vec<Vec<Result<Explanation>>> = std::thread::scope(|s| {
        let handles: Vec<_> = rows
            .chunks(chunk)
            .map(|c| s.spawn(move || c.iter().map(one).collect::<Vec<_>>()))
            .collect();
        handles
            .into_iter()
            .map(|h| {
                h.join().unwrap_or_else(|_| {
                    vec![Err(Error::Solver("a batch worker thread panicked".into()))]
                })
            })
            .collect()
    });
    let mut out = Vec::with_capacity(rows.len());
    for (p, c) in parts.into_iter().zip(rows.chunks(chunk)) {
        if p.len() == c.len() {
            out.extend(p);
        } else {
            out.extend(
                c.iter()
                    .map(|_| Err(Error::Solver("a batch worker thread panicked".into()))),
            );
        }
    }
    Ok(out)
}

/// The MIP [`explain`] solves for one applicant, in a neutral JSON form
/// (minimise `cost·x + offset` s.t. `row_lower ≤ A x ≤ row_upper` with `A`
/// row-wise in `row_start`/`row_index`/`row_value`, `lower ≤ x ≤ upper`,
/// `integer` marking integer columns; infinite bounds as `±1e30`), so that
/// other solvers (the `highspy` peer script) can be checked against cfx on the
/// very same program.
pub fn mip_json(
    schema: &Schema,
    model: &dyn Model,
    factual: &[f64],
    config: &Config,
) -> Result<String> {
    let (lin, _) = prepare(schema, model, factual, config)?;
    let prog = lin.build(schema, factual, config.margin)?;
    let m = &prog.mip;
    let fin = |v: &Vec<f64>| -> Vec<f64> { v.iter().map(|x| x.clamp(-1e30, 1e30)).collect() };
    let value = serde_json::json!({
        "cost": m.cost,
        "offset": m.offset,
        "lower": fin(&m.lower),
        "upper": fin(&m.upper),
        "integer": m.integer,
        "row_lower": fin(&m.row_lower),
        "row_upper": fin(&m.row_upper),
        "row_start": m.row_start,
        "row_index": m.row_index,
        "row_value": m.row_value,
    });
    Ok(value.to_string())
}
