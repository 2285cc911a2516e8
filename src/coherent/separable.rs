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
//!
//! # Layout
//! This file is the branch and bound over menus; building each feature's menu
//! from the schema and the model is `separable/menu.rs`.

mod menu;

use super::Fix;
use crate::error::{Error, Result};
use crate::model::scorecard::{Compiled, Scorecard};
use crate::model::{LinearModel, TreeEnsemble};
use crate::schema::{FeatureKind, Schema};
use menu::{Pieces, linear_menu, piecewise_menu};

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
    /// Per feature, the cuts of a tree ensemble's thresholds over a box
    /// ([`Workspace::build_tree_cells_boxed`]), kept for their buffers; and
    /// with no box, kept for the next applicant of the same ensemble
    /// ([`super::trees::PlainCuts`]).
    tree_cuts: Vec<Vec<super::trees::Cut>>,
    plain_cuts: super::trees::PlainCuts,
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
        self.build_tree_cells_boxed(schema, ens, factual, fixes, &[])
    }

    /// [`Workspace::build_tree_cells`] for robust advice over a box of
    /// per-feature half-widths `half` (data units; empty = no box, see
    /// `coherent::tree_box`): each feature's cells are also cut where a
    /// point's box starts or stops reaching a side of a split
    /// (`trees::feature_cuts_boxed`), so that the cheapest point of each cell
    /// is as robust as any point of it.
    pub fn build_tree_cells_boxed(
        &mut self,
        schema: &Schema,
        ens: &TreeEnsemble,
        factual: &[f64],
        fixes: &[Fix],
        half: &[f64],
    ) -> Result<()> {
        let b = super::tree_box::TreeBox::reals(half);
        self.build_tree_cells_in_box(schema, ens, factual, fixes, b)
    }

    /// [`Workspace::build_tree_cells_boxed`] over the box `b` of either
    /// [`super::BoxKind`] (over reachable values the cells are cut where the
    /// landed ends of a point's box cross a split).
    pub fn build_tree_cells_in_box(
        &mut self,
        schema: &Schema,
        ens: &TreeEnsemble,
        factual: &[f64],
        fixes: &[Fix],
        b: super::tree_box::TreeBox,
    ) -> Result<()> {
        let half = b.half();
        if factual.len() != schema.n_features()
            || ens.inputs().len() != schema.n_features()
            || !(half.is_empty() || half.len() == schema.n_features())
        {
            return Err(Error::InvalidArgument(
                "model, schema, box and applicant row dimensions differ".into(),
            ));
        }
        self.clear();
        let mut cells: Vec<(f64, f64)> = Vec::new();
        let mut boxed_cuts = std::mem::take(&mut self.tree_cuts);
        let mut plain_cuts = std::mem::take(&mut self.plain_cuts);
        let all_cuts: &[Vec<super::trees::Cut>] = if half.iter().all(|&d| d == 0.0) {
            plain_cuts.of(ens)
        } else {
            super::trees::all_feature_cuts_boxed(ens, half, b.kind(), &mut boxed_cuts);
            &boxed_cuts
        };
        for i in 0..schema.n_features() {
            cells.clear();
            if schema.features[i].is_contiguous() {
                let cuts = &all_cuts[i];
                for k in 0..=cuts.len() {
                    let lo = if k == 0 { 0.0 } else { cuts[k - 1].high };
                    let hi = if k == cuts.len() { 1.0 } else { cuts[k].low };
                    cells.push((lo, hi));
                }
            }
            if let Err(e) = piecewise_menu(self, schema, Pieces::Cells(&cells), factual, i, fixes) {
                self.tree_cuts = boxed_cuts;
                self.plain_cuts = plain_cuts;
                return Err(e);
            }
            self.end_feature();
        }
        self.tree_cuts = boxed_cuts;
        self.plain_cuts = plain_cuts;
        self.factual_score = 0.0;
        Ok(())
    }

    /// Builds every feature's menu of *sample* endings for a ReLU network's
    /// first incumbent (`super::mlp_primal`): staying put, every special state
    /// and level the schema lets the applicant reach, and on the value range
    /// the reachable points nearest `k + 1` evenly spaced slots `p` from
    /// either side (the cheapest reachable point of `[p, 1]` and of `[0, p]`,
    /// as the tree cells are read, so that grids, directions and actionable
    /// bounds are the program's own). Options may repeat; the gains are 0.
    pub(crate) fn build_samples(
        &mut self,
        schema: &Schema,
        factual: &[f64],
        k: usize,
    ) -> Result<()> {
        if factual.len() != schema.n_features() || k == 0 {
            return Err(Error::InvalidArgument(
                "schema and applicant row dimensions differ".into(),
            ));
        }
        self.clear();
        let mut cells: Vec<(f64, f64)> = Vec::with_capacity(2 * k + 2);
        for i in 0..schema.n_features() {
            cells.clear();
            if schema.features[i].is_contiguous() {
                for s in 0..=k {
                    let p = s as f64 / k as f64;
                    cells.push((p, 1.0));
                    cells.push((0.0, p));
                }
            }
            piecewise_menu(self, schema, Pieces::Cells(&cells), factual, i, &[])?;
            self.end_feature();
        }
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
