//! The tree MIP against brute force, and on HELOC's XGBoost model.

use super::CELL_GAP;
use crate::coherent::random_instances::{self, TREE_ORACLE, random_factual};
use crate::coherent::separable::Workspace;
use crate::coherent::tree_search::{SearchResult, SearchStatus, TreeSearch};
use crate::coherent::{
    Config, DiversityRule, Outcome, ProvedBy, SolverChoice, cost, explain, explain_diverse,
};
use crate::model::trees::{FeatureInput, Node, OnnxMode, Output, Source, Test};
use crate::model::{Model, TreeEnsemble, logit};
use crate::schema::{Direction, FeatureKind, Schema};
use rand::{Rng, SeedableRng};
use rand_xoshiro::Xoshiro256PlusPlus;

// ---------------------------------------------------------------------------
// Brute-force oracle.
//
// Per feature, every destination worth trying: each special state and level,
// the factual value, every grid point of an integer/step feature, and for a
// real-valued feature, per interval between consecutive split thresholds
// (kept CELL_GAP from each threshold, as the MIP's cells are), the point of
// the interval nearest the cost's anchor. All combinations are enumerated;
// a combination counts when `Schema::check_actionable` allows it and the
// ensemble's leaves clear logit(t) + margin, walked and summed by the oracle's
// own evaluator (`independent_margin`: each library's comparison rule and
// missing-value handling written out again, and XGBoost's float32 sum); its
// cost is `coherent::cost`. The oracle shares nothing with the MIP or the tree
// search but the cell gap and the node array.
// ---------------------------------------------------------------------------

/// Every destination worth trying for feature `i`: its grid, special states
/// and levels, and on a real-valued feature one point per cell between the
/// ensemble's thresholds — each threshold shifted by `0` and `±delta` (a box
/// of half-width `delta`, for the robust advice's oracle; `0` for plain
/// advice).
pub(crate) fn candidates(
    schema: &Schema,
    ens: &TreeEnsemble,
    factual: &[f64],
    i: usize,
    delta: f64,
) -> Vec<f64> {
    let f = &schema.features[i];
    let mut out = vec![factual[i]];
    match &f.kind {
        FeatureKind::Categorical { levels } => out.extend((0..levels.len()).map(|k| k as f64)),
        FeatureKind::Contiguous {
            lower,
            upper,
            integer,
            step,
            special_states,
            ..
        } => {
            out.extend(special_states.iter().map(|s| s.code));
            let span = upper - lower;
            let own = f.state_of(factual[i]).unwrap();
            // The minimum change (issue 43): a value→value move of at least m.
            let m = if own == 0 {
                f.actionability.min_change.unwrap_or(0.0)
            } else {
                0.0
            };
            let advice = f.actionability.advice_step;
            if *integer || step.is_some() || advice.is_some() {
                // The advice grid: the multiples of its step (on the data's grid).
                let (g, base) = match advice {
                    Some(a) => (a, (lower / a).ceil() * a),
                    None => (
                        step.unwrap_or(1.0),
                        if step.is_some() { *lower } else { lower.ceil() },
                    ),
                };
                let mut k = 0.0;
                while base + k * g <= upper + 1e-9 {
                    let raw = base + k * g;
                    if own != 0 || (raw - factual[i]).abs() >= m - 1e-9 {
                        out.push(raw);
                    }
                    k += 1.0;
                }
            } else {
                let slot = |v: f64| (v - lower) / span;
                let mut th: Vec<f64> = ens
                    .nodes()
                    .iter()
                    .filter(|n| n.test != Test::Leaf && n.feature as usize == i)
                    .flat_map(|n| [n.threshold, n.threshold + delta, n.threshold - delta])
                    .filter(|t| *t >= *lower && *t < *upper)
                    .collect();
                th.sort_by(f64::total_cmp);
                th.dedup();
                // Intervals in slots; all tests here are `x ≤ t` (see random_ensemble).
                let mut edges = vec![0.0];
                for t in &th {
                    edges.push(slot(*t) - CELL_GAP);
                    edges.push(slot(*t) + CELL_GAP);
                }
                edges.push(1.0);
                let w = schema.weights(i);
                let (lo, hi) = schema.actionable_range(i).unwrap();
                let anchor = if own == 0 {
                    slot(factual[i])
                } else {
                    w.anchor.clamp(slot(lo), slot(hi))
                };
                let (mut a0, mut b0) = (slot(lo), slot(hi));
                if own == 0 {
                    match f.actionability.direction {
                        Direction::IncreaseOnly => a0 = a0.max(anchor),
                        Direction::DecreaseOnly => b0 = b0.min(anchor),
                        Direction::Any => {}
                    }
                }
                let band = m / span;
                for e in edges.chunks(2) {
                    let (a, b) = (e[0].max(a0), e[1].min(b0));
                    let pieces = if band > 0.0 {
                        vec![(a, b.min(anchor - band)), (a.max(anchor + band), b)]
                    } else {
                        vec![(a, b)]
                    };
                    for (a, b) in pieces {
                        if a <= b {
                            out.push(lower + anchor.clamp(a, b) * span);
                        }
                    }
                }
            }
        }
    }
    out
}

fn exact_margin(ens: &TreeEnsemble, raw: &[f64]) -> f64 {
    let mut s = ens.base_score();
    for &r in ens.roots() {
        s += ens.leaf_raw(r as usize, raw).value;
    }
    s
}

/// The margin of a raw row by the oracle's own walk: what the trees see of
/// each feature (a special state's code, or NaN where declared missing; a
/// level's index), each test's rule as the libraries document it, and the sum
/// as the library adds (XGBoost: float32, tree by tree from the base score).
pub(crate) fn independent_margin(ens: &TreeEnsemble, raw: &[f64]) -> f64 {
    let seen = |i: usize| -> f64 {
        match &ens.inputs()[i] {
            FeatureInput::Value { specials, .. } => {
                match specials.iter().find(|s| s.code == raw[i]) {
                    Some(s) if s.as_missing => f64::NAN,
                    _ => raw[i],
                }
            }
            FeatureInput::Levels { .. } => raw[i],
        }
    };
    let nodes = ens.nodes();
    let leaf = |root: u32| -> f64 {
        let mut k = root as usize;
        loop {
            let n = &nodes[k];
            let x = seen(n.feature as usize);
            let left = match n.test {
                Test::Leaf => return n.value,
                Test::Levels(_) => ens.level_goes_left(n, x as usize),
                // XGBoost: float32 comparison, missing by default_left.
                Test::BelowF32 => {
                    if x.is_nan() {
                        n.default_left
                    } else {
                        (x as f32) < (n.threshold as f32)
                    }
                }
                // LightGBM, missing type None: NaN is 0.
                Test::AtMost => (if x.is_nan() { 0.0 } else { x }) <= n.threshold,
                // LightGBM, missing type NaN.
                Test::AtMostNanMissing => {
                    if x.is_nan() {
                        n.default_left
                    } else {
                        x <= n.threshold
                    }
                }
                // LightGBM, missing type Zero: NaN is 0, and |x| ≤ kZeroThreshold
                // (1e-35f) is missing.
                Test::AtMostZeroMissing => {
                    let x = if x.is_nan() { 0.0 } else { x };
                    if x.abs() <= 1e-35f32 as f64 {
                        n.default_left
                    } else {
                        x <= n.threshold
                    }
                }
                // ONNX (onnxruntime): the comparison in the input's type, the
                // true branch left, NaN by default_left.
                Test::OnnxF32(m) | Test::OnnxF64(m) if x.is_nan() => {
                    let _ = m;
                    n.default_left
                }
                Test::OnnxF32(m) => {
                    let (a, t) = (x as f32, n.threshold as f32);
                    match m {
                        OnnxMode::Leq => a <= t,
                        OnnxMode::Lt => a < t,
                        OnnxMode::Gte => a >= t,
                        OnnxMode::Gt => a > t,
                        OnnxMode::Eq => a == t,
                        OnnxMode::Neq => a != t,
                    }
                }
                Test::OnnxF64(m) => {
                    let t = n.threshold;
                    match m {
                        OnnxMode::Leq => x <= t,
                        OnnxMode::Lt => x < t,
                        OnnxMode::Gte => x >= t,
                        OnnxMode::Gt => x > t,
                        OnnxMode::Eq => x == t,
                        OnnxMode::Neq => x != t,
                    }
                }
            };
            k = if left { n.left } else { n.right } as usize;
        }
    };
    match ens.source() {
        Source::Xgboost => {
            let mut s = ens.base_score() as f32;
            for &r in ens.roots() {
                s += leaf(r) as f32;
            }
            s as f64
        }
        Source::Lightgbm | Source::Catboost | Source::Ebm | Source::Sklearn => {
            let mut s = ens.base_score();
            for &r in ens.roots() {
                s += leaf(r);
            }
            s
        }
        // onnxruntime and jpmml-evaluator: from zero, then the base value.
        Source::OnnxF32 | Source::PmmlF32 => {
            let mut s = 0.0f32;
            for &r in ens.roots() {
                s += leaf(r) as f32;
            }
            (s + ens.base_score() as f32) as f64
        }
        Source::OnnxF64 | Source::PmmlF64 => {
            let mut s = 0.0;
            for &r in ens.roots() {
                s += leaf(r);
            }
            s + ens.base_score()
        }
    }
}

pub(crate) fn brute_force(
    schema: &Schema,
    ens: &TreeEnsemble,
    factual: &[f64],
    margin: f64,
) -> Option<f64> {
    brute_force_with_cuts(schema, ens, factual, margin, &[])
}

/// [`brute_force`] under the distinct-subsets rule's cuts: every row leaves
/// at least one feature of each cut at its factual value.
fn brute_force_with_cuts(
    schema: &Schema,
    ens: &TreeEnsemble,
    factual: &[f64],
    margin: f64,
    cuts: &[Vec<usize>],
) -> Option<f64> {
    let n = schema.n_features();
    let same = |a: f64, b: f64| a == b || (a.is_nan() && b.is_nan());
    let cands: Vec<Vec<f64>> = (0..n)
        .map(|i| candidates(schema, ens, factual, i, 0.0))
        .collect();
    // The cut-off as a score: logit(t) for a margin, t itself for a forest's
    // averaged votes (`Output::Probability`).
    let need = match ens.output() {
        Output::Margin => logit(ens.threshold()),
        Output::Probability => ens.threshold(),
        Output::MeanOf { .. } => unreachable!("the random forests here average their leaves"),
    } + margin;
    let mut best: Option<f64> = None;
    let mut idx = vec![0usize; n];
    let mut row = factual.to_vec();
    loop {
        for i in 0..n {
            row[i] = cands[i][idx[i]];
        }
        let meets = cuts
            .iter()
            .all(|cut| cut.iter().any(|&i| same(row[i], factual[i])));
        if meets
            && schema.check_actionable(factual, &row).is_ok()
            && independent_margin(ens, &row) >= need
        {
            let c = cost(schema, factual, &row).unwrap();
            if best.is_none_or(|b| c < b) {
                best = Some(c);
            }
        }
        let mut k = 0;
        loop {
            if k == n {
                return best;
            }
            idx[k] += 1;
            if idx[k] < cands[k].len() {
                break;
            }
            idx[k] = 0;
            k += 1;
        }
    }
}

/// A random schema of the tree oracle.
pub(crate) fn random_schema(rng: &mut Xoshiro256PlusPlus) -> Schema {
    random_instances::random_schema(rng, &TREE_ORACLE)
}

/// A random ensemble of 2–5 trees of depth ≤ 3 on the schema: XGBoost-style
/// `x < t` (float32) tests on grid features (thresholds on and between grid
/// points and below the range, to hit the edge cases), LightGBM-style `x ≤ t`
/// tests on real-valued ones, missing-value directions for special states
/// declared missing, level sets on categoricals. The base score puts the
/// factual below the threshold. Summed as LightGBM sums (f64).
pub(crate) fn random_ensemble(
    schema: &Schema,
    factual: &[f64],
    rng: &mut Xoshiro256PlusPlus,
) -> TreeEnsemble {
    random_ensemble_of(schema, factual, rng, Source::Lightgbm)
}

/// How [`random_ensemble_of`] draws an ensemble: how many trees, how deep,
/// and how far below the threshold the factual's margin lies. Kept as each
/// test drew them, so that the oracles test the very instances they always
/// did (the same seed draws the same ensembles).
pub(crate) struct EnsembleDraw {
    /// The number of trees (inclusive bounds).
    pub trees: (i32, i32),
    /// Each tree's depth (inclusive bounds).
    pub depth: (usize, usize),
    /// How far below `logit(t)` the factual's margin lies (half-open).
    pub declined_by: (f64, f64),
}

/// [`random_ensemble`]'s draw: 2–5 trees of depth ≤ 3.
pub(crate) const SMALL_ENSEMBLES: EnsembleDraw = EnsembleDraw {
    trees: (2, 5),
    depth: (1, 3),
    declined_by: (0.05, 1.0),
};

/// 6–14 trees of depth 2–4, the factual further below the threshold: large
/// enough that the tree search branches often.
pub(crate) const BRANCHY_ENSEMBLES: EnsembleDraw = EnsembleDraw {
    trees: (6, 14),
    depth: (2, 4),
    declined_by: (0.05, 1.5),
};

/// The strong-branching settings `(k, after, reliable, [late_after,
/// late_k])` the branching tests run in turn
/// (`TreeSearch::set_strong_branching`, `set_strong_branching_late`): full
/// strong branching from the root, reliability branching trusted after one
/// or two observations per side, strong branching after a few nodes,
/// reliability branching widened from 2 to 8 candidates at the 4th node,
/// and the single rule.
pub(crate) const BRANCHING_SETTINGS: [(usize, usize, usize, [usize; 2]); 7] = [
    (4, 0, 0, NO_WIDENING),
    (8, 0, 1, NO_WIDENING),
    (4, 0, 2, NO_WIDENING),
    (6, 3, 1, NO_WIDENING),
    (2, 0, 0, NO_WIDENING),
    (2, 0, 1, [4, 8]),
    (1, 0, 0, NO_WIDENING),
];

/// A late widening ([`TreeSearch::set_strong_branching_late`]) never reached.
const NO_WIDENING: [usize; 2] = [usize::MAX, 0];

/// Oracle case `case` of a random test: a schema, an applicant and an
/// ensemble summed as `sources[case % 2]` sums (drawn in that order), so
/// that the tests alternate XGBoost's float32 sums with LightGBM's.
pub(crate) fn random_tree_case(
    rng: &mut Xoshiro256PlusPlus,
    case: usize,
    sources: [Source; 2],
) -> (Schema, Vec<f64>, TreeEnsemble) {
    random_tree_case_drawn(rng, case, sources, &SMALL_ENSEMBLES)
}

/// [`random_tree_case`], its ensemble drawn as `draw` says.
pub(crate) fn random_tree_case_drawn(
    rng: &mut Xoshiro256PlusPlus,
    case: usize,
    sources: [Source; 2],
    draw: &EnsembleDraw,
) -> (Schema, Vec<f64>, TreeEnsemble) {
    let schema = random_schema(rng);
    let factual = random_factual(&schema, rng);
    let ens = random_ensemble_drawn(&schema, &factual, rng, sources[case % 2], draw);
    (schema, factual, ens)
}

/// [`random_ensemble`], summed as `source` sums.
pub(crate) fn random_ensemble_of(
    schema: &Schema,
    factual: &[f64],
    rng: &mut Xoshiro256PlusPlus,
    source: Source,
) -> TreeEnsemble {
    random_ensemble_drawn(schema, factual, rng, source, &SMALL_ENSEMBLES)
}

/// [`random_ensemble_of`], its trees drawn as `draw` says.
fn random_ensemble_drawn(
    schema: &Schema,
    factual: &[f64],
    rng: &mut Xoshiro256PlusPlus,
    source: Source,
    draw: &EnsembleDraw,
) -> TreeEnsemble {
    let inputs: Vec<FeatureInput> = schema
        .features
        .iter()
        // (the draw is made for contiguous features only, as before)
        .map(|f| FeatureInput::of_feature(f, f.is_contiguous() && rng.random_bool(0.3)))
        .collect();
    let mut nodes: Vec<Node> = Vec::new();
    let mut level_left: Vec<bool> = Vec::new();
    let mut roots = Vec::new();
    let n_trees = rng.random_range(draw.trees.0..=draw.trees.1);
    for _ in 0..n_trees {
        roots.push(nodes.len() as u32);
        let depth = rng.random_range(draw.depth.0..=draw.depth.1);
        grow(schema, depth, rng, &mut nodes, &mut level_left);
    }
    let t = rng.random_range(0.3..0.7);
    let mut ens = TreeEnsemble::new(
        Source::Lightgbm,
        0.0,
        t,
        inputs.clone(),
        roots.clone(),
        nodes.clone(),
        level_left.clone(),
    )
    .unwrap();
    let m = exact_margin(&ens, factual);
    let base = logit(t) - rng.random_range(draw.declined_by.0..draw.declined_by.1) - m;
    ens = TreeEnsemble::new(source, base, t, inputs, roots, nodes, level_left).unwrap();
    ens
}

/// One case of a random test of the tree search: drawn by
/// [`random_tree_case_drawn`] (XGBoost's sums for even cases, LightGBM's for
/// odd ones), with the margin the search must reach.
pub(crate) struct SearchCase {
    pub case: usize,
    pub schema: Schema,
    pub factual: Vec<f64>,
    pub ens: TreeEnsemble,
    /// `logit(t)` plus the default margin.
    pub need: f64,
}

impl SearchCase {
    /// The brute force's optimum ([`brute_force`]) at the default margin.
    pub(crate) fn oracle(&self) -> Option<f64> {
        brute_force(
            &self.schema,
            &self.ens,
            &self.factual,
            Config::default().margin,
        )
    }
}

/// The loop of the tree search's random tests: `cases` cases drawn from
/// `seed` as `draw` says, each with its cells built into one workspace and
/// one `TreeSearch` prepared on them (both reused from case to case, as a
/// caller reuses them), then handed to `each` with the generator, for the
/// test's own draws (made after the case's).
pub(crate) fn for_each_search_case(
    seed: u64,
    cases: usize,
    draw: &EnsembleDraw,
    mut each: impl FnMut(&SearchCase, &Workspace, &mut TreeSearch, &mut Xoshiro256PlusPlus),
) {
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(seed);
    let (mut ws, mut ts) = (Workspace::new(), TreeSearch::new());
    for case in 0..cases {
        let (schema, factual, ens) =
            random_tree_case_drawn(&mut rng, case, [Source::Xgboost, Source::Lightgbm], draw);
        let need = logit(ens.threshold()) + Config::default().margin;
        ws.build_tree_cells(&schema, &ens, &factual, &[]).unwrap();
        ts.prepare(&ws, &schema, &ens).unwrap();
        let c = SearchCase {
            case,
            schema,
            factual,
            ens,
            need,
        };
        each(&c, &ws, &mut ts, &mut rng);
    }
}

/// Checks the search's answer `res` on case `case` against the brute force's
/// optimum `oracle`: the same cost proven optimal, or infeasibility proven.
/// Whether the case is feasible.
fn agrees_with_brute_force(res: &SearchResult, oracle: Option<f64>, case: &str) -> bool {
    match oracle {
        Some(best) => {
            assert_eq!(res.status, SearchStatus::Optimal, "case {case}");
            assert!(
                same_cost(res.cost, best),
                "case {case}: {} vs {best}",
                res.cost
            );
            true
        }
        None => {
            assert_eq!(res.status, SearchStatus::Infeasible, "case {case}");
            false
        }
    }
}

pub(crate) fn grow(
    schema: &Schema,
    depth: usize,
    rng: &mut Xoshiro256PlusPlus,
    nodes: &mut Vec<Node>,
    level_left: &mut Vec<bool>,
) -> u32 {
    let k = nodes.len();
    if depth == 0 {
        nodes.push(Node::leaf(rng.random_range(-1.5..1.5)));
        return k as u32;
    }
    nodes.push(Node::leaf(0.0));
    let i = rng.random_range(0..schema.n_features());
    let f = &schema.features[i];
    let mut node = Node {
        test: Test::AtMost,
        feature: i as u32,
        threshold: 0.0,
        default_left: rng.random_bool(0.5),
        left: 0,
        right: 0,
        value: 0.0,
    };
    match &f.kind {
        FeatureKind::Categorical { levels } => {
            node.test = Test::Levels(level_left.len() as u32);
            level_left.extend((0..levels.len()).map(|_| rng.random_bool(0.5)));
        }
        FeatureKind::Contiguous {
            lower,
            upper,
            integer,
            step,
            ..
        } => {
            if *integer || step.is_some() {
                node.test = Test::BelowF32;
                let g = step.unwrap_or(1.0);
                let k = rng.random_range(-1..=((upper - lower) / g) as i64 + 1) as f64;
                let half = if rng.random_bool(0.5) { 0.5 * g } else { 0.0 };
                node.threshold = (lower + k * g + half) as f32 as f64;
            } else {
                node.test = if rng.random_bool(0.5) {
                    Test::AtMost
                } else {
                    Test::AtMostNanMissing
                };
                node.threshold = rng.random_range(*lower..*upper);
            }
        }
    }
    node.left = grow(schema, depth - 1, rng, nodes, level_left);
    node.right = grow(schema, depth - 1, rng, nodes, level_left);
    nodes[k] = node;
    k as u32
}

fn check_counterfactual(
    schema: &Schema,
    ens: &TreeEnsemble,
    factual: &[f64],
    cf: &crate::coherent::Counterfactual,
) {
    let enc = schema.encode(&cf.raw).unwrap();
    assert_eq!(schema.decode(&enc).unwrap(), cf.raw, "decodes coherently");
    assert!(
        ens.accepts(&enc),
        "the flat evaluator accepts it: p = {}",
        ens.probability(&enc)
    );
    assert_eq!(ens.score(&enc), ens.margin_raw(&cf.raw));
    assert!(
        independent_margin(ens, &cf.raw)
            > match ens.output() {
                Output::Margin => logit(ens.threshold()),
                Output::Probability => ens.threshold(),
                Output::MeanOf { .. } => unreachable!("the forests here average their leaves"),
            },
        "the oracle's evaluator accepts it"
    );
    schema.check_actionable(factual, &cf.raw).unwrap();
    let c = cost(schema, factual, &cf.raw).unwrap();
    assert!((c - cf.cost).abs() < 1e-9);
    assert!(
        (cf.objective - c).abs() < 1e-6,
        "objective {} vs cost {c}",
        cf.objective
    );
}

/// A random forest on a random schema: 2–6 trees whose leaves are class
/// probabilities divided by the number of trees (the score is their average,
/// [`Output::Probability`]), summed as `source` sums, with a cut-off above
/// the applicant's probability so that the applicant is declined.
fn random_forest_case(
    rng: &mut Xoshiro256PlusPlus,
    source: Source,
) -> (Schema, Vec<f64>, TreeEnsemble) {
    let schema = random_schema(rng);
    let factual = random_factual(&schema, rng);
    let inputs: Vec<FeatureInput> = schema
        .features
        .iter()
        .map(|f| FeatureInput::of_feature(f, f.is_contiguous() && rng.random_bool(0.3)))
        .collect();
    let (mut nodes, mut level_left, mut roots) = (Vec::new(), Vec::new(), Vec::new());
    let n_trees = rng.random_range(2..=6);
    for _ in 0..n_trees {
        roots.push(nodes.len() as u32);
        let depth = rng.random_range(1..=3);
        grow(&schema, depth, rng, &mut nodes, &mut level_left);
    }
    // Each leaf a class probability in [0, 1] (a fraction of its training
    // rows: multiples of 1/8), over the number of trees.
    for n in &mut nodes {
        if n.test == Test::Leaf {
            n.value = f64::from(rng.random_range(0..=8u8)) / 8.0 / n_trees as f64;
        }
    }
    let probe = TreeEnsemble::new(
        source,
        0.0,
        0.5,
        inputs.clone(),
        roots.clone(),
        nodes.clone(),
        level_left.clone(),
    )
    .unwrap();
    let p = exact_margin(&probe, &factual);
    let t = (p + rng.random_range(0.01..0.4)).min(0.99);
    let ens = TreeEnsemble::new(source, 0.0, t, inputs, roots, nodes, level_left)
        .unwrap()
        .with_output(Output::Probability)
        .unwrap();
    (schema, factual, ens)
}

/// The identity link: on random forests (the score is the averaged votes,
/// compared with the cut-off itself, not its logit), the tree MIP's and the
/// tree search's optima equal the brute force's, whose evaluator walks the
/// trees and compares the summed votes with `t` on its own.
#[test]
fn forest_optima_equal_brute_force_on_random_small_forests() {
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(2001);
    let (mut feasible, mut infeasible) = (0, 0);
    for case in 0..200 {
        let source = [Source::OnnxF32, Source::OnnxF64][case % 2];
        let (schema, factual, ens) = random_forest_case(&mut rng, source);
        assert!(!ens.accepts(&schema.encode(&factual).unwrap()));
        let oracle = brute_force(&schema, &ens, &factual, Config::default().margin);
        for (solver, by) in [
            (SolverChoice::Mip, ProvedBy::Highs),
            (SolverChoice::TreeSearch, ProvedBy::TreeSearch),
        ] {
            let config = Config {
                solver,
                ..Config::default()
            };
            let ex = explain(&schema, &ens, &factual, &config).unwrap();
            assert_eq!(ex.proved_by, by);
            match (oracle, ex.counterfactuals.first()) {
                (Some(best), Some(cf)) => {
                    assert_eq!(ex.outcome, Outcome::Optimal);
                    check_counterfactual(&schema, &ens, &factual, cf);
                    // The probability is the score itself, not its logistic.
                    let enc = schema.encode(&cf.raw).unwrap();
                    assert_eq!(ens.probability(&enc), ens.score(&enc));
                    assert!(ens.score(&enc) > ens.threshold());
                    assert!(
                        same_cost(cf.cost, best),
                        "case {case} {solver:?}: {} vs brute force {best}",
                        cf.cost
                    );
                    feasible += 1;
                }
                (None, None) => {
                    assert!(
                        matches!(ex.outcome, Outcome::Infeasible { .. }),
                        "{:?}",
                        ex.outcome
                    );
                    infeasible += 1;
                }
                (o, c) => panic!(
                    "case {case} {solver:?}: oracle {o:?} vs solver {:?} ({:?})",
                    c.map(|c| (&c.raw, c.cost)),
                    ex.outcome
                ),
            }
        }
    }
    eprintln!("forests vs brute force: {feasible} feasible, {infeasible} infeasible");
    assert!(feasible >= 150, "feasible cases: {feasible}");
    assert!(infeasible >= 5, "infeasible cases: {infeasible}");
}

/// Equal to the oracle's optimum within 1e-9 relative: a solver 0.1% short
/// of optimal fails.
pub(crate) fn same_cost(a: f64, b: f64) -> bool {
    (a - b).abs() <= 1e-9 * a.abs().max(b.abs()).max(1.0)
}

#[test]
fn tree_mip_and_tree_search_optima_equal_brute_force_on_random_small_ensembles() {
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(2021);
    let (mut feasible, mut infeasible) = (0, 0);
    for case in 0..400 {
        // Every other case sums as XGBoost does (float32).
        let (schema, factual, ens) =
            random_tree_case(&mut rng, case, [Source::Xgboost, Source::Lightgbm]);
        let oracle = brute_force(&schema, &ens, &factual, Config::default().margin);
        for (solver, by) in [
            (SolverChoice::Mip, ProvedBy::Highs),
            (SolverChoice::TreeSearch, ProvedBy::TreeSearch),
        ] {
            let config = Config {
                solver,
                ..Config::default()
            };
            let ex = explain(&schema, &ens, &factual, &config).unwrap();
            assert_eq!(ex.proved_by, by);
            match (oracle, ex.counterfactuals.first()) {
                (Some(best), Some(cf)) => {
                    assert_eq!(ex.outcome, Outcome::Optimal);
                    check_counterfactual(&schema, &ens, &factual, cf);
                    assert!(
                        same_cost(cf.cost, best),
                        "case {case} {solver:?}: {} vs brute force {best}\n{}\n{factual:?}\n{:?}",
                        cf.cost,
                        schema.to_json(),
                        cf.raw
                    );
                    feasible += 1;
                }
                (None, None) => {
                    assert!(
                        matches!(ex.outcome, Outcome::Infeasible { .. }),
                        "{:?}",
                        ex.outcome
                    );
                    infeasible += 1;
                }
                (o, c) => panic!(
                    "case {case} {solver:?}: oracle {o:?} vs solver {:?} ({:?})\n{}\n{factual:?}",
                    c.map(|c| (&c.raw, c.cost)),
                    ex.outcome,
                    schema.to_json()
                ),
            }
        }
    }
    eprintln!("tree MIP and search vs brute force: {feasible} feasible, {infeasible} infeasible");
    assert!(feasible >= 400, "feasible cases: {feasible}");
    assert!(infeasible >= 10, "infeasible cases: {infeasible}");
}

/// ONNX's node modes (≤, <, ≥, >, =, ≠ on the float32-cast or the double
/// input, NaN by `missing_value_tracks_true`) and onnxruntime's sums: the
/// random ensembles with every numeric node given a random mode, each solver's
/// optimum equal to the brute force's (whose evaluator compares in float32 or
/// double by its own code).
/// Advice grids and minimum changes (issue 43) on tree ensembles: the MIP and
/// the tree search equal the brute force over every multiple of each advice
/// step and every cell's point nearest the anchor outside the band the
/// minimum change excludes (`candidates`, on its own), and every answer is
/// on its grid and meets its minimum change (`Schema::check_advice`).
#[test]
fn tree_optima_honour_advice_grids_and_min_changes_against_brute_force() {
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(4343);
    let (mut feasible, mut bound) = (0, 0);
    for case in 0..200 {
        let (plain, factual, ens) =
            random_tree_case(&mut rng, case, [Source::Xgboost, Source::Lightgbm]);
        let schema = random_instances::with_random_advice(plain.clone(), &mut rng);
        let margin = Config::default().margin;
        let oracle = brute_force(&schema, &ens, &factual, margin);
        let free = brute_force(&plain, &ens, &factual, margin);
        for solver in [SolverChoice::Mip, SolverChoice::TreeSearch] {
            let config = Config {
                solver,
                ..Config::default()
            };
            let ex = explain(&schema, &ens, &factual, &config).unwrap();
            match (oracle, ex.counterfactuals.first()) {
                (Some(best), Some(cf)) => {
                    assert_eq!(ex.outcome, Outcome::Optimal);
                    check_counterfactual(&schema, &ens, &factual, cf);
                    schema
                        .check_advice(&factual, &cf.raw, 0)
                        .unwrap_or_else(|e| {
                            panic!("case {case} {solver:?}: {e}\n{}", schema.to_json())
                        });
                    assert!(
                        same_cost(cf.cost, best),
                        "case {case} {solver:?}: {} vs brute force {best}\n{}\n{factual:?}\n{:?}",
                        cf.cost,
                        schema.to_json(),
                        cf.raw
                    );
                    feasible += 1;
                    if free.is_some_and(|f| f < best - 1e-6) {
                        bound += 1;
                    }
                }
                (None, None) => {}
                (o, c) => panic!(
                    "case {case} {solver:?}: oracle {o:?} vs solver {:?} ({:?})\n{}\n{factual:?}",
                    c.map(|c| (&c.raw, c.cost)),
                    ex.outcome,
                    schema.to_json()
                ),
            }
        }
    }
    assert!(feasible >= 150, "feasible cases: {feasible}");
    assert!(bound >= 20, "cases where a grid or minimum bound: {bound}");
}

#[test]
fn tree_optima_equal_brute_force_under_onnx_node_modes() {
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(38);
    let modes = OnnxMode::ALL;
    let (mut feasible, mut infeasible) = (0, 0);
    for case in 0..200 {
        let (schema, factual, ens) =
            random_tree_case(&mut rng, case, [Source::Lightgbm, Source::Lightgbm]);
        let f32_input = case % 2 == 0;
        let mut v = serde_json::to_value(&ens).unwrap();
        let mut nodes: Vec<Node> = serde_json::from_value(v["nodes"].clone()).unwrap();
        for n in &mut nodes {
            if matches!(n.test, Test::Leaf | Test::Levels(_)) {
                continue;
            }
            // (= and ≠ single out one value: on a grid feature only.)
            let grid = matches!(
                &schema.features[n.feature as usize].kind,
                FeatureKind::Contiguous { integer: true, .. }
                    | FeatureKind::Contiguous { step: Some(_), .. }
            );
            if f32_input && !grid {
                // A float32 comparison on a real-valued feature: the search's
                // cells end at the threshold's float32 neighbours, as for
                // XGBoost, which this oracle's real-valued candidates (x ≤ t
                // only) do not model; such nodes keep their f64 test.
                continue;
            }
            let m = modes[rng.random_range(0..if grid { 6 } else { 4 })];
            if f32_input {
                n.test = Test::OnnxF32(m);
                n.threshold = n.threshold as f32 as f64;
            } else {
                n.test = Test::OnnxF64(m);
            }
        }
        v["nodes"] = serde_json::to_value(&nodes).unwrap();
        v["source"] = serde_json::json!(if f32_input { "onnx_f32" } else { "onnx_f64" });
        v["base_score"] = serde_json::json!(0.0);
        let zero: TreeEnsemble = serde_json::from_value(v.clone()).unwrap();
        // The factual declined by a margin, as the other random cases are.
        let m = independent_margin(&zero, &factual);
        let base = logit(zero.threshold()) - rng.random_range(0.05..1.0) - m;
        v["base_score"] = serde_json::json!(base);
        let ens: TreeEnsemble = serde_json::from_value(v).unwrap();
        let oracle = brute_force(&schema, &ens, &factual, Config::default().margin);
        for solver in [SolverChoice::Mip, SolverChoice::TreeSearch] {
            let config = Config {
                solver,
                ..Config::default()
            };
            let ex = explain(&schema, &ens, &factual, &config).unwrap();
            match (oracle, ex.counterfactuals.first()) {
                (Some(best), Some(cf)) => {
                    check_counterfactual(&schema, &ens, &factual, cf);
                    assert!(
                        same_cost(cf.cost, best),
                        "case {case} {solver:?}: {} vs brute force {best}",
                        cf.cost
                    );
                    feasible += 1;
                }
                (None, None) => infeasible += 1,
                (o, c) => panic!(
                    "case {case} {solver:?}: oracle {o:?} vs solver {:?} ({:?})",
                    c.map(|c| (&c.raw, c.cost)),
                    ex.outcome
                ),
            }
        }
    }
    eprintln!("ONNX modes vs brute force: {feasible} feasible, {infeasible} infeasible");
    assert!(feasible >= 200, "feasible cases: {feasible}");
}

#[test]
fn tree_diverse_sets_are_distinct_valid_and_actionable_for_both_rules() {
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(15);
    for rule in [DiversityRule::Russell, DiversityRule::DistinctSubsets] {
        let config = Config {
            n_diverse: 4,
            diversity: rule,
            ..Config::default()
        };
        let mut multi = 0;
        for _ in 0..80 {
            let schema = random_schema(&mut rng);
            let factual = random_factual(&schema, &mut rng);
            let ens = random_ensemble(&schema, &factual, &mut rng);
            let ex = explain_diverse(&schema, &ens, &factual, &config).unwrap();
            for cf in &ex.counterfactuals {
                check_counterfactual(&schema, &ens, &factual, cf);
            }
            for (k, a) in ex.counterfactuals.iter().enumerate() {
                for b in &ex.counterfactuals[..k] {
                    assert!(a.raw.iter().zip(&b.raw).any(|(x, y)| (x - y).abs() > 1e-6));
                }
            }
            if let Some(first) = ex.counterfactuals.first() {
                assert!(
                    ex.counterfactuals
                        .iter()
                        .all(|c| c.cost >= first.cost - 1e-6)
                );
            }
            multi += usize::from(ex.counterfactuals.len() > 1);
        }
        assert!(multi >= 10, "{rule:?}: {multi} applicants got alternatives");
    }
}

/// The distinct-subsets rule on the tree search: each alternative is the
/// brute force's optimum under the cuts of the alternatives before it (an
/// oracle that shares no code with the search), meets them, and the sets
/// stop only when the brute force finds nothing more.
#[test]
fn tree_search_distinct_subsets_equal_brute_force_under_the_cuts() {
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(31);
    let config = Config {
        n_diverse: 4,
        diversity: DiversityRule::DistinctSubsets,
        solver: SolverChoice::TreeSearch,
        ..Config::default()
    };
    let (mut rounds, mut exhausted) = (0, 0);
    for case in 0..400 {
        let (schema, factual, ens) =
            random_tree_case(&mut rng, case, [Source::Lightgbm, Source::Xgboost]);
        let ex = explain_diverse(&schema, &ens, &factual, &config).unwrap();
        assert_eq!(ex.diversity_stopped, None, "case {case}");
        let mut cuts: Vec<Vec<usize>> = Vec::new();
        for (k, cf) in ex.counterfactuals.iter().enumerate() {
            check_counterfactual(&schema, &ens, &factual, cf);
            assert_eq!(cf.proved_by, ProvedBy::TreeSearch, "case {case}");
            let best = brute_force_with_cuts(&schema, &ens, &factual, config.margin, &cuts);
            match best {
                Some(b) => assert!(
                    same_cost(cf.cost, b),
                    "case {case} round {k}: {} vs {b}",
                    cf.cost
                ),
                None => panic!("case {case} round {k}: the brute force finds nothing"),
            }
            for cut in &cuts {
                assert!(
                    cut.iter()
                        .any(|&i| cf.raw[i] == factual[i]
                            || (cf.raw[i].is_nan() && factual[i].is_nan())),
                    "case {case} round {k} breaks a cut"
                );
            }
            cuts.push(cf.changes.iter().map(|c| c.feature).collect());
            rounds += usize::from(k > 0);
        }
        if let Some(last) = cuts.last()
            && !last.is_empty()
            && ex.counterfactuals.len() < config.n_diverse
        {
            let more = brute_force_with_cuts(&schema, &ens, &factual, config.margin, &cuts);
            assert_eq!(more, None, "case {case}: the search stopped early");
            exhausted += 1;
        }
    }
    eprintln!("distinct subsets: {rounds} alternatives checked, {exhausted} sets exhausted");
    assert!(rounds >= 60, "alternatives checked: {rounds}");
    assert!(exhausted >= 50, "sets exhausted: {exhausted}");
}

#[test]
fn tree_search_limits_infeasibility_and_diversity_agree_with_the_mip() {
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(24);
    let (mut limited, mut unknown, mut blocked, mut diverse) = (0, 0, 0, 0);
    for case in 0..300 {
        let schema = random_schema(&mut rng);
        let factual = random_factual(&schema, &mut rng);
        let ens = random_ensemble_of(&schema, &factual, &mut rng, Source::Xgboost);
        let oracle = brute_force(&schema, &ens, &factual, Config::default().margin);
        let search = Config {
            solver: SolverChoice::TreeSearch,
            ..Config::default()
        };
        let mip = Config {
            solver: SolverChoice::Mip,
            ..Config::default()
        };
        // Infeasibility reasons: the same smallest blocking groups.
        let a = explain(&schema, &ens, &factual, &search).unwrap();
        let b = explain(&schema, &ens, &factual, &mip).unwrap();
        if let Outcome::Infeasible { .. } = a.outcome {
            assert_eq!(a.outcome, b.outcome, "case {case}");
            blocked += usize::from(a.outcome.blocking_mask() != 0);
        }
        // At a node limit of 1 to 3 the search returns what it has, honestly
        // labelled: proven optimal, or an answer with a lower bound that the
        // oracle's optimum respects, or no answer. (At 2 to 7, as before,
        // every one of these small ensembles was proven at once and the two
        // limit branches below were never taken.)
        let tight = Config {
            node_limit: 1 + case % 3,
            ..search
        };
        let ex = explain(&schema, &ens, &factual, &tight).unwrap();
        match (&ex.outcome, ex.counterfactuals.first(), oracle) {
            (Outcome::Optimal, Some(cf), Some(best)) => assert!(same_cost(cf.cost, best)),
            (Outcome::TimeLimit { has_solution: true }, Some(cf), Some(best)) => {
                check_counterfactual(&schema, &ens, &factual, cf);
                let lower = cf.cost * (1.0 - cf.mip_gap);
                assert!(cf.cost >= best - 1e-9 && lower <= best + 1e-9 * best.max(1.0));
                limited += 1;
            }
            (Outcome::Unknown { raw_status }, None, _) => {
                assert_eq!(*raw_status, crate::coherent::SEPARABLE_NODE_LIMIT_STATUS);
                unknown += 1;
            }
            (Outcome::Infeasible { .. }, None, None) => {}
            other => panic!("case {case}: {other:?} (oracle {oracle:?})"),
        }
        // Russell's diverse sets on the search: valid, distinct, actionable,
        // the first equal to the MIP's.
        let config = Config {
            n_diverse: 4,
            ..search
        };
        let d = explain_diverse(&schema, &ens, &factual, &config).unwrap();
        let m = explain_diverse(
            &schema,
            &ens,
            &factual,
            &Config {
                n_diverse: 4,
                ..mip
            },
        )
        .unwrap();
        for cf in &d.counterfactuals {
            check_counterfactual(&schema, &ens, &factual, cf);
        }
        for (k, x) in d.counterfactuals.iter().enumerate() {
            for y in &d.counterfactuals[..k] {
                assert!(x.raw.iter().zip(&y.raw).any(|(p, q)| (p - q).abs() > 1e-6));
            }
        }
        match (d.counterfactuals.first(), m.counterfactuals.first()) {
            (Some(x), Some(y)) => assert!(same_cost(x.cost, y.cost), "case {case}"),
            (None, None) => {}
            other => panic!("case {case}: {other:?}"),
        }
        diverse += usize::from(d.counterfactuals.len() > 1);
    }
    eprintln!(
        "limited {limited}, no answer at the limit {unknown}, blocked {blocked}, \
         with alternatives {diverse}"
    );
    // Best first, the first answer of a small ensemble is usually proven at
    // once; answers at a limit are checked below at a node limit of 1 and on
    // HELOC (`tests/trees_heloc.rs`).
    assert!(limited + unknown >= 1, "no search stopped at its limit");
    assert!(blocked >= 3, "infeasible with blocking groups: {blocked}");
    assert!(diverse >= 20, "applicants with alternatives: {diverse}");
}

/// The search stopped after its first node, on the brute force's cases:
/// every answer is either proven and the brute force's optimum, or labelled
/// at the limit with a lower bound the optimum respects, or absent — and
/// each of the three happens (counted and asserted: a branch never taken
/// proves nothing).
#[test]
fn tree_search_at_a_node_limit_of_one_is_honest_against_brute_force() {
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(41);
    let (mut proven, mut limited, mut unknown, mut infeasible) = (0, 0, 0, 0);
    for case in 0..300 {
        let (schema, factual, ens) =
            random_tree_case(&mut rng, case, [Source::Xgboost, Source::Lightgbm]);
        let oracle = brute_force(&schema, &ens, &factual, Config::default().margin);
        let config = Config {
            solver: SolverChoice::TreeSearch,
            node_limit: 1,
            ..Config::default()
        };
        let ex = explain(&schema, &ens, &factual, &config).unwrap();
        match (&ex.outcome, ex.counterfactuals.first(), oracle) {
            (Outcome::Optimal, Some(cf), Some(best)) => {
                check_counterfactual(&schema, &ens, &factual, cf);
                assert!(same_cost(cf.cost, best), "case {case}");
                proven += 1;
            }
            (Outcome::TimeLimit { has_solution: true }, Some(cf), Some(best)) => {
                check_counterfactual(&schema, &ens, &factual, cf);
                let lower = cf.cost * (1.0 - cf.mip_gap);
                assert!(
                    cf.cost >= best - 1e-9 && lower <= best + 1e-9 * best.max(1.0),
                    "case {case}: cost {}, lower bound {lower}, optimum {best}",
                    cf.cost
                );
                limited += 1;
            }
            (Outcome::Unknown { raw_status }, None, _) => {
                assert_eq!(*raw_status, crate::coherent::SEPARABLE_NODE_LIMIT_STATUS);
                unknown += 1;
            }
            (Outcome::Infeasible { .. }, None, None) => infeasible += 1,
            other => panic!("case {case}: {other:?} (oracle {oracle:?})"),
        }
    }
    eprintln!(
        "node limit 1: {proven} proven, {limited} at the limit, {unknown} without answer, {infeasible} infeasible"
    );
    assert_eq!(proven + limited + unknown + infeasible, 300);
    assert!(
        proven >= 1 && limited >= 1 && unknown >= 1,
        "{proven} {limited} {unknown}"
    );
}

#[test]
fn tree_search_under_the_merged_bound_equals_brute_force_on_random_small_ensembles() {
    let mut feasible = 0;
    for_each_search_case(2024, 400, &SMALL_ENSEMBLES, |c, _, ts, _| {
        let oracle = c.oracle();
        ts.set_merged_bound(true);
        let res = ts.solve(&c.ens, c.need, 1_000_000, f64::INFINITY);
        feasible += usize::from(agrees_with_brute_force(&res, oracle, &c.case.to_string()));
    });
    assert!(feasible >= 200, "feasible cases: {feasible}");
}

/// Strong and reliability branching (`TreeSearch::set_strong_branching`)
/// change only the order and the shape of the search: on random ensembles of
/// 6–14 trees of depth 2–4 ([`BRANCHY_ENSEMBLES`], larger than
/// [`random_ensemble`]'s, so that searches branch often) each setting's
/// optimum equals the brute force's, and infeasibility is proven as such.
/// The settings cover full strong branching from the root, reliability
/// branching (pseudocosts trusted after one or two observations per side),
/// strong branching switched on after a few nodes, and the single rule; the
/// same `TreeSearch` runs them in turn, so that what one setting leaves in
/// its buffers meets the next.
#[test]
fn tree_search_under_strong_branching_equals_brute_force_on_random_ensembles() {
    let (mut feasible, mut compared, mut widened) = (0, 0, 0);
    let settings = BRANCHING_SETTINGS;
    for_each_search_case(2007, 300, &BRANCHY_ENSEMBLES, |c, _, ts, _| {
        let oracle = c.oracle();
        for (k, after, reliable, [late_after, late_k]) in settings {
            ts.set_strong_branching(k, after, reliable);
            ts.set_strong_branching_late(late_after, late_k);
            let res = ts.solve(&c.ens, c.need, 1_000_000, f64::INFINITY);
            compared += ts.strong_compared();
            // Searches past the widening hold nodes with more candidates
            // than `k`, never more than the widened count.
            assert!(ts.widest_candidates() <= k.max(late_k), "{}", c.case);
            widened += usize::from(ts.widest_candidates() > k && k > 1);
            let case = format!(
                "{} strong {k},{after},{reliable},{late_after},{late_k}",
                c.case
            );
            feasible += usize::from(agrees_with_brute_force(&res, oracle, &case));
        }
    });
    eprintln!(
        "strong branching vs brute force: {feasible} feasible, {compared} strong splits, \
         {widened} searches widened"
    );
    assert!(widened >= 5, "searches widened: {widened}");
    assert!(feasible >= 1000, "feasible cases: {feasible}");
    // The rule ran: many splits were chosen among several candidates (787
    // with reduced-cost fixing, which narrows the nodes, 800 and more
    // before it).
    assert!(compared >= 700, "strong splits: {compared}");
}

/// XGBoost's float32 sum at the edge: applicants whose own sum falls short of
/// the cut-off by less than the bound's float32 allowance
/// (`TreeSearch::prepare`), so that the bound lets through nodes whose every
/// witness is the declined candidate's leaf. The search splits such nodes
/// at tests on the candidate's paths and closes a node whose every point
/// takes those paths (its sum is the candidate's, declined); the optima
/// equal the brute force's, whose evaluator sums in float32 on its own, and
/// the search proves them in few nodes where splitting features anywhere
/// enumerated the candidate's look-alikes (a HELOC applicant took 31,609
/// nodes that way, 149 now; BENCHMARKS.md §4).
#[test]
fn tree_search_at_the_float32_edge_equals_brute_force() {
    use crate::coherent::separable::Workspace;
    use crate::coherent::tree_search::TreeSearch;
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(2432);
    let (mut ws, mut ts) = (Workspace::new(), TreeSearch::new());
    let (mut feasible, mut infeasible, mut nodes) = (0, 0, 0);
    let margin = Config::default().margin;
    for case in 0..300 {
        let (schema, factual, ens) =
            random_tree_case(&mut rng, 0, [Source::Xgboost, Source::Xgboost]);
        // The allowance as the search computes it: (trees + 1) float32
        // epsilons of the largest partial sum's bound.
        let magnitude = ens.base_score().abs()
            + ens
                .roots()
                .iter()
                .map(|&r| {
                    let mut m: f64 = 0.0;
                    crate::coherent::trees::for_each_node(ens.nodes(), r as usize, |k| {
                        if ens.nodes()[k].test == Test::Leaf {
                            m = m.max(ens.nodes()[k].value.abs());
                        }
                    });
                    m
                })
                .sum::<f64>();
        let allowance = (ens.roots().len() + 1) as f64 * f64::from(f32::EPSILON) * magnitude;
        // The cut-off a fraction of the allowance above the applicant's sum.
        let own = independent_margin(&ens, &factual);
        let need = own + allowance * rng.random_range(0.05..0.5);
        let ens = ens
            .with_threshold(crate::model::sigmoid(need - margin))
            .unwrap();
        if independent_margin(&ens, &factual) >= logit(ens.threshold()) + margin {
            continue;
        }
        let oracle = brute_force(&schema, &ens, &factual, margin);
        ws.build_tree_cells(&schema, &ens, &factual, &[]).unwrap();
        ts.prepare(&ws, &schema, &ens).unwrap();
        let res = ts.solve(
            &ens,
            logit(ens.threshold()) + margin,
            1_000_000,
            f64::INFINITY,
        );
        nodes += res.nodes;
        if agrees_with_brute_force(&res, oracle, &case.to_string()) {
            feasible += 1;
        } else {
            infeasible += 1;
        }
    }
    eprintln!(
        "float32 edge vs brute force: {feasible} feasible, {infeasible} infeasible, {nodes} nodes"
    );
    assert!(feasible >= 200, "feasible cases: {feasible}");
    // Splitting a feature anywhere, as the search did before, took 3,132.
    assert!(nodes <= 2_400, "nodes: {nodes}");
}

/// `ens` with one numeric inner node's threshold (drawn by `rng`) moved and
/// everything else equal; `None` when no inner node has a non-zero threshold.
/// The variant a cache keyed on the ensemble's shape alone would confuse.
fn with_one_threshold_moved(
    ens: &TreeEnsemble,
    rng: &mut Xoshiro256PlusPlus,
) -> Option<TreeEnsemble> {
    let mut json = serde_json::to_value(ens).unwrap();
    let numeric: Vec<usize> = {
        let nodes = json["nodes"].as_array().unwrap();
        (0..nodes.len())
            .filter(|&k| nodes[k]["threshold"].as_f64().is_some_and(|t| t != 0.0))
            .collect()
    };
    if numeric.is_empty() {
        return None;
    }
    let k = numeric[rng.random_range(0..numeric.len())];
    let t = json["nodes"][k]["threshold"].as_f64().unwrap();
    json["nodes"][k]["threshold"] = serde_json::json!(t + 0.37 * t.abs().max(0.1));
    Some(serde_json::from_value::<TreeEnsemble>(json).unwrap())
}

/// The cuts kept from one applicant to the next ([`super::PlainCuts`]) are
/// always those of the ensemble asked about: equal to a fresh computation
/// ([`super::all_feature_cuts_boxed`] at no box) over a sequence that asks
/// again for the same ensemble, for ensembles of other shapes, and for one
/// that differs from the last only in one threshold or one feature's range
/// (the cases a cache keyed on shape alone would get wrong).
#[test]
fn plain_cuts_kept_across_applicants_are_the_ensembles_own() {
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(4343);
    let mut kept = super::PlainCuts::default();
    let mut fresh = Vec::new();
    let (mut moved_threshold, mut moved_range, mut differ) = (0, 0, 0);
    for case in 0..150 {
        let (_, _, ens) = random_tree_case(&mut rng, case, [Source::Xgboost, Source::Lightgbm]);
        // One numeric inner node's threshold moved, everything else equal.
        let other_threshold = with_one_threshold_moved(&ens, &mut rng);
        moved_threshold += usize::from(other_threshold.is_some());
        // One contiguous feature's upper bound raised.
        let mut b = serde_json::to_value(&ens).unwrap();
        let value_input = b["inputs"]
            .as_array()
            .unwrap()
            .iter()
            .position(|i| i["upper"].as_f64().is_some());
        let other_range = value_input.map(|j| {
            let u = b["inputs"][j]["upper"].as_f64().unwrap();
            b["inputs"][j]["upper"] = serde_json::json!(u + 1.0 + u.abs());
            moved_range += 1;
            serde_json::from_value::<TreeEnsemble>(b).unwrap()
        });
        let sequence = [
            Some(&ens),
            Some(&ens),
            other_threshold.as_ref(),
            Some(&ens),
            other_range.as_ref(),
            Some(&ens),
        ];
        let mut last: Option<Vec<Vec<super::Cut>>> = None;
        for e in sequence.into_iter().flatten() {
            super::all_feature_cuts_boxed(e, &[], super::BoxKind::Reals, &mut fresh);
            assert_eq!(kept.of(e), &fresh[..], "case {case}");
            if let Some(before) = &last {
                differ += usize::from(before != &fresh);
            }
            last = Some(fresh.clone());
        }
    }
    // The variants did change the cuts often: a cache that kept the old
    // ones would have failed above.
    assert!(
        moved_threshold > 100 && moved_range > 100,
        "{moved_threshold} {moved_range}"
    );
    assert!(differ > 200, "{differ}");
}

/// The tree search's masks, one per test class ([`TreeSearch::prepare`]:
/// nodes with equal feature, test, threshold and missing-value direction
/// share one), are every node's own: each node's shared mask holds exactly
/// the options its own test sends left, over a sequence of ensembles asked
/// again, with one threshold moved, and new, on one reused search (whose
/// classes are kept while the ensemble's key holds).
#[test]
fn tree_search_masks_shared_by_test_classes_are_each_nodes_own() {
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(4344);
    let (mut ws, mut ts) = (Workspace::new(), TreeSearch::new());
    let (mut shared, mut checked, mut split_fewer) = (0, 0, 0);
    for case in 0..120 {
        let (schema, factual, ens) =
            random_tree_case(&mut rng, case, [Source::Xgboost, Source::Lightgbm]);
        let moved = with_one_threshold_moved(&ens, &mut rng);
        for e in [Some(&ens), Some(&ens), moved.as_ref(), Some(&ens)]
            .into_iter()
            .flatten()
        {
            ws.build_tree_cells(&schema, e, &factual, &[]).unwrap();
            ts.prepare(&ws, &schema, e).unwrap();
            let (own, classes) = ts.masks_are_each_nodes_own(e);
            assert!(own, "case {case}: a node's shared mask is not its own");
            // The split classes, numbered from the test classes, part the
            // nodes as their own (feature, left-going options) do; fewer
            // than the test classes wherever two thresholds fall in one
            // cell of the menu.
            let splits = ts.split_classes_are_by_feature_and_mask(e);
            split_fewer += usize::from(splits < classes);
            let inner = e.nodes().iter().filter(|n| n.test != Test::Leaf).count();
            shared += inner - classes;
            checked += 1;
        }
    }
    // Classes did merge nodes (repeated thresholds on grid features).
    assert!(checked > 400 && shared > 100, "{checked} {shared}");
    assert!(split_fewer > 10, "{split_fewer}");
}

/// `ens` with one leaf's value changed (thresholds and shapes kept): the
/// case a key over the tests alone would get wrong for tables that read
/// leaves.
fn with_one_leaf_changed(ens: &TreeEnsemble, rng: &mut Xoshiro256PlusPlus) -> TreeEnsemble {
    let mut json = serde_json::to_value(ens).unwrap();
    let leaves: Vec<usize> = {
        let nodes = json["nodes"].as_array().unwrap();
        (0..nodes.len())
            .filter(|&k| nodes[k]["test"] == serde_json::json!("leaf"))
            .collect()
    };
    let k = leaves[rng.random_range(0..leaves.len())];
    let v = json["nodes"][k]["value"].as_f64().unwrap_or(0.0);
    json["nodes"][k]["value"] = serde_json::json!(v + 1.5 + v.abs());
    serde_json::from_value::<TreeEnsemble>(json).unwrap()
}

/// The tree search's model-only tables kept from one applicant to the next
/// (parents, subtree maxima, nodes per feature, the primal heuristic's
/// index, the float32 allowance; `TreeSearch::build_model_tables`) are
/// always those of the ensemble asked about: equal to a fresh search's over
/// a sequence that asks again for the same ensemble, for ensembles of other
/// shapes, and for one that differs from the last in one leaf value (fails
/// when the key reads only the tests) or one threshold; and for a clone of
/// the last (the same build stamp, `TreeEnsemble::stamp`, which the key
/// compares first) and an equal ensemble read back from its JSON (another
/// stamp, compared node by node).
#[test]
fn tree_search_model_tables_kept_across_applicants_are_the_ensembles_own() {
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(4345);
    let (mut ws, mut kept) = (Workspace::new(), TreeSearch::new());
    let (mut checked, mut leaf_changes) = (0, 0);
    for case in 0..80 {
        let (schema, factual, ens) =
            random_tree_case(&mut rng, case, [Source::Xgboost, Source::Lightgbm]);
        let leaf = with_one_leaf_changed(&ens, &mut rng);
        let moved = with_one_threshold_moved(&ens, &mut rng);
        let leaf_clone = leaf.clone();
        let read_back: TreeEnsemble =
            serde_json::from_value(serde_json::to_value(&ens).unwrap()).unwrap();
        assert_eq!(leaf_clone.stamp(), leaf.stamp());
        assert_ne!(read_back.stamp(), ens.stamp());
        for (j, e) in [
            Some(&ens),
            Some(&ens),
            Some(&leaf),
            moved.as_ref(),
            Some(&ens),
            Some(&read_back),
            Some(&leaf_clone),
            Some(&ens),
        ]
        .into_iter()
        .enumerate()
        {
            let Some(e) = e else { continue };
            ws.build_tree_cells(&schema, e, &factual, &[]).unwrap();
            kept.prepare(&ws, &schema, e).unwrap();
            let mut fresh = TreeSearch::new();
            fresh.prepare(&ws, &schema, e).unwrap();
            assert_eq!(
                kept.model_tables(),
                fresh.model_tables(),
                "case {case}, step {j}"
            );
            checked += 1;
            leaf_changes += usize::from(j == 2);
        }
    }
    assert!(
        checked > 450 && leaf_changes == 80,
        "{checked} {leaf_changes}"
    );
}
