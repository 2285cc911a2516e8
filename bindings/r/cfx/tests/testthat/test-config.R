test_that("every setting reaches the configuration", {
  cfg <- cfx_config(time_limit = 10, threads = 1, mip_gap = 1e-4, margin = 0.05,
                    n_diverse = 3, diversity_rule = "russell_intended",
                    n_samples = 500, bound_m = 2,
                    target = 0.2, target_epsilon = 0.01, seed = 42,
                    copa_weights = c(0.5, 0.25), copa_radius = 0.3,
                    rl_episodes = c(100, 20), rl_training = c(0.9, 1e-3, 1e-4, 32, 1000),
                    rl_exploration = c(1, 0.05), rl_hidden = c(32, 16))
  s <- as.list(cfg)
  expect_equal(s$time_limit_seconds, 10)
  expect_equal(s$threads, 1)
  expect_equal(s$mip_gap, 1e-4)
  expect_equal(s$margin, 0.05)
  expect_equal(s$n_diverse, 3)
  expect_identical(s$diversity_rule, "RussellIntended")
  # the noise is given to each robust call by a noise model, never by the configuration
  expect_false(any(grepl("noise", names(s))))
  expect_equal(s$n_samples, 500)
  expect_equal(s$bound_m, 2)
  expect_equal(c(s$target, s$target_epsilon), c(0.2, 0.01))
  expect_equal(s$seed, 42)
  expect_equal(c(s$copa_robust_weight, s$copa_diversity_weight), c(0.5, 0.25))
  expect_equal(s$copa_radius, 0.3)
  expect_equal(c(s$rl$episodes, s$rl$max_steps), c(100, 20))
  expect_equal(c(s$rl$discount, s$rl$learning_rate_actor, s$rl$learning_rate_param,
                 s$rl$batch_size, s$rl$replay_capacity), c(0.9, 1e-3, 1e-4, 32, 1000))
  expect_equal(c(s$rl$epsilon_start, s$rl$epsilon_end), c(1, 0.05))
  expect_equal(s$rl$hidden, c(32, 16))
  out <- capture.output(print(cfg))
  expect_identical(out[1], "A cfx configuration; other settings use each method's default:")
  expect_true("  time limit seconds: 10" %in% out)
  expect_true("  seed: 42" %in% out)
})

test_that("unset settings stay at the methods' defaults", {
  cfg <- cfx_config()
  s <- as.list(cfg)
  expect_null(s$time_limit_seconds)
  expect_null(s$seed)
  expect_output(print(cfg), "^A cfx configuration with every setting at its method's default\\.$")
})

test_that("64-bit seeds pass as decimal strings", {
  cfg <- cfx_config(seed = "18446744073709551615")
  expect_match(cfx_to_json(cfg), "\"seed\": 18446744073709551615")
})

test_that("invalid settings are refused by the library", {
  expect_cfx_error(cfx_config(time_limit = -1), "cfx_error_invalid_argument")
  expect_cfx_error(cfx_config(threads = 0), "cfx_error_invalid_argument")
  expect_cfx_error(cfx_config(target = 1.5), "cfx_error_invalid_argument")
  expect_cfx_error(cfx_config(rl_exploration = c(0.1, 0.5)), "cfx_error_invalid_argument")
  expect_cfx_error(cfx_config(rl_hidden = numeric()), "cfx_error_invalid_argument")
  expect_error(cfx_config(noise = "gaussian"), "unused argument")
  expect_error(cfx_config(diversity_rule = "other"), "must be one of")
  b <- cfx_config_builder()
  expect_error(cfx_config_set(b, "colour", 1), "unknown configuration setting 'colour'")
  expect_error(cfx_config_set(b, "target", 0.5), "takes 2 number")
  expect_cfx_error(cfx_config_set(b, "diversity_rule", 7), "cfx_error_invalid_argument")
  expect_output(print(b), "configuration builder")
  cfx_free(b)
})

test_that("the distinct-subsets diversity rule is passed when the library knows it", {
  skip_if_not(isTRUE(cfx_families()[["coherent"]]), "older cfx without the rule")
  expect_identical(as.list(cfx_config(diversity_rule = "distinct_subsets"))$diversity_rule,
                   "DistinctSubsets")
})
