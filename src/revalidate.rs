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
//! version of the advice, what a robust record or a robust version is robust
//! to ([`LedgerRecord::robustness`]: σ², γ and a tree ensemble's box), its
//! COPA-corrected version, a group label for
//! the report, and the id of the adverse-action notice that carried the
//! advice ([`crate::notice::Notice::id`], [`LedgerRecord::from_notice`]), which
//! every re-validation line and every contact of the report repeats: a broken
//! promise leads straight to the notice the applicant holds. Unknown keys are
//! refused, as everywhere in cfx.
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
//! Every record ends in one [`PromiseOutcome`] — kept, repaired, or broken
//! without a repair (with the reason: no accepted row within the schema's
//! rules, a solver limit, or a new model the exact engine cannot repair
//! for) — or in an error line when it cannot be read or re-validated; the
//! [`DeploymentReport`]'s counts add up, count an applicant's alternatives as
//! one promise with options ([`PromiseCounts`]), name the models
//! ([`ModelName`]) and list the customers to contact ([`Contact`]) (issue 41).
//! The new model must be made for the schema
//! ([`crate::model::check_model_for_schema`]), else nothing is re-validated.
//!
//! [`revalidate_ledger`] streams a ledger file on all threads in chunks and
//! writes one JSON line per record, in order, byte for byte the same on any
//! thread count and chunk size; memory is the chunk plus, for the report,
//! one number and one contact per broken promise and one count per
//! applicant with alternatives.
//!
//! The schema is the one contract between the ledger and the new model: a
//! record issued under another schema (another fingerprint) cannot be
//! re-validated meaningfully, since rows and costs mean something else; the
//! stream refuses the ledger when its first record names another schema, and
//! writes an error line for any later one.

use crate::coherent::{
    Config, Counterfactual, Explanation, Outcome, ProvedBy, Robustness, explain,
};
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
#[cfg(test)]
mod tests;

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
    /// What the robust advice of this record is robust to
    /// ([`Robustness`]: the slips' variance `sigma2`, the invalidation
    /// target `invalidation_target` and, for a tree ensemble, `box_kind`,
    /// written only when not the default box over the reals): that of the
    /// advice itself for a record of kind [`AdviceKind::Robust`], else that of
    /// its robust version ([`Self::robust_advised`]). Absent on every other
    /// record, and where the writer cannot know it: a portfolio run's lines
    /// do not carry their target, so the robust records of
    /// [`ledger_from_portfolio`] have it only when the caller gives it
    /// ([`PortfolioLedgerOptions::robustness`]). An optional key: records
    /// without it read as before (the
    /// format's version is unchanged; a cfx older than this key refuses a
    /// record that has it, as it refuses every unknown key); a target that
    /// is not one ([`Config::robustness`]'s rules) or has an unknown key is
    /// refused.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub robustness: Option<Robustness>,
    /// The COPA-corrected version of the same advice
    /// ([`copa_corrected_advice`]), when one was computed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub copa_advised: Option<Vec<f64>>,
    /// A label for the report's breakdown (a region, a product).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub group: Option<String>,
    /// The id of the adverse-action notice that carried this advice
    /// ([`crate::notice::Notice::id`]), when it was issued with one. An
    /// optional key: records without it read as before (the format's
    /// version is unchanged; a cfx older than this key refuses a record
    /// that has it, as it refuses every unknown key).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub notice: Option<String>,
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
            robustness: None,
            copa_advised: None,
            group: None,
            notice: None,
        })
    }

    /// The records of an adverse-action notice's advice, each carrying the
    /// notice's id ([`LedgerRecord::notice`]): the cheapest change (kind
    /// [`AdviceKind::Explain`], id `id`) with the robust version as its
    /// `robust_advised` and that version's target as its `robustness` when
    /// the notice has one, and the waiting option
    /// (kind [`AdviceKind::Waiting`], id `"<id>/waiting"`) when it waits at
    /// least a month (a waiting option that acts now is the cheapest change
    /// again). Empty when the notice carries no advice. `model` must be the
    /// model the notice was made with (its fingerprint goes into the records).
    pub fn from_notice(
        schema: &Schema,
        model: &AnyModel,
        id: &str,
        notice: &crate::notice::Notice,
    ) -> Result<Vec<LedgerRecord>> {
        crate::error::check_len(
            "notice applicant row",
            schema.n_features(),
            notice.applicant.len(),
        )?;
        let fingerprints = (schema_fingerprint(schema), model_fingerprint(model));
        let mut out = Vec::new();
        if let Some(a) = &notice.advice
            && let (Some(advised), Some(cost)) = (&a.advised, a.cost)
        {
            let mut r = Self::with_fingerprints(
                schema,
                &fingerprints,
                id,
                AdviceKind::Explain,
                &notice.applicant,
                advised,
                cost,
            )?;
            r.robust_advised = notice.robust.advised.clone();
            if r.robust_advised.is_some() {
                r.robustness = notice.robust.robustness;
            }
            r.notice = Some(notice.id.clone());
            out.push(r);
        }
        let w = &notice.waiting;
        if let (Some(advised), Some(cost), Some(m)) = (&w.advised, w.cost, w.months)
            && m > 0
        {
            let mut r = Self::with_fingerprints(
                schema,
                &fingerprints,
                &format!("{id}/waiting"),
                AdviceKind::Waiting,
                &notice.applicant,
                advised,
                cost,
            )?;
            r.notice = Some(notice.id.clone());
            out.push(r);
        }
        Ok(out)
    }

    /// The record of an explanation's optimal counterfactual (kind
    /// [`AdviceKind::Robust`], with the target as its `robustness`, when it
    /// was computed with a robustness target); `None` when it has none.
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
            .map(|cf| {
                let mut r = Self::new(schema, model, id, kind, &ex.factual, &cf.raw, cf.cost)?;
                r.robustness = ex.robustness;
                Ok(r)
            })
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
        let record: LedgerRecord = crate::json::from_value(&v, "ledger record")?;
        if let Some(r) = &record.robustness {
            r.validate().map_err(|e| {
                Error::Format(format!("ledger record '{}': {}", record.id, e.message()))
            })?;
        }
        Ok(record)
    }

    /// Checks that the record was issued under the schema of fingerprint
    /// `schema_fp` ([`crate::json::schema_fingerprint`]): rows and costs of
    /// a record mean something only under its own schema (issue 41: inputs
    /// that belong together). The refusal names the record and both schemas.
    pub fn check_issued_under(&self, schema_fp: &str) -> Result<()> {
        if self.schema == schema_fp {
            return Ok(());
        }
        Err(Error::InvalidArgument(format!(
            "ledger record '{}' was issued under schema {}, not this schema ({schema_fp}): \
             use the schema the advice was issued under",
            self.id, self.schema
        )))
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
    /// `"optimal"` (proven optimal for the decision rule the exact engine
    /// solves: score ≥ threshold + [`Config::margin`], see
    /// [`DeploymentReport::decision_margin`]), `"time_limit"` (found, not
    /// proven optimal), or `"no_change_needed"` (the row is already
    /// accepted: nothing was solved).
    pub outcome: &'static str,
    /// The solver that proved or found the repair; `None` for
    /// `"no_change_needed"`, where no solver ran.
    pub proved_by: Option<ProvedBy>,
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
            proved_by: Some(cf.proved_by),
            raw: cf.raw.clone(),
        }
    }

    /// Staying put: the row is already accepted.
    fn none(row: &[f64]) -> Repair {
        Repair {
            changes: Vec::new(),
            cost: 0.0,
            features: Vec::new(),
            outcome: "no_change_needed",
            proved_by: None,
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

/// What re-validation found for one promise, in full: [`PromiseStatus`]
/// says kept or broken; this also says whether a broken promise has a
/// repair. Every re-validated record has exactly one, so the report's
/// counts add up (`kept + repaired + no_repair = records`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum PromiseOutcome {
    /// The new model accepts the advised row.
    Kept,
    /// Broken, and the exact engine found a repair from the advised row
    /// (proven optimal or at a limit: [`Repair::outcome`]).
    Repaired,
    /// Broken, without a repair: `repair_outcome` says why in one word,
    /// `no_repair_reason` in a sentence (no accepted row within the schema's
    /// rules, a solver limit without an incumbent, or a new model the exact
    /// engine cannot repair for, such as a tanh network).
    NoRepair,
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
    /// Why a broken promise has no repair, in words (`None` unless
    /// `outcome` is `"no_repair"`).
    pub no_repair_reason: Option<String>,
    /// The id of the notice that carried the advice, from the record
    /// ([`LedgerRecord::notice`]); absent when the record has none.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub notice: Option<String>,
    /// Kept, repaired or without repair ([`PromiseOutcome`]).
    pub outcome: PromiseOutcome,
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
    /// Why a broken promise has no repair, in one word: `"infeasible"` (no
    /// change the schema allows is accepted), `"time_limit"` (the solver's
    /// limit, without an incumbent) or `"not_repairable"` (the exact engine
    /// refused the new model or the row: `no_repair_reason` says why).
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
    crate::model::check_model_for_schema(new_model, schema, "the schema")?;
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
    record.check_issued_under(schema_fp)?;
    check_row(schema, id, "applicant", &record.applicant)?;
    check_row(schema, id, "advised", &record.advised)?;
    let model: &dyn Model = new_model;
    let x = schema.encode(&record.advised)?;
    let score = model.score(&x);
    let margin = score - model.score_threshold();
    let probability = model
        .has_probability()
        .then(|| model.probability_of_score(score));
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
        no_repair_reason: None,
        notice: record.notice.clone(),
        outcome: PromiseOutcome::Kept,
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
    // The promise is broken whatever the repair search answers: a model the
    // exact engine cannot repair for (a tanh network) is a broken promise without a
    // repair, not an unreadable record.
    match explain(schema, model, &record.advised, config) {
        Ok(ex) => match ex.counterfactuals.first() {
            Some(cf) => {
                out.outcome = PromiseOutcome::Repaired;
                out.extra_cost = Some(cf.cost);
                out.repair = Some(Repair::of(cf));
            }
            None => {
                out.outcome = PromiseOutcome::NoRepair;
                let label = outcome_label(&ex.outcome);
                out.no_repair_reason = Some(match label.as_str() {
                    "infeasible" => {
                        "no change the schema allows is accepted by the new model".to_string()
                    }
                    "time_limit" => "the solver's time limit, before it found any repair".into(),
                    other => format!("the solver ended with {other}"),
                });
                out.repair_outcome = Some(label);
            }
        },
        Err(e) => {
            out.outcome = PromiseOutcome::NoRepair;
            out.repair_outcome = Some("not_repairable".into());
            out.no_repair_reason = Some(e.to_string());
        }
    }
    out.applicant_repair = if model.accepts(&schema.encode(&record.applicant)?) {
        Some(Repair::none(&record.applicant))
    } else {
        explain(schema, model, &record.applicant, config)
            .ok()
            .and_then(|ex| ex.counterfactuals.first().map(Repair::of))
    };
    Ok(out)
}

/// Options of [`revalidate_ledger`].
#[derive(Debug, Clone, PartialEq)]
pub struct RevalidateOptions {
    /// Records read, re-validated and written at a time (default 4096).
    pub chunk_rows: usize,
    /// The caller's names of models, by fingerprint
    /// ([`crate::json::model_fingerprint`]): the report names the new model
    /// and the models the advice was issued under with them ("scorecard
    /// 2025-Q4", "XGBoost challenger").
    pub model_labels: BTreeMap<String, String>,
    /// The caller's name of the new model, used when `model_labels` has
    /// none for its fingerprint (so a caller need not compute it).
    pub new_model_label: Option<String>,
    /// The caller's name of the model(s) the advice was issued under, used
    /// for each whose fingerprint `model_labels` does not name (a ledger
    /// issued under several models names each in `model_labels`).
    pub old_model_label: Option<String>,
    /// Resume an interrupted run of the same ledger (default false): the
    /// lines a killed run of this output left in its partial file
    /// ([`crate::output::find_resumable`]) are checked against the ledger and
    /// kept, and the run goes on from the next record; the output and the
    /// report are an uninterrupted run's. Without such a file the run starts
    /// at the first record.
    pub resume: bool,
}

impl Default for RevalidateOptions {
    fn default() -> Self {
        RevalidateOptions {
            chunk_rows: 4096,
            model_labels: BTreeMap::new(),
            new_model_label: None,
            old_model_label: None,
            resume: false,
        }
    }
}

/// A model the report names: its fingerprint, the caller's label for it
/// ([`RevalidateOptions::model_labels`]) and, for a model advice was issued
/// under, how many records were.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize)]
pub struct ModelName {
    pub fingerprint: String,
    pub label: Option<String>,
    /// Records issued under it (0 for the new model unless advice was).
    pub records: usize,
}

/// Promises counted per applicant (module docs): the alternatives of a
/// diverse set (records `"<id>/<k>"`) are one promise with options, kept
/// while at least one option is kept.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize)]
pub struct PromiseCounts {
    /// Applicants with a re-validated promise (`kept + broken`).
    pub promises: usize,
    pub kept: usize,
    /// Promises none of whose options the new model accepts.
    pub broken: usize,
    /// Promises of two or more options.
    pub with_options: usize,
    /// Promises with options of which some, not all, are broken: still
    /// kept, but the applicant should hear which options no longer hold.
    pub options_partly_broken: usize,
}

/// A customer to contact: one broken promise (one option of a set), what
/// broke and what to offer instead.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Contact {
    /// The record's 0-based number in the ledger.
    pub record: usize,
    /// The record's id (`"<id>/<k>"` for option `k` of a set).
    pub id: String,
    /// The applicant's promise id (the id without `"/<k>"`).
    pub promise: String,
    pub group: Option<String>,
    /// What broke, in words (the new model's decision on the advised row).
    pub broke: String,
    /// The repair from the advised row in words (`feature: from → to`);
    /// empty when there is none.
    pub repair: Vec<String>,
    /// The repair's extra cost, when there is one.
    pub extra_cost: Option<f64>,
    /// `"optimal"` or `"time_limit"` for a repair; `"no repair: <reason>"`
    /// without one.
    pub repair_status: String,
    /// The id of the notice that carried the broken advice, when the record
    /// has one: the notice to supersede.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub notice: Option<String>,
}

/// The applicant's promise id of a record and whether the record is one
/// option of a set: `"<id>/<k>"` of a diverse set ([`LedgerRecord::from_diverse`])
/// is option `k` of promise `<id>` when it holds diverse advice, or when it
/// is the set's first (`k = 0`, kind `explain`).
fn promise_of(record: &LedgerRecord) -> (&str, bool) {
    if let Some((base, k)) = record.id.rsplit_once('/')
        && !base.is_empty()
        && k.parse::<usize>().is_ok()
        && (record.kind == AdviceKind::Diverse || (record.kind == AdviceKind::Explain && k == "0"))
    {
        return (base, true);
    }
    (&record.id, false)
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
    /// Records re-validated (errors excluded): `kept + broken`.
    pub records: usize,
    pub kept: usize,
    /// Broken records: `repaired + no_repair`.
    pub broken: usize,
    /// `broken / records`.
    pub broken_share: f64,
    /// Records that could not be read or re-validated (not counted in
    /// `records`).
    pub errors: usize,
    /// Broken promises with a repair from the advised row (proven optimal
    /// or found at a limit).
    pub repaired: usize,
    /// Of those, the repairs proven optimal — for the decision rule the
    /// exact engine solves, score ≥ threshold + `decision_margin`.
    pub repaired_proven: usize,
    /// Broken promises without a repair.
    pub no_repair: usize,
    /// Why, by [`Revalidation::repair_outcome`] (`"infeasible"`,
    /// `"time_limit"`, `"not_repairable"`).
    pub no_repair_reasons: BTreeMap<String, usize>,
    /// The safety margin of the repairs' decision rule ([`Config::margin`],
    /// in the new model's score units): a repair "proven optimal" is the
    /// cheapest row scoring at least this much above the threshold; a row
    /// accepted with less to spare could be cheaper.
    pub decision_margin: f64,
    /// The new model (fingerprint and the caller's label).
    pub new_model: ModelName,
    /// The models the re-validated advice was issued under, by fingerprint.
    pub old_models: Vec<ModelName>,
    /// The records counted per applicant, alternatives as options of one
    /// promise ([`PromiseCounts`]).
    pub promises: PromiseCounts,
    /// Every broken record, in ledger order: whom to contact, what broke,
    /// and the repair or why there is none.
    pub contacts: Vec<Contact>,
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
    repaired_proven: usize,
    no_repair: BTreeMap<String, usize>,
    old_models: BTreeMap<String, usize>,
    /// Promises of one record: (records, kept).
    singles: (usize, usize),
    /// Options per promise id: (options, kept).
    options: BTreeMap<String, (usize, usize)>,
    contacts: Vec<Contact>,
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
        self.repaired_proven += o.repaired_proven;
        for (k, v) in o.no_repair {
            *self.no_repair.entry(k).or_default() += v;
        }
        for (k, v) in o.old_models {
            *self.old_models.entry(k).or_default() += v;
        }
        self.singles.0 += o.singles.0;
        self.singles.1 += o.singles.1;
        for (k, (n, kept)) in o.options {
            let e = self.options.entry(k).or_default();
            e.0 += n;
            e.1 += kept;
        }
        self.contacts.extend(o.contacts);
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

    fn report(
        mut self,
        new_model: &str,
        config: &Config,
        options: &RevalidateOptions,
    ) -> DeploymentReport {
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
        // The label keyed by fingerprint first, then the new or old model's.
        let name = |fp: &str, records: usize| ModelName {
            fingerprint: fp.to_string(),
            label: options.model_labels.get(fp).cloned().or_else(|| {
                if fp == new_model {
                    options.new_model_label.clone()
                } else {
                    options.old_model_label.clone()
                }
            }),
            records,
        };
        let mut promises = PromiseCounts {
            promises: self.singles.0 + self.options.len(),
            kept: self.singles.1,
            ..PromiseCounts::default()
        };
        for &(n, kept) in self.options.values() {
            promises.kept += usize::from(kept > 0);
            promises.with_options += usize::from(n > 1);
            promises.options_partly_broken += usize::from(kept > 0 && kept < n);
        }
        promises.broken = promises.promises - promises.kept;
        let no_repair = self.no_repair.values().sum();
        DeploymentReport {
            records: self.records,
            kept: self.records - self.broken,
            broken: self.broken,
            repaired_proven: self.repaired_proven,
            no_repair,
            no_repair_reasons: self.no_repair,
            decision_margin: config.margin,
            new_model: name(
                new_model,
                self.old_models.get(new_model).copied().unwrap_or(0),
            ),
            old_models: self.old_models.iter().map(|(fp, &n)| name(fp, n)).collect(),
            promises,
            contacts: self.contacts,
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

/// What the report counts of one re-validated record: the fields of its
/// [`Revalidation`] the [`Tally`] reads, taken from a fresh re-validation or
/// from a resumed run's kept line.
struct Counted {
    status: PromiseStatus,
    outcome: PromiseOutcome,
    probability: Option<f64>,
    margin: f64,
    /// The repair's outcome, changes in words and features.
    repair: Option<(String, Vec<String>, Vec<String>)>,
    repair_outcome: Option<String>,
    no_repair_reason: Option<String>,
    extra_cost: Option<f64>,
    robust_kept: Option<bool>,
    copa_kept: Option<bool>,
}

impl Counted {
    fn of(v: &Revalidation) -> Counted {
        Counted {
            status: v.status,
            outcome: v.outcome,
            probability: v.probability,
            margin: v.margin,
            repair: v
                .repair
                .as_ref()
                .map(|r| (r.outcome.to_string(), r.changes.clone(), r.features.clone())),
            repair_outcome: v.repair_outcome.clone(),
            no_repair_reason: v.no_repair_reason.clone(),
            extra_cost: v.extra_cost,
            robust_kept: v.robust_kept,
            copa_kept: v.copa_kept,
        }
    }

    /// The fields of a kept output line, each number read from its own
    /// text (`str::parse`, correctly rounded) so the report's sums and
    /// quantiles are the uninterrupted run's to the last bit.
    fn from_line(line: &str) -> Option<Counted> {
        use serde_json::value::RawValue;
        let fields: BTreeMap<&str, &RawValue> = serde_json::from_str(line).ok()?;
        let raw = |k: &str| fields.get(k).map(|r| r.get());
        let number = |k: &str| -> Option<Option<f64>> {
            match raw(k)? {
                "null" => Some(None),
                t => t.parse::<f64>().ok().map(Some),
            }
        };
        let flag = |k: &str| -> Option<Option<bool>> { serde_json::from_str(raw(k)?).ok() };
        let text = |k: &str| -> Option<Option<String>> { serde_json::from_str(raw(k)?).ok() };
        let status = match raw("status")? {
            "\"kept\"" => PromiseStatus::Kept,
            "\"broken\"" => PromiseStatus::Broken,
            _ => return None,
        };
        let outcome = match raw("outcome")? {
            "\"kept\"" => PromiseOutcome::Kept,
            "\"repaired\"" => PromiseOutcome::Repaired,
            "\"no_repair\"" => PromiseOutcome::NoRepair,
            _ => return None,
        };
        #[derive(Deserialize)]
        struct RepairWords {
            outcome: String,
            changes: Vec<String>,
            features: Vec<String>,
        }
        let repair: Option<RepairWords> = serde_json::from_str(raw("repair")?).ok()?;
        Some(Counted {
            status,
            outcome,
            probability: number("probability")?,
            margin: number("margin")??,
            repair: repair.map(|r| (r.outcome, r.changes, r.features)),
            repair_outcome: text("repair_outcome")?,
            no_repair_reason: text("no_repair_reason")?,
            extra_cost: number("extra_cost")?,
            robust_kept: flag("robust_kept")?,
            copa_kept: flag("copa_kept")?,
        })
    }
}

impl Tally {
    /// Counts record `number`, re-validated as `v`.
    fn count(&mut self, record: &LedgerRecord, number: usize, v: &Counted) {
        self.records += 1;
        let group = self
            .groups
            .entry(record.group.clone().unwrap_or_default())
            .or_default();
        group.records += 1;
        if v.status == PromiseStatus::Broken {
            self.broken += 1;
            group.broken += 1;
        }
        *self.old_models.entry(record.model.clone()).or_default() += 1;
        let kept = usize::from(v.status == PromiseStatus::Kept);
        match promise_of(record) {
            (base, true) => {
                let e = self.options.entry(base.to_string()).or_default();
                e.0 += 1;
                e.1 += kept;
            }
            (_, false) => {
                self.singles.0 += 1;
                self.singles.1 += kept;
            }
        }
        match v.outcome {
            PromiseOutcome::Kept => {}
            PromiseOutcome::Repaired => {
                let proven = v.repair.as_ref().is_some_and(|r| r.0 == "optimal");
                self.repaired_proven += usize::from(proven);
            }
            PromiseOutcome::NoRepair => {
                let why = v.repair_outcome.clone().unwrap_or_default();
                *self.no_repair.entry(why).or_default() += 1;
            }
        }
        if v.status == PromiseStatus::Broken {
            let broke = match v.probability {
                Some(p) => format!(
                    "the new model declines the advised row (probability {p:.4}, {:.4} \
                     below its threshold in score units)",
                    -v.margin
                ),
                None => format!(
                    "the new model declines the advised row ({:.4} points below its cutoff)",
                    -v.margin
                ),
            };
            let repair_status = match (&v.repair, &v.no_repair_reason) {
                (Some(r), _) => r.0.clone(),
                (None, Some(why)) => format!("no repair: {why}"),
                (None, None) => "no repair".to_string(),
            };
            self.contacts.push(Contact {
                record: number,
                id: record.id.clone(),
                promise: promise_of(record).0.to_string(),
                group: record.group.clone(),
                broke,
                repair: v.repair.as_ref().map(|r| r.1.clone()).unwrap_or_default(),
                extra_cost: v.extra_cost,
                repair_status,
                notice: record.notice.clone(),
            });
        }
        if let Some(c) = v.extra_cost {
            self.extra.push(c);
        }
        if let Some(r) = &v.repair {
            for f in &r.2 {
                *self.features.entry(f.clone()).or_default() += 1;
            }
        }
        if let Some(k) = v.robust_kept {
            self.robust_records += 1;
            self.robust_broken += usize::from(!k);
        }
        if let Some(k) = v.copa_kept {
            self.copa_records += 1;
            self.copa_broken += usize::from(!k);
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
            tally.count(&record, number, &Counted::of(&v));
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

/// Checks the kept line `kept` (line `k` of the partial file `partial`)
/// against ledger record `number` (`line`) and counts it: the same record
/// number and id, and what the new model gives the advised row (its margin,
/// probability and whether the model changed) — the repair, which resuming
/// saves, is taken as written. An error line is re-validated and compared
/// whole.
#[allow(clippy::too_many_arguments)]
fn resume_line(
    schema: &Schema,
    schema_fp: &str,
    model_fp: &str,
    new_model: &AnyModel,
    config: &Config,
    number: usize,
    line: &str,
    kept: &str,
    (partial, k): (&Path, usize),
    tally: &mut Tally,
) -> Result<()> {
    let bad = |why: &str| crate::output::resume::line_mismatch(partial, k, why);
    let head: BTreeMap<String, serde_json::Value> =
        serde_json::from_str(kept).map_err(|_| bad("is not a re-validation line"))?;
    if head.get("record").and_then(|r| r.as_u64()) != Some(number as u64) {
        return Err(bad(&format!("is not record {number} of the ledger")));
    }
    if head.contains_key("error") {
        let mut bytes = Vec::new();
        let mut t = Tally::default();
        one_line(
            schema, schema_fp, model_fp, new_model, config, number, line, &mut bytes, &mut t,
        );
        if bytes.strip_suffix(b"\n") != Some(kept.as_bytes()) {
            return Err(bad(&format!(
                "is not what this ledger and model give record {number}"
            )));
        }
        tally.absorb(t);
        return Ok(());
    }
    let other = || {
        bad(&format!(
            "is not what this ledger and model give record {number}"
        ))
    };
    let record = LedgerRecord::from_json(line).map_err(|_| other())?;
    if head.get("id").and_then(|i| i.as_str()) != Some(record.id.as_str()) {
        return Err(bad(&format!(
            "is not record {number} of the ledger (id {:?}, the ledger's {:?})",
            head.get("id"),
            record.id
        )));
    }
    let counted = Counted::from_line(kept).ok_or_else(|| bad("is not a re-validation line"))?;
    record.check_issued_under(schema_fp)?;
    let model: &dyn Model = new_model;
    let score = model.score(&schema.encode(&record.advised).map_err(|_| other())?);
    let probability = model
        .has_probability()
        .then(|| model.probability_of_score(score));
    let same = |a: Option<f64>, b: Option<f64>| a.map(f64::to_bits) == b.map(f64::to_bits);
    if !same(Some(counted.margin), Some(score - model.score_threshold()))
        || !same(counted.probability, probability)
        || head.get("model_changed").and_then(|m| m.as_bool()) != Some(record.model != model_fp)
    {
        return Err(other());
    }
    tally.count(&record, number, &counted);
    Ok(())
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
    crate::model::check_model_for_schema(new_model, schema, "the schema")?;
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
    let run = crate::output::RunRecord::new(
        "revalidation",
        schema_fp.clone(),
        model_fp.clone(),
        crate::portfolio::settings_of(config)?,
        String::new(),
    );
    let resumable = if options.resume {
        crate::output::find_resumable(output, &run)?
    } else {
        None
    };
    let mut out = Output::create_resumable(output, &[input], &run)?;
    let threads = if config.batch_threads == 0 {
        std::thread::available_parallelism().map_or(1, |n| n.get())
    } else {
        config.batch_threads
    };
    let mut tally = Tally::default();
    let mut number = 0usize;
    let mut eof = pending.is_empty();
    if let Some(from) = &resumable {
        // The kept records, checked and copied; the run goes on after them.
        for (k, kept) in from.lines()?.enumerate() {
            let kept = kept?;
            let record_line = match pending.pop() {
                Some(l) => Some(l),
                None => loop {
                    line.clear();
                    if reader.read_line(&mut line).map_err(read_err)? == 0 {
                        eof = true;
                        break None;
                    }
                    if !line.trim().is_empty() {
                        break Some(line.trim().to_string());
                    }
                },
            };
            let Some(record_line) = record_line else {
                return Err(crate::output::resume::line_mismatch(
                    &from.partial,
                    k,
                    "is beyond the ledger's last record",
                ));
            };
            resume_line(
                schema,
                &schema_fp,
                &model_fp,
                new_model,
                config,
                number,
                &record_line,
                &kept,
                (&from.partial, k),
                &mut tally,
            )?;
            out.write_all(kept.as_bytes())?;
            out.write_all(b"\n")?;
            number += 1;
        }
    }
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
        // Contiguous parts, a few per thread, each taken by the next free
        // thread (guided, `workers::BALANCE_SHARES`: a slow re-explanation
        // holds up its part only), joined in order.
        let part = pending
            .len()
            .div_ceil(crate::workers::BALANCE_SHARES * threads.max(1));
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
            let parts: Vec<&[String]> = pending.chunks(part).collect();
            let next = std::sync::atomic::AtomicUsize::new(0);
            let mut done: Vec<(usize, (Vec<u8>, Tally))> = std::thread::scope(|s| {
                let handles: Vec<_> = (0..threads.min(parts.len()))
                    .map(|_| {
                        let (run, parts, next) = (&run, &parts, &next);
                        crate::workers::spawn(s, move || {
                            let mut mine = Vec::new();
                            loop {
                                let j = next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                                let Some(lines) = parts.get(j) else {
                                    return mine;
                                };
                                mine.push((j, run(lines, number + j * part)));
                            }
                        })
                    })
                    .collect();
                handles.into_iter().flat_map(crate::workers::join).collect()
            });
            done.sort_unstable_by_key(|d| d.0);
            done.into_iter().map(|d| d.1).collect()
        };
        for (bytes, t) in results {
            out.write_all(&bytes)?;
            tally.absorb(t);
        }
        number += pending.len();
        pending.clear();
    }
    out.commit()?;
    if let Some(from) = resumable {
        from.remove();
    }
    Ok(tally.report(&model_fp, config, options))
}
