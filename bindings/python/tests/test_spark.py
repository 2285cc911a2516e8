"""examples/spark/portfolio_audit.py in Spark's local mode gives the same audit, applicant
by applicant, and the same figures per group as cfx.portfolio on one machine: on German
credit and on the whole HELOC book (10,459 applicants, every declined one explained)."""

import importlib.util
import os
import sys

import numpy as np
import pandas as pd
import pytest

import cfx
from cfx import portfolio
from conftest import ROOT, in_ci, shared_data

FIGURES = [
    "applicants",
    "declined",
    "with_recourse",
    "share_with_recourse",
    "cost_mean",
    "cost_p25",
    "cost_p50",
    "cost_p75",
    "cost_p90",
    "cost_max",
    "invalidation_mean",
]


def load_example():
    path = os.path.join(ROOT, "examples", "spark", "portfolio_audit.py")
    spec = importlib.util.spec_from_file_location("portfolio_audit", path)
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
        .appName("cfx-test")
        .config("spark.ui.enabled", "false")
        .config("spark.sql.shuffle.partitions", "4")
        .config("spark.executorEnv.CFX_LIB", cfx.LIB_PATH)
        .getOrCreate()
    )
    yield s
    s.stop()


def compare(spark, mod, applicants_csv, schema_json, model_json, group, config, partitions, ignore):
    audited, summary = mod.run(
        spark,
        applicants_csv,
        schema_json,
        model_json,
        config,
        group,
        sigma2=0.01,
        n_samples=500,
        seed=11,
        partitions=partitions,
        ignore=ignore,
    )
    spark_audit = audited.toPandas().sort_values("applicant").reset_index(drop=True)
    spark_summary = summary.toPandas()

    # The same computation on one machine, without Spark.
    frame = pd.read_csv(applicants_csv, dtype=str, keep_default_na=False)
    with cfx.Schema.from_json(schema_json) as s, cfx.Model.from_json(s, model_json) as m:
        local_audit = portfolio.audit(
            s, m, frame, config, sigma2=0.01, n_samples=500, seed=11, keep=[group], ignore=ignore
        )
    local_summary = portfolio.summarise(local_audit, group)

    assert len(spark_audit) == len(local_audit) == len(frame)
    for c in portfolio.AUDIT_COLUMNS:
        a, b = spark_audit[c].to_numpy(), local_audit[c].to_numpy()
        if a.dtype.kind == "f" or c in ("cost", "cf_probability", "invalidation_rate", "probability"):
            np.testing.assert_array_equal(a.astype(float), b.astype(float), err_msg=c)
        else:
            assert [None if (isinstance(v, float) and np.isnan(v)) else v for v in a] == [
                None if (isinstance(v, float) and np.isnan(v)) else v for v in b
            ], c
    assert list(spark_summary[group]) == list(local_summary[group])
    for c in FIGURES:
        np.testing.assert_allclose(
            spark_summary[c].to_numpy(dtype=float),
            local_summary[c].to_numpy(dtype=float),
            rtol=1e-12,
            atol=0,
            err_msg=c,
        )
    assert list(spark_summary["top_changes"]) == list(local_summary["top_changes"])
    return local_audit, local_summary


def test_german_portfolio_audit_on_spark_equals_the_single_machine_figures(spark, german_path):
    mod = load_example()
    schema_json, model_json = mod.default_inputs("german", german_path)
    audit, summary = compare(
        spark,
        mod,
        german_path,
        schema_json,
        model_json,
        "housing",
        {"time_limit": 60.0},
        partitions=3,
        ignore=["creditability"],
    )
    # Sanity of the figures themselves: declined = model declines; recourse shares in [0, 1].
    assert summary["applicants"].sum() == 1000
    assert 0 < summary["declined"].sum() < 1000
    assert ((summary["share_with_recourse"] >= 0) & (summary["share_with_recourse"] <= 1)).all()
    answered = audit[audit["has_recourse"]]
    assert len(answered) > 100
    assert (answered["cf_probability"] > 0.5).all()
    assert ((answered["invalidation_rate"] >= 0) & (answered["invalidation_rate"] <= 1)).all()
    assert summary["top_changes"].str.len().gt(0).all()


def test_heloc_portfolio_audit_on_spark_equals_the_single_machine_figures(spark, tmp_path):
    heloc = shared_data("heloc.csv")
    mod = load_example()
    schema_json, model_json = mod.default_inputs("heloc", heloc)
    # The whole book: every one of the 10,459 applicants, so every declined one is explained
    # (on Spark and on one machine), grouped by a band of the bureau's risk estimate.
    book = pd.read_csv(heloc, dtype=str, keep_default_na=False)
    book["band"] = np.where(book["ExternalRiskEstimate"].astype(float) >= 75, "high", "low")
    path = tmp_path / "heloc_book.csv"
    book.to_csv(path, index=False)
    audit, summary = compare(
        spark,
        mod,
        str(path),
        schema_json,
        model_json,
        "band",
        {"time_limit": 60.0},
        partitions=4,
        ignore=["RiskPerformance"],
    )
    assert summary["applicants"].sum() == len(book) == 10459
    # Declined = the model's own rule (accepted when the probability is strictly above its
    # threshold), recomputed here from its probabilities.
    with cfx.Schema.from_json(schema_json) as s, cfx.Model.from_json(s, model_json) as m:
        rows = s.rows_from_frame(book, ignore=["RiskPerformance", "band"])
        declined = int(np.sum(m.probabilities(s.encode(rows)) <= m.threshold))  # accepted: strictly above
    assert summary["declined"].sum() == declined > 5000
    answered = audit[audit["has_recourse"]]
    assert (answered["cf_probability"] > 0.5).all()
