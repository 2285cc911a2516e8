#!/usr/bin/env python3
"""ONNX models and onnxruntime's outputs for cfx's ONNX importer (issue 38).

Writes into tests/data/onnx (committed: `src/model/onnx/tests.rs` checks cfx on
every row against them on every machine, without Python):

* schema.json, rows.csv
      the schema (age, income with -9 = missing, utilization, delinq with -7 = no
      record, housing own/rent/other) and 400 seeded synthetic applicants as cfx raw
      rows (`housing` as its level index); values fall on split points often.
* <case>.onnx
      a model written by a real converter (skl2onnx, onnxmltools) or built with
      onnx.helper to exercise one rule, or a hostile file (truncated, garbage, an
      unknown operator, a wrong operator domain).
* <case>_scores.csv
      onnxruntime's probability of class 1 for every row (`row,p1`, the float32
      output widened exactly), the rows fed as float32 as a production pipeline
      feeds them: contiguous values (a special state as its code, or NaN where
      the case says `special_as_missing`), housing as its level index or one-hot.
* cases.json
      per case: the file, the import options cfx is given, and either the scores
      file (accepted: exact on every row) or the words cfx's refusal must contain.

* counterfactuals.csv (--counterfactuals)
      cfx's proven-optimal counterfactuals (through the Python binding and
      target/release/libcfx.so) of the first declined applicants under three
      accepted models (linear, XGBoost trees, ReLU MLP), each re-scored by
      onnxruntime: its probability of the model's second class and whether the
      bank accepts the counterfactual by it (every one must be).

Usage:  python3 benches/peers/onnx_peers.py [--out DIR] [--check] [--counterfactuals]
        --check re-makes every file in a temporary folder and compares the
        scores with the committed ones (the converters and onnxruntime must give
        the same numbers; `make peers-onnx` / `make test-imports`).
        --counterfactuals (after `cargo build --release --lib`) writes and checks
        counterfactuals.csv.
Makes its own pinned environment benches/peers/.venv-onnx (peer_venv.py).
"""

import argparse
import json
import os
import shutil
import sys
import tempfile

import peer_venv

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.abspath(os.path.join(HERE, "..", ".."))
VENV = os.path.join(HERE, ".venv-onnx")
SEED = 3838
N = 400
LEVELS = ["own", "rent", "other"]
PINS = [
    "onnx==1.23.2",
    "onnxruntime==1.31.1",
    "skl2onnx==1.20.0",
    "onnxmltools==1.16.0",
    "onnxconverter-common==1.16.0",
    "scikit-learn==1.9.1",
    "xgboost-cpu==3.2.0",
    "lightgbm==4.7.0",
    "numpy==2.4.6",
    "scipy==1.17.1",
]
SCHEMA = """{
  "format_version": 1,
  "features": [
    {"name": "age", "kind": "contiguous", "lower": 18.0, "upper": 80.0, "integer": true},
    {"name": "income", "kind": "contiguous", "lower": 0.0, "upper": 250000.0,
     "special_states": [{"code": -9.0, "label": "missing"}]},
    {"name": "utilization", "kind": "contiguous", "lower": 0.0, "upper": 1.5},
    {"name": "delinq", "kind": "contiguous", "lower": 0.0, "upper": 12.0, "integer": true,
     "special_states": [{"code": -7.0, "label": "no record"}]},
    {"name": "housing", "kind": "categorical", "levels": ["own", "rent", "other"]}
  ]
}
"""
ONEHOT = ["age", "income", "utilization", "delinq", "housing=own", "housing=rent",
          "housing=other"]


def synthetic(n):
    """Raw rows (age, income, utilization, delinq, housing index) and `bad` (1 = default)."""
    import numpy as np

    rng = np.random.default_rng(SEED)
    age = rng.integers(18, 81, n).astype(float)
    age[: n // 10] = rng.choice([24, 25, 26, 40, 41, 54, 55, 56], n // 10)
    income = np.round(np.exp(rng.normal(10.6, 0.7, n)), 2).clip(0, 250000)
    k = rng.random(n)
    income = np.where(k < 0.15, rng.choice([20000.0, 45000.5, 60000.0, 100000.0], n), income)
    income = np.where(k > 0.9, -9.0, income)
    util = np.round(rng.uniform(0, 1.5, n), 2)
    util = np.where(rng.random(n) < 0.15, rng.choice([0.3, 0.7, 1.2, 0.0, 1.5], n), util)
    delinq = rng.poisson(1.2, n).clip(0, 12).astype(float)
    delinq = np.where(rng.random(n) < 0.15, -7.0, delinq)
    housing = rng.integers(0, 3, n).astype(float)
    z = (-1.0 + 0.03 * (40 - age) + 2.0 * util + 0.4 * np.where(delinq > 0, delinq, 0)
         - 0.00001 * np.where(income > 0, income, 30000) + 0.5 * (housing == 1))
    bad = (rng.random(n) < 1 / (1 + np.exp(-z))).astype(int)
    return np.column_stack([age, income, util, delinq, housing]), bad


def onehot(raw):
    import numpy as np

    h = raw[:, 4].astype(int)
    return np.column_stack([raw[:, :4]] + [(h == k).astype(float) for k in range(3)])


def nan_missing(raw):
    """Income's -9 as NaN (the model was trained to see a missing value)."""
    x = raw.copy()
    x[x[:, 1] == -9.0, 1] = float("nan")
    return x


def p1_of(sess, x):
    """onnxruntime's probability of class 1 per row, as float32."""
    import numpy as np

    inp = sess.get_inputs()[0]
    dtype = np.float64 if inp.type == "tensor(double)" else np.float32
    outs = sess.run(None, {inp.name: x.astype(dtype)})
    for o in outs[::-1]:
        if isinstance(o, list) and o and isinstance(o[0], dict):
            return np.array([d[1] for d in o], dtype=np.float32)
        a = np.asarray(o)
        if a.dtype == np.float32 and a.ndim == 2:
            return a[:, -1]
        if a.dtype == np.float32 and a.ndim == 1:
            return a
        if a.dtype == np.float64 and a.ndim == 2:
            return a[:, -1]
    raise RuntimeError("no probability output")


def p_of(sess, x, k):
    """onnxruntime's probability output, column k (the [N, 2] float tensor)."""
    import numpy as np

    inp = sess.get_inputs()[0]
    dtype = np.float64 if inp.type == "tensor(double)" else np.float32
    for o in sess.run(None, {inp.name: x.astype(dtype)})[::-1]:
        a = np.asarray(o)
        if a.ndim == 2 and a.dtype in (np.float32, np.float64):
            return a[:, k]
    raise RuntimeError("no probability tensor")


def build(out):
    import numpy as np
    import onnx
    import onnxruntime as ort
    from onnx import TensorProto, helper, numpy_helper
    from skl2onnx import to_onnx
    from sklearn.ensemble import (ExtraTreesClassifier, GradientBoostingClassifier,
                                  RandomForestClassifier)
    from sklearn.linear_model import LogisticRegression
    from sklearn.neural_network import MLPClassifier
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import StandardScaler

    os.makedirs(out, exist_ok=True)
    raw, bad = synthetic(N)
    good = 1 - bad
    with open(os.path.join(out, "schema.json"), "w") as f:
        f.write(SCHEMA)
    with open(os.path.join(out, "rows.csv"), "w") as f:
        f.write("age,income,utilization,delinq,housing\n")
        for r in raw:
            f.write(f"{int(r[0])},{float(r[1])!r},{float(r[2])!r},{int(r[3])},{int(r[4])}\n")
    cases = []
    ml = {"": 17, "ai.onnx.ml": 3}

    def save(name, model_bytes, x, options, refuse=None, both=False):
        path = os.path.join(out, name + ".onnx")
        with open(path, "wb") as f:
            f.write(model_bytes)
        case = {"name": name, "file": name + ".onnx", "options": options}
        if refuse is not None:
            case["refuse"] = refuse
        else:
            so = ort.SessionOptions()
            if both:
                # A forest is checked to the bit, so its sum must have one order:
                # onnxruntime sums a row's trees in order on one thread, while a
                # multi-threaded session splits a batch's trees into one block per
                # thread and adds the partial sums (161 of 400 rows of sklearn_rf
                # then differ in the last float32 bit on 2 threads). One thread is
                # also what a single applicant's request gets (below 80 trees).
                so.intra_op_num_threads = 1
            sess = ort.InferenceSession(path, so, providers=["CPUExecutionProvider"])
            p1 = p1_of(sess, x)
            # A forest's two probabilities are two float32 results (the sum, and
            # 1 − the sum): both written, so that either favourable class is
            # checked to the bit.
            p0 = p_of(sess, x, 0) if both else None
            with open(os.path.join(out, name + "_scores.csv"), "w") as f:
                f.write("row,p1,p0\n" if both else "row,p1\n")
                for i, p in enumerate(p1):
                    tail = f",{float(p0[i])!r}" if both else ""
                    f.write(f"{i},{float(p)!r}{tail}\n")
            case["scores"] = name + "_scores.csv"
        cases.append(case)
        print(name, "refused" if refuse else "scored", flush=True)

    def skl(model, x, zipmap=False):
        opts = {id(model): {"zipmap": False}} if not zipmap else None
        return to_onnx(model, x[:1].astype(np.float32), target_opset=ml,
                       options=opts).SerializeToString()

    xo = onehot(raw)
    # 1. Logistic regression of default on one-hot housing (skl2onnx: LinearClassifier +
    #    Normalizer + ZipMap): class 0 (repaid) favourable.
    lr = LogisticRegression(max_iter=5000).fit(xo, bad)
    save("logistic_onehot", skl(lr, xo, zipmap=True), xo,
         {"columns": ONEHOT, "favourable_class": 0})
    # 2. The same model of repayment, no ZipMap, columns in the schema's order (default).
    lr_good = LogisticRegression(max_iter=5000, C=0.5).fit(raw, good)
    save("logistic_ordinal", skl(lr_good, raw), raw, {"favourable_class": 1})
    # 3./4. Hand-made Gemm + Sigmoid and MatMul + Add + Softmax graphs of the same weights.
    w = lr.coef_[0].astype(np.float32)
    b = np.float32(lr.intercept_[0])
    d = xo.shape[1]
    x_in = helper.make_tensor_value_info("X", TensorProto.FLOAT, [None, d])
    gemm = helper.make_graph(
        [helper.make_node("Gemm", ["X", "W", "B"], ["z"], transB=1),
         helper.make_node("Sigmoid", ["z"], ["p"])],
        "gemm_sigmoid", [x_in], [helper.make_tensor_value_info("p", TensorProto.FLOAT, [None, 1])],
        [numpy_helper.from_array(w.reshape(1, d), "W"), numpy_helper.from_array(np.array([b]), "B")])
    m = helper.make_model(gemm, opset_imports=[helper.make_opsetid("", 17)], ir_version=9)
    save("gemm_sigmoid", m.SerializeToString(), xo, {"columns": ONEHOT, "favourable_class": 0})
    w2 = np.stack([np.zeros(d, np.float32), w], axis=1)
    mm = helper.make_graph(
        [helper.make_node("MatMul", ["X", "W"], ["xw"]),
         helper.make_node("Add", ["xw", "B"], ["z"]),
         helper.make_node("Softmax", ["z"], ["p"], axis=1)],
        "matmul_softmax", [x_in], [helper.make_tensor_value_info("p", TensorProto.FLOAT, [None, 2])],
        [numpy_helper.from_array(w2, "W"), numpy_helper.from_array(np.array([0, b], np.float32), "B")])
    m = helper.make_model(mm, opset_imports=[helper.make_opsetid("", 17)], ir_version=9)
    save("matmul_softmax", m.SerializeToString(), xo, {"columns": ONEHOT, "favourable_class": 0})

    # 5. scikit-learn gradient boosting (TreeEnsembleClassifier, LOGISTIC, base_values).
    gb = GradientBoostingClassifier(n_estimators=30, max_depth=3, random_state=SEED).fit(raw, good)
    save("sklearn_gb", skl(gb, raw), raw, {"favourable_class": 1})
    # 6. Random forests (post_transform NONE, one class score: each leaf weight is its
    #    tree's probability of class 1 over the number of trees; onnxruntime sums them in
    #    float32 and writes 1 − the sum for class 0).
    rf = RandomForestClassifier(n_estimators=10, max_depth=4, random_state=SEED).fit(raw, good)
    save("sklearn_rf", skl(rf, raw), raw, {"favourable_class": 1}, both=True)
    #    A model of default (class 0 favourable), balanced class weights, large leaves,
    #    Gini, 40 trees of depth 6.
    rf = RandomForestClassifier(n_estimators=40, max_depth=6, min_samples_leaf=5,
                                class_weight="balanced", random_state=SEED).fit(raw, bad)
    save("rf_default_balanced", skl(rf, raw), raw, {"favourable_class": 0}, both=True)
    #    No bootstrap, every feature at each split, entropy, shallow trees, class weights by
    #    hand, one-hot housing.
    rf = RandomForestClassifier(n_estimators=5, max_depth=3, bootstrap=False, max_features=None,
                                criterion="entropy", class_weight={0: 1.0, 1: 3.0},
                                random_state=SEED).fit(xo, good)
    save("rf_nobootstrap_onehot", skl(rf, xo), xo, {"columns": ONEHOT, "favourable_class": 1},
         both=True)
    #    Unlimited depth with min_samples_leaf=20 and max_samples (bootstrap subsamples).
    rf = RandomForestClassifier(n_estimators=15, min_samples_leaf=20, max_samples=0.5,
                                random_state=SEED).fit(raw, good)
    save("rf_deep_subsampled", skl(rf, raw), raw, {"favourable_class": 1}, both=True)
    #    The same forest on a double input: float32 thresholds widened, summed in double.
    save("rf_double", to_onnx(rf, raw[:1].astype(np.float64), target_opset=ml,
                              options={id(rf): {"zipmap": False}}).SerializeToString(), raw,
         {"favourable_class": 1}, both=True)
    #    Extremely randomised trees (random cut points: thresholds anywhere in the range).
    et = ExtraTreesClassifier(n_estimators=20, max_depth=5, min_samples_leaf=3,
                              random_state=SEED).fit(raw, bad)
    save("extra_trees", skl(et, raw), raw, {"favourable_class": 0}, both=True)
    #    A forest whose votes were tampered with (one negative weight under NONE):
    #    onnxruntime then writes a margin and its negation, not a probability: refused.
    m = onnx.load_from_string(skl(et, raw))
    for node in m.graph.node:
        for a in node.attribute:
            if a.name == "class_weights":
                a.floats[0] = -a.floats[0]
    save("forest_negative_vote", m.SerializeToString(), raw, {"favourable_class": 1},
         refuse="negative leaf weights")
    #    Three classes (no record / none / some delinquencies): refused.
    rf3 = RandomForestClassifier(n_estimators=5, max_depth=3, random_state=SEED).fit(
        raw, np.clip(raw[:, 3], -1, 1).astype(int))
    save("forest_three_classes", skl(rf3, raw), raw, {"favourable_class": 1},
         refuse="class")
    # 7. HistGradientBoosting is not here: skl2onnx 1.20.0 fails to convert it under
    #    scikit-learn 1.9 ("Field onnx.AttributeProto.ints: Expected an int, got a boolean"
    #    for nodes_missing_value_tracks_true). Missing tracks are exercised by XGBoost's
    #    graph and the hand-made modes trees below.
    xn = nan_missing(raw)
    # 8. XGBoost through onnxmltools (BRANCH_LT, NaN tracks), NaN incomes.
    import onnxmltools
    import xgboost as xgb
    from onnxmltools.convert.common.data_types import FloatTensorType

    xg = xgb.XGBClassifier(n_estimators=30, max_depth=3, learning_rate=0.3, random_state=SEED,
                           n_jobs=1).fit(xn, good)
    m = onnxmltools.convert_xgboost(xg, initial_types=[("input", FloatTensorType([None, 5]))],
                                    target_opset=15)
    save("xgboost", m.SerializeToString(), xn,
         {"favourable_class": 1, "special_as_missing": ["income"]})
    # 9. LightGBM through onnxmltools (BRANCH_LEQ), codes as numbers.
    import lightgbm as lgb

    lg = lgb.LGBMClassifier(n_estimators=30, num_leaves=7, random_state=SEED, verbose=-1,
                            n_jobs=1, deterministic=True).fit(raw, bad)
    m = onnxmltools.convert_lightgbm(lg, initial_types=[("input", FloatTensorType([None, 5]))],
                                     target_opset=15, zipmap=False)
    save("lightgbm", m.SerializeToString(), raw, {"favourable_class": 0})
    # 10./11. MLPs: ReLU hidden layers, and tanh.
    for act in ["relu", "tanh"]:
        scale = np.array([80, 250000, 1.5, 12, 1, 1, 1])
        mlp = MLPClassifier(hidden_layer_sizes=(8, 4), activation=act, max_iter=2000,
                            random_state=SEED).fit(xo / scale, bad)
        # The scaling folded into the first layer: the network reads the raw columns.
        mlp.coefs_[0] = mlp.coefs_[0] / scale[:, None]
        save(f"mlp_{act}", skl(mlp, xo), xo, {"columns": ONEHOT, "favourable_class": 0})
    # 12./13. Every node mode, with float and double thresholds, on hand-made trees.
    modes_tree(out, raw, save, helper, TensorProto, np)
    # 14. A scaler in front of the model (an operator cfx does not evaluate): refused.
    pipe = make_pipeline(StandardScaler(), LogisticRegression(max_iter=5000)).fit(raw, good)
    save("scaler_logistic", skl(pipe, raw), raw, {"favourable_class": 1}, refuse="Scaler")
    # Hostile files.
    data = open(os.path.join(out, "sklearn_gb.onnx"), "rb").read()
    save("truncated", data[: len(data) // 2], raw, {"favourable_class": 1}, refuse="protobuf")
    rng = np.random.default_rng(SEED)
    save("garbage", bytes(rng.integers(0, 256, 3000, dtype=np.uint8)), raw,
         {"favourable_class": 1}, refuse="protobuf")
    g = helper.make_graph(
        [helper.make_node("Gemm", ["X", "W", "B"], ["z"], transB=1),
         helper.make_node("Erf", ["z"], ["p"])],
        "unknown_op", [x_in], [helper.make_tensor_value_info("p", TensorProto.FLOAT, [None, 1])],
        [numpy_helper.from_array(w.reshape(1, d), "W"), numpy_helper.from_array(np.array([b]), "B")])
    save("unknown_op", helper.make_model(g, opset_imports=[helper.make_opsetid("", 17)], ir_version=9)
         .SerializeToString(), xo, {"columns": ONEHOT, "favourable_class": 0}, refuse="Erf")
    m = onnx.load_from_string(data)
    for node in m.graph.node:
        if node.op_type == "TreeEnsembleClassifier":
            node.domain = "com.example"
    m.opset_import.append(helper.make_opsetid("com.example", 1))
    save("wrong_domain", m.SerializeToString(), raw, {"favourable_class": 1},
         refuse="com.example")
    with open(os.path.join(out, "cases.json"), "w") as f:
        json.dump(cases, f, indent=1)
        f.write("\n")


def modes_tree(out, raw, save, helper, TensorProto, np):
    """A TreeEnsembleClassifier of six one-split stumps, one per node mode, with
    missing_value_tracks_true on some, thresholds on the data's values (ties; = and ≠ on
    whole-valued features: on a real-valued one cfx refuses them), and
    the same model on a double input with double thresholds (`nodes_values_as_tensor`)
    and leaf weights (`class_weights_as_tensor`), whose comparisons and sums
    onnxruntime makes in double (it refuses double thresholds on a float input)."""
    modes = ["BRANCH_LEQ", "BRANCH_LT", "BRANCH_GTE", "BRANCH_GT", "BRANCH_EQ", "BRANCH_NEQ"]
    feats = [0, 1, 2, 3, 4, 3]
    thr = [40.0, 45000.5, 0.7, 1.0, 1.0, 0.0]
    tracks = [0, 1, 0, 1, 0, 0]
    attrs = {k: [] for k in ["nodes_treeids", "nodes_nodeids", "nodes_featureids",
                             "nodes_modes", "nodes_values", "nodes_truenodeids",
                             "nodes_falsenodeids", "nodes_missing_value_tracks_true",
                             "class_treeids", "class_nodeids", "class_ids", "class_weights"]}
    for t, (mode, f, v, tr) in enumerate(zip(modes, feats, thr, tracks)):
        for nid, m in [(0, mode), (1, "LEAF"), (2, "LEAF")]:
            attrs["nodes_treeids"].append(t)
            attrs["nodes_nodeids"].append(nid)
            attrs["nodes_featureids"].append(f if nid == 0 else 0)
            attrs["nodes_modes"].append(m)
            attrs["nodes_values"].append(v if nid == 0 else 0.0)
            attrs["nodes_truenodeids"].append(1 if nid == 0 else 0)
            attrs["nodes_falsenodeids"].append(2 if nid == 0 else 0)
            attrs["nodes_missing_value_tracks_true"].append(tr if nid == 0 else 0)
        for nid, wgt in [(1, 0.25 + 0.1 * t), (2, -0.3 + 0.05 * t)]:
            attrs["class_treeids"].append(t)
            attrs["class_nodeids"].append(nid)
            attrs["class_ids"].append(0)
            attrs["class_weights"].append(wgt)
    outs = [helper.make_tensor_value_info("label", TensorProto.INT64, [None]),
            helper.make_tensor_value_info("probabilities", TensorProto.FLOAT, [None, 2])]
    x = raw.copy()
    x[x[:, 1] == -9.0, 1] = float("nan")
    for name, double in [("modes_float", False), ("modes_double", True)]:
        a = dict(attrs)
        extra = {}
        if double:
            vals = np.array(a.pop("nodes_values"), dtype=np.float64)
            # A threshold between two float32 values: float inputs compared in double.
            vals[2] = 0.7000000001
            wts = np.array(a.pop("class_weights"), dtype=np.float64) + 1e-9
            extra["nodes_values_as_tensor"] = helper.make_tensor(
                "nv", TensorProto.DOUBLE, [len(vals)], vals)
            extra["class_weights_as_tensor"] = helper.make_tensor(
                "cw", TensorProto.DOUBLE, [len(wts)], wts)
        x_in = helper.make_tensor_value_info(
            "X", TensorProto.DOUBLE if double else TensorProto.FLOAT, [None, 5])
        node = helper.make_node("TreeEnsembleClassifier", ["X"], ["label", "probabilities"],
                                domain="ai.onnx.ml", classlabels_int64s=[0, 1],
                                post_transform="LOGISTIC", base_values=[0.125], **a, **extra)
        g = helper.make_graph([node], name, [x_in], outs)
        m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 17),
                                                helper.make_opsetid("ai.onnx.ml", 3)], ir_version=9)
        save(name, m.SerializeToString(), x,
             {"favourable_class": 1, "special_as_missing": ["income"]})


CF_MODELS = ["logistic_onehot", "xgboost", "mlp_relu", "rf_default_balanced", "extra_trees"]
CF_PER_MODEL = 10


def counterfactuals(out):
    """Explains the first declined applicants of three accepted models with cfx and re-scores
    each proven-optimal counterfactual with onnxruntime."""
    import numpy as np
    import onnxruntime as ort

    os.environ.setdefault("CFX_LIB", os.path.join(ROOT, "target", "release"))
    sys.path.insert(0, os.path.join(ROOT, "bindings", "python", "src"))
    import cfx

    cases = {c["name"]: c for c in json.load(open(os.path.join(out, "cases.json")))}
    rows = np.loadtxt(os.path.join(out, "rows.csv"), delimiter=",", skiprows=1)
    lines = ["model,row,outcome,proved_by,age,income,utilization,delinq,housing,ort_p1,"
             "ort_accepts"]
    bad = 0
    with cfx.Schema.from_json(open(os.path.join(out, "schema.json")).read()) as s:
        for name in CF_MODELS:
            case = cases[name]
            opts = case["options"]
            fav0 = opts.get("favourable_class") == 0
            sess = ort.InferenceSession(os.path.join(out, case["file"]),
                                        providers=["CPUExecutionProvider"])
            done = 0
            with cfx.Model.from_onnx(s, os.path.join(out, case["file"]), opts) as m:
                for i, raw in enumerate(rows):
                    if done == CF_PER_MODEL:
                        break
                    if m.predict_raw(s, list(raw)).accepted:
                        continue
                    done += 1
                    r = cfx.explain(s, m, list(raw))
                    if r.outcome != "optimal":
                        lines.append(f"{name},{i},{r.outcome},,,,,,,,")
                        continue
                    cf = np.array([r.counterfactual(0)])
                    x = onehot(cf) if "columns" in opts else cf
                    if "special_as_missing" in opts:
                        x = nan_missing(x)
                    p1 = float(p1_of(sess, x)[0])
                    ok = p1 < 0.5 if fav0 else p1 > 0.5
                    bad += not ok
                    vals = ",".join(repr(float(v)) for v in cf[0])
                    lines.append(f"{name},{i},optimal,{r.proved_by},{vals},{p1!r},{int(ok)}")
    with open(os.path.join(out, "counterfactuals.csv"), "w") as f:
        f.write("\n".join(lines) + "\n")
    n_opt = sum(1 for l in lines[1:] if ",optimal," in l)
    print(f"onnx_peers: {n_opt} proven-optimal counterfactuals, {n_opt - bad} accepted by "
          f"onnxruntime")
    if bad:
        sys.exit(1)


def check(out_committed):
    tmp = tempfile.mkdtemp(prefix="cfx-onnx-")
    try:
        build(tmp)
        bad = []
        for f in sorted(os.listdir(tmp)):
            if f.endswith(".csv") or f.endswith(".json"):
                a = open(os.path.join(tmp, f)).read()
                try:
                    b = open(os.path.join(out_committed, f)).read()
                except OSError:
                    b = None
                if a != b:
                    bad.append(f)
        if bad:
            print("onnx_peers: differ from the committed files:", ", ".join(bad))
            sys.exit(1)
        print("onnx_peers: every committed score file made again identically")
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--out", default=os.path.join(ROOT, "tests", "data", "onnx"))
    p.add_argument("--check", action="store_true")
    p.add_argument("--counterfactuals", action="store_true")
    args = p.parse_args()
    peer_venv.enter(VENV, PINS, __file__)
    if args.counterfactuals:
        counterfactuals(args.out)
    elif args.check:
        check(args.out)
    else:
        build(args.out)
        print("wrote", args.out)


if __name__ == "__main__":
    main()
