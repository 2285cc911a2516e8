#!/usr/bin/env python3
"""An independent exact formulation for cfx's ReLU networks, on highspy.

cfx's exact engine proves the cheapest coherent change for a ReLU MLP with a
MIP of its own (src/coherent/mlp.rs). This script writes another one from the
schema's documented semantics (docs/guide/schemas-and-presets.md) and the
network's weights, with no code or program of cfx's: its own options per
feature, its own interval bounds, its own big-M rows, solved by highspy. For
each declined applicant the proven optimal cost must equal cfx's (relative
tolerance REL_TOL), and both answers are re-scored by this script's own
forward pass of the network (NumPy, float64) and must be accepted.

Usage:

    python3 benches/peers/mlp_peers.py [CASE ...] [--n 20] [--limit 300] [--peer-limit S] [--reuse]

CASE is one of german-1x200, german-1x200-preset, heloc-2x32-preset,
heloc-2x16-preset, heloc-1x200-preset (default: all but heloc-1x200-preset,
whose export by cfx stalls inside HiGHS's presolve; BENCHMARKS.md section 12). Each case runs
`cargo run --release --example mlp_peers_export` (cfx fits the network and
explains the applicants with a `--limit` second limit each, file
target/peers/mlp_<case>.json), then this formulation (a `--peer-limit`
second limit each, by default `--limit`; file target/peers/mlp_<case>_peer.json);
tests/mlp_peers.rs compares the two files with cfx's answers of the day
(`--reuse` keeps an export file already there instead of running cfx again).
Both limits are wall clock. It prints one line per case:

    mlp_peers: <case>: peer proven P/N, cfx proven Q/N, equal costs on E/C (max rel diff D), \
        every answer accepted by the forward pass: yes|no

and exits non-zero when a compared cost differs or an answer is declined.

The formulation (per feature, one binary per *option*, the options summing to 1):

* a categorical level, or a special state of a contiguous feature, that the
  applicant may move to (the own one always; others only when the feature is
  mutable, no forbidden transition names the move, and the level's index — or
  its rank in `level_order` — goes the way `direction` says): a constant
  encoded sub-vector and a constant cost (Russell 2019's weights: leaving the
  own discrete state costs its weight, entering another its weight);
* the value range of a contiguous feature: a raw value `x` (integer steps on
  an integer or step grid) between the actionable bounds, cut by the change
  limits and the direction when the applicant is in the value state; the
  encoded slot is `(x − L)/(U − L)`, and the cost `W·|slot − ref|` (ref the
  applicant's slot, or the fitted anchor clamped to the actionable range when
  the applicant sits in a special state, plus that state's weight);
* the applicant's own value when it lies outside that range (staying is
  always allowed);
* with an advice grid (`advice_step`, anchored at 0) or a minimum change
  (`min_change` m) on a feature in its value state, the value range is two
  options instead — down to at most a − m and up to at least a + m, each on
  the advice grid (strictly away from a when m is 0) — and staying is its own
  option, on the grid or not; from a special state the value lands on the
  advice grid with no minimum.

The cap on features changed is one binary per feature that can change (more
than one option, or a value range), forced to 1 by any option but the own one
and by any move of the value. Every answer, the peer's and cfx's, is also
checked here against every documented rule (`rules_kept`: immutables,
forbidden transitions, directions and level orders, ranges, the cap, the
change limits, the advice grid and the minimum change). The network's input is
affine in these columns; each hidden unit gets an interval from plain
interval arithmetic — the first layer per feature over its options (a sum of
per-feature extremes), deeper layers from the clipped intervals of the layer
before — and is fixed dead (U ≤ 0), linear (L ≥ 0) or given a binary δ and
the big-M rows of Tjeng, Xiao & Tedrake (2019, eq. 6): y ≥ 0, y ≥ z,
y ≤ z − L(1 − δ), y ≤ Uδ. The output (the log-odds) must reach
logit(threshold) + 1e-6, the decision margin cfx documents.
"""

import json
import math
import os
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.abspath(os.path.join(HERE, "..", ".."))
OUT = os.path.join(ROOT, "target", "peers")
VENV = os.path.join(HERE, ".venv-mlp")
PINS = ["highspy==1.16.0", "numpy==2.4.6"]
MARGIN = 1e-6
REL_TOL = 1e-6
REUSE = "--reuse" in sys.argv  # keep an export already written (cfx's side is slow too)
CASES = {
    "german-1x200": ("german", "200", False),
    "german-1x200-preset": ("german", "200", True),
    "heloc-2x32-preset": ("heloc", "32,32", True),
    "heloc-2x16-preset": ("heloc", "16,16", True),
    "heloc-1x200-preset": ("heloc", "200", True),
}

sys.path.insert(0, HERE)
from coherent_peers import Schema, TOL  # noqa: E402  (the schema semantics, written once)


# --------------------------------------------------------------------------
# What an applicant may do, per feature
# --------------------------------------------------------------------------

def names_match(rule, names):
    return rule == "*" or str(rule) in names or (
        isinstance(rule, (int, float)) and ("%g" % rule) in names)


def transition_allowed(schema, i, sa, sb):
    """The documented rules for a move between discrete states sa → sb."""
    if sa == sb:
        return True
    f = schema.features[i]
    act = f.get("actionability", {})
    if act.get("mutable", True) is False:
        return False
    for t in act.get("forbidden_transitions", []):
        if names_match(t["from"], schema.state_name(i, sa)) and names_match(
                t["to"], schema.state_name(i, sb)):
            return False
    d = act.get("direction", "any")
    if f["kind"] == "categorical":
        order = act.get("level_order", [])
        if order:
            levels = f["levels"]
            a, b = levels[sa], levels[sb]
            if a in order and b in order:
                ra, rb = order.index(a), order.index(b)
                if d == "increase_only" and rb < ra:
                    return False
                if d == "decrease_only" and rb > ra:
                    return False
        else:
            if d == "increase_only" and sb < sa:
                return False
            if d == "decrease_only" and sb > sa:
                return False
    return True


def limit_amount(lim, v):
    if lim is None:
        return math.inf
    if "units" in lim:
        return lim["units"]
    return lim["fraction"] * abs(v)


def advice_keys(f):
    """The advice grid's step (anchored at 0) and the minimum change (0: none)."""
    act = f.get("actionability", {})
    return act.get("advice_step") or 0.0, act.get("min_change") or 0.0


def value_pieces(schema, i, a, sa):
    """The raw intervals [lo, hi] of the value options, each with its grid
    (base, step) or None; [] when the value cannot be reached.

    From the value state with an advice grid or a minimum change, a move goes
    down to at most a − m or up to at least a + m (strictly away from a when
    m is 0), on the advice grid; staying is the own option, on the grid or
    not. From a special state the value lands on the advice grid, with no
    minimum."""
    f = schema.features[i]
    act = f.get("actionability", {})
    if act.get("mutable", True) is False:
        return []
    lo, hi = schema.action_range(i)
    if sa == 0:
        lo = max(lo, a - limit_amount(act.get("max_decrease"), a))
        hi = min(hi, a + limit_amount(act.get("max_increase"), a))
        d = act.get("direction", "any")
        if d == "increase_only":
            lo = max(lo, a)
        if d == "decrease_only":
            hi = min(hi, a)
    elif not transition_allowed_value(schema, i, sa):
        return []
    step, m = advice_keys(f)
    grid = (0.0, step) if step > 0 else grid_of(f)
    if sa == 0 and (step > 0 or m > 0):
        pieces = [(lo, min(hi, a - m), "down"), (max(lo, a + m), hi, "up")]
    else:
        pieces = [(lo, hi, None)]
    out = []
    for plo, phi, side in pieces:
        if grid is not None:
            base, gs = grid
            k0 = math.ceil((plo - base) / gs - 1e-9)
            k1 = math.floor((phi - base) / gs + 1e-9)
            if side == "down" and base + k1 * gs >= a - TOL:
                k1 -= 1
            if side == "up" and base + k0 * gs <= a + TOL:
                k0 += 1
            if k0 > k1:
                continue
            plo, phi = base + k0 * gs, base + k1 * gs
        elif side is not None and m == 0:
            raise RuntimeError("a continuous value with neither grid nor minimum: not split")
        if plo > phi + 1e-12:
            continue
        out.append((plo, phi, grid))
    return out


def rules_kept(schema, cap, a, b):
    """Every documented rule on a whole answer `b`: immutables, forbidden
    transitions, directions (a categorical's by its `level_order` when given),
    the actionable range, then `keeps_advice_rules`."""
    for i, f in enumerate(schema.features):
        if abs(a[i] - b[i]) <= TOL:
            continue
        act = f.get("actionability", {})
        sa, sb = schema.state(i, a[i]), schema.state(i, b[i])
        if act.get("mutable", True) is False or sa is None or sb is None:
            return False
        if sa != sb and not transition_allowed(schema, i, sa, sb):
            return False
        if f["kind"] == "contiguous" and sb == 0:
            lo, hi = schema.action_range(i)
            if b[i] < lo - TOL or b[i] > hi + TOL:
                return False
            d = act.get("direction", "any")
            if sa == 0 and ((d == "increase_only" and b[i] < a[i]) or
                            (d == "decrease_only" and b[i] > a[i])):
                return False
    return keeps_advice_rules(schema, cap, a, b)


def keeps_advice_rules(schema, cap, a, b):
    """The cap on features changed, the change limits, the advice grid and the
    minimum change, checked on a whole answer `b` (the documented rules;
    staying is always allowed)."""
    if cap is not None and sum(1 for x, y in zip(a, b) if abs(x - y) > TOL) > cap:
        return False
    for i, f in enumerate(schema.features):
        if f["kind"] != "contiguous" or abs(a[i] - b[i]) <= TOL:
            continue
        sa, sb = schema.state(i, a[i]), schema.state(i, b[i])
        if sb != 0:
            continue
        act = f.get("actionability", {})
        step, m = advice_keys(f)
        if step > 0 and abs(b[i] / step - round(b[i] / step)) > 1e-9:
            return False
        if sa == 0:
            if m > 0 and abs(b[i] - a[i]) < m - TOL:
                return False
            if b[i] - a[i] > limit_amount(act.get("max_increase"), a[i]) + TOL:
                return False
            if a[i] - b[i] > limit_amount(act.get("max_decrease"), a[i]) + TOL:
                return False
    return True


def transition_allowed_value(schema, i, sa):
    return transition_allowed(schema, i, sa, 0)


def grid_of(f):
    if f.get("step"):
        return f["lower"], f["step"]
    if f.get("integer"):
        return 0.0, 1.0
    return None


# --------------------------------------------------------------------------
# The program
# --------------------------------------------------------------------------

class Program:
    def __init__(self):
        self.lower, self.upper, self.cost, self.integer = [], [], [], []
        self.rows = []  # (lo, hi, {col: coef})
        self.offset = 0.0

    def col(self, lo, hi, cost=0.0, integer=False):
        self.lower.append(lo)
        self.upper.append(hi)
        self.cost.append(cost)
        self.integer.append(integer)
        return len(self.lower) - 1

    def row(self, lo, hi, terms):
        acc = {}
        for c, v in terms:
            acc[c] = acc.get(c, 0.0) + v
        self.rows.append((lo, hi, acc))


def affine_add(a, b, scale=1.0):
    """a += scale·b for affine dicts {col or None (constant): coef}."""
    for k, v in b.items():
        a[k] = a.get(k, 0.0) + scale * v


def build(schema, layers, threshold, a, cap):
    """The MIP for applicant `a`; returns (program, decode info, unit counts)."""
    p = Program()
    inf = math.inf
    enc = []  # affine expression per encoded input
    feats = []  # per feature: list of options
    # Per feature the encoded range over its options (for the first layer's bounds).
    changed_cols = []
    for i, f in enumerate(schema.features):
        sa = schema.state(i, a[i])
        w = schema.weights(i)
        opts = []  # (binary col, kind, data)
        if f["kind"] == "categorical":
            n = len(f["levels"])
            width = n
            for j in range(n):
                if not transition_allowed(schema, i, sa, j):
                    continue
                c = 0.0 if j == sa else w["states"][sa] + w["states"][j]
                b = p.col(0.0, 1.0, c, True)
                sub = [0.0] * n
                sub[j] = 1.0
                opts.append({"bin": b, "kind": "point", "raw": float(j), "enc": sub,
                             "own": j == sa})
        else:
            sp = schema.specials(i)
            width = 1 + len(sp)
            lo_, hi_ = f["lower"], f["upper"]
            span = hi_ - lo_
            ind = lambda s: 0.0 if s == 0 else w["states"][s - 1]
            for s in range(1, len(sp) + 1):
                if not transition_allowed(schema, i, sa, s):
                    continue
                if s == sa:
                    c = 0.0
                else:
                    c = ind(s) + (ind(sa) if sa != 0 else 0.0)
                b = p.col(0.0, 1.0, c, True)
                sub = [f.get("fixed_value", 0.0)] + [1.0 if k == s else 0.0
                                                    for k in range(1, len(sp) + 1)]
                opts.append({"bin": b, "kind": "point", "raw": float(sp[s - 1]), "enc": sub,
                             "own": s == sa})
            pieces = value_pieces(schema, i, a[i], sa)
            own_inside = sa == 0 and advice_keys(f) == (0.0, 0.0) and len(pieces) == 1 and \
                pieces[0][0] - TOL <= a[i] <= pieces[0][1] + TOL
            if sa == 0 and not own_inside:
                b = p.col(0.0, 1.0, 0.0, True)
                sub = [schema.slot(i, a[i])] + [0.0] * len(sp)
                opts.append({"bin": b, "kind": "point", "raw": a[i], "enc": sub, "own": True})
            for vlo, vhi, grid in pieces:
                b = p.col(0.0, 1.0, 0.0 if sa == 0 else ind(sa), True)
                if grid is not None:
                    base, step = grid
                    kmax = round((vhi - vlo) / step)
                    k = p.col(0.0, kmax, 0.0, True)
                    x = p.col(0.0, max(vhi, 0.0), 0.0, False) if vlo >= 0 else \
                        p.col(min(vlo, 0.0), max(vhi, 0.0), 0.0, False)
                    # x = vlo·d + step·k, k ≤ kmax·d
                    p.row(0.0, 0.0, [(x, 1.0), (b, -vlo), (k, -step)])
                    p.row(-inf, 0.0, [(k, 1.0), (b, -kmax)])
                else:
                    x = p.col(min(vlo, 0.0), max(vhi, 0.0), 0.0, False)
                p.row(0.0, inf, [(x, 1.0), (b, -vlo)])   # x ≥ vlo·d
                p.row(-inf, 0.0, [(x, 1.0), (b, -vhi)])  # x ≤ vhi·d
                # slot = (x − L·d)/span ; cost W·|slot − ref·d|
                ref = schema.slot(i, a[i]) if sa == 0 else min(
                    max(w["anchor"], schema.slot(i, schema.action_range(i)[0])),
                    schema.slot(i, schema.action_range(i)[1]))
                if span > 0 and w["value"] > 0:
                    t = p.col(0.0, inf, w["value"], False)
                    # t ≥ (x − L d)/span − ref d ; t ≥ ref d − (x − L d)/span
                    p.row(0.0, inf, [(t, 1.0), (x, -1.0 / span), (b, lo_ / span + ref)])
                    p.row(0.0, inf, [(t, 1.0), (x, 1.0 / span), (b, -lo_ / span - ref)])
                opts.append({"bin": b, "kind": "value", "x": x, "lo": vlo, "hi": vhi,
                             "span": span, "L": lo_, "own": own_inside, "nsp": len(sp),
                             "grid": grid})
        if not opts:
            raise RuntimeError(f"feature {f['name']}: no option (the applicant's own?)")
        p.row(1.0, 1.0, [(o["bin"], 1.0) for o in opts])
        # Encoded inputs of the feature.
        sub = [dict() for _ in range(width)]
        for o in opts:
            if o["kind"] == "point":
                for e, v in enumerate(o["enc"]):
                    if v != 0.0:
                        affine_add(sub[e], {o["bin"]: v})
            elif o["span"] > 0:
                affine_add(sub[0], {o["x"]: 1.0 / o["span"], o["bin"]: -o["L"] / o["span"]})
        enc += sub
        feats.append(opts)
        # Changed or not (the cap).
        # A feature can change when it has another option or its own value
        # option spans more than one point.
        if cap is not None and (len(opts) > 1 or opts[0]["kind"] == "value"):
            c = p.col(0.0, 1.0, 0.0, True)
            own = [o for o in opts if o["own"]]
            # c ≥ 1 − (own option's binary)
            p.row(1.0, inf, [(c, 1.0)] + [(o["bin"], 1.0) for o in own])
            for o in own:
                if o["kind"] == "value":
                    # |x − a·d| ≤ (range)·c
                    p.row(-inf, 0.0, [(o["x"], 1.0), (o["bin"], -a[i]), (c, -(o["hi"] - a[i]))])
                    p.row(-inf, 0.0, [(o["x"], -1.0), (o["bin"], a[i]), (c, -(a[i] - o["lo"]))])
            changed_cols.append(c)
    if cap is not None and changed_cols:
        p.row(-inf, cap, [(c, 1.0) for c in changed_cols])
    # Per feature, the encoded sub-vectors of each option at its extremes.
    extremes = []
    for opts in feats:
        pts = []
        for o in opts:
            if o["kind"] == "point":
                pts.append(o["enc"])
            else:
                for x in (o["lo"], o["hi"]):
                    s = (x - o["L"]) / o["span"] if o["span"] > 0 else 0.0
                    pts.append([s] + [0.0] * o["nsp"])
        extremes.append(pts)
    # The network.
    h = enc
    counts = {"dead": 0, "linear": 0, "unstable": 0}
    prev = None
    for k, layer in enumerate(layers):
        n_in, n_out = layer["n_in"], layer["n_out"]
        W, bias = layer["weights"], layer["bias"]
        z = []
        for o in range(n_out):
            row = W[o * n_in:(o + 1) * n_in]
            e = {None: bias[o]}
            for wi, hi in zip(row, h):
                if wi != 0.0:
                    affine_add(e, hi, wi)
            z.append(e)
        if k == len(layers) - 1:
            const = z[0].pop(None, 0.0)
            need = math.log(threshold / (1 - threshold)) + MARGIN
            p.row(need - const, inf, list(z[0].items()))
            break
        bounds = []
        for o in range(n_out):
            row = W[o * n_in:(o + 1) * n_in]
            if k == 0:
                lo = hi = bias[o]
                start = 0
                for pts in extremes:
                    width = len(pts[0])
                    vals = [sum(row[start + e] * pt[e] for e in range(width)) for pt in pts]
                    lo += min(vals)
                    hi += max(vals)
                    start += width
            else:
                lo = hi = bias[o]
                for wi, (pl, ph) in zip(row, prev):
                    lo += min(wi * pl, wi * ph)
                    hi += max(wi * pl, wi * ph)
            # Widened a little: the bounds are attained with equality.
            bounds.append((lo - 1e-7 * (abs(lo) + 1), hi + 1e-7 * (abs(hi) + 1)))
        relu = layer["activation"] == "relu"
        nxt, nb = [], []
        for o in range(n_out):
            lo, hi = bounds[o]
            e = dict(z[o])
            const = e.pop(None, 0.0)
            if not relu:
                nxt.append(z[o])
                nb.append((lo, hi))
                continue
            if hi <= 0:
                counts["dead"] += 1
                nxt.append({})
                nb.append((0.0, 0.0))
                continue
            y = p.col(max(lo, 0.0), hi)
            terms = [(y, 1.0)] + [(c, -v) for c, v in e.items()]
            if lo >= 0:
                counts["linear"] += 1
                p.row(const, const, terms)  # y − Σ = const
            else:
                counts["unstable"] += 1
                d = p.col(0.0, 1.0, 0.0, True)
                p.row(const, inf, terms)                           # y ≥ z
                p.row(-inf, const - lo, terms + [(d, -lo)])        # y ≤ z − L(1 − δ)
                p.row(-inf, 0.0, [(y, 1.0), (d, -hi)])             # y ≤ Uδ
            nxt.append({y: 1.0})
            nb.append((max(lo, 0.0), hi))
        h, prev = nxt, nb
    return p, feats, counts


def solve(p, limit):
    import highspy
    import numpy as np
    h = highspy.Highs()
    for k, v in [("output_flag", False), ("threads", 1), ("random_seed", 0),
                 ("mip_rel_gap", 1e-9), ("mip_abs_gap", 1e-9), ("time_limit", float(limit)),
                 ("primal_feasibility_tolerance", 1e-9), ("mip_feasibility_tolerance", 1e-9)]:
        h.setOptionValue(k, v)
    inf = highspy.kHighsInf
    fix = lambda xs: np.array([inf if x == math.inf else (-inf if x == -math.inf else x)
                               for x in xs], dtype=float)
    lp = highspy.HighsLp()
    n, m = len(p.cost), len(p.rows)
    lp.num_col_, lp.num_row_ = n, m
    lp.offset_ = p.offset
    lp.col_cost_ = np.array(p.cost, dtype=float)
    lp.col_lower_, lp.col_upper_ = fix(p.lower), fix(p.upper)
    lp.row_lower_ = fix([r[0] for r in p.rows])
    lp.row_upper_ = fix([r[1] for r in p.rows])
    start, index, value = [0], [], []
    for _, _, terms in p.rows:
        for c, v in terms.items():
            if v != 0.0:
                index.append(c)
                value.append(v)
        start.append(len(index))
    lp.a_matrix_.format_ = highspy.MatrixFormat.kRowwise
    lp.a_matrix_.num_col_, lp.a_matrix_.num_row_ = n, m
    lp.a_matrix_.start_ = np.array(start, dtype=np.int32)
    lp.a_matrix_.index_ = np.array(index, dtype=np.int32)
    lp.a_matrix_.value_ = np.array(value, dtype=float)
    lp.integrality_ = [highspy.HighsVarType.kInteger if b else highspy.HighsVarType.kContinuous
                       for b in p.integer]
    h.passModel(lp)
    h.run()
    st = h.getModelStatus()
    if st == highspy.HighsModelStatus.kOptimal:
        return "optimal", list(h.getSolution().col_value)
    if st == highspy.HighsModelStatus.kInfeasible:
        return "infeasible", None
    info = h.getInfo()
    if info.primal_solution_status == 2:
        return "unproven", list(h.getSolution().col_value)
    return "unproven", None


def decode(schema, feats, a, x):
    row = []
    for i, opts in enumerate(feats):
        chosen = max(opts, key=lambda o: x[o["bin"]])
        if chosen["kind"] == "point":
            row.append(chosen["raw"])
        else:
            v = x[chosen["x"]]
            grid = chosen["grid"]
            if grid is not None:
                base, step = grid
                v = base + round((v - base) / step) * step
            v = min(max(v, chosen["lo"]), chosen["hi"])
            row.append(float(v))
    return row


def forward(layers, v):
    import numpy as np
    h = np.array(v, dtype=float)
    for layer in layers:
        W = np.array(layer["weights"], dtype=float).reshape(layer["n_out"], layer["n_in"])
        h = W @ h + np.array(layer["bias"], dtype=float)
        if layer["activation"] == "relu":
            h = np.maximum(h, 0.0)
    return float(h[0])


def run_case(name, n, limit, peer_limit):
    data, hidden, preset = CASES[name]
    path = os.path.join(OUT, f"mlp_{name}.json")
    cmd = ["cargo", "run", "--release", "-q", "--example", "mlp_peers_export", "--",
           data, hidden, str(n), path, "--limit", str(limit)] + (["--preset"] if preset else [])
    if not (REUSE and os.path.exists(path)):
        subprocess.check_call(cmd, cwd=ROOT)
    doc = json.load(open(path))
    schema = Schema(doc["schema"])
    cap = doc["schema"].get("max_features_changed")
    layers = doc["model"]["network"]["layers"]
    thr = doc["model"]["threshold"]
    logit_t = math.log(thr / (1 - thr))
    results = []
    for k, (a, cf) in enumerate(zip(doc["applicants"], doc["cfx"])):
        t = time.perf_counter()
        p, feats, counts = build(schema, layers, thr, a, cap)
        status, x = solve(p, peer_limit)
        ms = (time.perf_counter() - t) * 1e3
        r = {"outcome": status, "ms": ms, "units": counts, "cost": None, "raw": None}
        if x is not None:
            raw = decode(schema, feats, a, x)
            r["raw"] = raw
            r["objective"] = sum(c * v for c, v in zip(p.cost, x))
            r["cost"] = schema.cost(a, raw)
            r["score"] = forward(layers, schema.encode_lenient(raw))
            r["accepted"] = r["score"] > logit_t
            r["coherent"] = all(schema.state(i, raw[i]) is not None for i in range(len(raw)))
            r["actionable"] = rules_kept(schema, cap, a, raw)
        if cf["raw"] is not None:
            r["cfx_score"] = forward(layers, schema.encode_lenient(cf["raw"]))
            r["cfx_accepted"] = r["cfx_score"] > logit_t
            r["cfx_cost_here"] = schema.cost(a, cf["raw"])
            r["cfx_actionable"] = rules_kept(schema, cap, a, cf["raw"])
        print(f"  {name} #{k}: peer {status} {r['cost']} ({ms:.0f} ms, {counts['unstable']} "
              f"unstable) | cfx {cf['outcome']} {cf['cost']} ({cf['ms']:.0f} ms)", file=sys.stderr)
        results.append(r)
    json.dump({"case": name, "limit": peer_limit, "results": results},
              open(os.path.join(OUT, f"mlp_{name}_peer.json"), "w"), indent=1)
    both, equal, worst, ok = 0, 0, 0.0, True
    for r, cf in zip(results, doc["cfx"]):
        if r["outcome"] in ("optimal", "infeasible") and cf["outcome"] in ("optimal", "infeasible"):
            both += 1
            if r["outcome"] == "infeasible" or cf["outcome"] == "infeasible":
                same = r["outcome"] == cf["outcome"]
            else:
                d = abs(r["cost"] - cf["cost"]) / max(abs(cf["cost"]), 1e-12)
                worst = max(worst, d)
                same = d <= REL_TOL
            equal += same
            ok &= same
        for key in ("accepted", "cfx_accepted", "coherent", "actionable", "cfx_actionable"):
            if key in r:
                ok &= bool(r[key])
    proven = lambda xs: sum(1 for r in xs if r["outcome"] in ("optimal", "infeasible"))
    line = (f"mlp_peers: {name}: peer proven {proven(results)}/{len(results)}, cfx proven "
            f"{proven(doc['cfx'])}/{len(results)}, equal costs on {equal}/{both} (max rel diff "
            f"{worst:.1e}), every answer accepted by the forward pass: "
            f"{'yes' if ok else 'no'}; peer median "
            f"{sorted(r['ms'] for r in results)[len(results) // 2]:.0f} ms")
    return line, ok


def main():
    args = sys.argv[1:]
    n, limit = 20, 300.0
    if "--n" in args:
        n = int(args[args.index("--n") + 1])
    if "--limit" in args:
        limit = float(args[args.index("--limit") + 1])
    peer_limit = limit
    if "--peer-limit" in args:
        peer_limit = float(args[args.index("--peer-limit") + 1])
    skip = {args[k + 1] for k, a in enumerate(args) if a in ("--n", "--limit", "--peer-limit")}
    cases = [a for a in args if not a.startswith("--") and a not in skip] or [
        c for c in CASES if c != "heloc-1x200-preset"]
    os.makedirs(OUT, exist_ok=True)
    lines, ok = [], True
    for c in cases:
        line, good = run_case(c, n, limit, peer_limit)
        print(line, flush=True)
        lines.append(line)
        ok &= good
    sys.exit(0 if ok else 1)


if __name__ == "__main__":
    sys.path.insert(0, HERE)
    import peer_venv
    peer_venv.enter(VENV, PINS, __file__)
    main()
