//! Applicant data: CSV loading, schema inference with declared special codes,
//! the three real credit datasets cfx is tested on, and a fixed hold-out split.
//!
//! Labels are `1.0` for the favourable outcome (credit granted / good risk /
//! no default) and `0.0` otherwise, whatever the file calls them.

mod csv;

pub use csv::{Table, parse_csv, read_csv};

use crate::error::{Error, Result};
use crate::schema::{Direction, Feature, FeatureKind, Schema, SpecialState, Transition};
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

/// Applicants under one schema: raw rows (see [`crate::schema`]) and labels.
#[derive(Debug, Clone)]
pub struct Dataset {
    pub schema: Schema,
    pub rows: Vec<Vec<f64>>,
    /// 1 for the favourable outcome, 0 otherwise.
    pub labels: Vec<f64>,
}

impl Dataset {
    /// The encoded rows.
    pub fn encoded(&self) -> Vec<Vec<f64>> {
        self.schema
            .encode_rows(&self.rows)
            .expect("dataset rows are coherent by construction")
    }

    /// Picks rows by index.
    pub fn subset(&self, idx: &[usize]) -> Dataset {
        Dataset {
            schema: self.schema.clone(),
            rows: idx.iter().map(|&i| self.rows[i].clone()).collect(),
            labels: idx.iter().map(|&i| self.labels[i]).collect(),
        }
    }

    /// The fixed 70/30 hold-out split used by every test and example: row `i`
    /// is held out when `i mod 10 ≥ 7`. It needs no random generator, so any
    /// other tool (scikit-learn in the reference scripts) reproduces it exactly.
    pub fn holdout_split(&self) -> (Dataset, Dataset) {
        let (tr, te): (Vec<usize>, Vec<usize>) = (0..self.rows.len()).partition(|i| i % 10 < 7);
        (self.subset(&tr), self.subset(&te))
    }
}

/// A special code declared for schema inference.
#[derive(Debug, Clone)]
pub struct SpecialCode {
    /// Column it applies to, or `None` for every numeric column where it occurs.
    pub column: Option<String>,
    pub code: f64,
    pub label: String,
}

/// How to turn a CSV table into a schema and a dataset.
#[derive(Debug, Clone, Default)]
pub struct InferOptions {
    /// The label column.
    pub target: String,
    /// The label value that means the favourable outcome.
    pub favourable: String,
    /// Columns to leave out (identifiers).
    pub drop: Vec<String>,
    /// Columns to treat as categorical even when numeric.
    pub categorical: Vec<String>,
    /// Special codes of contiguous columns.
    pub special_codes: Vec<SpecialCode>,
}

fn sort_levels(levels: BTreeSet<String>) -> Vec<String> {
    let mut v: Vec<String> = levels.into_iter().collect();
    if v.iter().all(|l| l.parse::<f64>().is_ok()) {
        v.sort_by(|a, b| {
            a.parse::<f64>()
                .unwrap()
                .total_cmp(&b.parse::<f64>().unwrap())
        });
    }
    v
}

/// Infers a schema from a table and converts its rows. A column is categorical
/// when declared so or when any of its cells is not a number; a numeric column's
/// `[L, U]` is the range of its values that are not declared special codes, and
/// it is integer when all of those are whole numbers. Distance weights are fitted
/// on all rows.
pub fn infer(table: &Table, opts: &InferOptions) -> Result<Dataset> {
    if table.rows.is_empty() {
        return Err(Error::Data("the table has no rows".into()));
    }
    let target = table.column(&opts.target)?;
    for d in opts.drop.iter().chain(&opts.categorical) {
        table.column(d)?;
    }
    for s in &opts.special_codes {
        if let Some(c) = &s.column {
            table.column(c)?;
        }
    }
    let mut features = Vec::new();
    let mut cols = Vec::new();
    for (j, name) in table.header.iter().enumerate() {
        if j == target || opts.drop.contains(name) {
            continue;
        }
        cols.push(j);
        let cells: Vec<&str> = table.rows.iter().map(|r| r[j].trim()).collect();
        if let Some((i, _)) = cells.iter().enumerate().find(|(_, c)| c.is_empty()) {
            return Err(Error::Data(format!(
                "column '{name}', row {}: empty value",
                i + 2
            )));
        }
        let numeric: Option<Vec<f64>> = cells.iter().map(|c| c.parse::<f64>().ok()).collect();
        let numeric = numeric.filter(|v| v.iter().all(|x| x.is_finite()));
        let declared_cat = opts.categorical.contains(name);
        let feature = match numeric {
            Some(values) if !declared_cat => {
                let specials: Vec<&SpecialCode> = opts
                    .special_codes
                    .iter()
                    .filter(|s| s.column.as_ref().is_none_or(|c| c == name))
                    .filter(|s| values.contains(&s.code))
                    .collect();
                let normal: Vec<f64> = values
                    .iter()
                    .copied()
                    .filter(|v| !specials.iter().any(|s| s.code == *v))
                    .collect();
                let (lo, hi) = if normal.is_empty() {
                    (0.0, 0.0)
                } else {
                    normal
                        .iter()
                        .fold((f64::INFINITY, f64::NEG_INFINITY), |(a, b), &v| {
                            (a.min(v), b.max(v))
                        })
                };
                Feature {
                    name: name.clone(),
                    kind: FeatureKind::Contiguous {
                        lower: lo,
                        upper: hi,
                        integer: normal.iter().all(|v| v.fract() == 0.0),
                        step: None,
                        special_states: specials
                            .iter()
                            .map(|s| SpecialState {
                                code: s.code,
                                label: s.label.clone(),
                            })
                            .collect(),
                        fixed_value: 0.0,
                    },
                    actionability: Default::default(),
                    weights: None,
                }
            }
            _ => {
                let levels: BTreeSet<String> = cells.iter().map(|c| c.to_string()).collect();
                Feature {
                    name: name.clone(),
                    kind: FeatureKind::Categorical {
                        levels: sort_levels(levels),
                    },
                    actionability: Default::default(),
                    weights: None,
                }
            }
        };
        features.push(feature);
    }
    let mut schema = Schema::new(features)?;
    let rows = table_rows(table, &schema, &cols)?;
    let labels = table
        .rows
        .iter()
        .map(|r| f64::from(r[target].trim() == opts.favourable))
        .collect::<Vec<_>>();
    if labels.iter().all(|&l| l == 0.0) {
        return Err(Error::Data(format!(
            "no row has the favourable label '{}' in column '{}'",
            opts.favourable, opts.target
        )));
    }
    schema.fit_weights(&rows)?;
    Ok(Dataset {
        schema,
        rows,
        labels,
    })
}

/// Converts text rows into raw rows under an existing schema: the columns named
/// by the schema's features are looked up by name; unknown levels, non-numeric
/// values and out-of-range values are errors that name the row and column.
pub fn rows_under_schema(table: &Table, schema: &Schema) -> Result<Vec<Vec<f64>>> {
    let cols = schema
        .features
        .iter()
        .map(|f| table.column(&f.name))
        .collect::<Result<Vec<_>>>()?;
    table_rows(table, schema, &cols)
}

fn table_rows(table: &Table, schema: &Schema, cols: &[usize]) -> Result<Vec<Vec<f64>>> {
    let mut rows = Vec::with_capacity(table.rows.len());
    for (r, cells) in table.rows.iter().enumerate() {
        rows.push(row_under_schema(cells, schema, cols, r + 2)?);
    }
    Ok(rows)
}

/// Converts one text row into a raw row under `schema`: `cols[i]` is the cell
/// of feature `i`; `row` numbers the row in errors (the file's line, the
/// header being line 1). Unknown levels, non-numeric and out-of-range values
/// are errors naming the row and column.
pub fn row_under_schema(
    cells: &[String],
    schema: &Schema,
    cols: &[usize],
    row: usize,
) -> Result<Vec<f64>> {
    let mut raw = Vec::with_capacity(cols.len());
    for (i, &j) in cols.iter().enumerate() {
        let f = &schema.features[i];
        let where_ = || format!("row {row}, column '{}'", f.name);
        let cell = cells
            .get(j)
            .ok_or_else(|| Error::Data(format!("{}: the row has no such field", where_())))?
            .trim();
        let v = match &f.kind {
            FeatureKind::Categorical { levels } => levels
                .iter()
                .position(|l| l == cell)
                .ok_or_else(|| Error::Data(format!("{}: unknown level '{cell}'", where_())))?
                as f64,
            FeatureKind::Contiguous { .. } => cell
                .parse::<f64>()
                .map_err(|_| Error::Data(format!("{}: '{cell}' is not a number", where_())))?,
        };
        f.state_of(v)
            .map_err(|e| Error::Data(format!("{}: {e}", where_())))?;
        raw.push(v);
    }
    Ok(raw)
}

/// The folder of the real datasets that may not be bundled (HELOC, Taiwan):
/// `$CFX_SHARED_DATA`, else `../shared/data` beside the crate.
pub fn shared_data_dir() -> PathBuf {
    if let Ok(p) = std::env::var("CFX_SHARED_DATA") {
        return PathBuf::from(p);
    }
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/data")
}

/// The bundled German credit file.
pub fn bundled_german_path() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/data/german_credit.csv")
}

fn set<F: FnMut(&mut Feature)>(schema: &mut Schema, name: &str, mut f: F) -> Result<()> {
    let i = schema.index_of(name)?;
    f(&mut schema.features[i]);
    Ok(())
}

/// Statlog German credit (UCI, CC BY 4.0). Favourable: `creditability = good`.
/// Actionability: sex/personal status and foreign-worker status are immutable;
/// age can only increase.
pub fn german_credit(path: &Path) -> Result<Dataset> {
    let t = read_csv(path)?;
    let mut d = infer(
        &t,
        &InferOptions {
            target: "creditability".into(),
            favourable: "good".into(),
            ..Default::default()
        },
    )?;
    set(&mut d.schema, "personal_status_and_sex", |f| {
        f.actionability.mutable = false
    })?;
    set(&mut d.schema, "foreign_worker", |f| {
        f.actionability.mutable = false
    })?;
    set(&mut d.schema, "age_in_years", |f| {
        f.actionability.direction = Direction::IncreaseOnly
    })?;
    d.schema = Schema::new(d.schema.features.clone())?;
    Ok(d)
}

/// The HELOC special codes of seed 000.
pub fn heloc_special_codes() -> Vec<SpecialCode> {
    [
        (-7.0, "condition not met"),
        (-8.0, "no usable trades"),
        (-9.0, "no bureau record"),
    ]
    .iter()
    .map(|&(code, label)| SpecialCode {
        column: None,
        code,
        label: label.into(),
    })
    .collect()
}

/// FICO HELOC (seed 000's data; read from [`shared_data_dir`], never bundled).
/// Favourable: `RiskPerformance = Good`. Special states −7/−8/−9 on every column
/// where they occur. Actionability: nobody can move *into* "no bureau record";
/// a recorded delinquency cannot become "condition not met" (−7); the age of
/// the oldest trade can only increase.
pub fn heloc(path: &Path) -> Result<Dataset> {
    let t = read_csv(path)?;
    let mut d = infer(
        &t,
        &InferOptions {
            target: "RiskPerformance".into(),
            favourable: "Good".into(),
            special_codes: heloc_special_codes(),
            ..Default::default()
        },
    )?;
    for f in &mut d.schema.features {
        if let FeatureKind::Contiguous { special_states, .. } = &f.kind {
            if special_states.iter().any(|s| s.code == -9.0) {
                f.actionability.forbidden_transitions.push(Transition {
                    from: "*".into(),
                    to: "-9".into(),
                });
            }
        }
    }
    // A recorded delinquency cannot be erased: moving from "months since the
    // most recent delinquency" to −7 ("condition not met": no delinquency) would
    // advise the applicant to rewrite their history.
    set(&mut d.schema, "MSinceMostRecentDelq", |f| {
        f.actionability.forbidden_transitions.push(Transition {
            from: "value".into(),
            to: "-7".into(),
        })
    })?;
    set(&mut d.schema, "MSinceOldestTradeOpen", |f| {
        f.actionability.direction = Direction::IncreaseOnly
    })?;
    d.schema = Schema::new(d.schema.features.clone())?;
    Ok(d)
}

/// Taiwan credit-card default (UCI, CC BY 4.0; read from [`shared_data_dir`]).
/// Favourable: no default next month. `PAY_*` are mixed: 1–9 months of delay or
/// the special states −2 "no consumption", −1 "paid in full", 0 "revolving
/// credit used". SEX, EDUCATION and MARRIAGE are categorical and immutable; AGE
/// is immutable.
pub fn taiwan(path: &Path) -> Result<Dataset> {
    let t = read_csv(path)?;
    let pay = ["PAY_0", "PAY_2", "PAY_3", "PAY_4", "PAY_5", "PAY_6"];
    let mut special_codes = Vec::new();
    for p in pay {
        for (code, label) in [
            (-2.0, "no consumption"),
            (-1.0, "paid in full"),
            (0.0, "revolving credit used"),
        ] {
            special_codes.push(SpecialCode {
                column: Some(p.into()),
                code,
                label: label.into(),
            });
        }
    }
    let mut d = infer(
        &t,
        &InferOptions {
            target: "default payment next month".into(),
            favourable: "0".into(),
            drop: vec!["ID".into()],
            categorical: vec!["SEX".into(), "EDUCATION".into(), "MARRIAGE".into()],
            special_codes,
        },
    )?;
    for name in ["SEX", "EDUCATION", "MARRIAGE", "AGE"] {
        set(&mut d.schema, name, |f| f.actionability.mutable = false)?;
    }
    d.schema = Schema::new(d.schema.features.clone())?;
    Ok(d)
}
