# A portfolio run's answers kept as ledger records, and COPA versions of them
# (issue 28). Oracles: each record's advised row and cost are its portfolio
# line's; the same model breaks none; COPA versions leave the rest of the
# record as it was.

test_that("a portfolio run becomes a ledger the same model keeps", {
  german <- readLines(german_csv())
  branches <- c("north", "south", "")
  book <- c(paste0("application_id,branch,", german[1]),
            sprintf("A%04d,%s,%s", 0:119, branches[(0:119) %% 3 + 1], german[2:121]))
  dir <- tempfile("cfx-ledger-portfolio-r")
  dir.create(dir)
  csv <- file.path(dir, "book.csv")
  writeLines(book, csv)
  d <- cfx_load_german()
  gs <- cfx_schema(d)
  split <- cfx_holdout_split(d)
  model <- cfx_fit_linear(split$train)
  ignore <- c("creditability", "application_id", "branch")
  answers <- file.path(dir, "book.jsonl")
  cfx_explain_portfolio(gs, model, csv, answers, ignore_columns = ignore, threads = 1)
  ledger <- file.path(dir, "ledger.jsonl")
  n <- cfx_ledger_from_portfolio(gs, model, csv, answers, ledger, ignore_columns = ignore,
                                 id_column = "application_id", group_column = "branch",
                                 issued = "2026-12-02")
  lines <- lapply(readLines(answers), jsonlite::fromJSON, simplifyVector = FALSE)
  advised <- Filter(function(x) !is.null(x$counterfactual), lines)
  records <- readLines(ledger)
  expect_equal(n, length(advised))
  expect_gte(n, 10)
  for (j in seq_along(records)) {
    rec <- jsonlite::fromJSON(records[j], simplifyVector = FALSE)
    k <- advised[[j]]$row
    expect_identical(rec$id, sprintf("A%04d", k))
    expect_identical(rec$kind, "explain")
    expect_identical(rec$issued, "2026-12-02")
    expect_identical(rec$group, if (branches[k %% 3 + 1] == "") NULL else branches[k %% 3 + 1])
    expect_equal(unlist(rec$advised), unlist(advised[[j]]$counterfactual$raw))
    expect_equal(rec$cost, advised[[j]]$counterfactual$cost)
  }
  report <- cfx_revalidate_ledger(gs, model, ledger, file.path(dir, "out.jsonl"), threads = 1)
  expect_equal(report$records, n)
  expect_equal(report$broken, 0)

  short <- file.path(dir, "short.jsonl")
  writeLines(readLines(answers)[1:119], short)
  other <- file.path(dir, "other.jsonl")
  expect_error(cfx_ledger_from_portfolio(gs, model, csv, short, other, ignore_columns = ignore),
               "explanations end", class = "cfx_error_data_error")
  expect_false(file.exists(other))
  expect_error(cfx_ledger_from_portfolio(gs, model, csv, answers, other),
               "application_id", class = "cfx_error_data_error")

  unc <- cfx_uncertainty_from_dataset(split$train, refits = 50, seed = 3)
  with <- 0
  for (line in records) {
    got <- tryCatch(cfx_ledger_add_copa_version(gs, unc, line), cfx_error_not_found = function(e) NULL)
    if (is.null(got)) next
    with <- with + 1
    g <- jsonlite::fromJSON(got, simplifyVector = FALSE)
    expect_length(g$copa_advised, length(g$advised))
    g$copa_advised <- NULL
    expect_identical(g, jsonlite::fromJSON(line, simplifyVector = FALSE))
    expect_false(is.null(cfx_revalidate(gs, model, got)$copa_kept))
  }
  expect_gte(with, length(records) %/% 2)
  other_schema <- sub('"schema":"[^"]*"', '"schema":"fnv1a64:0000000000000000"', records[1])
  expect_error(cfx_ledger_add_copa_version(gs, unc, other_schema), class = "cfx_error_invalid_argument")
})

test_that("a robust portfolio run's records carry its config's target", {
  # Oracle: the target the configuration's own JSON holds. The first 40 German
  # applicants under robust advice (sigma2 0.01, gamma 0.2): kept with the run's
  # config every robust record carries the target, kept without it none does.
  german <- readLines(german_csv())
  dir <- tempfile("cfx-ledger-robust-r")
  dir.create(dir)
  csv <- file.path(dir, "book.csv")
  writeLines(german[1:41], csv)
  d <- cfx_load_german()
  gs <- cfx_schema(d)
  split <- cfx_holdout_split(d)
  model <- cfx_fit_linear(split$train)
  cfg <- cfx_config(robust_advice = c(0.01, 0.2))
  answers <- file.path(dir, "book.jsonl")
  cfx_explain_portfolio(gs, model, csv, answers, config = cfg, ignore_columns = "creditability",
                        threads = 1)
  want <- jsonlite::fromJSON(cfx_to_json(cfg), simplifyVector = FALSE)$robust_advice
  expect_identical(want, list(sigma2 = 0.01, invalidation_target = 0.2))
  with <- file.path(dir, "with.jsonl")
  without <- file.path(dir, "without.jsonl")
  n <- cfx_ledger_from_portfolio(gs, model, csv, answers, with, ignore_columns = "creditability",
                                 config = cfg)
  expect_equal(cfx_ledger_from_portfolio(gs, model, csv, answers, without,
                                         ignore_columns = "creditability"), n)
  recs <- lapply(readLines(with), jsonlite::fromJSON, simplifyVector = FALSE)
  bare <- lapply(readLines(without), jsonlite::fromJSON, simplifyVector = FALSE)
  robust <- Filter(function(r) r$kind == "robust", recs)
  expect_gte(length(robust), 5)
  for (r in robust) expect_identical(r$robustness, want)
  for (r in Filter(function(r) r$kind != "robust", recs)) expect_null(r$robustness)
  for (r in bare) expect_null(r$robustness)
  # Apart from the target the two ledgers hold the same records.
  expect_identical(lapply(recs, function(r) { r$robustness <- NULL; r }), bare)
  # No robust advice: nothing; a box of reachable values is written (the reals are not).
  other <- file.path(dir, "other.jsonl")
  cfx_ledger_from_portfolio(gs, model, csv, answers, other, ignore_columns = "creditability",
                            config = cfx_config(seed = 1))
  expect_identical(lapply(readLines(other), jsonlite::fromJSON, simplifyVector = FALSE), bare)
  cfx_ledger_from_portfolio(gs, model, csv, answers, other, ignore_columns = "creditability",
                            config = cfx_config(robust_advice = c(0.02, 0.1),
                                                robust_box = "reachable_values"))
  got <- lapply(readLines(other), jsonlite::fromJSON, simplifyVector = FALSE)
  for (r in Filter(function(r) r$kind == "robust", got))
    expect_identical(r$robustness, list(sigma2 = 0.02, invalidation_target = 0.1,
                                        box_kind = "reachable_values"))
  expect_error(cfx_ledger_from_portfolio(gs, model, csv, answers, other,
                                         ignore_columns = "creditability", config = model),
               "cfx_config")
})
