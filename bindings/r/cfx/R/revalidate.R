# The advice ledger and the re-validation of issued advice against a new model
# (issue 28): cfx_ledger_record_from_coherent_result(_at), cfx_revalidate_record,
# cfx_revalidate_ledger, cfx_deployment_report_to_json/_to_html/_write_html.

#' The ledger line (a JSON string) of the optimal counterfactual of a coherent
#' result, or of waiting advice (kind "waiting"), with the fingerprints of the
#' schema and model it was computed under. `index` (1-based) records
#' counterfactual `index` of a diverse result (`cfx_explain(..., diverse =
#' TRUE)`) instead: id "<id>/<index - 1>", kind "explain" for the first and
#' "diverse" for the others.
cfx_ledger_record <- function(result, id, issued = NULL, group = NULL, robust = NULL,
                              index = NULL) {
  if (inherits(result, "cfx_waiting_advice")) {
    if (!is.null(robust)) stop("cfx: a robust version is recorded with coherent results only", call. = FALSE)
    if (!is.null(index)) stop("cfx: an index is for the diverse sets of coherent results only", call. = FALSE)
    return(.cx(C_cfx_ledger_record_from_waiting_advice, result, enc2utf8(as.character(id)),
               if (is.null(issued)) NULL else enc2utf8(as.character(issued)),
               if (is.null(group)) NULL else enc2utf8(as.character(group))))
  }
  if (!is.null(index)) {
    if (!is.numeric(index) || length(index) != 1 || is.na(index) || index < 1 || index != floor(index))
      stop("cfx: 'index' must be a single whole number of at least 1", call. = FALSE)
    return(.cx(C_cfx_ledger_record_from_coherent_result_at, result, as.numeric(index) - 1, robust, enc2utf8(as.character(id)),
               if (is.null(issued)) NULL else enc2utf8(as.character(issued)),
               if (is.null(group)) NULL else enc2utf8(as.character(group))))
  }
  .cx(C_cfx_ledger_record_from_coherent_result, result, robust, enc2utf8(as.character(id)),
      if (is.null(issued)) NULL else enc2utf8(as.character(issued)),
      if (is.null(group)) NULL else enc2utf8(as.character(group)))
}

#' One ledger record (its JSON line, as cfx_ledger_record() writes it)
#' re-validated against `new_model`: a list with `status` ("kept"/"broken"),
#' `margin`, `probability`, `model_changed` and, for a broken promise, `repair`,
#' `extra_cost` and `applicant_repair`.
cfx_revalidate <- function(schema, new_model, record, config = NULL) {
  json <- .cx(C_cfx_revalidate_record, schema, new_model, config, enc2utf8(as.character(record)))
  jsonlite::fromJSON(json, simplifyVector = FALSE)
}

#' Streams the ledger file `input` against `new_model` into the JSON-lines
#' file `output` and returns the deployment report (a list). Given
#' `html_path`, the report is also written there as one self-contained HTML
#' page with SVG plots, headed `title` (NULL = cfx's default title); an
#' `html_path` naming the ledger or `output` is refused. With
#' `cfx_config(resume = TRUE)` a killed run goes on from its partial file.
#' With `html = TRUE` the report also holds the page as text (`$html`).
cfx_revalidate_ledger <- function(schema, new_model, input, output, config = NULL,
                                  threads = 0, chunk_rows = 0, html_path = NULL, title = NULL,
                                  html = FALSE) {
  if (!is.null(html_path) && (!is.character(html_path) || length(html_path) != 1 || is.na(html_path)))
    stop("cfx: 'html_path' must be a single string", call. = FALSE)
  if (!is.null(title) && (!is.character(title) || length(title) != 1 || is.na(title)))
    stop("cfx: 'title' must be a single string or NULL", call. = FALSE)
  report <- .cx(C_cfx_revalidate_ledger, schema, new_model, config, enc2utf8(path.expand(input)),
                enc2utf8(path.expand(output)), as.numeric(threads), as.numeric(chunk_rows))
  on.exit(.Call(C_cfx_deployment_report_free, report))
  json <- .cx(C_cfx_deployment_report_to_json, report)
  page <- if (isTRUE(html)) .cx(C_cfx_deployment_report_to_html, report, title) else NULL
  if (!is.null(html_path)) {
    # Written by the library, which never writes over the ledger or the output.
    .cx(C_cfx_deployment_report_write_html, report, title, enc2utf8(path.expand(html_path)))
  }
  out <- jsonlite::fromJSON(json, simplifyVector = FALSE)
  if (!is.null(page)) out$html <- page
  out
}

#' Keeps a portfolio run's answers (cfx_explain_portfolio()) as the ledger
#' file `ledger`: one line per declined applicant with a counterfactual (kind
#' "explain", or "robust" for a line whose counterfactual carries its
#' invalidation_rate), the applicant's row read from the run's input `csv`,
#' the advice from its output `explanations`, both read in lockstep. `schema`,
#' `model` and `ignore_columns` must be the run's. The id is the `id_column`
#' cell (NULL: "row-<k>"), the group the `group_column` cell (none when empty),
#' `issued` every record's issue text. `config` (NULL, or the run's
#' cfx_config): its JSON is passed to the library, which makes the target of
#' its `robust_advice` (and `robust_box`) the `robustness` of every "robust"
#' record (sigma2,
#' invalidation_target, and box_kind when not the reals); the run's lines do
#' not carry it, so without the config those records have none. Returns the
#' number of records written.
cfx_ledger_from_portfolio <- function(schema, model, csv, explanations, ledger,
                                      ignore_columns = character(), id_column = NULL,
                                      group_column = NULL, issued = NULL, config = NULL) {
  options <- list(ignore_columns = I(enc2utf8(as.character(ignore_columns))))
  for (key in c("id_column", "group_column", "issued")) {
    value <- get(key)
    if (is.null(value)) next
    if (!is.character(value) || length(value) != 1 || is.na(value))
      stop(sprintf("cfx: '%s' must be a single string or NULL", key), call. = FALSE)
    options[[key]] <- enc2utf8(value)
  }
  if (!is.null(config) && !inherits(config, "cfx_config"))
    stop("cfx: 'config' must be a cfx_config or NULL", call. = FALSE)
  json <- as.character(jsonlite::toJSON(options, auto_unbox = TRUE, digits = NA))
  # The configuration's own JSON, verbatim under "config": the library reads
  # the robustness target from it.
  if (!is.null(config))
    json <- paste0(substr(json, 1, nchar(json) - 1), ",\"config\":", cfx_to_json(config), "}")
  .cx(C_cfx_ledger_from_portfolio, schema, model, enc2utf8(path.expand(csv)),
      enc2utf8(path.expand(explanations)), enc2utf8(path.expand(ledger)), json)
}

#' The ledger line `record` (or the list of one) with its COPA-corrected
#' version kept as `copa_advised` (Bui, Nguyen & Nguyen 2022, section 3), at
#' Gelbrich radius `rho` with perturbation limit `delta`. A corrected row that
#' breaks a rule of the schema for the applicant is a `cfx_error_not_found`
#' condition: no version is kept, the record stays as it was.
cfx_ledger_add_copa_version <- function(schema, uncertainty, record, rho = 0.01, delta = 0.1) {
  if (is.list(record)) record <- jsonlite::toJSON(record, auto_unbox = TRUE, digits = NA)
  .cx(C_cfx_ledger_record_add_copa_version, schema, uncertainty,
      enc2utf8(as.character(record)), as.numeric(rho), as.numeric(delta))
}
