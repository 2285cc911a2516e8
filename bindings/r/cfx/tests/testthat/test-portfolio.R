# cfx_explain_portfolio and the portfolio summary. Oracles: the output file's
# own lines counted here, the full run's lines for a cancelled run, and the two
# solvers on one applicant.

german <- cfx_load_german()
gs <- cfx_schema(german)
split <- cfx_holdout_split(german)
model <- cfx_fit_linear(split$train)

# The German file nine times over: 9,000 applicants, in chunks of 4,096 rows at most.
dir <- tempfile("cfx-portfolio-r")
dir.create(dir)
lines <- readLines(german_csv(), warn = FALSE)
body <- lines[-1][nzchar(trimws(lines[-1]))]
book <- file.path(dir, "book.csv")
writeLines(c(lines[1], rep(body, 9)), book)
full <- file.path(dir, "full.jsonl")

test_that("the portfolio call reports progress, writes a line per applicant and cancels", {
  expect_length(body, 1000)
  seen <- numeric()
  k <- cfx_explain_portfolio(gs, model, book, full, ignore_columns = "creditability", threads = 2,
                             progress = function(rows) { seen <<- c(seen, rows); TRUE })
  # After each chunk: at most 4,096 rows, fewer toward the end on two threads.
  expect_gt(length(seen), 3)
  steps <- diff(c(0, seen))
  expect_true(all(steps > 0 & steps <= 4096))
  expect_equal(seen[length(seen)], 9000)
  out <- readLines(full)
  expect_length(out, 9000)
  declined <- sum(grepl("\"decision\":\"declined\"", out, fixed = TRUE))
  accepted <- sum(grepl("\"decision\":\"accepted\"", out, fixed = TRUE))
  none <- sum(grepl("\"counterfactual\":null", out, fixed = TRUE))
  expect_equal(k, c(rows = 9000, accepted = accepted, declined = declined,
                    with_recourse = declined - none, errors = 0))
  expect_gt(declined, 0)

  cut <- file.path(dir, "cut.jsonl")
  first <- numeric()
  err <- expect_cfx_error(cfx_explain_portfolio(gs, model, book, cut, ignore_columns = "creditability",
                                                threads = 2,
                                                progress = function(rows) { first <<- c(first, rows); FALSE }),
                          "cfx_error_cancelled")
  expect_length(first, 1)
  expect_true(first > 0 && first < 9000)
  expect_match(conditionMessage(err), paste0("after ", first, " rows"), fixed = TRUE)
  # The target is untouched; the rows done (as many as reported) are kept in its partial file.
  expect_false(file.exists(cut))
  expect_identical(readLines(paste0(cut, ".cfx-partial")), out[seq_len(first)])
  # Resumed on one thread: the full run's bytes and counts, the partial file gone.
  again <- cfx_explain_portfolio(gs, model, book, cut, ignore_columns = "creditability", threads = 1,
                                 config = cfx_config(resume = TRUE))
  expect_equal(again, k)
  expect_identical(readBin(cut, "raw", file.size(cut)), readBin(full, "raw", file.size(full)))
  expect_false(file.exists(paste0(cut, ".cfx-partial")))
  unlink(cut)
  expect_error(cfx_explain_portfolio(gs, model, book, cut, ignore_columns = "creditability",
                                     progress = function(rows) stop("boom")),
               "portfolio run stopped because the progress function failed: .*boom")
  err <- expect_cfx_error(cfx_explain_portfolio(gs, model, book, cut), "cfx_error_data_error")
  expect_match(conditionMessage(err), "'creditability'")
})

test_that("the summary adds up to the output's lines, overall and by group", {
  out <- readLines(full)
  declined <- sum(grepl("\"decision\":\"declined\"", out, fixed = TRUE))
  none <- sum(grepl("\"counterfactual\":null", out, fixed = TRUE))
  s <- cfx_portfolio_summary(gs, full, input = book, group_column = "personal_status_and_sex")
  df <- as.data.frame(s)
  expect_equal(df$group[1], "all")
  expect_equal(df$rows[1], 9000)
  expect_equal(df$declined[1], declined)
  expect_equal(df$with_recourse[1], declined - none)
  expect_equal(df$share_with_recourse[1], (declined - none) / declined)
  expect_gte(nrow(df), 4)
  expect_equal(sum(df$rows[-1]), 9000)
  expect_equal(sum(df$declined[-1]), declined)
  expect_equal(df$cost_n[1], declined - none)
  expect_equal(df$median_cost, df$cost_median)
  expect_true(all(df$cost_min <= df$cost_median & df$cost_median <= df$cost_max, na.rm = TRUE))
  expect_match(cfx_portfolio_table(s), "by personal_status_and_sex:")
  expect_equal(jsonlite::fromJSON(cfx_to_json(s))$group_column, "personal_status_and_sex")
  svg <- file.path(dir, "chart.svg")
  cfx_portfolio_svg(s, svg, "German credit")
  expect_match(readLines(svg, warn = FALSE)[1], "^<svg")
  cfx_free(s)

  bands <- as.data.frame(cfx_portfolio_summary(gs, full, input = book, group_column = "age_in_years",
                                               edges = c(25, 35, 50)))
  expect_equal(bands$group, c("all", "< 25", "[25, 35)", "[35, 50)", "≥ 50"))
  expect_cfx_error(cfx_portfolio_summary(gs, full, input = book, group_column = "age_in_years",
                                         edges = c(50, 25)), "cfx_error_invalid_argument")
  # Without a group column the applicants' file is not needed.
  expect_equal(nrow(as.data.frame(cfx_portfolio_summary(gs, full))), 1)
})

test_that("the solver can be chosen and the result names the one that proved it", {
  pred <- predict(model, split$test)
  a <- cfx_row(split$test, which(!pred$accepted)[1])
  sep <- cfx_explain(model, a, gs)
  mip <- cfx_explain(model, a, gs, config = cfx_config(solver = "mip"))
  expect_equal(cfx_proved_by(sep), "separable")
  expect_equal(cfx_proved_by(mip), "highs")
  x <- as.data.frame(sep)$cost[1]
  y <- as.data.frame(mip)$cost[1]
  expect_lte(abs(x - y), 1e-9 * max(abs(x), abs(y)))
  expect_cfx_error(cfx_config(solver = 7), "cfx_error_invalid_argument")
  expect_error(cfx_config(solver = "fast"), "'solver' must be one of")
})
