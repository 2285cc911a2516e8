# Shared helpers of the cfx tests.

# The cfx repository (for the bundled data and the scenario file).
cfx_repo <- function() {
  root <- Sys.getenv("CFX_ROOT")
  if (nzchar(root)) return(normalizePath(root))
  here <- normalizePath(testthat::test_path("."))
  # tests/testthat -> cfx -> r -> bindings -> repository
  normalizePath(file.path(here, "..", "..", "..", "..", ".."), mustWork = FALSE)
}

german_csv <- function() file.path(cfx_repo(), "examples", "data", "german_credit.csv")

shared_data_dir <- function() {
  d <- Sys.getenv("CFX_SHARED_DATA")
  if (nzchar(d)) return(d)
  file.path(dirname(cfx_repo()), "shared", "data")
}

# Shared data may be absent: skip with a notice, except under CI.
need_shared_file <- function(name) {
  p <- file.path(shared_data_dir(), name)
  if (!file.exists(p)) {
    ci <- Sys.getenv("CI")
    if (nzchar(ci) && !(tolower(ci) %in% c("0", "false"))) {
      stop("CI: shared data file missing: ", p, " (set CFX_SHARED_DATA to the shared data folder)")
    }
    testthat::skip(paste("shared data not present:", p))
  }
  p
}

# An independent encoder written from the schema JSON (contiguous features
# min-max scaled into one slot, categorical ones one-hot), used as the oracle
# for cfx_encode on data without special states.
oracle_encode <- function(schema, raw) {
  doc <- jsonlite::fromJSON(cfx_to_json(schema), simplifyVector = FALSE)
  cols <- list()
  for (j in seq_along(doc$features)) {
    f <- doc$features[[j]]
    v <- raw[, j]
    if (identical(f$kind, "categorical")) {
      for (k in seq_along(f$levels)) cols[[length(cols) + 1L]] <- as.numeric(v == k - 1)
    } else {
      cols[[length(cols) + 1L]] <- (v - f$lower) / (f$upper - f$lower)
    }
  }
  do.call(cbind, cols)
}

expect_cfx_error <- function(expr, class, pattern = NULL) {
  err <- tryCatch({ force(expr); NULL }, error = function(e) e)
  testthat::expect_false(is.null(err), info = "expected a cfx error")
  if (is.null(err)) return(invisible(NULL))
  testthat::expect_s3_class(err, c(class, "cfx_error"), exact = FALSE)
  testthat::expect_true(inherits(err, "cfx_error"))
  testthat::expect_match(conditionMessage(err), "^CFX_STATUS_[A-Z_]+: ")
  if (!is.null(pattern)) testthat::expect_match(conditionMessage(err), pattern)
  invisible(err)
}
