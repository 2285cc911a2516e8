# COPA: counterfactual plans under model shift (Bui, Nguyen & Nguyen 2022). The future model's
# parameters theta = (bias, w) are uncertain, known by their mean and
# covariance (a cfx_uncertainty); a plan is a set of options whose joint
# validity is bounded by L* <= P(every option stays valid) <= U*.

.cp <- function(name, ...) .fam_call("copa", name, ...)

# Names of the cfx_copa_status codes (0-based), as the C enum spells them.
.copa_statuses <- c("optimal", "near_optimal", "infeasible", "unbounded", "limit",
                    "numerical_failure", "trivial_mean_outside", "trivial_mean_inside", "trivial")

.copa_status_name <- function(code) {
  code <- as.integer(code)
  ifelse(code >= 0L & code < length(.copa_statuses), .copa_statuses[code + 1L], NA_character_)
}

#' The uncertainty of the future model: mean `mean` of theta = (bias, w)
#' (intercept first, length d >= 2) and its d x d covariance `cov`
#' (symmetric positive semidefinite; a vector is taken as its diagonal).
cfx_uncertainty <- function(mean, cov) {
  mean <- as.numeric(mean)
  if (!is.matrix(cov)) cov <- if (length(cov) == length(mean)) diag(as.numeric(cov), length(mean)) else
    matrix(as.numeric(cov), nrow = length(mean))
  storage.mode(cov) <- "double"
  .cp("C_cfx_uncertainty_new", mean, .row_major(cov))
}

#' The uncertainty estimated from `refits` logistic regressions, each refitted
#' on a random half of `train` (seeded); the covariance is 1.5 x the sample one.
cfx_uncertainty_from_dataset <- function(train, refits = 1000, seed = 0) {
  .cp("C_cfx_uncertainty_from_dataset", train, as.numeric(refits), .seed(seed))
}

#' The dimension d of theta (1 + the encoded dimension).
cfx_uncertainty_dim <- function(uncertainty) .cp("C_cfx_uncertainty_dim", uncertainty)

#' The bounds L* <= P(every option stays valid) <= U* of a plan given as
#' encoded options (one row each, without the intercept) under every law within
#' Gelbrich distance `rho` of the uncertainty. A failed solve is not an error:
#' its bound is NaN and its status says why.
cfx_copa_bounds <- function(uncertainty, options, rho = 0) {
  if (!is.matrix(options)) options <- matrix(as.numeric(options), nrow = 1L)
  storage.mode(options) <- "double"
  v <- .cp("C_cfx_copa_bounds", uncertainty, .row_major(options), nrow(options), ncol(options),
           as.numeric(rho))
  list(lower = v[["lower"]], upper = v[["upper"]],
       lower_status = .copa_status_name(v[["lower_status"]]),
       upper_status = .copa_status_name(v[["upper_status"]]),
       lower_code = as.integer(v[["lower_status"]]), upper_code = as.integer(v[["upper_status"]]))
}

#' A COPA plan for one applicant (data frame row or raw vector): `config`
#' supplies n_diverse (the number of options), seed, copa_weights and
#' copa_radius (NULL: 5 options, diversity 50 / validity 2, rho 0, seed 0).
#' With today's `model`, every option is checked as advice (issue 25): one
#' the model declines is repaired by the exact engine or is "no valid advice
#' found" (`cfx_advice_status`, `cfx_advice_row`, `cfx_describe`).
cfx_copa_plan <- function(uncertainty, applicant, schema, config = NULL, model = NULL) {
  raw <- .raw_matrix(schema, applicant)
  if (nrow(raw) != 1L) stop("cfx: 'applicant' must be one applicant", call. = FALSE)
  if (!is.null(model)) {
    return(.cp("C_cfx_copa_plan_new_checked", schema, uncertainty, model, config, raw[1L, ]))
  }
  .cp("C_cfx_copa_plan_new", schema, uncertainty, config, raw[1L, ])
}

#' The number of options of a plan.
cfx_copa_n_options <- function(result) .cp("C_cfx_copa_result_n_options", result)

#' Option `k` (1-based) of a plan as a one-row data frame; a `k` past the
#' last option is a cfx_error_not_found.
cfx_copa_option <- function(result, k) {
  raw <- .cp("C_cfx_copa_result_option_raw", result, as.numeric(k) - 1)
  .raw_data_frame(.Call(C_handle_prot, result), matrix(raw, nrow = 1L))
}

#' The figures of a plan: proximity, diversity, the validity proxy, and the
#' bounds lower (L*) and upper (U*) at the configured rho.
cfx_copa_metrics <- function(result) as.list(.cp("C_cfx_copa_result_metrics", result))

#' Every option of a plan, one row each (a data frame of raw values).
as.data.frame.cfx_copa_result <- function(x, ...) {
  .raw_data_frame(.Call(C_handle_prot, x), .cxr(.copa_options(x)))
}

cfx_to_json.cfx_copa_result <- function(x) .cp("C_cfx_copa_result_to_json", x)

print.cfx_copa_result <- function(x, ...) {
  if (.freed_line(x, "COPA plan")) return(invisible(x))
  m <- cfx_copa_metrics(x)
  n <- cfx_copa_n_options(x)
  cat(sprintf("A COPA plan with %d option%s; all stay valid with probability between %s and %s:\n",
              as.integer(n), if (n == 1) "" else "s", .pct(m$lower), .pct(m$upper)))
  cat(cfx_describe(x), sep = "")
  invisible(x)
}

print.cfx_uncertainty <- function(x, ...) {
  if (.freed_line(x, "uncertainty")) return(invisible(x))
  cat(sprintf("<cfx uncertainty of a model with %d parameters (intercept first)>\n",
              as.integer(cfx_uncertainty_dim(x))))
  invisible(x)
}

#' Corrects a plan (Bui, Nguyen & Nguyen 2022, section 3): every option (a row of `options`,
#' encoded, without the intercept) is projected onto {x : mean' (1, x) >= 0.1},
#' then the ceiling(J/2) options with the largest dual weights of L* at radius
#' `rho` get the Mahalanobis improvement with perturbation limit `delta`
#' (>= 0). Every coordinate may move (no schema constraints). Returns
#' list(options = the corrected matrix, lower_before, lower_after): L* of the
#' plan as given and as corrected (NaN when a solve was not usable).
cfx_copa_correct <- function(uncertainty, options, rho = 0, delta = 0.1) {
  if (!is.matrix(options)) options <- matrix(as.numeric(options), nrow = 1L)
  storage.mode(options) <- "double"
  r <- .fam_call("copa_correct", "C_cfx_copa_correct", uncertainty, .row_major(options), nrow(options),
                 ncol(options), as.numeric(rho), as.numeric(delta))
  list(options = matrix(r$buf, nrow = nrow(options), ncol = ncol(options), byrow = TRUE),
       lower_before = r$lower_before, lower_after = r$lower_after)
}
