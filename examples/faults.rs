//! Fault injection on every file-writing entry point of the C ABI, printed:
//! the cases of `tests/faults/cases.rs` (which `cargo test --test faults`
//! asserts), one line each, then the tally.
//!
//! ```text
//! cargo run --release --example faults
//! faults: cfx_portfolio_explain: output = input book.csv: refused, input intact
//! …
//! faults: N/N cases refused or recovered, 0 inputs changed
//! ```
//!
//! Exits 1 when a case went wrong. The child cases run this example again
//! with `--child <spec>`.

#[path = "../tests/faults/cases.rs"]
mod cases;

use std::process::Command;

fn main() {
    let args: Vec<String> = std::env::args().collect();
    if args.len() == 3 && args[1] == "--child" {
        cases::child_main(&args[2]);
    }
    if let Err(e) = cases::classify_header() {
        eprintln!("faults: {e}");
        std::process::exit(1);
    }
    let root = std::env::temp_dir().join(format!("cfx-faults-example-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&root);
    let fx = cases::Fixture::new(&root.join("in-process"));
    let mut outcomes = Vec::new();
    for w in cases::WRITERS {
        outcomes.extend(cases::in_process_cases(&fx, w));
    }
    outcomes.push(cases::cancelled_case(&fx));
    outcomes.extend(cases::resume_cases(&fx));
    drop(fx);
    let exe = std::env::current_exe().expect("the example's path");
    let spawn = |spec: &str| {
        let mut cmd = Command::new(&exe);
        cmd.args(["--child", spec]);
        cmd
    };
    outcomes.extend(cases::child_cases(&root, &spawn));
    let _ = std::fs::remove_dir_all(&root);
    let mut good = 0;
    for o in &outcomes {
        match &o.result {
            Ok(what) => {
                good += 1;
                println!("faults: {}: {}: {what}", o.writer, o.case);
            }
            Err(e) => println!("faults: {}: {}: FAILED: {e}", o.writer, o.case),
        }
    }
    let changed: usize = outcomes.iter().map(|o| o.inputs_changed).sum();
    println!(
        "faults: {good}/{} cases refused or recovered, {changed} inputs changed",
        outcomes.len()
    );
    if good != outcomes.len() || changed != 0 {
        std::process::exit(1);
    }
}
