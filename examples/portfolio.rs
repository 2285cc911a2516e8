//! Both solvers of the coherent program side by side on a whole declined book.
//!
//! `cargo run --release --example portfolio -- [heloc|german|taiwan]` explains
//! every declined held-out applicant with the separable solver and with HiGHS
//! (one thread, one call of `coherent::explain` each, timed end to end: input
//! checks, solve, decode and the answer's change list) and prints first
//!
//! `separable vs highs: median A µs vs B µs (R×), identical costs on N/M`
//!
//! where R = B / A and N counts the applicants whose two answers are equally
//! feasible and cost the same within 1e-9 relative; then percentiles of both
//! times. Timing belongs here, not in the tests.

use cfx::coherent::{Config, Explanation, SolverChoice, explain};
use cfx::data::{bundled_german_path, german_credit, heloc, shared_data_dir, taiwan};
use cfx::model::{LinearModel, LogisticFit, Model};
use std::time::Instant;

fn percentile(sorted: &[f64], p: f64) -> f64 {
    sorted[((sorted.len() - 1) as f64 * p).round() as usize]
}

fn timed(
    schema: &cfx::schema::Schema,
    model: &LinearModel,
    rows: &[Vec<f64>],
    solver: SolverChoice,
) -> cfx::Result<(Vec<f64>, Vec<Explanation>)> {
    let config = Config {
        solver,
        ..Config::default()
    };
    let mut micros = Vec::with_capacity(rows.len());
    let mut answers = Vec::with_capacity(rows.len());
    for r in rows {
        let t = Instant::now();
        let ex = explain(schema, model, r, &config)?;
        micros.push(t.elapsed().as_secs_f64() * 1e6);
        answers.push(ex);
    }
    Ok((micros, answers))
}

fn main() -> cfx::Result<()> {
    let which = std::env::args().nth(1).unwrap_or_else(|| "heloc".into());
    let data = match which.as_str() {
        "german" => german_credit(&bundled_german_path())?,
        "taiwan" => taiwan(&shared_data_dir().join("taiwan_default.csv"))?,
        "heloc" => heloc(&shared_data_dir().join("heloc.csv"))?,
        other => {
            return Err(cfx::Error::InvalidArgument(format!(
                "unknown data set '{other}' (heloc, german or taiwan)"
            )));
        }
    };
    let (train, test) = data.holdout_split();
    let mut schema = train.schema.clone();
    schema.fit_weights(&train.rows)?;
    let model = LinearModel::fit(
        &schema.encode_rows(&train.rows)?,
        &train.labels,
        LogisticFit::default(),
    )?;
    let mut declined = Vec::new();
    for r in &test.rows {
        if !model.accepts(&schema.encode(r)?) {
            declined.push(r.clone());
        }
    }
    // One untimed pass each first, so that both start warm.
    let warm = &declined[..declined.len().min(20)];
    timed(&schema, &model, warm, SolverChoice::Separable)?;
    timed(&schema, &model, warm, SolverChoice::Mip)?;
    let (mut a, sep) = timed(&schema, &model, &declined, SolverChoice::Separable)?;
    let (mut b, mip) = timed(&schema, &model, &declined, SolverChoice::Mip)?;
    let identical = sep
        .iter()
        .zip(&mip)
        .filter(
            |(x, y)| match (x.counterfactuals.first(), y.counterfactuals.first()) {
                (Some(x), Some(y)) => {
                    (x.cost - y.cost).abs() <= 1e-9 * x.cost.abs().max(y.cost.abs()) + 1e-12
                }
                (None, None) => x.outcome == y.outcome,
                _ => false,
            },
        )
        .count();
    a.sort_by(f64::total_cmp);
    b.sort_by(f64::total_cmp);
    let (ma, mb) = (percentile(&a, 0.5), percentile(&b, 0.5));
    println!(
        "separable vs highs: median {ma:.1} µs vs {mb:.0} µs ({:.0}×), identical costs on {identical}/{}",
        mb / ma,
        declined.len()
    );
    println!(
        "{which}: separable p90 {:.1} µs, p99 {:.1} µs, max {:.1} µs; highs p90 {:.0} µs, p99 {:.0} µs, max {:.0} µs",
        percentile(&a, 0.9),
        percentile(&a, 0.99),
        a[a.len() - 1],
        percentile(&b, 0.9),
        percentile(&b, 0.99),
        b[b.len() - 1]
    );
    Ok(())
}
