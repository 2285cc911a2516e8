//! Classifiers over the encoded space. For the logistic and MLP models the
//! score is the log-odds of the favourable outcome, the probability its
//! logistic link, and an applicant is accepted when the probability is strictly
//! above the threshold `t` (`h(x) = 1[f(x) > t]`, as CROCO and CARLA define it).
//! A points [`Scorecard`] scores in points and accepts `points ≥ cutoff`; the
//! trait says so through [`Model::score_threshold`], [`Model::accepts_ties`] and
//! [`Model::log_odds_of_score`], so that every method decides exactly as the
//! model does.

pub mod favourable;
pub(crate) mod linear;
pub mod load;
mod mlp;
pub mod onnx;
pub mod parity;
pub mod pmml;
pub mod scorecard;
pub mod trees;

pub use linear::{LinearModel, LogisticFit};
pub use mlp::{MlpModel, MlpTraining};
pub use scorecard::{Bin, BinRange, Characteristic, ScoreScaling, Scorecard};
pub use trees::TreeEnsemble;

use crate::error::{Error, Result};
use crate::schema::Schema;
use serde::{Deserialize, Serialize};

/// Version of the model JSON format.
pub const MODEL_FORMAT_VERSION: u32 = 1;

/// The logistic function.
#[inline]
pub fn sigmoid(z: f64) -> f64 {
    if z >= 0.0 {
        1.0 / (1.0 + (-z).exp())
    } else {
        let e = z.exp();
        e / (1.0 + e)
    }
}

/// `ln(t / (1 − t))`.
#[inline]
pub fn logit(t: f64) -> f64 {
    (t / (1.0 - t)).ln()
}

/// Points scored together by [`Model::score_perturbed`].
pub const PERTURBED_BLOCK: usize = 64;

/// Defines a function whose body is compiled twice — for AVX2 and for the
/// baseline target — and runs the variant the CPU supports (checked at run
/// time, a cached flag). Its bodies never ask for FMA, and Rust never fuses a
/// multiply and an add on its own, so both variants round exactly as the
/// baseline does: the choice changes the speed, never the bits. (An AVX-512
/// variant would need Rust 1.89, above this crate's `rust-version`.)
///
/// The `fma:` flavour (used by the MLP kernels and by Θ̃'s sigmoid) compiles the fast
/// variant for AVX2 + FMA instead, taken when the CPU has both. Its bodies use
/// `f64::mul_add`, which is exactly rounded (one rounding of `a·b + c`) on
/// every target: with FMA it becomes a `vfmadd` instruction, on the baseline a
/// slower software fma. The bits are therefore identical across CPUs; only the
/// speed differs.
macro_rules! simd_fn {
    (fma: $($def:tt)*) => {
        $crate::model::simd_fn!(@variant "avx2,fma" ["avx2" "fma"] $($def)*);
    };
    (@variant $features:tt [$($feature:tt)+] $(#[$m:meta])* $vis:vis fn $name:ident($($arg:ident : $ty:ty),* $(,)?) $(-> $ret:ty)? $body:block) => {
        $(#[$m])*
        $vis fn $name($($arg: $ty),*) $(-> $ret)? {
            #[inline(always)]
            fn inner($($arg: $ty),*) $(-> $ret)? $body
            #[cfg(target_arch = "x86_64")]
            {
                #[target_feature(enable = $features)]
                unsafe fn fast($($arg: $ty),*) $(-> $ret)? {
                    inner($($arg),*)
                }
                if $(std::arch::is_x86_feature_detected!($feature))&&+ {
                    // SAFETY: the CPU has every feature `fast` is compiled for
                    // (checked just above).
                    return unsafe { fast($($arg),*) };
                }
            }
            inner($($arg),*)
        }
    };
    ($($def:tt)*) => {
        $crate::model::simd_fn!(@variant "avx2" ["avx2"] $($def)*);
    };
}
pub(crate) use simd_fn;

/// What every method needs of a classifier.
///
/// `score`/`score_gradient` may allocate; the `_in` variants take a scratch
/// buffer of [`Model::scratch_len`] values and never allocate, for hot loops.
pub trait Model: Send + Sync + std::fmt::Debug {
    /// Length of the encoded input.
    fn input_dim(&self) -> usize;
    /// Decision threshold on the probability.
    fn threshold(&self) -> f64;
    /// Scratch needed by [`Model::score_in`] and [`Model::score_gradient_in`].
    fn scratch_len(&self) -> usize {
        0
    }
    /// The model's score, without allocating: the log-odds of the favourable
    /// outcome for logistic and MLP models, the points total for a scorecard
    /// (see [`Model::log_odds_of_score`]).
    fn score_in(&self, x: &[f64], scratch: &mut [f64]) -> f64;
    /// Gradient of the score with respect to the input, written into `grad`;
    /// returns the score. Never allocates.
    fn score_gradient_in(&self, x: &[f64], grad: &mut [f64], scratch: &mut [f64]) -> f64;
    /// The linear model behind this one, when it is linear (enables exact fast paths).
    fn as_linear(&self) -> Option<&LinearModel> {
        None
    }
    /// The scorecard behind this one, when it is a points scorecard (the
    /// coherent MIP builds its bin program from it).
    fn as_scorecard(&self) -> Option<&Scorecard> {
        None
    }
    /// The tree ensemble behind this one, when it is one (enables the tree MIP).
    fn as_trees(&self) -> Option<&TreeEnsemble> {
        None
    }
    /// The network behind this one, when it is an MLP (enables the ReLU MIP).
    fn as_mlp(&self) -> Option<&MlpModel> {
        None
    }
    /// Whether [`Model::score_gradient_in`] gives a useful input gradient.
    /// False for step functions (scorecards, tree ensembles): the methods that
    /// follow the gradient (Wachter, PROBE, CROCO) refuse such models
    /// ([`require_input_gradient`]).
    fn has_input_gradient(&self) -> bool {
        true
    }
    /// Whether the model has a probability (a scorecard without a scaling has
    /// none: Θ̃ and the CROCO bound refuse it).
    fn has_probability(&self) -> bool {
        true
    }
    /// Whether a score exactly at [`Model::score_threshold`] is accepted:
    /// false for the probability models (`f(x) > t`), true for scorecards
    /// (`points ≥ cutoff`).
    fn accepts_ties(&self) -> bool {
        false
    }
    /// The log-odds of the favourable outcome at a score: the score itself for
    /// logistic and MLP models; `(points − offset)/factor` for a scaled
    /// scorecard, NaN for an unscaled one.
    fn log_odds_of_score(&self, score: f64) -> f64 {
        score
    }
    /// [`Model::log_odds_of_score`] on a block of scores, in place (no-op for
    /// models whose score is the log-odds). Never allocates.
    fn scores_to_log_odds(&self, scores: &mut [f64]) {
        let _ = scores;
    }
    /// Whether a score is accepted: above [`Model::score_threshold`], or at it
    /// when [`Model::accepts_ties`].
    fn accepts_score(&self, score: f64) -> bool {
        let thr = self.score_threshold();
        score > thr || (self.accepts_ties() && score == thr)
    }

    /// Scratch needed by [`Model::prepare_perturbed`] and
    /// [`Model::score_perturbed`], for any set of noisy columns.
    fn perturbed_scratch_len(&self) -> usize {
        self.input_dim() + self.scratch_len()
    }
    /// Work done once per base point before [`Model::score_perturbed`] is
    /// called (any number of times) with the same `x` and `cols`. Never allocates.
    fn prepare_perturbed(&self, x: &[f64], cols: &[usize], scratch: &mut [f64]) {
        let _ = cols;
        scratch[..x.len()].copy_from_slice(x);
    }
    /// Scores of `n ≤ PERTURBED_BLOCK` points that differ from `x` only on
    /// the sorted columns `cols`: point `s` has the value `x[c] + δ` on
    /// `cols[k]`, with `δ = deltas[k · PERTURBED_BLOCK + s]` (column-major, so
    /// that one noisy column of a whole block is contiguous). Writes
    /// `out[..n]`. Must follow [`Model::prepare_perturbed`] with the same `x`
    /// and `cols`. The default builds each point and calls [`Model::score_in`];
    /// models override it with a block evaluation (Monte Carlo hot loop).
    /// Never allocates.
    fn score_perturbed(
        &self,
        x: &[f64],
        cols: &[usize],
        deltas: &[f64],
        n: usize,
        out: &mut [f64],
        scratch: &mut [f64],
    ) {
        let (point, rest) = scratch.split_at_mut(x.len());
        for (s, o) in out[..n].iter_mut().enumerate() {
            for (k, &c) in cols.iter().enumerate() {
                point[c] = x[c] + deltas[k * PERTURBED_BLOCK + s];
            }
            *o = self.score_in(point, rest);
        }
    }

    /// The model's score (see [`Model::score_in`]).
    fn score(&self, x: &[f64]) -> f64 {
        let mut s = vec![0.0; self.scratch_len()];
        self.score_in(x, &mut s)
    }
    /// Gradient of the score; returns the score.
    fn score_gradient(&self, x: &[f64], grad: &mut [f64]) -> f64 {
        let mut s = vec![0.0; self.scratch_len()];
        self.score_gradient_in(x, grad, &mut s)
    }
    /// The probability of the favourable outcome at a score: the logistic of
    /// [`Model::log_odds_of_score`], or the score itself for a model whose
    /// score is a probability (a random forest's averaged votes). The one
    /// conversion every method uses.
    fn probability_of_score(&self, score: f64) -> f64 {
        sigmoid(self.log_odds_of_score(score))
    }
    /// Probability of the favourable outcome.
    fn probability(&self, x: &[f64]) -> f64 {
        self.probability_of_score(self.score(x))
    }
    /// Whether the applicant is accepted: probability strictly above the
    /// threshold (a scorecard overrides it with `points ≥ cutoff`).
    fn accepts(&self, x: &[f64]) -> bool {
        self.probability(x) > self.threshold()
    }
    /// Whether the applicant is accepted, and the probability, from one
    /// score: what [`Model::accepts`] and [`Model::probability`] say, for
    /// callers that need both (a book's accepted applicants cost one score).
    /// A model that overrides either overrides this too.
    fn decide(&self, x: &[f64]) -> (bool, f64) {
        let p = sigmoid(self.log_odds_of_score(self.score(x)));
        (p > self.threshold(), p)
    }
    /// The threshold as a score: `logit(t)` (a scorecard's cutoff in points).
    fn score_threshold(&self) -> f64 {
        logit(self.threshold())
    }
}

/// Checks that `model` was made for `schema` — the one check every entry
/// point taking both runs before it scores anything (issue 41): the model
/// takes the schema's encoded dimension, and a model that knows its features
/// (a scorecard, a tree ensemble) knows them at the schema's places. A linear
/// or MLP model knows only its dimension, so a model built for another schema
/// of the same encoded dimension is beyond any check.
///
/// `whose` names where the schema comes from in the message ("the schema",
/// "the training dataset's schema", …), so the refusal names both inputs: a
/// model of another dimension would otherwise score the rows on the wrong
/// columns, or index past their end.
pub fn check_model_for_schema<M: Model + ?Sized>(
    model: &M,
    schema: &Schema,
    whose: &str,
) -> Result<()> {
    if model.input_dim() != schema.encoded_dim() {
        return Err(Error::DimensionMismatch {
            what: format!(
                "the model was not made for {whose}: the model takes {} encoded values,                  {whose} has {} features encoding {}; give a model built on this schema",
                model.input_dim(),
                schema.n_features(),
                schema.encoded_dim()
            ),
            expected: schema.encoded_dim(),
            got: model.input_dim(),
        });
    }
    let by_name = match (model.as_scorecard(), model.as_trees()) {
        (Some(card), _) => card.check_schema(schema),
        (None, Some(trees)) => trees.check_schema(schema),
        (None, None) => Ok(()),
    };
    by_name.map_err(|e| Error::InvalidArgument(format!("the model was not made for {whose}: {e}")))
}

/// Refuses a model without an input gradient, for the methods that follow the
/// gradient (Wachter, PROBE, CROCO, COPA): the one place that check lives.
pub fn require_input_gradient<M: Model + ?Sized>(model: &M, method: &str) -> Result<()> {
    if model.has_input_gradient() {
        Ok(())
    } else {
        Err(Error::InvalidArgument(format!(
            "{method} follows the model's input gradient, and this model has none: it is \
             a step function (a points scorecard or a tree ensemble). Use the coherent MIP \
             for exact counterfactuals and the Monte Carlo invalidation rate for robustness"
        )))
    }
}

/// Any cfx model, as stored in JSON and held behind the C ABI.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum AnyModel {
    Linear(LinearModel),
    Mlp(MlpModel),
    /// A points scorecard (kind `"scorecard"`), bound to the schema it was read with.
    Scorecard(Scorecard),
    /// A tree ensemble (kind `"trees"`), imported from XGBoost or LightGBM.
    Trees(TreeEnsemble),
}

/// The file layout: the format version beside the model's own keys. Read
/// by taking `format_version` out and reading the rest as an [`AnyModel`]
/// (serde's `flatten` would let unknown keys through).
#[derive(Serialize)]
struct ModelFile {
    format_version: u32,
    #[serde(flatten)]
    model: AnyModel,
}

impl AnyModel {
    /// Writes the model as JSON with its format version.
    pub fn to_json(&self) -> String {
        serde_json::to_string_pretty(&ModelFile {
            format_version: MODEL_FORMAT_VERSION,
            model: self.clone(),
        })
        .expect("a model always serialises")
    }

    /// Reads a model from JSON, validates it and checks its input dimension
    /// against the schema's encoded dimension.
    ///
    /// Unknown keys are refused, named with their place ([`crate::json`]):
    /// a misspelled `"threshhold"` must not leave the threshold at 0.5.
    pub fn from_json(json: &str, schema: &Schema) -> Result<AnyModel> {
        let mut v = crate::json::parse(json, "model")?;
        let version = crate::json::format_version(&v, "model")?;
        if version != MODEL_FORMAT_VERSION {
            return Err(Error::Format(format!(
                "model format version {version} is not supported (this cfx reads {MODEL_FORMAT_VERSION})"
            )));
        }
        // Dispatch on `kind` here rather than through serde's internal tagging,
        // which buffers the content and so loses the place of a nested error.
        let obj = v.as_object_mut().expect("format_version checked an object");
        obj.remove("format_version");
        let kind = match obj.remove("kind") {
            Some(serde_json::Value::String(k)) => k,
            Some(other) => {
                return Err(Error::Format(format!(
                    "model: 'kind' must be a string, got {other}"
                )));
            }
            None => return Err(Error::Format("model: missing key 'kind'".into())),
        };
        let mut model = match kind.as_str() {
            "linear" => AnyModel::Linear(crate::json::from_value(&v, "linear model")?),
            "mlp" => AnyModel::Mlp(crate::json::from_value(&v, "mlp model")?),
            "scorecard" => AnyModel::Scorecard(crate::json::from_value(&v, "scorecard")?),
            "trees" => AnyModel::Trees(crate::json::from_value(&v, "tree ensemble")?),
            other => {
                return Err(Error::Format(format!(
                    "model: unknown kind '{other}'; expected one of: linear, mlp, scorecard, trees"
                )));
            }
        };
        model.validate()?;
        match &mut model {
            AnyModel::Scorecard(s) => s.bind(schema)?,
            AnyModel::Trees(t) => t.check_schema(schema)?,
            AnyModel::Linear(_) | AnyModel::Mlp(_) => {}
        }
        crate::error::check_len(
            "model input dimension vs schema encoded dimension",
            schema.encoded_dim(),
            model.input_dim(),
        )?;
        Ok(model)
    }

    /// The score of an encoded row, refused when it is not a number: finite
    /// weights and inputs can still overflow to +∞ in one term and −∞ in
    /// another (weights near 1e308), and a NaN score has neither a
    /// probability nor a decision.
    pub fn checked_score(&self, x: &[f64]) -> Result<f64> {
        let mut scratch = vec![0.0; self.scratch_len()];
        self.checked_score_in(x, &mut scratch)
    }

    /// [`AnyModel::checked_score`] with a scratch buffer of
    /// [`Model::scratch_len`] values, for scoring many rows (allocates only
    /// the error).
    pub fn checked_score_in(&self, x: &[f64], scratch: &mut [f64]) -> Result<f64> {
        let score = self.score_in(x, scratch);
        if score.is_nan() {
            return Err(Error::InvalidArgument(
                "the model's score on this input is not a number: its terms overflow \
                 to opposite infinities"
                    .into(),
            ));
        }
        Ok(score)
    }

    /// Checks finiteness and shapes.
    pub fn validate(&self) -> Result<()> {
        match self {
            AnyModel::Linear(m) => m.validate(),
            AnyModel::Mlp(m) => m.validate(),
            AnyModel::Scorecard(m) => m.validate(),
            AnyModel::Trees(m) => m.validate(),
        }
    }

    fn inner(&self) -> &dyn Model {
        match self {
            AnyModel::Linear(m) => m,
            AnyModel::Mlp(m) => m,
            AnyModel::Scorecard(m) => m,
            AnyModel::Trees(m) => m,
        }
    }
}

impl Model for AnyModel {
    fn input_dim(&self) -> usize {
        self.inner().input_dim()
    }
    fn threshold(&self) -> f64 {
        self.inner().threshold()
    }
    fn scratch_len(&self) -> usize {
        self.inner().scratch_len()
    }
    fn score_in(&self, x: &[f64], scratch: &mut [f64]) -> f64 {
        self.inner().score_in(x, scratch)
    }
    fn score_gradient_in(&self, x: &[f64], grad: &mut [f64], scratch: &mut [f64]) -> f64 {
        self.inner().score_gradient_in(x, grad, scratch)
    }
    fn as_linear(&self) -> Option<&LinearModel> {
        self.inner().as_linear()
    }
    fn as_scorecard(&self) -> Option<&Scorecard> {
        self.inner().as_scorecard()
    }
    fn as_trees(&self) -> Option<&TreeEnsemble> {
        self.inner().as_trees()
    }
    fn as_mlp(&self) -> Option<&MlpModel> {
        self.inner().as_mlp()
    }
    fn has_input_gradient(&self) -> bool {
        self.inner().has_input_gradient()
    }
    fn has_probability(&self) -> bool {
        self.inner().has_probability()
    }
    fn accepts_ties(&self) -> bool {
        self.inner().accepts_ties()
    }
    fn log_odds_of_score(&self, score: f64) -> f64 {
        self.inner().log_odds_of_score(score)
    }
    fn scores_to_log_odds(&self, scores: &mut [f64]) {
        self.inner().scores_to_log_odds(scores)
    }
    fn probability_of_score(&self, score: f64) -> f64 {
        self.inner().probability_of_score(score)
    }
    fn accepts_score(&self, score: f64) -> bool {
        self.inner().accepts_score(score)
    }
    fn score_threshold(&self) -> f64 {
        self.inner().score_threshold()
    }
    fn probability(&self, x: &[f64]) -> f64 {
        self.inner().probability(x)
    }
    fn accepts(&self, x: &[f64]) -> bool {
        self.inner().accepts(x)
    }
    fn decide(&self, x: &[f64]) -> (bool, f64) {
        self.inner().decide(x)
    }
    fn perturbed_scratch_len(&self) -> usize {
        self.inner().perturbed_scratch_len()
    }
    fn prepare_perturbed(&self, x: &[f64], cols: &[usize], scratch: &mut [f64]) {
        self.inner().prepare_perturbed(x, cols, scratch)
    }
    fn score_perturbed(
        &self,
        x: &[f64],
        cols: &[usize],
        deltas: &[f64],
        n: usize,
        out: &mut [f64],
        scratch: &mut [f64],
    ) {
        self.inner()
            .score_perturbed(x, cols, deltas, n, out, scratch)
    }
}

/// Checks training labels: each 0 or 1, and at least one row of each class.
/// A fit on one class learns nothing about the other (a logistic fit on
/// declined applicants only returns a model that declines everyone), so it is
/// refused before any work.
pub fn check_training_labels(y: &[f64]) -> Result<()> {
    if let Some(i) = y.iter().position(|&v| v != 0.0 && v != 1.0) {
        return Err(Error::InvalidArgument(format!(
            "labels must be 0 or 1, but label {i} is {}",
            y[i]
        )));
    }
    let favourable = y.iter().filter(|&&v| v == 1.0).count();
    if favourable == 0 || favourable == y.len() {
        return Err(Error::InvalidArgument(format!(
            "training needs at least one row of each class, but all {} rows are {}",
            y.len(),
            if favourable == 0 {
                "unfavourable (0)"
            } else {
                "favourable (1)"
            }
        )));
    }
    Ok(())
}

/// Fraction of rows whose decision matches the label.
pub fn accuracy(model: &dyn Model, x: &[Vec<f64>], y: &[f64]) -> f64 {
    if x.is_empty() {
        return f64::NAN;
    }
    let hits = x
        .iter()
        .zip(y)
        .filter(|(xi, yi)| model.accepts(xi) == (**yi > 0.5))
        .count();
    hits as f64 / x.len() as f64
}

#[cfg(test)]
mod tests;
