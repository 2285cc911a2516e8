//! Worker threads of the batch methods (`coherent::explain_batch`,
//! `robust::Estimator::estimate_batch_into`), so that a batch behaves like one
//! call on the caller's thread:
//!
//! * a worker's panic is raised again on the caller's thread with its own
//!   payload ([`join`]), where a caller that catches panics (the C boundary,
//!   `CFX_STATUS_PANIC`) sees it as it would on one thread — not as an
//!   invalid argument or a solver error;
//! * whether a panic is reported quietly ([`is_quiet`]; the C boundary keeps
//!   the message for the last-error slot instead of printing it into the
//!   host's stderr) is carried from the caller into its workers ([`spawn`]).

use std::cell::Cell;

/// Into how many pieces a batch of slow rows cuts each worker's even share
/// of what is left, the pieces taken by whichever worker is free (guided
/// scheduling): one hard applicant (a tree search of seconds) then holds up
/// a piece, not a worker's whole share, and the workers finish together
/// (`portfolio`'s chunks, `revalidate`'s parts; issue 43).
pub const BALANCE_SHARES: usize = 4;
use std::thread::{Scope, ScopedJoinHandle};

thread_local! {
    static QUIET: Cell<bool> = const { Cell::new(false) };
}

/// Whether a panic on this thread should be recorded rather than printed.
pub fn is_quiet() -> bool {
    QUIET.with(Cell::get)
}

/// Runs `f` with panics on this thread (and on the workers it spawns through
/// [`spawn`]) marked quiet, restoring the previous mode afterwards, also
/// when `f` panics.
pub fn quietly<R>(f: impl FnOnce() -> R) -> R {
    struct Restore(bool);
    impl Drop for Restore {
        fn drop(&mut self) {
            QUIET.with(|q| q.set(self.0));
        }
    }
    let _restore = Restore(QUIET.with(|q| q.replace(true)));
    f()
}

/// Spawns a scoped worker that inherits the caller's panic-reporting mode.
pub fn spawn<'scope, 'env, T, F>(
    s: &'scope Scope<'scope, 'env>,
    f: F,
) -> ScopedJoinHandle<'scope, T>
where
    F: FnOnce() -> T + Send + 'scope,
    T: Send + 'scope,
{
    let quiet = is_quiet();
    s.spawn(move || {
        QUIET.with(|q| q.set(quiet));
        f()
    })
}

/// Joins a worker; its panic continues on the caller's thread with the
/// worker's own payload (message included).
pub fn join<T>(h: ScopedJoinHandle<'_, T>) -> T {
    match h.join() {
        Ok(v) => v,
        Err(payload) => std::panic::resume_unwind(payload),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_worker_panic_reaches_the_caller_with_its_payload_and_mode() {
        let caught = std::panic::catch_unwind(|| {
            quietly(|| {
                std::thread::scope(|s| {
                    let ok = spawn(s, || 1 + 1);
                    let seen = spawn(s, is_quiet);
                    let bad = spawn(s, || -> u32 {
                        if std::hint::black_box(true) {
                            panic!("worker {} failed", 3);
                        }
                        0
                    });
                    assert_eq!(join(ok), 2);
                    assert!(join(seen));
                    join(bad)
                })
            })
        });
        let payload = caught.unwrap_err();
        let message = payload
            .downcast_ref::<&str>()
            .copied()
            .or_else(|| payload.downcast_ref::<String>().map(String::as_str));
        assert_eq!(message, Some("worker 3 failed"));
        // the mode is restored after the panic went through
        assert!(!is_quiet());
        std::thread::scope(|s| assert!(!join(spawn(s, is_quiet))));
    }
}
