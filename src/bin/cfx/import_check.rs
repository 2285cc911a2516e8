//! `cfx import-check`: the validator's fidelity check of an imported model
//! (`cfx::model::parity::check_parity`) — cfx's probability of every row
//! against the source library's own predictions — and the import report.

use crate::common::{self, EXIT_SCORES_DIFFER, Failure, ModelArgs};
use cfx::data::{read_csv, rows_under_schema};
use cfx::model::parity::check_parity;
use std::path::PathBuf;

/// Checks an imported model against the source library's own scores, row by row.
#[derive(clap::Args, Debug)]
#[command(after_help = "\
Examples:
  python -c 'import pandas as pd, xgboost as xgb; m = xgb.XGBClassifier(); \\
      m.load_model(\"xgb.json\"); X = pd.read_csv(\"rows.csv\"); \\
      pd.DataFrame({\"p\": m.predict_proba(X)[:, 1]}).to_csv(\"scores.csv\", index=False)'
  cfx import-check --schema schema.json --model xgb.json \\
      --options '{\"favourable_class\": 0}' --data rows.csv --expected scores.csv \\
      --expected-is default

Prints the import report (what the importer read and assumed), the largest absolute
difference and the rows that differ by more than --tolerance; exit code 6 when any do.")]
pub struct Args {
    /// The schema JSON.
    #[arg(long, short = 's', value_name = "FILE")]
    schema: PathBuf,
    #[command(flatten)]
    model: ModelArgs,
    /// The rows (CSV, a header naming the schema's features; other columns are ignored).
    #[arg(long, value_name = "FILE")]
    data: PathBuf,
    /// The source library's probabilities for the same rows (CSV with a header).
    #[arg(long, value_name = "FILE")]
    expected: PathBuf,
    /// The column of --expected to read (needed when it has more than one).
    #[arg(long, value_name = "NAME")]
    column: Option<String>,
    /// What the expected probabilities are of: the favourable outcome, or default
    /// (the class-1 probability of a model of default: cfx compares 1 − p).
    #[arg(long, value_parser = ["favourable", "default"], default_value = "favourable")]
    expected_is: String,
    /// The largest difference that counts as equal (XGBoost and LightGBM sum leaves in
    /// float32 or float64 orders of their own).
    #[arg(long, default_value_t = 1e-6)]
    tolerance: f64,
}

pub fn run(a: Args) -> Result<(), Failure> {
    let schema = common::read_schema(&a.schema)?;
    let loaded = a.model.load(&schema)?;
    let data = read_csv(&a.data)?;
    let rows = rows_under_schema(&data, &schema)?;
    let encoded = rows
        .iter()
        .map(|r| schema.encode(r))
        .collect::<cfx::Result<Vec<_>>>()?;
    let table = read_csv(&a.expected)?;
    let col = match (&a.column, table.header.len()) {
        (Some(c), _) => table.column(c)?,
        (None, 1) => 0,
        (None, n) => {
            return Err(Failure::bad_input(format!(
                "'{}' has {n} columns: name the scores' one with --column",
                a.expected.display()
            )));
        }
    };
    let mut expected = Vec::with_capacity(table.rows.len());
    for (i, r) in table.rows.iter().enumerate() {
        let p: f64 = r[col].trim().parse().map_err(|_| {
            Failure::bad_input(format!(
                "'{}', data row {}: '{}' is not a number",
                a.expected.display(),
                i + 1,
                r[col]
            ))
        })?;
        expected.push(if a.expected_is == "default" {
            1.0 - p
        } else {
            p
        });
    }
    let r = check_parity(&loaded.model, &encoded, &expected, a.tolerance)?;
    let mut text = String::from("import report:\n");
    for l in &loaded.report {
        text.push_str(&format!("  {l}\n"));
    }
    if loaded.report.is_empty() {
        text.push_str("  (none: the model file is cfx's own)\n");
    }
    text.push_str(&format!(
        "{} rows scored; max abs difference {:.2e}; {} rows differ by more than {:e}\n",
        r.rows,
        r.max_abs_diff,
        r.differing.len(),
        r.tolerance
    ));
    for d in r.differing.iter().take(20) {
        text.push_str(&format!(
            "  row {}: cfx {} expected {}\n",
            d.row, d.cfx, d.expected
        ));
    }
    if r.differing.len() > 20 {
        text.push_str(&format!("  … and {} more\n", r.differing.len() - 20));
    }
    common::print(&text)?;
    if r.differing.is_empty() {
        Ok(())
    } else {
        Err(Failure::new(
            EXIT_SCORES_DIFFER,
            format!("{} of {} rows score differently", r.differing.len(), r.rows),
        ))
    }
}
