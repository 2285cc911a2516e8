//! A tighter lower bound for the tree search ([`super::tree_search`]): trees
//! merged into groups whose leaves must agree, as Veritas merges trees (Devos,
//! Meert & Davis 2021, "Versatile Verification of Tree Ensembles").
//!
//! # Why the per-tree bound is weak
//! The search's bound lets every tree pick, independently, its best leaf with
//! reduced cost `rc(ℓ) ≤ C`. Two trees may then take one feature two ways, or
//! each spend the whole budget `C` on a different feature: an answer that
//! moves several features, each helping a different set of trees, is charged
//! only its dearest move.
//!
//! # The merged bound
//! A *group* of trees has as its *combinations* the tuples of one reachable
//! leaf per tree whose paths agree: every feature's domain `D_f` restricted by
//! all the tuple's tests on `f` (its *box*) is non-empty. A combination's
//! reduced cost is computed once per feature,
//!
//! ```text
//! rc(ℓ₁…ℓ_k) = Σ_f min { cost(o) : o ∈ D_f, o takes the path of every ℓ_i },
//! ```
//!
//! and its value is the sum of its leaves' values. An answer in the node of
//! cost `C` reaches, in each group, a combination (its own leaves agree, being
//! one point) with `rc ≤ C`, since costs are separable and non-negative; so
//! `M(C) = base + Σ_groups max { value : rc ≤ C }` bounds its margin, and the
//! least `C` with `M(C) ≥ τ` is a lower bound, at least the per-tree one (a
//! group's staircase lies below the sum of its trees'). With every tree in one
//! group it would be exact; its size is what limits it.
//!
//! # Which trees to merge, and the caps
//! Lazily, where it tightens (as Veritas merges where the search needs it):
//! starting from one group per tree, the bound's *witnesses* (each group's
//! combination at the bound) are compared in pairs among the groups whose
//! witness costs the most; two witnesses that disagree on a feature, or whose
//! joint reduced cost exceeds the bound, mark a pair to merge, dearest first,
//! each group once per round. A few rounds, each followed by the bound again,
//! so groups grow to four trees, eight, …, under a cap on a group's
//! combinations ([`MAX_GROUP`]) and a per-node budget of combinations tried
//! ([`BUDGET`]), counted, so the bound is deterministic. Combinations whose
//! reduced cost reaches the incumbent's or whose value cannot reach `τ` even
//! with every other group at its best are dropped (the tree-wise pruning of
//! Devos et al. 2021, and the search's own propagation); a group left with no
//! combination proves that no answer in the node beats the incumbent.

use crate::model::trees::Node;

/// The running sum of a merge of staircases, in the order their steps are
/// taken: the per-tree bound's (`super::tree_search`), its reading at the
/// budget bound, and the merged groups' ([`MergedBound`]). Each group's
/// latest step replaces its earlier one in the sum; the bound is reached
/// once every group has a step and the sum reaches the need.
#[derive(Debug, Clone, Copy)]
pub(super) struct StepSum {
    /// Groups with no step yet.
    missing: usize,
    /// The base score plus every stepped group's latest value.
    sum: f64,
}

impl StepSum {
    /// `missing` groups without a step, the others' values summed (with the
    /// base score) in `sum`.
    pub(super) fn new(missing: usize, sum: f64) -> StepSum {
        StepSum { missing, sum }
    }

    /// Takes a step of value `value` of a group whose latest step was `old`
    /// (`-inf`: none yet); whether the sum now reaches `need`.
    pub(super) fn take(&mut self, old: f64, value: f64, need: f64) -> bool {
        if old == f64::NEG_INFINITY {
            self.missing -= 1;
            self.sum += value;
        } else {
            self.sum += value - old;
        }
        self.missing == 0 && self.sum >= need
    }
}

/// Merge rounds per node (each followed by the bound again).
const ROUNDS: usize = 4;

/// The groups whose witnesses are compared in pairs, dearest witness first.
const ACTIVE: usize = 48;

/// The most combinations a merged group keeps; a merge that would exceed it
/// is abandoned (its work still counts against the budget).
const MAX_GROUP: usize = 2048;

/// Pairs of combinations tried per node, over all merges (those whose value
/// can still reach `τ`); small, because every node pays it and the bound's
/// gain must outweigh it (tuned on HELOC's 500-tree models, BENCHMARKS.md).
const BUDGET: usize = 2_000;

/// What the bound reads of the search's node (borrowed from the search).
pub(super) struct Space<'a> {
    pub nodes: &'a [Node],
    /// Per node of the ensemble, its parent (`u32::MAX` at a root).
    pub parent: &'a [u32],
    /// Per inner node, where its left-going option mask starts in `masks`.
    pub mask_start: &'a [usize],
    pub masks: &'a [u64],
    /// Per feature, its options (`opt_start`) and domain words (`word_start`).
    pub opt_start: &'a [usize],
    pub word_start: &'a [usize],
    /// Option costs, per feature sorted (cheapest first).
    pub cost: &'a [f64],
    /// The node's domains.
    pub dom: &'a [u64],
    /// `Σ_f min cost(D_f)`: the reduced cost of restricting nothing.
    pub base: f64,
}

impl Space<'_> {
    fn min_cost(&self, f: usize, words: &[u64]) -> f64 {
        match words.iter().position(|&w| w != 0) {
            Some(k) => {
                let o = 64 * k + words[k].trailing_zeros() as usize;
                self.cost[self.opt_start[f] + o]
            }
            None => f64::INFINITY,
        }
    }

    fn width(&self, f: usize) -> usize {
        self.word_start[f + 1] - self.word_start[f]
    }
}

/// One feature of a combination's box: its words at `bits[at..]`, and its
/// extra cost `min cost(box_f) − min cost(D_f)`.
#[derive(Debug, Clone, Copy)]
struct Entry {
    f: u32,
    at: u32,
    extra: f64,
}

/// A combination: its reduced cost, value, and box `entries[at..at + len]`
/// (sorted by feature; only restricted features). A single leaf's box is
/// built when first needed (`len == u32::MAX` until then).
#[derive(Debug, Clone, Copy)]
struct Combo {
    rc: f64,
    value: f64,
    at: u32,
    len: u32,
    leaf: u32,
}

const UNBUILT: u32 = u32::MAX;

/// A group: its combinations `combos[start..end]`, sorted by rc.
#[derive(Debug, Clone, Copy)]
struct Group {
    start: usize,
    end: usize,
    max: f64,
    /// Its combination at the last bound (index into `combos`).
    witness: usize,
}

/// The merged bound's buffers, reused across nodes.
#[derive(Debug, Default)]
pub(super) struct MergedBound {
    combos: Vec<Combo>,
    entries: Vec<Entry>,
    bits: Vec<u64>,
    groups: Vec<Group>,
    next: Vec<Group>,
    events: Vec<(f64, u32, f64, u32)>,
    value: Vec<f64>,
    witness: Vec<usize>,
    scratch: Vec<(u32, u32)>,
    active: Vec<usize>,
    pairs: Vec<(f64, u32, u32)>,
    taken: Vec<bool>,
    /// Pairs of combinations tried at this node, against [`BUDGET`].
    tried: usize,
}

impl MergedBound {
    /// Starts a node: no trees yet.
    pub fn clear(&mut self) {
        self.combos.clear();
        self.entries.clear();
        self.bits.clear();
        self.groups.clear();
        self.tried = 0;
    }

    /// Adds a tree as its own group: its reachable leaves `(rc, value, leaf)`
    /// with rc below the incumbent, sorted by rc.
    pub fn push_tree(&mut self, leaves: &[(f64, f64, u32)]) {
        let start = self.combos.len();
        let mut max = f64::NEG_INFINITY;
        for &(rc, value, leaf) in leaves {
            max = max.max(value);
            self.combos.push(Combo {
                rc,
                value,
                at: 0,
                len: UNBUILT,
                leaf,
            });
        }
        self.groups.push(Group {
            start,
            end: self.combos.len(),
            max,
            witness: start,
        });
    }

    /// The merged bound of the node (see the module doc), at least `old`, or
    /// `None` when no answer in the node costs less than `limit`; `need` is
    /// the margin the bound tests for (the search's, less its rounding
    /// allowance).
    pub fn bound(
        &mut self,
        sp: &Space,
        base_score: f64,
        need: f64,
        limit: f64,
        old: f64,
    ) -> Option<f64> {
        let mut bound = old;
        for round in 0..ROUNDS {
            bound = self.sweep(base_score, need, limit)?.max(bound);
            if bound >= limit {
                return None;
            }
            if round + 1 == ROUNDS || self.tried >= BUDGET || !self.pick_pairs(sp, bound) {
                break;
            }
            // Merge the picked pairs; the others carry over.
            let total: f64 = base_score + self.groups.iter().map(|g| g.max).sum::<f64>();
            self.next.clear();
            self.taken.clear();
            self.taken.resize(self.groups.len(), false);
            for p in 0..self.pairs.len() {
                let (_, a, b) = self.pairs[p];
                let (a, b) = (a as usize, b as usize);
                let (ga, gb) = (self.groups[a], self.groups[b]);
                let floor = need - (total - ga.max - gb.max);
                self.taken[a] = true;
                self.taken[b] = true;
                match self.merge(sp, ga, gb, floor, limit) {
                    Merged::Group(g) => self.next.push(g),
                    Merged::Empty => return None,
                    Merged::TooLarge => {
                        self.next.push(ga);
                        self.next.push(gb);
                    }
                }
            }
            for (g, &t) in self.groups.iter().zip(&self.taken) {
                if !t {
                    self.next.push(*g);
                }
            }
            std::mem::swap(&mut self.groups, &mut self.next);
        }
        Some(bound)
    }

    /// The least `C` with `base + Σ_g max{value : rc ≤ C} ≥ need` over the
    /// groups' staircases, recording each group's witness; `None` if no `C`
    /// below `limit` reaches it.
    fn sweep(&mut self, base_score: f64, need: f64, limit: f64) -> Option<f64> {
        self.events.clear();
        for (g, gr) in self.groups.iter().enumerate() {
            let mut top = f64::NEG_INFINITY;
            for c in gr.start..gr.end {
                let v = self.combos[c].value;
                if v > top {
                    top = v;
                    self.events.push((self.combos[c].rc, g as u32, v, c as u32));
                }
            }
        }
        self.events
            .sort_unstable_by(|a, b| a.0.total_cmp(&b.0).then(a.1.cmp(&b.1)));
        let n = self.groups.len();
        self.value.clear();
        self.value.resize(n, f64::NEG_INFINITY);
        self.witness.clear();
        self.witness.resize(n, usize::MAX);
        let mut sum = StepSum::new(n, base_score);
        for &(rc, g, v, c) in &self.events {
            if rc >= limit {
                return None;
            }
            let g = g as usize;
            let reached = sum.take(self.value[g], v, need);
            self.value[g] = v;
            self.witness[g] = c as usize;
            if reached {
                for (gr, &w) in self.groups.iter_mut().zip(&self.witness) {
                    gr.witness = w;
                }
                return Some(rc);
            }
        }
        None
    }

    /// Chooses disjoint pairs of groups to merge: among the [`ACTIVE`] groups
    /// with the dearest witnesses, pairs whose witnesses disagree or together
    /// cost more than `bound`, dearest first. Whether any was chosen.
    fn pick_pairs(&mut self, sp: &Space, bound: f64) -> bool {
        self.active.clear();
        for (g, gr) in self.groups.iter().enumerate() {
            if self.combos[gr.witness].rc > sp.base {
                self.active.push(g);
            }
        }
        let groups = &self.groups;
        let combos = &self.combos;
        self.active.sort_by(|&a, &b| {
            combos[groups[b].witness]
                .rc
                .total_cmp(&combos[groups[a].witness].rc)
                .then(a.cmp(&b))
        });
        self.active.truncate(ACTIVE);
        for j in 0..self.active.len() {
            let w = self.groups[self.active[j]].witness;
            self.build(sp, w);
        }
        self.pairs.clear();
        for i in 0..self.active.len() {
            for j in i + 1..self.active.len() {
                let (a, b) = (self.active[i], self.active[j]);
                let (ca, cb) = (self.groups[a].witness, self.groups[b].witness);
                let joint = match self.join(sp, ca, cb, false) {
                    Some(extra) => sp.base + extra,
                    None => f64::INFINITY,
                };
                if joint > bound {
                    self.pairs.push((joint, a as u32, b as u32));
                }
            }
        }
        self.pairs
            .sort_by(|x, y| y.0.total_cmp(&x.0).then(x.1.cmp(&y.1)).then(x.2.cmp(&y.2)));
        self.taken.clear();
        self.taken.resize(self.groups.len(), false);
        let mut kept = 0;
        for p in 0..self.pairs.len() {
            let (_, a, b) = self.pairs[p];
            if self.taken[a as usize] || self.taken[b as usize] {
                continue;
            }
            self.taken[a as usize] = true;
            self.taken[b as usize] = true;
            self.pairs[kept] = self.pairs[p];
            kept += 1;
        }
        self.pairs.truncate(kept);
        kept > 0
    }

    /// Builds the box of single-leaf combination `c`, if not yet built: the
    /// node's domains restricted by every test on the leaf's path.
    fn build(&mut self, sp: &Space, c: usize) {
        if self.combos[c].len != UNBUILT {
            return;
        }
        self.scratch.clear();
        let mut child = self.combos[c].leaf;
        let mut k = sp.parent[child as usize];
        while k != u32::MAX {
            let node = &sp.nodes[k as usize];
            let f = node.feature as usize;
            let left = child == node.left;
            let (w0, width) = (sp.word_start[f], sp.width(f));
            let ms = sp.mask_start[k as usize];
            let at = match self.scratch.iter().find(|e| e.0 == f as u32) {
                Some(e) => e.1 as usize,
                None => {
                    let at = self.bits.len();
                    self.bits.extend_from_slice(&sp.dom[w0..w0 + width]);
                    self.scratch.push((f as u32, at as u32));
                    at
                }
            };
            for w in 0..width {
                let m = sp.masks[ms + w];
                self.bits[at + w] &= if left { m } else { !m };
            }
            child = k;
            k = sp.parent[k as usize];
        }
        self.scratch.sort_unstable();
        let start = self.entries.len();
        for &(f, at) in &self.scratch {
            let fu = f as usize;
            let (w0, width) = (sp.word_start[fu], sp.width(fu));
            let words = &self.bits[at as usize..at as usize + width];
            if words == &sp.dom[w0..w0 + width] {
                continue;
            }
            let extra = sp.min_cost(fu, words) - sp.min_cost(fu, &sp.dom[w0..w0 + width]);
            self.entries.push(Entry { f, at, extra });
        }
        // (Its rc stays the one the search's walk computed: the same sum.)
        let combo = &mut self.combos[c];
        combo.at = start as u32;
        combo.len = (self.entries.len() - start) as u32;
    }

    /// Joins the boxes of combinations `a` and `b` (built): the extra cost of
    /// the joint box, or `None` if they disagree on a feature. With `write`,
    /// the joint box is appended to `entries` (and new words to `bits`).
    fn join(&mut self, sp: &Space, a: usize, b: usize, write: bool) -> Option<f64> {
        let (ca, cb) = (self.combos[a], self.combos[b]);
        let (mut i, mut j) = (ca.at as usize, cb.at as usize);
        let (ie, je) = (i + ca.len as usize, j + cb.len as usize);
        let mark = (self.entries.len(), self.bits.len());
        let mut extra = 0.0;
        while i < ie || j < je {
            let fi = if i < ie { self.entries[i].f } else { u32::MAX };
            let fj = if j < je { self.entries[j].f } else { u32::MAX };
            let e = match fi.cmp(&fj) {
                std::cmp::Ordering::Less => {
                    i += 1;
                    self.entries[i - 1]
                }
                std::cmp::Ordering::Greater => {
                    j += 1;
                    self.entries[j - 1]
                }
                std::cmp::Ordering::Equal => {
                    let (ei, ej) = (self.entries[i], self.entries[j]);
                    i += 1;
                    j += 1;
                    let f = ei.f as usize;
                    let width = sp.width(f);
                    let (ai, aj) = (ei.at as usize, ej.at as usize);
                    let mut low = None;
                    for w in 0..width {
                        let v = self.bits[ai + w] & self.bits[aj + w];
                        if v != 0 && low.is_none() {
                            low = Some(64 * w + v.trailing_zeros() as usize);
                        }
                    }
                    let Some(o) = low else {
                        self.entries.truncate(mark.0);
                        self.bits.truncate(mark.1);
                        return None;
                    };
                    let w0 = sp.word_start[f];
                    let own =
                        sp.cost[sp.opt_start[f] + o] - sp.min_cost(f, &sp.dom[w0..w0 + width]);
                    let at = if write {
                        let at = self.bits.len();
                        for w in 0..width {
                            let v = self.bits[ai + w] & self.bits[aj + w];
                            self.bits.push(v);
                        }
                        at as u32
                    } else {
                        0
                    };
                    Entry {
                        f: ei.f,
                        at,
                        extra: own,
                    }
                }
            };
            extra += e.extra;
            if write {
                self.entries.push(e);
            }
        }
        Some(extra)
    }

    /// Merges groups `a` and `b`: their agreeing pairs of combinations with
    /// rc below `limit` and value at least `floor`.
    fn merge(&mut self, sp: &Space, a: Group, b: Group, floor: f64, limit: f64) -> Merged {
        for c in a.start..a.end {
            self.build(sp, c);
        }
        for c in b.start..b.end {
            self.build(sp, c);
        }
        let start = self.combos.len();
        let mut max = f64::NEG_INFINITY;
        for ca in a.start..a.end {
            let (ra, va) = (self.combos[ca].rc, self.combos[ca].value);
            if ra >= limit || va + b.max < floor {
                continue;
            }
            for cb in b.start..b.end {
                let (rb, vb) = (self.combos[cb].rc, self.combos[cb].value);
                let value = va + vb;
                if rb >= limit || value < floor {
                    continue;
                }
                self.tried += 1;
                if self.tried > BUDGET {
                    self.combos.truncate(start);
                    return Merged::TooLarge;
                }
                // Check first; write the joint box only when it is kept.
                let Some(extra) = self.join(sp, ca, cb, false) else {
                    continue;
                };
                let rc = sp.base + extra;
                if rc >= limit {
                    continue;
                }
                let at = self.entries.len();
                self.join(sp, ca, cb, true);
                if self.combos.len() - start >= MAX_GROUP {
                    self.combos.truncate(start);
                    return Merged::TooLarge;
                }
                max = max.max(value);
                self.combos.push(Combo {
                    rc,
                    value,
                    at: at as u32,
                    len: (self.entries.len() - at) as u32,
                    leaf: UNBUILT,
                });
            }
        }
        if self.combos.len() == start {
            return Merged::Empty;
        }
        self.combos[start..]
            .sort_by(|x, y| x.rc.total_cmp(&y.rc).then(y.value.total_cmp(&x.value)));
        Merged::Group(Group {
            start,
            end: self.combos.len(),
            max,
            witness: start,
        })
    }
}

/// What merging two groups gave.
enum Merged {
    Group(Group),
    /// No combination agrees within the limits: the node has no improving
    /// answer.
    Empty,
    /// The merged group would exceed [`MAX_GROUP`]; the two stay apart.
    TooLarge,
}

#[cfg(test)]
mod tests {
    //! The merged bound against brute force on small random ensembles, given
    //! directly as option masks: every feature's options (costs sorted), a
    //! node's random domains, trees whose tests send random option sets left.
    use super::*;
    use crate::model::trees::Test;
    use rand::{Rng, SeedableRng};
    use rand_xoshiro::Xoshiro256PlusPlus;

    struct Case {
        nodes: Vec<Node>,
        roots: Vec<u32>,
        parent: Vec<u32>,
        mask_start: Vec<usize>,
        masks: Vec<u64>,
        opt_start: Vec<usize>,
        word_start: Vec<usize>,
        cost: Vec<f64>,
        dom: Vec<u64>,
        base_score: f64,
    }

    fn grow(rng: &mut Xoshiro256PlusPlus, depth: usize, n: usize, nodes: &mut Vec<Node>) -> u32 {
        let k = nodes.len();
        nodes.push(Node::leaf(rng.random_range(-1.0..1.0)));
        if depth > 0 && rng.random_bool(0.8) {
            let left = grow(rng, depth - 1, n, nodes);
            let right = grow(rng, depth - 1, n, nodes);
            let node = &mut nodes[k];
            node.test = Test::AtMost;
            node.feature = rng.random_range(0..n) as u32;
            node.left = left;
            node.right = right;
        }
        k as u32
    }

    fn random_case(rng: &mut Xoshiro256PlusPlus) -> Case {
        let n = rng.random_range(2..=4);
        let (mut opt_start, mut word_start, mut cost) = (vec![0], vec![0], Vec::new());
        let mut dom = Vec::new();
        for f in 0..n {
            let k = rng.random_range(2..=5);
            let mut c: Vec<f64> = (0..k).map(|_| rng.random_range(0.0..1.0)).collect();
            c.sort_by(f64::total_cmp);
            cost.extend(c);
            opt_start.push(cost.len());
            word_start.push(f + 1);
            let mut d = 0u64;
            while d == 0 {
                d = rng.random_range(0..1u64 << k);
            }
            dom.push(d);
        }
        let mut nodes = Vec::new();
        let roots: Vec<u32> = (0..rng.random_range(2..=6))
            .map(|_| {
                let depth = rng.random_range(1..=3);
                grow(rng, depth, n, &mut nodes)
            })
            .collect();
        let mut parent = vec![u32::MAX; nodes.len()];
        let mut mask_start = vec![0; nodes.len()];
        let mut masks = Vec::new();
        for k in 0..nodes.len() {
            if nodes[k].test != Test::Leaf {
                parent[nodes[k].left as usize] = k as u32;
                parent[nodes[k].right as usize] = k as u32;
                let f = nodes[k].feature as usize;
                let width = opt_start[f + 1] - opt_start[f];
                mask_start[k] = masks.len();
                masks.push(rng.random_range(0..1u64 << width));
            }
        }
        Case {
            nodes,
            roots,
            parent,
            mask_start,
            masks,
            opt_start,
            word_start,
            cost,
            dom,
            base_score: rng.random_range(-1.0..1.0),
        }
    }

    impl Case {
        fn n(&self) -> usize {
            self.opt_start.len() - 1
        }

        fn space(&self) -> Space<'_> {
            let base: f64 = (0..self.n())
                .map(|f| self.cost[self.opt_start[f] + self.dom[f].trailing_zeros() as usize])
                .sum();
            Space {
                nodes: &self.nodes,
                parent: &self.parent,
                mask_start: &self.mask_start,
                masks: &self.masks,
                opt_start: &self.opt_start,
                word_start: &self.word_start,
                cost: &self.cost,
                dom: &self.dom,
                base,
            }
        }

        fn left(&self, k: usize, o: usize) -> bool {
            self.masks[self.mask_start[k]] >> o & 1 == 1
        }

        /// Every leaf of tree `r` reachable under the domains, with its rc
        /// (per feature the cheapest option of the domain that every test on
        /// the path sends the leaf's way), written out again.
        fn leaves(&self, r: usize) -> Vec<(f64, f64, u32)> {
            let mut out = Vec::new();
            for (leaf, node) in self.nodes.iter().enumerate() {
                if node.test != Test::Leaf {
                    continue;
                }
                let mut k = leaf;
                while self.parent[k] != u32::MAX {
                    k = self.parent[k] as usize;
                }
                if k != r {
                    continue;
                }
                let mut allowed = self.dom.clone();
                let (mut child, mut k) = (leaf, self.parent[leaf]);
                while k != u32::MAX {
                    let p = k as usize;
                    let f = self.nodes[p].feature as usize;
                    let goes_left = child == self.nodes[p].left as usize;
                    for o in 0..self.opt_start[f + 1] - self.opt_start[f] {
                        if self.left(p, o) != goes_left {
                            allowed[f] &= !(1 << o);
                        }
                    }
                    child = p;
                    k = self.parent[p];
                }
                if allowed.contains(&0) {
                    continue;
                }
                let rc: f64 = (0..self.n())
                    .map(|f| self.cost[self.opt_start[f] + allowed[f].trailing_zeros() as usize])
                    .sum();
                out.push((rc, node.value, leaf as u32));
            }
            out.sort_by(|a, b| a.0.total_cmp(&b.0).then(b.1.total_cmp(&a.1)));
            out
        }

        /// The least cost of an assignment in the domains reaching `need`.
        fn optimum(&self, need: f64) -> Option<f64> {
            let n = self.n();
            let mut opt = vec![0usize; n];
            let mut best: Option<f64> = None;
            loop {
                if (0..n).all(|f| self.dom[f] >> opt[f] & 1 == 1) {
                    let mut margin = self.base_score;
                    for &r in &self.roots {
                        let mut k = r as usize;
                        while self.nodes[k].test != Test::Leaf {
                            let o = opt[self.nodes[k].feature as usize];
                            k = if self.left(k, o) {
                                self.nodes[k].left
                            } else {
                                self.nodes[k].right
                            } as usize;
                        }
                        margin += self.nodes[k].value;
                    }
                    if margin >= need {
                        let c: f64 = (0..n).map(|f| self.cost[self.opt_start[f] + opt[f]]).sum();
                        best = Some(best.map_or(c, |b| b.min(c)));
                    }
                }
                let mut f = 0;
                loop {
                    if f == n {
                        return best;
                    }
                    opt[f] += 1;
                    if opt[f] < self.opt_start[f + 1] - self.opt_start[f] {
                        break;
                    }
                    opt[f] = 0;
                    f += 1;
                }
            }
        }

        /// The per-tree bound, by brute force over the leaves' rcs.
        fn old_bound(&self, need: f64) -> Option<f64> {
            let trees: Vec<Vec<(f64, f64, u32)>> = self
                .roots
                .iter()
                .map(|&r| self.leaves(r as usize))
                .collect();
            let mut cs: Vec<f64> = trees.iter().flatten().map(|l| l.0).collect();
            cs.sort_by(f64::total_cmp);
            cs.into_iter().find(|&c| {
                let mut m = self.base_score;
                for t in &trees {
                    match t.iter().filter(|l| l.0 <= c).map(|l| l.1).reduce(f64::max) {
                        Some(v) => m += v,
                        None => return false,
                    }
                }
                m >= need
            })
        }
    }

    #[test]
    fn merged_bound_is_admissible_and_at_least_the_per_tree_bound() {
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(2021);
        let mut mb = MergedBound::default();
        let (mut tighter, mut pruned, mut feasible) = (0, 0, 0);
        for case in 0..10_000 {
            let c = random_case(&mut rng);
            let need = c.base_score + rng.random_range(-0.5..2.0);
            let opt = c.optimum(need);
            let Some(old) = c.old_bound(need) else {
                assert!(
                    opt.is_none(),
                    "case {case}: the per-tree bound is a relaxation"
                );
                continue;
            };
            feasible += opt.is_some() as usize;
            // Without an incumbent, and with one at or above the optimum (the
            // search's limit), and one below it.
            let limits = [
                f64::INFINITY,
                opt.map_or(f64::INFINITY, |o| o + 1e-9),
                opt.map_or(1.0, |o| o * 0.9),
            ];
            for limit in limits {
                let sp = c.space();
                mb.clear();
                for &r in &c.roots {
                    let leaves: Vec<_> = c
                        .leaves(r as usize)
                        .into_iter()
                        .filter(|l| l.0 < limit)
                        .collect();
                    mb.push_tree(&leaves);
                }
                let got = if old >= limit {
                    None
                } else {
                    mb.bound(&sp, c.base_score, need, limit, old)
                };
                match (got, opt) {
                    (Some(b), Some(o)) => {
                        assert!(
                            b <= o + 1e-9,
                            "case {case}: bound {b} above the optimum {o}"
                        );
                        assert!(b >= old, "case {case}: {b} below the per-tree bound {old}");
                        tighter += (b > old + 1e-9) as usize;
                    }
                    (None, Some(o)) => {
                        assert!(o >= limit, "case {case}: pruned, yet {o} < {limit}");
                        pruned += (old < limit) as usize;
                    }
                    (Some(b), None) => assert!(b >= old),
                    (None, None) => pruned += (old < limit) as usize,
                }
            }
        }
        eprintln!("merged bound: {feasible} feasible, {tighter} tighter, {pruned} pruned");
        assert!(feasible >= 3000, "feasible cases: {feasible}");
        assert!(tighter >= 150, "cases where merging tightened: {tighter}");
        assert!(pruned >= 150, "cases merging pruned: {pruned}");
    }
}
