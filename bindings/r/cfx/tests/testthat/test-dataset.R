german <- cfx_load_german()

test_that("the bundled German data has 1000 applicants, 700 of them good", {
  expect_equal(cfx_n_rows(german), 1000)
  expect_identical(dim(german), c(1000L, 20L))
  expect_equal(sum(cfx_labels(german)), 700)
  expect_output(print(german),
                "^A cfx dataset of 1000 applicants, 20 features \\([0-9]+ encoded columns\\); 700 labelled favourable \\(70\\.0%\\)\\.$")
})

test_that("the data frame equals the CSV read independently", {
  csv <- utils::read.csv(german_csv(), check.names = FALSE, stringsAsFactors = FALSE)
  df <- as.data.frame(german)
  expect_identical(names(df), c(names(csv)[1:20], "label"))
  for (j in 1:20) {
    if (is.factor(df[[j]])) {
      expect_identical(as.character(df[[j]]), csv[[j]], info = names(csv)[j])
    } else {
      expect_equal(df[[j]], as.numeric(csv[[j]]), info = names(csv)[j])
    }
  }
  expect_identical(df$label, as.integer(csv$creditability == "good"))
  expect_equal(cfx_label(german, 2), 0)
  expect_equal(cfx_row(german, 2), df[2, 1:20], check.attributes = FALSE)
  expect_cfx_error(cfx_row(german, 1001), "cfx_error_not_found")
  expect_cfx_error(cfx_label(german, 1001), "cfx_error_not_found")
})

test_that("the hold-out split keeps rows with i mod 10 < 7 for training", {
  sp <- cfx_holdout_split(german)
  expect_identical(names(sp), c("train", "test"))
  expect_equal(cfx_n_rows(sp$train), 700)
  expect_equal(cfx_n_rows(sp$test), 300)
  raw <- cfx_raw_rows(german)
  i <- 0:999
  expect_equal(cfx_raw_rows(sp$train), raw[i %% 10 < 7, ], check.attributes = FALSE)
  expect_equal(cfx_raw_rows(sp$test), raw[i %% 10 >= 7, ], check.attributes = FALSE)
  expect_equal(cfx_labels(sp$test), cfx_labels(german)[i %% 10 >= 7])
})

test_that("a CSV is read against a schema", {
  csv <- utils::read.csv(german_csv(), check.names = FALSE, stringsAsFactors = FALSE)
  f <- tempfile(fileext = ".csv")
  utils::write.csv(csv[1:25, ], f, row.names = FALSE)
  s <- cfx_schema(german)
  d <- cfx_read_dataset(s, f, target = "creditability", favourable = "good")
  expect_equal(cfx_n_rows(d), 25)
  expect_equal(cfx_raw_rows(d), cfx_raw_rows(german)[1:25, ])
  expect_equal(cfx_labels(d), cfx_labels(german)[1:25])
  bad <- csv[1:3, ]
  bad$purpose[2] <- "space travel"
  utils::write.csv(bad, f, row.names = FALSE)
  expect_cfx_error(cfx_read_dataset(s, f, "creditability", "good"), "cfx_error_data_error", "purpose")
})

test_that("a semicolon-delimited file reads with and without a header", {
  s <- cfx_schema_from_json('{"format_version": 1, "features": [
    {"name": "amount", "kind": "contiguous", "lower": 0, "upper": 10},
    {"name": "housing", "kind": "categorical", "levels": ["own", "rent"]}]}')
  f <- tempfile(fileext = ".csv")
  g <- tempfile(fileext = ".csv")
  on.exit(unlink(c(f, g)))
  writeLines(c("risk;housing;amount", "good;own;2.5", "bad;rent;7"), f)
  writeLines(c("2.5;own;good", "7;rent;bad"), g)
  a <- cfx_read_dataset(s, f, "risk", "good", delimiter = ";")
  expect_equal(cfx_n_rows(a), 2)
  expect_equal(unname(cfx_raw_rows(a)), matrix(c(2.5, 7, 0, 1), nrow = 2))
  expect_equal(cfx_labels(a), c(1, 0))
  b <- cfx_read_dataset(s, g, "risk", "good", delimiter = ";", header = FALSE)
  expect_equal(cfx_raw_rows(b), cfx_raw_rows(a))
  expect_equal(cfx_labels(b), cfx_labels(a))
  # read with commas the header is one column named "risk;housing;amount"
  expect_cfx_error(cfx_read_dataset(s, f, "risk", "good"), "cfx_error_not_found")
  expect_error(cfx_read_dataset(s, f, "risk", "good", delimiter = ";;"), "one ASCII character")
})

test_that("the HELOC and Taiwan loaders read the shared data", {
  heloc <- need_shared_file("heloc.csv")
  h <- cfx_load_heloc(heloc)
  expect_gt(cfx_n_rows(h), 1000)
  expect_equal(cfx_n_rows(cfx_load_heloc()), cfx_n_rows(h))
  taiwan <- need_shared_file("taiwan_default.csv")
  t <- cfx_load_taiwan(taiwan)
  expect_equal(cfx_n_rows(t), 30000)
  expect_equal(cfx_n_features(cfx_schema(t)), 23)
})
