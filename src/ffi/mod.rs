//! The C ABI of cfx: opaque handles, `cfx_status`, a per-thread last error and
//! a panic boundary around every exported function. No logic lives here: each
//! entry point checks its arguments, calls the Rust core, and translates.
//!
//! The header `include/cfx.h` is generated from this module by the pinned
//! cbindgen 0.29.4 (`make header`, or
//! `cbindgen --config cbindgen.toml --crate cfx --output include/cfx.h`) and is
//! committed; `tests/header.rs` fails when it drifts.
//!
//! # Conventions (copy them exactly when adding entry points)
//!
//! **Files.** One small file per noun: `src/ffi/<noun>.rs` holds the opaque
//! type `cfx_<noun>` and every `cfx_<noun>_<verb>` function. Register it with
//! one `pub mod <noun>;` line below. Shared machinery: [`status`] (the status
//! enum and the `cfx::Error` mapping), [`error`] (last-error slot),
//! [`boundary`] (the `ffi_boundary!` macro), [`handle`] (handle, slice, string
//! and out-parameter helpers), [`export`] (versioned result JSON),
//! [`config`] (the solver-configuration builder every method reads).
//!
//! **Signatures.** Write
//! `#[unsafe(no_mangle)] pub unsafe extern "C" fn cfx_<noun>_<verb>(...) -> cfx_status`
//! and make the body exactly `ffi_boundary! { ... }` (a test,
//! `tests/ffi_wrapped.rs`, fails otherwise). The first parameter is the handle
//! (`*const cfx_x` = read-only, `*mut cfx_x` = mutates), then inputs, then
//! outputs. Inside the macro, the body evaluates to `FfiResult<()>` for status
//! functions: use `?` freely on `cfx::Result` (every `cfx::Error` maps to a
//! status) and on the helpers, end with `Ok(())`. The macro clears the
//! last error on success, records the message on failure and turns a panic
//! into `CFX_STATUS_PANIC`. Functions that return a value instead of a status
//! (`_free`, version getters) end with that value; on panic they return the
//! [`boundary::PanicDefault`] (NULL, 0, NaN, false, nothing).
//!
//! **Handles.** Immutable shared objects (schema, model, dataset, config,
//! results) are `Arc`-backed: declare `pub struct cfx_x { _private: [u8; 0] }`
//! and `unsafe impl ArcHandle for cfx_x { type Rust = X; }`; read with
//! [`handle::arc_ref`], keep a reference inside another handle with
//! [`handle::arc_clone`], hand out with `Out::write(arc_into_raw(value))`,
//! free with [`handle::arc_free`] (`_free(NULL)` is a no-op). Mutable objects
//! (builders, workspaces) are `Box`-backed ([`handle::BoxHandle`],
//! [`handle::box_mut`], [`handle::box_into_raw`], [`handle::box_take`],
//! [`handle::box_free`]). Never dereference a caller pointer any other way.
//!
//! **Inputs.** Arrays are `(const double *x, size_t x_len)`; NULL is accepted
//! only with length 0 ([`handle::slice_in`]). Strings are NUL-terminated UTF-8
//! ([`handle::str_in`]). Enumerations arrive as `int32_t` and are validated
//! (a Rust enum is never a parameter type: an out-of-range value would be UB).
//! Non-finite numbers are refused with `CFX_STATUS_INVALID_ARGUMENT`.
//! Such an enum is declared `#[repr(i32)] pub enum cfx_<name> { .. }` with a
//! `from_i32` decoder, and listed in `cbindgen.toml` `[export] include`
//! (it appears in no signature, so cbindgen would otherwise omit it). Its C
//! name must not equal a function name (C has one namespace for both).
//!
//! **Outputs.** Out-parameters are checked for NULL first (before any work)
//! with [`handle::out_param`] and written **only on success**, at the end.
//! Arrays and strings go to caller buffers `(buf, cap, size_t *out_len)` via
//! [`handle::write_slice`] / [`handle::write_str`]: when `cap` is too small the
//! call returns `CFX_STATUS_BUFFER_TOO_SMALL` and writes the needed length to
//! `*out_len` (the one documented exception to "only on success"), so a
//! binding can query with `(NULL, 0, &n)`. String lengths count the final NUL.
//! The library never returns memory the caller frees with `free()`.
//!
//! **Errors.** Misuse and bad input return a non-zero [`status::cfx_status`];
//! the readable message is read on the same thread, before the next cfx call,
//! with `cfx_last_error_length()` and `cfx_last_error_message()`. Solver
//! outcomes (infeasible, time limit, …) are never statuses: they are values in
//! the result handle. Status numbers never change; new ones are appended.
//!
//! **Thread safety** (write it in each function's doc comment, it becomes the
//! header comment): immutable handles may be used from many threads at once;
//! builders and workspaces must not be used concurrently; any handle may be
//! freed from any thread, exactly once.
//!
//! **Results as JSON.** Every result handle gets `cfx_<noun>_to_json(result,
//! buf, cap, out_len)` built with [`export::result_json`], so an audit log has
//! the same bytes whichever language wrote it.
//!
//! **C examples.** Add `examples/c/<name>.c` (include `common.h` for
//! `CHECK(...)` and `GET_STRING(...)`), its exact expected stdout in
//! `examples/c/<name>.expected`, and one `Program { name, args }` line in the
//! `PROGRAMS` table of `tests/c_abi.rs`. The test builds `libcfx.so` with the
//! `testing` feature into `target/ffi-testing/` (its own target directory, so
//! the outer `target/release/libcfx.so` keeps its default features), compiles
//! each program with `-std=c99 -Wall -Wextra -Werror -pedantic -DCFX_TESTING`,
//! runs it and compares stdout, then runs it under
//! `valgrind --leak-check=full --error-exitcode=1`.
//!
//! **Header.** After changing any `extern "C"` signature or its doc comment,
//! run `make header` and commit `include/cfx.h`; `tests/header.rs` fails on
//! drift and compiles the header alone as C99 and C++. The boundary check is
//! `tests/ffi_wrapped.rs`. Bump [`version::ABI_VERSION`] (and the
//! `CFX_ABI_VERSION` define in `cbindgen.toml`) on any breaking change.
#![allow(non_camel_case_types)]
#![allow(clippy::missing_safety_doc)]
// The conventions above are for contributors and name the private helpers of
// `handle`; they resolve with `cargo doc --document-private-items`.
#![allow(rustdoc::private_intra_doc_links)]

#[macro_use]
pub mod boundary;
pub mod advice;
pub mod coherent;
pub mod config;
pub mod copa;
pub mod data;
pub mod error;
pub mod export;
pub mod handle;
pub mod model;
pub mod notice;
pub mod onnx;
pub mod plausibility;
pub mod pmml;
pub mod portfolio;
pub mod revalidate;
pub mod robust;
pub mod schema;
pub mod schema_builder;
pub mod scorecard;
pub mod sequential;
pub mod status;
#[cfg(feature = "testing")]
pub mod testing;
pub mod trees;
pub mod version;
pub mod waiting_advice;

pub use status::{FfiError, FfiResult, cfx_status};
