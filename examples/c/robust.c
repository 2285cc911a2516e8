/* How far can advice be trusted? Invalidation rates of a counterfactual under
 * implementation noise (Guyomard et al. 2023), the CROCO bound with its confidence, and a
 * robust counterfactual from CROCO, all through a reusable workspace.
 * Usage: robust <schema.json> <model.json> */
#include "common.h"

int main(int argc, char **argv) {
  const cfx_schema *schema = NULL;
  const cfx_model *model = NULL;
  const cfx_noise *noise = NULL;
  const cfx_estimator *est = NULL;
  const cfx_config *config = NULL;
  cfx_config_builder *builder = NULL;
  cfx_workspace *ws = NULL;
  const cfx_robust_result *cf = NULL;
  char *schema_json, *model_json;
  double applicant[4] = {30000.0, -7.0, 1.0, 30.0};
  double x[16], raw[16], points[3 * 7];
  double gamma = 0, gamma_se = 0, theta = 0, theta_se = 0, exact = 0, probe = 0;
  double bound = 0, confidence = 0, p = 0, dist = 0;
  double g1[3], g2[3], t1[3], t2[3];
  size_t n = 0, dim = 0, i;
  int valid = -1, met = -1;

  if (argc != 3) {
    fprintf(stderr, "usage: %s schema.json model.json\n", argv[0]);
    return 2;
  }
  schema_json = read_file(argv[1]);
  model_json = read_file(argv[2]);
  CHECK(cfx_schema_from_json(schema_json, &schema));
  CHECK(cfx_model_from_json(schema, model_json, &model));
  CHECK(cfx_schema_encoded_dim(schema, &dim));

  /* Noise N(0, 0.01 I) on the changeable values (sigma2 is a variance). */
  CHECK(cfx_noise_gaussian_new(schema, 0.01, &noise));
  CHECK(cfx_estimator_new(noise, 10000, CFX_SAMPLING_GENERIC, &est));
  CHECK(cfx_workspace_new(model, 42, &ws));

  /* A point just past the decision boundary: income raised to 60,000. */
  applicant[0] = 60000.0;
  CHECK(cfx_schema_encode(schema, applicant, 4, x, 16, &n));
  CHECK(cfx_estimator_estimate(est, model, ws, x, n, &gamma, &gamma_se, &theta, &theta_se));
  CHECK(cfx_estimator_exact_rate(est, model, x, n, &exact));
  CHECK(cfx_estimator_probe_rate(est, model, ws, x, n, &probe));
  printf("income 60000: invalidation rate %.4f (se %.4f), exact %.4f, PROBE %.4f\n", gamma,
         gamma_se, exact, probe);
  printf("soft rate %.4f (se %.4f)\n", theta, theta_se);
  CHECK(cfx_estimator_bound(est, model, ws, x, n, 0.05, NULL, &bound, &confidence));
  printf("bound %.4f with confidence %.6f (m = 0.05, K = 10000)\n", bound, confidence);
  printf("agrees with the closed form within 4 se: %s\n",
         (gamma - exact) * (gamma - exact) <= 16 * gamma_se * gamma_se + 1e-12 ? "yes" : "no");

  /* Same seed, same bits; batch results do not depend on the thread count. */
  for (i = 0; i < 3; i++) {
    applicant[0] = 40000.0 + 10000.0 * (double)i;
    CHECK(cfx_schema_encode(schema, applicant, 4, points + i * dim, 16, &n));
  }
  CHECK(cfx_estimator_estimate_batch(est, model, points, 3, 7, 1, g1, t1));
  CHECK(cfx_estimator_estimate_batch(est, model, points, 3, 7, 2, g2, t2));
  printf("batch identical on 1 and 2 threads: %s\n",
         memcmp(g1, g2, sizeof g1) == 0 && memcmp(t1, t2, sizeof t1) == 0 ? "yes" : "no");

  /* CROCO for the declined applicant, target 0.3 on the bound. */
  applicant[0] = 30000.0;
  CHECK(cfx_config_builder_new(&builder));
  CHECK(cfx_config_builder_set_seed(builder, 7));
  CHECK(cfx_config_build(builder, &config));
  CHECK(cfx_robust_generate(schema, model, noise, CFX_ROBUST_METHOD_CROCO, config, applicant, 4,
                            &cf));
  CHECK(cfx_robust_result_summary(cf, &valid, &met, &p, &dist, &gamma, &theta, &bound,
                                  &confidence));
  CHECK(cfx_robust_result_raw(cf, raw, 16, &n));
  printf("CROCO: valid %d, target met %d, probability %.3f\n", valid, met, p);
  printf("  new row:");
  for (i = 0; i < n; i++) printf(" %g", raw[i]);
  printf("\n  invalidation rate %.4f, bound %.4f (confidence %.4f)\n", gamma, bound, confidence);

  cfx_robust_result_free(cf);
  cfx_config_free(config);
  cfx_workspace_free(ws);
  cfx_estimator_free(est);
  cfx_noise_free(noise);
  cfx_model_free(model);
  cfx_schema_free(schema);
  free(schema_json);
  free(model_json);
  return 0;
}
