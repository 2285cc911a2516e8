//! PMML `RegressionModel` (binary classification, `normalizationMethod="logit"`)
//! → a cfx [`LinearModel`] over the schema's encoding.
//!
//! The standard's binary logit model has two RegressionTables: the first
//! gives `y = intercept + Σ coefficient·x + Σ coefficient·[x = value]` and
//! `P(first category) = 1/(1 + e^(−y))`; the second (intercept 0, no
//! predictors) takes the rest. cfx's score is the log-odds of the favourable
//! class: `y`, or `−y` when the favourable class is the second category.
//!
//! The encoded space holds a contiguous feature as its slot `(v − L)/(U − L)`
//! plus one indicator per special state, and a categorical feature one-hot.
//! A numeric term `c·v` becomes the slot weight `c·(U − L)` and the bias term
//! `c·L`; a special state's indicator carries `c·code − c·L` (the slot holds
//! the schema's fixed value `F`, so `− c·(U − L)·F` too); a categorical term
//! lands on its level's indicator. The sum is the same real number as the
//! file's, rounded differently: scores agree to about 1e-15 relative, not
//! bit for bit (stated where the parity tests check them).

use super::PmmlOptions;
use super::fields::{Fields, Seen};
use super::xml::{Element, fail, parse_number};
use crate::error::{Error, Result};
use crate::model::LinearModel;
use crate::schema::{FeatureKind, Schema};

pub fn read(
    model: &Element,
    fields: &Fields,
    schema: &Schema,
    opts: &PmmlOptions,
    report: &mut Vec<String>,
) -> Result<LinearModel> {
    super::fields::require_double(model)?;
    super::fields::refuse_float(fields)?;
    if model.attr("functionName") != Some("classification") {
        return Err(fail(
            model,
            "only classification RegressionModels (a probability of a class) are read by cfx",
        ));
    }
    match model.attr("normalizationMethod").unwrap_or("none") {
        "logit" => {}
        other => {
            return Err(fail(
                model,
                &format!(
                    "normalizationMethod=\"{other}\" is not read by cfx (binary \"logit\" only)"
                ),
            ));
        }
    }
    let mut tables = Vec::new();
    for c in &model.children {
        match c.name.as_str() {
            "Extension" | "MiningSchema" | "Output" | "ModelStats" | "ModelExplanation"
            | "ModelVerification" => {}
            "Targets" => super::check_targets(c)?,
            "RegressionTable" => tables.push(c),
            _ => return Err(super::fields::unknown(c, "RegressionModel")),
        }
    }
    let [first, second] = tables.as_slice() else {
        return Err(fail(
            model,
            &format!(
                "{} RegressionTables: cfx reads the binary logit model (two tables)",
                tables.len()
            ),
        ));
    };
    if second.children.iter().any(|c| c.name != "Extension")
        || second.num("intercept", None)?.unwrap_or(f64::NAN) != 0.0
    {
        return Err(fail(
            second,
            "the second RegressionTable of a binary logit model must have intercept 0 and no \
             predictors",
        ));
    }
    let cat_a = first.req("targetCategory")?.to_string();
    let cat_b = second.req("targetCategory")?.to_string();
    if let Some(t) = &fields.target {
        for c in [&cat_a, &cat_b] {
            if !t.categories.is_empty() && !t.categories.contains(c) {
                return Err(fail(
                    model,
                    &format!(
                        "the table's category '{c}' is not a category of the target '{}'",
                        t.name
                    ),
                ));
            }
        }
    }
    let Some(fav) = &opts.favourable_class else {
        return Err(Error::Format(format!(
            "PMML RegressionModel: the file predicts the classes '{cat_a}' and '{cat_b}' but \
             does not say which is favourable: give the option \"favourable_class\" (the \
             class of applicants the bank accepts)"
        )));
    };
    let sign = if *fav == cat_a {
        1.0
    } else if *fav == cat_b {
        -1.0
    } else {
        return Err(Error::Format(format!(
            "PMML RegressionModel: favourable_class '{fav}' is neither '{cat_a}' nor '{cat_b}'"
        )));
    };
    let mut weights = vec![0.0; schema.encoded_dim()];
    let mut bias = sign
        * first
            .num("intercept", None)?
            .ok_or_else(|| fail(first, "no intercept"))?;
    let mut used_numeric = vec![false; schema.n_features()];
    for p in &first.children {
        let name = match p.name.as_str() {
            "Extension" => continue,
            "NumericPredictor" | "CategoricalPredictor" => p.req("name")?,
            "PredictorTerm" => {
                return Err(fail(
                    p,
                    "interaction terms (PredictorTerm) are not read by cfx",
                ));
            }
            _ => return Err(super::fields::unknown(p, "RegressionTable")),
        };
        let view = fields.by_name.get(name).ok_or_else(|| {
            fail(
                p,
                &format!("the field '{name}' is not an active field of the model"),
            )
        })?;
        let i = view.feature;
        let f = &schema.features[i];
        let layout = schema.layout(i);
        let coef = sign
            * p.num("coefficient", None)?
                .ok_or_else(|| fail(p, "no coefficient"))?;
        if !coef.is_finite() {
            return Err(fail(p, "the coefficient is not finite"));
        }
        if p.name == "NumericPredictor" {
            if p.num("exponent", Some(1.0))? != Some(1.0) {
                return Err(fail(
                    p,
                    "a NumericPredictor with an exponent other than 1 is not linear",
                ));
            }
            let FeatureKind::Contiguous {
                lower,
                upper,
                special_states,
                fixed_value,
                ..
            } = &f.kind
            else {
                return Err(fail(p, &format!("'{name}' is categorical in the schema")));
            };
            if std::mem::replace(&mut used_numeric[i], true) {
                return Err(fail(p, &format!("a second NumericPredictor on '{name}'")));
            }
            let slot_w = if upper > lower {
                coef * (upper - lower)
            } else {
                0.0
            };
            weights[layout.start] += slot_w;
            bias += coef * lower;
            for (j, s) in special_states.iter().enumerate() {
                let x = match &view.states[j + 1] {
                    Seen::Number(x) => *x,
                    _ => {
                        return Err(fail(
                            p,
                            &format!(
                                "special state {} of '{name}' reaches the model as a missing \
                                 value, for which a regression returns no result (declare a \
                                 missingValueReplacement)",
                                s.code
                            ),
                        ));
                    }
                };
                weights[layout.start + 1 + j] += coef * x - coef * lower - slot_w * fixed_value;
            }
        } else {
            let value = p.req("value")?;
            let hits = |seen: &Seen| match seen {
                Seen::Number(x) => parse_number(value) == Some(*x),
                Seen::Text(t) => t == value,
                Seen::Missing => false,
            };
            match &f.kind {
                FeatureKind::Categorical { levels } => {
                    let mut any = false;
                    for (k, seen) in view.states.iter().enumerate() {
                        if hits(seen) {
                            weights[layout.start + k] += coef;
                            any = true;
                        }
                    }
                    if !any {
                        report.push(format!(
                            "CategoricalPredictor '{name}' = '{value}' (line {}) matches no \
                             level of the schema {levels:?}: never applied",
                            p.line
                        ));
                    }
                }
                FeatureKind::Contiguous {
                    lower,
                    upper,
                    special_states,
                    ..
                } => {
                    if let Some(x) = parse_number(value).filter(|x| x >= lower && x <= upper) {
                        return Err(fail(
                            p,
                            &format!(
                                "a CategoricalPredictor on the value {x} inside the range of \
                                 the contiguous feature '{name}' is not linear in it"
                            ),
                        ));
                    }
                    for (j, _) in special_states.iter().enumerate() {
                        if hits(&view.states[j + 1]) {
                            weights[layout.start + 1 + j] += coef;
                        }
                    }
                }
            }
        }
        // A categorical feature read missing would score as no level: refuse.
        if view.states.contains(&Seen::Missing) {
            return Err(fail(
                p,
                &format!(
                    "'{name}' reaches the model as a missing value in some state; cfx does not \
                     score a regression on missing inputs (declare a missingValueReplacement)"
                ),
            ));
        }
    }
    let threshold = opts.threshold.unwrap_or(0.5);
    let mut m = LinearModel::new(weights, bias, threshold)?;
    report.push(format!(
        "the probability is that of class '{fav}' (favourable, declared); accepted iff it \
         is > {threshold}"
    ));
    report.push(
        "scores are the file's up to rounding (the encoding reorders the sum; about 1e-15 \
         relative)"
            .into(),
    );
    m.import_report = std::mem::take(report);
    Ok(m)
}
