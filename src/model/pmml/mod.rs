//! PMML 4.x models as cfx models: exact or refused.
//!
//! PMML is how legacy credit platforms (SAS, FICO, IBM SPSS, KNIME, Drools)
//! and the JPMML converters exchange models. cfx reads a document with one
//! model and maps it onto the caller's [`Schema`]:
//!
//! * `Scorecard` → a points [`crate::model::Scorecard`] (explained by the
//!   coherent MIP / separable solver), its attributes resolved into disjoint
//!   bins exactly (`scorecard`); the reason codes and baselines are kept in
//!   [`crate::model::scorecard::ReasonCodes`];
//! * `RegressionModel` (binary, `normalizationMethod="logit"`) → a
//!   [`crate::model::LinearModel`] (`regression`);
//! * a boosted `MiningModel` (a `modelChain` of summed regression
//!   `TreeModel`s and a logit `RegressionModel`, as the JPMML converters
//!   write XGBoost, LightGBM and scikit-learn's gradient boosting) → a
//!   [`crate::model::TreeEnsemble`] explained by the exact tree search
//!   (`trees`), in double or, under `x-mathContext="float"`, single
//!   precision exactly.
//!
//! Everything else — other model kinds, averaged or voted ensembles,
//! `LocalTransformations` (but the trees' float casts), a non-empty
//! `TransformationDictionary`, derived fields, `Targets` that rescale (but a
//! summed tree model's), `mathContext="float"` outside trees,
//! single-precision fields, any element cfx does not evaluate — is refused with the element and
//! its line, never approximated. The `DataDictionary` and `MiningSchema` are
//! checked against the schema (`fields`): names, kinds, categories, valid
//! intervals, `invalidValueTreatment`, `missingValueReplacement`.
//!
//! A PMML file does not say which outcome the bank wants: the caller declares
//! it ([`PmmlOptions`]): `favourable_class` for a classifier, `accept` and
//! `cutoff` for a scorecard. What the import read and assumed is the model's
//! `import_report`.
//!
//! The XML is read by quick-xml with no DTD and no entity expansion
//! (`xml`).

mod fields;
mod predicate;
mod regression;
mod scorecard;
mod trees;
mod xml;

#[cfg(test)]
mod tests;
#[cfg(test)]
mod trees_tests;

use crate::error::{Error, Result};
use crate::model::AnyModel;
use crate::schema::Schema;
use serde::{Deserialize, Serialize};
use xml::{Element, fail};

pub use xml::{MAX_BYTES, NAMESPACES};

/// Which side of a scorecard's cutoff is accepted.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Accept {
    /// A high score is favourable: accepted iff score ≥ cutoff.
    AtOrAbove,
    /// The score measures risk: accepted iff score ≤ cutoff (cfx's points
    /// are then the score negated, exactly).
    AtOrBelow,
}

/// A scorecard's scaling in the file's score units:
/// `log-odds(favourable) = (score − offset)/factor` (factor negative for a
/// risk score).
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PmmlScaling {
    pub factor: f64,
    pub offset: f64,
}

/// What the caller declares about a PMML model (the file does not say it).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PmmlOptions {
    /// Classifiers: the target category the bank accepts (required).
    #[serde(default)]
    pub favourable_class: Option<String>,
    /// Classifiers: accepted iff P(favourable) > threshold (default 0.5).
    #[serde(default)]
    pub threshold: Option<f64>,
    /// Scorecards: which side of the cutoff is accepted (required).
    #[serde(default)]
    pub accept: Option<Accept>,
    /// Scorecards: the cutoff in the file's score units (required).
    #[serde(default)]
    pub cutoff: Option<f64>,
    /// Scorecards: the scaling to a probability, if known.
    #[serde(default)]
    pub scaling: Option<PmmlScaling>,
    /// Contiguous features whose special states reach the model as missing
    /// values rather than as their codes.
    #[serde(default)]
    pub special_as_missing: Vec<String>,
}

/// Reads a PMML document's model onto `schema` (see the module docs). The
/// model's `import_report` says what was read and assumed.
pub fn from_pmml_str(text: &str, schema: &Schema, opts: &PmmlOptions) -> Result<AnyModel> {
    let root = xml::parse(text)?;
    let mut model_el = None;
    let mut report = Vec::new();
    for c in &root.children {
        match c.name.as_str() {
            "Header" | "Extension" | "MiningBuildTask" | "DataDictionary" => {}
            "TransformationDictionary" => {
                if let Some(d) = c.children.iter().find(|d| d.name != "Extension") {
                    return Err(fail(
                        d,
                        "the TransformationDictionary's derived fields and functions are not \
                         evaluated by cfx",
                    ));
                }
            }
            "Scorecard"
            | "RegressionModel"
            | "TreeModel"
            | "MiningModel"
            | "GeneralRegressionModel"
            | "NeuralNetwork"
            | "NaiveBayesModel"
            | "SupportVectorMachineModel"
            | "RuleSetModel"
            | "NearestNeighborModel"
            | "ClusteringModel"
            | "AssociationModel"
            | "BaselineModel"
            | "BayesianNetworkModel"
            | "GaussianProcessModel"
            | "AnomalyDetectionModel"
            | "SequenceModel"
            | "TextModel"
            | "TimeSeriesModel" => {
                if let Some(first) = model_el.replace(c) {
                    return Err(fail(
                        c,
                        &format!(
                            "a second model (the first is {}): cfx reads one model per document",
                            first.at()
                        ),
                    ));
                }
            }
            _ => return Err(fields::unknown(c, "PMML")),
        }
    }
    let model = model_el.ok_or_else(|| fail(&root, "the document holds no model"))?;
    if matches!(model.attr("isScorable"), Some("false" | "0")) {
        return Err(fail(model, "the model is marked isScorable=\"false\""));
    }
    report.push(format!(
        "PMML {} {}{}",
        root.attr("version").unwrap_or("(no version)"),
        model.name,
        model
            .attr("modelName")
            .map(|n| format!(" '{n}'"))
            .unwrap_or_default()
    ));
    match model.name.as_str() {
        "Scorecard" => {
            let f = fields::read(&root, model, schema, opts, &mut report)?;
            let mut sc = scorecard::read(model, &f, schema, opts, &mut report)?;
            sc.import_report = report;
            Ok(AnyModel::Scorecard(sc))
        }
        "RegressionModel" => {
            let f = fields::read(&root, model, schema, opts, &mut report)?;
            Ok(AnyModel::Linear(regression::read(
                model,
                &f,
                schema,
                opts,
                &mut report,
            )?))
        }
        "MiningModel" | "TreeModel" => Ok(AnyModel::Trees(trees::read(
            &root,
            model,
            schema,
            opts,
            &mut report,
        )?)),
        other => Err(fail(
            model,
            &format!(
                "the model kind {other} is not read by cfx (it reads Scorecard, the binary \
                 logit RegressionModel and boosted tree ensembles)"
            ),
        )),
    }
}

/// Reads a PMML file (see [`from_pmml_str`]); a file above [`MAX_BYTES`] is
/// refused before it is read.
pub fn from_pmml_file(
    path: &std::path::Path,
    schema: &Schema,
    opts: &PmmlOptions,
) -> Result<AnyModel> {
    let shown = path.display();
    let len = std::fs::metadata(path)
        .map_err(|e| Error::Io(format!("{shown}: {e}")))?
        .len();
    if len > MAX_BYTES as u64 {
        return Err(Error::Format(format!(
            "PMML: {shown} has {len} bytes, above cfx's limit of {MAX_BYTES}"
        )));
    }
    let text = std::fs::read_to_string(path).map_err(|e| Error::Io(format!("{shown}: {e}")))?;
    from_pmml_str(&text, schema, opts)
}

/// Accepts `Targets` that do not change the score (no rescaling, clamping or
/// rounding); refuses the others.
fn check_targets(t: &Element) -> Result<()> {
    for c in &t.children {
        match c.name.as_str() {
            "Extension" => {}
            "Target" => {
                for key in [
                    "rescaleFactor",
                    "rescaleConstant",
                    "min",
                    "max",
                    "castInteger",
                ] {
                    if let Some(v) = c.attr(key) {
                        let neutral = match key {
                            "rescaleFactor" => xml::parse_number(v) == Some(1.0),
                            "rescaleConstant" => xml::parse_number(v) == Some(0.0),
                            _ => false,
                        };
                        if !neutral {
                            return Err(fail(
                                c,
                                &format!(
                                    "{key}=\"{v}\" changes the model's output and is not \
                                          evaluated by cfx"
                                ),
                            ));
                        }
                    }
                }
                for v in &c.children {
                    match v.name.as_str() {
                        "Extension" => {}
                        "TargetValue" if v.attr("defaultValue").is_none() => {}
                        _ => return Err(fields::unknown(v, "Target")),
                    }
                }
            }
            _ => return Err(fields::unknown(c, "Targets")),
        }
    }
    Ok(())
}
