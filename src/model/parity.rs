//! The fidelity check a model validator runs after an import: cfx's
//! probability of every row against the source library's own predictions
//! for the same rows (`predict_proba`, a PMML engine's output, a scorecard
//! tool's scores turned into probabilities). An importer that misreads a
//! split, a default branch or the favourable class shows up here as rows
//! whose probabilities differ, whatever the importer believed.

use super::Model;
use crate::error::{Error, Result};
use serde::Serialize;

/// One row whose probabilities differ.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct Difference {
    /// The data row, counted from 0.
    pub row: usize,
    pub cfx: f64,
    pub expected: f64,
}

/// What [`check_parity`] found.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ParityReport {
    pub rows: usize,
    /// The largest |cfx − expected| over all rows.
    pub max_abs_diff: f64,
    pub tolerance: f64,
    /// Every row differing by more than the tolerance (or where one side is
    /// not a number and the other is), in row order.
    pub differing: Vec<Difference>,
}

/// Compares the model's probability of the favourable outcome on each
/// encoded row with `expected[k]`. Errors: unequal lengths, a negative or
/// non-finite tolerance, a model without probabilities (a scorecard imported
/// without a scaling).
pub fn check_parity(
    model: &dyn Model,
    encoded: &[Vec<f64>],
    expected: &[f64],
    tolerance: f64,
) -> Result<ParityReport> {
    if encoded.len() != expected.len() {
        return Err(Error::InvalidArgument(format!(
            "{} rows of data but {} expected scores",
            encoded.len(),
            expected.len()
        )));
    }
    if !tolerance.is_finite() || tolerance < 0.0 {
        return Err(Error::InvalidArgument(format!(
            "the tolerance must be finite and non-negative, got {tolerance}"
        )));
    }
    let mut report = ParityReport {
        rows: encoded.len(),
        max_abs_diff: 0.0,
        tolerance,
        differing: Vec::new(),
    };
    for (row, (x, &want)) in encoded.iter().zip(expected).enumerate() {
        let got = model.probability(x);
        if got.is_nan() && !want.is_nan() && row == 0 {
            return Err(Error::InvalidArgument(
                "the model gives no probability (a scorecard without a scaling): \
                 import it with its scaling to compare probabilities"
                    .into(),
            ));
        }
        let d = (got - want).abs();
        if d.is_nan() || d > tolerance {
            report.differing.push(Difference {
                row,
                cfx: got,
                expected: want,
            });
        }
        if d.is_nan() {
            report.max_abs_diff = f64::NAN;
        } else if !report.max_abs_diff.is_nan() {
            report.max_abs_diff = report.max_abs_diff.max(d);
        }
    }
    Ok(report)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{LinearModel, sigmoid};

    #[test]
    fn differences_are_found_against_the_closed_form() {
        let m = LinearModel::new(vec![2.0], 0.5, 0.5).unwrap();
        let rows = vec![vec![0.0], vec![1.0], vec![-1.0]];
        // The closed form sigmoid(2x + 0.5), the middle one perturbed.
        let mut want: Vec<f64> = rows.iter().map(|r| sigmoid(2.0 * r[0] + 0.5)).collect();
        want[1] += 1e-3;
        let r = check_parity(&m, &rows, &want, 1e-6).unwrap();
        assert_eq!(r.rows, 3);
        assert_eq!(r.differing.len(), 1);
        assert_eq!(r.differing[0].row, 1);
        assert!((r.max_abs_diff - 1e-3).abs() < 1e-9);
        assert!(check_parity(&m, &rows, &want[..2], 1e-6).is_err());
        assert!(check_parity(&m, &rows, &want, -1.0).is_err());
    }
}
