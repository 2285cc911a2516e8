#' A logistic-regression model score = w.x + b over the encoded space, which
#' accepts an applicant when sigmoid(score) > threshold.
cfx_linear_model <- function(weights, bias, threshold = 0.5) {
  .cx(C_cfx_model_linear_new, as.numeric(weights), as.numeric(bias), as.numeric(threshold))
}

#' Fits L2-regularised logistic regression (scikit-learn's
#' LogisticRegression(C = C) objective) on a dataset; threshold 0.5.
cfx_fit_linear <- function(dataset, C = 1) .cx(C_cfx_model_fit_linear, dataset, .num1(C, "C"))

#' Trains a multi-layer perceptron (ReLU hidden layers, Adam) on a dataset;
#' threshold 0.5. The same seed gives the same model, bit for bit. `seed` is
#' a whole number or a decimal string (for seeds above 2^53).
cfx_train_mlp <- function(dataset, hidden = 16, epochs = 50, batch_size = 32,
                          learning_rate = 1e-3, l2 = 0, seed = 0) {
  .cx(C_cfx_model_train_mlp, dataset, as.numeric(hidden), as.numeric(epochs),
      as.numeric(batch_size), as.numeric(learning_rate), as.numeric(l2),
      if (is.character(seed)) seed else as.numeric(seed))
}

#' Reads a model from JSON (as written by cfx_to_json()), checking it against
#' the schema's encoded dimension.
cfx_model_from_json <- function(schema, json) {
  .cx(C_cfx_model_from_json, schema, paste(json, collapse = "\n"))
}

cfx_read_model <- function(schema, file) {
  cfx_model_from_json(schema, readLines(file, warn = FALSE, encoding = "UTF-8"))
}

#' Imports a bank's gradient-boosted model onto a schema: XGBoost's JSON model
#' (Booster.save_model("m.json"), objective binary:logistic) or LightGBM's
#' text model (Booster.save_model("m.txt"), objective binary), as text or from
#' a file. Model columns map to features by name, one-hot columns
#' "<feature>=<level>" or "<feature>_<level>" to levels. `options` is NULL
#' (defaults), a JSON string, or a list with the optional entries `columns`
#' (model column = list(feature = , level = )), `special_as_missing`
#' (features whose special states the model saw as missing) and `threshold`.
cfx_model_from_xgboost <- function(schema, json, options = NULL) {
  .cx(C_cfx_model_from_xgboost_json, schema, paste(json, collapse = "\n"), .tree_options(options))
}

cfx_read_xgboost <- function(schema, file, options = NULL) {
  .cx(C_cfx_model_from_xgboost_file, schema, .tree_file(file), .tree_options(options))
}

cfx_model_from_lightgbm <- function(schema, text, options = NULL) {
  .cx(C_cfx_model_from_lightgbm_text, schema, paste(text, collapse = "\n"), .tree_options(options))
}

#' The area under the ROC curve of a model's score on the labelled applicants
#' of a dataset (labels 1 = the favourable outcome); an error of class
#' cfx_error_invalid_argument when the model ranks the favourable applicants
#' below the others (AUC <= 0.5: a model of default imported as a model of
#' repayment, or the reverse), saying which class to declare at import.
cfx_check_favourable <- function(model, dataset) {
  .cx(C_cfx_model_check_favourable, model, dataset)
}

cfx_read_lightgbm <- function(schema, file, options = NULL) {
  .cx(C_cfx_model_from_lightgbm_file, schema, .tree_file(file), .tree_options(options))
}

#' Imports a PMML 4.x model (a Scorecard or a binary logit RegressionModel)
#' onto a schema, exactly or refused naming the element and its line. `options`
#' (a JSON string or a named list) declares what the file does not say:
#' `favourable_class` (a classifier), `accept` and `cutoff` (a scorecard),
#' optional `threshold`, `scaling`, `special_as_missing`.
cfx_model_from_pmml <- function(schema, pmml, options = NULL) {
  .cx(C_cfx_model_from_pmml_str, schema, enc2utf8(paste(pmml, collapse = "\n")), .tree_options(options))
}

cfx_read_pmml <- function(schema, file, options = NULL) {
  .cx(C_cfx_model_from_pmml_file, schema, .tree_file(file), .tree_options(options))
}

#' Imports a CatBoost JSON model (save_model(format = "json", pool = ...), loss
#' Logloss, symmetric trees) onto a schema, exactly or refused (CTR categorical
#' features, non-symmetric trees, other losses). `options` as for XGBoost
#' (`favourable_class`, `special_as_missing`, `unseen_levels`, `threshold`).
cfx_model_from_catboost <- function(schema, json, options = NULL) {
  .cx(C_cfx_model_from_catboost_json_str, schema, enc2utf8(paste(json, collapse = "\n")), .tree_options(options))
}

cfx_read_catboost <- function(schema, file, options = NULL) {
  .cx(C_cfx_model_from_catboost_json_file, schema, .tree_file(file), .tree_options(options))
}

#' Imports an Explainable Boosting Machine (interpret's JSON, version 1.0,
#' binary, logit link) onto a schema: one tree per main term or pair.
cfx_model_from_ebm <- function(schema, json, options = NULL) {
  .cx(C_cfx_model_from_ebm_json_str, schema, enc2utf8(paste(json, collapse = "\n")), .tree_options(options))
}

cfx_read_ebm <- function(schema, file, options = NULL) {
  .cx(C_cfx_model_from_ebm_json_file, schema, .tree_file(file), .tree_options(options))
}

cfx_read_onnx <- function(schema, file, options = NULL) {
  .cx(C_cfx_model_from_onnx_file, schema, .tree_file(file), .tree_options(options))
}

#' Imports an ONNX model from its bytes in memory (a raw vector: the content of
#' a .onnx file, as a model registry returns it), as cfx_read_onnx does.
cfx_model_from_onnx <- function(schema, bytes, options = NULL) {
  if (!is.raw(bytes))
    stop("cfx: 'bytes' must be a raw vector (e.g. readBin(path, \"raw\", file.size(path)))", call. = FALSE)
  .cx(C_cfx_model_from_onnx_bytes, schema, bytes, .tree_options(options))
}

.tree_file <- function(file) {
  if (!is.character(file) || length(file) != 1L || is.na(file))
    stop("cfx: 'file' must be a single path", call. = FALSE)
  enc2utf8(path.expand(file))
}

# The import options as the JSON object the library reads (it refuses unknown keys).
.tree_options <- function(options) {
  if (is.null(options)) return(NULL)
  if (is.character(options)) return(enc2utf8(paste(options, collapse = "\n")))
  if (!is.list(options) || (length(options) > 0L && is.null(names(options))))
    stop("cfx: 'options' must be NULL, a JSON string or a named list", call. = FALSE)
  if (length(options) == 0L) return("{}")
  if (!is.null(options$special_as_missing))
    options$special_as_missing <- I(as.character(options$special_as_missing))
  # ONNX's `columns` is the input's column order (an unnamed vector: always a JSON array);
  # the tree importers' `columns` is a named list of one-hot columns (a JSON object).
  if (!is.null(options$columns) && is.null(names(options$columns)))
    options$columns <- I(as.character(options$columns))
  enc2utf8(as.character(jsonlite::toJSON(options, auto_unbox = TRUE, digits = NA)))
}

cfx_write_model <- function(model, file) {
  writeLines(enc2utf8(cfx_to_json(model)), file, useBytes = TRUE)
  invisible(file)
}

#' Kind ("linear", "mlp", "scorecard" or "trees"), input dimension and decision threshold of a model.
cfx_model_info <- function(model) .cxr(.model_info(model))

print.cfx_model <- function(x, ...) {
  if (.freed_line(x, "model")) return(invisible(x))
  i <- cfx_model_info(x)
  if (identical(i$kind, "scorecard")) {
    cat(sprintf("A cfx points scorecard over %d encoded columns; it accepts an applicant when the points reach its cutoff.\n",
                as.integer(i$input_dim)))
    return(invisible(x))
  }
  what <- switch(i$kind, linear = "logistic-regression model",
                 mlp = "neural-network (MLP) model",
                 trees = "gradient-boosted tree model", "model")
  cat(sprintf("A cfx %s over %d encoded columns; it accepts an applicant when the probability of a good outcome is above %s.\n",
              what, as.integer(i$input_dim), .pct(i$threshold)))
  invisible(x)
}

.pct <- function(p) paste0(formatC(100 * p, format = "f", digits = 1), "%")

#' Scores applicants: `newdata` is a dataset, a data frame of applicants or a
#' raw matrix (both with `schema`), or an encoded matrix (without `schema`).
#' Returns a data frame with `score`, `probability` and `accepted`.
predict.cfx_model <- function(object, newdata, schema = NULL, ...) {
  if (inherits(newdata, "cfx_dataset")) {
    schema <- cfx_schema(newdata)
    on.exit(cfx_free(schema))
    raw <- .cxr(.dataset_rows(newdata))
    p <- .cxr(.predict_rows(C_cfx_model_predict_raw, object, schema, raw))
  } else if (!is.null(schema)) {
    p <- .cxr(.predict_rows(C_cfx_model_predict_raw, object, schema, .raw_matrix(schema, newdata)))
  } else {
    if (is.data.frame(newdata)) stop("cfx: a data frame of applicants needs its schema", call. = FALSE)
    x <- if (is.matrix(newdata)) newdata else matrix(as.numeric(newdata), nrow = 1L)
    storage.mode(x) <- "double"
    p <- .cxr(.predict_rows(C_cfx_model_predict, object, NULL, x))
  }
  out <- data.frame(score = p$score, probability = p$probability, accepted = p$accepted)
  attr(out, "threshold") <- cfx_model_info(object)$threshold
  class(out) <- c("cfx_predictions", "data.frame")
  out
}

print.cfx_predictions <- function(x, ...) {
  thr <- attr(x, "threshold")
  for (i in seq_len(nrow(x))) {
    verdict <- if (x$accepted[i]) "accepted" else "declined"
    if (is.nan(x$probability[i])) {
      # a scorecard without a scaling: points and the decision, no probability
      cat(sprintf("applicant %s: %s (%s points)\n", row.names(x)[i], verdict,
                  formatC(x$score[i], format = "f", digits = 2)))
    } else {
      cat(sprintf("applicant %s: %s (probability of a good outcome %s, threshold %s)\n",
                  row.names(x)[i], verdict, .pct(x$probability[i]), .pct(thr)))
    }
  }
  invisible(x)
}

#' Probabilities of many applicants in one library call
#' (cfx_model_probability_batch): `x` is an encoded matrix, or applicants
#' (data frame / raw matrix) when `schema` is given.
cfx_probability <- function(model, x, schema = NULL) {
  if (!is.null(schema)) x <- cfx_encode(schema, x)
  if (!is.matrix(x)) x <- matrix(as.numeric(x), nrow = 1L)
  storage.mode(x) <- "double"
  .cx(C_cfx_model_probability_batch, model, .row_major(x), nrow(x))
}
