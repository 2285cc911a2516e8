"""Method configurations: every setting optional, each method's defaults apply to the rest."""

import json
from ctypes import byref, c_size_t, c_void_p

from . import _native as n
from ._enums import DiversityRule, NoiseModel, RobustBox, SolverChoice, names_to_values
from ._native import Handle, cstr

NOISE_MODELS = names_to_values(NoiseModel)
DIVERSITY_RULES = names_to_values(DiversityRule)
#: `cfx_solver_choice`: auto (the exact separable solver for linear models and scorecards, the
#: exact tree search for tree ensembles, whenever every constraint is per feature, else HiGHS),
#: always the MIP, the separable one, or the tree search.
SOLVERS = names_to_values(SolverChoice)
#: `cfx_robust_box`: the box of robust advice on a tree ensemble, over the reals (the default)
#: or over the values the applicant can actually reach (slips clipped to the range and rounded
#: to the data's grid).
ROBUST_BOXES = names_to_values(RobustBox)


def _enum(table, value, what):
    if isinstance(value, int):
        return value
    if value not in table:
        raise ValueError(f"cfx: {what} must be one of {sorted(table)}, got {value!r}")
    return table[value]


class Config(Handle):
    """An immutable configuration (`cfx_config`), built from keyword arguments:

    ``time_limit`` (s per solve), ``threads``, ``mip_gap``, ``margin``, ``n_diverse`` (how
    many counterfactuals `explain_diverse` returns at most, the optimum included; a COPA plan's
    number of options), ``diversity_rule``, ``solver`` (``"auto"``,
    ``"mip"`` or ``"separable"``), ``node_limit`` (branch-and-bound nodes of the exact separable
    solver per solve, default 200,000: past it ``"auto"`` hands the solve to HiGHS and
    ``"separable"`` ends it unproven; deterministic, unlike the time limit), ``robust_advice=(sigma2, invalidation_target)`` (coherent
    advice whose invalidation rate Γ under Gaussian noise of variance `sigma2` is at most the
    target; logistic models, and tree ensembles, whose answer's whole box of slips is then
    accepted, proven by the tree search), ``robust_box`` (tree ensembles: ``"reals"``, the
    default, every real value within each half-width of the answer's; or ``"reachable_values"``,
    every value the applicant can actually end at — slips clipped to the feature's range and
    rounded to the data's grid — with Γ estimated under the same slips; a logistic model refuses
    it), ``n_samples``, ``bound_m``, ``target=(rate, epsilon)``, ``seed``,
    ``copa_weights=(robust, diversity)``, ``copa_radius``, ``rl_episodes=(episodes,
    max_steps)``, ``rl_training=(discount, lr_actor, lr_param, batch, replay)``,
    ``rl_exploration=(start, end)``, ``rl_hidden=[widths]``, ``resume`` (book runs —
    `portfolio.explain_csv`, `revalidate_ledger` — go on from an interrupted run's partial
    file, the output byte for byte an uninterrupted run's), ``model_labels=(old, new)`` (the
    deployment report's names of the model(s) advice was issued under and of the new model,
    shown beside their fingerprints; None leaves one unset), ``mlp_bound_tightening`` (the
    exact engine on a ReLU network tightens its units' bounds by LP, default True; False keeps
    the interval bounds — the textbook big-M program, same optimum). A bad value raises CfxError
    (`CFX_STATUS_INVALID_ARGUMENT`) naming it; an unknown keyword raises TypeError."""

    _free_name = "cfx_config_free"

    def __init__(self, **settings):
        b = n.new_handle("cfx_config_builder_new")
        try:
            for key, value in settings.items():
                try:
                    self._set(b, key, value)
                except n.CfxError as e:  # name the setting: the C message names the parameter only
                    raise type(e)(e.status, f"Config({key}={value!r}): {e.message}") from None
        except BaseException:
            n.LIB.cfx_config_builder_free(b)
            raise
        out = c_void_p()
        n.call("cfx_config_build", b, byref(out))  # consumes the builder in every case
        super().__init__(out)

    @staticmethod
    def _set(b, key, v):
        if key == "time_limit":
            n.call("cfx_config_builder_set_time_limit", b, float(v))
        elif key == "threads":
            n.call("cfx_config_builder_set_threads", b, int(v))
        elif key == "mip_gap":
            n.call("cfx_config_builder_set_mip_gap", b, float(v))
        elif key == "margin":
            n.call("cfx_config_builder_set_margin", b, float(v))
        elif key == "n_diverse":
            n.call("cfx_config_builder_set_n_diverse", b, int(v))
        elif key == "diversity_rule":
            n.call("cfx_config_builder_set_diversity_rule", b, _enum(DIVERSITY_RULES, v, "diversity_rule"))
        elif key == "solver":
            n.call("cfx_config_builder_set_solver", b, _enum(SOLVERS, v, "solver"))
        elif key == "node_limit":
            n.call("cfx_config_builder_set_node_limit", b, int(v))
        elif key == "robust_box":
            n.call("cfx_config_builder_set_robust_box", b, _enum(ROBUST_BOXES, v, "robust_box"))
        elif key == "robust_advice":
            sigma2, target = v
            n.call("cfx_config_builder_set_robust_advice", b, float(sigma2), float(target))
        elif key == "n_samples":
            n.call("cfx_config_builder_set_n_samples", b, int(v))
        elif key == "bound_m":
            n.call("cfx_config_builder_set_bound_m", b, float(v))
        elif key == "target":
            rate, eps = v
            n.call("cfx_config_builder_set_target", b, float(rate), float(eps))
        elif key == "seed":
            n.call("cfx_config_builder_set_seed", b, int(v))
        elif key == "copa_weights":
            robust, diversity = v
            n.call("cfx_config_builder_set_copa_weights", b, float(robust), float(diversity))
        elif key == "copa_radius":
            n.call("cfx_config_builder_set_copa_radius", b, float(v))
        elif key == "rl_episodes":
            episodes, max_steps = v
            n.call("cfx_config_builder_set_rl_episodes", b, int(episodes), int(max_steps))
        elif key == "rl_training":
            g, la, lp, batch, replay = v
            n.call(
                "cfx_config_builder_set_rl_training",
                b,
                float(g),
                float(la),
                float(lp),
                int(batch),
                int(replay),
            )
        elif key == "rl_exploration":
            start, end = v
            n.call("cfx_config_builder_set_rl_exploration", b, float(start), float(end))
        elif key == "rl_hidden":
            widths = list(v)
            arr = (c_size_t * len(widths))(*widths)
            n.call("cfx_config_builder_set_rl_hidden", b, arr, len(widths))
        elif key == "resume":
            n.call("cfx_config_builder_set_resume", b, 1 if v else 0)
        elif key == "mlp_bound_tightening":
            n.call("cfx_config_builder_set_mlp_bound_tightening", b, 1 if v else 0)
        elif key == "model_labels":
            old, new = v
            n.call(
                "cfx_config_builder_set_model_labels",
                b,
                None if old is None else cstr(old, "old_label"),
                None if new is None else cstr(new, "new_label"),
            )
        else:
            raise TypeError(f"cfx: Config has no setting '{key}'")

    def to_json(self):
        return n.read_string("cfx_config_to_json", self.ptr)

    def to_dict(self):
        return json.loads(self.to_json())


def ptr_of(config):
    """The handle of an optional configuration (None = the method's defaults)."""
    return n.ptr_of(config, "Config", optional=True)
