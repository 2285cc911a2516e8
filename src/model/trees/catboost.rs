//! CatBoost's JSON model (`model.save_model("m.json", format="json",
//! pool=…)`, CatBoost 1.2), loss `Logloss` or `CrossEntropy`, oblivious
//! (symmetric) trees.
//!
//! # The evaluation rule (checked against `predict(prediction_type=
//! "RawFormulaVal")` on every committed row, tests/data/catboost)
//! An oblivious tree of depth `d` applies the same `d` splits on every path:
//! split `i` of the tree's `splits` list gives bit `b_i`, and the leaf is
//! `leaf_values[Σ b_i · 2^i]` (the first split is the lowest bit). CatBoost
//! binarises a float feature in float32: `b = float(x) > border`, the border a
//! float32 — cfx's [`Test::BelowF32`] with the threshold the next float32
//! above the border (`float(x) < next_up(border)` ⇔ `float(x) ≤ border`, the
//! bit-0 side). A missing value follows the feature's `nan_value_treatment`:
//! `AsFalse` (`nan_mode="Min"`: below every border, bit 0), `AsTrue`
//! (`nan_mode="Max"`: bit 1), `AsIs` (a feature without missing values in
//! training, or `nan_mode="Forbidden"`: `NaN > border` is false, bit 0 —
//! what CatBoost's own evaluator does with a NaN it meets). A one-hot split
//! (`OneHotFeature`) gives bit 1 exactly when the category's hash equals the
//! split's `value`; the hashes of the training categories are the file's
//! `features_info.cat_features_hash` (written only when the model is saved
//! with its `pool`: without it, or for a split on a hash the table lacks, the
//! levels cannot be matched and the model is refused — CatBoost's hash of a
//! string is not recomputed here). The margin is
//! `scale · Σ_t leaf_t + bias` (`scale_and_bias`), summed in f64.
//!
//! # Node covers
//! Each node's cover is the sum of the `leaf_weights` under it, and the trees
//! are expanded last split first, as CatBoost walks them: cfx's path-dependent
//! TreeSHAP is then CatBoost's `ShapValues` (checked on every committed row,
//! src/notice/tests.rs; the doc of `oblivious` says why the order matters).
//!
//! # Refused, with what to do
//! CTR (target-statistics) categorical features (`OnlineCtr` splits,
//! `ctr_data`): their values depend on CatBoost's hashed counters; retrain
//! with `one_hot_max_size` at least the feature's number of levels (one-hot
//! splits, read exactly), or one-hot encode it yourself. Non-symmetric trees
//! (`grow_policy` Depthwise/Lossguide, the file's `trees`), other losses
//! (multiclass, regression), text and embedding features, and any key this
//! importer does not know.

use super::Source;
use super::import::{LibModel, LibNode, build};
use super::{ImportOptions, Test, TreeEnsemble};
use crate::error::{Error, Result};
use crate::schema::Schema;
use serde_json::Value;

fn format(m: String) -> Error {
    Error::Format(format!("CatBoost model: {m}"))
}

fn get<'a>(v: &'a Value, key: &str, at: &str) -> Result<&'a Value> {
    v.get(key)
        .ok_or_else(|| format(format!("'{at}' has no '{key}'")))
}

fn array<'a>(v: &'a Value, at: &str) -> Result<&'a Vec<Value>> {
    v.as_array()
        .ok_or_else(|| format(format!("'{at}' is not an array")))
}

fn number(v: &Value, at: &str) -> Result<f64> {
    v.as_f64()
        .filter(|x| x.is_finite())
        .ok_or_else(|| format(format!("'{at}' is not a finite number")))
}

fn index(v: &Value, at: &str) -> Result<usize> {
    v.as_u64()
        .map(|x| x as usize)
        .ok_or_else(|| format(format!("'{at}' is not an index")))
}

fn only_keys(v: &Value, known: &[&str], at: &str) -> Result<()> {
    let obj = v
        .as_object()
        .ok_or_else(|| format(format!("'{at}' is not an object")))?;
    for k in obj.keys() {
        if !known.contains(&k.as_str()) {
            return Err(format(format!("unknown key '{k}' in '{at}'")));
        }
    }
    Ok(())
}

/// The smallest float32 above `b` (`b` finite): `float(x) > b` ⇔
/// `float(x) ≥ next_up(b)`. (`f32::next_up` needs Rust 1.86; the crate's
/// minimum is 1.85.)
fn next_up_f32(b: f32) -> f32 {
    if b == 0.0 {
        return f32::from_bits(1);
    }
    let bits = b.to_bits();
    f32::from_bits(if b > 0.0 { bits + 1 } else { bits - 1 })
}

/// A CatBoost category hash: a 32-bit value, written unsigned in
/// `cat_features_hash` and signed in the splits' `value`.
fn hash32(v: &Value) -> Option<u32> {
    let x = v.as_i64()?;
    if (i64::from(i32::MIN)..=i64::from(u32::MAX)).contains(&x) {
        Some(x as u32)
    } else {
        None
    }
}

/// How a float feature's split sends a missing value.
#[derive(Clone, Copy, PartialEq)]
enum NanTreatment {
    /// Bit 0 (`AsFalse`, `nan_mode="Min"`; or `AsIs`: `NaN > border` is false).
    Below,
    /// Bit 1 (`AsTrue`, `nan_mode="Max"`).
    Above,
}

const CTR_HELP: &str = "CTR (target-statistics) categorical features are not read: their \
     values come from CatBoost's hashed target counters; retrain with one_hot_max_size at least \
     the feature's number of levels (one-hot splits, which cfx reads exactly), or one-hot encode \
     the feature before training";

/// Reads the model, maps it onto the schema (see the module docs).
pub(super) fn import(json: &str, schema: &Schema, options: &ImportOptions) -> Result<TreeEnsemble> {
    let root: Value = serde_json::from_str(json).map_err(|e| format(format!("not JSON: {e}")))?;
    if root.get("trees").is_some() {
        return Err(format(
            "the model has non-symmetric trees ('trees': grow_policy Depthwise or Lossguide); \
             cfx reads CatBoost's oblivious trees only: retrain with grow_policy='SymmetricTree' \
             (the default)"
                .into(),
        ));
    }
    if root.get("ctr_data").is_some() {
        return Err(format(CTR_HELP.into()));
    }
    only_keys(
        &root,
        &[
            "features_info",
            "model_info",
            "oblivious_trees",
            "scale_and_bias",
        ],
        "model",
    )?;
    if options.trees.is_some() {
        return Err(Error::InvalidArgument(
            "import option 'trees' is XGBoost's setting: a CatBoost model file holds the trees \
             it scores with (use_best_model keeps the best iteration's)"
                .into(),
        ));
    }
    if !options.category_codes.is_empty() || !options.missing_levels.is_empty() {
        return Err(Error::InvalidArgument(
            "import options 'category_codes' and 'missing_levels' do not apply to CatBoost \
             models (categories are matched by CatBoost's hashes of their names, and a \
             CatBoost category is never missing)"
                .into(),
        ));
    }
    let mut report = Vec::new();

    // The loss: the margin is the log-odds of class 1 for Logloss/CrossEntropy.
    let info = get(&root, "model_info", "model")?;
    let loss = info
        .pointer("/params/loss_function/type")
        .and_then(Value::as_str)
        .ok_or_else(|| {
            format("'model_info.params.loss_function.type' is missing: cannot tell the loss".into())
        })?;
    if loss != "Logloss" && loss != "CrossEntropy" {
        return Err(format(format!(
            "loss '{loss}' is not read: cfx reads binary classifiers (Logloss, CrossEntropy)"
        )));
    }
    let classes = info
        .pointer("/class_params/class_names")
        .and_then(Value::as_array);
    let class_text = |v: &Value| match v {
        Value::String(s) => format!("'{s}'"),
        other => other.to_string(),
    };
    report.push(match classes {
        Some(c) if c.len() == 2 => format!(
            "CatBoost {loss}: the margin is the log-odds of class 1 ({}; class 0 is {})",
            class_text(&c[1]),
            class_text(&c[0])
        ),
        Some(c) => {
            return Err(format(format!(
                "the model has {} classes; cfx reads binary classifiers",
                c.len()
            )));
        }
        None => format!("CatBoost {loss}: the margin is the log-odds of class 1"),
    });

    // Features: float features, one-hot categoricals; text/embedding refused.
    let fi = get(&root, "features_info", "model")?;
    if fi.get("ctrs").is_some() {
        return Err(format(CTR_HELP.into()));
    }
    only_keys(
        fi,
        &[
            "float_features",
            "categorical_features",
            "cat_features_hash",
        ],
        "features_info",
    )?;
    let mut flat: Vec<(usize, String)> = Vec::new();
    let name_of = |f: &Value, at: &str| -> Result<String> {
        let n = f
            .get("feature_name")
            .or_else(|| f.get("feature_id"))
            .and_then(Value::as_str)
            .unwrap_or("");
        if n.is_empty() {
            return Err(format(format!("'{at}' has no feature name")));
        }
        Ok(n.to_string())
    };
    // Per float feature: (column, nan treatment).
    let mut floats: Vec<(usize, NanTreatment)> = Vec::new();
    let empty = Vec::new();
    let float_features = match fi.get("float_features") {
        Some(v) => array(v, "float_features")?,
        None => &empty,
    };
    for (k, f) in float_features.iter().enumerate() {
        let at = format!("float_features[{k}]");
        only_keys(
            f,
            &[
                "borders",
                "feature_id",
                "feature_index",
                "feature_name",
                "flat_feature_index",
                "has_nans",
                "nan_value_treatment",
            ],
            &at,
        )?;
        if index(get(f, "feature_index", &at)?, &at)? != k {
            return Err(format(format!("'{at}' is out of order")));
        }
        let treatment_name = get(f, "nan_value_treatment", &at)?.as_str();
        let treatment = match treatment_name {
            Some("AsFalse") | Some("AsIs") => NanTreatment::Below,
            Some("AsTrue") => NanTreatment::Above,
            other => {
                return Err(format(format!(
                    "'{at}': nan_value_treatment {other:?} is not AsIs, AsFalse or AsTrue"
                )));
            }
        };
        let name = name_of(f, &at)?;
        let flat_index = index(get(f, "flat_feature_index", &at)?, &at)?;
        report.push(format!(
            "feature '{name}': a missing value goes below every border (bit 0) or above: {} \
             (nan_value_treatment {})",
            if treatment == NanTreatment::Above {
                "above"
            } else {
                "below"
            },
            treatment_name.unwrap_or("")
        ));
        floats.push((flat.len(), treatment));
        flat.push((flat_index, name));
    }
    let mut cats: Vec<usize> = Vec::new();
    let cat_features = match fi.get("categorical_features") {
        Some(v) => array(v, "categorical_features")?,
        None => &empty,
    };
    for (k, f) in cat_features.iter().enumerate() {
        let at = format!("categorical_features[{k}]");
        only_keys(
            f,
            // `values`: the hashes of the training categories, written when
            // the model is saved without its pool (no names: not read).
            &[
                "feature_id",
                "feature_index",
                "feature_name",
                "flat_feature_index",
                "values",
            ],
            &at,
        )?;
        if index(get(f, "feature_index", &at)?, &at)? != k {
            return Err(format(format!("'{at}' is out of order")));
        }
        let name = name_of(f, &at)?;
        let flat_index = index(get(f, "flat_feature_index", &at)?, &at)?;
        cats.push(flat.len());
        flat.push((flat_index, name));
    }
    // The hash table: category name by code (its position), and the hashes.
    let mut hash_names: Vec<String> = Vec::new();
    let mut hashes: Vec<u32> = Vec::new();
    if let Some(t) = fi.get("cat_features_hash").filter(|t| !t.is_null()) {
        for (k, e) in array(t, "cat_features_hash")?.iter().enumerate() {
            let at = format!("cat_features_hash[{k}]");
            only_keys(e, &["hash", "value"], &at)?;
            let h = hash32(get(e, "hash", &at)?)
                .ok_or_else(|| format(format!("'{at}.hash' is not a 32-bit hash")))?;
            let v = get(e, "value", &at)?
                .as_str()
                .ok_or_else(|| format(format!("'{at}.value' is not a string")))?;
            if hashes.contains(&h) {
                return Err(format(format!("'{at}': hash {h} appears twice")));
            }
            hashes.push(h);
            hash_names.push(v.to_string());
        }
    }
    // Columns in the model's own (flat) order.
    let mut order: Vec<usize> = (0..flat.len()).collect();
    order.sort_by_key(|&c| flat[c].0);
    let mut position = vec![0; flat.len()];
    for (p, &c) in order.iter().enumerate() {
        position[c] = p;
    }
    let columns: Vec<String> = order.iter().map(|&c| flat[c].1.clone()).collect();
    let mut categories: Vec<Option<Vec<String>>> = vec![None; columns.len()];
    for &c in &cats {
        categories[position[c]] = Some(hash_names.clone());
    }

    // scale_and_bias: [scale, [bias]].
    let (scale, bias) = match root.get("scale_and_bias") {
        None => (1.0, 0.0),
        Some(v) => {
            let a = array(v, "scale_and_bias")?;
            let bias = a.get(1).map(|b| array(b, "scale_and_bias[1]"));
            match (a.first(), bias) {
                (Some(s), Some(Ok(b))) if a.len() == 2 && b.len() <= 1 => (
                    number(s, "scale_and_bias[0]")?,
                    match b.first() {
                        Some(x) => number(x, "scale_and_bias[1][0]")?,
                        None => 0.0,
                    },
                ),
                _ => {
                    return Err(format(
                        "'scale_and_bias' is not [scale, [bias]] with one bias".into(),
                    ));
                }
            }
        }
    };
    if scale != 1.0 || bias != 0.0 {
        report.push(format!(
            "scale_and_bias: the margin is {scale} × (the sum of the leaves) + {bias}"
        ));
    }

    let trees_json = array(get(&root, "oblivious_trees", "model")?, "oblivious_trees")?;
    let mut trees = Vec::with_capacity(trees_json.len());
    let mut max_depth = 0;
    let mut max_border = false;
    // Per tree, the covers of the expanded tree's nodes from `leaf_weights`;
    // `None` once a tree lacks them (the model then has no covers).
    let mut covers: Option<Vec<Vec<f64>>> = Some(Vec::new());
    for (t, tree) in trees_json.iter().enumerate() {
        let at = format!("oblivious_trees[{t}]");
        only_keys(tree, &["leaf_values", "leaf_weights", "splits"], &at)?;
        let splits = array(get(tree, "splits", &at)?, &format!("{at}.splits"))?;
        let leaves = array(get(tree, "leaf_values", &at)?, &format!("{at}.leaf_values"))?;
        let depth = splits.len();
        if depth > 16 {
            return Err(format(format!("{at}: depth {depth} exceeds CatBoost's 16")));
        }
        if leaves.len() != 1 << depth {
            return Err(format(format!(
                "{at}: {} leaf values for depth {depth} (expected {}: a binary model has one \
                 value per leaf)",
                leaves.len(),
                1usize << depth
            )));
        }
        max_depth = max_depth.max(depth);
        // Each split as the node that decides its bit: left = bit 0.
        let mut decide: Vec<LibNode> = Vec::with_capacity(depth);
        for (i, s) in splits.iter().enumerate() {
            let sat = format!("{at}.splits[{i}]");
            let kind = get(s, "split_type", &sat)?.as_str().unwrap_or("");
            decide.push(match kind {
                "FloatFeature" => {
                    only_keys(
                        s,
                        &["border", "float_feature_index", "split_index", "split_type"],
                        &sat,
                    )?;
                    let f = index(get(s, "float_feature_index", &sat)?, &sat)?;
                    let &(c, nan) = floats.get(f).ok_or_else(|| {
                        format(format!("{sat}: float feature {f} does not exist"))
                    })?;
                    let border = number(get(s, "border", &sat)?, &format!("{sat}.border"))? as f32;
                    if !border.is_finite() {
                        return Err(format(format!("{sat}: border {border} is out of range")));
                    }
                    // nan_mode=Max puts a border at the largest float32 (bit 1
                    // for +∞ and, AsTrue, for NaN): read as `float(x) <
                    // f32::MAX`, exact for every value below f32::MAX, which
                    // the schema is checked to keep to.
                    let threshold = if border == f32::MAX {
                        max_border = true;
                        f32::MAX
                    } else {
                        next_up_f32(border)
                    };
                    LibNode::Numeric {
                        column: position[c],
                        test: Test::BelowF32,
                        threshold: threshold as f64,
                        default_left: nan == NanTreatment::Below,
                        left: 0,
                        right: 0,
                    }
                }
                "OneHotFeature" => {
                    only_keys(
                        s,
                        &["cat_feature_index", "split_index", "split_type", "value"],
                        &sat,
                    )?;
                    let f = index(get(s, "cat_feature_index", &sat)?, &sat)?;
                    let &c = cats.get(f).ok_or_else(|| {
                        format(format!("{sat}: categorical feature {f} does not exist"))
                    })?;
                    let h = hash32(get(s, "value", &sat)?)
                        .ok_or_else(|| format(format!("{sat}.value is not a 32-bit hash")))?;
                    if hashes.is_empty() {
                        return Err(format(format!(
                            "the model has one-hot splits on categorical feature '{}' but no \
                             'cat_features_hash' (the categories' names): save it with \
                             save_model(path, format=\"json\", pool=Pool(X, y, cat_features=…)) \
                             so that each level can be matched exactly",
                            flat[c].1
                        )));
                    }
                    let code = hashes.iter().position(|&x| x == h).ok_or_else(|| {
                        format(format!(
                            "{sat}: hash {h} of feature '{}' is not in 'cat_features_hash': the \
                             level it stands for is unknown",
                            flat[c].1
                        ))
                    })?;
                    LibNode::Categorical {
                        column: position[c],
                        codes: vec![code as i64],
                        in_set_left: false,
                        default_left: true,
                        left: 0,
                        right: 0,
                    }
                }
                "OnlineCtr" => return Err(format(format!("{sat}: {CTR_HELP}"))),
                other => {
                    return Err(format(format!(
                        "{sat}: split type '{other}' is not read (only FloatFeature and \
                         OneHotFeature)"
                    )));
                }
            });
        }
        let values: Vec<f64> = leaves
            .iter()
            .enumerate()
            .map(|(k, v)| number(v, &format!("{at}.leaf_values[{k}]")).map(|x| scale * x))
            .collect::<Result<_>>()?;
        let weights = tree
            .get("leaf_weights")
            .and_then(Value::as_array)
            .filter(|w| w.len() == values.len())
            .map(|w| {
                w.iter()
                    .enumerate()
                    .map(|(k, v)| number(v, &format!("{at}.leaf_weights[{k}]")))
                    .collect::<Result<Vec<f64>>>()
            })
            .transpose()?;
        covers = match (covers, weights) {
            (Some(mut c), Some(w)) => {
                c.push(oblivious_covers(depth, &w));
                Some(c)
            }
            _ => None,
        };
        trees.push(oblivious(&decide, &values));
    }
    let covers = match covers {
        Some(c) => {
            report.push(
                "node covers are the sums of CatBoost's leaf_weights (path-dependent TreeSHAP \
                 weighs by them, as CatBoost's ShapValues do)"
                    .into(),
            );
            c
        }
        None => {
            report.push(
                "the file has no leaf_weights for every tree: path-dependent TreeSHAP is \
                 unavailable (notices rank reasons interventionally)"
                    .into(),
            );
            Vec::new()
        }
    };
    if max_border {
        check_below_f32_max(schema)?;
    }
    report.push(format!(
        "{} oblivious trees, depth up to {max_depth}; float splits compare float32(x) > border",
        trees.len()
    ));
    if !cats.is_empty() {
        report.push(
            "categorical levels are matched by name to cat_features_hash (CatBoost's hash of \
             each training category); a level CatBoost never saw goes to every split's 0 side"
                .into(),
        );
    }
    build(
        LibModel {
            output: super::Output::Margin,
            source: Source::Catboost,
            base_score: bias,
            columns,
            categories,
            trees,
            covers,
            report,
        },
        schema,
        options,
    )
}

/// A border at `f32::MAX` is exact only for values whose float32 is below
/// it: every contiguous feature's range and special codes must be.
fn check_below_f32_max(schema: &Schema) -> Result<()> {
    for f in &schema.features {
        if let crate::schema::FeatureKind::Contiguous {
            lower,
            upper,
            special_states,
            ..
        } = &f.kind
        {
            let big = |x: f64| (x as f32).abs() >= f32::MAX;
            if big(*lower) || big(*upper) || special_states.iter().any(|s| big(s.code)) {
                return Err(format(format!(
                    "feature '{}': the model has a border at the largest float32 (nan_mode \
                     Max), and the feature's range or special codes reach it; narrow the range",
                    f.name
                )));
            }
        }
    }
    Ok(())
}

/// The cover of each node of the full binary tree [`oblivious`] grows (same
/// order): the sum of the `leaf_weights` (training rows, or their weights)
/// of the leaves under it — CatBoost's own subtree weights
/// (`CalcSubtreeWeightsForTree` in its ShapValues).
fn oblivious_covers(depth: usize, weights: &[f64]) -> Vec<f64> {
    fn grow(out: &mut Vec<f64>, weights: &[f64], i: usize, leaf: usize) -> f64 {
        let at = out.len();
        if i == 0 {
            out.push(weights[leaf]);
            return weights[leaf];
        }
        out.push(0.0);
        let l = grow(out, weights, i - 1, leaf);
        let r = grow(out, weights, i - 1, leaf | (1 << (i - 1)));
        out[at] = l + r;
        l + r
    }
    let mut out = Vec::with_capacity((2usize << depth) - 1);
    grow(&mut out, weights, depth, 0);
    out
}

/// The full binary tree of an oblivious tree of depth `d`: level `i` decides
/// the bit of split `d − 1 − i` (left 0, right 1) — the file's last split at
/// the root; the leaf reached is `values[Σ b_j · 2^j]`. The root is node 0,
/// as the importer's trees have it.
///
/// Any order scores the same, but path-dependent TreeSHAP (Lundberg et al.,
/// Algorithm 2) depends on it: the cover-weighted expectation over the
/// features outside a subset follows the tree's order of splits. CatBoost's
/// own ShapValues walk its trees from the last split of the JSON list to the
/// first (found by computing the exact Shapley values of both orders' value
/// functions by enumeration: CatBoost's equal the reversed order's, not the
/// listed one's — 0.140 against 0.152 for income on cb_nan_min's first row),
/// so cfx grows the tree that way and its TreeSHAP is CatBoost's.
fn oblivious(decide: &[LibNode], values: &[f64]) -> Vec<LibNode> {
    fn grow(
        out: &mut Vec<LibNode>,
        decide: &[LibNode],
        values: &[f64],
        i: usize,
        leaf: usize,
    ) -> usize {
        let at = out.len();
        if i == 0 {
            out.push(LibNode::Leaf(values[leaf]));
            return at;
        }
        out.push(LibNode::Leaf(0.0));
        let l = grow(out, decide, values, i - 1, leaf);
        let r = grow(out, decide, values, i - 1, leaf | (1 << (i - 1)));
        out[at] = match &decide[i - 1] {
            LibNode::Numeric {
                column,
                test,
                threshold,
                default_left,
                ..
            } => LibNode::Numeric {
                column: *column,
                test: *test,
                threshold: *threshold,
                default_left: *default_left,
                left: l,
                right: r,
            },
            LibNode::Categorical {
                column,
                codes,
                in_set_left,
                default_left,
                ..
            } => LibNode::Categorical {
                column: *column,
                codes: codes.clone(),
                in_set_left: *in_set_left,
                default_left: *default_left,
                left: l,
                right: r,
            },
            LibNode::Leaf(v) => LibNode::Leaf(*v),
        };
        at
    }
    let mut out = Vec::with_capacity((2usize << decide.len()) - 1);
    grow(&mut out, decide, values, decide.len(), 0);
    out
}
