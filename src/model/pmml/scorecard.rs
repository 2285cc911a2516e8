//! PMML `Scorecard` → a cfx [`Scorecard`].
//!
//! The standard scores `initialScore + Σ partialScore` over the
//! characteristics, each taking the partial score of its **first** Attribute
//! whose predicate is TRUE; when no Attribute of a characteristic matches,
//! the whole result is invalid. cfx bins must be disjoint, so the ordered
//! attributes are resolved exactly into disjoint bins of one feature:
//!
//! * every predicate of a characteristic must read one and the same field;
//! * each special state and each categorical level is evaluated as the PMML
//!   evaluator sees it ([`super::fields`]) and takes its first matching
//!   attribute;
//! * the value range of a contiguous feature is cut at every constant the
//!   predicates compare with: on each constant and on each open interval
//!   between two consecutive constants every predicate is constant, so one
//!   evaluation per piece decides the piece, and consecutive pieces with the
//!   same attribute merge into one cfx interval (open or closed ends exactly).
//!
//! A schema state or a piece of the range that no attribute matches (the
//! model's result is invalid there) is refused, naming the characteristic,
//! the values and the line: narrow the schema or fix the file. On an integer
//! feature a piece holding no whole number is never reached and is joined to
//! its neighbour.

use super::fields::{Fields, Seen};
use super::predicate::{self, Predicate};
use super::xml::{Element, fail};
use super::{Accept, PmmlOptions};
use crate::error::{Error, Result};
use crate::model::scorecard::{BinReason, CharacteristicReasons, ReasonCodeAlgorithm, ReasonCodes};
use crate::model::{Bin, BinRange, Characteristic, ScoreScaling, Scorecard};
use crate::schema::{FeatureKind, Schema};

struct Attr {
    predicate: Predicate,
    points: f64,
    reason_code: Option<String>,
    line: usize,
}

/// One resolved bin: the range and the attribute it takes.
struct Piece {
    range: BinRange,
    attr: usize,
}

pub fn read(
    model: &Element,
    fields: &Fields,
    schema: &Schema,
    opts: &PmmlOptions,
    report: &mut Vec<String>,
) -> Result<Scorecard> {
    super::fields::require_double(model)?;
    super::fields::refuse_float(fields)?;
    match model.attr("functionName") {
        Some("regression") => {}
        other => {
            return Err(fail(
                model,
                &format!(
                    "a Scorecard with functionName={other:?} is not read by cfx (\"regression\" \
                     expected)"
                ),
            ));
        }
    }
    let initial = model.num("initialScore", Some(0.0))?.unwrap();
    let use_reason_codes = match model.attr("useReasonCodes").unwrap_or("true") {
        "true" | "1" => true,
        "false" | "0" => false,
        v => {
            return Err(fail(
                model,
                &format!("useReasonCodes=\"{v}\" is not a boolean"),
            ));
        }
    };
    let algorithm = match model.attr("reasonCodeAlgorithm").unwrap_or("pointsBelow") {
        "pointsBelow" => ReasonCodeAlgorithm::PointsBelow,
        "pointsAbove" => ReasonCodeAlgorithm::PointsAbove,
        v => return Err(fail(model, &format!("unknown reasonCodeAlgorithm \"{v}\""))),
    };
    let baseline = model.num("baselineScore", None)?;
    let baseline_method = model.attr("baselineMethod").map(str::to_string);
    if let Some(m) = &baseline_method {
        if !matches!(m.as_str(), "max" | "min" | "mean" | "neutral" | "other") {
            return Err(fail(model, &format!("unknown baselineMethod \"{m}\"")));
        }
    }
    let mut chars_el = None;
    for c in &model.children {
        match c.name.as_str() {
            "Extension" | "MiningSchema" | "Output" | "ModelStats" | "ModelExplanation"
            | "ModelVerification" => {}
            "Targets" => super::check_targets(c)?,
            "Characteristics" if chars_el.is_none() => chars_el = Some(c),
            _ => return Err(super::fields::unknown(c, "Scorecard")),
        }
    }
    let chars_el = chars_el.ok_or_else(|| fail(model, "no <Characteristics>"))?;
    let Some(accept) = opts.accept else {
        return Err(Error::Format(
            "PMML Scorecard: a scorecard file does not say which side of a cutoff is \
             accepted: give the option \"accept\": \"at_or_above\" (a high score is \
             favourable) or \"at_or_below\" (the score measures risk), with \"cutoff\""
                .into(),
        ));
    };
    let Some(cutoff) = opts.cutoff else {
        return Err(Error::Format(
            "PMML Scorecard: give the option \"cutoff\" (the score at which applicants are \
             accepted)"
                .into(),
        ));
    };
    let sign = match accept {
        Accept::AtOrAbove => 1.0,
        Accept::AtOrBelow => -1.0,
    };
    let mut characteristics = Vec::new();
    let mut reasons = Vec::new();
    for ch in &chars_el.children {
        match ch.name.as_str() {
            "Extension" => continue,
            "Characteristic" => {}
            _ => return Err(super::fields::unknown(ch, "Characteristics")),
        }
        let name = ch.attr("name").unwrap_or("").to_string();
        let ch_code = ch.attr("reasonCode").map(str::to_string);
        let ch_baseline = ch.num("baselineScore", baseline)?;
        if use_reason_codes && ch_baseline.is_none() {
            report.push(format!(
                "characteristic '{name}' (line {}) has no baseline score",
                ch.line
            ));
        }
        let mut attrs = Vec::new();
        for a in &ch.children {
            match a.name.as_str() {
                "Extension" => continue,
                "Attribute" => {}
                _ => return Err(super::fields::unknown(a, "Characteristic")),
            }
            if a.one("ComplexPartialScore")?.is_some() {
                return Err(fail(
                    a,
                    "a ComplexPartialScore (an expression of the input) is not a fixed number \
                     of points and is not evaluated by cfx",
                ));
            }
            let p = predicate::the_predicate(a, &[])?;
            let points = a
                .num("partialScore", None)?
                .ok_or_else(|| fail(a, "no partialScore"))?;
            if !points.is_finite() {
                return Err(fail(a, "partialScore is not finite"));
            }
            attrs.push(Attr {
                predicate: predicate::read(p, &fields.by_name)?,
                points,
                reason_code: a.attr("reasonCode").map(str::to_string).or(ch_code.clone()),
                line: a.line,
            });
        }
        if attrs.is_empty() {
            return Err(fail(ch, "a Characteristic needs at least one Attribute"));
        }
        let mut read_fields = Vec::new();
        for a in &attrs {
            a.predicate.fields(&mut read_fields);
        }
        let field = match read_fields.as_slice() {
            [f] => *f,
            [] => {
                return Err(fail(
                    ch,
                    "its attributes read no field (constant characteristics are not mapped \
                     onto a schema feature by cfx)",
                ));
            }
            many => {
                return Err(fail(
                    ch,
                    &format!(
                        "its attributes read several fields {many:?}: a cfx scorecard bins one \
                         feature per characteristic"
                    ),
                ));
            }
        };
        let view = &fields.by_name[field];
        let feature = &schema.features[view.feature];
        let pieces = resolve(ch, &name, &attrs, view, schema)?;
        let mut bins = Vec::new();
        let mut bin_reasons = Vec::new();
        for p in pieces {
            let a = &attrs[p.attr];
            bins.push(Bin {
                range: p.range,
                points: sign * a.points,
            });
            bin_reasons.push(BinReason {
                reason_code: a.reason_code.clone(),
                partial_score: a.points,
                source: format!("Attribute at line {}", a.line),
            });
        }
        if characteristics
            .iter()
            .any(|c: &Characteristic| c.feature == feature.name)
        {
            return Err(fail(
                ch,
                &format!(
                    "a second characteristic on feature '{}': a cfx scorecard has one per \
                     feature",
                    feature.name
                ),
            ));
        }
        characteristics.push(Characteristic {
            feature: feature.name.clone(),
            bins,
        });
        reasons.push(CharacteristicReasons {
            name,
            reason_code: ch_code,
            baseline_score: ch_baseline,
            bins: bin_reasons,
        });
    }
    let scaling = match opts.scaling {
        None => None,
        Some(s) => Some(
            ScoreScaling::new(sign * s.factor, sign * s.offset).map_err(|_| {
                Error::Format(format!(
                    "PMML Scorecard: the scaling factor {} must be {} for a score accepted {}",
                    s.factor,
                    if sign > 0.0 { "positive" } else { "negative" },
                    if sign > 0.0 {
                        "at or above"
                    } else {
                        "at or below"
                    }
                ))
            })?,
        ),
    };
    let mut sc = Scorecard::new(
        schema,
        sign * initial,
        sign * cutoff,
        scaling,
        characteristics,
    )
    .map_err(|e| Error::Format(format!("PMML Scorecard (line {}): {e}", model.line)))?;
    report.push(match accept {
        Accept::AtOrAbove => {
            format!("the score is read as favourable when high: accepted iff score >= {cutoff}")
        }
        Accept::AtOrBelow => format!(
            "the score is read as a risk score: accepted iff score <= {cutoff}; cfx's points \
             are the score negated (accepted iff points >= {})",
            -cutoff
        ),
    });
    if scaling.is_none() {
        report.push("no scaling given: the scorecard has no probability".into());
    }
    if !use_reason_codes {
        report.push(
            "useReasonCodes=\"false\": the file's reason codes are kept but not meant to be \
             used"
                .into(),
        );
    }
    sc.reasons = Some(ReasonCodes {
        use_reason_codes,
        algorithm,
        baseline_method,
        baseline_score: baseline,
        points_negated: sign < 0.0,
        characteristics: reasons,
    });
    Ok(sc)
}

/// The first attribute whose predicate is TRUE for `v`.
fn first_match(attrs: &[Attr], v: &Seen) -> Option<usize> {
    attrs.iter().position(|a| a.predicate.eval(v) == Some(true))
}

fn no_match(ch: &Element, name: &str, feature: &str, what: &str) -> Error {
    fail(
        ch,
        &format!(
            "characteristic '{name}': {what} of feature '{feature}' matches no Attribute, so \
             the model's result is invalid there; cfx refuses to score what the model does \
             not (narrow the schema, or give the characteristic an attribute for it)"
        ),
    )
}

/// The attributes resolved into disjoint bins (see the module docs).
fn resolve(
    ch: &Element,
    name: &str,
    attrs: &[Attr],
    view: &super::fields::FieldView,
    schema: &Schema,
) -> Result<Vec<Piece>> {
    let f = &schema.features[view.feature];
    let mut out = Vec::new();
    match &f.kind {
        FeatureKind::Categorical { levels } => {
            let mut groups: Vec<(usize, Vec<String>)> = Vec::new();
            for (l, seen) in levels.iter().zip(&view.states) {
                let a = first_match(attrs, seen)
                    .ok_or_else(|| no_match(ch, name, &f.name, &format!("level '{l}'")))?;
                match groups.iter_mut().find(|g| g.0 == a) {
                    Some(g) => g.1.push(l.clone()),
                    None => groups.push((a, vec![l.clone()])),
                }
            }
            groups.sort_by_key(|g| g.0);
            out.extend(groups.into_iter().map(|(attr, levels)| Piece {
                range: BinRange::Levels { levels },
                attr,
            }));
        }
        FeatureKind::Contiguous {
            lower,
            upper,
            integer,
            special_states,
            ..
        } => {
            let mut groups: Vec<(usize, Vec<f64>)> = Vec::new();
            for (s, seen) in special_states.iter().zip(&view.states[1..]) {
                let a = first_match(attrs, seen).ok_or_else(|| {
                    no_match(
                        ch,
                        name,
                        &f.name,
                        &format!("special state {} ('{}')", s.code, s.label),
                    )
                })?;
                match groups.iter_mut().find(|g| g.0 == a) {
                    Some(g) => g.1.push(s.code),
                    None => groups.push((a, vec![s.code])),
                }
            }
            let mut cuts = Vec::new();
            for a in attrs {
                a.predicate.constants(&mut cuts);
            }
            cuts.retain(|x| x.is_finite());
            cuts.sort_by(f64::total_cmp);
            cuts.dedup();
            // The pieces in order: (lo, hi, lo_closed, hi_closed, representative).
            let mut pieces: Vec<(f64, f64, bool, bool, f64)> = Vec::new();
            let mut prev = f64::NEG_INFINITY;
            for &c in &cuts {
                let rep = if prev == f64::NEG_INFINITY {
                    c - 1.0 - c.abs()
                } else {
                    prev + (c - prev) / 2.0
                };
                if rep > prev && rep < c {
                    pieces.push((prev, c, false, false, rep));
                }
                pieces.push((c, c, true, true, c));
                prev = c;
            }
            let rep = if prev == f64::NEG_INFINITY {
                *lower
            } else {
                prev + 1.0 + prev.abs()
            };
            pieces.push((prev, f64::INFINITY, false, false, rep));
            // Keep the pieces that meet [L, U]; decide each.
            let mut decided: Vec<(f64, f64, bool, bool, Option<usize>)> = Vec::new();
            for (lo, hi, lc, hc, rep) in pieces {
                let meets = if lo == hi {
                    lo >= *lower && lo <= *upper
                } else {
                    lo < *upper && hi > *lower
                };
                if !meets {
                    continue;
                }
                let a = first_match(attrs, &Seen::Number(rep));
                // On an integer feature, whether the piece holds a whole number of [L, U].
                let reachable = !*integer
                    || if lo == hi {
                        lo.fract() == 0.0
                    } else {
                        let k = (lo.floor() + 1.0).max(lower.ceil());
                        k < hi && k <= *upper
                    };
                if a.is_none() && reachable {
                    let what = if lo == hi {
                        format!("the value {lo}")
                    } else {
                        format!("the values in ({lo}, {hi})")
                    };
                    return Err(no_match(ch, name, &f.name, &what));
                }
                decided.push((lo, hi, lc, hc, a));
            }
            // Unreachable pieces (no whole number) join a neighbour.
            let first_known = decided.iter().find_map(|d| d.4);
            let mut last = first_known;
            for d in decided.iter_mut() {
                match d.4 {
                    Some(a) => last = Some(a),
                    None => d.4 = last,
                }
            }
            let mut merged: Vec<(f64, f64, bool, bool, usize)> = Vec::new();
            for (lo, hi, lc, hc, a) in decided {
                let a = a.ok_or_else(|| no_match(ch, name, &f.name, "the value range"))?;
                match merged.last_mut() {
                    Some(m) if m.4 == a => {
                        m.1 = hi;
                        m.3 = hc;
                    }
                    _ => merged.push((lo, hi, lc, hc, a)),
                }
            }
            let n = merged.len();
            for (k, (lo, hi, lc, hc, a)) in merged.into_iter().enumerate() {
                out.push(Piece {
                    range: BinRange::Interval {
                        lower: (k > 0).then_some(lo),
                        upper: (k + 1 < n).then_some(hi),
                        lower_closed: k > 0 && lc,
                        upper_closed: k + 1 < n && hc,
                    },
                    attr: a,
                });
            }
            groups.sort_by_key(|g| g.0);
            out.extend(groups.into_iter().map(|(attr, codes)| Piece {
                range: BinRange::Special { codes },
                attr,
            }));
        }
    }
    Ok(out)
}
