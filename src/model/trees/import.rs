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

use super::{FeatureInput, Node, Output, Source, Test, TreeEnsemble};
use crate::error::{Error, Result};
use crate::model::favourable::{FavourableDeclaration, ScoreIs};
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

/// Which trees of a model that records an early-stopping point
/// (`best_iteration`) the bank scores with.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum TreesUsed {
    /// Every tree in the file (`Booster.predict`).
    All,
    /// The trees up to and including the best iteration (the scikit-learn
    /// wrapper's `predict`/`predict_proba`: `best_iteration + 1` iterations).
    BestIteration,
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
    /// The decision threshold on the library's probability (default 0.5):
    /// accepted above it when class 1 is favourable, below it when class 0 is
    /// (the cutoff on the probability of default).
    #[serde(default)]
    pub threshold: Option<f64>,
    /// Which class of the model is the favourable outcome: 1 (the model
    /// predicts repayment) or 0 (it predicts default: cfx negates its margin).
    /// Undeclared (with [`ImportOptions::score_is`]), class 1 is assumed and
    /// the import report says so loudly (see [`crate::model::favourable`]).
    #[serde(default)]
    pub favourable_class: Option<i64>,
    /// The same declaration in words: `"probability_of_default"` (class 0
    /// favourable) or `"probability_of_favourable"` (class 1).
    #[serde(default)]
    pub score_is: Option<ScoreIs>,
    /// XGBoost's `missing` (the constructor argument of `XGBClassifier`, or
    /// the `DMatrix`'s): a finite value that XGBoost treats as missing (each
    /// split's default branch), compared in float32. The JSON model does not
    /// record it. LightGBM has no such setting (refused there).
    #[serde(default)]
    pub missing: Option<f64>,
    /// Which trees to use when the model records `best_iteration`; required
    /// then (the library's two predictors disagree), ignored otherwise.
    #[serde(default)]
    pub trees: Option<TreesUsed>,
    /// Per categorical feature, the library's category code of each level,
    /// for a model file that stores no category names (XGBoost before 3.1,
    /// LightGBM trained on integer-coded columns).
    #[serde(default)]
    pub category_codes: BTreeMap<String, BTreeMap<String, i64>>,
    /// Per categorical feature, levels the model never saw in training: they
    /// reach the trees as a category in no split set.
    #[serde(default)]
    pub unseen_levels: BTreeMap<String, Vec<String>>,
    /// Per categorical feature, the level that stands for a missing value: it
    /// reaches the trees as missing (each split's default branch).
    #[serde(default)]
    pub missing_levels: BTreeMap<String, String>,
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
pub(crate) enum LibNode {
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
        /// Where a missing category goes: XGBoost's learned default, LightGBM
        /// always right.
        default_left: bool,
        left: usize,
        right: usize,
    },
}

/// A library's model before it meets the schema.
pub(crate) struct LibModel {
    pub source: Source,
    /// What the library's score is. A probability is the class-1 probability
    /// (a favourable class 0 takes `1 − score`: the leaves negated, the base
    /// `1 − base`, the complement onnxruntime writes for the first class).
    pub output: Output,
    pub base_score: f64,
    pub columns: Vec<String>,
    /// Per column, the library's category names by code, when it stores them.
    pub categories: Vec<Option<Vec<String>>>,
    pub trees: Vec<Vec<LibNode>>,
    /// Per tree, the training cover of each node (parallel to its nodes); an
    /// empty list when the file has none for some tree.
    pub covers: Vec<Vec<f64>>,
    /// What the importer assumed so far (trees used, objective).
    pub report: Vec<String>,
}

/// What a categorical level is to the library.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum LevelCode {
    Code(i64),
    /// A category the model never saw: in no split set.
    Unseen,
    /// A missing value: each split's default branch.
    Missing,
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

/// XGBoost's `missing` value (the import option): which special states
/// (feature index, code bits) reach the trees as missing because their code
/// equals it in float32, as XGBoost compares. Refused: the option on a
/// LightGBM model, a non-finite value, a value inside a used contiguous
/// feature's range (applicants there would take the default branch at one
/// point of an interval, which cfx's exact search does not represent: declare
/// it a special state of the schema), or one equal to what a categorical
/// column feeds the trees (a level code, or a one-hot column's 0/1).
fn check_missing_value(
    lib: &LibModel,
    schema: &Schema,
    options: &ImportOptions,
    cols: &[Column],
    level_codes_of: &BTreeMap<(usize, bool), Vec<LevelCode>>,
) -> Result<Vec<(usize, u64)>> {
    let Some(m) = options.missing else {
        return Ok(Vec::new());
    };
    if lib.source != Source::Xgboost {
        return Err(Error::InvalidArgument(
            "import option 'missing' is XGBoost's setting; LightGBM has none, nor have CatBoost \
             and EBMs (their missing values are NaN, or LightGBM's zero under zero_as_missing, \
             which the model file records)"
                .into(),
        ));
    }
    if !m.is_finite() {
        return Err(Error::InvalidArgument(format!(
            "import option 'missing' {m} is not a finite number (NaN is XGBoost's default and \
             needs no option)"
        )));
    }
    let m32 = m as f32;
    let mut out = Vec::new();
    for (c, col) in cols.iter().enumerate() {
        let name = &lib.columns[c];
        match *col {
            Column::Value(i) => {
                let f = &schema.features[i];
                let FeatureKind::Contiguous {
                    lower,
                    upper,
                    special_states,
                    ..
                } = &f.kind
                else {
                    continue;
                };
                if (*lower as f32) <= m32 && m32 <= (*upper as f32) {
                    return Err(format(format!(
                        "feature '{}': XGBoost's missing value {m} lies inside its range \
                         [{lower}, {upper}]; applicants with that value take each split's \
                         default branch, which cfx's exact search cannot represent inside a \
                         range: declare {m} a special state of the feature in the schema",
                        f.name
                    )));
                }
                out.extend(
                    special_states
                        .iter()
                        .filter(|s| s.code as f32 == m32)
                        .map(|s| (i, s.code.to_bits())),
                );
            }
            Column::OneHot(i, _) => {
                if m32 == 0.0 || m32 == 1.0 {
                    return Err(format(format!(
                        "model column '{name}' is a one-hot column of feature '{}' (0/1), and \
                         XGBoost's missing value {m} would make its {m} entries missing: cfx \
                         does not read that model (retrain with missing=NaN)",
                        schema.features[i].name
                    )));
                }
            }
            Column::Ordinal(i) => {
                let clash = level_codes_of.iter().any(|(&(col, _), codes)| {
                    col == c
                        && codes
                            .iter()
                            .any(|k| matches!(k, LevelCode::Code(v) if *v as f32 == m32))
                });
                if clash {
                    return Err(format(format!(
                        "model column '{name}' (feature '{}') feeds the trees a level code equal \
                         to XGBoost's missing value {m}: that level would be scored as missing; \
                         cfx does not read that model (retrain with missing=NaN)",
                        schema.features[i].name
                    )));
                }
            }
        }
    }
    Ok(out)
}

/// The schema's features as the trees will see them (`missing_states`: the
/// special states that equal XGBoost's `missing`, as (feature, code bits)).
fn inputs(
    schema: &Schema,
    options: &ImportOptions,
    missing_states: &[(usize, u64)],
) -> Result<Vec<FeatureInput>> {
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
    let mut out: Vec<FeatureInput> = schema
        .features
        .iter()
        .map(|f| FeatureInput::of_feature(f, options.special_as_missing.contains(&f.name)))
        .collect();
    for (i, input) in out.iter_mut().enumerate() {
        if let FeatureInput::Value { specials, .. } = input {
            for s in specials.iter_mut() {
                if missing_states.contains(&(i, s.code.to_bits())) {
                    s.as_missing = true;
                }
            }
        }
    }
    Ok(out)
}

/// Checks that every feature and level the categorical options name exists.
fn check_level_options(schema: &Schema, options: &ImportOptions) -> Result<()> {
    let levels_of = |what: &str, name: &str| -> Result<&Vec<String>> {
        let f = schema
            .features
            .iter()
            .find(|f| f.name == name)
            .ok_or_else(|| Error::NotFound(format!("{what}: no feature '{name}'")))?;
        match &f.kind {
            FeatureKind::Categorical { levels } => Ok(levels),
            _ => Err(Error::InvalidArgument(format!(
                "{what}: feature '{name}' is not categorical"
            ))),
        }
    };
    let has = |what: &str, name: &str, levels: &[String], level: &str| -> Result<()> {
        if levels.iter().any(|l| l == level) {
            Ok(())
        } else {
            Err(Error::NotFound(format!(
                "{what}: feature '{name}' has no level '{level}'"
            )))
        }
    };
    for (name, codes) in &options.category_codes {
        let levels = levels_of("category_codes", name)?;
        for level in codes.keys() {
            has("category_codes", name, levels, level)?;
        }
    }
    for (name, unseen) in &options.unseen_levels {
        let levels = levels_of("unseen_levels", name)?;
        for level in unseen {
            has("unseen_levels", name, levels, level)?;
        }
    }
    for (name, level) in &options.missing_levels {
        let levels = levels_of("missing_levels", name)?;
        has("missing_levels", name, levels, level)?;
        if options
            .unseen_levels
            .get(name)
            .is_some_and(|u| u.contains(level))
        {
            return Err(Error::InvalidArgument(format!(
                "feature '{name}': level '{level}' is declared both missing and unseen"
            )));
        }
    }
    Ok(())
}

/// What each level of categorical feature `i` is to the library on model
/// column `col` (whose category names are `names`, when the file stores
/// them), and the report line saying how that was decided. `native`: the
/// column has the library's categorical splits (a numeric split on an
/// integer-coded column reads the level index when no codes are given).
fn level_codes(
    schema: &Schema,
    options: &ImportOptions,
    i: usize,
    col: &str,
    names: Option<&[String]>,
    native: bool,
) -> Result<(Vec<LevelCode>, String)> {
    let f = &schema.features[i];
    let FeatureKind::Categorical { levels } = &f.kind else {
        unreachable!("level codes of a categorical feature")
    };
    let missing = options.missing_levels.get(&f.name);
    let unseen = options.unseen_levels.get(&f.name);
    let given = options.category_codes.get(&f.name);
    let mut out = Vec::with_capacity(levels.len());
    let mut unmatched = Vec::new();
    for level in levels {
        let code = if missing == Some(level) {
            LevelCode::Missing
        } else if unseen.is_some_and(|u| u.contains(level)) {
            if names.is_some_and(|n| n.contains(level)) {
                return Err(format(format!(
                    "feature '{}': level '{level}' is declared unseen, but the model has a \
                     category of that name (remove it from unseen_levels)",
                    f.name
                )));
            }
            LevelCode::Unseen
        } else if let Some(n) = names {
            match n.iter().position(|c| c == level) {
                Some(p) => {
                    if let Some(&g) = given.and_then(|g| g.get(level)) {
                        if g != p as i64 {
                            return Err(format(format!(
                                "feature '{}': category_codes gives level '{level}' code {g}, \
                                 but the model stores it as category {p}",
                                f.name
                            )));
                        }
                    }
                    LevelCode::Code(p as i64)
                }
                None => {
                    unmatched.push(level.clone());
                    LevelCode::Unseen
                }
            }
        } else if let Some(g) = given {
            match g.get(level) {
                Some(&c) => LevelCode::Code(c),
                None => {
                    unmatched.push(level.clone());
                    LevelCode::Unseen
                }
            }
        } else if native {
            unmatched.push(level.clone());
            LevelCode::Unseen
        } else if level.trim().parse::<f64>().is_ok() {
            // A level named like a number ("1", "2") on a column the model
            // splits numerically: it may have seen the number (the raw
            // column) or the position (pandas' codes); cfx never guesses.
            return Err(format(format!(
                "feature '{}': model column '{col}' splits numerically and level '{level}' is \
                 named like a number: cfx cannot tell whether the model saw each level's value \
                 ({level}) or its position among the levels ({}); give the value the model saw \
                 for each level in category_codes, e.g. {{\"{}\": {{\"{level}\": {level}, …}}}} \
                 (codes must be integers: for non-integer values, make the feature contiguous)",
                f.name,
                out.len(),
                f.name
            )));
        } else {
            LevelCode::Code(out.len() as i64)
        };
        out.push(code);
    }
    let quoted = |v: &[String]| {
        v.iter()
            .map(|l| format!("'{l}'"))
            .collect::<Vec<_>>()
            .join(", ")
    };
    if !unmatched.is_empty() {
        return Err(format(match (names, given) {
            (Some(n), _) => format!(
                "feature '{}': schema levels {} match no category of model column '{col}' \
                 (the model's categories: {}); correct the schema's level names, or declare \
                 levels the model never saw in unseen_levels (or the missing one in missing_levels)",
                f.name,
                quoted(&unmatched),
                quoted(n)
            ),
            (None, Some(_)) => format!(
                "feature '{}': category_codes gives no code for levels {}; give one, or declare \
                 them in unseen_levels or missing_levels",
                f.name,
                quoted(&unmatched)
            ),
            (None, None) => format!(
                "model column '{col}' has categorical splits but the model stores no category \
                 names (XGBoost before 3.1, LightGBM on integer-coded columns): give the \
                 library's code of each level of feature '{}' in category_codes, e.g. \
                 {{\"{}\": {{\"{}\": 0, …}}}} (cfx does not assume level order = code)",
                f.name, f.name, levels[0]
            ),
        }));
    }
    let mut line = format!("feature '{}' (model column '{col}'): ", f.name);
    let pairs: Vec<String> = levels
        .iter()
        .zip(&out)
        .map(|(l, c)| match c {
            LevelCode::Code(c) => format!("'{l}'={c}"),
            LevelCode::Unseen => format!("'{l}' unseen (in no split set)"),
            LevelCode::Missing => format!("'{l}' missing (default branch)"),
        })
        .collect();
    line.push_str(match (names, given, native) {
        (Some(_), _, _) => "levels by the model's category names: ",
        (None, Some(_), _) => "levels by the given category_codes: ",
        (None, None, _) => "a numeric split on level indices (the level index is the value): ",
    });
    line.push_str(&pairs.join(", "));
    Ok((out, line))
}

/// Maps a library model onto the schema.
pub(crate) fn build(
    lib: LibModel,
    schema: &Schema,
    options: &ImportOptions,
) -> Result<TreeEnsemble> {
    check_level_options(schema, options)?;
    // Which class is favourable, decided once: a class-0 model is negated
    // leaf by leaf (exact: a sign flip) so that cfx's score is the log-odds
    // of the favourable outcome everywhere downstream.
    let favourable = FavourableDeclaration {
        favourable_class: options.favourable_class,
        score_is: options.score_is,
    }
    .resolve()?;
    let cutoff = options.threshold.unwrap_or(0.5);
    crate::model::linear::check_threshold(cutoff)?;
    let sign = if favourable.flips() { -1.0 } else { 1.0 };
    // The favourable score's base: minus the margin's, or the complement of
    // the probability's.
    let base = match (lib.output, favourable.flips()) {
        (Output::Probability, true) => 1.0 - lib.base_score,
        _ => sign * lib.base_score,
    };
    let cols: Vec<Column> = lib
        .columns
        .iter()
        .map(|c| resolve(schema, options, c))
        .collect::<Result<_>>()?;
    let mut report = lib.report.clone();
    report.push(favourable.report_line(cutoff));
    if lib.output == Output::Probability {
        report.push(format!(
            "the score is the probability itself (the trees' averaged votes), not a margin: \
             cfx's score is {} and an applicant is accepted iff it is above {}",
            if favourable.flips() {
                "1 minus the library's probability of class 1"
            } else {
                "the library's probability of class 1"
            },
            favourable.threshold(cutoff)
        ));
    }
    // The level codes of every integer-coded categorical column the trees
    // split on, natively (`true`) or numerically (`false`), decided once.
    let mut level_codes_of: BTreeMap<(usize, bool), Vec<LevelCode>> = BTreeMap::new();
    for tree in &lib.trees {
        for node in tree {
            let (column, native) = match node {
                LibNode::Leaf(_) => continue,
                LibNode::Numeric { column, .. } => (*column, false),
                LibNode::Categorical { column, .. } => (*column, true),
            };
            let Some(&Column::Ordinal(i)) = cols.get(column) else {
                continue;
            };
            if let std::collections::btree_map::Entry::Vacant(e) =
                level_codes_of.entry((column, native))
            {
                let names = lib.categories.get(column).and_then(|n| n.as_deref());
                let (codes, line) =
                    level_codes(schema, options, i, &lib.columns[column], names, native)?;
                if !native && codes.contains(&LevelCode::Unseen) {
                    return Err(format(format!(
                        "feature '{}': model column '{}' has numeric splits, where an unseen \
                         level has no place; give its code in category_codes",
                        schema.features[i].name, lib.columns[column]
                    )));
                }
                e.insert(codes);
                report.push(line);
            }
        }
    }
    let missing_states = check_missing_value(&lib, schema, options, &cols, &level_codes_of)?;
    for (i, f) in schema.features.iter().enumerate() {
        if let FeatureKind::Contiguous { special_states, .. } = &f.kind {
            if let Some(m) = options.missing {
                for s in special_states {
                    if missing_states.contains(&(i, s.code.to_bits())) {
                        report.push(format!(
                            "feature '{}': special state {} equals XGBoost's missing value {m} \
                             (the import option 'missing'): it reaches the trees as missing \
                             (each split's default branch)",
                            f.name, s.code
                        ));
                    }
                }
            }
            let as_codes: Vec<String> = special_states
                .iter()
                .filter(|s| !missing_states.contains(&(i, s.code.to_bits())))
                .map(|s| s.code.to_string())
                .collect();
            if !as_codes.is_empty() && cols.contains(&Column::Value(i)) {
                report.push(if options.special_as_missing.contains(&f.name) {
                    format!(
                        "feature '{}': special states reach the trees as missing values (NaN)",
                        f.name
                    )
                } else {
                    format!(
                        "feature '{}': special states reach the trees as their codes ({})",
                        f.name,
                        as_codes.join(", ")
                    )
                });
            }
        }
    }
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
                    Node::leaf(sign * *v)
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
                        Column::Ordinal(i) => {
                            let codes = &level_codes_of[&(column, false)];
                            levels_node(
                                i,
                                &|k| {
                                    proto.numeric_left(match codes[k] {
                                        LevelCode::Code(c) => c as f64,
                                        _ => f64::NAN,
                                    })
                                },
                                proto.left,
                                proto.right,
                            )?
                        }
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
                    default_left,
                    left,
                    right,
                } => {
                    let (l, r) = (child(*left)?, child(*right)?);
                    let goes_left = |code: Option<i64>| match code {
                        Some(c) => codes.contains(&c) == *in_set_left,
                        None => *default_left,
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
                            let level = &level_codes_of[&(*column, true)];
                            levels_node(
                                i,
                                &|k| match level[k] {
                                    LevelCode::Code(c) => goes_left(Some(c)),
                                    // A category the model never saw is in no set.
                                    LevelCode::Unseen => !*in_set_left,
                                    LevelCode::Missing => goes_left(None),
                                },
                                l,
                                r,
                            )?
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
    // The covers are kept only when every tree has one per node (the nodes
    // were pushed tree by tree, one per library node).
    let covers: Vec<f64> = if lib.covers.len() == lib.trees.len()
        && lib
            .covers
            .iter()
            .zip(&lib.trees)
            .all(|(c, t)| c.len() == t.len())
    {
        lib.covers.concat()
    } else {
        Vec::new()
    };
    let ens = TreeEnsemble::new(
        lib.source,
        base,
        favourable.threshold(cutoff),
        inputs(schema, options, &missing_states)?,
        roots,
        nodes,
        level_left,
    )?;
    // Covers only serve the path-dependent TreeSHAP of the notices: a file
    // whose covers do not fit (a zero at an inner node) still imports, with
    // the covers left unknown and said so.
    let ens = ens.with_output(lib.output)?;
    let ens = match ens.clone().with_covers(covers) {
        Ok(with) => with,
        Err(e) => {
            report.push(format!(
                "the node covers are not kept ({e}): path-dependent TreeSHAP is unavailable"
            ));
            ens
        }
    };
    Ok(ens.with_import_report(report))
}
