test_that("the library reports the version and ABI this package was built for", {
  v <- cfx_version()
  expect_identical(v$abi, 2L)
  expect_identical(v$header_abi, 2L)
  expect_identical(v$version, sprintf("%d.%d.%d", v$major, v$minor, v$patch))
  expect_identical(v$version, v$header_version)
  expect_output(print(v), "^cfx library [0-9]+\\.[0-9]+\\.[0-9]+ \\(ABI version 2\\)")
})

test_that("an ABI mismatch is refused with a clear message", {
  expect_true(cfx:::.check_abi(1L, 1L, 1L))
  expect_error(cfx:::.check_abi(2L, 1L, 1L),
               "loaded libcfx has ABI version 2, but this R package was built for ABI version 1")
  expect_error(cfx:::.check_abi(1L, 1L, 3L), "cfx.h with ABI version 3")
})

test_that("status numbers have their C names", {
  expect_identical(cfx_status_name(0), "CFX_STATUS_OK")
  expect_identical(cfx_status_name(2), "CFX_STATUS_INVALID_ARGUMENT")
  expect_identical(cfx_status_name(12), "CFX_STATUS_CANCELLED")
  expect_identical(cfx_status_name(99), "CFX_STATUS_PANIC")
  expect_identical(cfx_status_name(4242), "CFX_STATUS_UNKNOWN")
})

test_that("a non-OK status becomes a classed condition with status and message", {
  err <- expect_cfx_error(cfx_linear_model(c(1, 2), 0, threshold = 1.5),
                          "cfx_error_invalid_argument", "threshold")
  expect_identical(err$status, "CFX_STATUS_INVALID_ARGUMENT")
  expect_identical(err$code, 2L)
  expect_true(nzchar(err$detail))
  expect_identical(conditionMessage(err), paste0("CFX_STATUS_INVALID_ARGUMENT: ", err$detail))
  # the call shown is the user's call, not the shim's
  expect_match(deparse(conditionCall(err))[1], "^cfx_linear_model")
  # the thread's last error is still readable, and cleared by a good call
  expect_identical(cfx_last_error(), err$detail)
  m <- cfx_linear_model(c(1, 2), 0)
  expect_identical(cfx_last_error(), "")
  cfx_free(m)
})

test_that("each kind of failure maps to its own condition class", {
  expect_cfx_error(cfx_linear_model(c(1, NaN), 0), "cfx_error_invalid_argument")
  expect_cfx_error(cfx_schema_from_json("{ not json"), "cfx_error_format_error")
  expect_cfx_error(cfx_schema_from_json('{"format_version": 1, "features": []}'),
                   "cfx_error_invalid_schema")
  expect_cfx_error(cfx_load_german(file.path(tempdir(), "no-such-file.csv")),
                   "cfx_error_io_error")
  ds <- cfx_load_german()
  s <- cfx_schema(ds)
  expect_cfx_error(cfx_feature_index(s, "no_such_feature"), "cfx_error_not_found",
                   "no_such_feature")
  expect_cfx_error(cfx_encode(s, matrix(0, 1, 3)), "cfx_error_dimension_mismatch")
  m <- cfx_linear_model(rep(0, 5), 0)
  expect_cfx_error(predict(m, matrix(0, 1, 4)), "cfx_error_dimension_mismatch")
  cfx_free(m)
  # conditions can be caught by class
  caught <- tryCatch(cfx_row(ds, 5000), cfx_error_not_found = function(e) "not found")
  expect_identical(caught, "not found")
})

test_that("a Rust panic becomes an R error and the session lives on", {
  skip_if_not(cfx_version()$testing, "libcfx built without the testing feature")
  err <- expect_cfx_error(cfx_testing_panic(), "cfx_error_panic", "deliberate panic")
  expect_identical(err$status, "CFX_STATUS_PANIC")
  expect_identical(err$code, 99L)
  # twice, and then real work still succeeds
  expect_error(cfx_testing_panic(), class = "cfx_error_panic")
  ds <- cfx_load_german()
  expect_equal(cfx_n_rows(ds), 1000)
})

test_that("misuse is caught in the shim before reaching the library", {
  ds <- cfx_load_german()
  m <- cfx_linear_model(1, 0)
  expect_error(cfx_n_rows(m), "'dataset' must be a cfx_dataset handle")
  expect_error(cfx_n_rows(42), "must be a cfx_dataset handle")
  expect_error(cfx_free(42), "not a cfx handle")
  expect_error(cfx_fit_linear(ds, C = c(1, 2)), "'C' must be a single number")
  expect_error(cfx_train_mlp(ds, seed = -1), "'seed' must be a whole number")
  expect_error(cfx_train_mlp(ds, seed = "12x"), "'seed' must be decimal digits")
  expect_error(cfx_train_mlp(ds, seed = "99999999999999999999"), "does not fit in 64 bits")
})
