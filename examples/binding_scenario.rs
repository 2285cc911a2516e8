//! The shared scenario that every language binding (Java, C#, R) replays
//! through the C ABI and compares with: `cargo run --release --example
//! binding_scenario > bindings/scenario_expected.txt`.
//!
//! German credit (bundled), the fixed 70/30 hold-out split, logistic
//! regression fitted with the default options (`C = 1`, as
//! `cfx_model_fit_linear(train, 1.0, …)`) on the encoded training part, then
//! the held-out accuracy, the probability of the first five held-out
//! applicants, the encoded dimension, the first declined held-out applicant
//! and the fingerprints the C API reports (`cfx_schema_fingerprint`,
//! `cfx_model_fingerprint`: FNV-1a 64 of the canonical JSON).
//!
//! Then the coherent (MIP) counterfactuals of that first declined applicant,
//! as `cfx_coherent_explain` (default configuration) and
//! `cfx_coherent_explain_diverse` (`n_diverse = 3`) compute them: outcome,
//! cost, probability and raw row of each (`coherent_*`, `diverse_*`).
//!
//! Then the robustness figures at that applicant, as the C API computes them:
//! `cfx_noise_gaussian_new(schema, 0.01)`, `cfx_estimator_new(noise, 10000,
//! CFX_SAMPLING_GENERIC)`, a workspace seeded 42 (`robust_gamma`, `robust_theta`
//! and their standard errors, the exact rate), and CROCO through
//! `cfx_robust_generate` with a configuration whose seed is 7 (`croco_*`).
//!
//! Finally a P-DQN policy trained through `cfx_policy_train` with a
//! configuration of seed 5, 300 episodes of at most 8 steps and one hidden
//! layer of 16 (binary reward): its fingerprint, its metrics on the held-out
//! part and its plan for that applicant (`policy_*`, `plan_*`).
//!
//! Then the bundled German points scorecard
//! (`examples/data/german_scorecard_table.csv`, optbinning 1.0.0; cutoff
//! 487.1228762045055 = the score at probability 0.5 of good, scaling factor
//! 28.85390081777927 = 20/ln 2 and offset = the cutoff, from
//! `examples/data/german_scorecard.md`), imported as
//! `cfx_scorecard_import_path(schema, CFX_SCORECARD_FORMAT_OPTBINNING, …)`
//! imports it: the first held-out applicant it declines, their points, and the
//! coherent counterfactual `cfx_coherent_explain` gives them under the
//! scorecard (`scorecard_*`).
//!
//! Then the waiting advice of the first declined applicant under the German
//! advice preset with waiting at 0.001 per month
//! (`cfx_schema_advice_preset(schema, 0, 0.001, …)`; since the preset keeps
//! the instalment rate fixed (issue 25), waiting, which only ages this
//! applicant, no longer pays: 0 months), as `cfx_coherent_explain_with_waiting` (default
//! configuration) computes it: months, the wait's cost, the total cost and
//! the final row (`waiting_*`).
//!
//! Output: one `key = value` line each. Floating-point values are printed
//! with 17 significant digits (`{:.16e}`), which round-trips every f64, so a
//! binding can parse them and compare bit for bit.

use cfx::coherent::waiting::explain_with_waiting;
use cfx::coherent::{self, Config as CoherentConfig};
use cfx::data;
use cfx::model::scorecard::import::{ImportOptions, from_optbinning_path};
use cfx::model::{AnyModel, LinearModel, LogisticFit, Model, ScoreScaling, accuracy};
use cfx::robust::{CrocoConfig, Estimator, NoiseModel, Sampling, Workspace, croco};
use cfx::sequential::{self, PdqnConfig, RewardKind, RewardParams};

/// 64-bit FNV-1a, the same function as the C API's fingerprints
/// (`"fnv1a64:<16 hex digits>"` of the canonical JSON).
fn fingerprint(text: &str) -> String {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for &b in text.as_bytes() {
        h ^= b as u64;
        h = h.wrapping_mul(0x0000_0100_0000_01b3);
    }
    format!("fnv1a64:{h:016x}")
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let d = data::german_credit(&data::bundled_german_path())?;
    let (train, test) = d.holdout_split();
    let model = LinearModel::fit(&train.encoded(), &train.labels, LogisticFit::default())?;
    let test_x = test.encoded();

    println!("dataset = german_credit");
    println!("n_rows = {}", d.rows.len());
    println!("n_train = {}", train.rows.len());
    println!("n_test = {}", test.rows.len());
    println!("n_features = {}", d.schema.n_features());
    println!("encoded_dim = {}", d.schema.encoded_dim());
    println!("threshold = {:.16e}", model.threshold());
    println!(
        "accuracy = {:.16e}",
        accuracy(&model, &test_x, &test.labels)
    );
    for (i, x) in test_x.iter().take(5).enumerate() {
        println!("prob_{i} = {:.16e}", model.probability(x));
    }
    let first_declined = (0..test_x.len())
        .find(|&i| !model.accepts(&test_x[i]))
        .map_or(-1, |i| i as i64);
    println!("first_declined = {first_declined}");
    let fingerprints = (
        fingerprint(&d.schema.to_json()),
        fingerprint(&AnyModel::Linear(model.clone()).to_json()),
    );

    let row = |v: &[f64]| {
        v.iter()
            .map(|x| format!("{x:.16e}"))
            .collect::<Vec<_>>()
            .join(",")
    };
    let applicant = &test.rows[first_declined as usize];
    let best = coherent::explain(&d.schema, &model, applicant, &CoherentConfig::default())?;
    println!("coherent_outcome = {:?}", best.outcome);
    println!("coherent_count = {}", best.counterfactuals.len());
    if let Some(cf) = best.counterfactuals.first() {
        println!("coherent_cost = {:.16e}", cf.cost);
        println!("coherent_probability = {:.16e}", cf.probability);
        println!("coherent_raw = {}", row(&cf.raw));
    }
    let diverse_config = CoherentConfig {
        n_diverse: 3,
        ..CoherentConfig::default()
    };
    let set = coherent::explain_diverse(&d.schema, &model, applicant, &diverse_config)?;
    println!("diverse_count = {}", set.counterfactuals.len());
    for (k, cf) in set.counterfactuals.iter().enumerate() {
        println!("diverse_cost_{k} = {:.16e}", cf.cost);
        println!("diverse_raw_{k} = {}", row(&cf.raw));
    }

    // Robustness, through AnyModel as behind the C handles.
    let any = AnyModel::Linear(model.clone());
    let x = d.schema.encode(applicant)?;
    let noise = NoiseModel::gaussian_for_schema(&d.schema, 0.01)?;
    let est = Estimator::new(noise.clone(), 10_000)?.with_sampling(Sampling::Generic);
    let mut ws = Workspace::new(&any, 42);
    let e = est.estimate(&any, &x, &mut ws)?;
    println!("robust_gamma = {:.16e}", e.invalidation.value);
    println!("robust_gamma_se = {:.16e}", e.invalidation.std_error);
    println!("robust_theta = {:.16e}", e.soft.value);
    println!("robust_theta_se = {:.16e}", e.soft.std_error);
    let c = CrocoConfig {
        seed: 7,
        ..CrocoConfig::default()
    };
    let r = croco(&d.schema, &any, &noise, applicant, &c)?;
    println!("croco_valid = {}", i32::from(r.valid));
    println!("croco_target_met = {}", i32::from(r.target_met));
    println!("croco_probability = {:.16e}", r.probability);
    println!("croco_distance = {:.16e}", r.l1_distance);
    println!("croco_gamma = {:.16e}", r.invalidation.value);
    println!("croco_bound = {:.16e}", r.bound.value);
    println!("croco_raw = {}", row(&r.raw));

    // A small policy, configured as the C API maps a configuration.
    let pdqn = PdqnConfig {
        episodes: 300,
        max_steps: Some(8),
        hidden: vec![16],
        seed: 5,
        progress_every: 3,
        ..PdqnConfig::default()
    };
    let params = RewardParams::paper(any.threshold());
    let policy = sequential::train(
        &d.schema,
        &any,
        &train.rows,
        RewardKind::Binary,
        params,
        &pdqn,
        |_| true,
    )?
    .policy;
    println!("policy_fingerprint = {}", fingerprint(&policy.to_json()));
    let m = sequential::evaluate(&policy, &d.schema, &any, &test.rows)?.metrics;
    println!("policy_satisfiability = {:.16e}", m.satisfiability);
    println!("policy_n_instances = {}", m.n_instances);
    let plan = policy.answer(&d.schema, &any, applicant)?;
    println!("plan_n_steps = {}", plan.steps.len());
    println!("plan_success = {}", i32::from(plan.success));
    println!("plan_final_row = {}", row(&plan.final_row));

    let table = data::bundled_german_path().with_file_name("german_scorecard_table.csv");
    let options = ImportOptions {
        cutoff: 487.1228762045055,
        scaling: Some(ScoreScaling::new(28.85390081777927, 487.1228762045055)?),
        refuse_unlisted_levels: false,
        favourable: Default::default(),
        unused_features: Vec::new(),
    };
    let card = from_optbinning_path(&d.schema, &table, &options)?.scorecard;
    let card_declined = (0..test_x.len())
        .find(|&i| !card.accepts(&test_x[i]))
        .ok_or("the scorecard accepts every held-out applicant")?;
    println!("scorecard_first_declined = {card_declined}");
    println!(
        "scorecard_points = {:.16e}",
        card.score(&test_x[card_declined])
    );
    let card_best = coherent::explain(
        &d.schema,
        &card,
        &test.rows[card_declined],
        &CoherentConfig::default(),
    )?;
    println!("scorecard_coherent_outcome = {:?}", card_best.outcome);
    println!(
        "scorecard_coherent_count = {}",
        card_best.counterfactuals.len()
    );
    if let Some(cf) = card_best.counterfactuals.first() {
        println!("scorecard_coherent_cost = {:.16e}", cf.cost);
        println!("scorecard_coherent_points = {:.16e}", cf.score);
        println!("scorecard_coherent_raw = {}", row(&cf.raw));
    }
    println!(
        "scorecard_model_fingerprint = {}",
        fingerprint(&AnyModel::Scorecard(card).to_json())
    );

    let advised = data::presets::german_credit_advice(&d.schema, 0.001)?;
    let waiting = explain_with_waiting(&advised, &model, applicant, &CoherentConfig::default())?;
    if !waiting.is_proven() {
        return Err(format!("waiting advice not proven: {}", waiting.describe()).into());
    }
    let advice = waiting
        .advice
        .ok_or("no waiting advice for the first declined applicant")?;
    println!("waiting_months = {}", advice.months);
    println!("waiting_wait_cost = {:.16e}", advice.wait_cost);
    println!("waiting_cost = {:.16e}", advice.cost);
    println!("waiting_raw = {}", row(&advice.raw));

    println!("schema_fingerprint = {}", fingerprints.0);
    println!("model_fingerprint = {}", fingerprints.1);
    Ok(())
}
