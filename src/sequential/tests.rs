use super::*;
use crate::Error;
use crate::model::{LinearModel, MlpModel, MlpTraining, Model};
use crate::schema::{Direction, Feature, Schema, Transition};
use rand::{Rng, SeedableRng};
use rand_xoshiro::Xoshiro256PlusPlus;

/// income ∈ [0, 100] (integer), debt ∈ [0, 50] (decrease only), housing
/// {rent, own, free}, age ∈ [18, 80] immutable. Encoded: 6 columns.
fn schema() -> Schema {
    Schema::new(vec![
        Feature::contiguous("income", 0.0, 100.0).integer(),
        Feature::contiguous("debt", 0.0, 50.0).direction(Direction::DecreaseOnly),
        Feature::categorical("housing", &["rent", "own", "free"]),
        Feature::contiguous("age", 18.0, 80.0).immutable(),
    ])
    .unwrap()
}

/// Accepts when 6·income_slot − 4·debt_slot + own + 0.5·age_slot − 2 > 0.
fn model() -> LinearModel {
    LinearModel::new(vec![6.0, -4.0, 0.0, 1.0, 0.0, 0.5], -2.0, 0.5).unwrap()
}

fn rows(n: usize, seed: u64) -> Vec<Vec<f64>> {
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(seed);
    (0..n)
        .map(|_| {
            vec![
                rng.random_range(0..60) as f64,
                rng.random_range(10.0..50.0),
                rng.random_range(0..3) as f64,
                rng.random_range(18.0..80.0),
            ]
        })
        .collect()
}

fn small_config(seed: u64) -> PdqnConfig {
    PdqnConfig {
        episodes: 1500,
        hidden: vec![32],
        batch_size: 32,
        epsilon_steps: 2000,
        epsilon_final: 0.1,
        initial_memory: 200,
        replay_capacity: 5000,
        tau_param: 0.01,
        progress_every: 250,
        seed,
        ..PdqnConfig::default()
    }
}

// ---------------------------------------------------------------- entropy

#[test]
fn entropy_uniform_is_one_and_single_action_is_zero() {
    // K = 3: every (step, feature) pair used equally → H = log2(9)/log2(9) = 1.
    let uniform = vec![vec![5, 5, 5]; 3];
    assert!((action_entropy(&uniform, 3).unwrap() - 1.0).abs() < 1e-12);
    // One pair takes every change → 0.
    let single = vec![vec![0, 7, 0], vec![0, 0, 0]];
    assert_eq!(action_entropy(&single, 3).unwrap(), 0.0);
}

#[test]
fn entropy_hand_computed_cases() {
    // K = 2, two pairs equally likely: H = 1 bit / log2(4) = 0.5.
    let c = vec![vec![1, 0], vec![0, 1]];
    assert!((action_entropy(&c, 2).unwrap() - 0.5).abs() < 1e-12);
    // K = 2, counts (step 1: 2, 1; step 2: 1, 0) → p = (1/2, 1/4, 1/4):
    // H = 1.5 bits / 2 = 0.75.
    let c = vec![vec![2, 1], vec![1, 0]];
    assert!((action_entropy(&c, 2).unwrap() - 0.75).abs() < 1e-12);
    // K = 3 but only step 1 used uniformly: log2(3)/log2(9) = 0.5 — a policy that
    // always stops after one step cannot exceed one half.
    let c = vec![vec![4, 4, 4]];
    assert!((action_entropy(&c, 3).unwrap() - 0.5).abs() < 1e-12);
    assert_eq!(action_entropy(&[vec![3]], 1).unwrap(), 0.0);
    assert!(action_entropy(&[vec![0, 0]], 2).unwrap().is_nan());
    assert!(matches!(
        action_entropy(&[vec![1, 2, 3]], 2),
        Err(Error::DimensionMismatch { .. })
    ));
}

// ---------------------------------------------------------------- action map

#[test]
fn action_map_partitions_the_parameter_range() {
    let s = Schema::new(vec![
        Feature::contiguous("a", 10.0, 20.0).integer(),
        Feature::categorical("c", &["x", "y", "z", "w"]),
        Feature::contiguous("m", 0.0, 10.0)
            .with_special(-7.0, "condition not met")
            .with_special(-9.0, "no record"),
        Feature::contiguous("imm", 0.0, 1.0).immutable(),
    ])
    .map(|mut s| {
        s.features[2]
            .actionability
            .forbidden_transitions
            .push(Transition {
                from: "*".into(),
                to: "-9".into(),
            });
        Schema::new(s.features).unwrap()
    })
    .unwrap();
    let a = ActionSpace::new(&s).unwrap();
    assert_eq!(a.features(), &[0, 1, 2]);
    // Plain integer feature: u = −1 → 10, u = 1 → 20, u = 0 → 15, u = 0.05 → 15.25 → 15.
    assert_eq!(a.value(0, -1.0), 10.0);
    assert_eq!(a.value(0, 1.0), 20.0);
    assert_eq!(a.value(0, 0.0), 15.0);
    assert_eq!(a.value(0, 0.05), 15.0);
    assert_eq!(a.value(0, 0.11), 16.0);
    assert_eq!(a.value(0, 7.0), 20.0, "parameters are clamped");
    // Categorical, four equal segments of [−1, 1].
    assert_eq!(a.value(1, -1.0), 0.0);
    assert_eq!(a.value(1, -0.51), 0.0);
    assert_eq!(a.value(1, -0.49), 1.0);
    assert_eq!(a.value(1, 0.01), 2.0);
    assert_eq!(a.value(1, 1.0), 3.0);
    // Special states: −9 is unreachable (forbidden from every state), so two
    // segments: [−1, 0) → value over [0, 10], [0, 1] → −7.
    assert_eq!(a.value(2, -1.0), 0.0);
    assert!((a.value(2, -0.5) - 5.0).abs() < 1e-12);
    assert_eq!(a.value(2, 0.0), -7.0);
    assert_eq!(a.value(2, 1.0), -7.0);
    assert_eq!(a.value(2, f64::NAN), 0.0);
}

#[test]
fn action_map_respects_steps_and_actionable_bounds() {
    let mut f = Feature::contiguous("s", 0.0, 100.0);
    if let crate::schema::FeatureKind::Contiguous { step, .. } = &mut f.kind {
        *step = Some(25.0);
    }
    f.actionability.lower = Some(10.0);
    f.actionability.upper = Some(90.0);
    let s = Schema::new(vec![f]).unwrap();
    let a = ActionSpace::new(&s).unwrap();
    // Range [10, 90] on the grid {0, 25, 50, 75, 100} → 25 … 75.
    assert_eq!(a.value(0, -1.0), 25.0);
    assert_eq!(a.value(0, 1.0), 75.0);
    assert_eq!(a.value(0, 0.0), 50.0);
}

#[test]
fn no_mutable_feature_is_an_error() {
    let s = Schema::new(vec![Feature::contiguous("a", 0.0, 1.0).immutable()]).unwrap();
    assert!(matches!(
        ActionSpace::new(&s),
        Err(Error::InvalidArgument(_))
    ));
}

// ---------------------------------------------------------------- environment

#[test]
fn environment_rewards_match_the_reconstructed_equations() {
    let s = schema();
    let m = model();
    let row = vec![20.0, 40.0, 0.0, 30.0];
    let x0 = s.encode(&row).unwrap();
    let p0 = m.probability(&x0);
    assert!(p0 < 0.5);
    for kind in [RewardKind::Binary, RewardKind::Probability] {
        let mut env = Environment::new(&s, &m, kind, RewardParams::default()).unwrap();
        env.reset(&row).unwrap();
        assert_eq!(env.state_dim(), 6 + 3);
        let mut st = vec![0.0; env.state_dim()];
        env.write_state(&mut st);
        assert_eq!(&st[6..], &[0.0, 0.0, 0.0]);
        // Action 1 (debt) with u = −0.2 → 0.4·50 = 20 (a decrease: allowed).
        let r = env.step(1, -0.2).unwrap();
        assert_eq!(r.outcome, StepOutcome::Continue);
        assert!((r.to - 20.0).abs() < 1e-12);
        let x1 = s.encode(&[20.0, 20.0, 0.0, 30.0]).unwrap();
        let delta = ((x1[1] - x0[1]) as f64).abs();
        assert!((r.distance - delta).abs() < 1e-12);
        let p1 = m.probability(&x1);
        let expect = match kind {
            RewardKind::Binary => -delta,
            RewardKind::Probability => 10.0 * (p1 - p0) - delta,
        };
        assert!(
            (r.reward - expect).abs() < 1e-12,
            "{kind:?}: {} vs {expect}",
            r.reward
        );
        env.write_state(&mut st);
        assert_eq!(&st[6..], &[0.0, 1.0, 0.0]);
        // Re-using debt: failure with Pen.
        let mut e2 = env.clone();
        let r = e2.step(1, -1.0).unwrap();
        assert_eq!(r.outcome, StepOutcome::Failure(Failure::Reused));
        assert_eq!(r.reward, -10.0);
        // Income to 100 flips the decision: success with Pos.
        let r = env.step(0, 1.0).unwrap();
        assert_eq!(r.outcome, StepOutcome::Success);
        assert_eq!(r.reward, 5.0);
        assert!(r.probability > 0.5);
    }
}

/// A change limit (measured from the applicant's value) bounds the action
/// itself: the largest parameter asks for the largest allowed move, never
/// beyond (issue #16; before, the map spanned the whole range and a step
/// beyond the limit was a violation).
#[test]
fn a_change_limit_bounds_the_action() {
    let mut feats = schema().features;
    feats[0].actionability.max_increase = Some(crate::schema::ChangeLimit::Units(30.0));
    let s = Schema::new(feats).unwrap();
    let m = model();
    let mut env = Environment::new(&s, &m, RewardKind::Binary, RewardParams::default()).unwrap();
    env.reset(&[20.0, 30.0, 0.0, 30.0]).unwrap();
    // u = 1 asks for the most: income 20 + 30 = 50, not the range's 100.
    let r = env.step(0, 1.0).unwrap();
    assert_ne!(r.outcome, StepOutcome::Failure(Failure::Violation));
    assert_eq!((r.from, r.to, env.raw()[0]), (20.0, 50.0, 50.0));
    // u = −1: the range's lower end (no limit on decreases); u = 0: the middle of [0, 50].
    env.reset(&[20.0, 30.0, 0.0, 30.0]).unwrap();
    assert_eq!(env.step(0, -1.0).unwrap().to, 0.0);
    env.reset(&[20.0, 30.0, 0.0, 30.0]).unwrap();
    assert_eq!(env.step(0, 0.0).unwrap().to, 25.0);
    // Under the advice map the direction is built in too: debt (decrease
    // only) from 30 never rises, whatever the parameter.
    env.reset(&[20.0, 30.0, 0.0, 30.0]).unwrap();
    let r = env.step(1, 1.0).unwrap();
    assert_eq!((r.to, r.outcome), (30.0, StepOutcome::Continue));
}

#[test]
fn environment_failure_terminals() {
    let s = schema();
    let m = model();
    let mut env = Environment::new(&s, &m, RewardKind::Binary, RewardParams::default()).unwrap();
    // Raising debt breaks "decrease only".
    env.reset(&[20.0, 30.0, 0.0, 30.0]).unwrap();
    let r = env.step(1, 1.0).unwrap();
    assert_eq!(r.outcome, StepOutcome::Failure(Failure::Violation));
    assert_eq!(r.reward, -10.0);
    assert!(env.last_violation().unwrap().to_string().contains("debt"));
    assert_eq!(env.raw()[1], 30.0, "a violating step is not applied");
    // Three useless steps exhaust K = 3: failure with Pen on the third.
    env.reset(&[0.0, 50.0, 0.0, 18.0]).unwrap();
    assert_eq!(env.step(0, -1.0).unwrap().outcome, StepOutcome::Continue);
    assert_eq!(env.step(2, -1.0).unwrap().outcome, StepOutcome::Continue);
    let r = env.step(1, 1.0).unwrap();
    assert_eq!(r.outcome, StepOutcome::Failure(Failure::OutOfSteps));
    assert_eq!(r.reward, -10.0);
    // Bad input.
    assert!(env.reset(&[1.0, 2.0]).is_err());
    assert!(env.reset(&[f64::NAN, 2.0, 0.0, 20.0]).is_err());
    assert!(env.step(9, 0.0).is_err());
}

// ---------------------------------------------------------------- agent

fn train_small(reward: RewardKind, seed: u64) -> Training {
    let s = schema();
    let m = model();
    train(
        &s,
        &m,
        &rows(300, 1),
        reward,
        RewardParams::default(),
        &small_config(seed),
        |_| true,
    )
    .unwrap()
}

#[test]
fn pdqn_learns_to_flip_a_linear_classifier() {
    let s = schema();
    let m = model();
    let test = rows(200, 2);
    // The bar is not met by chance: an untrained policy (one episode, no update)
    // flips under a tenth of the applicants.
    let mut cfg = small_config(7);
    cfg.episodes = 1;
    let untrained = train(
        &s,
        &m,
        &rows(300, 1),
        RewardKind::Binary,
        RewardParams::default(),
        &cfg,
        |_| true,
    )
    .unwrap();
    assert!(
        evaluate(&untrained.policy, &s, &m, &test)
            .unwrap()
            .metrics
            .satisfiability
            < 0.1
    );
    for reward in [RewardKind::Binary, RewardKind::Probability] {
        let t = train_small(reward, 7);
        assert_eq!(t.history.len(), 6);
        let ev = evaluate(&t.policy, &s, &m, &test).unwrap();
        let mm = ev.metrics;
        assert!(mm.n_instances > 50, "{mm:?}");
        assert!(mm.satisfiability >= 0.8, "{reward:?}: {mm:?}");
        // Every success really is accepted and actionable.
        for e in &ev.episodes {
            if e.outcome == StepOutcome::Success {
                let plan = t.policy.answer(&s, &m, &test[e.row]).unwrap();
                assert!(plan.success);
                assert!(m.accepts(&s.encode(&plan.final_row).unwrap()));
                s.check_actionable(&test[e.row], &plan.final_row).unwrap();
                assert_eq!(plan.steps.len(), e.actions.len());
            }
        }
    }
}

#[test]
fn a_seed_gives_the_same_policy_bits() {
    let a = train_small(RewardKind::Probability, 11);
    let b = train_small(RewardKind::Probability, 11);
    let bits = |n: &crate::nn::Network| -> Vec<u64> {
        n.layers
            .iter()
            .flat_map(|l| l.weights.iter().chain(&l.bias).map(|v| v.to_bits()))
            .collect()
    };
    assert_eq!(bits(&a.policy.q), bits(&b.policy.q));
    assert_eq!(bits(&a.policy.actor_param), bits(&b.policy.actor_param));
    assert_eq!(a.history, b.history);
    let c = train_small(RewardKind::Probability, 12);
    assert_ne!(bits(&a.policy.q), bits(&c.policy.q));
    let (s, m) = (schema(), model());
    let test = rows(50, 3);
    assert_eq!(
        evaluate(&a.policy, &s, &m, &test).unwrap(),
        evaluate(&b.policy, &s, &m, &test).unwrap()
    );
}

#[test]
fn progress_callback_reports_and_cancels() {
    let (s, m) = (schema(), model());
    let mut cfg = small_config(1);
    cfg.episodes = 120;
    cfg.progress_every = 50;
    let mut seen = Vec::new();
    let t = train(
        &s,
        &m,
        &rows(100, 1),
        RewardKind::Binary,
        RewardParams::default(),
        &cfg,
        |p| {
            seen.push(*p);
            true
        },
    )
    .unwrap();
    assert_eq!(
        seen.iter().map(|p| p.episodes_done).collect::<Vec<_>>(),
        vec![50, 100, 120]
    );
    assert_eq!(seen, t.history);
    assert!(
        seen.iter()
            .all(|p| (0.0..=1.0).contains(&p.success_rate) && p.episodes_total == 120)
    );
    let mut calls = 0;
    let r = train(
        &s,
        &m,
        &rows(100, 1),
        RewardKind::Binary,
        RewardParams::default(),
        &cfg,
        |_| {
            calls += 1;
            false
        },
    );
    assert!(matches!(r, Err(Error::Cancelled(_))));
    assert_eq!(calls, 1);
}

#[test]
fn training_refuses_bad_input() {
    let (s, m) = (schema(), model());
    let cfg = small_config(1);
    let p = RewardParams::default();
    let accepted = vec![vec![100.0, 0.0, 1.0, 80.0]];
    assert!(matches!(
        train(&s, &m, &accepted, RewardKind::Binary, p, &cfg, |_| true),
        Err(Error::InvalidArgument(_))
    ));
    assert!(train(&s, &m, &[vec![1.0]], RewardKind::Binary, p, &cfg, |_| true).is_err());
    let bad_cfg = PdqnConfig {
        gamma: f64::NAN,
        ..cfg.clone()
    };
    assert!(
        train(
            &s,
            &m,
            &rows(10, 1),
            RewardKind::Binary,
            p,
            &bad_cfg,
            |_| true
        )
        .is_err()
    );
    // an absurd hidden width is refused before the networks are allocated
    let huge = PdqnConfig {
        hidden: vec![1 << 40],
        ..cfg.clone()
    };
    let r = train(&s, &m, &rows(10, 1), RewardKind::Binary, p, &huge, |_| true);
    assert!(matches!(r, Err(Error::InvalidArgument(msg)) if msg.contains("parameters")));
    let bad_cfg = PdqnConfig {
        batch_size: 0,
        ..cfg
    };
    assert!(
        train(
            &s,
            &m,
            &rows(10, 1),
            RewardKind::Binary,
            p,
            &bad_cfg,
            |_| true
        )
        .is_err()
    );
    let wrong_model = LinearModel::new(vec![1.0; 5], 0.0, 0.5).unwrap();
    assert!(matches!(
        train(
            &s,
            &wrong_model,
            &rows(10, 1),
            RewardKind::Binary,
            p,
            &small_config(1),
            |_| true
        ),
        Err(Error::DimensionMismatch { .. })
    ));
}

#[test]
fn epsilon_decays_linearly_then_stays() {
    let c = PdqnConfig::default();
    assert_eq!(c.epsilon(0), 0.8);
    assert!((c.epsilon(30_000) - 0.575).abs() < 1e-12);
    assert_eq!(c.epsilon(60_000), 0.35);
    assert_eq!(c.epsilon(1_000_000), 0.35);
}

// ---------------------------------------------------------------- policy files and answers

#[test]
fn policy_round_trips_through_json_and_answers_in_words() {
    let (s, m) = (schema(), model());
    let t = train_small(RewardKind::Binary, 3);
    let dir = std::env::temp_dir().join(format!("cfx-seq-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("policy.json");
    t.policy.save(&path).unwrap();
    let back = Policy::load(&path).unwrap();
    assert_eq!(back, t.policy);
    let row = vec![10.0, 45.0, 0.0, 40.0];
    let plan = back.answer(&s, &m, &row).unwrap();
    assert_eq!(plan, t.policy.answer(&s, &m, &row).unwrap());
    assert!(!plan.already_accepted);
    assert!(!plan.steps.is_empty());
    for st in &plan.steps {
        assert!(["income", "debt", "housing"].contains(&st.name.as_str()));
        assert_eq!(st.from_text, s.describe_value(st.feature, st.from));
        assert_eq!(st.changed, st.from != st.to);
    }
    // Probability after the last step matches the model on the final row.
    let last = plan.steps.last().unwrap();
    assert!((last.probability - m.probability(&s.encode(&plan.final_row).unwrap())).abs() < 1e-12);
    // Already accepted applicants get no steps.
    let ok = back.answer(&s, &m, &[100.0, 0.0, 1.0, 80.0]).unwrap();
    assert!(ok.success && ok.already_accepted && ok.steps.is_empty());
    // Versions and shapes are checked.
    let json = t
        .policy
        .to_json()
        .replacen("\"format_version\":1", "\"format_version\":99", 1);
    assert!(matches!(Policy::from_json(&json), Err(Error::Format(_))));
    let mut broken = t.policy.clone();
    broken.q.layers[0].weights.pop();
    assert!(Policy::from_json(&broken.to_json()).is_err());
    assert!(Policy::from_json("{").is_err());
    // A schema with other mutable features is refused.
    let other = Schema::new(vec![
        Feature::contiguous("income", 0.0, 100.0).integer(),
        Feature::contiguous("debt", 0.0, 50.0).immutable(),
        Feature::categorical("housing", &["rent", "own", "free"]),
        Feature::contiguous("age", 18.0, 80.0),
    ])
    .unwrap();
    assert!(back.answer(&other, &m, &row).is_err());
    assert!(back.answer(&s, &m, &[1.0, 2.0]).is_err());
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn works_with_an_mlp_model() {
    let s = schema();
    let lin = model();
    let train_rows = rows(400, 5);
    let x = s.encode_rows(&train_rows).unwrap();
    let y: Vec<f64> = x
        .iter()
        .map(|r| if lin.accepts(r) { 1.0 } else { 0.0 })
        .collect();
    let mlp = MlpModel::train(
        &x,
        &y,
        &MlpTraining {
            hidden: vec![8],
            epochs: 200,
            ..MlpTraining::default()
        },
    )
    .unwrap();
    let cfg = small_config(5);
    let t = train(
        &s,
        &mlp,
        &train_rows,
        RewardKind::Probability,
        RewardParams::default(),
        &cfg,
        |_| true,
    )
    .unwrap();
    let ev = evaluate(&t.policy, &s, &mlp, &rows(60, 6)).unwrap();
    for e in &ev.episodes {
        let plan = t.policy.answer(&s, &mlp, &rows(60, 6)[e.row]).unwrap();
        assert_eq!(
            plan.success,
            mlp.accepts(&s.encode(&plan.final_row).unwrap())
        );
    }
}

// ---------------------------------------------------------------- flows

fn record(actions: &[usize], outcome: StepOutcome) -> EpisodeRecord {
    EpisodeRecord {
        row: 0,
        actions: actions.to_vec(),
        outcome,
        n_changed: actions.len(),
        distance: 1.0,
        probability: 0.6,
    }
}

#[test]
fn flows_and_metrics_on_hand_built_episodes() {
    let eps = vec![
        record(&[0], StepOutcome::Success),
        record(&[0, 1], StepOutcome::Success),
        record(&[1], StepOutcome::Failure(Failure::Violation)),
        record(&[0, 0], StepOutcome::Failure(Failure::Reused)),
    ];
    let f = flows_of(&eps, vec!["a".into(), "b".into()], 2);
    assert_eq!(f.taken, vec![vec![3, 1], vec![1, 1]]);
    assert_eq!(f.succeeded, vec![vec![1, 0], vec![0, 1]]);
    assert_eq!(f.failed, vec![vec![0, 1], vec![1, 0]]);
    assert_eq!(
        f.steps_csv(),
        "step,feature,taken,succeeded,failed,continued\n1,a,3,1,0,2\n1,b,1,0,1,0\n2,a,1,0,1,0\n2,b,1,1,0,0\n"
    );
    let links = f.links_csv();
    assert!(
        links.starts_with("column,source,target,count\n0,applicants,a,3\n0,applicants,b,1\n"),
        "{links}"
    );
    assert!(
        links.contains("1,a,success,1\n")
            && links.contains("2,b,success,1\n")
            && links.contains("1,b,failure,1\n")
    );
    let m = metrics_of(&eps, 2, &f.taken, 2).unwrap();
    assert_eq!(m.n_instances, 4);
    assert_eq!(m.n_already_accepted, 2);
    assert_eq!(m.satisfiability, 0.5);
    assert_eq!(m.sparsity, 1.5);
    // p = (3, 1, 1, 1)/6: H = −(½log₂½ + 3·⅙log₂⅙)/2.
    let h = -(0.5 * 0.5f64.log2() + 3.0 * (1.0 / 6.0) * (1.0f64 / 6.0).log2()) / 2.0;
    assert!((m.entropy - h).abs() < 1e-12);
    let svg = f.to_svg("test").unwrap();
    assert!(svg.starts_with("<svg") && svg.contains("<polygon") && svg.contains("<rect"));
    assert!(svg.contains("success") && svg.contains("failure"));
}

#[test]
fn every_parameter_maps_to_a_coherent_value_on_german_credit() {
    let d = crate::data::german_credit(&crate::data::bundled_german_path()).unwrap();
    let s = &d.schema;
    let a = ActionSpace::new(s).unwrap();
    assert_eq!(a.len(), 18, "German credit has 20 features, 2 immutable");
    let mut row = d.rows[0].clone();
    for k in 0..a.len() {
        let fi = a.feature(k).unwrap();
        let mut seen = std::collections::BTreeSet::new();
        for i in 0..=400 {
            let u = -1.0 + i as f64 / 200.0;
            let v = a.value(k, u);
            row[fi] = v;
            // Encodes, and decodes back to the same raw value (grid and integers respected).
            let x = s.encode(&row).unwrap();
            assert_eq!(
                s.decode(&x).unwrap()[fi],
                v,
                "feature {} u={u}",
                s.features[fi].name
            );
            seen.insert(v.to_bits());
        }
        // The whole range is reachable: every level, or both ends of the range.
        match &s.features[fi].kind {
            crate::schema::FeatureKind::Categorical { levels } => {
                assert_eq!(seen.len(), levels.len())
            }
            crate::schema::FeatureKind::Contiguous { .. } => {
                let (lo, hi) = s.actionable_range(fi).unwrap();
                assert!(seen.contains(&lo.to_bits()) && seen.contains(&hi.to_bits()));
            }
        }
    }
}

#[test]
fn sankey_svg_stays_inside_the_canvas() {
    let eps: Vec<EpisodeRecord> = (0..40)
        .map(|i| {
            let n = 1 + i % 3;
            let actions: Vec<usize> = (0..n).map(|t| (i + t) % 3).collect();
            let outcome = if i % 4 == 0 {
                StepOutcome::Failure(Failure::Violation)
            } else {
                StepOutcome::Success
            };
            record(&actions, outcome)
        })
        .collect();
    let f = flows_of(&eps, vec!["a".into(), "b".into(), "c".into()], 3);
    let svg = f.to_svg("bounds").unwrap();
    let mut n_points = 0;
    for chunk in svg.split("points=\"").skip(1) {
        let pts = &chunk[..chunk.find('"').unwrap()];
        for p in pts.split_whitespace() {
            let (x, y) = p.split_once(',').unwrap();
            let (x, y): (f64, f64) = (x.parse().unwrap(), y.parse().unwrap());
            assert!(
                (0.0..=1100.0).contains(&x) && (0.0..=640.0).contains(&y),
                "{x},{y}"
            );
            n_points += 1;
        }
    }
    assert!(n_points > 100);
    // Flow conservation: what enters a step's feature nodes equals what leaves them.
    for t in 0..f.taken.len() {
        let into: usize = f
            .links
            .iter()
            .filter(|l| l.column == t && matches!(l.target, SankeyNode::Feature(_)))
            .map(|l| l.count)
            .sum();
        assert_eq!(into, f.taken[t].iter().sum::<usize>());
        let out: usize = f
            .links
            .iter()
            .filter(|l| l.column == t + 1)
            .map(|l| l.count)
            .sum();
        assert_eq!(out, into);
    }
}

#[test]
fn lowered_step_budget_and_small_replay() {
    let (s, m) = (schema(), model());
    let mut env = Environment::new(&s, &m, RewardKind::Binary, RewardParams::default()).unwrap();
    assert!(env.set_max_steps(Some(0)).is_err());
    env.set_max_steps(Some(1)).unwrap();
    env.reset(&[0.0, 50.0, 0.0, 18.0]).unwrap();
    let r = env.step(2, -1.0).unwrap();
    assert_eq!(r.outcome, StepOutcome::Failure(Failure::OutOfSteps));
    env.set_max_steps(Some(99)).unwrap();
    assert_eq!(env.max_steps(), 3);
    // A replay buffer smaller than initial_memory still lets learning start,
    // and the policy keeps its budget: no plan is longer than one step.
    let cfg = PdqnConfig {
        replay_capacity: 200,
        initial_memory: 3666,
        max_steps: Some(1),
        ..small_config(2)
    };
    let t = train(
        &s,
        &m,
        &rows(300, 1),
        RewardKind::Probability,
        RewardParams::default(),
        &cfg,
        |_| true,
    )
    .unwrap();
    let ev = evaluate(&t.policy, &s, &m, &rows(100, 4)).unwrap();
    assert!(ev.episodes.iter().all(|e| e.actions.len() == 1));
    assert!(ev.metrics.satisfiability > 0.5, "{:?}", ev.metrics);
    assert!(
        Policy::from_json(&t.policy.to_json())
            .unwrap()
            .config
            .max_steps
            == Some(1)
    );
}

// ---------------------------------------------------------------- hand-built policies

/// A one-layer (linear) network with the given row-major weights and biases.
fn linear_net(n_in: usize, n_out: usize, weights: Vec<f64>, bias: Vec<f64>) -> crate::nn::Network {
    use crate::nn::{Activation, Dense, Network};
    Network {
        layers: vec![Dense {
            n_in,
            n_out,
            weights,
            bias,
            activation: Activation::Identity,
        }],
    }
}

/// A policy whose choices are known in advance, on [`schema`] (encoded
/// columns: income 0, debt 1, housing 2–4, age 5; state adds b = 6–8; the Q
/// network also reads the parameters 9–11).
///
/// Actor: constant parameters u = (−0.4, −1, 0): income v = 0.3 → 30,
/// debt v = 0 → 0, housing v = 0.5 → segment 1 = "own".
/// Q: Q₀ = 1 + 3·age − 2·b₀, Q₁ = 0, Q₂ = 0.5 − 2·b₂ (age = the age slot).
/// So step 1 changes income; step 2 changes housing when −1 + 3·age < 0.5,
/// else re-uses income (a failure); step 3 changes debt when −1 + 3·age < 0.
fn hand_policy() -> Policy {
    let mut qw = vec![0.0; 3 * 12];
    qw[5] = 3.0;
    qw[6] = -2.0;
    qw[2 * 12 + 8] = -2.0;
    Policy {
        format_version: POLICY_FORMAT_VERSION,
        action_features: vec!["income".into(), "debt".into(), "housing".into()],
        encoded_dim: 6,
        reward: RewardKind::Binary,
        reward_params: RewardParams::default(),
        config: PdqnConfig::default(),
        actor_param: linear_net(9, 3, vec![0.0; 27], vec![-0.4, -1.0, 0.0]),
        q: linear_net(12, 3, qw, vec![1.0, 0.0, 0.5]),
    }
}

/// Panagiotou & Ntoutsi 2023's metrics of a policy whose every step is known, worked out by
/// hand. Scores s = 6·income/100 − 4·debt/50 + own + 0.5·(age − 18)/62 − 2:
/// 1. (10, 0, rent, 80): s = −0.9; income → 30: s = 0.3, success in 1 step,
///    ℓ2 distance 0.2.
/// 2. (20, 5, rent, 18): s = −1.2; income → 30: −0.6; housing → own: 0.4,
///    success in 2 steps, distance √(0.1² + 2).
/// 3. (30, 30, own, 24.2): age slot 0.1; income 30 → 30 and own → own are
///    idle steps; debt → 0: s = 0.85, success in 3 steps with 1 change,
///    distance 0.6.
/// 4. (0, 50, rent, 80): income → 30: s = −3.7; step 2 re-uses income
///    (Q₀ = 2 > 0.5): failure.
/// 5. (90, 10, free, 80): s = 3.1, already accepted.
///
/// Satisfiability 3/4; sparsity (1 + 2 + 1)/3; distance and probability the
/// means over the three successes; action counts per step (4, 0, 0),
/// (1, 0, 2), (0, 1, 0): p = (4, 1, 2, 1)/8, H = 1.75 bits / log₂ 9.
#[test]
fn evaluation_of_a_hand_built_policy_matches_hand_computed_metrics() {
    use crate::model::sigmoid;
    let (s, m) = (schema(), model());
    let policy = hand_policy();
    let rows = vec![
        vec![10.0, 0.0, 0.0, 80.0],
        vec![20.0, 5.0, 0.0, 18.0],
        vec![30.0, 30.0, 1.0, 24.2],
        vec![0.0, 50.0, 0.0, 80.0],
        vec![90.0, 10.0, 2.0, 80.0],
    ];
    let ev = evaluate(&policy, &s, &m, &rows).unwrap();
    let want_actions: [&[usize]; 4] = [&[0], &[0, 2], &[0, 2, 1], &[0, 0]];
    let want_outcomes = [
        StepOutcome::Success,
        StepOutcome::Success,
        StepOutcome::Success,
        StepOutcome::Failure(Failure::Reused),
    ];
    let want_changed = [1, 2, 1, 1];
    let want_scores = [0.3, 0.4, 0.85, -3.7];
    let d2 = (0.01f64 + 2.0).sqrt();
    let want_distance = [0.2, d2, 0.6, 0.3];
    assert_eq!(ev.episodes.len(), 4);
    for (i, e) in ev.episodes.iter().enumerate() {
        assert_eq!(e.row, i);
        assert_eq!(e.actions, want_actions[i], "episode {i}");
        assert_eq!(e.outcome, want_outcomes[i], "episode {i}");
        assert_eq!(e.n_changed, want_changed[i], "episode {i}");
        assert!(
            (e.distance - want_distance[i]).abs() < 1e-12,
            "episode {i}: {}",
            e.distance
        );
        assert!(
            (e.probability - sigmoid(want_scores[i])).abs() < 1e-12,
            "episode {i}: {}",
            e.probability
        );
    }
    let mm = ev.metrics;
    assert_eq!(mm.n_instances, 4);
    assert_eq!(mm.n_already_accepted, 1);
    assert_eq!(mm.satisfiability, 0.75);
    assert!((mm.sparsity - 4.0 / 3.0).abs() < 1e-15);
    assert!((mm.distance - (0.2 + d2 + 0.6) / 3.0).abs() < 1e-12);
    let p = (sigmoid(0.3) + sigmoid(0.4) + sigmoid(0.85)) / 3.0;
    assert!((mm.target_probability - p).abs() < 1e-12);
    assert_eq!(
        ev.flows.taken,
        vec![vec![4, 0, 0], vec![1, 0, 2], vec![0, 1, 0]]
    );
    assert!(
        (mm.entropy - 1.75 / 9f64.log2()).abs() < 1e-12,
        "{}",
        mm.entropy
    );
    // the plan in words agrees with the record
    let plan = policy.answer(&s, &m, &rows[2]).unwrap();
    assert!(plan.success);
    assert_eq!(plan.final_row, vec![30.0, 0.0, 1.0, 24.2]);
    // the two idle steps of the record are not shown: one step, two idle
    assert_eq!(
        plan.steps.iter().map(|st| st.changed).collect::<Vec<_>>(),
        vec![true]
    );
    assert_eq!(plan.idle_steps, 2);
}

/// The TD target y = r + γ·max_k Q'(s', x'(s'))_k by hand. Target networks on
/// a 2-dimensional state s' = (0.5, −1) with K = 2 actions: actor
/// x' = (s'₀ + s'₁, 2s'₀) = (−0.5, 1); Q'(s', x') = (s'₀ + x'₀ + 1, s'₁ − x'₁ + 4)
/// = (1, 2); with r = −0.3 and γ = 0.8: y = −0.3 + 0.8·2 = 1.3. A terminal
/// transition's target is r alone.
#[test]
fn td_target_is_computed_by_hand() {
    let actor = linear_net(2, 2, vec![1.0, 1.0, 2.0, 0.0], vec![0.0, 0.0]);
    let q = linear_net(
        4,
        2,
        vec![1.0, 0.0, 1.0, 0.0, 0.0, 1.0, 0.0, -1.0],
        vec![1.0, 4.0],
    );
    let (mut q_in, mut out_k, mut scratch) = (vec![0.0; 4], vec![0.0; 2], vec![0.0; 8]);
    let y = super::agent::td_target(
        (&actor, &q),
        0.8,
        -0.3,
        Some(&[0.5, -1.0]),
        &mut q_in,
        &mut out_k,
        &mut scratch,
    );
    assert!((y - 1.3).abs() < 1e-15, "y = {y}");
    assert_eq!(out_k, vec![1.0, 2.0]);
    let y = super::agent::td_target(
        (&actor, &q),
        0.8,
        -0.3,
        None,
        &mut q_in,
        &mut out_k,
        &mut scratch,
    );
    assert_eq!(y, -0.3);
}

/// A one-feature problem whose Q values are known: income ∈ [0, 100]
/// (integer) is the only mutable feature, the model accepts iff
/// income > 50 (age is immutable and unweighted), so K = 1, one step per
/// episode, and Q*(s, u) is the reward of that one terminal step:
/// Pos = 5 when u sets income = round(100·(u + 1)/2) ≥ 51, i.e. u > 0.01,
/// and Pen = −10 (out of steps) otherwise, whatever the state. With
/// exploration kept at ε = 1 (uniform parameters) the Q network regresses
/// on exactly these values; at |u| ≥ 0.2, away from the step at u ≈ 0.01,
/// it must recover them within 0.75 (12,000 one-step episodes), and the trained actor must pick a parameter on the accepted side.
#[test]
fn one_feature_problem_learns_its_known_q_values() {
    let s = Schema::new(vec![
        Feature::contiguous("income", 0.0, 100.0).integer(),
        Feature::contiguous("age", 18.0, 80.0).immutable(),
    ])
    .unwrap();
    let m = LinearModel::new(vec![6.0, 0.0], -3.03, 0.5).unwrap();
    let train_rows: Vec<Vec<f64>> = (0..40)
        .map(|i| vec![(i % 50) as f64, 18.0 + i as f64])
        .collect();
    let cfg = PdqnConfig {
        episodes: 12_000,
        hidden: vec![32],
        batch_size: 32,
        epsilon_start: 1.0,
        epsilon_final: 1.0,
        initial_memory: 100,
        replay_capacity: 5000,
        seed: 3,
        ..PdqnConfig::default()
    };
    let t = train(
        &s,
        &m,
        &train_rows,
        RewardKind::Binary,
        RewardParams::default(),
        &cfg,
        |_| true,
    )
    .unwrap();
    let q = &t.policy.q;
    let mut worst: f64 = 0.0;
    for row in [[5.0, 20.0], [30.0, 50.0], [49.0, 79.0]] {
        let x = s.encode(&row).unwrap();
        for u in [-0.9, -0.6, -0.4, -0.2, 0.25, 0.4, 0.6, 0.9] {
            // state (income slot, age slot, b = 0), then the parameter
            let out = q.forward(&[x[0], x[1], 0.0, u]);
            let want = if u > 0.01 { 5.0 } else { -10.0 };
            worst = worst.max((out[0] - want).abs());
        }
        let plan = t.policy.answer(&s, &m, &row).unwrap();
        assert!(plan.success, "row {row:?}: {plan:?}");
        assert!(plan.final_row[0] >= 51.0);
    }
    assert!(
        worst < 0.75,
        "Q differs from the known values by up to {worst}"
    );
}

// ---------------------------------------------------------------- drift

/// A short, seeded training on the plain German schema (no change limits, no
/// waiting) of both rewards, as policy JSON, one line per reward.
fn plain_german_policies() -> String {
    let d = crate::data::german_credit(&crate::data::bundled_german_path()).unwrap();
    let (tr, _) = d.holdout_split();
    let m = LinearModel::fit(
        &tr.encoded(),
        &tr.labels,
        crate::model::LogisticFit::default(),
    )
    .unwrap();
    let cfg = PdqnConfig {
        episodes: 300,
        hidden: vec![8],
        batch_size: 16,
        epsilon_steps: 600,
        epsilon_final: 0.2,
        initial_memory: 100,
        replay_capacity: 2000,
        progress_every: 100,
        seed: 5,
        ..PdqnConfig::default()
    };
    [RewardKind::Binary, RewardKind::Probability]
        .iter()
        .map(|&reward| {
            let t = train(
                &d.schema,
                &m,
                &tr.rows,
                reward,
                RewardParams::default(),
                &cfg,
                |_| true,
            )
            .unwrap();
            t.policy.to_json() + "\n"
        })
        .collect()
}

/// The plain schema's training is bit-for-bit what it was before change
/// limits and waiting entered the action space (issue #16): a schema without
/// them must train exactly as the paper's runs did.
///
/// Drift check only: `testdata/german_plain_policies.jsonl` was written by
/// cfx itself (this function, on the code before the action space learned
/// change limits and waiting), so it proves sameness, not correctness.
/// Rewrite it with `CFX_BLESS=1` only when a change of the plain training is
/// intended.
#[test]
fn plain_german_training_is_unchanged() {
    let got = plain_german_policies();
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("src/sequential/testdata/german_plain_policies.jsonl");
    if std::env::var_os("CFX_BLESS").is_some() {
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(&path, &got).unwrap();
    }
    let want = std::fs::read_to_string(&path).unwrap();
    assert!(
        got == want,
        "the plain German training drifted from {}",
        path.display()
    );
}

// ---------------------------------------------------------------- advice

/// income ∈ [0, 100] integer (up by at most 20, down by at most half),
/// debt ∈ [0, 50] step 2.5 (decrease only, by at most 10), a level order
/// {poor, fair, good} (increase only, never into "good" from "poor"),
/// "months since delinquency" ∈ [0, 60] with special state −7 "none" (the
/// move value → none forbidden) and months on file ∈ [0, 120] growing with
/// time, capped; waiting up to 12 months at 0.05 a month.
fn advice_schema() -> Schema {
    use crate::schema::{ChangeLimit, TimeGrowth, Waiting};
    let mut level = Feature::categorical("standing", &["poor", "fair", "good"])
        .direction(Direction::IncreaseOnly);
    level.actionability.forbidden_transitions.push(Transition {
        from: "poor".into(),
        to: "good".into(),
    });
    let mut delq = Feature::contiguous("msince_delq", 0.0, 60.0)
        .integer()
        .with_special(-7.0, "none");
    delq.actionability.forbidden_transitions.push(Transition {
        from: "value".into(),
        to: "-7".into(),
    });
    let mut debt = Feature::contiguous("debt", 0.0, 50.0)
        .direction(Direction::DecreaseOnly)
        .max_decrease(ChangeLimit::Units(10.0));
    if let crate::schema::FeatureKind::Contiguous { step, .. } = &mut debt.kind {
        *step = Some(2.5);
    }
    Schema::new_with_waiting(
        vec![
            Feature::contiguous("income", 0.0, 100.0)
                .integer()
                .max_increase(ChangeLimit::Units(20.0))
                .max_decrease(ChangeLimit::Fraction(0.5)),
            debt,
            level,
            delq,
            Feature::contiguous("months_on_file", 0.0, 120.0)
                .integer()
                .grows_with_time(TimeGrowth::default()),
        ],
        Some(Waiting {
            cost_per_month: 0.05,
            max_months: 12,
        }),
    )
    .unwrap()
}

/// Encoded: income, debt, standing ×3, msince_delq (value, none), months_on_file.
fn advice_model() -> LinearModel {
    LinearModel::new(vec![2.0, -2.0, 0.0, 0.5, 1.0, 0.5, 0.2, 3.0], -1.5, 0.5).unwrap()
}

/// Every action the environment can take on an advice schema is advice the
/// schema allows: for applicants all over the space, every action and a fine
/// grid of parameters, the applied step passes `Schema::check_advice` (the
/// oracle is the check, not the map) and is never a violation.
#[test]
fn every_action_on_an_advice_schema_is_allowed_advice() {
    let s = advice_schema();
    let m = advice_model();
    let mut env =
        Environment::new(&s, &m, RewardKind::Probability, RewardParams::default()).unwrap();
    let a = env.actions().clone();
    assert!(a.within_advice());
    assert_eq!(a.len(), 5, "4 mutable features and wait");
    assert_eq!(a.wait_action(), Some(4));
    assert_eq!(a.names(&s).last().unwrap(), WAIT_ACTION);
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(9);
    let mut seen_wait = std::collections::BTreeSet::new();
    let (mut moved, mut checked) = (0, 0);
    for _ in 0..60 {
        let row = vec![
            rng.random_range(0..=100) as f64,
            2.5 * rng.random_range(0..=20) as f64,
            rng.random_range(0..3) as f64,
            if rng.random_bool(0.3) {
                -7.0
            } else {
                rng.random_range(0..=60) as f64
            },
            rng.random_range(100..=120) as f64,
        ];
        for k in 0..a.len() {
            for g in 0..=200 {
                let u = -1.0 + g as f64 / 100.0;
                env.reset(&row).unwrap();
                let r = env.step(k, u).unwrap();
                assert_ne!(
                    r.outcome,
                    StepOutcome::Failure(Failure::Violation),
                    "row {row:?} action {k} u {u}: {:?}",
                    env.last_violation()
                );
                let months = if Some(k) == a.wait_action() {
                    seen_wait.insert(r.to as u32);
                    r.to as u32
                } else {
                    0
                };
                s.check_advice(&row, env.raw(), months)
                    .unwrap_or_else(|e| panic!("row {row:?} action {k} u {u}: {e}"));
                s.encode(env.raw()).unwrap();
                checked += 1;
                if env.raw() != row.as_slice() {
                    moved += 1;
                }
            }
        }
    }
    assert_eq!(
        seen_wait,
        (1..=12).collect(),
        "every wait of 1..=M months is offered"
    );
    assert!(
        moved > checked / 2,
        "{moved} of {checked} steps moved something"
    );
}

/// The advice map offers exactly the allowed moves: the value range is the
/// move range cut by the direction, the grid is kept, forbidden levels and
/// states are never chosen, and both ends of the allowed range are reached.
#[test]
fn advice_map_spans_exactly_the_allowed_moves() {
    let s = advice_schema();
    let a = ActionSpace::new(&s).unwrap();
    let grid = |k: usize, from: f64| -> std::collections::BTreeSet<u64> {
        (0..=400)
            .map(|g| {
                a.value_within(&s, k, -1.0 + g as f64 / 200.0, from)
                    .to_bits()
            })
            .collect()
    };
    let vals = |set: std::collections::BTreeSet<u64>| -> Vec<f64> {
        let mut v: Vec<f64> = set.into_iter().map(f64::from_bits).collect();
        v.sort_by(f64::total_cmp);
        v
    };
    // income 40: [20, 60], whole numbers, every one reached.
    let inc = vals(grid(0, 40.0));
    assert_eq!(inc, (20..=60).map(f64::from).collect::<Vec<_>>());
    // income 90: [45, 100] (the data's upper bound cuts the +20).
    let inc = vals(grid(0, 90.0));
    assert_eq!((inc[0], *inc.last().unwrap()), (45.0, 100.0));
    // debt 30, decrease only by at most 10, step 2.5: {20, 22.5, …, 30}.
    assert_eq!(vals(grid(1, 30.0)), vec![20.0, 22.5, 25.0, 27.5, 30.0]);
    // standing: from poor only poor or fair (good is forbidden); from fair fair or good.
    assert_eq!(vals(grid(2, 0.0)), vec![0.0, 1.0]);
    assert_eq!(vals(grid(2, 1.0)), vec![1.0, 2.0]);
    assert_eq!(vals(grid(2, 2.0)), vec![2.0]);
    // msince_delq: from a value, never "none"; from "none", values or staying.
    let d = vals(grid(3, 12.0));
    assert!(!d.contains(&-7.0) && d[0] == 0.0 && *d.last().unwrap() == 60.0);
    let d = vals(grid(3, -7.0));
    assert!(d.contains(&-7.0) && d.contains(&0.0) && d.contains(&60.0));
    // The plain schema's map is untouched: income over its whole range.
    let plain = Schema::new(
        s.features[..4]
            .iter()
            .cloned()
            .map(|mut f| {
                f.actionability.max_increase = None;
                f.actionability.max_decrease = None;
                f
            })
            .collect(),
    )
    .unwrap();
    let p = ActionSpace::new(&plain).unwrap();
    assert!(!p.within_advice());
    assert_eq!(p.wait_action(), None);
    assert_eq!(p.value_within(&plain, 0, -1.0, 40.0), 0.0);
    assert_eq!(p.value_within(&plain, 0, 1.0, 40.0), 100.0);
}

/// "Wait m months" moves the row exactly as `Schema::after_waiting` does,
/// costs `cost_per_month·m` in the distance, and can be used once.
#[test]
fn the_wait_step_is_after_waiting_and_priced_per_month() {
    let s = advice_schema();
    let m = advice_model();
    let mut env =
        Environment::new(&s, &m, RewardKind::Probability, RewardParams::default()).unwrap();
    let w = env.actions().wait_action().unwrap();
    let row = [30.0, 40.0, 0.0, 5.0, 115.0];
    for (u, months) in [(-1.0, 1), (0.0, 7), (1.0, 12)] {
        env.reset(&row).unwrap();
        let p0 = env.probability();
        let r = env.step(w, u).unwrap();
        assert_eq!(r.to, f64::from(months));
        assert_eq!(env.raw(), s.after_waiting(&row, months).unwrap().as_slice());
        // months_on_file is capped at 120.
        assert_eq!(env.raw()[4], (115.0 + f64::from(months)).min(120.0));
        assert!((r.distance - 0.05 * f64::from(months)).abs() < 1e-15);
        if r.outcome == StepOutcome::Continue {
            let want = 10.0 * (r.probability - p0) - 0.05 * f64::from(months);
            assert!((r.reward - want).abs() < 1e-12, "{} vs {want}", r.reward);
        }
        let again = env.step(w, u).unwrap();
        assert_eq!(again.outcome, StepOutcome::Failure(Failure::Reused));
    }
}

/// [`advice_schema`] with months on file refusing to pass 120
/// (`past_upper: refuse`) instead of capping there.
fn refusing_advice_schema() -> Schema {
    let mut s = advice_schema();
    s.features[4]
        .actionability
        .grows_with_time
        .as_mut()
        .unwrap()
        .past_upper = crate::schema::PastUpper::Refuse;
    Schema::new_with_waiting(s.features, s.waiting).unwrap()
}

/// With a feature that refuses to pass its upper bound, "wait" spreads its
/// parameter over the applicant's own allowed months
/// ([`Schema::longest_wait`]): every one of them is offered, none beyond,
/// the feature never passes its bound, and every step is allowed advice. An
/// applicant already at the bound may not wait: that action is a violation
/// saying why, and the plan built from it moves nothing.
#[test]
fn the_wait_action_stays_within_the_applicants_longest_wait() {
    let s = refusing_advice_schema();
    let m = advice_model();
    let mut env =
        Environment::new(&s, &m, RewardKind::Probability, RewardParams::default()).unwrap();
    let w = env.actions().wait_action().unwrap();
    for (on_file, longest) in [(100.0, 12), (108.0, 12), (115.0, 5), (119.0, 1)] {
        let row = [30.0, 40.0, 0.0, 5.0, on_file];
        assert_eq!(s.longest_wait(&row).unwrap(), longest);
        let mut offered = std::collections::BTreeSet::new();
        for g in 0..=400 {
            let u = -1.0 + g as f64 / 200.0;
            env.reset(&row).unwrap();
            let r = env.step(w, u).unwrap();
            assert_ne!(
                r.outcome,
                StepOutcome::Failure(Failure::Violation),
                "{on_file}, u {u}: {:?}",
                env.last_violation()
            );
            let months = r.to as u32;
            offered.insert(months);
            assert!(env.raw()[4] <= 120.0);
            assert_eq!(env.raw(), s.after_waiting(&row, months).unwrap().as_slice());
            s.check_advice(&row, env.raw(), months).unwrap();
        }
        assert_eq!(offered, (1..=longest).collect(), "from {on_file}");
    }
    // At the bound: no wait is allowed.
    let row = [30.0, 40.0, 0.0, 5.0, 120.0];
    assert_eq!(s.longest_wait(&row).unwrap(), 0);
    for u in [-1.0, 0.0, 1.0] {
        env.reset(&row).unwrap();
        let r = env.step(w, u).unwrap();
        assert_eq!(r.outcome, StepOutcome::Failure(Failure::Violation));
        assert_eq!(env.raw(), row.as_slice());
        let why = env.last_violation().unwrap().to_string();
        assert!(
            why.contains("months_on_file") && why.contains("at most 0 months"),
            "{why}"
        );
    }
    // Other actions are untouched by the limit.
    env.reset(&row).unwrap();
    let r = env.step(0, 1.0).unwrap();
    assert_ne!(r.outcome, StepOutcome::Failure(Failure::Violation));
    // The same applicants on the capping schema wait the full 12 months.
    let capped = advice_schema();
    let mut env = Environment::new(
        &capped,
        &m,
        RewardKind::Probability,
        RewardParams::default(),
    )
    .unwrap();
    env.reset(&row).unwrap();
    assert_eq!(env.step(w, 1.0).unwrap().to, 12.0);
}

/// With an advised range on months on file (`[110, 118]`), "wait" spreads
/// its parameter over exactly the applicant's advisable months
/// ([`Schema::advisable_waits`] without 0): a gap before the range is
/// skipped, a wait past it never offered, and every step is allowed advice.
/// An applicant no wait can land inside may not wait: a violation naming the
/// range.
#[test]
fn the_wait_action_offers_only_the_advisable_waits() {
    let s = advice_schema()
        .with_advised_range(4, Some((110.0, 118.0)))
        .unwrap();
    let m = advice_model();
    let mut env =
        Environment::new(&s, &m, RewardKind::Probability, RewardParams::default()).unwrap();
    let w = env.actions().wait_action().unwrap();
    for (on_file, first, last) in [(100.0, 10, 12), (105.0, 5, 12), (117.0, 1, 1)] {
        let row = [30.0, 40.0, 0.0, 5.0, on_file];
        let mut advisable = vec![0];
        advisable.extend(first..=last);
        assert_eq!(s.advisable_waits(&row).unwrap(), advisable, "{on_file}");
        let mut offered = std::collections::BTreeSet::new();
        for g in 0..=400 {
            let u = -1.0 + g as f64 / 200.0;
            env.reset(&row).unwrap();
            let r = env.step(w, u).unwrap();
            assert_ne!(
                r.outcome,
                StepOutcome::Failure(Failure::Violation),
                "{on_file}, u {u}: {:?}",
                env.last_violation()
            );
            let months = r.to as u32;
            offered.insert(months);
            assert!((110.0..=118.0).contains(&env.raw()[4]), "{:?}", env.raw());
            s.check_advice(&row, env.raw(), months).unwrap();
        }
        assert_eq!(offered, (first..=last).collect(), "from {on_file}");
    }
    let row = [30.0, 40.0, 0.0, 5.0, 118.0];
    assert_eq!(s.advisable_waits(&row).unwrap(), vec![0]);
    for u in [-1.0, 0.0, 1.0] {
        env.reset(&row).unwrap();
        let r = env.step(w, u).unwrap();
        assert_eq!(r.outcome, StepOutcome::Failure(Failure::Violation));
        assert_eq!(env.raw(), row.as_slice());
        let why = env.last_violation().unwrap().to_string();
        assert!(
            why.contains("months_on_file") && why.contains("advised_range"),
            "{why}"
        );
    }
}

/// A trained policy on the refusing schema, for applicants near the bound:
/// its plans never wait past an applicant's longest wait and never carry
/// months on file past 120, including the plans of applicants who may not
/// wait at all (whose refused waits appear in no plan). The model needs
/// income up by 20 and, from fewer than 114 months on file, a few months of
/// waiting too: `2·income/100 + 6·months/120 − 6.1`.
#[test]
fn a_trained_policy_never_waits_past_the_upper_bound() {
    let s = refusing_advice_schema();
    let m = LinearModel::new(vec![2.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 6.0], -6.1, 0.5).unwrap();
    let rows: Vec<Vec<f64>> = (0..12)
        .map(|i| vec![5.0 + f64::from(i % 3), 50.0, 0.0, 5.0, 109.0 + f64::from(i)])
        .collect();
    let cfg = small_config(5);
    let t = train(
        &s,
        &m,
        &rows,
        RewardKind::Probability,
        RewardParams::default(),
        &cfg,
        |_| true,
    )
    .unwrap();
    let (mut waits, mut successes) = (0, 0);
    for r in &rows {
        let plan = t.policy.answer(&s, &m, r).unwrap();
        assert!(plan.final_row[4] <= 120.0, "{:?}", plan.final_row);
        let months: u32 = plan.steps.iter().map(|st| st.months).sum();
        assert!(months <= s.longest_wait(r).unwrap());
        waits += usize::from(months > 0);
        if plan.success {
            s.check_advice(r, &plan.final_row, months).unwrap();
            successes += 1;
        }
    }
    eprintln!(
        "plans that wait: {waits} of {}, {successes} accepted",
        rows.len()
    );
    assert!(
        waits >= 1 && successes >= 6,
        "{waits} wait, {successes} accepted"
    );
}

/// One feature that only time moves: the only way to acceptance is to wait
/// long enough, and a trained policy learns to wait and says so in words.
#[test]
fn a_policy_learns_to_wait_when_only_time_helps() {
    use crate::schema::{TimeGrowth, Waiting};
    let s = Schema::new_with_waiting(
        vec![
            Feature::contiguous("months_on_file", 0.0, 60.0)
                .integer()
                .grows_with_time(TimeGrowth::default()),
            Feature::categorical("colour", &["red", "blue"]),
        ],
        Some(Waiting {
            cost_per_month: 0.01,
            max_months: 12,
        }),
    )
    .unwrap();
    // Accepted when months_on_file > 36 (slot 36/60 = 0.6): score 10·(slot − 0.6).
    let m = LinearModel::new(vec![10.0, 0.0, 0.0], -6.0, 0.5).unwrap();
    let rows: Vec<Vec<f64>> = (28..=35).map(|v| vec![f64::from(v), 0.0]).collect();
    let mut cfg = small_config(3);
    cfg.episodes = 600;
    let t = train(
        &s,
        &m,
        &rows,
        RewardKind::Probability,
        RewardParams::default(),
        &cfg,
        |_| true,
    )
    .unwrap();
    assert_eq!(t.policy.action_features, vec!["colour", WAIT_ACTION]);
    let mut waited = 0;
    for r in &rows {
        let plan = t.policy.answer(&s, &m, r).unwrap();
        if plan.success {
            let st = plan
                .steps
                .iter()
                .find(|st| st.months > 0)
                .expect("a wait step");
            assert!(r[0] + f64::from(st.months) > 36.0);
            assert!(
                st.text()
                    .starts_with(&format!("wait {} months: months_on_file", st.months)),
                "{}",
                st.text()
            );
            s.check_advice(r, &plan.final_row, st.months).unwrap();
            waited += 1;
        }
    }
    assert_eq!(waited, rows.len(), "every applicant learns to wait");
}

/// The same on the German advice preset (change limits on amount and
/// duration, forbidden levels, age by waiting only): for 30 applicants, every
/// action over a fine parameter grid is advice `Schema::check_advice` allows,
/// and age moves only on the wait action.
#[test]
fn every_action_on_the_german_preset_is_allowed_advice() {
    let d = crate::data::german_credit(&crate::data::bundled_german_path()).unwrap();
    let s = crate::data::presets::priced_preset("german", &d.schema)
        .unwrap()
        .unwrap();
    let m = LinearModel::fit(
        &d.encoded(),
        &d.labels,
        crate::model::LogisticFit::default(),
    )
    .unwrap();
    let mut env =
        Environment::new(&s, &m, RewardKind::Probability, RewardParams::default()).unwrap();
    let a = env.actions().clone();
    assert_eq!(
        a.len(),
        15,
        "14 mutable features (not age, employment, residence, instalment rate) and wait"
    );
    let age = s.index_of("age_in_years").unwrap();
    for row in d.rows.iter().take(30) {
        for k in 0..a.len() {
            for g in 0..=100 {
                let u = -1.0 + g as f64 / 50.0;
                env.reset(row).unwrap();
                let r = env.step(k, u).unwrap();
                let months = if Some(k) == a.wait_action() {
                    r.to as u32
                } else {
                    0
                };
                assert_ne!(r.outcome, StepOutcome::Failure(Failure::Violation));
                s.check_advice(row, env.raw(), months)
                    .unwrap_or_else(|e| panic!("action {k} u {u}: {e}"));
                if months == 0 {
                    assert_eq!(env.raw()[age], row[age]);
                }
            }
        }
    }
}
