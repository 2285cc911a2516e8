//! Advice that survives the next model (issue 28): an advice ledger, and
//! the re-validation of every promise in it when the bank deploys a new model.
//!
//! A lender that told a declined applicant "do this and you will be accepted"
//! retrains its model; when the applicant comes back having done exactly
//! that, the new model may decline them. Bui, Nguyen & Nguyen (2022, COPA)
//! bound that risk in theory; on deployment day a model-risk team needs the
//! operational answer: which promises does the new model break, for whom, and
//! what is the cheapest way to keep them.
//!
//! # The ledger
//! One JSON object per line ([`LedgerRecord`], `"format": "cfx-ledger"`,
//! `"format_version"` [`LEDGER_VERSION`]): the applicant's row, the advised final row (after
//! waiting, where the advice waits), its cost, what kind of advice it was,
//! the fingerprints of the schema and model it was issued under
//! ([`crate::json::schema_fingerprint`], [`crate::json::model_fingerprint`]),
//! an opaque id and issue date, the cfx version, and optionally the robust
//! version of the advice, its COPA-corrected version and a group label for
//! the report. Unknown keys are refused, as everywhere in cfx.
//! [`ledger_from_portfolio`] keeps a portfolio run's answers as records
//! (the portfolio's lines lack the applicant's row, so it reads the run's CSV
//! beside them).
//!
//! # Re-validation
//! [`revalidate`] re-scores the advised row under the new model (any kind cfx
//! imports: the bank may move from a scorecard to XGBoost). A promise is
//! *kept* when the new model accepts the advised row; otherwise it is
//! *broken*, and the exact engine ([`crate::coherent::explain`], proven
//! optimal by its solver) gives the cheapest repair from the advised row —
//! what more the person must do, which is the extra cost of keeping the
//! promise — and from the applicant's original row — what the advice should
//! have been under the new model. A robust version of the advice, when the
//! record holds one, is re-scored too, so the report can say how many
//! promises would have survived had the robust advice been issued; so is a
//! COPA-corrected version ([`copa_corrected_advice`]: the advised row moved by
//! Bui, Nguyen & Nguyen's (2022, §3) correction so that it stays valid under
//! more of the models the issuer's refits suggest).
//!
//! [`revalidate_ledger`] streams a ledger file on all threads in chunks and
//! writes one JSON line per record, in order, byte for byte the same on any
//! thread count and chunk size; memory is the chunk plus, for the report,
//! one number per broken promise.
//!
//! The schema is the one contract between the ledger and the new model: a
//! record issued under another schema (another fingerprint) cannot be
//! re-validated meaningfully, since rows and costs mean something else; the
//! stream refuses the ledger when its first record names another schema, and
//! writes an error line for any later one.

use crate::coherent::{Config, Counterfactual, Explanation, Outcome, ProvedBy, explain};
use crate::error::{Error, Result};
use crate::json::{model_fingerprint, schema_fingerprint};
use crate::model::{AnyModel, Model};
use crate::output::Output;
use crate::schema::Schema;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::io::{BufRead, BufReader};
use std::path::Path;

mod from_portfolio;
mod html;

pub use from_portfolio::{PortfolioLedgerCounts, PortfolioLedgerOptions, ledger_from_portfolio};

/// The ledger format's name, in every record's `format`.
pub const LEDGER_FORMAT: &str = "cfx-ledger";
/// The ledger format's version (bump when a field changes meaning).
pub const LEDGER_VERSION: u32 = 1;

/// What kind of advice a ledger record holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum AdviceKind {
    /// The optimal counterfactual of [`crate::coherent::explain`].
    Explain,
    /// One alternative of a diverse set ([`crate::coherent::explain_diverse`]).
    Diverse,
    /// Waiting advice ([`crate::coherent::waiting::explain_with_waiting`]):
    /// the advised row is the row after waiting and moving.
    Waiting,
    /// Advice computed with a robustness target ([`Config::robustness`]).
    Robust,
}

/// One issued piece of advice (module docs, "The ledger").
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LedgerRecord {
    /// Always [`LEDGER_FORMAT`].
    pub format: String,
    /// Always [`LEDGER_VERSION`] for records this version writes.
    pub format_version: u32,
    /// The issuer's opaque id of the advice (an application number).
    pub id: String,
    /// When it was issued (opaque text, e.g. an ISO date), if known.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub issued: Option<String>,
    /// The cfx version that computed it.
    pub cfx_version: String,
    /// Fingerprint of the schema it was issued under.
    pub schema: String,
    /// Fingerprint of the model it was issued under.
    pub model: String,
    pub kind: AdviceKind,
    /// The applicant's raw row when the advice was issued.
    pub applicant: Vec<f64>,
    /// The raw row the advice leads to (after waiting, where it waits).
    pub advised: Vec<f64>,
    /// The advice's cost ([`crate::coherent::cost`], plus the wait's cost).
    pub cost: f64,
    /// The robust version of the same advice, when one was computed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub robust_advised: Option<Vec<f64>>,
    /// The COPA-corrected version of the same advice
    /// ([`copa_corrected_advice`]), when one was computed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub copa_advised: Option<Vec<f64>>,
    /// A label for the report's breakdown (a region, a product).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub group: Option<String>,
}

impl LedgerRecord {
    /// A record of `advised` (cost `cost`) for `applicant`, issued under
    /// `schema` and `model`.
    pub fn new(
        schema: &Schema,
        model: &AnyModel,
        id: &str,
        kind: AdviceKind,
        applicant: &[f64],
        advised: &[f64],
        cost: f64,
    ) -> Result<LedgerRecord> {
        let fingerprints = (schema_fingerprint(schema), model_fingerprint(model));
        Self::with_fingerprints(schema, &fingerprints, id, kind, applicant, advised, cost)
    }

    /// [`Self::new`] with the schema's and model's fingerprints computed once
    /// by the caller (a model's fingerprint hashes its whole JSON, too much to
    /// repeat for every record of a stream).
    fn with_fingerprints(
        schema: &Schema,
        (schema_fp, model_fp): &(String, String),
        id: &str,
        kind: AdviceKind,
        applicant: &[f64],
        advised: &[f64],
        cost: f64,
    ) -> Result<LedgerRecord> {
        let n = schema.n_features();
        if applicant.len() != n || advised.len() != n {
            return Err(Error::InvalidArgument(format!(
                "ledger record '{id}': rows of {} and {} values, the schema has {n} features",
                applicant.len(),
                advised.len()
            )));
        }
        if applicant.iter().chain(advised).any(|v| !v.is_finite()) || !cost.is_finite() {
            return Err(Error::InvalidArgument(format!(
                "ledger record '{id}': rows and cost must be finite"
            )));
        }
        Ok(LedgerRecord {
            format: LEDGER_FORMAT.into(),
            format_version: LEDGER_VERSION,
            id: id.into(),
            issued: None,
            cfx_version: env!("CARGO_PKG_VERSION").into(),
            schema: schema_fp.clone(),
            model: model_fp.clone(),
            kind,
            applicant: applicant.to_vec(),
            advised: advised.to_vec(),
            cost,
            robust_advised: None,
            copa_advised: None,
            group: None,
        })
    }

    /// The record of an explanation's optimal counterfactual (kind
    /// [`AdviceKind::Robust`] when it was computed with a robustness target);
    /// `None` when it has none.
    pub fn from_explanation(
        schema: &Schema,
        model: &AnyModel,
        id: &str,
        ex: &Explanation,
    ) -> Result<Option<LedgerRecord>> {
        let kind = if ex.robustness.is_some() {
            AdviceKind::Robust
        } else {
            AdviceKind::Explain
        };
        ex.counterfactuals
            .first()
            .map(|cf| Self::new(schema, model, id, kind, &ex.factual, &cf.raw, cf.cost))
            .transpose()
    }

    /// One record per counterfactual of a diverse set, ids `"<id>/<k>"`.
    pub fn from_diverse(
        schema: &Schema,
        model: &AnyModel,
        id: &str,
        ex: &Explanation,
    ) -> Result<Vec<LedgerRecord>> {
        (0..ex.counterfactuals.len())
            .filter_map(|k| Self::from_diverse_at(schema, model, id, ex, k).transpose())
            .collect()
    }

    /// The record of counterfactual `k` of a diverse set (id `"<id>/<k>"`,
    /// kind [`AdviceKind::Explain`] for the optimal one, `k = 0`, else
    /// [`AdviceKind::Diverse`]): element `k` of [`Self::from_diverse`]; `None`
    /// when the set has no counterfactual `k`.
    pub fn from_diverse_at(
        schema: &Schema,
        model: &AnyModel,
        id: &str,
        ex: &Explanation,
        k: usize,
    ) -> Result<Option<LedgerRecord>> {
        let kind = if k == 0 {
            AdviceKind::Explain
        } else {
            AdviceKind::Diverse
        };
        ex.counterfactuals
            .get(k)
            .map(|cf| {
                Self::new(
                    schema,
                    model,
                    &format!("{id}/{k}"),
                    kind,
                    &ex.factual,
                    &cf.raw,
                    cf.cost,
                )
            })
            .transpose()
    }

    /// The record of waiting advice; `None` when there is none.
    pub fn from_waiting(
        schema: &Schema,
        model: &AnyModel,
        id: &str,
        applicant: &[f64],
        ex: &crate::coherent::waiting::WaitingExplanation,
    ) -> Result<Option<LedgerRecord>> {
        ex.advice
            .as_ref()
            .map(|a| {
                Self::new(
                    schema,
                    model,
                    id,
                    AdviceKind::Waiting,
                    applicant,
                    &a.raw,
                    a.cost,
                )
            })
            .transpose()
    }

    /// Reads one ledger line (strict: unknown keys, another format or
    /// version are refused).
    pub fn from_json(line: &str) -> Result<LedgerRecord> {
        let v = crate::json::parse(line, "ledger record")?;
        match v.get("format").and_then(|f| f.as_str()) {
            Some(LEDGER_FORMAT) => {}
            other => {
                return Err(Error::Format(format!(
                    "ledger record: format {other:?}, expected \"{LEDGER_FORMAT}\""
                )));
            }
        }
        let version = crate::json::format_version(&v, "ledger record")?;
        if version != LEDGER_VERSION {
            return Err(Error::Format(format!(
                "ledger record: version {version}; this cfx reads version {LEDGER_VERSION}"
            )));
        }
        crate::json::from_value(&v, "ledger record")
    }

    /// One JSON line (no line end).
    pub fn to_json(&self) -> String {
        serde_json::to_string(self).expect("a ledger record serialises")
    }
}

/// The COPA-corrected version of the advice `advised` for the applicant
/// `applicant` (Bui, Nguyen & Nguyen 2022, §3, [`crate::plan::correct_plan_in_box`]):
/// the advised row, as a one-option plan, is moved by the Requirement
/// projection and the Mahalanobis improvement so that it stays valid under
/// more of the models within the Gelbrich ball around `uncertainty` (the
/// issuer's estimate of how its logistic model may move: the moments of its
/// refits). Only what the advice may move moves: the value of each contiguous
/// feature that both the applicant and the advised row hold as a value, inside
/// the applicant's change limits and direction (the intersection of both
/// rows' [`crate::plan::copa_box`]); categorical levels and states stay as
/// advised; the result is snapped onto integer and step grids and decoded.
///
/// `None` when the corrected row breaks a rule of the schema for the
/// applicant ([`Schema::check_advice`]) — a version nobody could follow is
/// not kept. Only the issuing model's θ-space matters here (the uncertainty's
/// dimension is the schema's encoded dimension plus the intercept); the new
/// model re-validating the record may be of any kind.
pub fn copa_corrected_advice(
    schema: &Schema,
    uncertainty: &crate::plan::ModelUncertainty,
    applicant: &[f64],
    advised: &[f64],
    config: crate::plan::CorrectionConfig,
) -> Result<Option<Vec<f64>>> {
    use crate::plan::{copa_box, correct_plan_in_box, decode_options, with_intercept};
    let d = schema.encoded_dim();
    crate::error::check_len(
        "COPA correction: uncertainty dimension (encoded features + intercept)",
        d + 1,
        uncertainty.dim(),
    )?;
    let x = schema.encode(advised)?;
    let from_advised = copa_box(schema, advised)?;
    let from_applicant = copa_box(schema, applicant)?;
    let x0 = schema.encode(applicant)?;
    let mut bx = from_advised.clone();
    for v in 0..d {
        if bx.lo[v] == bx.hi[v] {
            continue;
        }
        if from_applicant.lo[v] == from_applicant.hi[v] && x0[v] != x[v] {
            // the applicant's value slot could not move (a state, or
            // immutable): hold the advised value
            bx.lo[v] = x[v];
            bx.hi[v] = x[v];
            continue;
        }
        bx.lo[v] = bx.lo[v].max(from_applicant.lo[v]).min(x[v]);
        bx.hi[v] = bx.hi[v].min(from_applicant.hi[v]).max(x[v]);
    }
    let corrected = correct_plan_in_box(&[with_intercept(&x)], uncertainty, config, &bx)?;
    let option = corrected.plan[0][1..].to_vec();
    let (raw, _) = decode_options(schema, uncertainty, advised, &[option])?;
    let row = raw.into_iter().next().expect("one option in, one out");
    Ok(schema
        .check_advice(applicant, &row, 0)
        .is_ok()
        .then_some(row))
}

/// A repair the exact engine proved (or found, at a limit) under the new model.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Repair {
    /// The changes, in words (`feature: from → to`).
    pub changes: Vec<String>,
    /// Its cost from the row it starts at.
    pub cost: f64,
    /// The names of the features it changes, in schema order (the changes'
    /// own words may hold any character, so the report counts these).
    pub features: Vec<String>,
    /// `"optimal"`, or `"time_limit"` (found, not proven optimal).
    pub outcome: &'static str,
    pub proved_by: ProvedBy,
    /// The repaired raw row.
    pub raw: Vec<f64>,
}

impl Repair {
    fn of(cf: &Counterfactual) -> Repair {
        Repair {
            changes: cf.changes.iter().map(|c| c.to_string()).collect(),
            cost: cf.cost,
            features: cf.changes.iter().map(|c| c.name.clone()).collect(),
            outcome: if cf.status == Outcome::Optimal {
                "optimal"
            } else {
                "time_limit"
            },
            proved_by: cf.proved_by,
            raw: cf.raw.clone(),
        }
    }

    /// Staying put: the row is already accepted.
    fn none(row: &[f64]) -> Repair {
        Repair {
            changes: Vec::new(),
            cost: 0.0,
            features: Vec::new(),
            outcome: "optimal",
            proved_by: ProvedBy::Highs,
            raw: row.to_vec(),
        }
    }
}

/// Whether a promise holds under the new model.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum PromiseStatus {
    /// The new model accepts the advised row.
    Kept,
    /// The new model declines it.
    Broken,
}

/// What re-validating one ledger record found (keys in alphabetical order).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Revalidation {
    /// The cheapest repair from the applicant's original row under the new
    /// model (what the advice should have been); `None` when the promise is
    /// kept, or when the engine found none (see `repair_outcome`).
    pub applicant_repair: Option<Repair>,
    /// Whether the COPA-corrected version of the advice is accepted by the
    /// new model (`None`: the record holds none).
    pub copa_kept: Option<bool>,
    /// The extra cost of keeping a broken promise: the repair's cost from
    /// the advised row.
    pub extra_cost: Option<f64>,
    pub id: String,
    /// The advised row's score under the new model minus its acceptance
    /// threshold, in the model's own score units (log-odds; points for a
    /// scorecard): > 0 accepted, ≤ 0 declined (a scorecard accepts at 0).
    pub margin: f64,
    /// Whether the new model is the one the advice was issued under.
    pub model_changed: bool,
    /// The advised row's probability of acceptance under the new model (a
    /// scorecard without a scaling has none).
    pub probability: Option<f64>,
    /// The record's 0-based number in a ledger stream ([`revalidate_ledger`]);
    /// absent for a single record.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub record: Option<usize>,
    /// The cheapest repair from the advised row (what more the person must
    /// do); `None` when the promise is kept or none was found.
    pub repair: Option<Repair>,
    /// Why a broken promise has no repair: `"infeasible"` (no change the
    /// schema allows is accepted) or the solver's limit.
    pub repair_outcome: Option<String>,
    /// Whether the robust version of the advice is accepted by the new model
    /// (`None`: the record holds none).
    pub robust_kept: Option<bool>,
    pub status: PromiseStatus,
}

fn check_row(schema: &Schema, id: &str, what: &str, row: &[f64]) -> Result<()> {
    if row.len() != schema.n_features() {
        return Err(Error::InvalidArgument(format!(
            "ledger record '{id}': the {what} row has {} values, the schema has {} features",
            row.len(),
            schema.n_features()
        )));
    }
    if row.iter().any(|v| !v.is_finite()) {
        return Err(Error::InvalidArgument(format!(
            "ledger record '{id}': the {what} row holds a non-finite value"
        )));
    }
    Ok(())
}

fn outcome_label(o: &Outcome) -> String {
    match o {
        Outcome::Infeasible { .. } => "infeasible".into(),
        Outcome::TimeLimit { .. } => "time_limit".into(),
        other => format!("{other:?}"),
    }
}

/// Re-validates one record against `new_model` (module docs): the schema
/// must be the one it was issued under (same fingerprint), else an error
/// that says so.
pub fn revalidate(
    schema: &Schema,
    new_model: &AnyModel,
    record: &LedgerRecord,
    config: &Config,
) -> Result<Revalidation> {
    let fp = schema_fingerprint(schema);
    revalidate_with(
        schema,
        &fp,
        &model_fingerprint(new_model),
        new_model,
        record,
        config,
    )
}

fn revalidate_with(
    schema: &Schema,
    schema_fp: &str,
    model_fp: &str,
    new_model: &AnyModel,
    record: &LedgerRecord,
    config: &Config,
) -> Result<Revalidation> {
    let id = &record.id;
    if record.schema != schema_fp {
        return Err(Error::InvalidArgument(format!(
            "ledger record '{id}' was issued under schema {}, not this schema ({schema_fp}): \
             re-validate with the schema the advice was issued under",
            record.schema
        )));
    }
    check_row(schema, id, "applicant", &record.applicant)?;
    check_row(schema, id, "advised", &record.advised)?;
    let model: &dyn Model = new_model;
    let x = schema.encode(&record.advised)?;
    let score = model.score(&x);
    let margin = score - model.score_threshold();
    let probability = model
        .has_probability()
        .then(|| crate::model::sigmoid(model.log_odds_of_score(score)));
    let robust_kept = match &record.robust_advised {
        Some(r) => {
            check_row(schema, id, "robust advised", r)?;
            Some(model.accepts(&schema.encode(r)?))
        }
        None => None,
    };
    let copa_kept = match &record.copa_advised {
        Some(r) => {
            check_row(schema, id, "COPA-corrected advised", r)?;
            Some(model.accepts(&schema.encode(r)?))
        }
        None => None,
    };
    let mut out = Revalidation {
        applicant_repair: None,
        copa_kept,
        extra_cost: None,
        id: id.clone(),
        margin,
        model_changed: record.model != model_fp,
        probability,
        record: None,
        repair: None,
        repair_outcome: None,
        robust_kept,
        status: PromiseStatus::Kept,
    };
    if model.accepts_score(score) {
        return Ok(out);
    }
    out.status = PromiseStatus::Broken;
    let ex = explain(schema, model, &record.advised, config)?;
    match ex.counterfactuals.first() {
        Some(cf) => {
            out.extra_cost = Some(cf.cost);
            out.repair = Some(Repair::of(cf));
        }
        None => out.repair_outcome = Some(outcome_label(&ex.outcome)),
    }
    out.applicant_repair = if model.accepts(&schema.encode(&record.applicant)?) {
        Some(Repair::none(&record.applicant))
    } else {
        explain(schema, model, &record.applicant, config)?
            .counterfactuals
            .first()
            .map(Repair::of)
    };
    Ok(out)
}

/// Options of [`revalidate_ledger`].
#[derive(Debug, Clone, PartialEq)]
pub struct RevalidateOptions {
    /// Records read, re-validated and written at a time (default 4096).
    pub chunk_rows: usize,
}

impl Default for RevalidateOptions {
    fn default() -> Self {
        RevalidateOptions { chunk_rows: 4096 }
    }
}

/// Counts of one group of the report.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize)]
pub struct GroupCounts {
    pub records: usize,
    pub broken: usize,
}

/// Quantiles of the extra cost of keeping the broken promises.
#[derive(Debug, Clone, Copy, PartialEq, Default, Serialize)]
pub struct CostQuantiles {
    pub min: f64,
    pub median: f64,
    pub p90: f64,
    pub max: f64,
    pub mean: f64,
}

/// The deployment report (module docs): what a model-risk committee reads
/// before signing off a new model.
#[derive(Debug, Clone, PartialEq, Default, Serialize)]
pub struct DeploymentReport {
    /// Records re-validated (errors excluded).
    pub records: usize,
    pub kept: usize,
    pub broken: usize,
    /// `broken / records`.
    pub broken_share: f64,
    /// Records that could not be read or re-validated.
    pub errors: usize,
    /// Broken promises with a repair from the advised row.
    pub repaired: usize,
    /// The extra cost of keeping each repaired promise.
    pub extra_cost: Option<CostQuantiles>,
    /// Its distribution: ten equal-width bins `(low, high, count)` from the
    /// least to the largest extra cost (empty without repairs).
    pub extra_cost_histogram: Vec<(f64, f64, usize)>,
    /// Features the repairs of broken promises change, most often first.
    pub features_behind_breaks: Vec<(String, usize)>,
    /// Records holding a robust version, and how many of those it would
    /// have broken.
    pub robust_records: usize,
    pub robust_broken: usize,
    /// Records holding a COPA-corrected version, and how many of those it
    /// would have broken.
    pub copa_records: usize,
    pub copa_broken: usize,
    /// Per group label (records without one are under `""`).
    pub groups: BTreeMap<String, GroupCounts>,
}

/// What one chunk adds to the report.
#[derive(Debug, Default)]
struct Tally {
    records: usize,
    broken: usize,
    errors: usize,
    extra: Vec<f64>,
    features: BTreeMap<String, usize>,
    robust_records: usize,
    robust_broken: usize,
    copa_records: usize,
    copa_broken: usize,
    groups: BTreeMap<String, GroupCounts>,
}

impl Tally {
    fn absorb(&mut self, o: Tally) {
        self.records += o.records;
        self.broken += o.broken;
        self.errors += o.errors;
        self.extra.extend(o.extra);
        for (k, v) in o.features {
            *self.features.entry(k).or_default() += v;
        }
        self.robust_records += o.robust_records;
        self.robust_broken += o.robust_broken;
        self.copa_records += o.copa_records;
        self.copa_broken += o.copa_broken;
        for (k, v) in o.groups {
            let g = self.groups.entry(k).or_default();
            g.records += v.records;
            g.broken += v.broken;
        }
    }

    fn report(mut self) -> DeploymentReport {
        let extra_cost = (!self.extra.is_empty()).then(|| {
            self.extra.sort_by(f64::total_cmp);
            let q = |p: f64| {
                let k = ((self.extra.len() - 1) as f64 * p).round() as usize;
                self.extra[k]
            };
            CostQuantiles {
                min: self.extra[0],
                median: q(0.5),
                p90: q(0.9),
                max: *self.extra.last().unwrap(),
                mean: self.extra.iter().sum::<f64>() / self.extra.len() as f64,
            }
        });
        let mut extra_cost_histogram = Vec::new();
        if let (Some(&lo), Some(&hi)) = (self.extra.first(), self.extra.last()) {
            let bins = 10;
            let width = (hi - lo) / bins as f64;
            for b in 0..bins {
                let (a, z) = (lo + b as f64 * width, lo + (b + 1) as f64 * width);
                extra_cost_histogram.push((a, if b + 1 == bins { hi } else { z }, 0));
            }
            for &c in &self.extra {
                let b = if width > 0.0 {
                    (((c - lo) / width) as usize).min(bins - 1)
                } else {
                    0
                };
                extra_cost_histogram[b].2 += 1;
            }
        }
        let mut features: Vec<(String, usize)> = self.features.into_iter().collect();
        features.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(&b.0)));
        DeploymentReport {
            records: self.records,
            kept: self.records - self.broken,
            broken: self.broken,
            broken_share: if self.records > 0 {
                self.broken as f64 / self.records as f64
            } else {
                0.0
            },
            errors: self.errors,
            repaired: self.extra.len(),
            extra_cost,
            extra_cost_histogram,
            features_behind_breaks: features,
            robust_records: self.robust_records,
            robust_broken: self.robust_broken,
            copa_records: self.copa_records,
            copa_broken: self.copa_broken,
            groups: self.groups,
        }
    }
}

/// Re-validates one ledger line into `out` (one JSON line), counting it.
#[allow(clippy::too_many_arguments)]
fn one_line(
    schema: &Schema,
    schema_fp: &str,
    model_fp: &str,
    new_model: &AnyModel,
    config: &Config,
    number: usize,
    line: &str,
    out: &mut Vec<u8>,
    tally: &mut Tally,
) {
    let result = LedgerRecord::from_json(line).and_then(|r| {
        let v = revalidate_with(schema, schema_fp, model_fp, new_model, &r, config)?;
        Ok((r, v))
    });
    match result {
        Ok((record, mut v)) => {
            tally.records += 1;
            let group = tally
                .groups
                .entry(record.group.clone().unwrap_or_default())
                .or_default();
            group.records += 1;
            if v.status == PromiseStatus::Broken {
                tally.broken += 1;
                group.broken += 1;
            }
            if let Some(c) = v.extra_cost {
                tally.extra.push(c);
            }
            if let Some(r) = &v.repair {
                for f in &r.features {
                    *tally.features.entry(f.clone()).or_default() += 1;
                }
            }
            if let Some(k) = v.robust_kept {
                tally.robust_records += 1;
                tally.robust_broken += usize::from(!k);
            }
            if let Some(k) = v.copa_kept {
                tally.copa_records += 1;
                tally.copa_broken += usize::from(!k);
            }
            v.record = Some(number);
            serde_json::to_writer(&mut *out, &v).expect("writing to memory");
        }
        Err(e) => {
            tally.errors += 1;
            let obj = serde_json::json!({"error": e.to_string(), "record": number});
            serde_json::to_writer(&mut *out, &obj).expect("writing to memory");
        }
    }
    out.push(b'\n');
}

/// Streams the ledger at `input` (JSON lines; blank lines skipped) through
/// [`revalidate`] against `new_model` on `config.batch_threads` threads (0:
/// all cores), writing one JSON line per record to `output` in input order
/// (the [`Revalidation`] with `record`, the record's 0-based number; or
/// `{"error", "record"}` for a record that cannot be read or re-validated),
/// and returns the [`DeploymentReport`]. The output does not depend on the
/// thread count or the chunk size. The ledger is refused before anything is
/// written when its first record cannot be read or names another schema.
/// `output` must not be the ledger (the same file, a symbolic or hard link to
/// it: refused before anything is opened); it is written as
/// [`crate::output`] writes every file, replaced only once complete, so a
/// failed or killed run leaves it as it was.
pub fn revalidate_ledger(
    schema: &Schema,
    new_model: &AnyModel,
    input: &Path,
    output: &Path,
    config: &Config,
    options: &RevalidateOptions,
) -> Result<DeploymentReport> {
    crate::output::check_not_input(output, &[input])?;
    config.validate()?;
    if options.chunk_rows == 0 {
        return Err(Error::InvalidArgument(
            "chunk_rows must be at least 1".into(),
        ));
    }
    let schema_fp = schema_fingerprint(schema);
    let model_fp = model_fingerprint(new_model);
    let file = std::fs::File::open(input)
        .map_err(|e| Error::Io(format!("cannot read '{}': {e}", input.display())))?;
    let mut reader = BufReader::new(file);
    let read_err = |e: std::io::Error| Error::Io(format!("cannot read '{}': {e}", input.display()));
    // The first record decides whether the ledger belongs to this schema.
    let mut pending: Vec<String> = Vec::new();
    let mut line = String::new();
    loop {
        line.clear();
        if reader.read_line(&mut line).map_err(read_err)? == 0 {
            break;
        }
        if !line.trim().is_empty() {
            let first = LedgerRecord::from_json(line.trim())
                .map_err(|e| Error::Format(format!("'{}': first record: {e}", input.display())))?;
            if first.schema != schema_fp {
                return Err(Error::InvalidArgument(format!(
                    "'{}' was issued under schema {}, not this schema ({schema_fp}): \
                     re-validate with the schema the advice was issued under",
                    input.display(),
                    first.schema
                )));
            }
            pending.push(line.trim().to_string());
            break;
        }
    }
    let mut out = Output::create(output, &[input])?;
    let threads = if config.batch_threads == 0 {
        std::thread::available_parallelism().map_or(1, |n| n.get())
    } else {
        config.batch_threads
    };
    let mut tally = Tally::default();
    let mut number = 0usize;
    let mut eof = pending.is_empty();
    loop {
        while !eof && pending.len() < options.chunk_rows {
            line.clear();
            if reader.read_line(&mut line).map_err(read_err)? == 0 {
                eof = true;
            } else if !line.trim().is_empty() {
                pending.push(line.trim().to_string());
            }
        }
        if pending.is_empty() {
            break;
        }
        // Contiguous parts, one per thread, joined in order.
        let part = pending.len().div_ceil(threads.max(1));
        let run = |lines: &[String], from: usize| {
            let mut bytes = Vec::new();
            let mut t = Tally::default();
            for (k, l) in lines.iter().enumerate() {
                one_line(
                    schema,
                    &schema_fp,
                    &model_fp,
                    new_model,
                    config,
                    from + k,
                    l,
                    &mut bytes,
                    &mut t,
                );
            }
            (bytes, t)
        };
        let results: Vec<(Vec<u8>, Tally)> = if threads <= 1 || pending.len() == 1 {
            vec![run(&pending, number)]
        } else {
            std::thread::scope(|s| {
                let handles: Vec<_> = pending
                    .chunks(part)
                    .enumerate()
                    .map(|(j, c)| {
                        let run = &run;
                        crate::workers::spawn(s, move || run(c, number + j * part))
                    })
                    .collect();
                handles.into_iter().map(crate::workers::join).collect()
            })
        };
        for (bytes, t) in results {
            out.write_all(&bytes)?;
            tally.absorb(t);
        }
        number += pending.len();
        pending.clear();
    }
    out.commit()?;
    Ok(tally.report())
}
