"""Shared helpers of the Python binding's tests (run by bindings/python/run-tests.sh)."""

import os
import struct

import pytest

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", "..", ".."))


def in_ci():
    """Whether the tests run under CI (`CI` set to anything but empty, 0 or false), where
    nothing may be skipped for a missing input."""
    v = os.environ.get("CI", "")
    return v not in ("", "0") and v.lower() != "false"


def require(path, what):
    """`path` when it exists; else skip outside CI and fail under CI."""
    if os.path.exists(path):
        return path
    if in_ci():
        pytest.fail(f"{what} missing under CI: {path}")
    pytest.skip(f"{what} absent ({path})")


def shared_data(name):
    folder = os.environ.get("CFX_SHARED_DATA") or os.path.join(ROOT, "..", "shared", "data")
    return require(os.path.join(folder, name), f"shared data file {name}")


def bits(x):
    """The IEEE-754 bit pattern of a float64, to compare bit for bit."""
    return struct.unpack("<Q", struct.pack("<d", float(x)))[0]


def fnv1a64(text):
    """The C API's fingerprint: FNV-1a 64 of the UTF-8 bytes."""
    h = 0xCBF29CE484222325
    for b in text.encode("utf-8"):
        h ^= b
        h = (h * 0x100000001B3) & 0xFFFFFFFFFFFFFFFF
    return f"fnv1a64:{h:016x}"


@pytest.fixture(scope="session")
def expected():
    """bindings/scenario_expected.txt (written by `cargo run --release --example binding_scenario`)."""
    out = {}
    with open(os.path.join(ROOT, "bindings", "scenario_expected.txt"), encoding="utf-8") as f:
        for line in f:
            if " = " in line:
                k, v = line.split(" = ", 1)
                out[k.strip()] = v.strip()
    return out


@pytest.fixture(scope="session")
def german_path():
    return os.path.join(ROOT, "examples", "data", "german_credit.csv")
