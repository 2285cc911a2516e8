"""The PMML importer (cfx_model_from_pmml_str / _file) on the committed SAS-style scorecard of
tests/data/pmml: every row scores jpmml-evaluator's 'Final Score' (scorecard_sas_scores.csv,
written by benches/peers/pmml_peers.py); an undeclared cutoff and hostile XML are format errors."""

import csv
import os

import pytest

import cfx
from conftest import ROOT

DATA = os.path.join(ROOT, "tests", "data", "pmml")


def test_a_pmml_scorecard_scores_every_row_as_jpmml_evaluator():
    opts = {"accept": "at_or_above", "cutoff": 560}
    with open(os.path.join(DATA, "rows.csv")) as f:
        rows = [[float(v) for v in r] for r in list(csv.reader(f))[1:]]
    with open(os.path.join(DATA, "scorecard_sas_scores.csv")) as f:
        want = [float(r[1]) for r in list(csv.reader(f))[1:]]
    assert len(rows) == len(want) == 400
    path = os.path.join(DATA, "scorecard_sas.pmml")
    with open(path) as f:
        text = f.read()
    with open(os.path.join(DATA, "schema.json")) as f:
        schema_json = f.read()
    with cfx.Schema.from_json(schema_json) as s, cfx.Model.from_pmml(s, path, opts) as a, \
            cfx.Model.from_pmml(s, text, '{"accept": "at_or_above", "cutoff": 560}') as b:
        assert a.to_json() == b.to_json()
        assert any("score >= 560" in line for line in a.import_report)
        for raw, w in zip(rows, want):
            p = a.predict_raw(s, raw)
            assert p.score == w
            assert p.accepted == (w >= 560)
        with pytest.raises(cfx.CfxError) as e:
            cfx.Model.from_pmml(s, path)
        assert e.value.status_name == "CFX_STATUS_FORMAT_ERROR" and "at_or_above" in e.value.message
        with pytest.raises(cfx.CfxError) as e:
            cfx.Model.from_pmml(s, "<!DOCTYPE x><PMML/>", opts)
        assert "DOCTYPE" in e.value.message
        with pytest.raises(cfx.CfxError) as e:
            cfx.Model.from_pmml(s, os.path.join(DATA, "none.pmml"), opts)
        assert e.value.status_name == "CFX_STATUS_IO_ERROR"


def test_a_boosted_pmml_model_scores_every_row_as_jpmml_evaluator():
    """sklearn2pmml's XGBoost file (x-mathContext="float") through the same entry point: a tree
    ensemble whose margin equals jpmml-evaluator's bit for bit on every row (margin_1 of
    trees/xgb_scores.csv, written by benches/peers/pmml_tree_peers.py); a random forest's
    averaged probabilities are refused."""
    with open(os.path.join(DATA, "rows.csv")) as f:
        rows = [[float(v) for v in r] for r in list(csv.reader(f))[1:]]
    with open(os.path.join(DATA, "trees", "xgb_scores.csv")) as f:
        want = [(float(r[1]), float(r[3])) for r in list(csv.reader(f))[1:]]
    with open(os.path.join(DATA, "schema.json")) as f:
        schema_json = f.read()
    opts = {"favourable_class": "1", "special_as_missing": ["income"]}
    with cfx.Schema.from_json(schema_json) as s, \
            cfx.Model.from_pmml(s, os.path.join(DATA, "trees", "xgb.pmml"), opts) as m:
        for raw, (p0, margin) in zip(rows, want):
            p = m.predict_raw(s, raw)
            assert p.score == margin
            assert p.accepted == (p0 < 0.5)
        # A random forest whose trees predict null where income's specials (declared missing)
        # arrive: refused, naming the strategy; without that declaration it is read.
        with pytest.raises(cfx.CfxError) as e:
            cfx.Model.from_pmml(s, os.path.join(DATA, "trees", "rf.pmml"), opts)
        assert e.value.status_name == "CFX_STATUS_FORMAT_ERROR"
        assert "nullPrediction" in e.value.message and "line" in e.value.message
        with cfx.Model.from_pmml(s, os.path.join(DATA, "trees", "rf.pmml"),
                                 {"favourable_class": "1"}) as rf:
            assert rf.kind == "trees"
