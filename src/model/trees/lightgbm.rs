//! LightGBM's text model (`Booster.save_model("model.txt")`, LightGBM 3.x–4.x),
//! objective `binary` with `sigmoid:1`. (The `dump_model()` JSON carries the
//! same trees; cfx reads the text file only.)
//!
//! Read: the header (`num_class`, `num_tree_per_iteration`, `objective`,
//! `feature_names`, `feature_infos`), and per tree `num_leaves`,
//! `split_feature`, `threshold`, `decision_type` (bit 0 categorical, bit 1
//! default-left, bits 2–3 the missing type None/Zero/NaN), `left_child`,
//! `right_child` (a negative child `c` is leaf `−c − 1`), `leaf_value`, and for
//! categorical splits `cat_boundaries`/`cat_threshold` (bit sets of the codes
//! that go left; `threshold` indexes the boundaries). The category names of
//! pandas categoricals come from the closing `pandas_categorical:` line. A
//! numeric split sends `x ≤ threshold` left (see [`super::Test`] for missing
//! values); a missing category goes right. No base score: the initial average
//! is folded into tree 0. Random-forest mode (`average_output`): the margin is
//! the mean of the trees (LightGBM's `predict` is its logistic; its
//! `raw_score` is the sum). Linear trees, several classes, another objective
//! or sigmoid, and any key this importer does not know are an
//! [`Error::Format`]. Training statistics (`split_gain`, `leaf_weight`,
//! counts, internal values, `shrinkage`, already folded into the leaves) are
//! not needed and not read.
//!
//! Truncation: LightGBM records each tree's byte size in `tree_sizes`; every
//! tree's size, their number and order (`Tree=0, 1, …`) and the closing
//! `end of trees` line are checked, so a file cut between two trees or inside
//! one is refused rather than read with fewer trees. A file saved after early
//! stopping holds the best iteration's trees (`save_model`'s default) and
//! records no `best_iteration`: its trees are all used, as `Booster.predict`
//! of the file does.

use super::Source;
use super::import::{LibModel, LibNode, build};
use super::{ImportOptions, Test, TreeEnsemble};
use crate::error::{Error, Result};
use crate::schema::Schema;
use std::collections::HashMap;

fn format(m: String) -> Error {
    Error::Format(format!("LightGBM model: {m}"))
}

const HEADER_KEYS: &[&str] = &[
    "version",
    "num_class",
    "num_tree_per_iteration",
    "label_index",
    "max_feature_idx",
    "objective",
    "feature_names",
    "feature_infos",
    "tree_sizes",
    "monotone_constraints",
];

const TREE_KEYS: &[&str] = &[
    "num_leaves",
    "num_cat",
    "split_feature",
    "split_gain",
    "threshold",
    "decision_type",
    "left_child",
    "right_child",
    "leaf_value",
    "leaf_weight",
    "leaf_count",
    "internal_value",
    "internal_weight",
    "internal_count",
    "cat_boundaries",
    "cat_threshold",
    "is_linear",
    "shrinkage",
];

/// The keys of a linear tree's leaf models (`linear_tree=true`).
const LINEAR_KEYS: &[&str] = &["leaf_const", "leaf_coeff", "leaf_features", "num_features"];

fn parse_list<T: std::str::FromStr>(s: &str, key: &str, at: &str) -> Result<Vec<T>> {
    s.split_whitespace()
        .map(|x| {
            x.parse::<T>()
                .map_err(|_| format(format!("{at}: '{key}' holds '{x}', not a number")))
        })
        .collect()
}

fn tree(block: &HashMap<&str, &str>, at: &str) -> Result<Vec<LibNode>> {
    let field = |k: &str| -> Result<&str> {
        block
            .get(k)
            .copied()
            .ok_or_else(|| format(format!("{at} has no '{k}'")))
    };
    if block.get("is_linear").is_some_and(|v| v.trim() != "0") {
        return Err(format(format!("{at} is a linear tree (not supported)")));
    }
    let n_leaves: usize = field("num_leaves")?
        .trim()
        .parse()
        .map_err(|_| format(format!("{at}: bad num_leaves")))?;
    let leaves: Vec<f64> = parse_list(field("leaf_value")?, "leaf_value", at)?;
    if n_leaves == 0 || leaves.len() != n_leaves {
        return Err(format(format!(
            "{at}: {} leaf values for {n_leaves} leaves",
            leaves.len()
        )));
    }
    if n_leaves == 1 {
        return Ok(vec![LibNode::Leaf(leaves[0])]);
    }
    let n_inner = n_leaves - 1;
    let feature: Vec<usize> = parse_list(field("split_feature")?, "split_feature", at)?;
    let threshold: Vec<f64> = parse_list(field("threshold")?, "threshold", at)?;
    let decision: Vec<u32> = parse_list(field("decision_type")?, "decision_type", at)?;
    let left: Vec<i64> = parse_list(field("left_child")?, "left_child", at)?;
    let right: Vec<i64> = parse_list(field("right_child")?, "right_child", at)?;
    if [
        feature.len(),
        threshold.len(),
        decision.len(),
        left.len(),
        right.len(),
    ]
    .iter()
    .any(|&l| l != n_inner)
    {
        return Err(format(format!(
            "{at}: the split arrays do not have {n_inner} entries"
        )));
    }
    let (bounds, words): (Vec<usize>, Vec<u32>) = if decision.iter().any(|d| d & 1 == 1) {
        (
            parse_list(field("cat_boundaries")?, "cat_boundaries", at)?,
            parse_list(field("cat_threshold")?, "cat_threshold", at)?,
        )
    } else {
        (Vec::new(), Vec::new())
    };
    let child = |c: i64| -> Result<usize> {
        let k = if c < 0 {
            n_inner + (-(c + 1)) as usize
        } else {
            c as usize
        };
        if k >= n_inner + n_leaves {
            return Err(format(format!("{at}: child {c} out of range")));
        }
        Ok(k)
    };
    let mut out = Vec::with_capacity(n_inner + n_leaves);
    for j in 0..n_inner {
        let d = decision[j];
        let (l, r) = (child(left[j])?, child(right[j])?);
        if d & 1 == 1 {
            let t = threshold[j];
            if t.fract() != 0.0 || t < 0.0 {
                return Err(format(format!("{at}: bad category set index {t}")));
            }
            let idx = t as usize;
            let (a, b) = match (bounds.get(idx), bounds.get(idx + 1)) {
                (Some(&a), Some(&b)) if a <= b && b <= words.len() => (a, b),
                _ => return Err(format(format!("{at}: category set {idx} out of range"))),
            };
            let mut codes = Vec::new();
            for (w, &bits) in words[a..b].iter().enumerate() {
                for bit in 0..32 {
                    if bits >> bit & 1 == 1 {
                        codes.push((32 * w + bit) as i64);
                    }
                }
            }
            out.push(LibNode::Categorical {
                column: feature[j],
                codes,
                in_set_left: true,
                default_left: false,
                left: l,
                right: r,
            });
        } else {
            let test = match (d >> 2) & 3 {
                0 => Test::AtMost,
                1 => Test::AtMostZeroMissing,
                2 => Test::AtMostNanMissing,
                m => return Err(format(format!("{at}: unknown missing type {m}"))),
            };
            out.push(LibNode::Numeric {
                column: feature[j],
                test,
                threshold: threshold[j],
                default_left: d & 2 == 2,
                left: l,
                right: r,
            });
        }
    }
    out.extend(leaves.into_iter().map(LibNode::Leaf));
    Ok(out)
}

/// The training rows that reached each node of a tree, in the order
/// [`tree`] lays the nodes out (inner nodes, then leaves): `internal_count`
/// and `leaf_count`, the counts LightGBM's `pred_contrib` (TreeSHAP) weighs
/// by. Empty when the file lacks them or they do not fit the tree.
fn tree_covers(block: &HashMap<&str, &str>, at: &str) -> Result<Vec<f64>> {
    let (Some(leaves), inner) = (block.get("leaf_count"), block.get("internal_count")) else {
        return Ok(Vec::new());
    };
    let mut out: Vec<f64> = match inner {
        Some(i) => parse_list(i, "internal_count", at)?,
        None => Vec::new(),
    };
    let leaves: Vec<f64> = parse_list(leaves, "leaf_count", at)?;
    let n_leaves = leaves.len();
    out.extend(leaves);
    Ok(if out.len() + 1 == 2 * n_leaves {
        out
    } else {
        Vec::new()
    })
}

fn category_names(json: &str, infos: &[&str]) -> Result<Vec<Option<Vec<String>>>> {
    let mut out = vec![None; infos.len()];
    let lists: serde_json::Value = serde_json::from_str(json)
        .map_err(|e| format(format!("pandas_categorical is not JSON ({e})")))?;
    let Some(lists) = lists.as_array() else {
        return Ok(out); // `null`: no pandas categoricals
    };
    let cat_cols: Vec<usize> = infos
        .iter()
        .enumerate()
        .filter(|(_, s)| !s.starts_with('[') && **s != "none")
        .map(|(c, _)| c)
        .collect();
    if cat_cols.len() != lists.len() {
        return Err(format(format!(
            "{} pandas category lists for {} categorical columns",
            lists.len(),
            cat_cols.len()
        )));
    }
    for (c, list) in cat_cols.into_iter().zip(lists) {
        let names = list
            .as_array()
            .ok_or_else(|| format("a pandas category list is not a list".into()))?
            .iter()
            .map(|v| match v {
                serde_json::Value::String(s) => s.clone(),
                other => other.to_string(),
            })
            .collect();
        out[c] = Some(names);
    }
    Ok(out)
}

/// The byte size LightGBM records in `tree_sizes` for a tree block: its lines
/// from `Tree=k` up to the next `Tree=`/`end of trees`, each with one `\n`
/// (so a file whose line ends became `\r\n` is measured as written).
fn block_size(lines: &[&str]) -> usize {
    lines.iter().map(|l| l.len() + 1).sum()
}

pub(super) fn import(text: &str, schema: &Schema, options: &ImportOptions) -> Result<TreeEnsemble> {
    // Lines without their end (`\n` or `\r\n`), untrimmed for the size check.
    let raw: Vec<&str> = text
        .lines()
        .map(|l| l.strip_suffix('\r').unwrap_or(l))
        .collect();
    let mut lines = raw.iter().map(|l| l.trim()).enumerate().peekable();
    if lines.next().map(|(_, l)| l) != Some("tree") {
        return Err(format("the text does not start with 'tree'".into()));
    }
    let mut header: HashMap<&str, &str> = HashMap::new();
    let mut average_output = false;
    while let Some(&(_, l)) = lines.peek() {
        if l.starts_with("Tree=") || l == "end of trees" {
            break;
        }
        lines.next();
        if l.is_empty() {
            continue;
        }
        if l == "average_output" {
            average_output = true;
            continue;
        }
        let (k, v) = l
            .split_once('=')
            .ok_or_else(|| format(format!("header line '{l}' is not key=value")))?;
        if !HEADER_KEYS.contains(&k) {
            return Err(format(format!("unknown header key '{k}'")));
        }
        header.insert(k, v);
    }
    let h = |k: &str| -> Result<&str> {
        header
            .get(k)
            .copied()
            .ok_or_else(|| format(format!("the header has no '{k}'")))
    };
    if h("num_class")?.trim() != "1" || h("num_tree_per_iteration")?.trim() != "1" {
        return Err(format(
            "several classes or trees per iteration (multiclass is not supported)".into(),
        ));
    }
    let objective: Vec<&str> = h("objective")?.split_whitespace().collect();
    match objective.as_slice() {
        ["binary", rest @ ..] if rest.iter().all(|p| *p == "sigmoid:1") => {}
        _ => {
            return Err(format(format!(
                "objective '{}' is not supported (only binary with sigmoid:1)",
                objective.join(" ")
            )));
        }
    }
    let names: Vec<String> = h("feature_names")?
        .split_whitespace()
        .map(str::to_string)
        .collect();
    let infos: Vec<&str> = h("feature_infos")?.split_whitespace().collect();
    if infos.len() != names.len() {
        return Err(format(
            "feature_infos and feature_names differ in length".into(),
        ));
    }
    // LightGBM records the byte size of every tree it wrote: a file cut
    // between two trees or inside one is caught by the count or a size.
    let sizes: Option<Vec<usize>> = match header.get("tree_sizes") {
        Some(s) => Some(parse_list(s, "tree_sizes", "the header")?),
        None => None,
    };
    let mut trees = Vec::new();
    let mut covers = Vec::new();
    let mut categories = vec![None; names.len()];
    let mut end_of_trees = false;
    while let Some((start, l)) = lines.next() {
        if l.is_empty() {
            continue;
        }
        if let Some(k) = l.strip_prefix("Tree=") {
            let at = format!("Tree={k}");
            if end_of_trees {
                return Err(format(format!("{at} after 'end of trees'")));
            }
            if k.parse::<usize>().ok() != Some(trees.len()) {
                return Err(format(format!(
                    "{at} where Tree={} was expected (trees missing or out of order)",
                    trees.len()
                )));
            }
            let mut block: HashMap<&str, &str> = HashMap::new();
            let mut end = start + 1;
            while let Some(&(i, l)) = lines.peek() {
                if l.starts_with("Tree=") || l == "end of trees" {
                    break;
                }
                lines.next();
                end = i + 1;
                if l.is_empty() {
                    continue;
                }
                if !block.is_empty() && raw[i - 1].trim().is_empty() {
                    return Err(format(format!("{at}: an empty line inside the tree")));
                }
                let (k, v) = l
                    .split_once('=')
                    .ok_or_else(|| format(format!("{at}: line '{l}' is not key=value")))?;
                if LINEAR_KEYS.contains(&k) {
                    return Err(format(format!(
                        "{at} is a linear tree (linear_tree=true; not supported: its leaves \
                         are linear models)"
                    )));
                }
                if !TREE_KEYS.contains(&k) {
                    return Err(format(format!("{at}: unknown key '{k}'")));
                }
                block.insert(k, v);
            }
            if let Some(sizes) = &sizes {
                let want = sizes.get(trees.len()).ok_or_else(|| {
                    format(format!(
                        "{at}: more trees than tree_sizes lists ({})",
                        sizes.len()
                    ))
                })?;
                let got = block_size(&raw[start..end]);
                if got != *want {
                    return Err(format(format!(
                        "{at} has {got} bytes where tree_sizes records {want} (the file is \
                         truncated or was edited; save the model again)"
                    )));
                }
            }
            trees.push(tree(&block, &at)?);
            covers.push(tree_covers(&block, &at)?);
        } else if l == "end of trees" {
            end_of_trees = true;
        } else if let Some(json) = l.strip_prefix("pandas_categorical:") {
            categories = category_names(json, &infos)?;
        }
        // Everything else after the trees (feature importances, the training
        // parameters) describes the training run, not the model's function.
    }
    if trees.is_empty() {
        return Err(format("the model has no trees".into()));
    }
    if !end_of_trees {
        return Err(format(
            "no 'end of trees' line: the file is truncated (save the model again)".into(),
        ));
    }
    if let Some(sizes) = &sizes {
        if sizes.len() != trees.len() {
            return Err(format(format!(
                "{} trees read where tree_sizes records {} (the file is truncated)",
                trees.len(),
                sizes.len()
            )));
        }
    }
    let mut report = vec![format!("LightGBM model: all {} trees summed", trees.len())];
    if average_output {
        // Random-forest mode: LightGBM divides the sum of the trees by their
        // number (`average_output`); the leaves are divided here instead, which
        // is the same margin up to rounding (below 1e-12 for any real model).
        let n = trees.len() as f64;
        for t in &mut trees {
            for node in t.iter_mut() {
                if let LibNode::Leaf(v) = node {
                    *v /= n;
                }
            }
        }
        report[0] = format!(
            "LightGBM random forest (average_output): margin = the mean of all {} trees (leaves \
             divided by {}), whose logistic is LightGBM's predict (its raw_score is their sum)",
            trees.len(),
            trees.len()
        );
    }
    build(
        LibModel {
            output: super::Output::Margin,
            source: Source::Lightgbm,
            base_score: 0.0,
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
