//! Reproduces the comparison of Guyomard et al. 2023 (CROCO, Figure 3): Wachter, PROBE and
//! CROCO on German credit (bundled) with the paper's classifier (MLP, one
//! hidden layer of 50 ReLU units), noise variances σ² ∈ {0.005, 0.01, 0.015,
//! 0.02} and targets {0.05, …, 0.35}. Prints mean L1 distance and mean Γ̃
//! (10,000 fresh draws) per setting, and the share of answers with a changed
//! value outside the 1–99% range of the training data's accepted applicants
//! (`cfx::plausibility`), and draws the trade-off curves to
//! `out/robustness_tradeoff.svg`.
//!
//! `cargo run --release --example robustness_tradeoff -- [applicants] [n_iter]`
//! (defaults 12 applicants, n_iter 100 for CROCO; the paper uses 500
//! counterfactuals and n_iter 1000 — pass larger numbers for a closer run).

use cfx::data::{bundled_german_path, german_credit};
use cfx::model::{MlpModel, MlpTraining, Model};
use cfx::plausibility::Plausibility;
use cfx::robust::{
    CrocoConfig, GuaranteeLimits, NoiseModel, ProbeConfig, RobustCounterfactual, WachterConfig,
    croco, probe, wachter,
};
use plotters::prelude::*;

const SIGMA2: [f64; 4] = [0.005, 0.01, 0.015, 0.02];
const TARGETS: [f64; 7] = [0.05, 0.10, 0.15, 0.20, 0.25, 0.30, 0.35];

#[derive(Clone, Copy, Default)]
struct Summary {
    distance: f64,
    gamma: f64,
    validity: f64,
    met: f64,
    over_target: f64,
    implausible: f64,
}

/// The summary of one method's answers for `rows`, judged against `ranges`.
fn summarise(
    schema: &cfx::schema::Schema,
    ranges: &Plausibility,
    rows: &[Vec<f64>],
    rs: &[RobustCounterfactual],
    target: f64,
) -> Summary {
    let n = rs.len() as f64;
    let mean = |f: &dyn Fn(&RobustCounterfactual) -> f64| rs.iter().map(f).sum::<f64>() / n;
    Summary {
        distance: mean(&|r| r.l1_distance),
        gamma: mean(&|r| r.invalidation.value),
        validity: mean(&|r| f64::from(u8::from(r.valid))),
        met: mean(&|r| f64::from(u8::from(r.target_met))),
        over_target: mean(&|r| f64::from(u8::from(r.invalidation.value > target))),
        implausible: rows
            .iter()
            .zip(rs)
            .map(|(raw, r)| {
                let odd = ranges
                    .any_implausible(schema, raw, &r.raw)
                    .expect("answers are rows of the schema");
                f64::from(u8::from(odd))
            })
            .sum::<f64>()
            / n,
    }
}

/// Runs `f` on every applicant on two threads, keeping the applicants' order.
fn par_map<F>(rows: &[Vec<f64>], f: F) -> Vec<RobustCounterfactual>
where
    F: Fn(&[f64]) -> RobustCounterfactual + Sync,
{
    let mut out: Vec<Option<RobustCounterfactual>> = vec![None; rows.len()];
    let half = rows.len().div_ceil(2);
    std::thread::scope(|s| {
        let (a, b) = out.split_at_mut(half);
        let f = &f;
        s.spawn(move || {
            for (o, r) in a.iter_mut().zip(&rows[..half]) {
                *o = Some(f(r));
            }
        });
        for (o, r) in b.iter_mut().zip(&rows[half..]) {
            *o = Some(f(r));
        }
    });
    out.into_iter()
        .map(|o| o.expect("every applicant ran"))
        .collect()
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().collect();
    let n_app: usize = args.get(1).map_or(Ok(12), |s| s.parse())?;
    let n_iter: usize = args.get(2).map_or(Ok(100), |s| s.parse())?;
    let data = german_credit(&bundled_german_path())?;
    let (train, test) = data.holdout_split();
    let mlp = MlpModel::train(&train.encoded(), &train.labels, &MlpTraining::default())?;
    let schema = &data.schema;
    let ranges = Plausibility::fit(schema, &train.rows, &train.labels)?;
    let declined: Vec<Vec<f64>> = test
        .rows
        .iter()
        .filter(|r| !mlp.accepts(&schema.encode(r).expect("coherent row")))
        .take(n_app)
        .cloned()
        .collect();
    println!(
        "German credit, MLP [50] ReLU, {} declined applicants, CROCO n_iter {n_iter}, K = 500, m = 0.1, t = 0.5",
        declined.len()
    );
    // What CROCO's certificate can say at all here (Guyomard et al. 2023, Propositions 1–2):
    // (m + Θ̃)/(1 − t) never goes below m/(1 − t).
    let croco_cfg = CrocoConfig::default();
    let limits = GuaranteeLimits::new(croco_cfg.m, mlp.threshold(), croco_cfg.k)?;
    let (certifiable, not): (Vec<f64>, Vec<f64>) =
        TARGETS.iter().partition(|&&t| limits.can_certify(t));
    println!(
        "CROCO's bound cannot go below m/(1 − t) = {:.0}% (m = {}, t = {}, confidence {:.3}% at K = {}): \
         targets {:?} can never be certified (they need m < target·(1 − t)), {:?} only with Θ̃ < target·(1 − t) − m",
        100.0 * limits.floor,
        limits.margin,
        limits.threshold,
        100.0 * limits.confidence,
        limits.k,
        not,
        certifiable
    );
    println!(
        "{:8} {:6} {:7} {:>9} {:>9} {:>8} {:>8} {:>10} {:>12}",
        "method", "σ²", "target", "mean L1", "mean Γ̃", "valid", "met", "Γ̃>target", "implausible"
    );
    // results[σ index] = (wachter, probe per target, croco per target)
    let mut results = Vec::new();
    for &s2 in &SIGMA2 {
        let noise = NoiseModel::gaussian_for_schema(schema, s2)?;
        let w = par_map(&declined, |r| {
            wachter(schema, &mlp, &noise, r, &WachterConfig::default()).expect("wachter")
        });
        let ws = summarise(schema, &ranges, &declined, &w, f64::NAN);
        println!(
            "{:8} {:6} {:>7} {:9.3} {:9.4} {:8.2} {:>8} {:>10} {:>12.2}",
            "Wachter", s2, "-", ws.distance, ws.gamma, ws.validity, "-", "-", ws.implausible
        );
        let mut pr = Vec::new();
        let mut cr = Vec::new();
        for &target in &TARGETS {
            let pcfg = ProbeConfig {
                invalidation_target: target,
                ..Default::default()
            };
            let p = summarise(
                schema,
                &ranges,
                &declined,
                &par_map(&declined, |r| {
                    probe(schema, &mlp, &noise, r, &pcfg).expect("probe")
                }),
                target,
            );
            let ccfg = CrocoConfig {
                robustness_target: target,
                n_iter,
                ..Default::default()
            };
            let c = summarise(
                schema,
                &ranges,
                &declined,
                &par_map(&declined, |r| {
                    croco(schema, &mlp, &noise, r, &ccfg).expect("croco")
                }),
                target,
            );
            for (name, s) in [("PROBE", p), ("CROCO", c)] {
                println!(
                    "{:8} {:6} {:7.2} {:9.3} {:9.4} {:8.2} {:8.2} {:10.2} {:12.2}",
                    name,
                    s2,
                    target,
                    s.distance,
                    s.gamma,
                    s.validity,
                    s.met,
                    s.over_target,
                    s.implausible
                );
            }
            pr.push(p);
            cr.push(c);
        }
        results.push((ws, pr, cr));
    }

    std::fs::create_dir_all("out")?;
    let root = SVGBackend::new("out/robustness_tradeoff.svg", (1000, 800)).into_drawing_area();
    root.fill(&WHITE)?;
    let panels = root.split_evenly((2, 2));
    for (panel, (&s2, (w, p, c))) in panels.iter().zip(SIGMA2.iter().zip(&results)) {
        let all: Vec<Summary> = p
            .iter()
            .chain(c.iter())
            .chain(std::iter::once(w))
            .copied()
            .collect();
        let xmax = all.iter().map(|s| s.gamma).fold(0.0, f64::max).max(0.05) * 1.1;
        let ymax = all.iter().map(|s| s.distance).fold(0.0, f64::max).max(0.1) * 1.1;
        let mut chart = ChartBuilder::on(panel)
            .caption(format!("σ² = {s2}"), ("sans-serif", 18))
            .margin(10)
            .x_label_area_size(35)
            .y_label_area_size(45)
            .build_cartesian_2d(0.0..xmax, 0.0..ymax)?;
        chart
            .configure_mesh()
            .x_desc("mean invalidation rate Γ̃")
            .y_desc("mean L1 distance")
            .draw()?;
        for (name, series, color) in [("PROBE", p, BLUE), ("CROCO", c, RED)] {
            let pts: Vec<(f64, f64)> = series.iter().map(|s| (s.gamma, s.distance)).collect();
            chart
                .draw_series(LineSeries::new(pts.clone(), color))?
                .label(name)
                .legend(move |(x, y)| PathElement::new(vec![(x, y), (x + 20, y)], color));
            chart.draw_series(pts.iter().map(|&q| Circle::new(q, 3, color.filled())))?;
        }
        chart
            .draw_series(std::iter::once(TriangleMarker::new(
                (w.gamma, w.distance),
                6,
                BLACK.filled(),
            )))?
            .label("Wachter")
            .legend(|(x, y)| TriangleMarker::new((x + 10, y), 5, BLACK.filled()));
        chart
            .configure_series_labels()
            .background_style(WHITE.mix(0.8))
            .border_style(BLACK)
            .draw()?;
    }
    root.present()?;
    println!("wrote out/robustness_tradeoff.svg");
    Ok(())
}
