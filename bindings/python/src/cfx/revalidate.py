"""Advice that survives the next model (issue 28): the advice ledger and the
re-validation of every issued promise when the bank deploys a new model.

`ledger_record` turns an explanation (`cfx.explain`) into one ledger line (JSON, format
``"cfx-ledger"`` version 1: the applicant's row, the advised row, its cost and the
fingerprints of the schema and model it was issued under). `revalidate` re-scores one
record under a new model: ``"kept"``, or ``"broken"`` with the exact engine's cheapest
repair from the advised row (its cost is the ``extra_cost`` of keeping the promise).
`revalidate_ledger` streams a whole ledger file into a JSON-lines file (constant memory,
all threads, the same bytes on any thread count) and returns the deployment report; given
``html_path`` it also writes the report as a self-contained HTML page with SVG plots.

`ledger_from_portfolio` keeps a portfolio run's answers (`cfx.portfolio.explain_csv`) as a
ledger file; `add_copa_version` adds a record's COPA-corrected version (``copa_advised``)."""

import json
from ctypes import byref, c_size_t, c_void_p

from . import _native as n
from ._native import cstr
from .coherent import WaitingAdvice
from .config import ptr_of


def ledger_record(result, id, issued=None, group=None, robust=None, index=None):
    """The ledger line (a JSON string, no line end) of `result`'s advice: the optimal
    counterfactual of a `CoherentResult`, or the advice of a `WaitingAdvice` (kind
    ``"waiting"``: the row after waiting and moving); either knows its schema and model.
    `id` is the issuer's opaque id (an application number), `issued` an opaque date,
    `group` a label for the report's breakdown, `robust` (coherent results only) the
    `CoherentResult` of the same applicant computed with ``Config(robust_advice=...)``,
    kept as the record's robust version. `index` (coherent results only) records
    counterfactual `index` of a diverse set (`cfx.explain_diverse`) instead: id
    ``"<id>/<index>"``, kind ``"explain"`` for 0 and ``"diverse"`` for the others. Raises
    `CfxError` ``CFX_STATUS_NOT_FOUND`` when there is no advice to record (or no
    counterfactual `index`)."""
    if isinstance(result, WaitingAdvice):
        if robust is not None:
            raise TypeError("cfx: a robust version is recorded with coherent results only")
        if index is not None:
            raise TypeError("cfx: an index is for the diverse sets of coherent results only")
        return n.read_string(
            "cfx_ledger_record_from_waiting_advice",
            result.ptr,
            cstr(id, "id"),
            cstr(issued, "issued"),
            cstr(group, "group"),
        )
    if index is not None:
        if isinstance(index, bool) or not isinstance(index, int) or index < 0:
            raise TypeError(f"cfx: index must be a non-negative int, got {index!r}")
        return n.read_string(
            "cfx_ledger_record_from_coherent_result_at",
            n.ptr_of(result, "CoherentResult"),
            index,
            n.ptr_of(robust, "CoherentResult", optional=True),
            cstr(id, "id"),
            cstr(issued, "issued"),
            cstr(group, "group"),
        )
    return n.read_string(
        "cfx_ledger_record_from_coherent_result",
        n.ptr_of(result, "CoherentResult"),
        n.ptr_of(robust, "CoherentResult", optional=True),
        cstr(id, "id"),
        cstr(issued, "issued"),
        cstr(group, "group"),
    )


def revalidate(schema, new_model, record, config=None):
    """Re-validates one ledger record (its JSON line, or the dict of one) against
    `new_model`; the re-validation as a dict: ``status`` (``"kept"``/``"broken"``),
    ``margin``, ``probability``, ``model_changed``, and for a broken promise ``repair``,
    ``extra_cost`` and ``applicant_repair`` (or ``repair_outcome``), ``robust_kept``.
    `schema` must be the schema the advice was issued under."""
    line = record if isinstance(record, str) else json.dumps(record)
    return json.loads(
        n.read_string(
            "cfx_revalidate_record",
            n.ptr_of(schema, "Schema"),
            n.ptr_of(new_model, "Model"),
            ptr_of(config),
            cstr(line, "record"),
        )
    )


def revalidate_ledger(
    schema,
    new_model,
    input_path,
    output_path,
    config=None,
    threads=0,
    chunk_rows=0,
    html_path=None,
    title=None,
    html=False,
):
    """Streams the ledger file `input_path` (one ledger line per record) against
    `new_model` into `output_path`, one JSON line per record in input order (the
    `revalidate` dict plus ``record``, its number; or ``{"error", "record"}``), `chunk_rows`
    records at a time (0 = 4096), `threads` at once (0 = all cores). Returns the deployment
    report as a dict: ``records``, ``kept``, ``broken``, ``broken_share``, ``errors``,
    ``repaired``, ``extra_cost`` (quantiles), ``features_behind_breaks``,
    ``robust_records``, ``robust_broken``, ``groups``. A ledger issued under another
    schema is refused (`CfxError`) before anything is written. Given `html_path`, the
    report is also written there as one self-contained HTML page (the counts and SVG bar
    plots: broken share per group, extra cost, features behind the breaks, and issued
    against robust advice when the ledger holds some) headed `title` (None = cfx's
    default title); an `html_path` naming the ledger or `output_path` is refused (`CfxError`
    ``CFX_STATUS_INVALID_ARGUMENT``). With ``html=True`` the report also holds the page as
    text under ``"html"``. With ``config=Config(resume=True)`` a killed run is resumed from its
    partial file."""
    report = c_void_p()
    n.call(
        "cfx_revalidate_ledger",
        n.ptr_of(schema, "Schema"),
        n.ptr_of(new_model, "Model"),
        ptr_of(config),
        cstr(str(input_path), "input_path"),
        cstr(str(output_path), "output_path"),
        int(threads),
        int(chunk_rows),
        byref(report),
    )
    try:
        result = json.loads(n.read_string("cfx_deployment_report_to_json", report))
        if html:
            result["html"] = n.read_string("cfx_deployment_report_to_html", report, cstr(title, "title"))
        if html_path is not None:
            # Written by the library, which never writes over the ledger or the output.
            n.call(
                "cfx_deployment_report_write_html",
                report,
                cstr(title, "title"),
                cstr(str(html_path), "html_path"),
            )
        return result
    finally:
        n.LIB.cfx_deployment_report_free(report)


def ledger_from_portfolio(
    schema,
    model,
    csv_path,
    explanations_path,
    ledger_path,
    ignore=(),
    id_column=None,
    group_column=None,
    issued=None,
    config=None,
):
    """Writes the ledger `ledger_path` of a portfolio run: one ledger line per declined
    applicant with a counterfactual (kind ``"explain"``, or ``"robust"`` for a line whose
    counterfactual carries its ``invalidation_rate``), the applicant's row read from the
    run's input `csv_path`, the advice from its output `explanations_path`, both read in
    lockstep. `schema`, `model` and `ignore` must be the run's (`explain_csv`'s). The id is
    the `id_column` cell (default ``"row-<k>"``), the group the `group_column` cell (none
    when empty), `issued` every record's issue text. `config` (None, or the run's `Config`):
    its JSON is passed to the library, which makes the target of its ``robust_advice`` (and
    ``robust_box``) the ``robustness`` of every ``"robust"`` record (``sigma2``,
    ``invalidation_target``, and ``box_kind`` when not the reals) — the run's lines do not
    carry it, so without the config those records have none. Returns the number of records
    written. Files that are not one run's input and output under `model` (rows or line
    counts that disagree, a probability the model does not give) raise `CfxError` and leave
    no ledger."""
    options = {"ignore_columns": [str(c) for c in ignore]}
    for key, value in (("id_column", id_column), ("group_column", group_column), ("issued", issued)):
        if value is not None:
            options[key] = str(value)
    if config is not None:
        n.ptr_of(config, "Config")  # a TypeError for anything else
        options["config"] = json.loads(config.to_json())
    out = c_size_t()
    n.call(
        "cfx_ledger_from_portfolio",
        n.ptr_of(schema, "Schema"),
        n.ptr_of(model, "Model"),
        cstr(str(csv_path), "csv_path"),
        cstr(str(explanations_path), "explanations_path"),
        cstr(str(ledger_path), "ledger_path"),
        cstr(json.dumps(options), "options"),
        byref(out),
    )
    return out.value


def add_copa_version(schema, uncertainty, record, rho=0.01, delta=0.1):
    """The ledger line `record` (or the dict of one) with its COPA-corrected version kept
    as ``copa_advised`` (Bui, Nguyen & Nguyen 2022, §3: the advised row moved, inside what
    the applicant may change, so that it stays valid under more of the models the
    `cfx.copa.Uncertainty` suggests; Gelbrich radius `rho`, perturbation limit `delta`).
    `schema` must be the one the record was issued under. Raises `CfxError`
    ``CFX_STATUS_NOT_FOUND`` when the corrected row breaks a rule of the schema for the
    applicant: no version is kept, the record stays as it was."""
    line = record if isinstance(record, str) else json.dumps(record)
    return n.read_string(
        "cfx_ledger_record_add_copa_version",
        n.ptr_of(schema, "Schema"),
        n.ptr_of(uncertainty, "Uncertainty"),
        cstr(line, "record"),
        float(rho),
        float(delta),
    )


__all__ = ["add_copa_version", "ledger_from_portfolio", "ledger_record", "revalidate", "revalidate_ledger"]
