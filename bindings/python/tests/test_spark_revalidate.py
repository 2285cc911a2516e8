"""examples/spark/revalidate_ledger.py in Spark's local mode re-validates an advice ledger exactly
as cfx.revalidate.revalidate_ledger does on one machine: examples/spark/check_revalidate.py runs
the job three times (file partitions of 512 bytes and a shuffle into three partitions against a
logistic model with a lowered intercept; partitions of 2048 bytes against the German XGBoost
test model) and requires byte-identical lines and equal reports, and a ledger of another schema
refused by both with the same message."""

import os
import subprocess
import sys

import pytest

from conftest import ROOT, in_ci


def test_spark_revalidation_equals_the_single_machine_one(tmp_path):
    try:
        import pyspark  # noqa: F401
    except ImportError:
        if in_ci():
            raise
        pytest.skip("pyspark is not installed")
    script = os.path.join(ROOT, "examples", "spark", "check_revalidate.py")
    run = subprocess.run(
        [sys.executable, script, str(tmp_path)],
        capture_output=True,
        text=True,
        timeout=1200,
    )
    assert run.returncode == 0, run.stdout[-4000:] + run.stderr[-4000:]
    last = run.stdout.strip().splitlines()[-1]
    assert last.startswith("check_revalidate: ") and last.endswith(
        "Spark lines byte-identical and reports equal in 4 runs"
    ), last
