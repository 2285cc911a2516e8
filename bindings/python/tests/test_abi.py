"""The ctypes declarations of the package against the ABI manifest (bindings/gen/abi.json).

The manifest lists every C function with its parameters' C types, as the header declares
them. This test maps each C type to the ctypes type it must be bound with by a mapping of
its own (not the generator's), and compares every `SIGNATURES` entry, the structures and
callback types of `cfx._types` and the generated enums: a `size_t *` bound as
`POINTER(c_int32)`, a missing argument or a renumbered enum fails here instead of
corrupting memory at run time.
"""

import ctypes
import json
import os

import pytest

from conftest import ROOT
from cfx import _enums, _types
from cfx._signatures import SIGNATURES

with open(os.path.join(ROOT, "bindings", "gen", "abi.json"), encoding="utf-8") as f:
    ABI = json.load(f)

# C scalar -> ctypes type, and the width each must have on this platform.
SCALAR = {
    "cfx_status": ctypes.c_int32,
    "int32_t": ctypes.c_int32,
    "int64_t": ctypes.c_int64,
    "uint8_t": ctypes.c_uint8,
    "uint32_t": ctypes.c_uint32,
    "uint64_t": ctypes.c_uint64,
    "size_t": ctypes.c_size_t,
    "double": ctypes.c_double,
    "bool": ctypes.c_bool,
    "char": ctypes.c_char,
}


def camel(snake):
    return "".join(w.capitalize() for w in snake.split("_"))


def expected(c_type):
    """The ctypes type a C type must be bound with (None for `void`)."""
    words = c_type.replace("*", " * ").split()
    stars = words.count("*")
    base = [w for w in words if w not in ("const", "struct", "*")]
    assert len(base) == 1, c_type
    base = base[0]
    handles = set(ABI["handles"])
    structs = {s["name"] for s in ABI["structs"]}
    callbacks = {c["name"] for c in ABI["callbacks"]}
    if stars == 0:
        if base == "void":
            return None
        if base in callbacks:
            return getattr(_types, base[len("cfx_"):].upper())
        return SCALAR[base]
    if stars == 1:
        if base == "char":
            return ctypes.c_char_p
        if base in handles or base == "void":
            return ctypes.c_void_p
        if base in structs:
            return ctypes.POINTER(getattr(_types, camel(base[len("cfx_"):])))
        return ctypes.POINTER(SCALAR[base])
    if stars == 2:
        if base == "char":
            return ctypes.POINTER(ctypes.c_char_p)
        if base in handles:
            return ctypes.POINTER(ctypes.c_void_p)
    raise AssertionError(f"no ctypes type for {c_type}")


def test_the_manifest_matches_the_header_version():
    import cfx

    assert ABI["abi_version"] == cfx.abi_version()
    assert ABI["version"] == cfx.version()


def test_every_function_has_the_manifest_signature():
    functions = {f["name"]: f for f in ABI["functions"]}
    assert len(functions) > 100
    assert set(SIGNATURES) == set(functions)
    wrong = []
    for name, (restype, argtypes, testing_only) in SIGNATURES.items():
        f = functions[name]
        want = [expected(p["c_type"]) for p in f["params"]]
        if restype is not expected(f["returns"]) or argtypes != want or testing_only != f.get("testing_only", False):
            wrong.append(f"{name}: bound ({restype}, {argtypes}, {testing_only}), C says {f}")
    assert wrong == []


def test_bool_and_enum_parameters_are_32_bit():
    """types.toml's meanings ride on int32_t: each such parameter is a c_int32 (or a pointer to one)."""
    for f in ABI["functions"]:
        for i, p in enumerate(f["params"]):
            if "meaning" in p:
                t = SIGNATURES[f["name"]][1][i]
                assert t in (ctypes.c_int32, ctypes.POINTER(ctypes.c_int32)), (f["name"], p)


def test_structures_have_the_manifest_layout():
    for s in ABI["structs"]:
        cls = getattr(_types, camel(s["name"][len("cfx_"):]))
        assert [(n, t) for n, t in cls._fields_] == [(x["name"], expected(x["c_type"])) for x in s["fields"]], s


def test_callback_types_have_the_manifest_signature():
    for c in ABI["callbacks"]:
        fn = getattr(_types, c["name"][len("cfx_"):].upper())
        assert fn._restype_ is expected(c["returns"]), c
        assert list(fn._argtypes_) == [expected(p["c_type"]) for p in c["params"]], c


def test_enums_have_the_manifest_names_and_numbers():
    assert len(ABI["enums"]) > 10
    for e in ABI["enums"]:
        cls = getattr(_enums, camel(e["name"][len("cfx_"):]))
        prefix = e["name"].upper() + "_"
        want = {v["name"][len(prefix):]: v["value"] for v in e["variants"]}
        assert {m.name: int(m) for m in cls} == want, e["name"]


@pytest.mark.parametrize(
    "c_type,ctype",
    [
        ("size_t *", ctypes.POINTER(ctypes.c_size_t)),
        ("const struct cfx_model **", ctypes.POINTER(ctypes.c_void_p)),
        ("const char *", ctypes.c_char_p),
        ("int32_t", ctypes.c_int32),
    ],
)
def test_the_mapping_of_this_test(c_type, ctype):
    assert expected(c_type) == ctype
