//! An exact solver for the separable form of the coherent program (issue 14).
//!
//! For a linear (logistic) model, the program of [`program`](super) docs — seed
//! 000's eqs. (4)–(21), Russell 2019 — decomposes by feature: each feature ends in
//! exactly one *option* (stay put, a special state, a categorical level, or a
//! value in its actionable range, continuous or on an integer/step grid), the
//! cost is the sum of the features' costs ([`super::cost`]), and the decision is
//! one constraint on the sum of the features' gains in score:
//!
//! ```text
//! minimise Σ_i cost_i(o_i)   subject to   Σ_i gain_i(o_i) ≥ τ,
//! τ = logit(t) + margin − score(factual),
//! ```
//!
//! a multiple-choice knapsack (Sinha & Zoltners, "The multiple-choice knapsack
//! problem", Operations Research 27(3), 1979) whose items may be continuous or
//! integer runs. Each feature's options are a **menu** of [`MenuOption`]s: a
//! point (state, slot, gain, cost), optionally extended along a straight run
//! ([`Extension`]: a value range, continuous, or a grid of whole steps). A
//! points scorecard (Navas-Palencia 2021's bin-indicator program, here in
//! cfx's coherent form) plugs in the same way: one point option per reachable
//! bin, special state and level (a value bin's cheapest reachable point, its
//! cost, and its points less the factual's as gain), see
//! [`Workspace::build_scorecard`].
//!
//! # Algorithm
//! * Per feature, the lower convex hull of its options' (gain, cost) points
//!   (each run contributes both ends; a run is a straight line, so the points in
//!   between lie on it), from its cheapest point rightwards. The LP relaxation of
//!   the knapsack (Sinha & Zoltners 1979) takes every feature's cheapest point and
//!   then the hull edges of all features in increasing slope (cost per unit of
//!   gain) until the deficit is covered: at most one edge is taken in part.
//! * Branch and bound, depth first, on that relaxation: a node fixes some
//!   features to one option each (with a sub-range of a run's units). Fixed
//!   features take part in the relaxation with their own run only. If the edge
//!   taken in part belongs to a free feature, the node branches on that feature's
//!   options; if it is a fixed feature's grid run at a fractional number of
//!   steps `u`, the node branches on `≥ ⌈u⌉` and then `≤ ⌊u⌋` steps (a `u`
//!   within `1e-9` of a whole number is taken as that number, HiGHS's own
//!   integrality tolerance being coarser); a fixed feature's continuous run
//!   taken in part is a real point. A node whose relaxed optimum
//!   is a real point of every feature is solved; a node whose bound is no better
//!   than the incumbent (relative `1e-11`) is pruned.
//! * No recourse is proven by the root relaxation: the sum of every feature's
//!   largest gain falls short of `τ`.
//!
//! The answer is optimal within the pruning tolerance (`1e-11` relative), well
//! inside the `1e-9` relative the oracle tests demand against HiGHS.
//!
//! # Allocation
//! A [`Workspace`] owns every buffer; once it has seen a program of a given size,
//! [`Workspace::build_linear`], [`Workspace::build_scorecard`] and
//! [`Workspace::solve`] allocate nothing (the
//! counting-allocator test `tests/separable_no_alloc.rs` checks it). Building the
//! [`super::Counterfactual`] from the answer (decode, change list, texts)
//! allocates.

use super::Fix;
use super::program::{bin_slot_interval, raw_grid};
use crate::error::{Error, Result};
use crate::model::scorecard::{Compiled, Scorecard, ValueBins};
use crate::model::{LinearModel, TreeEnsemble};
use crate::schema::{Direction, FeatureKind, Schema};

/// Relative tolerance of the pruning test (a node is pruned when its bound is
/// not below the incumbent by more than this share of it).
pub const PRUNE_REL: f64 = 1e-11;

/// A run of further points of one option: up to `units` units, each moving the
/// slot by `d_slot` and adding `d_gain > 0` to the score and `d_cost ≥ 0` to
/// the cost. `whole` runs take whole units only (grid steps).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Extension {
    pub d_slot: f64,
    pub d_gain: f64,
    pub d_cost: f64,
    pub units: f64,
    pub whole: bool,
}

/// One way a feature can end: in `state` (see the schema module's states) with
/// its slot at `slot` (contiguous value state only), for `cost`, changing the
/// score by `gain`; optionally extended along a run.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct MenuOption {
    pub state: usize,
    pub slot: f64,
    pub gain: f64,
    pub cost: f64,
    pub extension: Option<Extension>,
}

impl MenuOption {
    /// (gain, cost, slot) after `units` units of the run.
    pub fn at(&self, units: f64) -> (f64, f64, f64) {
        match &self.extension {
            Some(x) if units != 0.0 => (
                self.gain + units * x.d_gain,
                self.cost + units * x.d_cost,
                self.slot + units * x.d_slot,
            ),
            _ => (self.gain, self.cost, self.slot),
        }
    }
}

/// The option a solution picks for one feature: the option's index in the
/// feature's menu and the units taken along its run (0 without one).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Pick {
    pub option: usize,
    pub units: f64,
}

/// How a solve ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SolveStatus {
    /// Proven optimal (relative tolerance `1e-11`); the picks are in
    /// [`Workspace::picks`].
    Optimal,
    /// Proven infeasible: even every feature's largest gain falls short.
    Infeasible,
    /// The branch and bound hit its node limit before proving optimality.
    NodeLimit,
}

/// The result of [`Workspace::solve`].
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Solution {
    pub status: SolveStatus,
    /// The optimal cost (NaN unless optimal).
    pub cost: f64,
    /// The total gain of the optimal picks.
    pub gain: f64,
    /// Branch-and-bound nodes visited.
    pub nodes: usize,
}

#[derive(Debug, Clone, Copy)]
struct Vertex {
    gain: f64,
    cost: f64,
    /// Index into the flat option list.
    option: usize,
    units: f64,
}

#[derive(Debug, Clone, Copy)]
enum EdgeKind {
    /// A hull edge of a free feature, ending at hull vertex `to`.
    Hull { to: usize, d_gain: f64, d_cost: f64 },
    /// The run of option `option` (flat index), for a feature fixed to it.
    Run { option: usize },
}

#[derive(Debug, Clone, Copy)]
struct Edge {
    feature: usize,
    slope: f64,
    kind: EdgeKind,
}

#[derive(Debug, Clone, Copy, PartialEq)]
enum Domain {
    Free,
    /// Fixed to one option (flat index), its run restricted to `[lo, hi]` units.
    Fixed {
        option: usize,
        lo: f64,
        hi: f64,
    },
}

#[derive(Debug, Clone, Copy)]
enum Relaxed {
    Infeasible,
    /// The relaxed optimum is a real point of every feature (in `pos`).
    Real,
    /// A free feature's hull edge is taken in part.
    FreeEdge {
        feature: usize,
        from: usize,
        to: usize,
    },
    /// A fixed feature's grid run is taken at `units`, not a whole number.
    FractionalSteps {
        feature: usize,
        units: f64,
    },
}

/// Every buffer of the separable solver, reusable across applicants.
#[derive(Debug, Clone, Default)]
pub struct Workspace {
    options: Vec<MenuOption>,
    /// Feature `i`'s options are `options[start[i]..start[i + 1]]`.
    start: Vec<usize>,
    /// Score contribution of each feature at the factual (for [`Workspace::factual_score`]).
    factual_score: f64,
    hull: Vec<Vertex>,
    hull_start: Vec<usize>,
    edges: Vec<Edge>,
    domain: Vec<Domain>,
    pos: Vec<Pick>,
    best: Vec<Pick>,
    scratch: Vec<Vertex>,
    incumbent: f64,
    nodes: usize,
    node_limit: usize,
}

impl Workspace {
    /// An empty workspace; buffers grow on first use and are kept.
    pub fn new() -> Workspace {
        Workspace::default()
    }

    /// Starts a new program (menus emptied).
    pub fn clear(&mut self) {
        self.options.clear();
        self.start.clear();
        self.start.push(0);
        self.factual_score = 0.0;
    }

    /// Adds an option to the feature being built.
    pub fn push_option(&mut self, o: MenuOption) {
        self.options.push(o);
    }

    /// Closes the menu of the feature being built.
    pub fn end_feature(&mut self) {
        self.start.push(self.options.len());
    }

    /// Number of features with a closed menu.
    pub fn n_features(&self) -> usize {
        self.start.len().saturating_sub(1)
    }

    /// Feature `i`'s menu.
    pub fn menu(&self, i: usize) -> &[MenuOption] {
        &self.options[self.start[i]..self.start[i + 1]]
    }

    /// The model score of the factual the menus were built for
    /// ([`Workspace::build_linear`]).
    pub fn factual_score(&self) -> f64 {
        self.factual_score
    }

    /// The picks of the last optimal solve, one per feature (indices into the
    /// feature's menu).
    pub fn picks(&self) -> &[Pick] {
        &self.best
    }

    /// Builds every feature's menu for a linear model and a coherent factual raw
    /// row, under the schema's actionability and Russell's fixes `fixes` (see
    /// the module docs and [`program`](super) docs: the options are exactly the
    /// program's feasible endings, less those no optimum can use).
    pub fn build_linear(
        &mut self,
        schema: &Schema,
        model: &LinearModel,
        factual: &[f64],
        fixes: &[Fix],
    ) -> Result<()> {
        if model.weights.len() != schema.encoded_dim() || factual.len() != schema.n_features() {
            return Err(Error::InvalidArgument(
                "model, schema and applicant row dimensions differ".into(),
            ));
        }
        self.clear();
        let mut score = model.bias;
        for i in 0..schema.n_features() {
            score += linear_menu(self, schema, model, factual, i, fixes)?;
            self.end_feature();
        }
        self.factual_score = score;
        Ok(())
    }

    /// Builds every feature's menu for a points scorecard and a coherent
    /// factual raw row, under the schema's actionability and Russell's fixes
    /// `fixes`: one point option per reachable special state, level and value
    /// bin (a bin's cheapest reachable point, see `piecewise_menu`). The
    /// factual score is the card's points total of the factual.
    pub fn build_scorecard(
        &mut self,
        schema: &Schema,
        card: &Scorecard,
        factual: &[f64],
        fixes: &[Fix],
    ) -> Result<()> {
        if factual.len() != schema.n_features() {
            return Err(Error::InvalidArgument(
                "schema and applicant row dimensions differ".into(),
            ));
        }
        let total = card.score_raw(schema, factual)?;
        self.clear();
        for i in 0..schema.n_features() {
            let compiled = card.compiled().iter().find(|c| match c {
                Compiled::Contiguous { feature, .. } | Compiled::Categorical { feature, .. } => {
                    *feature == i
                }
            });
            piecewise_menu(self, schema, Pieces::Scorecard(compiled), factual, i, fixes)?;
            self.end_feature();
        }
        self.factual_score = total;
        Ok(())
    }

    /// Builds every feature's menu for a tree ensemble and a coherent factual
    /// raw row, under the schema's actionability and Russell's fixes `fixes`:
    /// one point option per reachable special state, level and *cell* of the
    /// value range (the intervals the ensemble's split thresholds cut it into,
    /// `trees::feature_cuts`; on a cell every test on the feature goes
    /// one way, so its cheapest reachable point stands for all of it). Every
    /// option is kept: what an option gains depends on the other features, and
    /// the tree search ([`super::tree_search`]) reads it from the trees. The
    /// gains are 0 and the factual score is not set.
    pub fn build_tree_cells(
        &mut self,
        schema: &Schema,
        ens: &TreeEnsemble,
        factual: &[f64],
        fixes: &[Fix],
    ) -> Result<()> {
        if factual.len() != schema.n_features() || ens.inputs().len() != schema.n_features() {
            return Err(Error::InvalidArgument(
                "model, schema and applicant row dimensions differ".into(),
            ));
        }
        self.clear();
        let mut cells: Vec<(f64, f64)> = Vec::new();
        for i in 0..schema.n_features() {
            cells.clear();
            if schema.features[i].is_contiguous() {
                let cuts = super::trees::feature_cuts(ens, i);
                for k in 0..=cuts.len() {
                    let lo = if k == 0 { 0.0 } else { cuts[k - 1].high };
                    let hi = if k == cuts.len() { 1.0 } else { cuts[k].low };
                    cells.push((lo, hi));
                }
            }
            piecewise_menu(self, schema, Pieces::Cells(&cells), factual, i, fixes)?;
            self.end_feature();
        }
        self.factual_score = 0.0;
        Ok(())
    }

    /// Solves `min Σ cost s.t. Σ gain ≥ need` over the menus built.
    pub fn solve(&mut self, need: f64) -> Solution {
        self.solve_with_limit(need, 200_000)
    }

    /// As [`Workspace::solve`], with a limit on branch-and-bound nodes.
    pub fn solve_with_limit(&mut self, need: f64, node_limit: usize) -> Solution {
        let n = self.n_features();
        let infeasible = Solution {
            status: SolveStatus::Infeasible,
            cost: f64::NAN,
            gain: f64::NAN,
            nodes: 0,
        };
        if !need.is_finite() || (0..n).any(|i| self.start[i] == self.start[i + 1]) {
            return infeasible;
        }
        self.prepare();
        self.domain.clear();
        self.domain.resize(n, Domain::Free);
        self.pos.clear();
        self.pos.resize(
            n,
            Pick {
                option: 0,
                units: 0.0,
            },
        );
        self.best.clear();
        self.best.extend_from_slice(&self.pos);
        self.incumbent = f64::INFINITY;
        self.nodes = 0;
        self.node_limit = node_limit;
        let finished = self.branch(need);
        let nodes = self.nodes;
        if !finished {
            return Solution {
                status: SolveStatus::NodeLimit,
                cost: f64::NAN,
                gain: f64::NAN,
                nodes,
            };
        }
        if !self.incumbent.is_finite() {
            return Solution {
                nodes,
                ..infeasible
            };
        }
        // Picks as indices within each feature's menu.
        let mut gain = 0.0;
        let mut cost = 0.0;
        for i in 0..n {
            let p = self.best[i];
            let (g, c, _) = self.options[p.option].at(p.units);
            gain += g;
            cost += c;
            self.best[i].option = p.option - self.start[i];
        }
        Solution {
            status: SolveStatus::Optimal,
            cost,
            gain,
            nodes,
        }
    }

    /// Per feature, the lower convex hull of its option points from its cheapest
    /// point rightwards; then every hull edge and run, sorted by slope.
    fn prepare(&mut self) {
        let n = self.n_features();
        self.hull.clear();
        self.hull_start.clear();
        self.edges.clear();
        for i in 0..n {
            self.scratch.clear();
            for k in self.start[i]..self.start[i + 1] {
                let o = self.options[k];
                self.scratch.push(Vertex {
                    gain: o.gain,
                    cost: o.cost,
                    option: k,
                    units: 0.0,
                });
                if let Some(x) = o.extension {
                    if x.units > 0.0 && x.d_gain > 0.0 {
                        let (g, c, _) = o.at(x.units);
                        self.scratch.push(Vertex {
                            gain: g,
                            cost: c,
                            option: k,
                            units: x.units,
                        });
                        self.edges.push(Edge {
                            feature: i,
                            slope: x.d_cost / x.d_gain,
                            kind: EdgeKind::Run { option: k },
                        });
                    }
                }
            }
            // The cheapest point, the largest gain among equally cheap ones.
            let mut s = self.scratch[0];
            for v in &self.scratch {
                if v.cost < s.cost || (v.cost == s.cost && v.gain > s.gain) {
                    s = *v;
                }
            }
            self.scratch.retain(|v| v.gain > s.gain);
            self.scratch.sort_unstable_by(|a, b| {
                a.gain
                    .total_cmp(&b.gain)
                    .then(a.cost.total_cmp(&b.cost))
                    .then(a.option.cmp(&b.option))
            });
            let h0 = self.hull.len();
            self.hull_start.push(h0);
            self.hull.push(s);
            for k in 0..self.scratch.len() {
                let p = self.scratch[k];
                if p.gain <= self.hull[self.hull.len() - 1].gain {
                    continue; // same gain as the last vertex, at no lower cost
                }
                while self.hull.len() - h0 >= 2 {
                    let a = self.hull[self.hull.len() - 2];
                    let b = self.hull[self.hull.len() - 1];
                    let cross = (b.gain - a.gain) * (p.cost - a.cost)
                        - (b.cost - a.cost) * (p.gain - a.gain);
                    if cross <= 0.0 {
                        self.hull.pop();
                    } else {
                        break;
                    }
                }
                self.hull.push(p);
            }
            for k in h0 + 1..self.hull.len() {
                let (a, b) = (self.hull[k - 1], self.hull[k]);
                let (d_gain, d_cost) = (b.gain - a.gain, b.cost - a.cost);
                self.edges.push(Edge {
                    feature: i,
                    slope: d_cost / d_gain,
                    kind: EdgeKind::Hull {
                        to: k,
                        d_gain,
                        d_cost,
                    },
                });
            }
        }
        self.hull_start.push(self.hull.len());
        self.edges.sort_unstable_by(|a, b| {
            a.slope
                .total_cmp(&b.slope)
                .then(a.feature.cmp(&b.feature))
                .then(edge_order(&a.kind).cmp(&edge_order(&b.kind)))
        });
    }

    /// The LP relaxation at the current node: its value, and what kind of point
    /// its optimum is (the point itself is left in `pos`).
    fn relax(&mut self, need: f64) -> (f64, Relaxed) {
        let n = self.n_features();
        let mut gain = 0.0;
        let mut cost = 0.0;
        for i in 0..n {
            match self.domain[i] {
                Domain::Free => {
                    let v = self.hull[self.hull_start[i]];
                    gain += v.gain;
                    cost += v.cost;
                    self.pos[i] = Pick {
                        option: v.option,
                        units: v.units,
                    };
                }
                Domain::Fixed { option, lo, .. } => {
                    let (g, c, _) = self.options[option].at(lo);
                    gain += g;
                    cost += c;
                    self.pos[i] = Pick { option, units: lo };
                }
            }
        }
        let mut deficit = need - gain;
        if deficit <= 0.0 {
            return (cost, Relaxed::Real);
        }
        for k in 0..self.edges.len() {
            let e = self.edges[k];
            let i = e.feature;
            let (cap, d_cost) = match (e.kind, self.domain[i]) {
                (EdgeKind::Hull { d_gain, d_cost, .. }, Domain::Free) => (d_gain, d_cost),
                (EdgeKind::Run { option }, Domain::Fixed { option: o, lo, hi }) if o == option => {
                    match self.options[o].extension {
                        Some(x) => ((hi - lo) * x.d_gain, (hi - lo) * x.d_cost),
                        None => continue,
                    }
                }
                _ => continue,
            };
            if cap <= 0.0 {
                continue;
            }
            if cap >= deficit {
                let t = deficit / cap;
                cost += d_cost * t;
                let kind = match (e.kind, self.domain[i]) {
                    (EdgeKind::Hull { to, .. }, _) => {
                        if t >= 1.0 - 1e-12 {
                            let v = self.hull[to];
                            self.pos[i] = Pick {
                                option: v.option,
                                units: v.units,
                            };
                            Relaxed::Real
                        } else {
                            Relaxed::FreeEdge {
                                feature: i,
                                from: to - 1,
                                to,
                            }
                        }
                    }
                    (EdgeKind::Run { option }, Domain::Fixed { lo, hi, .. }) => {
                        let u = lo + t * (hi - lo);
                        let whole = self.options[option].extension.is_some_and(|x| x.whole);
                        let r = u.round();
                        if !whole {
                            self.pos[i].units = u;
                            Relaxed::Real
                        } else if (u - r).abs() <= 1e-9 {
                            self.pos[i].units = r.clamp(lo, hi);
                            Relaxed::Real
                        } else {
                            Relaxed::FractionalSteps {
                                feature: i,
                                units: u,
                            }
                        }
                    }
                    _ => Relaxed::Infeasible, // unreachable: runs only count when fixed
                };
                return (cost, kind);
            }
            cost += d_cost;
            deficit -= cap;
            match (e.kind, self.domain[i]) {
                (EdgeKind::Hull { to, .. }, _) => {
                    let v = self.hull[to];
                    self.pos[i] = Pick {
                        option: v.option,
                        units: v.units,
                    };
                }
                (_, Domain::Fixed { hi, .. }) => self.pos[i].units = hi,
                _ => {}
            }
        }
        (f64::INFINITY, Relaxed::Infeasible)
    }

    /// Depth-first branch and bound from the current node; false when the node
    /// limit stopped it.
    fn branch(&mut self, need: f64) -> bool {
        self.nodes += 1;
        if self.nodes > self.node_limit {
            return false;
        }
        let (bound, kind) = self.relax(need);
        if matches!(kind, Relaxed::Infeasible)
            || bound >= self.incumbent - PRUNE_REL * self.incumbent.abs()
        {
            return true;
        }
        match kind {
            Relaxed::Infeasible => true,
            Relaxed::Real => {
                let mut cost = 0.0;
                for p in &self.pos {
                    cost += self.options[p.option].at(p.units).1;
                }
                if cost < self.incumbent {
                    self.incumbent = cost;
                    self.best.copy_from_slice(&self.pos);
                }
                true
            }
            Relaxed::FreeEdge { feature, from, to } => {
                // The edge's two ends first (the likeliest optima), then the rest.
                let (a, b) = (self.hull[to].option, self.hull[from].option);
                let mut ok = self.fix_and_branch(need, feature, a);
                if ok && b != a {
                    ok = self.fix_and_branch(need, feature, b);
                }
                for k in self.start[feature]..self.start[feature + 1] {
                    if !ok {
                        break;
                    }
                    if k != a && k != b {
                        ok = self.fix_and_branch(need, feature, k);
                    }
                }
                self.domain[feature] = Domain::Free;
                ok
            }
            Relaxed::FractionalSteps { feature, units } => {
                let Domain::Fixed { option, lo, hi } = self.domain[feature] else {
                    return true;
                };
                self.domain[feature] = Domain::Fixed {
                    option,
                    lo: units.ceil(),
                    hi,
                };
                let mut ok = self.branch(need);
                if ok {
                    self.domain[feature] = Domain::Fixed {
                        option,
                        lo,
                        hi: units.floor(),
                    };
                    ok = self.branch(need);
                }
                self.domain[feature] = Domain::Fixed { option, lo, hi };
                ok
            }
        }
    }

    fn fix_and_branch(&mut self, need: f64, feature: usize, option: usize) -> bool {
        let units = self.options[option].extension.map_or(0.0, |x| x.units);
        self.domain[feature] = Domain::Fixed {
            option,
            lo: 0.0,
            hi: units,
        };
        self.branch(need)
    }

    /// Writes the picks of the last optimal solve into an encoded vector
    /// (`out`, length [`Schema::encoded_dim`]): indicators of the picked states,
    /// the picked slots, each special state's fixed slot value.
    pub fn write_encoded(&self, schema: &Schema, out: &mut [f64]) -> Result<()> {
        self.write_picks(schema, &self.best, out)
    }

    /// Writes `picks` (one per feature, into the menus built) into an encoded
    /// vector, as [`Workspace::write_encoded`] writes the last optimum.
    pub fn write_picks(&self, schema: &Schema, picks: &[Pick], out: &mut [f64]) -> Result<()> {
        if out.len() != schema.encoded_dim() || picks.len() != schema.n_features() {
            return Err(Error::InvalidArgument(
                "encoded output or picks do not match the schema".into(),
            ));
        }
        for (i, &p) in picks.iter().enumerate() {
            self.write_feature(schema, i, p, out)?;
        }
        Ok(())
    }

    /// Writes feature `i`'s pick into its columns of the encoded vector `out`
    /// (the other columns untouched).
    pub fn write_feature(&self, schema: &Schema, i: usize, p: Pick, out: &mut [f64]) -> Result<()> {
        let (Some(f), Some(o)) = (
            schema.features.get(i),
            self.menu_checked(i).and_then(|m| m.get(p.option)),
        ) else {
            return Err(Error::InvalidArgument(
                "a pick does not match the menus or the schema".into(),
            ));
        };
        let lay = schema.layout(i);
        if lay.start + lay.width > out.len() {
            return Err(Error::InvalidArgument(
                "encoded output does not match the schema".into(),
            ));
        }
        out[lay.start..lay.start + lay.width].fill(0.0);
        if let Some(e) = lay.indicator_of_state(o.state) {
            out[e] = 1.0;
        }
        if let (Some(v), FeatureKind::Contiguous { fixed_value, .. }) = (lay.value, &f.kind) {
            out[v] = if o.state == 0 {
                o.at(p.units).2.clamp(0.0, 1.0)
            } else {
                *fixed_value
            };
        }
        Ok(())
    }

    fn menu_checked(&self, i: usize) -> Option<&[MenuOption]> {
        (i + 1 < self.start.len()).then(|| self.menu(i))
    }
}

fn edge_order(k: &EdgeKind) -> usize {
    match *k {
        EdgeKind::Hull { to, .. } => to,
        EdgeKind::Run { option } => usize::MAX / 2 + option,
    }
}

/// Pushes feature `i`'s menu for a linear model and returns the feature's score
/// contribution at the factual.
///
/// The options mirror the program's feasible endings (`program.rs`):
/// * stay put (always offered unless a fix forbids it; for an in-range value
///   with a run, as the run's first point, so that no choice is offered twice
///   and the branch and bound never explores the same subtree twice);
/// * a special state or level `j` the transition rules allow: a point;
/// * the value range: from the factual value (in range) a run towards the
///   model's favourable end, within the actionable bounds and the direction
///   (whole grid steps on an integer/step feature); from outside the actionable
///   range, the nearest in-range point and a run on from it; from a special
///   state, the anchor (median slot clamped to the range) and a run on from it
///   (on a grid: the grid points either side of the anchor, the favourable one
///   starting the run). Moves against the model's weight cost more and gain less
///   than a point already offered, so they are left out.
fn linear_menu(
    ws: &mut Workspace,
    schema: &Schema,
    model: &LinearModel,
    factual: &[f64],
    i: usize,
    fixes: &[Fix],
) -> Result<f64> {
    let f = &schema.features[i];
    let lay = schema.layout(i);
    let mw = &model.weights;
    let s_f = f.state_of(factual[i])?;
    let w_own = schema.state_weight(i, s_f);
    let offers = Offer::new(schema, fixes, i, s_f);
    let frozen = offers.frozen;
    let offer = |s: usize, is_stay: bool| offers.allows(s, is_stay);
    match &f.kind {
        FeatureKind::Categorical { .. } => {
            let own = mw[lay.start + s_f];
            for j in 0..f.n_states() {
                let dir_ok = match f.index_direction() {
                    Direction::IncreaseOnly => j >= s_f,
                    Direction::DecreaseOnly => j <= s_f,
                    Direction::Any => true,
                };
                if dir_ok && offer(j, j == s_f) {
                    ws.push_option(MenuOption {
                        state: j,
                        slot: 0.0,
                        gain: mw[lay.start + j] - own,
                        cost: if j == s_f {
                            0.0
                        } else {
                            w_own + schema.state_weight(i, j)
                        },
                        extension: None,
                    });
                }
            }
            Ok(own)
        }
        FeatureKind::Contiguous {
            lower,
            upper,
            integer,
            step,
            fixed_value,
            ..
        } => {
            let a = mw[lay.start];
            let wv = schema.value_weight(i);
            let degenerate = upper <= lower;
            let (lo, hi) = schema.move_range(i, factual[i]).unwrap_or((*lower, *upper));
            let (lb, ub) = if degenerate {
                (0.0, 0.0)
            } else {
                (schema.value_to_slot(i, lo), schema.value_to_slot(i, hi))
            };
            let special = |j: usize| a * fixed_value + mw[lay.start + j];
            let (own, v) = if s_f == 0 {
                let v = if degenerate {
                    0.0
                } else {
                    schema.value_to_slot(i, factual[i])
                };
                (a * v, v)
            } else {
                (special(s_f), schema.anchor(i).clamp(lb, ub))
            };
            // Special states (and staying in the factual one).
            for j in 1..f.n_states() {
                if offer(j, j == s_f) {
                    ws.push_option(MenuOption {
                        state: j,
                        slot: 0.0,
                        gain: special(j) - own,
                        cost: if j == s_f {
                            0.0
                        } else {
                            w_own + schema.state_weight(i, j)
                        },
                        extension: None,
                    });
                }
            }
            let grid = if degenerate {
                None
            } else {
                raw_grid(&f.name, *lower, *integer, *step, lo, hi)?
            };
            let span = upper - lower;
            // A value-state option at slot `c` reached at cost `base + wv·|c − v|`,
            // with a run of `units` units of `d_slot` each (sign: direction).
            let value_option = |c: f64, base: f64, run: Option<(f64, f64, bool)>| {
                let extension = run.and_then(|(d_slot, units, whole)| {
                    let d_gain = a * d_slot;
                    (units > 0.0 && d_gain > 0.0).then_some(Extension {
                        d_slot,
                        d_gain,
                        d_cost: wv * d_slot.abs(),
                        units,
                        whole,
                    })
                });
                MenuOption {
                    state: 0,
                    slot: c,
                    gain: a * c - own,
                    cost: base + wv * (c - v).abs(),
                    extension,
                }
            };
            let outside = s_f == 0 && (v < lb - 1e-12 || v > ub + 1e-12);
            if s_f == 0 {
                let stay = value_option(v, 0.0, None);
                let movable = f.actionability.mutable && !frozen && !degenerate && offer(0, false);
                let up_ok = f.actionability.direction != Direction::DecreaseOnly;
                let down_ok = f.actionability.direction != Direction::IncreaseOnly;
                if !outside {
                    // Towards the favourable end, by whole steps on a grid. The run
                    // starts at the factual value, so its first point is staying
                    // put (offered once: a separate stay point would make the
                    // branch and bound explore the same choice twice).
                    let (d, room, ok) = if a > 0.0 {
                        (1.0, ub - v, up_ok)
                    } else {
                        (-1.0, v - lb, down_ok)
                    };
                    let run = (movable && a != 0.0 && ok && room > 0.0).then(|| match grid {
                        Some((_, g_raw, _)) => {
                            let unit = g_raw / span;
                            let k = (room / unit + 1e-9).floor();
                            value_option(v, 0.0, Some((d * unit, k, true)))
                        }
                        None => value_option(v, 0.0, Some((d, room, false))),
                    });
                    match run {
                        Some(opt) if opt.extension.is_some() => ws.push_option(opt),
                        _ if offer(0, true) => ws.push_option(stay),
                        _ => {}
                    }
                    return Ok(own);
                }
                if offer(0, true) {
                    ws.push_option(stay);
                }
                if !movable {
                    return Ok(own);
                }
                // Outside the actionable range: move into it (towards it only).
                let below = v < lb;
                if (below && !up_ok) || (!below && !down_ok) {
                    return Ok(own);
                }
                let d = if below { 1.0 } else { -1.0 };
                match grid {
                    Some((base_raw, g_raw, k_max)) if k_max >= 0 => {
                        let (b, g) = ((base_raw - lower) / span, g_raw / span);
                        let (first, run_dir) = if below {
                            (b, g)
                        } else {
                            (b + g * k_max as f64, -g)
                        };
                        let favourable = a * d > 0.0;
                        let run = favourable.then_some((run_dir, k_max as f64, true));
                        ws.push_option(value_option(first, 0.0, run));
                    }
                    Some(_) => {}
                    None => {
                        let first = if below { lb } else { ub };
                        let run = (a * d > 0.0).then_some((d, ub - lb, false));
                        ws.push_option(value_option(first, 0.0, run));
                    }
                }
                return Ok(own);
            }
            // From a special state into the value range: no direction applies.
            if !offer(0, false) {
                return Ok(own);
            }
            let d = if a > 0.0 { 1.0 } else { -1.0 };
            match grid {
                None => {
                    let room = if a > 0.0 { ub - v } else { v - lb };
                    let run = (a != 0.0).then_some((d, room, false));
                    ws.push_option(value_option(v, w_own, run));
                }
                Some((_, _, k_max)) if k_max < 0 => {}
                Some((base_raw, g_raw, k_max)) => {
                    let (b, g) = ((base_raw - lower) / span, g_raw / span);
                    let km = k_max as f64;
                    // Grid points either side of the anchor.
                    let k_up = ((v - b) / g - 1e-9).ceil().clamp(0.0, km);
                    let k_down = ((v - b) / g + 1e-9).floor().clamp(0.0, km);
                    let at = |k: f64| b + g * k;
                    if a > 0.0 {
                        ws.push_option(value_option(at(k_up), w_own, Some((g, km - k_up, true))));
                        if k_down < k_up {
                            ws.push_option(value_option(at(k_down), w_own, None));
                        }
                    } else if a < 0.0 {
                        ws.push_option(value_option(at(k_down), w_own, Some((-g, k_down, true))));
                        if k_up > k_down {
                            ws.push_option(value_option(at(k_up), w_own, None));
                        }
                    } else {
                        ws.push_option(value_option(at(k_down), w_own, None));
                        if k_up > k_down {
                            ws.push_option(value_option(at(k_up), w_own, None));
                        }
                    }
                }
            }
            Ok(own)
        }
    }
}

/// Which endings of feature `i` Russell's fixes (see [`Fix`]) and the schema's
/// transition rules allow; shared by the linear and the scorecard menus.
struct Offer<'a> {
    schema: &'a Schema,
    fixes: &'a [Fix],
    i: usize,
    s_f: usize,
    stay_only: bool,
    value_only: bool,
    frozen: bool,
}

impl<'a> Offer<'a> {
    fn new(schema: &'a Schema, fixes: &'a [Fix], i: usize, s_f: usize) -> Offer<'a> {
        let mut o = Offer {
            schema,
            fixes,
            i,
            s_f,
            stay_only: false,
            value_only: false,
            frozen: false,
        };
        for fix in fixes {
            match *fix {
                Fix::Stay { feature } if feature == i => o.stay_only = true,
                Fix::ValueRange { feature } if feature == i => o.value_only = true,
                Fix::Freeze { feature } if feature == i => o.frozen = true,
                _ => {}
            }
        }
        o
    }

    /// Whether an option ending in state `s` may be offered (`is_stay`: the
    /// factual itself).
    fn allows(&self, s: usize, is_stay: bool) -> bool {
        let forbidden = self.fixes.iter().any(|x| {
            *x == Fix::Forbid {
                feature: self.i,
                state: s,
            }
        });
        !forbidden
            && (!self.value_only || s == 0)
            && (!self.stay_only || is_stay)
            && (!self.frozen || is_stay || s != 0)
            && (is_stay || self.schema.transition_allowed(self.i, self.s_f, s))
    }
}

/// The slots a contiguous feature's value may move to (before a scorecard's
/// bins cut them), as the program's polytope has them (`program.rs`
/// `add_feature`).
#[derive(Debug, Clone, Copy)]
enum Reach {
    /// Any slot in `[lo, hi]` (a real-valued feature).
    Interval { lo: f64, hi: f64 },
    /// `v + unit·m` for whole `m ∈ [m_lo, m_hi]` (a factual on its grid, in range).
    Steps { unit: f64, m_lo: f64, m_hi: f64 },
    /// `b + g·k` for whole `k ∈ [0, k_max]` (from a special state, or from a
    /// value outside the actionable range, into the range's grid points).
    Grid { b: f64, g: f64, k_max: f64 },
}

/// Tolerance of the whole-number roundings of grid positions.
const GRID_TOL: f64 = 1e-9;

impl Reach {
    /// The point of `[lo, hi]` (a bin's slot interval, see [`bin_slot_interval`])
    /// the value can reach nearest the anchor `v`, if any.
    fn nearest_in(&self, v: f64, lo: f64, hi: f64) -> Option<f64> {
        let c = match *self {
            Reach::Interval { lo: a, hi: b } => {
                let (p, q) = (a.max(lo), b.min(hi));
                if p > q {
                    return None;
                }
                v.clamp(p, q)
            }
            Reach::Steps { unit, m_lo, m_hi } => {
                let p = m_lo.max(((lo - v) / unit - GRID_TOL).ceil());
                let q = m_hi.min(((hi - v) / unit + GRID_TOL).floor());
                if p > q {
                    return None;
                }
                v + unit * 0.0f64.clamp(p, q)
            }
            Reach::Grid { b, g, k_max } => {
                let p = ((lo - b) / g - GRID_TOL).ceil().max(0.0);
                let q = ((hi - b) / g + GRID_TOL).floor().min(k_max);
                if p > q {
                    return None;
                }
                let t = (v - b) / g;
                let (k1, k2) = (t.floor().clamp(p, q), t.ceil().clamp(p, q));
                let (c1, c2) = (b + g * k1, b + g * k2);
                if (c1 - v).abs() <= (c2 - v).abs() {
                    c1
                } else {
                    c2
                }
            }
        };
        // As the program reads its slot back (`Program::encoded`): within
        // [0, 1] and within the chosen bin.
        Some(c.clamp(0.0, 1.0).clamp(lo, hi))
    }
}

/// Where a piecewise-constant model's menu of one feature takes its pieces.
#[derive(Debug, Clone, Copy)]
enum Pieces<'a> {
    /// A scorecard's characteristic (`None`: the card does not score the
    /// feature, 0 points everywhere).
    Scorecard(Option<&'a Compiled>),
    /// A tree ensemble's cells of a contiguous feature's value range, as slot
    /// intervals (empty for a categorical feature). Every option is kept.
    Cells(&'a [(f64, f64)]),
}

/// Pushes feature `i`'s menu for a piecewise-constant model: a points
/// scorecard (`Pieces::Scorecard`) or a tree ensemble's cells
/// (`Pieces::Cells`).
///
/// The options are the program's feasible endings (`program.rs`
/// `build_scorecard`, `trees.rs`), one point per choice, since the model is
/// constant on a bin or cell:
/// * stay put (cost 0, gain 0), unless a fix forbids it;
/// * each special state or level `j` the transition rules, the direction (a
///   categorical's) and the fixes allow: its points less the factual's, for
///   the indicator weights `W_own + W_j`;
/// * each value bin or cell: the reachable point of it nearest the anchor — the
///   factual value, or the fitted median slot clamped to the actionable range
///   from a special state — within the actionable bounds, the direction and the
///   integer/step grid, an excluded edge kept off as [`bin_slot_interval`]
///   documents; cost `W_own·[from a special state] + W^c·|c − v|`.
///
/// For a scorecard, while staying put is offered, an option that gains nothing
/// is left out: it costs at least as much as staying and scores no more
/// (Russell's fixes never forbid staying put, except the reference code's rule
/// (b), under which every option is kept). For trees every option is kept but
/// the cell point that is the factual value itself (staying put already).
fn piecewise_menu(
    ws: &mut Workspace,
    schema: &Schema,
    pieces: Pieces<'_>,
    factual: &[f64],
    i: usize,
    fixes: &[Fix],
) -> Result<()> {
    let (compiled, cells) = match pieces {
        Pieces::Scorecard(c) => (c, None),
        Pieces::Cells(c) => (None, Some(c)),
    };
    let f = &schema.features[i];
    let s_f = f.state_of(factual[i])?;
    let offer = Offer::new(schema, fixes, i, s_f);
    let w_own = schema.state_weight(i, s_f);
    let move_cost = |j: usize| {
        if j == s_f {
            0.0
        } else {
            w_own + schema.state_weight(i, j)
        }
    };
    let (level_points, special_points, values): (
        Option<&[f64]>,
        Option<&[f64]>,
        Option<&ValueBins>,
    ) = match compiled {
        Some(Compiled::Categorical { level_points, .. }) => (Some(level_points), None, None),
        Some(Compiled::Contiguous {
            special_points,
            values,
            ..
        }) => (None, Some(special_points), Some(values)),
        None => (None, None, None),
    };
    // Points of a special state or level (not the value state).
    let state_points = |j: usize| {
        if f.is_contiguous() {
            special_points.map_or(0.0, |p| p[j - 1])
        } else {
            level_points.map_or(0.0, |p| p[j])
        }
    };
    let stay_ok = offer.allows(s_f, true);
    let keep_all = cells.is_some();
    let worth = |gain: f64| keep_all || !stay_ok || gain > 0.0;
    match &f.kind {
        FeatureKind::Categorical { .. } => {
            let own = state_points(s_f);
            if stay_ok {
                ws.push_option(MenuOption {
                    state: s_f,
                    slot: 0.0,
                    gain: 0.0,
                    cost: 0.0,
                    extension: None,
                });
            }
            for j in (0..f.n_states()).filter(|&j| j != s_f) {
                let dir_ok = match f.index_direction() {
                    Direction::IncreaseOnly => j > s_f,
                    Direction::DecreaseOnly => j < s_f,
                    Direction::Any => true,
                };
                let gain = state_points(j) - own;
                if dir_ok && offer.allows(j, false) && worth(gain) {
                    ws.push_option(MenuOption {
                        state: j,
                        slot: 0.0,
                        gain,
                        cost: move_cost(j),
                        extension: None,
                    });
                }
            }
            Ok(())
        }
        FeatureKind::Contiguous {
            lower,
            upper,
            integer,
            step,
            ..
        } => {
            let degenerate = upper <= lower;
            let (lo, hi) = schema.move_range(i, factual[i]).unwrap_or((*lower, *upper));
            let (lb, ub) = if degenerate {
                (0.0, 0.0)
            } else {
                (schema.value_to_slot(i, lo), schema.value_to_slot(i, hi))
            };
            let v = match (s_f, degenerate) {
                (0, true) => 0.0,
                (0, false) => schema.value_to_slot(i, factual[i]),
                _ => schema.anchor(i).clamp(lb, ub),
            };
            let own = match (s_f, values) {
                (0, Some(vb)) => vb.points[vb.of_raw(factual[i])],
                (0, None) => 0.0,
                _ => state_points(s_f),
            };
            if stay_ok {
                ws.push_option(MenuOption {
                    state: s_f,
                    slot: if s_f == 0 { v } else { 0.0 },
                    gain: 0.0,
                    cost: 0.0,
                    extension: None,
                });
            }
            for j in (1..f.n_states()).filter(|&j| j != s_f) {
                let gain = state_points(j) - own;
                if offer.allows(j, false) && worth(gain) {
                    ws.push_option(MenuOption {
                        state: j,
                        slot: 0.0,
                        gain,
                        cost: move_cost(j),
                        extension: None,
                    });
                }
            }
            // The value state: where the polytope lets the slot go.
            let a = &f.actionability;
            let movable = if s_f == 0 {
                a.mutable && !offer.frozen && !degenerate && offer.allows(0, false)
            } else {
                offer.allows(0, false)
            };
            if !movable {
                return Ok(());
            }
            let outside = s_f == 0 && (v < lb - 1e-12 || v > ub + 1e-12);
            let up_ok = s_f != 0 || a.direction != Direction::DecreaseOnly;
            let down_ok = s_f != 0 || a.direction != Direction::IncreaseOnly;
            if outside && !(if v < lb { up_ok } else { down_ok }) {
                return Ok(());
            }
            let grid = if degenerate {
                None
            } else {
                raw_grid(&f.name, *lower, *integer, *step, lo, hi)?
            };
            let span = upper - lower;
            let reach = match grid {
                None if s_f == 0 && !outside => Reach::Interval {
                    lo: if down_ok { lb.min(v) } else { v },
                    hi: if up_ok { ub.max(v) } else { v },
                },
                None => Reach::Interval { lo: lb, hi: ub },
                Some((_, g_raw, _)) if s_f == 0 && !outside => {
                    let unit = g_raw / span;
                    let steps = |room: f64| (room.max(0.0) / unit + 1e-9).floor();
                    Reach::Steps {
                        unit,
                        m_lo: if down_ok { -steps(v - lb) } else { 0.0 },
                        m_hi: if up_ok { steps(ub - v) } else { 0.0 },
                    }
                }
                Some((_, _, k_max)) if k_max < 0 => return Ok(()),
                Some((base_raw, g_raw, k_max)) => Reach::Grid {
                    b: (base_raw - lower) / span,
                    g: g_raw / span,
                    k_max: k_max as f64,
                },
            };
            let base = if s_f == 0 { 0.0 } else { w_own };
            let wv = schema.value_weight(i);
            let n_bins = match (cells, values) {
                (Some(c), _) => c.len(),
                (None, Some(vb)) => vb.points.len(),
                (None, None) => 1,
            };
            for k in 0..n_bins {
                let ((blo, bhi), points) = match (cells, values) {
                    (Some(c), _) => (c[k], 0.0),
                    (None, Some(vb)) => (bin_slot_interval(schema, i, vb, k), vb.points[k]),
                    (None, None) => ((0.0, 1.0), 0.0),
                };
                let gain = points - own;
                if !worth(gain) || blo > bhi {
                    continue;
                }
                if let Some(c) = reach.nearest_in(v, blo, bhi) {
                    if keep_all && stay_ok && s_f == 0 && c == v {
                        continue; // staying put, offered already
                    }
                    ws.push_option(MenuOption {
                        state: 0,
                        slot: c,
                        gain,
                        cost: base + wv * (c - v).abs(),
                        extension: None,
                    });
                }
            }
            Ok(())
        }
    }
}
