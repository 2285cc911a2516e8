"""Gradient-boosted models trained in XGBoost and LightGBM pass into cfx as live objects
(dumped in memory, no file) — a `Booster`, or the scikit-learn wrapper a modeller fits
(`XGBClassifier`, `LGBMClassifier`) — and cfx's margins and probabilities equal each
library's own on every HELOC row; a counterfactual cfx proves optimal is accepted by the
library itself.

Tolerances: XGBoost stores thresholds and leaf values as float32 and sums a margin in
float32, while cfx sums the same float32 leaves in float64, so margins agree to 1e-6 (the
bound cfx's own tree tests state for 100 trees, docs/guide/gradient-boosted-models.md) and
XGBoost's float32 probability to a relative 1e-6. LightGBM's text model carries float64
thresholds and leaves and LightGBM sums in float64: 1e-9 there (order of summation only).
The models are trained on cfx's hold-out split (row i trains when i % 10 < 7), seeded and
single-threaded."""

import json

import numpy as np
import pandas as pd
import pytest

import cfx
from conftest import shared_data

SEED = 20260
N_TREES = 30
XGB_TOL = 1e-6
LGBM_TOL = 1e-9


@pytest.fixture(scope="module")
def heloc():
    path = shared_data("heloc.csv")
    df = pd.read_csv(path)
    y = (df["RiskPerformance"] == "Good").astype(np.int64).to_numpy()
    x = df.drop(columns=["RiskPerformance"]).astype(np.float64)
    return path, x, y, np.arange(len(df)) % 10 < 7


def _check_counterfactual(s, m, d, declined, margin_of, label_of=None):
    """The first declined held-out applicant: cfx's optimal counterfactual under the
    imported model is accepted by the source library (margin > 0; and class 1 from the
    scikit-learn wrapper's own `predict`, `label_of`, when there is one)."""
    with cfx.explain(s, m, d.row(declined), cfx.Config(time_limit=60.0)) as r:
        assert r.outcome == "optimal"
        cf = np.asarray(r.counterfactual(0), dtype=np.float64)
        assert not np.array_equal(cf, d.row(declined))
        assert margin_of(cf) > 0
        if label_of is not None:
            assert label_of(cf) == 1
        assert r.certificate(0).probability > 0.5


def _check_scores_as_library(heloc, imported, margins, probs, tol, library, margin_of,
                             label_of=None):
    """cfx's model `imported(schema)` against the library's own `margins` and `probs` of
    every HELOC row (within `tol`), then the counterfactual of the first declined held-out
    applicant (by the library's margin)."""
    path, x, _, train = heloc
    with cfx.load_heloc(path) as d, d.schema as s, imported(s) as m:
        assert m.kind == "trees" and len(d) == len(x)
        enc = d.encoded()
        worst = float(np.max(np.abs(m.scores(enc) - margins)))
        assert worst <= tol, f"worst margin difference to {library}: {worst}"
        np.testing.assert_allclose(m.probabilities(enc), probs, rtol=tol)
        declined = int(np.flatnonzero(~train & (margins < 0))[0])
        _check_counterfactual(s, m, d, declined, margin_of, label_of)


def _frame(x, cf):
    """One raw row as a data frame with the training columns."""
    return pd.DataFrame(cf.reshape(1, -1), columns=x.columns)


def test_live_xgboost_booster_scores_as_xgboost_on_every_heloc_row(heloc):
    import xgboost as xgb

    path, x, y, train = heloc
    names = list(x.columns)
    bst = xgb.train(
        {"objective": "binary:logistic", "max_depth": 3, "eta": 0.2, "seed": SEED, "nthread": 1,
         "tree_method": "hist"},
        xgb.DMatrix(x[train].to_numpy(), label=y[train], feature_names=names),
        num_boost_round=N_TREES,
    )
    every = xgb.DMatrix(x.to_numpy(), feature_names=names)
    margins = bst.predict(every, output_margin=True).astype(np.float64)
    probs = bst.predict(every).astype(np.float64)
    _check_scores_as_library(
        heloc, lambda s: cfx.Model.from_xgboost(s, bst), margins, probs, XGB_TOL, "XGBoost",
        lambda cf: bst.predict(xgb.DMatrix(cf.reshape(1, -1), feature_names=names), output_margin=True)[0],
    )


def test_live_lightgbm_booster_scores_as_lightgbm_on_every_heloc_row(heloc):
    import lightgbm as lgb

    path, x, y, train = heloc
    booster = lgb.train(
        {"objective": "binary", "num_leaves": 7, "learning_rate": 0.2, "seed": SEED,
         "deterministic": True, "num_threads": 1, "force_row_wise": True, "verbose": -1},
        lgb.Dataset(x[train], label=y[train], free_raw_data=False),
        num_boost_round=N_TREES,
    )
    margins = booster.predict(x, raw_score=True)
    probs = booster.predict(x)
    _check_scores_as_library(
        heloc, lambda s: cfx.Model.from_lightgbm(s, booster), margins, probs, LGBM_TOL, "LightGBM",
        lambda cf: booster.predict(_frame(x, cf), raw_score=True)[0],
    )


def test_live_xgbclassifier_scores_as_xgboost_on_every_heloc_row(heloc):
    import xgboost as xgb

    path, x, y, train = heloc
    clf = xgb.XGBClassifier(
        n_estimators=N_TREES, max_depth=3, learning_rate=0.2, random_state=SEED, n_jobs=1,
        tree_method="hist",
    )
    clf.fit(x[train], y[train])
    margins = clf.predict(x, output_margin=True).astype(np.float64)
    probs = clf.predict_proba(x)[:, 1].astype(np.float64)
    _check_scores_as_library(
        heloc, lambda s: cfx.Model.from_xgboost(s, clf), margins, probs, XGB_TOL, "XGBClassifier",
        lambda cf: clf.predict(_frame(x, cf), output_margin=True)[0],
        lambda cf: clf.predict(_frame(x, cf))[0],
    )


def test_live_lgbmclassifier_scores_as_lightgbm_on_every_heloc_row(heloc):
    import lightgbm as lgb

    path, x, y, train = heloc
    clf = lgb.LGBMClassifier(
        n_estimators=N_TREES, num_leaves=7, learning_rate=0.2, random_state=SEED,
        deterministic=True, n_jobs=1, force_row_wise=True, verbose=-1,
    )
    clf.fit(x[train], y[train])
    margins = clf.predict(x, raw_score=True)
    probs = clf.predict_proba(x)[:, 1]
    _check_scores_as_library(
        heloc, lambda s: cfx.Model.from_lightgbm(s, clf), margins, probs, LGBM_TOL, "LGBMClassifier",
        lambda cf: clf.predict(_frame(x, cf), raw_score=True)[0],
        lambda cf: clf.predict(_frame(x, cf))[0],
    )


def test_live_xgbclassifier_of_default_with_missing_minus_7_scores_as_xgboost(heloc):
    """Issue 38: a model of DEFAULT (class 1 = "Bad") fitted with `missing=-7` (HELOC's "no
    record" code). cfx reads `clf.missing` from the live object (the JSON does not record it)
    and, declared `favourable=0`, scores minus XGBoost's margin on every row; the labelled
    HELOC rows accept the declaration and refuse the undeclared reading."""
    import xgboost as xgb

    path, x, y, train = heloc
    bad = 1 - y
    clf = xgb.XGBClassifier(
        n_estimators=N_TREES, max_depth=3, learning_rate=0.2, random_state=SEED, n_jobs=1,
        tree_method="hist", missing=-7.0,
    )
    clf.fit(x[train], bad[train])
    margins = clf.predict(x, output_margin=True).astype(np.float64)
    assert (x == -7).any(axis=None), "HELOC has -7 codes"
    with cfx.load_heloc(path) as d, d.schema as s:
        enc = d.encoded()
        with cfx.Model.from_xgboost(s, clf, favourable=0, check_on=d) as m:
            assert float(np.max(np.abs(m.scores(enc) + margins))) <= XGB_TOL
            assert "equals XGBoost's missing value -7" in m.report
            assert m.check_favourable(d) > 0.7
        # Read as if -7 were a number (the JSON alone), many rows differ.
        with cfx.Model.from_xgboost(s, clf.get_booster(), {"favourable_class": 0}) as m:
            assert int(np.sum(np.abs(m.scores(enc) + margins) > XGB_TOL)) > 50
        with pytest.raises(cfx.CfxError, match="favourable_class"):
            cfx.Model.from_xgboost(s, clf, check_on=d)


def _small():
    """200 seeded rows of three HELOC-like columns and a label (1 = repaid)."""
    r = np.random.RandomState(SEED)
    x = pd.DataFrame({"a": r.uniform(0, 10, 200), "b": r.uniform(0, 5, 200), "c": r.randint(0, 4, 200) * 1.0})
    y = ((x["a"] - 2 * x["b"] + r.normal(size=200)) > 0).astype(np.int64).to_numpy()
    return x, y


def _small_schema():
    return cfx.Schema.from_json(json.dumps({"format_version": 1, "features": [
        {"name": "a", "kind": "contiguous", "lower": 0.0, "upper": 10.0},
        {"name": "b", "kind": "contiguous", "lower": 0.0, "upper": 5.0},
        {"name": "c", "kind": "contiguous", "lower": 0.0, "upper": 3.0, "integer": True},
    ]}))


def test_live_xgboost_settings_refused_with_the_reason():
    """Issue 38's audit (docs/guide/live-models.md): each XGBoost setting cfx cannot read
    exactly, set on a real fitted object, is refused with a message naming it."""
    import xgboost as xgb

    x, y = _small()
    kw = dict(n_estimators=3, max_depth=2, random_state=SEED, n_jobs=1)
    with _small_schema() as s:
        with cfx.Model.from_xgboost(s, xgb.XGBClassifier(**kw).fit(x, y), favourable=1) as m:
            assert m.kind == "trees"  # the same data and schema read when nothing is refused
        clf = xgb.XGBClassifier(missing=np.inf, **kw).fit(x, y)
        with pytest.raises(ValueError, match="missing=inf is not read"):
            cfx.Model.from_xgboost(s, clf, favourable=1)
        three = xgb.XGBClassifier(**kw).fit(x, x["c"].astype(int).clip(0, 2))
        with pytest.raises(cfx.CfxError, match="multi"):
            cfx.Model.from_xgboost(s, three)
        reg = xgb.XGBRegressor(**kw).fit(x, y * 1.0)
        with pytest.raises(cfx.CfxError, match="reg:squarederror"):
            cfx.Model.from_xgboost(s, reg, {"favourable_class": 1})
        for booster in ("gblinear", "dart"):
            clf = xgb.XGBClassifier(booster=booster, **kw).fit(x, y)
            with pytest.raises(cfx.CfxError, match=booster):
                cfx.Model.from_xgboost(s, clf, favourable=1)


def test_live_lightgbm_settings_refused_with_the_reason():
    """The LightGBM settings cfx cannot read exactly, on real fitted objects."""
    import lightgbm as lgb

    x, y = _small()
    kw = dict(n_estimators=3, num_leaves=4, random_state=SEED, n_jobs=1, verbose=-1, min_child_samples=5)
    with _small_schema() as s:
        with cfx.Model.from_lightgbm(s, lgb.LGBMClassifier(**kw).fit(x, y), favourable=1) as m:
            assert m.kind == "trees"
        linear = lgb.LGBMClassifier(linear_tree=True, **kw).fit(x, y)
        with pytest.raises(cfx.CfxError, match="linear"):
            cfx.Model.from_lightgbm(s, linear, favourable=1)
        reg = lgb.LGBMRegressor(**kw).fit(x, y * 1.0)
        with pytest.raises(cfx.CfxError, match="regression"):
            cfx.Model.from_lightgbm(s, reg, {"favourable_class": 1})
        three = lgb.LGBMClassifier(**kw).fit(x, x["c"].astype(int).clip(0, 2))
        with pytest.raises((cfx.CfxError, ValueError), match="class"):
            cfx.Model.from_lightgbm(s, three)
