# Waiting advice (issue #16) through the C ABI. The German numbers are checked
# bit for bit against Rust in test-scenario.R; here a two-feature case whose
# answer follows by hand, the "no advice" result and a refusal.

waiting_schema <- function(price) {
  cfx_schema_builder() |>
    cfx_add_contiguous("income", 0, 100) |>
    cfx_add_contiguous("months", 0, 10, integer = TRUE) |>
    cfx_set_time_growth(1) |>
    cfx_set_waiting(price, 10) |>
    cfx_schema_build()
}

test_that("waiting advice waits exactly when a month is worth its price", {
  # 4 slot(income) + slot(months) - 3 > 0 at income 20, months 0: each month
  # waited lowers the income slot needed by 1/40.
  m <- cfx_linear_model(c(4, 1), -3)
  s <- waiting_schema(0.5)  # waiting never pays: the plain optimum
  w <- cfx_waiting(cfx_explain_with_waiting(m, c(20, 0), s))
  now <- as.data.frame(cfx_explain(m, c(20, 0), s))
  expect_true(w$found)
  expect_identical(w$months, 0L)
  expect_identical(w$total_cost, now$cost[1])
  expect_identical(w$final, unname(unlist(now[1, c("income", "months")])))
  s <- waiting_schema(0.001)  # waiting always pays: the full 10 months, then move
  a <- cfx_explain_with_waiting(m, c(20, 0), s)
  w <- cfx_waiting(a)
  later <- as.data.frame(cfx_explain(m, c(20, 10), s))
  expect_identical(w$months, 10L)
  expect_identical(w$waited, c(20, 10))
  expect_identical(w$wait_cost, 0.001 * 10)
  expect_identical(w$total_cost, 0.001 * 10 + later$cost[1])
  expect_true(w$proved_by %in% c("highs", "separable"))
  expect_match(cfx_describe(a), "^wait 10 months \\(months: 0 → 10\\), then income: 20 → ")
  expect_identical(jsonlite::fromJSON(cfx_to_json(a))$kind, "waiting_advice")
  expect_cfx_error(cfx_explain_with_waiting(m, c(90, 0), s), "cfx_error_invalid_argument")
})

test_that("no wait and no move accepted is a result, not an error", {
  s <- cfx_schema_builder() |> cfx_add_contiguous("income", 0, 100) |>
    cfx_set_actionability(mutable = FALSE) |> cfx_schema_build()
  a <- cfx_explain_with_waiting(cfx_linear_model(4, -3), 20, s)
  expect_identical(cfx_waiting(a), list(found = FALSE, outcome = "no_advice", proven = TRUE))
  expect_match(cfx_describe(a), "^no advice")
  expect_output(print(a), "no advice")
})

test_that("a node limit gives unproven advice, not an error", {
  # Income 0..100 in whole units and months 0..10 growing one a month, waiting
  # at 0.001 a month; 4 slot(income) + w slot(months) - 3 declines income 20
  # at month 0. No month's income need is a whole number at the separable
  # solver's root, so a node limit of 1 stops every month's solve: with w = 1
  # (waiting alone never accepted) the outcome is "unproven", with w = 3
  # (accepted from month 8) "wait 8 months" is found but not proven.
  s <- cfx_schema_builder() |>
    cfx_add_contiguous("income", 0, 100, integer = TRUE) |>
    cfx_add_contiguous("months", 0, 10, integer = TRUE) |>
    cfx_set_time_growth(1) |>
    cfx_set_waiting(0.001, 10) |>
    cfx_schema_build()
  limited <- cfx_config(solver = "separable", node_limit = 1)
  full <- cfx_config(solver = "separable")
  never <- cfx_linear_model(c(4, 1), -3)
  at8 <- cfx_linear_model(c(4, 3), -3)
  a <- cfx_explain_with_waiting(never, c(20, 0), s, limited)
  expect_identical(cfx_waiting(a), list(found = FALSE, outcome = "unproven", proven = FALSE))
  expect_match(cfx_describe(a), "^no advice found, and none proven impossible: the separable solver's node limit")
  expect_identical(jsonlite::fromJSON(cfx_to_json(a))$result$unproven$raw_status, -3L)
  w <- cfx_waiting(cfx_explain_with_waiting(never, c(20, 0), s, full))
  expect_identical(w[c("outcome", "proven", "months")], list(outcome = "found", proven = TRUE, months = 10L))
  a <- cfx_explain_with_waiting(at8, c(20, 0), s, limited)
  w <- cfx_waiting(a)
  expect_identical(w[c("outcome", "proven", "months")], list(outcome = "found", proven = FALSE, months = 8L))
  expect_match(cfx_describe(a), "(not proven optimal: the separable solver's node limit stopped a solve)", fixed = TRUE)
  expect_false(jsonlite::fromJSON(cfx_to_json(a))$result$proven)
  w <- cfx_waiting(cfx_explain_with_waiting(at8, c(20, 0), s, full))
  expect_identical(w[c("outcome", "proven", "months")], list(outcome = "found", proven = TRUE, months = 8L))
  expect_cfx_error(cfx_config(node_limit = 0), "cfx_error_invalid_argument")
})

test_that("a level order decides which way is up", {
  # levels "high", "low", "unknown" (that index order), ordered low < high,
  # increase only; the model accepts "low" alone
  s <- cfx_schema_builder() |> cfx_add_categorical("savings", c("high", "low", "unknown")) |>
    cfx_set_level_order(c("low", "high")) |>
    cfx_set_actionability(mutable = TRUE, direction = "increase_only") |> cfx_schema_build()
  m <- cfx_linear_model(c(0, 5, 0), -3)
  expect_match(cfx_to_json(s), "level_order", fixed = TRUE)
  # high -> low is down by the order (by index it is an increase)
  expect_identical(cfx_outcome(cfx_explain(m, 0, s))$outcome, "infeasible")
  # unknown -> low is outside the order (by index a decrease)
  r <- cfx_explain(m, 2, s)
  expect_identical(cfx_outcome(r)$outcome, "optimal")
  expect_identical(.Call(cfx:::C_cfx_coherent_result_counterfactual, r, 0), 1)
  b <- cfx_schema_builder() |> cfx_add_categorical("savings", c("high", "low")) |>
    cfx_set_level_order(c("low", "medium"))
  expect_cfx_error(cfx_schema_build(b), "cfx_error_invalid_schema", "medium")
  b <- cfx_schema_builder() |> cfx_add_contiguous("m", 0, 10)
  expect_cfx_error(cfx_set_level_order(b, "a"), "cfx_error_invalid_argument")
})
