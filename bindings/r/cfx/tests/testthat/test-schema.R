german <- cfx_load_german()
gs <- cfx_schema(german)

test_that("the German schema has its 20 named features", {
  expect_equal(cfx_n_features(gs), 20)
  nm <- names(gs)
  expect_length(nm, 20)
  expect_identical(nm[1], "status_of_existing_checking_account")
  expect_identical(nm, names(utils::read.csv(german_csv(), nrows = 1, check.names = FALSE))[1:20])
  expect_equal(cfx_feature_index(gs, "age_in_years"), 13)
  expect_equal(cfx_feature_index(gs, c("duration_in_month", "foreign_worker")), c(2, 20))
  expect_identical(cfx_feature_name(gs, 13), "age_in_years")
  expect_error(cfx_feature_name(gs, 21), class = "cfx_error_not_found")
})

test_that("the schema as a data frame tells kinds and actionability", {
  df <- as.data.frame(gs)
  expect_equal(nrow(df), 20)
  expect_identical(df$feature, names(gs))
  expect_equal(sum(df$n_levels) + sum(df$kind == "contiguous"), cfx_encoded_dim(gs))
  expect_false(df$mutable[df$feature == "personal_status_and_sex"])
  expect_false(df$mutable[df$feature == "foreign_worker"])
  expect_identical(df$direction[df$feature == "age_in_years"], "increase_only")
  expect_equal(df$n_levels[df$feature == "status_of_existing_checking_account"], 4)
  out <- capture.output(print(gs))
  expect_match(out[1], "^A cfx schema of 20 features \\([0-9]+ encoded columns\\):$")
  expect_true(any(grepl("^  personal_status_and_sex: one of [0-9]+ levels \\(cannot change\\)$", out)))
  expect_true(any(grepl("^  age_in_years: whole number from [0-9]+ to [0-9]+ \\(can only increase\\)$", out)))
})

test_that("schema JSON round-trips through text and files", {
  json <- cfx_to_json(gs)
  s2 <- cfx_schema_from_json(json)
  expect_identical(cfx_to_json(s2), json)
  expect_identical(cfx_fingerprint(s2), cfx_fingerprint(gs))
  expect_match(cfx_fingerprint(gs), "^fnv1a64:[0-9a-f]{16}$")
  f <- tempfile(fileext = ".json")
  cfx_write_schema(gs, f)
  s3 <- cfx_read_schema(f)
  expect_identical(cfx_to_json(s3), json)
  # a changed document has another fingerprint
  doc <- jsonlite::fromJSON(json, simplifyVector = FALSE)
  doc$features[[2]]$upper <- doc$features[[2]]$upper + 1
  s4 <- cfx_schema_from_json(jsonlite::toJSON(doc, auto_unbox = TRUE, digits = NA, null = "null"))
  expect_false(identical(cfx_fingerprint(s4), cfx_fingerprint(gs)))
})

test_that("encoding matches an independent encoder and decoding inverts it", {
  df <- as.data.frame(german, labels = FALSE)[1:40, ]
  x <- cfx_encode(gs, df)
  expect_equal(dim(x), c(40, cfx_encoded_dim(gs)))
  raw <- cfx_raw_rows(german)[1:40, ]
  expect_equal(x, oracle_encode(gs, raw), tolerance = 1e-12)
  expect_equal(cfx_encode(gs, raw), x)
  back <- cfx_decode(gs, x)
  expect_equal(back, df, check.attributes = FALSE)
  expect_identical(levels(back$purpose), levels(df$purpose))
  # one applicant as a plain vector
  expect_equal(cfx_encode(gs, raw[3, ]), x[3, , drop = FALSE])
})

test_that("unknown levels and incoherent vectors are refused", {
  df <- as.data.frame(german, labels = FALSE)[1, ]
  df$purpose <- as.character(df$purpose)
  df$purpose <- "space travel"
  expect_error(cfx_encode(gs, df), "'purpose' has values that are not levels of the schema: 'space travel'")
  x <- cfx_encode(gs, as.data.frame(german, labels = FALSE)[1, ])
  first_cat <- 1:4 # status_of_existing_checking_account's one-hot block
  x[1, first_cat] <- c(1, 1, 0, 0)
  expect_cfx_error(cfx_decode(gs, x), "cfx_error_incoherent", "status_of_existing_checking_account")
  expect_cfx_error(cfx_encode(gs, matrix(c(NaN, rep(0, 19)), 1)), "cfx_error_invalid_argument")
})

test_that("changes are described in the data's own words", {
  a <- cfx_row(german, 1)
  b <- a
  b$duration_in_month <- 12
  b$savings_account_and_bonds <- factor(levels(a$savings_account_and_bonds)[1],
                                        levels = levels(a$savings_account_and_bonds))
  ch <- cfx_describe_changes(gs, a, b)
  expect_s3_class(ch, "data.frame")
  expect_identical(ch$feature, c("duration_in_month", "savings_account_and_bonds"))
  expect_identical(ch$from, c("6", as.character(a$savings_account_and_bonds)))
  expect_identical(ch$to, c("12", levels(a$savings_account_and_bonds)[1]))
  out <- capture.output(print(ch))
  expect_identical(out, c("Change duration_in_month from 6 to 12.",
                          sprintf("Change savings_account_and_bonds from '%s' to '%s'.",
                                  a$savings_account_and_bonds, ch$to[2])))
  expect_output(print(cfx_describe_changes(gs, a, a)), "^No change\\.$")
  expect_match(attr(ch, "text"), "duration_in_month: 6 \u2192 12\n", fixed = TRUE)
})

test_that("weights fitted on the data reproduce the loader's fitted schema", {
  raw <- cfx_raw_rows(german)
  refit <- cfx_fit_weights(gs, raw)
  expect_identical(cfx_n_features(refit), 20)
  expect_identical(cfx_fingerprint(refit), cfx_fingerprint(gs))
  # fitting on another sample changes the weights, not the input handle
  fp <- cfx_fingerprint(gs)
  half <- cfx_fit_weights(gs, as.data.frame(german, labels = FALSE)[1:100, ])
  expect_false(identical(cfx_fingerprint(half), fp))
  expect_identical(cfx_fingerprint(gs), fp)
  expect_cfx_error(cfx_fit_weights(gs, raw[, 1:5]), "cfx_error_dimension_mismatch")
})
