"""What a coherent answer says about itself and how far it may be trusted: the solver that
proved it (the separable solver against HiGHS on the same applicant), robust advice whose Γ
is the estimator's exact closed form for the answer and meets its target, plausibility
flags against the accepted applicants' quantiles (numpy's, the same linear interpolation),
and the German scorecard bundled with cfx against optbinning's own scores."""

import os

import numpy as np
import pandas as pd
import pytest

import cfx
from conftest import ROOT


@pytest.fixture(scope="module")
def german(german_path):
    d = cfx.load_german(german_path)
    s = d.schema
    train, test = d.holdout_split()
    m = cfx.Model.fit_linear(train, 1.0)
    yield d, s, train, test, m
    for h in (m, test, train, s, d):
        h.close()


def test_solver_choice_and_the_solver_that_proved_the_answer(german):
    _, s, _, test, m = german
    row = test.row(2)  # the first declined held-out applicant
    assert not m.predict_raw(s, row).accepted
    with (
        cfx.Config(solver="mip") as mip,
        cfx.Config(solver="separable") as sep,
        cfx.explain(s, m, row) as auto,
        cfx.explain(s, m, row, mip) as a,
        cfx.explain(s, m, row, sep) as b,
    ):
        assert auto.proved_by == "separable"  # a linear model with per-feature constraints
        assert a.proved_by == "highs" and b.proved_by == "separable"
        x, y = a.certificate(0).cost, b.certificate(0).cost
        assert x == pytest.approx(y, rel=1e-9)
    with pytest.raises(cfx.CfxError) as e:
        cfx.Config(solver=7)
    assert e.value.status_name == "CFX_STATUS_INVALID_ARGUMENT" and "solver" in e.value.message
    with pytest.raises(ValueError):
        cfx.Config(solver="gurobi")


def test_robust_advice_meets_its_target_at_the_exact_rate(german):
    _, s, _, test, m = german
    raw = test.row(2)
    with (
        cfx.Config(robust_advice=(0.01, 0.1)) as robust,
        cfx.explain(s, m, raw) as plain,
        cfx.explain(s, m, raw, robust) as r,
        cfx.Noise.gaussian(s, 0.01) as noise,
        cfx.Estimator(noise, 2) as est,  # exact_rate draws nothing
    ):
        assert np.isnan(plain.invalidation_rate(0))
        gamma = r.invalidation_rate(0)
        assert 0 < gamma <= 0.1 + 1e-12
        cf = r.counterfactual(0)
        # Γ = Φ((logit t − w·x′ − b)/(σ‖w_S‖)) under N(0, σ²I) on the changeable value slots.
        assert gamma == pytest.approx(est.exact_rate(m, s.encode(cf)), rel=1e-9, abs=1e-12)
        assert r.certificate(0).cost >= plain.certificate(0).cost - 1e-9
        assert m.predict_raw(s, cf).accepted
        assert "robust to slips (σ² = 0.01, ≤ 10% declined)" in r.describe()
        with pytest.raises(cfx.CfxError) as e:
            r.invalidation_rate(len(r))
        assert e.value.status_name == "CFX_STATUS_NOT_FOUND"
    for bad in ((0.01, 1.0), (-1.0, 0.1)):
        with pytest.raises(cfx.CfxError) as e:
            cfx.Config(robust_advice=bad)
        assert e.value.status_name == "CFX_STATUS_INVALID_ARGUMENT"


def test_plausibility_flags_follow_the_accepted_applicants_quantiles(german):
    _, s, train, test, m = german
    raw = test.row(2)
    amount = s.index_of("credit_amount")
    with (
        cfx.Plausibility.fit(s, train.rows, train.labels) as ranges,
        cfx.Plausibility.from_dataset(train) as same,
    ):
        with cfx.explain(s, m, raw) as r:
            a = ranges.assess(raw, r.counterfactual(0))
            cf = r.counterfactual(0)
            assert len(a.flags) == s.n_features
            np.testing.assert_array_equal(a.flags == -1, cf == raw)  # −1 exactly where unchanged
            assert np.all(np.isnan(a.distances[cf == raw]))
        absurd = raw.copy()
        absurd[amount] = 18000  # above the 99 % point of accepted applicants' amounts
        a = ranges.assess(raw, absurd)
        accepted = train.rows[train.labels == 1, amount]
        assert a.flags[amount] == 1
        assert a.distances[amount] == pytest.approx(18000 - np.quantile(accepted, 0.99), rel=1e-12)
        assert all(f == -1 for i, f in enumerate(a.flags) if i != amount)
        inside = raw.copy()
        inside[amount] = np.quantile(accepted, 0.5)
        b = same.assess(raw, inside)
        assert b.flags[amount] == 0 and b.distances[amount] == 0
        with pytest.raises(cfx.CfxError) as e:
            ranges.assess([1.0], absurd)
        assert e.value.status_name == "CFX_STATUS_DIMENSION_MISMATCH"
    with pytest.raises(cfx.CfxError) as e:
        cfx.Plausibility.fit(s, train.rows, np.zeros(len(train)))  # no accepted row
    assert e.value.status_name == "CFX_STATUS_INVALID_ARGUMENT"


def test_the_bundled_german_scorecard_scores_as_optbinning(german):
    d, s, *_ = german
    table = os.path.join(ROOT, "examples", "data", "german_scorecard_table.csv")
    peer = pd.read_csv(os.path.join(ROOT, "tests", "reference", "german_scorecard_scores.csv"))
    cutoff, factor = 487.1228762045055, 28.85390081777927  # 20 points double the odds
    with cfx.ScorecardImport.load_german(s, table) as card, card.model() as m:
        assert card.report()["characteristics"] == 20
        for i in (0, 1, 9, 500, 999):
            p = m.predict_raw(s, d.row(i))
            want = peer["score"][i]
            assert p.score == pytest.approx(want, abs=1e-9)
            assert p.accepted == (want >= cutoff)
            assert p.probability == pytest.approx(1 / (1 + np.exp(-(want - cutoff) / factor)), rel=1e-12)
    with pytest.raises(cfx.CfxError) as e:
        cfx.ScorecardImport.load_german(s, os.path.join(ROOT, "no-such-table.csv"))
    assert e.value.status_name == "CFX_STATUS_IO_ERROR"
