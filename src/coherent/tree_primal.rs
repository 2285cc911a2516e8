//! The primal heuristic of the tree search ([`super::tree_search`]): cheap
//! answers inside a node's domains, so that the search holds a good incumbent
//! early. Leaves whose reduced cost reaches the incumbent's cost leave the
//! bound's staircases and the propagation, so a poor incumbent keeps every
//! bound low; a good one prunes (issue 24).
//!
//! # Moves scored per tree, not per option
//! A *move* sets one feature to another option of its domain. Only the trees
//! that test the feature can change leaf, and one walk of such a tree scores
//! every option of the feature at once: below a test of another feature it
//! follows that feature's current option, at a test of the moved feature it
//! splits the option set by the test's mask and follows both halves. Scoring
//! every move so costs `Σ_f |trees(f)|` tree walks, where re-scoring each
//! option on its own cost `Σ_f |options(f)|·|trees(f)|` — on 500 depth-6
//! trees with dozens of cells per feature, the difference between a few
//! search nodes' work and hundreds.
//!
//! # The heuristic
//! From every feature's cheapest option of the domain: repeatedly take the
//! move that gains the most margin per unit of cost (the ratio greedy of
//! knapsack heuristics) until the applicant is accepted. Taking instead the
//! cheapest move that gets the applicant accepted whenever one exists — the
//! rule until issue 43's twelfth round — ends many runs with one large move
//! where the optimum makes several moderate ones (on HELOC's 100-tree book
//! the root's answer was a median 1.5 times the optimum on the applicants
//! needing 100 nodes or more, and the search took a fifth more nodes,
//! BENCHMARKS.md §4). Then improve the answer by local
//! search, as MIP solvers polish incumbents: move each changed feature back
//! to the cheapest option of its domain that keeps the acceptance, dearest
//! first, and swap a changed feature for the cheapest single move that gets
//! the applicant accepted without it whenever that costs less, for at most
//! [`POLISH_PASSES`] passes. Every answer is checked with the library's own sum
//! (`TreeEnsemble::sum_tree_values`), and every walk is counted so that the
//! caller can bound the work deterministically, never by time.

use super::trees::for_each_node;
use crate::model::TreeEnsemble;
use crate::model::trees::Test;

/// What the heuristic reads of the search's menus (see
/// [`super::tree_search::TreeSearch`]): options per feature sorted by cost,
/// feature `f`'s being `opt_start[f]..opt_start[f + 1]`, its domain words
/// `word_start[f]..word_start[f + 1]`, and per inner tree node the words of
/// the options its test sends left at `masks[mask_start[k]..]`.
pub(super) struct Menus<'a> {
    pub opt_start: &'a [usize],
    pub word_start: &'a [usize],
    pub cost: &'a [f64],
    pub mask_start: &'a [usize],
    pub masks: &'a [u64],
}

impl Menus<'_> {
    fn n_features(&self) -> usize {
        self.opt_start.len() - 1
    }

    fn cost(&self, f: usize, o: usize) -> f64 {
        self.cost[self.opt_start[f] + o]
    }

    fn goes_left(&self, k: usize, o: usize) -> bool {
        self.masks[self.mask_start[k] + o / 64] >> (o % 64) & 1 == 1
    }
}

/// Passes of the local search at most (each pass that improves nothing ends
/// it; the cost falls at every pass that goes on). One since reduced-cost
/// fixing (issue 43, thirteenth round): on HELOC's 100-tree book four passes
/// saved 0.7 % of the nodes for 5 % more instructions (callgrind, 400
/// rows), on XGBoost 500×6 and 1000×8 the same nodes within 0.3 % for
/// 5–7 % more CPU.
const POLISH_PASSES: usize = 1;

/// Candidate swaps verified exactly per dropped feature: the estimate of a
/// move's margin is an f64 sum, the acceptance XGBoost's float32 one.
const SWAP_TRIES: usize = 3;

/// The heuristic's buffers and its count of tree walks.
#[derive(Debug, Default)]
pub(super) struct Primal {
    /// Per feature, the trees that test it, and per such tree (in the same
    /// order) where its nodes testing the feature end in `feature_nodes`.
    feature_trees: Vec<Vec<u32>>,
    feature_nodes: Vec<Vec<u32>>,
    feature_node_end: Vec<Vec<u32>>,
    /// Per tree, the features it tests: `tree_features[tree_feature_start[t]..
    /// tree_feature_start[t + 1]]`.
    tree_features: Vec<u32>,
    tree_feature_start: Vec<usize>,
    /// The trees a move changes ([`Primal::apply_rescored`]) and their
    /// leaf values before it.
    changed: Vec<(u32, f64)>,
    /// The current option per feature (sorted indices) and each tree's
    /// current leaf value.
    opt: Vec<usize>,
    leaf: Vec<f64>,
    /// Per option (flat, as `Menus::cost`): the sum over the trees that
    /// test its feature of the leaf values it reaches, the other features
    /// at their current options; and per feature, the same trees' current
    /// leaf values summed. A move's gain is their difference
    /// ([`Primal::gain`]), so a move that changes some trees' leaves
    /// changes the other features' sums only for the options whose paths
    /// pass a test between the old and the new option.
    reach: Vec<f64>,
    held: Vec<f64>,
    trial: Vec<f64>,
    // The scoring walk's stack: (node, where its option set starts in
    // `sets`, the sign of its credits).
    stack: Vec<(usize, usize, f64)>,
    sets: Vec<u64>,
    moves: Vec<(f64, usize, usize)>,
    /// Per feature, whether it has two options or more in the domains of
    /// the last [`Primal::score_all`]; per tree, whether it is walked
    /// jointly ([`Primal::score_joint`]).
    choice: Vec<bool>,
    joint: Vec<bool>,
    /// A joint walk's option sets on its main path (each feature's words
    /// from `slot[g]`, per feature; `u32::MAX`: not scored in the tree), and
    /// their features.
    path: Vec<u64>,
    slot: Vec<u32>,
    path_features: Vec<u32>,
    /// The options of a feature of several words leaving the main path.
    leaving: Vec<u64>,
    /// Tests: walk every tree feature by feature (the joint walk's oracle).
    #[cfg(test)]
    pub(super) per_feature_only: bool,
    /// Tree walks spent since [`Primal::prepare`].
    pub walks: u64,
}

impl Primal {
    /// Indexes the trees of `ens` by the features they test.
    pub(super) fn prepare(&mut self, ens: &TreeEnsemble, n_features: usize) {
        let nodes = ens.nodes();
        self.feature_trees.clear();
        self.feature_trees.resize(n_features, Vec::new());
        self.feature_nodes.clear();
        self.feature_nodes.resize(n_features, Vec::new());
        self.feature_node_end.clear();
        self.feature_node_end.resize(n_features, Vec::new());
        self.tree_features.clear();
        self.tree_feature_start.clear();
        for (t, &r) in ens.roots().iter().enumerate() {
            self.tree_feature_start.push(self.tree_features.len());
            let first = self.tree_features.len();
            for_each_node(nodes, r as usize, |k| {
                if nodes[k].test != Test::Leaf {
                    let f = nodes[k].feature as usize;
                    let list = &mut self.feature_trees[f];
                    if list.last() != Some(&(t as u32)) {
                        list.push(t as u32);
                        self.feature_node_end[f].push(self.feature_nodes[f].len() as u32);
                    }
                    self.feature_nodes[f].push(k as u32);
                    *self.feature_node_end[f].last_mut().expect("pushed above") += 1;
                    if !self.tree_features[first..].contains(&(f as u32)) {
                        self.tree_features.push(f as u32);
                    }
                }
            });
        }
        self.tree_feature_start.push(self.tree_features.len());
        self.walks = 0;
    }

    /// The trees that test feature `f` (increasing).
    pub(super) fn trees_testing(&self, f: usize) -> &[u32] {
        &self.feature_trees[f]
    }

    /// The trees indexed per feature by [`Primal::prepare`] (for the tests
    /// of the tables kept across applicants).
    #[cfg(test)]
    pub(super) fn feature_trees(&self) -> &[Vec<u32>] {
        &self.feature_trees
    }

    /// The answer of the last successful [`Primal::run`]: one option (sorted
    /// index) per feature.
    pub(super) fn answer(&self) -> &[usize] {
        &self.opt
    }

    /// Looks for an answer inside the domains `dom` (bit sets over the sorted
    /// options, laid out as `menus.word_start`) whose margin, summed as the
    /// library sums it, reaches `need`, starting from `start` (one sorted
    /// option per feature; a warm start, [`super::tree_warm`]) where it lies
    /// in `dom`, else from every domain's cheapest option. Gives up once
    /// [`Primal::walks`] passes `budget`. Returns the answer's cost (the
    /// answer in [`Primal::answer`]), or `None`.
    pub(super) fn run(
        &mut self,
        m: &Menus,
        ens: &TreeEnsemble,
        dom: &[u64],
        start: Option<&[usize]>,
        need: f64,
        budget: u64,
    ) -> Option<f64> {
        let n = m.n_features();
        self.opt.clear();
        for f in 0..n {
            let d = &dom[m.word_start[f]..m.word_start[f + 1]];
            let o = match start {
                Some(s)
                    if s.len() == n
                        && s[f] < 64 * d.len()
                        && d[s[f] / 64] >> (s[f] % 64) & 1 == 1 =>
                {
                    s[f]
                }
                _ => lowest(d)?,
            };
            self.opt.push(o);
        }
        self.leaf.clear();
        for &r in ens.roots() {
            let v = self.leaf_value(m, ens, r as usize);
            self.leaf.push(v);
        }
        self.walks += self.leaf.len() as u64;
        let mut accepted = self.exact(ens) >= need;
        // The moves' scores, kept up to date by every move from here on
        // (greedy and polish alike, [`Primal::apply_rescored`]).
        self.score_all(m, ens, dom);
        for _ in 0..4 * n + 8 {
            if accepted {
                break;
            }
            if self.walks > budget {
                return None;
            }
            let (f, o) = self.greedy_move(m, dom)?;
            self.apply_rescored(m, ens, dom, f, o);
            accepted = self.exact(ens) >= need;
        }
        if !accepted {
            return None;
        }
        for _ in 0..POLISH_PASSES {
            if self.walks > budget {
                break;
            }
            let lowered = self.lower(m, ens, dom, need);
            let swapped = self.walks <= budget && self.swap(m, ens, dom, need);
            if !lowered && !swapped {
                break;
            }
        }
        Some(self.cost(m))
    }

    fn cost(&self, m: &Menus) -> f64 {
        (0..self.opt.len()).map(|f| m.cost(f, self.opt[f])).sum()
    }

    /// The margin of the current answer in f64 (the estimate moves are
    /// ranked by).
    fn margin(&self, ens: &TreeEnsemble) -> f64 {
        ens.base_score() + self.leaf.iter().sum::<f64>()
    }

    /// What moving feature `f` to option `o` adds to the margin (f64).
    fn gain(&self, m: &Menus, f: usize, o: usize) -> f64 {
        self.reach[m.opt_start[f] + o] - self.held[f]
    }

    /// The margin of the current answer as the library sums it.
    fn exact(&self, ens: &TreeEnsemble) -> f64 {
        ens.sum_tree_values(self.leaf.iter().copied())
    }

    /// The leaf value tree root `r` sends the current options to.
    fn leaf_value(&self, m: &Menus, ens: &TreeEnsemble, r: usize) -> f64 {
        let nodes = ens.nodes();
        let mut k = r;
        while nodes[k].test != Test::Leaf {
            let left = m.goes_left(k, self.opt[nodes[k].feature as usize]);
            k = if left { nodes[k].left } else { nodes[k].right } as usize;
        }
        nodes[k].value
    }

    /// Sets feature `f` to option `o`, updates the leaves of the trees it
    /// changes, and keeps the scored moves ([`Primal::gain`], every feature
    /// with two options or more in `dom`, as [`Primal::score_all`] leaves
    /// them) up to date by rescoring only what the move changes. A tree
    /// whose tests of `f` send the old and the new option the same way keeps
    /// its leaves for every move of every feature, so only the trees with a
    /// test between them are walked again: once per other feature they test
    /// ([`Primal::rescore_tree`]), crediting only the options whose paths
    /// reach such a test; every feature's held sum moves by those trees'
    /// change of leaf. A step of the greedy or the polish so costs a few
    /// trees' walks instead of a walk per tree and feature (issue 43, twelfth
    /// round: the heuristic's scoring was a sixth of the book's work), and
    /// the walks credit a fraction of the options (fourteenth round). The
    /// sums differ from a fresh [`Primal::score_all`] by rounding only (test
    /// `rescored_moves_equal_a_fresh_scoring`).
    fn apply_rescored(&mut self, m: &Menus, ens: &TreeEnsemble, dom: &[u64], f: usize, o: usize) {
        let old = self.opt[f];
        let roots = ens.roots();
        let nodes = ens.nodes();
        self.changed.clear();
        let mut from = 0;
        for (j, &t) in self.feature_trees[f].iter().enumerate() {
            let to = self.feature_node_end[f][j] as usize;
            let parts = self.feature_nodes[f][from..to]
                .iter()
                .any(|&k| m.goes_left(k as usize, old) != m.goes_left(k as usize, o));
            if parts {
                self.changed.push((t, self.leaf[t as usize]));
            }
            from = to;
        }
        self.opt[f] = o;
        for j in 0..self.changed.len() {
            let (t, before) = self.changed[j];
            let t = t as usize;
            self.rescore_tree(m, nodes, dom, roots[t] as usize, t, (f, old, o));
            self.leaf[t] = self.leaf_value(m, ens, roots[t] as usize);
            let change = self.leaf[t] - before;
            for j in self.tree_feature_start[t]..self.tree_feature_start[t + 1] {
                self.held[self.tree_features[j] as usize] += change;
            }
        }
        self.walks += self.changed.len() as u64;
    }

    /// Moves the credits of tree `t` (at `root`) to the moves of every
    /// feature it tests but the moved one that has two options or more in
    /// `dom`, as the move `(f, old, new)` changes them, with `self.opt[f]` at
    /// `new`: in one joint walk ([`Primal::score_joint`]) or one walk each
    /// ([`Primal::score_tree`]), as [`Primal::score_all`] chose (whose
    /// choices in `dom` it reads), each counted as a walk.
    fn rescore_tree(
        &mut self,
        m: &Menus,
        nodes: &[crate::model::trees::Node],
        dom: &[u64],
        root: usize,
        t: usize,
        moved: (usize, usize, usize),
    ) {
        let joint = self.joint[t];
        for j in self.tree_feature_start[t]..self.tree_feature_start[t + 1] {
            let g = self.tree_features[j] as usize;
            if g == moved.0 || !self.choice[g] {
                continue;
            }
            if !joint {
                self.score_tree(m, nodes, dom, root, g, Some(moved));
            }
            self.walks += 1;
        }
        if joint {
            self.score_joint(m, nodes, dom, root, t, Some(moved));
        }
    }

    /// Whether the current answer with feature `f` at option `o` is accepted,
    /// as the library sums it.
    fn accepts_with(
        &mut self,
        m: &Menus,
        ens: &TreeEnsemble,
        f: usize,
        o: usize,
        need: f64,
    ) -> bool {
        let keep = self.opt[f];
        self.opt[f] = o;
        self.trial.clear();
        self.trial.extend_from_slice(&self.leaf);
        let roots = ens.roots();
        for j in 0..self.feature_trees[f].len() {
            let t = self.feature_trees[f][j] as usize;
            self.trial[t] = self.leaf_value(m, ens, roots[t] as usize);
        }
        self.walks += self.feature_trees[f].len() as u64;
        self.opt[f] = keep;
        ens.sum_tree_values(self.trial.iter().copied()) >= need
    }

    /// Scores every move of every feature with two options or more in `dom`
    /// ([`Primal::gain`]): each feature's held sum, and the sums its options
    /// reach — tree by tree, each in one joint walk where it can
    /// ([`Primal::score_joint`]), else one walk per feature it tests. Either
    /// way each option's sum takes its trees in increasing order, so the
    /// sums are the same bits. The walks counted are the per-feature walks
    /// (`Σ_f |trees(f)|`), whichever way they are made, so that the
    /// heuristic's work budget decides as it always did.
    fn score_all(&mut self, m: &Menus, ens: &TreeEnsemble, dom: &[u64]) {
        self.reach.clear();
        self.reach.resize(m.cost.len(), 0.0);
        self.held.clear();
        self.set_choices(m, dom);
        for f in 0..m.n_features() {
            let held = self.feature_trees[f]
                .iter()
                .map(|&t| self.leaf[t as usize])
                .sum();
            self.held.push(held);
            if self.choice[f] {
                self.walks += self.feature_trees[f].len() as u64;
            }
        }
        let (nodes, roots) = (ens.nodes(), ens.roots());
        for (t, &root) in roots.iter().enumerate() {
            if self.joint[t] {
                self.score_joint(m, nodes, dom, root as usize, t, None);
                continue;
            }
            for j in self.tree_feature_start[t]..self.tree_feature_start[t + 1] {
                let g = self.tree_features[j] as usize;
                if self.choice[g] {
                    self.score_tree(m, nodes, dom, root as usize, g, None);
                }
            }
        }
    }

    /// Which features have two options or more in `dom` (the ones scored),
    /// and which trees are walked jointly: those that test two of them or
    /// more.
    fn set_choices(&mut self, m: &Menus, dom: &[u64]) {
        let n = m.n_features();
        self.choice.clear();
        self.choice
            .extend((0..n).map(|f| has_choice(&dom[m.word_start[f]..m.word_start[f + 1]])));
        self.slot.clear();
        self.slot.resize(n, u32::MAX);
        self.joint.clear();
        for t in 0..self.tree_feature_start.len() - 1 {
            // A tree that tests one scored feature gains nothing by it.
            let scored = self.tree_features
                [self.tree_feature_start[t]..self.tree_feature_start[t + 1]]
                .iter()
                .filter(|&&g| self.choice[g as usize])
                .count();
            #[cfg(test)]
            let scored = if self.per_feature_only { 0 } else { scored };
            self.joint.push(scored >= 2);
        }
    }

    /// Scores the moves of every feature tree `t` (at `root`) tests, with two
    /// options or more in `dom`, in one walk: what [`Primal::score_tree`]
    /// does feature by feature, each walk from the root. The walk follows
    /// the current options (the *main path*) carrying, per such feature,
    /// the options still on it; at a test of feature `h` the options of `h`
    /// that leave the main path are walked on from there as `score_tree`
    /// would ([`Primal::score_word`]), and the ones left at the main path's
    /// leaf are credited there. Each option so reaches the leaf it reaches
    /// in `h`'s own walk and is credited once, with the same sign: the sums
    /// are the same bits as feature by feature. With `moved = (f, old,
    /// new)` (as `score_tree`'s; `f`'s own options are not rescored), the
    /// main path splits at a test of `f` between `old` and `new` into the
    /// old side (subtracted) and the new (added). On HELOC's 100-tree book
    /// a tree tests about nine features: the heuristic's walks were a sixth
    /// of the book's instructions (issue 43, fifteenth round).
    fn score_joint(
        &mut self,
        m: &Menus,
        nodes: &[crate::model::trees::Node],
        dom: &[u64],
        root: usize,
        t: usize,
        moved: Option<(usize, usize, usize)>,
    ) {
        let at = self.path.len();
        self.path_features.clear();
        for j in self.tree_feature_start[t]..self.tree_feature_start[t + 1] {
            let g = self.tree_features[j] as usize;
            if self.choice[g] && moved.is_none_or(|mv| mv.0 != g) {
                self.slot[g] = (self.path.len() - at) as u32;
                self.path
                    .extend_from_slice(&dom[m.word_start[g]..m.word_start[g + 1]]);
                self.path_features.push(g as u32);
            } else {
                self.slot[g] = u32::MAX;
            }
        }
        let len = self.path.len() - at;
        let sign = if moved.is_some() { 0.0 } else { 1.0 };
        self.joint_path(m, nodes, root, at, len, sign, moved);
        self.path.truncate(at);
    }

    /// [`Primal::score_joint`]'s main path from node `k`: per feature `g` of
    /// the tree scored (`path_features`), its options still on the path in
    /// its words from `path[at + slot[g]]` (`len` words in all); `sign` 0
    /// while rescoring above the split of `moved`.
    #[allow(clippy::too_many_arguments)]
    fn joint_path(
        &mut self,
        m: &Menus,
        nodes: &[crate::model::trees::Node],
        mut k: usize,
        at: usize,
        len: usize,
        sign: f64,
        moved: Option<(usize, usize, usize)>,
    ) {
        loop {
            let node = &nodes[k];
            if node.test == Test::Leaf {
                if sign != 0.0 {
                    let credit = sign * node.value;
                    for &g in &self.path_features {
                        let g = g as usize;
                        let from = at + self.slot[g] as usize;
                        let words = m.word_start[g + 1] - m.word_start[g];
                        let set = &self.path[from..from + words];
                        add_to_options(&mut self.reach[m.opt_start[g]..], set, credit);
                    }
                }
                return;
            }
            let h = node.feature as usize;
            let side = |left: bool| if left { node.left } else { node.right } as usize;
            if let Some((f, old, new)) = moved.filter(|mv| mv.0 == h) {
                let (to_old, to_new) = (m.goes_left(k, old), m.goes_left(k, new));
                if to_old == to_new {
                    k = side(to_new);
                    continue;
                }
                // Two main paths below: the old side on a copy of the sets.
                let copy = self.path.len();
                self.path.extend_from_within(at..at + len);
                self.opt[f] = old;
                self.joint_path(m, nodes, side(to_old), copy, len, -1.0, None);
                self.path.truncate(copy);
                self.opt[f] = new;
                self.joint_path(m, nodes, side(to_new), at, len, 1.0, None);
                return;
            }
            let left = m.goes_left(k, self.opt[h]);
            let j = self.slot[h];
            if j != u32::MAX {
                let from = at + j as usize;
                let words = m.word_start[h + 1] - m.word_start[h];
                let ms = m.mask_start[k];
                // The options leaving the main path; those staying stay.
                let mut any = false;
                self.leaving.clear();
                for w in 0..words {
                    let set = self.path[from + w];
                    let mask = if left {
                        !m.masks[ms + w]
                    } else {
                        m.masks[ms + w]
                    };
                    self.path[from + w] = set & !mask;
                    any |= set & mask != 0;
                    self.leaving.push(set & mask);
                }
                if any {
                    // Taken out for the walk, which may not touch it.
                    let leaving = std::mem::take(&mut self.leaving);
                    let (sign, moved) = if sign == 0.0 {
                        (1.0, moved)
                    } else {
                        (sign, None)
                    };
                    self.score_from(m, nodes, side(!left), &leaving, h, sign, moved);
                    self.leaving = leaving;
                }
            }
            k = side(left);
        }
    }

    /// One walk of the tree at `root` over feature `f`'s options in `dom`:
    /// the option set split at the tests of `f`, the current options
    /// followed elsewhere. Without `moved`, adds to `reach` the value of the
    /// leaf each option reaches. With `moved = (g, old, new)` (feature `g`
    /// just moved from option `old` to `new`, `self.opt[g]` at `new`), adds
    /// for each option whose path reaches a test of `g` between `old` and
    /// `new` the new leaf's value less the old one's: the walk splits there
    /// into the old side (subtracted, `g` followed at `old` below) and the
    /// new (added), and credits nothing at the leaves the two share.
    fn score_tree(
        &mut self,
        m: &Menus,
        nodes: &[crate::model::trees::Node],
        dom: &[u64],
        root: usize,
        f: usize,
        moved: Option<(usize, usize, usize)>,
    ) {
        let (w0, w1) = (m.word_start[f], m.word_start[f + 1]);
        self.score_from(m, nodes, root, &dom[w0..w1], f, 1.0, moved);
    }

    /// [`Primal::score_tree`]'s walk from node `k` for the options `set` of
    /// feature `f` that reach it: credited with `sign` (plain scoring), or,
    /// with `moved`, as `score_tree` rescores below `k`.
    #[allow(clippy::too_many_arguments)]
    fn score_from(
        &mut self,
        m: &Menus,
        nodes: &[crate::model::trees::Node],
        k: usize,
        set: &[u64],
        f: usize,
        sign: f64,
        moved: Option<(usize, usize, usize)>,
    ) {
        let words = set.len();
        let base = m.opt_start[f];
        if words == 1 {
            // One word of options (the common case): the option sets ride
            // in registers, no stack of sets.
            self.score_word(m, nodes, k, set[0], f, base, sign, moved);
            return;
        }
        self.sets.clear();
        self.sets.extend_from_slice(set);
        self.stack.clear();
        // Each entry's sign: `sign` when plainly scoring; while rescoring, 0
        // on the part both options share, -1 the old side, 1 the new.
        self.stack
            .push((k, 0, if moved.is_some() { 0.0 } else { sign }));
        while let Some((k, at, sign)) = self.stack.pop() {
            let node = &nodes[k];
            if node.test == Test::Leaf {
                if sign == 0.0 {
                    continue;
                }
                let credit = sign * node.value;
                add_to_options(&mut self.reach[base..], &self.sets[at..at + words], credit);
                continue;
            }
            let g = node.feature as usize;
            if g != f {
                let child = match moved {
                    Some((h, old, new)) if h == g => {
                        let (to_old, to_new) = (m.goes_left(k, old), m.goes_left(k, new));
                        if sign == 0.0 && to_old != to_new {
                            let side = |left: bool| if left { node.left } else { node.right };
                            // The old side walked first (popped first), as
                            // in `score_word` and the joint walk: an option
                            // credited on both sides takes the same two
                            // steps in the same order, whichever walk.
                            self.stack.push((side(to_new) as usize, at, 1.0));
                            self.stack.push((side(to_old) as usize, at, -1.0));
                            continue;
                        }
                        if sign < 0.0 { to_old } else { to_new }
                    }
                    _ => m.goes_left(k, self.opt[g]),
                };
                let child = if child { node.left } else { node.right };
                self.stack.push((child as usize, at, sign));
                continue;
            }
            let ms = m.mask_start[k];
            let (mut any_left, mut any_right) = (false, false);
            let left_at = self.sets.len();
            for w in 0..words {
                let v = self.sets[at + w] & m.masks[ms + w];
                any_left |= v != 0;
                self.sets.push(v);
            }
            let right_at = self.sets.len();
            for w in 0..words {
                let v = self.sets[at + w] & !m.masks[ms + w];
                any_right |= v != 0;
                self.sets.push(v);
            }
            if any_left {
                self.stack.push((node.left as usize, left_at, sign));
            }
            if any_right {
                self.stack.push((node.right as usize, right_at, sign));
            }
        }
    }

    /// [`Primal::score_tree`]'s walk of one tree below node `k` for a feature
    /// `f` whose options fit in one word: `set` the options that reach `k`.
    /// Without `moved`, each is credited at the leaf it reaches with `sign`
    /// times the leaf's value (each option reaches one leaf per tree, so the
    /// order of the walk changes no sum). With `moved = (g, old, new)`,
    /// nothing is credited on the part the two options of `g` share; below a
    /// test of `g` between them the old side's leaves are subtracted (walked
    /// with `g` at `old`) and the new side's added.
    #[allow(clippy::too_many_arguments)]
    fn score_word(
        &mut self,
        m: &Menus,
        nodes: &[crate::model::trees::Node],
        mut k: usize,
        mut set: u64,
        f: usize,
        base: usize,
        sign: f64,
        moved: Option<(usize, usize, usize)>,
    ) {
        loop {
            let node = &nodes[k];
            if node.test == Test::Leaf {
                if moved.is_none() {
                    let credit = sign * node.value;
                    while set != 0 {
                        self.reach[base + set.trailing_zeros() as usize] += credit;
                        set &= set - 1;
                    }
                }
                return;
            }
            let h = node.feature as usize;
            if let Some((g, old, new)) = moved.filter(|mv| mv.0 == h) {
                let (to_old, to_new) = (m.goes_left(k, old), m.goes_left(k, new));
                let side = |left: bool| if left { node.left } else { node.right } as usize;
                if to_old == to_new {
                    k = side(to_new);
                    continue;
                }
                self.opt[g] = old;
                self.score_word(m, nodes, side(to_old), set, f, base, -1.0, None);
                self.opt[g] = new;
                self.score_word(m, nodes, side(to_new), set, f, base, 1.0, None);
                return;
            }
            if h != f {
                let left = m.goes_left(k, self.opt[h]);
                k = if left { node.left } else { node.right } as usize;
                continue;
            }
            let mask = m.masks[m.mask_start[k]];
            let (l, r) = (set & mask, set & !mask);
            if l != 0 {
                if r == 0 {
                    k = node.left as usize;
                    continue;
                }
                self.score_word(m, nodes, node.left as usize, l, f, base, sign, moved);
            }
            if r == 0 {
                return;
            }
            k = node.right as usize;
            set = r;
        }
    }

    /// The move to take from the scored gains: the best margin gain per
    /// unit of cost (the module's doc, "The heuristic"); `None` when no move
    /// gains.
    fn greedy_move(&self, m: &Menus, dom: &[u64]) -> Option<(usize, usize)> {
        let mut by_ratio: Option<(f64, usize, usize)> = None;
        for f in 0..m.n_features() {
            let now = m.cost(f, self.opt[f]);
            for o in options(&dom[m.word_start[f]..m.word_start[f + 1]]) {
                if o == self.opt[f] {
                    continue;
                }
                let gain = self.gain(m, f, o);
                if gain > 0.0 {
                    let ratio = gain / (m.cost(f, o) - now).max(1e-12);
                    if by_ratio.is_none_or(|b| ratio > b.0) {
                        by_ratio = Some((ratio, f, o));
                    }
                }
            }
        }
        by_ratio.map(|(_, f, o)| (f, o))
    }

    /// The features off the cheapest option of their domain, dearest first.
    fn moved(&self, m: &Menus, dom: &[u64]) -> Vec<usize> {
        let mut moved: Vec<usize> = (0..m.n_features())
            .filter(|&f| Some(self.opt[f]) != lowest(&dom[m.word_start[f]..m.word_start[f + 1]]))
            .collect();
        moved.sort_by(|&a, &b| m.cost(b, self.opt[b]).total_cmp(&m.cost(a, self.opt[a])));
        moved
    }

    /// Moves each changed feature, dearest first, to the cheapest option of
    /// its domain that keeps the acceptance. Whether the cost fell.
    fn lower(&mut self, m: &Menus, ens: &TreeEnsemble, dom: &[u64], need: f64) -> bool {
        let mut lowered = false;
        for f in self.moved(m, dom) {
            let margin = self.margin(ens);
            let now = m.cost(f, self.opt[f]);
            // Options are sorted by cost: the first accepted one is cheapest.
            for o in options(&dom[m.word_start[f]..m.word_start[f + 1]]) {
                if m.cost(f, o) >= now {
                    break;
                }
                if margin + self.gain(m, f, o) >= need - estimate_slack(margin)
                    && self.accepts_with(m, ens, f, o, need)
                {
                    self.apply_rescored(m, ens, dom, f, o);
                    lowered = true;
                    break;
                }
            }
        }
        lowered
    }

    /// For each changed feature, dearest first: drops it (back to the
    /// cheapest option of its domain) and takes instead the cheapest single
    /// move that gets the applicant accepted, when the answer gets cheaper.
    /// Whether the cost fell.
    fn swap(&mut self, m: &Menus, ens: &TreeEnsemble, dom: &[u64], need: f64) -> bool {
        let mut swapped = false;
        for f in self.moved(m, dom) {
            let before = self.cost(m);
            let keep = self.opt[f];
            let Some(low) = lowest(&dom[m.word_start[f]..m.word_start[f + 1]]) else {
                continue;
            };
            self.apply_rescored(m, ens, dom, f, low);
            let margin = self.margin(ens);
            let rest = self.cost(m);
            self.moves.clear();
            for g in 0..m.n_features() {
                let now = m.cost(g, self.opt[g]);
                for o in options(&dom[m.word_start[g]..m.word_start[g + 1]]) {
                    let dc = m.cost(g, o) - now;
                    if o != self.opt[g]
                        && rest + dc < before
                        && margin + self.gain(m, g, o) >= need - estimate_slack(margin)
                    {
                        self.moves.push((dc, g, o));
                    }
                }
            }
            self.moves.sort_by(|a, b| a.0.total_cmp(&b.0));
            let mut found = None;
            for j in 0..self.moves.len().min(SWAP_TRIES) {
                let (_, g, o) = self.moves[j];
                if self.accepts_with(m, ens, g, o, need) {
                    found = Some((g, o));
                    break;
                }
            }
            match found {
                Some((g, o)) => {
                    self.apply_rescored(m, ens, dom, g, o);
                    swapped = true;
                }
                None => self.apply_rescored(m, ens, dom, f, keep),
            }
        }
        swapped
    }
}

/// Adds `credit` to `sums[o]` for every option `o` set in `set`.
fn add_to_options(sums: &mut [f64], set: &[u64], credit: f64) {
    for (w, &word) in set.iter().enumerate() {
        let mut bits = word;
        while bits != 0 {
            sums[64 * w + bits.trailing_zeros() as usize] += credit;
            bits &= bits - 1;
        }
    }
}

/// How far below `need` an f64 estimate of a margin may fall and still be
/// worth checking exactly (XGBoost's float32 sum may round it up).
fn estimate_slack(margin: f64) -> f64 {
    1e-6 * (1.0 + margin.abs())
}

/// Whether a domain holds two options or more (the features whose moves
/// are scored).
fn has_choice(words: &[u64]) -> bool {
    words.iter().map(|w| w.count_ones()).sum::<u32>() >= 2
}

fn lowest(words: &[u64]) -> Option<usize> {
    words
        .iter()
        .enumerate()
        .find(|(_, w)| **w != 0)
        .map(|(k, w)| 64 * k + w.trailing_zeros() as usize)
}

/// The options (indices) set in `words`, in increasing order.
fn options(words: &[u64]) -> impl Iterator<Item = usize> + '_ {
    words.iter().enumerate().flat_map(|(k, &w)| {
        let mut bits = w;
        std::iter::from_fn(move || {
            if bits == 0 {
                return None;
            }
            let o = bits.trailing_zeros() as usize;
            bits &= bits - 1;
            Some(64 * k + o)
        })
    })
}

#[cfg(test)]
#[path = "tree_primal_tests.rs"]
pub(super) mod tests;
