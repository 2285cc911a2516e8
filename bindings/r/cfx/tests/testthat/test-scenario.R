# The scenario every binding replays through the C ABI and compares with the
# Rust results in bindings/scenario_expected.txt (written by
# `cargo run --release --example binding_scenario`). Floating-point values
# are compared as their 17-significant-digit text (C printf's "%.16e", which
# identifies a double uniquely), i.e. bit for bit.

read_expected <- function() {
  f <- file.path(cfx_repo(), "bindings", "scenario_expected.txt")
  if (!file.exists(f)) {
    if (nzchar(Sys.getenv("CI"))) stop("CI: missing ", f)
    skip(paste("scenario file not present yet:", f))
  }
  lines <- readLines(f, warn = FALSE)
  lines <- lines[grepl(" = ", lines, fixed = TRUE)]
  kv <- strsplit(lines, " = ", fixed = TRUE)
  stats::setNames(vapply(kv, `[`, "", 2L), vapply(kv, `[`, "", 1L))
}

# C's "%.16e" with the exponent written as Rust's `{:.16e}` writes it
# ("e-1", "e5"): same digits, so still one text per double.
e17 <- function(x) sub("e\\+?(-?)0*([0-9]+)$", "e\\1\\2", sprintf("%.16e", x))

test_that("numbers are written the way the Rust example writes them", {
  expect_identical(e17(c(0.5, 1e5, 1, 2^-12)),
                   c("5.0000000000000000e-1", "1.0000000000000000e5",
                     "1.0000000000000000e0", "2.4414062500000000e-4"))
})

test_that("the German credit scenario gives the Rust results bit for bit", {
  exp <- read_expected()
  d <- cfx_load_german()
  sp <- cfx_holdout_split(d)
  s <- cfx_schema(d)
  m <- cfx_fit_linear(sp$train, C = 1)
  pred <- predict(m, sp$test)
  got <- c(
    dataset = "german_credit",
    n_rows = format(cfx_n_rows(d)),
    n_train = format(cfx_n_rows(sp$train)),
    n_test = format(cfx_n_rows(sp$test)),
    n_features = format(cfx_n_features(s)),
    encoded_dim = format(cfx_encoded_dim(s)),
    threshold = e17(cfx_model_info(m)$threshold),
    accuracy = e17(sum(pred$accepted == (cfx_labels(sp$test) == 1)) / nrow(pred)),
    stats::setNames(e17(pred$probability[1:5]), paste0("prob_", 0:4)),
    first_declined = format(which(!pred$accepted)[1] - 1L),
    schema_fingerprint = cfx_fingerprint(s),
    model_fingerprint = cfx_fingerprint(m)
  )
  if (isTRUE(cfx_families()[["coherent"]])) {
    # the first declined held-out applicant, explained with the defaults,
    # then with 3 diverse counterfactuals
    applicant <- cfx_row(sp$test, which(!pred$accepted)[1])
    best <- cfx_explain(m, applicant, s)
    bdf <- as.data.frame(best)
    rust_outcome <- c(optimal = "Optimal", time_limit = "TimeLimit", infeasible = "Infeasible",
                      unknown = "Unknown")
    row_text <- function(raw) paste(e17(raw), collapse = ",")
    got <- c(got,
      coherent_outcome = rust_outcome[[cfx_outcome(best)$outcome]],
      coherent_count = format(nrow(bdf)),
      coherent_cost = e17(bdf$cost[1]),
      coherent_probability = e17(bdf$probability[1]),
      coherent_raw = row_text(.Call(cfx:::C_cfx_coherent_result_counterfactual, best, 0)))
    # waiting advice under the German preset at 0.001 per month (cheap enough to wait)
    w <- cfx_waiting(cfx_explain_with_waiting(m, applicant, cfx_advice_preset(s, "german", 0.001)))
    got <- c(got,
      waiting_months = format(w$months),
      waiting_wait_cost = e17(w$wait_cost),
      waiting_cost = e17(w$total_cost),
      waiting_raw = row_text(w$final))
    set <- cfx_explain(m, applicant, s, cfx_config(n_diverse = 3), diverse = TRUE)
    sdf <- as.data.frame(set)
    got <- c(got, diverse_count = format(nrow(sdf)))
    for (k in seq_len(nrow(sdf))) {
      got[[paste0("diverse_cost_", k - 1)]] <- e17(sdf$cost[k])
      got[[paste0("diverse_raw_", k - 1)]] <- row_text(.Call(cfx:::C_cfx_coherent_result_counterfactual, set, k - 1))
    }
  } else {
    exp <- exp[!grepl("^(coherent|diverse|waiting)_", names(exp))]
  }
  if (isTRUE(cfx_families()[["robust"]])) {
    # at the first declined applicant: Gaussian noise (variance 0.01), 10,000
    # generic samples, a workspace seeded 42; then CROCO with seed 7
    applicant <- cfx_row(sp$test, which(!pred$accepted)[1])
    x <- cfx_encode(s, applicant)[1, ]
    nz <- cfx_noise_gaussian(s, 0.01)
    est <- cfx_estimator(nz, 10000, sampling = "generic")
    e <- cfx_estimate(est, m, cfx_workspace(m, seed = 42), x)
    got <- c(got, robust_gamma = e17(e[["gamma"]]), robust_gamma_se = e17(e[["gamma_se"]]),
             robust_theta = e17(e[["theta"]]), robust_theta_se = e17(e[["theta_se"]]))
    r <- cfx_robust(m, applicant, s, nz, "croco", cfx_config(seed = 7))
    fig <- cfx_robust_summary(r)
    got <- c(got, croco_valid = format(as.integer(fig$valid)),
             croco_target_met = format(as.integer(fig$target_met)),
             croco_probability = e17(fig$probability), croco_distance = e17(fig$distance),
             croco_gamma = e17(fig$gamma), croco_bound = e17(fig$bound),
             croco_raw = paste(e17(.Call(cfx:::C_cfx_robust_result_raw, r)), collapse = ","))
  } else {
    exp <- exp[!grepl("^(robust|croco)_", names(exp))]
  }
  if (isTRUE(cfx_families()[["sequential"]])) {
    # a small policy: seed 5, 300 episodes of at most 8 steps, one hidden
    # layer of 16, binary reward; its metrics and its plan for the applicant
    applicant <- cfx_row(sp$test, which(!pred$accepted)[1])
    pol <- cfx_train_policy(sp$train, m, cfx_config(seed = 5, rl_episodes = c(300, 8), rl_hidden = 16))
    met <- cfx_evaluate_policy(pol, m, sp$test)
    plan <- cfx_answer(pol, applicant, s, m)
    steps <- as.data.frame(plan)
    final <- cfx:::.raw_matrix(s, applicant)[1, ]
    for (k in seq_len(nrow(steps))) final[cfx_feature_index(s, steps$feature[k])] <- steps$to[k]
    got <- c(got,
      policy_fingerprint = jsonlite::fromJSON(cfx_to_json(plan))$inputs$policy,
      policy_satisfiability = e17(met$satisfiability),
      policy_n_instances = format(met$n_instances),
      plan_n_steps = format(nrow(steps)),
      plan_success = format(as.integer(cfx_plan_success(plan)$success)),
      plan_final_row = paste(e17(final), collapse = ","))
  } else {
    exp <- exp[!grepl("^(policy|plan)_", names(exp))]
  }
  # the bundled German points scorecard: its first declined held-out applicant,
  # their points and their coherent counterfactual under the scorecard
  card <- cfx_import_scorecard(s, file.path(cfx_repo(), "examples", "data", "german_scorecard_table.csv"),
                               cutoff = 487.1228762045055, scaling = c(28.85390081777927, 487.1228762045055))
  sc <- cfx_scorecard_model(card)
  sp_pred <- predict(sc, sp$test)
  card_declined <- which(!sp_pred$accepted)[1]
  card_best <- cfx_explain(sc, cfx_row(sp$test, card_declined), s)
  cdf <- as.data.frame(card_best)
  got <- c(got,
    scorecard_first_declined = format(card_declined - 1L),
    scorecard_points = e17(sp_pred$score[card_declined]),
    scorecard_coherent_outcome = c(optimal = "Optimal", time_limit = "TimeLimit", infeasible = "Infeasible",
                                   unknown = "Unknown")[[cfx_outcome(card_best)$outcome]],
    scorecard_coherent_count = format(nrow(cdf)),
    scorecard_coherent_cost = e17(cdf$cost[1]),
    scorecard_coherent_points = e17(cdf$score[1]),
    scorecard_coherent_raw = paste(e17(.Call(cfx:::C_cfx_coherent_result_counterfactual, card_best, 0)), collapse = ","),
    scorecard_model_fingerprint = cfx_fingerprint(sc))
  # every expected key is reproduced, and with the same value
  expect_setequal(names(exp), names(got))
  for (k in names(exp)) expect_identical(got[[k]], exp[[k]], info = k)
  # the batch entry point gives the same bits as one-by-one prediction
  x <- cfx_encode(s, cfx_raw_rows(sp$test)[1:5, ])
  expect_identical(e17(cfx_probability(m, x)), unname(exp[paste0("prob_", 0:4)]))
})
