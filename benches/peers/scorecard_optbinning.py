#!/usr/bin/env python3
"""optbinning peer for cfx's points scorecards (issue #13): the HELOC and German scorecards.

Both scorecards are built with optbinning's recipe (Navas-Palencia, "Optimal binning:
mathematical programming formulation", 2020; optbinning 1.0.0): a `BinningProcess` cuts
every characteristic into WoE bins, scikit-learn's `LogisticRegression` is fitted on the
WoE-transformed rows with cfx's fixed hold-out split (row i trains when i % 10 < 7), and
`Scorecard` scales the coefficients into points. The event (target 1) is the BAD outcome.

Subcommands:

    python3 benches/peers/scorecard_optbinning.py heloc [--out DIR]
        Rebuilds ../shared/data/heloc_scorecard_table.csv (the settings were recovered by
        rebuilding it: scaling min_max 300..850, special codes -9/-8/-7 in one `Special`
        bin, every other option default), asserts that every bin string and count equals
        the shared table and every float column (WoE, ..., Points) agrees to 1e-9, that the
        table's bin strings alone (read as cfx's importer reads them) give optbinning's
        score on every row, and
        writes optbinning's own `Scorecard.score` of every HELOC row (10,459) to
        DIR/heloc_scorecard_scores.csv (`row,score`; DIR defaults to target/peers).

    python3 benches/peers/scorecard_optbinning.py german [--check]
        Builds the bundled German scorecard from examples/data/german_credit.csv (scaling
        pdo_odds: 20 points to double the odds, odds 50:1 of good at 600 points) and writes
        examples/data/german_scorecard_table.csv and tests/reference/german_scorecard_scores.csv.
        With --check it writes nothing and exits non-zero unless the committed files equal
        the rebuilt ones (bin strings and counts exactly, floats to 1e-9). Either way the
        table's bin strings alone must give optbinning's score on every row.

Every subcommand exits non-zero on any mismatch. The script creates its own virtual
environment in benches/peers/.venv-optbinning (PyPI, exact pins below; made again when
they change, peer_venv.py) and re-executes itself there. The scores these files carry are optbinning's, so cfx's parity tests
(tests/scorecard_parity.rs) compare cfx against an independent implementation.
"""

import math
import os
import sys

import peer_venv

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.abspath(os.path.join(HERE, "..", ".."))
VENV = os.path.join(HERE, ".venv-optbinning")
SHARED = os.path.join(ROOT, "..", "shared", "data")

# optbinning 1.0.0 and the versions pip resolved for it on Python 3.11 (Dec 2026). Pinned
# all together so a fresh machine gets the very same numerics (the L-BFGS fit, CART
# prebinning, the CP-SAT binning solver).
PINS = [
    "optbinning==1.0.0",
    "absl-py==2.5.1", "cffi==2.1.1", "clarabel==0.11.1", "cloudpickle==3.1.3",
    "contourpy==1.3.3", "cvxpy==1.9.3", "cycler==0.12.1", "fonttools==4.68.0",
    "highspy==1.16.0", "immutabledict==4.3.1", "Jinja2==3.1.6", "joblib==1.6.0",
    "kiwisolver==1.5.1", "MarkupSafe==3.0.4", "matplotlib==3.11.2", "narwhals==2.29.0",
    "numpy==2.4.6", "ortools==9.15.6755", "osqp==1.1.3", "packaging==26.4",
    "pandas==3.1.1", "pillow==13.0.0", "protobuf==6.33.6", "pycparser==3.12",
    "pyparsing==3.3.3", "python-dateutil==4.0.0", "qdldl==0.1.9.post1", "ropwr==1.2.0",
    "scikit-learn==1.9.1", "scipy==1.17.1", "scs==3.3.1", "sparsediffpy==0.6.1",
    "threadpoolctl==3.8.0", "typing_extensions==4.16.0", "tzdata==2026.6",
]

FLOAT_TOL = 1e-9

HELOC_TARGET = "RiskPerformance"
HELOC_EVENT = "Bad"
HELOC_SPECIAL_CODES = [-9, -8, -7]
HELOC_SCALING = ("min_max", {"min": 300, "max": 850})

GERMAN_TARGET = "creditability"
GERMAN_EVENT = "bad"
GERMAN_SCALING = ("pdo_odds", {"pdo": 20, "odds": 50, "scorecard_points": 600})


def ensure_venv():
    peer_venv.enter(VENV, PINS, __file__)


def fail(msg):
    print("MISMATCH: " + msg, file=sys.stderr)
    sys.exit(1)


def train_mask(n):
    import numpy as np
    return np.arange(n) % 10 < 7


class Built:
    """A fitted scorecard with the affine map score -> log-odds of the GOOD outcome."""

    def __init__(self, scorecard, data, features, y_event, factor, offset):
        self.scorecard = scorecard
        self.data = data
        self.features = features
        self.y_event = y_event
        self.factor = factor
        self.offset = offset

    @property
    def cutoff(self):
        """The score at probability 0.5 of good: log-odds 0."""
        return self.offset


def scaling_map(sc, method, params):
    """factor and offset with log-odds(good) = (score - offset) / factor.

    optbinning's points of a bin are affine in Coefficient * WoE (special and missing
    bins use WoE 0, the fit's default metric_special = metric_missing = 0), and the sum
    Σ Coefficient * WoE + intercept is the logistic regression's log-odds of the event
    (bad). pdo_odds: factor = pdo / ln 2, offset = points - factor * ln(odds). min_max:
    the slope maps [min, max] of the raw score onto [max, min] of points.
    """
    import numpy as np
    intercept = float(sc.estimator_.intercept_[0])
    if method == "pdo_odds":
        factor = params["pdo"] / np.log(2)
        offset = params["scorecard_points"] - factor * np.log(params["odds"])
        return float(factor), float(offset)
    assert method == "min_max"
    coefs = sc.estimator_.coef_.ravel()
    min_p = max_p = 0.0
    for v, c in zip(sc.binning_process_.get_support(names=True), coefs):
        bt = sc.binning_process_.get_binned_variable(v).binning_table.build(add_totals=False)
        raw = bt["WoE"].to_numpy(dtype=float) * c
        raw[-2:] = 0.0  # Special, Missing: metric 0
        min_p += raw.min()
        max_p += raw.max()
    smin, smax = intercept + min_p, intercept + max_p
    slope = (params["min"] - params["max"]) / (smax - smin)
    shift = params["max"] - slope * smin
    return float(-slope), float(shift)


def build(data, target, event, categorical, special_codes, scaling):
    import numpy as np
    from optbinning import BinningProcess, Scorecard
    from sklearn.linear_model import LogisticRegression

    features = [c for c in data.columns if c != target]
    y = (data[target] == event).astype(int).to_numpy()
    tr = train_mask(len(data))
    bp = BinningProcess(features, categorical_variables=categorical or None,
                        special_codes=special_codes)
    method, params = scaling
    sc = Scorecard(bp, LogisticRegression(), scaling_method=method,
                   scaling_method_params=params)
    sc.fit(data[features][tr], y[tr])
    if list(sc.binning_process_.get_support(names=True)) != features:
        fail("the binning process dropped characteristics")
    # The table prints splits with 2 decimals (optbinning's show_digits=2): they must be
    # exact there, or a reader of the table could not reproduce the scores.
    for v in features:
        optb = sc.binning_process_.get_binned_variable(v)
        if optb.dtype == "numerical":
            for split in optb.splits:
                if float(f"{split:.2f}") != split:
                    fail(f"{v}: split {split!r} is not exact at 2 decimals in the table")
    factor, offset = scaling_map(sc, method, params)
    built = Built(sc, data, features, y, factor, offset)
    # The map is optbinning's own calibration: check it against predict_proba.
    s = sc.score(data[features])
    p_good = sc.predict_proba(data[features])[:, 0]
    err = np.max(np.abs(np.log(p_good / (1 - p_good)) - (s - offset) / factor))
    if not err < 1e-9:
        fail(f"score -> log-odds map off by {err}")
    return built, s


def bin_label(b):
    """A categorical bin as the list of its levels, `['a', 'b']` (how optbinning's docs and
    cfx's importer write it); numeric, Special and Missing bins are already strings."""
    if isinstance(b, str):
        return b
    return "[" + ", ".join(repr(str(level)) for level in list(b)) + "]"


def detailed_table(sc):
    t = sc.table(style="detailed").copy()
    t["Bin"] = [bin_label(b) for b in t["Bin"]]
    return t


def compare_tables(got, want, what):
    import numpy as np
    if list(got.columns) != list(want.columns):
        fail(f"{what}: columns {list(got.columns)} != {list(want.columns)}")
    if len(got) != len(want):
        fail(f"{what}: {len(got)} rows != {len(want)}")
    for col in ["Variable", "Bin id", "Bin", "Count", "Non-event", "Event"]:
        g, w = got[col].astype(str).to_numpy(), want[col].astype(str).to_numpy()
        bad = np.nonzero(g != w)[0]
        if len(bad):
            i = bad[0]
            fail(f"{what}: row {i} column {col}: {g[i]!r} != {w[i]!r}")
    worst = 0.0
    for col in ["Count (%)", "Event rate", "WoE", "IV", "JS", "Coefficient", "Points"]:
        g, w = got[col].to_numpy(dtype=float), want[col].to_numpy(dtype=float)
        d = np.abs(g - w)
        i = int(np.argmax(d))
        if not d[i] <= FLOAT_TOL:
            fail(f"{what}: row {i} column {col}: {float(g[i])!r} != {float(w[i])!r}")
        worst = max(worst, float(d[i]))
    return worst


def check_table_reading(table, data, features, special_codes, scores, what):
    """The table alone must give optbinning's scores: read every bin string as cfx's
    importer does (`(-inf, b)`, `[a, b)`, `[a, inf)` left-closed right-open; a list of
    levels; `Special` = the special codes; `Missing` = NaN), sum the points of the bins each
    row falls in, and compare with `Scorecard.score` on every row. Also checks that each
    row falls in exactly one bin per characteristic."""
    import ast
    import numpy as np
    total = np.zeros(len(data))
    codes = list(special_codes or [])
    for v in features:
        rows = table[table.Variable == v]
        col = data[v]
        numeric = pd_is_numeric(col)
        hits = np.zeros(len(data), dtype=int)
        for b, points in zip(rows["Bin"], rows["Points"]):
            if b == "Special":
                m = col.isin(codes).to_numpy() if numeric else np.zeros(len(data), bool)
            elif b == "Missing":
                m = col.isna().to_numpy()
            elif numeric:
                lo, hi = (float(t) for t in b[1:-1].split(", "))
                x = col.to_numpy(dtype=float)
                m = ~np.isin(x, codes) & (x >= lo) & (x < hi)
            else:
                m = col.isin(ast.literal_eval(b)).to_numpy()
            hits += m
            total[m] += points
        if not np.all(hits == 1):
            r = int(np.argmax(hits != 1))
            fail(f"{what}: {v}: row {r} falls in {int(hits[r])} bins")
    err = float(np.max(np.abs(total - scores)))
    if not err <= FLOAT_TOL:
        fail(f"{what}: the table's bins give scores off by {err} from Scorecard.score")
    return err


def pd_is_numeric(col):
    import pandas as pd
    return pd.api.types.is_numeric_dtype(col)


def scores_csv(scores):
    return "row,score\n" + "".join(f"{i},{float(s)!r}\n" for i, s in enumerate(scores))


def report(name, built, scores):
    import numpy as np
    from sklearn.metrics import roc_auc_score
    te = ~train_mask(len(scores))
    good = built.y_event == 0
    acc = float(np.mean((scores[te] >= built.cutoff) == good[te]))
    auc = float(roc_auc_score(good[te], scores[te]))
    declined = int(np.sum(scores[te] < built.cutoff))
    print(f"{name}: log-odds(good) = (score - {built.offset!r}) / {built.factor!r}")
    print(f"{name}: cutoff at probability 0.5 of good = {built.cutoff!r}; held-out accuracy "
          f"{acc!r} ({int(round(acc * te.sum()))}/{int(te.sum())}), AUC {auc!r}; "
          f"declined held-out {declined}")


def build_heloc():
    """The HELOC scorecard, checked against the shared table (exits on any mismatch)."""
    import pandas as pd
    data = pd.read_csv(os.path.join(SHARED, "heloc.csv"))
    built, scores = build(data, HELOC_TARGET, HELOC_EVENT, [], HELOC_SPECIAL_CODES,
                          HELOC_SCALING)
    want = pd.read_csv(os.path.join(SHARED, "heloc_scorecard_table.csv"))
    # Round-trip through CSV text so both sides are parsed the same way.
    from io import StringIO
    got = pd.read_csv(StringIO(detailed_table(built.scorecard).to_csv(index=False)))
    worst = compare_tables(got, want, "heloc_scorecard_table.csv")
    print(f"heloc: table equals ../shared/data/heloc_scorecard_table.csv ({len(want)} bins; "
          f"largest float difference {worst:.3g})")
    err = check_table_reading(want, data, built.features, HELOC_SPECIAL_CODES, scores,
                              "heloc_scorecard_table.csv")
    print(f"heloc: the shared table's bins, read as [a, b) intervals and Special = -9/-8/-7, "
          f"give optbinning's score on all {len(data)} rows (largest difference {err:.3g})")
    report("heloc", built, scores)
    return built, scores


def heloc(out):
    built, scores = build_heloc()
    os.makedirs(out, exist_ok=True)
    path = os.path.join(out, "heloc_scorecard_scores.csv")
    with open(path, "w", newline="\n") as f:
        f.write(scores_csv(scores))
    print(f"heloc: wrote optbinning's scores of {len(scores)} rows to {path}")


GERMAN_TABLE = os.path.join(ROOT, "examples", "data", "german_scorecard_table.csv")
GERMAN_SCORES = os.path.join(ROOT, "tests", "reference", "german_scorecard_scores.csv")


def german(check):
    import numpy as np
    import pandas as pd
    data = pd.read_csv(os.path.join(ROOT, "examples", "data", "german_credit.csv"))
    categorical = [c for c in data.columns
                   if c != GERMAN_TARGET and not pd.api.types.is_numeric_dtype(data[c])]
    built, scores = build(data, GERMAN_TARGET, GERMAN_EVENT, categorical, None, GERMAN_SCALING)
    table_text = detailed_table(built.scorecard).to_csv(index=False, lineterminator="\n")
    scores_text = scores_csv(scores)
    from io import StringIO
    err = check_table_reading(pd.read_csv(StringIO(table_text)), data, built.features, None,
                              scores, "german_scorecard_table.csv")
    print(f"german: the table's bins give optbinning's score on all {len(data)} rows "
          f"(largest difference {err:.3g})")
    report("german", built, scores)
    if not check:
        with open(GERMAN_TABLE, "w", newline="\n") as f:
            f.write(table_text)
        with open(GERMAN_SCORES, "w", newline="\n") as f:
            f.write(scores_text)
        print(f"german: wrote {os.path.relpath(GERMAN_TABLE, ROOT)} and "
              f"{os.path.relpath(GERMAN_SCORES, ROOT)}")
        return
    got = pd.read_csv(StringIO(table_text))
    worst = compare_tables(got, pd.read_csv(GERMAN_TABLE), "german_scorecard_table.csv")
    committed = pd.read_csv(GERMAN_SCORES)
    if list(committed.columns) != ["row", "score"] or len(committed) != len(scores):
        fail("german_scorecard_scores.csv: header or row count")
    if not np.array_equal(committed["row"].to_numpy(), np.arange(len(scores))):
        fail("german_scorecard_scores.csv: rows are not 0..n-1")
    d = np.abs(committed["score"].to_numpy() - scores)
    if not d.max() <= FLOAT_TOL:
        fail(f"german_scorecard_scores.csv: row {int(np.argmax(d))} differs by {d.max()}")
    identical = (open(GERMAN_TABLE).read() == table_text
                 and open(GERMAN_SCORES).read() == scores_text)
    print(f"german: committed table and scores equal the rebuilt ones (largest float "
          f"difference {max(worst, float(d.max())):.3g}; byte-identical: {identical})")


def main():
    args = sys.argv[1:]
    cmd = args[0] if args and not args[0].startswith("--") else "heloc"
    out = os.path.join(ROOT, "target", "peers")
    if "--out" in args:
        out = os.path.abspath(args[args.index("--out") + 1])
    if cmd == "heloc":
        heloc(out)
    elif cmd == "german":
        german("--check" in args)
    else:
        print(__doc__)
        sys.exit(2)


if __name__ == "__main__":
    ensure_venv()
    main()
