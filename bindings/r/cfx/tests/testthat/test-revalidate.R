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
