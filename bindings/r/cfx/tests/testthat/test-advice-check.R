# Advice the model accepts, or none (issue 25): the advice status of a robust
# result and of each option of a COPA plan made with a model, on
# bindings/testdata/advice_check_schema.json (its README gives the expected
# outcomes; tests/ffi_copa_advice.rs checks them in Rust).
skip_if_not(isTRUE(cfx_families()[["robust"]]) && isTRUE(cfx_families()[["copa"]]),
            "cfx.h has no robust or COPA entry points")

advice_schema <- function() cfx_read_schema(file.path(cfx_repo(), "bindings", "testdata", "advice_check_schema.json"))
applicant <- c(30000, -7, 1, 30)
today <- c(-3, 4, 1.5, 0.8, 0.5, -0.3, 0, 1)

test_that("a robust result says it is valid advice, in a getter and in words", {
  s <- advice_schema()
  m <- cfx_read_model(s, file.path(cfx_repo(), "examples", "c", "data", "applicant_model.json"))
  r <- cfx_robust(m, applicant, s, cfx_noise_gaussian(s, 0.01), "wachter")
  expect_identical(cfx_advice_status(r), "valid")
  adv <- cfx_advice_row(r)
  expect_identical(nrow(adv), 1L)
  expect_equal(adv, as.data.frame(r)[, names(adv)], ignore_attr = TRUE)
  expect_true(predict(m, adv, schema = s)$accepted)
  expect_match(cfx_describe(r), "^income: 30000 → .*\\(accepted, probability ")
  expect_output(print(r), "Advice: income: 30000 → ")
  expect_match(cfx_to_json(r), "\"outcome\": \"valid\"", fixed = TRUE)
})

test_that("a COPA plan made with a model checks and repairs every option", {
  s <- advice_schema()
  m <- cfx_read_model(s, file.path(cfx_repo(), "examples", "c", "data", "applicant_model.json"))
  flipped <- today
  flipped[2] <- -4
  valid <- cfx_copa_plan(cfx_uncertainty(today, rep(0.05, 8)), applicant, s, model = m)
  repaired <- cfx_copa_plan(cfx_uncertainty(flipped, rep(0.05, 8)), applicant, s, model = m)
  expect_identical(as.integer(cfx_copa_n_options(valid)), 5L)
  # The box binds all five options at the same limit: one row, described once.
  vl <- strsplit(cfx_describe(valid), "\n", fixed = TRUE)[[1L]]
  rl <- strsplit(cfx_describe(repaired), "\n", fixed = TRUE)[[1L]]
  expect_length(vl, 1L)
  expect_true(startsWith(vl[1L], "options 1, 2, 3, 4 and 5 (the same row): income: 30000 → 100000 (accepted"))
  expect_length(rl, 1L)
  expect_match(rl[1L], "repaired by the exact engine over the features the method moved", fixed = TRUE)
  for (k in 1:5) {
    expect_identical(cfx_advice_status(valid, k), "valid")
    expect_equal(cfx_advice_row(valid, k), cfx_copa_option(valid, k), ignore_attr = TRUE)
    expect_identical(cfx_advice_status(repaired, k), "repaired_moved_features")
    a <- cfx_advice_row(repaired, k)
    expect_identical(a$income, 58334)
    expect_true(predict(m, a, schema = s)$accepted)
    expect_false(predict(m, cfx_copa_option(repaired, k), schema = s)$accepted)
  }
  # The cheapest accepted income: one less is declined.
  expect_false(predict(m, c(58333, -7, 1, 30), schema = s)$accepted)
  unchecked <- cfx_copa_plan(cfx_uncertainty(today, rep(0.05, 8)), applicant, s)
  expect_cfx_error(cfx_advice_status(unchecked, 1), "cfx_error_invalid_argument", "cfx_copa_plan_new_checked")
  expect_cfx_error(cfx_advice_status(valid, 6), "cfx_error_not_found", "out of range")
  expect_error(cfx_advice_status(valid), "give the option")
})
