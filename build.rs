//! Gives the C library its versioned soname, `libcfx.so.<ABI>`, where ABI is
//! `ABI_VERSION` of `src/ffi/version.rs` (the one place it is written; it is
//! bumped on every breaking change of the C ABI). Programs linked with `-lcfx`
//! then record `libcfx.so.<ABI>` and refuse a later, incompatible library
//! instead of crashing in it; `make install` installs the file under that name
//! with the `libcfx.so` link for the linker.
//!
//! Cargo writes the library as `libcfx.so` only, so the script also puts the
//! link `libcfx.so.<ABI>` → `libcfx.so` beside it in the output folder:
//! programs built against `target/<profile>/libcfx.so` (the C examples, the
//! Java and R shims) then find the soname they record there.

use std::path::{Path, PathBuf};

fn abi_version() -> u32 {
    let source = std::fs::read_to_string("src/ffi/version.rs").expect("src/ffi/version.rs");
    source
        .lines()
        .find_map(|l| l.trim().strip_prefix("pub const ABI_VERSION: u32 = "))
        .and_then(|rest| rest.trim_end_matches(';').trim().parse().ok())
        .expect("src/ffi/version.rs declares `pub const ABI_VERSION: u32 = <n>;`")
}

/// `<target dir>/<profile>` (or `<target dir>/<triple>/<profile>`): OUT_DIR is
/// `<that>/build/cfx-<hash>/out`.
fn output_dir() -> Option<PathBuf> {
    let out = PathBuf::from(std::env::var_os("OUT_DIR")?);
    out.ancestors().nth(3).map(Path::to_path_buf)
}

fn main() {
    println!("cargo:rerun-if-changed=src/ffi/version.rs");
    println!("cargo:rerun-if-changed=build.rs");
    let os = std::env::var("CARGO_CFG_TARGET_OS").unwrap_or_default();
    if os != "linux" {
        return;
    }
    let soname = format!("libcfx.so.{}", abi_version());
    println!("cargo:rustc-cdylib-link-arg=-Wl,-soname,{soname}");
    if let Some(dir) = output_dir() {
        let link = dir.join(&soname);
        if std::fs::symlink_metadata(&link).is_err() {
            if let Err(e) = std::os::unix::fs::symlink("libcfx.so", &link) {
                println!(
                    "cargo:warning=could not link {} -> libcfx.so: {e}",
                    link.display()
                );
            }
        }
    }
}
