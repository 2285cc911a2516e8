//! Helpers shared by the integration tests.
#![allow(dead_code)]

use std::path::PathBuf;

/// Path of a dataset in the shared folder, or `None` (with a notice) when the
/// folder is absent outside CI. Under CI (`CI` set) a missing file fails the test.
pub fn shared(file: &str) -> Option<PathBuf> {
    let p = cfx::data::shared_data_dir().join(file);
    if p.exists() {
        return Some(p);
    }
    if std::env::var_os("CI").is_some() {
        panic!("{} is missing under CI", p.display());
    }
    eprintln!(
        "notice: {} not found; skipping (set CFX_SHARED_DATA)",
        p.display()
    );
    None
}
