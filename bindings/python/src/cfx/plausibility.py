"""Plausible ranges: does an advice row ask for values that accepted applicants have?

Per feature, the 1–99 % range of the training data's accepted applicants' values and the
shares of their special states and levels; `Plausibility.assess` flags the changed values of
any advice row (coherent, robust, COPA or sequential), and `Plausibility.advise_waits` gives
the schema whose waits land month counters inside those ranges."""

from collections import namedtuple
from ctypes import POINTER, byref, c_int32, c_size_t

import numpy as np

from . import _native as n
from ._native import Handle
from .schema import Schema

Assessment = namedtuple("Assessment", "flags distances")
Assessment.__doc__ = """Per feature: `flags` −1 unchanged, 0 plausible, 1 implausible (outside
the 1–99 % range of accepted applicants, or a state or level fewer than 1 % of them have);
`distances` how far outside the range in the feature's units (0 inside or for a state, NaN
when unchanged)."""


class Plausibility(Handle):
    """Plausible ranges fitted on training data (`cfx_plausibility`); immutable."""

    _free_name = "cfx_plausibility_free"

    def __init__(self, ptr, n_features):
        super().__init__(ptr)
        self.n_features = n_features

    @classmethod
    def fit(cls, schema, rows, labels):
        """Fits the ranges on raw training rows (n × n_features) and their 0/1 labels
        (1 = accepted; only those rows are used)."""
        width = schema.n_features
        m, p = n.matrix(rows, width, "rows")
        lab, pl = n.doubles(labels)
        ptr = n.new_handle(
            "cfx_plausibility_fit", n.ptr_of(schema, "Schema"), p, m.size, m.shape[0], pl, lab.size
        )
        return cls(ptr, width)

    @classmethod
    def from_dataset(cls, dataset):
        """Fits the ranges on a dataset's rows and labels."""
        with dataset.schema as s:
            return cls.fit(s, dataset.rows, dataset.labels)

    def assess(self, factual, advice):
        """The `Assessment` of raw row `advice` against the applicant's raw row `factual`."""
        f, pf = n.doubles(factual)
        a, pa = n.doubles(advice)
        flags = np.empty(self.n_features, dtype=np.int32)
        dist = np.empty(self.n_features, dtype=np.float64)
        out = c_size_t()
        n.call(
            "cfx_plausibility_assess",
            self.ptr,
            pf,
            f.size,
            pa,
            a.size,
            flags.ctypes.data_as(POINTER(c_int32)),
            dist.ctypes.data_as(POINTER(n.c_double)),
            self.n_features,
            byref(out),
        )
        return Assessment(flags[: out.value], dist[: out.value])

    def advise_waits(self):
        """The schema these ranges were fitted for, with every contiguous feature that grows with
        time limited to waits that land it inside its plausible range (its advised range,
        `SchemaBuilder.set_time_growth_advised_range`, set to the accepted applicants' 1–99 %
        range): no method then advises a wait that moves a month counter to where accepted
        applicants are not. A feature with no accepted applicant in range keeps its own. A new
        `Schema`; this handle is unchanged."""
        return Schema(n.new_handle("cfx_plausibility_advise_waits", self.ptr))


__all__ = ["Assessment", "Plausibility"]
