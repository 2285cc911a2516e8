"""The virtual environments of the peer scripts here that pin their packages
(trees_train.py, scorecard_optbinning.py and scorecard_counterfactual_optbinning.py).

A script's environment holds its pinned packages from PyPI (no pip cache) and is made again
whenever the pins change: the pins it was made with are stamped in its pins.txt, as
bindings/python/run-tests.sh does for its own environment, so that a machine which made it
before picks up a new or changed pin. bindings/python/run-tests.sh prepares the same
environments for the live-object tests (tests_live) through `prepare`."""

import os
import shutil
import subprocess
import sys


def prepare(venv, pins):
    """Makes the environment `venv` with exactly `pins` unless it was made with them;
    returns its interpreter."""
    py = os.path.join(venv, "bin", "python")
    stamp = os.path.join(venv, "pins.txt")
    want = "\n".join(pins) + "\n"
    try:
        with open(stamp) as f:
            if f.read() == want and os.path.exists(py):
                return py
    except OSError:
        pass
    shutil.rmtree(venv, ignore_errors=True)
    subprocess.check_call([sys.executable, "-m", "venv", venv])
    subprocess.check_call([py, "-m", "pip", "install", "-q", "--no-cache-dir",
                           "--disable-pip-version-check"] + pins)
    with open(stamp, "w") as f:
        f.write(want)
    return py


def enter(venv, pins, script):
    """Re-executes `script` with this process's arguments in `venv` (prepared first);
    returns at once when already running there."""
    if os.path.abspath(sys.prefix) == os.path.abspath(venv):
        return
    py = prepare(venv, pins)
    os.execv(py, [py, os.path.abspath(script)] + sys.argv[1:])
