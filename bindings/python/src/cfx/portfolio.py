"""Recourse burden of a portfolio: explain every declined applicant, estimate how easily
each answer is invalidated, and summarise by group.

Two ways. `explain_csv` and `PortfolioSummary` are the C library's own portfolio run
(`cfx_portfolio_explain`, `cfx_portfolio_summarize`): a CSV file of any length explained
into a JSON-lines file with flat memory, then summarised per group.

`audit` works on one pandas DataFrame of applicants (one machine, or one Spark partition:
``examples/spark/portfolio_audit.py`` calls it inside ``mapInPandas``); `summarise` turns
the audit into the figures per group. Every random step is seeded per applicant (the
seed plus the applicant's id), so an audit does not depend on how the book is split.

The invalidation rate of an answer is Γ̃, the share of noisy copies x' + ε,
ε ~ N(0, σ²I) on the mutable contiguous features, that the model declines (Guyomard et
al. 2023, CROCO, eq. 3; `cfx.Estimator`)."""

import json
from collections import namedtuple
from ctypes import byref, c_double, c_size_t

import numpy as np
import pandas as pd

from . import _native as n
from ._native import Handle, cstr
from ._types import PORTFOLIO_PROGRESS_FN, PortfolioCounts
from .coherent import explain_batch
from .config import Config
from .model import Model
from .robust import Estimator, Noise, Workspace
from .schema import Schema

#: The columns of an audit, in order (besides the caller's `keep` columns).
AUDIT_COLUMNS = [
    "applicant",
    "decision",
    "probability",
    "status",
    "outcome",
    "has_recourse",
    "cost",
    "cf_probability",
    "changed_features",
    "changes",
    "invalidation_rate",
]

#: Spark DDL of the audit columns (for `mapInPandas`).
AUDIT_SPARK_SCHEMA = (
    "applicant long, decision string, probability double, status string, outcome string, "
    "has_recourse boolean, cost double, cf_probability double, changed_features string, "
    "changes string, invalidation_rate double"
)

SEED_MASK = (1 << 64) - 1


class Auditor:
    """A schema, model and configuration built once from their JSON (e.g. once per Spark
    executor), with the noise and estimator of the invalidation rates."""

    def __init__(self, schema_json, model_json, config=None, sigma2=0.01, n_samples=1000, seed=0):
        self.schema = Schema.from_json(schema_json)
        self.model = Model.from_json(self.schema, model_json)
        self.config = Config(**(json.loads(config) if isinstance(config, str) else (config or {})))
        self.noise = Noise.gaussian(self.schema, sigma2)
        self.estimator = Estimator(self.noise, n_samples, "generic")
        self.seed = int(seed)
        self.names = self.schema.feature_names

    #: Auditors built by `shared`, per process, keyed by their inputs.
    _shared = {}

    @classmethod
    def shared(cls, schema_json, model_json, config=None, sigma2=0.01, n_samples=1000, seed=0):
        """The auditor of these inputs, built once per process and kept (a Spark Python worker
        is reused for many tasks, so each executor builds its schema, model and
        configuration once). The cache lives in this module, which workers import, rather
        than in a job's closure, which is shipped anew with every task."""
        cfg = config if isinstance(config, str) else json.dumps(config or {}, sort_keys=True)
        key = (schema_json, model_json, cfg, float(sigma2), int(n_samples), int(seed))
        a = cls._shared.get(key)
        if a is None:
            a = cls._shared[key] = cls(schema_json, model_json, cfg, sigma2, n_samples, seed)
        return a

    def close(self):
        for h in (self.estimator, self.noise, self.config, self.model, self.schema):
            h.close()

    def audit(self, applicants, id_column=None, keep=(), ignore=()):
        """One line per applicant (`AUDIT_COLUMNS`, then the `keep` columns): accepted
        applicants with their probability; declined ones with their optimal coherent
        counterfactual (cost, probability, changed features) and its invalidation rate.
        Columns that are neither features, the id nor kept must be named in `ignore`."""
        ids = applicants[id_column].to_numpy() if id_column else applicants.index.to_numpy()
        skip = set(ignore) | set(keep) | ({id_column} if id_column else set())
        rows = self.schema.rows_from_frame(applicants, skip)
        x = self.schema.encode(rows) if len(rows) else np.empty((0, self.schema.encoded_dim))
        prob = self.model.probabilities(x) if len(rows) else np.empty(0)
        accepted = np.array([self.model.predict(r).accepted for r in x], dtype=bool)
        declined = np.flatnonzero(~accepted)
        out = {c: [None] * len(rows) for c in AUDIT_COLUMNS}
        out["applicant"] = [int(i) for i in ids]
        out["probability"] = [float(p) for p in prob]
        out["decision"] = ["accepted" if a else "declined" for a in accepted]
        out["has_recourse"] = [False] * len(rows)
        for c in ("cost", "cf_probability", "invalidation_rate"):
            out[c] = [np.nan] * len(rows)
        if len(declined):
            with explain_batch(self.schema, self.model, rows[declined], self.config) as batch:
                for b, i in enumerate(declined):
                    out["status"][i] = batch.status(b)
                    if out["status"][i] != "CFX_STATUS_OK":
                        continue
                    with batch.result(b) as r:
                        out["outcome"][i] = r.outcome
                        if not len(r):
                            continue
                        cf = r.counterfactual(0)
                        cert = r.certificate(0)
                    out["has_recourse"][i] = True
                    out["cost"][i] = cert.cost
                    out["cf_probability"][i] = cert.probability
                    changed = [self.names[j] for j in np.flatnonzero(cf != rows[i])]
                    out["changed_features"][i] = ";".join(changed)
                    out["changes"][i] = "; ".join(self.schema.describe_changes(rows[i], cf).splitlines())
                    with Workspace(self.model, (self.seed + int(ids[i])) & SEED_MASK) as ws:
                        out["invalidation_rate"][i] = self.estimator.estimate(
                            self.model, ws, self.schema.encode(cf)
                        ).gamma
        frame = pd.DataFrame(out, columns=AUDIT_COLUMNS)
        frame["has_recourse"] = frame["has_recourse"].astype(bool)
        for c in keep:
            frame[c] = applicants[c].to_numpy()
        return frame


def audit(
    schema,
    model,
    applicants,
    config=None,
    sigma2=0.01,
    n_samples=1000,
    seed=0,
    id_column=None,
    keep=(),
    ignore=(),
):
    """`Auditor.audit` with a schema and model given as handles (one machine)."""
    a = Auditor(schema.to_json(), model.to_json(), config, sigma2, n_samples, seed)
    try:
        return a.audit(applicants, id_column=id_column, keep=keep, ignore=ignore)
    finally:
        a.close()


#: Quantiles of the cost distribution reported per group (linear interpolation).
COST_QUANTILES = (0.25, 0.5, 0.75, 0.9)
TOP_CHANGES = 3


def summarise(audited, by):
    """The recourse burden per group `by`: applicants, declined, declined with recourse,
    share with recourse (of the declined), the cost distribution of the answers (mean,
    quartiles, 90th percentile, max), their mean invalidation rate, and the most frequent
    changes (`feature:count`, the `TOP_CHANGES` most frequent, ties by name)."""
    rows = []
    for group, g in audited.groupby(by, sort=True):
        d = g[g["decision"] == "declined"]
        r = d[d["has_recourse"]]
        cost = r["cost"].to_numpy(dtype=np.float64)
        counts = {}
        for s in r["changed_features"]:
            for f in s.split(";") if s else []:
                counts[f] = counts.get(f, 0) + 1
        top = sorted(counts.items(), key=lambda kv: (-kv[1], kv[0]))[:TOP_CHANGES]
        rec = {
            by: group,
            "applicants": len(g),
            "declined": len(d),
            "with_recourse": len(r),
            "share_with_recourse": len(r) / len(d) if len(d) else np.nan,
            "cost_mean": float(np.mean(cost)) if len(cost) else np.nan,
        }
        for q in COST_QUANTILES:
            rec[f"cost_p{int(q * 100)}"] = float(np.quantile(cost, q)) if len(cost) else np.nan
        rec["cost_max"] = float(np.max(cost)) if len(cost) else np.nan
        rec["invalidation_mean"] = float(np.mean(r["invalidation_rate"])) if len(r) else np.nan
        rec["top_changes"] = "; ".join(f"{f}:{c}" for f, c in top)
        rows.append(rec)
    return pd.DataFrame(rows)


# The C library's portfolio run -------------------------------------------------

Counts = namedtuple("Counts", "rows accepted declined with_recourse errors")
Counts.__doc__ = """What a portfolio run wrote: lines (every data row), accepted applicants,
declined applicants explained, declined ones with a counterfactual, and rows that could not
be read or explained (an ``"error"`` line each)."""

GroupSummary = namedtuple("GroupSummary", "counts share_with_recourse median_cost p90_cost")
GroupSummary.__doc__ = """The summary of all applicants or of one group: its `Counts`, the
share of declined applicants with recourse (NaN without declined applicants) and the
recourse cost's median and 90th percentile (type-7 quantiles; NaN without recourse)."""

#: What `PortfolioSummary.cost_quantiles` returns, in order.
COST_QUANTILE_NAMES = ("n", "mean", "min", "p10", "p25", "median", "p75", "p90", "max")


def _counts(c):
    return Counts(c.rows, c.accepted, c.declined, c.with_recourse, c.errors)


def explain_csv(schema, model, input_path, output_path, config=None, ignore=(), threads=0, progress=None):
    """Explains every applicant of the CSV file `input_path` (a header naming the schema's
    features, categorical levels by name; the `ignore` columns, e.g. the outcome label, are
    skipped) into `output_path`, one JSON line per applicant in input order: the decision,
    and for a declined applicant the solver outcome, the solver that proved it and the
    optimal counterfactual. Rows are handled 4096 at a time at most (fewer toward the end of
    the file, so that the threads finish together), `threads` applicants solved at
    once (0 = all cores). `progress(rows_done)` is called on this thread after each chunk;
    returning False stops the run with `CfxError` ``CFX_STATUS_CANCELLED`` (the output is then
    untouched and ``<output>.cfx-partial`` holds exactly the rows reported), and an exception it raises stops the run and is
    raised here. With ``config=Config(resume=True)`` a cancelled or killed run goes on from its
    partial file, the output byte for byte an uninterrupted run's. Returns the `Counts`."""
    arr, _keep = n.string_list(ignore)
    out = PortfolioCounts()
    raised = []
    callback = None
    if progress is not None:

        def on_chunk(rows_done, _user_data):
            try:
                return bool(progress(int(rows_done)))
            except BaseException as e:  # never unwind through C: stop the run, raise below
                raised.append(e)
                return False

        callback = PORTFOLIO_PROGRESS_FN(on_chunk)  # kept alive until the call returns
    status = n.LIB.cfx_portfolio_explain(
        n.ptr_of(schema, "Schema"),
        n.ptr_of(model, "Model"),
        n.ptr_of(config, "Config", optional=True),
        cstr(str(input_path), "input_path"),
        cstr(str(output_path), "output_path"),
        arr,
        len(_keep),
        int(threads),
        callback if callback is not None else PORTFOLIO_PROGRESS_FN(),
        None,
        byref(out),
    )
    if raised:
        raise raised[0]
    n.check(status)
    return _counts(out)


class PortfolioSummary(Handle):
    """The summary of a portfolio run's JSON-lines output (`cfx_portfolio_summary`): the
    share of declined applicants with recourse, the recourse cost's quantiles and the
    changes asked most often, overall and per group. `len()` is the number of groups."""

    _free_name = "cfx_portfolio_summary_free"

    @classmethod
    def summarize(cls, schema, output_path, input_path=None, group_column=None, edges=()):
        """Summarises `output_path` (written by `explain_csv`). With a `group_column` of the
        applicants' CSV `input_path` (read alongside, row by row): each distinct cell is a
        group when `edges` is empty, else the cells are numbers cut into bands
        ``< e0, [e0, e1), …, ≥ ek`` by the strictly increasing `edges`, a special state of
        the feature being a group of its own."""
        e, pe = n.doubles(list(edges))
        return cls(
            n.new_handle(
                "cfx_portfolio_summarize",
                n.ptr_of(schema, "Schema"),
                cstr(None if input_path is None else str(input_path), "input_path"),
                cstr(str(output_path), "output_path"),
                cstr(group_column, "group_column"),
                pe if e.size else None,
                e.size,
            )
        )

    def __len__(self):
        out = c_size_t()
        n.call("cfx_portfolio_summary_n_groups", self.ptr, byref(out))
        return out.value

    @property
    def n_groups(self):
        return len(self)

    def group_name(self, group=-1):
        """The label of group `group` (0-based; -1 gives ``"all"``)."""
        return n.read_string("cfx_portfolio_summary_group_name", self.ptr, int(group))

    @property
    def group_names(self):
        return [self.group_name(g) for g in range(len(self))]

    def group(self, group=-1):
        """The `GroupSummary` of group `group` (-1: all applicants)."""
        c = PortfolioCounts()
        share, median, p90 = c_double(), c_double(), c_double()
        n.call(
            "cfx_portfolio_summary_counts",
            self.ptr,
            int(group),
            byref(c),
            byref(share),
            byref(median),
            byref(p90),
        )
        return GroupSummary(_counts(c), share.value, median.value, p90.value)

    @property
    def overall(self):
        return self.group(-1)

    def cost_quantiles(self, group=-1):
        """The recourse-cost figures of group `group` (-1: all applicants) as a dict keyed by
        `COST_QUANTILE_NAMES` (n, mean, min, p10, p25, median, p75, p90, max; all NaN but
        n = 0 without recourse)."""
        values = n.read_doubles("cfx_portfolio_summary_cost_quantiles", self.ptr, int(group))
        return dict(zip(COST_QUANTILE_NAMES, (float(v) for v in values)))

    def describe(self, top=5):
        """A plain-text table: the `top` changes asked most often, then one line per group."""
        return n.read_string("cfx_portfolio_summary_describe", self.ptr, int(top))

    def to_json(self):
        return n.read_string("cfx_portfolio_summary_to_json", self.ptr)

    def to_dict(self):
        return json.loads(self.to_json())

    def write_svg(self, path, title="Recourse by group", top=5):
        """Draws the share with recourse and median cost per group, and the `top` changes
        asked most often, as an SVG chart into the file `path`."""
        n.call(
            "cfx_portfolio_summary_write_svg",
            self.ptr,
            cstr(title, "title"),
            int(top),
            cstr(str(path), "path"),
        )
