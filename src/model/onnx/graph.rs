//! Decoding an ONNX file and walking its graph: which node computes the
//! probability, which formatting nodes follow it, and how the input tensor's
//! columns map onto the schema.

use super::OnnxOptions;
use super::proto::{
    AttributeProto, ModelProto, NodeProto, TensorProto, tensor_proto, tensor_shape_proto,
    type_proto,
};
use crate::error::{Error, Result};
use crate::model::trees::{ColumnTarget, ImportOptions};
use crate::schema::{FeatureKind, Schema};
use prost::Message;
use std::collections::BTreeMap;

pub fn fail(m: String) -> Error {
    Error::Format(format!("ONNX: {m}"))
}

/// Decodes the protobuf bytes; a truncated or corrupt file is refused with
/// prost's reason.
pub fn decode(bytes: &[u8]) -> Result<ModelProto> {
    let m = ModelProto::decode(bytes).map_err(|e| {
        fail(format!(
            "the model is not a valid ONNX protobuf ModelProto ({e}); is it truncated or not \
             the content of an .onnx file?"
        ))
    })?;
    if m.graph.is_none() {
        return Err(fail(
            "the model holds no graph (an empty or non-ONNX protobuf message)".into(),
        ));
    }
    Ok(m)
}

/// A node named for messages: `'name' (op)`.
pub fn node_name(n: &NodeProto) -> String {
    let name = n.name();
    if name.is_empty() {
        format!("the {} node", n.op_type())
    } else {
        format!("node '{name}' ({})", n.op_type())
    }
}

/// One dense layer read from MatMul/Gemm (+ Add) and an activation: `weights`
/// row-major `[n_out][n_in]`.
#[derive(Debug, Clone)]
pub struct Layer {
    pub n_in: usize,
    pub n_out: usize,
    pub weights: Vec<f64>,
    pub bias: Vec<f64>,
    pub act: Act,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Act {
    /// No activation (yet).
    None,
    Relu,
    Tanh,
    Sigmoid,
    Softmax,
}

/// The node(s) computing the probability.
pub enum Core<'a> {
    /// A TreeEnsembleClassifier / TreeEnsembleRegressor / LinearClassifier
    /// node reading the input.
    Trees(&'a NodeProto),
    Linear(&'a NodeProto),
    /// MatMul/Gemm layers ending in Sigmoid or Softmax.
    Dense(Vec<Layer>),
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    /// The input tensor (or a value-preserving cast of it).
    Input,
    /// Layer `i`'s pre-activation.
    Pre(usize),
    /// Layer `i`'s activation.
    Act(usize),
    /// The probability, or something formatted from it.
    Post,
}

/// The graph as cfx reads it.
pub struct Graph<'a> {
    pub nodes: &'a [NodeProto],
    pub input_name: String,
    /// onnxruntime's input type: float32 (true) or double.
    pub input_f32: bool,
    pub width: Option<usize>,
    tensors: BTreeMap<String, &'a TensorProto>,
}

const FLOAT: i32 = tensor_proto::DataType::Float as i32;
const DOUBLE: i32 = tensor_proto::DataType::Double as i32;

impl<'a> Graph<'a> {
    pub fn read(model: &'a ModelProto) -> Result<Graph<'a>> {
        let g = model.graph.as_ref().expect("decode checked the graph");
        let mut tensors: BTreeMap<String, &TensorProto> = BTreeMap::new();
        for t in &g.initializer {
            tensors.insert(t.name().to_string(), t);
        }
        if !g.sparse_initializer.is_empty() {
            return Err(fail("sparse initializers are not read by cfx".into()));
        }
        for n in &g.node {
            if n.op_type() == "Constant" {
                let t = n
                    .attribute
                    .iter()
                    .find(|a| a.name() == "value")
                    .and_then(|a| a.t.as_ref())
                    .ok_or_else(|| {
                        fail(format!(
                            "{}: only a tensor 'value' constant is read",
                            node_name(n)
                        ))
                    })?;
                for o in &n.output {
                    tensors.insert(o.clone(), t);
                }
            }
        }
        let inputs: Vec<_> = g
            .input
            .iter()
            .filter(|i| !tensors.contains_key(i.name()))
            .collect();
        let [input] = inputs.as_slice() else {
            return Err(fail(format!(
                "the graph has {} inputs ({}); cfx reads a graph with one input tensor [N, d]",
                inputs.len(),
                inputs
                    .iter()
                    .map(|i| i.name())
                    .collect::<Vec<_>>()
                    .join(", ")
            )));
        };
        let tensor = match input.r#type.as_ref().and_then(|t| t.value.as_ref()) {
            Some(type_proto::Value::TensorType(t)) => t,
            _ => {
                return Err(fail(format!(
                    "input '{}' is not a tensor (a sequence, map or untyped input)",
                    input.name()
                )));
            }
        };
        let input_f32 = match tensor.elem_type() {
            FLOAT => true,
            DOUBLE => false,
            other => {
                return Err(fail(format!(
                    "input '{}' has element type {other}; cfx reads a float or double tensor",
                    input.name()
                )));
            }
        };
        let dims: Vec<Option<i64>> = tensor
            .shape
            .as_ref()
            .map(|s| {
                s.dim
                    .iter()
                    .map(|d| match d.value {
                        Some(tensor_shape_proto::dimension::Value::DimValue(v)) => Some(v),
                        _ => None,
                    })
                    .collect()
            })
            .unwrap_or_default();
        if !dims.is_empty() && dims.len() != 2 {
            return Err(fail(format!(
                "input '{}' has {} dimensions; cfx reads a matrix [N, d]",
                input.name(),
                dims.len()
            )));
        }
        let width = dims.get(1).copied().flatten().map(|d| d.max(0) as usize);
        Ok(Graph {
            nodes: &g.node,
            input_name: input.name().to_string(),
            input_f32,
            width,
            tensors,
        })
    }

    /// The report's first line: producer, opsets, input.
    pub fn describe(&self, m: &ModelProto) -> String {
        let opsets: Vec<String> = m
            .opset_import
            .iter()
            .map(|o| {
                format!(
                    "{} {}",
                    if o.domain().is_empty() {
                        "ai.onnx"
                    } else {
                        o.domain()
                    },
                    o.version()
                )
            })
            .collect();
        format!(
            "ONNX IR {} from {} {} (opsets {}); input '{}' of {}",
            m.ir_version(),
            if m.producer_name().is_empty() {
                "an unnamed producer"
            } else {
                m.producer_name()
            },
            m.producer_version(),
            opsets.join(", "),
            self.input_name,
            if self.input_f32 {
                "float32 (every value cast to float32, as onnxruntime reads it)"
            } else {
                "doubles"
            }
        )
    }

    /// A constant tensor (initializer or Constant node) as f64 values with
    /// its dimensions; `None` when `name` is not constant.
    pub fn constant(&self, name: &str) -> Result<Option<(Vec<i64>, Vec<f64>)>> {
        match self.tensors.get(name) {
            None => Ok(None),
            Some(t) => tensor_values(t).map(|v| Some((t.dims.clone(), v))),
        }
    }

    /// Finds the node computing the probability and checks every other node
    /// (see the module docs of `onnx`).
    pub fn core(&self) -> Result<Core<'a>> {
        let mut kinds: BTreeMap<String, Kind> = BTreeMap::new();
        kinds.insert(self.input_name.clone(), Kind::Input);
        let mut core: Option<Core<'a>> = None;
        let mut layers: Vec<Layer> = Vec::new();
        let mut post_from_layer: Option<usize> = None;
        let mut probability = false;
        for n in self.nodes {
            let op = n.op_type();
            let domain = n.domain();
            let ml = domain == "ai.onnx.ml";
            if !(domain.is_empty() || domain == "ai.onnx" || ml) {
                return Err(fail(format!(
                    "{} is in the operator domain '{domain}'; cfx evaluates the standard \
                     domains ai.onnx and ai.onnx.ml only",
                    node_name(n)
                )));
            }
            if op == "Constant" {
                continue;
            }
            let data: Vec<(usize, Kind)> = n
                .input
                .iter()
                .enumerate()
                .filter_map(|(i, x)| kinds.get(x.as_str()).map(|k| (i, *k)))
                .collect();
            let refuse =
                |why: &str| -> Result<Core<'a>> { Err(fail(format!("{}: {why}", node_name(n)))) };
            let out = |kinds: &mut BTreeMap<String, Kind>, k: Kind| {
                for o in &n.output {
                    kinds.insert(o.clone(), k);
                }
            };
            let only = |k: Kind| data.len() == 1 && data[0].1 == k && data[0].0 == 0;
            match (ml, op) {
                (true, "TreeEnsembleClassifier" | "TreeEnsembleRegressor" | "LinearClassifier") => {
                    if !only(Kind::Input) {
                        return refuse(
                            "it must read the graph's input (cfx reads one model per graph)",
                        );
                    }
                    if core.is_some() || !layers.is_empty() {
                        return refuse("a second model in the graph: cfx reads one");
                    }
                    core = Some(if op == "LinearClassifier" {
                        Core::Linear(n)
                    } else {
                        Core::Trees(n)
                    });
                    probability = true;
                    out(&mut kinds, Kind::Post);
                }
                (false, "Cast") if only(Kind::Input) => {
                    let to = attr(n, "to").map(|a| a.i()).unwrap_or(0) as i32;
                    let same = if self.input_f32 { FLOAT } else { DOUBLE };
                    if to != same {
                        return refuse(&format!(
                            "it casts the input to element type {to}, which changes the values \
                             onnxruntime evaluates; cfx does not evaluate that cast"
                        ));
                    }
                    out(&mut kinds, Kind::Input);
                }
                (false, "Identity") if data.len() == 1 => out(&mut kinds, data[0].1),
                (false, "MatMul" | "Gemm") => {
                    let prev = match data.as_slice() {
                        [(0, k)] => *k,
                        _ => {
                            return refuse(
                                "its first operand must be the input or a layer, its second a constant",
                            );
                        }
                    };
                    let n_in_expected = match prev {
                        Kind::Input if layers.is_empty() && core.is_none() => None,
                        Kind::Act(i) | Kind::Pre(i) if i + 1 == layers.len() => {
                            Some(layers[i].n_out)
                        }
                        _ => {
                            return refuse(
                                "it does not continue the one chain of layers from the input",
                            );
                        }
                    };
                    if post_from_layer.is_some() {
                        return refuse("a layer after the probability");
                    }
                    let (dims, w) = self
                        .constant(n.input.get(1).map(String::as_str).unwrap_or(""))?
                        .ok_or_else(|| {
                            fail(format!("{}: the weights are not a constant", node_name(n)))
                        })?;
                    let mut trans_b = false;
                    let mut bias = None;
                    if op == "Gemm" {
                        for a in &n.attribute {
                            match a.name() {
                                "alpha" | "beta" if a.f() != 1.0 => {
                                    return refuse(&format!(
                                        "{}={} (cfx reads Gemm with alpha = beta = 1)",
                                        a.name(),
                                        a.f()
                                    ));
                                }
                                "transA" if a.i() != 0 => {
                                    return refuse("transA is set (the input would be transposed)");
                                }
                                "transB" => trans_b = a.i() != 0,
                                "alpha" | "beta" | "transA" => {}
                                other => return refuse(&format!("unknown attribute '{other}'")),
                            }
                        }
                        if let Some(c) = n.input.get(2).filter(|c| !c.is_empty()) {
                            bias = Some(self.constant(c)?.ok_or_else(|| {
                                fail(format!("{}: the bias C is not a constant", node_name(n)))
                            })?);
                        }
                    }
                    if dims.len() != 2 || dims.iter().any(|&d| d <= 0) {
                        return refuse(&format!(
                            "the weights have shape {dims:?}; cfx reads a matrix"
                        ));
                    }
                    let (r, c) = (dims[0] as usize, dims[1] as usize);
                    let (n_in, n_out) = if trans_b { (c, r) } else { (r, c) };
                    if n_in_expected.is_some_and(|e| e != n_in) {
                        return refuse("its weights do not fit the previous layer's width");
                    }
                    if let Some(d) = self.width.filter(|_| n_in_expected.is_none()) {
                        if d != n_in {
                            return refuse(&format!(
                                "its weights take {n_in} inputs, the input has {d} columns"
                            ));
                        }
                    }
                    let mut weights = vec![0.0; n_in * n_out];
                    for o in 0..n_out {
                        for i in 0..n_in {
                            weights[o * n_in + i] = if trans_b {
                                w[o * n_in + i]
                            } else {
                                w[i * n_out + o]
                            };
                        }
                    }
                    let mut layer = Layer {
                        n_in,
                        n_out,
                        weights,
                        bias: vec![0.0; n_out],
                        act: Act::None,
                    };
                    if let Some((bd, b)) = bias {
                        add_bias(&mut layer, &bd, &b)
                            .map_err(|m| fail(format!("{}: {m}", node_name(n))))?;
                    }
                    if core.is_some() {
                        return refuse("a layer beside another model");
                    }
                    layers.push(layer);
                    out(&mut kinds, Kind::Pre(layers.len() - 1));
                }
                (false, "Add") => {
                    let i = match data.as_slice() {
                        [(_, Kind::Pre(i))] => *i,
                        _ => return refuse("cfx reads Add only as a layer's constant bias"),
                    };
                    let other = n
                        .input
                        .iter()
                        .find(|x| !kinds.contains_key(x.as_str()))
                        .cloned()
                        .unwrap_or_default();
                    let (bd, b) = self.constant(&other)?.ok_or_else(|| {
                        fail(format!("{}: the bias is not a constant", node_name(n)))
                    })?;
                    if layers[i].act != Act::None {
                        return refuse("a bias after the activation");
                    }
                    add_bias(&mut layers[i], &bd, &b)
                        .map_err(|m| fail(format!("{}: {m}", node_name(n))))?;
                    out(&mut kinds, Kind::Pre(i));
                }
                (false, "Relu" | "Tanh" | "Sigmoid" | "Softmax") => {
                    let i = match data.as_slice() {
                        [(0, Kind::Pre(i))] => *i,
                        _ => return refuse("cfx reads an activation only on a layer's output"),
                    };
                    if op == "Softmax" {
                        let axis = attr(n, "axis").map(|a| a.i()).unwrap_or(-1);
                        if axis != 1 && axis != -1 {
                            return refuse(&format!(
                                "axis={axis}: cfx reads a softmax over the classes (axis 1)"
                            ));
                        }
                    }
                    layers[i].act = match op {
                        "Relu" => Act::Relu,
                        "Tanh" => Act::Tanh,
                        "Sigmoid" => Act::Sigmoid,
                        _ => Act::Softmax,
                    };
                    out(&mut kinds, Kind::Act(i));
                }
                (
                    _,
                    "ZipMap"
                    | "ArgMax"
                    | "ArrayFeatureExtractor"
                    | "Reshape"
                    | "Squeeze"
                    | "Unsqueeze"
                    | "Flatten"
                    | "Concat"
                    | "Sub"
                    | "Mul"
                    | "Cast"
                    | "Identity",
                ) if !data.is_empty()
                    && ml == (op == "ZipMap" || op == "ArrayFeatureExtractor") =>
                {
                    for &(_, k) in &data {
                        match k {
                            Kind::Post => {}
                            Kind::Act(i) => {
                                if post_from_layer.is_some_and(|p| p != i) {
                                    return refuse("it reads two different layers");
                                }
                                post_from_layer = Some(i);
                                probability = true;
                            }
                            _ => {
                                return refuse(
                                    "it reads the input or a hidden layer: it is not a formatting node after the probability",
                                );
                            }
                        }
                    }
                    if op == "Mul" {
                        let other = n
                            .input
                            .iter()
                            .find(|x| !kinds.contains_key(x.as_str()))
                            .cloned()
                            .unwrap_or_default();
                        let ones = self
                            .constant(&other)?
                            .is_some_and(|(_, v)| v.iter().all(|&x| x == 1.0));
                        if !ones {
                            return refuse(
                                "a Mul after the probability by something other than 1 changes it",
                            );
                        }
                    }
                    out(&mut kinds, Kind::Post);
                }
                _ => {
                    return Err(fail(format!(
                        "{} (operator {}{}) is not evaluated by cfx; it reads LinearClassifier, \
                         TreeEnsembleClassifier/Regressor and MatMul/Gemm/Add layers with \
                         Relu/Tanh/Sigmoid/Softmax",
                        node_name(n),
                        if domain.is_empty() { "" } else { "ai.onnx.ml." },
                        op
                    )));
                }
            }
        }
        if let Some(c) = core {
            return Ok(c);
        }
        if layers.is_empty() {
            return Err(fail(
                "the graph computes no model cfx reads (no classifier node, no layer)".into(),
            ));
        }
        let last = layers.len() - 1;
        if post_from_layer.is_some_and(|p| p != last) {
            return Err(fail("a formatting node reads a hidden layer".into()));
        }
        let _ = probability;
        Ok(Core::Dense(layers))
    }
}

fn add_bias(layer: &mut Layer, dims: &[i64], b: &[f64]) -> std::result::Result<(), String> {
    let n = layer.n_out;
    let ok_dims = dims.iter().filter(|&&d| d != 1).count() <= 1;
    if !ok_dims || !(b.len() == n || b.len() == 1) {
        return Err(format!(
            "the bias has shape {dims:?}; cfx reads a vector of the layer's {n} outputs"
        ));
    }
    for (o, v) in layer.bias.iter_mut().enumerate() {
        *v += if b.len() == 1 { b[0] } else { b[o] };
    }
    Ok(())
}

/// An attribute by name.
pub fn attr<'n>(n: &'n NodeProto, name: &str) -> Option<&'n AttributeProto> {
    n.attribute.iter().find(|a| a.name() == name)
}

/// A float or double tensor's values as f64 (exact: float32 widens exactly).
pub fn tensor_values(t: &TensorProto) -> Result<Vec<f64>> {
    if t.data_location() == tensor_proto::DataLocation::External {
        return Err(fail(format!(
            "tensor '{}' is stored in an external file, which cfx does not read",
            t.name()
        )));
    }
    let n: i64 = t.dims.iter().product();
    let dt = t.data_type();
    let raw = t.raw_data();
    let vals: Vec<f64> = match dt {
        FLOAT if !raw.is_empty() => raw
            .chunks_exact(4)
            .map(|c| f32::from_le_bytes([c[0], c[1], c[2], c[3]]) as f64)
            .collect(),
        FLOAT => t.float_data.iter().map(|&v| v as f64).collect(),
        DOUBLE if !raw.is_empty() => raw
            .chunks_exact(8)
            .map(|c| f64::from_le_bytes(c.try_into().expect("8 bytes")))
            .collect(),
        DOUBLE => t.double_data.clone(),
        other => {
            return Err(fail(format!(
                "tensor '{}' has element type {other}; cfx reads float and double weights",
                t.name()
            )));
        }
    };
    if vals.len() as i64 != n.max(if t.dims.is_empty() { 1 } else { 0 })
        && !(t.dims.is_empty() && vals.len() == 1)
    {
        return Err(fail(format!(
            "tensor '{}' has {} values for the shape {:?}",
            t.name(),
            vals.len(),
            t.dims
        )));
    }
    if let Some(v) = vals.iter().find(|v| !v.is_finite()) {
        return Err(fail(format!("tensor '{}' holds the value {v}", t.name())));
    }
    Ok(vals)
}

/// Where each input column goes.
pub struct Columns {
    pub names: Vec<String>,
    pub given: bool,
}

impl Columns {
    /// The columns from the options, or the schema's features in order;
    /// their count checked against the input's width.
    pub fn resolve(g: &Graph, schema: &Schema, opts: &OnnxOptions) -> Result<Columns> {
        let (names, given) = match &opts.columns {
            Some(c) => (c.clone(), true),
            None => (
                schema.features.iter().map(|f| f.name.clone()).collect(),
                false,
            ),
        };
        if let Some(d) = g.width {
            if d != names.len() {
                return Err(fail(format!(
                    "input '{}' has {d} columns but {} {} named{}",
                    g.input_name,
                    names.len(),
                    if given {
                        "columns are"
                    } else {
                        "schema features are"
                    },
                    if given {
                        ""
                    } else {
                        ": give the input's columns in order in the option \"columns\" (a \
                         schema feature, or <feature>=<level> for a one-hot column)"
                    }
                )));
            }
        }
        Ok(Columns { names, given })
    }

    pub fn describe(&self) -> String {
        format!(
            "input columns, in order: {} ({})",
            self.names.join(", "),
            if self.given {
                "as declared in the option 'columns'"
            } else {
                "the schema's features in order: the graph names no columns and no 'columns' \
                 option was given"
            }
        )
    }

    /// The tree importer's options for these columns: each column mapped
    /// explicitly (a name `<feature>=<level>` to that level).
    pub fn import_options(&self, schema: &Schema, opts: &OnnxOptions) -> ImportOptions {
        let mut columns = BTreeMap::new();
        for c in &self.names {
            if let Some((f, l)) = c.split_once('=') {
                if matches!(
                    schema
                        .features
                        .iter()
                        .find(|x| x.name == f)
                        .map(|x| &x.kind),
                    Some(FeatureKind::Categorical { .. })
                ) {
                    columns.insert(
                        c.clone(),
                        ColumnTarget {
                            feature: f.to_string(),
                            level: Some(l.to_string()),
                        },
                    );
                }
            }
        }
        ImportOptions {
            columns,
            special_as_missing: opts.special_as_missing.clone(),
            category_codes: opts.category_codes.clone(),
            ..ImportOptions::default()
        }
    }
}
