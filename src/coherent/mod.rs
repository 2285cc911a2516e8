//! Coherent, diverse counterfactuals by mixed-integer programming (Russell 2019:
//! Russell, "Efficient Search for Diverse Coherent Explanations", FAT* 2019).
//!
//! For a linear / logistic model over the mixed encoding of a [`Schema`], find
//! the cheapest change (weighted L1 of §1.3 of `seed-formulas.md`) that moves a
//! declined applicant strictly above the acceptance threshold and that maps back
//! onto a real applicant — **exactly**: the program is the mixed-polytope MIP of
//! Russell 2019, eqs. (4)–(21) (see [`program`](self) docs in `program.rs`), solved to
//! proven optimality by HiGHS, and every answer is decoded through
//! [`Schema::decode`] and checked against the model before it is returned.
//!
//! * [`explain`]: the optimal counterfactual, or a proof that none exists under the
//!   stated constraints together with the constraint groups that block it
//!   ([`Outcome::Infeasible`]).
//! * [`explain_diverse`]: up to [`Config::n_diverse`] explanations, the optimum first
//!   and then alternatives, by Russell's procedure ([`DiversityRule::Russell`]) or by
//!   distinct feature subsets ([`DiversityRule::DistinctSubsets`]).
//! * [`explain_batch`]: many applicants on all cores, results in input order.
//! * [`cost`]: the objective of the MIP, computed directly on two raw rows.
//!
//! Two solvers prove the answers ([`Config::solver`]): HiGHS on the MIP, and the
//! exact separable solver of [`separable`] (a multiple-choice knapsack branch
//! and bound), which the program of a linear model or a points scorecard
//! reduces to whenever every constraint acts on one feature at a time —
//! everything but the distinct-subsets rule's no-good cuts. Both read their answers back through the same decode-and-check.
//!
//! Layout: the settings ([`Config`]) are in `config.rs`, the answers
//! ([`Explanation`], [`Outcome`]) and [`cost`] in `explanation.rs`, the
//! diversity procedures in `diverse.rs`, the program in `program.rs` (with
//! `trees.rs` for tree ensembles) and its solvers in `highs.rs`,
//! [`separable`] and [`tree_search`]; this file routes by model class, runs
//! one explanation's solves ([`explain`], [`explain_batch`]); `infeasible.rs`
//! finds the constraint groups that block an infeasible one. The robustness target's
//! noise and closed-form margin come from [`crate::noise`], below the methods.

mod config;
mod diverse;
mod explanation;
mod highs;
mod infeasible;
mod mlp;
mod mlp_primal;
#[cfg(test)]
pub(crate) mod mlp_tests;
#[cfg(test)]
mod mlp_waiting_tests;
mod program;
pub mod separable;
mod tree_bound;
pub mod tree_box;
mod tree_box_primal;
#[cfg(test)]
pub(crate) mod tree_box_reach_tests;
#[cfg(test)]
pub(crate) mod tree_box_tests;
mod tree_budget;
mod tree_masks;
mod tree_primal;
pub mod tree_search;
pub mod tree_warm;
mod trees;
/// The random schemas and ensembles of the tree MIP's oracle, shared with the
/// tree model's own tests.
#[cfg(test)]
pub(crate) use trees::tests as random_trees;
pub mod waiting;
#[cfg(test)]
mod waiting_tests;

#[cfg(test)]
pub(crate) mod random_instances;
#[cfg(test)]
mod scorecard_tests;
#[cfg(test)]
pub(crate) mod tests;

#[cfg(test)]
mod separable_tests;

#[cfg(test)]
mod cap_tests;

/// The portfolio pipeline (CSV in, JSON lines out) now lives in
/// [`crate::portfolio`], above the methods; this path is kept for existing code.
pub use crate::portfolio;
/// The portfolio summary now lives in [`crate::portfolio::summary`]; this path
/// is kept for existing code.
pub use crate::portfolio::summary as portfolio_summary;

pub use config::{BoxKind, Config, DiversityRule, ProvedBy, Robustness, SolverChoice};
pub use diverse::{Fix, explain_diverse};
pub use explanation::{ConstraintGroup, Counterfactual, Explanation, Outcome, cost};

use crate::error::{Error, Result, check_finite, check_len};
use crate::model::{Model, logit, sigmoid};
use crate::schema::{COHERENCE_TOL, Schema};
use highs::{MipSolution, MipStatus, Options};
use infeasible::blocking_groups;
use program::{Program, Scoring};

/// Checks the inputs and returns the model's class and the factual's score.
/// This is the one place the coherent methods route by model kind: a linear
/// (logistic) model, a points scorecard or a tree ensemble; anything else is
/// refused.
fn prepare<'m>(
    schema: &Schema,
    model: &'m dyn Model,
    factual: &[f64],
    config: &Config,
) -> Result<(Scoring<'m>, f64)> {
    prepare_row(schema, model, factual, config, true)
}

/// [`prepare`], refusing a row the model already accepts only when
/// `refuse_accepted` (the outer loop of [`waiting`] also explains waited rows
/// the model accepts but not robustly enough).
fn prepare_row<'m>(
    schema: &Schema,
    model: &'m dyn Model,
    factual: &[f64],
    config: &Config,
    refuse_accepted: bool,
) -> Result<(Scoring<'m>, f64)> {
    config.validate()?;
    crate::model::check_model_for_schema(model, schema, "the schema")?;
    check_len("raw row", schema.n_features(), factual.len())?;
    check_finite("applicant row", factual)?;
    if let Some(card) = model.as_scorecard() {
        let x = schema.encode(factual)?;
        schema.decode(&x)?; // refuses off-grid or non-integer values of the applicant
        let points = card.score_raw(schema, factual)?;
        if refuse_accepted && card.accepts_points(points) {
            return Err(Error::InvalidArgument(format!(
                "the applicant is already accepted ({points} points ≥ cutoff {})",
                card.cutoff
            )));
        }
        return Ok((Scoring::Scorecard(card), points));
    }
    if config.robustness.is_some() && model.as_linear().is_none() && model.as_trees().is_none() {
        return Err(Error::InvalidArgument(
            "robust advice from the exact engine needs a linear (logistic) model, whose \
             invalidation rate has a closed form, or a tree ensemble, whose answers' boxes \
             the tree search proves accepted; use CROCO or PROBE for other models"
                .into(),
        ));
    }
    let scoring = if let Some(lin) = model.as_linear() {
        let robust = match &config.robustness {
            Some(r) if r.box_kind == BoxKind::ReachableValues => {
                return Err(Error::InvalidArgument(
                    "robust advice over reachable values (box_kind reachable_values) is for tree \
                     ensembles, whose answers' boxes the tree search proves; a linear model's \
                     robust margin is the closed form of Gaussian slips over the reals: use \
                     box_kind reals"
                        .into(),
                ));
            }
            Some(r) => {
                crate::noise::linear_robust_margin(lin, &r.noise(schema)?, r.invalidation_target)?
            }
            None => 0.0,
        };
        Scoring::Linear(lin, robust)
    } else if let Some(ens) = model.as_trees() {
        Scoring::Trees(ens, config.time_limit_seconds)
    } else if let Some(net) = model.as_mlp() {
        mlp::check_network(net)?;
        Scoring::Mlp(
            net,
            mlp::Tightening {
                tighten: config.mlp_bound_tightening,
                time_limit: config.time_limit_seconds,
                // Off: a random instance's capped program missed the optimum
                // (`mlp_russell_sets_…`, seed 12); see `Tightening::incumbent_cap`.
                incumbent_cap: false,
                // On; `explain_diverse` turns it off for more than one answer.
                cost_bounds: true,
            },
        )
    } else {
        return Err(Error::InvalidArgument(
            "the coherent MIP needs a linear (logistic) model, a points scorecard, a tree \
             ensemble or a ReLU network"
                .into(),
        ));
    };
    let x = schema.encode(factual)?;
    schema.decode(&x)?; // refuses off-grid or non-integer values of the applicant
    let score = model.score(&x);
    if refuse_accepted && score > model.score_threshold() {
        return Err(Error::InvalidArgument(format!(
            "the applicant is already accepted (probability {:.6} > {})",
            model.probability_of_score(score),
            model.threshold()
        )));
    }
    Ok((scoring, score))
}

impl Scoring<'_> {
    /// The score of a decoded answer (log-odds, or points computed on the raw
    /// row exactly), its probability, and whether the model accepts it.
    fn judge(&self, schema: &Schema, raw: &[f64], encoded: &[f64]) -> Result<(f64, f64, bool)> {
        Ok(match self {
            Scoring::Linear(m, robust) => {
                let score = m.score(encoded);
                let thr = logit(m.threshold);
                (score, sigmoid(score), score > thr && score >= thr + robust)
            }
            Scoring::Trees(m, _) => {
                let score = m.score(encoded);
                (
                    score,
                    m.probability_of_score(score),
                    score > m.score_threshold(),
                )
            }
            Scoring::Mlp(m, _) => {
                let score = m.score(encoded);
                (score, sigmoid(score), score > logit(m.threshold))
            }
            Scoring::Scorecard(c) => {
                let points = c.score_raw(schema, raw)?;
                (
                    points,
                    c.probability_of_points(points),
                    c.accepts_points(points),
                )
            }
        })
    }

    fn model(&self) -> &dyn Model {
        match self {
            Scoring::Linear(m, _) => *m,
            Scoring::Scorecard(c) => *c,
            Scoring::Trees(t, _) => *t,
            Scoring::Mlp(m, _) => *m,
        }
    }

    /// The first tolerance margin: the configured one for a probability model
    /// (linear, trees or a network); 0 for a scorecard, whose points are exact
    /// and whose ties are accepted. Retries escalate this part only.
    fn first_tolerance(&self, config: &Config) -> f64 {
        match self {
            Scoring::Linear(..) | Scoring::Trees(..) | Scoring::Mlp(..) => config.margin,
            Scoring::Scorecard(_) => 0.0,
        }
    }

    /// The robust margin of [`Config::robustness`] (score units; 0 without it).
    fn robust_margin(&self) -> f64 {
        match self {
            Scoring::Linear(_, robust) => *robust,
            Scoring::Scorecard(_) | Scoring::Trees(..) | Scoring::Mlp(..) => 0.0,
        }
    }

    /// The first decision margin: the robust margin plus the first tolerance.
    fn first_margin(&self, config: &Config) -> f64 {
        self.robust_margin() + self.first_tolerance(config)
    }
}

/// Reads an answer back, whichever solver found it: decode the encoded vector
/// through [`Schema::decode`], re-encode, re-score, cost. `None` when it fails
/// the strict acceptance test after decoding.
#[allow(clippy::too_many_arguments)]
fn checked_counterfactual(
    schema: &Schema,
    model: Scoring<'_>,
    factual: &[f64],
    enc: &[f64],
    status: Outcome,
    objective: f64,
    mip_gap: f64,
    margin: f64,
    seconds: f64,
    proved_by: ProvedBy,
    robustness: Option<Robustness>,
) -> Result<Option<Counterfactual>> {
    let raw = schema.decode(enc).map_err(|e| {
        Error::Solver(format!(
            "internal: the solver's answer does not decode ({e})"
        ))
    })?;
    let encoded = schema.encode(&raw)?;
    let (score, probability, accepted) = model.judge(schema, &raw, &encoded)?;
    if !accepted {
        return Ok(None);
    }
    let invalidation_rate = match (robustness, model) {
        (Some(r), Scoring::Linear(lin, _)) => Some(crate::noise::linear_invalidation_rate(
            lin,
            &encoded,
            &r.noise(schema)?,
        )?),
        (Some(r), Scoring::Trees(ens, _)) => {
            Some(tree_box::invalidation_rate(schema, ens, &r, &encoded)?)
        }
        _ => None,
    };
    Ok(Some(Counterfactual {
        changes: schema.describe_changes(factual, &raw),
        cost: cost(schema, factual, &raw)?,
        probability,
        score,
        raw,
        encoded,
        status,
        objective,
        mip_gap,
        margin,
        solve_seconds: seconds,
        proved_by,
        invalidation_rate,
        plausibility: Vec::new(),
    }))
}

/// Reads a MIP solution back (see [`checked_counterfactual`]).
#[allow(clippy::too_many_arguments)]
fn read_solution(
    schema: &Schema,
    model: Scoring<'_>,
    prog: &Program,
    factual: &[f64],
    sol: &MipSolution,
    seconds: f64,
    margin: f64,
    robustness: Option<Robustness>,
) -> Result<Option<Counterfactual>> {
    let mut enc = prog.encoded(schema, &sol.x);
    // A program that prices waiting measures the moves from the waited row
    // (its time features read from the chosen month), and its objective holds
    // the wait's price besides the moves' cost.
    let (waited, objective) = match &prog.wait {
        Some(w) => {
            let (waited, wait_cost) = w.apply(schema, factual, &sol.x, &mut enc)?;
            (Some(waited), sol.objective - wait_cost)
        }
        None => (None, sol.objective),
    };
    let from = waited.as_deref().unwrap_or(factual);
    let status = match sol.status {
        MipStatus::Optimal => Outcome::Optimal,
        MipStatus::TimeLimit => Outcome::TimeLimit { has_solution: true },
        MipStatus::Unknown(c) | MipStatus::OtherLimit(c) | MipStatus::Error(c) => {
            Outcome::Unknown { raw_status: c }
        }
        MipStatus::Infeasible => Outcome::Unknown { raw_status: 8 },
    };
    checked_counterfactual(
        schema,
        model,
        from,
        &enc,
        status,
        objective,
        sol.mip_gap,
        margin,
        seconds,
        ProvedBy::Highs,
        robustness,
    )
}

/// Result of one solve with margin retries.
enum Solved {
    Found(Box<Counterfactual>),
    NoSolution(Outcome),
}

fn outcome_without_solution(status: MipStatus) -> Outcome {
    match status {
        MipStatus::Infeasible => Outcome::Infeasible {
            blocking: Vec::new(),
            undecided: Vec::new(),
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

/// Solves with margin retries: when a decoded answer fails the model's own
/// acceptance test (solver tolerance), the margin is raised (×100, at least
/// 1e-9) and the program solved again, at most twice. For a scorecard the first
/// margin is 0 (a tie is accepted); a retry then excludes totals within the
/// raised margin above the cutoff, which matters only when HiGHS returned a
/// total within its feasibility tolerance (1e-9) below the cutoff.
fn solve_program(
    schema: &Schema,
    model: Scoring<'_>,
    prog: &mut Program,
    factual: &[f64],
    config: &Config,
) -> Result<Solved> {
    #[cfg(test)]
    let incumbent_status = match tests::forced() {
        Some(tests::Forced::NoSolution(status)) => {
            return Ok(Solved::NoSolution(outcome_without_solution(status)));
        }
        Some(tests::Forced::Incumbent(status)) => Some(status),
        None => None,
    };
    let mut opts = Options {
        presolve: prog.presolve,
        sub_mips_and_restarts: prog.sub_mips_and_restarts,
        ..config.options()
    };
    // The building's share of the first solve's limit (a network's bound
    // tightening) is taken off it, so that the whole explanation keeps to
    // the limit; later solves (diverse alternatives) have their own.
    if prog.spent_seconds > 0.0 && opts.time_limit.is_finite() {
        opts.time_limit = (opts.time_limit - prog.spent_seconds).max(1e-3);
    }
    prog.spent_seconds = 0.0;
    let first_margin = model.first_margin(config);
    let robust = model.robust_margin();
    let mut tolerance = model.first_tolerance(config);
    let mut seconds = 0.0;
    for _ in 0..3 {
        let margin = robust + tolerance;
        prog.set_margin(margin);
        // The builder's first incumbent, while the diversity fixes leave it
        // inside the columns' bounds (HiGHS checks the rows).
        let start = prog.start.as_deref().filter(|x0| {
            x0.len() == prog.mip.n_cols()
                && x0
                    .iter()
                    .zip(prog.mip.lower.iter().zip(&prog.mip.upper))
                    .all(|(v, (lo, hi))| *v >= *lo && *v <= *hi)
        });
        let sol = highs::solve_from(&prog.mip, &opts, start);

        opts.time_limit = config.time_limit_seconds;
        #[cfg(test)]
        let sol = MipSolution {
            status: incumbent_status.unwrap_or(sol.status),
            ..sol
        };
        seconds += sol.seconds;
        if !sol.has_solution {
            return Ok(Solved::NoSolution(outcome_without_solution(sol.status)));
        }
        if let Some(cf) = read_solution(
            schema,
            model,
            prog,
            factual,
            &sol,
            seconds,
            margin,
            config.robustness,
        )? {
            prog.set_margin(first_margin);
            if let Some(w) = prog.wait.as_mut() {
                w.chosen = Some(w.months(&sol.x));
            }
            return Ok(Solved::Found(Box::new(cf)));
        }
        tolerance = (tolerance * 100.0).max(1e-9);
    }
    prog.set_margin(first_margin);
    Ok(Solved::NoSolution(Outcome::Unknown { raw_status: -2 }))
}

/// [`Outcome::Unknown`]'s raw status when the separable branch and bound hit its
/// node limit (only seen with [`SolverChoice::Separable`]; `Auto` then falls
/// back to HiGHS).
pub const SEPARABLE_NODE_LIMIT_STATUS: i32 = -3;

/// Relative rounding allowance of a scorecard's separable decision (see
/// `solve_separable`): far below HiGHS's feasibility tolerance (1e-9), far
/// above the rounding of a sum of a few dozen points.
const SCORECARD_ROUNDING: f64 = 1e-11;

thread_local! {
    /// One separable workspace per thread, so that batches reuse its buffers.
    static WORKSPACE: std::cell::RefCell<separable::Workspace> =
        std::cell::RefCell::new(separable::Workspace::new());
}

/// Runs `f` on this thread's buffers in `slot`, or on fresh ones when they are
/// in use or already freed (a call made while the thread is being torn down).
fn with_thread_buffers<B: Default, T>(
    slot: &'static std::thread::LocalKey<std::cell::RefCell<B>>,
    f: impl FnOnce(&mut B) -> T,
) -> T {
    let mut f = Some(f);
    let shared = slot.try_with(|w| match w.try_borrow_mut() {
        Ok(mut b) => Some((f.take().expect("run once"))(&mut b)),
        Err(_) => None,
    });
    match shared {
        Ok(Some(t)) => t,
        _ => (f.take().expect("run once"))(&mut B::default()),
    }
}

/// Runs `f` on this thread's separable workspace ([`with_thread_buffers`]).
fn with_workspace<T>(f: impl FnOnce(&mut separable::Workspace) -> T) -> T {
    with_thread_buffers(&WORKSPACE, f)
}

/// The separable counterpart of [`solve_program`]: the menus built under
/// `fixes`, solved exactly, read back through [`checked_counterfactual`], with
/// the same margin retries.
fn solve_separable(
    schema: &Schema,
    model: Scoring<'_>,
    factual: &[f64],
    config: &Config,
    fixes: &[Fix],
    ws: &mut separable::Workspace,
) -> Result<Solved> {
    let start = std::time::Instant::now();
    // The score the decision asks for (before the margin): log-odds for a
    // linear model, points for a scorecard. A scorecard's answers often tie
    // with the cutoff exactly, and the menus' gains (bin points less the
    // factual's) may sum to a hair below the needed total in floating point:
    // the solver is asked for the cutoff less a rounding allowance of
    // `SCORECARD_ROUNDING` relative, and the exact points total of the decoded
    // answer (`Scoring::judge`) decides, as HiGHS's feasibility tolerance and
    // the same check do on the MIP.
    let threshold = match model {
        Scoring::Linear(lin, _) => {
            ws.build_linear(schema, lin, factual, fixes)?;
            logit(lin.threshold)
        }
        Scoring::Scorecard(card) => {
            ws.build_scorecard(schema, card, factual, fixes)?;
            card.cutoff - SCORECARD_ROUNDING * card.cutoff.abs().max(1.0)
        }
        Scoring::Trees(..) | Scoring::Mlp(..) => {
            return Err(Error::Solver(
                "internal: the separable solver was chosen for a tree ensemble or a network".into(),
            ));
        }
    };
    let mut enc = vec![0.0; schema.encoded_dim()];
    // Retries escalate the tolerance only, never the robust margin.
    let robust = model.robust_margin();
    let mut tolerance = model.first_tolerance(config);
    for _ in 0..3 {
        let margin = robust + tolerance;
        let need = threshold + margin - ws.factual_score();
        let sol = ws.solve_with_limit(need, config.node_limit);
        match sol.status {
            separable::SolveStatus::Optimal => {}
            separable::SolveStatus::Infeasible => {
                return Ok(Solved::NoSolution(Outcome::Infeasible {
                    blocking: Vec::new(),
                    undecided: Vec::new(),
                }));
            }
            separable::SolveStatus::NodeLimit => {
                return Ok(Solved::NoSolution(Outcome::Unknown {
                    raw_status: SEPARABLE_NODE_LIMIT_STATUS,
                }));
            }
        }
        ws.write_encoded(schema, &mut enc)?;
        let cf = checked_counterfactual(
            schema,
            model,
            factual,
            &enc,
            Outcome::Optimal,
            sol.cost,
            separable::PRUNE_REL,
            margin,
            start.elapsed().as_secs_f64(),
            ProvedBy::Separable,
            config.robustness,
        )?;
        if let Some(cf) = cf {
            return Ok(Solved::Found(Box::new(cf)));
        }
        tolerance = (tolerance * 100.0).max(1e-9);
    }
    Ok(Solved::NoSolution(Outcome::Unknown { raw_status: -2 }))
}

thread_local! {
    /// One tree search per thread, so that batches reuse its buffers.
    static TREE_SEARCH: std::cell::RefCell<tree_search::TreeSearch> =
        std::cell::RefCell::new(tree_search::TreeSearch::new());
}

/// Runs `f` on this thread's tree search ([`with_thread_buffers`]).
fn with_tree_search<T>(f: impl FnOnce(&mut tree_search::TreeSearch) -> T) -> T {
    with_thread_buffers(&TREE_SEARCH, f)
}

/// The tree-search counterpart of [`solve_program`]: the menus of every
/// feature's cells built under `fixes` ([`separable::Workspace::build_tree_cells`]),
/// searched exactly ([`tree_search`]), read back through
/// [`checked_counterfactual`], with the same margin retries. An answer found
/// at the node or time limit is returned as [`Outcome::TimeLimit`] with its
/// proven relative gap `(cost − lower bound)/cost`.
fn solve_trees(
    schema: &Schema,
    ens: &crate::model::TreeEnsemble,
    factual: &[f64],
    config: &Config,
    fixes: &[Fix],
    cuts: &[Vec<usize>],
    mut warm: Option<&mut tree_warm::TreeWarmStarts>,
) -> Result<Solved> {
    let start = std::time::Instant::now();
    // Robust advice: the box of the target (`tree_box`), proven by the search.
    let half = match &config.robustness {
        Some(r) => tree_box::half_widths(schema, r)?,
        None => Vec::new(),
    };
    let tbox = tree_box::TreeBox::new(
        &half,
        config.robustness.map_or(BoxKind::Reals, |r| r.box_kind),
    );
    // Warm starts serve the plain first solve only (no fixes, cuts or box).
    if !(fixes.is_empty() && cuts.is_empty() && half.is_empty()) {
        warm = None;
    }
    with_workspace(|ws| {
        ws.build_tree_cells_in_box(schema, ens, factual, fixes, tbox)?;
        with_tree_search(|ts| {
            ts.prepare(ws, schema, ens)?;
            ts.set_tree_box(ws, schema, ens, tbox)?;
            ts.set_cuts(ws, schema, factual, cuts)?;
            if let Some(w) = warm.as_deref_mut() {
                for moves in w.nearest(schema, factual) {
                    ts.add_warm(ens, moves);
                }
            }
            let mut enc = vec![0.0; schema.encoded_dim()];
            let mut tolerance = config.margin;
            for _ in 0..3 {
                let need = ens.score_threshold() + tolerance;
                let left = (config.time_limit_seconds - start.elapsed().as_secs_f64()).max(0.0);
                let sol = ts.solve(ens, need, config.node_limit, left);
                let (status, gap) = match sol.status {
                    tree_search::SearchStatus::Optimal => (Outcome::Optimal, separable::PRUNE_REL),
                    tree_search::SearchStatus::Infeasible => {
                        return Ok(Solved::NoSolution(Outcome::Infeasible {
                            blocking: Vec::new(),
                            undecided: Vec::new(),
                        }));
                    }
                    tree_search::SearchStatus::LimitWithoutAnswer => {
                        return Ok(Solved::NoSolution(Outcome::Unknown {
                            raw_status: SEPARABLE_NODE_LIMIT_STATUS,
                        }));
                    }
                    tree_search::SearchStatus::LimitWithAnswer { lower_bound } => (
                        Outcome::TimeLimit { has_solution: true },
                        if sol.cost > 0.0 {
                            ((sol.cost - lower_bound) / sol.cost).max(0.0)
                        } else {
                            0.0
                        },
                    ),
                };
                ws.write_picks(schema, ts.picks(), &mut enc)?;
                // The box of the decoded answer, walked again by
                // `tree_box::worst_case_score`: a slip at the boundary is
                // retried with a larger margin, as a plain answer is.
                if !half.is_empty() {
                    let x = schema.encode(&schema.decode(&enc)?)?;
                    if tree_box::worst_case_score_in(schema, ens, tbox, &x) <= ens.score_threshold()
                    {
                        tolerance = (tolerance * 100.0).max(1e-9);
                        continue;
                    }
                }
                let cf = checked_counterfactual(
                    schema,
                    Scoring::Trees(ens, config.time_limit_seconds),
                    factual,
                    &enc,
                    status,
                    sol.cost,
                    gap,
                    tolerance,
                    start.elapsed().as_secs_f64(),
                    ProvedBy::TreeSearch,
                    config.robustness,
                )?;
                if let Some(cf) = cf {
                    if let Some(w) = warm.as_deref_mut() {
                        let mut moves = Vec::new();
                        ts.answer_moves(&mut moves);
                        w.record(schema, factual, &moves);
                    }
                    return Ok(Solved::Found(Box::new(cf)));
                }
                tolerance = (tolerance * 100.0).max(1e-9);
            }
            Ok(Solved::NoSolution(Outcome::Unknown { raw_status: -2 }))
        })
    })
}

/// The solver one explanation runs on, with the diversity fixes in place.
enum Backend {
    Mip {
        prog: Box<Program>,
        /// Bounds the last fix changed, to undo it.
        saved: Vec<(usize, f64, f64)>,
    },
    Separable {
        fixes: Vec<Fix>,
    },
    TreeSearch {
        fixes: Vec<Fix>,
        /// The distinct-subsets rule's no-good cuts: the changed feature sets
        /// of the explanations so far.
        cuts: Vec<Vec<usize>>,
    },
}

/// One explanation's program on its solver.
struct Run<'a> {
    schema: &'a Schema,
    scoring: Scoring<'a>,
    factual: &'a [f64],
    config: &'a Config,
    backend: Backend,
    /// The MIP carries the schema's cap on features changed
    /// ([`Schema::max_features_changed`]).
    capped: bool,
    /// Earlier answers of a book that warm-start the tree search
    /// ([`tree_warm`]); `None` for a single explanation.
    warm: Option<&'a mut tree_warm::TreeWarmStarts>,
}

impl<'a> Run<'a> {
    /// Picks the solver by [`Config::solver`]; `cuts` says the procedure needs
    /// no-good cuts (distinct subsets), which the MIP and the tree search
    /// express and the separable solver does not.
    fn new(
        schema: &'a Schema,
        scoring: Scoring<'a>,
        factual: &'a [f64],
        config: &'a Config,
        cuts: bool,
    ) -> Result<Run<'a>> {
        // Linear models and scorecards are separable; a tree ensemble's
        // splits couple its features.
        let separable_model = matches!(scoring, Scoring::Linear(..) | Scoring::Scorecard(_));
        let tree_model = matches!(scoring, Scoring::Trees(..));
        if tree_model && config.robustness.is_some() && config.solver == SolverChoice::Mip {
            return Err(Error::InvalidArgument(
                "robust advice on a tree ensemble is proven by the tree search (each tree's \
                 worst leaf over the answer's box); use solver 'auto' or 'tree_search'"
                    .into(),
            ));
        }
        let separable = match config.solver {
            SolverChoice::Mip => false,
            SolverChoice::TreeSearch if !tree_model => {
                return Err(Error::InvalidArgument(
                    "the tree search takes tree ensembles only; use solver 'auto', \
                     'separable' or 'mip'"
                        .into(),
                ));
            }
            SolverChoice::TreeSearch => false,
            SolverChoice::Auto => !cuts && separable_model,
            SolverChoice::Separable if !separable_model => {
                return Err(Error::InvalidArgument(
                    "the separable solver takes linear models and scorecards only (a tree \
                     ensemble's splits and a network's units couple its features); use solver \
                     'auto' or 'mip'"
                        .into(),
                ));
            }
            SolverChoice::Separable if cuts => {
                return Err(Error::InvalidArgument(
                    "the separable solver cannot express the distinct-subsets rule's \
                     no-good cuts; use solver 'auto' or 'mip'"
                        .into(),
                ));
            }
            SolverChoice::Separable => true,
        };
        let trees =
            tree_model && matches!(config.solver, SolverChoice::Auto | SolverChoice::TreeSearch);
        let backend = if separable {
            Backend::Separable { fixes: Vec::new() }
        } else if trees {
            Backend::TreeSearch {
                fixes: Vec::new(),
                cuts: Vec::new(),
            }
        } else {
            Backend::Mip {
                prog: Box::new(Program::build(
                    schema,
                    scoring,
                    factual,
                    scoring.first_margin(config),
                )?),
                saved: Vec::new(),
            }
        };
        Ok(Run {
            schema,
            scoring,
            factual,
            config,
            backend,
            capped: false,
            warm: None,
        })
    }

    /// Robust advice on a tree ensemble: only the tree search proves it, so
    /// the run never falls back to HiGHS.
    fn robust_trees(&self) -> bool {
        self.config.robustness.is_some() && matches!(self.scoring, Scoring::Trees(..))
    }

    fn proved_by(&self) -> ProvedBy {
        match self.backend {
            Backend::Mip { .. } => ProvedBy::Highs,
            Backend::Separable { .. } => ProvedBy::Separable,
            Backend::TreeSearch { .. } => ProvedBy::TreeSearch,
        }
    }

    /// Solves as [`Run::solve_uncapped`]; under a cap on features changed
    /// ([`Schema::max_features_changed`]) an answer within the cap is also
    /// optimal under it, so the cap costs nothing then. An answer that changes
    /// more moves the run to the MIP (HiGHS, named in `proved_by`) with the
    /// cardinality row Σ changedᵢ ≤ cap, kept for every later solve.
    fn solve(&mut self) -> Result<Solved> {
        let solved = self.solve_uncapped()?;
        let Some(cap) = self.schema.max_features_changed else {
            return Ok(solved);
        };
        match &solved {
            Solved::Found(cf) if !self.capped && cf.changes.len() > cap => {
                if self.robust_trees() {
                    return Err(Error::InvalidArgument(format!(
                        "robust advice on a tree ensemble cannot also cap the features \
                         changed (the cap needs HiGHS, which does not prove boxes): the \
                         robust answer changes {} features, the schema allows {cap}",
                        cf.changes.len()
                    )));
                }
                self.fall_back_to_mip()?;
                if let Backend::Mip { prog, .. } = &mut self.backend {
                    prog.cap_features_changed(self.schema, cap);
                }
                self.capped = true;
                self.solve_uncapped()
            }
            _ => Ok(solved),
        }
    }

    fn solve_uncapped(&mut self) -> Result<Solved> {
        let (schema, scoring, factual, config) =
            (self.schema, self.scoring, self.factual, self.config);
        let warm = self.warm.as_deref_mut();
        let solved = match &mut self.backend {
            Backend::Mip { prog, .. } => {
                return solve_program(schema, scoring, prog, factual, config);
            }
            Backend::Separable { fixes } => {
                with_workspace(|ws| solve_separable(schema, scoring, factual, config, fixes, ws))?
            }
            Backend::TreeSearch { fixes, cuts } => match scoring {
                Scoring::Trees(ens, _) => {
                    solve_trees(schema, ens, factual, config, fixes, cuts, warm)?
                }
                _ => {
                    return Err(Error::Solver(
                        "internal: the tree search was chosen for another model".into(),
                    ));
                }
            },
        };
        let node_limit = matches!(
            solved,
            Solved::NoSolution(Outcome::Unknown {
                raw_status: SEPARABLE_NODE_LIMIT_STATUS
            })
        );
        if node_limit && config.solver == SolverChoice::Auto && !self.robust_trees() {
            self.fall_back_to_mip()?;
            return self.solve_uncapped();
        }
        Ok(solved)
    }

    /// Moves to the MIP with the same fixes and cuts in place.
    fn fall_back_to_mip(&mut self) -> Result<()> {
        let (fixes, cuts) = match &mut self.backend {
            Backend::Separable { fixes } => (std::mem::take(fixes), Vec::new()),
            Backend::TreeSearch { fixes, cuts } => (std::mem::take(fixes), std::mem::take(cuts)),
            Backend::Mip { .. } => return Ok(()),
        };
        let mut prog = Program::build(
            self.schema,
            self.scoring,
            self.factual,
            self.scoring.first_margin(self.config),
        )?;
        for cut in &cuts {
            prog.add_no_good(cut);
        }
        self.backend = Backend::Mip {
            prog: Box::new(prog),
            saved: Vec::new(),
        };
        for fix in fixes {
            self.push_fix(fix);
        }
        Ok(())
    }

    /// Adds a fix; false (and nothing changed) when it contradicts the bounds
    /// already in place.
    fn push_fix(&mut self, fix: Fix) -> bool {
        match &mut self.backend {
            Backend::Separable { fixes } | Backend::TreeSearch { fixes, .. } => {
                fixes.push(fix);
                true
            }
            Backend::Mip { prog, saved } => {
                let cols: Vec<(usize, f64, f64)> = {
                    let fv = |i: usize| &prog.vars[i];
                    match fix {
                        Fix::Forbid { feature, state } => {
                            vec![(fv(feature).state_cols[state], 0.0, 0.0)]
                        }
                        Fix::ValueRange { feature } => vec![(fv(feature).state_cols[0], 1.0, 1.0)],
                        Fix::Stay { feature } => {
                            let v = fv(feature);
                            vec![(v.state_cols[v.factual_state], 1.0, 1.0)]
                        }
                        Fix::Freeze { feature } => {
                            let v = fv(feature);
                            [v.l, v.u]
                                .into_iter()
                                .flatten()
                                .map(|c| (c, 0.0, 0.0))
                                .collect()
                        }
                    }
                };
                saved.clear();
                saved.extend(
                    cols.iter()
                        .map(|&(c, _, _)| (c, prog.mip.lower[c], prog.mip.upper[c])),
                );
                let mut contradictory = false;
                for &(c, lo, hi) in &cols {
                    let (lo, hi) = (lo.max(prog.mip.lower[c]), hi.min(prog.mip.upper[c]));
                    contradictory |= lo > hi;
                    prog.mip.lower[c] = lo;
                    prog.mip.upper[c] = hi;
                }
                if contradictory {
                    self.pop_fix();
                }
                !contradictory
            }
        }
    }

    /// Undoes the last fix added.
    fn pop_fix(&mut self) {
        match &mut self.backend {
            Backend::Separable { fixes } | Backend::TreeSearch { fixes, .. } => {
                fixes.pop();
            }
            Backend::Mip { prog, saved } => {
                for &(c, lo, hi) in saved.iter() {
                    prog.mip.lower[c] = lo;
                    prog.mip.upper[c] = hi;
                }
                saved.clear();
            }
        }
    }
}

fn new_explanation(
    model: Scoring<'_>,
    factual: &[f64],
    score: f64,
    config: &Config,
) -> Explanation {
    let m = model.model();
    Explanation {
        factual: factual.to_vec(),
        factual_score: score,
        factual_probability: m.probability_of_score(score),
        threshold: m.threshold(),
        outcome: Outcome::Unknown { raw_status: 0 },
        proved_by: ProvedBy::Highs,
        counterfactuals: Vec::new(),
        diversity_stopped: None,
        robustness: config.robustness,
    }
}

/// The first solve of [`explain`] and [`explain_diverse`]; true when it found
/// a counterfactual.
fn first(run: &mut Run, ex: &mut Explanation) -> Result<bool> {
    let solved = run.solve()?;
    ex.proved_by = run.proved_by();
    match solved {
        Solved::Found(cf) => {
            ex.outcome = cf.status.clone();
            ex.counterfactuals.push(*cf);
            Ok(true)
        }
        Solved::NoSolution(Outcome::Infeasible { .. }) => {
            ex.outcome = blocking_groups(
                run.schema,
                run.scoring,
                run.factual,
                run.config,
                run.proved_by(),
            )?;
            Ok(false)
        }
        Solved::NoSolution(o) => {
            ex.outcome = o;
            Ok(false)
        }
    }
}

/// The optimal coherent counterfactual of a declined applicant (Russell 2019, eqs.
/// 4–21), or why there is none, proven by the solver [`Config::solver`] picks
/// (named in [`Explanation::proved_by`]).
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
    let mut ex = new_explanation(lin, factual, score, config);
    let mut run = Run::new(schema, lin, factual, config, false)?;
    first(&mut run, &mut ex)?;
    Ok(ex)
}

/// [`explain`] warm-started by the earlier answers of a book under a tree
/// ensemble ([`tree_warm`]): the same proven optimal cost, often found
/// sooner; the answer joins `warm`. Among answers of exactly equal cost the
/// one returned may differ from [`explain`]'s. Other models ignore `warm`.
pub fn explain_warm(
    schema: &Schema,
    model: &dyn Model,
    factual: &[f64],
    config: &Config,
    warm: &mut tree_warm::TreeWarmStarts,
) -> Result<Explanation> {
    let (lin, score) = prepare(schema, model, factual, config)?;
    let mut ex = new_explanation(lin, factual, score, config);
    let mut run = Run::new(schema, lin, factual, config, false)?;
    run.warm = Some(warm);
    first(&mut run, &mut ex)?;
    Ok(ex)
}

/// [`explain`] for a row the model may already accept, whose answer must
/// still meet the decision with [`Config::robustness`]'s margin: a waited row
/// of [`waiting`]'s outer loop that the model accepts, but not robustly.
fn explain_row(
    schema: &Schema,
    model: &dyn Model,
    row: &[f64],
    config: &Config,
) -> Result<Explanation> {
    let (scoring, score) = prepare_row(schema, model, row, config, false)?;
    let mut ex = new_explanation(scoring, row, score, config);
    let mut run = Run::new(schema, scoring, row, config, false)?;
    first(&mut run, &mut ex)?;
    Ok(ex)
}

fn same_row(a: &[f64], b: &[f64]) -> bool {
    a.iter().zip(b).all(|(x, y)| (x - y).abs() <= COHERENCE_TOL)
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
    // A model made for another schema fails every row alike: refused as a
    // call, not as one error per row.
    crate::model::check_model_for_schema(model, schema, "the schema")?;
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
    // A worker's panic continues on this thread, as it would on one thread.
    let parts: Vec<Vec<Result<Explanation>>> = std::thread::scope(|s| {
        let handles: Vec<_> = rows
            .chunks(chunk)
            .map(|c| crate::workers::spawn(s, move || c.iter().map(one).collect::<Vec<_>>()))
            .collect();
        handles.into_iter().map(crate::workers::join).collect()
    });
    Ok(parts.into_iter().flatten().collect())
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
    let prog = Program::build(schema, lin, factual, lin.first_margin(config))?;
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
