#!/usr/bin/env python3
"""Deployment day on Apache Spark: re-validates an advice ledger too big for one machine
against the model being deployed (issue 28; docs/guide/revalidation.md, "Re-validating issued advice when the
model changes").

Reads the ledger (JSON lines, ``"format": "cfx-ledger"``), numbers its records in file order
(blank lines skipped, as cfx's own reader does), and re-validates each partition with the
Python binding's ledger call (`cfx.revalidate.revalidate_ledger`, the schema and model built
from their JSON once per partition): the partition's lines go to a local file behind
one record already known to belong to the schema, so a partition is never refused for its
first line, and the per-record lines cfx writes are kept byte for byte, only their
``"record"`` number set to the record's place in the whole ledger. The lines are written in
the ledger's order (``--out``/revalidated/part-* files, concatenated in name order), and the
deployment report (records, kept, broken and their share, errors, the extra cost's
quantiles, mean and histogram, the features behind breaks, robust and COPA-corrected versions
broken, counts per group) is aggregated from the per-record results: counts and features in Spark SQL; the
extra costs, one number per repaired promise, are streamed in ascending order to the driver
and summed there in that order, as the single-machine report sums them, so every figure is
the same double. examples/spark/check_revalidate.sh checks, in Spark's local mode, that the
lines are byte-identical and the report equal to `cfx.revalidate.revalidate_ledger` on one
machine.

    pip install 'dist/cfx-0.1.0-py3-none-manylinux_2_35_x86_64.whl[spark]'
    spark-submit --master 'local[2]' examples/spark/revalidate_ledger.py \\
        --ledger ledger.jsonl --model new_model.json --dataset german --out revalidated/

``--model`` is the new model: cfx's model JSON (`Model.to_json`), or an XGBoost JSON or
LightGBM text model with ``--model-format`` (import options as ``--model-options``); ``--schema`` the schema JSON the advice was
issued under (default: the ``--dataset``'s cfx schema). A ledger whose first record cannot be
read or names another schema is refused before anything is written, as on one machine.
"""

import argparse
import contextlib
import json
import math
import os
import re
import sys
import tempfile
import time

from pyspark.sql import SparkSession
from pyspark.sql import functions as F
from pyspark.sql.types import (
    ArrayType,
    BooleanType,
    DoubleType,
    LongType,
    StringType,
    StructField,
    StructType,
)

import cfx
from cfx.revalidate import revalidate_ledger

#: One row per ledger record: its number, cfx's output line, and what the report counts.
RESULT_SCHEMA = StructType(
    [
        StructField("record", LongType(), False),
        StructField("line", StringType(), False),
        StructField("error", BooleanType(), False),
        StructField("group", StringType(), True),
        StructField("broken", BooleanType(), True),
        StructField("extra_cost", DoubleType(), True),
        StructField("features", ArrayType(StringType()), True),
        StructField("robust_kept", BooleanType(), True),
        StructField("copa_kept", BooleanType(), True),
        StructField("proven", BooleanType(), True),
        StructField("no_repair", StringType(), True),
        StructField("old_model", StringType(), True),
        StructField("promise", StringType(), True),
        StructField("is_option", BooleanType(), True),
        StructField("contact", StringType(), True),
    ]
)

#: The single-machine report's bins of the extra cost.
HISTOGRAM_BINS = 10

# The top-level "record" key of one output line. cfx writes no other key of that name, and a
# string value holds its quotes escaped, so this matches once and only the number.
_RECORD = re.compile(r'"record":(\d+)')


def _handles(schema_json, model_json, config_json):
    """The schema, model and configuration from their JSON (a few milliseconds; built once per
    partition, and closed after it, rather than kept in the job's closure, which Spark
    ships anew with every task)."""
    s = cfx.Schema.from_json(schema_json)
    return s, cfx.Model.from_json(s, model_json), cfx.Config(**json.loads(config_json))


def _promise(record):
    """The applicant's promise id of a ledger record and whether it is one option of a set, by
    the single-machine report's rule: "<id>/<k>" of diverse advice, or of the set's first
    (k = 0, kind explain)."""
    rid = record["id"]
    base, sep, k = rid.rpartition("/")
    if sep and base and k.isdigit() and (record["kind"] == "diverse" or (record["kind"] == "explain" and k == "0")):
        return base, True
    return rid, False


def _result(number, line, ledger_line, contact):
    """One result row from cfx's output line `line` of the ledger line `ledger_line`, with the
    contact cfx's own report lists for it (JSON, its record number set; None unless broken)."""
    v = json.loads(line)
    if "error" in v:
        return (number, line, True, None, None, None, None, None, None, None, None, None, None, None, None)
    repair = v.get("repair")
    features = list(repair["features"]) if repair else []
    record = json.loads(ledger_line)
    group = record.get("group") or ""
    promise, is_option = _promise(record)
    if contact is not None:
        contact = dict(contact, record=number)
        contact = json.dumps(contact)
    return (
        number,
        line,
        False,
        group,
        v["status"] == "broken",
        v.get("extra_cost"),
        features,
        v.get("robust_kept"),
        v.get("copa_kept"),
        bool(repair) and repair["outcome"] == "optimal",
        v["repair_outcome"] if v.get("outcome") == "no_repair" else None,
        record["model"],
        promise,
        is_option,
        contact,
    )


def partition_folder(work_dir, index):
    """The folder of partition `index` under `work_dir` (``part-<index>``)."""
    return os.path.join(work_dir, f"part-{index:05d}")


def revalidate_partition(records, sentinel, schema_json, model_json, config_json, threads, work=None):
    """Re-validates one partition of (ledger line, record number) pairs with the ledger call, in
    a temporary folder, or in the partition's own folder `work` (kept: the ledger call resumes
    from the partial file a killed attempt left there, ``Config(resume=True)``)."""
    if work is not None:
        config_json = json.dumps(dict(json.loads(config_json), resume=True), sort_keys=True)
    schema, model, config = _handles(schema_json, model_json, config_json)
    if work is None:
        folder = tempfile.TemporaryDirectory(prefix="cfx-revalidate-")
    else:
        os.makedirs(work, exist_ok=True)
        folder = contextlib.nullcontext(work)
    with schema, model, config, folder as tmp:
        ledger, out = os.path.join(tmp, "ledger.jsonl"), os.path.join(tmp, "revalidated.jsonl")
        numbers = []
        with open(ledger, "w", encoding="utf-8", newline="\n") as f:
            f.write(sentinel + "\n")
            for line, number in records:
                f.write(line + "\n")
                numbers.append(number)
        if not numbers:
            return
        rep = revalidate_ledger(schema, model, ledger, out, config, threads=threads)
        # cfx's own contacts, by the partition file's record number (the sentinel is 0)
        contacts = {c["record"]: c for c in rep["contacts"]}
        # Lines end at "\n" only, as cfx reads and writes them.
        with (
            open(ledger, encoding="utf-8", newline="\n") as lf,
            open(out, encoding="utf-8", newline="\n") as of,
        ):
            lf.readline(), of.readline()  # the sentinel's
            for local, (number, ledger_line, line) in enumerate(zip(numbers, lf, of), start=1):
                line = line.rstrip("\n")
                fixed, n = _RECORD.subn(f'"record":{number}', line, count=1)
                if n != 1:
                    raise RuntimeError(f"cfx wrote a line without its record number: {line[:200]}")
                yield _result(number, fixed, ledger_line, contacts.get(local))


def check_first_record(first, schema, model, config, ledger_path):
    """Refuses the ledger as the single-machine call does when its first record cannot be read
    or was issued under another schema (the same message, naming the ledger); returns the
    first record's report (its new model and decision margin are the whole ledger's)."""
    with tempfile.TemporaryDirectory(prefix="cfx-revalidate-") as tmp:
        path = os.path.join(tmp, "first.jsonl")
        with open(path, "w", encoding="utf-8") as f:
            f.write(first + "\n")
        try:
            return revalidate_ledger(schema, model, path, os.path.join(tmp, "out.jsonl"), config, threads=1)
        except cfx.CfxError as e:
            raise type(e)(e.status, e.message.replace(path, str(ledger_path))) from None


def run(spark, ledger_path, schema_json, model_json, config=None, partitions=None, threads=1, work_dir=None):
    """Re-validates the ledger; returns the per-record results (a Spark frame of
    `RESULT_SCHEMA`, cached), the number of partitions (tasks) they were computed in, and what
    the report takes of the whole run (the new model's fingerprint, the decision margin), after
    refusing a ledger the single-machine call refuses. With `work_dir` (a folder every executor
    reaches) each partition works in ``work_dir/part-<k>`` and resumes from what a killed
    attempt of it left there."""
    config_json = json.dumps(config or {}, sort_keys=True)
    text = spark.read.text(str(ledger_path)).rdd.map(lambda r: r[0].strip())
    lines = text.filter(lambda line: line != "")
    first = lines.take(1)
    schema, model, cfg = _handles(schema_json, model_json, config_json)
    with schema, model, cfg:
        run_facts = {"new_model": model.fingerprint(), "decision_margin": None}
        if first:
            first_report = check_first_record(first[0], schema, model, cfg, ledger_path)
            run_facts["decision_margin"] = first_report["decision_margin"]
    sentinel = first[0] if first else ""
    numbered = lines.zipWithIndex()
    if partitions:
        numbered = numbered.repartition(partitions)
    bc = spark.sparkContext.broadcast((sentinel, schema_json, model_json, config_json))

    def job(index, records):
        s, sj, mj, cj = bc.value
        work = partition_folder(work_dir, index) if work_dir else None
        return revalidate_partition(records, s, sj, mj, cj, threads, work)

    results = spark.createDataFrame(numbered.mapPartitionsWithIndex(job), RESULT_SCHEMA)
    return results.persist(), numbered.getNumPartitions(), run_facts


def _quantile_index(n, p):
    """The single-machine report's order statistic: round((n - 1) p), halves away from zero."""
    x = (n - 1) * p
    f = math.floor(x)
    return int(f + 1 if x - f >= 0.5 else f)


def report(results, run_facts):
    """The deployment report of the per-record results, as the single-machine call returns it
    (`run_facts`: the new model's fingerprint and the decision margin, from `run`)."""
    ok = results.where(~F.col("error"))
    c = results.agg(
        F.sum(F.when(~F.col("error"), 1).otherwise(0)).alias("records"),
        F.sum(F.when(F.col("broken"), 1).otherwise(0)).alias("broken"),
        F.sum(F.when(F.col("error"), 1).otherwise(0)).alias("errors"),
        F.sum(F.when(F.col("robust_kept").isNotNull(), 1).otherwise(0)).alias("robust_records"),
        F.sum(F.when(F.col("robust_kept") == F.lit(False), 1).otherwise(0)).alias("robust_broken"),
        F.sum(F.when(F.col("copa_kept").isNotNull(), 1).otherwise(0)).alias("copa_records"),
        F.sum(F.when(F.col("copa_kept") == F.lit(False), 1).otherwise(0)).alias("copa_broken"),
        F.count("extra_cost").alias("repaired"),
        F.sum(F.when(F.col("proven"), 1).otherwise(0)).alias("repaired_proven"),
        F.min("extra_cost").alias("lo"),
        F.max("extra_cost").alias("hi"),
    ).first()
    records, broken = int(c["records"] or 0), int(c["broken"] or 0)
    repaired = int(c["repaired"])

    extra_cost, histogram = None, []
    if repaired:
        lo, hi = c["lo"], c["hi"]
        width = (hi - lo) / HISTOGRAM_BINS
        histogram = [
            [lo + b * width, hi if b + 1 == HISTOGRAM_BINS else lo + (b + 1) * width, 0]
            for b in range(HISTOGRAM_BINS)
        ]
        picks = {_quantile_index(repaired, 0.5): "median", _quantile_index(repaired, 0.9): "p90"}
        at, total = {}, 0.0
        costs = results.where(F.col("extra_cost").isNotNull()).select("extra_cost").orderBy("extra_cost")
        for k, row in enumerate(costs.toLocalIterator()):
            x = row[0]
            total += x  # in ascending order, as the single-machine report sums
            if k in picks:
                at[picks[k]] = x
            b = min(int((x - lo) / width), HISTOGRAM_BINS - 1) if width > 0 else 0
            histogram[b][2] += 1
        extra_cost = {
            "min": lo,
            "median": at["median"],
            "p90": at["p90"],
            "max": hi,
            "mean": total / repaired,
        }

    features = (
        ok.select(F.explode("features").alias("feature"))
        .groupBy("feature")
        .count()
        .orderBy(F.col("count").desc(), F.col("feature").asc())
        .collect()
    )
    no_repair = ok.where(F.col("no_repair").isNotNull()).groupBy("no_repair").count().collect()
    old_models = {r["old_model"]: int(r["count"]) for r in ok.groupBy("old_model").count().collect()}
    options = (
        ok.where(F.col("is_option"))
        .groupBy("promise")
        .agg(
            F.count(F.lit(1)).alias("n"),
            F.sum(F.when(~F.col("broken"), 1).otherwise(0)).alias("kept"),
        )
        .agg(
            F.count(F.lit(1)).alias("promises"),
            F.sum(F.when(F.col("kept") > 0, 1).otherwise(0)).alias("kept"),
            F.sum(F.when(F.col("n") > 1, 1).otherwise(0)).alias("with_options"),
            F.sum(F.when((F.col("kept") > 0) & (F.col("kept") < F.col("n")), 1).otherwise(0)).alias("partly"),
        )
        .first()
    )
    singles = ok.where(~F.col("is_option")).agg(
        F.count(F.lit(1)).alias("n"), F.sum(F.when(~F.col("broken"), 1).otherwise(0)).alias("kept")
    ).first()
    promises = int(options["promises"] or 0) + int(singles["n"] or 0)
    promises_kept = int(options["kept"] or 0) + int(singles["kept"] or 0)
    contacts = [
        json.loads(r["contact"])
        for r in ok.where(F.col("contact").isNotNull()).select("record", "contact").orderBy("record").toLocalIterator()
    ]
    new_fp = run_facts["new_model"]
    margin = run_facts["decision_margin"]
    if margin is None:  # an empty ledger: the configuration's margin, as cfx reports it
        margin = 1e-6
    groups = ok.groupBy("group").agg(
        F.count(F.lit(1)).alias("records"), F.sum(F.when(F.col("broken"), 1).otherwise(0)).alias("broken")
    )
    return {
        "records": records,
        "kept": records - broken,
        "broken": broken,
        "broken_share": broken / records if records else 0.0,
        "errors": int(c["errors"] or 0),
        "repaired": repaired,
        "repaired_proven": int(c["repaired_proven"] or 0),
        "no_repair": sum(int(r["count"]) for r in no_repair),
        "no_repair_reasons": {r["no_repair"]: int(r["count"]) for r in sorted(no_repair, key=lambda r: r["no_repair"])},
        "decision_margin": margin,
        "new_model": {"fingerprint": new_fp, "label": None, "records": old_models.get(new_fp, 0)},
        "old_models": [
            {"fingerprint": fp, "label": None, "records": n} for fp, n in sorted(old_models.items())
        ],
        "promises": {
            "promises": promises,
            "kept": promises_kept,
            "broken": promises - promises_kept,
            "with_options": int(options["with_options"] or 0),
            "options_partly_broken": int(options["partly"] or 0),
        },
        "contacts": contacts,
        "extra_cost": extra_cost,
        "extra_cost_histogram": histogram,
        "features_behind_breaks": [[r["feature"], int(r["count"])] for r in features],
        "robust_records": int(c["robust_records"] or 0),
        "robust_broken": int(c["robust_broken"] or 0),
        "copa_records": int(c["copa_records"] or 0),
        "copa_broken": int(c["copa_broken"] or 0),
        "groups": {
            g["group"]: {"records": int(g["records"]), "broken": int(g["broken"])}
            for g in sorted(groups.collect(), key=lambda g: g["group"])
        },
    }


def write_lines(results, folder):
    """The per-record lines in the ledger's order: part files to concatenate in name order."""
    results.select("record", "line").orderBy("record").select("line").write.mode("overwrite").text(folder)


def default_schema(dataset, path):
    loader = {"german": cfx.load_german, "heloc": cfx.load_heloc, "taiwan": cfx.load_taiwan}[dataset]
    with loader(path) as d, d.schema as s:
        return s.to_json()


def read_model(schema_json, path, kind, options=None):
    """The new model as cfx's JSON, whatever file it comes as (shipped to the executors so);
    `options` are the XGBoost/LightGBM import options (JSON, docs/guide/gradient-boosted-models.md, "Your gradient-boosted
    model")."""
    with cfx.Schema.from_json(schema_json) as s:
        if kind == "cfx":
            with open(path, encoding="utf-8") as f, cfx.Model.from_json(s, f.read()) as m:
                return m.to_json()
        reader = cfx.Model.from_xgboost if kind == "xgboost" else cfx.Model.from_lightgbm
        with reader(s, path, options) as m:
            return m.to_json()


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument(
        "--ledger", required=True, help="the advice ledger: one JSON-lines file, its lines in issue order"
    )
    p.add_argument("--model", required=True, help="the model being deployed")
    p.add_argument("--model-format", default="cfx", choices=["cfx", "xgboost", "lightgbm"])
    p.add_argument("--model-options", help="import options of an XGBoost/LightGBM model (JSON)")
    p.add_argument("--schema", help="schema JSON file the advice was issued under (default: the dataset's)")
    p.add_argument("--dataset", default="german", choices=["german", "heloc", "taiwan"])
    p.add_argument("--data-path", help="the dataset's CSV (default: cfx's bundled/shared copy)")
    p.add_argument("--time-limit", type=float, default=60.0, help="seconds per MIP solve")
    p.add_argument("--partitions", type=int, help="repartition the ledger's records into this many tasks")
    p.add_argument("--threads", type=int, default=1, help="cfx threads per Spark task")
    p.add_argument("--out", required=True, help="folder for report.json and revalidated/part-*")
    p.add_argument(
        "--work-dir",
        help="a folder every executor reaches, for each partition's files (part-<k>/): a task "
        "killed mid-partition and retried, or the job run again with the same folder, resumes "
        "from the killed attempt's partial file instead of starting the partition over",
    )
    p.add_argument(
        "--log-level",
        default="WARN",
        help="Spark's log level from the session's start (spark.log.level; INFO shows Spark's progress)",
    )
    a = p.parse_args(argv)

    if os.path.isdir(a.ledger):
        # Spark orders the files of a folder by size, not name: the record numbers would not
        # be the ledger's order.
        p.error(f"--ledger {a.ledger} is a folder: give one ledger file (concatenate its parts)")
    if a.schema:
        with open(a.schema, encoding="utf-8") as f:
            schema_json = f.read()
    else:
        schema_json = default_schema(a.dataset, a.data_path)
    model_json = read_model(schema_json, a.model, a.model_format, a.model_options)
    spark = (
        SparkSession.builder.appName("cfx ledger re-validation")
        .config("spark.log.level", a.log_level)
        .getOrCreate()
    )
    start = time.perf_counter()
    try:
        results, tasks, run_facts = run(
            spark,
            a.ledger,
            schema_json,
            model_json,
            {"time_limit": a.time_limit},
            a.partitions,
            a.threads,
            a.work_dir,
        )
    except cfx.CfxError as e:
        print(f"revalidate_ledger: refused: {e}", file=sys.stderr)
        spark.stop()
        return 2
    os.makedirs(a.out, exist_ok=True)
    write_lines(results, os.path.join(a.out, "revalidated"))
    rep = report(results, run_facts)
    seconds = time.perf_counter() - start
    with open(os.path.join(a.out, "report.json"), "w", encoding="utf-8") as f:
        json.dump(rep, f, indent=1)
        f.write("\n")
    median = rep["extra_cost"]["median"] if rep["extra_cost"] else float("nan")
    print(
        f"revalidate: {rep['broken']}/{rep['records']} promises broken ({100 * rep['broken_share']:.1f}%), "
        f"median extra cost {median:.3f}, robust advice broken {rep['robust_broken']}/{rep['robust_records']}, "
        f"{rep['errors']} errors; {tasks} partitions, {seconds:.1f} s"
    )
    spark.stop()
    return 0


if __name__ == "__main__":
    sys.exit(main())
