# Adverse-action notices (issue 40): cfx_notice, cfx_to_json, cfx_notice_html and
# cfx_notice_book.

#' The adverse-action notice of a declined applicant (a one-row data frame or
#' a raw vector): the principal reasons, ranked against the reference
#' population drawn from the dataset `reference`, and the exact engine's
#' advice, each reason marked (the advice acts on it, immutable or
#' time-driven, necessary). `options` is NULL, a list or a JSON string with
#' the optional keys max_reasons, reference, reason_table_path or
#' reason_table, necessity, tree_shap, scorecard_baseline, mlp_max_features.
cfx_notice <- function(model, applicant, schema, reference, options = NULL, config = NULL) {
  raw <- .raw_matrix(schema, applicant)
  if (nrow(raw) != 1L) stop("cfx: 'applicant' must be one applicant", call. = FALSE)
  if (is.list(options)) options <- as.character(jsonlite::toJSON(options, auto_unbox = TRUE, digits = NA))
  if (!is.null(options) && (!is.character(options) || length(options) != 1 || is.na(options)))
    stop("cfx: 'options' must be NULL, a list or a single JSON string", call. = FALSE)
  .cx(C_cfx_notice_explain, schema, model, reference, config, raw[1L, ],
      if (is.null(options)) NULL else enc2utf8(options))
}

cfx_to_json.cfx_notice <- function(x) .cx(C_cfx_notice_to_json, x)

#' The notice as one printable HTML page (no script, no external resource);
#' written to `path` as well when given.
cfx_notice_html <- function(notice, path = NULL) {
  html <- .cx(C_cfx_notice_to_html, notice)
  if (!is.null(path)) {
    con <- file(path.expand(path), open = "wb")
    on.exit(close(con))
    writeBin(charToRaw(enc2utf8(html)), con)
  }
  html
}

#' Notices for a whole book: one JSON line in `output` per declined applicant
#' of the CSV file `input`, each the notice cfx_notice makes for that row;
#' with `ledger` the notices' advice ledger too, each record carrying its
#' notice's id. `options` takes cfx_notice's keys plus ignore_columns and
#' id_column. Returns the number of lines written.
cfx_notice_book <- function(model, input, output, schema, reference, ledger = NULL,
                            options = NULL, config = NULL) {
  if (is.list(options)) options <- as.character(jsonlite::toJSON(options, auto_unbox = TRUE, digits = NA))
  if (!is.null(options) && (!is.character(options) || length(options) != 1 || is.na(options)))
    stop("cfx: 'options' must be NULL, a list or a single JSON string", call. = FALSE)
  for (arg in list(input, output)) {
    if (!is.character(arg) || length(arg) != 1 || is.na(arg))
      stop("cfx: 'input' and 'output' must be single file names", call. = FALSE)
  }
  if (!is.null(ledger) && (!is.character(ledger) || length(ledger) != 1 || is.na(ledger)))
    stop("cfx: 'ledger' must be NULL or a single file name", call. = FALSE)
  .cx(C_cfx_notice_book, schema, model, reference, config, enc2utf8(path.expand(input)),
      enc2utf8(path.expand(output)),
      if (is.null(ledger)) NULL else enc2utf8(path.expand(ledger)),
      if (is.null(options)) NULL else enc2utf8(options))
}
