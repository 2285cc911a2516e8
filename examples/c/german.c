/* Load the bundled German credit data, split it 70/30, fit the logistic
 * regression from C, and check the model survives a JSON round trip with
 * bit-identical predictions. */
#include "common.h"

int main(void) {
  const cfx_dataset *data = NULL, *train = NULL, *test = NULL;
  const cfx_schema *schema = NULL;
  const cfx_model *model = NULL, *copy = NULL;
  char *json;
  size_t n_all = 0, n_train = 0, n_test = 0, dim = 0, n_features = 0, i, j, n, correct = 0;
  double *x, *p, *p_copy, raw[64];

  CHECK(cfx_dataset_load_german(NULL, &data));
  CHECK(cfx_dataset_holdout_split(data, &train, &test));
  CHECK(cfx_dataset_n_rows(data, &n_all));
  CHECK(cfx_dataset_n_rows(train, &n_train));
  CHECK(cfx_dataset_n_rows(test, &n_test));
  printf("rows %zu = train %zu + test %zu\n", n_all, n_train, n_test);
  CHECK(cfx_dataset_schema(data, &schema));
  CHECK(cfx_schema_n_features(schema, &n_features));
  CHECK(cfx_schema_encoded_dim(schema, &dim));
  printf("features %zu, encoded dimension %zu\n", n_features, dim);

  CHECK(cfx_model_fit_linear(train, 1.0, &model));
  x = (double *)malloc(n_test * dim * sizeof *x);
  p = (double *)malloc(n_test * sizeof *p);
  p_copy = (double *)malloc(n_test * sizeof *p);
  for (i = 0; i < n_test; i++) {
    CHECK(cfx_dataset_row(test, i, raw, 64, &n));
    CHECK(cfx_schema_encode(schema, raw, n, x + i * dim, dim, &n));
  }
  CHECK(cfx_model_probability_batch(model, x, n_test, p, n_test, &n));
  for (i = 0; i < n_test; i++) {
    double label = -1.0;
    CHECK(cfx_dataset_label(test, i, &label));
    if ((p[i] > 0.5) == (label == 1.0)) correct++;
  }
  printf("hold-out accuracy %.4f\n", (double)correct / (double)n_test);

  GET_STRING(json, cfx_model_to_json, model);
  CHECK(cfx_model_from_json(schema, json, &copy));
  CHECK(cfx_model_probability_batch(copy, x, n_test, p_copy, n_test, &n));
  for (j = 0; j < n_test && p[j] == p_copy[j]; j++) {
  }
  printf("model JSON round trip: %s\n", j == n_test ? "identical predictions" : "DIFFERENT");

  free(json);
  free(x);
  free(p);
  free(p_copy);
  cfx_model_free(copy);
  cfx_model_free(model);
  cfx_schema_free(schema);
  cfx_dataset_free(test);
  cfx_dataset_free(train);
  cfx_dataset_free(data);
  return 0;
}
