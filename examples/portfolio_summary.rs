//! Who carries the burden of recourse: the portfolio summary (issue 14) of
//! German credit by personal status and sex and by age band, and of FICO HELOC
//! by `ExternalRiskEstimate` band.
//!
//! `cargo run --release --example portfolio_summary` fits the logistic model on
//! the training split (as everywhere in cfx), streams every applicant of the
//! data file through `coherent::portfolio::explain_portfolio` into a temporary
//! JSON-lines file, summarises it with `coherent::portfolio_summary::summarize`,
//! prints each table and writes the charts to `docs/portfolio_german_sex.svg`,
//! `docs/portfolio_german_age.svg` and `docs/portfolio_heloc_risk.svg` (the
//! README shows the first; HELOC is skipped when `../shared/data` lacks it).

use cfx::coherent::Config;
use cfx::coherent::portfolio::{PortfolioOptions, explain_portfolio};
use cfx::coherent::portfolio_summary::{GroupBy, summarize};
use cfx::data::{Dataset, bundled_german_path, german_credit, heloc, shared_data_dir};
use cfx::model::{LinearModel, LogisticFit};
use std::path::Path;

fn run(
    name: &str,
    data: &Dataset,
    file: &Path,
    label: &str,
    groupings: &[(GroupBy, &str, &str)],
) -> cfx::Result<()> {
    let (train, _) = data.holdout_split();
    let mut schema = train.schema.clone();
    schema.fit_weights(&train.rows)?;
    let model = LinearModel::fit(
        &schema.encode_rows(&train.rows)?,
        &train.labels,
        LogisticFit::default(),
    )?;
    let output =
        std::env::temp_dir().join(format!("cfx-summary-{name}-{}.jsonl", std::process::id()));
    let options = PortfolioOptions {
        ignore_columns: vec![label.to_string()],
        ..PortfolioOptions::default()
    };
    let counts = explain_portfolio(
        &schema,
        &model,
        file,
        &output,
        &Config::default(),
        &options,
        &mut |_| true,
    );
    let counts = match counts {
        Ok(c) => c,
        Err(e) => {
            let _ = std::fs::remove_file(&output);
            return Err(e);
        }
    };
    println!(
        "{name}: {} applicants explained into JSON lines",
        counts.rows
    );
    for (by, svg, title) in groupings {
        let report = summarize(&schema, file, &output, Some(by))?;
        println!("\n{}", report.to_text(5));
        std::fs::write(svg, report.to_svg(title, 8)?)
            .map_err(|e| cfx::Error::Io(format!("cannot write {svg}: {e}")))?;
        println!("chart: {svg}");
    }
    let _ = std::fs::remove_file(&output);
    Ok(())
}

fn main() -> cfx::Result<()> {
    std::fs::create_dir_all("docs").map_err(|e| cfx::Error::Io(format!("docs/: {e}")))?;
    let german = bundled_german_path();
    run(
        "german",
        &german_credit(&german)?,
        &german,
        "creditability",
        &[
            (
                GroupBy {
                    column: "personal_status_and_sex".into(),
                    edges: vec![],
                },
                "docs/portfolio_german_sex.svg",
                "German credit: recourse by personal status and sex",
            ),
            (
                GroupBy {
                    column: "age_in_years".into(),
                    edges: vec![25.0, 35.0, 50.0],
                },
                "docs/portfolio_german_age.svg",
                "German credit: recourse by age band",
            ),
        ],
    )?;
    let heloc_file = shared_data_dir().join("heloc.csv");
    if !heloc_file.exists() {
        println!("\nheloc: {} not found, skipped", heloc_file.display());
        return Ok(());
    }
    println!();
    run(
        "heloc",
        &heloc(&heloc_file)?,
        &heloc_file,
        "RiskPerformance",
        &[(
            GroupBy {
                column: "ExternalRiskEstimate".into(),
                edges: vec![60.0, 70.0, 80.0],
            },
            "docs/portfolio_heloc_risk.svg",
            "FICO HELOC: recourse by ExternalRiskEstimate band",
        )],
    )
}
