//! `LinearClassifier` and MatMul/Gemm layer graphs → a cfx
//! [`LinearModel`] (one layer) or [`MlpModel`] (hidden layers).
//!
//! The first layer reads the input tensor's columns; cfx's models read the
//! schema's encoded space (a contiguous feature's slot `(v − L)/(U − L)` and
//! one indicator per special state, a categorical one-hot). A column term
//! `w·v` becomes the slot weight `w·(U − L)` and the bias term `w·L`; a
//! special state's indicator carries `w·code − w·L − w·(U − L)·F` (the slot
//! then holds the schema's fixed value `F`), so the state scores `w·code` as
//! the graph does; a one-hot column `<feature>=<level>` lands on the level's
//! indicator, a level-index column puts `w·k` on level k's indicator. The
//! output is the log-odds of the graph's second class: a single sigmoid
//! unit's pre-activation, or the difference of the two softmax units'
//! (`z₁ − z₀`, exact in f64 from float32 weights); negated (exactly) when the
//! first class is favourable.

use super::graph::{Act, Graph, Layer, attr, fail, node_name};
use super::proto::NodeProto;
use super::{OnnxOptions, favourable_index, threshold_of};
use crate::error::{Error, Result};
use crate::model::{AnyModel, LinearModel, MlpModel};
use crate::nn::{Activation, Dense, Network};
use crate::schema::{FeatureKind, Schema};

/// A column resolved against the schema.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Col {
    Value(usize),
    Ordinal(usize),
    OneHot(usize, usize),
}

fn resolve(schema: &Schema, name: &str) -> Result<Col> {
    if let Some(i) = schema.features.iter().position(|f| f.name == name) {
        return Ok(if schema.features[i].is_contiguous() {
            Col::Value(i)
        } else {
            Col::Ordinal(i)
        });
    }
    if let Some((f, l)) = name.split_once('=') {
        if let Some(i) = schema.features.iter().position(|x| x.name == f) {
            if let FeatureKind::Categorical { levels } = &schema.features[i].kind {
                if let Some(k) = levels.iter().position(|x| x == l) {
                    return Ok(Col::OneHot(i, k));
                }
            }
        }
    }
    Err(fail(format!(
        "input column '{name}' is neither a schema feature nor <feature>=<level> of a \
         categorical feature"
    )))
}

/// The first layer's rows moved from the input columns onto the encoded space.
fn to_encoded(
    layer: &Layer,
    names: &[String],
    schema: &Schema,
    opts: &OnnxOptions,
    report: &mut Vec<String>,
) -> Result<(Vec<f64>, Vec<f64>)> {
    let cols: Vec<Col> = names
        .iter()
        .map(|n| resolve(schema, n))
        .collect::<Result<_>>()?;
    for (a, ca) in cols.iter().enumerate() {
        if cols[a + 1..].contains(ca) {
            return Err(fail(format!("input column '{}' is given twice", names[a])));
        }
    }
    for name in &opts.special_as_missing {
        if cols
            .iter()
            .any(|c| matches!(c, Col::Value(i) if schema.features[*i].name == *name))
        {
            return Err(Error::InvalidArgument(format!(
                "special_as_missing '{name}': a linear or MLP graph scores a missing (NaN) \
                 input as NaN (onnxruntime gives no probability); declare the codes the model \
                 was trained on instead"
            )));
        }
    }
    let d = schema.encoded_dim();
    let mut weights = vec![0.0; layer.n_out * d];
    let mut bias = layer.bias.clone();
    for o in 0..layer.n_out {
        let row = &layer.weights[o * layer.n_in..(o + 1) * layer.n_in];
        let wo = &mut weights[o * d..(o + 1) * d];
        for (c, &w) in cols.iter().zip(row) {
            match *c {
                Col::Value(i) => {
                    let FeatureKind::Contiguous {
                        lower,
                        upper,
                        special_states,
                        fixed_value,
                        ..
                    } = &schema.features[i].kind
                    else {
                        unreachable!("a value column is contiguous")
                    };
                    let start = schema.layout(i).start;
                    let slot_w = if upper > lower {
                        w * (upper - lower)
                    } else {
                        0.0
                    };
                    wo[start] += slot_w;
                    bias[o] += w * lower;
                    for (j, s) in special_states.iter().enumerate() {
                        wo[start + 1 + j] += w * s.code - w * lower - slot_w * fixed_value;
                    }
                }
                Col::Ordinal(i) => {
                    let f = &schema.features[i];
                    let FeatureKind::Categorical { levels } = &f.kind else {
                        unreachable!("an ordinal column is categorical")
                    };
                    let codes = opts.category_codes.get(&f.name);
                    let start = schema.layout(i).start;
                    for (k, l) in levels.iter().enumerate() {
                        let code = match codes {
                            Some(c) => *c.get(l).ok_or_else(|| {
                                Error::InvalidArgument(format!(
                                    "category_codes of '{}' gives no code for level '{l}'",
                                    f.name
                                ))
                            })? as f64,
                            None => k as f64,
                        };
                        wo[start + k] += w * code;
                    }
                }
                Col::OneHot(i, k) => wo[schema.layout(i).start + k] += w,
            }
        }
    }
    for (i, f) in schema.features.iter().enumerate() {
        if !cols.iter().any(|c| match *c {
            Col::Value(j) | Col::Ordinal(j) | Col::OneHot(j, _) => j == i,
        }) {
            report.push(format!(
                "feature '{}' is not an input column: the model ignores it",
                f.name
            ));
        }
    }
    for (c, name) in cols.iter().zip(names) {
        if let Col::Ordinal(i) = c {
            report.push(format!(
                "column '{name}': the level {} of feature '{}' (the model multiplies it)",
                if opts.category_codes.contains_key(name) {
                    "code given in category_codes"
                } else {
                    "index"
                },
                schema.features[*i].name
            ));
        }
    }
    if let Some(v) = weights.iter().chain(&bias).find(|v| !v.is_finite()) {
        return Err(fail(format!(
            "a weight moved onto the schema's encoding is not finite ({v})"
        )));
    }
    Ok((weights, bias))
}

/// A `LinearClassifier` node → one layer whose single output is the log-odds
/// of the second class.
pub fn read_linear(
    g: &Graph,
    n: &NodeProto,
    cols: &super::graph::Columns,
    schema: &Schema,
    opts: &OnnxOptions,
    report: Vec<String>,
) -> Result<AnyModel> {
    let post = attr(n, "post_transform")
        .map(|a| String::from_utf8_lossy(a.s()).to_string())
        .unwrap_or_else(|| "NONE".into());
    let coef: Vec<f64> = attr(n, "coefficients")
        .map(|a| a.floats.iter().map(|&v| v as f64).collect())
        .unwrap_or_default();
    let icpt: Vec<f64> = attr(n, "intercepts")
        .map(|a| a.floats.iter().map(|&v| v as f64).collect())
        .unwrap_or_default();
    let (labels, ints) = class_labels(n, "classlabels_ints", "classlabels_strings");
    let d = cols.names.len();
    if d == 0 || coef.len() % d != 0 || coef.is_empty() {
        return Err(fail(format!(
            "{}: {} coefficients for {d} input columns",
            node_name(n),
            coef.len()
        )));
    }
    let rows = coef.len() / d;
    if icpt.len() != rows && !icpt.is_empty() {
        return Err(fail(format!(
            "{}: {} intercepts for {rows} coefficient rows",
            node_name(n),
            icpt.len()
        )));
    }
    if let Some(v) = coef.iter().chain(&icpt).find(|v| !v.is_finite()) {
        return Err(fail(format!("{}: a coefficient is {v}", node_name(n))));
    }
    if let Some(m) = attr(n, "multi_class").map(|a| a.i()).filter(|&m| m != 0) {
        return Err(fail(format!(
            "{}: multi_class={m} (one-vs-rest per class) is not read by cfx",
            node_name(n)
        )));
    }
    let b = |k: usize| icpt.get(k).copied().unwrap_or(0.0);
    let (w, bias) = match (rows, post.as_str()) {
        (1, "LOGISTIC") => (coef.clone(), b(0)),
        (2, "LOGISTIC") => {
            // Two independent sigmoids: a probability pair only when the rows
            // are each other's negation (as skl2onnx writes a binary model).
            let neg = coef[..d].iter().zip(&coef[d..]).all(|(a, c)| *a == -*c) && b(0) == -b(1);
            if !neg {
                return Err(fail(format!(
                    "{}: two coefficient rows under LOGISTIC that are not each other's \
                     negation give two unrelated sigmoids, not a probability; cfx refuses it",
                    node_name(n)
                )));
            }
            (coef[d..].to_vec(), b(1))
        }
        (2, "SOFTMAX") => (
            coef[d..]
                .iter()
                .zip(&coef[..d])
                .map(|(a, c)| a - c)
                .collect(),
            b(1) - b(0),
        ),
        (_, p) => {
            return Err(fail(format!(
                "{}: {rows} coefficient rows with post_transform {p}: cfx reads a binary \
                 classifier's LOGISTIC (one row, or two negated rows) or SOFTMAX (two rows); \
                 NONE gives scores, not probabilities",
                node_name(n)
            )));
        }
    };
    let _ = g;
    let layer = Layer {
        n_in: d,
        n_out: 1,
        weights: w,
        bias: vec![bias],
        act: Act::Sigmoid,
    };
    finish(
        vec![layer],
        labels.as_deref(),
        ints,
        cols,
        schema,
        opts,
        report,
        &format!("LinearClassifier, post_transform {post}"),
    )
}

/// The class labels of a classifier node (ints or strings), and whether they
/// are integers.
pub fn class_labels(n: &NodeProto, ints: &str, strings: &str) -> (Option<Vec<String>>, bool) {
    if let Some(a) = attr(n, ints).filter(|a| !a.ints.is_empty()) {
        return (Some(a.ints.iter().map(|v| v.to_string()).collect()), true);
    }
    if let Some(a) = attr(n, strings).filter(|a| !a.strings.is_empty()) {
        return (
            Some(
                a.strings
                    .iter()
                    .map(|s| String::from_utf8_lossy(s).to_string())
                    .collect(),
            ),
            false,
        );
    }
    (None, true)
}

/// MatMul/Gemm layers → a linear model (one layer) or an MLP.
pub fn read(
    _g: &Graph,
    layers: Vec<Layer>,
    cols: &super::graph::Columns,
    schema: &Schema,
    opts: &OnnxOptions,
    report: Vec<String>,
) -> Result<AnyModel> {
    let what = format!(
        "{} dense layer{} ({})",
        layers.len(),
        if layers.len() == 1 { "" } else { "s" },
        layers
            .iter()
            .map(|l| format!("{}→{} {:?}", l.n_in, l.n_out, l.act))
            .collect::<Vec<_>>()
            .join(", ")
    );
    finish(layers, None, true, cols, schema, opts, report, &what)
}

#[allow(clippy::too_many_arguments)]
fn finish(
    mut layers: Vec<Layer>,
    labels: Option<&[String]>,
    int_labels: bool,
    cols: &super::graph::Columns,
    schema: &Schema,
    opts: &OnnxOptions,
    mut report: Vec<String>,
    what: &str,
) -> Result<AnyModel> {
    report.push(format!("model: {what}"));
    let last = layers.last_mut().expect("at least one layer");
    match (last.act, last.n_out) {
        (Act::Sigmoid, 1) => {}
        (Act::Softmax, 2) => {
            let n = last.n_in;
            let w: Vec<f64> = (0..n)
                .map(|i| last.weights[n + i] - last.weights[i])
                .collect();
            last.weights = w;
            last.bias = vec![last.bias[1] - last.bias[0]];
            last.n_out = 1;
        }
        (act, n) => {
            return Err(fail(format!(
                "the last layer has {n} outputs and activation {act:?}: cfx reads a binary \
                 classifier's probability, a Sigmoid of one unit or a Softmax of two"
            )));
        }
    }
    last.act = Act::None;
    for (i, l) in layers[..layers.len() - 1].iter().enumerate() {
        if matches!(l.act, Act::Softmax) {
            return Err(fail(format!("hidden layer {i} has a Softmax activation")));
        }
    }
    let (k, line) = favourable_index(labels, int_labels, opts)?;
    report.push(line);
    if k == 0 {
        let last = layers.last_mut().expect("at least one layer");
        last.weights.iter_mut().for_each(|w| *w = -*w);
        last.bias.iter_mut().for_each(|b| *b = -*b);
    }
    let (w0, b0) = to_encoded(&layers[0], &cols.names, schema, opts, &mut report)?;
    let threshold = threshold_of(k, opts);
    report.push(
        "onnxruntime computes the layers in float32 on float32 inputs; cfx evaluates the same \
         float32 weights in f64 on the real inputs: probabilities agree to float32 precision, \
         decisions may differ only within that precision of the cutoff"
            .into(),
    );
    if layers.len() == 1 {
        let m = LinearModel {
            weights: w0,
            bias: b0[0],
            threshold,
            import_report: report,
        };
        let m = AnyModel::Linear(m);
        m.validate()?;
        return Ok(m);
    }
    let d = schema.encoded_dim();
    let mut dense = Vec::with_capacity(layers.len());
    for (i, l) in layers.iter().enumerate() {
        let activation = match l.act {
            Act::None => Activation::Identity,
            Act::Relu => Activation::Relu,
            Act::Tanh => Activation::Tanh,
            Act::Sigmoid => Activation::Sigmoid,
            Act::Softmax => unreachable!("refused above"),
        };
        let (n_in, weights, bias) = if i == 0 {
            (d, w0.clone(), b0.clone())
        } else {
            (l.n_in, l.weights.clone(), l.bias.clone())
        };
        dense.push(Dense {
            n_in,
            n_out: l.n_out,
            weights,
            bias,
            activation,
        });
    }
    if layers[..layers.len() - 1]
        .iter()
        .any(|l| l.act != Act::Relu)
    {
        report.push(
            "a hidden layer is not ReLU: the exact engine (coherent MIP) refuses this network; \
             the gradient methods read it"
                .into(),
        );
    }
    let m = MlpModel::new(Network { layers: dense }, threshold)?.with_import_report(report);
    Ok(AnyModel::Mlp(m))
}
