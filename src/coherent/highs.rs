//! A small, private, safe wrapper over the HiGHS C API (`highs-sys`).
//!
//! Why our own and not the `highs` crate: that crate `unwrap`s inside many of its
//! methods and cannot map model status 19 (`HighsInterrupt`, new in HiGHS 1.16),
//! so it can panic; and its model objects are `!Send`. Here:
//!
//! * a HiGHS instance lives only inside one call of [`solve`] (created, used and
//!   destroyed there, by a drop guard, whatever happens), so nothing long-lived
//!   ever holds a raw solver pointer;
//! * solver output is silenced (`output_flag = false`) before anything else;
//! * the raw model status is read with `Highs_getModelStatus` and mapped here,
//!   with an [`MipStatus::Unknown`] catch-all for codes we do not know;
//! * nothing in this file panics: bad shapes come back as
//!   [`MipStatus::Error`] and every C call's return code is checked.
//!
//! The thread-owned HiGHS task scheduler is reset (`Highs_resetThreadScheduler`)
//! after every solve, on the thread that solved, so that the `threads` option of
//! the next solve on that thread is honoured and no scheduler outlives a call.

use highs_sys as hs;
use hs::HighsInt;
use std::ffi::CString;
use std::time::Instant;

/// A mixed-integer linear program, minimised, constraint matrix stored row-wise.
#[derive(Debug, Clone, Default, PartialEq)]
pub(crate) struct Mip {
    pub cost: Vec<f64>,
    pub lower: Vec<f64>,
    pub upper: Vec<f64>,
    pub integer: Vec<bool>,
    /// Constant added to the objective.
    pub offset: f64,
    pub row_lower: Vec<f64>,
    pub row_upper: Vec<f64>,
    /// Start of each row in `row_index`/`row_value` (length = number of rows).
    pub row_start: Vec<usize>,
    pub row_index: Vec<usize>,
    pub row_value: Vec<f64>,
}

impl Mip {
    /// Adds a column and returns its index.
    pub fn add_col(&mut self, cost: f64, lower: f64, upper: f64, integer: bool) -> usize {
        self.cost.push(cost);
        self.lower.push(lower);
        self.upper.push(upper);
        self.integer.push(integer);
        self.cost.len() - 1
    }

    /// Adds the row `lower ≤ Σ value·x[col] ≤ upper`.
    pub fn add_row(&mut self, lower: f64, upper: f64, entries: &[(usize, f64)]) {
        self.row_lower.push(lower);
        self.row_upper.push(upper);
        self.row_start.push(self.row_index.len());
        for &(c, v) in entries {
            self.row_index.push(c);
            self.row_value.push(v);
        }
    }

    /// Appends entries to row `row` (already added), keeping the row-wise
    /// storage in order: later rows shift.
    pub fn extend_row(&mut self, row: usize, entries: &[(usize, f64)]) {
        let end = self
            .row_start
            .get(row + 1)
            .copied()
            .unwrap_or(self.row_index.len());
        self.row_index
            .splice(end..end, entries.iter().map(|&(c, _)| c));
        self.row_value
            .splice(end..end, entries.iter().map(|&(_, v)| v));
        for s in self.row_start.iter_mut().skip(row + 1) {
            *s += entries.len();
        }
    }

    /// Fixes a column to a value (both bounds).
    pub fn fix(&mut self, col: usize, value: f64) {
        self.lower[col] = value;
        self.upper[col] = value;
    }

    pub fn n_cols(&self) -> usize {
        self.cost.len()
    }

    /// The objective at `x` (offset included).
    #[cfg(test)]
    pub fn objective(&self, x: &[f64]) -> f64 {
        self.offset + self.cost.iter().zip(x).map(|(c, v)| c * v).sum::<f64>()
    }

    /// The largest violation at `x` of a column bound, a row or an integrality
    /// (absolute; ∞ when `x` does not have one value per column or the
    /// program is malformed): how a first incumbent is checked before HiGHS
    /// is handed it, as HiGHS checks it again (`assessLpPrimalSolution`).
    pub fn max_violation(&self, x: &[f64]) -> f64 {
        if x.len() != self.n_cols() || !self.well_formed() || x.iter().any(|v| !v.is_finite()) {
            return f64::INFINITY;
        }
        let mut worst: f64 = 0.0;
        for (j, &v) in x.iter().enumerate() {
            worst = worst.max(self.lower[j] - v).max(v - self.upper[j]);
            if self.integer[j] {
                worst = worst.max((v - v.round()).abs());
            }
        }
        for r in 0..self.n_rows() {
            let end = self
                .row_start
                .get(r + 1)
                .copied()
                .unwrap_or(self.row_index.len());
            let a: f64 = (self.row_start[r]..end)
                .map(|k| self.row_value[k] * x[self.row_index[k]])
                .sum();
            worst = worst.max(self.row_lower[r] - a).max(a - self.row_upper[r]);
        }
        worst
    }

    pub fn n_rows(&self) -> usize {
        self.row_lower.len()
    }

    /// Whether the arrays are consistent, so the C side never reads out of bounds.
    fn well_formed(&self) -> bool {
        let n = self.n_cols();
        let m = self.n_rows();
        self.lower.len() == n
            && self.upper.len() == n
            && self.integer.len() == n
            && self.row_upper.len() == m
            && self.row_start.len() == m
            && self.row_index.len() == self.row_value.len()
            && self.row_start.windows(2).all(|w| w[0] <= w[1])
            && self
                .row_start
                .last()
                .is_none_or(|&s| s <= self.row_index.len())
            && self.row_index.iter().all(|&c| c < n)
            && self.offset.is_finite()
            && self.cost.iter().all(|v| v.is_finite())
            && self.row_value.iter().all(|v| v.is_finite())
            && self.lower.iter().chain(&self.upper).all(|v| !v.is_nan())
            && self
                .row_lower
                .iter()
                .chain(&self.row_upper)
                .all(|v| !v.is_nan())
            && n <= HighsInt::MAX as usize
            && self.row_index.len() <= HighsInt::MAX as usize
    }
}

/// Solver options passed to every solve.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct Options {
    /// Wall-clock limit in seconds.
    pub time_limit: f64,
    /// HiGHS `threads` option (≥ 1).
    pub threads: usize,
    /// HiGHS `mip_rel_gap`.
    pub mip_rel_gap: f64,
    /// HiGHS `mip_abs_gap`.
    pub mip_abs_gap: f64,
    /// HiGHS `primal_feasibility_tolerance` and `mip_feasibility_tolerance`.
    pub feasibility_tol: f64,
    /// HiGHS `presolve` ("on" when true, "off" when false).
    pub presolve: bool,
    /// HiGHS's sub-MIP heuristics `mip_heuristic_run_rens`,
    /// `mip_heuristic_run_rins` and `mip_heuristic_run_root_reduced_cost`
    /// and its root restarts `mip_allow_restart`.
    /// A network's program turns them off: on HELOC's 2×32 network HiGHS
    /// stayed inside RENS's presolve for minutes past its time limit, and
    /// with RENS off, on HELOC's 1×200 inside the restart's presolve
    /// (`strengthenInequalities`), minutes past it, and on HELOC's 1×200
    /// again inside the root-reduced-cost sub-MIP's presolve (all seen in gdb;
    /// BENCHMARKS.md section 12); the program has its own first incumbent
    /// (`mlp_primal.rs`).
    pub sub_mips_and_restarts: bool,
}

/// The model status, mapped by us from HiGHS's raw `kHighsModelStatus` code.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum MipStatus {
    /// Proven optimal (within the gap).
    Optimal,
    /// Proven infeasible (also HiGHS's "unbounded or infeasible", which for our
    /// bounded programs can only mean infeasible).
    Infeasible,
    /// The time limit was reached.
    TimeLimit,
    /// HiGHS stopped for another limit (iterations, solutions, memory, interrupt).
    OtherLimit(i32),
    /// Load, model, presolve, solve or postsolve error, or a C call that failed
    /// (raw code, or −1 when the error was ours).
    Error(i32),
    /// Any other code (including statuses a later HiGHS may add).
    Unknown(i32),
}

fn map_status(raw: HighsInt) -> MipStatus {
    match raw {
        hs::MODEL_STATUS_OPTIMAL => MipStatus::Optimal,
        hs::MODEL_STATUS_INFEASIBLE | hs::MODEL_STATUS_UNBOUNDED_OR_INFEASIBLE => {
            MipStatus::Infeasible
        }
        hs::MODEL_STATUS_REACHED_TIME_LIMIT => MipStatus::TimeLimit,
        hs::MODEL_STATUS_REACHED_ITERATION_LIMIT
        | hs::MODEL_STATUS_REACHED_SOLUTION_LIMIT
        | hs::MODEL_STATUS_REACHED_INTERRUPT
        | hs::MODEL_STATUS_REACHED_MEMORY_LIMIT
        | hs::MODEL_STATUS_HIGHS_INTERRUPT => MipStatus::OtherLimit(raw),
        hs::MODEL_STATUS_LOAD_ERROR
        | hs::MODEL_STATUS_MODEL_ERROR
        | hs::MODEL_STATUS_PRESOLVE_ERROR
        | hs::MODEL_STATUS_SOLVE_ERROR
        | hs::MODEL_STATUS_POSTSOLVE_ERROR => MipStatus::Error(raw),
        other => MipStatus::Unknown(other),
    }
}

/// What one solve produced.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct MipSolution {
    pub status: MipStatus,
    /// HiGHS reports a feasible primal solution (`primal_solution_status = 2`).
    pub has_solution: bool,
    /// Objective value (NaN without a solution).
    pub objective: f64,
    /// HiGHS's `mip_gap` info (relative; NaN when unavailable).
    pub mip_gap: f64,
    /// Column values (empty without a solution).
    pub x: Vec<f64>,
    /// Wall-clock seconds spent in this call.
    pub seconds: f64,
}

/// Destroys the instance and resets this thread's scheduler when dropped.
struct Instance(*mut std::ffi::c_void);

impl Drop for Instance {
    fn drop(&mut self) {
        if !self.0.is_null() {
            // SAFETY: the pointer came from Highs_create and is destroyed once.
            unsafe { hs::Highs_destroy(self.0) };
        }
        // SAFETY: we are on the thread that solved and no HiGHS call is running.
        unsafe { hs::Highs_resetThreadScheduler(1) };
    }
}

fn ok(status: HighsInt) -> bool {
    status == hs::STATUS_OK || status == hs::STATUS_WARNING
}

fn set_bool(h: &Instance, name: &str, v: bool) -> bool {
    let Ok(c) = CString::new(name) else {
        return false;
    };
    // SAFETY: valid instance and NUL-terminated option name.
    ok(unsafe { hs::Highs_setBoolOptionValue(h.0, c.as_ptr(), HighsInt::from(v)) })
}

fn set_int(h: &Instance, name: &str, v: HighsInt) -> bool {
    let Ok(c) = CString::new(name) else {
        return false;
    };
    // SAFETY: as above.
    ok(unsafe { hs::Highs_setIntOptionValue(h.0, c.as_ptr(), v) })
}

fn set_double(h: &Instance, name: &str, v: f64) -> bool {
    let Ok(c) = CString::new(name) else {
        return false;
    };
    // SAFETY: as above.
    ok(unsafe { hs::Highs_setDoubleOptionValue(h.0, c.as_ptr(), v) })
}

fn set_string(h: &Instance, name: &str, v: &str) -> bool {
    let (Ok(c), Ok(cv)) = (CString::new(name), CString::new(v)) else {
        return false;
    };
    // SAFETY: valid instance and NUL-terminated option name and value.
    ok(unsafe { hs::Highs_setStringOptionValue(h.0, c.as_ptr(), cv.as_ptr()) })
}

fn failed(start: Instant, code: i32) -> MipSolution {
    MipSolution {
        status: MipStatus::Error(code),
        has_solution: false,
        objective: f64::NAN,
        mip_gap: f64::NAN,
        x: Vec::new(),
        seconds: start.elapsed().as_secs_f64(),
    }
}

/// Solves `mip` (minimisation). Never panics; any failure is a status.
#[cfg(test)]
pub(crate) fn solve(mip: &Mip, opts: &Options) -> MipSolution {
    solve_from(mip, opts, None)
}

/// [`solve`] with a first incumbent: `start` holds a value per column. HiGHS
/// checks it; a start that breaks a row or bound is completed from its
/// integer values by an LP (HiGHS's `completeSolutionFromDiscreteAssignment`)
/// or dropped, so a poor start costs time, never correctness.
pub(crate) fn solve_from(mip: &Mip, opts: &Options, start_point: Option<&[f64]>) -> MipSolution {
    run(mip, opts, start_point, false)
}

/// [`solve_from`] stopped before the root node (`mip_max_nodes = 0`): what
/// HiGHS holds then is the start it accepted, or nothing — how the tests see
/// whether HiGHS took a start as its first incumbent.
#[cfg(test)]
pub(crate) fn first_incumbent(
    mip: &Mip,
    opts: &Options,
    start_point: Option<&[f64]>,
) -> MipSolution {
    run(mip, opts, start_point, true)
}

fn run(mip: &Mip, opts: &Options, start_point: Option<&[f64]>, no_nodes: bool) -> MipSolution {
    let start = Instant::now();
    if !mip.well_formed() {
        return failed(start, -1);
    }
    // SAFETY: plain constructor; the guard destroys it.
    let h = Instance(unsafe { hs::Highs_create() });
    if h.0.is_null() {
        return failed(start, -1);
    }
    let threads = HighsInt::try_from(opts.threads.max(1)).unwrap_or(1);
    let time_limit = if opts.time_limit.is_finite() && opts.time_limit > 0.0 {
        opts.time_limit
    } else {
        f64::INFINITY
    };
    let options_ok = set_bool(&h, "output_flag", false)
        && set_bool(&h, "log_to_console", false)
        && set_double(&h, "time_limit", time_limit)
        && set_int(&h, "threads", threads)
        && set_int(&h, "random_seed", 0)
        // The feasibility-jump heuristic hunts for a first feasible point; ours
        // are found by the root LP at once, and the jump took about half of the
        // solve time on HELOC (measured: median 6.3 → 3.1 ms CPU per applicant).
        && set_bool(&h, "mip_heuristic_run_feasibility_jump", false)
        && set_bool(&h, "mip_heuristic_run_rens", opts.sub_mips_and_restarts)
        && set_bool(&h, "mip_heuristic_run_rins", opts.sub_mips_and_restarts)
        && set_bool(
            &h,
            "mip_heuristic_run_root_reduced_cost",
            opts.sub_mips_and_restarts,
        )
        && set_bool(&h, "mip_allow_restart", opts.sub_mips_and_restarts)
        && set_double(&h, "mip_rel_gap", opts.mip_rel_gap.max(0.0))
        && set_double(&h, "mip_abs_gap", opts.mip_abs_gap.max(0.0))
        && set_double(&h, "primal_feasibility_tolerance", opts.feasibility_tol)
        && set_double(&h, "mip_feasibility_tolerance", opts.feasibility_tol);
    let options_ok = options_ok && (!no_nodes || set_int(&h, "mip_max_nodes", 0));
    if !options_ok || (!opts.presolve && !set_string(&h, "presolve", "off")) {
        return failed(start, -1);
    }
    let n = mip.n_cols();
    let m = mip.n_rows();
    let a_start: Vec<HighsInt> = mip.row_start.iter().map(|&s| s as HighsInt).collect();
    let a_index: Vec<HighsInt> = mip.row_index.iter().map(|&c| c as HighsInt).collect();
    let integrality: Vec<HighsInt> = mip
        .integer
        .iter()
        .map(|&i| {
            if i {
                hs::VAR_TYPE_INTEGER
            } else {
                hs::VAR_TYPE_CONTINUOUS
            }
        })
        .collect();
    // Empty vectors still give valid (dangling but unread) pointers; HiGHS reads
    // exactly n, m and nnz entries.
    // SAFETY: every array has the length HiGHS reads (checked by well_formed).
    let pass = unsafe {
        hs::Highs_passMip(
            h.0,
            n as HighsInt,
            m as HighsInt,
            a_index.len() as HighsInt,
            hs::MATRIX_FORMAT_ROW_WISE,
            hs::OBJECTIVE_SENSE_MINIMIZE,
            mip.offset,
            mip.cost.as_ptr(),
            mip.lower.as_ptr(),
            mip.upper.as_ptr(),
            mip.row_lower.as_ptr(),
            mip.row_upper.as_ptr(),
            a_start.as_ptr(),
            a_index.as_ptr(),
            mip.row_value.as_ptr(),
            integrality.as_ptr(),
        )
    };
    if !ok(pass) {
        return failed(start, -1);
    }
    if let Some(x0) = start_point.filter(|x0| x0.len() == n && n > 0) {
        // SAFETY: `x0` has n entries; row values and duals are not passed
        // (NULL), HiGHS computes the row values itself.
        let set = unsafe {
            hs::Highs_setSolution(
                h.0,
                x0.as_ptr(),
                std::ptr::null(),
                std::ptr::null(),
                std::ptr::null(),
            )
        };
        if !ok(set) {
            return failed(start, -1);
        }
    }
    // SAFETY: valid instance with a model.
    let run = unsafe { hs::Highs_run(h.0) };
    // SAFETY: valid instance.
    let raw = unsafe { hs::Highs_getModelStatus(h.0) };
    let mut status = map_status(raw);
    if run == hs::STATUS_ERROR && status == MipStatus::Optimal {
        status = MipStatus::Error(raw);
    }
    let mut sol_status: HighsInt = 0;
    let key = CString::new("primal_solution_status").unwrap_or_default();
    // SAFETY: valid instance, NUL-terminated key, valid out-pointer.
    let info_ok = ok(unsafe { hs::Highs_getIntInfoValue(h.0, key.as_ptr(), &mut sol_status) });
    let has_solution = info_ok && sol_status == hs::SOLUTION_STATUS_FEASIBLE;
    let mut gap = f64::NAN;
    let key = CString::new("mip_gap").unwrap_or_default();
    // SAFETY: as above.
    if !ok(unsafe { hs::Highs_getDoubleInfoValue(h.0, key.as_ptr(), &mut gap) }) {
        gap = f64::NAN;
    }
    let mut x = Vec::new();
    let mut objective = f64::NAN;
    if has_solution {
        x = vec![0.0; n];
        let mut row_value = vec![0.0; m];
        // SAFETY: col_value has n entries, row_value m; duals are not requested (NULL).
        let got = unsafe {
            hs::Highs_getSolution(
                h.0,
                x.as_mut_ptr(),
                std::ptr::null_mut(),
                row_value.as_mut_ptr(),
                std::ptr::null_mut(),
            )
        };
        if ok(got) {
            // SAFETY: valid instance.
            objective = unsafe { hs::Highs_getObjectiveValue(h.0) };
        } else {
            x.clear();
        }
    }
    let has_solution = has_solution && !x.is_empty();
    drop(h);
    MipSolution {
        status,
        has_solution,
        objective,
        mip_gap: gap,
        x,
        seconds: start.elapsed().as_secs_f64(),
    }
}

/// The least and greatest value of each linear objective over the LP
/// relaxation of `mip` (integrality dropped), for the bound tightening of
/// `mlp.rs`: one HiGHS instance, the LP passed once, and per objective a
/// minimisation and a maximisation warm-started from the previous basis.
/// `None` for an objective whose LP did not finish optimal (time limit,
/// numerical trouble): the caller keeps its interval bound. The whole batch
/// stops at `time_limit` seconds (the rest come back `None`). Never panics.
pub(crate) fn lp_ranges(
    mip: &Mip,
    objectives: &[Vec<(usize, f64)>],
    time_limit: f64,
) -> Vec<Option<(f64, f64)>> {
    let start = Instant::now();
    let mut out = vec![None; objectives.len()];
    let n = mip.n_cols();
    if !mip.well_formed()
        || objectives
            .iter()
            .flatten()
            .any(|&(c, v)| c >= n || !v.is_finite())
    {
        return out;
    }
    // SAFETY: plain constructor; the guard destroys it.
    let h = Instance(unsafe { hs::Highs_create() });
    if h.0.is_null() {
        return out;
    }
    let options_ok = set_bool(&h, "output_flag", false)
        && set_bool(&h, "log_to_console", false)
        && set_int(&h, "threads", 1)
        && set_int(&h, "random_seed", 0)
        && set_string(&h, "presolve", "off")
        && set_double(&h, "primal_feasibility_tolerance", 1e-9)
        && set_double(&h, "dual_feasibility_tolerance", 1e-9);
    if !options_ok {
        return out;
    }
    let m = mip.n_rows();
    let a_start: Vec<HighsInt> = mip.row_start.iter().map(|&s| s as HighsInt).collect();
    let a_index: Vec<HighsInt> = mip.row_index.iter().map(|&c| c as HighsInt).collect();
    let zero = vec![0.0; n];
    // SAFETY: every array has the length HiGHS reads (checked by well_formed).
    let pass = unsafe {
        hs::Highs_passLp(
            h.0,
            n as HighsInt,
            m as HighsInt,
            a_index.len() as HighsInt,
            hs::MATRIX_FORMAT_ROW_WISE,
            hs::OBJECTIVE_SENSE_MINIMIZE,
            0.0,
            zero.as_ptr(),
            mip.lower.as_ptr(),
            mip.upper.as_ptr(),
            mip.row_lower.as_ptr(),
            mip.row_upper.as_ptr(),
            a_start.as_ptr(),
            a_index.as_ptr(),
            mip.row_value.as_ptr(),
        )
    };
    if !ok(pass) || n == 0 {
        return out;
    }
    let mut cost = vec![0.0; n];
    for (k, obj) in objectives.iter().enumerate() {
        let left = time_limit - start.elapsed().as_secs_f64();
        if left.is_nan() || left <= 0.0 || !set_double(&h, "time_limit", left) {
            break;
        }
        cost.fill(0.0);
        for &(c, v) in obj {
            cost[c] += v;
        }
        // SAFETY: `cost` has n entries, columns 0..n−1.
        if !ok(unsafe { hs::Highs_changeColsCostByRange(h.0, 0, n as HighsInt - 1, cost.as_ptr()) })
        {
            break;
        }
        let mut ends = [f64::NAN; 2];
        for (e, sense) in [hs::OBJECTIVE_SENSE_MINIMIZE, hs::OBJECTIVE_SENSE_MAXIMIZE]
            .into_iter()
            .enumerate()
        {
            // SAFETY: valid instance with a model.
            let solved = unsafe {
                ok(hs::Highs_changeObjectiveSense(h.0, sense))
                    && hs::Highs_run(h.0) != hs::STATUS_ERROR
                    && hs::Highs_getModelStatus(h.0) == hs::MODEL_STATUS_OPTIMAL
            };
            if solved {
                // SAFETY: valid instance.
                ends[e] = unsafe { hs::Highs_getObjectiveValue(h.0) };
            }
        }
        if ends.iter().all(|v| v.is_finite()) {
            out[k] = Some((ends[0], ends[1]));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn opts() -> Options {
        Options {
            time_limit: 10.0,
            threads: 1,
            mip_rel_gap: 0.0,
            mip_abs_gap: 0.0,
            feasibility_tol: 1e-9,
            presolve: true,
            sub_mips_and_restarts: true,
        }
    }

    /// A knapsack solved by hand: max 5a + 4b + 3c s.t. 2a + 3b + c ≤ 5 over
    /// binaries. {a, b} weighs 5 and is worth 9; {a, c} 8; {b, c} 7; all three
    /// weigh 6. Optimum 9, minimised as −9.
    #[test]
    fn knapsack_optimum_matches_hand_solution() {
        let mut m = Mip::default();
        let a = m.add_col(-5.0, 0.0, 1.0, true);
        let b = m.add_col(-4.0, 0.0, 1.0, true);
        let c = m.add_col(-3.0, 0.0, 1.0, true);
        m.add_row(f64::NEG_INFINITY, 5.0, &[(a, 2.0), (b, 3.0), (c, 1.0)]);
        let s = solve(&m, &opts());
        assert_eq!(s.status, MipStatus::Optimal);
        assert!(s.has_solution);
        assert!((s.objective + 9.0).abs() < 1e-9, "{}", s.objective);
        assert_eq!(
            s.x.iter().map(|v| v.round() as i32).collect::<Vec<_>>(),
            vec![1, 1, 0]
        );
    }

    #[test]
    fn infeasible_program_is_a_status() {
        let mut m = Mip::default();
        let a = m.add_col(1.0, 0.0, 1.0, true);
        m.add_row(2.0, f64::INFINITY, &[(a, 1.0)]);
        let s = solve(&m, &opts());
        assert_eq!(s.status, MipStatus::Infeasible);
        assert!(!s.has_solution);
        assert!(s.x.is_empty());
    }

    /// Extending a middle row keeps the later rows' entries their own: the
    /// storage equals the one written row by row, and so does the optimum
    /// (max a + b with a + b ≤ 1 extended to a + b + c ≤ 1, c costing −3: c = 1).
    #[test]
    fn extending_a_middle_row_equals_writing_it_whole() {
        let mut m = Mip::default();
        let a = m.add_col(-1.0, 0.0, 1.0, true);
        let b = m.add_col(-1.0, 0.0, 1.0, true);
        let c = m.add_col(-3.0, 0.0, 1.0, true);
        m.add_row(0.0, 5.0, &[(a, 1.0)]);
        m.add_row(f64::NEG_INFINITY, 1.0, &[(a, 1.0), (b, 1.0)]);
        m.add_row(0.0, 1.0, &[(b, 1.0)]);
        m.extend_row(1, &[(c, 1.0)]);
        let mut whole = Mip::default();
        for (cost, col) in [(-1.0, a), (-1.0, b), (-3.0, c)] {
            assert_eq!(whole.add_col(cost, 0.0, 1.0, true), col);
        }
        whole.add_row(0.0, 5.0, &[(a, 1.0)]);
        whole.add_row(f64::NEG_INFINITY, 1.0, &[(a, 1.0), (b, 1.0), (c, 1.0)]);
        whole.add_row(0.0, 1.0, &[(b, 1.0)]);
        assert_eq!(m, whole);
        let s = solve(&m, &opts());
        assert!((s.objective + 3.0).abs() < 1e-9, "{}", s.objective);
        // The last row can be extended too.
        m.extend_row(2, &[(a, 1.0)]);
        assert_eq!(m.row_index[m.row_start[2]..], [b, a]);
    }

    #[test]
    fn malformed_program_is_an_error_status_not_a_panic() {
        let mut m = Mip::default();
        m.add_col(1.0, 0.0, 1.0, false);
        m.add_row(0.0, 1.0, &[(7, 1.0)]);
        assert_eq!(solve(&m, &opts()).status, MipStatus::Error(-1));
    }

    #[test]
    fn pure_lp_and_empty_rows_work() {
        let mut m = Mip::default();
        m.add_col(1.0, 0.5, 3.0, false);
        m.offset = 2.0;
        let s = solve(&m, &opts());
        assert_eq!(s.status, MipStatus::Optimal);
        assert!((s.objective - 2.5).abs() < 1e-12);
    }

    #[test]
    fn unknown_codes_map_to_the_catch_all() {
        assert_eq!(map_status(42), MipStatus::Unknown(42));
        assert_eq!(map_status(19), MipStatus::OtherLimit(19));
        assert_eq!(map_status(9), MipStatus::Infeasible);
    }
}
