"""cfx: counterfactual explanations for credit scoring, from Python.

A thin, idiomatic layer over cfx's C library (``libcfx``, loaded with ctypes: see
``cfx._native`` for where it is looked for). Every handle is a class with ``close()``,
context-manager support and a finaliser; a failed call raises `CfxError` carrying the
C status name and message.

    >>> import cfx
    >>> german = cfx.load_german()
    >>> len(german)
    1000
"""

from . import coherent, copa, robust, sequential
from . import revalidate  # issue 28: the advice ledger and its re-validation
from ._native import LIB_PATH, CfxError, CfxPanic, has, last_error_message, status_name
from ._native import LIB as _LIB
from .coherent import (
    CoherentBatch,
    CoherentResult,
    WaitingAdvice,
    explain,
    explain_batch,
    explain_diverse,
    explain_frame,
    explain_with_waiting,
)
from .config import Config
from .copa import CopaResult, Uncertainty
from .data import Dataset, load_german, load_heloc, load_taiwan
from .model import Model, Prediction
from .notices import Notice, notice
from .notices import book as notice_book
from .plausibility import Assessment, Plausibility
from .robust import Estimator, Noise, RobustResult, Workspace
from .schema import Schema, SchemaBuilder
from .scorecard import ScorecardImport, exact_table, from_optbinning
from .sequential import Plan, Policy

__version__ = _LIB.cfx_version_string().decode("utf-8")


def version():
    """The library's version string, e.g. ``"0.1.0"``."""
    return _LIB.cfx_version_string().decode("utf-8")


def version_info():
    """(major, minor, patch) of the loaded library."""
    return (_LIB.cfx_version_major(), _LIB.cfx_version_minor(), _LIB.cfx_version_patch())


def abi_version():
    """The C ABI version of the loaded library (``CFX_ABI_VERSION``)."""
    return _LIB.cfx_abi_version()


def testing_panic():
    """Panics inside the library on purpose (only in a library built with the ``testing``
    feature); raises `CfxPanic`, and the interpreter goes on."""
    if not has("cfx_testing_panic"):
        raise RuntimeError("cfx: this libcfx was built without the `testing` feature")
    from ._native import check

    check(_LIB.cfx_testing_panic())


__all__ = [
    "Assessment",
    "CfxError",
    "CfxPanic",
    "CoherentBatch",
    "CoherentResult",
    "Config",
    "CopaResult",
    "Dataset",
    "Estimator",
    "LIB_PATH",
    "Model",
    "Noise",
    "Notice",
    "Plausibility",
    "Plan",
    "Policy",
    "Prediction",
    "RobustResult",
    "Schema",
    "SchemaBuilder",
    "ScorecardImport",
    "Uncertainty",
    "WaitingAdvice",
    "Workspace",
    "abi_version",
    "coherent",
    "copa",
    "explain",
    "explain_batch",
    "explain_diverse",
    "explain_frame",
    "explain_with_waiting",
    "from_optbinning",
    "exact_table",
    "has",
    "last_error_message",
    "load_german",
    "load_heloc",
    "load_taiwan",
    "notice",
    "notice_book",
    "revalidate",
    "robust",
    "sequential",
    "status_name",
    "testing_panic",
    "version",
    "version_info",
]
