#' Reads a schema from JSON text (as written by cfx_to_json()).
cfx_schema_from_json <- function(json) {
  .cx(C_cfx_schema_from_json, paste(json, collapse = "\n"))
}

#' Reads a schema from a JSON file.
cfx_read_schema <- function(file) {
  cfx_schema_from_json(readLines(file, warn = FALSE, encoding = "UTF-8"))
}

#' Writes a schema to a JSON file.
cfx_write_schema <- function(schema, file) {
  writeLines(enc2utf8(cfx_to_json(schema)), file, useBytes = TRUE)
  invisible(file)
}

#' The schema of a dataset (a new handle), or the schema itself.
cfx_schema <- function(x) UseMethod("cfx_schema")
cfx_schema.cfx_schema <- function(x) x
cfx_schema.cfx_dataset <- function(x) .cx(C_cfx_dataset_schema, x)

#' Number of features (length of a raw row).
cfx_n_features <- function(schema) .cx(C_cfx_schema_n_features, cfx_schema(schema))

#' Encoded dimension (length of a model input).
cfx_encoded_dim <- function(schema) .cx(C_cfx_schema_encoded_dim, cfx_schema(schema))

#' Feature names, in schema order.
names.cfx_schema <- function(x) .cxr(.feature_names(x))

#' The name of feature `i` (1-based).
cfx_feature_name <- function(schema, i) {
  .cx(C_cfx_schema_feature_name, schema, as.numeric(i) - 1)
}

#' The 1-based position of a feature, by name.
cfx_feature_index <- function(schema, name) {
  vapply(name, function(n) .cx(C_cfx_schema_index_of, schema, n) + 1, numeric(1),
         USE.NAMES = FALSE)
}

# Features of a schema as plain R lists, read from its JSON.
.features <- function(schema) {
  doc <- jsonlite::fromJSON(.cx(C_cfx_schema_to_json, schema), simplifyVector = FALSE)
  lapply(doc$features, function(f) {
    act <- f$actionability
    list(
      name = f$name,
      kind = f$kind,
      levels = if (identical(f$kind, "categorical")) unlist(f$levels) else NULL,
      lower = if (is.null(f$lower)) NA_real_ else as.numeric(f$lower),
      upper = if (is.null(f$upper)) NA_real_ else as.numeric(f$upper),
      integer = isTRUE(f$integer),
      special = vapply(f$special_states, function(s) s$label, ""),
      mutable = is.null(act$mutable) || isTRUE(act$mutable),
      direction = if (is.null(act$direction)) "any" else act$direction
    )
  })
}

#' The features of a schema as a data frame: name, kind, levels (for
#' categorical features), range (for contiguous ones), mutability, direction.
as.data.frame.cfx_schema <- function(x, ...) {
  fs <- .features(x)
  data.frame(
    feature = vapply(fs, `[[`, "", "name"),
    kind = vapply(fs, `[[`, "", "kind"),
    n_levels = vapply(fs, function(f) length(f$levels), 0L),
    lower = vapply(fs, `[[`, 0, "lower"),
    upper = vapply(fs, `[[`, 0, "upper"),
    mutable = vapply(fs, `[[`, TRUE, "mutable"),
    direction = vapply(fs, `[[`, "", "direction"),
    stringsAsFactors = FALSE
  )
}

.describe_feature <- function(f) {
  what <- if (identical(f$kind, "categorical")) {
    sprintf("one of %d levels", length(f$levels))
  } else {
    sprintf("%s from %s to %s", if (f$integer) "whole number" else "number",
            .num_text(f$lower), .num_text(f$upper))
  }
  rules <- character()
  if (!f$mutable) rules <- c(rules, "cannot change")
  else if (identical(f$direction, "increase_only")) rules <- c(rules, "can only increase")
  else if (identical(f$direction, "decrease_only")) rules <- c(rules, "can only decrease")
  if (length(f$special)) rules <- c(rules, paste0("special states: ", paste(f$special, collapse = ", ")))
  paste0(f$name, ": ", what, if (length(rules)) paste0(" (", paste(rules, collapse = "; "), ")") else "")
}

print.cfx_schema <- function(x, ...) {
  if (.freed_line(x, "schema")) return(invisible(x))
  fs <- .features(x)
  cat(sprintf("A cfx schema of %d features (%d encoded columns):\n",
              length(fs), as.integer(cfx_encoded_dim(x))))
  for (f in fs) cat("  ", .describe_feature(f), "\n", sep = "")
  invisible(x)
}

# Raw rows (one number per feature; a categorical value is its 0-based level
# index) from a data frame (columns matched by feature name; factors and
# character columns matched by level name), a numeric matrix or a numeric
# vector (one applicant).
.raw_matrix <- function(schema, data) {
  fs <- .features(schema)
  nf <- length(fs)
  if (is.data.frame(data)) {
    out <- matrix(NA_real_, nrow(data), nf)
    for (j in seq_len(nf)) {
      f <- fs[[j]]
      col <- data[[f$name]]
      if (is.null(col)) stop(sprintf("cfx: the data has no column '%s'", f$name), call. = FALSE)
      if (identical(f$kind, "categorical") && (is.factor(col) || is.character(col))) {
        idx <- match(as.character(col), f$levels)
        bad <- unique(as.character(col)[is.na(idx)])
        if (length(bad)) {
          stop(sprintf("cfx: column '%s' has values that are not levels of the schema: %s",
                       f$name, paste(sQuote(bad, FALSE), collapse = ", ")), call. = FALSE)
        }
        out[, j] <- idx - 1
      } else {
        out[, j] <- as.numeric(col)
      }
    }
    return(out)
  }
  if (is.matrix(data)) {
    storage.mode(data) <- "double"
    return(data)
  }
  if (is.numeric(data)) return(matrix(as.numeric(data), nrow = 1L))
  stop("cfx: rows must be a data frame, a numeric matrix or a numeric vector", call. = FALSE)
}

# A data frame from raw rows: factors for categorical features.
.raw_data_frame <- function(schema, raw) {
  fs <- .features(schema)
  cols <- lapply(seq_along(fs), function(j) {
    f <- fs[[j]]
    v <- raw[, j]
    if (identical(f$kind, "categorical")) factor(f$levels[v + 1], levels = f$levels) else v
  })
  names(cols) <- vapply(fs, `[[`, "", "name")
  as.data.frame(cols, stringsAsFactors = FALSE, optional = TRUE)
}

#' Encodes applicants (data frame, matrix or vector of raw values) into the
#' model's encoded space: a matrix with one row per applicant.
cfx_encode <- function(schema, data) {
  .cxr(.map_rows(C_cfx_schema_encode, schema, .raw_matrix(schema, data), .Call(C_cfx_schema_encoded_dim, schema)))
}

#' Decodes encoded rows (a matrix or one vector) into a data frame of
#' applicants. Incoherent rows raise a `cfx_error_incoherent` condition.
cfx_decode <- function(schema, x) {
  if (!is.matrix(x)) x <- matrix(as.numeric(x), nrow = 1L)
  storage.mode(x) <- "double"
  .raw_data_frame(schema, .cxr(.map_rows(C_cfx_schema_decode, schema, x, .Call(C_cfx_schema_n_features, schema))))
}

#' What changes between two applicants, in the data's own words: a data frame
#' with one row per changed feature (feature, from, to), printed as sentences.
cfx_describe_changes <- function(schema, from, to) {
  f <- .raw_matrix(schema, from)
  t <- .raw_matrix(schema, to)
  if (nrow(f) != 1L || nrow(t) != 1L) stop("cfx: 'from' and 'to' must be one applicant each", call. = FALSE)
  text <- .cx(C_cfx_schema_describe_changes, schema, f[1L, ], t[1L, ])
  lines <- strsplit(text, "\n", fixed = TRUE)[[1L]]
  lines <- lines[nzchar(lines)]
  names <- names(schema)
  # a line is "name: old \u2192 new"; names come from the schema, so split
  # after the longest feature name that prefixes the line
  feature <- from_txt <- to_txt <- character(length(lines))
  for (i in seq_along(lines)) {
    l <- lines[[i]]
    cand <- names[startsWith(l, paste0(names, ": "))]
    nm <- cand[which.max(nchar(cand))]
    rest <- substring(l, nchar(nm) + 3L)
    parts <- strsplit(rest, " \u2192 ", fixed = TRUE)[[1L]]
    feature[i] <- nm
    from_txt[i] <- .unquote(parts[1L])
    to_txt[i] <- .unquote(paste(parts[-1L], collapse = " \u2192 "))
  }
  structure(data.frame(feature = feature, from = from_txt, to = to_txt, stringsAsFactors = FALSE),
            text = text, class = c("cfx_changes", "data.frame"))
}

# The library quotes level names ('a level'); the data frame holds the bare
# names (equal to the factor levels) and print() quotes non-numbers again.
.unquote <- function(s) {
  if (nchar(s) >= 2L && startsWith(s, "'") && endsWith(s, "'")) substr(s, 2L, nchar(s) - 1L) else s
}

.quote_word <- function(s) {
  ifelse(grepl("^-?[0-9.]+(e[-+]?[0-9]+)?$", s), s, paste0("'", s, "'"))
}

print.cfx_changes <- function(x, ...) {
  if (nrow(x) == 0L) {
    cat("No change.\n")
  } else {
    for (i in seq_len(nrow(x))) {
      cat(sprintf("Change %s from %s to %s.\n", x$feature[i], .quote_word(x$from[i]),
                  .quote_word(x$to[i])))
    }
  }
  invisible(x)
}

#' A new schema with distance weights fitted on applicants (data frame or
#' raw matrix). The input schema is unchanged.
#' Which distance weights a schema carries: "unit" (none: costs use unit
#' weights until `cfx_fit_weights` or `cfx_fitted_schema`), "fitted" (every
#' feature) or "mixed".
cfx_weights_kind <- function(schema) {
  c("unit", "fitted", "mixed")[.cx(C_cfx_schema_weights_kind, schema) + 1L]
}

#' The schema of a bundled dataset (`cfx_load_german`, `cfx_load_heloc`) with
#' that dataset's actionability preset for advice (issue #16): change limits,
#' features that move only by waiting, forbidden moves, and a waiting action
#' costing `waiting_cost_per_month` per month.
cfx_advice_preset <- function(schema, preset = c("german", "heloc"), waiting_cost_per_month) {
  preset <- match.arg(preset)
  .cx(C_cfx_schema_advice_preset, schema, match(preset, c("german", "heloc")) - 1L,
      as.numeric(waiting_cost_per_month))
}

cfx_fit_weights <- function(schema, data) {
  {
    raw <- .raw_matrix(schema, data)
    .cx(C_cfx_schema_fit_weights, schema, .row_major(raw), nrow(raw), ncol(raw))
  }
}

.num_text <- function(v) format(v, scientific = FALSE, trim = TRUE, digits = 15)
