//! The crate's layering (issue #26), enforced: each top-level module of `src`
//! may refer (`crate::<module>`) only to modules of a lower layer, so that the
//! methods stand side by side and the numerical core knows nothing above it.
//!
//! | layer | modules | may use |
//! |---|---|---|
//! | 0 core | `error`, `json`, `schema`, `nn`, `model`, `workers`, `output` | each other |
//! | 1 shared | `data`, `noise`, `plausibility` | layers 0–1 (`data` not `model`) |
//! | 2 methods | `coherent`, `robust`, `plan`, `sequential` | layers 0–1, never another method |
//! | 3 above the methods | `advice`, `revalidate`, `portfolio`, `notice` | layers 0–3 |
//! | 4 C ABI | `ffi` | everything |
//!
//! The executables of `src/bin` (the `cfx` command line) are crates of their
//! own above all of these, using the library's public API like the examples.
//!
//! The scan reads the source text: comments (doc links may point anywhere) and
//! test-only code (`tests.rs`, `*_tests.rs`, `#[cfg(test)]` items) are skipped,
//! except that a method's tests must not use another method either. The only
//! upward references allowed are the listed re-exports that keep old public
//! paths working after a move.

use std::collections::BTreeSet;
use std::fs;
use std::path::{Path, PathBuf};

/// Each top-level module with its layer.
const LAYERS: &[(&str, u8)] = &[
    ("error", 0),
    ("json", 0),
    ("schema", 0),
    ("nn", 0),
    ("model", 0),
    ("workers", 0),
    ("output", 0),
    ("data", 1),
    ("noise", 1),
    ("plausibility", 1),
    ("coherent", 2),
    ("robust", 2),
    ("plan", 2),
    ("sequential", 2),
    ("advice", 3),
    ("revalidate", 3),
    ("portfolio", 3),
    ("notice", 3),
    ("ffi", 4),
];

const METHODS: u8 = 2;

/// Re-exports of moved items at their old paths (file, exact line): path
/// aliases for existing code, not dependencies of the module's own code.
const OLD_PATHS: &[(&str, &str)] = &[
    ("src/coherent/mod.rs", "pub use crate::portfolio;"),
    (
        "src/coherent/mod.rs",
        "pub use crate::portfolio::summary as portfolio_summary;",
    ),
    (
        "src/data/mod.rs",
        "pub use crate::model::scorecard::{german_scorecard, german_scorecard_options};",
    ),
];

fn layer(module: &str) -> Option<u8> {
    LAYERS.iter().find(|(m, _)| *m == module).map(|&(_, l)| l)
}

/// May code of `from` refer to `to`?
fn allowed(from: &str, to: &str) -> bool {
    let (Some(a), Some(b)) = (layer(from), layer(to)) else {
        return false;
    };
    if from == to {
        return true;
    }
    if from == "data" && to == "model" {
        return false;
    }
    b < a || (a == b && a != METHODS)
}

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            rust_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

fn is_test_file(path: &Path) -> bool {
    let name = path.file_name().unwrap().to_str().unwrap();
    name == "tests.rs" || name.ends_with("_tests.rs")
}

/// The lines of `text` with their test flag: true inside a `#[cfg(test)]`
/// item (the attribute's next line, and up to the closing brace at the same
/// indentation when that line opens a block).
fn lines_with_test_flag(text: &str) -> Vec<(&str, bool)> {
    let lines: Vec<&str> = text.lines().collect();
    let mut out = Vec::with_capacity(lines.len());
    let mut i = 0;
    while i < lines.len() {
        let line = lines[i];
        if line.trim() == "#[cfg(test)]" {
            let indent = &line[..line.len() - line.trim_start().len()];
            out.push((line, true));
            i += 1;
            if i < lines.len() {
                let item = lines[i];
                out.push((item, true));
                i += 1;
                if item.trim_end().ends_with('{') {
                    let close = format!("{indent}}}");
                    while i < lines.len() {
                        out.push((lines[i], true));
                        i += 1;
                        if lines[i - 1].trim_end() == close {
                            break;
                        }
                    }
                }
            }
            continue;
        }
        out.push((line, false));
        i += 1;
    }
    out
}

/// The top-level modules a line of code names through `crate::`.
fn referenced(line: &str) -> Vec<String> {
    let mut found = Vec::new();
    let mut rest = line;
    while let Some(at) = rest.find("crate::") {
        let before = &rest[..at];
        rest = &rest[at + "crate::".len()..];
        // `$crate::` in macros and `cfx_crate::`-like names are not ours.
        if before.ends_with('$') || before.ends_with(|c: char| c.is_alphanumeric() || c == '_') {
            continue;
        }
        if let Some(group) = rest.strip_prefix('{') {
            let end = group.find('}').unwrap_or(group.len());
            for item in group[..end].split(',') {
                let name: String = item
                    .trim()
                    .chars()
                    .take_while(|c| c.is_alphanumeric() || *c == '_')
                    .collect();
                if !name.is_empty() {
                    found.push(name);
                }
            }
        } else {
            let name: String = rest
                .chars()
                .take_while(|c| c.is_alphanumeric() || *c == '_')
                .collect();
            found.push(name);
        }
    }
    found
}

/// Every reference that breaks the layering, as `file:line: from -> to`.
fn violations(root: &Path) -> Vec<String> {
    let src = root.join("src");
    let mut files = Vec::new();
    rust_files(&src, &mut files);
    // `src/bin` holds executables (the `cfx` command line): crates of their
    // own that reach the library through its public API (`cfx::…`), as the
    // examples do, never through `crate::`.
    files.retain(|f| !f.starts_with(src.join("bin")));
    files.sort();
    let mut bad = Vec::new();
    for file in files {
        let rel = file
            .strip_prefix(root)
            .unwrap()
            .to_str()
            .unwrap()
            .to_string();
        let inside = file.strip_prefix(&src).unwrap();
        let first = inside
            .components()
            .next()
            .unwrap()
            .as_os_str()
            .to_str()
            .unwrap();
        let from = first.trim_end_matches(".rs");
        if from == "lib" {
            continue;
        }
        if layer(from).is_none() {
            bad.push(format!(
                "{rel}: module `{from}` has no layer in tests/layering.rs"
            ));
            continue;
        }
        let text = fs::read_to_string(&file).unwrap();
        let whole_file_test = is_test_file(&file);
        for (n, (line, in_test)) in lines_with_test_flag(&text).into_iter().enumerate() {
            let code = line.trim_start();
            if code.starts_with("//") {
                continue;
            }
            let test = whole_file_test || in_test;
            if OLD_PATHS
                .iter()
                .any(|&(f, l)| f == rel && l == code.trim_end())
            {
                continue;
            }
            for to in referenced(code) {
                if matches!(to.as_str(), "Error" | "Result") {
                    continue; // the crate root's re-exports of `error`
                }
                let method_to_method =
                    layer(from) == Some(METHODS) && layer(&to) == Some(METHODS) && from != to;
                if (!test && !allowed(from, &to)) || method_to_method {
                    bad.push(format!("{rel}:{}: {from} -> {to}", n + 1));
                }
            }
        }
    }
    bad
}

#[test]
fn modules_refer_only_to_lower_layers() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let bad = violations(root);
    assert!(
        bad.is_empty(),
        "layering broken (see tests/layering.rs):\n{}",
        bad.join("\n")
    );
}

#[test]
fn every_top_level_module_has_a_layer() {
    let lib = fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("src/lib.rs")).unwrap();
    let declared: BTreeSet<&str> = lib
        .lines()
        .filter_map(|l| l.trim().strip_prefix("pub mod "))
        // `pub mod x;` is a module of the crate; `pub mod guide { … }` is the
        // doctest-only module that compiles the guide's snippets
        .filter_map(|m| m.strip_suffix(';'))
        .collect();
    let listed: BTreeSet<&str> = LAYERS.iter().map(|&(m, _)| m).collect();
    assert_eq!(declared, listed);
}

/// The scan itself catches what it is meant to catch.
#[test]
fn the_scan_sees_imports_groups_and_test_code() {
    assert_eq!(referenced("use crate::robust::NoiseModel;"), ["robust"]);
    assert_eq!(
        referenced("use crate::{coherent::explain, schema::Schema};"),
        ["coherent", "schema"]
    );
    assert_eq!(
        referenced("let g = crate::robust::normal_cdf(x) + crate::model::logit(t);"),
        ["robust", "model"]
    );
    assert!(referenced("$crate::x").is_empty());
    assert!(!allowed("coherent", "robust"));
    assert!(!allowed("data", "model"));
    assert!(!allowed("model", "coherent"));
    assert!(!allowed("coherent", "portfolio"));
    assert!(allowed("portfolio", "coherent"));
    assert!(allowed("coherent", "noise"));
    assert!(allowed("robust", "noise"));
    assert!(allowed("ffi", "coherent"));
    let text = "fn a() {}\n#[cfg(test)]\nmod tests {\n    use crate::robust::x;\n}\nfn b() {}\n";
    let flags: Vec<bool> = lines_with_test_flag(text).iter().map(|&(_, t)| t).collect();
    assert_eq!(flags, [false, true, true, true, true, false]);
}
