//! The per-thread last-error message.
//!
//! Every status-returning call clears it on success and sets it on failure;
//! read it on the same thread before the next cfx call. A thread-local (and
//! not an error object to free) keeps every binding's error path to one
//! generic helper: "non-zero status → read message → throw".
//!
//! # Thread teardown
//! The slot is a fixed buffer with no destructor ([`SLOT_BYTES`] bytes per
//! thread, const-initialised): nothing is registered to run at thread exit
//! and nothing is freed before the thread's own memory. So the slot works at
//! every point of a thread's life — also for calls made while the thread is
//! being torn down, from another library's thread-local or `pthread_key`
//! destructor, when a slot holding a `String` would already be freed (Rust
//! refuses to touch it then, and a destructor registered that late never
//! runs, leaking the message). A message longer than the slot is cut at a
//! character boundary and ends with `…`. `examples/c/thread_teardown.c`
//! proves it from C, under valgrind.

use super::status::cfx_status;
use std::cell::RefCell;
use std::ffi::c_char;

/// Bytes a message may hold in the slot (the terminating NUL not counted).
pub const SLOT_BYTES: usize = 4095;

/// One thread's message: `len` bytes of UTF-8 in `bytes` when `set`.
struct Slot {
    set: bool,
    len: usize,
    bytes: [u8; SLOT_BYTES],
}

thread_local! {
    static LAST_ERROR: RefCell<Slot> = const {
        RefCell::new(Slot { set: false, len: 0, bytes: [0; SLOT_BYTES] })
    };
}

/// Records a message (interior NUL bytes become `?` so C sees all of it; a
/// message longer than [`SLOT_BYTES`] is cut at a character boundary and
/// ends with `…`).
pub fn set_last_error(message: &str) {
    let m = message.replace('\0', "?");
    let m = if m.len() <= SLOT_BYTES {
        m
    } else {
        let mut cut = SLOT_BYTES - '…'.len_utf8();
        while !m.is_char_boundary(cut) {
            cut -= 1;
        }
        format!("{}…", &m[..cut])
    };
    LAST_ERROR.with(|e| {
        let mut e = e.borrow_mut();
        e.bytes[..m.len()].copy_from_slice(m.as_bytes());
        e.len = m.len();
        e.set = true;
    });
}

/// Forgets the message.
pub fn clear_last_error() {
    LAST_ERROR.with(|e| {
        let mut e = e.borrow_mut();
        e.set = false;
        e.len = 0;
    });
}

/// The current message of this thread.
pub fn last_error() -> Option<String> {
    LAST_ERROR.with(|e| {
        let e = e.borrow();
        e.set
            .then(|| String::from_utf8_lossy(&e.bytes[..e.len]).into_owned())
    })
}

/// Bytes needed to copy the last error message of the calling thread,
/// including the terminating NUL; 0 when the last call succeeded.
///
/// Does not change the message. Thread-safe (each thread has its own).
#[unsafe(no_mangle)]
pub extern "C" fn cfx_last_error_length() -> usize {
    ffi_boundary! {
        last_error().map_or(0, |m| m.len() + 1)
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
    fn long_messages_are_cut_at_a_character_boundary() {
        // 'é' is two bytes: 4094 of them cannot be cut in the middle of one
        let long = "é".repeat(3000);
        set_last_error(&long);
        let m = last_error().unwrap();
        assert!(m.len() <= SLOT_BYTES, "{}", m.len());
        assert!(m.ends_with('…'));
        assert!(long.starts_with(m.trim_end_matches('…')));
        assert_eq!(cfx_last_error_length(), m.len() + 1);
        // a message that fits is kept whole; an empty one is still a message
        set_last_error("short");
        assert_eq!(last_error().as_deref(), Some("short"));
        set_last_error("");
        assert_eq!(cfx_last_error_length(), 1);
        clear_last_error();
        assert_eq!(last_error(), None);
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
