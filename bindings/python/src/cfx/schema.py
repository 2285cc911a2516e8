"""Feature schemas: mixed credit data (contiguous values with special states, categoricals)."""

import json
from ctypes import byref, c_int32, c_size_t

import numpy as np

from . import _native as n
from ._enums import ChangeLimit, Direction, WeightsKind, names_to_values, values_to_names
from ._native import Handle, cstr

DIRECTIONS = names_to_values(Direction)
#: `cfx_weights_kind`: which distance weights a schema carries.
WEIGHTS_KINDS = values_to_names(WeightsKind)
#: The actionability presets of `Schema.advice_preset` (issue #16).
ADVICE_PRESETS = {"german": 0, "heloc": 1}
#: `cfx_change_limit`: a change limit in the feature's raw units or as a fraction of the
#: applicant's value (None: no limit).
CHANGE_LIMIT_KINDS = names_to_values(ChangeLimit, exclude=("NONE",))


class Schema(Handle):
    """An immutable feature schema (`cfx_schema`): names, kinds, ranges, actionability.

    A raw row holds one value per feature (a categorical's value is its level index);
    models read the encoded row (`encode`)."""

    _free_name = "cfx_schema_free"

    @classmethod
    def from_json(cls, text):
        """Reads a schema (versioned JSON, as `to_json` writes it); unknown keys are refused."""
        if isinstance(text, dict):
            text = json.dumps(text)
        return cls(n.new_handle("cfx_schema_from_json", cstr(text, "json")))

    @staticmethod
    def builder():
        """A `SchemaBuilder` to describe features one by one."""
        return SchemaBuilder()

    def to_json(self):
        return n.read_string("cfx_schema_to_json", self.ptr)

    @property
    def weights_kind(self):
        """Which distance weights the schema carries: ``"unit"`` (every cost in unit weights,
        which changes most answers: fit them with `fit_weights` or `Dataset.fitted_schema`),
        ``"fitted"`` (every feature has weights) or ``"mixed"``."""
        out = c_int32()
        n.call("cfx_schema_weights_kind", self.ptr, byref(out))
        return WEIGHTS_KINDS[out.value]

    def advice_preset(self, preset, waiting_cost_per_month):
        """A new schema with an actionability preset applied (issue #16): ``"german"`` (age
        only by waiting; no move into "no checking account", "critical account", "unknown/ no
        savings account", "for free" housing; amount −50 %/+25 %, duration ±12 months) on the
        schema of `load_german`, ``"heloc"`` (the month-counting features only by waiting) on
        that of `load_heloc`. Waiting costs `waiting_cost_per_month` per month, up to 24
        months. This schema is unchanged."""
        if preset not in ADVICE_PRESETS:
            raise ValueError(f"cfx: preset must be one of {sorted(ADVICE_PRESETS)}, got {preset!r}")
        return Schema(
            n.new_handle(
                "cfx_schema_advice_preset", self.ptr, ADVICE_PRESETS[preset], float(waiting_cost_per_month)
            )
        )

    def fingerprint(self):
        """FNV-1a 64 of the canonical JSON, ``"fnv1a64:<hex>"``."""
        return n.read_string("cfx_schema_fingerprint", self.ptr)

    @property
    def n_features(self):
        out = c_size_t()
        n.call("cfx_schema_n_features", self.ptr, byref(out))
        return out.value

    @property
    def encoded_dim(self):
        out = c_size_t()
        n.call("cfx_schema_encoded_dim", self.ptr, byref(out))
        return out.value

    def feature_name(self, index):
        return n.read_string("cfx_schema_feature_name", self.ptr, int(index))

    @property
    def feature_names(self):
        return [self.feature_name(i) for i in range(self.n_features)]

    def index_of(self, name):
        out = c_size_t()
        n.call("cfx_schema_index_of", self.ptr, cstr(name, "name"), byref(out))
        return out.value

    @property
    def features(self):
        """The features as described by the schema's JSON (list of dicts, cached)."""
        cached = getattr(self, "_features", None)
        if cached is None:
            cached = json.loads(self.to_json())["features"]
            self._features = cached
        return cached

    def encode(self, raw):
        """Encodes one raw row (or a 2-D array of rows, row by row) for a model."""
        arr = np.asarray(raw, dtype=np.float64)
        if arr.ndim == 2:
            return np.array([self.encode(r) for r in arr]).reshape(len(arr), self.encoded_dim)
        a, p = n.doubles(arr)
        return n.read_doubles("cfx_schema_encode", self.ptr, p, a.size, size_hint=self.encoded_dim)

    def decode(self, x):
        """Decodes an encoded row into a raw row (`CFX_STATUS_INCOHERENT` when it is not one)."""
        a, p = n.doubles(x)
        return n.read_doubles("cfx_schema_decode", self.ptr, p, a.size, size_hint=self.n_features)

    def describe_changes(self, before, after):
        """The changes from raw row `before` to `after` in the data's words, one line each."""
        a, pa = n.doubles(before)
        b, pb = n.doubles(after)
        return n.read_string("cfx_schema_describe_changes", self.ptr, pa, a.size, pb, b.size)

    def fit_weights(self, rows):
        """A new schema with distance weights fitted on raw rows (this one is unchanged)."""
        m, p = n.matrix(rows, self.n_features, "rows")
        return Schema(n.new_handle("cfx_schema_fit_weights", self.ptr, p, m.shape[0], m.shape[1]))

    # pandas --------------------------------------------------------------------

    def rows_from_frame(self, frame, ignore=()):
        """Raw rows (n × n_features float64) from a DataFrame of applicants.

        Columns are found by feature name (any order; other columns are ignored). A
        categorical column of strings holds level names, a numeric one level indices; a
        contiguous column holds numbers (or their text, as read from a CSV as strings).
        A column that is not a feature must be named in `ignore` (a label, an id, a
        group), else KeyError names it: a misspelled feature is not silently dropped."""
        import pandas as pd

        known = {f["name"] for f in self.features} | set(ignore)
        unknown = [c for c in frame.columns if c not in known]
        if unknown:
            raise KeyError(
                f"cfx: the applicants have columns that are not features of the schema: {unknown} "
                "(name them in `ignore` to skip them)"
            )
        rows = np.empty((len(frame), self.n_features), dtype=np.float64)
        for j, f in enumerate(self.features):
            name = f["name"]
            if name not in frame.columns:
                raise KeyError(f"cfx: the applicants have no column '{name}' (a feature of the schema)")
            col = frame[name]
            if f["kind"] == "categorical" and not pd.api.types.is_numeric_dtype(col):
                index = {lvl: k for k, lvl in enumerate(f["levels"])}
                values = []
                for v in col.astype(str):
                    if v not in index:
                        raise ValueError(f"cfx: column '{name}': unknown level {v!r}; levels: {f['levels']}")
                    values.append(index[v])
                rows[:, j] = values
            else:
                try:
                    rows[:, j] = pd.to_numeric(col, errors="raise").to_numpy(dtype=np.float64)
                except (TypeError, ValueError) as e:
                    raise ValueError(
                        f"cfx: column '{name}' holds a value that is not a number: {e}"
                    ) from None
        return rows

    def frame_from_rows(self, rows, level_names=True):
        """A DataFrame of raw rows with the features as columns (categoricals by level name)."""
        import pandas as pd

        arr = np.asarray(rows, dtype=np.float64).reshape(-1, self.n_features)
        data = {}
        for j, f in enumerate(self.features):
            col = arr[:, j]
            if f["kind"] == "categorical" and level_names:
                data[f["name"]] = [f["levels"][int(v)] for v in col]
            else:
                data[f["name"]] = col
        return pd.DataFrame(data)


class SchemaBuilder(Handle):
    """Describes features one at a time, then `build()` gives a `Schema` (consumes the builder)."""

    _free_name = "cfx_schema_builder_free"

    def __init__(self):
        super().__init__(n.new_handle("cfx_schema_builder_new"))

    def add_contiguous(self, name, lower, upper, integer=False):
        n.call(
            "cfx_schema_builder_add_contiguous",
            self.ptr,
            cstr(name, "name"),
            float(lower),
            float(upper),
            1 if integer else 0,
        )
        return self

    def add_categorical(self, name, levels):
        arr, _keep = n.string_list(levels)
        n.call("cfx_schema_builder_add_categorical", self.ptr, cstr(name, "name"), arr, len(levels))
        return self

    def add_special_state(self, code, label):
        """A special code of the last added (contiguous) feature, e.g. -7 "no delinquency"."""
        n.call("cfx_schema_builder_add_special_state", self.ptr, float(code), cstr(label, "label"))
        return self

    def set_actionability(self, mutable=True, direction="any"):
        """Actionability of the last added feature: mutable or not, and `any`,
        `increase_only` or `decrease_only`."""
        if direction not in DIRECTIONS:
            raise ValueError(f"cfx: direction must be one of {sorted(DIRECTIONS)}, got {direction!r}")
        n.call("cfx_schema_builder_set_actionability", self.ptr, 1 if mutable else 0, DIRECTIONS[direction])
        return self

    def set_actionable_bounds(self, lower, upper):
        """The applicant of the last added (contiguous) feature may be advised values in
        [lower, upper] only (raw units; checked when the schema is built)."""
        n.call("cfx_schema_builder_set_actionable_bounds", self.ptr, float(lower), float(upper))
        return self

    def set_change_limits(self, max_increase=None, max_decrease=None):
        """The largest increase and decrease of the last added (contiguous) feature relative to
        the applicant's value, each None (no limit) or ``(kind, value)`` with kind ``"units"``
        (raw units, e.g. 12 months) or ``"fraction"`` (of the applicant's value, e.g. 0.5)."""

        def limit(v, what):
            if v is None:
                return 0, 0.0
            kind, value = v
            if kind not in CHANGE_LIMIT_KINDS:
                raise ValueError(
                    f"cfx: {what} kind must be one of {sorted(CHANGE_LIMIT_KINDS)}, got {kind!r}"
                )
            return CHANGE_LIMIT_KINDS[kind], float(value)

        ik, iv = limit(max_increase, "max_increase")
        dk, dv = limit(max_decrease, "max_decrease")
        n.call("cfx_schema_builder_set_change_limits", self.ptr, ik, iv, dk, dv)
        return self

    def set_advice_grid(self, advice_step=0.0, min_change=0.0):
        """Advice a person can carry out (issue 43), for the last added (contiguous) feature:
        every value advice moves it to is a whole multiple of `advice_step` (0: the data's own
        grid), and a change of it is at least `min_change` (0: any change); staying put is
        always allowed. Negative or non-finite values are ``CFX_STATUS_INVALID_ARGUMENT``; a step
        off the data's grid is refused by `build`."""
        n.call("cfx_schema_builder_set_advice_grid", self.ptr, float(advice_step), float(min_change))
        return self

    def set_cost_scale(self, cost_scale):
        """Multiplies the last added feature's distance weights (2: every change costs twice)."""
        n.call("cfx_schema_builder_set_cost_scale", self.ptr, float(cost_scale))
        return self

    def set_time_growth(self, per_month, ends_in=None):
        """The last added feature grows by `per_month` raw units per month of waiting and moves
        no other way; `ends_in` names the special state it enters past its upper bound. The
        schema needs a waiting action (`set_waiting`)."""
        n.call("cfx_schema_builder_set_time_growth", self.ptr, float(per_month), cstr(ends_in, "ends_in"))
        return self

    def set_time_growth_ends_after(self, ends_after):
        """Closes the last added feature's time window early: once its value would pass
        `ends_after` (within the feature's range) it enters the state `set_time_growth` named in
        `ends_in`, instead of only past its upper bound (HELOC's months since the last inquiry read
        −7 after 23 months). Call after `set_time_growth` with an `ends_in`."""
        n.call("cfx_schema_builder_set_time_growth_ends_after", self.ptr, float(ends_after))
        return self

    def set_time_growth_refuse_past_upper(self, refuse=True):
        """Says what waiting does once the last added feature's value would pass its upper bound:
        `refuse` true refuses such a wait (the applicant may wait only as long as the feature stays
        within its range; JSON ``"past_upper": "refuse"``), false caps the value at the bound (the
        default). The bound is the data's largest value, not the end of time: a capped value is one
        the bureau would not report. Call after `set_time_growth`; refusing with an `ends_in` state
        is ``CFX_STATUS_INVALID_SCHEMA`` from `build`."""
        n.call("cfx_schema_builder_set_time_growth_refuse_past_upper", self.ptr, 1 if refuse else 0)
        return self

    def set_time_growth_advised_range(self, low, high):
        """Limits where waiting may lead the last added feature: a wait that would move its value
        outside ``[low, high]`` (raw units) is not advised by any method (JSON ``"advised_range":
        [low, high]``); a wait that leaves the value unchanged or carries it into its `ends_in`
        state is not judged by it. A month counter grows whether or not accepted applicants are
        where it lands; `Plausibility.advise_waits` sets these ranges from the accepted
        applicants' 1–99 % range. Call after `set_time_growth` (``CFX_STATUS_INVALID_ARGUMENT``
        when the feature does not grow with time, or for a non-finite bound); ``low > high`` is
        ``CFX_STATUS_INVALID_SCHEMA`` from `build`."""
        n.call("cfx_schema_builder_set_time_growth_advised_range", self.ptr, float(low), float(high))
        return self

    def set_band_months(self, level, months):
        """One duration band of the last added (categorical) feature: waiting `months` (≥ 1) from
        the start of band `level` moves it to the next level of its level order; the feature then
        moves only by waiting. Call once per band. An unknown level is ``CFX_STATUS_NOT_FOUND``
        here; a band without a next level is ``CFX_STATUS_INVALID_SCHEMA`` from `build`."""
        months = int(months)
        if months < 0:
            raise ValueError(f"months must be >= 0, got {months}")
        n.call("cfx_schema_builder_set_band_months", self.ptr, cstr(level, "level"), months)
        return self

    def set_max_features_changed(self, cap):
        """At most `cap` (≥ 1) features changed by one piece of advice (what waiting moves is
        not counted); every method honours it. Without a call there is no cap; 0 is
        ``CFX_STATUS_INVALID_ARGUMENT``."""
        cap = int(cap)
        if cap < 0:
            raise ValueError(f"cap must be >= 1, got {cap}")
        n.call("cfx_schema_builder_set_max_features_changed", self.ptr, cap)
        return self

    def add_forbidden_transition(self, from_state, to_state):
        """Forbids the move `from_state` → `to_state` of the last added feature: ``"value"`` (a
        contiguous feature's range), a special state's label or code (``"-9"``), a level name,
        or ``"*"`` (any state)."""
        n.call(
            "cfx_schema_builder_add_forbidden_transition",
            self.ptr,
            cstr(from_state, "from"),
            cstr(to_state, "to"),
        )
        return self

    def set_step(self, step):
        """Puts the last added (contiguous) feature on the grid lower + k·step."""
        n.call("cfx_schema_builder_set_step", self.ptr, float(step))
        return self

    def set_level_order(self, levels):
        """Orders the levels of the last added (categorical) feature from worst to best (all or
        some). With an order the feature's direction speaks of it (``increase_only``: only to a
        better listed level) instead of the level index; every method honours it."""
        arr, _keep = n.string_list(levels)
        n.call("cfx_schema_builder_set_level_order", self.ptr, arr, len(levels))
        return self

    def set_waiting(self, cost_per_month, max_months):
        """Gives the schema a "wait m months" action: its cost per month and the longest wait."""
        n.call("cfx_schema_builder_set_waiting", self.ptr, float(cost_per_month), int(max_months))
        return self

    def build(self):
        ptr, self._ptr = self.ptr, None  # consumed in every case
        out = n.c_void_p()
        n.check(n.LIB.cfx_schema_build(ptr, byref(out)))
        return Schema(out)
