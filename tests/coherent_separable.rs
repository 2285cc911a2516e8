//! The separable solver against HiGHS (an independent solver of the same MIP) on
//! every declined held-out applicant of German credit (bundled), FICO HELOC and
//! Taiwan default (shared data; skipped when absent, failing under CI), under the
//! logistic model cfx fits: same feasibility, same cost within 1e-9 relative —
//! or, where HiGHS's answer falls short of the decision target by its own
//! feasibility tolerance, an undercut of at most 2e-9. And Russell's diverse
//! sets on German cost the same round by round on both solvers.

mod common;

use cfx::coherent::{
    Config, Counterfactual, DiversityRule, Explanation, ProvedBy, SolverChoice, explain_batch,
};
use cfx::data::{Dataset, bundled_german_path, german_credit, heloc, taiwan};
use cfx::model::{LinearModel, LogisticFit, Model, logit};
use cfx::schema::Schema;

fn fitted(d: &Dataset) -> (Schema, LinearModel, Vec<Vec<f64>>) {
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
    (schema, model, declined)
}

fn with_solver(solver: SolverChoice) -> Config {
    Config {
        solver,
        ..Config::default()
    }
}

fn same_cost(a: f64, b: f64) -> bool {
    (a - b).abs() <= 1e-9 * a.abs().max(b.abs()) + 1e-12
}

/// The separable answer `x` and HiGHS's `y` agree: the same cost within 1e-9
/// relative, or HiGHS's answer falls short of the decision `target` (within its
/// feasibility tolerance, 1e-9) and undercuts by no more than 2e-9.
fn answers_agree(x: &Counterfactual, y: &Counterfactual, target: f64) -> bool {
    same_cost(x.cost, y.cost) || (y.score < target && y.cost < x.cost && x.cost - y.cost <= 2e-9)
}

/// Explains every declined applicant with both solvers and compares; returns
/// (applicants, with recourse).
fn agree(name: &str, d: &Dataset) -> (usize, usize) {
    let (schema, model, declined) = fitted(d);
    assert!(!declined.is_empty(), "{name}: no declined applicant");
    let sep = explain_batch(
        &schema,
        &model,
        &declined,
        &with_solver(SolverChoice::Separable),
        false,
    )
    .unwrap();
    let mip = explain_batch(
        &schema,
        &model,
        &declined,
        &with_solver(SolverChoice::Mip),
        false,
    )
    .unwrap();
    let target = logit(model.threshold) + Config::default().margin;
    let mut with_recourse = 0;
    for (k, (a, b)) in sep.iter().zip(&mip).enumerate() {
        let (a, b) = (a.as_ref().unwrap(), b.as_ref().unwrap());
        assert_eq!(a.proved_by, ProvedBy::Separable);
        assert_eq!(b.proved_by, ProvedBy::Highs);
        match (a.counterfactuals.first(), b.counterfactuals.first()) {
            (Some(x), Some(y)) => {
                assert_eq!(x.proved_by, ProvedBy::Separable);
                let enc = schema.encode(&x.raw).unwrap();
                assert_eq!(schema.decode(&enc).unwrap(), x.raw);
                assert!(model.accepts(&enc));
                schema.check_actionable(&a.factual, &x.raw).unwrap();
                assert!(x.score >= target - 1e-12, "{name} #{k}");
                assert!(
                    answers_agree(x, y, target),
                    "{name} #{k}: separable {} ({}) vs HiGHS {} ({})",
                    x.cost,
                    x.describe(),
                    y.cost,
                    y.describe()
                );
                with_recourse += 1;
            }
            (None, None) => assert_eq!(a.outcome, b.outcome, "{name} #{k}"),
            (x, y) => panic!(
                "{name} #{k}: separable {:?} ({:?}) vs HiGHS {:?} ({:?})",
                x.map(|c| c.cost),
                a.outcome,
                y.map(|c| c.cost),
                b.outcome
            ),
        }
    }
    eprintln!(
        "{name}: {} declined, {with_recourse} with recourse, both solvers agree",
        declined.len()
    );
    (declined.len(), with_recourse)
}

#[test]
fn german_declined_applicants_cost_the_same_on_both_solvers() {
    let d = german_credit(&bundled_german_path()).unwrap();
    let (n, ok) = agree("german", &d);
    assert!(n >= 30 && ok >= n / 2, "{ok}/{n}");
}

#[test]
fn heloc_declined_applicants_cost_the_same_on_both_solvers() {
    let Some(p) = common::shared("heloc.csv") else {
        return;
    };
    let (n, ok) = agree("heloc", &heloc(&p).unwrap());
    assert!(n > 500 && ok == n, "{ok}/{n}");
}

#[test]
fn taiwan_declined_applicants_cost_the_same_on_both_solvers() {
    let Some(p) = common::shared("taiwan_default.csv") else {
        return;
    };
    let (n, ok) = agree("taiwan", &taiwan(&p).unwrap());
    assert!(n > 100 && ok >= n / 2, "{ok}/{n}");
}

#[test]
fn german_russell_sets_cost_the_same_round_by_round_on_both_solvers() {
    let d = german_credit(&bundled_german_path()).unwrap();
    let (schema, model, declined) = fitted(&d);
    let run = |solver| {
        let c = Config {
            solver,
            diversity: DiversityRule::Russell,
            n_diverse: 5,
            ..Config::default()
        };
        explain_batch(&schema, &model, &declined, &c, true).unwrap()
    };
    let (sep, mip) = (run(SolverChoice::Separable), run(SolverChoice::Mip));
    let target = logit(model.threshold) + Config::default().margin;
    let costs = |e: &Explanation| e.counterfactuals.iter().map(|c| c.cost).collect::<Vec<_>>();
    let mut rounds = 0;
    for (k, (a, b)) in sep.iter().zip(&mip).enumerate() {
        let (a, b) = (a.as_ref().unwrap(), b.as_ref().unwrap());
        let (ca, cb) = (costs(a), costs(b));
        assert_eq!(ca.len(), cb.len(), "german #{k}: {ca:?} vs {cb:?}");
        for (x, y) in a.counterfactuals.iter().zip(&b.counterfactuals) {
            assert!(answers_agree(x, y, target), "german #{k}: {ca:?} vs {cb:?}");
        }
        assert!(
            a.counterfactuals
                .iter()
                .all(|c| c.proved_by == ProvedBy::Separable)
        );
        rounds += ca.len();
    }
    assert!(rounds >= 2 * declined.len(), "{rounds} rounds");
}
