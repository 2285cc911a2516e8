//! Criterion benches of the coherent program (Russell 2019) on FICO HELOC: one
//! optimal counterfactual with each solver (the separable branch and bound and
//! HiGHS, one thread), and a set of 5 diverse ones (Russell's procedure) with
//! each, for the first declined held-out applicants; and one optimal
//! counterfactual under the HELOC points scorecard with each solver.

use cfx::coherent::{Config, SolverChoice, explain, explain_diverse};
use cfx::data::{Dataset, heloc, shared_data_dir};
use cfx::model::scorecard::import::{ImportOptions, from_optbinning_path};
use cfx::model::{LinearModel, LogisticFit, Model, ScoreScaling};
use cfx::schema::Schema;
use criterion::{Criterion, criterion_group, criterion_main};

fn bench(c: &mut Criterion) {
    let path = shared_data_dir().join("heloc.csv");
    if !path.exists() {
        eprintln!("notice: {} absent, coherent bench skipped", path.display());
        return;
    }
    let data = heloc(&path).expect("HELOC loads");
    let (train, test) = data.holdout_split();
    let mut schema = train.schema.clone();
    schema.fit_weights(&train.rows).expect("weights");
    let x = schema.encode_rows(&train.rows).expect("encode");
    let model = LinearModel::fit(&x, &train.labels, LogisticFit::default()).expect("fit");
    let declined: Vec<Vec<f64>> = test
        .rows
        .iter()
        .filter(|r| !model.accepts(&schema.encode(r).expect("encode")))
        .take(20)
        .cloned()
        .collect();
    for (name, solver) in [
        ("highs", SolverChoice::Mip),
        ("separable", SolverChoice::Separable),
    ] {
        let config = Config {
            solver,
            ..Config::default()
        };
        let mut k = 0;
        c.bench_function(&format!("heloc_one_optimal_counterfactual_{name}"), |b| {
            b.iter(|| {
                k = (k + 1) % declined.len();
                explain(&schema, &model, &declined[k], &config).expect("explain")
            })
        });
        let diverse = Config {
            n_diverse: 5,
            ..config
        };
        let mut k = 0;
        c.bench_function(&format!("heloc_five_diverse_counterfactuals_{name}"), |b| {
            b.iter(|| {
                k = (k + 1) % declined.len();
                explain_diverse(&schema, &model, &declined[k], &diverse).expect("explain")
            })
        });
    }
    scorecard_bench(c, &data, &schema);
}

/// The HELOC optbinning scorecard (`../shared/data/heloc_scorecard_table.csv`,
/// cutoff at probability ½ as in `tests/scorecard_heloc.rs`): one optimal
/// counterfactual with each solver for the first 20 declined held-out
/// applicants.
fn scorecard_bench(c: &mut Criterion, data: &Dataset, schema: &Schema) {
    let table = shared_data_dir().join("heloc_scorecard_table.csv");
    if !table.exists() {
        eprintln!(
            "notice: {} absent, scorecard bench skipped",
            table.display()
        );
        return;
    }
    let options = ImportOptions {
        cutoff: 630.4667319422892,
        scaling: Some(ScoreScaling::new(46.267864502602755, 630.4667319422892).expect("scaling")),
        refuse_unlisted_levels: false,
        favourable: Default::default(),
        unused_features: Vec::new(),
    };
    let card = from_optbinning_path(schema, &table, &options)
        .expect("scorecard imports")
        .scorecard;
    let (_, test) = data.holdout_split();
    let declined: Vec<Vec<f64>> = test
        .rows
        .iter()
        .filter(|r| !card.accepts_points(card.score_raw(schema, r).expect("score")))
        .take(20)
        .cloned()
        .collect();
    for (name, solver) in [
        ("highs", SolverChoice::Mip),
        ("separable", SolverChoice::Separable),
    ] {
        let config = Config {
            solver,
            ..Config::default()
        };
        let mut k = 0;
        c.bench_function(
            &format!("heloc_scorecard_one_optimal_counterfactual_{name}"),
            |b| {
                b.iter(|| {
                    k = (k + 1) % declined.len();
                    explain(schema, &card, &declined[k], &config).expect("explain")
                })
            },
        );
    }
}

criterion_group! {
    name = benches;
    config = Criterion::default().sample_size(30);
    targets = bench
}
criterion_main!(benches);
