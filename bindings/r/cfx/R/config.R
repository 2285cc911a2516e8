#' Solver configuration shared by every cfx method.
#'
#' Each argument left NULL keeps the method's documented default. Multi-value
#' settings are vectors: `copa_weights = c(robust, diversity)`,
#' `rl_episodes = c(episodes, max_steps)`, `rl_training = c(discount,
#' learning_rate_actor, learning_rate_param, batch_size, replay_capacity)`,
#' `rl_exploration = c(start, end)`. (Noise is not a setting: each robust
#' call takes a noise model, see `cfx_noise_gaussian`.) `diversity_rule` is "russell_code" or
#' "russell_intended" or "distinct_subsets"; `solver` is "auto" (the exact
#' separable solver or tree search when it applies, else HiGHS), "mip", "separable" or
#' "tree_search"; `target` comes with its
#' tolerance `target_epsilon`.
#' `n_diverse` counts the optimum: `cfx_explain(diverse = TRUE)` returns the
#' optimum and up to `n_diverse - 1` alternatives (a COPA plan has `n_diverse` options).
#' `robust_advice = c(sigma2, invalidation_target)` asks the coherent methods
#' (logistic models and tree ensembles) for the cheapest answer whose invalidation rate under
#' Gaussian slips of variance `sigma2` is at most `invalidation_target`,
#' proven optimal (its rate is the result's `invalidation_rate` column).
#' `robust_box` says which neighbourhood robust advice on a tree ensemble
#' proves accepted: "reals" (the default: every real value within each
#' half-width of the answer's) or "reachable_values" (every value the applicant
#' can actually end at: slips clipped to the feature's range and rounded to the
#' data's grid, Γ estimated under the same slips; a logistic model refuses it).
#' `node_limit` caps the branch-and-bound nodes of the exact separable solver
#' or tree search per solve (default 200,000): past it, solver "auto" hands the
#' solve to HiGHS (the tree search returns its best answer, outcome
#' "time_limit" with its gap) and "separable" ends it unproven (outcome "unknown"; waiting advice
#' not proven, see `cfx_waiting`). Deterministic, unlike `time_limit`.
#' `model_labels = c(old, new)` names the models in a re-validation's
#' deployment report (`cfx_revalidate_ledger`): the model(s) the advice was
#' issued under and the new one, shown beside their fingerprints (NA: unset).
#' `resume = TRUE` makes book runs (`cfx_explain_portfolio`,
#' `cfx_revalidate_ledger`) go on from an interrupted run's partial file, the
#' output byte for byte an uninterrupted run's.
#' `mlp_bound_tightening = FALSE` makes the exact engine keep a ReLU network's
#' interval bounds (the textbook big-M program) instead of tightening them by
#' LP (the default); both prove the same optimum.
#' Built through the library's configuration builder; invalid values raise a
#' `cfx_error_invalid_argument` condition naming the setting.
cfx_config <- function(time_limit = NULL, threads = NULL, mip_gap = NULL, margin = NULL,
                       n_diverse = NULL, diversity_rule = NULL,
                       n_samples = NULL, bound_m = NULL, target = NULL, target_epsilon = 0,
                       seed = NULL, copa_weights = NULL, copa_radius = NULL,
                       rl_episodes = NULL, rl_training = NULL, rl_exploration = NULL,
                       rl_hidden = NULL, robust_advice = NULL, solver = NULL,
                       node_limit = NULL, resume = NULL, model_labels = NULL,
                       mlp_bound_tightening = NULL, robust_box = NULL) {
  b <- cfx_config_builder()
  on.exit(cfx_free(b)) # a no-op once built
  set <- function(name, value) if (!is.null(value)) cfx_config_set(b, name, value)
  set("time_limit", time_limit)
  set("threads", threads)
  set("mip_gap", mip_gap)
  set("margin", margin)
  set("n_diverse", n_diverse)
  if (!is.null(diversity_rule)) {
    set("diversity_rule", .enum(diversity_rule, c("russell_code", "russell_intended", "distinct_subsets"), "diversity_rule"))
  }
  set("n_samples", n_samples)
  set("bound_m", bound_m)
  if (!is.null(target)) set("target", c(target, target_epsilon))
  set("seed", seed)
  set("copa_weights", copa_weights)
  set("copa_radius", copa_radius)
  set("rl_episodes", rl_episodes)
  set("rl_training", rl_training)
  set("rl_exploration", rl_exploration)
  set("rl_hidden", rl_hidden)
  set("robust_advice", robust_advice)
  if (!is.null(robust_box)) set("robust_box", .enum(robust_box, c("reals", "reachable_values"), "robust_box"))
  if (!is.null(solver)) set("solver", .enum(solver, c("auto", "mip", "separable", "tree_search"), "solver"))
  set("node_limit", node_limit)
  set("resume", resume)
  set("mlp_bound_tightening", mlp_bound_tightening)
  if (!is.null(model_labels)) {
    if (!is.character(model_labels) || length(model_labels) != 2L) {
      stop("cfx: 'model_labels' must be c(old, new) labels (NA: unset)", call. = FALSE)
    }
    lab <- lapply(model_labels, function(l) if (is.na(l)) NULL else enc2utf8(l))
    .cx(C_cfx_config_builder_set_model_labels, b, lab[[1]], lab[[2]])
  }
  cfx_config_build(b)
}

.enum <- function(value, choices, what) {
  if (is.numeric(value)) return(as.numeric(value))
  i <- match(value, choices)
  if (is.na(i)) {
    stop(sprintf("cfx: '%s' must be one of %s", what, paste(dQuote(choices, FALSE), collapse = ", ")),
         call. = FALSE)
  }
  i - 1
}

#' The low-level builder behind cfx_config(): a mutable handle.
cfx_config_builder <- function() .cx(C_cfx_config_builder_new)

#' Applies one setting to a builder (see cfx_config() for names and values).
cfx_config_set <- function(builder, name, value) {
  value <- if ((identical(name, "seed") && is.character(value)) ||
                (name %in% c("resume", "mlp_bound_tightening") && is.logical(value))) value else as.numeric(value)
  setter <- if (is.character(name) && length(name) == 1L) .config_setters[[name]] else NULL
  if (is.null(setter)) {
    stop(sprintf("cfx: unknown configuration setting '%s'", paste(name, collapse = " ")), call. = FALSE)
  }
  if (setter$n > 0L && (!is.double(value) || length(value) != setter$n)) {
    stop(sprintf("cfx: setting '%s' takes %d number(s)", name, setter$n), call. = FALSE)
  }
  args <- if (setter$n > 0L) as.list(value) else list(value)
  f <- get(setter$f, envir = asNamespace("cfx"))
  invisible(do.call(.cx_call, c(list(sys.call(), f, builder), args), quote = TRUE))
}

#' Turns a builder into an immutable configuration; the builder is consumed
#' (it is freed, also when building fails).
cfx_config_build <- function(builder) .cx(C_cfx_config_build, builder)

#' The settings of a configuration as a list (NULL = the method's default).
as.list.cfx_config <- function(x, ...) {
  jsonlite::fromJSON(cfx_to_json(x), simplifyVector = TRUE)
}

print.cfx_config <- function(x, ...) {
  if (.freed_line(x, "configuration")) return(invisible(x))
  s <- as.list(x)
  flat <- c(s[names(s) != "rl"], stats::setNames(s$rl, paste0("rl_", names(s$rl))))
  set <- flat[!vapply(flat, is.null, TRUE)]
  if (length(set) == 0L) {
    cat("A cfx configuration with every setting at its method's default.\n")
  } else {
    cat("A cfx configuration; other settings use each method's default:\n")
    for (n in names(set)) {
      cat(sprintf("  %s: %s\n", gsub("_", " ", n), paste(format(set[[n]]), collapse = ", ")))
    }
  }
  invisible(x)
}

print.cfx_config_builder <- function(x, ...) {
  if (.freed_line(x, "configuration builder")) return(invisible(x))
  cat("A cfx configuration builder (use cfx_config_set(), then cfx_config_build()).\n")
  invisible(x)
}

# Each setting's builder entry point (by name: the symbols exist once the
# package's library is loaded) and how many numbers it takes (0: the value
# goes as it is, e.g. a seed string or the hidden layer sizes).
.config_setters <- list(
  time_limit = list(f = "C_cfx_config_builder_set_time_limit", n = 1L),
  threads = list(f = "C_cfx_config_builder_set_threads", n = 1L),
  mip_gap = list(f = "C_cfx_config_builder_set_mip_gap", n = 1L),
  margin = list(f = "C_cfx_config_builder_set_margin", n = 1L),
  n_diverse = list(f = "C_cfx_config_builder_set_n_diverse", n = 1L),
  solver = list(f = "C_cfx_config_builder_set_solver", n = 1L),
  node_limit = list(f = "C_cfx_config_builder_set_node_limit", n = 1L),
  diversity_rule = list(f = "C_cfx_config_builder_set_diversity_rule", n = 1L),
  n_samples = list(f = "C_cfx_config_builder_set_n_samples", n = 1L),
  bound_m = list(f = "C_cfx_config_builder_set_bound_m", n = 1L),
  target = list(f = "C_cfx_config_builder_set_target", n = 2L),
  copa_weights = list(f = "C_cfx_config_builder_set_copa_weights", n = 2L),
  copa_radius = list(f = "C_cfx_config_builder_set_copa_radius", n = 1L),
  robust_advice = list(f = "C_cfx_config_builder_set_robust_advice", n = 2L),
  robust_box = list(f = "C_cfx_config_builder_set_robust_box", n = 1L),
  rl_episodes = list(f = "C_cfx_config_builder_set_rl_episodes", n = 2L),
  rl_training = list(f = "C_cfx_config_builder_set_rl_training", n = 5L),
  rl_exploration = list(f = "C_cfx_config_builder_set_rl_exploration", n = 2L),
  seed = list(f = "C_cfx_config_builder_set_seed", n = 0L),
  rl_hidden = list(f = "C_cfx_config_builder_set_rl_hidden", n = 0L),
  resume = list(f = "C_cfx_config_builder_set_resume", n = 0L),
  mlp_bound_tightening = list(f = "C_cfx_config_builder_set_mlp_bound_tightening", n = 0L)
)
