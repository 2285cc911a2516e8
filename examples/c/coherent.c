/* Optimal coherent counterfactuals (Russell 2019) from C: the
 * cheapest change that gets a declined applicant accepted, 3 diverse
 * alternatives, and a case with no recourse that names what blocks it.
 * Usage: coherent <schema.json> <model.json> */
#include <math.h>

#include "common.h"

static void print_result(const cfx_coherent_result *r) {
  int32_t outcome = -1;
  uint32_t mask = 99;
  size_t n = 0, k, len = 0, j;
  double raw[8], cost = 0.0, p = 0.0, gap = 1.0;
  char *text;
  CHECK(cfx_coherent_result_outcome(r, &outcome, &mask));
  CHECK(cfx_coherent_result_count(r, &n));
  printf("outcome %d, blocking mask %u, %zu counterfactual(s)\n", (int)outcome, (unsigned)mask, n);
  for (k = 0; k < n; k++) {
    CHECK(cfx_coherent_result_counterfactual(r, k, raw, 8, &len));
    CHECK(cfx_coherent_result_certificate(r, k, &cost, NULL, &p, NULL, &gap, NULL));
    printf("  #%zu cost %.4f probability %.4f gap<=1e-6 %d row", k, cost, p, gap <= 1e-6);
    for (j = 0; j < len; j++) printf(" %g", raw[j]);
    printf("\n");
  }
  GET_STRING(text, cfx_coherent_result_describe, r);
  printf("%s", text);
  free(text);
}

int main(int argc, char **argv) {
  const cfx_schema *schema = NULL;
  const cfx_model *model = NULL, *age_only = NULL;
  const cfx_config *config = NULL;
  const cfx_coherent_result *result = NULL;
  cfx_config_builder *builder = NULL;
  char *schema_json, *model_json, *json;
  double applicant[4] = {30000.0, -7.0, 1.0, 30.0};
  double age_weights[7] = {0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 4.0};

  if (argc != 3) {
    fprintf(stderr, "usage: %s schema.json model.json\n", argv[0]);
    return 2;
  }
  schema_json = read_file(argv[1]);
  model_json = read_file(argv[2]);
  CHECK(cfx_schema_from_json(schema_json, &schema));
  CHECK(cfx_model_from_json(schema, model_json, &model));

  printf("optimal:\n");
  CHECK(cfx_coherent_explain(schema, model, NULL, applicant, 4, &result));
  print_result(result);
  GET_STRING(json, cfx_coherent_result_to_json, result);
  printf("json kind coherent: %s\n", strstr(json, "\"kind\": \"coherent\"") ? "yes" : "no");
  free(json);
  cfx_coherent_result_free(result);

  printf("diverse (3, distinct feature subsets):\n");
  CHECK(cfx_config_builder_new(&builder));
  CHECK(cfx_config_builder_set_n_diverse(builder, 3));
  CHECK(cfx_config_builder_set_diversity_rule(builder, CFX_DIVERSITY_RULE_DISTINCT_SUBSETS));
  CHECK(cfx_config_build(builder, &config));
  CHECK(cfx_coherent_explain_diverse(schema, model, config, applicant, 4, &result));
  print_result(result);
  cfx_coherent_result_free(result);

  printf("only the immutable age matters:\n");
  CHECK(cfx_model_linear_new(age_weights, 7, -3.0, 0.5, &age_only));
  CHECK(cfx_coherent_explain(schema, age_only, config, applicant, 4, &result));
  print_result(result);
  cfx_coherent_result_free(result);

  printf("an NaN row is refused: %s\n",
         cfx_status_str(cfx_coherent_explain(schema, model, NULL, (double[]){NAN, -7.0, 1.0, 30.0}, 4, &result)));

  cfx_config_free(config);
  cfx_model_free(age_only);
  cfx_model_free(model);
  cfx_schema_free(schema);
  free(schema_json);
  free(model_json);
  return 0;
}
