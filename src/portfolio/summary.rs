//! The portfolio summary (issue 14): who carries the burden of recourse.
//!
//! Read back from the JSON-lines file of [`super::explain_portfolio`]
//! (and, for a breakdown, the applicants' CSV it was made from, joined row by
//! row): the share of declined applicants who have a counterfactual, the
//! distribution of the recourse cost (the weighted L1 cost of Russell 2019,
//! eq. 16, of the optimal counterfactual), the features the counterfactuals ask
//! to change most often, and the same per group of a column of the input, e.g.
//! German credit's `personal_status_and_sex` or age bands, HELOC's
//! `ExternalRiskEstimate` bands. Printed as a table ([`PortfolioReport::to_text`])
//! and drawn as SVG ([`PortfolioReport::to_svg`], plotters).
//!
//! Both files are read one line at a time; the report keeps one cost per
//! applicant with recourse (for exact quantiles) and one counter per feature.

use super::ApplicantsCsv;
use crate::error::{Error, Result};
use crate::schema::{FeatureKind, Schema, fmt_num};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};

/// A column of the applicants' CSV to break the summary down by.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct GroupBy {
    /// The column's name in the input header (a feature or an ignored column).
    pub column: String,
    /// Empty: each distinct cell text is a group (categorical levels).
    /// Otherwise strictly increasing band edges `e₀ < … < e_k`: the groups are
    /// `< e₀`, `[e₀, e₁)`, …, `≥ e_k`; a value that is a special state of the
    /// feature (HELOC's −7/−8/−9) is a group of its own, named by its label.
    pub edges: Vec<f64>,
}

/// Quantiles of the recourse cost (linear interpolation between order
/// statistics: Hyndman & Fan's type 7, numpy's default).
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct CostDistribution {
    pub n: usize,
    pub mean: f64,
    pub min: f64,
    pub p10: f64,
    pub p25: f64,
    pub median: f64,
    pub p75: f64,
    pub p90: f64,
    pub max: f64,
}

/// How often the counterfactuals ask to change one feature.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ChangeCount {
    pub feature: String,
    /// Applicants with recourse asked to change it.
    pub count: usize,
    /// `count` over the applicants with recourse.
    pub share: f64,
    /// Of those, asked to raise / to lower the raw value (contiguous features;
    /// both 0 for a categorical one).
    pub increases: usize,
    pub decreases: usize,
}

/// The summary of all applicants or of one group.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct GroupSummary {
    /// The group's label (`"all"` for the whole portfolio).
    pub group: String,
    pub rows: usize,
    pub accepted: usize,
    pub declined: usize,
    /// Declined applicants with a counterfactual.
    pub with_recourse: usize,
    /// Rows that could not be read or explained.
    pub errors: usize,
    /// `with_recourse / declined`; `None` without declined applicants.
    pub share_with_recourse: Option<f64>,
    /// The counterfactuals' costs (an answer a limit stopped the search at
    /// counts at its cost, found but not proven optimal); `None` without any.
    pub cost: Option<CostDistribution>,
    /// Every feature asked to change, most often first (ties by name).
    pub changes: Vec<ChangeCount>,
}

/// The portfolio summary: the whole book and, optionally, its groups.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct PortfolioReport {
    pub overall: GroupSummary,
    /// The column of [`GroupBy`], when there is a breakdown.
    pub group_column: Option<String>,
    /// One summary per group: special states and text groups by name, then
    /// bands in increasing order.
    pub groups: Vec<GroupSummary>,
    /// The files the summary was read from, which [`PortfolioReport::save_svg`]
    /// never writes over.
    #[serde(skip)]
    sources: Vec<PathBuf>,
}

/// The value at probability `p` of sorted `x` (type 7).
fn quantile(x: &[f64], p: f64) -> f64 {
    let h = (x.len() - 1) as f64 * p;
    let lo = h.floor() as usize;
    let hi = (lo + 1).min(x.len() - 1);
    x[lo] + (h - lo as f64) * (x[hi] - x[lo])
}

impl CostDistribution {
    /// The distribution of `costs` (`None` when empty).
    pub fn of(costs: &[f64]) -> Option<CostDistribution> {
        if costs.is_empty() {
            return None;
        }
        let mut x = costs.to_vec();
        x.sort_by(f64::total_cmp);
        Some(CostDistribution {
            n: x.len(),
            mean: x.iter().sum::<f64>() / x.len() as f64,
            min: x[0],
            p10: quantile(&x, 0.1),
            p25: quantile(&x, 0.25),
            median: quantile(&x, 0.5),
            p75: quantile(&x, 0.75),
            p90: quantile(&x, 0.9),
            max: x[x.len() - 1],
        })
    }
}

/// Running counts of one group.
#[derive(Default)]
struct Tally {
    rows: usize,
    accepted: usize,
    declined: usize,
    errors: usize,
    costs: Vec<f64>,
    /// feature → (count, increases, decreases)
    changes: BTreeMap<String, (usize, usize, usize)>,
}

impl Tally {
    fn add(&mut self, line: &Line, schema: &Schema) {
        self.rows += 1;
        if line.error.is_some() {
            self.errors += 1;
            return;
        }
        if line.decision.as_deref() == Some("accepted") {
            self.accepted += 1;
            return;
        }
        self.declined += 1;
        if let Some(cf) = &line.counterfactual {
            self.costs.push(cf.cost);
            for c in &cf.changes {
                let e = self.changes.entry(c.name.clone()).or_default();
                e.0 += 1;
                let contiguous = schema
                    .features
                    .get(c.feature)
                    .is_some_and(|f| matches!(f.kind, FeatureKind::Contiguous { .. }));
                if contiguous && c.to > c.from {
                    e.1 += 1;
                } else if contiguous && c.to < c.from {
                    e.2 += 1;
                }
            }
        }
    }

    fn finish(self, group: String) -> GroupSummary {
        let with_recourse = self.costs.len();
        let mut changes: Vec<ChangeCount> = self
            .changes
            .into_iter()
            .map(|(feature, (count, increases, decreases))| ChangeCount {
                feature,
                count,
                share: count as f64 / with_recourse as f64,
                increases,
                decreases,
            })
            .collect();
        changes.sort_by(|a, b| {
            b.count
                .cmp(&a.count)
                .then_with(|| a.feature.cmp(&b.feature))
        });
        GroupSummary {
            group,
            rows: self.rows,
            accepted: self.accepted,
            declined: self.declined,
            with_recourse,
            errors: self.errors,
            share_with_recourse: (self.declined > 0)
                .then(|| with_recourse as f64 / self.declined as f64),
            cost: CostDistribution::of(&self.costs),
            changes,
        }
    }
}

/// One line of the portfolio output (every key it may hold; others are refused).
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Line {
    row: usize,
    #[serde(default)]
    decision: Option<String>,
    #[serde(default)]
    #[allow(dead_code)] // read so that the key is known
    probability: Option<f64>,
    #[serde(default)]
    #[allow(dead_code)]
    outcome: Option<serde_json::Value>,
    #[serde(default)]
    #[allow(dead_code)]
    proved_by: Option<serde_json::Value>,
    #[serde(default)]
    counterfactual: Option<CounterfactualLine>,
    #[serde(default)]
    error: Option<String>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
#[allow(dead_code)] // every key is read so that it is known; the summary uses a few
struct CounterfactualLine {
    cost: f64,
    #[serde(default)]
    invalidation_rate: Option<f64>,
    #[serde(default)]
    mip_gap: Option<f64>,
    probability: Option<f64>,
    raw: Vec<Option<f64>>,
    changes: Vec<ChangeLine>,
    status: serde_json::Value,
    proved_by: serde_json::Value,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
#[allow(dead_code)]
struct ChangeLine {
    feature: usize,
    name: String,
    from: f64,
    to: f64,
    from_text: String,
    to_text: String,
}

/// The group key of a cell: (order, label); order 0 = named groups, k + 1 = band k.
fn group_of(cell: &str, by: &GroupBy, schema: &Schema, row: usize) -> Result<(usize, String)> {
    if by.edges.is_empty() {
        return Ok((0, cell.to_string()));
    }
    let v: f64 = cell.parse().map_err(|_| {
        Error::Data(format!(
            "row {row}: '{cell}' in column '{}' is not a number (bands need numbers)",
            by.column
        ))
    })?;
    let special = schema
        .features
        .iter()
        .find(|f| f.name == by.column)
        .and_then(|f| match &f.kind {
            FeatureKind::Contiguous { special_states, .. } => {
                special_states.iter().find(|s| s.code == v)
            }
            FeatureKind::Categorical { .. } => None,
        });
    if let Some(s) = special {
        return Ok((0, format!("{} ({})", s.label, fmt_num(s.code))));
    }
    let e = &by.edges;
    let k = e.iter().filter(|&&x| x <= v).count();
    let label = if k == 0 {
        format!("< {}", fmt_num(e[0]))
    } else if k == e.len() {
        format!("≥ {}", fmt_num(e[k - 1]))
    } else {
        format!("[{}, {})", fmt_num(e[k - 1]), fmt_num(e[k]))
    };
    Ok((k + 1, label))
}

/// The group column of the applicants' CSV, one cell per data record.
struct GroupColumn {
    applicants: ApplicantsCsv<BufReader<std::fs::File>>,
    col: usize,
}

impl GroupColumn {
    fn open(input: &Path, column: &str) -> Result<GroupColumn> {
        let applicants = ApplicantsCsv::open(input)?;
        let col = applicants
            .header()
            .iter()
            .position(|h| h == column)
            .ok_or_else(|| {
                Error::Data(format!(
                    "'{}' has no column '{column}' to group by",
                    input.display()
                ))
            })?;
        Ok(GroupColumn { applicants, col })
    }

    fn next(&mut self, row: usize) -> Result<String> {
        if !self.applicants.next_record()? {
            return Err(Error::Data(format!(
                "the applicants' file ends before row {row} of the output"
            )));
        }
        self.applicants.check_width()?;
        Ok(self.applicants.cells()[self.col].clone())
    }
}

/// Summarises the portfolio output `output` (JSON lines of
/// [`super::explain_portfolio`]). With `group_by`, `input` (the
/// applicants' CSV that output was made from) is read alongside, record `k`
/// giving the group of output row `k`; without it `input` is not read.
///
/// Errors: unreadable files, a line that is not the portfolio's JSON (an
/// unknown key is named), rows out of sequence, a missing group column, a
/// non-numeric cell to band, edges not finite and strictly increasing. An
/// output shorter than the input (a cancelled run) is summarised as far as it
/// goes.
pub fn summarize(
    schema: &Schema,
    input: &Path,
    output: &Path,
    group_by: Option<&GroupBy>,
) -> Result<PortfolioReport> {
    if let Some(by) = group_by {
        if by.edges.iter().any(|e| !e.is_finite()) || by.edges.windows(2).any(|w| w[0] >= w[1]) {
            return Err(Error::InvalidArgument(format!(
                "band edges of '{}' must be finite and strictly increasing, got {:?}",
                by.column, by.edges
            )));
        }
    }
    let mut column = group_by
        .map(|by| GroupColumn::open(input, &by.column))
        .transpose()?;
    let file = std::fs::File::open(output)
        .map_err(|e| Error::Io(format!("cannot read '{}': {e}", output.display())))?;
    let mut overall = Tally::default();
    let mut groups: BTreeMap<(usize, String), Tally> = BTreeMap::new();
    let mut expected_row = 0usize;
    for (i, text) in BufReader::new(file).lines().enumerate() {
        let text =
            text.map_err(|e| Error::Io(format!("cannot read '{}': {e}", output.display())))?;
        if text.trim().is_empty() {
            continue;
        }
        let at = || format!("'{}' line {}", output.display(), i + 1);
        let line: Line =
            serde_json::from_str(&text).map_err(|e| Error::Format(format!("{}: {e}", at())))?;
        if line.row != expected_row {
            return Err(Error::Data(format!(
                "{}: row {} where row {expected_row} was expected",
                at(),
                line.row
            )));
        }
        match (line.error.is_some(), line.decision.as_deref()) {
            (true, _) | (false, Some("accepted" | "declined")) => {}
            (false, other) => {
                return Err(Error::Format(format!(
                    "{}: decision {other:?} is neither \"accepted\" nor \"declined\"",
                    at()
                )));
            }
        }
        overall.add(&line, schema);
        if let (Some(by), Some(col)) = (group_by, column.as_mut()) {
            let cell = col.next(line.row)?;
            groups
                .entry(group_of(&cell, by, schema, line.row)?)
                .or_default()
                .add(&line, schema);
        }
        expected_row += 1;
    }
    Ok(PortfolioReport {
        overall: overall.finish("all".into()),
        group_column: group_by.map(|b| b.column.clone()),
        groups: groups
            .into_iter()
            .map(|((_, label), t)| t.finish(label))
            .collect(),
        sources: [output, input]
            .into_iter()
            .filter(|p| !p.as_os_str().is_empty())
            .map(Path::to_path_buf)
            .collect(),
    })
}

fn pct(x: Option<f64>) -> String {
    x.map_or("–".into(), |v| format!("{:.1}%", 100.0 * v))
}

fn num(x: Option<f64>) -> String {
    x.map_or("–".into(), |v| format!("{v:.3}"))
}

impl PortfolioReport {
    /// The report as JSON (the structs' field names).
    pub fn to_json(&self) -> Result<String> {
        Ok(serde_json::to_string_pretty(self)?)
    }

    /// The report as a plain-text table: the totals, the cost distribution,
    /// the `top` changes asked most often, then one line per group.
    pub fn to_text(&self, top: usize) -> String {
        let o = &self.overall;
        let mut s = format!(
            "portfolio: {} rows, {} accepted, {} declined, {} errors\n\
             declined with recourse: {}/{} ({})\n",
            o.rows,
            o.accepted,
            o.declined,
            o.errors,
            o.with_recourse,
            o.declined,
            pct(o.share_with_recourse)
        );
        if let Some(c) = &o.cost {
            s += &format!(
                "recourse cost: mean {:.3}; min {:.3}, p10 {:.3}, p25 {:.3}, median {:.3}, p75 {:.3}, p90 {:.3}, max {:.3}\n",
                c.mean, c.min, c.p10, c.p25, c.median, c.p75, c.p90, c.max
            );
        }
        if !o.changes.is_empty() {
            s += "changes asked most often (share of applicants with recourse):\n";
            let w = o
                .changes
                .iter()
                .take(top)
                .map(|c| c.feature.chars().count())
                .max();
            for c in o.changes.iter().take(top) {
                s += &format!(
                    "  {:<w$}  {:>7}  {:>6}  (raise {}, lower {})\n",
                    c.feature,
                    c.count,
                    pct(Some(c.share)),
                    c.increases,
                    c.decreases,
                    w = w.unwrap_or(0)
                );
            }
        }
        if let Some(col) = &self.group_column {
            let w = self
                .groups
                .iter()
                .map(|g| g.group.chars().count())
                .chain([col.chars().count()])
                .max()
                .unwrap_or(0);
            s += &format!(
                "by {col}:\n  {:<w$}  {:>8}  {:>8}  {:>9}  {:>7}  {:>11}  {:>8}  most asked change\n",
                "group", "rows", "declined", "recourse", "share", "median cost", "p90 cost"
            );
            for g in &self.groups {
                s += &format!(
                    "  {:<w$}  {:>8}  {:>8}  {:>9}  {:>7}  {:>11}  {:>8}  {}\n",
                    g.group,
                    g.rows,
                    g.declined,
                    g.with_recourse,
                    pct(g.share_with_recourse),
                    num(g.cost.map(|c| c.median)),
                    num(g.cost.map(|c| c.p90)),
                    g.changes.first().map_or("–".into(), |c| format!(
                        "{} ({})",
                        c.feature,
                        pct(Some(c.share))
                    ))
                );
            }
        }
        s
    }
    /// The report as one self-contained HTML page titled `title` (no script,
    /// no external file): the text table of [`PortfolioReport::to_text`] and
    /// the plots of [`PortfolioReport::to_svg`] inline.
    pub fn to_html(&self, title: &str, top: usize) -> Result<String> {
        let esc = crate::output::escape_html;
        Ok(format!(
            "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>{t}</title>\
             <style>body{{font-family:sans-serif;max-width:60em;margin:2em}}</style></head>\n\
             <body><h1>{t}</h1>\n<pre>{text}</pre>\n{svg}\n</body></html>\n",
            t = esc(title),
            text = esc(&self.to_text(top)),
            svg = self.to_svg(title, top)?
        ))
    }

    /// Writes [`PortfolioReport::to_html`] to `path` as [`crate::output`]
    /// writes every file: never over the files the summary was read from
    /// (`InvalidArgument`), and replacing `path` only once complete.
    pub fn save_html(&self, title: &str, top: usize, path: &Path) -> Result<()> {
        let sources: Vec<&Path> = self.sources.iter().map(PathBuf::as_path).collect();
        crate::output::check_not_input(path, &sources)?;
        let html = self.to_html(title, top)?;
        crate::output::write_file(path, &sources, html.as_bytes())
    }

    /// Writes [`PortfolioReport::to_svg`] to `path` as [`crate::output`]
    /// writes every file: never over the files the summary was read from
    /// (`InvalidArgument`), and replacing `path` only once complete.
    pub fn save_svg(&self, title: &str, top: usize, path: &Path) -> Result<()> {
        let sources: Vec<&Path> = self.sources.iter().map(PathBuf::as_path).collect();
        crate::output::check_not_input(path, &sources)?;
        let svg = self.to_svg(title, top)?;
        crate::output::write_file(path, &sources, svg.as_bytes())
    }

    /// The report drawn as SVG (plotters): per group, the share of declined
    /// applicants with recourse and the median recourse cost with its
    /// p25–p75 range; then the `top` changes asked most often overall.
    pub fn to_svg(&self, title: &str, top: usize) -> Result<String> {
        let mut buf = String::new();
        draw(self, title, top, &mut buf)
            .map_err(|e| Error::Io(format!("drawing the portfolio summary: {e}")))?;
        Ok(buf)
    }
}

fn draw(
    r: &PortfolioReport,
    title: &str,
    top: usize,
    buf: &mut String,
) -> std::result::Result<(), String> {
    use plotters::prelude::*;
    let groups: Vec<&GroupSummary> = if r.groups.is_empty() {
        vec![&r.overall]
    } else {
        std::iter::once(&r.overall).chain(&r.groups).collect()
    };
    let changes: Vec<&ChangeCount> = r.overall.changes.iter().take(top).collect();
    let bar = 22i32;
    let (label_w, panel_w, gap) = (340i32, 300i32, 40i32);
    let w = label_w + 2 * panel_w + gap + 60;
    let top_y = 70i32;
    let groups_h = bar * groups.len() as i32;
    let changes_y = top_y + groups_h + 70;
    let h = changes_y + bar * changes.len() as i32 + 40;
    let root = SVGBackend::with_string(buf, (w as u32, h as u32)).into_drawing_area();
    let e = |x: DrawingAreaErrorKind<_>| x.to_string();
    root.fill(&WHITE).map_err(e)?;
    let font = |size: i32| ("sans-serif", size).into_font();
    let text = |s: String, x: i32, y: i32, size: i32| Text::new(s, (x, y), font(size));
    root.draw(&text(title.to_string(), 16, 10, 18)).map_err(e)?;
    let share_x = label_w;
    let cost_x = label_w + panel_w + gap;
    let by = r
        .group_column
        .as_deref()
        .map_or(String::new(), |c| format!(" by {c}"));
    root.draw(&text(
        format!("declined with recourse{by}"),
        share_x,
        top_y - 24,
        13,
    ))
    .map_err(e)?;
    let max_cost = groups
        .iter()
        .filter_map(|g| g.cost.map(|c| c.p75))
        .fold(0.0f64, f64::max);
    root.draw(&text(
        format!(
            "recourse cost: median (bar), p25–p75 (line); axis 0–{}",
            fmt_num((max_cost * 1000.0).round() / 1000.0)
        ),
        cost_x,
        top_y - 24,
        13,
    ))
    .map_err(e)?;
    let blue = RGBColor(60, 110, 180);
    let orange = RGBColor(220, 130, 40);
    for (k, g) in groups.iter().enumerate() {
        let y = top_y + k as i32 * bar;
        let name = if k == 0 && !r.groups.is_empty() {
            "all applicants".to_string()
        } else {
            g.group.clone()
        };
        root.draw(&text(format!("{name} ({})", g.declined), 16, y + 4, 12))
            .map_err(e)?;
        if let Some(s) = g.share_with_recourse {
            let x1 = share_x + (s * panel_w as f64).round() as i32;
            root.draw(&Rectangle::new(
                [(share_x, y + 3), (x1, y + bar - 3)],
                blue.filled(),
            ))
            .map_err(e)?;
            root.draw(&text(pct(Some(s)), x1 + 4, y + 4, 11))
                .map_err(e)?;
        }
        if let (Some(c), true) = (g.cost, max_cost > 0.0) {
            let sx = |v: f64| cost_x + (v / max_cost * panel_w as f64).round() as i32;
            root.draw(&Rectangle::new(
                [(cost_x, y + 3), (sx(c.median), y + bar - 3)],
                orange.filled(),
            ))
            .map_err(e)?;
            root.draw(&PathElement::new(
                vec![(sx(c.p25), y + bar / 2), (sx(c.p75), y + bar / 2)],
                BLACK.stroke_width(2),
            ))
            .map_err(e)?;
            root.draw(&text(format!("{:.2}", c.median), sx(c.p75) + 4, y + 4, 11))
                .map_err(e)?;
        }
    }
    root.draw(&text(
        "changes asked most often (share of applicants with recourse)".into(),
        share_x,
        changes_y - 24,
        13,
    ))
    .map_err(e)?;
    for (k, c) in changes.iter().enumerate() {
        let y = changes_y + k as i32 * bar;
        root.draw(&text(c.feature.clone(), 16, y + 4, 12))
            .map_err(e)?;
        let x1 = share_x + (c.share * panel_w as f64).round() as i32;
        root.draw(&Rectangle::new(
            [(share_x, y + 3), (x1, y + bar - 3)],
            RGBColor(90, 160, 90).filled(),
        ))
        .map_err(e)?;
        root.draw(&text(
            format!(
                "{} (raise {}, lower {})",
                pct(Some(c.share)),
                c.increases,
                c.decreases
            ),
            x1 + 4,
            y + 4,
            11,
        ))
        .map_err(e)?;
    }
    root.present().map_err(e)?;
    Ok(())
}
