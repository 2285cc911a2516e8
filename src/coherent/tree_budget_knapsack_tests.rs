//! The feature-budget bound's exact knapsack (`FeatureBudget::knapsack`)
//! against brute-force enumeration of every choice of one rise (or none) per
//! feature, and its Pareto merge against sorting and filtering the union.

use super::{FeatureBudget, pareto_merge};
use rand::{Rng, SeedableRng};
use rand_xoshiro::Xoshiro256PlusPlus;

/// The least `Σ extra` over one choice (or none) per feature with
/// `Σ gain ≥ want`, by enumerating every combination; infinite when none.
fn brute_force(groups: &[Vec<(f64, f64)>], want: f64) -> f64 {
    let mut best = f64::INFINITY;
    let mut pick = vec![0usize; groups.len()];
    loop {
        let (mut c, mut g) = (0.0, 0.0);
        for (f, &p) in pick.iter().enumerate() {
            if p > 0 {
                c += groups[f][p - 1].0;
                g += groups[f][p - 1].1;
            }
        }
        if g >= want {
            best = best.min(c);
        }
        // The next combination (each feature: none, or one of its rises).
        let mut f = 0;
        loop {
            if f == groups.len() {
                return best;
            }
            pick[f] += 1;
            if pick[f] <= groups[f].len() {
                break;
            }
            pick[f] = 0;
            f += 1;
        }
    }
}

/// A random knapsack instance: a number of features drawn from `features`,
/// each with 1–5 rises whose extras and gains both rise, as `G_f`'s do.
fn random_groups(
    rng: &mut Xoshiro256PlusPlus,
    features: std::ops::RangeInclusive<usize>,
) -> Vec<Vec<(f64, f64)>> {
    let n = rng.random_range(features);
    (0..n)
        .map(|_| {
            let k = rng.random_range(1..=5);
            let (mut e, mut g) = (0.0, 0.0);
            (0..k)
                .map(|_| {
                    e += rng.random_range(0.01..1.0);
                    g += rng.random_range(0.01..1.0);
                    (e, g)
                })
                .collect()
        })
        .collect()
}

/// Puts `groups`' rises into the budget's choices (feature, extra, gain).
fn load_choices(fb: &mut FeatureBudget, groups: &[Vec<(f64, f64)>]) {
    fb.choices.clear();
    for (f, rises) in groups.iter().enumerate() {
        for &(e, g) in rises {
            fb.choices.push((f as u32, e, g));
        }
    }
}

#[test]
fn knapsack_equals_brute_force_on_random_instances() {
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(43);
    let (mut found, mut refused, mut capped) = (0, 0, 0);
    for _ in 0..3000 {
        let groups = random_groups(&mut rng, 1..=5);
        let total: f64 = groups.iter().map(|r| r.last().unwrap().1).sum();
        let want = rng.random_range(0.05..1.0) * total;
        let cap = if rng.random_bool(0.3) {
            rng.random_range(0.1..3.0)
        } else {
            f64::INFINITY
        };
        let lp = if rng.random_bool(0.2) {
            rng.random_range(0.0..1.0)
        } else {
            0.0
        };
        let mut fb = FeatureBudget::default();
        load_choices(&mut fb, &groups);
        let exact = brute_force(&groups, want);
        let got = fb.knapsack(want, cap, lp);
        if exact < cap {
            found += 1;
            let x = got.expect("the knapsack refused an instance with an answer below its cap");
            let expect = exact.max(lp);
            assert!(
                (x - expect).abs() <= 1e-9 * expect.max(1.0),
                "knapsack {x}, brute force {exact} (lp {lp})"
            );
        } else {
            refused += 1;
            if exact.is_finite() {
                capped += 1;
            }
            assert_eq!(got, None, "brute force {exact} is not below the cap {cap}");
        }
    }
    assert!(found > 1000 && refused > 100 && capped > 50);
}

/// The completion bound (a state short of the need by `r` costs at least
/// `r / s` more, `s` the later groups' steepest gain per extra) drops
/// states only when they cannot beat the best answer so far: on instances
/// with more features, whose caps sit just above the optimum (as in the
/// search's hardest nodes, where the knapsack decides the pruning), the
/// knapsack still equals brute force, and the bound did drop states (its
/// count, kept for this test, is positive).
#[test]
fn knapsack_completion_bound_keeps_the_optimum_near_the_cap() {
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(2026);
    let (mut found, mut refused) = (0, 0);
    let mut fb = FeatureBudget::default();
    for _ in 0..400 {
        let groups = random_groups(&mut rng, 4..=7);
        let total: f64 = groups.iter().map(|r| r.last().unwrap().1).sum();
        let want = rng.random_range(0.2..0.9) * total;
        let exact = brute_force(&groups, want);
        // A cap a little above the optimum, or a little below it.
        let cap = exact * rng.random_range(0.97..1.05);
        load_choices(&mut fb, &groups);
        let got = fb.knapsack(want, cap, 0.0);
        if exact < cap {
            found += 1;
            let x = got.expect("the knapsack refused an instance with an answer below its cap");
            assert!(
                (x - exact).abs() <= 1e-9 * exact.max(1.0),
                "knapsack {x}, brute force {exact}"
            );
        } else {
            refused += 1;
            assert_eq!(got, None, "brute force {exact} is not below the cap {cap}");
        }
    }
    assert!(
        found > 100 && refused > 50,
        "found {found}, refused {refused}"
    );
    assert!(
        fb.hopeless_count > 0,
        "the completion bound never dropped a state"
    );
}

#[test]
fn pareto_merge_equals_sorting_the_union() {
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(7);
    let mut out = Vec::new();
    for _ in 0..2000 {
        // Lists sorted by extra with gains not falling, ties included (small
        // integers), as the knapsack's lists are.
        let list = |rng: &mut Xoshiro256PlusPlus| -> Vec<(f64, f64)> {
            let (mut c, mut g) = (0.0, 0.0);
            (0..rng.random_range(0..8))
                .map(|_| {
                    c += rng.random_range(0..3) as f64;
                    g += rng.random_range(0..3) as f64;
                    (c, g)
                })
                .collect()
        };
        let (a, b) = (list(&mut rng), list(&mut rng));
        pareto_merge(&a, &b, &mut out);
        // The knapsack's former way: sort by extra, gain falling; keep each
        // state whose gain tops the ones before it.
        let mut all: Vec<(f64, f64)> = a.iter().chain(&b).copied().collect();
        all.sort_by(|x, y| x.0.total_cmp(&y.0).then(y.1.total_cmp(&x.1)));
        let mut expect = Vec::new();
        let mut top = f64::NEG_INFINITY;
        for (c, g) in all {
            if g > top {
                top = g;
                expect.push((c, g));
            }
        }
        assert_eq!(out, expect, "a {a:?}, b {b:?}");
    }
}
