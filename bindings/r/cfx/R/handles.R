#' Frees a cfx handle (schema, dataset, model, configuration or builder) now.
#'
#' Handles are also freed by the garbage collector (and at the end of the
#' session), exactly once: after `cfx_free(x)` the collector does nothing,
#' and a second `cfx_free(x)` is a no-op returning FALSE. Using a freed
#' handle is an error.
cfx_free <- function(x) invisible(.Call(C_free, x))

#' TRUE while a handle has not been freed.
cfx_is_live <- function(x) .Call(C_is_live, x)

# How many handles of each kind this session has released (finalizer or
# cfx_free); used by the tests to prove "exactly once".
.cfx_free_counts <- function() .Call(C_free_counts)

.freed_line <- function(x, what) {
  if (!cfx_is_live(x)) {
    cat(sprintf("<cfx %s, freed>\n", what))
    return(TRUE)
  }
  FALSE
}

#' Fingerprint of a schema's or model's canonical JSON ("fnv1a64:<hex>"),
#' as written in result exports.
cfx_fingerprint <- function(x) UseMethod("cfx_fingerprint")
cfx_fingerprint.cfx_schema <- function(x) .cx(C_cfx_schema_fingerprint, x)
cfx_fingerprint.cfx_model <- function(x) .cx(C_cfx_model_fingerprint, x)

#' Writes a handle as JSON (schema, model or configuration).
cfx_to_json <- function(x) UseMethod("cfx_to_json")
cfx_to_json.cfx_schema <- function(x) .cx(C_cfx_schema_to_json, x)
cfx_to_json.cfx_model <- function(x) .cx(C_cfx_model_to_json, x)
cfx_to_json.cfx_config <- function(x) .cx(C_cfx_config_to_json, x)
