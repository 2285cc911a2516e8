//! Robust advice from the exact engine on real data (German credit, bundled;
//! FICO HELOC from the shared folder), logistic model, σ² = 0.01, target 10%:
//! the first 40 declined held-out applicants of each.
//!
//! Oracles: the closed-form Γ of `robust` (the answer meets the target), a
//! Monte Carlo estimate on the generic sampling path (agrees within 4 standard
//! errors), and CROCO's and PROBE's answers (Guyomard et al. 2023): every answer of theirs
//! that meets the same target (by the closed form) is a feasible point of the
//! same program, so the proven optimum can never cost more.

use cfx::coherent::{Config, Outcome, Robustness, cost, explain};
use cfx::data::{self, Dataset};
use cfx::model::{LinearModel, LogisticFit, Model};
use cfx::robust::{
    CrocoConfig, Estimator, NoiseModel, ProbeConfig, Sampling, Workspace, croco,
    linear_invalidation_rate, probe,
};
use cfx::schema::Schema;

mod common;

const SIGMA2: f64 = 0.01;
const TARGET: f64 = 0.1;
const APPLICANTS: usize = 40;

fn setup(d: Dataset) -> (Schema, LinearModel, Vec<Vec<f64>>) {
    let (train, test) = d.holdout_split();
    let schema = train.schema.clone();
    let model = LinearModel::fit(&train.encoded(), &train.labels, LogisticFit::default()).unwrap();
    let declined = test
        .rows
        .iter()
        .filter(|r| !model.accepts(&schema.encode(r).unwrap()))
        .take(APPLICANTS)
        .cloned()
        .collect::<Vec<_>>();
    assert_eq!(declined.len(), APPLICANTS);
    (schema, model, declined)
}

fn check(name: &str, schema: &Schema, model: &LinearModel, declined: &[Vec<f64>]) {
    let config = Config {
        robustness: Some(Robustness {
            sigma2: SIGMA2,
            invalidation_target: TARGET,
            box_kind: Default::default(),
        }),
        ..Config::default()
    };
    let noise = NoiseModel::gaussian_for_schema(schema, SIGMA2).unwrap();
    let estimator = Estimator::new(noise.clone(), 20_000)
        .unwrap()
        .with_sampling(Sampling::Generic);
    let mut ws = Workspace::new(model, 16);
    let croco_cfg = CrocoConfig {
        robustness_target: TARGET,
        n_iter: 200,
        ..CrocoConfig::default()
    };
    let probe_cfg = ProbeConfig {
        invalidation_target: TARGET,
        ..ProbeConfig::default()
    };
    let (mut answered, mut compared) = (0, 0);
    for (k, raw) in declined.iter().enumerate() {
        let ex = explain(schema, model, raw, &config).unwrap();
        let Some(cf) = ex.counterfactuals.first() else {
            assert!(
                matches!(ex.outcome, Outcome::Infeasible { .. }),
                "{name} #{k}: {:?}",
                ex.outcome
            );
            continue;
        };
        assert_eq!(ex.outcome, Outcome::Optimal);
        answered += 1;
        schema.check_actionable(raw, &cf.raw).unwrap();
        let enc = schema.encode(&cf.raw).unwrap();
        let gamma = linear_invalidation_rate(model, &enc, &noise).unwrap();
        assert!(gamma <= TARGET * (1.0 + 1e-9), "{name} #{k}: Γ = {gamma}");
        assert_eq!(cf.invalidation_rate, Some(gamma));
        let mc = estimator.invalidation_rate(model, &enc, &mut ws).unwrap();
        assert!(
            (mc.value - gamma).abs() <= 4.0 * mc.std_error.max(1e-4),
            "{name} #{k}: Monte Carlo {} ± {} vs closed form {gamma}",
            mc.value,
            mc.std_error
        );
        for r in [
            croco(schema, model, &noise, raw, &croco_cfg).unwrap(),
            probe(schema, model, &noise, raw, &probe_cfg).unwrap(),
        ] {
            let their_gamma = linear_invalidation_rate(model, &r.encoded, &noise).unwrap();
            if !(r.valid && their_gamma <= TARGET) {
                continue;
            }
            schema.check_actionable(raw, &r.raw).unwrap();
            let theirs = cost(schema, raw, &r.raw).unwrap();
            assert!(
                cf.cost <= theirs + 1e-9,
                "{name} #{k}: exact robust cost {} above {:?}'s {theirs}",
                cf.cost,
                r.method
            );
            compared += 1;
        }
    }
    println!(
        "{name}: {answered}/{APPLICANTS} answered, {compared} CROCO/PROBE answers met the target"
    );
    assert!(answered >= APPLICANTS / 2, "{name}: {answered} answered");
    assert!(compared >= 10, "{name}: only {compared} comparisons");
}

#[test]
fn exact_robust_advice_on_german_credit_meets_the_target_at_least_cost() {
    let d = data::german_credit(&data::bundled_german_path()).unwrap();
    let (schema, model, declined) = setup(d);
    check("german", &schema, &model, &declined);
}

#[test]
fn exact_robust_advice_on_heloc_meets_the_target_at_least_cost() {
    let Some(path) = common::shared("heloc.csv") else {
        return;
    };
    let (schema, model, declined) = setup(data::heloc(&path).unwrap());
    check("heloc", &schema, &model, &declined);
}
