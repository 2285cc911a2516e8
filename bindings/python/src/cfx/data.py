"""Datasets: a schema, raw rows and labels (1 = favourable)."""

import json
import os
from ctypes import byref, c_double, c_size_t, c_void_p

import numpy as np

from . import _native as n
from ._native import Handle, cstr
from .schema import Schema


class Dataset(Handle):
    """An immutable dataset (`cfx_dataset`); `len()` is its row count."""

    _free_name = "cfx_dataset_free"

    @classmethod
    def from_csv(cls, schema, path, target, favourable, delimiter=",", has_header=True):
        """Reads applicants under `schema` from a CSV file; a row is favourable (label 1) when
        its `target` cell equals `favourable`. Errors name the file, row and column."""
        path = os.fspath(path)
        if delimiter == "," and has_header:
            return cls(
                n.new_handle(
                    "cfx_dataset_from_csv",
                    n.ptr_of(schema, "Schema"),
                    cstr(path),
                    cstr(target),
                    cstr(favourable),
                )
            )
        if not isinstance(delimiter, str) or len(delimiter.encode("utf-8")) != 1:
            raise ValueError(f"cfx: the delimiter must be one ASCII character, got {delimiter!r}")
        return cls(
            n.new_handle(
                "cfx_dataset_from_csv_ex",
                n.ptr_of(schema, "Schema"),
                cstr(path),
                cstr(target),
                cstr(favourable),
                delimiter.encode("ascii"),
                1 if has_header else 0,
            )
        )

    @classmethod
    def infer_csv(
        cls,
        path,
        target,
        favourable,
        delimiter=",",
        has_header=True,
        drop=(),
        categorical=(),
        special_codes=(),
        rules=None,
    ):
        """Infers a schema from a lender's CSV file and reads its rows under it; the schema
        (`schema`) has distance weights fitted on the rows. A column is categorical when
        listed in `categorical` or when a cell is not a number, else contiguous on the range
        of its values; columns in `drop` (identifiers) are left out; `target` is the label
        (1 where it equals `favourable`). `special_codes` are ``(code, label)`` (every
        numeric column where the code occurs) or ``(code, label, column)`` triples, e.g.
        ``(-7, "no delinquency record")``; a cell holding the label is read as that state.
        Every feature is mutable in any direction unless `rules` says otherwise: a dict (or its
        JSON text) with the optional keys ``actionability`` — feature name → the schema's
        actionability object, e.g. ``{"SEX": {"mutable": False}, "EDUCATION": {"direction":
        "increase_only"}}`` — and ``waiting`` (``{"max_months": 24, "cost_per_month": 0.01}``),
        as ``cfx schema infer`` takes them; a rule naming no feature raises `CfxError`."""
        if not isinstance(delimiter, str) or len(delimiter.encode("utf-8")) != 1:
            raise ValueError(f"cfx: the delimiter must be one ASCII character, got {delimiter!r}")
        drop_arr, _d = n.string_list(drop)
        cat_arr, _c = n.string_list(categorical)
        specials = [tuple(t) for t in special_codes]
        for t in specials:
            if len(t) not in (2, 3):
                raise ValueError(f"cfx: a special code is (code, label) or (code, label, column), got {t!r}")
        codes = (c_double * len(specials))(*[float(t[0]) for t in specials])
        labels, _l = n.string_list([t[1] for t in specials])
        columns, _k = n.string_list([t[2] if len(t) == 3 else None for t in specials])
        if rules is None:
            name, extra = "cfx_dataset_infer_csv", ()
        else:
            text = rules if isinstance(rules, str) else json.dumps(rules)
            name, extra = "cfx_dataset_infer_csv_with_rules", (cstr(text, "rules"),)
        return cls(
            n.new_handle(
                name,
                cstr(os.fspath(path), "path"),
                cstr(target, "target"),
                cstr(favourable, "favourable"),
                delimiter.encode("ascii"),
                1 if has_header else 0,
                drop_arr,
                len(_d),
                cat_arr,
                len(_c),
                codes,
                labels,
                columns,
                len(specials),
                *extra,
            )
        )

    def fitted_schema(self):
        """A new schema: this dataset's schema with distance weights fitted on its rows
        (Russell 2019, §3.2). A schema built in code or read from JSON has unit weights,
        which changes most answers: build the model and every method on this one."""
        return Schema(n.new_handle("cfx_dataset_fitted_schema", self.ptr))

    def __len__(self):
        out = c_size_t()
        n.call("cfx_dataset_n_rows", self.ptr, byref(out))
        return out.value

    @property
    def n_rows(self):
        return len(self)

    @property
    def schema(self):
        """The dataset's schema (a new handle)."""
        return Schema(n.new_handle("cfx_dataset_schema", self.ptr))

    def _n_features(self):
        cached = getattr(self, "_nf", None)
        if cached is None:
            with self.schema as s:
                cached = self._nf = s.n_features
        return cached

    def row(self, index):
        """Raw row `index` (float64 array, one value per feature)."""
        return n.read_doubles("cfx_dataset_row", self.ptr, int(index), size_hint=self._n_features())

    def label(self, index):
        out = c_double()
        n.call("cfx_dataset_label", self.ptr, int(index), byref(out))
        return out.value

    @property
    def rows(self):
        """Every raw row (n × n_features float64)."""
        return np.array([self.row(i) for i in range(len(self))]).reshape(len(self), self._n_features())

    @property
    def labels(self):
        return np.array([self.label(i) for i in range(len(self))], dtype=np.float64)

    def encoded(self):
        """Every row encoded for a model (n × encoded_dim)."""
        with self.schema as s:
            return s.encode(self.rows)

    def holdout_split(self):
        """The fixed 70/30 hold-out split (row i is held out when i mod 10 ≥ 7): (train, test)."""
        train, test = c_void_p(), c_void_p()
        n.call("cfx_dataset_holdout_split", self.ptr, byref(train), byref(test))
        return Dataset(train), Dataset(test)

    def to_frame(self, level_names=True, label_column="label"):
        """The applicants as a DataFrame (categoricals by level name) with their labels."""
        with self.schema as s:
            frame = s.frame_from_rows(self.rows, level_names=level_names)
        if label_column:
            frame[label_column] = self.labels
        return frame


def load_german(path=None):
    """Statlog German credit (1,000 applicants) with cfx's schema. `path` None: the copy
    bundled with cfx (``$CFX_DATA_DIR``, the installed data folder, or ``examples/data``)."""
    return Dataset(n.new_handle("cfx_dataset_load_german", cstr(os.fspath(path) if path else None)))


def load_heloc(path=None):
    """FICO HELOC (special codes -7/-8/-9 as special states). `path` None: ``heloc.csv`` in
    ``$CFX_SHARED_DATA`` or ``../shared/data``."""
    return Dataset(n.new_handle("cfx_dataset_load_heloc", cstr(os.fspath(path) if path else None)))


def load_taiwan(path=None):
    """Taiwan credit-card default. `path` None: ``taiwan_default.csv`` in the shared data folder."""
    return Dataset(n.new_handle("cfx_dataset_load_taiwan", cstr(os.fspath(path) if path else None)))
