//! An exact solver for tree ensembles, as [`super::separable`] is for additive
//! models: the program of the tree MIP (`coherent::trees`: OCEAN's formulation,
//! Parmentier & Vidal 2021, over Russell 2019's mixed polytope), the same
//! answers, proven optimal, without HiGHS.
//!
//! # The program as a search over per-feature domains
//! [`Workspace::build_tree_cells`] gives every feature a menu of options: stay
//! put, each allowed special state or level, and the cheapest reachable point
//! of each *cell* of the value range (the intervals the ensemble's split
//! thresholds cut it into, on which every test of the feature goes one way),
//! inside the actionable bounds, directions, change limits, grids, forbidden
//! transitions and Russell's diversity fixes. An answer picks one option per
//! feature; its cost is the sum of the options' costs ([`super::cost`] is
//! separable by feature) and the model accepts it when the base score plus the
//! one leaf each tree sends it to reaches `τ = logit(t) + margin`. The menus
//! hold an optimum: within a cell the trees cannot tell points apart, so the
//! cheapest point of the cell is as good as any.
//!
//! # The bound
//! A search node restricts every feature `f` to a domain `D_f` (a bit set over
//! its options, sorted by cost so that the cheapest option is the lowest bit).
//! For a leaf `ℓ` of tree `t` reachable under `D` — every test on its path has
//! an option of `D_f` going its way — let
//!
//! ```text
//! rc(ℓ) = Σ_f min { cost(o) : o ∈ D_f, o takes the path of ℓ }
//! ```
//!
//! (a feature that no test on the path reads takes its cheapest option). Costs
//! are separable and non-negative, so an answer in `D` of cost `C` reaches, in
//! every tree, a leaf with `rc ≤ C`, and its margin is at most
//! `M(C) = base + Σ_t max { value(ℓ) : ℓ ∈ t, rc(ℓ) ≤ C }`. The node's lower
//! bound is the least `C` with `M(C) ≥ τ`: each tree's leaves form a staircase
//! in `(rc, value)`, and the staircases are merged in order of `rc`. Leaves
//! whose `rc` reaches the incumbent's cost are left out (they cannot lead to a
//! cheaper answer), which is the tree-wise pruning of leaves unreachable within
//! the budget (Devos, Meert & Davis 2021 prune and merge tree-wise bounds the
//! same way for robustness; Khouna, Emine, Ferry & Vidal 2026 search interval
//! domains cut by the split thresholds).
//!
//! That bound lets each tree spend the whole budget `C` on its own feature,
//! so an answer that must move several features is charged only its dearest
//! move. The feature-budget bound (`coherent::tree_budget`, on by default,
//! [`TreeSearch::set_budget_bound`]) charges it for each: every leaf's gain is
//! shared among the features its path moves, and a knapsack over features
//! (solved exactly, its LP relaxation as a fallback) finds the least total
//! extra cost that buys enough gain, counting for each feature only one way
//! of moving it. The node's bound is the larger of the
//! two, and never below its parent's (a child's points are its parent's).
//!
//! [`TreeSearch::set_merged_bound`] replaces the trees' staircases by those of
//! groups of trees whose leaves must agree (`coherent::tree_bound`, Veritas's
//! merging): a tighter bound, fewer nodes, but dearer nodes; off by default.
//!
//! # The search
//! Best first on that bound. Incumbents come from solved nodes and from the
//! primal heuristic (`coherent::tree_primal`), run at the root and, for
//! robust advice and under the distinct-subsets cuts, within a budget of tree
//! walks from the domains of nodes about to be split. At each
//! node the *candidate* — every feature at the cheapest option of its domain —
//! is scored exactly, summed as the library sums it
//! (`TreeEnsemble::sum_tree_values`); if it is accepted, its cost
//! `Σ_f min cost(D_f)` is the least cost of any point of the node, so the node
//! is solved. Otherwise the node is split by a test of the ensemble: its
//! feature's domain into the options going left and those going right.
//! Every split shrinks a domain, so the search ends; it stops when no open
//! node's bound is below the incumbent (relative [`PRUNE_REL`]): the
//! incumbent is optimal. At the node or time limit it returns the incumbent
//! with the least open bound as a proven lower bound on the optimum.
//!
//! # The branching
//! Each tree whose *witness* — its best leaf with `rc` up to the node's
//! bound, the larger of the two bounds — differs from the candidate's names
//! a split: the first test on the witness's path that the candidate takes
//! the other way (the witness's gain is what the bound counts on and the
//! candidate does not have). The feature-budget bound is the larger in most
//! nodes (HELOC's 100-tree book: 37 of 41 thousand open nodes; XGBoost
//! 1000×8: all), and there the leaves each tree reaches at the per-tree
//! bound fall short of those the node's bound allows; splitting towards the
//! latter took a tenth of the book's nodes and a third of the 500-tree
//! model's, and proved the one XGBoost 1000×8 applicant that stopped at
//! 60 s (issue 43, BENCHMARKS.md §4). The *single rule* takes the
//! tree with the largest value difference. By default the search branches
//! by *reliability branching* (Achterberg, Koch & Martin 2005; Achterberg
//! 2007, "Constraint Integer Programming", ch. 5) over the splits of the 8
//! trees of largest gain ([`STRONG_DEFAULT`],
//! [`TreeSearch::set_strong_branching`]): a candidate split is scored by the
//! product of its two children's bound gains over the node's bound (a child
//! that closes, pruned or solved, gains the whole gap to the incumbent),
//! measured by evaluating both children (*strong branching*) until its
//! split class — the tests of one feature that part its options alike —
//! has been observed on each side, and by the classes' mean observed gains
//! (*pseudocosts*, from every split and strong evaluation of the search)
//! after. The best-scored split is made; when it was evaluated, its
//! evaluations are the children. Every candidate evaluated also bounds the
//! node: the node is the union of the candidate's two children, so its
//! points cost at least the lesser of their bounds, and the children take
//! the largest such bound. The first 30 nodes use the single rule (most
//! applicants of HELOC's 100-tree book are proven in a few dozen nodes,
//! where evaluations spent on comparing splits do not pay back), and feed
//! the pseudocosts. From the 2,000th node on the candidates widen to the
//! splits of 32 trees ([`STRONG_LATE`]): a search that long is a hard
//! proof, where a better split pays for more evaluations (LightGBM
//! 1000×63's hardest HELOC applicant proven in a third of the nodes; the
//! book's searches end before it). Why: with the optimum handed to it as its first
//! incumbent the search still needed 81 % of its nodes (issue 43): the
//! proof dominates, and a proof's size is the branching's; splits whose
//! children both raise the bound shrink it (on HELOC's 1000-tree models to
//! a half or less, BENCHMARKS.md §4). Robust advice ([`TreeSearch::set_box`])
//! branches the same way from its witnesses (the per-tree bound's), and
//! makes its own robust splits where a candidate is accepted but not over
//! its box: on HELOC's 100-tree model its searches took a third less CPU
//! than under the single rule, with the same costs, and on the 500-tree
//! model the bounds proven at the time limit rose (issue 43, sixteenth
//! round, BENCHMARKS.md §4).
//!
//! The bound adds leaf values in f64; XGBoost sums in float32, so the bound's
//! test allows the float32 rounding of the whole sum ([`TreeSearch::prepare`]),
//! and every answer's acceptance is the library's own sum.

#[path = "tree_box_bound.rs"]
mod tree_box_bound;

use super::separable::{PRUNE_REL, Pick, Workspace};
use super::tree_bound::{MergedBound, Space, StepSum};
use super::tree_box_primal::{BoxMenus, BoxPrimal};
use super::tree_budget::{CLASSES, FeatureBudget, LeafExtra};
use super::tree_masks::LeftMasks;
use super::tree_primal::{Menus, Primal};
use super::trees::for_each_node;
use crate::error::{Error, Result};
use crate::model::TreeEnsemble;
use crate::model::trees::{Node, Source, Test};
use crate::schema::Schema;
use std::cmp::Ordering;
use std::collections::BinaryHeap;

/// How a search ended.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum SearchStatus {
    /// Proven optimal (relative [`PRUNE_REL`]); the picks are in
    /// [`TreeSearch::picks`].
    Optimal,
    /// Proven infeasible: no point of the menus is accepted.
    Infeasible,
    /// The node or time limit stopped the search with an answer, not proven
    /// optimal: the optimum is at least `lower_bound`.
    LimitWithAnswer { lower_bound: f64 },
    /// The node or time limit stopped the search before any answer was found.
    LimitWithoutAnswer,
}

/// The result of [`TreeSearch::solve`].
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct SearchResult {
    pub status: SearchStatus,
    /// The cost of the answer (NaN without one).
    pub cost: f64,
    /// Search nodes evaluated.
    pub nodes: usize,
}

/// An open search node in the best-first queue.
#[derive(Debug, Clone, Copy)]
struct Open {
    bound: f64,
    seq: u64,
    /// Its domains: `words` words at `slab[at..]`.
    at: usize,
    /// The split it was evaluated to need: feature, and the tree node whose
    /// test divides the feature's domain.
    feature: u32,
    node: u32,
    /// Which options of the feature the split's first child keeps (see
    /// [`Split`]).
    split: Split,
}

/// The two children of a split, each open or closed (`None`: pruned, solved
/// or empty).
type Children = [Option<Open>; 2];

/// How a split divides a feature's domain at a tree node: the options the
/// node's test sends left against the others (`Left`), or, for robust advice
/// ([`TreeSearch::set_box`]), the options whose box reaches one side of the
/// test against those whose box does not (`ReachLeft`, `ReachRight`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Split {
    Left,
    ReachLeft,
    ReachRight,
}

impl PartialEq for Open {
    fn eq(&self, o: &Self) -> bool {
        self.cmp(o) == Ordering::Equal
    }
}
impl Eq for Open {}
impl PartialOrd for Open {
    fn partial_cmp(&self, o: &Self) -> Option<Ordering> {
        Some(self.cmp(o))
    }
}
impl Ord for Open {
    /// Reversed, so that `BinaryHeap` pops the least bound first (the
    /// earliest created among equal bounds: deterministic).
    fn cmp(&self, o: &Self) -> Ordering {
        o.bound
            .total_cmp(&self.bound)
            .then_with(|| o.seq.cmp(&self.seq))
    }
}

/// Nodes between two dives of the search (see [`TreeSearch::solve`]).
const PLUNGE_EVERY: usize = 256;

/// Nodes between two runs of the primal heuristic ([`super::tree_primal`])
/// after a run that improved the incumbent; the interval doubles up to
/// `HEURISTIC_LAST` while runs fail.
const HEURISTIC_FIRST: usize = 16;
const HEURISTIC_LAST: usize = 256;

/// The heuristic spends about one tree walk per `HEURISTIC_SHARE` trees per
/// node evaluated (beyond its run at the root). A node's evaluation walks
/// every tree at least twice (the candidate, the bound, and each propagation
/// round when on), so this caps the heuristic at a small share of the search's work,
/// counted, so that the search stays deterministic.
const HEURISTIC_SHARE: u64 = 2;

/// Propagation rounds per node evaluation (the last round only bounds).
const PROPAGATION_ROUNDS: usize = 4;

/// The most tree walks one run of the robust heuristic
/// ([`super::tree_box_primal`]) may add to the heuristics' count: at the root,
/// where the plain heuristic's budget is unbounded, this bounds it.
const BOX_WALKS: u64 = 200_000;

/// Pseudocosts of a split class (Bénichou et al. 1971; Achterberg, Koch &
/// Martin 2005): the bound gains observed on its children, summed and
/// counted per side (left-going options first).
#[derive(Debug, Clone, Copy, Default)]
struct Pseudo {
    sum: [f64; 2],
    count: [u32; 2],
}

/// The search's branching unless [`TreeSearch::set_strong_branching`] says
/// otherwise: reliability branching over 8 candidate splits from the 30th
/// node on, pseudocosts trusted after one observation per side (measured on
/// HELOC's 100- to 1000-tree models, BENCHMARKS.md §4: the best of the
/// settings tried; strong branching from the root spends more on the many
/// applicants proven in a few dozen nodes than it saves).
pub const STRONG_DEFAULT: [usize; 3] = [8, 30, 1];

/// Strong branching widened on long searches unless
/// [`TreeSearch::set_strong_branching_late`] says otherwise: from the
/// 2,000th node on, 32 candidate splits instead of [`STRONG_DEFAULT`]'s 8.
/// A search that has come so far is a hard proof, where a better split is
/// worth more evaluations: on HELOC's LightGBM 1000×63 model the hardest
/// applicant (#9) took 84,497 nodes with 16 candidates, 56,221 with 24 and
/// 35,658 with 32 against 117,011 with 8, while 32 from the start cost the
/// 100-tree book a fifth more CPU (its searches end within 1,000 nodes, so
/// this leaves them as they were; BENCHMARKS.md §4, issue 43, seventeenth
/// round).
pub const STRONG_LATE: [usize; 2] = [2000, 32];

/// The least gain a side of a split is scored with, so that the product
/// score still ranks splits that gain on one side only (Achterberg 2007).
const SCORE_EPS: f64 = 1e-6;

/// The gain credited to a side of a split that closes (pruned, or solved)
/// when no incumbent gives the gap to close.
const CLOSED_GAIN: f64 = 1e6;

/// What a propagation round did to the domains.
enum Propagated {
    /// Some domain became empty: no improving answer in the node.
    Empty,
    Narrowed,
    Unchanged,
}

/// What evaluating a node found.
enum Eval {
    /// No answer in the node beats the incumbent (or none exists).
    Pruned,
    /// The candidate is accepted at the node's least cost.
    Solved { cost: f64 },
    /// The node's lower bound and the split to make.
    Open {
        bound: f64,
        feature: u32,
        node: u32,
        split: Split,
    },
}

/// The root of a search as the feature-budget bound reads it
/// ([`TreeSearch::root_leaves`]): its bound, the margin an answer must reach
/// (less the float32 allowance), the ensemble's base score, and per tree
/// the leaves reachable from the applicant's own leaf up.
#[derive(Debug, Clone, serde::Serialize)]
pub struct RootLeaves {
    pub bound: f64,
    pub need: f64,
    pub base_score: f64,
    pub trees: Vec<Vec<RootLeaf>>,
}

/// A reachable leaf at the root: its value and, per feature its path moves
/// at a positive cost, `(feature, least extra cost, least extra cost per
/// class of options: below the applicant's value, above it, the rest)`
/// (`None`: no option of the class takes the path).
#[derive(Debug, Clone, serde::Serialize)]
pub struct RootLeaf {
    pub value: f64,
    pub extras: Vec<(u32, f64, [Option<f64>; CLASSES])>,
}

/// An ensemble node as the search's walks read it, 16 bytes (the model's
/// nodes are 40: on 500-tree models the bound's walk spent most of its time
/// loading them, issue 43), built by [`TreeSearch::prepare`].
#[derive(Debug, Clone, Copy)]
struct WalkNode {
    /// The feature tested; [`WALK_LEAF`] at a leaf.
    feature: u32,
    /// Where the test's left-going option mask starts in `masks`.
    ms: u32,
    /// An inner node's children (left in the low half, right in the high);
    /// a leaf's value's bits.
    kids: u64,
}

/// [`WalkNode::feature`] of a leaf.
const WALK_LEAF: u32 = u32::MAX;

impl WalkNode {
    fn left(self) -> usize {
        (self.kids & 0xffff_ffff) as usize
    }
    fn right(self) -> usize {
        (self.kids >> 32) as usize
    }
    fn value(self) -> f64 {
        f64::from_bits(self.kids)
    }
}

/// The two children of a split differ in the split feature's domain only:
/// every tree that does not test it reaches the same leaves under both,
/// with the same extra costs over the child's least cost and the same
/// per-feature extras of the feature-budget bound (`coherent::tree_budget`;
/// its classes follow the candidate's option of each feature, which is
/// the same in both for every other feature). The first child's bound walk
/// of such a tree is recorded — under the smaller of the two children's
/// least costs, so that it holds every leaf the second child keeps — and
/// the second child replays it, filtered by its own least cost and limit,
/// instead of walking (issue 43, fourteenth round); it also keeps the
/// first child's candidate leaves in those trees. Plain advice under the
/// bound by classes only (the default), without propagation.
#[derive(Debug, Default)]
struct SiblingWalks {
    /// What the next evaluation does: record or replay.
    mode: SiblingMode,
    /// The split feature, and the least cost of its options in the second
    /// child.
    feature: usize,
    other_min: f64,
    /// Per tree, whether it tests the split feature.
    tests: Vec<bool>,
    /// The current split's number; a tree's record is valid for it when its
    /// entry in `tree_split` equals it.
    split: u64,
    tree_split: Vec<u64>,
    /// Per tree, its leaves' range in `leaves`.
    range: Vec<(u32, u32)>,
    /// Recorded leaves: extra over the least cost, value, node, and the
    /// range of their per-feature extras in `extras`.
    leaves: Vec<(f64, f64, u32, u32, u32)>,
    extras: Vec<LeafExtra>,
    /// Whether the walk in progress records instead of collecting.
    recording: bool,
    /// The split whose first child last walked the candidate's leaves.
    cand_split: u64,
    /// The second child's options of the split feature (words).
    other: Vec<u64>,
}

#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
enum SiblingMode {
    #[default]
    Off,
    Record,
    Replay,
}

/// Every buffer of the tree search, reusable across applicants.
#[derive(Debug, Default)]
pub struct TreeSearch {
    // Options, per feature sorted by cost: feature f's are
    // `opt_start[f]..opt_start[f + 1]` (flat), its domain bits
    // `word_start[f]..word_start[f + 1]`.
    opt_start: Vec<usize>,
    word_start: Vec<usize>,
    cost: Vec<f64>,
    /// The menu index of each (sorted) option.
    menu_index: Vec<usize>,
    /// What the trees see of each option.
    input: Vec<f64>,
    // Per node of the ensemble: where its left-going option mask starts in
    // `masks` (inner nodes), and its parent (`u32::MAX` at a root).
    mask_start: Vec<usize>,
    masks: Vec<u64>,
    parent: Vec<u32>,
    /// Per node of the ensemble its test class (inner nodes): nodes that
    /// test the same feature with the same test, threshold and missing-value
    /// direction send every option the same way, so they share one mask in
    /// `masks` (HELOC's XGBoost models: 1,312 inner nodes hold 485 distinct
    /// tests; 66,720 of the 1000-tree model hold 1,264), which is computed
    /// once per applicant for the class's first node, `class_node`. They
    /// depend on the ensemble alone and are kept while `model_key` holds.
    test_class: Vec<u32>,
    class_node: Vec<u32>,
    /// The options of each feature ordered by value, from which `masks`
    /// are read per test class (`coherent::tree_masks`).
    left_masks: LeftMasks,
    /// What the test classes and the other model-only tables
    /// ([`TreeSearch::build_model_tables`]) were built for.
    model_key: super::trees::NodeArrayKey,
    class_start: Vec<usize>,
    /// The ensemble's nodes as the walks read them.
    walk_nodes: Vec<WalkNode>,
    /// Per node of the model, the largest leaf value of its subtree (a leaf:
    /// its value): the walk skips a subtree below [`TreeSearch::walk_floor`].
    sub_max: Vec<f64>,
    /// The value below which a collecting walk skips leaves and subtrees:
    /// the candidate's leaf value of the tree walked (see
    /// [`TreeSearch::evaluate`]), or −∞.
    walk_floor: f64,
    /// The bound's walks shared by the two children of a split
    /// ([`SiblingWalks`]).
    sibling: SiblingWalks,
    /// Number of trees, and their indices (`0..n_trees`).
    n_trees: usize,
    all_trees: Vec<u32>,
    /// The float32 allowance of the bound's test.
    slack: f64,
    // Evaluation buffers.
    cur: Vec<u64>,
    undo: Vec<u64>,
    leaves: Vec<(f64, f64, u32)>,
    events: Vec<(f64, u32, f64, u32)>,
    /// Where each tree's staircase starts in `events` (and where the last
    /// ends), before any sort.
    tree_start: Vec<usize>,
    tree_value: Vec<f64>,
    tree_leaf: Vec<u32>,
    /// Per tree, its step exactly at the budget bound, (value, leaf), or
    /// `(-inf, u32::MAX)` (`TreeSearch::bound_from_budget`).
    tree_at: Vec<(f64, u32)>,
    cand_leaf: Vec<u32>,
    cand_value: Vec<f64>,
    cand_opt: Vec<usize>,
    path: Vec<u32>,
    /// The node's domains after propagation.
    work: Vec<u64>,
    tree_max: Vec<f64>,
    acc: Vec<u64>,
    count: Vec<usize>,
    on_path: Vec<usize>,
    path_features: Vec<usize>,
    touched: Vec<usize>,
    survivors: usize,
    /// The primal heuristic ([`super::tree_primal`]).
    primal: Primal,
    // The search.
    slab: Vec<u64>,
    free: Vec<usize>,
    heap: BinaryHeap<Open>,
    child: Vec<u64>,
    best: Vec<usize>,
    picks: Vec<Pick>,
    // No-good cuts (the distinct-subsets rule, [`TreeSearch::set_cuts`]):
    // cut `c` holds the features `cut_features[cut_start[c]..cut_start[c + 1]]`.
    cut_start: Vec<usize>,
    cut_features: Vec<usize>,
    /// Per feature, whether its (sorted) option 0 is staying put.
    stay_first: Vec<bool>,
    /// The merged bound ([`super::tree_bound`]), and whether it is on
    /// ([`TreeSearch::set_merged_bound`]).
    merged: MergedBound,
    merged_on: bool,
    /// Whether nodes are narrowed by propagation before they are bounded
    /// ([`TreeSearch::set_propagation`]); off by default.
    propagation_on: bool,
    /// Whether reduced-cost fixing is off ([`TreeSearch::set_fixing`]; on
    /// by default), and the options it removed since [`TreeSearch::prepare`].
    fixing_off: bool,
    fixed: u64,
    /// Strong branching ([`TreeSearch::set_strong_branching`]) in the solve
    /// under way: how many candidate splits an open node keeps (at most 1:
    /// the single rule), from which node on they are compared, and after how many
    /// observations per side a split's pseudocosts are trusted instead (0:
    /// every candidate is evaluated).
    sb_k: usize,
    sb_after: usize,
    sb_reliable: usize,
    /// The setting asked for by [`TreeSearch::set_strong_branching`]
    /// (`None`: [`STRONG_DEFAULT`]); the three fields above take it at each
    /// solve.
    sb_set: Option<[usize; 3]>,
    /// The widening asked for by [`TreeSearch::set_strong_branching_late`]
    /// (`None`: [`STRONG_LATE`]): from node `[0]` on, `[1]` candidates.
    sb_late_set: Option<[usize; 2]>,
    /// The candidate splits of the node last evaluated, (feature, tree
    /// node), best first; and the trees' gains they were chosen by.
    cands: Vec<(u32, u32)>,
    gains: Vec<(f64, u32)>,
    /// The candidates of the node being split.
    sb_cands: Vec<(u32, u32)>,
    /// Splits chosen among two candidates or more in the last solve (for the
    /// tests: that the rule ran).
    sb_compared: usize,
    #[cfg(test)]
    sb_widest: usize,
    /// Per inner tree node, its split class: nodes testing the same feature
    /// with the same left-going options divide every domain alike; built
    /// by the first solve with strong branching after each
    /// [`TreeSearch::prepare`] (empty until then).
    split_class: Vec<u32>,
    /// [`TreeSearch::build_split_classes`]'s buffers: its hash table of test
    /// classes, and each test class's split class.
    class_order: Vec<u32>,
    class_split: Vec<u32>,
    /// Pseudocosts per split class: the sums and counts of the bound gains
    /// observed on its left and right children.
    pseudo: Vec<Pseudo>,
    /// The feature-budget bound ([`super::tree_budget`]), on unless
    /// [`TreeSearch::set_budget_bound`] turned it off; `dom_min` holds each
    /// feature's least cost in the node being evaluated.
    budget: FeatureBudget,
    budget_off: bool,
    /// Whether the budget bound credits each feature's gains per option
    /// rather than per class ([`TreeSearch::set_budget_by_option`]).
    budget_by_option: bool,
    dom_min: Vec<f64>,
    /// The budget bound's classes of the node's options: class `c`'s words
    /// at `class_mask[c·words..]`, laid out as the domains.
    class_mask: Vec<u64>,
    /// Per feature, the candidate option its classes in `class_mask` were
    /// parted by (`usize::MAX`: none yet for this applicant).
    class_cand: Vec<usize>,
    /// During a walk, each feature's least cost in `cur`.
    cur_min: Vec<f64>,
    // Robust advice ([`TreeSearch::set_box`]): whether a box is set, and per
    // inner node (laid out as `masks`) the options whose box reaches its left
    // and its right side; per tree, the cap of the node being evaluated and
    // the candidate's worst leaf over its box, with its value.
    boxed: bool,
    reach_l: Vec<u64>,
    reach_r: Vec<u64>,
    cap: Vec<f64>,
    rob_leaf: Vec<u32>,
    rob_value: Vec<f64>,
    stack: Vec<usize>,
    /// The box-aware walk's pending subtrees (`tree_box_bound`).
    pending: Vec<u32>,
    /// The robust primal heuristic ([`super::tree_box_primal`]).
    box_primal: BoxPrimal,
    /// Whether the robust search bounds on plain leaves (capped) instead of
    /// the box-aware walk of `tree_box_bound` ([`TreeSearch::set_box_bound`]).
    box_bound_off: bool,
    /// Whether the caps are the forced leaves' least (the caps before
    /// `tree_box_bound`'s `worst_bound`; for the tests that compare them).
    forced_caps: bool,
    /// Per feature, the inner tree nodes that test it:
    /// `feature_nodes[feature_node_start[f]..feature_node_start[f + 1]]`.
    feature_node_start: Vec<usize>,
    feature_nodes: Vec<u32>,
    /// Warm starts ([`TreeSearch::add_warm`]): `n` sorted options each, and
    /// the leaf values of the one being scored.
    warm: Vec<usize>,
    warm_values: Vec<f64>,
    /// The per-tree bound of the node last evaluated (for the tests of the
    /// witnesses).
    #[cfg(test)]
    last_tree_bound: f64,
    /// The last open node's feature-budget bound (for the tests).
    #[cfg(test)]
    last_budget_bound: f64,
}

/// What a bound must stay below to beat the incumbent's cost (relative
/// [`PRUNE_REL`]); infinite without an incumbent.
fn below_incumbent(incumbent: f64) -> f64 {
    if incumbent.is_finite() {
        incumbent - PRUNE_REL * incumbent.abs()
    } else {
        f64::INFINITY
    }
}

/// The least cost of a feature's options in `words` (its domain words;
/// `cost` from its first option on), infinite when empty.
fn least_cost(cost: &[f64], words: &[u64]) -> f64 {
    match lowest_bit(words) {
        Some(o) => cost[o],
        None => f64::INFINITY,
    }
}

/// The least cost of a feature's options in `words` that are also in
/// `mask`, infinite when none is.
fn least_cost_in(cost: &[f64], words: &[u64], mask: &[u64]) -> f64 {
    for (k, (w, m)) in words.iter().zip(mask).enumerate() {
        let v = w & m;
        if v != 0 {
            return cost[64 * k + v.trailing_zeros() as usize];
        }
    }
    f64::INFINITY
}

/// Runs at most this long are sorted by insertion in [`sort_short_by`].
const SHORT_RUN: usize = 24;

/// Sorts `v` stably by `cmp`, as `sort_by` does: by insertion when it is
/// short. A node's per-tree leaves (about three on HELOC's 100×4 model) and
/// the feature-budget bound's per-feature runs are a few elements each, where
/// the standard sort's set-up cost more than the sort (issue 43: about a
/// tenth of a book's CPU went to sorting such runs).
pub(super) fn sort_short_by<T: Copy>(v: &mut [T], cmp: impl Fn(&T, &T) -> Ordering) {
    if v.len() > SHORT_RUN {
        v.sort_by(cmp);
        return;
    }
    for i in 1..v.len() {
        let x = v[i];
        let mut j = i;
        while j > 0 && cmp(&x, &v[j - 1]) == Ordering::Less {
            v[j] = v[j - 1];
            j -= 1;
        }
        v[j] = x;
    }
}

fn lowest_bit(words: &[u64]) -> Option<usize> {
    words
        .iter()
        .enumerate()
        .find(|(_, w)| **w != 0)
        .map(|(k, w)| 64 * k + w.trailing_zeros() as usize)
}

fn bit(words: &[u64], o: usize) -> bool {
    words[o / 64] >> (o % 64) & 1 == 1
}

impl TreeSearch {
    /// An empty search; buffers grow on first use and are kept.
    pub fn new() -> TreeSearch {
        TreeSearch::default()
    }

    /// Reads the menus of `ws` (built by [`Workspace::build_tree_cells`] for
    /// `ens` on `schema`): sorts each feature's options by cost, finds what the
    /// trees see of each, and which options every test sends left.
    pub fn prepare(&mut self, ws: &Workspace, schema: &Schema, ens: &TreeEnsemble) -> Result<()> {
        let n = schema.n_features();
        if ws.n_features() != n || ens.inputs().len() != n {
            return Err(Error::InvalidArgument(
                "tree search: menus, model and schema do not match".into(),
            ));
        }
        self.cut_start.clear();
        self.cut_start.push(0);
        self.cut_features.clear();
        self.boxed = false;
        self.opt_start.clear();
        self.word_start.clear();
        self.cost.clear();
        self.menu_index.clear();
        self.input.clear();
        self.opt_start.push(0);
        self.word_start.push(0);
        let mut x = vec![0.0; schema.encoded_dim()];
        let mut order: Vec<usize> = Vec::new();
        for f in 0..n {
            let menu = ws.menu(f);
            order.clear();
            order.extend(0..menu.len());
            // Cheapest first; among equal costs, the menu's order (staying put
            // comes first in every menu). The key is unique, so the unstable
            // sort gives the stable one's order without its scratch buffer.
            order.sort_unstable_by(|&a, &b| menu[a].cost.total_cmp(&menu[b].cost).then(a.cmp(&b)));
            for &o in &order {
                ws.write_feature(
                    schema,
                    f,
                    Pick {
                        option: o,
                        units: 0.0,
                    },
                    &mut x,
                )?;
                self.cost.push(menu[o].cost);
                self.menu_index.push(o);
                self.input.push(ens.encoded_input(f, &x));
            }
            self.opt_start.push(self.cost.len());
            let words = menu.len().div_ceil(64);
            self.word_start.push(self.word_start[f] + words);
        }
        // The budget bound's classes are parted anew for these menus.
        self.class_cand.clear();
        let nodes = ens.nodes();
        if !self.model_key.holds(ens) {
            self.model_key.clear();
            self.build_test_classes(ens);
            self.build_model_tables(ens);
            self.model_key.set(ens);
        }
        // One mask per test class, read by every node of the class
        // (`coherent::tree_masks`: a binary search per threshold test).
        self.masks.clear();
        self.class_start.clear();
        self.left_masks
            .build(&self.input, &self.opt_start, &self.word_start);
        for &k in &self.class_node {
            let node = &nodes[k as usize];
            let f = node.feature as usize;
            let words = self.word_start[f + 1] - self.word_start[f];
            let base = self.masks.len();
            self.class_start.push(base);
            self.masks.resize(base + words, 0);
            self.left_masks.left_of(
                node,
                |v| ens.goes_left(node, v),
                f,
                &self.input,
                &self.opt_start,
                &mut self.masks[base..],
            );
        }
        self.mask_start.clear();
        self.mask_start.resize(nodes.len(), 0);
        for (k, node) in nodes.iter().enumerate() {
            if node.test != Test::Leaf {
                self.mask_start[k] = self.class_start[self.test_class[k] as usize];
            }
        }
        self.walk_nodes.clear();
        for (k, node) in nodes.iter().enumerate() {
            self.walk_nodes.push(if node.test == Test::Leaf {
                WalkNode {
                    feature: WALK_LEAF,
                    ms: 0,
                    kids: node.value.to_bits(),
                }
            } else {
                WalkNode {
                    feature: node.feature,
                    ms: u32::try_from(self.mask_start[k]).map_err(|_| {
                        Error::InvalidArgument("tree search: the ensemble is too large".into())
                    })?,
                    kids: u64::from(node.left) | u64::from(node.right) << 32,
                }
            });
        }
        self.budget
            .set_layout(&self.opt_start, &self.word_start, &self.cost);
        self.split_class.clear();
        // Candidate splits need the split classes, which the next solve
        // builds: until then, evaluations (the bounds' tests') keep one.
        self.sb_k = 0;
        self.warm.clear();
        self.n_trees = ens.roots().len();
        self.all_trees.clear();
        self.all_trees.extend(0..self.n_trees as u32);
        self.primal.walks = 0;
        Ok(())
    }

    /// The tables that depend on the ensemble alone — each node's parent and
    /// subtree maximum, the inner nodes testing each feature, the primal
    /// heuristic's trees per feature, the float32 allowance — built by the
    /// first [`TreeSearch::prepare`] for an ensemble and kept while its
    /// [`super::trees::NodeArrayKey`] holds (issue 43: the book's applicants
    /// share one model).
    fn build_model_tables(&mut self, ens: &TreeEnsemble) {
        let nodes = ens.nodes();
        let n = ens.inputs().len();
        self.parent.clear();
        self.parent.resize(nodes.len(), u32::MAX);
        for (k, node) in nodes.iter().enumerate() {
            if node.test != Test::Leaf {
                self.parent[node.left as usize] = k as u32;
                self.parent[node.right as usize] = k as u32;
            }
        }
        self.sub_max.clear();
        self.sub_max.resize(nodes.len(), f64::NEG_INFINITY);
        for &r in ens.roots() {
            subtree_max(nodes, r as usize, &mut self.sub_max);
        }
        self.feature_node_start.clear();
        self.feature_node_start.resize(n + 1, 0);
        for node in nodes.iter().filter(|x| x.test != Test::Leaf) {
            self.feature_node_start[node.feature as usize + 1] += 1;
        }
        for f in 0..n {
            self.feature_node_start[f + 1] += self.feature_node_start[f];
        }
        self.feature_nodes.clear();
        self.feature_nodes.resize(self.feature_node_start[n], 0);
        self.count.clear();
        self.count.extend_from_slice(&self.feature_node_start[..n]);
        for (k, node) in nodes.iter().enumerate() {
            if node.test != Test::Leaf {
                let f = node.feature as usize;
                self.feature_nodes[self.count[f]] = k as u32;
                self.count[f] += 1;
            }
        }
        self.primal.prepare(ens, n);
        self.fixed = 0;
        // The float32 sum of XGBoost rounds each partial sum to a relative
        // 2^-24: at most (trees + 1)·2^-24 times the largest partial sum, which
        // is at most |base| + Σ_t max |leaf|. LightGBM sums in f64.
        let mut magnitude = ens.base_score().abs();
        for &r in ens.roots() {
            let mut m: f64 = 0.0;
            for_each_node(nodes, r as usize, |k| {
                if nodes[k].test == Test::Leaf {
                    m = m.max(nodes[k].value.abs());
                }
            });
            magnitude += m;
        }
        let unit = match ens.source() {
            Source::Xgboost | Source::OnnxF32 | Source::PmmlF32 => f32::EPSILON as f64,
            Source::Lightgbm
            | Source::Catboost
            | Source::Ebm
            | Source::Sklearn
            | Source::OnnxF64
            | Source::PmmlF64 => f64::EPSILON,
        };
        let trees = ens.roots().len() as f64;
        self.slack = 2.0 * (trees + 1.0) * unit * magnitude;
    }

    /// Asks the next solves for robust advice over the box of half-widths
    /// `half` (data units, one per feature; see [`super::tree_box`]): an
    /// answer counts only when its worst score over its box — per tree the
    /// least leaf whose region meets the box — reaches the need. Call after
    /// [`TreeSearch::prepare`] on menus built by
    /// [`Workspace::build_tree_cells_boxed`] with the same `half` (on each of
    /// their cells the box reaches the same sides of every test, so the
    /// cheapest point of a cell is as robust as any); all-zero or empty
    /// `half` is the plain search.
    ///
    /// The search stays exact: a point's worst leaf in a tree is at most the
    /// leaf its own value reaches, so the plain bound still holds; a node's
    /// bound also caps each tree at its least leaf that the box of *every*
    /// point of the node meets (the tree's *cap*, exact once the domains are
    /// single options); a candidate that is accepted plainly but not over its
    /// box splits a feature on its worst leaf's path into the options whose
    /// box reaches that leaf's side and the others.
    pub fn set_box(
        &mut self,
        ws: &Workspace,
        schema: &Schema,
        ens: &TreeEnsemble,
        half: &[f64],
    ) -> Result<()> {
        self.set_tree_box(ws, schema, ens, super::tree_box::TreeBox::reals(half))
    }

    /// [`TreeSearch::set_box`] over the box `b` of either
    /// [`super::BoxKind`], on menus built by
    /// [`Workspace::build_tree_cells_in_box`] with the same box: each option's
    /// reach of each test comes from `tree_box::TreeBox::interval`,
    /// the only place the box's shape is read.
    pub fn set_tree_box(
        &mut self,
        ws: &Workspace,
        schema: &Schema,
        ens: &TreeEnsemble,
        b: super::tree_box::TreeBox,
    ) -> Result<()> {
        let half = b.half();
        let n = self.opt_start.len() - 1;
        self.boxed = false;
        if half.iter().all(|&d| d == 0.0) {
            return Ok(());
        }
        if half.len() != n || half.iter().any(|d| !(d.is_finite() && *d >= 0.0)) {
            return Err(Error::InvalidArgument(
                "tree search: the box needs one finite half-width ≥ 0 per feature".into(),
            ));
        }
        let mut x = vec![0.0; schema.encoded_dim()];
        let mut boxes: Vec<Option<(f64, f64)>> = Vec::with_capacity(self.cost.len());
        for f in 0..n {
            for o in 0..self.opt_start[f + 1] - self.opt_start[f] {
                ws.write_feature(
                    schema,
                    f,
                    Pick {
                        option: self.menu_index[self.opt_start[f] + o],
                        units: 0.0,
                    },
                    &mut x,
                )?;
                boxes.push(b.interval(schema, ens, f, &x));
            }
        }
        let nodes = ens.nodes();
        self.reach_l.clear();
        self.reach_l.resize(self.masks.len(), 0);
        self.reach_r.clear();
        self.reach_r.resize(self.masks.len(), 0);
        // Per test class (its nodes share the masks' place, and reach the
        // same sides).
        for (c, &k) in self.class_node.iter().enumerate() {
            let node = &nodes[k as usize];
            let f = node.feature as usize;
            let base = self.class_start[c];
            for o in 0..self.opt_start[f + 1] - self.opt_start[f] {
                let j = self.opt_start[f] + o;
                let (l, r) = match boxes[j] {
                    Some((a, b)) => super::trees::reaches(ens, node, a, b),
                    None => {
                        let l = ens.goes_left(node, self.input[j]);
                        (l, !l)
                    }
                };
                if l {
                    self.reach_l[base + o / 64] |= 1 << (o % 64);
                }
                if r {
                    self.reach_r[base + o / 64] |= 1 << (o % 64);
                }
            }
        }
        self.box_primal.prepare(ens, n);
        self.boxed = true;
        Ok(())
    }

    /// The worst score over the box of the answer `opt` (sorted option
    /// indices, one per feature), summed as the library sums; each tree's
    /// worst leaf and its value in `rob_leaf`, `rob_value`.
    fn worst_score(&mut self, ens: &TreeEnsemble, opt: &[usize]) -> f64 {
        let nodes = ens.nodes();
        self.rob_leaf.clear();
        self.rob_value.clear();
        for &r in ens.roots() {
            let (mut least, mut at) = (f64::INFINITY, u32::MAX);
            self.stack.clear();
            self.stack.push(r as usize);
            while let Some(k) = self.stack.pop() {
                let node = &nodes[k];
                if node.test == Test::Leaf {
                    if node.value < least {
                        (least, at) = (node.value, k as u32);
                    }
                    continue;
                }
                let o = opt[node.feature as usize];
                let ms = self.mask_start[k];
                if bit(&self.reach_l[ms..], o) {
                    self.stack.push(node.left as usize);
                }
                if bit(&self.reach_r[ms..], o) {
                    self.stack.push(node.right as usize);
                }
            }
            self.rob_leaf.push(at);
            self.rob_value.push(least);
        }
        ens.sum_tree_values(self.rob_value.iter().copied())
    }

    /// Per tree, an upper bound on the worst leaf over the box of every
    /// point of the domains `work` (`tree_box_bound`'s `cap_below`), into
    /// `cap`: no answer of the node does better than its cap in that tree.
    fn caps(&mut self, ens: &TreeEnsemble) {
        self.cap.clear();
        let work = std::mem::take(&mut self.work);
        for &r in ens.roots() {
            let c = self.cap_below(ens, r as usize, &work);
            self.cap.push(c);
        }
        self.work = work;
    }

    /// The robust split of a node whose candidate is not accepted over its
    /// box: the tree where the candidate's worst leaf falls furthest below the
    /// tree's cap, at the first test on that leaf's path whose side not every
    /// option of the feature reaches; `None` when the candidate's worst leaves
    /// all meet their caps.
    fn robust_split(&self, ens: &TreeEnsemble) -> Option<(u32, u32, Split)> {
        let nodes = ens.nodes();
        let mut chosen: Option<(f64, usize)> = None;
        for t in 0..self.n_trees {
            let gap = self.cap[t] - self.rob_value[t];
            if gap > 0.0 && chosen.is_none_or(|(g, _)| gap > g) {
                chosen = Some((gap, t));
            }
        }
        let (_, t) = chosen?;
        let mut path: Vec<u32> = Vec::new();
        let mut k = self.rob_leaf[t];
        while k != u32::MAX {
            path.push(k);
            k = self.parent[k as usize];
        }
        for j in (1..path.len()).rev() {
            let k = path[j] as usize;
            let node = &nodes[k];
            let f = node.feature as usize;
            let (w0, w1) = (self.word_start[f], self.word_start[f + 1]);
            let ms = self.mask_start[k];
            let (m, split) = if path[j - 1] == node.left {
                (&self.reach_l, Split::ReachLeft)
            } else {
                (&self.reach_r, Split::ReachRight)
            };
            if (w0..w1).any(|w| self.work[w] & !m[ms + (w - w0)] != 0) {
                return Some((f as u32, k as u32, split));
            }
        }
        None
    }

    /// Sets the distinct-subsets rule's no-good cuts
    /// ([`super::DiversityRule::DistinctSubsets`]: each further explanation
    /// leaves at least one feature of every earlier explanation's changed set
    /// unchanged) for the next solves, replacing
    /// earlier ones; call after [`TreeSearch::prepare`].
    ///
    /// Staying put costs nothing and is sorted first, so a node's candidate
    /// leaves every feature whose domain still holds "stay" unchanged: a node
    /// meets every cut as long as each cut has such a feature, and is pruned
    /// once one has none. The bound ignores the cuts (it stays a relaxation);
    /// the heuristic's answers are kept only if they meet them.
    pub fn set_cuts(
        &mut self,
        ws: &Workspace,
        schema: &Schema,
        factual: &[f64],
        cuts: &[Vec<usize>],
    ) -> Result<()> {
        let n = self.opt_start.len() - 1;
        self.cut_start.clear();
        self.cut_features.clear();
        self.cut_start.push(0);
        self.stay_first.clear();
        if cuts.is_empty() {
            return Ok(());
        }
        let own = schema.encode(factual)?;
        let mut x = own.clone();
        for f in 0..n {
            let lay = schema.layout(f);
            let cols = lay.start..lay.start + lay.width;
            let o = self.menu_index[self.opt_start[f]];
            ws.write_feature(
                schema,
                f,
                Pick {
                    option: o,
                    units: 0.0,
                },
                &mut x,
            )?;
            let stays = cols.clone().all(|c| (x[c] - own[c]).abs() <= 1e-12);
            self.stay_first.push(stays);
            x[cols.clone()].copy_from_slice(&own[cols]);
        }
        for cut in cuts {
            if cut.iter().any(|&f| f >= n) {
                return Err(Error::InvalidArgument(
                    "tree search: a cut names a feature the schema does not have".into(),
                ));
            }
            self.cut_features.extend_from_slice(cut);
            self.cut_start.push(self.cut_features.len());
        }
        Ok(())
    }

    /// Whether every cut has a feature `f` with `stays(f)` (and a stay
    /// option).
    fn every_cut_has(&self, stays: impl Fn(usize) -> bool) -> bool {
        (1..self.cut_start.len()).all(|c| {
            self.cut_features[self.cut_start[c - 1]..self.cut_start[c]]
                .iter()
                .any(|&f| self.stay_first[f] && stays(f))
        })
    }

    /// Whether every cut still has a feature that may stay put under `dom`.
    fn cuts_alive(&self, dom: &[u64]) -> bool {
        self.every_cut_has(|f| dom[self.word_start[f]] & 1 == 1)
    }

    /// Whether the options `opt` (sorted indices) meet every cut.
    fn meets_cuts(&self, opt: &[usize]) -> bool {
        self.every_cut_has(|f| opt[f] == 0)
    }

    /// The menus as the primal heuristic reads them (for its tests).
    #[cfg(test)]
    pub(super) fn menus(&self) -> Menus<'_> {
        Menus {
            opt_start: &self.opt_start,
            word_start: &self.word_start,
            cost: &self.cost,
            mask_start: &self.mask_start,
            masks: &self.masks,
        }
    }

    /// Whether every inner node's mask (its test class's) holds exactly the
    /// options its own test sends left, and how many test classes the
    /// ensemble has (for the tests of the classes).
    #[cfg(test)]
    pub(super) fn masks_are_each_nodes_own(&self, ens: &TreeEnsemble) -> (bool, usize) {
        let mut own = true;
        for (k, node) in ens.nodes().iter().enumerate() {
            if node.test == Test::Leaf {
                continue;
            }
            let f = node.feature as usize;
            let words = self.word_start[f + 1] - self.word_start[f];
            let mask = &self.masks[self.mask_start[k]..self.mask_start[k] + words];
            for o in 0..64 * words {
                let left = o < self.opt_start[f + 1] - self.opt_start[f]
                    && ens.goes_left(node, self.input[self.opt_start[f] + o]);
                own &= bit(mask, o) == left;
            }
        }
        (own, self.class_node.len())
    }

    /// The model-only tables ([`TreeSearch::build_model_tables`]) as they
    /// stand: parents, subtree maxima (bits), the inner nodes per feature,
    /// the primal heuristic's trees per feature, the float32 allowance
    /// (bits).
    #[cfg(test)]
    #[allow(clippy::type_complexity)]
    pub(super) fn model_tables(
        &self,
    ) -> (Vec<u32>, Vec<u64>, Vec<usize>, Vec<u32>, Vec<Vec<u32>>, u64) {
        (
            self.parent.clone(),
            self.sub_max.iter().map(|v| v.to_bits()).collect(),
            self.feature_node_start.clone(),
            self.feature_nodes.clone(),
            self.primal.feature_trees().to_vec(),
            self.slack.to_bits(),
        )
    }

    /// Builds the split classes as a solve does and checks them against
    /// every pair of inner nodes' own tests: two nodes share a class exactly
    /// when they test the same feature and send the same options left. The
    /// number of split classes (for the tests of the classes).
    #[cfg(test)]
    pub(super) fn split_classes_are_by_feature_and_mask(&mut self, ens: &TreeEnsemble) -> usize {
        self.build_split_classes();
        let nodes = ens.nodes();
        let own = |k: usize| -> (u32, Vec<bool>) {
            let f = nodes[k].feature as usize;
            let left = (self.opt_start[f]..self.opt_start[f + 1])
                .map(|o| ens.goes_left(&nodes[k], self.input[o]))
                .collect();
            (nodes[k].feature, left)
        };
        let inner: Vec<usize> = (0..nodes.len())
            .filter(|&k| nodes[k].test != Test::Leaf)
            .collect();
        for &a in &inner {
            for &b in &inner {
                let same = self.split_class[a] == self.split_class[b];
                assert_eq!(same, own(a) == own(b), "nodes {a} and {b}");
            }
        }
        self.pseudo.len()
    }

    /// The menu index of feature `f`'s sorted option `o` (for the primal
    /// heuristic's tests).
    #[cfg(test)]
    pub(super) fn menu_option(&self, f: usize, o: usize) -> usize {
        self.menu_index[self.opt_start[f] + o]
    }

    /// Evaluates one node with domains `dom` and no incumbent (for the
    /// bounds' tests): `None` when pruned (no accepted point in the node),
    /// `Some((true, cost))` when its candidate is accepted at its least cost,
    /// `Some((false, bound))` with its lower bound otherwise.
    #[cfg(test)]
    pub(super) fn node_bound(
        &mut self,
        ens: &TreeEnsemble,
        dom: &[u64],
        need: f64,
    ) -> Option<(bool, f64)> {
        match self.evaluate(ens, dom, need, f64::INFINITY) {
            Eval::Pruned => None,
            Eval::Solved { cost } => Some((true, cost)),
            Eval::Open { bound, .. } => {
                assert!(
                    self.budget_off || self.budget_by_option || self.classes_are_the_candidates(),
                    "the budget bound's classes kept from an earlier node are not this node's"
                );
                Some((false, bound))
            }
        }
    }

    /// Whether the budget bound's classes (`class_mask`, kept across nodes
    /// while a feature's candidate option stays; [`TreeSearch::set_classes`])
    /// are those a fresh parting by this node's candidate gives.
    #[cfg(test)]
    fn classes_are_the_candidates(&self) -> bool {
        let all = self.work.len();
        (0..self.opt_start.len() - 1).all(|f| {
            let (o0, w0) = (self.opt_start[f], self.word_start[f]);
            let v0 = self.input[o0 + self.cand_opt[f]];
            self.class_cand[f] == self.cand_opt[f]
                && (0..self.opt_start[f + 1] - o0).all(|o| {
                    let c = option_class(self.input[o0 + o], v0);
                    (0..CLASSES).all(|k| {
                        let set = self.class_mask[k * all + w0 + o / 64] >> (o % 64) & 1 == 1;
                        set == (k == c)
                    })
                })
        })
    }

    /// Evaluates one node with domains `dom` and no incumbent (for the tests
    /// of the witnesses): when it is open, its bound, its per-tree bound and
    /// each tree's witness leaf (node index).
    #[cfg(test)]
    pub(super) fn node_witnesses(
        &mut self,
        ens: &TreeEnsemble,
        dom: &[u64],
        need: f64,
    ) -> Option<(f64, f64, Vec<u32>)> {
        match self.evaluate(ens, dom, need, f64::INFINITY) {
            Eval::Open { bound, .. } => Some((bound, self.last_tree_bound, self.tree_leaf.clone())),
            _ => None,
        }
    }

    /// Evaluates the node `dom` (no incumbent) and, when it is open, gives
    /// its bound and witnesses twice: as the search took them
    /// ([`TreeSearch::bound_from_budget`]), and by merging every staircase
    /// in order of rc — the per-tree bound, the larger of it and the budget
    /// bound, and each tree's last step up to that — with the per-tree
    /// bound and the budget bound.
    #[cfg(test)]
    #[allow(clippy::type_complexity)]
    pub(super) fn node_bound_against_merge(
        &mut self,
        ens: &TreeEnsemble,
        dom: &[u64],
        need: f64,
    ) -> Option<((f64, Vec<u32>), (f64, Vec<u32>), f64, f64)> {
        let Eval::Open { bound, .. } = self.evaluate(ens, dom, need, f64::INFINITY) else {
            return None;
        };
        let taken = (bound, self.tree_leaf.clone());
        let mut events = self.events.clone();
        events.sort_by(|a, b| a.0.total_cmp(&b.0).then(a.1.cmp(&b.1)));
        let mut value = vec![f64::NEG_INFINITY; self.n_trees];
        let mut leaf = vec![u32::MAX; self.n_trees];
        let (mut missing, mut sum, mut tree_bound) = (self.n_trees, ens.base_score(), f64::NAN);
        for &(rc, t, v, l) in &events {
            let t = t as usize;
            if value[t] == f64::NEG_INFINITY {
                missing -= 1;
                sum += v;
            } else {
                sum += v - value[t];
            }
            value[t] = v;
            leaf[t] = l;
            if missing == 0 && sum >= need - self.slack {
                tree_bound = rc;
                break;
            }
        }
        let merged = tree_bound.max(self.last_budget_bound);
        if merged > tree_bound {
            for &(_, t, _, l) in events.iter().take_while(|e| e.0 <= merged) {
                leaf[t as usize] = l;
            }
        }
        Some((taken, (merged, leaf), tree_bound, self.last_budget_bound))
    }

    /// [`TreeSearch::node_bound`] against an incumbent of cost `incumbent`:
    /// `None` when the node holds no answer cheaper than it.
    #[cfg(test)]
    pub(super) fn node_bound_under(
        &mut self,
        ens: &TreeEnsemble,
        dom: &[u64],
        need: f64,
        incumbent: f64,
    ) -> Option<(bool, f64)> {
        match self.evaluate(ens, dom, need, incumbent) {
            Eval::Pruned => None,
            Eval::Solved { cost } => Some((true, cost)),
            Eval::Open { bound, .. } => Some((false, bound)),
        }
    }

    /// Evaluates the node `dom` against an incumbent of cost `incumbent` and,
    /// when it is open, narrows it by reduced-cost fixing as the search does
    /// before storing it (for the fixing's tests): `None` when the node is
    /// not open, `Some(None)` when fixing emptied a domain, else the
    /// narrowed domains.
    #[cfg(test)]
    pub(super) fn node_fixed_under(
        &mut self,
        ens: &TreeEnsemble,
        dom: &[u64],
        need: f64,
        incumbent: f64,
    ) -> Option<Option<Vec<u64>>> {
        match self.evaluate(ens, dom, need, incumbent) {
            Eval::Open { .. } => Some(self.fix_options(incumbent).then(|| self.work.clone())),
            _ => None,
        }
    }

    /// Evaluates both children of splitting the node `dom` at inner node
    /// `k` as the search's branching does, the first against `incumbents[0]`
    /// and the second against `incumbents[1]`, with the second child
    /// replaying the first's bound walks ([`SiblingWalks`]) when `shared`:
    /// per child, `None` when its domain is empty, else what its evaluation
    /// found (outcome, bound, split, and an open child's domains after
    /// reduced-cost fixing), printed (f64s round-trip exactly).
    #[cfg(test)]
    pub(super) fn split_children(
        &mut self,
        ens: &TreeEnsemble,
        dom: &[u64],
        need: f64,
        k: usize,
        incumbents: [f64; 2],
        shared: bool,
    ) -> [Option<String>; 2] {
        let f = ens.nodes()[k].feature as usize;
        if shared {
            self.sibling_begin(dom, f, k, Split::Left);
        }
        let mut out = [None, None];
        for (j, side) in [true, false].into_iter().enumerate() {
            if !self.split_child(dom, f, k, Split::Left, side) {
                continue;
            }
            let child = self.child.clone();
            out[j] = Some(match self.evaluate(ens, &child, need, incumbents[j]) {
                Eval::Pruned => "pruned".to_string(),
                Eval::Solved { cost } => format!("solved {cost:?}"),
                Eval::Open {
                    bound,
                    feature,
                    node,
                    split,
                } => {
                    let kept = self.fix_options(incumbents[j]);
                    format!(
                        "open {bound:?} at {feature}/{node} {split:?}; fixed {kept} {:?}",
                        self.work
                    )
                }
            });
            self.sibling_next();
        }
        self.sibling.mode = SiblingMode::Off;
        out
    }

    /// How many of the last [`TreeSearch::split_children`]'s trees the
    /// second child replayed (for its test's non-vacuity).
    #[cfg(test)]
    pub(super) fn sibling_replayed(&self) -> usize {
        (0..self.sibling.tests.len())
            .filter(|&t| !self.sibling.tests[t] && self.sibling.tree_split[t] == self.sibling.split)
            .count()
    }

    /// Makes the feature-budget bound stop at its LP relaxation (for its
    /// tests: the exact knapsack over features must never be below it).
    #[cfg(test)]
    pub(super) fn set_budget_lp_only(&mut self, on: bool) {
        self.budget.set_lp_only(on);
    }

    /// How many splits of the last solve strong branching chose among two
    /// candidates or more (for its tests).
    #[cfg(test)]
    pub(super) fn strong_compared(&self) -> usize {
        self.sb_compared
    }

    /// The most candidate splits an open node of the last solve held (for
    /// the tests of [`TreeSearch::set_strong_branching_late`]).
    #[cfg(test)]
    pub(super) fn widest_candidates(&self) -> usize {
        self.sb_widest
    }

    /// Turns the propagation of the domains (`TreeSearch::propagate`: each
    /// feature narrowed to the options some leaf that can still lift the
    /// answer takes, in every tree) on or off for the
    /// next solves; off by default. It is exact (it removes only options no
    /// improving answer takes) but, measured on HELOC's 100- to 1000-tree
    /// models (issue 43), it spared almost no nodes (4759 against 4763 on the
    /// hardest 100-tree applicant, the same ±15 % elsewhere) while each of
    /// its rounds walks every tree once more: off, the search took 2.3 times
    /// less CPU on the 500-tree models. Kept for comparisons (`trees_scale
    /// --search --propagate`) and for models where it may pay.
    pub fn set_propagation(&mut self, on: bool) {
        self.propagation_on = on;
    }

    /// Turns reduced-cost fixing (`coherent::tree_budget`, "Reduced-cost
    /// fixing") on or off for the next solves; on by default. Exact: it
    /// removes from an open node only options no answer cheaper than the
    /// incumbent takes, so the optimum's cost is the same either way (which
    /// of two answers of equal cost is returned may differ). Off is for
    /// comparisons and its tests.
    pub fn set_fixing(&mut self, on: bool) {
        self.fixing_off = !on;
    }

    /// The options reduced-cost fixing removed from open nodes since the
    /// last [`TreeSearch::prepare`] (a diagnostic for the tests and the
    /// benchmarks).
    pub fn fixed_options(&self) -> u64 {
        self.fixed
    }

    /// Turns the merged bound of `coherent::tree_bound` (trees grouped so that
    /// their leaves must agree, Devos, Meert & Davis 2021) on or off for the
    /// next solves; off by default. It is admissible and never below the
    /// per-tree bound, and needs up to three times fewer nodes on HELOC's
    /// models, but costs more per node than it saves on most of them
    /// (BENCHMARKS.md, issue 24), so the search does not use it unasked.
    pub fn set_merged_bound(&mut self, on: bool) {
        self.merged_on = on;
    }

    /// Turns the feature-budget bound of `coherent::tree_budget` (each leaf's
    /// gain charged to the features its path moves; an LP over features) on
    /// or off for the next solves; on by default. The search takes the larger
    /// of it and the per-tree bound, so it never loosens the bound; off, the
    /// search is the per-tree one (for comparisons, BENCHMARKS.md issue 24).
    pub fn set_budget_bound(&mut self, on: bool) {
        self.budget_off = !on;
    }

    /// Makes the feature-budget bound credit a feature's gains per option of
    /// the feature (on: `coherent::tree_budget`'s bound by options, never
    /// below the bound by classes with every leaf kept; it keeps dominated
    /// leaves) or per class of options (off, the
    /// default), for the next solves; robust advice always bounds by
    /// classes. Off by default because, measured on HELOC (BENCHMARKS.md,
    /// issue 43), it is seldom tighter and costs more per node than it
    /// saves: 2.5 % fewer nodes for 8–13 % more CPU on the 100-tree model,
    /// no proof gained on the 1000-tree ones.
    pub fn set_budget_by_option(&mut self, on: bool) {
        self.budget_by_option = on;
    }

    /// Makes the feature-budget bound keep to each leaf's whole extra
    /// (`coherent::tree_budget`: an answer of extra `C` reaches no leaf whose
    /// extras sum past `C`) for the next solves; off by default. Never below
    /// the default bound; measured on HELOC's 1000-tree models (BENCHMARKS.md,
    /// issue 43) it mostly needs fewer nodes (up to 40 %), but each costs
    /// 20–45 % more CPU, and it proved neither of LightGBM 1000×63's two
    /// stops.
    pub fn set_budget_by_total(&mut self, on: bool) {
        self.budget.set_by_total(on);
    }

    /// Makes the feature-budget bound leave out each tree's dominated leaves
    /// (`coherent::tree_budget`, "Dominated leaves": a leaf no better than
    /// another of its tree that needs no more of any feature; on, the
    /// default) or keep them (off), for the next solves. The bound is never
    /// lower with them left out; the optima are the same.
    pub fn set_budget_dominance(&mut self, on: bool) {
        self.budget.set_dominance(on);
    }

    /// Sets the branching of the next solves (module docs, "The
    /// branching"; by default [`STRONG_DEFAULT`]): strong branching over `k`
    /// candidates (`k` ≥ 2), or the single rule alone (`k` ≤ 1). With `k` ≥
    /// 2, every open node keeps `k` candidate splits —
    /// the single rule's split of the `k` trees whose witnesses gain most,
    /// one per split class — and from the `after`-th node on, the node to
    /// split evaluates both children of each candidate and splits by the one
    /// whose children's bound gains over it have the largest product
    /// (Achterberg 2007's score); the chosen pair's evaluations are its
    /// children, and both take as bound at least the largest, over the
    /// candidates evaluated, of the lesser of a candidate's two children's
    /// bounds (the node is the union of either pair). With `reliable` > 0
    /// (reliability branching,
    /// Achterberg, Koch & Martin 2005), a candidate whose split class has
    /// been seen `reliable` times on each side is scored by its pseudocosts
    /// (the mean gains observed on every split and strong evaluation of the
    /// class) instead of evaluated. The optimal costs are the same (among
    /// answers of equal cost, the one returned may differ); only the nodes
    /// change, and each strong evaluation counts as a node. Robust advice
    /// ([`TreeSearch::set_box`]) branches by the same rule; its robust
    /// splits are made as they are.
    pub fn set_strong_branching(&mut self, k: usize, after: usize, reliable: usize) {
        self.sb_set = Some([k, after, reliable]);
    }

    /// Widens strong branching on long searches (by default
    /// [`STRONG_LATE`]): from the `after`-th node on, `k` candidate splits per
    /// node instead of [`TreeSearch::set_strong_branching`]'s (no change when
    /// `k` is not larger, or under the single rule). Only the nodes change.
    pub fn set_strong_branching_late(&mut self, after: usize, k: usize) {
        self.sb_late_set = Some([after, k]);
    }

    /// Numbers the test classes of the inner nodes of `ens` (`test_class`,
    /// `class_node`; see their doc), in order of each class's first node.
    fn build_test_classes(&mut self, ens: &TreeEnsemble) {
        let nodes = ens.nodes();
        let mut seen: std::collections::HashMap<super::trees::InnerTest, u32> =
            std::collections::HashMap::new();
        self.test_class.clear();
        self.test_class.resize(nodes.len(), u32::MAX);
        self.class_node.clear();
        for (k, node) in nodes.iter().enumerate() {
            if node.test == Test::Leaf {
                continue;
            }
            let key = (
                node.feature,
                node.test,
                node.threshold.to_bits(),
                node.default_left,
            );
            let next = self.class_node.len() as u32;
            let class = *seen.entry(key).or_insert(next);
            if class == next {
                self.class_node.push(k as u32);
            }
            self.test_class[k] = class;
        }
    }

    /// Numbers the split classes of the inner tree nodes (`split_class`):
    /// equal feature and equal left-going options, one class. Every node of
    /// a test class shares its class's mask, so the test classes — 485 on
    /// HELOC's 100-tree model against 1,312 inner nodes — are grouped by
    /// (feature, mask) in an open-addressing table, numbered as first met,
    /// and each node takes its test class's number. The masks depend on the
    /// applicant's menus, so this runs per applicant: hashing instead of
    /// sorting the test classes took it from 2.8 % of the book's
    /// instructions to a few hundredths (issue 43, fourteenth round).
    fn build_split_classes(&mut self) {
        let n = self.parent.len();
        let classes = self.class_node.len();
        fn key(s: &TreeSearch, c: u32) -> (u32, &[u64]) {
            let node = s.walk_nodes[s.class_node[c as usize] as usize];
            let f = node.feature as usize;
            let words = s.word_start[f + 1] - s.word_start[f];
            let ms = s.class_start[c as usize];
            (node.feature, &s.masks[ms..ms + words])
        }
        // Slots hold a test class (its first member met), `u32::MAX` empty;
        // at most half full.
        let mut table = std::mem::take(&mut self.class_order);
        let size = (2 * classes).next_power_of_two().max(2);
        table.clear();
        table.resize(size, u32::MAX);
        self.class_split.clear();
        self.class_split.resize(classes, u32::MAX);
        let mut count = 0u32;
        for c in 0..classes as u32 {
            let (f, mask) = key(self, c);
            // Fx-style multiplicative mixing of the feature and the words.
            let mut h = u64::from(f).wrapping_mul(0x517c_c1b7_2722_0a95);
            for &w in mask {
                h = (h.rotate_left(5) ^ w).wrapping_mul(0x517c_c1b7_2722_0a95);
            }
            let mut at = (h >> 32) as usize & (size - 1);
            loop {
                let held = table[at];
                if held == u32::MAX {
                    table[at] = c;
                    self.class_split[c as usize] = count;
                    count += 1;
                    break;
                }
                if key(self, held) == (f, mask) {
                    self.class_split[c as usize] = self.class_split[held as usize];
                    break;
                }
                at = (at + 1) & (size - 1);
            }
        }
        self.split_class.clear();
        self.split_class.resize(n, u32::MAX);
        for k in 0..n {
            if self.walk_nodes[k].feature != WALK_LEAF {
                self.split_class[k] = self.class_split[self.test_class[k] as usize];
            }
        }
        self.pseudo.clear();
        self.pseudo.resize(count as usize, Pseudo::default());
        self.class_order = table;
    }

    /// The picks of the last answer, one per feature (menu indices).
    pub fn picks(&self) -> &[Pick] {
        &self.picks
    }

    /// Adds a warm start for the next solve (issue 43, [`super::tree_warm`]):
    /// each feature of `moves` (feature, what the trees see of a value) at
    /// the cheapest option of its menu in the same cell of the ensemble's
    /// thresholds (the value's side of every test of the feature), every
    /// other feature, and a feature whose cell no option reaches, at its
    /// cheapest option. The solve's primal heuristic starts from it; an
    /// accepted answer found so is only an incumbent, and the search still
    /// proves its answer optimal. [`TreeSearch::prepare`] forgets them.
    pub fn add_warm(&mut self, ens: &TreeEnsemble, moves: &[(u32, f64)]) {
        let n = self.opt_start.len().saturating_sub(1);
        let nodes = ens.nodes();
        let at = self.warm.len();
        self.warm.resize(at + n, 0);
        for &(f, v) in moves {
            let f = f as usize;
            if f >= n {
                continue;
            }
            let tests =
                &self.feature_nodes[self.feature_node_start[f]..self.feature_node_start[f + 1]];
            let options = self.opt_start[f + 1] - self.opt_start[f];
            let found = (0..options).find(|&o| {
                tests.iter().all(|&k| {
                    let k = k as usize;
                    ens.goes_left(&nodes[k], v) == bit(&self.masks[self.mask_start[k]..], o)
                })
            });
            self.warm[at + f] = found.unwrap_or(0);
        }
    }

    /// The margin of the options `opt` (one sorted option per feature),
    /// summed as the library sums it.
    fn score_options(&mut self, ens: &TreeEnsemble, opt: &[usize]) -> f64 {
        let nodes = ens.nodes();
        self.warm_values.clear();
        for &r in ens.roots() {
            let mut k = r as usize;
            while nodes[k].test != Test::Leaf {
                let left = bit(
                    &self.masks[self.mask_start[k]..],
                    opt[nodes[k].feature as usize],
                );
                k = if left { nodes[k].left } else { nodes[k].right } as usize;
            }
            self.warm_values.push(nodes[k].value);
        }
        ens.sum_tree_values(self.warm_values.iter().copied())
    }

    /// The moves of the last answer: each feature off its cheapest option,
    /// with what the trees see of its value (for [`TreeSearch::add_warm`]).
    pub fn answer_moves(&self, out: &mut Vec<(u32, f64)>) {
        out.clear();
        for (f, &o) in self.best.iter().enumerate() {
            if o != 0 {
                out.push((f as u32, self.input[self.opt_start[f] + o]));
            }
        }
    }

    fn words(&self) -> usize {
        *self.word_start.last().unwrap_or(&0)
    }

    /// The root's domains: every option of every feature.
    pub(super) fn root_domains(&self) -> Vec<u64> {
        let mut root = vec![0u64; self.words()];
        for f in 0..self.opt_start.len() - 1 {
            for o in 0..self.opt_start[f + 1] - self.opt_start[f] {
                root[self.word_start[f] + o / 64] |= 1 << (o % 64);
            }
        }
        root
    }

    /// The least cost of feature `f`'s options in `words` (its domain words).
    fn min_cost(&self, f: usize, words: &[u64]) -> f64 {
        least_cost(&self.cost[self.opt_start[f]..], words)
    }

    /// The root of the search for `need` (after [`TreeSearch::prepare`])
    /// as the feature-budget bound reads it, for studies of stronger
    /// relaxations (BENCHMARKS.md §4, eleventh round:
    /// `benches/peers/tree_root_relaxations.py`); `None` when the root is
    /// not open (its candidate accepted, or no answer). Not used by the
    /// search.
    #[doc(hidden)]
    pub fn root_leaves(&mut self, ens: &TreeEnsemble, need: f64) -> Option<RootLeaves> {
        let n = self.opt_start.len() - 1;
        let root = self.root_domains();
        let (boxed, by_option) = (self.boxed, self.budget_by_option);
        (self.boxed, self.budget_by_option) = (false, false);
        let eval = self.evaluate(ens, &root, need, f64::INFINITY);
        (self.boxed, self.budget_by_option) = (boxed, by_option);
        let Eval::Open { bound, .. } = eval else {
            return None;
        };
        // The evaluation left the root's domains, candidate and classes in
        // place: each tree walked again, its leaves read back as the
        // budget bound received them.
        let base: f64 = self.dom_min.iter().sum();
        self.cur.clear();
        self.cur.extend_from_slice(&self.work);
        self.cur_min.clear();
        self.cur_min.extend_from_slice(&self.dom_min);
        self.on_path.clear();
        self.on_path.resize(n, 0);
        self.path_features.clear();
        let mut trees = Vec::with_capacity(self.n_trees);
        for (t, &r) in ens.roots().iter().enumerate() {
            self.leaves.clear();
            self.budget.begin_tree();
            let own = self.cand_value[t];
            self.walk_floor = if own.is_nan() { f64::NEG_INFINITY } else { own };
            self.walk(r as usize, 0.0, base, f64::INFINITY, Visit::Collect);
            let (value, at, feats) = self.budget.tree_leaves();
            trees.push(
                (0..value.len())
                    .map(|j| RootLeaf {
                        value: value[j],
                        extras: feats[at[j]..at[j + 1]]
                            .iter()
                            .map(|&(f, e, c)| (f, e, c.map(|x| x.is_finite().then_some(x))))
                            .collect(),
                    })
                    .collect(),
            );
        }
        Some(RootLeaves {
            bound,
            need: need - self.slack,
            base_score: ens.base_score(),
            trees,
        })
    }

    /// Finds the cheapest answer whose margin reaches `need`, within
    /// `node_limit` evaluated nodes and `time_limit` seconds.
    pub fn solve(
        &mut self,
        ens: &TreeEnsemble,
        need: f64,
        node_limit: usize,
        time_limit: f64,
    ) -> SearchResult {
        let start = std::time::Instant::now();
        let n = self.opt_start.len() - 1;
        let words = self.words();
        self.heap.clear();
        self.slab.clear();
        self.free.clear();
        self.best.clear();
        let mut incumbent = f64::INFINITY;
        let mut nodes = 0usize;
        let mut seq = 0u64;
        let root = self.root_domains();
        let mut limited = false;
        let mut next_clock_check = 32;
        self.primal.walks = 0;
        self.heuristic(ens, &root, need, u64::MAX, &mut incumbent);
        let root_walks = self.primal.walks;
        // Warm starts: each scored as it is; the heuristic then runs once,
        // within what the root run took (at least one pass over the trees),
        // from the cheapest accepted one, or from the nearest applicant's if
        // none is accepted.
        let warm = std::mem::take(&mut self.warm);
        let mut from: Option<(f64, usize)> = None;
        for (j, start) in warm.chunks(n.max(1)).enumerate() {
            if start.len() != n {
                continue;
            }
            let cost: f64 = (0..n)
                .map(|f| self.cost[self.opt_start[f] + start[f]])
                .sum();
            let accepted = self.score_options(ens, start) >= need;
            self.primal.walks += self.n_trees as u64;
            let better = match from {
                None => true,
                Some((c, _)) => accepted && cost < c,
            };
            if better {
                from = Some((if accepted { cost } else { f64::INFINITY }, j));
            }
        }
        if let Some((_, j)) = from {
            let budget = self.primal.walks + root_walks.max(self.n_trees as u64);
            let start = &warm[j * n..(j + 1) * n];
            self.heuristic_from(ens, &root, need, budget, Some(start), &mut incumbent);
        }
        self.warm = warm;
        self.warm.clear();
        let root_walks = self.primal.walks;
        // Strong branching: each open node's slot holds its candidate splits
        // after its domains, packed (feature low, node high; `u64::MAX` none).
        [self.sb_k, self.sb_after, self.sb_reliable] = self.sb_set.unwrap_or(STRONG_DEFAULT);
        let strong_on = self.sb_k > 1;
        // The slots hold the most candidates the search will keep: the
        // widened count once it is reached (`STRONG_LATE`).
        let [late_after, late_k] = self.sb_late_set.unwrap_or(STRONG_LATE);
        let extra = if strong_on { late_k.max(self.sb_k) } else { 0 };
        let slot = words + extra;
        if strong_on {
            if self.split_class.len() != self.parent.len() {
                self.build_split_classes();
            }
            self.pseudo.fill(Pseudo::default());
        }
        self.sb_compared = 0;
        #[cfg(test)]
        {
            self.sb_widest = 0;
        }
        // The heuristic runs inside the search where its root answer may not
        // serve: robust advice (the box heuristic) and the distinct-subsets
        // cuts (the root's answer may break one). For plain advice the root's
        // ratio greedy is near the optimum and runs inside the search no
        // longer pay: without them HELOC's 100-tree book takes the same
        // nodes, XGBoost 1000×8 11 % and LightGBM 1000×63 7 % less CPU
        // (issue 43, twelfth round, BENCHMARKS.md §4).
        let in_search_runs = self.boxed || self.cut_start.len() > 1;
        let mut heuristic_interval = HEURISTIC_FIRST;
        let mut next_heuristic = HEURISTIC_FIRST;
        let mut pending: Vec<u64> = root;
        // Evaluate a node: solved → incumbent; open → stored, returned.
        let evaluate_and_store =
            |s: &mut TreeSearch, dom: &[u64], incumbent: &mut f64, seq: &mut u64| match s
                .evaluate(ens, dom, need, *incumbent)
            {
                Eval::Pruned => None,
                Eval::Solved { cost } => {
                    if cost < *incumbent {
                        *incumbent = cost;
                        s.best.clear();
                        s.best.extend_from_slice(&s.cand_opt);
                    }
                    None
                }
                Eval::Open {
                    bound,
                    feature,
                    node,
                    split,
                } => {
                    if !s.fix_options(*incumbent) {
                        return None;
                    }
                    let at = match s.free.pop() {
                        Some(at) => at,
                        None => {
                            let at = s.slab.len();
                            s.slab.resize(at + slot, 0);
                            at
                        }
                    };
                    s.slab[at..at + words].copy_from_slice(&s.work);
                    for j in 0..extra {
                        s.slab[at + words + j] = s
                            .cands
                            .get(j)
                            .map_or(u64::MAX, |&(f, k)| u64::from(f) | u64::from(k) << 32);
                    }
                    *seq += 1;
                    Some(Open {
                        bound,
                        seq: *seq,
                        at,
                        feature,
                        node,
                        split,
                    })
                }
            };
        nodes += 1;
        if let Some(root) = evaluate_and_store(self, &pending, &mut incumbent, &mut seq) {
            self.heap.push(root);
        }
        let cutoff = below_incumbent;
        // Plunging (as MIP solvers dive): after a split, go on with the child
        // of the smaller bound before returning to the best open node, until a
        // dive finds an answer or dies; a new dive every `PLUNGE_EVERY` nodes.
        // Answers found early let the bound and the propagation prune by the
        // incumbent's cost; the order of the search changes nothing else.
        let mut plunge: Option<Open> = None;
        let mut next_plunge = 0usize;
        loop {
            let top = match plunge.take() {
                Some(p) => p,
                None => match self.heap.pop() {
                    Some(t) => t,
                    None => break,
                },
            };
            if top.bound >= cutoff(incumbent) {
                self.free.push(top.at);
                // The heap's least bound is no smaller: done, unless this
                // came from a dive.
                match self.heap.peek() {
                    Some(t) if t.bound < cutoff(incumbent) => continue,
                    _ => break,
                }
            }
            if nodes >= node_limit {
                limited = true;
                self.heap.push(top);
                break;
            }
            if nodes >= next_clock_check {
                next_clock_check = nodes + 32;
                if start.elapsed().as_secs_f64() > time_limit {
                    limited = true;
                    self.heap.push(top);
                    break;
                }
            }
            if nodes >= late_after {
                // A long search: more candidates per node from here on
                // (`STRONG_LATE`).
                self.sb_k = self.sb_k.max(extra);
            }
            pending.clear();
            pending.extend_from_slice(&self.slab[top.at..top.at + words]);
            self.free.push(top.at);
            // The primal heuristic from this node's domains, for robust
            // advice and under cuts (see `in_search_runs`): adaptive (the
            // interval resets when it improves the incumbent, doubles while it
            // fails) and within a budget of tree walks per node evaluated. A
            // run starts when the budget holds what the run at the root took,
            // and may take twice that.
            let allowance = root_walks + (nodes * self.n_trees) as u64 / HEURISTIC_SHARE;
            let run = root_walks.max(1);
            if in_search_runs && nodes >= next_heuristic && self.primal.walks + run <= allowance {
                let limit = self.primal.walks + 2 * run;
                let improved = self.heuristic(ens, &pending, need, limit, &mut incumbent);
                heuristic_interval = if improved {
                    HEURISTIC_FIRST
                } else {
                    (2 * heuristic_interval).min(HEURISTIC_LAST)
                };
                next_heuristic = nodes + heuristic_interval;
                if improved && top.bound >= cutoff(incumbent) {
                    continue;
                }
            }
            let before = incumbent;
            // The children of one split: each evaluated (`None` when it
            // closes: pruned, solved, or empty).
            let branch = |s: &mut TreeSearch,
                          f: usize,
                          node: usize,
                          split: Split,
                          incumbent: &mut f64,
                          seq: &mut u64,
                          nodes: &mut usize|
             -> Children {
                let mut children: Children = [None, None];
                s.sibling_begin(&pending, f, node, split);
                for (j, side) in [true, false].into_iter().enumerate() {
                    if !s.split_child(&pending, f, node, split, side) {
                        continue;
                    }
                    *nodes += 1;
                    let child = std::mem::take(&mut s.child);
                    children[j] = evaluate_and_store(s, &child, incumbent, seq);
                    s.child = child;
                    s.sibling_next();
                }
                s.sibling.mode = SiblingMode::Off;
                children
            };
            // A candidate `(f, k)`'s children on its own split, their bound
            // gains over the parent's `parent` added to the pseudocosts of
            // its split class: the children and the gains.
            let branch_and_record = |s: &mut TreeSearch,
                                     f: u32,
                                     k: u32,
                                     parent: f64,
                                     incumbent: &mut f64,
                                     seq: &mut u64,
                                     nodes: &mut usize|
             -> (Children, [f64; 2]) {
                let pair = branch(
                    s,
                    f as usize,
                    k as usize,
                    Split::Left,
                    incumbent,
                    seq,
                    nodes,
                );
                let class = s.split_class[k as usize] as usize;
                let gains = s.observe(class, &pair, parent, *incumbent);
                (pair, gains)
            };
            let mut children = if strong_on && top.split == Split::Left {
                // The candidates, read before any child's evaluation reuses
                // the parent's freed slot.
                let mut cands = std::mem::take(&mut self.sb_cands);
                cands.clear();
                for j in 0..extra {
                    let v = self.slab[top.at + words + j];
                    if v != u64::MAX {
                        cands.push((v as u32, (v >> 32) as u32));
                    }
                }
                if cands.is_empty() {
                    cands.push((top.feature, top.node));
                }
                #[cfg(test)]
                {
                    self.sb_widest = self.sb_widest.max(cands.len());
                }
                let strong = nodes >= self.sb_after && cands.len() > 1;
                // The best so far: its score, its index, and its children
                // when they were evaluated.
                let mut chosen: Option<(f64, usize, Option<Children>)> = None;
                let mut lifted = top.bound;
                for (j, &(f, k)) in cands.iter().enumerate() {
                    if !strong && j > 0 {
                        break;
                    }
                    let class = self.split_class[k as usize] as usize;
                    let ps = self.pseudo[class];
                    let trusted = self.sb_reliable > 0
                        && ps.count.iter().all(|&c| c as usize >= self.sb_reliable);
                    let score;
                    let mut kept = None;
                    if !strong || trusted || (j > 0 && nodes + 2 > node_limit) {
                        if !strong {
                            score = 0.0;
                        } else if trusted {
                            let mean = |s: usize| ps.sum[s] / f64::from(ps.count[s]);
                            score = mean(0).max(SCORE_EPS) * mean(1).max(SCORE_EPS);
                        } else {
                            continue;
                        }
                    } else {
                        let (pair, gains) = branch_and_record(
                            self,
                            f,
                            k,
                            top.bound,
                            &mut incumbent,
                            &mut seq,
                            &mut nodes,
                        );
                        score = gains[0].max(SCORE_EPS) * gains[1].max(SCORE_EPS);
                        let least = pair
                            .iter()
                            .map(|c| c.map_or(f64::INFINITY, |o| o.bound))
                            .fold(f64::INFINITY, f64::min);
                        lifted = lifted.max(least);
                        kept = Some(pair);
                    }
                    if chosen.as_ref().is_none_or(|c| score > c.0) {
                        if let Some((_, _, Some(old))) = chosen.take() {
                            self.free.extend(old.iter().flatten().map(|o| o.at));
                        }
                        chosen = Some((score, j, kept));
                    } else if let Some(pair) = kept {
                        self.free.extend(pair.iter().flatten().map(|o| o.at));
                    }
                    if lifted >= cutoff(incumbent) {
                        break;
                    }
                }
                let (_, j, kept) = chosen.expect("the first candidate is always scored");
                self.sb_compared += usize::from(strong);
                let (f, k) = cands[j];
                self.sb_cands = cands;
                let mut pair = match kept {
                    Some(pair) => pair,
                    None => {
                        branch_and_record(
                            self,
                            f,
                            k,
                            top.bound,
                            &mut incumbent,
                            &mut seq,
                            &mut nodes,
                        )
                        .0
                    }
                };
                if lifted >= cutoff(incumbent) {
                    // Some candidate's children both close: so does the node.
                    self.free.extend(pair.iter().flatten().map(|o| o.at));
                    pair = [None, None];
                }
                for o in pair.iter_mut().flatten() {
                    o.bound = o.bound.max(lifted);
                }
                pair
            } else {
                branch(
                    self,
                    top.feature as usize,
                    top.node as usize,
                    top.split,
                    &mut incumbent,
                    &mut seq,
                    &mut nodes,
                )
            };
            // A child's points are the parent's: the parent's bound holds for
            // it too.
            for o in children.iter_mut().flatten() {
                o.bound = o.bound.max(top.bound);
            }
            let diving = nodes >= next_plunge && incumbent >= before;
            if incumbent < before {
                next_plunge = nodes + PLUNGE_EVERY;
            }
            let [a, b] = children;
            let (first, second) = match (a, b) {
                (Some(a), Some(b)) if b.bound < a.bound => (Some(b), Some(a)),
                (a, b) => (a.or(b), if a.is_some() { b } else { None }),
            };
            if let Some(x) = second {
                self.heap.push(x);
            }
            if let Some(x) = first {
                if diving {
                    plunge = Some(x);
                } else {
                    self.heap.push(x);
                }
            }
        }
        if let Some(p) = plunge.take() {
            self.heap.push(p);
        }
        let found = incumbent.is_finite();
        if found {
            self.picks.clear();
            for f in 0..n {
                let o = self.best[f];
                self.picks.push(Pick {
                    option: self.menu_index[self.opt_start[f] + o],
                    units: 0.0,
                });
            }
        }
        let status = match (limited, found) {
            (false, true) => SearchStatus::Optimal,
            (false, false) => SearchStatus::Infeasible,
            (true, true) => SearchStatus::LimitWithAnswer {
                lower_bound: self
                    .heap
                    .peek()
                    .map_or(incumbent, |o| o.bound.min(incumbent)),
            },
            (true, false) => SearchStatus::LimitWithoutAnswer,
        };
        SearchResult {
            status,
            cost: if found { incumbent } else { f64::NAN },
            nodes,
        }
    }

    /// The bound gains of a split's children over their parent's bound
    /// `parent` (a child that closes gains the whole gap to the incumbent),
    /// added to the pseudocosts of its split class.
    fn observe(&mut self, class: usize, pair: &Children, parent: f64, incumbent: f64) -> [f64; 2] {
        let closed = if incumbent.is_finite() {
            (incumbent - parent).max(0.0)
        } else {
            CLOSED_GAIN
        };
        let mut gains = [0.0; 2];
        for (side, child) in pair.iter().enumerate() {
            gains[side] = child.map_or(closed, |o| (o.bound - parent).max(0.0));
            self.pseudo[class].sum[side] += gains[side];
            self.pseudo[class].count[side] += 1;
        }
        gains
    }

    /// Runs the primal heuristic ([`super::tree_primal`]) from the domains
    /// `dom` until its walks pass `budget`; its answer becomes the incumbent
    /// (in `best`) when cheaper and it meets the cuts. Whether it did.
    fn heuristic(
        &mut self,
        ens: &TreeEnsemble,
        dom: &[u64],
        need: f64,
        budget: u64,
        incumbent: &mut f64,
    ) -> bool {
        self.heuristic_from(ens, dom, need, budget, None, incumbent)
    }

    /// [`TreeSearch::heuristic`] started from the options `start` (one per
    /// feature, sorted indices) instead of each domain's cheapest.
    fn heuristic_from(
        &mut self,
        ens: &TreeEnsemble,
        dom: &[u64],
        need: f64,
        budget: u64,
        start: Option<&[usize]>,
        incumbent: &mut f64,
    ) -> bool {
        let menus = Menus {
            opt_start: &self.opt_start,
            word_start: &self.word_start,
            cost: &self.cost,
            mask_start: &self.mask_start,
            masks: &self.masks,
        };
        let plain = self.primal.run(&menus, ens, dom, start, need, budget);
        if self.boxed {
            return self.box_heuristic(ens, dom, need, budget, plain.is_some(), incumbent);
        }
        let Some(cost) = plain else {
            return false;
        };
        if cost < *incumbent && self.meets_cuts(self.primal.answer()) {
            *incumbent = cost;
            self.best.clear();
            self.best.extend_from_slice(self.primal.answer());
            return true;
        }
        false
    }

    /// Narrows the domains of the open node just evaluated (`work`) by the
    /// feature-budget bound's reduced costs ([`FeatureBudget::fix_options`])
    /// before the node is stored, so that its children start without the
    /// options no answer cheaper than `incumbent` takes. With the bound by
    /// classes (the node's last pricing is the one it reads), for plain and
    /// robust advice alike: the box-aware walk's entries obey the same
    /// inequality `Σ_f G_f(δ_f) ≥ W` for every robust answer
    /// (`coherent::tree_box_bound`). The node's own bound and split stand: a
    /// split whose one side lost every option leaves one child, the
    /// narrowed node, evaluated afresh. Whether the node keeps an improving
    /// answer (false: fixing emptied a domain).
    fn fix_options(&mut self, incumbent: f64) -> bool {
        if self.fixing_off || self.budget_off || self.budget.by_option() {
            return true;
        }
        let base: f64 = self.dom_min.iter().sum();
        let limit = below_incumbent(incumbent);
        match self
            .budget
            .fix_options(base, limit, &self.dom_min, &mut self.work)
        {
            Some(removed) => {
                self.fixed += removed as u64;
                true
            }
            None => false,
        }
    }

    /// The robust heuristic ([`super::tree_box_primal`]) from the domains
    /// `dom`, started at the plain heuristic's answer if it found one
    /// (`from_plain`), within `budget` walks (counted with the plain
    /// heuristic's, at most [`BOX_WALKS`] more); its answer becomes the
    /// incumbent when cheaper, accepted over its box and meeting the cuts.
    fn box_heuristic(
        &mut self,
        ens: &TreeEnsemble,
        dom: &[u64],
        need: f64,
        budget: u64,
        from_plain: bool,
        incumbent: &mut f64,
    ) -> bool {
        let start = from_plain.then(|| self.primal.answer().to_vec());
        let menus = BoxMenus {
            opt_start: &self.opt_start,
            word_start: &self.word_start,
            cost: &self.cost,
            mask_start: &self.mask_start,
            reach_l: &self.reach_l,
            reach_r: &self.reach_r,
        };
        self.box_primal.walks = self.primal.walks;
        let limit = budget.min(self.primal.walks.saturating_add(BOX_WALKS));
        let found = self
            .box_primal
            .run(&menus, ens, dom, start.as_deref(), need, limit);
        self.primal.walks = self.box_primal.walks;
        let Some(cost) = found else {
            return false;
        };
        let answer = self.box_primal.answer().to_vec();
        if cost < *incumbent && self.meets_cuts(&answer) && self.worst_score(ens, &answer) >= need {
            *incumbent = cost;
            self.best.clear();
            self.best.extend_from_slice(&answer);
            return true;
        }
        false
    }

    /// Evaluates the node with domains `dom` (copied into `work`, narrowed by
    /// propagation when it is on, see [`TreeSearch::propagate`]): its
    /// candidate, its bound against the incumbent's cost, and the split to make.
    fn evaluate(&mut self, ens: &TreeEnsemble, dom: &[u64], need: f64, incumbent: f64) -> Eval {
        let n = self.opt_start.len() - 1;
        let nodes = ens.nodes();
        let limit = below_incumbent(incumbent);
        self.work.clear();
        self.work.extend_from_slice(dom);
        let mut round = 0;
        let bound = loop {
            round += 1;
            // The candidate and the node's least cost.
            let mut base = 0.0;
            self.cand_opt.clear();
            self.dom_min.clear();
            for f in 0..n {
                let words = &self.work[self.word_start[f]..self.word_start[f + 1]];
                let Some(o) = lowest_bit(words) else {
                    return Eval::Pruned;
                };
                self.cand_opt.push(o);
                let c = self.cost[self.opt_start[f] + o];
                self.dom_min.push(c);
                base += c;
            }
            if base >= limit || !self.cuts_alive(&self.work) {
                return Eval::Pruned;
            }
            // The candidate's leaves. The second child of a split keeps the
            // first's in the trees that do not test the split feature
            // (`SiblingWalks`: the two candidates differ in it alone).
            let roots = ens.roots();
            let kept = self.sibling.mode == SiblingMode::Replay
                && self.sibling.cand_split == self.sibling.split
                && self.cand_leaf.len() == roots.len();
            let walked = if kept {
                self.primal.trees_testing(self.sibling.feature)
            } else {
                self.cand_leaf.clear();
                self.cand_leaf.resize(roots.len(), 0);
                self.cand_value.clear();
                self.cand_value.resize(roots.len(), 0.0);
                &self.all_trees
            };
            for &t in walked {
                let mut k = roots[t as usize] as usize;
                let mut node = self.walk_nodes[k];
                while node.feature != WALK_LEAF {
                    let o = self.cand_opt[node.feature as usize];
                    let left = bit(&self.masks[node.ms as usize..], o);
                    k = if left { node.left() } else { node.right() };
                    node = self.walk_nodes[k];
                }
                self.cand_leaf[t as usize] = k as u32;
                self.cand_value[t as usize] = node.value();
            }
            if self.sibling.mode == SiblingMode::Record {
                self.sibling.cand_split = self.sibling.split;
            }
            let score = ens.sum_tree_values(self.cand_value.iter().copied());
            if self.boxed {
                let cand = std::mem::take(&mut self.cand_opt);
                let worst = self.worst_score(ens, &cand);
                self.cand_opt = cand;
                if worst >= need {
                    return Eval::Solved { cost: base };
                }
                self.caps(ens);
            } else if score >= need {
                return Eval::Solved { cost: base };
            }
            // Per tree, the staircase of (rc, value) of the leaves reachable
            // under the domains with rc below the incumbent, and the largest
            // such value.
            self.cur.clear();
            self.cur.extend_from_slice(&self.work);
            self.cur_min.clear();
            self.cur_min.extend_from_slice(&self.dom_min);
            self.events.clear();
            self.tree_start.clear();
            self.tree_max.clear();
            if self.merged_on {
                self.merged.clear();
            }
            if !self.budget_off {
                self.budget.clear();
                if self.boxed || !self.budget_by_option {
                    self.set_classes();
                } else {
                    self.budget.use_options(&self.dom_min);
                }
                self.on_path.clear();
                self.on_path.resize(n, 0);
                self.path_features.clear();
            }
            for (t, &r) in ens.roots().iter().enumerate() {
                self.leaves.clear();
                if !self.budget_off {
                    self.budget.begin_tree();
                }
                if self.boxed && !self.box_bound_off {
                    // The box-aware walk (`tree_box_bound`): the candidate's
                    // entry, then the combinations that beat it, capped from
                    // the start by the tree's cap.
                    self.box_walk_tree(ens, t, r as usize, base, limit);
                } else {
                    // Leaves below the candidate's own leaf gain nothing: the
                    // staircase starts at the candidate's leaf (the least
                    // `rc`, the node's base), and the budget bound's zero-extra
                    // value `z_t` is at least its value, so neither bound reads
                    // them. The merged bound combines leaves across trees, and
                    // reads them all.
                    let shared = self.sibling.mode != SiblingMode::Off && !self.sibling.tests[t];
                    if shared
                        && self.sibling.mode == SiblingMode::Replay
                        && self.sibling.tree_split[t] == self.sibling.split
                    {
                        self.replay_tree(t, base, limit);
                    } else {
                        let own = self.cand_value[t];
                        self.walk_floor = if self.merged_on || own.is_nan() {
                            f64::NEG_INFINITY
                        } else {
                            own
                        };
                        if shared && self.sibling.mode == SiblingMode::Record {
                            // Under the smaller least cost of the two
                            // children (less a rounding allowance: the
                            // second child sums its own), then filtered.
                            let f = self.sibling.feature;
                            let other = base - self.dom_min[f] + self.sibling.other_min;
                            let under = base.min(other) - 1e-9 * (1.0 + base.abs());
                            let start = self.sibling.leaves.len() as u32;
                            self.sibling.recording = true;
                            self.walk(r as usize, 0.0, under, limit, Visit::Collect);
                            self.sibling.recording = false;
                            self.sibling.range[t] = (start, self.sibling.leaves.len() as u32);
                            self.sibling.tree_split[t] = self.sibling.split;
                            self.replay_tree(t, base, limit);
                        } else {
                            self.walk(r as usize, 0.0, base, limit, Visit::Collect);
                        }
                    }
                }
                if self.leaves.is_empty() {
                    return Eval::Pruned;
                }
                if !self.budget_off {
                    self.budget.end_tree(t);
                }
                sort_short_by(&mut self.leaves, |a, b| {
                    a.0.total_cmp(&b.0).then(b.1.total_cmp(&a.1))
                });
                if self.merged_on && !self.boxed {
                    self.merged.push_tree(&self.leaves);
                }
                self.tree_start.push(self.events.len());
                let mut top = f64::NEG_INFINITY;
                let cap = if self.boxed {
                    self.cap[t]
                } else {
                    f64::INFINITY
                };
                for &(rc, value, leaf) in &self.leaves {
                    let value = value.min(cap);
                    if value > top {
                        top = value;
                        self.events.push((rc, t as u32, value, leaf));
                    }
                }
                self.tree_max.push(top);
            }
            self.tree_start.push(self.events.len());
            if self.propagation_on && round < PROPAGATION_ROUNDS {
                match self.propagate(ens, base, limit, need) {
                    Propagated::Empty => return Eval::Pruned,
                    Propagated::Narrowed => continue,
                    Propagated::Unchanged => {}
                }
            }
            let need_less = need - self.slack;
            let bound = if self.budget_off || self.boxed {
                // The per-tree bound alone (robust advice takes the larger of
                // it and the budget bound, with the per-tree bound's
                // witnesses).
                let tree_bound = self.per_tree_bound(ens.base_score(), need_less);
                #[cfg(test)]
                {
                    self.last_tree_bound = tree_bound;
                }
                if tree_bound.is_nan() {
                    return Eval::Pruned;
                }
                if self.budget_off {
                    tree_bound
                } else {
                    let bound = match self.budget.extra(ens.base_score(), need_less, limit - base) {
                        Some(extra) => tree_bound.max(base + extra),
                        None => return Eval::Pruned,
                    };
                    if bound >= limit {
                        return Eval::Pruned;
                    }
                    bound
                }
            } else {
                // No improving answer reaches the need when every tree's best
                // leaf below the incumbent's cost does not (the per-tree
                // bound's "never").
                let mut reach = ens.base_score();
                for &m in &self.tree_max {
                    reach += m;
                }
                if reach < need_less {
                    return Eval::Pruned;
                }
                #[cfg(test)]
                {
                    let mut events = self.events.clone();
                    self.last_tree_bound = self.per_tree_bound(ens.base_score(), need_less);
                    self.events.clear();
                    self.events.append(&mut events);
                }
                let budget = match self.budget.extra(ens.base_score(), need_less, limit - base) {
                    Some(extra) => base + extra,
                    None => return Eval::Pruned,
                };
                if budget >= limit {
                    return Eval::Pruned;
                }
                #[cfg(test)]
                {
                    self.last_budget_bound = budget;
                }
                match self.bound_from_budget(ens.base_score(), need_less, budget) {
                    Some(bound) => bound,
                    None => return Eval::Pruned,
                }
            };
            // The merged bound reads plain leaves; robust advice does without
            // it (the box-aware walk lists a leaf once per class).
            if !self.merged_on || self.boxed {
                break bound;
            }
            let space = Space {
                nodes,
                parent: &self.parent,
                mask_start: &self.mask_start,
                masks: &self.masks,
                opt_start: &self.opt_start,
                word_start: &self.word_start,
                cost: &self.cost,
                dom: &self.work,
                base,
            };
            let need = need - self.slack;
            match self
                .merged
                .bound(&space, ens.base_score(), need, limit, bound)
            {
                Some(b) => break b,
                None => return Eval::Pruned,
            }
        };
        // No strong-branching candidates unless the block below names them
        // (a node's slot stores them: none for the robust splits).
        self.cands.clear();
        // A candidate accepted plainly but not over its box: the robust split.
        let plain_ok = self.boxed && ens.sum_tree_values(self.cand_value.iter().copied()) >= need;
        if plain_ok {
            if let Some((feature, node, split)) = self.robust_split(ens) {
                return Eval::Open {
                    bound,
                    feature,
                    node,
                    split,
                };
            }
        }
        // The split: the tree whose witness gains most over the candidate's
        // leaf, at the first test on the witness's path the candidate fails.
        // Under strong branching, the same split of the next trees by gain
        // too, as further candidates (one per split class). Robust advice
        // branches so too, from the per-tree bound's witnesses; its own
        // robust splits (above, and below when no witness names a split)
        // are made as they are.
        if self.sb_k > 1 {
            self.gains.clear();
            for t in 0..self.n_trees {
                let w = self.tree_leaf[t];
                if w != self.cand_leaf[t] {
                    let gain = nodes[w as usize].value - self.cand_value[t];
                    self.gains.push((gain, t as u32));
                }
            }
            // Largest gain first, the earliest tree among equals: the first
            // candidate is the single rule's split.
            let by_gain = |a: &(f64, u32), b: &(f64, u32)| b.0.total_cmp(&a.0).then(a.1.cmp(&b.1));
            let keep = self.sb_k.min(self.gains.len());
            if keep > 0 && keep < self.gains.len() {
                self.gains.select_nth_unstable_by(keep - 1, by_gain);
                self.gains.truncate(keep);
            }
            self.gains.sort_unstable_by(by_gain);
            for j in 0..self.gains.len() {
                let t = self.gains[j].1 as usize;
                if let Some((f, k)) = self.first_failed(nodes, t) {
                    let class = self.split_class[k as usize];
                    if !self
                        .cands
                        .iter()
                        .any(|&(_, c)| self.split_class[c as usize] == class)
                    {
                        self.cands.push((f, k));
                    }
                }
            }
            if let Some(&(feature, node)) = self.cands.first() {
                return Eval::Open {
                    bound,
                    feature,
                    node,
                    split: Split::Left,
                };
            }
        }
        let mut chosen: Option<(f64, usize)> = None;
        for t in 0..self.n_trees {
            let w = self.tree_leaf[t];
            if w != self.cand_leaf[t] {
                let gain = nodes[w as usize].value - self.cand_value[t];
                if chosen.is_none_or(|(g, _)| gain > g) {
                    chosen = Some((gain, t));
                }
            }
        }
        if let Some((_, t)) = chosen {
            self.path.clear();
            let mut k = self.tree_leaf[t];
            while k != u32::MAX {
                self.path.push(k);
                k = self.parent[k as usize];
            }
            for j in (1..self.path.len()).rev() {
                let k = self.path[j] as usize;
                let next = self.path[j - 1];
                let node = &nodes[k];
                let f = node.feature as usize;
                let left = bit(&self.masks[self.mask_start[k]..], self.cand_opt[f]);
                let wants_left = next == node.left;
                if left != wants_left {
                    return Eval::Open {
                        bound,
                        feature: f as u32,
                        node: k as u32,
                        split: Split::Left,
                    };
                }
            }
        }
        if self.boxed && !plain_ok {
            if let Some((feature, node, split)) = self.robust_split(ens) {
                return Eval::Open {
                    bound,
                    feature,
                    node,
                    split,
                };
            }
        }
        if !self.boxed {
            return self.split_off_candidate_paths(ens, bound);
        }
        // Robust advice: every witness is the candidate's leaf, yet the
        // candidate's box falls short by less than the bound's rounding
        // allowance (points that share the candidate's leaves need not share
        // its box's worst leaves, so the split above does not apply): split
        // any feature with two options or more (cheapest option against the
        // rest) through a test that separates them, or give up the node if it
        // is one point.
        for f in 0..n {
            // The inner nodes testing `f`, in node order (the model's index).
            let tests = self.feature_node_start[f]..self.feature_node_start[f + 1];
            for &k in &self.feature_nodes[tests] {
                let k = k as usize;
                if self.candidate_side(f, k).1 {
                    return Eval::Open {
                        bound,
                        feature: f as u32,
                        node: k as u32,
                        split: Split::Left,
                    };
                }
            }
        }
        Eval::Pruned
    }

    /// Tree `t`'s leaves as recorded for the split in progress
    /// ([`SiblingWalks`]), those whose cost `base + extra` stays below
    /// `limit`, collected as [`TreeSearch::walk`] collects them.
    fn replay_tree(&mut self, t: usize, base: f64, limit: f64) {
        let (a, b) = self.sibling.range[t];
        for j in a as usize..b as usize {
            let (extra, value, leaf, x0, x1) = self.sibling.leaves[j];
            if base + extra < limit {
                self.leaves.push((base + extra, value, leaf));
                self.budget.push_leaf(
                    value,
                    self.sibling.extras[x0 as usize..x1 as usize]
                        .iter()
                        .copied(),
                );
            }
        }
    }

    /// Writes into `child` one side of splitting the domains `parent` at
    /// inner node `node` (feature `f`) by `split`'s masks: the options the
    /// test sends left (`side`) or the others. Whether that side holds an
    /// option of `f`; when it does not, [`SiblingWalks`] stops for this
    /// split (a first child that is never evaluated records nothing).
    fn split_child(
        &mut self,
        parent: &[u64],
        f: usize,
        node: usize,
        split: Split,
        side: bool,
    ) -> bool {
        let (w0, w1) = (self.word_start[f], self.word_start[f + 1]);
        let mask_at = self.mask_start[node];
        self.child.clear();
        self.child.extend_from_slice(parent);
        let split_masks = match split {
            Split::Left => &self.masks,
            Split::ReachLeft => &self.reach_l,
            Split::ReachRight => &self.reach_r,
        };
        for w in w0..w1 {
            let m = split_masks[mask_at + (w - w0)];
            self.child[w] &= if side { m } else { !m };
        }
        let any = self.child[w0..w1].iter().any(|&w| w != 0);
        if !any {
            self.sibling.mode = SiblingMode::Off;
        }
        any
    }

    /// Sets up [`SiblingWalks`] for the children of splitting the domains
    /// `parent` at inner node `node` (feature `f`): the first child's
    /// evaluation records. Off for the splits and configurations whose
    /// walks differ (robust advice and its reach splits, the merged bound,
    /// the bound by options or none, propagation).
    fn sibling_begin(&mut self, parent: &[u64], f: usize, node: usize, split: Split) {
        if split != Split::Left
            || self.boxed
            || self.merged_on
            || self.budget_off
            || self.budget_by_option
            || self.propagation_on
        {
            self.sibling.mode = SiblingMode::Off;
            return;
        }
        let (w0, w1) = (self.word_start[f], self.word_start[f + 1]);
        let mask_at = self.mask_start[node];
        let mut other = std::mem::take(&mut self.sibling.other);
        other.clear();
        for w in w0..w1 {
            other.push(parent[w] & !self.masks[mask_at + (w - w0)]);
        }
        let other_min = self.min_cost(f, &other);
        self.sibling.other = other;
        let sib = &mut self.sibling;
        sib.split += 1;
        sib.feature = f;
        sib.other_min = other_min;
        sib.tests.clear();
        sib.tests.resize(self.n_trees, false);
        for &t in self.primal.trees_testing(f) {
            sib.tests[t as usize] = true;
        }
        sib.tree_split.resize(self.n_trees, 0);
        sib.range.resize(self.n_trees, (0, 0));
        sib.leaves.clear();
        sib.extras.clear();
        sib.mode = SiblingMode::Record;
    }

    /// After a child's evaluation: the next child replays what the first
    /// recorded ([`SiblingWalks`]).
    fn sibling_next(&mut self) {
        if self.sibling.mode == SiblingMode::Record {
            self.sibling.mode = SiblingMode::Replay;
        }
    }

    /// At the test of node `k` (on feature `f`): whether the candidate
    /// (`cand_opt`) goes left, and whether the node's domain of `f` (`work`)
    /// holds an option going the other way.
    fn candidate_side(&self, f: usize, k: usize) -> (bool, bool) {
        let (w0, w1) = (self.word_start[f], self.word_start[f + 1]);
        let m = &self.masks[self.mask_start[k]..self.mask_start[k] + (w1 - w0)];
        let left = bit(m, self.cand_opt[f]);
        let other_side = self.work[w0..w1]
            .iter()
            .zip(m)
            .any(|(d, m)| if left { d & !m != 0 } else { d & m != 0 });
        (left, other_side)
    }

    /// The split of a node whose candidate is declined although the bound
    /// lets it through (its sum falls short by less than the bound's float32
    /// allowance, [`TreeSearch::prepare`]): every point of the node that
    /// takes the candidate's path in every tree reaches the candidate's
    /// leaves, so its sum is the candidate's, bit for bit, and it is declined
    /// too. The split is the first test on a candidate's path (trees in
    /// order, root first) whose other side the domain holds: the child
    /// beyond it leaves that tree's candidate leaf, the other keeps fewer of
    /// the candidate's look-alikes. With no such test every point of the node
    /// is a look-alike, and the node is closed.
    fn split_off_candidate_paths(&self, ens: &TreeEnsemble, bound: f64) -> Eval {
        for &r in ens.roots() {
            let mut k = r as usize;
            let mut node = self.walk_nodes[k];
            while node.feature != WALK_LEAF {
                let f = node.feature as usize;
                let (left, other_side) = self.candidate_side(f, k);
                if other_side {
                    return Eval::Open {
                        bound,
                        feature: f as u32,
                        node: k as u32,
                        split: Split::Left,
                    };
                }
                k = if left { node.left() } else { node.right() };
                node = self.walk_nodes[k];
            }
        }
        Eval::Pruned
    }

    /// The first test on the path of tree `t`'s witness (`tree_leaf[t]`)
    /// that the candidate (`cand_opt`) takes the other way: its feature and
    /// node.
    fn first_failed(&mut self, nodes: &[Node], t: usize) -> Option<(u32, u32)> {
        self.path.clear();
        let mut k = self.tree_leaf[t];
        while k != u32::MAX {
            self.path.push(k);
            k = self.parent[k as usize];
        }
        for j in (1..self.path.len()).rev() {
            let k = self.path[j] as usize;
            let node = &nodes[k];
            let f = node.feature as usize;
            let left = bit(&self.masks[self.mask_start[k]..], self.cand_opt[f]);
            if left != (self.path[j - 1] == node.left) {
                return Some((f as u32, k as u32));
            }
        }
        None
    }

    /// The per-tree bound: the least rc at which the trees' staircases
    /// (`events`), each tree at its best value up to it, reach `need`; NaN
    /// when they never do. Sorts `events` (merging the staircases in order
    /// of rc) and leaves in `tree_value`/`tree_leaf` each tree's last step
    /// taken, its witness.
    fn per_tree_bound(&mut self, base_score: f64, need: f64) -> f64 {
        // (rc, tree) is unique (rc rises along each staircase), so the
        // unstable sort gives the stable sort's order, without its scratch
        // buffer.
        self.events
            .sort_unstable_by(|a, b| a.0.total_cmp(&b.0).then(a.1.cmp(&b.1)));
        self.tree_value.clear();
        self.tree_value.resize(self.n_trees, f64::NEG_INFINITY);
        self.tree_leaf.clear();
        self.tree_leaf.resize(self.n_trees, u32::MAX);
        let mut sum = StepSum::new(self.n_trees, base_score);
        for &(rc, t, value, leaf) in &self.events {
            let t = t as usize;
            let reached = sum.take(self.tree_value[t], value, need);
            self.tree_value[t] = value;
            self.tree_leaf[t] = leaf;
            if reached {
                return rc;
            }
        }
        f64::NAN
    }

    /// The node's bound and witnesses given its feature-budget bound
    /// `budget` (`coherent::tree_budget`): the larger of it and the
    /// per-tree bound, and each tree's best leaf with rc up to the node's
    /// bound. The budget bound is the larger in most evaluations (HELOC's
    /// book: 37 of 41 thousand open nodes; XGBoost 1000×8: all), and there
    /// the per-tree bound's own witnesses stop short of the leaves the
    /// trees reach within the node's bound, which are the gains the
    /// branching should split towards. Whether the per-tree bound is past
    /// `budget` is read off each tree's staircase at `budget` (the sum of
    /// their values there), so the staircases are merged — sorted — only
    /// when it is; when the two bounds are equal, the witnesses are the
    /// per-tree bound's (its steps at that rc taken in tree order until the
    /// need is reached), as the merge gives them. `None`: no answer.
    fn bound_from_budget(&mut self, base_score: f64, need: f64, budget: f64) -> Option<f64> {
        self.tree_value.clear();
        self.tree_leaf.clear();
        self.tree_at.clear();
        // Per tree, its best step below `budget` and its step at it (none:
        // `u32::MAX`), kept for the witnesses below.
        let (mut below, mut upto) = (base_score, base_score);
        for t in 0..self.n_trees {
            let steps = &self.events[self.tree_start[t]..self.tree_start[t + 1]];
            let (mut v, mut leaf) = (f64::NEG_INFINITY, u32::MAX);
            let mut at = (f64::NEG_INFINITY, u32::MAX);
            for &(rc, _, value, l) in steps {
                if rc < budget {
                    (v, leaf) = (value, l);
                } else {
                    if rc == budget {
                        at = (value, l);
                    }
                    break;
                }
            }
            below += v;
            upto += if at.1 == u32::MAX { v } else { at.0 };
            self.tree_value.push(v);
            self.tree_leaf.push(leaf);
            self.tree_at.push(at);
        }
        if upto < need {
            // The per-tree bound is past the budget bound: it is the bound
            // (NaN, no answer, only where the sums' rounding differs from
            // the caller's test of the trees' best leaves).
            let bound = self.per_tree_bound(base_score, need);
            return (!bound.is_nan()).then_some(bound.max(budget));
        }
        if below >= need {
            // The per-tree bound is below: every step up to the bound.
            for (t, &(value, l)) in self.tree_at.iter().enumerate() {
                if l != u32::MAX {
                    self.tree_value[t] = value;
                    self.tree_leaf[t] = l;
                }
            }
        } else {
            // Equal: the steps at `budget` in tree order until every tree
            // has a step and the need is reached, as the merge takes them.
            let mut missing = 0;
            let mut stepped = base_score;
            for &v in &self.tree_value {
                if v == f64::NEG_INFINITY {
                    missing += 1;
                } else {
                    stepped += v;
                }
            }
            let mut sum = StepSum::new(missing, stepped);
            for (t, &(value, l)) in self.tree_at.iter().enumerate() {
                if l == u32::MAX {
                    continue;
                }
                let reached = sum.take(self.tree_value[t], value, need);
                self.tree_value[t] = value;
                self.tree_leaf[t] = l;
                if reached {
                    break;
                }
            }
        }
        Some(budget)
    }

    /// The feature-budget bound's extras of feature `f` per class
    /// (`coherent::tree_budget`) for a leaf reached under the walk's domains
    /// `cur` whose extra over the node's least cost is `e`: the least cost of
    /// the options of `cur` in each class, less the node's least (infinite
    /// for a class that holds none; all infinite when `e` is 0, as the bound
    /// keeps only positive extras).
    fn class_extras(&self, f: usize, e: f64) -> [f64; CLASSES] {
        let mut by_class = [f64::INFINITY; CLASSES];
        if e > 0.0 {
            let (w0, w1) = (self.word_start[f], self.word_start[f + 1]);
            let all = self.work.len();
            if w1 - w0 == 1 {
                // One word: the common case, without the slices.
                let (d, o0, m) = (self.cur[w0], self.opt_start[f], self.dom_min[f]);
                for (c, ec) in by_class.iter_mut().enumerate() {
                    let v = d & self.class_mask[c * all + w0];
                    if v != 0 {
                        *ec = self.cost[o0 + v.trailing_zeros() as usize] - m;
                    }
                }
                return by_class;
            }
            let (words, costs) = (&self.cur[w0..w1], &self.cost[self.opt_start[f]..]);
            for (c, ec) in by_class.iter_mut().enumerate() {
                let mask = &self.class_mask[c * all + w0..c * all + w1];
                *ec = least_cost_in(costs, words, mask) - self.dom_min[f];
            }
        }
        by_class
    }

    /// Parts each feature's options in the node `work` into the budget
    /// bound's classes (`coherent::tree_budget`): below the candidate's
    /// value, above it, and the rest (equal, or NaN). Any partition keeps
    /// the bound admissible; this one parts the leaves by the way they move
    /// the feature: a leaf's box on a threshold-tested feature is an
    /// interval, which lies on one side of the candidate's value once the
    /// candidate is outside it.
    ///
    /// The classes read nothing of the node but its candidate, whose options
    /// mostly stay from one node to the next: a feature's masks are parted
    /// again only when its candidate option changed since they were last
    /// (`class_cand`, per feature; cleared per applicant), which spared the
    /// 1.6 % of the book's instructions this parting took at every node
    /// (issue 43, fifteenth round).
    fn set_classes(&mut self) {
        let all = self.work.len();
        let n = self.opt_start.len() - 1;
        if self.class_mask.len() != CLASSES * all || self.class_cand.len() != n {
            self.class_mask.clear();
            self.class_mask.resize(CLASSES * all, 0);
            self.class_cand.clear();
            self.class_cand.resize(n, usize::MAX);
        }
        for f in 0..n {
            if self.class_cand[f] == self.cand_opt[f] {
                continue;
            }
            self.class_cand[f] = self.cand_opt[f];
            let (o0, w0) = (self.opt_start[f], self.word_start[f]);
            for c in 0..CLASSES {
                self.class_mask[c * all + w0..c * all + self.word_start[f + 1]].fill(0);
            }
            let v0 = self.input[o0 + self.cand_opt[f]];
            for o in 0..self.opt_start[f + 1] - o0 {
                let c = option_class(self.input[o0 + o], v0);
                self.class_mask[c * all + w0 + o / 64] |= 1 << (o % 64);
            }
        }
    }

    /// Narrows the domains `work` (and `cur`) by what every improving answer
    /// must satisfy (constraint propagation, as Khouna et al. 2026 propagate
    /// interval domains): in tree `t` such an answer reaches a leaf `ℓ` with
    /// `rc(ℓ)` below the incumbent and `value(ℓ) + Σ_{t' ≠ t} max_{t'} ≥ τ`
    /// (`max_{t'}` the largest value of tree `t'` with rc below the incumbent,
    /// `tree_max`); so each feature that every such leaf's path tests lies in
    /// the union of the leaves' restricted domains.
    fn propagate(&mut self, ens: &TreeEnsemble, base: f64, limit: f64, need: f64) -> Propagated {
        let n = self.opt_start.len() - 1;
        let total: f64 = ens.base_score() + self.tree_max.iter().sum::<f64>();
        self.acc.clear();
        self.acc.resize(self.words(), 0);
        self.count.clear();
        self.count.resize(n, 0);
        self.on_path.clear();
        self.on_path.resize(n, 0);
        let mut changed = false;
        for (t, &r) in ens.roots().iter().enumerate() {
            let threshold = need - self.slack - (total - self.tree_max[t]);
            self.survivors = 0;
            self.touched.clear();
            self.walk(r as usize, 0.0, base, limit, Visit::Union { threshold });
            if self.survivors == 0 {
                return Propagated::Empty;
            }
            for j in 0..self.touched.len() {
                let f = self.touched[j];
                let (w0, w1) = (self.word_start[f], self.word_start[f + 1]);
                if self.count[f] == self.survivors {
                    let mut any = false;
                    for w in w0..w1 {
                        let v = self.work[w] & self.acc[w];
                        changed |= v != self.work[w];
                        self.work[w] = v;
                        self.cur[w] = v;
                        any |= v != 0;
                    }
                    if !any {
                        return Propagated::Empty;
                    }
                    self.cur_min[f] = self.min_cost(f, &self.cur[w0..w1]);
                }
                self.acc[w0..w1].fill(0);
                self.count[f] = 0;
            }
        }
        if changed {
            Propagated::Narrowed
        } else {
            Propagated::Unchanged
        }
    }

    /// Walks the leaves below node `k` reachable under the restricted domains
    /// `cur` whose rc (`base + extra`) stays below `limit`, restricting each
    /// tested feature's domain to the side taken; at each leaf, `visit` says
    /// what to do (see [`Visit`]).
    fn walk(&mut self, k: usize, extra: f64, base: f64, limit: f64, visit: Visit) {
        let node = self.walk_nodes[k];
        if node.feature == WALK_LEAF {
            let value = node.value();
            match visit {
                Visit::Collect if self.sibling.recording => {
                    // Recorded for both children of the split (see
                    // `SiblingWalks`): the extras as the collection below
                    // computes them.
                    let x0 = self.sibling.extras.len() as u32;
                    for j in 0..self.path_features.len() {
                        let f = self.path_features[j];
                        let e = self.cur_min[f] - self.dom_min[f];
                        if e > 0.0 {
                            let by_class = self.class_extras(f, e);
                            self.sibling.extras.push((f as u32, e, by_class));
                        }
                    }
                    let x1 = self.sibling.extras.len() as u32;
                    self.sibling.leaves.push((extra, value, k as u32, x0, x1));
                }
                Visit::Collect => {
                    self.leaves.push((base + extra, value, k as u32));
                    if !self.budget_off && self.budget.by_option() {
                        // The bound by options: each feature's extra and
                        // the options of it that take the leaf's path.
                        for j in 0..self.path_features.len() {
                            let f = self.path_features[j];
                            let e = self.cur_min[f] - self.dom_min[f];
                            if e > 0.0 {
                                let (w0, w1) = (self.word_start[f], self.word_start[f + 1]);
                                self.budget.push_option_extra(f, e, &self.cur[w0..w1]);
                            }
                        }
                        self.budget.close_leaf(value);
                    } else if !self.budget_off {
                        // The leaf's extra cost in each feature its path
                        // tests, for the feature-budget bound (only the
                        // positive ones count), written straight into the
                        // budget's buffers: no allocation, no copy.
                        for j in 0..self.path_features.len() {
                            let f = self.path_features[j];
                            let e = self.cur_min[f] - self.dom_min[f];
                            if e > 0.0 {
                                let by_class = self.class_extras(f, e);
                                self.budget.push_extra((f as u32, e, by_class));
                            }
                        }
                        self.budget.close_leaf(value);
                    }
                }
                Visit::Union { threshold } if value >= threshold => {
                    self.survivors += 1;
                    for j in 0..self.path_features.len() {
                        let f = self.path_features[j];
                        for w in self.word_start[f]..self.word_start[f + 1] {
                            self.acc[w] |= self.cur[w];
                        }
                        self.count[f] += 1;
                    }
                }
                Visit::Union { .. } => {}
            }
            return;
        }
        let f = node.feature as usize;
        let union = matches!(visit, Visit::Union { .. });
        let floor = if union {
            f64::NEG_INFINITY
        } else {
            self.walk_floor
        };
        // The features on the path: the propagation's union needs them, and
        // so does the feature-budget bound when collecting.
        let track = union || !self.budget_off;
        if track {
            if self.on_path[f] == 0 {
                self.path_features.push(f);
                if union && !self.touched.contains(&f) {
                    self.touched.push(f);
                }
            }
            self.on_path[f] += 1;
        }
        let (w0, w1) = (self.word_start[f], self.word_start[f + 1]);
        let ms = node.ms as usize;
        // `cur_min[f]` is the least cost of `cur`'s domain of `f`, kept along
        // the walk so that neither the split nor a leaf looks it up again.
        let old = self.cur_min[f];
        if w1 - w0 == 1 {
            // One word: the common case, without the undo stack.
            let (d, m) = (self.cur[w0], self.masks[ms]);
            for (v, child) in [(d & m, node.left()), (d & !m, node.right())] {
                if v != 0 && self.sub_max[child] >= floor {
                    let c = self.cost[self.opt_start[f] + v.trailing_zeros() as usize];
                    let e = extra + (c - old);
                    if base + e < limit {
                        self.cur[w0] = v;
                        self.cur_min[f] = c;
                        self.walk(child, e, base, limit, visit);
                    }
                }
            }
            self.cur[w0] = d;
        } else {
            let mark = self.undo.len();
            self.undo.extend_from_slice(&self.cur[w0..w1]);
            for (side, child) in [(true, node.left()), (false, node.right())] {
                if self.sub_max[child] < floor {
                    continue;
                }
                let mut any = false;
                for w in w0..w1 {
                    let m = self.masks[ms + (w - w0)];
                    let d = self.undo[mark + (w - w0)];
                    let v = if side { d & m } else { d & !m };
                    self.cur[w] = v;
                    any |= v != 0;
                }
                if any {
                    let c = self.min_cost(f, &self.cur[w0..w1]);
                    let e = extra + (c - old);
                    if base + e < limit {
                        self.cur_min[f] = c;
                        self.walk(child, e, base, limit, visit);
                    }
                }
            }
            for w in w0..w1 {
                self.cur[w] = self.undo[mark + (w - w0)];
            }
            self.undo.truncate(mark);
        }
        self.cur_min[f] = old;
        if track {
            self.on_path[f] -= 1;
            if self.on_path[f] == 0 {
                self.path_features.pop();
            }
        }
    }
}

/// The budget bound's class of an option of value `v` under a candidate
/// of value `v0` ([`TreeSearch::set_classes`]): below it, above it, or the
/// rest (equal, or NaN).
fn option_class(v: f64, v0: f64) -> usize {
    if v < v0 {
        0
    } else if v > v0 {
        1
    } else {
        2
    }
}

/// What [`TreeSearch::walk`] does at a leaf.
#[derive(Debug, Clone, Copy)]
enum Visit {
    /// Collect `(rc, value, leaf)` into `leaves` (the bound).
    Collect,
    /// Propagation ([`TreeSearch::propagate`]): a leaf whose value is at
    /// least `threshold` survives; the restricted domain of every feature on
    /// its path joins `acc`, and the survivor is counted.
    Union { threshold: f64 },
}

/// The largest leaf value of the subtree at `k`, written for every node of
/// it into `out` ([`TreeSearch::sub_max`]).
fn subtree_max(nodes: &[Node], k: usize, out: &mut [f64]) -> f64 {
    let node = &nodes[k];
    let m = if node.test == Test::Leaf {
        node.value
    } else {
        subtree_max(nodes, node.left as usize, out).max(subtree_max(
            nodes,
            node.right as usize,
            out,
        ))
    };
    out[k] = m;
    m
}
