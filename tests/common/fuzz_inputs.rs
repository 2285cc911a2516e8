//! The committed fuzz inputs and the declared fuzz targets, for the tests
//! that replay them (`fuzz_corpus.rs`) and mutate them (`fuzz_bounded.rs`):
//! a test binary includes it with `#[path = "common/fuzz_inputs.rs"] mod
//! fuzz_inputs;`.
#![allow(dead_code)]

use std::path::{Path, PathBuf};

/// The files committed for `target` under `fuzz/<kind>/<target>` (`kind`:
/// `seeds` or `regressions`), sorted by path; none when the folder is absent.
pub fn input_paths(kind: &str, target: &str) -> Vec<PathBuf> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("fuzz")
        .join(kind)
        .join(target);
    let Ok(entries) = std::fs::read_dir(&dir) else {
        return Vec::new();
    };
    let mut files: Vec<PathBuf> = entries
        .map(|e| e.expect("a readable directory entry").path())
        .filter(|p| p.is_file())
        .collect();
    files.sort();
    files
}

/// The contents of [`input_paths`], in its order.
pub fn inputs(kind: &str, target: &str) -> Vec<Vec<u8>> {
    input_paths(kind, target)
        .iter()
        .map(|p| std::fs::read(p).expect("a readable fuzz input"))
        .collect()
}

/// The libFuzzer targets that `fuzz/Cargo.toml` declares (its `[[bin]]`
/// names), sorted.
pub fn declared_targets() -> Vec<String> {
    let manifest =
        std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("fuzz/Cargo.toml"))
            .unwrap();
    let mut declared: Vec<String> = manifest
        .lines()
        .filter_map(|l| l.strip_prefix("name = \""))
        .filter_map(|l| l.strip_suffix('"'))
        .filter(|n| *n != "cfx-fuzz")
        .map(str::to_string)
        .collect();
    declared.sort();
    declared
}
