//! The main job of cfx on real data: `make demo` (German credit, bundled) or
//! `make demo DATA=heloc` (FICO HELOC, read from ../shared/data).
//!
//! Builds the schema, fits the logistic model on the fixed 70/30 split, reports
//! held-out accuracy, and explains the first declined applicants of the
//! held-out part.

use cfx::data;
use cfx::model::{LinearModel, LogisticFit, Model, accuracy};

const N_APPLICANTS: usize = 3;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let which = std::env::args().nth(1).unwrap_or_else(|| "german".into());
    let d = match which.as_str() {
        "german" => data::german_credit(&data::bundled_german_path())?,
        "heloc" => data::heloc(&data::shared_data_dir().join("heloc.csv"))?,
        "taiwan" => data::taiwan(&data::shared_data_dir().join("taiwan_default.csv"))?,
        other => return Err(format!("unknown dataset '{other}' (german, heloc, taiwan)").into()),
    };
    println!("== cfx demo on {which} credit data ==");
    println!(
        "{} applicants, {} features ({} encoded columns)",
        d.rows.len(),
        d.schema.n_features(),
        d.schema.encoded_dim()
    );
    let (train, test) = d.holdout_split();
    let model = LinearModel::fit(&train.encoded(), &train.labels, LogisticFit::default())?;
    let test_x = test.encoded();
    println!(
        "logistic model (L2, C = 1): held-out accuracy {:.1}% on {} applicants",
        100.0 * accuracy(&model, &test_x, &test.labels),
        test.rows.len()
    );
    let declined: Vec<usize> = (0..test.rows.len())
        .filter(|&i| !model.accepts(&test_x[i]))
        .take(N_APPLICANTS)
        .collect();
    for &i in &declined {
        let x = &test_x[i];
        println!();
        println!(
            "applicant #{i} of the held-out part: declined (probability of good risk {:.1}%, threshold {:.0}%)",
            100.0 * model.probability(x),
            100.0 * model.threshold
        );
    }
    Ok(())
}
