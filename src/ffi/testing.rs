//! Exported only with the `testing` feature: proof that a panic becomes a status.

use super::status::cfx_status;

/// Panics on purpose inside the boundary; returns `CFX_STATUS_PANIC` with a
/// last-error message containing "deliberate panic". Only built with the
/// `testing` feature, so each binding can prove a Rust panic becomes an error
/// and the process keeps working. Thread-safe.
#[unsafe(no_mangle)]
pub extern "C" fn cfx_testing_panic() -> cfx_status {
    ffi_boundary! {
        if std::hint::black_box(true) {
            panic!("deliberate panic from cfx_testing_panic");
        }
        Ok(())
    }
}
