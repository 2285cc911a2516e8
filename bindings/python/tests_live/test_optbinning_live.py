"""A scorecard fitted in optbinning passes into cfx as the live object, without a file or
hand-copied points, and cfx's points equal optbinning's own `Scorecard.score` on every row.

optbinning's recipe as in benches/peers/scorecard_optbinning.py (the German settings of the
bundled scorecard): a `BinningProcess` over every characteristic (the text columns
categorical), scikit-learn's `LogisticRegression` on the WoE rows of cfx's hold-out split
(row i trains when i % 10 < 7), `pdo_odds` scaling (20 points double the odds, odds 50:1
of good at 600 points). The event (target 1) is the BAD outcome."""

import math

import numpy as np
import pandas as pd
import pytest

import cfx

TARGET, EVENT = "creditability", "bad"
PDO, ODDS, POINTS = 20.0, 50.0, 600.0


@pytest.fixture(scope="module")
def fitted(german_path):
    from optbinning import BinningProcess, Scorecard
    from sklearn.linear_model import LogisticRegression

    data = pd.read_csv(german_path)
    features = [c for c in data.columns if c != TARGET]
    categorical = [c for c in features if not pd.api.types.is_numeric_dtype(data[c])]
    y = (data[TARGET] == EVENT).astype(int).to_numpy()
    train = np.arange(len(data)) % 10 < 7
    sc = Scorecard(
        BinningProcess(features, categorical_variables=categorical),
        LogisticRegression(),
        scaling_method="pdo_odds",
        scaling_method_params={"pdo": PDO, "odds": ODDS, "scorecard_points": POINTS},
    )
    sc.fit(data[features][train], y[train])
    return sc, data[features]


def test_live_optbinning_scorecard_scores_as_optbinning_on_every_german_row(german_path, fitted):
    sc, x = fitted
    theirs = sc.score(x)
    # log-odds(good) = (points − offset)/factor: pdo_odds puts odds 50:1 at 600 points and
    # doubles them every 20 points; the cutoff is the score at probability 0.5.
    factor = PDO / math.log(2)
    offset = POINTS - factor * math.log(ODDS)
    with cfx.load_german(german_path) as d, d.schema as s:
        assert len(d) == len(x) == 1000
        with cfx.from_optbinning(s, sc, offset, (factor, offset)) as card:
            assert card.kind == "scorecard"
            got = [card.predict_raw(s, d.row(i)) for i in range(len(d))]
        points = np.array([p.score for p in got])
        worst = float(np.max(np.abs(points - theirs)))
        assert worst <= 1e-9, f"worst difference to optbinning's Scorecard.score: {worst}"
        # The scaling turns points into optbinning's own probability of the good outcome.
        p_good = sc.predict_proba(x)[:, 0]
        np.testing.assert_allclose([p.probability for p in got], p_good, rtol=1e-9, atol=1e-12)
        np.testing.assert_array_equal([p.accepted for p in got], theirs >= offset)


def test_live_object_and_the_saved_table_give_one_model(german_path, fitted):
    """The live object and the CSV a modeller would save (categorical bins written as lists
    of levels, as benches/peers/scorecard_optbinning.py writes the bundled table) are one
    model. The live table holds a categorical bin as a NumPy array of levels."""
    sc, _ = fitted
    frame = sc.table(style="detailed")
    assert any(not isinstance(b, str) for b in frame["Bin"])  # the case the reader must handle
    saved = frame.copy()
    saved["Bin"] = [b if isinstance(b, str) else "[" + ", ".join(repr(str(v)) for v in b) + "]" for b in frame["Bin"]]
    with cfx.load_german(german_path) as d, d.schema as s:
        with (
            cfx.from_optbinning(s, sc, 500.0) as live,
            cfx.from_optbinning(s, saved.to_csv(index=False), 500.0) as from_text,
        ):
            assert live.to_json() == from_text.to_json()
