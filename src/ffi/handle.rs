//! The only places where a caller's pointer becomes a Rust reference.
//!
//! Every helper NULL-checks and returns an [`FfiError`] (status
//! `NULL_ARGUMENT`, message naming the parameter) instead of dereferencing.
//! Keeping all `unsafe` conversions here makes the layer auditable.

use super::status::{FfiError, FfiResult, cfx_status};
use std::ffi::{CStr, c_char};
use std::sync::Arc;

/// An opaque C type that stands for an `Arc<Self::Rust>` (immutable, shareable).
///
/// # Safety
/// Pointers of this type must only ever be produced by [`arc_into_raw`] for
/// the same `Rust` type.
pub unsafe trait ArcHandle {
    type Rust: Send + Sync;
}

/// An opaque C type that stands for a `Box<Self::Rust>` (mutable, one user at a time).
///
/// # Safety
/// Pointers of this type must only ever be produced by [`box_into_raw`] for
/// the same `Rust` type.
pub unsafe trait BoxHandle {
    type Rust: Send;
}

/// Gives up an `Arc` to C.
pub(crate) fn arc_into_raw<H: ArcHandle>(value: Arc<H::Rust>) -> *const H {
    Arc::into_raw(value) as *const H
}

/// Borrows the object behind an immutable handle.
pub(crate) fn arc_ref<'a, H: ArcHandle>(p: *const H, param: &str) -> FfiResult<&'a H::Rust> {
    if p.is_null() {
        return Err(FfiError::null(param));
    }
    // SAFETY: non-NULL and, by the ArcHandle contract, from Arc::into_raw; the
    // caller keeps it alive for the duration of the call.
    Ok(unsafe { &*(p as *const H::Rust) })
}

/// A new strong reference to the object behind an immutable handle (to keep
/// it inside another object, e.g. a result that refers to its schema).
#[allow(dead_code)] // for method files; exercised by the unit tests below
pub(crate) fn arc_clone<H: ArcHandle>(p: *const H, param: &str) -> FfiResult<Arc<H::Rust>> {
    if p.is_null() {
        return Err(FfiError::null(param));
    }
    let p = p as *const H::Rust;
    // SAFETY: as in arc_ref; the count is raised before a new Arc is made.
    unsafe {
        Arc::increment_strong_count(p);
        Ok(Arc::from_raw(p))
    }
}

/// Releases an immutable handle; NULL is a no-op.
pub(crate) fn arc_free<H: ArcHandle>(p: *const H) {
    if !p.is_null() {
        // SAFETY: from Arc::into_raw, released exactly once by contract.
        drop(unsafe { Arc::from_raw(p as *const H::Rust) });
    }
}

/// Gives up a `Box` to C.
pub(crate) fn box_into_raw<H: BoxHandle>(value: H::Rust) -> *mut H {
    Box::into_raw(Box::new(value)) as *mut H
}

/// Borrows the object behind a mutable handle.
pub(crate) fn box_mut<'a, H: BoxHandle>(p: *mut H, param: &str) -> FfiResult<&'a mut H::Rust> {
    if p.is_null() {
        return Err(FfiError::null(param));
    }
    // SAFETY: non-NULL, from Box::into_raw, and not used concurrently by contract.
    Ok(unsafe { &mut *(p as *mut H::Rust) })
}

/// Takes back ownership of a mutable handle (a `_build` consuming its builder).
pub(crate) fn box_take<H: BoxHandle>(p: *mut H, param: &str) -> FfiResult<Box<H::Rust>> {
    if p.is_null() {
        return Err(FfiError::null(param));
    }
    // SAFETY: from Box::into_raw; the caller gives up the handle.
    Ok(unsafe { Box::from_raw(p as *mut H::Rust) })
}

/// Releases a mutable handle; NULL is a no-op.
pub(crate) fn box_free<H: BoxHandle>(p: *mut H) {
    if !p.is_null() {
        // SAFETY: from Box::into_raw, released exactly once by contract.
        drop(unsafe { Box::from_raw(p as *mut H::Rust) });
    }
}

/// A checked, not yet written out-parameter. Check it at the top of the
/// function, [`Out::write`] it at the end, so nothing is written on failure.
pub(crate) struct Out<T>(*mut T);

impl<T> Out<T> {
    /// Writes the value (no read or drop of the previous contents).
    pub(crate) fn write(self, value: T) {
        // SAFETY: non-NULL (checked by out_param); the caller promises it is writable.
        unsafe { self.0.write(value) }
    }
}

/// NULL-checks an out-parameter.
pub(crate) fn out_param<T>(p: *mut T, param: &str) -> FfiResult<Out<T>> {
    if p.is_null() {
        Err(FfiError::null(param))
    } else {
        Ok(Out(p))
    }
}

/// An optional out-parameter: `None` when the caller passed NULL ("not wanted").
pub(crate) fn optional_out<T>(p: *mut T) -> Option<Out<T>> {
    (!p.is_null()).then_some(Out(p))
}

/// Writes each value to its optional out-parameter, skipping the NULL ones
/// ("not wanted"). For getters with several optional outputs, written after
/// every check has passed.
pub(crate) fn write_optional<T>(outs: impl IntoIterator<Item = (*mut T, T)>) {
    for (p, v) in outs {
        if let Some(o) = optional_out(p) {
            o.write(v);
        }
    }
}

/// The largest count a caller may give for anything cfx allocates per unit
/// (samples, hidden-layer widths and layers, diverse answers, batch and
/// replay sizes, options): 2²⁴. Larger counts are refused with
/// `INVALID_ARGUMENT` before any allocation, instead of an allocation failure
/// aborting the host.
pub(crate) const MAX_COUNT: usize = 1 << 24;

/// The largest product of caller-given sizes cfx allocates as one buffer of
/// doubles (e.g. a weight matrix `width × width`): 2²⁸ values, 2 GiB.
pub(crate) const MAX_ELEMENTS: usize = 1 << 28;

/// A caller-given count in `1..=MAX_COUNT`.
pub(crate) fn count_in(v: usize, param: &str) -> FfiResult<usize> {
    if v == 0 {
        return Err(FfiError::invalid(format!("{param} must be positive")));
    }
    if v > MAX_COUNT {
        return Err(FfiError::invalid(format!(
            "{param} = {v} is absurdly large (at most {MAX_COUNT})"
        )));
    }
    Ok(v)
}

/// The product of caller-given sizes, refused (`INVALID_ARGUMENT`, naming
/// `what`) when it overflows or exceeds [`MAX_ELEMENTS`].
pub(crate) fn elements(factors: &[usize], what: &str) -> FfiResult<usize> {
    factors
        .iter()
        .try_fold(1usize, |acc, &f| acc.checked_mul(f))
        .filter(|&n| n <= MAX_ELEMENTS)
        .ok_or_else(|| {
            FfiError::invalid(format!(
                "{what} ({}) is absurdly large (at most {MAX_ELEMENTS} values)",
                factors
                    .iter()
                    .map(|f| f.to_string())
                    .collect::<Vec<_>>()
                    .join(" × ")
            ))
        })
}

/// A `(pointer, length)` input array; NULL is accepted only with length 0.
/// A length whose bytes exceed `isize::MAX` (no array can be that long) is
/// `INVALID_ARGUMENT`.
pub(crate) fn slice_in<'a, T>(p: *const T, len: usize, param: &str) -> FfiResult<&'a [T]> {
    if len == 0 {
        return Ok(&[]);
    }
    if len
        .checked_mul(std::mem::size_of::<T>().max(1))
        .is_none_or(|b| b > isize::MAX as usize)
    {
        return Err(FfiError::invalid(format!(
            "{param} has length {len}, more than any array can hold"
        )));
    }
    if p.is_null() {
        return Err(FfiError::new(
            cfx_status::NullArgument,
            format!("{param} is NULL but its length is {len}"),
        ));
    }
    // SAFETY: non-NULL; the caller promises `len` readable elements.
    Ok(unsafe { std::slice::from_raw_parts(p, len) })
}

/// A `(pointer, length)` input array of doubles that must all be finite.
pub(crate) fn finite_in<'a>(p: *const f64, len: usize, param: &str) -> FfiResult<&'a [f64]> {
    let s = slice_in(p, len, param)?;
    crate::error::check_finite(param, s)?;
    Ok(s)
}

/// A finite scalar argument.
pub(crate) fn finite(v: f64, param: &str) -> FfiResult<f64> {
    if v.is_finite() {
        Ok(v)
    } else {
        Err(FfiError::invalid(format!("{param} is not finite ({v})")))
    }
}

/// A NUL-terminated UTF-8 string argument.
pub(crate) fn str_in<'a>(p: *const c_char, param: &str) -> FfiResult<&'a str> {
    if p.is_null() {
        return Err(FfiError::null(param));
    }
    // SAFETY: non-NULL; the caller promises a NUL-terminated string.
    let c = unsafe { CStr::from_ptr(p) };
    c.to_str().map_err(|e| {
        FfiError::invalid(format!(
            "{param} is not valid UTF-8 (byte {})",
            e.valid_up_to()
        ))
    })
}

/// An optional string argument: NULL is `None` (e.g. "no options, use the defaults").
pub(crate) fn optional_str_in<'a>(p: *const c_char, param: &str) -> FfiResult<Option<&'a str>> {
    if p.is_null() {
        Ok(None)
    } else {
        str_in(p, param).map(Some)
    }
}

/// Copies `src` into a caller buffer `(buf, cap)` and its length into
/// `*out_len`; `BUFFER_TOO_SMALL` with the needed length when `cap` is short.
pub(crate) fn write_slice<T: Copy>(
    src: &[T],
    buf: *mut T,
    cap: usize,
    out_len: *mut usize,
    param: &str,
) -> FfiResult<()> {
    let out_len = out_param(out_len, "out_len")?;
    if cap < src.len() {
        out_len.write(src.len());
        return Err(FfiError::new(
            cfx_status::BufferTooSmall,
            format!(
                "{param} has room for {cap} values, {} are needed (the needed length was written to *out_len)",
                src.len()
            ),
        ));
    }
    if !src.is_empty() {
        if buf.is_null() {
            return Err(FfiError::new(
                cfx_status::NullArgument,
                format!("{param} is NULL but its capacity is {cap}"),
            ));
        }
        // SAFETY: non-NULL, room for cap >= src.len() elements by contract.
        unsafe { std::ptr::copy_nonoverlapping(src.as_ptr(), buf, src.len()) };
    }
    out_len.write(src.len());
    Ok(())
}

/// Copies a string, NUL-terminated, into a caller buffer; `*out_len` gets the
/// bytes needed including the NUL (on success and on `BUFFER_TOO_SMALL`).
pub(crate) fn write_str(
    s: &str,
    buf: *mut c_char,
    cap: usize,
    out_len: *mut usize,
    param: &str,
) -> FfiResult<()> {
    let out_len = out_param(out_len, "out_len")?;
    let need = s.len() + 1;
    if cap < need {
        out_len.write(need);
        return Err(FfiError::new(
            cfx_status::BufferTooSmall,
            format!(
                "{param} has room for {cap} bytes, {need} are needed including the NUL \
                 (the needed length was written to *out_len)"
            ),
        ));
    }
    if buf.is_null() {
        return Err(FfiError::new(
            cfx_status::NullArgument,
            format!("{param} is NULL but its capacity is {cap}"),
        ));
    }
    // SAFETY: non-NULL, room for cap >= need bytes by contract.
    unsafe {
        std::ptr::copy_nonoverlapping(s.as_ptr(), buf as *mut u8, s.len());
        *buf.add(s.len()) = 0;
    }
    out_len.write(need);
    Ok(())
}

/// A C enumeration value passed as `int32_t`, checked against its range.
pub(crate) fn enum_in<T>(v: i32, param: &str, decode: impl Fn(i32) -> Option<T>) -> FfiResult<T> {
    decode(v).ok_or_else(|| FfiError::invalid(format!("{param} = {v} is not a valid value")))
}

/// A C boolean (`int32_t` 0 or 1); any other value is `INVALID_ARGUMENT`
/// naming `param`.
pub(crate) fn flag(v: i32, param: &str) -> FfiResult<bool> {
    match v {
        0 => Ok(false),
        1 => Ok(true),
        _ => Err(FfiError::invalid(format!(
            "{param} must be 0 or 1, got {v}"
        ))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    struct Thing;
    unsafe impl ArcHandle for Thing {
        type Rust = Vec<u8>;
    }
    struct Work;
    unsafe impl BoxHandle for Work {
        type Rust = Vec<u8>;
    }

    #[test]
    fn handles_count_references_and_free_null() {
        let p: *const Thing = arc_into_raw(Arc::new(vec![1, 2]));
        let kept = arc_clone(p, "p").unwrap();
        assert_eq!(Arc::strong_count(&kept), 2);
        arc_free(p);
        assert_eq!(Arc::strong_count(&kept), 1);
        assert_eq!(*kept, vec![1, 2]);
        arc_free::<Thing>(std::ptr::null());
        assert_eq!(
            arc_ref::<Thing>(std::ptr::null(), "p").unwrap_err().status,
            cfx_status::NullArgument
        );
        let w: *mut Work = box_into_raw(vec![3]);
        box_mut(w, "w").unwrap().push(4);
        assert_eq!(*box_take(w, "w").unwrap(), vec![3, 4]);
        box_free::<Work>(std::ptr::null_mut());
        let mut v = 1.0;
        out_param(&mut v as *mut f64, "v").unwrap().write(2.0);
        assert_eq!(v, 2.0);
        assert!(out_param::<f64>(std::ptr::null_mut(), "v").is_err());
    }

    #[test]
    fn slices_and_buffers_follow_the_protocol() {
        assert_eq!(slice_in::<f64>(std::ptr::null(), 0, "x").unwrap().len(), 0);
        let e = slice_in::<f64>(std::ptr::null(), 3, "x").unwrap_err();
        assert_eq!(e.status, cfx_status::NullArgument);
        let e = finite_in([1.0, f64::NAN].as_ptr(), 2, "x").unwrap_err();
        assert_eq!(e.status, cfx_status::InvalidArgument);

        let src = [1.0, 2.0, 3.0];
        let mut n = 0usize;
        let e = write_slice(&src, std::ptr::null_mut(), 0, &mut n, "out").unwrap_err();
        assert_eq!((e.status, n), (cfx_status::BufferTooSmall, 3));
        let mut buf = [0.0; 3];
        write_slice(&src, buf.as_mut_ptr(), 3, &mut n, "out").unwrap();
        assert_eq!(buf, src);
        let e = write_slice(&src, buf.as_mut_ptr(), 3, std::ptr::null_mut(), "out").unwrap_err();
        assert_eq!(e.status, cfx_status::NullArgument);

        let mut n = 0usize;
        let e = write_str("abc", std::ptr::null_mut(), 0, &mut n, "s").unwrap_err();
        assert_eq!((e.status, n), (cfx_status::BufferTooSmall, 4));
        let mut sb = [7 as c_char; 4];
        write_str("abc", sb.as_mut_ptr(), 4, &mut n, "s").unwrap();
        assert_eq!(
            unsafe { CStr::from_ptr(sb.as_ptr()) }.to_str().unwrap(),
            "abc"
        );
        let bad = [0xffu8 as c_char, 0];
        assert_eq!(
            str_in(bad.as_ptr(), "s").unwrap_err().status,
            cfx_status::InvalidArgument
        );
    }
}
