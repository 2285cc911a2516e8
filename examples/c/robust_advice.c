/* Robust advice from the exact engine and plausibility flags from C (German
 * credit, bundled): for the first declined held-out applicant, the cheapest
 * change that stays accepted under slips of variance 0.01 with at most 10%
 * declined (proven optimal), its exact invalidation rate, and which changed
 * values of an absurd advice (credit amount 250 DM) are unlike the accepted
 * applicants of the training data. */
#include <math.h>

#include "common.h"

int main(void) {
  const cfx_dataset *data = NULL, *train = NULL, *test = NULL;
  const cfx_schema *schema = NULL;
  const cfx_model *model = NULL;
  const cfx_config *config = NULL;
  const cfx_coherent_result *plain = NULL, *robust = NULL;
  const cfx_plausibility *ranges = NULL;
  cfx_config_builder *builder = NULL;
  size_t n_train = 0, n_test = 0, nf = 0, i, n, who = 0;
  double raw[64], prob = 1.0, gamma = -1.0, cost_plain = 0.0, cost_robust = 0.0;
  double *rows, *labels, advice[64], distances[64];
  int32_t flags[64];
  char *text;

  CHECK(cfx_dataset_load_german(NULL, &data));
  CHECK(cfx_dataset_holdout_split(data, &train, &test));
  CHECK(cfx_dataset_schema(data, &schema));
  CHECK(cfx_schema_n_features(schema, &nf));
  CHECK(cfx_model_fit_linear(train, 1.0, &model));
  CHECK(cfx_dataset_n_rows(test, &n_test));
  for (i = 0; i < n_test; i++) {
    int32_t accepted = 1;
    CHECK(cfx_dataset_row(test, i, raw, 64, &n));
    CHECK(cfx_model_predict_raw(model, schema, raw, n, NULL, &prob, &accepted));
    if (!accepted) {
      who = i;
      break;
    }
  }
  CHECK(cfx_dataset_row(test, who, raw, 64, &n));
  printf("held-out applicant %zu declined (probability %.3f)\n", who, prob);

  CHECK(cfx_config_builder_new(&builder));
  printf("target 1 refused: %d\n", cfx_config_builder_set_robust_advice(builder, 0.01, 1.0) ==
                                       CFX_STATUS_INVALID_ARGUMENT);
  CHECK(cfx_config_builder_set_robust_advice(builder, 0.01, 0.1));
  CHECK(cfx_config_build(builder, &config));
  CHECK(cfx_coherent_explain(schema, model, NULL, raw, nf, &plain));
  CHECK(cfx_coherent_explain(schema, model, config, raw, nf, &robust));
  CHECK(cfx_coherent_result_certificate(plain, 0, &cost_plain, NULL, NULL, NULL, NULL, NULL));
  CHECK(cfx_coherent_result_certificate(robust, 0, &cost_robust, NULL, NULL, NULL, NULL, NULL));
  CHECK(cfx_coherent_result_invalidation_rate(robust, 0, &gamma));
  printf("robust invalidation rate <= 10%%: %d; robust cost >= optimal cost: %d\n",
         gamma <= 0.1, cost_robust >= cost_plain - 1e-9);
  CHECK(cfx_coherent_result_invalidation_rate(plain, 0, &gamma));
  printf("without robust advice the rate is NaN: %d\n", isnan(gamma) != 0);
  GET_STRING(text, cfx_coherent_result_describe, robust);
  printf("%s", text);
  free(text);

  CHECK(cfx_dataset_n_rows(train, &n_train));
  rows = (double *)malloc(n_train * nf * sizeof *rows);
  labels = (double *)malloc(n_train * sizeof *labels);
  for (i = 0; i < n_train; i++) {
    CHECK(cfx_dataset_row(train, i, rows + i * nf, nf, &n));
    CHECK(cfx_dataset_label(train, i, labels + i));
  }
  CHECK(cfx_plausibility_fit(schema, rows, n_train * nf, n_train, labels, n_train, &ranges));
  for (i = 0; i < nf; i++) advice[i] = raw[i];
  CHECK(cfx_schema_index_of(schema, "credit_amount", &i));
  advice[i] = 250.0;
  CHECK(cfx_plausibility_assess(ranges, raw, nf, advice, nf, flags, distances, 64, &n));
  printf("credit_amount -> 250: flag %d, %.1f below the 1%% point\n", (int)flags[i], distances[i]);
  CHECK(cfx_coherent_result_counterfactual(robust, 0, advice, 64, &n));
  CHECK(cfx_plausibility_assess(ranges, raw, nf, advice, nf, flags, distances, 64, &n));
  for (i = 0; i < nf; i++)
    if (flags[i] == 1) printf("robust advice: feature %zu implausible\n", i);

  free(rows);
  free(labels);
  cfx_plausibility_free(ranges);
  cfx_coherent_result_free(robust);
  cfx_coherent_result_free(plain);
  cfx_config_free(config);
  cfx_model_free(model);
  cfx_schema_free(schema);
  cfx_dataset_free(test);
  cfx_dataset_free(train);
  cfx_dataset_free(data);
  return 0;
}
