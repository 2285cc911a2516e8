//! The fault cases of every file-writing entry point of the C ABI, shared by
//! `tests/faults.rs` (which asserts them) and `examples/faults.rs` (which
//! prints them).
//!
//! The writers are found in `include/cfx.h`: every function with a
//! `const char *…path` parameter is either a writer, driven here, or a reader
//! listed in [`READERS`]; a new function with a path parameter fails
//! [`classify_header`] until it is one or the other.
//!
//! Cases, per writer: the output is each of its inputs (as given, spelled with
//! `./` and with `sub/..`, a symbolic link to it, a hard link to it) — refused
//! with `INVALID_ARGUMENT` naming both paths, the input's bytes unchanged and
//! no file left behind; the output is `/dev/full` (every write fails with
//! "no space left") or a path under a regular file (no folder can be made
//! there, which also holds for root, unlike a folder without write
//! permission) — `IO_ERROR`, the target untouched; the disk fills up partway
//! (a child process limited to 1 KiB per file with `RLIMIT_FSIZE`, writes
//! beyond failing with `EFBIG`) with a previous output in place — `IO_ERROR`,
//! the previous output byte for byte as it was, no partial file left. For the
//! two book runs also: a cancelled run (portfolio) and a child process killed
//! mid-run (portfolio: by its own progress callback after the first chunk;
//! re-validation: while it waits on a named pipe holding half the ledger) —
//! the previous output untouched, what is left named `….cfx-partial`.
//!
//! Resuming (`cfx_config_builder_set_resume`): a child process streaming a
//! 200,000-row book (the German file 200 times over) is killed by its own
//! progress callback halfway, and the killed re-validation above, are
//! resumed on another thread count; the cancelled run is resumed; each
//! output is byte for byte an uninterrupted run's and the counts (the
//! deployment report) are its counts. The oracle is that uninterrupted run.
//! A partial file of another model or another input is refused
//! (`INVALID_ARGUMENT`), the target and the partial file untouched.

#![allow(dead_code)]

use cfx::ffi::cfx_status;
use cfx::ffi::config::*;
use cfx::ffi::data::*;
use cfx::ffi::model::{cfx_model, cfx_model_fit_linear, cfx_model_free};
use cfx::ffi::notice::cfx_notice_book;
use cfx::ffi::portfolio::*;
use cfx::ffi::revalidate::*;
use cfx::ffi::schema::{cfx_schema, cfx_schema_free};
use cfx::ffi::sequential::*;
use std::collections::BTreeSet;
use std::ffi::{CString, c_void};
use std::os::unix::fs::FileTypeExt;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::ptr::{null, null_mut};

/// Functions of the header whose path parameters are only read.
pub const READERS: &[&str] = &[
    "cfx_dataset_load_german",
    "cfx_dataset_load_heloc",
    "cfx_dataset_load_taiwan",
    "cfx_dataset_from_csv",
    "cfx_dataset_from_csv_ex",
    "cfx_dataset_infer_csv",
    "cfx_dataset_infer_csv_with_rules",
    "cfx_portfolio_summarize",
    "cfx_scorecard_import_path",
    "cfx_scorecard_load_german",
    "cfx_policy_load",
    "cfx_model_from_xgboost_file",
    "cfx_model_from_lightgbm_file",
    "cfx_model_from_pmml_file",
    "cfx_model_from_catboost_json_file",
    "cfx_model_from_ebm_json_file",
    "cfx_model_from_onnx_file",
];

/// The writers this file drives.
pub const WRITERS: &[&str] = &[
    "cfx_portfolio_explain",
    "cfx_portfolio_summary_write_svg",
    "cfx_ledger_from_portfolio",
    "cfx_revalidate_ledger",
    "cfx_deployment_report_write_html",
    "cfx_policy_save",
    "cfx_notice_book",
];

/// Every function of `include/cfx.h` with a `const char *` parameter named
/// `path` or `…_path`.
pub fn header_path_functions() -> BTreeSet<String> {
    let header = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/include/cfx.h"))
        .expect("include/cfx.h");
    let mut out = BTreeSet::new();
    // Declarations run from `cfx_… name(` to `);`, possibly over lines.
    let mut rest = header.as_str();
    while let Some(open) = rest.find('(') {
        let before = &rest[..open];
        let name = before
            .rsplit(|c: char| !(c.is_alphanumeric() || c == '_'))
            .next()
            .unwrap_or("");
        let Some(close) = rest[open..].find(')') else {
            break;
        };
        let params = &rest[open + 1..open + close];
        if name.starts_with("cfx_") {
            let has_path = params.split(',').any(|p| {
                let p = p.trim();
                let pname = p
                    .rsplit(|c: char| !(c.is_alphanumeric() || c == '_'))
                    .next()
                    .unwrap_or("");
                p.contains("char *") && (pname == "path" || pname.ends_with("_path"))
            });
            if has_path {
                out.insert(name.to_string());
            }
        }
        rest = &rest[open + close + 1..];
    }
    out
}

/// `Ok` when every header function with a path parameter is a reader or a
/// driven writer, else the unclassified ones.
pub fn classify_header() -> Result<(), String> {
    let found = header_path_functions();
    let known: BTreeSet<String> = READERS
        .iter()
        .chain(WRITERS)
        .map(|s| s.to_string())
        .collect();
    let new: Vec<&String> = found.difference(&known).collect();
    let gone: Vec<&String> = known.difference(&found).collect();
    if new.is_empty() && gone.is_empty() {
        Ok(())
    } else {
        Err(format!(
            "functions with a path parameter not in tests/faults/cases.rs: {new:?} \
             (a writer: add it to WRITERS and writers(); a reader: to READERS); \
             listed but no longer in the header: {gone:?}"
        ))
    }
}

/// A configuration asking book runs to resume (or not).
fn resume_config(resume: bool) -> *const cfx_config {
    unsafe {
        let mut builder = null_mut();
        check(cfx_config_builder_new(&mut builder), "builder");
        check(
            cfx_config_builder_set_resume(builder, i32::from(resume)),
            "resume",
        );
        let mut config = null();
        check(cfx_config_build(builder, &mut config), "config");
        config
    }
}

fn c(s: &str) -> CString {
    CString::new(s).unwrap()
}

fn cp(p: &Path) -> CString {
    c(p.to_str().unwrap())
}

/// The inputs every writer is driven with, made through the C ABI in `dir`.
pub struct Fixture {
    pub dir: PathBuf,
    data: *const cfx_dataset,
    train: *const cfx_dataset,
    test: *const cfx_dataset,
    schema: *const cfx_schema,
    model: *const cfx_model,
    new_model: *const cfx_model,
    summary: *const cfx_portfolio_summary,
    policy: *const cfx_policy,
    /// The applicants (the German file nine times over: 9,000 rows).
    pub book: PathBuf,
    /// A small book for the notices (the German file's first 60 rows: a
    /// notice takes several exact solves).
    pub notice_book: PathBuf,
    /// The portfolio run's output over `book`.
    pub explanations: PathBuf,
    /// The ledger kept from that run.
    pub ledger: PathBuf,
    /// The counts of that run (on two threads).
    pub counts: cfx_portfolio_counts,
    /// The re-validation of the ledger against the new model, and its
    /// deployment report.
    pub revalidation: PathBuf,
    report: *const cfx_deployment_report,
}

fn check(st: cfx_status, what: &str) {
    assert_eq!(
        st,
        cfx_status::Ok,
        "{what}: {:?}",
        cfx::ffi::error::last_error()
    );
}

impl Fixture {
    pub fn new(dir: &Path) -> Fixture {
        std::fs::create_dir_all(dir).unwrap();
        let text = std::fs::read_to_string(cfx::data::bundled_german_path()).unwrap();
        let mut lines = text.lines();
        let mut book_text = format!("{}\n", lines.next().unwrap());
        let body: Vec<&str> = lines.filter(|l| !l.trim().is_empty()).collect();
        for _ in 0..9 {
            for l in &body {
                book_text += l;
                book_text += "\n";
            }
        }
        let book = dir.join("book.csv");
        std::fs::write(&book, book_text).unwrap();
        let notice_book = dir.join("notice_book.csv");
        let small: Vec<&str> = text.lines().take(61).collect();
        std::fs::write(&notice_book, small.join("\n") + "\n").unwrap();
        let explanations = dir.join("explanations.jsonl");
        let ledger = dir.join("ledger.jsonl");
        unsafe {
            let (mut data, mut train, mut test) = (null(), null(), null());
            check(cfx_dataset_load_german(null(), &mut data), "german");
            check(
                cfx_dataset_holdout_split(data, &mut train, &mut test),
                "split",
            );
            let (mut model, mut new_model, mut schema) = (null(), null(), null());
            check(cfx_model_fit_linear(train, 1.0, &mut model), "model");
            check(
                cfx_model_fit_linear(test, 0.05, &mut new_model),
                "new model",
            );
            check(cfx_dataset_schema(data, &mut schema), "schema");
            let mut fx = Fixture {
                dir: dir.to_path_buf(),
                data,
                train,
                test,
                schema,
                model,
                new_model,
                summary: null(),
                policy: null(),
                book,
                notice_book,
                explanations,
                ledger,
                counts: cfx_portfolio_counts::default(),
                revalidation: dir.join("revalidation.jsonl"),
                report: null(),
            };
            let (st, counts) = fx.portfolio_run(
                &fx.book.clone(),
                &fx.explanations.clone(),
                2,
                None,
                null_mut(),
                false,
            );
            check(st, "portfolio");
            fx.counts = counts;
            let st = fx.ledger_from_portfolio(&fx.ledger.clone());
            check(st, "ledger");
            let mut report = null();
            check(
                cfx_revalidate_ledger(
                    schema,
                    new_model,
                    null(),
                    cp(&fx.ledger).as_ptr(),
                    cp(&fx.revalidation).as_ptr(),
                    2,
                    0,
                    &mut report,
                ),
                "revalidation",
            );
            fx.report = report;
            let mut summary = null();
            check(
                cfx_portfolio_summarize(
                    schema,
                    cp(&fx.book).as_ptr(),
                    cp(&fx.explanations).as_ptr(),
                    null(),
                    null(),
                    0,
                    &mut summary,
                ),
                "summary",
            );
            fx.summary = summary;
            let mut builder = null_mut();
            check(cfx_config_builder_new(&mut builder), "builder");
            check(
                cfx_config_builder_set_rl_episodes(builder, 20, 5),
                "episodes",
            );
            let mut config = null();
            // The build consumes the builder.
            check(cfx_config_build(builder, &mut config), "config");
            let mut policy = null();
            check(
                cfx_policy_train(train, model, config, 0, None, null_mut(), &mut policy),
                "policy",
            );
            cfx_config_free(config);
            fx.policy = policy;
            fx
        }
    }

    /// `cfx_portfolio_explain` of the book into `output`.
    pub unsafe fn portfolio(
        &self,
        output: &Path,
        threads: usize,
        progress: cfx_portfolio_progress_fn,
        user: *mut c_void,
    ) -> cfx_status {
        unsafe { self.portfolio_run(&self.book, output, threads, progress, user, false) }.0
    }

    /// `cfx_portfolio_explain` of `book` into `output` under the fixture's
    /// model, resuming when `resume`: the status and the counts.
    pub unsafe fn portfolio_run(
        &self,
        book: &Path,
        output: &Path,
        threads: usize,
        progress: cfx_portfolio_progress_fn,
        user: *mut c_void,
        resume: bool,
    ) -> (cfx_status, cfx_portfolio_counts) {
        unsafe { self.portfolio_with(self.model, book, output, threads, progress, user, resume) }
    }

    /// [`Self::portfolio_run`] under `model`.
    #[allow(clippy::too_many_arguments)]
    unsafe fn portfolio_with(
        &self,
        model: *const cfx_model,
        book: &Path,
        output: &Path,
        threads: usize,
        progress: cfx_portfolio_progress_fn,
        user: *mut c_void,
        resume: bool,
    ) -> (cfx_status, cfx_portfolio_counts) {
        let ignore = c("creditability");
        let ignore_ptrs = [ignore.as_ptr()];
        let mut counts = cfx_portfolio_counts::default();
        let config = resume_config(resume);
        let st = unsafe {
            cfx_portfolio_explain(
                self.schema,
                model,
                config,
                cp(book).as_ptr(),
                cp(output).as_ptr(),
                ignore_ptrs.as_ptr(),
                1,
                threads,
                progress,
                user,
                &mut counts,
            )
        };
        unsafe { cfx_config_free(config) };
        (st, counts)
    }

    /// `cfx_revalidate_ledger` of `input` into `output`, resuming when
    /// `resume`: the status and the deployment report's JSON (empty on an
    /// error).
    pub unsafe fn revalidate_run(
        &self,
        input: &Path,
        output: &Path,
        threads: usize,
        chunk_rows: usize,
        resume: bool,
    ) -> (cfx_status, String) {
        let mut report = null();
        let config = resume_config(resume);
        let st = unsafe {
            cfx_revalidate_ledger(
                self.schema,
                self.new_model,
                config,
                cp(input).as_ptr(),
                cp(output).as_ptr(),
                threads,
                chunk_rows,
                &mut report,
            )
        };
        unsafe { cfx_config_free(config) };
        let mut json = String::new();
        if st == cfx_status::Ok {
            let mut len = 0usize;
            unsafe { cfx_deployment_report_to_json(report, null_mut(), 0, &mut len) };
            let mut buf = vec![0u8; len];
            let st = unsafe {
                cfx_deployment_report_to_json(report, buf.as_mut_ptr().cast(), len, &mut len)
            };
            check(st, "report json");
            buf.truncate(len.saturating_sub(1));
            json = String::from_utf8(buf).unwrap();
        }
        unsafe { cfx_deployment_report_free(report) };
        (st, json)
    }

    unsafe fn ledger_from_portfolio(&self, output: &Path) -> cfx_status {
        let options = c(r#"{"ignore_columns": ["creditability"]}"#);
        let mut n = 0usize;
        unsafe {
            cfx_ledger_from_portfolio(
                self.schema,
                self.model,
                cp(&self.book).as_ptr(),
                cp(&self.explanations).as_ptr(),
                cp(output).as_ptr(),
                options.as_ptr(),
                &mut n,
            )
        }
    }

    /// `cfx_revalidate_ledger` of `input` into `output`.
    pub unsafe fn revalidate(&self, input: &Path, output: &Path, chunk_rows: usize) -> cfx_status {
        let mut report = null();
        let st = unsafe {
            cfx_revalidate_ledger(
                self.schema,
                self.new_model,
                null(),
                cp(input).as_ptr(),
                cp(output).as_ptr(),
                2,
                chunk_rows,
                &mut report,
            )
        };
        unsafe { cfx_deployment_report_free(report) };
        st
    }

    /// Runs writer `name` into `output`.
    pub fn write(&self, name: &str, output: &Path) -> cfx_status {
        unsafe {
            match name {
                "cfx_portfolio_explain" => self.portfolio(output, 2, None, null_mut()),
                "cfx_portfolio_summary_write_svg" => {
                    let title = c("book");
                    cfx_portfolio_summary_write_svg(
                        self.summary,
                        title.as_ptr(),
                        5,
                        cp(output).as_ptr(),
                    )
                }
                "cfx_ledger_from_portfolio" => self.ledger_from_portfolio(output),
                "cfx_revalidate_ledger" => self.revalidate(&self.ledger, output, 0),
                "cfx_deployment_report_write_html" => {
                    let title = c("deployment");
                    cfx_deployment_report_write_html(
                        self.report,
                        title.as_ptr(),
                        cp(output).as_ptr(),
                    )
                }
                "cfx_policy_save" => cfx_policy_save(self.policy, cp(output).as_ptr()),
                "cfx_notice_book" => {
                    let options = c(r#"{"ignore_columns": ["creditability"], "necessity": false}"#);
                    let mut n = 0usize;
                    cfx_notice_book(
                        self.schema,
                        self.model,
                        self.data,
                        null(),
                        cp(&self.notice_book).as_ptr(),
                        cp(output).as_ptr(),
                        null(),
                        options.as_ptr(),
                        &mut n,
                    )
                }
                other => panic!("no driver for {other}"),
            }
        }
    }

    /// The files writer `name` reads (and must never write over).
    pub fn inputs(&self, name: &str) -> Vec<PathBuf> {
        match name {
            "cfx_portfolio_explain" => vec![self.book.clone()],
            // The files the summary was read from.
            "cfx_portfolio_summary_write_svg" => {
                vec![self.explanations.clone(), self.book.clone()]
            }
            "cfx_ledger_from_portfolio" => vec![self.book.clone(), self.explanations.clone()],
            "cfx_revalidate_ledger" => vec![self.ledger.clone()],
            // The ledger and the re-validation output the report was made of.
            "cfx_deployment_report_write_html" => {
                vec![self.ledger.clone(), self.revalidation.clone()]
            }
            "cfx_policy_save" => vec![],
            "cfx_notice_book" => vec![self.notice_book.clone()],
            other => panic!("no inputs for {other}"),
        }
    }
}

impl Drop for Fixture {
    fn drop(&mut self) {
        unsafe {
            cfx_policy_free(self.policy);
            cfx_deployment_report_free(self.report);
            cfx_portfolio_summary_free(self.summary);
            cfx_schema_free(self.schema);
            cfx_model_free(self.model);
            cfx_model_free(self.new_model);
            cfx_dataset_free(self.test);
            cfx_dataset_free(self.train);
            cfx_dataset_free(self.data);
        }
    }
}

/// One case's outcome: what happened, or what went wrong.
pub struct Outcome {
    pub writer: String,
    pub case: String,
    /// `Ok("refused, input intact")` and the like, or the failure.
    pub result: Result<String, String>,
    /// Inputs whose bytes changed (must be 0).
    pub inputs_changed: usize,
}

fn names(dir: &Path) -> BTreeSet<String> {
    std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect()
}

fn status_and_message(st: cfx_status) -> String {
    format!(
        "{st:?}: {}",
        cfx::ffi::error::last_error().unwrap_or_default()
    )
}

/// The in-process cases of writer `name`: each spelling and link of each
/// input, `/dev/full` and a path under a regular file.
pub fn in_process_cases(fx: &Fixture, name: &str) -> Vec<Outcome> {
    let mut out = Vec::new();
    let snapshot = |inputs: &[PathBuf]| -> Vec<Vec<u8>> {
        inputs.iter().map(|p| std::fs::read(p).unwrap()).collect()
    };
    let inputs = fx.inputs(name);
    let sub = fx.dir.join("sub");
    std::fs::create_dir_all(&sub).unwrap();
    for input in &inputs {
        let file = input.file_name().unwrap().to_string_lossy().into_owned();
        let soft = fx.dir.join(format!("soft-{file}"));
        let hard = fx.dir.join(format!("hard-{file}"));
        let _ = std::fs::remove_file(&soft);
        let _ = std::fs::remove_file(&hard);
        std::os::unix::fs::symlink(input, &soft).unwrap();
        std::fs::hard_link(input, &hard).unwrap();
        let spellings = [
            (format!("output = input {file}"), input.clone()),
            (
                format!("output = ./{file}"),
                input.parent().unwrap().join(".").join(&file),
            ),
            (
                format!("output = sub/../{file}"),
                sub.join("..").join(&file),
            ),
            (format!("output = symbolic link to {file}"), soft.clone()),
            (format!("output = hard link to {file}"), hard.clone()),
        ];
        for (case, output) in spellings {
            let before = snapshot(&inputs);
            let listing = names(&fx.dir);
            let st = fx.write(name, &output);
            let msg = cfx::ffi::error::last_error().unwrap_or_default();
            let after = snapshot(&inputs);
            let changed = before.iter().zip(&after).filter(|(a, b)| a != b).count();
            let result = if st != cfx_status::InvalidArgument {
                Err(format!("not refused: {}", status_and_message(st)))
            } else if !msg.contains(&output.display().to_string())
                || !msg.contains(&input.display().to_string())
            {
                Err(format!("the message does not name both paths: {msg}"))
            } else if changed > 0 {
                Err(format!("{changed} input(s) changed"))
            } else if names(&fx.dir) != listing {
                Err("a file was left behind".into())
            } else {
                Ok("refused, input intact".into())
            };
            out.push(Outcome {
                writer: name.into(),
                case,
                result,
                inputs_changed: changed,
            });
        }
        std::fs::remove_file(&soft).unwrap();
        std::fs::remove_file(&hard).unwrap();
    }
    // A full device: every write fails with "no space left on device".
    let before = snapshot(&inputs);
    let st = fx.write(name, Path::new("/dev/full"));
    let msg = cfx::ffi::error::last_error().unwrap_or_default();
    let still_device = std::fs::metadata("/dev/full")
        .map(|m| m.file_type().is_char_device())
        .unwrap_or(false);
    let changed = before
        .iter()
        .zip(&snapshot(&inputs))
        .filter(|(a, b)| a != b)
        .count();
    out.push(Outcome {
        writer: name.into(),
        case: "output = /dev/full".into(),
        result: if st != cfx_status::IoError || !msg.contains("/dev/full") {
            Err(format!("not an IO_ERROR naming /dev/full: {st:?}: {msg}"))
        } else if !still_device {
            Err("/dev/full is no longer a device".into())
        } else if changed > 0 {
            Err(format!("{changed} input(s) changed"))
        } else {
            Ok("failed cleanly, target untouched".into())
        },
        inputs_changed: changed,
    });
    // A folder that cannot be made: under a regular file (ENOTDIR, for root
    // too).
    let plain = fx.dir.join("plain-file");
    std::fs::write(&plain, "a regular file\n").unwrap();
    let st = fx.write(name, &plain.join("out"));
    let msg = cfx::ffi::error::last_error().unwrap_or_default();
    out.push(Outcome {
        writer: name.into(),
        case: "output under a regular file".into(),
        result: if st != cfx_status::IoError {
            Err(format!("not an IO_ERROR: {st:?}: {msg}"))
        } else if std::fs::read(&plain).unwrap() != b"a regular file\n" {
            Err("the regular file changed".into())
        } else {
            Ok("failed cleanly, target untouched".into())
        },
        inputs_changed: 0,
    });
    out
}

/// Rows of the big book of the resume case.
pub const BIG_ROWS: usize = 200_000;

/// Writes the big book: the German file's 1,000 rows 200 times over.
pub fn write_big_book(path: &Path) {
    let text = std::fs::read_to_string(cfx::data::bundled_german_path()).unwrap();
    let mut lines = text.lines();
    let mut out = format!("{}\n", lines.next().unwrap());
    let body: Vec<&str> = lines.filter(|l| !l.trim().is_empty()).collect();
    assert_eq!(BIG_ROWS % body.len(), 0);
    for _ in 0..BIG_ROWS / body.len() {
        for l in &body {
            out += l;
            out += "\n";
        }
    }
    std::fs::write(path, out).unwrap();
}

/// What a previous, complete output holds in the child cases.
pub const PREVIOUS: &[u8] = b"a previous complete output\n";

/// The file every child case writes to.
pub fn target(dir: &Path) -> PathBuf {
    dir.join("target.out")
}

/// Files of `dir` named as unfinished.
pub fn partials(dir: &Path) -> Vec<String> {
    names(dir)
        .into_iter()
        .filter(|n| n.ends_with(cfx::output::PARTIAL_SUFFIX))
        .collect()
}

/// Run in the child process (`CFX_FAULTS_CHILD=<case>:<writer>:<dir>`):
/// builds the fixture in `dir`, puts [`PREVIOUS`] at [`target`], then
/// - `fsize`: limits every file to 1 KiB (`RLIMIT_FSIZE`, `SIGXFSZ` ignored
///   so a write beyond fails with `EFBIG`, as on a full disk) and runs the
///   writer, exiting 0 when it failed with `IO_ERROR`, 3 otherwise;
/// - `kill`: runs the portfolio stream, whose progress callback kills the
///   process (`SIGKILL`) at its first report;
/// - `fifo`: re-validates the ledger read from the named pipe `dir/pipe`
///   (the parent kills the process mid-run).
pub fn child_main(spec: &str) -> ! {
    let mut parts = spec.splitn(3, ':');
    let (case, writer, dir) = (
        parts.next().unwrap(),
        parts.next().unwrap(),
        PathBuf::from(parts.next().unwrap()),
    );
    let fx = Fixture::new(&dir);
    std::fs::write(target(&dir), PREVIOUS).unwrap();
    match case {
        "fsize" => {
            unsafe {
                libc::signal(libc::SIGXFSZ, libc::SIG_IGN);
                let limit = libc::rlimit {
                    rlim_cur: 1024,
                    rlim_max: 1024,
                };
                assert_eq!(libc::setrlimit(libc::RLIMIT_FSIZE, &limit), 0);
            }
            let st = fx.write(writer, &target(&dir));
            println!("child: {}", status_and_message(st));
            std::process::exit(if st == cfx_status::IoError { 0 } else { 3 })
        }
        "kill" => {
            unsafe extern "C" fn die(_rows: usize, _user: *mut c_void) -> bool {
                unsafe { libc::raise(libc::SIGKILL) };
                true
            }
            let st = unsafe { fx.portfolio(&target(&dir), 2, Some(die), null_mut()) };
            println!("child: not killed: {}", status_and_message(st));
            std::process::exit(4)
        }
        "bigkill" => {
            unsafe extern "C" fn die_halfway(rows: usize, _user: *mut c_void) -> bool {
                if rows >= BIG_ROWS / 2 {
                    unsafe { libc::raise(libc::SIGKILL) };
                }
                true
            }
            let (st, _) = unsafe {
                fx.portfolio_run(
                    &dir.join("big.csv"),
                    &target(&dir),
                    2,
                    Some(die_halfway),
                    null_mut(),
                    false,
                )
            };
            println!("child: not killed: {}", status_and_message(st));
            std::process::exit(4)
        }
        "fifo" => {
            let st = unsafe { fx.revalidate(&dir.join("pipe"), &target(&dir), 64) };
            println!("child: not killed: {}", status_and_message(st));
            std::process::exit(4)
        }
        other => panic!("unknown child case {other}"),
    }
}

/// Runs the child cases through `spawn(spec)` (a command that runs
/// [`child_main`] with that spec), each in its own folder under `root`.
pub fn child_cases(root: &Path, spawn: &dyn Fn(&str) -> Command) -> Vec<Outcome> {
    let mut out = Vec::new();
    let fresh = |tag: &str| {
        let d = root.join(tag);
        let _ = std::fs::remove_dir_all(&d);
        std::fs::create_dir_all(&d).unwrap();
        d
    };
    let untouched = |dir: &Path| -> Result<(), String> {
        let now = std::fs::read(target(dir)).map_err(|e| format!("target gone: {e}"))?;
        if now != PREVIOUS {
            return Err(format!(
                "the previous output changed ({} bytes now)",
                now.len()
            ));
        }
        Ok(())
    };
    for writer in WRITERS {
        let dir = fresh(&format!("fsize-{writer}"));
        let o = spawn(&format!("fsize:{writer}:{}", dir.display()))
            .output()
            .expect("spawn the child");
        let result = if !o.status.success() {
            Err(format!(
                "the child did not fail cleanly ({}): {}{}",
                o.status,
                String::from_utf8_lossy(&o.stdout),
                String::from_utf8_lossy(&o.stderr)
            ))
        } else {
            untouched(&dir).and_then(|_| {
                let left = partials(&dir);
                if left.is_empty() {
                    Ok("failed cleanly, previous output intact".into())
                } else {
                    Err(format!("partial files left: {left:?}"))
                }
            })
        };
        out.push(Outcome {
            writer: writer.to_string(),
            case: "disk full partway (1 KiB file size limit)".into(),
            result,
            inputs_changed: 0,
        });
        let _ = std::fs::remove_dir_all(&dir);
    }
    // Killed by its own progress callback after the first chunk.
    let dir = fresh("kill-portfolio");
    let o = spawn(&format!("kill:cfx_portfolio_explain:{}", dir.display()))
        .output()
        .expect("spawn the child");
    out.push(Outcome {
        writer: "cfx_portfolio_explain".into(),
        case: "process killed mid-run".into(),
        result: killed_result(&o, &dir, &untouched),
        inputs_changed: 0,
    });
    let _ = std::fs::remove_dir_all(&dir);
    // Killed by the parent while it waits for the rest of the ledger, then
    // resumed.
    let dir = fresh("kill-revalidate");
    let killed = killed_revalidation(&dir, spawn, &untouched);
    let resumed = if killed.is_ok() {
        resumed_revalidation(&dir)
    } else {
        Err("not killed".into())
    };
    out.push(Outcome {
        writer: "cfx_revalidate_ledger".into(),
        case: "process killed mid-run".into(),
        result: killed,
        inputs_changed: 0,
    });
    out.push(Outcome {
        writer: "cfx_revalidate_ledger".into(),
        case: "killed mid-run, resumed on one thread".into(),
        result: resumed,
        inputs_changed: 0,
    });
    let _ = std::fs::remove_dir_all(&dir);
    // A 200,000-row book killed halfway by its own progress callback, then
    // resumed.
    let dir = fresh("kill-big");
    out.push(Outcome {
        writer: "cfx_portfolio_explain".into(),
        case: format!("{BIG_ROWS} rows killed halfway, resumed on one thread"),
        result: killed_big_resumed(&dir, spawn, &untouched),
        inputs_changed: 0,
    });
    let _ = std::fs::remove_dir_all(&dir);
    out
}

/// The files of `dir` a run leaves unfinished: partial files and their run
/// records.
fn leftovers(dir: &Path) -> Vec<String> {
    names(dir)
        .into_iter()
        .filter(|n| {
            n.ends_with(cfx::output::PARTIAL_SUFFIX) || n.ends_with(cfx::output::RUN_SUFFIX)
        })
        .collect()
}

fn killed_big_resumed(
    dir: &Path,
    spawn: &dyn Fn(&str) -> Command,
    untouched: &dyn Fn(&Path) -> Result<(), String>,
) -> Result<String, String> {
    let big = dir.join("big.csv");
    write_big_book(&big);
    let o = spawn(&format!("bigkill:cfx_portfolio_explain:{}", dir.display()))
        .output()
        .expect("spawn the child");
    killed_result(&o, dir, untouched)?;
    let partial = dir.join(&partials(dir)[0]);
    let kept = std::fs::read(&partial).map_err(|e| e.to_string())?;
    let whole = kept.iter().filter(|&&b| b == b'\n').count();
    if whole < BIG_ROWS / 4 {
        return Err(format!("the killed run kept only {whole} lines"));
    }
    // A kill inside a write leaves a torn last line: the resume drops it.
    if kept.last() == Some(&b'\n') {
        use std::io::Write;
        let mut f = std::fs::OpenOptions::new()
            .append(true)
            .open(&partial)
            .map_err(|e| e.to_string())?;
        write!(f, "{{\"decision\":\"acc").map_err(|e| e.to_string())?;
    }
    let fx = Fixture::new(&dir.join("parent"));
    let full = dir.join("uninterrupted.jsonl");
    let (st, counts) = unsafe { fx.portfolio_run(&big, &full, 2, None, null_mut(), false) };
    if st != cfx_status::Ok {
        return Err(format!("the uninterrupted run: {}", status_and_message(st)));
    }
    let (st, resumed) = unsafe { fx.portfolio_run(&big, &target(dir), 1, None, null_mut(), true) };
    if st != cfx_status::Ok {
        return Err(format!("the resume: {}", status_and_message(st)));
    }
    if std::fs::read(target(dir)).ok() != std::fs::read(&full).ok() {
        return Err("the resumed output differs from the uninterrupted run's".into());
    }
    if resumed != counts || counts.rows != BIG_ROWS {
        return Err(format!("counts {resumed:?}, uninterrupted {counts:?}"));
    }
    let left = leftovers(dir);
    if !left.is_empty() {
        return Err(format!("files left after the resume: {left:?}"));
    }
    Ok(format!(
        "{whole} whole lines kept (a torn last line dropped), resumed to the uninterrupted \
         run's bytes and counts"
    ))
}

fn resumed_revalidation(dir: &Path) -> Result<String, String> {
    let fx = Fixture::new(&dir.join("parent"));
    let kept = partials(dir);
    let full = dir.join("uninterrupted.jsonl");
    let (st, report) = unsafe { fx.revalidate_run(&fx.ledger, &full, 2, 0, false) };
    if st != cfx_status::Ok {
        return Err(format!("the uninterrupted run: {}", status_and_message(st)));
    }
    let (st, resumed) = unsafe { fx.revalidate_run(&fx.ledger, &target(dir), 1, 100, true) };
    if st != cfx_status::Ok {
        return Err(format!("the resume: {}", status_and_message(st)));
    }
    if std::fs::read(target(dir)).ok() != std::fs::read(&full).ok() {
        return Err("the resumed output differs from the uninterrupted run's".into());
    }
    if resumed != report {
        return Err("the resumed deployment report differs from the uninterrupted run's".into());
    }
    let left = leftovers(dir);
    if !left.is_empty() {
        return Err(format!(
            "files left after the resume ({kept:?} before): {left:?}"
        ));
    }
    Ok("resumed to the uninterrupted run's bytes and deployment report".into())
}

fn killed_result(
    o: &std::process::Output,
    dir: &Path,
    untouched: &dyn Fn(&Path) -> Result<(), String>,
) -> Result<String, String> {
    use std::os::unix::process::ExitStatusExt;
    if o.status.signal() != Some(libc::SIGKILL) {
        return Err(format!(
            "the child was not killed ({}): {}{}",
            o.status,
            String::from_utf8_lossy(&o.stdout),
            String::from_utf8_lossy(&o.stderr)
        ));
    }
    untouched(dir)?;
    let left = partials(dir);
    if left.len() != 1 || !left[0].starts_with(".target.out.") {
        return Err(format!("expected one hidden partial file, found {left:?}"));
    }
    Ok("previous output intact, the rows done in a file named as unfinished".into())
}

fn killed_revalidation(
    dir: &Path,
    spawn: &dyn Fn(&str) -> Command,
    untouched: &dyn Fn(&Path) -> Result<(), String>,
) -> Result<String, String> {
    // The ledger comes from a fixture the parent builds the same way the
    // child does (the same data, models and run).
    let fx = Fixture::new(&dir.join("parent"));
    let ledger = std::fs::read_to_string(&fx.ledger).unwrap();
    let lines: Vec<&str> = ledger.lines().collect();
    if lines.len() < 200 {
        return Err(format!("a ledger of {} records is too short", lines.len()));
    }
    let pipe = dir.join("pipe");
    let cpath = cp(&pipe);
    if unsafe { libc::mkfifo(cpath.as_ptr(), 0o600) } != 0 {
        return Err(format!("mkfifo: {}", std::io::Error::last_os_error()));
    }
    let mut child = spawn(&format!("fifo:cfx_revalidate_ledger:{}", dir.display()))
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("spawn the child");
    let fed = feed_and_wait(&pipe, &lines[..lines.len() / 2], dir, &mut child);
    // Killed whatever happened (it may have ended already), and reaped.
    let _ = child.kill();
    let o = child.wait_with_output().map_err(|e| e.to_string())?;
    let writer = fed?;
    drop(writer);
    killed_result(&o, dir, untouched)
}

/// Writes `lines` into the named pipe `pipe` (opening it waits for the child
/// to open it for reading), then waits — no time limit is asserted — until
/// the child has written output for them into a partial file in `dir`; it
/// then waits on the pipe for the rest. Returns the pipe's open end.
fn feed_and_wait(
    pipe: &Path,
    lines: &[&str],
    dir: &Path,
    child: &mut std::process::Child,
) -> Result<std::fs::File, String> {
    use std::io::Write;
    let mut w = std::fs::OpenOptions::new()
        .write(true)
        .open(pipe)
        .map_err(|e| e.to_string())?;
    for l in lines {
        writeln!(w, "{l}").map_err(|e| e.to_string())?;
    }
    w.flush().map_err(|e| e.to_string())?;
    let started = std::time::Instant::now();
    loop {
        let written: u64 = partials(dir)
            .iter()
            .filter_map(|n| std::fs::metadata(dir.join(n)).ok())
            .map(|m| m.len())
            .sum();
        if written > 0 {
            return Ok(w);
        }
        if let Ok(Some(status)) = child.try_wait() {
            return Err(format!("the child ended before it was killed: {status}"));
        }
        if started.elapsed() > std::time::Duration::from_secs(600) {
            return Err("the child wrote nothing in ten minutes".into());
        }
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
}

/// The cancelled portfolio run, in process: a previous output untouched and
/// the first chunk's lines (as many as the one report said), as the full run
/// wrote them, in `<output>.cfx-partial`.
pub fn cancelled_case(fx: &Fixture) -> Outcome {
    unsafe extern "C" fn stop(rows: usize, user: *mut c_void) -> bool {
        unsafe { *(user as *mut usize) = rows };
        false
    }
    let out = fx.dir.join("cancelled.jsonl");
    std::fs::write(&out, PREVIOUS).unwrap();
    let mut reported = 0usize;
    let st = unsafe {
        fx.portfolio(
            &out,
            2,
            Some(stop),
            &mut reported as *mut usize as *mut c_void,
        )
    };
    let partial = cfx::output::partial_path(&out);
    let full = std::fs::read_to_string(&fx.explanations).unwrap();
    let first: String = full.split_inclusive('\n').take(reported).collect();
    let result = if st != cfx_status::Cancelled {
        Err(format!("not CANCELLED: {}", status_and_message(st)))
    } else if std::fs::read(&out).unwrap() != PREVIOUS {
        Err("the previous output changed".into())
    } else if reported == 0 {
        Err("no report before the cancellation".into())
    } else if std::fs::read_to_string(&partial).ok().as_deref() != Some(first.as_str()) {
        Err(format!(
            "the partial file is not the full run's first {reported} lines (the rows reported)"
        ))
    } else {
        Ok("previous output intact, the rows done in <output>.cfx-partial".into())
    };
    let _ = std::fs::remove_file(&partial);
    let _ = std::fs::remove_file(cfx::output::run_record_path(&partial));
    let _ = std::fs::remove_file(&out);
    Outcome {
        writer: "cfx_portfolio_explain".into(),
        case: "cancelled by the progress callback".into(),
        result,
        inputs_changed: 0,
    }
}

/// The resume cases in process: the cancelled run resumed on another thread
/// count gives the uninterrupted run's bytes and counts; a partial file of
/// another model, and one of another input, are refused with the target
/// and the partial file untouched.
pub fn resume_cases(fx: &Fixture) -> Vec<Outcome> {
    unsafe extern "C" fn stop(_rows: usize, _user: *mut c_void) -> bool {
        false
    }
    let mut out = Vec::new();
    let target = fx.dir.join("resumed.jsonl");
    let partial = cfx::output::partial_path(&target);
    let outcome = |case: &str, result| Outcome {
        writer: "cfx_portfolio_explain".into(),
        case: case.into(),
        result,
        inputs_changed: 0,
    };
    let cancel = || {
        std::fs::write(&target, PREVIOUS).unwrap();
        let (st, _) =
            unsafe { fx.portfolio_run(&fx.book, &target, 2, Some(stop), null_mut(), false) };
        if st == cfx_status::Cancelled && partial.exists() {
            Ok(std::fs::read(&partial).unwrap())
        } else {
            Err(format!("not cancelled: {}", status_and_message(st)))
        }
    };
    // Another model: refused, nothing touched.
    let result = cancel().and_then(|kept| {
        let (st, _) = unsafe {
            fx.portfolio_with(fx.new_model, &fx.book, &target, 2, None, null_mut(), true)
        };
        let msg = cfx::ffi::error::last_error().unwrap_or_default();
        if st != cfx_status::InvalidArgument || !msg.contains("another model") {
            Err(format!("not refused naming the model: {st:?}: {msg}"))
        } else if std::fs::read(&target).unwrap() != PREVIOUS
            || std::fs::read(&partial).ok() != Some(kept)
        {
            Err("the target or the partial file changed".into())
        } else {
            Ok("refused, target and partial file intact".to_string())
        }
    });
    out.push(outcome(
        "resume from a partial file of another model",
        result,
    ));
    // Another input (the book's rows in reverse order, the same header).
    let reversed = fx.dir.join("reversed.csv");
    let text = std::fs::read_to_string(&fx.book).unwrap();
    let mut lines: Vec<&str> = text.lines().collect();
    lines[1..].reverse();
    std::fs::write(&reversed, lines.join("\n") + "\n").unwrap();
    let result = cancel().and_then(|kept| {
        let (st, _) = unsafe { fx.portfolio_run(&reversed, &target, 2, None, null_mut(), true) };
        let msg = cfx::ffi::error::last_error().unwrap_or_default();
        if st != cfx_status::InvalidArgument || !msg.contains("not written from this input") {
            Err(format!("not refused naming the input: {st:?}: {msg}"))
        } else if std::fs::read(&target).unwrap() != PREVIOUS
            || std::fs::read(&partial).ok() != Some(kept)
        {
            Err("the target or the partial file changed".into())
        } else {
            Ok("refused, target and partial file intact".to_string())
        }
    });
    out.push(outcome(
        "resume from a partial file of another input",
        result,
    ));
    // The cancelled run resumed on one thread.
    let result = cancel().and_then(|_| {
        let (st, counts) =
            unsafe { fx.portfolio_run(&fx.book, &target, 1, None, null_mut(), true) };
        if st != cfx_status::Ok {
            Err(format!("the resume: {}", status_and_message(st)))
        } else if std::fs::read(&target).ok() != std::fs::read(&fx.explanations).ok() {
            Err("the resumed output differs from the uninterrupted run's".into())
        } else if counts != fx.counts {
            Err(format!("counts {counts:?}, uninterrupted {:?}", fx.counts))
        } else if partial.exists() || cfx::output::run_record_path(&partial).exists() {
            Err("the partial file is left after the resume".into())
        } else {
            Ok("resumed to the uninterrupted run's bytes and counts".to_string())
        }
    });
    out.push(outcome("cancelled, resumed on one thread", result));
    // Cancelled, and a killed run's hidden partial file beside it; a run that
    // does not resume completes: both (with their records) are removed, a
    // running writer's file (a live process id: 1) is left alone.
    let result = cancel().and_then(|_| {
        let dead = std::process::Command::new("true")
            .spawn()
            .and_then(|mut c| c.wait().map(|_| c.id()))
            .map_err(|e| e.to_string())?;
        let name = target.file_name().unwrap().to_string_lossy().into_owned();
        let killed = fx.dir.join(format!(".{name}.{dead}-0-1f.cfx-partial"));
        let running = fx.dir.join(format!(".{name}.1-0-2f.cfx-partial"));
        for p in [&killed, &running] {
            std::fs::write(p, "{}\n").unwrap();
            std::fs::write(cfx::output::run_record_path(p), "{}\n").unwrap();
        }
        let (st, _) = unsafe { fx.portfolio_run(&fx.book, &target, 2, None, null_mut(), false) };
        let left = |p: &Path| p.exists() || cfx::output::run_record_path(p).exists();
        let verdict = if st != cfx_status::Ok {
            Err(format!("the run: {}", status_and_message(st)))
        } else if std::fs::read(&target).ok() != std::fs::read(&fx.explanations).ok() {
            Err("the output differs from the uninterrupted run's".into())
        } else if left(&partial) || left(&killed) {
            Err("a stale partial file or its record is left after a complete run".into())
        } else if !running.exists() || !cfx::output::run_record_path(&running).exists() {
            Err("a running writer's partial file was removed".into())
        } else {
            Ok("complete without resuming: stale partial files removed".to_string())
        };
        let _ = std::fs::remove_file(cfx::output::run_record_path(&running));
        let _ = std::fs::remove_file(&running);
        verdict
    });
    out.push(outcome(
        "cancelled, then completed without resuming",
        result,
    ));
    let _ = std::fs::remove_file(&target);
    let _ = std::fs::remove_file(&reversed);
    out
}
