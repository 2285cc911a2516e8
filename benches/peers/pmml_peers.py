#!/usr/bin/env python3
"""PMML models and their evaluator's scores for cfx's PMML importer (issue 38).

Writes into tests/data/pmml (committed: `src/model/pmml/tests.rs` checks cfx's
scores against them on every machine, without Java or Python):

* rows.csv
      400 synthetic credit applicants as cfx raw rows of tests/data/pmml/schema.json
      (`housing` as its level index; `income` -9 = missing, `delinq` -7 = no
      record), seeded; values fall on every cut point of the scorecard's predicates
      (20000, 45000.5, 60000, 100000; 0.3, 0.7, 1.2; ages 25, 40, 55) often.
* scorecard_sas_scores.csv
      jpmml-evaluator's score and first three reason codes of every row for the
      hand-written scorecard_sas.pmml (a SAS/FICO-style export: reason codes,
      baselines, compound and set predicates, overlapping attributes, -9 declared
      missing in the DataDictionary).
* scorecard_risk_scores.csv
      jpmml-evaluator's score of every row for the hand-written scorecard_risk.pmml (a risk
      score, low is good: valid Intervals, -9 declared missing and replaced by
      missingValueReplacement, delinq's -7 invalid and read as missing, utilization above its
      Interval read as it is).
* logistic.pmml, logistic_scores.csv
      scikit-learn's LogisticRegression on the four numbers and a one-hot `housing`,
      converted by sklearn2pmml (target `bad`, 1 = defaulted), and jpmml-evaluator's
      probability of each class for every row.

The evaluator is jpmml-evaluator (Java, through JPype): the reference
implementation of the PMML standard the converters are tested with.

Usage:  python3 benches/peers/pmml_peers.py [--out DIR]
Needs Java 17; makes its own pinned environment benches/peers/.venv-pmml.
"""

import argparse
import os

import peer_venv

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.abspath(os.path.join(HERE, "..", ".."))
SEED = 38
LEVELS = ["own", "rent", "other"]
PINS = [
    "jpmml_evaluator==0.16.0",
    "sklearn2pmml==0.133.1",
    "scikit-learn==1.9.0",
    "pandas==3.1.1",
    "numpy==2.4.6",
]


def synthetic(n):
    import numpy as np
    import pandas as pd

    rng = np.random.default_rng(SEED)
    age = rng.integers(18, 81, n)
    age[: n // 10] = rng.choice([24, 25, 26, 40, 41, 54, 55, 56], n // 10)
    income = np.round(np.exp(rng.normal(10.6, 0.7, n)), 2).clip(0, 250000)
    edges = [20000.0, 45000.5, 60000.0, 100000.0, 45000.0, 100000.01]
    k = rng.random(n)
    income = np.where(k < 0.15, rng.choice(edges, n), income)
    income = np.where(k > 0.9, -9.0, income)
    util = np.round(rng.uniform(0, 1.5, n), 2)
    util = np.where(rng.random(n) < 0.15, rng.choice([0.3, 0.7, 1.2, 0.0, 1.5], n), util)
    delinq = rng.poisson(1.2, n).clip(0, 12).astype(float)
    delinq = np.where(rng.random(n) < 0.15, -7.0, delinq)
    housing = rng.choice(LEVELS, n)
    z = (-1.0 + 0.03 * (40 - age) + 2.0 * util + 0.4 * np.where(delinq > 0, delinq, 0)
         - 0.00001 * np.where(income > 0, income, 30000) + 0.5 * (housing == "rent"))
    bad = (rng.random(n) < 1 / (1 + np.exp(-z))).astype(int)
    return pd.DataFrame({"age": age.astype(int), "income": income, "utilization": util,
                         "delinq": delinq.astype(int), "housing": housing, "bad": bad})


def write_rows(path, df):
    with open(path, "w") as f:
        f.write("age,income,utilization,delinq,housing\n")
        for _, r in df.iterrows():
            f.write(f"{int(r['age'])},{float(r['income'])!r},{float(r['utilization'])!r},"
                    f"{int(r['delinq'])},{LEVELS.index(r['housing'])}\n")


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--out", default=os.path.join(ROOT, "tests", "data", "pmml"))
    args = p.parse_args()
    peer_venv.enter(os.path.join(HERE, ".venv-pmml"), PINS, __file__)

    import numpy as np
    from jpmml_evaluator import make_evaluator
    from sklearn.compose import ColumnTransformer
    from sklearn.linear_model import LogisticRegression
    from sklearn.preprocessing import OneHotEncoder
    from sklearn2pmml import sklearn2pmml
    from sklearn2pmml.pipeline import PMMLPipeline

    os.makedirs(args.out, exist_ok=True)
    df = synthetic(400)
    write_rows(os.path.join(args.out, "rows.csv"), df)
    x = df[["age", "income", "utilization", "delinq", "housing"]]

    # The hand-written scorecard, scored by the reference evaluator on the raw rows
    # (-9 is declared missing in its DataDictionary).
    ev = make_evaluator(os.path.join(args.out, "scorecard_sas.pmml")).verify()
    res = ev.evaluateAll(x)
    with open(os.path.join(args.out, "scorecard_sas_scores.csv"), "w") as f:
        f.write("row,score,reason1,reason2,reason3\n")
        for i, r in res.iterrows():
            codes = ["" if not isinstance(r[f"Reason Code {k}"], str) else r[f"Reason Code {k}"]
                     for k in (1, 2, 3)]
            f.write(f"{i},{float(r['Final Score'])!r},{','.join(codes)}\n")

    # The hand-written risk scorecard (field treatments: Intervals, a replaced missing code,
    # an invalid code read as missing, out-of-interval values read as they are).
    ev = make_evaluator(os.path.join(args.out, "scorecard_risk.pmml")).verify()
    res = ev.evaluateAll(x)
    with open(os.path.join(args.out, "scorecard_risk_scores.csv"), "w") as f:
        f.write("row,risk\n")
        for i, r in res.iterrows():
            f.write(f"{i},{float(r['Risk'])!r}\n")

    # Logistic regression with a one-hot categorical, through sklearn2pmml.
    pipe = PMMLPipeline([
        ("ct", ColumnTransformer([
            ("num", "passthrough", ["age", "income", "utilization", "delinq"]),
            ("cat", OneHotEncoder(), ["housing"]),
        ])),
        ("clf", LogisticRegression(max_iter=5000)),
    ])
    pipe.fit(x, df["bad"])
    path = os.path.join(args.out, "logistic.pmml")
    sklearn2pmml(pipe, path)
    ev = make_evaluator(path).verify()
    res = ev.evaluateAll(x)
    sk = pipe.predict_proba(x)
    with open(os.path.join(args.out, "logistic_scores.csv"), "w") as f:
        f.write("row,probability_0,probability_1\n")
        for i, r in res.iterrows():
            f.write(f"{i},{float(r['probability(0)'])!r},{float(r['probability(1)'])!r}\n")
    print("logistic: jpmml vs scikit-learn max |dp| =",
          float(np.max(np.abs(res["probability(1)"].to_numpy() - sk[:, 1]))))
    print("wrote", args.out)


if __name__ == "__main__":
    main()
