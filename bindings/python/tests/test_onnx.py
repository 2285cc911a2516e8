"""The ONNX importer (cfx_model_from_onnx_file) on the committed scikit-learn gradient boosting of
tests/data/onnx: every row gets onnxruntime's probability to float32 precision
(sklearn_gb_scores.csv, written by benches/peers/onnx_peers.py); an undeclared favourable class and
a truncated file are format errors."""

import csv
import os

import pytest

import cfx
from conftest import ROOT

DATA = os.path.join(ROOT, "tests", "data", "onnx")


def test_an_onnx_tree_ensemble_scores_every_row_as_onnxruntime(tmp_path):
    with open(os.path.join(DATA, "rows.csv")) as f:
        rows = [[float(v) for v in r] for r in list(csv.reader(f))[1:]]
    with open(os.path.join(DATA, "sklearn_gb_scores.csv")) as f:
        want = [float(r[1]) for r in list(csv.reader(f))[1:]]
    assert len(rows) == len(want) == 400
    path = os.path.join(DATA, "sklearn_gb.onnx")
    with open(os.path.join(DATA, "schema.json")) as f:
        schema_json = f.read()
    with cfx.Schema.from_json(schema_json) as s, \
            cfx.Model.from_onnx(s, path, {"favourable_class": 1}) as m:
        assert any("TreeEnsembleClassifier" in line for line in m.import_report)
        for raw, w in zip(rows, want):
            p = m.predict_raw(s, raw)
            assert abs(p.probability - w) < 1e-6
            assert p.accepted == (w > 0.5)
        with pytest.raises(cfx.CfxError) as e:
            cfx.Model.from_onnx(s, path)
        assert e.value.status_name == "CFX_STATUS_FORMAT_ERROR"
        assert "favourable_class" in e.value.message
        cut = tmp_path / "cut.onnx"
        cut.write_bytes(open(path, "rb").read()[:500])
        with pytest.raises(cfx.CfxError) as e:
            cfx.Model.from_onnx(s, cut, {"favourable_class": 1})
        assert "protobuf" in e.value.message


def test_an_onnx_model_from_bytes_scores_as_from_the_file():
    """cfx_model_from_onnx_bytes: the file's bytes (bytes, bytearray, memoryview) score every
    committed row bit for bit as the file does; no bytes, garbage and a truncated protobuf are
    format errors, NULL with a length (the raw C call) a NULL_ARGUMENT, and no handle leaks."""
    import ctypes

    from cfx import _enums, _native

    with open(os.path.join(DATA, "rows.csv")) as f:
        rows = [[float(v) for v in r] for r in list(csv.reader(f))[1:]]
    path = os.path.join(DATA, "sklearn_gb.onnx")
    data = open(path, "rb").read()
    opts = {"favourable_class": 1}
    with open(os.path.join(DATA, "schema.json")) as f:
        schema_json = f.read()
    with cfx.Schema.from_json(schema_json) as s, cfx.Model.from_onnx(s, path, opts) as f:
        for form in (data, bytearray(data), memoryview(data)):
            with cfx.Model.from_onnx(s, form, opts) as b:
                assert b.kind == "trees"
                assert b.import_report == f.import_report
                for raw in rows:
                    assert b.predict_raw(s, raw) == f.predict_raw(s, raw)
        for bad, says in ((b"", "no bytes"), (b"not an ONNX model at all", "ONNX"), (data[:500], "protobuf")):
            with pytest.raises(cfx.CfxError) as e:
                cfx.Model.from_onnx(s, bad, opts)
            assert e.value.status_name == "CFX_STATUS_FORMAT_ERROR"
            assert says in e.value.message
        out = ctypes.c_void_p()
        st = _native.LIB.cfx_model_from_onnx_bytes(s.ptr, None, 10, b'{"favourable_class": 1}', ctypes.byref(out))
        assert st == _enums.Status.NULL_ARGUMENT
        assert out.value is None


def test_an_onnx_random_forest_of_default_gives_onnxruntimes_probability_to_the_bit():
    """A forest's score is its averaged votes, not a margin: through the C ABI the favourable
    probability (class 0 here: the model predicts default) is onnxruntime's own float32 output
    (rf_default_balanced_scores.csv, column p0) on every row, and the decision is p0 > 1 − 0.5."""
    import struct

    with open(os.path.join(DATA, "rows.csv")) as f:
        rows = [[float(v) for v in r] for r in list(csv.reader(f))[1:]]
    with open(os.path.join(DATA, "rf_default_balanced_scores.csv")) as f:
        want = [float(r[2]) for r in list(csv.reader(f))[1:]]
    path = os.path.join(DATA, "rf_default_balanced.onnx")
    with open(os.path.join(DATA, "schema.json")) as f:
        schema_json = f.read()
    with cfx.Schema.from_json(schema_json) as s, \
            cfx.Model.from_onnx(s, path, {"favourable_class": 0}) as m:
        assert any("probability" in line and "votes" in line for line in m.import_report)
        for raw, w in zip(rows, want):
            p = m.predict_raw(s, raw)
            as_f32 = struct.unpack("f", struct.pack("f", p.probability))[0]
            assert as_f32 == w
            assert p.accepted == (p.probability > 0.5)
