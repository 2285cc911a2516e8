//! Fault injection on every file-writing entry point of the C ABI (issue 41),
//! the cases of `tests/faults/cases.rs`: an output that is an input (as
//! given, spelled with `./` or `..`, a symbolic or hard link) is refused with
//! the input's bytes unchanged; a full device, a folder that cannot exist and
//! a disk filling up partway fail cleanly with the target untouched; a
//! cancelled run and a process killed mid-run never leave a target that looks
//! finished. The oracle of every case is the file system itself: the inputs'
//! and the previous output's bytes read before and after, and the folder's
//! listing.
//!
//! The child cases run this test binary again (`child_process_entry`, ignored
//! unless `CFX_FAULTS_CHILD` is set), so a file size limit or a kill never
//! touches the test process.

#[path = "faults/cases.rs"]
mod cases;

use std::path::PathBuf;
use std::process::Command;

fn root(tag: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("cfx-faults-{tag}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

fn assert_all(outcomes: &[cases::Outcome]) {
    let failed: Vec<String> = outcomes
        .iter()
        .filter_map(|o| {
            o.result
                .as_ref()
                .err()
                .map(|e| format!("{}: {}: {e}", o.writer, o.case))
        })
        .collect();
    assert!(failed.is_empty(), "{}", failed.join("\n"));
    assert_eq!(outcomes.iter().map(|o| o.inputs_changed).sum::<usize>(), 0);
}

#[test]
fn every_function_of_the_header_with_a_path_is_a_known_reader_or_a_driven_writer() {
    cases::classify_header().unwrap();
    // The parser finds the writers it must (a parser finding nothing would
    // make the check above empty).
    let found = cases::header_path_functions();
    for w in cases::WRITERS {
        assert!(found.contains(*w), "{w} not found in the header");
    }
}

#[test]
fn every_writer_refuses_its_inputs_and_fails_cleanly_on_full_and_impossible_targets() {
    let dir = root("in-process");
    let fx = cases::Fixture::new(&dir);
    let mut outcomes = Vec::new();
    for w in cases::WRITERS {
        let o = cases::in_process_cases(&fx, w);
        // Five spellings per input, /dev/full, a path under a file.
        assert_eq!(o.len(), 5 * fx.inputs(w).len() + 2, "{w}");
        outcomes.extend(o);
    }
    outcomes.push(cases::cancelled_case(&fx));
    let resumed = cases::resume_cases(&fx);
    assert_eq!(resumed.len(), 4);
    outcomes.extend(resumed);
    assert_all(&outcomes);
    drop(fx);
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_full_disk_or_a_killed_process_never_leaves_a_finished_looking_target() {
    let dir = root("children");
    let exe = std::env::current_exe().unwrap();
    let spawn = |spec: &str| {
        let mut cmd = Command::new(&exe);
        cmd.args(["child_process_entry", "--exact", "--ignored", "--nocapture"])
            .env("CFX_FAULTS_CHILD", spec);
        cmd
    };
    let outcomes = cases::child_cases(&dir, &spawn);
    assert_eq!(outcomes.len(), cases::WRITERS.len() + 4);
    assert_all(&outcomes);
    let _ = std::fs::remove_dir_all(&dir);
}

/// The child process of the test above; does nothing in a normal run.
#[test]
#[ignore = "run by a_full_disk_or_a_killed_process_never_leaves_a_finished_looking_target"]
fn child_process_entry() {
    if let Ok(spec) = std::env::var("CFX_FAULTS_CHILD") {
        cases::child_main(&spec);
    }
}
