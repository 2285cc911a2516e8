//! `cfx explain`: one applicant's cheapest accepted change (Russell 2019's
//! coherent MIP, or the separable/tree solver that proves it), with diverse
//! alternatives, as text for a person or as the library's versioned JSON.

use crate::common::{self, EXIT_NO_RECOURSE, Failure, ModelArgs};
use cfx::coherent::waiting::{WaitingExplanation, explain_with_waiting};
use cfx::coherent::{BoxKind, Config, Explanation, Outcome, Robustness, explain, explain_diverse};
use cfx::data::{read_csv, row_under_schema};
use cfx::model::Model;
use cfx::schema::Schema;
use cfx::schema::fmt_num;
use std::path::PathBuf;

/// `--robust-box`: which neighbourhood a tree ensemble's robust version proves
/// ([`BoxKind`]; a logistic model's closed form is over the reals).
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
enum RobustBox {
    // Plain comments, not doc comments: clap would list described values on lines of their
    // own and turn `--help` into its long layout.
    // Every real value within the tolerance (the default).
    Reals,
    // The values an applicant can end at: clipped to the range, rounded to the data's grid.
    ReachableValues,
}

/// Explains one applicant: the proven cheapest change that gets them accepted, and
/// alternatives.
#[derive(clap::Args, Debug)]
#[command(after_help = "\
Examples:
  cfx explain --schema schema.json --model xgb.json --options '{\"favourable_class\": 0}' \\
      --csv applicants.csv --id 17
  cfx explain --schema schema.json --model model.json \\
      --row '{\"income\": 2100, \"housing\": \"rent\", \"age\": 31}' --json

The applicant is a JSON object of feature values (categorical levels by name, special
states by label or code), or row N (counted from 0, as `cfx book` counts) of a CSV file
whose header names the features. Exit code 3 when the applicant is declined and no
change within the schema's rules is accepted.")]
pub struct Args {
    /// The schema JSON (features, ranges, advice rules).
    #[arg(long, short = 's', value_name = "FILE")]
    schema: PathBuf,
    #[command(flatten)]
    model: ModelArgs,
    /// The applicant as a JSON object of feature values.
    #[arg(long, value_name = "JSON", conflicts_with_all = ["csv", "id"], required_unless_present = "csv")]
    row: Option<String>,
    /// A CSV file of applicants (header: feature names; other columns are ignored).
    #[arg(long, value_name = "FILE", requires = "id")]
    csv: Option<PathBuf>,
    /// The applicant's data row in --csv, counted from 0.
    #[arg(long, value_name = "N")]
    id: Option<usize>,
    /// Counterfactuals to give: the optimal one and diverse alternatives (Russell 2019).
    #[arg(long, default_value_t = 3, value_name = "N")]
    alternatives: usize,
    /// Seconds the solver may take per counterfactual.
    #[arg(long, default_value_t = 10.0, value_name = "SECONDS")]
    time_limit: f64,
    #[command(flatten)]
    limit: common::NodeLimit,
    /// How far above the cut-off advice must land, in log-odds of the favourable outcome
    /// (a scorecard: in points). Advice exactly at the cut-off breaks under the next model's
    /// smallest shift; 0.2 puts a 0.5 cut-off's advice at probability 0.55 or more.
    #[arg(long, default_value_t = 1e-6, value_name = "LOGODDS")]
    margin: f64,
    /// Leave out the waiting option (the cheapest advice when waiting is one of the actions,
    /// given when the schema declares a waiting action).
    #[arg(long)]
    no_waiting: bool,
    /// The robust version's slip variance σ² (on min–max scaled features): the cheapest change
    /// that stays accepted when followed only approximately (exact engine; logistic models and
    /// tree ensembles, see --robust-box).
    #[arg(long, default_value_t = 0.01, value_name = "SIGMA2")]
    robust_sigma2: f64,
    /// The robust version's largest share of slipped implementations still declined.
    #[arg(long, default_value_t = 0.1, value_name = "RATE")]
    robust_target: f64,
    /// The robust version's box on a tree ensemble: every slip within the tolerance over the
    /// reals, or only the values an applicant can actually end at (a slip clipped to the
    /// feature's range and rounded to the data's grid).
    #[arg(long, value_enum, default_value_t = RobustBox::Reals, value_name = "BOX")]
    robust_box: RobustBox,
    /// Leave out the robust version.
    #[arg(long)]
    no_robust: bool,
    /// Also print what the model's import read and assumed (text output).
    #[arg(long)]
    import_report: bool,
    /// Print one JSON object: "explanation" (as cfx_coherent_result_to_json writes it),
    /// "waiting" (as cfx_waiting_advice_to_json writes it; null without a waiting action or
    /// with --no-waiting), "robust" (the robust version, cfx_coherent_result_to_json; null
    /// when left out or refused) and, when the model is refused, "robust_refused" (why).
    #[arg(long)]
    json: bool,
}

/// The waiting option in words (as `make demo` says it).
fn waiting_text(w: &WaitingExplanation) -> String {
    match &w.advice {
        _ if !w.is_proven() => format!("waiting option (unproven): {}\n", w.describe()),
        Some(a) if a.months > 0 => format!(
            "waiting option (proven optimal over every wait): {}\n  cost {}, of which waiting {}\n",
            a.describe(),
            fmt_num(a.cost),
            fmt_num(a.wait_cost)
        ),
        Some(a) => format!(
            "waiting option: no wait the schema allows is worth its price; acting now stays the \
             cheapest advice (cost {})\n",
            fmt_num(a.cost)
        ),
        None => {
            "waiting option: no advice within the schema's rules, with or without waiting\n".into()
        }
    }
}

/// The robust version in words.
fn robust_text(r: &Result<Explanation, String>, robustness: &Robustness) -> String {
    let label = robustness.label();
    match r {
        Err(why) => format!("{label}: not available for this model: {why}\n"),
        Ok(ex) => match ex.counterfactuals.first() {
            Some(cf) => format!(
                "{label}{}: {}\n  cost {}, declined after a slip {}% of the time\n",
                if cf.status == Outcome::Optimal {
                    ", proven optimal"
                } else {
                    ""
                },
                cf.describe(),
                fmt_num(cf.cost),
                cf.invalidation_rate
                    .map_or("?".into(), |g| format!("{:.1}", 100.0 * g))
            ),
            None => {
                format!("{label}: no change within the schema's rules stays accepted that often\n")
            }
        },
    }
}

/// The applicant's raw row from a JSON object of feature values.
fn row_from_json(schema: &Schema, text: &str) -> Result<Vec<f64>, Failure> {
    let v: serde_json::Value = serde_json::from_str(text)
        .map_err(|e| Failure::bad_input(format!("--row is not JSON: {e}")))?;
    let obj = v
        .as_object()
        .ok_or_else(|| Failure::bad_input("--row must be a JSON object of feature values"))?;
    for k in obj.keys() {
        if schema.index_of(k).is_err() {
            return Err(Failure::bad_input(format!(
                "--row names '{k}', which is no feature of the schema"
            )));
        }
    }
    let mut cells = Vec::with_capacity(schema.features.len());
    for f in &schema.features {
        let cell = match obj.get(&f.name) {
            Some(serde_json::Value::String(s)) => s.clone(),
            Some(serde_json::Value::Number(n)) => n.to_string(),
            Some(other) => {
                return Err(Failure::bad_input(format!(
                    "--row: '{}' must be a number or a string, got {other}",
                    f.name
                )));
            }
            None => {
                return Err(Failure::bad_input(format!(
                    "--row has no value for the feature '{}'",
                    f.name
                )));
            }
        };
        cells.push(cell);
    }
    let cols: Vec<usize> = (0..cells.len()).collect();
    row_under_schema(&cells, schema, &cols, 0).map_err(|e| {
        Failure::bad_input(
            e.to_string()
                .replacen("data row 1, column", "--row, feature", 1),
        )
    })
}

/// Row `id` of the CSV file.
fn row_from_csv(schema: &Schema, path: &std::path::Path, id: usize) -> Result<Vec<f64>, Failure> {
    let table = read_csv(path)?;
    let cells = table.rows.get(id).ok_or_else(|| {
        Failure::bad_input(format!(
            "--id {id}: '{}' has {} data rows (counted from 0)",
            path.display(),
            table.rows.len()
        ))
    })?;
    let cols = schema
        .features
        .iter()
        .map(|f| table.column(&f.name))
        .collect::<cfx::Result<Vec<_>>>()
        .map_err(|e| Failure::bad_input(format!("'{}': {e}", path.display())))?;
    Ok(row_under_schema(cells, schema, &cols, id)?)
}

pub fn run(a: Args) -> Result<(), Failure> {
    let schema = common::read_schema(&a.schema)?;
    let loaded = a.model.load(&schema)?;
    let model = &loaded.model;
    let raw = match (&a.row, &a.csv, a.id) {
        (Some(r), _, _) => row_from_json(&schema, r)?,
        (None, Some(csv), Some(id)) => row_from_csv(&schema, csv, id)?,
        _ => {
            return Err(Failure::bad_input(
                "give --row JSON, or --csv FILE with --id N",
            ));
        }
    };
    let x = schema.encode(&raw)?;
    if model.accepts(&x) {
        let p = model.probability(&x);
        if a.json {
            let line = serde_json::json!({"decision": "accepted", "probability": p});
            return common::print(&format!("{line}\n"));
        }
        let said = if p.is_nan() {
            format!("score {}", cfx::schema::fmt_num(model.score(&x)))
        } else {
            format!("probability {p:.3} > {:.3}", model.threshold())
        };
        return common::print(&format!("accepted: {said}; nothing to change\n"));
    }
    let config = a.limit.apply(Config {
        n_diverse: a.alternatives.max(1),
        time_limit_seconds: a.time_limit,
        margin: a.margin,
        ..Config::default()
    });
    // A bad setting is bad input (2); what the method refuses after this is the model (5).
    config.validate()?;
    let explanation = explain_diverse(&schema, model, &raw, &config).map_err(|e| match e {
        cfx::Error::InvalidArgument(_) => Failure::model(e),
        e => Failure::of(e),
    })?;
    let single = Config {
        n_diverse: 1,
        ..config
    };
    // The waiting option: the exact minimum over every wait the schema allows.
    let waiting = match schema.waiting() {
        Some(_) if !a.no_waiting => Some(explain_with_waiting(&schema, model, &raw, &single)?),
        _ => None,
    };
    // The robust version: the exact engine with the closed-form margin. A model it does not
    // take (it is for logistic models) is said so, not an error of the command.
    let robustness = Robustness {
        sigma2: a.robust_sigma2,
        invalidation_target: a.robust_target,
        box_kind: match a.robust_box {
            RobustBox::Reals => BoxKind::Reals,
            RobustBox::ReachableValues => BoxKind::ReachableValues,
        },
    };
    let robust = if a.no_robust {
        None
    } else {
        let c = Config {
            robustness: Some(robustness),
            ..single
        };
        // A bad σ² or target is bad input (2).
        c.validate()?;
        Some(explain(&schema, model, &raw, &c).map_err(|e| match e {
            cfx::Error::InvalidArgument(m) | cfx::Error::Solver(m) => m,
            e => e.to_string(),
        }))
    };
    if a.json {
        let ex = cfx::ffi::coherent::coherent_result_json(&explanation, &schema, model)?;
        let w = match &waiting {
            Some(w) => cfx::ffi::waiting_advice::waiting_advice_json(w, &schema, model)?,
            None => "null".into(),
        };
        let (r, refused) = match &robust {
            Some(Ok(r)) => (
                cfx::ffi::coherent::coherent_result_json(r, &schema, model)?,
                String::new(),
            ),
            Some(Err(why)) => (
                "null".into(),
                format!(
                    ",\n\"robust_refused\": {}",
                    serde_json::Value::from(why.as_str())
                ),
            ),
            None => ("null".into(), String::new()),
        };
        // The library's own bytes for each part, side by side.
        common::print(&format!(
            "{{\n\"explanation\": {ex},\n\"waiting\": {w},\n\"robust\": {r}{refused}\n}}\n"
        ))?;
    } else {
        let mut text = explanation.to_text();
        if let Some(w) = &waiting {
            text.push_str(&waiting_text(w));
        }
        if let Some(r) = &robust {
            text.push_str(&robust_text(r, &robustness));
        }
        if a.import_report && !loaded.report.is_empty() {
            text.push_str("model import report:\n");
            for l in &loaded.report {
                text.push_str(&format!("  {l}\n"));
            }
        }
        common::print(&text)?;
    }
    if explanation.counterfactuals.is_empty() {
        return Err(Failure::new(EXIT_NO_RECOURSE, ""));
    }
    Ok(())
}
