//! XGBoost's JSON model (`Booster.save_model("model.json")`, XGBoost 2.x and
//! 3.x), objectives `binary:logistic`, `reg:logistic` and `binary:logitraw`
//! (the same margin), booster `gbtree`, with parallel trees (boosted random
//! forests, `num_parallel_tree` > 1: XGBoost sums them, the learning rate
//! already folded into the leaves).
//!
//! Read: `learner.objective.name`, `learner.learner_model_param.base_score` (a
//! probability for the logistic objectives, bracketed in 3.x: `"[5.19E-1]"`;
//! the margin offset is its logit, computed in float32 as XGBoost does; for
//! `binary:logitraw` of XGBoost 3.x the margin itself),
//! `learner.feature_names` (when empty, the columns are `f0, f1, …` and must
//! each be mapped in [`ImportOptions::columns`]), `learner.attributes.
//! best_iteration` (early stopping: [`ImportOptions::trees`] must say whether
//! the bank scores with every tree, as `Booster.predict`, or with the first
//! `best_iteration + 1` rounds, as the scikit-learn wrapper's `predict_proba`;
//! the rounds are bounded by `iteration_indptr`), and per tree the parallel
//! arrays `left_children`, `right_children` (−1 at leaves), `split_indices`,
//! `split_conditions` (the float32 threshold, or the leaf value at a leaf),
//! `default_left`, `split_type` (0 numeric, 1 categorical) with
//! `categories_nodes`, `categories_segments`, `categories_sizes` and
//! `categories` for categorical splits, whose codes index
//! `gradient_booster.model.cats.enc[feature]` (category names, written
//! by XGBoost ≥ 3.1: strings as `offsets` into UTF-8 `values`, integer
//! categories as a `type` and the integers themselves, named by their decimal
//! text; without them [`ImportOptions::category_codes`] is required). The
//! option [`ImportOptions::missing`] gives the live object's `missing` value,
//! which the JSON does not record. A numeric split sends `x < threshold` (in float32) left; a
//! categorical split sends the codes of its set right and a missing category
//! its `default_left` way. Of the per-node statistics only `sum_hessian` is
//! read (the cover TreeSHAP weighs by); `loss_changes`, `base_weights` and
//! `parents` are not needed and not read; any key this
//! importer does not know, another objective or booster (`dart`, `gblinear`),
//! several classes or targets, or vector leaves are an [`Error::Format`]
//! naming it.

use super::Source;
use super::import::{LibModel, LibNode, build};
use super::{ImportOptions, Test, TreeEnsemble, TreesUsed};
use crate::error::{Error, Result};
use crate::schema::Schema;
use serde_json::Value;

fn format(m: String) -> Error {
    Error::Format(format!("XGBoost model: {m}"))
}

fn get<'a>(v: &'a Value, key: &str, at: &str) -> Result<&'a Value> {
    v.get(key)
        .ok_or_else(|| format(format!("'{at}' has no '{key}'")))
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

fn as_str<'a>(v: &'a Value, at: &str) -> Result<&'a str> {
    v.as_str()
        .ok_or_else(|| format(format!("'{at}' is not a string")))
}

/// A number stored as a JSON number or as a string (`"1"`, `"[5.19E-1]"`).
fn number(v: &Value, at: &str) -> Result<f64> {
    if let Some(x) = v.as_f64() {
        return Ok(x);
    }
    let s = as_str(v, at)?;
    let s = s.trim().trim_start_matches('[').trim_end_matches(']');
    s.parse::<f64>()
        .map_err(|_| format(format!("'{at}' is not a number: '{s}'")))
}

fn numbers(v: &Value, at: &str) -> Result<Vec<f64>> {
    v.as_array()
        .ok_or_else(|| format(format!("'{at}' is not an array")))?
        .iter()
        .map(|x| {
            x.as_f64()
                .ok_or_else(|| format(format!("'{at}' holds a non-number")))
        })
        .collect()
}

fn ints(v: &Value, at: &str) -> Result<Vec<i64>> {
    numbers(v, at)?
        .into_iter()
        .map(|x| {
            if x.fract() == 0.0 && x.abs() < 9e15 {
                Ok(x as i64)
            } else {
                Err(format(format!("'{at}' holds a non-integer {x}")))
            }
        })
        .collect()
}

const TREE_KEYS: &[&str] = &[
    "base_weights",
    "categories",
    "categories_nodes",
    "categories_segments",
    "categories_sizes",
    "default_left",
    "id",
    "left_children",
    "loss_changes",
    "parents",
    "right_children",
    "split_conditions",
    "split_indices",
    "split_type",
    "sum_hessian",
    "tree_param",
];

fn tree(t: &Value, k: usize) -> Result<Vec<LibNode>> {
    let at = format!("trees[{k}]");
    only_keys(t, TREE_KEYS, &at)?;
    let param = get(t, "tree_param", &at)?;
    if let Some(s) = param.get("size_leaf_vector") {
        let n = number(s, "size_leaf_vector")?;
        if n > 1.0 {
            return Err(format(format!(
                "{at} has vector leaves (multi-target trees are not supported)"
            )));
        }
    }
    let arr = |key: &str| get(t, key, &at);
    let left = ints(arr("left_children")?, "left_children")?;
    let right = ints(arr("right_children")?, "right_children")?;
    let split = ints(arr("split_indices")?, "split_indices")?;
    let cond = numbers(arr("split_conditions")?, "split_conditions")?;
    let default_left = ints(arr("default_left")?, "default_left")?;
    let n = left.len();
    let split_type = match t.get("split_type") {
        Some(v) => ints(v, "split_type")?,
        None => vec![0; n],
    };
    if [
        right.len(),
        split.len(),
        cond.len(),
        default_left.len(),
        split_type.len(),
    ]
    .iter()
    .any(|&l| l != n)
        || n == 0
    {
        return Err(format(format!("{at}: the node arrays differ in length")));
    }
    // Categorical sets: node → codes.
    let mut cats: Vec<Option<Vec<i64>>> = vec![None; n];
    if split_type.contains(&1) {
        let nodes = ints(arr("categories_nodes")?, "categories_nodes")?;
        let seg = ints(arr("categories_segments")?, "categories_segments")?;
        let size = ints(arr("categories_sizes")?, "categories_sizes")?;
        let all = ints(arr("categories")?, "categories")?;
        if nodes.len() != seg.len() || nodes.len() != size.len() {
            return Err(format(format!(
                "{at}: the category arrays differ in length"
            )));
        }
        for ((&nd, &s), &z) in nodes.iter().zip(&seg).zip(&size) {
            let (s, z) = (usize::try_from(s), usize::try_from(z));
            let (Ok(s), Ok(z)) = (s, z) else {
                return Err(format(format!("{at}: negative category segment")));
            };
            let codes = all
                .get(s..s + z)
                .ok_or_else(|| format(format!("{at}: category segment out of range")))?;
            let slot = usize::try_from(nd)
                .ok()
                .and_then(|nd| cats.get_mut(nd))
                .ok_or_else(|| format(format!("{at}: category node out of range")))?;
            *slot = Some(codes.to_vec());
        }
    }
    let child = |c: i64| -> Result<usize> {
        usize::try_from(c).map_err(|_| format(format!("{at}: bad child index {c}")))
    };
    let mut out = Vec::with_capacity(n);
    for j in 0..n {
        if left[j] == -1 {
            out.push(LibNode::Leaf(cond[j]));
            continue;
        }
        let column = usize::try_from(split[j])
            .map_err(|_| format(format!("{at}: bad split index {}", split[j])))?;
        let (l, r) = (child(left[j])?, child(right[j])?);
        out.push(match split_type[j] {
            0 => LibNode::Numeric {
                column,
                test: Test::BelowF32,
                threshold: cond[j] as f32 as f64,
                default_left: default_left[j] != 0,
                left: l,
                right: r,
            },
            1 => LibNode::Categorical {
                column,
                codes: cats[j]
                    .clone()
                    .ok_or_else(|| format(format!("{at}: node {j} has no category set")))?,
                in_set_left: false,
                default_left: default_left[j] != 0,
                left: l,
                right: r,
            },
            other => return Err(format(format!("{at}: unknown split_type {other}"))),
        });
    }
    Ok(out)
}

/// Category names per column from `cats.enc` (XGBoost ≥ 3.1), when present.
fn category_names(model: &Value, n_cols: usize) -> Result<Vec<Option<Vec<String>>>> {
    let mut out = vec![None; n_cols];
    let Some(enc) = model.get("cats").and_then(|c| c.get("enc")) else {
        return Ok(out);
    };
    let enc = enc
        .as_array()
        .ok_or_else(|| format("'cats.enc' is not an array".into()))?;
    for (c, e) in enc.iter().enumerate() {
        if let Some(t) = e.get("type") {
            // Integer categories (pandas categories of int8…uint64, XGBoost
            // ≥ 3.1): `values` are the categories themselves, by code; their
            // names are their decimal text ("1", "5"), as the schema writes
            // the levels.
            let t = number(t, "cats.enc.type")?;
            if !(9.0..=16.0).contains(&t) || t.fract() != 0.0 {
                return Err(format(format!(
                    "cats.enc[{c}] has category type {t}, which cfx does not read (integer \
                     categories, types 9–16, and strings are read)"
                )));
            }
            only_keys(e, &["type", "values"], "cats.enc")?;
            let values = ints(get(e, "values", "cats.enc")?, "cats.enc.values")?;
            if c < n_cols && !values.is_empty() {
                out[c] = Some(values.iter().map(|v| v.to_string()).collect());
            }
            continue;
        }
        let offsets = ints(get(e, "offsets", "cats.enc")?, "cats.enc.offsets")?;
        let values = ints(get(e, "values", "cats.enc")?, "cats.enc.values")?;
        if offsets.is_empty() {
            continue;
        }
        let bytes: Vec<u8> = values
            .iter()
            .map(|&b| u8::try_from(b).map_err(|_| format("cats.enc: not a byte".into())))
            .collect::<Result<_>>()?;
        let mut names = Vec::new();
        for w in offsets.windows(2) {
            let (a, b) = (w[0] as usize, w[1] as usize);
            let s = bytes
                .get(a..b)
                .ok_or_else(|| format("cats.enc: offsets out of range".into()))?;
            names.push(
                String::from_utf8(s.to_vec())
                    .map_err(|_| format("cats.enc: a category is not UTF-8".into()))?,
            );
        }
        if c < n_cols {
            out[c] = Some(names);
        }
    }
    Ok(out)
}

pub(super) fn import(json: &str, schema: &Schema, options: &ImportOptions) -> Result<TreeEnsemble> {
    let doc: Value = serde_json::from_str(json).map_err(|e| format(format!("not JSON ({e})")))?;
    only_keys(&doc, &["learner", "version"], "")?;
    let learner = get(&doc, "learner", "")?;
    only_keys(
        learner,
        &[
            "attributes",
            "feature_names",
            "feature_types",
            "gradient_booster",
            "learner_model_param",
            "objective",
        ],
        "learner",
    )?;
    let objective = as_str(
        get(get(learner, "objective", "learner")?, "name", "objective")?,
        "objective.name",
    )?;
    // The three objectives of a binary logistic model: the same margin, the
    // link applied (binary:logistic, reg:logistic) or not (binary:logitraw)
    // by `predict`; cfx applies the logistic link itself.
    if !matches!(
        objective,
        "binary:logistic" | "reg:logistic" | "binary:logitraw"
    ) {
        return Err(format(format!(
            "objective '{objective}' is not supported (binary:logistic, reg:logistic and \
             binary:logitraw are; multiclass, ranking, survival and regression objectives have \
             no logistic margin)"
        )));
    }
    let param = get(learner, "learner_model_param", "learner")?;
    let classes = number(get(param, "num_class", "learner_model_param")?, "num_class")?;
    if classes > 1.0 {
        return Err(format(format!(
            "{classes} classes (multiclass is not supported)"
        )));
    }
    if let Some(t) = param.get("num_target") {
        let t = number(t, "num_target")?;
        if t != 1.0 {
            return Err(format(format!("{t} targets (only one is supported)")));
        }
    }
    let base = number(
        get(param, "base_score", "learner_model_param")?,
        "base_score",
    )? as f32;
    let base_margin = if objective == "binary:logitraw" {
        // binary:logitraw's base_score is already a margin (its output space)
        // in the XGBoost this was checked against (3.x); older versions stored
        // it differently, and cfx does not guess which.
        let major = doc
            .get("version")
            .and_then(|v| v.get(0))
            .and_then(Value::as_f64);
        if major.is_none_or(|m| m < 3.0) {
            return Err(format(
                "binary:logitraw from an XGBoost before 3.0 (or without a version): its \
                 base_score convention is not known to cfx; load and save the model with \
                 XGBoost 3.x, or retrain with binary:logistic"
                    .into(),
            ));
        }
        if !base.is_finite() {
            return Err(format(format!("base_score {base} is not finite")));
        }
        base
    } else {
        if !(base > 0.0 && base < 1.0) {
            return Err(format(format!("base_score {base} is not a probability")));
        }
        // XGBoost's ProbToMargin for the logistic objectives, in float32.
        -(1.0f32 / base - 1.0f32).ln()
    };
    let mut names: Vec<String> = get(learner, "feature_names", "learner")?
        .as_array()
        .ok_or_else(|| format("'feature_names' is not an array".into()))?
        .iter()
        .map(|v| as_str(v, "feature_names").map(str::to_string))
        .collect::<Result<_>>()?;
    let mut report = Vec::new();
    if names.is_empty() {
        // Trained on a bare array: XGBoost calls the columns f0, f1, …; each
        // must be mapped explicitly (a schema feature named like one would be
        // a guess).
        let n = number(
            get(param, "num_feature", "learner_model_param")?,
            "num_feature",
        )?;
        if !(n >= 1.0 && n.fract() == 0.0 && n < 1e6) {
            return Err(format(format!("num_feature {n} is not a column count")));
        }
        names = (0..n as usize).map(|k| format!("f{k}")).collect();
        let unmapped: Vec<&String> = names
            .iter()
            .filter(|c| !options.columns.contains_key(*c))
            .collect();
        if !unmapped.is_empty() {
            return Err(format(format!(
                "the model has no feature names (trained on an array): map each of its columns \
                 f0…f{} in the import option 'columns', e.g. {{\"f0\": {{\"feature\": \"…\"}}}} \
                 (unmapped: {})",
                names.len() - 1,
                unmapped
                    .iter()
                    .map(|s| s.as_str())
                    .collect::<Vec<_>>()
                    .join(", ")
            )));
        }
        report.push(format!(
            "the model has no feature names: columns f0…f{} mapped by the import option 'columns'",
            names.len() - 1
        ));
    }
    let gb = get(learner, "gradient_booster", "learner")?;
    let booster = as_str(
        get(gb, "name", "gradient_booster")?,
        "gradient_booster.name",
    )?;
    if booster != "gbtree" {
        return Err(format(format!(
            "booster '{booster}' is not supported (only gbtree)"
        )));
    }
    only_keys(gb, &["model", "name"], "gradient_booster")?;
    let model = get(gb, "model", "gradient_booster")?;
    only_keys(
        model,
        &[
            "cats",
            "gbtree_model_param",
            "iteration_indptr",
            "tree_info",
            "trees",
        ],
        "gradient_booster.model",
    )?;
    let parallel = match model
        .get("gbtree_model_param")
        .and_then(|p| p.get("num_parallel_tree"))
    {
        Some(p) => {
            let p = number(p, "num_parallel_tree")?;
            if !(p >= 1.0 && p.fract() == 0.0) {
                return Err(format(format!("num_parallel_tree {p} is not a count")));
            }
            p as usize
        }
        None => 1,
    };
    if let Some(info) = model.get("tree_info") {
        if ints(info, "tree_info")?.iter().any(|&g| g != 0) {
            return Err(format("trees of several output groups (multiclass)".into()));
        }
    }
    let tree_values = get(model, "trees", "gradient_booster.model")?
        .as_array()
        .ok_or_else(|| format("'trees' is not an array".into()))?;
    let mut trees: Vec<Vec<LibNode>> = tree_values
        .iter()
        .enumerate()
        .map(|(k, t)| tree(t, k))
        .collect::<Result<_>>()?;
    // Each node's hessian sum ("cover"), which the path-dependent TreeSHAP
    // weighs by as XGBoost's `pred_contribs` does; a tree without it leaves
    // the model's covers unknown.
    let mut covers: Vec<Vec<f64>> = tree_values
        .iter()
        .map(|t| match t.get("sum_hessian") {
            Some(v) => numbers(v, "sum_hessian"),
            None => Ok(Vec::new()),
        })
        .collect::<Result<_>>()?;
    if trees.is_empty() {
        return Err(format("the model has no trees".into()));
    }
    if let Some(n) = model
        .get("gbtree_model_param")
        .and_then(|p| p.get("num_trees"))
    {
        let n = number(n, "num_trees")?;
        if n != trees.len() as f64 {
            return Err(format(format!(
                "num_trees says {n} trees, the file holds {}",
                trees.len()
            )));
        }
    }
    // Boosting rounds: `iteration_indptr` (XGBoost ≥ 2) bounds the trees of
    // each round; without it every round has `num_parallel_tree` trees.
    let indptr: Vec<usize> = match model.get("iteration_indptr") {
        Some(v) => ints(v, "iteration_indptr")?
            .into_iter()
            .map(|x| usize::try_from(x).map_err(|_| format("bad iteration_indptr".into())))
            .collect::<Result<_>>()?,
        None => (0..=trees.len() / parallel).map(|r| r * parallel).collect(),
    };
    if indptr.first() != Some(&0)
        || indptr.last() != Some(&trees.len())
        || indptr.windows(2).any(|w| w[0] > w[1])
    {
        return Err(format(format!(
            "iteration_indptr does not bound the {} trees",
            trees.len()
        )));
    }
    let rounds = indptr.len() - 1;
    let best = match learner
        .get("attributes")
        .and_then(|a| a.get("best_iteration"))
    {
        Some(b) => {
            let b = number(b, "attributes.best_iteration")?;
            if !(b >= 0.0 && b.fract() == 0.0 && (b as usize) < rounds) {
                return Err(format(format!(
                    "best_iteration {b} is not one of the {rounds} boosting rounds"
                )));
            }
            Some(b as usize)
        }
        None => None,
    };
    let forest = if parallel > 1 {
        format!(" of {parallel} parallel trees each (a boosted random forest)")
    } else {
        String::new()
    };
    match (best, options.trees) {
        (None, _) => report.push(format!(
            "all {} trees summed ({rounds} boosting rounds{forest})",
            trees.len()
        )),
        (Some(b), None) => {
            return Err(format(format!(
                "the model records best_iteration {b} (early stopping): the scikit-learn \
                 wrapper's predict/predict_proba use its first {} rounds, Booster.predict all \
                 {rounds}; say which the bank scores with by the import option \
                 \"trees\": \"best_iteration\" or \"trees\": \"all\"",
                b + 1
            )));
        }
        (Some(b), Some(TreesUsed::All)) => report.push(format!(
            "all {} trees summed ({rounds} boosting rounds{forest}), as Booster.predict does; \
             the model records best_iteration {b}, which is not used",
            trees.len()
        )),
        (Some(b), Some(TreesUsed::BestIteration)) => {
            trees.truncate(indptr[b + 1]);
            covers.truncate(indptr[b + 1]);
            report.push(format!(
                "the first {} trees summed (rounds 0–{b}{forest}: best_iteration {b}, as the \
                 scikit-learn wrapper's predict_proba does); the other {} rounds are not used",
                trees.len(),
                rounds - b - 1
            ));
        }
    }
    report.push(if objective == "binary:logitraw" {
        format!(
            "objective binary:logitraw: margin = base_score {base} + the trees; cfx's \
             probability = logistic(margin) (XGBoost's predict returns the margin itself)"
        )
    } else {
        format!(
            "objective {objective}: margin = logit(base_score {base}) + the trees; probability \
             = logistic(margin)"
        )
    });
    let categories = category_names(model, names.len())?;
    build(
        LibModel {
            output: super::Output::Margin,
            source: Source::Xgboost,
            base_score: base_margin as f64,
            columns: names,
            categories,
            trees,
            covers,
            report,
        },
        schema,
        options,
    )
}
