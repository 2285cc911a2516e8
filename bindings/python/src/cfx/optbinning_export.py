"""``python -m cfx.optbinning_export SCORECARD.pkl TABLE.csv``: writes the detailed table of a
pickled (or joblib-dumped) fitted optbinning `Scorecard` with its numeric bin edges at full
precision (`cfx.exact_table`), for cfx's C, Java and R importers, which read it as they read
the printed table (whose edges optbinning rounds to two decimals)."""

import pickle
import sys

from .scorecard import exact_table


def main(argv):
    if len(argv) != 2:
        print("usage: python -m cfx.optbinning_export SCORECARD.pkl TABLE.csv", file=sys.stderr)
        return 2
    with open(argv[0], "rb") as f:
        scorecard = pickle.load(f)
    exact_table(scorecard).to_csv(argv[1], index=False)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
