//! Noise models p_ε of the invalidation rate (Guyomard et al. 2023, §2.2): the applicant
//! implements the counterfactual x̌ only approximately, as x̌ + ε.
//!
//! Noise acts on a set of encoded columns only. The default set is the value
//! slots of the mutable contiguous features ([`NoiseModel::default_columns`]):
//! immutable features do not drift, and one-hot indicators cannot take a value
//! "near" 0 or 1 — CROCO's reference code adds noise everywhere and then snaps
//! categorical columns back (`reconstruct_encoding_constraints`), which leaves
//! exactly the numerical columns perturbed; choosing those columns up front is
//! the same distribution without wasting draws.
//!
//! This module sits below the methods: the robustness estimators and
//! generators (`robust`) and the exact engine's robust-to-slips target
//! (`coherent`) share these noise models, the standard normal and the closed
//! forms of a linear model under Gaussian noise ([`linear_invalidation_rate`],
//! [`linear_robust_margin`]), so that no method imports another.

mod linear;
mod normal;

pub use linear::{linear_invalidation_rate, linear_robust_margin};
pub use normal::{normal_cdf, normal_pdf, normal_quantile};

use crate::error::{Error, Result};
use crate::schema::Schema;

/// The shape of the noise on each selected column.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum NoiseKind {
    /// Independent normal noise with a per-column standard deviation.
    Gaussian,
    /// Independent uniform noise on `[−h, h]` with a per-column half-width `h`.
    Uniform,
}

/// A noise distribution over the encoded space: a kind, the columns it acts on
/// (sorted, distinct) and a per-column scale (standard deviation for Gaussian
/// noise, half-width for uniform noise). Constructors take a Gaussian's
/// **variance** σ² (CROCO's `sigma2`); the stored scale is its square root.
#[derive(Debug, Clone, PartialEq)]
pub struct NoiseModel {
    kind: NoiseKind,
    columns: Vec<usize>,
    scale: Vec<f64>,
}

fn check_columns(columns: &[usize]) -> Result<()> {
    if columns.windows(2).any(|w| w[0] >= w[1]) {
        return Err(Error::InvalidArgument(
            "noise columns must be sorted and distinct".into(),
        ));
    }
    Ok(())
}

fn check_scale(what: &str, v: f64) -> Result<()> {
    if v.is_finite() && v >= 0.0 {
        Ok(())
    } else {
        Err(Error::InvalidArgument(format!(
            "{what} must be finite and non-negative, got {v}"
        )))
    }
}

impl NoiseModel {
    /// Isotropic Gaussian noise N(0, σ²I) on `columns`. **`sigma2` is the
    /// variance**, as CROCO's and CARLA's `sigma2` (Guyomard et al. 2023, §2.2): the
    /// standard deviation is `√sigma2`.
    pub fn gaussian(sigma2: f64, columns: Vec<usize>) -> Result<NoiseModel> {
        check_scale("sigma2 (a variance)", sigma2)?;
        check_columns(&columns)?;
        let s = sigma2.sqrt();
        Ok(NoiseModel {
            kind: NoiseKind::Gaussian,
            scale: vec![s; columns.len()],
            columns,
        })
    }

    /// Gaussian noise with a diagonal covariance: `variance[j]` is the
    /// variance σ_j² on `columns[j]` (a variance, as in [`NoiseModel::gaussian`]:
    /// one convention for every Gaussian noise cfx takes).
    pub fn diagonal_gaussian(columns: Vec<usize>, variance: Vec<f64>) -> Result<NoiseModel> {
        check_columns(&columns)?;
        crate::error::check_len("noise variances", columns.len(), variance.len())?;
        for &v in &variance {
            check_scale("a noise variance", v)?;
        }
        Ok(NoiseModel {
            kind: NoiseKind::Gaussian,
            columns,
            scale: variance.iter().map(|v| v.sqrt()).collect(),
        })
    }

    /// Uniform noise on `[−h, h]` per column. CROCO's reference code draws on
    /// `[x − sigma2, x + sigma2]`, i.e. it passes its `sigma2` as the half-width.
    pub fn uniform(half_width: f64, columns: Vec<usize>) -> Result<NoiseModel> {
        check_scale("the uniform half-width", half_width)?;
        check_columns(&columns)?;
        Ok(NoiseModel {
            kind: NoiseKind::Uniform,
            scale: vec![half_width; columns.len()],
            columns,
        })
    }

    /// Uniform noise with a per-column half-width: `half_width[j]` on `columns[j]`.
    pub fn diagonal_uniform(columns: Vec<usize>, half_width: Vec<f64>) -> Result<NoiseModel> {
        check_columns(&columns)?;
        crate::error::check_len("noise half-widths", columns.len(), half_width.len())?;
        for &h in &half_width {
            check_scale("a uniform half-width", h)?;
        }
        Ok(NoiseModel {
            kind: NoiseKind::Uniform,
            columns,
            scale: half_width,
        })
    }

    /// The default noisy columns of a schema: the value slot of every mutable
    /// contiguous feature.
    pub fn default_columns(schema: &Schema) -> Vec<usize> {
        (0..schema.n_features())
            .filter(|&i| schema.features[i].actionability.mutable)
            .filter_map(|i| schema.layout(i).value)
            .collect()
    }

    /// N(0, σ²I) on the schema's default columns (`sigma2` is a variance).
    pub fn gaussian_for_schema(schema: &Schema, sigma2: f64) -> Result<NoiseModel> {
        NoiseModel::gaussian(sigma2, NoiseModel::default_columns(schema))
    }

    /// N(0, σ²I) on the value slots of the mutable contiguous features whose
    /// value in the raw row `raw` is in range, i.e. not in a special state: a
    /// slot that holds the fixed value `F_i` of a special state (HELOC's −7/−8/−9)
    /// is not a quantity the applicant can slip on, so it gets no noise.
    pub fn gaussian_for_applicant(schema: &Schema, raw: &[f64], sigma2: f64) -> Result<NoiseModel> {
        crate::error::check_len("raw row", schema.n_features(), raw.len())?;
        let mut cols = Vec::new();
        for (i, f) in schema.features.iter().enumerate() {
            if let Some(c) = schema.layout(i).value {
                if f.actionability.mutable && f.state_of(raw[i])? == 0 {
                    cols.push(c);
                }
            }
        }
        NoiseModel::gaussian(sigma2, cols)
    }

    /// The kind of noise.
    pub fn kind(&self) -> NoiseKind {
        self.kind
    }

    /// The noisy columns, sorted.
    pub fn columns(&self) -> &[usize] {
        &self.columns
    }

    /// Per-column scale: standard deviation (Gaussian) or half-width (uniform).
    pub fn scale(&self) -> &[f64] {
        &self.scale
    }

    /// Checks that the noise fits an encoded space of dimension `dim`.
    pub(crate) fn check_dim(&self, dim: usize) -> Result<()> {
        match self.columns.last() {
            Some(&c) if c >= dim => Err(Error::DimensionMismatch {
                what: "noise column vs encoded dimension".into(),
                expected: dim,
                got: c + 1,
            }),
            _ => Ok(()),
        }
    }

    /// `√(vᵀΣv)`: the standard deviation of `v·ε` (Gaussian), or of the same
    /// quadratic form with the uniform variance `h²/3`. `v` has the full
    /// encoded length.
    #[inline]
    pub fn projected_std(&self, v: &[f64]) -> f64 {
        let mut q = 0.0;
        for (&c, &s) in self.columns.iter().zip(&self.scale) {
            let t = s * v[c];
            q += t * t;
        }
        match self.kind {
            NoiseKind::Gaussian => q.sqrt(),
            NoiseKind::Uniform => (q / 3.0).sqrt(),
        }
    }
}
