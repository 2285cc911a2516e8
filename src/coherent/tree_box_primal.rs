//! The primal heuristic of robust tree advice ([`super::tree_box`]): cheap
//! answers whose whole box is accepted, so that the robust search holds an
//! incumbent early. Without one, the search's incumbents came only from nodes
//! whose candidate happened to be accepted over its box, and on HELOC's
//! 500-tree XGBoost model it found none within 60 s for 19 of 20 applicants
//! (BENCHMARKS.md §14): no leaf left the bound's staircases by its reduced
//! cost, so no bound could reach an answer's cost.
//!
//! # Moves scored on the worst leaves
//! As [`super::tree_primal`] scores moves, but on each tree's *worst* leaf
//! over the box instead of the leaf the point reaches: one walk of a tree
//! that tests feature `f` scores every option of `f` at once — at a test of
//! `f` the option set splits into the options whose box reaches the left side
//! and those whose box reaches the right (a box may reach both, so the halves
//! overlap), at a test of another feature the walk follows every side that
//! feature's current option's box reaches; each option's worst leaf is the
//! least leaf its set arrives at.
//!
//! # The heuristic
//! From a start (the plain heuristic's answer, which is accepted at its point
//! and usually fails only at the edge of its box, or else every feature's
//! cheapest option of the domain): while the worst score falls short,
//! take the cheapest move that closes the whole shortfall if one exists, else
//! the move that gains the most worst-case margin per unit of cost (the
//! ratio greedy of knapsack heuristics, gains capped at the shortfall). Then
//! move each feature to the cheapest option of the domain that keeps the
//! worst score accepted, while one does. Every answer is checked with the
//! library's own sum ([`TreeEnsemble::sum_tree_values`]) of the worst leaves,
//! as the search checks its candidates, and every walk is counted so that the
//! caller bounds the work deterministically, never by time.

use crate::model::TreeEnsemble;
use crate::model::trees::Test;

/// What the heuristic reads of the robust search's menus (see
/// [`super::tree_search::TreeSearch::set_box`]): options per feature sorted
/// by cost, feature `f`'s being `opt_start[f]..opt_start[f + 1]`, its domain
/// words `word_start[f]..word_start[f + 1]`, and per inner tree node the words
/// of the options whose box reaches its left (`reach_l`) and its right
/// (`reach_r`) side, from `mask_start[k]`.
pub(super) struct BoxMenus<'a> {
    pub opt_start: &'a [usize],
    pub word_start: &'a [usize],
    pub cost: &'a [f64],
    pub mask_start: &'a [usize],
    pub reach_l: &'a [u64],
    pub reach_r: &'a [u64],
}

impl BoxMenus<'_> {
    fn n_features(&self) -> usize {
        self.opt_start.len() - 1
    }

    fn cost(&self, f: usize, o: usize) -> f64 {
        self.cost[self.opt_start[f] + o]
    }

    fn reaches(&self, k: usize, o: usize) -> (bool, bool) {
        let w = self.mask_start[k] + o / 64;
        let b = o % 64;
        (self.reach_l[w] >> b & 1 == 1, self.reach_r[w] >> b & 1 == 1)
    }
}

/// The heuristic's buffers, reusable across solves.
#[derive(Debug, Default)]
pub(super) struct BoxPrimal {
    /// Per feature, the trees that test it.
    trees_of: Vec<Vec<u32>>,
    /// The answer being built (sorted option indices, one per feature).
    opt: Vec<usize>,
    /// Per tree, its worst leaf value over the answer's box.
    worst: Vec<f64>,
    /// Per option of the feature being scored: its gain in the sum of the
    /// worst leaves, and its worst leaf in the tree being walked.
    gain: Vec<f64>,
    least: Vec<f64>,
    sets: Vec<u64>,
    stack: Vec<(usize, usize)>,
    /// Tree walks so far (the caller's budget counts them).
    pub walks: u64,
}

/// Whether option `o` is in the domain words `words`.
fn has(words: &[u64], o: usize) -> bool {
    words[o / 64] >> (o % 64) & 1 == 1
}

/// The options of the domain words `words`, in order.
fn options(words: &[u64]) -> impl Iterator<Item = usize> + '_ {
    words.iter().enumerate().flat_map(|(w, &bits)| {
        let mut b = bits;
        std::iter::from_fn(move || {
            if b == 0 {
                return None;
            }
            let i = b.trailing_zeros() as usize;
            b &= b - 1;
            Some(64 * w + i)
        })
    })
}

impl BoxPrimal {
    /// Records which trees test which of the `n` features of `ens`.
    pub fn prepare(&mut self, ens: &TreeEnsemble, n: usize) {
        let nodes = ens.nodes();
        self.trees_of.clear();
        self.trees_of.resize(n, Vec::new());
        let mut stack = Vec::new();
        for (t, &r) in ens.roots().iter().enumerate() {
            stack.clear();
            stack.push(r as usize);
            while let Some(k) = stack.pop() {
                let node = &nodes[k];
                if node.test == Test::Leaf {
                    continue;
                }
                let trees = &mut self.trees_of[node.feature as usize];
                if trees.last() != Some(&(t as u32)) {
                    trees.push(t as u32);
                }
                stack.push(node.left as usize);
                stack.push(node.right as usize);
            }
        }
    }

    /// The answer of the last successful run.
    pub fn answer(&self) -> &[usize] {
        &self.opt
    }

    /// Tree `t`'s worst leaf over the box of the answer `opt`.
    fn tree_worst(&mut self, m: &BoxMenus, ens: &TreeEnsemble, t: usize) -> f64 {
        self.walks += 1;
        let nodes = ens.nodes();
        let mut least = f64::INFINITY;
        self.stack.clear();
        self.stack.push((ens.roots()[t] as usize, 0));
        while let Some((k, _)) = self.stack.pop() {
            let node = &nodes[k];
            if node.test == Test::Leaf {
                least = least.min(node.value);
                continue;
            }
            let (l, r) = m.reaches(k, self.opt[node.feature as usize]);
            if l {
                self.stack.push((node.left as usize, 0));
            }
            if r {
                self.stack.push((node.right as usize, 0));
            }
        }
        least
    }

    /// Into `gain[o]` for every option `o` of feature `f`'s domain `dom_f`:
    /// the change in the sum of the worst leaves when `f` moves to `o`, all
    /// else as `opt`; one walk per tree that tests `f`.
    fn score(&mut self, m: &BoxMenus, ens: &TreeEnsemble, f: usize, dom_f: &[u64]) {
        let nodes = ens.nodes();
        let k_opts = m.opt_start[f + 1] - m.opt_start[f];
        let words = dom_f.len();
        self.gain.clear();
        self.gain.resize(k_opts, 0.0);
        for i in 0..self.trees_of[f].len() {
            let t = self.trees_of[f][i] as usize;
            self.walks += 1;
            self.least.clear();
            self.least.resize(k_opts, f64::INFINITY);
            self.sets.clear();
            self.sets.extend_from_slice(dom_f);
            self.stack.clear();
            self.stack.push((ens.roots()[t] as usize, 0));
            while let Some((k, at)) = self.stack.pop() {
                let node = &nodes[k];
                if node.test == Test::Leaf {
                    for o in options(&self.sets[at..at + words]) {
                        self.least[o] = self.least[o].min(node.value);
                    }
                    continue;
                }
                let g = node.feature as usize;
                if g != f {
                    let (l, r) = m.reaches(k, self.opt[g]);
                    if l {
                        self.stack.push((node.left as usize, at));
                    }
                    if r {
                        self.stack.push((node.right as usize, at));
                    }
                    continue;
                }
                let ms = m.mask_start[k];
                for (side, reach) in [(node.left, m.reach_l), (node.right, m.reach_r)] {
                    let new = self.sets.len();
                    let mut any = 0;
                    for w in 0..words {
                        let s = self.sets[at + w] & reach[ms + w];
                        any |= s;
                        self.sets.push(s);
                    }
                    if any == 0 {
                        self.sets.truncate(new);
                    } else {
                        self.stack.push((side as usize, new));
                    }
                }
            }
            let before = self.worst[t];
            for o in options(dom_f) {
                self.gain[o] += self.least[o] - before;
            }
        }
    }

    /// Moves feature `f` to option `o` and re-walks the trees that test it.
    fn apply(&mut self, m: &BoxMenus, ens: &TreeEnsemble, f: usize, o: usize) {
        self.opt[f] = o;
        for i in 0..self.trees_of[f].len() {
            let t = self.trees_of[f][i] as usize;
            self.worst[t] = self.tree_worst(m, ens, t);
        }
    }

    /// The worst score of the answer, summed as the library sums.
    fn total(&self, ens: &TreeEnsemble) -> f64 {
        ens.sum_tree_values(self.worst.iter().copied())
    }

    /// Runs the heuristic within the domains `dom` from `start` (options in
    /// `dom`, one per feature) or, if `None`, from each feature's cheapest
    /// option, until the answer's worst score reaches `need` or the walks
    /// pass `budget`. The answer's cost (its options in
    /// [`BoxPrimal::answer`]), or `None`.
    pub fn run(
        &mut self,
        m: &BoxMenus,
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
                Some(s) if has(d, s[f]) => s[f],
                _ => options(d).next()?,
            };
            self.opt.push(o);
        }
        self.worst.clear();
        for t in 0..ens.roots().len() {
            let w = self.tree_worst(m, ens, t);
            self.worst.push(w);
        }
        // The greedy, on the worst leaves.
        loop {
            let total = self.total(ens);
            if total >= need {
                break;
            }
            if self.walks > budget {
                return None;
            }
            let short = need - total;
            let mut closing: Option<(f64, usize, usize)> = None;
            let mut ratio: Option<(f64, usize, usize)> = None;
            for f in 0..n {
                let d = &dom[m.word_start[f]..m.word_start[f + 1]];
                if options(d).nth(1).is_none() {
                    continue;
                }
                self.score(m, ens, f, d);
                let here = m.cost(f, self.opt[f]);
                for o in options(d) {
                    let g = self.gain[o];
                    if o == self.opt[f] || g <= 0.0 {
                        continue;
                    }
                    let dc = m.cost(f, o) - here;
                    if g >= short {
                        if closing.is_none_or(|(c, _, _)| dc < c) {
                            closing = Some((dc, f, o));
                        }
                    } else {
                        let r = if dc > 0.0 { g / dc } else { f64::INFINITY };
                        if ratio.is_none_or(|(q, _, _)| r > q) {
                            ratio = Some((r, f, o));
                        }
                    }
                }
            }
            let Some((_, f, o)) = closing.or(ratio) else {
                return None; // no move gains: stuck
            };
            self.apply(m, ens, f, o);
        }
        // Polish: each feature to the cheapest option that keeps the answer
        // accepted over its box, while one does.
        let mut changed = true;
        while changed && self.walks <= budget {
            changed = false;
            for f in 0..n {
                let d = &dom[m.word_start[f]..m.word_start[f + 1]];
                let here = self.opt[f];
                if options(d).next() == Some(here) {
                    continue;
                }
                self.score(m, ens, f, d);
                let total = self.total(ens);
                let cheaper: Vec<usize> = options(d)
                    .take_while(|&o| o < here)
                    .filter(|&o| m.cost(f, o) < m.cost(f, here))
                    .filter(|&o| total + self.gain[o] >= need - 1e-9 * need.abs().max(1.0))
                    .collect();
                for o in cheaper {
                    self.apply(m, ens, f, o);
                    if self.total(ens) >= need {
                        changed = true;
                        break;
                    }
                    self.apply(m, ens, f, here);
                }
            }
        }
        if self.total(ens) < need {
            return None;
        }
        Some((0..n).map(|f| m.cost(f, self.opt[f])).sum())
    }
}
