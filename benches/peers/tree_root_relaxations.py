"""How far stronger relaxations would lift the tree search's root bounds (issue 43).

The roots come from `cargo run --release --example portfolio -- heloc-xgb 1000 1 search roots=8`
(the eight declined applicants of the book's first 1,000 rows whose searches took the most
nodes; `TreeSearch::root_leaves`: per tree, the leaves reachable from the applicant's own
leaf up, each with its positive extra cost per feature, overall and per class of options —
below the applicant's value, above it, the rest — exactly as the feature-budget bound reads
them, with the proven optimum). For each root this prints:

* `budget`: the feature-budget bound recomputed here from the root's leaves (each leaf's gain
  over its tree's best zero-extra leaf shared among its features in proportion to the squares
  of their extras, as cfx shares it since the twelfth round; per feature and class the sum over trees of each tree's largest share within an
  extra; the least total extra whose gains reach the need, a multiple-choice knapsack solved
  by HiGHS). It must equal cfx's root bound (the check of the dump and of this script);
* `whole leaves`: the relaxation that keeps each tree's leaf whole — every tree takes one
  reachable leaf, each feature one class and one budget at least every chosen leaf's extra in
  it, the values reaching the need, the least total budget (a MIP, HiGHS, 120 s) — and the
  same without the classes;
* `best pair`: the budget bound with two features' shares merged into one group whose choices
  are pairs of budgets (the best pair among the five features most leaves move);
* the budget bound under other splits of a leaf's gain: equally, in proportion to the extras
  (cfx's split until the twelfth round), by square roots of extras, all to the dearest
  feature.

Every one is a lower bound on the optimum (each relaxes the answer's one option per feature
differently); the question is how much of the gap between cfx's root bound and the optimum
each closes. Figures in BENCHMARKS.md §4, eleventh round. Runs in its own environment
(pinned highspy and numpy, peer_venv.py)."""

import glob
import itertools
import json
import math
import os
import sys

import peer_venv

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.abspath(os.path.join(HERE, "..", ".."))
VENV = os.path.join(HERE, ".venv-relax")
PINS = ["highspy==1.16.0", "numpy==2.4.6"]
CLASSES = 3


def new_model(time_limit):
    import highspy
    h = highspy.Highs()
    h.setOptionValue("output_flag", False)
    h.setOptionValue("threads", 1)
    h.setOptionValue("time_limit", float(time_limit))
    return h


def add_binary(h, cost=0.0):
    import highspy
    j = h.getNumCol()
    h.addVar(0, 1)
    h.changeColIntegrality(j, highspy.HighsVarType.kInteger)
    if cost:
        h.changeColCost(j, cost)
    return j


def add_row(h, lo, hi, cols, vals):
    import numpy as np
    h.addRow(lo, hi, len(cols), np.array(cols, dtype=np.int32), np.array(vals, dtype=float))


def knapsack(groups, want):
    """The least total extra of at most one (extra, gain) choice per group whose gains reach
    `want` (infinite when none does)."""
    import highspy
    if want <= 0:
        return 0.0
    h = new_model(60)
    cols, gains = [], []
    for choices in groups.values():
        mine = [add_binary(h, e) for e, _ in choices]
        add_row(h, -highspy.kHighsInf, 1, mine, [1.0] * len(mine))
        cols += mine
        gains += [g for _, g in choices]
    add_row(h, want, highspy.kHighsInf, cols, gains)
    h.run()
    if h.modelStatusToString(h.getModelStatus()) != "Optimal":
        return math.inf
    return h.getInfo().objective_function_value


def gainful(root):
    """Per tree, its best zero-extra value z and its leaves with a gain over it: (gain,
    extras), extras (feature, extra, per-class extras)."""
    out = []
    for leaves in root["trees"]:
        z = max(l["value"] for l in leaves if not l["extras"])
        out.append((z, [(l["value"] - z, l["extras"]) for l in leaves
                        if l["extras"] and l["value"] > z]))
    return out


def squares(es):
    """cfx's split of a leaf's gain: weights the squares of the extras, scaled by the
    largest (`GainSplit` in src/coherent/tree_budget.rs)."""
    top = max(es)
    return [(e / top) ** 2 for e in es]


def budget_bound(root, split=squares, groups_of=None):
    """The feature-budget bound with leaf gains shared by `split` (weights per extra), the
    features in `groups_of` (tuples) merged into one knapsack group each."""
    trees = gainful(root)
    want = root["need"] - root["base_score"] - sum(z for z, _ in trees)
    groups_of = groups_of or []
    group = {f: i for i, fs in enumerate(groups_of) for f in fs}
    # Per knapsack group, per tree: (requirements {feature: per-class extras}, share).
    items = {}
    for t, (_, leaves) in enumerate(trees):
        for gain, extras in leaves:
            w = split([e for _, e, _ in extras])
            total = sum(w)
            per_group = {}
            for (f, _, by_class), wf in zip(extras, w):
                key = ("g", group[f]) if f in group else ("f", f)
                req, share = per_group.get(key, ({}, 0.0))
                req[f] = by_class
                per_group[key] = (req, share + gain * wf / total)
            for key, (req, share) in per_group.items():
                items.setdefault(key, {}).setdefault(t, []).append((req, share))
    choices = {}
    for key, per_tree in items.items():
        feats = sorted({f for lst in per_tree.values() for req, _ in lst for f in req})
        levels = {f: sorted({(c, ec[c]) for lst in per_tree.values() for req, _ in lst
                             if f in req for ec in [req[f]] for c in range(CLASSES)
                             if ec[c] is not None} | {(None, 0.0)}, key=lambda x: x[1])
                  for f in feats}
        found = []
        for combo in itertools.product(*(levels[f] for f in feats)):
            cost = sum(d for _, d in combo)
            if cost == 0:
                continue
            budget = dict(zip(feats, combo))
            value = 0.0
            for lst in per_tree.values():
                best = 0.0
                for req, share in lst:
                    if share > best and all(
                            budget[f][0] is not None and ec[budget[f][0]] is not None
                            and ec[budget[f][0]] <= budget[f][1] for f, ec in req.items()):
                        best = share
                value += best
            if value > 0:
                found.append((cost, value))
        if found:
            choices[key] = found
    return knapsack(choices, want)


def whole_leaves(root, classes=True, time_limit=120):
    """The least total budget with one reachable leaf per tree, each feature one class (with
    `classes`) and a budget at least every chosen leaf's extra, the values reaching the need
    (HiGHS MIP): (value, status)."""
    import highspy
    inf = highspy.kHighsInf
    h = new_model(time_limit)
    feats = sorted({f for leaves in root["trees"] for l in leaves for f, _, _ in l["extras"]})
    budget = {}
    for f in feats:
        budget[f] = h.getNumCol()
        h.addVar(0, inf)
        h.changeColCost(budget[f], 1.0)
    way = {}
    if classes:
        for f in feats:
            for c in range(CLASSES):
                way[f, c] = add_binary(h)
            add_row(h, -inf, 1, [way[f, c] for c in range(CLASSES)], [1.0] * CLASSES)
    cols, values = [], []
    for leaves in root["trees"]:
        mine = []
        for l in leaves:
            x = add_binary(h)
            mine.append(x)
            cols.append(x)
            values.append(l["value"])
            for f, e, by_class in l["extras"]:
                if classes:
                    cs = [c for c in range(CLASSES) if by_class[c] is not None]
                    add_row(h, -inf, 0, [x] + [way[f, c] for c in cs], [1.0] + [-1.0] * len(cs))
                    for c in cs:
                        e_c = by_class[c]
                        add_row(h, -inf, e_c, [x, way[f, c], budget[f]], [e_c, e_c, -1.0])
                else:
                    add_row(h, -inf, 0, [x, budget[f]], [e, -1.0])
        add_row(h, 1, 1, mine, [1.0] * len(mine))
    add_row(h, root["need"] - root["base_score"], inf, cols, values)
    h.run()
    status = h.modelStatusToString(h.getModelStatus())
    info = h.getInfo()
    # At the time limit the proven bound, not the incumbent, is the relaxation's lower bound.
    return (info.objective_function_value if status == "Optimal" else info.mip_dual_bound), status


def most_moved(root, k):
    count = {}
    for leaves in root["trees"]:
        for l in leaves:
            for f, _, _ in l["extras"]:
                count[f] = count.get(f, 0) + 1
    return [f for f, _ in sorted(count.items(), key=lambda x: (-x[1], x[0]))][:k]


def main():
    peer_venv.enter(VENV, PINS, __file__)
    paths = sys.argv[1:] or sorted(glob.glob(os.path.join(ROOT, "target/peers/tree_roots/*.json")))
    if not paths:
        sys.exit("no roots: run `cargo run --release --example portfolio -- heloc-xgb 1000 1 "
                 "search roots=8` first")
    bad = 0
    for p in paths:
        d = json.load(open(p))
        root, opt = d["root"], d["optimum"]
        budget = budget_bound(root)
        if abs(budget - root["bound"]) > 1e-9 * max(1.0, abs(budget)):
            print(f"MISMATCH: {p}: budget bound here {budget!r}, cfx {root['bound']!r}",
                  file=sys.stderr)
            bad += 1
        whole, status = whole_leaves(root)
        whole_any, _ = whole_leaves(root, classes=False)
        pairs = {fs: budget_bound(root, groups_of=[fs])
                 for fs in itertools.combinations(most_moved(root, 5), 2)}
        pair = max(pairs, key=lambda fs: (pairs[fs], fs))
        splits = {
            "equal": lambda es: [1.0] * len(es),
            "proportional": lambda es: es,
            "sqrt": lambda es: [math.sqrt(e) for e in es],
            "dearest": lambda es: [1.0 if e == max(es) else 1e-12 for e in es],
        }
        other = " ".join(f"{k} {budget_bound(root, split=s):.3f}" for k, s in splits.items())
        frac = lambda b: b / opt
        print(f"applicant {d['applicant']} ({d['nodes']} nodes): optimum {opt:.3f}, cfx root "
              f"{root['bound']:.3f} ({frac(root['bound']):.2f}), budget here {budget:.3f}; "
              f"whole leaves {whole:.3f} ({frac(whole):.2f}, {status}), without classes "
              f"{whole_any:.3f}; best pair {pair} {pairs[pair]:.3f} ({frac(pairs[pair]):.2f}); "
              f"splits: {other}", flush=True)
    sys.exit(1 if bad else 0)


if __name__ == "__main__":
    main()
