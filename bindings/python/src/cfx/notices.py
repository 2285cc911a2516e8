"""Adverse-action notices: the principal reasons of a declined applicant, ranked against a
reference population, and the exact engine's advice, consistent by construction (each reason
marked: whether the advice acts on it, whether it is immutable or time-driven, whether every
cheapest change must touch it)."""

import json

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
    ``scorecard_baseline``, ``mlp_max_features``. An accepted applicant raises CfxError."""
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
