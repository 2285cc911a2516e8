# Glue between the generated .Call entry points (one per C function, named
# C_<function>; bindings/gen/emit_r.py) and the package's functions: the few
# shapes R users get that take several C calls (a matrix of rows, every name).

# Row-major values of a numeric matrix (the layout of the C API's row arrays).
.row_major <- function(m) as.double(t(m))

# f(handle, row) on every row of the numeric matrix m; a matrix of `width`
# columns, one row per row of m.
.map_rows <- function(f, handle, m, width) {
  if (!is.matrix(m) || !is.double(m)) stop("cfx: rows must be a double matrix", call. = FALSE)
  tm <- t(m)
  out <- vapply(seq_len(nrow(m)), function(i) .Call(f, handle, tm[, i]), numeric(width))
  matrix(out, nrow(m), width, byrow = TRUE)
}

# TRUE/FALSE, refusing anything else (what the C API's int32_t flags take).
.flag <- function(x, what) {
  if (!is.logical(x) || length(x) != 1L || is.na(x)) {
    stop(sprintf("cfx: '%s' must be TRUE or FALSE", what), call. = FALSE)
  }
  x
}

.feature_names <- function(schema) {
  n <- .Call(C_cfx_schema_n_features, schema)
  vapply(seq_len(n) - 1, function(i) .Call(C_cfx_schema_feature_name, schema, i), "")
}

.labels <- function(dataset) {
  n <- .Call(C_cfx_dataset_n_rows, dataset)
  vapply(seq_len(n) - 1, function(i) .Call(C_cfx_dataset_label, dataset, i), 0)
}

.dataset_rows <- function(dataset) {
  n <- .Call(C_cfx_dataset_n_rows, dataset)
  s <- .Call(C_cfx_dataset_schema, dataset)
  nf <- .Call(C_cfx_schema_n_features, s)
  .Call(C_cfx_schema_free, s)
  out <- vapply(seq_len(n) - 1, function(i) .Call(C_cfx_dataset_row, dataset, i), numeric(nf))
  matrix(out, n, nf, byrow = TRUE)
}

# One number, refusing anything else (named as the R argument).
.num1 <- function(x, what) {
  if (!is.numeric(x) || length(x) != 1L) {
    stop(sprintf("cfx: '%s' must be a single number", what), call. = FALSE)
  }
  as.numeric(x)
}

.model_info <- function(model) {
  kind <- .Call(C_cfx_model_get_kind, model)
  list(kind = switch(as.character(kind), "0" = "linear", "1" = "mlp", "2" = "scorecard",
                     "3" = "trees", "unknown"),
       input_dim = .Call(C_cfx_model_input_dim, model),
       threshold = .Call(C_cfx_model_threshold, model))
}

# cfx_model_predict (schema NULL, encoded rows) or cfx_model_predict_raw on
# every row of the matrix x: list(score, probability, accepted).
.predict_rows <- function(f, model, schema, x) {
  if (!is.matrix(x) || !is.double(x)) stop("cfx: rows must be a double matrix", call. = FALSE)
  n <- nrow(x)
  score <- prob <- numeric(n)
  acc <- logical(n)
  for (i in seq_len(n)) {
    p <- if (is.null(schema)) .Call(f, model, x[i, ]) else .Call(f, model, schema, x[i, ])
    score[i] <- p$score
    prob[i] <- p$probability
    acc[i] <- p$accepted
  }
  list(score = score, probability = prob, accepted = acc)
}

# Everything a coherent result holds: outcome, blocking mask, the
# counterfactuals (a matrix, one row each) and their certificate columns.
.coherent_all <- function(result) {
  o <- .Call(C_cfx_coherent_result_outcome, result)
  n <- .Call(C_cfx_coherent_result_count, result)
  rows <- lapply(seq_len(n) - 1, function(k) .Call(C_cfx_coherent_result_counterfactual, result, k))
  cf <- if (n > 0) do.call(rbind, rows) else matrix(numeric(), 0L, 0L)
  cert <- lapply(seq_len(n) - 1, function(k) .Call(C_cfx_coherent_result_certificate, result, k))
  col <- function(name) vapply(cert, function(c) c[[name]], 0)
  list(outcome = o$outcome, blocking_mask = o$blocking_mask, counterfactuals = cf,
       cost = col("cost"), score = col("score"), probability = col("probability"),
       objective = col("objective"), mip_gap = col("mip_gap"), solve_seconds = col("solve_seconds"),
       invalidation_rate = vapply(seq_len(n) - 1, function(k)
         .Call(C_cfx_coherent_result_invalidation_rate, result, k), 0))
}

# Waiting advice: found, outcome, proven and, when found, months, wait_cost,
# total_cost, proved_by (-1: waiting alone), waited and final rows.
.waiting_all <- function(advice) {
  outcome <- .Call(C_cfx_waiting_advice_outcome, advice)
  r <- list(found = outcome == 0L, outcome = outcome,
            proven = .Call(C_cfx_waiting_advice_proven, advice))
  if (!r$found) return(r)
  s <- .Call(C_cfx_waiting_advice_summary, advice)
  c(r, list(months = as.integer(s$months), wait_cost = s$wait_cost, total_cost = s$total_cost,
            proved_by = s$proved_by,
            waited = .Call(C_cfx_waiting_advice_waited_row, advice),
            final = .Call(C_cfx_waiting_advice_final_row, advice)))
}

# Every option of a COPA plan, one raw row each.
.copa_options <- function(result) {
  n <- .Call(C_cfx_copa_result_n_options, result)
  rows <- lapply(seq_len(n) - 1, function(k) .Call(C_cfx_copa_result_option_raw, result, k))
  if (n > 0) do.call(rbind, rows) else matrix(numeric(), 0L, 0L)
}

# A plan's success, initial probability and steps (feature 0-based, from, to,
# probability after the step, the step in words).
.plan_info <- function(plan) {
  n <- .Call(C_cfx_plan_n_steps, plan)
  s <- .Call(C_cfx_plan_success, plan)
  steps <- lapply(seq_len(n) - 1, function(i) .Call(C_cfx_plan_step, plan, i))
  col <- function(name) vapply(steps, function(p) p[[name]], 0)
  list(success = s$success, initial_probability = s$initial_probability,
       feature = col("feature"), from = col("from"), to = col("to"),
       probability = col("probability"),
       text = vapply(seq_len(n) - 1, function(i) .Call(C_cfx_plan_step_text, plan, i), ""))
}

# One row per group of a portfolio summary ("all" first, group -1): counts,
# share with recourse, median and p90 cost, then the cost quantiles.
.portfolio_table <- function(summary) {
  groups <- seq_len(.Call(C_cfx_portfolio_summary_n_groups, summary) + 1) - 2
  rows <- lapply(groups, function(g) {
    k <- .Call(C_cfx_portfolio_summary_counts, summary, g)
    q <- .Call(C_cfx_portfolio_summary_cost_quantiles, summary, g)
    c(list(group = .Call(C_cfx_portfolio_summary_group_name, summary, g)), k$counts,
      list(share_with_recourse = k$share_with_recourse, median_cost = k$median_cost,
           p90_cost = k$p90_cost),
      stats::setNames(as.list(q[1:9]), c("cost_n", "cost_mean", "cost_min", "cost_p10", "cost_p25",
                                         "cost_median", "cost_p75", "cost_p90", "cost_max")))
  })
  cols <- names(rows[[1L]])
  out <- lapply(cols, function(n) {
    v <- lapply(rows, `[[`, n)
    if (n == "group") vapply(v, identity, "") else vapply(v, as.numeric, 0)
  })
  names(out) <- cols
  out
}
