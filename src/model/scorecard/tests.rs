//! Scorecard evaluation (raw and encoded), ties, validation, JSON, and Monte
//! Carlo robustness against closed forms.

use super::*;
use crate::model::AnyModel;
use crate::robust::{Estimator, NoiseModel, Workspace, normal_cdf};
use crate::schema::{Feature, Schema};

fn iv(lo: Option<f64>, hi: Option<f64>, lc: bool, hc: bool, points: f64) -> Bin {
    Bin {
        range: BinRange::Interval {
            lower: lo,
            upper: hi,
            lower_closed: lc,
            upper_closed: hc,
        },
        points,
    }
}

fn schema() -> Schema {
    Schema::new(vec![
        Feature::contiguous("x", 0.0, 10.0)
            .integer()
            .with_special(-7.0, "condition not met")
            .with_special(-8.0, "missing")
            .with_special(-9.0, "no record"),
        Feature::categorical("c", &["a", "b", "c"]),
        Feature::contiguous("unused", 0.0, 1.0),
        Feature::contiguous("y", -5.0, 5.0),
    ])
    .unwrap()
}

fn characteristics() -> Vec<Characteristic> {
    vec![
        Characteristic {
            feature: "x".into(),
            bins: vec![
                iv(None, Some(2.5), false, false, 10.0),
                iv(Some(2.5), Some(6.0), true, false, 20.0),
                iv(Some(6.0), None, true, false, 35.0),
                Bin {
                    range: BinRange::Special {
                        codes: vec![-7.0, -9.0],
                    },
                    points: 15.0,
                },
                Bin {
                    range: BinRange::Missing,
                    points: 5.0,
                },
            ],
        },
        Characteristic {
            feature: "c".into(),
            bins: vec![
                Bin {
                    range: BinRange::Levels {
                        levels: vec!["a".into(), "c".into()],
                    },
                    points: 1.0,
                },
                Bin {
                    range: BinRange::Levels {
                        levels: vec!["b".into()],
                    },
                    points: 7.0,
                },
            ],
        },
        Characteristic {
            feature: "y".into(),
            bins: vec![
                iv(None, Some(0.0), false, true, 3.0),
                iv(Some(0.0), None, false, false, -2.0),
            ],
        },
    ]
}

fn card(cutoff: f64, scaling: Option<ScoreScaling>) -> Scorecard {
    Scorecard::new(&schema(), 100.0, cutoff, scaling, characteristics()).unwrap()
}

#[test]
fn raw_score_follows_bins_edges_and_states() {
    let s = schema();
    let c = card(130.0, None);
    let score = |r: [f64; 4]| c.score_raw(&s, &r).unwrap();
    // x = 2 → 10, x = 3 → 20 (2.5 lies between), x = 6 → 35 ([6, inf)), x = 5 → 20.
    assert_eq!(score([2.0, 0.0, 0.5, -1.0]), 100.0 + 10.0 + 1.0 + 3.0);
    assert_eq!(score([3.0, 1.0, 0.5, -1.0]), 100.0 + 20.0 + 7.0 + 3.0);
    assert_eq!(score([6.0, 2.0, 0.5, 0.0]), 100.0 + 35.0 + 1.0 + 3.0);
    assert_eq!(score([5.0, 2.0, 0.5, 0.1]), 100.0 + 20.0 + 1.0 - 2.0);
    assert_eq!(score([-7.0, 2.0, 0.0, 5.0]), 100.0 + 15.0 + 1.0 - 2.0);
    assert_eq!(score([-9.0, 2.0, 0.0, 5.0]), 100.0 + 15.0 + 1.0 - 2.0);
    assert_eq!(score([-8.0, 1.0, 0.0, -5.0]), 100.0 + 5.0 + 7.0 + 3.0);
    // The same bins, characteristic by characteristic (x, c, y).
    assert_eq!(
        c.points_by_characteristic(&s, &[3.0, 1.0, 0.5, -1.0])
            .unwrap(),
        [20.0, 7.0, 3.0]
    );
    assert_eq!(
        c.points_by_characteristic(&s, &[-8.0, 2.0, 0.0, 0.1])
            .unwrap(),
        [5.0, 1.0, -2.0]
    );
    assert!(c.points_by_characteristic(&s, &[3.0]).is_err());
    // An incoherent value is an error naming the feature.
    let e = c.score_raw(&s, &[11.0, 0.0, 0.0, 0.0]).unwrap_err();
    assert!(e.to_string().contains("'x'"), "{e}");
}

#[test]
fn encoded_score_equals_raw_score_on_every_grid_row_and_edge() {
    let s = schema();
    let c = card(130.0, None);
    let mut xs: Vec<f64> = (0..=10).map(|v| v as f64).collect();
    xs.extend([-7.0, -8.0, -9.0]);
    for &x in &xs {
        for lvl in 0..3 {
            for y in [-5.0, -1.0, -1e-12, 0.0, 1e-12, 0.3, 5.0] {
                let r = [x, lvl as f64, 0.25, y];
                let enc = s.encode(&r).unwrap();
                assert_eq!(c.score(&enc), c.score_raw(&s, &r).unwrap(), "{r:?}");
            }
        }
    }
}

#[test]
fn ties_at_the_cutoff_are_accepted_everywhere() {
    let s = schema();
    // x = 3 ('b'), y = 0: 100 + 20 + 7 + 3 = 130 exactly.
    let r = [3.0, 1.0, 0.0, 0.0];
    let at = card(130.0, Some(ScoreScaling::new(20.0, 130.0).unwrap()));
    let enc = s.encode(&r).unwrap();
    assert!(at.accepts(&enc));
    assert!(at.accepts_score(130.0));
    assert_eq!(at.threshold(), 0.5);
    assert_eq!(at.probability(&enc), 0.5);
    let above = card(130.0 + 1e-9, None);
    assert!(!above.accepts(&enc));
    // Monte Carlo with no noise on a weighted column: Γ̃ is 0 at a tie (accepted),
    // 1 just above the cutoff.
    let noise = NoiseModel::gaussian(0.01, vec![s.layout(2).start]).unwrap();
    let est = Estimator::new(noise, 100).unwrap();
    let mut ws = Workspace::new(&at, 1);
    assert_eq!(
        est.invalidation_rate(&at, &enc, &mut ws).unwrap().value,
        0.0
    );
    let mut ws = Workspace::new(&above, 1);
    assert_eq!(
        est.invalidation_rate(&above, &enc, &mut ws).unwrap().value,
        1.0
    );
    // Through AnyModel too.
    let any = AnyModel::Scorecard(at.clone());
    assert!(any.accepts(&enc));
}

#[test]
fn unscaled_scorecards_have_no_probability_and_theta_refuses() {
    let s = schema();
    let c = card(130.0, None);
    let enc = s.encode(&[3.0, 1.0, 0.0, 0.0]).unwrap();
    assert!(c.probability(&enc).is_nan());
    assert!(c.threshold().is_nan());
    let noise = NoiseModel::gaussian_for_schema(&s, 0.01).unwrap();
    let est = Estimator::new(noise, 100).unwrap();
    let mut ws = Workspace::new(&c, 1);
    for e in [
        est.soft_invalidation_rate(&c, &enc, &mut ws).unwrap_err(),
        est.estimate(&c, &enc, &mut ws).unwrap_err(),
        est.bound(&c, &enc, 0.05, &mut ws).unwrap_err(),
    ] {
        assert!(matches!(e, Error::InvalidArgument(_)), "{e}");
        assert!(e.to_string().contains("scaling"), "{e}");
    }
    assert!(est.invalidation_rate(&c, &enc, &mut ws).is_ok());
}

#[test]
fn gradient_methods_refuse_a_scorecard() {
    use crate::robust::{CrocoConfig, ProbeConfig, WachterConfig, croco, probe, wachter};
    let s = schema();
    let c = AnyModel::Scorecard(card(200.0, Some(ScoreScaling::new(20.0, 150.0).unwrap())));
    let r = [3.0, 1.0, 0.0, 0.0];
    let noise = NoiseModel::gaussian_for_schema(&s, 0.01).unwrap();
    let errs = [
        wachter(&s, &c, &noise, &r, &WachterConfig::default()).unwrap_err(),
        probe(&s, &c, &noise, &r, &ProbeConfig::default()).unwrap_err(),
        croco(&s, &c, &noise, &r, &CrocoConfig::default()).unwrap_err(),
        crate::robust::probe_invalidation_rate(
            &c,
            &s.encode(&r).unwrap(),
            &noise,
            &mut Workspace::new(&c, 0),
        )
        .unwrap_err(),
    ];
    for e in errs {
        assert!(matches!(e, Error::InvalidArgument(_)), "{e}");
        assert!(e.to_string().contains("step function"), "{e}");
    }
    // The sequential agent decides by probability: it refuses a scorecard too.
    use crate::sequential::{Environment, RewardKind, RewardParams};
    let e = Environment::new(&s, &c, RewardKind::Binary, RewardParams::default()).unwrap_err();
    assert!(matches!(e, Error::InvalidArgument(_)), "{e}");
    assert!(e.to_string().contains("scorecard"), "{e}");
}

/// One contiguous feature y ∈ [−5, 5], bins (−∞, 0] → 3 and (0, ∞) → −2 points;
/// cutoff 103 + base: declined iff y > 0. Under Gaussian noise of variance σ²
/// on the slot (slot = (y + 5)/10), Γ = P(slot + ε > ½) = Φ((slot − ½)/σ); Θ is
/// the same split of the two bins' 1 − σ(log-odds).
#[test]
fn monte_carlo_matches_the_closed_form_for_one_feature() {
    let s = schema();
    let c = Scorecard::new(
        &s,
        100.0,
        103.0,
        Some(ScoreScaling::new(2.0, 102.0).unwrap()),
        vec![characteristics().swap_remove(2)],
    )
    .unwrap();
    let col = s.layout(3).start;
    for (k, &(y, sigma2)) in [(-1.0, 0.01), (-0.2, 0.04), (-3.0, 0.09), (-0.01, 0.0025)]
        .iter()
        .enumerate()
    {
        let enc = s.encode(&[0.0, 0.0, 0.0, y]).unwrap();
        let slot = enc[col];
        let sd = f64::sqrt(sigma2);
        let gamma = normal_cdf((slot - 0.5) / sd);
        let lo_acc = (103.0 - 102.0) / 2.0;
        let lo_dec = (98.0 - 102.0) / 2.0;
        let theta = (1.0 - gamma) * (1.0 - crate::model::sigmoid(lo_acc))
            + gamma * (1.0 - crate::model::sigmoid(lo_dec));
        let noise = NoiseModel::gaussian(sigma2, vec![col]).unwrap();
        let est = Estimator::new(noise, 20_000).unwrap();
        let mut ws = Workspace::new(&c, 7 + k as u64);
        let e = est.estimate(&c, &enc, &mut ws).unwrap();
        let g = e.invalidation;
        assert!(
            (g.value - gamma).abs() <= 4.0 * g.std_error.max(1e-4),
            "Γ̃ {} vs Γ {gamma}",
            g.value
        );
        let t = e.soft;
        assert!(
            (t.value - theta).abs() <= 4.0 * t.std_error.max(1e-4),
            "Θ̃ {} vs Θ {theta}",
            t.value
        );
    }
}

/// Uniform noise on two features (x integer in [0, 10], y): Γ̃ against a
/// brute-force count over a fine grid of the noise box.
#[test]
fn monte_carlo_matches_brute_force_under_uniform_noise() {
    let s = schema();
    let c = card(140.0, None);
    let (cx, cy) = (s.layout(0).start, s.layout(3).start);
    let raw = [5.0, 1.0, 0.0, -0.5];
    let enc = s.encode(&raw).unwrap();
    let h = 0.2;
    // Brute force: the mid-points of an n × n grid over the box.
    let n = 800;
    let mut declined = 0usize;
    let mut point = enc.clone();
    for a in 0..n {
        for b in 0..n {
            point[cx] = enc[cx] + h * (2.0 * (a as f64 + 0.5) / n as f64 - 1.0);
            point[cy] = enc[cy] + h * (2.0 * (b as f64 + 0.5) / n as f64 - 1.0);
            declined += usize::from(!c.accepts(&point));
        }
    }
    let exact = declined as f64 / (n * n) as f64;
    assert!(exact > 0.05 && exact < 0.95, "a useful case: {exact}");
    let noise = NoiseModel::uniform(h, vec![cx, cy]).unwrap();
    let est = Estimator::new(noise, 40_000).unwrap();
    let mut ws = Workspace::new(&c, 3);
    let g = est.invalidation_rate(&c, &enc, &mut ws).unwrap();
    assert!(
        (g.value - exact).abs() <= 4.0 * g.std_error + 2.0 / n as f64,
        "Γ̃ {} vs brute force {exact}",
        g.value
    );
}

#[test]
fn json_round_trips_and_binds_to_the_schema() {
    let s = schema();
    let m = AnyModel::Scorecard(card(130.0, Some(ScoreScaling::new(20.0, 120.0).unwrap())));
    let json = m.to_json();
    assert!(json.contains("\"kind\": \"scorecard\""), "{json}");
    let back = AnyModel::from_json(&json, &s).unwrap();
    assert_eq!(back, m);
    let enc = s.encode(&[3.0, 1.0, 0.0, 0.0]).unwrap();
    assert_eq!(back.score(&enc), 130.0);
    // Unknown keys are refused at every level.
    for (from, to) in [
        ("\"cutoff\"", "\"cutof\": 1, \"cutoff\""),
        ("\"points\"", "\"pts\": 1, \"points\""),
        ("\"lower_closed\"", "\"open\": true, \"lower_closed\""),
        ("\"factor\"", "\"pdo\": 1, \"factor\""),
        ("\"feature\"", "\"name\": \"x\", \"feature\""),
    ] {
        let bad = json.replacen(from, to, 1);
        let e = AnyModel::from_json(&bad, &s).unwrap_err();
        assert!(matches!(e, Error::Format(_)), "{e}");
        let key = to.split('"').nth(1).unwrap();
        assert!(
            e.to_string().contains(&format!("unknown key '{key}'")),
            "{e}"
        );
    }
    // A feature the schema does not have.
    let e = AnyModel::from_json(&json.replace("\"y\"", "\"z\""), &s).unwrap_err();
    assert!(e.to_string().contains("'z'"), "{e}");
}

fn with_bins(feature: usize, bins: Vec<Bin>) -> Result<Scorecard> {
    let mut ch = characteristics();
    ch[feature].bins = bins;
    Scorecard::new(&schema(), 0.0, 0.0, None, ch)
}

fn special(codes: &[f64]) -> Bin {
    Bin {
        range: BinRange::Special {
            codes: codes.to_vec(),
        },
        points: 0.0,
    }
}

#[test]
fn gaps_and_overlaps_are_format_errors_naming_feature_and_bin() {
    let specials = || vec![special(&[-7.0, -8.0, -9.0])];
    let cases: Vec<(usize, Vec<Bin>, &str)> = vec![
        // a gap between 2.5 (open) and 2.5 (open)
        (
            0,
            [
                vec![
                    iv(None, Some(2.5), false, false, 1.0),
                    iv(Some(2.5), None, false, false, 1.0),
                ],
                specials(),
            ]
            .concat(),
            "gap",
        ),
        // an overlap [0, 3] and [3, ∞)
        (
            0,
            [
                vec![
                    iv(None, Some(3.0), false, true, 1.0),
                    iv(Some(3.0), None, true, false, 1.0),
                ],
                specials(),
            ]
            .concat(),
            "overlap",
        ),
        // the range is not covered at the top
        (
            0,
            [vec![iv(None, Some(9.0), false, false, 1.0)], specials()].concat(),
            "upper bound",
        ),
        // the range is not covered at the bottom
        (
            0,
            [vec![iv(Some(0.0), None, false, false, 1.0)], specials()].concat(),
            "lower bound",
        ),
        // a special state left out
        (
            0,
            vec![iv(None, None, false, false, 1.0), special(&[-7.0, -8.0])],
            "-9",
        ),
        // a special state twice
        (
            0,
            vec![
                iv(None, None, false, false, 1.0),
                special(&[-7.0, -8.0, -9.0]),
                special(&[-8.0]),
            ],
            "overlap",
        ),
        // an unknown special code
        (
            0,
            vec![
                iv(None, None, false, false, 1.0),
                special(&[-7.0, -8.0, -9.0, -1.0]),
            ],
            "-1",
        ),
        // a level left out
        (
            1,
            vec![Bin {
                range: BinRange::Levels {
                    levels: vec!["a".into(), "b".into()],
                },
                points: 1.0,
            }],
            "level 'c'",
        ),
        // a level twice
        (
            1,
            vec![
                Bin {
                    range: BinRange::Levels {
                        levels: vec!["a".into(), "b".into(), "c".into()],
                    },
                    points: 1.0,
                },
                Bin {
                    range: BinRange::Levels {
                        levels: vec!["b".into()],
                    },
                    points: 1.0,
                },
            ],
            "overlap",
        ),
        // an interval for a categorical
        (1, vec![iv(None, None, false, false, 1.0)], "level groups"),
        // non-finite points
        (
            2,
            vec![iv(None, None, false, false, f64::NAN)],
            "not finite",
        ),
        // an empty interval
        (
            2,
            vec![
                iv(None, Some(0.0), false, false, 1.0),
                iv(Some(0.0), Some(0.0), true, false, 1.0),
                iv(Some(0.0), None, true, false, 1.0),
            ],
            "empty",
        ),
    ];
    for (k, (feature, bins, needle)) in cases.into_iter().enumerate() {
        let e = with_bins(feature, bins).unwrap_err();
        let msg = e.to_string();
        assert!(matches!(e, Error::Format(_)), "case {k}: {msg}");
        let name = ["'x'", "'c'", "'y'"][feature];
        assert!(msg.contains(name), "case {k}: {msg}");
        assert!(msg.contains(needle), "case {k}: {msg}");
    }
    // The missing bin needs a schema state labelled 'missing'.
    let e = Scorecard::new(
        &schema(),
        0.0,
        0.0,
        None,
        vec![Characteristic {
            feature: "y".into(),
            bins: vec![
                iv(None, None, false, false, 1.0),
                Bin {
                    range: BinRange::Missing,
                    points: 1.0,
                },
            ],
        }],
    )
    .unwrap_err();
    assert!(e.to_string().contains("'missing'"), "{e}");
    // A characteristic named twice.
    let mut ch = characteristics();
    ch.push(ch[1].clone());
    let e = Scorecard::new(&schema(), 0.0, 0.0, None, ch).unwrap_err();
    assert!(e.to_string().contains("twice"), "{e}");
}

#[test]
fn scaling_from_pdo_matches_its_definition() {
    // 600 points at odds 50:1, 20 points double the odds.
    let s = ScoreScaling::from_pdo(20.0, 50.0, 600.0).unwrap();
    assert!((s.log_odds(600.0) - 50f64.ln()).abs() < 1e-12);
    assert!((s.log_odds(620.0) - (100f64).ln()).abs() < 1e-12);
    assert!(ScoreScaling::from_pdo(-1.0, 50.0, 600.0).is_err());
    assert!(ScoreScaling::new(0.0, 1.0).is_err());
}
