//! Actionability presets a credit officer would sign (issue #16): what an
//! applicant can actually be told to do, on top of the data's own schema.
//!
//! A preset changes actionability only (never the features, levels or
//! weights), so a model trained on the plain schema scores rows of the preset
//! schema unchanged.

use crate::error::Result;
use crate::schema::{
    ChangeLimit, Direction, Feature, FeatureKind, PastUpper, Schema, TimeGrowth, Transition,
    Waiting,
};

/// The longest wait the presets suggest: two years.
pub const PRESET_MAX_MONTHS: u32 = 24;

fn feature<'a>(features: &'a mut [Feature], name: &str) -> Result<&'a mut Feature> {
    features.iter_mut().find(|f| f.name == name).ok_or_else(|| {
        crate::error::Error::NotFound(format!("the preset needs a feature named '{name}'"))
    })
}

fn forbid_moving_into(f: &mut Feature, level: &str) {
    f.actionability.forbidden_transitions.push(Transition {
        from: "*".into(),
        to: level.into(),
    });
}

/// Declares `f` moved only by waiting, `per_month` a month, and never past
/// its upper bound: a wait that would carry it past is refused
/// ([`PastUpper::Refuse`]). The bound is the data's largest value; capping at
/// it would pile advised rows where few accepted applicants are and report a
/// count the bureau would not (it keeps counting).
fn grows_with_time(f: &mut Feature, per_month: f64) {
    f.actionability.mutable = false;
    f.actionability.direction = Direction::Any;
    f.actionability.grows_with_time = Some(TimeGrowth {
        per_month,
        ends_in: None,
        past_upper: PastUpper::Refuse,
        ..Default::default()
    });
}

/// The ordered categoricals of the German preset, levels from worst to best.
pub const GERMAN_LEVEL_ORDERS: [(&str, &[&str]); 3] = [
    (
        "present_employment_since",
        &[
            "unemployed",
            "... < 1 year",
            "1 <= ... < 4 years",
            "4 <= ... < 7 years",
            "... >= 7 years",
        ],
    ),
    (
        "savings_account_and_bonds",
        &[
            "... < 100 DM",
            "100 <= ... < 500 DM",
            "500 <= ... < 1000 DM",
            "... >= 1000 DM",
        ],
    ),
    (
        "status_of_existing_checking_account",
        &[
            "... < 0 DM",
            "0 <= ... < 200 DM",
            "... >= 200 DM / salary assignments for at least 1 year",
        ],
    ),
];

/// The shortest loan duration the German preset advises, in months.
pub const GERMAN_MIN_DURATION: f64 = 6.0;

/// The most features one piece of German advice changes (issue 25): the
/// preset leaves a handful of levers (amount, duration, savings, checking
/// balance, a few categoricals); advice that pulls more than three of them
/// at once is a programme, not a recommendation an officer hands over.
pub const GERMAN_MAX_FEATURES_CHANGED: usize = 3;

/// The most features one piece of HELOC advice changes (issue 25): a
/// recommendation a credit officer signs asks for a few things, not 13
/// changes at once. Five, not fewer, because the bureau file records one
/// action in several features: paying off two cards lowers the revolving
/// burden, the revolving trades with a balance, the share of trades with a
/// balance and perhaps the high-utilisation trades — four features, one
/// action.
pub const HELOC_MAX_FEATURES_CHANGED: usize = 5;

/// The German advice grids and minimum changes (issue 43), `(feature,
/// advice_step, min_change)`: the credit amount is advised in multiples of
/// 100 DM and changed by at least 250 DM (about a tenth of the median loan,
/// 2,320 DM: "borrow 37 DM less" is not advice), the duration in multiples
/// of 3 months (the data's durations are mostly multiples of 3 and 6) and
/// changed by at least 3 months.
pub const GERMAN_ADVICE_GRIDS: [(&str, f64, f64); 2] = [
    ("credit_amount", 100.0, 250.0),
    ("duration_in_month", 3.0, 3.0),
];

/// The HELOC advice grids and minimum changes (issue 43), `(feature,
/// advice_step, min_change)`: the percentages a person moves — burdens, the
/// share of trades with a balance, the share of instalment trades — in
/// multiples of 5 points, changed by at least 5 ("lower your revolving
/// burden by 1 point" is not a plan). The counts are whole numbers already:
/// any change of one is at least 1.
pub const HELOC_ADVICE_GRIDS: [(&str, f64, f64); 4] = [
    ("NetFractionRevolvingBurden", 5.0, 5.0),
    ("NetFractionInstallBurden", 5.0, 5.0),
    ("PercentTradesWBalance", 5.0, 5.0),
    ("PercentInstallTrades", 5.0, 5.0),
];

/// The German durations that only time moves (immutable in the preset).
pub const GERMAN_TIME_DRIVEN: [&str; 2] = ["present_employment_since", "present_residence_since"];

/// The German employment bands and their widths in months (the first three
/// of [`GERMAN_LEVEL_ORDERS`]' employment order; "unemployed" is not a
/// duration, and the last band has no next): an applicant "< 1 year" in a job
/// is certainly "1 <= ... < 4 years" in it after 12 months, and so on.
pub const GERMAN_EMPLOYMENT_BANDS: [(&str, u32); 3] = [
    ("... < 1 year", 12),
    ("1 <= ... < 4 years", 36),
    ("4 <= ... < 7 years", 36),
];

/// The German features that follow from others (immutable in the preset).
pub const GERMAN_DERIVED: [&str; 1] = ["installment_rate_in_percentage_of_disposable_income"];

/// Statlog German credit, as advice:
/// * age grows only by waiting (1/12 year per month, in whole years), and
///   no wait carries it past the data's oldest applicant (75): such a wait
///   is refused, not capped at 75 ([`PastUpper::Refuse`]);
/// * nobody is told to move into "no checking account", "critical account/
///   other credits existing", "unknown/ no savings account" or "for free"
///   housing: those moves game the data rather than improve the applicant;
/// * the credit amount may go down by at most 50 % and up by at most 25 %,
///   the duration may change by at most 12 months either way and is never
///   advised below [`GERMAN_MIN_DURATION`] months (a 12-month loan cut to 4
///   months triples the instalment; fewer than 1 % of accepted applicants
///   have a loan that short); both are advised on round grids and by at
///   least a minimum change ([`GERMAN_ADVICE_GRIDS`]);
/// * three categoricals are ordered ([`GERMAN_LEVEL_ORDERS`]): savings and the
///   checking account balance move only to a better level (nobody is advised
///   to hold less money); employment keeps its order but is immutable (below).
///   The two levels left out of the orders, "unknown/ no savings account" and
///   "no checking account", are not amounts (and are forbidden targets anyway);
/// * [`GERMAN_TIME_DRIVEN`] — present employment since and present residence
///   since — are durations: only time moves them, and "change job" or "move
///   house" to gain seniority is not advice. Employment is a categorical of
///   duration bands: waiting moves it up a band when the months pass the
///   band's width ([`GERMAN_EMPLOYMENT_BANDS`], counted from the band's start,
///   since the data does not say how far into it the applicant is).
///   Residence is a 1–4 code whose bands Statlog does not define, so only
///   its immutability is known: the preset holds it;
/// * [`GERMAN_DERIVED`] — the instalment rate in percent of disposable income —
///   follows from the amount, the duration and the income: moving it alone is
///   not an action, so the preset makes it immutable (the amount and the
///   duration stay actionable and carry the applicant's real lever);
/// * one piece of advice changes at most [`GERMAN_MAX_FEATURES_CHANGED`]
///   features (waiting, which only ages the applicant, is not counted).
///
/// `waiting_cost_per_month` prices one month in the distance's units.
/// Errors name a missing feature or level (the schema must be the German one).
pub fn german_credit_advice(schema: &Schema, waiting_cost_per_month: f64) -> Result<Schema> {
    let mut feats = schema.features.clone();
    grows_with_time(feature(&mut feats, "age_in_years")?, 1.0 / 12.0);
    for (name, level) in [
        ("status_of_existing_checking_account", "no checking account"),
        (
            "credit_history",
            "critical account/ other credits existing (not at this bank)",
        ),
        ("savings_account_and_bonds", "unknown/ no savings account"),
        ("housing", "for free"),
    ] {
        forbid_moving_into(feature(&mut feats, name)?, level);
    }
    for (name, order) in GERMAN_LEVEL_ORDERS {
        let f = feature(&mut feats, name)?;
        f.actionability.level_order = order.iter().map(|l| l.to_string()).collect();
        f.actionability.direction = Direction::IncreaseOnly;
    }
    for name in GERMAN_TIME_DRIVEN.into_iter().chain(GERMAN_DERIVED) {
        feature(&mut feats, name)?.actionability.mutable = false;
    }
    // Employment moves up its bands by waiting (issue 25).
    let employment = feature(&mut feats, "present_employment_since")?;
    employment.actionability.grows_with_time = Some(TimeGrowth {
        band_months: GERMAN_EMPLOYMENT_BANDS
            .iter()
            .map(|(band, months)| (band.to_string(), *months))
            .collect(),
        ..Default::default()
    });
    let amount = feature(&mut feats, "credit_amount")?;
    amount.actionability.max_decrease = Some(ChangeLimit::Fraction(0.5));
    amount.actionability.max_increase = Some(ChangeLimit::Fraction(0.25));
    let duration = feature(&mut feats, "duration_in_month")?;
    duration.actionability.max_decrease = Some(ChangeLimit::Units(12.0));
    duration.actionability.max_increase = Some(ChangeLimit::Units(12.0));
    duration.actionability.lower = Some(GERMAN_MIN_DURATION);
    for (name, step, least) in GERMAN_ADVICE_GRIDS {
        let f = feature(&mut feats, name)?;
        f.actionability.advice_step = Some(step);
        f.actionability.min_change = Some(least);
    }
    Schema::new_with_waiting(
        feats,
        Some(Waiting {
            cost_per_month: waiting_cost_per_month,
            max_months: PRESET_MAX_MONTHS,
        }),
    )?
    .with_max_features_changed(Some(GERMAN_MAX_FEATURES_CHANGED))
}

/// The HELOC features that count months and grow by one each month.
pub const HELOC_TIME_FEATURES: [&str; 5] = [
    "MSinceOldestTradeOpen",
    "MSinceMostRecentTradeOpen",
    "AverageMInFile",
    "MSinceMostRecentDelq",
    "MSinceMostRecentInqexcl7days",
];

/// The HELOC month counters whose bureau window closes, and the last month
/// it holds: past it the feature reads −7, "condition not met" (no such
/// event in the window), not a larger number of months. In the FICO data the
/// months since the most recent inquiry (excluding the last 7 days) count
/// 31–35 rows at each of 20, 21, 22 and 23 months, 8 at 24 and none above,
/// against 1855 rows at −7 (717 of the 3519 accepted training applicants):
/// the window closes during the 24th month, so the preset ends it after 23.
/// An applicant whose last inquiry is 0 months old and who waits 24 months
/// is told −7, where most such files are, not 24, which fewer than 1 % of
/// accepted applicants have.
///
/// The months since the most recent delinquency are not listed, though the
/// data shows a window too (9–23 rows at each of 72–81 months, 1 each at 82
/// and 83: the seven years a delinquency is reported): there −7 means "never
/// delinquent" — all 4664 rows at −7 have `MaxDelqEver` "current and never
/// delinquent" or "unknown", none a delinquency grade, while every row with a
/// month count has one. A delinquency leaving the file changes the whole
/// record (`MaxDelqEver`, `PercentTradesNeverDelq`, which the preset holds),
/// so waiting does not lead into −7 there. Nor does it pass the data's 83:
/// a wait that would carry the months past it is refused, as for every other
/// counter (the age of the oldest trade, of the newest, the average; see
/// [`heloc_advice`]).
pub const HELOC_WINDOWS: [(&str, f64); 1] = [("MSinceMostRecentInqexcl7days", 23.0)];

/// The HELOC change limits per recommendation, `(feature, max_increase,
/// max_decrease)` in the feature's units, for an applicant in the value state
/// (see [`heloc_advice`] for why each).
pub const HELOC_CHANGE_LIMITS: [(&str, Option<f64>, Option<f64>); 12] = [
    ("NetFractionRevolvingBurden", None, Some(30.0)),
    ("NetFractionInstallBurden", None, Some(30.0)),
    ("PercentTradesWBalance", Some(20.0), Some(20.0)),
    ("NumInqLast6M", None, Some(2.0)),
    ("NumInqLast6Mexcl7days", None, Some(2.0)),
    ("NumBank2NatlTradesWHighUtilization", Some(2.0), Some(2.0)),
    ("NumRevolvingTradesWBalance", Some(2.0), Some(2.0)),
    ("NumInstallTradesWBalance", Some(2.0), Some(2.0)),
    ("NumTotalTrades", Some(3.0), Some(3.0)),
    ("NumSatisfactoryTrades", Some(3.0), Some(3.0)),
    ("NumTradesOpeninLast12M", Some(3.0), Some(3.0)),
    ("PercentInstallTrades", Some(15.0), Some(15.0)),
];

/// The HELOC features advice moves only down (issue 25: a preset never
/// advises a harmful direction, whatever the model's sign): debt burdens,
/// the share and the counts of trades carrying a balance or a high
/// utilisation, and recent inquiries. "Take out another loan" or "apply for
/// more credit" is not advice a lender hands out.
pub const HELOC_DECREASE_ONLY: [&str; 8] = [
    "NetFractionRevolvingBurden",
    "NetFractionInstallBurden",
    "PercentTradesWBalance",
    "NumInqLast6M",
    "NumInqLast6Mexcl7days",
    "NumBank2NatlTradesWHighUtilization",
    "NumRevolvingTradesWBalance",
    "NumInstallTradesWBalance",
];

/// The HELOC features no advice moves, in either direction: the bureau's own
/// consolidated score (derived from the bureau file) and the delinquency and
/// derogatory history (nobody is told to acquire a record, and a record is
/// not erased by advice).
pub const HELOC_IMMUTABLE: [&str; 6] = [
    "ExternalRiskEstimate",
    "NumTrades60Ever2DerogPubRec",
    "NumTrades90Ever2DerogPubRec",
    "PercentTradesNeverDelq",
    "MaxDelq2PublicRecLast12M",
    "MaxDelqEver",
];

/// FICO HELOC, as advice: the month-counting features ([`HELOC_TIME_FEATURES`])
/// move only by waiting, all together, one month per month, never past their
/// upper bounds (the data's largest: a wait that would carry one past is
/// refused, [`PastUpper::Refuse`], since the bureau would report a larger
/// count, not the bound, and a row piled at the bound is unlike accepted
/// applicants) — except the months since the most recent inquiry, which
/// enter −7 "condition not met" once the inquiry leaves the bureau's window
/// after 23 months ([`HELOC_WINDOWS`]). A special state stays as it is, and
/// waiting does not erase a recorded delinquency ([`super::heloc`] forbids
/// the move to −7). Change limits ([`HELOC_CHANGE_LIMITS`]), what
/// one recommendation can ask of a person within the two years the presets
/// wait at most:
/// * revolving and instalment burden (balance over limit, in percent) down by
///   at most 30 points — paying down about a third of one's limits, a plan a
///   household can keep; the share of trades with a balance down by at most
///   20 points;
/// * inquiries in the last 6 months down by at most 2 (the median applicant
///   has 1; more would presume inquiries the record does not hold, and they
///   leave the window only with time);
/// * bank/national trades with high utilisation, revolving and instalment
///   trades with a balance down by at most 2 (paying down or off two cards
///   or loans; never up, [`HELOC_DECREASE_ONLY`]);
/// * trade counts — total, satisfactory, opened in the last 12 months — by at
///   most 3 either way (a person opens or closes a few accounts within two
///   years, not sixty), and the share of instalment trades by at most 15
///   points (about one loan in a typical file of 20 trades);
/// * [`HELOC_IMMUTABLE`] never moves: `ExternalRiskEstimate` is the bureau's
///   consolidated score, derived from the rest of the file, and the
///   delinquency and derogatory counts are history — no advice asks a person
///   to acquire a derogatory record (whatever the model's sign) or pretends
///   one can be erased;
/// * [`HELOC_DECREASE_ONLY`] — burdens, trades with a balance or high
///   utilisation, recent inquiries — move only down: no advice asks a person
///   to take on debt or apply for credit, whatever the model's sign;
/// * nobody is moved into or out of "no usable trades" (−8), on any feature:
///   it is the absence of a record, not something a person does;
/// * one piece of advice changes at most [`HELOC_MAX_FEATURES_CHANGED`]
///   features (what waiting moves is not counted);
/// * the percentages are advised in multiples of 5 points, by at least 5
///   ([`HELOC_ADVICE_GRIDS`]).
///
/// Everything else as in [`super::heloc`].
pub fn heloc_advice(schema: &Schema, waiting_cost_per_month: f64) -> Result<Schema> {
    let mut feats = schema.features.clone();
    for name in HELOC_TIME_FEATURES {
        let f = feature(&mut feats, name)?;
        if !matches!(f.kind, FeatureKind::Contiguous { .. }) {
            return Err(crate::error::Error::InvalidSchema(format!(
                "the HELOC preset needs '{name}' contiguous"
            )));
        }
        grows_with_time(f, 1.0);
        if let Some(&(_, last_month)) = HELOC_WINDOWS.iter().find(|(n, _)| *n == name) {
            // The window's end says what time leads into: −7, not a refusal.
            f.actionability.grows_with_time = Some(TimeGrowth {
                per_month: 1.0,
                ends_in: Some("-7".into()),
                ends_after: Some(last_month),
                ..Default::default()
            });
        }
    }
    for (name, up, down) in HELOC_CHANGE_LIMITS {
        let f = feature(&mut feats, name)?;
        f.actionability.max_increase = up.map(ChangeLimit::Units);
        f.actionability.max_decrease = down.map(ChangeLimit::Units);
    }
    for name in HELOC_IMMUTABLE {
        feature(&mut feats, name)?.actionability.mutable = false;
    }
    for (name, step, least) in HELOC_ADVICE_GRIDS {
        let f = feature(&mut feats, name)?;
        f.actionability.advice_step = Some(step);
        f.actionability.min_change = Some(least);
    }
    for name in HELOC_DECREASE_ONLY {
        feature(&mut feats, name)?.actionability.direction = Direction::DecreaseOnly;
    }
    // "No usable trades" (−8) is the absence of a record, not a change a
    // person makes: nobody is advised into it (paying off every revolving
    // card to leave the bureau without usable trades games the data), nor
    // out of it (opening a first instalment loan so that its burden shows
    // 0 % creates the record the advice then relies on).
    for f in &mut feats {
        if let FeatureKind::Contiguous { special_states, .. } = &f.kind {
            if special_states.iter().any(|s| s.code == -8.0) {
                f.actionability.forbidden_transitions.push(Transition {
                    from: "*".into(),
                    to: "-8".into(),
                });
                f.actionability.forbidden_transitions.push(Transition {
                    from: "-8".into(),
                    to: "value".into(),
                });
            }
        }
    }
    Schema::new_with_waiting(
        feats,
        Some(Waiting {
            cost_per_month: waiting_cost_per_month,
            max_months: PRESET_MAX_MONTHS,
        }),
    )?
    .with_max_features_changed(Some(HELOC_MAX_FEATURES_CHANGED))
}

/// The price of one month of waiting that the examples use: as the distance
/// prices one month's growth of the cheapest time feature
/// (`W^c_i·per_month_i/(U_i − L_i)` over `growth`, pairs of a feature name and
/// its growth per month), since waiting moves them all together, which is the
/// point of it. Errors name a feature the schema does not have.
pub fn month_price(schema: &Schema, growth: &[(&str, f64)]) -> Result<f64> {
    let mut p = f64::INFINITY;
    for &(name, per_month) in growth {
        let i = schema.index_of(name)?;
        let slots_per_month = schema.value_to_slot(i, per_month) - schema.value_to_slot(i, 0.0);
        p = p.min(schema.weights(i).value * slots_per_month);
    }
    Ok(p)
}

/// The advice preset of a data set by name ("german", "heloc"), waiting priced
/// by [`month_price`]; `None` for a data set without a preset.
pub fn priced_preset(name: &str, schema: &Schema) -> Result<Option<Schema>> {
    Ok(match name {
        "german" => Some(german_credit_advice(
            schema,
            month_price(schema, &[("age_in_years", 1.0 / 12.0)])?,
        )?),
        "heloc" => {
            let growth: Vec<(&str, f64)> = HELOC_TIME_FEATURES.iter().map(|&n| (n, 1.0)).collect();
            Some(heloc_advice(schema, month_price(schema, &growth)?)?)
        }
        _ => None,
    })
}
