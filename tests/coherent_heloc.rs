//! The coherent MIP on FICO HELOC (Russell 2019's data) with the fitted logistic
//! model: every declined applicant of the held-out part gets a valid, coherent,
//! actionable counterfactual, and diverse sets are pairwise distinct.

use cfx::coherent::{Config, DiversityRule, Explanation, Outcome, explain_batch};
use cfx::data::heloc;
use cfx::model::{LinearModel, LogisticFit, Model};
use cfx::schema::Schema;

mod common;

/// How many declined held-out applicants the diverse-set checks cover (the
/// optimal counterfactual is checked for all of them).
const DIVERSE_CAP: usize = 120;

fn setup() -> Option<(Schema, LinearModel, Vec<Vec<f64>>)> {
    let path = common::shared("heloc.csv")?;
    let d = heloc(&path).unwrap();
    let (train, test) = d.holdout_split();
    let mut schema = train.schema.clone();
    schema.fit_weights(&train.rows).unwrap();
    let x = schema.encode_rows(&train.rows).unwrap();
    let model = LinearModel::fit(&x, &train.labels, LogisticFit::default()).unwrap();
    let declined: Vec<Vec<f64>> = test
        .rows
        .iter()
        .filter(|r| !model.accepts(&schema.encode(r).unwrap()))
        .cloned()
        .collect();
    Some((schema, model, declined))
}

fn check(schema: &Schema, model: &LinearModel, ex: &Explanation) {
    assert!(!ex.counterfactuals.is_empty(), "{:?}", ex.outcome);
    for cf in &ex.counterfactuals {
        let enc = schema.encode(&cf.raw).unwrap();
        assert_eq!(schema.decode(&enc).unwrap(), cf.raw);
        assert!(model.accepts(&enc));
        assert!(cf.probability > model.threshold);
        schema.check_actionable(&ex.factual, &cf.raw).unwrap();
        assert!(!cf.changes.is_empty());
    }
    for (k, a) in ex.counterfactuals.iter().enumerate() {
        for b in &ex.counterfactuals[..k] {
            assert!(a.raw.iter().zip(&b.raw).any(|(x, y)| (x - y).abs() > 1e-6));
        }
    }
}

#[test]
fn every_declined_heloc_applicant_gets_a_valid_coherent_actionable_counterfactual() {
    let Some((schema, model, declined)) = setup() else {
        return;
    };
    assert!(declined.len() > 500, "declined: {}", declined.len());
    let config = Config::default();
    let all = explain_batch(&schema, &model, &declined, &config, false).unwrap();
    let mut optimal = 0;
    for ex in &all {
        let ex = ex.as_ref().unwrap();
        check(&schema, &model, ex);
        if ex.outcome == Outcome::Optimal {
            optimal += 1;
        }
    }
    assert_eq!(optimal, declined.len(), "every solve proven optimal");
}

#[test]
fn heloc_diverse_sets_are_pairwise_distinct_for_both_rules() {
    let Some((schema, model, declined)) = setup() else {
        return;
    };
    let rows = &declined[..DIVERSE_CAP.min(declined.len())];
    for (rule, n) in [
        (DiversityRule::Russell, 5),
        (DiversityRule::DistinctSubsets, 3),
    ] {
        let config = Config {
            diversity: rule,
            n_diverse: n,
            ..Config::default()
        };
        let all = explain_batch(&schema, &model, rows, &config, true).unwrap();
        let mut sizes = 0;
        for ex in &all {
            let ex = ex.as_ref().unwrap();
            check(&schema, &model, ex);
            assert!(ex.counterfactuals.len() <= n);
            sizes += ex.counterfactuals.len();
        }
        // Diversity must actually produce alternatives on this data.
        assert!(
            sizes >= 2 * rows.len(),
            "{rule:?}: {sizes} counterfactuals for {} applicants",
            rows.len()
        );
    }
}
