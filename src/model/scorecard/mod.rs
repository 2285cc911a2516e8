//! Points scorecards: the model most legacy credit systems run.
//!
//! Each *characteristic* (a feature of the [`Schema`], named) is cut into bins —
//! numeric intervals with explicit open/closed ends, special-state bins (one bin
//! may cover several special states), a missing bin, groups of categorical
//! levels — and each bin carries points. An applicant's score is the base
//! points plus the points of the bin each of their values falls in; the
//! applicant is **accepted iff score ≥ cutoff** (a tie is accepted, exactly, in
//! every method of cfx: prediction, the coherent MIP and Monte Carlo; see
//! [`Model::accepts_ties`]). Features of the schema that no characteristic
//! names contribute 0 points (allowed: a scorecard rarely uses every column).
//!
//! # Score, probability and threshold
//! For a scorecard, [`Model::score_in`] is the **points total** (not log-odds).
//! The optional [`ScoreScaling`] ("points to double the odds", "odds at a base
//! score") is stored as the affine map `log-odds(favourable) = (points −
//! offset)/factor`; with it [`Model::probability`] is the logistic of that
//! log-odds and [`Model::threshold`] is the probability at the cutoff, so both
//! keep the meaning they have for the other models. **Without a scaling, cfx
//! invents no calibration**: `probability` and `threshold` are NaN, and the
//! methods that need a probability (Θ̃ and the CROCO bound) refuse the model
//! with `Error::InvalidArgument`; the points, the decision and Γ̃ still work.
//!
//! # Evaluation
//! [`Scorecard::score_raw`] scores a raw row exactly: a value is compared with
//! the bins' raw edges (this is what the parity test with optbinning uses).
//! [`Model::score_in`] scores an encoded row without allocating: a special
//! state or level is read from its indicator (on above ½), and the contiguous
//! slot is compared with the bins' edges mapped to slot space by the schema's
//! own value→slot formula ([`Schema::value_to_slot`]), so a value exactly on an
//! edge lands in the same bin whether it is scored raw or encoded. Values outside
//! `[L, U]` (only noise puts a slot there) fall in the bin whose interval holds
//! them, or the last bin beyond the last edge.
//!
//! A scorecard is a step function: it has no useful input gradient
//! ([`Model::has_input_gradient`] is false), so Wachter, PROBE and CROCO refuse it;
//! the exact counterfactuals are the coherent MIP with bin indicators
//! ([`crate::coherent`]).
//!
//! # Validation against the schema
//! Every characteristic must name a feature of the schema (once), its bins must
//! fit the feature's kind, and they must cover the feature's whole domain
//! without overlap: the value range `[L, U]` by intervals (sorted by lower end,
//! consecutive bins must meet at one edge that exactly one of them includes),
//! every special state by exactly one special bin, every level by exactly one
//! level group. A gap or an overlap is `Error::Format` naming the feature and
//! the bin. Intervals lying wholly outside `[L, U]` are allowed (they are never
//! reached by a coherent applicant).

mod bundled;
pub mod import;
mod reasons;

pub use bundled::{german_scorecard, german_scorecard_options};
pub use reasons::{BinReason, CharacteristicReasons, ReasonCodeAlgorithm, ReasonCodes};

use super::Model;
use crate::error::{Error, Result, check_len};
use crate::schema::{FeatureKind, Schema};
use serde::{Deserialize, Serialize};

/// A scorecard's scaling as the affine map `log-odds(favourable) = (points −
/// offset)/factor` (the usual "points to double the odds" scaling:
/// `factor = pdo/ln 2`, `offset = base score − factor·ln(odds at the base score)`).
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ScoreScaling {
    /// Points per unit of log-odds (positive: more points, better odds).
    pub factor: f64,
    /// The score at odds 1:1.
    pub offset: f64,
}

impl ScoreScaling {
    /// The scaling from its affine map (validated).
    pub fn new(factor: f64, offset: f64) -> Result<ScoreScaling> {
        let s = ScoreScaling { factor, offset };
        s.validate()?;
        Ok(s)
    }

    /// The scaling from "points to double the odds" `pdo` and the odds
    /// (favourable : unfavourable) `odds` at the score `base_score`.
    pub fn from_pdo(pdo: f64, odds: f64, base_score: f64) -> Result<ScoreScaling> {
        if !(pdo.is_finite()
            && pdo > 0.0
            && odds.is_finite()
            && odds > 0.0
            && base_score.is_finite())
        {
            return Err(Error::InvalidArgument(format!(
                "a scaling needs pdo > 0, odds > 0 and a finite base score, got pdo {pdo}, \
                 odds {odds}, base score {base_score}"
            )));
        }
        let factor = pdo / std::f64::consts::LN_2;
        ScoreScaling::new(factor, base_score - factor * odds.ln())
    }

    fn validate(&self) -> Result<()> {
        if !(self.factor.is_finite() && self.factor > 0.0 && self.offset.is_finite()) {
            return Err(Error::InvalidArgument(format!(
                "a scorecard scaling needs a positive finite factor and a finite offset, got \
                 factor {} and offset {}",
                self.factor, self.offset
            )));
        }
        Ok(())
    }

    /// The log-odds of the favourable outcome at `points`.
    #[inline]
    pub fn log_odds(&self, points: f64) -> f64 {
        (points - self.offset) / self.factor
    }
}

/// Which values a bin holds.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case", deny_unknown_fields)]
pub enum BinRange {
    /// Values of a contiguous feature between `lower` and `upper` (`null` for
    /// −∞ / +∞), each end included when its `_closed` flag is true.
    Interval {
        lower: Option<f64>,
        upper: Option<f64>,
        lower_closed: bool,
        upper_closed: bool,
    },
    /// The special states of a contiguous feature with these codes.
    Special { codes: Vec<f64> },
    /// The schema's missing state: the special state labelled `missing`
    /// (any case) of a contiguous feature.
    Missing,
    /// A group of levels of a categorical feature, by name.
    Levels { levels: Vec<String> },
}

/// A bin and its points.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Bin {
    pub range: BinRange,
    pub points: f64,
}

/// The bins of one feature.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Characteristic {
    /// The schema feature's name.
    pub feature: String,
    pub bins: Vec<Bin>,
}

/// The value bins of a contiguous feature, compiled for lookup: sorted by lower
/// end; a value falls in the first bin whose upper end admits it, else the last.
#[derive(Debug, Clone, PartialEq, Default)]
pub(crate) struct ValueBins {
    /// Upper ends in raw units (the last is +∞) and whether each is included.
    pub raw_upper: Vec<f64>,
    pub upper_closed: Vec<bool>,
    /// Lower ends in raw units and whether each is included (for the MIP).
    pub raw_lower: Vec<f64>,
    pub lower_closed: Vec<bool>,
    /// Upper ends mapped to slot space by [`Schema::value_to_slot`].
    pub slot_upper: Vec<f64>,
    pub points: Vec<f64>,
    /// Index of each bin in its characteristic (for messages).
    pub source: Vec<usize>,
}

impl ValueBins {
    #[inline]
    fn find(upper: &[f64], closed: &[bool], v: f64) -> usize {
        for (k, (&u, &c)) in upper.iter().zip(closed).enumerate() {
            if v < u || (c && v == u) {
                return k;
            }
        }
        upper.len() - 1
    }
    /// The bin of a raw in-range value.
    #[inline]
    pub fn of_raw(&self, v: f64) -> usize {
        Self::find(&self.raw_upper, &self.upper_closed, v)
    }
    /// The bin of an encoded slot.
    #[inline]
    pub fn of_slot(&self, s: f64) -> usize {
        Self::find(&self.slot_upper, &self.upper_closed, s)
    }
}

/// One characteristic compiled against the schema.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Compiled {
    Contiguous {
        feature: usize,
        slot: usize,
        /// Points of each special state, in schema order (indicator columns follow the slot).
        special_points: Vec<f64>,
        /// The characteristic's bin of each special state.
        special_bins: Vec<usize>,
        values: ValueBins,
    },
    Categorical {
        feature: usize,
        start: usize,
        level_points: Vec<f64>,
        /// The characteristic's bin of each level.
        level_bins: Vec<usize>,
    },
}

/// A points scorecard over a schema (see the module docs).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Scorecard {
    /// Points every applicant starts with (0 in optbinning's default style).
    #[serde(default)]
    pub base_points: f64,
    /// Accepted iff the points total ≥ `cutoff`.
    pub cutoff: f64,
    /// The scaling, if known; without it there is no probability (see the module docs).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub scaling: Option<ScoreScaling>,
    pub characteristics: Vec<Characteristic>,
    /// The reason codes and baselines of an imported PMML scorecard
    /// (kept for adverse-action reasons; they do not change the score).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reasons: Option<ReasonCodes>,
    /// What the import from a model file assumed, one line per fact.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub import_report: Vec<String>,
    /// Compiled against the schema by [`Scorecard::new`] / `AnyModel::from_json`.
    #[serde(skip)]
    compiled: Vec<Compiled>,
    #[serde(skip)]
    dim: usize,
}

fn fmt_end(v: Option<f64>, closed: bool, lower: bool) -> String {
    match (v, lower) {
        (None, true) => "(-inf".into(),
        (None, false) => "inf)".into(),
        (Some(x), true) => format!("{}{x}", if closed { '[' } else { '(' }),
        (Some(x), false) => format!("{x}{}", if closed { ']' } else { ')' }),
    }
}

impl BinRange {
    /// The bin in words, as messages name it.
    pub fn describe(&self) -> String {
        match self {
            BinRange::Interval {
                lower,
                upper,
                lower_closed,
                upper_closed,
            } => format!(
                "{}, {}",
                fmt_end(*lower, *lower_closed, true),
                fmt_end(*upper, *upper_closed, false)
            ),
            BinRange::Special { codes } => format!("special {codes:?}"),
            BinRange::Missing => "missing".into(),
            BinRange::Levels { levels } => format!("levels {levels:?}"),
        }
    }
}

impl Scorecard {
    /// A scorecard checked and compiled against `schema` (see the module docs).
    pub fn new(
        schema: &Schema,
        base_points: f64,
        cutoff: f64,
        scaling: Option<ScoreScaling>,
        characteristics: Vec<Characteristic>,
    ) -> Result<Scorecard> {
        let mut s = Scorecard {
            base_points,
            cutoff,
            scaling,
            characteristics,
            reasons: None,
            import_report: Vec::new(),
            compiled: Vec::new(),
            dim: 0,
        };
        s.bind(schema)?;
        Ok(s)
    }

    /// Checks finiteness (the schema-free part of the validation).
    pub(crate) fn validate(&self) -> Result<()> {
        if !self.base_points.is_finite() || !self.cutoff.is_finite() {
            return Err(Error::Format(format!(
                "scorecard base points {} and cutoff {} must be finite",
                self.base_points, self.cutoff
            )));
        }
        if let Some(s) = &self.scaling {
            s.validate().map_err(|e| Error::Format(e.to_string()))?;
        }
        Ok(())
    }

    /// Validates the scorecard against `schema` and compiles it for lookup.
    pub(crate) fn bind(&mut self, schema: &Schema) -> Result<()> {
        self.bind_labelled(schema, None)
    }

    /// [`Scorecard::bind`], naming bin `k` of characteristic `c` in errors as
    /// `labels[c][k]` when given (importers name the CSV row).
    pub(crate) fn bind_labelled(
        &mut self,
        schema: &Schema,
        labels: Option<&[Vec<String>]>,
    ) -> Result<()> {
        self.validate()?;
        let mut seen = vec![false; schema.n_features()];
        let mut compiled = Vec::with_capacity(self.characteristics.len());
        for (c, ch) in self.characteristics.iter().enumerate() {
            let i = schema.index_of(&ch.feature).map_err(|_| {
                Error::Format(format!(
                    "scorecard characteristic '{}' is not a feature of the schema",
                    ch.feature
                ))
            })?;
            if std::mem::replace(&mut seen[i], true) {
                return Err(Error::Format(format!(
                    "scorecard characteristic '{}' appears twice",
                    ch.feature
                )));
            }
            let label = |k: usize| match labels.and_then(|l| l.get(c)).and_then(|l| l.get(k)) {
                Some(l) => l.clone(),
                None => format!("bin {k} ({})", ch.bins[k].range.describe()),
            };
            compiled.push(compile(schema, i, ch, &label)?);
        }
        self.compiled = compiled;
        self.dim = schema.encoded_dim();
        Ok(())
    }

    /// The points total of a raw applicant row (exact comparisons with the raw
    /// bin edges). Errors name an incoherent value's feature.
    pub fn score_raw(&self, schema: &Schema, raw: &[f64]) -> Result<f64> {
        self.check_schema(schema)?;
        check_len("raw row", schema.n_features(), raw.len())?;
        let mut total = self.base_points;
        for c in &self.compiled {
            total += Self::points_of(c, schema, raw)?;
        }
        Ok(total)
    }

    /// The points each characteristic gives a raw applicant row, in the order
    /// of [`Scorecard::characteristics`] (the score is `base_points` plus their
    /// sum): what an explanation shows when it says which bins a change moves.
    pub fn points_by_characteristic(&self, schema: &Schema, raw: &[f64]) -> Result<Vec<f64>> {
        self.check_schema(schema)?;
        check_len("raw row", schema.n_features(), raw.len())?;
        self.compiled
            .iter()
            .map(|c| Self::points_of(c, schema, raw))
            .collect()
    }

    /// The bin each characteristic puts a raw applicant row in, as an index
    /// into that characteristic's [`Characteristic::bins`] (in the order of
    /// [`Scorecard::characteristics`]): what reason codes attached to bins
    /// (PMML `Attribute/@reasonCode`) are looked up by.
    pub fn bins_by_characteristic(&self, schema: &Schema, raw: &[f64]) -> Result<Vec<usize>> {
        self.check_schema(schema)?;
        check_len("raw row", schema.n_features(), raw.len())?;
        self.compiled
            .iter()
            .map(|c| {
                Ok(match c {
                    Compiled::Contiguous {
                        feature,
                        special_bins,
                        values,
                        ..
                    } => {
                        let s = schema.features[*feature].state_of(raw[*feature])?;
                        if s > 0 {
                            special_bins[s - 1]
                        } else {
                            values.source[values.of_raw(raw[*feature])]
                        }
                    }
                    Compiled::Categorical {
                        feature,
                        level_bins,
                        ..
                    } => level_bins[schema.features[*feature].state_of(raw[*feature])?],
                })
            })
            .collect()
    }

    /// The points of one compiled characteristic for a raw row.
    fn points_of(c: &Compiled, schema: &Schema, raw: &[f64]) -> Result<f64> {
        Ok(match c {
            Compiled::Contiguous {
                feature,
                special_points,
                values,
                ..
            } => {
                let s = schema.features[*feature].state_of(raw[*feature])?;
                if s > 0 {
                    special_points[s - 1]
                } else {
                    values.points[values.of_raw(raw[*feature])]
                }
            }
            Compiled::Categorical {
                feature,
                level_points,
                ..
            } => level_points[schema.features[*feature].state_of(raw[*feature])?],
        })
    }

    /// Whether a points total is accepted: `points ≥ cutoff`.
    #[inline]
    pub fn accepts_points(&self, points: f64) -> bool {
        points >= self.cutoff
    }

    /// The probability of the favourable outcome at `points` (NaN without a scaling).
    pub fn probability_of_points(&self, points: f64) -> f64 {
        match &self.scaling {
            Some(s) => super::sigmoid(s.log_odds(points)),
            None => f64::NAN,
        }
    }

    pub(crate) fn compiled(&self) -> &[Compiled] {
        &self.compiled
    }

    /// Checks that `schema` is (by shape and names) the one the scorecard was
    /// bound to: its compiled feature indices and encoded columns apply.
    pub fn check_schema(&self, schema: &Schema) -> Result<()> {
        check_len(
            "scorecard input dimension vs schema encoded dimension",
            self.dim,
            schema.encoded_dim(),
        )?;
        for (ch, c) in self.characteristics.iter().zip(&self.compiled) {
            let i = match c {
                Compiled::Contiguous { feature, .. } | Compiled::Categorical { feature, .. } => {
                    *feature
                }
            };
            if schema.features.get(i).is_none_or(|f| f.name != ch.feature) {
                return Err(Error::InvalidArgument(format!(
                    "this scorecard was read with another schema (feature '{}' is not at \
                     position {i})",
                    ch.feature
                )));
            }
        }
        Ok(())
    }
}

/// Checks one characteristic against feature `i` and compiles it.
fn compile(
    schema: &Schema,
    i: usize,
    ch: &Characteristic,
    label: &dyn Fn(usize) -> String,
) -> Result<Compiled> {
    let f = &schema.features[i];
    let bad = |k: usize, m: String| {
        Error::Format(format!("scorecard feature '{}', {}: {m}", f.name, label(k)))
    };
    for (k, b) in ch.bins.iter().enumerate() {
        if !b.points.is_finite() {
            return Err(bad(k, format!("points {} are not finite", b.points)));
        }
    }
    let layout = schema.layout(i);
    match &f.kind {
        FeatureKind::Contiguous {
            lower,
            upper,
            special_states,
            ..
        } => {
            let mut special_points: Vec<Option<(f64, usize)>> = vec![None; special_states.len()];
            let mut intervals: Vec<(usize, f64, f64, bool, bool)> = Vec::new();
            for (k, b) in ch.bins.iter().enumerate() {
                let states: Vec<usize> = match &b.range {
                    BinRange::Interval {
                        lower: lo,
                        upper: hi,
                        lower_closed,
                        upper_closed,
                    } => {
                        let lo_v = lo.unwrap_or(f64::NEG_INFINITY);
                        let hi_v = hi.unwrap_or(f64::INFINITY);
                        if lo_v.is_nan() || hi_v.is_nan() || lo == &Some(f64::INFINITY) {
                            return Err(bad(k, "an interval end is not a number".into()));
                        }
                        let empty = lo_v > hi_v
                            || (lo_v == hi_v && !(*lower_closed && *upper_closed))
                            || (lo.is_none() && *lower_closed)
                            || (hi.is_none() && *upper_closed);
                        if empty {
                            return Err(bad(k, "the interval is empty or malformed".into()));
                        }
                        intervals.push((k, lo_v, hi_v, *lower_closed, *upper_closed));
                        continue;
                    }
                    BinRange::Special { codes } => {
                        if codes.is_empty() {
                            return Err(bad(k, "a special bin needs at least one code".into()));
                        }
                        codes
                            .iter()
                            .map(|c| {
                                special_states
                                    .iter()
                                    .position(|s| s.code == *c)
                                    .ok_or_else(|| {
                                        bad(k, format!("{c} is not a special code of the feature"))
                                    })
                            })
                            .collect::<Result<_>>()?
                    }
                    BinRange::Missing => vec![
                        special_states
                            .iter()
                            .position(|s| s.label.eq_ignore_ascii_case("missing"))
                            .ok_or_else(|| {
                                bad(
                                    k,
                                    "the feature has no special state labelled 'missing'".into(),
                                )
                            })?,
                    ],
                    BinRange::Levels { .. } => {
                        return Err(bad(
                            k,
                            "a level group cannot bin a contiguous feature".into(),
                        ));
                    }
                };
                for j in states {
                    if let Some((_, other)) = special_points[j] {
                        return Err(bad(
                            k,
                            format!(
                                "overlap: special state {} is also in {}",
                                special_states[j].code,
                                label(other)
                            ),
                        ));
                    }
                    special_points[j] = Some((b.points, k));
                }
            }
            if let Some(j) = special_points.iter().position(|p| p.is_none()) {
                return Err(Error::Format(format!(
                    "scorecard feature '{}': gap: no bin covers special state {} ('{}')",
                    f.name, special_states[j].code, special_states[j].label
                )));
            }
            if intervals.is_empty() {
                return Err(Error::Format(format!(
                    "scorecard feature '{}': gap: no bin covers the value range [{lower}, {upper}]",
                    f.name
                )));
            }
            intervals.sort_by(|a, b| a.1.total_cmp(&b.1).then(b.3.cmp(&a.3)));
            let (k0, lo0, _, lc0, _) = intervals[0];
            if lo0 > *lower || (lo0 == *lower && !lc0) {
                return Err(bad(
                    k0,
                    format!("gap: the bins start above the feature's lower bound {lower}"),
                ));
            }
            for w in intervals.windows(2) {
                let (ka, _, ha, _, hca) = w[0];
                let (kb, lb, _, lcb, _) = w[1];
                if ha < lb || (ha == lb && !hca && !lcb) {
                    return Err(bad(kb, format!("gap: after {}", label(ka))));
                }
                if ha > lb || (ha == lb && hca && lcb) {
                    return Err(bad(kb, format!("overlap with {}", label(ka))));
                }
            }
            let &(kl, _, hl, _, hcl) = intervals.last().expect("not empty");
            if hl < *upper || (hl == *upper && !hcl) {
                return Err(bad(
                    kl,
                    format!("gap: the bins end below the feature's upper bound {upper}"),
                ));
            }
            let degenerate = upper <= lower;
            let mut values = ValueBins::default();
            for &(k, lo, hi, lc, hc) in &intervals {
                values.raw_lower.push(lo);
                values.lower_closed.push(lc);
                values.raw_upper.push(hi);
                values.upper_closed.push(hc);
                values.points.push(ch.bins[k].points);
                values.source.push(k);
            }
            let n = values.raw_upper.len();
            values.raw_upper[n - 1] = f64::INFINITY;
            values.slot_upper = if degenerate {
                // Every slot is 0 and means the value L: all slots go to L's bin.
                let own = values.of_raw(*lower);
                (0..n)
                    .map(|k| {
                        if k < own {
                            f64::NEG_INFINITY
                        } else {
                            f64::INFINITY
                        }
                    })
                    .collect()
            } else {
                values
                    .raw_upper
                    .iter()
                    .map(|&u| {
                        if u.is_infinite() {
                            u
                        } else {
                            schema.value_to_slot(i, u)
                        }
                    })
                    .collect()
            };
            Ok(Compiled::Contiguous {
                feature: i,
                slot: layout.start,
                special_bins: special_points
                    .iter()
                    .map(|p| p.expect("checked").1)
                    .collect(),
                special_points: special_points
                    .into_iter()
                    .map(|p| p.expect("checked").0)
                    .collect(),
                values,
            })
        }
        FeatureKind::Categorical { levels } => {
            let mut level_points: Vec<Option<(f64, usize)>> = vec![None; levels.len()];
            for (k, b) in ch.bins.iter().enumerate() {
                let BinRange::Levels { levels: group } = &b.range else {
                    return Err(bad(
                        k,
                        "a categorical feature is binned by level groups only".into(),
                    ));
                };
                if group.is_empty() {
                    return Err(bad(k, "a level group needs at least one level".into()));
                }
                for name in group {
                    let j = levels
                        .iter()
                        .position(|l| l == name)
                        .ok_or_else(|| bad(k, format!("'{name}' is not a level of the feature")))?;
                    if let Some((_, other)) = level_points[j] {
                        return Err(bad(
                            k,
                            format!("overlap: level '{name}' is also in {}", label(other)),
                        ));
                    }
                    level_points[j] = Some((b.points, k));
                }
            }
            if let Some(j) = level_points.iter().position(|p| p.is_none()) {
                return Err(Error::Format(format!(
                    "scorecard feature '{}': gap: no bin covers level '{}'",
                    f.name, levels[j]
                )));
            }
            Ok(Compiled::Categorical {
                feature: i,
                start: layout.start,
                level_bins: level_points.iter().map(|p| p.expect("checked").1).collect(),
                level_points: level_points
                    .into_iter()
                    .map(|p| p.expect("checked").0)
                    .collect(),
            })
        }
    }
}

impl Model for Scorecard {
    fn input_dim(&self) -> usize {
        self.dim
    }
    /// The probability at the cutoff (NaN without a scaling).
    fn threshold(&self) -> f64 {
        self.probability_of_points(self.cutoff)
    }
    /// The points total of an encoded row (see the module docs). Never allocates.
    fn score_in(&self, x: &[f64], _scratch: &mut [f64]) -> f64 {
        let mut total = self.base_points;
        for c in &self.compiled {
            total += match c {
                Compiled::Contiguous {
                    slot,
                    special_points,
                    values,
                    ..
                } => {
                    let ind = &x[slot + 1..slot + 1 + special_points.len()];
                    match ind.iter().position(|&v| v > 0.5) {
                        Some(j) => special_points[j],
                        None => values.points[values.of_slot(x[*slot])],
                    }
                }
                Compiled::Categorical {
                    start,
                    level_points,
                    ..
                } => {
                    let ind = &x[*start..start + level_points.len()];
                    let mut best = 0;
                    for (j, &v) in ind.iter().enumerate() {
                        if v > ind[best] {
                            best = j;
                        }
                    }
                    level_points[best]
                }
            };
        }
        total
    }
    /// A step function's gradient is 0 almost everywhere: writes zeros. Methods
    /// that need a gradient check [`Model::has_input_gradient`] and refuse.
    fn score_gradient_in(&self, x: &[f64], grad: &mut [f64], scratch: &mut [f64]) -> f64 {
        grad.fill(0.0);
        self.score_in(x, scratch)
    }
    fn has_input_gradient(&self) -> bool {
        false
    }
    fn has_probability(&self) -> bool {
        self.scaling.is_some()
    }
    fn accepts_ties(&self) -> bool {
        true
    }
    fn score_threshold(&self) -> f64 {
        self.cutoff
    }
    fn log_odds_of_score(&self, score: f64) -> f64 {
        match &self.scaling {
            Some(s) => s.log_odds(score),
            None => f64::NAN,
        }
    }
    fn scores_to_log_odds(&self, scores: &mut [f64]) {
        for s in scores {
            *s = self.log_odds_of_score(*s);
        }
    }
    fn as_scorecard(&self) -> Option<&Scorecard> {
        Some(self)
    }
    fn accepts(&self, x: &[f64]) -> bool {
        self.accepts_points(self.score(x))
    }
    fn decide(&self, x: &[f64]) -> (bool, f64) {
        let points = self.score(x);
        (
            self.accepts_points(points),
            super::sigmoid(self.log_odds_of_score(points)),
        )
    }
}

#[cfg(test)]
mod tests;
