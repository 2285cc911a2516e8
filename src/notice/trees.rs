//! Exact TreeSHAP for tree ensembles, over the schema's features (a
//! categorical feature is one player, whichever columns the library split on).
//!
//! * Path-dependent (Lundberg, Erion & Lee, "Consistent individualized feature
//!   attribution for tree ensembles", arXiv 1802.03888, Algorithm 2): the
//!   value of a feature subset `S` is the expected score when the features
//!   outside `S` follow the training data down the tree, branch weights being
//!   the nodes' covers. This is what XGBoost's `pred_contribs` and LightGBM's
//!   `pred_contrib` compute; the bias is `base score + Σ_trees Σ_leaves
//!   value·cover/root cover`.
//! * Interventional (Lundberg et al., "From local explanations to global
//!   understanding with explainable AI for trees", Nature Machine Intelligence
//!   2, 2020, Methods): the value of `S` is the mean over the reference rows
//!   `z` of `f(x_S, z_{N∖S})`, and its Shapley values are the mean of each
//!   row's Baseline Shapley values. For one tree and one `z` those are exact
//!   in one walk: a leaf reachable by a hybrid of `x` and `z` needs the
//!   features of a set `A` to come from `x` (only `x` goes this way at one of
//!   their splits) and those of a set `B` from `z`; it is reached exactly by
//!   the subsets `S ⊇ A` with `S ∩ B = ∅`, so (for `A ∩ B = ∅`) its value `v`
//!   gives each `i ∈ A` the weight `(|A|−1)!|B|!/(|A|+|B|)!·v` and takes from
//!   each `j ∈ B` the weight `|A|!(|B|−1)!/(|A|+|B|)!·v`.
//!
//! Both split the score, the sum of the leaves: the margin (log-odds) of a
//! boosted model — probabilities are not additive (shap issues #624, #963) —
//! or a random forest's probability itself, its averaged votes being a sum of
//! leaves (`Output::Probability`): its contributions are in probability
//! points.

use super::{Attribution, Method, Reference};
use crate::error::{Error, Result};
use crate::model::TreeEnsemble;
use crate::model::trees::{Node, Test};

/// What the trees see of each feature of the encoded row (value, code, NaN
/// or level index).
fn inputs(ens: &TreeEnsemble, x: &[f64]) -> Vec<f64> {
    (0..ens.inputs().len())
        .map(|f| ens.encoded_input(f, x))
        .collect()
}

/// The f64 margin from the trees' inputs (the sum TreeSHAP's values add up to).
fn margin(ens: &TreeEnsemble, seen: &[f64]) -> f64 {
    let nodes = ens.nodes();
    let mut m = ens.base_score();
    for &r in ens.roots() {
        let mut k = r as usize;
        while nodes[k].test != Test::Leaf {
            let n = &nodes[k];
            k = if ens.goes_left(n, seen[n.feature as usize]) {
                n.left
            } else {
                n.right
            } as usize;
        }
        m += nodes[k].value;
    }
    m
}

// ---- path-dependent ----------------------------------------------------

#[derive(Clone, Copy)]
struct PathElement {
    /// The feature (usize::MAX for the root's placeholder).
    feature: usize,
    zero: f64,
    one: f64,
    weight: f64,
}

/// EXTEND of Algorithm 2: the path grows by a feature that is kept with
/// fraction `one` and dropped with fraction `zero`.
fn extend(path: &mut Vec<PathElement>, zero: f64, one: f64, feature: usize) {
    let l = path.len();
    path.push(PathElement {
        feature,
        zero,
        one,
        weight: if l == 0 { 1.0 } else { 0.0 },
    });
    for i in (0..l).rev() {
        path[i + 1].weight += one * path[i].weight * (i + 1) as f64 / (l + 1) as f64;
        path[i].weight = zero * path[i].weight * (l - i) as f64 / (l + 1) as f64;
    }
}

/// UNWIND of Algorithm 2: undoes the extension by element `i`.
fn unwind(path: &mut Vec<PathElement>, i: usize) {
    let l = path.len();
    let (one, zero) = (path[i].one, path[i].zero);
    let mut n = path[l - 1].weight;
    for j in (0..l - 1).rev() {
        if one != 0.0 {
            let t = path[j].weight;
            path[j].weight = n * l as f64 / ((j + 1) as f64 * one);
            n = t - path[j].weight * zero * (l - 1 - j) as f64 / l as f64;
        } else {
            path[j].weight = path[j].weight * l as f64 / (zero * (l - 1 - j) as f64);
        }
    }
    for j in i..l - 1 {
        path[j].feature = path[j + 1].feature;
        path[j].zero = path[j + 1].zero;
        path[j].one = path[j + 1].one;
    }
    path.pop();
}

/// The sum of the weights [`unwind`] would leave after removing element `i`,
/// computed without changing the path (the same recurrences).
fn unwound_sum(path: &[PathElement], i: usize) -> f64 {
    let l = path.len();
    let (one, zero) = (path[i].one, path[i].zero);
    let mut total = 0.0;
    if one != 0.0 {
        let mut n = path[l - 1].weight;
        for j in (0..l - 1).rev() {
            let w = n * l as f64 / ((j + 1) as f64 * one);
            total += w;
            n = path[j].weight - w * zero * (l - 1 - j) as f64 / l as f64;
        }
    } else {
        for j in (0..l - 1).rev() {
            total += path[j].weight * l as f64 / (zero * (l - 1 - j) as f64);
        }
    }
    total
}

struct PathWalk<'a> {
    ens: &'a TreeEnsemble,
    nodes: &'a [Node],
    covers: &'a [f64],
    seen: &'a [f64],
    phi: &'a mut [f64],
    /// The path of each depth of the walk (reused: no allocation per node).
    pool: Vec<Vec<PathElement>>,
}

impl PathWalk<'_> {
    /// RECURSE of Algorithm 2 at node `k`, whose path (before extending by
    /// the split that led here) is `pool[depth]`.
    fn recurse(&mut self, k: usize, depth: usize, zero: f64, one: f64, f: usize) {
        if self.pool.len() < depth + 2 {
            self.pool.resize(depth + 2, Vec::new());
        }
        extend(&mut self.pool[depth], zero, one, f);
        let node = self.nodes[k];
        if node.test == Test::Leaf {
            let path = &self.pool[depth];
            for i in 1..path.len() {
                let w = unwound_sum(path, i);
                self.phi[path[i].feature] += w * (path[i].one - path[i].zero) * node.value;
            }
            return;
        }
        let feature = node.feature as usize;
        let left = self.ens.goes_left(&node, self.seen[feature]);
        let (hot, cold) = if left {
            (node.left, node.right)
        } else {
            (node.right, node.left)
        };
        let (hot, cold) = (hot as usize, cold as usize);
        let (mut iz, mut io) = (1.0, 1.0);
        let path = &mut self.pool[depth];
        if let Some(p) = (1..path.len()).find(|&p| path[p].feature == feature) {
            iz = path[p].zero;
            io = path[p].one;
            unwind(path, p);
        }
        let cover = self.covers[k];
        for (child, one) in [(hot, io), (cold, 0.0)] {
            // A node no training row reached (cover 0: CatBoost's full
            // oblivious trees have them) holds only leaves of value 0
            // (`with_covers` checks it): it adds nothing, and the fractions
            // below it would be 0/0. CatBoost's ShapValues skip it the same
            // way (`CalcInternalShapValuesForLeafRecursive`).
            if self.covers[child] == 0.0 {
                continue;
            }
            let (a, b) = self.pool.split_at_mut(depth + 1);
            b[0].clear();
            b[0].extend_from_slice(&a[depth]);
            self.recurse(
                child,
                depth + 1,
                iz * self.covers[child] / cover,
                one,
                feature,
            );
        }
    }
}

/// Path-dependent TreeSHAP (see the module docs); needs the covers.
pub(super) fn path_dependent(ens: &TreeEnsemble, x: &[f64]) -> Result<Attribution> {
    let covers = ens.covers().ok_or_else(|| {
        Error::InvalidArgument(
            "path-dependent TreeSHAP weighs branches by the training covers, and this tree \
             ensemble has none (built by hand, or saved by a cfx before covers were kept: \
             import the library's file again); use the interventional TreeSHAP"
                .into(),
        )
    })?;
    let seen = inputs(ens, x);
    let mut phi = vec![0.0; ens.inputs().len()];
    let nodes = ens.nodes();
    let mut bias = ens.base_score();
    for &r in ens.roots() {
        let r = r as usize;
        bias += expected(nodes, covers, r);
        let mut walk = PathWalk {
            ens,
            nodes,
            covers,
            seen: &seen,
            phi: &mut phi,
            pool: vec![Vec::new()],
        };
        walk.recurse(r, 0, 1.0, 1.0, usize::MAX);
    }
    Ok(Attribution {
        method: Method::TreeShapPathDependent,
        score: margin(ens, &seen),
        base_value: bias,
        contributions: phi,
        codes: None,
        uses_reference: false,
    })
}

/// The cover-weighted mean leaf value of the tree under node `k`.
fn expected(nodes: &[Node], covers: &[f64], k: usize) -> f64 {
    let n = nodes[k];
    if n.test == Test::Leaf {
        return n.value;
    }
    let part = |c: usize| {
        if covers[c] == 0.0 {
            0.0 // no row reached it, and its leaves are 0 (`with_covers`)
        } else {
            covers[c] * expected(nodes, covers, c)
        }
    };
    (part(n.left as usize) + part(n.right as usize)) / covers[k]
}

// ---- interventional ----------------------------------------------------

struct HybridWalk<'a> {
    ens: &'a TreeEnsemble,
    nodes: &'a [Node],
    x: &'a [f64],
    z: &'a [f64],
    /// `coef[a][b] = a!·b!/(a+b+1)!`, the Shapley weight of a subset of size
    /// `a` beside `b` others and the player.
    coef: &'a [Vec<f64>],
    /// The features fixed so far and whether each comes from `x`.
    fixed: Vec<(usize, bool)>,
    phi: &'a mut [f64],
}

impl HybridWalk<'_> {
    fn walk(&mut self, k: usize) {
        let node = self.nodes[k];
        if node.test == Test::Leaf {
            let a = self.fixed.iter().filter(|e| e.1).count();
            let b = self.fixed.len() - a;
            let v = node.value;
            for &(f, from_x) in &self.fixed {
                if from_x {
                    self.phi[f] += self.coef[a - 1][b] * v;
                } else {
                    self.phi[f] -= self.coef[a][b - 1] * v;
                }
            }
            return;
        }
        let f = node.feature as usize;
        let xl = self.ens.goes_left(&node, self.x[f]);
        let zl = self.ens.goes_left(&node, self.z[f]);
        let child = |left: bool| if left { node.left } else { node.right } as usize;
        if xl == zl {
            return self.walk(child(xl));
        }
        match self.fixed.iter().find(|e| e.0 == f) {
            Some(&(_, true)) => self.walk(child(xl)),
            Some(&(_, false)) => self.walk(child(zl)),
            None => {
                self.fixed.push((f, true));
                self.walk(child(xl));
                self.fixed.last_mut().expect("just pushed").1 = false;
                self.walk(child(zl));
                self.fixed.pop();
            }
        }
    }
}

/// Interventional TreeSHAP against the reference rows (see the module docs).
pub(super) fn interventional(ens: &TreeEnsemble, x: &[f64], reference: &Reference) -> Attribution {
    let seen = inputs(ens, x);
    let d = ens.inputs().len();
    let coef: Vec<Vec<f64>> = (0..=d)
        .map(|a| {
            (0..=d)
                .map(|b| {
                    if a + b < d + 1 {
                        1.0 / ((a + b + 1) as f64 * super::mlp::binomial(a + b, a))
                    } else {
                        0.0
                    }
                })
                .collect()
        })
        .collect();
    let mut phi = vec![0.0; d];
    let mut base = 0.0;
    for zr in reference.encoded() {
        let z = inputs(ens, zr);
        base += margin(ens, &z);
        for &r in ens.roots() {
            HybridWalk {
                ens,
                nodes: ens.nodes(),
                x: &seen,
                z: &z,
                coef: &coef,
                fixed: Vec::new(),
                phi: &mut phi,
            }
            .walk(r as usize);
        }
    }
    let n = reference.len() as f64;
    for p in &mut phi {
        *p /= n;
    }
    Attribution {
        method: Method::TreeShapInterventional,
        score: margin(ens, &seen),
        base_value: base / n,
        contributions: phi,
        codes: None,
        uses_reference: true,
    }
}
