#!/usr/bin/env python3
"""optbinning's `Counterfactual` on the HELOC scorecard: the peer of cfx's scorecard MIP.

Navas-Palencia (2021), "Optimal counterfactual explanations for scorecard modelling"
(arXiv 2104.08619), as shipped in optbinning 1.0.0: a MIP over bin indicators solved by
CBC through OR-Tools. This script rebuilds the HELOC scorecard exactly as
`scorecard_optbinning.py heloc` does (and exits if it differs from
../shared/data/heloc_scorecard_table.csv), takes the first N declined held-out applicants
(held out: row i with i % 10 >= 7; declined: optbinning score below the cutoff at
probability 0.5 of good, 630.4667...), and asks optbinning for counterfactuals with the
desired outcome "good" (`outcome_type="binary"`, `y=0`: log-odds of bad <= 0, which is
exactly score >= cutoff) in three configurations:

* `n1_proximity`: n_cf=1, objectives={"proximity": 1} (its fastest),
* `n1_default`:   n_cf=1, default objectives (proximity 1 + closeness 1, weighted),
* `n5_diverse`:   n_cf=5, default objectives, hard constraints diversity_features and
                  diversity_values.

All other options are optbinning's defaults: every characteristic actionable, at most
23 // 2 = 11 changes, Special and Missing bins never proposed (special_missing=False),
time limit 10 s, one thread. Counterfactual.fit sees the training rows.

    python3 benches/peers/scorecard_counterfactual_optbinning.py [--n 20] [--out DIR]
        [--time-limit 10] [--configs n1_proximity,n1_default,n5_diverse]

Writes DIR/optbinning_counterfactuals.jsonl (DIR defaults to target/peers): a first line
`{"kind": "run", ...}` with versions, settings and the scorecard's scaling, then one line
`{"kind": "counterfactual", ...}` per configuration and applicant with the HELOC row index
(0-based data row of heloc.csv), the applicant's values and score, the wall time of
`generate`, optbinning's solver status mapped to optimal / feasible (time limit hit with
an incumbent) / infeasible / time_limit (no incumbent), whether it is proven optimal, and
each counterfactual: for every changed characteristic (named as in cfx's HELOC schema,
i.e. the CSV column) the factual value and bin, the target bin (string and `Bin id` as in
the table) and the value optbinning returns — always null, since optbinning answers with
a bin, not a value. Each answer's score under the table is recomputed here (`score`,
`accepted`). optbinning sometimes lists a characteristic as changed while its target bin
is the applicant's own bin (its candidate bins are filtered by comparing WoE values with
`!=`, and the applicant's WoE differs from the table's in the last bits); such no-op
"changes" are kept in `optbinning_features` and `unchanged_features_reported_as_changes`
but not in `changes` or `features_changed`. The markdown summary (median and p90 time,
solved, proven optimal, features changed) goes to stdout.
"""

import contextlib
import json
import os
import platform
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import peer_venv  # noqa: E402
import scorecard_optbinning as so  # noqa: E402  (only the standard library at import time)

CONFIGS = {
    "n1_proximity": dict(n_cf=1, objectives={"proximity": 1}),
    "n1_default": dict(n_cf=1),
    "n5_diverse": dict(n_cf=5, hard_constraints=["diversity_features", "diversity_values"]),
}


def ensure_venv():
    peer_venv.enter(so.VENV, so.PINS, __file__)


def status_name(raw):
    if raw == "OPTIMAL":
        return "optimal"
    if raw == "FEASIBLE":
        return "feasible"
    if raw == "INFEASIBLE":
        return "infeasible"
    # CBC stopped without proving anything and without an incumbent: its time limit.
    return "time_limit"


def percentile(xs, q):
    import numpy as np
    return float(np.percentile(np.asarray(xs, dtype=float), q)) if xs else float("nan")


def main():
    args = sys.argv[1:]

    def opt(name, default):
        return args[args.index(name) + 1] if name in args else default

    n = int(opt("--n", "20"))
    if n < 20:
        print("--n must be at least 20 (the issue's comparison uses 20 applicants)",
              file=sys.stderr)
        sys.exit(2)
    out = os.path.abspath(opt("--out", os.path.join(so.ROOT, "target", "peers")))
    time_limit = int(opt("--time-limit", "10"))
    configs = opt("--configs", ",".join(CONFIGS)).split(",")
    for c in configs:
        if c not in CONFIGS:
            print(f"unknown configuration {c!r}; known: {', '.join(CONFIGS)}", file=sys.stderr)
            sys.exit(2)

    import numpy as np
    import optbinning
    import ortools
    import pandas as pd
    import sklearn
    from optbinning.scorecard import Counterfactual

    with contextlib.redirect_stdout(sys.stderr):
        built, scores = so.build_heloc()
    sc, data, features = built.scorecard, built.data, built.features
    table = so.detailed_table(sc)
    points = {v: table[table.Variable == v]["Points"].to_numpy() for v in features}
    bins = {v: table[table.Variable == v]["Bin"].tolist() for v in features}
    # Each applicant's bin per characteristic, as Scorecard.score finds it.
    bin_idx = sc.binning_process_.transform(data[features], metric="indices",
                                            metric_special="empirical",
                                            metric_missing="empirical")

    rows = np.arange(len(data))
    held_out = rows % 10 >= 7
    declined = [int(i) for i in rows[held_out & (scores < built.cutoff)]][:n]
    if len(declined) < n:
        so.fail(f"only {len(declined)} declined held-out applicants")

    tr = so.train_mask(len(data))
    cf = Counterfactual(sc).fit(data[features][tr])

    os.makedirs(out, exist_ok=True)
    path = os.path.join(out, "optbinning_counterfactuals.jsonl")
    run = {
        "kind": "run",
        "model": "HELOC scorecard rebuilt by benches/peers/scorecard_optbinning.py; "
                 "equals ../shared/data/heloc_scorecard_table.csv",
        "python": platform.python_version(), "optbinning": optbinning.__version__,
        "ortools": ortools.__version__, "scikit_learn": sklearn.__version__,
        "pandas": pd.__version__, "numpy": np.__version__,
        "score_to_log_odds_good": {"factor": built.factor, "offset": built.offset},
        "cutoff": built.cutoff,
        "accepted_when": "score >= cutoff",
        "applicants": "first N held-out rows (i % 10 >= 7) with score < cutoff, in row order",
        "rows": declined,
        "time_limit_s": time_limit,
        "load_average_at_start": list(os.getloadavg()),
        "options": {"special_missing": False, "max_changes": len(features) // 2,
                    "actionable_features": "all", "n_jobs": 1, "method": "weighted",
                    "outcome_type": "binary", "y": 0},
        "configs": {c: CONFIGS[c] for c in configs},
        "value_semantics": "optbinning returns the target bin only; to_value is always null",
    }
    results = {c: [] for c in configs}
    with open(path, "w", newline="\n") as f:
        f.write(json.dumps(run) + "\n")
        for c in configs:
            for i in declined:
                query = data.iloc[[i]][features]
                t0 = time.perf_counter()
                cf.generate(query=query, y=0, outcome_type="binary", time_limit=time_limit,
                            **CONFIGS[c])
                wall = time.perf_counter() - t0
                raw = cf.status
                answers = []
                if raw in ("OPTIMAL", "FEASIBLE"):
                    for k, cfk in enumerate(cf._cfs):
                        changes = []
                        total = float(scores[i])
                        new_query = cfk["query"]
                        noop = []
                        for v in cfk["features"]:
                            v = str(v)
                            j_from = int(bin_idx[v].iloc[i])
                            j_to = bins[v].index(new_query[v].iloc[0])
                            if j_to == j_from:
                                # optbinning 1.0.0 leaves the applicant's own bin among the
                                # candidates when the WoE it encodes the applicant with differs
                                # from the table's in the last bits (model_data compares with
                                # !=), and may then "change" a feature to the bin it is in.
                                noop.append(v)
                                continue
                            total += float(points[v][j_to] - points[v][j_from])
                            changes.append({
                                "feature": v,
                                "from_value": float(data[v].iloc[i]),
                                "from_bin": bins[v][j_from], "from_bin_id": j_from,
                                "to_bin": bins[v][j_to], "to_bin_id": j_to,
                                "to_value": None,
                            })
                        answers.append({
                            "features_changed": len(changes), "changes": changes,
                            "score": total, "accepted": total >= built.cutoff,
                            "optbinning_log_odds_bad": float(cfk["score"]),
                            "optbinning_features": [str(v) for v in cfk["features"]],
                            "unchanged_features_reported_as_changes": noop,
                        })
                rec = {
                    "kind": "counterfactual", "config": c, "row": i,
                    "applicant": {v: float(data[v].iloc[i]) for v in features},
                    "score": float(scores[i]), "time_s": wall,
                    "solver_time_s": float(cf._time_solver),
                    "status": status_name(raw),
                    "solver_status": raw, "proven_optimal": raw == "OPTIMAL",
                    "n_found": len(answers), "counterfactuals": answers,
                }
                results[c].append(rec)
                f.write(json.dumps(rec) + "\n")
                f.flush()
                print(f"{c} row {i}: {rec['status']} in {wall:.3f} s", file=sys.stderr)

    print(f"### optbinning {optbinning.__version__} `Counterfactual` on the HELOC scorecard, "
          f"{n} declined held-out applicants (time limit {time_limit} s, 1 thread)\n")
    print("| configuration | median per applicant | p90 | solved | proven optimal | "
          "features changed (median) | answers accepted by the table |")
    print("|---|---|---|---|---|---|---|")
    invalid = 0
    for c in configs:
        recs = results[c]
        times = [r["time_s"] for r in recs]
        solved = sum(r["n_found"] > 0 for r in recs)
        optimal = sum(r["proven_optimal"] for r in recs)
        changed = [a["features_changed"] for r in recs for a in r["counterfactuals"]]
        reported = [len(a["optbinning_features"]) for r in recs for a in r["counterfactuals"]]
        answers = [a for r in recs for a in r["counterfactuals"]]
        ok = sum(a["accepted"] for a in answers)
        invalid += len(answers) - ok
        statuses = {}
        for r in recs:
            statuses[r["status"]] = statuses.get(r["status"], 0) + 1
        med = (f"{np.median(changed):g} ({np.median(reported):g} as optbinning reports them)"
               if changed else "-")
        print(f"| {c} | {1000 * np.median(times):.0f} ms | {1000 * percentile(times, 90):.0f} ms "
              f"| {solved}/{n} ({', '.join(f'{k} {v}' for k, v in sorted(statuses.items()))}) "
              f"| {optimal}/{n} | {med} | {ok}/{len(answers)} |")
    print(f"\nPer applicant: {os.path.relpath(path, so.ROOT)}")
    if invalid:
        print(f"WARNING: {invalid} of optbinning's answers score below the cutoff under the table",
              file=sys.stderr)


if __name__ == "__main__":
    ensure_venv()
    main()
