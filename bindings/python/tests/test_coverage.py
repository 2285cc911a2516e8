"""Every function of include/cfx.h is bound with the header's signature and called by the
package (new entry points show up here, as in the Java/C#/R coverage tests)."""

import glob
import os
import re
import subprocess
import sys

import cfx
from conftest import ROOT

PKG = os.path.join(ROOT, "bindings", "python", "src", "cfx")


def header_functions():
    with open(os.path.join(ROOT, "include", "cfx.h"), encoding="utf-8") as f:
        text = f.read()
    return set(re.findall(r"(?m)^[A-Za-z_][A-Za-z0-9_ *]*?\b(cfx_[a-z0-9_]+)\(", text))


def test_signatures_are_generated_from_the_committed_header(tmp_path):
    script = os.path.join(ROOT, "bindings", "python", "gen_signatures.py")
    out = tmp_path / "_signatures.py"
    header = os.path.join(ROOT, "include", "cfx.h")
    subprocess.run(
        [sys.executable, script, "--header", header, "--out", str(out)], check=True, capture_output=True
    )
    with open(os.path.join(PKG, "_signatures.py"), encoding="utf-8") as f:
        committed = f.read()
    assert out.read_text() == committed, "run python3 bindings/python/gen_signatures.py"


def test_every_header_function_is_bound_and_called():
    declared = header_functions()
    assert len(declared) > 100, declared
    from cfx._signatures import SIGNATURES

    assert set(SIGNATURES) == declared
    sources = ""
    for path in glob.glob(os.path.join(PKG, "*.py")):
        if not path.endswith("_signatures.py"):
            with open(path, encoding="utf-8") as f:
                sources += f.read()
    missing = sorted(f for f in declared if not re.search(r"\b" + f + r"\b", sources))
    assert missing == [], "functions of cfx.h the Python package does not call"
    for name in declared:
        testing_only = SIGNATURES[name][2]
        assert cfx.has(name) or testing_only, name


def test_version_matches_the_header():
    with open(os.path.join(ROOT, "include", "cfx.h"), encoding="utf-8") as f:
        text = f.read()
    major, minor, patch = (
        int(re.search(rf"#define CFX_VERSION_{k} (\d+)", text).group(1)) for k in ("MAJOR", "MINOR", "PATCH")
    )
    assert cfx.version_info() == (major, minor, patch)
    assert cfx.version() == f"{major}.{minor}.{patch}" == cfx.__version__
    assert cfx.abi_version() == int(re.search(r"#define CFX_ABI_VERSION (\d+)", text).group(1))
