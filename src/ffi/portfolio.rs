//! `cfx_portfolio_*`: a whole book of applicants explained from a CSV file
//! into a JSON-lines file ([`crate::portfolio`], issue 14), and the
//! portfolio summary read back from that file
//! ([`crate::portfolio::summary`]).
//!
//! The explaining call runs the core on one coordinating thread (whose workers
//! explain each chunk on all requested cores) and relays every progress report
//! to the caller's own thread, where the C callback runs: a JVM or R callback
//! never runs on a thread its runtime does not know.

use super::coherent::core_config;
use super::config::cfx_config;
use super::handle::{
    ArcHandle, arc_clone, arc_free, arc_into_raw, arc_ref, out_param, slice_in, str_in,
    write_slice, write_str,
};
use super::model::cfx_model;
use super::schema::cfx_schema;
use super::status::{FfiError, FfiResult, cfx_status};
use crate::portfolio::summary::{GroupBy, PortfolioReport, summarize};
use crate::portfolio::{PortfolioOptions, explain_portfolio};
use std::ffi::{c_char, c_void};
use std::path::PathBuf;
use std::sync::{Arc, Condvar, Mutex, MutexGuard};

/// A portfolio progress callback: called on the caller's thread after each
/// chunk of rows is written, with the number of rows written so far and the
/// caller's `user_data`; return `true` to go on, `false` to stop (the call then
/// returns `CFX_STATUS_CANCELLED`, the output file is untouched and
/// `<output>.cfx-partial` holds exactly those rows).
/// It must not free the handles the call is using.
pub type cfx_portfolio_progress_fn =
    Option<unsafe extern "C" fn(rows_done: usize, user_data: *mut c_void) -> bool>;

/// What a finished portfolio run wrote.
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct cfx_portfolio_counts {
    /// Lines written: every data row of the input.
    pub rows: usize,
    /// Applicants the model accepts (no explanation needed).
    pub accepted: usize,
    /// Declined applicants explained.
    pub declined: usize,
    /// Declined applicants with a counterfactual.
    pub with_recourse: usize,
    /// Rows that could not be read or explained (an `"error"` line each).
    pub errors: usize,
}

/// The hand-over between the coordinating thread (which reports rows done and
/// waits for an answer) and the caller's thread (which runs the C callback).
#[derive(Default)]
struct Relay {
    state: Mutex<RelayState>,
    changed: Condvar,
}

#[derive(Default)]
struct RelayState {
    report: Option<usize>,
    answer: Option<bool>,
    done: bool,
}

impl Relay {
    fn lock(&self) -> MutexGuard<'_, RelayState> {
        self.state.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// On the coordinating thread: reports `rows` and waits for the answer.
    fn ask(&self, rows: usize) -> bool {
        let mut st = self.lock();
        st.report = Some(rows);
        st.answer = None;
        self.changed.notify_all();
        loop {
            if let Some(go) = st.answer.take() {
                return go;
            }
            st = self.changed.wait(st).unwrap_or_else(|p| p.into_inner());
        }
    }

    /// On the caller's thread: the next report, or `None` once the run ended.
    fn next_report(&self) -> Option<usize> {
        let mut st = self.lock();
        loop {
            if let Some(rows) = st.report.take() {
                return Some(rows);
            }
            if st.done {
                return None;
            }
            st = self.changed.wait(st).unwrap_or_else(|p| p.into_inner());
        }
    }

    /// On the caller's thread: the callback's answer to the last report.
    fn answer(&self, go: bool) {
        self.lock().answer = Some(go);
        self.changed.notify_all();
    }
}

/// Marks the run ended when the coordinating thread leaves, also by a panic
/// (which `join` then raises again on the caller's thread).
struct Done<'a>(&'a Relay);

impl Drop for Done<'_> {
    fn drop(&mut self) {
        self.0.lock().done = true;
        self.0.changed.notify_all();
    }
}

fn strings<'a>(p: *const *const c_char, n: usize, param: &str) -> FfiResult<Vec<&'a str>> {
    slice_in(p, n, param)?
        .iter()
        .map(|&s| str_in(s, param))
        .collect()
}

/// Explains every applicant of the CSV file `input_path` (a header naming the
/// schema's features, categorical levels by name; the `n_ignore` columns named
/// in `ignore_columns`, e.g. the outcome label, are skipped, any other unknown
/// column is an error naming it) and writes one JSON line per applicant, in
/// input order, to `output_path` (created, or replaced once complete): `decision`,
/// `probability` and, for a declined applicant, the solver `outcome`, the
/// solver that proved it (`proved_by`) and the optimal `counterfactual`
/// (`cost`, `raw`, `changes`, …) or null; a row that cannot be read or
/// explained gets an `error` line naming it and the run goes on.
///
/// Rows are read, explained and written 4096 at a time at most (fewer as the
/// end of the file comes near, so that the threads finish together), so
/// memory stays flat however long the file. `threads` applicants are solved at once (0 = all
/// cores; each solve uses one HiGHS thread, so answers do not depend on it).
/// `config` may be NULL (defaults; its solver choice applies,
/// `cfx_config_builder_set_solver`). `progress` may be NULL; otherwise it runs
/// on the caller's thread after each chunk with `user_data`, and returning
/// `false` stops the run with `CFX_STATUS_CANCELLED`: `output_path` is then
/// untouched, the rows reported are kept, every line whole, in
/// `<output_path>.cfx-partial`, and `*out_counts` is not written.
///
/// The output never replaces the input: an `output_path` naming the input
/// file (the same path, a symbolic or hard link to it) is refused before
/// anything is opened. The lines go to a partial file beside the target
/// (`.<name>.<pid>-<n>-<nanos>.cfx-partial`), synced and renamed over `output_path`
/// only when the run is complete, so a failed or killed run never leaves a
/// file that looks finished and an existing `output_path` stays as it was.
/// With `cfx_config_builder_set_resume(builder, 1)` a cancelled or killed
/// run is resumed from its partial file, the output byte for byte an
/// uninterrupted run's (a partial file of another run: `INVALID_ARGUMENT`).
///
/// Errors: `NULL_ARGUMENT`, `INVALID_ARGUMENT` (`output_path` names the input,
/// a model other than a linear one, a tree ensemble or a ReLU network, a
/// bad configuration), `IO_ERROR` (unreadable input, unwritable output),
/// `DATA_ERROR` (a header without a feature or with an unknown column).
/// Thread-safe (schema, model and config are only read).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cfx_portfolio_explain(
    schema: *const cfx_schema,
    model: *const cfx_model,
    config: *const cfx_config,
    input_path: *const c_char,
    output_path: *const c_char,
    ignore_columns: *const *const c_char,
    n_ignore: usize,
    threads: usize,
    progress: cfx_portfolio_progress_fn,
    user_data: *mut c_void,
    out_counts: *mut cfx_portfolio_counts,
) -> cfx_status {
    ffi_boundary! {
        let out = out_param(out_counts, "out_counts")?;
        let s = arc_clone(schema, "schema")?;
        let m = arc_clone(model, "model")?;
        let input = PathBuf::from(str_in(input_path, "input_path")?);
        let output = PathBuf::from(str_in(output_path, "output_path")?);
        let partial = crate::output::partial_path(&output);
        let shown = output.clone();
        let options = PortfolioOptions {
            ignore_columns: strings(ignore_columns, n_ignore, "ignore_columns")?
                .into_iter()
                .map(String::from)
                .collect(),
            resume: super::config::resume_of(config)?,
            ..PortfolioOptions::default()
        };
        let mut cfg = core_config(config)?;
        cfg.batch_threads = threads;
        cfg.threads = 1;
        // The core runs on a coordinating thread (scoped workers spawned from a
        // C main thread would leave std's record of that thread unfreed); each
        // progress report comes back here and waits for the callback's answer.
        // The hand-over is a mutex and a condition variable, not a channel: a
        // channel's blocking receive would create that same record for the
        // caller's thread.
        let relay = Arc::new(Relay::default());
        let worker = {
            let relay = relay.clone();
            std::thread::Builder::new()
                .spawn(move || {
                    let _done = Done(&relay);
                    explain_portfolio(&s, m.as_ref(), &input, &output, &cfg, &options, &mut |rows| {
                        relay.ask(rows)
                    })
                })
                .map_err(|e| {
                    FfiError::new(cfx_status::SolverError, format!("cannot start a thread: {e}"))
                })?
        };
        while let Some(rows) = relay.next_report() {
            let go = match progress {
                None => true,
                // SAFETY: a caller-supplied C function, called on the caller's
                // thread with its own user data.
                Some(f) => unsafe { f(rows, user_data) },
            };
            relay.answer(go);
        }
        let summary = worker.join().unwrap_or_else(|p| std::panic::resume_unwind(p))?;
        if summary.cancelled {
            return Err(FfiError::new(
                cfx_status::Cancelled,
                format!(
                    "the progress callback cancelled the run after {} rows; '{}' is untouched \
                     and '{}' holds exactly those rows, one whole line each",
                    summary.rows,
                    shown.display(),
                    partial.display()
                ),
            ));
        }
        out.write(cfx_portfolio_counts {
            rows: summary.rows,
            accepted: summary.accepted,
            declined: summary.declined,
            with_recourse: summary.with_recourse,
            errors: summary.errors,
        });
        Ok(())
    }
}

/// The portfolio summary of a `cfx_portfolio_explain` output. Thread-safe:
/// may be read from many threads at once and freed from any thread, exactly
/// once, with `cfx_portfolio_summary_free`.
pub struct cfx_portfolio_summary {
    _private: [u8; 0],
}

unsafe impl ArcHandle for cfx_portfolio_summary {
    type Rust = PortfolioReport;
}

/// Summarises the JSON-lines file `output_path` written by
/// `cfx_portfolio_explain`: the share of declined applicants with recourse,
/// the quantiles of the recourse cost and the changes asked most often. With
/// a `group_column` (NULL = no breakdown), the same per group of that column
/// of the applicants' CSV `input_path` (read alongside, row by row): each
/// distinct cell is a group when `n_edges == 0`, else the cells are numbers
/// cut into bands `< e₀, [e₀, e₁), …, ≥ e_k` by the strictly increasing
/// `edges`, a special state of the feature (e.g. HELOC's −9) being a group of
/// its own. `input_path` may be NULL without a group column; both files are
/// the summary's sources, which `cfx_portfolio_summary_write_svg` never
/// writes over. Errors:
/// `NULL_ARGUMENT`, `INVALID_ARGUMENT` (bad edges), `IO_ERROR`,
/// `FORMAT_ERROR` (a line that is not the portfolio's JSON; an unknown key is
/// named), `DATA_ERROR` (rows out of sequence, no such column, a cell that is
/// not a number). `*out_summary` is owned by the caller. Thread-safe.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cfx_portfolio_summarize(
    schema: *const cfx_schema,
    input_path: *const c_char,
    output_path: *const c_char,
    group_column: *const c_char,
    edges: *const f64,
    n_edges: usize,
    out_summary: *mut *const cfx_portfolio_summary,
) -> cfx_status {
    ffi_boundary! {
        let out = out_param(out_summary, "out_summary")?;
        let s = arc_ref(schema, "schema")?;
        let output = PathBuf::from(str_in(output_path, "output_path")?);
        let edges = super::handle::finite_in(edges, n_edges, "edges")?;
        let group = if group_column.is_null() {
            None
        } else {
            Some(GroupBy {
                column: str_in(group_column, "group_column")?.to_string(),
                edges: edges.to_vec(),
            })
        };
        // Given without a group column, the CSV is not read but stays one of
        // the summary's sources, which its chart never writes over.
        let input = if group.is_some() || !input_path.is_null() {
            PathBuf::from(str_in(input_path, "input_path")?)
        } else {
            PathBuf::new()
        };
        let report = summarize(s, &input, &output, group.as_ref())?;
        out.write(arc_into_raw(Arc::new(report)));
        Ok(())
    }
}

/// The summary of all applicants (`group == -1`) or of group `group`
/// (0-based, in the order of `cfx_portfolio_summary_group_name`): row,
/// decision and recourse counts, the share of declined applicants with
/// recourse (NaN without declined applicants) and the recourse cost's median
/// and 90th percentile (type-7 quantiles; NaN without recourse). Every
/// out-parameter is optional (NULL = not wanted). `NOT_FOUND` for a group out
/// of range. Thread-safe.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cfx_portfolio_summary_counts(
    summary: *const cfx_portfolio_summary,
    group: i64,
    out_counts: *mut cfx_portfolio_counts,
    out_share_with_recourse: *mut f64,
    out_median_cost: *mut f64,
    out_p90_cost: *mut f64,
) -> cfx_status {
    ffi_boundary! {
        let g = group_at(arc_ref(summary, "summary")?, group)?;
        if let Some(o) = super::handle::optional_out(out_counts) {
            o.write(cfx_portfolio_counts {
                rows: g.rows,
                accepted: g.accepted,
                declined: g.declined,
                with_recourse: g.with_recourse,
                errors: g.errors,
            });
        }
        super::handle::write_optional([
            (out_share_with_recourse, g.share_with_recourse.unwrap_or(f64::NAN)),
            (out_median_cost, g.cost.map_or(f64::NAN, |c| c.median)),
            (out_p90_cost, g.cost.map_or(f64::NAN, |c| c.p90)),
        ]);
        Ok(())
    }
}

fn group_at(
    r: &PortfolioReport,
    group: i64,
) -> FfiResult<&crate::portfolio::summary::GroupSummary> {
    if group == -1 {
        return Ok(&r.overall);
    }
    usize::try_from(group)
        .ok()
        .and_then(|g| r.groups.get(g))
        .ok_or_else(|| {
            FfiError::new(
                cfx_status::NotFound,
                format!(
                    "group {group} does not exist (the summary has {})",
                    r.groups.len()
                ),
            )
        })
}

/// The number of groups (0 without a breakdown). Thread-safe.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cfx_portfolio_summary_n_groups(
    summary: *const cfx_portfolio_summary,
    out_n: *mut usize,
) -> cfx_status {
    ffi_boundary! {
        let out = out_param(out_n, "out_n")?;
        out.write(arc_ref(summary, "summary")?.groups.len());
        Ok(())
    }
}

/// The label of group `group` (`-1` gives `"all"`; string buffer protocol).
/// `NOT_FOUND` for a group out of range. Thread-safe.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cfx_portfolio_summary_group_name(
    summary: *const cfx_portfolio_summary,
    group: i64,
    buf: *mut c_char,
    cap: usize,
    out_len: *mut usize,
) -> cfx_status {
    ffi_boundary! {
        let g = group_at(arc_ref(summary, "summary")?, group)?;
        write_str(&g.group, buf, cap, out_len, "buf")
    }
}

/// The recourse-cost quantiles of all applicants (`group == -1`) or of one
/// group: `[n, mean, min, p10, p25, median, p75, p90, max]` (9 values, array
/// buffer protocol; all NaN but `n = 0` without recourse). Thread-safe.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cfx_portfolio_summary_cost_quantiles(
    summary: *const cfx_portfolio_summary,
    group: i64,
    buf: *mut f64,
    cap: usize,
    out_len: *mut usize,
) -> cfx_status {
    ffi_boundary! {
        let g = group_at(arc_ref(summary, "summary")?, group)?;
        let v = match g.cost {
            Some(c) => [c.n as f64, c.mean, c.min, c.p10, c.p25, c.median, c.p75, c.p90, c.max],
            None => {
                let mut v = [f64::NAN; 9];
                v[0] = 0.0;
                v
            }
        };
        write_slice(&v, buf, cap, out_len, "buf")
    }
}

/// The summary as a plain-text table (the `top` changes asked most often,
/// then one line per group; string buffer protocol). Thread-safe.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cfx_portfolio_summary_describe(
    summary: *const cfx_portfolio_summary,
    top: usize,
    buf: *mut c_char,
    cap: usize,
    out_len: *mut usize,
) -> cfx_status {
    ffi_boundary! {
        let r = arc_ref(summary, "summary")?;
        write_str(&r.to_text(top), buf, cap, out_len, "buf")
    }
}

/// The whole summary as JSON (`overall`, `group_column`, `groups`, each with
/// counts, share, cost quantiles and every change count; string buffer
/// protocol). Thread-safe.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cfx_portfolio_summary_to_json(
    summary: *const cfx_portfolio_summary,
    buf: *mut c_char,
    cap: usize,
    out_len: *mut usize,
) -> cfx_status {
    ffi_boundary! {
        let r = arc_ref(summary, "summary")?;
        write_str(&r.to_json()?, buf, cap, out_len, "buf")
    }
}

/// Draws the summary as an SVG chart (share with recourse and median cost per
/// group, the `top` changes asked most often) into the file `svg_path`
/// (created, or replaced once complete). `INVALID_ARGUMENT` when `svg_path`
/// is one of the files the summary was read from (the same file, a symbolic
/// or hard link to it), `IO_ERROR` when it cannot be written. Thread-safe.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cfx_portfolio_summary_write_svg(
    summary: *const cfx_portfolio_summary,
    title: *const c_char,
    top: usize,
    svg_path: *const c_char,
) -> cfx_status {
    ffi_boundary! {
        let r = arc_ref(summary, "summary")?;
        let title = str_in(title, "title")?;
        let path = str_in(svg_path, "svg_path")?;
        r.save_svg(title, top, std::path::Path::new(path))?;
        Ok(())
    }
}

/// Releases a summary. NULL is a no-op. Any thread, once.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cfx_portfolio_summary_free(summary: *const cfx_portfolio_summary) {
    ffi_boundary! { arc_free(summary) }
}
