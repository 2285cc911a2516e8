# Adverse-action notices: one declined German applicant under the logistic model.

test_that("a declined German applicant's notice: reasons, linear oracle and HTML", {
  german <- cfx_load_german(german_csv())
  s <- cfx_schema(german)
  m <- cfx_fit_linear(german)
  p <- predict(m, german)
  a <- cfx_row(german, which(!p$accepted)[1])
  table <- file.path(cfx_repo(), "examples", "data", "reasons", "german_reasons.csv")
  n <- cfx_notice(m, a, s, german, list(reason_table_path = table))
  doc <- jsonlite::fromJSON(cfx_to_json(n), simplifyVector = FALSE)
  expect_identical(doc$kind, "notice")
  rs <- doc$result$reasons
  expect_identical(rs$method, "linear_exact")
  k <- length(rs$reasons)
  expect_true(k >= 1 && k <= 4)
  # Oracle: against all applicants, the base value of a linear model is its
  # score of the average encoded row; the contributions add up to score - base.
  enc <- cfx_encode(s, cfx_raw_rows(german))
  pr <- predict(m, matrix(colMeans(enc), nrow = 1L))
  expect_equal(rs$base_value, pr$score, tolerance = 1e-9)
  expect_equal(rs$score, predict(m, a, schema = s)$score, tolerance = 1e-12)
  contrib <- vapply(rs$contributions, function(c) c$contribution, 0)
  names(contrib) <- vapply(rs$contributions, function(c) c$feature, "")
  expect_equal(sum(contrib), rs$score - rs$base_value, tolerance = 1e-9)
  worst <- names(sort(contrib[contrib < 0]))[seq_len(k)]
  expect_identical(vapply(rs$reasons, function(r) r$feature, ""), worst)
  html <- cfx_notice_html(n)
  expect_false(grepl("<script", html, ignore.case = TRUE))
  for (r in rs$reasons) {
    expect_true(nzchar(r$statement))
    expect_true(grepl(r$statement, html, fixed = TRUE))
  }
  out <- tempfile(fileext = ".html")
  cfx_notice_html(n, out)
  expect_identical(readChar(out, file.size(out), useBytes = TRUE), html)
  expect_error(cfx_notice(m, cfx_row(german, which(p$accepted)[1]), s, german),
               class = "cfx_error_invalid_argument")
  expect_error(cfx_notice(m, a, s, german, list(max_reason = 3)), class = "cfx_error_format_error")
})

test_that("a book of notices: one line per declined applicant, the same notices, the ledger names them", {
  german <- cfx_load_german(german_csv())
  s <- cfx_schema(german)
  m <- cfx_fit_linear(german)
  dir <- tempfile("cfx-notice-book")
  dir.create(dir)
  on.exit(unlink(dir, recursive = TRUE))
  input <- file.path(dir, "book.csv")
  writeLines(readLines(german_csv())[1:41], input)
  output <- file.path(dir, "notices.jsonl")
  ledger <- file.path(dir, "ledger.jsonl")
  written <- cfx_notice_book(m, input, output, s, german, ledger,
                             list(ignore_columns = I("creditability"), necessity = FALSE))
  lines <- readLines(output)
  expect_equal(written, length(lines))
  # Oracle: the model's own decision, row by row.
  declined <- which(!predict(m, german)$accepted[1:40]) - 1L
  expect_equal(length(lines), length(declined))
  ledger_text <- paste(readLines(ledger), collapse = "\n")
  for (k in seq_along(lines)) {
    l <- jsonlite::fromJSON(lines[k], simplifyVector = FALSE)
    expect_equal(l$row, declined[k])
    one <- cfx_notice(m, cfx_row(german, declined[k] + 1L), s, german, list(necessity = FALSE))
    id <- jsonlite::fromJSON(cfx_to_json(one), simplifyVector = FALSE)$result$id
    expect_identical(l$notice$id, id)
    expect_true(grepl(sprintf('"notice":"%s"', id), ledger_text, fixed = TRUE))
  }
  expect_error(cfx_notice_book(m, input, input, s, german), class = "cfx_error_invalid_argument")
})
