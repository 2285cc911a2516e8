#!/usr/bin/env python3
"""Adverse-action notices for a whole book on Apache Spark (issue 40; docs/guide/notices.md).

Reads the applicants (CSV with a header naming the schema's features; every cell as text, as
cfx's own CSV reader takes it), numbers them in file order, and makes the notice of every
declined applicant partition by partition with the Python binding's book call
(`cfx.notice_book`, the schema and model built from their JSON and the reference population
read once per partition): a partition's rows go to a local CSV file with one extra column,
`cfx_row`, holding each row's id in the whole book (``row-<k>``) as the id column, so the
notices and their ledger records carry the ids a single-machine run gives them. Each line cfx
writes is kept byte for byte, except that the id column's key is taken out again and the
line's ``"row"`` number is set to the row's place in the whole book.

The notices (and, with ``--ledger``, the advice ledger whose records carry their notice's id,
for `revalidate_ledger.py` on the next model) are written in the book's order as Spark text
part files (``--out``/notices/part-*, ``--out``/ledger/part-*; concatenated in name order they
are the single-machine files byte for byte: bindings/python/tests/test_spark_notices.py
checks it).

    pip install 'dist/cfx-0.1.0-py3-none-manylinux_2_35_x86_64.whl[spark]'
    spark-submit --master 'local[2]' examples/spark/notice_book.py \\
        --dataset german --reasons examples/data/reasons/german_reasons.csv --out notices/

The reference population the reasons are ranked against (Regulation B's "all applicants", or
``--at-cutoff BAND``) is a CSV file every executor can read (``--reference``; default: the
applicants file itself); on a cluster, give a path on shared storage.
"""

import argparse
import csv
import json
import os
import sys
import tempfile

from pyspark.sql import SparkSession
from pyspark.sql import functions as F
from pyspark.sql.types import ArrayType, LongType, StringType, StructField, StructType

import cfx

#: The id column the job adds to each partition's file (the book's row ids, ``row-<k>``).
ROW_ID = "cfx_row"
#: One row per declined applicant: its place in the book, cfx's notice line, its ledger lines.
RESULT_SCHEMA = StructType(
    [
        StructField("row", LongType(), False),
        StructField("line", StringType(), False),
        StructField("ledger", ArrayType(StringType()), False),
    ]
)


def book_line(line, rid, k):
    """cfx's line for a row of a partition, as the whole book's run writes it: without the
    id column's key (the only top-level "id": keys are sorted, a notice's own id is inside
    "notice") and with the row's place in the book. Raises if the line is not cfx's shape."""
    key = '"id":' + json.dumps(rid)
    if line.startswith("{" + key + ","):
        line = "{" + line[len(key) + 2 :]
    elif ("," + key + ",") in line:
        head, _, tail = line.rpartition("," + key + ",")
        line = head + "," + tail
    else:
        raise ValueError(f"unexpected notice line for {rid}: {line[:80]}")
    head, sep, local = line.rpartition('"row":')
    if not sep or not local.endswith("}") or not local[:-1].isdigit():
        raise ValueError(f"unexpected notice line for {rid}: …{line[-80:]}")
    return f'{head}"row":{k}}}'


def notices_frame(spark_df, schema_json, model_json, reference, options, columns):
    """The notices of every declined applicant of `spark_df` (text columns `columns` plus
    `ROW_ID`), computed partition by partition on the executors."""
    ref_path, ref_target, ref_favourable = reference
    bc = spark_df.sparkSession.sparkContext.broadcast((schema_json, model_json, json.dumps(options)))

    def partition(rows):
        s_json, m_json, opts = bc.value
        rows = list(rows)
        if not rows:
            return
        with tempfile.TemporaryDirectory(prefix="cfx-notices-") as tmp:
            book = os.path.join(tmp, "book.csv")
            with open(book, "w", newline="", encoding="utf-8") as f:
                w = csv.writer(f, lineterminator="\n")
                w.writerow(list(columns) + [ROW_ID])
                for r in rows:
                    w.writerow(["" if r[c] is None else r[c] for c in columns] + [f"row-{r[ROW_ID]}"])
            out, ledger = os.path.join(tmp, "notices.jsonl"), os.path.join(tmp, "ledger.jsonl")
            o = json.loads(opts)
            o["id_column"] = ROW_ID
            with cfx.Schema.from_json(s_json) as s, cfx.Model.from_json(s, m_json) as m:
                with cfx.Dataset.from_csv(s, ref_path, ref_target, ref_favourable) as ref:
                    cfx.notice_book(s, m, ref, book, out, ledger, o)
            records = {}
            with open(ledger, encoding="utf-8") as f:
                for rec in f.read().splitlines():
                    rid = json.loads(rec)["id"].split("/", 1)[0]
                    records.setdefault(rid, []).append(rec)
            with open(out, encoding="utf-8") as f:
                for line in f.read().splitlines():
                    rid = json.loads(line)["id"]
                    k = int(rid[len("row-") :])
                    yield (k, book_line(line, rid, k), records.get(rid, []))

    return spark_df.rdd.mapPartitions(partition).toDF(RESULT_SCHEMA)


def with_row_ids(spark_df):
    """Numbers the rows in file order (0, 1, …), the book's row ids."""
    rdd = spark_df.rdd.zipWithIndex().map(lambda ri: tuple(ri[0]) + (ri[1],))
    return spark_df.sparkSession.createDataFrame(rdd, spark_df.schema.add(ROW_ID, "long"))


def run(spark, applicants_path, schema_json, model_json, reference, options=None, partitions=None):
    """Reads the applicants and returns the frame of notices (row, line, ledger), in no order.
    `reference` is (CSV path, label column, favourable label) of the reference population;
    `options` those of `cfx.notice_book` (``ignore_columns`` names the non-feature columns)."""
    df = spark.read.csv(applicants_path, header=True)
    columns = list(df.columns)
    if ROW_ID in columns:
        raise ValueError(f"the applicants file already has a column named {ROW_ID}")
    df = with_row_ids(df)
    if partitions:
        df = df.repartition(partitions)
    return notices_frame(df, schema_json, model_json, reference, dict(options or {}), columns)


def write(notices, out):
    """The notices and their ledger as text part files in the book's order (module docs)."""
    notices = notices.orderBy("row")
    notices.select("line").coalesce(1).write.mode("overwrite").text(os.path.join(out, "notices"))
    ledger = notices.select("row", F.posexplode("ledger").alias("pos", "record"))
    ledger.orderBy("row", "pos").select("record").coalesce(1).write.mode("overwrite").text(
        os.path.join(out, "ledger")
    )


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--applicants", help="CSV of applicants (default: the dataset's own file)")
    p.add_argument("--dataset", default="german", choices=["german"])
    p.add_argument("--schema", help="schema JSON file (default: the dataset's)")
    p.add_argument("--model", help="model JSON file (default: logistic regression fitted on the driver)")
    p.add_argument("--reference", help="CSV of the reference population (default: the applicants)")
    p.add_argument("--label", default="creditability", help="the files' label column (not a feature)")
    p.add_argument("--favourable", default="good", help="the label's favourable value")
    p.add_argument("--reasons", help="the bank's reason table (CSV)")
    p.add_argument("--at-cutoff", type=float, help="rank against applicants within this band of the cut-off")
    p.add_argument("--partitions", type=int)
    p.add_argument("--out", required=True, help="folder for notices/ and ledger/ part files")
    a = p.parse_args(argv)

    applicants = a.applicants or os.path.join(_data_dir(), "german_credit.csv")
    with cfx.load_german(a.applicants) as d, d.schema as s:
        schema_json = s.to_json()
        with cfx.Model.fit_linear(d, 1.0) as m:
            model_json = m.to_json()
    if a.schema:
        with open(a.schema, encoding="utf-8") as f:
            schema_json = f.read()
    if a.model:
        with open(a.model, encoding="utf-8") as f:
            model_json = f.read()
    options = {"ignore_columns": [a.label]}
    if a.reasons:
        options["reason_table_path"] = os.path.abspath(a.reasons)
    if a.at_cutoff is not None:
        options["reference"] = {"kind": "at_cutoff", "band": a.at_cutoff}
    reference = (os.path.abspath(a.reference or applicants), a.label, a.favourable)
    spark = SparkSession.builder.appName("cfx notices").getOrCreate()
    notices = run(spark, applicants, schema_json, model_json, reference, options, a.partitions).cache()
    write(notices, a.out)
    print(f"{notices.count()} notices written to {a.out}")
    spark.stop()
    return 0


def _data_dir():
    packaged = os.path.join(os.path.dirname(os.path.abspath(cfx.__file__)), "share", "cfx")
    return os.environ.get("CFX_DATA_DIR") or (packaged if os.path.isdir(packaged) else os.path.join("examples", "data"))


if __name__ == "__main__":
    sys.exit(main())
