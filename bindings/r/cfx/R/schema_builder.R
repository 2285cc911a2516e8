#' Schemas built in code: the library's schema builder.
#'
#' Each adder returns the builder invisibly, so calls chain with |>.
#' Building consumes the builder (also when it fails).
cfx_schema_builder <- function() .cx(C_cfx_schema_builder_new)

cfx_add_contiguous <- function(builder, name, lower, upper, integer = FALSE) {
  .cx(C_cfx_schema_builder_add_contiguous, builder, name, as.numeric(lower), as.numeric(upper),
      isTRUE(integer))
  invisible(builder)
}

cfx_add_categorical <- function(builder, name, levels) {
  .cx(C_cfx_schema_builder_add_categorical, builder, name, enc2utf8(as.character(levels)))
  invisible(builder)
}

#' Declares a special code (outside the range) of the last added contiguous
#' feature, e.g. -9 for "no bureau record".
cfx_add_special_state <- function(builder, code, label) {
  .cx(C_cfx_schema_builder_add_special_state, builder, as.numeric(code), label)
  invisible(builder)
}

.directions <- c("any", "increase_only", "decrease_only")

#' What an applicant may change about the last added feature.
cfx_set_actionability <- function(builder, mutable = TRUE, direction = "any") {
  d <- if (is.numeric(direction)) as.integer(direction) else match(direction, .directions) - 1L
  if (length(d) != 1L || is.na(d)) {
    stop(sprintf("cfx: 'direction' must be one of %s", paste(dQuote(.directions, FALSE), collapse = ", ")),
         call. = FALSE)
  }
  .cx(C_cfx_schema_builder_set_actionability, builder, isTRUE(mutable), as.integer(d))
  invisible(builder)
}

#' Actionable bounds of the last added (contiguous) feature: advice stays in
#' [lower, upper] (raw units, inside the feature's range; checked when built).
cfx_set_actionable_bounds <- function(builder, lower, upper) {
  .cx(C_cfx_schema_builder_set_actionable_bounds, builder, as.numeric(lower), as.numeric(upper))
  invisible(builder)
}

#' Advice a person can carry out (issue 43), for the last added (contiguous)
#' feature: every value advice moves it to is a whole multiple of
#' `advice_step` (0: the data's own grid), and a change of it is at least
#' `min_change` (0: any change); staying put is always allowed.
cfx_set_advice_grid <- function(builder, advice_step = 0, min_change = 0) {
  .cx(C_cfx_schema_builder_set_advice_grid, builder, as.numeric(advice_step), as.numeric(min_change))
  invisible(builder)
}

#' Cost scale (> 0) of the last added feature: multiplies its distance weights.
cfx_set_cost_scale <- function(builder, cost_scale) {
  .cx(C_cfx_schema_builder_set_cost_scale, builder, as.numeric(cost_scale))
  invisible(builder)
}

#' Forbids the move from state `from` to state `to` of the last added feature:
#' "value", a special state's label or code, a level name, or "*" (any state).
cfx_forbid_transition <- function(builder, from, to) {
  .cx(C_cfx_schema_builder_add_forbidden_transition, builder, enc2utf8(from), enc2utf8(to))
  invisible(builder)
}

#' Puts the last added (contiguous) feature on the grid lower + k * step.
#' Orders the levels of the last added categorical feature from worst to
#' best (all or some). With an order the feature's direction speaks of it
#' ("increase_only": only to a better listed level) instead of the level
#' index; every method honours it.
cfx_set_level_order <- function(builder, levels) {
  .cx(C_cfx_schema_builder_set_level_order, builder, enc2utf8(as.character(levels)))
  invisible(builder)
}

cfx_set_step <- function(builder, step) {
  .cx(C_cfx_schema_builder_set_step, builder, as.numeric(step))
  invisible(builder)
}

.change_limit <- function(limit, what) {
  if (is.null(limit)) return(list(kind = 0L, value = 0))
  unit <- if (is.null(names(limit))) "units" else names(limit)
  if (!is.numeric(limit) || length(limit) != 1L || !(unit %in% c("units", "fraction"))) {
    stop(sprintf("cfx: '%s' must be NULL, a number of units, c(units = u) or c(fraction = f)", what),
         call. = FALSE)
  }
  list(kind = if (unit == "units") 1L else 2L, value = unname(as.numeric(limit)))
}

#' Change limits of the last added (contiguous) feature, relative to the
#' applicant's own value (issue #16): NULL (none), a number of raw units
#' (`12` or `c(units = 12)`) or a fraction of the applicant's value
#' (`c(fraction = 0.5)`). Non-negative; checked when built.
cfx_set_change_limits <- function(builder, max_increase = NULL, max_decrease = NULL) {
  inc <- .change_limit(max_increase, "max_increase")
  dec <- .change_limit(max_decrease, "max_decrease")
  .cx(C_cfx_schema_builder_set_change_limits, builder, inc$kind, inc$value, dec$kind, dec$value)
  invisible(builder)
}

#' The last added feature grows by `per_month` raw units per month of waiting
#' and moves no other way; `ends_in` (NULL: none) names the special state it
#' enters past its upper bound. The schema then needs `cfx_set_waiting`.
cfx_set_time_growth <- function(builder, per_month = 1, ends_in = NULL) {
  .cx(C_cfx_schema_builder_set_time_growth, builder, as.numeric(per_month),
      if (is.null(ends_in)) NULL else enc2utf8(as.character(ends_in)))
  invisible(builder)
}

#' Closes the last added feature's time window early: once its value would
#' pass `ends_after` (within the feature's range) it enters the state
#' `cfx_set_time_growth` named in `ends_in`, instead of only past its upper
#' bound. Call after `cfx_set_time_growth` with an `ends_in`.
cfx_set_time_growth_ends_after <- function(builder, ends_after) {
  .cx(C_cfx_schema_builder_set_time_growth_ends_after, builder, as.numeric(ends_after))
  invisible(builder)
}

#' Says what waiting does once the last added feature's value would pass its
#' upper bound: `refuse` TRUE refuses such a wait (the applicant may wait only
#' as long as the feature stays within its range; JSON `"past_upper":
#' "refuse"`), FALSE caps the value at the bound (the default). The bound is
#' the data's largest value, not the end of time. Call after
#' `cfx_set_time_growth`; refusing with an `ends_in` state is refused by
#' `cfx_schema_build`.
cfx_set_time_growth_refuse_past_upper <- function(builder, refuse = TRUE) {
  .cx(C_cfx_schema_builder_set_time_growth_refuse_past_upper, builder, isTRUE(refuse))
  invisible(builder)
}

#' Limits where waiting may lead the last added feature: a wait that would move
#' its value outside `[low, high]` (raw units) is not advised by any method
#' (JSON `"advised_range": [low, high]`); a wait that leaves the value
#' unchanged or carries it into its `ends_in` state is not judged by it.
#' `cfx_plausibility_advise_waits` sets these ranges from the accepted
#' applicants' 1-99% range. Call after `cfx_set_time_growth`; `low > high` is
#' refused by `cfx_schema_build`.
cfx_set_time_growth_advised_range <- function(builder, low, high) {
  .cx(C_cfx_schema_builder_set_time_growth_advised_range, builder, as.numeric(low), as.numeric(high))
  invisible(builder)
}

#' One duration band of the last added (categorical) feature: waiting
#' `months` from the start of band `level` moves it to the next level of its
#' order; the feature then moves only by waiting. Call once per band.
cfx_set_band_months <- function(builder, level, months) {
  .cx(C_cfx_schema_builder_set_band_months, builder, enc2utf8(as.character(level)),
      as.numeric(months))
  invisible(builder)
}

#' At most `cap` (>= 1) features changed by one piece of advice (what waiting
#' moves is not counted). Without a call there is no cap; 0 is refused.
cfx_set_max_features_changed <- function(builder, cap) {
  .cx(C_cfx_schema_builder_set_max_features_changed, builder, as.numeric(cap))
  invisible(builder)
}

#' Gives the schema a "wait m months" action: its cost per month (in the
#' distance's units) and the longest wait (1 to 600 months; checked when built).
cfx_set_waiting <- function(builder, cost_per_month, max_months) {
  .cx(C_cfx_schema_builder_set_waiting, builder, as.numeric(cost_per_month), as.numeric(max_months))
  invisible(builder)
}

cfx_schema_build <- function(builder) .cx(C_cfx_schema_build, builder)

print.cfx_schema_builder <- function(x, ...) {
  if (.freed_line(x, "schema builder")) return(invisible(x))
  cat("A cfx schema builder (add features, then cfx_schema_build()).\n")
  invisible(x)
}

#' A schema for the columns of a data frame: factor, character and logical
#' columns become categorical features (their levels, in order), numeric
#' columns contiguous features spanning the observed range (whole numbers
#' when every value is). `special_states` names, per column, codes that are
#' states rather than values (e.g. list(months_since_default = c("never" = -9)));
#' they are left out of the range. Columns named in `immutable` cannot
#' change; `increase_only` / `decrease_only` fix a direction.
cfx_schema_from_data <- function(data, immutable = character(), increase_only = character(),
                                 decrease_only = character(), special_states = list()) {
  stopifnot(is.data.frame(data))
  known <- c(immutable, increase_only, decrease_only, names(special_states))
  unknown <- setdiff(known, names(data))
  if (length(unknown)) {
    stop(sprintf("cfx: no column named %s", paste(sQuote(unknown, FALSE), collapse = ", ")),
         call. = FALSE)
  }
  b <- cfx_schema_builder()
  on.exit(cfx_free(b)) # a no-op once built
  for (name in names(data)) {
    col <- data[[name]]
    if (is.factor(col) || is.character(col) || is.logical(col)) {
      lv <- if (is.factor(col)) levels(col) else sort(unique(as.character(col[!is.na(col)])))
      cfx_add_categorical(b, name, lv)
    } else if (is.numeric(col)) {
      codes <- special_states[[name]]
      v <- col[!is.na(col) & !(col %in% codes)]
      if (length(v) == 0L) stop(sprintf("cfx: column '%s' has no values", name), call. = FALSE)
      cfx_add_contiguous(b, name, min(v), max(v), integer = all(v == round(v)))
      for (k in seq_along(codes)) cfx_add_special_state(b, codes[[k]], names(codes)[k])
    } else {
      stop(sprintf("cfx: column '%s' is neither numeric nor categorical", name), call. = FALSE)
    }
    if (name %in% immutable) {
      cfx_set_actionability(b, mutable = FALSE)
    } else if (name %in% increase_only) {
      cfx_set_actionability(b, direction = "increase_only")
    } else if (name %in% decrease_only) {
      cfx_set_actionability(b, direction = "decrease_only")
    }
  }
  cfx_schema_build(b)
}
