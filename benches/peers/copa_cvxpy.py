#!/usr/bin/env python3
"""Independent solver for cfx's COPA validity bounds (Bui, Nguyen & Nguyen 2022, Theorems 2.2/2.3).

Run from the repository root:
    python3 -m venv benches/peers/.venv
    benches/peers/.venv/bin/pip install cvxpy clarabel scs numpy
    benches/peers/.venv/bin/python benches/peers/copa_cvxpy.py check   # oracle numbers
    benches/peers/.venv/bin/python benches/peers/copa_cvxpy.py bench   # timings

`check` regenerates the 24 instances of cfx's test `bounds_agree_with_cvxpy_clarabel`
with the same 64-bit LCG (bit-identical draws) and prints L* and U* as solved by
cvxpy + Clarabel (always the SDP, never the Proposition 2.4 shortcut), plus SCS at a
tight tolerance as a second opinion.
`bench` times the same programs on the instances of cfx's criterion bench
`benches/plan.rs` (J = 5, d = 20 and 50, rho = 0 and 0.05).
"""
import sys
import time

import cvxpy as cp
import numpy as np

MASK = (1 << 64) - 1


class Lcg:
    def __init__(self, seed):
        self.s = seed & MASK

    def next(self):
        self.s = (self.s * 6364136223846793005 + 1442695040888963407) & MASK
        return (self.s >> 11) / float(1 << 53)


def instance(k):
    """Instance k of the oracle test (mirrors `peer_instance` in src/plan/tests.rs)."""
    g = Lcg(12345 + 1000 * k)
    d = 3 + k % 4
    J = 1 + k % 3
    rho = [0.0, 0.05, 0.2][(k // 3) % 3]
    mean = np.array([2 * g.next() - 1 for _ in range(d)])
    A = np.array([2 * g.next() - 1 for _ in range(d * d)]).reshape(d, d)
    cov = 0.3 * (A @ A.T) / d + 0.05 * np.eye(d)
    X = np.zeros((J, d))
    for j in range(J):
        X[j, 0] = 1.0
        for i in range(1, d):
            X[j, i] = 2 * g.next() - 1
    if k % 2 == 0:
        n2 = float(np.sum(mean[1:] ** 2))
        for j in range(J):
            m = float(X[j] @ mean)
            if m < 0.5:
                X[j, 1:] += (0.5 - m) * mean[1:] / n2
    return d, J, rho, mean, cov, X


def bench_instance(d, J=5, seed=2024):
    """The bench instance (mirrors `bench_instance` in benches/plan.rs)."""
    g = Lcg(seed + d)
    mean = np.array([2 * g.next() - 1 for _ in range(d)])
    mean[0] = 1.0
    A = np.array([2 * g.next() - 1 for _ in range(d * d)]).reshape(d, d)
    cov = 0.1 * (A @ A.T) / d + 0.01 * np.eye(d)
    X = np.zeros((J, d))
    n2 = float(np.sum(mean[1:] ** 2))
    for j in range(J):
        X[j, 0] = 1.0
        for i in range(1, d):
            X[j, i] = 2 * g.next() - 1
        m = float(X[j] @ mean)
        X[j, 1:] += (1.0 - m) * mean[1:] / n2  # margin 1: mu inside, non-trivial L*
    return mean, cov, X


def psd_sqrt(S):
    w, V = np.linalg.eigh((S + S.T) / 2)
    return (V * np.sqrt(np.maximum(w, 0))) @ V.T


def lower(mean, cov, X, rho):
    d = len(mean)
    J = X.shape[0]
    lam = cp.Variable(J)
    z = [cp.Variable(d) for _ in range(J)]
    Z = [cp.Variable((d, d), symmetric=True) for _ in range(J)]
    cons = []
    if rho == 0:
        mu = mean
        M = cov + np.outer(mean, mean)
    else:
        mu = cp.Variable(d)
        Sig = cp.Variable((d, d), symmetric=True)
        M = cp.Variable((d, d), symmetric=True)
        C = cp.Variable((d, d))
        cons += [
            mean @ mean - 2 * mean @ mu + cp.trace(M + cov - 2 * C) <= rho**2,
            cp.bmat([[Sig, C], [C.T, cov]]) >> 0,
            cp.bmat([[M - Sig, cp.reshape(mu, (d, 1), order="F")],
                     [cp.reshape(mu, (1, d), order="F"), np.ones((1, 1))]]) >> 0,
        ]
    blocks = []
    for j in range(J):
        W = cp.bmat([[Z[j], cp.reshape(z[j], (d, 1), order="F")],
                     [cp.reshape(z[j], (1, d), order="F"), cp.reshape(lam[j], (1, 1), order="F")]])
        cons += [X[j] @ z[j] <= 0, W >> 0]
        blocks.append(W)
    if rho == 0:
        top = np.block([[M, mean.reshape(d, 1)], [mean.reshape(1, d), np.ones((1, 1))]])
    else:
        top = cp.bmat([[M, cp.reshape(mu, (d, 1), order="F")],
                       [cp.reshape(mu, (1, d), order="F"), np.ones((1, 1))]])
    cons.append(top - sum(blocks) >> 0)
    return cp.Problem(cp.Minimize(1 - cp.sum(lam)), cons)


def upper(mean, cov, X, rho):
    d = len(mean)
    J = X.shape[0]
    z0 = cp.Variable()
    z = cp.Variable(d)
    Z = cp.Variable((d, d), symmetric=True)
    lam = cp.Variable(J, nonneg=True)
    zc = cp.reshape(z, (d, 1), order="F")
    cons = [cp.bmat([[Z, zc], [zc.T, cp.reshape(z0, (1, 1), order="F")]]) >> 0]
    shift = sum(lam[j] * X[j] for j in range(J)) / 2
    sc = cp.reshape(z - shift, (d, 1), order="F")
    cons.append(cp.bmat([[Z, sc], [sc.T, cp.reshape(z0 - 1, (1, 1), order="F")]]) >> 0)
    if rho == 0:
        P = cov + np.outer(mean, mean)
        obj = cp.trace(Z @ P) + 2 * mean @ z + z0
    else:
        g = cp.Variable(nonneg=True)
        q = cp.Variable(nonneg=True)
        Q = cp.Variable((d, d), symmetric=True)
        R = psd_sqrt(cov)
        GZ = g * np.eye(d) - Z
        cons.append(cp.bmat([[GZ, g * R], [g * R, Q]]) >> 0)
        v = cp.reshape(g * mean + z, (d, 1), order="F")
        cons.append(cp.bmat([[GZ, v], [v.T, cp.reshape(q, (1, 1), order="F")]]) >> 0)
        obj = z0 + g * (rho**2 - mean @ mean - np.trace(cov)) + q + cp.trace(Q)
    return cp.Problem(cp.Minimize(obj), cons)


def solve(prob, solver):
    if solver == "SCS":
        prob.solve(solver="SCS", eps=1e-9, max_iters=200000)
    elif solver == "SCS-default":
        # SCS at cvxpy's default tolerances, as a user would call it
        prob.solve(solver="SCS")
    else:
        prob.solve(solver="CLARABEL")
    return float(np.clip(prob.value, 0.0, 1.0))


def check():
    ls, us = [], []
    for k in range(24):
        d, J, rho, mean, cov, X = instance(k)
        l = solve(lower(mean, cov, X, rho), "CLARABEL")
        u = solve(upper(mean, cov, X, rho), "CLARABEL")
        ls2 = solve(lower(mean, cov, X, rho), "SCS")
        us2 = solve(upper(mean, cov, X, rho), "SCS")
        margin = float(np.min(X @ mean))
        print(f"k={k:2d} d={d} J={J} rho={rho:<4} margin={margin:+.4f} "
              f"L*={l:.6f} (SCS {ls2:.6f})  U*={u:.6f} (SCS {us2:.6f})")
        ls.append(l)
        us.append(u)
    print("const PEER_LOWER: [f64; 24] = [" + ", ".join(f"{v:.7f}" for v in ls) + "];")
    print("const PEER_UPPER: [f64; 24] = [" + ", ".join(f"{v:.7f}" for v in us) + "];")


def bench(solvers=("CLARABEL", "SCS"), dims=(20, 50)):
    """`bench [SOLVER,...] [d,...]`, e.g. `bench CLARABEL 20`; SOLVER is CLARABEL,
    SCS (eps 1e-9, as the oracle check; minutes per program at d = 20) or
    SCS-default (cvxpy's default SCS tolerances). SCS runs at d = 20 only."""
    for d in dims:
        mean, cov, X = bench_instance(d)
        for rho in (0.0, 0.05):
            for name, build in (("L*", lower), ("U*", upper)):
                if name == "U*":
                    # mu is inside (margin 1), so U* = 1 by Proposition 2.4; time the program
                    # on the mirrored plan (mu outside) as cfx's bench does.
                    Xb = X.copy()
                    Xb[0, 1:] = -Xb[0, 1:]
                    Xb[0, 1:] -= 2.0 * mean[1:] / float(np.sum(mean[1:] ** 2))
                else:
                    Xb = X
                for solver in solvers:
                    if solver.startswith("SCS") and d == 50:
                        continue
                    best = float("inf")
                    val = None
                    reps = 3 if d == 20 and solver == "CLARABEL" else 1
                    for _ in range(reps):
                        prob = build(mean, cov, Xb, rho)
                        t = time.perf_counter()
                        val = solve(prob, solver)
                        best = min(best, time.perf_counter() - t)
                    print(f"{name} d={d} J=5 rho={rho}: {solver:8s} value={val:.6f} "
                          f"time={best*1e3:.1f} ms (solve() incl. cvxpy compilation)")


if __name__ == "__main__":
    cmd = sys.argv[1] if len(sys.argv) > 1 else "check"
    if cmd == "bench":
        kw = {}
        if len(sys.argv) > 2:
            kw["solvers"] = tuple(sys.argv[2].split(","))
        if len(sys.argv) > 3:
            kw["dims"] = tuple(int(v) for v in sys.argv[3].split(","))
        bench(**kw)
    else:
        check()
