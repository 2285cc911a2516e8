//! Streaming portfolio explanations (issue 14): a whole book of applicants
//! from a CSV file, explained on all cores, one JSON line per applicant.
//!
//! The stream is a pipeline whose only serial work is moving bytes in input
//! order. The calling thread reads raw records, [`PortfolioOptions::chunk_rows`]
//! at a time at most (fewer toward the end of the file, so that the workers
//! finish together), and hands each chunk to a worker; the worker parses its rows
//! (CSV cells, values under the schema), explains the declined and formats
//! every answer as JSON lines into a byte buffer; the calling thread writes the
//! buffers in input order. At most two chunks per worker are in flight and
//! their buffers are reused, so memory is bounded by the chunk size and the
//! thread count, not by the number of rows. With one thread the same steps run
//! on the calling thread. After each chunk written, a progress callback on the
//! calling thread hears how many rows are done and may cancel. The output is
//! byte for byte the same for every thread count and chunk size.
//!
//! The output is written as [`crate::output`] writes every file: an output
//! that is the input (or a link to it) is refused before anything is opened,
//! and the lines go to a partial file renamed over the target only when the
//! run is complete. A cancelled run leaves the target untouched and keeps
//! the rows done, whole lines ending after the last whole chunk, in
//! [`crate::output::partial_path`] (`<output>.cfx-partial`).
//!
//! Each output line is one JSON object, in input order, keys in alphabetical
//! order:
//! * `{"decision": "accepted", "probability": p, "row": k}`;
//! * `{"counterfactual": {"changes", "cost", "probability", "proved_by",
//!   "raw", "status"} | null, "decision": "declined", "outcome": {...},
//!   "probability": p, "proved_by": "separable", "row": k}`; with a
//!   robustness target ([`Config::robustness`]) the counterfactual also holds
//!   its `"invalidation_rate"` Γ (after `"cost"`), which marks robust advice
//!   (its ledger records are kind `robust`); an answer a limit stopped the
//!   search at (its `"status"` not `optimal`: [`Config::node_limit`],
//!   [`Config::time_limit_seconds`]) also holds its proven relative gap
//!   `"mip_gap"` (the optimum costs at least `cost·(1 − mip_gap)`);
//! * `{"error": "...", "row": k}` for a row that cannot be read or explained
//!   (the message names the row and column); the run goes on.
//!
//! `row` counts data records from 0.

mod input;
pub mod summary;

pub(crate) use input::ApplicantsCsv;
use input::{RawChunk, RecordAt, RecordReader, check_width, csv_cells, plain_cells};

use crate::coherent::{Config, Explanation, Outcome, ProvedBy, explain};
use crate::data::row_under_schema_into;
use crate::error::{Error, Result};
use crate::model::Model;
use crate::output::Output;
use crate::schema::{Change, Schema};
use serde::Serialize;
use serde::ser::{SerializeMap, SerializeSeq, Serializer};
use std::collections::BTreeMap;
use std::io::BufRead;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::path::Path;
use std::sync::{Mutex, mpsc};

/// Options of [`explain_portfolio`].
#[derive(Debug, Clone, PartialEq)]
pub struct PortfolioOptions {
    /// Columns of the input that are not features and are to be skipped (the
    /// outcome label, an id); any other column the schema does not know is an
    /// error naming it.
    pub ignore_columns: Vec<String>,
    /// Records read, explained and written at a time, at most (default
    /// 4096); each worker thread takes one such chunk at a time. With more
    /// than one worker the chunks shrink as the end of a regular file comes
    /// near, so that the workers finish together (guided scheduling; a
    /// book smaller than a chunk still runs on every worker). The output
    /// does not depend on the chunks.
    pub chunk_rows: usize,
    /// Resume an interrupted run of the same book (default false): the rows
    /// a cancelled or killed run of this output left in its partial file
    /// ([`crate::output::find_resumable`]) are checked against the input and
    /// kept, and the run goes on from the next row; the output is byte for
    /// byte an uninterrupted run's. Without such a file the run starts at
    /// the first row.
    pub resume: bool,
}

impl Default for PortfolioOptions {
    fn default() -> Self {
        PortfolioOptions {
            ignore_columns: Vec::new(),
            chunk_rows: 4096,
            resume: false,
        }
    }
}

/// What a portfolio run did.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize)]
pub struct PortfolioSummary {
    /// Rows written (every row read before a cancellation).
    pub rows: usize,
    pub accepted: usize,
    pub declined: usize,
    /// Declined applicants with a counterfactual.
    pub with_recourse: usize,
    /// Rows that could not be read or explained.
    pub errors: usize,
    /// The progress callback cancelled the run.
    pub cancelled: bool,
}

impl PortfolioSummary {
    /// Adds the counts of a later chunk.
    fn absorb(&mut self, chunk: &PortfolioSummary) {
        self.rows += chunk.rows;
        self.accepted += chunk.accepted;
        self.declined += chunk.declined;
        self.with_recourse += chunk.with_recourse;
        self.errors += chunk.errors;
    }
}

/// A worker's buffers, reused from row to row and chunk to chunk.
#[derive(Debug, Default)]
struct Scratch {
    raw: Vec<f64>,
    encoded: Vec<f64>,
}

/// What every worker reads: the schema, model and configuration, and where
/// the input's columns are.
struct Stream<'a> {
    schema: &'a Schema,
    model: &'a dyn Model,
    config: &'a Config,
    /// `cols[i]`: the input column of feature `i`.
    cols: Vec<usize>,
    header_len: usize,
}

/// One applicant's answer, before formatting.
enum Answer {
    Accepted { probability: f64 },
    Declined(Box<Explanation>),
    Failed(Error),
}

impl Stream<'_> {
    /// Parses one record into `scratch.raw`: its cells (split in place into
    /// `cells` when plain, through the CSV reader otherwise), then its values under the
    /// schema. Errors name the file line or the data row and column.
    fn parse<'t>(
        &self,
        record: &'t str,
        at: &RecordAt,
        row: usize,
        cells: &mut Vec<&'t str>,
        scratch: &mut Scratch,
    ) -> Result<()> {
        let fields = |n: usize| check_width(n, self.header_len, at.line);
        match plain_cells(record) {
            Some(plain) => {
                cells.clear();
                cells.extend(plain);
                fields(cells.len())?;
                row_under_schema_into(cells, self.schema, &self.cols, row, &mut scratch.raw)
            }
            None => {
                let cells = csv_cells(record)?;
                fields(cells.len())?;
                row_under_schema_into(&cells, self.schema, &self.cols, row, &mut scratch.raw)
            }
        }
    }

    /// The answer for the row in `scratch.raw` (parsed as `parsed` says):
    /// accepted applicants need no explanation; the declined, and rows that
    /// do not encode (the explanation reports why), are explained.
    fn answer(&self, parsed: Result<()>, scratch: &mut Scratch) -> Answer {
        if let Err(e) = parsed {
            return Answer::Failed(e);
        }
        scratch.encoded.resize(self.schema.encoded_dim(), 0.0);
        if self
            .schema
            .encode_into(&scratch.raw, &mut scratch.encoded)
            .is_ok()
        {
            // One score decides and gives the probability (`Model::decide`).
            let (accepted, probability) = self.model.decide(&scratch.encoded);
            if accepted {
                return Answer::Accepted { probability };
            }
        }
        match explain(self.schema, self.model, &scratch.raw, self.config) {
            Ok(ex) => Answer::Declined(Box::new(ex)),
            Err(e) => Answer::Failed(e),
        }
    }

    /// Checks the kept line `line` (the `k`-th of the partial file
    /// `partial`) against the one record of `chunk` and counts it: the same
    /// row, and what this schema and model give that row — the whole line
    /// for an accepted applicant or a row that cannot be read, the decision
    /// and factual probability for a declined one (its counterfactual is
    /// what resuming saves).
    fn check_kept(
        &self,
        chunk: &RawChunk,
        line: &str,
        (partial, k): (&Path, usize),
        scratch: &mut Scratch,
    ) -> Result<PortfolioSummary> {
        let bad = |why: &str| crate::output::resume::line_mismatch(partial, k, why);
        let row = chunk.first_row;
        let at = &chunk.records[0];
        let record = chunk.text[at.range.clone()].trim_end_matches(['\r', '\n']);
        let v: serde_json::Value =
            serde_json::from_str(line).map_err(|_| bad("is not a portfolio line"))?;
        if v.get("row").and_then(|r| r.as_u64()) != Some(row as u64) {
            return Err(bad(&format!("is not row {row} of the input")));
        }
        let mut cells = Vec::with_capacity(self.header_len);
        let parsed = self.parse(record, at, row, &mut cells, scratch);
        let encoded = parsed.is_ok() && {
            scratch.encoded.resize(self.schema.encoded_dim(), 0.0);
            self.schema
                .encode_into(&scratch.raw, &mut scratch.encoded)
                .is_ok()
        };
        let declined = encoded && !self.model.accepts(&scratch.encoded);
        let mut counts = PortfolioSummary {
            rows: 1,
            ..PortfolioSummary::default()
        };
        if declined && v.get("error").is_none() {
            // The declined line: its decision and factual probability.
            let p = serde_json::to_string(&self.model.probability(&scratch.encoded))?;
            let given = line
                .rfind("\"probability\":")
                .map(|i| &line[i + "\"probability\":".len()..])
                .and_then(|rest| rest.split([',', '}']).next());
            if v.get("decision").and_then(|d| d.as_str()) != Some("declined")
                || given != Some(p.as_str())
            {
                return Err(bad(&format!(
                    "is not what this model gives row {row} (declined, probability {p})"
                )));
            }
            counts.declined = 1;
            counts.with_recourse = usize::from(!v["counterfactual"].is_null());
            return Ok(counts);
        }
        // Every other line is written again and compared whole: cheap for
        // the accepted and the unreadable, rare for a failed explanation.
        let answer = if parsed.is_err() || (encoded && !declined) {
            match parsed {
                Err(e) => Answer::Failed(e),
                Ok(()) => Answer::Accepted {
                    probability: self.model.probability(&scratch.encoded),
                },
            }
        } else {
            self.answer(Ok(()), scratch)
        };
        let mut expected = Vec::new();
        write_line(&mut expected, row, &answer);
        if expected.strip_suffix(b"\n") != Some(line.as_bytes()) {
            return Err(bad(&format!(
                "is not what this input and model give row {row}"
            )));
        }
        match &answer {
            Answer::Accepted { .. } => counts.accepted = 1,
            Answer::Failed(_) => counts.errors = 1,
            Answer::Declined(ex) => {
                counts.declined = 1;
                counts.with_recourse = usize::from(!ex.counterfactuals.is_empty());
            }
        }
        Ok(counts)
    }

    /// Parses, explains and formats every record of `chunk` into `out`
    /// (cleared first): the parallel part of the stream.
    fn explain_chunk(
        &self,
        chunk: &RawChunk,
        scratch: &mut Scratch,
        out: &mut Vec<u8>,
    ) -> PortfolioSummary {
        out.clear();
        let mut counts = PortfolioSummary::default();
        let mut cells = Vec::with_capacity(self.header_len);
        for (k, at) in chunk.records.iter().enumerate() {
            let row = chunk.first_row + k;
            let record = chunk.text[at.range.clone()].trim_end_matches(['\r', '\n']);
            let parsed = self.parse(record, at, row, &mut cells, scratch);
            let answer = self.answer(parsed, scratch);
            match &answer {
                Answer::Accepted { .. } => counts.accepted += 1,
                Answer::Failed(_) => counts.errors += 1,
                Answer::Declined(ex) => {
                    counts.declined += 1;
                    if !ex.counterfactuals.is_empty() {
                        counts.with_recourse += 1;
                    }
                }
            }
            write_line(out, row, &answer);
            counts.rows += 1;
        }
        counts
    }
}

/// An accepted applicant's line (keys in alphabetical order, as every line).
#[derive(Serialize)]
struct AcceptedLine {
    decision: &'static str,
    probability: f64,
    row: usize,
}

/// The line of a row that could not be read or explained.
#[derive(Serialize)]
struct ErrorLine<'a> {
    error: &'a str,
    row: usize,
}

/// A declined applicant's line.
#[derive(Serialize)]
struct DeclinedLine<'a> {
    counterfactual: Option<CounterfactualJson<'a>>,
    decision: &'static str,
    outcome: OutcomeJson<'a>,
    probability: f64,
    proved_by: ProvedBy,
    row: usize,
}

/// The optimal counterfactual of a declined line.
#[derive(Serialize)]
struct CounterfactualJson<'a> {
    changes: ChangesJson<'a>,
    cost: f64,
    /// Γ of robust advice ([`Config::robustness`]); absent otherwise, so
    /// that plain lines are unchanged.
    #[serde(skip_serializing_if = "Option::is_none")]
    invalidation_rate: Option<f64>,
    /// The proven relative gap of an answer a limit stopped the search at
    /// (the optimum costs at least `cost·(1 − mip_gap)`); absent on a proven
    /// optimum, so that those lines are unchanged.
    #[serde(skip_serializing_if = "Option::is_none")]
    mip_gap: Option<f64>,
    probability: f64,
    proved_by: ProvedBy,
    raw: &'a [f64],
    status: OutcomeJson<'a>,
}

/// An [`Outcome`] with its keys in alphabetical order.
struct OutcomeJson<'a>(&'a Outcome);

impl Serialize for OutcomeJson<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> std::result::Result<S::Ok, S::Error> {
        match self.0 {
            // The common answer, written without an intermediate value.
            Outcome::Optimal => {
                let mut m = s.serialize_map(Some(1))?;
                m.serialize_entry("status", "optimal")?;
                m.end()
            }
            // A value's map sorts its keys.
            other => serde_json::to_value(other)
                .map_err(serde::ser::Error::custom)?
                .serialize(s),
        }
    }
}

/// A change list, each change's keys in alphabetical order.
struct ChangesJson<'a>(&'a [Change]);

impl Serialize for ChangesJson<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> std::result::Result<S::Ok, S::Error> {
        #[derive(Serialize)]
        struct ChangeJson<'a> {
            feature: usize,
            from: f64,
            from_text: &'a str,
            name: &'a str,
            to: f64,
            to_text: &'a str,
        }
        let mut seq = s.serialize_seq(Some(self.0.len()))?;
        for c in self.0 {
            seq.serialize_element(&ChangeJson {
                feature: c.feature,
                from: c.from,
                from_text: &c.from_text,
                name: &c.name,
                to: c.to,
                to_text: &c.to_text,
            })?;
        }
        seq.end()
    }
}

/// Appends the JSON line of row `row` to `out`.
fn write_line(out: &mut Vec<u8>, row: usize, answer: &Answer) {
    let start = out.len();
    let written = match answer {
        Answer::Accepted { probability } => serde_json::to_writer(
            &mut *out,
            &AcceptedLine {
                decision: "accepted",
                probability: *probability,
                row,
            },
        ),
        Answer::Failed(e) => serde_json::to_writer(
            &mut *out,
            &ErrorLine {
                error: &e.to_string(),
                row,
            },
        ),
        Answer::Declined(ex) => serde_json::to_writer(
            &mut *out,
            &DeclinedLine {
                counterfactual: ex.counterfactuals.first().map(|c| CounterfactualJson {
                    changes: ChangesJson(&c.changes),
                    cost: c.cost,
                    invalidation_rate: c.invalidation_rate,
                    mip_gap: (c.status != Outcome::Optimal).then_some(c.mip_gap),
                    probability: c.probability,
                    proved_by: c.proved_by,
                    raw: &c.raw,
                    status: OutcomeJson(&c.status),
                }),
                decision: "declined",
                outcome: OutcomeJson(&ex.outcome),
                probability: ex.factual_probability,
                proved_by: ex.proved_by,
                row,
            },
        ),
    };
    if let Err(e) = written {
        // Not expected (numbers, strings and maps only); the row still gets
        // one whole line.
        out.truncate(start);
        let error = format!("cannot format the answer: {e}");
        let _ = serde_json::to_writer(&mut *out, &ErrorLine { error: &error, row });
    }
    out.push(b'\n');
}

/// A chunk explained by a worker, on its way back to the writer.
struct Explained {
    seq: usize,
    chunk: RawChunk,
    out: Vec<u8>,
    /// The chunk's counts, or the worker's panic (raised again on the
    /// calling thread, as one thread would have raised it).
    counts: std::thread::Result<PortfolioSummary>,
}

/// Explains every applicant of the CSV file `input` (a header naming the
/// schema's features, categorical levels by name) and writes one JSON line per
/// applicant to `output` (created, or replaced once complete). `progress(rows_done)` is
/// called on the calling thread after each chunk; returning `false` cancels
/// the run: `output` is then untouched and the rows done are kept in
/// `<output>.cfx-partial` ([`crate::output::partial_path`]). [`Config::batch_threads`] workers (0: all cores) parse, explain
/// and format chunks; the output does not depend on their number.
///
/// Errors (nothing is explained, `output` is untouched): `output` naming the input (the same file,
/// a symbolic or hard link to it), a bad configuration, a model other than a linear (logistic) model, a tree ensemble or a ReLU network, an
/// unreadable input or unwritable output, a header missing a feature or naming
/// a column neither a feature nor in [`PortfolioOptions::ignore_columns`],
/// robust advice asked of a ReLU network.
/// Errors of single rows are lines of the output, not errors of the call.
pub fn explain_portfolio(
    schema: &Schema,
    model: &dyn Model,
    input: &Path,
    output: &Path,
    config: &Config,
    options: &PortfolioOptions,
    progress: &mut dyn FnMut(usize) -> bool,
) -> Result<PortfolioSummary> {
    crate::output::check_not_input(output, &[input])?;
    config.validate()?;
    if options.chunk_rows == 0 {
        return Err(Error::InvalidArgument(
            "chunk_rows must be at least 1".into(),
        ));
    }
    crate::model::check_model_for_schema(model, schema, "the schema")?;
    if model.as_linear().is_none() && model.as_trees().is_none() && model.as_mlp().is_none() {
        return Err(Error::InvalidArgument(
            "the portfolio stream needs a linear (logistic) model, a tree ensemble or a ReLU \
             network"
                .into(),
        ));
    }
    // Refused once here rather than on every declined row's line.
    if config.robustness.is_some() && model.as_linear().is_none() && model.as_trees().is_none() {
        return Err(Error::InvalidArgument(
            "robust advice (Config::robustness) in a portfolio needs a linear (logistic) model \
             or a tree ensemble; a ReLU network's book runs without it"
                .into(),
        ));
    }
    let applicants = ApplicantsCsv::open(input)?;
    let cols = applicants.feature_columns(
        schema,
        |c| options.ignore_columns.iter().any(|i| i == c),
        "",
    )?;
    let header_len = applicants.header().len();
    let run = run_record(schema, model, config, applicants.header())?;
    let resumable = if options.resume {
        crate::output::find_resumable(output, &run)?
    } else {
        None
    };
    let mut out = Output::create_resumable(output, &[input], &run)?;
    let stream = Stream {
        schema,
        model,
        config,
        cols,
        header_len,
    };
    let mut records = applicants.into_records();
    let threads = if config.batch_threads == 0 {
        std::thread::available_parallelism().map_or(1, |n| n.get())
    } else {
        config.batch_threads
    };
    let mut summary = PortfolioSummary::default();
    if let Some(from) = &resumable {
        // The kept rows, checked and copied; the run goes on after them.
        let (mut chunk, mut scratch) = Default::default();
        for (k, line) in from.lines()?.enumerate() {
            let line = line?;
            records.fill(&mut chunk, 1)?;
            if chunk.records.is_empty() {
                return Err(crate::output::resume::line_mismatch(
                    &from.partial,
                    k,
                    "is beyond the input's last row",
                ));
            }
            let counts = stream.check_kept(&chunk, &line, (&from.partial, k), &mut scratch)?;
            out.write_all(line.as_bytes())?;
            out.write_all(b"\n")?;
            summary.absorb(&counts);
        }
    }
    // Writes one explained chunk and asks whether to go on.
    let mut deliver = |bytes: &[u8], counts: &PortfolioSummary| -> Result<bool> {
        out.write_all(bytes)?;
        summary.absorb(counts);
        Ok(progress(summary.rows))
    };
    let go_on = if threads == 1 {
        let (mut chunk, mut scratch, mut bytes) = Default::default();
        loop {
            records.fill(&mut chunk, options.chunk_rows)?;
            if chunk.records.is_empty() {
                break true;
            }
            let counts = stream.explain_chunk(&chunk, &mut scratch, &mut bytes);
            if !deliver(&bytes, &counts)? {
                break false;
            }
        }
    } else {
        in_parallel(
            &stream,
            &mut records,
            threads,
            options.chunk_rows,
            &mut deliver,
        )?
    };
    summary.cancelled = !go_on;
    if go_on {
        out.commit()?;
    } else {
        out.keep_partial()?;
    }
    if let Some(from) = resumable
        && (go_on || from.partial != crate::output::partial_path(output))
    {
        // Its rows are in the output now, or in the kept file (which
        // replaced it when it was the kept file itself).
        from.remove();
    }
    Ok(summary)
}

/// What a portfolio run is, for resuming it ([`crate::output::RunRecord`]):
/// the fingerprints of the schema and model, the configuration without its
/// thread count (which does not change the output) and the input's header.
fn run_record(
    schema: &Schema,
    model: &dyn Model,
    config: &Config,
    header: &[String],
) -> Result<crate::output::RunRecord> {
    use crate::model::AnyModel;
    let any = if let Some(m) = model.as_linear() {
        AnyModel::Linear(m.clone())
    } else if let Some(m) = model.as_trees() {
        AnyModel::Trees(m.clone())
    } else if let Some(m) = model.as_mlp() {
        AnyModel::Mlp(m.clone())
    } else {
        return Err(Error::InvalidArgument(
            "the portfolio stream needs a linear (logistic) model, a tree ensemble or a ReLU \
             network"
                .into(),
        ));
    };
    Ok(crate::output::RunRecord::new(
        "portfolio",
        crate::json::schema_fingerprint(schema),
        crate::json::model_fingerprint(&any),
        settings_of(config)?,
        crate::json::fingerprint(&header.join("\u{1f}")),
    ))
}

/// The settings of `config` that change a book run's lines: all but the
/// thread count of the batch.
pub(crate) fn settings_of(config: &Config) -> Result<serde_json::Value> {
    let mut c = *config;
    c.batch_threads = 0;
    Ok(serde_json::to_value(c)?)
}

/// The pipeline on `threads` workers: this thread reads chunks of raw records
/// and hands them out (at most two per worker in flight, their buffers
/// reused), and delivers the explained chunks in input order. Returns whether
/// the run went to the end (`false`: `deliver` cancelled it).
fn in_parallel<R: BufRead>(
    stream: &Stream<'_>,
    records: &mut RecordReader<R>,
    threads: usize,
    chunk_rows: usize,
    deliver: &mut dyn FnMut(&[u8], &PortfolioSummary) -> Result<bool>,
) -> Result<bool> {
    let window = 2 * threads;
    // Both queues hold a whole window, so no send ever waits.
    let (to_workers, jobs) = mpsc::sync_channel::<(usize, RawChunk, Vec<u8>)>(window);
    let jobs = Mutex::new(jobs);
    let (to_writer, explained) = mpsc::sync_channel::<Explained>(window);
    std::thread::scope(|s| {
        // This thread's ends of both queues go when it returns (also early,
        // on a cancellation or an error): a worker then finishes at most the
        // chunk it holds, whose answer has nowhere to go, and stops instead
        // of draining the queue.
        let (to_workers, explained) = (to_workers, explained);
        for _ in 0..threads {
            let (jobs, to_writer) = (&jobs, to_writer.clone());
            crate::workers::spawn(s, move || {
                let mut scratch = Scratch::default();
                loop {
                    // A worker ends when the reader has gone (the run is over)
                    // or the writer has (it stopped early).
                    let job = match jobs.lock() {
                        Ok(rx) => rx.recv(),
                        Err(_) => return,
                    };
                    let Ok((seq, chunk, mut out)) = job else {
                        return;
                    };
                    let counts = catch_unwind(AssertUnwindSafe(|| {
                        stream.explain_chunk(&chunk, &mut scratch, &mut out)
                    }));
                    let panicked = counts.is_err();
                    let sent = to_writer.send(Explained {
                        seq,
                        chunk,
                        out,
                        counts,
                    });
                    if sent.is_err() || panicked {
                        return;
                    }
                }
            });
        }
        drop(to_writer);
        let stopped = || Error::Solver("internal: the portfolio workers stopped".into());
        let mut free: Vec<(RawChunk, Vec<u8>)> = Vec::new();
        let mut waiting: BTreeMap<usize, Explained> = BTreeMap::new();
        let (mut sent, mut written, mut at_end) = (0usize, 0usize, false);
        loop {
            while !at_end && sent - written < window {
                let (mut chunk, out) = free.pop().unwrap_or_default();
                records.fill_balanced(&mut chunk, chunk_rows, threads)?;
                if chunk.records.is_empty() {
                    at_end = true;
                    break;
                }
                to_workers.send((sent, chunk, out)).map_err(|_| stopped())?;
                sent += 1;
            }
            if written == sent {
                return Ok(true);
            }
            let next = loop {
                if let Some(e) = waiting.remove(&written) {
                    break e;
                }
                let e = explained.recv().map_err(|_| stopped())?;
                waiting.insert(e.seq, e);
            };
            let counts = match next.counts {
                Ok(c) => c,
                Err(panic) => std::panic::resume_unwind(panic),
            };
            written += 1;
            let go_on = deliver(&next.out, &counts)?;
            free.push((next.chunk, next.out));
            if !go_on {
                return Ok(false);
            }
        }
    })
}
