"""What a coherent answer says about itself and how far it may be trusted: the solver that
proved it (the separable solver against HiGHS on the same applicant), robust advice whose Γ
is the estimator's exact closed form for the answer and meets its target, plausibility
flags against the accepted applicants' quantiles (numpy's, the same linear interpolation),
and the German scorecard bundled with cfx against optbinning's own scores."""

import json
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


def test_waiting_advice_closed_form_no_advice_and_refusals():
    # Income 0..100 (slot income/100) and months 0..10 growing one a month; the model
    # 4·slot(income) + slot(months) − 3 > 0 at income 20, months 0. Each month waited lowers the
    # income slot needed by 1/40. At 0.5 a month waiting never pays: the advice is the plain
    # optimum. At 0.001 a month it always pays: wait the full 10 months, then move.
    def schema(price):
        b = cfx.SchemaBuilder().add_contiguous("income", 0, 100).add_contiguous("months", 0, 10, integer=True)
        return b.set_time_growth(1).set_waiting(price, 10).build()

    with schema(0.5) as s, cfx.Model.linear([4.0, 1.0], -3.0) as m:
        with cfx.explain_with_waiting(s, m, [20.0, 0.0]) as w, cfx.explain(s, m, [20.0, 0.0]) as now:
            assert w.found
            assert w.months == 0 and w.summary().wait_cost == 0.0
            assert w.cost == now.certificate(0).cost
            assert list(w.final_row()) == list(now.counterfactual(0))
            assert w.summary().proved_by in ("highs", "separable")
        with pytest.raises(cfx.CfxError) as e:
            cfx.explain_with_waiting(s, m, [90.0, 0.0])  # already accepted
        assert e.value.status_name == "CFX_STATUS_INVALID_ARGUMENT"
    with schema(0.001) as s, cfx.Model.linear([4.0, 1.0], -3.0) as m:
        with cfx.explain_with_waiting(s, m, [20.0, 0.0]) as w, cfx.explain(s, m, [20.0, 10.0]) as later:
            assert w.months == 10 and w.summary().wait_cost == 0.001 * 10
            assert list(w.waited_row()) == [20.0, 10.0]
            assert w.cost == 0.001 * 10 + later.certificate(0).cost
            assert list(w.final_row()) == list(later.counterfactual(0))
            assert w.describe().startswith("wait 10 months (months: 0 → 10), then income: 20 → ")
    # Income immutable, no waiting: nothing is accepted, a result and not an error.
    b = cfx.SchemaBuilder().add_contiguous("income", 0, 100).set_actionability(mutable=False)
    with b.build() as s, cfx.Model.linear([4.0], -3.0) as m, cfx.explain_with_waiting(s, m, [20.0]) as w:
        assert not w.found
        assert w.describe().startswith("no advice")
        with pytest.raises(cfx.CfxError) as e:
            w.summary()
        assert e.value.status_name == "CFX_STATUS_NOT_FOUND"
        with pytest.raises(cfx.CfxError):
            w.final_row()


def test_waiting_advice_at_a_node_limit_is_unproven_not_an_error():
    # Income 0..100 in whole units and months 0..10 growing one a month, waiting at 0.001 a month;
    # 4·slot(income) + w·slot(months) − 3 declines income 20 at month 0. No month's income need is
    # a whole number at the separable solver's root, so a node limit of 1 stops every month's
    # solve: with w = 1 (waiting alone never accepted) the outcome is "unproven", with w = 3
    # (accepted from month 8) "wait 8 months" is found but not proven. Without the limit: proven.
    b = cfx.SchemaBuilder().add_contiguous("income", 0, 100, integer=True)
    b = b.add_contiguous("months", 0, 10, integer=True).set_time_growth(1).set_waiting(0.001, 10)
    row = [20.0, 0.0]
    with (
        b.build() as s,
        cfx.Config(solver="separable", node_limit=1) as limited,
        cfx.Config(solver="separable") as full,
        cfx.Model.linear([4.0, 1.0], -3.0) as never,
        cfx.Model.linear([4.0, 3.0], -3.0) as at8,
    ):
        with cfx.explain_with_waiting(s, never, row, limited) as w:
            assert (w.outcome, w.found, w.proven) == ("unproven", False, False)
            assert w.describe().startswith("no advice found, and none proven impossible: the separable")
            assert json.loads(w.to_json())["result"] == {
                "proven": False,
                "unproven": {"status": "unknown", "raw_status": -3},
            }
            with pytest.raises(cfx.CfxError) as e:
                w.summary()
            assert e.value.status_name == "CFX_STATUS_NOT_FOUND"
        with cfx.explain_with_waiting(s, never, row, full) as w:
            assert (w.outcome, w.proven, w.months) == ("found", True, 10)
        with cfx.explain_with_waiting(s, at8, row, limited) as w:
            assert (w.outcome, w.proven, w.months) == ("found", False, 8)
            assert w.describe().endswith("(not proven optimal: the separable solver's node limit stopped a solve)")
            assert json.loads(w.to_json())["result"]["proven"] is False
        with cfx.explain_with_waiting(s, at8, row, full) as w:
            assert (w.outcome, w.proven, w.months) == ("found", True, 8)
    with pytest.raises(cfx.CfxError) as e:
        cfx.Config(node_limit=0)
    assert e.value.status_name == "CFX_STATUS_INVALID_ARGUMENT"


def test_a_level_order_decides_which_way_is_up():
    # Levels "high", "low", "unknown" (that index order), ordered low < high, increase only; the
    # model accepts "low" alone. By the order high → low is down (by index an increase), and
    # unknown → low is outside the order (by index a decrease).
    b = cfx.SchemaBuilder().add_categorical("savings", ["high", "low", "unknown"])
    b.set_level_order(["low", "high"]).set_actionability(True, "increase_only")
    with b.build() as s, cfx.Model.linear([0.0, 5.0, 0.0], -3.0) as m:
        assert '"level_order"' in s.to_json()
        with cfx.explain(s, m, [0.0]) as r:
            assert r.outcome == "infeasible"
        with cfx.explain(s, m, [2.0]) as r:
            assert r.outcome == "optimal" and list(r.counterfactual(0)) == [1.0]
    b = cfx.SchemaBuilder().add_categorical("savings", ["high", "low"]).set_level_order(["low", "medium"])
    with pytest.raises(cfx.CfxError) as e:
        b.build()
    assert e.value.status_name == "CFX_STATUS_INVALID_SCHEMA" and "medium" in e.value.message
    with pytest.raises(cfx.CfxError) as e:
        cfx.SchemaBuilder().add_contiguous("m", 0, 10).set_level_order(["a"])
    assert e.value.status_name == "CFX_STATUS_INVALID_ARGUMENT"


def test_robust_box_of_reachable_values_on_trees_and_refused_by_a_linear_model(german):
    """`robust_box="reachable_values"` (cfx_config_builder_set_robust_box): on the hand-written
    German tree model the robust answer is accepted, its Γ̃ (estimated under slips clipped to
    the range and rounded to the data's grid) meets the target within four standard errors, and
    the answer says which box it proves; a logistic model refuses the box (its margin is the
    closed form over the reals); an unknown box is refused."""
    _, s, _, test, lin = german
    xgb_path = os.path.join(ROOT, "bindings", "testdata", "german_trees_xgboost.json")
    with (
        cfx.Model.from_xgboost(s, xgb_path) as trees,
        cfx.Config(robust_advice=(0.0025, 0.2), robust_box="reachable_values") as reach,
        cfx.Config(robust_advice=(0.0025, 0.2), robust_box="reals") as reals,
    ):
        row = next(test.row(i) for i in range(len(test)) if not trees.predict_raw(s, test.row(i)).accepted)
        with cfx.explain(s, trees, row, reach) as r, cfx.explain(s, trees, row, reals) as q:
            assert len(r) >= 1 and len(q) >= 1
            assert trees.predict_raw(s, r.counterfactual(0)).accepted
            se = (0.2 * 0.8 / 10_000) ** 0.5
            assert 0 <= r.invalidation_rate(0) <= 0.2 + 4 * se
            assert "over reachable values" in r.describe()
            assert "over reachable values" not in q.describe()
        with pytest.raises(cfx.CfxError) as e:
            cfx.explain(s, lin, row, reach)
        assert e.value.status_name == "CFX_STATUS_INVALID_ARGUMENT" and "reachable" in e.value.message
    with pytest.raises(cfx.CfxError) as e:
        cfx.Config(robust_box=7)
    assert e.value.status_name == "CFX_STATUS_INVALID_ARGUMENT" and "box_kind" in e.value.message
    with pytest.raises(ValueError):
        cfx.Config(robust_box="integers")
