skip_if_not(isTRUE(cfx_families()[["coherent"]]), "cfx.h has no coherent entry points")

test_that("bound tightening off proves the same optimum on a ReLU network", {
  # Both formulations are exact: each is the other's oracle; the counterfactual is
  # accepted by the network itself.
  german <- cfx_load_german()
  gs <- cfx_schema(german)
  split <- cfx_holdout_split(german)
  m <- cfx_train_mlp(split$train, hidden = 8, epochs = 30, batch_size = 32, learning_rate = 1e-2, l2 = 1e-4, seed = 42)
  declined <- which(!predict(m, split$test)$accepted)
  expect_gt(length(declined), 0)
  tight <- cfx_config(time_limit = 60)
  plain <- cfx_config(time_limit = 60, mlp_bound_tightening = FALSE)
  for (i in head(declined, 2)) {
    a <- cfx_row(split$test, i)
    r1 <- cfx_explain(m, a, gs, tight)
    r2 <- cfx_explain(m, a, gs, plain)
    expect_identical(cfx_outcome(r1)$outcome, "optimal")
    expect_identical(cfx_outcome(r2)$outcome, "optimal")
    expect_equal(as.data.frame(r1)$cost, as.data.frame(r2)$cost, tolerance = 1e-9)
    expect_true(predict(m, cfx_counterfactual(r2, 1), schema = gs)$accepted)
  }
})
