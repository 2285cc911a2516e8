//! Diverse explanations ([`explain_diverse`]): after the optimum, further
//! alternatives by Russell's per-feature fixes (Russell 2019, reference code
//! `fix_values`) or by distinct changed-feature subsets (the flipsets of Ustun
//! et al. 2019). Each [`Fix`] is data, so that all three solvers run the very
//! same procedure.

use super::program::Scoring;
use super::{Backend, Run, Solved, first, new_explanation, prepare, same_row};
use super::{Config, Counterfactual, DiversityRule, Explanation, Outcome};
use crate::error::{Error, Result};
use crate::model::Model;
use crate::schema::{Change, Schema};

/// One of Russell's per-feature fixes (§1.4 of `seed-formulas.md`), as data, so
/// that both solvers run the very same diversity procedure.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Fix {
    /// (a) The feature may not end in `state` (`d_{i,state} = 0`).
    Forbid { feature: usize, state: usize },
    /// (b) as intended: the feature keeps its factual special state (`d_{i,own} = 1`).
    Stay { feature: usize },
    /// (b) as the reference code has it: the feature ends in its value range (`d_{i,c} = 1`).
    ValueRange { feature: usize },
    /// (c) The feature's in-range value does not move (`l_i = u_i = 0`).
    Freeze { feature: usize },
}

/// The fix Russell's procedure adds for one change of the last explanation.
fn russell_fix(
    schema: &Schema,
    factual: &[f64],
    ch: &Change,
    reference_case_b: bool,
) -> Result<Fix> {
    let feature = ch.feature;
    let f = &schema.features[feature];
    let s_new = f.state_of(ch.to)?;
    let s_old = f.state_of(factual[feature])?;
    Ok(if !f.is_contiguous() || s_new != 0 {
        Fix::Forbid {
            feature,
            state: s_new,
        }
    } else if s_old != 0 && reference_case_b {
        Fix::ValueRange { feature }
    } else if s_old != 0 {
        Fix::Stay { feature }
    } else {
        Fix::Freeze { feature }
    })
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
/// Every fix acts on one feature, so the separable solver runs Russell's rules;
/// the distinct-subsets rule's cuts need the MIP or, for tree ensembles, the
/// tree search ([`SolverChoice`](super::SolverChoice)).
pub fn explain_diverse(
    schema: &Schema,
    model: &dyn Model,
    factual: &[f64],
    config: &Config,
) -> Result<Explanation> {
    let (mut lin, score) = prepare(schema, model, factual, config)?;
    if let (Scoring::Mlp(_, t), true) = (&mut lin, config.n_diverse > 1) {
        // The alternatives after the optimum may be dearer than the first
        // incumbent: a network's bounds must hold over every answer.
        t.cost_bounds = false;
    }
    let mut ex = new_explanation(lin, factual, score, config);
    let cuts = config.diversity == DiversityRule::DistinctSubsets && config.n_diverse > 1;
    let mut run = Run::new(schema, lin, factual, config, cuts)?;
    if !first(&mut run, &mut ex)? {
        return Ok(ex);
    }
    match config.diversity {
        DiversityRule::Russell => russell(&mut run, &mut ex, false)?,
        DiversityRule::RussellReferenceCode => russell(&mut run, &mut ex, true)?,
        DiversityRule::DistinctSubsets => distinct_subsets(&mut run, &mut ex)?,
    }
    Ok(ex)
}

fn russell(run: &mut Run, ex: &mut Explanation, reference_case_b: bool) -> Result<()> {
    while ex.counterfactuals.len() < run.config.n_diverse {
        let last = ex.counterfactuals.last().cloned();
        let Some(last) = last else { break };
        let mut current: Option<Counterfactual> = None;
        let mut seconds = 0.0;
        for ch in &last.changes {
            let fix = russell_fix(run.schema, run.factual, ch, reference_case_b)?;
            if !run.push_fix(fix) {
                continue;
            }
            // A fix is dropped only when it makes the program infeasible; a
            // solve that ends undecided (time limit, other status) stops the
            // procedure and is reported, since dropping or keeping the fix would
            // both be guesses.
            match run.solve()? {
                Solved::Found(cf) => {
                    seconds += cf.solve_seconds;
                    current = Some(*cf);
                }
                Solved::NoSolution(Outcome::Infeasible { .. }) => run.pop_fix(),
                Solved::NoSolution(other) => {
                    run.pop_fix();
                    ex.diversity_stopped = Some(other);
                    return Ok(());
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

fn distinct_subsets(run: &mut Run, ex: &mut Explanation) -> Result<()> {
    while ex.counterfactuals.len() < run.config.n_diverse {
        let Some(last) = ex.counterfactuals.last() else {
            break;
        };
        let changed: Vec<usize> = last.changes.iter().map(|c| c.feature).collect();
        if changed.is_empty() {
            break;
        }
        match &mut run.backend {
            Backend::Mip { prog, .. } => prog.add_no_good(&changed),
            Backend::TreeSearch { cuts, .. } => cuts.push(changed),
            Backend::Separable { .. } => {
                return Err(Error::Solver(
                    "internal: the separable solver was chosen for the distinct-subsets rule"
                        .into(),
                ));
            }
        }
        match run.solve()? {
            Solved::Found(cf) => {
                if ex.counterfactuals.iter().any(|p| same_row(&p.raw, &cf.raw)) {
                    break;
                }
                ex.counterfactuals.push(*cf);
            }
            Solved::NoSolution(Outcome::Infeasible { .. }) => break,
            Solved::NoSolution(other) => {
                ex.diversity_stopped = Some(other);
                break;
            }
        }
    }
    Ok(())
}
