use super::*;

fn heloc_like() -> Schema {
    Schema::new(vec![
        Feature::contiguous("delq", 0.0, 80.0)
            .integer()
            .with_special(-7.0, "no delinquency record")
            .with_special(-9.0, "no bureau record"),
        Feature::categorical("housing", &["own", "rent", "free"]),
        Feature::contiguous("age", 18.0, 90.0).immutable(),
    ])
    .unwrap()
}

#[test]
fn layout_and_round_trip() {
    let s = heloc_like();
    assert_eq!(s.encoded_dim(), 3 + 3 + 1);
    let raw = vec![-7.0, 1.0, 40.0];
    let x = s.encode(&raw).unwrap();
    assert_eq!(x, vec![0.0, 1.0, 0.0, 0.0, 1.0, 0.0, 22.0 / 72.0]);
    assert_eq!(s.decode(&x).unwrap(), raw);
    let raw2 = vec![24.0, 2.0, 18.0];
    assert_eq!(s.decode(&s.encode(&raw2).unwrap()).unwrap(), raw2);
}

#[test]
fn incoherent_vectors_are_refused_naming_the_feature() {
    let s = heloc_like();
    let mut x = s.encode(&[-7.0, 1.0, 40.0]).unwrap();
    x[2] = 1.0; // two special indicators on
    match s.decode(&x) {
        Err(Error::Incoherent { feature, .. }) => assert_eq!(feature, "delq"),
        other => panic!("{other:?}"),
    }
    let mut x = s.encode(&[10.0, 1.0, 40.0]).unwrap();
    x[0] = 10.5 / 80.0; // not a whole number of months
    assert!(matches!(s.decode(&x), Err(Error::Incoherent { .. })));
    let mut x = s.encode(&[10.0, 1.0, 40.0]).unwrap();
    x[0] = 1.2; // outside [L, U]
    assert!(matches!(s.decode(&x), Err(Error::Incoherent { .. })));
    let mut x = s.encode(&[10.0, 1.0, 40.0]).unwrap();
    x[4] = 0.0; // no level on
    assert!(matches!(s.decode(&x), Err(Error::Incoherent { feature, .. }) if feature == "housing"));
    assert!(s.decode(&[0.0; 3]).is_err());
}

#[test]
fn bad_schemas_get_clear_errors() {
    let dup = Schema::new(vec![
        Feature::contiguous("a", 0.0, 1.0),
        Feature::contiguous("a", 0.0, 1.0),
    ]);
    assert!(matches!(dup, Err(Error::InvalidSchema(m)) if m.contains("duplicate")));
    let lu = Schema::new(vec![Feature::contiguous("a", 2.0, 1.0)]);
    assert!(matches!(lu, Err(Error::InvalidSchema(m)) if m.contains("exceeds")));
    let nan = Schema::new(vec![Feature::contiguous("a", f64::NAN, 1.0)]);
    assert!(nan.is_err());
    let empty = Schema::new(vec![Feature::categorical("c", &[])]);
    assert!(matches!(empty, Err(Error::InvalidSchema(m)) if m.contains("at least one level")));
    let inside = Schema::new(vec![
        Feature::contiguous("a", -10.0, 1.0).with_special(-7.0, "x"),
    ]);
    assert!(inside.is_err());
    assert!(Schema::new(vec![]).is_err());
    let s = heloc_like();
    assert!(matches!(s.index_of("nope"), Err(Error::NotFound(_))));
    let mut bad_t = Feature::contiguous("a", 0.0, 1.0);
    bad_t.actionability.forbidden_transitions.push(Transition {
        from: "*".into(),
        to: "ghost".into(),
    });
    assert!(matches!(Schema::new(vec![bad_t]), Err(Error::NotFound(_))));
}

#[test]
fn json_round_trip_keeps_everything() {
    let mut s = heloc_like();
    s.features[0]
        .actionability
        .forbidden_transitions
        .push(Transition {
            from: "*".into(),
            to: "-9".into(),
        });
    let s = Schema::new(s.features).unwrap();
    let back = Schema::from_json(&s.to_json()).unwrap();
    assert_eq!(back, s);
    assert!(!back.transition_allowed(0, 0, 2));
    assert!(back.transition_allowed(0, 0, 1));
    assert!(Schema::from_json("{").is_err());
    assert!(
        Schema::from_json(
            &s.to_json()
                .replace("\"format_version\": 2", "\"format_version\": 99")
        )
        .is_err()
    );
}

#[test]
fn actionability_checks() {
    let s = heloc_like();
    assert!(
        s.check_actionable(&[10.0, 0.0, 40.0], &[20.0, 1.0, 40.0])
            .is_ok()
    );
    assert!(
        s.check_actionable(&[10.0, 0.0, 40.0], &[10.0, 0.0, 41.0])
            .is_err()
    );
    let up = Schema::new(vec![
        Feature::contiguous("x", 0.0, 9.0).direction(Direction::IncreaseOnly),
    ])
    .unwrap();
    assert!(up.check_actionable(&[5.0], &[4.0]).is_err());
    assert!(up.check_actionable(&[5.0], &[6.0]).is_ok());
}

#[test]
fn weights_follow_the_reference_code() {
    let mut s = Schema::new(vec![
        Feature::contiguous("v", 0.0, 10.0).with_special(-8.0, "none"),
        Feature::categorical("c", &["a", "b"]),
    ])
    .unwrap();
    let rows = vec![
        vec![0.0, 0.0],
        vec![2.0, 0.0],
        vec![4.0, 1.0],
        vec![10.0, 1.0],
        vec![-8.0, 1.0],
    ];
    s.fit_weights(&rows).unwrap();
    let w = s.weights(0);
    // scaled in-range values 0, .2, .4, 1: median .3, |dev| .3 .1 .1 .7 → MAD .2
    assert!((w.value - 5.0).abs() < 1e-12);
    assert!((w.anchor - 0.3).abs() < 1e-12);
    // indicator of -8: p = 0.2, std = 0.4 → 1/(1.48·0.4)
    assert!((w.states[0] - 1.0 / (1.48 * 0.4)).abs() < 1e-12);
    let wc = s.weights(1);
    assert_eq!(wc.states.len(), 2);
    assert_eq!(s.encoded_weights().len(), 4);
}

#[test]
fn describes_changes_in_words() {
    let s = heloc_like();
    let ch = s.describe_changes(&[-7.0, 0.0, 40.0], &[24.0, 1.0, 40.0]);
    assert_eq!(ch.len(), 2);
    assert_eq!(ch[0].to_string(), "delq: 'no delinquency record' (-7) → 24");
    assert_eq!(ch[1].to_string(), "housing: 'own' → 'rent'");
}

fn stepped(lower: f64, upper: f64, integer: bool, step: f64) -> Feature {
    let mut f = Feature::contiguous("x", lower, upper);
    if let FeatureKind::Contiguous {
        integer: i,
        step: s,
        ..
    } = &mut f.kind
    {
        *i = integer;
        *s = Some(step);
    }
    f
}

#[test]
fn bounds_need_a_finite_width_and_grids_their_bounds_on_the_grid() {
    let overflow = Schema::new(vec![Feature::contiguous("x", -1e308, 1e308)]);
    assert!(
        matches!(overflow, Err(Error::InvalidSchema(m)) if m.contains("width") && m.contains("'x'"))
    );
    // the same through JSON
    let json = r#"{"format_version": 1, "features": [{"name": "x", "kind": "contiguous", "lower": -1e308, "upper": 1e308}]}"#;
    assert!(
        matches!(Schema::from_json(json), Err(Error::InvalidSchema(m)) if m.contains("overflows"))
    );
    // the widest representable width still loads, and so does the degenerate range
    assert!(Schema::new(vec![Feature::contiguous("x", -8e307, 8e307)]).is_ok());
    assert!(Schema::new(vec![Feature::contiguous("x", 3.0, 3.0)]).is_ok());
    // integer features take whole-number steps only
    let frac = Schema::new(vec![stepped(0.0, 10.0, true, 2.5)]);
    assert!(matches!(frac, Err(Error::InvalidSchema(m)) if m.contains("whole-number step")));
    assert!(Schema::new(vec![stepped(0.0, 10.0, true, 2.0)]).is_ok());
    let no_whole = Schema::new(vec![stepped(0.5, 10.5, true, 2.0)]);
    assert!(
        matches!(no_whole, Err(Error::InvalidSchema(m)) if m.contains("whole-number lower bound"))
    );
    // without a step, an integer feature may have fractional bounds (values are the whole numbers
    // inside); they are rounded inward (see `integer_bounds_are_rounded_inward_and_encode_refuses_fractions`)
    assert!(Schema::new(vec![Feature::contiguous("x", 0.5, 3.5).integer()]).is_ok());
    // the upper bound lies on lower + k·step
    let off = Schema::new(vec![stepped(0.0, 10.0, false, 3.0)]);
    assert!(matches!(off, Err(Error::InvalidSchema(m)) if m.contains("not on the grid 0 + k·3")));
    let off = Schema::new(vec![stepped(1.0, 2.0, false, 5.0)]);
    assert!(off.is_err());
    assert!(Schema::new(vec![stepped(0.5, 2.0, false, 0.5)]).is_ok());
    // accumulated rounding (0.1 is not exact in binary) stays within the tolerance
    assert!(Schema::new(vec![stepped(0.0, 0.7, false, 0.1)]).is_ok());
    assert!(Schema::new(vec![stepped(0.0, 0.75, false, 0.1)]).is_err());
}

fn bounds(s: &Schema, i: usize) -> (f64, f64) {
    match &s.features[i].kind {
        FeatureKind::Contiguous { lower, upper, .. } => (*lower, *upper),
        FeatureKind::Categorical { .. } => panic!("not contiguous"),
    }
}

/// The case the fuzzer found: an integer feature with bounds [1, 100000.5]
/// encoded the raw 29999.84375, which decoding then refused. Fractional bounds
/// are now rounded inward and encoding refuses non-whole values.
#[test]
fn integer_bounds_are_rounded_inward_and_encode_refuses_fractions() {
    let s = Schema::new(vec![Feature::contiguous("n", 1.0, 100000.5).integer()]).unwrap();
    assert_eq!(bounds(&s, 0), (1.0, 100000.0));
    let e = s.encode(&[29999.84375]).unwrap_err();
    assert!(
        matches!(&e, Error::Incoherent { feature, reason } if feature == "n" && reason.contains("not a whole number")),
        "{e}"
    );
    // the top of the slot is a value an applicant can take, and every whole number round-trips
    assert_eq!(s.decode(&[1.0]).unwrap(), vec![100000.0]);
    for v in [1.0, 2.0, 29999.0, 30000.0, 99999.0, 100000.0] {
        assert_eq!(s.decode(&s.encode(&[v]).unwrap()).unwrap(), vec![v]);
    }
    // within the tolerance a value is taken as the whole number (so rows that
    // went through float arithmetic still encode), and decodes as it
    let near = 30000.0 + 1e-9;
    assert_eq!(
        s.decode(&s.encode(&[near]).unwrap()).unwrap(),
        vec![30000.0]
    );

    // both ends, through JSON as well; the JSON written back holds the rounded bounds
    let json = r#"{"format_version": 1, "features": [{"name": "x", "kind": "contiguous",
        "lower": 0.5, "upper": 3.5, "integer": true,
        "actionability": {"lower": 0.7, "upper": 3.2}}]}"#;
    let s = Schema::from_json(json).unwrap();
    assert_eq!(bounds(&s, 0), (1.0, 3.0));
    // actionable bounds outside the rounded range move to its ends
    assert_eq!(s.features[0].actionability.lower, Some(1.0));
    assert_eq!(s.features[0].actionability.upper, Some(3.0));
    // actionable bounds inside it are kept as given (the solvers take the whole numbers between)
    let inner = Schema::new(vec![{
        let mut f = Feature::contiguous("x", 0.5, 9.5).integer();
        f.actionability.lower = Some(4.3);
        f.actionability.upper = Some(4.7);
        f
    }])
    .unwrap();
    assert_eq!(inner.features[0].actionability.lower, Some(4.3));
    // within COHERENCE_TOL of a whole number: that number, not the one below
    let near = Schema::new(vec![Feature::contiguous("x", 0.0, 2.9999999999).integer()]).unwrap();
    assert_eq!(bounds(&near, 0), (0.0, 3.0));
    assert_eq!(Schema::from_json(&s.to_json()).unwrap(), s);
    // a negative range rounds inward too
    let s = Schema::new(vec![Feature::contiguous("x", -3.5, -0.5).integer()]).unwrap();
    assert_eq!(bounds(&s, 0), (-3.0, -1.0));
    // no whole number inside: refused, naming the feature and the range as given
    let e = Schema::new(vec![Feature::contiguous("x", 2.2, 2.8).integer()]).unwrap_err();
    assert!(
        matches!(&e, Error::InvalidSchema(m) if m.contains("'x'") && m.contains("[2.2, 2.8]") && m.contains("no whole number")),
        "{e}"
    );
    // a non-integer feature keeps fractional bounds, and encodes fractions
    let s = Schema::new(vec![Feature::contiguous("x", 0.5, 3.5)]).unwrap();
    assert_eq!(bounds(&s, 0), (0.5, 3.5));
    assert!(s.encode(&[1.25]).is_ok());
}

#[test]
fn encode_refuses_values_off_a_step_grid() {
    let s = Schema::new(vec![stepped(0.0, 10.0, false, 2.5)]).unwrap();
    let e = s.encode(&[3.0]).unwrap_err();
    assert!(
        matches!(&e, Error::Incoherent { reason, .. } if reason.contains("not on the grid")),
        "{e}"
    );
    for v in [0.0, 2.5, 5.0, 7.5, 10.0] {
        assert_eq!(s.decode(&s.encode(&[v]).unwrap()).unwrap(), vec![v]);
    }
    // NaN never passes the grid check (state_of refuses it first, naming it)
    assert!(s.encode(&[f64::NAN]).is_err());
}
