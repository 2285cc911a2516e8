#!/usr/bin/env python3
"""NumPy peer of benches/robust.rs: the same Γ̃/Θ̃ estimates at K = 10,000 on
the same inputs (target/robust_bench_inputs.json, written by
`cargo bench --bench robust`), vectorised as a NumPy user would write them:
one K×d normal draw, one matrix product.

Run:  OPENBLAS_NUM_THREADS=1 /path/to/venv/bin/python benches/peers/robust_numpy.py
With an interpreter that has NumPy (2.1.3 was measured) it runs as is; with
one that has none it creates its own virtual environment (benches/peers/.venv)
from PyPI and re-executes itself inside it. The inputs are read from
target/robust_bench_inputs.json next to this repository's Cargo.toml (or
$CARGO_TARGET_DIR/robust_bench_inputs.json when that is set).
"""
import json
import os
import subprocess
import sys
import timeit

HERE = os.path.dirname(os.path.abspath(__file__))
VENV = os.path.join(HERE, ".venv")
PY = os.path.join(VENV, "bin", "python")

try:
    import numpy  # noqa: F401  (any interpreter that already has NumPy will do)
except ImportError:
    if not os.path.exists(PY):
        subprocess.check_call([sys.executable, "-m", "venv", VENV])
        subprocess.check_call([PY, "-m", "pip", "install", "-q", "numpy==2.1.3"])
    os.execv(PY, [PY] + sys.argv)

import numpy as np  # noqa: E402

TARGET = os.environ.get("CARGO_TARGET_DIR") or os.path.join(HERE, "..", "..", "target")
inp = json.load(open(os.path.join(TARGET, "robust_bench_inputs.json")))
K = inp["k"]
x = np.array(inp["x"])
cols = np.array(inp["noise_columns"])
std = np.sqrt(inp["sigma2"])
w = np.array(inp["linear"]["weights"])
b = inp["linear"]["bias"]
layers = [
    (np.array(l["weights"]).reshape(l["n_out"], l["n_in"]).T.copy(), np.array(l["bias"]))
    for l in inp["mlp"]
]
rng = np.random.default_rng(0)
d = len(cols)


def samples():
    X = np.broadcast_to(x, (K, x.size)).copy()
    X[:, cols] += std * rng.standard_normal((K, d))
    return X


def gamma_linear():
    return np.mean(samples() @ w + b <= 0.0)


def theta_linear():
    return np.mean(1.0 / (1.0 + np.exp(samples() @ w + b)))


def mlp_score(X):
    h = X
    for i, (W, c) in enumerate(layers):
        h = h @ W + c
        if i < len(layers) - 1:
            h = np.maximum(h, 0.0)
    return h[:, 0]


def gamma_mlp():
    return np.mean(mlp_score(samples()) <= 0.0)


def theta_mlp():
    return np.mean(1.0 / (1.0 + np.exp(mlp_score(samples()))))


tau = std * np.linalg.norm(w[cols])
s = x @ w + b


def gamma_projection():
    return np.mean(s + tau * rng.standard_normal(K) <= 0.0)


def theta_projection():
    return np.mean(1.0 / (1.0 + np.exp(s + tau * rng.standard_normal(K))))


def normals_only():
    return rng.standard_normal((K, d)).sum()


def best(f, n=50):
    return min(timeit.repeat(f, number=1, repeat=n))


print(f"numpy {np.__version__}, K={K}, d={x.size}, noisy={d}")
for name, f in [
    ("normal_floor_k_times_d", normals_only),
    ("gamma_linear_generic", gamma_linear),
    ("theta_linear_generic", theta_linear),
    ("gamma_linear_projection", gamma_projection),
    ("theta_linear_projection", theta_projection),
    ("gamma_mlp_generic", gamma_mlp),
    ("theta_mlp_generic", theta_mlp),
]:
    print(f"{name:28s} {best(f) * 1e6:10.1f} µs")
