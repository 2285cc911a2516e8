//! Proof from C: every program in `examples/c/` is compiled with
//! `-std=c99 -Wall -Wextra -Werror -pedantic` against the shared library,
//! run, and its standard output compared with `examples/c/<name>.expected`;
//! then run again under valgrind (`--leak-check=full --error-exitcode=1`).
//!
//! The library is built by this test with the `testing` feature (so
//! `cfx_testing_panic` exists and the bad-input program proves a panic
//! becomes `CFX_STATUS_PANIC`) into its own target directory,
//! `target/ffi-testing`: a nested `cargo build` in the outer target directory
//! would change the features of the outer `libcfx.so` and rebuild it on every
//! switch. The first run compiles the dependencies once; later runs only
//! rebuild cfx when its sources change.
//!
//! To add a program: write `examples/c/<name>.c` (it may include `common.h`
//! for `CHECK`/`GET_STRING`), record its output in `examples/c/<name>.expected`,
//! and add one line to `PROGRAMS` below.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;

struct Program {
    name: &'static str,
    args: &'static [&'static str],
}

const TOY: [&str; 2] = [
    "examples/c/data/applicant_schema.json",
    "examples/c/data/applicant_model.json",
];

/// The C programs and their arguments (paths relative to the crate root).
const PROGRAMS: &[Program] = &[
    Program {
        name: "predict",
        args: &TOY,
    },
    Program {
        name: "german",
        args: &[],
    },
    Program {
        name: "bad_input",
        args: &TOY,
    },
    Program {
        name: "threads",
        args: &TOY,
    },
    Program {
        name: "coherent",
        args: &TOY,
    },
    Program {
        name: "robust_advice",
        args: &[],
    },
    Program {
        name: "coherent_batch",
        args: &TOY,
    },
    Program {
        name: "robust",
        args: &TOY,
    },
    Program {
        name: "sequential",
        args: &[],
    },
    Program {
        name: "copa",
        args: &[],
    },
    Program {
        name: "shared_handles",
        args: &[],
    },
    Program {
        name: "portfolio",
        args: &[],
    },
    Program {
        name: "scorecard",
        args: &["examples/data/german_scorecard_table.csv"],
    },
    Program {
        name: "absurd_sizes",
        args: &TOY,
    },
    Program {
        name: "thread_teardown",
        args: &TOY,
    },
    Program {
        name: "revalidate",
        args: &[],
    },
];

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

mod common;
use common::in_ci;

/// Builds `libcfx.so` with the `testing` feature once per test run and
/// compiles every program; returns the directory of the executables.
fn built() -> &'static PathBuf {
    static BUILT: OnceLock<PathBuf> = OnceLock::new();
    BUILT.get_or_init(|| {
        let target = root().join("target/ffi-testing");
        seed_from_release(&target);
        let cargo = option_env!("CARGO").unwrap_or("cargo");
        let st = Command::new(cargo)
            .current_dir(root())
            .args(["build", "--release", "--lib", "--features", "testing"])
            .arg("--target-dir")
            .arg(&target)
            .status()
            .expect("cargo runs");
        assert!(
            st.success(),
            "building libcfx.so with --features testing failed"
        );
        let lib = target.join("release");
        assert!(lib.join("libcfx.so").exists());
        let bin = target.join("c");
        std::fs::create_dir_all(&bin).unwrap();
        for p in PROGRAMS {
            let out = Command::new("cc")
                .current_dir(root())
                .args([
                    "-std=c99",
                    "-Wall",
                    "-Wextra",
                    "-Werror",
                    "-pedantic",
                    "-pthread",
                ])
                .args(["-DCFX_TESTING", "-Iinclude", "-Iexamples/c"])
                .arg(format!("examples/c/{}.c", p.name))
                .arg("-L")
                .arg(&lib)
                .args(["-lcfx", "-lm"])
                .arg(format!("-Wl,--disable-new-dtags,-rpath,{}", lib.display()))
                .arg("-o")
                .arg(bin.join(p.name))
                .output()
                .expect("cc runs");
            assert!(
                out.status.success(),
                "examples/c/{}.c does not compile:\n{}",
                p.name,
                String::from_utf8_lossy(&out.stderr)
            );
        }
        bin
    })
}

/// A first run would compile every dependency (HiGHS from C++ sources) a
/// second time. When `target/release` is built and `target/ffi-testing` is
/// not, hard-link the release build products over: cargo's fingerprints then
/// find every dependency fresh and only cfx itself is compiled with `testing`
/// (its outputs carry another hash, so no linked file is written to). Links,
/// not copies: a copy doubled the 2 GB of `target/release` and filled the disk
/// of a CI machine.
fn seed_from_release(target: &Path) {
    let release = root().join("target/release");
    let dest = target.join("release");
    if dest.exists() || !release.join(".fingerprint").exists() {
        return;
    }
    std::fs::create_dir_all(&dest).unwrap();
    let st = Command::new("cp")
        .arg("-al")
        .args(["build", "deps", ".fingerprint"].map(|d| release.join(d)))
        .arg(&dest)
        .status();
    if !st.is_ok_and(|s| s.success()) {
        // not fatal: cargo then builds everything from scratch
        let _ = std::fs::remove_dir_all(&dest);
    }
}

fn expected(name: &str) -> String {
    std::fs::read_to_string(root().join(format!("examples/c/{name}.expected")))
        .unwrap_or_else(|e| panic!("examples/c/{name}.expected: {e}"))
}

fn run(p: &Program, wrapper: &[&str]) -> String {
    let exe = built().join(p.name);
    let mut cmd = match wrapper.split_first() {
        Some((w, rest)) => {
            let mut c = Command::new(w);
            c.args(rest).arg(&exe);
            c
        }
        None => Command::new(&exe),
    };
    // cargo test puts target/release/deps on LD_LIBRARY_PATH, which would win
    // over the rpath and load the library built without the testing feature.
    let out = cmd
        .current_dir(root())
        .env_remove("LD_LIBRARY_PATH")
        .args(p.args)
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout).to_string();
    assert!(
        out.status.success(),
        "{} {} failed ({}):\nstdout:\n{stdout}\nstderr:\n{}",
        wrapper.join(" "),
        p.name,
        out.status,
        String::from_utf8_lossy(&out.stderr)
    );
    stdout
}

#[test]
fn c_programs_print_what_is_expected() {
    for p in PROGRAMS {
        let got = run(p, &[]);
        assert_eq!(got, expected(p.name), "output of examples/c/{}.c", p.name);
    }
}

#[test]
fn c_programs_are_clean_under_valgrind() {
    if Command::new("valgrind").arg("--version").output().is_err() {
        assert!(!in_ci(), "valgrind is required under CI");
        eprintln!("NOTICE: valgrind not installed; the valgrind run of examples/c is skipped");
        return;
    }
    for p in PROGRAMS {
        let got = run(
            p,
            &[
                "valgrind",
                "--quiet",
                "--leak-check=full",
                "--errors-for-leak-kinds=definite,indirect,possible",
                "--error-exitcode=1",
            ],
        );
        assert_eq!(
            got,
            expected(p.name),
            "output of examples/c/{}.c under valgrind",
            p.name
        );
    }
}

/// The German program's numbers are the Rust core's numbers.
#[test]
fn german_program_matches_the_rust_core() {
    use cfx::model::{LinearModel, Model};
    let d = cfx::data::german_credit(&cfx::data::bundled_german_path()).unwrap();
    let (train, test) = d.holdout_split();
    let m = LinearModel::fit(&train.encoded(), &train.labels, Default::default()).unwrap();
    let x = test.encoded();
    let correct = x
        .iter()
        .zip(&test.labels)
        .filter(|(r, y)| (m.probability(r) > 0.5) == (**y == 1.0))
        .count();
    let line = format!(
        "hold-out accuracy {:.4}\n",
        correct as f64 / test.rows.len() as f64
    );
    assert!(
        expected("german").contains(&line),
        "examples/c/german.expected lacks `{}`",
        line.trim()
    );
}

/// The scorecard program's numbers are optbinning's: every `row i points p`
/// line and the declined applicant's points equal optbinning's own
/// `Scorecard.score` (`tests/reference/german_scorecard_scores.csv`, written by
/// `benches/peers/scorecard_optbinning.py`) to the 9 printed decimals, and the
/// count of declined held-out applicants is the one `german_scorecard.md`
/// reports from optbinning (58 of 300). The counterfactuals' optimality is the
/// MIP's, checked against brute force in the scorecard tests.
#[test]
fn scorecard_program_states_optbinnings_own_points() {
    let reference: Vec<f64> =
        std::fs::read_to_string(root().join("tests/reference/german_scorecard_scores.csv"))
            .unwrap()
            .lines()
            .skip(1)
            .enumerate()
            .map(|(i, l)| {
                let (row, score) = l.split_once(',').unwrap();
                assert_eq!(row.parse::<usize>().unwrap(), i);
                score.parse().unwrap()
            })
            .collect();
    assert_eq!(reference.len(), 1000);
    let out = expected("scorecard");
    let close = |got: &str, want: f64, what: &str| {
        let got: f64 = got.parse().unwrap();
        assert!(
            (got - want).abs() <= 5.1e-10,
            "{what}: {got} vs optbinning's {want}"
        );
    };
    let mut rows = 0;
    for line in out.lines() {
        let words: Vec<&str> = line.split_whitespace().collect();
        if let ["row", i, "points", p, _] = words[..] {
            close(p, reference[i.parse::<usize>().unwrap()], line);
            rows += 1;
        }
    }
    assert_eq!(rows, 5);
    assert!(out.contains("held-out: 58 of 300 declined\n"));
    let doc = std::fs::read_to_string(root().join("examples/data/german_scorecard.md")).unwrap();
    assert!(doc.contains("58 of\nthe 300 held-out applicants are declined"));
    // "applicant #k of the held-out part: p points": held-out k is data row
    // 10·(k div 3) + 7 + (k mod 3) (rows with i mod 10 ≥ 7).
    let line = out
        .lines()
        .find(|l| l.starts_with("applicant #"))
        .expect("a declined applicant");
    let k: usize = line["applicant #".len()..]
        .split(' ')
        .next()
        .unwrap()
        .parse()
        .unwrap();
    let p = line.split(": ").nth(1).unwrap().split(' ').next().unwrap();
    let data_row = |k: usize| 10 * (k / 3) + 7 + k % 3;
    close(p, reference[data_row(k)], line);
    assert!(reference[data_row(k)] < 487.1228762045055);
    assert!((0..k).all(|j| reference[data_row(j)] >= 487.1228762045055));
}
