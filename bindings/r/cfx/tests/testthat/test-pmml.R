# The PMML importer (cfx_model_from_pmml_str / _file) on the committed SAS-style
# scorecard of tests/data/pmml: every row scores jpmml-evaluator's 'Final Score'
# (scorecard_sas_scores.csv, written by benches/peers/pmml_peers.py), from a file
# and from text; an undeclared cutoff and hostile XML are format errors.

pmml_file <- function(name) file.path(cfx_repo(), "tests", "data", "pmml", name)

test_that("a PMML scorecard scores every row as jpmml-evaluator", {
  s <- cfx_read_schema(pmml_file("schema.json"))
  opts <- list(accept = "at_or_above", cutoff = 560)
  m <- cfx_read_pmml(s, pmml_file("scorecard_sas.pmml"), opts)
  m2 <- cfx_model_from_pmml(s, readLines(pmml_file("scorecard_sas.pmml"), warn = FALSE),
                            '{"accept": "at_or_above", "cutoff": 560}')
  rows <- as.matrix(utils::read.csv(pmml_file("rows.csv")))
  want <- utils::read.csv(pmml_file("scorecard_sas_scores.csv"))$score
  p <- predict(m, rows, schema = s)
  expect_identical(p$score, want)
  expect_identical(p$accepted, want >= 560)
  expect_identical(predict(m2, rows, schema = s)$score, want)
  expect_equal(cfx_model_info(m)$kind, "scorecard")
  expect_error(cfx_read_pmml(s, pmml_file("scorecard_sas.pmml")), "at_or_above",
               class = "cfx_error_format_error")
  expect_error(cfx_model_from_pmml(s, "<!DOCTYPE x><PMML/>", opts), "DOCTYPE",
               class = "cfx_error_format_error")
  expect_error(cfx_read_pmml(s, pmml_file("no_such.pmml"), opts), class = "cfx_error_io_error")
})
