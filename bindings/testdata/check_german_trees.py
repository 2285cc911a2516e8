#!/usr/bin/env python3
"""Checks the hand-written German tree models of this folder against the libraries themselves.

Loads german_trees_xgboost.json with XGBoost and german_trees_lightgbm.txt with LightGBM, scores
every row of examples/data/german_credit.csv with each (raw margins), and checks both equal the
margin written out by hand in README.md on every row. Prints the number of declined applicants
(margin <= 0), which the binding tests assert.

Usage (the venv of the tree peers, created by `make peers-trees`):
    benches/peers/.venv-trees/bin/python bindings/testdata/check_german_trees.py
"""

import csv
import os
import sys

import lightgbm as lgb
import numpy as np
import xgboost as xgb

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.abspath(os.path.join(HERE, "..", ".."))


def hand_margin(duration, amount, no_checking):
    t0 = 0.5 if duration < 24 else -0.5
    t1 = (0.5 if duration < 12 else 0.375) if amount < 4000 else -0.375
    t2 = 0.25 if no_checking else -0.25
    return t0 + t1 + t2


def main():
    with open(os.path.join(ROOT, "examples", "data", "german_credit.csv")) as f:
        rows = list(csv.DictReader(f))
    x = np.array([[float(r["duration_in_month"]), float(r["credit_amount"]),
                   1.0 if r["status_of_existing_checking_account"] == "no checking account" else 0.0]
                  for r in rows])
    hand = np.array([hand_margin(d, a, c == 1.0) for d, a, c in x])
    booster = xgb.Booster(model_file=os.path.join(HERE, "german_trees_xgboost.json"))
    m_xgb = booster.predict(xgb.DMatrix(x, feature_names=booster.feature_names), output_margin=True)
    m_lgb = lgb.Booster(model_file=os.path.join(HERE, "german_trees_lightgbm.txt")).predict(x, raw_score=True)
    ok = True
    for name, m in (("XGBoost " + xgb.__version__, m_xgb), ("LightGBM " + lgb.__version__, m_lgb)):
        diff = float(np.max(np.abs(m.astype(np.float64) - hand)))
        print(f"{name}: largest |margin - hand margin| over {len(rows)} rows = {diff}")
        ok = ok and diff == 0.0
    print(f"declined (margin <= 0): {int(np.sum(hand <= 0))}")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
