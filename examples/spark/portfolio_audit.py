#!/usr/bin/env python3
"""Portfolio audit on Apache Spark: the recourse burden of a whole book of applicants.

Reads applicants (CSV with a header naming the schema's features), explains every
declined one with cfx's optimal coherent counterfactual inside ``mapInPandas`` (one cfx
schema, model and configuration per Python worker, built once from their JSON), adds
each answer's invalidation rate (Γ̃ under N(0, σ²I) noise on the mutable contiguous
features, seeded per applicant), and aggregates the burden by group with Spark SQL:
share of declined applicants with recourse, the cost distribution of the answers, their
mean invalidation rate and the most frequent changes. The figures are those of
``cfx.portfolio.summarise`` on one machine (bindings/python/tests/test_spark.py checks it).

    pip install 'dist/cfx-0.1.0-py3-none-manylinux_2_35_x86_64.whl[spark]'
    spark-submit --master 'local[2]' examples/spark/portfolio_audit.py \\
        --dataset german --group housing --out audit/

Without ``--schema``/``--model`` the dataset's cfx schema is used and a logistic model is
fitted on the dataset's fixed training part (rows i with i mod 10 < 7) on the driver.
"""

import argparse
import json
import os
import sys
import time

import pandas as pd
from pyspark.sql import SparkSession, Window
from pyspark.sql import functions as F

import cfx
from cfx.portfolio import AUDIT_COLUMNS, AUDIT_SPARK_SCHEMA, COST_QUANTILES, TOP_CHANGES, Auditor


def audit_frames(
    spark_df, schema_json, model_json, config_json, sigma2, n_samples, seed, id_column, keep, ignore=()
):
    """The per-applicant audit, computed partition by partition on the executors."""
    bc = spark_df.sparkSession.sparkContext.broadcast((schema_json, model_json, config_json))
    keep, ignore = list(keep), list(ignore)
    ddl = AUDIT_SPARK_SCHEMA + "".join(f", `{c}` string" for c in keep)

    def explain_partition(frames):
        s, m, c = bc.value
        a = Auditor.shared(s, m, c, sigma2, n_samples, seed)  # built once per worker process
        for frame in frames:
            out = a.audit(frame, id_column=id_column, keep=keep, ignore=ignore)
            for col in keep:
                out[col] = out[col].astype(str)
            yield out

    return spark_df.mapInPandas(explain_partition, ddl)


def summarise_spark(audited, by):
    """`cfx.portfolio.summarise` in Spark SQL (exact percentiles, linear interpolation)."""
    declined = audited.where(F.col("decision") == "declined")
    answered = declined.where(F.col("has_recourse"))
    counts = audited.groupBy(by).agg(
        F.count(F.lit(1)).alias("applicants"),
        F.sum(F.when(F.col("decision") == "declined", 1).otherwise(0)).alias("declined"),
        F.sum(F.when((F.col("decision") == "declined") & F.col("has_recourse"), 1).otherwise(0)).alias(
            "with_recourse"
        ),
    )
    costs = answered.groupBy(by).agg(
        F.mean("cost").alias("cost_mean"),
        *[F.percentile(F.col("cost"), F.lit(q)).alias(f"cost_p{int(q * 100)}") for q in COST_QUANTILES],
        F.max("cost").alias("cost_max"),
        F.mean("invalidation_rate").alias("invalidation_mean"),
    )
    changes = (
        answered.select(by, F.explode(F.split("changed_features", ";")).alias("feature"))
        .where(F.col("feature") != "")
        .groupBy(by, "feature")
        .count()
    )
    rank = Window.partitionBy(by).orderBy(F.col("count").desc(), F.col("feature").asc())
    top = (
        changes.withColumn("rank", F.row_number().over(rank))
        .where(F.col("rank") <= TOP_CHANGES)
        .groupBy(by)
        .agg(F.sort_array(F.collect_list(F.struct("rank", "feature", "count"))).alias("top"))
    )
    top = top.select(
        by,
        F.concat_ws(
            "; ", F.transform("top", lambda t: F.concat_ws(":", t["feature"], t["count"].cast("string")))
        ).alias("top_changes"),
    )
    out = (
        counts.join(costs, by, "left")
        .join(top, by, "left")
        .withColumn(
            "share_with_recourse", F.when(F.col("declined") > 0, F.col("with_recourse") / F.col("declined"))
        )
        .withColumn("top_changes", F.coalesce(F.col("top_changes"), F.lit("")))
    )
    cols = (
        [by, "applicants", "declined", "with_recourse", "share_with_recourse", "cost_mean"]
        + [f"cost_p{int(q * 100)}" for q in COST_QUANTILES]
        + ["cost_max", "invalidation_mean", "top_changes"]
    )
    return out.select(*cols).orderBy(by)


def with_row_ids(spark_df, id_column):
    """Numbers the rows in file order (0, 1, …), the ids the per-applicant seeds use."""
    if id_column in spark_df.columns:
        return spark_df
    rdd = spark_df.rdd.zipWithIndex().map(lambda ri: tuple(ri[0]) + (ri[1],))
    return spark_df.sparkSession.createDataFrame(rdd, spark_df.schema.add(id_column, "long"))


def default_inputs(dataset, path):
    """The dataset's cfx schema and a logistic model fitted on its training part (driver)."""
    loader = {"german": cfx.load_german, "heloc": cfx.load_heloc, "taiwan": cfx.load_taiwan}[dataset]
    with loader(path) as d, d.schema as s:
        train, test = d.holdout_split()
        with train, test, cfx.Model.fit_linear(train, 1.0) as m:
            return s.to_json(), m.to_json()


#: The label column of each dataset's file, skipped by the audit.
LABELS = {"german": "creditability", "heloc": "RiskPerformance", "taiwan": "default payment next month"}


def run(
    spark,
    applicants_path,
    schema_json,
    model_json,
    config,
    group,
    sigma2=0.01,
    n_samples=1000,
    seed=0,
    id_column="applicant_id",
    partitions=None,
    ignore=(),
):
    """Reads the applicants and returns (per-applicant audit, summary by group) as Spark frames."""
    # Every column as text, as cfx's own CSV reader takes it: categoricals by level name.
    df = spark.read.csv(applicants_path, header=True)
    df = with_row_ids(df, id_column)
    if partitions:
        df = df.repartition(partitions)
    audited = audit_frames(
        df, schema_json, model_json, json.dumps(config), sigma2, n_samples, seed, id_column, [group], ignore
    )
    return audited, summarise_spark(audited, group)


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--applicants", help="CSV of applicants (default: the dataset's own file)")
    p.add_argument("--dataset", default="german", choices=["german", "heloc", "taiwan"])
    p.add_argument("--data-path", help="the dataset's CSV (default: cfx's bundled/shared copy)")
    p.add_argument("--schema", help="schema JSON file (default: the dataset's)")
    p.add_argument("--model", help="model JSON file (default: logistic regression fitted on the driver)")
    p.add_argument("--group", default="housing", help="column to aggregate by")
    p.add_argument("--sigma2", type=float, default=0.01, help="noise variance of the invalidation rates")
    p.add_argument("--samples", type=int, default=1000, help="Monte Carlo draws per invalidation rate")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--time-limit", type=float, default=60.0, help="seconds per MIP solve")
    p.add_argument("--partitions", type=int)
    p.add_argument(
        "--ignore", help="comma-separated columns that are not features (default: the dataset's label)"
    )
    p.add_argument("--out", help="folder for summary.csv and audit.csv (default: print the summary)")
    p.add_argument(
        "--log-level",
        default="WARN",
        help="Spark's log level from the session's start (spark.log.level; INFO shows Spark's progress)",
    )
    a = p.parse_args(argv)

    schema_json, model_json = default_inputs(a.dataset, a.data_path)
    if a.schema:
        with open(a.schema, encoding="utf-8") as f:
            schema_json = f.read()
    if a.model:
        with open(a.model, encoding="utf-8") as f:
            model_json = f.read()
    applicants = a.applicants or a.data_path or _dataset_file(a.dataset)
    spark = (
        SparkSession.builder.appName("cfx portfolio audit").config("spark.log.level", a.log_level).getOrCreate()
    )
    start = time.perf_counter()
    audited, summary = run(
        spark,
        applicants,
        schema_json,
        model_json,
        {"time_limit": a.time_limit},
        a.group,
        a.sigma2,
        a.samples,
        a.seed,
        partitions=a.partitions,
        ignore=a.ignore.split(",") if a.ignore else [LABELS[a.dataset]],
    )
    audited = audited.cache()
    n = audited.count()
    seconds = time.perf_counter() - start
    rows = summary.toPandas()
    with pd.option_context("display.width", 200, "display.max_columns", 20):
        print(rows.to_string(index=False))
    declined = audited.where(F.col("decision") == "declined").count()
    print(
        f"{n} applicants, {declined} declined, explained in {seconds:.1f} s "
        f"({1000 * seconds / max(declined, 1):.1f} ms per declined applicant, wall clock)"
    )
    if a.out:
        os.makedirs(a.out, exist_ok=True)
        rows.to_csv(os.path.join(a.out, "summary.csv"), index=False)
        audited.select(*AUDIT_COLUMNS, a.group).toPandas().sort_values("applicant").to_csv(
            os.path.join(a.out, "audit.csv"), index=False
        )
    spark.stop()
    return 0


def _dataset_file(dataset):
    if dataset == "german":
        # In the order libcfx looks: CFX_DATA_DIR, the copy inside the installed wheel
        # (cfx/share/cfx), a source checkout's examples/data.
        packaged = os.path.join(os.path.dirname(os.path.abspath(cfx.__file__)), "share", "cfx")
        base = os.environ.get("CFX_DATA_DIR") or (
            packaged if os.path.isdir(packaged) else os.path.join("examples", "data")
        )
        return os.path.join(base, "german_credit.csv")
    shared = os.environ.get("CFX_SHARED_DATA") or os.path.join("..", "shared", "data")
    return os.path.join(shared, {"heloc": "heloc.csv", "taiwan": "taiwan_default.csv"}[dataset])


if __name__ == "__main__":
    sys.exit(main())
