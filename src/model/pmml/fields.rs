//! The `DataDictionary` and a model's `MiningSchema` checked against the cfx
//! schema: for every schema feature a model uses, what the PMML evaluator sees
//! in each of the feature's states (a number, a category, or a missing value,
//! after the mining field's missing/invalid treatment). Everything a model
//! reads goes through [`FieldView::seen`], so the model builders never guess.

use super::PmmlOptions;
use super::xml::{Element, fail, parse_number};
use crate::error::{Error, Result};
use crate::schema::{FeatureKind, Schema};
use std::collections::BTreeMap;

/// A value as the PMML evaluator sees it.
#[derive(Debug, Clone, PartialEq)]
pub enum Seen {
    Number(f64),
    Text(String),
    Missing,
}

/// How a PMML field reaches a model.
#[derive(Debug, Clone)]
pub struct FieldView {
    /// The schema feature.
    pub feature: usize,
    /// Whether PMML compares the values as numbers (`dataType` numeric).
    pub numeric: bool,
    /// Whether the field is single precision (`dataType="float"`): the
    /// evaluator rounds each input to a float32 (read by the tree models only,
    /// refused elsewhere by [`refuse_float`]).
    pub float: bool,
    /// The line of the field's `<DataField>` (for messages).
    pub line: usize,
    /// Per schema state, what the evaluator sees: for a contiguous feature,
    /// index 0 stands for the value range and holds `Seen::Number(NaN)` (the
    /// range is read piecewise by the model builders), then one entry per
    /// special state; for a categorical feature one entry per level.
    pub states: Vec<Seen>,
}

/// The target field and its categories.
#[derive(Debug, Clone)]
pub struct TargetField {
    pub name: String,
    pub categories: Vec<String>,
}

/// The fields of one model.
#[derive(Debug)]
pub struct Fields {
    pub by_name: BTreeMap<String, FieldView>,
    pub target: Option<TargetField>,
}

struct DataField<'a> {
    el: &'a Element,
    optype: &'a str,
    data_type: &'a str,
    values: Vec<(String, String)>,
    intervals: Vec<(f64, f64, bool, bool)>,
}

fn is_numeric_type(t: &str) -> bool {
    matches!(t, "double" | "integer" | "float")
}

fn data_dictionary(root: &Element) -> Result<BTreeMap<String, DataField<'_>>> {
    let dd = root
        .one("DataDictionary")?
        .ok_or_else(|| fail(root, "no <DataDictionary>"))?;
    let mut out = BTreeMap::new();
    for c in &dd.children {
        match c.name.as_str() {
            "Extension" => {}
            "Taxonomy" => return Err(fail(c, "taxonomies are not read by cfx")),
            "DataField" => {
                let name = c.req("name")?.to_string();
                let optype = c.req("optype")?;
                let data_type = c.req("dataType")?;
                let mut values = Vec::new();
                let mut intervals = Vec::new();
                for v in &c.children {
                    match v.name.as_str() {
                        "Extension" => {}
                        "Value" => values.push((
                            v.req("value")?.to_string(),
                            v.attr("property").unwrap_or("valid").to_string(),
                        )),
                        "Interval" => {
                            let closure = v.req("closure")?;
                            let (lc, hc) = match closure {
                                "openOpen" => (false, false),
                                "openClosed" => (false, true),
                                "closedOpen" => (true, false),
                                "closedClosed" => (true, true),
                                other => {
                                    return Err(fail(v, &format!("unknown closure '{other}'")));
                                }
                            };
                            let lo = v.num("leftMargin", Some(f64::NEG_INFINITY))?.unwrap();
                            let hi = v.num("rightMargin", Some(f64::INFINITY))?.unwrap();
                            intervals.push((lo, hi, lc, hc));
                        }
                        _ => return Err(unknown(v, "DataField")),
                    }
                }
                if out
                    .insert(
                        name.clone(),
                        DataField {
                            el: c,
                            optype,
                            data_type,
                            values,
                            intervals,
                        },
                    )
                    .is_some()
                {
                    return Err(fail(c, &format!("the field '{name}' is defined twice")));
                }
            }
            _ => return Err(unknown(c, "DataDictionary")),
        }
    }
    Ok(out)
}

/// An element cfx does not read, refused by name and line.
pub fn unknown(e: &Element, parent: &str) -> Error {
    fail(
        e,
        &format!(
            "the element <{}> inside <{parent}> is not evaluated by cfx, so the model is \
             refused rather than scored differently",
            e.name
        ),
    )
}

impl DataField<'_> {
    /// Whether a number is a valid value (Intervals and Values with property valid/invalid/missing).
    fn validity_of_number(&self, x: f64) -> Validity {
        for (v, p) in &self.values {
            if parse_number(v) == Some(x) {
                return match p.as_str() {
                    "missing" => Validity::Missing,
                    "invalid" => Validity::Invalid,
                    _ => Validity::Valid,
                };
            }
        }
        let listed_valid = self.values.iter().any(|(_, p)| p == "valid");
        if self.intervals.is_empty() {
            if listed_valid && self.optype != "continuous" {
                return Validity::Invalid;
            }
            return Validity::Valid;
        }
        let inside = self
            .intervals
            .iter()
            .any(|&(lo, hi, lc, hc)| (x > lo || (lc && x == lo)) && (x < hi || (hc && x == hi)));
        if inside {
            Validity::Valid
        } else {
            Validity::Invalid
        }
    }

    fn range_valid(&self, lower: f64, upper: f64) -> bool {
        self.intervals.is_empty()
            || self.intervals.iter().any(|&(lo, hi, lc, hc)| {
                (lower > lo || (lc && lower == lo)) && (upper < hi || (hc && upper == hi))
            })
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Validity {
    Valid,
    Invalid,
    Missing,
}

/// Reads the model's MiningSchema against the DataDictionary and the schema.
pub fn read(
    root: &Element,
    model: &Element,
    schema: &Schema,
    opts: &PmmlOptions,
    report: &mut Vec<String>,
) -> Result<Fields> {
    let dict = data_dictionary(root)?;
    let ms = model
        .one("MiningSchema")?
        .ok_or_else(|| fail(model, "no <MiningSchema>"))?;
    let mut by_name = BTreeMap::new();
    let mut target = None;
    for mf in &ms.children {
        match mf.name.as_str() {
            "Extension" => continue,
            "MiningField" => {}
            _ => return Err(unknown(mf, "MiningSchema")),
        }
        let name = mf.req("name")?;
        let df = dict.get(name).ok_or_else(|| {
            fail(
                mf,
                &format!(
                    "the field '{name}' is not in the <DataDictionary> (derived fields are \
                     not evaluated by cfx)"
                ),
            )
        })?;
        let usage = mf.attr("usageType").unwrap_or("active");
        match usage {
            "target" | "predicted" => {
                let categories = df
                    .values
                    .iter()
                    .filter(|(_, p)| p == "valid")
                    .map(|(v, _)| v.clone())
                    .collect();
                target = Some(TargetField {
                    name: name.to_string(),
                    categories,
                });
                continue;
            }
            "supplementary" | "frequencyWeight" | "analysisWeight" => continue,
            "active" => {}
            other => {
                return Err(fail(
                    mf,
                    &format!("the usageType '{other}' is not read by cfx"),
                ));
            }
        }
        for (key, allowed) in [("outliers", "asIs")] {
            if let Some(v) = mf.attr(key) {
                if v != allowed {
                    return Err(fail(
                        mf,
                        &format!("{key}=\"{v}\" is not evaluated by cfx (only \"{allowed}\")"),
                    ));
                }
            }
        }
        let invalid = mf.attr("invalidValueTreatment").unwrap_or("returnInvalid");
        if !matches!(invalid, "returnInvalid" | "asIs" | "asMissing") {
            return Err(fail(
                mf,
                &format!("invalidValueTreatment=\"{invalid}\" is not evaluated by cfx"),
            ));
        }
        if mf.attr("invalidValueReplacement").is_some() {
            return Err(fail(mf, "invalidValueReplacement is not evaluated by cfx"));
        }
        if !matches!(
            df.data_type,
            "double" | "float" | "integer" | "string" | "boolean"
        ) {
            return Err(fail(
                df.el,
                &format!(
                    "the field '{name}' has dataType=\"{}\", not read by cfx",
                    df.data_type
                ),
            ));
        }
        let i = schema.index_of(name).map_err(|_| {
            fail(
                mf,
                &format!(
                    "the model reads the field '{name}', which is not a feature of the cfx \
                     schema (name the schema's features as the model's fields)"
                ),
            )
        })?;
        let f = &schema.features[i];
        let numeric = is_numeric_type(df.data_type);
        let replacement = mf
            .attr("missingValueReplacement")
            .map(|v| -> Result<Seen> {
                if numeric {
                    parse_number(v).map(Seen::Number).ok_or_else(|| {
                        fail(
                            mf,
                            &format!("missingValueReplacement \"{v}\" is not a number"),
                        )
                    })
                } else {
                    Ok(Seen::Text(v.to_string()))
                }
            })
            .transpose()?;
        let treat = |seen: Seen, what: &str, validity: Validity| -> Result<Seen> {
            let seen = match validity {
                Validity::Valid => seen,
                Validity::Missing => Seen::Missing,
                Validity::Invalid => match invalid {
                    "asIs" => seen,
                    "asMissing" => Seen::Missing,
                    _ => {
                        return Err(fail(
                            mf,
                            &format!(
                                "{what} of feature '{name}' is an invalid value of the PMML \
                                 field (its <DataField> at line {}), for which the model \
                                 returns no result; narrow the schema or declare \
                                 invalidValueTreatment",
                                df.el.line
                            ),
                        ));
                    }
                },
            };
            Ok(match (seen, &replacement) {
                (Seen::Missing, Some(r)) => r.clone(),
                (s, _) => s,
            })
        };
        let as_missing = opts.special_as_missing.iter().any(|n| n == name);
        let states = match &f.kind {
            FeatureKind::Contiguous {
                lower,
                upper,
                integer,
                special_states,
                ..
            } => {
                if df.optype != "continuous" || !numeric {
                    return Err(fail(
                        df.el,
                        &format!(
                            "the field '{name}' is {} {}, but the schema feature is contiguous",
                            df.optype, df.data_type
                        ),
                    ));
                }
                if df.data_type == "integer" && !integer {
                    return Err(fail(
                        df.el,
                        &format!(
                            "the field '{name}' is an integer, but the schema feature is not \
                             (declare it integer in the schema)"
                        ),
                    ));
                }
                if !df.range_valid(*lower, *upper) {
                    if invalid != "asIs" {
                        return Err(fail(
                            df.el,
                            &format!(
                                "the schema range [{lower}, {upper}] of feature '{name}' is \
                                 not inside the field's valid <Interval>s: those values get \
                                 no result from the model; narrow the schema"
                            ),
                        ));
                    }
                    report.push(format!(
                        "field '{name}': values outside its <Interval>s are read as they are \
                         (invalidValueTreatment=\"asIs\")"
                    ));
                }
                for (v, p) in &df.values {
                    if p == "missing" {
                        if let Some(x) = parse_number(v) {
                            if x >= *lower && x <= *upper {
                                return Err(fail(
                                    df.el,
                                    &format!(
                                        "the value {v} of field '{name}' is declared missing \
                                         but lies in the schema's range [{lower}, {upper}]"
                                    ),
                                ));
                            }
                        }
                    }
                }
                let mut states = vec![Seen::Number(f64::NAN)];
                for s in special_states {
                    let seen = if as_missing {
                        Seen::Missing
                    } else {
                        Seen::Number(s.code)
                    };
                    let validity = if as_missing {
                        Validity::Missing
                    } else {
                        df.validity_of_number(s.code)
                    };
                    let what = format!("special state {} ('{}')", s.code, s.label);
                    let seen = treat(seen, &what, validity)?;
                    if seen == Seen::Missing {
                        report.push(format!(
                            "feature '{name}': special state {} ('{}') reaches the model as a \
                             missing value",
                            s.code, s.label
                        ));
                    }
                    states.push(seen);
                }
                states
            }
            FeatureKind::Categorical { levels } => {
                if !matches!(df.optype, "categorical" | "ordinal") {
                    return Err(fail(
                        df.el,
                        &format!(
                            "the field '{name}' is {}, but the schema feature is categorical",
                            df.optype
                        ),
                    ));
                }
                if as_missing {
                    return Err(Error::Format(format!(
                        "special_as_missing names '{name}', a categorical feature"
                    )));
                }
                let mut states = Vec::new();
                for l in levels {
                    let seen = if numeric {
                        Seen::Number(parse_number(l).ok_or_else(|| {
                            fail(
                                df.el,
                                &format!(
                                    "the field '{name}' holds numbers, but the schema level \
                                     '{l}' is not one"
                                ),
                            )
                        })?)
                    } else {
                        Seen::Text(l.clone())
                    };
                    let validity = match df.values.iter().find(|(v, _)| {
                        if numeric {
                            parse_number(v) == parse_number(l)
                        } else {
                            v == l
                        }
                    }) {
                        Some((_, p)) if p == "missing" => Validity::Missing,
                        Some((_, p)) if p == "invalid" => Validity::Invalid,
                        Some(_) => Validity::Valid,
                        None if df.values.iter().any(|(_, p)| p == "valid") => Validity::Invalid,
                        None => Validity::Valid,
                    };
                    states.push(treat(seen, &format!("level '{l}'"), validity)?);
                }
                let unused: Vec<&str> = df
                    .values
                    .iter()
                    .filter(|(v, p)| p == "valid" && !levels.iter().any(|l| l == v))
                    .map(|(v, _)| v.as_str())
                    .collect();
                if !unused.is_empty() {
                    report.push(format!(
                        "field '{name}': the model's categories {unused:?} are no level of \
                         the schema (never scored by cfx)"
                    ));
                }
                states
            }
        };
        if by_name
            .insert(
                name.to_string(),
                FieldView {
                    feature: i,
                    numeric,
                    float: df.data_type == "float",
                    line: df.el.line,
                    states,
                },
            )
            .is_some()
        {
            return Err(fail(mf, &format!("the field '{name}' is mined twice")));
        }
    }
    for (k, f) in schema.features.iter().enumerate() {
        if !by_name.values().any(|v| v.feature == k) {
            report.push(format!(
                "schema feature '{}' is not read by the model (it does not change the score)",
                f.name
            ));
        }
    }
    Ok(Fields { by_name, target })
}

/// Refuses single-precision fields where cfx evaluates in double precision.
pub fn refuse_float(fields: &Fields) -> Result<()> {
    match fields.by_name.iter().find(|(_, v)| v.float) {
        None => Ok(()),
        Some((name, v)) => Err(Error::Format(format!(
            "PMML <DataField> (line {}): the field '{name}' has dataType=\"float\": \
             single-precision inputs are evaluated by cfx in tree models only",
            v.line
        ))),
    }
}

/// Refuses `mathContext="float"` where cfx evaluates in double precision.
pub fn require_double(model: &Element) -> Result<()> {
    match model
        .attr("mathContext")
        .or_else(|| model.attr("x-mathContext"))
    {
        None | Some("double") => Ok(()),
        Some(other) => Err(fail(
            model,
            &format!(
                "mathContext=\"{other}\": this model kind is evaluated by cfx in double \
                 precision only"
            ),
        )),
    }
}
