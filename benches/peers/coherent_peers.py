#!/usr/bin/env python3
"""Peer comparison for cfx's coherent MIP (Russell 2019).

On the same logistic model and the same declined applicants (exported by
`cargo run --release --example coherent_peers_export`), this runs

* the very same MIP through `highspy` (Python bindings of the same HiGHS 1.16),
* DiCE (`dice-ml`), random and genetic methods, 1 and 5 counterfactuals,

and tabulates per-counterfactual time, validity, coherence, actionability,
cost and sparsity next to cfx's own numbers. Usage:

    python3 benches/peers/coherent_peers.py [german] [heloc] [--n 20]

It creates its own virtual environment in benches/peers/.venv (pip: numpy,
pandas, scikit-learn, highspy, and dice-ml installed without its heavy optional
dependencies, as in the project's peer notes) and re-executes itself there.
Results go to benches/peers/out/coherent_peers.md (and .json).
"""

import json
import os
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.abspath(os.path.join(HERE, "..", ".."))
VENV = os.path.join(HERE, ".venv")
OUT = os.path.join(HERE, "out")
TOL = 1e-6


def ensure_venv():
    py = os.path.join(VENV, "bin", "python")
    if os.path.abspath(sys.prefix) == os.path.abspath(VENV):
        return
    if not os.path.exists(py):
        subprocess.check_call([sys.executable, "-m", "venv", VENV])
        pip = [py, "-m", "pip", "install", "-q"]
        subprocess.check_call(pip + ["numpy", "pandas", "scikit-learn", "tqdm", "jsonschema",
                                     "requests", "highspy"])
        subprocess.check_call(pip + ["--no-deps", "dice-ml", "raiutils"])
    os.execv(py, [py, os.path.abspath(__file__)] + sys.argv[1:])


# --------------------------------------------------------------------------
# The schema's semantics, re-implemented from cfx's documentation (encoding of
# Russell 2019 §3, the cost of seed-formulas §1.3, actionability rules).
# --------------------------------------------------------------------------

class Schema:
    def __init__(self, doc):
        self.features = doc["features"]
        self.names = [f["name"] for f in self.features]

    def is_cont(self, i):
        return self.features[i]["kind"] == "contiguous"

    def specials(self, i):
        return [s["code"] for s in self.features[i].get("special_states", [])]

    def state(self, i, v):
        """State index or None when the value is incoherent."""
        f = self.features[i]
        if f["kind"] == "categorical":
            k = round(v)
            return k if abs(v - k) <= TOL and 0 <= k < len(f["levels"]) else None
        sp = self.specials(i)
        if v in sp:
            return sp.index(v) + 1
        lo, hi = f["lower"], f["upper"]
        if v < lo - TOL or v > hi + TOL:
            return None
        tol = TOL * max(hi - lo, 1.0)
        if f.get("step"):
            k = round((v - lo) / f["step"])
            if abs(lo + k * f["step"] - v) > tol:
                return None
        if f.get("integer") and abs(v - round(v)) > tol:
            return None
        return 0

    def slot(self, i, v):
        f = self.features[i]
        return (v - f["lower"]) / (f["upper"] - f["lower"]) if f["upper"] > f["lower"] else 0.0

    def encode_lenient(self, row):
        """The encoding the model sees; out-of-range values give out-of-range slots."""
        out = []
        for i, f in enumerate(self.features):
            v = row[i]
            if f["kind"] == "categorical":
                k = int(round(v))
                out += [1.0 if j == k else 0.0 for j in range(len(f["levels"]))]
            else:
                sp = self.specials(i)
                if v in sp:
                    out.append(f.get("fixed_value", 0.0))
                    out += [1.0 if c == v else 0.0 for c in sp]
                else:
                    out.append(self.slot(i, v))
                    out += [0.0] * len(sp)
        return out

    def weights(self, i):
        f = self.features[i]
        w = dict(f["weights"])
        c = f.get("actionability", {}).get("cost_scale", 1.0)
        w["value"] *= c
        w["states"] = [s * c for s in w["states"]]
        return w

    def action_range(self, i):
        f = self.features[i]
        a = f.get("actionability", {})
        return a.get("lower", f["lower"]), a.get("upper", f["upper"])

    def cost(self, a, b):
        total = 0.0
        for i, f in enumerate(self.features):
            sa, sb = self.state(i, a[i]), self.state(i, b[i])
            w = self.weights(i)
            if f["kind"] == "categorical":
                total += 0.0 if sa == sb else w["states"][sa] + w["states"][sb]
                continue
            ind = lambda s: 0.0 if s == 0 else w["states"][s - 1]
            if sa == 0 and sb == 0:
                total += w["value"] * abs(self.slot(i, b[i]) - self.slot(i, a[i]))
            elif sa == 0:
                total += ind(sb)
            elif sb == 0:
                lo, hi = self.action_range(i)
                anchor = min(max(w["anchor"], self.slot(i, lo)), self.slot(i, hi))
                total += ind(sa) + w["value"] * abs(self.slot(i, b[i]) - anchor)
            elif sa != sb:
                total += ind(sa) + ind(sb)
        return total

    def state_name(self, i, s):
        f = self.features[i]
        if f["kind"] == "categorical":
            return [f["levels"][s]]
        if s == 0:
            return ["value"]
        sp = f["special_states"][s - 1]
        return [sp["label"], str(sp["code"]), "%g" % sp["code"]]

    def actionable(self, a, b):
        for i, f in enumerate(self.features):
            if abs(a[i] - b[i]) <= TOL:
                continue
            act = f.get("actionability", {})
            if act.get("mutable", True) is False:
                return False
            sa, sb = self.state(i, a[i]), self.state(i, b[i])
            for t in act.get("forbidden_transitions", []):
                fr_ok = t["from"] == "*" or t["from"] in self.state_name(i, sa)
                to_ok = t["to"] == "*" or t["to"] in self.state_name(i, sb)
                if fr_ok and to_ok and sa != sb:
                    return False
            d = act.get("direction", "any")
            ordered = (f["kind"] == "categorical") or (sa == 0 and sb == 0)
            if ordered and d == "increase_only" and b[i] < a[i] - TOL:
                return False
            if ordered and d == "decrease_only" and b[i] > a[i] + TOL:
                return False
            if sb == 0 and f["kind"] == "contiguous":
                lo, hi = self.action_range(i)
                if b[i] < lo - TOL or b[i] > hi + TOL:
                    return False
        return True


def median(xs):
    xs = sorted(xs)
    return xs[len(xs) // 2] if xs else float("nan")


def mean(xs):
    return sum(xs) / len(xs) if xs else float("nan")


# --------------------------------------------------------------------------

def run_highspy(doc):
    import highspy
    import numpy as np
    times, gaps = [], []
    for mip, cf in zip(doc["mips"], doc["cfx_optimal"]):
        t = time.perf_counter()
        h = highspy.Highs()
        for k, v in [("output_flag", False), ("threads", 1), ("random_seed", 0),
                     ("mip_rel_gap", 1e-9), ("mip_abs_gap", 1e-9),
                     ("primal_feasibility_tolerance", 1e-9), ("mip_feasibility_tolerance", 1e-9),
                     ("mip_heuristic_run_feasibility_jump", False)]:
            h.setOptionValue(k, v)
        lp = highspy.HighsLp()
        n, m = len(mip["cost"]), len(mip["row_lower"])
        lp.num_col_, lp.num_row_ = n, m
        lp.offset_ = mip["offset"]
        lp.col_cost_ = np.array(mip["cost"])
        inf = highspy.kHighsInf
        fix = lambda xs: np.array([inf if x >= 1e30 else (-inf if x <= -1e30 else x) for x in xs])
        lp.col_lower_, lp.col_upper_ = fix(mip["lower"]), fix(mip["upper"])
        lp.row_lower_, lp.row_upper_ = fix(mip["row_lower"]), fix(mip["row_upper"])
        lp.a_matrix_.format_ = highspy.MatrixFormat.kRowwise
        lp.a_matrix_.num_col_, lp.a_matrix_.num_row_ = n, m
        lp.a_matrix_.start_ = np.array(mip["row_start"] + [len(mip["row_index"])], dtype=np.int32)
        lp.a_matrix_.index_ = np.array(mip["row_index"], dtype=np.int32)
        lp.a_matrix_.value_ = np.array(mip["row_value"])
        lp.integrality_ = [highspy.HighsVarType.kInteger if b else highspy.HighsVarType.kContinuous
                           for b in mip["integer"]]
        h.passModel(lp)
        h.run()
        ok = h.getModelStatus() == highspy.HighsModelStatus.kOptimal
        obj = h.getInfo().objective_function_value
        times.append((time.perf_counter() - t) * 1e3)
        if ok and cf["counterfactuals"]:
            gaps.append(abs(obj - cf["counterfactuals"][0]["objective"]))
    return {"median_ms": median(times), "max_objective_diff": max(gaps) if gaps else float("nan"),
            "solved": len(gaps), "n": len(times)}


def run_dice(doc, schema, method, k):
    import dice_ml
    import numpy as np
    import pandas as pd
    feats = schema.features
    names = schema.names
    w = np.array(doc["model"]["weights"])
    b, t = doc["model"]["bias"], doc["model"]["threshold"]

    def to_df(rows):
        cols = {}
        for i, f in enumerate(feats):
            vals = [r[i] for r in rows]
            cols[names[i]] = ([f["levels"][int(round(v))] for v in vals]
                              if f["kind"] == "categorical" else [float(v) for v in vals])
        return pd.DataFrame(cols)

    def from_df(df):
        rows = []
        for _, r in df.iterrows():
            row = []
            for i, f in enumerate(feats):
                v = r[names[i]]
                row.append(float(f["levels"].index(v)) if f["kind"] == "categorical" else float(v))
            rows.append(row)
        return rows

    level_index = [{l: j for j, l in enumerate(f["levels"])} if f["kind"] == "categorical" else None
                   for f in feats]

    def encode_matrix(X):
        """Vectorised lenient encoding of a raw DataFrame (what the model sees)."""
        cols = []
        for i, f in enumerate(feats):
            v = X[names[i]].to_numpy()
            if f["kind"] == "categorical":
                k = np.array([level_index[i][x] for x in v])
                cols += [(k == j).astype(float) for j in range(len(f["levels"]))]
            else:
                v = v.astype(float)
                sp = schema.specials(i)
                special = np.isin(v, sp)
                span = f["upper"] - f["lower"]
                slot = (v - f["lower"]) / span if span > 0 else np.zeros_like(v)
                cols.append(np.where(special, f.get("fixed_value", 0.0), slot))
                cols += [(v == c).astype(float) for c in sp]
        return np.column_stack(cols)

    class LinearLogit:
        """The exported cfx model, on raw DataFrames (lenient encoding)."""
        def predict_proba(self, X):
            z = encode_matrix(X) @ w + b
            p = 1 / (1 + np.exp(-z))
            return np.c_[1 - p, p]

        def predict(self, X):
            return (self.predict_proba(X)[:, 1] > t).astype(int)

    train = to_df(doc["train_rows"])
    train["y"] = [int(v) for v in doc["train_labels"]]
    cont = [names[i] for i, f in enumerate(feats) if f["kind"] == "contiguous"]
    data = dice_ml.Data(dataframe=train, continuous_features=cont, outcome_name="y")
    model = dice_ml.Model(model=LinearLogit(), backend="sklearn")
    dice = dice_ml.Dice(data, model, method=method)
    vary = [names[i] for i, f in enumerate(feats) if f.get("actionability", {}).get("mutable", True)]
    per_cf_ms, valid, coherent, actionable, costs, sparsity, n_cf = [], [], [], [], [], [], 0
    for row in doc["applicants"]:
        q = to_df([row])
        t0 = time.perf_counter()
        try:
            kw = {"random_seed": 0} if method == "random" else {}
            res = dice.generate_counterfactuals(q, total_CFs=k, desired_class="opposite",
                                                features_to_vary=vary, verbose=False, **kw)
            cfs = res.cf_examples_list[0].final_cfs_df
            cfs = [] if cfs is None else from_df(cfs)
        except Exception as e:  # DiCE raises when it finds nothing
            print(f"  dice {method}: {type(e).__name__}: {str(e)[:80]}", file=sys.stderr)
            cfs = []
        ms = (time.perf_counter() - t0) * 1e3
        if cfs:
            per_cf_ms.append(ms / len(cfs))
        for cf in cfs:
            n_cf += 1
            coh = all(schema.state(i, cf[i]) is not None for i in range(len(feats)))
            p = 1 / (1 + np.exp(-(np.dot(w, schema.encode_lenient(cf)) + b)))
            valid.append(p > t)
            coherent.append(coh)
            actionable.append(coh and schema.actionable(row, cf))
            if coh:
                costs.append(schema.cost(row, cf))
            sparsity.append(sum(abs(a - c) > TOL for a, c in zip(row, cf)))
    return summary(f"DiCE {method}", k, per_cf_ms, valid, coherent, actionable, costs, sparsity,
                   n_cf, len(doc["applicants"]))


def summary(name, k, per_cf_ms, valid, coherent, actionable, costs, sparsity, n_cf, n_app):
    frac = lambda xs: sum(xs) / len(xs) if xs else float("nan")
    return {"method": name, "k": k, "median_ms_per_cf": median(per_cf_ms),
            "found": f"{n_cf}/{k * n_app}", "validity": frac(valid), "coherence": frac(coherent),
            "actionability": frac(actionable), "mean_cost": mean(costs),
            "mean_sparsity": mean(sparsity)}


def cfx_summary(doc, key, k):
    per_cf_ms, valid, coherent, actionable, costs, sparsity, n_cf = [], [], [], [], [], [], 0
    for ex in doc[key]:
        cfs = ex["counterfactuals"]
        if cfs:
            per_cf_ms.append(ex["ms"] / len(cfs))
        for cf in cfs:
            n_cf += 1
            valid.append(cf["valid"])
            coherent.append(cf["coherent"])
            actionable.append(cf["actionable"])
            costs.append(cf["cost"])
            sparsity.append(cf["sparsity"])
    name = "cfx MIP (optimal)" if k == 1 else "cfx MIP + Russell diversity"
    return summary(name, k, per_cf_ms, valid, coherent, actionable, costs, sparsity, n_cf,
                   len(doc["applicants"]))


def main():
    args = [a for a in sys.argv[1:] if not a.startswith("--")]
    n = 20
    if "--n" in sys.argv:
        n = int(sys.argv[sys.argv.index("--n") + 1])
        args = [a for a in args if a != str(n)]
    datasets = args or ["german", "heloc"]
    os.makedirs(OUT, exist_ok=True)
    results = {}
    lines = ["# Coherent counterfactuals: cfx vs peers", "",
             f"{n} declined held-out applicants per data set, same logistic model (cfx's fit), "
             "one thread. Times are wall-clock per counterfactual (median over applicants); "
             "validity = accepted by the model (p > t); coherence = every value is a special "
             "state or an in-range, on-grid value; actionability = immutables, directions, "
             "bounds and forbidden transitions respected; cost = Russell 2019's weighted L1 "
             "(coherent counterfactuals only); sparsity = features changed.", ""]
    for ds in datasets:
        path = os.path.join(OUT, f"{ds}.json")
        subprocess.check_call(["cargo", "run", "--release", "-q", "--example",
                               "coherent_peers_export", "--", ds, str(n), path], cwd=ROOT)
        doc = json.load(open(path))
        schema = Schema(doc["schema"])
        rows = [cfx_summary(doc, "cfx_optimal", 1), cfx_summary(doc, "cfx_diverse5", 5)]
        hs = run_highspy(doc)
        for method in ["random", "genetic"]:
            for k in [1, 5]:
                print(f"{ds}: DiCE {method} k={k}", file=sys.stderr)
                rows.append(run_dice(doc, schema, method, k))
        results[ds] = {"rows": rows, "highspy": hs}
        lines += [f"## {ds}", "",
                  "| method | CFs asked | found | time per CF (ms) | validity | coherence | "
                  "actionability | mean cost | mean sparsity |",
                  "|---|---|---|---|---|---|---|---|---|"]
        for r in rows:
            lines.append(f"| {r['method']} | {r['k']} | {r['found']} | {r['median_ms_per_cf']:.2f} | "
                         f"{r['validity']:.2f} | {r['coherence']:.2f} | {r['actionability']:.2f} | "
                         f"{r['mean_cost']:.3f} | {r['mean_sparsity']:.2f} |")
        lines += ["", f"Same MIP through highspy: median {hs['median_ms']:.2f} ms per solve "
                      f"(building the model in Python + solving), {hs['solved']}/{hs['n']} optimal, "
                      f"max |objective − cfx objective| = {hs['max_objective_diff']:.2e}.", ""]
    json.dump(results, open(os.path.join(OUT, "coherent_peers.json"), "w"), indent=1)
    open(os.path.join(OUT, "coherent_peers.md"), "w").write("\n".join(lines) + "\n")
    print("\n".join(lines))


if __name__ == "__main__":
    ensure_venv()
    main()
