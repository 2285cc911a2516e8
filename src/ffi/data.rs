//! `cfx_dataset`: applicants under one schema (raw rows and 0/1 labels).
//! Immutable and `Arc`-backed: share it across threads freely.

use super::handle::{ArcHandle, arc_free, arc_into_raw, arc_ref, out_param, str_in, write_slice};
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

/// Reads a CSV whose columns include every feature of `schema` (by name) and
/// a label column `target`; a row's label is 1 when its `target` cell equals
/// `favourable`, else 0. Unknown levels and out-of-range values are
/// `DATA_ERROR` naming row and column. The dataset keeps its own reference to
/// the schema.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cfx_dataset_from_csv(
    schema: *const cfx_schema,
    path: *const c_char,
    target: *const c_char,
    favourable: *const c_char,
    out_dataset: *mut *const cfx_dataset,
) -> cfx_status {
    ffi_boundary! {
        let out = out_param(out_dataset, "out_dataset")?;
        let s = arc_ref(schema, "schema")?;
        let path = str_in(path, "path")?;
        let target = str_in(target, "target")?;
        let favourable = str_in(favourable, "favourable")?;
        let table = data::read_csv(std::path::Path::new(path))?;
        let rows = data::rows_under_schema(&table, s)?;
        let j = table.column(target)?;
        let labels = table
            .rows
            .iter()
            .map(|r| if r[j].trim() == favourable { 1.0 } else { 0.0 })
            .collect();
        let d = Dataset { schema: s.clone(), rows, labels };
        out.write(arc_into_raw(Arc::new(d)));
        Ok(())
    }
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
