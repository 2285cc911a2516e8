//! Model uncertainty: the nominal moments (μ̂, Σ̂) of the future model
//! parameters θ̃ = (bias, w), and the Gelbrich distance between moment pairs
//! (Bui, Nguyen & Nguyen 2022, §2.1 and the reference code's `gelbrich_dist`).

use crate::error::{Error, Result, check_finite, check_len};
use crate::model::{LinearModel, LogisticFit, Model};
use nalgebra::{DMatrix, DVector};
use rand::SeedableRng;
use rand::seq::SliceRandom;
use rand_xoshiro::Xoshiro256PlusPlus;
use serde::{Deserialize, Serialize};

/// The nominal mean μ̂ and covariance Σ̂ of the random future parameters θ̃.
///
/// COPA folds the bias into θ as an intercept: an applicant `x` (encoded) is
/// accepted by θ when `θᵀ(1, x) ≥ 0`, so `θ[0]` is the bias and `θ[1..]` the
/// weights. For a [`LinearModel`] with a decision threshold `t ≠ ½` the bias
/// coordinate is `bias − logit(t)`, so that `θᵀ(1, x) ≥ 0` is exactly the model's
/// acceptance rule (up to the boundary).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ModelUncertainty {
    /// μ̂ ∈ ℝ^d, d = 1 + encoded dimension.
    pub mean: Vec<f64>,
    /// Σ̂ ∈ S^d_+, row-major d × d.
    pub cov: Vec<f64>,
}

/// Settings of the ensemble estimate of (μ̂, Σ̂) (seed-formulas §3.9).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct EnsembleConfig {
    /// Number of logistic models refitted on random halves (paper: 1000).
    pub refits: usize,
    /// Σ̂ = `cov_scale` × the sample covariance of the refitted parameters (paper: 1.5).
    pub cov_scale: f64,
    /// Fraction of the rows each refit sees (paper: 0.5).
    pub fraction: f64,
    /// The logistic fit of each member.
    pub fit: LogisticFit,
    /// Seed of the random halves.
    pub seed: u64,
}

impl Default for EnsembleConfig {
    fn default() -> Self {
        EnsembleConfig {
            refits: 1000,
            cov_scale: 1.5,
            fraction: 0.5,
            fit: LogisticFit::default(),
            seed: 0,
        }
    }
}

/// θ = (bias − logit(t), w) of a linear model, the parameter vector COPA works with.
pub fn theta_of(model: &LinearModel) -> Vec<f64> {
    let mut t = Vec::with_capacity(model.weights.len() + 1);
    t.push(model.bias - model.score_threshold());
    t.extend_from_slice(&model.weights);
    t
}

/// `(1, x)`: an encoded applicant with the intercept feature prepended.
pub fn with_intercept(x: &[f64]) -> Vec<f64> {
    let mut v = Vec::with_capacity(x.len() + 1);
    v.push(1.0);
    v.extend_from_slice(x);
    v
}

impl ModelUncertainty {
    /// Moments given by the user; checked for shape, finiteness, symmetry and
    /// positive semidefiniteness (smallest eigenvalue ≥ −1e-9·max(1, ‖Σ̂‖)).
    pub fn new(mean: Vec<f64>, cov: Vec<f64>) -> Result<ModelUncertainty> {
        let d = mean.len();
        if d < 2 {
            return Err(Error::InvalidArgument(
                "θ needs an intercept and at least one weight".into(),
            ));
        }
        check_len("covariance entries (d²)", d * d, cov.len())?;
        check_finite("mean", &mean)?;
        check_finite("covariance", &cov)?;
        let scale = cov.iter().fold(1.0f64, |a, &b| a.max(b.abs()));
        for i in 0..d {
            for j in 0..i {
                if (cov[i * d + j] - cov[j * d + i]).abs() > 1e-9 * scale {
                    return Err(Error::InvalidArgument(format!(
                        "the covariance is not symmetric at ({i}, {j})"
                    )));
                }
            }
        }
        let u = ModelUncertainty { mean, cov };
        let ev = u.cov_matrix().symmetric_eigen().eigenvalues;
        if ev.min() < -1e-9 * scale {
            return Err(Error::InvalidArgument(format!(
                "the covariance is not positive semidefinite (eigenvalue {})",
                ev.min()
            )));
        }
        Ok(u)
    }

    /// Estimates (μ̂, Σ̂) from an ensemble of logistic regressions, each refitted on
    /// a random `fraction` of the rows (Bui, Nguyen & Nguyen 2022, experiments: 1000 refits on random
    /// halves, Σ̂ = 1.5 × the sample covariance). `x` are encoded rows, `y` labels in {0, 1}.
    pub fn from_ensemble(x: &[Vec<f64>], y: &[f64], cfg: EnsembleConfig) -> Result<Self> {
        if cfg.refits < 2 {
            return Err(Error::InvalidArgument(
                "an ensemble needs at least 2 refits".into(),
            ));
        }
        if !(cfg.cov_scale.is_finite() && cfg.cov_scale > 0.0) {
            return Err(Error::InvalidArgument("cov_scale must be positive".into()));
        }
        if !(cfg.fraction > 0.0 && cfg.fraction <= 1.0) {
            return Err(Error::InvalidArgument("fraction must lie in (0, 1]".into()));
        }
        if x.is_empty() {
            return Err(Error::InvalidArgument("no rows to refit on".into()));
        }
        check_len("labels", x.len(), y.len())?;
        // Both classes present also means n ≥ 2 rows, so each refit draws k ≥ 2.
        crate::model::check_training_labels(y)?;
        let n = x.len();
        let k = ((n as f64 * cfg.fraction).round() as usize).clamp(2, n);
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(cfg.seed);
        let mut idx: Vec<usize> = (0..n).collect();
        let mut thetas = Vec::with_capacity(cfg.refits);
        for _ in 0..cfg.refits {
            let (chosen, _) = idx.partial_shuffle(&mut rng, k);
            let xs: Vec<Vec<f64>> = chosen.iter().map(|&i| x[i].clone()).collect();
            let ys: Vec<f64> = chosen.iter().map(|&i| y[i]).collect();
            let m = LinearModel::fit(&xs, &ys, cfg.fit)?;
            thetas.push(theta_of(&m));
        }
        Self::from_samples(&thetas, cfg.cov_scale)
    }

    /// Mean and `scale` × sample covariance (denominator n − 1) of parameter vectors.
    pub fn from_samples(thetas: &[Vec<f64>], scale: f64) -> Result<ModelUncertainty> {
        if thetas.len() < 2 {
            return Err(Error::InvalidArgument(
                "a covariance needs at least 2 parameter samples".into(),
            ));
        }
        let n = thetas.len();
        let d = thetas[0].len();
        for t in thetas {
            check_len("parameter sample", d, t.len())?;
            check_finite("parameter sample", t)?;
        }
        if !(scale.is_finite() && scale >= 0.0) {
            return Err(Error::InvalidArgument(
                "the covariance scale must be ≥ 0".into(),
            ));
        }
        let mut mean = vec![0.0; d];
        for t in thetas {
            for (m, v) in mean.iter_mut().zip(t) {
                *m += v / n as f64;
            }
        }
        let mut cov = vec![0.0; d * d];
        for t in thetas {
            for i in 0..d {
                let a = t[i] - mean[i];
                for j in 0..d {
                    cov[i * d + j] += a * (t[j] - mean[j]);
                }
            }
        }
        let denom = (n.max(2) - 1) as f64;
        for c in &mut cov {
            *c *= scale / denom;
        }
        ModelUncertainty::new(mean, cov)
    }

    /// Dimension d of θ (1 + encoded dimension).
    pub fn dim(&self) -> usize {
        self.mean.len()
    }

    /// Σ̂ as a matrix.
    pub fn cov_matrix(&self) -> DMatrix<f64> {
        let d = self.dim();
        DMatrix::from_row_slice(d, d, &self.cov)
    }

    /// μ̂ as a vector.
    pub fn mean_vector(&self) -> DVector<f64> {
        DVector::from_column_slice(&self.mean)
    }

    /// The same moments with Σ̂ multiplied by `s` (the reference evaluation uses 1.0001·Σ̂).
    pub fn scaled_cov(&self, s: f64) -> ModelUncertainty {
        ModelUncertainty {
            mean: self.mean.clone(),
            cov: self.cov.iter().map(|c| c * s).collect(),
        }
    }
}

/// The symmetric PSD square root via the symmetric eigendecomposition
/// (negative round-off eigenvalues clamped to 0).
pub fn psd_sqrt(a: &DMatrix<f64>) -> DMatrix<f64> {
    let sym = (a + a.transpose()) * 0.5;
    let e = sym.symmetric_eigen();
    let mut d = e.eigenvalues.clone();
    for v in d.iter_mut() {
        *v = v.max(0.0).sqrt();
    }
    &e.eigenvectors * DMatrix::from_diagonal(&d) * e.eigenvectors.transpose()
}

/// The Gelbrich distance (Bui, Nguyen & Nguyen 2022, §2.1):
/// `G = sqrt(‖μ₁ − μ₂‖² + Tr[Σ₁ + Σ₂ − 2(Σ₂^{1/2} Σ₁ Σ₂^{1/2})^{1/2}])`.
/// It is the 2-Wasserstein distance between Gaussians with these moments and a
/// lower bound on it for any other laws.
pub fn gelbrich_distance(a: &ModelUncertainty, b: &ModelUncertainty) -> Result<f64> {
    check_len("Gelbrich: mean dimensions", a.dim(), b.dim())?;
    let (s1, s2) = (a.cov_matrix(), b.cov_matrix());
    let r2 = psd_sqrt(&s2);
    let inner = psd_sqrt(&(&r2 * &s1 * &r2));
    let mean2: f64 = a
        .mean
        .iter()
        .zip(&b.mean)
        .map(|(x, y)| (x - y) * (x - y))
        .sum();
    let tr = s1.trace() + s2.trace() - 2.0 * inner.trace();
    Ok((mean2 + tr.max(0.0)).sqrt())
}
