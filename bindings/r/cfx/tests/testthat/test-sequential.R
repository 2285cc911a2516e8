skip_if_not(isTRUE(cfx_families()[["sequential"]]), "cfx.h has no sequential entry points")

german <- cfx_load_german()
gs <- cfx_schema(german)
split <- cfx_holdout_split(german)
model <- cfx_fit_linear(split$train)
cfg <- cfx_config(seed = 3, rl_episodes = c(300, 10), rl_hidden = 16)

test_that("a policy trains with progress reports, deterministically from its seed", {
  reports <- list()
  pol <- cfx_train_policy(split$train, model, cfg,
                          progress = function(p) { reports[[length(reports) + 1L]] <<- p; TRUE })
  expect_gt(length(reports), 1)
  last <- reports[[length(reports)]]
  expect_equal(last$episodes_done, 300)
  expect_equal(last$episodes_total, 300)
  done <- vapply(reports, `[[`, 0, "episodes_done")
  expect_true(all(diff(done) > 0))
  again <- cfx_train_policy(split$train, model, cfg)
  expect_identical(cfx_to_json(again), cfx_to_json(pol))
  other <- cfx_train_policy(split$train, model, cfx_config(seed = 4, rl_episodes = c(300, 10), rl_hidden = 16))
  expect_false(identical(cfx_to_json(other), cfx_to_json(pol)))
  expect_equal(cfx_policy_n_actions(pol), sum(as.data.frame(gs)$mutable))
  expect_output(print(pol), "^A cfx P-DQN policy over [0-9]+ actions\\.$")
})

test_that("stopping from the progress function is a cancellation; its errors surface after training", {
  err <- expect_cfx_error(cfx_train_policy(split$train, model, cfg, progress = function(p) FALSE),
                          "cfx_error_cancelled")
  expect_error(cfx_train_policy(split$train, model, cfg, progress = function(p) stop("boom")),
               "training stopped because the progress function failed: .*boom")
  # the session and the library are fine afterwards
  expect_equal(cfx_policy_n_actions(cfx_train_policy(split$train, model, cfg)), cfx_policy_n_actions(
    cfx_train_policy(split$train, model, cfg)))
  expect_error(cfx_train_policy(split$train, model, cfg, progress = 42), "must be a function")
})

test_that("plans replay step by step and policies round-trip", {
  pol <- cfx_train_policy(split$train, model, cfg)
  a <- cfx_row(split$test, 3)
  pl <- cfx_answer(pol, a, gs, model)
  df <- as.data.frame(pl)
  ok <- cfx_plan_success(pl)
  expect_equal(ok$initial_probability, predict(model, a, schema = gs)$probability, tolerance = 1e-12)
  # replaying the steps on the applicant gives the reported probabilities
  raw <- cfx:::.raw_matrix(gs, a)
  for (k in seq_len(nrow(df))) {
    j <- cfx_feature_index(gs, df$feature[k])
    expect_equal(raw[1, j], df$from[k])
    raw[1, j] <- df$to[k]
    expect_equal(predict(model, raw, schema = gs)$probability, df$probability[k], tolerance = 1e-9)
    st <- cfx_plan_step(pl, k)
    expect_equal(st[["feature"]], j)
  }
  expect_identical(ok$success, nrow(df) > 0 && df$probability[nrow(df)] > 0.5)
  expect_cfx_error(cfx_plan_step(pl, nrow(df) + 1), "cfx_error_not_found")
  expect_output(print(pl), "^A plan of [0-9]+ steps? from a probability of a good outcome of ")
  expect_identical(jsonlite::fromJSON(cfx_to_json(pl))$kind, "sequential_plan")
  f <- tempfile(fileext = ".json")
  cfx_save_policy(pol, f)
  expect_identical(cfx_to_json(cfx_load_policy(f)), cfx_to_json(pol))
  expect_identical(cfx_to_json(cfx_policy_from_json(cfx_to_json(pol))), cfx_to_json(pol))
  expect_cfx_error(cfx_policy_from_json("{}"), "cfx_error_format_error")
  expect_cfx_error(cfx_load_policy(file.path(tempdir(), "none.json")), "cfx_error_io_error")
  m <- cfx_evaluate_policy(pol, model, split$test)
  expect_equal(m$n_instances + m$n_already_accepted, 300)
  expect_equal(m$n_instances, sum(!predict(model, split$test)$accepted))
  expect_true(m$satisfiability >= 0 && m$satisfiability <= 1)
})
