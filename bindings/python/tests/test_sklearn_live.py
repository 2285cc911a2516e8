"""Live scikit-learn estimators (issue 38's audit, docs/guide/live-models.md): each setting that
changes the score or the accepted side is read exactly — checked on every row against the
estimator's own `decision_function` and `predict_proba` — or refused with the reason.

The data: the schema of tests/data/onnx (integer, real and special-state features, a categorical)
and 600 seeded synthetic applicants, plus rows at, and one float32 step either side of, every
threshold of the real-valued feature (where a float64 comparison of the float32 input would
differ). Small estimators keep the run short."""

import json
import os

import numpy as np
import pytest

import cfx
from conftest import ROOT, bits

sklearn = pytest.importorskip("sklearn")
from sklearn.ensemble import (  # noqa: E402
    GradientBoostingClassifier,
    HistGradientBoostingClassifier,
    RandomForestClassifier,
)
from sklearn.linear_model import LogisticRegression  # noqa: E402
from sklearn.pipeline import make_pipeline  # noqa: E402
from sklearn.preprocessing import StandardScaler  # noqa: E402

SCHEMA = os.path.join(ROOT, "tests", "data", "onnx", "schema.json")


@pytest.fixture(scope="module")
def schema():
    with open(SCHEMA) as f:
        s = cfx.Schema.from_json(f.read())
    yield s
    s.close()


def applicants(n=600, seed=7):
    """Raw rows in schema order (age, income with special −9, utilization, delinq with special
    −7, housing level index) and a label 1 = repaid, from a seeded noisy rule."""
    r = np.random.RandomState(seed)
    age = r.randint(18, 81, n).astype(float)
    income = np.round(r.uniform(0, 250000, n), 2)
    income[r.rand(n) < 0.1] = -9.0
    util = r.uniform(0, 1.5, n)
    delinq = r.randint(0, 13, n).astype(float)
    delinq[r.rand(n) < 0.15] = -7.0
    housing = r.randint(0, 3, n).astype(float)
    X = np.column_stack([age, income, util, delinq, housing])
    z = 0.03 * (age - 40) + np.where(income < 0, -0.5, income / 60000.0) - 1.5 * util
    z += np.where(delinq < 0, 0.3, -0.25 * delinq) + np.array([0.4, -0.3, 0.0])[housing.astype(int)]
    y = (z + r.logistic(size=n) > 0).astype(int)
    return X, y


def boundary_rows(X, thresholds, feature=2, upper=1.5):
    """Rows of X with feature 2 set at each threshold and the float32 neighbours of it."""
    out = []
    for i, t in enumerate(sorted(set(thresholds))):
        t32 = np.float32(t)
        for v in (t, float(t32), float(np.nextafter(t32, np.float32(-1))), float(np.nextafter(t32, np.float32(9)))):
            if 0.0 <= v <= upper:
                row = X[i % len(X)].copy()
                row[feature] = v
                out.append(row)
    return np.array(out)


def round_trips(schema, X):
    """The rows `predict_raw` scores as they are: it scores a raw row through the schema's
    encoding, and a real value may come back one ulp off (0.1/1.5·1.5); those rows are left out
    of the comparisons (the kept share is asserted)."""
    keep = np.array([list(schema.decode(schema.encode(r))) == list(r) for r in X])
    assert keep.mean() > 0.5, keep.mean()
    return X[keep]


def cfx_scores(model, schema, X):
    ps = [model.predict_raw(schema, row) for row in X]
    return (np.array([p.score for p in ps]), np.array([p.probability for p in ps]),
            np.array([p.accepted for p in ps]))


def assert_bit_exact(a, b):
    bad = [i for i, (x, y) in enumerate(zip(a, b)) if bits(x) != bits(y)]
    assert not bad, f"{len(bad)} rows differ, first {bad[:3]}: {a[bad[0]]!r} vs {b[bad[0]]!r}"


# -------------------------------------------------------------------- gradient boosting


def gbc_rows(schema, est, X):
    thr = [t for e in est.estimators_[:, 0] for f, t in zip(e.tree_.feature, e.tree_.threshold) if f == 2]
    return round_trips(schema, np.vstack([X, boundary_rows(X, thr)]))


@pytest.mark.parametrize("loss", ["log_loss", "exponential"])
def test_gradient_boosting_is_read_bit_for_bit(schema, loss):
    X, y = applicants()
    est = GradientBoostingClassifier(loss=loss, n_estimators=25, max_depth=3, learning_rate=0.3,
                                     subsample=0.8, random_state=0).fit(X, y)
    rows = gbc_rows(schema, est, X)
    with cfx.Model.from_sklearn(schema, est, favourable=1) as m:
        assert m.kind == "trees"
        assert any("GradientBoostingClassifier" in line for line in m.import_report)
        score, prob, acc = cfx_scores(m, schema, rows)
        factor = 2.0 if loss == "exponential" else 1.0  # predict_proba = expit(2·raw)
        assert_bit_exact(score, factor * est.decision_function(rows))
        p1 = est.predict_proba(rows)[:, 1]
        assert np.max(np.abs(prob - p1)) < 1e-15
        assert (acc == (p1 > 0.5)).all()


def test_gradient_boosting_of_default_is_turned_round(schema):
    X, y = applicants()
    default = 1 - y  # class 1 = default, as credit models are usually trained
    est = GradientBoostingClassifier(n_estimators=15, max_depth=2, random_state=0).fit(X, default)
    rows = gbc_rows(schema, est, X)
    with cfx.Model.from_sklearn(schema, est, favourable=0, threshold=0.3) as m:
        score, _, acc = cfx_scores(m, schema, rows)
        assert_bit_exact(score, -est.decision_function(rows))
        pd = est.predict_proba(rows)[:, 1]
        assert (acc == (pd < 0.3))[np.abs(pd - 0.3) > 1e-12].all()
        assert any("index 0" in line for line in m.import_report)


def test_gradient_boosting_settings_that_are_refused(schema):
    X, y = applicants(200)
    est = GradientBoostingClassifier(n_estimators=3, random_state=0).fit(X, y)
    with pytest.raises(ValueError, match="favourable=<label>"):
        cfx.Model.from_sklearn(schema, est)
    with pytest.raises(ValueError, match="not one of the model's classes_"):
        cfx.Model.from_sklearn(schema, est, favourable="repaid")
    init = GradientBoostingClassifier(n_estimators=3, init=LogisticRegression(), random_state=0).fit(X, y)
    with pytest.raises(ValueError, match="init=LogisticRegression"):
        cfx.Model.from_sklearn(schema, init, favourable=1)
    three = GradientBoostingClassifier(n_estimators=2, random_state=0).fit(X, X[:, 4].astype(int))
    with pytest.raises(ValueError, match="binary classifiers"):
        cfx.Model.from_sklearn(schema, three, favourable=1)
    narrow = GradientBoostingClassifier(n_estimators=2, random_state=0).fit(X[:, :4], y)
    with pytest.raises(ValueError, match="fitted on 4 columns"):
        cfx.Model.from_sklearn(schema, narrow, favourable=1)


def test_hist_gradient_boosting_with_categories_is_read_bit_for_bit(schema):
    X, y = applicants()
    # Level 2 of housing never seen in training: scikit-learn sends it the missing way.
    keep = X[:, 4] != 2
    est = HistGradientBoostingClassifier(max_iter=30, max_leaf_nodes=8, learning_rate=0.3,
                                         categorical_features=[4], early_stopping=False,
                                         random_state=0).fit(X[keep], y[keep])
    thr = [nd["num_threshold"] for (p,) in est._predictors for nd in p.nodes
           if not nd["is_leaf"] and nd["feature_idx"] == 2 + 1 and not nd["is_categorical"]]
    rows = round_trips(schema, np.vstack([X, boundary_rows(X, [t for t in thr if np.isfinite(t)])]))
    with cfx.Model.from_sklearn(schema, est, favourable=1) as m:
        assert any("OrdinalEncoder" in line for line in m.import_report)
        score, prob, acc = cfx_scores(m, schema, rows)
        assert_bit_exact(score, est.decision_function(rows))
        p1 = est.predict_proba(rows)[:, 1]
        assert np.max(np.abs(prob - p1)) < 1e-15
        assert (acc == (p1 > 0.5)).all()
    on_level2 = rows[:, 4] == 2
    assert on_level2.sum() > 100


def test_hist_gradient_boosting_early_stopped_is_read_as_it_predicts(schema):
    X, y = applicants()
    est = HistGradientBoostingClassifier(max_iter=200, early_stopping=True, n_iter_no_change=3,
                                         validation_fraction=0.2, random_state=0).fit(X, y)
    assert est.n_iter_ < 200
    with cfx.Model.from_sklearn(schema, est, favourable=1) as m:
        rows = round_trips(schema, X)
        score, _, _ = cfx_scores(m, schema, rows)
        assert_bit_exact(score, est.decision_function(rows))
        assert json.loads(m.to_json())["roots"].__len__() == est.n_iter_


def test_hist_gradient_boosting_category_on_a_contiguous_feature_is_refused(schema):
    X, y = applicants(300)
    est = HistGradientBoostingClassifier(max_iter=5, categorical_features=[3], random_state=0)
    est.fit(np.where(X < 0, 0, X), y)  # delinq as a category (its codes made non-negative)
    with pytest.raises(ValueError, match="splits feature 'delinq' as a category"):
        cfx.Model.from_sklearn(schema, est, favourable=1)


def test_pipelines_and_forests_are_refused_with_the_reason(schema):
    X, y = applicants(200)
    pipe = make_pipeline(StandardScaler(), LogisticRegression()).fit(schema.encode(X), y)
    with pytest.raises(ValueError, match=r"Pipeline \(StandardScaler -> LogisticRegression\)"):
        cfx.Model.from_sklearn(schema, pipe)
    rf = RandomForestClassifier(n_estimators=2, random_state=0).fit(X, y)
    with pytest.raises(ValueError, match="skl2onnx"):
        cfx.Model.from_sklearn(schema, rf, favourable=1)


# -------------------------------------------------------------------- logistic regression


@pytest.mark.parametrize("class_weight", [None, "balanced"])
def test_logistic_regression_is_read_within_a_dot_product_rounding(schema, class_weight):
    X, y = applicants()
    E = schema.encode(X)
    est = LogisticRegression(C=0.5, class_weight=class_weight, max_iter=2000).fit(E, y)
    d = est.decision_function(E)
    p1 = est.predict_proba(E)[:, 1]
    with cfx.Model.from_sklearn(schema, est) as m:
        score, prob, acc = cfx_scores(m, schema, X)  # the encoding's ulps are within the bound
    # The same products summed in another order: within a few ulps of the terms' magnitude.
    scale = np.abs(E * est.coef_[0]).sum(axis=1) + abs(est.intercept_[0])
    assert (np.abs(score - d) <= 8 * np.finfo(float).eps * scale).all()
    assert np.max(np.abs(prob - p1)) < 1e-12
    clear = np.abs(d) > 1e-9
    assert (acc == (p1 > 0.5))[clear].all()


def test_logistic_regression_labels_and_favourable_class(schema):
    X, y = applicants()
    E = schema.encode(X)
    labels = np.where(y == 1, "repaid", "default")  # classes_ sorted: ["default", "repaid"]
    est = LogisticRegression(max_iter=2000).fit(E, labels)
    with pytest.raises(ValueError, match="favourable=<label>"):
        cfx.Model.from_sklearn(schema, est)
    d = est.decision_function(E)  # log-odds of "repaid" (class 1)
    with cfx.Model.from_sklearn(schema, est, favourable="repaid") as m:
        score, _, _ = cfx_scores(m, schema, X)
        assert np.max(np.abs(score - d)) < 1e-12
    # A model of default: favourable is class 0, the score is minus the log-odds of default.
    est = LogisticRegression(max_iter=2000).fit(E, 1 - y)
    d = est.decision_function(E)
    pd = est.predict_proba(E)[:, 1]
    with cfx.Model.from_sklearn(schema, est, favourable=0, threshold=0.2) as m:
        score, _, acc = cfx_scores(m, schema, X)
        assert np.max(np.abs(score + d)) < 1e-12
        assert (acc == (pd < 0.2))[np.abs(pd - 0.2) > 1e-9].all()
