/* Many applicants at once (Russell 2019): one call explains every
 * row on the configuration's threads; each answer equals the one-applicant
 * call, and an applicant that cannot be explained (here: already accepted)
 * has its own status instead of failing the batch.
 * Usage: coherent_batch <schema.json> <model.json> */
#include <math.h>

#include "common.h"

#define N 3
#define D 4

int main(int argc, char **argv) {
  const cfx_schema *schema = NULL;
  const cfx_model *model = NULL;
  const cfx_config *config = NULL;
  const cfx_coherent_batch *batch = NULL, *empty = NULL;
  const cfx_coherent_result *results[N] = {NULL, NULL, NULL};
  cfx_config_builder *builder = NULL;
  char *schema_json, *model_json, *json, *error;
  const double rows[N * D] = {30000.0, -7.0, 1.0, 30.0,  /* declined */
                              95000.0, -7.0, 0.0, 30.0,  /* already accepted */
                              10000.0, 12.0, 2.0, 45.0}; /* declined */
  size_t n = 0, i, k, len = 0, len1 = 0;
  int32_t st = -1;

  if (argc != 3) {
    fprintf(stderr, "usage: %s schema.json model.json\n", argv[0]);
    return 2;
  }
  schema_json = read_file(argv[1]);
  model_json = read_file(argv[2]);
  CHECK(cfx_schema_from_json(schema_json, &schema));
  CHECK(cfx_model_from_json(schema, model_json, &model));
  CHECK(cfx_config_builder_new(&builder));
  CHECK(cfx_config_builder_set_threads(builder, 2));
  CHECK(cfx_config_build(builder, &config));

  CHECK(cfx_coherent_explain_batch(schema, model, config, rows, N * D, N, &batch));
  CHECK(cfx_coherent_batch_count(batch, &n));
  printf("%zu applicants\n", n);
  for (i = 0; i < n; i++) {
    CHECK(cfx_coherent_batch_status(batch, i, &st));
    printf("applicant %zu: %s", i, cfx_status_str(st));
    if (st == CFX_STATUS_OK) {
      const cfx_coherent_result *single = NULL;
      double raw[D], raw1[D], cost = 0.0, cost1 = -1.0;
      int same;
      CHECK(cfx_coherent_batch_result(batch, i, &results[i]));
      CHECK(cfx_coherent_explain(schema, model, NULL, rows + i * D, D, &single));
      CHECK(cfx_coherent_result_counterfactual(results[i], 0, raw, D, &len));
      CHECK(cfx_coherent_result_counterfactual(single, 0, raw1, D, &len1));
      CHECK(cfx_coherent_result_certificate(results[i], 0, &cost, NULL, NULL, NULL, NULL, NULL));
      CHECK(cfx_coherent_result_certificate(single, 0, &cost1, NULL, NULL, NULL, NULL, NULL));
      same = len == len1 && memcmp(raw, raw1, sizeof raw) == 0 && cost == cost1;
      printf(", cost %.4f, row", cost);
      for (k = 0; k < len; k++) printf(" %g", raw[k]);
      printf(", same as cfx_coherent_explain: %s\n", same ? "yes" : "no");
      cfx_coherent_result_free(single);
    } else {
      GET_STRING(error, cfx_coherent_batch_error, batch, i);
      printf(" (%s); result: %s\n", error,
             cfx_status_str(cfx_coherent_batch_result(batch, i, &results[i])));
      free(error);
    }
  }
  printf("applicant 3: %s\n", cfx_status_str(cfx_coherent_batch_status(batch, 3, &st)));
  GET_STRING(json, cfx_coherent_batch_to_json, batch);
  printf("json kind coherent_batch: %s\n",
         strstr(json, "\"kind\": \"coherent_batch\"") ? "yes" : "no");
  free(json);
  /* Results taken from the batch outlive it. */
  cfx_coherent_batch_free(batch);
  CHECK(cfx_coherent_result_count(results[0], &n));
  printf("result 0 after the batch is freed: %zu counterfactual(s)\n", n);
  for (i = 0; i < N; i++) cfx_coherent_result_free(results[i]);

  printf("wrong length: %s\n",
         cfx_status_str(cfx_coherent_explain_batch(schema, model, NULL, rows, N * D - 1, N, &batch)));
  printf("NULL rows: %s\n",
         cfx_status_str(cfx_coherent_explain_batch(schema, model, NULL, NULL, N * D, N, &batch)));
  printf("a NaN value: %s\n",
         cfx_status_str(cfx_coherent_explain_batch(
             schema, model, NULL, (double[]){NAN, -7.0, 1.0, 30.0}, D, 1, &batch)));
  CHECK(cfx_coherent_explain_batch(schema, model, NULL, NULL, 0, 0, &empty));
  CHECK(cfx_coherent_batch_count(empty, &n));
  printf("no applicants: %zu\n", n);
  cfx_coherent_batch_free(empty);

  cfx_config_free(config);
  cfx_model_free(model);
  cfx_schema_free(schema);
  free(schema_json);
  free(model_json);
  return 0;
}
