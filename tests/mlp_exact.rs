//! The exact engine on a ReLU network fitted by cfx on German credit
//! (bundled): every answer is re-scored by the network's own forward pass and
//! accepted, is coherent and actionable, and costs no more than any valid
//! answer Wachter, PROBE or CROCO find for the same applicant (a sanity
//! bound: the exact optimum is the least cost over every admissible row).
//! Under the German advice preset, the advice layer checks or repairs every
//! method's answer with the exact engine on the network: each ends accepted
//! or as "no advice", never declined.

use cfx::coherent::{Config, Outcome, ProvedBy, cost, explain, explain_diverse};
use cfx::data::presets::german_credit_advice;
use cfx::data::{bundled_german_path, german_credit};
use cfx::model::{MlpModel, MlpTraining, Model};
use cfx::robust::{CrocoConfig, NoiseModel, ProbeConfig, WachterConfig, croco, probe, wachter};
use cfx::schema::Schema;

/// German credit, an MLP of one hidden layer of 50 ReLU units (CROCO's
/// setting) fitted on the training part, and the first `n` declined
/// held-out applicants.
fn german(n: usize) -> (Schema, MlpModel, Vec<Vec<f64>>) {
    let data = german_credit(&bundled_german_path()).unwrap();
    let (train, test) = data.holdout_split();
    let mlp = MlpModel::train(&train.encoded(), &train.labels, &MlpTraining::default()).unwrap();
    let schema = data.schema.clone();
    let declined: Vec<Vec<f64>> = test
        .rows
        .iter()
        .filter(|r| !mlp.accepts(&schema.encode(r).unwrap()))
        .take(n)
        .cloned()
        .collect();
    assert_eq!(declined.len(), n);
    (schema, mlp, declined)
}

#[test]
fn the_exact_mlp_answer_is_accepted_and_no_dearer_than_the_gradient_methods() {
    let (schema, mlp, declined) = german(8);
    let noise = NoiseModel::gaussian_for_schema(&schema, 0.01).unwrap();
    let mut compared = 0;
    for raw in &declined {
        let ex = explain(&schema, &mlp, raw, &Config::default()).unwrap();
        assert_eq!(ex.outcome, Outcome::Optimal, "{:?}", ex.outcome);
        assert_eq!(ex.proved_by, ProvedBy::Highs);
        let cf = &ex.counterfactuals[0];
        let enc = schema.encode(&cf.raw).unwrap();
        assert!(mlp.accepts(&enc), "declined: p = {}", mlp.probability(&enc));
        assert_eq!(schema.decode(&enc).unwrap(), cf.raw);
        schema.check_actionable(raw, &cf.raw).unwrap();
        assert!((cost(&schema, raw, &cf.raw).unwrap() - cf.cost).abs() < 1e-9);
        let probe_cfg = ProbeConfig {
            n_iter: 100,
            ..Default::default()
        };
        let croco_cfg = CrocoConfig {
            n_iter: 100,
            ..Default::default()
        };
        let answers = [
            wachter(&schema, &mlp, &noise, raw, &WachterConfig::default()).unwrap(),
            probe(&schema, &mlp, &noise, raw, &probe_cfg).unwrap(),
            croco(&schema, &mlp, &noise, raw, &croco_cfg).unwrap(),
        ];
        for a in answers {
            let Ok(enc) = schema.encode(&a.raw) else {
                continue;
            };
            let coherent = schema.decode(&enc).is_ok_and(|d| d == a.raw);
            if coherent && mlp.accepts(&enc) && schema.check_actionable(raw, &a.raw).is_ok() {
                let c = cost(&schema, raw, &a.raw).unwrap();
                assert!(
                    cf.cost <= c + 1e-9 * c.max(1.0),
                    "the optimum {} costs more than a gradient answer {c}",
                    cf.cost
                );
                compared += 1;
            }
        }
    }
    assert!(compared >= 8, "{compared} gradient answers were valid");
}

#[test]
fn diverse_mlp_answers_are_accepted_and_start_at_the_optimum() {
    let (schema, mlp, declined) = german(3);
    for raw in &declined {
        let ex = explain_diverse(&schema, &mlp, raw, &Config::default()).unwrap();
        assert!(ex.counterfactuals.len() >= 2);
        let best = ex.counterfactuals[0].cost;
        for cf in &ex.counterfactuals {
            assert!(mlp.accepts(&schema.encode(&cf.raw).unwrap()));
            schema.check_actionable(raw, &cf.raw).unwrap();
            assert!(cf.cost >= best - 1e-9);
        }
    }
}

#[test]
fn under_the_german_preset_every_method_is_accepted_or_no_advice_with_an_mlp() {
    let (fitted, mlp, declined) = german(10);
    let schema = german_credit_advice(&fitted, 0.05).unwrap();
    let noise = NoiseModel::gaussian_for_schema(&schema, 0.01).unwrap();
    let (mut accepted, mut repaired, mut none) = (0, 0, 0);
    for raw in &declined {
        let probe_cfg = ProbeConfig {
            n_iter: 100,
            ..Default::default()
        };
        let croco_cfg = CrocoConfig {
            n_iter: 100,
            ..Default::default()
        };
        let exact = explain(&schema, &mlp, raw, &Config::default()).unwrap();
        let mut answers: Vec<Vec<f64>> = exact
            .counterfactuals
            .iter()
            .map(|c| c.raw.clone())
            .collect();
        answers.push(
            wachter(&schema, &mlp, &noise, raw, &WachterConfig::default())
                .unwrap()
                .raw,
        );
        answers.push(probe(&schema, &mlp, &noise, raw, &probe_cfg).unwrap().raw);
        answers.push(croco(&schema, &mlp, &noise, raw, &croco_cfg).unwrap().raw);
        for answer in &answers {
            let c =
                cfx::advice::check_or_repair(&schema, &mlp, raw, answer, Some(&Config::default()))
                    .unwrap();
            match c.outcome {
                cfx::advice::Outcome::NoAdvice => {
                    none += 1;
                    assert!(c.advice.is_none());
                }
                o => {
                    let advice = c.advice.as_deref().unwrap();
                    assert!(
                        mlp.accepts(&schema.encode(advice).unwrap()),
                        "advice declined: {}",
                        c.describe()
                    );
                    schema.check_advice(raw, advice, 0).unwrap();
                    if o == cfx::advice::Outcome::Repaired {
                        repaired += 1;
                    } else {
                        accepted += 1;
                    }
                }
            }
        }
    }
    eprintln!("MLP under the German preset: {accepted} valid, {repaired} repaired, {none} none");
    assert!(accepted + repaired >= 20, "{accepted} + {repaired}");
}
