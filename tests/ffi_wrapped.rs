//! Every exported function of the C ABI runs behind the panic boundary: this
//! test reads `src/ffi/**/*.rs` and fails when an `extern "C" fn` body is not
//! exactly one `ffi_boundary! { ... }`, or when it lacks `#[unsafe(no_mangle)]`
//! (without which cbindgen and the linker would not see it).

use std::path::{Path, PathBuf};

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for e in std::fs::read_dir(dir).unwrap() {
        let p = e.unwrap().path();
        if p.is_dir() {
            rust_files(&p, out);
        } else if p.extension().is_some_and(|x| x == "rs") {
            out.push(p);
        }
    }
}

/// Index just past the brace that closes the one opening at `open`, skipping
/// string literals, char literals and comments.
fn matching_brace(s: &[u8], open: usize) -> Option<usize> {
    let mut depth = 0usize;
    let mut i = open;
    while i < s.len() {
        match s[i] {
            b'/' if s.get(i + 1) == Some(&b'/') => {
                while i < s.len() && s[i] != b'\n' {
                    i += 1;
                }
            }
            b'"' => {
                i += 1;
                while i < s.len() && s[i] != b'"' {
                    if s[i] == b'\\' {
                        i += 1;
                    }
                    i += 1;
                }
            }
            b'\'' if s.get(i + 2) == Some(&b'\'') => i += 2,
            b'{' => depth += 1,
            b'}' => {
                depth -= 1;
                if depth == 0 {
                    return Some(i + 1);
                }
            }
            _ => {}
        }
        i += 1;
    }
    None
}

/// The names of exported functions in `src` that break the rule.
fn unwrapped(src: &str) -> (usize, Vec<String>) {
    let b = src.as_bytes();
    let mut bad = Vec::new();
    let mut count = 0;
    let mut from = 0;
    while let Some(k) = src[from..].find("extern \"C\" fn ") {
        let at = from + k;
        from = at + 1;
        let line_start = src[..at].rfind('\n').map_or(0, |i| i + 1);
        if src[line_start..at].trim_start().starts_with("//") {
            continue; // documentation, not code
        }
        count += 1;
        let name: String = src[at + 14..]
            .chars()
            .take_while(|c| c.is_alphanumeric() || *c == '_')
            .collect();
        // the attribute must be on one of the lines just before
        let before = &src[..at];
        let line_start = before.rfind('\n').unwrap_or(0);
        let attrs = &before[before[..line_start].rfind("\n\n").unwrap_or(0)..line_start];
        if !attrs.contains("#[unsafe(no_mangle)]") {
            bad.push(format!("{name}: missing #[unsafe(no_mangle)]"));
        }
        let Some(open) = src[at..].find('{').map(|o| at + o) else {
            bad.push(format!("{name}: no body"));
            continue;
        };
        let Some(close) = matching_brace(b, open) else {
            bad.push(format!("{name}: unbalanced body"));
            continue;
        };
        let body = src[open + 1..close - 1].trim();
        let ok = body.starts_with("ffi_boundary!") && body[13..].trim_start().starts_with('{') && {
            let m_open = open + 1 + src[open + 1..].find("ffi_boundary!").unwrap() + 13;
            let m_open = m_open + src[m_open..].find('{').unwrap();
            matching_brace(b, m_open)
                .is_some_and(|m_close| src[m_close..close - 1].trim().is_empty())
        };
        if !ok {
            bad.push(format!(
                "{name}: body is not exactly `ffi_boundary! {{ ... }}`"
            ));
        }
    }
    (count, bad)
}

#[test]
fn every_exported_function_is_behind_the_panic_boundary() {
    let mut files = Vec::new();
    rust_files(
        &Path::new(env!("CARGO_MANIFEST_DIR")).join("src/ffi"),
        &mut files,
    );
    let mut total = 0;
    let mut bad = Vec::new();
    for f in &files {
        let (n, b) = unwrapped(&std::fs::read_to_string(f).unwrap());
        total += n;
        bad.extend(b.into_iter().map(|m| format!("{}: {m}", f.display())));
    }
    assert!(
        bad.is_empty(),
        "unwrapped exported functions:\n{}",
        bad.join("\n")
    );
    assert!(
        total >= 50,
        "only {total} exported functions found: is the scan broken?"
    );
}

#[test]
fn the_checker_catches_unwrapped_functions() {
    let good = "/// doc\n#[unsafe(no_mangle)]\npub extern \"C\" fn cfx_a(x: u32) -> u32 {\n    ffi_boundary! { let s = \"}{\"; x }\n}\n";
    assert_eq!(unwrapped(good), (1, vec![]));
    let doc = "//! write `pub unsafe extern \"C\" fn cfx_x()`\n";
    assert_eq!(unwrapped(doc), (0, vec![]));
    let naked = "#[unsafe(no_mangle)]\npub extern \"C\" fn cfx_b() -> u32 {\n    7\n}\n";
    assert_eq!(unwrapped(naked).1.len(), 1);
    let trailing = "#[unsafe(no_mangle)]\npub extern \"C\" fn cfx_c() -> u32 {\n    ffi_boundary! { 1 };\n    risky()\n}\n";
    assert_eq!(unwrapped(trailing).1.len(), 1);
    let no_attr = "pub extern \"C\" fn cfx_d() {\n    ffi_boundary! { () }\n}\n";
    assert_eq!(unwrapped(no_attr).1.len(), 1);
}
