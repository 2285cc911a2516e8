#!/usr/bin/env python3
"""DiCE on cfx's HELOC XGBoost model, for the side-by-side table of issue 15.

Runs DiCE (Mothilal et al., FAT* 2020; dice-ml, methods "random" and
"genetic", one counterfactual each, desired class "opposite", every feature
free to vary within the training data's range) on the first N declined
held-out HELOC applicants (row i is held out when i mod 10 >= 7; declined when
the XGBoost margin is <= 0, i.e. probability <= 0.5, cfx's rule) under the
100-tree model that benches/peers/trees_train.py saved
(target/peers/heloc_xgb.json). DiCE scores through the booster's own
margin. Each call is seeded (random: random_seed; genetic: numpy's and
Python's generators) and timed in wall-clock seconds.

It writes target/peers/trees_dice.jsonl, one line per applicant and method:
  {"peer": "dice-random"|"dice-genetic", "row": <HELOC row index>,
   "seconds": <wall time of the call>, "counterfactual": [23 raw values] | null,
   "error": <message, only when DiCE raised>}
which `cargo run --release --example trees_heloc -- --peers target/peers/trees_dice.jsonl`
evaluates on cfx's terms (validity, coherence with the schema, cost).

OCEAN (Parmentier & Vidal, ICML 2021) needs Gurobi. The script also measures
whether the pip gurobipy's size-limited licence could hold an OCEAN-sized
model of this ensemble: it counts OCEAN's variables (a flow variable per tree
node, one binary per distinct split threshold of each feature) and asks
Gurobi to solve a model with that many variables; it prints Gurobi's answer.

Usage:  python3 benches/peers/trees_dice.py [--n 20] [--genetic-n K] [--out DIR] [--data PATH]
Own virtual environment benches/peers/.venv-dice (pinned below, pip without
cache); not part of `make test`.
"""

import argparse
import json
import os
import random
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.abspath(os.path.join(HERE, "..", ".."))
VENV = os.path.join(HERE, ".venv-dice")
# dice-ml requires xgboost and lightgbm; xgboost's optional NCCL (GPU, 470 MB)
# is removed after install.
PINS = ["dice-ml==0.12", "xgboost==3.2.0", "numpy==2.4.6", "pandas==3.1.1",
        "scikit-learn==1.9.1", "scipy==1.17.1", "gurobipy==13.0.3"]
SEED = 20260


def ensure_venv():
    py = os.path.join(VENV, "bin", "python")
    if os.path.abspath(sys.prefix) == os.path.abspath(VENV):
        return
    if not os.path.exists(py):
        subprocess.check_call([sys.executable, "-m", "venv", VENV])
        subprocess.check_call([py, "-m", "pip", "install", "-q", "--no-cache-dir"] + PINS)
        subprocess.call([py, "-m", "pip", "uninstall", "-q", "-y", "nvidia-nccl-cu12"])
    os.execv(py, [py, os.path.abspath(__file__)] + sys.argv[1:])


class BoosterProba:
    """What DiCE's sklearn backend calls: predict_proba / predict on a frame."""

    def __init__(self, booster, names):
        self.booster = booster
        self.names = names

    def margin(self, frame):
        import xgboost as xgb
        x = frame[self.names].astype("float64").to_numpy()
        return self.booster.predict(xgb.DMatrix(x, feature_names=self.names),
                                    output_margin=True).astype("float64")

    def predict_proba(self, frame):
        import numpy as np
        p = 1.0 / (1.0 + np.exp(-self.margin(frame)))
        return np.column_stack([1.0 - p, p])

    def predict(self, frame):
        return (self.margin(frame) > 0).astype("int64")


def ocean_size(booster):
    """OCEAN's model size for this ensemble: flow variables (one per node of
    every tree) and one binary per distinct threshold of each feature."""
    dump = booster.get_dump(dump_format="json")
    nodes = 0
    thresholds = {}

    def walk(n):
        nonlocal nodes
        nodes += 1
        if "leaf" in n:
            return
        thresholds.setdefault(n["split"], set()).add(n["split_condition"])
        for c in n["children"]:
            walk(c)

    for t in dump:
        walk(json.loads(t))
    return nodes, sum(len(v) for v in thresholds.values())


def gurobi_limit(n_vars):
    """Asks the pip gurobipy to solve a model with n_vars binaries."""
    try:
        import gurobipy as gp
        m = gp.Model()
        m.Params.OutputFlag = 0
        x = m.addVars(n_vars, vtype=gp.GRB.BINARY)
        m.addConstr(gp.quicksum(x.values()) >= 1)
        m.setObjective(gp.quicksum(x.values()))
        m.optimize()
        return f"solved (status {m.Status})"
    except Exception as e:  # the licence's refusal is the measurement
        return f"{type(e).__name__}: {e}"


def main():
    ensure_venv()
    import numpy as np
    import pandas as pd
    import xgboost as xgb
    import dice_ml

    p = argparse.ArgumentParser()
    p.add_argument("--n", type=int, default=20)
    p.add_argument("--genetic-n", type=int, default=None,
                   help="run the genetic method on the first K applicants only (default: all)")
    p.add_argument("--out", default=os.path.join(ROOT, "target", "peers"))
    p.add_argument("--data", default=os.path.join(ROOT, "..", "shared", "data", "heloc.csv"))
    args = p.parse_args()

    df = pd.read_csv(args.data)
    outcome = "RiskPerformance"
    df[outcome] = (df[outcome] == "Good").astype("int64")
    names = [c for c in df.columns if c != outcome]
    df[names] = df[names].astype("int64")
    train = np.arange(len(df)) % 10 < 7
    booster = xgb.Booster()
    booster.load_model(os.path.join(args.out, "heloc_xgb.json"))
    model = BoosterProba(booster, names)
    margins = model.margin(df)
    rows = [i for i in range(len(df)) if not train[i] and margins[i] <= 0][: args.n]

    data = dice_ml.Data(dataframe=df[train].reset_index(drop=True),
                        continuous_features=names, outcome_name=outcome)
    dmodel = dice_ml.Model(model=model, backend="sklearn")
    out_path = os.path.join(args.out, "trees_dice.jsonl")
    with open(out_path, "w") as out:
        for method in ["random", "genetic"]:
            explainer = dice_ml.Dice(data, dmodel, method=method)
            times = []
            todo = rows if method == "random" or args.genetic_n is None else rows[: args.genetic_n]
            for i in todo:
                query = df.loc[[i], names]
                rec = {"peer": f"dice-{method}", "row": i}
                np.random.seed(SEED + i)
                random.seed(SEED + i)
                kw = {"random_seed": SEED + i} if method == "random" else {}
                t = time.perf_counter()
                try:
                    e = explainer.generate_counterfactuals(
                        query, total_CFs=1, desired_class="opposite", verbose=False, **kw)
                    cfs = e.cf_examples_list[0].final_cfs_df
                    cf = None
                    if cfs is not None and len(cfs) > 0:
                        cf = [float(v) for v in cfs.iloc[0][names].to_numpy()]
                    rec["counterfactual"] = cf
                except Exception as ex:
                    rec["counterfactual"] = None
                    rec["error"] = f"{type(ex).__name__}: {ex}"
                rec["seconds"] = time.perf_counter() - t
                times.append(rec["seconds"])
                out.write(json.dumps(rec) + "\n")
                out.flush()
            print(f"dice-{method}: {len(todo)} applicants, median "
                  f"{1e3 * float(np.median(times)):.0f} ms per call")
    nodes, thr = ocean_size(booster)
    print(f"OCEAN's model for this ensemble: {nodes} node flow variables + {thr} threshold "
          f"binaries = {nodes + thr} variables")
    print(f"pip gurobipy on a model of {nodes + thr} binaries: {gurobi_limit(nodes + thr)}")
    print(f"wrote {out_path}")


if __name__ == "__main__":
    main()
