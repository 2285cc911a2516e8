"""Sequential counterfactuals learned by reinforcement learning (P-DQN; Chen et al. 2022,
"ReLAX"): train a policy on declined applicants, then ask it for step-by-step plans."""

import os
from collections import namedtuple
from ctypes import byref, c_double, c_int32, c_size_t, c_void_p

from . import _native as n
from ._enums import RewardKind, names_to_values
from ._native import Handle, cstr
from ._types import PROGRESS_FN, SequentialMetrics
from .config import ptr_of

REWARDS = names_to_values(RewardKind)

Step = namedtuple("Step", "feature before after probability")
Metrics = namedtuple("Metrics", [f for f, _ in SequentialMetrics._fields_])


class Plan(Handle):
    """A policy's plan for one applicant: steps (`len()`), success, text and JSON."""

    _free_name = "cfx_plan_free"

    def __len__(self):
        out = c_size_t()
        n.call("cfx_plan_n_steps", self.ptr, byref(out))
        return out.value

    def _success(self):
        s, p = c_int32(), c_double()
        n.call("cfx_plan_success", self.ptr, byref(s), byref(p))
        return s.value == 1, p.value

    @property
    def success(self):
        return self._success()[0]

    @property
    def initial_probability(self):
        return self._success()[1]

    def step(self, index):
        f, a, b, p = c_size_t(), c_double(), c_double(), c_double()
        n.call("cfx_plan_step", self.ptr, int(index), byref(f), byref(a), byref(b), byref(p))
        return Step(f.value, a.value, b.value, p.value)

    def step_text(self, index):
        return n.read_string("cfx_plan_step_text", self.ptr, int(index))

    @property
    def steps(self):
        return [self.step(i) for i in range(len(self))]

    def to_json(self):
        return n.read_string("cfx_plan_to_json", self.ptr)


class Policy(Handle):
    """A trained P-DQN policy (`cfx_policy`)."""

    _free_name = "cfx_policy_free"

    @classmethod
    def train(cls, train, model, config=None, reward="binary", progress=None):
        """Trains on the declined applicants of `train`. `progress(dict) -> bool` is called
        about every hundredth of the run; returning False cancels (CfxError,
        `CFX_STATUS_CANCELLED`). An exception in the callback cancels and is re-raised."""
        if reward not in REWARDS:
            raise ValueError(f"cfx: reward must be one of {sorted(REWARDS)}, got {reward!r}")
        raised = []
        cb = None
        if progress is not None:

            def trampoline(p, _user):
                try:
                    c = p.contents
                    return bool(progress({f: getattr(c, f) for f, _ in c._fields_}))
                except BaseException as e:  # never unwind through C
                    raised.append(e)
                    return False

            cb = PROGRESS_FN(trampoline)
        out = c_void_p()
        st = n.LIB.cfx_policy_train(
            n.ptr_of(train, "Dataset"),
            n.ptr_of(model, "Model"),
            ptr_of(config),
            REWARDS[reward],
            cb if cb is not None else PROGRESS_FN(),
            None,
            byref(out),
        )
        if raised:
            raise raised[0]
        n.check(st)
        return cls(out)

    @classmethod
    def from_json(cls, text):
        return cls(n.new_handle("cfx_policy_from_json", cstr(text, "json")))

    @classmethod
    def load(cls, path):
        return cls(n.new_handle("cfx_policy_load", cstr(os.fspath(path))))

    def to_json(self):
        return n.read_string("cfx_policy_to_json", self.ptr)

    def save(self, path):
        n.call("cfx_policy_save", self.ptr, cstr(os.fspath(path)))

    @property
    def n_actions(self):
        out = c_size_t()
        n.call("cfx_policy_n_actions", self.ptr, byref(out))
        return out.value

    def answer(self, schema, model, row):
        """The greedy plan for a raw applicant row."""
        a, p = n.doubles(row)
        return Plan(
            n.new_handle(
                "cfx_policy_answer", self.ptr, n.ptr_of(schema, "Schema"), n.ptr_of(model, "Model"), p, a.size
            )
        )

    def evaluate(self, model, test):
        """Panagiotou & Ntoutsi 2023's metrics on the declined applicants of `test`."""
        m = SequentialMetrics()
        n.call("cfx_policy_evaluate", self.ptr, n.ptr_of(model, "Model"), n.ptr_of(test, "Dataset"), byref(m))
        return Metrics(*[getattr(m, f) for f, _ in m._fields_])
