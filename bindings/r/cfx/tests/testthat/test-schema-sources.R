# Where a schema comes from: the builder with every actionability field
# (against the same schema written as JSON), the weights a schema says it has,
# a dataset's schema with weights fitted on its rows (against weights computed
# by hand), and schema inference from a CSV with caller-given special codes.

all_fields_json <- '{"format_version": 1, "features": [
  {"name": "income", "kind": "contiguous", "lower": 0, "upper": 100000, "step": 500,
   "special_states": [{"code": -7, "label": "no record"}],
   "actionability": {"direction": "increase_only", "lower": 1000, "upper": 90000,
                     "cost_scale": 2.5,
                     "forbidden_transitions": [{"from": "value", "to": "no record"}]}},
  {"name": "housing", "kind": "categorical", "levels": ["rent", "own", "free"],
   "actionability": {"cost_scale": 0.5, "forbidden_transitions": [{"from": "own", "to": "*"}]}},
  {"name": "age", "kind": "contiguous", "lower": 18, "upper": 99, "integer": true,
   "actionability": {"mutable": false}}]}'

test_that("the builder sets every actionability field as the JSON does", {
  want <- cfx_schema_from_json(all_fields_json)
  got <- cfx_schema_builder() |>
    cfx_add_contiguous("income", 0, 1e5) |>
    cfx_add_special_state(-7, "no record") |>
    cfx_set_step(500) |>
    cfx_set_actionability(direction = "increase_only") |>
    cfx_set_actionable_bounds(1000, 90000) |>
    cfx_set_cost_scale(2.5) |>
    cfx_forbid_transition("value", "no record") |>
    cfx_add_categorical("housing", c("rent", "own", "free")) |>
    cfx_set_cost_scale(0.5) |>
    cfx_forbid_transition("own", "*") |>
    cfx_add_contiguous("age", 18, 99, integer = TRUE) |>
    cfx_set_actionability(mutable = FALSE) |>
    cfx_schema_build()
  expect_identical(cfx_to_json(got), cfx_to_json(want))
  expect_identical(cfx_weights_kind(got), "unit")

  b <- cfx_schema_builder() |> cfx_add_categorical("housing", c("rent", "own"))
  expect_cfx_error(cfx_set_step(b, 1), "cfx_error_invalid_argument", "housing")
  expect_cfx_error(cfx_set_actionable_bounds(b, 0, 1), "cfx_error_invalid_argument")
  expect_cfx_error(cfx_set_cost_scale(b, 0), "cfx_error_invalid_argument")
  expect_error(cfx_forbid_transition(b, NA_character_, "*"), "single string")
  cfx_free(b)
  b <- cfx_schema_builder() |> cfx_add_contiguous("months", 0, 10, integer = TRUE) |>
    cfx_forbid_transition("value", "bankrupt")
  expect_cfx_error(cfx_schema_build(b), "cfx_error_not_found", "months")
  b <- cfx_schema_builder() |> cfx_add_contiguous("months", 0, 10, integer = TRUE) |> cfx_set_step(3)
  expect_cfx_error(cfx_schema_build(b), "cfx_error_invalid_schema")
})

json_numbers <- function(json, key) {
  m <- regmatches(json, gregexpr(sprintf('"%s": -?[0-9.eE+-]+', key), json))[[1]]
  as.numeric(sub(".*: ", "", m))
}

test_that("a dataset offers its schema with weights fitted on its rows", {
  # income 0, 2, 4, 10 in [0, 10]: slots 0, .2, .4, 1, median .3, MAD .2,
  # weight 5, anchor .3; housing "own" in 3 of 4 rows: each indicator weighs
  # 1 / (1.48 sqrt(3/16)).
  csv <- tempfile(fileext = ".csv")
  on.exit(unlink(csv))
  writeLines(c("income,housing,outcome", "0,own,good", "2,own,bad", "4,rent,good", "10,own,good"), csv)
  s <- cfx_schema_from_json('{"format_version": 1, "features": [
    {"name": "income", "kind": "contiguous", "lower": 0, "upper": 10},
    {"name": "housing", "kind": "categorical", "levels": ["rent", "own"]}]}')
  d <- cfx_read_dataset(s, csv, "outcome", "good")
  expect_identical(cfx_weights_kind(cfx_schema(d)), "unit")
  f <- cfx_fitted_schema(d)
  expect_identical(cfx_weights_kind(f), "fitted")
  doc <- jsonlite::fromJSON(cfx_to_json(f), simplifyVector = FALSE)
  w_inc <- doc$features[[1]]$weights
  expect_equal(w_inc$value, 5, tolerance = 1e-12)
  expect_equal(w_inc$anchor, 0.3, tolerance = 1e-12)
  expect_equal(unlist(doc$features[[2]]$weights$states), rep(1 / (1.48 * sqrt(3 / 16)), 2),
               tolerance = 1e-12)
  expect_identical(cfx_weights_kind(cfx_schema(d)), "unit") # the dataset is unchanged
})

test_that("schema inference from a CSV with caller-given special codes", {
  csv <- tempfile(fileext = ".csv")
  on.exit(unlink(csv))
  writeLines(c("id;months;debt;region;status", "a1;12;-7;1;ok", "a2;-7;2.5;2;late",
               "a3;24;NA;1;ok", "a4;36;0.5;3;ok"), csv)
  specials <- data.frame(code = c(-7, -1), label = c("no record", "NA"), column = c("debt", "debt"))
  d <- cfx_infer_dataset(csv, "status", "ok", delimiter = ";", drop = "id", categorical = "region",
                         special_codes = specials)
  s <- cfx_schema(d)
  expect_identical(cfx_weights_kind(s), "fitted")
  expect_identical(names(s), c("months", "debt", "region"))
  doc <- jsonlite::fromJSON(cfx_to_json(s), simplifyVector = FALSE)
  expect_equal(c(doc$features[[1]]$lower, doc$features[[1]]$upper), c(-7, 36)) # -7 is a value there
  expect_equal(c(doc$features[[2]]$lower, doc$features[[2]]$upper), c(0.5, 2.5))
  expect_setequal(vapply(doc$features[[2]]$special_states, `[[`, "", "label"), c("no record", "NA"))
  expect_identical(unlist(doc$features[[3]]$levels), c("1", "2", "3"))
  expect_equal(cfx_raw_rows(d)[3, ], c(24, -1, 0))
  expect_equal(cfx_labels(d), c(1, 0, 1, 1))

  expect_cfx_error(cfx_infer_dataset(csv, "status", "ok", delimiter = ";", drop = "id",
                                     categorical = "region", special_codes = specials[1, ]),
                   "cfx_error_data_error", "debt")
  expect_cfx_error(cfx_infer_dataset(csv, "status", "ok", delimiter = ";", drop = "ident"),
                   "cfx_error_not_found")
  expect_error(cfx_infer_dataset(csv, "status", "ok", delimiter = ";;"), "one ASCII character")
  expect_error(cfx_infer_dataset(csv, "status", "ok", special_codes = list(-7)), "special_codes")
})

test_that("inference takes the caller's advice rules", {
  # Oracle: the rules given come back in the schema's JSON; a rule naming no
  # feature is refused naming it.
  csv <- tempfile(fileext = ".csv")
  writeLines(c("age,months,income,status", "30,12,100,ok", "41,30,80,late", "52,7,120,ok"), csv)
  rules <- list(actionability = list(age = list(mutable = FALSE),
                                     income = list(direction = "increase_only"),
                                     months = list(mutable = FALSE, grows_with_time = list(per_month = 1))),
                waiting = list(max_months = 12, cost_per_month = 0.05))
  d <- cfx_infer_dataset(csv, "status", "ok", rules = rules)
  doc <- jsonlite::fromJSON(cfx_to_json(cfx_schema(d)), simplifyVector = FALSE)
  act <- setNames(lapply(doc$features, `[[`, "actionability"), vapply(doc$features, `[[`, "", "name"))
  expect_false(act$age$mutable)
  expect_identical(act$income$direction, "increase_only")
  expect_equal(act$months$grows_with_time$per_month, 1)
  expect_equal(doc$waiting$max_months, 12)
  plain <- jsonlite::fromJSON(cfx_to_json(cfx_schema(cfx_infer_dataset(csv, "status", "ok"))),
                              simplifyVector = FALSE)
  expect_null(plain$waiting)
  expect_cfx_error(cfx_infer_dataset(csv, "status", "ok",
                                     rules = list(actionability = list(salary = list(mutable = FALSE)))),
                   "cfx_error_not_found", "salary")
  expect_cfx_error(cfx_infer_dataset(csv, "status", "ok", rules = '{"actionabilty": {}}'),
                   "cfx_error_format_error")
  unlink(csv)
})

test_that("HELOC inferred with its special codes matches the loader", {
  p <- need_shared_file("heloc.csv")
  d <- cfx_infer_dataset(p, "RiskPerformance", "Good",
                         special_codes = c("condition not met" = -7, "no usable trades" = -8,
                                           "no bureau record" = -9))
  known <- cfx_load_heloc(p)
  expect_identical(cfx_weights_kind(cfx_schema(d)), "fitted")
  expect_identical(names(cfx_schema(d)), names(cfx_schema(known)))
  expect_equal(cfx_encoded_dim(cfx_schema(d)), cfx_encoded_dim(cfx_schema(known)))
  expect_identical(cfx_raw_rows(d), cfx_raw_rows(known))
})
