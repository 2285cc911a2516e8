//! Applicant data: CSV loading, schema inference with declared special codes,
//! the three real credit datasets cfx is tested on, and a fixed hold-out split.
//!
//! Labels are `1.0` for the favourable outcome (credit granted / good risk /
//! no default) and `0.0` otherwise, whatever the file calls them.

mod csv;
pub mod presets;

/// The bundled German scorecard's loader and its import options now live in
/// [`crate::model::scorecard`] (data knows files, not models); this path is
/// kept for existing code.
pub use crate::model::scorecard::{german_scorecard, german_scorecard_options};
pub use csv::{CsvOptions, Table, parse_csv, parse_csv_with, read_csv, read_csv_with};

use crate::error::{Error, Result};
use crate::schema::{
    Actionability, Direction, Feature, FeatureKind, Schema, SpecialState, Transition, Waiting,
};
use std::collections::{BTreeMap, BTreeSet};
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

    /// The dataset's schema with distance weights fitted on its rows (the
    /// dataset's own schema is left as it was read). A schema from the
    /// builder or from JSON has unit weights, and the answers of every method
    /// change for most applicants when the fit is missed; this is the one
    /// call that makes it.
    pub fn schema_with_fitted_weights(&self) -> Result<Schema> {
        let mut s = self.schema.clone();
        s.fit_weights(&self.rows)?;
        Ok(s)
    }

    /// The fixed 70/30 hold-out split used by every test and example: row `i`
    /// is held out when `i mod 10 ≥ 7`. It needs no random generator, so any
    /// other tool (scikit-learn in the reference scripts) reproduces it exactly.
    pub fn holdout_split(&self) -> (Dataset, Dataset) {
        let (tr, te): (Vec<usize>, Vec<usize>) = (0..self.rows.len()).partition(|i| i % 10 < 7);
        (self.subset(&tr), self.subset(&te))
    }
}

/// Whether a cell says "no value": empty, `NA`, `N/A`, `?`, or a spelling of
/// NaN (`nan`, `NaN`, …). Such a cell is an error naming its row and column
/// unless the column declares a special state labelled with that text (then
/// the cell is that state: a missing bureau record is a fact, not a hole).
pub fn is_missing_token(cell: &str) -> bool {
    matches!(cell, "" | "NA" | "N/A" | "?") || cell.parse::<f64>().is_ok_and(f64::is_nan)
}

fn missing_value_error(row: usize, column: &str, cell: &str) -> Error {
    Error::Data(format!(
        "data row {}, column '{column}': missing value '{cell}'; declare a special state \
         labelled '{cell}' for this column to read it as one",
        row + 1
    ))
}

/// A special code declared for schema inference. A cell holding the code, or
/// the label itself (e.g. a label `NA` for files that write `NA`), is in this state.
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
    /// Per feature (by column name), the advice rules to give it instead of
    /// the default (mutable, any direction, no limits): immutables
    /// (`mutable: false`), directions, bounds, change limits
    /// (`max_increase`/`max_decrease`), growth while waiting
    /// (`grows_with_time`), level orders. The inferred schema is checked with
    /// them as any schema is ([`Schema::new`]); a name that is no feature
    /// (the label, a dropped column, a typo) is an error naming it.
    pub actionability: BTreeMap<String, Actionability>,
    /// The "wait `m` months" action of the schema, needed when a rule in
    /// [`InferOptions::actionability`] grows a feature with time.
    pub waiting: Option<Waiting>,
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
    let labels = labels_of(table, &opts.target, &opts.favourable)?;
    let mut features = Vec::new();
    let mut cols = Vec::new();
    for (j, name) in table.header.iter().enumerate() {
        if j == target || opts.drop.contains(name) {
            continue;
        }
        cols.push(j);
        let cells: Vec<&str> = table.rows.iter().map(|r| r[j].trim()).collect();
        let declared: Vec<&SpecialCode> = opts
            .special_codes
            .iter()
            .filter(|s| s.column.as_ref().is_none_or(|c| c == name))
            .collect();
        let by_label = |c: &str| declared.iter().find(|s| s.label == c).map(|s| s.code);
        for (i, c) in cells.iter().enumerate() {
            if is_missing_token(c) && by_label(c).is_none() {
                return Err(missing_value_error(i, name, c));
            }
        }
        let numeric: Option<Vec<f64>> = cells
            .iter()
            .map(|c| by_label(c).or_else(|| c.parse::<f64>().ok()))
            .collect();
        let numeric = numeric.filter(|v| v.iter().all(|x| x.is_finite()));
        let declared_cat = opts.categorical.contains(name);
        let feature = match numeric {
            Some(values) if !declared_cat => {
                let specials: Vec<&SpecialCode> = declared
                    .iter()
                    .copied()
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
    for (name, a) in &opts.actionability {
        let f = features.iter_mut().find(|f| &f.name == name).ok_or_else(|| {
            Error::NotFound(format!(
                "advice rules are given for '{name}', which is no feature of the inferred schema \
                 (the label, a dropped column, or not a column of the file)"
            ))
        })?;
        f.actionability = a.clone();
    }
    let mut schema = Schema::new_with_waiting(features, opts.waiting)?;
    let rows = table_rows(table, &schema, &cols)?;
    schema.fit_weights(&rows)?;
    Ok(Dataset {
        schema,
        rows,
        labels,
    })
}

/// The labels of a table: 1 where the `target` cell equals `favourable`, else 0.
/// A missing label (see [`is_missing_token`]) is an error naming its row, and so
/// is a favourable value that no row has (the error lists the values seen, so a
/// file that writes `>50K.` where `>50K` was expected is caught at once).
pub fn labels_of(table: &Table, target: &str, favourable: &str) -> Result<Vec<f64>> {
    let j = table.column(target)?;
    let mut labels = Vec::with_capacity(table.rows.len());
    for (i, r) in table.rows.iter().enumerate() {
        let cell = r[j].trim();
        if is_missing_token(cell) {
            return Err(Error::Data(format!(
                "data row {}, label column '{target}': missing label '{cell}'",
                i + 1
            )));
        }
        labels.push(f64::from(cell == favourable));
    }
    if labels.iter().all(|&l| l == 0.0) {
        let seen: BTreeSet<&str> = table.rows.iter().map(|r| r[j].trim()).collect();
        let shown: Vec<String> = seen.iter().take(10).map(|v| format!("'{v}'")).collect();
        let more = if seen.len() > 10 {
            format!(" and {} more", seen.len() - 10)
        } else {
            String::new()
        };
        return Err(Error::Data(format!(
            "no row has the favourable label '{favourable}' in column '{target}'; \
             the values seen are {}{more}",
            shown.join(", ")
        )));
    }
    Ok(labels)
}

/// Reads a CSV file of applicants under an existing schema: every feature's
/// column (by name) and the label column `target` (1 where it equals
/// `favourable`). Without a header (`opts.has_header` false) the columns are,
/// in order, the schema's features and then the label.
pub fn read_dataset(
    schema: &Schema,
    path: &Path,
    target: &str,
    favourable: &str,
    opts: &CsvOptions,
) -> Result<Dataset> {
    let mut table = read_csv_with(path, opts)?;
    if !opts.has_header {
        let mut names: Vec<String> = schema.features.iter().map(|f| f.name.clone()).collect();
        names.push(target.to_string());
        table = table.name_columns(names)?;
    }
    let rows = rows_under_schema(&table, schema)?;
    let labels = labels_of(&table, target, favourable)?;
    Ok(Dataset {
        schema: schema.clone(),
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
        rows.push(row_under_schema(cells, schema, cols, r)?);
    }
    Ok(rows)
}

/// Converts one text row into a raw row under `schema`: `cols[i]` is the cell
/// of feature `i`; `data_row` is the row's 0-based index among the data rows
/// (errors name it 1-based, as "data row N"). Unknown levels, non-numeric,
/// out-of-range and off-grid (non-whole for an integer feature) values, and missing-value tokens in a column that declares no
/// special state for them, are errors naming the row and column; a cell holding
/// a special state's label reads as that state.
pub fn row_under_schema<S: AsRef<str>>(
    cells: &[S],
    schema: &Schema,
    cols: &[usize],
    data_row: usize,
) -> Result<Vec<f64>> {
    let mut raw = Vec::with_capacity(cols.len());
    row_under_schema_into(cells, schema, cols, data_row, &mut raw)?;
    Ok(raw)
}

/// [`row_under_schema`] into a reused buffer (cleared first), for streams
/// that read many rows without allocating one per row.
pub fn row_under_schema_into<S: AsRef<str>>(
    cells: &[S],
    schema: &Schema,
    cols: &[usize],
    data_row: usize,
    raw: &mut Vec<f64>,
) -> Result<()> {
    raw.clear();
    for (i, &j) in cols.iter().enumerate() {
        let f = &schema.features[i];
        let where_ = || format!("data row {}, column '{}'", data_row + 1, f.name);
        let cell = cells
            .get(j)
            .ok_or_else(|| Error::Data(format!("{}: the row has no such field", where_())))?
            .as_ref()
            .trim();
        let v = match &f.kind {
            FeatureKind::Categorical { levels } => match levels.iter().position(|l| l == cell) {
                Some(k) => k as f64,
                None if is_missing_token(cell) => {
                    return Err(missing_value_error(data_row, &f.name, cell));
                }
                None => {
                    return Err(Error::Data(format!("{}: unknown level '{cell}'", where_())));
                }
            },
            FeatureKind::Contiguous { special_states, .. } => {
                match special_states.iter().find(|s| s.label == cell) {
                    Some(s) => s.code,
                    None if is_missing_token(cell) => {
                        return Err(missing_value_error(data_row, &f.name, cell));
                    }
                    None => cell.parse::<f64>().map_err(|_| {
                        Error::Data(format!("{}: '{cell}' is not a number", where_()))
                    })?,
                }
            }
        };
        let state = f
            .state_of(v)
            .map_err(|e| Error::Data(format!("{}: {e}", where_())))?;
        // An integer or step feature's value is snapped onto its grid (within
        // the coherence tolerance) or refused here, so every row of a dataset
        // encodes and decodes back to itself.
        let v = if state == 0 {
            schema
                .snap_to_grid(i, v)
                .map_err(|e| Error::Data(format!("{}: {e}", where_())))?
        } else {
            v
        };
        raw.push(v);
    }
    Ok(())
}

/// The folder of the real datasets that may not be bundled (HELOC, Taiwan):
/// `$CFX_SHARED_DATA`, else `../shared/data` relative to the current
/// directory (beside a source checkout, where `cargo test` and `make` run).
pub fn shared_data_dir() -> PathBuf {
    match std::env::var_os("CFX_SHARED_DATA") {
        Some(p) if !p.is_empty() => PathBuf::from(p),
        _ => PathBuf::from("../shared/data"),
    }
}

/// A file of the shared data folder for the unit tests, as `tests/common`
/// gives it to the integration tests: `None` with a notice when it is absent,
/// except under `CI` (set to anything but empty, `0` or `false`), where a
/// missing dataset fails the test instead of skipping it.
#[cfg(test)]
pub(crate) fn shared_test_file(name: &str) -> Option<PathBuf> {
    let p = shared_data_dir().join(name);
    if p.exists() {
        return Some(p);
    }
    let ci = std::env::var("CI").unwrap_or_default();
    assert!(
        ci.is_empty() || ci == "0" || ci.eq_ignore_ascii_case("false"),
        "{} is missing under CI (set CFX_SHARED_DATA to the shared data folder)",
        p.display()
    );
    eprintln!(
        "notice: {} not found; skipping (set CFX_SHARED_DATA)",
        p.display()
    );
    None
}

/// The file every copy of the bundled data folder holds.
const GERMAN_FILE: &str = "german_credit.csv";

/// The folder of the data bundled with cfx (`german_credit.csv`, from the
/// source tree's `examples/data`), looked up at run time, first match wins:
/// 1. `$CFX_DATA_DIR` when set (then only there);
/// 2. `share/cfx` of the prefix the library is installed in: found from the
///    location of the loaded `libcfx` itself (`<prefix>/lib/libcfx.so.N` →
///    `<prefix>/share/cfx`, also one level up for multiarch library folders),
///    so an installed prefix can be moved and no build path is baked in;
/// 3. `examples/data` relative to the current directory (a source checkout).
///
/// An error names every place it looked and the variable to set.
pub fn bundled_data_dir() -> Result<PathBuf> {
    find_bundled_data_dir(
        std::env::var_os("CFX_DATA_DIR").as_deref(),
        loaded_object_dir().as_deref(),
        Path::new("examples/data"),
    )
}

/// [`bundled_data_dir`] with its inputs given: the value of `CFX_DATA_DIR`, the
/// folder of the loaded library, and the source tree's data folder.
fn find_bundled_data_dir(
    variable: Option<&std::ffi::OsStr>,
    lib_dir: Option<&Path>,
    source_tree: &Path,
) -> Result<PathBuf> {
    if let Some(dir) = variable.filter(|d| !d.is_empty()) {
        let dir = PathBuf::from(dir);
        if dir.join(GERMAN_FILE).is_file() {
            return Ok(dir);
        }
        return Err(Error::Io(format!(
            "CFX_DATA_DIR is '{}', but it holds no {GERMAN_FILE}",
            dir.display()
        )));
    }
    let mut looked = Vec::new();
    if let Some(lib_dir) = lib_dir {
        for up in [1, 2] {
            if let Some(prefix) = lib_dir.ancestors().nth(up) {
                looked.push(prefix.join("share/cfx"));
            }
        }
    }
    looked.push(source_tree.to_path_buf());
    match looked.iter().find(|d| d.join(GERMAN_FILE).is_file()) {
        Some(d) => Ok(d.clone()),
        None => Err(Error::Io(format!(
            "the bundled data ({GERMAN_FILE}) was not found; set CFX_DATA_DIR to the folder \
             holding it (installed: <prefix>/share/cfx; source tree: examples/data); looked in: {}",
            looked
                .iter()
                .map(|d| format!("'{}'", d.display()))
                .collect::<Vec<_>>()
                .join(", ")
        ))),
    }
}

/// The folder of the shared object (or executable) this code was loaded from,
/// as the dynamic loader reports it (`dladdr`); `None` when it cannot say.
fn loaded_object_dir() -> Option<PathBuf> {
    let mut info = std::mem::MaybeUninit::<libc::Dl_info>::zeroed();
    let here = loaded_object_dir as fn() -> Option<PathBuf> as *const libc::c_void;
    // SAFETY: dladdr only reads the address and fills `info`; the returned name
    // points into the loader's own tables and is copied out at once.
    let found = unsafe { libc::dladdr(here, info.as_mut_ptr()) };
    if found == 0 {
        return None;
    }
    let info = unsafe { info.assume_init() };
    if info.dli_fname.is_null() {
        return None;
    }
    let name = unsafe { std::ffi::CStr::from_ptr(info.dli_fname) };
    let path =
        Path::new(<std::ffi::OsStr as std::os::unix::ffi::OsStrExt>::from_bytes(name.to_bytes()));
    path.parent().map(Path::to_path_buf)
}

/// The bundled German credit file, looked up as [`bundled_data_dir`] says.
pub fn bundled_german() -> Result<PathBuf> {
    Ok(bundled_data_dir()?.join(GERMAN_FILE))
}

/// [`bundled_german`] for callers that go on to load the file: when it is found
/// nowhere, the source-tree path `examples/data/german_credit.csv`, so that
/// loading fails with an error naming that path.
pub fn bundled_german_path() -> PathBuf {
    bundled_german().unwrap_or_else(|_| Path::new("examples/data").join(GERMAN_FILE))
}

/// The bundled German points scorecard's table (optbinning's detailed table,
/// `german_scorecard_table.csv`), found in the same folder as the bundled
/// German credit data ([`bundled_data_dir`]): an installed prefix's
/// `share/cfx`, `$CFX_DATA_DIR`, or `examples/data` in a source checkout.
pub fn bundled_german_scorecard() -> Result<PathBuf> {
    let dir = bundled_data_dir()?;
    let path = dir.join(GERMAN_SCORECARD_FILE);
    if path.is_file() {
        Ok(path)
    } else {
        Err(Error::Io(format!(
            "the bundled data folder '{}' holds {GERMAN_FILE} but no {GERMAN_SCORECARD_FILE} \
             (an install older than the scorecard? reinstall cfx)",
            dir.display()
        )))
    }
}

/// The table file of the bundled German scorecard.
const GERMAN_SCORECARD_FILE: &str = "german_scorecard_table.csv";

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

/// The HELOC special codes of Russell 2019.
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

/// FICO HELOC (Russell 2019's data; read from [`shared_data_dir`], never bundled).
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
            ..Default::default()
        },
    )?;
    for name in ["SEX", "EDUCATION", "MARRIAGE", "AGE"] {
        set(&mut d.schema, name, |f| f.actionability.mutable = false)?;
    }
    d.schema = Schema::new(d.schema.features.clone())?;
    Ok(d)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A fresh scratch folder in the system temporary folder, removed by each test.
    fn scratch(name: &str) -> PathBuf {
        let d = std::env::temp_dir().join(format!("cfx-data-{}-{name}", std::process::id()));
        let _ = std::fs::remove_dir_all(&d);
        std::fs::create_dir_all(&d).unwrap();
        d
    }

    #[test]
    fn values_of_integer_and_step_features_are_snapped_or_refused() {
        use crate::schema::Feature;
        let schema = Schema::new(vec![
            Feature::contiguous("n", 0.0, 100.0).integer(),
            Feature::contiguous("x", 0.0, 10.0),
        ])
        .unwrap();
        let row = |a: &str, b: &str| {
            row_under_schema(&[a.to_string(), b.to_string()], &schema, &[0, 1], 4)
        };
        // within the tolerance: the whole number; a plain contiguous value is kept
        assert_eq!(row("3.0000000001", "2.5").unwrap(), vec![3.0, 2.5]);
        let e = row("2.5", "2.5").unwrap_err().to_string();
        assert!(
            e.contains("data row 5") && e.contains("'n'") && e.contains("not a whole number"),
            "{e}"
        );
    }

    fn put_german(dir: &Path) {
        std::fs::create_dir_all(dir).unwrap();
        std::fs::write(dir.join(GERMAN_FILE), "x\n").unwrap();
    }

    #[test]
    fn the_bundled_data_is_looked_up_in_order() {
        let root = scratch("order");
        let tree = root.join("tree/examples/data");
        let prefix_lib = root.join("prefix/lib");
        let multiarch_lib = root.join("usr/lib/x86_64-linux-gnu");
        put_german(&tree);
        std::fs::create_dir_all(&prefix_lib).unwrap();
        // Nothing installed: the source tree's folder.
        assert_eq!(
            find_bundled_data_dir(None, Some(&prefix_lib), &tree).unwrap(),
            tree
        );
        // Installed: <prefix>/share/cfx beside <prefix>/lib wins over the source tree.
        put_german(&root.join("prefix/share/cfx"));
        assert_eq!(
            find_bundled_data_dir(None, Some(&prefix_lib), &tree).unwrap(),
            root.join("prefix/share/cfx")
        );
        // A multiarch library folder: two levels up.
        put_german(&root.join("usr/share/cfx"));
        assert_eq!(
            find_bundled_data_dir(None, Some(&multiarch_lib), Path::new("nowhere")).unwrap(),
            root.join("usr/share/cfx")
        );
        // The variable wins over everything, and an empty one counts as unset.
        let chosen = root.join("chosen");
        put_german(&chosen);
        assert_eq!(
            find_bundled_data_dir(Some(chosen.as_os_str()), Some(&prefix_lib), &tree).unwrap(),
            chosen
        );
        assert_eq!(
            find_bundled_data_dir(Some("".as_ref()), None, &tree).unwrap(),
            tree
        );
        std::fs::remove_dir_all(&root).unwrap();
    }

    #[test]
    fn missing_bundled_data_is_an_error_naming_where_it_looked() {
        let root = scratch("missing");
        let err =
            find_bundled_data_dir(Some(root.join("empty").as_os_str()), None, &root).unwrap_err();
        assert!(
            matches!(&err, Error::Io(m) if m.contains("CFX_DATA_DIR is '") && m.contains("empty")),
            "{err}"
        );
        let lib = root.join("p/lib");
        let err = find_bundled_data_dir(None, Some(&lib), &root.join("tree")).unwrap_err();
        let Error::Io(m) = &err else { panic!("{err}") };
        for place in [
            root.join("p/share/cfx"),
            root.join("share/cfx"),
            root.join("tree"),
        ] {
            assert!(m.contains(&format!("'{}'", place.display())), "{m}");
        }
        assert!(m.contains("set CFX_DATA_DIR"), "{m}");
        std::fs::remove_dir_all(&root).unwrap();
    }

    #[test]
    fn the_loaded_object_is_found() {
        // In a test binary the code lives in the executable itself.
        let dir = loaded_object_dir().expect("dladdr names the test executable");
        let exe = std::env::current_exe().unwrap();
        assert_eq!(
            dir.canonicalize().unwrap(),
            exe.parent().unwrap().canonicalize().unwrap()
        );
    }
}
