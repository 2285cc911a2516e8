//! The robust search's lower bound ([`super::tree_box`], robust advice on a
//! tree ensemble): the per-tree and feature-budget bounds of
//! [`super::tree_search`] built on what each tree can *guarantee* over an
//! answer's box rather than on the leaf the answer's point reaches.
//!
//! # What the plain bound misses
//! A robust answer `x` is credited, in tree `t`, its worst leaf over the box
//! `B(x)`: `w_t(x) = min { value(ℓ) : ℓ's region meets B(x) }`. The plain
//! bound credits the leaf `ℓ_t(x)` that `x` itself reaches — an upper bound on
//! `w_t(x)`, since `x ∈ B(x)` — at the reduced cost of the cheapest option
//! that takes `ℓ_t(x)`'s path. That option is typically just past a
//! threshold, and its box then straddles the threshold: it reaches the leaves
//! on the other side too, and is worth only their least. The answer that
//! truly earns `value(ℓ_t(x))` must move the box's half-width further. Caps
//! alone (the least leaf the box of *every* point of the node meets,
//! [`super::tree_search`]) see this only once a node's domains are narrow, so
//! on HELOC's 500-tree model the plain bound stayed near the plain optimum
//! while robust answers cost up to 62 times more (BENCHMARKS.md §14).
//!
//! # The bound
//! The walk of the node's bound (`TreeSearch::box_walk`) splits each tested
//! feature's domain not in two (the options sent left, the others) but in
//! four: options sent left whose box stays left (`LL`), sent left whose box
//! also reaches right (`LS`, straddling), and symmetrically `RS` and `RR`.
//! Every answer `x` of the node falls in exactly one class at every test its
//! own path meets, so the walk reaches `ℓ_t(x)` once with domains that hold
//! `x` (each feature restricted to the classes of `x`'s options along the
//! path). At a straddling class the walk carries a *cap*: the least value
//! among the sibling subtree's leaves that the box of every option of the
//! class's domains meets — every test below the sibling is reached on the
//! leaf's side by every option of its feature's domain (`forced_min`; since
//! tightened, below). The box
//! of any `x` in the class reaches the sibling (its option straddles the
//! test) and, below it, each forced leaf (its options are among the domains'),
//! so `w_t(x)` is at most that cap; caps of every straddle above a leaf are
//! combined by `min`, and so is the node's whole-tree cap. So the walk's entry
//! for `ℓ_t(x)` has
//!
//! ```text
//! rc ≤ cost(x),  e_f ≤ cost(x_f) − m_f for every f,  value' = min(value(ℓ), caps) ≥ w_t(x),
//! ```
//!
//! and, `x_f` lying in one of the budget bound's classes (below, above or at
//! the candidate's value), `e_{f,c} ≤ cost(x_f) − m_f` in that class — which is all that the per-tree staircases and the feature-budget LP use of
//! a leaf (their admissibility arguments in [`super::tree_search`] and
//! [`super::tree_budget`] go through with `w_t(x)` for `value(ℓ_t(x))`). The
//! bound is therefore admissible for the robust problem. Its per-tree
//! staircases are never looser than those of the capped plain leaves: each
//! class is a subset of the plain walk's side, so its reduced cost is no
//! smaller and its value no larger (the feature-budget LP, which measures
//! gains from each tree's zero-extra best, is not monotone that way; the
//! search takes the larger of the two bounds either way). It is exact for
//! one tree once the domains are single options.
//!
//! # The candidate's classes: both sides walked
//! A cap from `forced_min` is weak where the domains are wide: at the root
//! hardly any test below a sibling is reached on one side by *every* option.
//! Yet the budget bound measures every gain from `z_t`, the best value of the
//! tree's entries with no extra cost, and those are the entries of the
//! candidate's own classes: with loose caps their values sat near the
//! candidate's plain leaves while the candidate's box loses far more (on
//! HELOC's 500-tree model, applicant #0's root: `Σ z_t` −1.57 against a
//! worst score of −3.90 at the candidate), so the LP asked for too little
//! gain. So while a combination's extra cost is still 0, a straddling class
//! does not cap its sibling but walks it too, once the class's side is done
//! (the sibling joins a stack of pending subtrees, walked under the domains
//! restricted so far): every answer `x` of the class meets leaves on both
//! sides, `w_t(x) = min(w_{left}(x), w_{right}(x))`, and `x` falls in one
//! class at every test of both subtrees, so the walk reaches the combination
//! of `x`'s classes in both with its value the least leaf met. Once a class
//! adds extra cost the pending subtrees are capped by `forced_min` instead
//! (walking them for every entry would multiply the entries: tried on the
//! 500-tree model, a root walk listed millions), which bounds `w_t(x)` as
//! above. Two rules then drop entries that cannot matter: the candidate's own
//! entry is listed first, at no extra cost and valued its worst leaf `v₀`
//! (its exact `w_t`), and a combination whose least leaf so far is at most
//! `v₀` is dropped (values only fall along a walk): the candidate's entry has
//! extras no larger and a value no smaller, so it serves every answer the
//! dropped entry served, in the staircases and in the budget bound alike
//! (where it also lends no gain over `z_t ≥ v₀`).
//!
//! # Caps that take the better side where neither is forced
//! The caps above (the least leaf that the box of every option meets,
//! `forced_min`) drop a subtree's test when neither of its sides is reached
//! by every option: at the root of a 500-tree model, where the domains are
//! wide, most caps were infinite. The caps are now `worst_bound`: below a
//! test whose every option's box reaches both sides, the lesser of the two
//! sides' caps; one side, that side's; otherwise the greater of the two — an
//! upper bound on the worst leaf of every point of the domains (its
//! induction in `worst_bound`'s documentation), never above the forced
//! leaves' least. So each tree's cap and the caps of straddled siblings fall,
//! the per-tree staircases are never looser, and the budget bound measures
//! smaller gains. On HELOC's 100-tree model the robust answers of the first
//! 20 declined applicants are unchanged while the search's nodes fell from
//! 255,406 to 145,606 in all and their CPU from 30.7 s to 19.7 s (root bounds up 5–31 %); on the 500-tree model
//! the root bounds of the first three rose from 0.49, 1.22 and 1.46 to 0.56,
//! 1.39 and 1.62, and after 300 nodes from 0.76, 1.57 and 1.99 to 0.86, 1.78
//! and 2.22 (issue 43; BENCHMARKS.md §14). Tried and left out: per feature,
//! gains credited only to the entries whose interval of extras holds the
//! option's own (a "compatible gains" knapsack: root bounds within 3 %, 60 %
//! more time per node), and a cover of each capped combination by whether
//! it moves the capped subtrees' features off the path (root bound 0.76 on
//! the first applicant, but five to seven times the time per node).
//!
//! Measured on HELOC's 500-tree model (issue 43), the root's budget bound
//! rose from 0.26, 0.71 and 0.97 to 0.47, 1.20 and 1.39 on the first three
//! declined applicants (`Σ z_t` −3.82 against the worst score −3.90 on #0).
//!
//! A straddled test walks each child twice (the straddling and the staying
//! class), so a node's walk may visit up to `4^depth` leaves per tree where
//! the plain walk visits `2^depth` (and the candidate's classes a sibling
//! once more); in practice the straddling classes hold only the options
//! within a half-width of a threshold, and empty classes and classes whose
//! reduced cost reaches the incumbent are not walked.

use super::{TreeSearch, least_cost};
use crate::model::TreeEnsemble;
use crate::model::trees::Test;

impl TreeSearch {
    /// The box-aware walk of tree `t` (root `root`): the candidate's own
    /// entry, then every consistent combination that beats it (see the
    /// module's documentation), into `leaves` and the feature-budget bound.
    pub(super) fn box_walk_tree(
        &mut self,
        ens: &TreeEnsemble,
        t: usize,
        root: usize,
        base: f64,
        limit: f64,
    ) {
        let floor = self.rob_value[t];
        self.leaves.push((base, floor, self.cand_leaf[t]));
        if !self.budget_off {
            self.budget.push_leaf(floor, std::iter::empty());
        }
        let cap = self.cap[t];
        if cap <= floor {
            return;
        }
        self.pending.clear();
        self.box_walk(ens, root, 0.0, base, limit, cap, floor, u32::MAX);
    }

    /// Walks node `k` of a tree under the restricted domains `cur`, extra
    /// cost `extra` over the node's least, the least leaf value met so far
    /// `value` (with the caps), the walk's pending subtrees in `pending`
    /// (the other sides of the straddles above), and the first leaf reached
    /// `first` (`u32::MAX` before it): each tested feature's domain split in
    /// four classes. A combination whose value falls to `floor` (the
    /// candidate's worst leaf) or whose reduced cost reaches `limit` is
    /// dropped.
    #[allow(clippy::too_many_arguments)]
    fn box_walk(
        &mut self,
        ens: &TreeEnsemble,
        k: usize,
        extra: f64,
        base: f64,
        limit: f64,
        value: f64,
        floor: f64,
        first: u32,
    ) {
        let node = ens.nodes()[k];
        if node.test == Test::Leaf {
            let value = value.min(node.value);
            if value <= floor {
                return;
            }
            let first = if first == u32::MAX { k as u32 } else { first };
            if let Some(next) = self.pending.pop() {
                self.box_walk(ens, next as usize, extra, base, limit, value, floor, first);
                self.pending.push(next);
                return;
            }
            self.leaves.push((base + extra, value, first));
            if !self.budget_off {
                // Per class of the feature-budget bound as in the plain walk:
                // every answer of this entry lies in one class. Written
                // straight into the budget's buffers, as the plain walk does
                // (only the positive extras are kept).
                for j in 0..self.path_features.len() {
                    let f = self.path_features[j];
                    let words = &self.cur[self.word_start[f]..self.word_start[f + 1]];
                    let e = least_cost(&self.cost[self.opt_start[f]..], words) - self.dom_min[f];
                    let by_class = self.class_extras(f, e);
                    self.budget.push_extra((f as u32, e, by_class));
                }
                self.budget.close_leaf(value);
            }
            return;
        }
        let f = node.feature as usize;
        let track = !self.budget_off;
        if track {
            if self.on_path[f] == 0 {
                self.path_features.push(f);
            }
            self.on_path[f] += 1;
        }
        let (w0, w1) = (self.word_start[f], self.word_start[f + 1]);
        let ms = self.mask_start[k];
        let old = self.min_cost(f, &self.cur[w0..w1]);
        let mark = self.undo.len();
        self.undo.extend_from_slice(&self.cur[w0..w1]);
        // (sent left, straddling): LL, LS, RS, RR.
        for (left, straddle) in [(true, false), (true, true), (false, true), (false, false)] {
            let mut any = false;
            for w in w0..w1 {
                let i = w - w0;
                let d = self.undo[mark + i];
                let m = self.masks[ms + i];
                let sent = if left { d & m } else { d & !m };
                let other = if left {
                    self.reach_r[ms + i]
                } else {
                    self.reach_l[ms + i]
                };
                let v = if straddle {
                    sent & other
                } else {
                    sent & !other
                };
                self.cur[w] = v;
                any |= v != 0;
            }
            if !any {
                continue;
            }
            let e = extra + (self.min_cost(f, &self.cur[w0..w1]) - old);
            if base + e >= limit {
                continue;
            }
            let (child, sibling) = if left {
                (node.left, node.right)
            } else {
                (node.right, node.left)
            };
            if e == 0.0 && straddle {
                // At no extra cost (the candidate's own classes): the class's
                // boxes meet both sides, so the sibling is walked too, once
                // this side's combination is complete.
                self.pending.push(sibling);
                self.box_walk(ens, child as usize, e, base, limit, value, floor, first);
                self.pending.pop();
                continue;
            }
            let mut c = value;
            if straddle {
                c = c.min(self.cap_of(ens, sibling as usize));
            }
            if e > 0.0 && !self.pending.is_empty() {
                // Leaving the candidate's classes: the pending siblings are
                // capped, not walked (their combinations would multiply).
                let pending = std::mem::take(&mut self.pending);
                for &p in &pending {
                    c = c.min(self.cap_of(ens, p as usize));
                }
                if c > floor {
                    self.box_walk(ens, child as usize, e, base, limit, c, floor, first);
                }
                self.pending = pending;
            } else if c > floor {
                self.box_walk(ens, child as usize, e, base, limit, c, floor, first);
            }
        }
        for w in w0..w1 {
            self.cur[w] = self.undo[mark + (w - w0)];
        }
        self.undo.truncate(mark);
        if track {
            self.on_path[f] -= 1;
            if self.on_path[f] == 0 {
                self.path_features.pop();
            }
        }
    }

    /// An upper bound on the worst leaf below node `k` over the box of any
    /// point of the domains `dom` ([`TreeSearch::worst_bound`]), or, with
    /// the forced-leaf caps of the tests, the least leaf that the box of
    /// every option meets ([`TreeSearch::forced_min`]).
    pub(super) fn cap_below(&mut self, ens: &TreeEnsemble, k: usize, dom: &[u64]) -> f64 {
        if self.forced_caps {
            self.forced_min(ens, k, dom)
        } else {
            self.worst_bound(ens, k, dom)
        }
    }

    /// An upper bound, over every point `x` of the domains `dom`, on the
    /// worst leaf below node `k` that `x`'s box meets:
    ///
    /// ```text
    /// U(leaf) = value,
    /// U(k) = min(U(left), U(right))  every option's box reaches both sides,
    ///        U(left)                 every option's box reaches the left,
    ///        U(right)                every option's box reaches the right,
    ///        max(U(left), U(right))  otherwise.
    /// ```
    ///
    /// By induction: a point whose box reaches only one side has that
    /// side's worst leaf, one whose box reaches both the least of the two,
    /// which is at most either; when every option's box reaches a side, the
    /// worst leaf is at most that side's. It is never above
    /// [`TreeSearch::forced_min`] (the least leaf that the box of every
    /// option meets: where no side is forced that drops the subtree, this
    /// takes the better of the two), so the caps it gives the box-aware walk
    /// are as tight or tighter; at the root of HELOC's 500-tree model the
    /// domains are wide and few tests are forced, where the forced-leaf cap
    /// of a subtree is mostly infinite (issue 43).
    pub(super) fn worst_bound(&self, ens: &TreeEnsemble, k: usize, dom: &[u64]) -> f64 {
        let node = ens.nodes()[k];
        if node.test == Test::Leaf {
            return node.value;
        }
        let f = node.feature as usize;
        let (w0, w1) = (self.word_start[f], self.word_start[f + 1]);
        let ms = self.mask_start[k];
        let forced = |m: &[u64]| (w0..w1).all(|w| dom[w] & !m[ms + (w - w0)] == 0);
        let (l, r) = (node.left as usize, node.right as usize);
        match (forced(&self.reach_l), forced(&self.reach_r)) {
            (true, true) => self
                .worst_bound(ens, l, dom)
                .min(self.worst_bound(ens, r, dom)),
            (true, false) => self.worst_bound(ens, l, dom),
            (false, true) => self.worst_bound(ens, r, dom),
            (false, false) => self
                .worst_bound(ens, l, dom)
                .max(self.worst_bound(ens, r, dom)),
        }
    }

    /// The least value among the leaves below node `k` that the box of every
    /// option of the domains `dom` meets: each test below `k` on the leaf's
    /// path is reached on the leaf's side by every option of its feature's
    /// domain; infinite when no leaf is. The caps before
    /// [`TreeSearch::worst_bound`], kept for the tests that compare the two.
    pub(super) fn forced_min(&mut self, ens: &TreeEnsemble, k: usize, dom: &[u64]) -> f64 {
        let nodes = ens.nodes();
        let mut least = f64::INFINITY;
        self.stack.clear();
        self.stack.push(k);
        while let Some(k) = self.stack.pop() {
            let node = &nodes[k];
            if node.test == Test::Leaf {
                least = least.min(node.value);
                continue;
            }
            let f = node.feature as usize;
            let (w0, w1) = (self.word_start[f], self.word_start[f + 1]);
            let ms = self.mask_start[k];
            let forced = |m: &[u64]| (w0..w1).all(|w| dom[w] & !m[ms + (w - w0)] == 0);
            if forced(&self.reach_l) {
                self.stack.push(node.left as usize);
            }
            if forced(&self.reach_r) {
                self.stack.push(node.right as usize);
            }
        }
        least
    }
}

impl TreeSearch {
    /// The cap of the subtree at node `k` under the walk's domains `cur`
    /// ([`TreeSearch::cap_below`]).
    fn cap_of(&mut self, ens: &TreeEnsemble, k: usize) -> f64 {
        let cur = std::mem::take(&mut self.cur);
        let c = self.cap_below(ens, k, &cur);
        self.cur = cur;
        c
    }

    /// Makes the caps the least leaf that the box of every option meets
    /// ([`TreeSearch::forced_min`], the caps before
    /// [`TreeSearch::worst_bound`]) or not (for the tests that compare them).
    #[cfg(test)]
    pub(crate) fn set_forced_caps(&mut self, on: bool) {
        self.forced_caps = on;
    }

    /// Turns the box-aware bound of robust advice on or off for the next
    /// solves; on by default. Off, the robust search bounds each tree by the
    /// plain leaves, capped by the least leaf the box of every point of the
    /// node meets (the bound before it; kept for the tests that compare
    /// the two).
    pub fn set_box_bound(&mut self, on: bool) {
        self.box_bound_off = !on;
    }
}
