"""Adverse-action notices through the C ABI: one declined German applicant under the logistic
model, its reasons checked against the linear closed form (the base value is the model's score
of the reference rows' average encoding; contributions add up to the score) and its HTML
against the reasons it must show."""

import json
import os

import numpy as np
import pytest

import cfx
from conftest import ROOT


def test_notice_of_a_declined_german_applicant(german_path):
    with cfx.load_german(german_path) as d, d.schema as s, cfx.Model.fit_linear(d, 1.0) as m:
        row = next(d.row(i) for i in range(len(d)) if not m.predict_raw(s, d.row(i)).accepted)
        table = os.path.join(ROOT, "examples", "data", "reasons", "german_reasons.csv")
        with cfx.notice(s, m, d, row, {"reason_table_path": table}) as nt:
            doc = json.loads(nt.to_json())
            html = nt.to_html()
        assert doc["kind"] == "notice" and doc["result"]["format_version"] == 2
        rs = doc["result"]["reasons"]
        assert 1 <= len(rs["reasons"]) <= 4 and rs["method"] == "linear_exact"
        # Oracle: against all applicants, the base value of a linear model is its score of the
        # average encoded row, and the contributions add up to score − base.
        enc = np.array([s.encode(d.row(i)) for i in range(len(d))])
        base = m.scores(enc.mean(axis=0, keepdims=True))[0]
        assert rs["base_value"] == pytest.approx(base, rel=1e-9, abs=1e-9)
        assert rs["score"] == pytest.approx(m.predict_raw(s, row).score, rel=1e-12, abs=1e-12)
        contrib = {c["feature"]: c["contribution"] for c in rs["contributions"]}
        assert sum(contrib.values()) == pytest.approx(rs["score"] - base, abs=1e-9)
        # The reasons are the most negative contributions, in order.
        worst = sorted((v, f) for f, v in contrib.items() if v < 0)[: len(rs["reasons"])]
        assert [r["feature"] for r in rs["reasons"]] == [f for _, f in worst]
        assert doc["result"]["advice"]["status"] == "optimal"
        assert "<script" not in html.lower()
        for r in rs["reasons"]:
            assert r["statement"] and r["statement"] in html
        # An accepted applicant gets no notice; unknown options are refused.
        ok = next(d.row(i) for i in range(len(d)) if m.predict_raw(s, d.row(i)).accepted)
        with pytest.raises(cfx.CfxError, match="accepts"):
            cfx.notice(s, m, d, ok)
        with pytest.raises(cfx.CfxError) as e:
            cfx.notice(s, m, d, row, {"max_reason": 3})
        assert e.value.status_name == "CFX_STATUS_FORMAT_ERROR"


def test_a_book_of_notices_and_its_ledger(german_path, tmp_path):
    """One line per declined applicant of 40 German rows (the model's own decisions are the
    oracle), each the notice `cfx.notice` makes for that row (same id), and the ledger's
    records carry those ids."""
    with cfx.load_german(german_path) as d, d.schema as s, cfx.Model.fit_linear(d, 1.0) as m:
        with open(german_path) as f:
            head = f.readlines()[:41]
        book = tmp_path / "book.csv"
        book.write_text("".join(head))
        out, ledger = tmp_path / "notices.jsonl", tmp_path / "ledger.jsonl"
        opts = {"ignore_columns": ["creditability"], "necessity": False}
        written = cfx.notice_book(s, m, d, book, out, ledger, opts)
        lines = [json.loads(l) for l in out.read_text().splitlines()]
        assert written == len(lines)
        declined = [i for i in range(40) if not m.predict_raw(s, d.row(i)).accepted]
        assert [l["row"] for l in lines] == declined
        ledger_notices = {json.loads(l)["notice"] for l in ledger.read_text().splitlines()}
        for l in lines:
            with cfx.notice(s, m, d, d.row(l["row"]), {"necessity": False}) as one:
                assert json.loads(one.to_json())["result"] == l["notice"]
            assert l["notice"]["id"] in ledger_notices
        with pytest.raises(cfx.CfxError) as e:
            cfx.notice_book(s, m, d, book, book)
        assert e.value.status_name == "CFX_STATUS_INVALID_ARGUMENT"
