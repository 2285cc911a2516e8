"""Where a schema comes from and what it lets an adviser say: the builder's actionability
setters (against the same schema written as JSON), the weights a schema says it has, a
dataset's schema with weights fitted on its rows (against weights computed by hand), schema
inference from a CSV, the advice presets, and change limits checked by arithmetic."""

import json
import math

import numpy as np
import pytest

import cfx
from conftest import shared_data

SCHEMA_JSON = {
    "format_version": 1,
    "features": [
        {
            "name": "income",
            "kind": "contiguous",
            "lower": 0,
            "upper": 100000,
            "step": 500,
            "special_states": [{"code": -7, "label": "no record"}],
            "actionability": {
                "direction": "increase_only",
                "lower": 1000,
                "upper": 90000,
                "cost_scale": 2.5,
                "forbidden_transitions": [{"from": "value", "to": "no record"}],
            },
        },
        {
            "name": "housing",
            "kind": "categorical",
            "levels": ["rent", "own", "free"],
            "actionability": {"cost_scale": 0.5, "forbidden_transitions": [{"from": "own", "to": "*"}]},
        },
        {
            "name": "age",
            "kind": "contiguous",
            "lower": 18,
            "upper": 99,
            "integer": True,
            "actionability": {"mutable": False},
        },
    ],
}


def find_all(doc, key):
    """Every value of `key` in a JSON document, depth first in document order."""
    out = []
    if isinstance(doc, dict):
        for k, v in doc.items():
            if k == key:
                out.append(v)
            out += find_all(v, key)
    elif isinstance(doc, list):
        for v in doc:
            out += find_all(v, key)
    return out


def test_builder_sets_every_actionability_field_as_json_does():
    with (
        cfx.Schema.from_json(SCHEMA_JSON) as want,
        cfx.SchemaBuilder()
        .add_contiguous("income", 0, 100000)
        .add_special_state(-7, "no record")
        .set_step(500)
        .set_actionability(True, "increase_only")
        .set_actionable_bounds(1000, 90000)
        .set_cost_scale(2.5)
        .add_forbidden_transition("value", "no record")
        .add_categorical("housing", ["rent", "own", "free"])
        .set_cost_scale(0.5)
        .add_forbidden_transition("own", "*")
        .add_contiguous("age", 18, 99, integer=True)
        .set_actionability(False)
        .build() as got,
    ):
        assert got.to_json() == want.to_json()
        assert got.fingerprint() == want.fingerprint()
        assert got.weights_kind == "unit"


def test_builder_refuses_what_does_not_apply():
    with cfx.SchemaBuilder().add_categorical("housing", ["rent", "own"]) as b:
        for call in (
            lambda: b.set_step(1),
            lambda: b.set_actionable_bounds(0, 1),
            lambda: b.set_cost_scale(0),
        ):
            with pytest.raises(cfx.CfxError) as e:
                call()
            assert e.value.status_name == "CFX_STATUS_INVALID_ARGUMENT"
        with pytest.raises(ValueError, match="max_increase kind"):
            b.set_change_limits(("percent", 3))
    b = cfx.SchemaBuilder().add_contiguous("months", 0, 10, integer=True)
    b.add_forbidden_transition("value", "bankrupt")
    with pytest.raises(cfx.CfxError) as e:
        b.build()
    assert e.value.status_name == "CFX_STATUS_NOT_FOUND" and "months" in e.value.message
    with pytest.raises(cfx.CfxError) as e:
        cfx.SchemaBuilder().add_contiguous("months", 0, 10, integer=True).set_step(3).build()
    assert e.value.status_name == "CFX_STATUS_INVALID_SCHEMA"  # 10 is not on the grid 0, 3, 6, 9


def limited(max_decrease):
    return (
        cfx.SchemaBuilder()
        .add_contiguous("amount", 0, 10000)
        .set_change_limits(None, max_decrease)
        .add_contiguous("age", 18, 80, integer=True)
        .set_actionability(False)
        .build()
    )


def test_the_coherent_answer_never_exceeds_a_change_limit():
    # Arithmetic oracle: score 4 − 10·amount/10000 ≥ 0 exactly for amounts ≤ 4000; the applicant
    # asks 5000, so a decrease of at most 10 % (to 4500) leaves no recourse, one of 2000 units
    # puts the answer in [3000, 4000].
    applicant = [5000, 30]
    with (
        cfx.Model.linear([-10.0, 0.0], 4.0) as m,
        limited(("fraction", 0.1)) as tight,
        limited(("units", 2000)) as loose,
    ):
        assert not m.predict_raw(loose, applicant).accepted
        assert find_all(json.loads(tight.to_json()), "fraction") == [0.1]
        with cfx.explain(tight, m, applicant) as r:
            assert r.outcome == "infeasible" and len(r) == 0
        with cfx.explain(loose, m, applicant) as r:
            assert r.outcome == "optimal"
            cf = r.counterfactual(0)
            assert 3000 - 1e-6 <= cf[0] <= 4000 + 1e-6
            assert cf[1] == 30
            assert m.predict_raw(loose, cf).accepted
    with cfx.SchemaBuilder().add_contiguous("m", 0, 10) as b, pytest.raises(cfx.CfxError) as e:
        b.set_change_limits(("units", math.nan))
    assert e.value.status_name == "CFX_STATUS_INVALID_ARGUMENT"


def test_time_growth_and_waiting_reach_the_schema():
    with (
        cfx.SchemaBuilder()
        .add_contiguous("months_since_delinquency", 0, 120, integer=True)
        .add_special_state(-8, "beyond records")
        .set_time_growth(1, "beyond records")
        .add_contiguous("age", 18, 99)
        .set_time_growth(1 / 12)
        .set_waiting(0.05, 36)
        .build() as s
    ):
        doc = json.loads(s.to_json())
        text = s.to_json()
        assert '"max_months": 36' in text and '"cost_per_month": 0.05' in text, text
        assert '"ends_in": "beyond records"' in text, text
        assert find_all(doc["features"][1], "per_month") == [pytest.approx(1 / 12, rel=1e-15)]
        with cfx.Schema.from_json(text) as back:
            assert back.fingerprint() == s.fingerprint()
    with pytest.raises(cfx.CfxError) as e:  # growth without a waiting action
        cfx.SchemaBuilder().add_contiguous("m", 0, 10, integer=True).set_time_growth(1).build()
    assert e.value.status_name == "CFX_STATUS_INVALID_SCHEMA"
    with pytest.raises(cfx.CfxError) as e:
        b = cfx.SchemaBuilder().add_contiguous("m", 0, 10, integer=True)
        b.set_time_growth(1, "gone").set_waiting(1, 12).build()
    assert e.value.status_name == "CFX_STATUS_INVALID_SCHEMA" and "gone" in e.value.message
    with pytest.raises(cfx.CfxError) as e:
        cfx.SchemaBuilder().add_contiguous("m", 0, 10, integer=True).set_waiting(1, 601).build()
    assert e.value.status_name == "CFX_STATUS_INVALID_SCHEMA"


def test_the_german_preset_names_its_limits_and_its_waiting(german_path):
    with cfx.load_german(german_path) as d, d.schema as s, s.advice_preset("german", 0.1) as advice:
        assert "max_decrease" not in s.to_json()
        text = advice.to_json()
        for piece in (
            '"fraction": 0.5',  # the credit amount at most halved
            '"fraction": 0.25',
            '"units": 12',  # duration ±12 months
            '"max_months": 24',
            '"cost_per_month": 0.1',
        ):
            assert piece in text, piece
        assert advice.n_features == s.n_features
        with pytest.raises(cfx.CfxError) as e:
            s.advice_preset("heloc", 0.1)  # the German schema lacks HELOC's features
        assert e.value.status_name == "CFX_STATUS_NOT_FOUND"
        with pytest.raises(cfx.CfxError) as e:
            s.advice_preset("german", math.nan)
        assert e.value.status_name == "CFX_STATUS_INVALID_ARGUMENT"
        with pytest.raises(ValueError):
            s.advice_preset("taiwan", 0.1)


def test_a_dataset_offers_its_schema_with_weights_fitted_on_its_rows(tmp_path):
    # income 0, 2, 4, 10 in [0, 10]: slots 0, .2, .4, 1, median .3, MAD .2, weight 5, anchor .3;
    # housing "own" in 3 of 4 rows: each indicator weighs 1/(1.48·√(3/16)) (Russell 2019, §3.2).
    csv = tmp_path / "four.csv"
    csv.write_text("income,housing,outcome\n0,own,good\n2,own,bad\n4,rent,good\n10,own,good\n")
    schema = {
        "format_version": 1,
        "features": [
            {"name": "income", "kind": "contiguous", "lower": 0, "upper": 10},
            {"name": "housing", "kind": "categorical", "levels": ["rent", "own"]},
        ],
    }
    with (
        cfx.Schema.from_json(schema) as s,
        cfx.Dataset.from_csv(s, csv, "outcome", "good") as d,
        d.schema as own,
        d.fitted_schema() as fitted,
    ):
        assert s.weights_kind == own.weights_kind == "unit"
        assert fitted.weights_kind == "fitted"
        f = fitted.features
        assert find_all(f[0], "value")[0] == pytest.approx(5.0, rel=1e-12)
        assert find_all(f[0], "anchor")[0] == pytest.approx(0.3, rel=1e-12)
        expected = 1 / (1.48 * math.sqrt(3 / 16))
        np.testing.assert_allclose(find_all(f[1], "states")[0], [expected, expected], rtol=1e-12)


def test_schema_inference_from_a_csv_with_caller_given_special_codes(tmp_path):
    csv = tmp_path / "semi.csv"
    csv.write_text(
        "id;months;debt;region;status\na1;12;-7;1;ok\na2;-7;2.5;2;late\na3;24;NA;1;ok\na4;36;0.5;3;ok\n"
    )
    specials = [(-7, "no record", "debt"), (-1, "NA", "debt")]
    with (
        cfx.Dataset.infer_csv(
            csv, "status", "ok", ";", drop=["id"], categorical=["region"], special_codes=specials
        ) as d,
        d.schema as s,
    ):
        assert s.weights_kind == "fitted"
        assert s.feature_names == ["months", "debt", "region"]
        f = s.features
        assert f[2]["levels"] == ["1", "2", "3"]
        assert f[0]["lower"] == -7  # months: −7 is a value there
        assert (f[1]["lower"], f[1]["upper"]) == (0.5, 2.5)  # debt: the range of its other values
        assert [st["label"] for st in f[1]["special_states"]] == ["no record", "NA"]
        np.testing.assert_array_equal(d.row(2), [24, -1, 0])
        assert d.label(1) == 0.0 and list(d.labels) == [1, 0, 1, 1]
    with pytest.raises(cfx.CfxError) as e:  # NA without a state labelled so
        cfx.Dataset.infer_csv(
            csv, "status", "ok", ";", drop=["id"], categorical=["region"], special_codes=specials[:1]
        )
    assert e.value.status_name == "CFX_STATUS_DATA_ERROR" and "debt" in e.value.message
    with pytest.raises(cfx.CfxError) as e:
        cfx.Dataset.infer_csv(csv, "status", "ok", ";", drop=["ident"])
    assert e.value.status_name == "CFX_STATUS_NOT_FOUND"
    with pytest.raises(ValueError):
        cfx.Dataset.infer_csv(csv, "status", "ok", "Ļ")
    with pytest.raises(ValueError):
        cfx.Dataset.infer_csv(csv, "status", "ok", ";", special_codes=[(-7,)])


def test_schema_inference_takes_the_callers_advice_rules(tmp_path):
    # Oracle: the rules given come back in the schema's JSON, untouched features keep the
    # default rules, and the schema's own checks refuse a rule naming no feature.
    csv = tmp_path / "rules.csv"
    csv.write_text("age,months,income,status\n30,12,100,ok\n41,30,80,late\n52,7,120,ok\n")
    rules = {
        "actionability": {
            "age": {"mutable": False},
            "income": {"direction": "increase_only"},
            "months": {"mutable": False, "grows_with_time": {"per_month": 1}},
        },
        "waiting": {"max_months": 12, "cost_per_month": 0.05},
    }
    with cfx.Dataset.infer_csv(csv, "status", "ok", rules=rules) as d, d.schema as s:
        doc = json.loads(s.to_json())
        act = {f["name"]: f.get("actionability", {}) for f in doc["features"]}
        assert act["age"]["mutable"] is False
        assert act["income"]["direction"] == "increase_only"
        assert act["months"]["grows_with_time"]["per_month"] == 1
        assert doc["waiting"] == {"max_months": 12, "cost_per_month": 0.05}
    with cfx.Dataset.infer_csv(csv, "status", "ok") as d, d.schema as s:
        plain = json.loads(s.to_json())
        assert all(f.get("actionability", {}).get("mutable", True) for f in plain["features"])
    with pytest.raises(cfx.CfxError) as e:
        cfx.Dataset.infer_csv(csv, "status", "ok", rules={"actionability": {"salary": {"mutable": False}}})
    assert e.value.status_name == "CFX_STATUS_NOT_FOUND" and "salary" in e.value.message
    with pytest.raises(cfx.CfxError) as e:
        cfx.Dataset.infer_csv(csv, "status", "ok", rules='{"actionabilty": {}}')
    assert e.value.status_name == "CFX_STATUS_FORMAT_ERROR"


def test_heloc_inferred_with_its_special_codes_matches_the_loader():
    heloc = shared_data("heloc.csv")
    codes = [(-7, "condition not met"), (-8, "no usable trades"), (-9, "no bureau record")]
    with (
        cfx.Dataset.infer_csv(heloc, "RiskPerformance", "Good", special_codes=codes) as d,
        cfx.load_heloc(heloc) as known,
        d.schema as s,
        known.schema as k,
    ):
        assert len(d) == len(known)
        assert (s.n_features, s.encoded_dim) == (k.n_features, k.encoded_dim)
        assert s.weights_kind == "fitted"
        np.testing.assert_array_equal(d.row(17), known.row(17))
