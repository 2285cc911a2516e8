//! A notice as a printable, self-contained HTML page: no script, no external
//! resource; the reasons' contributions as an inline SVG bar chart; the
//! advice in plain language.

use super::consistency::{AdviceVersion, Necessity, Notice};

/// Escapes text for HTML element content and attribute values.
fn esc(s: &str) -> String {
    let mut o = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '&' => o.push_str("&amp;"),
            '<' => o.push_str("&lt;"),
            '>' => o.push_str("&gt;"),
            '"' => o.push_str("&quot;"),
            '\'' => o.push_str("&#39;"),
            _ => o.push(c),
        }
    }
    o
}

/// The bar chart: one bar per principal reason, its length the reason's
/// share of the largest contribution (all are adverse: drawn to the left
/// scale of "how much it lowered the score").
fn chart(n: &Notice) -> String {
    let rs = &n.reasons.reasons;
    let width = 560.0;
    let label_w = 220.0;
    let bar_h = 26.0;
    let height = bar_h * rs.len().max(1) as f64 + 10.0;
    let max = rs
        .iter()
        .map(|r| r.contribution.abs())
        .fold(0.0f64, f64::max)
        .max(1e-300);
    let mut svg = format!(
        "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{width}\" height=\"{height}\" \
         role=\"img\" aria-label=\"How much each reason lowered the score\">"
    );
    for (k, r) in rs.iter().enumerate() {
        let y = 5.0 + bar_h * k as f64;
        let w = (width - label_w - 70.0) * r.contribution.abs() / max;
        let label = r.statement.clone().unwrap_or_else(|| r.feature.clone());
        let short: String = label.chars().take(32).collect();
        svg.push_str(&format!(
            "<text x=\"0\" y=\"{:.1}\" font-size=\"12\">{}. {}</text>\
             <rect x=\"{label_w}\" y=\"{:.1}\" width=\"{w:.1}\" height=\"{:.1}\" fill=\"#b5443b\"/>\
             <text x=\"{:.1}\" y=\"{:.1}\" font-size=\"12\">{}</text>",
            y + 17.0,
            r.rank,
            esc(&short),
            y + 4.0,
            bar_h - 8.0,
            label_w + w + 6.0,
            y + 17.0,
            esc(&crate::schema::fmt_num(r.contribution))
        ));
    }
    svg.push_str("</svg>");
    svg
}

/// A section for the waiting option or the robust version: its text, and
/// its changes when it has any (the text alone says why it is missing).
fn version(h: &mut String, title: &str, v: &AdviceVersion) {
    h.push_str(&format!("<h3>{}</h3>\n<p>{}", esc(title), esc(&v.text)));
    if let Some(t) = &v.target {
        h.push_str(&format!(
            " <span class=\"small\">(target: {})</span>",
            esc(t)
        ));
    }
    h.push_str("</p>\n");
    if !v.changes.is_empty() && v.months != Some(0) {
        h.push_str("<ul>\n");
        for c in &v.changes {
            h.push_str(&format!(
                "<li>{}: from {} to {}</li>\n",
                esc(&c.name),
                esc(&c.from_text),
                esc(&c.to_text)
            ));
        }
        h.push_str("</ul>\n");
    }
}

/// The notice as a self-contained HTML page.
pub fn to_html(n: &Notice) -> String {
    let mut h = String::from(
        "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\
         <title>Notice of action taken</title><style>body{font-family:sans-serif;max-width:\
         46em;margin:2em auto;color:#222}h1{font-size:1.4em}li{margin:.4em 0}.note{border-left:\
         4px solid #b5443b;padding:.5em 1em;background:#faf3f2}.small{font-size:.85em;color:#555}\
         </style></head><body>\n<h1>Your application was not approved</h1>\n",
    );
    h.push_str("<h2>Principal reasons</h2>\n<ol>\n");
    for (r, m) in n.reasons.reasons.iter().zip(&n.marks) {
        let text = r.statement.clone().unwrap_or_else(|| r.feature.clone());
        let mut tags = Vec::new();
        if m.advice_acts {
            tags.push("the advice below addresses this");
        }
        if m.immutable {
            tags.push("cannot be changed");
        }
        if m.time_driven {
            tags.push("changes with time");
        }
        if m.necessity == Necessity::Necessary {
            tags.push("every smallest change must address this");
        }
        if m.waiting_acts && !m.advice_acts && n.waiting.months.is_some_and(|k| k > 0) {
            tags.push("waiting would address this");
        }
        if m.robust_acts && !m.advice_acts {
            tags.push("the advice with a safety margin addresses this");
        }
        h.push_str(&format!(
            "<li><strong>{}</strong>{} <span class=\"small\">(your value: {}{})</span></li>\n",
            esc(&text),
            r.code
                .as_ref()
                .map(|c| format!(" [{}]", esc(c)))
                .unwrap_or_default(),
            esc(&r.value),
            if tags.is_empty() {
                String::new()
            } else {
                format!("; {}", esc(&tags.join("; ")))
            }
        ));
    }
    h.push_str("</ol>\n");
    h.push_str(&chart(n));
    if let Some(note) = &n.first_reason_note {
        h.push_str(&format!("<p class=\"note\">{}</p>\n", esc(note)));
    }
    h.push_str("<h2>What would change the decision</h2>\n");
    match (&n.advice, &n.advice_error) {
        (Some(a), _) => {
            h.push_str(&format!("<p>{}</p>\n", esc(&a.text)));
            if !a.changes.is_empty() {
                h.push_str("<ul>\n");
                for c in &a.changes {
                    h.push_str(&format!(
                        "<li>{}: from {} to {}</li>\n",
                        esc(&c.name),
                        esc(&c.from_text),
                        esc(&c.to_text)
                    ));
                }
                h.push_str("</ul>\n");
            }
        }
        (None, Some(e)) => h.push_str(&format!(
            "<p>No advice could be computed for this model: {}</p>\n",
            esc(e)
        )),
        (None, None) => {}
    }
    version(&mut h, "If you can wait", &n.waiting);
    version(&mut h, "Advice with a safety margin", &n.robust);
    h.push_str(&format!(
        "<p class=\"small\">How the reasons were ranked: {}{}. Notice {} (format {}).</p>\n",
        esc(&n.reasons.method_description),
        n.reasons
            .reference
            .map(|k| format!(", compared with {}", esc(&k.describe())))
            .unwrap_or_default(),
        esc(&n.id),
        n.format_version
    ));
    h.push_str("</body></html>\n");
    h
}
