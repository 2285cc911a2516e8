# The CatBoost and EBM importers (cfx_model_from_catboost_json_str / _file,
# cfx_model_from_ebm_json_str / _file) on the committed models of tests/data: the
# first 150 rows (the data's own) score minus the producer's margin (CatBoost
# RawFormulaVal, interpret's decision_function, written by
# benches/peers/catboost_ebm_peers.py; the models predict default, read with
# favourable_class 0); a CTR model and a bad EBM are format errors.

cb_file <- function(format, name) file.path(cfx_repo(), "tests", "data", format, name)

test_that("CatBoost and EBM models score as their producers", {
  s <- cfx_read_schema(cb_file("catboost", "schema.json"))
  opts <- list(favourable_class = 0, special_as_missing = list("debt"),
               unseen_levels = list(home = list("council")))
  check <- function(m, format, name) {
    rows <- as.matrix(utils::read.csv(cb_file(format, paste0(name, "_rows.csv"))))[1:150, ]
    want <- -utils::read.csv(cb_file(format, paste0(name, "_margins.csv")))$margin[1:150]
    got <- predict(m, rows, schema = s)$score
    expect_true(all(abs(got - want) <= 1e-9 * pmax(1, abs(want))))
  }
  a <- cfx_read_catboost(s, cb_file("catboost", "cb_onehot.json"), opts)
  b <- cfx_model_from_catboost(s, readLines(cb_file("catboost", "cb_onehot.json"), warn = FALSE), opts)
  expect_identical(cfx_to_json(a), cfx_to_json(b))
  check(a, "catboost", "cb_onehot")
  e <- cfx_read_ebm(s, cb_file("ebm", "ebm_cat.json"), opts)
  e2 <- cfx_model_from_ebm(s, readLines(cb_file("ebm", "ebm_cat.json"), warn = FALSE), opts)
  expect_identical(cfx_to_json(e), cfx_to_json(e2))
  check(e, "ebm", "ebm_cat")
  expect_equal(cfx_model_info(e)$kind, "trees")
  expect_error(cfx_read_catboost(s, cb_file("catboost", "cb_ctr.json"), opts), "one_hot_max_size",
               class = "cfx_error_format_error")
  expect_error(cfx_model_from_ebm(s, '{"version": "1.0"}', opts), class = "cfx_error_format_error")
  expect_error(cfx_read_ebm(s, cb_file("ebm", "none.json"), opts), class = "cfx_error_io_error")
})
