"""Models fitted in the Python ecosystem pass into cfx without hand-copying weights, and
cfx's predictions equal the source library's own."""

import os

import numpy as np
import pandas as pd
import pytest

import cfx
from conftest import ROOT, require, shared_data

LIGHTGBM_OPTIONS = {
    "columns": {
        "checking_none": {"feature": "status_of_existing_checking_account", "level": "no checking account"}
    }
}


def test_sklearn_logistic_regression_predicts_as_sklearn_on_every_row(german_path):
    from sklearn.linear_model import LogisticRegression

    with cfx.load_german(german_path) as d, d.schema as s:
        x, y = d.encoded(), d.labels
        train = np.arange(len(y)) % 10 < 7
        clf = LogisticRegression(C=1.0, max_iter=2000).fit(x[train], y[train])
        with cfx.Model.from_sklearn(s, clf) as m:
            assert m.kind == "linear" and m.input_dim == s.encoded_dim
            ours = m.probabilities(x)
            theirs = clf.predict_proba(x)[:, 1]
            np.testing.assert_allclose(ours, theirs, rtol=1e-12, atol=1e-15)
            np.testing.assert_array_equal(ours > 0.5, clf.predict(x) == 1)
            np.testing.assert_allclose(m.scores(x), clf.decision_function(x), rtol=1e-12, atol=1e-12)
            # A counterfactual under the imported model is accepted by sklearn itself.
            declined = int(np.flatnonzero(clf.predict(x) == 0)[0])
            with cfx.explain(s, m, d.row(declined)) as r:
                assert r.outcome == "optimal"
                cf = s.encode(r.counterfactual(0))
                assert clf.predict(cf.reshape(1, -1))[0] == 1
                assert clf.predict_proba(cf.reshape(1, -1))[0, 1] == pytest.approx(
                    r.certificate(0).probability, rel=1e-12
                )


def test_sklearn_model_of_the_wrong_width_is_refused(german_path):
    from sklearn.linear_model import LogisticRegression

    with cfx.load_german(german_path) as d, d.schema as s:
        clf = LogisticRegression().fit(d.encoded()[:, :5], d.labels)
        with pytest.raises(ValueError, match="schema.encode"):
            cfx.Model.from_sklearn(s, clf)


def test_optbinning_table_scores_as_optbinning_on_every_german_row(german_path):
    table = os.path.join(ROOT, "examples", "data", "german_scorecard_table.csv")
    peer = pd.read_csv(os.path.join(ROOT, "tests", "reference", "german_scorecard_scores.csv"))
    # optbinning's `Scorecard.table(style="detailed")` as the DataFrame a modeller holds.
    frame = pd.read_csv(table, dtype=str, keep_default_na=False)
    with cfx.load_german(german_path) as d, d.schema as s:
        assert list(peer["row"]) == list(range(len(d)))
        cutoff, scaling = 487.1228762045055, (28.85390081777927, 487.1228762045055)
        with (
            cfx.from_optbinning(s, frame, cutoff, scaling) as card,
            cfx.from_optbinning(s, table, cutoff, scaling) as from_file,
        ):
            assert card.kind == "scorecard"
            assert card.to_json() == from_file.to_json()
            points = np.array([card.predict_raw(s, d.row(i)).score for i in range(len(d))])
            worst = np.max(np.abs(points - peer["score"].to_numpy()))
            assert worst <= 1e-9, f"worst difference to optbinning's scores: {worst}"
        with cfx.ScorecardImport.from_table(s, frame, cutoff) as imp:
            report = imp.report()
            assert report["format"] == "optbinning"
            assert report["characteristics"] == frame["Variable"].nunique() == s.n_features
            assert report["unused_features"] == []
            with imp.model() as m:
                assert np.isnan(m.predict_raw(s, d.row(0)).probability)  # no scaling, no probability


def test_a_characteristic_absent_from_the_table_is_refused_unless_declared_unused(german_path):
    table = os.path.join(ROOT, "examples", "data", "german_scorecard_table.csv")
    frame = pd.read_csv(table, dtype=str, keep_default_na=False)
    without = frame[frame["Variable"] != "telephone"]
    with cfx.load_german(german_path) as d, d.schema as s:
        with pytest.raises(cfx.CfxError, match="'telephone'.*unused_features") as e:
            cfx.ScorecardImport.from_table(s, without, 487.0)
        assert e.value.status_name == "CFX_STATUS_FORMAT_ERROR"
        with pytest.raises(cfx.CfxError, match="'phone'"):
            cfx.ScorecardImport.from_table_with_options(s, without, 487.0, unused_features=["phone"])
        with cfx.ScorecardImport.from_table_with_options(
            s, without, 487.0, scaling=(28.85390081777927, 487.0), unused_features=["telephone"]
        ) as imp, cfx.ScorecardImport.from_table(s, frame, 487.0) as full:
            assert imp.report()["unused_features"] == ["telephone"]
            phone = frame[frame["Variable"] == "telephone"]["Points"].astype(float)
            with imp.model() as m, full.model() as f:
                # Without the telephone characteristic, each row scores its points less.
                row = d.row(0)
                diff = f.predict_raw(s, row).score - m.predict_raw(s, row).score
                assert min(abs(diff - p) for p in phone) <= 1e-9
                assert not np.isnan(m.predict_raw(s, row).probability)


def hand_margin(duration, amount, no_checking):
    """The margin of bindings/testdata's hand-written trees (see its README)."""
    t0 = 0.5 if duration < 24 else -0.5
    t1 = (0.5 if duration < 12 else 0.375) if amount < 4000 else -0.375
    t2 = 0.25 if no_checking else -0.25
    return t0 + t1 + t2


def test_xgboost_and_lightgbm_files_score_the_hand_margins_on_every_german_row(german_path):
    xgb_path = os.path.join(ROOT, "bindings", "testdata", "german_trees_xgboost.json")
    lgb_path = os.path.join(ROOT, "bindings", "testdata", "german_trees_lightgbm.txt")
    with open(xgb_path, encoding="utf-8") as f:
        xgb_json = f.read()
    with open(lgb_path, encoding="utf-8") as f:
        lgb_text = f.read()
    with cfx.load_german(german_path) as d, d.schema as s:
        frame = d.to_frame()
        models = [
            cfx.Model.from_xgboost(s, xgb_json),
            cfx.Model.from_xgboost(s, xgb_path),
            cfx.Model.from_lightgbm(s, lgb_text, LIGHTGBM_OPTIONS),
            cfx.Model.from_lightgbm(s, lgb_path, LIGHTGBM_OPTIONS),
        ]
        try:
            assert models[0].to_json() == models[1].to_json()
            assert models[2].to_json() == models[3].to_json()
            margins = np.array(
                [
                    hand_margin(
                        r.duration_in_month,
                        r.credit_amount,
                        r.status_of_existing_checking_account == "no checking account",
                    )
                    for r in frame.itertuples()
                ]
            )
            x = d.encoded()
            for m in models:
                assert m.kind == "trees"
                np.testing.assert_array_equal(m.scores(x), margins)
                np.testing.assert_allclose(m.probabilities(x), 1 / (1 + np.exp(-margins)), rtol=1e-15)
            assert int(np.sum(margins <= 0)) == 362
        finally:
            for m in models:
                m.close()


def test_the_favourable_class_is_declared_and_checked_on_the_german_labels(german_path):
    xgb_path = os.path.join(ROOT, "bindings", "testdata", "german_trees_xgboost.json")
    with cfx.load_german(german_path) as d, d.schema as s:
        frame = d.to_frame()
        margins = np.array(
            [
                hand_margin(
                    r.duration_in_month,
                    r.credit_amount,
                    r.status_of_existing_checking_account == "no checking account",
                )
                for r in frame.itertuples()
            ]
        )
        good = np.asarray(d.labels) == 1
        # Oracle: every (good, bad) pair of the hand margins, ties one half.
        diff = margins[good][:, None] - margins[~good][None, :]
        expected = ((diff > 0).sum() + 0.5 * (diff == 0).sum()) / diff.size
        assert expected > 0.5
        with cfx.Model.from_xgboost(s, xgb_path, favourable=1, check_on=d) as m:
            assert m.check_favourable(d) == pytest.approx(expected, abs=1e-12)
            assert "favourable class 1 (declared)" in m.report
        with cfx.Model.from_xgboost(s, xgb_path, {"favourable_class": 0}) as m:
            np.testing.assert_array_equal(m.scores(d.encoded()), -margins)
            with pytest.raises(cfx.CfxError, match="favourable_class"):
                m.check_favourable(d)
        # Refused at import when the labelled rows are given.
        with pytest.raises(cfx.CfxError, match="favourable_class"):
            cfx.Model.from_xgboost(s, xgb_path, favourable=0, check_on=d)
        # Without a live classifier's classes_, the favourable class is its index.
        with pytest.raises(ValueError, match="class index"):
            cfx.Model.from_xgboost(s, xgb_path, favourable="good")
        with pytest.raises(ValueError, match="favourable_class"):
            cfx.Model.from_xgboost(s, xgb_path, {"favourable_class": 1}, favourable=0)


@pytest.mark.parametrize(
    "library,model_file,margins_file",
    [
        ("xgboost", "heloc_xgb.json", "heloc_xgb_margins.csv"),
        ("lightgbm", "heloc_lgbm.txt", "heloc_lgbm_margins.csv"),
    ],
)
def test_heloc_models_of_the_peer_give_the_library_margins_on_every_row(library, model_file, margins_file):
    """The 100-tree XGBoost and LightGBM models that benches/peers/trees_train.py trains on
    HELOC, with each library's own margins of every row (target/peers; `make peers-trees`)."""
    peers = os.path.join(ROOT, "target", "peers")
    model_path = require(os.path.join(peers, model_file), f"the peer's {library} model (make peers-trees)")
    margins_path = require(os.path.join(peers, margins_file), f"{library}'s margins (make peers-trees)")
    heloc = shared_data("heloc.csv")
    lib = pd.read_csv(margins_path)
    load = cfx.Model.from_xgboost if library == "xgboost" else cfx.Model.from_lightgbm
    with open(model_path, encoding="utf-8") as f:
        text = f.read()
    with cfx.load_heloc(heloc) as d, d.schema as s, load(s, text) as m, load(s, model_path) as from_file:
        assert m.kind == "trees" and m.to_json() == from_file.to_json()
        assert list(lib["row"]) == list(range(len(d)))
        ours = m.scores(d.encoded())
        worst = float(np.max(np.abs(ours - lib["margin"].to_numpy())))
        assert worst <= 1e-6, f"worst margin difference to {library}: {worst}"


def test_the_tree_search_proves_the_peer_xgboost_optimum_that_highs_proves():
    """The first declined held-out HELOC applicant under the peer's 100-tree XGBoost model: the
    exact tree search (the default for trees) and HiGHS on the same program give the same
    proven optimum, and the model accepts the answer."""
    peers = os.path.join(ROOT, "target", "peers")
    model_path = require(os.path.join(peers, "heloc_xgb.json"), "the peer's xgboost model (make peers-trees)")
    heloc = shared_data("heloc.csv")
    with cfx.load_heloc(heloc) as d:
        train, test = d.holdout_split()
        with train, test, train.fitted_schema() as s, cfx.Model.from_xgboost(s, model_path) as m:
            i = next(i for i in range(len(test)) if not m.predict_raw(s, test.row(i)).accepted)
            raw = test.row(i)
            with cfx.Config(time_limit=120) as auto, cfx.Config(time_limit=120, solver="mip") as mip:
                with cfx.explain(s, m, raw, auto) as a, cfx.explain(s, m, raw, mip) as h:
                    assert (a.outcome, a.proved_by) == ("optimal", "tree_search")
                    assert (h.outcome, h.proved_by) == ("optimal", "highs")
                    assert abs(a.certificate(0).cost - h.certificate(0).cost) <= 1e-9 * h.certificate(0).cost
                    assert m.predict_raw(s, a.counterfactual(0)).accepted
