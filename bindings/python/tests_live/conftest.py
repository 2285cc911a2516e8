"""Helpers of the live-object tests (bindings/python/tests_live). They run in the peer
virtual environments of benches/peers (optbinning in .venv-optbinning; XGBoost and LightGBM
in .venv-trees), where bindings/python/run-tests.sh installs the cfx package, not in the
package's own test environment, which stays without those libraries (CI disk)."""

import os

import pytest

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", "..", ".."))


def shared_data(name):
    """A file of the shared data (CFX_SHARED_DATA, default ../shared/data of the checkout);
    missing: skipped outside CI, a failure under CI."""
    folder = os.environ.get("CFX_SHARED_DATA") or os.path.join(ROOT, "..", "shared", "data")
    path = os.path.join(folder, name)
    if os.path.exists(path):
        return path
    ci = os.environ.get("CI", "")
    if ci not in ("", "0") and ci.lower() != "false":
        pytest.fail(f"shared data file {name} missing under CI: {path}")
    pytest.skip(f"shared data file {name} absent ({path})")


@pytest.fixture(scope="session")
def german_path():
    return os.path.join(ROOT, "examples", "data", "german_credit.csv")
