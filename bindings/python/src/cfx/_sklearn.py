"""Fitted scikit-learn gradient boosting read into a cfx tree ensemble, exactly or refused.

`GradientBoostingClassifier` and `HistGradientBoostingClassifier` (binary, log loss) fitted on
the schema's raw rows (`Model.predict_raw`'s order: one column per feature, a categorical as its
level index, a special state as its code) become cfx's tree JSON (`"source": "sklearn"`):

- `GradientBoostingClassifier` predicts with `DecisionTreeRegressor` trees on **float32** inputs
  (`X` is cast to float32, the float64 threshold compared with `<=`: cfx's `onnx_f32` "leq" test),
  adds `learning_rate * value` of each stage's leaf in float64 to the initial raw prediction
  (`_raw_predict_init`: the log-odds of the training prior for the default `init`), stage after
  stage — cfx stores each leaf as that product and sums as scikit-learn does (base first, then
  the trees in order, in float64), so the margin is bit for bit `decision_function`.
  `loss="exponential"` (`predict_proba = expit(2·raw)`) is read with every leaf and the base
  doubled (a power of two: exact), so cfx's margin is `2·decision_function`.
- `HistGradientBoostingClassifier` compares the **float64** input with each node's
  `num_threshold` (`<=`, NaN following `missing_go_to_left`; an infinite threshold — every finite
  value goes left — is stored as the largest float64), its leaves already carry the learning rate,
  and it adds them to `_baseline_prediction` in float64. With `categorical_features`, its
  `_preprocessor` (an `OrdinalEncoder` in a `ColumnTransformer`) puts the categorical columns
  first and codes each raw value by its rank in `categories_`; cfx maps every schema level back
  through it (a level the encoder never saw goes the node's missing way, as scikit-learn sends
  unknown categories) and reads the split's bitset of codes.

A numeric split on a categorical feature's level index becomes a level test (each level goes
where its index goes). What cannot be read exactly is refused with the reason (`ValueError`).
The Python binding's tests check every reading against the estimator's own `decision_function`
and `predict_proba` on every row.
"""

import json

import numpy as np

_F64_MAX = float(np.finfo(np.float64).max)


def _inputs(schema):
    """cfx's `inputs` of a tree ensemble: one per schema feature, a copy of its definition."""
    out = []
    for f in schema.features:
        if f["kind"] == "categorical":
            out.append({"kind": "levels", "name": f["name"], "levels": len(f["levels"])})
            continue
        d = {"kind": "value", "name": f["name"], "lower": f["lower"], "upper": f["upper"]}
        if f.get("step") is not None:
            d["grid"] = [f["lower"], f["step"]]
        elif f.get("integer"):
            d["grid"] = [0.0, 1.0]
        d["specials"] = [{"code": s["code"]} for s in f.get("special_states", [])]
        out.append(d)
    return out


class _Builder:
    """Accumulates the flat node array of cfx's tree JSON."""

    def __init__(self, schema):
        self.features = schema.features
        self.nodes = []
        self.roots = []
        self.level_left = []

    def levels(self, f):
        return len(self.features[f]["levels"]) if self.features[f]["kind"] == "categorical" else None

    def tree(self, walk):
        """Adds one tree; `walk(k)` returns ("leaf", value) or
        ("split", test, feature, threshold, default_left, left_k, right_k, level_left)."""
        self.roots.append(self._add(walk, 0))

    def _add(self, walk, k):
        here = len(self.nodes)
        w = walk(k)
        if w[0] == "leaf":
            self.nodes.append({"test": "leaf", "value": float(w[1])})
            return here
        _, test, feature, threshold, default_left, lk, rk, level_left = w
        node = {"feature": int(feature), "default_left": bool(default_left)}
        if level_left is not None:
            node["test"] = {"levels": len(self.level_left)}
            self.level_left.extend(bool(b) for b in level_left)
        else:
            node["test"] = test
            node["threshold"] = float(threshold)
        self.nodes.append(node)
        node["left"] = self._add(walk, lk)
        node["right"] = self._add(walk, rk)
        return here


def _check_binary(est, name):
    classes = list(getattr(est, "classes_", []))
    if len(classes) != 2:
        raise ValueError(f"cfx: {name} has classes_ {classes}; cfx reads binary classifiers")
    return [c.item() if hasattr(c, "item") else c for c in classes]


def _check_width(est, schema, name):
    n = getattr(est, "n_features_in_", None)
    if n != schema.n_features:
        raise ValueError(
            f"cfx: {name} was fitted on {n} columns, the schema has {schema.n_features} features: "
            "fit it on the schema's raw rows (one column per feature in schema order, a "
            "categorical as its level index, a special state as its code)"
        )
    names = getattr(est, "feature_names_in_", None)
    if names is not None and list(names) != schema.feature_names:
        raise ValueError(
            f"cfx: {name} was fitted on the columns {list(names)}, not the schema's features "
            f"{schema.feature_names} in order"
        )


def gradient_boosting(schema, est):
    """(cfx tree JSON fields, report lines) of a fitted `GradientBoostingClassifier`."""
    name = "GradientBoostingClassifier"
    _check_binary(est, name)
    _check_width(est, schema, name)
    loss = getattr(est, "loss", "log_loss")
    if loss not in ("log_loss", "exponential"):
        raise ValueError(f"cfx: {name}(loss={loss!r}) is not read; cfx reads log_loss and exponential")
    init = getattr(est, "init", None)
    if init not in (None, "zero"):
        raise ValueError(
            f"cfx: {name}(init={type(init).__name__}) starts from another estimator's predictions, "
            "which cfx cannot represent as trees; refit with init=None (the prior) or 'zero'"
        )
    x0 = np.zeros((1, schema.n_features))
    base = float(np.asarray(est._raw_predict_init(x0)).reshape(-1)[0])
    scale = 2.0 if loss == "exponential" else 1.0
    lr = float(est.learning_rate)
    b = _Builder(schema)
    for stage in est.estimators_[:, 0]:
        t = stage.tree_
        go_left = getattr(t, "missing_go_to_left", None)

        def walk(k, t=t, go_left=go_left):
            if t.children_left[k] == -1:
                return ("leaf", scale * (lr * float(t.value[k, 0, 0])))
            f = int(t.feature[k])
            thr = float(t.threshold[k])
            dl = bool(go_left[k]) if go_left is not None else False
            n = b.levels(f)
            ll = None if n is None else [float(np.float32(j)) <= thr for j in range(n)]
            return ("split", {"onnx_f32": "leq"}, f, thr, dl, t.children_left[k], t.children_right[k], ll)

        b.tree(walk)
    report = [
        f"scikit-learn {name}: {len(b.roots)} trees (estimators_), float32 inputs compared with "
        "<= the float64 thresholds, learning_rate × leaf value summed in float64 after the "
        f"initial raw prediction {base!r}",
    ]
    if loss == "exponential":
        report.append("loss exponential: every leaf and the base doubled (exact), so cfx's margin is "
                      "2 × decision_function and its probability predict_proba's")
    return b, scale * base, report


def hist_gradient_boosting(schema, est):
    """(builder, base, report lines) of a fitted `HistGradientBoostingClassifier`."""
    name = "HistGradientBoostingClassifier"
    _check_binary(est, name)
    _check_width(est, schema, name)
    loss = getattr(est, "loss", "log_loss")
    if loss != "log_loss":
        raise ValueError(f"cfx: {name}(loss={loss!r}) is not read; cfx reads log_loss")
    if len(est._predictors) and len(est._predictors[0]) != 1:
        raise ValueError(f"cfx: {name} has {len(est._predictors[0])} trees per iteration (multiclass)")
    n = schema.n_features
    # Column j of what the predictors see comes from raw column src[j]; codes[j] maps a
    # categorical's raw value to the encoder's code.
    src, codes = list(range(n)), [None] * n
    pre = getattr(est, "_preprocessor", None)
    if pre is not None:
        src, codes = [], []
        for tname, tr, cols in pre.transformers_:
            cols = np.asarray(cols)
            idx = list(np.flatnonzero(cols)) if cols.dtype == bool else [int(c) for c in cols]
            if tname == "remainder" and (tr == "drop" or not idx):
                continue
            if tname == "encoder":
                for c, cats in zip(idx, tr.categories_):
                    src.append(c)
                    codes.append({float(v): i for i, v in enumerate(cats) if v == v})
            elif tname == "numerical" or tr == "passthrough":
                for c in idx:
                    src.append(c)
                    codes.append(None)
            else:
                raise ValueError(f"cfx: {name}'s preprocessor step {tname!r} is not read")
        if sorted(src) != list(range(n)):
            raise ValueError(f"cfx: {name}'s preprocessor does not pass every column once")
    b = _Builder(schema)
    for (pred,) in est._predictors:
        nodes = pred.nodes
        bits = pred.raw_left_cat_bitsets

        def walk(k, nodes=nodes, bits=bits):
            nd = nodes[k]
            if nd["is_leaf"]:
                return ("leaf", float(nd["value"]))
            j = int(nd["feature_idx"])
            f = src[j]
            dl = bool(nd["missing_go_to_left"])
            levels = b.levels(f)
            if nd["is_categorical"]:
                if levels is None:
                    raise ValueError(
                        f"cfx: {name} splits feature {schema.feature_names[f]!r} as a category; the "
                        "schema has it contiguous: make it categorical in the schema or refit"
                    )
                bs = bits[int(nd["bitset_idx"])]
                ll = []
                for lv in range(levels):
                    code = codes[j].get(float(lv)) if codes[j] is not None else lv
                    ll.append(dl if code is None else bool((int(bs[code // 32]) >> (code % 32)) & 1))
                return ("split", None, f, 0.0, dl, int(nd["left"]), int(nd["right"]), ll)
            thr = float(nd["num_threshold"])
            if thr == float("inf"):
                thr = _F64_MAX  # every finite value goes left, as x <= inf
            elif not np.isfinite(thr):
                raise ValueError(f"cfx: {name} has a split at {thr}")
            ll = None
            if levels is not None:
                if codes[j] is not None:
                    raise ValueError(f"cfx: {name}: a numeric split on an encoded categorical column")
                ll = [float(lv) <= thr for lv in range(levels)]
            return ("split", {"onnx_f64": "leq"}, f, thr, dl, int(nd["left"]), int(nd["right"]), ll)

        b.tree(walk)
    base = float(np.asarray(est._baseline_prediction).reshape(-1)[0])
    report = [
        f"scikit-learn {name}: {len(b.roots)} trees (_predictors), float64 inputs compared with "
        "<= num_threshold (NaN by missing_go_to_left), leaves summed in float64 after the baseline "
        f"{base!r}" + ("; categorical columns mapped through its OrdinalEncoder" if pre is not None else ""),
    ]
    return b, base, report


def tree_model_json(schema, b, base, report, favourable_index, threshold):
    """cfx's model JSON of the built trees: class 1 favourable as they stand, class 0 with every
    leaf and the base negated (exact) and the cutoff turned round."""
    nodes = b.nodes
    if favourable_index == 0:
        nodes = [dict(nd, value=-nd["value"]) if nd["test"] == "leaf" else nd for nd in nodes]
        base = -base
        report = report + [
            f"favourable class: index 0 of classes_ (declared); cfx's score is minus the "
            f"estimator's margin, accepted when its probability of class 1 is below {threshold}"
        ]
        threshold = 1.0 - threshold
    else:
        report = report + [
            f"favourable class: index 1 of classes_ (declared); accepted when the estimator's "
            f"probability of class 1 is above {threshold}"
        ]
    return json.dumps({
        "format_version": 1,
        "kind": "trees",
        "source": "sklearn",
        "base_score": base,
        "threshold": threshold,
        "inputs": _inputs(schema),
        "roots": b.roots,
        "nodes": nodes,
        "level_left": b.level_left,
        "import_report": report,
    })
