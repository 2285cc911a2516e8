"""Optimal coherent counterfactuals (Russell 2019, "Efficient search for diverse coherent
explanations"): a MIP on HiGHS over the schema's encoding, one applicant or many."""

from collections import namedtuple
from ctypes import byref, c_double, c_int32, c_size_t, c_uint32

import numpy as np

from . import _native as n
from ._enums import CoherentOutcome, ProvedBy, WaitingOutcome, values_to_names
from ._native import Handle
from .config import ptr_of

OUTCOMES = values_to_names(CoherentOutcome)
#: `cfx_proved_by`: the solver that proved an optimum or an infeasibility.
PROVED_BY = values_to_names(ProvedBy)

Certificate = namedtuple("Certificate", "cost score probability objective mip_gap solve_seconds")


class CoherentResult(Handle):
    """The explanation of one applicant: an outcome and 0..n counterfactuals (`len()`)."""

    _free_name = "cfx_coherent_result_free"

    def _outcome(self):
        o, mask = c_int32(), c_uint32()
        n.call("cfx_coherent_result_outcome", self.ptr, byref(o), byref(mask))
        return OUTCOMES.get(o.value, "unknown"), mask.value

    @property
    def outcome(self):
        """``"optimal"``, ``"time_limit"``, ``"infeasible"`` or ``"unknown"``."""
        return self._outcome()[0]

    @property
    def blocking_mask(self):
        """For an infeasible outcome, the blocking constraint groups (1 immutables,
        2 directions, 4 bounds, 8 forbidden transitions); 0 otherwise."""
        return self._outcome()[1]

    @property
    def proved_by(self):
        """The solver that proved the optimum or the infeasibility: ``"highs"`` or
        ``"separable"`` (choose it with `Config(solver=…)`)."""
        out = c_int32()
        n.call("cfx_coherent_result_proved_by", self.ptr, byref(out))
        return PROVED_BY[out.value]

    def __len__(self):
        out = c_size_t()
        n.call("cfx_coherent_result_count", self.ptr, byref(out))
        return out.value

    def counterfactual(self, k=0):
        """Raw row of counterfactual `k` (0 = the optimal one)."""
        return n.read_doubles("cfx_coherent_result_counterfactual", self.ptr, int(k))

    def certificate(self, k=0):
        vals = [c_double() for _ in range(6)]
        n.call("cfx_coherent_result_certificate", self.ptr, int(k), *[byref(v) for v in vals])
        return Certificate(*[v.value for v in vals])

    def invalidation_rate(self, k=0):
        """The exact invalidation rate Γ of counterfactual `k` under the robust-advice noise
        (`Config(robust_advice=(sigma2, target))`), at most the target; NaN when the result
        was computed without robust advice."""
        out = c_double()
        n.call("cfx_coherent_result_invalidation_rate", self.ptr, int(k), byref(out))
        return out.value

    def describe(self):
        return n.read_string("cfx_coherent_result_describe", self.ptr)

    def to_json(self):
        return n.read_string("cfx_coherent_result_to_json", self.ptr)


#: `cfx_waiting_outcome`: whether waiting advice was found. ``"no_advice"`` is proven (no wait
#: and no move is accepted); ``"unproven"``: none found and none proven impossible (a solve
#: stopped at a limit first).
WAITING_OUTCOMES = values_to_names(WaitingOutcome)

WaitingSummary = namedtuple("WaitingSummary", "months wait_cost total_cost proved_by")


class WaitingAdvice(Handle):
    """The cheapest advice for one applicant when waiting is an action (issue #16): wait some
    months, then move, or both. Without advice (`found` false) every accessor but `outcome`,
    `proven`, `describe` and `to_json` raises CfxError (``CFX_STATUS_NOT_FOUND``). A solve stopped
    at a limit is not an error: the advice then says it is not proven (`proven`)."""

    _free_name = "cfx_waiting_advice_free"

    @property
    def outcome(self):
        """``"found"``, ``"no_advice"`` (proven: no wait and no move is accepted) or
        ``"unproven"`` (none found and none proven impossible; `describe` names the limit)."""
        out = c_int32()
        n.call("cfx_waiting_advice_outcome", self.ptr, byref(out))
        return WAITING_OUTCOMES[out.value]

    @property
    def found(self):
        """Whether advice was found (`outcome` ``"found"``, proven or not)."""
        return self.outcome == "found"

    @property
    def proven(self):
        """Whether the outcome is proven: with ``"found"``, True when the advice is the proven
        optimum over every allowed wait, False when a solve stopped at a limit (the best advice
        found, accepted but perhaps not the cheapest); always True with ``"no_advice"`` and False
        with ``"unproven"``."""
        out = c_int32()
        n.call("cfx_waiting_advice_proven", self.ptr, byref(out))
        return bool(out.value)

    def summary(self):
        """Months to wait (0: act now), the wait's cost, the total cost, and the solver that proved
        the moves' optimum (``"highs"``/``"separable"``; None when waiting alone is accepted)."""
        months, wait, total, by = c_uint32(), c_double(), c_double(), c_int32()
        n.call("cfx_waiting_advice_summary", self.ptr, byref(months), byref(wait), byref(total), byref(by))
        return WaitingSummary(months.value, wait.value, total.value, PROVED_BY.get(by.value))

    @property
    def months(self):
        return self.summary().months

    @property
    def cost(self):
        """The total cost: the wait's plus the moves' weighted L1 cost."""
        return self.summary().total_cost

    def waited_row(self):
        """The applicant's raw row after waiting, before any move."""
        return n.read_doubles("cfx_waiting_advice_waited_row", self.ptr)

    def final_row(self):
        """The raw row to reach: the waited row, moved."""
        return n.read_doubles("cfx_waiting_advice_final_row", self.ptr)

    def describe(self):
        return n.read_string("cfx_waiting_advice_describe", self.ptr)

    def to_json(self):
        return n.read_string("cfx_waiting_advice_to_json", self.ptr)


class CoherentBatch(Handle):
    """The explanations of many applicants, in input order (`len()`)."""

    _free_name = "cfx_coherent_batch_free"

    def __len__(self):
        out = c_size_t()
        n.call("cfx_coherent_batch_count", self.ptr, byref(out))
        return out.value

    def status(self, i):
        """The status name of applicant `i` (``"CFX_STATUS_OK"`` when it was explained)."""
        out = c_int32()
        n.call("cfx_coherent_batch_status", self.ptr, int(i), byref(out))
        return n.status_name(out.value)

    def error(self, i):
        """Why applicant `i` was not explained ("" when it was)."""
        return n.read_string("cfx_coherent_batch_error", self.ptr, int(i))

    def result(self, i):
        """The `CoherentResult` of applicant `i`; raises CfxError when it was not explained."""
        return CoherentResult(n.new_handle("cfx_coherent_batch_result", self.ptr, int(i)))

    def to_json(self):
        return n.read_string("cfx_coherent_batch_to_json", self.ptr)


def explain(schema, model, row, config=None):
    """The optimal coherent counterfactual of a declined applicant (raw row), or a proof that
    none exists (outcome ``"infeasible"``)."""
    a, p = n.doubles(row)
    return CoherentResult(
        n.new_handle(
            "cfx_coherent_explain",
            n.ptr_of(schema, "Schema"),
            n.ptr_of(model, "Model"),
            ptr_of(config),
            p,
            a.size,
        )
    )


def explain_diverse(schema, model, row, config=None):
    """The optimum and up to ``n_diverse - 1`` diverse alternatives (`Config(n_diverse=…)`)."""
    a, p = n.doubles(row)
    return CoherentResult(
        n.new_handle(
            "cfx_coherent_explain_diverse",
            n.ptr_of(schema, "Schema"),
            n.ptr_of(model, "Model"),
            ptr_of(config),
            p,
            a.size,
        )
    )


def explain_with_waiting(schema, model, row, config=None):
    """The cheapest advice when waiting is an action of the schema (`Schema.advice_preset`,
    `SchemaBuilder.set_waiting`): the exact minimum over every allowed wait of the wait's cost
    plus the optimal coherent counterfactual of the waited row (a `WaitingAdvice`). A solve
    stopped at a limit gives the best advice found, not proven (`WaitingAdvice.proven`), or
    outcome ``"unproven"``."""
    a, p = n.doubles(row)
    return WaitingAdvice(
        n.new_handle(
            "cfx_coherent_explain_with_waiting",
            n.ptr_of(schema, "Schema"),
            n.ptr_of(model, "Model"),
            ptr_of(config),
            p,
            a.size,
        )
    )


def explain_batch(schema, model, rows, config=None):
    """The optimal counterfactual of each raw row (n × n_features), `Config(threads=…)`
    applicants at once; an applicant that cannot be explained does not fail the call."""
    m, p = n.matrix(rows, schema.n_features, "rows")
    return CoherentBatch(
        n.new_handle(
            "cfx_coherent_explain_batch",
            n.ptr_of(schema, "Schema"),
            n.ptr_of(model, "Model"),
            ptr_of(config),
            p,
            m.size,
            m.shape[0],
        )
    )


def explain_frame(schema, model, applicants, config=None, ignore=()):
    """Explains a DataFrame of applicants (columns by feature name; categoricals by level
    name or index) and returns a DataFrame of counterfactuals, one line per applicant:
    ``applicant`` (the input's index), ``status`` (``"CFX_STATUS_OK"`` or why not),
    ``error``, ``outcome``, ``cost``, ``probability``, ``changes`` (the changed features
    in words, ``;``-separated) and the counterfactual's feature values (categoricals by level
    name; missing when there is none). Columns that are not features must be named in
    `ignore`."""
    import pandas as pd

    rows = schema.rows_from_frame(applicants, ignore)
    names = schema.feature_names
    records = []
    with explain_batch(schema, model, rows, config) as batch:
        for i in range(len(batch)):
            rec = {
                "applicant": applicants.index[i],
                "status": batch.status(i),
                "error": batch.error(i) or None,
                "outcome": None,
                "cost": np.nan,
                "probability": np.nan,
                "changes": None,
            }
            cf = None
            if rec["status"] == "CFX_STATUS_OK":
                with batch.result(i) as r:
                    rec["outcome"] = r.outcome
                    if len(r):
                        cf = r.counterfactual(0)
                        cert = r.certificate(0)
                        rec["cost"], rec["probability"] = cert.cost, cert.probability
                        rec["changes"] = "; ".join(schema.describe_changes(rows[i], cf).splitlines())
            records.append((rec, cf))
    out = pd.DataFrame([r for r, _ in records])
    cf_rows = np.array([cf if cf is not None else np.full(len(names), np.nan) for _, cf in records])
    cf_rows = cf_rows.reshape(len(records), len(names))
    feats = schema.features
    for j, f in enumerate(feats):
        col = cf_rows[:, j]
        if f["kind"] == "categorical":
            out[f["name"]] = [None if np.isnan(v) else f["levels"][int(v)] for v in col]
        else:
            out[f["name"]] = col
    return out


__all__ = [
    "CoherentResult",
    "CoherentBatch",
    "Certificate",
    "explain",
    "explain_diverse",
    "explain_batch",
    "explain_frame",
]
