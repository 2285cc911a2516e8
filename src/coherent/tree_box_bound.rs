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
//! The walk of the node's bound ([`TreeSearch::box_walk`]) splits each tested
//! feature's domain not in two (the options sent left, the others) but in
//! four: options sent left whose box stays left (`LL`), sent left whose box
//! also reaches right (`LS`, straddling), and symmetrically `RS` and `RR`.
//! Every answer `x` of the node falls in exactly one class at every test its
//! own path meets, so the walk reaches `ℓ_t(x)` once with domains that hold
//! `x` (each feature restricted to the classes of `x`'s options along the
//! path). At a straddling class the walk carries a *cap*: the least value
//! among the sibling subtree's leaves that the box of every option of the
//! class's domains meets — every test below the sibling is reached on the
//! leaf's side by every option of its feature's domain (`forced_min`). The box
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
//! A straddled test walks each child twice (the straddling and the staying
//! class), so a node's walk may visit up to `4^depth` leaves per tree where the
//! plain walk visits `2^depth`; in practice the straddling classes hold only
//! the options within a half-width of a threshold, and empty classes and
//! classes whose reduced cost reaches the incumbent are not walked.

use super::{TreeSearch, least_cost};
use crate::model::TreeEnsemble;
use crate::model::trees::Test;

impl TreeSearch {
    /// The robust counterpart of the plain walk's `Visit::Collect`: walks
    /// the leaves below node `k` reachable under the restricted domains
    /// `cur` whose reduced cost (`base + extra`) stays below `limit`, each
    /// tested feature's domain split in four classes (see the module's
    /// documentation), and pushes each leaf with its value capped by `cap`
    /// (the least of the caps of the straddles above it) into `leaves` and,
    /// unless it is off, the feature-budget bound.
    pub(super) fn box_walk(
        &mut self,
        ens: &TreeEnsemble,
        k: usize,
        extra: f64,
        base: f64,
        limit: f64,
        cap: f64,
    ) {
        let node = ens.nodes()[k];
        if node.test == Test::Leaf {
            let value = node.value.min(cap);
            self.leaves.push((base + extra, value, k as u32));
            if !self.budget_off {
                // Per class of the feature-budget bound as in the plain walk:
                // every answer of this entry lies in one class.
                let mut budget = std::mem::take(&mut self.budget);
                budget.push_leaf(
                    value,
                    self.path_features.iter().map(|&f| {
                        let words = &self.cur[self.word_start[f]..self.word_start[f + 1]];
                        let e =
                            least_cost(&self.cost[self.opt_start[f]..], words) - self.dom_min[f];
                        (f as u32, e, self.class_extras(f, e))
                    }),
                );
                self.budget = budget;
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
            let c = if straddle {
                cap.min(self.forced_min(ens, sibling as usize))
            } else {
                cap
            };
            self.box_walk(ens, child as usize, e, base, limit, c);
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

    /// The least value among the leaves below node `k` that the box of every
    /// option of the domains `cur` meets: each test below `k` on the leaf's
    /// path is reached on the leaf's side by every option of its feature's
    /// domain (as `caps` does for the whole tree); infinite when no leaf is.
    fn forced_min(&mut self, ens: &TreeEnsemble, k: usize) -> f64 {
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
            let cur = &self.cur;
            let forced = |m: &[u64]| (w0..w1).all(|w| cur[w] & !m[ms + (w - w0)] == 0);
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
    /// Turns the box-aware bound of robust advice on or off for the next
    /// solves; on by default. Off, the robust search bounds each tree by the
    /// plain leaves, capped by the least leaf the box of every point of the
    /// node meets (the bound before it; kept for the tests that compare
    /// the two).
    pub fn set_box_bound(&mut self, on: bool) {
        self.box_bound_off = !on;
    }
}
