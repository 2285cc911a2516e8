//! Plausibility flags across the C ABI (`crate::plausibility`): ranges fitted
//! on the training data's accepted applicants, and the flags of any advice row
//! — the raw row of a coherent, robust, COPA or sequential answer alike.

use super::handle::{
    ArcHandle, arc_clone, arc_free, arc_into_raw, arc_ref, finite_in, out_param, write_slice,
};
use super::schema::cfx_schema;
use super::status::{FfiError, FfiResult, cfx_status};
use crate::plausibility::Plausibility;
use crate::schema::Schema;
use std::sync::Arc;

/// Plausible ranges per feature (1–99% of the accepted applicants' values,
/// shares of their states and levels), with the schema they were fitted for.
/// Immutable: may be used from many threads at once and freed from any
/// thread, exactly once, with `cfx_plausibility_free`.
pub struct cfx_plausibility {
    _private: [u8; 0],
}

/// The Rust side: the ranges and their schema.
pub struct PlausibilityRanges {
    ranges: Plausibility,
    schema: Arc<Schema>,
}

unsafe impl ArcHandle for cfx_plausibility {
    type Rust = PlausibilityRanges;
}

/// Fits plausible ranges on training data: `rows` is `n_rows × n_features`
/// raw values, row-major (`rows_len` must equal that product, else
/// `DIMENSION_MISMATCH`), `labels` one 0/1 value per row (1 = accepted; only
/// those rows are used). Errors: `INVALID_ARGUMENT` for non-finite values, a
/// label other than 0 or 1, or no accepted row; `INCOHERENT` for an incoherent
/// row. `*out_plausibility` is owned by the caller. Thread-safe.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cfx_plausibility_fit(
    schema: *const cfx_schema,
    rows: *const f64,
    rows_len: usize,
    n_rows: usize,
    labels: *const f64,
    labels_len: usize,
    out_plausibility: *mut *const cfx_plausibility,
) -> cfx_status {
    ffi_boundary! {
        let out = out_param(out_plausibility, "out_plausibility")?;
        let s = arc_clone(schema, "schema")?;
        let d = s.n_features();
        let len = n_rows
            .checked_mul(d)
            .ok_or_else(|| FfiError::invalid("n_rows × n_features overflows"))?;
        crate::error::check_len("rows_len (n_rows × n_features)", len, rows_len)?;
        let data = finite_in(rows, rows_len, "rows")?;
        let labels = finite_in(labels, labels_len, "labels")?;
        let rows: Vec<Vec<f64>> = data.chunks(d.max(1)).map(<[f64]>::to_vec).collect();
        let ranges = Plausibility::fit(&s, &rows, labels)?;
        out.write(arc_into_raw(Arc::new(PlausibilityRanges { ranges, schema: s })));
        Ok(())
    }
}

/// The flags of an advice row against the applicant's row (both raw, one
/// value per feature): per feature, `out_flags[i]` is −1 when the advice does
/// not change feature `i`, 0 when the new value is plausible, 1 when it lands
/// outside the 1–99% range of accepted applicants (or in a state or level
/// fewer than 1% of them have); `out_distances[i]` is how far outside the
/// range, in the feature's units (0 inside or for a state, NaN when
/// unchanged). Both buffers follow the array buffer protocol with the same
/// capacity `cap` (n_features values each). Errors: `DIMENSION_MISMATCH`,
/// `INVALID_ARGUMENT` (non-finite values), `INCOHERENT`. Thread-safe.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cfx_plausibility_assess(
    plausibility: *const cfx_plausibility,
    factual: *const f64,
    factual_len: usize,
    advice: *const f64,
    advice_len: usize,
    out_flags: *mut i32,
    out_distances: *mut f64,
    cap: usize,
    out_len: *mut usize,
) -> cfx_status {
    ffi_boundary! { assess(plausibility, factual, factual_len, advice, advice_len, out_flags, out_distances, cap, out_len) }
}

#[allow(clippy::too_many_arguments)]
fn assess(
    plausibility: *const cfx_plausibility,
    factual: *const f64,
    factual_len: usize,
    advice: *const f64,
    advice_len: usize,
    out_flags: *mut i32,
    out_distances: *mut f64,
    cap: usize,
    out_len: *mut usize,
) -> FfiResult<()> {
    let p = arc_ref(plausibility, "plausibility")?;
    let factual = finite_in(factual, factual_len, "factual")?;
    let advice = finite_in(advice, advice_len, "advice")?;
    let n = p.schema.n_features();
    let mut flags = vec![-1i32; n];
    let mut distances = vec![f64::NAN; n];
    for f in p.ranges.assess(&p.schema, factual, advice)? {
        flags[f.feature] = i32::from(f.implausible);
        distances[f.feature] = f.distance;
    }
    write_slice(&flags, out_flags, cap, out_len, "out_flags")?;
    write_slice(&distances, out_distances, cap, out_len, "out_distances")
}

/// The schema the ranges were fitted for, with every contiguous feature that
/// grows with time limited to waits that land it inside its plausible range
/// (its advised range set to the accepted applicants' 1–99% range): no
/// method then advises "wait 10 months" to a month counter that the wait
/// leaves where accepted applicants are not. Features without an accepted
/// applicant in range keep theirs. `*out_schema` is owned by the caller
/// (free with `cfx_schema_free`); thread-safe.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cfx_plausibility_advise_waits(
    plausibility: *const cfx_plausibility,
    out_schema: *mut *const cfx_schema,
) -> cfx_status {
    ffi_boundary! {
        let out = out_param(out_schema, "out_schema")?;
        let p = arc_ref(plausibility, "plausibility")?;
        let within = p.ranges.advise_waits_within(&p.schema)?;
        out.write(arc_into_raw(Arc::new(within)));
        Ok(())
    }
}

/// Frees plausible ranges (NULL is a no-op). Thread-safe; once per handle.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cfx_plausibility_free(plausibility: *const cfx_plausibility) {
    ffi_boundary! { arc_free(plausibility) }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::schema::Feature;

    /// The C entry points give the core's flags: accepted amounts 1..=100
    /// (range 1.99–99.01), an advice of 250 is 150.99 above it.
    #[test]
    fn assess_through_the_c_abi_matches_the_core() {
        let s = Schema::new(vec![
            Feature::contiguous("amount", 0.0, 1000.0),
            Feature::contiguous("age", 18.0, 80.0),
        ])
        .unwrap();
        let mut rows = Vec::new();
        let mut labels = Vec::new();
        for k in 1..=100 {
            rows.extend([k as f64, 40.0]);
            labels.push(1.0);
        }
        let sp = arc_into_raw::<cfx_schema>(Arc::new(s));
        unsafe {
            let mut p = std::ptr::null();
            assert_eq!(
                cfx_plausibility_fit(sp, rows.as_ptr(), 200, 100, labels.as_ptr(), 100, &mut p),
                cfx_status::Ok
            );
            let (mut flags, mut dist, mut n) = ([9i32; 2], [0.0; 2], 0);
            let factual = [50.0, 40.0];
            let advice = [250.0, 40.0];
            assert_eq!(
                cfx_plausibility_assess(
                    p,
                    factual.as_ptr(),
                    2,
                    advice.as_ptr(),
                    2,
                    flags.as_mut_ptr(),
                    dist.as_mut_ptr(),
                    2,
                    &mut n
                ),
                cfx_status::Ok
            );
            assert_eq!((n, flags), (2, [1, -1]));
            assert!((dist[0] - 150.99).abs() < 1e-9 && dist[1].is_nan());
            // Too small a buffer says how much is needed; a short row is a mismatch.
            assert_eq!(
                cfx_plausibility_assess(
                    p,
                    factual.as_ptr(),
                    2,
                    advice.as_ptr(),
                    2,
                    flags.as_mut_ptr(),
                    dist.as_mut_ptr(),
                    1,
                    &mut n
                ),
                cfx_status::BufferTooSmall
            );
            assert_eq!(n, 2);
            assert_eq!(
                cfx_plausibility_assess(
                    p,
                    factual.as_ptr(),
                    1,
                    advice.as_ptr(),
                    2,
                    flags.as_mut_ptr(),
                    dist.as_mut_ptr(),
                    2,
                    &mut n
                ),
                cfx_status::DimensionMismatch
            );
            cfx_plausibility_free(p);
            // Bad labels and mismatched lengths are refused.
            let bad = vec![0.5; 100];
            assert_eq!(
                cfx_plausibility_fit(sp, rows.as_ptr(), 200, 100, bad.as_ptr(), 100, &mut p),
                cfx_status::InvalidArgument
            );
            assert_eq!(
                cfx_plausibility_fit(sp, rows.as_ptr(), 199, 100, labels.as_ptr(), 100, &mut p),
                cfx_status::DimensionMismatch
            );
            arc_free(sp);
        }
    }
}
