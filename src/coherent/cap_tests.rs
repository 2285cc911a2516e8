//! The cap on features changed per piece of advice
//! (`Schema::max_features_changed`, issue 25) against two oracles on small
//! random instances: for linear models, brute force (`tests::brute_force`)
//! restricted to every subset of at most `cap` features (the others made
//! immutable), the least cost over those subsets being the capped optimum;
//! for tree ensembles, the uncapped HiGHS answer on the same restricted
//! schemas. The capped answer must cost exactly that, change at most `cap`
//! features, and cost nothing extra when the uncapped optimum is within it.

use super::random_instances::random_factual;
use super::tests::{brute_force, random_model, random_schema};
use super::*;
use rand::SeedableRng;
use rand_xoshiro::Xoshiro256PlusPlus;

/// `schema` with only the features of `keep` mutable.
fn restricted(schema: &Schema, keep: &[usize]) -> Schema {
    let mut f = schema.features.clone();
    for (i, x) in f.iter_mut().enumerate() {
        if !keep.contains(&i) {
            x.actionability.mutable = false;
        }
    }
    Schema::new_with_waiting(f, schema.waiting()).unwrap()
}

/// Every non-empty subset of `0..n` with at most `cap` members.
fn subsets(n: usize, cap: usize) -> Vec<Vec<usize>> {
    (1u32..(1 << n))
        .filter(|m| m.count_ones() as usize <= cap)
        .map(|m| (0..n).filter(|&i| m & (1 << i) != 0).collect())
        .collect()
}

fn least(costs: impl Iterator<Item = Option<f64>>) -> Option<f64> {
    costs.flatten().min_by(f64::total_cmp)
}

/// Checks a capped explanation against the oracle's least cost; returns
/// whether the uncapped optimum broke the cap (the capped MIP was needed).
fn check(
    capped: &Schema,
    cap: usize,
    model: &dyn Model,
    factual: &[f64],
    oracle: Option<f64>,
    config: &Config,
    case: usize,
) -> bool {
    let uncapped = Schema::new_with_waiting(capped.features.clone(), None).unwrap();
    let free = explain(&uncapped, model, factual, config).unwrap();
    let ex = explain(capped, model, factual, config).unwrap();
    let got = ex.counterfactuals.first();
    match (oracle, got) {
        (None, None) => {}
        (Some(c), Some(cf)) => {
            assert!(
                super::tests::same_cost(cf.cost, c),
                "case {case}, cap {cap}: cost {} vs oracle {c}",
                cf.cost
            );
            assert!(cf.changes.len() <= cap, "case {case}: {:?}", cf.changes);
            capped.check_advice(factual, &cf.raw, 0).unwrap();
            assert!(model.accepts(&capped.encode(&cf.raw).unwrap()));
        }
        (o, g) => panic!(
            "case {case}, cap {cap}: oracle {o:?}, engine {:?}",
            g.map(|c| c.cost)
        ),
    }
    let broke = free
        .counterfactuals
        .first()
        .is_some_and(|cf| cf.changes.len() > cap);
    if !broke && let (Some(a), Some(b)) = (free.counterfactuals.first(), got) {
        // Within the cap the uncapped optimum is the answer, from the same solver.
        assert_eq!(a.raw, b.raw, "case {case}");
        assert_eq!(free.proved_by, ex.proved_by, "case {case}");
    }
    if broke {
        assert_eq!(
            ex.proved_by,
            ProvedBy::Highs,
            "case {case}: the capped MIP says so"
        );
    }
    broke
}

#[test]
fn capped_linear_optimum_equals_brute_force_over_subsets() {
    for solver in [SolverChoice::Auto, SolverChoice::Mip] {
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(25);
        let config = Config {
            solver,
            ..Config::default()
        };
        let mut needed = 0;
        for case in 0..300 {
            let schema = random_schema(&mut rng);
            let factual = random_factual(&schema, &mut rng);
            let model = random_model(&schema, &factual, &mut rng);
            let n = schema.n_features();
            for cap in 1..n {
                let oracle = least(subsets(n, cap).iter().map(|s| {
                    brute_force(&restricted(&schema, s), &model, &factual, config.margin)
                }));
                let capped = schema.clone().with_max_features_changed(Some(cap)).unwrap();
                needed += usize::from(check(&capped, cap, &model, &factual, oracle, &config, case));
            }
        }
        assert!(
            needed >= 20,
            "{solver:?}: the cap bit in only {needed} cases"
        );
    }
}

#[test]
fn capped_tree_optimum_equals_the_uncapped_mip_over_subsets() {
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(2025);
    let mip = Config {
        solver: SolverChoice::Mip,
        ..Config::default()
    };
    let mut needed = 0;
    for case in 0..150 {
        let schema = super::random_trees::random_schema(&mut rng);
        let factual = random_factual(&schema, &mut rng);
        let ens = super::random_trees::random_ensemble(&schema, &factual, &mut rng);
        if ens.accepts(&schema.encode(&factual).unwrap()) {
            continue;
        }
        let n = schema.n_features();
        for cap in 1..n {
            let oracle = least(subsets(n, cap).iter().map(|s| {
                explain(&restricted(&schema, s), &ens, &factual, &mip)
                    .unwrap()
                    .counterfactuals
                    .first()
                    .map(|c| c.cost)
            }));
            let capped = schema.clone().with_max_features_changed(Some(cap)).unwrap();
            for config in [&mip, &Config::default()] {
                needed += usize::from(check(&capped, cap, &ens, &factual, oracle, config, case));
            }
        }
    }
    assert!(needed >= 10, "the cap bit in only {needed} cases");
}

#[test]
fn a_cap_of_zero_is_refused_and_the_cap_is_checked() {
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(7);
    let schema = random_schema(&mut rng);
    assert!(schema.clone().with_max_features_changed(Some(0)).is_err());
    let s = schema.with_max_features_changed(Some(1)).unwrap();
    assert!(s.to_json().contains("\"max_features_changed\": 1"));
    assert_eq!(Schema::from_json(&s.to_json()).unwrap(), s);
}
