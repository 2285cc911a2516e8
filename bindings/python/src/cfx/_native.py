"""Loading libcfx and calling it: statuses become exceptions, buffers become arrays.

The library is looked up, in this order, at the path in the environment
variable ``CFX_LIB`` (a file, or a folder holding ``libcfx.so``; an override),
inside this package (the wheel of ``make dist`` ships ``cfx/lib/libcfx.so``
with the bundled data in ``cfx/share/cfx``, laid out like an installed prefix
so that libcfx finds the data beside itself; an older copy may sit at
``cfx/libcfx.so``), and where the system finds libraries
(``ctypes.util.find_library("cfx")``, e.g. after ``make install``). Nothing is
compiled at install time.
"""

import ctypes
import ctypes.util
import os
import sys
from ctypes import POINTER, byref, c_char_p, c_double, c_size_t, c_void_p

import numpy as np

from ._enums import Status
from ._signatures import SIGNATURES

_LIB_NAMES = {"linux": "libcfx.so", "darwin": "libcfx.dylib", "win32": "cfx.dll"}


def _lib_file_name():
    return _LIB_NAMES.get(sys.platform, "libcfx.so")


def _candidates():
    """Where libcfx is looked for, in order, with what each place is."""
    env = os.environ.get("CFX_LIB")
    if env:
        path = os.path.join(env, _lib_file_name()) if os.path.isdir(env) else env
        yield path, "CFX_LIB"
        return  # an explicit choice is the only one looked at
    here = os.path.dirname(os.path.abspath(__file__))
    inside = os.path.join(here, "lib", _lib_file_name())
    if os.path.exists(inside):
        yield inside, "package folder"
    else:
        yield os.path.join(here, _lib_file_name()), "package folder"
    found = ctypes.util.find_library("cfx")
    if found:
        yield found, "system library path"


def _load():
    tried = []
    for path, where in _candidates():
        if where != "system library path" and not os.path.exists(path):
            tried.append(f"{path} ({where}: no such file)")
            continue
        try:
            return ctypes.CDLL(path), path
        except OSError as e:
            tried.append(f"{path} ({where}: {e})")
    if not tried:
        tried.append("the system library path (ctypes.util.find_library('cfx') found nothing)")
    raise ImportError(
        "cfx: libcfx was not found; install the cfx wheel (`make dist` writes it), set CFX_LIB to "
        "the library (or its folder), or install libcfx (`make install`). Looked at: " + "; ".join(tried)
    )


LIB, LIB_PATH = _load()


def _bind():
    """Sets the argument and result types of every function the library exports."""
    missing = []
    for name, (restype, argtypes, testing_only) in SIGNATURES.items():
        fn = getattr(LIB, name, None)
        if fn is None:
            if not testing_only:
                missing.append(name)
            continue
        fn.restype = restype
        fn.argtypes = argtypes
    if missing:
        raise ImportError(
            f"cfx: {LIB_PATH} lacks functions of this package's cfx.h (an older library?): "
            + ", ".join(missing)
        )


_bind()


def has(name):
    """Whether the loaded library exports `name` (the testing entry points are optional)."""
    return getattr(LIB, name, None) is not None


def status_name(status):
    """The C name of a status number, e.g. ``"CFX_STATUS_INVALID_ARGUMENT"``."""
    return LIB.cfx_status_str(int(status)).decode("utf-8")


def last_error_message():
    """The calling thread's last error message ("" when the last call succeeded)."""
    n = LIB.cfx_last_error_length()
    if n == 0:
        return ""
    buf = ctypes.create_string_buffer(n)
    if LIB.cfx_last_error_message(buf, n) != 0:
        return ""
    return buf.value.decode("utf-8", errors="replace")


class CfxError(Exception):
    """A call into cfx failed: `status` (number), `status_name` (its C name) and `message`.

    Solver outcomes (infeasible, time limit) are results, never errors.
    """

    def __init__(self, status, message):
        self.status = int(status)
        self.status_name = status_name(status)
        self.message = message
        super().__init__(f"{self.status_name}: {message}")


class CfxPanic(CfxError):
    """A Rust panic was caught at the C boundary (`CFX_STATUS_PANIC`): a bug in cfx.

    The interpreter goes on; handles used by the failed call should be closed.
    """


PANIC = int(Status.PANIC)
OK = int(Status.OK)
BUFFER_TOO_SMALL = int(Status.BUFFER_TOO_SMALL)


def check(status):
    """Raises the calling thread's last error when `status` is not OK."""
    if status != OK:
        cls = CfxPanic if status == PANIC else CfxError
        raise cls(status, last_error_message())


def call(name, *args):
    """Calls `name` and raises on a non-OK status."""
    check(getattr(LIB, name)(*args))


# Pointer helpers -------------------------------------------------------------


def doubles(values, what="values"):
    """A contiguous float64 array of `values` and a `double *` into it (keep the array alive)."""
    arr = np.ascontiguousarray(np.asarray(values, dtype=np.float64))
    return arr, arr.ctypes.data_as(POINTER(c_double))


def matrix(values, n_cols, what):
    """A contiguous row-major float64 matrix with `n_cols` columns (one row allowed as 1-D)."""
    arr = np.asarray(values, dtype=np.float64)
    if arr.ndim == 1:
        arr = arr.reshape(1, -1) if arr.size else arr.reshape(0, n_cols)
    if arr.ndim != 2 or arr.shape[1] != n_cols:
        raise ValueError(f"cfx: {what} must have {n_cols} columns, got shape {arr.shape}")
    arr = np.ascontiguousarray(arr)
    return arr, arr.ctypes.data_as(POINTER(c_double))


def cstr(text, what="string"):
    """UTF-8 bytes of `text` for a `const char *` (None stays NULL)."""
    if text is None:
        return None
    if isinstance(text, bytes):
        return text
    if not isinstance(text, str):
        raise TypeError(f"cfx: {what} must be a str, got {type(text).__name__}")
    return text.encode("utf-8")


def read_string(name, *args):
    """Calls a function of the string buffer protocol (`..., buf, cap, out_len`)."""
    fn = getattr(LIB, name)
    n = c_size_t(0)
    st = fn(*args, None, 0, byref(n))
    if st not in (OK, BUFFER_TOO_SMALL):
        check(st)
    buf = ctypes.create_string_buffer(max(n.value, 1))
    check(fn(*args, buf, n.value, byref(n)))
    return buf.value.decode("utf-8")


def read_doubles(name, *args, size_hint=None):
    """Calls a function of the array buffer protocol (`..., buf, cap, out_len`); a float64 array."""
    fn = getattr(LIB, name)
    n = c_size_t(0)
    if size_hint is None:
        st = fn(*args, None, 0, byref(n))
        if st not in (OK, BUFFER_TOO_SMALL):
            check(st)
        size_hint = n.value
    out = np.empty(size_hint, dtype=np.float64)
    st = fn(*args, out.ctypes.data_as(POINTER(c_double)), size_hint, byref(n))
    if st == BUFFER_TOO_SMALL:
        out = np.empty(n.value, dtype=np.float64)
        st = fn(*args, out.ctypes.data_as(POINTER(c_double)), n.value, byref(n))
    check(st)
    return out[: n.value]


def new_handle(name, *args):
    """Calls a constructor whose last parameter is an out-handle; the new pointer."""
    out = c_void_p()
    call(name, *args, byref(out))
    return out


class Handle:
    """An owned C handle, freed exactly once: by `close()`, by leaving a `with` block, or
    when garbage-collected (`__del__`). Using a closed handle raises ValueError."""

    _free_name = None  # the `cfx_*_free` function of the handle kind

    def __init__(self, ptr):
        if not ptr:
            raise ValueError("cfx: a NULL handle")
        self._ptr = ptr if isinstance(ptr, c_void_p) else c_void_p(ptr)
        # Bound now: at interpreter shutdown module globals may already be gone.
        self._free = getattr(LIB, self._free_name)

    @property
    def ptr(self):
        if self._ptr is None:
            raise ValueError(f"cfx: this {type(self).__name__} is closed")
        return self._ptr

    def close(self):
        """Frees the handle now (idempotent)."""
        ptr, self._ptr = getattr(self, "_ptr", None), None
        if ptr:
            self._free(ptr)

    @property
    def closed(self):
        return self._ptr is None

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()
        return False

    def __del__(self):
        try:
            self.close()
        except Exception:  # never raise from a finaliser
            pass


def ptr_of(obj, kind, optional=False):
    """The C handle of `obj`, which must be an open cfx object of class `kind` (a handle of
    another kind passed to C would be read as the wrong type: refused here, as TypeError)."""
    if obj is None and optional:
        return None
    names = {c.__name__ for c in type(obj).__mro__}
    if kind not in names or not isinstance(obj, Handle):
        raise TypeError(f"cfx: expected a cfx.{kind}, got {type(obj).__module__}.{type(obj).__name__}")
    return obj.ptr


def string_list(values):
    """A `const char *const *` array of UTF-8 strings, and the bytes it points into."""
    encoded = [cstr(v, "name") for v in values]
    arr = (c_char_p * len(encoded))(*encoded)
    return arr, encoded


__all__ = ["CfxError", "CfxPanic", "LIB", "LIB_PATH"]
