//! The separable solver against HiGHS (an independent solver of the same
//! scorecard MIP) on every declined held-out applicant of German credit under
//! the bundled optbinning scorecard (`examples/data/german_scorecard_table.csv`;
//! cutoff and scaling from `examples/data/german_scorecard.md`): same
//! feasibility, same cost within 1e-9 relative, both answers valid, coherent
//! and actionable; and Russell's diverse sets cost the same round by round.

use cfx::coherent::{Config, Explanation, ProvedBy, SolverChoice, explain_batch};
use cfx::data::{bundled_german_path, german_credit};
use cfx::model::scorecard::import::{ImportOptions, from_optbinning_path};
use cfx::model::{Model, ScoreScaling, Scorecard};
use cfx::schema::Schema;

fn german() -> (Schema, Scorecard, Vec<Vec<f64>>) {
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
    (schema, card, declined)
}

fn with_solver(solver: SolverChoice, n_diverse: usize) -> Config {
    Config {
        solver,
        n_diverse,
        ..Config::default()
    }
}

fn same_cost(a: f64, b: f64) -> bool {
    (a - b).abs() <= 1e-9 * a.abs().max(b.abs()) + 1e-12
}

fn check(schema: &Schema, card: &Scorecard, ex: &Explanation, by: ProvedBy) {
    assert_eq!(ex.proved_by, by);
    for cf in &ex.counterfactuals {
        assert_eq!(cf.proved_by, by);
        let enc = schema.encode(&cf.raw).unwrap();
        assert_eq!(schema.decode(&enc).unwrap(), cf.raw, "coherent");
        let points = card.score_raw(schema, &cf.raw).unwrap();
        assert!(points >= card.cutoff, "valid: {points}");
        assert!(card.accepts(&enc));
        schema.check_actionable(&ex.factual, &cf.raw).unwrap();
    }
}

#[test]
fn german_scorecard_separable_costs_equal_highs_on_every_declined_applicant() {
    let (schema, card, declined) = german();
    assert!(declined.len() >= 30, "{} declined", declined.len());
    let mut feasible = 0;
    for n in [1, 5] {
        let sep = explain_batch(
            &schema,
            &card,
            &declined,
            &with_solver(SolverChoice::Auto, n),
            n > 1,
        )
        .unwrap();
        let mip = explain_batch(
            &schema,
            &card,
            &declined,
            &with_solver(SolverChoice::Mip, n),
            n > 1,
        )
        .unwrap();
        for (a, b) in sep.iter().zip(&mip) {
            let (a, b) = (a.as_ref().unwrap(), b.as_ref().unwrap());
            check(&schema, &card, a, ProvedBy::Separable);
            check(&schema, &card, b, ProvedBy::Highs);
            assert_eq!(a.outcome, b.outcome, "{:?}", a.factual);
            // Round by round while the two solvers' answers coincide (after a
            // tie the rounds' fixes may differ).
            for (x, y) in a.counterfactuals.iter().zip(&b.counterfactuals) {
                assert!(
                    same_cost(x.cost, y.cost),
                    "separable {} vs HiGHS {} for {:?}",
                    x.cost,
                    y.cost,
                    a.factual
                );
                if x.raw != y.raw {
                    break;
                }
            }
            if n == 1 {
                feasible += usize::from(!a.counterfactuals.is_empty());
            }
        }
    }
    eprintln!("{feasible}/{} declined with recourse", declined.len());
    assert!(feasible >= declined.len() / 2);
}
