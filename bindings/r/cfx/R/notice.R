# Adverse-action notices (issue 40): cfx_notice, cfx_to_json and cfx_notice_html.

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
