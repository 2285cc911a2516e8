//! COPA on German credit (Bui, Nguyen & Nguyen 2022): plans of J = 5 options for declined
//! applicants, with and without the corrections, judged by how many *future*
//! models still accept every option.
//!
//! * Today's uncertainty (μ̂, Σ̂): an ensemble of logistic models refitted on random
//!   halves of the training split (70 %), Σ̂ scaled by 1.5 (the paper's recipe).
//! * Tomorrow's models: logistic models refitted on bootstrap resamples of all
//!   1000 applicants (the lender retrains with the held-out 30 % now in its data).
//! * Plans: "MIP diverse" = the coherent MIP's optimal counterfactual and its
//!   diverse alternatives for the mean model (`cfx::coherent::explain_diverse`,
//!   Russell's rule, up to J = 5); "no validity" = COPA's objective without the
//!   validity term (a DiCE-like proximity + diversity plan, valid for the mean
//!   model: μ̂ᵀx̃ ≥ 0.001); "COPA" = the full objective (6); "+corr" = each after
//!   the Requirement projection and the Mahalanobis improvement (K = 3, Δ = 0.1,
//!   ρ = 0.01, the paper's defaults); L* and U* in the table are at ρ = 0.
//!   COPA and the corrections move only contiguous mutable features, so every
//!   option is a real applicant (see `cfx::plan::copa_box`); a MIP option is
//!   corrected within the box of its own raw row and decoded on its own.
//!
//! The last column is the share of options with a changed value outside the
//! 1–99% range of the training data's accepted applicants (`cfx::plausibility`).
//!
//! Run: `cargo run --release --example plans_under_shift [refits] [applicants] [future]`
//! (defaults 1000, 10, 200).

use cfx::coherent::{Config as MipConfig, explain_diverse};
use cfx::data::{bundled_german_path, german_credit};
use cfx::model::{LinearModel, LogisticFit};
use cfx::plan::{
    BoundsMeaning, CopaConfig, CorrectionConfig, EnsembleConfig, ModelUncertainty, copa_box,
    copa_plan, correct_plan, correct_plan_in_box, decode_options, lower_validity_bound,
    plan_metrics, theta_of, upper_validity_bound, with_intercept,
};
use cfx::plausibility::Plausibility;
use rand::{Rng, SeedableRng};
use rand_xoshiro::Xoshiro256PlusPlus;
use std::time::Instant;

fn main() -> cfx::Result<()> {
    let args: Vec<usize> = std::env::args()
        .skip(1)
        .filter_map(|a| a.parse().ok())
        .collect();
    let refits = args.first().copied().unwrap_or(1000);
    let n_app = args.get(1).copied().unwrap_or(10);
    let n_future = args.get(2).copied().unwrap_or(200);

    let data = german_credit(&bundled_german_path())?;
    let schema = data.schema.clone();
    let (train, test) = data.holdout_split();
    let t0 = Instant::now();
    let unc = ModelUncertainty::from_ensemble(
        &train.encoded(),
        &train.labels,
        EnsembleConfig {
            refits,
            seed: 1,
            ..EnsembleConfig::default()
        },
    )?;
    println!(
        "German credit: {} applicants, θ dimension {}; (μ̂, Σ̂) from {refits} refits on random halves in {:.1} s",
        data.rows.len(),
        unc.dim(),
        t0.elapsed().as_secs_f64()
    );

    // tomorrow's models
    let all_x = data.encoded();
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(7);
    let n = all_x.len();
    let futures: Vec<Vec<f64>> = (0..n_future)
        .map(|_| {
            let idx: Vec<usize> = (0..n).map(|_| rng.random_range(0..n)).collect();
            let xs: Vec<Vec<f64>> = idx.iter().map(|&i| all_x[i].clone()).collect();
            let ys: Vec<f64> = idx.iter().map(|&i| data.labels[i]).collect();
            theta_of(&LinearModel::fit(&xs, &ys, LogisticFit::default()).expect("fit"))
        })
        .collect();
    let future_validity = |enc: &[Vec<f64>]| {
        let ok = futures
            .iter()
            .filter(|th| {
                enc.iter().all(|x| {
                    with_intercept(x)
                        .iter()
                        .zip(th.iter())
                        .map(|(a, b)| a * b)
                        .sum::<f64>()
                        > 0.0
                })
            })
            .count();
        ok as f64 / futures.len() as f64
    };

    // declined applicants of the test split (by the mean model)
    let declined: Vec<usize> = (0..test.rows.len())
        .filter(|&i| {
            let x = with_intercept(&schema.encode(&test.rows[i]).unwrap());
            x.iter().zip(&unc.mean).map(|(a, b)| a * b).sum::<f64>() < 0.0
        })
        .take(n_app)
        .collect();

    let names = [
        "no validity",
        "no validity+corr",
        "COPA",
        "COPA+corr",
        "MIP diverse",
        "MIP diverse+corr",
    ];
    let mut sums = [[0.0f64; 6]; 6]; // proximity, diversity, L*, U*, future validity, seconds
    let mut mip_options = 0usize;
    // per plan row: (implausible options, options)
    let ranges = Plausibility::fit(&schema, &train.rows, &train.labels)?;
    let mut odd = [(0usize, 0usize); 6];
    let mut tally = |row: usize, raw: &[f64], options: &[Vec<f64>]| -> cfx::Result<()> {
        for o in options {
            odd[row].0 += usize::from(ranges.any_implausible(&schema, raw, o)?);
            odd[row].1 += 1;
        }
        Ok(())
    };
    // the mean model as a classifier: accept iff μ̂ᵀx̃ > 0 (threshold ½ on the logistic)
    let mean_model = LinearModel::new(unc.mean[1..].to_vec(), unc.mean[0], 0.5)?;
    // the paper's correction settings: K = 3, Δ = 0.1, the L* that picks the
    // options over the Gelbrich ball of radius ρ = 0.01
    let corr = CorrectionConfig::default();
    for (a, &i) in declined.iter().enumerate() {
        let raw = &test.rows[i];
        let x0 = schema.encode(raw)?;
        let bx = copa_box(&schema, raw)?;
        for (m, cfg) in [
            CopaConfig {
                validity_weight: 0.0,
                epsilon: 1e-3,
                seed: a as u64,
                ..CopaConfig::default()
            },
            CopaConfig {
                seed: a as u64,
                ..CopaConfig::default()
            },
        ]
        .into_iter()
        .enumerate()
        {
            let t = Instant::now();
            let p = copa_plan(&schema, &unc, raw, cfg)?;
            let secs = t.elapsed().as_secs_f64();
            tally(2 * m, raw, &p.raw)?;
            let row = &mut sums[2 * m];
            row[0] += p.proximity;
            row[1] += p.diversity;
            row[2] += p.lower.value;
            row[3] += p.upper.value;
            row[4] += future_validity(&p.encoded);
            row[5] += secs;
            if a == 0 && m == 1 {
                println!("\nFirst declined applicant, COPA plan:");
                for (k, r) in p.raw.iter().enumerate() {
                    let ch: Vec<String> = schema
                        .describe_changes(raw, r)
                        .iter()
                        .map(|c| format!("{}: {} → {}", c.name, c.from_text, c.to_text))
                        .collect();
                    println!("  option {}: {}", k + 1, ch.join(", "));
                }
                println!(
                    "  between {:.0}% and {:.0}% of plausible future models (same mean and covariance) accept every option",
                    100.0 * p.lower.value,
                    100.0 * p.upper.value
                );
                let reading = p.read_bounds(&unc, cfg.rho)?;
                if reading.meaning != BoundsMeaning::Informative {
                    println!("  {}", reading.in_words());
                }
            }
            // the correction, then snapped back onto real applicants
            let t = Instant::now();
            let plan: Vec<Vec<f64>> = p.encoded.iter().map(|x| with_intercept(x)).collect();
            let c = correct_plan_in_box(&plan, &unc, corr, &bx)?;
            let enc: Vec<Vec<f64>> = c
                .plan
                .iter()
                .map(|x| x[1..].iter().map(|v| v.clamp(0.0, 1.0)).collect())
                .collect();
            let (raws_c, enc) = decode_options(&schema, &unc, raw, &enc)?;
            tally(2 * m + 1, raw, &raws_c)?;
            add_plan(
                &mut sums[2 * m + 1],
                &x0,
                &enc,
                &unc,
                &future_validity,
                || secs + t.elapsed().as_secs_f64(),
            )?;
        }

        // (b) the coherent MIP's diverse set for the mean model
        let t = Instant::now();
        let ex = explain_diverse(&schema, &mean_model, raw, &MipConfig::default())?;
        let secs = t.elapsed().as_secs_f64();
        let raws: Vec<Vec<f64>> = ex.counterfactuals.iter().map(|c| c.raw.clone()).collect();
        let enc: Vec<Vec<f64>> = raws
            .iter()
            .map(|r| schema.encode(r))
            .collect::<cfx::Result<_>>()?;
        if enc.is_empty() {
            continue;
        }
        mip_options += enc.len();
        tally(4, raw, &raws)?;
        add_plan(&mut sums[4], &x0, &enc, &unc, &future_validity, || secs)?;
        let planm: Vec<Vec<f64>> = enc.iter().map(|x| with_intercept(x)).collect();
        // corrected: the columns free in some option's box move; each option is
        // then clamped to its own box and decoded from its own raw row
        let t = Instant::now();
        let boxes: Vec<_> = raws
            .iter()
            .map(|r| copa_box(&schema, r))
            .collect::<cfx::Result<_>>()?;
        let mut free = vec![false; unc.dim()];
        for b in &boxes {
            for (i, (lo, hi)) in b.lo.iter().zip(&b.hi).enumerate() {
                free[i + 1] |= lo < hi;
            }
        }
        let c = correct_plan(&planm, &unc, corr, Some(&free))?;
        let mut encc = Vec::with_capacity(enc.len());
        for (k, x) in c.plan.iter().enumerate() {
            let b = &boxes[k];
            let e: Vec<f64> = x[1..]
                .iter()
                .enumerate()
                .map(|(i, v)| v.clamp(b.lo[i], b.hi[i]))
                .collect();
            let (dec_raw, mut dec) = decode_options(&schema, &unc, &raws[k], &[e])?;
            tally(5, raw, &dec_raw)?;
            encc.push(dec.remove(0));
        }
        add_plan(&mut sums[5], &x0, &encc, &unc, &future_validity, || {
            secs + t.elapsed().as_secs_f64()
        })?;
    }
    let k = declined.len() as f64;
    println!(
        "\n{} declined applicants, J = 5, {} future models; means over applicants (L*, U* at ρ = 0):",
        declined.len(),
        futures.len()
    );
    println!(
        "{:<18} {:>10} {:>10} {:>8} {:>8} {:>16} {:>10} {:>12}",
        "plan", "proximity", "diversity", "L*", "U*", "future validity", "s/plan", "implausible"
    );
    println!(
        "(the MIP's diverse sets have {:.1} options on average)",
        mip_options as f64 / k
    );
    for ((name, r), (bad, all)) in names.iter().zip(&sums).zip(odd) {
        println!(
            "{:<18} {:>10.3} {:>10.4} {:>8.3} {:>8.3} {:>16.3} {:>10.3} {:>7.0}% of {all}",
            name,
            r[0] / k,
            r[1] / k,
            r[2] / k,
            r[3] / k,
            r[4] / k,
            r[5] / k,
            100.0 * bad as f64 / all.max(1) as f64
        );
    }
    Ok(())
}

/// One plan's entries in the table — proximity, diversity, L* and U* (ρ = 0),
/// future validity, seconds — added to the sums of its row. `seconds` is read
/// last, so that a running timer includes the bounds.
fn add_plan(
    row: &mut [f64; 6],
    x0: &[f64],
    enc: &[Vec<f64>],
    unc: &ModelUncertainty,
    future_validity: &dyn Fn(&[Vec<f64>]) -> f64,
    seconds: impl FnOnce() -> f64,
) -> cfx::Result<()> {
    let plan: Vec<Vec<f64>> = enc.iter().map(|x| with_intercept(x)).collect();
    let l = lower_validity_bound(&plan, unc, 0.0)?;
    let u = upper_validity_bound(&plan, unc, 0.0)?;
    let (prox, div, _) = plan_metrics(x0, enc, unc)?;
    let fv = future_validity(enc);
    let values = [prox, div, l.value, u.value, fv, seconds()];
    for (sum, v) in row.iter_mut().zip(values) {
        *sum += v;
    }
    Ok(())
}
