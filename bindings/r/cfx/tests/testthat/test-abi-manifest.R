# The registered .Call entry points against the ABI manifest
# (bindings/gen/abi.json, written from include/cfx.h): every C function has
# its entry point C_<function>, taking as many R arguments as the mapping rules
# of bindings/gen/emit_r.py give, computed here again from the manifest's
# parameter groups (so a generator that drifted from its rules, or a stale
# init.c, fails here rather than calling C with the wrong arguments).

# The "fn.param" keys of one [section] of a TOML file (the simple form of
# bindings/gen/*.toml: one quoted key per line).
toml_keys <- function(path, section) {
  lines <- readLines(path, warn = FALSE)
  keys <- character()
  inside <- FALSE
  for (l in lines) {
    if (grepl("^\\[", l)) inside <- identical(l, paste0("[", section, "]"))
    else if (inside && grepl("^\"[^\"]+\" *=", l)) keys <- c(keys, sub("^\"([^\"]+)\".*$", "\\1", l))
  }
  keys
}

# R arguments of a manifest function: one per handle, string and scalar, one
# per input array (plus the row count of a row-counted array), one per
# callback (the R function); none for outputs (they are the result).
r_arity <- function(fn, rows) {
  ps <- fn$params
  n <- 0L
  for (i in seq_along(ps)) {
    p <- ps[[i]]
    g <- p$group
    if (g %in% c("handle", "str", "scalar", "arrays")) {
      n <- n + 1L
    } else if (g == "callback" && p$c_type != "void *") {
      n <- n + 1L
    } else if (g == "count") {
      j <- i - 1L
      counted_rows <- FALSE
      while (j >= 1L && ps[[j]]$group == "arrays") {
        if (paste0(fn$name, ".", ps[[j]]$name) %in% rows) counted_rows <- TRUE
        j <- j - 1L
      }
      if (counted_rows) n <- n + 1L
    }
  }
  n
}

test_that("every C function has a registered .Call entry point with its R arity", {
  root <- Sys.getenv("CFX_ROOT")
  skip_if(!nzchar(root), "CFX_ROOT (the cfx tree) is not set: run bindings/r/run-tests.sh")
  gen <- file.path(root, "bindings", "gen")
  abi <- jsonlite::fromJSON(file.path(gen, "abi.json"), simplifyVector = FALSE)
  rows <- c(toml_keys(file.path(gen, "types.toml"), "rows"),
            toml_keys(file.path(gen, "overrides_r.toml"), "rows"))
  expect_true("cfx_model_probability_batch.x" %in% rows)
  reg <- getDLLRegisteredRoutines("cfx")$.Call
  have <- vapply(reg, function(r) as.integer(r$numParameters), 0L)
  names(have) <- vapply(reg, function(r) r$name, "")
  fns <- Filter(function(f) !isTRUE(f$testing_only), abi$functions)
  expect_gt(length(fns), 150L)
  for (fn in fns) {
    entry <- paste0("C_", fn$name)
    expect_true(entry %in% names(have), label = sprintf("%s is registered", entry))
    if (entry %in% names(have)) {
      expect_identical(have[[entry]], r_arity(fn, rows),
                       label = sprintf("the number of R arguments of %s", entry))
    }
  }
  # and no entry point of a function the header no longer has
  stale <- setdiff(grep("^C_cfx_", names(have), value = TRUE),
                   paste0("C_", vapply(abi$functions, `[[`, "", "name")))
  expect_identical(stale, character())
})

test_that("the arity rule reads row counts and callbacks as the shim takes them", {
  # hand-checked cases of the rule above: a row-counted array adds its count,
  # a per-element one does not, a callback is one R function
  f <- list(name = "f", params = list(
    list(name = "m", group = "handle", c_type = "const struct cfx_model *"),
    list(name = "x", group = "arrays", c_type = "const double *"),
    list(name = "n", group = "count", c_type = "size_t"),
    list(name = "cb", group = "callback", c_type = "cfx_progress_fn"),
    list(name = "user_data", group = "callback", c_type = "void *"),
    list(name = "buf", group = "buffer", c_type = "double *"),
    list(name = "cap", group = "cap", c_type = "size_t"),
    list(name = "out_len", group = "out_len", c_type = "size_t *")))
  expect_identical(r_arity(f, character()), 3L)
  expect_identical(r_arity(f, "f.x"), 4L)
})
