#' Plausible ranges from a dataset's accepted applicants (label 1): per
#' feature, the 1-99% range of their values and the shares of their special
#' states and levels. Returns a cfx_plausibility handle.
cfx_plausibility <- function(dataset) {
  s <- cfx_schema(dataset)
  raw <- cfx_raw_rows(dataset)
  .cx(C_cfx_plausibility_fit, s, .row_major(raw), nrow(raw), as.numeric(cfx_labels(dataset)))
}

#' Plausibility of an advice row against the applicant's row (each a one-row
#' data frame or numeric vector of raw values): one row per feature with
#' `flag` ("unchanged", "plausible" or "implausible": outside the 1-99% range
#' of accepted applicants, or in a state or level fewer than 1% of them have)
#' and `distance` (how far outside, in the feature's units; NA when unchanged).
cfx_assess_plausibility <- function(ranges, applicant, advice) {
  schema <- .Call(C_handle_prot, ranges)
  a <- .raw_matrix(schema, applicant)
  b <- .raw_matrix(schema, advice)
  if (nrow(a) != 1L || nrow(b) != 1L) stop("cfx: 'applicant' and 'advice' must be one row each", call. = FALSE)
  r <- .cx(C_cfx_plausibility_assess, ranges, a[1L, ], b[1L, ])
  data.frame(feature = names(schema),
             flag = c("unchanged", "plausible", "implausible")[r$flags + 2L],
             distance = r$distances, stringsAsFactors = FALSE)
}

#' The schema the ranges were fitted for, with every contiguous feature that
#' grows with time limited to waits that land it inside its plausible range
#' (its advised range, as `cfx_set_time_growth_advised_range` sets it, the
#' accepted applicants' 1-99% range): no method then advises a wait that moves
#' a month counter to where accepted applicants are not. A new schema handle.
cfx_plausibility_advise_waits <- function(ranges) .cx(C_cfx_plausibility_advise_waits, ranges)
