counts <- function() cfx:::.cfx_free_counts()

test_that("an explicit free releases the handle once; a second free is a no-op", {
  invisible(gc())
  before <- counts()
  m <- cfx_linear_model(c(0.5, -0.25), 0.1)
  expect_true(cfx_is_live(m))
  expect_true(cfx_free(m))
  expect_equal(counts()[["model"]], before[["model"]] + 1)
  expect_false(cfx_is_live(m))
  expect_false(cfx_free(m))
  expect_equal(counts()[["model"]], before[["model"]] + 1)
  expect_error(cfx_model_info(m), "'model' \\(cfx_model\\) has been freed")
  expect_output(print(m), "<cfx model, freed>")
  # the collector does not free it again
  rm(m)
  invisible(gc())
  expect_equal(counts()[["model"]], before[["model"]] + 1)
})

test_that("copies share one handle", {
  s <- cfx_schema(cfx_load_german())
  s2 <- s
  cfx_free(s)
  expect_false(cfx_is_live(s2))
})

test_that("the garbage collector frees forgotten handles exactly once", {
  invisible(gc())
  before <- counts()
  local({
    ds <- cfx_load_german()
    for (i in 1:50) cfx_schema(ds)
    cfx_linear_model(1, 0)
    NULL
  })
  invisible(gc())
  invisible(gc())
  after <- counts()
  expect_equal(after[["schema"]] - before[["schema"]], 50)
  expect_equal(after[["dataset"]] - before[["dataset"]], 1)
  expect_equal(after[["model"]] - before[["model"]], 1)
})

test_that("handles held elsewhere survive the collector", {
  ds <- cfx_load_german()
  s <- cfx_schema(ds)
  rm(ds)
  invisible(gc())
  # the schema keeps its own reference inside the library
  expect_equal(cfx_n_features(s), 20)
  split <- cfx_holdout_split(cfx_load_german())
  invisible(gc())
  expect_equal(cfx_n_rows(split$train), 700)
})

test_that("building consumes the builder; a failed build consumes it too", {
  invisible(gc())
  before <- counts()
  b <- cfx_config_builder()
  cfx_config_set(b, "seed", 7)
  cfg <- cfx_config_build(b)
  expect_false(cfx_is_live(b))
  expect_true(cfx_is_live(cfg))
  expect_error(cfx_config_build(b), "has been freed")
  expect_false(cfx_free(b))
  # the builder was consumed by the library, not freed by the shim
  expect_equal(counts()[["config_builder"]], before[["config_builder"]])
  expect_true(cfx_free(cfg))
  expect_equal(counts()[["config"]], before[["config"]] + 1)
  # cfx_config() frees its builder when a setting is refused
  expect_error(cfx_config(threads = 0), class = "cfx_error_invalid_argument")
  invisible(gc())
  expect_equal(counts()[["config_builder"]], before[["config_builder"]] + 1)
})

test_that("handles alive at the end of a session are released at exit (onexit finalizers)", {
  rscript <- file.path(R.home("bin"), "Rscript")
  code <- paste(
    "library(cfx)",
    "ds <- cfx_load_german(); m <- cfx_fit_linear(ds); s <- cfx_schema(ds)",
    "cfx_free(s)",
    "cat('ok\\n')", sep = "; ")
  out <- system2(rscript, c("--vanilla", "-e", shQuote(code)), stdout = TRUE, stderr = TRUE,
                 env = c(paste0("R_LIBS=", paste(.libPaths(), collapse = ":")),
                         "CFX_R_TRACE_FREE=1"))
  expect_null(attr(out, "status"))
  expect_true("ok" %in% out)
  released <- out[startsWith(out, "cfx: released a ")]
  # the schema once (explicitly, before 'ok'), the model and dataset at exit
  expect_identical(sort(released), sort(c("cfx: released a cfx_schema",
                                          "cfx: released a cfx_model",
                                          "cfx: released a cfx_dataset")))
  expect_gt(match("cfx: released a cfx_model", out), match("ok", out))
})
