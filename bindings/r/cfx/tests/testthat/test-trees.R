# The tree-ensemble importers (cfx_model_from_xgboost_*, cfx_model_from_lightgbm_*)
# on the hand-written German model of bindings/testdata (three trees over
# duration, credit amount and "no checking account"; see its README): every
# German row scores the margin written out by hand below, and declined
# applicants get the cheaper of the two single changes that can flip the
# model, priced with the MAD weights computed here from the data.

trees_file <- function(name) file.path(cfx_repo(), "bindings", "testdata", name)
xgb_path <- trees_file("german_trees_xgboost.json")
lgb_path <- trees_file("german_trees_lightgbm.txt")
# The LightGBM file names the one-hot column "checking_none": mapped to its level.
lgb_options <- list(columns = list(checking_none = list(
  feature = "status_of_existing_checking_account", level = "no checking account")))

# The model's margin, from its three trees as written in bindings/testdata/README.md.
hand_margin <- function(duration, amount, no_checking) {
  ifelse(duration < 24, 0.5, -0.5) +
    ifelse(amount < 4000, ifelse(duration < 12, 0.5, 0.375), -0.375) +
    ifelse(no_checking, 0.25, -0.25)
}

german_trees <- function() {
  d <- cfx_load_german(german_csv())
  s <- cfx_schema(d)
  raw <- cfx_raw_rows(d)
  list(d = d, s = s, duration = raw[, cfx_feature_index(s, "duration_in_month")],
       amount = raw[, cfx_feature_index(s, "credit_amount")],
       # read from the CSV itself, not through cfx
       none = utils::read.csv(german_csv(), stringsAsFactors = FALSE)$status_of_existing_checking_account ==
         "no checking account")
}

test_that("both formats, from text and from a file, score the hand margins on every German row", {
  g <- german_trees()
  models <- list(
    xgb_text = cfx_model_from_xgboost(g$s, readLines(xgb_path, warn = FALSE)),
    xgb_file = cfx_read_xgboost(g$s, xgb_path),
    lgb_text = cfx_model_from_lightgbm(g$s, readLines(lgb_path, warn = FALSE), lgb_options),
    lgb_file = cfx_read_lightgbm(g$s, lgb_path, jsonlite::toJSON(lgb_options, auto_unbox = TRUE)))
  margin <- hand_margin(g$duration, g$amount, g$none)
  expect_length(margin, 1000)
  expect_equal(sum(margin <= 0), 362)   # declined German applicants (bindings/testdata/README.md)
  for (m in models) {
    info <- cfx_model_info(m)
    expect_identical(info$kind, "trees")
    expect_equal(info$input_dim, cfx_encoded_dim(g$s))
    expect_equal(info$threshold, 0.5)
    p <- predict(m, g$d)
    expect_identical(p$score, margin)
    expect_equal(p$probability, plogis(margin), tolerance = 1e-15)
    expect_identical(p$accepted, margin > 0)
  }
  expect_identical(cfx_to_json(models$xgb_text), cfx_to_json(models$xgb_file))
  expect_identical(cfx_to_json(models$lgb_text), cfx_to_json(models$lgb_file))
  expect_output(print(models$xgb_file), "^A cfx gradient-boosted tree model over 61 encoded columns")
  expect_equal(cfx_model_info(cfx_read_xgboost(g$s, xgb_path, list(threshold = 0.6)))$threshold, 0.6)
})

test_that("the favourable class is declared and checked on the German labels", {
  g <- german_trees()
  margin <- hand_margin(g$duration, g$amount, g$none)
  good <- cfx_labels(g$d) == 1
  # Oracle: every (good, bad) pair of the hand margins, ties one half.
  diff <- outer(margin[good], margin[!good], "-")
  expected <- (sum(diff > 0) + 0.5 * sum(diff == 0)) / length(diff)
  expect_gt(expected, 0.5)
  m <- cfx_read_xgboost(g$s, xgb_path, list(favourable_class = 1))
  expect_equal(cfx_check_favourable(m, g$d), expected, tolerance = 1e-12)
  expect_match(cfx_to_json(m), "favourable class 1 (declared)", fixed = TRUE)
  d <- cfx_read_xgboost(g$s, xgb_path, list(score_is = "probability_of_default"))
  expect_identical(predict(d, g$d)$score, -margin)
  expect_error(cfx_check_favourable(d, g$d), "favourable_class", class = "cfx_error_invalid_argument")
})

test_that("declined applicants get the cheaper of the two single changes that flip the trees", {
  g <- german_trees()
  xgb <- cfx_read_xgboost(g$s, xgb_path)
  lgb <- cfx_read_lightgbm(g$s, lgb_path, lgb_options)
  mad1 <- function(x) stats::median(abs(x - stats::median(x)))
  mad_duration <- mad1(g$duration)
  mad_amount <- mad1(g$amount)
  expect_equal(c(mad_duration, mad_amount), c(6, 1097.5))
  # Applicants 6 and 37: 24+ months, 4000+ DM, no checking account, so the margin is
  # -0.5 - 0.375 + 0.25 = -0.625. Duration < 24 (+1, to 0.375) or amount < 4000 (+0.75, to
  # 0.125) alone accepts them; the checking account is already at its best level. Applicant 6
  # (36 months, 9055 DM) shortens the loan, applicant 37 (48 months, 6110 DM) borrows less.
  for (i in c(6, 37)) {
    a <- cfx_row(g$d, i)
    expect_true(g$none[i] && a$duration_in_month >= 24 && a$credit_amount >= 4000)
    expect_false(predict(xgb, a, schema = g$s)$accepted)
    by_duration <- (a$duration_in_month - 23) / mad_duration
    by_amount <- (a$credit_amount - 3999) / mad_amount
    expect_gt(abs(by_duration - by_amount), 0.1)
    expected <- a
    if (by_duration < by_amount) expected$duration_in_month <- 23 else expected$credit_amount <- 3999
    r <- cfx_explain(xgb, a, g$s)
    l <- cfx_explain(lgb, a, g$s)
    expect_identical(cfx_outcome(r)$outcome, "optimal")
    cf <- cfx_counterfactual(r)
    expect_equal(cf, expected, ignore_attr = TRUE)
    df <- as.data.frame(r)
    expect_equal(df$cost, min(by_duration, by_amount), tolerance = 1e-9)
    p <- predict(xgb, cf, schema = g$s)
    expect_true(p$accepted)
    expect_identical(p$score, if (by_duration < by_amount) 0.375 else 0.125)
    expect_equal(df$score, p$score, tolerance = 1e-12)
    expect_equal(df$probability, p$probability, tolerance = 1e-12)
    # the LightGBM copy of the model gives the same answer
    expect_identical(cfx_counterfactual(l), cf)
    expect_equal(as.data.frame(l)$cost, df$cost, tolerance = 1e-9)
    expect_match(cfx_describe(r), if (by_duration < by_amount) "duration_in_month" else "credit_amount")
  }
})

test_that("bad models, options and paths are classed conditions with the reason", {
  g <- german_trees()
  lgb_text <- readLines(lgb_path, warn = FALSE)
  expect_cfx_error(cfx_model_from_xgboost(g$s, lgb_text), "cfx_error_format_error", "XGBoost")
  expect_cfx_error(cfx_model_from_lightgbm(g$s, lgb_text), "cfx_error_format_error", "checking_none")
  expect_cfx_error(cfx_model_from_lightgbm(g$s, lgb_text, list(colour = "blue")),
                   "cfx_error_format_error", "colour")
  expect_cfx_error(cfx_model_from_lightgbm(g$s, lgb_text, '{"colour": 1}'),
                   "cfx_error_format_error", "colour")
  expect_cfx_error(cfx_read_xgboost(g$s, file.path(cfx_repo(), "no", "such", "model.json")),
                   "cfx_error_io_error")
  expect_cfx_error(cfx_read_lightgbm(g$s, file.path(cfx_repo(), "no", "such", "model.txt")),
                   "cfx_error_io_error")
  expect_error(cfx_read_xgboost(g$s, NA_character_), "'file' must be a single path")
  expect_error(cfx_read_xgboost(g$s, xgb_path, options = 3), "'options' must be NULL, a JSON string or a named list")
})

test_that("the gradient generators refuse a tree model (it has no input gradient)", {
  g <- german_trees()
  xgb <- cfx_read_xgboost(g$s, xgb_path)
  nz <- cfx_noise_gaussian(g$s, 0.01)
  expect_cfx_error(cfx_robust(xgb, cfx_row(g$d, 6), g$s, nz, "wachter"), "cfx_error_invalid_argument")
})

test_that("the tree importer entry point survives gctorture (PROTECT discipline)", {
  g <- german_trees()
  opts <- cfx:::.tree_options(lgb_options)
  gctorture(TRUE)
  m1 <- .Call(cfx:::C_cfx_model_from_xgboost_file, g$s, xgb_path, NULL)
  m2 <- .Call(cfx:::C_cfx_model_from_lightgbm_file, g$s, lgb_path, opts)
  info <- cfx:::.model_info(m2)
  err <- tryCatch(.Call(cfx:::C_cfx_model_from_lightgbm_file, g$s, lgb_path, NULL), error = conditionMessage)
  gctorture(FALSE)
  expect_identical(info$kind, "trees")
  expect_identical(cfx_to_json(m1), cfx_to_json(cfx_read_xgboost(g$s, xgb_path)))
  expect_match(err, "^CFX_STATUS_FORMAT_ERROR \\(9\\): .*checking_none")
})

# The bank's own gradient-boosted models, as trained by the libraries themselves: the 100-tree
# XGBoost (depth 4) and LightGBM (15 leaves) HELOC ensembles that benches/peers/trees_train.py
# writes to target/peers (make test runs it first), with each library's raw margin of every
# HELOC row. Missing: skipped, except under CI (a failure).
need_peer_file <- function(name) {
  p <- file.path(cfx_repo(), "target", "peers", name)
  if (!file.exists(p)) {
    ci <- Sys.getenv("CI")
    if (nzchar(ci) && !(tolower(ci) %in% c("0", "false"))) {
      stop("CI: peer file missing: ", p, " (make test runs benches/peers/trees_train.py)")
    }
    testthat::skip(paste("peer model not present:", p))
  }
  p
}

peer_margins <- function(name) {
  m <- utils::read.csv(need_peer_file(name), colClasses = c("integer", "numeric"))
  expect_identical(names(m), c("row", "margin"))
  expect_identical(m$row, seq_len(nrow(m)) - 1L)
  m$margin
}

test_that("the peer's HELOC ensembles score each library's own margin on every row", {
  heloc <- cfx_load_heloc(need_shared_file("heloc.csv"))
  s <- cfx_schema(heloc)
  xgb <- cfx_read_xgboost(s, need_peer_file("heloc_xgb.json"))
  lgb <- cfx_read_lightgbm(s, need_peer_file("heloc_lgbm.txt"))
  expect_identical(cfx_model_info(xgb)$kind, "trees")
  expect_identical(cfx_model_info(lgb)$kind, "trees")
  expect_equal(cfx_n_rows(heloc), 10459)
  px <- predict(xgb, heloc)
  pl <- predict(lgb, heloc)
  # 1e-6: the bound of cfx's Rust parity test (XGBoost sums float32 leaves in float32)
  expect_lte(max(abs(px$score - peer_margins("heloc_xgb_margins.csv"))), 1e-6)
  expect_lte(max(abs(pl$score - peer_margins("heloc_lgbm_margins.csv"))), 1e-6)
  expect_identical(px$accepted, px$score > 0)
})

test_that("the first declined held-out HELOC applicant gets a proven-optimal counterfactual the XGBoost model accepts", {
  heloc <- cfx_load_heloc(need_shared_file("heloc.csv"))
  split <- cfx_holdout_split(heloc)
  s <- cfx_fitted_schema(split$train)
  xgb <- cfx_read_xgboost(s, need_peer_file("heloc_xgb.json"))
  p <- predict(xgb, split$test)
  i <- which(!p$accepted)[1]
  expect_false(is.na(i))
  a <- cfx_row(split$test, i)
  # a generous limit: a slow machine must not turn into a failed test
  r <- cfx_explain(xgb, a, s, cfx_config(time_limit = 120))
  expect_identical(cfx_outcome(r)$outcome, "optimal")
  cf <- cfx_counterfactual(r)
  expect_false(isTRUE(all.equal(cf, a, check.attributes = FALSE)))
  expect_equal(cfx_decode(s, cfx_encode(s, cf)), cf, ignore_attr = TRUE, tolerance = 0)   # coherent
  q <- predict(xgb, cf, schema = s)
  expect_true(q$accepted)
  df <- as.data.frame(r)
  expect_equal(df$score[1], q$score, tolerance = 1e-9)
  expect_gt(df$cost[1], 0)
  # the exact tree search proves it; HiGHS, on the same program, agrees
  expect_identical(cfx_proved_by(r), "tree_search")
  h <- cfx_explain(xgb, a, s, cfx_config(time_limit = 120, solver = "mip"))
  expect_identical(cfx_proved_by(h), "highs")
  expect_identical(cfx_outcome(h)$outcome, "optimal")
  expect_equal(as.data.frame(h)$cost[1], df$cost[1], tolerance = 1e-9)
})

test_that("robust advice over reachable values on trees is accepted and meets its target; a logistic model refuses it", {
  # cfx_config(robust_box = "reachable_values"): every value the applicant can actually end at
  # (slips clipped to the range and rounded to the data's grid) is accepted; the result's
  # invalidation rate is estimated under the same slips.
  g <- german_trees()
  xgb <- cfx_read_xgboost(g$s, xgb_path)
  a <- cfx_row(g$d, 6)
  expect_false(predict(xgb, a, schema = g$s)$accepted)
  reach <- cfx_config(robust_advice = c(0.0025, 0.2), robust_box = "reachable_values")
  reals <- cfx_config(robust_advice = c(0.0025, 0.2), robust_box = "reals")
  r <- cfx_explain(xgb, a, g$s, reach)
  q <- cfx_explain(xgb, a, g$s, reals)
  expect_true(predict(xgb, cfx_counterfactual(r), schema = g$s)$accepted)
  df <- as.data.frame(r)
  se <- sqrt(0.2 * 0.8 / 10000)
  expect_gte(df$invalidation_rate[1], 0)
  expect_lte(df$invalidation_rate[1], 0.2 + 4 * se)
  expect_true(any(grepl("over reachable values", cfx_describe(r), fixed = TRUE)))
  expect_false(any(grepl("over reachable values", cfx_describe(q), fixed = TRUE)))
  linear <- cfx_fit_linear(g$d)
  expect_error(cfx_explain(linear, a, g$s, reach), "reachable", class = "cfx_error_invalid_argument")
  expect_error(cfx_config(robust_box = 7), class = "cfx_error_invalid_argument")
  expect_error(cfx_config(robust_box = "integers"), "robust_box")
})
