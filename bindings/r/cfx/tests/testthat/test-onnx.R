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

# The same graph from its bytes (cfx_model_from_onnx_bytes, a raw vector):
# every committed row scores bit for bit as from the file; no bytes, garbage
# and a truncated protobuf are format errors, a non-raw argument an R error.
test_that("an ONNX model from a raw vector scores as from the file", {
  s <- cfx_read_schema(onnx_file("schema.json"))
  path <- onnx_file("sklearn_gb.onnx")
  bytes <- readBin(path, "raw", file.size(path))
  opts <- list(favourable_class = 1)
  f <- cfx_read_onnx(s, path, opts)
  b <- cfx_model_from_onnx(s, bytes, opts)
  rows <- as.matrix(utils::read.csv(onnx_file("rows.csv")))
  pf <- predict(f, rows, schema = s)
  pb <- predict(b, rows, schema = s)
  expect_identical(pb$score, pf$score)
  expect_identical(pb$accepted, pf$accepted)
  expect_error(cfx_model_from_onnx(s, raw(0), opts), "no bytes", class = "cfx_error_format_error")
  expect_error(cfx_model_from_onnx(s, charToRaw("not an ONNX model at all"), opts), "ONNX",
               class = "cfx_error_format_error")
  expect_error(cfx_model_from_onnx(s, bytes[1:500], opts), "protobuf",
               class = "cfx_error_format_error")
  expect_error(cfx_model_from_onnx(s, "model.onnx", opts), "raw vector")
})
