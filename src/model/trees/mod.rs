//! Gradient-boosted tree ensembles (XGBoost, LightGBM, CatBoost) and
//! Explainable Boosting Machines as a cfx model kind.
//!
//! An additive ensemble of binary trees over the *raw* feature values of a
//! [`Schema`]: the score (log-odds of the favourable outcome) is the base score
//! plus the value of the one leaf each tree sends the applicant to, with the
//! logistic link, as both libraries define the margin of a `binary:logistic` /
//! `binary` model — or, for a random forest, the probability itself (the
//! trees' averaged votes, [`Output::Probability`]). The trees are stored as one flat array of [`Node`]s (children
//! are indices, no boxed recursion) and evaluated without allocating.
//!
//! # What a tree sees of a feature
//! A contiguous feature reaches its numeric splits as its value; in a special
//! state the trees see the state's code (as HELOC's −7/−8/−9 are usually
//! trained) or a missing value (`NaN`), chosen per feature at import
//! ([`SpecialInput`]). A categorical feature reaches the trees as its level:
//! every split on it — the library's native categorical split, a numeric split
//! on a one-hot column `<feature>=<level>`, or a numeric split on an ordinal
//! column of level indices — is turned at import into the set of levels that
//! go left ([`Test::Levels`]).
//!
//! # The comparison rules (checked against the libraries to 1e-6 on HELOC)
//! * XGBoost ([`Test::BelowF32`]): left when `(x as f32) < threshold`, the
//!   threshold being a float32; a missing value follows `default_left`.
//! * LightGBM ([`Test::AtMost`], [`Test::AtMostZeroMissing`],
//!   [`Test::AtMostNanMissing`]): a `NaN` becomes 0 unless the missing type is
//!   NaN; a value that counts as missing (|x| ≤ 1e-35 as a float32 under
//!   "Zero", NaN under "NaN") follows `default_left`; otherwise left when
//!   `x ≤ threshold`.
//! * CatBoost (`BelowF32` with the next float32 above the border: bit 1 when
//!   `float32(x) > border`) and EBMs (`AtMostNanMissing` with the float64
//!   below the cut: the upper bin when `x ≥ cut`): see `catboost.rs` and
//!   `ebm.rs`, checked against the libraries' own scores on every committed
//!   row (tests/data/catboost, tests/data/ebm).
//! * ONNX `ai.onnx.ml` tree ensembles ([`Test::OnnxF32`], [`Test::OnnxF64`]):
//!   left (the node's "true" branch) when `x CMP threshold` for the node's
//!   mode (≤, <, ≥, >, =, ≠), a missing value following `default_left`
//!   (`missing_value_tracks_true`, or ≠, which NaN satisfies). onnxruntime
//!   compares in the input tensor's type: a float32 input is the value cast
//!   to float32 (as a pipeline feeding the tensor casts it) against a float32
//!   threshold, a double input the value itself.
//!
//! # Raw rows and the encoded space
//! [`TreeEnsemble::margin_raw`] scores a raw row exactly as the library scores
//! the same numbers. Through the [`Model`] trait the ensemble reads an encoded
//! vector: each slot is decoded to its raw value with the schema's own formula
//! (`L + slot·(U − L)`, snapped onto the integer/step grid when within
//! [`COHERENCE_TOL`], as [`Schema::decode`] does), so a coherent encoded vector
//! scores exactly as its raw row. A tree model has no input gradient
//! ([`Model::has_input_gradient`] is false): gradient methods refuse it.

mod block;
mod catboost;
mod ebm;
mod import;
mod lightgbm;
mod xgboost;

#[cfg(test)]
mod catboost_ebm_tests;
#[cfg(test)]
mod tests;

pub use import::{ColumnTarget, ImportOptions, TreesUsed};
pub(crate) use import::{LibModel, LibNode, build as build_from_library};

use super::Model;
use crate::error::{Error, Result};
use crate::schema::{COHERENCE_TOL, Feature, FeatureKind, Schema};
use serde::{Deserialize, Serialize};

/// A special state of a contiguous feature as the trees see it: its code, or
/// (when declared at import) a missing value, which each split sends its
/// default way.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SpecialInput {
    /// The schema's code of the state.
    pub code: f64,
    /// The trees see `NaN` instead of the code.
    #[serde(default, skip_serializing_if = "is_false")]
    pub as_missing: bool,
}

fn is_false(b: &bool) -> bool {
    !*b
}

impl SpecialInput {
    fn value(self) -> f64 {
        if self.as_missing { f64::NAN } else { self.code }
    }
}

/// How one schema feature reaches the trees, with what the evaluator needs to
/// decode it from the encoded vector (a copy of the schema's own definition,
/// checked against the schema when the model is read).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case", deny_unknown_fields)]
pub enum FeatureInput {
    /// A contiguous feature: its value in `[lower, upper]`, or per special state
    /// what the trees see instead.
    Value {
        name: String,
        lower: f64,
        upper: f64,
        /// The grid of an integer / step feature: `(base, step)`; values decode
        /// to `base + k·step` (integer features: `(0, 1)`).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        grid: Option<(f64, f64)>,
        specials: Vec<SpecialInput>,
    },
    /// A categorical feature with `levels` one-hot columns.
    Levels { name: String, levels: usize },
}

impl FeatureInput {
    fn width(&self) -> usize {
        match self {
            FeatureInput::Value { specials, .. } => 1 + specials.len(),
            FeatureInput::Levels { levels, .. } => *levels,
        }
    }

    fn name(&self) -> &str {
        match self {
            FeatureInput::Value { name, .. } | FeatureInput::Levels { name, .. } => name,
        }
    }
}

/// The test of an inner node (or a leaf).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case", deny_unknown_fields)]
pub enum Test {
    /// A leaf: the node's `value` is added to the score.
    Leaf,
    /// XGBoost: left when `(x as f32) < threshold`; NaN follows `default_left`.
    BelowF32,
    /// LightGBM, missing type None: NaN counts as 0; left when `x ≤ threshold`.
    AtMost,
    /// LightGBM, missing type Zero: NaN counts as 0; |x| ≤ 1e-35 (float32)
    /// follows `default_left`; otherwise left when `x ≤ threshold`.
    AtMostZeroMissing,
    /// LightGBM, missing type NaN: NaN follows `default_left`; otherwise left
    /// when `x ≤ threshold`.
    AtMostNanMissing,
    /// A categorical feature: level `k` goes left when `level_left[offset + k]`.
    Levels(u32),
    /// ONNX, float32 input: left when `(x as f32) CMP threshold` (a float32
    /// threshold); NaN follows `default_left`.
    OnnxF32(OnnxMode),
    /// ONNX, double input: left when `x CMP threshold`; NaN follows
    /// `default_left`.
    OnnxF64(OnnxMode),
}

/// The comparison of an ONNX tree node (`nodes_modes`: BRANCH_LEQ, BRANCH_LT,
/// BRANCH_GTE, BRANCH_GT, BRANCH_EQ, BRANCH_NEQ); the node's "true" branch is
/// cfx's left child.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum OnnxMode {
    Leq,
    Lt,
    Gte,
    Gt,
    Eq,
    Neq,
}

impl OnnxMode {
    /// Every comparison (for tests that draw one; crate-private, so that
    /// the C header's generator does not export the type).
    #[cfg(test)]
    pub(crate) const ALL: [OnnxMode; 6] = [
        OnnxMode::Leq,
        OnnxMode::Lt,
        OnnxMode::Gte,
        OnnxMode::Gt,
        OnnxMode::Eq,
        OnnxMode::Neq,
    ];

    /// Whether `x CMP t` (both not NaN).
    #[inline]
    pub fn holds(self, x: f64, t: f64) -> bool {
        match self {
            OnnxMode::Leq => x <= t,
            OnnxMode::Lt => x < t,
            OnnxMode::Gte => x >= t,
            OnnxMode::Gt => x > t,
            OnnxMode::Eq => x == t,
            OnnxMode::Neq => x != t,
        }
    }
}

/// LightGBM's `kZeroThreshold` (a float32 constant).
pub const LIGHTGBM_ZERO: f64 = 1e-35f32 as f64;

/// One node of the flat array.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Node {
    pub test: Test,
    /// The schema feature tested (inner nodes).
    #[serde(default)]
    pub feature: u32,
    /// The split threshold of a numeric test.
    #[serde(default)]
    pub threshold: f64,
    /// Where a missing value goes.
    #[serde(default)]
    pub default_left: bool,
    /// Children (indices into the node array; inner nodes).
    #[serde(default)]
    pub left: u32,
    #[serde(default)]
    pub right: u32,
    /// The leaf value (leaves).
    #[serde(default)]
    pub value: f64,
}

impl Node {
    /// A leaf with the given value.
    pub fn leaf(value: f64) -> Node {
        Node {
            test: Test::Leaf,
            feature: 0,
            threshold: 0.0,
            default_left: false,
            left: 0,
            right: 0,
            value,
        }
    }

    /// Whether a numeric test sends `x` left (the library's own rule).
    #[inline]
    pub fn numeric_left(&self, x: f64) -> bool {
        match self.test {
            Test::BelowF32 => {
                if x.is_nan() {
                    self.default_left
                } else {
                    ((x as f32) as f64) < self.threshold
                }
            }
            Test::AtMost => {
                let x = if x.is_nan() { 0.0 } else { x };
                x <= self.threshold
            }
            Test::AtMostZeroMissing => {
                let x = if x.is_nan() { 0.0 } else { x };
                if (-LIGHTGBM_ZERO..=LIGHTGBM_ZERO).contains(&x) {
                    self.default_left
                } else {
                    x <= self.threshold
                }
            }
            Test::AtMostNanMissing => {
                if x.is_nan() {
                    self.default_left
                } else {
                    x <= self.threshold
                }
            }
            Test::OnnxF32(m) => {
                if x.is_nan() {
                    self.default_left
                } else {
                    m.holds((x as f32) as f64, self.threshold)
                }
            }
            Test::OnnxF64(m) => {
                if x.is_nan() {
                    self.default_left
                } else {
                    m.holds(x, self.threshold)
                }
            }
            Test::Leaf | Test::Levels(_) => false,
        }
    }
}

/// Where the model came from (documentation and the comparison rules' origin).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Source {
    Xgboost,
    Lightgbm,
    /// CatBoost's JSON model: oblivious trees, float32 comparisons (as
    /// [`Test::BelowF32`]), leaves summed in f64.
    Catboost,
    /// An Explainable Boosting Machine (interpret's JSON): one tree per term,
    /// float64 comparisons, summed in f64.
    Ebm,
    /// An ONNX graph with a float32 input (onnxruntime sums in float32).
    OnnxF32,
    /// An ONNX graph with a double input (onnxruntime sums in double).
    OnnxF64,
    /// A PMML boosted MiningModel under jpmml's `x-mathContext="float"`
    /// (jpmml-xgboost): float32 comparisons ([`Test::OnnxF32`]), leaves summed
    /// in float32 from zero, then the constant — as jpmml-evaluator sums.
    PmmlF32,
    /// A PMML boosted MiningModel in double precision ([`Test::OnnxF64`]),
    /// summed in double from zero, then the constant.
    PmmlF64,
    /// A scikit-learn gradient boosting classifier read from the live object
    /// by the Python binding (`bindings/python/src/cfx/_sklearn.py`):
    /// `GradientBoostingClassifier` compares float32 inputs with float64
    /// thresholds ([`Test::OnnxF32`] `leq`), `HistGradientBoostingClassifier`
    /// float64 inputs ([`Test::OnnxF64`] `leq`); both add the leaves to the
    /// initial raw prediction in f64, tree after tree (scikit-learn's
    /// `predict_stages` and `_predict_iterations`), as LightGBM does.
    Sklearn,
}

impl Source {
    /// Whether the library sums the leaves in float32 (XGBoost's predictor,
    /// onnxruntime on a float32 input) rather than f64 (LightGBM, CatBoost,
    /// interpret, onnxruntime on a double input).
    pub fn sums_in_f32(self) -> bool {
        matches!(self, Source::Xgboost | Source::OnnxF32 | Source::PmmlF32)
    }
}

fn half() -> f64 {
    0.5
}

/// What the base score plus the leaves is — the one place the ensemble's link
/// lives. Every conversion between the score, the log-odds and the
/// probability of a tree ensemble goes through it (through the [`Model`]
/// methods `score_threshold`, `log_odds_of_score`, `probability_of_score`), so
/// that the exact search, the tree MIP, the robustness box, TreeSHAP reasons
/// and Monte Carlo rates work on either kind: each asks only that the score be
/// a sum of leaves compared with a cut-off.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Output {
    /// The log-odds of the favourable outcome (a boosted model: XGBoost,
    /// LightGBM, CatBoost, EBM): the probability is `σ(score)`, accepted when
    /// `score > logit(t)`.
    #[default]
    Margin,
    /// The probability of the favourable outcome itself: a random forest's
    /// averaged votes, each leaf holding its tree's class probability divided
    /// by the number of trees (Breiman 2001, §2: the forest predicts the mean
    /// of its trees' class-probability estimates), so that
    /// `(1/n)·Σ p_leaf > t` is still a sum of leaves against a cut-off:
    /// accepted when `score > t`.
    Probability,
    /// The sum of `trees` class probabilities, one per tree, whose mean is the
    /// probability of the favourable outcome: a random forest as
    /// jpmml-evaluator averages it (`multipleModelMethod="average"`: the
    /// leaves' probabilities summed in double in tree order, then divided by
    /// the number of trees). Dividing each leaf by `n` first
    /// ([`Output::Probability`]) rounds differently, so the score keeps the
    /// sum and the division happens where the evaluator does it: the
    /// probability is `score / n`, and the cut-off as a score is the largest
    /// double `S` with `S / n ≤ t`, so that `score > S` is exactly
    /// `score / n > t` (division by `n` is monotone in floating point).
    MeanOf {
        /// The number of trees `n` (the divisor).
        trees: u32,
    },
}

impl Output {
    fn is_margin(&self) -> bool {
        *self == Output::Margin
    }

    /// The probability of the favourable outcome at a score.
    #[inline]
    pub fn probability(self, score: f64) -> f64 {
        match self {
            Output::Margin => super::sigmoid(score),
            Output::Probability => score,
            Output::MeanOf { trees } => score / f64::from(trees),
        }
    }

    /// The log-odds of the favourable outcome at a score.
    #[inline]
    pub fn log_odds(self, score: f64) -> f64 {
        match self {
            Output::Margin => score,
            Output::Probability => super::logit(score),
            Output::MeanOf { trees } => super::logit(score / f64::from(trees)),
        }
    }

    /// The score at which the probability is `t` (the cut-off as a score).
    #[inline]
    pub fn score_of_probability(self, t: f64) -> f64 {
        match self {
            Output::Margin => super::logit(t),
            Output::Probability => t,
            Output::MeanOf { trees } => largest_sum_at_most(t, f64::from(trees)),
        }
    }
}

/// The largest double `s` with `s / n ≤ t` (`n ≥ 1`, `t` finite): the
/// cut-off of an [`Output::MeanOf`] score. `s ↦ s / n` is monotone
/// non-decreasing in IEEE arithmetic, so `{s : s / n ≤ t}` is a down-set and
/// `score > s ⟺ score / n > t` for every double `score`. Starts at `t·n`,
/// which is within a few ulps, and steps one ulp at a time.
fn largest_sum_at_most(t: f64, n: f64) -> f64 {
    let mut s = t * n;
    while s / n > t {
        s = ulp_step(s, false);
    }
    while ulp_step(s, true) / n <= t {
        s = ulp_step(s, true);
    }
    s
}

/// The next double above (`up`) or below a finite `x` (`f64::next_up` /
/// `next_down` are newer than the crate's MSRV).
pub(crate) fn ulp_step(x: f64, up: bool) -> f64 {
    if x == 0.0 {
        let tiny = f64::from_bits(1);
        return if up { tiny } else { -tiny };
    }
    let b = x.to_bits();
    f64::from_bits(if (x > 0.0) == up { b + 1 } else { b - 1 })
}

/// An additive ensemble of binary trees over a schema's raw features, with a
/// base score and the logistic link, or a probability output ([`Output`];
/// see the module docs). Read from JSON
/// through [`TreeEnsemble::new`], so a deserialised ensemble is validated.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(try_from = "EnsembleFile", into = "EnsembleFile")]
pub struct TreeEnsemble {
    source: Source,
    output: Output,
    base_score: f64,
    threshold: f64,
    inputs: Vec<FeatureInput>,
    roots: Vec<u32>,
    nodes: Vec<Node>,
    level_left: Vec<bool>,
    /// What the import assumed (see [`TreeEnsemble::import_report`]).
    import_report: Vec<String>,
    /// The training cover of each node (see [`TreeEnsemble::covers`]); empty
    /// when unknown.
    covers: Vec<f64>,
    /// First encoded column of each feature (derived).
    starts: Vec<usize>,
    /// Which build this is (see [`BuildStamp`]).
    stamp: BuildStamp,
}

/// A number each ensemble gets when [`TreeEnsemble::new`] builds it, shared
/// by its clones and kept by the `with_*` methods, none of which changes what
/// it stands for (the nodes, roots, inputs, base score and source, fixed by
/// `new`: the ensemble has no other way to change). Tables built from an
/// ensemble and kept across calls (`coherent::trees::EnsembleKey`) compare it
/// before comparing the ensemble itself: a book's applicants share one model,
/// and comparing its nodes for every applicant was about 2 % of the tree
/// book's work (issue 43). Not part of the ensemble's value: two equal
/// ensembles built apart compare equal.
#[derive(Debug, Clone, Copy)]
struct BuildStamp(u64);

impl BuildStamp {
    fn next() -> BuildStamp {
        static NEXT: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(1);
        BuildStamp(NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed))
    }
}

impl PartialEq for BuildStamp {
    fn eq(&self, _: &BuildStamp) -> bool {
        true
    }
}

/// The stored form of a [`TreeEnsemble`].
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct EnsembleFile {
    source: Source,
    /// What the score is (absent: the log-odds, as every boosted model).
    #[serde(default, skip_serializing_if = "Output::is_margin")]
    output: Output,
    /// Added to the sum of the leaves (XGBoost: `logit(base_score)`; LightGBM: 0).
    base_score: f64,
    #[serde(default = "half")]
    threshold: f64,
    /// One per schema feature, in schema order.
    inputs: Vec<FeatureInput>,
    /// The root node of each tree.
    roots: Vec<u32>,
    nodes: Vec<Node>,
    /// The left-going levels of every [`Test::Levels`] node, concatenated.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    level_left: Vec<bool>,
    /// What the import from the library's file assumed, one line per fact.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    import_report: Vec<String>,
    /// The training cover of each node, parallel to `nodes` (XGBoost's
    /// `sum_hessian`, LightGBM's `internal_count`/`leaf_count`); absent when
    /// unknown.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    covers: Vec<f64>,
}

impl TryFrom<EnsembleFile> for TreeEnsemble {
    type Error = Error;
    fn try_from(f: EnsembleFile) -> Result<TreeEnsemble> {
        TreeEnsemble::new(
            f.source,
            f.base_score,
            f.threshold,
            f.inputs,
            f.roots,
            f.nodes,
            f.level_left,
        )
        .and_then(|m| m.with_output(f.output))
        .and_then(|m| m.with_covers(f.covers))
        .map(|m| m.with_import_report(f.import_report))
    }
}

impl From<TreeEnsemble> for EnsembleFile {
    fn from(m: TreeEnsemble) -> EnsembleFile {
        EnsembleFile {
            source: m.source,
            output: m.output,
            base_score: m.base_score,
            threshold: m.threshold,
            inputs: m.inputs,
            roots: m.roots,
            nodes: m.nodes,
            level_left: m.level_left,
            import_report: m.import_report,
            covers: m.covers,
        }
    }
}

impl TreeEnsemble {
    /// Builds and validates an ensemble.
    pub fn new(
        source: Source,
        base_score: f64,
        threshold: f64,
        inputs: Vec<FeatureInput>,
        roots: Vec<u32>,
        nodes: Vec<Node>,
        level_left: Vec<bool>,
    ) -> Result<TreeEnsemble> {
        let mut m = TreeEnsemble {
            source,
            output: Output::Margin,
            base_score,
            threshold,
            inputs,
            roots,
            nodes,
            level_left,
            import_report: Vec::new(),
            covers: Vec::new(),
            starts: Vec::new(),
            stamp: BuildStamp::next(),
        };
        m.validate()?;
        let mut start = 0;
        m.starts = m
            .inputs
            .iter()
            .map(|f| {
                let s = start;
                start += f.width();
                s
            })
            .collect();
        Ok(m)
    }

    /// Imports an XGBoost JSON model (`Booster.save_model("m.json")`,
    /// objective `binary:logistic`, booster `gbtree`) onto a schema.
    pub fn from_xgboost_json(
        json: &str,
        schema: &Schema,
        options: &ImportOptions,
    ) -> Result<TreeEnsemble> {
        xgboost::import(json, schema, options)
    }

    /// Imports a LightGBM text model (`Booster.save_model("m.txt")`, objective
    /// `binary`) onto a schema. (The `dump_model()` JSON is not read.)
    pub fn from_lightgbm_text(
        text: &str,
        schema: &Schema,
        options: &ImportOptions,
    ) -> Result<TreeEnsemble> {
        lightgbm::import(text, schema, options)
    }

    /// Imports a CatBoost JSON model (`model.save_model("m.json",
    /// format="json", pool=…)`, loss `Logloss`, oblivious trees) onto a schema
    /// (the rules: the module docs of `catboost.rs`).
    pub fn from_catboost_json(
        json: &str,
        schema: &Schema,
        options: &ImportOptions,
    ) -> Result<TreeEnsemble> {
        catboost::import(json, schema, options)
    }

    /// Imports an Explainable Boosting Machine (interpret's JSON,
    /// `ebm.to_json(…)`, version "1.0", binary, logit link) onto a schema:
    /// one tree per term (the rules: the module docs of `ebm.rs`).
    pub fn from_ebm_json(
        json: &str,
        schema: &Schema,
        options: &ImportOptions,
    ) -> Result<TreeEnsemble> {
        ebm::import(json, schema, options)
    }

    /// The same model with the given import report.
    pub fn with_import_report(mut self, report: Vec<String>) -> TreeEnsemble {
        self.import_report = report;
        self
    }

    /// Every assumption the import from the library's file made, one line per
    /// fact: which trees are summed (all, or up to the best iteration), the
    /// objective's link, how special states and categorical levels reach the
    /// trees (codes, names, unseen, missing). Empty for an ensemble built by
    /// hand. Kept in the model JSON (`import_report`), so C and every binding
    /// read it from `cfx_model_to_json`.
    pub fn import_report(&self) -> &[String] {
        &self.import_report
    }

    /// The same model with the training cover of each node (parallel to
    /// [`TreeEnsemble::nodes`]; empty for unknown): what the path-dependent
    /// TreeSHAP of Lundberg et al. (2020, Algorithm 2 of the 2018 preprint)
    /// weighs the branches a feature does not decide by. Each must be finite
    /// and non-negative and every root's positive. A node no training row
    /// reached (cover 0, as CatBoost's full oblivious trees have) is skipped by
    /// the TreeSHAP walk (its branch fractions would be 0/0), which is exact
    /// only when it adds nothing: every leaf of cover 0 must have the value 0
    /// and every child of a node of cover 0 the cover 0.
    pub fn with_covers(mut self, covers: Vec<f64>) -> Result<TreeEnsemble> {
        if !covers.is_empty() {
            if covers.len() != self.nodes.len() {
                return Err(Error::Format(format!(
                    "tree ensemble: {} covers for {} nodes",
                    covers.len(),
                    self.nodes.len()
                )));
            }
            let bad = |k: usize, why: &str| {
                Err(Error::Format(format!(
                    "tree ensemble: node {k} has cover {} ({why})",
                    covers[k]
                )))
            };
            for (k, c) in covers.iter().enumerate() {
                if !(c.is_finite() && *c >= 0.0) {
                    return bad(k, "a cover is a finite count or hessian sum");
                }
            }
            for &r in &self.roots {
                let r = r as usize;
                if self.nodes[r].test != Test::Leaf && covers[r] <= 0.0 {
                    return bad(r, "a tree's root must have a positive cover");
                }
            }
            for (k, n) in self.nodes.iter().enumerate() {
                if covers[k] > 0.0 {
                    continue;
                }
                if n.test == Test::Leaf {
                    if n.value != 0.0 {
                        return bad(
                            k,
                            "a leaf no training row reached must have the value 0, not \
                             the value it has",
                        );
                    }
                } else if covers[n.left as usize] != 0.0 || covers[n.right as usize] != 0.0 {
                    return bad(
                        k,
                        "its children, which no training row reached either, must too",
                    );
                }
            }
        }
        self.covers = covers;
        Ok(self)
    }

    /// The training cover of each node (parallel to [`TreeEnsemble::nodes`]),
    /// when the import kept it: the number of training rows (LightGBM) or
    /// their hessian sum (XGBoost) that reached the node.
    pub fn covers(&self) -> Option<&[f64]> {
        (!self.covers.is_empty()).then_some(&self.covers[..])
    }

    /// The same model with its score read as `output`. A probability output
    /// is checked to be one: every score the trees can reach lies in
    /// `[0, 1]` (bounded tree by tree by the smallest and largest leaf).
    pub fn with_output(mut self, output: Output) -> Result<TreeEnsemble> {
        if let Output::MeanOf { trees } = output {
            if trees as usize != self.roots.len() || self.base_score != 0.0 {
                return Err(Error::Format(format!(
                    "tree ensemble: the score is said to be the sum of {trees} trees' \
                     probabilities, but the ensemble has {} trees and the base score {}",
                    self.roots.len(),
                    self.base_score
                )));
            }
            if let Some(n) = self
                .nodes
                .iter()
                .position(|n| n.test == Test::Leaf && !(0.0..=1.0).contains(&n.value))
            {
                return Err(Error::Format(format!(
                    "tree ensemble: the score is said to be a sum of probabilities, but leaf \
                     {n} holds {}",
                    self.nodes[n].value
                )));
            }
        }
        if output == Output::Probability {
            let (mut lo, mut hi) = (self.base_score, self.base_score);
            let leaves = |k: usize| {
                let mut stack = vec![k];
                let (mut a, mut b) = (f64::INFINITY, f64::NEG_INFINITY);
                while let Some(k) = stack.pop() {
                    let n = &self.nodes[k];
                    if n.test == Test::Leaf {
                        a = a.min(n.value);
                        b = b.max(n.value);
                    } else {
                        stack.push(n.left as usize);
                        stack.push(n.right as usize);
                    }
                }
                (a, b)
            };
            for &r in &self.roots {
                let (a, b) = leaves(r as usize);
                lo += a;
                hi += b;
            }
            // A float32 sum of n leaves may pass 1 by a few ulps.
            let slack = 1e-5;
            if lo < -slack || hi > 1.0 + slack {
                return Err(Error::Format(format!(
                    "tree ensemble: the score is said to be a probability, but the trees reach \
                     scores from {lo} to {hi}, outside [0, 1]"
                )));
            }
        }
        self.output = output;
        Ok(self)
    }

    /// What the score is: the log-odds or the probability of the favourable
    /// outcome.
    pub fn output(&self) -> Output {
        self.output
    }

    /// The same model with another decision threshold.
    pub fn with_threshold(mut self, t: f64) -> Result<TreeEnsemble> {
        super::linear::check_threshold(t)?;
        self.threshold = t;
        Ok(self)
    }

    /// The ensemble's build stamp (see [`BuildStamp`]): equal stamps, the
    /// same nodes, roots, inputs, base score and source.
    pub(crate) fn stamp(&self) -> u64 {
        self.stamp.0
    }

    /// Number of trees.
    pub fn n_trees(&self) -> usize {
        self.roots.len()
    }

    /// The library the model was imported from.
    pub fn source(&self) -> Source {
        self.source
    }

    /// Added to the sum of the leaves.
    pub fn base_score(&self) -> f64 {
        self.base_score
    }

    /// How each schema feature reaches the trees.
    pub fn inputs(&self) -> &[FeatureInput] {
        &self.inputs
    }

    /// The root node of each tree.
    pub fn roots(&self) -> &[u32] {
        &self.roots
    }

    /// The flat node array.
    pub fn nodes(&self) -> &[Node] {
        &self.nodes
    }

    /// Whether level `k` goes left at a [`Test::Levels`] node.
    pub fn level_goes_left(&self, node: &Node, k: usize) -> bool {
        match node.test {
            Test::Levels(off) => self
                .level_left
                .get(off as usize + k)
                .copied()
                .unwrap_or(false),
            _ => false,
        }
    }

    /// Checks shapes, indices, finiteness and that every tree is a tree (each
    /// node reached once, from its root, no cycles).
    pub fn validate(&self) -> Result<()> {
        let bad = |m: String| Err(Error::Format(format!("tree ensemble: {m}")));
        super::linear::check_threshold(self.threshold)?;
        if !self.base_score.is_finite() {
            return bad(format!("base score {} is not finite", self.base_score));
        }
        if self.inputs.is_empty() {
            return bad("no features".into());
        }
        if self.roots.is_empty() {
            return bad("no trees".into());
        }
        for f in &self.inputs {
            if let FeatureInput::Value {
                name,
                lower,
                upper,
                grid,
                ..
            } = f
            {
                if !(lower.is_finite() && upper.is_finite() && lower <= upper) {
                    return bad(format!("feature '{name}': bad range [{lower}, {upper}]"));
                }
                if let Some((b, s)) = grid {
                    if !(b.is_finite() && s.is_finite() && *s > 0.0) {
                        return bad(format!("feature '{name}': bad grid ({b}, {s})"));
                    }
                }
            }
        }
        let n = self.nodes.len();
        let mut reached = vec![false; n];
        let mut stack = Vec::new();
        for &r in &self.roots {
            stack.push(r as usize);
            while let Some(k) = stack.pop() {
                if k >= n {
                    return bad(format!("node index {k} out of range ({n} nodes)"));
                }
                if reached[k] {
                    return bad(format!("node {k} is reached twice"));
                }
                reached[k] = true;
                let node = self.nodes[k];
                if node.test == Test::Leaf {
                    if !node.value.is_finite() {
                        return bad(format!("leaf {k} has a non-finite value"));
                    }
                    continue;
                }
                let f = node.feature as usize;
                let Some(input) = self.inputs.get(f) else {
                    return bad(format!("node {k} tests feature {f}, which does not exist"));
                };
                match (node.test, input) {
                    (Test::Levels(off), FeatureInput::Levels { levels, .. }) => {
                        if off as usize + levels > self.level_left.len() {
                            return bad(format!("node {k}: level set out of range"));
                        }
                    }
                    (Test::Levels(_), _) => {
                        return bad(format!("node {k}: a level test on a contiguous feature"));
                    }
                    (_, FeatureInput::Levels { .. }) => {
                        return bad(format!("node {k}: a numeric test on a categorical feature"));
                    }
                    (
                        Test::OnnxF32(OnnxMode::Eq | OnnxMode::Neq)
                        | Test::OnnxF64(OnnxMode::Eq | OnnxMode::Neq),
                        FeatureInput::Value {
                            name, grid: None, ..
                        },
                    ) => {
                        // The exact search splits a real range into cells
                        // separated by a gap: one point has no cell of its own.
                        return bad(format!(
                            "node {k}: an equality test (ONNX BRANCH_EQ/BRANCH_NEQ) on the \
                             real-valued feature '{name}' singles out one value, which cfx's \
                             exact search cannot isolate; declare the feature integer or with a \
                             step in the schema if it takes whole values"
                        ));
                    }
                    _ => {
                        // JSON holds finite numbers only: an infinite
                        // threshold would be written as null.
                        if !node.threshold.is_finite() {
                            return bad(format!(
                                "node {k}: threshold {} is not finite",
                                node.threshold
                            ));
                        }
                    }
                }
                stack.push(node.left as usize);
                stack.push(node.right as usize);
            }
        }
        Ok(())
    }

    /// Checks that the ensemble's feature inputs describe this schema.
    pub fn check_schema(&self, schema: &Schema) -> Result<()> {
        crate::error::check_len(
            "tree ensemble features vs schema features",
            schema.n_features(),
            self.inputs.len(),
        )?;
        for (f, input) in schema.features.iter().zip(&self.inputs) {
            let same = match (&f.kind, input) {
                (
                    FeatureKind::Contiguous {
                        lower,
                        upper,
                        special_states,
                        ..
                    },
                    FeatureInput::Value {
                        name,
                        lower: l,
                        upper: u,
                        grid,
                        specials,
                    },
                ) => {
                    name == &f.name
                        && l == lower
                        && u == upper
                        && *grid == feature_grid(&f.kind)
                        && specials.len() == special_states.len()
                        && specials
                            .iter()
                            .zip(special_states)
                            .all(|(s, st)| s.code == st.code)
                }
                (FeatureKind::Categorical { levels }, FeatureInput::Levels { name, levels: n }) => {
                    name == &f.name && *n == levels.len()
                }
                _ => false,
            };
            if !same {
                return Err(Error::Format(format!(
                    "tree ensemble: feature '{}' does not match the schema's feature '{}'",
                    input.name(),
                    f.name
                )));
            }
        }
        Ok(())
    }

    /// The margin (log-odds) of a raw row, exactly as the library computes it
    /// (up to the order of the floating-point sum). Never allocates. The row
    /// must be coherent under the schema the model was imported on.
    pub fn margin_raw(&self, raw: &[f64]) -> f64 {
        self.sum_leaves(|r| self.leaf_raw(r, raw).value)
    }

    /// The base score plus the leaves, summed as the library sums them:
    /// XGBoost in float32, tree by tree from the base margin (its predictor's
    /// accumulator is a float; summing in f64 differs by up to 1.6e-6 on HELOC),
    /// LightGBM in f64; onnxruntime tree by tree from zero, then the base
    /// value, in float32 for a float32 input and in double for a double one.
    #[inline]
    fn sum_leaves(&self, leaf: impl Fn(usize) -> f64) -> f64 {
        self.sum_tree_values(self.roots.iter().map(|&r| leaf(r as usize)))
    }

    /// The base score plus one leaf value per tree (in tree order), summed as
    /// the library sums them (see `sum_leaves`): the one place of that rule.
    #[inline]
    pub(crate) fn sum_tree_values(&self, values: impl Iterator<Item = f64>) -> f64 {
        match self.source {
            Source::Xgboost => {
                let mut sum = self.base_score as f32;
                for v in values {
                    sum += v as f32;
                }
                sum as f64
            }
            Source::Lightgbm | Source::Catboost | Source::Ebm | Source::Sklearn => {
                let mut sum = self.base_score;
                for v in values {
                    sum += v;
                }
                sum
            }
            Source::OnnxF32 | Source::PmmlF32 => {
                let mut sum = 0.0f32;
                for v in values {
                    sum += v as f32;
                }
                (sum + self.base_score as f32) as f64
            }
            Source::OnnxF64 | Source::PmmlF64 => {
                let mut sum = 0.0;
                for v in values {
                    sum += v;
                }
                sum + self.base_score
            }
        }
    }

    /// The leaf a raw row reaches from node `k`.
    pub fn leaf_raw(&self, mut k: usize, raw: &[f64]) -> &Node {
        loop {
            let node = &self.nodes[k];
            let left = match node.test {
                Test::Leaf => return node,
                Test::Levels(off) => {
                    let level = raw[node.feature as usize];
                    level >= 0.0 && self.level_left[off as usize + level as usize]
                }
                _ => {
                    let f = node.feature as usize;
                    node.numeric_left(self.raw_input(f, raw[f]))
                }
            };
            k = if left { node.left } else { node.right } as usize;
        }
    }

    /// What the trees see of raw value `v` of contiguous feature `f`: the value,
    /// a special state's code, or `NaN` for a state declared missing.
    #[inline]
    fn raw_input(&self, f: usize, v: f64) -> f64 {
        if let FeatureInput::Value {
            specials,
            lower,
            upper,
            ..
        } = &self.inputs[f]
        {
            // Special codes lie outside [L, U]; only they need mapping.
            if v < *lower || v > *upper {
                if let Some(s) = specials.iter().find(|s| s.code == v) {
                    return s.value();
                }
            }
        }
        v
    }

    /// What the trees see of feature `f` in the encoded vector `x`: decoded
    /// with the schema's formula (see the module docs); for a categorical
    /// feature, the index of the level whose indicator is on.
    #[inline]
    pub(crate) fn encoded_input(&self, f: usize, x: &[f64]) -> f64 {
        let s = self.starts[f];
        match &self.inputs[f] {
            FeatureInput::Value {
                lower,
                upper,
                grid,
                specials,
                ..
            } => {
                for (j, sp) in specials.iter().enumerate() {
                    if x[s + 1 + j] > 0.5 {
                        return sp.value();
                    }
                }
                let slot = x[s];
                let mut v = if upper > lower {
                    lower + slot * (upper - lower)
                } else {
                    *lower
                };
                let tol = COHERENCE_TOL * (upper - lower).max(1.0);
                if let Some((base, step)) = grid {
                    let k = ((v - base) / step).round();
                    let snapped = base + k * step;
                    if (snapped - v).abs() <= tol {
                        v = snapped;
                    }
                }
                if (lower - tol..=upper + tol).contains(&v) {
                    v = v.clamp(*lower, *upper);
                }
                v
            }
            FeatureInput::Levels { levels, .. } => {
                for k in 0..*levels {
                    if x[s + k] > 0.5 {
                        return k as f64;
                    }
                }
                -1.0
            }
        }
    }

    /// The leaf an encoded vector reaches from node `k`.
    pub fn leaf_encoded(&self, k: usize, x: &[f64]) -> &Node {
        self.descend(k, |f| self.encoded_input(f, x))
    }

    /// The leaf reached from node `k` when the trees see `input(f)` of each
    /// feature `f` (what [`TreeEnsemble::encoded_input`] decodes), the one walk
    /// shared by the encoded evaluator and the Monte Carlo block scorer.
    #[inline]
    fn descend(&self, mut k: usize, input: impl Fn(usize) -> f64) -> &Node {
        loop {
            let node = &self.nodes[k];
            let v = match node.test {
                Test::Leaf => return node,
                _ => input(node.feature as usize),
            };
            k = if self.goes_left(node, v) {
                node.left
            } else {
                node.right
            } as usize;
        }
    }

    /// Whether inner node `node` sends input `v` (what the trees see of its
    /// feature: a value, a code, `NaN`, or a level index) left.
    #[inline]
    pub(crate) fn goes_left(&self, node: &Node, v: f64) -> bool {
        match node.test {
            Test::Levels(off) => v >= 0.0 && self.level_left[off as usize + v as usize],
            _ => node.numeric_left(v),
        }
    }
}

impl FeatureInput {
    /// What the trees see of a schema feature: a contiguous value with its
    /// grid and special states (each reaching the trees as its code, or as a
    /// missing value when `special_as_missing`), or a categorical's levels.
    pub(crate) fn of_feature(f: &Feature, special_as_missing: bool) -> FeatureInput {
        match &f.kind {
            FeatureKind::Contiguous {
                lower,
                upper,
                special_states,
                ..
            } => FeatureInput::Value {
                name: f.name.clone(),
                lower: *lower,
                upper: *upper,
                grid: feature_grid(&f.kind),
                specials: special_states
                    .iter()
                    .map(|s| SpecialInput {
                        code: s.code,
                        as_missing: special_as_missing,
                    })
                    .collect(),
            },
            FeatureKind::Categorical { levels } => FeatureInput::Levels {
                name: f.name.clone(),
                levels: levels.len(),
            },
        }
    }
}

/// The grid of a contiguous feature as [`FeatureInput::Value`] stores it.
pub(crate) fn feature_grid(kind: &FeatureKind) -> Option<(f64, f64)> {
    match kind {
        FeatureKind::Contiguous {
            lower,
            step: Some(st),
            ..
        } => Some((*lower, *st)),
        FeatureKind::Contiguous { integer: true, .. } => Some((0.0, 1.0)),
        _ => None,
    }
}

impl Model for TreeEnsemble {
    fn input_dim(&self) -> usize {
        self.inputs.iter().map(FeatureInput::width).sum()
    }
    fn threshold(&self) -> f64 {
        self.threshold
    }
    /// One value per feature: what the trees see, decoded once per score.
    fn scratch_len(&self) -> usize {
        self.inputs.len()
    }
    /// Decodes each feature once into `scratch` (when it holds
    /// [`Model::scratch_len`] values) and walks the trees on the decoded
    /// values: the walk reads the same values [`TreeEnsemble::leaf_encoded`]
    /// decodes at every node (a 100-tree depth-4 model decodes a feature
    /// about 17 times per score), so the score is equal to the bit.
    fn score_in(&self, x: &[f64], scratch: &mut [f64]) -> f64 {
        let n = self.inputs.len();
        if scratch.len() < n {
            return self.sum_leaves(|r| self.leaf_encoded(r, x).value);
        }
        for (f, v) in scratch[..n].iter_mut().enumerate() {
            *v = self.encoded_input(f, x);
        }
        let seen = &scratch[..n];
        self.sum_leaves(|r| self.descend(r, |f| seen[f]).value)
    }
    /// Trees are piecewise constant: the gradient is zero almost everywhere and
    /// says nothing about where the score changes. Writes zeros; callers that
    /// need a gradient check [`Model::has_input_gradient`] first.
    fn score_gradient_in(&self, x: &[f64], grad: &mut [f64], scratch: &mut [f64]) -> f64 {
        grad.fill(0.0);
        self.score_in(x, scratch)
    }
    fn has_input_gradient(&self) -> bool {
        false
    }
    fn log_odds_of_score(&self, score: f64) -> f64 {
        self.output.log_odds(score)
    }
    fn scores_to_log_odds(&self, scores: &mut [f64]) {
        if !self.output.is_margin() {
            for s in scores {
                *s = self.output.log_odds(*s);
            }
        }
    }
    fn probability_of_score(&self, score: f64) -> f64 {
        self.output.probability(score)
    }
    fn score_threshold(&self) -> f64 {
        self.output.score_of_probability(self.threshold)
    }
    fn as_trees(&self) -> Option<&TreeEnsemble> {
        Some(self)
    }
    fn perturbed_scratch_len(&self) -> usize {
        self.block_scratch_len()
    }
    fn prepare_perturbed(&self, x: &[f64], cols: &[usize], scratch: &mut [f64]) {
        self.prepare_block(x, cols, scratch);
    }
    /// Scores a block of noisy copies feature-decoded once per copy and walked
    /// tree by tree (see the `block` module); equal to [`Model::score_in`] to
    /// the bit.
    fn score_perturbed(
        &self,
        x: &[f64],
        cols: &[usize],
        deltas: &[f64],
        n: usize,
        out: &mut [f64],
        scratch: &mut [f64],
    ) {
        self.score_block(x, cols, deltas, n, out, scratch);
    }
}
