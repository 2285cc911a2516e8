//! The panic boundary every exported function is wrapped in.
//!
//! Since Rust 1.81 a panic that reaches an `extern "C"` frame aborts the
//! process; the host (a JVM, R, a scoring server) would die with it. The
//! boundary catches the panic, records its message in the last-error slot and
//! returns `CFX_STATUS_PANIC` (or the [`PanicDefault`] of the return type).
//!
//! A panic inside a call, on the caller's thread or in a batch's worker
//! threads ([`crate::workers`] raises it again on the caller's thread), is
//! not printed into the host's stderr: the boundary installs, once, a panic
//! hook that records the place of a quiet panic (one raised while a C call
//! runs) for the last-error message and passes every other panic to the hook
//! that was there before.

use super::error;
use super::status::{FfiResult, cfx_status};

/// Wraps the body of an exported function: `ffi_boundary! { ...; Ok(()) }`.
///
/// The body is run inside `catch_unwind`. A body that evaluates to
/// `FfiResult<()>` makes the function return a `cfx_status` (OK clears the
/// last error, an error records its message); any other body value is
/// returned as is. On panic the message is recorded and the return type's
/// [`PanicDefault`] is returned.
macro_rules! ffi_boundary {
    ($($body:tt)*) => {
        $crate::ffi::boundary::run(move || { $($body)* })
    };
}

/// Runs a body behind the boundary (used by `ffi_boundary!`; do not call directly).
#[inline]
pub fn run<R, Out>(body: impl FnOnce() -> R) -> Out
where
    R: Finish<Out>,
    Out: PanicDefault,
{
    install_quiet_hook();
    let caught = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        crate::workers::quietly(body)
    }));
    match caught {
        Ok(r) => r.finish(),
        Err(payload) => {
            let what = payload
                .downcast_ref::<&str>()
                .map(|s| s.to_string())
                .or_else(|| payload.downcast_ref::<String>().cloned())
                .unwrap_or_else(|| "unknown payload".to_string());
            let place = PANIC_PLACE
                .try_with(|p| p.take())
                .ok()
                .flatten()
                .map(|p| format!(" at {p}"))
                .unwrap_or_default();
            error::set_last_error(&format!(
                "internal error: cfx panicked ({what}){place}; please report it; \
                 handles used by this call may be in an unknown state"
            ));
            Out::panic_default()
        }
    }
}

thread_local! {
    /// `file:line` of the last quiet panic on this thread.
    static PANIC_PLACE: std::cell::RefCell<Option<String>> = const { std::cell::RefCell::new(None) };
}

static QUIET_HOOK: std::sync::Once = std::sync::Once::new();

/// Installs, once per process, the hook that keeps quiet panics out of stderr.
fn install_quiet_hook() {
    QUIET_HOOK.call_once(|| {
        let previous = std::panic::take_hook();
        std::panic::set_hook(Box::new(move |info| {
            if crate::workers::is_quiet() {
                let place = info
                    .location()
                    .map(|l| format!("{}:{}", l.file(), l.line()));
                // `try_with`: a panic hook that panics would abort the host,
                // and the slot is gone while the thread is being torn down.
                let _ = PANIC_PLACE.try_with(|p| *p.borrow_mut() = place);
            } else {
                previous(info);
            }
        }));
    });
}

/// Turns a body's value into the function's C return value.
pub trait Finish<Out> {
    fn finish(self) -> Out;
}

impl Finish<cfx_status> for FfiResult<()> {
    #[inline]
    fn finish(self) -> cfx_status {
        match self {
            Ok(()) => {
                error::clear_last_error();
                cfx_status::Ok
            }
            Err(e) => {
                error::set_last_error(&e.message);
                e.status
            }
        }
    }
}

impl<T: PanicDefault> Finish<T> for T {
    #[inline]
    fn finish(self) -> T {
        self
    }
}

/// What a function returns when its body panicked.
pub trait PanicDefault {
    fn panic_default() -> Self;
}

impl PanicDefault for cfx_status {
    fn panic_default() -> Self {
        cfx_status::Panic
    }
}
impl PanicDefault for () {
    fn panic_default() -> Self {}
}
impl PanicDefault for bool {
    fn panic_default() -> Self {
        false
    }
}
impl PanicDefault for f64 {
    fn panic_default() -> Self {
        f64::NAN
    }
}
macro_rules! zero_default {
    ($($t:ty),*) => {$(impl PanicDefault for $t { fn panic_default() -> Self { 0 } })*};
}
zero_default!(u8, u16, u32, u64, usize, i8, i16, i32, i64, isize);
impl<T> PanicDefault for *const T {
    fn panic_default() -> Self {
        std::ptr::null()
    }
}
impl<T> PanicDefault for *mut T {
    fn panic_default() -> Self {
        std::ptr::null_mut()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ffi::status::FfiError;

    fn status_body(fail: bool) -> cfx_status {
        ffi_boundary! {
            if fail {
                return Err(FfiError::invalid("nope"));
            }
            Ok(())
        }
    }

    fn panicking_status() -> cfx_status {
        ffi_boundary! {
            let v: Vec<u8> = Vec::new();
            let _ = v[3];
            Ok(())
        }
    }

    fn panicking_value() -> f64 {
        ffi_boundary! {
            if std::hint::black_box(true) {
                panic!("boom {}", 1);
            }
            0.0
        }
    }

    #[test]
    fn ok_clears_error_sets_and_panic_is_caught() {
        assert_eq!(status_body(true), cfx_status::InvalidArgument);
        assert_eq!(error::last_error().as_deref(), Some("nope"));
        assert_eq!(status_body(false), cfx_status::Ok);
        assert_eq!(error::last_error(), None);
        assert_eq!(panicking_status(), cfx_status::Panic);
        assert!(error::last_error().unwrap().contains("index out of bounds"));
        assert!(panicking_value().is_nan());
        assert!(error::last_error().unwrap().contains("boom 1"));
    }
}
