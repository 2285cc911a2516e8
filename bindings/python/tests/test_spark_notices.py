"""examples/spark/notice_book.py in Spark's local mode writes the book of notices and its advice
ledger byte for byte as cfx.notice_book does on one machine (the oracle), on the first 150
German applicants shuffled into three partitions, with the bundled reason table."""

import importlib.util
import json
import os
import sys

import pytest

import cfx
from conftest import ROOT, in_ci


def load_example():
    path = os.path.join(ROOT, "examples", "spark", "notice_book.py")
    spec = importlib.util.spec_from_file_location("notice_book", path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


@pytest.fixture(scope="module")
def spark():
    try:
        from pyspark.sql import SparkSession
    except ImportError:
        if in_ci():
            raise
        pytest.skip("pyspark is not installed")
    os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
    s = (
        SparkSession.builder.master("local[2]")
        .appName("cfx-test-notices")
        .config("spark.ui.enabled", "false")
        .config("spark.sql.shuffle.partitions", "3")
        .config("spark.executorEnv.CFX_LIB", cfx.LIB_PATH)
        .getOrCreate()
    )
    yield s
    s.stop()


def read_parts(folder):
    lines = []
    for name in sorted(os.listdir(folder)):
        if name.startswith("part-"):
            with open(os.path.join(folder, name), encoding="utf-8") as f:
                lines.extend(f.read().splitlines())
    return lines


def test_spark_notices_equal_the_single_machine_book(spark, german_path, tmp_path):
    mod = load_example()
    with open(german_path, encoding="utf-8") as f:
        head = f.readlines()[:151]
    book = tmp_path / "book.csv"
    book.write_text("".join(head))
    table = os.path.join(ROOT, "examples", "data", "reasons", "german_reasons.csv")
    options = {"ignore_columns": ["creditability"], "reason_table_path": table}
    with cfx.load_german(german_path) as d, d.schema as s, cfx.Model.fit_linear(d, 1.0) as m:
        schema_json, model_json = s.to_json(), m.to_json()
        with cfx.Dataset.from_csv(s, str(book), "creditability", "good") as ref:
            out, ledger = tmp_path / "one.jsonl", tmp_path / "one-ledger.jsonl"
            written = cfx.notice_book(s, m, ref, book, out, ledger, options)
    want = out.read_text().splitlines()
    want_ledger = ledger.read_text().splitlines()
    assert written == len(want) > 10 and len(want_ledger) >= len(want)

    notices = mod.run(spark, str(book), schema_json, model_json, (str(book), "creditability", "good"), options, 3)
    mod.write(notices, str(tmp_path / "spark"))
    got = read_parts(tmp_path / "spark" / "notices")
    got_ledger = read_parts(tmp_path / "spark" / "ledger")
    assert got == want
    assert got_ledger == want_ledger
    # The ledger's records name the notices they came from.
    ids = {json.loads(l)["notice"]["id"] for l in want if "notice" in json.loads(l)}
    assert {json.loads(r)["notice"] for r in got_ledger} <= ids


def test_a_line_that_is_not_cfx_s_shape_is_refused():
    mod = load_example()
    assert mod.book_line('{"id":"row-7","notice":{"id":"ab"},"row":2}', "row-7", 7) == '{"notice":{"id":"ab"},"row":7}'
    assert mod.book_line('{"error":"bad","id":"row-7","row":2}', "row-7", 7) == '{"error":"bad","row":7}'
    with pytest.raises(ValueError):
        mod.book_line('{"notice":{},"row":2}', "row-7", 7)
