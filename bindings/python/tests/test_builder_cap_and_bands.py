"""The builder's last advice setters (issue 25), each shown to take effect on a model whose answer
is known by hand, and each refusing a bad value."""

import json

import pytest

import cfx


def capped_pair(cap=None):
    """a, b in [0, 6]; the model accepts a/6 + b/6 >= 1.6 (encoded slots), so (3, 3) needs both
    features to move: one alone reaches 1.5."""
    b = cfx.SchemaBuilder().add_contiguous("a", 0, 6).add_contiguous("b", 0, 6)
    return (b if cap is None else b.set_max_features_changed(cap)).build()


def test_a_cap_of_one_leaves_no_single_change_that_flips_the_decision():
    applicant = [3.0, 3.0]
    with cfx.Model.linear([1.0, 1.0], -1.6) as m, capped_pair() as free, capped_pair(1) as one:
        assert '"max_features_changed": 1' in one.to_json()
        assert "max_features_changed" not in free.to_json()
        with cfx.explain(free, m, applicant) as r:
            assert r.outcome == "optimal"
            cf = r.counterfactual(0)
            assert cf[0] != 3 and cf[1] != 3, cf
        with cfx.explain(one, m, applicant) as r:
            assert r.outcome == "infeasible"  # one slot at 1 and one at 0.5 is still declined
        with capped_pair(2) as two, cfx.explain(two, m, applicant) as r:
            assert r.outcome == "optimal"
    b = cfx.SchemaBuilder().add_contiguous("a", 0, 6)
    with pytest.raises(cfx.CfxError) as e:
        b.set_max_features_changed(0)
    assert e.value.status_name == "CFX_STATUS_INVALID_ARGUMENT" and "at least 1" in e.value.message
    with pytest.raises(ValueError):
        b.set_max_features_changed(-1)


def test_band_months_make_waiting_move_the_job_up_its_order():
    levels = ["< 1 year", "1 to 4 years", ">= 4 years"]
    with (
        cfx.SchemaBuilder()
        .add_categorical("job", levels)
        .set_level_order(levels)
        .set_band_months("< 1 year", 12)
        .set_band_months("1 to 4 years", 36)
        .set_waiting(0.01, 24)
        .build() as s,
        cfx.Model.linear([0.0, 5.0, 5.0], -3.0) as m,  # every level but the first is accepted
        cfx.explain_with_waiting(s, m, [0.0]) as a,
    ):
        assert '"band_months"' in s.to_json()
        assert a.found and a.months == 12
        assert list(a.waited_row()) == [1.0]
    b = cfx.SchemaBuilder().add_categorical("job", ["a", "b"])
    with pytest.raises(cfx.CfxError) as e:
        b.set_band_months("c", 12)
    assert e.value.status_name == "CFX_STATUS_NOT_FOUND"
    with pytest.raises(ValueError):
        b.set_band_months("a", -1)
    with pytest.raises(cfx.CfxError) as e:
        cfx.SchemaBuilder().add_contiguous("m", 0, 10, integer=True).set_band_months("a", 12)
    assert e.value.status_name == "CFX_STATUS_INVALID_ARGUMENT"
    with pytest.raises(cfx.CfxError) as e:
        b = cfx.SchemaBuilder().add_categorical("job", ["a", "b"]).set_level_order(["a", "b"])
        b.set_band_months("b", 12).set_waiting(1, 12).build()
    assert e.value.status_name == "CFX_STATUS_INVALID_SCHEMA" and "no next band" in e.value.message


def inquiries():
    """Months since the last inquiry in [0, 24]; the model accepts only "gone" (-7)."""
    return (
        cfx.SchemaBuilder()
        .add_contiguous("inq", 0, 24, integer=True)
        .add_special_state(-7, "gone")
        .set_time_growth(1, "gone")
    )


def test_ends_after_closes_the_window_before_the_upper_bound():
    with (
        inquiries().set_time_growth_ends_after(23).set_waiting(0.01, 24).build() as early,
        inquiries().set_waiting(0.01, 24).build() as late,
        cfx.Model.linear([0.0, 5.0], -3.0) as m,
    ):
        assert '"ends_after": 23' in early.to_json()
        with cfx.explain_with_waiting(early, m, [0.0]) as a:
            assert a.found and a.months == 24
            assert list(a.waited_row()) == [-7.0]
        with cfx.explain_with_waiting(late, m, [0.0]) as a:
            assert a.outcome == "no_advice"  # 24 months old after 24 months
    with pytest.raises(cfx.CfxError) as e:
        inquiries().set_time_growth_ends_after(30).set_waiting(0.01, 24).build()
    assert e.value.status_name == "CFX_STATUS_INVALID_SCHEMA" and "ends_after" in e.value.message
    with pytest.raises(cfx.CfxError) as e:
        cfx.SchemaBuilder().add_contiguous("m", 0, 10, integer=True).set_time_growth_ends_after(5)
    assert e.value.status_name == "CFX_STATUS_INVALID_ARGUMENT"


def delinquency(refuse):
    """Months since a delinquency in [0, 83] and the file's age in [0, 100], both growing a month a
    month; `refuse` makes the first refuse to pass 83. The model below accepts a file of 60 months
    or more, whatever the delinquency."""
    return (
        cfx.SchemaBuilder()
        .add_contiguous("delq", 0, 83, integer=True)
        .set_time_growth(1)
        .set_time_growth_refuse_past_upper(refuse)
        .add_contiguous("file", 0, 100, integer=True)
        .set_time_growth(1)
        .set_waiting(0.01, 24)
        .build()
    )


def test_refusing_past_the_upper_bound_shortens_the_wait():
    applicant = [80.0, 50.0]
    with (
        delinquency(False) as capped,
        delinquency(True) as refusing,
        cfx.Model.linear([0.0, 10.0], -5.95) as m,
    ):
        assert '"past_upper": "refuse"' in refusing.to_json()
        assert "past_upper" not in capped.to_json()
        with cfx.explain_with_waiting(capped, m, applicant) as a:
            # ten months, the delinquency piled at 83
            assert a.found and a.months == 10
            assert list(a.waited_row()) == [83.0, 60.0]
        with cfx.explain_with_waiting(refusing, m, applicant) as a:
            assert a.outcome == "no_advice"  # at most 3 months: the file only 53 months old
    with pytest.raises(cfx.CfxError) as e:
        inquiries().set_time_growth_refuse_past_upper().set_waiting(0.01, 24).build()
    assert e.value.status_name == "CFX_STATUS_INVALID_SCHEMA" and "past_upper" in e.value.message
    with pytest.raises(cfx.CfxError) as e:
        cfx.SchemaBuilder().add_contiguous("m", 0, 10, integer=True).set_time_growth_refuse_past_upper()
    assert e.value.status_name == "CFX_STATUS_INVALID_ARGUMENT"


def files(advised_range=None):
    """The file's age in [0, 100] months, growing a month a month (`advised_range` limits where
    a wait may take it), and x in [0, 10], integer. The model's score is
    10·file/100 − 3·x/10 − 2.45: a file of 25 months or more is accepted with x = 0, and with
    x = 10 one of 55; lowering x by 1 (cost 0.1) adds 0.3 to the score, waiting a month (cost
    0.01) adds 0.1."""
    b = cfx.SchemaBuilder().add_contiguous("file", 0, 100, integer=True).set_time_growth(1)
    if advised_range is not None:
        b.set_time_growth_advised_range(*advised_range)
    return b.add_contiguous("x", 0, 10, integer=True).set_waiting(0.01, 24).build()


def advised_range_of(schema):
    """The advised ranges of the schema's JSON, by feature name."""
    doc = json.loads(schema.to_json())
    return {
        f["name"]: f["actionability"]["grows_with_time"]["advised_range"]
        for f in doc["features"]
        if "advised_range" in (f.get("actionability", {}).get("grows_with_time") or {})
    }


def test_an_advised_range_keeps_waits_where_it_says():
    with files() as free, files((30, 40)) as ranged, cfx.Model.linear([10.0, -3.0], -2.45) as m:
        assert advised_range_of(ranged) == {"file": [30.0, 40.0]}
        assert "advised_range" not in free.to_json()
        # File 20: five months reach 25; within [30, 40] the waits are 0 and 10 to 20.
        with cfx.explain_with_waiting(free, m, [20.0, 0.0]) as a:
            assert a.found and a.months == 5 and list(a.final_row()) == [25.0, 0.0]
        with cfx.explain_with_waiting(ranged, m, [20.0, 0.0]) as a:
            assert a.found and a.months == 10 and list(a.final_row()) == [30.0, 0.0]
            assert a.cost == pytest.approx(0.10, abs=1e-9)
        # File 45, x 10: ten months (55) cost 0.10, below lowering x to 6 (0.4); above the
        # range every wait leaves it, so x moves.
        with cfx.explain_with_waiting(free, m, [45.0, 10.0]) as a:
            assert a.found and a.months == 10 and list(a.final_row()) == [55.0, 10.0]
        with cfx.explain_with_waiting(ranged, m, [45.0, 10.0]) as a:
            assert a.found and a.months == 0 and list(a.final_row()) == [45.0, 6.0]
            assert a.cost == pytest.approx(0.4, abs=1e-9)
    # A wait into the ends_in state is not judged: from 20, five months carry the inquiry out of
    # the window although 21 to 24 lie outside [0, 5].
    with (
        inquiries().set_time_growth_advised_range(0, 5).set_waiting(0.01, 24).build() as s,
        cfx.Model.linear([0.0, 5.0], -3.0) as m,
        cfx.explain_with_waiting(s, m, [20.0]) as a,
    ):
        assert a.found and a.months == 5 and list(a.waited_row()) == [-7.0]
    with pytest.raises(cfx.CfxError) as e:
        files((40, 30))
    assert e.value.status_name == "CFX_STATUS_INVALID_SCHEMA" and "advised_range" in e.value.message
    b = cfx.SchemaBuilder().add_contiguous("file", 0, 100).set_time_growth(1)
    with pytest.raises(cfx.CfxError) as e:
        b.set_time_growth_advised_range(float("nan"), 40)
    assert e.value.status_name == "CFX_STATUS_INVALID_ARGUMENT"
    with pytest.raises(cfx.CfxError) as e:
        cfx.SchemaBuilder().add_contiguous("m", 0, 10).set_time_growth_advised_range(0, 5)
    assert e.value.status_name == "CFX_STATUS_INVALID_ARGUMENT"


def test_plausibility_advises_waits_within_the_accepted_applicants_range():
    # Accepted files 30..=40: the type-7 1% and 99% points are 30 + 0.1 and 39 + 0.9. The
    # declined rows (0, 60 and 100 months) are not counted.
    rows = [[float(f), 5.0] for f in range(30, 41)] + [[0.0, 0.0], [60.0, 10.0], [100.0, 3.0]]
    labels = [1.0] * 11 + [0.0] * 3
    with files() as free, cfx.Model.linear([10.0, -3.0], -2.45) as m:
        with cfx.Plausibility.fit(free, rows, labels) as p, p.advise_waits() as within:
            ranges = advised_range_of(within)
            assert list(ranges) == ["file"]
            assert ranges["file"] == pytest.approx([30.1, 39.9], abs=1e-9)
            assert "advised_range" not in free.to_json()  # the fitted schema is unchanged
            # File 20: waits 0 and 11 to 19 land inside [30.1, 39.9]; 11 months are accepted.
            with cfx.explain_with_waiting(within, m, [20.0, 0.0]) as a:
                assert a.found and a.months == 11 and list(a.final_row()) == [31.0, 0.0]
            with cfx.explain_with_waiting(within, m, [45.0, 10.0]) as a:
                assert a.found and a.months == 0 and list(a.final_row()) == [45.0, 6.0]


def test_an_advice_grid_and_minimum_change_round_the_advice():
    """An income in [0, 100000] at 43217; the model accepts an income above 43500. Without a
    grid the answer is 43500 and a hair; advised in multiples of 1000 by at least 2000 it is
    46000 (44000 is on the grid but only 783 more, 45000 only 1783)."""

    def income(step, least):
        b = cfx.SchemaBuilder().add_contiguous("income", 0, 100000)
        return (b if step is None else b.set_advice_grid(step, least)).build()

    applicant = [43217.0]
    with cfx.Model.linear([1.0], -0.435) as m, income(None, 0) as free, income(1000, 2000) as grid:
        doc = json.loads(grid.to_json())["features"][0]["actionability"]
        assert (doc["advice_step"], doc["min_change"]) == (1000.0, 2000.0)
        assert {k: v for k, v in doc.items() if k not in ("advice_step", "min_change")} in (
            {}, {"direction": "any"})
        with cfx.explain(free, m, applicant) as r:
            assert 43500 < r.counterfactual(0)[0] < 43501
        with cfx.explain(grid, m, applicant) as r:
            assert r.outcome == "optimal"
            assert r.counterfactual(0) == [46000.0]
    b = cfx.SchemaBuilder().add_contiguous("income", 0, 100000)
    for bad in [(-1000, 0), (1000, float("nan")), (float("inf"), 0)]:
        with pytest.raises(cfx.CfxError) as e:
            b.set_advice_grid(*bad)
        assert e.value.status_name == "CFX_STATUS_INVALID_ARGUMENT" and "finite and non-negative" in e.value.message
    with pytest.raises(cfx.CfxError) as e:
        cfx.SchemaBuilder().add_contiguous("n", 0, 10, integer=True).set_advice_grid(2.5, 0).build()
    assert "whole number" in e.value.message
