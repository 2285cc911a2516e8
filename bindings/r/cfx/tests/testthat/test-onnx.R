# The ONNX importer (cfx_model_from_onnx_file) on the committed scikit-learn
# gradient boosting of tests/data/onnx: every row gets onnxruntime's
# probability to float32 precision (sklearn_gb_scores.csv, written by
# benches/peers/onnx_peers.py); an undeclared favourable class and a truncated
# file are format errors.

onnx_file <- function(name) file.path(cfx_repo(), "tests", "data", "onnx", name)

test_that("an ONNX tree ensemble scores every row as onnxruntime", {
  s <- cfx_read_schema(onnx_file("schema.json"))
  m <- cfx_read_onnx(s, onnx_file("sklearn_gb.onnx"), list(favourable_class = 1))
  rows <- as.matrix(utils::read.csv(onnx_file("rows.csv")))
  want <- utils::read.csv(onnx_file("sklearn_gb_scores.csv"))$p1
  p <- predict(m, rows, schema = s)
  expect_lt(max(abs(p$probability - want)), 1e-6)
  expect_identical(p$accepted, want > 0.5)
  expect_equal(cfx_model_info(m)$kind, "trees")
  expect_error(cfx_read_onnx(s, onnx_file("sklearn_gb.onnx")), "favourable_class",
               class = "cfx_error_format_error")
  cut <- tempfile(fileext = ".onnx")
  writeBin(readBin(onnx_file("sklearn_gb.onnx"), "raw", 500), cut)
  expect_error(cfx_read_onnx(s, cut, list(favourable_class = 1)), "protobuf",
               class = "cfx_error_format_error")
  unlink(cut)
})
