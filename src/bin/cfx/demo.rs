//! `cfx demo`: what `make demo` shows, from the installed binary. The
//! demo's code is the examples' own (`examples/credit_recourse.rs`,
//! `examples/sequential_demo.rs`), compiled in here, so the two cannot
//! drift; the bundled German data is found beside the binary
//! (`<prefix>/share/cfx`, `$CFX_DATA_DIR`, or `examples/data` in a source
//! checkout: `cfx::data::bundled_data_dir`).

use crate::common::Failure;
use std::path::PathBuf;

#[path = "../../../examples/credit_recourse.rs"]
#[allow(dead_code)]
mod credit_recourse;
#[path = "../../../examples/sequential_demo.rs"]
#[allow(dead_code)]
mod sequential_demo;

/// Runs the demo: a logistic model fitted on the data, declined applicants explained
/// (optimal, diverse, robust, waiting, the bank's scorecard), a COPA plan and a short
/// sequential (P-DQN) run.
#[derive(clap::Args, Debug)]
#[command(after_help = "\
Examples:
  cfx demo                 # German credit, bundled with cfx
  cfx demo heloc --data heloc.csv

HELOC (FICO's Explainable Machine Learning Challenge data) is not bundled: its licence
does not allow it; give its CSV with --data (or set CFX_SHARED_DATA to its folder).")]
pub struct Args {
    /// The data set.
    #[arg(value_parser = ["german", "heloc"], default_value = "german")]
    data_set: String,
    /// The data set's CSV file (default: the bundled German file; HELOC from
    /// $CFX_SHARED_DATA or ../shared/data).
    #[arg(long, value_name = "FILE")]
    data: Option<PathBuf>,
    /// Episodes of the sequential (P-DQN) training run.
    #[arg(long, default_value_t = 1500, value_name = "N")]
    episodes: usize,
    /// Leave out the sequential (P-DQN) part.
    #[arg(long)]
    no_sequential: bool,
}

pub fn run(a: Args) -> Result<(), Failure> {
    let demo_failed = |e: Box<dyn std::error::Error>| match e.downcast::<cfx::Error>() {
        Ok(e) => Failure::of(*e),
        Err(e) => Failure::bad_input(e.to_string()),
    };
    credit_recourse::run(&a.data_set, a.data.as_deref()).map_err(demo_failed)?;
    if !a.no_sequential {
        sequential_demo::run(&a.data_set, a.data.as_deref(), a.episodes).map_err(demo_failed)?;
    }
    Ok(())
}
