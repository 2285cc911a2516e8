//! PMML `TreeModel` / `MiningModel` → a cfx [`TreeEnsemble`], exactly or refused.
//!
//! What is read is what the JPMML converters (sklearn2pmml with
//! jpmml-xgboost, jpmml-lightgbm and jpmml-sklearn) write for a boosted
//! binary classifier:
//!
//! ```text
//! MiningModel classification, Segmentation modelChain
//!   Segment 1: MiningModel regression, Segmentation sum (or weightedSum)
//!              [Targets rescaleFactor/rescaleConstant] [LocalTransformations float(x)]
//!              Output: one OutputField, isFinalResult="false"
//!              Segment k: TreeModel regression
//!   Segment 2: RegressionModel classification, normalizationMethod="logit",
//!              table 1: intercept b + c · <the output field>, table 2: 0
//! ```
//!
//! The margin of the first table's category is `b + c·(constant + factor·Σ_k
//! tree_k)`. cfx folds `c·factor` (and a segment's weight) into the leaves
//! and `b + c·constant` into the base score, so in double precision the sum
//! is the file's up to the order of its roundings (about 1e-15 relative).
//! Under jpmml's `x-mathContext="float"` (jpmml-xgboost) scores, constants
//! and comparisons are single precision: cfx then requires `b = 0`, `c = 1`,
//! factor and weights 1, parses every score and threshold as a float32, and
//! sums as jpmml does — tree by tree from zero in float32, then the constant
//! ([`Source::PmmlF32`]); the margins then agree to the bit.
//!
//! # Trees
//! A PMML node sends a row to its **first** child whose predicate is TRUE.
//! A predicate is UNKNOWN on a missing value; `missingValueStrategy` says
//! what happens then: `none` (the default: UNKNOWN counts as FALSE),
//! `defaultChild` (the node's `defaultChild`); `nullPrediction`,
//! `lastPrediction`, `weightedConfidence` and `aggregateNodes` are read only
//! where no missing value can reach the predicate (otherwise refused, named
//! with the node's line). When no child matches, `noTrueChildStrategy`
//! `returnLastPrediction` gives the node's own score; the default
//! `returnNullPrediction` is refused wherever a row can get there.
//!
//! A node with children becomes a chain of cfx binary tests, one per child
//! in order (left: that child; right: the next test). A contiguous feature's
//! comparison keeps its operator and its precision ([`Test::OnnxF32`] /
//! [`Test::OnnxF64`]: the generic `x CMP t` tests, a missing value going its
//! default way); a predicate on a categorical feature becomes the set of
//! levels it sends left ([`Test::Levels`]). When every predicate of a node
//! reads one feature, the chain is checked against the standard's own
//! first-true-child rule on every value where any of its predicates can
//! change (each threshold, the numbers next to it in the comparison's
//! precision, each special state, a missing value) or every level, and the
//! last test is dropped where no row can fail it; a chain that disagrees
//! anywhere is refused.
//!
//! # Random forests
//! A classification MiningModel whose Segmentation `average`s
//! classification TreeModels (sklearn2pmml's random forests and extra trees)
//! is read by `forest`: each leaf's value is its `ScoreDistribution`'s
//! probability of the favourable class, summed in double in tree order and
//! divided by the number of trees where jpmml-evaluator divides
//! ([`Output::MeanOf`](crate::model::trees::Output::MeanOf)).
//!
//! Refused with the element and its line: voted ensembles (`majorityVote`,
//! … — no sum of leaves), `ScoreDistribution`s in summed regression trees,
//! `LocalTransformations` other than jpmml's float casts (`float(x)`: a
//! `DerivedField` of dataType float holding one `FieldRef`), segments whose
//! predicate is not `True`, predicates joining several fields, any element
//! not listed above.

use super::PmmlOptions;
use super::fields::{self, FieldView, Fields, Seen};
use super::predicate;
use super::xml::{Element, fail, parse_number};
use crate::error::{Error, Result};
use crate::model::TreeEnsemble;
use crate::model::trees::{FeatureInput, Node, OnnxMode, Source, SpecialInput, Test};
use crate::schema::{FeatureKind, Schema};
use std::collections::BTreeMap;

/// A field in scope: a schema feature, read in double or (a `float(x)`
/// derived field) in single precision.
#[derive(Debug, Clone)]
struct Var {
    view: FieldView,
    float: bool,
    /// A `NormDiscrete` indicator of a categorical field: 1 at this value,
    /// 0 at the others, missing when the field is.
    indicator: Option<String>,
}

type Scope = BTreeMap<String, Var>;

/// How a model's numbers are computed (jpmml's `x-mathContext`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Ctx {
    Double,
    Float,
}

fn math_context(e: &Element) -> Result<Ctx> {
    match e.attr("x-mathContext").or_else(|| e.attr("mathContext")) {
        None | Some("double") => Ok(Ctx::Double),
        Some("float") => Ok(Ctx::Float),
        Some(other) => Err(fail(e, &format!("unknown mathContext \"{other}\""))),
    }
}

/// A number of the model in its context (float32 parsed directly, never
/// through a double, as jpmml parses it).
fn number(e: &Element, key: &str, ctx: Ctx) -> Result<Option<f64>> {
    let Some(v) = e.attr(key) else {
        return Ok(None);
    };
    let x = match ctx {
        Ctx::Double => parse_number(v),
        Ctx::Float => parse_f32(v),
    };
    match x {
        Some(x) if x.is_finite() => Ok(Some(x)),
        _ => Err(fail(
            e,
            &format!("'{key}' = \"{v}\" is not a finite number"),
        )),
    }
}

fn parse_f32(v: &str) -> Option<f64> {
    let t = v.trim();
    if t.is_empty()
        || t.chars()
            .any(|c| c.is_ascii_alphabetic() && c != 'e' && c != 'E')
    {
        return None;
    }
    t.parse::<f32>().ok().map(f64::from)
}

/// The predicate of a child node, as cfx tests it.
#[derive(Debug, Clone)]
enum Pred {
    True,
    False,
    /// `x CMP t` on contiguous feature `feature` (UNKNOWN when missing).
    Cmp {
        feature: usize,
        float: bool,
        mode: OnnxMode,
        t: f64,
    },
    /// `isMissing` (`is`) / `isNotMissing` on a contiguous feature.
    Missing {
        feature: usize,
        is: bool,
    },
    /// A predicate on categorical feature `feature`: its truth per level.
    Levels {
        feature: usize,
        truth: Vec<Option<bool>>,
    },
}

impl Pred {
    fn feature(&self) -> Option<usize> {
        match self {
            Pred::True | Pred::False => None,
            Pred::Cmp { feature, .. }
            | Pred::Missing { feature, .. }
            | Pred::Levels { feature, .. } => Some(*feature),
        }
    }

    /// The truth on a probe (a raw value of a contiguous feature — `NaN` for
    /// missing — or a level index).
    fn eval(&self, probe: f64) -> Option<bool> {
        match self {
            Pred::True => Some(true),
            Pred::False => Some(false),
            Pred::Cmp { float, mode, t, .. } => {
                if probe.is_nan() {
                    None
                } else {
                    let x = if *float {
                        f64::from(probe as f32)
                    } else {
                        probe
                    };
                    Some(mode.holds(x, *t))
                }
            }
            Pred::Missing { is, .. } => Some(probe.is_nan() == *is),
            Pred::Levels { truth, .. } => truth[probe as usize],
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Strategy {
    None,
    DefaultChild,
    /// Any other strategy: allowed only where no value is missing.
    Other,
}

/// Where a row goes from a node.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Dest {
    Child(usize),
    /// The node's own score (`returnLastPrediction`).
    Last,
    /// No prediction.
    Null,
}

struct Builder<'a> {
    schema: &'a Schema,
    inputs: Vec<FeatureInput>,
    nodes: Vec<Node>,
    level_left: Vec<bool>,
    /// Multiplies every leaf (the sign of the favourable class, the Targets'
    /// factor, the regression's coefficient, a segment's weight).
    scale: f64,
    ctx: Ctx,
    /// Per schema feature: a categorical level reaches the trees as missing.
    level_missing: Vec<bool>,
    /// Reading a random forest's classification trees: each node's value is
    /// its `ScoreDistribution`'s probability of this (favourable) class.
    forest: Option<Forest>,
}

/// The classes of an averaged forest's classification trees.
struct Forest {
    favourable: String,
    classes: [String; 2],
}

/// Reads a tree model (see the module docs).
pub fn read(
    root: &Element,
    model: &Element,
    schema: &Schema,
    opts: &PmmlOptions,
    report: &mut Vec<String>,
) -> Result<TreeEnsemble> {
    if model.name == "TreeModel" {
        return Err(fail(
            model,
            "a single TreeModel is a class-probability tree (its leaves' ScoreDistribution) or a \
             regression; cfx reads tree ensembles as boosted log-odds (a MiningModel modelChain \
             of a summed regression MiningModel and a logit RegressionModel)",
        ));
    }
    let f = fields::read(root, model, schema, opts, report)?;
    if model.attr("functionName") != Some("classification") {
        return Err(fail(
            model,
            "only classification MiningModels (a probability of a class) are read by cfx",
        ));
    }
    if let Some(t) = model.one("Targets")? {
        super::check_targets(t)?;
    }
    let seg = model_children(model, &["Segmentation"])?;
    let segmentation = seg
        .iter()
        .find(|c| c.name == "Segmentation")
        .copied()
        .ok_or_else(|| fail(model, "no <Segmentation>"))?;
    let method = segmentation.req("multipleModelMethod")?;
    if method == "average" {
        return forest(model, segmentation, &f, schema, opts, report);
    }
    if method != "modelChain" {
        return Err(fail(
            segmentation,
            &format!(
                "multipleModelMethod=\"{method}\" on a classification model is not read by cfx: \
                 its ensembles add log-odds and apply the logistic link (a boosted modelChain); \
                 averaged or voted class probabilities (random forests) have no such margin"
            ),
        ));
    }
    let segments = segments(segmentation)?;
    let [(first, _), (second, _)] = segments.as_slice() else {
        return Err(fail(
            segmentation,
            &format!(
                "{} segments: cfx reads the modelChain of a summed tree model and a logit \
                 RegressionModel (two segments)",
                segments.len()
            ),
        ));
    };
    if second.name != "RegressionModel" {
        return Err(fail(
            second,
            "the chain's last segment must be the logit RegressionModel",
        ));
    }
    let ctx = math_context(model)?;
    let scope = base_scope(&f, schema);
    let scope = local_transformations(model, &scope)?;
    // The first segment's output field.
    let (sum_model, out_name) = output_of(first)?;
    let (b, c, fav, cat_a, cat_b) = logit_table(second, &out_name, &f, opts, ctx)?;
    let sign = if fav == cat_a { 1.0 } else { -1.0 };
    let inputs = feature_inputs(&f, schema)?;
    let mut builder = Builder {
        schema,
        inputs,
        nodes: Vec::new(),
        level_left: Vec::new(),
        scale: sign * c,
        ctx: math_context(sum_model)?,
        level_missing: (0..schema.n_features())
            .map(|i| {
                f.by_name
                    .values()
                    .any(|v| v.feature == i && v.states.contains(&Seen::Missing))
            })
            .collect(),
        forest: None,
    };
    if builder.ctx != ctx || math_context(second)? != ctx {
        return Err(fail(
            sum_model,
            "the chain's models are computed in different precisions (mathContext)",
        ));
    }
    let mut roots = Vec::new();
    let constant = builder.sum_model(sum_model, &scope, &mut roots)?;
    let base = sign * (b + c * constant);
    let source = match ctx {
        Ctx::Double => Source::PmmlF64,
        Ctx::Float => Source::PmmlF32,
    };
    if ctx == Ctx::Float && (b != 0.0 || c != 1.0) {
        return Err(fail(
            second,
            "a float-precision chain whose RegressionModel is not `1·x + 0` is not evaluated \
             exactly by cfx",
        ));
    }
    let threshold = opts.threshold.unwrap_or(0.5);
    report.push(format!(
        "{} trees summed in {} precision as jpmml-evaluator sums them, then the logistic link",
        roots.len(),
        match ctx {
            Ctx::Double => "double",
            Ctx::Float => "single (x-mathContext=\"float\": float32 comparisons, scores and sum)",
        }
    ));
    report.push(format!(
        "the probability is that of class '{fav}' (favourable, declared; the file's classes are \
         '{cat_a}' and '{cat_b}'); accepted iff it is > {threshold}"
    ));
    if ctx == Ctx::Double {
        report.push(
            "margins are the file's up to rounding (factors folded into the leaves; about 1e-15 \
             relative)"
                .into(),
        );
    }
    let Builder {
        inputs,
        nodes,
        level_left,
        ..
    } = builder;
    let m = TreeEnsemble::new(source, base, threshold, inputs, roots, nodes, level_left)
        .map_err(|e| Error::Format(format!("PMML {}: {e}", model.at())))?;
    Ok(m.with_import_report(std::mem::take(report)))
}

/// Reads a random forest: a classification MiningModel whose Segmentation
/// `average`s classification TreeModels (as sklearn2pmml writes scikit-learn's
/// `RandomForestClassifier` and `ExtraTreesClassifier`). jpmml-evaluator
/// takes each tree's class probabilities from the `ScoreDistribution` of the
/// leaf it reaches (record counts normalised by their sum), sums them over the
/// trees in order in double and divides by the number of trees; cfx keeps the
/// leaves' probabilities of the favourable class, sums them in double in the
/// same order ([`Source::PmmlF64`]) and divides where jpmml does
/// ([`Output::MeanOf`]), so the probability is jpmml's to the bit.
///
/// [`Output::MeanOf`]: crate::model::trees::Output::MeanOf
fn forest(
    model: &Element,
    segmentation: &Element,
    f: &Fields,
    schema: &Schema,
    opts: &PmmlOptions,
    report: &mut Vec<String>,
) -> Result<TreeEnsemble> {
    use crate::model::trees::Output;
    if math_context(model)? != Ctx::Double {
        return Err(fail(
            model,
            "an averaged forest in float precision (mathContext) is not evaluated exactly by cfx",
        ));
    }
    let classes: Vec<String> = f
        .target
        .as_ref()
        .map(|t| t.categories.clone())
        .unwrap_or_default();
    let [a, b] = classes.as_slice() else {
        return Err(fail(
            model,
            &format!(
                "an averaged forest over {} target categories: cfx reads a binary \
                 classifier (two categories in the DataDictionary)",
                classes.len()
            ),
        ));
    };
    let Some(fav) = &opts.favourable_class else {
        return Err(Error::Format(format!(
            "PMML MiningModel: the file predicts the classes '{a}' and '{b}' but does not say \
             which is favourable: give the option \"favourable_class\" (the class of \
             applicants the bank accepts)"
        )));
    };
    if fav != a && fav != b {
        return Err(Error::Format(format!(
            "PMML MiningModel: favourable_class '{fav}' is neither '{a}' nor '{b}'"
        )));
    }
    let scope = base_scope(f, schema);
    let scope = local_transformations(model, &scope)?;
    let mut builder = Builder {
        schema,
        inputs: feature_inputs(f, schema)?,
        nodes: Vec::new(),
        level_left: Vec::new(),
        scale: 1.0,
        ctx: Ctx::Double,
        level_missing: (0..schema.n_features())
            .map(|i| {
                f.by_name
                    .values()
                    .any(|v| v.feature == i && v.states.contains(&Seen::Missing))
            })
            .collect(),
        forest: Some(Forest {
            favourable: fav.clone(),
            classes: [a.clone(), b.clone()],
        }),
    };
    let mut roots = Vec::new();
    for (tree, w) in segments(segmentation)? {
        if tree.name != "TreeModel" {
            return Err(fail(
                tree,
                "an averaged forest's segments must be TreeModels (nested ensembles are not \
                 read by cfx)",
            ));
        }
        if w != 1.0 {
            return Err(fail(
                tree,
                "a segment weight in an averaged forest is not read by cfx (jpmml's \
                 \"average\" and \"weightedAverage\" differ on it)",
            ));
        }
        roots.push(builder.tree(tree, &scope)?);
    }
    if roots.is_empty() {
        return Err(fail(segmentation, "no trees"));
    }
    let n = roots.len();
    let threshold = opts.threshold.unwrap_or(0.5);
    report.push(format!(
        "random forest: {n} classification trees averaged as jpmml-evaluator averages them \
         (each leaf's ScoreDistribution record counts normalised, the favourable class's \
         probabilities summed in double in tree order, then divided by {n})"
    ));
    report.push(format!(
        "the probability is that of class '{fav}' (favourable, declared; the file's classes are \
         '{a}' and '{b}'); accepted iff it is > {threshold}"
    ));
    let Builder {
        inputs,
        nodes,
        level_left,
        ..
    } = builder;
    let trees = u32::try_from(n).map_err(|_| fail(segmentation, "too many trees"))?;
    let m = TreeEnsemble::new(
        Source::PmmlF64,
        0.0,
        threshold,
        inputs,
        roots,
        nodes,
        level_left,
    )
    .and_then(|m| m.with_output(Output::MeanOf { trees }))
    .map_err(|e| Error::Format(format!("PMML {}: {e}", model.at())))?;
    Ok(m.with_import_report(std::mem::take(report)))
}

/// The children of a model element, refusing what cfx does not read; returns
/// those named in `wanted`.
fn model_children<'a>(model: &'a Element, wanted: &[&str]) -> Result<Vec<&'a Element>> {
    let mut out = Vec::new();
    for c in &model.children {
        match c.name.as_str() {
            "Extension"
            | "MiningSchema"
            | "Output"
            | "ModelStats"
            | "ModelExplanation"
            | "ModelVerification"
            | "LocalTransformations"
            | "Targets" => {}
            n if wanted.contains(&n) => out.push(c),
            _ => return Err(fields::unknown(c, &model.name)),
        }
    }
    Ok(out)
}

/// A Segmentation's segments (predicate `True`, one model each, weight).
fn segments(s: &Element) -> Result<Vec<(&Element, f64)>> {
    let mut out = Vec::new();
    for seg in &s.children {
        match seg.name.as_str() {
            "Extension" => continue,
            "Segment" => {}
            _ => return Err(fields::unknown(seg, "Segmentation")),
        }
        let mut model = None;
        let mut pred = None;
        for c in &seg.children {
            match c.name.as_str() {
                "Extension" => {}
                "True" if pred.is_none() => pred = Some(c),
                "SimplePredicate" | "SimpleSetPredicate" | "CompoundPredicate" | "False" => {
                    return Err(fail(
                        c,
                        "a segment selected by a predicate other than <True> is not read by cfx",
                    ));
                }
                "TreeModel" | "MiningModel" | "RegressionModel" if model.is_none() => {
                    model = Some(c)
                }
                _ => return Err(fields::unknown(c, "Segment")),
            }
        }
        pred.ok_or_else(|| fail(seg, "no predicate"))?;
        let model = model.ok_or_else(|| fail(seg, "no model"))?;
        let w = seg.num("weight", Some(1.0))?.unwrap_or(1.0);
        if !w.is_finite() {
            return Err(fail(seg, "the weight is not finite"));
        }
        out.push((model, w));
    }
    Ok(out)
}

/// The fields of the outer MiningSchema, read in double precision.
fn base_scope(f: &Fields, _schema: &Schema) -> Scope {
    f.by_name
        .iter()
        .map(|(k, v)| {
            (
                k.clone(),
                Var {
                    view: v.clone(),
                    float: v.float,
                    indicator: None,
                },
            )
        })
        .collect()
}

/// The scope inside `model`: its MiningSchema's fields must be in `outer`;
/// its LocalTransformations may add jpmml's float casts.
fn local_transformations(model: &Element, outer: &Scope) -> Result<Scope> {
    let mut scope = outer.clone();
    for lt in model.all("LocalTransformations") {
        for d in &lt.children {
            match d.name.as_str() {
                "Extension" => continue,
                "DerivedField" => {}
                _ => return Err(fields::unknown(d, "LocalTransformations")),
            }
            let name = d.req("name")?;
            let refs: Vec<&Element> = d
                .children
                .iter()
                .filter(|c| c.name != "Extension")
                .collect();
            let (source, indicator) = match refs.as_slice() {
                [r] if r.name == "FieldRef" && r.attr("mapMissingTo").is_none() => {
                    (r.req("field")?, None)
                }
                [r] if r.name == "NormDiscrete" && r.attr("mapMissingTo").is_none() => {
                    (r.req("field")?, Some(r.req("value")?.to_string()))
                }
                _ => {
                    return Err(fail(
                        d,
                        "a derived field other than a cast of one field (jpmml's float(x)) or a \
                         category's indicator (NormDiscrete) is not evaluated by cfx",
                    ));
                }
            };
            let var = scope
                .get(source)
                .cloned()
                .ok_or_else(|| fail(d, &format!("the field '{source}' is not in scope")))?;
            if d.attr("optype") != Some("continuous") {
                return Err(fail(d, "only continuous derived fields are read"));
            }
            let var = match indicator {
                None => {
                    if d.attr("dataType") != Some("float")
                        || !var.view.numeric
                        || var.indicator.is_some()
                    {
                        return Err(fail(
                            d,
                            "only float casts of a numeric field are read as derived fields",
                        ));
                    }
                    Var {
                        view: var.view,
                        float: true,
                        indicator: None,
                    }
                }
                Some(value) => {
                    if var.indicator.is_some() || var.view.numeric {
                        return Err(fail(
                            d,
                            "an indicator of a field other than a text category is not read",
                        ));
                    }
                    if !matches!(d.attr("dataType"), Some("double" | "float" | "integer")) {
                        return Err(fail(d, "an indicator must be numeric"));
                    }
                    Var {
                        view: var.view,
                        float: false,
                        indicator: Some(value),
                    }
                }
            };
            scope.insert(name.to_string(), var);
        }
    }
    // The model's own MiningSchema names fields of the scope only.
    if let Some(ms) = model.one("MiningSchema")? {
        for mf in &ms.children {
            match mf.name.as_str() {
                "Extension" => continue,
                "MiningField" => {}
                _ => return Err(fields::unknown(mf, "MiningSchema")),
            }
            let name = mf.req("name")?;
            for (k, _) in &mf.attrs {
                if !matches!(k.as_str(), "name" | "usageType" | "importance") {
                    return Err(fail(
                        mf,
                        &format!(
                            "the attribute '{k}' of a nested model's MiningField is not \
                             evaluated by cfx"
                        ),
                    ));
                }
            }
            if !matches!(mf.attr("usageType"), None | Some("active" | "target")) {
                return Err(fail(mf, "this usageType is not read in a nested model"));
            }
            if mf.attr("usageType") != Some("target")
                && !scope.contains_key(name)
                && !outer.contains_key(name)
            {
                // A derived field defined further down (in the model's own
                // LocalTransformations) is added above; anything else is unknown.
                return Err(fail(
                    mf,
                    &format!("the field '{name}' is not defined where this model reads it"),
                ));
            }
        }
    }
    Ok(scope)
}

/// The first segment's model and the name of its one output field.
fn output_of(m: &Element) -> Result<(&Element, String)> {
    let out = m.one("Output")?.ok_or_else(|| {
        fail(
            m,
            "the chain's first model has no <Output> for the next one",
        )
    })?;
    let mut name = None;
    for o in &out.children {
        match o.name.as_str() {
            "Extension" => continue,
            "OutputField" => {}
            _ => return Err(fields::unknown(o, "Output")),
        }
        if !matches!(o.attr("feature"), None | Some("predictedValue"))
            || o.children.iter().any(|c| c.name != "Extension")
        {
            return Err(fail(
                o,
                "an output other than the predicted value is not read by cfx",
            ));
        }
        if name.replace(o.req("name")?.to_string()).is_some() {
            return Err(fail(o, "a second OutputField"));
        }
    }
    let name = name.ok_or_else(|| fail(out, "no OutputField"))?;
    if m.name != "MiningModel" || m.attr("functionName") != Some("regression") {
        return Err(fail(
            m,
            "the chain's first segment must be a regression MiningModel summing trees",
        ));
    }
    Ok((m, name))
}

/// The final logit RegressionModel: `(b, c, favourable, first, second)`.
fn logit_table(
    r: &Element,
    input: &str,
    f: &Fields,
    opts: &PmmlOptions,
    ctx: Ctx,
) -> Result<(f64, f64, String, String, String)> {
    if r.attr("functionName") != Some("classification")
        || r.attr("normalizationMethod") != Some("logit")
    {
        return Err(fail(
            r,
            "the chain's RegressionModel must be a classification with \
             normalizationMethod=\"logit\"",
        ));
    }
    let mut tables = Vec::new();
    for c in &r.children {
        match c.name.as_str() {
            "Extension" | "MiningSchema" | "Output" | "ModelStats" | "ModelExplanation"
            | "ModelVerification" => {}
            "Targets" => super::check_targets(c)?,
            "RegressionTable" => tables.push(c),
            _ => return Err(fields::unknown(c, "RegressionModel")),
        }
    }
    let [first, second] = tables.as_slice() else {
        return Err(fail(
            r,
            "the logit RegressionModel must have two RegressionTables",
        ));
    };
    if second.children.iter().any(|c| c.name != "Extension")
        || second.num("intercept", None)?.unwrap_or(f64::NAN) != 0.0
    {
        return Err(fail(
            second,
            "the second RegressionTable must have intercept 0 and no predictors",
        ));
    }
    let b = number(first, "intercept", ctx)?.ok_or_else(|| fail(first, "no intercept"))?;
    let preds: Vec<&Element> = first
        .children
        .iter()
        .filter(|c| c.name != "Extension")
        .collect();
    let [p] = preds.as_slice() else {
        return Err(fail(
            first,
            "the table must read the summed trees only (one NumericPredictor)",
        ));
    };
    if p.name != "NumericPredictor"
        || p.req("name")? != input
        || p.num("exponent", Some(1.0))? != Some(1.0)
    {
        return Err(fail(
            p,
            &format!("the table must read the summed trees '{input}' linearly"),
        ));
    }
    let c = number(p, "coefficient", ctx)?.ok_or_else(|| fail(p, "no coefficient"))?;
    let cat_a = first.req("targetCategory")?.to_string();
    let cat_b = second.req("targetCategory")?.to_string();
    if let Some(t) = &f.target {
        for cat in [&cat_a, &cat_b] {
            if !t.categories.is_empty() && !t.categories.contains(cat) {
                return Err(fail(
                    r,
                    &format!(
                        "the category '{cat}' is not a category of the target '{}'",
                        t.name
                    ),
                ));
            }
        }
    }
    let Some(fav) = &opts.favourable_class else {
        return Err(Error::Format(format!(
            "PMML MiningModel: the file predicts the classes '{cat_a}' and '{cat_b}' but does \
             not say which is favourable: give the option \"favourable_class\" (the class of \
             applicants the bank accepts)"
        )));
    };
    if *fav != cat_a && *fav != cat_b {
        return Err(Error::Format(format!(
            "PMML MiningModel: favourable_class '{fav}' is neither '{cat_a}' nor '{cat_b}'"
        )));
    }
    Ok((b, c, fav.clone(), cat_a, cat_b))
}

/// What the trees see of each schema feature, from the field views.
fn feature_inputs(f: &Fields, schema: &Schema) -> Result<Vec<FeatureInput>> {
    let mut inputs: Vec<FeatureInput> = schema
        .features
        .iter()
        .map(|ft| FeatureInput::of_feature(ft, false))
        .collect();
    for (name, view) in &f.by_name {
        let ft = &schema.features[view.feature];
        if let (
            FeatureKind::Contiguous { special_states, .. },
            FeatureInput::Value { specials, .. },
        ) = (&ft.kind, &mut inputs[view.feature])
        {
            for (j, s) in special_states.iter().enumerate() {
                specials[j] = match &view.states[j + 1] {
                    Seen::Missing => SpecialInput {
                        code: s.code,
                        as_missing: true,
                    },
                    Seen::Number(x) if *x == s.code => SpecialInput {
                        code: s.code,
                        as_missing: false,
                    },
                    other => {
                        return Err(Error::Format(format!(
                            "PMML: the special state {} of '{name}' reaches the trees as \
                             {other:?} (a replacement value): not read for tree models",
                            s.code
                        )));
                    }
                };
            }
        }
    }
    Ok(inputs)
}

impl Builder<'_> {
    /// Reads the summed regression MiningModel: pushes its trees' roots and
    /// returns the constant added to the sum.
    fn sum_model(&mut self, m: &Element, outer: &Scope, roots: &mut Vec<u32>) -> Result<f64> {
        let scope = local_transformations(m, outer)?;
        let seg = model_children(m, &["Segmentation"])?;
        let segmentation = seg
            .first()
            .copied()
            .ok_or_else(|| fail(m, "no <Segmentation>"))?;
        let method = segmentation.req("multipleModelMethod")?;
        let weighted = match method {
            "sum" => false,
            "weightedSum" => true,
            other => {
                return Err(fail(
                    segmentation,
                    &format!(
                        "multipleModelMethod=\"{other}\" in the summed model is not read by cfx \
                         (sum, weightedSum)"
                    ),
                ));
            }
        };
        let (factor, constant) = self.targets(m)?;
        if self.ctx == Ctx::Float && factor != 1.0 {
            return Err(fail(
                m,
                "a rescaleFactor in float precision is not evaluated exactly by cfx",
            ));
        }
        let outer_scale = self.scale;
        for (tree, w) in segments(segmentation)? {
            if tree.name != "TreeModel" {
                return Err(fail(
                    tree,
                    "the summed model's segments must be TreeModels (nested ensembles are not \
                     read by cfx)",
                ));
            }
            let w = if weighted { w } else { 1.0 };
            if self.ctx == Ctx::Float && w != 1.0 {
                return Err(fail(
                    tree,
                    "a segment weight in float precision is not evaluated exactly by cfx",
                ));
            }
            self.scale = outer_scale * factor * w;
            roots.push(self.tree(tree, &scope)?);
        }
        self.scale = outer_scale;
        if roots.is_empty() {
            return Err(fail(segmentation, "no trees"));
        }
        Ok(constant)
    }

    /// A model's `Targets`: `(rescaleFactor, rescaleConstant)`.
    fn targets(&self, m: &Element) -> Result<(f64, f64)> {
        let Some(t) = m.one("Targets")? else {
            return Ok((1.0, 0.0));
        };
        let mut out = (1.0, 0.0);
        let mut n = 0;
        for c in &t.children {
            match c.name.as_str() {
                "Extension" => continue,
                "Target" => n += 1,
                _ => return Err(fields::unknown(c, "Targets")),
            }
            for (k, _) in &c.attrs {
                if !matches!(
                    k.as_str(),
                    "rescaleFactor" | "rescaleConstant" | "field" | "optype"
                ) {
                    return Err(fail(c, &format!("'{k}' is not evaluated by cfx")));
                }
            }
            if c.children.iter().any(|v| v.name != "Extension") {
                return Err(fail(c, "target values are not read in a summed model"));
            }
            out = (
                number(c, "rescaleFactor", self.ctx)?.unwrap_or(1.0),
                number(c, "rescaleConstant", self.ctx)?.unwrap_or(0.0),
            );
        }
        if n > 1 {
            return Err(fail(t, "more than one Target"));
        }
        Ok(out)
    }

    /// Reads one regression TreeModel; returns its root's index.
    fn tree(&mut self, t: &Element, outer: &Scope) -> Result<u32> {
        if self.forest.is_some() {
            if t.attr("functionName") != Some("classification") {
                return Err(fail(
                    t,
                    "an averaged forest's TreeModel must be a classification (its leaves' \
                     ScoreDistribution are averaged)",
                ));
            }
        } else if t.attr("functionName") != Some("regression") {
            return Err(fail(
                t,
                "a summed TreeModel must be a regression (its leaves' scores are added)",
            ));
        }
        if math_context(t)? != self.ctx {
            return Err(fail(
                t,
                "the tree's mathContext differs from its ensemble's",
            ));
        }
        let scope = local_transformations(t, outer)?;
        if let Some(tg) = t.one("Targets")? {
            super::check_targets(tg)?;
        }
        let strategy = match t.attr("missingValueStrategy").unwrap_or("none") {
            "none" => Strategy::None,
            "defaultChild" => Strategy::DefaultChild,
            "nullPrediction" | "lastPrediction" | "weightedConfidence" | "aggregateNodes" => {
                Strategy::Other
            }
            other => {
                return Err(fail(
                    t,
                    &format!("unknown missingValueStrategy \"{other}\""),
                ));
            }
        };
        let last = match t
            .attr("noTrueChildStrategy")
            .unwrap_or("returnNullPrediction")
        {
            "returnNullPrediction" => false,
            "returnLastPrediction" => true,
            other => return Err(fail(t, &format!("unknown noTrueChildStrategy \"{other}\""))),
        };
        let nodes = model_children(t, &["Node"])?;
        let [root] = nodes.as_slice() else {
            return Err(fail(t, "a TreeModel has one root <Node>"));
        };
        let (pred, _) = self.node_parts(root, &scope)?;
        if !matches!(pred, Pred::True) {
            return Err(fail(
                root,
                "the root node's predicate must be <True> (otherwise some rows get no \
                 prediction)",
            ));
        }
        self.node(root, &scope, strategy, last, t)
    }

    /// A node's predicate and child nodes.
    fn node_parts<'e>(&self, n: &'e Element, scope: &Scope) -> Result<(Pred, Vec<&'e Element>)> {
        let mut pred = None;
        let mut kids = Vec::new();
        for c in &n.children {
            match c.name.as_str() {
                "Extension" => {}
                "Node" => kids.push(c),
                "SimplePredicate" | "SimpleSetPredicate" | "CompoundPredicate" | "True"
                | "False" => {
                    if pred.is_some() {
                        return Err(fail(c, "a second predicate in a <Node>"));
                    }
                    pred = Some(self.predicate(c, scope)?);
                }
                "ScoreDistribution" if self.forest.is_some() => {}
                "ScoreDistribution" => {
                    return Err(fail(
                        c,
                        "a ScoreDistribution (class probabilities in a leaf) is not read in a \
                         summed regression tree",
                    ));
                }
                _ => return Err(fields::unknown(c, "Node")),
            }
        }
        Ok((pred.ok_or_else(|| fail(n, "no predicate"))?, kids))
    }

    fn predicate(&self, e: &Element, scope: &Scope) -> Result<Pred> {
        match e.name.as_str() {
            "True" => return Ok(Pred::True),
            "False" => return Ok(Pred::False),
            _ => {}
        }
        // Every field the predicate reads must be one feature.
        let mut names = Vec::new();
        collect_fields(e, &mut names);
        let mut feature = None;
        let mut var = None;
        for n in &names {
            let v = scope.get(*n).ok_or_else(|| {
                fail(
                    e,
                    &format!("the field '{n}' is not defined where this tree reads it"),
                )
            })?;
            if feature
                .replace(v.view.feature)
                .is_some_and(|f| f != v.view.feature)
            {
                return Err(fail(
                    e,
                    "a predicate joining several features is not evaluated by cfx",
                ));
            }
            if let Some(old) = var.replace(v) {
                if old.float != v.float {
                    return Err(fail(e, "a predicate mixing precisions is not read by cfx"));
                }
            }
        }
        let var = var.ok_or_else(|| fail(e, "a predicate without a field"))?;
        let feature = var.view.feature;
        if let Some(value) = &var.indicator {
            // The indicator's value per level, compared as the standard does.
            if e.name != "SimplePredicate" || e.children.iter().any(|c| c.name != "Extension") {
                return Err(fail(
                    e,
                    "only a comparison is read on a category's indicator",
                ));
            }
            let t = number(e, "value", Ctx::Double)?.ok_or_else(|| fail(e, "no value"))?;
            let op = e.req("operator")?;
            let truth = var
                .view
                .states
                .iter()
                .map(|s| -> Result<Option<bool>> {
                    let x = match s {
                        Seen::Missing => return Ok(None),
                        Seen::Text(l) => f64::from(u8::from(l == value)),
                        Seen::Number(_) => unreachable!("indicators of text fields only"),
                    };
                    Ok(Some(match op {
                        "lessThan" => x < t,
                        "lessOrEqual" => x <= t,
                        "greaterThan" => x > t,
                        "greaterOrEqual" => x >= t,
                        "equal" => x == t,
                        "notEqual" => x != t,
                        other => {
                            return Err(fail(
                                e,
                                &format!("the operator '{other}' on an indicator"),
                            ));
                        }
                    }))
                })
                .collect::<Result<Vec<_>>>()?;
            return Ok(Pred::Levels { feature, truth });
        }
        match &self.schema.features[feature].kind {
            FeatureKind::Categorical { .. } => {
                let mut map = BTreeMap::new();
                for n in &names {
                    map.insert((*n).to_string(), var.view.clone());
                }
                let p = predicate::read(e, &map)?;
                let truth = var.view.states.iter().map(|s| p.eval(s)).collect();
                Ok(Pred::Levels { feature, truth })
            }
            FeatureKind::Contiguous { .. } => {
                if e.name != "SimplePredicate" {
                    return Err(fail(
                        e,
                        &format!(
                            "<{}> on the contiguous feature '{}' is not read in trees (binary \
                             comparisons only)",
                            e.name, self.schema.features[feature].name
                        ),
                    ));
                }
                for c in &e.children {
                    if c.name != "Extension" {
                        return Err(fields::unknown(c, &e.name));
                    }
                }
                let mode = match e.req("operator")? {
                    "lessThan" => OnnxMode::Lt,
                    "lessOrEqual" => OnnxMode::Leq,
                    "greaterThan" => OnnxMode::Gt,
                    "greaterOrEqual" => OnnxMode::Gte,
                    "equal" => OnnxMode::Eq,
                    "notEqual" => OnnxMode::Neq,
                    "isMissing" => return Ok(Pred::Missing { feature, is: true }),
                    "isNotMissing" => return Ok(Pred::Missing { feature, is: false }),
                    other => return Err(fail(e, &format!("unknown operator '{other}'"))),
                };
                let ctx = if var.float { Ctx::Float } else { Ctx::Double };
                let t = number(e, "value", ctx)?.ok_or_else(|| fail(e, "no value"))?;
                Ok(Pred::Cmp {
                    feature,
                    float: var.float,
                    mode,
                    t,
                })
            }
        }
    }

    /// Whether feature `f` can reach the trees as a missing value.
    fn can_be_missing(&self, f: usize) -> bool {
        match &self.inputs[f] {
            FeatureInput::Value { specials, .. } => specials.iter().any(|s| s.as_missing),
            FeatureInput::Levels { .. } => self.level_missing[f],
        }
    }

    /// The probes of contiguous feature `f` for a node's predicates: every
    /// value where one of them can change, the range's ends, each special
    /// state as the trees see it.
    fn probes(&self, f: usize, preds: &[Pred], cat_levels: usize) -> Vec<f64> {
        if cat_levels > 0 {
            return (0..cat_levels).map(|k| k as f64).collect();
        }
        let FeatureInput::Value {
            lower,
            upper,
            specials,
            ..
        } = &self.inputs[f]
        else {
            return Vec::new();
        };
        let mut out = vec![*lower, *upper];
        for s in specials {
            out.push(if s.as_missing { f64::NAN } else { s.code });
        }
        for p in preds {
            if let Pred::Cmp { t, float, .. } = p {
                out.push(*t);
                if *float {
                    let t = *t as f32;
                    out.push(f64::from(next_f32(t, true)));
                    out.push(f64::from(next_f32(t, false)));
                } else {
                    out.push(next_f64(*t, true));
                    out.push(next_f64(*t, false));
                }
            }
        }
        out
    }

    /// Builds node `n` (and its subtree); returns its index.
    fn node(
        &mut self,
        n: &Element,
        scope: &Scope,
        strategy: Strategy,
        last: bool,
        tree: &Element,
    ) -> Result<u32> {
        let (_, kids) = self.node_parts(n, scope)?;
        let score = self.value(n)?;
        if kids.is_empty() {
            let s = score.ok_or_else(|| fail(n, "a leaf without a score"))?;
            return Ok(self.push(Node::leaf(self.scale * s)));
        }
        let mut preds = Vec::with_capacity(kids.len());
        for k in &kids {
            preds.push(self.node_parts(k, scope)?.0);
        }
        let default = match (strategy, n.attr("defaultChild")) {
            (Strategy::DefaultChild, Some(id)) => Some(
                kids.iter()
                    .position(|k| k.attr("id") == Some(id))
                    .ok_or_else(|| fail(n, &format!("defaultChild \"{id}\" is no child's id")))?,
            ),
            _ => None,
        };
        let features: Vec<usize> = {
            let mut v: Vec<usize> = preds.iter().filter_map(Pred::feature).collect();
            v.sort_unstable();
            v.dedup();
            v
        };
        let missing = features.iter().any(|&f| self.can_be_missing(f));
        if missing {
            match strategy {
                Strategy::Other => {
                    return Err(fail(
                        n,
                        &format!(
                            "a missing value reaches this node's predicates and \
                             missingValueStrategy=\"{}\" (of {}) is not evaluated by cfx \
                             (none, defaultChild)",
                            tree.attr("missingValueStrategy").unwrap_or("none"),
                            tree.at()
                        ),
                    ));
                }
                Strategy::DefaultChild if default.is_none() => {
                    return Err(fail(
                        n,
                        "missingValueStrategy=\"defaultChild\" but the node names no defaultChild",
                    ));
                }
                _ => {}
            }
        }
        // The standard's rule at one probe of a single-feature node.
        let pmml_dest = |probe: f64| -> Dest {
            for (i, p) in preds.iter().enumerate() {
                match p.eval(probe) {
                    Some(true) => return Dest::Child(i),
                    Some(false) => {}
                    None => match strategy {
                        Strategy::None => {}
                        Strategy::DefaultChild => {
                            return default.map_or(Dest::Null, Dest::Child);
                        }
                        Strategy::Other => return Dest::Null,
                    },
                }
            }
            if last { Dest::Last } else { Dest::Null }
        };
        // The chain: one test per child that can hold, left to that child.
        let live: Vec<usize> = (0..preds.len())
            .take_while(|&i| i == 0 || !matches!(preds[i - 1], Pred::True))
            .filter(|&i| !matches!(preds[i], Pred::False))
            .collect();
        if live.is_empty() {
            if !last {
                return Err(fail(
                    n,
                    "no child can match and the tree returns no prediction",
                ));
            }
            let s =
                score.ok_or_else(|| fail(n, "returnLastPrediction from a node without a score"))?;
            return Ok(self.push(Node::leaf(self.scale * s)));
        }
        let single = features.len() == 1;
        let is_cat = single
            && matches!(
                self.schema.features[features[0]].kind,
                FeatureKind::Categorical { .. }
            );
        let mut probes = Vec::new();
        if single {
            let f = features[0];
            let levels = match &self.schema.features[f].kind {
                FeatureKind::Categorical { levels } => levels.len(),
                _ => 0,
            };
            probes = self.probes(f, &preds, levels);
            if levels == 0 && self.can_be_missing(f) {
                probes.push(f64::NAN);
            }
            if let Some(&p) = probes.iter().find(|&&p| pmml_dest(p) == Dest::Null) {
                return Err(fail(
                    n,
                    &format!(
                        "the value {} of '{}' gets no prediction here (no child matches, or a \
                         missing value under missingValueStrategy=\"{}\"): narrow the schema or \
                         fix the file",
                        probe_text(p, is_cat),
                        self.schema.features[f].name,
                        tree.attr("missingValueStrategy").unwrap_or("none"),
                    ),
                ));
            }
        } else if strategy == Strategy::DefaultChild && missing {
            return Err(fail(
                n,
                "a defaultChild node whose children test several features is not read by cfx",
            ));
        }
        // Two chains: the last child as the "else" (when no row can fail its
        // test), or every child tested and the node's own score as the else
        // (returnLastPrediction). The first that the standard's rule confirms
        // on every probe is built.
        let last_true = matches!(preds[*live.last().expect("not empty")], Pred::True);
        let mut chosen = None;
        for else_is_last_child in [true, false] {
            if else_is_last_child && !(last_true || single) {
                continue;
            }
            if !else_is_last_child && !last {
                continue;
            }
            let ok = !single
                || probes.iter().all(|&p| {
                    let tail = if else_is_last_child {
                        live.len() - 1
                    } else {
                        live.len()
                    };
                    let got = live[..tail]
                        .iter()
                        .find(|&&i| self.chain_left(&preds[i], i, default, p))
                        .map(|&i| Dest::Child(i))
                        .unwrap_or(if else_is_last_child {
                            Dest::Child(*live.last().expect("not empty"))
                        } else {
                            Dest::Last
                        });
                    got == pmml_dest(p)
                });
            if ok {
                chosen = Some(else_is_last_child);
                break;
            }
        }
        let Some(else_is_last_child) = chosen else {
            return Err(fail(
                n,
                if last || single {
                    "the node's children are not tests cfx can chain exactly"
                } else {
                    "rows that match no child get no prediction (noTrueChildStrategy=\
                     \"returnNullPrediction\") and cfx cannot prove that none does"
                },
            ));
        };
        let tail = if else_is_last_child {
            live.len() - 1
        } else {
            live.len()
        };
        let elements: Vec<(usize, &Pred)> = live[..tail].iter().map(|&i| (i, &preds[i])).collect();
        let else_child = if else_is_last_child {
            live.last().copied()
        } else {
            None
        };
        // Build from the end: the else first.
        let mut next = match else_child {
            Some(i) => self.node(kids[i], scope, strategy, last, tree)?,
            None => {
                let s = score
                    .ok_or_else(|| fail(n, "returnLastPrediction from a node without a score"))?;
                self.push(Node::leaf(self.scale * s))
            }
        };
        for &(i, pred) in elements.iter().rev() {
            let left = self.node(kids[i], scope, strategy, last, tree)?;
            let default_left = default == Some(i);
            let node = match pred {
                Pred::Cmp {
                    feature,
                    float,
                    mode,
                    t,
                } => Node {
                    test: if *float {
                        Test::OnnxF32(*mode)
                    } else {
                        Test::OnnxF64(*mode)
                    },
                    feature: *feature as u32,
                    threshold: *t,
                    default_left,
                    left,
                    right: next,
                    value: 0.0,
                },
                Pred::Missing { feature, is } => {
                    // Always false on numbers, left on a missing value (or
                    // the reverse for isNotMissing).
                    let below = self.lowest(*feature) - 1.0;
                    Node {
                        test: Test::OnnxF64(if *is { OnnxMode::Lt } else { OnnxMode::Gte }),
                        feature: *feature as u32,
                        threshold: below,
                        default_left: *is,
                        left,
                        right: next,
                        value: 0.0,
                    }
                }
                Pred::Levels { feature, truth } => {
                    let off = self.level_left.len() as u32;
                    for t in truth {
                        self.level_left.push(match t {
                            Some(b) => *b,
                            None => default_left,
                        });
                    }
                    Node {
                        test: Test::Levels(off),
                        feature: *feature as u32,
                        threshold: 0.0,
                        default_left: false,
                        left,
                        right: next,
                        value: 0.0,
                    }
                }
                Pred::True | Pred::False => unreachable!("True ends the chain, False is skipped"),
            };
            next = self.push(node);
        }
        Ok(next)
    }

    /// Whether chain element `i` (testing `pred`) sends probe `p` left.
    /// A node's value: its `score` in a summed tree; in a forest's
    /// classification tree, the favourable class's probability from its
    /// `ScoreDistribution`s as jpmml-evaluator normalises them (the record
    /// count over the sum of the node's record counts, in double), or none.
    fn value(&self, n: &Element) -> Result<Option<f64>> {
        let Some(forest) = &self.forest else {
            return number(n, "score", self.ctx);
        };
        let mut counts: Vec<(&str, f64, &Element)> = Vec::new();
        for d in n.children.iter().filter(|c| c.name == "ScoreDistribution") {
            for (k, _) in &d.attrs {
                if !matches!(k.as_str(), "value" | "recordCount") {
                    return Err(fail(
                        d,
                        &format!(
                            "'{k}' in a ScoreDistribution is not read by cfx (it reads the \
                             record counts sklearn2pmml writes)"
                        ),
                    ));
                }
            }
            if d.children.iter().any(|c| c.name != "Extension") {
                return Err(fail(
                    d,
                    "a ScoreDistribution with confidences is not read by cfx",
                ));
            }
            let v = d.req("value")?;
            let rc = d
                .num("recordCount", None)?
                .ok_or_else(|| fail(d, "no recordCount"))?;
            if !(rc.is_finite() && rc >= 0.0) {
                return Err(fail(d, "the recordCount is not a non-negative number"));
            }
            if !forest.classes.iter().any(|c| c == v) || counts.iter().any(|c| c.0 == v) {
                return Err(fail(
                    d,
                    &format!("the class '{v}' is not a target category, or is repeated"),
                ));
            }
            counts.push((v, rc, d));
        }
        if counts.is_empty() {
            return Ok(None);
        }
        let mut total = 0.0;
        for c in &counts {
            total += c.1;
        }
        if total <= 0.0 {
            return Err(fail(
                n,
                "the node's record counts sum to zero (no probability)",
            ));
        }
        let fav = counts
            .iter()
            .find(|c| c.0 == forest.favourable)
            .map_or(0.0, |c| c.1);
        Ok(Some(fav / total))
    }

    fn chain_left(&self, pred: &Pred, i: usize, default: Option<usize>, p: f64) -> bool {
        match pred.eval(p) {
            Some(b) => b,
            None => default == Some(i),
        }
    }

    /// The lowest number contiguous feature `f` reaches the trees as.
    fn lowest(&self, f: usize) -> f64 {
        match &self.inputs[f] {
            FeatureInput::Value {
                lower, specials, ..
            } => specials
                .iter()
                .map(|s| s.code)
                .fold(*lower, f64::min)
                .floor(),
            FeatureInput::Levels { .. } => 0.0,
        }
    }

    fn push(&mut self, n: Node) -> u32 {
        self.nodes.push(n);
        (self.nodes.len() - 1) as u32
    }
}

fn probe_text(p: f64, level: bool) -> String {
    if level {
        format!("level #{p}")
    } else if p.is_nan() {
        "missing".into()
    } else {
        format!("{p}")
    }
}

fn collect_fields<'a>(e: &'a Element, out: &mut Vec<&'a str>) {
    if let Some(f) = e.attr("field") {
        if !out.contains(&f) {
            out.push(f);
        }
    }
    for c in &e.children {
        collect_fields(c, out);
    }
}

/// The next float32 above (`up`) or below `t`.
fn next_f32(t: f32, up: bool) -> f32 {
    if t == 0.0 {
        return if up {
            f32::from_bits(1)
        } else {
            -f32::from_bits(1)
        };
    }
    let b = t.to_bits();
    f32::from_bits(if (t > 0.0) == up { b + 1 } else { b - 1 })
}

/// The next double above (`up`) or below `t`.
fn next_f64(t: f64, up: bool) -> f64 {
    if t == 0.0 {
        return if up {
            f64::from_bits(1)
        } else {
            -f64::from_bits(1)
        };
    }
    let b = t.to_bits();
    f64::from_bits(if (t > 0.0) == up { b + 1 } else { b - 1 })
}
