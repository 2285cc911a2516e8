//! An Explainable Boosting Machine (InterpretML, Lou, Caruana et al. 2013
//! "Accurate intelligible models with pairwise interactions", KDD) as
//! interpret writes it: `ebm.to_json(…)` / `ebm.to_jsonable()`, format
//! `"version": "1.0"` (interpret 0.7; marked beta by interpret, so the
//! version is checked and the reader is tested against interpret 0.7.8).
//!
//! # The model and its evaluation rule (checked against
//! `ebm.decision_function` on every committed row, tests/data/ebm)
//! The margin is `intercept + Σ_terms scores_term[bin(x_f) for f in term]`,
//! the logit link. A term is one feature (a step function) or a pair (a 2-D
//! table). Each feature has one binning per term size (`cuts` / `categories`
//! is a list of levels; a term of `k` features uses level `min(levels, k)`,
//! as interpret's `eval_terms` does — pairs are binned more coarsely,
//! `max_interaction_bins`). A continuous value's bin is 0 when missing
//! (`NaN`), otherwise `1 + #{cuts c : c ≤ x}` (a value equal to a cut falls in
//! the upper bin, compared in float64); a nominal/ordinal category's bin is
//! its index among the level's categories plus one (several categories may
//! share a bin), 0 when missing, and the last bin for a category the model
//! never saw. So a score array has `cuts + 3` (or `categories + 2`) entries
//! per dimension.
//!
//! # As a tree ensemble
//! Each term becomes one tree over its one or two features (a binary search
//! over the cuts, or a chain over the categories, with the missing and unseen
//! bins as their own leaves; a pair nests the second feature's tree under each
//! bin of the first), so cfx's exact tree search proves counterfactuals of an
//! EBM (GAM Coach, Wang et al. 2023, solves the same problem as a MILP). A
//! cut `c` is the test `x ≤ prev(c)` (the largest float64 below `c`, i.e.
//! `x < c`) with [`Test::AtMostNanMissing`]; a missing value travels left to
//! the lowest bin's node, which sends it to the missing bin.
//!
//! # Refused
//! Regression and multiclass models (another link than `logit`, other than
//! two classes), terms of three or more features, feature types other than
//! continuous/nominal/ordinal, score tables of the wrong shape, another
//! format version, and unknown keys.

use super::Source;
use super::import::{LibModel, LibNode, build};
use super::{ImportOptions, Test, TreeEnsemble};
use crate::error::{Error, Result};
use crate::schema::Schema;
use serde_json::Value;

fn format(m: String) -> Error {
    Error::Format(format!("EBM model: {m}"))
}

fn get<'a>(v: &'a Value, key: &str, at: &str) -> Result<&'a Value> {
    v.get(key)
        .ok_or_else(|| format(format!("'{at}' has no '{key}'")))
}

fn array<'a>(v: &'a Value, at: &str) -> Result<&'a Vec<Value>> {
    v.as_array()
        .ok_or_else(|| format(format!("'{at}' is not an array")))
}

fn number(v: &Value, at: &str) -> Result<f64> {
    v.as_f64()
        .filter(|x| x.is_finite())
        .ok_or_else(|| format(format!("'{at}' is not a finite number")))
}

fn only_keys(v: &Value, known: &[&str], at: &str) -> Result<()> {
    let obj = v
        .as_object()
        .ok_or_else(|| format(format!("'{at}' is not an object")))?;
    for k in obj.keys() {
        if !known.contains(&k.as_str()) {
            return Err(format(format!("unknown key '{k}' in '{at}'")));
        }
    }
    Ok(())
}

/// The largest float64 below `c` (`c` finite): `x ≤ prev(c)` ⇔ `x < c`.
/// (`f64::next_down` needs Rust 1.86; the crate's minimum is 1.85.)
fn prev_f64(c: f64) -> f64 {
    if c == 0.0 {
        return -f64::from_bits(1);
    }
    let bits = c.to_bits();
    f64::from_bits(if c > 0.0 { bits - 1 } else { bits + 1 })
}

/// One feature's binnings, one per term size.
enum Binning {
    /// Cuts per level, ascending.
    Continuous(Vec<Vec<f64>>),
    /// Per level, the codes (positions in the feature's category list) of
    /// each bin 1, 2, ….
    Categorical(Vec<Vec<Vec<i64>>>),
}

/// How a term's dimension is binned: the feature's column and its level's
/// cuts or category bins.
enum Dim<'a> {
    Continuous(usize, &'a [f64]),
    Categorical(usize, &'a [Vec<i64>]),
}

impl Dim<'_> {
    /// Number of bins, with the missing (0) and unseen (last) bins.
    fn bins(&self) -> usize {
        match self {
            Dim::Continuous(_, cuts) => cuts.len() + 3,
            Dim::Categorical(_, bins) => bins.len() + 2,
        }
    }
}

/// Builds one tree (root at node 0) as the library's nodes.
struct Tree {
    nodes: Vec<LibNode>,
}

impl Tree {
    fn hole(&mut self) -> usize {
        self.nodes.push(LibNode::Leaf(0.0));
        self.nodes.len() - 1
    }

    /// Routes a row to its bin of `dim`; `then(tree, bin)` builds what
    /// follows in that bin and returns its node.
    fn route(&mut self, dim: &Dim, then: &mut dyn FnMut(&mut Tree, usize) -> usize) -> usize {
        match dim {
            Dim::Continuous(column, cuts) => self.search(*column, cuts, 1, cuts.len() + 1, then),
            Dim::Categorical(column, bins) => {
                // A missing category goes left to the missing bin; every
                // other one (known or unseen) right, down the chain.
                let at = self.hole();
                let l = then(self, 0);
                let r = self.chain(*column, bins, 0, then);
                self.nodes[at] = LibNode::Categorical {
                    column: *column,
                    codes: Vec::new(),
                    in_set_left: true,
                    default_left: true,
                    left: l,
                    right: r,
                };
                at
            }
        }
    }

    /// Bins `lo..=hi` (1-based) of a continuous feature by binary search;
    /// missing values go left at every cut and leave at bin 1's node.
    fn search(
        &mut self,
        column: usize,
        cuts: &[f64],
        lo: usize,
        hi: usize,
        then: &mut dyn FnMut(&mut Tree, usize) -> usize,
    ) -> usize {
        let at = self.hole();
        let (threshold, default_left, l, r) = if lo < hi {
            let mid = (lo + hi) / 2;
            // Cut `mid` separates bin `mid` (x < c) from bin `mid + 1`.
            let l = self.search(column, cuts, lo, mid, then);
            let r = self.search(column, cuts, mid + 1, hi, then);
            (prev_f64(cuts[mid - 1]), true, l, r)
        } else if lo == 1 {
            // The lowest bin: every non-missing value here is below the
            // first cut (or there is no cut); a missing one goes right.
            let l = then(self, 1);
            let r = if cuts.is_empty() {
                // Without a cut, `x ≤ f64::MAX` also sends +∞ right: tell it
                // from a missing value (LightGBM's rule: NaN counts as 0).
                let at2 = self.hole();
                let missing = then(self, 0);
                let inf = then(self, 1);
                self.nodes[at2] = LibNode::Numeric {
                    column,
                    test: Test::AtMost,
                    threshold: f64::MAX,
                    default_left: false,
                    left: missing,
                    right: inf,
                };
                at2
            } else {
                then(self, 0)
            };
            let t = cuts.first().map_or(f64::MAX, |&c| prev_f64(c));
            (t, false, l, r)
        } else {
            self.nodes.pop();
            return then(self, lo);
        };
        self.nodes[at] = LibNode::Numeric {
            column,
            test: Test::AtMostNanMissing,
            threshold,
            default_left,
            left: l,
            right: r,
        };
        at
    }

    /// Categorical bins from `k` on: bin `k + 1` left, the rest right; past
    /// the last bin, the unseen bin.
    fn chain(
        &mut self,
        column: usize,
        bins: &[Vec<i64>],
        k: usize,
        then: &mut dyn FnMut(&mut Tree, usize) -> usize,
    ) -> usize {
        if k == bins.len() {
            return then(self, bins.len() + 1);
        }
        let at = self.hole();
        let l = then(self, k + 1);
        let r = self.chain(column, bins, k + 1, then);
        self.nodes[at] = LibNode::Categorical {
            column,
            codes: bins[k].clone(),
            in_set_left: true,
            default_left: true,
            left: l,
            right: r,
        };
        at
    }
}

/// Reads the model, maps it onto the schema (see the module docs).
pub(super) fn import(json: &str, schema: &Schema, options: &ImportOptions) -> Result<TreeEnsemble> {
    let root: Value = serde_json::from_str(json).map_err(|e| format(format!("not JSON: {e}")))?;
    only_keys(&root, &["version", "ebm"], "model")?;
    match root.get("version").and_then(Value::as_str) {
        Some("1.0") => {}
        v => {
            return Err(format(format!(
                "format version {v:?} is not read (cfx reads interpret's JSON version \"1.0\", \
                 written by interpret 0.7)"
            )));
        }
    }
    if options.trees.is_some() || !options.category_codes.is_empty() {
        return Err(Error::InvalidArgument(
            "import options 'trees' and 'category_codes' do not apply to EBMs (every term is \
             scored; categories are matched by name)"
                .into(),
        ));
    }
    let ebm = get(&root, "ebm", "model")?;
    only_keys(
        ebm,
        &[
            "outputs",
            "intercept",
            "bagged_intercept",
            "bag_weights",
            "best_iteration",
            "implementation",
            "implementation_params",
            "noise_scale_binning",
            "noise_scale_boosting",
            "features",
            "terms",
        ],
        "ebm",
    )?;
    let mut report = Vec::new();
    let outputs = array(get(ebm, "outputs", "ebm")?, "outputs")?;
    let [output] = outputs.as_slice() else {
        return Err(format(format!(
            "{} outputs; cfx reads single-output models",
            outputs.len()
        )));
    };
    let task = output.get("task").and_then(Value::as_str).unwrap_or("");
    let link = output.get("link").and_then(Value::as_str).unwrap_or("");
    if task != "classification" || link != "logit" {
        return Err(format(format!(
            "task '{task}' with link '{link}' is not read: cfx reads binary classifiers (the \
             logit link)"
        )));
    }
    let classes = array(get(output, "classes", "outputs[0]")?, "classes")?;
    if classes.len() != 2 {
        return Err(format(format!(
            "{} classes; cfx reads binary classifiers",
            classes.len()
        )));
    }
    let class_text = |v: &Value| match v {
        Value::String(s) => format!("'{s}'"),
        other => other.to_string(),
    };
    report.push(format!(
        "EBM, logit link: the margin is the log-odds of class 1 ({}; class 0 is {})",
        class_text(&classes[1]),
        class_text(&classes[0])
    ));
    let intercept = array(get(ebm, "intercept", "ebm")?, "intercept")?;
    let [intercept] = intercept.as_slice() else {
        return Err(format("'intercept' is not one number".into()));
    };
    let intercept = number(intercept, "intercept[0]")?;

    // Features.
    let features = array(get(ebm, "features", "ebm")?, "features")?;
    let mut columns = Vec::new();
    let mut categories: Vec<Option<Vec<String>>> = Vec::new();
    let mut binnings = Vec::new();
    for (i, f) in features.iter().enumerate() {
        let at = format!("features[{i}]");
        only_keys(
            f,
            &[
                "name",
                "type",
                "num_unique_vals",
                "cuts",
                "categories",
                "min",
                "max",
                "histogram_weights",
            ],
            &at,
        )?;
        let name = get(f, "name", &at)?
            .as_str()
            .ok_or_else(|| format(format!("'{at}.name' is not a string")))?;
        let levels = |key: &str| -> Result<&Vec<Value>> {
            let l = array(get(f, key, &at)?, &format!("{at}.{key}"))?;
            if l.is_empty() {
                return Err(format(format!("'{at}.{key}' has no binning")));
            }
            Ok(l)
        };
        match get(f, "type", &at)?.as_str() {
            Some("continuous") => {
                let mut per_level = Vec::new();
                for (l, cuts) in levels("cuts")?.iter().enumerate() {
                    let cuts: Vec<f64> = array(cuts, &format!("{at}.cuts[{l}]"))?
                        .iter()
                        .map(|c| number(c, &format!("{at}.cuts[{l}]")))
                        .collect::<Result<_>>()?;
                    if cuts.windows(2).any(|w| w[0] >= w[1]) {
                        return Err(format(format!("'{at}.cuts[{l}]' is not increasing")));
                    }
                    per_level.push(cuts);
                }
                binnings.push(Binning::Continuous(per_level));
                categories.push(None);
            }
            Some(t @ ("nominal" | "ordinal")) => {
                // Every category of every level, each with its code (its
                // position in this list); per level, the codes of each bin.
                let mut names: Vec<String> = Vec::new();
                let mut per_level = Vec::new();
                for (l, level) in levels("categories")?.iter().enumerate() {
                    let lat = format!("{at}.categories[{l}]");
                    let mut bins = Vec::new();
                    for entry in array(level, &lat)? {
                        let group: Vec<&Value> = match entry {
                            Value::Array(g) => g.iter().collect(),
                            v => vec![v],
                        };
                        let mut codes = Vec::new();
                        for g in group {
                            let name = g.as_str().ok_or_else(|| {
                                format(format!("'{lat}' has a category that is not a string"))
                            })?;
                            let code = match names.iter().position(|n| n == name) {
                                Some(p) => p,
                                None => {
                                    names.push(name.to_string());
                                    names.len() - 1
                                }
                            };
                            if bins.iter().any(|b: &Vec<i64>| b.contains(&(code as i64))) {
                                return Err(format(format!(
                                    "'{lat}': category '{name}' is in two bins"
                                )));
                            }
                            codes.push(code as i64);
                        }
                        bins.push(codes);
                    }
                    per_level.push(bins);
                }
                report.push(format!(
                    "feature '{name}' ({t}): levels matched by name to the EBM's categories; a \
                     level it never saw scores its unseen bin"
                ));
                binnings.push(Binning::Categorical(per_level));
                categories.push(Some(names));
            }
            other => {
                return Err(format(format!(
                    "'{at}': feature type {other:?} is not read (continuous, nominal, ordinal)"
                )));
            }
        }
        columns.push(name.to_string());
    }

    // Terms: one tree each.
    let terms = array(get(ebm, "terms", "ebm")?, "terms")?;
    let mut trees = Vec::with_capacity(terms.len());
    let mut pairs = 0;
    for (t, term) in terms.iter().enumerate() {
        let at = format!("terms[{t}]");
        only_keys(
            term,
            &[
                "term_features",
                "scores",
                "standard_deviations",
                "bagged_scores",
                "bin_weights",
            ],
            &at,
        )?;
        let names = array(
            get(term, "term_features", &at)?,
            &format!("{at}.term_features"),
        )?;
        if names.is_empty() || names.len() > 2 {
            return Err(format(format!(
                "'{at}' has {} features; cfx reads main terms and pairwise interactions",
                names.len()
            )));
        }
        let k = names.len();
        pairs += usize::from(k == 2);
        let mut dims = Vec::with_capacity(k);
        for n in names {
            let n = n
                .as_str()
                .ok_or_else(|| format(format!("'{at}.term_features' is not a list of names")))?;
            let c = columns
                .iter()
                .position(|x| x == n)
                .ok_or_else(|| format(format!("'{at}' uses feature '{n}', which is not listed")))?;
            dims.push(match &binnings[c] {
                Binning::Continuous(levels) => Dim::Continuous(c, &levels[k.min(levels.len()) - 1]),
                Binning::Categorical(levels) => {
                    Dim::Categorical(c, &levels[k.min(levels.len()) - 1])
                }
            });
        }
        if k == 2 && dims[0].column() == dims[1].column() {
            return Err(format(format!("'{at}' pairs a feature with itself")));
        }
        let scores = get(term, "scores", &at)?;
        let mut tree = Tree { nodes: Vec::new() };
        if k == 1 {
            let s = table(scores, dims[0].bins(), &format!("{at}.scores"))?;
            tree.route(&dims[0], &mut |tr, b| {
                tr.nodes.push(LibNode::Leaf(s[b]));
                tr.nodes.len() - 1
            });
        } else {
            let rows = array(scores, &format!("{at}.scores"))?;
            if rows.len() != dims[0].bins() {
                return Err(format(format!(
                    "'{at}.scores' has {} rows, the binning of '{}' {}",
                    rows.len(),
                    columns[dims[0].column()],
                    dims[0].bins()
                )));
            }
            let s: Vec<Vec<f64>> = rows
                .iter()
                .enumerate()
                .map(|(r, row)| table(row, dims[1].bins(), &format!("{at}.scores[{r}]")))
                .collect::<Result<_>>()?;
            let second = &dims[1];
            tree.route(&dims[0], &mut |tr, a| {
                tr.route(second, &mut |tr2, b| {
                    tr2.nodes.push(LibNode::Leaf(s[a][b]));
                    tr2.nodes.len() - 1
                })
            });
        }
        trees.push(tree.nodes);
    }
    report.push(format!(
        "{} terms ({} main, {pairs} pairwise) as one tree each; a value equal to a cut falls in \
         the upper bin (float64); a missing value scores each term's missing bin",
        terms.len(),
        terms.len() - pairs
    ));
    build(
        LibModel {
            output: super::Output::Margin,
            source: Source::Ebm,
            base_score: intercept,
            columns,
            categories,
            trees,
            // No node covers: path-dependent TreeSHAP is unavailable for this
            // model; notices rank its reasons interventionally against the
            // bank's reference population.
            covers: Vec::new(),
            report,
        },
        schema,
        options,
    )
}

impl Dim<'_> {
    fn column(&self) -> usize {
        match self {
            Dim::Continuous(c, _) | Dim::Categorical(c, _) => *c,
        }
    }
}

/// A score vector of exactly `n` finite numbers.
fn table(v: &Value, n: usize, at: &str) -> Result<Vec<f64>> {
    let a = array(v, at)?;
    if a.len() != n {
        return Err(format(format!(
            "'{at}' has {} scores, the feature's binning {n} (missing, bins, unseen)",
            a.len()
        )));
    }
    a.iter().map(|x| number(x, at)).collect()
}
