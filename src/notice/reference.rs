//! The reference population a declined applicant is compared with
//! (Regulation B, comment 9(b)(2)-5): all applicants, or the applicants at or
//! slightly above the cut-off.

use crate::data::Dataset;
use crate::error::{Error, Result};
use crate::model::Model;
use crate::schema::{FeatureKind, Schema};
use serde::{Deserialize, Serialize};

/// Which applicants of the bank's dataset form the reference.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case", deny_unknown_fields)]
pub enum ReferenceKind {
    /// Every row of the dataset ("the average of all applicants").
    AllApplicants,
    /// The rows the model accepts whose score lies at most `band` above the
    /// cut-off, in the model's score units (log-odds, or points for a
    /// scorecard): "applicants at or slightly above the minimum passing
    /// score". The bank chooses the band.
    AtCutoff { band: f64 },
}

impl ReferenceKind {
    /// The population in words, for a notice.
    pub fn describe(&self) -> String {
        match self {
            ReferenceKind::AllApplicants => "the average of all applicants".into(),
            ReferenceKind::AtCutoff { band } => format!(
                "the average of the applicants at or slightly above the cut-off (scores at most \
                 {} above it)",
                crate::schema::fmt_num(*band)
            ),
        }
    }
}

/// The reference rows (raw and encoded) and their averages.
#[derive(Debug, Clone)]
pub struct Reference {
    kind: ReferenceKind,
    schema: Schema,
    raw: Vec<Vec<f64>>,
    encoded: Vec<Vec<f64>>,
    mean_encoded: Vec<f64>,
    mean_value: Vec<f64>,
}

impl Reference {
    /// Selects the reference rows of `data` for `model` (which must be made
    /// for the dataset's schema). An empty selection is an error that says
    /// how to widen it.
    pub fn new(model: &dyn Model, data: &Dataset, kind: ReferenceKind) -> Result<Reference> {
        crate::model::check_model_for_schema(
            model,
            &data.schema,
            "the reference dataset's schema",
        )?;
        if data.rows.is_empty() {
            return Err(Error::InvalidArgument(
                "the reference dataset has no rows".into(),
            ));
        }
        let mut raw = Vec::new();
        let mut encoded = Vec::new();
        let thr = model.score_threshold();
        if let ReferenceKind::AtCutoff { band } = kind {
            if !(band.is_finite() && band >= 0.0) {
                return Err(Error::InvalidArgument(format!(
                    "the band above the cut-off must be finite and non-negative, got {band}"
                )));
            }
        }
        let mut scratch = vec![0.0; model.scratch_len()];
        for r in &data.rows {
            let x = data.schema.encode(r)?;
            let keep = match kind {
                ReferenceKind::AllApplicants => true,
                ReferenceKind::AtCutoff { band } => {
                    let s = model.score_in(&x, &mut scratch);
                    model.accepts_score(s) && s - thr <= band
                }
            };
            if keep {
                raw.push(r.clone());
                encoded.push(x);
            }
        }
        if raw.is_empty() {
            return Err(Error::InvalidArgument(format!(
                "no applicant of the reference dataset ({} rows) is accepted with a score at most \
                 the band above the cut-off {}: widen the band",
                data.rows.len(),
                crate::schema::fmt_num(thr)
            )));
        }
        Ok(Reference::from_rows(kind, &data.schema, raw, encoded))
    }

    /// A reference of the given rows without a model (tests of the methods
    /// that take the rows as they are).
    #[cfg(test)]
    pub(crate) fn new_unchecked_for_tests(
        schema: &Schema,
        raw: Vec<Vec<f64>>,
        kind: ReferenceKind,
    ) -> Reference {
        let encoded = raw.iter().map(|r| schema.encode(r).unwrap()).collect();
        Reference::from_rows(kind, schema, raw, encoded)
    }

    fn from_rows(
        kind: ReferenceKind,
        schema: &Schema,
        raw: Vec<Vec<f64>>,
        encoded: Vec<Vec<f64>>,
    ) -> Reference {
        let n = encoded.len() as f64;
        let mut mean_encoded = vec![0.0; schema.encoded_dim()];
        for x in &encoded {
            for (m, v) in mean_encoded.iter_mut().zip(x) {
                *m += v;
            }
        }
        for m in &mut mean_encoded {
            *m /= n;
        }
        // The mean raw value of each contiguous feature over the rows in its
        // value range (special states are not numbers to average).
        let mean_value = schema
            .features
            .iter()
            .enumerate()
            .map(|(i, f)| match &f.kind {
                FeatureKind::Contiguous { lower, upper, .. } => {
                    let vals: Vec<f64> = raw
                        .iter()
                        .map(|r| r[i])
                        .filter(|v| (*lower..=*upper).contains(v))
                        .collect();
                    if vals.is_empty() {
                        f64::NAN
                    } else {
                        vals.iter().sum::<f64>() / vals.len() as f64
                    }
                }
                FeatureKind::Categorical { .. } => f64::NAN,
            })
            .collect();
        Reference {
            kind,
            schema: schema.clone(),
            raw,
            encoded,
            mean_encoded,
            mean_value,
        }
    }

    /// Checks that `schema` is the one the reference rows are under.
    pub(crate) fn check_schema(&self, schema: &Schema) -> Result<()> {
        if schema.encoded_dim() != self.schema.encoded_dim()
            || schema
                .features
                .iter()
                .zip(&self.schema.features)
                .any(|(a, b)| a.name != b.name)
            || schema.n_features() != self.schema.n_features()
        {
            return Err(Error::InvalidArgument(
                "the reference population was built on another schema than the applicant's".into(),
            ));
        }
        Ok(())
    }

    pub fn kind(&self) -> ReferenceKind {
        self.kind
    }
    /// Number of reference rows.
    pub fn len(&self) -> usize {
        self.raw.len()
    }
    /// Never true (an empty reference is refused).
    pub fn is_empty(&self) -> bool {
        self.raw.is_empty()
    }
    /// The reference rows, raw.
    pub fn raw(&self) -> &[Vec<f64>] {
        &self.raw
    }
    /// The reference rows, encoded.
    pub fn encoded(&self) -> &[Vec<f64>] {
        &self.encoded
    }
    /// The mean encoded row.
    pub fn mean_encoded(&self) -> &[f64] {
        &self.mean_encoded
    }
    /// The mean raw value of each contiguous feature over the rows in its
    /// value range (NaN for categorical features or when no row has one).
    pub fn mean_value(&self) -> &[f64] {
        &self.mean_value
    }
}
