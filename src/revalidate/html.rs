//! The deployment report as one self-contained HTML page with inline SVG
//! plots (no script, no external file), for a model-risk committee's pack.

use super::DeploymentReport;
use std::fmt::Write;

use crate::output::escape_html as esc;

/// Horizontal bars: one row per `(label, value, note)`, scaled to `max`.
fn bars(title: &str, rows: &[(String, f64, String)], max: f64) -> String {
    let (label_w, bar_w, row_h) = (260.0, 360.0, 22.0);
    let height = 30.0 + row_h * rows.len().max(1) as f64;
    let mut svg = String::new();
    let _ = write!(
        svg,
        "<figure><figcaption>{}</figcaption><svg xmlns=\"http://www.w3.org/2000/svg\" \
         width=\"{}\" height=\"{height}\" role=\"img\">",
        esc(title),
        label_w + bar_w + 120.0
    );
    for (k, (label, value, note)) in rows.iter().enumerate() {
        let y = 10.0 + row_h * k as f64;
        let w = if max > 0.0 { bar_w * value / max } else { 0.0 };
        let _ = write!(
            svg,
            "<text x=\"{}\" y=\"{}\" text-anchor=\"end\" font-size=\"12\">{}</text>\
             <rect x=\"{label_w}\" y=\"{y}\" width=\"{w:.1}\" height=\"{}\" fill=\"#4a78b0\"/>\
             <text x=\"{:.1}\" y=\"{}\" font-size=\"12\">{}</text>",
            label_w - 6.0,
            y + 14.0,
            esc(label),
            row_h - 6.0,
            label_w + w + 4.0,
            y + 14.0,
            esc(note)
        );
    }
    if rows.is_empty() {
        svg.push_str("<text x=\"10\" y=\"24\" font-size=\"12\">none</text>");
    }
    svg.push_str("</svg></figure>\n");
    svg
}

impl DeploymentReport {
    /// The page title used when the caller gives none (the C API's NULL
    /// title, the bindings' default).
    pub const DEFAULT_TITLE: &'static str =
        "cfx deployment report: advice re-validated against a new model";

    /// Writes [`Self::to_html`] to the file `path` as [`crate::output`]
    /// writes every file: refused (`InvalidArgument`, before anything is
    /// opened) when `path` is one of `sources` — the files the report was
    /// made from, the ledger and the re-validation output: the same file or a
    /// link to it — and replacing an existing file only once the page is
    /// complete.
    pub fn save_html(
        &self,
        title: &str,
        path: &std::path::Path,
        sources: &[&std::path::Path],
    ) -> crate::error::Result<()> {
        crate::output::write_file(path, sources, self.to_html(title).as_bytes())
    }

    /// The report as a self-contained HTML page titled `title`: the counts,
    /// and bar plots of the broken share per group, the extra cost's
    /// distribution, the features behind the breaks and the issued advice
    /// against its robust and COPA-corrected versions.
    pub fn to_html(&self, title: &str) -> String {
        let mut page = String::new();
        let _ = write!(
            page,
            "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\
             <title>{t}</title><style>body{{font-family:sans-serif;max-width:60em;margin:2em}}\
             td,th{{padding:0.2em 0.8em;text-align:right}}th{{text-align:left}}\
             figcaption{{font-weight:bold;margin-top:1em}}</style></head><body>\n<h1>{t}</h1>\n",
            t = esc(title)
        );
        let pct = |a: usize, b: usize| {
            if b > 0 {
                format!("{:.1}%", 100.0 * a as f64 / b as f64)
            } else {
                "–".into()
            }
        };
        let _ = write!(
            page,
            "<table>\
             <tr><th>promises re-validated</th><td>{}</td></tr>\
             <tr><th>kept</th><td>{}</td></tr>\
             <tr><th>broken</th><td>{} ({})</td></tr>\
             <tr><th>broken, with a proven repair</th><td>{}</td></tr>\
             <tr><th>broken, with a repair found at a limit (not proven optimal)</th><td>{}</td></tr>\
             <tr><th>broken, no repair</th><td>{}</td></tr>\
             <tr><th>records that could not be read or re-validated</th><td>{}</td></tr>\
             <tr><th>robust version broken</th><td>{} of {} ({})</td></tr>\
             <tr><th>COPA-corrected version broken</th><td>{} of {} ({})</td></tr>",
            self.records,
            self.kept,
            self.broken,
            pct(self.broken, self.records),
            self.repaired_proven,
            self.repaired - self.repaired_proven,
            self.no_repair,
            self.errors,
            self.robust_broken,
            self.robust_records,
            pct(self.robust_broken, self.robust_records),
            self.copa_broken,
            self.copa_records,
            pct(self.copa_broken, self.copa_records)
        );
        if let Some(q) = &self.extra_cost {
            let _ = write!(
                page,
                "<tr><th>extra cost to keep a promise: median (90th percentile, max)</th>\
                 <td>{:.3} ({:.3}, {:.3})</td></tr>",
                q.median, q.p90, q.max
            );
        }
        let _ = write!(
            page,
            "<tr><th>applicants' promises (alternatives of one applicant count once)</th>\
             <td>{}: {} kept, {} broken; {} with options, {} with some options broken</td></tr>",
            self.promises.promises,
            self.promises.kept,
            self.promises.broken,
            self.promises.with_options,
            self.promises.options_partly_broken
        );
        let model = |m: &super::ModelName| match &m.label {
            Some(l) => format!("{} ({})", esc(l), esc(&m.fingerprint)),
            None => esc(&m.fingerprint),
        };
        let _ = write!(
            page,
            "<tr><th>new model</th><td>{}</td></tr>",
            model(&self.new_model)
        );
        for m in &self.old_models {
            let _ = write!(
                page,
                "<tr><th>advice issued under</th><td>{}: {} records</td></tr>",
                model(m),
                m.records
            );
        }
        page.push_str("</table>\n");
        let _ = writeln!(
            page,
            "<p>A repair is proven optimal for the rule the exact engine solves: a score at \
             least {} above the new model's threshold (the safety margin, in its score units). \
             A row accepted with less to spare could cost less.</p>",
            self.decision_margin
        );
        if !self.no_repair_reasons.is_empty() {
            page.push_str(
                "<table><tr><th>broken without repair, because</th><th>records</th></tr>",
            );
            for (why, n) in &self.no_repair_reasons {
                let _ = write!(page, "<tr><td>{}</td><td>{n}</td></tr>", esc(why));
            }
            page.push_str("</table>\n");
        }
        if !self.contacts.is_empty() {
            page.push_str(
                "<h2>Customers to contact</h2>\n<table><tr><th>record</th><th>id</th>\
                 <th>what broke</th><th>repair</th></tr>",
            );
            for c in &self.contacts {
                let repair = if c.repair.is_empty() {
                    c.repair_status.clone()
                } else {
                    format!("{} ({})", c.repair.join("; "), c.repair_status)
                };
                let _ = write!(
                    page,
                    "<tr><td>{}</td><td>{}</td><td>{}</td><td>{}</td></tr>",
                    c.record,
                    match &c.notice {
                        Some(n) => format!("{} (notice {})", esc(&c.id), esc(n)),
                        None => esc(&c.id),
                    },
                    esc(&c.broke),
                    esc(&repair)
                );
            }
            page.push_str("</table>\n");
        }
        let groups: Vec<(String, f64, String)> = self
            .groups
            .iter()
            .map(|(g, c)| {
                let share = if c.records > 0 {
                    c.broken as f64 / c.records as f64
                } else {
                    0.0
                };
                let label = if g.is_empty() { "(no group)" } else { g };
                (
                    label.to_string(),
                    share,
                    format!(
                        "{} of {} ({})",
                        c.broken,
                        c.records,
                        pct(c.broken, c.records)
                    ),
                )
            })
            .collect();
        page += &bars("Share of promises broken, by group", &groups, 1.0);
        let hist: Vec<(String, f64, String)> = self
            .extra_cost_histogram
            .iter()
            .map(|&(a, b, n)| (format!("{a:.3} – {b:.3}"), n as f64, n.to_string()))
            .collect();
        let hmax = hist.iter().map(|h| h.1).fold(0.0, f64::max);
        page += &bars(
            "Extra cost of keeping a broken promise (repairs from the advised row)",
            &hist,
            hmax,
        );
        let features: Vec<(String, f64, String)> = self
            .features_behind_breaks
            .iter()
            .take(12)
            .map(|(f, n)| (f.clone(), *n as f64, n.to_string()))
            .collect();
        let fmax = features.iter().map(|f| f.1).fold(0.0, f64::max);
        page += &bars("Features the repairs change most often", &features, fmax);
        if self.robust_records > 0 || self.copa_records > 0 {
            let mut cmp = vec![(
                "issued advice".to_string(),
                self.broken as f64,
                format!("{} broken", self.broken),
            )];
            if self.robust_records > 0 {
                cmp.push((
                    "its robust version".to_string(),
                    self.robust_broken as f64,
                    format!("{} of {} broken", self.robust_broken, self.robust_records),
                ));
            }
            if self.copa_records > 0 {
                cmp.push((
                    "its COPA-corrected version".to_string(),
                    self.copa_broken as f64,
                    format!("{} of {} broken", self.copa_broken, self.copa_records),
                ));
            }
            let m = cmp.iter().map(|c| c.1).fold(0.0, f64::max);
            page += &bars(
                "Promises broken: issued advice against its robust and COPA-corrected versions",
                &cmp,
                m,
            );
        }
        page.push_str("</body></html>\n");
        page
    }
}
