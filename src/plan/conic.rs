//! The private clarabel wrapper: a tiny modelling layer for the conic programs
//! of COPA (linear objective or convex quadratic objective; zero, non-negative,
//! second-order and positive-semidefinite cones).
//!
//! Every constraint is written as "an affine expression lies in a cone". clarabel
//! solves `min ½xᵀPx + qᵀx s.t. b − Ax ∈ K`, so an expression `e(x) = Σ cᵢxᵢ + c₀`
//! becomes the row `A = −c`, `b = c₀`.
//!
//! Semidefinite cones use clarabel 0.11's `PSDTriangleConeT(n)` convention (read
//! in its `mat_to_svec`): the **upper triangle, column by column** (`for col in
//! 0..n { for row in 0..=col }`), with every off-diagonal entry multiplied by √2
//! so that the vectorisation is an isometry.

use clarabel::algebra::CscMatrix;
use clarabel::solver::{DefaultSettings, DefaultSolver, IPSolver, SolverStatus, SupportedConeT};
use serde::{Deserialize, Serialize};

/// How a conic solve ended, in cfx's own words (clarabel's statuses mapped).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum SolveStatus {
    /// Solved to the default tolerances.
    Optimal,
    /// Solved to reduced tolerances only (clarabel's `AlmostSolved`); the value is usable but less precise.
    NearOptimal,
    /// The program has no feasible point (or almost surely none).
    Infeasible,
    /// The program is unbounded (dual infeasible).
    Unbounded,
    /// The iteration or time limit stopped the solver.
    Limit,
    /// The solver failed numerically or stopped making progress; the value is not to be trusted.
    NumericalFailure,
    /// No program was needed: the answer follows from Proposition 2.4 (or a
    /// degenerate input) in closed form.
    Trivial,
}

impl SolveStatus {
    /// Whether the reported value can be used.
    pub fn is_usable(self) -> bool {
        matches!(
            self,
            SolveStatus::Optimal | SolveStatus::NearOptimal | SolveStatus::Trivial
        )
    }

    pub(crate) fn from_clarabel(s: SolverStatus) -> SolveStatus {
        match s {
            SolverStatus::Solved => SolveStatus::Optimal,
            SolverStatus::AlmostSolved => SolveStatus::NearOptimal,
            SolverStatus::PrimalInfeasible | SolverStatus::AlmostPrimalInfeasible => {
                SolveStatus::Infeasible
            }
            SolverStatus::DualInfeasible | SolverStatus::AlmostDualInfeasible => {
                SolveStatus::Unbounded
            }
            SolverStatus::MaxIterations | SolverStatus::MaxTime => SolveStatus::Limit,
            SolverStatus::NumericalError
            | SolverStatus::InsufficientProgress
            | SolverStatus::CallbackTerminated
            | SolverStatus::Unsolved => SolveStatus::NumericalFailure,
        }
    }
}

/// An affine expression `Σ coeff·x[var] + constant`.
#[derive(Debug, Clone, Default)]
pub(crate) struct Aff {
    pub terms: Vec<(usize, f64)>,
    pub constant: f64,
}

impl Aff {
    pub fn constant(c: f64) -> Aff {
        Aff {
            terms: Vec::new(),
            constant: c,
        }
    }
    pub fn var(v: usize) -> Aff {
        Aff {
            terms: vec![(v, 1.0)],
            constant: 0.0,
        }
    }
    pub fn term(mut self, v: usize, c: f64) -> Aff {
        if c != 0.0 {
            self.terms.push((v, c));
        }
        self
    }
    pub fn plus(mut self, c: f64) -> Aff {
        self.constant += c;
        self
    }
    pub fn add(mut self, other: &Aff, scale: f64) -> Aff {
        for &(v, c) in &other.terms {
            if c * scale != 0.0 {
                self.terms.push((v, c * scale));
            }
        }
        self.constant += scale * other.constant;
        self
    }
}

enum Block {
    Zero(usize),
    Nonneg(usize),
    Soc(usize),
    Psd(usize),
}

/// A symmetric matrix of fresh variables, stored as its upper triangle.
#[derive(Debug, Clone)]
pub(crate) struct SymVar {
    first: usize,
}

impl SymVar {
    /// Variable index of entry (i, j) (symmetric).
    pub fn at(&self, i: usize, j: usize) -> usize {
        let (r, c) = if i <= j { (i, j) } else { (j, i) };
        self.first + c * (c + 1) / 2 + r
    }
}

/// A conic program under construction.
pub(crate) struct Program {
    n_vars: usize,
    q: Vec<f64>,
    p_triplets: Vec<(usize, usize, f64)>,
    rows: Vec<Aff>,
    blocks: Vec<Block>,
}

/// The outcome of one solve.
#[derive(Debug, Clone)]
pub(crate) struct ConicSolution {
    pub status: SolveStatus,
    pub x: Vec<f64>,
    /// Dual variables of the rows, in the order the constraints were added
    /// (a PSD block's duals in the same scaled upper-triangle vectorisation).
    pub z: Vec<f64>,
    pub objective: f64,
    /// clarabel's dual objective value.
    pub dual_objective: f64,
    pub iterations: u32,
}

impl ConicSolution {
    /// |primal − dual objective|: how far the reported value may be from the optimum.
    pub fn gap(&self) -> f64 {
        (self.objective - self.dual_objective).abs()
    }
}

impl Program {
    pub fn new() -> Program {
        Program {
            n_vars: 0,
            q: Vec::new(),
            p_triplets: Vec::new(),
            rows: Vec::new(),
            blocks: Vec::new(),
        }
    }

    /// `k` fresh scalar variables; returns the first index.
    pub fn vars(&mut self, k: usize) -> usize {
        let first = self.n_vars;
        self.n_vars += k;
        self.q.resize(self.n_vars, 0.0);
        first
    }

    /// A fresh symmetric `n × n` matrix variable (n(n+1)/2 scalars).
    pub fn sym(&mut self, n: usize) -> SymVar {
        let first = self.vars(n * (n + 1) / 2);
        SymVar { first }
    }

    /// Adds `c·x[v]` to the linear objective.
    pub fn objective(&mut self, v: usize, c: f64) {
        self.q[v] += c;
    }

    /// Adds `½·c·x[a]·x[b]` (+ the symmetric entry) to the quadratic objective;
    /// only the upper triangle (a ≤ b) may be given, as clarabel expects.
    pub fn quadratic(&mut self, a: usize, b: usize, c: f64) {
        debug_assert!(a <= b);
        self.p_triplets.push((a, b, c));
    }

    /// Each expression equals 0.
    pub fn zero(&mut self, exprs: Vec<Aff>) {
        if exprs.is_empty() {
            return;
        }
        self.blocks.push(Block::Zero(exprs.len()));
        self.rows.extend(exprs);
    }

    /// Each expression is ≥ 0.
    pub fn nonneg(&mut self, exprs: Vec<Aff>) {
        if exprs.is_empty() {
            return;
        }
        self.blocks.push(Block::Nonneg(exprs.len()));
        self.rows.extend(exprs);
    }

    /// `exprs[0] ≥ ‖exprs[1..]‖₂`.
    pub fn soc(&mut self, exprs: Vec<Aff>) {
        self.blocks.push(Block::Soc(exprs.len()));
        self.rows.extend(exprs);
    }

    /// The symmetric `n × n` matrix whose (i, j) entry (i ≤ j) is `entry(i, j)` is
    /// PSD. Returns the block's first row, so that the dual matrix entry (i, i)
    /// is `z[first + i(i+1)/2 + i]` (diagonal entries are not scaled).
    pub fn psd(&mut self, n: usize, mut entry: impl FnMut(usize, usize) -> Aff) -> usize {
        let first = self.rows.len();
        let s2 = std::f64::consts::SQRT_2;
        for col in 0..n {
            for row in 0..=col {
                let e = entry(row, col);
                self.rows.push(if row == col {
                    e
                } else {
                    Aff::default().add(&e, s2)
                });
            }
        }
        self.blocks.push(Block::Psd(n));
        first
    }

    /// clarabel's sparse LDLᵀ for this program: faer's supernodal factorisation
    /// for the large programs, QDLDL for the small ones. Measured on the
    /// benches' d = 20, J = 5 instances (`benches/plan.rs`, same iteration
    /// counts and values to 1e-7 with either): full L* at ρ = 0 (1386 PSD
    /// rows) 5.1 s → 1.0 s, L* at ρ = 0.05 (2437) 16–18 s → 4.2–5.6 s, U* at
    /// ρ = 0.05 (1513) 16 s → 4.0 s; U* at ρ = 0 (462) is no faster with faer
    /// (0.28–0.38 s → 0.20–0.25 s, within the noise of a loaded machine) and ends
    /// `AlmostSolved` instead of `Solved`, so the smaller programs keep QDLDL.
    /// The threshold sits between 462 and 1386 rows of PSD cones.
    fn direct_solve_method(&self) -> &'static str {
        let psd_rows: usize = self
            .blocks
            .iter()
            .map(|b| match *b {
                Block::Psd(n) => n * (n + 1) / 2,
                _ => 0,
            })
            .sum();
        if psd_rows >= 1000 { "faer" } else { "qdldl" }
    }

    /// Solves with clarabel; never panics on a numerical failure (it becomes a status).
    pub fn solve(&self) -> ConicSolution {
        let n = self.n_vars;
        let m = self.rows.len();
        let (mut ii, mut jj, mut vv) = (Vec::new(), Vec::new(), Vec::new());
        let mut b = Vec::with_capacity(m);
        for (r, e) in self.rows.iter().enumerate() {
            for &(v, c) in &e.terms {
                ii.push(r);
                jj.push(v);
                vv.push(-c);
            }
            b.push(e.constant);
        }
        let a = CscMatrix::new_from_triplets(m, n, ii, jj, vv);
        let (pi, pj, pv): (Vec<_>, Vec<_>, Vec<_>) = {
            let mut pi = Vec::new();
            let mut pj = Vec::new();
            let mut pv = Vec::new();
            for &(x, y, c) in &self.p_triplets {
                pi.push(x);
                pj.push(y);
                pv.push(c);
            }
            (pi, pj, pv)
        };
        let p = CscMatrix::new_from_triplets(n, n, pi, pj, pv);
        let cones: Vec<SupportedConeT<f64>> = self
            .blocks
            .iter()
            .map(|blk| match *blk {
                Block::Zero(k) => SupportedConeT::ZeroConeT(k),
                Block::Nonneg(k) => SupportedConeT::NonnegativeConeT(k),
                Block::Soc(k) => SupportedConeT::SecondOrderConeT(k),
                Block::Psd(k) => SupportedConeT::PSDTriangleConeT(k),
            })
            .collect();
        let settings = DefaultSettings::<f64> {
            verbose: false,
            max_iter: 200,
            tol_gap_abs: 1e-9,
            tol_gap_rel: 1e-9,
            tol_feas: 1e-9,
            direct_solve_method: self.direct_solve_method().into(),
            // one thread: faer's parallel factorisation would make the result
            // depend on the thread schedule (cfx promises the same bits for the
            // same inputs), and the programs are too small to gain from it.
            max_threads: 1,
            ..DefaultSettings::default()
        };
        let failed = |_: String| ConicSolution {
            status: SolveStatus::NumericalFailure,
            x: vec![f64::NAN; n],
            z: vec![f64::NAN; m],
            objective: f64::NAN,
            dual_objective: f64::NAN,
            iterations: 0,
        };
        let mut solver = match DefaultSolver::new(&p, &self.q, &a, &b, &cones, settings) {
            Ok(s) => s,
            Err(e) => return failed(e.to_string()),
        };
        // clarabel reports numerical trouble through its status; a panic inside
        // the linear algebra would still be a bug of ours or theirs, so catch it
        // and turn it into a status rather than tearing down the caller.
        let run = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| solver.solve()));
        if run.is_err() {
            return failed("panic".into());
        }
        let sol = &solver.solution;
        let status = SolveStatus::from_clarabel(sol.status);
        ConicSolution {
            status,
            x: sol.x.clone(),
            z: sol.z.clone(),
            objective: sol.obj_val,
            dual_objective: sol.obj_val_dual,
            iterations: sol.iterations,
        }
    }
}
