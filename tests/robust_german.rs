//! CROCO on real data (German credit, bundled) with the paper's classifier: an
//! MLP with one hidden layer of 50 ReLU units (Guyomard et al. 2023, §2.4).

use cfx::data::{bundled_german_path, german_credit};
use cfx::model::{MlpModel, MlpTraining, Model};
use cfx::robust::{CrocoConfig, NoiseModel, croco};

#[test]
fn croco_counterfactuals_on_german_credit_are_valid_and_meet_the_target() {
    let data = german_credit(&bundled_german_path()).unwrap();
    let (train, test) = data.holdout_split();
    let x = train.encoded();
    let mlp = MlpModel::train(&x, &train.labels, &MlpTraining::default()).unwrap();
    let schema = &data.schema;
    let noise = NoiseModel::gaussian_for_schema(schema, 0.01).unwrap();
    let declined: Vec<&Vec<f64>> = test
        .rows
        .iter()
        .filter(|r| !mlp.accepts(&schema.encode(r).unwrap()))
        .take(10)
        .collect();
    assert_eq!(declined.len(), 10);
    // n_iter 100 instead of 1000 keeps the test short; the realised Γ̃ is
    // already far below the target (the Markov bound is loose for this MLP).
    let cfg = CrocoConfig {
        n_iter: 100,
        ..Default::default()
    };
    let target = cfg.robustness_target;
    let mut under = 0;
    for raw in &declined {
        let c = croco(schema, &mlp, &noise, raw, &cfg).unwrap();
        println!(
            "p0 {:.3} p {:.3} valid {} met {} Γ̃ {:.4} Θ̃ {:.4} bound {:.3} L1 {:.3} it {}",
            mlp.probability(&schema.encode(raw).unwrap()),
            c.probability,
            c.valid,
            c.target_met,
            c.invalidation.value,
            c.soft.value,
            c.search_bound.unwrap().value,
            c.l1_distance,
            c.iterations
        );
        assert!(c.valid, "invalid counterfactual: {c:?}");
        schema.check_actionable(raw, &c.raw).unwrap();
        // MC tolerance: the search stops at bound < Γ̄ + ε (ε = 0.01); the
        // realised Γ̃ on 10,000 draws carries a standard error ≤ 0.005.
        if c.invalidation.value <= target + cfg.robustness_epsilon + 3.0 * c.invalidation.std_error
        {
            under += 1;
        }
    }
    assert!(
        under * 100 >= 95 * declined.len(),
        "{under}/{} under the target",
        declined.len()
    );
}
