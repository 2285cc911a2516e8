//! The portfolio entry points through the public C ABI, as a C caller uses
//! them: the streaming call with a progress callback (an `extern "C"`
//! function) that reports on the caller's thread and cancels with whole lines
//! kept in the partial file, the target untouched; its lines equal the Rust core's; the summary read back through C
//! equals the Rust summary; the solver setter and the proved-by accessor.

use cfx::coherent::portfolio_summary::{GroupBy, summarize};
use cfx::ffi::cfx_status;
use cfx::ffi::coherent::*;
use cfx::ffi::config::*;
use cfx::ffi::data::*;
use cfx::ffi::model::{cfx_model, cfx_model_fit_linear, cfx_model_free};
use cfx::ffi::portfolio::*;
use cfx::ffi::schema::{cfx_schema, cfx_schema_free};
use std::ffi::{CString, c_char, c_void};
use std::path::{Path, PathBuf};
use std::ptr::{null, null_mut};

struct Log {
    reports: Vec<usize>,
    threads: Vec<std::thread::ThreadId>,
    stop_after: usize,
}

unsafe extern "C" fn on_progress(rows_done: usize, user: *mut c_void) -> bool {
    let log = unsafe { &mut *(user as *mut Log) };
    log.reports.push(rows_done);
    log.threads.push(std::thread::current().id());
    log.reports.len() < log.stop_after
}

fn temp(name: &str) -> PathBuf {
    std::env::temp_dir().join(format!("cfx-ffi-portfolio-{}-{name}", std::process::id()))
}

fn c(s: &str) -> CString {
    CString::new(s).unwrap()
}

struct Inputs {
    data: *const cfx_dataset,
    train: *const cfx_dataset,
    test: *const cfx_dataset,
    schema: *const cfx_schema,
    model: *const cfx_model,
}

fn inputs() -> Inputs {
    unsafe {
        let (mut data, mut train, mut test) = (null(), null(), null());
        assert_eq!(cfx_dataset_load_german(null(), &mut data), cfx_status::Ok);
        assert_eq!(
            cfx_dataset_holdout_split(data, &mut train, &mut test),
            cfx_status::Ok
        );
        let mut model = null();
        assert_eq!(cfx_model_fit_linear(train, 1.0, &mut model), cfx_status::Ok);
        let mut schema = null();
        assert_eq!(cfx_dataset_schema(data, &mut schema), cfx_status::Ok);
        Inputs {
            data,
            train,
            test,
            schema,
            model,
        }
    }
}

impl Drop for Inputs {
    fn drop(&mut self) {
        unsafe {
            cfx_schema_free(self.schema);
            cfx_model_free(self.model);
            cfx_dataset_free(self.test);
            cfx_dataset_free(self.train);
            cfx_dataset_free(self.data);
        }
    }
}

/// The bundled German file nine times over: 9,000 applicants, three chunks of
/// the call (4,096 rows each at most).
/// Nine copies of the German data as one book. Every test writes its own
/// file: tests run in parallel in one process, and two writers of one path
/// let a reader see a truncated-and-rewritten file (an extra, spliced row).
fn book(name: &str) -> PathBuf {
    let text = std::fs::read_to_string(cfx::data::bundled_german_path()).unwrap();
    let mut lines = text.lines();
    let header = lines.next().unwrap();
    let body: Vec<&str> = lines.filter(|l| !l.trim().is_empty()).collect();
    assert_eq!(body.len(), 1000);
    let mut out = format!("{header}\n");
    for _ in 0..9 {
        for l in &body {
            out += l;
            out += "\n";
        }
    }
    let p = temp(name);
    std::fs::write(&p, out).unwrap();
    p
}

unsafe fn run(
    inp: &Inputs,
    input: &Path,
    output: &Path,
    threads: usize,
    log: &mut Log,
    counts: &mut cfx_portfolio_counts,
) -> cfx_status {
    let (i, o) = (c(input.to_str().unwrap()), c(output.to_str().unwrap()));
    let ignore = c("creditability");
    let ignore_ptrs = [ignore.as_ptr()];
    unsafe {
        cfx_portfolio_explain(
            inp.schema,
            inp.model,
            null(),
            i.as_ptr(),
            o.as_ptr(),
            ignore_ptrs.as_ptr(),
            1,
            threads,
            Some(on_progress),
            log as *mut Log as *mut c_void,
            counts,
        )
    }
}

#[test]
fn streaming_call_reports_on_the_callers_thread_and_cancels_with_whole_lines() {
    let inp = inputs();
    let input = book("streaming-book.csv");
    let (full, cut) = (temp("full.jsonl"), temp("cut.jsonl"));
    let me = std::thread::current().id();
    unsafe {
        let mut log = Log {
            reports: vec![],
            threads: vec![],
            stop_after: usize::MAX,
        };
        let mut counts = cfx_portfolio_counts::default();
        assert_eq!(
            run(&inp, &input, &full, 2, &mut log, &mut counts),
            cfx_status::Ok
        );
        // After each chunk: 4,096 rows at most, fewer toward the end with
        // two workers (guided), so more than the three of fixed chunks.
        assert!(log.reports.len() > 3, "{:?}", log.reports);
        let mut before = 0;
        for &done in &log.reports {
            assert!(done > before && done - before <= 4096, "{:?}", log.reports);
            before = done;
        }
        assert_eq!(log.reports.last(), Some(&9000));
        assert!(
            log.threads.iter().all(|t| *t == me),
            "callback off the caller's thread"
        );
        assert_eq!(counts.rows, 9000);
        assert_eq!(counts.accepted + counts.declined + counts.errors, 9000);
        assert_eq!(counts.errors, 0);
        assert!(counts.declined > 0 && counts.with_recourse <= counts.declined);
        let full_text = std::fs::read_to_string(&full).unwrap();
        assert_eq!(full_text.lines().count(), 9000);
        // The nine copies of a row get the same line but for its row number.
        let lines: Vec<serde_json::Value> = full_text
            .lines()
            .map(|l| serde_json::from_str(l).unwrap())
            .collect();
        for k in [0, 17, 999] {
            let mut a = lines[k].clone();
            let mut b = lines[k + 8000].clone();
            a["row"] = 0.into();
            b["row"] = 0.into();
            assert_eq!(a, b, "row {k}");
        }
        // One thread writes the same bytes.
        let one = temp("one.jsonl");
        let mut log1 = Log {
            reports: vec![],
            threads: vec![],
            stop_after: usize::MAX,
        };
        let mut counts1 = cfx_portfolio_counts::default();
        assert_eq!(
            run(&inp, &input, &one, 1, &mut log1, &mut counts1),
            cfx_status::Ok
        );
        assert_eq!(counts1, counts);
        let strip = |t: &str| -> Vec<serde_json::Value> {
            t.lines()
                .map(|l| serde_json::from_str(l).unwrap())
                .collect()
        };
        assert_eq!(strip(&std::fs::read_to_string(&one).unwrap()), lines);

        // Cancel at the first report: CANCELLED, counts untouched, exactly the
        // first chunk's lines (as many as reported), equal to the full run's.
        let mut log = Log {
            reports: vec![],
            threads: vec![],
            stop_after: 1,
        };
        let mut untouched = cfx_portfolio_counts {
            rows: 77,
            ..Default::default()
        };
        assert_eq!(
            run(&inp, &input, &cut, 2, &mut log, &mut untouched),
            cfx_status::Cancelled
        );
        assert_eq!(log.reports.len(), 1);
        let first = log.reports[0];
        assert!(first > 0 && first < 9000, "{first}");
        assert_eq!(untouched.rows, 77);
        let msg = cfx::ffi::error::last_error().unwrap();
        assert!(msg.contains(&format!("after {first} rows")), "{msg}");
        // The target is untouched; the rows done are in its partial file.
        assert!(!cut.exists(), "a cancelled run wrote the target");
        let partial = cfx::output::partial_path(&cut);
        assert!(msg.contains(&partial.display().to_string()), "{msg}");
        let cut_text = std::fs::read_to_string(&partial).unwrap();
        assert!(cut_text.ends_with('\n'));
        let cut_lines: Vec<&str> = cut_text.lines().collect();
        assert_eq!(cut_lines.len(), first);
        assert_eq!(
            cut_lines[..],
            full_text.lines().take(first).collect::<Vec<_>>()[..]
        );

        // The summary through C equals the Rust summary, overall and per group.
        let group = c("personal_status_and_sex");
        let (i, o) = (c(input.to_str().unwrap()), c(full.to_str().unwrap()));
        let mut s = null();
        assert_eq!(
            cfx_portfolio_summarize(
                inp.schema,
                i.as_ptr(),
                o.as_ptr(),
                group.as_ptr(),
                null(),
                0,
                &mut s
            ),
            cfx_status::Ok
        );
        let d = cfx::data::german_credit(&cfx::data::bundled_german_path()).unwrap();
        let by = GroupBy {
            column: "personal_status_and_sex".into(),
            edges: vec![],
        };
        let rust = summarize(&d.schema, &input, &full, Some(&by)).unwrap();
        let mut n = 0;
        assert_eq!(cfx_portfolio_summary_n_groups(s, &mut n), cfx_status::Ok);
        assert_eq!(n, rust.groups.len());
        assert!(n >= 3);
        for g in -1..n as i64 {
            let want = if g < 0 {
                &rust.overall
            } else {
                &rust.groups[g as usize]
            };
            let mut k = cfx_portfolio_counts::default();
            let (mut share, mut med, mut p90) = (0.0, 0.0, 0.0);
            assert_eq!(
                cfx_portfolio_summary_counts(s, g, &mut k, &mut share, &mut med, &mut p90),
                cfx_status::Ok
            );
            assert_eq!(
                (k.rows, k.accepted, k.declined, k.with_recourse, k.errors),
                (
                    want.rows,
                    want.accepted,
                    want.declined,
                    want.with_recourse,
                    want.errors
                )
            );
            assert_eq!(share, want.share_with_recourse.unwrap());
            assert_eq!(med, want.cost.unwrap().median);
            assert_eq!(p90, want.cost.unwrap().p90);
            let mut q = [0.0; 9];
            let mut len = 0;
            assert_eq!(
                cfx_portfolio_summary_cost_quantiles(s, g, q.as_mut_ptr(), 9, &mut len),
                cfx_status::Ok
            );
            assert_eq!((q[0], q[5]), (want.cost.unwrap().n as f64, med));
            let mut buf = vec![0 as c_char; 256];
            assert_eq!(
                cfx_portfolio_summary_group_name(s, g, buf.as_mut_ptr(), 256, &mut len),
                cfx_status::Ok
            );
            let name = std::ffi::CStr::from_ptr(buf.as_ptr()).to_str().unwrap();
            assert_eq!(name, want.group);
        }
        // Every applicant of the nine copies counted once in the whole.
        assert_eq!(rust.groups.iter().map(|g| g.rows).sum::<usize>(), 9000);
        assert_eq!(
            cfx_portfolio_summary_counts(
                s,
                n as i64,
                null_mut(),
                null_mut(),
                null_mut(),
                null_mut()
            ),
            cfx_status::NotFound
        );
        let mut len = 0;
        assert_eq!(
            cfx_portfolio_summary_describe(s, 5, null_mut(), 0, &mut len),
            cfx_status::BufferTooSmall
        );
        let mut buf = vec![0 as c_char; len];
        assert_eq!(
            cfx_portfolio_summary_describe(s, 5, buf.as_mut_ptr(), len, &mut len),
            cfx_status::Ok
        );
        let text = std::ffi::CStr::from_ptr(buf.as_ptr()).to_str().unwrap();
        assert_eq!(text, rust.to_text(5));
        let svg = temp("chart.svg");
        let (title, svgp) = (c("German credit"), c(svg.to_str().unwrap()));
        assert_eq!(
            cfx_portfolio_summary_write_svg(s, title.as_ptr(), 5, svgp.as_ptr()),
            cfx_status::Ok
        );
        assert_eq!(
            std::fs::read_to_string(&svg).unwrap(),
            rust.to_svg("German credit", 5).unwrap()
        );
        cfx_portfolio_summary_free(s);
        // Bands refused when not increasing; a NULL group column needs no input.
        let edges = [30.0, 20.0];
        let age = c("age_in_years");
        assert_eq!(
            cfx_portfolio_summarize(
                inp.schema,
                i.as_ptr(),
                o.as_ptr(),
                age.as_ptr(),
                edges.as_ptr(),
                2,
                &mut s
            ),
            cfx_status::InvalidArgument
        );
        assert_eq!(
            cfx_portfolio_summarize(inp.schema, null(), o.as_ptr(), null(), null(), 0, &mut s),
            cfx_status::Ok
        );
        cfx_portfolio_summary_free(s);
    }
}

#[test]
fn bad_calls_are_statuses_and_write_nothing() {
    let inp = inputs();
    let input = book("bad-calls-book.csv");
    let out = temp("bad.jsonl");
    let (i, o) = (c(input.to_str().unwrap()), c(out.to_str().unwrap()));
    unsafe {
        let mut counts = cfx_portfolio_counts {
            rows: 5,
            ..Default::default()
        };
        // The label column is unknown unless ignored: DATA_ERROR naming it.
        let st = cfx_portfolio_explain(
            inp.schema,
            inp.model,
            null(),
            i.as_ptr(),
            o.as_ptr(),
            null(),
            0,
            1,
            None,
            null_mut(),
            &mut counts,
        );
        assert_eq!(st, cfx_status::DataError);
        assert!(
            cfx::ffi::error::last_error()
                .unwrap()
                .contains("'creditability'")
        );
        let missing = c("/nonexistent/applicants.csv");
        let st = cfx_portfolio_explain(
            inp.schema,
            inp.model,
            null(),
            missing.as_ptr(),
            o.as_ptr(),
            null(),
            0,
            1,
            None,
            null_mut(),
            &mut counts,
        );
        assert_eq!(st, cfx_status::IoError);
        let st = cfx_portfolio_explain(
            inp.schema,
            inp.model,
            null(),
            i.as_ptr(),
            o.as_ptr(),
            null(),
            0,
            1,
            None,
            null_mut(),
            null_mut(),
        );
        assert_eq!(st, cfx_status::NullArgument);
        let st = cfx_portfolio_explain(
            inp.schema,
            inp.model,
            null(),
            null(),
            o.as_ptr(),
            null(),
            0,
            1,
            None,
            null_mut(),
            &mut counts,
        );
        assert_eq!(st, cfx_status::NullArgument);
        assert_eq!(counts.rows, 5);
        // Without a callback the call runs to the end.
        let ignore = c("creditability");
        let p = [ignore.as_ptr()];
        let st = cfx_portfolio_explain(
            inp.schema,
            inp.model,
            null(),
            i.as_ptr(),
            o.as_ptr(),
            p.as_ptr(),
            1,
            0,
            None,
            null_mut(),
            &mut counts,
        );
        assert_eq!(st, cfx_status::Ok);
        assert_eq!(counts.rows, 9000);
    }
}

#[test]
fn solver_setter_and_proved_by_accessor() {
    let inp = inputs();
    unsafe {
        // The first declined test applicant.
        let mut n = 0;
        assert_eq!(cfx_dataset_n_rows(inp.test, &mut n), cfx_status::Ok);
        let mut row = vec![0.0; 20];
        let mut proved = Vec::new();
        for solver in [
            cfx_solver_choice::Auto,
            cfx_solver_choice::Mip,
            cfx_solver_choice::Separable,
        ] {
            let mut b = null_mut();
            assert_eq!(cfx_config_builder_new(&mut b), cfx_status::Ok);
            assert_eq!(
                cfx_config_builder_set_solver(b, solver as i32),
                cfx_status::Ok
            );
            assert_eq!(
                cfx_config_builder_set_solver(b, 4),
                cfx_status::InvalidArgument
            );
            let mut cfg = null();
            assert_eq!(cfx_config_build(b, &mut cfg), cfx_status::Ok);
            let mut found = None;
            for k in 0..n {
                let mut len = 0;
                assert_eq!(
                    cfx_dataset_row(inp.test, k, row.as_mut_ptr(), 20, &mut len),
                    cfx_status::Ok
                );
                let mut r = null();
                if cfx_coherent_explain(inp.schema, inp.model, cfg, row.as_ptr(), len, &mut r)
                    == cfx_status::Ok
                {
                    found = Some(r);
                    break;
                }
            }
            let r = found.expect("a declined test applicant");
            let mut by = -1;
            assert_eq!(cfx_coherent_result_proved_by(r, &mut by), cfx_status::Ok);
            let mut cost = f64::NAN;
            let nul = null_mut();
            assert_eq!(
                cfx_coherent_result_certificate(r, 0, &mut cost, nul, nul, nul, nul, nul),
                cfx_status::Ok
            );
            proved.push((by, cost));
            assert_eq!(
                cfx_coherent_result_proved_by(r, null_mut()),
                cfx_status::NullArgument
            );
            cfx_coherent_result_free(r);
            cfx_config_free(cfg);
        }
        let (s, h) = (cfx_proved_by::Separable as i32, cfx_proved_by::Highs as i32);
        assert_eq!(
            proved.iter().map(|p| p.0).collect::<Vec<_>>(),
            vec![s, h, s]
        );
        // Both solvers prove the same optimum (1e-9 relative).
        let (a, b) = (proved[0].1, proved[1].1);
        assert!((a - b).abs() <= 1e-9 * a.abs().max(b.abs()), "{a} vs {b}");
    }
}
