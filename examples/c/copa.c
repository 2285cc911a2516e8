/* COPA (counterfactual plans under model shift) from C: validity bounds of a
 * toy plan checked against Cantelli's closed form, then a plan for a German
 * credit applicant with an ensemble-estimated model uncertainty. */
#include <math.h>

#include "common.h"

static const char *yes(int b) { return b ? "yes" : "no"; }

int main(void) {
  /* theta = (bias, w1, w2); the intercept comes first. */
  const double mean[3] = {-1.0, 2.0, 1.0};
  const double cov[9] = {0.5, 0.0, 0.0, 0.0, 0.2, 0.0, 0.0, 0.0, 0.3};
  const double plan[4] = {0.8, 0.5, 0.3, 1.5}; /* 2 options x 2 features, no intercept */
  const cfx_uncertainty *unc = NULL, *ens = NULL;
  const cfx_dataset *data = NULL, *train = NULL, *test = NULL;
  const cfx_schema *schema = NULL;
  cfx_config_builder *builder = NULL;
  const cfx_config *config = NULL;
  const cfx_copa_result *result = NULL;
  size_t d = 0, n_options = 0, n_features = 0, n = 0, k, lines = 0;
  double lower = 0.0, upper = 0.0, mu, s2, cantelli, raw[64], option[64];
  double prox, div, val, lo, up;
  int32_t ls = -1, us = -1;
  char *text, *json, *c;

  CHECK(cfx_uncertainty_new(mean, 3, cov, 9, &unc));
  CHECK(cfx_uncertainty_dim(unc, &d));
  printf("toy: theta dimension %zu\n", d);

  /* One option: L* = mu^2 / (mu^2 + s^2) (one-sided Chebyshev), U* = 1. */
  CHECK(cfx_copa_bounds(unc, plan, 1, 2, 0.0, &lower, &upper, &ls, &us));
  mu = mean[0] + mean[1] * plan[0] + mean[2] * plan[1];
  s2 = cov[0] + cov[4] * plan[0] * plan[0] + cov[8] * plan[1] * plan[1];
  cantelli = mu * mu / (mu * mu + s2);
  printf("1 option: L* %.4f (status %d), U* %.4f (status %d)\n", lower, ls, upper, us);
  printf("Cantelli %.4f, matches: %s\n", cantelli, yes(fabs(lower - cantelli) < 1e-5));

  CHECK(cfx_copa_bounds(unc, plan, 2, 2, 0.0, &lower, &upper, &ls, &us));
  printf("2 options, rho 0: L* %.4f (status %d), U* %.4f (status %d)\n", lower, ls, upper, us);
  CHECK(cfx_copa_bounds(unc, plan, 2, 2, 0.1, &lower, &upper, &ls, &us));
  printf("2 options, rho 0.1: L* %.4f (status %d), U* %.4f (status %d)\n", lower, ls, upper,
         us);

  /* Correction of a plan whose first option the mean model rejects. */
  {
    const double weak[4] = {0.2, 0.1, 0.8, 0.5};
    double fixed[4], before = -1.0, after = -1.0;
    CHECK(cfx_copa_correct(unc, weak, 2, 2, 0.0, 0.1, fixed, 4, &n, &before, &after));
    printf("correction: %zu values, L* before %.4f, raised: %s\n", n, before,
           yes(after > before));
  }

  /* A plan for a German credit applicant. */
  CHECK(cfx_dataset_load_german(NULL, &data));
  CHECK(cfx_dataset_holdout_split(data, &train, &test));
  CHECK(cfx_dataset_schema(data, &schema));
  CHECK(cfx_schema_n_features(schema, &n_features));
  CHECK(cfx_uncertainty_from_dataset(train, 10, 1, &ens));
  CHECK(cfx_uncertainty_dim(ens, &d));
  CHECK(cfx_schema_encoded_dim(schema, &n));
  printf("german: theta dimension = 1 + encoded dimension: %s\n", yes(d == n + 1));

  CHECK(cfx_config_builder_new(&builder));
  CHECK(cfx_config_builder_set_n_diverse(builder, 3));
  CHECK(cfx_config_builder_set_seed(builder, 7));
  CHECK(cfx_config_build(builder, &config));
  CHECK(cfx_dataset_row(test, 0, raw, 64, &n));
  CHECK(cfx_copa_plan_new(schema, ens, config, raw, n, &result));
  CHECK(cfx_copa_result_n_options(result, &n_options));
  printf("options %zu\n", n_options);
  for (k = 0; k < n_options; k++) {
    CHECK(cfx_copa_result_option_raw(result, k, option, 64, &n));
    printf("option %zu has %s features\n", k + 1, n == n_features ? "all" : "missing");
  }
  if (cfx_copa_result_option_raw(result, n_options, option, 64, &n) == CFX_STATUS_NOT_FOUND)
    printf("option %zu: not found\n", n_options + 1);
  CHECK(cfx_copa_result_metrics(result, &prox, &div, &val, &lo, &up));
  printf("proximity >= 0: %s, diversity > 0: %s\n", yes(prox >= 0.0), yes(div > 0.0));
  printf("0 <= L* <= U* <= 1: %s\n", yes(0.0 <= lo && lo <= up && up <= 1.0));

  GET_STRING(text, cfx_copa_result_describe, result);
  for (c = text; *c; c++) lines += (*c == '\n');
  printf("description lines %zu, starts with \"option 1:\": %s\n", lines,
         yes(strncmp(text, "option 1:", 9) == 0));
  GET_STRING(json, cfx_copa_result_to_json, result);
  printf("json kind copa_plan: %s\n", yes(strstr(json, "\"kind\": \"copa_plan\"") != NULL));

  free(json);
  free(text);
  cfx_copa_result_free(result);
  cfx_config_free(config);
  cfx_uncertainty_free(ens);
  cfx_schema_free(schema);
  cfx_dataset_free(test);
  cfx_dataset_free(train);
  cfx_dataset_free(data);
  cfx_uncertainty_free(unc);
  return 0;
}
