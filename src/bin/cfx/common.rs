//! What every subcommand shares: the error a command ends with and its exit
//! code, and reading the schema and the model.

use cfx::Error;
use cfx::coherent::{BoxKind, Config, Robustness};
use cfx::model::load::{LoadedModel, ModelFormat, load_model};
use cfx::schema::Schema;
use std::io::Write;
use std::path::{Path, PathBuf};

pub const EXIT_INTERNAL: u8 = 1;
pub const EXIT_BAD_INPUT: u8 = 2;
pub const EXIT_NO_RECOURSE: u8 = 3;
pub const EXIT_IO: u8 = 4;
pub const EXIT_MODEL_REFUSED: u8 = 5;
pub const EXIT_SCORES_DIFFER: u8 = 6;

/// How a command ends when it does not succeed: one line for stderr (empty:
/// the command printed its own answer) and the exit code.
#[derive(Debug)]
pub struct Failure {
    pub code: u8,
    pub message: String,
}

impl Failure {
    pub fn new(code: u8, message: impl Into<String>) -> Failure {
        Failure {
            code,
            message: message.into(),
        }
    }
    pub fn bad_input(message: impl Into<String>) -> Failure {
        Failure::new(EXIT_BAD_INPUT, message)
    }
    pub fn io(message: impl Into<String>) -> Failure {
        Failure::new(EXIT_IO, message)
    }
    /// A library error from a step that is not about the model.
    pub fn of(e: Error) -> Failure {
        let code = match &e {
            Error::Io(_) => EXIT_IO,
            Error::Solver(_) | Error::Cancelled(_) => EXIT_INTERNAL,
            _ => EXIT_BAD_INPUT,
        };
        Failure::new(code, one_line(&e.message()))
    }
    /// A library error from a step that refuses the model (its import, or a
    /// method that does not take its kind); I/O stays I/O.
    pub fn model(e: Error) -> Failure {
        match e {
            Error::Io(_) => Failure::of(e),
            e => Failure::new(EXIT_MODEL_REFUSED, one_line(&e.message())),
        }
    }
}

impl From<Error> for Failure {
    fn from(e: Error) -> Failure {
        Failure::of(e)
    }
}

/// Messages are one line on stderr.
fn one_line(s: &str) -> String {
    s.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// A file's text (exit 4 when it cannot be read).
pub fn read_text(path: &Path) -> Result<String, Failure> {
    std::fs::read_to_string(path)
        .map_err(|e| Failure::io(format!("cannot read '{}': {e}", path.display())))
}

/// The schema JSON at `path`.
pub fn read_schema(path: &Path) -> Result<Schema, Failure> {
    Schema::from_json(&read_text(path)?).map_err(|e| {
        Failure::bad_input(format!(
            "schema '{}': {}",
            path.display(),
            one_line(&e.message())
        ))
    })
}

/// `--options`: inline JSON (starting with `{`) or a file of it.
pub fn options_text(options: Option<&str>) -> Result<Option<String>, Failure> {
    match options {
        None => Ok(None),
        Some(o) if o.trim_start().starts_with('{') => Ok(Some(o.to_string())),
        Some(path) => read_text(Path::new(path)).map(Some),
    }
}

/// A `--robust SIGMA2,RATE[,BOX]` argument (`cfx notices`, `cfx book`): the
/// robust advice's slip variance σ² and largest invalidation rate, and for a
/// tree ensemble the box (`reals`, the default, or `reachable-values`);
/// `none` for no robust advice. The numbers are checked by
/// [`Config::validate`], as the library checks them.
pub fn parse_robustness(text: &str) -> Result<Option<Robustness>, Failure> {
    if text == "none" {
        return Ok(None);
    }
    let bad = || {
        Failure::bad_input(format!(
            "--robust '{text}': give SIGMA2,RATE or SIGMA2,RATE,BOX (BOX: reals or \
             reachable-values) or none"
        ))
    };
    let parts: Vec<&str> = text.split(',').map(str::trim).collect();
    if !(2..=3).contains(&parts.len()) {
        return Err(bad());
    }
    let box_kind = match parts.get(2).copied() {
        None | Some("reals") => BoxKind::Reals,
        Some("reachable-values") => BoxKind::ReachableValues,
        Some(_) => return Err(bad()),
    };
    Ok(Some(Robustness {
        sigma2: parts[0].parse().map_err(|_| bad())?,
        invalidation_target: parts[1].parse().map_err(|_| bad())?,
        box_kind,
    }))
}

/// The deterministic work limit every command that solves shares.
#[derive(clap::Args, Debug, Clone)]
pub struct NodeLimit {
    /// Branch-and-bound nodes the exact engine may visit per solve (default 200,000). Unlike
    /// --time-limit it stops a search at the same place on every machine, however fast or
    /// loaded, so a run whose every line must be reproducible gives a node limit and a time
    /// limit that never binds. A tree ensemble's search stopped by it keeps its best answer
    /// with its proven gap (outcome time_limit; a book line's mip_gap); the separable solver
    /// (logistic models, scorecards) hands over to HiGHS, which only --time-limit stops.
    #[arg(long, value_name = "N")]
    pub node_limit: Option<usize>,
}

impl NodeLimit {
    /// `config` with the node limit given, if one was.
    pub fn apply(&self, config: Config) -> Config {
        match self.node_limit {
            Some(node_limit) => Config {
                node_limit,
                ..config
            },
            None => config,
        }
    }
}

/// The model arguments every command taking a model shares.
#[derive(clap::Args, Debug, Clone)]
pub struct ModelArgs {
    /// The model file.
    #[arg(long, short = 'm', value_name = "FILE")]
    pub model: PathBuf,
    /// The model's format; without it, guessed from the file name (.json: cfx's own,
    /// XGBoost's, CatBoost's or an EBM's, by its keys; .txt: LightGBM, .pmml/.xml: PMML,
    /// .onnx: ONNX, .csv: an optbinning table).
    #[arg(long, value_parser = format_names())]
    pub format: Option<String>,
    /// The import options as JSON, inline ('{"favourable_class": 0}') or a file: the keys
    /// the C API's importers take (XGBoost/LightGBM: favourable_class, threshold, columns, …;
    /// PMML: favourable_class, cutoff, accept, …; scorecard tables: cutoff (required),
    /// scaling, favourable_class, …).
    #[arg(long, value_name = "JSON|FILE")]
    pub options: Option<String>,
}

fn format_names() -> clap::builder::PossibleValuesParser {
    clap::builder::PossibleValuesParser::new(ModelFormat::ALL.map(|(n, _)| n))
}

impl ModelArgs {
    /// Reads the model onto `schema` (exit 5 when it does not import).
    pub fn load(&self, schema: &Schema) -> Result<LoadedModel, Failure> {
        let format = match &self.format {
            Some(n) => Some(ModelFormat::from_name(n).map_err(Failure::of)?),
            None => None,
        };
        let options = options_text(self.options.as_deref())?;
        load_model(&self.model, format, schema, options.as_deref()).map_err(|e| {
            let mut f = Failure::model(e);
            if f.code == EXIT_MODEL_REFUSED {
                f.message = format!("model '{}': {}", self.model.display(), f.message);
            }
            f
        })
    }
}

/// Refuses an output that names an input before anything runs (exit 2); the
/// library refuses it again where it writes.
pub fn check_output(output: &Path, inputs: &[&Path]) -> Result<(), Failure> {
    cfx::output::check_not_input(output, inputs).map_err(Failure::of)
}

/// Writes bytes to standard output; a closed pipe (`| head`) is not an error.
pub fn print_bytes(bytes: &[u8]) -> Result<(), Failure> {
    let mut out = std::io::stdout().lock();
    match out.write_all(bytes).and_then(|()| out.flush()) {
        Ok(()) => Ok(()),
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => Ok(()),
        Err(e) => Err(Failure::io(format!("writing to standard output: {e}"))),
    }
}

/// [`print_bytes`] for text.
pub fn print(text: &str) -> Result<(), Failure> {
    print_bytes(text.as_bytes())
}

/// Without `--resume`: says on standard error which partial files earlier,
/// interrupted runs of `output` left, and that this run replaces them once
/// complete (the library removes them at the commit,
/// `cfx::output::resume::remove_left_behind`) — a plain rerun of a killed
/// job is what a scheduler does, so it is not refused.
pub fn note_stale_partials(output: &Path, resume: bool) {
    if resume {
        return;
    }
    let stale = cfx::output::stale_partials(output);
    if let Some(first) = stale.first() {
        let more = match stale.len() {
            1 => String::new(),
            n => format!(" and {} more", n - 1),
        };
        eprintln!(
            "cfx: note: '{}'{more} holds the rows of an interrupted run of '{}'; this run starts \
             afresh and removes it once complete (--resume continues it instead)",
            first.display(),
            output.display()
        );
    }
}
