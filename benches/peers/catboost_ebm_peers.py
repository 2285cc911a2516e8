#!/usr/bin/env python3
"""CatBoost and Explainable Boosting Machine models, with their producers' own scores, for
cfx's importers (issue 38): the files committed under tests/data/catboost and tests/data/ebm.

Every model is trained by the real library on small synthetic credit data (fixed seeds, one
thread) and written as the library writes it (CatBoost `save_model(format="json", pool=…)`,
interpret `ebm.to_json()`), with the library's own margin on every scored row: CatBoost
`predict(prediction_type="RawFormulaVal")`, interpret `ebm.decision_function`. The scored rows
are the data's first rows plus rows at and next to every border/cut the model uses (in float32
for CatBoost, which binarises `float(x) > border`; in float64 for EBMs), with missing values
and categories the model never saw. Hostile variants (truncated files, models cfx must refuse)
are written beside them; tests in src/model/trees/catboost_tests.rs and ebm_tests.rs read
everything here on every machine.

Usage:
  python3 benches/peers/catboost_ebm_peers.py write      the models, rows and margins
  python3 benches/peers/catboost_ebm_peers.py check      the same in a temporary directory,
        compared with the committed margins; then the counterfactual step below without
        writing (needs `cargo build --release --lib`; `make test-imports` runs it)
  python3 benches/peers/catboost_ebm_peers.py shap
        CatBoost's own ShapValues of every committed CatBoost row (tests/data/catboost/
        <name>_shap.csv), computed from the committed files; run after `write`
  python3 benches/peers/catboost_ebm_peers.py counterfactuals
        (after `cargo build --release --lib`) cfx's proven-optimal counterfactuals of declined
        rows on two accepted models of each format, re-scored by the producer (written to
        tests/data/<format>/counterfactuals.csv; fails unless the producer accepts each)

Runs in its own pinned environment benches/peers/.venv-catboost (peer_venv.py)."""

import csv
import json
import os
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.abspath(os.path.join(HERE, "..", ".."))
sys.path.insert(0, HERE)
import peer_venv  # noqa: E402

VENV = os.path.join(HERE, ".venv-catboost")
PINS = ["catboost==1.2.10", "interpret-core==0.7.8", "numpy==2.4.6", "pandas==3.1.1",
        "scipy==1.17.1", "scikit-learn==1.9.1"]
SEED = 3838
N = 400
HOME = ["own", "rent", "mortgage", "council"]  # "council" never occurs in training
PURPOSE = ["car", "house", "study", "business"]
COLS = ["income", "debt", "age", "home", "purpose"]
NOT_REPORTED = -1.0  # the schema's special state of debt: missing to the producers


def data(np, pd, n=N, seed=SEED):
    """Synthetic applicants: income (thousands, one decimal, 5..200), debt ratio (0..1.5,
    three decimals, missing in 12%), age (integer 18..80), home and purpose; the label is
    default (1) — so every model here is a model of the probability of default."""
    rng = np.random.default_rng(seed)
    income = np.clip(np.round(rng.lognormal(3.8, 0.5, n), 1), 5, 200)
    debt = np.clip(np.round(rng.gamma(2.0, 0.2, n), 3), 0, 1.5)
    debt[rng.random(n) < 0.12] = np.nan
    age = rng.integers(18, 81, n).astype(np.float64)
    home = rng.choice(HOME[:3], n, p=[0.3, 0.45, 0.25])
    purpose = rng.choice(PURPOSE, n)
    logit = (-0.03 * (income - 50) + 2.5 * np.nan_to_num(debt, nan=0.9) - 0.02 * (age - 40)
             + np.where(home == "own", -0.8, np.where(home == "rent", 0.4, 0.0))
             + np.where(purpose == "business", 0.7, 0.0) - 0.6)
    y = (rng.random(n) < 1 / (1 + np.exp(-logit))).astype(np.int64)
    return pd.DataFrame({"income": income, "debt": debt, "age": age, "home": home,
                         "purpose": purpose}), y


def edge_values(np, cuts, lo, hi, f32):
    """Values at and next to every cut inside [lo, hi] (float32 neighbours for CatBoost)."""
    out = []
    for c in cuts:
        if f32:
            c32 = np.float32(c)
            cands = [float(c32), float(np.nextafter(c32, np.float32(np.inf))),
                     float(np.nextafter(c32, np.float32(-np.inf)))]
        else:
            cands = [float(c), float(np.nextafter(c, np.inf)), float(np.nextafter(c, -np.inf))]
        out.extend(v for v in cands if lo <= v <= hi)
    return out


def edge_rows(np, pd, base, cuts_by_feature, f32, rng):
    """Rows varying one feature over its edge values, the others from random base rows."""
    bounds = {"income": (5, 200), "debt": (0, 1.5), "age": (18, 80)}
    rows = []
    for f, cuts in cuts_by_feature.items():
        for v in edge_values(np, cuts, *bounds[f], f32):
            r = base.iloc[int(rng.integers(0, len(base)))].copy()
            r[f] = v
            rows.append(r)
    return pd.DataFrame(rows).reset_index(drop=True) if rows else base.iloc[:0]


def scored_rows(np, pd, X, cuts_by_feature, f32, seed):
    """The first 150 rows, 40 with home 'council' (unseen) or debt missing, and the edges."""
    rng = np.random.default_rng(seed)
    head = X.iloc[:150].copy()
    odd = X.iloc[150:190].copy().reset_index(drop=True)
    odd.loc[::2, "home"] = "council"
    odd.loc[1::4, "debt"] = np.nan
    edges = edge_rows(np, pd, X.iloc[:150], cuts_by_feature, f32, rng)
    return pd.concat([head, odd, edges]).reset_index(drop=True)


def write_rows(path, R):
    """The rows as cfx's raw rows: categoricals as the schema's level index, a missing debt
    as its special state."""
    with open(path, "w", newline="") as fh:
        w = csv.writer(fh, lineterminator="\n")
        w.writerow(COLS)
        for _, r in R.iterrows():
            debt = NOT_REPORTED if r["debt"] != r["debt"] else float(r["debt"])
            w.writerow([repr(float(r["income"])), repr(debt), repr(float(r["age"])),
                        HOME.index(r["home"]), PURPOSE.index(r["purpose"])])


def write_margins(path, margins):
    with open(path, "w", newline="") as fh:
        w = csv.writer(fh, lineterminator="\n")
        w.writerow(["row", "margin"])
        for i, m in enumerate(margins):
            w.writerow([i, repr(float(m))])


# ---------------------------------------------------------------------------------------
# CatBoost


def catboost_models(np, pd, out):
    from catboost import CatBoostClassifier, CatBoostRegressor, Pool

    X, y = data(np, pd)
    num = ["income", "debt", "age"]
    written = {}

    def fit(name, cols, cat=(), X=X, y=y, **params):
        p = dict(iterations=25, depth=4, learning_rate=0.2, random_seed=SEED, thread_count=1,
                 verbose=0, allow_writing_files=False)
        p.update(params)
        eval_set = p.pop("eval_set", None)
        m = CatBoostClassifier(cat_features=list(cat) or None, **p)
        m.fit(X[cols], y, eval_set=eval_set)
        return m

    def save(name, m, cols, cat=(), pool=True, X=X, y=y):
        path = os.path.join(out, f"{name}.json")
        if pool:
            m.save_model(path, format="json", pool=Pool(X[cols], y, cat_features=list(cat) or None))
        else:
            m.save_model(path, format="json")
        written[name] = (m, cols)
        return path

    def score(name, m, cols):
        cuts = {}
        d = json.load(open(os.path.join(out, f"{name}.json")))
        for ff in d["features_info"].get("float_features", []):
            cuts[ff["feature_name"]] = ff["borders"]
        R = scored_rows(np, pd, X, {k: v for k, v in cuts.items() if k in num}, True, SEED + 1)
        if "home" not in cols:
            R["home"] = np.where(R["home"] == "council", "own", R["home"])
        margins = m.predict(R[cols], prediction_type="RawFormulaVal")
        write_rows(os.path.join(out, f"{name}_rows.csv"), R)
        write_margins(os.path.join(out, f"{name}_margins.csv"), margins)

    # Each nan_mode: missing debt scored as below (Min) or above (Max) every border; under
    # Forbidden the training data has no missing value and CatBoost scores NaN as below
    # every border (its `AsIs`: NaN > border is false).
    for mode in ["Min", "Max"]:
        name = f"cb_nan_{mode.lower()}"
        m = fit(name, num, nan_mode=mode)
        save(name, m, num)
        score(name, m, num)
    Xf = X.copy()
    Xf["debt"] = Xf["debt"].fillna(0.9)
    m = fit("cb_nan_forbidden", num, X=Xf, nan_mode="Forbidden")
    save("cb_nan_forbidden", m, num, X=Xf)
    score("cb_nan_forbidden", m, num)
    # One-hot categoricals (home: 3 levels ≤ one_hot_max_size); 'council' unseen.
    cols = num + ["home"]
    m = fit("cb_onehot", cols, cat=["home"], one_hot_max_size=10)
    save("cb_onehot", m, cols, cat=["home"])
    score("cb_onehot", m, cols)
    # The same saved without the pool: no cat_features_hash (refused: levels unmappable).
    save("cb_onehot_nohash", m, cols, cat=["home"], pool=False)
    # CTR (target statistics) on purpose: refused.
    cols_ctr = num + ["purpose"]
    m = fit("cb_ctr", cols_ctr, cat=["purpose"], one_hot_max_size=1)
    save("cb_ctr", m, cols_ctr, cat=["purpose"])
    # Depth 1 and depth 8.
    m = fit("cb_depth1", num, depth=1, iterations=80)
    save("cb_depth1", m, num)
    score("cb_depth1", m, num)
    m = fit("cb_depth8", num, depth=8, iterations=12)
    save("cb_depth8", m, num)
    score("cb_depth8", m, num)
    # Early stopping on a held-out set (use_best_model: the file holds the best trees).
    Xv, yv = data(np, pd, n=200, seed=SEED + 7)
    m = fit("cb_early", num, iterations=200, learning_rate=0.5, early_stopping_rounds=5,
            use_best_model=True, eval_set=(Xv[num], yv))
    save("cb_early", m, num)
    score("cb_early", m, num)
    # scale_and_bias set (and boost_from_average's bias).
    m = fit("cb_scaled", num, boost_from_average=True)
    m.set_scale_and_bias(0.75, -0.4)
    save("cb_scaled", m, num)
    score("cb_scaled", m, num)
    # String class labels: class_names ["bad", "good"] (class 1 = "good" = repaid).
    ys = np.where(y == 1, "bad", "good")
    m = fit("cb_labels", num, y=ys)
    save("cb_labels", m, num, y=ys)
    score("cb_labels", m, num)
    # Refusals: non-symmetric trees, multiclass, regression.
    m = fit("cb_depthwise", num, grow_policy="Depthwise", iterations=5)
    save("cb_depthwise", m, num)
    y3 = (X["income"].to_numpy() > 40).astype(int) + y
    m = fit("cb_multiclass", num, y=y3, iterations=5, loss_function="MultiClass")
    save("cb_multiclass", m, num, y=y3)
    r = CatBoostRegressor(iterations=5, depth=3, random_seed=SEED, thread_count=1, verbose=0,
                          allow_writing_files=False)
    r.fit(X[num], X["income"] * 0.1)
    r.save_model(os.path.join(out, "cb_regression.json"), format="json")
    # A truncated file.
    with open(os.path.join(out, "cb_nan_min.json")) as fh:
        text = fh.read()
    with open(os.path.join(out, "cb_truncated.json"), "w") as fh:
        fh.write(text[: len(text) // 2])
    return written


# ---------------------------------------------------------------------------------------
# EBM


def ebm_models(np, pd, out):
    from interpret.glassbox import ExplainableBoostingClassifier, ExplainableBoostingRegressor

    X, y = data(np, pd)
    written = {}
    types = {"income": "continuous", "debt": "continuous", "age": "continuous",
             "home": "nominal", "purpose": "nominal"}

    def fit(cols, y=y, **params):
        p = dict(random_state=SEED, n_jobs=1, outer_bags=2, max_bins=32, max_rounds=2000,
                 interactions=0, feature_types=[types[c] for c in cols])
        p.update(params)
        m = ExplainableBoostingClassifier(**p)
        m.fit(X[cols], y)
        return m

    def save(name, m, cols):
        with open(os.path.join(out, f"{name}.json"), "w") as fh:
            json.dump(m.to_jsonable(detail="interpretable"), fh)
        written[name] = (m, cols)

    def score(name, m, cols):
        d = json.load(open(os.path.join(out, f"{name}.json")))
        cuts = {}
        for f in d["ebm"]["features"]:
            if f["type"] == "continuous":
                cuts[f["name"]] = sorted({c for level in f["cuts"] for c in level})
        R = scored_rows(np, pd, X, cuts, False, SEED + 2)
        margins = m.decision_function(R[cols])
        write_rows(os.path.join(out, f"{name}_rows.csv"), R)
        write_margins(os.path.join(out, f"{name}_margins.csv"), margins)

    num = ["income", "debt", "age"]
    cases = {
        # Main terms only, missing debt (the separate missing bin).
        "ebm_main": (num, {}),
        # Pairwise interactions (their own, coarser cuts: max_interaction_bins).
        "ebm_pairs": (num, dict(interactions=3, max_interaction_bins=8)),
        # Categoricals (home's 'council' and purpose unseen-free), with a pair.
        "ebm_cat": (num + ["home", "purpose"], dict(interactions=2, max_interaction_bins=6)),
        # Monotone constraints (income decreasing the default log-odds, debt increasing).
        "ebm_mono": (num, dict(monotone_constraints=[-1, 1, 0])),
    }
    for name, (cols, params) in cases.items():
        m = fit(cols, **params)
        save(name, m, cols)
        score(name, m, cols)
    ys = np.where(y == 1, "bad", "good")
    m = fit(num, y=ys)
    save("ebm_labels", m, num)
    score("ebm_labels", m, num)
    # Refusals: regression (identity link), multiclass, a truncated file, a 3-way term.
    r = ExplainableBoostingRegressor(random_state=SEED, n_jobs=1, outer_bags=1, max_rounds=200,
                                     interactions=0)
    r.fit(X[num], X["income"] * 0.1)
    with open(os.path.join(out, "ebm_regression.json"), "w") as fh:
        json.dump(r.to_jsonable(detail="interpretable"), fh)
    y3 = (X["income"].to_numpy() > 40).astype(int) + y
    m = fit(num, y=y3, interactions=0)
    with open(os.path.join(out, "ebm_multiclass.json"), "w") as fh:
        json.dump(m.to_jsonable(detail="interpretable"), fh)
    with open(os.path.join(out, "ebm_main.json")) as fh:
        text = fh.read()
    with open(os.path.join(out, "ebm_truncated.json"), "w") as fh:
        fh.write(text[: len(text) // 2])
    d = json.loads(text)
    d["ebm"]["terms"].append({"term_features": ["income", "debt", "age"],
                              "scores": [[[0.0]]]})
    with open(os.path.join(out, "ebm_threeway.json"), "w") as fh:
        json.dump(d, fh)
    return written


# ---------------------------------------------------------------------------------------


def write_all(cat_dir, ebm_dir):
    import warnings

    import numpy as np
    import pandas as pd

    warnings.filterwarnings("ignore")
    os.makedirs(cat_dir, exist_ok=True)
    os.makedirs(ebm_dir, exist_ok=True)
    return catboost_models(np, pd, cat_dir), ebm_models(np, pd, ebm_dir)


def shap_values(cat_dir, out_dir=None):
    """CatBoost's own TreeSHAP (`get_feature_importance(type="ShapValues")`, path-dependent,
    weighing each branch by the leaf weights) of every committed row of every committed
    CatBoost model, read back from its committed JSON: `<name>_shap.csv`, one column per
    model column, then the expected value. CatBoost refuses ShapValues for a model whose
    scale is not 1 (cb_scaled); its values are then those of the model with scale 1 and bias
    0, mapped by Shapley values' linearity (scale × each value, scale × expected + bias)."""
    import numpy as np
    import pandas as pd
    from catboost import CatBoostClassifier, Pool

    for f in sorted(os.listdir(cat_dir)):
        if not f.endswith("_rows.csv"):
            continue
        name = f[: -len("_rows.csv")]
        m = CatBoostClassifier()
        m.load_model(os.path.join(cat_dir, f"{name}.json"), format="json")
        scale, bias = m.get_scale_and_bias()
        bias = bias[0] if isinstance(bias, (list, tuple)) else bias
        m.set_scale_and_bias(1.0, [0.0])
        raw = pd.read_csv(os.path.join(cat_dir, f))
        frame = pd.DataFrame({
            "income": raw["income"], "debt": raw["debt"].where(raw["debt"] != NOT_REPORTED, np.nan),
            "age": raw["age"], "home": [HOME[int(k)] for k in raw["home"]],
            "purpose": [PURPOSE[int(k)] for k in raw["purpose"]]})
        cols = list(m.feature_names_)
        cat_idx = list(m.get_cat_feature_indices())
        phi = m.get_feature_importance(type="ShapValues",
                                       data=Pool(frame[cols], cat_features=cat_idx or None))
        with open(os.path.join(out_dir or cat_dir, f"{name}_shap.csv"), "w", newline="") as fh:
            w = csv.writer(fh, lineterminator="\n")
            w.writerow(["row"] + cols + ["expected"])
            for i, r in enumerate(phi):
                vals = [scale * float(v) for v in r[:-1]] + [scale * float(r[-1]) + bias]
                w.writerow([i] + [repr(v) for v in vals])
        print(f"catboost_ebm_peers: {name}_shap.csv ({len(phi)} rows, scale {scale}, bias {bias})")


def committed():
    return (os.path.join(ROOT, "tests", "data", "catboost"),
            os.path.join(ROOT, "tests", "data", "ebm"))


def check():
    """Retrains everything in a temporary directory and compares the margins with the
    committed ones (≤ 1e-12 relative: the producers are deterministic with one thread);
    recomputes CatBoost's ShapValues of the committed models and rows and compares them."""
    bad = []
    with tempfile.TemporaryDirectory() as tmp:
        dirs = (os.path.join(tmp, "catboost"), os.path.join(tmp, "ebm"))
        write_all(*dirs)
        for new, old in zip(dirs, committed()):
            for f in sorted(os.listdir(new)):
                if not f.endswith("_margins.csv"):
                    continue
                a = [float(r["margin"]) for r in csv.DictReader(open(os.path.join(new, f)))]
                b = [float(r["margin"]) for r in csv.DictReader(open(os.path.join(old, f)))]
                same = len(a) == len(b) and all(abs(x - z) <= 1e-12 * max(1, abs(z))
                                                for x, z in zip(a, b))
                print(f"{'ok  ' if same else 'DIFF'}  {os.path.basename(old)}/{f}: {len(a)} rows")
                if not same:
                    bad.append(f)
        # CatBoost's ShapValues of the committed models and rows, against the committed ones.
        shap_values(committed()[0], tmp)
        for f in sorted(os.listdir(tmp)):
            if not f.endswith("_shap.csv"):
                continue
            same = open(os.path.join(tmp, f)).read() == open(
                os.path.join(committed()[0], f)).read()
            print(f"{'ok  ' if same else 'DIFF'}  catboost/{f}")
            if not same:
                bad.append(f)
    if bad:
        sys.exit(f"catboost_ebm_peers: {len(bad)} margin or SHAP files differ from the committed ones")


def counterfactuals(write=True):
    """cfx's proven-optimal counterfactuals of the first declined rows of two accepted models
    per format, re-scored by the producer (the model trained again, deterministically);
    written to the committed counterfactuals.csv files when `write`."""
    import numpy as np
    import pandas as pd

    sys.path.insert(0, os.path.join(ROOT, "bindings", "python", "src"))
    os.environ.setdefault("CFX_LIB", os.path.join(ROOT, "target", "release", "libcfx.so"))
    import cfx

    with tempfile.TemporaryDirectory() as tmp:
        dirs = (os.path.join(tmp, "catboost"), os.path.join(tmp, "ebm"))
        cat_models, ebm_models_ = write_all(*dirs)
        s = (cfx.SchemaBuilder()
             .add_contiguous("income", 5, 200)
             .add_contiguous("debt", 0, 1.5).add_special_state(NOT_REPORTED, "not reported")
             .add_contiguous("age", 18, 80, integer=True)
             .add_categorical("home", HOME)
             .add_categorical("purpose", PURPOSE)
             .build())
        opts = {"favourable_class": 0, "special_as_missing": ["debt"]}
        X, _ = data(np, pd)
        plan = [("catboost", "cb_nan_max", cat_models, dirs[0], {}),
                ("catboost", "cb_onehot", cat_models, dirs[0], {"unseen_levels": {"home": ["council"]}}),
                ("ebm", "ebm_pairs", ebm_models_, dirs[1], {}),
                ("ebm", "ebm_cat", ebm_models_, dirs[1], {"unseen_levels": {"home": ["council"]}})]
        lines = {"catboost": [], "ebm": []}
        failed = 0
        for fmt, name, models, d, extra in plan:
            lib, cols = models[name]
            path = os.path.join(d, f"{name}.json")
            imp = cfx.Model.from_catboost if fmt == "catboost" else cfx.Model.from_ebm
            with imp(s, path, {**opts, **extra}) as m:
                found = 0
                for i in range(len(X)):
                    r = X.iloc[i]
                    row = [float(r["income"]),
                           NOT_REPORTED if r["debt"] != r["debt"] else float(r["debt"]),
                           float(r["age"]), HOME.index(r["home"]), PURPOSE.index(r["purpose"])]
                    if m.predict_raw(s, row).accepted:
                        continue
                    with cfx.explain(s, m, row, cfx.Config(time_limit=30.0)) as res:
                        if res.outcome != "optimal":
                            print(f"FAIL  {name} row {i}: {res.outcome}")
                            failed += 1
                            continue
                        cf = list(res.counterfactual(0))
                    frame = pd.DataFrame([{
                        "income": cf[0], "debt": np.nan if cf[1] == NOT_REPORTED else cf[1],
                        "age": cf[2], "home": HOME[int(cf[3])], "purpose": PURPOSE[int(cf[4])]}])
                    if fmt == "catboost":
                        margin = float(lib.predict(frame[cols], prediction_type="RawFormulaVal")[0])
                    else:
                        margin = float(lib.decision_function(frame[cols])[0])
                    # A model of default: accepted when the producer's margin is below 0.
                    ok = margin < 0
                    failed += not ok
                    print(f"{'ok  ' if ok else 'FAIL'}  {name} row {i}: producer margin {margin:.6g}")
                    lines[fmt].append([name, i] + [repr(float(v)) for v in cf] + [repr(margin)])
                    found += 1
                    if found == 5:
                        break
        for fmt, d in zip(["catboost", "ebm"], committed() if write else []):
            with open(os.path.join(d, "counterfactuals.csv"), "w", newline="") as fh:
                w = csv.writer(fh, lineterminator="\n")
                w.writerow(["model", "row"] + COLS + ["producer_margin"])
                w.writerows(lines[fmt])
        if failed:
            sys.exit(f"catboost_ebm_peers: {failed} counterfactuals not accepted by the producer")


def main():
    peer_venv.enter(VENV, PINS, __file__)
    what = sys.argv[1] if len(sys.argv) > 1 else "write"
    if what == "write":
        for d in committed():
            for f in os.listdir(d) if os.path.isdir(d) else []:
                if f.endswith((".json", ".csv")) and f != "counterfactuals.csv":
                    os.remove(os.path.join(d, f))
        write_all(*committed())
        shap_values(committed()[0])
        print("catboost_ebm_peers: wrote", ", ".join(committed()))
    elif what == "check":
        check()
        counterfactuals(write=False)
    elif what == "counterfactuals":
        counterfactuals()
    elif what == "shap":
        shap_values(committed()[0])
    else:
        sys.exit(__doc__)


if __name__ == "__main__":
    main()
