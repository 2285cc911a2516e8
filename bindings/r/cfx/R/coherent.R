.coherent_outcomes <- c("optimal", "time_limit", "infeasible", "unknown")

#' The optimal coherent counterfactual of a declined applicant under a
#' logistic model (a mixed-integer programme solved by HiGHS), or a proof that
#' none exists; with `diverse = TRUE` also up to n_diverse - 1 diverse
#' alternatives (see cfx_config()). `applicant` is a one-row data frame or a
#' raw vector. Infeasibility and time limits are outcomes, not errors.
cfx_explain <- function(model, applicant, schema, config = NULL, diverse = FALSE) {
  raw <- .raw_matrix(schema, applicant)
  if (nrow(raw) != 1L) stop("cfx: 'applicant' must be one applicant", call. = FALSE)
  .fam_call("coherent", if (isTRUE(diverse)) "C_cfx_coherent_explain_diverse" else "C_cfx_coherent_explain",
            schema, model, config, raw[1L, ])
}

# Everything a result holds, in one library round trip.
.coherent <- function(result) .cxr(.coherent_all(result))

#' The solver outcome ("optimal", "time_limit", "infeasible" or "unknown") and
#' the bit mask of the constraint groups that block an infeasible applicant.
cfx_outcome <- function(result) {
  r <- .coherent(result)
  list(outcome = .coherent_outcomes[r$outcome + 1L], blocking_mask = r$blocking_mask)
}

#' The counterfactuals as a data frame (one row each, the optimal first) with
#' their certificates: weighted L1 cost, score, probability, solver objective,
#' MIP gap, solve seconds, and the exact invalidation rate under the
#' configuration's `robust_advice` noise (NA without it).
as.data.frame.cfx_coherent_result <- function(x, ...) {
  r <- .coherent(x)
  schema <- .Call(C_handle_prot, x)
  cf <- r$counterfactuals
  if (nrow(cf) == 0L) cf <- matrix(numeric(), 0L, as.integer(cfx_n_features(schema)))
  df <- .raw_data_frame(schema, cf)
  cbind(df, data.frame(cost = r$cost, score = r$score, probability = r$probability,
                       objective = r$objective, mip_gap = r$mip_gap,
                       solve_seconds = r$solve_seconds,
                       invalidation_rate = r$invalidation_rate))
}

#' Counterfactual `k` (1 = the optimal one) as a one-row data frame.
cfx_counterfactual <- function(result, k = 1) {
  raw <- .fam_call("coherent", "C_cfx_coherent_result_counterfactual", result, as.numeric(k) - 1)
  .raw_data_frame(.Call(C_handle_prot, result), matrix(raw, nrow = 1L))
}

#' The explanation in plain words, one line per counterfactual (for a COPA
#' plan, one line per option; for waiting advice, "wait 9 months (...), then ...";
#' for a robust result, the advice and how it was obtained, or "no valid advice found (...)").
cfx_describe <- function(result) {
  if (inherits(result, "cfx_copa_result")) return(.fam_call("copa", "C_cfx_copa_result_describe", result))
  if (inherits(result, "cfx_waiting_advice")) return(.fam_call("coherent", "C_cfx_waiting_advice_describe", result))
  if (inherits(result, "cfx_robust_result")) return(.fam_call("robust", "C_cfx_robust_result_advice_describe", result))
  .fam_call("coherent", "C_cfx_coherent_result_describe", result)
}

cfx_to_json.cfx_coherent_result <- function(x) .fam_call("coherent", "C_cfx_coherent_result_to_json", x)

print.cfx_coherent_result <- function(x, ...) {
  if (.freed_line(x, "explanation")) return(invisible(x))
  o <- cfx_outcome(x)
  n <- nrow(.coherent(x)$counterfactuals)
  cat(sprintf("A cfx explanation (solver outcome: %s) with %d counterfactual%s:\n",
              gsub("_", " ", o$outcome), n, if (n == 1L) "" else "s"))
  text <- cfx_describe(x)
  lines <- strsplit(text, "\n", fixed = TRUE)[[1L]]
  for (l in lines[nzchar(lines)]) cat("  ", l, "\n", sep = "")
  invisible(x)
}

#' The optimal coherent counterfactual of every applicant (rows of a data
#' frame or of a raw matrix), solved `threads` applicants at a time (the
#' configuration's thread count, default 1), one HiGHS thread each: applicant
#' i's answer equals cfx_explain() of row i. An applicant that cannot be
#' explained (already accepted, incoherent) does not fail the call: see
#' cfx_batch_status(). Returns a cfx_coherent_batch.
cfx_explain_batch <- function(model, applicants, schema, config = NULL) {
  raw <- .raw_matrix(schema, applicants)
  .fam_call("coherent_batch", "C_cfx_coherent_explain_batch", schema, model, config, .row_major(raw),
            nrow(raw))
}

#' One row per applicant of a batch: `status` (the cfx status name,
#' "CFX_STATUS_OK" when explained) and `error` ("" when explained).
cfx_batch_status <- function(batch) {
  n <- length(batch)
  idx <- seq_len(n) - 1
  codes <- vapply(idx, function(i) .fam_call("coherent_batch", "C_cfx_coherent_batch_status", batch, i), 0L)
  errors <- vapply(idx, function(i) .fam_call("coherent_batch", "C_cfx_coherent_batch_error", batch, i), "")
  data.frame(status = vapply(codes, cfx_status_name, ""), error = errors, stringsAsFactors = FALSE)
}

#' The result of applicant `i` (1-based) of a batch, a cfx_coherent_result
#' that outlives the batch; an applicant that was not explained raises its
#' own cfx error (e.g. cfx_error_invalid_argument).
cfx_batch_result <- function(batch, i) {
  .fam_call("coherent_batch", "C_cfx_coherent_batch_result", batch, as.numeric(i) - 1)
}

length.cfx_coherent_batch <- function(x) {
  as.integer(.fam_call("coherent_batch", "C_cfx_coherent_batch_count", x))
}

cfx_to_json.cfx_coherent_batch <- function(x) .fam_call("coherent_batch", "C_cfx_coherent_batch_to_json", x)

print.cfx_coherent_batch <- function(x, ...) {
  if (.freed_line(x, "batch")) return(invisible(x))
  st <- cfx_batch_status(x)
  ok <- sum(st$status == "CFX_STATUS_OK")
  cat(sprintf("A cfx batch of %d applicant%s, %d explained\n", nrow(st),
              if (nrow(st) == 1L) "" else "s", ok))
  invisible(x)
}

#' The cheapest advice when waiting is an action of the schema
#' (cfx_advice_preset(), cfx_set_waiting()): the exact minimum over every
#' allowed wait of the wait's cost plus the optimal coherent counterfactual of
#' the waited row. `applicant` is a one-row data frame or a raw vector.
#' Returns a cfx_waiting_advice; read it with cfx_waiting(). When no wait and
#' no move is accepted, cfx_waiting()$found is FALSE (a result, not an error);
#' so is a solve stopped at a limit: cfx_waiting()$proven is then FALSE.
cfx_explain_with_waiting <- function(model, applicant, schema, config = NULL) {
  raw <- .raw_matrix(schema, applicant)
  if (nrow(raw) != 1L) stop("cfx: 'applicant' must be one applicant", call. = FALSE)
  .fam_call("coherent", "C_cfx_coherent_explain_with_waiting", schema, model, config, raw[1L, ])
}

#' Waiting advice as a list: `found`, `outcome` ("found"; "no_advice": proven
#' that no wait and no move is accepted; "unproven": none found and none
#' proven impossible, a solve stopped at a limit), `proven` (with "found":
#' whether the advice is the proven optimum, FALSE when a solve stopped at a
#' limit and it is the best found), and when found `months` (0: act now),
#' `wait_cost`, `total_cost` (wait plus moves), `proved_by` ("highs",
#' "separable", or NA when waiting alone is accepted), `waited` (the raw row
#' after waiting) and `final` (the raw row to reach).
cfx_waiting <- function(advice) {
  r <- .cxr(.waiting_all(advice))
  r$outcome <- c("found", "no_advice", "unproven")[r$outcome + 1L]
  if (!r$found) return(r)
  r$proved_by <- if (r$proved_by < 0L) NA_character_ else c("highs", "separable", "tree_search")[r$proved_by + 1L]
  r
}

cfx_to_json.cfx_waiting_advice <- function(x) .fam_call("coherent", "C_cfx_waiting_advice_to_json", x)

print.cfx_waiting_advice <- function(x, ...) {
  if (.freed_line(x, "waiting advice")) return(invisible(x))
  cat("cfx waiting advice: ", cfx_describe(x), "\n", sep = "")
  invisible(x)
}
