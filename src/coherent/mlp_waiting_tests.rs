//! Waiting with a ReLU network (issue 39): [`explain_with_waiting`] takes the
//! outer loop over months for a network (its score is not a sum over
//! features, so the one MIP with the months as a variable does not apply),
//! each month's optimum proven by the network's MIP. The oracle enumerates
//! every advisable wait and, for each, every row the waited applicant could
//! move to ([`mlp_tests::brute_force`]: the schema's actionability, the
//! network's own forward pass with the margin, the least [`cost`]), and
//! takes the least `price·m + cost`. Nothing is shared with the engine but
//! the schema, the waited rows and the cost function.

use super::mlp_tests::{brute_force, random_grid_schema, random_network};
use super::random_instances::{random_factual, random_weights};
use super::waiting::explain_with_waiting;
use super::*;
use crate::model::MlpModel;
use crate::schema::{Feature, TimeGrowth, Waiting};
use rand::{Rng, SeedableRng};
use rand_xoshiro::Xoshiro256PlusPlus;

/// [`random_grid_schema`] with one integer feature that grows with time
/// (1 or 2 a month, capped at its upper bound or ending in a special state)
/// and a waiting action of 1–6 months at a random price.
fn random_time_schema(rng: &mut Xoshiro256PlusPlus) -> Schema {
    let mut feats = random_grid_schema(rng).features;
    let upper = rng.random_range(3.0..10.0f64).round();
    let mut f = Feature::contiguous("t", 0.0, upper).integer();
    let ends = rng.random_bool(0.4);
    if ends {
        f = f.with_special(-7.0, "aged off");
    }
    f = f.grows_with_time(TimeGrowth {
        per_month: [1.0, 2.0][rng.random_range(0..2)],
        ends_in: ends.then(|| "aged off".into()),
        ..Default::default()
    });
    random_weights(&mut f, rng);
    feats.push(f);
    Schema::new_with_waiting(
        feats,
        Some(Waiting {
            cost_per_month: rng.random_range(0.02..0.6),
            max_months: rng.random_range(1..=6),
        }),
    )
    .unwrap()
}

/// The least `price·m + cost` over every advisable wait `m` (0 when the
/// waited row is accepted as it stands) and its month.
fn oracle(schema: &Schema, m: &MlpModel, factual: &[f64]) -> Option<(f64, u32)> {
    let price = schema.waiting().unwrap().cost_per_month;
    let need = logit(m.threshold) + Config::default().margin;
    let mut best: Option<(f64, u32)> = None;
    for months in schema.advisable_waits(factual).unwrap() {
        let waited = schema.after_waiting(factual, months).unwrap();
        let inner = if m.score(&schema.encode(&waited).unwrap()) > logit(m.threshold) {
            Some(0.0)
        } else {
            brute_force(schema, m, &waited, need - logit(m.threshold), None, &[])
        };
        if let Some(c) = inner {
            let total = c + price * f64::from(months);
            if best.is_none_or(|(b, _)| total < b - 1e-12) {
                best = Some((total, months));
            }
        }
    }
    best
}

#[test]
fn mlp_waiting_advice_equals_brute_force_over_every_wait() {
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(3939);
    let (mut answered, mut waited) = (0, 0);
    for case in 0..120 {
        let schema = random_time_schema(&mut rng);
        let factual = random_factual(&schema, &mut rng);
        let gap = rng.random_range(0.05..3.0);
        let m = random_network(&schema, &factual, &mut rng, gap);
        let w = explain_with_waiting(&schema, &m, &factual, &Config::default()).unwrap();
        assert!(w.is_proven(), "case {case}: unproven {:?}", w.unproven);
        match (oracle(&schema, &m, &factual), w.advice) {
            (Some((best, _)), Some(a)) => {
                assert!(
                    (a.cost - best).abs() <= 1e-9 * a.cost.abs().max(best.abs()).max(1.0),
                    "case {case}: engine {} (wait {}) vs brute force {best}",
                    a.cost,
                    a.months
                );
                // The network's own forward pass accepts the advice, which
                // keeps every rule after the wait it names.
                let enc = schema.encode(&a.raw).unwrap();
                assert!(m.score(&enc) > logit(m.threshold), "case {case}: declined");
                schema.check_advice(&factual, &a.raw, a.months).unwrap();
                assert_eq!(a.waited, schema.after_waiting(&factual, a.months).unwrap());
                let moves = cost(&schema, &a.waited, &a.raw).unwrap();
                assert!((a.cost - a.wait_cost - moves).abs() < 1e-9, "case {case}");
                answered += 1;
                waited += usize::from(a.months > 0);
            }
            (None, None) => {}
            (o, a) => panic!(
                "case {case}: brute force {o:?} vs engine {:?}",
                a.map(|a| (a.cost, a.months))
            ),
        }
    }
    eprintln!("{answered} of 120 answered, {waited} by waiting");
    // Both kinds of advice occur: the comparison is not empty.
    assert!(answered >= 50, "{answered} answered");
    assert!(waited >= 5, "{waited} wait");
}
