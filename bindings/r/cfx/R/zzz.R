# The ABI version of include/cfx.h this package was written and tested for.
# A library reporting another cfx_abi_version() is refused at load time.
.cfx_abi_built_for <- 2L

.onLoad <- function(libname, pkgname) {
  v <- .Call(C_version)
  .check_abi(v$abi, .cfx_abi_built_for, v$header_abi)
}

# Refuses a library whose ABI differs from the one this package was built for
# (`header` is the CFX_ABI_VERSION of the cfx.h the shim was compiled with).
.check_abi <- function(runtime, expected = .cfx_abi_built_for, header = expected) {
  if (!identical(as.integer(header), as.integer(expected))) {
    stop(sprintf(paste0(
      "cfx: the shim was compiled against cfx.h with ABI version %d, but this R ",
      "package was written for ABI version %d; update the package"),
      as.integer(header), as.integer(expected)), call. = FALSE)
  }
  if (!identical(as.integer(runtime), as.integer(expected))) {
    stop(sprintf(paste0(
      "cfx: the loaded libcfx has ABI version %d, but this R package was built ",
      "for ABI version %d; rebuild libcfx or reinstall the package against a ",
      "matching library"), as.integer(runtime), as.integer(expected)), call. = FALSE)
  }
  invisible(TRUE)
}

#' Version of the loaded cfx library.
cfx_version <- function() {
  v <- .Call(C_version)
  structure(v, class = "cfx_version")
}

print.cfx_version <- function(x, ...) {
  cat(sprintf("cfx library %s (ABI version %d)%s\n", x$version, x$abi,
              if (isTRUE(x$testing)) ", built with the testing feature" else ""))
  invisible(x)
}
