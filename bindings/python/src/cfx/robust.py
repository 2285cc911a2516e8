"""Robustness of counterfactuals under noise (Pawelczyk et al. 2023, "Probabilistically
robust recourse", PROBE; Guyomard et al. 2023, CROCO): Monte Carlo estimates of the
invalidation rate Γ̃ and Θ̃, CROCO's bound, and robust generators."""

from collections import namedtuple
from ctypes import POINTER, byref, c_double, c_int32, c_size_t

import numpy as np

from . import _native as n
from ._enums import AdviceStatus, RobustMethod, Sampling, names_to_values, values_to_names
from ._native import Handle
from .config import NOISE_MODELS, ptr_of

SAMPLINGS = names_to_values(Sampling)
METHODS = names_to_values(RobustMethod)

Estimate = namedtuple("Estimate", "gamma gamma_se theta theta_se")
Bound = namedtuple("Bound", "theta bound confidence")
Summary = namedtuple("Summary", "valid target_met probability distance gamma theta bound confidence")


def _lookup(table, value, what):
    if value in table:
        return table[value]
    raise ValueError(f"cfx: {what} must be one of {sorted(table)}, got {value!r}")


class Noise(Handle):
    """A noise distribution over the encoded space (`cfx_noise`)."""

    _free_name = "cfx_noise_free"

    @classmethod
    def gaussian(cls, schema, sigma2):
        """N(0, σ²I) on the value slots of the mutable contiguous features; `sigma2` is the
        variance σ² (CROCO's 0.01)."""
        return cls(n.new_handle("cfx_noise_gaussian_new", n.ptr_of(schema, "Schema"), float(sigma2)))

    @classmethod
    def on_columns(cls, kind, columns, scale):
        """Noise on chosen encoded columns: ``"gaussian"`` (scale = the variance σ_j² of each
        column, as `gaussian`'s `sigma2`: one convention everywhere) or ``"uniform"`` (scale =
        half-width h of U[-h, h])."""
        cols = (c_size_t * len(columns))(*[int(c) for c in columns])
        a, p = n.doubles(scale)
        return cls(
            n.new_handle(
                "cfx_noise_new", _lookup(NOISE_MODELS, kind, "noise kind"), cols, len(columns), p, a.size
            )
        )


class Workspace(Handle):
    """Buffers and a seeded xoshiro256++ generator for estimates; one per thread."""

    _free_name = "cfx_workspace_free"

    def __init__(self, model, seed):
        super().__init__(n.new_handle("cfx_workspace_new", n.ptr_of(model, "Model"), int(seed)))

    def reseed(self, seed):
        n.call("cfx_workspace_reseed", self.ptr, int(seed))


class Estimator(Handle):
    """A Monte Carlo estimator of Γ̃ (share of K noisy copies rejected) and Θ̃."""

    _free_name = "cfx_estimator_free"

    def __init__(self, noise, k, sampling="auto"):
        super().__init__(
            n.new_handle(
                "cfx_estimator_new",
                n.ptr_of(noise, "Noise"),
                int(k),
                _lookup(SAMPLINGS, sampling, "sampling"),
            )
        )

    def estimate(self, model, workspace, x):
        a, p = n.doubles(x)
        vals = [c_double() for _ in range(4)]
        n.call(
            "cfx_estimator_estimate",
            self.ptr,
            n.ptr_of(model, "Model"),
            n.ptr_of(workspace, "Workspace"),
            p,
            a.size,
            *[byref(v) for v in vals],
        )
        return Estimate(*[v.value for v in vals])

    def bound(self, model, workspace, x, m):
        """CROCO's bound (m + Θ̃)/(1 − t) and its confidence 1 − exp(−2Km²)."""
        a, p = n.doubles(x)
        vals = [c_double() for _ in range(3)]
        n.call(
            "cfx_estimator_bound",
            self.ptr,
            n.ptr_of(model, "Model"),
            n.ptr_of(workspace, "Workspace"),
            p,
            a.size,
            float(m),
            *[byref(v) for v in vals],
        )
        return Bound(*[v.value for v in vals])

    def probe_rate(self, model, workspace, x):
        """PROBE's first-order invalidation rate (no sampling)."""
        a, p = n.doubles(x)
        out = c_double()
        n.call(
            "cfx_estimator_probe_rate",
            self.ptr,
            n.ptr_of(model, "Model"),
            n.ptr_of(workspace, "Workspace"),
            p,
            a.size,
            byref(out),
        )
        return out.value

    def exact_rate(self, model, x):
        """The exact Γ of a logistic model under Gaussian noise."""
        a, p = n.doubles(x)
        out = c_double()
        n.call("cfx_estimator_exact_rate", self.ptr, n.ptr_of(model, "Model"), p, a.size, byref(out))
        return out.value

    def estimate_batch(self, model, points, seed, threads=0):
        """(Γ̃, Θ̃) arrays for encoded rows; the same seed gives the same bits for any thread count."""
        m, p = n.matrix(points, model.input_dim, "points")
        gamma = np.empty(m.shape[0])
        theta = np.empty(m.shape[0])
        n.call(
            "cfx_estimator_estimate_batch",
            self.ptr,
            n.ptr_of(model, "Model"),
            p,
            m.shape[0],
            int(seed),
            int(threads),
            gamma.ctypes.data_as(POINTER(c_double)),
            theta.ctypes.data_as(POINTER(c_double)),
        )
        return gamma, theta


#: What a method's answer is as advice (`cfx_advice_status`, issue 25).
ADVICE_STATUSES = values_to_names(AdviceStatus)


def advice_status(code):
    """The name of a `cfx_advice_status` code."""
    return ADVICE_STATUSES[code]


class RobustResult(Handle):
    """A robust counterfactual with its figures."""

    _free_name = "cfx_robust_result_free"

    def summary(self):
        valid, met = c_int32(), c_int32()
        vals = [c_double() for _ in range(6)]
        n.call("cfx_robust_result_summary", self.ptr, byref(valid), byref(met), *[byref(v) for v in vals])
        return Summary(valid.value == 1, met.value == 1, *[v.value for v in vals])

    def raw(self):
        return n.read_doubles("cfx_robust_result_raw", self.ptr)

    def encoded(self):
        return n.read_doubles("cfx_robust_result_encoded", self.ptr)

    @property
    def advice_status(self):
        """What the counterfactual is as advice: ``"valid"`` (the model accepts it),
        ``"repaired_moved_features"`` / ``"repaired_whole_schema"`` (the exact engine's cheapest
        accepted row over the features the method moved / every actionable feature), or
        ``"no_advice"`` (`raw()` is then the method's best effort, for diagnosis only)."""
        out = c_int32()
        n.call("cfx_robust_result_advice_status", self.ptr, byref(out))
        return advice_status(out.value)

    def advice(self):
        """The advice as a raw row (the method's row or its repair); empty when there is none."""
        return n.read_doubles("cfx_robust_result_advice_raw", self.ptr)

    def describe(self):
        """The advice in one line for a person and how it was obtained, or "no valid advice found (…)"."""
        return n.read_string("cfx_robust_result_advice_describe", self.ptr)

    def __str__(self):
        return f"RobustResult[{self.advice_status}: {self.describe()}]"

    def to_json(self, schema=None, model=None):
        """Versioned JSON; `schema`/`model`, when given, must be those the result was made with."""
        return n.read_string(
            "cfx_robust_result_to_json",
            self.ptr,
            n.ptr_of(schema, "Schema", optional=True),
            n.ptr_of(model, "Model", optional=True),
        )


def generate(schema, model, noise, method, row, config=None):
    """A robust counterfactual of a raw row with ``"wachter"``, ``"probe"`` or ``"croco"``."""
    a, p = n.doubles(row)
    return RobustResult(
        n.new_handle(
            "cfx_robust_generate",
            n.ptr_of(schema, "Schema"),
            n.ptr_of(model, "Model"),
            n.ptr_of(noise, "Noise"),
            _lookup(METHODS, method, "method"),
            ptr_of(config),
            p,
            a.size,
        )
    )


def bound_confidence(k, m):
    """1 − exp(−2Km²), the confidence of CROCO's bound (NaN for m ≤ 0)."""
    return n.LIB.cfx_robust_bound_confidence(int(k), float(m))
