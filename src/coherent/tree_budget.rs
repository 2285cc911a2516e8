//! A lower bound for the tree search ([`super::tree_search`]) that charges an
//! answer for every feature it moves: the *feature-budget bound*.
//!
//! # Why the per-tree bound is weak
//! The search's per-tree bound lets every tree pick its best leaf with
//! reduced cost `rc(ℓ) ≤ C` on its own. On a 500-tree model each feature
//! helps some trees: tree `t₁` gains by a move of feature `a`, tree `t₂` by a
//! move of `b`, and the per-tree bound charges an answer that needs both
//! moves only the dearer of the two, as though one budget `C` paid for every
//! feature at once. On HELOC's LightGBM 500×31 model its root bound is a
//! sixth of the optimum (BENCHMARKS.md, issue 24).
//!
//! # The bound
//! In a node with domains `D_f`, let `m_f = min cost(D_f)` and, for a leaf
//! `ℓ`, `e_f(ℓ) = min { cost(o) : o ∈ D_f, o takes the path of ℓ } − m_f ≥ 0`,
//! its extra cost in feature `f`. An answer `x` of the node with per-feature
//! extras `δ_f = cost(x_f) − m_f` reaches in tree `t` a leaf `ℓ_t(x)` with
//! `e_f(ℓ_t(x)) ≤ δ_f` for every `f` (its own option takes the path). Let
//! `z_t` be the best value of tree `t`'s leaves with no extra cost at all, and
//! `g(ℓ) = max(0, value(ℓ) − z_t)` a leaf's gain over it. A leaf with a gain
//! has some `e_f(ℓ) > 0`; its gain is *shared* among the features of its path
//! in proportion to the squares of their extra costs,
//! `s_f(ℓ) = g(ℓ)·e_f(ℓ)² / Σ_f' e_f'(ℓ)²` ([`GainSplit`]). Any split summing
//! to `g` would do; this one leans a leaf's gain towards its dearest move,
//! the one that cheap moves of other features cannot stand in for. Measured
//! against the split in proportion to the extras (BENCHMARKS.md §4, twelfth
//! round): on HELOC's 100-tree book 4.7 % fewer nodes and 5 % fewer
//! instructions; cubes, square roots and the whole gain to the dearest
//! feature did worse, and the larger of two splits' bounds cut
//! nodes by 7 % for 10–18 % more CPU. Then
//!
//! ```text
//! margin(x) ≤ base + Σ_t z_t + Σ_f G_f(δ_f),
//! G_f(δ) = Σ_t max { s_f(ℓ) : ℓ ∈ t, e_f(ℓ) ≤ δ }   (0 when there is none),
//! ```
//!
//! since `g(ℓ_t(x)) = Σ_f s_f(ℓ_t(x))` and each term is one of those maxima's
//! candidates. So an accepted answer has `Σ_f G_f(δ_f) ≥ τ − base − Σ_t z_t`,
//! and its cost is `Σ_f m_f + Σ_f δ_f`. The least `Σ_f δ_f` under that
//! constraint is a knapsack over features; its LP relaxation — each `G_f`
//! replaced by its upper concave envelope, the envelopes' segments bought
//! greedily, steepest first, the last one in part — is a lower bound on it,
//! hence on the node's optimum. The search takes the larger of this bound
//! and the per-tree one ([`super::tree_search::TreeSearch::set_budget_bound`]).
//! Leaves whose `rc` reaches the incumbent's cost are left out, as in the
//! per-tree bound: no improving answer reaches them.
//!
//! # The knapsack solved exactly
//! Each `G_f` is a step function: an answer's `δ_f` buys `G_f(δ_f)`, which
//! some rise of `G_f` at an extra `≤ δ_f` already buys. So the least `Σ_f δ_f`
//! over one rise (or none) per feature with `Σ_f G_f ≥ τ − base − Σ_t z_t`
//! — a multiple-choice knapsack — bounds the node's extra cost too, and is
//! never below the LP, which may buy a fraction of a step. HELOC has a few
//! dozen features with a few dozen rises each, so dynamic programming over
//! the Pareto frontier of `(extra, gain)` states solves it at a small share
//! of the node's work (at most 151 states on HELOC's 1000-tree models),
//! dropping states that cost the incumbent's gap (`cap`), cannot reach
//! the need with every later feature at its largest gain, or cannot reach
//! it below the best choice found so far even at the later features'
//! steepest gain per extra (which halved the knapsack's work on HELOC's
//! book, BENCHMARKS.md §4, tenth round); a frontier past
//! [`MAX_FRONTIER`] falls back to the LP. On the LightGBM 1000×63 model it
//! spared a third of the nodes on the hardest proven applicant
//! (BENCHMARKS.md, issue 43).
//!
//! # One way per feature: classes of options
//! `G_f` lets each tree take its best share of `f` whatever the way the leaf
//! moves `f`: one tree may gain by raising it, another by lowering it, and
//! `G_f` counts both although an answer takes `f` one way. So the node's
//! options of `f` are parted into classes (below the candidate's value,
//! above it, the rest), and a share counts in class `c` at the extra
//! `e_{f,c}(ℓ) = min { cost(o) : o ∈ D_f ∩ c, o takes the path of ℓ } − m_f`
//! (in no class whose options all leave the path):
//!
//! ```text
//! G_f(δ) = max_c Σ_t max { s_f(ℓ) : ℓ ∈ t, e_{f,c}(ℓ) ≤ δ }.
//! ```
//!
//! It still bounds the margin: an answer's option `x_f` lies in one class
//! `c`, takes the path of the leaf it reaches in every tree, so that leaf's
//! `e_{f,c} ≤ δ_f`. Any partition would do; on a feature tested by
//! thresholds a leaf's box is an interval, which lies on one side of the
//! candidate's value once it leaves the candidate out, so this one parts the
//! leaves by the way they move the feature (issue 43). The envelope of `G_f`
//! is that of all its classes' points.
//!
//! # Dominated leaves
//! A tree's credits are maxima over its leaves taken feature by feature, so a
//! leaf that asks for more than another of its tree and gives no more still
//! adds shares no answer collects beside the other's: where the leaf needing
//! `a` alone is worth more than the leaf needing `a` and `b`, the latter's
//! share of `b` is credited to `b` although every answer it could serve
//! does better by the former, which credits `b` nothing. So a reachable leaf
//! `ℓ` is left out when another `ℓ'` of its tree *dominates* it: `value(ℓ')
//! ≥ value(ℓ)`, and every feature with a positive extra in `ℓ'` has one in
//! `ℓ` with `e_{f,c}(ℓ') ≤ e_{f,c}(ℓ)` in every class `c`. The bound still
//! holds: an answer reaching `ℓ` has its option of each `f` in a class `c_f`
//! with `e_{f,c_f}(ℓ) ≤ δ_f`, hence `e_{f,c_f}(ℓ') ≤ δ_f` for every feature
//! `ℓ'` credits, and `g(ℓ) ≤ g(ℓ') = Σ_f s_f(ℓ') ≤ Σ_f G_f(δ_f)`. (The same
//! holds for the box-aware walk's entries of robust advice, whose bound is
//! derived the same way, and under whole extras: `ℓ'`'s whole extra is no
//! larger.) Leaving leaves out only lowers some `G_f`, so the bound never
//! falls ([`FeatureBudget::set_dominance`]). The filter compares each leaf
//! with the undominated ones of larger value, a mask of features first.
//! Measured (BENCHMARKS.md §4, issue 43, seventeenth round): on LightGBM
//! 1000×63's hardest HELOC applicant (#9) the proof took half the nodes
//! (240,259 → 117,011) at the same cost per node; on the 100-tree book 2 %
//! fewer nodes and 5 % less CPU.
//!
//! # One option per feature (opt-in)
//! A class still lets one tree gain by a leaf that needs `f ∈ [1, 2)` and
//! another by a leaf that needs `f ∈ [3, 4)`, which no answer does at once.
//! The bound by options ([`FeatureBudget::use_options`],
//! `TreeSearch::set_budget_by_option`) credits a share to the very options
//! that take its leaf's path: with `M_f(ℓ)` the node's options of `f` that
//! do,
//!
//! ```text
//! H_f(o) = Σ_t max { s_f(ℓ) : ℓ ∈ t, o ∈ M_f(ℓ) },
//! margin(x) ≤ base + Σ_t z_t + Σ_f H_f(x_f),
//! ```
//!
//! since the leaf `x` reaches in tree `t` holds `x_f ∈ M_f(ℓ_t(x))`; the
//! knapsack picks one option per feature at its extra `cost(o) − m_f`. An
//! option `o` of class `c` lies only in leaves with `e_{f,c}(ℓ) ≤ cost(o) −
//! m_f`, so `H_f(o) ≤ G_f(cost(o) − m_f)`: never below the bound by classes
//! with every leaf kept (the bound by options keeps dominated leaves).
//! Measured on HELOC's models it is seldom above it — their gains mostly
//! grow the farther a feature moves, so the farthest option already takes
//! every tree's best leaf — and costs more per node than it saves, so it is
//! off by default (BENCHMARKS.md, issue 43).
//!
//! # Each leaf's whole extra (opt-in)
//! A feature's credit in a tree is the largest share among the leaves its
//! own option allows, whatever else those leaves need: on HELOC's 1000-tree
//! models, at the optimum of the applicants the search cannot prove, the
//! features are credited 2.8–4.1 times the gain the trees give (1.7–1.9
//! times on applicants it proves; BENCHMARKS.md, issue 43). An answer whose
//! extras sum to `C` reaches only leaves whose whole extra `Σ_f e_f(ℓ)` is at
//! most `C`, so the knapsack over those leaves' shares alone must reach the
//! need within `C`; [`FeatureBudget::tighten_by_total`] finds the least such
//! `C` over the leaves' whole extras by bisection
//! (`TreeSearch::set_budget_by_total`). It is never below the knapsack over
//! every leaf and, measured, tightens the bound on the hard applicants
//! (LightGBM 1000×63 #18 at 2,000 nodes 0.92 → 1.21 against an answer of
//! 2.21) but costs more per node than its fewer nodes save, so it is off by
//! default.
//!
//! # Reduced-cost fixing
//! The LP prices each option too. For any multiplier `λ ≥ 0`, with the
//! need `W = τ − base − Σ_t z_t` and `h_f(λ) = min_δ (δ − λ·G_f(δ)) ≤ 0`,
//! every accepted answer of the node has `Σ_f G_f(δ_f) ≥ W`, so for each
//! feature `f`
//!
//! ```text
//! cost(x) = base + Σ_g δ_g ≥ base + λ·W + Σ_g (δ_g − λ·G_g(δ_g))
//!         ≥ L(λ) + (δ_f − λ·G_f(δ_f) − h_f(λ)),    L(λ) = base + λ·W + Σ_g h_g(λ)
//! ```
//!
//! (`L(λ)` is the Lagrangian bound; at the slope of the envelopes' segment
//! that reaches the need it is the LP's). An option of `f` whose right side
//! reaches the incumbent's cost for some `λ` is in no improving answer, and
//! [`FeatureBudget::fix_options`] removes it from the node before the node
//! is stored, so that its children start without it — the variable fixing
//! of MIP solvers by LP reduced costs, on the search's domains, with the
//! multipliers of a small grid around the LP's ([`FIXING_GRID`]). A removed
//! option takes every leaf that needs it out of the children's bounds,
//! with its shares of the other features' `G_g`: some of the coupling
//! across features the bound itself lacks. Measured on HELOC's 100-tree
//! book (BENCHMARKS.md §4, thirteenth round): a third fewer nodes and a
//! fifth less CPU, the same optima; a second walk of the node after fixing (a
//! tighter bound at once) or rounds of fixing at the root did not pay.
//!
//! This is the tree-ensemble analogue of the separable solver's bound
//! (`coherent::separable`: an additive model's margin is a sum of per-feature
//! terms, bought greedily by gain per cost); Veritas (Devos, Meert & Davis
//! 2021) and OCEAN (Parmentier & Vidal 2021) bound tree ensembles tree by
//! tree, which is what this adds to.

use super::tree_search::sort_short_by;
use std::f64::consts::SQRT_2;

/// The classes a node's options of a feature are parted into
/// ([`FeatureBudget`]'s doc): below the candidate's value, above it, and the
/// rest (equal, or NaN on either side).
pub(super) const CLASSES: usize = 3;

/// The most states the knapsack's frontier may hold before the bound falls
/// back to the LP relaxation (a deterministic cap on a node's work).
const MAX_FRONTIER: usize = 4096;

/// The multipliers reduced-cost fixing tries, as multiples of the LP's
/// ([`FeatureBudget::fix_options`]): every `λ ≥ 0` gives a valid bound, and
/// an option's best lies far from the LP's when its gain or its extra is
/// far from the node's typical one. 1/16 to 16 by factors of √2. On
/// HELOC's 100-tree book (search alone on 1,000 rows): 41,228 nodes without
/// fixing, 37,687 with the LP's multiplier alone, 28,774 with nine
/// multiples by factors of 2; by √2, 6 % fewer nodes than by 2 and 2 %
/// fewer instructions (callgrind, 400 rows), 11 % less CPU on XGBoost
/// 500×6; by 2^(1/3) or 2^(1/4), or 1/32 to 32, no fewer instructions.
const FIXING_GRID: [f64; 17] = [
    1.0 / 16.0,
    SQRT_2 / 16.0,
    1.0 / 8.0,
    SQRT_2 / 8.0,
    0.25,
    SQRT_2 / 4.0,
    0.5,
    SQRT_2 / 2.0,
    1.0,
    SQRT_2,
    2.0,
    2.0 * SQRT_2,
    4.0,
    4.0 * SQRT_2,
    8.0,
    8.0 * SQRT_2,
    16.0,
];

/// A leaf's share of its gain for one feature and class:
/// `(CLASSES·feature + class, tree, extra within the class, share, the
/// leaf's whole extra Σ_f e_f(ℓ))`.
type Item = (u32, u32, f64, f64, f64);

/// The extras of one feature on a leaf's path: the feature, its extra over
/// the whole box, and per class the extra of the box's options in the class
/// (infinite when the box holds none).
pub(super) type LeafExtra = (u32, f64, [f64; CLASSES]);

/// How a leaf's gain is shared among the features its path moves: in
/// proportion to the squares of their extras (the module's doc, "The
/// bound"). The extras are scaled by the largest first, so that no square
/// underflows or overflows whatever the costs' units.
struct GainSplit {
    largest: f64,
    squares: f64,
}

impl GainSplit {
    /// The split of a leaf with `extras` (each positive, at least one).
    fn of(extras: &[LeafExtra]) -> GainSplit {
        let largest = extras.iter().map(|x| x.1).fold(0.0, f64::max);
        let squares = extras
            .iter()
            .map(|x| {
                let r = x.1 / largest;
                r * r
            })
            .sum();
        GainSplit { largest, squares }
    }

    /// The share of `gain` of the feature whose extra is `e`.
    fn share(&self, gain: f64, e: f64) -> f64 {
        let r = e / self.largest;
        gain * (r * r) / self.squares
    }
}

/// The feature-budget bound's buffers, reused across nodes (no allocation
/// once they have grown).
#[derive(Debug, Default)]
pub(super) struct FeatureBudget {
    /// The leaves of the tree being collected: value, and their extras
    /// `feats[at[j]..at[j + 1]]` (features with a positive extra only).
    value: Vec<f64>,
    at: Vec<usize>,
    feats: Vec<LeafExtra>,
    /// `Σ_t z_t` over the trees ended so far.
    z_sum: f64,
    items: Vec<Item>,
    /// Per class of a feature, the increments of `G_{f,c}`:
    /// `(CLASSES·feature + class, extra, increment)`.
    steps: Vec<(u32, f64, f64)>,
    /// The points `(feature, extra, G_{f,c}(extra))` of every class's
    /// staircase.
    points: Vec<(u32, f64, f64)>,
    /// The items ordered by key, then tree ([`FeatureBudget::sort_items_by_key`]),
    /// with the counts per key it uses.
    sorted: Vec<Item>,
    key_count: Vec<usize>,
    /// Where each key's increments end in `steps`.
    key_steps: Vec<usize>,
    /// A feature's envelope under construction: `(extra, G)` points.
    hull: Vec<(f64, f64)>,
    /// The envelopes' segments: `(slope, width)`.
    segments: Vec<(f64, f64)>,
    /// Per feature, the rises of the step function `G_f`: `(feature, extra,
    /// G_f(extra))`, extras rising (the knapsack's choices).
    choices: Vec<(u32, f64, f64)>,
    /// The knapsack's feature groups `(start, end, largest G)` in `choices`,
    /// the suffix sums of their largest gains, and its frontiers of
    /// `(extra, gain)` states.
    groups: Vec<(usize, usize, f64)>,
    rest: Vec<f64>,
    /// Per group, the steepest gain per unit of extra of it and of the
    /// groups after it (the knapsack's completion bound).
    steepest: Vec<f64>,
    /// States the completion bound dropped (for its test).
    #[cfg(test)]
    pub(super) hopeless_count: usize,
    frontier: Vec<(f64, f64)>,
    next: Vec<(f64, f64)>,
    shifted: Vec<(f64, f64)>,
    merged: Vec<(f64, f64)>,
    /// Whether the knapsack over features is solved exactly (on by default;
    /// off, the bound is the LP's).
    lp_only: bool,
    /// Whether the bound also keeps to each leaf's whole extra
    /// ([`FeatureBudget::tighten_by_total`]), and its distinct values.
    by_total: bool,
    totals: Vec<f64>,
    /// The options' layout (as the search's: feature `f`'s options
    /// `opt_start[f]..opt_start[f + 1]`, cheapest first, their domain words
    /// `word_start[f]..word_start[f + 1]`, their costs), for the bound by
    /// options ([`FeatureBudget::use_options`]).
    opt_start: Vec<usize>,
    word_start: Vec<usize>,
    cost: Vec<f64>,
    /// Whether this node's leaves come with their options (the bound by
    /// options), and the node's least cost per feature.
    by_option: bool,
    dom_min: Vec<f64>,
    /// Per kept extra of `feats` (in order), its leaf's domain words of the
    /// feature (the options that take the leaf's path).
    leaf_words: Vec<u64>,
    /// Per option, `H_f(o)` (the sum over trees of each tree's largest share
    /// of `f` among the leaves `o` reaches), the options it is positive on,
    /// and the current tree's largest share per option (valid where its
    /// stamp is the tree's) with the options it touched.
    by_opt: Vec<f64>,
    by_opt_touched: Vec<u32>,
    tree_best: Vec<f64>,
    stamp: Vec<u32>,
    clock: u32,
    tree_touched: Vec<u32>,
    /// The multiplier of the last [`FeatureBudget::extra`]'s LP (the slope
    /// of the envelopes' segment that reached the need; 0 when the need was
    /// met at no extra), the need it priced, and whether `choices` still
    /// hold that node's staircases ([`FeatureBudget::fix_options`]).
    lambda: f64,
    want_lp: f64,
    lp_valid: bool,
    /// [`FeatureBudget::fix_options`]'s `h_f` per multiplier of
    /// [`FIXING_GRID`], per feature with rises (in order).
    fix_h: Vec<[f64; FIXING_GRID.len()]>,
    /// Whether dominated leaves are left out (on by default; the module's
    /// doc, "Dominated leaves"), and per tree being ended: its leaves with a
    /// gain (by value, largest first, when on), the undominated ones among
    /// them so far, and each gainer's features as a mask (feature mod 64),
    /// in the gainers' order.
    dominance_off: bool,
    gainers: Vec<u32>,
    undominated: Vec<u32>,
    leaf_mask: Vec<u64>,
    /// Leaves left out as dominated (for the tests).
    #[cfg(test)]
    pub(super) dominated_count: usize,
}

impl FeatureBudget {
    /// Starts a node.
    pub fn clear(&mut self) {
        self.z_sum = 0.0;
        self.lp_valid = false;
        self.items.clear();
        for &i in &self.by_opt_touched {
            self.by_opt[i as usize] = 0.0;
        }
        self.by_opt_touched.clear();
        self.by_option = false;
        self.begin_tree();
    }

    /// Sets the options' layout (once per applicant): per feature its
    /// options' range `opt_start`, its domain words' range `word_start`, and
    /// every option's cost, cheapest first within a feature.
    pub fn set_layout(&mut self, opt_start: &[usize], word_start: &[usize], cost: &[f64]) {
        self.opt_start.clear();
        self.opt_start.extend_from_slice(opt_start);
        self.word_start.clear();
        self.word_start.extend_from_slice(word_start);
        self.cost.clear();
        self.cost.extend_from_slice(cost);
        self.by_opt.clear();
        self.by_opt.resize(cost.len(), 0.0);
        self.by_opt_touched.clear();
        self.tree_best.clear();
        self.tree_best.resize(cost.len(), 0.0);
        self.stamp.clear();
        self.stamp.resize(cost.len(), 0);
        self.clock = 0;
    }

    /// Makes this node's bound the bound by options (after
    /// [`FeatureBudget::clear`]; see the module's doc): its leaves come by
    /// [`FeatureBudget::push_option_extra`] and [`FeatureBudget::close_leaf`],
    /// and `dom_min` is each feature's least cost in the node.
    pub fn use_options(&mut self, dom_min: &[f64]) {
        self.by_option = true;
        self.dom_min.clear();
        self.dom_min.extend_from_slice(dom_min);
    }

    /// Whether this node's bound is the bound by options.
    pub fn by_option(&self) -> bool {
        self.by_option
    }

    /// Adds to the leaf being collected (bound by options) its extra `e > 0`
    /// in feature `f` and the feature's domain words at the leaf (the
    /// options that take its path).
    pub fn push_option_extra(&mut self, f: usize, e: f64, words: &[u64]) {
        debug_assert!(e > 0.0 && words.len() == self.word_start[f + 1] - self.word_start[f]);
        self.feats.push((f as u32, e, [f64::INFINITY; CLASSES]));
        self.leaf_words.extend_from_slice(words);
    }

    /// Adds to the leaf being collected (bound by classes) its extra in a
    /// feature of its path, per class; kept only when positive.
    pub fn push_extra(&mut self, x: LeafExtra) {
        if x.1 > 0.0 {
            self.feats.push(x);
        }
    }

    /// Ends the leaf being collected (after [`FeatureBudget::push_extra`]
    /// or [`FeatureBudget::push_option_extra`]): its value.
    pub fn close_leaf(&mut self, value: f64) {
        self.value.push(value);
        self.at.push(self.feats.len());
    }

    /// Starts a tree's leaves.
    pub fn begin_tree(&mut self) {
        self.value.clear();
        self.at.clear();
        self.at.push(0);
        self.feats.clear();
        self.leaf_words.clear();
    }

    /// Adds a reachable leaf of the current tree: its value and its
    /// per-feature extra costs (those with a positive extra are kept).
    pub fn push_leaf(&mut self, value: f64, extras: impl Iterator<Item = LeafExtra>) {
        for x in extras {
            self.push_extra(x);
        }
        self.close_leaf(value);
    }

    /// The current tree's leaves as collected so far: values, where each
    /// one's extras end (after a leading 0), and the extras (for
    /// [`super::tree_search::TreeSearch::root_leaves`]).
    pub fn tree_leaves(&self) -> (&[f64], &[usize], &[LeafExtra]) {
        (&self.value, &self.at, &self.feats)
    }

    /// Ends tree `t`: its zero-extra best value joins `Σ z_t`, each leaf's
    /// gain over it is shared among its path's features, and each share is
    /// an item of every class the leaf's box meets. Trees are ended in
    /// increasing order ([`FeatureBudget::extra`] orders the items by key
    /// only, stably, and reads each tree's as one run).
    pub fn end_tree(&mut self, t: usize) {
        let mut z = f64::NEG_INFINITY;
        for j in 0..self.value.len() {
            if self.at[j] == self.at[j + 1] {
                z = z.max(self.value[j]);
            }
        }
        // The search always reaches a zero-extra leaf (the candidate's); a
        // tree without one has no reachable leaf, and the caller prunes.
        if z == f64::NEG_INFINITY {
            return;
        }
        self.z_sum += z;
        if self.by_option {
            self.end_tree_by_option(z);
            return;
        }
        self.gainers.clear();
        for j in 0..self.value.len() {
            let gain = self.value[j] - z;
            if !(gain <= 0.0 || self.at[j] == self.at[j + 1]) {
                self.gainers.push(j as u32);
            }
        }
        if !self.dominance_off {
            self.leave_out_dominated();
        }
        for jj in 0..self.gainers.len() {
            let j = self.gainers[jj] as usize;
            let gain = self.value[j] - z;
            let extras = &self.feats[self.at[j]..self.at[j + 1]];
            let total: f64 = extras.iter().map(|&(_, e, _)| e).sum();
            let split = GainSplit::of(extras);
            for &(f, e, by_class) in extras {
                let share = split.share(gain, e);
                for (c, &ec) in by_class.iter().enumerate() {
                    if ec.is_finite() {
                        let key = CLASSES as u32 * f + c as u32;
                        self.items.push((key, t as u32, ec, share, total));
                    }
                }
            }
        }
    }

    /// Keeps in `gainers` (the current tree's leaves with a gain) only the
    /// leaves no other of them dominates (the module's doc, "Dominated
    /// leaves"): by value, largest first (ties by collection order), each
    /// compared with the undominated leaves before it — enough, as
    /// dominance is transitive. A mask of each leaf's features (mod 64, so
    /// that a feature's bit may stand for several: a necessary test only)
    /// rejects most pairs before their extras are compared.
    fn leave_out_dominated(&mut self) {
        if self.gainers.len() < 2 {
            return;
        }
        let value = &self.value;
        self.gainers.sort_unstable_by(|&a, &b| {
            value[b as usize]
                .total_cmp(&value[a as usize])
                .then(a.cmp(&b))
        });
        // The gainers' masks, in the order just sorted.
        self.leaf_mask.clear();
        for &j in &self.gainers {
            let j = j as usize;
            let mask = self.feats[self.at[j]..self.at[j + 1]]
                .iter()
                .fold(0u64, |m, x| m | 1 << (x.0 % 64));
            self.leaf_mask.push(mask);
        }
        // `undominated` holds positions in `gainers` until the swap below.
        self.undominated.clear();
        for jj in 0..self.gainers.len() {
            let j = self.gainers[jj] as usize;
            let (mask, extras) = (self.leaf_mask[jj], &self.feats[self.at[j]..self.at[j + 1]]);
            let dominated = self.undominated.iter().any(|&ii| {
                let i = self.gainers[ii as usize] as usize;
                self.leaf_mask[ii as usize] & !mask == 0
                    && self.feats[self.at[i]..self.at[i + 1]].iter().all(|a| {
                        extras
                            .iter()
                            .any(|b| b.0 == a.0 && (0..CLASSES).all(|c| a.2[c] <= b.2[c]))
                    })
            });
            if dominated {
                #[cfg(test)]
                {
                    self.dominated_count += 1;
                }
            } else {
                self.undominated.push(jj as u32);
            }
        }
        for u in &mut self.undominated {
            *u = self.gainers[*u as usize];
        }
        std::mem::swap(&mut self.gainers, &mut self.undominated);
    }

    /// Leaves dominated leaves out of the bound (on, the default) or keeps
    /// them (off), for the next nodes.
    pub fn set_dominance(&mut self, on: bool) {
        self.dominance_off = !on;
    }

    /// [`FeatureBudget::end_tree`] for the bound by options: each leaf's
    /// share of `f` credited to every option of `f` that takes its path, the
    /// tree's largest per option added to `H_f(o)`.
    fn end_tree_by_option(&mut self, z: f64) {
        self.clock = self.clock.wrapping_add(1);
        if self.clock == 0 {
            self.stamp.fill(0);
            self.clock = 1;
        }
        self.tree_touched.clear();
        let mut w = 0;
        for j in 0..self.value.len() {
            let gain = self.value[j] - z;
            let extras = &self.feats[self.at[j]..self.at[j + 1]];
            if gain <= 0.0 || extras.is_empty() {
                for &(f, _, _) in extras {
                    let f = f as usize;
                    w += self.word_start[f + 1] - self.word_start[f];
                }
                continue;
            }
            let split = GainSplit::of(extras);
            for &(f, e, _) in extras {
                let f = f as usize;
                let share = split.share(gain, e);
                let words = self.word_start[f + 1] - self.word_start[f];
                for (i, &word) in self.leaf_words[w..w + words].iter().enumerate() {
                    let mut bits = word;
                    while bits != 0 {
                        let o = self.opt_start[f] + 64 * i + bits.trailing_zeros() as usize;
                        bits &= bits - 1;
                        if self.stamp[o] != self.clock {
                            self.stamp[o] = self.clock;
                            self.tree_best[o] = share;
                            self.tree_touched.push(o as u32);
                        } else if share > self.tree_best[o] {
                            self.tree_best[o] = share;
                        }
                    }
                }
                w += words;
            }
        }
        for &o in &self.tree_touched {
            let o = o as usize;
            if self.by_opt[o] == 0.0 {
                self.by_opt_touched.push(o as u32);
            }
            self.by_opt[o] += self.tree_best[o];
        }
    }

    /// Orders `items` into `sorted` by key, stably (a counting sort: keys
    /// are `CLASSES·feature + class`, a few dozen).
    fn sort_items_by_key(&mut self) {
        let keys = self
            .items
            .iter()
            .map(|i| i.0 as usize + 1)
            .max()
            .unwrap_or(0);
        self.key_count.clear();
        self.key_count.resize(keys + 1, 0);
        for i in &self.items {
            self.key_count[i.0 as usize + 1] += 1;
        }
        for k in 0..keys {
            self.key_count[k + 1] += self.key_count[k];
        }
        // Every slot is written below: resizing without clearing first
        // fills only what the buffer grows by (filling it whole was 0.6 %
        // of the book's instructions).
        self.sorted.resize(self.items.len(), (0, 0, 0.0, 0.0, 0.0));
        for &i in &self.items {
            let at = &mut self.key_count[i.0 as usize];
            self.sorted[*at] = i;
            *at += 1;
        }
    }

    /// The least extra cost `Σ_f δ_f` of the LP relaxation for the margin to
    /// reach `need` (the search's `τ`, less its rounding allowance), given
    /// the base score; `None` when even every feature's largest gain cannot
    /// reach it (no answer of the node beats the incumbent).
    pub fn extra(&mut self, base_score: f64, need: f64, cap: f64) -> Option<f64> {
        let want = need - base_score - self.z_sum;
        self.lp_valid = false;
        if want <= 0.0 {
            self.choices.clear();
            (self.lambda, self.want_lp, self.lp_valid) = (0.0, want, true);
            return Some(0.0);
        }
        if self.by_option {
            self.option_points();
        } else {
            self.sort_items_by_key();
            self.class_points(f64::INFINITY);
        }
        let total = self.envelope();
        // The shares' rounding (a division per leaf): a relative allowance,
        // so that rounding never prunes an answer.
        let allowance = 1e-12 * (total.abs() + want.abs());
        if total + allowance < want {
            return None;
        }
        self.segments
            .sort_unstable_by(|a, b| b.0.total_cmp(&a.0).then(a.1.total_cmp(&b.1)));
        let mut left = want - allowance;
        let mut spent = 0.0;
        let mut lambda = 0.0;
        for &(slope, width) in &self.segments {
            if left <= 0.0 {
                break;
            }
            lambda = slope;
            let rise = slope * width;
            if rise >= left {
                spent += left / slope;
                left = 0.0;
            } else {
                spent += width;
                left -= rise;
            }
        }
        (self.lambda, self.want_lp, self.lp_valid) = (lambda, want - allowance, true);
        if self.lp_only {
            return Some(spent);
        }
        // The knapsack is never below its LP: a node the LP already prices
        // at the incumbent's gap is pruned without it.
        if spent >= cap {
            return None;
        }
        let exact = self.knapsack(want - allowance, cap, spent)?;
        if self.by_option || !self.by_total {
            return Some(exact);
        }
        // The bisection rebuilds the staircases over fewer leaves.
        self.lp_valid = false;
        self.tighten_by_total(want - allowance, cap, exact)
    }

    /// Reduced-cost fixing (as MIP solvers fix a variable whose LP reduced
    /// cost closes the gap to the incumbent): removes from the node's
    /// domains `dom` the options that no answer cheaper than `limit` takes,
    /// read from the last [`FeatureBudget::extra`]'s pricing of the node
    /// (the module's doc, "Reduced-cost fixing"). `base` is the node's least
    /// cost `Σ_f m_f` and `dom_min` each feature's `m_f`; the layout is
    /// [`FeatureBudget::set_layout`]'s. Returns how many options it removed
    /// (none when the last pricing left no multiplier: it pruned, or the
    /// bound by whole extras rebuilt the staircases), or `None` when it
    /// emptied a domain — no answer of the node is cheaper than `limit`.
    pub fn fix_options(
        &mut self,
        base: f64,
        limit: f64,
        dom_min: &[f64],
        dom: &mut [u64],
    ) -> Option<usize> {
        if !self.lp_valid || !limit.is_finite() {
            return Some(0);
        }
        // The multipliers tried: the LP's and a geometric grid around it
        // (an option's own best multiplier may lie far from the LP's).
        let lambdas = FIXING_GRID.map(|r| r * self.lambda);
        // Per multiplier, h_f = min(0, min over G_f's rises of δ − λ·G_f(δ))
        // (the least of δ − λ·G_f(δ) lies at a rise, G_f being a
        // staircase, or at δ = 0), and the floor L = base + λ·W + Σ_f h_f.
        let mut floors = lambdas.map(|lambda| base + lambda * self.want_lp);
        self.fix_h.clear();
        for rises in self.choices.chunk_by(|a, b| a.0 == b.0) {
            // Rises outer, multipliers inner (one pass over the rises; the
            // least of the same values, whatever the order).
            let mut h = [0.0; FIXING_GRID.len()];
            for &(_, e, g) in rises {
                for (h, &lambda) in h.iter_mut().zip(&lambdas) {
                    *h = f64::min(*h, e - lambda * g);
                }
            }
            for (floor, &h) in floors.iter_mut().zip(&h) {
                *floor += h;
            }
            self.fix_h.push(h);
        }
        // The floors and the reduced costs are sums of products: a margin
        // against their rounding, so that no improving answer loses an option.
        let least = floors.iter().copied().fold(f64::INFINITY, f64::min);
        let reach = limit + 1e-9 * (1.0 + limit.abs() + least.abs());
        let mut removed = 0;
        let (mut j, mut chunk) = (0, 0);
        for f in 0..self.opt_start.len() - 1 {
            let start = j;
            while j < self.choices.len() && self.choices[j].0 as usize == f {
                j += 1;
            }
            let rises = &self.choices[start..j];
            // Per multiplier, the floor without f's own h_f.
            let mut rest = floors;
            if !rises.is_empty() {
                for (r, &h) in rest.iter_mut().zip(&self.fix_h[chunk]) {
                    *r -= h;
                }
                chunk += 1;
            }
            let (o0, w0, w1) = (
                self.opt_start[f],
                self.word_start[f],
                self.word_start[f + 1],
            );
            // For a credit G_f(δ) ≥ 0 no multiplier prices an option above
            // `most + δ − λ_0·G_f(δ)` (`most` the largest floor, `λ_0` the
            // least multiplier): most options are passed on that bound
            // alone, without the grid (floating-point sums and products are
            // monotone, so it decides as the grid would; issue 43,
            // fourteenth round: the grid was a tenth of the book's search).
            let most = rest.iter().copied().fold(f64::NEG_INFINITY, f64::max);
            let least_lambda = lambdas.iter().copied().fold(f64::INFINITY, f64::min);
            // Options come cheapest first, so one pointer along the rises
            // reads G_f at each.
            let (mut at, mut g) = (0, 0.0);
            let mut any = false;
            for w in w0..w1 {
                let mut bits = dom[w];
                while bits != 0 {
                    let o = 64 * (w - w0) + bits.trailing_zeros() as usize;
                    bits &= bits - 1;
                    let delta = self.cost[o0 + o] - dom_min[f];
                    while at < rises.len() && rises[at].1 <= delta {
                        g = rises[at].2;
                        at += 1;
                    }
                    let priced = (g < 0.0 || most + delta - least_lambda * g >= reach)
                        && rest
                            .iter()
                            .zip(&lambdas)
                            .any(|(&r, &lambda)| r + delta - lambda * g >= reach);
                    if priced {
                        dom[w] &= !(1 << (o % 64));
                        removed += 1;
                    }
                }
                any |= dom[w] != 0;
            }
            if !any {
                return None;
            }
        }
        Some(removed)
    }

    /// The bound with each leaf's whole extra (issue 43): an answer whose
    /// extras sum to `C` reaches only leaves with `Σ_f e_f(ℓ) ≤ C`, so the
    /// knapsack over the shares of those leaves alone must reach `want`
    /// within `C`. With `T_0 < T_1 < …` the leaves' distinct whole extras
    /// and `K_k` the knapsack over the leaves with `Σ_f e_f(ℓ) ≤ T_k`
    /// (non-increasing in `k`), an answer's `C` lies in some `[T_k, T_{k+1})`
    /// with `K_k ≤ C`; the first `k` with `K_k < T_{k+1}` (a monotone test,
    /// found by bisection) gives the least `max(T_k, K_k)` over them, a
    /// bound no lower than `exact` (the knapsack over every leaf).
    fn tighten_by_total(&mut self, want: f64, cap: f64, exact: f64) -> Option<f64> {
        self.totals.clear();
        // A whole extra at the cap or past it is no improving answer's.
        self.totals
            .extend(self.sorted.iter().map(|i| i.4).filter(|&t| t < cap));
        self.totals.sort_unstable_by(f64::total_cmp);
        self.totals.dedup();
        let m = self.totals.len();
        let upper = |totals: &[f64], k: usize| if k + 1 < m { totals[k + 1] } else { cap };
        // Below `exact` no interval can hold an answer (K_k ≥ exact).
        let mut lo = (0..m)
            .position(|k| upper(&self.totals, k) > exact)
            .unwrap_or(m);
        let mut hi = m;
        let mut found: Option<(usize, f64)> = None;
        while lo < hi {
            let k = (lo + hi) / 2;
            let (t, up) = (self.totals[k], upper(&self.totals, k));
            self.class_points(t);
            let _ = self.envelope();
            match self.knapsack(want, up, 0.0) {
                Some(kk) => {
                    found = Some((k, kk));
                    hi = k;
                }
                None => lo = k + 1,
            }
        }
        // The last interval holds the knapsack over every leaf (below the
        // cap), so some interval is found whenever `exact` is below the cap.
        let (k, kk) = found?;
        let bound = exact.max(self.totals[k]).max(kk);
        (bound < cap).then_some(bound)
    }

    /// Per feature, the upper concave envelope of the points of `G_f` from
    /// (0, 0) (its segments) and the rises of `G_f` (the knapsack's
    /// choices); the sum of every feature's largest gain.
    fn envelope(&mut self) -> f64 {
        self.points.sort_unstable_by(|a, b| {
            a.0.cmp(&b.0)
                .then(a.1.total_cmp(&b.1))
                .then(b.2.total_cmp(&a.2))
        });
        // Per feature, the upper concave envelope of G_f from (0, 0), then
        // its segments.
        self.segments.clear();
        self.choices.clear();
        let mut total = 0.0;
        let mut j = 0;
        while j < self.points.len() {
            let f = self.points[j].0;
            self.hull.clear();
            self.hull.push((0.0, 0.0));
            let mut g: f64 = 0.0;
            while j < self.points.len() && self.points[j].0 == f {
                let p = (self.points[j].1, self.points[j].2);
                j += 1;
                // A point no higher than one at a smaller or equal extra
                // adds nothing to G_f (a maximum of non-decreasing steps).
                if p.1 <= g {
                    continue;
                }
                g = p.1;
                self.choices.push((f, p.0, p.1));
                // Pop while the last point lies on or below the chord from
                // the one before it to `p` (keeping the envelope concave).
                while self.hull.len() >= 2 {
                    let (a, b) = (
                        self.hull[self.hull.len() - 2],
                        self.hull[self.hull.len() - 1],
                    );
                    let cross = (b.0 - a.0) * (p.1 - a.1) - (b.1 - a.1) * (p.0 - a.0);
                    if cross >= 0.0 {
                        self.hull.pop();
                    } else {
                        break;
                    }
                }
                self.hull.push(p);
            }
            total += g;
            for w in self.hull.windows(2) {
                let (width, rise) = (w[1].0 - w[0].0, w[1].1 - w[0].1);
                if rise > 0.0 {
                    self.segments.push((rise / width, width));
                }
            }
        }
        total
    }

    /// The points `(feature, extra, G_{f,c}(extra))` of every class's
    /// staircase (the bound by classes).
    fn class_points(&mut self, max_total: f64) {
        // Per (feature and class, tree): the staircase of the largest share
        // within an extra; its rises are G_{f,c}'s increments. The items come
        // tree by tree, so a stable counting sort by key orders them by (key,
        // tree), and only each (key, tree) run — a tree's few leaves — is
        // sorted by (extra, −share): the order of a full sort by (key, tree,
        // extra, −share), without its cost.
        self.steps.clear();
        self.key_steps.clear();
        let mut j = 0;
        while j < self.sorted.len() {
            let key = self.sorted[j].0;
            while j < self.sorted.len() && self.sorted[j].0 == key {
                let t = self.sorted[j].1;
                let run = j;
                while j < self.sorted.len() && self.sorted[j].0 == key && self.sorted[j].1 == t {
                    j += 1;
                }
                let group = &mut self.sorted[run..j];
                sort_short_by(group, |a, b| a.2.total_cmp(&b.2).then(b.3.total_cmp(&a.3)));
                let mut top = 0.0;
                for &(_, _, e, s, all) in &self.sorted[run..j] {
                    if s > top && all <= max_total {
                        self.steps.push((key, e, s - top));
                        top = s;
                    }
                }
            }
            self.key_steps.push(self.steps.len());
        }
        // Each key's increments by extra (the keys are in order already;
        // equal extras keep the order of their trees).
        let mut from = 0;
        for &to in &self.key_steps {
            sort_short_by(&mut self.steps[from..to], |a, b| a.1.total_cmp(&b.1));
            from = to;
        }
        // Per class, the points of G_{f,c}; per feature, G_f = max_c G_{f,c}
        // has the upper envelope of all its classes' points.
        self.points.clear();
        let mut j = 0;
        while j < self.steps.len() {
            let key = self.steps[j].0;
            let mut g = 0.0;
            while j < self.steps.len() && self.steps[j].0 == key {
                let e = self.steps[j].1;
                while j < self.steps.len() && self.steps[j].0 == key && self.steps[j].1 == e {
                    g += self.steps[j].2;
                    j += 1;
                }
                self.points.push((key / CLASSES as u32, e, g));
            }
        }
    }

    /// The points `(feature, cost(o) − m_f, H_f(o))` of every option with a
    /// positive `H_f` (the bound by options).
    fn option_points(&mut self) {
        self.points.clear();
        let mut f = 0;
        self.by_opt_touched.sort_unstable();
        for &o in &self.by_opt_touched {
            let o = o as usize;
            while self.opt_start[f + 1] <= o {
                f += 1;
            }
            let e = self.cost[o] - self.dom_min[f];
            // An option at the node's least cost takes no leaf with a share
            // (a share needs a positive extra); kept out all the same, as
            // the envelope starts at (0, 0).
            if e > 0.0 {
                self.points.push((f as u32, e, self.by_opt[o]));
            }
        }
    }

    /// Sets whether the bound keeps to each leaf's whole extra
    /// ([`FeatureBudget::tighten_by_total`]).
    pub fn set_by_total(&mut self, on: bool) {
        self.by_total = on;
    }

    /// Sets whether the bound stops at the LP relaxation (for its tests).
    #[cfg(test)]
    pub fn set_lp_only(&mut self, on: bool) {
        self.lp_only = on;
    }

    /// The exact knapsack over features: the least `Σ_f δ_f` with
    /// `Σ_f G_f(δ_f) ≥ want`, each `δ_f` one of `G_f`'s rises (or 0), by
    /// dynamic programming over Pareto frontiers of `(extra, gain)`; at
    /// least `lp` (its relaxation). `None` when no choice below `cap`
    /// reaches `want`; `Some(lp)` when the frontier outgrows
    /// [`MAX_FRONTIER`] (the LP still bounds).
    fn knapsack(&mut self, want: f64, cap: f64, lp: f64) -> Option<f64> {
        self.groups.clear();
        let mut j = 0;
        while j < self.choices.len() {
            let (f, start) = (self.choices[j].0, j);
            while j < self.choices.len() && self.choices[j].0 == f {
                j += 1;
            }
            self.groups.push((start, j, self.choices[j - 1].2));
        }
        self.groups
            .sort_unstable_by(|a, b| b.2.total_cmp(&a.2).then(a.0.cmp(&b.0)));
        self.rest.clear();
        self.rest.resize(self.groups.len() + 1, 0.0);
        self.steepest.clear();
        self.steepest.resize(self.groups.len() + 1, 0.0);
        for i in (0..self.groups.len()).rev() {
            self.rest[i] = self.rest[i + 1] + self.groups[i].2;
            let (a, b, _) = self.groups[i];
            let own = self.choices[a..b]
                .iter()
                .map(|&(_, e, g)| g / e)
                .fold(0.0, f64::max);
            self.steepest[i] = self.steepest[i + 1].max(own);
        }
        let mut best = cap;
        self.frontier.clear();
        self.frontier.push((0.0, 0.0));
        for i in 0..self.groups.len() {
            let (a, b, _) = self.groups[i];
            let after = self.rest[i + 1];
            // A state short of `want` by `r` needs at least `r / s` more
            // extra, `s` the steepest gain per extra among the later groups'
            // rises (a rise's gain is at most `s` times its extra, so any
            // choice of them buying `r` costs `r / s` at least); shaved by a
            // relative 1e-9 so that rounding never drops a state that could
            // win. (The LP over the later groups' capped gains prunes a few
            // more states but costs more per state than it saves: BENCHMARKS.md
            // §4, tenth round.)
            let rate = self.steepest[i + 1];
            let hopeless = |c: f64, g: f64, best: f64| {
                let short = want - g;
                short > 0.0 && c + (short / rate) * (1.0 - 1e-9) >= best
            };
            // The next frontier: the Pareto set of the states that stay and
            // of each choice added to every state, merged list by list (the
            // frontier is sorted by extra, so each such list is too): no sort
            // (issue 43: sorting the states took a tenth of a book's CPU).
            self.next.clear();
            for &(c, g) in &self.frontier {
                if c < best && g + after >= want {
                    if !hopeless(c, g, best) {
                        self.next.push((c, g));
                    } else {
                        #[cfg(test)]
                        {
                            self.hopeless_count += 1;
                        }
                    }
                }
            }
            for &(_, e, gain) in &self.choices[a..b] {
                self.shifted.clear();
                for &(c, g) in &self.frontier {
                    let (nc, ng) = (c + e, g + gain);
                    if nc >= best {
                        break;
                    }
                    if ng >= want {
                        best = nc;
                        break;
                    }
                    if ng + after >= want {
                        if !hopeless(nc, ng, best) {
                            self.shifted.push((nc, ng));
                        } else {
                            #[cfg(test)]
                            {
                                self.hopeless_count += 1;
                            }
                        }
                    }
                }
                if !self.shifted.is_empty() {
                    pareto_merge(&self.next, &self.shifted, &mut self.merged);
                    std::mem::swap(&mut self.next, &mut self.merged);
                }
            }
            let keep = self.next.partition_point(|&(c, _)| c < best);
            self.frontier.clear();
            self.frontier.extend_from_slice(&self.next[..keep]);
            if self.frontier.len() > MAX_FRONTIER {
                return Some(lp);
            }
        }
        if best < cap { Some(best.max(lp)) } else { None }
    }
}

/// The Pareto set of the `(extra, gain)` states of `a` and `b` (each sorted
/// by extra, gains not falling) into `out`, sorted by extra: per extra the
/// largest gain, kept when it tops every cheaper state's — what sorting the
/// union by extra (gain falling) and keeping each state whose gain tops the
/// ones before it gives, in one linear pass.
fn pareto_merge(a: &[(f64, f64)], b: &[(f64, f64)], out: &mut Vec<(f64, f64)>) {
    out.clear();
    let (mut i, mut j) = (0, 0);
    let mut top = f64::NEG_INFINITY;
    while i < a.len() || j < b.len() {
        let from_a = j == b.len()
            || (i < a.len()
                && a[i]
                    .0
                    .total_cmp(&b[j].0)
                    .then(b[j].1.total_cmp(&a[i].1))
                    .is_le());
        let x = if from_a {
            i += 1;
            a[i - 1]
        } else {
            j += 1;
            b[j - 1]
        };
        if x.1 > top {
            top = x.1;
            match out.last_mut() {
                Some(last) if last.0.total_cmp(&x.0).is_eq() => *last = x,
                _ => out.push(x),
            }
        }
    }
}

#[cfg(test)]
#[path = "tree_budget_knapsack_tests.rs"]
mod knapsack_tests;

#[cfg(test)]
#[path = "tree_budget_tests.rs"]
mod tests;
