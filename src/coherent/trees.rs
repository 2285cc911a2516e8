//! The MIP of a tree ensemble joined to the schema's mixed polytope: OCEAN's
//! formulation (Parmentier & Vidal, "Optimal Counterfactual Explanations in
//! Tree Ensembles", ICML 2021, §3: leaf variables λ, one leaf per tree, and
//! ordered split binaries per feature) over the states, slots and grids of
//! [`Program::polytope`] (Russell 2019), so that cost, coherence and
//! actionability are exactly those of the linear MIP.
//!
//! # Splits as cells of each feature's value range
//! Every numeric test on a contiguous feature contributes breakpoints: where
//! its rule (see [`crate::model::trees::Test`]) changes between "low" and
//! "high" values (LightGBM's zero-as-missing adds the two edges of its zero
//! band). Sorted and deduplicated they cut the value range into cells, and on
//! each cell every test of the feature goes one way. Per cut `c` a binary
//! `ν_c` means "the feature is in its value state, on the low side of cut c";
//! `ν_c ≤ ν_{c+1} ≤ … ≤ d_value` (OCEAN's monotone split binaries), tied to the
//! slot `c_i` of the polytope ([`Program::slot_expression`]) by
//!
//! ```text
//! Σ_c a_c·z_c  ≤  c_i  ≤  Σ_c b_c·z_c,     z_c = ν_c − ν_{c−1}  (ν_{−1} = 0, ν_K = d_value)
//! ```
//!
//! where cell `c` spans the slots `[a_c, b_c]` (`b_c = low_c`, `a_{c+1} =
//! high_c`): the convex hull of "the slot lies in the chosen cell", one row
//! each way rather than a big-M pair per cut (a big-M pair let the relaxation
//! choose fractional cells without moving the slot, and HELOC solves hit the
//! time limit).
//!
//! For an integer or step feature `low_c`/`high_c` are the slots of the last
//! grid point on the low side and the first on the high side — found by
//! evaluating the library's own rule on the grid (binary search), so float32
//! rounding and `≤` versus `<` are decided as the library decides them. For a
//! real-valued feature they are the exact edges (XGBoost: the float32 below the
//! threshold and the threshold; LightGBM: the threshold and the next double)
//! moved inwards by [`CELL_GAP`] in slot units, more than the solver's
//! feasibility tolerance, so that an answer never sits on a wrong side.
//!
//! # Tests and leaves
//! A test's "goes left" is a linear expression of binaries: the cells it sends
//! left (`ν_c − ν_{c−1}`), plus the special states whose code (or `NaN`, when
//! declared missing) it sends left, or the levels of a categorical feature it
//! sends left. Per tree, leaf variables λ_ℓ ∈ [0, 1] sum to one and, per inner
//! node, `Σ_{ℓ left} λ_ℓ ≤ left` and `Σ_{ℓ right} λ_ℓ ≤ 1 − left` (OCEAN's
//! eqs. (3)–(4)); with the binaries integral this leaves exactly the reached
//! leaf at 1, so λ needs no integrality. The decision row is
//! `base + Σ_ℓ value_ℓ·λ_ℓ ≥ logit(t) + margin`.

use super::BoxKind;
use super::program::Program;
use super::tree_box::reachable_value;
use crate::error::{Error, Result};
use crate::model::trees::{FeatureInput, LIGHTGBM_ZERO, Node, OnnxMode, Source, Test};
use crate::model::{Model, TreeEnsemble};
use crate::schema::{COHERENCE_TOL, Schema};
use std::collections::BTreeMap;

/// How far (in slot units) a real-valued feature's cell stays from a split's
/// exact edge: above the solver's feasibility tolerance (1e-9).
pub(crate) const CELL_GAP: f64 = 1e-8;

/// A point where a test's rule changes, as a monotone "low side" predicate.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Breakpoint {
    /// Low when `(x as f32) < t` (XGBoost).
    BelowF32(f64),
    /// Low when `x ≤ t` (LightGBM).
    AtMost(f64),
    /// Low when `(x as f32) ≤ t`, `t` a float32 (ONNX, float32 input).
    AtMostF32(f64),
    /// Low when `x < t` (ONNX, double input).
    Below(f64),
}

impl Breakpoint {
    fn low(self, x: f64) -> bool {
        match self {
            Breakpoint::BelowF32(t) => ((x as f32) as f64) < t,
            Breakpoint::AtMost(t) => x <= t,
            Breakpoint::AtMostF32(t) => ((x as f32) as f64) <= t,
            Breakpoint::Below(t) => x < t,
        }
    }

    /// The largest value on the low side and the smallest on the high side,
    /// for real-valued features.
    fn edges(self) -> (f64, f64) {
        match self {
            Breakpoint::BelowF32(t) => (f32_below(t as f32) as f64, t),
            Breakpoint::AtMost(t) => (t, f64_above(t)),
            Breakpoint::AtMostF32(t) => (t, -(f32_below(-(t as f32)) as f64)),
            Breakpoint::Below(t) => (f64_below(t), t),
        }
    }
}

/// The largest float32 below `t` (finite `t`; `f32::next_down` needs Rust 1.86).
fn f32_below(t: f32) -> f32 {
    if t == 0.0 {
        -f32::from_bits(1)
    } else if t > 0.0 {
        f32::from_bits(t.to_bits() - 1)
    } else {
        f32::from_bits(t.to_bits() + 1)
    }
}

/// The smallest double above `t` (finite `t`).
fn f64_above(t: f64) -> f64 {
    if t == 0.0 {
        f64::from_bits(1)
    } else if t > 0.0 {
        f64::from_bits(t.to_bits() + 1)
    } else {
        f64::from_bits(t.to_bits() - 1)
    }
}

/// The largest double below `t` (finite `t`).
fn f64_below(t: f64) -> f64 {
    -f64_above(-t)
}

/// The breakpoints of a test, at most three: in an array with their number,
/// so that the menus of every applicant, which read every inner node of the
/// ensemble, allocate nothing per node.
fn breakpoints(node: &Node) -> impl Iterator<Item = Breakpoint> {
    let none = Breakpoint::Below(f64::NAN);
    let (points, k) = match node.test {
        Test::BelowF32 => ([Breakpoint::BelowF32(node.threshold), none, none], 1),
        Test::AtMost | Test::AtMostNanMissing => {
            ([Breakpoint::AtMost(node.threshold), none, none], 1)
        }
        Test::AtMostZeroMissing => (
            [
                Breakpoint::AtMost(node.threshold),
                Breakpoint::AtMost(f64_below(-LIGHTGBM_ZERO)),
                Breakpoint::AtMost(LIGHTGBM_ZERO),
            ],
            3,
        ),
        // ONNX: the true side of ≤/> is the low side of `x ≤ t`, of </≥ that
        // of `x < t`; = and ≠ hold between the two.
        Test::OnnxF32(m) => {
            let t = node.threshold;
            match m {
                OnnxMode::Leq | OnnxMode::Gt => ([Breakpoint::AtMostF32(t), none, none], 1),
                OnnxMode::Lt | OnnxMode::Gte => ([Breakpoint::BelowF32(t), none, none], 1),
                OnnxMode::Eq | OnnxMode::Neq => {
                    ([Breakpoint::BelowF32(t), Breakpoint::AtMostF32(t), none], 2)
                }
            }
        }
        Test::OnnxF64(m) => {
            let t = node.threshold;
            match m {
                OnnxMode::Leq | OnnxMode::Gt => ([Breakpoint::AtMost(t), none, none], 1),
                OnnxMode::Lt | OnnxMode::Gte => ([Breakpoint::Below(t), none, none], 1),
                OnnxMode::Eq | OnnxMode::Neq => {
                    ([Breakpoint::Below(t), Breakpoint::AtMost(t), none], 2)
                }
            }
        }
        Test::Leaf | Test::Levels(_) => ([none; 3], 0),
    };
    points.into_iter().take(k)
}

/// One cut of a feature's value range, in slots, with a raw value on each side.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct Cut {
    /// Low side: slot ≤ `low`; high side: slot ≥ `high`.
    pub low: f64,
    pub high: f64,
    /// A raw value just below and just above the cut.
    pub low_value: f64,
    pub high_value: f64,
}

/// The cuts of contiguous feature `i` (sorted, distinct, inside its range), from
/// every numeric test on it. Shared with the brute-force oracle in the tests.
pub(crate) fn feature_cuts(ens: &TreeEnsemble, i: usize) -> Vec<Cut> {
    feature_cuts_boxed(ens, i, 0.0)
}

/// [`feature_cuts`] for robust advice over a box of half-width `delta` (data
/// units, `coherent::tree_box`): besides each breakpoint's own cut, the cuts
/// where a point's box starts or stops reaching each side of it — `x ± delta`
/// crossing the breakpoint — so that on each cell every test of the feature
/// is reached on the same sides by the box of every point of the cell.
pub(crate) fn feature_cuts_boxed(ens: &TreeEnsemble, i: usize, delta: f64) -> Vec<Cut> {
    let mut cuts: Vec<Cut> = Vec::new();
    for node in ens.nodes() {
        if node.test != Test::Leaf && node.feature as usize == i {
            push_node_cuts(ens, node, delta, BoxKind::Reals, &mut cuts);
        }
    }
    sort_cuts(&mut cuts);
    cuts
}

/// What the tree engine's tables that depend on the ensemble alone are
/// computed from, copied exactly: the features' inputs and every inner
/// node's place, feature, test, threshold (its bits, so that the
/// comparison is exact and NaN equals itself) and missing-value direction
/// (not the leaves' values nor the trees' shapes: tables that read those
/// are rebuilt per applicant). A book's
/// applicants share one ensemble, so such tables are built once and kept
/// while [`EnsembleKey::holds`] (issue 43: "menus and bounds that depend
/// only on the model, built once"); another ensemble, or one that differs
/// in a single threshold or range, rebuilds them. Comparing costs one pass
/// over the nodes, without the tables' arithmetic, sorting or allocation,
/// and nothing for the ensemble recorded or a clone of it (its build stamp,
/// `TreeEnsemble::stamp`).
#[derive(Debug, Clone, Default)]
pub(crate) struct EnsembleKey {
    inputs: Vec<FeatureInput>,
    tests: Vec<InnerTest>,
    valid: bool,
    /// The build stamp of the ensemble recorded (`TreeEnsemble::stamp`; 0:
    /// none): the same stamp, the same ensemble, without comparing it.
    stamp: u64,
}

/// What a table reads of a node (see [`EnsembleKey`]).
pub(crate) type InnerTest = (u32, Test, u64, bool);

impl EnsembleKey {
    /// Whether the tables kept were built for `ens`.
    pub(crate) fn holds(&self, ens: &TreeEnsemble) -> bool {
        self.valid
            && (self.stamp == ens.stamp()
                || (self.inputs.as_slice() == ens.inputs()
                    && self.tests.iter().copied().eq(node_tests(ens))))
    }

    /// Whether the ensemble recorded is `ens` itself or a clone of it (see
    /// `TreeEnsemble::stamp`).
    fn same_build(&self, ens: &TreeEnsemble) -> bool {
        self.valid && self.stamp == ens.stamp()
    }

    /// Records `ens` as the ensemble the tables are built for (after
    /// building them).
    pub(crate) fn set(&mut self, ens: &TreeEnsemble) {
        self.inputs.clear();
        self.inputs.extend_from_slice(ens.inputs());
        self.tests.clear();
        self.tests.extend(node_tests(ens));
        self.valid = true;
        self.stamp = ens.stamp();
    }

    /// Forgets the ensemble (while the tables are rebuilt).
    pub(crate) fn clear(&mut self) {
        self.valid = false;
    }
}

/// An [`EnsembleKey`] that also holds what the tests do not: every node's
/// children and leaf value, the roots, the base score and the source (how
/// the library sums). Tables that read the leaves or the trees' shapes (the
/// tree search's subtree maxima, parents, its float32 allowance) are kept
/// while it holds; a change of one leaf value rebuilds them.
#[derive(Debug, Clone, Default)]
pub(crate) struct NodeArrayKey {
    tests: EnsembleKey,
    /// Per node: left child, right child, leaf value bits.
    shape: Vec<(u32, u32, u64)>,
    roots: Vec<u32>,
    base_score: u64,
    source: Option<Source>,
}

impl NodeArrayKey {
    /// Whether the tables kept were built for `ens`.
    pub(crate) fn holds(&self, ens: &TreeEnsemble) -> bool {
        if self.tests.same_build(ens) {
            return true;
        }
        self.source == Some(ens.source())
            && self.base_score == ens.base_score().to_bits()
            && self.roots.as_slice() == ens.roots()
            && self.shape.iter().copied().eq(node_shapes(ens))
            && self.tests.holds(ens)
    }

    /// Records `ens` as the ensemble the tables are built for.
    pub(crate) fn set(&mut self, ens: &TreeEnsemble) {
        self.tests.set(ens);
        self.shape.clear();
        self.shape.extend(node_shapes(ens));
        self.roots.clear();
        self.roots.extend_from_slice(ens.roots());
        self.base_score = ens.base_score().to_bits();
        self.source = Some(ens.source());
    }

    /// Forgets the ensemble (while the tables are rebuilt).
    pub(crate) fn clear(&mut self) {
        self.tests.clear();
        self.source = None;
    }
}

/// What a [`NodeArrayKey`] reads of each node besides its test.
fn node_shapes(ens: &TreeEnsemble) -> impl Iterator<Item = (u32, u32, u64)> + '_ {
    ens.nodes()
        .iter()
        .map(|n| (n.left, n.right, n.value.to_bits()))
}

/// What an [`EnsembleKey`] reads of each node, in node order (a leaf as a
/// leaf, so that the inner nodes' places are part of the key: tables
/// indexed by node need them).
pub(crate) fn node_tests(ens: &TreeEnsemble) -> impl Iterator<Item = InnerTest> + '_ {
    ens.nodes().iter().map(|n| {
        if n.test == Test::Leaf {
            (0, Test::Leaf, 0, false)
        } else {
            (n.feature, n.test, n.threshold.to_bits(), n.default_left)
        }
    })
}

/// Every feature's cuts with no box ([`all_feature_cuts_boxed`] at
/// half-width 0), kept from one applicant to the next while its
/// [`EnsembleKey`] holds: they depend on the ensemble alone, and computing
/// them reads every inner node.
#[derive(Debug, Clone, Default)]
pub(crate) struct PlainCuts {
    cuts: Vec<Vec<Cut>>,
    key: EnsembleKey,
}

impl PlainCuts {
    /// The cuts of `ens` with no box, computed unless they are this one's
    /// already.
    pub(crate) fn of(&mut self, ens: &TreeEnsemble) -> &[Vec<Cut>] {
        if !self.key.holds(ens) {
            self.key.clear();
            all_feature_cuts_boxed(ens, &[], BoxKind::Reals, &mut self.cuts);
            self.key.set(ens);
        }
        &self.cuts
    }
}

/// [`feature_cuts_boxed`] of every feature at once, in one pass over the
/// ensemble's nodes instead of one per feature (every applicant's menus need
/// them all): feature `i`'s into `out[i]` (the lists reused), at half-width
/// `half[i]` (0 when `half` is empty), the box read as `kind`
/// (`coherent::tree_box::TreeBox`).
pub(crate) fn all_feature_cuts_boxed(
    ens: &TreeEnsemble,
    half: &[f64],
    kind: BoxKind,
    out: &mut Vec<Vec<Cut>>,
) {
    let n = ens.inputs().len();
    out.resize_with(n, Vec::new);
    for cuts in out.iter_mut() {
        cuts.clear();
    }
    for node in ens.nodes() {
        let i = node.feature as usize;
        if node.test != Test::Leaf && i < n {
            let delta = half.get(i).copied().unwrap_or(0.0);
            push_node_cuts(ens, node, delta, kind, &mut out[i]);
        }
    }
    for cuts in out.iter_mut() {
        sort_cuts(cuts);
    }
}

/// Appends the cuts inner node `node` makes in its feature's range (with the
/// box's shifted cuts at half-width `delta`, see [`feature_cuts_boxed`]; over
/// reachable values, where `R(x ± delta)` crosses the breakpoint, `R` the
/// landing of `coherent::tree_box::reachable_value`).
fn push_node_cuts(ens: &TreeEnsemble, node: &Node, delta: f64, kind: BoxKind, cuts: &mut Vec<Cut>) {
    let shifts: &[f64] = if delta > 0.0 {
        &[0.0, -1.0, 1.0]
    } else {
        &[0.0]
    };
    let input = &ens.inputs()[node.feature as usize];
    let reach = kind == BoxKind::ReachableValues;
    for bp in breakpoints(node) {
        for &s in shifts {
            cuts.extend(cut_of(input, bp, s * delta, reach && s != 0.0));
        }
    }
}

/// Sorts a feature's cuts and drops repeated ones.
fn sort_cuts(cuts: &mut Vec<Cut>) {
    cuts.sort_by(|a, b| a.low.total_cmp(&b.low));
    cuts.dedup_by(|a, b| a.low == b.low);
}

/// The cut a breakpoint makes in a contiguous feature's range, `None` when
/// every value of the range lies on one side; with `shift ≠ 0`, the cut of the
/// shifted predicate "`x + shift` is on the low side" (its edges move by
/// `−shift`); with `reach`, of "`R(x + shift)` is on the low side", `R` the
/// landing of a slip on reachable values (`tree_box::reachable_value`:
/// clipped to the range, rounded to the grid), monotone like the shift.
fn cut_of(input: &FeatureInput, bp: Breakpoint, shift: f64, reach: bool) -> Option<Cut> {
    let FeatureInput::Value {
        lower, upper, grid, ..
    } = input
    else {
        return None;
    };
    let (lower, upper) = (*lower, *upper);
    let span = upper - lower;
    let slot = |v: f64| if span > 0.0 { (v - lower) / span } else { 0.0 };
    Some(match grid {
        Some((base, step)) => {
            let tol = COHERENCE_TOL;
            let k_lo = ((lower - base) / step - tol).ceil() as i64;
            let k_hi = ((upper - base) / step + tol).floor() as i64;
            let value = |k: i64| base + k as f64 * step;
            let low = |k: i64| {
                let u = value(k) + shift;
                bp.low(if reach { reachable_value(input, u) } else { u })
            };
            if k_lo > k_hi || !low(k_lo) || low(k_hi) {
                return None; // every grid point on one side
            }
            // Largest k with a low value: low(k_lo) holds, low(k_hi) does not.
            let (mut a, mut b) = (k_lo, k_hi);
            while b - a > 1 {
                let m = a + (b - a) / 2;
                if low(m) { a = m } else { b = m }
            }
            Cut {
                low: slot(value(a)),
                high: slot(value(b)),
                low_value: value(a),
                high_value: value(b),
            }
        }
        None => {
            let (lo, hi) = bp.edges();
            // Clipped to the range, a slip sees a breakpoint outside it on
            // one side only: no cut.
            if reach && (lo < lower || hi > upper) {
                return None;
            }
            let (lo, hi) = (lo - shift, hi - shift);
            if lo < lower || hi > upper {
                return None;
            }
            Cut {
                low: slot(lo) - CELL_GAP,
                high: slot(hi) + CELL_GAP,
                low_value: lo,
                high_value: hi,
            }
        }
    })
}

/// Whether some input in `[a, b]` goes left at inner node `node`, and whether
/// some goes right (a box of `coherent::tree_box` on the node's feature). A
/// test is constant between the edges of its own breakpoints, so the ends of
/// the interval and the edges inside it decide: every stretch of the interval
/// on which the test is constant holds one of them. Only numeric tests: a
/// level test sees one level (`a = b`).
pub(crate) fn reaches(ens: &TreeEnsemble, node: &Node, a: f64, b: f64) -> (bool, bool) {
    if a == b || matches!(node.test, Test::Levels(_)) {
        let left = ens.goes_left(node, a);
        return (left, !left);
    }
    let (mut left, mut right) = (false, false);
    let mut see = |v: f64| {
        if ens.goes_left(node, v) {
            left = true;
        } else {
            right = true;
        }
    };
    see(a);
    see(b);
    for bp in breakpoints(node) {
        let (lo, hi) = bp.edges();
        for e in [lo, hi] {
            if a < e && e < b {
                see(e);
            }
        }
    }
    (left, right)
}

/// A raw value inside each of the `cuts.len() + 1` cells of a feature whose
/// range starts at `lower`.
pub(crate) fn cell_values(cuts: &[Cut], lower: f64) -> Vec<f64> {
    let mut out = Vec::with_capacity(cuts.len() + 1);
    out.push(cuts.first().map_or(lower, |c| c.low_value));
    out.extend(cuts.iter().map(|c| c.high_value));
    out
}

/// Accumulates a linear expression, merging repeated columns.
#[derive(Default)]
struct Expr(BTreeMap<usize, f64>);

impl Expr {
    fn add(&mut self, col: usize, coef: f64) {
        *self.0.entry(col).or_insert(0.0) += coef;
    }
    fn entries(&self) -> Vec<(usize, f64)> {
        self.0
            .iter()
            .filter(|(_, v)| **v != 0.0)
            .map(|(&c, &v)| (c, v))
            .collect()
    }
}

/// Builds the tree MIP for one applicant over the schema's polytope, with
/// its first incumbent ([`Program::start`]): the tree search's answer within
/// [`START_NODES`] nodes ([`heuristic_endings`]) written into every column ([`StartMap`])
/// and checked against every bound, row and integrality. HiGHS only starts
/// from it — an upper bound — and proves the optimum by its own bound, so
/// the start changes how soon HiGHS has an answer, never which answer is
/// optimal; a start HiGHS finds infeasible it drops. `time_limit` is the
/// limit of the solve the program serves: the start's search takes at most
/// [`START_SHARE`] of it, and its time is taken off HiGHS's limit
/// ([`Program::spent_seconds`]), so that the whole explanation keeps to it.
pub(super) fn build(
    schema: &Schema,
    ens: &TreeEnsemble,
    factual: &[f64],
    margin: f64,
    time_limit: f64,
) -> Result<Program> {
    Ok(build_mapped(schema, ens, factual, margin, time_limit)?.0)
}

/// [`build`], with what writes a point into the program's columns: the
/// start map and each contiguous feature's raw value per cell.
fn build_mapped(
    schema: &Schema,
    ens: &TreeEnsemble,
    factual: &[f64],
    margin: f64,
    time_limit: f64,
) -> Result<(Program, StartMap, Vec<Vec<f64>>)> {
    let started = std::time::Instant::now();
    let mut prog = Program::polytope(schema, factual)?;
    let n = schema.n_features();
    // Per contiguous feature: cells as expressions of (ν, d_value), and a raw
    // value in each cell.
    let mut cells: Vec<Vec<Vec<(usize, f64)>>> = vec![Vec::new(); n];
    let mut cell_raw: Vec<Vec<f64>> = vec![Vec::new(); n];
    // What the MIP start needs to write a point's columns (`StartMap`).
    let mut map = StartMap {
        nu: vec![Vec::new(); n],
        spans: vec![Vec::new(); n],
        leaves: Vec::new(),
    };

    for i in 0..n {
        let FeatureInput::Value { lower, .. } = ens.inputs()[i] else {
            continue;
        };
        let cuts = feature_cuts(ens, i);
        let d_value = prog.vars[i].state_cols[0];
        let slot = prog.slot_expression(i);
        let mut nu = Vec::with_capacity(cuts.len());
        for _ in &cuts {
            nu.push(prog.mip.add_col(0.0, 0.0, 1.0, true));
        }
        for w in nu.windows(2) {
            prog.mip
                .add_row(f64::NEG_INFINITY, 0.0, &[(w[0], 1.0), (w[1], -1.0)]);
        }
        if let Some(&last) = nu.last() {
            prog.mip
                .add_row(f64::NEG_INFINITY, 0.0, &[(last, 1.0), (d_value, -1.0)]);
        }
        // Cell c spans the slots [a_c, b_c]; its indicator is ν_c − ν_{c−1}
        // (ν_{−1} = 0, ν_K = d_value).
        let mut cs = Vec::with_capacity(nu.len() + 1);
        for c in 0..=nu.len() {
            let mut e = Vec::new();
            e.push(if c < nu.len() {
                (nu[c], 1.0)
            } else {
                (d_value, 1.0)
            });
            if c > 0 {
                e.push((nu[c - 1], -1.0));
            }
            cs.push(e);
        }
        if !cuts.is_empty() {
            // Σ_c a_c·z_c ≤ slot ≤ Σ_c b_c·z_c: the convex hull of "the slot lies
            // in the chosen cell" (one row each way instead of a big-M pair per cut).
            let a = |c: usize| if c == 0 { 0.0 } else { cuts[c - 1].high };
            let b = |c: usize| if c == cuts.len() { 1.0 } else { cuts[c].low };
            let mut lo_row = slot.clone();
            let mut hi_row = slot.clone();
            for (c, z) in cs.iter().enumerate() {
                for &(col, v) in z {
                    lo_row.push((col, -a(c) * v));
                    hi_row.push((col, -b(c) * v));
                }
            }
            prog.mip.add_row(0.0, f64::INFINITY, &merge(&lo_row));
            prog.mip.add_row(f64::NEG_INFINITY, 0.0, &merge(&hi_row));
            // The move costs at least the distance from the anchor to the chosen
            // cell: unit·(l + u) ≥ Σ_c dist_c·z_c. Valid for every integral
            // point (|slot − v| ≤ unit·(l + u)) and the convex hull of the cost
            // per feature; without it the relaxation mixes cells around the
            // anchor at no cost and the bound stays near 0.
            let fv = &prog.vars[i];
            // (Not with an advice grid coarser than the data's, whose cell
            // edges need not be advice grid points, nor with a minimum change.)
            let advice =
                schema.features[i].actionability.advice_step.is_some() || fv.min_change.is_some();
            if fv.steps && !advice {
                // l and u count grid steps from a factual on the grid, and every
                // cell edge is a grid point: for any choice of cells the slot's
                // optimum is an edge, the anchor or an actionable bound, all on
                // the grid, and reading the answer rounds u − l to whole steps,
                // which keeps it inside its cell. Integrality adds nothing but
                // branching here.
                for c in [fv.l, fv.u].into_iter().flatten() {
                    prog.mip.integer[c] = false;
                }
            }
            let fv = &prog.vars[i];
            if let (Some(l), Some(u)) = (fv.l, fv.u) {
                let v = fv.anchor;
                let mut row = vec![(l, fv.unit), (u, fv.unit)];
                for (c, z) in cs.iter().enumerate() {
                    let dist = (a(c) - v).max(v - b(c)).max(0.0);
                    for &(col, coef) in z {
                        row.push((col, -dist * coef));
                    }
                }
                prog.mip.add_row(0.0, f64::INFINITY, &merge(&row));
            }
        }
        map.spans[i] = (0..=cuts.len())
            .map(|c| {
                let a = if c == 0 { 0.0 } else { cuts[c - 1].high };
                let b = if c == cuts.len() { 1.0 } else { cuts[c].low };
                (a, b)
            })
            .collect();
        map.nu[i] = nu;
        cells[i] = cs;
        cell_raw[i] = cell_values(&cuts, lower);
    }
    // Leaves.
    let mut decision = Expr::default();
    let mut constant = ens.base_score();
    let nodes = ens.nodes();
    for &root in ens.roots() {
        let root = root as usize;
        if nodes[root].test == Test::Leaf {
            constant += nodes[root].value;
            continue;
        }
        // Leaves of the tree in order, and per node the range of them below it.
        let mut leaf_col: BTreeMap<usize, usize> = BTreeMap::new();
        let mut sum_row = Vec::new();
        collect_leaves(nodes, root, &mut |k| {
            let c = prog.mip.add_col(0.0, 0.0, 1.0, false);
            leaf_col.insert(k, c);
            sum_row.push((c, 1.0));
            decision.add(c, nodes[k].value);
        });
        prog.mip.add_row(1.0, 1.0, &sum_row);
        let mut stack = vec![root];
        while let Some(k) = stack.pop() {
            let node = &nodes[k];
            if node.test == Test::Leaf {
                continue;
            }
            let left = goes_left(ens, &prog, &cells, &cell_raw, node)?;
            let mut l_row: Vec<(usize, f64)> = Vec::new();
            collect_leaves(nodes, node.left as usize, &mut |q| {
                l_row.push((leaf_col[&q], 1.0))
            });
            let mut r_row: Vec<(usize, f64)> = Vec::new();
            collect_leaves(nodes, node.right as usize, &mut |q| {
                r_row.push((leaf_col[&q], 1.0))
            });
            // Σ left leaves − left ≤ 0;  Σ right leaves + left ≤ 1
            let mut a = l_row;
            a.extend(left.iter().map(|&(c, v)| (c, -v)));
            prog.mip.add_row(f64::NEG_INFINITY, 0.0, &merge(&a));
            let mut b = r_row;
            b.extend(left.iter().copied());
            prog.mip.add_row(f64::NEG_INFINITY, 1.0, &merge(&b));
            stack.push(node.left as usize);
            stack.push(node.right as usize);
        }
        map.leaves.push((root, leaf_col));
    }
    // Measured on HELOC's 100-tree XGBoost model (BENCHMARKS.md): HiGHS's
    // presolve makes these programs about 3× slower to prove optimal (the
    // first eleven applicants' median 6.3 s with it, 2.0 s without, back to
    // back on the same loaded machine), so it is off.
    prog.presolve = false;
    let rhs = ens.score_threshold() - constant;
    prog.set_decision(&decision.entries(), rhs, margin);
    prog.start = heuristic_endings(schema, ens, factual, margin, START_SHARE * time_limit)
        .and_then(|endings| map.columns(&prog, ens, &cell_raw, &endings))
        .filter(|x| prog.mip.max_violation(x) <= START_TOL);
    prog.spent_seconds = started.elapsed().as_secs_f64();
    Ok((prog, map, cell_raw))
}

/// How far (absolute) a first incumbent may break a bound, row or
/// integrality and still be handed to HiGHS: ten times below its feasibility
/// tolerance (1e-9), which it checks the start against again.
const START_TOL: f64 = 1e-10;

/// The columns the builder made, kept to write a point's values into them
/// (the MIP start).
struct StartMap {
    /// Per contiguous feature, its split binaries ν (empty otherwise).
    nu: Vec<Vec<usize>>,
    /// Per contiguous feature, each cell's slots `[a_c, b_c]` (empty otherwise).
    spans: Vec<Vec<(f64, f64)>>,
    /// Per tree with a test, its root and each leaf's λ column.
    leaves: Vec<(usize, BTreeMap<usize, usize>)>,
}

impl StartMap {
    /// Every column's value at the point whose feature `i` ends in state
    /// `endings[i].0` with slot `endings[i].1`, by the formulation's own
    /// definitions: the slot's cell `c` (a slot between two cells, which no
    /// tree test tells apart from the nearer edge, moves onto the next cell's
    /// edge), the polytope's columns at the slot ([`Program::columns_of`]),
    /// `ν_k = [k ≥ c]` in the value state and 0 in any other, and per tree
    /// `λ = 1` on the leaf reached when every test reads the chosen cell's
    /// raw value, special state or level as the MIP's own test rows do
    /// (`goes_left`). `None` when the polytope cannot write the point.
    fn columns(
        &self,
        prog: &Program,
        ens: &TreeEnsemble,
        cell_raw: &[Vec<f64>],
        endings: &[(usize, f64)],
    ) -> Option<Vec<f64>> {
        let mut endings = endings.to_vec();
        let mut cell = vec![0usize; endings.len()];
        for (i, (state, slot)) in endings.iter_mut().enumerate() {
            let spans = self.spans.get(i)?;
            if *state != 0 || spans.is_empty() {
                continue;
            }
            let c = spans
                .iter()
                .position(|&(_, b)| *slot <= b)
                .unwrap_or(spans.len() - 1);
            let (a, b) = spans[c];
            *slot = slot.clamp(a, b);
            cell[i] = c;
        }
        let mut x = prog.columns_of(&endings)?;
        for (i, nu) in self.nu.iter().enumerate() {
            let in_value = endings[i].0 == 0;
            for (k, &col) in nu.iter().enumerate() {
                x[col] = if in_value && k >= cell[i] { 1.0 } else { 0.0 };
            }
        }
        let nodes = ens.nodes();
        for (root, leaf_col) in &self.leaves {
            let mut k = *root;
            while nodes[k].test != Test::Leaf {
                let node = &nodes[k];
                let i = node.feature as usize;
                let state = endings.get(i)?.0;
                let left = match &ens.inputs()[i] {
                    FeatureInput::Levels { .. } => ens.level_goes_left(node, state),
                    FeatureInput::Value { .. } if state == 0 => {
                        node.numeric_left(*cell_raw.get(i)?.get(cell[i])?)
                    }
                    FeatureInput::Value { specials, .. } => {
                        let s = specials.get(state - 1)?;
                        node.numeric_left(if s.as_missing { f64::NAN } else { s.code })
                    }
                };
                k = if left { node.left } else { node.right } as usize;
            }
            x[*leaf_col.get(&k)?] = 1.0;
        }
        Some(x)
    }
}

/// Search nodes the tree search spends on the tree MIP's start: its answer
/// at this limit (often its proven optimum; its root heuristic's answer at
/// the least) is what HiGHS starts from. On HELOC's 1000-tree LightGBM model,
/// started from the root heuristic's answer alone, HiGHS still held an
/// answer of cost 2.91 after 600 s on the second applicant, whose optimum is
/// 1.00; a start at the optimum leaves HiGHS only the bound to prove
/// (BENCHMARKS.md, "Tree ensembles"). A count, not a time, so that the start
/// is reproducible (on the 1000-tree models about 1.5–15 ms of CPU a node).
const START_NODES: usize = 1000;

/// The share of the solve's time limit the start's search may take (it
/// stops at [`START_NODES`] or there, whichever comes first; a limit that
/// stops it makes the start depend on the machine's speed, as any answer at
/// a time limit does).
const START_SHARE: f64 = 0.25;

/// The endings (state, slot per feature) of the tree search's answer within
/// [`START_NODES`] nodes (its primal heuristic, [`super::tree_primal`], runs
/// at the root and inside): the tree MIP's first incumbent, which HiGHS
/// checks, may improve on, and must still prove optimal by its own bound.
/// `None` when it finds no answer.
fn heuristic_endings(
    schema: &Schema,
    ens: &TreeEnsemble,
    factual: &[f64],
    margin: f64,
    time_limit: f64,
) -> Option<Vec<(usize, f64)>> {
    let mut ws = super::separable::Workspace::new();
    ws.build_tree_cells(schema, ens, factual, &[]).ok()?;
    let mut ts = super::tree_search::TreeSearch::new();
    ts.prepare(&ws, schema, ens).ok()?;
    let sol = ts.solve(ens, ens.score_threshold() + margin, START_NODES, time_limit);
    if !sol.cost.is_finite() {
        return None;
    }
    ts.picks()
        .iter()
        .enumerate()
        .map(|(i, p)| {
            let o = ws.menu(i).get(p.option)?;
            Some((o.state, o.at(p.units).2))
        })
        .collect()
}

fn merge(entries: &[(usize, f64)]) -> Vec<(usize, f64)> {
    let mut e = Expr::default();
    for &(c, v) in entries {
        e.add(c, v);
    }
    e.entries()
}

fn collect_leaves(nodes: &[Node], k: usize, f: &mut impl FnMut(usize)) {
    for_each_node(nodes, k, |q| {
        if nodes[q].test == Test::Leaf {
            f(q)
        }
    });
}

/// Visits every node below node `k` (itself included) in pre-order, left
/// subtree before right: the one walk of a tree's node array that the MIP
/// builder and the tree search share.
pub(super) fn for_each_node(nodes: &[Node], k: usize, mut f: impl FnMut(usize)) {
    let mut stack = vec![k];
    while let Some(k) = stack.pop() {
        f(k);
        let n = &nodes[k];
        if n.test != Test::Leaf {
            stack.push(n.right as usize);
            stack.push(n.left as usize);
        }
    }
}

/// "The node sends the applicant left" as a linear expression of binaries.
fn goes_left(
    ens: &TreeEnsemble,
    prog: &Program,
    cells: &[Vec<Vec<(usize, f64)>>],
    cell_raw: &[Vec<f64>],
    node: &Node,
) -> Result<Vec<(usize, f64)>> {
    let i = node.feature as usize;
    let states = &prog.vars[i].state_cols;
    let mut e = Expr::default();
    match (&ens.inputs()[i], node.test) {
        (FeatureInput::Levels { levels, .. }, Test::Levels(_)) => {
            for (k, &col) in states.iter().enumerate().take(*levels) {
                if ens.level_goes_left(node, k) {
                    e.add(col, 1.0);
                }
            }
        }
        (FeatureInput::Value { specials, .. }, _) => {
            for (c, cell) in cells[i].iter().enumerate() {
                if node.numeric_left(cell_raw[i][c]) {
                    for &(col, v) in cell {
                        e.add(col, v);
                    }
                }
            }
            for (j, s) in specials.iter().enumerate() {
                let x = if s.as_missing { f64::NAN } else { s.code };
                if node.numeric_left(x) {
                    e.add(states[j + 1], 1.0);
                }
            }
        }
        _ => {
            return Err(Error::Solver(
                "internal: a tree test does not match its feature's kind".into(),
            ));
        }
    }
    Ok(e.entries())
}

#[cfg(test)]
#[path = "trees_tests.rs"]
pub(crate) mod tests;

#[cfg(test)]
#[path = "trees_start_tests.rs"]
mod start_tests;
