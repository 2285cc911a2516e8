#!/usr/bin/env python3
"""The bank's HELOC model in each format cfx reads, made by the real producers, with each
producer's own evaluation of every HELOC row: the data of examples/model_formats.rs
(`make model-formats`).

  python3 benches/peers/model_formats_peers.py write [--data ../shared/data/heloc.csv]
        Trains on HELOC's training part (row i with i mod 10 < 7; label RiskPerformance,
        Good = 1 = the favourable class; the special codes -7/-8/-9 passed as the numbers
        they are, as benches/peers/trees_train.py does) and writes into target/peers/formats:

          heloc_scorecard.pmml   the HELOC points scorecard (../shared/data/
                                 heloc_scorecard_table.csv, optbinning 1.0.0) written as a
                                 SAS-style PMML Scorecard: a Characteristic per variable with
                                 reason code and baseline score (the best bin's points), the
                                 Missing bin as isMissing, the Special bin as a
                                 SimpleSetPredicate isIn {-9, -8, -7} before the intervals,
                                 each interval a CompoundPredicate; jpmml-evaluator's score
          heloc_lgbm.pmml        LightGBM 50 trees of at most 8 leaves through sklearn2pmml
                                 (jpmml-lightgbm), a model of default (target Bad, 1 =
                                 defaulted: class 0 is favourable); jpmml-evaluator's
                                 probability(0), the probability of Good
          heloc_logistic.onnx    scikit-learn LogisticRegression (its inputs scaled by each
                                 column's largest |value| for the solver; the scaling folded
                                 into the weights) through skl2onnx; onnxruntime's P(Good)
          heloc_gb.onnx          scikit-learn GradientBoostingClassifier, 100 trees of depth
                                 3, through skl2onnx (TreeEnsembleClassifier); onnxruntime's
                                 P(Good)
          heloc_mlp.onnx         scikit-learn MLPClassifier, one hidden layer of 16 ReLU
                                 units (scaling folded into the first layer) through skl2onnx
          heloc_catboost.json    CatBoost 100 oblivious trees of depth 4, save_model(json);
                                 CatBoost's RawFormulaVal
          heloc_ebm.json         interpret's ExplainableBoostingClassifier (32 bins, 5 pairs
                                 of 8 bins), to_jsonable; ebm.decision_function (and
                                 heloc_ebm.pickle, the fitted object `rescore` evaluates with:
                                 interpret reads no model file back)

        and <model>_scores.csv (`row,score`, Python repr) for every HELOC row. Each producer
        runs in its own pinned environment: .venv-pmml-trees (pmml_tree_peers.py's pins),
        .venv-onnx (onnx_peers.py's), .venv-catboost (catboost_ebm_peers.py's).

  python3 benches/peers/model_formats_peers.py rescore [--dir target/peers/formats]
        Re-scores every <model>_counterfactuals.csv that examples/model_formats.rs wrote (cfx
        raw rows: the applicant's row, cfx's outcome, then the 23 features) with the model's
        producer and writes <model>_rescored.csv (`row,score,accepted`): jpmml-evaluator's
        score (accepted at or above the cutoff) or probability(0) of Good (above 0.5),
        onnxruntime's P(Good), CatBoost's and interpret's predict_proba (above 0.5).
"""

import argparse
import csv
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.abspath(os.path.join(HERE, "..", ".."))
sys.path.insert(0, HERE)
import catboost_ebm_peers  # noqa: E402  (its pins)
import onnx_peers  # noqa: E402
import peer_venv  # noqa: E402
import pmml_tree_peers  # noqa: E402

OUT = os.path.join(ROOT, "target", "peers", "formats")
DATA = os.path.join(ROOT, "..", "shared", "data", "heloc.csv")
TABLE = os.path.join(ROOT, "..", "shared", "data", "heloc_scorecard_table.csv")
SEED = 3838
# The scorecard's cutoff: the points at probability 1/2 of its scaling (examples/scorecard_heloc.rs).
CUTOFF = 630.4667319422892
SPECIAL = [-9.0, -8.0, -7.0]
# model -> (environment, its pins)
ENV = {
    "pmml": (pmml_tree_peers.VENV, pmml_tree_peers.PINS),
    "onnx": (onnx_peers.VENV, onnx_peers.PINS),
    "catboost": (catboost_ebm_peers.VENV, catboost_ebm_peers.PINS),
}
MODELS = {
    "heloc_scorecard": ("pmml", "heloc_scorecard.pmml"),
    "heloc_lgbm": ("pmml", "heloc_lgbm.pmml"),
    "heloc_logistic": ("onnx", "heloc_logistic.onnx"),
    "heloc_gb": ("onnx", "heloc_gb.onnx"),
    "heloc_mlp": ("onnx", "heloc_mlp.onnx"),
    "heloc_catboost": ("catboost", "heloc_catboost.json"),
    "heloc_ebm": ("catboost", "heloc_ebm.json"),
}


def heloc(path):
    """HELOC's feature names, rows (float64) and label (1 = Good), stdlib csv only (the ONNX
    environment has no pandas)."""
    import numpy as np

    with open(path, newline="") as f:
        r = csv.reader(f)
        head = next(r)
        rows = [line for line in r if line]
    k = head.index("RiskPerformance")
    names = [c for i, c in enumerate(head) if i != k]
    x = np.array([[float(v) for i, v in enumerate(line) if i != k] for line in rows])
    y = np.array([int(line[k] == "Good") for line in rows])
    return names, x, y


def train_mask(n):
    import numpy as np

    return np.arange(n) % 10 < 7


def write_scores(path, scores):
    with open(path, "w") as f:
        f.write("row,score\n")
        for i, s in enumerate(scores):
            f.write(f"{i},{float(s)!r}\n")


# ------------------------------------------------------------------------------------------
# PMML (jpmml-evaluator, sklearn2pmml)


def scorecard_pmml(names):
    """The optbinning table as a SAS-style PMML Scorecard (see the module docs)."""
    import re
    from xml.sax.saxutils import quoteattr

    bins = {}
    with open(TABLE, newline="") as f:
        for r in csv.DictReader(f):
            bins.setdefault(r["Variable"], []).append((r["Bin"], float(r["Points"])))
    num = r"(-?inf|-?[0-9.]+)"
    lines = ['<?xml version="1.0" encoding="UTF-8"?>',
             '<PMML xmlns="http://www.dmg.org/PMML-4_4" version="4.4">',
             '  <Header description="HELOC points scorecard (optbinning 1.0.0) as a SAS-style '
             'export"><Application name="cfx benches/peers/model_formats_peers.py"/></Header>',
             f'  <DataDictionary numberOfFields="{len(names) + 1}">']
    for n in names:
        lines.append(f'    <DataField name="{n}" optype="continuous" dataType="double"/>')
    lines.append('    <DataField name="score" optype="continuous" dataType="double"/>')
    lines.append("  </DataDictionary>")
    lines.append('  <Scorecard modelName="heloc_scorecard" functionName="regression" '
                 'useReasonCodes="true" reasonCodeAlgorithm="pointsBelow" initialScore="0" '
                 'baselineMethod="max">')
    lines.append("    <MiningSchema>")
    for n in names:
        lines.append(f'      <MiningField name="{n}" usageType="active"/>')
    lines.append('      <MiningField name="score" usageType="predicted"/>')
    lines.append("    </MiningSchema>")
    lines.append("    <Characteristics>")
    for n in names:
        if n not in bins:
            continue
        best = max(p for _, p in bins[n])
        lines.append(f'      <Characteristic name="{n}Points" reasonCode="RC_{n}" '
                     f'baselineScore="{best!r}">')
        ordered = ([b for b in bins[n] if b[0] == "Missing"] + [b for b in bins[n] if b[0] == "Special"]
                   + [b for b in bins[n] if b[0] not in ("Missing", "Special")])
        for label, points in ordered:
            lines.append(f'        <Attribute partialScore="{points!r}">')
            if label == "Missing":
                lines.append(f'          <SimplePredicate field="{n}" operator="isMissing"/>')
            elif label == "Special":
                codes = " ".join(repr(c) for c in SPECIAL)
                lines.append(f'          <SimpleSetPredicate field="{n}" booleanOperator="isIn">'
                             f'<Array type="real" n="{len(SPECIAL)}">{codes}</Array>'
                             '</SimpleSetPredicate>')
            else:
                m = re.fullmatch(r"([\(\[])" + num + ", " + num + r"([\)\]])", label)
                if m is None:
                    sys.exit(f"model_formats_peers: bin {quoteattr(label)} of {n} is not an interval")
                lo_open, lo, hi, hi_open = m.group(1) == "(", m.group(2), m.group(3), m.group(4) == ")"
                preds = []
                if lo != "-inf":
                    op = "greaterThan" if lo_open else "greaterOrEqual"
                    preds.append(f'<SimplePredicate field="{n}" operator="{op}" value="{lo}"/>')
                if hi != "inf":
                    op = "lessThan" if hi_open else "lessOrEqual"
                    preds.append(f'<SimplePredicate field="{n}" operator="{op}" value="{hi}"/>')
                if not preds:
                    lines.append("          <True/>")
                elif len(preds) == 1:
                    lines.append("          " + preds[0])
                else:
                    lines.append('          <CompoundPredicate booleanOperator="and">')
                    lines.extend("            " + p for p in preds)
                    lines.append("          </CompoundPredicate>")
            lines.append("        </Attribute>")
        lines.append("      </Characteristic>")
    lines.append("    </Characteristics>")
    lines.append("  </Scorecard>")
    lines.append("</PMML>")
    return "\n".join(lines) + "\n"


def pmml_write(out, data):
    import pandas as pd
    from jpmml_evaluator import make_evaluator
    from lightgbm import LGBMClassifier
    from sklearn2pmml import sklearn2pmml
    from sklearn2pmml.pipeline import PMMLPipeline

    names, x, y = heloc(data)
    frame = pd.DataFrame(x, columns=names)
    path = os.path.join(out, "heloc_scorecard.pmml")
    with open(path, "w") as f:
        f.write(scorecard_pmml(names))
    res = make_evaluator(path).verify().evaluateAll(frame)
    write_scores(os.path.join(out, "heloc_scorecard_scores.csv"), res["score"])
    print("model_formats_peers: heloc_scorecard.pmml", flush=True)
    tr = train_mask(len(y))
    pipe = PMMLPipeline([("clf", LGBMClassifier(n_estimators=50, num_leaves=8, random_state=SEED,
                                                n_jobs=1, deterministic=True, verbose=-1))])
    # A model of default, as credit models usually are: the target Bad, 1 = defaulted; the bank
    # accepts class 0, and P(Good) is jpmml-evaluator's probability(0).
    pipe.fit(frame[tr], pd.Series(1 - y[tr], name="Bad"))
    path = os.path.join(out, "heloc_lgbm.pmml")
    sklearn2pmml(pipe, path)
    res = make_evaluator(path).verify().evaluateAll(frame)
    write_scores(os.path.join(out, "heloc_lgbm_scores.csv"), res["probability(0)"])
    print("model_formats_peers: heloc_lgbm.pmml", flush=True)


def pmml_rescore(path, names, x):
    import pandas as pd
    from jpmml_evaluator import make_evaluator

    res = make_evaluator(path).verify().evaluateAll(pd.DataFrame(x, columns=names))
    if "score" in res:
        s = res["score"].to_numpy(dtype=float)
        return s, s >= CUTOFF
    p = res["probability(0)"].to_numpy(dtype=float)  # heloc_lgbm: a model of default
    return p, p > 0.5


# ------------------------------------------------------------------------------------------
# ONNX (skl2onnx, onnxruntime)


def onnx_write(out, data):
    import numpy as np
    from skl2onnx import to_onnx
    from sklearn.ensemble import GradientBoostingClassifier
    from sklearn.linear_model import LogisticRegression
    from sklearn.neural_network import MLPClassifier

    names, x, y = heloc(data)
    tr = train_mask(len(y))
    scale = np.abs(x[tr]).max(axis=0)
    xs = x / scale

    def save(name, model):
        m = to_onnx(model, x[:1].astype(np.float32), target_opset={"": 17, "ai.onnx.ml": 3},
                    options={id(model): {"zipmap": False}})
        path = os.path.join(out, name + ".onnx")
        with open(path, "wb") as f:
            f.write(m.SerializeToString())
        write_scores(os.path.join(out, name + "_scores.csv"), onnx_p1(path, x))
        print(f"model_formats_peers: {name}.onnx", flush=True)

    lr = LogisticRegression(max_iter=5000).fit(xs[tr], y[tr])
    lr.coef_ = lr.coef_ / scale
    save("heloc_logistic", lr)
    gb = GradientBoostingClassifier(n_estimators=100, max_depth=3, random_state=SEED)
    save("heloc_gb", gb.fit(x[tr], y[tr]))
    mlp = MLPClassifier(hidden_layer_sizes=(16,), activation="relu", max_iter=2000,
                        random_state=SEED).fit(xs[tr], y[tr])
    mlp.coefs_[0] = mlp.coefs_[0] / scale[:, None]
    save("heloc_mlp", mlp)


def onnx_p1(path, x):
    import onnxruntime as ort

    sess = ort.InferenceSession(path, providers=["CPUExecutionProvider"])
    return onnx_peers.p1_of(sess, x)


def onnx_rescore(path, names, x):
    p = onnx_p1(path, x)
    return p, p > 0.5


# ------------------------------------------------------------------------------------------
# CatBoost and EBM


def catboost_write(out, data):
    import json
    import pickle

    import pandas as pd
    from catboost import CatBoostClassifier
    from interpret.glassbox import ExplainableBoostingClassifier

    names, x, y = heloc(data)
    tr = train_mask(len(y))
    frame = pd.DataFrame(x, columns=names)
    cb = CatBoostClassifier(iterations=100, depth=4, learning_rate=0.1, random_seed=SEED,
                            thread_count=1, verbose=0, allow_writing_files=False)
    cb.fit(frame[tr], y[tr])
    cb.save_model(os.path.join(out, "heloc_catboost.json"), format="json")
    write_scores(os.path.join(out, "heloc_catboost_scores.csv"),
                 cb.predict(frame, prediction_type="RawFormulaVal"))
    print("model_formats_peers: heloc_catboost.json", flush=True)
    ebm = ExplainableBoostingClassifier(random_state=SEED, n_jobs=1, outer_bags=2, max_bins=32,
                                        interactions=5, max_interaction_bins=8,
                                        feature_types=["continuous"] * len(names))
    ebm.fit(frame[tr], y[tr])
    with open(os.path.join(out, "heloc_ebm.json"), "w") as f:
        json.dump(ebm.to_jsonable(detail="interpretable"), f)
    # The fitted object itself, for `rescore` (interpret reads no model file back).
    with open(os.path.join(out, "heloc_ebm.pickle"), "wb") as f:
        pickle.dump(ebm, f)
    write_scores(os.path.join(out, "heloc_ebm_scores.csv"), ebm.decision_function(frame))
    print("model_formats_peers: heloc_ebm.json", flush=True)


def catboost_rescore(path, names, x):
    import pandas as pd

    frame = pd.DataFrame(x, columns=names)
    if path.endswith("heloc_catboost.json"):
        from catboost import CatBoostClassifier

        m = CatBoostClassifier()
        m.load_model(path, format="json")
        p = m.predict_proba(frame)[:, 1]
    else:
        import pickle

        with open(path[: -len(".json")] + ".pickle", "rb") as f:
            m = pickle.load(f)
        p = m.predict_proba(frame)[:, 1]
    return p, p > 0.5


# ------------------------------------------------------------------------------------------


def rescore(env, out):
    """Re-scores the counterfactual files of the models made in `env` (in its environment)."""
    import numpy as np

    fn = {"pmml": pmml_rescore, "onnx": onnx_rescore, "catboost": catboost_rescore}[env]
    for name, (e, file) in MODELS.items():
        cf = os.path.join(out, f"{name}_counterfactuals.csv")
        if e != env or not os.path.exists(cf):
            continue
        with open(cf, newline="") as f:
            r = csv.reader(f)
            head = next(r)
            lines = [line for line in r if line]
        names = head[2:]
        x = np.array([[float(v) for v in line[2:]] for line in lines]).reshape(-1, len(names))
        score, ok = fn(os.path.join(out, file), names, x) if len(lines) else ([], [])
        with open(os.path.join(out, f"{name}_rescored.csv"), "w") as f:
            f.write("row,score,accepted\n")
            for line, s, a in zip(lines, score, ok):
                f.write(f"{line[0]},{float(s)!r},{int(bool(a))}\n")
        print(f"model_formats_peers: {name}: {int(np.sum(ok))}/{len(lines)} accepted", flush=True)


def main():
    p = argparse.ArgumentParser()
    p.add_argument("what", choices=["write", "rescore"])
    p.add_argument("--data", default=DATA)
    p.add_argument("--dir", default=OUT)
    p.add_argument("--env", choices=sorted(ENV), help=argparse.SUPPRESS)
    args = p.parse_args()
    out = os.path.abspath(args.dir)
    os.makedirs(out, exist_ok=True)
    if args.env is None:
        # Each producer's step in its own environment, one after the other.
        for env, (venv, pins) in ENV.items():
            py = peer_venv.prepare(venv, pins)
            subprocess.check_call([py, os.path.abspath(__file__), args.what, "--data",
                                   os.path.abspath(args.data), "--dir", out, "--env", env])
        return
    if args.what == "write":
        {"pmml": pmml_write, "onnx": onnx_write, "catboost": catboost_write}[args.env](
            out, os.path.abspath(args.data))
    else:
        rescore(args.env, out)


if __name__ == "__main__":
    main()
