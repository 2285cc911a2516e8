skip_if_not(isTRUE(cfx_families()[["coherent_batch"]]), "cfx.h has no cfx_coherent_explain_batch")

# The applicants of examples/c/coherent_batch.c: declined, already accepted, declined.
toy_schema <- function() cfx_read_schema(file.path(cfx_repo(), "examples", "c", "data", "applicant_schema.json"))
toy_rows <- rbind(c(30000, -7, 1, 30), c(95000, -7, 0, 30), c(10000, 12, 2, 45))

test_that("every applicant equals the one-applicant call (coherent_batch.expected)", {
  s <- toy_schema()
  m <- cfx_read_model(s, file.path(cfx_repo(), "examples", "c", "data", "applicant_model.json"))
  for (threads in c(1, 2)) {
    b <- cfx_explain_batch(m, toy_rows, s, cfx_config(threads = threads))
    expect_s3_class(b, "cfx_coherent_batch")
    expect_identical(length(b), 3L)
    st <- cfx_batch_status(b)
    expect_identical(st$status, c("CFX_STATUS_OK", "CFX_STATUS_INVALID_ARGUMENT", "CFX_STATUS_OK"))
    expect_identical(st$error[c(1, 3)], c("", ""))
    expect_match(st$error[2], "already accepted")
    expect_cfx_error(cfx_batch_result(b, 2), "cfx_error_invalid_argument")
    expect_cfx_error(cfx_batch_result(b, 4), "cfx_error_not_found")
    for (i in c(1, 3)) {
      r <- cfx_batch_result(b, i)
      one <- cfx_explain(m, toy_rows[i, ], s)
      expect_identical(as.data.frame(r)[, 1:5], as.data.frame(one)[, 1:5])
      expect_identical(cfx_to_json(r), cfx_to_json(one))
    }
    r1 <- as.data.frame(cfx_batch_result(b, 1))
    expect_equal(r1$income, 58334)
    expect_equal(round(r1$cost, 4), 0.2833)
    expect_equal(round(as.data.frame(cfx_batch_result(b, 3))$cost, 4), 0.5188)
    js <- cfx_to_json(b)
    expect_identical(jsonlite::fromJSON(js)$kind, "coherent_batch")
    expect_output(print(b), "3 applicants, 2 explained")
  }
})

test_that("results outlive the batch, bad input is refused, handles are freed once", {
  s <- toy_schema()
  m <- cfx_read_model(s, file.path(cfx_repo(), "examples", "c", "data", "applicant_model.json"))
  invisible(gc())
  before <- cfx:::.cfx_free_counts()
  b <- cfx_explain_batch(m, toy_rows, s)
  r <- cfx_batch_result(b, 1)
  expect_true(cfx_free(b))
  expect_false(cfx_free(b))
  expect_error(length(b), "has been freed")
  expect_output(print(b), "freed")
  expect_equal(nrow(as.data.frame(r)), 1)
  expect_equal(cfx:::.cfx_free_counts()[["coherent_batch"]], before[["coherent_batch"]] + 1)
  empty <- cfx_explain_batch(m, toy_rows[0, , drop = FALSE], s)
  expect_identical(length(empty), 0L)
  bad <- toy_rows
  bad[2, 1] <- NaN
  expect_cfx_error(cfx_explain_batch(m, bad, s), "cfx_error_invalid_argument")
  expect_error(cfx_explain_batch(m, toy_rows[, 1:2], s))
})
