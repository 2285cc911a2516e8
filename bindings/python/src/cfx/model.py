"""Models over the encoded space: logistic, MLP, points scorecard, tree ensembles.

Models fitted elsewhere come in without hand-copying weights: `Model.from_sklearn`
(a fitted scikit-learn `LogisticRegression`, `GradientBoostingClassifier` or
`HistGradientBoostingClassifier`), `Model.from_xgboost` (a Booster, its
JSON or a saved file), `Model.from_lightgbm`, `Model.from_catboost`, `Model.from_ebm`; scorecards through
`cfx.ScorecardImport` (optbinning's table)."""

import json
import os
from collections import namedtuple
from ctypes import POINTER, byref, c_char_p, c_double, c_int32, c_size_t, c_uint8, cast

import numpy as np

from . import _native as n
from ._enums import ModelKind, values_to_names
from ._native import Handle, cstr

KINDS = values_to_names(ModelKind)

Prediction = namedtuple("Prediction", "score probability accepted")


def _options(options):
    if options is None:
        return None
    return cstr(options if isinstance(options, str) else json.dumps(options), "options")


def _as_dict(options):
    if options is None:
        return {}
    if isinstance(options, str):
        return json.loads(options)
    return dict(options)


def _set_option(options, key, value, where):
    """Sets a read-off setting, refusing one the caller's options contradict."""
    if key in options and options[key] != value:
        raise ValueError(
            f"cfx: options say {key}={options[key]!r} but the {where} says {value!r}"
        )
    options[key] = value


def _favourable(model, options, favourable):
    """Reads which class is favourable: `favourable` is a label of the live object's
    ``classes_`` (mapped to its class index) or, without ``classes_``, the index 0 or 1."""
    if favourable is None:
        return options
    options = _as_dict(options)
    classes = getattr(model, "classes_", None)
    if classes is not None:
        classes = [c.item() if hasattr(c, "item") else c for c in classes]
        if len(classes) != 2:
            raise ValueError(f"cfx: a binary classifier has two classes_, this one {classes}")
        if favourable not in classes:
            raise ValueError(
                f"cfx: favourable={favourable!r} is not one of the model's classes_ {classes}"
            )
        index = classes.index(favourable)
    elif favourable in (0, 1):
        index = int(favourable)
    else:
        raise ValueError(
            f"cfx: favourable={favourable!r}: without a live classifier's classes_ give the class "
            "index, 0 or 1"
        )
    _set_option(options, "favourable_class", index, "model's classes_ with favourable")
    return options


def _xgboost_missing(model, options):
    """A live XGBoost sklearn estimator's `missing` (NaN needs no option)."""
    if not hasattr(model, "missing"):
        return options
    m = model.missing
    try:
        m = float(m)
    except (TypeError, ValueError):
        raise ValueError(f"cfx: cannot read XGBoost's missing={model.missing!r}") from None
    if m != m:  # NaN, XGBoost's default
        return options
    if m in (float("inf"), float("-inf")):
        raise ValueError(f"cfx: XGBoost's missing={m} is not read (only NaN or a finite value)")
    options = _as_dict(options)
    _set_option(options, "missing", m, "model's missing")
    return options


def _catboost_json(schema, model):
    """A live CatBoost model's JSON, saved with a pool of the schema's categorical levels so
    that CatBoost itself writes each level's hash (`cat_features_hash`)."""
    import tempfile

    cat_idx = list(model.get_cat_feature_indices())
    pool = None
    if cat_idx:
        import pandas as pd
        from catboost import Pool

        names = list(model.feature_names_)
        levels = {f["name"]: f.get("levels") for f in schema.features}
        cols = {}
        width = 1
        for i in cat_idx:
            lv = levels.get(names[i])
            if not lv:
                raise ValueError(
                    f"cfx: CatBoost categorical feature {names[i]!r} is not a categorical feature "
                    "of the schema"
                )
            width = max(width, len(lv))
        for i, name in enumerate(names):
            if i in cat_idx:
                lv = levels[name]
                cols[name] = [lv[k % len(lv)] for k in range(width)]
            else:
                cols[name] = [0.0] * width
        pool = Pool(pd.DataFrame(cols), cat_features=cat_idx)
    with tempfile.TemporaryDirectory() as d:
        path = os.path.join(d, "model.json")
        model.save_model(path, format="json", pool=pool)
        with open(path) as f:
            return f.read()


class Model(Handle):
    """An immutable model (`cfx_model`); inputs are encoded rows (`Schema.encode`)."""

    _free_name = "cfx_model_free"

    # Construction ----------------------------------------------------------

    @classmethod
    def linear(cls, weights, bias, threshold=0.5):
        """Logistic regression `score = w·x + b`, accepted when sigmoid(score) > threshold."""
        a, p = n.doubles(weights)
        return cls(n.new_handle("cfx_model_linear_new", p, a.size, float(bias), float(threshold)))

    @classmethod
    def from_json(cls, schema, text):
        """Reads a model (versioned JSON) and checks it against `schema`."""
        return cls(n.new_handle("cfx_model_from_json", n.ptr_of(schema, "Schema"), cstr(text, "json")))

    @classmethod
    def fit_linear(cls, dataset, c=1.0):
        """L2-regularised logistic regression on the encoded rows (scikit-learn's
        `LogisticRegression(C=c)` objective), threshold 0.5."""
        return cls(n.new_handle("cfx_model_fit_linear", n.ptr_of(dataset, "Dataset"), float(c)))

    @classmethod
    def train_mlp(cls, dataset, hidden=(16,), epochs=50, batch_size=32, learning_rate=1e-3, l2=0.0, seed=0):
        """An MLP (ReLU hidden layers, Adam); the same seed gives the same bits."""
        h = (c_size_t * len(hidden))(*hidden)
        return cls(
            n.new_handle(
                "cfx_model_train_mlp",
                n.ptr_of(dataset, "Dataset"),
                h,
                len(hidden),
                int(epochs),
                int(batch_size),
                float(learning_rate),
                float(l2),
                int(seed),
            )
        )

    @classmethod
    def from_sklearn(cls, schema, estimator, threshold=0.5, favourable=None, check_on=None):
        """A fitted binary scikit-learn classifier, read exactly or refused with the reason
        (`ValueError`); docs/guide/live-models.md has the audit of every setting.

        - `LogisticRegression` (or any linear classifier with ``coef_``/``intercept_``) trained on
          `schema.encode` rows: cfx's linear model `coef_·x + intercept_` (the estimator's
          `decision_function` up to the order of the dot product's sums).
        - `GradientBoostingClassifier` and `HistGradientBoostingClassifier` (log loss;
          `categorical_features` read through the estimator's own encoder) fitted on the schema's
          raw rows (`predict_raw`'s order: a categorical as its level index, a special state as
          its code): a tree ensemble whose margin is bit for bit `decision_function`.
        - A `Pipeline` is refused (scaling or encoding steps change the inputs in ways cfx's
          schema encoding does not reproduce bit for bit): fit the estimator on
          `schema.encode(rows)` (linear) or raw rows (trees). Random forests and extra trees are
          refused here: export them to ONNX or PMML, whose forests cfx reads exactly.

        `favourable` is the favourable outcome's label in ``classes_``; a linear model may leave
        it out when ``classes_`` is ``[0, 1]`` (class 1 favourable), the tree ensembles must
        declare it. `threshold` is the bank's cutoff on the estimator's probability of its class
        1 (``predict_proba[:, 1]``): accepted above it when class 1 is favourable, below it
        otherwise. `check_on` as in `from_xgboost`."""
        kind = type(estimator).__name__
        if hasattr(estimator, "steps") and hasattr(estimator, "named_steps"):  # a Pipeline
            steps = [type(s).__name__ for _, s in estimator.steps]
            raise ValueError(
                f"cfx: a Pipeline ({' -> '.join(steps)}) is not read: its preprocessing "
                "(scaling, one-hot encoding) is not cfx's schema encoding, and folding it into "
                "the model changes the floating-point result; fit the final estimator on "
                "schema.encode(rows) (linear) or the schema's raw rows (trees)"
            )
        if kind in ("RandomForestClassifier", "ExtraTreesClassifier"):
            raise ValueError(
                f"cfx: a live {kind} is not read yet; export it with skl2onnx "
                "(Model.from_onnx) or sklearn2pmml (Model.from_pmml), whose forests cfx reads "
                "exactly (onnxruntime's and jpmml-evaluator's probabilities to the bit)"
            )
        if kind in ("GradientBoostingClassifier", "HistGradientBoostingClassifier"):
            from . import _sklearn

            if getattr(estimator, "classes_", None) is None:
                raise ValueError(f"cfx: the {kind} is not fitted")
            classes = _sklearn._check_binary(estimator, kind)
            if favourable is None:
                raise ValueError(
                    f"cfx: which of the {kind}'s classes_ {classes} is favourable? give "
                    "favourable=<label> (a model of default: the label of repayment)"
                )
            if favourable not in classes:
                raise ValueError(f"cfx: favourable={favourable!r} is not one of the model's classes_ {classes}")
            read = _sklearn.gradient_boosting if kind == "GradientBoostingClassifier" else _sklearn.hist_gradient_boosting
            built, base, report = read(schema, estimator)
            text = _sklearn.tree_model_json(schema, built, base, report, classes.index(favourable), float(threshold))
            return cls.from_json(schema, text)._checked_on(check_on)
        coef = np.asarray(getattr(estimator, "coef_", None), dtype=np.float64)
        intercept = np.asarray(getattr(estimator, "intercept_", None), dtype=np.float64)
        if coef.ndim != 2 or coef.shape[0] != 1 or intercept.size != 1:
            raise ValueError(
                f"cfx: from_sklearn needs a fitted binary linear classifier (coef_ of shape (1, d)) "
                f"or a gradient boosting classifier, got {kind}"
            )
        classes = [c.item() if hasattr(c, "item") else c for c in getattr(estimator, "classes_", [0, 1])]
        if len(classes) != 2:
            raise ValueError(f"cfx: from_sklearn needs two classes_, got {classes}")
        if favourable is None:
            if classes != [0, 1]:
                raise ValueError(
                    f"cfx: which of the classes_ {classes} is favourable? give favourable=<label>"
                )
            favourable = 1
        if favourable not in classes:
            raise ValueError(f"cfx: favourable={favourable!r} is not one of the model's classes_ {classes}")
        if coef.shape[1] != schema.encoded_dim:
            raise ValueError(
                f"cfx: the estimator has {coef.shape[1]} inputs, the schema encodes "
                f"{schema.encoded_dim}: fit it on schema.encode(rows)"
            )
        w, b, t = coef[0], float(intercept.reshape(-1)[0]), float(threshold)
        if classes.index(favourable) == 0:
            # A sign flip is exact; the cutoff on P(class 1) turns round.
            w, b, t = -w, -b, 1.0 - t
        model = cls.linear(w, b, t)
        # Through the JSON reader too, so the dimension is checked against the schema.
        with model:
            return cls.from_json(schema, model.to_json())._checked_on(check_on)

    @classmethod
    def from_xgboost(cls, schema, model, options=None, favourable=None, check_on=None):
        """An XGBoost model (objective binary:logistic): a `Booster`/`XGBClassifier`, its JSON
        text, or the path of a saved ``.json`` model. `options`: dict or JSON (`columns`,
        `special_as_missing`, `threshold`, `trees`, `category_codes`, `unseen_levels`,
        `missing_levels`, `favourable_class`, `score_is`, `missing`;
        docs/guide/gradient-boosted-models.md).

        `favourable`: the favourable outcome's label in the live classifier's ``classes_``
        (or the class index 0/1): a model of default (class 1 = default) needs
        ``favourable=0``, and cfx negates its margin. Undeclared, class 1 is assumed and the
        report says so. `check_on`: a labelled `Dataset` (1 = favourable) on which the
        imported model must rank the favourable applicants first (`check_favourable`).

        An `XGBClassifier` fitted with early stopping is read as its `predict_proba` scores:
        with its first `best_iteration + 1` rounds (`"trees": "best_iteration"`, unless
        `options` says otherwise); a Booster or file recording `best_iteration` needs the
        choice in `options`. The classifier's `missing` (values XGBoost sends down each
        split's default branch, which the JSON does not record) is read into the option
        `missing`; a Booster or file needs it in `options`. What the import assumed is in
        `Model.import_report`."""
        options = _favourable(model, options, favourable)
        options = _xgboost_missing(model, options)
        if hasattr(model, "get_booster"):
            try:
                best = model.best_iteration
            except AttributeError:
                best = None
            if best is not None:
                if options is None:
                    options = {}
                elif isinstance(options, str):
                    options = json.loads(options)
                else:
                    options = dict(options)
                options.setdefault("trees", "best_iteration")
            model = model.get_booster()
        if hasattr(model, "save_raw"):
            model = bytes(model.save_raw(raw_format="json")).decode("utf-8")
        if isinstance(model, os.PathLike) or (isinstance(model, str) and not model.lstrip().startswith("{")):
            imported = cls(
                n.new_handle(
                    "cfx_model_from_xgboost_file",
                    n.ptr_of(schema, "Schema"),
                    cstr(os.fspath(model)),
                    _options(options),
                )
            )
        else:
            imported = cls(
                n.new_handle(
                    "cfx_model_from_xgboost_json",
                    n.ptr_of(schema, "Schema"),
                    cstr(model, "json"),
                    _options(options),
                )
            )
        return imported._checked_on(check_on)

    def _checked_on(self, dataset):
        if dataset is not None:
            try:
                self.check_favourable(dataset)
            except Exception:
                self.close()
                raise
        return self

    def check_favourable(self, dataset):
        """The area under the ROC curve of the model's score on the labelled `dataset`
        (1 = favourable); raises when the model ranks the favourable applicants below the
        others (AUC ≤ 0.5: a model of default read as a model of repayment, or the reverse),
        saying what to declare."""
        out = c_double()
        n.call("cfx_model_check_favourable", self.ptr, n.ptr_of(dataset, "Dataset"), byref(out))
        return out.value

    @classmethod
    def from_lightgbm(cls, schema, model, options=None, favourable=None, check_on=None):
        """A LightGBM model (objective binary): a `Booster`/`LGBMClassifier`, its text model,
        or the path of a saved ``.txt`` model. `favourable` and `check_on` as in
        `from_xgboost` (an `LGBMClassifier`'s ``classes_`` may be any two labels)."""
        options = _favourable(model, options, favourable)
        if hasattr(model, "booster_"):
            model = model.booster_
        if hasattr(model, "model_to_string"):
            model = model.model_to_string()
        if isinstance(model, os.PathLike) or (isinstance(model, str) and "\n" not in model):
            imported = cls(
                n.new_handle(
                    "cfx_model_from_lightgbm_file",
                    n.ptr_of(schema, "Schema"),
                    cstr(os.fspath(model)),
                    _options(options),
                )
            )
        else:
            imported = cls(
                n.new_handle(
                    "cfx_model_from_lightgbm_text",
                    n.ptr_of(schema, "Schema"),
                    cstr(model, "text"),
                    _options(options),
                )
            )
        return imported._checked_on(check_on)

    @classmethod
    def _import_json_model(cls, schema, model, options, str_fn, file_fn):
        if isinstance(model, os.PathLike) or (isinstance(model, str) and not model.lstrip().startswith("{")):
            return cls(n.new_handle(file_fn, n.ptr_of(schema, "Schema"), cstr(os.fspath(model)),
                                    _options(options)))
        return cls(n.new_handle(str_fn, n.ptr_of(schema, "Schema"), cstr(model, "json"),
                                _options(options)))

    @classmethod
    def from_catboost(cls, schema, model, options=None, favourable=None, check_on=None):
        """A CatBoost binary classifier (loss Logloss, symmetric trees): a fitted
        `CatBoostClassifier`, its JSON text (``save_model(path, format="json", pool=…)``) or the
        path of that file. `options`: dict or JSON (`columns`, `special_as_missing`,
        `threshold`, `unseen_levels`, `favourable_class`, `score_is`;
        docs/guide/catboost.md). `favourable` and `check_on` as in `from_xgboost`.

        A live classifier is read as it scores: its exported JSON (the categorical levels'
        hashes computed by CatBoost itself from the schema's level names), ``classes_`` for
        `favourable`, and its probability threshold (``set_probability_threshold``) as the
        option `threshold`. CTR categorical features, non-symmetric trees and other losses are
        refused with what to do."""
        options = _favourable(model, options, favourable)
        if hasattr(model, "save_model") and hasattr(model, "get_cat_feature_indices"):
            if not getattr(model, "is_fitted", lambda: True)():
                raise ValueError("cfx: the CatBoost model is not fitted")
            t = model.get_probability_threshold() if hasattr(model, "get_probability_threshold") else None
            if t is not None and float(t) != 0.5:
                options = _as_dict(options)
                _set_option(options, "threshold", float(t), "model's probability threshold")
            model = _catboost_json(schema, model)
        imported = cls._import_json_model(schema, model, options, "cfx_model_from_catboost_json_str",
                                          "cfx_model_from_catboost_json_file")
        return imported._checked_on(check_on)

    @classmethod
    def from_ebm(cls, schema, model, options=None, favourable=None, check_on=None):
        """An Explainable Boosting Machine (interpret 0.7, binary, logit link): a fitted
        `ExplainableBoostingClassifier`, its JSON text (``ebm.to_json(…)``) or the path of that
        file — one tree per main term or pair, so the exact tree search proves its
        counterfactuals. `options` as in `from_catboost` (docs/guide/ebm.md); `favourable`
        (a label of the live classifier's ``classes_``) and `check_on` as in `from_xgboost`.
        Regression and multiclass EBMs and higher-order terms are refused."""
        options = _favourable(model, options, favourable)
        if hasattr(model, "to_jsonable"):
            link = getattr(model, "link_", "logit")
            if link != "logit":
                raise ValueError(f"cfx: the EBM's link is {link!r}; cfx reads binary classifiers (logit)")
            model = json.dumps(model.to_jsonable(detail="minimal"))
        imported = cls._import_json_model(schema, model, options, "cfx_model_from_ebm_json_str",
                                          "cfx_model_from_ebm_json_file")
        return imported._checked_on(check_on)

    @classmethod
    def from_pmml(cls, schema, pmml, options=None):
        """A PMML 4.x model (a ``Scorecard`` or a binary logit ``RegressionModel``): its XML
        text or the path of a ``.pmml`` file, read exactly or refused naming the element and its
        line. `options` (dict or JSON) declares what the file does not say: `favourable_class`
        (a classifier), `accept` and `cutoff` (a scorecard), optional `threshold`, `scaling`,
        `special_as_missing` (docs/guide/pmml.md). What the import assumed is in
        `Model.import_report`."""
        if isinstance(pmml, os.PathLike) or (isinstance(pmml, str) and not pmml.lstrip().startswith("<")):
            return cls(
                n.new_handle(
                    "cfx_model_from_pmml_file",
                    n.ptr_of(schema, "Schema"),
                    cstr(os.fspath(pmml)),
                    _options(options),
                )
            )
        return cls(
            n.new_handle(
                "cfx_model_from_pmml_str",
                n.ptr_of(schema, "Schema"),
                cstr(pmml, "pmml"),
                _options(options),
            )
        )

    @classmethod
    def from_onnx(cls, schema, path, options=None):
        """An ONNX binary classifier: the path of a ``.onnx`` file, or the model in memory — its
        bytes (``bytes``/``bytearray``/``memoryview``, as a model registry returns them) or an
        ``onnx.ModelProto`` (serialised here). ``LinearClassifier``, MatMul/Gemm layers (a linear
        model or an MLP) or ``TreeEnsembleClassifier``/``Regressor``, read exactly as onnxruntime
        evaluates it or refused naming the node; no bytes, garbage or a truncated protobuf raise
        `CfxError` (FORMAT_ERROR) with the reason. `options` (dict or JSON) declares what the
        graph does not say: `favourable_class` (required), the input's `columns` in order
        (default: the schema's features), optional `threshold`, `special_as_missing`,
        `category_codes` (docs/guide/onnx.md). What the import assumed is in
        `Model.import_report`."""
        if hasattr(path, "SerializeToString"):
            path = path.SerializeToString()
        if isinstance(path, (bytes, bytearray, memoryview)):
            data = bytes(path)  # bytes stay as they are; the others are copied once
            # A pointer into the bytes object's own buffer (no copy), read only during the call.
            ptr = cast(c_char_p(data), POINTER(c_uint8))
            return cls(
                n.new_handle(
                    "cfx_model_from_onnx_bytes",
                    n.ptr_of(schema, "Schema"),
                    ptr,
                    len(data),
                    _options(options),
                )
            )
        return cls(
            n.new_handle(
                "cfx_model_from_onnx_file",
                n.ptr_of(schema, "Schema"),
                cstr(os.fspath(path)),
                _options(options),
            )
        )

    # Reading -----------------------------------------------------------------

    def to_json(self):
        return n.read_string("cfx_model_to_json", self.ptr)

    @property
    def import_report(self):
        """What the import of a model file assumed, one line per fact (trees: trees used,
        objective, special states, categorical levels; PMML: the declared favourable class or
        cutoff side, fields, special states); empty for other models."""
        doc = json.loads(self.to_json())

        def find(v):
            if isinstance(v, dict):
                if "import_report" in v:
                    return v["import_report"]
                for x in v.values():
                    r = find(x)
                    if r is not None:
                        return r
            return None

        return list(find(doc) or [])

    @property
    def report(self):
        """The import report (`import_report`) as text, one line per fact."""
        return "\n".join(self.import_report)

    def fingerprint(self):
        return n.read_string("cfx_model_fingerprint", self.ptr)

    @property
    def kind(self):
        """``"linear"``, ``"mlp"``, ``"scorecard"`` or ``"trees"``."""
        out = c_int32()
        n.call("cfx_model_get_kind", self.ptr, byref(out))
        return KINDS[out.value]

    @property
    def input_dim(self):
        out = c_size_t()
        n.call("cfx_model_input_dim", self.ptr, byref(out))
        return out.value

    @property
    def threshold(self):
        out = c_double()
        n.call("cfx_model_threshold", self.ptr, byref(out))
        return out.value

    def predict(self, x):
        """Score, probability and decision of one encoded row."""
        a, p = n.doubles(x)
        s, pr, acc = c_double(), c_double(), c_int32()
        n.call("cfx_model_predict", self.ptr, p, a.size, byref(s), byref(pr), byref(acc))
        return Prediction(s.value, pr.value, acc.value == 1)

    def predict_raw(self, schema, raw):
        """Like `predict` for a raw applicant row, encoded through `schema`."""
        a, p = n.doubles(raw)
        s, pr, acc = c_double(), c_double(), c_int32()
        n.call(
            "cfx_model_predict_raw",
            self.ptr,
            n.ptr_of(schema, "Schema"),
            p,
            a.size,
            byref(s),
            byref(pr),
            byref(acc),
        )
        return Prediction(s.value, pr.value, acc.value == 1)

    def probabilities(self, x):
        """Probabilities of encoded rows (n × input_dim) as a float64 array."""
        m, p = n.matrix(x, self.input_dim, "encoded rows")
        out = np.empty(m.shape[0], dtype=np.float64)
        got = c_size_t()
        n.call(
            "cfx_model_probability_batch",
            self.ptr,
            p,
            m.shape[0],
            out.ctypes.data_as(POINTER(c_double)),
            out.size,
            byref(got),
        )
        return out[: got.value]

    def scores(self, x):
        """Scores (logit, points total or margin) of encoded rows."""
        m, _ = n.matrix(x, self.input_dim, "encoded rows")
        return np.array([self.predict(r).score for r in m], dtype=np.float64)
