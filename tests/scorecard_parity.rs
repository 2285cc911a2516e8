//! cfx's scorecard score equals optbinning's own `Scorecard.score` on every row.
//!
//! * HELOC: the shared table `../shared/data/heloc_scorecard_table.csv`
//!   against `target/peers/heloc_scorecard_scores.csv` (`row,score`), written
//!   by `benches/peers/scorecard_optbinning.py`.
//! * German credit: the bundled `examples/data/german_scorecard_table.csv`
//!   against `tests/reference/german_scorecard_scores.csv`, both written by the
//!   same peer script (optbinning 1.0.0).
//!
//! Under CI (`CI=true`) a missing file fails the test; elsewhere the test is
//! skipped with a note.

use cfx::data;
use cfx::model::scorecard::import::{ImportOptions, from_optbinning_path};
use std::path::{Path, PathBuf};

mod common;

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// True when every file is present; panics under CI when one is not.
fn present(files: &[&Path]) -> bool {
    let missing: Vec<String> = files
        .iter()
        .filter(|p| !p.exists())
        .map(|p| p.display().to_string())
        .collect();
    if missing.is_empty() {
        return true;
    }
    if common::in_ci() {
        panic!("scorecard parity: missing {}", missing.join(", "));
    }
    eprintln!(
        "note: scorecard parity skipped, missing {} (run benches/peers/scorecard_optbinning.py)",
        missing.join(", ")
    );
    false
}

/// `row,score` lines of a peer export.
fn peer_scores(path: &Path) -> Vec<(usize, f64)> {
    let text = std::fs::read_to_string(path).unwrap();
    let mut lines = text.lines();
    assert_eq!(
        lines.next().map(str::trim),
        Some("row,score"),
        "{}",
        path.display()
    );
    lines
        .filter(|l| !l.trim().is_empty())
        .map(|l| {
            let (r, s) = l.split_once(',').expect("row,score");
            (r.trim().parse().unwrap(), s.trim().parse().unwrap())
        })
        .collect()
}

fn check(d: &data::Dataset, table: &Path, scores: &Path) {
    let options = ImportOptions {
        cutoff: 0.0,
        scaling: None,
        refuse_unlisted_levels: false,
        favourable: Default::default(),
        unused_features: Vec::new(),
    };
    let sc = from_optbinning_path(&d.schema, table, &options)
        .unwrap()
        .scorecard;
    let peer = peer_scores(scores);
    assert_eq!(peer.len(), d.rows.len(), "one score per data row");
    let mut worst = 0.0f64;
    for (k, &(row, score)) in peer.iter().enumerate() {
        assert_eq!(row, k, "rows in order");
        let ours = sc.score_raw(&d.schema, &d.rows[row]).unwrap();
        let diff = (ours - score).abs();
        worst = worst.max(diff);
        assert!(diff <= 1e-9, "row {row}: cfx {ours} vs optbinning {score}");
    }
    eprintln!(
        "scorecard parity: {} rows equal to 1e-9 (worst difference {worst:e})",
        peer.len()
    );
}

#[test]
fn heloc_scores_equal_optbinning_on_every_row() {
    let dir = data::shared_data_dir();
    let (csv, table) = (dir.join("heloc.csv"), dir.join("heloc_scorecard_table.csv"));
    let scores = root().join("target/peers/heloc_scorecard_scores.csv");
    if !present(&[&csv, &table, &scores]) {
        return;
    }
    let d = data::heloc(&csv).unwrap();
    check(&d, &table, &scores);
}

#[test]
fn german_scores_equal_optbinning_on_every_row() {
    let table = root().join("examples/data/german_scorecard_table.csv");
    let scores = root().join("tests/reference/german_scorecard_scores.csv");
    if !present(&[&table, &scores]) {
        return;
    }
    let d = data::german_credit(&data::bundled_german_path()).unwrap();
    check(&d, &table, &scores);
}

/// The bundled German scorecard as `data::german_scorecard` loads it, with the
/// cutoff and scaling `examples/data/german_scorecard.md` documents (written
/// by the peer script from optbinning's own `predict_proba`): 20 points double
/// the odds, odds 50 : 1 at 600 points, cutoff at probability 0.5; at that
/// cutoff 58 of the 300 held-out applicants are declined and the held-out
/// accuracy is 227/300.
#[test]
fn the_bundled_german_scorecard_has_its_documented_cutoff_and_scaling() {
    let d = data::german_credit(&data::bundled_german_path()).unwrap();
    let path = data::bundled_german_scorecard().unwrap();
    assert_eq!(path.file_name().unwrap(), "german_scorecard_table.csv");
    let card = data::german_scorecard(&d.schema, &path).unwrap().scorecard;
    let s = card.scaling.unwrap();
    assert!((s.factor - 28.85390081777927).abs() < 1e-12, "{}", s.factor);
    assert!((s.offset - 487.1228762045055).abs() < 1e-11, "{}", s.offset);
    assert!((card.cutoff - 487.1228762045055).abs() < 1e-11);
    let (_, test) = d.holdout_split();
    use cfx::model::Model;
    let x = test.encoded();
    let declined = x.iter().filter(|r| !card.accepts(r)).count();
    assert_eq!(declined, 58);
    let correct = x
        .iter()
        .zip(&test.labels)
        .filter(|(r, y)| card.accepts(r) == (**y == 1.0))
        .count();
    assert_eq!(correct, 227);
}
