//! The per-thread last-error message.
//!
//! Every status-returning call clears it on success and sets it on failure;
//! read it on the same thread before the next cfx call. A thread-local (and
//! not an error object to free) keeps every binding's error path to one
//! generic helper: "non-zero status → read message → throw".

use super::status::cfx_status;
use std::cell::RefCell;
use std::ffi::c_char;

thread_local! {
    static LAST_ERROR: RefCell<Option<String>> = const { RefCell::new(None) };
}

/// Records a message (interior NUL bytes become `?` so C sees all of it).
pub fn set_last_error(message: &str) {
    let m = message.replace('\0', "?");
    LAST_ERROR.with(|e| *e.borrow_mut() = Some(m));
}

/// Forgets the message.
pub fn clear_last_error() {
    LAST_ERROR.with(|e| *e.borrow_mut() = None);
}

/// The current message of this thread.
pub fn last_error() -> Option<String> {
    LAST_ERROR.with(|e| e.borrow().clone())
}

/// Bytes needed to copy the last error message of the calling thread,
/// including the terminating NUL; 0 when the last call succeeded.
///
/// Does not change the message. Thread-safe (each thread has its own).
#[unsafe(no_mangle)]
pub extern "C" fn cfx_last_error_length() -> usize {
    ffi_boundary! {
        LAST_ERROR.with(|e| e.borrow().as_ref().map_or(0, |m| m.len() + 1))
    }
}

/// Copies the last error message of the calling thread into `buf` (UTF-8,
/// NUL-terminated). With no error, writes an empty string.
///
/// Returns `CFX_STATUS_BUFFER_TOO_SMALL` when `cap < cfx_last_error_length()`
/// (nothing is written), `CFX_STATUS_NULL_ARGUMENT` when `buf` is NULL and
/// `cap > 0`. Neither reading nor failing to read changes the message, so a
/// caller can retry with a bigger buffer. Thread-safe (per-thread message).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cfx_last_error_message(buf: *mut c_char, cap: usize) -> cfx_status {
    ffi_boundary! {
        let msg = last_error().unwrap_or_default();
        let need = msg.len() + 1;
        if buf.is_null() {
            return if cap == 0 {
                cfx_status::BufferTooSmall
            } else {
                cfx_status::NullArgument
            };
        }
        if cap < need {
            return cfx_status::BufferTooSmall;
        }
        // SAFETY: buf is non-NULL and the caller promises `cap` writable bytes.
        unsafe {
            std::ptr::copy_nonoverlapping(msg.as_ptr(), buf as *mut u8, msg.len());
            *buf.add(msg.len()) = 0;
        }
        cfx_status::Ok
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn length_query_then_copy() {
        set_last_error("bad\0thing");
        assert_eq!(cfx_last_error_length(), 10);
        let mut small = [0 as c_char; 4];
        assert_eq!(
            unsafe { cfx_last_error_message(small.as_mut_ptr(), small.len()) },
            cfx_status::BufferTooSmall
        );
        // the failed read kept the message
        assert_eq!(cfx_last_error_length(), 10);
        let mut buf = [1 as c_char; 10];
        assert_eq!(
            unsafe { cfx_last_error_message(buf.as_mut_ptr(), buf.len()) },
            cfx_status::Ok
        );
        let s = unsafe { std::ffi::CStr::from_ptr(buf.as_ptr()) };
        assert_eq!(s.to_str().unwrap(), "bad?thing");
        clear_last_error();
        assert_eq!(cfx_last_error_length(), 0);
        let mut one = [1 as c_char; 1];
        assert_eq!(
            unsafe { cfx_last_error_message(one.as_mut_ptr(), 1) },
            cfx_status::Ok
        );
        assert_eq!(one[0], 0);
        assert_eq!(
            unsafe { cfx_last_error_message(std::ptr::null_mut(), 5) },
            cfx_status::NullArgument
        );
    }

    #[test]
    fn messages_are_per_thread() {
        set_last_error("main");
        std::thread::spawn(|| assert_eq!(cfx_last_error_length(), 0))
            .join()
            .unwrap();
        assert_eq!(last_error().as_deref(), Some("main"));
    }
}
