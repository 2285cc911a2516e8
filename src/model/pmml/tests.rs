//! The PMML importer against jpmml-evaluator's scores (committed by
//! benches/peers/pmml_peers.py), against a direct first-match evaluation of
//! the file's predicates, and against hostile or inexact files.

use super::fields::{self, Seen};
use super::predicate;
use super::xml;
use super::*;
use crate::model::Model;
use crate::model::scorecard::ReasonCodeAlgorithm;
use crate::schema::FeatureKind;

fn data(name: &str) -> std::path::PathBuf {
    std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data/pmml")
        .join(name)
}

fn schema() -> Schema {
    Schema::from_json(&std::fs::read_to_string(data("schema.json")).unwrap()).unwrap()
}

fn csv(name: &str) -> Vec<Vec<String>> {
    std::fs::read_to_string(data(name))
        .unwrap()
        .lines()
        .skip(1)
        .map(|l| l.split(',').map(str::to_string).collect())
        .collect()
}

fn rows() -> Vec<Vec<f64>> {
    csv("rows.csv")
        .iter()
        .map(|r| r.iter().map(|v| v.parse().unwrap()).collect())
        .collect()
}

fn card_opts(accept: Accept, cutoff: f64) -> PmmlOptions {
    PmmlOptions {
        accept: Some(accept),
        cutoff: Some(cutoff),
        ..Default::default()
    }
}

fn sas_card(opts: &PmmlOptions) -> Result<AnyModel> {
    from_pmml_file(&data("scorecard_sas.pmml"), &schema(), opts)
}

fn err(r: Result<AnyModel>) -> String {
    match r {
        Ok(m) => panic!("accepted: {m:?}"),
        Err(e) => e.to_string(),
    }
}

/// Every row of the committed data scores exactly (bit for bit) as
/// jpmml-evaluator scored it, raw and through the encoding; the decision at
/// the cutoff follows.
#[test]
fn the_sas_scorecard_scores_every_row_as_jpmml_evaluator() {
    let s = schema();
    let m = sas_card(&card_opts(Accept::AtOrAbove, 560.0)).unwrap();
    let AnyModel::Scorecard(sc) = &m else {
        panic!("not a scorecard")
    };
    let want = csv("scorecard_sas_scores.csv");
    let rows = rows();
    assert_eq!(rows.len(), 400);
    assert_eq!(want.len(), rows.len());
    let mut accepted = 0;
    for (raw, w) in rows.iter().zip(&want) {
        let expect: f64 = w[1].parse().unwrap();
        assert_eq!(sc.score_raw(&s, raw).unwrap(), expect, "row {raw:?}");
        let x = s.encode(raw).unwrap();
        assert_eq!(m.score(&x), expect, "encoded row {raw:?}");
        assert_eq!(m.accepts(&x), expect >= 560.0);
        accepted += usize::from(expect >= 560.0);
    }
    // Both decisions occur: the cutoff splits the rows.
    assert!(accepted > 20 && accepted < 380, "{accepted}");
    // Reason codes and baselines are kept as the file gives them.
    let r = sc.reasons.as_ref().unwrap();
    assert!(r.use_reason_codes && !r.points_negated);
    assert_eq!(r.algorithm, ReasonCodeAlgorithm::PointsBelow);
    assert_eq!(r.baseline_method.as_deref(), Some("other"));
    assert_eq!(r.characteristics.len(), 5);
    assert_eq!(r.characteristics[0].baseline_score, Some(30.0));
    let age = &r.characteristics[0];
    assert_eq!(age.bins.len(), sc.characteristics[0].bins.len());
    let mid = age.bins.iter().find(|b| b.partial_score == 35.25).unwrap();
    assert_eq!(mid.reason_code.as_deref(), Some("RC_AGE_MID"));
    let inc = &r.characteristics[1];
    assert!(
        inc.bins
            .iter()
            .any(|b| b.reason_code.as_deref() == Some("RC_INC_MISSING"))
    );
    assert!(sc.import_report.iter().any(|l| l.contains("score >= 560")));
}

/// A risk score (accepted at or below the cutoff) becomes cfx points that are
/// the score negated, exactly, with the same decisions.
#[test]
fn a_risk_score_is_negated_exactly() {
    let s = schema();
    let m = sas_card(&card_opts(Accept::AtOrBelow, 560.0)).unwrap();
    for (raw, w) in rows().iter().zip(&csv("scorecard_sas_scores.csv")) {
        let expect: f64 = w[1].parse().unwrap();
        let x = s.encode(raw).unwrap();
        assert_eq!(m.score(&x), -expect);
        assert_eq!(m.accepts(&x), expect <= 560.0);
    }
    let AnyModel::Scorecard(sc) = &m else {
        panic!()
    };
    assert!(sc.reasons.as_ref().unwrap().points_negated);
    // A scaling in the file's units: negative factor for a risk score.
    let mut o = card_opts(Accept::AtOrBelow, 560.0);
    o.scaling = Some(PmmlScaling {
        factor: -20.0,
        offset: 560.0,
    });
    let m = sas_card(&o).unwrap();
    let row = s.encode(&rows()[0]).unwrap();
    let score: f64 = csv("scorecard_sas_scores.csv")[0][1].parse().unwrap();
    let p = m.probability(&row);
    assert!((p - crate::model::sigmoid((score - 560.0) / -20.0)).abs() < 1e-15);
    o.scaling = Some(PmmlScaling {
        factor: 20.0,
        offset: 560.0,
    });
    assert!(err(sas_card(&o)).contains("negative"));
}

/// The resolved bins against a direct reading of the file: for values on,
/// just below and just above every cut point (and the special states and
/// levels), the first attribute whose predicate is TRUE, summed.
#[test]
fn resolved_bins_equal_first_match_on_every_edge() {
    let s = schema();
    let text = std::fs::read_to_string(data("scorecard_sas.pmml")).unwrap();
    let root = xml::parse(&text).unwrap();
    let model = root.one("Scorecard").unwrap().unwrap();
    let opts = card_opts(Accept::AtOrAbove, 0.0);
    let f = fields::read(&root, model, &s, &opts, &mut Vec::new()).unwrap();
    let m = from_pmml_str(&text, &s, &opts).unwrap();
    let AnyModel::Scorecard(sc) = &m else {
        panic!()
    };
    let chars = model.one("Characteristics").unwrap().unwrap();
    for (c, ch) in chars.all("Characteristic").enumerate() {
        let attrs: Vec<(predicate::Predicate, f64)> = ch
            .all("Attribute")
            .map(|a| {
                let p = predicate::the_predicate(a, &[]).unwrap();
                (
                    predicate::read(p, &f.by_name).unwrap(),
                    a.num("partialScore", None).unwrap().unwrap(),
                )
            })
            .collect();
        let mut names = Vec::new();
        attrs[0].0.fields(&mut names);
        let view = &f.by_name[names[0]];
        let i = view.feature;
        let direct = |seen: &Seen| {
            attrs
                .iter()
                .find(|(p, _)| p.eval(seen) == Some(true))
                .map(|a| a.1)
                .unwrap()
        };
        let mut probes: Vec<(f64, Seen)> = Vec::new();
        match &s.features[i].kind {
            FeatureKind::Contiguous {
                lower,
                upper,
                integer,
                special_states,
                ..
            } => {
                let mut cuts = Vec::new();
                for (p, _) in &attrs {
                    p.constants(&mut cuts);
                }
                cuts.extend([*lower, *upper]);
                for c in cuts {
                    for v in [c.next_down(), c, c.next_up(), c - 1.0, c + 1.0] {
                        let v = if *integer { v.round() } else { v };
                        if v >= *lower && v <= *upper {
                            probes.push((v, Seen::Number(v)));
                        }
                    }
                }
                for (j, st) in special_states.iter().enumerate() {
                    probes.push((st.code, view.states[j + 1].clone()));
                }
            }
            FeatureKind::Categorical { levels } => {
                for k in 0..levels.len() {
                    probes.push((k as f64, view.states[k].clone()));
                }
            }
        }
        assert!(probes.len() >= 3);
        for (v, seen) in probes {
            let mut raw = rows()[0].clone();
            raw[i] = v;
            let got = sc.points_by_characteristic(&s, &raw).unwrap()[c];
            assert_eq!(got, direct(&seen), "characteristic {c}, value {v}");
        }
    }
}

/// sklearn2pmml's logistic regression with a one-hot categorical: the
/// probability of the favourable class ("0": did not default) equals
/// jpmml-evaluator's to 1e-12 on every row (the encoding reorders the sum, so
/// not bit for bit), and the decisions agree wherever the two probabilities
/// are on the same side of 0.5.
#[test]
fn the_logistic_regression_scores_every_row_as_jpmml_evaluator() {
    let s = schema();
    let opts = PmmlOptions {
        favourable_class: Some("0".into()),
        ..Default::default()
    };
    let m = from_pmml_file(&data("logistic.pmml"), &s, &opts).unwrap();
    let AnyModel::Linear(lm) = &m else {
        panic!("not linear")
    };
    assert!(
        lm.import_report
            .iter()
            .any(|l| l.contains("class '0' (favourable, declared)"))
    );
    let mut worst: f64 = 0.0;
    for (raw, w) in rows().iter().zip(&csv("logistic_scores.csv")) {
        let p0: f64 = w[1].parse().unwrap();
        let x = s.encode(raw).unwrap();
        let p = m.probability(&x);
        worst = worst.max((p - p0).abs());
        if (p0 - 0.5).abs() > 1e-9 {
            assert_eq!(m.accepts(&x), p0 > 0.5);
        }
    }
    assert!(worst < 1e-12, "{worst}");
    // The other class declared favourable: the complement.
    let opts1 = PmmlOptions {
        favourable_class: Some("1".into()),
        ..Default::default()
    };
    let m1 = from_pmml_file(&data("logistic.pmml"), &s, &opts1).unwrap();
    for (raw, w) in rows().iter().zip(&csv("logistic_scores.csv")).take(50) {
        let p1: f64 = w[2].parse().unwrap();
        assert!((m1.probability(&s.encode(raw).unwrap()) - p1).abs() < 1e-12);
    }
    // Undeclared or unknown favourable class: refused, saying what to give.
    let e = err(from_pmml_file(
        &data("logistic.pmml"),
        &s,
        &PmmlOptions::default(),
    ));
    assert!(e.contains("favourable_class") && e.contains("'1'"), "{e}");
    let bad = PmmlOptions {
        favourable_class: Some("good".into()),
        ..Default::default()
    };
    assert!(err(from_pmml_file(&data("logistic.pmml"), &s, &bad)).contains("'good'"));
}

#[test]
fn a_scorecard_needs_its_decision_declared() {
    let e = err(sas_card(&PmmlOptions::default()));
    assert!(e.contains("at_or_above") && e.contains("cutoff"), "{e}");
    let e = err(sas_card(&PmmlOptions {
        accept: Some(Accept::AtOrAbove),
        ..Default::default()
    }));
    assert!(e.contains("\"cutoff\""), "{e}");
}

/// A small scorecard document around one characteristic's XML.
fn card(characteristic: &str) -> String {
    format!(
        r#"<?xml version="1.0"?>
<PMML xmlns="http://www.dmg.org/PMML-4_4" version="4.4">
  <Header/>
  <DataDictionary>
    <DataField name="age" optype="continuous" dataType="integer"/>
    <DataField name="utilization" optype="continuous" dataType="double"/>
    <DataField name="housing" optype="categorical" dataType="string">
      <Value value="own"/><Value value="rent"/><Value value="other"/>
    </DataField>
  </DataDictionary>
  <Scorecard functionName="regression" initialScore="1">
    <MiningSchema>
      <MiningField name="age"/>
      <MiningField name="utilization"/>
      <MiningField name="housing"/>
    </MiningSchema>
    <Characteristics>
{characteristic}
    </Characteristics>
  </Scorecard>
</PMML>
"#
    )
}

fn small_schema() -> Schema {
    Schema::from_json(
        r#"{"format_version": 1, "features": [
        {"name": "age", "kind": "contiguous", "lower": 18, "upper": 80, "integer": true},
        {"name": "utilization", "kind": "contiguous", "lower": 0, "upper": 1.5},
        {"name": "housing", "kind": "categorical", "levels": ["own", "rent", "other"]}]}"#,
    )
    .unwrap()
}

fn import(text: &str) -> Result<AnyModel> {
    from_pmml_str(text, &small_schema(), &card_opts(Accept::AtOrAbove, 0.0))
}

const AGE_OK: &str =
    r#"<Characteristic name="a"><Attribute partialScore="1"><True/></Attribute></Characteristic>"#;

#[test]
fn the_small_card_is_read() {
    let m = import(&card(AGE_OK));
    // A characteristic that reads no field is refused (cfx bins one feature).
    assert!(err(m).contains("read no field"));
    let ok = r#"<Characteristic name="a">
      <Attribute partialScore="2"><SimplePredicate field="age" operator="lessOrEqual" value="30"/></Attribute>
      <Attribute partialScore="5"><SimplePredicate field="age" operator="greaterOrEqual" value="31"/></Attribute>
    </Characteristic>"#;
    // On an integer feature the gap (30, 31) holds no whole number: read.
    let m = import(&card(ok)).unwrap();
    let s = small_schema();
    let score = |age: f64| m.score(&s.encode(&[age, 0.5, 0.0]).unwrap());
    assert_eq!((score(30.0), score(31.0), score(80.0)), (3.0, 6.0, 6.0));
}

/// Inexact or unsupported content is refused naming the element and its line.
#[test]
fn inexact_files_are_refused_by_element_and_line() {
    let cases: Vec<(String, &str)> = vec![
        (
            card(
                r#"<Characteristic name="gap">
      <Attribute partialScore="2"><SimplePredicate field="utilization" operator="lessThan" value="0.5"/></Attribute>
      <Attribute partialScore="3"><SimplePredicate field="utilization" operator="greaterThan" value="0.5"/></Attribute>
    </Characteristic>"#,
            ),
            "the value 0.5 of feature 'utilization' matches no Attribute",
        ),
        (
            card(
                r#"<Characteristic name="two">
      <Attribute partialScore="2"><CompoundPredicate booleanOperator="and">
        <SimplePredicate field="age" operator="lessThan" value="30"/>
        <SimplePredicate field="utilization" operator="lessThan" value="0.5"/>
      </CompoundPredicate></Attribute>
      <Attribute partialScore="1"><True/></Attribute>
    </Characteristic>"#,
            ),
            "several fields",
        ),
        (
            card(
                r#"<Characteristic name="cx"><Attribute><SimplePredicate field="age" operator="isNotMissing"/>
       <ComplexPartialScore><FieldRef field="age"/></ComplexPartialScore></Attribute></Characteristic>"#,
            ),
            "ComplexPartialScore",
        ),
        (
            card(
                r#"<Characteristic name="lvl"><Attribute partialScore="1"><SimplePredicate field="housing" operator="equal" value="own"/></Attribute></Characteristic>"#,
            ),
            "level 'rent' of feature 'housing' matches no Attribute",
        ),
        (
            card(AGE_OK).replace(
                "<Characteristics>",
                "<LocalTransformations><DerivedField name=\"x\" optype=\"continuous\" dataType=\"double\"/></LocalTransformations>\n<Characteristics>",
            ),
            "<LocalTransformations> (line 17)",
        ),
        (
            card(AGE_OK).replace("initialScore=\"1\"", "initialScore=\"1\" mathContext=\"float\""),
            "mathContext",
        ),
        (
            card(AGE_OK).replace(
                "<Characteristics>",
                "<Targets><Target field=\"s\" rescaleFactor=\"2\"/></Targets><Characteristics>",
            ),
            "rescaleFactor",
        ),
        (
            card(AGE_OK).replace("Scorecard", "TreeModel"),
            "a single TreeModel",
        ),
        (
            card(AGE_OK).replace(
                "<Header/>",
                "<Header/><TransformationDictionary><DefineFunction name=\"f\"/></TransformationDictionary>",
            ),
            "<DefineFunction> (line 3)",
        ),
        (
            card(AGE_OK).replace("<MiningField name=\"age\"/>", "<MiningField name=\"age\" outliers=\"asExtremeValues\"/>"),
            "outliers",
        ),
        (
            card(AGE_OK).replace("dataType=\"double\"", "dataType=\"float\""),
            "single-precision",
        ),
        (
            card(AGE_OK).replace("<MiningField name=\"housing\"/>", "<MiningField name=\"housing\"/><MiningField name=\"income\"/>"),
            "'income' is not in the <DataDictionary>",
        ),
        (
            card(AGE_OK).replace("<Value value=\"other\"/>", ""),
            "level 'other' of feature 'housing' is an invalid value",
        ),
        (
            card(AGE_OK).replace("<Header/>", "<Header/><Bogus/>"),
            "<Bogus> (line 3)",
        ),
    ];
    for (text, says) in cases {
        let e = err(import(&text));
        assert!(e.contains(says), "expected '{says}' in: {e}");
    }
}

#[test]
fn hostile_xml_is_refused() {
    let laughs = r#"<?xml version="1.0"?>
<!DOCTYPE lolz [<!ENTITY lol "lol"><!ENTITY lol2 "&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;">]>
<PMML xmlns="http://www.dmg.org/PMML-4_4" version="4.4"><Header description="&lol2;"/></PMML>"#;
    let external = r#"<?xml version="1.0"?>
<!DOCTYPE PMML [<!ENTITY xxe SYSTEM "file:///etc/passwd">]>
<PMML xmlns="http://www.dmg.org/PMML-4_4"><Header>&xxe;</Header></PMML>"#;
    let base = card(AGE_OK);
    let cases: Vec<(String, &str)> = vec![
        (laughs.into(), "<!DOCTYPE> declaration at line 2"),
        (external.into(), "<!DOCTYPE>"),
        (
            base.replace("<Header/>", "<Header>&xxe;</Header>"),
            "entity reference '&xxe;' at line 3",
        ),
        (
            base.replace("<Header/>", "<Header description=\"&lol;\"/>"),
            "'description' of <Header> at line 3",
        ),
        (
            base.replace("PMML-4_4", "PMML-3_2"),
            "not a PMML 4.x namespace",
        ),
        (
            base.replace(" xmlns=\"http://www.dmg.org/PMML-4_4\"", ""),
            "no PMML namespace",
        ),
        (
            base.replace("<Header/>", "<Header/><x:Model xmlns:x=\"urn:other\"/>"),
            "foreign namespace",
        ),
        (
            base.replace("<Header/>", "<Header xmlns=\"urn:other\"/>"),
            "declares the namespace",
        ),
        (base[..base.len() / 2].to_string(), "truncated"),
        (
            base.replace("</Scorecard>", "</Scorecardx>"),
            "not well-formed",
        ),
        ("not xml at all".into(), "text outside the root element"),
        ("".into(), "no element"),
        ("<Model/>".into(), "must be <PMML>"),
        (format!("{base}<PMML/>"), "second root"),
    ];
    for (text, says) in cases {
        let e = err(import(&text));
        assert!(e.contains(says), "expected '{says}' in: {e}");
    }
    // Predefined entities and character references are fine inside an Extension.
    let ok = base.replace(
        "<Header/>",
        "<Header description=\"a &amp; b &#x41;\"><Extension><y:z xmlns:y=\"urn:y\">&lt;</y:z></Extension></Header>",
    );
    assert!(
        import(&ok)
            .unwrap_err()
            .to_string()
            .contains("read no field")
    );
    // Size limit: refused before parsing.
    let big = format!("{base}{}", " ".repeat(MAX_BYTES));
    assert!(err(import(&big)).contains("limit"));
}

#[test]
fn array_tokens_follow_the_standard() {
    let e = xml::parse(
        r#"<PMML xmlns="http://www.dmg.org/PMML-4_4"><Array n="3" type="string">"a b" c "d\"e"</Array></PMML>"#,
    )
    .unwrap();
    let arr = &e.children[0];
    assert_eq!(xml::array_tokens(arr).unwrap(), vec!["a b", "c", "d\"e"]);
    let bad =
        xml::parse(r#"<PMML xmlns="http://www.dmg.org/PMML-4_4"><Array n="2">a</Array></PMML>"#)
            .unwrap();
    assert!(xml::array_tokens(&bad.children[0]).is_err());
}

/// The file's own score of a raw row, read straight from the document: the
/// scorecard's first TRUE attribute per characteristic (no bins), or the
/// logit of the first regression table (no encoding). An oracle for cfx's
/// answers that shares neither the bin resolution nor the encoding.
fn direct_score(text: &str, s: &Schema, raw: &[f64]) -> f64 {
    let root = xml::parse(text).unwrap();
    let opts = card_opts(Accept::AtOrAbove, 0.0);
    let seen = |f: &fields::Fields, name: &str| -> Seen {
        let v = &f.by_name[name];
        let x = raw[v.feature];
        match &s.features[v.feature].kind {
            FeatureKind::Categorical { .. } => v.states[x as usize].clone(),
            FeatureKind::Contiguous { special_states, .. } => {
                match special_states.iter().position(|st| st.code == x) {
                    Some(j) => v.states[j + 1].clone(),
                    None => Seen::Number(x),
                }
            }
        }
    };
    if let Some(model) = root.one("Scorecard").unwrap() {
        let f = fields::read(&root, model, s, &opts, &mut Vec::new()).unwrap();
        let mut total = model.num("initialScore", Some(0.0)).unwrap().unwrap();
        for ch in model
            .one("Characteristics")
            .unwrap()
            .unwrap()
            .all("Characteristic")
        {
            let attrs: Vec<(predicate::Predicate, f64)> = ch
                .all("Attribute")
                .map(|a| {
                    let p = predicate::read(predicate::the_predicate(a, &[]).unwrap(), &f.by_name)
                        .unwrap();
                    (p, a.num("partialScore", None).unwrap().unwrap())
                })
                .collect();
            let mut names = Vec::new();
            for (p, _) in &attrs {
                p.fields(&mut names);
            }
            let v = seen(&f, names[0]);
            let hit = attrs
                .iter()
                .find_map(|(p, points)| (p.eval(&v) == Some(true)).then_some(*points))
                .unwrap();
            total += hit;
        }
        return total;
    }
    let model = root.one("RegressionModel").unwrap().unwrap();
    let f = fields::read(&root, model, s, &opts, &mut Vec::new()).unwrap();
    let table = model.all("RegressionTable").next().unwrap();
    let mut y = table.num("intercept", None).unwrap().unwrap();
    for p in &table.children {
        let c = p.num("coefficient", None).unwrap().unwrap();
        let name = p.req("name").unwrap();
        match (p.name.as_str(), seen(&f, name)) {
            ("NumericPredictor", Seen::Number(x)) => y += c * x,
            ("CategoricalPredictor", Seen::Text(t)) if t == p.req("value").unwrap() => y += c,
            ("CategoricalPredictor", _) => {}
            other => panic!("{other:?}"),
        }
    }
    y
}

/// Proven-optimal counterfactuals of the first 20 declined applicants of each
/// model, re-scored from the file itself ([`direct_score`]): every one is
/// accepted by the model as the file defines it.
#[test]
fn counterfactuals_are_accepted_by_the_files_own_score() {
    use crate::coherent::{Config, Outcome, explain};
    let s = schema();
    let card = std::fs::read_to_string(data("scorecard_sas.pmml")).unwrap();
    let logit = std::fs::read_to_string(data("logistic.pmml")).unwrap();
    let m_card = from_pmml_str(&card, &s, &card_opts(Accept::AtOrAbove, 560.0)).unwrap();
    let fav0 = PmmlOptions {
        favourable_class: Some("0".into()),
        ..Default::default()
    };
    let m_logit = from_pmml_str(&logit, &s, &fav0).unwrap();
    let rows = rows();
    // The scorecard: accepted iff the file's score >= 560.
    // The logistic model of default: accepted iff P(bad = 1) < 0.5, i.e. y < 0.
    for (m, text, accepted) in [
        (
            &m_card,
            &card,
            &(|y: f64| y >= 560.0) as &dyn Fn(f64) -> bool,
        ),
        (&m_logit, &logit, &|y: f64| y < 0.0),
    ] {
        let mut proven = 0;
        for raw in rows.iter() {
            let y = direct_score(text, &s, raw);
            assert_eq!(m.accepts(&s.encode(raw).unwrap()), accepted(y));
            if accepted(y) {
                continue;
            }
            let ex = explain(&s, m, raw, &Config::default()).unwrap();
            assert_eq!(ex.outcome, Outcome::Optimal);
            let cf = &ex.counterfactuals[0];
            let y_cf = direct_score(text, &s, &cf.raw);
            assert!(accepted(y_cf), "{raw:?} -> {:?}: {y_cf}", cf.raw);
            proven += 1;
            if proven == 20 {
                break;
            }
        }
        assert_eq!(proven, 20);
    }
}

/// The risk scorecard's field treatments against jpmml-evaluator: -9 declared
/// missing and replaced by 30000, delinq's -7 outside its Interval read as
/// missing (`asMissing`), utilization above its Interval read as it is
/// (`asIs`); a risk score accepted at or below the cutoff, negated exactly.
/// Without `asIs`, the schema range beyond the Interval is refused.
#[test]
fn field_treatments_score_as_jpmml_evaluator() {
    let s = schema();
    let text = std::fs::read_to_string(data("scorecard_risk.pmml")).unwrap();
    let m = from_pmml_str(&text, &s, &card_opts(Accept::AtOrBelow, 50.0)).unwrap();
    let want = csv("scorecard_risk_scores.csv");
    let mut seen_missing = [false; 2];
    for (raw, w) in rows().iter().zip(&want) {
        let expect: f64 = w[1].parse().unwrap();
        let x = s.encode(raw).unwrap();
        assert_eq!(m.score(&x), -expect, "row {raw:?}");
        assert_eq!(m.accepts(&x), expect <= 50.0);
        seen_missing[0] |= raw[1] == -9.0;
        seen_missing[1] |= raw[3] == -7.0;
    }
    assert_eq!(seen_missing, [true, true]);
    let AnyModel::Scorecard(sc) = &m else {
        panic!()
    };
    assert!(
        sc.import_report
            .iter()
            .any(|l| l.contains("'delinq': special state -7") && l.contains("missing")),
        "{:?}",
        sc.import_report
    );
    assert!(!sc.reasons.as_ref().unwrap().use_reason_codes);
    let strict = text.replace(
        "<MiningField name=\"utilization\" invalidValueTreatment=\"asIs\"/>",
        "<MiningField name=\"utilization\"/>",
    );
    let e = err(from_pmml_str(
        &strict,
        &s,
        &card_opts(Accept::AtOrBelow, 50.0),
    ));
    assert!(
        e.contains("not inside the field's valid <Interval>s"),
        "{e}"
    );
    let strict = text.replace(
        "<MiningField name=\"delinq\" invalidValueTreatment=\"asMissing\"/>",
        "<MiningField name=\"delinq\"/>",
    );
    let e = err(from_pmml_str(
        &strict,
        &s,
        &card_opts(Accept::AtOrBelow, 50.0),
    ));
    assert!(
        e.contains("special state -7 ('no record') of feature 'delinq' is an invalid value"),
        "{e}"
    );
}

/// The SAS-style scorecard cut at every line end and at every 97th byte:
/// every cut is refused (none is accepted with another score).
#[test]
fn every_truncation_is_refused() {
    let s = schema();
    let text = std::fs::read_to_string(data("scorecard_sas.pmml")).unwrap();
    let opts = card_opts(Accept::AtOrAbove, 560.0);
    let mut cuts: Vec<usize> = text.match_indices('\n').map(|(i, _)| i).collect();
    cuts.extend((0..text.len()).step_by(97));
    let full_end = text.trim_end().len();
    let mut n = 0;
    for c in cuts {
        if c >= full_end || !text.is_char_boundary(c) {
            continue;
        }
        assert!(
            from_pmml_str(&text[..c], &s, &opts).is_err(),
            "accepted when cut at byte {c}"
        );
        n += 1;
    }
    assert!(n > 150, "{n}");
    assert!(from_pmml_str(&text, &s, &opts).is_ok());
}
