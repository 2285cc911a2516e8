# Smoke script run under valgrind by `VALGRIND=1 run-tests.sh`: every kind of
# shim path (handles, buffers, errors, panic, finalizers) with memcheck on.
library(cfx)
d <- cfx_load_german(); sp <- cfx_holdout_split(d); s <- cfx_schema(d)
m <- cfx_fit_linear(sp$train); p <- predict(m, sp$test)
x <- cfx_encode(s, cfx_raw_rows(sp$test)[1:5, ]); q <- cfx_probability(m, x); dd <- cfx_decode(s, x)
ch <- cfx_describe_changes(s, cfx_row(d, 1), cfx_row(d, 2))
e <- tryCatch(cfx_testing_panic(), error = function(e) e)
e2 <- tryCatch(cfx_feature_index(s, strrep("y", 9000)), error = function(e) e)
cfg <- cfx_config(seed = 3, time_limit = 2); j <- cfx_to_json(cfg)
if (isTRUE(cfx_families()[["coherent"]])) {
  r <- cfx_explain(m, cfx_row(sp$test, 3), s, cfx_config(n_diverse = 2), diverse = TRUE)
  df <- as.data.frame(r); txt <- cfx_describe(r); js <- cfx_to_json(r)
}
if (isTRUE(cfx_families()[["copa"]])) {
  u <- cfx_uncertainty(c(-1, 2, 1), diag(c(0.5, 0.2, 0.3)))
  bb <- cfx_copa_bounds(u, rbind(c(0.8, 0.5), c(0.3, 1.5)), rho = 0.1)
  pl <- cfx_copa_plan(cfx_uncertainty_from_dataset(sp$train, 3, 1), cfx_row(sp$test, 1), s,
                      cfx_config(n_diverse = 2))
  od <- as.data.frame(pl); mm <- cfx_copa_metrics(pl); pj <- cfx_to_json(pl)
  e3 <- tryCatch(cfx_copa_option(pl, 9), error = function(e) e)
  cfx_free(u); cfx_free(u)
}
if (isTRUE(cfx_families()[["copa_correct"]])) {
  u <- cfx_uncertainty(c(-1, 2, 1), diag(c(0.5, 0.2, 0.3)))
  cc <- cfx_copa_correct(u, rbind(c(0.2, 0.1), c(0.8, 0.5)), rho = 0, delta = 0.1)
  e4 <- tryCatch(cfx_copa_correct(u, c(1, 2, 3)), error = function(e) e)
}
if (isTRUE(cfx_families()[["coherent_batch"]])) {
  rows <- cfx_raw_rows(sp$test)[1:3, ]
  b <- cfx_explain_batch(m, rows, s, cfx_config(threads = 2))
  bs <- cfx_batch_status(b); bj <- cfx_to_json(b)
  ok <- which(bs$status == "CFX_STATUS_OK")
  if (length(ok)) br <- as.data.frame(cfx_batch_result(b, ok[1]))
  e5 <- tryCatch(cfx_batch_result(b, 9), error = function(e) e)
  cfx_free(b); cfx_free(b)
}
cfx_free(m); cfx_free(m); rm(d); invisible(gc())
cat("done\n")
