//! Resuming a book run from its partial file (issue 41): which partial file,
//! and whether it belongs to the run that wants to resume.
//!
//! A resumable run ([`super::Output::create_resumable`]: the portfolio
//! stream, the ledger re-validation) writes a *run record* beside its partial
//! file before any line: `<partial>` with [`super::RUN_SUFFIX`] for
//! [`super::PARTIAL_SUFFIX`], one JSON line naming the run's kind, the cfx
//! version, the schema's and model's fingerprints, the settings that change
//! the output and the input's header. The record goes with the partial file:
//! removed with it, kept with it (`<output>.cfx-run` beside
//! `<output>.cfx-partial` after a cancellation), left with it by a killed
//! process.
//!
//! The rule ([`find_resumable`]): the candidates are the cancelled run's
//! `<output>.cfx-partial` and the hidden `.<name>.<pid>-<n>-<nanos>.cfx-partial`
//! files beside the target whose process `<pid>` is gone (a killed run's; a
//! running writer's file is never taken), each with its run record; the
//! newest (modification time) is taken. A candidate without a readable
//! record is not cfx's resumable file and is left alone. The taken record
//! must equal the resuming run's, field by field, else the resume is refused
//! naming the field. The caller then checks every whole line against its
//! input (a torn last line is dropped) and copies it into its own new partial
//! file: the file resumed from is only read, and removed once the resumed run
//! is committed or kept. A partial file is never renamed over a target
//! without the rest of the run, so it cannot be mistaken for a finished one.

use super::{PARTIAL_SUFFIX, RUN_SUFFIX, partial_path, resolve};
use crate::error::{Error, Result};
use serde::{Deserialize, Serialize};
use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};

/// The run record's format name.
const RUN_FORMAT: &str = "cfx-run";
/// The run record's format version.
const RUN_VERSION: u32 = 1;

/// What a resumable run is (module docs): two runs whose records are equal
/// write the same line for the same input row.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RunRecord {
    /// Always `"cfx-run"`.
    pub format: String,
    /// Always 1.
    pub format_version: u32,
    /// `"portfolio"` or `"revalidation"`.
    pub run: String,
    /// The cfx version that wrote the lines (another may format them
    /// otherwise).
    pub cfx_version: String,
    /// Fingerprint of the schema ([`crate::json::schema_fingerprint`]).
    pub schema: String,
    /// Fingerprint of the model ([`crate::json::model_fingerprint`]).
    pub model: String,
    /// The settings that change the output (the configuration without its
    /// thread count), as a JSON object.
    pub settings: serde_json::Value,
    /// Fingerprint of the input's header (empty for a ledger, which has
    /// none: its records are checked by id).
    pub input: String,
}

impl RunRecord {
    /// The record of a `run` under these fingerprints and settings.
    pub fn new(
        run: &str,
        schema: String,
        model: String,
        settings: serde_json::Value,
        input: String,
    ) -> RunRecord {
        RunRecord {
            format: RUN_FORMAT.into(),
            format_version: RUN_VERSION,
            run: run.into(),
            cfx_version: env!("CARGO_PKG_VERSION").into(),
            schema,
            model,
            settings,
            input,
        }
    }

    /// One JSON line (no line end).
    pub fn to_json(&self) -> String {
        serde_json::to_string(self).expect("a run record serialises")
    }

    fn read(path: &Path) -> Option<RunRecord> {
        let text = std::fs::read_to_string(path).ok()?;
        let r: RunRecord = serde_json::from_str(text.trim()).ok()?;
        (r.format == RUN_FORMAT && r.format_version == RUN_VERSION).then_some(r)
    }

    /// Why lines written under `self` are not what a run under `now` would
    /// write; `None` when they are.
    fn mismatch(&self, now: &RunRecord) -> Option<String> {
        if self.run != now.run {
            return Some(format!("by a {} run, not a {} run", self.run, now.run));
        }
        if self.cfx_version != now.cfx_version {
            return Some(format!(
                "by cfx {}, not this cfx {}",
                self.cfx_version, now.cfx_version
            ));
        }
        if self.schema != now.schema {
            return Some(format!(
                "under another schema ({}, not {})",
                self.schema, now.schema
            ));
        }
        if self.model != now.model {
            return Some(format!(
                "under another model ({}, not {})",
                self.model, now.model
            ));
        }
        if self.input != now.input {
            return Some(format!(
                "from an input with another header ({}, not {})",
                self.input, now.input
            ));
        }
        if self.settings != now.settings {
            let (a, b) = (self.settings.as_object(), now.settings.as_object());
            let mut keys: Vec<&String> = a.iter().chain(b.iter()).flat_map(|m| m.keys()).collect();
            keys.sort();
            keys.dedup();
            let differ: Vec<String> = keys
                .into_iter()
                .filter(|k| a.and_then(|m| m.get(*k)) != b.and_then(|m| m.get(*k)))
                .map(|k| {
                    let show = |m: Option<&serde_json::Map<String, serde_json::Value>>| {
                        m.and_then(|m| m.get(k))
                            .map_or("unset".to_string(), |v| v.to_string())
                    };
                    format!("{k} {} (now {})", show(a), show(b))
                })
                .collect();
            return Some(format!("with other settings: {}", differ.join(", ")));
        }
        None
    }
}

/// The run record beside the partial file `partial`: its name with
/// [`RUN_SUFFIX`] for [`PARTIAL_SUFFIX`] (`<output>.cfx-partial` →
/// `<output>.cfx-run`).
pub fn run_record_path(partial: &Path) -> PathBuf {
    let name = partial
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let stem = name.strip_suffix(PARTIAL_SUFFIX).unwrap_or(&name);
    partial.with_file_name(format!("{stem}{RUN_SUFFIX}"))
}

/// A partial file a run resumes from ([`find_resumable`]).
#[derive(Debug)]
pub struct Resumable {
    /// The partial file.
    pub partial: PathBuf,
}

impl Resumable {
    /// The file's whole lines, without their line ends, in order; a last
    /// line without its line end (torn by a kill) is left out.
    pub fn lines(&self) -> Result<impl Iterator<Item = Result<String>> + '_> {
        let file = std::fs::File::open(&self.partial)
            .map_err(|e| Error::Io(format!("cannot read '{}': {e}", self.partial.display())))?;
        let mut reader = BufReader::new(file);
        let mut buf = Vec::new();
        Ok(std::iter::from_fn(move || {
            buf.clear();
            match reader.read_until(b'\n', &mut buf) {
                Err(e) => Some(Err(Error::Io(format!(
                    "cannot read '{}': {e}",
                    self.partial.display()
                )))),
                Ok(0) => None,
                Ok(_) if buf.last() != Some(&b'\n') => None,
                Ok(_) => {
                    buf.pop();
                    Some(String::from_utf8(buf.clone()).map_err(|_| {
                        Error::InvalidArgument(format!(
                            "cannot resume from '{}': a line is not UTF-8 text",
                            self.partial.display()
                        ))
                    }))
                }
            }
        }))
    }

    /// Removes the partial file and its record (once the resumed run holds
    /// its lines in a committed or kept file of its own).
    pub fn remove(&self) {
        let _ = std::fs::remove_file(&self.partial);
        let _ = std::fs::remove_file(run_record_path(&self.partial));
    }
}

/// Whether process `pid` is running (or exists under another user).
fn alive(pid: u32) -> bool {
    let Ok(pid) = i32::try_from(pid) else {
        return false;
    };
    // SAFETY: signal 0 sends nothing; it only asks whether `pid` exists.
    let r = unsafe { libc::kill(pid, 0) };
    r == 0 || std::io::Error::last_os_error().raw_os_error() == Some(libc::EPERM)
}

/// The process id in a hidden partial file's name
/// `.<name>.<pid>-<n>-<nanos>.cfx-partial` of the target named `name`.
fn hidden_pid(file: &str, name: &str) -> Option<u32> {
    let middle = file
        .strip_prefix('.')?
        .strip_prefix(name)?
        .strip_prefix('.')?
        .strip_suffix(PARTIAL_SUFFIX)?;
    let mut parts = middle.split('-');
    let pid = parts.next()?.parse::<u32>().ok()?;
    let n_ok = parts.next()?.bytes().all(|b| b.is_ascii_digit());
    let nanos = parts.next()?;
    let nanos_ok = !nanos.is_empty() && nanos.bytes().all(|b| b.is_ascii_hexdigit());
    (n_ok && nanos_ok && parts.next().is_none()).then_some(pid)
}

/// The partial files earlier runs of `output` left behind, whether there or
/// not (module docs, the rule: the cancelled run's `<output>.cfx-partial`,
/// and every hidden one whose process is gone); `None` when `output` names
/// no file.
fn left_behind(output: &Path) -> Option<Vec<PathBuf>> {
    let target = resolve(output);
    let name = target.file_name()?.to_string_lossy().into_owned();
    let dir = match target.parent() {
        Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
        _ => PathBuf::from("."),
    };
    let mut candidates: Vec<PathBuf> = vec![partial_path(output)];
    if let Ok(entries) = std::fs::read_dir(&dir) {
        for e in entries.flatten() {
            let file = e.file_name().to_string_lossy().into_owned();
            if let Some(pid) = hidden_pid(&file, &name)
                && pid != std::process::id()
                && !alive(pid)
            {
                candidates.push(dir.join(file));
            }
        }
    }
    Some(candidates)
}

/// The partial files earlier, interrupted runs of `output` left beside it
/// (cancelled or killed; a running writer's file is never one), that exist.
/// A run that does not resume tells its caller of them
/// (`cfx book` prints a note) and, once its own output is complete, removes
/// them ([`remove_left_behind`]).
pub fn stale_partials(output: &Path) -> Vec<PathBuf> {
    left_behind(output)
        .unwrap_or_default()
        .into_iter()
        .filter(|p| std::fs::symlink_metadata(p).is_ok_and(|m| m.is_file()))
        .collect()
}

/// Removes the partial files ([`stale_partials`]) and their run records that
/// earlier, interrupted runs of `output` left, once a run has made `output`
/// complete: the finished file supersedes them (a run's lines are
/// deterministic, so nothing is lost that a rerun cannot write again), and a
/// scheduler's plain rerun of a killed job then leaves a clean folder —
/// neither refusing to run (a retry that fails until a person deletes files)
/// nor leaving files that a later `--resume` would take for this output's.
/// Best effort: a file that cannot be removed stays, and is still checked
/// against its run record by a resume.
pub fn remove_left_behind(output: &Path) {
    for p in stale_partials(output) {
        let _ = std::fs::remove_file(run_record_path(&p));
        let _ = std::fs::remove_file(&p);
    }
}

/// The partial file a run that writes `output` and is described by `now`
/// resumes from (module docs, the rule), or `None` when there is none.
/// `InvalidArgument` when the newest candidate was written by another run
/// (another kind, cfx version, schema, model, input header or settings),
/// naming the file and the difference.
pub fn find_resumable(output: &Path, now: &RunRecord) -> Result<Option<Resumable>> {
    let Some(candidates) = left_behind(output) else {
        return Ok(None);
    };
    let newest = candidates
        .into_iter()
        .filter_map(|p| {
            let m = std::fs::metadata(&p).ok().filter(|m| m.is_file())?;
            let record = RunRecord::read(&run_record_path(&p))?;
            Some((m.modified().ok(), p, record))
        })
        .max_by(|a, b| a.0.cmp(&b.0).then_with(|| a.1.cmp(&b.1)));
    let Some((_, partial, record)) = newest else {
        return Ok(None);
    };
    if let Some(why) = record.mismatch(now) {
        return Err(Error::InvalidArgument(format!(
            "cannot resume '{}' from '{}': its rows were written {why}; resume with the \
             run that wrote them, or remove that file (and its .cfx-run record) to start over",
            output.display(),
            partial.display()
        )));
    }
    Ok(Some(Resumable { partial }))
}

/// The error of a partial file whose line `k` does not belong to the input.
pub fn line_mismatch(partial: &Path, k: usize, why: &str) -> Error {
    Error::InvalidArgument(format!(
        "cannot resume from '{}': its line {} {why}; it was not written from this input \
         (remove it to start over)",
        partial.display(),
        k + 1
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hidden_names_give_their_process_and_others_none() {
        assert_eq!(
            hidden_pid(".out.jsonl.123-4-1af.cfx-partial", "out.jsonl"),
            Some(123)
        );
        assert_eq!(hidden_pid("out.jsonl.cfx-partial", "out.jsonl"), None);
        assert_eq!(
            hidden_pid(".out.jsonl.123-4-1af.cfx-partial", "out.json"),
            None
        );
        assert_eq!(
            hidden_pid(".out.jsonl.x-4-1af.cfx-partial", "out.jsonl"),
            None
        );
        assert_eq!(
            run_record_path(Path::new("/a/.o.1-2-3.cfx-partial")),
            Path::new("/a/.o.1-2-3.cfx-run")
        );
    }

    #[test]
    fn a_mismatch_names_the_field() {
        let a = RunRecord::new(
            "portfolio",
            "s".into(),
            "m".into(),
            serde_json::json!({"margin": 1e-6}),
            "h".into(),
        );
        assert_eq!(a.mismatch(&a.clone()), None);
        let mut b = a.clone();
        b.model = "m2".into();
        assert!(a.mismatch(&b).unwrap().contains("another model"));
        let mut b = a.clone();
        b.settings = serde_json::json!({"margin": 0.1});
        let why = a.mismatch(&b).unwrap();
        assert!(why.contains("margin 1e-6 (now 0.1)"), "{why}");
    }
}
