"""Plans that survive the next model (COPA; Nguyen, Bui and Nguyen 2022, "Distributionally
robust recourse action"): moments of the future parameters, validity bounds, corrections
and plans."""

from collections import namedtuple
from ctypes import POINTER, byref, c_double, c_int32, c_size_t

import numpy as np

from . import _native as n
from ._enums import CopaStatus, values_to_names
from ._native import Handle
from .config import ptr_of
from .robust import advice_status

COPA_STATUSES = values_to_names(CopaStatus)

Bounds = namedtuple("Bounds", "lower upper lower_status upper_status")
Correction = namedtuple("Correction", "options lower_before lower_after")
Metrics = namedtuple("Metrics", "proximity diversity validity lower upper")


class Uncertainty(Handle):
    """Mean μ̂ and covariance Σ̂ of the future parameters θ̃ = (bias, w), intercept first."""

    _free_name = "cfx_uncertainty_free"

    @classmethod
    def from_moments(cls, mean, cov):
        m, pm = n.doubles(mean)
        c, pc = n.doubles(np.asarray(cov, dtype=np.float64).reshape(-1))
        return cls(n.new_handle("cfx_uncertainty_new", pm, m.size, pc, c.size))

    @classmethod
    def from_dataset(cls, train, refits=1000, seed=0):
        """Moments from `refits` logistic regressions on random halves of `train` (seeded)."""
        return cls(
            n.new_handle("cfx_uncertainty_from_dataset", n.ptr_of(train, "Dataset"), int(refits), int(seed))
        )

    @property
    def dim(self):
        out = c_size_t()
        n.call("cfx_uncertainty_dim", self.ptr, byref(out))
        return out.value


def bounds(uncertainty, options, rho=0.0):
    """L* ≤ P(every option stays valid) ≤ U* over laws within Gelbrich distance `rho`;
    `options`: encoded rows without the intercept."""
    m, p = n.matrix(options, uncertainty.dim - 1, "options")
    lo, up, ls, us = c_double(), c_double(), c_int32(), c_int32()
    n.call(
        "cfx_copa_bounds",
        n.ptr_of(uncertainty, "Uncertainty"),
        p,
        m.shape[0],
        m.shape[1],
        float(rho),
        byref(lo),
        byref(up),
        byref(ls),
        byref(us),
    )
    return Bounds(
        lo.value,
        up.value,
        COPA_STATUSES.get(ls.value, str(ls.value)),
        COPA_STATUSES.get(us.value, str(us.value)),
    )


def correct(uncertainty, options, rho=0.0, delta=0.1):
    """The corrected plan (projection, then Mahalanobis improvement) and L* before/after."""
    m, p = n.matrix(options, uncertainty.dim - 1, "options")
    out = np.empty(m.size)
    got, before, after = c_size_t(), c_double(), c_double()
    n.call(
        "cfx_copa_correct",
        n.ptr_of(uncertainty, "Uncertainty"),
        p,
        m.shape[0],
        m.shape[1],
        float(rho),
        float(delta),
        out.ctypes.data_as(POINTER(c_double)),
        out.size,
        byref(got),
        byref(before),
        byref(after),
    )
    return Correction(out[: got.value].reshape(m.shape), before.value, after.value)


class CopaResult(Handle):
    """A COPA plan: options (raw rows), metrics and a description."""

    _free_name = "cfx_copa_result_free"

    def __len__(self):
        out = c_size_t()
        n.call("cfx_copa_result_n_options", self.ptr, byref(out))
        return out.value

    def option(self, k):
        return n.read_doubles("cfx_copa_result_option_raw", self.ptr, int(k))

    def metrics(self):
        vals = [c_double() for _ in range(5)]
        n.call("cfx_copa_result_metrics", self.ptr, *[byref(v) for v in vals])
        return Metrics(*[v.value for v in vals])

    def advice_status(self, k):
        """What option `k` is as advice (a name of `cfx.robust.ADVICE_STATUSES`), for a plan made
        with `plan_checked` (else CfxError INVALID_ARGUMENT)."""
        out = c_int32()
        n.call("cfx_copa_result_option_advice_status", self.ptr, int(k), byref(out))
        return advice_status(out.value)

    def advice(self, k):
        """Option `k`'s advice as a raw row (the option or its repair); empty when there is none."""
        return n.read_doubles("cfx_copa_result_option_advice_raw", self.ptr, int(k))

    def describe(self):
        """One line per option; for a plan made with `plan_checked`, the advice each option became."""
        return n.read_string("cfx_copa_result_describe", self.ptr)

    def to_json(self):
        return n.read_string("cfx_copa_result_to_json", self.ptr)


def plan(schema, uncertainty, row, config=None):
    """A COPA plan for a raw applicant row (`Config(n_diverse=J, seed=…, copa_weights=…,
    copa_radius=…)`)."""
    a, p = n.doubles(row)
    return CopaResult(
        n.new_handle(
            "cfx_copa_plan_new",
            n.ptr_of(schema, "Schema"),
            n.ptr_of(uncertainty, "Uncertainty"),
            ptr_of(config),
            p,
            a.size,
        )
    )


def plan_checked(schema, uncertainty, model, row, config=None):
    """`plan`, then every option checked with today's `model` (fitted on `schema`): an option the
    model declines is repaired by the exact engine or is "no valid advice found"; read
    `advice_status(k)` and `advice(k)`."""
    a, p = n.doubles(row)
    return CopaResult(
        n.new_handle(
            "cfx_copa_plan_new_checked",
            n.ptr_of(schema, "Schema"),
            n.ptr_of(uncertainty, "Uncertainty"),
            n.ptr_of(model, "Model"),
            ptr_of(config),
            p,
            a.size,
        )
    )
