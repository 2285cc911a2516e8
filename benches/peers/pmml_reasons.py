#!/usr/bin/env python3
"""jpmml-evaluator's reason codes, the oracle of cfx's scorecard reasons (issue 40).

For the three PMML scorecards with reason codes in tests/data/notice
(scorecard_sas4.pmml: per-characteristic baselines, pointsBelow;
scorecard_shared.pmml: one scorecard-wide baseline and codes shared between
characteristics; scorecard_above.pmml: pointsAbove), writes the evaluator's
score and reason codes of ranks 1-4 for every row of tests/data/pmml/rows.csv
into <name>_reasons.csv (header `row,score,reason1,reason2,reason3,reason4`,
an empty cell where the evaluator gives no code). Committed: the Rust tests
read them on every machine.

Usage:  python3 benches/peers/pmml_reasons.py
Needs Java 17; runs in the environment of pmml_peers.py (.venv-pmml, same pins).
"""

import os

import peer_venv
import pmml_peers

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.abspath(os.path.join(HERE, "..", ".."))
LEVELS = ["own", "rent", "other"]


def main():
    peer_venv.enter(os.path.join(HERE, ".venv-pmml"), pmml_peers.PINS, __file__)
    import pandas as pd
    from jpmml_evaluator import make_evaluator

    data = os.path.join(ROOT, "tests", "data")
    rows = pd.read_csv(os.path.join(data, "pmml", "rows.csv"))
    rows["housing"] = [LEVELS[int(k)] for k in rows["housing"]]
    for name in ["scorecard_sas4", "scorecard_shared", "scorecard_above"]:
        ev = make_evaluator(os.path.join(data, "notice", name + ".pmml")).verify()
        res = ev.evaluateAll(rows)
        with open(os.path.join(data, "notice", name + "_reasons.csv"), "w") as f:
            f.write("row,score,reason1,reason2,reason3,reason4\n")
            for i, r in res.iterrows():
                codes = [r[f"Reason Code {k}"] for k in (1, 2, 3, 4)]
                codes = [c if isinstance(c, str) else "" for c in codes]
                f.write(f"{i},{float(r['Final Score'])!r},{','.join(codes)}\n")
        print(f"{name}: {len(res)} rows")


if __name__ == "__main__":
    main()
