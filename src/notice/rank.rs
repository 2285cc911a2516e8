//! From contributions to ranked principal reasons.

use super::{Attribution, Method, ReasonTable, Reference, ReferenceKind};
use crate::error::Result;
use crate::schema::{FeatureKind, Schema};
use serde::{Deserialize, Serialize};

/// Where the applicant's value lies against the reference average.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Direction {
    /// Below the reference average of the feature.
    Low,
    /// Above it.
    High,
    /// Equal to it.
    Equal,
    /// A special state (a code such as "no delinquency ever").
    Special,
    /// A categorical level.
    Level,
}

/// One principal reason.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Reason {
    /// 1 for the most important.
    pub rank: usize,
    /// The feature that contributed most to this reason.
    pub feature: String,
    /// Every feature behind the reason (several when a model's reason code
    /// groups characteristics).
    pub features: Vec<String>,
    /// The reason code (the table's, or the model's own).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub code: Option<String>,
    /// The statement the applicant reads (from the bank's table).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub statement: Option<String>,
    /// How far the reason moved the score from the reference, in the
    /// model's score units; negative (towards a decline), or zero for a PMML
    /// code whose total is exactly zero.
    pub contribution: f64,
    /// The applicant's value of `feature`, in words.
    pub value: String,
    pub direction: Direction,
}

/// The ranked principal reasons of one applicant, with the attribution
/// they come from.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ReasonSet {
    pub method: Method,
    /// The method in one sentence.
    pub method_description: String,
    /// The reference population, when the method used one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reference: Option<ReferenceKind>,
    pub reference_rows: usize,
    /// The applicant's score and the reference's (`score = base_value + Σ contributions`).
    pub score: f64,
    pub base_value: f64,
    /// Every feature's contribution, in schema order.
    pub contributions: Vec<FeatureContribution>,
    pub reasons: Vec<Reason>,
    pub max_reasons: usize,
}

/// One feature's contribution.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct FeatureContribution {
    pub feature: String,
    pub contribution: f64,
}

fn direction(schema: &Schema, reference: &Reference, raw: &[f64], i: usize) -> Direction {
    match &schema.features[i].kind {
        FeatureKind::Categorical { .. } => Direction::Level,
        FeatureKind::Contiguous { lower, upper, .. } => {
            let v = raw[i];
            let m = reference.mean_value()[i];
            if !(*lower..=*upper).contains(&v) {
                Direction::Special
            } else if m.is_nan() || v == m {
                Direction::Equal
            } else if v < m {
                Direction::Low
            } else {
                Direction::High
            }
        }
    }
}

/// Ranks an attribution: for the per-feature methods, the features with a
/// negative contribution, most negative first (equal ones in schema order);
/// for PMML's reason codes, the codes in PMML's order. At most `max`.
pub(super) fn rank(
    schema: &Schema,
    raw: &[f64],
    reference: &Reference,
    a: &Attribution,
    table: Option<&ReasonTable>,
    max: usize,
) -> Result<ReasonSet> {
    let name = |i: usize| schema.features[i].name.clone();
    let mut reasons = Vec::new();
    match &a.codes {
        Some(codes) => {
            for (k, t) in codes.iter().take(max).enumerate() {
                let main = t
                    .features
                    .iter()
                    .zip(&t.differences)
                    .fold((t.features[0], f64::NEG_INFINITY), |best, (&f, &d)| {
                        if d > best.1 { (f, d) } else { best }
                    })
                    .0;
                reasons.push(Reason {
                    rank: k + 1,
                    feature: name(main),
                    features: t.features.iter().map(|&f| name(f)).collect(),
                    code: Some(t.code.clone()),
                    statement: table
                        .and_then(|tb| tb.for_code(&t.code))
                        .map(|e| e.statement.clone()),
                    contribution: -t.total,
                    value: schema.describe_value(main, raw[main]),
                    direction: direction(schema, reference, raw, main),
                });
            }
        }
        None => {
            let mut order: Vec<usize> = (0..a.contributions.len())
                .filter(|&i| a.contributions[i] < 0.0)
                .collect();
            order.sort_by(|&i, &j| a.contributions[i].total_cmp(&a.contributions[j]));
            for (k, &i) in order.iter().take(max).enumerate() {
                let dir = direction(schema, reference, raw, i);
                let entry = table.and_then(|t| t.for_feature(&schema.features[i].name, dir));
                reasons.push(Reason {
                    rank: k + 1,
                    feature: name(i),
                    features: vec![name(i)],
                    code: entry.map(|e| e.code.clone()),
                    statement: entry.map(|e| e.statement.clone()),
                    contribution: a.contributions[i],
                    value: schema.describe_value(i, raw[i]),
                    direction: dir,
                });
            }
        }
    }
    Ok(ReasonSet {
        method: a.method,
        method_description: a.method.describe().to_string(),
        reference: a.uses_reference.then(|| reference.kind()),
        reference_rows: if a.uses_reference { reference.len() } else { 0 },
        score: a.score,
        base_value: a.base_value,
        contributions: a
            .contributions
            .iter()
            .enumerate()
            .map(|(i, &c)| FeatureContribution {
                feature: name(i),
                contribution: c,
            })
            .collect(),
        reasons,
        max_reasons: max,
    })
}
