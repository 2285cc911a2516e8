//! ONNX models as cfx models: exact or refused.
//!
//! ONNX is how MLOps teams ship a model (skl2onnx, onnxmltools, the deep
//! learning exporters); onnxruntime is its reference evaluator. cfx decodes
//! the file with prost into the messages of the committed `onnx-ml.proto`
//! (generated at build time, [`proto`]) — no hand-written wire decoder — and
//! maps one binary classifier graph onto the caller's [`Schema`]:
//!
//! * `ai.onnx.ml` `LinearClassifier` (LOGISTIC or SOFTMAX post-transform), and
//!   `MatMul`/`Gemm` (+ `Add`) graphs ending in `Sigmoid` (one unit) or
//!   `Softmax` (two) → a [`crate::model::LinearModel`] (`dense`);
//! * the same graphs with hidden layers (`Relu`, `Tanh`, `Sigmoid`) → a
//!   [`crate::model::MlpModel`] (the exact engine proves ReLU networks only; a
//!   tanh/sigmoid network is read for the gradient methods);
//! * `ai.onnx.ml` `TreeEnsembleClassifier` / `TreeEnsembleRegressor` (opsets 1
//!   and 3; every node mode, `missing_value_tracks_true`, `base_values`, the
//!   LOGISTIC and two-class SOFTMAX post-transforms, float32 or double
//!   thresholds) → a [`crate::model::TreeEnsemble`] compared and summed as
//!   onnxruntime does (`trees`).
//!
//! The formatting nodes converters put after the probability (`ZipMap`,
//! `Cast`, `Identity`, `ArgMax`, `ArrayFeatureExtractor`, `Concat` with
//! `1 − p`, a `Mul` by one, …) are accepted by kind: they never feed the
//! probability cfx reads. Any other operator, any operator domain but
//! `ai.onnx` and `ai.onnx.ml`, and every graph shape cfx does not evaluate
//! exactly is refused, naming the node and its operator.
//!
//! The graph has one input tensor `[N, d]` and no feature names: the caller
//! gives the column order in [`OnnxOptions::columns`] (each a schema feature —
//! its value, or a categorical's level index — or a one-hot level
//! `<feature>=<level>`), or the schema's feature order is taken, and the import
//! report says which. A graph's classes do not say which outcome the bank
//! wants: the caller declares the favourable class (required).
//!
//! # What "exact" means
//! onnxruntime evaluates a float32 graph in float32: the row is cast to
//! float32, the trees compare the cast value with float32 thresholds and sum
//! the leaves in float32, and linear/MLP layers multiply and add in float32.
//! cfx's tree ensembles do the same comparisons and sums (the same leaf in
//! every tree, the same float32 margin up to the order onnxruntime sums in);
//! cfx's linear and MLP models evaluate the file's float32 weights exactly in
//! f64 on the real inputs, so their probabilities agree with onnxruntime's to
//! float32 precision (tests/data/onnx: within 1e-6 on every row), not bit for
//! bit.

mod dense;
mod graph;
pub mod proto;
mod trees;

#[cfg(test)]
mod tests;

use crate::error::{Error, Result};
use crate::model::AnyModel;
use crate::model::favourable::ScoreIs;
use crate::schema::Schema;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// Files above this size are refused before they are read (64 MiB).
pub const MAX_ONNX_BYTES: usize = 64 << 20;

/// What the caller declares about an ONNX model (the file does not say it).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct OnnxOptions {
    /// The input tensor's columns in order: a schema feature's name (its
    /// value, or a categorical's level index) or `<feature>=<level>` (a
    /// one-hot 0/1 column). Default: the schema's features in order.
    #[serde(default)]
    pub columns: Option<Vec<String>>,
    /// The favourable class: its integer label (`classlabels_int64s`, or 0/1
    /// for a graph without labels). Required (or `score_is`, or
    /// `favourable_label` for string labels).
    #[serde(default)]
    pub favourable_class: Option<i64>,
    /// The favourable class by its string label (`classlabels_strings`).
    #[serde(default)]
    pub favourable_label: Option<String>,
    /// `"probability_of_default"` (class 0 favourable) or
    /// `"probability_of_favourable"` (class 1), for a two-class graph.
    #[serde(default)]
    pub score_is: Option<ScoreIs>,
    /// The cutoff on the graph's probability of its second class (default
    /// 0.5): accepted above it when that class is favourable, below otherwise.
    #[serde(default)]
    pub threshold: Option<f64>,
    /// Contiguous features whose special states the model was trained to see
    /// as missing values (NaN) rather than as their codes.
    #[serde(default)]
    pub special_as_missing: Vec<String>,
    /// Per categorical feature read as a level-index column, the value the
    /// model saw for each level (default: the level's index).
    #[serde(default)]
    pub category_codes: BTreeMap<String, BTreeMap<String, i64>>,
}

/// Reads an ONNX model (the bytes of a `.onnx` file) onto `schema` (see the
/// module docs). The model's `import_report` says what was read and assumed.
pub fn from_onnx_bytes(bytes: &[u8], schema: &Schema, opts: &OnnxOptions) -> Result<AnyModel> {
    if bytes.is_empty() {
        // Protobuf reads no bytes as an empty ModelProto; say what happened.
        return Err(Error::Format(
            "ONNX: no bytes (an empty model; give the content of a .onnx file)".into(),
        ));
    }
    if bytes.len() > MAX_ONNX_BYTES {
        return Err(Error::Format(format!(
            "ONNX: {} bytes, above cfx's limit of {MAX_ONNX_BYTES}",
            bytes.len()
        )));
    }
    let model = graph::decode(bytes)?;
    let g = graph::Graph::read(&model)?;
    let cols = graph::Columns::resolve(&g, schema, opts)?;
    let mut report = vec![g.describe(&model)];
    report.push(cols.describe());
    match g.core()? {
        graph::Core::Trees(node) => trees::read(&g, node, &cols, schema, opts, report),
        graph::Core::Linear(node) => dense::read_linear(&g, node, &cols, schema, opts, report),
        graph::Core::Dense(chain) => dense::read(&g, chain, &cols, schema, opts, report),
    }
}

/// Reads an ONNX file (see [`from_onnx_bytes`]); a file above [`MAX_ONNX_BYTES`] is
/// refused before it is read.
pub fn from_onnx_file(
    path: &std::path::Path,
    schema: &Schema,
    opts: &OnnxOptions,
) -> Result<AnyModel> {
    let shown = path.display();
    let len = std::fs::metadata(path)
        .map_err(|e| Error::Io(format!("{shown}: {e}")))?
        .len();
    if len > MAX_ONNX_BYTES as u64 {
        return Err(Error::Format(format!(
            "ONNX: {shown} has {len} bytes, above cfx's limit of {MAX_ONNX_BYTES}"
        )));
    }
    let bytes = std::fs::read(path).map_err(|e| Error::Io(format!("{shown}: {e}")))?;
    from_onnx_bytes(&bytes, schema, opts)
}

/// Which of a two-class graph's classes is favourable, from the options and
/// the graph's labels (`labels`: the class labels as written, or `None` for a
/// graph without labels, whose classes are 0 and 1). Returns the favourable
/// class's index and the report line.
pub(crate) fn favourable_index(
    labels: Option<&[String]>,
    int_labels: bool,
    opts: &OnnxOptions,
) -> Result<(usize, String)> {
    let names: Vec<String> = match labels {
        Some(l) => l.to_vec(),
        None => vec!["0".into(), "1".into()],
    };
    if names.len() != 2 {
        return Err(Error::Format(format!(
            "ONNX: the classifier has {} classes; cfx reads binary classifiers",
            names.len()
        )));
    }
    let by_class = match (opts.favourable_class, &opts.favourable_label) {
        (Some(_), Some(_)) => {
            return Err(Error::InvalidArgument(
                "give favourable_class or favourable_label, not both".into(),
            ));
        }
        (Some(c), None) => {
            if labels.is_some() && !int_labels {
                return Err(Error::InvalidArgument(format!(
                    "the classifier's labels are strings ({}, {}): declare favourable_label",
                    names[0], names[1]
                )));
            }
            Some(
                names
                    .iter()
                    .position(|n| *n == c.to_string())
                    .ok_or_else(|| {
                        Error::InvalidArgument(format!(
                            "favourable_class {c} is not a class of the model ({}, {})",
                            names[0], names[1]
                        ))
                    })?,
            )
        }
        (None, Some(l)) => Some(names.iter().position(|n| n == l).ok_or_else(|| {
            Error::InvalidArgument(format!(
                "favourable_label '{l}' is not a class of the model ({}, {})",
                names[0], names[1]
            ))
        })?),
        (None, None) => None,
    };
    let by_score = opts.score_is.map(|s| match s {
        ScoreIs::ProbabilityOfFavourable => 1usize,
        ScoreIs::ProbabilityOfDefault => 0usize,
    });
    let k = match (by_class, by_score) {
        (Some(a), Some(b)) if a != b => {
            return Err(Error::InvalidArgument(format!(
                "the declared favourable class ('{}') contradicts score_is",
                names[a]
            )));
        }
        (Some(k), _) | (None, Some(k)) => k,
        (None, None) => {
            return Err(Error::Format(format!(
                "ONNX: the model predicts the classes '{}' and '{}' but does not say which is \
                 favourable: declare \"favourable_class\" (the label of the class the bank \
                 accepts{}), or \"score_is\": \"probability_of_default\" if the model's \
                 probability of '{}' is that of default",
                names[0],
                names[1],
                if int_labels || labels.is_none() {
                    ""
                } else {
                    "; favourable_label for string labels"
                },
                names[1]
            )));
        }
    };
    let cutoff = opts.threshold.unwrap_or(0.5);
    crate::model::linear::check_threshold(cutoff)?;
    let line = if k == 1 {
        format!(
            "favourable class '{}' (declared; the model's second class): accepted iff the \
             model's probability of '{}' is above {cutoff}",
            names[1], names[1]
        )
    } else {
        format!(
            "favourable class '{}' (declared; the model's first class): the model's \
             probability of '{}' is taken as the probability of DEFAULT; cfx's score is minus \
             the model's margin and an applicant is accepted iff that probability is below \
             {cutoff}",
            names[0], names[1]
        )
    };
    Ok((k, line))
}

/// The threshold on cfx's favourable probability for the options' cutoff on
/// the model's probability of its second class.
pub(crate) fn threshold_of(k: usize, opts: &OnnxOptions) -> f64 {
    let c = opts.threshold.unwrap_or(0.5);
    if k == 1 { c } else { 1.0 - c }
}
