"""Reference numbers for cfx's logistic regression (tests/data_and_models.rs).

Fits scikit-learn's LogisticRegression(C=1) -- the same objective as
cfx::model::LinearModel::fit with LogisticFit::default() -- on the encoded
design matrices written by `cargo run --release --example export_encoded`,
with cfx's fixed hold-out split (row i is held out when i % 10 >= 7), and
prints the coefficients and held-out accuracies that the Rust test records.

Usage: python sklearn_logistic.py /tmp/enc_german.csv /tmp/enc_heloc.csv /tmp/enc_taiwan.csv
"""
import sys

import numpy as np
import sklearn
from sklearn.linear_model import LogisticRegression

print("scikit-learn", sklearn.__version__)
for path in sys.argv[1:]:
    data = np.loadtxt(path, delimiter=",", skiprows=1)
    x, y = data[:, :-1], data[:, -1]
    idx = np.arange(len(y))
    train, test = idx % 10 < 7, idx % 10 >= 7
    clf = LogisticRegression(C=1.0, solver="newton-cholesky", tol=1e-12, max_iter=1000)
    clf.fit(x[train], y[train])
    acc = (clf.predict(x[test]) == y[test]).mean()
    print(path, "heldout_accuracy", repr(acc))
    print("intercept", repr(clf.intercept_[0]))
    print("coef", ",".join(repr(float(c)) for c in clf.coef_[0]))
