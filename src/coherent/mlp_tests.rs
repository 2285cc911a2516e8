//! The ReLU-network MIP (`mlp.rs`) against brute force: small random mixed
//! schemas whose every contiguous feature lies on a grid (integers, steps of
//! 2), with categoricals, special states, actionable bounds, directions,
//! immutables and forbidden transitions, and small random ReLU networks (1–2
//! hidden layers of 2–6 units, seeded). The oracle enumerates every row the
//! applicant could move to, keeps those [`Schema::check_actionable`] admits and
//! the network's own forward pass ([`MlpModel`]'s score) accepts with the
//! margin, and takes the least [`cost`]. It shares nothing with the MIP but
//! the schema and the cost function.

use super::infeasible::relaxed;
use super::random_instances::{random_direction_and_forbidden, random_factual, random_weights};
use super::*;
use crate::model::MlpModel;
use crate::nn::{Activation, Dense, Network};
use crate::schema::{Feature, FeatureKind};
use rand::{Rng, SeedableRng};
use rand_xoshiro::Xoshiro256PlusPlus;

/// A random schema of 2–4 grid features: integer (sometimes on a step of 2)
/// or categorical, with up to two special states, sometimes actionable
/// bounds, an immutable flag, a direction and a forbidden transition.
pub(crate) fn random_grid_schema(rng: &mut Xoshiro256PlusPlus) -> Schema {
    let n = rng.random_range(2..=4);
    let mut feats = Vec::new();
    for i in 0..n {
        let name = format!("f{i}");
        let mut f = if rng.random_bool(0.65) {
            let lo = rng.random_range(-2..4) as f64;
            let width = rng.random_range(1..7) as f64;
            let mut f = Feature::contiguous(&name, lo, lo + width).integer();
            if rng.random_bool(0.25) {
                if let FeatureKind::Contiguous { step, upper, .. } = &mut f.kind {
                    *step = Some(2.0);
                    *upper = lo + 2.0 * rng.random_range(1..4) as f64;
                }
            }
            for j in 0..rng.random_range(0..=2) {
                f = f.with_special(lo - 1.0 - j as f64, &format!("special{j}"));
            }
            if rng.random_bool(0.25) {
                if let FeatureKind::Contiguous {
                    lower, upper, step, ..
                } = &f.kind
                {
                    let g = step.unwrap_or(1.0);
                    let span = ((upper - lower) / g).floor();
                    let a = lower + rng.random_range(0.0..=span / 2.0).floor() * g;
                    let b = a + rng.random_range(0.0..=(upper - a) / g).floor() * g;
                    f.actionability.lower = Some(a);
                    f.actionability.upper = Some(b.min(*upper));
                }
            }
            f
        } else {
            let k = rng.random_range(2..=3);
            let levels: Vec<String> = (0..k).map(|j| format!("l{j}")).collect();
            let refs: Vec<&str> = levels.iter().map(|s| s.as_str()).collect();
            Feature::categorical(&name, &refs)
        };
        if rng.random_bool(0.1) {
            f = f.immutable();
        }
        random_direction_and_forbidden(&mut f, rng, 0.25, true);
        random_weights(&mut f, rng);
        feats.push(f);
    }
    Schema::new(feats).unwrap()
}

/// A random ReLU network over `schema`'s encoding (1–2 hidden layers of 2–6
/// units, weights and biases uniform), its output bias set so that `factual`
/// scores `gap` below the threshold's log-odds (0 at threshold 0.5).
pub(crate) fn random_network(
    schema: &Schema,
    factual: &[f64],
    rng: &mut Xoshiro256PlusPlus,
    gap: f64,
) -> MlpModel {
    let d = schema.encoded_dim();
    let depth = rng.random_range(1..=2);
    let mut sizes = vec![d];
    sizes.extend((0..depth).map(|_| rng.random_range(2..=6)));
    sizes.push(1);
    let layers = sizes
        .windows(2)
        .enumerate()
        .map(|(k, w)| Dense {
            n_in: w[0],
            n_out: w[1],
            weights: (0..w[0] * w[1])
                .map(|_| rng.random_range(-2.0..2.0))
                .collect(),
            bias: (0..w[1]).map(|_| rng.random_range(-1.0..1.0)).collect(),
            activation: if k + 2 == sizes.len() {
                Activation::Identity
            } else {
                Activation::Relu
            },
        })
        .collect();
    let mut m = MlpModel::new(Network { layers }, 0.5).unwrap();
    let s = m.score(&schema.encode(factual).unwrap());
    m.network.layers.last_mut().unwrap().bias[0] -= s + gap;
    m
}

/// Every value feature `i` may take in the oracle: the factual's, the
/// special states', every grid point, every level.
fn candidates(schema: &Schema, factual: &[f64], i: usize) -> Vec<f64> {
    let mut out = vec![factual[i]];
    match &schema.features[i].kind {
        FeatureKind::Categorical { levels } => out.extend((0..levels.len()).map(|k| k as f64)),
        FeatureKind::Contiguous {
            lower,
            upper,
            step,
            special_states,
            ..
        } => {
            out.extend(special_states.iter().map(|s| s.code));
            let g = step.unwrap_or(1.0);
            let mut v = *lower;
            while v <= upper + 1e-9 {
                out.push(v);
                v += g;
            }
        }
    }
    out
}

/// The oracle: the least cost over every admissible row the network accepts
/// with `margin`, changing at most `cap` features and leaving at least one
/// feature of each cut unchanged.
pub(crate) fn brute_force(
    schema: &Schema,
    m: &MlpModel,
    factual: &[f64],
    margin: f64,
    cap: Option<usize>,
    cuts: &[Vec<usize>],
) -> Option<f64> {
    let n = schema.n_features();
    let cands: Vec<Vec<f64>> = (0..n).map(|i| candidates(schema, factual, i)).collect();
    let need = logit(m.threshold) + margin;
    let mut best: Option<f64> = None;
    let mut idx = vec![0usize; n];
    let mut row = factual.to_vec();
    loop {
        for i in 0..n {
            row[i] = cands[i][idx[i]];
        }
        let changed = (0..n).filter(|&i| row[i] != factual[i]).count();
        let meets = cuts
            .iter()
            .all(|cut| cut.iter().any(|&i| row[i] == factual[i]));
        if meets
            && cap.is_none_or(|c| changed <= c)
            && schema.check_actionable(factual, &row).is_ok()
            && m.score(&schema.encode(&row).unwrap()) >= need
        {
            let c = cost(schema, factual, &row).unwrap();
            if best.is_none_or(|b| c < b) {
                best = Some(c);
            }
        }
        let mut k = 0;
        loop {
            if k == n {
                return best;
            }
            idx[k] += 1;
            if idx[k] < cands[k].len() {
                break;
            }
            idx[k] = 0;
            k += 1;
        }
    }
}

/// The answer is coherent, actionable, costs what it says, and the network's
/// own forward pass accepts it.
fn check_counterfactual(schema: &Schema, m: &MlpModel, factual: &[f64], cf: &Counterfactual) {
    let enc = schema.encode(&cf.raw).unwrap();
    assert_eq!(schema.decode(&enc).unwrap(), cf.raw, "decodes coherently");
    assert!(
        m.accepts(&enc),
        "the network accepts it: p = {}",
        m.probability(&enc)
    );
    assert!(m.score(&enc) > logit(m.threshold));
    assert_eq!(cf.score, m.score(&enc));
    schema.check_actionable(factual, &cf.raw).unwrap();
    let c = cost(schema, factual, &cf.raw).unwrap();
    assert!((c - cf.cost).abs() < 1e-9);
    assert!(
        (cf.objective - c).abs() < 1e-6,
        "objective {} vs cost {c}",
        cf.objective
    );
}

/// Equal within 1e-9 relative.
fn same_cost(a: f64, b: f64) -> bool {
    (a - b).abs() <= 1e-9 * a.abs().max(b.abs()).max(1.0)
}

/// A random instance: schema, factual row, network (the factual declined).
fn random_case(rng: &mut Xoshiro256PlusPlus) -> (Schema, Vec<f64>, MlpModel) {
    let schema = random_grid_schema(rng);
    let factual = random_factual(&schema, rng);
    let gap = rng.random_range(0.05..3.0);
    let m = random_network(&schema, &factual, rng, gap);
    (schema, factual, m)
}

#[test]
fn mlp_mip_equals_brute_force_on_random_small_networks() {
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(39);
    let (mut feasible, mut infeasible, mut unstable) = (0, 0, 0);
    for case in 0..400 {
        let (schema, factual, m) = random_case(&mut rng);
        let oracle = brute_force(&schema, &m, &factual, Config::default().margin, None, &[]);
        for tighten in [true, false] {
            let config = Config {
                mlp_bound_tightening: tighten,
                ..Config::default()
            };
            let ex = explain(&schema, &m, &factual, &config).unwrap();
            assert_eq!(ex.proved_by, ProvedBy::Highs);
            match (oracle, ex.counterfactuals.first()) {
                (Some(best), Some(cf)) => {
                    assert_eq!(ex.outcome, Outcome::Optimal);
                    check_counterfactual(&schema, &m, &factual, cf);
                    assert!(
                        same_cost(cf.cost, best),
                        "case {case} (tighten {tighten}): {} vs brute force {best}\n{:?}\n{factual:?}\n{m:?}",
                        cf.cost,
                        schema.features
                    );
                }
                (None, None) => {
                    assert!(
                        matches!(ex.outcome, Outcome::Infeasible { .. }),
                        "case {case}: {:?}",
                        ex.outcome
                    );
                }
                (o, cf) => panic!(
                    "case {case} (tighten {tighten}): oracle {o:?} vs MIP {:?} ({:?})",
                    cf.map(|c| c.cost),
                    ex.outcome
                ),
            }
        }
        if oracle.is_some() {
            feasible += 1;
        } else {
            infeasible += 1;
        }
        let tight = mlp::Tightening {
            tighten: true,
            time_limit: 10.0,
            incumbent_cap: false,
            cost_bounds: false,
        };
        let (_, built) = mlp::build_counted(&schema, &m, &factual, 1e-6, tight).unwrap();
        unstable += built.counts.unstable;
    }
    eprintln!("MLP MIP vs brute force: {feasible} feasible, {infeasible} infeasible");
    assert!(
        feasible >= 200 && infeasible >= 10,
        "{feasible} / {infeasible}"
    );
    assert!(
        unstable >= 400,
        "the instances exercise unstable units: {unstable}"
    );
}

/// The tightened bounds (per feature, then OBBT) never leave more unstable
/// units than plain interval arithmetic, and fix some it leaves open. (That
/// both are valid is checked by the optima equalling brute force above.)
#[test]
fn bound_tightening_never_adds_binaries() {
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(3939);
    let mut fewer = 0;
    for _ in 0..200 {
        let (schema, factual, m) = random_case(&mut rng);
        let count = |tighten| {
            let t = mlp::Tightening {
                tighten,
                time_limit: 10.0,
                incumbent_cap: false,
                cost_bounds: false,
            };
            mlp::build_counted(&schema, &m, &factual, 1e-6, t)
                .unwrap()
                .1
                .counts
        };
        let (on, off) = (count(true), count(false));
        assert!(on.unstable <= off.unstable, "{on:?} vs {off:?}");
        fewer += usize::from(on.unstable < off.unstable);
    }
    assert!(
        fewer > 0,
        "tightening fixes some unit interval arithmetic leaves open"
    );
}

#[test]
fn mlp_honours_the_cap_on_features_changed() {
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(77);
    let mut capped_needed = 0;
    for case in 0..300 {
        let schema = random_grid_schema(&mut rng);
        let factual = random_factual(&schema, &mut rng);
        // Far from the threshold, so that the optimum often moves several features.
        let gap = rng.random_range(1.0..4.0);
        let m = random_network(&schema, &factual, &mut rng, gap);
        let cap = 1;
        let capped = schema.clone().with_max_features_changed(Some(cap)).unwrap();
        let oracle = brute_force(&schema, &m, &factual, 1e-6, Some(cap), &[]);
        let free = brute_force(&schema, &m, &factual, 1e-6, None, &[]);
        let ex = explain(&capped, &m, &factual, &Config::default()).unwrap();
        match (oracle, ex.counterfactuals.first()) {
            (Some(best), Some(cf)) => {
                check_counterfactual(&capped, &m, &factual, cf);
                assert!(cf.changes.len() <= cap);
                assert!(
                    same_cost(cf.cost, best),
                    "case {case}: {} vs {best}",
                    cf.cost
                );
                capped_needed += usize::from(free.is_some_and(|f| f < best - 1e-9));
            }
            (None, None) => {}
            (o, cf) => panic!("case {case}: oracle {o:?} vs {:?}", cf.map(|c| c.cost)),
        }
    }
    assert!(capped_needed > 0, "the cap binds in {capped_needed} cases");
}

#[test]
fn mlp_distinct_subsets_equal_brute_force_round_by_round() {
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(11);
    let config = Config {
        diversity: DiversityRule::DistinctSubsets,
        n_diverse: 3,
        ..Config::default()
    };
    let mut rounds = 0;
    for case in 0..150 {
        let (schema, factual, m) = random_case(&mut rng);
        let ex = explain_diverse(&schema, &m, &factual, &config).unwrap();
        let mut cuts: Vec<Vec<usize>> = Vec::new();
        for (k, cf) in ex.counterfactuals.iter().enumerate() {
            check_counterfactual(&schema, &m, &factual, cf);
            let best = brute_force(&schema, &m, &factual, config.margin, None, &cuts)
                .unwrap_or_else(|| panic!("case {case} round {k}: brute force finds nothing"));
            assert!(
                same_cost(cf.cost, best),
                "case {case} round {k}: {} vs {best}",
                cf.cost
            );
            cuts.push(
                (0..schema.n_features())
                    .filter(|&i| cf.raw[i] != factual[i])
                    .collect(),
            );
            rounds += 1;
        }
        if ex.counterfactuals.len() < config.n_diverse {
            assert!(
                brute_force(&schema, &m, &factual, config.margin, None, &cuts).is_none(),
                "case {case}: stopped early"
            );
        }
    }
    assert!(rounds > 100, "{rounds}");
}

#[test]
fn mlp_russell_sets_are_accepted_distinct_and_start_at_the_optimum() {
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(12);
    let mut alternatives = 0;
    for _ in 0..80 {
        let (schema, factual, m) = random_case(&mut rng);
        let ex = explain_diverse(&schema, &m, &factual, &Config::default()).unwrap();
        let one = explain(&schema, &m, &factual, &Config::default()).unwrap();
        assert_eq!(
            ex.counterfactuals.first().map(|c| c.cost),
            one.counterfactuals.first().map(|c| c.cost)
        );
        for (k, cf) in ex.counterfactuals.iter().enumerate() {
            check_counterfactual(&schema, &m, &factual, cf);
            assert!(cf.cost >= ex.counterfactuals[0].cost - 1e-9);
            for other in &ex.counterfactuals[..k] {
                assert_ne!(other.raw, cf.raw);
            }
        }
        alternatives += ex.counterfactuals.len().saturating_sub(1);
    }
    assert!(alternatives > 30, "{alternatives}");
}

/// An infeasible applicant's blocking groups: brute force finds no row
/// under the schema and finds one once a blocking set is relaxed.
#[test]
fn mlp_infeasibility_reasons_agree_with_brute_force() {
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(13);
    let mut with_reasons = 0;
    let mut infeasible = 0;
    for case in 0..300 {
        let (schema, factual, m) = random_case(&mut rng);
        let ex = explain(&schema, &m, &factual, &Config::default()).unwrap();
        let Outcome::Infeasible {
            blocking,
            undecided,
        } = &ex.outcome
        else {
            continue;
        };
        infeasible += 1;
        assert!(undecided.is_empty());
        let bf = brute_force(&schema, &m, &factual, 1e-6, None, &[]);
        assert!(
            bf.is_none(),
            "case {case}: brute force {bf:?}\n{:?}\n{factual:?}\n{m:?}",
            schema.features
        );
        for groups in blocking {
            let r = relaxed(&schema, groups).unwrap();
            assert!(
                brute_force(&r, &m, &factual, 1e-6, None, &[]).is_some(),
                "case {case}: relaxing {groups:?} does not restore recourse"
            );
            with_reasons += 1;
        }
    }
    assert!(
        infeasible >= 10 && with_reasons >= 5,
        "{infeasible} / {with_reasons}"
    );
}

#[test]
fn a_time_limit_on_an_mlp_is_never_called_optimal() {
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(14);
    let (schema, factual, m) = loop {
        let c = random_case(&mut rng);
        if brute_force(&c.0, &c.2, &c.1, 1e-6, None, &[]).is_some() {
            break c;
        }
    };
    tests::force(vec![Some(tests::Forced::Incumbent(MipStatus::TimeLimit))]);
    let ex = explain(&schema, &m, &factual, &Config::default()).unwrap();
    tests::force(Vec::new());
    assert_eq!(ex.outcome, Outcome::TimeLimit { has_solution: true });
    assert_eq!(ex.proved_by, ProvedBy::Highs);
    let cf = &ex.counterfactuals[0];
    assert_eq!(cf.status, Outcome::TimeLimit { has_solution: true });
    check_counterfactual(&schema, &m, &factual, cf);
}

#[test]
fn tanh_and_sigmoid_networks_are_refused_with_a_reason() {
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(15);
    let (schema, factual, mut m) = random_case(&mut rng);
    for a in [Activation::Tanh, Activation::Sigmoid] {
        m.network.layers[0].activation = a;
        let err = explain(&schema, &m, &factual, &Config::default()).unwrap_err();
        let msg = err.to_string();
        assert!(msg.contains("ReLU networks only"), "{msg}");
        assert!(matches!(err, Error::InvalidArgument(_)));
    }
}

#[test]
fn the_separable_and_tree_solvers_refuse_a_network() {
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(16);
    let (schema, factual, m) = random_case(&mut rng);
    for solver in [SolverChoice::Separable, SolverChoice::TreeSearch] {
        let config = Config {
            solver,
            ..Config::default()
        };
        assert!(matches!(
            explain(&schema, &m, &factual, &config),
            Err(Error::InvalidArgument(_))
        ));
    }
}

/// The first incumbent handed to HiGHS (`mlp_primal.rs`) is a point of the
/// program it is handed with — within every column's bounds, integral where
/// asked, every row met within 1e-9 (checked here row by row, not by HiGHS),
/// including after the incumbent's cost capped the polytope — and it decodes
/// to a coherent row the network's own forward pass accepts, whose
/// [`cost`] is the program's objective and is no cheaper than brute force's
/// optimum.
#[test]
fn the_first_incumbent_is_a_feasible_point_no_cheaper_than_the_optimum() {
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(3901);
    let mut with_start = 0;
    for case in 0..300 {
        let (schema, factual, m) = random_case(&mut rng);
        let best = brute_force(&schema, &m, &factual, 1e-6, None, &[]);
        for (incumbent_cap, cost_bounds) in [(false, false), (true, false), (false, true)] {
            let t = mlp::Tightening {
                tighten: true,
                time_limit: 10.0,
                incumbent_cap,
                cost_bounds,
            };
            let (prog, _) = mlp::build_counted(&schema, &m, &factual, 1e-6, t).unwrap();
            let Some(x) = &prog.start else { continue };
            with_start += 1;
            let mip = &prog.mip;
            for c in 0..mip.n_cols() {
                assert!(
                    x[c] >= mip.lower[c] - 1e-9 && x[c] <= mip.upper[c] + 1e-9,
                    "case {case}: column {c}"
                );
                if mip.integer[c] {
                    assert!(
                        (x[c] - x[c].round()).abs() < 1e-9,
                        "case {case}: column {c}"
                    );
                }
            }
            for r in 0..mip.n_rows() {
                let end = mip
                    .row_start
                    .get(r + 1)
                    .copied()
                    .unwrap_or(mip.row_index.len());
                let v: f64 = (mip.row_start[r]..end)
                    .map(|k| mip.row_value[k] * x[mip.row_index[k]])
                    .sum();
                assert!(
                    v >= mip.row_lower[r] - 1e-9 && v <= mip.row_upper[r] + 1e-9,
                    "case {case} (cap {incumbent_cap}): row {r} = {v} outside [{}, {}]",
                    mip.row_lower[r],
                    mip.row_upper[r]
                );
            }
            let raw = schema.decode(&prog.encoded(&schema, x)).unwrap();
            schema.check_actionable(&factual, &raw).unwrap();
            assert!(m.score(&schema.encode(&raw).unwrap()) >= logit(m.threshold) + 1e-6);
            let objective = mip.offset + mip.cost.iter().zip(x).map(|(c, v)| c * v).sum::<f64>();
            assert!((objective - cost(&schema, &factual, &raw).unwrap()).abs() < 1e-9);
            let best = best.expect("an incumbent means recourse exists");
            assert!(
                objective >= best - 1e-9,
                "case {case}: {objective} < {best}"
            );
        }
    }
    assert!(with_start >= 150, "{with_start}");
}

/// A network's program is solved with HiGHS's presolve but without its
/// sub-MIPs and restarts, and no unit's output column has an upper bound of
/// its own, with either bounding (`mlp.rs`, "Solving"); `solve_program`
/// hands the program's settings to HiGHS. That the time limit then holds on
/// HELOC's 1×200 network is measured by `examples/mlp_scale.rs`
/// (BENCHMARKS.md section 12), not timed here; that the optimum is unchanged
/// by the brute-force tests above.
#[test]
fn network_outputs_are_unbounded_above_and_sub_mips_are_off() {
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(3902);
    let mut outputs = 0;
    for _ in 0..20 {
        let (schema, factual, m) = random_case(&mut rng);
        let base = Program::polytope(&schema, &factual).unwrap().mip.n_cols();
        for tighten in [true, false] {
            let t = mlp::Tightening {
                tighten,
                time_limit: 10.0,
                incumbent_cap: false,
                cost_bounds: false,
            };
            let prog = mlp::build(&schema, &m, &factual, 1e-6, t).unwrap();
            assert!(prog.presolve);
            assert!(!prog.sub_mips_and_restarts);
            for c in base..prog.mip.n_cols() {
                if !prog.mip.integer[c] {
                    assert_eq!(prog.mip.upper[c], f64::INFINITY, "column {c}");
                    outputs += 1;
                }
            }
        }
    }
    assert!(outputs > 100, "{outputs}");
}

/// The bounds under the incumbent's cost (`mlp.rs`, "Bounds under the
/// incumbent's cost") are admissible: every actionable row the oracle
/// enumerates (every grid point, level and special state of every feature)
/// that is no dearer than the incumbent — accepted or not — has each hidden
/// unit's pre-activation, by the network's own arithmetic, inside the bounds
/// the program was written with; without a cost cap, every actionable row
/// does. And the cost row stabilises units the plain tightening leaves open.
#[test]
fn bounds_under_the_incumbents_cost_contain_every_cheaper_row() {
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(3940);
    let (mut capped, mut checked, mut fewer) = (0, 0, 0);
    for case in 0..200 {
        let (schema, factual, m) = random_case(&mut rng);
        let built = |cost_bounds| {
            let t = mlp::Tightening {
                tighten: true,
                time_limit: 10.0,
                incumbent_cap: false,
                cost_bounds,
            };
            mlp::build_counted(&schema, &m, &factual, 1e-6, t)
                .unwrap()
                .1
        };
        let (b, plain) = (built(true), built(false));
        assert!(b.counts.unstable <= plain.counts.unstable, "case {case}");
        fewer += usize::from(b.counts.unstable < plain.counts.unstable);
        capped += usize::from(b.cost_cap.is_some());
        let n = schema.n_features();
        let cands: Vec<Vec<f64>> = (0..n).map(|i| candidates(&schema, &factual, i)).collect();
        let mut idx = vec![0usize; n];
        let mut row = factual.clone();
        'rows: loop {
            for i in 0..n {
                row[i] = cands[i][idx[i]];
            }
            let c = cost(&schema, &factual, &row);
            if schema.check_actionable(&factual, &row).is_ok()
                && let Ok(c) = c
                && b.cost_cap.is_none_or(|cap| c <= cap)
            {
                checked += 1;
                let mut h = schema.encode(&row).unwrap();
                let layers = &m.network.layers;
                for (k, layer) in layers[..layers.len() - 1].iter().enumerate() {
                    let mut next = Vec::with_capacity(layer.n_out);
                    for o in 0..layer.n_out {
                        let w = &layer.weights[o * layer.n_in..(o + 1) * layer.n_in];
                        let z = layer.bias[o] + w.iter().zip(&h).map(|(a, v)| a * v).sum::<f64>();
                        let (lo, hi) = b.bounds[k][o];
                        assert!(
                            z >= lo && z <= hi,
                            "case {case}: layer {k} unit {o}: {z} outside [{lo}, {hi}] at \
                             {row:?} (cost {c}, cap {:?})",
                            b.cost_cap
                        );
                        next.push(layer.activation.apply(z));
                    }
                    h = next;
                }
            }
            let mut k = 0;
            loop {
                if k == n {
                    break 'rows;
                }
                idx[k] += 1;
                if idx[k] < cands[k].len() {
                    break;
                }
                idx[k] = 0;
                k += 1;
            }
        }
    }
    eprintln!("cost bounds: {capped} capped, {checked} rows checked, {fewer} fewer binaries");
    assert!(capped >= 80, "{capped}");
    assert!(checked >= 1000, "{checked}");
    assert!(fewer >= 20, "{fewer}");
}
