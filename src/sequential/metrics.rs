//! Panagiotou & Ntoutsi 2023's evaluation metrics (§4.4 of `seed-formulas.md`) and the flow
//! data behind its Sankey diagrams (Panagiotou & Ntoutsi 2023, Figure 1).

use super::env::StepOutcome;
use super::policy::{Policy, RolloutStep};
use crate::error::{Error, Result};
use crate::model::Model;
use crate::schema::Schema;
use serde::{Deserialize, Serialize};
use std::fmt::Write as _;
use std::path::Path;

/// One evaluation episode of a policy on one declined applicant.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct EpisodeRecord {
    /// Index of the applicant among the rows given to [`evaluate`].
    pub row: usize,
    /// Action indices chosen at steps 0, 1, … (including a final failing one).
    pub actions: Vec<usize>,
    pub outcome: StepOutcome,
    /// Number of features whose value actually changed.
    pub n_changed: usize,
    /// ℓ2 distance between the encoded applicant and the encoded final row.
    pub distance: f64,
    /// Probability of the favourable outcome of the final row.
    pub probability: f64,
}

/// Panagiotou & Ntoutsi 2023's metrics over a test set.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct SequentialMetrics {
    /// Declined test applicants (the episodes).
    pub n_instances: usize,
    /// Test applicants skipped because the model already accepts them.
    pub n_already_accepted: usize,
    /// Counterfactuals found / test instances (Panagiotou & Ntoutsi 2023 §4, "CF satisfiability").
    pub satisfiability: f64,
    /// Mean number of features changed to reach a counterfactual, over the found
    /// counterfactuals (NaN when none was found).
    pub sparsity: f64,
    /// Mean ℓ2 distance (encoded space) of the found counterfactuals to their applicants.
    pub distance: f64,
    /// Mean probability of the favourable outcome of the found counterfactuals.
    pub target_probability: f64,
    /// Normalised action entropy (see [`action_entropy`]).
    pub entropy: f64,
}

/// Normalised action entropy of Panagiotou & Ntoutsi 2023, §4:
/// `H = −Σ_t Σ_k p_t^k log₂ p_t^k / log₂(K²)`, with
/// `p_t^k = #(feature k changed at step t) / #(all feature changes)`.
///
/// `counts[t][k]` is the number of episodes that chose action `k` at step `t`;
/// every row must have `k_actions` entries. The `p_t^k` sum to one over all
/// `(t, k)` pairs, of which there are at most `K·K` (at most `K` steps,
/// `K` features), so `log₂(K²)` is the largest possible entropy and `H ∈ [0, 1]`:
/// 1 when every (step, feature) pair is used equally often, 0 when one pair takes
/// every change. cfx counts every action the policy chose, including the last
/// action of a failed episode (the flows of the Sankey diagram). Returns 0 for
/// `K = 1` (the normaliser is 0 and only one pair exists) and NaN when nothing was counted.
pub fn action_entropy(counts: &[Vec<usize>], k_actions: usize) -> Result<f64> {
    if k_actions == 0 {
        return Err(Error::InvalidArgument(
            "entropy needs at least one action".into(),
        ));
    }
    if let Some(r) = counts.iter().position(|r| r.len() != k_actions) {
        return Err(Error::DimensionMismatch {
            what: format!("entropy counts row {r}"),
            expected: k_actions,
            got: counts[r].len(),
        });
    }
    let total: usize = counts.iter().flatten().sum();
    if total == 0 {
        return Ok(f64::NAN);
    }
    if k_actions == 1 {
        return Ok(0.0);
    }
    let h: f64 = counts
        .iter()
        .flatten()
        .filter(|&&c| c > 0)
        .map(|&c| {
            let p = c as f64 / total as f64;
            -p * p.log2()
        })
        .sum();
    // A single used pair sums to −0.0; report it as 0.
    Ok(if h > 0.0 {
        h / ((k_actions * k_actions) as f64).log2()
    } else {
        0.0
    })
}

/// Per (step, feature) flows of a policy on a test set: the data of Panagiotou & Ntoutsi 2023's Sankey diagrams.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SankeyFlows {
    /// Names of the actions (mutable features), in action order.
    pub features: Vec<String>,
    /// Episodes (declined applicants) at the start.
    pub n_episodes: usize,
    /// `taken[t][k]`: episodes that chose feature `k` at step `t`.
    pub taken: Vec<Vec<usize>>,
    /// `succeeded[t][k]`: of those, how many found a counterfactual with this step.
    pub succeeded: Vec<Vec<usize>>,
    /// `failed[t][k]`: of those, how many ended on a failure with this step.
    pub failed: Vec<Vec<usize>>,
    /// Links between consecutive nodes: `(step, source, target, count)` where the
    /// source is the feature chosen at `step − 1` (`None` = the applicants at
    /// step 0) and the target is a feature chosen at `step` or a terminal.
    pub links: Vec<SankeyLink>,
}

/// A node of the Sankey diagram.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum SankeyNode {
    Applicants,
    Feature(usize),
    Success,
    Failure,
}

/// A flow between the node in column `column` and a node in column `column + 1`.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct SankeyLink {
    pub column: usize,
    pub source: SankeyNode,
    pub target: SankeyNode,
    pub count: usize,
}

/// A policy's evaluation: one record per declined applicant, the metrics, the flows.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Evaluation {
    pub episodes: Vec<EpisodeRecord>,
    pub metrics: SequentialMetrics,
    pub flows: SankeyFlows,
}

/// Runs the greedy policy on every declined applicant among `rows` (raw rows)
/// and computes Panagiotou & Ntoutsi 2023's metrics and flows.
pub fn evaluate(
    policy: &Policy,
    schema: &Schema,
    model: &dyn Model,
    rows: &[Vec<f64>],
) -> Result<Evaluation> {
    let mut env = policy.environment(schema, model)?;
    let k = policy.n_actions();
    let mut ws = policy.workspace();
    let mut steps: Vec<RolloutStep> = Vec::with_capacity(k);
    let mut episodes = Vec::new();
    let mut already = 0;
    for (r, row) in rows.iter().enumerate() {
        env.reset(row)?;
        if env.accepted() {
            already += 1;
            continue;
        }
        let outcome = policy.rollout_in(&mut env, &mut ws, &mut steps)?;
        let distance = env
            .initial_encoded()
            .iter()
            .zip(env.encoded())
            .map(|(a, b)| (a - b) * (a - b))
            .sum::<f64>()
            .sqrt();
        episodes.push(EpisodeRecord {
            row: r,
            actions: steps.iter().map(|s| s.action).collect(),
            outcome,
            n_changed: steps.iter().filter(|s| s.from != s.to).count(),
            distance,
            probability: env.probability(),
        });
    }
    let feature_names: Vec<String> = policy.action_features.clone();
    let flows = flows_of(&episodes, feature_names, k);
    let metrics = metrics_of(&episodes, already, &flows.taken, k)?;
    Ok(Evaluation {
        episodes,
        metrics,
        flows,
    })
}

/// Panagiotou & Ntoutsi 2023's metrics from episode records and the per-step action counts.
pub fn metrics_of(
    episodes: &[EpisodeRecord],
    n_already_accepted: usize,
    taken: &[Vec<usize>],
    k_actions: usize,
) -> Result<SequentialMetrics> {
    let found: Vec<&EpisodeRecord> = episodes
        .iter()
        .filter(|e| e.outcome == StepOutcome::Success)
        .collect();
    let mean = |f: &dyn Fn(&EpisodeRecord) -> f64| {
        if found.is_empty() {
            f64::NAN
        } else {
            found.iter().map(|e| f(e)).sum::<f64>() / found.len() as f64
        }
    };
    Ok(SequentialMetrics {
        n_instances: episodes.len(),
        n_already_accepted,
        satisfiability: if episodes.is_empty() {
            f64::NAN
        } else {
            found.len() as f64 / episodes.len() as f64
        },
        sparsity: mean(&|e| e.n_changed as f64),
        distance: mean(&|e| e.distance),
        target_probability: mean(&|e| e.probability),
        entropy: action_entropy(taken, k_actions)?,
    })
}

/// Counts the flows of a set of episodes.
pub fn flows_of(episodes: &[EpisodeRecord], features: Vec<String>, k: usize) -> SankeyFlows {
    let max_t = episodes.iter().map(|e| e.actions.len()).max().unwrap_or(0);
    let mut taken = vec![vec![0usize; k]; max_t];
    let mut succeeded = vec![vec![0usize; k]; max_t];
    let mut failed = vec![vec![0usize; k]; max_t];
    let mut links: std::collections::BTreeMap<(usize, SankeyNode, SankeyNode), usize> =
        Default::default();
    for e in episodes {
        let mut prev = SankeyNode::Applicants;
        for (t, &a) in e.actions.iter().enumerate() {
            taken[t][a] += 1;
            let node = SankeyNode::Feature(a);
            *links.entry((t, prev, node)).or_default() += 1;
            prev = node;
        }
        let n = e.actions.len();
        if n > 0 {
            let last = e.actions[n - 1];
            let end = match e.outcome {
                StepOutcome::Success => {
                    succeeded[n - 1][last] += 1;
                    SankeyNode::Success
                }
                _ => {
                    failed[n - 1][last] += 1;
                    SankeyNode::Failure
                }
            };
            *links.entry((n, prev, end)).or_default() += 1;
        }
    }
    SankeyFlows {
        features,
        n_episodes: episodes.len(),
        taken,
        succeeded,
        failed,
        links: links
            .into_iter()
            .map(|((column, source, target), count)| SankeyLink {
                column,
                source,
                target,
                count,
            })
            .collect(),
    }
}

impl SankeyFlows {
    fn node_name(&self, n: SankeyNode) -> &str {
        match n {
            SankeyNode::Applicants => "applicants",
            SankeyNode::Feature(k) => &self.features[k],
            SankeyNode::Success => "success",
            SankeyNode::Failure => "failure",
        }
    }

    /// Per-step table as CSV: `step,feature,taken,succeeded,failed,continued`
    /// (steps from 1; only pairs that were taken).
    pub fn steps_csv(&self) -> String {
        let mut s = String::from("step,feature,taken,succeeded,failed,continued\n");
        for (t, row) in self.taken.iter().enumerate() {
            for (k, &n) in row.iter().enumerate() {
                if n == 0 {
                    continue;
                }
                let (ok, ko) = (self.succeeded[t][k], self.failed[t][k]);
                let _ = writeln!(
                    s,
                    "{},{},{},{},{},{}",
                    t + 1,
                    csv_field(&self.features[k]),
                    n,
                    ok,
                    ko,
                    n - ok - ko
                );
            }
        }
        s
    }

    /// The links as CSV: `column,source,target,count` (column 0 = the applicants).
    pub fn links_csv(&self) -> String {
        let mut s = String::from("column,source,target,count\n");
        for l in &self.links {
            let _ = writeln!(
                s,
                "{},{},{},{}",
                l.column,
                csv_field(self.node_name(l.source)),
                csv_field(self.node_name(l.target)),
                l.count
            );
        }
        s
    }

    /// Draws a Sankey-style diagram (columns = steps; green = counterfactual
    /// found, red = failure) as SVG with plotters, and returns the SVG text.
    pub fn to_svg(&self, title: &str) -> Result<String> {
        let mut buf = String::new();
        draw_sankey(self, title, &mut buf)
            .map_err(|e| Error::Io(format!("drawing the Sankey diagram: {e}")))?;
        Ok(buf)
    }

    /// Writes [`SankeyFlows::to_svg`] to a file, replaced only once complete
    /// ([`crate::output`]).
    pub fn save_svg(&self, path: &Path, title: &str) -> Result<()> {
        crate::output::write_file(path, &[], self.to_svg(title)?.as_bytes())
    }
}

fn csv_field(s: &str) -> String {
    if s.contains([',', '"', '\n']) {
        format!("\"{}\"", s.replace('"', "\"\""))
    } else {
        s.to_string()
    }
}

/// Node boxes per column: `(node, count)` in drawing order.
fn columns(flows: &SankeyFlows) -> Vec<Vec<(SankeyNode, usize)>> {
    let n_cols = flows.links.iter().map(|l| l.column + 2).max().unwrap_or(1);
    let mut cols: Vec<std::collections::BTreeMap<SankeyNode, usize>> =
        vec![Default::default(); n_cols];
    cols[0].insert(SankeyNode::Applicants, flows.n_episodes);
    for l in &flows.links {
        *cols[l.column + 1].entry(l.target).or_default() += l.count;
    }
    cols.into_iter().map(|c| c.into_iter().collect()).collect()
}

fn draw_sankey(
    flows: &SankeyFlows,
    title: &str,
    buf: &mut String,
) -> std::result::Result<(), String> {
    use plotters::prelude::*;
    let (w, h) = (1100i32, 640i32);
    let root = SVGBackend::with_string(buf, (w as u32, h as u32)).into_drawing_area();
    root.fill(&WHITE).map_err(|e| e.to_string())?;
    root.draw(&Text::new(
        title.to_string(),
        (20, 12),
        ("sans-serif", 18).into_font(),
    ))
    .map_err(|e| e.to_string())?;
    let cols = columns(flows);
    let n_cols = cols.len().max(2);
    let (left, right, top, bottom) = (30i32, 170i32, 50i32, 30i32);
    let node_w = 14i32;
    let gap = 8.0;
    let max_nodes = cols.iter().map(|c| c.len()).max().unwrap_or(1);
    let usable = (h - top - bottom) as f64 - gap * (max_nodes.saturating_sub(1)) as f64;
    let scale = if flows.n_episodes > 0 {
        usable / flows.n_episodes as f64
    } else {
        0.0
    };
    let col_x =
        |c: usize| left + ((w - left - right) as f64 * c as f64 / (n_cols - 1) as f64) as i32;
    let colour = |n: SankeyNode| -> RGBColor {
        match n {
            SankeyNode::Applicants => RGBColor(90, 90, 90),
            SankeyNode::Success => RGBColor(40, 160, 60),
            SankeyNode::Failure => RGBColor(210, 50, 40),
            SankeyNode::Feature(k) => {
                let c = Palette99::pick(k).to_rgba();
                RGBColor(c.0, c.1, c.2)
            }
        }
    };
    // Node positions: (column, node) → (y_top, height); plus running offsets for link ends.
    let mut pos: std::collections::HashMap<(usize, SankeyNode), (f64, f64)> = Default::default();
    for (c, nodes) in cols.iter().enumerate() {
        let mut y = top as f64;
        for &(n, count) in nodes {
            let hgt = count as f64 * scale;
            pos.insert((c, n), (y, hgt));
            y += hgt + gap;
        }
    }
    let mut out_off: std::collections::HashMap<(usize, SankeyNode), f64> = Default::default();
    let mut in_off: std::collections::HashMap<(usize, SankeyNode), f64> = Default::default();
    let mut links = flows.links.clone();
    links.sort_by_key(|l| (l.column, l.source, l.target));
    for l in &links {
        let (Some(&(sy, _)), Some(&(ty, _))) = (
            pos.get(&(l.column, l.source)),
            pos.get(&(l.column + 1, l.target)),
        ) else {
            continue;
        };
        let so = out_off.entry((l.column, l.source)).or_insert(0.0);
        let ti = in_off.entry((l.column + 1, l.target)).or_insert(0.0);
        let thick = l.count as f64 * scale;
        let (y0, y1) = (sy + *so, ty + *ti);
        *so += thick;
        *ti += thick;
        let (x0, x1) = (
            (col_x(l.column) + node_w) as f64,
            col_x(l.column + 1) as f64,
        );
        // A smooth band: cosine-eased top and bottom edges.
        let n = 24;
        let mut pts = Vec::with_capacity(2 * n + 2);
        for i in 0..=n {
            let f = i as f64 / n as f64;
            let e = (1.0 - (std::f64::consts::PI * f).cos()) / 2.0;
            pts.push(((x0 + f * (x1 - x0)) as i32, (y0 + e * (y1 - y0)) as i32));
        }
        for i in (0..=n).rev() {
            let f = i as f64 / n as f64;
            let e = (1.0 - (std::f64::consts::PI * f).cos()) / 2.0;
            pts.push((
                (x0 + f * (x1 - x0)) as i32,
                (y0 + thick + e * (y1 - y0)) as i32,
            ));
        }
        root.draw(&Polygon::new(pts, colour(l.target).mix(0.35).filled()))
            .map_err(|e| e.to_string())?;
    }
    for (c, nodes) in cols.iter().enumerate() {
        let x = col_x(c);
        for &(n, count) in nodes {
            let (y, hgt) = pos[&(c, n)];
            root.draw(&Rectangle::new(
                [(x, y as i32), (x + node_w, (y + hgt).max(y + 1.0) as i32)],
                colour(n).filled(),
            ))
            .map_err(|e| e.to_string())?;
            if hgt >= 9.0 {
                // Long feature names are cut so labels stay inside their column.
                let name = flows.node_name(n);
                let short: String = if name.chars().count() > 20 {
                    name.chars().take(19).chain(std::iter::once('…')).collect()
                } else {
                    name.to_string()
                };
                let label = format!("{short} ({count})");
                root.draw(&Text::new(
                    label,
                    (x + node_w + 3, (y + hgt / 2.0) as i32 - 6),
                    ("sans-serif", 11).into_font(),
                ))
                .map_err(|e| e.to_string())?;
            }
        }
        let step_label = if c == 0 {
            "start".to_string()
        } else {
            format!("step {c}")
        };
        root.draw(&Text::new(
            step_label,
            (x, h - bottom + 8),
            ("sans-serif", 12).into_font(),
        ))
        .map_err(|e| e.to_string())?;
    }
    root.present().map_err(|e| e.to_string())?;
    Ok(())
}
