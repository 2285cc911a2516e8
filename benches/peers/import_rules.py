#!/usr/bin/env python3
"""Pinned evaluation-rule models for cfx's tree importers (issue 23).

Writes small models that XGBoost and LightGBM themselves trained, with the rows
they were scored on and each library's own margins, into tests/data/import_rules
(committed: `src/model/trees/tests.rs` checks cfx's margins against them on
every machine, without Python):

* xgb.json, xgb_rows.csv, xgb_margins.csv
      XGBoost (binary:logistic, hist): a real column `a` with NaN (learned
      default directions), a real column `b`, a native categorical `c` (names
      stored, XGBoost >= 3.1); the rows include every split threshold, the
      float64 neighbours just below and above it (XGBoost compares in float32:
      a value just below a float32 threshold rounds onto it and goes right)
      and NaN.
* lgbm.txt, lgbm_rows.csv, lgbm_margins.csv
      LightGBM (binary): `a` with NaN (missing type NaN), `b` and `d` without
      NaN (missing type None), `c` a pandas categorical;
* lgbm_zero.txt, lgbm_zero_rows.csv, lgbm_zero_margins.csv
      the same data with zero_as_missing (missing type Zero on every numeric
      split, both default directions);
      rows at and next to every threshold, exact zeros, tiny values and NaN.
* lgbm_wide.txt, lgbm_wide_rows.csv, lgbm_wide_margins.csv
      LightGBM with a categorical `w` of 40 levels: its splits' bitsets span
      two 32-bit words (the script checks that one does, with a level >= 32
      in it); rows: every level at several values of `b`.
* xgb_onehot.json, xgb_onehot_rows.csv, xgb_onehot_margins.csv
      XGBoost with its default max_cat_to_onehot (4) and a categorical `k` of
      three levels, so its categorical splits are one-hot (one level against
      the rest); rows: every level at several values of `b`.

Rows are written as cfx raw rows: a NaN in `a` as the special code -99 (the
tests declare it missing), `c` as the level index. Margins are the Python repr
of the float64 margin (XGBoost's float32 widened exactly).

Issue 38's cases (`--part issue38` writes only these):

* xgb_pd.json, xgb_pd_rows.csv, xgb_pd_margins.csv, xgb_pd_labels.csv
      an XGBoost model of the probability of DEFAULT (label 1 = default) on
      a, b; the labels of its rows (1 = default): imported with class 0
      favourable, cfx's score is minus the margin and the favourable rows rank
      first; imported as class 1 favourable, the ranking check refuses it.
* xgb_missing7.json, xgb_missing7_rows.csv, xgb_missing7_margins.csv
      XGBClassifier(missing=-7) on a (-7 in a fifth of the rows, a special
      state of the schema) and b; margins from the live classifier, which
      sends -7 down each split's default branch (the JSON does not record it).
* xgb_intcat.json, xgb_intcat_rows.csv, xgb_intcat_margins.csv
      a pandas categorical of integers (1, 2, 5, 9): XGBoost >= 3.1 stores
      its categories as numbers (`cats.enc[].type` and `values`).
* xgb_ordinal.json, xgb_ordinal_rows.csv, xgb_ordinal_margins.csv
      a plain integer column e (values 1-4) split numerically, which the
      tests read as a categorical whose level names are numbers ("1"...):
      refused unless category_codes give each level's value.

Issue 41's float32 edges (`--only f32_edges` writes only these):

* xgb_f32.json, xgb_f32_rows.csv, xgb_f32_margins.csv
      XGBoost (hist, 256 bins) on three real-valued columns u, v, w (uniform,
      normal and log-normal draws, never integers), so its split conditions
      are float32 values with no short decimal; rows: for every threshold t
      (float32) of every column, t itself, the float64 neighbours of t (they
      round onto t in float32), the float32 neighbours of t (they do not),
      the float64 midpoints between t and each float32 neighbour (ties,
      rounded to even) and the float64 neighbours of those midpoints (one
      rounds onto t, the other does not), the other columns from a training
      row. XGBoost reads every row as float32, as it predicts in production.

Usage:  python3 benches/peers/import_rules.py [--out DIR] [--part all|issue38] [--only wide_onehot|f32_edges]
(--only wide_onehot writes the wide and one-hot models only; --only f32_edges the float32-edge model only.)
It runs in the environment of trees_train.py (benches/peers/.venv-trees).
"""

import argparse
import os

import peer_venv
import trees_train

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.abspath(os.path.join(HERE, "..", ".."))
SEED = 23
LEVELS = ["red", "green", "blue", "grey"]


def write_rows(path, df, cols):
    import numpy as np

    with open(path, "w") as f:
        f.write(",".join(cols) + "\n")
        for _, r in df.iterrows():
            out = []
            for c in cols:
                v = r[c]
                if c == "c":
                    out.append(str(LEVELS.index(v)))
                elif isinstance(v, float) and np.isnan(v):
                    out.append("-99.0")
                else:
                    out.append(repr(float(v)))
            f.write(",".join(out) + "\n")


def probes(values, thresholds):
    """Each threshold and its float64 neighbours, plus the given values."""
    import numpy as np

    out = list(values)
    for t in thresholds:
        t = float(t)
        out += [t, float(np.nextafter(t, -np.inf)), float(np.nextafter(t, np.inf))]
    return out


def synthetic(n, rng):
    import numpy as np
    import pandas as pd

    a = rng.normal(0.0, 1.5, n)
    a[rng.random(n) < 0.2] = np.nan
    b = np.round(rng.normal(0.0, 1.5, n), 2)
    b[rng.random(n) < 0.3] = 0.0
    d = rng.uniform(-3.0, 3.0, n)
    c = rng.integers(0, 4, n)
    logit = (np.nan_to_num(a, nan=1.2) - 0.8 * (b == 0) + 0.5 * b - 0.4 * d
             + np.array([0.0, 1.5, -1.0, 0.5])[c])
    y = (rng.random(n) < 1 / (1 + np.exp(-logit))).astype(np.int64)
    df = pd.DataFrame({"a": a, "b": b, "d": d,
                       "c": pd.Categorical.from_codes(c, categories=LEVELS)})
    return df, y


def probe_frame(df, thresholds):
    """Rows that put each column at/next to each of its thresholds (others from df)."""
    import numpy as np
    import pandas as pd

    base = df.iloc[:40].copy().reset_index(drop=True)
    rows = [base]
    k = 0
    for col, ts in thresholds.items():
        # Zero and values LightGBM counts as zero (|x| <= 1e-35) on a and b; NaN
        # on a only (a cfx raw row holds it as a's special state).
        extra = [0.0, -0.0, 1e-40, -1e-40, 1e-30] if col in ("a", "b") else [0.0]
        if col == "a":
            extra.append(np.nan)
        for v in probes(extra, ts):
            r = df.iloc[[k % len(df)]].copy().reset_index(drop=True)
            k += 7
            r.loc[0, col] = v
            rows.append(r)
    out = pd.concat(rows, ignore_index=True)
    out["c"] = pd.Categorical(out["c"], categories=LEVELS)
    return out


WIDE = [f"L{k:02d}" for k in range(40)]
THREE = ["low", "mid", "high"]


def wide_and_onehot(out):
    """The LightGBM model with a 40-level categorical and the XGBoost model with default one-hot
    categorical splits, their rows and the libraries' margins (module docs)."""
    import json
    import re

    import numpy as np
    import pandas as pd
    import lightgbm as lgb
    import xgboost as xgb

    rng = np.random.default_rng(SEED + 1)
    n = 4000
    effect = rng.normal(0.0, 1.5, len(WIDE))
    w = rng.integers(0, len(WIDE), n)
    b = np.round(rng.normal(0.0, 1.5, n), 2)
    y = (rng.random(n) < 1 / (1 + np.exp(-(effect[w] + 0.5 * b)))).astype(np.int64)
    df = pd.DataFrame({"b": b, "w": pd.Categorical.from_codes(w, categories=WIDE)})
    ds = lgb.Dataset(df, label=y, categorical_feature=["w"], free_raw_data=False)
    booster = lgb.train({"objective": "binary", "num_leaves": 8, "learning_rate": 0.3,
                         "seed": SEED, "deterministic": True, "num_threads": 1,
                         "min_data_per_group": 5, "cat_smooth": 1.0, "max_cat_threshold": 40,
                         "verbose": -1}, ds, num_boost_round=8)
    path = os.path.join(out, "lgbm_wide.txt")
    booster.save_model(path)
    # At least one split's bitset spans two words and holds a level >= 32.
    text = open(path, encoding="utf-8").read()
    wide_split = False
    for bounds, words in zip(re.findall(r"^cat_boundaries=(.*)$", text, re.M),
                             re.findall(r"^cat_threshold=(.*)$", text, re.M)):
        bounds = [int(v) for v in bounds.split()]
        words = [int(v) for v in words.split()]
        for lo, hi in zip(bounds, bounds[1:]):
            if hi - lo >= 2 and any(words[lo + 1:hi]):
                wide_split = True
    assert wide_split, "no LightGBM split holds a level >= 32: change the seed"
    bs = [-2.0, -0.5, 0.0, 0.7, 2.5]
    rows = pd.DataFrame({"b": [v for _ in WIDE for v in bs],
                         "w": pd.Categorical([lv for lv in WIDE for _ in bs], categories=WIDE)})
    with open(os.path.join(out, "lgbm_wide_rows.csv"), "w") as f:
        f.write("b,w\n")
        for _, r in rows.iterrows():
            f.write(f"{float(r['b'])!r},{WIDE.index(r['w'])}\n")
    trees_train.write_margins(os.path.join(out, "lgbm_wide_margins.csv"),
                              booster.predict(rows, raw_score=True))

    k = rng.integers(0, len(THREE), n)
    b = np.round(rng.normal(0.0, 1.5, n), 2)
    y = (rng.random(n) < 1 / (1 + np.exp(-(np.array([-1.0, 0.3, 1.2])[k] + 0.5 * b)))).astype(np.int64)
    df = pd.DataFrame({"b": b, "k": pd.Categorical.from_codes(k, categories=THREE)})
    bst = xgb.train({"objective": "binary:logistic", "max_depth": 3, "eta": 0.3, "seed": SEED,
                     "nthread": 1, "tree_method": "hist"},
                    xgb.DMatrix(df, label=y, enable_categorical=True), num_boost_round=6)
    model = json.loads(bst.save_raw(raw_format="json"))
    cat_nodes = sum(st == 1 for t in model["learner"]["gradient_booster"]["model"]["trees"]
                    for st in t["split_type"])
    assert cat_nodes > 0, "no categorical split: change the seed"
    bst.save_model(os.path.join(out, "xgb_onehot.json"))
    rows = pd.DataFrame({"b": [v for _ in THREE for v in bs],
                         "k": pd.Categorical([lv for lv in THREE for _ in bs], categories=THREE)})
    with open(os.path.join(out, "xgb_onehot_rows.csv"), "w") as f:
        f.write("b,k\n")
        for _, r in rows.iterrows():
            f.write(f"{float(r['b'])!r},{THREE.index(r['k'])}\n")
    trees_train.write_margins(
        os.path.join(out, "xgb_onehot_margins.csv"),
        bst.predict(xgb.DMatrix(rows, enable_categorical=True), output_margin=True))


def f32_edges(out):
    """The XGBoost model of float32 split conditions on real-valued columns, rows at and around
    every threshold as float64 values that round onto it in float32 and that do not, and
    XGBoost's own margins (module docs)."""
    import json

    import numpy as np
    import pandas as pd
    import xgboost as xgb

    rng = np.random.default_rng(SEED + 41)
    n = 3000
    u = rng.uniform(-2.0, 2.0, n)
    v = rng.normal(0.3, 1.1, n)
    w = rng.lognormal(0.0, 0.6, n)
    logit = 1.2 * np.sin(2.0 * u) + 0.8 * v - 0.9 * np.log(w)
    y = (rng.random(n) < 1 / (1 + np.exp(-logit))).astype(np.int64)
    cols = ["u", "v", "w"]
    df = pd.DataFrame({"u": u, "v": v, "w": w})
    bst = xgb.train({"objective": "binary:logistic", "max_depth": 3, "eta": 0.3, "seed": SEED,
                     "nthread": 1, "tree_method": "hist", "max_bin": 256},
                    xgb.DMatrix(df, label=y), num_boost_round=8)
    model = json.loads(bst.save_raw(raw_format="json"))
    th = {c: set() for c in cols}
    for t in model["learner"]["gradient_booster"]["model"]["trees"]:
        for j, l in enumerate(t["left_children"]):
            if l != -1:
                th[cols[t["split_indices"][j]]].add(float(np.float32(t["split_conditions"][j])))
    assert all(th.values()), f"a column without splits: {th}"
    assert not any(float(t).is_integer() for ts in th.values() for t in ts), "an integer threshold"
    f32 = np.float32
    base = df.iloc[:20].copy().reset_index(drop=True)
    rows = [base]
    k = 0
    for col in cols:
        for t in sorted(th[col]):
            t32 = f32(t)
            below32 = float(np.nextafter(t32, f32(-np.inf)))
            above32 = float(np.nextafter(t32, f32(np.inf)))
            mid_lo, mid_hi = (t + below32) / 2.0, (t + above32) / 2.0
            probes = [t, below32, above32, mid_lo, mid_hi]
            for x in (t, mid_lo, mid_hi):
                probes += [float(np.nextafter(x, -np.inf)), float(np.nextafter(x, np.inf))]
            for x in probes:
                r = df.iloc[[k % n]].copy().reset_index(drop=True)
                k += 11
                r.loc[0, col] = x
                rows.append(r)
    rows = pd.concat(rows, ignore_index=True)
    # The probes round both ways: some onto a threshold from below, some not.
    x = rows[cols].to_numpy()
    assert (x != x.astype(np.float32).astype(np.float64)).any()
    bst.save_model(os.path.join(out, "xgb_f32.json"))
    write_rows(os.path.join(out, "xgb_f32_rows.csv"), rows, cols)
    trees_train.write_margins(os.path.join(out, "xgb_f32_margins.csv"),
                              bst.predict(xgb.DMatrix(rows), output_margin=True))


def main():
    peer_venv.enter(trees_train.VENV, trees_train.PINS, __file__)
    import json

    import numpy as np
    import lightgbm as lgb
    import xgboost as xgb

    p = argparse.ArgumentParser()
    p.add_argument("--out", default=os.path.join(ROOT, "tests", "data", "import_rules"))
    p.add_argument("--part", choices=["all", "issue38"], default="all")
    p.add_argument("--only", choices=["wide_onehot", "f32_edges"])
    args = p.parse_args()
    os.makedirs(args.out, exist_ok=True)
    if args.only == "f32_edges":
        f32_edges(args.out)
        print(f"float32-edge model written to {args.out}")
        return
    if args.only == "wide_onehot":
        wide_and_onehot(args.out)
        print(f"wide and one-hot models written to {args.out}")
        return
    issue38(args.out)
    if args.part == "issue38":
        print(f"issue 38 rules written to {args.out}")
        return
    rng = np.random.default_rng(SEED)
    df, y = synthetic(800, rng)

    # XGBoost: a, b, c (d left out: XGBoost has one numeric rule).
    xdf = df[["a", "b", "c"]]
    bst = xgb.train({"objective": "binary:logistic", "max_depth": 3, "eta": 0.3, "seed": SEED,
                     "nthread": 1, "tree_method": "hist", "max_cat_to_onehot": 1},
                    xgb.DMatrix(xdf, label=y, enable_categorical=True), num_boost_round=6)
    model = json.loads(bst.save_raw(raw_format="json"))
    th = {"a": [], "b": []}
    for t in model["learner"]["gradient_booster"]["model"]["trees"]:
        for j, l in enumerate(t["left_children"]):
            if l != -1 and t["split_type"][j] == 0:
                th[["a", "b", "c"][t["split_indices"][j]]].append(
                    float(np.float32(t["split_conditions"][j])))
    rows = probe_frame(xdf, th)
    bst.save_model(os.path.join(args.out, "xgb.json"))
    write_rows(os.path.join(args.out, "xgb_rows.csv"), rows, ["a", "b", "c"])
    trees_train.write_margins(
        os.path.join(args.out, "xgb_margins.csv"),
        bst.predict(xgb.DMatrix(rows, enable_categorical=True), output_margin=True))

    # LightGBM twice: by default a (with NaN) gets missing type NaN and b, d
    # (no NaN) type None; with zero_as_missing every numeric split gets type
    # Zero, whose default direction decides exact zeros and tiny values.
    for name, zero in [("lgbm", False), ("lgbm_zero", True)]:
        ds = lgb.Dataset(df, label=y, categorical_feature=["c"], free_raw_data=False)
        booster = lgb.train({"objective": "binary", "num_leaves": 8, "learning_rate": 0.3,
                             "seed": SEED, "deterministic": True, "num_threads": 1,
                             "zero_as_missing": zero, "min_data_per_group": 5,
                             "cat_smooth": 1.0, "verbose": -1}, ds, num_boost_round=8)
        dump = booster.dump_model()
        th = {"a": [], "b": [], "d": []}

        def walk(node):
            if "split_feature" in node:
                col = dump["feature_names"][node["split_feature"]]
                if node["decision_type"] == "<=":
                    th[col].append(float(node["threshold"]))
                walk(node["left_child"])
                walk(node["right_child"])

        for t in dump["tree_info"]:
            walk(t["tree_structure"])
        rows = probe_frame(df, th)
        booster.save_model(os.path.join(args.out, f"{name}.txt"))
        write_rows(os.path.join(args.out, f"{name}_rows.csv"), rows, ["a", "b", "d", "c"])
        trees_train.write_margins(os.path.join(args.out, f"{name}_margins.csv"),
                                  booster.predict(rows, raw_score=True))
    wide_and_onehot(args.out)
    f32_edges(args.out)
    print(f"import rules written to {args.out}")


def issue38(out):
    """The favourable-class, `missing` and integer-category cases (see the module docs)."""
    import numpy as np
    import pandas as pd
    import xgboost as xgb

    rng = np.random.default_rng(SEED + 38)
    n = 600
    a = np.round(rng.uniform(-6.0, 6.0, n), 3)
    b = np.round(rng.normal(0.0, 2.0, n), 3).clip(-6.5, 6.5)  # -7 outside b's range
    params = {"objective": "binary:logistic", "max_depth": 3, "eta": 0.3, "seed": SEED,
              "nthread": 1, "tree_method": "hist"}

    def rows_of(frame, cols, path):
        with open(path, "w") as f:
            f.write(",".join(cols) + "\n")
            for r in frame[cols].itertuples(index=False):
                f.write(",".join(repr(float(v)) for v in r) + "\n")

    # 1. A probability-of-default model: default more likely when a is low.
    default = (rng.random(n) < 1 / (1 + np.exp(0.9 * a - 0.3 * b))).astype(np.int64)
    df = pd.DataFrame({"a": a, "b": b})
    bst = xgb.train(params, xgb.DMatrix(df, label=default), num_boost_round=6)
    bst.save_model(os.path.join(out, "xgb_pd.json"))
    rows_of(df, ["a", "b"], os.path.join(out, "xgb_pd_rows.csv"))
    trees_train.write_margins(os.path.join(out, "xgb_pd_margins.csv"),
                              bst.predict(xgb.DMatrix(df), output_margin=True))
    with open(os.path.join(out, "xgb_pd_labels.csv"), "w") as f:
        f.write("default\n" + "".join(f"{int(v)}\n" for v in default))

    # 2. XGBClassifier(missing=-7): -7 in a fifth of a.
    a7 = a.copy()
    a7[rng.random(n) < 0.2] = -7.0
    y7 = (rng.random(n) < 1 / (1 + np.exp(-(0.8 * np.where(a7 == -7.0, 2.0, a7) + 0.3 * b)))
          ).astype(np.int64)
    df7 = pd.DataFrame({"a": a7, "b": b})
    clf = xgb.XGBClassifier(n_estimators=6, max_depth=3, learning_rate=0.3, random_state=SEED,
                            n_jobs=1, tree_method="hist", missing=-7.0)
    clf.fit(df7, y7)
    clf.get_booster().save_model(os.path.join(out, "xgb_missing7.json"))
    rows_of(df7, ["a", "b"], os.path.join(out, "xgb_missing7_rows.csv"))
    trees_train.write_margins(os.path.join(out, "xgb_missing7_margins.csv"),
                              clf.predict(df7, output_margin=True))

    # 3. Integer categories 1, 2, 5, 9 (written as numbers by XGBoost >= 3.1).
    values = np.array([1, 2, 5, 9])
    k = rng.integers(0, 4, n)
    yc = (rng.random(n) < 1 / (1 + np.exp(-(0.5 * a + np.array([0.0, 1.5, -1.0, 0.5])[k])))
          ).astype(np.int64)
    dfc = pd.DataFrame({"a": a, "c": pd.Series(values[k]).astype("category")})
    bst = xgb.train(dict(params, max_cat_to_onehot=1),
                    xgb.DMatrix(dfc, label=yc, enable_categorical=True), num_boost_round=6)
    bst.save_model(os.path.join(out, "xgb_intcat.json"))
    rows_of(pd.DataFrame({"a": a, "c": k}), ["a", "c"], os.path.join(out, "xgb_intcat_rows.csv"))
    trees_train.write_margins(os.path.join(out, "xgb_intcat_margins.csv"),
                              bst.predict(xgb.DMatrix(dfc, enable_categorical=True),
                                          output_margin=True))

    # 4. A plain integer column e in 1..4, split numerically.
    e = rng.integers(1, 5, n)
    ye = (rng.random(n) < 1 / (1 + np.exp(-(0.5 * a + 0.9 * (e - 2.5))))).astype(np.int64)
    dfe = pd.DataFrame({"a": a, "e": e.astype(np.float64)})
    bst = xgb.train(params, xgb.DMatrix(dfe, label=ye), num_boost_round=6)
    bst.save_model(os.path.join(out, "xgb_ordinal.json"))
    # cfx raw rows: e as the level index of the schema's levels "1".."4".
    rows_of(pd.DataFrame({"a": a, "e": e - 1}), ["a", "e"],
            os.path.join(out, "xgb_ordinal_rows.csv"))
    trees_train.write_margins(os.path.join(out, "xgb_ordinal_margins.csv"),
                              bst.predict(xgb.DMatrix(dfe), output_margin=True))


if __name__ == "__main__":
    main()
