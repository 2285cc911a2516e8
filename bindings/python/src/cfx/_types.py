"""C structures and the callback type of the C API (see include/cfx.h)."""

from ctypes import CFUNCTYPE, POINTER, Structure, c_bool, c_double, c_size_t, c_void_p


class Progress(Structure):
    """`struct cfx_progress`: training progress passed to a progress callback."""

    _fields_ = [
        ("episodes_done", c_size_t),
        ("episodes_total", c_size_t),
        ("steps", c_size_t),
        ("epsilon", c_double),
        ("success_rate", c_double),
        ("mean_reward", c_double),
    ]


class SequentialMetrics(Structure):
    """`struct cfx_sequential_metrics`: a policy's metrics on a test set."""

    _fields_ = [
        ("n_instances", c_size_t),
        ("n_already_accepted", c_size_t),
        ("satisfiability", c_double),
        ("sparsity", c_double),
        ("distance", c_double),
        ("target_probability", c_double),
        ("entropy", c_double),
    ]


#: `cfx_progress_fn`: `bool (*)(const struct cfx_progress *, void *)`.
PROGRESS_FN = CFUNCTYPE(c_bool, POINTER(Progress), c_void_p)


class PortfolioCounts(Structure):
    """`struct cfx_portfolio_counts`: what a portfolio run wrote (or a summary counted)."""

    _fields_ = [
        ("rows", c_size_t),
        ("accepted", c_size_t),
        ("declined", c_size_t),
        ("with_recourse", c_size_t),
        ("errors", c_size_t),
    ]


#: `cfx_portfolio_progress_fn`: `bool (*)(size_t rows_done, void *user_data)`.
PORTFOLIO_PROGRESS_FN = CFUNCTYPE(c_bool, c_size_t, c_void_p)
