//! The mixed-polytope MIP of Russell 2019, eqs. (4)–(21), with the sign corrections
//! of `seed-formulas.md` §1.3, built over a [`Schema`] and a [`LinearModel`] in
//! the encoded space (every contiguous slot in `[0, 1]`).
//!
//! Per contiguous feature `i` (anchor `v`, fixed value `F` while in a special state):
//!
//! ```text
//! d_{i,c} + Σ_j d_{i,j} = 1                      (4), (12)   one binary per state
//! c_i = F·(1 − d_{i,c}) + v·d_{i,c} − l_i + u_i     (5)         the slot
//! 0 ≤ l_i ≤ (v − L_i)·d_{i,c},  0 ≤ u_i ≤ (U_i − v)·d_{i,c}     (6), (7)
//! ```
//!
//! where `[L_i, U_i]` is the *actionable* range mapped to slots (the data range
//! tightened by `Actionability::lower/upper`). The paper's separate bounds (6),
//! (7) are used rather than the reference code's joint form: both are valid and
//! the objective never makes `l_i` and `u_i` both positive. Per categorical
//! feature: one binary per level, summing to one.
//!
//! Objective (16): `Σ W^c_i (l_i + u_i) + Σ s_{i,j} W_{i,j} d_{i,j}` with
//! `s = −1` for the factual's own discrete state and `+1` otherwise, plus the
//! constant `Σ W_{i,own}` so that the factual itself costs exactly 0 and the
//! objective *is* the cost of [`super::cost`].
//!
//! Decision (10)/(17) on the contiguous *values* (eq. 17 prints `a·(g+h)`, a typo):
//! `b + Σ a_{i,c} c_i + Σ a_{i,j} d_{i,j} ≥ logit(t) + margin`. cfx accepts when
//! the probability is *strictly* above `t`; the margin (default `1e-6`) keeps the
//! answer off the boundary so decoding and rounding cannot tip it back.
//!
//! # Actionability (derived; the paper only says such constraints "can be added")
//! * Immutable features and forbidden transitions: the binary of every state the
//!   feature may not move to ([`Schema::transition_allowed`]) is fixed to 0.
//! * Directions apply, as in [`Schema::check_actionable`], to value→value moves of
//!   a contiguous feature (increase-only fixes `l_i = 0`, decrease-only `u_i = 0`)
//!   and to the level index of a categorical. A move between a special state and
//!   the value range has no direction (a special state is not on the number line);
//!   forbid it with a forbidden transition if needed.
//! * Integer and step-grid features: when the factual value is in range (and so
//!   on the grid, which [`Schema::decode`] guarantees), `l_i` and `u_i` are
//!   integers counting grid steps (slot = `v + g_i·(u_i − l_i)`). Otherwise (the
//!   factual in a special state, or outside its actionable range) an integer
//!   `k_i ∈ [0, K_i]` places the value at `c_i = b_i + g_i·k_i`, where `b_i` is
//!   the first grid point inside the actionable range and `g_i` the grid step,
//!   both as slots.
//! * When the factual lies in a special state, the anchor `v` is the schema's
//!   fitted median slot (reference code `c.med[0]`) **clamped to the actionable
//!   range**, so a move into the value range costs `W_own + W^c·|c − v|`.
//! * A factual value outside its actionable range may stay where it is, or move
//!   into the range: a binary `stay_i` selects between the two (with `l_i = u_i = 0`
//!   when staying), since a move that lands outside the range would violate it.

use super::highs::Mip;
use crate::error::Result;
use crate::model::scorecard::{Compiled, Scorecard};
use crate::model::{LinearModel, MlpModel, TreeEnsemble};
use crate::schema::{Direction, FeatureKind, Schema};

/// The model class a program is built for: the decision row and the pruning
/// differ, the mixed polytope of the applicant's possible rows is shared.
#[derive(Debug, Clone, Copy)]
pub(crate) enum Scoring<'m> {
    /// A linear (logistic) model and the robust margin (score units) its
    /// decision row adds (`Config::robustness`; 0 without it).
    Linear(&'m LinearModel, f64),
    Scorecard(&'m Scorecard),
    /// A tree ensemble: OCEAN's leaf and split indicators joined to the
    /// polytope (Parmentier & Vidal 2021; `trees.rs`), and the time limit
    /// of the solve it serves (the tree search's first incumbent takes at
    /// most a share of it, `trees::START_SHARE`).
    Trees(&'m TreeEnsemble, f64),
    /// A ReLU network: one binary per unstable unit, big-M rows from bounds
    /// tightened over the polytope (`mlp.rs`).
    Mlp(&'m MlpModel, super::mlp::Tightening),
}

/// A value bin of a scorecard characteristic in the program: its binary and the
/// slot interval a value may take in it (open ends and grids applied).
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct BinVar {
    pub col: usize,
    pub lo: f64,
    pub hi: f64,
}

/// Slot distance kept from an excluded (open) bin edge of a real-valued
/// feature without a grid: 1e-6 of the feature's range `U − L`.
pub(crate) const OPEN_EDGE_GAP: f64 = 1e-6;
/// Slot distance kept from an included (closed) edge of a real-valued feature
/// without a grid, so that the decoded raw value (`L + slot·(U − L)`, rounded)
/// cannot fall on the wrong side of the edge.
pub(crate) const CLOSED_EDGE_GAP: f64 = 1e-12;

/// The slot interval `[lo, hi]` a value of feature `i` may take inside value bin
/// `k` (empty when `lo > hi`): on a grid ([`Schema::value_grid`]: the advice
/// grid, or the data's integer or step grid) the first and last
/// grid points inside the bin (an excluded edge is skipped to the next grid
/// point); without a grid, an excluded edge is kept [`OPEN_EDGE_GAP`] away and
/// an included one [`CLOSED_EDGE_GAP`]. Clipped to the value range `[0, 1]`
/// (the actionable range is the polytope's business). A degenerate feature
/// (`U = L`) has slot 0 in the bin holding `L` only.
pub(crate) fn bin_slot_interval(
    schema: &Schema,
    i: usize,
    values: &crate::model::scorecard::ValueBins,
    k: usize,
) -> (f64, f64) {
    let FeatureKind::Contiguous { lower, upper, .. } = &schema.features[i].kind else {
        return (1.0, 0.0);
    };
    if upper <= lower {
        return if values.of_raw(*lower) == k {
            (0.0, 0.0)
        } else {
            (1.0, 0.0)
        };
    }
    let (a, b) = (values.raw_lower[k], values.raw_upper[k]);
    let (ac, bc) = (values.lower_closed[k], values.upper_closed[k]);
    // The last bin's upper end is +∞ after compilation whatever the table said:
    // a value beyond it is outside [L, U] anyway.
    let grid = schema.value_grid(i);
    let slot = |v: f64| schema.value_to_slot(i, v);
    let (lo, hi) = match grid {
        Some((base, st)) => {
            const T: f64 = 1e-9;
            let lo = if a.is_finite() {
                let j = (a - base) / st;
                let j = if ac {
                    (j - T).ceil()
                } else {
                    (j + T).floor() + 1.0
                };
                slot(base + j * st)
            } else {
                f64::NEG_INFINITY
            };
            let hi = if b.is_finite() {
                let j = (b - base) / st;
                let j = if bc {
                    (j + T).floor()
                } else {
                    (j - T).ceil() - 1.0
                };
                slot(base + j * st)
            } else {
                f64::INFINITY
            };
            (lo, hi)
        }
        None => {
            let lo = if a.is_finite() {
                slot(a) + if ac { CLOSED_EDGE_GAP } else { OPEN_EDGE_GAP }
            } else {
                f64::NEG_INFINITY
            };
            let hi = if b.is_finite() {
                slot(b) - if bc { CLOSED_EDGE_GAP } else { OPEN_EDGE_GAP }
            } else {
                f64::INFINITY
            };
            (lo, hi)
        }
    };
    (lo.max(0.0), hi.min(1.0))
}

/// The scorecard analogue of [`dominated_states`]: a special state or level
/// other than the factual's whose points are below the factual's own points for
/// this feature, or equal at a positive cost, is never used by an optimum
/// (staying put scores at least as much for less, and no diversity rule ever
/// forbids staying put). The value state itself is never pruned here; its bins
/// are (in `build_scorecard`).
fn scorecard_dominated_states(
    schema: &Schema,
    card: &Scorecard,
    factual: &[f64],
    i: usize,
) -> Result<Vec<bool>> {
    let f = &schema.features[i];
    let s_f = f.state_of(factual[i])?;
    let w = schema.weights(i);
    let mut out = vec![false; f.n_states()];
    for c in card.compiled() {
        match c {
            Compiled::Categorical {
                feature,
                level_points,
                ..
            } if *feature == i => {
                let own = level_points[s_f];
                for (j, d) in out.iter_mut().enumerate() {
                    let p = level_points[j];
                    let cost = w.states[s_f] + w.states[j];
                    *d = j != s_f && (p < own || (p == own && cost > 0.0));
                }
            }
            Compiled::Contiguous {
                feature,
                special_points,
                values,
                ..
            } if *feature == i => {
                let own = if s_f == 0 {
                    values.points[values.of_raw(factual[i])]
                } else {
                    special_points[s_f - 1]
                };
                let own_w = if s_f == 0 { 0.0 } else { w.states[s_f - 1] };
                for j in 1..out.len() {
                    let p = special_points[j - 1];
                    let cost = own_w + w.states[j - 1];
                    out[j] = j != s_f && (p < own || (p == own && cost > 0.0));
                }
            }
            _ => {}
        }
    }
    Ok(out)
}

/// What the shared polytope builder may leave out for a model class (see
/// [`dominated_states`]): states no optimum uses, and the sign of the slot's
/// score weight (a linear model only: moving against it never pays).
struct Pruning {
    dominated: Vec<bool>,
    slot_weight: Option<f64>,
}

/// How the grid of an integer / step feature maps to slots: `slot = base + step·k`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct Grid {
    pub base: f64,
    pub step: f64,
    pub k_col: usize,
}

/// The columns of one feature.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct FeatureVars {
    /// One binary per state (contiguous: value, then special states; categorical: levels).
    pub state_cols: Vec<usize>,
    pub l: Option<usize>,
    pub u: Option<usize>,
    pub stay: Option<usize>,
    pub grid: Option<Grid>,
    /// The anchor slot `v`.
    pub anchor: f64,
    /// The slot value in special states.
    pub fixed: f64,
    pub factual_state: usize,
    pub contiguous: bool,
    /// Slot length of one unit of `l`/`u`: 1, or the grid step when `l`, `u`
    /// count whole grid steps (`steps`).
    pub unit: f64,
    pub steps: bool,
    /// "Changed" indicator, added on demand by the distinct-subsets rule.
    pub changed: Option<usize>,
    /// Scorecard value bins (empty for other models): the chosen bin bounds the slot.
    pub bins: Vec<BinVar>,
    /// The minimum change's disjunction (`Schema::min_change`), when the
    /// feature has one: binaries "moved down", "moved up" and the least `l`,
    /// `u` (in their units) each demands.
    pub min_change: Option<MinChange>,
}

/// The minimum change of one feature in the program: `l ≥ t_down·down`,
/// `l ≤ lmax·down`, `u ≥ t_up·up`, `u ≤ umax·up`, `down + up ≤ 1` — the
/// value stays, or moves one way by at least the minimum (a disjunction
/// with a binary per side; one side at a time, or `l` and `u` could both be
/// positive and net a smaller move).
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct MinChange {
    pub down: usize,
    pub up: usize,
    pub t_down: f64,
    pub t_up: f64,
}

/// A built program and how to read its solutions back.
#[derive(Debug, Clone)]
pub(crate) struct Program {
    pub mip: Mip,
    pub vars: Vec<FeatureVars>,
    /// Index of the decision row; its lower bound is `threshold_rhs + margin`.
    pub decision_row: usize,
    pub threshold_rhs: f64,
    /// Whether HiGHS presolves the program (the tree MIP turns it off).
    pub presolve: bool,
    /// Whether HiGHS may run its sub-MIP heuristics (RENS, RINS) and root
    /// restarts on the program; a network's program turns them off (see
    /// [`super::highs::Options`]).
    pub sub_mips_and_restarts: bool,
    /// A feasible point handed to HiGHS as its first incumbent (every
    /// column), when the model's builder found one (`mlp_primal.rs`).
    pub start: Option<Vec<f64>>,
    /// Seconds the building took of the first solve's time limit (a
    /// network's bound tightening), taken off that solve's limit.
    pub spent_seconds: f64,
    /// The months-to-wait variable, when the program prices waiting
    /// ([`super::waiting`]); `None` otherwise.
    pub wait: Option<super::waiting::WaitColumns>,
}

/// States no optimal answer can use, under any of the constraints cfx adds
/// (diversity fixes and cuts never forbid staying put): a state whose best score
/// contribution is below the factual state's (which costs nothing to keep), or
/// equal to it at a positive cost. Leaving them out shrinks the branch-and-bound
/// tree without changing any optimum (the brute-force oracle test checks this).
fn dominated_states(
    schema: &Schema,
    model: &LinearModel,
    factual: &[f64],
    i: usize,
    s_f: usize,
) -> Vec<bool> {
    let f = &schema.features[i];
    let layout = schema.layout(i);
    let w = schema.weights(i);
    let mw = &model.weights;
    let n = f.n_states();
    match &f.kind {
        FeatureKind::Contiguous {
            lower,
            upper,
            fixed_value,
            ..
        } => {
            let a = mw[layout.start];
            let (lo, hi) = schema.move_range(i, factual[i]).unwrap_or((*lower, *upper));
            let (lb, ub) = if upper > lower {
                (schema.value_to_slot(i, lo), schema.value_to_slot(i, hi))
            } else {
                (0.0, 0.0)
            };
            let special = |j: usize| a * fixed_value + mw[layout.start + j];
            let own = if s_f == 0 {
                if upper > lower {
                    a * schema.value_to_slot(i, factual[i])
                } else {
                    0.0
                }
            } else {
                special(s_f)
            };
            let own_w = if s_f == 0 { 0.0 } else { w.states[s_f - 1] };
            (0..n)
                .map(|j| {
                    if j == s_f {
                        return false;
                    }
                    let (best, cost) = if j == 0 {
                        (a * if a > 0.0 { ub } else { lb }, own_w)
                    } else {
                        (special(j), own_w + w.states[j - 1])
                    };
                    best < own - 1e-12 || (best <= own && cost > 0.0)
                })
                .collect()
        }
        FeatureKind::Categorical { .. } => {
            let own = mw[layout.start + s_f];
            (0..n)
                .map(|j| {
                    let best = mw[layout.start + j];
                    let cost = w.states[s_f] + w.states[j];
                    j != s_f && (best < own - 1e-12 || (best <= own && cost > 0.0))
                })
                .collect()
        }
    }
}

/// Adds feature `i`'s part of the mixed polytope (eqs. 4–7, 12 and the
/// actionability rows of the module docs) to `mip`: its state binaries with
/// their signed costs, the slot's `l`, `u` (and `stay`, grid `k`) columns.
fn add_feature(
    mip: &mut Mip,
    schema: &Schema,
    i: usize,
    factual: &[f64],
    prune: &Pruning,
) -> Result<FeatureVars> {
    let f = &schema.features[i];
    let w = schema.weights(i);
    let s_f = f.state_of(factual[i])?;
    let n_states = f.n_states();
    let contiguous = f.is_contiguous();
    // State binaries with their signed costs (objective 16).
    let mut state_cols = Vec::with_capacity(n_states);
    for (j, &dominated_j) in prune.dominated.iter().enumerate() {
        let wj = if contiguous {
            if j == 0 { 0.0 } else { w.states[j - 1] }
        } else {
            w.states[j]
        };
        let cost = if j == s_f { -wj } else { wj };
        let mut allowed = schema.transition_allowed(i, s_f, j) && !dominated_j;
        if !contiguous && j != s_f {
            match f.index_direction() {
                Direction::IncreaseOnly if j < s_f => allowed = false,
                Direction::DecreaseOnly if j > s_f => allowed = false,
                _ => {}
            }
        }
        let col = mip.add_col(cost, 0.0, if allowed { 1.0 } else { 0.0 }, true);
        if j == s_f {
            mip.offset += wj;
        }
        state_cols.push(col);
    }
    mip.add_row(
        1.0,
        1.0,
        &state_cols.iter().map(|&c| (c, 1.0)).collect::<Vec<_>>(),
    );
    let mut fv = FeatureVars {
        state_cols,
        l: None,
        u: None,
        stay: None,
        grid: None,
        anchor: 0.0,
        fixed: 0.0,
        factual_state: s_f,
        contiguous,
        unit: 1.0,
        steps: false,
        changed: None,
        bins: Vec::new(),
        min_change: None,
    };
    if let FeatureKind::Contiguous {
        lower,
        upper,
        fixed_value,
        ..
    } = &f.kind
    {
        let (lo, hi) = schema.move_range(i, factual[i]).unwrap_or((*lower, *upper));
        let degenerate = upper <= lower;
        let (lb, ub) = if degenerate {
            (0.0, 0.0)
        } else {
            (schema.value_to_slot(i, lo), schema.value_to_slot(i, hi))
        };
        let d_c = fv.state_cols[0];
        let v = if s_f == 0 {
            if degenerate {
                0.0
            } else {
                schema.value_to_slot(i, factual[i])
            }
        } else {
            w.anchor.clamp(lb, ub)
        };
        fv.anchor = v;
        fv.fixed = *fixed_value;
        let grid = if degenerate {
            None
        } else {
            schema.grid_points(i, lo, hi)
        };
        // A factual value off its advice grid (`Schema::value_grid`) may
        // stay, or move onto the grid: as one outside its actionable range.
        let off_grid = s_f == 0 && grid.is_some() && !schema.on_value_grid(i, factual[i]);
        let outside = s_f == 0 && (v < lb - 1e-12 || v > ub + 1e-12 || off_grid);
        let mut lmax = (v - lb).max(0.0);
        let mut umax = (ub - v).max(0.0);
        if !f.actionability.mutable {
            lmax = 0.0;
            umax = 0.0;
        }
        if s_f == 0 {
            match f.actionability.direction {
                Direction::IncreaseOnly => lmax = 0.0,
                Direction::DecreaseOnly => umax = 0.0,
                Direction::Any => {}
            }
        }
        // A factual value on the grid, inside its range, moves by whole grid
        // steps: l and u count steps (integers) and no k is needed.
        let steps = grid.is_some() && s_f == 0 && !outside;
        let unit = match grid {
            Some((_, g_raw, _)) if steps => g_raw / (upper - lower),
            _ => 1.0,
        };
        if steps {
            lmax = (lmax / unit + 1e-9).floor();
            umax = (umax / unit + 1e-9).floor();
        }
        if let Some(a) = prune
            .slot_weight
            .filter(|_| !outside && (steps || grid.is_none()))
        {
            // Moving the value against the model's weight lowers the score
            // and costs more than not moving: dominated (see `dominated_states`).
            if a > 0.0 || (a == 0.0 && w.value > 0.0) {
                lmax = 0.0;
            }
            if a < 0.0 || (a == 0.0 && w.value > 0.0) {
                umax = 0.0;
            }
        }
        let l = mip.add_col(w.value * unit, 0.0, lmax, steps);
        let u = mip.add_col(w.value * unit, 0.0, umax, steps);
        mip.add_row(f64::NEG_INFINITY, 0.0, &[(l, 1.0), (d_c, -lmax)]);
        mip.add_row(f64::NEG_INFINITY, 0.0, &[(u, 1.0), (d_c, -umax)]);
        fv.l = Some(l);
        fv.u = Some(u);
        fv.unit = unit;
        fv.steps = steps;
        let m = schema.min_change(i);
        if s_f == 0 && m > 0.0 && !degenerate && (lmax > 0.0 || umax > 0.0) {
            let span = upper - lower;
            // The least move each way, in l/u units. On whole steps: the
            // steps that reach m. On a k grid (the factual off it or outside
            // the range): halfway between the nearest grid point the band
            // excludes and the first it allows, so that the solver's
            // tolerance cannot admit the one or refuse the other. Otherwise m.
            let (t_down, t_up) = match grid {
                _ if steps => {
                    let t = (m / span / unit - 1e-9).ceil().max(1.0);
                    (t, t)
                }
                Some((base, g, _)) if !steps => {
                    let x = factual[i];
                    let k_dn = ((x - m - base) / g + 1e-9).floor();
                    let k_up = ((x + m - base) / g - 1e-9).ceil();
                    let d_dn = x - (base + k_dn * g);
                    let d_up = base + k_up * g - x;
                    (
                        (m * (1.0 - 1e-9)).max(d_dn - g / 2.0) / span,
                        (m * (1.0 - 1e-9)).max(d_up - g / 2.0) / span,
                    )
                }
                _ => (m / span, m / span),
            };
            let down = mip.add_col(0.0, 0.0, if lmax >= t_down { 1.0 } else { 0.0 }, true);
            let up = mip.add_col(0.0, 0.0, if umax >= t_up { 1.0 } else { 0.0 }, true);
            mip.add_row(f64::NEG_INFINITY, 0.0, &[(l, 1.0), (down, -lmax)]);
            mip.add_row(0.0, f64::INFINITY, &[(l, 1.0), (down, -t_down)]);
            mip.add_row(f64::NEG_INFINITY, 0.0, &[(u, 1.0), (up, -umax)]);
            mip.add_row(0.0, f64::INFINITY, &[(u, 1.0), (up, -t_up)]);
            mip.add_row(f64::NEG_INFINITY, 1.0, &[(down, 1.0), (up, 1.0)]);
            fv.min_change = Some(MinChange {
                down,
                up,
                t_down,
                t_up,
            });
        }
        let grid = if steps { None } else { grid };
        let stay = if outside {
            let s = mip.add_col(0.0, 0.0, 1.0, true);
            mip.add_row(f64::NEG_INFINITY, 0.0, &[(s, 1.0), (d_c, -1.0)]);
            // c' ≥ lb·(d_c − s) + v·s  and  c' ≤ ub·(d_c − s) + v·s, c' = v·d_c − l + u.
            mip.add_row(
                0.0,
                f64::INFINITY,
                &[(d_c, v - lb), (l, -1.0), (u, 1.0), (s, lb - v)],
            );
            mip.add_row(
                f64::NEG_INFINITY,
                0.0,
                &[(d_c, v - ub), (l, -1.0), (u, 1.0), (s, ub - v)],
            );
            fv.stay = Some(s);
            Some(s)
        } else {
            None
        };
        if let Some((base_raw, g_raw, k_max)) = grid {
            let span = upper - lower;
            let b = (base_raw - lower) / span;
            let g = g_raw / span;
            if k_max < 0 {
                // No grid point in the actionable range: the value can only stay.
                match stay {
                    Some(s) => mip.add_row(0.0, f64::INFINITY, &[(s, 1.0), (d_c, -1.0)]),
                    None if s_f != 0 => mip.fix(d_c, 0.0),
                    None => {
                        mip.fix(l, 0.0);
                        mip.fix(u, 0.0);
                    }
                }
            } else {
                let k = mip.add_col(0.0, 0.0, k_max as f64, true);
                // v·d_c − l + u = b·(d_c − s) + g·k + v·s
                let mut eq = vec![(d_c, v - b), (l, -1.0), (u, 1.0), (k, -g)];
                let mut cap = vec![(k, 1.0), (d_c, -(k_max as f64))];
                if let Some(s) = stay {
                    eq.push((s, b - v));
                    cap.push((s, k_max as f64));
                }
                mip.add_row(0.0, 0.0, &eq);
                mip.add_row(f64::NEG_INFINITY, 0.0, &cap);
                fv.grid = Some(Grid {
                    base: b,
                    step: g,
                    k_col: k,
                });
            }
        }
    }
    Ok(fv)
}

impl Program {
    /// Builds the MIP for one declined applicant (`factual` raw row, coherent):
    /// the mixed polytope of the rows the applicant may move to, shared by every
    /// model class, and the decision row of the model's class.
    pub fn build(
        schema: &Schema,
        scoring: Scoring<'_>,
        factual: &[f64],
        margin: f64,
    ) -> Result<Program> {
        match scoring {
            Scoring::Linear(m, _) => Program::build_linear(schema, m, factual, margin),
            Scoring::Scorecard(m) => Program::build_scorecard(schema, m, factual, margin),
            Scoring::Trees(m, limit) => super::trees::build(schema, m, factual, margin, limit),
            Scoring::Mlp(m, t) => super::mlp::build(schema, m, factual, margin, t),
        }
    }

    /// The schema's mixed polytope alone (states, slots, grids, actionability)
    /// with the factual's cost, for a model that adds its own decision row with
    /// [`Program::set_decision`] (the tree MIP). Nothing is pruned by a model's
    /// weights.
    pub fn polytope(schema: &Schema, factual: &[f64]) -> Result<Program> {
        let mut mip = Mip::default();
        let mut vars = Vec::with_capacity(schema.n_features());
        for (i, f) in schema.features.iter().enumerate() {
            let prune = Pruning {
                dominated: vec![false; f.n_states()],
                slot_weight: None,
            };
            vars.push(add_feature(&mut mip, schema, i, factual, &prune)?);
        }
        Ok(Program {
            mip,
            vars,
            decision_row: usize::MAX,
            threshold_rhs: f64::NAN,
            presolve: true,
            sub_mips_and_restarts: true,
            start: None,
            spent_seconds: 0.0,
            wait: None,
        })
    }

    /// Adds the decision row `Σ coef·x ≥ threshold_rhs + margin`.
    pub fn set_decision(&mut self, entries: &[(usize, f64)], threshold_rhs: f64, margin: f64) {
        self.decision_row = self.mip.n_rows();
        self.threshold_rhs = threshold_rhs;
        self.mip
            .add_row(threshold_rhs + margin, f64::INFINITY, entries);
    }

    /// The slot of contiguous feature `i` as a linear expression of the
    /// columns, `v·d_c + unit·(u − l)`: the slot in the value state, 0 in a
    /// special state (where `d_c = l = u = 0`).
    pub fn slot_expression(&self, i: usize) -> Vec<(usize, f64)> {
        let fv = &self.vars[i];
        let mut e = vec![(fv.state_cols[0], fv.anchor)];
        if let Some(u) = fv.u {
            e.push((u, fv.unit));
        }
        if let Some(l) = fv.l {
            e.push((l, -fv.unit));
        }
        e
    }

    /// The linear decision row (10)/(17): `b + Σ a_{i,c} c_i + Σ a_{i,j} d_{i,j}
    /// ≥ logit(t) + margin`.
    fn build_linear(
        schema: &Schema,
        model: &LinearModel,
        factual: &[f64],
        margin: f64,
    ) -> Result<Program> {
        let mut mip = Mip::default();
        let mut vars = Vec::with_capacity(schema.n_features());
        let mut decision: Vec<(usize, f64)> = Vec::new();
        let mut constant = model.bias;
        let w_model = &model.weights;
        for (i, f) in schema.features.iter().enumerate() {
            let layout = schema.layout(i);
            let s_f = f.state_of(factual[i])?;
            let prune = Pruning {
                dominated: dominated_states(schema, model, factual, i, s_f),
                slot_weight: layout.value.map(|c| w_model[c]),
            };
            let fv = add_feature(&mut mip, schema, i, factual, &prune)?;
            for (j, &col) in fv.state_cols.iter().enumerate() {
                if let Some(e) = layout.indicator_of_state(j) {
                    decision.push((col, w_model[e]));
                }
            }
            if let (Some(slot), Some(l), Some(u)) = (layout.value, fv.l, fv.u) {
                let a = w_model[slot];
                constant += a * fv.fixed;
                decision.push((fv.state_cols[0], a * (fv.anchor - fv.fixed)));
                decision.push((l, -a * fv.unit));
                decision.push((u, a * fv.unit));
            }
            vars.push(fv);
        }
        let threshold_rhs = crate::model::logit(model.threshold) - constant;
        let decision_row = mip.n_rows();
        mip.add_row(threshold_rhs + margin, f64::INFINITY, &decision);
        Ok(Program {
            mip,
            vars,
            decision_row,
            threshold_rhs,
            presolve: true,
            sub_mips_and_restarts: true,
            start: None,
            spent_seconds: 0.0,
            wait: None,
        })
    }

    /// The scorecard program: per contiguous feature one binary per value bin,
    /// summing to the "value" state binary, the slot confined to the chosen
    /// bin's interval (open ends and grids applied, see [`bin_slot_interval`]);
    /// special states and levels carry their bins' points directly. Decision:
    /// `base + Σ points ≥ cutoff` (a tie is accepted; the margin is 0 unless a
    /// retry raises it, see `solve_program`).
    fn build_scorecard(
        schema: &Schema,
        card: &Scorecard,
        factual: &[f64],
        margin: f64,
    ) -> Result<Program> {
        card.check_schema(schema)?;
        let mut mip = Mip::default();
        let mut vars = Vec::with_capacity(schema.n_features());
        for i in 0..schema.n_features() {
            let prune = Pruning {
                dominated: scorecard_dominated_states(schema, card, factual, i)?,
                slot_weight: None,
            };
            vars.push(add_feature(&mut mip, schema, i, factual, &prune)?);
        }
        let mut decision: Vec<(usize, f64)> = Vec::new();
        for c in card.compiled() {
            match c {
                Compiled::Categorical {
                    feature,
                    level_points,
                    ..
                } => {
                    for (&col, &p) in vars[*feature].state_cols.iter().zip(level_points) {
                        decision.push((col, p));
                    }
                }
                Compiled::Contiguous {
                    feature,
                    special_points,
                    values,
                    ..
                } => {
                    let i = *feature;
                    for (&col, &p) in vars[i].state_cols[1..].iter().zip(special_points) {
                        decision.push((col, p));
                    }
                    let fv = &vars[i];
                    let (d_c, l, u, v, unit) = (
                        fv.state_cols[0],
                        fv.l.expect("contiguous"),
                        fv.u.expect("contiguous"),
                        fv.anchor,
                        fv.unit,
                    );
                    let mut bins = Vec::with_capacity(values.points.len());
                    let mut sum = vec![(d_c, -1.0)];
                    // E = v·d_c + unit·(u − l) is the slot when d_c = 1 and 0
                    // otherwise (l, u count grid steps when `steps`).
                    let mut above = vec![(d_c, v), (l, -unit), (u, unit)];
                    let mut below = above.clone();
                    let s_f = fv.factual_state;
                    let own_bin = (s_f == 0).then(|| values.of_raw(factual[i]));
                    let own_points = match own_bin {
                        Some(k) => values.points[k],
                        None => special_points[s_f - 1],
                    };
                    let w = schema.weights(i);
                    // Cost of entering the value range at all, beyond the slot's move.
                    let leave = if s_f == 0 { 0.0 } else { w.states[s_f - 1] };
                    for k in 0..values.points.len() {
                        let (lo, hi) = bin_slot_interval(schema, i, values, k);
                        // The factual's own bin holds its value, on the advice
                        // grid or not: staying put is always allowed.
                        // (A bin with no grid point holds no other value, and
                        // one with some none between their ends and the factual.)
                        let (lo, hi) = if own_bin == Some(k) {
                            let x = schema.value_to_slot(i, factual[i]).clamp(0.0, 1.0);
                            if lo > hi {
                                (x, x)
                            } else {
                                (lo.min(x), hi.max(x))
                            }
                        } else {
                            (lo, hi)
                        };
                        // As `dominated_states`: a bin scoring below the factual's
                        // points, or the same at a positive cost, is never optimal.
                        let p = values.points[k];
                        let dominated = own_bin != Some(k)
                            && (p < own_points
                                || (p == own_points && (leave > 0.0 || w.value > 0.0)));
                        let feasible = lo <= hi && !dominated;
                        let col = mip.add_col(0.0, 0.0, if feasible { 1.0 } else { 0.0 }, true);
                        let (lo, hi) = if feasible { (lo, hi) } else { (0.0, 0.0) };
                        sum.push((col, 1.0));
                        above.push((col, -lo));
                        below.push((col, -hi));
                        decision.push((col, values.points[k]));
                        bins.push(BinVar { col, lo, hi });
                    }
                    mip.add_row(0.0, 0.0, &sum);
                    mip.add_row(0.0, f64::INFINITY, &above);
                    mip.add_row(f64::NEG_INFINITY, 0.0, &below);
                    vars[i].bins = bins;
                }
            }
        }
        let threshold_rhs = card.cutoff - card.base_points;
        let decision_row = mip.n_rows();
        mip.add_row(threshold_rhs + margin, f64::INFINITY, &decision);
        Ok(Program {
            mip,
            vars,
            decision_row,
            threshold_rhs,
            presolve: true,
            sub_mips_and_restarts: true,
            start: None,
            spent_seconds: 0.0,
            wait: None,
        })
    }

    /// Sets the decision margin (the decision row's lower bound).
    pub fn set_margin(&mut self, margin: f64) {
        self.mip.row_lower[self.decision_row] = self.threshold_rhs + margin;
    }

    /// The state a solution puts feature `i` in.
    pub fn state(&self, i: usize, x: &[f64]) -> usize {
        let cols = &self.vars[i].state_cols;
        let mut best = 0;
        for (j, &c) in cols.iter().enumerate() {
            if x[c] > x[cols[best]] {
                best = j;
            }
        }
        best
    }

    /// The encoded vector of a solution: states rounded, slots read from the
    /// grid or the anchor, clamped to `[0, 1]` (exact up to solver tolerance).
    pub fn encoded(&self, schema: &Schema, x: &[f64]) -> Vec<f64> {
        let mut out = vec![0.0; schema.encoded_dim()];
        for (i, fv) in self.vars.iter().enumerate() {
            let layout = schema.layout(i);
            let s = self.state(i, x);
            if let Some(e) = layout.indicator_of_state(s) {
                out[e] = 1.0;
            }
            if let Some(slot) = layout.value {
                out[slot] = if s != 0 {
                    fv.fixed
                } else if fv.stay.is_some_and(|c| x[c] > 0.5) {
                    fv.anchor
                } else if let Some(g) = fv.grid {
                    (g.base + g.step * x[g.k_col].round()).clamp(0.0, 1.0)
                } else {
                    let read = |c: Option<usize>, least: Option<(usize, f64)>| {
                        let v = c.map_or(0.0, |c| x[c]);
                        let v = if fv.steps { v.round() } else { v };
                        // A move the minimum change demands is at least it
                        // (exact: the solver's tolerance may leave it a hair short).
                        match least {
                            Some((b, t)) if x[b] > 0.5 => v.max(t),
                            _ => v,
                        }
                    };
                    let mc = fv.min_change;
                    let u = read(fv.u, mc.map(|m| (m.up, m.t_up)));
                    let l = read(fv.l, mc.map(|m| (m.down, m.t_down)));
                    (fv.anchor + fv.unit * (u - l)).clamp(0.0, 1.0)
                };
                // A scorecard's chosen bin bounds the slot exactly (the solver's
                // tolerance may leave it a hair outside).
                if s == 0 {
                    if let Some(b) = fv.bins.iter().max_by(|a, b| x[a.col].total_cmp(&x[b.col])) {
                        out[slot] = out[slot].clamp(b.lo, b.hi);
                    }
                }
            }
        }
        out
    }

    /// Closes every ending of a feature whose own cost exceeds `cap`: the
    /// states that cost more, and the value moves `l`, `u` beyond the budget
    /// the value state leaves. Every feature's cost is non-negative and the
    /// objective is their sum, so every row costing at most `cap` keeps its
    /// columns — an optimum no dearer than an incumbent of cost `cap` is
    /// still in the program, and bounds derived from the smaller polytope
    /// (a network's, `mlp.rs`) should hold wherever the program can go (the
    /// engine does not use it yet: see `mlp::Tightening::incumbent_cap`
    /// for the instance where the capped network program missed its
    /// optimum). Not for a
    /// program that prices waiting or carries scorecard bins, nor when a
    /// cost is negative: then nothing changes and the answer is false.
    pub fn restrict_to_cost(&mut self, cap: f64) -> bool {
        if self.wait.is_some() || !cap.is_finite() || cap < 0.0 {
            return false;
        }
        let m = &self.mip;
        let state_cost = |fv: &FeatureVars, j: usize| {
            m.cost[fv.state_cols[j]] - m.cost[fv.state_cols[fv.factual_state]]
        };
        let per_unit = |c: Option<usize>| c.map_or(0.0, |c| m.cost[c]);
        let negative = self.vars.iter().any(|fv| {
            !fv.bins.is_empty()
                || (0..fv.state_cols.len()).any(|j| state_cost(fv, j) < 0.0)
                || per_unit(fv.l) < 0.0
                || per_unit(fv.u) < 0.0
        });
        if negative {
            return false;
        }
        // Rounding of the costs' sums: far below any cost step.
        let cap = cap * (1.0 + 1e-9) + 1e-9;
        let mut closed: Vec<usize> = Vec::new();
        let mut moves: Vec<(usize, f64)> = Vec::new();
        for fv in &self.vars {
            for j in 0..fv.state_cols.len() {
                if state_cost(fv, j) > cap {
                    closed.push(fv.state_cols[j]);
                }
            }
            if fv.contiguous {
                let budget = cap - state_cost(fv, 0);
                for c in [fv.l, fv.u].into_iter().flatten() {
                    let w = m.cost[c];
                    if w > 0.0 && budget >= 0.0 {
                        let room = budget / w;
                        let room = if fv.steps {
                            (room + 1e-9).floor()
                        } else {
                            room
                        };
                        moves.push((c, room));
                    }
                }
            }
        }
        for c in closed {
            self.mip.upper[c] = 0.0_f64.max(self.mip.lower[c]);
        }
        for (c, room) in moves {
            self.mip.upper[c] = self.mip.upper[c].min(room).max(self.mip.lower[c]);
        }
        true
    }

    /// Every column's value at the row whose feature `i` ends in state
    /// `endings[i].0` with slot `endings[i].1` (read in the value state
    /// only): the state binaries, the moves `l`/`u` (whole steps when
    /// `steps`), the stay and grid columns, and the "changed" indicators. The
    /// columns a model adds (a network's units) are left 0 for its builder
    /// to fill; the waiting columns are not set (`None` for a program that
    /// prices waiting). The inverse of [`Program::encoded`] on the polytope.
    pub fn columns_of(&self, endings: &[(usize, f64)]) -> Option<Vec<f64>> {
        if self.wait.is_some() || endings.len() != self.vars.len() {
            return None;
        }
        let mut x = vec![0.0; self.mip.n_cols()];
        for (fv, &(state, slot)) in self.vars.iter().zip(endings) {
            if !fv.bins.is_empty() {
                return None; // a scorecard's program, solved otherwise
            }
            x[*fv.state_cols.get(state)?] = 1.0;
            let (mut l, mut u) = (0.0, 0.0);
            if state == 0 && fv.contiguous {
                let stays = fv.stay.is_some() && (slot - fv.anchor).abs() <= 1e-12;
                if stays {
                    x[fv.stay?] = 1.0;
                } else {
                    let delta = (slot - fv.anchor) / fv.unit;
                    let steps = |v: f64| if fv.steps { v.round() } else { v };
                    u = steps(delta.max(0.0));
                    l = steps((-delta).max(0.0));
                    if let Some(g) = fv.grid {
                        x[g.k_col] = ((slot - g.base) / g.step).round();
                    }
                }
                if let Some(c) = fv.l {
                    x[c] = l;
                }
                if let Some(c) = fv.u {
                    x[c] = u;
                }
                if let Some(m) = fv.min_change {
                    x[m.down] = if l > 0.0 { 1.0 } else { 0.0 };
                    x[m.up] = if u > 0.0 { 1.0 } else { 0.0 };
                }
            }
            if let Some(z) = fv.changed {
                let moved = state != fv.factual_state || l > 0.0 || u > 0.0;
                x[z] = if moved { 1.0 } else { 0.0 };
            }
        }
        Some(x)
    }

    /// The distinct-subsets rule's no-good cut (Ustun et al. 2019's flipsets): at least
    /// one of `features` stays unchanged (`Σ_{i ∈ S} z_i ≤ |S| − 1`).
    pub fn add_no_good(&mut self, features: &[usize]) {
        let zs: Vec<(usize, f64)> = features
            .iter()
            .map(|&i| (self.changed_indicator(i), 1.0))
            .collect();
        self.mip
            .add_row(f64::NEG_INFINITY, (features.len() as f64) - 1.0, &zs);
    }

    /// The cardinality row Σᵢ changedᵢ ≤ `cap` over every feature an action
    /// may move (the schema's `max_features_changed`, issue 25; a feature
    /// that grows with time moves only by waiting, which is not an action),
    /// with the "changed" indicators of [`Program::changed_indicator`]. Exact:
    /// an indicator is forced to 1 whenever its feature moves, so every row
    /// the program then admits changes at most `cap` features by action.
    pub fn cap_features_changed(&mut self, schema: &Schema, cap: usize) {
        let zs: Vec<(usize, f64)> = (0..self.vars.len())
            .filter(|&i| {
                let a = &schema.features[i].actionability;
                a.mutable && a.grows_with_time.is_none()
            })
            .map(|i| (self.changed_indicator(i), 1.0))
            .collect();
        if zs.len() > cap {
            self.mip.add_row(f64::NEG_INFINITY, cap as f64, &zs);
        }
    }

    /// The binary "feature `i` changed" (added once, on demand): it is forced to 1
    /// when the feature leaves its factual state or its slot moves.
    pub fn changed_indicator(&mut self, i: usize) -> usize {
        if let Some(z) = self.vars[i].changed {
            return z;
        }
        let z = self.mip.add_col(0.0, 0.0, 1.0, true);
        let fv = &self.vars[i];
        let own = fv.state_cols[fv.factual_state];
        self.mip
            .add_row(1.0, f64::INFINITY, &[(z, 1.0), (own, 1.0)]);
        for c in [fv.l, fv.u].into_iter().flatten() {
            let m = self.mip.upper[c].max(0.0);
            if m > 0.0 {
                self.mip
                    .add_row(f64::NEG_INFINITY, 0.0, &[(c, 1.0), (z, -m)]);
            }
        }
        self.vars[i].changed = Some(z);
        z
    }
}
