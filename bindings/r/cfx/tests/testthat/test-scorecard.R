# The bundled German points scorecard (examples/data/german_scorecard_table.csv, optbinning 1.0.0;
# cutoff and scaling from examples/data/german_scorecard.md) imported through the binding, its
# points checked against optbinning's own scores (tests/reference/german_scorecard_scores.csv),
# and the first declined held-out applicant explained by the coherent MIP.

card_table <- function() file.path(cfx_repo(), "examples", "data", "german_scorecard_table.csv")
card_cutoff <- 487.1228762045055                     # the score at probability 0.5 of good
card_scaling <- c(28.85390081777927, card_cutoff)    # 20 points double the odds: 20 / ln 2
optbinning_scores <- function() {
  read.csv(file.path(cfx_repo(), "tests", "reference", "german_scorecard_scores.csv"))
}

german <- cfx_load_german()
gs <- cfx_schema(german)
split <- cfx_holdout_split(german)

test_that("the imported German scorecard scores the held-out applicants as optbinning does", {
  card <- cfx_import_scorecard(gs, card_table(), cutoff = card_cutoff, scaling = card_scaling)
  m <- cfx_scorecard_model(card)
  expect_identical(cfx_model_info(m)$kind, "scorecard")
  expect_equal(cfx_model_info(m)$input_dim, cfx_encoded_dim(gs))
  rep <- cfx_scorecard_report(card)
  expect_identical(rep$format, "optbinning")
  expect_equal(rep$characteristics, 20)
  expect_match(cfx_scorecard_report(card, json = TRUE), "\"unused_features\"")
  expect_match(capture.output(print(card)), "^A cfx scorecard imported from optbinning's table: 20 characteristics")
  expect_match(capture.output(print(m)), "^A cfx points scorecard over 61 encoded columns")
  # held-out rows are the data rows i with i mod 10 >= 7
  held_out <- which((seq_len(1000) - 1) %% 10 >= 7)
  ref <- optbinning_scores()
  expected <- ref$score[match(held_out - 1, ref$row)]
  p <- predict(m, split$test)
  expect_equal(p$score, expected, tolerance = 1e-12)
  expect_identical(p$accepted, expected >= card_cutoff)
  expect_equal(sum(!p$accepted), 58)                  # german_scorecard.md: 58 of 300 declined
  expect_equal(p$probability, plogis((expected - card_cutoff) / card_scaling[1]), tolerance = 1e-12)
  # the same table as text is the same model; without a scaling no probability
  text <- readLines(card_table(), encoding = "UTF-8")
  m2 <- cfx_scorecard_model(cfx_scorecard_from_csv(gs, text, cutoff = card_cutoff, scaling = card_scaling))
  expect_identical(cfx_fingerprint(m2), cfx_fingerprint(m))
  m3 <- cfx_scorecard_model(cfx_import_scorecard(gs, card_table(), cutoff = card_cutoff))
  p3 <- predict(m3, split$test)
  expect_equal(p3$score, p$score)
  expect_true(all(is.nan(p3$probability)))
  expect_identical(p3$accepted, p$accepted)
  expect_identical(capture.output(print(p3[3, ])),
                   sprintf("applicant 3: declined (%s points)", formatC(expected[3], format = "f", digits = 2)))
  # the model outlives its import; the import is freed exactly once (the imports
  # of m2 and m3 are garbage: collect them first, so no finalizer runs in between)
  invisible(gc())
  before <- cfx:::.cfx_free_counts()[["scorecard_import"]]
  expect_true(cfx_free(card))
  expect_false(cfx_free(card))
  expect_equal(cfx:::.cfx_free_counts()[["scorecard_import"]], before + 1)
  expect_equal(predict(m, split$test)$score, expected, tolerance = 1e-12)
  expect_error(cfx_scorecard_report(card), "freed")
})

test_that("a characteristic absent from the table is refused unless declared unused", {
  lines <- readLines(card_table())
  without <- lines[!startsWith(lines, "telephone,")]
  expect_cfx_error(cfx_scorecard_from_csv(gs, without, cutoff = 487), "cfx_error_format_error",
                   "'telephone'.*unused_features")
  expect_cfx_error(cfx_scorecard_from_csv(gs, without, cutoff = 487, unused_features = "phone"),
                   "cfx_error_format_error", "'phone'")
  card <- cfx_scorecard_from_csv(gs, without, cutoff = 487, scaling = c(28.85390081777927, 487),
                                 unused_features = "telephone")
  expect_identical(cfx_scorecard_report(card)$unused_features, "telephone")
  full <- cfx_scorecard_model(cfx_scorecard_from_csv(gs, lines, cutoff = 487))
  m <- cfx_scorecard_model(card)
  a <- cfx_row(split$test, 1)
  p <- predict(m, a, schema = gs)
  expect_false(is.nan(p$probability))
  tab <- read.csv(card_table())
  phone <- tab$Points[tab$Variable == "telephone"]
  expect_true(min(abs(predict(full, a, schema = gs)$score - p$score - phone)) < 1e-9)
})

test_that("bad tables and arguments are clear errors", {
  bad <- c("Variable,Bin id,Bin,Points,Colour", "duration_in_month,0,\"(-inf, inf)\",1.0,red")
  expect_cfx_error(cfx_scorecard_from_csv(gs, bad, cutoff = 0), "cfx_error_format_error", "Colour")
  expect_cfx_error(cfx_import_scorecard(gs, file.path(tempdir(), "no-such-table.csv"), cutoff = 0),
                   "cfx_error_io_error")
  expect_error(cfx_import_scorecard(gs, card_table(), cutoff = 0, format = "sas"), "should be one of")
  expect_error(cfx_import_scorecard(gs, card_table(), cutoff = 0, scaling = 1), "c\\(factor, offset\\)")
})

test_that("the first declined held-out applicant gets an accepted coherent counterfactual", {
  m <- cfx_scorecard_model(cfx_import_scorecard(gs, card_table(), cutoff = card_cutoff,
                                                scaling = card_scaling))
  a <- cfx_row(split$test, 3)                         # held-out index 2 (1-based 3) = data row 9
  before <- predict(m, a, schema = gs)
  ref <- optbinning_scores()
  expect_equal(before$score, ref$score[ref$row == 9], tolerance = 1e-12)
  expect_false(before$accepted)
  r <- cfx_explain(m, a, gs)
  expect_identical(cfx_outcome(r)$outcome, "optimal")
  df <- as.data.frame(r)
  expect_equal(nrow(df), 1)
  cf <- cfx_counterfactual(r, 1)
  after <- predict(m, cf, schema = gs)
  expect_true(after$accepted)
  expect_gte(after$score, card_cutoff)
  expect_equal(df$score, after$score, tolerance = 1e-9)
  expect_gt(df$cost, 0)
  expect_lt(df$cost, 10)
  changed <- names(gs)[vapply(names(gs), function(f) !identical(cf[[f]], a[[f]]), logical(1))]
  expect_true(length(changed) >= 1 && length(changed) <= 2, info = paste(changed, collapse = ", "))
  for (f in c("personal_status_and_sex", "foreign_worker")) expect_identical(cf[[f]], a[[f]])
  expect_gte(cf$age_in_years, a$age_in_years)
  expect_match(cfx_describe(r), "optimal \\(cost [0-9.]+, ")
})

test_that("the German scorecard shipped with the package loads with its documented cutoff", {
  # path = NULL: the copy the package installed beside its libcfx (or CFX_DATA_DIR)
  imp <- cfx_load_german_scorecard(gs)
  m <- cfx_scorecard_model(imp)
  from_table <- cfx_scorecard_model(cfx_import_scorecard(gs, card_table(), cutoff = card_cutoff,
                                                         scaling = card_scaling))
  ref <- optbinning_scores()
  p <- predict(m, german)
  expect_equal(p$score, ref$score, tolerance = 1e-12)
  expect_identical(p$accepted, ref$score >= card_cutoff)
  expect_equal(p$probability, predict(from_table, german)$probability, tolerance = 1e-12)
  expect_equal(cfx_scorecard_report(imp)$characteristics, 20)
  # an explicit path, and a missing file
  m2 <- cfx_scorecard_model(cfx_load_german_scorecard(gs, card_table()))
  expect_identical(cfx_fingerprint(m2), cfx_fingerprint(m))
  expect_cfx_error(cfx_load_german_scorecard(gs, file.path(tempdir(), "no-such-table.csv")),
                   "cfx_error_io_error")
})
