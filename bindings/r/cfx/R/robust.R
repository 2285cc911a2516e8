# Robustness of recourse: noise models, Monte Carlo invalidation estimates
# (Guyomard et al. 2023), PROBE's first-order rate, and robust generators (Wachter,
# PROBE, CROCO).

.rb <- function(name, ...) .fam_call("robust", name, ...)

#' Isotropic Gaussian noise N(0, sigma2 I) on the mutable contiguous value
#' slots of a schema (`sigma2` is the variance, CROCO's 0.01).
cfx_noise_gaussian <- function(schema, sigma2) .rb("C_cfx_noise_gaussian_new", schema, as.numeric(sigma2))

#' Noise on chosen encoded columns (1-based, increasing): Gaussian with
#' variances `scale` (sigma^2 per column, as `sigma2` of `cfx_noise_gaussian`),
#' or uniform on [-scale, scale].
cfx_noise <- function(columns, scale, kind = c("gaussian", "uniform")) {
  kind <- match.arg(kind)
  .rb("C_cfx_noise_new", match(kind, c("gaussian", "uniform")) - 1L, as.numeric(columns) - 1,
      as.numeric(scale))
}

#' A Monte Carlo estimator with `k` samples of `noise`.
cfx_estimator <- function(noise, k, sampling = c("auto", "generic")) {
  sampling <- match.arg(sampling)
  .rb("C_cfx_estimator_new", noise, as.numeric(k), match(sampling, c("auto", "generic")) - 1L)
}

#' A workspace (buffers and a seeded xoshiro256++ generator) for `model`.
cfx_workspace <- function(model, seed = 0) .rb("C_cfx_workspace_new", model, .seed(seed))

#' Restarts a workspace's generator.
cfx_reseed <- function(workspace, seed) invisible(.rb("C_cfx_workspace_reseed", workspace, .seed(seed)))

.seed <- function(seed) if (is.character(seed)) seed else as.numeric(seed)

#' The invalidation rate Gamma (share of noisy copies rejected) and Theta
#' (mean of 1 - f) with standard errors, at an encoded point.
cfx_estimate <- function(estimator, model, workspace, x) {
  unlist(.rb("C_cfx_estimator_estimate", estimator, model, workspace, as.numeric(x)))
}

#' CROCO's bound (m + Theta)/(1 - t) and its confidence 1 - exp(-2 K m^2).
cfx_bound <- function(estimator, model, workspace, x, m) {
  unlist(.rb("C_cfx_estimator_bound", estimator, model, workspace, as.numeric(x), as.numeric(m)))
}

#' PROBE's first-order invalidation rate (no sampling).
cfx_probe_rate <- function(estimator, model, workspace, x) {
  .rb("C_cfx_estimator_probe_rate", estimator, model, workspace, as.numeric(x))
}

#' The exact Gamma of a logistic model under Gaussian noise.
cfx_exact_rate <- function(estimator, model, x) {
  .rb("C_cfx_estimator_exact_rate", estimator, model, as.numeric(x))
}

#' Gamma and Theta for every row of an encoded matrix (a data frame), on
#' `threads` threads (0 = all cores); the same seed gives the same bits for
#' any thread count.
cfx_estimate_batch <- function(estimator, model, x, seed = 0, threads = 1) {
  if (!is.matrix(x)) x <- matrix(as.numeric(x), nrow = 1L)
  storage.mode(x) <- "double"
  as.data.frame(.rb("C_cfx_estimator_estimate_batch", estimator, model, .row_major(x), nrow(x), .seed(seed),
                    as.numeric(threads)))
}

#' Confidence 1 - exp(-2 K m^2) of CROCO's bound (NaN for m <= 0).
cfx_bound_confidence <- function(k, m) .rb("C_cfx_robust_bound_confidence", as.numeric(k), as.numeric(m))

.robust_methods <- c("wachter", "probe", "croco")

#' A robust counterfactual for one applicant under `noise` with `method`
#' ("croco", "probe" or "wachter"); `config` supplies n_samples, bound_m,
#' target, target_epsilon and seed. A missed target is not an error: see
#' `target_met` in the summary.
cfx_robust <- function(model, applicant, schema, noise, method = c("croco", "probe", "wachter"),
                       config = NULL) {
  method <- match.arg(method)
  raw <- .raw_matrix(schema, applicant)
  if (nrow(raw) != 1L) stop("cfx: 'applicant' must be one applicant", call. = FALSE)
  r <- .rb("C_cfx_robust_generate", schema, model, noise, match(method, .robust_methods) - 1L,
           config, raw[1L, ])
  # (the handle keeps the schema alive itself; the model and method go with it for printing)
  attr(r, "cfx_keep") <- list(schema = schema, model = model, method = method)
  r
}

.robust_keep <- function(x) attr(x, "cfx_keep")

# Names of the cfx_advice_status codes (0-based), as the C enum spells them (issue 25).
.advice_statuses <- c("valid", "repaired_moved_features", "repaired_whole_schema", "no_advice")

#' What a method's answer is as advice: "valid" (the model accepts it),
#' "repaired_moved_features" / "repaired_whole_schema" (the exact engine's
#' cheapest accepted row over the features the method moved / every
#' actionable feature) or "no_advice". For a robust result, or option `k`
#' (1-based) of a COPA plan made with a model.
cfx_advice_status <- function(result, k = NULL) {
  code <- if (inherits(result, "cfx_copa_result")) {
    if (is.null(k)) stop("cfx: give the option 'k' of a COPA plan", call. = FALSE)
    .fam_call("copa", "C_cfx_copa_result_option_advice_status", result, as.numeric(k) - 1)
  } else {
    .rb("C_cfx_robust_result_advice_status", result)
  }
  .advice_statuses[code + 1L]
}

#' The advice as a one-row data frame (no rows when there is no valid advice):
#' the method's row, or the exact engine's repair. For a robust result, or
#' option `k` (1-based) of a COPA plan made with a model.
cfx_advice_row <- function(result, k = NULL) {
  if (inherits(result, "cfx_copa_result")) {
    if (is.null(k)) stop("cfx: give the option 'k' of a COPA plan", call. = FALSE)
    raw <- .fam_call("copa", "C_cfx_copa_result_option_advice_raw", result, as.numeric(k) - 1)
    schema <- .Call(C_handle_prot, result)
  } else {
    raw <- .rb("C_cfx_robust_result_advice_raw", result)
    schema <- .robust_keep(result)$schema
  }
  nf <- length(.features(schema))
  .raw_data_frame(schema, matrix(raw, nrow = length(raw) %/% nf, ncol = nf))
}

#' The figures of a robust counterfactual: valid, target_met, probability,
#' distance, gamma and theta on fresh draws, bound and confidence.
cfx_robust_summary <- function(result) {
  .rb("C_cfx_robust_result_summary", result)
}

#' The robust counterfactual encoded (one row).
cfx_robust_encoded <- function(result) matrix(.rb("C_cfx_robust_result_encoded", result), nrow = 1L)

#' The robust counterfactual as a one-row data frame with its figures.
as.data.frame.cfx_robust_result <- function(x, ...) {
  keep <- .robust_keep(x)
  df <- .raw_data_frame(keep$schema, matrix(.rb("C_cfx_robust_result_raw", x), nrow = 1L))
  cbind(df, as.data.frame(cfx_robust_summary(x)))
}

cfx_to_json.cfx_robust_result <- function(x) {
  keep <- .robust_keep(x)
  .rb("C_cfx_robust_result_to_json", x, keep$schema, keep$model)
}

print.cfx_robust_result <- function(x, ...) {
  if (.freed_line(x, "robust counterfactual")) return(invisible(x))
  s <- cfx_robust_summary(x)
  keep <- .robust_keep(x)
  cat(sprintf(paste0("A robust counterfactual (%s): %s, target %s; probability of a good outcome %s, ",
                     "distance %.3f; invalidation rate %s (bound %s at confidence %s).\n"),
              toupper(keep$method), if (s$valid) "valid" else "not valid",
              if (s$target_met) "met" else "not met", .pct(s$probability), s$distance,
              .pct(s$gamma), .pct(s$bound), .pct(s$confidence)))
  cat("Advice: ", cfx_describe(x), "\n", sep = "")
  invisible(x)
}
