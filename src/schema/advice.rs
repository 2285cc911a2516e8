//! What a person can actually do, beyond the data's range (issue #16): change
//! limits relative to the applicant and a time axis.
//!
//! * **Change limits.** A lender hands out advice a person can follow: "lower
//!   the credit amount by at most half", "shorten the duration by at most 12
//!   months". [`ChangeLimit`]s bound a contiguous feature's move from the
//!   applicant's own value, in the feature's units or as a fraction of that
//!   value. They tighten the actionable range per applicant
//!   ([`Schema::move_range`]); every method takes its bounds from there.
//! * **Time.** The most common honest answer in credit is *wait*: the months
//!   since the last delinquency, the age of the oldest trade and the
//!   applicant's age all grow together. A feature declared to grow with time
//!   ([`TimeGrowth`]) is moved by waiting only (it is declared immutable: no
//!   action of the applicant changes it); waiting `m` months
//!   ([`Waiting`], one per schema) moves every such feature by `m·per_month`
//!   at once, capped at its upper bound `U` — or, where the data has a special
//!   state that time leads into (`ends_in`), into that state once the value
//!   would pass `U`, or an earlier threshold where a reporting window closes
//!   before the data's largest value (`ends_after`). A special state is not a
//!   number of months: in one, waiting leaves the feature as it is.
//! * **Refusing to pass `U`.** A cap is not what the bureau would report: the
//!   months keep growing, and a value piled at the data's largest is unlike
//!   the accepted applicants. A feature may instead refuse to be carried past
//!   `U` ([`PastUpper::Refuse`]): a wait that would is not offered. How long
//!   an applicant may wait is then a property of the applicant, computed in
//!   one place ([`Schema::longest_wait`]) that every waiting method asks.
//! * **Duration bands.** A categorical whose levels are bands of a duration
//!   ("present employment since: < 1 year, 1 to 4 years, …") also moves only
//!   with time: up its [`Actionability::level_order`](super::Actionability)
//!   by one band each time the months pass the band's width
//!   ([`TimeGrowth::band_months`]). The data says which band an applicant is
//!   in, not how far into it, so cfx assumes the least — that they just
//!   entered it: advice never promises a band earlier than certain.

use super::{COHERENCE_TOL, Feature, FeatureKind, Schema};
use crate::error::{Error, Result};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// The largest move of a contiguous feature away from the applicant's value.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case", deny_unknown_fields)]
pub enum ChangeLimit {
    /// In the feature's raw units (`{"units": 12}`: at most 12 months).
    Units(f64),
    /// As a fraction of the applicant's value's magnitude (`{"fraction": 0.5}`:
    /// at most half of it).
    Fraction(f64),
}

impl ChangeLimit {
    /// The limit in raw units for an applicant whose value is `current`.
    pub fn amount(self, current: f64) -> f64 {
        match self {
            ChangeLimit::Units(u) => u,
            ChangeLimit::Fraction(f) => f * current.abs(),
        }
    }

    fn validate(self) -> std::result::Result<(), String> {
        let (v, what) = match self {
            ChangeLimit::Units(u) => (u, "units"),
            ChangeLimit::Fraction(f) => (f, "fraction"),
        };
        if !v.is_finite() || v < 0.0 {
            return Err(format!(
                "a change limit in {what} must be finite and non-negative, got {v}"
            ));
        }
        Ok(())
    }
}

/// How a feature grows while the applicant waits.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TimeGrowth {
    /// Raw units gained per month (1 for "months since …", 1/12 for age in
    /// years). On an integer or step grid the growth is counted in whole
    /// steps, rounded down.
    #[serde(default = "one")]
    pub per_month: f64,
    /// The special state (label or code) the feature enters once its value
    /// would pass the upper bound (or `ends_after`); `None`: it stays at the
    /// upper bound.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ends_in: Option<String>,
    /// With `ends_in`: the value past which the feature is in that state
    /// (`None`: the upper bound `U`; within `[L, U]`). A bureau's reporting
    /// window can close before the data's largest value: FICO HELOC's months
    /// since the most recent inquiry reach 24 in 8 rows against 31–35 at
    /// each of 20–23 months, and read −7 ("condition not met": no inquiry in
    /// the window) past it, so the HELOC preset ends them after 23 months.
    /// A wait that moves nothing (zero months, or less than a grid step)
    /// leaves even a value already past it as it is.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ends_after: Option<f64>,
    /// For a categorical of duration bands (module docs): per band, the
    /// months from its start to the next band of the feature's
    /// `level_order` (German credit's employment: `"... < 1 year": 12`,
    /// `"1 <= ... < 4 years": 36`, `"4 <= ... < 7 years": 36`). A level not
    /// listed (unemployed, the last band) is never left by waiting. Empty for
    /// contiguous features, which grow by `per_month`.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub band_months: BTreeMap<String, u32>,
    /// What a wait that would carry the value past the upper bound `U` does
    /// (contiguous features without `ends_in`): stay at `U`
    /// ([`PastUpper::Cap`], the default) or be refused
    /// ([`PastUpper::Refuse`]). JSON `"past_upper": "cap" | "refuse"`.
    #[serde(default, skip_serializing_if = "PastUpper::is_cap")]
    pub past_upper: PastUpper,
    /// Where a wait may leave the feature's value (contiguous features; `None`:
    /// anywhere the growth takes it). A wait that moves the value to outside
    /// `[low, high]` is not advised ([`Schema::advisable_waits`]); a wait
    /// that leaves the value unchanged, or carries it into the state time
    /// ends in, is judged by the other features. Month counters grow whether
    /// or not the model has seen accepted applicants there: "wait 10 months:
    /// the oldest trade 21 → 31 months" lands where almost no accepted
    /// applicant is, so the model's acceptance there rests on no evidence
    /// (cfx's plausibility check flags it). [`crate::plausibility::Plausibility::advise_waits_within`]
    /// sets this range to the 1–99% range of the accepted applicants.
    /// JSON `"advised_range": [low, high]`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub advised_range: Option<(f64, f64)>,
}

/// What waiting does to a time feature whose value would pass its upper
/// bound `U` (and that enters no special state there, `ends_in`).
///
/// `U` is the data's largest value, not the end of time: a bureau keeps
/// counting the months since the oldest trade past it. Capping keeps the
/// row within the schema but piles it at `U`, where few accepted applicants
/// are (cfx's plausibility check flags such values), and reports a number
/// the bureau would not. Refusing keeps every advised row a row the data
/// could hold: the wait is simply not offered.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum PastUpper {
    /// The value stays at `U` (`"cap"`; the behaviour of schemas that do not
    /// say).
    #[default]
    Cap,
    /// A wait that would carry the value past `U` is refused (`"refuse"`):
    /// the applicant may wait only as long as [`Schema::longest_wait`] says.
    Refuse,
}

impl PastUpper {
    fn is_cap(&self) -> bool {
        *self == PastUpper::Cap
    }
}

fn one() -> f64 {
    1.0
}

impl Default for TimeGrowth {
    fn default() -> Self {
        TimeGrowth {
            per_month: 1.0,
            ends_in: None,
            ends_after: None,
            band_months: BTreeMap::new(),
            past_upper: PastUpper::Cap,
            advised_range: None,
        }
    }
}

/// The "wait `m` months" action: its cost per month (in the units of the
/// distance, as a change of one feature would cost) and the longest wait a
/// lender would suggest.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Waiting {
    pub cost_per_month: f64,
    pub max_months: u32,
}

/// Where a time feature stands after waiting: a value, or the special state
/// (index `≥ 1`, see the schema module docs) that time ends in — or nowhere:
/// the wait would carry a feature that refuses to pass its upper bound past
/// it ([`PastUpper::Refuse`]), and is not allowed.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum AfterWaiting {
    Value(f64),
    Special(usize),
    Refused,
}

impl Feature {
    /// Limits the largest increase (contiguous features).
    pub fn max_increase(mut self, limit: ChangeLimit) -> Feature {
        self.actionability.max_increase = Some(limit);
        self
    }

    /// Limits the largest decrease (contiguous features).
    pub fn max_decrease(mut self, limit: ChangeLimit) -> Feature {
        self.actionability.max_decrease = Some(limit);
        self
    }

    /// Declares the feature moved by waiting only (immutable otherwise); for a
    /// categorical, `growth.band_months` gives its duration bands.
    pub fn grows_with_time(mut self, growth: TimeGrowth) -> Feature {
        self.actionability.mutable = false;
        self.actionability.grows_with_time = Some(growth);
        self
    }

    /// Checks the feature's change limits and time growth (called by schema validation).
    pub(super) fn validate_advice(&self, has_waiting: bool) -> std::result::Result<(), String> {
        let a = &self.actionability;
        let limited = a.max_increase.is_some() || a.max_decrease.is_some();
        for l in [a.max_increase, a.max_decrease].into_iter().flatten() {
            l.validate()?;
        }
        let FeatureKind::Contiguous {
            lower,
            upper,
            special_states,
            ..
        } = &self.kind
        else {
            if limited {
                return Err("change limits apply to contiguous features only".into());
            }
            if let Some(g) = &a.grows_with_time {
                return self.validate_bands(g, has_waiting);
            }
            return Ok(());
        };
        let Some(g) = &a.grows_with_time else {
            return Ok(());
        };
        if a.mutable {
            return Err(
                "a feature that grows with time moves only by waiting: declare it \"mutable\": false"
                    .into(),
            );
        }
        if limited {
            return Err("a feature that grows with time moves only by waiting: change limits do not apply to it".into());
        }
        if !has_waiting {
            return Err(
                "the feature grows with time but the schema declares no 'waiting' action".into(),
            );
        }
        if !g.band_months.is_empty() {
            return Err(
                "band_months is for a categorical of duration bands; a contiguous feature grows by per_month"
                    .into(),
            );
        }
        if !g.per_month.is_finite() || g.per_month <= 0.0 {
            return Err(format!("per_month must be positive, got {}", g.per_month));
        }
        if let Some(name) = &g.ends_in {
            let found = special_states
                .iter()
                .any(|s| &s.label == name || name.parse::<f64>().ok() == Some(s.code));
            if !found {
                return Err(format!(
                    "ends_in names no special state of the feature: '{name}'"
                ));
            }
        }
        if g.past_upper == PastUpper::Refuse && g.ends_in.is_some() {
            return Err(
                "past_upper \"refuse\" and ends_in both say what waiting does past the upper bound: give one"
                    .into(),
            );
        }
        if let Some((low, high)) = g.advised_range {
            if !low.is_finite() || !high.is_finite() || low > high {
                return Err(format!(
                    "advised_range must be two finite values, low ≤ high, got [{low}, {high}]"
                ));
            }
        }
        if let Some(t) = g.ends_after {
            if g.ends_in.is_none() {
                return Err(
                    "ends_after says when the feature enters its ends_in state: give ends_in too"
                        .into(),
                );
            }
            if !t.is_finite() || t < *lower || t > *upper {
                return Err(format!(
                    "ends_after must lie within the feature's range [{lower}, {upper}], got {t}"
                ));
            }
        }
        Ok(())
    }

    /// A categorical's duration bands: immutable but for waiting, an order to
    /// move along, every band named a level of the order other than its last,
    /// at least one month wide.
    fn validate_bands(&self, g: &TimeGrowth, has_waiting: bool) -> std::result::Result<(), String> {
        let a = &self.actionability;
        // the order the bands move along must itself be sound first
        self.order_rules()?;
        if g.band_months.is_empty() {
            return Err(
                "a categorical grows with time only as duration bands: give band_months".into(),
            );
        }
        if a.mutable {
            return Err(
                "a feature that grows with time moves only by waiting: declare it \"mutable\": false"
                    .into(),
            );
        }
        if !has_waiting {
            return Err(
                "the feature grows with time but the schema declares no 'waiting' action".into(),
            );
        }
        if g.ends_in.is_some()
            || g.ends_after.is_some()
            || !g.past_upper.is_cap()
            || g.advised_range.is_some()
        {
            return Err(
                "ends_in, ends_after, past_upper and advised_range are for contiguous features; a band ends in the next band"
                    .into(),
            );
        }
        let order = &a.level_order;
        if order.is_empty() {
            return Err(
                "duration bands move up the feature's level_order: declare one (worst to best)"
                    .into(),
            );
        }
        for (band, &months) in &g.band_months {
            match order.iter().position(|l| l == band) {
                None => {
                    return Err(format!(
                        "band_months names '{band}', which is not in the feature's level_order"
                    ));
                }
                Some(p) if p + 1 == order.len() => {
                    return Err(format!(
                        "band_months names '{band}', the last level of the order: there is no next band"
                    ));
                }
                Some(_) => {}
            }
            if months == 0 {
                return Err(format!("band '{band}' must last at least one month"));
            }
        }
        Ok(())
    }

    /// Where the feature stands after `months` of waiting, from raw value `raw`
    /// (`None` when it does not grow with time or `raw` is a special state).
    /// A categorical of duration bands gives its level index as a value.
    /// [`AfterWaiting::Refused`] when the feature refuses to pass its upper
    /// bound ([`PastUpper::Refuse`]) and the wait would carry it past.
    pub fn after_waiting(&self, raw: f64, months: u32) -> Option<AfterWaiting> {
        let g = self.actionability.grows_with_time.as_ref()?;
        if let FeatureKind::Categorical { levels } = &self.kind {
            let order = &self.actionability.level_order;
            let mut level = self.state_of(raw).ok()?;
            let mut left = months;
            while let Some(&width) = g.band_months.get(&levels[level]) {
                let at = order.iter().position(|l| *l == levels[level])?;
                let next = order.get(at + 1)?;
                if left < width {
                    break;
                }
                left -= width;
                level = levels.iter().position(|l| l == next)?;
            }
            return Some(AfterWaiting::Value(level as f64));
        }
        let FeatureKind::Contiguous {
            upper,
            integer,
            step,
            special_states,
            ..
        } = &self.kind
        else {
            return None;
        };
        if self.state_of(raw).ok()? != 0 {
            return None;
        }
        // On an integer or step grid the value grows by whole grid steps,
        // rounded down (age in whole years after 9 months is unchanged).
        let grain = match (integer, step) {
            (_, Some(st)) => *st,
            (true, None) => 1.0,
            (false, None) => 0.0,
        };
        let growth = g.per_month * f64::from(months);
        let growth = if grain > 0.0 {
            (growth / grain + COHERENCE_TOL).floor() * grain
        } else {
            growth
        };
        let grown = raw + growth;
        // Where the value state ends: `ends_after` (default `U`) when time
        // leads into a special state; a wait that moves nothing leaves even a
        // value already past it (an applicant at 24 when the window is 23).
        let end = match (&g.ends_in, g.ends_after) {
            (Some(_), Some(t)) if growth > 0.0 => t,
            _ => *upper,
        };
        if grown <= end + COHERENCE_TOL {
            return Some(AfterWaiting::Value(grown));
        }
        match (&g.ends_in, g.past_upper) {
            (Some(name), _) => special_states
                .iter()
                .position(|s| &s.label == name || name.parse::<f64>().ok() == Some(s.code))
                .map(|j| AfterWaiting::Special(j + 1)),
            (None, PastUpper::Refuse) => Some(AfterWaiting::Refused),
            (None, PastUpper::Cap) => Some(AfterWaiting::Value(raw.max(*upper))),
        }
    }

    /// Where a wait of `months` from raw value `raw` leaves the feature
    /// outside its [`TimeGrowth::advised_range`]: the new value and the range
    /// (`None` when the wait is advisable for this feature: no range, the
    /// value unchanged, in a special state, or inside the range).
    fn outside_advised_range(&self, raw: f64, months: u32) -> Option<(f64, (f64, f64))> {
        let g = self.actionability.grows_with_time.as_ref()?;
        let (low, high) = g.advised_range?;
        match self.after_waiting(raw, months)? {
            AfterWaiting::Value(v)
                if (v - raw).abs() > COHERENCE_TOL
                    && (v < low - COHERENCE_TOL || v > high + COHERENCE_TOL) =>
            {
                Some((v, (low, high)))
            }
            _ => None,
        }
    }

    /// The most months (up to `max`) the feature lets an applicant at raw
    /// value `raw` wait: `max` unless it refuses to pass its upper bound,
    /// else the last month before a wait would carry it past. Waiting longer
    /// only grows the value, so the months allowed are `0..=` this; found by
    /// bisection over [`Feature::after_waiting`] itself, so the limit and the
    /// growth (grid steps, rounding) can never disagree. Never allocates.
    fn longest_wait(&self, raw: f64, max: u32) -> u32 {
        let refused = |m: u32| matches!(self.after_waiting(raw, m), Some(AfterWaiting::Refused));
        if !refused(max) {
            return max;
        }
        // Invariant: `lo` is allowed (0 always is: it moves nothing), `hi` refused.
        let (mut lo, mut hi) = (0, max);
        while hi - lo > 1 {
            let mid = lo + (hi - lo) / 2;
            if refused(mid) {
                hi = mid;
            } else {
                lo = mid;
            }
        }
        lo
    }
}

impl Schema {
    /// The "wait `m` months" action, when the schema declares one.
    pub fn waiting(&self) -> Option<Waiting> {
        self.waiting
    }

    /// Builds and validates a schema with a waiting action (`None`: as [`Schema::new`]).
    pub fn new_with_waiting(features: Vec<Feature>, waiting: Option<Waiting>) -> Result<Schema> {
        let mut s = Schema::new_unchecked(features);
        s.waiting = waiting;
        s.validate_and_index()?;
        Ok(s)
    }

    /// The same schema with at most `cap` features changed per piece of
    /// advice (`None`: no cap); validated (a cap of 0 is refused).
    pub fn with_max_features_changed(mut self, cap: Option<usize>) -> Result<Schema> {
        self.max_features_changed = cap;
        self.validate_and_index()?;
        Ok(self)
    }

    /// The same schema with time feature `i`'s
    /// [`TimeGrowth::advised_range`] set to `range` (`None`: cleared);
    /// validated. Errors: no feature `i`, or one that does not grow with time.
    pub fn with_advised_range(mut self, i: usize, range: Option<(f64, f64)>) -> Result<Schema> {
        let n = self.n_features();
        let f = self.features.get_mut(i).ok_or_else(|| {
            Error::InvalidArgument(format!("feature {i} does not exist (there are {n})"))
        })?;
        let g = f.actionability.grows_with_time.as_mut().ok_or_else(|| {
            Error::InvalidArgument(format!(
                "feature '{}' does not grow with time: an advised range is where waiting may lead it",
                f.name
            ))
        })?;
        g.advised_range = range;
        self.validate_and_index()?;
        Ok(self)
    }

    /// How many features advice that waits `months` and then moves `from` to
    /// `to` changes by action: those where `to` differs from the row after
    /// waiting (what time moves is not an action).
    pub fn features_changed(&self, from: &[f64], to: &[f64], months: u32) -> Result<usize> {
        crate::error::check_len("advice row", self.n_features(), to.len())?;
        let waited = self.after_waiting(from, months)?;
        Ok(waited
            .iter()
            .zip(to)
            .filter(|(a, b)| (*a - *b).abs() > COHERENCE_TOL)
            .count())
    }

    /// Indices of the features that grow with time.
    pub fn time_features(&self) -> Vec<usize> {
        (0..self.n_features())
            .filter(|&i| self.features[i].actionability.grows_with_time.is_some())
            .collect()
    }

    /// The raw values contiguous feature `i` may take in its value state, for
    /// an applicant whose raw value is `factual`: the actionable range,
    /// tightened by the change limits when the applicant is in the value state.
    /// When the limits leave nothing of the actionable range (an applicant
    /// outside it, limited to small moves), the range is the applicant's value
    /// alone: staying is always allowed. Every method takes its value bounds
    /// from here (`None` for categorical features).
    pub fn move_range(&self, i: usize, factual: f64) -> Option<(f64, f64)> {
        let (lo, hi) = self.actionable_range(i)?;
        let f = &self.features[i];
        if f.state_of(factual).ok() != Some(0) {
            return Some((lo, hi));
        }
        let a = &f.actionability;
        let lo_l = a
            .max_decrease
            .map_or(lo, |l| lo.max(factual - l.amount(factual)));
        let hi_l = a
            .max_increase
            .map_or(hi, |l| hi.min(factual + l.amount(factual)));
        if lo_l > hi_l {
            return Some((factual, factual));
        }
        Some((lo_l, hi_l))
    }

    /// The most months applicant `raw` may wait: the schema's `max_months`,
    /// shortened so that no feature refusing to pass its upper bound
    /// ([`PastUpper::Refuse`]) is carried past it; 0 without a waiting
    /// action. Every wait from 0 up to it is allowed, none beyond. The one
    /// definition every waiting method asks (the exact engine's months, the
    /// P-DQN's waiting action, [`Schema::check_advice`]). Never allocates.
    pub fn longest_wait(&self, raw: &[f64]) -> Result<u32> {
        crate::error::check_len("raw row", self.n_features(), raw.len())?;
        let Some(w) = self.waiting else {
            return Ok(0);
        };
        Ok(self
            .features
            .iter()
            .zip(raw)
            .fold(w.max_months, |m, (f, &r)| f.longest_wait(r, m)))
    }

    /// The months applicant `raw` may be advised to wait, ascending: every
    /// `m` from 0 to [`Schema::longest_wait`] after which no time feature the
    /// wait moves lies outside its [`TimeGrowth::advised_range`]. 0 is always
    /// among them (it moves nothing); without ranges they are `0..=`
    /// [`Schema::longest_wait`]. The one definition of the waits cfx advises:
    /// the exact engine's months (one MIP and the outer loop), the P-DQN's
    /// waiting action and [`Schema::check_advice`] all take it from here. A
    /// counter that the range's low end lies ahead of makes the set a gap
    /// then a run ("now, or in 17 to 24 months"), which is why it is a list
    /// and not a limit.
    pub fn advisable_waits(&self, raw: &[f64]) -> Result<Vec<u32>> {
        let mut out = Vec::new();
        self.advisable_waits_into(raw, &mut out)?;
        Ok(out)
    }

    /// [`Schema::advisable_waits`] into `out` (cleared first). Allocates only
    /// when `out` lacks the capacity (`max_months + 1` always suffices).
    pub fn advisable_waits_into(&self, raw: &[f64], out: &mut Vec<u32>) -> Result<()> {
        out.clear();
        let longest = self.longest_wait(raw)?;
        out.extend((0..=longest).filter(|&m| self.outside_advised_range(raw, m).is_none()));
        Ok(())
    }

    /// The first time feature a wait of `months` leaves outside its advised
    /// range, with its new value and the range (`None`: every one is
    /// inside, unchanged or in a special state).
    fn outside_advised_range(&self, raw: &[f64], months: u32) -> Option<(usize, f64, (f64, f64))> {
        self.features
            .iter()
            .zip(raw)
            .enumerate()
            .find_map(|(i, (f, &r))| f.outside_advised_range(r, months).map(|(v, lh)| (i, v, lh)))
    }

    /// The raw row `raw` after `months` of waiting: every time feature grown
    /// (capped, or in the state time ends in), every other feature unchanged.
    /// A wait past [`Schema::longest_wait`] is refused
    /// (`InvalidArgument`, naming the feature it would carry past its upper
    /// bound).
    pub fn after_waiting(&self, raw: &[f64], months: u32) -> Result<Vec<f64>> {
        let mut out = vec![0.0; raw.len()];
        self.after_waiting_into(raw, months, &mut out)?;
        Ok(out)
    }

    /// [`Schema::after_waiting`] into `out` (the row's length). Allocates
    /// only for an error's text.
    pub fn after_waiting_into(&self, raw: &[f64], months: u32, out: &mut [f64]) -> Result<()> {
        crate::error::check_len("raw row", self.n_features(), raw.len())?;
        crate::error::check_len("waited row", self.n_features(), out.len())?;
        out.copy_from_slice(raw);
        for (i, f) in self.features.iter().enumerate() {
            match f.after_waiting(raw[i], months) {
                Some(AfterWaiting::Value(v)) => out[i] = v,
                Some(AfterWaiting::Special(j)) => {
                    if let FeatureKind::Contiguous { special_states, .. } = &f.kind {
                        out[i] = special_states[j - 1].code;
                    }
                }
                Some(AfterWaiting::Refused) => {
                    let upper = match &f.kind {
                        FeatureKind::Contiguous { upper, .. } => *upper,
                        FeatureKind::Categorical { .. } => f64::NAN,
                    };
                    return Err(Error::InvalidArgument(format!(
                        "waiting {months} months would carry '{}' from {} past its upper bound {upper}, \
                         which it refuses (past_upper: refuse): this applicant may wait at most {} months",
                        f.name,
                        raw[i],
                        self.longest_wait(raw)?
                    )));
                }
                None => {}
            }
        }
        Ok(())
    }

    /// Checks advice that waits `months` and then moves `from` to `to`: the
    /// wait is within the schema's maximum, carries no feature past an
    /// upper bound it refuses to pass ([`Schema::longest_wait`]) and leaves
    /// none outside its advised range ([`Schema::advisable_waits`]), and `to`
    /// differs from the row after
    /// waiting only by moves that respect every actionability rule, the change
    /// limits included (measured from the applicant's own values), every
    /// moved value on its advice grid and changed by at least its minimum
    /// change (`schema::grid`), and it changes no more features than
    /// `max_features_changed`.
    pub fn check_advice(&self, from: &[f64], to: &[f64], months: u32) -> Result<()> {
        if months > 0 {
            let w = self.waiting.ok_or_else(|| {
                Error::InvalidArgument("the advice waits but the schema declares no waiting".into())
            })?;
            if months > w.max_months {
                return Err(Error::InvalidArgument(format!(
                    "the advice waits {months} months, more than the maximum {}",
                    w.max_months
                )));
            }
        }
        let waited = self.after_waiting(from, months)?;
        if let Some((i, v, (low, high))) = self.outside_advised_range(from, months) {
            return Err(Error::InvalidArgument(format!(
                "waiting {months} months would bring '{}' from {} to {v}, outside the range \
                 [{low}, {high}] waits may lead it into (advised_range)",
                self.features[i].name, from[i]
            )));
        }
        self.check_actionable(&waited, to)?;
        for i in 0..self.n_features() {
            if self.features[i].actionability.grows_with_time.is_some() {
                continue;
            }
            if (to[i] - from[i]).abs() <= COHERENCE_TOL {
                continue;
            }
            if let Some(why) = self.grid_violation(i, from[i], to[i]) {
                return Err(Error::InvalidArgument(format!(
                    "feature '{}': {why}",
                    self.features[i].name
                )));
            }
            if self.features[i].state_of(to[i])? != 0 {
                continue;
            }
            if let Some((lo, hi)) = self.move_range(i, from[i]) {
                if to[i] < lo - COHERENCE_TOL || to[i] > hi + COHERENCE_TOL {
                    return Err(Error::InvalidArgument(format!(
                        "feature '{}': {} → {} exceeds its change limits [{lo}, {hi}]",
                        self.features[i].name, from[i], to[i]
                    )));
                }
            }
        }
        if let Some(cap) = self.max_features_changed {
            let n = self.features_changed(from, to, months)?;
            if n > cap {
                return Err(Error::InvalidArgument(format!(
                    "the advice changes {n} features, more than the {cap} one piece of advice may change (max_features_changed)"
                )));
            }
        }
        Ok(())
    }
}
