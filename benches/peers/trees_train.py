#!/usr/bin/env python3
"""Peer models for cfx's tree ensembles (issue 15): XGBoost and LightGBM on FICO HELOC.

Trains, with fixed seeds and single-threaded so that every run gives the same bits,

* XGBoost: 100 trees of depth 4, objective binary:logistic;
* LightGBM: 100 trees of at most 15 leaves, objective binary, deterministic;

on HELOC's training part (the fixed split: row i is held out when i mod 10 >= 7;
label RiskPerformance, Good = favourable = 1; the special codes -7/-8/-9 passed
as the numbers they are), and writes into the output folder (default
target/peers, relative to the checkout):

* heloc_xgb.json       Booster.save_model (XGBoost's JSON model)
* heloc_lgbm.txt       Booster.save_model (LightGBM's text model)
* heloc_xgb_margins.csv, heloc_lgbm_margins.csv
                       each library's raw margin (output_margin / raw_score)
                       for every HELOC row, header `row,margin`, Python repr
                       of the float64 value (XGBoost's float32 margins are
                       widened exactly first)
* heloc_xgb_500x6.json, heloc_lgbm_500x31.txt and their *_margins.csv
                       production-size models for the tree search's scale
                       figures (examples/trees_scale.rs): XGBoost 500 trees of
                       depth 6 (eta 0.05), LightGBM 500 trees of at most 31
                       leaves (learning rate 0.05), same data, seeds and settings
* heloc_xgb_1000x8.json, heloc_lgbm_1000x63.txt and their *_margins.csv
                       the size banks run (issue 43): XGBoost 1000 trees of
                       depth 8, LightGBM 1000 trees of at most 63 leaves, both
                       at learning rate 0.05, same data, seeds and settings
* heloc_xgb_retrained.json, heloc_xgb_500x6_retrained.json
                       "the next model" for robust advice (examples/trees_robust.rs):
                       the XGBoost 100x4 and 500x6 models trained again with
                       another seed (SEED + 1) and row subsampling 0.8 (subsample;
                       every other setting, the data and the split as above)
* small_nan_cat_xgb.json, small_nan_cat_lgbm.txt, small_nan_cat.csv,
  small_nan_cat_{xgb,lgbm}_margins.csv
                       a small synthetic model pair with missing values (NaN)
                       and a native categorical column, with its rows, for
                       the evaluation rules that HELOC does not exercise

Usage:  python3 benches/peers/trees_train.py [--out DIR] [--data PATH] [--retrained-only] [--large-only]

(--retrained-only writes the two retrained models alone, --large-only the two
1000-tree models alone.)

It creates its own virtual environment in benches/peers/.venv-trees (pinned
versions below, from PyPI; made again when they change, peer_venv.py) and
re-executes itself there, so it runs unattended on a fresh machine. The pins
include scikit-learn, which this script does not use: the live-object tests
(bindings/python/tests_live) run in this environment and pass XGBoost's and
LightGBM's scikit-learn wrappers into cfx. It prints the time each step took.
"""

import argparse
import os
import time

import peer_venv

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.abspath(os.path.join(HERE, "..", ".."))
VENV = os.path.join(HERE, ".venv-trees")
PINS = ["xgboost-cpu==3.2.0", "lightgbm==4.7.0", "numpy==2.4.6", "pandas==3.1.1",
        "scipy==1.17.1", "scikit-learn==1.9.1"]
SEED = 20260
N_TREES = 100


def ensure_venv():
    peer_venv.enter(VENV, PINS, __file__)


def write_margins(path, margins):
    with open(path, "w") as f:
        f.write("row,margin\n")
        for i, m in enumerate(margins):
            f.write(f"{i},{float(m)!r}\n")


def heloc_data(args):
    """HELOC's rows, labels (1 = Good), column names and the fixed 70 % training mask."""
    import numpy as np
    import pandas as pd

    df = pd.read_csv(args.data)
    y = (df["RiskPerformance"] == "Good").astype(np.int64).to_numpy()
    x = df.drop(columns=["RiskPerformance"]).astype(np.float64)
    return x, y, list(x.columns), np.arange(len(df)) % 10 < 7


def train_xgb(data, out, name, depth, eta, rounds):
    """One XGBoost model on the training part, saved as `name`.json with its margins on every row."""
    import numpy as np
    import xgboost as xgb

    x, y, names, train = data
    t = time.perf_counter()
    dtrain = xgb.DMatrix(x[train].to_numpy(), label=y[train], feature_names=names)
    bst = xgb.train(
        {"objective": "binary:logistic", "max_depth": depth, "eta": eta, "seed": SEED,
         "nthread": 1, "tree_method": "hist"},
        dtrain, num_boost_round=rounds)
    bst.save_model(os.path.join(out, f"{name}.json"))
    margins = bst.predict(xgb.DMatrix(x.to_numpy(), feature_names=names), output_margin=True)
    write_margins(os.path.join(out, f"{name}_margins.csv"), margins)
    acc = np.mean((margins[~train] > 0) == (y[~train] == 1))
    print(f"xgboost: {rounds} trees of depth {depth}, held-out accuracy {acc:.3f}, "
          f"{time.perf_counter() - t:.2f} s")


def train_lgbm(data, out, name, leaves, eta, rounds):
    """One LightGBM model on the training part, saved as `name`.txt with its margins on every row."""
    import numpy as np
    import lightgbm as lgb

    x, y, names, train = data
    t = time.perf_counter()
    ds = lgb.Dataset(x[train], label=y[train], feature_name=names, free_raw_data=False)
    booster = lgb.train(
        {"objective": "binary", "num_leaves": leaves, "learning_rate": eta, "seed": SEED,
         "deterministic": True, "num_threads": 1, "force_row_wise": True, "verbose": -1},
        ds, num_boost_round=rounds)
    booster.save_model(os.path.join(out, f"{name}.txt"))
    raw = booster.predict(x, raw_score=True)
    write_margins(os.path.join(out, f"{name}_margins.csv"), raw)
    acc = np.mean((raw[~train] > 0) == (y[~train] == 1))
    print(f"lightgbm: {rounds} trees of {leaves} leaves, held-out accuracy {acc:.3f}, "
          f"{time.perf_counter() - t:.2f} s")


def heloc(args, out):
    """The test models (100 trees) and production-size ones (issue 24's scale figures)."""
    data = heloc_data(args)
    train_xgb(data, out, "heloc_xgb", 4, 0.1, N_TREES)
    train_lgbm(data, out, "heloc_lgbm", 15, 0.1, N_TREES)
    train_xgb(data, out, "heloc_xgb_500x6", 6, 0.05, 500)
    train_lgbm(data, out, "heloc_lgbm_500x31", 31, 0.05, 500)


def large(args, out):
    """The 1000-tree models (issue 43): XGBoost depth 8, LightGBM 63 leaves, eta 0.05."""
    data = heloc_data(args)
    train_xgb(data, out, "heloc_xgb_1000x8", 8, 0.05, 1000)
    train_lgbm(data, out, "heloc_lgbm_1000x63", 63, 0.05, 1000)


def retrained(args, out):
    """The XGBoost models again, with another seed and row subsampling."""
    import numpy as np
    import xgboost as xgb

    x, y, names, train = heloc_data(args)
    dtrain = xgb.DMatrix(x[train].to_numpy(), label=y[train], feature_names=names)
    for depth, eta, rounds, name in [(4, 0.1, N_TREES, "heloc_xgb_retrained.json"),
                                     (6, 0.05, 500, "heloc_xgb_500x6_retrained.json")]:
        t = time.perf_counter()
        bst = xgb.train(
            {"objective": "binary:logistic", "max_depth": depth, "eta": eta, "seed": SEED + 1,
             "subsample": 0.8, "nthread": 1, "tree_method": "hist"},
            dtrain, num_boost_round=rounds)
        bst.save_model(os.path.join(out, name))
        margins = bst.predict(xgb.DMatrix(x.to_numpy(), feature_names=names), output_margin=True)
        acc = np.mean((margins[~train] > 0) == (y[~train] == 1))
        print(f"xgboost retrained: {rounds} trees of depth {depth}, subsample 0.8, seed "
              f"{SEED + 1}, held-out accuracy {acc:.3f}, {time.perf_counter() - t:.2f} s")


def small_nan_cat(out):
    """A synthetic set with NaN in a numeric column and a native categorical column."""
    import numpy as np
    import pandas as pd
    import xgboost as xgb
    import lightgbm as lgb

    rng = np.random.default_rng(SEED)
    n = 600
    a = rng.normal(0.0, 1.0, n)
    a[rng.random(n) < 0.2] = np.nan
    b = rng.integers(0, 10, n).astype(np.float64)
    c = rng.integers(0, 4, n)
    logit = np.nan_to_num(a, nan=1.0) + 0.3 * b - 1.5 + np.array([0.0, 1.5, -1.0, 0.5])[c]
    y = (rng.random(n) < 1 / (1 + np.exp(-logit))).astype(np.int64)
    levels = ["red", "green", "blue", "grey"]
    df = pd.DataFrame({"a": a, "b": b, "c": pd.Categorical.from_codes(c, categories=levels)})
    df_out = df.copy()
    df_out["c"] = c  # the level index, as a cfx raw row holds it
    df_out.to_csv(os.path.join(out, "small_nan_cat.csv"), index=False)

    dtrain = xgb.DMatrix(df, label=y, enable_categorical=True)
    bst = xgb.train({"objective": "binary:logistic", "max_depth": 3, "eta": 0.3, "seed": SEED,
                     "nthread": 1, "tree_method": "hist", "max_cat_to_onehot": 1},
                    dtrain, num_boost_round=8)
    bst.save_model(os.path.join(out, "small_nan_cat_xgb.json"))
    write_margins(os.path.join(out, "small_nan_cat_xgb_margins.csv"),
                  bst.predict(xgb.DMatrix(df, enable_categorical=True), output_margin=True))

    ds = lgb.Dataset(df, label=y, categorical_feature=["c"], free_raw_data=False)
    booster = lgb.train({"objective": "binary", "num_leaves": 7, "learning_rate": 0.3,
                         "seed": SEED, "deterministic": True, "num_threads": 1,
                         "min_data_per_group": 5, "cat_smooth": 1.0, "verbose": -1},
                        ds, num_boost_round=8)
    booster.save_model(os.path.join(out, "small_nan_cat_lgbm.txt"))
    write_margins(os.path.join(out, "small_nan_cat_lgbm_margins.csv"),
                  booster.predict(df, raw_score=True))
    print("small model with NaN and a categorical column written")


def main():
    ensure_venv()
    p = argparse.ArgumentParser()
    p.add_argument("--out", default=os.path.join(ROOT, "target", "peers"))
    p.add_argument("--data", default=os.path.join(ROOT, "..", "shared", "data", "heloc.csv"))
    p.add_argument("--retrained-only", action="store_true")
    p.add_argument("--large-only", action="store_true")
    args = p.parse_args()
    os.makedirs(args.out, exist_ok=True)
    t = time.perf_counter()
    if args.large_only:
        large(args, args.out)
    else:
        if not args.retrained_only:
            heloc(args, args.out)
            small_nan_cat(args.out)
            large(args, args.out)
        retrained(args, args.out)
    print(f"trees_train: done in {time.perf_counter() - t:.1f} s, output in {args.out}")


if __name__ == "__main__":
    main()
