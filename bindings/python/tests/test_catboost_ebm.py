"""The CatBoost and EBM importers (cfx_model_from_catboost_json_str / _file,
cfx_model_from_ebm_json_str / _file) on the committed models of tests/data/catboost and
tests/data/ebm: every row scores the producer's own margin (CatBoost RawFormulaVal,
interpret's decision_function; written by benches/peers/catboost_ebm_peers.py). The models
predict default, so they are read with favourable_class 0 and cfx's margin is minus the
producer's, on every row that round-trips the encoding. CTR features and multiclass EBMs are refused."""

import csv
import os

import pytest

import cfx
from conftest import ROOT

DATA = os.path.join(ROOT, "tests", "data")
OPTS = {"favourable_class": 0, "special_as_missing": ["debt"], "unseen_levels": {"home": ["council"]}}


def schema():
    return (cfx.SchemaBuilder()
            .add_contiguous("income", 5, 200)
            .add_contiguous("debt", 0, 1.5).add_special_state(-1, "not reported")
            .add_contiguous("age", 18, 80, integer=True)
            .add_categorical("home", ["own", "rent", "mortgage", "council"])
            .add_categorical("purpose", ["car", "house", "study", "business"])
            .build())


def committed(fmt, name):
    with open(os.path.join(DATA, fmt, f"{name}_rows.csv")) as f:
        rows = [[float(v) for v in r] for r in list(csv.reader(f))[1:]]
    with open(os.path.join(DATA, fmt, f"{name}_margins.csv")) as f:
        margins = [float(r[1]) for r in list(csv.reader(f))[1:]]
    return os.path.join(DATA, fmt, f"{name}.json"), rows, margins


@pytest.mark.parametrize("fmt,name,importer", [
    ("catboost", "cb_onehot", cfx.Model.from_catboost),
    ("ebm", "ebm_cat", cfx.Model.from_ebm),
])
def test_every_row_scores_as_the_producer(fmt, name, importer):
    path, rows, margins = committed(fmt, name)
    with open(path) as f:
        text = f.read()
    with schema() as s, importer(s, path, OPTS) as a, importer(s, text, OPTS) as b:
        assert a.to_json() == b.to_json()
        assert any("FAVOURABLE" in l.upper() for l in a.import_report)
        # predict_raw scores the row through the encoding: compared where it round-trips
        # (the rows one float32/float64 step off a border may not; the Rust tests score
        # every row raw).
        compared = 0
        for raw, m in zip(rows, margins):
            try:
                if list(s.decode(s.encode(raw))) != raw:
                    continue
            except cfx.CfxError:  # an edge row off the integer grid of age
                continue
            got = a.predict_raw(s, raw).score
            assert abs(got + m) <= 1e-9 * max(1.0, abs(m)), (raw, got, -m)
            compared += 1
        assert compared >= 100, compared


def test_what_cfx_cannot_read_exactly_is_refused():
    with schema() as s:
        with pytest.raises(cfx.CfxError) as e:
            cfx.Model.from_catboost(s, os.path.join(DATA, "catboost", "cb_ctr.json"), OPTS)
        assert e.value.status_name == "CFX_STATUS_FORMAT_ERROR" and "one_hot_max_size" in e.value.message
        with pytest.raises(cfx.CfxError) as e:
            cfx.Model.from_ebm(s, os.path.join(DATA, "ebm", "ebm_multiclass.json"), OPTS)
        assert "mlogit" in e.value.message
        with pytest.raises(cfx.CfxError) as e:
            cfx.Model.from_ebm(s, os.path.join(DATA, "ebm", "none.json"), OPTS)
        assert e.value.status_name == "CFX_STATUS_IO_ERROR"
