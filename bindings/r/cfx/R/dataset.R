#' Loads the bundled Statlog German credit data (or the CSV at `path`) with
#' cfx's schema: 1000 applicants, 20 features, label 1 = good risk.
cfx_load_german <- function(path = NULL) .cx(C_cfx_dataset_load_german, .opt_path(path))

#' Loads the FICO HELOC data (`path` NULL: heloc.csv in cfx's shared data folder).
cfx_load_heloc <- function(path = NULL) .cx(C_cfx_dataset_load_heloc, .opt_path(path))

#' Loads the Taiwan credit-card default data (`path` NULL: the library's
#' default file in cfx's shared data folder).
cfx_load_taiwan <- function(path = NULL) .cx(C_cfx_dataset_load_taiwan, .opt_path(path))

.opt_path <- function(path) if (is.null(path)) NULL else enc2utf8(path.expand(path))

#' Reads a CSV with a column per feature of `schema` and a label column
#' `target`; a row is favourable (label 1) when its `target` equals `favourable`.
#' `delimiter` is one ASCII character (`";"` is common in European credit
#' files); with `header = FALSE` the columns are, in order, the schema's
#' features and then the label column.
cfx_read_dataset <- function(schema, path, target, favourable, delimiter = ",", header = TRUE) {
  path <- enc2utf8(path.expand(path))
  if (identical(delimiter, ",") && isTRUE(header)) {
    .cx(C_cfx_dataset_from_csv, schema, path, target, as.character(favourable))
  } else {
    .cx(C_cfx_dataset_from_csv_ex, schema, path, target, as.character(favourable), delimiter,
        .flag(header, "header"))
  }
}

#' Infers a schema from a CSV file and reads its rows under it. A column is
#' categorical when named in `categorical` or when a cell is not a number;
#' columns in `drop` are left out. `special_codes` are states rather than
#' values: a data frame with columns `code`, `label` and optionally `column`
#' (NA or absent: every numeric column where the code occurs), or a named
#' numeric vector `c(label = code)` for every column. The dataset's schema
#' (`cfx_schema()`) has distance weights fitted on the rows. Every feature is
#' mutable in any direction unless `rules` says otherwise: a list (or its JSON
#' text) with the optional entries `actionability` (feature name -> the
#' schema's actionability object, e.g. `list(SEX = list(mutable = FALSE))`)
#' and `waiting` (`list(max_months = 24, cost_per_month = 0.01)`), as
#' `cfx schema infer` takes them.
cfx_infer_dataset <- function(path, target, favourable, delimiter = ",", header = TRUE,
                              drop = character(), categorical = character(),
                              special_codes = NULL, rules = NULL) {
  path <- enc2utf8(path.expand(path))
  if (is.null(special_codes)) {
    codes <- numeric(); labels <- character(); columns <- character()
  } else if (is.data.frame(special_codes)) {
    codes <- as.numeric(special_codes$code)
    labels <- as.character(special_codes$label)
    columns <- if (is.null(special_codes$column)) rep(NA_character_, length(codes))
               else as.character(special_codes$column)
  } else if (is.numeric(special_codes) && !is.null(names(special_codes))) {
    codes <- as.numeric(special_codes)
    labels <- names(special_codes)
    columns <- rep(NA_character_, length(codes))
  } else {
    stop("cfx: 'special_codes' must be a data frame (code, label, column) or a named numeric vector",
         call. = FALSE)
  }
  if (!is.null(rules)) {
    json <- if (is.character(rules)) rules
            else as.character(jsonlite::toJSON(rules, auto_unbox = TRUE, digits = NA))
    return(.cx(C_cfx_dataset_infer_csv_with_rules, path, target, as.character(favourable), delimiter,
               .flag(header, "header"),
               enc2utf8(as.character(drop)), enc2utf8(as.character(categorical)), codes,
               enc2utf8(labels), enc2utf8(columns), enc2utf8(json)))
  }
  .cx(C_cfx_dataset_infer_csv, path, target, as.character(favourable), delimiter,
      .flag(header, "header"),
      enc2utf8(as.character(drop)), enc2utf8(as.character(categorical)), codes,
      enc2utf8(labels), enc2utf8(columns))
}

#' The dataset's schema with distance weights fitted on its rows (a new
#' schema; the dataset is unchanged). A schema built in code or read from JSON
#' has unit weights, which changes most answers: build the model and every
#' method on this one.
cfx_fitted_schema <- function(dataset) .cx(C_cfx_dataset_fitted_schema, dataset)

#' Number of applicants.
cfx_n_rows <- function(dataset) .cx(C_cfx_dataset_n_rows, dataset)

dim.cfx_dataset <- function(x) {
  c(as.integer(cfx_n_rows(x)), as.integer(cfx_n_features(cfx_schema(x))))
}

#' Labels (1 = favourable, 0 otherwise) of every applicant.
cfx_labels <- function(dataset) .cxr(.labels(dataset))

#' Applicant `i` (1-based) as a one-row data frame.
cfx_row <- function(dataset, i) {
  s <- cfx_schema(dataset)
  on.exit(cfx_free(s))
  raw <- .cx(C_cfx_dataset_row, dataset, as.numeric(i) - 1)
  .raw_data_frame(s, matrix(raw, nrow = 1L))
}

#' Label of applicant `i` (1-based).
cfx_label <- function(dataset, i) .cx(C_cfx_dataset_label, dataset, as.numeric(i) - 1)

#' Raw rows as a numeric matrix (categorical values are 0-based level indices).
cfx_raw_rows <- function(dataset) .cxr(.dataset_rows(dataset))

#' The applicants as a data frame (factors for categorical features), with a
#' `label` column (1 = favourable) unless `labels = FALSE`.
as.data.frame.cfx_dataset <- function(x, row.names = NULL, optional = FALSE, labels = TRUE, ...) {
  s <- cfx_schema(x)
  on.exit(cfx_free(s))
  df <- .raw_data_frame(s, .cxr(.dataset_rows(x)))
  if (labels) df$label <- as.integer(.cxr(.labels(x)))
  df
}

#' The fixed 70/30 hold-out split (applicant i, counted from 0, is held out
#' when i mod 10 >= 7): a list of two datasets, `train` and `test`.
cfx_holdout_split <- function(dataset) .cx(C_cfx_dataset_holdout_split, dataset)

print.cfx_dataset <- function(x, ...) {
  if (.freed_line(x, "dataset")) return(invisible(x))
  s <- cfx_schema(x)
  on.exit(cfx_free(s))
  n <- cfx_n_rows(x)
  good <- sum(cfx_labels(x))
  cat(sprintf("A cfx dataset of %d applicants, %d features (%d encoded columns); %d labelled favourable (%.1f%%).\n",
              as.integer(n), as.integer(cfx_n_features(s)), as.integer(cfx_encoded_dim(s)),
              as.integer(good), if (n > 0) 100 * good / n else 0))
  invisible(x)
}
