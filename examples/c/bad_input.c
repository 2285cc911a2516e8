/* Every kind of bad input a caller can pass gets its documented status and a
 * readable message, out-parameters stay untouched, and the process keeps
 * working afterwards. Usage: bad_input <schema.json> <model.json> */
#include "common.h"

#include <math.h>
#include <stdint.h>

static int failures = 0;

/* Checks a status and that the message mentions `needle`; prints one line. */
static void expect(const char *what, cfx_status got, cfx_status want, const char *needle) {
  const char *msg = last_error();
  int ok = got == want && (want == CFX_STATUS_OK ? cfx_last_error_length() == 0
                                                 : strlen(msg) > 0 && strstr(msg, needle) != NULL);
  printf("%s %s -> %s\n", ok ? "PASS" : "FAIL", what, cfx_status_str(got));
  if (!ok) {
    printf("     wanted %s mentioning '%s', message: %s\n", cfx_status_str(want), needle, msg);
    failures++;
  }
}

int main(int argc, char **argv) {
  const cfx_schema *schema = NULL, *untouched = NULL;
  const cfx_model *model = NULL, *bad_model = NULL;
  const cfx_dataset *data = NULL;
  const cfx_config *config = NULL;
  cfx_config_builder *builder = NULL;
  char *schema_json, *model_json;
  double raw[4] = {30000.0, -7.0, 1.0, 30.0};
  double x[7] = {0}, out[7], score = 0.0;
  double nan_row[4], inf_row[4];
  double incoherent[7] = {0.3, 0.0, 1.0, 1.0, 1.0, 0.0, 0.2}; /* rent and own both on */
  double weights[7] = {1, 1, 1, 1, 1, 1, 1};
  size_t n = 0, index = 0;
  char small[4], name[64];
  const char bad_utf8[] = {'i', 'n', (char)0xff, 0};

  if (argc != 3) return 2;
  if (sizeof(cfx_status) != 4 || CFX_STATUS_OK != 0 || CFX_STATUS_BUFFER_TOO_SMALL != 4 ||
      CFX_STATUS_PANIC != 99) {
    printf("FAIL status layout\n");
    return 1;
  }
  schema_json = read_file(argv[1]);
  model_json = read_file(argv[2]);
  CHECK(cfx_schema_from_json(schema_json, &schema));
  CHECK(cfx_model_from_json(schema, model_json, &model));
  memcpy(nan_row, raw, sizeof raw);
  memcpy(inf_row, raw, sizeof raw);
  nan_row[0] = NAN;
  inf_row[3] = -INFINITY;

  /* NULL handles, strings and out-parameters */
  expect("schema_from_json(NULL json)", cfx_schema_from_json(NULL, &untouched),
         CFX_STATUS_NULL_ARGUMENT, "json");
  expect("schema_n_features(NULL schema)", cfx_schema_n_features(NULL, &n),
         CFX_STATUS_NULL_ARGUMENT, "schema");
  expect("schema_n_features(NULL out)", cfx_schema_n_features(schema, NULL),
         CFX_STATUS_NULL_ARGUMENT, "out_n");
  expect("model_predict(NULL model)", cfx_model_predict(NULL, x, 7, &score, NULL, NULL),
         CFX_STATUS_NULL_ARGUMENT, "model");
  /* NULL buffers with non-zero lengths */
  expect("schema_encode(NULL raw, len 4)", cfx_schema_encode(schema, NULL, 4, x, 7, &n),
         CFX_STATUS_NULL_ARGUMENT, "raw");
  expect("schema_encode(NULL out, cap 7)", cfx_schema_encode(schema, raw, 4, NULL, 7, &n),
         CFX_STATUS_NULL_ARGUMENT, "out");
  expect("schema_encode(NULL out_len)", cfx_schema_encode(schema, raw, 4, x, 7, NULL),
         CFX_STATUS_NULL_ARGUMENT, "out_len");
  /* model bytes: NULL with a length, none, garbage, a truncated protobuf */
  {
    static const uint8_t garbage[] = "not an ONNX model \xff\xfe\x01";
    static const uint8_t cut[] = {0x08, 0x07, 0x12, 0x40, 's', 'k'}; /* a field cut short */
    const char *opts = "{\"favourable_class\": 1}";
    expect("model_from_onnx_bytes(NULL bytes, len 10)",
           cfx_model_from_onnx_bytes(schema, NULL, 10, opts, &bad_model), CFX_STATUS_NULL_ARGUMENT,
           "bytes");
    expect("model_from_onnx_bytes(len 0)", cfx_model_from_onnx_bytes(schema, garbage, 0, opts, &bad_model),
           CFX_STATUS_FORMAT_ERROR, "no bytes");
    expect("model_from_onnx_bytes(garbage)",
           cfx_model_from_onnx_bytes(schema, garbage, sizeof garbage - 1, opts, &bad_model),
           CFX_STATUS_FORMAT_ERROR, "ONNX");
    expect("model_from_onnx_bytes(truncated)",
           cfx_model_from_onnx_bytes(schema, cut, sizeof cut, opts, &bad_model), CFX_STATUS_FORMAT_ERROR,
           "protobuf");
  }
  /* wrong lengths and too-small buffers */
  expect("schema_encode(raw len 3)", cfx_schema_encode(schema, raw, 3, x, 7, &n),
         CFX_STATUS_DIMENSION_MISMATCH, "expected 4, got 3");
  n = 0;
  expect("schema_encode(cap 2)", cfx_schema_encode(schema, raw, 4, x, 2, &n),
         CFX_STATUS_BUFFER_TOO_SMALL, "7 are needed");
  printf("     needed length reported: %zu\n", n);
  expect("model_predict(x len 6)", cfx_model_predict(model, x, 6, &score, NULL, NULL),
         CFX_STATUS_DIMENSION_MISMATCH, "expected 7, got 6");
  /* NaN and infinite values */
  expect("schema_encode(NaN)", cfx_schema_encode(schema, nan_row, 4, x, 7, &n),
         CFX_STATUS_INVALID_ARGUMENT, "raw[0] is not finite");
  expect("schema_encode(-inf)", cfx_schema_encode(schema, inf_row, 4, x, 7, &n),
         CFX_STATUS_INVALID_ARGUMENT, "raw[3] is not finite");
  weights[2] = NAN;
  expect("model_linear_new(NaN weight)", cfx_model_linear_new(weights, 7, 0.0, 0.5, &bad_model),
         CFX_STATUS_INVALID_ARGUMENT, "weights[2]");
  weights[2] = 1.0;
  expect("model_linear_new(threshold 1.5)", cfx_model_linear_new(weights, 7, 0.0, 1.5, &bad_model),
         CFX_STATUS_INVALID_ARGUMENT, "threshold");
  expect("model_linear_new(bias inf)", cfx_model_linear_new(weights, 7, INFINITY, 0.5, &bad_model),
         CFX_STATUS_INVALID_ARGUMENT, "bias");
  /* out-of-domain values, incoherent encodings */
  raw[2] = 5.0;
  expect("schema_encode(level 5 of 3)", cfx_schema_encode(schema, raw, 4, x, 7, &n),
         CFX_STATUS_INCOHERENT, "5 is not a level index");
  raw[2] = 1.0;
  expect("schema_decode(two levels on)", cfx_schema_decode(schema, incoherent, 7, out, 7, &n),
         CFX_STATUS_INCOHERENT, "housing");
  /* malformed JSON, invalid schemas, mismatched schema and model */
  expect("schema_from_json(malformed)", cfx_schema_from_json("{\"features\": [", &untouched),
         CFX_STATUS_FORMAT_ERROR, "format error");
  expect("schema_from_json(duplicate names)",
         cfx_schema_from_json("{\"format_version\":1,\"features\":["
                              "{\"name\":\"a\",\"kind\":\"categorical\",\"levels\":[\"x\",\"y\"]},"
                              "{\"name\":\"a\",\"kind\":\"categorical\",\"levels\":[\"x\",\"y\"]}]}",
                              &untouched),
         CFX_STATUS_INVALID_SCHEMA, "a");
  expect("model_from_json(3 weights for dimension 7)",
         cfx_model_from_json(schema,
                             "{\"format_version\":1,\"kind\":\"linear\",\"weights\":[1,2,3],\"bias\":0}",
                             &bad_model),
         CFX_STATUS_DIMENSION_MISMATCH, "expected 7, got 3");
  expect("model_from_json(version 9)",
         cfx_model_from_json(schema, "{\"format_version\":9,\"kind\":\"linear\",\"weights\":[1],\"bias\":0}",
                             &bad_model),
         CFX_STATUS_FORMAT_ERROR, "version 9");
  CHECK(cfx_dataset_load_german(NULL, &data));
  {
    const cfx_schema *german = NULL;
    double row[20];
    CHECK(cfx_dataset_schema(data, &german));
    CHECK(cfx_dataset_row(data, 0, row, 20, &n));
    expect("model_predict_raw(German schema, toy model)",
           cfx_model_predict_raw(model, german, row, 20, &score, NULL, NULL),
           CFX_STATUS_DIMENSION_MISMATCH, "expected 61, got 7");
    cfx_schema_free(german);
  }
  expect("dataset_row(index 5000)", cfx_dataset_row(data, 5000, out, 7, &n), CFX_STATUS_NOT_FOUND,
         "5000");
  /* names, strings, files */
  expect("schema_index_of(unknown)", cfx_schema_index_of(schema, "salary", &index),
         CFX_STATUS_NOT_FOUND, "salary");
  expect("schema_index_of(invalid UTF-8)", cfx_schema_index_of(schema, bad_utf8, &index),
         CFX_STATUS_INVALID_ARGUMENT, "UTF-8");
  expect("schema_feature_name(index 4)", cfx_schema_feature_name(schema, 4, name, 64, &n),
         CFX_STATUS_NOT_FOUND, "out of range");
  expect("dataset_load_german(missing file)",
         cfx_dataset_load_german("/nonexistent/german.csv", &data),
         CFX_STATUS_IO_ERROR, "i/o error");
  /* configuration builder */
  expect("config_builder_set_seed(NULL builder)", cfx_config_builder_set_seed(NULL, 1),
         CFX_STATUS_NULL_ARGUMENT, "builder");
  CHECK(cfx_config_builder_new(&builder));
  expect("config_builder_set_diversity_rule(rule 42)",
         cfx_config_builder_set_diversity_rule(builder, 42), CFX_STATUS_INVALID_ARGUMENT, "42");
  expect("config_builder_set_time_limit(NaN)", cfx_config_builder_set_time_limit(builder, NAN),
         CFX_STATUS_INVALID_ARGUMENT, "seconds");
  expect("config_build", cfx_config_build(builder, &config), CFX_STATUS_OK, "");

  /* out-parameters untouched by failures */
  printf("%s out-parameters untouched on failure\n",
         untouched == NULL && bad_model == NULL ? "PASS" : "FAIL");
  if (untouched != NULL || bad_model != NULL) failures++;

  /* the last-error protocol itself */
  cfx_schema_index_of(schema, "salary", &index);
  expect("last_error_message(cap 4)", cfx_last_error_message(small, sizeof small),
         CFX_STATUS_BUFFER_TOO_SMALL, "salary");
  expect("last_error_message(NULL, cap 8)", cfx_last_error_message(NULL, 8),
         CFX_STATUS_NULL_ARGUMENT, "salary");
  printf("%s status_str(12345) = %s\n",
         strcmp(cfx_status_str(12345), "CFX_STATUS_UNKNOWN") == 0 ? "PASS" : "FAIL",
         cfx_status_str(12345));

#ifdef CFX_TESTING
  expect("testing_panic", cfx_testing_panic(), CFX_STATUS_PANIC, "deliberate panic");
#endif

  /* the process keeps working */
  expect("schema_encode after all that", cfx_schema_encode(schema, raw, 4, x, 7, &n), CFX_STATUS_OK, "");
  expect("model_predict after all that", cfx_model_predict(model, x, n, &score, NULL, NULL),
         CFX_STATUS_OK, "");
  printf("score %.6f\n", score);

  /* _free(NULL) is a no-op for every handle type */
  cfx_schema_free(NULL);
  cfx_model_free(NULL);
  cfx_dataset_free(NULL);
  cfx_config_free(NULL);
  cfx_config_builder_free(NULL);

  cfx_config_free(config);
  cfx_dataset_free(data);
  cfx_model_free(model);
  cfx_schema_free(schema);
  free(schema_json);
  free(model_json);
  printf("%d failures\n", failures);
  return failures == 0 ? 0 : 1;
}
