# Calls a shim entry point and turns a cfx status error into a classed
# condition. The shim raises errors as "CFX_STATUS_<NAME> (<code>): <message>"
# (after the C call returned); here they become conditions of class
# c("cfx_error_<name>", "cfx_error", "error", "condition") with fields
# `status` (the status name), `code` (its number) and `detail` (the library's
# last-error message).
.cx <- function(.NAME, ...) .cx_call(sys.call(-1L), .NAME, ...)

.cx_call <- function(call, .NAME, ...) .cx_eval(call, .Call(.NAME, ...))

# Evaluates `expr` (several shim calls, e.g. one per row) with the errors of
# .cx, attributed to the caller of the function that called .cxr.
.cxr <- function(expr) .cx_eval(sys.call(-1L), expr)

.cx_eval <- function(call, expr) {
  tryCatch(expr, error = function(e) {
    cond <- .as_cfx_error(conditionMessage(e), call)
    if (is.null(cond)) {
      e$call <- call
      stop(e)
    }
    stop(cond)
  })
}

.as_cfx_error <- function(msg, call = NULL) {
  m <- regmatches(msg, regexec("^(CFX_STATUS_[A-Z_]+) \\((-?[0-9]+)\\): (.*)$", msg,
                               perl = TRUE))[[1L]]
  if (length(m) == 0L) {
    # multi-line messages: regexec's '.' does not cross newlines
    m <- regmatches(msg, regexec("^(CFX_STATUS_[A-Z_]+) \\((-?[0-9]+)\\): ", msg))[[1L]]
    if (length(m) == 0L) return(NULL)
    m <- c(m, substring(msg, nchar(m[1L]) + 1L))
    m <- m[c(1L, 2L, 3L, 5L)]
  }
  cfx_error(m[2L], as.integer(m[3L]), m[4L], call)
}

#' A cfx error condition.
#'
#' `status` is the status name (e.g. "CFX_STATUS_INVALID_ARGUMENT"), `code`
#' its number and `detail` the library's explanation.
cfx_error <- function(status, code, detail, call = NULL) {
  short <- tolower(sub("^CFX_STATUS_", "", status))
  structure(
    class = c(paste0("cfx_error_", short), "cfx_error", "error", "condition"),
    list(message = sprintf("%s: %s", status, detail), call = call,
         status = status, code = code, detail = detail))
}

#' Name of a status number, e.g. cfx_status_name(2) is "CFX_STATUS_INVALID_ARGUMENT".
cfx_status_name <- function(code) .Call(C_cfx_status_str, as.integer(code))

#' The calling thread's last cfx error message ("" after a successful call).
cfx_last_error <- function() .Call(C_cfx_last_error_message)

#' Makes the library panic on purpose (only in a library built with the
#' `testing` feature): proves a Rust panic becomes an R error of class
#' `cfx_error_panic` and the session lives on.
cfx_testing_panic <- function() invisible(.cx(C_cfx_testing_panic))

#' Which method families this build of the package has: their entry points
#' are compiled only when the cfx.h it was built against declares them.
cfx_families <- function() .Call(C_families)

# Calls an entry point of a method family, or says clearly that the family
# is missing from this build.
.fam_call <- function(family, name, ...) {
  sym <- get0(name, envir = asNamespace("cfx"), inherits = FALSE)
  if (is.null(sym)) {
    stop(sprintf(paste0("cfx: this build has no %s entry points (the cfx.h it was ",
                        "compiled against does not declare them); reinstall against a newer cfx"),
                 family), call. = FALSE)
  }
  .cx_call(sys.call(-1L), sym, ...)
}
