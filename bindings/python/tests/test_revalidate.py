"""The advice ledger and its re-validation against a new model (issue 28) from Python.
Oracles: the new model's own decision on every advised row (`Model.predict_raw`), the
per-record re-validations that the streamed report's counts must add up to, and the same
model, which must break nothing."""

import json

import pytest

import cfx
from cfx.revalidate import ledger_record, revalidate, revalidate_ledger


@pytest.fixture(scope="module")
def issued(german_path, tmp_path_factory):
    """Advice for eight declined held-out German applicants under a logistic model (a robust
    version for every third), the ledger file, and a second model: the same with its
    intercept lowered by 0.4, built from the first one's JSON."""
    d = cfx.load_german(german_path)
    s = d.schema
    train, test = d.holdout_split()
    a = cfx.Model.fit_linear(train, 1.0)
    doc = json.loads(a.to_json())
    doc["bias"] -= 0.4
    b = cfx.Model.from_json(s, json.dumps(doc))
    robust_cfg = cfx.Config(robust_advice=(0.01, 0.2))
    lines = []
    for row in test.rows:
        if len(lines) == 8:
            break
        if a.predict_raw(s, row).accepted:
            continue
        k = len(lines)
        with cfx.explain(s, a, row) as r:
            robust = cfx.explain(s, a, row, robust_cfg) if k % 3 == 0 else None
            lines.append(ledger_record(r, f"app-{k}", issued="2026-12-02",
                                       group="even" if k % 2 == 0 else "odd", robust=robust))
            if robust is not None:
                robust.close()
    path = tmp_path_factory.mktemp("ledger") / "ledger.jsonl"
    path.write_text("\n".join(lines) + "\n")
    yield s, a, b, lines, path
    for h in (robust_cfg, b, a, test, train, s, d):
        h.close()


def test_records_carry_the_advice_and_fingerprints(issued):
    s, a, _b, lines, _path = issued
    rec = json.loads(lines[0])
    assert rec["format"] == "cfx-ledger" and rec["format_version"] == 1
    assert rec["id"] == "app-0" and rec["issued"] == "2026-12-02" and rec["group"] == "even"
    assert rec["model"] == a.fingerprint() and rec["schema"] == s.fingerprint()
    assert a.predict_raw(s, rec["advised"]).accepted
    assert not a.predict_raw(s, rec["applicant"]).accepted
    assert "robust_advised" in rec and "robust_advised" not in json.loads(lines[1])
    # What the robust version is robust to: the config's target (the box over the reals, the
    # default, is not written); a record without a robust version has no target.
    assert rec["robustness"] == {"sigma2": 0.01, "invalidation_target": 0.2}
    assert "robustness" not in json.loads(lines[1])


@pytest.mark.parametrize("which", ["same", "shifted"])
def test_ledger_report_counts_match_the_records(issued, tmp_path, which):
    s, a, b, lines, path = issued
    new = a if which == "same" else b
    per = [revalidate(s, new, line) for line in lines]
    for line, v in zip(lines, per):
        accepted = new.predict_raw(s, json.loads(line)["advised"]).accepted
        assert v["status"] == ("kept" if accepted else "broken")
        if v["status"] == "broken":
            assert v["extra_cost"] == v["repair"]["cost"] > 0
            assert new.predict_raw(s, v["repair"]["raw"]).accepted
    out = tmp_path / "out.jsonl"
    page_path = tmp_path / "report.html"
    report = revalidate_ledger(s, new, path, out, threads=2, chunk_rows=3,
                               html_path=page_path, title="Refit <B>")
    page = page_path.read_text(encoding="utf-8")
    # The page: the title escaped, the record count, four plots (the ledger holds
    # robust advice), the broken count.
    assert "<h1>Refit &lt;B&gt;</h1>" in page
    assert f"<tr><th>promises re-validated</th><td>{len(lines)}</td></tr>" in page
    assert page.count("<svg") == 4
    assert f"<tr><th>broken</th><td>{report['broken']} (" in page
    broken = sum(v["status"] == "broken" for v in per)
    assert report["records"] == len(lines) and report["errors"] == 0
    assert report["broken"] == broken and report["kept"] == len(lines) - broken
    assert report["robust_records"] == sum(v["robust_kept"] is not None for v in per)
    assert report["robust_broken"] == sum(v["robust_kept"] is False for v in per)
    assert sum(g["broken"] for g in report["groups"].values()) == broken
    streamed = [json.loads(line) for line in out.read_text().splitlines()]
    assert [x.pop("record") for x in streamed] == list(range(len(lines)))
    assert streamed == per
    if which == "same":
        assert broken == 0 and all(not v["model_changed"] for v in per)
    else:
        assert broken > 0 and all(v["model_changed"] for v in per)


def test_bad_input_raises_with_a_message(issued, tmp_path):
    s, a, _b, lines, path = issued
    with pytest.raises(cfx.CfxError) as e:
        revalidate(s, a, "{not json")
    assert e.value.status_name == "CFX_STATUS_FORMAT_ERROR"
    rec = json.loads(lines[0])
    rec["schema"] = "fnv1a64:0000000000000000"
    with pytest.raises(cfx.CfxError) as e:
        revalidate(s, a, rec)
    assert e.value.status_name == "CFX_STATUS_INVALID_ARGUMENT" and "schema" in str(e.value)
    other = tmp_path / "other.jsonl"
    other.write_text(json.dumps(rec) + "\n")
    with pytest.raises(cfx.CfxError) as e:
        revalidate_ledger(s, a, other, tmp_path / "out.jsonl")
    assert "schema" in str(e.value)
    assert not (tmp_path / "out.jsonl").exists()
    with pytest.raises(cfx.CfxError) as e:
        revalidate_ledger(s, a, tmp_path / "missing.jsonl", tmp_path / "out.jsonl")
    assert e.value.status_name == "CFX_STATUS_IO_ERROR"


def test_waiting_advice_is_recorded_and_kept_by_its_model(issued):
    s, a, _b, lines, _path = issued
    with s.advice_preset("german", 0.05) as preset:
        recorded = 0
        for line in lines[:3]:
            applicant = json.loads(line)["applicant"]
            with cfx.explain_with_waiting(preset, a, applicant) as advice:
                if not advice.found:
                    with pytest.raises(cfx.CfxError) as e:
                        ledger_record(advice, "w")
                    assert e.value.status_name == "CFX_STATUS_NOT_FOUND"
                    continue
                rec = ledger_record(advice, "w", issued="2026-12-02")
                doc = json.loads(rec)
                assert doc["kind"] == "waiting" and doc["schema"] == preset.fingerprint()
                assert doc["applicant"] == applicant
                assert doc["advised"] == list(advice.final_row())
                assert revalidate(preset, a, rec)["status"] == "kept"
                recorded += 1
        assert recorded > 0


def test_diverse_sets_are_recorded_option_by_option(issued, tmp_path):
    s, a, _b, lines, _path = issued
    applicant = json.loads(lines[0])["applicant"]
    with cfx.explain_diverse(s, a, applicant) as r:
        count = len(r)
        assert count > 1
        recs = [json.loads(ledger_record(r, "app-0", group="north", index=k)) for k in range(count)]
        # Oracle: the set's own rows and costs; option 0 is the plain record of the
        # optimal counterfactual under id "app-0/0".
        for k, rec in enumerate(recs):
            assert rec["id"] == f"app-0/{k}" and rec["group"] == "north"
            assert rec["kind"] == ("explain" if k == 0 else "diverse")
            assert rec["advised"] == list(r.counterfactual(k))
            assert rec["cost"] == r.certificate(k).cost
            assert rec["applicant"] == applicant
        plain = json.loads(ledger_record(r, "app-0/0", group="north"))
        assert recs[0] == plain
        with pytest.raises(cfx.CfxError) as e:
            ledger_record(r, "app-0", index=count)
        assert e.value.status_name == "CFX_STATUS_NOT_FOUND" and f"has {count}" in str(e.value)
        with pytest.raises(TypeError):
            ledger_record(r, "app-0", index=-1)
    ledger = tmp_path / "diverse.jsonl"
    ledger.write_text("\n".join(json.dumps(x) for x in recs) + "\n")
    page_path = tmp_path / "diverse.html"
    report = revalidate_ledger(s, a, ledger, tmp_path / "out.jsonl", html_path=page_path, html=True)
    assert report["records"] == count and report["broken"] == 0
    page = page_path.read_text(encoding="utf-8")
    assert report.pop("html") == page  # the page as text is the page written
    # Three plots: no robust advice in this ledger.
    assert page.count("<svg") == 3
    assert f"<tr><th>promises re-validated</th><td>{count}</td></tr>" in page
    # A title that is not UTF-8: a status and a message naming it.
    with pytest.raises(cfx.CfxError) as e:
        revalidate_ledger(s, a, ledger, tmp_path / "out2.jsonl", html_path=tmp_path / "x.html",
                          title=b"f\xff")
    assert e.value.status_name == "CFX_STATUS_INVALID_ARGUMENT" and "title" in str(e.value)
    assert not (tmp_path / "x.html").exists()
    # The page never goes over the ledger it was made of.
    before = ledger.read_bytes()
    with pytest.raises(cfx.CfxError) as e:
        revalidate_ledger(s, a, ledger, tmp_path / "out3.jsonl", html_path=ledger)
    assert e.value.status_name == "CFX_STATUS_INVALID_ARGUMENT" and str(ledger) in str(e.value)
    assert ledger.read_bytes() == before


def test_portfolio_lines_become_ledger_records_with_copa_versions(german_path, tmp_path):
    """A portfolio run on the first 120 German applicants (an application id and a branch
    before their columns) kept as a ledger: one record per declined applicant with advice,
    each the advice the portfolio line gave, kept by the same model; a COPA version added
    where the schema allows one, and re-validated."""
    from cfx.copa import Uncertainty
    from cfx.portfolio import explain_csv
    from cfx.revalidate import add_copa_version, ledger_from_portfolio

    with open(german_path, encoding="utf-8") as f:
        text = f.read()
    head, *rows = text.splitlines()
    branches = ["north", "south", ""]
    csv = tmp_path / "book.csv"
    csv.write_text(
        "\n".join([f"application_id,branch,{head}"]
                  + [f"A{k:04d},{branches[k % 3]},{r}" for k, r in enumerate(rows[:120])]) + "\n")
    d = cfx.load_german(german_path)
    s = d.schema
    train, test = d.holdout_split()
    a = cfx.Model.fit_linear(train, 1.0)
    ignore = ["creditability", "application_id", "branch"]
    lines_path = tmp_path / "book.jsonl"
    counts = explain_csv(s, a, csv, lines_path, ignore=ignore, threads=1)
    ledger = tmp_path / "ledger.jsonl"
    n = ledger_from_portfolio(s, a, csv, lines_path, ledger, ignore=ignore,
                              id_column="application_id", group_column="branch", issued="2026-12-02")
    assert n == counts.with_recourse and n >= 10
    answers = [json.loads(l) for l in lines_path.read_text().splitlines()]
    advised = [x for x in answers if x.get("counterfactual")]
    records = [json.loads(l) for l in ledger.read_text().splitlines()]
    assert len(records) == len(advised)
    for rec, x in zip(records, advised):
        k = x["row"]
        assert rec["id"] == f"A{k:04d}" and rec["kind"] == "explain" and rec["issued"] == "2026-12-02"
        assert rec.get("group") == (branches[k % 3] or None)
        assert rec["advised"] == x["counterfactual"]["raw"] and rec["cost"] == x["counterfactual"]["cost"]
        assert rec["model"] == a.fingerprint() and not a.predict_raw(s, rec["applicant"]).accepted
    report = revalidate_ledger(s, a, ledger, tmp_path / "out.jsonl", threads=1)
    assert (report["records"], report["broken"]) == (n, 0)

    # Files of another run are refused and leave no ledger; unknown options are refused.
    short = tmp_path / "short.jsonl"
    short.write_text("\n".join(lines_path.read_text().splitlines()[:-1]) + "\n")
    other = tmp_path / "other-ledger.jsonl"
    with pytest.raises(cfx.CfxError) as e:
        ledger_from_portfolio(s, a, csv, short, other, ignore=ignore)
    assert e.value.status_name == "CFX_STATUS_DATA_ERROR" and "explanations end" in str(e.value)
    assert not other.exists()
    with pytest.raises(cfx.CfxError) as e:
        ledger_from_portfolio(s, a, csv, lines_path, other)
    assert "application_id" in str(e.value)

    # COPA versions: within the applicant's limits, the rest of the record unchanged.
    unc = Uncertainty.from_dataset(train, refits=50, seed=3)
    with_copa = 0
    for rec in records:
        try:
            got = json.loads(add_copa_version(s, unc, rec))
        except cfx.CfxError as err:
            assert err.status_name == "CFX_STATUS_NOT_FOUND", err
            continue
        with_copa += 1
        c = got.pop("copa_advised")
        assert got == rec and len(c) == len(rec["advised"])
        v = revalidate(s, a, dict(got, copa_advised=c))
        assert v["copa_kept"] is not None
    assert with_copa >= len(records) // 2
    with pytest.raises(cfx.CfxError) as e:
        add_copa_version(s, unc, dict(records[0], schema="fnv1a64:0000000000000000"))
    assert e.value.status_name == "CFX_STATUS_INVALID_ARGUMENT"
    for h in (unc, a, test, train, s, d):
        h.close()


def test_a_robust_portfolio_run_records_the_configs_target(german_path, tmp_path):
    """A robust portfolio run (the first 40 German applicants, robust advice σ² 0.01, γ 0.2)
    kept as a ledger with the run's config: every robust record carries the config's target,
    read from the config's own JSON (the oracle); kept without the config, none does."""
    from cfx.portfolio import explain_csv
    from cfx.revalidate import ledger_from_portfolio

    with open(german_path, encoding="utf-8") as f:
        head, *rows = f.read().splitlines()
    csv = tmp_path / "book.csv"
    csv.write_text("\n".join([head] + rows[:40]) + "\n")
    d = cfx.load_german(german_path)
    s = d.schema
    train, test = d.holdout_split()
    a = cfx.Model.fit_linear(train, 1.0)
    ignore = ["creditability"]
    cfg = cfx.Config(robust_advice=(0.01, 0.2))
    lines_path = tmp_path / "book.jsonl"
    counts = explain_csv(s, a, csv, lines_path, config=cfg, ignore=ignore, threads=1)
    want = json.loads(cfg.to_json())["robust_advice"]
    assert want == {"sigma2": 0.01, "invalidation_target": 0.2}
    with_cfg, without = tmp_path / "with.jsonl", tmp_path / "without.jsonl"
    assert ledger_from_portfolio(s, a, csv, lines_path, with_cfg, ignore=ignore, config=cfg) == counts.with_recourse
    assert ledger_from_portfolio(s, a, csv, lines_path, without, ignore=ignore) == counts.with_recourse
    recs = [json.loads(l) for l in with_cfg.read_text().splitlines()]
    bare = [json.loads(l) for l in without.read_text().splitlines()]
    robust = [r for r in recs if r["kind"] == "robust"]
    assert len(robust) >= 5
    assert all(r["robustness"] == want for r in robust)
    assert all("robustness" not in r for r in recs if r["kind"] != "robust")
    assert all("robustness" not in r for r in bare)
    # Apart from the target the two ledgers are the same records.
    assert [{k: v for k, v in r.items() if k != "robustness"} for r in recs] == bare
    # A config without robust advice adds nothing; a box of reachable values is written
    # (the reals, the default, are not), as the library writes a tree answer's target.
    other = tmp_path / "other.jsonl"
    with cfx.Config(seed=1) as plain:
        ledger_from_portfolio(s, a, csv, lines_path, other, ignore=ignore, config=plain)
        assert [json.loads(l) for l in other.read_text().splitlines()] == bare
    with cfx.Config(robust_advice=(0.02, 0.1), robust_box="reachable_values") as box:
        ledger_from_portfolio(s, a, csv, lines_path, other, ignore=ignore, config=box)
        got = [json.loads(l) for l in other.read_text().splitlines()]
        assert all(r["robustness"] == {"sigma2": 0.02, "invalidation_target": 0.1,
                                       "box_kind": "reachable_values"}
                   for r in got if r["kind"] == "robust")
    with pytest.raises(TypeError):
        ledger_from_portfolio(s, a, csv, lines_path, other, ignore=ignore, config=a)
    for h in (cfg, a, test, train, s, d):
        h.close()


def test_the_report_names_the_models_with_the_callers_labels(issued, tmp_path):
    # Oracle: the fingerprints each model gives of itself; the labels the caller set.
    s, a, b, _lines, path = issued
    with cfx.Config(model_labels=("logistic 2025", "logistic 2026")) as c:
        report = revalidate_ledger(s, b, path, tmp_path / "out.jsonl", config=c, html=True)
    assert report["new_model"] == {"fingerprint": b.fingerprint(), "label": "logistic 2026",
                                   "records": 0}
    assert [(m["fingerprint"], m["label"]) for m in report["old_models"]] == [
        (a.fingerprint(), "logistic 2025")]
    assert "logistic 2026" in report["html"] and "logistic 2025" in report["html"]
    with cfx.Config(model_labels=(None, "challenger")) as c:
        report = revalidate_ledger(s, b, path, tmp_path / "out2.jsonl", config=c)
    assert report["new_model"]["label"] == "challenger"
    assert report["old_models"][0]["label"] is None
    with pytest.raises(cfx.CfxError) as e:
        cfx.Config(model_labels=("", None))
    assert e.value.status_name == "CFX_STATUS_INVALID_ARGUMENT" and "old_label" in e.value.message
