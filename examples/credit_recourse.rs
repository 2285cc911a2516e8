//! The main job of cfx on real data: `make demo` (German credit, bundled) or
//! `make demo DATA=heloc` (FICO HELOC, read from ../shared/data).
//!
//! Builds the schema, fits the logistic model on the fixed 70/30 split, reports
//! held-out accuracy, and explains the first declined applicants of the
//! held-out part: the optimal coherent counterfactual and 3 diverse
//! alternatives (Russell 2019), how robust the optimal one is, the cheapest
//! change robust to slips proven optimal by the exact engine (closed-form
//! margin), CROCO's robust advice (Guyomard et al. 2023), and the cheapest
//! advice when waiting is an option. German and HELOC advice follows the
//! presets a credit officer would sign (`cfx::data::presets`): nothing ages a
//! person except waiting, no loan is cut beyond the preset's limits. Every
//! answer says which of its changed values land outside the 1–99% range of the
//! training data's accepted applicants. On German credit it then explains a
//! declined applicant under the bank's own model, the bundled optbinning points
//! scorecard (`examples/data/german_scorecard_table.csv`). CROCO's answer and
//! COPA's options are advice only when today's model accepts them
//! (`cfx::advice::check_or_repair`: else repaired by the exact engine, or "no
//! valid advice found"). `make demo` then
//! runs the COPA plan and sequential sections.

use cfx::advice::{Outcome as AdviceOutcome, check_or_repair};
use cfx::coherent::waiting::explain_with_waiting;
use cfx::coherent::{Config as MipConfig, Outcome, Robustness, explain, explain_diverse};
use cfx::data;
use cfx::model::{LinearModel, LogisticFit, Model, accuracy};
use cfx::plan::{CopaConfig, EnsembleConfig, ModelUncertainty, copa_plan};
use cfx::plausibility::{Plausibility, PlausibilityFlag, describe_implausible};
use cfx::robust::{
    CrocoConfig, Estimator, Evaluation, GuaranteeLimits, NoiseModel, Workspace, croco,
};

const N_APPLICANTS: usize = 3;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let which = std::env::args().nth(1).unwrap_or_else(|| "german".into());
    run(&which, None)
}

/// The demo on data set `which` (german, heloc, taiwan), read from `path` or
/// from where cfx finds it (the bundled folder, `../shared/data`). `cfx demo`
/// runs this same code (src/bin/cfx/demo.rs).
pub fn run(which: &str, path: Option<&std::path::Path>) -> Result<(), Box<dyn std::error::Error>> {
    let shared = |name: &str| path.map_or_else(|| data::shared_data_dir().join(name), Into::into);
    let d = match which {
        "german" => data::german_credit(&path.map_or_else(data::bundled_german_path, Into::into))?,
        "heloc" => data::heloc(&shared("heloc.csv"))?,
        "taiwan" => data::taiwan(&shared("taiwan_default.csv"))?,
        other => return Err(format!("unknown dataset '{other}' (german, heloc, taiwan)").into()),
    };
    println!("== cfx demo on {which} credit data ==");
    println!(
        "{} applicants, {} features ({} encoded columns)",
        d.rows.len(),
        d.schema.n_features(),
        d.schema.encoded_dim()
    );
    let (train, test) = d.holdout_split();
    let model = LinearModel::fit(&train.encoded(), &train.labels, LogisticFit::default())?;
    let test_x = test.encoded();
    println!(
        "logistic model (L2, C = 1): held-out accuracy {:.1}% on {} applicants",
        100.0 * accuracy(&model, &test_x, &test.labels),
        test.rows.len()
    );
    let schema = advice_schema(which, &d.schema)?;
    let ranges = Plausibility::fit(&schema, &train.rows, &train.labels)?;
    // Waits land month counters where accepted applicants are: each time
    // feature's advised range is its 1–99% range among them.
    let schema = ranges.advise_waits_within(&schema)?;
    print_advised_ranges(&schema);
    let declined: Vec<usize> = (0..test.rows.len())
        .filter(|&i| !model.accepts(&test_x[i]))
        .take(N_APPLICANTS)
        .collect();
    for &i in &declined {
        let x = &test_x[i];
        println!();
        println!(
            "applicant #{i} of the held-out part: declined (probability of good risk {:.1}%, threshold {:.0}%)",
            100.0 * model.probability(x),
            100.0 * model.threshold
        );
        optimal_advice(&schema, &model, &test.rows[i], &ranges)?;
        waiting_advice(&schema, &model, &test.rows[i])?;
        exact_robust_advice(&schema, &model, &test.rows[i], &ranges)?;
        robust_advice(&schema, &model, &test.rows[i], &ranges)?;
    }
    let mut time_helped = false;
    for &i in &declined {
        if let Some(a) =
            explain_with_waiting(&schema, &model, &test.rows[i], &MipConfig::default())?.advice
        {
            time_helped |= a.months > 0;
        }
    }
    if schema.waiting().is_some() && !time_helped {
        // The first declined applicant of the held-out part for whom time helps.
        let mut found = false;
        for i in (0..test.rows.len()).filter(|&i| !model.accepts(&test_x[i])) {
            let raw = &test.rows[i];
            if let Some(a) =
                explain_with_waiting(&schema, &model, raw, &MipConfig::default())?.advice
            {
                if a.months > 0 {
                    println!();
                    println!(
                        "applicant #{i} of the held-out part (the first declined one for whom time helps; probability of good risk {:.1}%):",
                        100.0 * model.probability(&test_x[i])
                    );
                    optimal_advice(&schema, &model, raw, &ranges)?;
                    waiting_advice(&schema, &model, raw)?;
                    found = true;
                    break;
                }
            }
        }
        if !found {
            println!();
            println!(
                "for no declined held-out applicant does waiting (within the preset) beat acting now"
            );
        }
    }
    if let Some(&i) = declined.first() {
        plan_advice(&schema, &model, &train, &test.rows[i], i, &ranges)?;
    }
    if which == "german" {
        scorecard_advice(&schema, &test)?;
    }
    Ok(())
}

/// The bank's own model: the bundled German points scorecard (optbinning 1.0.0,
/// cutoff and scaling from `examples/data/german_scorecard.md`). For the first
/// declined held-out applicant: the points total against the cutoff, the
/// cheapest coherent change proven optimal by the MIP with bin indicators
/// (which characteristics move to another bin, and the points each gains) and
/// diverse alternatives (Russell 2019).
fn scorecard_advice(
    schema: &cfx::schema::Schema,
    test: &data::Dataset,
) -> Result<(), Box<dyn std::error::Error>> {
    let imported = data::german_scorecard(schema, &data::bundled_german_scorecard()?)?;
    let card = imported.scorecard;
    let r = &imported.report;
    println!();
    println!(
        "the bank's own model: the bundled German points scorecard ({} characteristics, {} bins; \
         accepted iff points ≥ {:.2}, probability of good risk 50%)",
        r.characteristics, r.bins, card.cutoff
    );
    let x = test.encoded();
    let declined: Vec<usize> = (0..x.len()).filter(|&i| !card.accepts(&x[i])).collect();
    let correct = (0..x.len())
        .filter(|&i| card.accepts(&x[i]) == (test.labels[i] == 1.0))
        .count();
    println!(
        "  held-out: {} of {} declined, accuracy {:.1}%",
        declined.len(),
        x.len(),
        100.0 * correct as f64 / x.len() as f64
    );
    let Some(&i) = declined.first() else {
        return Ok(());
    };
    let raw = &test.rows[i];
    let points = card.score_raw(schema, raw)?;
    println!(
        "applicant #{i} of the held-out part: {points:.2} points, {:.2} short of the cutoff: declined",
        card.cutoff - points
    );
    let config = MipConfig {
        n_diverse: 4,
        ..MipConfig::default()
    };
    let ex = explain_diverse(schema, &card, raw, &config)?;
    if ex.counterfactuals.is_empty() {
        print!("{}", why_none(&ex.to_text(), "  "));
        return Ok(());
    }
    let before = card.points_by_characteristic(schema, raw)?;
    for (k, cf) in ex.counterfactuals.iter().enumerate() {
        let head = if k == 0 {
            "  cheapest change (proven optimal)".to_string()
        } else {
            format!("  alternative {k}")
        };
        println!(
            "{head}: {}  [cost {:.3}, {:.2} points]",
            cf.describe(),
            cf.cost,
            cf.score
        );
        if k == 0 {
            let after = card.points_by_characteristic(schema, &cf.raw)?;
            for ((ch, b), a) in card.characteristics.iter().zip(&before).zip(&after) {
                if a != b {
                    println!(
                        "    {}: another bin, {b:.2} → {a:.2} points ({:+.2})",
                        ch.feature,
                        a - b
                    );
                }
            }
        }
    }
    Ok(())
}

/// The preset a credit officer would sign for the dataset (the plain schema
/// for Taiwan, which has none), a month of waiting priced by
/// `cfx::data::presets::month_price`: as the distance prices one month's
/// growth of the cheapest time feature, since waiting moves them all
/// together, which is the point of it.
fn advice_schema(
    which: &str,
    schema: &cfx::schema::Schema,
) -> Result<cfx::schema::Schema, Box<dyn std::error::Error>> {
    let Some(advised) = cfx::data::presets::priced_preset(which, schema)? else {
        return Ok(schema.clone());
    };
    let w = advised.waiting().expect("presets declare waiting");
    let names = |keep: &dyn Fn(&cfx::schema::Feature) -> bool| {
        advised
            .features
            .iter()
            .filter(|f| keep(f))
            .map(|f| f.name.as_str())
            .collect::<Vec<_>>()
            .join(", ")
    };
    println!(
        "advice preset: {} moved only by waiting (up to {} months, {:.4} per month); change limits on: {}",
        names(&|f| f.actionability.grows_with_time.is_some()),
        w.max_months,
        w.cost_per_month,
        Some(names(&|f| {
            f.actionability.max_increase.is_some() || f.actionability.max_decrease.is_some()
        }))
        .filter(|n| !n.is_empty())
        .unwrap_or_else(|| "none".into())
    );
    Ok(advised)
}

/// The advised ranges of the time features, when any: where a wait may lead them.
fn print_advised_ranges(schema: &cfx::schema::Schema) {
    let ranges: Vec<String> = schema
        .features
        .iter()
        .filter_map(|f| {
            let (lo, hi) = f.actionability.grows_with_time.as_ref()?.advised_range?;
            Some(format!("{} {lo:.0}–{hi:.0}", f.name))
        })
        .collect();
    if !ranges.is_empty() {
        println!(
            "waits advised only where accepted applicants are (their 1–99% range): {}",
            ranges.join(", ")
        );
    }
}

/// The cheapest advice when waiting is one of the actions (exact: the optimum
/// over every wait, `coherent::waiting`), and whether time helps.
fn waiting_advice(
    schema: &cfx::schema::Schema,
    model: &LinearModel,
    raw: &[f64],
) -> Result<(), Box<dyn std::error::Error>> {
    let Some(w) = schema.waiting() else {
        return Ok(());
    };
    // Time alone: the cheapest change after the longest wait this applicant
    // may be advised (shorter than the preset's maximum when a longer one
    // would carry a month count past the data's largest or out of its
    // advised range), against now.
    let longest = schema.advisable_waits(raw)?.last().copied().unwrap_or(0);
    let later = schema.after_waiting(raw, longest)?;
    let now = explain(schema, model, raw, &MipConfig::default())?;
    let now_cost = now.counterfactuals.first().map(|c| c.cost);
    let after = if model.accepts(&schema.encode(&later)?) {
        "accepted without any change".to_string()
    } else {
        let ex = explain(schema, model, &later, &MipConfig::default())?;
        match ex.counterfactuals.first() {
            Some(cf) => format!("{}  [cost {:.3}]", cf.describe(), cf.cost),
            None => "no change within the preset".into(),
        }
    };
    let aged: Vec<String> = schema
        .describe_changes(raw, &later)
        .iter()
        .map(|c| c.to_string())
        .collect();
    println!(
        "  after {} months ({}): {after}{}",
        longest,
        if aged.is_empty() {
            "no time feature moves".into()
        } else {
            aged.join("; ")
        },
        now_cost.map_or(String::new(), |c| format!(" (now: cost {c:.3})"))
    );
    let ex = explain_with_waiting(schema, model, raw, &MipConfig::default())?;
    match &ex.advice {
        _ if !ex.is_proven() => println!("  waiting option (unproven): {}", ex.describe()),
        Some(a) if a.months > 0 => println!(
            "  waiting option (proven optimal over every wait): {}  [cost {:.3}, of which waiting {:.3}]",
            a.describe(),
            a.cost,
            a.wait_cost
        ),
        Some(a) => println!(
            "  no advisable wait of up to {} months is worth its price ({:.4} per month): acting now stays the cheapest advice [cost {:.3}]",
            longest, w.cost_per_month, a.cost
        ),
        None => println!("  no advice within the preset, with or without waiting"),
    }
    Ok(())
}

/// A COPA plan (Bui, Nguyen & Nguyen 2022) for one declined applicant: each
/// option checked with today's model (repaired or dropped when declined), and
/// as the plan's headline the share of simulated future models (a Gaussian
/// with the refits' moments) that accept every option given; the
/// distribution-free bounds L* and U* only when they say something. Model
/// uncertainty: 1000 logistic refits on random halves of the training part,
/// covariance × 1.5 (the paper's experiments).
fn plan_advice(
    schema: &cfx::schema::Schema,
    model: &LinearModel,
    train: &data::Dataset,
    raw: &[f64],
    who: usize,
    ranges: &Plausibility,
) -> Result<(), Box<dyn std::error::Error>> {
    let mu = ModelUncertainty::from_ensemble(
        &train.encoded(),
        &train.labels,
        EnsembleConfig::default(),
    )?;
    let cfg = CopaConfig {
        init_noise: 0.1,
        ..CopaConfig::default()
    };
    let plan = copa_plan(schema, &mu, raw, cfg)?;
    println!();
    println!(
        "plan under model shift (COPA) for applicant #{who}: {} options, each checked with today's model",
        plan.raw.len()
    );
    // Only options today's model accepts are advice (`cfx::advice`): a
    // declined option is repaired by the exact engine over the features it
    // moved, or dropped.
    // Options that are the same row (COPA's box can bind them all at the
    // same limits) are listed once.
    let mut given: Vec<Vec<f64>> = Vec::new();
    for group in cfx::plan::coinciding_options(&plan.raw) {
        let option = &plan.raw[group[0]];
        let c = check_or_repair(schema, model, raw, option, Some(&MipConfig::default()))?;
        println!("  {}: {}", cfx::plan::options_label(&group), c.describe());
        if let Some(advice) = &c.advice {
            warn(&ranges.assess(schema, raw, advice)?);
            given.push(schema.encode(advice)?);
        }
    }
    if given.is_empty() {
        println!("  no option is advice today's model accepts: no plan");
        return Ok(());
    }
    let share = gaussian_joint_validity(&mu, &given, 10_000, 7);
    println!(
        "  {:.1}% of simulated future models accept every option given (10,000 models drawn from the refits' Gaussian)",
        100.0 * share
    );
    // The distribution-free bounds only when they say something: at ρ = 0
    // with L* = 0 and U* = 1 they are no news for an applicant.
    let reading = plan.read_bounds(&mu, cfg.rho)?;
    let distinct = cfx::plan::coinciding_options(&plan.raw).len();
    if reading.meaning == cfx::plan::BoundsMeaning::Informative && given.len() == distinct {
        println!(
            "  between {:.0}% and {:.0}% of all future models within Gelbrich distance ρ = {} of the estimated mean and covariance accept every option",
            100.0 * plan.lower.value,
            100.0 * plan.upper.value,
            cfg.rho
        );
    }
    Ok(())
}

/// The share of θ ~ N(μ̂, Σ̂) that accept every option, i.e. θᵀ(1, x_j) > 0 for
/// all j: one distribution inside the set that L* and U* range over, so the
/// share lies between them (up to Monte Carlo error). Seeded.
fn gaussian_joint_validity(
    mu: &ModelUncertainty,
    options: &[Vec<f64>],
    samples: usize,
    seed: u64,
) -> f64 {
    use rand::SeedableRng;
    use rand_distr::{Distribution, StandardNormal};
    let d = mu.dim();
    // a tiny ridge keeps the Cholesky factor defined for a singular Σ̂
    let cov = mu.cov_matrix() + nalgebra::DMatrix::identity(d, d) * 1e-12;
    let l = cov
        .cholesky()
        .expect("covariance is positive semidefinite")
        .l();
    let xs: Vec<nalgebra::DVector<f64>> = options
        .iter()
        .map(|x| nalgebra::DVector::from_vec(cfx::plan::with_intercept(x)))
        .collect();
    let mean = mu.mean_vector();
    let mut rng = rand_xoshiro::Xoshiro256PlusPlus::seed_from_u64(seed);
    let mut z = nalgebra::DVector::zeros(d);
    let mut accepted = 0usize;
    for _ in 0..samples {
        for v in z.iter_mut() {
            *v = StandardNormal.sample(&mut rng);
        }
        let theta = &mean + &l * &z;
        if xs.iter().all(|x| theta.dot(x) > 0.0) {
            accepted += 1;
        }
    }
    accepted as f64 / samples as f64
}

/// The optimal coherent counterfactual and 3 diverse alternatives (Russell 2019),
/// and the invalidation rate of the optimal one at σ² = 0.01 (Guyomard et al. 2023): exact
/// for a logistic model with Gaussian noise.
fn optimal_advice(
    schema: &cfx::schema::Schema,
    model: &LinearModel,
    raw: &[f64],
    ranges: &Plausibility,
) -> Result<(), Box<dyn std::error::Error>> {
    let config = MipConfig {
        n_diverse: 4,
        ..MipConfig::default()
    };
    let mut ex = explain_diverse(schema, model, raw, &config)?;
    ex.assess_plausibility(schema, ranges)?;
    for (k, cf) in ex.counterfactuals.iter().enumerate() {
        let head = if k == 0 {
            "  cheapest change (proven optimal)".to_string()
        } else {
            format!("  alternative {k}")
        };
        println!(
            "{head}: {}  [cost {:.3}, probability {:.1}%]",
            cf.describe(),
            cf.cost,
            100.0 * cf.probability
        );
        warn(&cf.plausibility);
    }
    if ex.counterfactuals.is_empty() {
        print!("{}", why_none(&ex.to_text(), "  "));
    }
    if let Some(best) = ex.counterfactuals.first() {
        let sigma2 = 0.01;
        let noise = NoiseModel::gaussian_for_applicant(schema, &best.raw, sigma2)?;
        let gamma = cfx::robust::linear_invalidation_rate(model, &best.encoded, &noise)?;
        println!(
            "  followed approximately (σ² = {sigma2}), the cheapest change would still be declined {:.1}% of the time",
            100.0 * gamma
        );
    }
    Ok(())
}

/// Prints the implausible changed values of an answer, if any.
fn warn(flags: &[PlausibilityFlag]) {
    let odd = describe_implausible(flags);
    if !odd.is_empty() {
        println!("      ⚠ unlike accepted applicants: {odd}");
    }
}

/// The cheapest change that stays accepted when followed only approximately:
/// the exact engine with the closed-form margin (σ² = 0.01, at most 10% of
/// slipped implementations declined), proven optimal.
fn exact_robust_advice(
    schema: &cfx::schema::Schema,
    model: &LinearModel,
    raw: &[f64],
    ranges: &Plausibility,
) -> Result<(), Box<dyn std::error::Error>> {
    let robustness = Robustness {
        sigma2: 0.01,
        invalidation_target: 0.1,
        box_kind: Default::default(),
    };
    let config = MipConfig {
        robustness: Some(robustness),
        ..MipConfig::default()
    };
    let mut ex = explain(schema, model, raw, &config)?;
    ex.assess_plausibility(schema, ranges)?;
    match ex.counterfactuals.first() {
        Some(cf) => {
            let proof = if cf.status == Outcome::Optimal {
                ", proven optimal"
            } else {
                ""
            };
            println!(
                "  {}{proof}: {}  [cost {:.3}, declined after a slip {:.1}% of the time]",
                robustness.label(),
                cf.describe(),
                cf.cost,
                100.0 * cf.invalidation_rate.unwrap_or(f64::NAN)
            );
            warn(&cf.plausibility);
        }
        None => print!(
            "  {}: {}",
            robustness.label(),
            why_none(&ex.to_text(), "    ").trim_start()
        ),
    }
    Ok(())
}

/// Robustness (Guyomard et al. 2023): the applicant's own invalidation rate at σ² = 0.01
/// and the CROCO counterfactual that meets a target of 0.1, with its guarantee.
/// CROCO's bound (m + Θ̃)/(1 − t) is at least m/(1 − t), so a target of 0.1
/// needs m < 0.05: we use K = 10,000 draws and m = 0.02 (confidence 1 − e⁻⁸).
fn robust_advice(
    schema: &cfx::schema::Schema,
    model: &LinearModel,
    raw: &[f64],
    ranges: &Plausibility,
) -> Result<(), Box<dyn std::error::Error>> {
    let sigma2 = 0.01;
    let noise = NoiseModel::gaussian_for_schema(schema, sigma2)?;
    let x = schema.encode(raw)?;
    let mut ws = Workspace::new(model, 0);
    let rate = Estimator::new(noise.clone(), 10_000)?.invalidation_rate(model, &x, &mut ws)?;
    println!(
        "  as they stand, small slips (σ² = {sigma2}) would still be declined {:.1}% of the time",
        100.0 * rate.value
    );
    let cfg = CrocoConfig {
        k: 10_000,
        m: 0.02,
        robustness_target: 0.1,
        evaluation: Evaluation {
            samples: 10_000,
            margin: 0.02,
        },
        ..Default::default()
    };
    let mut c = croco(schema, model, &noise, raw, &cfg)?;
    c.assess_plausibility(schema, raw, ranges)?;
    let target = cfg.robustness_target;
    // A row today's model declines is not advice (`cfx::advice`).
    let checked = check_or_repair(schema, model, raw, &c.raw, Some(&MipConfig::default()))?;
    if checked.outcome != AdviceOutcome::Valid {
        println!(
            "  robust advice (CROCO, target 10%): {}",
            checked.describe()
        );
        if let Some(advice) = &checked.advice {
            warn(&ranges.assess(schema, raw, advice)?);
        }
        return Ok(());
    }
    if c.target_met {
        println!("  robust advice (CROCO, target 10%) — certified:");
    } else if c.valid && c.invalidation.value <= target {
        println!(
            "  robust advice (CROCO, target 10%) — met in simulation ({:.1}% declined); \
             CROCO's search ended without certifying it (its bound is below)",
            100.0 * c.invalidation.value
        );
    } else {
        println!("  robust advice (CROCO, target 10%) — target not reached, best effort:");
    }
    for ch in &c.changes {
        println!("    {ch}");
    }
    warn(&c.plausibility);
    println!("  {}", c.guarantee_in_words(sigma2));
    let limits = GuaranteeLimits::of_bound(&c.bound, model.threshold())?;
    println!("  {}", limits.in_words(c.bound.value, target));
    Ok(())
}

/// Why an explanation has no counterfactual: its text after the first line
/// (the "declined: probability …" the heading has said already), every line
/// indented by `by` so that it stays under its heading.
fn why_none(text: &str, by: &str) -> String {
    text.lines().skip(1).map(|l| format!("{by}{l}\n")).collect()
}
