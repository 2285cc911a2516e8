//! `TreeEnsembleClassifier` / `TreeEnsembleRegressor` (ai.onnx.ml opsets 1
//! and 3) → a cfx [`crate::model::TreeEnsemble`], through the tree importer
//! the XGBoost and LightGBM readers share (`model::trees::import`).
//!
//! onnxruntime's rules, kept exactly:
//! * each node's mode (BRANCH_LEQ/LT/GTE/GT/EQ/NEQ) compares the input in its
//!   tensor's type — a float32 input cast to float32 against float32
//!   thresholds, a double input against double thresholds (onnxruntime
//!   refuses double thresholds on a float input, and so does cfx);
//!   `x CMP t` goes to the node's true branch (cfx's left);
//! * a missing value (NaN) goes to the true branch when
//!   `nodes_missing_value_tracks_true`, or when the mode is NEQ (NaN ≠ t),
//!   else to the false branch;
//! * the leaves of the one class score are summed tree by tree from zero,
//!   then `base_values[0]` added, in float32 (double for a double input)
//!   ([`crate::model::trees::Source::OnnxF32`]);
//! * a binary classifier with one class score and mixed-sign weights under
//!   LOGISTIC gives P(second class) = σ(score): the score is the margin.
//!
//! * a binary classifier under post_transform NONE with one class score and
//!   non-negative weights (skl2onnx's `RandomForestClassifier` and
//!   `ExtraTreesClassifier`: each leaf weight its tree's probability of the
//!   second class divided by the number of trees) gives P(second class) =
//!   the float32 sum itself and P(first class) = `1 − sum` in float32: the
//!   ensemble's [`Output::Probability`].
//!
//! Refused, with the reason: two class scores, all-non-negative weights
//! under LOGISTIC (onnxruntime then reads the score as a probability),
//! negative weights under NONE, post-transforms other than LOGISTIC and NONE,
//! more than two classes, `base_values` per class, an AVERAGE/MIN/MAX
//! aggregate, BRANCH_MEMBER and the opset-5 `TreeEnsemble` operator.

use super::graph::{Columns, Graph, attr, fail, node_name, tensor_values};
use super::proto::NodeProto;
use super::{OnnxOptions, favourable_index};
use crate::error::Result;
use crate::model::AnyModel;
use crate::model::trees::{LibModel, LibNode, OnnxMode, Output, Source, Test, build_from_library};
use crate::schema::Schema;
use std::collections::BTreeMap;

fn ints(n: &NodeProto, name: &str) -> Vec<i64> {
    attr(n, name).map(|a| a.ints.clone()).unwrap_or_default()
}

/// A float attribute list or its `<name>_as_tensor` form, as f64 with whether
/// it was double.
fn floats(n: &NodeProto, name: &str) -> Result<(Vec<f64>, bool)> {
    if let Some(a) = attr(n, &format!("{name}_as_tensor")) {
        let t = a.t.as_ref().ok_or_else(|| {
            fail(format!(
                "{}: {name}_as_tensor holds no tensor",
                node_name(n)
            ))
        })?;
        let double = t.data_type() == super::proto::tensor_proto::DataType::Double as i32;
        return Ok((tensor_values(t)?, double));
    }
    let v: Vec<f64> = attr(n, name)
        .map(|a| a.floats.iter().map(|&v| v as f64).collect())
        .unwrap_or_default();
    if let Some(x) = v.iter().find(|x| !x.is_finite()) {
        return Err(fail(format!("{}: {name} holds {x}", node_name(n))));
    }
    Ok((v, false))
}

fn string(n: &NodeProto, name: &str, default: &str) -> String {
    attr(n, name)
        .map(|a| String::from_utf8_lossy(a.s()).to_string())
        .unwrap_or_else(|| default.to_string())
}

pub fn read(
    g: &Graph,
    n: &NodeProto,
    cols: &Columns,
    schema: &Schema,
    opts: &OnnxOptions,
    mut report: Vec<String>,
) -> Result<AnyModel> {
    let who = node_name(n);
    let bad = |m: String| fail(format!("{who}: {m}"));
    let classifier = n.op_type() == "TreeEnsembleClassifier";
    for a in &n.attribute {
        let known = matches!(
            a.name(),
            "nodes_treeids"
                | "nodes_nodeids"
                | "nodes_featureids"
                | "nodes_modes"
                | "nodes_values"
                | "nodes_values_as_tensor"
                | "nodes_truenodeids"
                | "nodes_falsenodeids"
                | "nodes_missing_value_tracks_true"
                | "nodes_hitrates"
                | "nodes_hitrates_as_tensor"
                | "post_transform"
                | "base_values"
                | "base_values_as_tensor"
        ) || (classifier
            && matches!(
                a.name(),
                "class_treeids"
                    | "class_nodeids"
                    | "class_ids"
                    | "class_weights"
                    | "class_weights_as_tensor"
                    | "classlabels_int64s"
                    | "classlabels_strings"
            ))
            || (!classifier
                && matches!(
                    a.name(),
                    "target_treeids"
                        | "target_nodeids"
                        | "target_ids"
                        | "target_weights"
                        | "target_weights_as_tensor"
                        | "n_targets"
                        | "aggregate_function"
                ));
        if !known {
            return Err(bad(format!("unknown attribute '{}'", a.name())));
        }
    }
    let post = string(n, "post_transform", "NONE");
    // LOGISTIC: the summed leaves are the margin. NONE on a classifier: they
    // are the probability itself (a forest's averaged votes), read with the
    // identity output once every weight is seen to be non-negative.
    let output = match (post.as_str(), classifier) {
        ("LOGISTIC", _) => Output::Margin,
        ("NONE", true) => Output::Probability,
        _ => {
            return Err(bad(format!(
                "post_transform {post}: cfx reads a binary tree ensemble whose probability is \
                 the logistic of the summed leaves (LOGISTIC), or a classifier's summed leaves \
                 under NONE (a random forest's averaged votes)"
            )));
        }
    };
    if !classifier {
        if let Some(t) = attr(n, "n_targets").map(|a| a.i()).filter(|&t| t != 1) {
            return Err(bad(format!("n_targets={t}: cfx reads one target")));
        }
        let agg = string(n, "aggregate_function", "SUM");
        if agg != "SUM" {
            return Err(bad(format!(
                "aggregate_function {agg}: cfx reads the sum of the trees"
            )));
        }
    }
    let (labels, int_labels) = if classifier {
        super::dense::class_labels(n, "classlabels_int64s", "classlabels_strings")
    } else {
        (None, true)
    };
    let (k, line) = favourable_index(labels.as_deref(), int_labels, opts)?;
    let tree_ids = ints(n, "nodes_treeids");
    let node_ids = ints(n, "nodes_nodeids");
    let feat = ints(n, "nodes_featureids");
    let truen = ints(n, "nodes_truenodeids");
    let falsen = ints(n, "nodes_falsenodeids");
    let tracks = ints(n, "nodes_missing_value_tracks_true");
    let modes: Vec<String> = attr(n, "nodes_modes")
        .map(|a| {
            a.strings
                .iter()
                .map(|s| String::from_utf8_lossy(s).to_string())
                .collect()
        })
        .unwrap_or_default();
    let (values, values_double) = floats(n, "nodes_values")?;
    let m = tree_ids.len();
    if m == 0 {
        return Err(bad("no nodes".into()));
    }
    for (name, len) in [
        ("nodes_nodeids", node_ids.len()),
        ("nodes_featureids", feat.len()),
        ("nodes_truenodeids", truen.len()),
        ("nodes_falsenodeids", falsen.len()),
        ("nodes_modes", modes.len()),
        ("nodes_values", values.len()),
    ] {
        if len != m {
            return Err(bad(format!("{name} has {len} entries for {m} nodes")));
        }
    }
    if !tracks.is_empty() && tracks.len() != m {
        return Err(bad(format!(
            "nodes_missing_value_tracks_true has {} entries for {m} nodes",
            tracks.len()
        )));
    }
    if g.input_f32 && values_double {
        return Err(bad(
            "double thresholds on a float32 input: onnxruntime refuses this graph, and so does \
             cfx (give the graph a double input)"
                .into(),
        ));
    }
    let (wp, lead) = if classifier {
        ("class", "class_ids")
    } else {
        ("target", "target_ids")
    };
    let w_trees = ints(n, &format!("{wp}_treeids"));
    let w_nodes = ints(n, &format!("{wp}_nodeids"));
    let w_ids = ints(n, lead);
    let (weights, _) = floats(n, &format!("{wp}_weights"))?;
    if [w_nodes.len(), w_ids.len(), weights.len()] != [w_trees.len(); 3] {
        return Err(bad(format!("the {wp}_* attributes differ in length")));
    }
    if let Some(c) = w_ids.iter().find(|&&c| c != 0) {
        return Err(bad(format!(
            "leaf weights for {lead} {c}: cfx reads a binary model with one score (the margin \
             of the second class, as skl2onnx and onnxmltools write boosted models); a model \
             with a score per class (a random forest's votes) is not read"
        )));
    }
    let all_positive = weights.iter().all(|&w| w >= 0.0);
    match output {
        Output::Margin if all_positive => {
            return Err(bad(
                "every leaf weight is non-negative under LOGISTIC: onnxruntime then reads the \
                 score as a probability rather than a margin, which cfx does not evaluate"
                    .into(),
            ));
        }
        Output::Probability if !all_positive => {
            return Err(bad(
                "post_transform NONE with negative leaf weights: onnxruntime then writes the \
                 score and its negation (a margin, not a probability), which cfx does not \
                 evaluate"
                    .into(),
            ));
        }
        _ => {}
    }
    let (base, _) = floats(n, "base_values")?;
    let base = match base.as_slice() {
        [] => 0.0,
        [b] => *b,
        _ => {
            return Err(bad(format!(
                "{} base_values: cfx reads one (the margin's)",
                base.len()
            )));
        }
    };
    // Trees in order of first appearance; node ids local to each tree.
    let mut order: Vec<i64> = Vec::new();
    let mut local: BTreeMap<(i64, i64), usize> = BTreeMap::new();
    let mut count: BTreeMap<i64, usize> = BTreeMap::new();
    for j in 0..m {
        let t = tree_ids[j];
        let c = count.entry(t).or_insert_with(|| {
            order.push(t);
            0
        });
        if local.insert((t, node_ids[j]), *c).is_some() {
            return Err(bad(format!("tree {t} has node {} twice", node_ids[j])));
        }
        *c += 1;
    }
    let mut leaf_weight: BTreeMap<(i64, i64), f64> = BTreeMap::new();
    for ((t, nd), w) in w_trees.iter().zip(&w_nodes).zip(&weights) {
        // onnxruntime adds a leaf's weights in the order listed.
        let e = leaf_weight.entry((*t, *nd)).or_insert(0.0);
        *e = if g.input_f32 {
            ((*e as f32) + (*w as f32)) as f64
        } else {
            *e + w
        };
    }
    let mut trees: Vec<Vec<LibNode>> = order
        .iter()
        .map(|t| vec![LibNode::Leaf(0.0); count[t]])
        .collect();
    let tree_index: BTreeMap<i64, usize> = order.iter().enumerate().map(|(i, t)| (*t, i)).collect();
    let mut modes_seen: BTreeMap<&str, usize> = BTreeMap::new();
    let mut n_tracks = 0;
    for j in 0..m {
        let t = tree_ids[j];
        let slot = local[&(t, node_ids[j])];
        let mode = modes[j].as_str();
        *modes_seen.entry(mode).or_insert(0) += 1;
        let node = if mode == "LEAF" {
            LibNode::Leaf(leaf_weight.get(&(t, node_ids[j])).copied().unwrap_or(0.0))
        } else {
            let om = match mode {
                "BRANCH_LEQ" => OnnxMode::Leq,
                "BRANCH_LT" => OnnxMode::Lt,
                "BRANCH_GTE" => OnnxMode::Gte,
                "BRANCH_GT" => OnnxMode::Gt,
                "BRANCH_EQ" => OnnxMode::Eq,
                "BRANCH_NEQ" => OnnxMode::Neq,
                other => {
                    return Err(bad(format!(
                        "tree {t} node {}: mode {other} is not read by cfx",
                        node_ids[j]
                    )));
                }
            };
            let child = |id: i64| {
                local.get(&(t, id)).copied().ok_or_else(|| {
                    bad(format!(
                        "tree {t} node {}: child {id} is not a node of the tree",
                        node_ids[j]
                    ))
                })
            };
            let column = usize::try_from(feat[j]).map_err(|_| {
                bad(format!(
                    "tree {t} node {}: feature id {}",
                    node_ids[j], feat[j]
                ))
            })?;
            let track = tracks.get(j).copied().unwrap_or(0) != 0;
            n_tracks += usize::from(track);
            LibNode::Numeric {
                column,
                test: if g.input_f32 {
                    Test::OnnxF32(om)
                } else {
                    Test::OnnxF64(om)
                },
                threshold: values[j],
                default_left: track || om == OnnxMode::Neq,
                left: child(truen[j])?,
                right: child(falsen[j])?,
            }
        };
        trees[tree_index[&t]][slot] = node;
    }
    // Roots: the node no other node points to (onnxruntime: node id 0 is
    // listed first); cfx's trees start at their first listed node.
    for (ti, tree) in trees.iter().enumerate() {
        let mut pointed = vec![false; tree.len()];
        for nd in tree {
            if let LibNode::Numeric { left, right, .. } = nd {
                pointed[*left] = true;
                pointed[*right] = true;
            }
        }
        if pointed[0] {
            return Err(bad(format!(
                "tree {}: its first listed node is some node's child; cfx reads trees listed \
                 from their root",
                order[ti]
            )));
        }
    }
    report.push(format!(
        "{who}: {} trees, {m} nodes ({}), {n_tracks} with missing_value_tracks_true, base value \
         {base}, post_transform {post} ({}); compared and summed in {} as onnxruntime does",
        trees.len(),
        modes_seen
            .iter()
            .map(|(k, v)| format!("{v} {k}"))
            .collect::<Vec<_>>()
            .join(", "),
        match output {
            Output::Margin => "the summed leaves are the margin",
            Output::Probability | Output::MeanOf { .. } =>
                "the summed leaves are the probability of class 1, that of class 0 its \
                 complement",
        },
        if g.input_f32 { "float32" } else { "double" }
    ));
    report.push(line);
    let lib = LibModel {
        output,
        source: if g.input_f32 {
            Source::OnnxF32
        } else {
            Source::OnnxF64
        },
        base_score: base,
        columns: cols.names.clone(),
        categories: vec![None; cols.names.len()],
        trees,
        // ONNX tree ensembles carry no node covers (`nodes_hitrates` is
        // optional and skl2onnx leaves it at 1): path-dependent TreeSHAP is
        // unavailable, interventional reasons are not.
        covers: Vec::new(),
        report,
    };
    let mut io = cols.import_options(schema, opts);
    io.favourable_class = Some(k as i64);
    io.threshold = opts.threshold;
    Ok(AnyModel::Trees(build_from_library(lib, schema, &io)?))
}
