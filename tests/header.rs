//! The committed header `include/cfx.h`: it is what the pinned cbindgen
//! generates now, its version macros match `Cargo.toml` and the library, and
//! it compiles alone as C99 (`-Wall -Wextra -Werror -pedantic`) and as C++.

use std::path::{Path, PathBuf};
use std::process::Command;

const CBINDGEN_VERSION: &str = "0.29.4";

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

mod common;
use common::in_ci;

/// The pinned cbindgen, or `None` (with a notice) when it is absent outside CI.
fn cbindgen() -> Option<PathBuf> {
    let mut candidates = vec![PathBuf::from("cbindgen")];
    if let Some(home) = std::env::var_os("HOME") {
        candidates.insert(0, Path::new(&home).join(".cargo/bin/cbindgen"));
    }
    for c in candidates {
        if let Ok(out) = Command::new(&c).arg("--version").output() {
            let v = String::from_utf8_lossy(&out.stdout);
            if v.contains(CBINDGEN_VERSION) {
                return Some(c);
            }
            eprintln!(
                "{} is version {}, not the pinned {CBINDGEN_VERSION}",
                c.display(),
                v.trim()
            );
        }
    }
    assert!(
        !in_ci(),
        "cbindgen {CBINDGEN_VERSION} is required under CI (make deps-cbindgen)"
    );
    eprintln!("NOTICE: cbindgen {CBINDGEN_VERSION} not installed; header drift check skipped");
    None
}

#[test]
fn committed_header_is_what_cbindgen_generates() {
    let Some(cb) = cbindgen() else { return };
    let dir = std::env::temp_dir().join(format!("cfx-header-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let fresh = dir.join("cfx.h");
    let out = Command::new(cb)
        .current_dir(root())
        .args([
            "--config",
            "cbindgen.toml",
            "--crate",
            "cfx",
            "--quiet",
            "--output",
        ])
        .arg(&fresh)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "cbindgen failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let fresh = std::fs::read_to_string(&fresh).unwrap();
    let committed = std::fs::read_to_string(root().join("include/cfx.h")).unwrap();
    let _ = std::fs::remove_dir_all(&dir);
    if fresh != committed {
        let line = fresh
            .lines()
            .zip(committed.lines())
            .position(|(a, b)| a != b)
            .unwrap_or_else(|| fresh.lines().count().min(committed.lines().count()));
        panic!(
            "include/cfx.h is stale (first difference at line {}); regenerate it with \
             `make header` (cbindgen --config cbindgen.toml --crate cfx --output include/cfx.h)",
            line + 1
        );
    }
}

fn cargo_version() -> String {
    let toml = std::fs::read_to_string(root().join("Cargo.toml")).unwrap();
    let line = toml
        .lines()
        .find(|l| l.trim_start().starts_with("version") && l.contains('"'))
        .expect("Cargo.toml has a version line");
    line.split('"').nth(1).unwrap().to_string()
}

fn define(header: &str, name: &str) -> String {
    let key = format!("#define {name} ");
    header
        .lines()
        .find_map(|l| l.strip_prefix(&key))
        .unwrap_or_else(|| panic!("{name} is not defined in include/cfx.h"))
        .trim()
        .to_string()
}

#[test]
fn version_macros_and_functions_match_cargo_toml() {
    let v = cargo_version();
    assert_eq!(v, env!("CARGO_PKG_VERSION"));
    let parts: Vec<u32> = v
        .split(['.', '-', '+'])
        .take(3)
        .map(|p| p.parse().unwrap())
        .collect();
    let header = std::fs::read_to_string(root().join("include/cfx.h")).unwrap();
    assert_eq!(define(&header, "CFX_VERSION_MAJOR"), parts[0].to_string());
    assert_eq!(define(&header, "CFX_VERSION_MINOR"), parts[1].to_string());
    assert_eq!(define(&header, "CFX_VERSION_PATCH"), parts[2].to_string());
    assert_eq!(define(&header, "CFX_VERSION_STRING"), format!("\"{v}\""));
    assert_eq!(
        define(&header, "CFX_ABI_VERSION"),
        cfx::ffi::version::ABI_VERSION.to_string()
    );
    use cfx::ffi::version::*;
    assert_eq!(
        [
            cfx_version_major(),
            cfx_version_minor(),
            cfx_version_patch()
        ],
        [parts[0], parts[1], parts[2]]
    );
    assert_eq!(cfx_abi_version(), ABI_VERSION);
    let s = unsafe { std::ffi::CStr::from_ptr(cfx_version_string()) };
    assert_eq!(s.to_str().unwrap(), v);
}

fn compile(compiler: &str, args: &[&str], source: &str, name: &str) {
    let dir = std::env::temp_dir().join(format!("cfx-hdr-{}-{name}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let src = dir.join("t.c");
    std::fs::write(&src, source).unwrap();
    let out = match Command::new(compiler)
        .args(args)
        .arg("-I")
        .arg(root().join("include"))
        .arg("-c")
        .arg(&src)
        .arg("-o")
        .arg(dir.join("t.o"))
        .output()
    {
        Ok(o) => o,
        Err(e) => {
            assert!(!in_ci(), "{compiler} is required under CI: {e}");
            eprintln!("NOTICE: {compiler} not available ({e}); {name} skipped");
            return;
        }
    };
    let _ = std::fs::remove_dir_all(&dir);
    assert!(
        out.status.success(),
        "{name}: include/cfx.h does not compile with {compiler} {args:?}:\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

/// The translation unit: the header twice (include guard), plus compile-time
/// checks of the derived version macro and the status numbers.
fn unit() -> String {
    let v: Vec<u32> = cargo_version()
        .split(['.', '-', '+'])
        .take(3)
        .map(|p| p.parse().unwrap())
        .collect();
    format!(
        "#include \"cfx.h\"\n#include \"cfx.h\"\n\
         #if CFX_VERSION_NUMBER != {}\n#error CFX_VERSION_NUMBER\n#endif\n\
         typedef char status_is_4_bytes[sizeof(cfx_status) == 4 ? 1 : -1];\n\
         typedef char panic_is_99[CFX_STATUS_PANIC == 99 ? 1 : -1];\n\
         int cfx_header_probe(void);\n\
         int cfx_header_probe(void) {{ status_is_4_bytes a; panic_is_99 b; (void)a; (void)b; return CFX_STATUS_CANCELLED; }}\n",
        v[0] * 10000 + v[1] * 100 + v[2]
    )
}

#[test]
fn header_compiles_alone_as_c99() {
    let flags = ["-std=c99", "-Wall", "-Wextra", "-Werror", "-pedantic"];
    compile("cc", &flags, &unit(), "c99");
    let mut testing = flags.to_vec();
    testing.push("-DCFX_TESTING");
    compile("cc", &testing, &unit(), "c99-testing");
}

#[test]
fn header_compiles_alone_as_cpp() {
    compile(
        "c++",
        &[
            "-x",
            "c++",
            "-std=c++11",
            "-Wall",
            "-Wextra",
            "-Werror",
            "-pedantic",
        ],
        &unit(),
        "c++11",
    );
}
