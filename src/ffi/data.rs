//! `cfx_dataset`: applicants under one schema (raw rows and 0/1 labels).
//! Immutable and `Arc`-backed: share it across threads freely.

use super::handle::{
    ArcHandle, arc_free, arc_into_raw, arc_ref, finite_in, out_param, slice_in, str_in, write_slice,
};
use super::schema::cfx_schema;
use super::status::{FfiError, FfiResult, cfx_status};
use crate::data::{self, Dataset};
use std::ffi::c_char;
use std::path::PathBuf;
use std::sync::Arc;

/// An immutable dataset: a schema, raw rows and labels (1 = favourable).
/// Thread-safe: may be used from many threads at once and freed from any
/// thread, exactly once, with `cfx_dataset_free`.
pub struct cfx_dataset {
    _private: [u8; 0],
}

unsafe impl ArcHandle for cfx_dataset {
    type Rust = Dataset;
}

fn load(
    path: *const c_char,
    default: impl FnOnce() -> crate::Result<PathBuf>,
    loader: fn(&std::path::Path) -> crate::Result<Dataset>,
    out: *mut *const cfx_dataset,
) -> FfiResult<()> {
    let out = out_param(out, "out_dataset")?;
    let p = if path.is_null() {
        default()?
    } else {
        PathBuf::from(str_in(path, "path")?)
    };
    let d = loader(&p)?;
    out.write(arc_into_raw(Arc::new(d)));
    Ok(())
}

/// Loads the Statlog German credit CSV with cfx's schema (immutable personal
/// status and foreign-worker status, age only increasing) and fitted distance
/// weights. `path` NULL means the bundled copy, looked up at run time in
/// `$CFX_DATA_DIR` when set (only there), else in `<prefix>/share/cfx` beside
/// the installed library (`<prefix>/lib/libcfx.so`, as `make install` lays it
/// out), else in `examples/data` under the current directory (a source
/// checkout). On success `*out_dataset` owns a new handle. Errors: `IO_ERROR`
/// (naming the places looked in when the bundled copy is found nowhere),
/// `DATA_ERROR`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cfx_dataset_load_german(
    path: *const c_char,
    out_dataset: *mut *const cfx_dataset,
) -> cfx_status {
    ffi_boundary! {
        load(path, data::bundled_german, data::german_credit, out_dataset)
    }
}

/// Loads the FICO HELOC CSV (special codes −7/−8/−9 as special states).
/// `path` NULL means `heloc.csv` in cfx's shared data folder: `$CFX_SHARED_DATA`,
/// else `../shared/data` relative to the current directory.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cfx_dataset_load_heloc(
    path: *const c_char,
    out_dataset: *mut *const cfx_dataset,
) -> cfx_status {
    ffi_boundary! {
        load(path, || Ok(data::shared_data_dir().join("heloc.csv")), data::heloc, out_dataset)
    }
}

/// Loads the Taiwan credit-card default CSV. `path` NULL means `taiwan_default.csv`
/// in cfx's shared data folder (`$CFX_SHARED_DATA`, else `../shared/data`).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cfx_dataset_load_taiwan(
    path: *const c_char,
    out_dataset: *mut *const cfx_dataset,
) -> cfx_status {
    ffi_boundary! {
        load(path, || Ok(data::shared_data_dir().join("taiwan_default.csv")), data::taiwan, out_dataset)
    }
}

/// Reads a comma-separated CSV with a header whose columns include every
/// feature of `schema` (by name) and a label column `target`; a row's label
/// is 1 when its `target` cell equals `favourable`, else 0. The same as
/// `cfx_dataset_from_csv_ex(schema, path, target, favourable, ',', 1, out)`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cfx_dataset_from_csv(
    schema: *const cfx_schema,
    path: *const c_char,
    target: *const c_char,
    favourable: *const c_char,
    out_dataset: *mut *const cfx_dataset,
) -> cfx_status {
    ffi_boundary! {
        from_csv(schema, path, target, favourable, &data::CsvOptions::default(), out_dataset)
    }
}

/// Reads a CSV of applicants under `schema`, with the field `delimiter` (an
/// ASCII character such as `','` or `';'`, common in European credit files;
/// not a quote or line end) and `has_header` 1 when the first line names the
/// columns (features found by name, in any order), 0 when it does not (the
/// columns are then, in order, the schema's features and the label column).
/// A row's label is 1 when its `target` cell equals `favourable`, else 0.
/// The dataset keeps its own reference to the schema.
///
/// Errors, each naming the file and where in it: `DATA_ERROR` for an
/// unknown level, an out-of-range value, a missing value (empty, `NA`,
/// `N/A`, `?`, `nan`) in a column without a special state labelled so, a
/// missing label, a favourable value no row has (the message lists the
/// values seen), an empty or repeated header name, ragged rows or a file
/// without data rows; `NOT_FOUND` for a missing column; `INVALID_ARGUMENT`
/// for a bad delimiter or `has_header`; `IO_ERROR`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cfx_dataset_from_csv_ex(
    schema: *const cfx_schema,
    path: *const c_char,
    target: *const c_char,
    favourable: *const c_char,
    delimiter: c_char,
    has_header: i32,
    out_dataset: *mut *const cfx_dataset,
) -> cfx_status {
    ffi_boundary! {
        let opts = csv_options(delimiter, has_header)?;
        from_csv(schema, path, target, favourable, &opts, out_dataset)
    }
}

/// Infers a schema from a CSV file and reads its rows under it: the one call
/// that takes a lender's own file to a dataset whose schema has distance
/// weights fitted on its rows (take it with `cfx_dataset_schema`).
///
/// A column is categorical when listed in `categorical` or when any cell is
/// not a number; otherwise it is contiguous, with `[L, U]` the range of its
/// values that are not special codes, integer when all of them are whole.
/// Columns in `drop` (identifiers) are left out; `target` is the label column
/// (1 where it equals `favourable`). Every feature is mutable in any
/// direction: give the advice rules the caller knows (immutables,
/// directions, limits, waiting) with `cfx_dataset_infer_csv_with_rules`.
///
/// Special codes (e.g. HELOC's −7 "no delinquency record") are given by the
/// caller as `n_special` triples: `special_codes[k]` (finite), its label
/// `special_labels[k]` (a cell holding the label, e.g. `NA`, is also read as
/// that state) and the column it applies to, `special_columns[k]`, or NULL
/// there (or `special_columns` NULL) for every numeric column where the code
/// occurs. `drop`, `categorical` and the special arrays may be NULL with
/// count 0. `delimiter` and `has_header` as in `cfx_dataset_from_csv_ex`
/// (without a header the columns are named `column 1`, `column 2`, …).
///
/// Errors: `NOT_FOUND` for a named column that the file lacks, `DATA_ERROR`
/// for a missing value in a column without a special state labelled so, a
/// favourable value no row has, a file without data rows, …; `IO_ERROR`;
/// `INVALID_ARGUMENT`. On success `*out_dataset` owns a new handle.
/// Thread-safe.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cfx_dataset_infer_csv(
    path: *const c_char,
    target: *const c_char,
    favourable: *const c_char,
    delimiter: c_char,
    has_header: i32,
    drop: *const *const c_char,
    n_drop: usize,
    categorical: *const *const c_char,
    n_categorical: usize,
    special_codes: *const f64,
    special_labels: *const *const c_char,
    special_columns: *const *const c_char,
    n_special: usize,
    out_dataset: *mut *const cfx_dataset,
) -> cfx_status {
    ffi_boundary! {
        let columns = InferColumns {
            drop: (drop, n_drop),
            categorical: (categorical, n_categorical),
            special: (special_codes, special_labels, special_columns, n_special),
        };
        infer_csv(path, target, favourable, delimiter, has_header, &columns, InferRules::default(), out_dataset)
    }
}

/// The `rules_json` of `cfx_dataset_infer_csv_with_rules` (unknown keys
/// refused): the schema's own `actionability` objects by feature name and
/// its `waiting` action, as `data::InferOptions` takes them.
#[derive(Debug, Default, serde::Deserialize)]
#[serde(deny_unknown_fields)]
struct InferRules {
    #[serde(default)]
    actionability: std::collections::BTreeMap<String, crate::schema::Actionability>,
    #[serde(default)]
    waiting: Option<crate::schema::Waiting>,
}

/// `cfx_dataset_infer_csv` with the advice rules the caller already knows,
/// so that the inferred schema is the one advice is given under (as
/// `cfx schema infer --rules` writes it): `rules_json` is NULL (every feature
/// mutable in any direction, as `cfx_dataset_infer_csv`) or a JSON object
/// with the optional keys `actionability` — feature name → the schema's
/// actionability object (`{"mutable": false}`, `{"direction":
/// "increase_only"}`, `{"max_decrease": {"fraction": 0.5}}`,
/// `{"grows_with_time": {"per_month": 1}}`, …; docs/guide/schemas-and-presets.md
/// lists every key) — and `waiting` (`{"max_months": 24, "cost_per_month":
/// 0.01}`, needed when a feature grows with time). The other parameters are
/// `cfx_dataset_infer_csv`'s.
///
/// Errors: those of `cfx_dataset_infer_csv`; `FORMAT_ERROR` for rules that
/// are not such a JSON object (an unknown key, a wrong type); `NOT_FOUND`
/// for a rule naming no feature (the label, a dropped column, a typo),
/// naming it; `INVALID_ARGUMENT` for rules the schema refuses (a feature
/// that grows with time without `waiting`, bounds outside the data's
/// range, …). On success
/// `*out_dataset` owns a new handle. Thread-safe.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cfx_dataset_infer_csv_with_rules(
    path: *const c_char,
    target: *const c_char,
    favourable: *const c_char,
    delimiter: c_char,
    has_header: i32,
    drop: *const *const c_char,
    n_drop: usize,
    categorical: *const *const c_char,
    n_categorical: usize,
    special_codes: *const f64,
    special_labels: *const *const c_char,
    special_columns: *const *const c_char,
    n_special: usize,
    rules_json: *const c_char,
    out_dataset: *mut *const cfx_dataset,
) -> cfx_status {
    ffi_boundary! {
        let rules: InferRules = if rules_json.is_null() {
            InferRules::default()
        } else {
            serde_json::from_str(str_in(rules_json, "rules_json")?).map_err(|e| {
                crate::Error::Format(format!(
                    "inference rules: {e} (expected {{\"actionability\": {{\"feature\": {{\"mutable\": false}}}}, \"waiting\": {{…}}}})"
                ))
            })?
        };
        let columns = InferColumns {
            drop: (drop, n_drop),
            categorical: (categorical, n_categorical),
            special: (special_codes, special_labels, special_columns, n_special),
        };
        infer_csv(path, target, favourable, delimiter, has_header, &columns, rules, out_dataset)
    }
}

/// The column arguments of the two inference functions, as given.
struct InferColumns {
    drop: (*const *const c_char, usize),
    categorical: (*const *const c_char, usize),
    special: (
        *const f64,
        *const *const c_char,
        *const *const c_char,
        usize,
    ),
}

#[allow(clippy::too_many_arguments)]
fn infer_csv(
    path: *const c_char,
    target: *const c_char,
    favourable: *const c_char,
    delimiter: c_char,
    has_header: i32,
    columns: &InferColumns,
    rules: InferRules,
    out_dataset: *mut *const cfx_dataset,
) -> FfiResult<()> {
    let out = out_param(out_dataset, "out_dataset")?;
    let path = str_in(path, "path")?;
    let opts = csv_options(delimiter, has_header)?;
    let names = |p: *const *const c_char, n: usize, param: &str| -> FfiResult<Vec<String>> {
        slice_in(p, n, param)?
            .iter()
            .map(|&s| str_in(s, param).map(str::to_string))
            .collect()
    };
    let (special_codes, special_labels, special_columns, n_special) = columns.special;
    let codes = finite_in(special_codes, n_special, "special_codes")?;
    let labels = names(special_labels, n_special, "special_labels")?;
    let specials: Vec<Option<String>> = if special_columns.is_null() {
        vec![None; n_special]
    } else {
        slice_in(special_columns, n_special, "special_columns")?
            .iter()
            .map(|&c| {
                if c.is_null() {
                    Ok(None)
                } else {
                    str_in(c, "special_columns").map(|s| Some(s.to_string()))
                }
            })
            .collect::<FfiResult<_>>()?
    };
    let infer = data::InferOptions {
        target: str_in(target, "target")?.to_string(),
        favourable: str_in(favourable, "favourable")?.to_string(),
        drop: names(columns.drop.0, columns.drop.1, "drop")?,
        categorical: names(columns.categorical.0, columns.categorical.1, "categorical")?,
        special_codes: codes
            .iter()
            .zip(labels)
            .zip(specials)
            .map(|((&code, label), column)| data::SpecialCode {
                column,
                code,
                label,
            })
            .collect(),
        actionability: rules.actionability,
        waiting: rules.waiting,
    };
    let table = data::read_csv_with(std::path::Path::new(path), &opts)?;
    let d = data::infer(&table, &infer)?;
    out.write(arc_into_raw(Arc::new(d)));
    Ok(())
}

fn csv_options(delimiter: c_char, has_header: i32) -> FfiResult<data::CsvOptions> {
    let has_header = match has_header {
        0 => false,
        1 => true,
        v => {
            return Err(FfiError::invalid(format!(
                "has_header must be 0 or 1, got {v}"
            )));
        }
    };
    Ok(data::CsvOptions {
        delimiter: delimiter as u8,
        has_header,
    })
}

fn from_csv(
    schema: *const cfx_schema,
    path: *const c_char,
    target: *const c_char,
    favourable: *const c_char,
    opts: &data::CsvOptions,
    out_dataset: *mut *const cfx_dataset,
) -> FfiResult<()> {
    let out = out_param(out_dataset, "out_dataset")?;
    let s = arc_ref(schema, "schema")?;
    let path = str_in(path, "path")?;
    let target = str_in(target, "target")?;
    let favourable = str_in(favourable, "favourable")?;
    let d = data::read_dataset(s, std::path::Path::new(path), target, favourable, opts)?;
    out.write(arc_into_raw(Arc::new(d)));
    Ok(())
}

/// The number of rows. Thread-safe.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cfx_dataset_n_rows(
    dataset: *const cfx_dataset,
    out_n: *mut usize,
) -> cfx_status {
    ffi_boundary! {
        let out = out_param(out_n, "out_n")?;
        out.write(arc_ref(dataset, "dataset")?.rows.len());
        Ok(())
    }
}

/// A new handle to the dataset's schema (free it with `cfx_schema_free`).
/// Thread-safe.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cfx_dataset_schema(
    dataset: *const cfx_dataset,
    out_schema: *mut *const cfx_schema,
) -> cfx_status {
    ffi_boundary! {
        let out = out_param(out_schema, "out_schema")?;
        let d = arc_ref(dataset, "dataset")?;
        out.write(arc_into_raw::<cfx_schema>(Arc::new(d.schema.clone())));
        Ok(())
    }
}

/// A new schema handle: the dataset's schema with distance weights fitted on
/// the dataset's rows (Russell 2019, "Efficient search for diverse coherent
/// explanations", §3.2: 1/MAD per value slot, 1/(1.48·std) per indicator).
/// A schema built in code or read from JSON has unit weights
/// (`cfx_schema_weights_kind`), and the answers change for most applicants
/// when this fit is missed; fit on the training rows, then build the model
/// and every method on the returned schema. The dataset is unchanged.
/// Thread-safe.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cfx_dataset_fitted_schema(
    dataset: *const cfx_dataset,
    out_schema: *mut *const cfx_schema,
) -> cfx_status {
    ffi_boundary! {
        let out = out_param(out_schema, "out_schema")?;
        let s = arc_ref(dataset, "dataset")?.schema_with_fitted_weights()?;
        out.write(arc_into_raw::<cfx_schema>(Arc::new(s)));
        Ok(())
    }
}

fn row_of(d: &Dataset, index: usize) -> FfiResult<&Vec<f64>> {
    d.rows.get(index).ok_or_else(|| {
        FfiError::new(
            cfx_status::NotFound,
            format!(
                "row {index} is out of range (the dataset has {})",
                d.rows.len()
            ),
        )
    })
}

/// Raw row `index` (`n_features` values, array buffer protocol); `NOT_FOUND`
/// when out of range. Thread-safe.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cfx_dataset_row(
    dataset: *const cfx_dataset,
    index: usize,
    out: *mut f64,
    cap: usize,
    out_len: *mut usize,
) -> cfx_status {
    ffi_boundary! {
        let d = arc_ref(dataset, "dataset")?;
        write_slice(row_of(d, index)?, out, cap, out_len, "out")
    }
}

/// The label of row `index` (1 favourable, 0 otherwise). Thread-safe.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cfx_dataset_label(
    dataset: *const cfx_dataset,
    index: usize,
    out_label: *mut f64,
) -> cfx_status {
    ffi_boundary! {
        let out = out_param(out_label, "out_label")?;
        let d = arc_ref(dataset, "dataset")?;
        row_of(d, index)?;
        out.write(d.labels[index]);
        Ok(())
    }
}

/// The fixed 70/30 hold-out split (row `i` is held out when `i mod 10 ≥ 7`):
/// two new handles, both owned by the caller. Both out-parameters are written
/// only on success. Thread-safe.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cfx_dataset_holdout_split(
    dataset: *const cfx_dataset,
    out_train: *mut *const cfx_dataset,
    out_test: *mut *const cfx_dataset,
) -> cfx_status {
    ffi_boundary! {
        let out_train = out_param(out_train, "out_train")?;
        let out_test = out_param(out_test, "out_test")?;
        let (train, test) = arc_ref(dataset, "dataset")?.holdout_split();
        out_train.write(arc_into_raw(Arc::new(train)));
        out_test.write(arc_into_raw(Arc::new(test)));
        Ok(())
    }
}

/// Releases a dataset handle. NULL is a no-op. May be called from any thread,
/// exactly once per handle.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cfx_dataset_free(dataset: *const cfx_dataset) {
    ffi_boundary! { arc_free(dataset) }
}
