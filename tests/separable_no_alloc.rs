//! The separable solver's per-applicant work never touches the heap once its
//! workspace has seen a program of the size: building the menus (of a linear
//! model, and of a points scorecard), solving, and writing the answer's encoded
//! vector. A counting global allocator (per
//! thread, so other test threads do not interfere) must see zero allocations.
//! (Building a `Counterfactual` from the answer — decode, change list, texts —
//! does allocate; it is not part of this loop.)

use cfx::coherent::separable::{SolveStatus, Workspace};
use cfx::data::{bundled_german_path, german_credit};
use cfx::model::scorecard::import::{ImportOptions, from_optbinning_path};
use cfx::model::{LinearModel, LogisticFit, Model, ScoreScaling, logit};
#[path = "common/counting_alloc.rs"]
mod counting_alloc;
use counting_alloc::allocations_during;

#[test]
fn separable_solves_allocate_nothing_given_a_workspace() {
    let d = german_credit(&bundled_german_path()).unwrap();
    let (train, test) = d.holdout_split();
    let mut schema = train.schema.clone();
    schema.fit_weights(&train.rows).unwrap();
    let x = schema.encode_rows(&train.rows).unwrap();
    let model = LinearModel::fit(&x, &train.labels, LogisticFit::default()).unwrap();
    let declined: Vec<Vec<f64>> = test
        .rows
        .iter()
        .filter(|r| !model.accepts(&schema.encode(r).unwrap()))
        .cloned()
        .collect();
    assert!(declined.len() >= 30);
    let mut ws = Workspace::new();
    let mut enc = vec![0.0; schema.encoded_dim()];
    let mut total = 0.0;
    let mut optimal = 0;
    let mut pass = |ws: &mut Workspace, total: &mut f64, optimal: &mut usize| {
        for r in &declined {
            ws.build_linear(&schema, &model, r, &[]).unwrap();
            let need = logit(model.threshold) + 1e-6 - ws.factual_score();
            let s = ws.solve(need);
            if s.status == SolveStatus::Optimal {
                ws.write_encoded(&schema, &mut enc).unwrap();
                *total += s.cost + enc[0];
                *optimal += 1;
            }
        }
    };
    pass(&mut ws, &mut total, &mut optimal); // the workspace grows to size here
    let n = allocations_during(|| pass(&mut ws, &mut total, &mut optimal));
    assert!(total.is_finite());
    assert_eq!(
        optimal,
        2 * declined.len(),
        "every German applicant has recourse"
    );
    assert_eq!(
        n,
        0,
        "{n} allocations in {} separable solves",
        declined.len()
    );
}

#[test]
fn separable_scorecard_solves_allocate_nothing_given_a_workspace() {
    let d = german_credit(&bundled_german_path()).unwrap();
    let (train, test) = d.holdout_split();
    let mut schema = train.schema.clone();
    schema.fit_weights(&train.rows).unwrap();
    let options = ImportOptions {
        cutoff: 487.1228762045055,
        scaling: Some(ScoreScaling::new(28.85390081777927, 487.1228762045055).unwrap()),
        refuse_unlisted_levels: false,
        favourable: Default::default(),
        unused_features: Vec::new(),
    };
    let table = bundled_german_path().with_file_name("german_scorecard_table.csv");
    let card = from_optbinning_path(&schema, &table, &options)
        .unwrap()
        .scorecard;
    let declined: Vec<Vec<f64>> = test
        .rows
        .iter()
        .filter(|r| !card.accepts_points(card.score_raw(&schema, r).unwrap()))
        .cloned()
        .collect();
    assert!(declined.len() >= 30);
    let mut ws = Workspace::new();
    let mut enc = vec![0.0; schema.encoded_dim()];
    let mut total = 0.0;
    let mut optimal = 0;
    let mut pass = |ws: &mut Workspace, total: &mut f64, optimal: &mut usize| {
        for r in &declined {
            ws.build_scorecard(&schema, &card, r, &[]).unwrap();
            let s = ws.solve(card.cutoff - ws.factual_score());
            if s.status == SolveStatus::Optimal {
                ws.write_encoded(&schema, &mut enc).unwrap();
                *total += s.cost + enc[0];
                *optimal += 1;
            }
        }
    };
    pass(&mut ws, &mut total, &mut optimal); // the workspace grows to size here
    let n = allocations_during(|| pass(&mut ws, &mut total, &mut optimal));
    assert!(total.is_finite());
    assert!(optimal > declined.len(), "{optimal} optimal solves");
    assert_eq!(
        n,
        0,
        "{n} allocations in {} separable scorecard solves",
        declined.len()
    );
}
