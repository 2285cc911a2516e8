/* Completes the C snippet of docs/guide/c-abi.md that reads a schema and a model from JSON and
 * scores one applicant: the JSON is German credit's schema and its logistic model, written by
 * cfx_schema_to_json and cfx_model_to_json, and the applicant the third held-out one.
 * tests/docs/run_snippets.py puts the snippet in place of the SNIPPET line. */
#include "common.h"

int main(void) {
  const cfx_dataset *german = NULL, *train = NULL, *test = NULL;
  const cfx_schema *german_schema = NULL;
  const cfx_model *fitted = NULL;
  char *schema_json = NULL, *model_json = NULL;
  double row[64];
  size_t n_features = 0;
  CHECK(cfx_dataset_load_german(NULL, &german));
  CHECK(cfx_dataset_schema(german, &german_schema));
  CHECK(cfx_dataset_holdout_split(german, &train, &test));
  CHECK(cfx_model_fit_linear(train, 1.0, &fitted));
  GET_STRING(schema_json, cfx_schema_to_json, german_schema);
  GET_STRING(model_json, cfx_model_to_json, fitted);
  CHECK(cfx_dataset_row(test, 2, row, 64, &n_features));
  {
    /* SNIPPET */
    printf("score %.4f, probability %.4f, accepted %d\n", score, p, (int)accepted);
  }
  free(model_json);
  free(schema_json);
  cfx_model_free(fitted);
  cfx_schema_free(german_schema);
  cfx_dataset_free(test);
  cfx_dataset_free(train);
  cfx_dataset_free(german);
  return 0;
}
