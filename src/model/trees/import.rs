//! What the two importers share: the model's columns mapped onto the schema,
//! and the library's trees turned into cfx's flat nodes.
//!
//! A model column maps to
//! * a contiguous feature of the same name: its value (special states as their
//!   codes, or as missing when the feature is listed in
//!   [`ImportOptions::special_as_missing`]);
//! * a categorical feature of the same name: its level (the library's category
//!   codes, or the level index for a numeric split on an ordinal column);
//! * a level of a categorical feature, as a one-hot 0/1 column: named
//!   `<feature>=<level>` or `<feature>_<level>`, or mapped explicitly in
//!   [`ImportOptions::columns`].
//!
//! A column that maps to nothing is an [`Error::Format`] naming it.

use super::{FeatureInput, Node, Source, Test, TreeEnsemble};
use crate::error::{Error, Result};
use crate::schema::{FeatureKind, Schema};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// Where a model column goes: a feature (its value or level), or one level of
/// a categorical feature (a one-hot 0/1 column).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ColumnTarget {
    pub feature: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub level: Option<String>,
}

/// How a library model is read onto a schema.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ImportOptions {
    /// Explicit mappings of model columns, taking precedence over names.
    #[serde(default)]
    pub columns: BTreeMap<String, ColumnTarget>,
    /// Contiguous features whose special states the model was trained to see
    /// as missing values (NaN) rather than as their codes.
    #[serde(default)]
    pub special_as_missing: Vec<String>,
    /// The decision threshold on the probability (default 0.5).
    #[serde(default)]
    pub threshold: Option<f64>,
}

/// A model column resolved against the schema.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Column {
    /// The value of contiguous feature `i`.
    Value(usize),
    /// The level index of categorical feature `i`.
    Ordinal(usize),
    /// 1 when categorical feature `i` is at level `k`, else 0.
    OneHot(usize, usize),
}

/// A node as a library states it, children local to its tree.
#[derive(Debug, Clone, PartialEq)]
pub(super) enum LibNode {
    Leaf(f64),
    Numeric {
        column: usize,
        test: Test,
        threshold: f64,
        default_left: bool,
        left: usize,
        right: usize,
    },
    /// Codes in `codes` go left when `in_set_left` (LightGBM), right otherwise
    /// (XGBoost); a missing value goes `default_left` (XGBoost) or right.
    Categorical {
        column: usize,
        codes: Vec<i64>,
        in_set_left: bool,
        left: usize,
        right: usize,
    },
}

/// A library's model before it meets the schema.
pub(super) struct LibModel {
    pub source: Source,
    pub base_score: f64,
    pub columns: Vec<String>,
    /// Per column, the library's category names by code, when it stores them.
    pub categories: Vec<Option<Vec<String>>>,
    pub trees: Vec<Vec<LibNode>>,
}

fn format(m: String) -> Error {
    Error::Format(m)
}

/// Resolves one model column.
fn resolve(schema: &Schema, options: &ImportOptions, col: &str) -> Result<Column> {
    let find = |name: &str| schema.features.iter().position(|f| f.name == name);
    let level_of = |i: usize, level: &str| match &schema.features[i].kind {
        FeatureKind::Categorical { levels } => levels.iter().position(|l| l == level),
        _ => None,
    };
    if let Some(t) = options.columns.get(col) {
        let i = find(&t.feature).ok_or_else(|| {
            format(format!(
                "model column '{col}' is mapped to feature '{}', which the schema does not have",
                t.feature
            ))
        })?;
        return match &t.level {
            None => Ok(if schema.features[i].is_contiguous() {
                Column::Value(i)
            } else {
                Column::Ordinal(i)
            }),
            Some(l) => level_of(i, l).map(|k| Column::OneHot(i, k)).ok_or_else(|| {
                format(format!(
                    "model column '{col}' is mapped to level '{l}' of feature '{}', which has no such level",
                    t.feature
                ))
            }),
        };
    }
    if let Some(i) = find(col) {
        return Ok(if schema.features[i].is_contiguous() {
            Column::Value(i)
        } else {
            Column::Ordinal(i)
        });
    }
    let mut found = Vec::new();
    for (i, f) in schema.features.iter().enumerate() {
        if let FeatureKind::Categorical { levels } = &f.kind {
            for (k, l) in levels.iter().enumerate() {
                if col == format!("{}={l}", f.name) || col == format!("{}_{l}", f.name) {
                    found.push(Column::OneHot(i, k));
                }
            }
        }
    }
    match found.as_slice() {
        [c] => Ok(*c),
        [] => Err(format(format!(
            "model column '{col}' maps to no schema feature or level (map it in the import options)"
        ))),
        _ => Err(format(format!(
            "model column '{col}' could be more than one level; map it in the import options"
        ))),
    }
}

/// The schema's features as the trees will see them.
fn inputs(schema: &Schema, options: &ImportOptions) -> Result<Vec<FeatureInput>> {
    for name in &options.special_as_missing {
        let f = schema
            .features
            .iter()
            .find(|f| &f.name == name)
            .ok_or_else(|| Error::NotFound(format!("special_as_missing: no feature '{name}'")))?;
        if !matches!(&f.kind, FeatureKind::Contiguous { special_states, .. } if !special_states.is_empty())
        {
            return Err(Error::InvalidArgument(format!(
                "special_as_missing: feature '{name}' has no special states"
            )));
        }
    }
    Ok(schema
        .features
        .iter()
        .map(|f| FeatureInput::of_feature(f, options.special_as_missing.contains(&f.name)))
        .collect())
}

/// Maps a library model onto the schema.
pub(super) fn build(
    lib: LibModel,
    schema: &Schema,
    options: &ImportOptions,
) -> Result<TreeEnsemble> {
    let cols: Vec<Column> = lib
        .columns
        .iter()
        .map(|c| resolve(schema, options, c))
        .collect::<Result<_>>()?;
    for (a, ca) in cols.iter().enumerate() {
        for (b, cb) in cols.iter().enumerate().skip(a + 1) {
            if ca == cb {
                return Err(format(format!(
                    "model columns '{}' and '{}' both map to the same input",
                    lib.columns[a], lib.columns[b]
                )));
            }
        }
    }
    let n_levels = |i: usize| schema.features[i].n_states();
    let mut nodes = Vec::new();
    let mut roots = Vec::new();
    let mut level_left: Vec<bool> = Vec::new();
    for (t, tree) in lib.trees.iter().enumerate() {
        let offset = nodes.len();
        roots.push(u32::try_from(offset).map_err(|_| format("too many nodes".into()))?);
        let child = |c: usize| -> Result<u32> {
            if c >= tree.len() {
                return Err(format(format!(
                    "tree {t}: child {c} out of range ({} nodes)",
                    tree.len()
                )));
            }
            u32::try_from(offset + c).map_err(|_| format("too many nodes".into()))
        };
        for node in tree {
            let col_of = |c: usize| -> Result<Column> {
                cols.get(c).copied().ok_or_else(|| {
                    format(format!(
                        "tree {t}: split on column {c}, but the model has {} columns",
                        cols.len()
                    ))
                })
            };
            let mut levels_node = |i: usize, left: &dyn Fn(usize) -> bool, l, r| -> Result<Node> {
                let off = u32::try_from(level_left.len())
                    .map_err(|_| format("too many level sets".into()))?;
                level_left.extend((0..n_levels(i)).map(left));
                Ok(Node {
                    test: Test::Levels(off),
                    feature: i as u32,
                    threshold: 0.0,
                    default_left: false,
                    left: l,
                    right: r,
                    value: 0.0,
                })
            };
            let out = match node {
                LibNode::Leaf(v) => {
                    if !v.is_finite() {
                        return Err(format(format!("tree {t}: a leaf value is not finite")));
                    }
                    Node::leaf(*v)
                }
                &LibNode::Numeric {
                    column,
                    test,
                    threshold,
                    default_left,
                    left,
                    right,
                } => {
                    // An infinite threshold (XGBoost's float32 overflowed by
                    // a condition such as 1e308) has no place in a model's
                    // JSON, which holds finite numbers only.
                    if !threshold.is_finite() {
                        return Err(format(format!(
                            "tree {t}: a split threshold is not finite ({threshold})"
                        )));
                    }
                    let proto = Node {
                        test,
                        feature: 0,
                        threshold,
                        default_left,
                        left: child(left)?,
                        right: child(right)?,
                        value: 0.0,
                    };
                    match col_of(column)? {
                        Column::Value(i) => Node {
                            feature: i as u32,
                            ..proto
                        },
                        Column::Ordinal(i) => levels_node(
                            i,
                            &|k| proto.numeric_left(k as f64),
                            proto.left,
                            proto.right,
                        )?,
                        Column::OneHot(i, k0) => levels_node(
                            i,
                            &|k| proto.numeric_left(if k == k0 { 1.0 } else { 0.0 }),
                            proto.left,
                            proto.right,
                        )?,
                    }
                }
                LibNode::Categorical {
                    column,
                    codes,
                    in_set_left,
                    left,
                    right,
                } => {
                    let (l, r) = (child(*left)?, child(*right)?);
                    let goes_left = |code: Option<i64>| {
                        code.is_some_and(|c| codes.contains(&c)) == *in_set_left
                    };
                    match col_of(*column)? {
                        Column::Value(i) => {
                            return Err(format(format!(
                                "tree {t}: a categorical split on column '{}', which maps to the \
                                 contiguous feature '{}'",
                                lib.columns[*column], schema.features[i].name
                            )));
                        }
                        Column::Ordinal(i) => {
                            let names = lib.categories.get(*column).cloned().flatten();
                            let FeatureKind::Categorical { levels } = &schema.features[i].kind
                            else {
                                unreachable!("ordinal columns are categorical features")
                            };
                            let code = |k: usize| -> Option<i64> {
                                match &names {
                                    // A level the model never saw is in no set.
                                    Some(n) => {
                                        n.iter().position(|c| c == &levels[k]).map(|p| p as i64)
                                    }
                                    None => Some(k as i64),
                                }
                            };
                            levels_node(i, &|k| goes_left(code(k)), l, r)?
                        }
                        Column::OneHot(i, k0) => {
                            levels_node(i, &|k| goes_left(Some(i64::from(k == k0))), l, r)?
                        }
                    }
                }
            };
            nodes.push(out);
        }
    }
    TreeEnsemble::new(
        lib.source,
        lib.base_score,
        options.threshold.unwrap_or(0.5),
        inputs(schema, options)?,
        roots,
        nodes,
        level_left,
    )
}
