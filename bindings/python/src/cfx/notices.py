"""Adverse-action notices: the principal reasons of a declined applicant, ranked against a
reference population, and the exact engine's advice, consistent by construction (each reason
marked: whether the advice acts on it, whether it is immutable or time-driven, whether every
cheapest change must touch it)."""

import json
from ctypes import byref, c_size_t

from . import _native as n
from ._native import Handle, cstr
from .config import ptr_of


class Notice(Handle):
    """One declined applicant's notice; read it as JSON (`to_json`, `data`) or as a
    self-contained HTML page (`to_html`)."""

    _free_name = "cfx_notice_free"

    def to_json(self):
        """The versioned JSON (kind ``"notice"``): ``result`` is the notice itself."""
        return n.read_string("cfx_notice_to_json", self.ptr)

    @property
    def data(self):
        """The notice as a dict (the ``result`` of `to_json`)."""
        return json.loads(self.to_json())["result"]

    def to_html(self):
        """A printable HTML page: no script, no external resource, an inline SVG chart."""
        return n.read_string("cfx_notice_to_html", self.ptr)


def notice(schema, model, reference, row, options=None, config=None):
    """The adverse-action notice of a declined applicant (raw row). `reference` is a
    `Dataset` the reasons are ranked against; `options` a dict (or JSON text) with the
    optional keys ``max_reasons`` (4), ``reference`` (``{"kind": "all_applicants"}`` or
    ``{"kind": "at_cutoff", "band": b}``), ``reason_table_path`` or ``reason_table`` (the
    bank's codes and statements), ``necessity`` (True), ``tree_shap``,
    ``scorecard_baseline``, ``mlp_max_features``, ``robustness`` (the robust version's
    target ``{"sigma2": s, "invalidation_target": g}``; None skips it). The notice also
    carries the exact engine's waiting option; a version that does not exist for the schema
    or model kind says so (robust advice: linear models only). An accepted applicant raises
    CfxError."""
    a, p = n.doubles(row)
    opts = None
    if options is not None:
        opts = cstr(options if isinstance(options, str) else json.dumps(options), "options")
    return Notice(
        n.new_handle(
            "cfx_notice_explain",
            n.ptr_of(schema, "Schema"),
            n.ptr_of(model, "Model"),
            n.ptr_of(reference, "Dataset"),
            ptr_of(config),
            p,
            a.size,
            opts,
        )
    )


def book(schema, model, reference, input_path, output_path, ledger_path=None, options=None, config=None):
    """Notices for a whole book: one JSON line in `output_path` per declined applicant of the
    CSV file `input_path` (``{"notice": {...}, "row": k}``, or ``{"error": ..., "row": k}``),
    each the notice `notice` makes for that row. With `ledger_path` the notices' advice is also
    written as an advice ledger whose records carry their notice's id, for
    `cfx.revalidate.revalidate_ledger`. `options` takes `notice`'s keys plus
    ``ignore_columns`` and ``id_column``. Both files are replaced only once the whole book is
    done and may not be an input. Returns the number of lines written."""
    opts = None
    if options is not None:
        opts = cstr(options if isinstance(options, str) else json.dumps(options), "options")
    out = c_size_t()
    n.call(
        "cfx_notice_book",
        n.ptr_of(schema, "Schema"),
        n.ptr_of(model, "Model"),
        n.ptr_of(reference, "Dataset"),
        ptr_of(config),
        cstr(str(input_path), "input_path"),
        cstr(str(output_path), "output_path"),
        None if ledger_path is None else cstr(str(ledger_path), "ledger_path"),
        opts,
        byref(out),
    )
    return out.value
