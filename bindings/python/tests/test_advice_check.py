"""Advice the model accepts, or none (issue 25): the advice status of a robust result and of each
option of a checked COPA plan, on bindings/testdata/advice_check_schema.json (its README gives the
expected outcomes; tests/ffi_copa_advice.rs checks them in Rust)."""

import os

import numpy as np
import pytest

import cfx
from conftest import ROOT

APPLICANT = [30000.0, -7.0, 1.0, 30.0]
TODAY = [-3.0, 4.0, 1.5, 0.8, 0.5, -0.3, 0.0, 1.0]


def read(*parts):
    with open(os.path.join(ROOT, *parts), encoding="utf-8") as f:
        return f.read()


@pytest.fixture(scope="module")
def toy():
    s = cfx.Schema.from_json(read("bindings", "testdata", "advice_check_schema.json"))
    m = cfx.Model.from_json(s, read("examples", "c", "data", "applicant_model.json"))
    yield s, m
    m.close()
    s.close()


def test_a_robust_result_says_it_is_valid_advice(toy):
    s, m = toy
    with cfx.Noise.gaussian(schema=s, sigma2=0.01) as noise, cfx.robust.generate(s, m, noise, "wachter", APPLICANT) as r:
        assert r.advice_status == "valid"
        assert np.array_equal(r.advice(), r.raw())
        assert m.predict_raw(s, r.advice()).accepted
        assert r.describe().startswith("income: 30000 → ")
        assert "(accepted, probability " in r.describe()
        assert "valid" in str(r)
        assert '"outcome": "valid"' in r.to_json()


def test_checked_copa_options_are_valid_or_repaired(toy):
    s, m = toy
    flipped = list(TODAY)
    flipped[1] = -4.0
    cov = np.eye(8) * 0.05
    with (
        cfx.Uncertainty.from_moments(TODAY, cov) as u,
        cfx.Uncertainty.from_moments(flipped, cov) as uf,
        cfx.copa.plan_checked(s, u, m, APPLICANT) as valid,
        cfx.copa.plan_checked(s, uf, m, APPLICANT) as repaired,
        cfx.copa.plan(s, u, APPLICANT) as unchecked,
    ):
        assert len(valid) == 5
        # The box binds all five options at the same limit: one row, described once.
        lines = valid.describe().splitlines()
        assert len(lines) == 1
        assert lines[0].startswith("options 1, 2, 3, 4 and 5 (the same row): income: 30000 → 100000 (accepted")
        for k in range(5):
            assert valid.advice_status(k) == "valid"
            assert np.array_equal(valid.advice(k), valid.option(k))
        lines = repaired.describe().splitlines()
        assert len(lines) == 1
        assert "repaired by the exact engine over the features the method moved" in lines[0]
        for k in range(5):
            assert repaired.advice_status(k) == "repaired_moved_features"
            assert repaired.advice(k).tolist() == [58334.0, -7.0, 1.0, 30.0]
            assert not m.predict_raw(s, repaired.option(k)).accepted
        # The repair is the cheapest accepted income: one less is declined.
        assert m.predict_raw(s, [58334.0, -7.0, 1.0, 30.0]).accepted
        assert not m.predict_raw(s, [58333.0, -7.0, 1.0, 30.0]).accepted
        assert '"outcome": "repaired"' in repaired.to_json()
        with pytest.raises(cfx.CfxError) as e:
            unchecked.advice_status(0)
        assert e.value.status_name == "CFX_STATUS_INVALID_ARGUMENT"
        assert "cfx_copa_plan_new_checked" in str(e.value)
        with pytest.raises(cfx.CfxError) as e:
            valid.advice_status(5)
        assert e.value.status_name == "CFX_STATUS_NOT_FOUND"
