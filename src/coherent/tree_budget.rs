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
//! in proportion to their extra costs, `s_f(ℓ) = g(ℓ)·e_f(ℓ) / Σ_f' e_f'(ℓ)`
//! (any split summing to `g` would do; this one charges a feature for the
//! gain its cost buys). Then
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
//! This is the tree-ensemble analogue of the separable solver's bound
//! (`coherent::separable`: an additive model's margin is a sum of per-feature
//! terms, bought greedily by gain per cost); Veritas (Devos, Meert & Davis
//! 2021) and OCEAN (Parmentier & Vidal 2021) bound tree ensembles tree by
//! tree, which is what this adds to.

/// A leaf's share of its gain for one feature: `(feature, tree, extra, share)`.
type Item = (u32, u32, f64, f64);

/// The feature-budget bound's buffers, reused across nodes (no allocation
/// once they have grown).
#[derive(Debug, Default)]
pub(super) struct FeatureBudget {
    /// The leaves of the tree being collected: value, and their extras
    /// `feats[at[j]..at[j + 1]]` (features with a positive extra only).
    value: Vec<f64>,
    at: Vec<usize>,
    feats: Vec<(u32, f64)>,
    /// `Σ_t z_t` over the trees ended so far.
    z_sum: f64,
    items: Vec<Item>,
    /// Per feature, the increments of `G_f`: `(feature, extra, increment)`.
    steps: Vec<(u32, f64, f64)>,
    /// A feature's envelope under construction: `(extra, G)` points.
    hull: Vec<(f64, f64)>,
    /// The envelopes' segments: `(slope, width)`.
    segments: Vec<(f64, f64)>,
}

impl FeatureBudget {
    /// Starts a node.
    pub fn clear(&mut self) {
        self.z_sum = 0.0;
        self.items.clear();
        self.begin_tree();
    }

    /// Starts a tree's leaves.
    pub fn begin_tree(&mut self) {
        self.value.clear();
        self.at.clear();
        self.at.push(0);
        self.feats.clear();
    }

    /// Adds a reachable leaf of the current tree: its value and its positive
    /// per-feature extra costs.
    pub fn push_leaf(&mut self, value: f64, extras: impl Iterator<Item = (u32, f64)>) {
        self.feats.extend(extras.filter(|&(_, e)| e > 0.0));
        self.value.push(value);
        self.at.push(self.feats.len());
    }

    /// Ends tree `t`: its zero-extra best value joins `Σ z_t`, each leaf's
    /// gain over it is shared among its path's features.
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
        for j in 0..self.value.len() {
            let gain = self.value[j] - z;
            let extras = &self.feats[self.at[j]..self.at[j + 1]];
            if gain <= 0.0 || extras.is_empty() {
                continue;
            }
            let total: f64 = extras.iter().map(|&(_, e)| e).sum();
            for &(f, e) in extras {
                self.items.push((f, t as u32, e, gain * e / total));
            }
        }
    }

    /// The least extra cost `Σ_f δ_f` of the LP relaxation for the margin to
    /// reach `need` (the search's `τ`, less its rounding allowance), given
    /// the base score; `None` when even every feature's largest gain cannot
    /// reach it (no answer of the node beats the incumbent).
    pub fn extra(&mut self, base_score: f64, need: f64) -> Option<f64> {
        let want = need - base_score - self.z_sum;
        if want <= 0.0 {
            return Some(0.0);
        }
        // Per (feature, tree): the staircase of the largest share within an
        // extra; its rises are G_f's increments.
        self.items.sort_unstable_by(|a, b| {
            (a.0, a.1)
                .cmp(&(b.0, b.1))
                .then(a.2.total_cmp(&b.2))
                .then(b.3.total_cmp(&a.3))
        });
        self.steps.clear();
        let mut j = 0;
        while j < self.items.len() {
            let (f, t) = (self.items[j].0, self.items[j].1);
            let mut top = 0.0;
            while j < self.items.len() && self.items[j].0 == f && self.items[j].1 == t {
                let (_, _, e, s) = self.items[j];
                if s > top {
                    self.steps.push((f, e, s - top));
                    top = s;
                }
                j += 1;
            }
        }
        self.steps
            .sort_unstable_by(|a, b| a.0.cmp(&b.0).then(a.1.total_cmp(&b.1)));
        // Per feature, the upper concave envelope of G_f from (0, 0), then
        // its segments.
        self.segments.clear();
        let mut total = 0.0;
        let mut j = 0;
        while j < self.steps.len() {
            let f = self.steps[j].0;
            self.hull.clear();
            self.hull.push((0.0, 0.0));
            let mut g = 0.0;
            while j < self.steps.len() && self.steps[j].0 == f {
                let e = self.steps[j].1;
                while j < self.steps.len() && self.steps[j].0 == f && self.steps[j].1 == e {
                    g += self.steps[j].2;
                    j += 1;
                }
                let p = (e, g);
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
                // A point at extra 0 (never pushed: extras are positive) or
                // with the same G as the last one adds nothing.
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
        for &(slope, width) in &self.segments {
            if left <= 0.0 {
                break;
            }
            let rise = slope * width;
            if rise >= left {
                spent += left / slope;
                left = 0.0;
            } else {
                spent += width;
                left -= rise;
            }
        }
        Some(spent)
    }
}

#[cfg(test)]
#[path = "tree_budget_tests.rs"]
mod tests;
