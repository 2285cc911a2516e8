#!/usr/bin/env python3
"""Checks examples/spark/revalidate_ledger.py against the single-machine re-validation, in
Spark's local mode (run by `make test` through bindings/python/tests/test_spark_revalidate.py;
it needs PySpark and Java 17).

Issues a ledger for every declined held-out German applicant under a logistic model (a robust
version of the advice, σ² = 0.01 and at most 20% invalidated, for every third; the applicant's
housing as the group), adds a blank line, a line that is not a record and a record under
another schema fingerprint (each gets an error line, not a refusal), and re-validates it with
`cfx.revalidate.revalidate_ledger` on one machine and with the Spark job run by
`spark-submit --master local[2]`: against the same model with its intercept lowered by 0.4,
once in file partitions of 512 bytes (nearly every record begins a partition, the error lines
included) and once shuffled into three partitions (`--partitions 3`); and against the German
XGBoost test model (bindings/testdata/german_trees_xgboost.json, read from its file by the job
with `--model-format xgboost`) in partitions of 2048 bytes. The Spark lines, concatenated, must
be byte-identical to the single-machine output and the Spark report equal to the single-machine
report; a ledger whose first record names another schema must be refused by both with the same
message. Last line:

    check_revalidate: N records (E errors; broken: B by the shifted model, X by XGBoost):
    Spark lines byte-identical and reports equal in 4 runs

Run with a Python that has PySpark 4, pandas < 3, PyArrow and cfx (docs/guide/portfolio-and-spark.md, "Portfolio runs on
Spark"; from a source checkout, the package bindings/python and CFX_LIB set to
target/release/libcfx.so):

    python examples/spark/check_revalidate.py [work folder]
"""

import glob
import json
import os
import re
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
if os.path.isdir(os.path.join(ROOT, "examples", "data")):
    os.environ.setdefault("CFX_DATA_DIR", os.path.join(ROOT, "examples", "data"))

import cfx  # noqa: E402
from cfx.revalidate import ledger_record, revalidate_ledger  # noqa: E402

CONFIG = {"time_limit": 60.0}


def issue(work):
    """Writes schema.json, model_new.json and ledger.jsonl into `work`; returns their paths."""
    german = cfx.load_german()
    s = german.schema
    train, test = german.holdout_split()
    a = cfx.Model.fit_linear(train, 1.0)
    doc = json.loads(a.to_json())
    doc["bias"] -= 0.4  # the model being deployed: a stricter one
    b = cfx.Model.from_json(s, json.dumps(doc))
    housing = next(j for j, f in enumerate(s.features) if f["name"] == "housing")
    levels = s.features[housing]["levels"]
    robust_cfg = cfx.Config(robust_advice=(0.01, 0.2))
    lines = []
    for k, row in enumerate(test.rows):
        if a.predict_raw(s, row).accepted:
            continue
        with cfx.explain(s, a, row) as r:
            robust = cfx.explain(s, a, row, robust_cfg) if len(lines) % 3 == 0 else None
            try:
                lines.append(
                    ledger_record(
                        r, f"app-{k}", issued="2026-12-02", group=levels[int(row[housing])], robust=robust
                    )
                )
            except cfx.CfxError as e:
                if e.status_name != "CFX_STATUS_NOT_FOUND":
                    raise
            finally:
                if robust is not None:
                    robust.close()
    other = json.loads(lines[5])
    other["schema"] = "0" * len(other["schema"])
    # Bad lines in the middle: each must become the same error line on both sides.
    bad = ["", "this is not a ledger record", json.dumps(other)]
    ledger = lines[:20] + bad[:1] + lines[20:40] + bad[1:] + lines[40:]
    paths = {
        k: os.path.join(work, k) for k in ("schema.json", "model_new.json", "ledger.jsonl", "foreign.jsonl")
    }
    with open(paths["schema.json"], "w", encoding="utf-8") as f:
        f.write(s.to_json())
    with open(paths["model_new.json"], "w", encoding="utf-8") as f:
        f.write(b.to_json())
    with open(paths["ledger.jsonl"], "w", encoding="utf-8") as f:
        f.write("\n".join(ledger) + "\n")
    with open(paths["foreign.jsonl"], "w", encoding="utf-8") as f:
        f.write("\n".join([json.dumps(other)] + lines[:3]) + "\n")
    for h in (robust_cfg, b, a, test, train, s, german):
        h.close()
    return paths


def single_machine(paths, out, xgboost=None):
    """The single-machine re-validation (report, refusal message of the foreign ledger) against
    the shifted model, or the XGBoost model read from the file `xgboost`."""
    with open(paths["schema.json"], encoding="utf-8") as f:
        s = cfx.Schema.from_json(f.read())
    if xgboost:
        m = cfx.Model.from_xgboost(s, xgboost)
    else:
        with open(paths["model_new.json"], encoding="utf-8") as f:
            m = cfx.Model.from_json(s, f.read())
    with s, m, cfx.Config(**CONFIG) as c:
        rep = revalidate_ledger(s, m, paths["ledger.jsonl"], out, c, threads=2)
        try:
            revalidate_ledger(s, m, paths["foreign.jsonl"], out + ".foreign", c)
            refused = None
        except cfx.CfxError as e:
            refused = e.message.replace(paths["foreign.jsonl"], "<ledger>")
    return rep, refused


def read_bytes(path):
    with open(path, "rb") as f:
        return f.read()


def spark_submit(paths, out, *extra, conf=(), model=None):
    submit = os.path.join(os.path.dirname(sys.executable), "spark-submit")
    env = dict(os.environ, PYSPARK_PYTHON=sys.executable, PYSPARK_DRIVER_PYTHON=sys.executable)
    cmd = [submit, "--master", "local[2]", "--conf", "spark.ui.enabled=false"]
    for c in conf:
        cmd += ["--conf", c]
    cmd += [
        os.path.join(HERE, "revalidate_ledger.py"),
        "--ledger",
        paths["ledger.jsonl"],
        "--schema",
        paths["schema.json"],
    ]
    cmd += model or ["--model", paths["model_new.json"]]
    cmd += [
        "--time-limit",
        str(CONFIG["time_limit"]),
        "--out",
        out,
        *extra,
    ]
    return subprocess.run(cmd, env=env, capture_output=True, text=True, check=False)


KILLED_CHILD = """
import sys, cfx
from cfx.revalidate import revalidate_ledger
schema_path, model_path, ledger, out = sys.argv[1:5]
s = cfx.Schema.from_json(open(schema_path, encoding="utf-8").read())
m = cfx.Model.from_json(s, open(model_path, encoding="utf-8").read())
revalidate_ledger(s, m, ledger, out, cfx.Config(time_limit=60.0), threads=1, chunk_rows=4)
print("not killed")
"""


def check_resumed_task(paths, work, single, single_bytes):
    """A task killed mid-partition, resumed: the job runs with --work-dir (two partitions of the
    ledger file); then a killed attempt of partition 0 is made for real — a process
    re-validating the partition's ledger read from a named pipe, fed half its records, is
    SIGKILLed once its partial file holds lines — its finished output removed, and the job run
    again with the same work folder. The second run must resume from the killed attempt's
    partial file (consumed, gone afterwards) and give the single-machine bytes and report."""
    import signal
    import time

    folder = os.path.join(work, "spark-work")
    conf = ["spark.sql.files.maxPartitionBytes=" + str(os.path.getsize(paths["ledger.jsonl"]) // 2 + 1)]
    out = os.path.join(work, "spark-resume-1")
    p = spark_submit(paths, out, "--work-dir", folder, conf=conf)
    if p.returncode != 0:
        sys.exit(f"check_revalidate: the Spark job failed (work folder):\n{p.stdout}\n{p.stderr}")
    part = os.path.join(folder, "part-00000")
    with open(os.path.join(part, "ledger.jsonl"), encoding="utf-8") as f:
        lines = f.read().splitlines()
    assert len(lines) > 20, f"partition 0 holds {len(lines)} lines"
    target = os.path.join(part, "revalidated.jsonl")
    os.remove(target)
    pipe = os.path.join(work, "pipe")
    os.mkfifo(pipe)
    child = subprocess.Popen(
        [sys.executable, "-c", KILLED_CHILD, paths["schema.json"], paths["model_new.json"], pipe, target],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    with open(pipe, "w", encoding="utf-8") as w:
        w.write("\n".join(lines[: len(lines) // 2]) + "\n")
        w.flush()
        # No time is asserted: wait until the child has written lines, then kill it.
        while not any(
            n.endswith(".cfx-partial") and os.path.getsize(os.path.join(part, n)) > 0 for n in os.listdir(part)
        ):
            assert child.poll() is None, child.communicate()
            time.sleep(0.02)
        child.send_signal(signal.SIGKILL)
        child.wait()
    assert child.returncode == -signal.SIGKILL, child.returncode
    left = [n for n in os.listdir(part) if n.endswith(".cfx-partial")]
    kept = sum(1 for _ in open(os.path.join(part, left[0]), "rb")) if left else 0
    assert len(left) == 1 and not os.path.exists(target), os.listdir(part)
    out = os.path.join(work, "spark-resume-2")
    p = spark_submit(paths, out, "--work-dir", folder, conf=conf)
    if p.returncode != 0:
        sys.exit(f"check_revalidate: the resumed Spark job failed:\n{p.stdout}\n{p.stderr}")
    parts = sorted(glob.glob(os.path.join(out, "revalidated", "part-*")))
    assert b"".join(read_bytes(q) for q in parts) == single_bytes, "resumed: the Spark lines differ"
    with open(os.path.join(out, "report.json"), encoding="utf-8") as f:
        assert json.load(f) == single, "resumed: the reports differ"
    left = [n for n in os.listdir(part) if n.endswith((".cfx-partial", ".cfx-run"))]
    assert not left, f"the killed attempt's files were not resumed from: {left}"
    return f"{kept} lines of the killed attempt kept, lines byte-identical and report equal"


def main(argv):
    work = argv[1] if len(argv) > 1 else tempfile.mkdtemp(prefix="cfx-check-revalidate-")
    os.makedirs(work, exist_ok=True)
    paths = issue(work)
    single_out = os.path.join(work, "single.jsonl")
    single, refused = single_machine(paths, single_out)
    assert refused is not None, "the single-machine call took a ledger under another schema"
    with open(single_out, "rb") as f:
        single_bytes = f.read()
    assert single["errors"] == 2 and single["broken"] > 0 and single["robust_records"] > 0, single

    runs = {
        # Splits of 512 bytes: nearly every record (about 450 bytes) begins a partition.
        "small file partitions": ([], ["spark.sql.files.maxPartitionBytes=512"], 20),
        # Shuffled into three partitions, the lines written as four sorted part files.
        "three shuffled partitions": (
            ["--partitions", "3"],
            ["spark.sql.adaptive.coalescePartitions.enabled=false", "spark.sql.shuffle.partitions=4"],
            3,
        ),
    }
    # The bank moves to gradient boosting: the German XGBoost test model, read from its file by
    # the job and shipped to the executors as cfx's model JSON.
    xgb = os.path.join(ROOT, "bindings", "testdata", "german_trees_xgboost.json")
    xgb_out = os.path.join(work, "single-xgboost.jsonl")
    xgb_single, _ = single_machine(paths, xgb_out, xgboost=xgb)
    assert xgb_single["broken"] > 0 and xgb_single["repaired"] > 0, xgb_single
    runs["xgboost model, small file partitions"] = (
        [],
        ["spark.sql.files.maxPartitionBytes=2048"],
        5,
        ["--model", xgb, "--model-format", "xgboost"],
    )
    expected = {name: (single, single_bytes) for name in runs}
    expected["xgboost model, small file partitions"] = (xgb_single, read_bytes(xgb_out))
    for name, (extra, conf, least, *model) in runs.items():
        out = os.path.join(work, "spark-" + name.split(",")[0].replace(" ", "-"))
        want, want_bytes = expected[name]
        p = spark_submit(paths, out, *extra, conf=conf, model=model[0] if model else None)
        if p.returncode != 0:
            sys.exit(f"check_revalidate: the Spark job failed ({name}):\n{p.stdout}\n{p.stderr}")
        tasks = int(re.search(r"; (\d+) partitions", p.stdout).group(1))
        assert tasks >= least, f"{name}: {tasks} partitions"
        parts = sorted(glob.glob(os.path.join(out, "revalidated", "part-*")))
        spark_bytes = b"".join(read_bytes(q) for q in parts)
        assert spark_bytes == want_bytes, f"{name}: the Spark lines differ from the single-machine lines"
        with open(os.path.join(out, "report.json"), encoding="utf-8") as f:
            spark_report = json.load(f)
        assert spark_report == want, f"{name}: reports differ:\n{spark_report}\n{want}"
        print(f"check_revalidate: {name}: {len(parts)} part files; {p.stdout.strip().splitlines()[-1]}")

    resumed = check_resumed_task(paths, work, single, single_bytes)
    print(f"check_revalidate: killed task resumed: {resumed}")

    out = os.path.join(work, "spark-foreign")
    p = spark_submit(dict(paths, **{"ledger.jsonl": paths["foreign.jsonl"]}), out)
    assert p.returncode == 2, f"the Spark job took a ledger under another schema:\n{p.stdout}\n{p.stderr}"
    # spark-submit passes the driver's stderr to its stdout.
    said = (p.stdout + p.stderr).replace(paths["foreign.jsonl"], "<ledger>")
    assert refused in said, (refused, said)
    assert not os.path.exists(os.path.join(out, "revalidated")), "the refused job wrote lines"

    print(
        f"check_revalidate: {single['records'] + single['errors']} records ({single['errors']} errors; "
        f"broken: {single['broken']} by the shifted model, {xgb_single['broken']} by XGBoost): "
        f"Spark lines byte-identical and reports equal in {len(runs) + 1} runs"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
