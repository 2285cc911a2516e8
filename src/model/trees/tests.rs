use super::*;
use crate::data::heloc;
use crate::model::{AnyModel, Model};
use crate::schema::{Feature, Schema};
use std::path::PathBuf;

/// The peer script's output folder (`benches/peers/trees_train.py`).
fn peers_dir() -> PathBuf {
    std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("target/peers")
}

/// Reads a file of the peer export; `None` (with a note) when absent outside
/// CI, a failure under CI.
fn peer_file(name: &str) -> Option<String> {
    let p = peers_dir().join(name);
    match std::fs::read_to_string(&p) {
        Ok(s) => Some(s),
        Err(_) if std::env::var_os("CI").is_some() => panic!(
            "{} missing under CI: run python3 benches/peers/trees_train.py first",
            p.display()
        ),
        Err(_) => {
            eprintln!(
                "notice: {} absent (run benches/peers/trees_train.py); test skipped",
                p.display()
            );
            None
        }
    }
}

fn margins(csv: &str) -> Vec<f64> {
    let mut lines = csv.lines();
    assert_eq!(lines.next(), Some("row,margin"));
    lines
        .enumerate()
        .map(|(i, l)| {
            let (r, m) = l.split_once(',').unwrap();
            assert_eq!(r.parse::<usize>().unwrap(), i);
            m.parse::<f64>().unwrap()
        })
        .collect()
}

fn heloc_data() -> Option<crate::data::Dataset> {
    let path = crate::data::shared_test_file("heloc.csv")?;
    Some(heloc(&path).unwrap())
}

/// Largest |cfx − library| over all rows, raw and encoded evaluation.
fn worst(model: &TreeEnsemble, schema: &Schema, rows: &[Vec<f64>], lib: &[f64]) -> f64 {
    assert_eq!(rows.len(), lib.len());
    let mut worst: f64 = 0.0;
    for (r, &m) in rows.iter().zip(lib) {
        let raw = model.margin_raw(r);
        let enc = model.score(&schema.encode(r).unwrap());
        assert_eq!(
            raw, enc,
            "raw and encoded evaluation agree exactly on {r:?}"
        );
        worst = worst.max((raw - m).abs());
    }
    worst
}

#[test]
fn heloc_margins_equal_xgboost_and_lightgbm_on_every_row() {
    let (Some(xgb), Some(xgb_m), Some(lgb), Some(lgb_m)) = (
        peer_file("heloc_xgb.json"),
        peer_file("heloc_xgb_margins.csv"),
        peer_file("heloc_lgbm.txt"),
        peer_file("heloc_lgbm_margins.csv"),
    ) else {
        return;
    };
    let Some(d) = heloc_data() else { return };
    let opts = ImportOptions::default();
    let x = TreeEnsemble::from_xgboost_json(&xgb, &d.schema, &opts).unwrap();
    assert_eq!(x.n_trees(), 100);
    let w = worst(&x, &d.schema, &d.rows, &margins(&xgb_m));
    assert!(w <= 1e-6, "XGBoost: worst margin difference {w}");
    let l = TreeEnsemble::from_lightgbm_text(&lgb, &d.schema, &opts).unwrap();
    assert_eq!(l.n_trees(), 100);
    let w = worst(&l, &d.schema, &d.rows, &margins(&lgb_m));
    assert!(w <= 1e-6, "LightGBM: worst margin difference {w}");
    // The versioned model JSON keeps the model's function exactly.
    for m in [x, l] {
        let any = AnyModel::Trees(m.clone());
        let back = AnyModel::from_json(&any.to_json(), &d.schema).unwrap();
        assert_eq!(back, any);
        for r in d.rows.iter().step_by(97) {
            let e = d.schema.encode(r).unwrap();
            assert_eq!(back.score(&e), m.score(&e));
        }
        // Scoring with the features decoded once (a scratch of
        // `scratch_len`) equals decoding at every node (no scratch), to the
        // bit, and the library's margin, on every row.
        let mut seen = vec![0.0; m.scratch_len()];
        assert_eq!(seen.len(), d.schema.n_features());
        let mut worst_decoded: f64 = 0.0;
        for r in &d.rows {
            let e = d.schema.encode(r).unwrap();
            let once = m.score_in(&e, &mut seen);
            assert_eq!(once.to_bits(), m.score_in(&e, &mut []).to_bits());
            worst_decoded = worst_decoded.max((once - m.margin_raw(r)).abs());
        }
        assert!(worst_decoded <= 1e-6, "{worst_decoded}");
    }
}

/// The peer's small model: `a` real with NaN (a special state declared
/// missing stands for it), `b` integer 0–9, `c` a native categorical.
fn small_schema() -> Schema {
    let mut a = Feature::contiguous("a", -4.0, 4.0).with_special(-99.0, "not reported");
    a.actionability.cost_scale = 1.0;
    let b = Feature::contiguous("b", 0.0, 9.0).integer();
    let c = Feature::categorical("c", &["red", "green", "blue", "grey"]);
    Schema::new(vec![a, b, c]).unwrap()
}

fn small_rows(csv: &str) -> Vec<Vec<f64>> {
    let mut lines = csv.lines();
    assert_eq!(lines.next(), Some("a,b,c"));
    lines
        .map(|l| {
            l.split(',')
                .enumerate()
                .map(|(j, v)| {
                    if v.is_empty() {
                        assert_eq!(j, 0);
                        -99.0
                    } else {
                        v.parse::<f64>().unwrap()
                    }
                })
                .collect()
        })
        .collect()
}

#[test]
fn nan_and_native_categorical_splits_equal_both_libraries() {
    let (Some(rows), Some(xgb), Some(xgb_m), Some(lgb), Some(lgb_m)) = (
        peer_file("small_nan_cat.csv"),
        peer_file("small_nan_cat_xgb.json"),
        peer_file("small_nan_cat_xgb_margins.csv"),
        peer_file("small_nan_cat_lgbm.txt"),
        peer_file("small_nan_cat_lgbm_margins.csv"),
    ) else {
        return;
    };
    let schema = small_schema();
    let rows = small_rows(&rows);
    assert!(
        rows.iter().any(|r| r[0] == -99.0),
        "the data has missing values"
    );
    let opts = ImportOptions {
        special_as_missing: vec!["a".into()],
        ..ImportOptions::default()
    };
    let x = TreeEnsemble::from_xgboost_json(&xgb, &schema, &opts).unwrap();
    assert!(x.nodes().iter().any(|n| matches!(n.test, Test::Levels(_))));
    let w = worst(&x, &schema, &rows, &margins(&xgb_m));
    assert!(w <= 1e-6, "XGBoost: worst margin difference {w}");
    let l = TreeEnsemble::from_lightgbm_text(&lgb, &schema, &opts).unwrap();
    assert!(l.nodes().iter().any(|n| matches!(n.test, Test::Levels(_))));
    let w = worst(&l, &schema, &rows, &margins(&lgb_m));
    assert!(w <= 1e-6, "LightGBM: worst margin difference {w}");
    // Without the declaration the code −99 reaches the trees as a number, and
    // some rows score differently: the declaration matters.
    let plain = TreeEnsemble::from_xgboost_json(&xgb, &schema, &ImportOptions::default()).unwrap();
    assert!(rows.iter().any(|r| plain.margin_raw(r) != x.margin_raw(r)));
}

/// A hand-made XGBoost model: one tree on a one-hot column and a numeric column.
fn tiny_xgb(objective: &str, columns: &str) -> String {
    format!(
        r#"{{"learner":{{"attributes":{{}},"feature_names":{columns},"feature_types":[],
        "gradient_booster":{{"model":{{"gbtree_model_param":{{"num_parallel_tree":"1","num_trees":"1"}},
        "iteration_indptr":[0,1],"tree_info":[0],"trees":[{{"base_weights":[0,0,0,0,0],
        "categories":[],"categories_nodes":[],"categories_segments":[],"categories_sizes":[],
        "default_left":[0,0,0,0,0],"id":0,"left_children":[1,3,-1,-1,-1],"loss_changes":[0,0,0,0,0],
        "parents":[2147483647,0,0,1,1],"right_children":[2,4,-1,-1,-1],
        "split_conditions":[0.5,3.5,0.25,-0.5,0.75],"split_indices":[0,1,0,0,0],
        "split_type":[0,0,0,0,0],"sum_hessian":[1,1,1,1,1],
        "tree_param":{{"num_deleted":"0","num_feature":"2","num_nodes":"5","size_leaf_vector":"1"}}}}]}},
        "name":"gbtree"}},"learner_model_param":{{"base_score":"[5E-1]","boost_from_average":"1",
        "num_class":"0","num_feature":"2","num_target":"1"}},"objective":{{"name":"{objective}",
        "reg_loss_param":{{"scale_pos_weight":"1"}}}}}},"version":[3,2,0]}}"#
    )
}

fn tiny_schema() -> Schema {
    Schema::new(vec![
        Feature::categorical("home", &["rent", "own", "other"]),
        Feature::contiguous("years", 0.0, 10.0).integer(),
    ])
    .unwrap()
}

#[test]
fn one_hot_columns_map_onto_levels_by_name_or_by_mapping() {
    let schema = tiny_schema();
    // Root: "home=own" < 0.5 (not own) → left: years < 3.5 → −0.5 / 0.75; own → 0.25.
    for cols in [r#"["home=own","years"]"#, r#"["home_own","years"]"#] {
        let m = TreeEnsemble::from_xgboost_json(
            &tiny_xgb("binary:logistic", cols),
            &schema,
            &ImportOptions::default(),
        )
        .unwrap();
        assert_eq!(m.margin_raw(&[1.0, 2.0]), 0.25);
        assert_eq!(m.margin_raw(&[0.0, 2.0]), -0.5);
        assert_eq!(m.margin_raw(&[2.0, 3.0]), -0.5);
        assert_eq!(m.margin_raw(&[2.0, 4.0]), 0.75);
        assert_eq!(m.base_score(), 0.0);
    }
    let mut opts = ImportOptions::default();
    opts.columns.insert(
        "is_owner".into(),
        ColumnTarget {
            feature: "home".into(),
            level: Some("own".into()),
        },
    );
    let m = TreeEnsemble::from_xgboost_json(
        &tiny_xgb("binary:logistic", r#"["is_owner","years"]"#),
        &schema,
        &opts,
    )
    .unwrap();
    assert_eq!(m.margin_raw(&[1.0, 9.0]), 0.25);
    assert_eq!(m.margin_raw(&[2.0, 9.0]), 0.75);
}

#[test]
fn what_the_importers_do_not_understand_is_a_format_error() {
    let schema = tiny_schema();
    let o = ImportOptions::default();
    let is_format = |r: Result<TreeEnsemble>, needle: &str| match r {
        Err(Error::Format(m)) => assert!(m.contains(needle), "{m} lacks '{needle}'"),
        other => panic!("expected a format error naming '{needle}', got {other:?}"),
    };
    is_format(
        TreeEnsemble::from_xgboost_json(
            &tiny_xgb("reg:squarederror", r#"["home=own","years"]"#),
            &schema,
            &o,
        ),
        "reg:squarederror",
    );
    is_format(
        TreeEnsemble::from_xgboost_json(
            &tiny_xgb("binary:logistic", r#"["home=villa","years"]"#),
            &schema,
            &o,
        ),
        "home=villa",
    );
    is_format(
        TreeEnsemble::from_xgboost_json(
            &tiny_xgb("binary:logistic", r#"["home=own","years"]"#)
                .replace("\"num_class\":\"0\"", "\"num_class\":\"3\""),
            &schema,
            &o,
        ),
        "multiclass",
    );
    is_format(
        TreeEnsemble::from_xgboost_json(
            &tiny_xgb("binary:logistic", r#"["home=own","years"]"#)
                .replace("\"id\":0", "\"id\":0,\"extra\":1"),
            &schema,
            &o,
        ),
        "extra",
    );
    is_format(
        TreeEnsemble::from_xgboost_json(
            &tiny_xgb("binary:logistic", r#"["home=own","years"]"#).replace(
                "\"left_children\":[1,3,-1,-1,-1]",
                "\"left_children\":[1,7,-1,-1,-1]",
            ),
            &schema,
            &o,
        ),
        "out of range",
    );
    is_format(
        TreeEnsemble::from_xgboost_json("{", &schema, &o),
        "not JSON",
    );
    // Found by the bounded fuzz run (fuzz/regressions/tree_import): a
    // condition beyond float32's range became an infinite threshold, which
    // the model's JSON wrote as null and could not read back.
    for cond in ["1e308", "-1e308", "3.5e38"] {
        is_format(
            TreeEnsemble::from_xgboost_json(
                &tiny_xgb("binary:logistic", r#"["home=own","years"]"#)
                    .replace("[0.5,3.5,0.25", &format!("[0.5,{cond},0.25")),
                &schema,
                &o,
            ),
            "not finite",
        );
    }
    let lgb = "tree\nversion=v4\nnum_class=1\nnum_tree_per_iteration=1\nlabel_index=0\n\
               max_feature_idx=1\nobjective=binary sigmoid:1\nfeature_names=home years\n\
               feature_infos=[0:2] [0:10]\n\nTree=0\nnum_leaves=2\nnum_cat=0\n\
               split_feature=1\nsplit_gain=1\nthreshold=3.5\ndecision_type=2\nleft_child=-1\n\
               right_child=-2\nleaf_value=-0.5 0.5\nis_linear=0\nshrinkage=1\n\n\nend of trees\n";
    let m = TreeEnsemble::from_lightgbm_text(lgb, &schema, &o).unwrap();
    assert_eq!(m.margin_raw(&[0.0, 3.0]), -0.5);
    assert_eq!(m.margin_raw(&[0.0, 4.0]), 0.5);
    // "home" is categorical: a numeric split on it reads the level index.
    is_format(
        TreeEnsemble::from_lightgbm_text(&lgb.replace("is_linear=0", "is_linear=1"), &schema, &o),
        "linear tree",
    );
    is_format(
        TreeEnsemble::from_lightgbm_text(
            &lgb.replace("binary sigmoid:1", "regression"),
            &schema,
            &o,
        ),
        "regression",
    );
    is_format(
        TreeEnsemble::from_lightgbm_text(&lgb.replace("num_class=1", "num_class=3"), &schema, &o),
        "multiclass",
    );
    is_format(
        TreeEnsemble::from_lightgbm_text(
            &lgb.replace("shrinkage=1", "shrinkage=1\nmystery=2"),
            &schema,
            &o,
        ),
        "mystery",
    );
    is_format(
        TreeEnsemble::from_lightgbm_text(&lgb.replace("home years", "home wage"), &schema, &o),
        "wage",
    );
    is_format(
        TreeEnsemble::from_lightgbm_text(
            &lgb.replace("threshold=3.5", "threshold=inf"),
            &schema,
            &o,
        ),
        "not finite",
    );
}

#[test]
fn special_states_reach_the_trees_as_codes_or_as_missing() {
    // One LightGBM stump: x ≤ −7.5 goes left (−1), else right (+1); NaN → left.
    let schema = Schema::new(vec![
        Feature::contiguous("x", 0.0, 10.0)
            .integer()
            .with_special(-7.0, "none")
            .with_special(-9.0, "no record"),
    ])
    .unwrap();
    let lgb = "tree\nversion=v4\nnum_class=1\nnum_tree_per_iteration=1\nlabel_index=0\n\
               max_feature_idx=0\nobjective=binary sigmoid:1\nfeature_names=x\n\
               feature_infos=[-9:10]\n\nTree=0\nnum_leaves=2\nnum_cat=0\n\
               split_feature=0\nsplit_gain=1\nthreshold=-7.5\ndecision_type=10\nleft_child=-1\n\
               right_child=-2\nleaf_value=-1 1\nis_linear=0\nshrinkage=1\n\nend of trees\n";
    let codes = TreeEnsemble::from_lightgbm_text(lgb, &schema, &ImportOptions::default()).unwrap();
    assert_eq!(codes.margin_raw(&[-9.0]), -1.0);
    assert_eq!(codes.margin_raw(&[-7.0]), 1.0);
    assert_eq!(codes.margin_raw(&[3.0]), 1.0);
    let missing = TreeEnsemble::from_lightgbm_text(
        lgb,
        &schema,
        &ImportOptions {
            special_as_missing: vec!["x".into()],
            ..ImportOptions::default()
        },
    )
    .unwrap();
    assert_eq!(
        missing.margin_raw(&[-7.0]),
        -1.0,
        "NaN follows default left"
    );
    assert_eq!(missing.margin_raw(&[3.0]), 1.0);
    for (m, r) in [(&codes, -7.0), (&missing, -9.0), (&codes, 0.0)] {
        assert_eq!(m.score(&schema.encode(&[r]).unwrap()), m.margin_raw(&[r]));
    }
    assert!(!codes.has_input_gradient());
    let bad = ImportOptions {
        special_as_missing: vec!["nope".into()],
        ..ImportOptions::default()
    };
    assert!(matches!(
        TreeEnsemble::from_lightgbm_text(lgb, &schema, &bad),
        Err(Error::NotFound(_))
    ));
}

#[test]
fn a_stored_ensemble_is_validated_and_refuses_unknown_keys() {
    let schema = tiny_schema();
    let m = TreeEnsemble::from_xgboost_json(
        &tiny_xgb("binary:logistic", r#"["home=own","years"]"#),
        &schema,
        &ImportOptions::default(),
    )
    .unwrap();
    let json = AnyModel::Trees(m).to_json();
    assert!(AnyModel::from_json(&json, &schema).is_ok());
    let broken = json.replacen("\"left\": 1", "\"left\": 99", 1);
    assert_ne!(broken, json);
    assert!(matches!(
        AnyModel::from_json(&broken, &schema),
        Err(Error::Format(_))
    ));
    let extra = json.replacen("\"roots\"", "\"colour\": 1, \"roots\"", 1);
    match AnyModel::from_json(&extra, &schema) {
        Err(Error::Format(m)) => assert!(m.contains("colour"), "{m}"),
        other => panic!("{other:?}"),
    }
    // An infinite threshold is refused when the ensemble is built (its JSON
    // would write it as null).
    let stump = |threshold: f64| {
        TreeEnsemble::new(
            Source::Xgboost,
            0.0,
            0.5,
            vec![FeatureInput::Value {
                name: "years".into(),
                lower: 0.0,
                upper: 10.0,
                grid: None,
                specials: vec![],
            }],
            vec![0],
            vec![
                Node {
                    test: Test::BelowF32,
                    threshold,
                    left: 1,
                    right: 2,
                    ..Node::leaf(0.0)
                },
                Node::leaf(-1.0),
                Node::leaf(1.0),
            ],
            vec![],
        )
    };
    assert!(stump(3.5).is_ok());
    for t in [f64::INFINITY, f64::NEG_INFINITY, f64::NAN] {
        assert!(matches!(stump(t), Err(Error::Format(_))), "threshold {t}");
    }
    let other = Schema::new(vec![
        Feature::categorical("home", &["rent", "own"]),
        Feature::contiguous("years", 0.0, 10.0).integer(),
    ])
    .unwrap();
    assert!(AnyModel::from_json(&json, &other).is_err());
}

/// Γ̃ and Θ̃ by Monte Carlo through the `Model` trait, against the closed form
/// for a stump on a real-valued feature: accepted iff x > 5 (slot 0.5), the
/// applicant at slot 0.6 with N(0, 0.01) noise on the slot, so
/// Γ = Φ((0.5 − 0.6)/0.1) = Φ(−1) and Θ = Γ·(1 − σ(−1)) + (1 − Γ)·(1 − σ(1)).
#[test]
fn monte_carlo_rates_under_a_stump_equal_the_closed_form() {
    use crate::model::sigmoid;
    use crate::robust::{Estimator, NoiseModel, Workspace};
    let schema = Schema::new(vec![Feature::contiguous("x", 0.0, 10.0)]).unwrap();
    let inputs = vec![FeatureInput::Value {
        name: "x".into(),
        lower: 0.0,
        upper: 10.0,
        grid: None,
        specials: Vec::new(),
    }];
    let root = Node {
        test: Test::AtMost,
        feature: 0,
        threshold: 5.0,
        default_left: false,
        left: 1,
        right: 2,
        value: 0.0,
    };
    let nodes = vec![root, Node::leaf(-1.0), Node::leaf(1.0)];
    let m = TreeEnsemble::new(
        Source::Lightgbm,
        0.0,
        0.5,
        inputs,
        vec![0],
        nodes,
        Vec::new(),
    )
    .unwrap();
    m.check_schema(&schema).unwrap();
    let x = schema.encode(&[6.0]).unwrap();
    assert!(m.accepts(&x));
    let k = 200_000;
    let est = Estimator::new(NoiseModel::gaussian(0.01, vec![0]).unwrap(), k).unwrap();
    let mut ws = Workspace::new(&m, 7);
    let e = est.estimate(&m, &x, &mut ws).unwrap();
    let gamma = crate::noise::normal_cdf(-1.0);
    let theta = gamma * (1.0 - sigmoid(-1.0)) + (1.0 - gamma) * (1.0 - sigmoid(1.0));
    assert!(
        (e.invalidation.value - gamma).abs() < 4.0 * e.invalidation.std_error,
        "Γ̃ {} ± {} vs Γ {gamma}",
        e.invalidation.value,
        e.invalidation.std_error
    );
    assert!(
        (e.soft.value - theta).abs() < 4.0 * e.soft.std_error,
        "Θ̃ {} ± {} vs Θ {theta}",
        e.soft.value,
        e.soft.std_error
    );
    // The gradient generators refuse a model without an input gradient.
    let noise = NoiseModel::gaussian_for_schema(&schema, 0.01).unwrap();
    let refused = crate::robust::wachter(&schema, &m, &noise, &[4.0], &Default::default());
    assert!(matches!(refused, Err(Error::InvalidArgument(m)) if m.contains("gradient")));
}

/// The Monte Carlo block scorer equals the row-by-row evaluator to the bit:
/// on 200 random ensembles (the tree MIP oracle's: special states seen as
/// codes or as missing, grids, categoricals), each under XGBoost's float32 sum
/// and LightGBM's f64 sum, blocks of 64 and 37 noisy copies whose noise on
/// every encoded column (slots and indicators alike) moves values across
/// split thresholds and switches states and levels on and off.
#[test]
fn block_scores_equal_row_by_row_scores_exactly() {
    use crate::coherent::random_instances::random_factual;
    use crate::coherent::random_trees::{random_ensemble, random_schema};
    use crate::model::PERTURBED_BLOCK;
    use rand::{Rng, SeedableRng};
    use rand_xoshiro::Xoshiro256PlusPlus;
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(915);
    let mut differing_scores = 0;
    for _ in 0..200 {
        let schema = random_schema(&mut rng);
        let factual = random_factual(&schema, &mut rng);
        let lgbm = random_ensemble(&schema, &factual, &mut rng);
        let json = serde_json::to_string(&lgbm).unwrap();
        let xgb: TreeEnsemble =
            serde_json::from_str(&json.replace("\"lightgbm\"", "\"xgboost\"")).unwrap();
        assert_eq!(xgb.source(), Source::Xgboost);
        let x = schema.encode(&factual).unwrap();
        let d = x.len();
        // Noise on a random non-empty subset of the columns, sorted.
        let cols: Vec<usize> = (0..d).filter(|_| rng.random_bool(0.7)).collect();
        let cols = if cols.is_empty() { vec![0] } else { cols };
        let deltas: Vec<f64> = (0..cols.len() * PERTURBED_BLOCK)
            .map(|_| rng.random_range(-0.8..0.8))
            .collect();
        for m in [&lgbm, &xgb] {
            let mut scratch = vec![0.0; m.perturbed_scratch_len()];
            m.prepare_perturbed(&x, &cols, &mut scratch);
            for n in [PERTURBED_BLOCK, 37] {
                let mut out = vec![f64::NAN; PERTURBED_BLOCK];
                m.score_perturbed(&x, &cols, &deltas, n, &mut out, &mut scratch);
                let mut seen = Vec::new();
                for (s, &block) in out[..n].iter().enumerate() {
                    let mut point = x.clone();
                    for (k, &c) in cols.iter().enumerate() {
                        point[c] += deltas[k * PERTURBED_BLOCK + s];
                    }
                    let row = m.score(&point);
                    assert_eq!(block.to_bits(), row.to_bits(), "copy {s}: {block} vs {row}");
                    if !seen.contains(&row.to_bits()) {
                        seen.push(row.to_bits());
                    }
                }
                assert!(out[n..].iter().all(|v| v.is_nan()), "wrote past n");
                differing_scores += seen.len() - 1;
            }
        }
    }
    // The noise does move copies between leaves (the test is not vacuous).
    assert!(differing_scores > 1000, "{differing_scores}");
}

/// The committed models of `tests/data/import_rules` (written by
/// `benches/peers/import_rules.py` with XGBoost 3.2 and LightGBM 4.7): the
/// libraries' own margins on rows at and next to every threshold.
fn rules_file(name: &str) -> String {
    let p = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data/import_rules")
        .join(name);
    std::fs::read_to_string(&p).unwrap_or_else(|e| panic!("{}: {e}", p.display()))
}

fn rules_schema(with_d: bool) -> Schema {
    let mut f = vec![
        // Symmetric ranges: 0 is slot ½ and decodes to exactly 0.
        Feature::contiguous("a", -6.0, 6.0).with_special(-99.0, "not reported"),
        Feature::contiguous("b", -8.0, 8.0),
    ];
    if with_d {
        f.push(Feature::contiguous("d", -3.0, 3.0));
    }
    f.push(Feature::categorical("c", &["red", "green", "blue", "grey"]));
    Schema::new(f).unwrap()
}

fn rules_rows(csv: &str) -> Vec<Vec<f64>> {
    csv.lines()
        .skip(1)
        .map(|l| l.split(',').map(|v| v.parse::<f64>().unwrap()).collect())
        .collect()
}

fn as_missing_a() -> ImportOptions {
    ImportOptions {
        special_as_missing: vec!["a".into()],
        ..ImportOptions::default()
    }
}

/// The same ensemble with `default_left` flipped on the nodes `pick` selects.
fn flipped(m: &TreeEnsemble, schema: &Schema, pick: impl Fn(&Node) -> bool) -> TreeEnsemble {
    let mut nodes = m.nodes().to_vec();
    let mut n = 0;
    for node in nodes.iter_mut().filter(|x| pick(x)) {
        node.default_left = !node.default_left;
        n += 1;
    }
    assert!(n > 0, "no node to flip");
    with_nodes(m, schema, nodes)
}

/// The same ensemble with other nodes, through the model JSON (so validated).
fn with_nodes(m: &TreeEnsemble, schema: &Schema, nodes: Vec<Node>) -> TreeEnsemble {
    fn put(v: &mut serde_json::Value, nodes: &serde_json::Value) -> bool {
        if let Some(o) = v.as_object_mut() {
            if o.contains_key("nodes") {
                o.insert("nodes".into(), nodes.clone());
                return true;
            }
            return o.values_mut().any(|x| put(x, nodes));
        }
        false
    }
    let mut json: serde_json::Value =
        serde_json::from_str(&AnyModel::Trees(m.clone()).to_json()).unwrap();
    assert!(put(&mut json, &serde_json::to_value(&nodes).unwrap()));
    match AnyModel::from_json(&json.to_string(), schema).unwrap() {
        AnyModel::Trees(t) => t,
        _ => unreachable!(),
    }
}

#[test]
fn committed_library_models_pin_the_evaluation_rules() {
    // XGBoost: float32 comparisons at and next to each threshold, NaN
    // defaults, a native categorical with stored names.
    let s = rules_schema(false);
    let x = TreeEnsemble::from_xgboost_json(&rules_file("xgb.json"), &s, &as_missing_a()).unwrap();
    let rows = rules_rows(&rules_file("xgb_rows.csv"));
    let w = worst_rules(&x, &s, &rows, &margins(&rules_file("xgb_margins.csv")));
    assert!(w <= 1e-6, "XGBoost: worst margin difference {w}");
    // Each rule matters on these rows: comparing in float64, or flipping the
    // NaN defaults, moves some margin.
    let lib = margins(&rules_file("xgb_margins.csv"));
    let f64_rule = {
        let mut nodes = x.nodes().to_vec();
        for n in nodes.iter_mut().filter(|n| n.test == Test::BelowF32) {
            n.test = Test::AtMost; // x ≤ t in float64 differs from (x as f32) < t
        }
        with_nodes(&x, &s, nodes)
    };
    assert!(worst_unchecked(&f64_rule, &rows, &lib) > 1e-6);
    let nan_flip = flipped(&x, &s, |n| n.test == Test::BelowF32);
    assert!(worst_unchecked(&nan_flip, &rows, &lib) > 1e-6);
    assert!(x.nodes().iter().any(|n| matches!(n.test, Test::Levels(_))));

    // LightGBM: every decision_type (None, Zero, NaN missing types, both
    // default directions, categorical).
    let s = rules_schema(true);
    for name in ["lgbm", "lgbm_zero"] {
        let text = rules_file(&format!("{name}.txt"));
        let m = TreeEnsemble::from_lightgbm_text(&text, &s, &as_missing_a()).unwrap();
        let rows = rules_rows(&rules_file(&format!("{name}_rows.csv")));
        let lib = margins(&rules_file(&format!("{name}_margins.csv")));
        let w = worst_rules(&m, &s, &rows, &lib);
        assert!(w <= 1e-6, "{name}: worst margin difference {w}");
        let tests: Vec<(Test, bool)> = m
            .nodes()
            .iter()
            .filter(|n| n.test != Test::Leaf)
            .map(|n| (n.test, n.default_left))
            .collect();
        assert!(tests.iter().any(|t| matches!(t.0, Test::Levels(_))));
        if name == "lgbm_zero" {
            for dl in [false, true] {
                assert!(tests.contains(&(Test::AtMostZeroMissing, dl)));
            }
            // A flipped zero-as-missing default direction fails these rows.
            let f = flipped(&m, &s, |n| n.test == Test::AtMostZeroMissing);
            assert!(worst_unchecked(&f, &rows, &lib) > 1e-6);
        } else {
            assert!(tests.iter().any(|t| t.0 == Test::AtMost));
            for dl in [false, true] {
                assert!(tests.contains(&(Test::AtMostNanMissing, dl)));
            }
            let f = flipped(&m, &s, |n| n.test == Test::AtMostNanMissing);
            assert!(worst_unchecked(&f, &rows, &lib) > 1e-6);
        }
    }
}

/// [`worst`] on raw rows; the encoded evaluation is compared only on rows
/// the encoding holds exactly (a value one ulp from a threshold, or 1e-30 in
/// a slot of width 16, does not survive `L + slot·(U − L)`).
fn worst_rules(m: &TreeEnsemble, schema: &Schema, rows: &[Vec<f64>], lib: &[f64]) -> f64 {
    let mut compared = 0;
    for r in rows {
        let e = schema.encode(r).unwrap();
        if schema.decode(&e).unwrap() == *r {
            assert_eq!(
                m.margin_raw(r),
                m.score(&e),
                "raw and encoded agree on {r:?}"
            );
            compared += 1;
        }
    }
    assert!(compared >= 10, "{compared} rows round-trip");
    worst_unchecked(m, rows, lib)
}

fn worst_unchecked(m: &TreeEnsemble, rows: &[Vec<f64>], lib: &[f64]) -> f64 {
    rows.iter()
        .zip(lib)
        .map(|(r, l)| (m.margin_raw(r) - l).abs())
        .fold(0.0, f64::max)
}

#[test]
fn a_truncated_lightgbm_file_is_refused_at_every_cut() {
    let s = rules_schema(true);
    let text = rules_file("lgbm.txt");
    let rows = rules_rows(&rules_file("lgbm_rows.csv"));
    let lib = margins(&rules_file("lgbm_margins.csv"));
    let end = text.find("end of trees").unwrap();
    let mut cuts: Vec<usize> = text.match_indices('\n').map(|(i, _)| i + 1).collect();
    // Inside lines too: one byte before each line end.
    cuts.extend(text.match_indices('\n').map(|(i, _)| i.saturating_sub(1)));
    cuts.extend((0..text.len()).step_by(37));
    let (mut refused, mut accepted) = (0, 0);
    for &cut in &cuts {
        let part = &text[..cut];
        match TreeEnsemble::from_lightgbm_text(part, &s, &as_missing_a()) {
            Ok(m) => {
                accepted += 1;
                // Only a cut after the trees may be read, and then exactly.
                assert!(
                    cut > end,
                    "a cut at byte {cut} (before 'end of trees') was accepted"
                );
                let w = worst_unchecked(&m, &rows, &lib);
                assert!(
                    w <= 1e-6,
                    "a cut at byte {cut}: accepted with margins off by {w}"
                );
            }
            Err(e) => {
                refused += 1;
                assert!(matches!(e, Error::Format(_)), "{e:?}");
            }
        }
    }
    assert!(
        refused > 300 && accepted > 0,
        "{refused} refused, {accepted} accepted"
    );
    // A tree removed from the middle, or two trees swapped, is refused too.
    let t1 = text.find("Tree=1\n").unwrap();
    let t2 = text.find("Tree=2\n").unwrap();
    let removed = format!("{}{}", &text[..t1], &text[t2..]);
    assert!(TreeEnsemble::from_lightgbm_text(&removed, &s, &as_missing_a()).is_err());
    // Without tree_sizes (a hand-written file) 'end of trees' is still required.
    let no_sizes: String = text
        .lines()
        .filter(|l| !l.starts_with("tree_sizes="))
        .map(|l| format!("{l}\n"))
        .collect();
    let m = TreeEnsemble::from_lightgbm_text(&no_sizes, &s, &as_missing_a()).unwrap();
    assert!(worst_unchecked(&m, &rows, &lib) <= 1e-6);
    let cut = &no_sizes[..no_sizes.find("Tree=3").unwrap()];
    match TreeEnsemble::from_lightgbm_text(cut, &s, &as_missing_a()) {
        Err(Error::Format(m)) => assert!(m.contains("end of trees"), "{m}"),
        other => panic!("{other:?}"),
    }
    // Windows line ends are measured as LightGBM wrote the file.
    let crlf = text.replace('\n', "\r\n");
    let m = TreeEnsemble::from_lightgbm_text(&crlf, &s, &as_missing_a()).unwrap();
    assert!(worst_unchecked(&m, &rows, &lib) <= 1e-6);
    // XGBoost's JSON cut anywhere is not JSON.
    let s = rules_schema(false);
    let x = rules_file("xgb.json");
    for cut in (1..x.len() - 1).step_by(53) {
        assert!(TreeEnsemble::from_xgboost_json(&x[..cut], &s, &as_missing_a()).is_err());
    }
}

#[test]
fn a_recorded_best_iteration_needs_a_choice_of_trees() {
    let schema = tiny_schema();
    let json = tiny_xgb("binary:logistic", r#"["home=own","years"]"#).replace(
        r#""attributes":{}"#,
        r#""attributes":{"best_iteration":"0"}"#,
    );
    match TreeEnsemble::from_xgboost_json(&json, &schema, &ImportOptions::default()) {
        Err(Error::Format(m)) => {
            assert!(
                m.contains("best_iteration") && m.contains(r#""trees": "all""#),
                "{m}"
            )
        }
        other => panic!("{other:?}"),
    }
    let opts: ImportOptions = serde_json::from_str(r#"{"trees": "best_iteration"}"#).unwrap();
    assert_eq!(opts.trees, Some(TreesUsed::BestIteration));
    let m = TreeEnsemble::from_xgboost_json(&json, &schema, &opts).unwrap();
    assert_eq!(m.n_trees(), 1);
    assert!(
        m.import_report()[0].contains("the first 1 trees"),
        "{:?}",
        m.import_report()
    );
    // The report survives the model JSON.
    let back = AnyModel::from_json(&AnyModel::Trees(m.clone()).to_json(), &schema).unwrap();
    assert_eq!(back, AnyModel::Trees(m));
    // A best iteration beyond the rounds is refused.
    let bad = json.replace(r#""best_iteration":"0""#, r#""best_iteration":"5""#);
    assert!(TreeEnsemble::from_xgboost_json(&bad, &schema, &opts).is_err());
    // Options naming what the schema lacks are refused.
    for o in [
        r#"{"unseen_levels": {"home": ["villa"]}}"#,
        r#"{"missing_levels": {"years": "x"}}"#,
        r#"{"category_codes": {"nope": {}}}"#,
        r#"{"trees": "some"}"#,
    ] {
        let parsed: std::result::Result<ImportOptions, _> = serde_json::from_str(o);
        if let Ok(opts) = parsed {
            assert!(
                TreeEnsemble::from_xgboost_json(&json, &schema, &opts).is_err(),
                "{o}"
            );
        }
    }
}

/// Issue 38's schema for the committed `xgb_pd` / `xgb_missing7` models: `a`
/// with the special state −7 (XGBoost's `missing` in `xgb_missing7`).
fn issue38_schema() -> Schema {
    Schema::new(vec![
        Feature::contiguous("a", -6.0, 6.0).with_special(-7.0, "no record"),
        // −7 lies outside b's range: XGBoost's `missing` applies to every column.
        Feature::contiguous("b", -6.5, 6.5),
    ])
    .unwrap()
}

#[test]
fn a_probability_of_default_model_is_negated_exactly_and_ranked_on_labels() {
    use crate::model::favourable::check_ranking;
    let s = issue38_schema();
    let json = rules_file("xgb_pd.json");
    let rows = rules_rows(&rules_file("xgb_pd_rows.csv"));
    let lib = margins(&rules_file("xgb_pd_margins.csv"));
    let default: Vec<bool> = rules_file("xgb_pd_labels.csv")
        .lines()
        .skip(1)
        .map(|l| l == "1")
        .collect();
    let repaid: Vec<bool> = default.iter().map(|d| !d).collect();
    // Undeclared: class 1 assumed, and the report says so loudly.
    let plain = TreeEnsemble::from_xgboost_json(&json, &s, &ImportOptions::default()).unwrap();
    assert!(
        plain
            .import_report()
            .iter()
            .any(|l| l.contains("NOT DECLARED"))
    );
    assert!(worst_rules(&plain, &s, &rows, &lib) <= 1e-6);
    // Declared as a model of default, by either option: cfx's score is minus
    // the library's margin, bit for bit (a sign flip of every leaf and of the
    // float32 base score), and the cutoff 0.3 on the probability of default
    // becomes 0.7 on the favourable probability.
    for opts in [
        r#"{"favourable_class": 0, "threshold": 0.3}"#,
        r#"{"score_is": "probability_of_default", "threshold": 0.3}"#,
    ] {
        let o: ImportOptions = serde_json::from_str(opts).unwrap();
        let m = TreeEnsemble::from_xgboost_json(&json, &s, &o).unwrap();
        for (r, &l) in rows.iter().zip(&lib) {
            assert_eq!(m.margin_raw(r), -plain.margin_raw(r));
            assert!((m.margin_raw(r) + l).abs() <= 1e-6);
            // Accepted iff the library's probability of default is below 0.3.
            let p_default = crate::model::sigmoid(l);
            if (p_default - 0.3).abs() > 1e-9 {
                assert_eq!(
                    m.accepts(&s.encode(r).unwrap()),
                    p_default < 0.3,
                    "row {r:?}"
                );
            }
        }
        assert!((m.threshold() - 0.7).abs() < 1e-15);
        assert!(m.import_report().iter().any(|l| l.contains("DEFAULT")));
        // The labels agree with the declaration: repaid applicants rank first.
        let scores: Vec<f64> = rows.iter().map(|r| m.margin_raw(r)).collect();
        assert!(check_ranking(&scores, &repaid).unwrap() > 0.7);
    }
    // Read the other way round, the labelled rows refuse it.
    let scores: Vec<f64> = rows.iter().map(|r| plain.margin_raw(r)).collect();
    let e = check_ranking(&scores, &repaid).unwrap_err().to_string();
    assert!(e.contains("favourable_class"), "{e}");
    // A contradiction between the two declarations is refused.
    let o: ImportOptions =
        serde_json::from_str(r#"{"favourable_class": 1, "score_is": "probability_of_default"}"#)
            .unwrap();
    assert!(TreeEnsemble::from_xgboost_json(&json, &s, &o).is_err());
}

#[test]
fn xgboost_missing_sends_the_value_down_the_default_branch_as_the_live_classifier() {
    let s = issue38_schema();
    let json = rules_file("xgb_missing7.json");
    let rows = rules_rows(&rules_file("xgb_missing7_rows.csv"));
    let lib = margins(&rules_file("xgb_missing7_margins.csv"));
    let o: ImportOptions = serde_json::from_str(r#"{"missing": -7}"#).unwrap();
    let m = TreeEnsemble::from_xgboost_json(&json, &s, &o).unwrap();
    assert!(worst_rules(&m, &s, &rows, &lib) <= 1e-6);
    assert!(
        m.import_report()
            .iter()
            .any(|l| l.contains("missing value -7"))
    );
    // Without the option −7 reaches the trees as a number: rows differ.
    let plain = TreeEnsemble::from_xgboost_json(&json, &s, &ImportOptions::default()).unwrap();
    let wrong = rows
        .iter()
        .zip(&lib)
        .filter(|(r, l)| (plain.margin_raw(r) - *l).abs() > 1e-6)
        .count();
    assert!(wrong > 50, "{wrong}");
    // A missing value inside a feature's range, on one-hot columns, or on a
    // LightGBM model is refused, naming the cause.
    let inside: ImportOptions = serde_json::from_str(r#"{"missing": 1.5}"#).unwrap();
    let e = TreeEnsemble::from_xgboost_json(&json, &s, &inside)
        .unwrap_err()
        .to_string();
    assert!(e.contains("inside its range"), "{e}");
    let sl = rules_schema(true);
    let e = TreeEnsemble::from_lightgbm_text(&rules_file("lgbm.txt"), &sl, &o)
        .unwrap_err()
        .to_string();
    assert!(e.contains("LightGBM has none"), "{e}");
    let one_hot: ImportOptions = serde_json::from_str(r#"{"missing": 0}"#).unwrap();
    let e = TreeEnsemble::from_xgboost_json(
        &tiny_xgb("binary:logistic", r#"["home=own","years"]"#),
        &tiny_schema(),
        &one_hot,
    )
    .unwrap_err()
    .to_string();
    assert!(e.contains("one-hot"), "{e}");
}

#[test]
fn integer_categories_and_numeric_level_names_are_read_or_refused() {
    // XGBoost ≥ 3.1 writes integer pandas categories as numbers.
    let s = Schema::new(vec![
        Feature::contiguous("a", -6.0, 6.0),
        Feature::categorical("c", &["1", "2", "5", "9"]),
    ])
    .unwrap();
    let m = TreeEnsemble::from_xgboost_json(
        &rules_file("xgb_intcat.json"),
        &s,
        &ImportOptions::default(),
    )
    .unwrap();
    let rows = rules_rows(&rules_file("xgb_intcat_rows.csv"));
    let lib = margins(&rules_file("xgb_intcat_margins.csv"));
    assert!(worst_rules(&m, &s, &rows, &lib) <= 1e-6);
    // A plain integer column split numerically, declared categorical with
    // levels named "1".."4": refused without the values, exact with them.
    let s = Schema::new(vec![
        Feature::contiguous("a", -6.0, 6.0),
        Feature::categorical("e", &["1", "2", "3", "4"]),
    ])
    .unwrap();
    let json = rules_file("xgb_ordinal.json");
    let e = TreeEnsemble::from_xgboost_json(&json, &s, &ImportOptions::default())
        .unwrap_err()
        .to_string();
    assert!(e.contains("named like a number"), "{e}");
    let o: ImportOptions =
        serde_json::from_str(r#"{"category_codes": {"e": {"1": 1, "2": 2, "3": 3, "4": 4}}}"#)
            .unwrap();
    let m = TreeEnsemble::from_xgboost_json(&json, &s, &o).unwrap();
    let rows = rules_rows(&rules_file("xgb_ordinal_rows.csv"));
    let lib = margins(&rules_file("xgb_ordinal_margins.csv"));
    assert!(worst_rules(&m, &s, &rows, &lib) <= 1e-6);
    // The positions (what cfx fed before) score other margins.
    let pos: ImportOptions =
        serde_json::from_str(r#"{"category_codes": {"e": {"1": 0, "2": 1, "3": 2, "4": 3}}}"#)
            .unwrap();
    let p = TreeEnsemble::from_xgboost_json(&json, &s, &pos).unwrap();
    assert!(worst_unchecked(&p, &rows, &lib) > 1e-6);
}

/// Issue 41, tests that can fail: a LightGBM categorical split over 40
/// levels stores its set in a bitset of two 32-bit words, and XGBoost's
/// default `max_cat_to_onehot` (4) makes the splits of a three-level
/// categorical one-hot (one level against the rest). Oracle: the libraries'
/// own margins (`benches/peers/import_rules.py`, `--only wide_onehot`) on
/// every level at five values of `b`. A reader of the first word only — every
/// level from 32 on sent right — fails these rows.
#[test]
fn wide_lightgbm_bitsets_and_default_one_hot_xgboost_splits_match_the_libraries() {
    let names: Vec<String> = (0..40).map(|k| format!("L{k:02}")).collect();
    let levels: Vec<&str> = names.iter().map(String::as_str).collect();
    let s = Schema::new(vec![
        Feature::contiguous("b", -8.0, 8.0),
        Feature::categorical("w", &levels),
    ])
    .unwrap();
    let m = TreeEnsemble::from_lightgbm_text(
        &rules_file("lgbm_wide.txt"),
        &s,
        &ImportOptions::default(),
    )
    .unwrap();
    let rows = rules_rows(&rules_file("lgbm_wide_rows.csv"));
    let lib = margins(&rules_file("lgbm_wide_margins.csv"));
    assert_eq!((rows.len(), lib.len()), (200, 200));
    let w = worst_rules(&m, &s, &rows, &lib);
    assert!(
        w <= 1e-6,
        "LightGBM, 40 levels: worst margin difference {w}"
    );
    let high_left = m
        .nodes()
        .iter()
        .filter_map(|n| match n.test {
            Test::Levels(off) => Some(off as usize),
            _ => None,
        })
        .filter(|&off| (32..40).any(|k| m.level_left[off + k]))
        .count();
    assert!(high_left > 0, "no split sends a level from 32 on left");
    let mut first_word_only = m.clone();
    for n in m.nodes() {
        if let Test::Levels(off) = n.test {
            for k in 32..40 {
                first_word_only.level_left[off as usize + k] = false;
            }
        }
    }
    assert!(worst_unchecked(&first_word_only, &rows, &lib) > 1e-6);

    let s = Schema::new(vec![
        Feature::contiguous("b", -8.0, 8.0),
        Feature::categorical("k", &["low", "mid", "high"]),
    ])
    .unwrap();
    let x = TreeEnsemble::from_xgboost_json(
        &rules_file("xgb_onehot.json"),
        &s,
        &ImportOptions::default(),
    )
    .unwrap();
    let rows = rules_rows(&rules_file("xgb_onehot_rows.csv"));
    let lib = margins(&rules_file("xgb_onehot_margins.csv"));
    assert_eq!((rows.len(), lib.len()), (15, 15));
    let one_hot = x
        .nodes()
        .iter()
        .filter_map(|n| match n.test {
            Test::Levels(off) => Some(off as usize),
            _ => None,
        })
        .filter(|&off| (0..3).filter(|&k| !x.level_left[off + k]).count() == 1)
        .count();
    assert!(one_hot > 0, "no one-hot split (one level against the rest)");
    let w = worst_unchecked(&x, &rows, &lib);
    assert!(w <= 1e-6, "XGBoost one-hot: worst margin difference {w}");
    // the oracle sees the categorical splits: every level sent left moves margins
    let mut all_left = x.clone();
    for n in x.nodes() {
        if let Test::Levels(off) = n.test {
            for k in 0..3 {
                all_left.level_left[off as usize + k] = true;
            }
        }
    }
    assert!(worst_unchecked(&all_left, &rows, &lib) > 1e-6);
}

#[test]
fn xgboost_float32_cut_edges_on_real_valued_features_score_as_xgboost_does() {
    // `tests/data/import_rules/xgb_f32*` (benches/peers/import_rules.py
    // `--only f32_edges`): XGBoost's split conditions are float32 values on
    // three real-valued columns; every row puts one column at a threshold t,
    // at its float64 neighbours (which round onto t in float32), at its
    // float32 neighbours (which do not), at the midpoints between them (ties)
    // and at the midpoints' float64 neighbours. The oracle is XGBoost's own
    // margin on each row, which reads the row as float32.
    let s = Schema::new(vec![
        Feature::contiguous("u", -3.0, 3.0),
        Feature::contiguous("v", -8.0, 8.0),
        Feature::contiguous("w", 0.0, 10.0),
    ])
    .unwrap();
    let x =
        TreeEnsemble::from_xgboost_json(&rules_file("xgb_f32.json"), &s, &ImportOptions::default())
            .unwrap();
    let rows = rules_rows(&rules_file("xgb_f32_rows.csv"));
    let lib = margins(&rules_file("xgb_f32_margins.csv"));
    assert_eq!(rows.len(), lib.len());
    for (k, (r, l)) in rows.iter().zip(&lib).enumerate() {
        let m = x.margin_raw(r);
        assert!((m - l).abs() <= 1e-6, "row {k} {r:?}: cfx {m}, XGBoost {l}");
    }
    // The rows test both sides of the rounding: values below a threshold in
    // float64 that round onto it in float32 (XGBoost sends them right) and
    // float32 neighbours below it (left), on non-integer thresholds.
    let splits: Vec<(usize, f64)> = x
        .nodes()
        .iter()
        .filter(|n| n.test == Test::BelowF32)
        .map(|n| (n.feature as usize, n.threshold))
        .collect();
    assert!(!splits.is_empty());
    assert!(splits.iter().all(|&(_, t)| t.fract() != 0.0));
    let (mut onto, mut not_onto) = (0, 0);
    for r in &rows {
        for &(f, t) in &splits {
            if r[f] < t && (r[f] as f32) as f64 == t {
                onto += 1;
            }
            if r[f] < t && (r[f] as f32) == (t as f32).next_down() {
                not_onto += 1;
            }
        }
    }
    assert!(
        onto >= splits.len() && not_onto >= splits.len(),
        "{onto} {not_onto}"
    );
    // Comparing in float64 instead moves margins: the rows see the rule.
    let f64_rule = {
        let mut nodes = x.nodes().to_vec();
        for n in nodes.iter_mut().filter(|n| n.test == Test::BelowF32) {
            n.test = Test::AtMost;
        }
        with_nodes(&x, &s, nodes)
    };
    assert!(worst_unchecked(&f64_rule, &rows, &lib) > 1e-6);
}

/// scikit-learn's gradient boosting adds each tree's leaf to the running
/// margin that starts at the initial raw prediction (`predict_stages`,
/// `_predict_iterations`); ONNX sums the trees first. In float64 the order
/// shows: 0.1 + 0.2 + 0.3 is 0.6000000000000001 from the base, 0.6 from the
/// trees (Python prints both). The `sklearn` source must give the former,
/// what `decision_function` gives (bindings/python/tests/test_sklearn_live.py
/// checks whole estimators bit for bit).
#[test]
fn sklearn_sums_from_the_base_in_tree_order() {
    let input = || {
        vec![FeatureInput::Value {
            name: "x".into(),
            lower: 0.0,
            upper: 1.0,
            grid: None,
            specials: vec![],
        }]
    };
    let nodes = vec![Node::leaf(0.2), Node::leaf(0.3)];
    let margin = |source| {
        TreeEnsemble::new(source, 0.1, 0.5, input(), vec![0, 1], nodes.clone(), vec![])
            .unwrap()
            .margin_raw(&[0.5])
    };
    assert_eq!(margin(Source::Sklearn), (0.1 + 0.2) + 0.3);
    assert_eq!(
        margin(Source::Sklearn).to_bits(),
        0.6000000000000001f64.to_bits()
    );
    assert_eq!(margin(Source::OnnxF64).to_bits(), 0.6f64.to_bits());
}
