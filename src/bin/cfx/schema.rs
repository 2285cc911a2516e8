//! `cfx schema infer`: a draft schema from a CSV file (`cfx::data::infer`)
//! with the advice rules the analyst already knows given per feature, for
//! the analyst to read and edit.

use crate::common::{self, Failure};
use cfx::data::{InferOptions, SpecialCode, infer, read_csv};
use cfx::schema::{Actionability, ChangeLimit, Direction, TimeGrowth, Waiting};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

#[derive(clap::Subcommand, Debug)]
pub enum Command {
    Infer(InferArgs),
}

/// Drafts a schema from a CSV file: types, ranges, integer grids, special codes,
/// categorical levels, distance weights, and the advice rules you give.
#[derive(clap::Args, Debug)]
#[command(after_help = "\
Examples:
  cfx schema infer applicants.csv --target default --favourable 0 --drop id \\
      --immutable SEX,AGE --increase-only EDUCATION --max-decrease LIMIT_BAL=50% \\
      -o schema.json
  cfx schema infer heloc.csv --target RiskPerformance --favourable Good \\
      --special=-7=no_record --special=-8=no_usable --special=-9=no_bureau \\
      --grows-with-time MSinceOldestTradeOpen=1 -o heloc-schema.json

A column is categorical when --categorical names it or any cell is not a number;
otherwise its range is that of the values that are not special codes, integer when all
are whole. Every feature is mutable in any direction unless a rule here (or --rules)
says otherwise; edit the JSON for the rest (docs/guide/schemas-and-presets.md lists
every key). The output is never written over the input.")]
pub struct InferArgs {
    /// The CSV file (a header naming the columns).
    #[arg(value_name = "DATA.csv")]
    data: PathBuf,
    /// Where the schema JSON goes (default: standard output).
    #[arg(long, short = 'o', value_name = "FILE")]
    output: Option<PathBuf>,
    /// The label column.
    #[arg(long, value_name = "COLUMN")]
    target: String,
    /// The label value of the favourable outcome (repaid, good).
    #[arg(long, value_name = "VALUE")]
    favourable: String,
    /// Columns to leave out (identifiers), comma-separated.
    #[arg(long, value_delimiter = ',', value_name = "COLUMNS")]
    drop: Vec<String>,
    /// Columns to read as categorical even when numeric, comma-separated.
    #[arg(long, value_delimiter = ',', value_name = "COLUMNS")]
    categorical: Vec<String>,
    /// A special code: CODE=LABEL for every numeric column where it occurs, or
    /// CODE=LABEL@COLUMN for one (repeatable).
    #[arg(long, value_name = "CODE=LABEL[@COLUMN]")]
    special: Vec<String>,
    /// Features no advice may change (sex, age at application), comma-separated.
    #[arg(long, value_delimiter = ',', value_name = "FEATURES")]
    immutable: Vec<String>,
    /// Features advice may only raise, comma-separated.
    #[arg(long, value_delimiter = ',', value_name = "FEATURES")]
    increase_only: Vec<String>,
    /// Features advice may only lower, comma-separated.
    #[arg(long, value_delimiter = ',', value_name = "FEATURES")]
    decrease_only: Vec<String>,
    /// The largest raise: FEATURE=UNITS or FEATURE=PERCENT% of the applicant's value
    /// (repeatable).
    #[arg(long, value_name = "FEATURE=LIMIT")]
    max_increase: Vec<String>,
    /// The largest cut: FEATURE=UNITS or FEATURE=PERCENT% (repeatable).
    #[arg(long, value_name = "FEATURE=LIMIT")]
    max_decrease: Vec<String>,
    /// A feature that grows while the applicant waits: FEATURE=UNITS_PER_MONTH
    /// (1 for months since …, 0.0833 for age in years; repeatable). It then moves only
    /// by waiting, under the schema's --waiting.
    #[arg(long, value_name = "FEATURE=PER_MONTH")]
    grows_with_time: Vec<String>,
    /// The schema's "wait m months" action: MAX_MONTHS:COST_PER_MONTH (the price of a
    /// month in the distance); needed by --grows-with-time.
    #[arg(long, value_name = "MONTHS:COST")]
    waiting: Option<String>,
    /// A JSON file mapping feature names to full advice rules (the schema's
    /// `actionability` objects); applied first, the flags above on top.
    #[arg(long, value_name = "FILE")]
    rules: Option<PathBuf>,
}

pub fn run(c: Command) -> Result<(), Failure> {
    match c {
        Command::Infer(a) => run_infer(a),
    }
}

fn split_pair<'a>(flag: &str, s: &'a str) -> Result<(&'a str, &'a str), Failure> {
    s.split_once('=')
        .filter(|(k, v)| !k.is_empty() && !v.is_empty())
        .ok_or_else(|| Failure::bad_input(format!("--{flag} '{s}': expected NAME=VALUE")))
}

fn number(flag: &str, s: &str) -> Result<f64, Failure> {
    s.trim()
        .parse::<f64>()
        .ok()
        .filter(|v| v.is_finite())
        .ok_or_else(|| Failure::bad_input(format!("--{flag}: '{s}' is not a finite number")))
}

fn limit(flag: &str, s: &str) -> Result<ChangeLimit, Failure> {
    match s.strip_suffix('%') {
        Some(p) => Ok(ChangeLimit::Fraction(number(flag, p)? / 100.0)),
        None => Ok(ChangeLimit::Units(number(flag, s)?)),
    }
}

fn waiting(s: &str) -> Result<Waiting, Failure> {
    let bad = || {
        Failure::bad_input(format!(
            "--waiting '{s}': expected MAX_MONTHS:COST_PER_MONTH"
        ))
    };
    let (m, c) = s.split_once(':').ok_or_else(bad)?;
    Ok(Waiting {
        max_months: m.trim().parse().map_err(|_| bad())?,
        cost_per_month: number("waiting", c)?,
    })
}

fn special(s: &str) -> Result<SpecialCode, Failure> {
    let (code, rest) = split_pair("special", s)?;
    let (label, column) = match rest.split_once('@') {
        Some((l, c)) => (l, Some(c.to_string())),
        None => (rest, None),
    };
    Ok(SpecialCode {
        column,
        code: number("special", code)?,
        label: label.to_string(),
    })
}

/// One flag's change to a feature's advice rules.
type Edit = Box<dyn Fn(&mut Actionability)>;

/// The per-feature advice rules from `--rules` and the flags.
fn rules(a: &InferArgs) -> Result<BTreeMap<String, Actionability>, Failure> {
    let mut rules: BTreeMap<String, Actionability> = match &a.rules {
        Some(p) => serde_json::from_str(&common::read_text(p)?).map_err(|e| {
            Failure::bad_input(format!(
                "--rules '{}': {e} (expected {{\"feature\": {{\"mutable\": false, …}}, …}})",
                p.display()
            ))
        })?,
        None => BTreeMap::new(),
    };
    // One entry per feature, mutated by each flag that names it.
    let mut edits: Vec<(String, Edit)> = Vec::new();
    for f in &a.immutable {
        edits.push((f.clone(), Box::new(|r| r.mutable = false)));
    }
    for f in &a.increase_only {
        edits.push((
            f.clone(),
            Box::new(|r| r.direction = Direction::IncreaseOnly),
        ));
    }
    for f in &a.decrease_only {
        edits.push((
            f.clone(),
            Box::new(|r| r.direction = Direction::DecreaseOnly),
        ));
    }
    for s in &a.max_increase {
        let (f, v) = split_pair("max-increase", s)?;
        let l = limit("max-increase", v)?;
        edits.push((f.to_string(), Box::new(move |r| r.max_increase = Some(l))));
    }
    for s in &a.max_decrease {
        let (f, v) = split_pair("max-decrease", s)?;
        let l = limit("max-decrease", v)?;
        edits.push((f.to_string(), Box::new(move |r| r.max_decrease = Some(l))));
    }
    for s in &a.grows_with_time {
        let (f, v) = split_pair("grows-with-time", s)?;
        let per_month = number("grows-with-time", v)?;
        // Every other key of the growth at its documented default.
        let growth: TimeGrowth =
            serde_json::from_value(serde_json::json!({ "per_month": per_month }))
                .map_err(|e| Failure::bad_input(format!("--grows-with-time '{s}': {e}")))?;
        edits.push((
            f.to_string(),
            Box::new(move |r| {
                r.mutable = false;
                r.grows_with_time = Some(growth.clone());
            }),
        ));
    }
    for (name, edit) in edits {
        edit(rules.entry(name).or_default());
    }
    Ok(rules)
}

fn run_infer(a: InferArgs) -> Result<(), Failure> {
    if let Some(o) = &a.output {
        common::check_output(o, &[&a.data])?;
    }
    let opts = InferOptions {
        target: a.target.clone(),
        favourable: a.favourable.clone(),
        drop: a.drop.clone(),
        categorical: a.categorical.clone(),
        special_codes: a
            .special
            .iter()
            .map(|s| special(s))
            .collect::<Result<_, _>>()?,
        actionability: rules(&a)?,
        waiting: a.waiting.as_deref().map(waiting).transpose()?,
    };
    let table = read_csv(&a.data)?;
    let d = infer(&table, &opts)?;
    let json = format!("{}\n", d.schema.to_json());
    match &a.output {
        None => common::print(&json),
        Some(o) => {
            cfx::output::write_file(o, &[Path::new(&a.data)], json.as_bytes())?;
            common::print(&format!(
                "{} features from {} rows; draft schema in '{}' — read it and edit what the \
                 data cannot tell\n",
                d.schema.n_features(),
                d.rows.len(),
                o.display()
            ))
        }
    }
}
