german <- cfx_load_german()
gs <- cfx_schema(german)

test_that("a schema built from the German data frame equals the loader's schema", {
  df <- as.data.frame(german, labels = FALSE)
  s <- cfx_schema_from_data(df, immutable = c("personal_status_and_sex", "foreign_worker"),
                            increase_only = "age_in_years")
  expect_identical(names(s), names(gs))
  expect_equal(cfx_encoded_dim(s), 61)
  expect_equal(as.data.frame(s), as.data.frame(gs))
  expect_equal(cfx_encode(s, df), cfx_encode(gs, df))
  # no weights were fitted, so the documents differ by the weights only
  expect_false(identical(cfx_fingerprint(s), cfx_fingerprint(gs)))
  expect_identical(cfx_fingerprint(cfx_fit_weights(s, df)), cfx_fingerprint(gs))
})

test_that("the builder writes what it was told, special states and actionability included", {
  b <- cfx_schema_builder() |>
    cfx_add_contiguous("income", 0, 100000, integer = TRUE) |>
    cfx_add_special_state(-9, "no record") |>
    cfx_set_actionability(direction = "increase_only") |>
    cfx_add_categorical("housing", c("rent", "own", "free")) |>
    cfx_set_actionability(mutable = FALSE)
  expect_output(print(b), "schema builder")
  s <- cfx_schema_build(b)
  expect_false(cfx_is_live(b))
  doc <- jsonlite::fromJSON(cfx_to_json(s), simplifyVector = FALSE)
  f1 <- doc$features[[1]]
  expect_identical(f1$name, "income")
  expect_identical(c(f1$lower, f1$upper), c(0, 1e5))
  expect_true(f1$integer)
  expect_identical(f1$special_states[[1]]$code, -9)
  expect_identical(f1$special_states[[1]]$label, "no record")
  expect_identical(f1$actionability$direction, "increase_only")
  f2 <- doc$features[[2]]
  expect_identical(unlist(f2$levels), c("rent", "own", "free"))
  expect_false(f2$actionability$mutable)
  # the JSON route gives the same schema
  expect_identical(cfx_fingerprint(cfx_schema_from_json(cfx_to_json(s))), cfx_fingerprint(s))
  out <- capture.output(print(s))
  expect_identical(out, c("A cfx schema of 2 features (5 encoded columns):",
                          "  income: whole number from 0 to 100000 (can only increase; special states: no record)",
                          "  housing: one of 3 levels (cannot change)"))
  # a special state has its own indicator; the value slot then holds 0
  x <- cfx_encode(s, data.frame(income = c(50000, -9), housing = c("own", "free")))
  expect_equal(x, rbind(c(0.5, 0, 0, 1, 0), c(0, 1, 0, 0, 1)))
})

test_that("the builder refuses inconsistent features and is consumed by a failed build", {
  invisible(gc())
  before <- cfx:::.cfx_free_counts()
  b <- cfx_schema_builder() |> cfx_add_contiguous("a", 0, 1) |> cfx_add_contiguous("a", 0, 1)
  expect_cfx_error(cfx_schema_build(b), "cfx_error_invalid_schema", "duplicate feature name 'a'")
  expect_false(cfx_is_live(b))
  expect_equal(cfx:::.cfx_free_counts()[["schema_builder"]], before[["schema_builder"]])
  b <- cfx_schema_builder()
  expect_cfx_error(cfx_set_actionability(b, FALSE), "cfx_error_invalid_argument", "no feature yet")
  cfx_add_categorical(b, "c", "x")
  expect_cfx_error(cfx_add_special_state(b, -1, "n"), "cfx_error_invalid_argument", "categorical")
  expect_cfx_error(cfx_set_actionability(b, TRUE, 7), "cfx_error_invalid_argument")
  expect_cfx_error(cfx_add_contiguous(b, "d", 0, NaN), "cfx_error_invalid_argument")
  expect_error(cfx_set_actionability(b, TRUE, "sideways"), "'direction' must be one of")
  expect_true(cfx_free(b))
  expect_equal(cfx:::.cfx_free_counts()[["schema_builder"]], before[["schema_builder"]] + 1)
  expect_cfx_error(cfx_schema_build(cfx_schema_builder()), "cfx_error_invalid_schema", "at least one feature")
  expect_cfx_error(cfx_schema_build(cfx_schema_builder() |> cfx_add_contiguous("a", 0, 10) |>
                                      cfx_add_special_state(5, "inside")),
                   "cfx_error_invalid_schema", "inside the value range")
  expect_error(cfx_schema_from_data(data.frame(a = 1:3), immutable = "zz"), "no column named 'zz'")
})

test_that("special codes stay out of the inferred range", {
  df <- data.frame(months = c(-9, 3, 12, -9, 40), grade = factor(c("a", "b", "a", "c", "b")))
  s <- cfx_schema_from_data(df, special_states = list(months = c("never" = -9)))
  f <- as.data.frame(s)
  expect_equal(c(f$lower[1], f$upper[1]), c(3, 40))
  expect_equal(f$n_levels[2], 3)
  back <- cfx_decode(s, cfx_encode(s, df))
  expect_equal(back$months, df$months)
  expect_identical(as.character(back$grade), as.character(df$grade))
})
