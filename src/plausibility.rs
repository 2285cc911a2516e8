//! Plausibility flags: does a piece of advice move a value to where the
//! accepted applicants of the training data actually are?
//!
//! Every method can return a point that the model accepts and the schema
//! allows but that no real accepted applicant resembles (issue 16's table:
//! CROCO's "credit amount → 250 DM", "age → 75"). [`Plausibility`] holds, per
//! feature, what the training data's **accepted** (favourable-label)
//! applicants look like:
//!
//! - a contiguous feature's in-range values: the 1% and 99% quantiles
//!   (linear interpolation between order statistics, NumPy's default
//!   `percentile` method, Hyndman & Fan type 7);
//! - every special state and categorical level: its share among them.
//!
//! [`Plausibility::assess`] flags each **changed** value of an answer: a
//! value outside `[q₁, q₉₉]` (with how far outside, in the feature's units and
//! as a fraction of the 1–99% span), or a move into a state or level that
//! fewer than 1% of accepted applicants have. Unchanged values are never
//! flagged: advice is judged by what it asks the applicant to do.
//!
//! Every method's result carries its flags once annotated
//! (`coherent::Explanation::assess_plausibility`,
//! `robust::RobustCounterfactual::plausibility`, the COPA plan's and the
//! P-DQN plan's), and the C ABI assesses any raw row (`cfx_plausibility_*`).
//!
//! Waiting is the one move no method chooses freely: a month counter grows
//! with the wait whether or not accepted applicants are where it lands.
//! [`Plausibility::advise_waits_within`] turns the ranges into the schema's
//! advised ranges, so that every waiting method (the exact engine, the P-DQN)
//! offers only waits that land them inside.

use crate::error::{Error, Result, check_finite, check_len};
use crate::schema::{FeatureKind, Schema, fmt_num};
use serde::{Deserialize, Serialize};

/// The lower quantile of the plausible range.
pub const LOWER_QUANTILE: f64 = 0.01;
/// The upper quantile of the plausible range.
pub const UPPER_QUANTILE: f64 = 0.99;
/// A state or level is rare when fewer than this share of accepted applicants have it.
pub const RARE_SHARE: f64 = 0.01;

/// What the accepted applicants look like on one feature.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FeatureRange {
    /// The 1% and 99% quantiles of the in-range values (contiguous features;
    /// `None` when no accepted applicant has an in-range value, or for a
    /// categorical feature).
    pub range: Option<(f64, f64)>,
    /// The share of accepted applicants in each state (index 0 = in range for
    /// a contiguous feature) or level.
    pub state_share: Vec<f64>,
}

/// Per-feature plausible ranges from the training data's accepted applicants.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Plausibility {
    pub features: Vec<FeatureRange>,
    /// How many accepted applicants the ranges were fitted on.
    pub n_accepted: usize,
}

/// One changed value and whether it is plausible.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PlausibilityFlag {
    /// The feature's index and name.
    pub feature: usize,
    pub name: String,
    /// The new raw value.
    pub value: f64,
    /// The plausible range of the feature's in-range values, when the new value
    /// is in range (NaN otherwise).
    pub low: f64,
    pub high: f64,
    /// Whether the value lands outside `[low, high]`, or in a state or level
    /// fewer than 1% of accepted applicants have.
    pub implausible: bool,
    /// How far outside the range, in the feature's units (0 inside, and for
    /// states and levels).
    pub distance: f64,
    /// `distance / (high − low)` (0 inside; infinite when the span is 0).
    pub relative_distance: f64,
    /// The share of accepted applicants in the new value's state or level.
    pub state_share: f64,
}

impl std::fmt::Display for PlausibilityFlag {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        if !self.implausible {
            write!(f, "{} plausible", self.name)
        } else if self.distance > 0.0 {
            let side = if self.value < self.low {
                format!("below the 1% point {}", fmt_num(self.low))
            } else {
                format!("above the 99% point {}", fmt_num(self.high))
            };
            write!(
                f,
                "{} = {} is {} {} of accepted applicants",
                self.name,
                fmt_num(self.value),
                fmt_num(self.distance),
                side
            )
        } else {
            write!(
                f,
                "{} = {} is a state only {:.1}% of accepted applicants have",
                self.name,
                fmt_num(self.value),
                100.0 * self.state_share
            )
        }
    }
}

/// The `q`-quantile of sorted values by linear interpolation between order
/// statistics (NumPy's default, Hyndman & Fan type 7): `h = (n − 1)q`,
/// `x[⌊h⌋] + (h − ⌊h⌋)(x[⌊h⌋+1] − x[⌊h⌋])`.
pub fn quantile_sorted(sorted: &[f64], q: f64) -> Option<f64> {
    if sorted.is_empty() || !(0.0..=1.0).contains(&q) {
        return None;
    }
    let h = (sorted.len() - 1) as f64 * q;
    let lo = h.floor() as usize;
    let hi = (lo + 1).min(sorted.len() - 1);
    Some(sorted[lo] + (h - lo as f64) * (sorted[hi] - sorted[lo]))
}

impl Plausibility {
    /// Fits the ranges on the rows whose label is 1 (the favourable outcome,
    /// as [`crate::data::Dataset::labels`]). Errors: mismatched lengths, a
    /// label other than 0 or 1, an incoherent row, no accepted applicant.
    pub fn fit(schema: &Schema, rows: &[Vec<f64>], labels: &[f64]) -> Result<Plausibility> {
        check_len("labels", rows.len(), labels.len())?;
        let mut accepted = Vec::new();
        for (k, (r, &y)) in rows.iter().zip(labels).enumerate() {
            check_len("raw row", schema.n_features(), r.len())?;
            check_finite("training row", r)?;
            if y == 1.0 {
                accepted.push(r);
            } else if y != 0.0 {
                return Err(Error::InvalidArgument(format!(
                    "label {k} is {y}; labels must be 0 or 1 (1 = accepted)"
                )));
            }
        }
        if accepted.is_empty() {
            return Err(Error::InvalidArgument(
                "no accepted applicant (label 1) to fit plausible ranges on".into(),
            ));
        }
        let n = accepted.len() as f64;
        let mut features = Vec::with_capacity(schema.n_features());
        for (i, f) in schema.features.iter().enumerate() {
            let mut counts = vec![0usize; f.n_states()];
            let mut values = Vec::new();
            for r in &accepted {
                let s = f.state_of(r[i])?;
                counts[s] += 1;
                if s == 0 && f.is_contiguous() {
                    values.push(r[i]);
                }
            }
            values.sort_by(f64::total_cmp);
            let range = match &f.kind {
                FeatureKind::Contiguous { .. } => quantile_sorted(&values, LOWER_QUANTILE)
                    .zip(quantile_sorted(&values, UPPER_QUANTILE)),
                FeatureKind::Categorical { .. } => None,
            };
            features.push(FeatureRange {
                range,
                state_share: counts.iter().map(|&c| c as f64 / n).collect(),
            });
        }
        Ok(Plausibility {
            features,
            n_accepted: accepted.len(),
        })
    }

    fn check(&self, schema: &Schema) -> Result<()> {
        check_len(
            "plausible ranges vs schema features",
            schema.n_features(),
            self.features.len(),
        )?;
        for (f, r) in schema.features.iter().zip(&self.features) {
            if r.state_share.len() != f.n_states() {
                return Err(Error::InvalidArgument(format!(
                    "the plausible ranges were fitted for another schema (feature '{}')",
                    f.name
                )));
            }
        }
        Ok(())
    }

    /// A flag for every value `advice` changes from `factual` (raw rows).
    pub fn assess(
        &self,
        schema: &Schema,
        factual: &[f64],
        advice: &[f64],
    ) -> Result<Vec<PlausibilityFlag>> {
        self.check(schema)?;
        check_len("raw row", schema.n_features(), factual.len())?;
        check_len("raw row", schema.n_features(), advice.len())?;
        check_finite("applicant row", factual)?;
        check_finite("advice row", advice)?;
        let mut out = Vec::new();
        for ch in schema.describe_changes(factual, advice) {
            let i = ch.feature;
            let f = &schema.features[i];
            let r = &self.features[i];
            let state = f.state_of(ch.to)?;
            let share = r.state_share[state];
            let (low, high) = match (state, r.range) {
                (0, Some(range)) if f.is_contiguous() => range,
                _ => (f64::NAN, f64::NAN),
            };
            let distance = if low.is_nan() {
                0.0
            } else {
                (low - ch.to).max(ch.to - high).max(0.0)
            };
            let relative_distance = if distance == 0.0 {
                0.0
            } else {
                distance / (high - low)
            };
            // An in-range value of a contiguous feature is judged by its range
            // (or, when no accepted applicant is in range, as a rare state).
            let implausible = if low.is_nan() {
                share < RARE_SHARE
            } else {
                distance > 0.0
            };
            out.push(PlausibilityFlag {
                feature: i,
                name: ch.name,
                value: ch.to,
                low,
                high,
                implausible,
                distance,
                relative_distance,
                state_share: share,
            });
        }
        Ok(out)
    }

    /// `schema` with every contiguous time feature's
    /// [`crate::schema::TimeGrowth::advised_range`] set to its plausible
    /// range (the accepted applicants' 1–99% points): no method then advises
    /// a wait that moves a month counter to where accepted applicants are
    /// not, which this check would flag. A time feature with no accepted
    /// applicant in range, and a categorical of duration bands, keep theirs.
    /// Errors: ranges fitted for another schema.
    pub fn advise_waits_within(&self, schema: &Schema) -> Result<Schema> {
        self.check(schema)?;
        let mut out = schema.clone();
        for i in schema.time_features() {
            if let (true, Some(range)) =
                (schema.features[i].is_contiguous(), self.features[i].range)
            {
                out = out.with_advised_range(i, Some(range))?;
            }
        }
        Ok(out)
    }

    /// Whether any changed value of `advice` is implausible.
    pub fn any_implausible(
        &self,
        schema: &Schema,
        factual: &[f64],
        advice: &[f64],
    ) -> Result<bool> {
        Ok(self
            .assess(schema, factual, advice)?
            .iter()
            .any(|f| f.implausible))
    }
}

/// The implausible flags in words, `; `-separated (empty when none).
pub fn describe_implausible(flags: &[PlausibilityFlag]) -> String {
    flags
        .iter()
        .filter(|f| f.implausible)
        .map(|f| f.to_string())
        .collect::<Vec<_>>()
        .join("; ")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::schema::Feature;

    fn schema() -> Schema {
        Schema::new(vec![
            Feature::contiguous("amount", 0.0, 1000.0),
            Feature::categorical("housing", &["own", "rent", "free"]),
        ])
        .unwrap()
    }

    /// Accepted amounts 1..=100, housing "own" except one "free"; declined
    /// rows (label 0) at amount 1000 must not widen the range.
    fn fitted() -> (Schema, Plausibility) {
        let s = schema();
        let mut rows = Vec::new();
        let mut labels = Vec::new();
        for k in 1..=100 {
            rows.push(vec![k as f64, if k == 50 { 2.0 } else { 0.0 }]);
            labels.push(1.0);
            rows.push(vec![1000.0, 1.0]);
            labels.push(0.0);
        }
        let p = Plausibility::fit(&s, &rows, &labels).unwrap();
        (s, p)
    }

    #[test]
    fn quantiles_match_numpy_percentile() {
        // numpy.percentile(range(1, 101), [1, 99]) = [1.99, 99.01];
        // numpy.percentile([3, 1, 2], 50) = 2; one value is its own quantile.
        let v: Vec<f64> = (1..=100).map(f64::from).collect();
        assert!((quantile_sorted(&v, 0.01).unwrap() - 1.99).abs() < 1e-12);
        assert!((quantile_sorted(&v, 0.99).unwrap() - 99.01).abs() < 1e-12);
        assert_eq!(quantile_sorted(&[1.0, 2.0, 3.0], 0.5), Some(2.0));
        assert_eq!(quantile_sorted(&[4.0], 0.99), Some(4.0));
        assert_eq!(quantile_sorted(&[], 0.5), None);
    }

    #[test]
    fn flags_say_whether_and_how_far_a_changed_value_is_outside() {
        let (s, p) = fitted();
        assert_eq!(p.n_accepted, 100);
        let (lo, hi) = p.features[0].range.unwrap();
        assert!((lo - 1.99).abs() < 1e-12 && (hi - 99.01).abs() < 1e-12);
        assert_eq!(p.features[1].state_share, vec![0.99, 0.0, 0.01]);
        let factual = [50.0, 0.0];
        // Inside: plausible, distance 0.
        let f = p.assess(&s, &factual, &[60.0, 0.0]).unwrap();
        assert_eq!(f.len(), 1);
        assert!(!f[0].implausible && f[0].distance == 0.0);
        // Above: 250 − 99.01 units outside, relative to the span 97.02.
        let f = p.assess(&s, &factual, &[250.0, 0.0]).unwrap();
        assert!(f[0].implausible);
        assert!((f[0].distance - 150.99).abs() < 1e-9);
        assert!((f[0].relative_distance - 150.99 / 97.02).abs() < 1e-9);
        assert!(
            f[0].to_string().contains("above the 99% point 99.01"),
            "{}",
            f[0]
        );
        // Below.
        let f = p.assess(&s, &factual, &[1.0, 0.0]).unwrap();
        assert!(f[0].implausible && (f[0].distance - 0.99).abs() < 1e-9);
        // A level no accepted applicant has (rent: 0%) is implausible; one 1% have is not.
        let f = p.assess(&s, &factual, &[50.0, 1.0]).unwrap();
        assert!(f[0].implausible && f[0].distance == 0.0 && f[0].state_share == 0.0);
        let f = p.assess(&s, &factual, &[50.0, 2.0]).unwrap();
        assert!(!f[0].implausible);
        // An unchanged implausible value is not flagged: only changes are judged.
        assert!(
            p.assess(&s, &[500.0, 1.0], &[500.0, 1.0])
                .unwrap()
                .is_empty()
        );
        assert!(p.any_implausible(&s, &factual, &[250.0, 2.0]).unwrap());
        assert_eq!(
            describe_implausible(&p.assess(&s, &factual, &[250.0, 1.0]).unwrap())
                .matches("; ")
                .count(),
            1
        );
    }

    #[test]
    fn bad_input_is_an_error() {
        let s = schema();
        let (_, p) = fitted();
        assert!(Plausibility::fit(&s, &[vec![1.0, 0.0]], &[0.0]).is_err()); // nobody accepted
        assert!(Plausibility::fit(&s, &[vec![1.0, 0.0]], &[0.5]).is_err());
        assert!(Plausibility::fit(&s, &[vec![1.0, 0.0]], &[]).is_err());
        assert!(Plausibility::fit(&s, &[vec![1.0, 7.0]], &[1.0]).is_err()); // no level 7
        assert!(p.assess(&s, &[1.0], &[1.0, 0.0]).is_err());
        assert!(p.assess(&s, &[1.0, 0.0], &[f64::NAN, 0.0]).is_err());
        let other = Schema::new(vec![Feature::contiguous("x", 0.0, 1.0)]).unwrap();
        assert!(p.assess(&other, &[0.5], &[0.6]).is_err());
        let json = r#"{"features": [], "n_accepted": 0, "extra": 1}"#;
        let err = serde_json::from_str::<Plausibility>(json)
            .unwrap_err()
            .to_string();
        assert!(err.contains("extra"), "{err}");
    }

    /// Advised ranges from the plausible ones: every month counter gets its
    /// fitted 1–99% range, and then no advisable wait, from any applicant
    /// value, moves it to where [`Plausibility::assess`] flags it (the two
    /// definitions agree), while every wait the range drops is one it flags.
    #[test]
    fn advised_ranges_are_the_plausible_ranges_and_agree_with_the_flags() {
        use crate::schema::{TimeGrowth, Waiting};
        let s = Schema::new_with_waiting(
            vec![
                Feature::contiguous("months", 0.0, 200.0)
                    .integer()
                    .grows_with_time(TimeGrowth::default()),
                Feature::contiguous("amount", 0.0, 1000.0),
            ],
            Some(Waiting {
                cost_per_month: 0.1,
                max_months: 24,
            }),
        )
        .unwrap();
        let rows: Vec<Vec<f64>> = (1..=100).map(|k| vec![f64::from(k), 5.0]).collect();
        let p = Plausibility::fit(&s, &rows, &vec![1.0; rows.len()]).unwrap();
        let within = p.advise_waits_within(&s).unwrap();
        let g = within.features[0].actionability.grows_with_time.as_ref();
        let (lo, hi) = g.and_then(|g| g.advised_range).unwrap();
        assert!((lo - 1.99).abs() < 1e-12 && (hi - 99.01).abs() < 1e-12);
        assert!(within.features[1].actionability.grows_with_time.is_none());
        let (mut kept, mut dropped) = (0, 0);
        for start in 0..=180 {
            let row = [f64::from(start), 5.0];
            let advisable = within.advisable_waits(&row).unwrap();
            for m in 0..=24 {
                let waited = s.after_waiting(&row, m).unwrap();
                let flagged = p.any_implausible(&s, &row, &waited).unwrap();
                assert_eq!(advisable.contains(&m), !flagged, "from {start}, {m} months");
                if m > 0 {
                    kept += usize::from(!flagged);
                    dropped += usize::from(flagged);
                }
            }
        }
        assert!(
            kept > 1000 && dropped > 1000,
            "{kept} kept, {dropped} dropped"
        );
        // Ranges fitted for another schema are refused.
        let other = Schema::new(vec![Feature::contiguous("x", 0.0, 1.0)]).unwrap();
        assert!(p.advise_waits_within(&other).is_err());
    }
}
