//! The bank's own scorecard, explained exactly: the HELOC scorecard made with
//! optbinning 1.0.0 (`../shared/data/heloc_scorecard_table.csv`) imported with
//! its scaling (log-odds of Good = (score − 630.4667319422892) /
//! 46.267864502602755, found by rebuilding the table with optbinning) and the
//! cutoff at probability ½; scores checked against optbinning's own export
//! (`target/peers/heloc_scorecard_scores.csv`, written by
//! `benches/peers/scorecard_optbinning.py`), then every declined held-out
//! applicant (row i with i mod 10 ≥ 7) explained on one core by the separable
//! solver (the default, which proves scorecard answers) and by the HiGHS MIP.
//! The time per counterfactual is the wall time of the whole `explain` call.
//! When optbinning's answers are at hand
//! (`target/peers/optbinning_counterfactuals.jsonl`, written by
//! `benches/peers/scorecard_counterfactual_optbinning.py`), a markdown table
//! sets cfx beside them on the same applicants: times, and optbinning's answers
//! costed on cfx's objective (every changed feature at the cheapest point of
//! its target bin the applicant can reach).
//!
//! `cargo run --release --example scorecard_heloc [-- <peer scores.csv>]`

use cfx::coherent::{
    Config, DiversityRule, Outcome, ProvedBy, SolverChoice, cost, explain, explain_diverse,
};
use cfx::data::{heloc, shared_data_dir};
use cfx::model::scorecard::import::{ImportOptions, from_optbinning_path};
use cfx::model::{ScoreScaling, Scorecard};
use cfx::schema::{Direction, FeatureKind, Schema};
use std::path::PathBuf;
use std::time::Instant;

fn main() -> cfx::Result<()> {
    let peer = std::env::args()
        .nth(1)
        .map(PathBuf::from)
        .unwrap_or_else(|| {
            PathBuf::from(env!("CARGO_MANIFEST_DIR"))
                .join("target/peers/heloc_scorecard_scores.csv")
        });
    let dir = shared_data_dir();
    let d = heloc(&dir.join("heloc.csv"))?;
    let (train, _) = d.holdout_split();
    let mut schema = d.schema.clone();
    schema.fit_weights(&train.rows)?;
    let options = ImportOptions {
        cutoff: 630.4667319422892,
        scaling: Some(ScoreScaling::new(46.267864502602755, 630.4667319422892)?),
        refuse_unlisted_levels: false,
        favourable: Default::default(),
        unused_features: Vec::new(),
    };
    let imported = from_optbinning_path(&schema, &dir.join("heloc_scorecard_table.csv"), &options)?;
    print!("{}", imported.report.to_text());
    let card = imported.scorecard;

    let text = std::fs::read_to_string(&peer).map_err(|e| {
        cfx::Error::Io(format!(
            "cannot read optbinning's scores at '{}' ({e}); run benches/peers/scorecard_optbinning.py",
            peer.display()
        ))
    })?;
    let mut equal = 0;
    let mut rows = 0;
    for line in text.lines().skip(1).filter(|l| !l.trim().is_empty()) {
        let (r, s) = line
            .split_once(',')
            .ok_or_else(|| cfx::Error::Format(format!("bad line '{line}'")))?;
        let r: usize = r
            .trim()
            .parse()
            .map_err(|_| cfx::Error::Format(line.into()))?;
        let s: f64 = s
            .trim()
            .parse()
            .map_err(|_| cfx::Error::Format(line.into()))?;
        let ours = card.score_raw(&schema, &d.rows[r])?;
        equal += usize::from((ours - s).abs() <= 1e-9);
        rows += 1;
    }

    // Every declined held-out applicant, on each solver; the time per
    // counterfactual is the wall time of the whole `explain` call (checks,
    // menus or MIP, solve, decode, re-score), one core.
    let held_out_declined: Vec<usize> = (0..d.rows.len())
        .filter(|&i| i % 10 >= 7)
        .filter(|&i| {
            card.score_raw(&schema, &d.rows[i])
                .is_ok_and(|p| !card.accepts_points(p))
        })
        .collect();
    let mut runs = Vec::new();
    for solver in [SolverChoice::Auto, SolverChoice::Mip] {
        let config = Config {
            solver,
            ..Config::default()
        };
        let mut times = Vec::new();
        let mut costs = Vec::new();
        let mut optimal = 0;
        for &i in &held_out_declined {
            let row = &d.rows[i];
            let t0 = Instant::now();
            let ex = explain(&schema, &card, row, &config)?;
            let wall = t0.elapsed().as_secs_f64();
            if let (Outcome::Optimal, Some(cf)) = (&ex.outcome, ex.counterfactuals.first()) {
                let valid = card.accepts_points(card.score_raw(&schema, &cf.raw)?)
                    && schema.check_actionable(row, &cf.raw).is_ok();
                optimal += usize::from(valid);
                times.push(wall * 1e3);
                costs.push(cf.cost);
            } else {
                costs.push(f64::NAN);
            }
        }
        runs.push((median(&mut times), costs, optimal));
    }
    let (sep, mip) = (&runs[0], &runs[1]);
    let same = sep
        .1
        .iter()
        .zip(&mip.1)
        .filter(|(a, b)| (*a - *b).abs() <= 1e-9 * a.abs().max(b.abs()) + 1e-12)
        .count();
    println!(
        "separable vs highs: median {:.1} µs vs {:.1} µs ({:.0}×), identical costs on {same}/{}",
        sep.0 * 1e3,
        mip.0 * 1e3,
        mip.0 / sep.0,
        held_out_declined.len()
    );
    let peer_cf = peer.with_file_name("optbinning_counterfactuals.jsonl");
    if peer_cf.exists() {
        side_by_side(&schema, &card, &d.rows, &peer_cf)?;
    } else {
        println!(
            "(no {}: run benches/peers/scorecard_counterfactual_optbinning.py for the side-by-side table)",
            peer_cf.display()
        );
    }
    println!(
        "scorecard: scores equal optbinning on {equal}/{rows} rows; optimal counterfactuals for \
         {}/{} declined; median {:.3} ms per counterfactual",
        sep.2,
        held_out_declined.len(),
        sep.0
    );
    Ok(())
}

fn median(xs: &mut [f64]) -> f64 {
    xs.sort_by(f64::total_cmp);
    if xs.is_empty() {
        f64::NAN
    } else {
        xs[xs.len() / 2]
    }
}

fn bad(m: impl Into<String>) -> cfx::Error {
    cfx::Error::Format(m.into())
}

/// The raw interval of an optbinning bin string (`(-inf, 59.50)`,
/// `[59.50, 63.50)`, `[81.50, inf)`): (lower, closed, upper, closed).
fn interval(bin: &str) -> cfx::Result<(f64, bool, f64, bool)> {
    let b = bin.trim();
    let (lc, rest) = (b.starts_with('['), &b[1..]);
    let (uc, body) = (rest.ends_with(']'), &rest[..rest.len() - 1]);
    let (lo, hi) = body
        .split_once(',')
        .ok_or_else(|| bad(format!("bin '{bin}' is not an interval")))?;
    let num = |t: &str| -> cfx::Result<f64> {
        match t.trim() {
            "-inf" => Ok(f64::NEG_INFINITY),
            "inf" => Ok(f64::INFINITY),
            x => x.parse().map_err(|_| bad(format!("bin '{bin}'"))),
        }
    };
    Ok((num(lo)?, lc, num(hi)?, uc))
}

/// The cheapest raw value of feature `i` inside optbinning's target bin that
/// the schema lets the applicant reach (actionable range, direction, grid),
/// costed as cfx's objective does: nearest the factual value, or nearest the
/// anchor from a special state. `None` when no such value exists.
fn cheapest_in_bin(schema: &Schema, i: usize, from: f64, bin: &str) -> cfx::Result<Option<f64>> {
    let f = &schema.features[i];
    let FeatureKind::Contiguous {
        lower,
        upper,
        integer,
        step,
        ..
    } = &f.kind
    else {
        return Err(bad(format!("feature '{}' is not numeric", f.name)));
    };
    if !f.actionability.mutable {
        return Ok(None);
    }
    let (a, ac, b, bc) = interval(bin)?;
    let (lo_a, hi_a) = schema.actionable_range(i).unwrap_or((*lower, *upper));
    let s_f = f.state_of(from)?;
    let (mut lo, mut hi) = (lo_a, hi_a);
    let v = if s_f == 0 {
        match f.actionability.direction {
            Direction::IncreaseOnly => lo = lo.max(from),
            Direction::DecreaseOnly => hi = hi.min(from),
            Direction::Any => {}
        }
        from
    } else {
        schema
            .slot_to_value(i, schema.anchor(i))
            .clamp(lo_a.min(hi_a), hi_a.max(lo_a))
    };
    let grid = match (integer, step) {
        (_, Some(st)) => Some((*lower, *st)),
        (true, None) => Some((0.0, 1.0)),
        (false, None) => None,
    };
    let c = match grid {
        Some((base, g)) => {
            let j_lo = if a.is_finite() {
                let j = ((a - base) / g - 1e-9).ceil();
                if !ac && (base + j * g - a).abs() < 1e-9 {
                    j + 1.0
                } else {
                    j
                }
            } else {
                f64::NEG_INFINITY
            };
            let j_hi = if b.is_finite() {
                let j = ((b - base) / g + 1e-9).floor();
                if !bc && (base + j * g - b).abs() < 1e-9 {
                    j - 1.0
                } else {
                    j
                }
            } else {
                f64::INFINITY
            };
            let j_lo = j_lo.max(((lo - base) / g - 1e-9).ceil());
            let j_hi = j_hi.min(((hi - base) / g + 1e-9).floor());
            if j_lo > j_hi {
                return Ok(None);
            }
            base + ((v - base) / g).round().clamp(j_lo, j_hi) * g
        }
        None => {
            let gap = 1e-6 * (upper - lower);
            let p = lo.max(if ac { a } else { a + gap });
            let q = hi.min(if bc { b } else { b - gap });
            if p > q {
                return Ok(None);
            }
            v.clamp(p, q)
        }
    };
    Ok(Some(c))
}

/// optbinning's answers (the peer's JSON lines) costed by cfx, next to cfx's
/// own answers for the same applicants, in the same session: a markdown table.
fn side_by_side(
    schema: &Schema,
    card: &Scorecard,
    rows: &[Vec<f64>],
    path: &std::path::Path,
) -> cfx::Result<()> {
    let text = std::fs::read_to_string(path).map_err(|e| cfx::Error::Io(e.to_string()))?;
    let mut by_config: Vec<(String, Vec<serde_json::Value>)> = Vec::new();
    for line in text.lines().filter(|l| !l.trim().is_empty()) {
        let v: serde_json::Value = serde_json::from_str(line).map_err(|e| bad(e.to_string()))?;
        if v["kind"] != "counterfactual" {
            continue;
        }
        let c = v["config"].as_str().unwrap_or("?").to_string();
        match by_config.iter_mut().find(|(k, _)| *k == c) {
            Some((_, recs)) => recs.push(v),
            None => by_config.push((c, vec![v])),
        }
    }
    let applicants: Vec<usize> = by_config
        .first()
        .map(|(_, r)| {
            r.iter()
                .filter_map(|v| v["row"].as_u64())
                .map(|r| r as usize)
                .collect()
        })
        .unwrap_or_default();
    // cfx on the same applicants: one optimal answer; 5 diverse (both rules).
    let one = Config::default();
    let mut cfx_times = Vec::new();
    let mut cfx_cost = Vec::new();
    let mut coherent = 0;
    for &r in &applicants {
        let t0 = Instant::now();
        let ex = explain(schema, card, &rows[r], &one)?;
        cfx_times.push(t0.elapsed().as_secs_f64() * 1e3);
        let cf = ex
            .counterfactuals
            .first()
            .ok_or_else(|| bad(format!("row {r}: no counterfactual")))?;
        coherent += usize::from(schema.decode(&schema.encode(&cf.raw)?)? == cf.raw);
        cfx_cost.push(cf.cost);
    }
    let mut diverse = Vec::new();
    for (name, rule, solver) in [
        ("Russell", DiversityRule::Russell, SolverChoice::Auto),
        (
            "distinct subsets",
            DiversityRule::DistinctSubsets,
            SolverChoice::Auto,
        ),
    ] {
        let config = Config {
            n_diverse: 5,
            diversity: rule,
            solver,
            ..Config::default()
        };
        let mut times = Vec::new();
        let mut full = 0;
        let mut by = ProvedBy::Highs;
        for &r in &applicants {
            let t0 = Instant::now();
            let ex = explain_diverse(schema, card, &rows[r], &config)?;
            times.push(t0.elapsed().as_secs_f64() * 1e3);
            full += usize::from(ex.counterfactuals.len() == 5);
            by = ex.proved_by;
        }
        diverse.push((name, median(&mut times), full, by));
    }
    let n = applicants.len();
    let cfx_median = median(&mut cfx_times.clone());
    println!(
        "\n| method | median per applicant | solved | proven optimal | cost on cfx's objective |"
    );
    println!("|---|---|---|---|---|");
    println!(
        "| cfx, one counterfactual (separable) | {cfx_median:.3} ms | {n}/{n} | {n}/{n} | optimal; coherent {coherent}/{n} |"
    );
    for (name, med, full, by) in &diverse {
        println!(
            "| cfx, 5 diverse ({name}, {by:?}) | {med:.3} ms | 5 answers for {full}/{n} | each round optimal | — |"
        );
    }
    let mut speedup = None;
    for (c, recs) in &by_config {
        let mut times: Vec<f64> = recs
            .iter()
            .filter_map(|v| v["time_s"].as_f64())
            .map(|t| t * 1e3)
            .collect();
        let solved = recs
            .iter()
            .filter(|v| v["n_found"].as_u64().unwrap_or(0) > 0)
            .count();
        let proven = recs.iter().filter(|v| v["proven_optimal"] == true).count();
        let m = recs.len(); // applicants the peer has answered (all n once it has finished)
        // Each first answer of optbinning, costed by cfx: every changed
        // feature at the cheapest reachable point of its target bin.
        let (mut costed, mut unreachable, mut cfx_cheaper, mut equal, mut costlier) =
            (0, 0, 0, 0, 0);
        let mut ratios = Vec::new();
        for v in recs {
            let Some(ans) = v["counterfactuals"].get(0) else {
                continue;
            };
            let r = v["row"].as_u64().ok_or_else(|| bad("row"))? as usize;
            let k = applicants
                .iter()
                .position(|&a| a == r)
                .ok_or_else(|| bad("row"))?;
            let mut row = rows[r].clone();
            let mut ok = true;
            for ch in ans["changes"].as_array().into_iter().flatten() {
                let name = ch["feature"].as_str().ok_or_else(|| bad("feature"))?;
                let i = schema.index_of(name)?;
                let bin = ch["to_bin"].as_str().ok_or_else(|| bad("to_bin"))?;
                match cheapest_in_bin(schema, i, rows[r][i], bin)? {
                    Some(x) => row[i] = x,
                    None => ok = false,
                }
            }
            let accepted = card.accepts_points(card.score_raw(schema, &row)?);
            if !ok || !accepted || schema.check_actionable(&rows[r], &row).is_err() {
                unreachable += 1;
                continue;
            }
            let theirs = cost(schema, &rows[r], &row)?;
            costed += 1;
            let ours = cfx_cost[k];
            if (ours - theirs).abs() <= 1e-9 * ours.abs().max(theirs.abs()) + 1e-12 {
                equal += 1;
            } else if ours < theirs {
                cfx_cheaper += 1;
                ratios.push(theirs / ours);
            } else {
                costlier += 1;
            }
        }
        let ratio = median(&mut ratios);
        println!(
            "| optbinning `Counterfactual` {c} | {:.1} ms | {solved}/{m} | {proven}/{m} | {costed} costed: cfx cheaper on {cfx_cheaper} (median ×{ratio:.2}), equal on {equal}, costlier on {costlier}; {unreachable} not actionable under cfx's schema |",
            median(&mut times)
        );
        if c == "n1_proximity" {
            speedup = Some(median(&mut times) / cfx_median);
        }
    }
    if let Some(x) = speedup {
        println!("\ncfx one counterfactual vs optbinning n1_proximity: {x:.0}× faster (median)");
    }
    println!();
    Ok(())
}
