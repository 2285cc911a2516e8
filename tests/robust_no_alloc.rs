//! The estimate hot loops never touch the heap: a counting global allocator
//! (per thread, so other test threads do not interfere) must see zero
//! allocations during estimates of K samples, once the workspace exists.

use cfx::model::{LinearModel, MlpModel, MlpTraining, Model};
use cfx::robust::{
    Estimator, NoiseModel, Sampling, Workspace, linear_invalidation_rate, probe_invalidation_rate,
};
#[path = "common/counting_alloc.rs"]
mod counting_alloc;
use counting_alloc::allocations_during;

fn check_model<M: Model>(model: &M, x: &[f64], noise: &NoiseModel) {
    let mut ws = Workspace::new(model, 1);
    for sampling in [Sampling::Auto, Sampling::Generic] {
        let est = Estimator::new(noise.clone(), 10_000)
            .unwrap()
            .with_sampling(sampling);
        let mut sink = 0.0;
        let n = allocations_during(|| {
            for _ in 0..3 {
                sink += est.invalidation_rate(model, x, &mut ws).unwrap().value;
                sink += est.soft_invalidation_rate(model, x, &mut ws).unwrap().value;
                let e = est.estimate(model, x, &mut ws).unwrap();
                sink += e.invalidation.value + e.soft.std_error;
                sink += est.bound(model, x, 0.1, &mut ws).unwrap().1.value;
                sink += probe_invalidation_rate(model, x, noise, &mut ws).unwrap();
            }
        });
        assert!(sink.is_finite());
        assert_eq!(
            n, 0,
            "{model:?} {sampling:?}: {n} heap allocations during estimates"
        );
    }
}

#[test]
fn estimates_never_allocate() {
    // The counter sees allocations (so a zero below means something).
    let n = allocations_during(|| {
        let v: Vec<f64> = std::hint::black_box(vec![1.0; 10]);
        assert_eq!(v.len(), 10);
    });
    assert_eq!(n, 1);
    let d = 23;
    let x: Vec<f64> = (0..d).map(|j| (j as f64 * 0.37).fract()).collect();
    let noise = NoiseModel::gaussian(0.01, (0..d).step_by(2).collect()).unwrap();
    let w: Vec<f64> = (0..d).map(|j| ((j * 7 % 5) as f64 - 2.0) * 0.4).collect();
    let lin = LinearModel::new(w, -0.1, 0.5).unwrap();
    check_model(&lin, &x, &noise);
    let n = allocations_during(|| {
        assert!(linear_invalidation_rate(&lin, &x, &noise).unwrap() >= 0.0);
    });
    assert_eq!(n, 0);

    let rows: Vec<Vec<f64>> = (0..200)
        .map(|i| {
            (0..d)
                .map(|j| ((i * 31 + j * 17) % 101) as f64 / 100.0)
                .collect()
        })
        .collect();
    let y: Vec<f64> = rows.iter().map(|r| f64::from(r[0] + r[3] > 1.0)).collect();
    let mlp = MlpModel::train(
        &rows,
        &y,
        &MlpTraining {
            epochs: 3,
            ..Default::default()
        },
    )
    .unwrap();
    check_model(&mlp, &x, &noise);
    let uniform = NoiseModel::uniform(0.1, (0..d).collect()).unwrap();
    let mut ws = Workspace::new(&mlp, 3);
    let est = Estimator::new(uniform, 5_000).unwrap();
    let n = allocations_during(|| {
        assert!(est.estimate(&mlp, &x, &mut ws).unwrap().soft.value >= 0.0);
    });
    assert_eq!(n, 0);
}

/// The C entry points on a workspace allocate nothing either (after one
/// warm-up call, which may register the thread's last-error slot).
#[test]
fn c_abi_workspace_entry_points_never_allocate() {
    use cfx::ffi::model::{cfx_model, cfx_model_free, cfx_model_from_json};
    use cfx::ffi::robust::*;
    use cfx::ffi::schema::{cfx_schema, cfx_schema_free, cfx_schema_from_json};
    use cfx::ffi::status::cfx_status;
    use cfx::model::AnyModel;
    use cfx::schema::{Feature, Schema};
    use std::ffi::CString;

    let d = 12;
    let schema = Schema::new(
        (0..d)
            .map(|j| Feature::contiguous(&format!("f{j}"), 0.0, 1.0))
            .collect(),
    )
    .unwrap();
    let rows: Vec<Vec<f64>> = (0..100)
        .map(|i| {
            (0..d)
                .map(|j| ((i * 13 + j * 7) % 29) as f64 / 28.0)
                .collect()
        })
        .collect();
    let y: Vec<f64> = rows.iter().map(|r| f64::from(r[0] + r[1] > 1.0)).collect();
    let mlp = MlpModel::train(
        &rows,
        &y,
        &MlpTraining {
            epochs: 2,
            ..Default::default()
        },
    )
    .unwrap();
    let lin = LinearModel::new((0..d).map(|j| j as f64 * 0.1 - 0.5).collect(), 0.2, 0.5).unwrap();
    let sj = CString::new(schema.to_json()).unwrap();
    let x: Vec<f64> = (0..d).map(|j| (j as f64 * 0.31).fract()).collect();
    unsafe {
        let mut s: *const cfx_schema = std::ptr::null();
        assert_eq!(cfx_schema_from_json(sj.as_ptr(), &mut s), cfx_status::Ok);
        let mut noise: *const cfx_noise = std::ptr::null();
        assert_eq!(cfx_noise_gaussian_new(s, 0.01, &mut noise), cfx_status::Ok);
        for any in [AnyModel::Linear(lin), AnyModel::Mlp(mlp)] {
            let mj = CString::new(any.to_json()).unwrap();
            let mut m: *const cfx_model = std::ptr::null();
            assert_eq!(cfx_model_from_json(s, mj.as_ptr(), &mut m), cfx_status::Ok);
            let mut est: *const cfx_estimator = std::ptr::null();
            assert_eq!(cfx_estimator_new(noise, 5000, 0, &mut est), cfx_status::Ok);
            let mut ws: *mut cfx_workspace = std::ptr::null_mut();
            assert_eq!(cfx_workspace_new(m, 3, &mut ws), cfx_status::Ok);
            let (mut g, mut gse, mut t, mut tse, mut b, mut c, mut p) =
                (0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0);
            let mut call = || {
                assert_eq!(
                    cfx_estimator_estimate(
                        est,
                        m,
                        ws,
                        x.as_ptr(),
                        d,
                        &mut g,
                        &mut gse,
                        &mut t,
                        &mut tse
                    ),
                    cfx_status::Ok
                );
                assert_eq!(
                    cfx_estimator_bound(est, m, ws, x.as_ptr(), d, 0.1, &mut t, &mut b, &mut c),
                    cfx_status::Ok
                );
                assert_eq!(
                    cfx_estimator_probe_rate(est, m, ws, x.as_ptr(), d, &mut p),
                    cfx_status::Ok
                );
                assert_eq!(cfx_workspace_reseed(ws, 3), cfx_status::Ok);
            };
            call();
            let n = allocations_during(|| {
                for _ in 0..3 {
                    call();
                }
            });
            assert_eq!(n, 0, "C ABI estimates allocated {n} times");
            assert!(g >= 0.0 && b >= t && p >= 0.0);
            cfx_workspace_free(ws);
            cfx_estimator_free(est);
            cfx_model_free(m);
        }
        cfx_noise_free(noise);
        cfx_schema_free(s);
    }
}

/// Batch memory does not grow with the batch: on one thread (run inline, so
/// the per-thread counter sees everything) estimating 3,000 points allocates
/// exactly as often as estimating 300 — one workspace, nothing per point.
#[test]
fn batch_allocations_do_not_grow_with_the_batch() {
    let d = 23;
    let w: Vec<f64> = (0..d).map(|j| ((j * 5 % 7) as f64 - 3.0) * 0.3).collect();
    let lin = LinearModel::new(w, 0.1, 0.5).unwrap();
    let est = Estimator::new(NoiseModel::gaussian(0.01, (0..d).collect()).unwrap(), 50).unwrap();
    let count = |n: usize| {
        let pts: Vec<f64> = (0..n * d).map(|i| (i as f64 * 0.013).fract()).collect();
        let mut out = vec![cfx::robust::Estimate::default(); n];
        allocations_during(|| est.estimate_batch_into(&lin, &pts, 1, 1, &mut out).unwrap())
    };
    let small = count(300);
    let large = count(3000);
    assert_eq!(small, large);
    assert!(large <= 8, "{large} allocations for a batch");
}

#[test]
fn scorecard_estimates_never_allocate() {
    use cfx::model::{Bin, BinRange, Characteristic, ScoreScaling, Scorecard};
    use cfx::schema::{Feature, Schema};
    let schema = Schema::new(vec![
        Feature::contiguous("a", 0.0, 10.0).with_special(-7.0, "none"),
        Feature::categorical("c", &["x", "y"]),
        Feature::contiguous("b", 0.0, 1.0),
    ])
    .unwrap();
    let iv = |lo: Option<f64>, hi: Option<f64>, points: f64| Bin {
        range: BinRange::Interval {
            lower: lo,
            upper: hi,
            lower_closed: lo.is_some(),
            upper_closed: false,
        },
        points,
    };
    let card = Scorecard::new(
        &schema,
        10.0,
        20.0,
        Some(ScoreScaling::new(5.0, 20.0).unwrap()),
        vec![
            Characteristic {
                feature: "a".into(),
                bins: vec![
                    iv(None, Some(4.0), 2.0),
                    iv(Some(4.0), None, 12.0),
                    Bin {
                        range: BinRange::Special { codes: vec![-7.0] },
                        points: 5.0,
                    },
                ],
            },
            Characteristic {
                feature: "b".into(),
                bins: vec![iv(None, Some(0.5), 0.0), iv(Some(0.5), None, 3.0)],
            },
        ],
    )
    .unwrap();
    let x = schema.encode(&[4.5, 1.0, 0.6]).unwrap();
    let noise = NoiseModel::gaussian_for_schema(&schema, 0.01).unwrap();
    let mut ws = Workspace::new(&card, 1);
    let est = Estimator::new(noise, 10_000).unwrap();
    let mut sink = 0.0;
    let n = allocations_during(|| {
        for _ in 0..3 {
            let e = est.estimate(&card, &x, &mut ws).unwrap();
            sink += e.invalidation.value + e.soft.value;
            sink += est.bound(&card, &x, 0.1, &mut ws).unwrap().1.value;
        }
    });
    assert!(sink.is_finite() && sink > 0.0);
    assert_eq!(n, 0, "{n} heap allocations during scorecard estimates");
}

/// Tree ensembles' Monte Carlo estimates (the block scorer) and batches never
/// touch the heap once the workspace exists: a two-tree ensemble with a
/// special state seen as missing, a grid feature and a categorical split, in
/// both libraries' sums.
#[test]
fn tree_estimates_never_allocate() {
    use cfx::model::TreeEnsemble;
    use cfx::model::trees::{FeatureInput, Node, Source, SpecialInput, Test};
    use cfx::schema::{Feature, Schema};
    let schema = Schema::new(vec![
        Feature::contiguous("a", 0.0, 10.0).with_special(-7.0, "none"),
        Feature::categorical("c", &["x", "y"]),
        Feature::contiguous("b", 0.0, 8.0).integer(),
    ])
    .unwrap();
    let inputs = vec![
        FeatureInput::Value {
            name: "a".into(),
            lower: 0.0,
            upper: 10.0,
            grid: None,
            specials: vec![SpecialInput {
                code: -7.0,
                as_missing: true,
            }],
        },
        FeatureInput::Levels {
            name: "c".into(),
            levels: 2,
        },
        FeatureInput::Value {
            name: "b".into(),
            lower: 0.0,
            upper: 8.0,
            grid: Some((0.0, 1.0)),
            specials: Vec::new(),
        },
    ];
    let split = |test, feature, threshold, left, right| Node {
        test,
        feature,
        threshold,
        default_left: true,
        left,
        right,
        value: 0.0,
    };
    let nodes = vec![
        // tree 0: a < 4.5 ? (c ∈ {x} ? −1 : 0.5) : 1
        split(Test::BelowF32, 0, 4.5, 1, 4),
        split(Test::Levels(0), 1, 0.0, 2, 3),
        Node::leaf(-1.0),
        Node::leaf(0.5),
        Node::leaf(1.0),
        // tree 1: b < 3 ? −0.5 : 0.7
        split(Test::BelowF32, 2, 3.0, 6, 7),
        Node::leaf(-0.5),
        Node::leaf(0.7),
    ];
    let x = schema.encode(&[4.5, 1.0, 3.0]).unwrap();
    let noise = NoiseModel::gaussian_for_schema(&schema, 0.01).unwrap();
    for source in [Source::Xgboost, Source::Lightgbm] {
        let m = TreeEnsemble::new(
            source,
            -0.2,
            0.5,
            inputs.clone(),
            vec![0, 5],
            nodes.clone(),
            vec![true, false],
        )
        .unwrap();
        m.check_schema(&schema).unwrap();
        let mut ws = Workspace::new(&m, 1);
        let est = Estimator::new(noise.clone(), 10_000).unwrap();
        let mut sink = 0.0;
        let n = allocations_during(|| {
            for _ in 0..3 {
                let e = est.estimate(&m, &x, &mut ws).unwrap();
                sink += e.invalidation.value + e.soft.value;
                sink += est.bound(&m, &x, 0.1, &mut ws).unwrap().1.value;
            }
        });
        // The applicant sits on both thresholds' accepting side at the edge:
        // noise invalidates a real share of the copies.
        assert!(sink.is_finite() && sink > 0.1, "{sink}");
        assert_eq!(
            n, 0,
            "{n} heap allocations during tree estimates ({source:?})"
        );
        let count = |k: usize| {
            let pts: Vec<f64> = x.iter().copied().cycle().take(k * x.len()).collect();
            let mut out = vec![cfx::robust::Estimate::default(); k];
            let est = Estimator::new(noise.clone(), 50).unwrap();
            allocations_during(|| est.estimate_batch_into(&m, &pts, 1, 1, &mut out).unwrap())
        };
        assert_eq!(count(300), count(3000));
    }
}
