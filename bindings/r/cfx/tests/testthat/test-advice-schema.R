# The advice calls of the schema (issue #16): change limits, time growth and waiting from the
# builder, and the German credit preset. The change limit's oracle is arithmetic: the model
# accepts exactly the amounts <= 4000 (score 4 - 10 * amount / 10000), the applicant asks 5000,
# so a decrease limit of 10 % (down to 4500) leaves no recourse and one of 2000 units puts the
# answer in [3000, 4000].

limited_amount <- function(max_decrease) {
  cfx_schema_builder() |>
    cfx_add_contiguous("amount", 0, 10000) |>
    cfx_set_change_limits(max_decrease = max_decrease) |>
    cfx_add_contiguous("age", 18, 80, integer = TRUE) |>
    cfx_set_actionability(mutable = FALSE) |>
    cfx_schema_build()
}

test_that("the coherent answer never exceeds a change limit", {
  skip_if_not(isTRUE(cfx_families()[["coherent"]]), "cfx.h has no coherent entry points")
  m <- cfx_linear_model(c(-10, 0), 4)
  applicant <- c(5000, 30)
  tight <- limited_amount(c(fraction = 0.1))
  loose <- limited_amount(2000) # raw units
  expect_false(predict(m, applicant, schema = loose)$accepted)
  expect_match(cfx_to_json(tight), "\"fraction\": 0.1", fixed = TRUE)
  r <- cfx_explain(m, applicant, tight)
  expect_identical(cfx_outcome(r)$outcome, "infeasible")
  r <- cfx_explain(m, applicant, loose)
  expect_identical(cfx_outcome(r)$outcome, "optimal")
  cf <- cfx_counterfactual(r)
  expect_gte(cf$amount, 3000 - 1e-6)
  expect_lte(cf$amount, 4000 + 1e-6)
  expect_equal(cf$age, 30)
  expect_true(predict(m, c(cf$amount, cf$age), schema = loose)$accepted)
})

test_that("time growth and waiting reach the schema", {
  s <- cfx_schema_builder() |>
    cfx_add_contiguous("months_since_delinquency", 0, 120, integer = TRUE) |>
    cfx_add_special_state(-8, "beyond records") |>
    cfx_set_time_growth(1, ends_in = "beyond records") |>
    cfx_add_contiguous("age", 18, 99) |>
    cfx_set_time_growth(per_month = 1 / 12) |>
    cfx_set_waiting(cost_per_month = 0.05, max_months = 36) |>
    cfx_schema_build()
  doc <- jsonlite::fromJSON(cfx_to_json(s), simplifyVector = FALSE)
  expect_identical(doc$waiting$max_months, 36L)
  expect_equal(doc$waiting$cost_per_month, 0.05)
  expect_equal(doc$features[[1]]$actionability$grows_with_time$per_month, 1)
  expect_identical(doc$features[[1]]$actionability$grows_with_time$ends_in, "beyond records")
  expect_equal(doc$features[[2]]$actionability$grows_with_time$per_month, 1 / 12)
  expect_identical(cfx_fingerprint(cfx_schema_from_json(cfx_to_json(s))), cfx_fingerprint(s))

  expect_error(cfx_schema_builder() |> cfx_add_contiguous("m", 0, 10) |> cfx_set_time_growth() |>
                 cfx_schema_build(), class = "cfx_error_invalid_schema")
  expect_error(cfx_schema_builder() |> cfx_add_contiguous("m", 0, 10) |>
                 cfx_set_time_growth(ends_in = "gone") |> cfx_set_waiting(1, 12) |> cfx_schema_build(),
               "gone", class = "cfx_error_invalid_schema")
  expect_error(cfx_schema_builder() |> cfx_add_contiguous("m", 0, 10) |> cfx_set_waiting(1, 601) |>
                 cfx_schema_build(), class = "cfx_error_invalid_schema")
  expect_error(cfx_schema_builder() |> cfx_add_contiguous("m", 0, 10) |>
                 cfx_set_change_limits(max_increase = -1) |> cfx_schema_build(),
               class = "cfx_error_invalid_schema")
  b <- cfx_schema_builder() |> cfx_add_contiguous("m", 0, 10)
  expect_error(cfx_set_waiting(b, 1, -1), "max_months")
  expect_error(cfx_set_waiting(b, Inf, 12), class = "cfx_error_invalid_argument")
  expect_error(cfx_set_change_limits(b, max_increase = NaN), class = "cfx_error_invalid_argument")
  expect_error(cfx_set_change_limits(b, max_increase = c(percent = 5)), "max_increase")
  cfx_free(b)
})

test_that("the German preset names its limits and its waiting", {
  s <- cfx_schema(cfx_load_german())
  expect_no_match(cfx_to_json(s), "max_decrease", fixed = TRUE)
  advice <- cfx_advice_preset(s, "german", waiting_cost_per_month = 0.1)
  doc <- jsonlite::fromJSON(cfx_to_json(advice), simplifyVector = FALSE)
  feature <- function(name) Filter(function(f) f$name == name, doc$features)[[1]]
  amount <- feature("credit_amount")$actionability
  expect_equal(amount$max_decrease$fraction, 0.5)
  expect_equal(amount$max_increase$fraction, 0.25)
  duration <- feature("duration_in_month")$actionability
  expect_equal(c(duration$max_decrease$units, duration$max_increase$units), c(12, 12))
  expect_equal(feature("age_in_years")$actionability$grows_with_time$per_month, 1 / 12)
  expect_identical(doc$waiting$max_months, 24L)
  expect_equal(doc$waiting$cost_per_month, 0.1)
  expect_identical(names(advice), names(s))
  expect_error(cfx_advice_preset(s, "heloc", 0.1), class = "cfx_error_not_found")
  expect_error(cfx_advice_preset(s, "german", NaN), class = "cfx_error_invalid_argument")
  expect_error(cfx_advice_preset(s, "taiwan", 0.1), "should be one of")
})

# The builder's last advice setters (issue 25), each shown to take effect on a model whose answer
# is known by hand, and each refusing a bad value.
capped_pair <- function(cap = NULL) {
  # a, b in [0, 6]; the model accepts a/6 + b/6 >= 1.6 (encoded slots), so (3, 3) needs both
  # features to move: one alone reaches 1.5.
  b <- cfx_schema_builder() |> cfx_add_contiguous("a", 0, 6) |> cfx_add_contiguous("b", 0, 6)
  if (!is.null(cap)) cfx_set_max_features_changed(b, cap)
  cfx_schema_build(b)
}

test_that("a cap of one leaves no single change that flips the decision", {
  skip_if_not(isTRUE(cfx_families()[["coherent"]]), "cfx.h has no coherent entry points")
  m <- cfx_linear_model(c(1, 1), -1.6)
  free <- capped_pair()
  one <- capped_pair(1)
  expect_match(cfx_to_json(one), "\"max_features_changed\": 1", fixed = TRUE)
  expect_false(grepl("max_features_changed", cfx_to_json(free), fixed = TRUE))
  r <- cfx_explain(m, c(3, 3), free)
  expect_identical(cfx_outcome(r)$outcome, "optimal")
  cf <- cfx_counterfactual(r)
  expect_true(cf$a != 3 && cf$b != 3)
  expect_identical(cfx_outcome(cfx_explain(m, c(3, 3), one))$outcome, "infeasible")
  expect_identical(cfx_outcome(cfx_explain(m, c(3, 3), capped_pair(2)))$outcome, "optimal")
  b <- cfx_schema_builder() |> cfx_add_contiguous("a", 0, 6)
  expect_error(cfx_set_max_features_changed(b, 0), "at least 1", class = "cfx_error_invalid_argument")
  expect_error(cfx_set_max_features_changed(b, -1), "cap")
  cfx_free(b)
})

test_that("band months make waiting move the job up its order", {
  skip_if_not(isTRUE(cfx_families()[["coherent"]]), "cfx.h has no coherent entry points")
  levels <- c("< 1 year", "1 to 4 years", ">= 4 years")
  s <- cfx_schema_builder() |>
    cfx_add_categorical("job", levels) |>
    cfx_set_level_order(levels) |>
    cfx_set_band_months("< 1 year", 12) |>
    cfx_set_band_months("1 to 4 years", 36) |>
    cfx_set_waiting(0.01, 24) |>
    cfx_schema_build()
  expect_match(cfx_to_json(s), "\"band_months\"", fixed = TRUE)
  # every level but the first is accepted; only waiting moves the job
  w <- cfx_waiting(cfx_explain_with_waiting(cfx_linear_model(c(0, 5, 5), -3), 0, s))
  expect_true(w$found)
  expect_identical(w$months, 12L)
  expect_identical(w$waited, 1)
  b <- cfx_schema_builder() |> cfx_add_categorical("job", c("a", "b"))
  expect_error(cfx_set_band_months(b, "c", 12), class = "cfx_error_not_found")
  expect_error(cfx_set_band_months(b, "a", -1), "months")
  cfx_free(b)
  b <- cfx_schema_builder() |> cfx_add_contiguous("m", 0, 10)
  expect_error(cfx_set_band_months(b, "a", 12), class = "cfx_error_invalid_argument")
  cfx_free(b)
  expect_error(cfx_schema_builder() |> cfx_add_categorical("job", c("a", "b")) |>
                 cfx_set_level_order(c("a", "b")) |> cfx_set_band_months("b", 12) |>
                 cfx_set_waiting(1, 12) |> cfx_schema_build(),
               "no next band", class = "cfx_error_invalid_schema")
})

inquiries <- function() {
  # months since the last inquiry in [0, 24]; the model accepts only "gone" (-7)
  cfx_schema_builder() |>
    cfx_add_contiguous("inq", 0, 24, integer = TRUE) |>
    cfx_add_special_state(-7, "gone") |>
    cfx_set_time_growth(1, ends_in = "gone")
}

test_that("ends_after closes the window before the upper bound", {
  skip_if_not(isTRUE(cfx_families()[["coherent"]]), "cfx.h has no coherent entry points")
  early <- inquiries() |> cfx_set_time_growth_ends_after(23) |> cfx_set_waiting(0.01, 24) |>
    cfx_schema_build()
  late <- inquiries() |> cfx_set_waiting(0.01, 24) |> cfx_schema_build()
  m <- cfx_linear_model(c(0, 5), -3)
  expect_match(cfx_to_json(early), "\"ends_after\": 23", fixed = TRUE)
  w <- cfx_waiting(cfx_explain_with_waiting(m, 0, early))
  expect_true(w$found)
  expect_identical(w$months, 24L)
  expect_identical(w$waited, -7)
  expect_identical(cfx_waiting(cfx_explain_with_waiting(m, 0, late))$outcome, "no_advice")
  expect_error(inquiries() |> cfx_set_time_growth_ends_after(30) |> cfx_set_waiting(0.01, 24) |>
                 cfx_schema_build(), "ends_after", class = "cfx_error_invalid_schema")
  b <- cfx_schema_builder() |> cfx_add_contiguous("m", 0, 10)
  expect_error(cfx_set_time_growth_ends_after(b, 5), class = "cfx_error_invalid_argument")
  cfx_free(b)
})

delinquency <- function(refuse) {
  # months since a delinquency in [0, 83] and the file's age in [0, 100], both
  # growing a month a month; `refuse` makes the first refuse to pass 83
  cfx_schema_builder() |>
    cfx_add_contiguous("delq", 0, 83, integer = TRUE) |>
    cfx_set_time_growth(1) |>
    cfx_set_time_growth_refuse_past_upper(refuse) |>
    cfx_add_contiguous("file", 0, 100, integer = TRUE) |>
    cfx_set_time_growth(1) |>
    cfx_set_waiting(0.01, 24) |>
    cfx_schema_build()
}

test_that("refusing past the upper bound shortens the wait", {
  skip_if_not(isTRUE(cfx_families()[["coherent"]]), "cfx.h has no coherent entry points")
  capped <- delinquency(FALSE)
  refusing <- delinquency(TRUE)
  # accepted with a file of 60 months or more, whatever the delinquency
  m <- cfx_linear_model(c(0, 10), -5.95)
  expect_match(cfx_to_json(refusing), "\"past_upper\": \"refuse\"", fixed = TRUE)
  expect_false(grepl("past_upper", cfx_to_json(capped), fixed = TRUE))
  # capped: ten months, the delinquency piled at 83
  w <- cfx_waiting(cfx_explain_with_waiting(m, c(80, 50), capped))
  expect_true(w$found)
  expect_identical(w$months, 10L)
  expect_identical(w$waited, c(83, 60))
  # refusing: at most 3 months, the file only 53 months old
  expect_identical(cfx_waiting(cfx_explain_with_waiting(m, c(80, 50), refusing))$outcome,
                   "no_advice")
  expect_error(inquiries() |> cfx_set_time_growth_refuse_past_upper() |>
                 cfx_set_waiting(0.01, 24) |> cfx_schema_build(),
               "past_upper", class = "cfx_error_invalid_schema")
  b <- cfx_schema_builder() |> cfx_add_contiguous("m", 0, 10)
  expect_error(cfx_set_time_growth_refuse_past_upper(b), class = "cfx_error_invalid_argument")
  cfx_free(b)
})

files <- function(advised_range = NULL) {
  # the file's age in [0, 100] months, growing a month a month (`advised_range`
  # limits where a wait may take it), and x in [0, 10], integer
  b <- cfx_schema_builder() |>
    cfx_add_contiguous("file", 0, 100, integer = TRUE) |>
    cfx_set_time_growth(1)
  if (!is.null(advised_range)) cfx_set_time_growth_advised_range(b, advised_range[1], advised_range[2])
  b |>
    cfx_add_contiguous("x", 0, 10, integer = TRUE) |>
    cfx_set_waiting(0.01, 24) |>
    cfx_schema_build()
}

# The score 10 * file / 100 - 3 * x / 10 - 2.45: with x = 0 a file of 25
# months or more is accepted, with x = 10 one of 55; a month of waiting (cost
# 0.01) adds 0.1, lowering x by 1 (cost 0.1) adds 0.3.
files_model <- function() cfx_linear_model(c(10, -3), -2.45)

# The advised ranges of a schema's JSON, by feature name.
advised_ranges <- function(schema) {
  doc <- jsonlite::fromJSON(cfx_to_json(schema), simplifyVector = FALSE)
  out <- list()
  for (f in doc$features) {
    r <- f$actionability$grows_with_time$advised_range
    if (!is.null(r)) out[[f$name]] <- unlist(r)
  }
  out
}

test_that("an advised range keeps waits where it says", {
  skip_if_not(isTRUE(cfx_families()[["coherent"]]), "cfx.h has no coherent entry points")
  free <- files()
  ranged <- files(c(30, 40))
  m <- files_model()
  expect_identical(advised_ranges(ranged), list(file = c(30, 40)))
  expect_false(grepl("advised_range", cfx_to_json(free), fixed = TRUE))
  # file 20: five months reach 25; within [30, 40] the waits are 0 and 10 to 20
  w <- cfx_waiting(cfx_explain_with_waiting(m, c(20, 0), free))
  expect_identical(w$months, 5L)
  expect_identical(w$final, c(25, 0))
  w <- cfx_waiting(cfx_explain_with_waiting(m, c(20, 0), ranged))
  expect_true(w$found)
  expect_identical(w$months, 10L)
  expect_equal(w$total_cost, 0.10, tolerance = 1e-9)
  expect_identical(w$final, c(30, 0))
  # file 45, x 10: ten months (55) cost 0.10, below lowering x to 6 (0.4);
  # above the range every wait leaves it, so x moves
  w <- cfx_waiting(cfx_explain_with_waiting(m, c(45, 10), free))
  expect_identical(w$months, 10L)
  expect_identical(w$final, c(55, 10))
  w <- cfx_waiting(cfx_explain_with_waiting(m, c(45, 10), ranged))
  expect_identical(w$months, 0L)
  expect_equal(w$total_cost, 0.4, tolerance = 1e-9)
  expect_identical(w$final, c(45, 6))
  # a wait into the ends_in state is not judged: from 20, five months carry
  # the inquiry out of the window although 21 to 24 lie outside [0, 5]
  s <- inquiries() |> cfx_set_time_growth_advised_range(0, 5) |>
    cfx_set_waiting(0.01, 24) |> cfx_schema_build()
  w <- cfx_waiting(cfx_explain_with_waiting(cfx_linear_model(c(0, 5), -3), 20, s))
  expect_identical(w$months, 5L)
  expect_identical(w$waited, -7)
  expect_error(files(c(40, 30)), "advised_range", class = "cfx_error_invalid_schema")
  b <- cfx_schema_builder() |> cfx_add_contiguous("file", 0, 100) |> cfx_set_time_growth(1)
  expect_error(cfx_set_time_growth_advised_range(b, NaN, 40), class = "cfx_error_invalid_argument")
  cfx_free(b)
  b <- cfx_schema_builder() |> cfx_add_contiguous("m", 0, 10)
  expect_error(cfx_set_time_growth_advised_range(b, 0, 5), class = "cfx_error_invalid_argument")
  cfx_free(b)
})

test_that("plausibility advises waits within the accepted applicants' range", {
  skip_if_not(isTRUE(cfx_families()[["coherent"]]), "cfx.h has no coherent entry points")
  free <- files()
  # accepted files 30..=40: the type-7 1% and 99% points are 30 + 0.1 and
  # 39 + 0.9; the declined rows (0, 60 and 100 months) are not counted
  rows <- data.frame(file = c(30:40, 0, 60, 100), x = c(rep(5, 11), 0, 10, 3),
                     accepted = c(rep(1, 11), 0, 0, 0))
  f <- tempfile(fileext = ".csv")
  utils::write.csv(rows, f, row.names = FALSE)
  ranges <- cfx_plausibility(cfx_read_dataset(free, f, target = "accepted", favourable = "1"))
  within <- cfx_plausibility_advise_waits(ranges)
  r <- advised_ranges(within)
  expect_identical(names(r), "file")
  expect_equal(r$file, c(30.1, 39.9), tolerance = 1e-9)
  expect_false(grepl("advised_range", cfx_to_json(free), fixed = TRUE))
  m <- files_model()
  # file 20: waits 0 and 11 to 19 land inside [30.1, 39.9]; 11 months are accepted
  w <- cfx_waiting(cfx_explain_with_waiting(m, c(20, 0), within))
  expect_identical(w$months, 11L)
  expect_identical(w$final, c(31, 0))
  w <- cfx_waiting(cfx_explain_with_waiting(m, c(45, 10), within))
  expect_identical(w$months, 0L)
  expect_identical(w$final, c(45, 6))
  unlink(f)
})

test_that("an advice grid and a minimum change round the advice", {
  skip_if_not(isTRUE(cfx_families()[["coherent"]]), "cfx.h has no coherent entry points")
  # An income in [0, 100000] at 43217; the model accepts an income above 43500. Advised in
  # multiples of 1000 by at least 2000 the answer is 46000 (44000 is only 783 more, 45000 1783).
  income <- function(step = NULL) {
    b <- cfx_schema_builder() |> cfx_add_contiguous("income", 0, 100000)
    if (!is.null(step)) cfx_set_advice_grid(b, step, 2000)
    cfx_schema_build(b)
  }
  m <- cfx_linear_model(1, -0.435)
  grid <- income(1000)
  expect_match(cfx_to_json(grid), "\"advice_step\": 1000.0", fixed = TRUE)
  free <- cfx_counterfactual(cfx_explain(m, 43217, income()))$income
  expect_true(free > 43500 && free < 43501)
  r <- cfx_explain(m, 43217, grid)
  expect_identical(cfx_outcome(r)$outcome, "optimal")
  expect_identical(cfx_counterfactual(r)$income, 46000)
  b <- cfx_schema_builder() |> cfx_add_contiguous("income", 0, 100000)
  expect_error(cfx_set_advice_grid(b, -1000, 0), "finite and non-negative", class = "cfx_error_invalid_argument")
  expect_error(cfx_set_advice_grid(b, 1000, NaN), "finite and non-negative", class = "cfx_error_invalid_argument")
  cfx_free(b)
  b <- cfx_schema_builder() |> cfx_add_contiguous("n", 0, 10, integer = TRUE) |> cfx_set_advice_grid(2.5)
  expect_error(cfx_schema_build(b), "whole number", class = "cfx_error_invalid_schema")
})
