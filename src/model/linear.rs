//! The logistic-regression model every exact method of cfx is built on.

use super::Model;
use crate::error::{Error, Result, check_finite, check_len};
use nalgebra::{DMatrix, DVector};
use serde::{Deserialize, Serialize};

fn half() -> f64 {
    0.5
}

/// `score(x) = w·x + b` on the encoded space, logistic link, threshold `t`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LinearModel {
    pub weights: Vec<f64>,
    pub bias: f64,
    #[serde(default = "half")]
    pub threshold: f64,
    /// What the import from a model file (PMML) assumed, one line per fact.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub import_report: Vec<String>,
}

/// L2-regularised logistic regression, the same objective as scikit-learn's
/// `LogisticRegression(C=c)`: `½‖w‖² + C·Σ log-loss`, intercept not penalised.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct LogisticFit {
    /// Inverse regularisation strength (scikit-learn's `C`).
    pub c: f64,
    /// Newton iterations at most.
    pub max_iter: usize,
    /// Stop when the largest gradient component falls below this.
    pub tol: f64,
}

impl Default for LogisticFit {
    fn default() -> Self {
        LogisticFit {
            c: 1.0,
            max_iter: 100,
            tol: 1e-10,
        }
    }
}

impl LinearModel {
    /// A model from weights, bias and threshold (validated).
    pub fn new(weights: Vec<f64>, bias: f64, threshold: f64) -> Result<LinearModel> {
        let m = LinearModel {
            weights,
            bias,
            threshold,
            import_report: Vec::new(),
        };
        m.validate()?;
        Ok(m)
    }

    pub(crate) fn validate(&self) -> Result<()> {
        if self.weights.is_empty() {
            return Err(Error::InvalidArgument(
                "a linear model needs weights".into(),
            ));
        }
        check_finite("weights", &self.weights)?;
        check_finite("bias", &[self.bias])?;
        check_threshold(self.threshold)
    }

    /// Fits by Newton's method (IRLS) with a Cholesky solve per step.
    pub fn fit(x: &[Vec<f64>], y: &[f64], opts: LogisticFit) -> Result<LinearModel> {
        if x.is_empty() {
            return Err(Error::InvalidArgument("cannot fit on no rows".into()));
        }
        check_len("labels", x.len(), y.len())?;
        if !(opts.c.is_finite() && opts.c > 0.0) {
            return Err(Error::InvalidArgument(format!(
                "C must be positive, got {}",
                opts.c
            )));
        }
        let d = x[0].len();
        for r in x {
            check_len("row", d, r.len())?;
            check_finite("row", r)?;
        }
        super::check_training_labels(y)?;
        let n = x.len();
        let p = d + 1; // last coordinate is the intercept
        let mut beta = DVector::<f64>::zeros(p);
        let lambda = 1.0 / opts.c;
        for _ in 0..opts.max_iter {
            let mut grad = DVector::<f64>::zeros(p);
            let mut hess = DMatrix::<f64>::zeros(p, p);
            for (xi, &yi) in x.iter().zip(y) {
                let z = xi.iter().zip(beta.iter()).map(|(a, b)| a * b).sum::<f64>() + beta[d];
                let pr = super::sigmoid(z);
                let r = pr - yi;
                let wgt = (pr * (1.0 - pr)).max(1e-12);
                for a in 0..p {
                    let xa = if a < d { xi[a] } else { 1.0 };
                    if xa == 0.0 {
                        continue;
                    }
                    grad[a] += r * xa;
                    for b in a..p {
                        let xb = if b < d { xi[b] } else { 1.0 };
                        hess[(a, b)] += wgt * xa * xb;
                    }
                }
            }
            for a in 0..p {
                for b in 0..a {
                    hess[(a, b)] = hess[(b, a)];
                }
            }
            for a in 0..d {
                grad[a] += lambda * beta[a];
                hess[(a, a)] += lambda;
            }
            hess[(d, d)] += 1e-12 * n as f64;
            if grad.amax() < opts.tol {
                break;
            }
            let step = match hess.clone().cholesky() {
                Some(ch) => ch.solve(&grad),
                None => {
                    return Err(Error::Solver(
                        "the logistic Hessian is not positive definite".into(),
                    ));
                }
            };
            beta -= step;
        }
        LinearModel::new(beta.as_slice()[..d].to_vec(), beta[d], 0.5)
    }

    /// The same model with another decision threshold.
    pub fn with_threshold(mut self, t: f64) -> Result<LinearModel> {
        check_threshold(t)?;
        self.threshold = t;
        Ok(self)
    }
}

pub(crate) fn check_threshold(t: f64) -> Result<()> {
    if t.is_finite() && t > 0.0 && t < 1.0 {
        Ok(())
    } else {
        Err(Error::InvalidArgument(format!(
            "the threshold must lie strictly between 0 and 1, got {t}"
        )))
    }
}

impl Model for LinearModel {
    fn input_dim(&self) -> usize {
        self.weights.len()
    }
    fn threshold(&self) -> f64 {
        self.threshold
    }
    #[inline]
    fn score_in(&self, x: &[f64], _scratch: &mut [f64]) -> f64 {
        self.weights.iter().zip(x).map(|(w, v)| w * v).sum::<f64>() + self.bias
    }
    fn score_gradient_in(&self, x: &[f64], grad: &mut [f64], scratch: &mut [f64]) -> f64 {
        grad.copy_from_slice(&self.weights);
        self.score_in(x, scratch)
    }
    fn as_linear(&self) -> Option<&LinearModel> {
        Some(self)
    }
    fn perturbed_scratch_len(&self) -> usize {
        self.weights.len()
    }
    /// Keeps `w_j·x_j` for every column (the terms the noise does not touch).
    fn prepare_perturbed(&self, x: &[f64], _cols: &[usize], scratch: &mut [f64]) {
        for ((p, w), v) in scratch.iter_mut().zip(&self.weights).zip(x) {
            *p = w * v;
        }
    }
    /// Bit for bit the scores [`Model::score_in`] gives (each point's sum
    /// runs over the columns in the same order, from the same starting value,
    /// with the same products), but 16 points at a time, one per SIMD lane.
    fn score_perturbed(
        &self,
        x: &[f64],
        cols: &[usize],
        deltas: &[f64],
        n: usize,
        out: &mut [f64],
        scratch: &mut [f64],
    ) {
        linear_block(
            &self.weights,
            self.bias,
            x,
            cols,
            deltas,
            n,
            out,
            &scratch[..self.weights.len()],
        );
    }
}

/// Points per group in [`linear_block`].
const LANES: usize = 16;

super::simd_fn! {
    /// `out[s] = (Σ_j w_j·p_sj) + b` summed serially over j as
    /// `LinearModel::score_in` does, where `p_sj = x_j + δ` on noisy columns
    /// and the product `w_j·x_j = prod[j]` elsewhere.
    #[allow(clippy::too_many_arguments)]
    fn linear_block(
        w: &[f64],
        bias: f64,
        x: &[f64],
        cols: &[usize],
        deltas: &[f64],
        n: usize,
        out: &mut [f64],
        prod: &[f64],
    ) {
        // The starting value of `Iterator::sum` for f64 (−0.0 in current Rust).
        let init: f64 = std::iter::empty::<f64>().sum();
        let block = super::PERTURBED_BLOCK;
        let mut s0 = 0;
        while s0 < n {
            let mut acc = [init; LANES];
            let mut k = 0;
            for (j, (&wj, &xj)) in w.iter().zip(x).enumerate() {
                if k < cols.len() && cols[k] == j {
                    let d: &[f64; LANES] = deltas[k * block + s0..k * block + s0 + LANES]
                        .try_into()
                        .expect("a whole group of lanes");
                    for l in 0..LANES {
                        acc[l] += wj * (xj + d[l]);
                    }
                    k += 1;
                } else {
                    let p = prod[j];
                    for a in acc.iter_mut() {
                        *a += p;
                    }
                }
            }
            let m = LANES.min(n - s0);
            for (o, a) in out[s0..s0 + m].iter_mut().zip(&acc) {
                *o = a + bias;
            }
            s0 += LANES;
        }
    }
}
