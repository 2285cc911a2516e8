# The advice ledger and its re-validation against a new model (issue 28).
# Oracles: the same model breaks nothing; a model whose intercept is lowered
# by 0.4 breaks promises issued near the old boundary; the streamed report's
# counts equal the per-record results.

german <- cfx_load_german()
gs <- cfx_schema(german)
split <- cfx_holdout_split(german)
model <- cfx_fit_linear(split$train)
doc <- jsonlite::fromJSON(cfx_to_json(model), simplifyVector = FALSE)
doc$bias <- doc$bias - 0.4
shifted <- cfx_model_from_json(gs, jsonlite::toJSON(doc, auto_unbox = TRUE, digits = NA))
pred <- predict(model, split$test)
declined <- which(!pred$accepted)[1:6]
robust_cfg <- cfx_config(robust_advice = c(0.01, 0.2))
lines <- character()
for (k in seq_along(declined)) {
  a <- cfx_row(split$test, declined[k])
  r <- cfx_explain(model, a, gs)
  rr <- if (k %% 3 == 1) cfx_explain(model, a, gs, robust_cfg) else NULL
  lines[k] <- cfx_ledger_record(r, paste0("app-", k), issued = "2026-12-02",
                                group = if (k %% 2 == 0) "even" else "odd", robust = rr)
}
dir <- tempfile("cfx-revalidate-r")
dir.create(dir)
ledger <- file.path(dir, "ledger.jsonl")
writeLines(lines, ledger)

test_that("the report names the models with the caller's labels", {
  # Oracle: each model's own fingerprint; the labels set.
  cfg <- cfx_config(model_labels = c("logistic 2025", "logistic 2026"))
  rep <- cfx_revalidate_ledger(gs, shifted, ledger, file.path(dir, "labelled.jsonl"), config = cfg)
  expect_identical(rep$new_model$fingerprint, cfx_fingerprint(shifted))
  expect_identical(rep$new_model$label, "logistic 2026")
  expect_identical(rep$old_models[[1]]$fingerprint, cfx_fingerprint(model))
  expect_identical(rep$old_models[[1]]$label, "logistic 2025")
  rep <- cfx_revalidate_ledger(gs, shifted, ledger, file.path(dir, "labelled2.jsonl"),
                               config = cfx_config(model_labels = c(NA, "challenger")))
  expect_identical(rep$new_model$label, "challenger")
  expect_null(rep$old_models[[1]]$label)
  expect_cfx_error(cfx_config(model_labels = c("", NA)), "cfx_error_invalid_argument", "old_label")
})

test_that("a ledger record carries the advice and the fingerprints", {
  rec <- jsonlite::fromJSON(lines[1], simplifyVector = FALSE)
  expect_identical(rec$format, "cfx-ledger")
  expect_identical(rec$model, cfx_fingerprint(model))
  expect_identical(rec$schema, cfx_fingerprint(gs))
  expect_false(is.null(rec$robust_advised))
  expect_null(jsonlite::fromJSON(lines[2], simplifyVector = FALSE)$robust_advised)
})

for (which in c("same", "shifted")) {
  test_that(paste("the report counts what each record says:", which, "model"), {
    nm <- if (which == "same") model else shifted
    per <- lapply(lines, function(l) cfx_revalidate(gs, nm, l))
    status <- vapply(per, function(v) v$status, "")
    broken <- sum(status == "broken")
    for (v in per) {
      if (v$status == "broken") {
        expect_equal(v$extra_cost, v$repair$cost)
        expect_lte(v$margin, 0)
      } else {
        expect_gt(v$margin, 0)
      }
    }
    out <- file.path(dir, paste0(which, ".jsonl"))
    rep <- cfx_revalidate_ledger(gs, nm, ledger, out, threads = 2, chunk_rows = 4)
    expect_equal(rep$records, length(lines))
    expect_equal(rep$broken, broken)
    expect_equal(rep$kept, length(lines) - broken)
    expect_equal(rep$errors, 0)
    expect_equal(rep$robust_records, 2)
    robust_broken <- sum(vapply(per, function(v) isFALSE(v$robust_kept), TRUE))
    expect_equal(rep$robust_broken, robust_broken)
    # The same run with the HTML page: the same report; the page has the record
    # count and four plots (the ledger holds robust advice).
    page <- file.path(dir, paste0(which, ".html"))
    again <- cfx_revalidate_ledger(gs, nm, ledger, out, threads = 2, chunk_rows = 4,
                                   html_path = page, title = "Refit <B>")
    expect_identical(again, rep)
    html <- paste(readLines(page, encoding = "UTF-8", warn = FALSE), collapse = "\n")
    expect_true(grepl("<h1>Refit &lt;B&gt;</h1>", html, fixed = TRUE))
    expect_true(grepl(paste0("<tr><th>promises re-validated</th><td>", length(lines), "</td></tr>"),
                      html, fixed = TRUE))
    expect_true(grepl(paste0("<tr><th>broken</th><td>", broken, " ("), html, fixed = TRUE))
    expect_equal(lengths(regmatches(html, gregexpr("<svg", html, fixed = TRUE))), 4)
    streamed <- readLines(out)
    expect_length(streamed, length(lines))
    expect_equal(sum(grepl("\"status\":\"broken\"", streamed, fixed = TRUE)), broken)
    if (which == "same") expect_equal(broken, 0) else expect_gt(broken, 0)
  })
}

test_that("bad input is a classed error with a message", {
  expect_error(cfx_revalidate(gs, model, "{not json"), class = "cfx_error_format_error")
  other <- sub("\"schema\":\"[^\"]*\"", "\"schema\":\"fnv1a64:0000000000000000\"", lines[1])
  expect_error(cfx_revalidate(gs, model, other), "schema", class = "cfx_error_invalid_argument")
  bad <- file.path(dir, "other.jsonl")
  writeLines(other, bad)
  refused <- file.path(dir, "refused.jsonl")
  expect_error(cfx_revalidate_ledger(gs, model, bad, refused), class = "cfx_error_invalid_argument")
  expect_false(file.exists(refused))
  expect_error(cfx_revalidate_ledger(gs, model, file.path(dir, "missing.jsonl"), refused),
               class = "cfx_error_io_error")
  never <- file.path(dir, "never.html")
  expect_error(cfx_revalidate_ledger(gs, model, bad, refused, html_path = never),
               class = "cfx_error_invalid_argument")
  expect_false(file.exists(never))
})

test_that("a diverse set is recorded option by option and the report is a page", {
  a <- cfx_row(split$test, declined[1])
  r <- cfx_explain(model, a, gs, diverse = TRUE)
  set <- cfx:::.coherent(r)
  n <- nrow(set$counterfactuals)
  expect_gt(n, 1)
  recs <- character()
  for (k in seq_len(n)) {
    recs[k] <- cfx_ledger_record(r, "app-1", group = "north", index = k)
    doc <- jsonlite::fromJSON(recs[k], simplifyVector = FALSE)
    # Oracle: the set's own rows (the core's LedgerRecord::from_diverse).
    expect_identical(doc$id, paste0("app-1/", k - 1))
    expect_identical(doc$kind, if (k == 1) "explain" else "diverse")
    expect_identical(doc$group, "north")
    expect_identical(as.numeric(unlist(doc$advised)), as.numeric(set$counterfactuals[k, ]))
    expect_identical(doc$cost, set$cost[k])
  }
  expect_identical(recs[1], cfx_ledger_record(r, "app-1/0", group = "north"))
  expect_error(cfx_ledger_record(r, "app-1", index = n + 1), paste0("has ", n),
               class = "cfx_error_not_found")
  expect_error(cfx_ledger_record(r, "app-1", index = 0), "index")
  diverse <- file.path(dir, "diverse.jsonl")
  writeLines(recs, diverse)
  page <- file.path(dir, "diverse.html")
  rep <- cfx_revalidate_ledger(gs, model, diverse, file.path(dir, "diverse-out.jsonl"),
                               html_path = page)
  expect_equal(rep$records, n)
  expect_equal(rep$broken, 0)
  html <- paste(readLines(page, encoding = "UTF-8", warn = FALSE), collapse = "\n")
  # Three plots: no robust advice in this ledger.
  expect_equal(lengths(regmatches(html, gregexpr("<svg", html, fixed = TRUE))), 3)
  expect_true(grepl(paste0("<tr><th>promises re-validated</th><td>", n, "</td></tr>"),
                    html, fixed = TRUE))
  # A title that is not one string: an error naming it, before anything is
  # streamed or written (R itself re-encodes any string to UTF-8 before C).
  expect_error(cfx_revalidate_ledger(gs, model, diverse, file.path(dir, "d2.jsonl"),
                                     html_path = file.path(dir, "x.html"), title = 42),
               "title")
  expect_false(file.exists(file.path(dir, "d2.jsonl")))
  expect_false(file.exists(file.path(dir, "x.html")))
  # The page as text is the page written.
  again <- cfx_revalidate_ledger(gs, model, diverse, file.path(dir, "diverse-out3.jsonl"), html = TRUE)
  expect_equal(sub("\n$", "", again$html), html)
  expect_equal(again$records, n)
  # The page never goes over the ledger it was made of.
  before <- readBin(diverse, "raw", file.size(diverse))
  err <- expect_cfx_error(cfx_revalidate_ledger(gs, model, diverse, file.path(dir, "d3.jsonl"),
                                                html_path = diverse),
                          "cfx_error_invalid_argument")
  expect_match(conditionMessage(err), diverse, fixed = TRUE)
  expect_identical(readBin(diverse, "raw", file.size(diverse)), before)
})

test_that("waiting advice is recorded and kept by its model", {
  preset <- cfx_advice_preset(gs, "german", 0.05)
  recorded <- 0
  for (k in 1:3) {
    a <- cfx_row(split$test, declined[k])
    w <- cfx_explain_with_waiting(model, a, preset)
    if (cfx_waiting(w)$outcome != "found") {
      expect_error(cfx_ledger_record(w, "w"), class = "cfx_error_not_found")
      next
    }
    rec <- cfx_ledger_record(w, "w", issued = "2026-12-02")
    doc <- jsonlite::fromJSON(rec, simplifyVector = FALSE)
    expect_identical(doc$kind, "waiting")
    expect_identical(doc$schema, cfx_fingerprint(preset))
    expect_identical(cfx_revalidate(preset, model, rec)$status, "kept")
    recorded <- recorded + 1
  }
  expect_gt(recorded, 0)
})
