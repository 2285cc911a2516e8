//! Advice grids and minimum changes (issue 43).

use super::*;

/// An income advised in multiples of 1,000 at least 2,000 at a time, a
/// duration in whole months at least 3 at a time, a balance on a data grid
/// of 50 advised in multiples of 500.
fn gridded() -> Schema {
    Schema::new(vec![
        Feature::contiguous("income", 0.0, 200_000.0)
            .with_special(-9.0, "not reported")
            .advice_step(1000.0)
            .min_change(2000.0),
        Feature::contiguous("duration", 4.0, 72.0)
            .integer()
            .min_change(3.0),
        {
            let mut f = Feature::contiguous("balance", 0.0, 10_000.0);
            if let FeatureKind::Contiguous { step, .. } = &mut f.kind {
                *step = Some(50.0);
            }
            f.advice_step(500.0)
        },
    ])
    .unwrap()
}

#[test]
fn the_value_grid_is_the_advice_grid_else_the_data_grid() {
    let s = gridded();
    assert_eq!(s.value_grid(0), Some((0.0, 1000.0)));
    assert_eq!(s.value_grid(1), Some((0.0, 1.0)));
    assert_eq!(s.value_grid(2), Some((0.0, 500.0)));
    // Multiples of 1,000 in [43,217, 47,500]: 44,000 … 47,000.
    assert_eq!(
        s.grid_points(0, 43_217.0, 47_500.0),
        Some((44_000.0, 1000.0, 3))
    );
    // None in [43,100, 43,900].
    assert_eq!(s.grid_points(0, 43_100.0, 43_900.0).unwrap().2, -1);
    assert!(s.on_value_grid(0, 45_000.0) && !s.on_value_grid(0, 45_500.0));
    assert_eq!(s.min_change(0), 2000.0);
    assert_eq!(s.min_change(2), 0.0);
}

#[test]
fn advice_is_checked_against_grids_and_minimum_changes() {
    let s = gridded();
    let from = [43_217.0, 24.0, 1850.0];
    // Staying put is allowed off the grid; moving is on the grid, far enough.
    s.check_advice(&from, &from, 0).unwrap();
    s.check_advice(&from, &[46_000.0, 27.0, 1500.0], 0).unwrap();
    s.check_advice(&from, &[41_000.0, 21.0, 2000.0], 0).unwrap();
    let err = |to: [f64; 3]| s.check_advice(&from, &to, 0).unwrap_err().to_string();
    assert!(err([45_500.0, 24.0, 1850.0]).contains("multiples of 1000"));
    // 44,000 is on the grid but only 783 more: under the minimum.
    assert!(err([44_000.0, 24.0, 1850.0]).contains("less than 2000"));
    assert!(err([43_217.0, 26.0, 1850.0]).contains("less than 3"));
    assert!(err([43_217.0, 24.0, 1900.0]).contains("multiples of 500"));
    // Into and out of the special state: no amount, so no minimum; the
    // value entered is on the grid.
    s.check_advice(&from, &[-9.0, 24.0, 1850.0], 0).unwrap();
    let special = [-9.0, 24.0, 1850.0];
    s.check_advice(&special, &[1000.0, 24.0, 1850.0], 0)
        .unwrap();
    assert!(
        s.check_advice(&special, &[1500.0, 24.0, 1850.0], 0)
            .is_err()
    );
}

#[test]
fn nearest_advisable_is_on_the_grid_beyond_the_band_or_staying() {
    let s = gridded();
    // From 43,217, towards 44,100: 44,000 is in the band, 46,000 and 41,000 are the nearest.
    assert_eq!(
        s.nearest_advisable(0, 43_217.0, 44_100.0, 0.0, 200_000.0),
        46_000.0
    );
    assert_eq!(
        s.nearest_advisable(0, 43_217.0, 42_500.0, 0.0, 200_000.0),
        41_000.0
    );
    // Nothing on the grid beyond the band inside [43,000, 44,500]: stay.
    assert_eq!(
        s.nearest_advisable(0, 43_217.0, 44_400.0, 43_000.0, 44_500.0),
        43_217.0
    );
}

#[test]
fn grids_round_trip_through_json_version_2_and_need_it() {
    let s = gridded();
    let json = s.to_json();
    assert!(json.contains("\"advice_step\": 1000.0") && json.contains("\"min_change\": 3.0"));
    assert_eq!(Schema::from_json(&json).unwrap(), s);
    let v1 = json.replace("\"format_version\": 2", "\"format_version\": 1");
    let e = Schema::from_json(&v1).unwrap_err().to_string();
    assert!(
        e.contains("advice_step") && e.contains("format_version 2"),
        "{e}"
    );
    let typo = json.replace("\"min_change\"", "\"min_chnage\"");
    assert!(Schema::from_json(&typo).is_err());
}

#[test]
fn bad_grids_and_minimums_are_refused_with_the_reason() {
    let bad = |f: Feature| Schema::new(vec![f]).unwrap_err().to_string();
    let c = || Feature::contiguous("x", 0.0, 100.0);
    assert!(bad(c().advice_step(0.0)).contains("advice_step must be finite and positive"));
    assert!(bad(c().advice_step(-5.0)).contains("advice_step must be finite and positive"));
    assert!(bad(c().advice_step(f64::NAN)).contains("advice_step must be finite and positive"));
    assert!(bad(c().advice_step(f64::INFINITY)).contains("finite and positive"));
    assert!(bad(c().min_change(-1.0)).contains("min_change must be finite and non-negative"));
    assert!(bad(c().min_change(f64::NAN)).contains("min_change must be finite and non-negative"));
    assert!(bad(c().integer().advice_step(2.5)).contains("whole number"));
    let mut stepped = c();
    if let FeatureKind::Contiguous { step, .. } = &mut stepped.kind {
        *step = Some(4.0);
    }
    assert!(bad(stepped.clone().advice_step(6.0)).contains("whole multiple of the data's step 4"));
    Schema::new(vec![stepped.advice_step(8.0)]).unwrap();
    assert!(
        bad(Feature::categorical("c", &["a", "b"]).min_change(1.0))
            .contains("contiguous features only")
    );
    let timed = Schema::new_with_waiting(
        vec![
            Feature::contiguous("t", 0.0, 24.0)
                .grows_with_time(TimeGrowth::default())
                .advice_step(3.0),
        ],
        Some(Waiting {
            cost_per_month: 0.1,
            max_months: 12,
        }),
    )
    .unwrap_err()
    .to_string();
    assert!(timed.contains("moves only by waiting"), "{timed}");
    // The setter validates as the constructor does.
    let s = Schema::new(vec![c()]).unwrap();
    assert!(s.clone().with_advice_grid(0, Some(-1.0), None).is_err());
    assert!(s.clone().with_advice_grid(3, Some(1.0), None).is_err());
    let g = s.with_advice_grid(0, Some(5.0), Some(10.0)).unwrap();
    assert_eq!((g.value_grid(0), g.min_change(0)), (Some((0.0, 5.0)), 10.0));
}
