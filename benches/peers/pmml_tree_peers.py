#!/usr/bin/env python3
"""Boosted tree models in PMML and jpmml-evaluator's scores, for cfx's PMML tree reader.

  python3 benches/peers/pmml_tree_peers.py [write]
        Trains small models on the synthetic applicants of pmml_peers.py (seeded), converts
        each with sklearn2pmml (jpmml-xgboost, jpmml-lightgbm, jpmml-sklearn) into
        tests/data/pmml/trees/<name>.pmml and writes jpmml-evaluator's probabilities of every
        row of tests/data/pmml/rows.csv to <name>_scores.csv, with the margin of class 1 (the
        chain's summed-trees segment evaluated alone by jpmml-evaluator) (committed: the Rust tests in
        src/model/pmml/trees_tests.rs read them on every machine). The models:
          xgb        XGBoost, 30 trees of depth 3, one-hot housing, income -9 as NaN
                     (x-mathContext="float": float32 casts, thresholds, scores and sum)
          xgb_nan2   XGBoost, 60 trees of depth 4, income -9 and delinq -7 as NaN
          lgb        LightGBM, 40 trees of 8 leaves, one-hot housing, income -9 as NaN
          gbc        scikit-learn GradientBoostingClassifier (rescaleFactor = learning rate,
                     missingValueStrategy="nullPrediction"), income -9 as a number
          hgb        scikit-learn HistGradientBoostingClassifier, income -9 as NaN
                     (missingValueStrategy="defaultChild")
          rf         scikit-learn RandomForestClassifier (averaged probabilities, read exactly)
          dt         one DecisionTreeClassifier (a single classification TreeModel: refused)
  python3 benches/peers/pmml_tree_peers.py forests
        Only the adversarial random forests (FORESTS below), in the scorecard environment
        benches/peers/.venv-pmml (no XGBoost needed): each file and jpmml-evaluator's
        probabilities of every row, as `write` does.
  python3 benches/peers/pmml_tree_peers.py forest_counterfactuals
        (after `cargo build --release --lib`) as `counterfactuals`, for the forests rf and
        extra_trees, into forest_counterfactuals.csv (scorecard environment).
  python3 benches/peers/pmml_tree_peers.py counterfactuals
        (after `cargo build --release --lib`) cfx's proven-optimal counterfactuals of the first
        declined rows of two accepted models, re-scored by jpmml-evaluator; written to
        tests/data/pmml/trees/counterfactuals.csv (fails unless jpmml accepts each).

Needs Java 17; makes its own pinned environment benches/peers/.venv-pmml-trees (the
scorecard environment's pins plus XGBoost and LightGBM).
"""

import csv
import os
import sys

import peer_venv

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.abspath(os.path.join(HERE, "..", ".."))
OUT = os.path.join(ROOT, "tests", "data", "pmml", "trees")
VENV = os.path.join(HERE, ".venv-pmml-trees")
PINS = [
    "jpmml_evaluator==0.16.0",
    "sklearn2pmml==0.133.1",
    "scikit-learn==1.9.0",
    "pandas==3.1.1",
    "numpy==2.4.6",
    "xgboost-cpu==3.2.0",
    "lightgbm==4.7.0",
]
NUM = ["age", "income", "utilization", "delinq"]
# name -> (features read as NaN when at their special code)
NAN_FEATURES = {
    "xgb": ["income"], "xgb_nan2": ["income", "delinq"], "lgb": ["income"],
"gbc": [], "hgb": ["income"], "rf": [], "dt": [],
}
CODES = {"income": -9.0, "delinq": -7.0}


def frame(df, nan_features):
    import numpy as np
    x = df[NUM + ["housing"]].copy()
    for f in NUM:
        x[f] = x[f].astype(float)
    for f in nan_features:
        x[f] = x[f].where(x[f] != CODES[f], np.nan)
    return x


def pipelines():
    from lightgbm import LGBMClassifier
    from sklearn.compose import ColumnTransformer
    from sklearn.ensemble import (GradientBoostingClassifier, HistGradientBoostingClassifier,
                                  RandomForestClassifier)
    from sklearn.preprocessing import OneHotEncoder
    from sklearn.tree import DecisionTreeClassifier
    from sklearn2pmml.pipeline import PMMLPipeline
    from xgboost import XGBClassifier

    def onehot(clf):
        return PMMLPipeline([
            ("ct", ColumnTransformer([("num", "passthrough", NUM),
                                      ("cat", OneHotEncoder(), ["housing"])])),
            ("clf", clf)])

    return {
        "xgb": onehot(XGBClassifier(n_estimators=30, max_depth=3, random_state=0)),
        "xgb_nan2": onehot(XGBClassifier(n_estimators=60, max_depth=4, learning_rate=0.2,
                                         random_state=0)),
        "lgb": onehot(LGBMClassifier(n_estimators=40, num_leaves=8, random_state=0,
                                     verbose=-1)),
        "gbc": onehot(GradientBoostingClassifier(n_estimators=30, max_depth=3,
                                                 random_state=0)),
        "hgb": onehot(HistGradientBoostingClassifier(max_iter=30, max_depth=3,
                                                     random_state=0)),
        "rf": onehot(RandomForestClassifier(n_estimators=5, max_depth=3, random_state=0)),
        "dt": onehot(DecisionTreeClassifier(max_depth=3, random_state=0)),
    }


def forests():
    """Adversarial scikit-learn forests: what changes the leaves' record counts (class
    weights, unbounded depth, leaf sizes, no bootstrap) or the trees (extra trees)."""
    from sklearn.compose import ColumnTransformer
    from sklearn.ensemble import ExtraTreesClassifier, RandomForestClassifier
    from sklearn.preprocessing import OneHotEncoder
    from sklearn2pmml.pipeline import PMMLPipeline

    def onehot(clf):
        return PMMLPipeline([
            ("ct", ColumnTransformer([("num", "passthrough", NUM),
                                      ("cat", OneHotEncoder(), ["housing"])])),
            ("clf", clf)])

    return {
        "rf_balanced_deep": onehot(RandomForestClassifier(
            n_estimators=7, max_depth=None, class_weight="balanced", random_state=1)),
        "rf_leaf_nobootstrap": onehot(RandomForestClassifier(
            n_estimators=9, min_samples_leaf=15, bootstrap=False, max_features=2,
            random_state=2)),
        "rf_subsample_weights": onehot(RandomForestClassifier(
            n_estimators=6, max_depth=6, class_weight="balanced_subsample",
            max_samples=0.5, random_state=3)),
        "extra_trees": onehot(ExtraTreesClassifier(
            n_estimators=8, max_depth=5, min_samples_leaf=3, random_state=4)),
    }


def write_models(models):
    """Each pipeline fitted, converted and scored by jpmml-evaluator on every committed row."""
    import numpy as np
    import pandas as pd
    from jpmml_evaluator import make_evaluator
    from sklearn2pmml import sklearn2pmml

    sys.path.insert(0, HERE)
    import pmml_peers

    df = pmml_peers.synthetic(400)
    rows = pd.read_csv(os.path.join(ROOT, "tests", "data", "pmml", "rows.csv"))
    rows["housing"] = [pmml_peers.LEVELS[int(k)] for k in rows["housing"]]
    for name, pipe in models.items():
        x = frame(df, [])
        pipe.fit(x, df["bad"])
        path = os.path.join(OUT, f"{name}.pmml")
        sklearn2pmml(pipe, path)
        res = make_evaluator(path).verify().evaluateAll(frame(rows, []))
        lib = pipe.predict_proba(frame(rows, []))[:, 1]
        p1 = res["probability(1)"].to_numpy(dtype=float)
        print(f"{name}: jpmml vs the library max |dp| = {float(np.max(np.abs(p1 - lib))):.3g}")
        with open(os.path.join(OUT, f"{name}_scores.csv"), "w") as f:
            f.write("row,probability_0,probability_1,margin_1\n")
            for i, r in res.iterrows():
                f.write(f"{i},{float(r['probability(0)'])!r},{float(r['probability(1)'])!r},"
                        "nan\n")


def summed_alone(path, tmp):
    """The document with the chain's first segment (the summed trees and their Targets) as
    its model, so that jpmml-evaluator gives the margin itself (its float32 bits under
    x-mathContext="float"); None for a model that is not such a chain."""
    import re
    t = open(path).read()
    start = t.find('<MiningModel functionName="regression"')
    if start < 0:
        return None
    end = t.index("</MiningModel>", start) + len("</MiningModel>")
    inner = t[start:end].replace("<MiningSchema>",
                                 '<MiningSchema>\n<MiningField name="bad" usageType="target"/>', 1)
    inner = inner.replace("<Target rescale", '<Target field="bad" rescale', 1)
    doc = t[:t.index("<MiningModel")] + inner + "\n</PMML>\n"
    doc = re.sub(r'<DataField name="bad" optype="categorical" dataType="integer">\s*'
                 r'<Value value="0"/>\s*<Value value="1"/>\s*</DataField>',
                 '<DataField name="bad" optype="continuous" dataType="double"/>', doc)
    with open(tmp, "w") as f:
        f.write(doc)
    return tmp


def write():
    import numpy as np
    import pandas as pd
    from jpmml_evaluator import make_evaluator
    from sklearn2pmml import sklearn2pmml

    sys.path.insert(0, HERE)
    import pmml_peers

    os.makedirs(OUT, exist_ok=True)
    df = pmml_peers.synthetic(400)
    # The committed rows are the applicants scored (cfx raw rows of ../schema.json).
    rows = pd.read_csv(os.path.join(ROOT, "tests", "data", "pmml", "rows.csv"))
    rows["housing"] = [pmml_peers.LEVELS[int(k)] for k in rows["housing"]]
    for name, pipe in pipelines().items():
        nan = NAN_FEATURES[name]
        x = frame(df, nan)
        pipe.fit(x, df["bad"])
        path = os.path.join(OUT, f"{name}.pmml")
        sklearn2pmml(pipe, path)
        ev = make_evaluator(path).verify()
        xr = frame(rows, nan)
        res = ev.evaluateAll(xr)
        lib = pipe.predict_proba(xr)[:, 1]
        p1 = res["probability(1)"].to_numpy(dtype=float)
        print(f"{name}: jpmml vs the library max |dp| = {float(np.max(np.abs(p1 - lib))):.3g}")
        alone = summed_alone(path, os.path.join(OUT, "_alone.pmml"))
        margins = ([float("nan")] * len(xr) if alone is None else
                   make_evaluator(alone).verify().evaluateAll(xr)["bad"].to_numpy(dtype=float))
        if alone is not None:
            os.remove(alone)
        with open(os.path.join(OUT, f"{name}_scores.csv"), "w") as f:
            f.write("row,probability_0,probability_1,margin_1\n")
            for i, r in res.iterrows():
                f.write(f"{i},{float(r['probability(0)'])!r},{float(r['probability(1)'])!r},"
                        f"{float(margins[i])!r}\n")
    print("pmml_tree_peers: wrote", OUT)


def counterfactuals(names=("xgb", "hgb"), out="counterfactuals.csv"):
    """cfx's proven-optimal counterfactuals of the first five declined rows of two accepted
    models, re-scored by jpmml-evaluator."""
    import pandas as pd
    from jpmml_evaluator import make_evaluator

    sys.path.insert(0, HERE)
    import pmml_peers
    sys.path.insert(0, os.path.join(ROOT, "bindings", "python", "src"))
    os.environ.setdefault("CFX_LIB", os.path.join(ROOT, "target", "release", "libcfx.so"))
    import cfx

    with open(os.path.join(ROOT, "tests", "data", "pmml", "schema.json")) as f:
        s = cfx.Schema.from_json(f.read())
    rows = pd.read_csv(os.path.join(ROOT, "tests", "data", "pmml", "rows.csv"))
    lines = []
    failed = 0
    for name in names:
        nan = NAN_FEATURES.get(name, [])
        path = os.path.join(OUT, f"{name}.pmml")
        ev = make_evaluator(path).verify()
        opts = {"favourable_class": "0", "special_as_missing": nan}
        with cfx.Model.from_pmml(s, path, opts) as m:
            found = 0
            for i in range(len(rows)):
                row = [float(v) for v in rows.iloc[i]]
                if m.predict_raw(s, row).accepted:
                    continue
                with cfx.explain(s, m, row, cfx.Config(time_limit=30.0)) as res:
                    if res.outcome != "optimal":
                        print(f"FAIL  {name} row {i}: {res.outcome}")
                        failed += 1
                        continue
                    cf = list(res.counterfactual(0))
                x = pd.DataFrame([dict(zip(NUM + ["housing"], cf[:4] + [pmml_peers.LEVELS[int(cf[4])]]))])
                x = frame(x, nan)
                res_cf = ev.evaluateAll(x)
                p_bad = float(res_cf["probability(1)"][0])
                # cfx's rule for the favourable class 0: its own probability above 0.5 (a
                # forest's P(0) and P(1) need not sum to 1 exactly).
                ok = p_bad < 0.5 and float(res_cf["probability(0)"][0]) > 0.5
                failed += not ok
                print(f"{'ok  ' if ok else 'FAIL'}  {name} row {i}: jpmml P(bad) {p_bad:.6g}")
                lines.append([name, i] + [repr(float(v)) for v in cf] + [repr(p_bad)])
                found += 1
                if found == 5:
                    break
    with open(os.path.join(OUT, out), "w", newline="") as fh:
        w = csv.writer(fh, lineterminator="\n")
        w.writerow(["model", "row"] + NUM + ["housing", "jpmml_probability_1"])
        w.writerows(lines)
    if failed:
        sys.exit(f"pmml_tree_peers: {failed} counterfactuals not accepted by jpmml-evaluator")


def main():
    what = sys.argv[1] if len(sys.argv) > 1 else "write"
    if what == "forests":
        sys.path.insert(0, HERE)
        import pmml_peers
        peer_venv.enter(os.path.join(HERE, ".venv-pmml"), pmml_peers.PINS, __file__)
        write_models(forests())
        return
    if what == "forest_counterfactuals":
        sys.path.insert(0, HERE)
        import pmml_peers
        peer_venv.enter(os.path.join(HERE, ".venv-pmml"), pmml_peers.PINS, __file__)
        counterfactuals(("rf", "extra_trees"), "forest_counterfactuals.csv")
        return
    peer_venv.enter(VENV, PINS, __file__)
    if what == "write":
        write()
    elif what == "counterfactuals":
        counterfactuals()
    else:
        sys.exit(__doc__)


if __name__ == "__main__":
    main()
