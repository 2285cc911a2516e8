//! The ledger record's `robustness` key: what a robust record, or a record
//! with a robust version, is robust to. Oracles: the config the advice was
//! computed under, and the record's own JSON with the key taken out or
//! given an unknown sub-key.

use super::{AdviceKind, LedgerRecord};
use crate::coherent::tree_box_tests::stump;
use crate::coherent::{BoxKind, Config, Robustness, explain};
use crate::model::AnyModel;
use crate::schema::Schema;

/// A robust tree answer on the stump of `tree_box_tests` over reachable
/// values, its record, and the config's target.
fn robust_tree_record() -> (Schema, AnyModel, LedgerRecord, Robustness) {
    let (schema, ens) = stump();
    let model = AnyModel::Trees(ens);
    let r = Robustness {
        sigma2: 1e-4,
        invalidation_target: 0.1,
        box_kind: BoxKind::ReachableValues,
    };
    let config = Config {
        robustness: Some(r),
        ..Config::default()
    };
    let ex = explain(&schema, &model, &[10.0, 30.0], &config).unwrap();
    let rec = LedgerRecord::from_explanation(&schema, &model, "app-1", &ex)
        .unwrap()
        .expect("a robust answer");
    (schema, model, rec, r)
}

/// The record's JSON with `edit` applied to its object.
fn edited(
    rec: &LedgerRecord,
    edit: impl FnOnce(&mut serde_json::Map<String, serde_json::Value>),
) -> String {
    let mut v: serde_json::Value = serde_json::from_str(&rec.to_json()).unwrap();
    edit(v.as_object_mut().unwrap());
    v.to_string()
}

#[test]
fn a_robust_record_says_what_it_is_robust_to_and_reads_back() {
    let (schema, model, rec, r) = robust_tree_record();
    assert_eq!(rec.kind, AdviceKind::Robust);
    assert_eq!(rec.robustness, Some(r));
    let json = rec.to_json();
    assert!(
        json.contains(
            r#""robustness":{"sigma2":0.0001,"invalidation_target":0.1,"box_kind":"reachable_values"}"#
        ),
        "{json}"
    );
    assert_eq!(LedgerRecord::from_json(&json).unwrap(), rec);
    // The default box over the reals is not written (as in every config).
    let reals = Robustness {
        box_kind: BoxKind::Reals,
        ..r
    };
    let ex = explain(
        &schema,
        &model,
        &[10.0, 30.0],
        &Config {
            robustness: Some(reals),
            ..Config::default()
        },
    )
    .unwrap();
    let rec = LedgerRecord::from_explanation(&schema, &model, "app-2", &ex)
        .unwrap()
        .unwrap();
    assert_eq!(rec.robustness, Some(reals));
    assert!(
        rec.to_json()
            .contains(r#""robustness":{"sigma2":0.0001,"invalidation_target":0.1}"#),
        "{}",
        rec.to_json()
    );
    assert_eq!(LedgerRecord::from_json(&rec.to_json()).unwrap(), rec);
    // Plain advice has no key.
    let ex = explain(&schema, &model, &[10.0, 30.0], &Config::default()).unwrap();
    let plain = LedgerRecord::from_explanation(&schema, &model, "app-3", &ex)
        .unwrap()
        .unwrap();
    assert_eq!(plain.kind, AdviceKind::Explain);
    assert_eq!(plain.robustness, None);
    assert!(!plain.to_json().contains("robustness"));
    // Diverse and waiting records are not robust records.
    let diverse = LedgerRecord::from_diverse(&schema, &model, "app-4", &ex).unwrap();
    assert!(diverse.iter().all(|r| r.robustness.is_none()));
}

#[test]
fn a_record_from_before_the_key_reads_as_before() {
    let (_, _, rec, _) = robust_tree_record();
    let old = edited(&rec, |o| {
        o.remove("robustness");
    });
    assert!(!old.contains("robustness"));
    let back = LedgerRecord::from_json(&old).unwrap();
    assert_eq!(back.robustness, None);
    assert_eq!(
        back,
        LedgerRecord {
            robustness: None,
            ..rec
        }
    );
}

#[test]
fn a_robustness_with_an_unknown_key_or_an_impossible_target_is_refused() {
    let (_, _, rec, _) = robust_tree_record();
    let cases = [
        (
            serde_json::json!({"sigma2": 0.01, "invalidation_target": 0.1, "radius": 2}),
            "radius",
        ),
        (
            serde_json::json!({"sigma2": 0.01, "invalidation_target": 0.1, "box_kind": "integers"}),
            "integers",
        ),
        (serde_json::json!({"sigma2": 0.01}), "invalidation_target"),
        (
            serde_json::json!({"sigma2": 0.01, "invalidation_target": 1.5}),
            "invalidation_target",
        ),
        (
            serde_json::json!({"sigma2": -1.0, "invalidation_target": 0.1}),
            "sigma2",
        ),
    ];
    for (bad, named) in cases {
        let line = edited(&rec, |o| {
            o.insert("robustness".into(), bad.clone());
        });
        let err = LedgerRecord::from_json(&line).unwrap_err();
        assert!(
            matches!(err, crate::error::Error::Format(_)),
            "{bad}: {err:?}"
        );
        assert!(err.to_string().contains(named), "{bad}: {err}");
    }
    // A key beside it that the format does not know is refused as before.
    let line = edited(&rec, |o| {
        o.insert("robustness_note".into(), "x".into());
    });
    assert!(LedgerRecord::from_json(&line).is_err());
}
