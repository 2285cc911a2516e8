//! Why a declined applicant has no recourse: the smallest sets of
//! [`ConstraintGroup`]s (immutables, directions, bounds, forbidden transitions)
//! whose relaxation restores one, found by re-solving on the solver that
//! proved infeasibility ([`Outcome::Infeasible`]).

use super::program::{Program, Scoring};
use super::{
    Config, ConstraintGroup, Outcome, ProvedBy, Solved, solve_program, solve_separable,
    solve_trees, with_workspace,
};
use crate::error::Result;
use crate::schema::{Direction, Schema};

/// The schema with the given constraint groups lifted (used to find what blocks
/// recourse).
pub(super) fn relaxed(schema: &Schema, groups: &[ConstraintGroup]) -> Result<Schema> {
    let mut features = schema.features.clone();
    for f in &mut features {
        for g in groups {
            match g {
                // A feature that grows with time is immutable to actions.
                ConstraintGroup::Immutables => {
                    f.actionability.mutable = true;
                    f.actionability.grows_with_time = None;
                }
                ConstraintGroup::Directions => f.actionability.direction = Direction::Any,
                // Change limits are bounds relative to the applicant.
                ConstraintGroup::Bounds => {
                    f.actionability.lower = None;
                    f.actionability.upper = None;
                    f.actionability.max_increase = None;
                    f.actionability.max_decrease = None;
                }
                ConstraintGroup::ForbiddenTransitions => {
                    f.actionability.forbidden_transitions.clear()
                }
            }
        }
    }
    // The cap on features changed is not a group: it stays.
    Schema::new_with_waiting(features, schema.waiting())?
        .with_max_features_changed(schema.max_features_changed)
}

/// Finds the smallest sets of constraint groups whose relaxation restores
/// recourse, by re-solving with each subset of groups relaxed (by size, skipping
/// supersets of sets already found), on the solver that proved infeasibility.
/// Returns them with the sets whose re-solve ended undecided (neither an answer
/// nor a proof of infeasibility).
pub(super) fn blocking_groups(
    schema: &Schema,
    model: Scoring<'_>,
    factual: &[f64],
    config: &Config,
    by: ProvedBy,
) -> Result<Outcome> {
    let mut found: Vec<u32> = Vec::new();
    let mut undecided: Vec<u32> = Vec::new();
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
        let solved = match (by, model) {
            (ProvedBy::Separable, Scoring::Linear(..) | Scoring::Scorecard(_)) => {
                with_workspace(|ws| solve_separable(&s, model, factual, &quick, &[], ws))?
            }
            (ProvedBy::TreeSearch, Scoring::Trees(ens, _)) => {
                solve_trees(&s, ens, factual, &quick, &[], &[], None)?
            }
            _ => {
                let mut prog = Program::build(&s, model, factual, model.first_margin(config))?;
                if matches!(model, Scoring::Mlp(..)) {
                    // A network's relaxed program without HiGHS's presolve: on
                    // HELOC's 1×200 network under the preset, HiGHS 1.16's
                    // `strengthenInequalities` ran 17 minutes past a 120 s limit
                    // on a relaxed re-solve (it reads the clock only between
                    // rows; BENCHMARKS.md §12), and a feasibility question
                    // needs no presolve to be answered within the limit.
                    prog.presolve = false;
                }
                solve_program(&s, model, &mut prog, factual, &quick)?
            }
        };
        match solved {
            Solved::Found(..) => found.push(mask),
            Solved::NoSolution(Outcome::Infeasible { .. }) => {}
            Solved::NoSolution(_) => undecided.push(mask),
        }
    }
    let groups = |masks: Vec<u32>| -> Vec<Vec<ConstraintGroup>> {
        masks
            .into_iter()
            .map(|m| {
                ConstraintGroup::ALL
                    .into_iter()
                    .filter(|g| m & g.bit() != 0)
                    .collect()
            })
            .collect()
    };
    Ok(Outcome::Infeasible {
        blocking: groups(found),
        undecided: groups(undecided),
    })
}
