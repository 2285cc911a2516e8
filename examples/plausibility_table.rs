//! How plausible is each method's advice? For the first declined applicants of
//! the held-out part (logistic model on the fixed 70/30 split, slips of
//! variance σ² = 0.01, robustness target 10%), the share of answers with at
//! least one changed value outside the 1–99% range of the training data's
//! accepted applicants (or in a state or level fewer than 1% of them have;
//! `cfx::plausibility`), and the most frequent offending feature.
//!
//! Methods: the exact engine's optimal counterfactual, its 3 diverse
//! alternatives (Russell's rule) and its robust answer (closed-form margin,
//! proven optimal), all for the applicant as they are, and its cheapest advice
//! over every wait (`coherent::waiting::explain_with_waiting`, what `make
//! demo` prints; the same as the optimum when the schema has no waiting); Wachter, PROBE and CROCO (Guyomard et al. 2023; CROCO with K = 1000,
//! m = 0.02, n_iter 200); COPA plan options (Bui, Nguyen & Nguyen 2022, J = 5, μ̂ and Σ̂ from
//! 200 refits on random halves); the P-DQN (Panagiotou & Ntoutsi 2023, `R^prob`) after a
//! short training (the `--schedule short` settings of
//! `examples/sequential_policies.rs`: hidden [64], learning from 500
//! transitions on, ε 0.8 → 0.1 over 2 steps per episode; `--episodes`,
//! default 3000, seed 42), every plan counted whether or not it flips the
//! decision (the row says how many do).
//!
//! Every answer is checked with the model and the schema's rules
//! (`cfx::advice::check_or_repair`, issue 25): a declined answer of Wachter,
//! PROBE, CROCO or COPA is repaired by the exact engine over the features the
//! method moved (or, when those cannot flip the decision, over every
//! actionable feature), or counted as "no advice"; a P-DQN plan the model declines is
//! "no advice". Columns: answers owed, valid share (advice given that the model
//! accepts, re-checked here), repaired, no advice, and the implausible share of
//! the advice given. The last line: for how many methods every answer given is
//! valid, and the worst implausible share.
//!
//! `--preset` runs every method under the data set's advice preset
//! (`cfx::data::presets::priced_preset`: change limits, waiting, no moves
//! that game the data) — "after"; without it, the plain schema — "before".
//! The model and the plausible ranges are the same either way. Under a preset
//! the waits are limited to the plausible ranges too, as in `make demo`
//! (`Plausibility::advise_waits_within`: no wait carries a month counter out
//! of the accepted applicants' 1–99% range).
//!
//! `cargo run --release --example plausibility_table -- [german|heloc] [applicants] [--preset] [--episodes N] [--strict]`
//! (defaults german, 40; HELOC is read from ../shared/data). With `--strict` the
//! run fails unless every answer of every method is valid and no method's
//! implausible share exceeds 5% (issue 25's targets; `make plausibility-targets`
//! runs both presets so).

use cfx::advice::{Outcome, RepairScope, check_after_waiting, check_or_repair};
use cfx::coherent::waiting::explain_with_waiting;
use cfx::coherent::{Config as MipConfig, Robustness, explain, explain_diverse};
use cfx::data;
use cfx::model::{LinearModel, LogisticFit, Model};
use cfx::plan::{CopaConfig, EnsembleConfig, ModelUncertainty, copa_plan};
use cfx::plausibility::{Plausibility, PlausibilityFlag};
use cfx::robust::{
    CrocoConfig, Evaluation, NoiseModel, ProbeConfig, WachterConfig, croco, probe, wachter,
};
use cfx::schema::Schema;
use cfx::sequential::{PdqnConfig, RewardKind, RewardParams};
use std::collections::BTreeMap;

const SIGMA2: f64 = 0.01;
const TARGET: f64 = 0.1;

/// Answers of one method: what became of each ([`cfx::advice::Outcome`]) and
/// the plausibility flags of the advice given.
#[derive(Default)]
struct Tally {
    /// Answers the method owed (one per applicant, or per option/alternative).
    answers: usize,
    /// The method's own row was valid advice.
    valid: usize,
    /// Repaired by the exact engine.
    repaired: usize,
    /// Of those, over the features the method moved (the rest: over the whole schema).
    repaired_moved: usize,
    /// No valid advice found.
    none: usize,
    /// Advice given that the model declines or the schema forbids (must stay 0).
    broken: usize,
    implausible: usize,
    /// Of those, answers whose every implausible value is a time feature's,
    /// moved by waiting alone (the preset lets no action move one).
    implausible_by_waiting: usize,
    /// Implausible answers per offending feature name.
    by_feature: BTreeMap<String, usize>,
    /// One example of a move per offending feature name.
    example: BTreeMap<String, String>,
}

impl Tally {
    /// Counts one answer: `advice` is the row given (after check and repair),
    /// `None` for "no valid advice found".
    fn add(
        &mut self,
        ctx: &Ctx,
        factual: &[f64],
        outcome: Outcome,
        advice: Option<&[f64]>,
        scope: Option<RepairScope>,
    ) -> Result<(), Box<dyn std::error::Error>> {
        self.answers += 1;
        self.repaired_moved += usize::from(scope == Some(RepairScope::MovedFeatures));
        match outcome {
            Outcome::Valid => self.valid += 1,
            Outcome::Repaired => self.repaired += 1,
            Outcome::NoAdvice => self.none += 1,
        }
        let Some(row) = advice else {
            return Ok(());
        };
        // Checked here again, independently of the advice layer (a P-DQN
        // plan's waits are checked by the layer: here acceptance only).
        if !ctx.model.accepts(&ctx.schema.encode(row)?)
            || (months_free(ctx.schema, factual, row)
                && ctx.schema.check_advice(factual, row, 0).is_err())
        {
            self.broken += 1;
        }
        let flags = ctx.ranges.assess(ctx.schema, factual, row)?;
        self.flags(ctx.schema, factual, &flags);
        Ok(())
    }

    fn flags(&mut self, schema: &Schema, factual: &[f64], flags: &[PlausibilityFlag]) {
        let odd: Vec<&PlausibilityFlag> = flags.iter().filter(|f| f.implausible).collect();
        if !odd.is_empty() {
            self.implausible += 1;
            let time = schema.time_features();
            if odd.iter().all(|f| time.contains(&f.feature)) {
                self.implausible_by_waiting += 1;
            }
        }
        for f in odd {
            *self.by_feature.entry(f.name.clone()).or_default() += 1;
            self.example.entry(f.name.clone()).or_insert_with(|| {
                format!(
                    "{} {} → {}",
                    f.name,
                    schema.describe_value(f.feature, factual[f.feature]),
                    schema.describe_value(f.feature, f.value)
                )
            });
        }
    }

    fn given(&self) -> usize {
        self.valid + self.repaired
    }

    /// Implausible share of the advice given (NaN without advice).
    fn implausible_share(&self) -> f64 {
        100.0 * self.implausible as f64 / self.given() as f64
    }

    fn row(&self, name: &str) -> String {
        let pct = |n: usize| 100.0 * n as f64 / self.answers.max(1) as f64;
        let typical = self
            .by_feature
            .iter()
            .max_by_key(|&(_, &n)| n)
            .map(|(k, &n)| format!("{k} in {n}/{}, e.g. {}", self.given(), self.example[k]))
            .unwrap_or_else(|| "—".into());
        format!(
            "| {name} | {} | {:.0}% ({}/{}) | {:.0}% ({}, {} over its own moves) | {:.0}% ({}) | {:.0}% ({}/{}; {} by waiting alone) | {typical} |",
            self.answers,
            pct(self.given() - self.broken),
            self.given() - self.broken,
            self.answers,
            pct(self.repaired),
            self.repaired,
            self.repaired_moved,
            pct(self.none),
            self.none,
            self.implausible_share(),
            self.implausible,
            self.given(),
            self.implausible_by_waiting,
        )
    }
}

/// True when no time feature moved (the answer waits for nothing).
fn months_free(schema: &Schema, factual: &[f64], row: &[f64]) -> bool {
    schema.time_features().iter().all(|&i| factual[i] == row[i])
}

/// What every answer is checked against.
struct Ctx<'a> {
    schema: &'a Schema,
    model: &'a LinearModel,
    ranges: &'a Plausibility,
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut positional = Vec::new();
    let (mut preset, mut episodes, mut strict) = (false, 3000usize, false);
    let mut args = std::env::args().skip(1);
    while let Some(a) = args.next() {
        match a.as_str() {
            "--preset" => preset = true,
            "--strict" => strict = true,
            "--episodes" => {
                episodes = args.next().ok_or("--episodes needs a number")?.parse()?;
            }
            _ if a.starts_with("--") => return Err(format!("unknown option '{a}'").into()),
            _ => positional.push(a),
        }
    }
    let which = positional
        .first()
        .cloned()
        .unwrap_or_else(|| "german".into());
    let n_app: usize = positional.get(1).map_or(Ok(40), |s| s.parse())?;
    let d = match which.as_str() {
        "german" => data::german_credit(&data::bundled_german_path())?,
        "heloc" => data::heloc(&data::shared_data_dir().join("heloc.csv"))?,
        other => return Err(format!("unknown dataset '{other}' (german, heloc)").into()),
    };
    let (train_part, test) = d.holdout_split();
    let model = LinearModel::fit(
        &train_part.encoded(),
        &train_part.labels,
        LogisticFit::default(),
    )?;
    // A preset changes actionability only: the model scores its rows unchanged.
    let advised = if preset {
        Some(
            cfx::data::presets::priced_preset(&which, &train_part.schema)?
                .ok_or("no advice preset for this data set")?,
        )
    } else {
        None
    };
    let schema = advised.as_ref().unwrap_or(&train_part.schema);
    let train = &train_part;
    let ranges = Plausibility::fit(schema, &train.rows, &train.labels)?;
    // Waits land month counters where accepted applicants are (the preset's
    // time features get the accepted applicants' 1–99% ranges as advised ranges).
    let within = ranges.advise_waits_within(schema)?;
    let schema = &within;
    let declined: Vec<Vec<f64>> = test
        .rows
        .iter()
        .filter(|r| !model.accepts(&schema.encode(r).expect("coherent row")))
        .take(n_app)
        .cloned()
        .collect();
    let noise = NoiseModel::gaussian_for_schema(schema, SIGMA2)?;
    let unc = ModelUncertainty::from_ensemble(
        &train.encoded(),
        &train.labels,
        EnsembleConfig {
            refits: 200,
            ..EnsembleConfig::default()
        },
    )?;
    let names = [
        "MIP optimal",
        "MIP alternatives",
        "MIP robust (σ² = 0.01, ≤ 10% declined), proven optimal",
        "Wachter",
        "PROBE (target 10%)",
        "CROCO (target 10%)",
        "COPA plan options",
        "P-DQN",
        "MIP with waiting (the demo's advice), proven optimal",
    ];
    let mut tallies: Vec<Tally> = names.iter().map(|_| Tally::default()).collect();
    let diverse = MipConfig {
        n_diverse: 4,
        ..MipConfig::default()
    };
    let robust = MipConfig {
        robustness: Some(Robustness {
            sigma2: SIGMA2,
            invalidation_target: TARGET,
            box_kind: Default::default(),
        }),
        ..MipConfig::default()
    };
    let probe_cfg = ProbeConfig {
        invalidation_target: TARGET,
        ..ProbeConfig::default()
    };
    let croco_cfg = CrocoConfig {
        k: 1000,
        m: 0.02,
        n_iter: 200,
        robustness_target: TARGET,
        evaluation: Evaluation {
            samples: 2000,
            margin: 0.02,
        },
        ..CrocoConfig::default()
    };
    let pdqn_cfg = PdqnConfig {
        episodes,
        hidden: vec![64],
        initial_memory: 500,
        epsilon_steps: 2 * episodes,
        epsilon_final: 0.1,
        progress_every: episodes,
        seed: 42,
        ..PdqnConfig::default()
    };
    let policy = cfx::sequential::train(
        schema,
        &model,
        &train.rows,
        RewardKind::Probability,
        RewardParams::default(),
        &pdqn_cfg,
        |_| true,
    )?
    .policy;
    let ctx = Ctx {
        schema,
        model: &model,
        ranges: &ranges,
    };
    let repair = MipConfig::default();
    // Every method's answer goes through the same check (and repair) before it
    // counts as advice; the P-DQN's plan is sequential, so a plan the model
    // declines is "no advice", not repaired into a single change.
    let give = |k: usize,
                tallies: &mut Vec<Tally>,
                raw: &[f64],
                answer: &[f64],
                fix: bool|
     -> Result<(), Box<dyn std::error::Error>> {
        let c = check_or_repair(schema, &model, raw, answer, fix.then_some(&repair))?;
        tallies[k].add(&ctx, raw, c.outcome, c.advice.as_deref(), c.repair_scope)
    };
    let mut pdqn_success = 0;
    for raw in &declined {
        let plan = policy.answer(schema, &model, raw)?;
        pdqn_success += usize::from(plan.success);
        let months = plan.steps.iter().map(|st| st.months).sum();
        let c = check_after_waiting(schema, &model, raw, &plan.final_row, months, None)?;
        tallies[7].add(&ctx, raw, c.outcome, c.advice.as_deref(), None)?;
        // The exact engine's cheapest advice over every wait, what `make demo`
        // prints: its final row is checked after its own wait.
        let w = explain_with_waiting(schema, &model, raw, &MipConfig::default())?;
        if !w.is_proven() {
            return Err(format!("waiting advice not proven: {:?}", w.unproven).into());
        }
        match &w.advice {
            Some(a) => {
                let c = check_after_waiting(schema, &model, raw, &a.raw, a.months, None)?;
                tallies[8].add(&ctx, raw, c.outcome, c.advice.as_deref(), None)?;
            }
            None => tallies[8].add(&ctx, raw, Outcome::NoAdvice, None, None)?,
        }
        let ex = explain_diverse(schema, &model, raw, &diverse)?;
        if ex.counterfactuals.is_empty() {
            tallies[0].add(&ctx, raw, Outcome::NoAdvice, None, None)?;
        }
        for (k, cf) in ex.counterfactuals.iter().enumerate() {
            give(usize::from(k > 0), &mut tallies, raw, &cf.raw, false)?;
        }
        let ex = explain(schema, &model, raw, &robust)?;
        match ex.counterfactuals.first() {
            Some(cf) => give(2, &mut tallies, raw, &cf.raw, false)?,
            None => tallies[2].add(&ctx, raw, Outcome::NoAdvice, None, None)?,
        }
        let rs = [
            wachter(schema, &model, &noise, raw, &WachterConfig::default())?,
            probe(schema, &model, &noise, raw, &probe_cfg)?,
            croco(schema, &model, &noise, raw, &croco_cfg)?,
        ];
        for (k, r) in rs.iter().enumerate() {
            give(3 + k, &mut tallies, raw, &r.raw, true)?;
        }
        let plan = copa_plan(
            schema,
            &unc,
            raw,
            CopaConfig {
                init_noise: 0.1,
                ..CopaConfig::default()
            },
        )?;
        for option in &plan.raw {
            give(6, &mut tallies, raw, option, true)?;
        }
    }
    println!(
        "{which} ({}): first {} declined held-out applicants, logistic model; implausible = a changed value outside the 1–99% range of the {} accepted training applicants (or a state/level < 1% of them have)",
        if preset {
            "advice preset"
        } else {
            "plain schema"
        },
        declined.len(),
        ranges.n_accepted
    );
    println!();
    println!(
        "| method | answers | advice accepted by the model | of which repaired | no advice | implausible (of advice given; of which only time features moved by waiting) | most frequent implausible move |"
    );
    println!("|---|---|---|---|---|---|---|");
    let pdqn_name = format!(
        "P-DQN, R^prob ({episodes} episodes, seed 42; {pdqn_success}/{} plans accepted)",
        declined.len()
    );
    for (k, t) in tallies.iter().enumerate() {
        let name = if k == 7 { pdqn_name.as_str() } else { names[k] };
        println!("{}", t.row(name));
    }
    let all_valid = tallies.iter().filter(|t| t.broken == 0).count();
    let (worst, share) = tallies
        .iter()
        .enumerate()
        .filter(|(_, t)| t.given() > 0)
        .map(|(k, t)| (k, t.implausible_share()))
        .fold((0, -1.0), |a, b| if b.1 > a.1 { b } else { a });
    let short = [
        "MIP optimal",
        "MIP alternatives",
        "MIP robust",
        "Wachter",
        "PROBE",
        "CROCO",
        "COPA",
        "P-DQN",
        "MIP with waiting",
    ];
    println!();
    println!(
        "plausibility: every answer valid for {all_valid}/{} methods; worst implausible share {share:.0}% ({})",
        tallies.len(),
        short[worst]
    );
    // Issue 25's targets: every answer valid for every method, and at most
    // 5% implausible for each (the share unrounded, in percent).
    if strict && (all_valid < tallies.len() || share > 100.0 * MAX_IMPLAUSIBLE_SHARE + 1e-9) {
        return Err(format!(
            "--strict: the targets are every answer valid for {n}/{n} methods and at most {:.0}% \
             implausible for each",
            100.0 * MAX_IMPLAUSIBLE_SHARE,
            n = tallies.len()
        )
        .into());
    }
    Ok(())
}

/// Issue 25's target for every method's implausible share (`--strict`).
const MAX_IMPLAUSIBLE_SHARE: f64 = 0.05;
