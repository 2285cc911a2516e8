"""The C library's portfolio run (`cfx.portfolio.explain_csv`) and its summary
(`PortfolioSummary`). Oracles: the output file's own lines counted here, the full run's first
lines for a cancelled run's partial file, the groups adding up to the whole, and numpy's type-7 quantiles of
the costs written in the lines."""

import json
import threading

import numpy as np
import pytest

import cfx
from cfx.portfolio import COST_QUANTILE_NAMES, Counts, PortfolioSummary, explain_csv


@pytest.fixture(scope="module")
def book(german_path, tmp_path_factory):
    """The German file five times over: 5,000 applicants, in chunks of at most 4,096 rows."""
    d = cfx.load_german(german_path)
    s = d.schema
    train, _test = d.holdout_split()
    m = cfx.Model.fit_linear(train, 1.0)
    with open(german_path, encoding="utf-8") as f:
        lines = [line for line in f.read().splitlines() if line.strip()]
    folder = tmp_path_factory.mktemp("portfolio")
    path = folder / "book.csv"
    path.write_text("\n".join([lines[0]] + lines[1:] * 5) + "\n")
    yield s, m, path, folder
    for h in (m, train, _test, s, d):
        h.close()


def test_explains_every_row_reports_on_this_thread_and_cancels(book):
    s, m, path, folder = book
    full = folder / "full.jsonl"
    reports = []
    me = threading.get_ident()

    def progress(rows):
        assert threading.get_ident() == me
        reports.append(rows)
        return True

    counts = explain_csv(s, m, path, full, ignore=["creditability"], threads=2, progress=progress)
    # After each chunk: at most 4,096 rows, fewer toward the end on two threads.
    assert len(reports) > 2 and reports[-1] == 5000
    assert all(0 < b - a <= 4096 for a, b in zip([0] + reports, reports))
    lines = full.read_text().splitlines()
    docs = [json.loads(line) for line in lines]
    declined = sum(doc["decision"] == "declined" for doc in docs)
    accepted = sum(doc["decision"] == "accepted" for doc in docs)
    none = sum(doc["decision"] == "declined" and doc["counterfactual"] is None for doc in docs)
    assert counts == Counts(5000, accepted, declined, declined - none, 0)
    assert declined > 0
    # The same run without a callback and on one thread writes the same bytes.
    again = folder / "again.jsonl"
    assert explain_csv(s, m, path, again, ignore=["creditability"], threads=1) == counts
    assert again.read_text() == full.read_text()

    # Returning False at the first report: CANCELLED, the target untouched, and exactly the
    # full run's first lines, as many as reported, kept in its partial file.
    cut = folder / "cut.jsonl"
    first = []

    def stop(rows):
        first.append(rows)
        return False

    with pytest.raises(cfx.CfxError) as e:
        explain_csv(s, m, path, cut, ignore=["creditability"], threads=2, progress=stop)
    assert e.value.status_name == "CFX_STATUS_CANCELLED"
    assert len(first) == 1 and 0 < first[0] < 5000
    assert f"after {first[0]} rows" in str(e.value)
    assert not cut.exists()
    partial = folder / "cut.jsonl.cfx-partial"
    assert partial.read_text().splitlines() == lines[:first[0]]
    # Resumed on one thread: the full run's bytes and counts, the partial file gone.
    resumed = explain_csv(s, m, path, cut, config=cfx.Config(resume=True), ignore=["creditability"],
                          threads=1)
    assert resumed == counts
    assert cut.read_text() == full.read_text()
    assert not partial.exists()
    cut.unlink()

    # The callback's own exception stops the run and wins over CANCELLED.
    def boom(rows):
        raise KeyError("stop")

    with pytest.raises(KeyError, match="stop"):
        explain_csv(s, m, path, cut, ignore=["creditability"], progress=boom)

    # The label column, unless ignored, is a data error naming it.
    with pytest.raises(cfx.CfxError) as e:
        explain_csv(s, m, path, cut)
    assert e.value.status_name == "CFX_STATUS_DATA_ERROR" and "'creditability'" in e.value.message


def test_the_summary_adds_up_and_its_quantiles_are_numpys(book):
    s, m, path, folder = book
    out = folder / "summary.jsonl"
    counts = explain_csv(s, m, path, out, ignore=["creditability"])
    docs = [json.loads(line) for line in out.read_text().splitlines()]
    costs = np.array([d["counterfactual"]["cost"] for d in docs if d.get("counterfactual")])
    assert len(costs) == counts.with_recourse

    with PortfolioSummary.summarize(s, out, path, "personal_status_and_sex") as sm:
        overall = sm.overall
        assert sm.group_name(-1) == "all"
        assert overall.counts == counts
        assert overall.share_with_recourse == pytest.approx(counts.with_recourse / counts.declined, rel=1e-15)
        assert overall.median_cost == pytest.approx(np.quantile(costs, 0.5), rel=1e-12)
        assert overall.p90_cost == pytest.approx(np.quantile(costs, 0.9), rel=1e-12)
        assert len(sm) == sm.n_groups >= 3
        groups = [sm.group(g) for g in range(len(sm))]
        for field in Counts._fields:
            assert sum(getattr(g.counts, field) for g in groups) == getattr(overall.counts, field), field
        levels = s.features[s.index_of("personal_status_and_sex")]["levels"]
        assert set(sm.group_names) <= set(levels)
        q = sm.cost_quantiles()
        assert list(q) == list(COST_QUANTILE_NAMES)
        assert q["n"] == counts.with_recourse
        assert q["mean"] == pytest.approx(costs.mean(), rel=1e-12)
        assert (q["min"], q["max"]) == (pytest.approx(costs.min()), pytest.approx(costs.max()))
        for name, p in (("p10", 0.1), ("p25", 0.25), ("median", 0.5), ("p75", 0.75), ("p90", 0.9)):
            assert q[name] == pytest.approx(np.quantile(costs, p), rel=1e-12), name
        assert "by personal_status_and_sex:" in sm.describe(5)
        doc = sm.to_dict()
        assert doc["group_column"] == "personal_status_and_sex"
        svg = folder / "chart.svg"
        sm.write_svg(svg, "German credit", 5)
        assert svg.read_text().startswith("<svg")
        with pytest.raises(cfx.CfxError) as e:
            sm.group(len(sm))
        assert e.value.status_name == "CFX_STATUS_NOT_FOUND"
    # Age bands: four groups for three edges; decreasing edges are refused.
    with PortfolioSummary.summarize(s, out, path, "age_in_years", [25, 35, 50]) as bands:
        assert bands.group_names[0] == "< 25" and bands.group_names[3] == "≥ 50" and len(bands) == 4
    with pytest.raises(cfx.CfxError) as e:
        PortfolioSummary.summarize(s, out, path, "age_in_years", [50, 25])
    assert e.value.status_name == "CFX_STATUS_INVALID_ARGUMENT"
    # Without a breakdown no input file is needed.
    with PortfolioSummary.summarize(s, out) as whole:
        assert len(whole) == 0 and whole.overall.counts == counts
