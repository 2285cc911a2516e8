# The advice ledger and the re-validation of issued advice against a new model
# (issue 28): cfx_ledger_record_from_coherent_result, cfx_revalidate_record,
# cfx_revalidate_ledger.

#' The ledger line (a JSON string) of the optimal counterfactual of a coherent
#' result, or of waiting advice (kind "waiting"), with the fingerprints of the
#' schema and model it was computed under.
cfx_ledger_record <- function(result, id, issued = NULL, group = NULL, robust = NULL) {
  if (inherits(result, "cfx_waiting_advice")) {
    if (!is.null(robust)) stop("cfx: a robust version is recorded with coherent results only", call. = FALSE)
    return(.cx(C_ledger_record_waiting, result, enc2utf8(as.character(id)),
               if (is.null(issued)) NULL else enc2utf8(as.character(issued)),
               if (is.null(group)) NULL else enc2utf8(as.character(group))))
  }
  .cx(C_ledger_record, result, robust, enc2utf8(as.character(id)),
      if (is.null(issued)) NULL else enc2utf8(as.character(issued)),
      if (is.null(group)) NULL else enc2utf8(as.character(group)))
}

#' One ledger record (its JSON line, as cfx_ledger_record() writes it)
#' re-validated against `new_model`: a list with `status` ("kept"/"broken"),
#' `margin`, `probability`, `model_changed` and, for a broken promise, `repair`,
#' `extra_cost` and `applicant_repair`.
cfx_revalidate <- function(schema, new_model, record, config = NULL) {
  json <- .cx(C_revalidate_record, schema, new_model, config, enc2utf8(as.character(record)))
  jsonlite::fromJSON(json, simplifyVector = FALSE)
}

#' Streams the ledger file `input` against `new_model` into the JSON-lines
#' file `output` and returns the deployment report (a list).
cfx_revalidate_ledger <- function(schema, new_model, input, output, config = NULL,
                                  threads = 0, chunk_rows = 0) {
  json <- .cx(C_revalidate_ledger, schema, new_model, config, enc2utf8(path.expand(input)),
              enc2utf8(path.expand(output)), as.numeric(threads), as.numeric(chunk_rows))
  jsonlite::fromJSON(json, simplifyVector = FALSE)
}
