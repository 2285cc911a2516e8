//! Change limits and the time axis of the schema (issue #16).

use super::*;

/// A loan (amount limited to −50 % / +10 %, duration to ±12 months), the
/// months since the last delinquency and age growing with time.
fn advised() -> Schema {
    Schema::new_with_waiting(
        vec![
            Feature::contiguous("amount", 250.0, 20000.0)
                .max_decrease(ChangeLimit::Fraction(0.5))
                .max_increase(ChangeLimit::Fraction(0.1)),
            Feature::contiguous("duration", 4.0, 72.0)
                .integer()
                .max_decrease(ChangeLimit::Units(12.0))
                .max_increase(ChangeLimit::Units(12.0)),
            Feature::contiguous("delq", 0.0, 24.0)
                .integer()
                .with_special(-7.0, "aged off the record")
                .grows_with_time(TimeGrowth {
                    per_month: 1.0,
                    ends_in: Some("aged off the record".into()),
                    ..Default::default()
                }),
            Feature::contiguous("age", 18.0, 75.0).grows_with_time(TimeGrowth {
                per_month: 1.0 / 12.0,
                ends_in: None,
                ..Default::default()
            }),
        ],
        Some(Waiting {
            cost_per_month: 0.1,
            max_months: 24,
        }),
    )
    .unwrap()
}

#[test]
fn move_range_is_the_actionable_range_cut_by_the_limits() {
    let s = advised();
    // 50 % down of 6000 is 3000, 10 % up 600.
    assert_eq!(s.move_range(0, 6000.0), Some((3000.0, 6600.0)));
    // Near the data's bounds the data range wins.
    assert_eq!(s.move_range(0, 400.0), Some((250.0, 440.0)));
    assert_eq!(s.move_range(1, 10.0), Some((4.0, 22.0)));
    assert_eq!(s.move_range(1, 70.0), Some((58.0, 72.0)));
    // An applicant outside the actionable range, limited to moves that do not
    // reach it, may only stay.
    let mut f = Feature::contiguous("x", 0.0, 100.0).max_increase(ChangeLimit::Units(5.0));
    f.actionability.lower = Some(50.0);
    let s1 = Schema::new(vec![f]).unwrap();
    assert_eq!(s1.move_range(0, 10.0), Some((10.0, 10.0)));
    assert_eq!(s1.move_range(0, 48.0), Some((50.0, 53.0)));
}

#[test]
fn waiting_moves_every_time_feature_together_capped_or_into_its_end_state() {
    let s = advised();
    let raw = [5000.0, 24.0, 15.0, 30.0];
    assert_eq!(s.after_waiting(&raw, 0).unwrap(), raw.to_vec());
    let w9 = s.after_waiting(&raw, 9).unwrap();
    assert_eq!(w9[..3], [5000.0, 24.0, 24.0]);
    assert!((w9[3] - 30.75).abs() < 1e-12);
    // Past the upper bound the delinquency ages off the record (−7).
    let w10 = s.after_waiting(&raw, 10).unwrap();
    assert_eq!(w10[2], -7.0);
    // Age is capped at its upper bound.
    let old = s.after_waiting(&[5000.0, 24.0, 15.0, 74.5], 12).unwrap();
    assert_eq!(old[3], 75.0);
    // On an integer grid growth counts whole steps: 1/12 year per month.
    let years = Schema::new_with_waiting(
        vec![
            Feature::contiguous("age", 18.0, 75.0)
                .integer()
                .grows_with_time(TimeGrowth {
                    per_month: 1.0 / 12.0,
                    ends_in: None,
                    ..Default::default()
                }),
        ],
        Some(Waiting {
            cost_per_month: 1.0,
            max_months: 60,
        }),
    )
    .unwrap();
    assert_eq!(years.after_waiting(&[28.0], 11).unwrap(), vec![28.0]);
    assert_eq!(years.after_waiting(&[28.0], 12).unwrap(), vec![29.0]);
    assert_eq!(years.after_waiting(&[28.0], 59).unwrap(), vec![32.0]);
    // A special state is not a number of months: waiting leaves it.
    assert_eq!(
        s.after_waiting(&[5000.0, 24.0, -7.0, 30.0], 5).unwrap()[2],
        -7.0
    );
}

#[test]
fn advice_is_checked_against_waiting_and_limits() {
    let s = advised();
    let from = [6000.0, 24.0, 15.0, 30.0];
    // Wait 3 months and cut the amount by 40 %: fine.
    let mut to = s.after_waiting(&from, 3).unwrap();
    to[0] = 3600.0;
    s.check_advice(&from, &to, 3).unwrap();
    // The same row claimed without waiting moves immutable features.
    assert!(s.check_advice(&from, &to, 0).is_err());
    // A cut of 60 % exceeds the limit.
    to[0] = 2400.0;
    let e = s.check_advice(&from, &to, 3).unwrap_err().to_string();
    assert!(e.contains("amount") && e.contains("change limits"), "{e}");
    // Waiting longer than the maximum is refused.
    let to = s.after_waiting(&from, 25).unwrap();
    assert!(
        s.check_advice(&from, &to, 25)
            .unwrap_err()
            .to_string()
            .contains("maximum 24")
    );
    // Ageing without waiting is refused: age is immutable otherwise.
    let mut older = from.to_vec();
    older[3] = 31.0;
    assert!(s.check_advice(&from, &older, 0).is_err());
}

#[test]
fn limits_and_time_round_trip_through_json_version_2() {
    let s = advised();
    let json = s.to_json();
    assert!(json.contains("\"format_version\": 2"), "{json}");
    assert!(
        json.contains("\"fraction\": 0.5") && json.contains("\"units\": 12.0"),
        "{json}"
    );
    let back = Schema::from_json(&json).unwrap();
    assert_eq!(back, s);
    assert_eq!(back.waiting().unwrap().max_months, 24);
    assert_eq!(back.time_features(), vec![2, 3]);
}

#[test]
fn a_version_1_document_with_version_2_keys_is_refused_and_plain_version_1_still_reads() {
    let v1 = r#"{"format_version": 1, "features": [{"name": "x", "kind": "contiguous", "lower": 0, "upper": 10}]}"#;
    assert_eq!(
        Schema::from_json(v1).unwrap().format_version,
        SCHEMA_FORMAT_VERSION
    );
    let v1_limit = v1.replace(
        r#""upper": 10}"#,
        r#""upper": 10, "actionability": {"max_increase": {"units": 2}}}"#,
    );
    let e = Schema::from_json(&v1_limit).unwrap_err();
    assert!(
        matches!(&e, Error::Format(m) if m.contains("'max_increase'") && m.contains("format_version 2")),
        "{e}"
    );
    let v2_limit = v1_limit.replace("\"format_version\": 1", "\"format_version\": 2");
    let s = Schema::from_json(&v2_limit).unwrap();
    assert_eq!(s.move_range(0, 3.0), Some((0.0, 5.0)));
}

#[test]
fn misspelled_limit_and_time_keys_are_format_errors_naming_the_key() {
    let base = r#"{"format_version": 2, "features": [{"name": "x", "kind": "contiguous", "lower": 0, "upper": 10, "actionability": ACT}]WAIT}"#;
    let doc = |act: &str, wait: &str| base.replace("ACT", act).replace("WAIT", wait);
    for (act, wait, key) in [
        (r#"{"max_increase": {"unit": 2}}"#, "", "unit"),
        (r#"{"max_increse": {"units": 2}}"#, "", "max_increse"),
        (
            r#"{"mutable": false, "grows_with_time": {"per_mnth": 1}}"#,
            r#", "waiting": {"cost_per_month": 1, "max_months": 3}"#,
            "per_mnth",
        ),
        (
            "{}",
            r#", "waiting": {"cost_per_month": 1, "max_month": 3}"#,
            "max_month",
        ),
    ] {
        let e = Schema::from_json(&doc(act, wait)).unwrap_err();
        assert!(
            matches!(&e, Error::Format(m) if m.contains(&format!("'{key}'")) || m.contains(&format!("`{key}`"))),
            "{key}: {e}"
        );
    }
}

#[test]
fn inconsistent_limits_and_time_declarations_are_invalid_schemas() {
    let bad = |f: Feature, waiting: Option<Waiting>| {
        let e = Schema::new_with_waiting(vec![f], waiting).unwrap_err();
        assert!(matches!(e, Error::InvalidSchema(_)), "{e}");
        e.to_string()
    };
    let wait = Some(Waiting {
        cost_per_month: 1.0,
        max_months: 12,
    });
    assert!(
        bad(
            Feature::categorical("c", &["a", "b"]).max_increase(ChangeLimit::Units(1.0)),
            None
        )
        .contains("contiguous")
    );
    assert!(
        bad(
            Feature::contiguous("x", 0.0, 1.0).max_decrease(ChangeLimit::Fraction(-0.5)),
            None
        )
        .contains("non-negative")
    );
    let mut mutable_time =
        Feature::contiguous("t", 0.0, 9.0).grows_with_time(TimeGrowth::default());
    mutable_time.actionability.mutable = true;
    assert!(bad(mutable_time, wait).contains("\"mutable\": false"));
    // No waiting action declared: the schema cannot be built at all.
    let e = Schema::new(vec![
        Feature::contiguous("t", 0.0, 9.0).grows_with_time(TimeGrowth::default()),
    ])
    .unwrap_err();
    assert!(e.to_string().contains("no 'waiting'"), "{e}");
    assert!(
        bad(
            Feature::contiguous("t", 0.0, 9.0)
                .integer()
                .grows_with_time(TimeGrowth {
                    per_month: 0.0,
                    ends_in: None,
                    ..Default::default()
                }),
            wait
        )
        .contains("positive")
    );
    assert!(
        bad(
            Feature::contiguous("t", 0.0, 9.0).grows_with_time(TimeGrowth {
                per_month: 1.0,
                ends_in: Some("gone".into()),
                ..Default::default()
            }),
            wait
        )
        .contains("'gone'")
    );
    for w in [
        Waiting {
            cost_per_month: -1.0,
            max_months: 3,
        },
        Waiting {
            cost_per_month: 1.0,
            max_months: 0,
        },
    ] {
        assert!(bad(Feature::contiguous("x", 0.0, 1.0), Some(w)).contains("waiting"));
    }
}

/// Employment as German credit has it: duration bands that only waiting moves.
fn banded(bands: &[(&str, u32)]) -> std::result::Result<Schema, crate::Error> {
    let mut f = Feature::categorical(
        "employment",
        &[
            "unemployed",
            "< 1 year",
            "1 to 4 years",
            "4 to 7 years",
            ">= 7 years",
        ],
    );
    f.actionability.level_order = [
        "unemployed",
        "< 1 year",
        "1 to 4 years",
        "4 to 7 years",
        ">= 7 years",
    ]
    .iter()
    .map(|l| l.to_string())
    .collect();
    let f = f.grows_with_time(TimeGrowth {
        band_months: bands.iter().map(|(b, m)| (b.to_string(), *m)).collect(),
        ..Default::default()
    });
    Schema::new_with_waiting(
        vec![Feature::contiguous("amount", 250.0, 20000.0), f],
        Some(Waiting {
            cost_per_month: 0.1,
            max_months: 120,
        }),
    )
}

#[test]
fn duration_bands_move_up_a_band_each_time_the_months_pass_its_width() {
    let s = banded(&[("< 1 year", 12), ("1 to 4 years", 36), ("4 to 7 years", 36)]).unwrap();
    let level = |from: f64, m: u32| s.after_waiting(&[1000.0, from], m).unwrap()[1];
    // "< 1 year" (index 1): 11 months may not be a year yet; 12 are.
    assert_eq!(level(1.0, 11), 1.0);
    assert_eq!(level(1.0, 12), 2.0);
    assert_eq!(level(1.0, 47), 2.0);
    assert_eq!(level(1.0, 48), 3.0);
    assert_eq!(level(1.0, 84), 4.0);
    assert_eq!(level(1.0, 120), 4.0, "the last band stays");
    assert_eq!(level(0.0, 120), 0.0, "unemployed is not a duration");
    assert_eq!(level(3.0, 36), 4.0);
    // The amount is untouched; waiting counts nothing as an action.
    assert_eq!(s.after_waiting(&[1000.0, 1.0], 12).unwrap()[0], 1000.0);
    assert_eq!(
        s.features_changed(&[1000.0, 1.0], &[1000.0, 2.0], 12)
            .unwrap(),
        0
    );
    // Advice that waits 12 months may hold the next band; moving it by action is refused.
    s.check_advice(&[1000.0, 1.0], &[1000.0, 2.0], 12).unwrap();
    assert!(s.check_advice(&[1000.0, 1.0], &[1000.0, 2.0], 11).is_err());
    assert!(s.check_advice(&[1000.0, 1.0], &[1000.0, 2.0], 0).is_err());
    // The schema's JSON keeps the bands.
    let back = Schema::from_json(&s.to_json()).unwrap();
    assert_eq!(back, s);
}

#[test]
fn duration_bands_are_refused_when_they_cannot_be_followed() {
    let bad = |bands: &[(&str, u32)]| banded(bands).unwrap_err().to_string();
    assert!(bad(&[("2 years", 12)]).contains("not in the feature's level_order"));
    assert!(bad(&[(">= 7 years", 12)]).contains("last level"));
    assert!(bad(&[("< 1 year", 0)]).contains("at least one month"));
    assert!(bad(&[]).contains("band_months"));
    // A categorical band feature needs an order, and contiguous features grow per month.
    let no_order = Feature::categorical("e", &["a", "b"]).grows_with_time(TimeGrowth {
        band_months: [("a".to_string(), 3)].into(),
        ..Default::default()
    });
    let w = Some(Waiting {
        cost_per_month: 0.1,
        max_months: 12,
    });
    let e = Schema::new_with_waiting(vec![no_order], w).unwrap_err();
    assert!(e.to_string().contains("level_order"), "{e}");
    let contiguous = Feature::contiguous("t", 0.0, 10.0).grows_with_time(TimeGrowth {
        band_months: [("a".to_string(), 3)].into(),
        ..Default::default()
    });
    let e = Schema::new_with_waiting(vec![contiguous], w).unwrap_err();
    assert!(e.to_string().contains("band_months"), "{e}");
}

/// Months since the last inquiry as FICO HELOC has them: 0–24 in the data,
/// −7 ("condition not met") once the bureau's window has closed, after 23.
fn inquiry_window(ends_after: Option<f64>) -> std::result::Result<Schema, crate::Error> {
    Schema::new_with_waiting(
        vec![
            Feature::contiguous("inq", 0.0, 24.0)
                .integer()
                .with_special(-7.0, "condition not met")
                .with_special(-8.0, "no usable trades")
                .grows_with_time(TimeGrowth {
                    per_month: 1.0,
                    ends_in: Some("-7".into()),
                    ends_after,
                    ..Default::default()
                }),
            Feature::contiguous("age", 18.0, 75.0).grows_with_time(TimeGrowth {
                per_month: 1.0 / 12.0,
                ..Default::default()
            }),
        ],
        Some(Waiting {
            cost_per_month: 0.1,
            max_months: 24,
        }),
    )
}

#[test]
fn ends_after_closes_the_window_before_the_upper_bound() {
    let s = inquiry_window(Some(23.0)).unwrap();
    let inq = |from: f64, m: u32| s.after_waiting(&[from, 30.0], m).unwrap()[0];
    // Up to the threshold the months count; one more and the window has closed.
    assert_eq!(inq(0.0, 23), 23.0);
    assert_eq!(inq(0.0, 24), -7.0);
    assert_eq!(inq(20.0, 3), 23.0);
    assert_eq!(inq(20.0, 4), -7.0);
    // The data's own 24 is kept as it stands; any month of waiting closes it.
    assert_eq!(inq(24.0, 0), 24.0);
    assert_eq!(inq(24.0, 1), -7.0);
    // A special state is not a number of months: waiting leaves it.
    assert_eq!(inq(-8.0, 24), -8.0);
    assert_eq!(inq(-7.0, 24), -7.0);
    // Without ends_after the window closes past the upper bound, 24.
    let u = inquiry_window(None).unwrap();
    assert_eq!(u.after_waiting(&[0.0, 30.0], 24).unwrap()[0], 24.0);
    assert_eq!(u.after_waiting(&[0.0, 30.0], 25).unwrap()[0], -7.0);
    // Advice that waits 24 months holds −7, not 24; the check agrees.
    let to = s.after_waiting(&[0.0, 30.0], 24).unwrap();
    s.check_advice(&[0.0, 30.0], &to, 24).unwrap();
    assert!(s.check_advice(&[0.0, 30.0], &[24.0, 32.0], 24).is_err());
    // The threshold survives the schema's JSON, and is omitted when unset.
    let json = s.to_json();
    assert!(json.contains("\"ends_after\": 23.0"), "{json}");
    assert_eq!(Schema::from_json(&json).unwrap(), s);
    assert!(!u.to_json().contains("ends_after"));
}

#[test]
fn ends_after_is_refused_outside_the_range_or_without_a_state_to_end_in() {
    for t in [-1.0, 24.5, f64::NAN, f64::INFINITY] {
        let e = inquiry_window(Some(t)).unwrap_err().to_string();
        assert!(e.contains("ends_after") && e.contains("[0, 24]"), "{e}");
    }
    // The bounds themselves are fine.
    inquiry_window(Some(0.0)).unwrap();
    inquiry_window(Some(24.0)).unwrap();
    let w = Some(Waiting {
        cost_per_month: 0.1,
        max_months: 12,
    });
    let no_state = Feature::contiguous("t", 0.0, 10.0).grows_with_time(TimeGrowth {
        ends_after: Some(5.0),
        ..Default::default()
    });
    let e = Schema::new_with_waiting(vec![no_state], w).unwrap_err();
    assert!(e.to_string().contains("give ends_in too"), "{e}");
    let mut band = Feature::categorical("e", &["a", "b"]);
    band.actionability.level_order = vec!["a".into(), "b".into()];
    let band = band.grows_with_time(TimeGrowth {
        band_months: [("a".to_string(), 3)].into(),
        ends_after: Some(1.0),
        ..Default::default()
    });
    let e = Schema::new_with_waiting(vec![band], w).unwrap_err();
    assert!(e.to_string().contains("ends_after"), "{e}");
    // Through the schema JSON the same rule holds.
    let json = r#"{"format_version": 2, "features": [
        {"name": "t", "kind": "contiguous", "lower": 0, "upper": 10,
         "special_states": [{"code": -7, "label": "gone"}],
         "actionability": {"mutable": false,
            "grows_with_time": {"ends_in": "gone", "ends_after": 11}}}],
        "waiting": {"cost_per_month": 0.1, "max_months": 12}}"#;
    let e = Schema::from_json(json).unwrap_err().to_string();
    assert!(e.contains("ends_after") && e.contains("got 11"), "{e}");
}

/// Months since an event (0..24, whole months) and age (18..75, real, 1/12
/// of a year a month), both refusing to pass their upper bounds, beside a
/// capped counter (0..10); waiting up to `max_months`.
fn refusing(max_months: u32) -> Schema {
    Schema::new_with_waiting(
        vec![
            Feature::contiguous("since", 0.0, 24.0)
                .integer()
                .with_special(-8.0, "no record")
                .grows_with_time(TimeGrowth {
                    past_upper: PastUpper::Refuse,
                    ..Default::default()
                }),
            Feature::contiguous("age", 18.0, 75.0).grows_with_time(TimeGrowth {
                per_month: 1.0 / 12.0,
                past_upper: PastUpper::Refuse,
                ..Default::default()
            }),
            Feature::contiguous("capped", 0.0, 10.0)
                .integer()
                .grows_with_time(TimeGrowth::default()),
        ],
        Some(Waiting {
            cost_per_month: 0.1,
            max_months,
        }),
    )
    .unwrap()
}

#[test]
fn a_refusing_feature_shortens_the_wait_to_its_upper_bound() {
    let s = refusing(24);
    // 15 months since: 9 more reach 24; age 30 is far from 75.
    assert_eq!(s.longest_wait(&[15.0, 30.0, 0.0]).unwrap(), 9);
    assert_eq!(s.after_waiting(&[15.0, 30.0, 0.0], 9).unwrap()[0], 24.0);
    // Age 74.5 reaches 75 after 6 months; the least limit wins.
    assert_eq!(s.longest_wait(&[15.0, 74.5, 0.0]).unwrap(), 6);
    // At the bound no wait that moves the value is allowed.
    assert_eq!(s.longest_wait(&[24.0, 30.0, 0.0]).unwrap(), 0);
    // A special state is not a number of months: it sets no limit, and the
    // capped counter never does.
    assert_eq!(s.longest_wait(&[-8.0, 30.0, 9.0]).unwrap(), 24);
    assert_eq!(refusing(5).longest_wait(&[15.0, 30.0, 0.0]).unwrap(), 5);
    // Without a waiting action nobody waits.
    let plain = Schema::new(vec![Feature::contiguous("x", 0.0, 1.0)]).unwrap();
    assert_eq!(plain.longest_wait(&[0.5]).unwrap(), 0);
    assert!(s.longest_wait(&[1.0]).is_err());
    // A longer wait is refused, not capped, naming the feature and the limit.
    let e = s
        .after_waiting(&[15.0, 30.0, 0.0], 10)
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("'since'") && e.contains("upper bound 24") && e.contains("at most 9 months"),
        "{e}"
    );
    let e = s
        .check_advice(&[15.0, 30.0, 0.0], &[25.0, 30.0 + 10.0 / 12.0, 10.0], 10)
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("refuses") && e.contains("at most 9 months"),
        "{e}"
    );
    // Within the limit the advice is checked as before.
    let to = s.after_waiting(&[15.0, 30.0, 0.0], 9).unwrap();
    s.check_advice(&[15.0, 30.0, 0.0], &to, 9).unwrap();
    // The same schema capping instead waits the full 24 months, piling at 24.
    let mut capped = s.clone();
    for f in &mut capped.features {
        if let Some(g) = &mut f.actionability.grows_with_time {
            g.past_upper = PastUpper::Cap;
        }
    }
    assert_eq!(capped.longest_wait(&[15.0, 74.5, 0.0]).unwrap(), 24);
    assert_eq!(
        capped.after_waiting(&[15.0, 74.5, 0.0], 24).unwrap(),
        vec![24.0, 75.0, 10.0]
    );
}

/// The limit against brute force: on integer, step and real grids with
/// several growth rates, every wait up to [`Schema::longest_wait`] leaves each
/// refusing feature within its range and every longer one would not. The
/// oracle grows the value on the same schema with the upper bound raised out
/// of reach (so no cap or refusal applies) and compares with the true bound.
#[test]
fn the_longest_wait_is_the_last_month_within_the_upper_bound_by_brute_force() {
    let mut checked = 0;
    for (grain, integer) in [(0.0, false), (1.0, true), (0.5, false), (3.0, true)] {
        for per_month in [1.0, 0.4, 1.0 / 12.0, 2.5] {
            let feature = |upper: f64, past_upper: PastUpper| {
                let mut f = Feature::contiguous("t", 0.0, upper);
                if integer {
                    f = f.integer();
                }
                if grain > 0.0 && grain != 1.0 {
                    if let FeatureKind::Contiguous { step, .. } = &mut f.kind {
                        *step = Some(grain);
                    }
                }
                f.grows_with_time(TimeGrowth {
                    per_month,
                    past_upper,
                    ..Default::default()
                })
            };
            let w = Some(Waiting {
                cost_per_month: 0.1,
                max_months: 40,
            });
            let upper = 12.0;
            let s = Schema::new_with_waiting(vec![feature(upper, PastUpper::Refuse)], w).unwrap();
            let wide = Schema::new_with_waiting(vec![feature(1200.0, PastUpper::Cap)], w).unwrap();
            let mut start = 0.0;
            while start <= upper {
                let grown = |m: u32| wide.after_waiting(&[start], m).unwrap()[0];
                let expected = (0..=40u32)
                    .take_while(|&m| grown(m) <= upper + COHERENCE_TOL)
                    .last()
                    .unwrap();
                let got = s.longest_wait(&[start]).unwrap();
                assert_eq!(
                    got, expected,
                    "grain {grain}, {per_month}/month from {start}"
                );
                for m in 0..=40 {
                    match s.after_waiting(&[start], m) {
                        Ok(row) => {
                            assert!(m <= got);
                            assert_eq!(row[0], grown(m));
                            assert!(row[0] <= upper + COHERENCE_TOL);
                        }
                        Err(_) => assert!(m > got),
                    }
                }
                checked += 1;
                start += if grain > 0.0 { grain } else { 0.7 };
            }
        }
    }
    assert!(checked >= 100, "{checked}");
}

#[test]
fn past_upper_round_trips_through_json_and_bad_values_are_refused() {
    let s = refusing(24);
    let json = s.to_json();
    assert_eq!(
        json.matches("\"past_upper\": \"refuse\"").count(),
        2,
        "{json}"
    );
    assert_eq!(Schema::from_json(&json).unwrap(), s);
    // The default is omitted, and "cap" is read as the default.
    assert!(!advised().to_json().contains("past_upper"));
    let doc = |value: &str| {
        format!(
            r#"{{"format_version": 2, "features": [
            {{"name": "t", "kind": "contiguous", "lower": 0, "upper": 10,
             "actionability": {{"mutable": false,
                "grows_with_time": {{"past_upper": {value}}}}}}}],
            "waiting": {{"cost_per_month": 0.1, "max_months": 12}}}}"#
        )
    };
    let cap = Schema::from_json(&doc("\"cap\"")).unwrap();
    let g = cap.features[0]
        .actionability
        .grows_with_time
        .as_ref()
        .unwrap();
    assert_eq!(g.past_upper, PastUpper::Cap);
    assert_eq!(cap.longest_wait(&[5.0]).unwrap(), 12);
    let refuse = Schema::from_json(&doc("\"refuse\"")).unwrap();
    assert_eq!(refuse.longest_wait(&[5.0]).unwrap(), 5);
    for bad in ["\"clamp\"", "\"Refuse\"", "true", "1"] {
        let e = Schema::from_json(&doc(bad)).unwrap_err().to_string();
        assert!(e.contains("past_upper"), "{bad}: {e}");
    }
    let e = Schema::from_json(&doc("\"clamp\""))
        .unwrap_err()
        .to_string();
    assert!(e.contains("clamp") && e.contains("refuse"), "{e}");
}

#[test]
fn refusing_is_for_contiguous_features_without_an_end_state() {
    let w = Some(Waiting {
        cost_per_month: 0.1,
        max_months: 12,
    });
    // `ends_in` already says what happens past the bound: both is refused.
    let both = Feature::contiguous("t", 0.0, 10.0)
        .with_special(-7.0, "gone")
        .grows_with_time(TimeGrowth {
            ends_in: Some("gone".into()),
            past_upper: PastUpper::Refuse,
            ..Default::default()
        });
    let e = Schema::new_with_waiting(vec![both], w)
        .unwrap_err()
        .to_string();
    assert!(e.contains("past_upper") && e.contains("ends_in"), "{e}");
    let mut band = Feature::categorical("e", &["a", "b"]);
    band.actionability.level_order = vec!["a".into(), "b".into()];
    let band = band.grows_with_time(TimeGrowth {
        band_months: [("a".to_string(), 3)].into(),
        past_upper: PastUpper::Refuse,
        ..Default::default()
    });
    let e = Schema::new_with_waiting(vec![band], w)
        .unwrap_err()
        .to_string();
    assert!(e.contains("past_upper"), "{e}");
}

/// Advised ranges (issue 25): a wait may not move a month counter to outside
/// its range; a value the wait leaves unchanged, or carries into the state
/// time ends in, is not judged. Hand-counted: the delinquency counter
/// `3 + m` is in `[10, 20]` for `m` in 7..=17 and ends in −7 past 24 (`m` ≥
/// 22); the age `30 + m/12` stays within `[30, 31]` for `m` ≤ 12.
#[test]
fn advised_ranges_leave_only_the_waits_that_land_inside() {
    let delq = advised().with_advised_range(2, Some((10.0, 20.0))).unwrap();
    let row = [5000.0, 24.0, 3.0, 30.0];
    let mut expect = vec![0];
    expect.extend(7..=17);
    expect.extend(22..=24);
    assert_eq!(delq.advisable_waits(&row).unwrap(), expect);
    let both = delq
        .clone()
        .with_advised_range(3, Some((30.0, 31.0)))
        .unwrap();
    let mut expect = vec![0];
    expect.extend(7..=12);
    assert_eq!(both.advisable_waits(&row).unwrap(), expect);
    // An applicant already in the end state is not moved by waiting.
    assert_eq!(
        delq.advisable_waits(&[5000.0, 24.0, -7.0, 30.0]).unwrap(),
        (0..=24).collect::<Vec<_>>()
    );
    // Without ranges every month up to the longest wait.
    assert_eq!(
        advised().advisable_waits(&row).unwrap(),
        (0..=24).collect::<Vec<_>>()
    );
    // check_advice refuses a wait out of range, naming the feature and the rule.
    let e = delq
        .check_advice(&row, &delq.after_waiting(&row, 3).unwrap(), 3)
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("'delq'") && e.contains("advised_range") && e.contains("to 6"),
        "{e}"
    );
    delq.check_advice(&row, &delq.after_waiting(&row, 7).unwrap(), 7)
        .unwrap();
    delq.check_advice(&row, &delq.after_waiting(&row, 23).unwrap(), 23)
        .unwrap();
    // JSON: `"advised_range": [low, high]`, omitted when absent, round-trips.
    let json = both.to_json();
    assert_eq!(json.matches("\"advised_range\"").count(), 2, "{json}");
    assert_eq!(Schema::from_json(&json).unwrap(), both);
    assert!(!advised().to_json().contains("advised_range"));
}

#[test]
fn advised_ranges_are_checked() {
    let e = advised()
        .with_advised_range(2, Some((20.0, 10.0)))
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("advised_range") && e.contains("low ≤ high"),
        "{e}"
    );
    let e = advised()
        .with_advised_range(2, Some((f64::NAN, 10.0)))
        .unwrap_err()
        .to_string();
    assert!(e.contains("advised_range"), "{e}");
    let e = advised()
        .with_advised_range(0, Some((1.0, 2.0)))
        .unwrap_err()
        .to_string();
    assert!(e.contains("'amount' does not grow with time"), "{e}");
    assert!(advised().with_advised_range(9, None).is_err());
    // Clearing gives the schema back.
    let cleared = advised()
        .with_advised_range(2, Some((1.0, 2.0)))
        .and_then(|s| s.with_advised_range(2, None))
        .unwrap();
    assert_eq!(cleared, advised());
    // Duration bands end in the next band: no range.
    let mut band = Feature::categorical("e", &["a", "b"]);
    band.actionability.level_order = vec!["a".into(), "b".into()];
    let band = band.grows_with_time(TimeGrowth {
        band_months: [("a".to_string(), 3)].into(),
        advised_range: Some((0.0, 1.0)),
        ..Default::default()
    });
    let w = Some(Waiting {
        cost_per_month: 0.1,
        max_months: 12,
    });
    let e = Schema::new_with_waiting(vec![band], w)
        .unwrap_err()
        .to_string();
    assert!(e.contains("advised_range"), "{e}");
}
