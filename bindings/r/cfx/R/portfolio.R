# A whole book of applicants explained from a CSV file into JSON lines
# (cfx_portfolio_explain), and the portfolio summary read back from it.

#' Explains every applicant of the CSV file `input` (a header naming the
#' schema's features; `ignore_columns`, e.g. the outcome label, are skipped)
#' into the JSON-lines file `output`, one line per applicant in input order,
#' on `threads` worker threads (0 = all cores), with memory flat however long
#' the file. `progress`, when given, is called after each chunk with the rows
#' written so far; returning FALSE stops the run with a `cfx_error_cancelled`
#' condition (the output is then untouched and `<output>.cfx-partial` holds
#' exactly those rows, each line whole). An
#' error in `progress` stops the run too and is raised after the library
#' returned. Returns c(rows, accepted, declined, with_recourse, errors).
cfx_explain_portfolio <- function(schema, model, input, output, config = NULL,
                                  ignore_columns = character(), threads = 0, progress = NULL) {
  .cx(C_cfx_portfolio_explain, schema, model, config, enc2utf8(path.expand(input)),
      enc2utf8(path.expand(output)), enc2utf8(as.character(ignore_columns)), as.numeric(threads),
      progress)
}

#' The portfolio summary of a cfx_explain_portfolio() output: share of
#' declined applicants with recourse, recourse cost quantiles and the changes
#' asked most often, overall and, with a `group_column` of the applicants'
#' file `input`, per group: one group per distinct cell, or with `edges`
#' numeric bands "< e0", "[e0, e1)", ..., "≥ ek" (a special state apart).
cfx_portfolio_summary <- function(schema, output, input = NULL, group_column = NULL, edges = numeric()) {
  .cx(C_cfx_portfolio_summarize, schema, if (is.null(input)) NULL else enc2utf8(path.expand(input)),
      enc2utf8(path.expand(output)), if (is.null(group_column)) NULL else enc2utf8(group_column),
      as.numeric(edges))
}

#' One row per group ("all" first): counts, share with recourse and the
#' recourse cost quantiles (type 7).
as.data.frame.cfx_portfolio_summary <- function(x, ...) {
  as.data.frame(.cxr(.portfolio_table(x)), stringsAsFactors = FALSE)
}

#' The summary as a plain-text table with the `top` changes asked most often.
cfx_portfolio_table <- function(summary, top = 5) .cx(C_cfx_portfolio_summary_describe, summary, as.numeric(top))

#' Draws the summary as an SVG chart into the file `path`.
cfx_portfolio_svg <- function(summary, path, title = "portfolio", top = 5) {
  invisible(.cx(C_cfx_portfolio_summary_write_svg, summary, enc2utf8(title), as.numeric(top),
                enc2utf8(path.expand(path))))
}

cfx_to_json.cfx_portfolio_summary <- function(x) .cx(C_cfx_portfolio_summary_to_json, x)

print.cfx_portfolio_summary <- function(x, ...) {
  if (.freed_line(x, "portfolio summary")) return(invisible(x))
  cat(cfx_portfolio_table(x))
  invisible(x)
}

#' The solver that proved a coherent result: "highs", "separable" or "tree_search".
cfx_proved_by <- function(result) c("highs", "separable", "tree_search")[.cx(C_cfx_coherent_result_proved_by, result) + 1L]
