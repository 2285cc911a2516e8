//! Every file cfx writes goes through this module (issue 41): the one place
//! that decides whether an output path may be written and how.
//!
//! Two rules, for every writer (portfolio stream, ledger from a portfolio,
//! ledger re-validation, SVG charts, policies):
//!
//! 1. **Never over an input.** Before anything is opened, an output that is
//!    one of the call's input files is refused with
//!    [`Error::InvalidArgument`] naming both paths: the same path, the same
//!    path spelled with `./` or `..`, a symbolic link to the input, or a hard
//!    link to it (same device and inode). The file a cancelled run keeps its
//!    rows in ([`partial_path`]) must not be an input either.
//! 2. **Nothing unfinished looks finished.** The bytes go to a new file beside
//!    the target, `.<name>.<pid>-<n>-<nanos>.cfx-partial` (created exclusively, so two
//!    runs never share one), which is flushed, synced to disk and renamed over
//!    the target only when the whole output is written; the folder is then
//!    synced so the rename itself survives a power cut. A run that fails
//!    (unreadable row stream, full disk, …) removes its partial file; a run
//!    that is killed leaves it, named as unfinished. Either way the target is
//!    exactly what it was before the run — absent, or the previous complete
//!    output. A cancelled portfolio run keeps the rows it did in [`partial_path`]
//!    (`<name>.cfx-partial`) and leaves the target untouched too.
//!
//! A book run ([`Output::create_resumable`]) also writes a run record beside
//! its partial file (`….cfx-run`), so that a later run can resume from the
//! rows it did ([`resume`]: which partial file, and whether it belongs to the
//! resuming run). A run that completes its target — resuming or not —
//! removes the partial files (and records) that interrupted runs of the same
//! target left ([`resume::remove_left_behind`]): the complete file
//! supersedes them.
//!
//! A target that is a symbolic link is written through: the link stays and
//! the file it points to is replaced. An existing target this process may
//! not write (read-only) is refused, as opening it would be, rather than
//! replaced. A target that exists and is not a
//! regular file (`/dev/null`, `/dev/full`, a named pipe) cannot be replaced
//! by a rename and is written directly; an error then still fails the call.
//!
//! The partial file is named `.<name>.<pid>-<n>-<nanos>.cfx-partial` and
//! created with `O_EXCL` (another name is tried if it exists). It is not the
//! `tempfile` crate's: that crate names files from `fastrand`'s thread-local
//! generator, whose seeding calls `std::thread::current()` and so leaves
//! std's record of a C caller's thread behind on every thread that writes a
//! file — a leak the C ABI promises not to have (`tests/c_abi.rs` runs the C
//! examples under valgrind).

use crate::error::{Error, Result};
use std::ffi::OsString;
use std::fs::{File, Permissions};
use std::io::{BufWriter, Write};
use std::os::unix::fs::{MetadataExt, PermissionsExt};
use std::path::{Component, Path, PathBuf};

pub mod resume;
pub use resume::{Resumable, RunRecord, find_resumable, run_record_path, stale_partials};

/// What the record of a resumable run's partial file ends with
/// ([`run_record_path`]).
pub const RUN_SUFFIX: &str = ".cfx-run";

/// What a partial file's name ends with.
pub const PARTIAL_SUFFIX: &str = ".cfx-partial";

/// The file a cancelled portfolio run ([`crate::portfolio::explain_portfolio`])
/// keeps its finished rows in: `<output>.cfx-partial`, beside the file
/// `output` resolves to (through a symbolic link).
pub fn partial_path(output: &Path) -> PathBuf {
    let target = resolve(output);
    let mut name: OsString = target.file_name().map(OsString::from).unwrap_or_default();
    name.push(PARTIAL_SUFFIX);
    target.with_file_name(name)
}

/// Refuses `output` (an `InvalidArgument` naming both paths) when it, or the
/// partial file [`partial_path`] of it, is one of `inputs`: the same path up
/// to `.` and `..`, a symbolic link to it or a hard link to it. Opens nothing.
pub fn check_not_input(output: &Path, inputs: &[&Path]) -> Result<()> {
    let partial = partial_path(output);
    for input in inputs {
        if same_file(output, input) {
            return Err(Error::InvalidArgument(format!(
                "the output '{}' is the input '{}': writing it would destroy the input; \
                 write the output to another file",
                output.display(),
                input.display()
            )));
        }
        if same_file(&partial, input) || same_file(&run_record_path(&partial), input) {
            return Err(Error::InvalidArgument(format!(
                "the output '{}' keeps unfinished rows in '{}', which is the input '{}': \
                 write the output to another file",
                output.display(),
                partial.display(),
                input.display()
            )));
        }
    }
    Ok(())
}

/// Whether `a` and `b` name one file: the same device and inode when both
/// exist (through symbolic links), else the same absolute path once `.` and
/// `..` are resolved lexically.
fn same_file(a: &Path, b: &Path) -> bool {
    match (std::fs::metadata(a), std::fs::metadata(b)) {
        (Ok(ma), Ok(mb)) => ma.dev() == mb.dev() && ma.ino() == mb.ino(),
        _ => lexical(a) == lexical(b),
    }
}

/// `path` made absolute with `.` dropped and `..` taking off one component.
fn lexical(path: &Path) -> PathBuf {
    let absolute = std::path::absolute(path).unwrap_or_else(|_| path.to_path_buf());
    let mut out = PathBuf::new();
    for c in absolute.components() {
        match c {
            Component::CurDir => {}
            Component::ParentDir => {
                out.pop();
            }
            other => out.push(other),
        }
    }
    out
}

/// The file `output` stands for: the file a symbolic link points to when it
/// resolves, else `output` itself.
fn resolve(output: &Path) -> PathBuf {
    match std::fs::symlink_metadata(output) {
        Ok(m) if m.file_type().is_symlink() => {
            std::fs::canonicalize(output).unwrap_or_else(|_| output.to_path_buf())
        }
        _ => output.to_path_buf(),
    }
}

/// A partial file beside the target, removed when dropped unless it was
/// renamed.
struct PartialFile {
    file: File,
    path: PathBuf,
    /// The run record beside it ([`run_record_path`]), for a resumable run.
    record: Option<PathBuf>,
    renamed: bool,
}

impl PartialFile {
    /// Creates `.<name>.<pid>-<n>-<nanos>.cfx-partial` in `dir`, exclusively.
    fn create(dir: &Path, name: &str, mode: u32) -> std::io::Result<PartialFile> {
        use std::os::unix::fs::OpenOptionsExt;
        use std::sync::atomic::{AtomicU64, Ordering};
        static NEXT: AtomicU64 = AtomicU64::new(0);
        for _ in 0..64 {
            let n = NEXT.fetch_add(1, Ordering::Relaxed);
            let nanos = std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map_or(0, |d| d.subsec_nanos());
            let path = dir.join(format!(
                ".{name}.{}-{n}-{nanos:x}{PARTIAL_SUFFIX}",
                std::process::id()
            ));
            match std::fs::OpenOptions::new()
                .write(true)
                .create_new(true)
                .mode(mode)
                .open(&path)
            {
                Ok(file) => {
                    return Ok(PartialFile {
                        file,
                        path,
                        record: None,
                        renamed: false,
                    });
                }
                Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => continue,
                Err(e) => return Err(e),
            }
        }
        Err(std::io::Error::new(
            std::io::ErrorKind::AlreadyExists,
            "no free name for a partial file",
        ))
    }

    /// Writes the run record `record` beside the file (created
    /// exclusively, synced) before any line is written, so a partial file
    /// with lines always has its record.
    fn write_record(&mut self, record: &RunRecord) -> std::io::Result<()> {
        use std::os::unix::fs::OpenOptionsExt;
        let path = run_record_path(&self.path);
        let mut f = std::fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .mode(0o666)
            .open(&path)?;
        self.record = Some(path);
        f.write_all(record.to_json().as_bytes())?;
        f.write_all(b"\n")?;
        f.sync_all()
    }

    /// Renames the file to `to` (replacing what is there); its run record,
    /// if any, is removed: a finished file needs none.
    fn rename(mut self, to: &Path) -> std::io::Result<()> {
        std::fs::rename(&self.path, to)?;
        self.renamed = true;
        Ok(())
    }

    /// Renames the file to `to` and its run record to the record path of
    /// `to`. Whatever `to` held goes first (and its record), so a crash
    /// between the renames never pairs a kept file with another run's
    /// record.
    fn rename_with_record(mut self, to: &Path) -> std::io::Result<()> {
        let to_record = run_record_path(to);
        remove_if_there(to)?;
        remove_if_there(&to_record)?;
        if let Some(record) = self.record.take() {
            std::fs::rename(&record, &to_record)?;
        }
        std::fs::rename(&self.path, to)?;
        self.renamed = true;
        Ok(())
    }
}

fn remove_if_there(path: &Path) -> std::io::Result<()> {
    match std::fs::remove_file(path) {
        Err(e) if e.kind() != std::io::ErrorKind::NotFound => Err(e),
        _ => Ok(()),
    }
}

impl Drop for PartialFile {
    fn drop(&mut self) {
        if !self.renamed {
            let _ = std::fs::remove_file(&self.path);
        }
        if let Some(record) = &self.record {
            let _ = std::fs::remove_file(record);
        }
    }
}

/// Where the bytes go until the output is complete.
enum Sink {
    /// A fresh file beside the target, renamed over it at the end.
    Partial(PartialFile),
    /// A target that is no regular file (a device, a pipe), written directly.
    Direct(File),
}

impl Write for Sink {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        match self {
            Sink::Partial(f) => f.file.write(buf),
            Sink::Direct(f) => f.write(buf),
        }
    }
    fn flush(&mut self) -> std::io::Result<()> {
        match self {
            Sink::Partial(f) => f.file.flush(),
            Sink::Direct(f) => f.flush(),
        }
    }
}

/// An output file being written: buffered writes into a partial file that
/// becomes the target at [`Output::commit`]. Dropped without a commit (an
/// error, a panic), it removes the partial file and the target is untouched.
pub struct Output {
    /// The path the caller gave, for messages.
    shown: PathBuf,
    /// The file to replace (`shown` through a symbolic link).
    target: PathBuf,
    sink: BufWriter<Sink>,
}

impl Output {
    /// Checks that `output` is none of `inputs` ([`check_not_input`]) and
    /// opens its partial file. Errors: `InvalidArgument` (an input),
    /// `Io` (the folder cannot take a new file, the target is a folder).
    pub fn create(output: &Path, inputs: &[&Path]) -> Result<Output> {
        check_not_input(output, inputs)?;
        let target = resolve(output);
        let io = |e: std::io::Error| Error::Io(format!("cannot write '{}': {e}", output.display()));
        let existing = std::fs::metadata(&target).ok();
        let sink = match &existing {
            Some(m) if m.is_dir() => {
                return Err(Error::Io(format!(
                    "cannot write '{}': it is a folder",
                    output.display()
                )));
            }
            Some(m) if !m.is_file() => Sink::Direct(
                std::fs::OpenOptions::new()
                    .write(true)
                    .open(&target)
                    .map_err(io)?,
            ),
            Some(_) if !writable(&target) => {
                return Err(Error::Io(format!(
                    "cannot write '{}': the file is read-only",
                    output.display()
                )));
            }
            _ => {
                let dir = match target.parent() {
                    Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
                    _ => PathBuf::from("."),
                };
                let name = target
                    .file_name()
                    .ok_or_else(|| {
                        Error::InvalidArgument(format!(
                            "the output '{}' names no file",
                            output.display()
                        ))
                    })?
                    .to_string_lossy()
                    .into_owned();
                // A new file gets the mode `File::create` would give it
                // (0666 less the umask); a replacement keeps the target's.
                let mode = existing.as_ref().map_or(0o666, |m| m.mode() & 0o7777);
                let file = PartialFile::create(&dir, &name, mode).map_err(io)?;
                if existing.is_some() {
                    file.file
                        .set_permissions(Permissions::from_mode(mode))
                        .map_err(io)?;
                }
                Sink::Partial(file)
            }
        };
        Ok(Output {
            shown: output.to_path_buf(),
            target,
            sink: BufWriter::new(sink),
        })
    }

    /// [`Output::create`] for a run that may be resumed
    /// ([`find_resumable`]): `record`, what the run is, is written beside the
    /// partial file before any line, as `<partial>` with [`RUN_SUFFIX`] for
    /// [`PARTIAL_SUFFIX`]. A target written directly (a device) keeps none.
    pub fn create_resumable(output: &Path, inputs: &[&Path], record: &RunRecord) -> Result<Output> {
        let mut out = Output::create(output, inputs)?;
        let shown = out.shown.clone();
        if let Sink::Partial(f) = out.sink.get_mut() {
            f.write_record(record)
                .map_err(|e| Error::Io(format!("cannot write '{}': {e}", shown.display())))?;
        }
        Ok(out)
    }

    /// Appends `bytes` (an `Io` error naming the output when they cannot be
    /// written, e.g. a full disk).
    pub fn write_all(&mut self, bytes: &[u8]) -> Result<()> {
        self.sink.write_all(bytes).map_err(|e| self.io(e))
    }

    /// An `Io` error naming the output.
    pub fn io(&self, e: std::io::Error) -> Error {
        Error::Io(format!("cannot write '{}': {e}", self.shown.display()))
    }

    /// Flushes and syncs the partial file and renames it over the target;
    /// only now does the target change.
    pub fn commit(self) -> Result<()> {
        let target = self.target.clone();
        match self.finish()? {
            None => Ok(()),
            Some((file, shown)) => {
                let io = |e: std::io::Error| {
                    Error::Io(format!("cannot write '{}': {e}", shown.display()))
                };
                file.rename(&target).map_err(io)?;
                sync_folder(&target);
                // What interrupted runs of this target left is superseded.
                resume::remove_left_behind(&target);
                Ok(())
            }
        }
    }

    /// Flushes and syncs what was written and keeps it in
    /// [`partial_path`] of the output (replacing an older one); the target is
    /// untouched. Returns that path. A directly written target (a device)
    /// has nothing to keep and gives `None`.
    pub fn keep_partial(self) -> Result<Option<PathBuf>> {
        let kept = partial_path(&self.target);
        match self.finish()? {
            None => Ok(None),
            Some((file, shown)) => {
                file.rename_with_record(&kept).map_err(|e| {
                    Error::Io(format!(
                        "cannot keep the rows done of '{}' in '{}': {e}",
                        shown.display(),
                        kept.display(),
                    ))
                })?;
                sync_folder(&kept);
                Ok(Some(kept))
            }
        }
    }

    /// Flushes the buffer and syncs the partial file to disk.
    fn finish(self) -> Result<Option<(PartialFile, PathBuf)>> {
        let shown = self.shown;
        let io = |e: std::io::Error| Error::Io(format!("cannot write '{}': {e}", shown.display()));
        let sink = self.sink.into_inner().map_err(|e| io(e.into_error()))?;
        match sink {
            Sink::Direct(mut f) => {
                f.flush().map_err(io)?;
                Ok(None)
            }
            Sink::Partial(f) => {
                f.file.sync_all().map_err(io)?;
                Ok(Some((f, shown)))
            }
        }
    }
}

/// Whether this process may write the existing file `path` (`access(2)`):
/// a rename would replace a read-only file as easily as any other, and a
/// file made read-only is one its owner meant to keep.
fn writable(path: &Path) -> bool {
    use std::os::unix::ffi::OsStrExt;
    match std::ffi::CString::new(path.as_os_str().as_bytes()) {
        // SAFETY: a NUL-terminated path that lives across the call.
        Ok(c) => unsafe { libc::access(c.as_ptr(), libc::W_OK) == 0 },
        Err(_) => false,
    }
}

/// Syncs the folder holding `path`, so a rename into it survives a power
/// cut. Best effort: some file systems cannot sync a folder, and the data
/// itself is already on disk.
fn sync_folder(path: &Path) {
    if let Some(dir) = path.parent() {
        let dir = if dir.as_os_str().is_empty() {
            Path::new(".")
        } else {
            dir
        };
        if let Ok(d) = File::open(dir) {
            let _ = d.sync_all();
        }
    }
}

/// Writes `bytes` as the whole of `output` under both rules (none of
/// `inputs`; the target replaced only once complete).
pub fn write_file(output: &Path, inputs: &[&Path], bytes: &[u8]) -> Result<()> {
    let mut out = Output::create(output, inputs)?;
    out.write_all(bytes)?;
    out.commit()
}

/// Escapes text for the HTML and SVG pages cfx writes (the deployment
/// report, the portfolio summary).
pub fn escape_html(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c => out.push(c),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn folder(name: &str) -> PathBuf {
        let d = std::env::temp_dir().join(format!("cfx-output-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&d);
        std::fs::create_dir_all(&d).unwrap();
        d
    }

    fn partials(dir: &Path) -> Vec<String> {
        std::fs::read_dir(dir)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .filter(|n| n.ends_with(PARTIAL_SUFFIX))
            .collect()
    }

    #[test]
    fn every_spelling_and_link_of_an_input_is_refused_before_anything_is_opened() {
        let d = folder("links");
        let input = d.join("in.csv");
        std::fs::write(&input, "a,b\n1,2\n").unwrap();
        std::fs::create_dir(d.join("sub")).unwrap();
        std::os::unix::fs::symlink(&input, d.join("soft")).unwrap();
        std::fs::hard_link(&input, d.join("hard")).unwrap();
        std::fs::write(d.join("other"), "x").unwrap();
        let spellings = [
            input.clone(),
            d.join(".").join("in.csv"),
            d.join("sub").join("..").join("in.csv"),
            d.join("soft"),
            d.join("hard"),
        ];
        for out in &spellings {
            let e = write_file(out, &[&d.join("other"), &input], b"overwritten")
                .err()
                .unwrap_or_else(|| panic!("'{}' was written", out.display()));
            let text = e.to_string();
            assert!(matches!(e, Error::InvalidArgument(_)), "{text}");
            assert!(text.contains(&out.display().to_string()), "{text}");
            assert!(text.contains(&input.display().to_string()), "{text}");
            assert_eq!(std::fs::read(&input).unwrap(), b"a,b\n1,2\n");
        }
        // An input named like the output's partial file is refused too.
        let e = write_file(
            &d.join("out.jsonl"),
            &[&d.join("out.jsonl.cfx-partial")],
            b"x",
        );
        std::fs::write(d.join("out.jsonl.cfx-partial"), "kept").unwrap();
        let e2 = write_file(
            &d.join("out.jsonl"),
            &[&d.join("out.jsonl.cfx-partial")],
            b"x",
        );
        assert!(matches!(e, Err(Error::InvalidArgument(_))), "{e:?}");
        assert!(matches!(e2, Err(Error::InvalidArgument(_))), "{e2:?}");
        assert!(partials(&d).iter().all(|n| n == "out.jsonl.cfx-partial"));
        // A different file is written, and nothing is left behind.
        write_file(&d.join("new"), &[&input], b"fine").unwrap();
        assert_eq!(std::fs::read(d.join("new")).unwrap(), b"fine");
        let _ = std::fs::remove_dir_all(&d);
    }

    #[test]
    fn the_target_changes_only_at_the_commit_and_a_drop_leaves_it_as_it_was() {
        let d = folder("commit");
        let target = d.join("out.jsonl");
        std::fs::write(&target, "previous complete output\n").unwrap();
        let mut out = Output::create(&target, &[]).unwrap();
        out.write_all(b"new line 1\n").unwrap();
        assert_eq!(partials(&d).len(), 1, "one partial file while writing");
        assert_eq!(
            std::fs::read(&target).unwrap(),
            b"previous complete output\n"
        );
        drop(out);
        assert_eq!(
            std::fs::read(&target).unwrap(),
            b"previous complete output\n"
        );
        assert!(
            partials(&d).is_empty(),
            "a dropped output leaves no partial file"
        );
        let mut out = Output::create(&target, &[]).unwrap();
        out.write_all(b"new\n").unwrap();
        out.commit().unwrap();
        assert_eq!(std::fs::read(&target).unwrap(), b"new\n");
        assert!(partials(&d).is_empty());
        // Kept rows go beside the target, which stays as it was.
        let mut out = Output::create(&target, &[]).unwrap();
        out.write_all(b"half\n").unwrap();
        let kept = out.keep_partial().unwrap().unwrap();
        assert_eq!(kept, d.join("out.jsonl.cfx-partial"));
        assert_eq!(std::fs::read(&kept).unwrap(), b"half\n");
        assert_eq!(std::fs::read(&target).unwrap(), b"new\n");
        let _ = std::fs::remove_dir_all(&d);
    }

    #[test]
    fn a_symbolic_link_target_is_written_through_and_a_replacement_keeps_the_mode() {
        let d = folder("through");
        let real = d.join("real.jsonl");
        std::fs::write(&real, "old").unwrap();
        std::fs::set_permissions(&real, Permissions::from_mode(0o640)).unwrap();
        std::os::unix::fs::symlink(&real, d.join("link")).unwrap();
        write_file(&d.join("link"), &[], b"new").unwrap();
        assert!(
            std::fs::symlink_metadata(d.join("link"))
                .unwrap()
                .file_type()
                .is_symlink()
        );
        assert_eq!(std::fs::read(&real).unwrap(), b"new");
        assert_eq!(
            std::fs::metadata(&real).unwrap().permissions().mode() & 0o777,
            0o640
        );
        let _ = std::fs::remove_dir_all(&d);
    }

    #[test]
    fn a_full_device_and_a_folder_that_cannot_exist_fail_cleanly() {
        let e = write_file(Path::new("/dev/full"), &[], &vec![b'x'; 1 << 16]).unwrap_err();
        assert!(matches!(e, Error::Io(_)), "{e}");
        assert!(e.to_string().contains("/dev/full"), "{e}");
        let d = folder("notdir");
        let file = d.join("plain");
        std::fs::write(&file, "plain").unwrap();
        let e = write_file(&file.join("out.jsonl"), &[], b"x").unwrap_err();
        assert!(matches!(e, Error::Io(_)), "{e}");
        assert_eq!(std::fs::read(&file).unwrap(), b"plain");
        let e = write_file(&d, &[], b"x").unwrap_err();
        assert!(e.to_string().contains("folder"), "{e}");
        let _ = std::fs::remove_dir_all(&d);
    }
}
