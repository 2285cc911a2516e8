//! The P-DQN environment's step never touches the heap on the paper's plain
//! schema: a counting global allocator (per thread) must see zero
//! allocations over whole greedy-free episodes once the environment exists,
//! with the advice-aware action map in place (issue #16).

use cfx::model::{LinearModel, LogisticFit};
use cfx::sequential::{Environment, RewardKind, RewardParams};
#[path = "common/counting_alloc.rs"]
mod counting_alloc;
use counting_alloc::allocations_during;

#[test]
fn plain_german_environment_steps_allocate_nothing() {
    let d = cfx::data::german_credit(&cfx::data::bundled_german_path()).unwrap();
    let m = LinearModel::fit(&d.encoded(), &d.labels, LogisticFit::default()).unwrap();
    let mut env = Environment::new(
        &d.schema,
        &m,
        RewardKind::Probability,
        RewardParams::default(),
    )
    .unwrap();
    let k = env.actions().len();
    let age = d.schema.index_of("age_in_years").unwrap();
    let age_action = env.actions().features().iter().position(|&i| i == age);
    let rows: Vec<&Vec<f64>> = d.rows.iter().take(200).collect();
    let mut steps = 0;
    let n = allocations_during(|| {
        for (r, row) in rows.iter().enumerate() {
            env.reset(row).unwrap();
            for j in 0..k {
                // Forward through the actions with parameters all over [−1, 1]
                // (no violation, whose text would allocate: age, the only
                // directed feature, is moved to the top of its range).
                let u = if Some(j) == age_action {
                    1.0
                } else {
                    ((r * 7 + j * 13) % 21) as f64 / 10.0 - 1.0
                };
                let res = env.step(j, u).unwrap();
                steps += 1;
                if res.outcome.is_terminal() {
                    break;
                }
            }
        }
    });
    assert!(steps > 300, "{steps} steps");
    assert_eq!(n, 0, "{n} allocations in {steps} steps");
}
