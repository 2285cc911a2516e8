"""A CatBoostClassifier and an ExplainableBoostingClassifier pass into cfx as live objects:
cfx reads their exported JSON and the live settings that change the score or the decision
(``classes_`` for the favourable label, CatBoost's probability threshold), and its margins
equal the producers' own (RawFormulaVal, decision_function) on every row to 1e-9; a
regression EBM is refused. Runs in benches/peers/.venv-catboost."""

import numpy as np
import pandas as pd
import pytest

import cfx

LEVELS = ["own", "rent", "mortgage"]


def data(n=300, seed=7):
    rng = np.random.default_rng(seed)
    x = pd.DataFrame({"income": np.round(rng.uniform(5, 200, n), 1),
                      "home": rng.choice(LEVELS, n)})
    logit = 0.03 * (x["income"] - 80) + np.where(x["home"] == "own", 0.8, 0.0)
    y = np.where(rng.random(n) < 1 / (1 + np.exp(-logit)), "good", "bad")
    return x, y


def schema():
    return cfx.SchemaBuilder().add_contiguous("income", 5, 200).add_categorical("home", LEVELS).build()


def raw_rows(x):
    return [[float(r.income), float(LEVELS.index(r.home))] for r in x.itertuples()]


def test_a_live_catboost_classifier_with_labels_one_hot_levels_and_a_threshold():
    from catboost import CatBoostClassifier

    x, y = data()
    clf = CatBoostClassifier(iterations=20, depth=3, one_hot_max_size=5, cat_features=["home"],
                             random_seed=1, thread_count=1, verbose=0, allow_writing_files=False)
    clf.fit(x, y)
    clf.set_probability_threshold(0.6)
    want = clf.predict(x, prediction_type="RawFormulaVal")
    with schema() as s, cfx.Model.from_catboost(s, clf, favourable="good") as m:
        for raw, w in zip(raw_rows(x), want):
            assert abs(m.predict_raw(s, raw).score - w) <= 1e-9 * max(1.0, abs(w))
        assert "threshold" in m.to_json() and '"threshold":0.6' in m.to_json().replace(" ", "")
    with schema() as s, pytest.raises(ValueError):
        cfx.Model.from_catboost(s, clf, favourable="unknown")


def test_a_live_ebm_with_labels_and_a_regressor_refused():
    from interpret.glassbox import ExplainableBoostingClassifier, ExplainableBoostingRegressor

    x, y = data()
    ebm = ExplainableBoostingClassifier(random_state=1, n_jobs=1, outer_bags=1, max_rounds=300,
                                        interactions=1)
    ebm.fit(x, y)
    want = ebm.decision_function(x)
    # classes_ = ["bad", "good"]: "bad" favourable flips the margin.
    with schema() as s, cfx.Model.from_ebm(s, ebm, favourable="bad") as m:
        for raw, w in zip(raw_rows(x), want):
            assert abs(m.predict_raw(s, raw).score + w) <= 1e-9 * max(1.0, abs(w))
    reg = ExplainableBoostingRegressor(random_state=1, n_jobs=1, outer_bags=1, max_rounds=50)
    reg.fit(x, x["income"] * 0.1)
    with schema() as s, pytest.raises(ValueError, match="logit"):
        cfx.Model.from_ebm(s, reg)
