//! The MIP of a ReLU network joined to the schema's mixed polytope: the
//! standard exact encoding of a piecewise-linear network (Tjeng, Xiao &
//! Tedrake, "Evaluating Robustness of Neural Networks with Mixed Integer
//! Programming", ICLR 2019, eq. 6; Fischetti & Jo 2018), over the states,
//! slots and grids of [`Program::polytope`] (Russell 2019), so that cost,
//! coherence and actionability are exactly those of the linear MIP. Kanamori
//! et al. (DACE, IJCAI 2020, §4) solve counterfactuals of ReLU MLPs the same
//! way.
//!
//! # The network's input
//! [`MlpModel`] reads the encoded vector x̂ of [`Schema::encode`] (min–max
//! slots and indicators), which is an affine function of the polytope's
//! columns: an indicator is its state's binary `d_{i,j}`, a slot is
//! `F + (v − F)·d_{i,c} + unit·(u_i − l_i)` (`F` the slot in special states,
//! `v` the anchor; see `program.rs`). Every first-layer pre-activation is
//! therefore an affine expression of the columns, with no extra variable.
//!
//! # Bounds
//! Each hidden unit `z = w·h + b` needs an interval `[L, U]` valid over every
//! row the applicant may move to:
//! * First layer, exact per feature: the polytope is a product over features,
//!   so `max z = b + Σ_i max_{state j allowed} (w·x̂ of feature i in state j)`,
//!   the slot of the value state at the end of its reachable range `[v −
//!   unit·l̄, v + unit·ū]` that favours the unit (interval arithmetic, but over
//!   each feature's own finite set of states rather than a box of x̂).
//! * Deeper layers: interval arithmetic from the previous layer's clipped
//!   bounds `[max(L, 0), max(U, 0)]`, then optimisation-based bound
//!   tightening (OBBT): minimise and maximise `z` over the LP relaxation of
//!   the program built so far (the polytope and the earlier layers' rows),
//!   one warm-started HiGHS LP pair per still-unstable unit
//!   ([`super::highs::lp_ranges`]). Every bound is widened by [`LP_SLACK`]
//!   before use, so that neither the LP's tolerances nor HiGHS's presolve,
//!   working to its own tolerance on a bound the optimum meets with
//!   equality, cut off a feasible row. OBBT stops at a quarter of the time limit; a unit it did
//!   not reach keeps its interval bound (valid, only looser).
//!
//! # Bounds under the incumbent's cost
//! With [`Tightening::cost_bounds`] (one optimum sought) and a first
//! incumbent of cost `C` that keeps to the schema's cap on features changed,
//! the bounds need only hold over the rows no dearer than `C`: the optimum
//! is one of them (or the incumbent itself). Every unstable unit, the first
//! layer's too, is then minimised and maximised over the LP relaxation of
//! the program built so far plus the row `objective ≤ C + COST_SLACK·(|C| +
//! 1)`, in a copy of the program ([`relaxation`]): the MIP itself gets no
//! cost row. Its feasible set keeps every row cheaper than the incumbent,
//! with its true unit outputs, and the incumbent; a dearer row that the
//! tighter network rows misjudge can never beat the incumbent. This is
//! optimisation-based bound tightening under an objective cutoff: a MIP
//! solver's cutoff, applied to the network's bounds before the big-M rows
//! are written. On German's 1×200 network it leaves 4–123 of the 200 units
//! unstable (first 20 declined applicants) where per-feature bounds left
//! all 200.
//!
//! # First incumbent and cost cap
//! Before the bounds, [`mlp_primal::greedy_start`] looks for a coherent row
//! the network accepts with the last retry's margin; its columns
//! ([`Program::columns_of`], then the units' by a forward evaluation) go to
//! HiGHS as a start, so that a time limit always has an answer and a gap.
//! With [`Tightening::incumbent_cap`] its cost `C` first closes every
//! feature ending dearer than `C` ([`Program::restrict_to_cost`]) before the
//! bounds are derived. The engine leaves the cap off for now: one random
//! instance proved a dearer optimum with it than without (see the field).
//!
//! [`crate::coherent::Config`]'s `mlp_bound_tightening = false` builds the
//! textbook formulation instead: interval arithmetic over the box of x̂ (each
//! encoded input alone between its least and greatest reachable value) on
//! every layer, no LP — the reference the scale example compares against.
//!
//! # Solving
//! HiGHS solves the program with its presolve but without its sub-MIP
//! heuristics (RENS, RINS, root reduced cost) or root restarts ([`super::highs::Options`]),
//! and a unit's output column `y` has no upper bound of its own (`y ≤ U·δ`,
//! or `y = z` for a linear unit, bounds it; the feasible set is the same).
//! HiGHS 1.16's presolve strengthens the coefficients of every inequality
//! whose columns all have finite bounds (`HPresolve::strengthenInequalities`,
//! a cover loop per row that no `presolve_rule_off` bit turns off and that
//! reads the clock only between rows); on a big-M row of HELOC's 1×200
//! network (applicant #4 of `examples/mlp_scale.rs`) it ran more than four
//! minutes past a 20 s limit. It skips a row with an unbounded column, so it
//! skips every row of the network. Presolve off altogether also keeps the
//! limit but was up to 4× slower on German 1×200 (BENCHMARKS.md section 12).
//!
//! # Units
//! A unit with `U ≤ 0` is dead (its output is the constant 0 and drops out);
//! one with `L ≥ 0` is linear (`y = z`, a continuous column); an unstable one
//! (`L < 0 < U`) gets a binary δ and the big-M rows
//!
//! ```text
//! y ≥ 0,   y ≥ z,   y ≤ z − L·(1 − δ),   y ≤ U·δ
//! ```
//!
//! which with δ integral give exactly `y = max(z, 0)`. The output unit (the
//! log-odds) is linear and the decision row is `w·h + b ≥ logit(t) +
//! margin`, as for every model. Tanh and sigmoid units are not piecewise
//! linear: a network with one is refused ([`check_network`]).

use super::highs::{self, Mip};
use super::mlp_primal;
use super::program::Program;
use crate::error::{Error, Result};
use crate::model::{MlpModel, Model, logit};
use crate::nn::Activation;
use crate::schema::Schema;

/// Relative widening of an LP bound (`|value| + 1` times this): far above the
/// LP's feasibility and optimality tolerances (1e-9), far below any unit's
/// scale.
pub(crate) const LP_SLACK: f64 = 1e-7;

/// Relative widening of the incumbent's cost in the bound tightening's cost
/// row (`|C| + 1` times this): far above HiGHS's tolerances, far below any
/// difference of cost the engine reports.
const COST_SLACK: f64 = 1e-7;

/// Share of the solve's time limit the bound tightening may take.
const OBBT_SHARE: f64 = 0.25;

/// How the program of a ReLU network bounds its units.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct Tightening {
    /// Bound the first layer per feature and run OBBT on the layers after
    /// it; off, plain interval arithmetic over the box of x̂ (each encoded
    /// input alone between its least and greatest value), the textbook big-M.
    pub tighten: bool,
    /// The solve's time limit (OBBT takes at most [`OBBT_SHARE`] of it).
    pub time_limit: f64,
    /// The program serves one optimum, not a diverse set: the first
    /// incumbent's cost may then close every ending dearer than it
    /// ([`Program::restrict_to_cost`]) before the bounds are derived. Not
    /// yet used by the engine (always false there): with it, one random
    /// instance of the Russell-set test proved a dearer optimum than without
    /// (0.666 against 0.527). That instance was HiGHS's presolve; with
    /// presolve off, 2 of 300 random capped programs (`random_case`, seed
    /// 3901, cases 138 and 238) were declared infeasible although the first
    /// incumbent is feasible in them (to 1e-9, the test of `mlp_tests.rs`),
    /// and capped optima came out up to 2e-9 relative dearer (seed 12, case
    /// 35): the cap leaves programs whose optimum sits on the cap, where
    /// HiGHS's tolerances decide. Uncapped, the same 780 instances agree
    /// with brute force with presolve on or off, with or without the start.
    pub incumbent_cap: bool,
    /// The program serves one optimum (not a diverse set, whose later
    /// answers may be dearer): every unit's bounds may then hold only over
    /// the answers no dearer than the first incumbent (module docs, "Bounds
    /// under the incumbent's cost"). The MIP itself gets no cost row.
    pub cost_bounds: bool,
}

/// The decision margin of the last of the engine's retries after `margin`
/// (`solve_program`: ×100, at least 1e-9, twice): a first incumbent that
/// meets it meets every retry's decision row, so its cost caps the optimum
/// of each.
fn last_retry_margin(margin: f64) -> f64 {
    let once = (margin * 100.0).max(1e-9);
    (once * 100.0).max(1e-9).max(margin)
}

/// Refuses a network the exact encoding cannot express: every hidden layer
/// must be ReLU (or linear), the output layer linear with one unit.
pub(crate) fn check_network(m: &MlpModel) -> Result<()> {
    m.validate()?;
    let layers = &m.network.layers;
    for (k, l) in layers[..layers.len() - 1].iter().enumerate() {
        match l.activation {
            Activation::Relu | Activation::Identity => {}
            a @ (Activation::Tanh | Activation::Sigmoid) => {
                return Err(Error::InvalidArgument(format!(
                    "the exact engine proves answers for ReLU networks only: hidden layer {} \
                     uses {}, which is not piecewise linear; use Wachter, PROBE or CROCO for \
                     this network",
                    k + 1,
                    if a == Activation::Tanh {
                        "tanh"
                    } else {
                        "sigmoid"
                    }
                )));
            }
        }
    }
    Ok(())
}

/// An affine expression of the program's columns.
#[derive(Debug, Clone, Default)]
struct Affine {
    constant: f64,
    terms: Vec<(usize, f64)>,
}

/// What the unit counts of a built program were (for tests and the scale example).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(crate) struct UnitCounts {
    pub dead: usize,
    pub linear: usize,
    pub unstable: usize,
}

/// How a program's units were bounded (for tests).
#[derive(Debug, Clone, Default, PartialEq)]
pub(crate) struct Built {
    pub counts: UnitCounts,
    /// Per hidden layer, each unit's pre-activation bounds `[L, U]` as
    /// written into the program (widened by the slack).
    pub bounds: Vec<Vec<(f64, f64)>>,
    /// The incumbent's cost the bounds assume no answer exceeds (the cost
    /// row's right-hand side before the slack and the objective's offset),
    /// `None` when they hold over every answer.
    pub cost_cap: Option<f64>,
}

/// The encoded input x̂ as affine expressions of the polytope's columns.
fn input_expressions(schema: &Schema, prog: &Program) -> Vec<Affine> {
    let mut x = vec![Affine::default(); schema.encoded_dim()];
    for (i, fv) in prog.vars.iter().enumerate() {
        let layout = schema.layout(i);
        for (j, &col) in fv.state_cols.iter().enumerate() {
            if let Some(e) = layout.indicator_of_state(j) {
                x[e].terms.push((col, 1.0));
            }
        }
        if let Some(slot) = layout.value {
            let e = &mut x[slot];
            e.constant = fv.fixed;
            e.terms.push((fv.state_cols[0], fv.anchor - fv.fixed));
            if let Some(u) = fv.u {
                e.terms.push((u, fv.unit));
            }
            if let Some(l) = fv.l {
                e.terms.push((l, -fv.unit));
            }
        }
    }
    x
}

/// A slot column of x̂ with the interval it may take.
type SlotRange = (usize, f64, f64);

/// Per feature, the encoded sub-vectors it may take: per allowed state, the
/// indicator it sets and the slot interval (a point in a special state).
struct FeatureStates {
    /// (indicator column of x̂, slot column of x̂ with its interval).
    states: Vec<(Option<usize>, Option<SlotRange>)>,
}

fn feature_states(schema: &Schema, prog: &Program) -> Vec<FeatureStates> {
    prog.vars
        .iter()
        .enumerate()
        .map(|(i, fv)| {
            let layout = schema.layout(i);
            let ub = |c: Option<usize>| c.map_or(0.0, |c| prog.mip.upper[c].max(0.0));
            let states = fv
                .state_cols
                .iter()
                .enumerate()
                .filter(|&(_, &col)| prog.mip.upper[col] > 0.5)
                .map(|(j, _)| {
                    let slot = layout.value.map(|s| {
                        if j == 0 {
                            let lo = fv.anchor - fv.unit * ub(fv.l);
                            let hi = fv.anchor + fv.unit * ub(fv.u);
                            (s, lo, hi)
                        } else {
                            (s, fv.fixed, fv.fixed)
                        }
                    });
                    (layout.indicator_of_state(j), slot)
                })
                .collect();
            FeatureStates { states }
        })
        .collect()
}

/// Each encoded input's least and greatest value over the feature's allowed
/// states, alone (the box of x̂ that plain interval arithmetic uses).
fn input_box(schema: &Schema, feats: &[FeatureStates]) -> Vec<(f64, f64)> {
    let mut b = vec![(f64::INFINITY, f64::NEG_INFINITY); schema.encoded_dim()];
    for (i, f) in feats.iter().enumerate() {
        let layout = schema.layout(i);
        for e in layout.start..layout.start + layout.width {
            for &(ind, slot) in &f.states {
                let (lo, hi) = match slot {
                    Some((s, sl, sh)) if s == e => (sl, sh),
                    _ => {
                        let v = if ind == Some(e) { 1.0 } else { 0.0 };
                        (v, v)
                    }
                };
                b[e] = (b[e].0.min(lo), b[e].1.max(hi));
            }
        }
    }
    b.into_iter()
        .map(|(lo, hi)| if lo > hi { (0.0, 0.0) } else { (lo, hi) })
        .collect()
}

/// The first layer's unit `o` over the polytope, exactly per feature (module
/// docs, "Bounds"). `None` when some feature has no allowed state (the
/// polytope is empty; the MIP will say infeasible).
fn first_layer_bounds(feats: &[FeatureStates], row: &[f64], bias: f64) -> Option<(f64, f64)> {
    let (mut lo, mut hi) = (bias, bias);
    for f in feats {
        let (mut flo, mut fhi) = (f64::INFINITY, f64::NEG_INFINITY);
        for &(ind, slot) in &f.states {
            let base = ind.map_or(0.0, |e| row[e]);
            let (a, b) = match slot {
                Some((s, sl, sh)) => {
                    let (p, q) = (row[s] * sl, row[s] * sh);
                    (p.min(q), p.max(q))
                }
                None => (0.0, 0.0),
            };
            flo = flo.min(base + a);
            fhi = fhi.max(base + b);
        }
        if flo > fhi {
            return None;
        }
        lo += flo;
        hi += fhi;
    }
    Some((lo, hi))
}

/// `b + Σ_p w_p·h_p` with the `h_p` affine, terms merged per column.
fn combine(row: &[f64], bias: f64, h: &[Affine], acc: &mut Vec<f64>) -> Affine {
    let mut out = Affine {
        constant: bias,
        terms: Vec::new(),
    };
    let mut touched: Vec<usize> = Vec::new();
    for (w, e) in row.iter().zip(h) {
        if *w == 0.0 {
            continue;
        }
        out.constant += w * e.constant;
        for &(c, v) in &e.terms {
            if c >= acc.len() {
                acc.resize(c + 1, 0.0);
            }
            if acc[c] == 0.0 {
                touched.push(c);
            }
            acc[c] += w * v;
        }
    }
    // A column whose sum cancelled to 0 and grew again is listed twice.
    touched.sort_unstable();
    touched.dedup();
    for c in touched {
        if acc[c] != 0.0 {
            out.terms.push((c, acc[c]));
        }
        acc[c] = 0.0;
    }
    out
}

/// Builds the program of a ReLU network for one applicant (module docs).
pub(super) fn build(
    schema: &Schema,
    model: &MlpModel,
    factual: &[f64],
    margin: f64,
    tightening: Tightening,
) -> Result<Program> {
    Ok(build_counted(schema, model, factual, margin, tightening)?.0)
}

/// [`build`] with how the units were bounded.
pub(crate) fn build_counted(
    schema: &Schema,
    model: &MlpModel,
    factual: &[f64],
    margin: f64,
    tightening: Tightening,
) -> Result<(Program, Built)> {
    check_network(model)?;
    crate::error::check_len(
        "model input dimension vs schema encoded dimension",
        schema.encoded_dim(),
        model.input_dim(),
    )?;
    let start = std::time::Instant::now();
    let budget = OBBT_SHARE * tightening.time_limit;
    let mut prog = Program::polytope(schema, factual)?;
    let need = logit(model.threshold) + last_retry_margin(margin);
    let first = mlp_primal::greedy_start(schema, model, factual, need)?
        .and_then(|s| checked_start(schema, model, factual, &prog, s, need));
    // The incumbent is a point of every program this one becomes: the
    // retries' decision rows (its margin is the last retry's) and the cap on
    // features changed that a later solve may add (`Run::solve`), if it
    // keeps to that cap.
    let within_cap = first.as_ref().is_some_and(|(x0, _)| {
        let changed = prog
            .vars
            .iter()
            .filter(|fv| {
                x0[fv.state_cols[fv.factual_state]] < 0.5
                    || [fv.l, fv.u].into_iter().flatten().any(|c| x0[c] > 0.0)
            })
            .count();
        schema.max_features_changed.is_none_or(|c| changed <= c)
    });
    if let (Some((_, cap)), true, true) = (&first, tightening.incumbent_cap, within_cap) {
        prog.restrict_to_cost(*cap);
    }
    // The row `objective ≤ C` of the bound tightening's LPs (never the MIP's).
    let cost_row: Option<(Vec<(usize, f64)>, f64)> = match &first {
        Some((_, cap))
            if tightening.tighten
                && tightening.cost_bounds
                && within_cap
                && prog.wait.is_none()
                && cap.is_finite() =>
        {
            let m = &prog.mip;
            let terms: Vec<(usize, f64)> = m
                .cost
                .iter()
                .enumerate()
                .filter(|&(_, &c)| c != 0.0)
                .map(|(j, &c)| (j, c))
                .collect();
            let slack = COST_SLACK * (cap.abs() + 1.0);
            Some((terms, cap + slack - m.offset))
        }
        _ => None,
    };
    let feats = feature_states(schema, &prog);
    let input_box = input_box(schema, &feats);
    let mut h = input_expressions(schema, &prog);
    let mut acc: Vec<f64> = Vec::new();
    let mut counts = UnitCounts::default();
    let mut written: Vec<Vec<(f64, f64)>> = Vec::new();
    let layers = &model.network.layers;
    let mut prev_bounds: Vec<(f64, f64)> = Vec::new();
    // Every unit with a column: its pre-activation, output and binary.
    let mut units: Vec<(Affine, usize, Option<usize>)> = Vec::new();
    for (k, layer) in layers.iter().enumerate() {
        let rows = |o: usize| &layer.weights[o * layer.n_in..(o + 1) * layer.n_in];
        let z: Vec<Affine> = (0..layer.n_out)
            .map(|o| combine(rows(o), layer.bias[o], &h, &mut acc))
            .collect();
        if k + 1 == layers.len() {
            // The output unit: the log-odds.
            let score = &z[0];
            prog.set_decision(
                &score.terms,
                logit(model.threshold) - score.constant,
                margin,
            );
            break;
        }
        // Interval bounds.
        let mut bounds: Vec<(f64, f64)> = (0..layer.n_out)
            .map(|o| {
                if k == 0 && tightening.tighten {
                    first_layer_bounds(&feats, rows(o), layer.bias[o]).unwrap_or((0.0, 0.0))
                } else if k == 0 {
                    let (mut lo, mut hi) = (layer.bias[o], layer.bias[o]);
                    for (w, &(a, b)) in rows(o).iter().zip(&input_box) {
                        let (p, q) = (w * a, w * b);
                        lo += p.min(q);
                        hi += p.max(q);
                    }
                    (lo, hi)
                } else {
                    let (mut lo, mut hi) = (layer.bias[o], layer.bias[o]);
                    for (w, &(a, b)) in rows(o).iter().zip(&prev_bounds) {
                        let (p, q) = (w * a, w * b);
                        lo += p.min(q);
                        hi += p.max(q);
                    }
                    (lo, hi)
                }
            })
            .collect();
        let relu = layer.activation == Activation::Relu;
        if relu && (k > 0 || cost_row.is_some()) && tightening.tighten {
            let open: Vec<usize> = (0..layer.n_out)
                .filter(|&o| bounds[o].0 < 0.0 && bounds[o].1 > 0.0)
                .collect();
            let left = budget - start.elapsed().as_secs_f64();
            if !open.is_empty() && left > 0.0 {
                let objectives: Vec<Vec<(usize, f64)>> =
                    open.iter().map(|&o| z[o].terms.clone()).collect();
                let ranges =
                    highs::lp_ranges(&relaxation(&prog.mip, cost_row.as_ref()), &objectives, left);
                for (&o, r) in open.iter().zip(ranges) {
                    if let Some((a, b)) = r {
                        let c = z[o].constant;
                        bounds[o] = (bounds[o].0.max(a + c), bounds[o].1.min(b + c));
                    }
                }
            }
        }
        // Every bound is widened by the slack: an LP value carries the LP's
        // tolerances, and a bound met with equality by the optimum (the first
        // layer's are attained exactly) let HiGHS's presolve declare a
        // feasible program infeasible (seen on a random instance).
        for b in &mut bounds {
            *b = (
                b.0 - LP_SLACK * (b.0.abs() + 1.0),
                b.1 + LP_SLACK * (b.1.abs() + 1.0),
            );
        }
        written.push(bounds.clone());
        let mut next = Vec::with_capacity(layer.n_out);
        let mut next_bounds = Vec::with_capacity(layer.n_out);
        for (o, zo) in z.into_iter().enumerate() {
            let (lo, hi) = bounds[o];
            let mip: &mut Mip = &mut prog.mip;
            if !relu {
                // A linear hidden layer: y = z.
                next_bounds.push((lo, hi));
                next.push(zo);
                continue;
            }
            if hi <= 0.0 {
                counts.dead += 1;
                next.push(Affine::default());
                next_bounds.push((0.0, 0.0));
                continue;
            }
            // No upper bound on the column: `y ≤ U·δ` (or `y = z`) bounds it,
            // and HiGHS's presolve then leaves the unit's rows alone (module
            // docs, "Solving").
            let y = mip.add_col(0.0, lo.max(0.0), f64::INFINITY, false);
            let n_units = units.len();
            // y − Σ a·col  (= z's constant when linear)
            let mut row: Vec<(usize, f64)> = Vec::with_capacity(zo.terms.len() + 2);
            row.push((y, 1.0));
            row.extend(zo.terms.iter().map(|&(c, v)| (c, -v)));
            if lo >= 0.0 {
                counts.linear += 1;
                mip.add_row(zo.constant, zo.constant, &row);
                units.push((zo, y, None));
            } else {
                counts.unstable += 1;
                let d = mip.add_col(0.0, 0.0, 1.0, true);
                // y ≥ z
                mip.add_row(zo.constant, f64::INFINITY, &row);
                // y ≤ z − L·(1 − δ)  ⇔  y − z − L·δ ≤ −L
                row.push((d, -lo));
                mip.add_row(f64::NEG_INFINITY, zo.constant - lo, &row);
                // y ≤ U·δ
                mip.add_row(f64::NEG_INFINITY, 0.0, &[(y, 1.0), (d, -hi)]);
                units.push((zo, y, Some(d)));
            }
            debug_assert_eq!(units.len(), n_units + 1);
            next.push(Affine {
                constant: 0.0,
                terms: vec![(y, 1.0)],
            });
            next_bounds.push((lo.max(0.0), hi));
        }
        h = next;
        prev_bounds = next_bounds;
    }
    prog.sub_mips_and_restarts = false;
    let cost_cap = first
        .as_ref()
        .filter(|_| cost_row.is_some())
        .map(|(_, cap)| *cap);
    prog.start = first.map(|(x0, _)| complete_units(&prog.mip, &units, x0));
    prog.spent_seconds = start.elapsed().as_secs_f64();

    Ok((
        prog,
        Built {
            counts,
            bounds: written,
            cost_cap,
        },
    ))
}

/// The program's relaxation for the bound tightening: with the row
/// `Σ terms ≤ rhs` (the objective under the incumbent's cost) when the bounds
/// may assume an answer no dearer than the incumbent.
fn relaxation<'a>(
    mip: &'a Mip,
    cost_row: Option<&(Vec<(usize, f64)>, f64)>,
) -> std::borrow::Cow<'a, Mip> {
    match cost_row {
        Some((terms, rhs)) => {
            let mut lp = mip.clone();
            lp.add_row(f64::NEG_INFINITY, *rhs, terms);
            std::borrow::Cow::Owned(lp)
        }
        None => std::borrow::Cow::Borrowed(mip),
    }
}

/// The polytope's columns of the heuristic's answer and the cost that caps
/// the optimum: the largest of the heuristic's own sum, the program's
/// objective at those columns and [`cost`](super::cost) of the row they
/// decode to — three computations of one number, so that a slip in any one
/// cannot cap the program below its optimum. `None` unless the decoded row
/// is coherent and the network's forward pass gives it at least `need`.
fn checked_start(
    schema: &Schema,
    model: &MlpModel,
    factual: &[f64],
    prog: &Program,
    s: mlp_primal::Start,
    need: f64,
) -> Option<(Vec<f64>, f64)> {
    let x = prog.columns_of(&s.endings)?;
    let raw = schema.decode(&prog.encoded(schema, &x)).ok()?;
    if model.score(&schema.encode(&raw).ok()?) < need {
        return None;
    }
    let m = &prog.mip;
    let objective = m.offset + m.cost.iter().zip(&x).map(|(c, v)| c * v).sum::<f64>();
    let cost = super::cost(schema, factual, &raw).ok()?;
    Some((x, s.cost.max(objective).max(cost)))
}

/// Fills the units' columns of a start whose polytope columns are set: each
/// unit's pre-activation evaluated on the columns before it, its output
/// `max(z, 0)` (`z` for a linear unit) and its binary `[z > 0]`.
fn complete_units(
    mip: &Mip,
    units: &[(Affine, usize, Option<usize>)],
    mut x: Vec<f64>,
) -> Vec<f64> {
    x.resize(mip.n_cols(), 0.0);
    for (z, y, d) in units {
        let v = z.constant + z.terms.iter().map(|&(c, a)| a * x[c]).sum::<f64>();
        x[*y] = v.max(0.0).clamp(mip.lower[*y], mip.upper[*y]);
        if let Some(d) = d {
            x[*d] = if v > 0.0 { 1.0 } else { 0.0 };
        }
    }
    x
}
