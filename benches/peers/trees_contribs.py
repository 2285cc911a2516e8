#!/usr/bin/env python3
"""The libraries' own TreeSHAP values, the oracle of cfx's path-dependent TreeSHAP (issue 40).

For every HELOC row, each peer model of trees_train.py (run it first) gives its
feature contributions: XGBoost's Booster.predict(pred_contribs=True) and
LightGBM's Booster.predict(pred_contrib=True), written as

* target/peers/heloc_xgb_contribs.csv, heloc_xgb_500x6_contribs.csv,
  heloc_lgbm_contribs.csv, heloc_lgbm_500x31_contribs.csv
      header `row,<feature>...,bias`, Python repr of the float64 value
      (XGBoost's float32 values widened exactly).

With --small it also writes the small committed fixture tests/data/notice/:
a synthetic set of 300 rows with four integer features (small_trees.csv),
an XGBoost model (small_xgb.json, 6 trees of depth 3) and a LightGBM model
(small_lgbm.txt, 6 trees of at most 7 leaves) trained on it, and their
contributions (small_xgb_contribs.csv, small_lgbm_contribs.csv), so that the
check runs on machines without the peer environment.

Usage:  python3 benches/peers/trees_contribs.py [--out DIR] [--data PATH] [--small]

It runs in the environment of trees_train.py (same pins, peer_venv.py).
"""

import argparse
import os

import peer_venv
import trees_train

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.abspath(os.path.join(HERE, "..", ".."))
SEED = 20260


def write_contribs(path, names, contribs):
    with open(path, "w") as f:
        f.write("row," + ",".join(names) + ",bias\n")
        for i, row in enumerate(contribs):
            f.write(f"{i}," + ",".join(repr(float(v)) for v in row) + "\n")


def heloc(args):
    import numpy as np
    import pandas as pd
    import xgboost as xgb
    import lightgbm as lgb

    df = pd.read_csv(args.data)
    x = df.drop(columns=["RiskPerformance"]).astype(np.float64)
    names = list(x.columns)
    for model in ["heloc_xgb", "heloc_xgb_500x6"]:
        bst = xgb.Booster(model_file=os.path.join(args.out, model + ".json"))
        bst.set_param({"nthread": 1})
        c = bst.predict(xgb.DMatrix(x.to_numpy(), feature_names=names), pred_contribs=True)
        write_contribs(os.path.join(args.out, model + "_contribs.csv"), names, c)
        print(f"{model}: {c.shape[0]} rows of contributions")
    for model in ["heloc_lgbm", "heloc_lgbm_500x31"]:
        booster = lgb.Booster(model_file=os.path.join(args.out, model + ".txt"))
        c = booster.predict(x, pred_contrib=True, num_threads=1)
        write_contribs(os.path.join(args.out, model + "_contribs.csv"), names, c)
        print(f"{model}: {c.shape[0]} rows of contributions")


def small(out):
    import numpy as np
    import pandas as pd
    import xgboost as xgb
    import lightgbm as lgb

    rng = np.random.default_rng(SEED)
    n = 300
    df = pd.DataFrame({
        "a": rng.integers(0, 20, n).astype(np.float64),
        "b": rng.integers(0, 10, n).astype(np.float64),
        "c": rng.integers(0, 5, n).astype(np.float64),
        "d": rng.integers(0, 50, n).astype(np.float64),
    })
    logit = 0.2 * df["a"] - 0.4 * df["b"] + 0.5 * df["c"] * (df["d"] > 20) - 1.0
    y = (rng.random(n) < 1 / (1 + np.exp(-logit))).astype(np.int64)
    os.makedirs(out, exist_ok=True)
    df.to_csv(os.path.join(out, "small_trees.csv"), index=False)
    names = list(df.columns)
    bst = xgb.train({"objective": "binary:logistic", "max_depth": 3, "eta": 0.3, "seed": SEED,
                     "nthread": 1, "tree_method": "hist"},
                    xgb.DMatrix(df.to_numpy(), label=y, feature_names=names), num_boost_round=6)
    bst.save_model(os.path.join(out, "small_xgb.json"))
    c = bst.predict(xgb.DMatrix(df.to_numpy(), feature_names=names), pred_contribs=True)
    write_contribs(os.path.join(out, "small_xgb_contribs.csv"), names, c)
    booster = lgb.train({"objective": "binary", "num_leaves": 7, "learning_rate": 0.3,
                         "seed": SEED, "deterministic": True, "num_threads": 1,
                         "min_data_in_leaf": 5, "verbose": -1},
                        lgb.Dataset(df, label=y, free_raw_data=False), num_boost_round=6)
    booster.save_model(os.path.join(out, "small_lgbm.txt"))
    c = booster.predict(df, pred_contrib=True, num_threads=1)
    write_contribs(os.path.join(out, "small_lgbm_contribs.csv"), names, c)
    print(f"small fixture written to {out}")


def main():
    peer_venv.enter(trees_train.VENV, trees_train.PINS, __file__)
    p = argparse.ArgumentParser()
    p.add_argument("--out", default=os.path.join(ROOT, "target", "peers"))
    p.add_argument("--data", default=os.path.join(ROOT, "..", "shared", "data", "heloc.csv"))
    p.add_argument("--small", action="store_true")
    args = p.parse_args()
    heloc(args)
    if args.small:
        small(os.path.join(ROOT, "tests", "data", "notice"))


if __name__ == "__main__":
    main()
