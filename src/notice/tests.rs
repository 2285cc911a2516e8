//! Oracles of the reasons core: the libraries' own TreeSHAP (XGBoost
//! `pred_contribs`, LightGBM `pred_contrib`), jpmml-evaluator's reason codes,
//! and brute-force Shapley values over every permutation of the features.

use super::*;
use crate::coherent::random_instances::{
    LINEAR_ORACLE, TREE_ORACLE, random_factual, random_schema,
};
use crate::data::Dataset;
use crate::model::trees::{ImportOptions, Node, Source, Test};
use crate::model::{AnyModel, LinearModel, TreeEnsemble};
use crate::schema::Feature;
use rand::{Rng, SeedableRng};
use rand_xoshiro::Xoshiro256PlusPlus;
use std::path::{Path, PathBuf};

fn dataset(schema: &Schema, rows: Vec<Vec<f64>>) -> Dataset {
    let n = rows.len();
    Dataset {
        schema: schema.clone(),
        rows,
        labels: vec![0.0; n],
    }
}

/// `x` on the features in `from_x`, `z` elsewhere (encoded rows).
fn hybrid(schema: &Schema, x: &[f64], z: &[f64], from_x: &[bool]) -> Vec<f64> {
    let mut out = z.to_vec();
    for (i, &take) in from_x.iter().enumerate() {
        if take {
            let l = schema.layout(i);
            out[l.start..l.start + l.width].copy_from_slice(&x[l.start..l.start + l.width]);
        }
    }
    out
}

/// Shapley values by their definition: the mean over all `d!` orders of
/// each feature's marginal contribution `v(pre ∪ {i}) − v(pre)`.
fn shapley_by_permutations(d: usize, v: &dyn Fn(&[bool]) -> f64) -> Vec<f64> {
    fn orders(d: usize) -> Vec<Vec<usize>> {
        if d == 0 {
            return vec![vec![]];
        }
        let mut out = Vec::new();
        for p in orders(d - 1) {
            for k in 0..=p.len() {
                let mut q = p.clone();
                q.insert(k, d - 1);
                out.push(q);
            }
        }
        out
    }
    let all = orders(d);
    let mut phi = vec![0.0; d];
    for order in &all {
        let mut set = vec![false; d];
        let mut before = v(&set);
        for &i in order {
            set[i] = true;
            let after = v(&set);
            phi[i] += after - before;
            before = after;
        }
    }
    phi.iter().map(|p| p / all.len() as f64).collect()
}

/// The f64 margin from the flat evaluator's leaves (independent of the
/// TreeSHAP walks).
fn margin_f64(ens: &TreeEnsemble, x: &[f64]) -> f64 {
    ens.base_score()
        + ens
            .roots()
            .iter()
            .map(|&r| ens.leaf_encoded(r as usize, x).value)
            .sum::<f64>()
}

fn assert_close(got: &[f64], want: &[f64], tol: f64, what: &str) {
    assert_eq!(got.len(), want.len(), "{what}");
    for (k, (g, w)) in got.iter().zip(want).enumerate() {
        assert!(
            (g - w).abs() <= tol * w.abs().max(1.0),
            "{what}: feature {k}: {g} vs {w}"
        );
    }
}

/// Random covers: each leaf a count, each inner node the sum of its children.
fn random_covers(ens: &TreeEnsemble, rng: &mut Xoshiro256PlusPlus) -> Vec<f64> {
    fn fill(nodes: &[Node], k: usize, c: &mut [f64], rng: &mut Xoshiro256PlusPlus) -> f64 {
        let n = nodes[k];
        c[k] = if n.test == Test::Leaf {
            rng.random_range(1..50) as f64
        } else {
            fill(nodes, n.left as usize, c, rng) + fill(nodes, n.right as usize, c, rng)
        };
        c[k]
    }
    let mut c = vec![0.0; ens.nodes().len()];
    for &r in ens.roots() {
        fill(ens.nodes(), r as usize, &mut c, rng);
    }
    c
}

/// The path-dependent value of a feature set by its definition (Lundberg et
/// al. 2018, Eq. 2 with the cover-weighted expectation): features in the set
/// follow the applicant, the others both ways weighted by cover.
fn path_value(ens: &TreeEnsemble, covers: &[f64], x: &[f64], set: &[bool]) -> f64 {
    fn e(ens: &TreeEnsemble, c: &[f64], x: &[f64], set: &[bool], k: usize) -> f64 {
        let n = ens.nodes()[k];
        if n.test == Test::Leaf {
            return n.value;
        }
        let f = n.feature as usize;
        let (l, r) = (n.left as usize, n.right as usize);
        if set[f] {
            let left = ens.goes_left(&n, ens.encoded_input(f, x));
            e(ens, c, x, set, if left { l } else { r })
        } else {
            (c[l] * e(ens, c, x, set, l) + c[r] * e(ens, c, x, set, r)) / c[k]
        }
    }
    ens.base_score()
        + ens
            .roots()
            .iter()
            .map(|&r| e(ens, covers, x, set, r as usize))
            .sum::<f64>()
}

/// Both TreeSHAP variants equal Shapley values by enumeration of all
/// orders, on random ensembles (2–5 trees of depth ≤ 3 over 2–5 features:
/// numeric, grid, special states, missing directions, level sets), and each
/// adds up to the margin (efficiency).
#[test]
fn tree_shap_equals_brute_force_on_random_ensembles() {
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(40);
    for case in 0..60 {
        let schema = random_schema(&mut rng, &TREE_ORACLE);
        let x_raw = random_factual(&schema, &mut rng);
        let source = [Source::Lightgbm, Source::Xgboost][case % 2];
        let ens =
            crate::coherent::random_trees::random_ensemble_of(&schema, &x_raw, &mut rng, source);
        let covers = random_covers(&ens, &mut rng);
        let ens = ens.with_covers(covers.clone()).unwrap();
        let refs: Vec<Vec<f64>> = (0..rng.random_range(1..6))
            .map(|_| random_factual(&schema, &mut rng))
            .collect();
        let reference = Reference::new(
            &ens,
            &dataset(&schema, refs.clone()),
            ReferenceKind::AllApplicants,
        )
        .unwrap();
        let x = schema.encode(&x_raw).unwrap();
        let d = schema.n_features();
        let zs: Vec<Vec<f64>> = refs.iter().map(|r| schema.encode(r).unwrap()).collect();

        let inter = trees::interventional(&ens, &x, &reference);
        let v = |set: &[bool]| {
            zs.iter()
                .map(|z| margin_f64(&ens, &hybrid(&schema, &x, z, set)))
                .sum::<f64>()
                / zs.len() as f64
        };
        let want = shapley_by_permutations(d, &v);
        assert_close(
            &inter.contributions,
            &want,
            1e-9,
            &format!("interventional, case {case}"),
        );
        let sum: f64 = inter.contributions.iter().sum();
        assert!((inter.base_value + sum - margin_f64(&ens, &x)).abs() < 1e-9);

        let path = trees::path_dependent(&ens, &x).unwrap();
        let want = shapley_by_permutations(d, &|set| path_value(&ens, &covers, &x, set));
        assert_close(
            &path.contributions,
            &want,
            1e-9,
            &format!("path-dependent, case {case}"),
        );
        let sum: f64 = path.contributions.iter().sum();
        assert!((path.base_value + sum - margin_f64(&ens, &x)).abs() < 1e-9);
        assert!((path.base_value - path_value(&ens, &covers, &x, &vec![false; d])).abs() < 1e-9);
    }
}

/// Path-dependent TreeSHAP refuses an ensemble without covers, by name.
#[test]
fn path_dependent_needs_covers() {
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(7);
    let schema = random_schema(&mut rng, &TREE_ORACLE);
    let x_raw = random_factual(&schema, &mut rng);
    let ens = crate::coherent::random_trees::random_ensemble_of(
        &schema,
        &x_raw,
        &mut rng,
        Source::Lightgbm,
    );
    let e = trees::path_dependent(&ens, &schema.encode(&x_raw).unwrap()).unwrap_err();
    assert!(e.to_string().contains("covers"), "{e}");
    assert!(ens.clone().with_covers(vec![1.0]).is_err());
}

/// A linear model's reasons equal the closed form `w·(x − x̄)` and the
/// interventional Shapley values by enumeration over the reference rows.
#[test]
fn linear_reasons_equal_closed_form_and_enumeration() {
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(41);
    for case in 0..30 {
        let schema = random_schema(&mut rng, &LINEAR_ORACLE);
        let dim = schema.encoded_dim();
        let w: Vec<f64> = (0..dim).map(|_| rng.random_range(-2.0..2.0)).collect();
        let m = LinearModel::new(w.clone(), rng.random_range(-1.0..1.0), 0.5).unwrap();
        let refs: Vec<Vec<f64>> = (0..rng.random_range(1..8))
            .map(|_| random_factual(&schema, &mut rng))
            .collect();
        let reference = Reference::new(
            &m,
            &dataset(&schema, refs.clone()),
            ReferenceKind::AllApplicants,
        )
        .unwrap();
        let x_raw = random_factual(&schema, &mut rng);
        let x = schema.encode(&x_raw).unwrap();
        let a = attribute(&m, &schema, &x_raw, &reference, &ReasonOptions::default()).unwrap();
        assert_eq!(a.method, Method::LinearExact);
        let zs: Vec<Vec<f64>> = refs.iter().map(|r| schema.encode(r).unwrap()).collect();
        // Closed form, from the raw rows' encodings.
        let closed: Vec<f64> = (0..schema.n_features())
            .map(|i| {
                let l = schema.layout(i);
                (l.start..l.start + l.width)
                    .map(|c| {
                        let zbar = zs.iter().map(|z| z[c]).sum::<f64>() / zs.len() as f64;
                        w[c] * (x[c] - zbar)
                    })
                    .sum()
            })
            .collect();
        assert_close(
            &a.contributions,
            &closed,
            1e-12,
            &format!("closed form, case {case}"),
        );
        let v = |set: &[bool]| {
            zs.iter()
                .map(|z| m.score(&hybrid(&schema, &x, z, set)))
                .sum::<f64>()
                / zs.len() as f64
        };
        let d = schema.n_features();
        if d <= 7 {
            let want = shapley_by_permutations(d, &v);
            assert_close(
                &a.contributions,
                &want,
                1e-9,
                &format!("enumeration, case {case}"),
            );
        }
    }
}

/// An MLP's Baseline Shapley values equal the enumeration over all orders
/// against the reference mean, add up to the score, and a schema above the
/// limit is refused, not approximated.
#[test]
fn mlp_baseline_shapley_equals_enumeration() {
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(42);
    for case in 0..25 {
        let schema = random_schema(&mut rng, &LINEAR_ORACLE);
        let x_raw = random_factual(&schema, &mut rng);
        let net = crate::coherent::mlp_tests::random_network(&schema, &x_raw, &mut rng, 0.3);
        let refs: Vec<Vec<f64>> = (0..4).map(|_| random_factual(&schema, &mut rng)).collect();
        let reference =
            Reference::new(&net, &dataset(&schema, refs), ReferenceKind::AllApplicants).unwrap();
        let x = schema.encode(&x_raw).unwrap();
        let a = attribute(&net, &schema, &x_raw, &reference, &ReasonOptions::default()).unwrap();
        assert_eq!(a.method, Method::BaselineShapleyExact);
        let b = reference.mean_encoded().to_vec();
        let d = schema.n_features();
        if d <= 7 {
            let want = shapley_by_permutations(d, &|set| net.score(&hybrid(&schema, &x, &b, set)));
            assert_close(&a.contributions, &want, 1e-9, &format!("case {case}"));
        }
        let sum: f64 = a.contributions.iter().sum();
        assert!((a.base_value + sum - net.score(&x)).abs() < 1e-9);
        if d >= 2 {
            let opts = ReasonOptions {
                mlp_max_features: d - 1,
                ..Default::default()
            };
            let e = attribute(&net, &schema, &x_raw, &reference, &opts).unwrap_err();
            assert!(e.to_string().contains("does not approximate"), "{e}");
        }
    }
}

// ---- the libraries' own TreeSHAP --------------------------------------

fn peers_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("target/peers")
}

fn peer_file(name: &str) -> Option<String> {
    let p = peers_dir().join(name);
    match std::fs::read_to_string(&p) {
        Ok(s) => Some(s),
        Err(_) if std::env::var_os("CI").is_some() => panic!(
            "{} missing under CI: run python3 benches/peers/trees_train.py and \
             benches/peers/trees_contribs.py first",
            p.display()
        ),
        Err(_) => {
            eprintln!(
                "notice: {} absent (run benches/peers/trees_contribs.py); test skipped",
                p.display()
            );
            None
        }
    }
}

/// A contributions CSV: the feature names and per row the values and bias.
fn contribs(csv: &str) -> (Vec<String>, Vec<(Vec<f64>, f64)>) {
    let mut lines = csv.lines();
    let header: Vec<String> = lines
        .next()
        .unwrap()
        .split(',')
        .map(str::to_string)
        .collect();
    assert_eq!(header[0], "row");
    assert_eq!(header.last().unwrap(), "bias");
    let names = header[1..header.len() - 1].to_vec();
    let rows = lines
        .enumerate()
        .map(|(i, l)| {
            let v: Vec<f64> = l.split(',').map(|c| c.parse().unwrap()).collect();
            assert_eq!(v[0] as usize, i);
            (v[1..v.len() - 1].to_vec(), *v.last().unwrap())
        })
        .collect();
    (names, rows)
}

/// The worst deviation of cfx's path-dependent TreeSHAP from the library's,
/// relative to the row's largest contribution (so that a contribution near
/// zero is judged at the scale of the row), and the worst bias deviation.
fn worst_vs_library(
    ens: &TreeEnsemble,
    schema: &Schema,
    rows: &[Vec<f64>],
    csv: &str,
) -> (f64, f64) {
    let (names, lib) = contribs(csv);
    assert_eq!(lib.len(), rows.len());
    let idx: Vec<usize> = names.iter().map(|n| schema.index_of(n).unwrap()).collect();
    assert_eq!(idx.len(), schema.n_features());
    let (mut worst, mut worst_bias) = (0.0f64, 0.0f64);
    for (r, (want, bias)) in rows.iter().zip(&lib) {
        let a = trees::path_dependent(ens, &schema.encode(r).unwrap()).unwrap();
        let scale = want.iter().fold(0.0f64, |m, v| m.max(v.abs())).max(1e-300);
        for (k, &i) in idx.iter().enumerate() {
            worst = worst.max((a.contributions[i] - want[k]).abs() / scale);
        }
        worst_bias = worst_bias.max((a.base_value - bias).abs() / bias.abs().max(1e-300));
    }
    (worst, worst_bias)
}

fn small_fixture() -> (Schema, Vec<Vec<f64>>) {
    let schema = Schema::new(vec![
        Feature::contiguous("a", 0.0, 19.0).integer(),
        Feature::contiguous("b", 0.0, 9.0).integer(),
        Feature::contiguous("c", 0.0, 4.0).integer(),
        Feature::contiguous("d", 0.0, 49.0).integer(),
    ])
    .unwrap();
    let text = std::fs::read_to_string(fixture("small_trees.csv")).unwrap();
    let rows = text
        .lines()
        .skip(1)
        .map(|l| l.split(',').map(|c| c.parse().unwrap()).collect())
        .collect();
    (schema, rows)
}

fn fixture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data/notice")
        .join(name)
}

/// The committed small XGBoost and LightGBM models (benches/peers/
/// trees_contribs.py --small): cfx's path-dependent TreeSHAP equals each
/// library's own on every row. LightGBM computes in f64: within 1e-9 of the
/// row's largest contribution. XGBoost's `pred_contribs` computes and returns
/// float32 values: within 1e-5 (float32 rounding), which is what its output
/// carries.
#[test]
fn path_dependent_equals_library_contributions_on_the_small_fixture() {
    let (schema, rows) = small_fixture();
    let opts = ImportOptions::default();
    let xgb = std::fs::read_to_string(fixture("small_xgb.json")).unwrap();
    let x = TreeEnsemble::from_xgboost_json(&xgb, &schema, &opts).unwrap();
    assert!(x.covers().is_some());
    let csv = std::fs::read_to_string(fixture("small_xgb_contribs.csv")).unwrap();
    let (w, wb) = worst_vs_library(&x, &schema, &rows, &csv);
    eprintln!("small XGBoost: worst relative deviation {w:e}, bias {wb:e}");
    assert!(w <= 1e-5 && wb <= 1e-5, "XGBoost: worst {w}, bias {wb}");
    let lgb = std::fs::read_to_string(fixture("small_lgbm.txt")).unwrap();
    let l = TreeEnsemble::from_lightgbm_text(&lgb, &schema, &opts).unwrap();
    let csv = std::fs::read_to_string(fixture("small_lgbm_contribs.csv")).unwrap();
    let (w, wb) = worst_vs_library(&l, &schema, &rows, &csv);
    eprintln!("small LightGBM: worst relative deviation {w:e}, bias {wb:e}");
    assert!(w <= 1e-9 && wb <= 1e-9, "LightGBM: worst {w}, bias {wb}");
    // The covers survive the model JSON.
    let any = AnyModel::Trees(l.clone());
    let back = AnyModel::from_json(&any.to_json(), &schema).unwrap();
    assert_eq!(back.as_trees().unwrap().covers(), l.covers());
}

/// The HELOC peer models (100 and 500 trees of each library), every row.
#[test]
fn path_dependent_equals_library_contributions_on_heloc() {
    let Some(path) = crate::data::shared_test_file("heloc.csv") else {
        return;
    };
    let d = crate::data::heloc(&path).unwrap();
    let opts = ImportOptions::default();
    for (model, xgb) in [
        ("heloc_xgb.json", true),
        ("heloc_xgb_500x6.json", true),
        ("heloc_lgbm.txt", false),
        ("heloc_lgbm_500x31.txt", false),
    ] {
        let stem = model.split('.').next().unwrap();
        let (Some(text), Some(csv)) =
            (peer_file(model), peer_file(&format!("{stem}_contribs.csv")))
        else {
            return;
        };
        let ens = if xgb {
            TreeEnsemble::from_xgboost_json(&text, &d.schema, &opts).unwrap()
        } else {
            TreeEnsemble::from_lightgbm_text(&text, &d.schema, &opts).unwrap()
        };
        let (w, wb) = worst_vs_library(&ens, &d.schema, &d.rows, &csv);
        let tol = if xgb { 1e-5 } else { 1e-9 };
        eprintln!("{model}: worst relative deviation {w:e}, bias {wb:e}");
        assert!(w <= tol && wb <= tol, "{model}: worst {w}, bias {wb}");
    }
}

// ---- PMML scorecards ---------------------------------------------------

/// jpmml-evaluator's reason codes of ranks 1–4 (benches/peers/
/// pmml_reasons.py, committed) on every row of three PMML scorecards:
/// per-characteristic baselines with pointsBelow, one scorecard-wide
/// baseline with codes shared between characteristics, and pointsAbove read
/// as a risk score (cfx's points negated). cfx's reasons give the same codes
/// in the same order, the same number of them (negative totals dropped), and
/// the contributions add up to the score.
#[test]
fn pmml_reason_codes_equal_jpmml_evaluator() {
    use crate::model::pmml::{Accept, PmmlOptions, from_pmml_file};
    let pmml_dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/pmml");
    let schema =
        Schema::from_json(&std::fs::read_to_string(pmml_dir.join("schema.json")).unwrap()).unwrap();
    let rows: Vec<Vec<f64>> = std::fs::read_to_string(pmml_dir.join("rows.csv"))
        .unwrap()
        .lines()
        .skip(1)
        .map(|l| l.split(',').map(|c| c.parse().unwrap()).collect())
        .collect();
    let reference =
        Reference::new_unchecked_for_tests(&schema, rows.clone(), ReferenceKind::AllApplicants);
    for (name, accept) in [
        ("scorecard_sas4", Accept::AtOrAbove),
        ("scorecard_shared", Accept::AtOrAbove),
        ("scorecard_above", Accept::AtOrBelow),
    ] {
        let opts = PmmlOptions {
            accept: Some(accept),
            cutoff: Some(560.0),
            ..Default::default()
        };
        let model = from_pmml_file(&fixture(&format!("{name}.pmml")), &schema, &opts).unwrap();
        let want = std::fs::read_to_string(fixture(&format!("{name}_reasons.csv"))).unwrap();
        let mut seen_codes = 0;
        for (raw, line) in rows.iter().zip(want.lines().skip(1)) {
            let cells: Vec<&str> = line.split(',').collect();
            let codes: Vec<&str> = cells[2..6]
                .iter()
                .copied()
                .filter(|c| !c.is_empty())
                .collect();
            let set = reasons(
                &model,
                &schema,
                raw,
                &reference,
                None,
                &ReasonOptions::default(),
            )
            .unwrap();
            assert_eq!(set.method, Method::ScorecardPmmlReasonCodes);
            let got: Vec<&str> = set
                .reasons
                .iter()
                .map(|r| r.code.as_deref().unwrap())
                .collect();
            assert_eq!(got, codes, "{name}, row {}", cells[0]);
            seen_codes += got.len();
            let score: f64 = cells[1].parse().unwrap();
            let sign = if accept == Accept::AtOrAbove {
                1.0
            } else {
                -1.0
            };
            assert_eq!(set.score, sign * score);
            let sum: f64 = set.contributions.iter().map(|c| c.contribution).sum();
            assert!((set.base_value + sum - set.score).abs() < 1e-9);
        }
        assert!(seen_codes > 400, "{name}: the rows exercise the ranking");
    }
}

// ---- Regulation B's two rankings --------------------------------------

fn german() -> (Dataset, LinearModel, crate::model::Scorecard) {
    let d = crate::data::german_credit(&crate::data::bundled_german().unwrap()).unwrap();
    let x = d.encoded();
    let lin = LinearModel::fit(&x, &d.labels, crate::model::LogisticFit::default()).unwrap();
    let card =
        crate::data::german_scorecard(&d.schema, &crate::data::bundled_german_scorecard().unwrap())
            .unwrap()
            .scorecard;
    (d, lin, card)
}

/// Regulation B's two rankings (comment 9(b)(2)-5) for the logistic model and
/// the points scorecard on the bundled German data, against an independent
/// computation: the population selected by scoring each row directly (all
/// rows; or accepted with a score at most the band above the cut-off), its
/// average, each feature's difference, sorted. (An independent Rust
/// computation rather than Python: it needs nothing but the model's own
/// score.)
#[test]
fn regulation_b_rankings_equal_a_direct_computation() {
    let (d, lin, card) = german();
    let s = &d.schema;
    let enc = d.encoded();
    for kind in [
        ReferenceKind::AllApplicants,
        ReferenceKind::AtCutoff { band: 1.0 },
    ] {
        // Linear: the population by the score w·x + b directly.
        let t = (lin.threshold / (1.0 - lin.threshold)).ln();
        let score =
            |x: &[f64]| lin.weights.iter().zip(x).map(|(w, v)| w * v).sum::<f64>() + lin.bias;
        let pop: Vec<&Vec<f64>> = enc
            .iter()
            .filter(|x| match kind {
                ReferenceKind::AllApplicants => true,
                ReferenceKind::AtCutoff { band } => score(x) > t && score(x) - t <= band,
            })
            .collect();
        let reference = Reference::new(&lin, &d, kind).unwrap();
        assert_eq!(reference.len(), pop.len());
        assert!(
            pop.len() >= 20 && (kind == ReferenceKind::AllApplicants || pop.len() < d.rows.len())
        );
        let mean: Vec<f64> = (0..s.encoded_dim())
            .map(|c| pop.iter().map(|x| x[c]).sum::<f64>() / pop.len() as f64)
            .collect();
        let mut declined = 0;
        for (raw, x) in d.rows.iter().zip(&enc) {
            if score(x) > t {
                continue;
            }
            declined += 1;
            let mut want: Vec<(usize, f64)> = (0..s.n_features())
                .map(|i| {
                    let l = s.layout(i);
                    let c: f64 = (l.start..l.start + l.width)
                        .map(|c| lin.weights[c] * (x[c] - mean[c]))
                        .sum();
                    (i, c)
                })
                .filter(|p| p.1 < 0.0)
                .collect();
            want.sort_by(|a, b| a.1.partial_cmp(&b.1).unwrap());
            want.truncate(4);
            let got = reasons(&lin, s, raw, &reference, None, &ReasonOptions::default()).unwrap();
            assert_eq!(got.reasons.len(), want.len());
            for (r, (i, c)) in got.reasons.iter().zip(&want) {
                assert_eq!(r.feature, s.features[*i].name);
                assert!((r.contribution - c).abs() < 1e-9 * c.abs().max(1.0));
            }
        }
        assert!(declined > 100);

        // Scorecard: the population by its points, the baseline each
        // characteristic's mean points over it.
        let points: Vec<Vec<f64>> = d
            .rows
            .iter()
            .map(|r| card.points_by_characteristic(s, r).unwrap())
            .collect();
        let total = |p: &[f64]| card.base_points + p.iter().sum::<f64>();
        let pop: Vec<&Vec<f64>> = points
            .iter()
            .filter(|p| match kind {
                ReferenceKind::AllApplicants => true,
                ReferenceKind::AtCutoff { band } => {
                    total(p) >= card.cutoff && total(p) - card.cutoff <= band * 20.0
                }
            })
            .collect();
        let kind_pts = match kind {
            ReferenceKind::AtCutoff { band } => ReferenceKind::AtCutoff { band: band * 20.0 },
            k => k,
        };
        let reference = Reference::new(&card, &d, kind_pts).unwrap();
        assert_eq!(reference.len(), pop.len());
        let base: Vec<f64> = (0..card.characteristics.len())
            .map(|c| pop.iter().map(|p| p[c]).sum::<f64>() / pop.len() as f64)
            .collect();
        for (raw, p) in d.rows.iter().zip(&points).take(300) {
            if total(p) >= card.cutoff {
                continue;
            }
            let mut want: Vec<(String, f64)> = card
                .characteristics
                .iter()
                .enumerate()
                .map(|(c, ch)| (ch.feature.clone(), p[c] - base[c]))
                .filter(|w| w.1 < 0.0)
                .collect();
            want.sort_by(|a, b| a.1.partial_cmp(&b.1).unwrap());
            want.truncate(4);
            let got = reasons(&card, s, raw, &reference, None, &ReasonOptions::default()).unwrap();
            assert_eq!(got.method, Method::ScorecardPointsVsBaseline);
            let names: Vec<&str> = got.reasons.iter().map(|r| r.feature.as_str()).collect();
            let want_names: Vec<&str> = want.iter().map(|w| w.0.as_str()).collect();
            assert_eq!(names, want_names);
            for (r, w) in got.reasons.iter().zip(&want) {
                assert!((r.contribution - w.1).abs() < 1e-9);
            }
        }
    }
    // An empty band is refused with a way out.
    let e = Reference::new(&lin, &d, ReferenceKind::AtCutoff { band: 1e-12 });
    if let Err(e) = e {
        assert!(e.to_string().contains("widen the band"), "{e}");
    }
    assert!(Reference::new(&lin, &d, ReferenceKind::AtCutoff { band: f64::NAN }).is_err());
}

/// The bank's baselines for a table without reason codes: max, min and
/// given numbers, each exact; a missing or unknown name is refused.
#[test]
fn scorecard_baselines_chosen_by_the_bank() {
    let (d, _, card) = german();
    let s = &d.schema;
    let reference = Reference::new(&card, &d, ReferenceKind::AllApplicants).unwrap();
    let raw = &d.rows[3];
    let pts = card.points_by_characteristic(s, raw).unwrap();
    for baseline in [ScorecardBaseline::Max, ScorecardBaseline::Min] {
        let opts = ReasonOptions {
            scorecard_baseline: baseline.clone(),
            ..Default::default()
        };
        let a = attribute(&card, s, raw, &reference, &opts).unwrap();
        for (c, ch) in card.characteristics.iter().enumerate() {
            let all: Vec<f64> = ch.bins.iter().map(|b| b.points).collect();
            let b = if baseline == ScorecardBaseline::Max {
                all.iter().cloned().fold(f64::MIN, f64::max)
            } else {
                all.iter().cloned().fold(f64::MAX, f64::min)
            };
            let i = s.index_of(&ch.feature).unwrap();
            assert_eq!(a.contributions[i], pts[c] - b);
        }
        let sum: f64 = a.contributions.iter().sum();
        assert!((a.base_value + sum - a.score).abs() < 1e-9);
    }
    let mut given: std::collections::BTreeMap<String, f64> = card
        .characteristics
        .iter()
        .map(|c| (c.feature.clone(), 1.5))
        .collect();
    let opts = |g: &std::collections::BTreeMap<String, f64>| ReasonOptions {
        scorecard_baseline: ScorecardBaseline::Given {
            baselines: g.clone(),
        },
        ..Default::default()
    };
    let a = attribute(&card, s, raw, &reference, &opts(&given)).unwrap();
    let i = s.index_of(&card.characteristics[0].feature).unwrap();
    assert_eq!(a.contributions[i], pts[0] - 1.5);
    given.insert("no_such".into(), 1.0);
    assert!(attribute(&card, s, raw, &reference, &opts(&given)).is_err());
    given.remove("no_such");
    given.remove(&card.characteristics[0].feature);
    let e = attribute(&card, s, raw, &reference, &opts(&given)).unwrap_err();
    assert!(e.to_string().contains("no baseline"), "{e}");
}

// ---- reason tables ------------------------------------------------------

fn table_text(name: &str) -> String {
    std::fs::read_to_string(
        Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("examples/data/reasons")
            .join(name),
    )
    .unwrap()
}

/// The shipped tables fit their schemas and cover every feature; a
/// reason takes the entry of its direction, else the feature's `any`
/// entry; JSON round-trips; bad tables are refused by name.
#[test]
fn reason_tables() {
    let (d, lin, _) = german();
    let t = ReasonTable::from_csv(&table_text("german_reasons.csv"), &d.schema).unwrap();
    for f in &d.schema.features {
        assert!(
            t.for_feature(&f.name, Direction::Level).is_some(),
            "{}",
            f.name
        );
    }
    assert_eq!(ReasonTable::from_json(&t.to_json(), &d.schema).unwrap(), t);
    let reference = Reference::new(&lin, &d, ReferenceKind::AllApplicants).unwrap();
    let declined = d
        .rows
        .iter()
        .find(|r| !lin.accepts(&d.schema.encode(r).unwrap()))
        .unwrap();
    let set = reasons(
        &lin,
        &d.schema,
        declined,
        &reference,
        Some(&t),
        &ReasonOptions::default(),
    )
    .unwrap();
    assert!(!set.reasons.is_empty());
    for r in &set.reasons {
        let e = t.for_feature(&r.feature, r.direction).unwrap();
        assert_eq!(r.code.as_deref(), Some(e.code.as_str()));
        assert_eq!(r.statement.as_deref(), Some(e.statement.as_str()));
    }
    if let Some(path) = crate::data::shared_test_file("heloc.csv") {
        let h = crate::data::heloc(&path).unwrap();
        let t = ReasonTable::from_csv(&table_text("heloc_reasons.csv"), &h.schema).unwrap();
        for f in &h.schema.features {
            assert!(
                t.for_feature(&f.name, Direction::Equal).is_some(),
                "{}",
                f.name
            );
        }
        let inq = t.for_feature("NumInqLast6M", Direction::High).unwrap();
        assert!(inq.statement.starts_with("Too many"));
        assert!(
            !t.for_feature("NumInqLast6M", Direction::Low)
                .unwrap()
                .statement
                .starts_with("Too")
        );
    }
    let s = &d.schema;
    let bad = [
        "feature,direction,code,statement\nno_such,any,X,Y\n",
        "feature,direction,code,statement\nduration_in_month,sideways,X,Y\n",
        "feature,direction,code,statement\nduration_in_month,any,,Y\n",
        "feature,direction,code,statement\nduration_in_month,any,X,Y\nduration_in_month,any,Z,W\n",
        "feature,code,statement\nduration_in_month,X,Y\n",
    ];
    for b in bad {
        assert!(ReasonTable::from_csv(b, s).is_err(), "{b}");
    }
    assert!(ReasonTable::from_json(r#"{"format_version": 2, "entries": []}"#, s).is_err());
    assert!(ReasonTable::from_json(r#"{"format_version": 1, "entries": [], "x": 1}"#, s).is_err());
}

// ---- consistency with the advice --------------------------------------

/// The necessity marks equal brute force on small random linear instances:
/// feature `j` is marked necessary iff the enumerated optimum with `j` frozen
/// is infeasible or strictly costlier; so every feature marked necessary is
/// in every optimal answer.
#[test]
fn necessity_equals_brute_force() {
    use crate::coherent::tests::{brute_force, brute_force_frozen, random_model, same_cost};
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(4040);
    let config = crate::coherent::Config::default();
    let (mut necessary, mut not_necessary) = (0, 0);
    for case in 0..120 {
        let schema = crate::coherent::tests::random_schema(&mut rng);
        let factual = random_factual(&schema, &mut rng);
        let model = random_model(&schema, &factual, &mut rng);
        let Some(best) = brute_force(&schema, &model, &factual, config.margin) else {
            continue;
        };
        let ex = crate::coherent::explain(&schema, &model, &factual, &config).unwrap();
        let cf = &ex.counterfactuals[0];
        assert!(same_cost(cf.cost, best));
        for j in 0..schema.n_features() {
            let frozen = brute_force_frozen(&schema, &model, &factual, config.margin, j);
            let want = match frozen {
                None => true,
                Some(c) => c > best && !same_cost(c, best),
            };
            let changed = cf.changes.iter().any(|c| c.feature == j);
            let got = if changed {
                consistency::necessary(&schema, &model, &factual, &config, j, cf.cost).unwrap()
                    == Necessity::Necessary
            } else {
                false
            };
            assert_eq!(
                got, want,
                "case {case}, feature {j}: frozen optimum {frozen:?} vs {best}"
            );
            if want {
                necessary += 1;
                assert!(changed, "a necessary feature is in the optimum");
            } else {
                not_necessary += 1;
            }
        }
    }
    assert!(
        necessary >= 20 && not_necessary >= 20,
        "{necessary} / {not_necessary}"
    );
}

/// A German notice under the logistic model: reasons, marks, advice and the
/// first-reason note agree with each other; the JSON is versioned; the HTML
/// page is self-contained (no script), has the chart and every reason.
#[test]
fn german_notices_are_consistent_and_render() {
    let (d, lin, _) = german();
    let s = &d.schema;
    let table = ReasonTable::from_csv(&table_text("german_reasons.csv"), s).unwrap();
    let reference = Reference::new(&lin, &d, ReferenceKind::AtCutoff { band: 1.0 }).unwrap();
    let opts = NoticeOptions::default();
    let mut notes = 0;
    let mut done = 0;
    for raw in d
        .rows
        .iter()
        .filter(|r| !lin.accepts(&s.encode(r).unwrap()))
        .take(12)
    {
        let n = notice(&lin, s, raw, &reference, Some(&table), &opts).unwrap();
        done += 1;
        let advice = n.advice.as_ref().unwrap();
        assert_eq!(n.marks.len(), n.reasons.reasons.len());
        assert!(!n.reasons.reasons.is_empty() && n.reasons.reasons.len() <= 4);
        for (r, m) in n.reasons.reasons.iter().zip(&n.marks) {
            let i = s.index_of(&r.feature).unwrap();
            assert_eq!(m.advice_acts, advice.changes.iter().any(|c| c.feature == i));
            assert_eq!(m.immutable, !s.features[i].actionability.mutable);
            assert!(r.statement.is_some() && r.code.is_some());
            if m.necessity == Necessity::Necessary {
                assert!(m.advice_acts && n.necessary_features.contains(&r.feature));
            }
        }
        assert_eq!(n.first_reason_note.is_some(), !n.marks[0].advice_acts);
        if n.first_reason_note.is_some() {
            notes += 1;
        }
        let v: serde_json::Value = serde_json::from_str(&n.to_json()).unwrap();
        assert_eq!(v["format_version"], NOTICE_FORMAT_VERSION);
        assert_eq!(NOTICE_FORMAT_VERSION, 2);
        assert_eq!(
            v["reasons"]["reasons"].as_array().unwrap().len(),
            n.reasons.reasons.len()
        );
        let html = to_html(&n);
        assert!(html.contains("<svg") && !html.contains("<script"));
        for r in &n.reasons.reasons {
            assert!(html.contains(&render_esc(r.statement.as_ref().unwrap())));
        }
        // The same applicant gives the same id.
        let again = notice(&lin, s, raw, &reference, Some(&table), &opts).unwrap();
        assert_eq!(again.id, n.id);
    }
    assert_eq!(done, 12);
    eprintln!("german: {notes}/12 notices say their first reason is not acted on");
    // An accepted applicant has no notice.
    let ok = d
        .rows
        .iter()
        .find(|r| lin.accepts(&s.encode(r).unwrap()))
        .unwrap();
    assert!(notice(&lin, s, ok, &reference, None, &opts).is_err());
}

/// The waiting option and the robust version of German notices under the
/// logistic model, against independent computations:
/// * the waiting option's cost equals the minimum over every advisable wait
///   `m` ([`Schema::advisable_waits`]) of `cost_per_month·m` plus the exact
///   optimum of the waited row, each month solved on its own (0 when the
///   waited row is accepted) — the outer loop written out, while the notice
///   uses the one MIP with the months as a variable;
/// * the robust version is accepted with the closed-form margin computed by
///   hand (`σ‖w_S‖·Φ⁻¹(1 − γ)` over the mutable value slots), costs at least
///   the plain optimum, and its target is named;
/// * each mark's `waiting_acts`/`robust_acts` is whether that version moves
///   one of the reason's features; the page shows both versions.
#[test]
fn german_notices_carry_the_waiting_option_and_the_robust_version() {
    use crate::coherent::{Config, explain};
    let (d, lin, _) = german();
    // The German advice preset: waiting (age grows) priced per month.
    let preset = crate::data::presets::priced_preset("german", &d.schema)
        .unwrap()
        .unwrap();
    let s = &preset;
    let reference = Reference::new(&lin, &d, ReferenceKind::AllApplicants).unwrap();
    let opts = NoticeOptions {
        skip_necessity: true,
        ..Default::default()
    };
    let target = opts.robustness.unwrap();
    let waiting = s.waiting().expect("the German preset waits");
    let plain = Config::default();
    let logit_t = (lin.threshold / (1.0 - lin.threshold)).ln();
    let mut norm2 = 0.0;
    for (i, f) in s.features.iter().enumerate() {
        if let Some(c) = s.layout(i).value
            && f.actionability.mutable
        {
            norm2 += lin.weights[c] * lin.weights[c];
        }
    }
    let by_hand = target.sigma2.sqrt()
        * norm2.sqrt()
        * crate::noise::normal_quantile(1.0 - target.invalidation_target);
    let (mut waited, mut checked) = (0, 0);
    for raw in d
        .rows
        .iter()
        .filter(|r| !lin.accepts(&s.encode(r).unwrap()))
        .take(10)
    {
        let n = notice(&lin, s, raw, &reference, None, &opts).unwrap();
        checked += 1;
        let tol = |c: f64| 1e-6 * c.abs().max(1.0);
        // The waiting option against the months enumerated one by one.
        let mut best: Option<f64> = None;
        for m in s.advisable_waits(raw).unwrap() {
            let row = s.after_waiting(raw, m).unwrap();
            let moves = if lin.accepts(&s.encode(&row).unwrap()) {
                Some(0.0)
            } else {
                explain(s, &lin, &row, &plain)
                    .unwrap()
                    .counterfactuals
                    .first()
                    .map(|c| c.cost)
            };
            if let Some(c) = moves {
                let total = waiting.cost_per_month * f64::from(m) + c;
                best = Some(best.map_or(total, |b: f64| b.min(total)));
            }
        }
        let w = &n.waiting;
        match best {
            Some(b) => {
                assert_eq!(w.status, "optimal");
                let got = w.cost.unwrap();
                assert!(
                    (got - b).abs() <= tol(b),
                    "waiting {got} vs enumeration {b}"
                );
                let advised = w.advised.as_ref().unwrap();
                assert!(lin.accepts(&s.encode(advised).unwrap()));
                assert_eq!(w.changes, s.describe_changes(raw, advised));
                let plain_cost = n.advice.as_ref().unwrap().cost.unwrap();
                assert!(got <= plain_cost + tol(plain_cost));
                if w.months.unwrap() > 0 {
                    waited += 1;
                    assert!(w.text.contains("If you can wait"));
                }
            }
            None => assert_eq!(w.status, "infeasible"),
        }
        // The robust version against the closed-form margin.
        let r = &n.robust;
        assert_eq!(r.target.as_deref(), Some(target.label().as_str()));
        if let Some(advised) = &r.advised {
            assert_eq!(r.status, "optimal");
            let margin = lin.score(&s.encode(advised).unwrap()) - logit_t;
            assert!(margin >= by_hand - 1e-9, "{margin} < {by_hand}");
            let plain_cost = n.advice.as_ref().unwrap().cost.unwrap();
            assert!(r.cost.unwrap() >= plain_cost - tol(plain_cost));
        } else {
            assert_eq!(r.status, "infeasible");
        }
        for (reason, m) in n.reasons.reasons.iter().zip(&n.marks) {
            let idx: Vec<usize> = reason
                .features
                .iter()
                .map(|f| s.index_of(f).unwrap())
                .collect();
            let moves = |ch: &[crate::schema::Change]| ch.iter().any(|c| idx.contains(&c.feature));
            assert_eq!(m.waiting_acts, moves(&w.changes));
            assert_eq!(m.robust_acts, moves(&r.changes));
        }
        let v: serde_json::Value = serde_json::from_str(&n.to_json()).unwrap();
        assert!(v["waiting"]["status"].is_string() && v["robust"]["status"].is_string());
        let html = to_html(&n);
        assert!(html.contains("If you can wait") && html.contains("Advice with a safety margin"));
        assert!(html.contains(&render_esc(&w.text)) && html.contains(&render_esc(&r.text)));
    }
    assert_eq!(checked, 10);
    eprintln!("german: the waiting option waits for {waited}/10 applicants");
    // Without a target the robust version says it was not requested.
    let raw = d
        .rows
        .iter()
        .find(|r| !lin.accepts(&s.encode(r).unwrap()))
        .unwrap();
    let none = NoticeOptions {
        robustness: None,
        ..opts
    };
    let n = notice(&lin, s, raw, &reference, None, &none).unwrap();
    assert_eq!(n.robust.status, "not_available");
    assert!(n.robust.text.contains("Not requested"));
}

/// A tree ensemble's notice says in words that robust advice is "not
/// available for this model kind", and that a schema without a waiting rule has no
/// waiting option; the marks of both are then false, the page says so too.
#[test]
fn tree_notices_say_what_is_not_available() {
    let (schema, rows) = small_fixture();
    let xgb = std::fs::read_to_string(fixture("small_xgb.json")).unwrap();
    let ens = TreeEnsemble::from_xgboost_json(&xgb, &schema, &ImportOptions::default()).unwrap();
    let data = dataset(&schema, rows.clone());
    let reference = Reference::new(&ens, &data, ReferenceKind::AllApplicants).unwrap();
    let raw = rows
        .iter()
        .find(|r| !ens.accepts(&schema.encode(r).unwrap()))
        .expect("a declined row");
    let opts = NoticeOptions {
        skip_necessity: true,
        ..Default::default()
    };
    let n = notice(&ens, &schema, raw, &reference, None, &opts).unwrap();
    assert_eq!(n.robust.status, "not_available");
    assert!(n.robust.text.contains("Not available for this model kind"));
    assert!(n.robust.changes.is_empty() && n.robust.advised.is_none());
    assert_eq!(n.waiting.status, "not_available");
    assert!(n.marks.iter().all(|m| !m.robust_acts && !m.waiting_acts));
    let html = to_html(&n);
    assert!(html.contains("Not available for this model kind"));
}

fn render_esc(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
        .replace('\'', "&#39;")
}

/// A book's notices: one JSON line per declined applicant, in row order,
/// none for the accepted; a bad row is an error line, not a stop.
#[test]
fn book_of_notices_as_json_lines() {
    let (d, lin, _) = german();
    let s = &d.schema;
    let reference = Reference::new(&lin, &d, ReferenceKind::AllApplicants).unwrap();
    let mut rows: Vec<Vec<f64>> = d.rows[..30].to_vec();
    let mut bad = rows[0].clone();
    bad[0] = 99.0; // not a level of the first (categorical) feature
    rows.push(bad);
    let opts = NoticeOptions {
        skip_necessity: true,
        ..Default::default()
    };
    let mut out = Vec::new();
    let sum = notices_jsonl(&lin, s, &rows, &reference, None, &opts, &mut out).unwrap();
    let declined = d.rows[..30]
        .iter()
        .filter(|r| !lin.accepts(&s.encode(r).unwrap()))
        .count();
    assert_eq!(sum.rows, 31);
    assert_eq!(sum.declined, declined + 1);
    assert_eq!(sum.errors, 1);
    let text = String::from_utf8(out).unwrap();
    let lines: Vec<serde_json::Value> = text
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(lines.len(), declined + 1);
    let mut last = None;
    for l in &lines {
        let k = l["row"].as_u64().unwrap();
        assert!(last.is_none_or(|p| k > p));
        last = Some(k);
        if k < 30 {
            assert_eq!(l["notice"]["format_version"], NOTICE_FORMAT_VERSION);
            assert!(!lin.accepts(&s.encode(&d.rows[k as usize]).unwrap()));
        } else {
            assert!(l["error"].as_str().unwrap().len() > 5);
        }
    }
}

/// A model file whose covers do not fit still imports (covers only serve
/// path-dependent TreeSHAP), with the covers left unknown and said so.
#[test]
fn unfit_covers_are_dropped_not_refused() {
    let (schema, _) = small_fixture();
    let text = std::fs::read_to_string(fixture("small_xgb.json")).unwrap();
    let mut v: serde_json::Value = serde_json::from_str(&text).unwrap();
    v["learner"]["gradient_booster"]["model"]["trees"][0]["sum_hessian"][0] = 0.0.into();
    let ens = TreeEnsemble::from_xgboost_json(&v.to_string(), &schema, &ImportOptions::default())
        .unwrap();
    assert!(ens.covers().is_none());
    assert!(
        ens.import_report()
            .iter()
            .any(|l| l.contains("covers are not kept"))
    );
}

/// The notice id goes into the advice ledger and re-validation covers it:
/// the records of German notices (cheapest change with its robust version
/// and that version's target, and the waiting option when it waits) carry
/// the notice id through JSON;
/// re-validated under the German points scorecard, each line repeats the
/// id, and kept/broken equals the scorecard's own decision on the advised
/// (and robust) rows, scored directly; every contact of the streamed
/// report names the notice to supersede.
#[test]
fn the_notice_id_goes_into_the_ledger_and_its_revalidation() {
    use crate::revalidate::{
        AdviceKind, LedgerRecord, PromiseStatus, RevalidateOptions, revalidate, revalidate_ledger,
    };
    let (d, lin, card) = german();
    let s = &d.schema;
    let issued = AnyModel::Linear(lin.clone());
    let new = AnyModel::Scorecard(card.clone());
    let reference = Reference::new(&lin, &d, ReferenceKind::AllApplicants).unwrap();
    let opts = NoticeOptions {
        skip_necessity: true,
        ..Default::default()
    };
    let config = crate::coherent::Config::default();
    let card_accepts = |row: &[f64]| card.accepts_points(card.score_raw(s, row).unwrap());
    let mut ledger = String::new();
    let (mut records, mut waits, mut broken, mut with_version) = (0, 0, 0, 0);
    for (k, raw) in d
        .rows
        .iter()
        .enumerate()
        .filter(|(_, r)| !lin.accepts(&s.encode(r).unwrap()))
        .take(15)
    {
        let n = notice(&lin, s, raw, &reference, None, &opts).unwrap();
        let recs = LedgerRecord::from_notice(s, &issued, &format!("app-{k}"), &n).unwrap();
        assert_eq!(recs[0].kind, AdviceKind::Explain);
        assert_eq!(
            recs[0].advised,
            *n.advice.as_ref().unwrap().advised.as_ref().unwrap()
        );
        assert_eq!(recs[0].robust_advised, n.robust.advised);
        // The robust version's target goes with it (the notices' default).
        assert_eq!(
            recs[0].robustness,
            recs[0].robust_advised.as_ref().and(opts.robustness)
        );
        with_version += usize::from(recs[0].robustness.is_some());
        let waits_here = n.waiting.months.is_some_and(|m| m > 0);
        assert_eq!(recs.len(), 1 + usize::from(waits_here));
        waits += usize::from(waits_here);
        assert!(recs[1..].iter().all(|r| r.robustness.is_none()));
        for r in recs {
            assert_eq!(r.notice.as_deref(), Some(n.id.as_str()));
            let back = LedgerRecord::from_json(&r.to_json()).unwrap();
            assert_eq!(back, r);
            let v = revalidate(s, &new, &r, &config).unwrap();
            assert_eq!(v.notice.as_deref(), Some(n.id.as_str()));
            let kept = card_accepts(&r.advised);
            assert_eq!(v.status == PromiseStatus::Kept, kept, "{}", r.id);
            broken += usize::from(!kept);
            if let Some(robust) = &r.robust_advised {
                assert_eq!(v.robust_kept, Some(card_accepts(robust)));
            }
            ledger.push_str(&r.to_json());
            ledger.push('\n');
            records += 1;
        }
    }
    eprintln!(
        "ledger: {records} records from 15 notices, {waits} waiting, {broken} broken, \
         {with_version} with a robust version"
    );
    assert!(with_version > 0, "records with a robust version");
    assert_eq!(opts.robustness, Some(super::DEFAULT_NOTICE_ROBUSTNESS));
    assert!(
        broken > 0,
        "the scorecard breaks some promises of the logistic model"
    );
    let dir = std::env::temp_dir().join(format!("cfx-notice-ledger-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let (input, output) = (dir.join("ledger.jsonl"), dir.join("revalidated.jsonl"));
    std::fs::write(&input, &ledger).unwrap();
    let report = revalidate_ledger(
        s,
        &new,
        &input,
        &output,
        &config,
        &RevalidateOptions::default(),
    )
    .unwrap();
    let lines = std::fs::read_to_string(&output).unwrap();
    for (line, rec) in lines.lines().zip(ledger.lines()) {
        let v: serde_json::Value = serde_json::from_str(line).unwrap();
        let r: serde_json::Value = serde_json::from_str(rec).unwrap();
        assert_eq!(v["notice"], r["notice"]);
    }
    assert_eq!(lines.lines().count(), records);
    assert_eq!(report.contacts.len(), broken);
    assert!(report.contacts.iter().all(|c| c.notice.is_some()));
    // A record without a notice id re-validates without the key.
    let mut plain: serde_json::Value =
        serde_json::from_str(ledger.lines().next().unwrap()).unwrap();
    plain.as_object_mut().unwrap().remove("notice");
    let r = LedgerRecord::from_json(&plain.to_string()).unwrap();
    let v = serde_json::to_value(revalidate(s, &new, &r, &config).unwrap()).unwrap();
    assert!(v.get("notice").is_none());
    std::fs::remove_dir_all(&dir).unwrap();
}

/// CatBoost's node covers are the sums of its `leaf_weights` over each node
/// of the expanded oblivious tree, and with them cfx's path-dependent
/// TreeSHAP equals CatBoost's own `get_feature_importance(type=
/// "ShapValues")` on every committed row of every committed CatBoost model
/// (tests/data/catboost/<name>_shap.csv, `catboost_ebm_peers.py shap`;
/// cb_scaled's values are CatBoost's for scale 1 mapped by linearity, as
/// CatBoost refuses ShapValues for another scale). CatBoost's trees have
/// empty leaves (no training row, value 0): its ShapValues skip those
/// branches, cfx's walk skips the inner nodes no row reached — the same sums.
/// The models predict default, read with `favourable_class: 0` (cb_labels:
/// class 1 "good"), so cfx's values are minus CatBoost's there.
#[test]
fn path_dependent_equals_catboost_shap_values_on_every_committed_row() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/catboost");
    let read = |f: &str| std::fs::read_to_string(dir.join(f)).unwrap();
    let schema = Schema::from_json(&read("schema.json")).unwrap();
    let mut models = 0;
    for (name, favourable, unseen) in [
        ("cb_nan_min", 0, false),
        ("cb_nan_max", 0, false),
        ("cb_nan_forbidden", 0, false),
        ("cb_depth1", 0, false),
        ("cb_depth8", 0, false),
        ("cb_early", 0, false),
        ("cb_scaled", 0, false),
        ("cb_onehot", 0, true),
        ("cb_labels", 1, false),
    ] {
        let mut opts = ImportOptions {
            favourable_class: Some(favourable),
            special_as_missing: vec!["debt".into()],
            ..ImportOptions::default()
        };
        if unseen {
            opts.unseen_levels
                .insert("home".into(), vec!["council".into()]);
        }
        let ens = TreeEnsemble::from_catboost_json(&read(&format!("{name}.json")), &schema, &opts)
            .unwrap();
        assert!(ens.covers().is_some(), "{name}: {:?}", ens.import_report());
        let sign = if favourable == 0 { -1.0 } else { 1.0 };
        let rows: Vec<Vec<f64>> = read(&format!("{name}_rows.csv"))
            .lines()
            .skip(1)
            .map(|l| l.split(',').map(|v| v.parse().unwrap()).collect())
            .collect();
        let shap = read(&format!("{name}_shap.csv"));
        let mut lines = shap.lines();
        let header: Vec<&str> = lines.next().unwrap().split(',').collect();
        let cols: Vec<usize> = header[1..header.len() - 1]
            .iter()
            .map(|c| schema.index_of(c).unwrap())
            .collect();
        let mut n = 0;
        for (row, (line, raw)) in lines.zip(&rows).enumerate() {
            let v: Vec<f64> = line
                .split(',')
                .skip(1)
                .map(|x| x.parse().unwrap())
                .collect();
            // Rows off the schema's grid (the producer's rows next to each
            // border) have no encoded form to explain.
            let Ok(x) = schema.encode(raw) else { continue };
            let a = trees::path_dependent(&ens, &x).unwrap();
            let scale = v.iter().fold(1.0f64, |m, x| m.max(x.abs()));
            let mut want = vec![0.0; schema.n_features()];
            for (k, &i) in cols.iter().enumerate() {
                want[i] = sign * v[k];
            }
            for (i, w) in want.iter().enumerate() {
                assert!(
                    (a.contributions[i] - w).abs() <= 1e-9 * scale,
                    "{name} row {row} feature {i}: cfx {}, CatBoost {w}",
                    a.contributions[i]
                );
            }
            let base = sign * v[v.len() - 1];
            assert!(
                (a.base_value - base).abs() <= 1e-9 * scale,
                "{name} row {row}: expected value cfx {}, CatBoost {base}",
                a.base_value
            );
            n += 1;
        }
        assert_eq!(
            shap.lines().count(),
            rows.len() + 1,
            "{name}: a SHAP row per row"
        );
        assert!(n >= 150, "{name}: {n} rows compared");
        models += 1;
    }
    assert_eq!(models, 9);
}

/// Covers that say a node no training row reached holds a leaf of nonzero
/// value are refused: the TreeSHAP walk skips such nodes, which would then
/// drop that value (local accuracy lost).
#[test]
fn zero_cover_subtrees_must_hold_zero_leaves() {
    let split = |left, right, threshold| Node {
        test: Test::BelowF32,
        threshold,
        left,
        right,
        ..Node::leaf(0.0)
    };
    let ens = |last: f64| {
        TreeEnsemble::new(
            Source::Catboost,
            0.0,
            0.5,
            vec![crate::model::trees::FeatureInput::Value {
                name: "a".into(),
                lower: 0.0,
                upper: 9.0,
                grid: None,
                specials: vec![],
            }],
            vec![0],
            vec![
                split(1, 2, 5.0),
                Node::leaf(1.0),
                split(3, 4, 7.0),
                Node::leaf(0.0),
                Node::leaf(last),
            ],
            vec![],
        )
        .unwrap()
    };
    let covers = vec![10.0, 10.0, 0.0, 0.0, 0.0];
    assert!(ens(0.0).with_covers(covers.clone()).is_ok());
    let e = ens(2.0).with_covers(covers).unwrap_err();
    assert!(e.to_string().contains("must have the value 0"), "{e}");
    // A root no row reached is refused as before.
    let e = ens(0.0).with_covers(vec![0.0; 5]).unwrap_err();
    assert!(e.to_string().contains("root"), "{e}");
}
