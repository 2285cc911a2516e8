//! Criterion benches of Panagiotou & Ntoutsi 2023's P-DQN on the bundled German credit data:
//! one training step (environment step + one minibatch update of both networks)
//! and answering one declined applicant with a trained policy.

use cfx::data::{bundled_german_path, german_credit};
use cfx::model::{LinearModel, LogisticFit, Model};
use cfx::sequential::{Environment, PdqnConfig, RewardKind, RewardParams, Trainer, train};
use criterion::{Criterion, criterion_group, criterion_main};
use std::hint::black_box;

fn benches(c: &mut Criterion) {
    let data = german_credit(&bundled_german_path()).expect("bundled German credit");
    let model = LinearModel::fit(&data.encoded(), &data.labels, LogisticFit::default()).unwrap();
    let schema = &data.schema;
    // One training step with the default networks (hidden [128], batch 64) once learning runs.
    let cfg = PdqnConfig {
        initial_memory: 64,
        ..PdqnConfig::default()
    };
    let mut trainer = Trainer::new(
        schema,
        &model,
        &data.rows,
        RewardKind::Probability,
        RewardParams::default(),
        &cfg,
    )
    .unwrap();
    for _ in 0..500 {
        trainer.step().unwrap();
    }
    c.bench_function("sequential/train_step_german", |b| {
        b.iter(|| black_box(trainer.step().unwrap()))
    });

    // A short-trained policy answering one declined applicant.
    let short = PdqnConfig {
        episodes: 300,
        initial_memory: 64,
        ..PdqnConfig::default()
    };
    let policy = train(
        schema,
        &model,
        &data.rows,
        RewardKind::Probability,
        RewardParams::default(),
        &short,
        |_| true,
    )
    .unwrap()
    .policy;
    let declined = data
        .rows
        .iter()
        .find(|r| !model.accepts(&schema.encode(r).unwrap()))
        .unwrap()
        .clone();
    c.bench_function("sequential/answer_german", |b| {
        b.iter(|| black_box(policy.answer(schema, &model, black_box(&declined)).unwrap()))
    });
    // The allocation-free path: a reused environment, workspace and step buffer.
    let mut env = Environment::new(schema, &model, policy.reward, policy.reward_params).unwrap();
    let mut ws = policy.workspace();
    let mut steps = Vec::with_capacity(policy.n_actions());
    c.bench_function("sequential/rollout_in_german", |b| {
        b.iter(|| {
            env.reset(black_box(&declined)).unwrap();
            black_box(policy.rollout_in(&mut env, &mut ws, &mut steps).unwrap())
        })
    });
}

criterion_group! {
    name = sequential;
    config = Criterion::default().sample_size(30);
    targets = benches
}
criterion_main!(sequential);
