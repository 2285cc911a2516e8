/* Sequential counterfactuals from C (Panagiotou & Ntoutsi 2023): train a small P-DQN policy on
 * the bundled German credit data with a progress callback, show that the
 * callback can cancel training, answer one declined applicant with a plan of
 * steps, round-trip the policy through JSON, and evaluate it on the hold-out
 * part. */
#include "common.h"

struct progress_log {
  int calls;
  size_t last_done;
  size_t total;
  int cancel_after;
};

static bool on_progress(const cfx_progress *p, void *user_data) {
  struct progress_log *log = (struct progress_log *)user_data;
  log->calls++;
  log->last_done = p->episodes_done;
  log->total = p->episodes_total;
  return log->cancel_after == 0 || log->calls < log->cancel_after;
}

int main(void) {
  const cfx_dataset *data = NULL, *train = NULL, *test = NULL;
  const cfx_schema *schema = NULL;
  const cfx_model *model = NULL;
  cfx_config_builder *builder = NULL;
  const cfx_config *config = NULL;
  const cfx_policy *policy = NULL, *copy = NULL, *none = NULL;
  const cfx_plan *plan = NULL, *plan2 = NULL;
  struct progress_log log = {0, 0, 0, 0}, stop = {0, 0, 0, 1};
  size_t hidden[1] = {32}, n_test = 0, n = 0, i, k, n_steps = 0, n_steps2 = 0, n_actions = 0;
  double raw[64], p = 0.0;
  int accepted = 1, success = 0, same = 1;
  char *json, *text;
  cfx_status st;
  cfx_sequential_metrics m;

  CHECK(cfx_dataset_load_german(NULL, &data));
  CHECK(cfx_dataset_holdout_split(data, &train, &test));
  CHECK(cfx_dataset_schema(data, &schema));
  CHECK(cfx_model_fit_linear(train, 1.0, &model));

  CHECK(cfx_config_builder_new(&builder));
  CHECK(cfx_config_builder_set_rl_episodes(builder, 300, 18));
  CHECK(cfx_config_builder_set_rl_training(builder, 0.8, 1e-3, 1e-3, 32, 500));
  CHECK(cfx_config_builder_set_rl_hidden(builder, hidden, 1));
  CHECK(cfx_config_builder_set_seed(builder, 7));
  CHECK(cfx_config_build(builder, &config));

  CHECK(cfx_policy_train(train, model, config, CFX_REWARD_KIND_PROBABILITY, on_progress, &log, &policy));
  CHECK(cfx_policy_n_actions(policy, &n_actions));
  printf("trained: %zu actions, %d progress reports, last at %zu/%zu episodes\n", n_actions,
         log.calls, log.last_done, log.total);

  st = cfx_policy_train(train, model, config, CFX_REWARD_KIND_BINARY, on_progress, &stop, &none);
  printf("callback returning false: %s after %d report, policy %s\n", cfx_status_str(st), stop.calls,
         none == NULL ? "not written" : "WRITTEN");

  /* The first declined applicant of the hold-out part. */
  CHECK(cfx_dataset_n_rows(test, &n_test));
  for (i = 0; i < n_test && accepted; i++) {
    CHECK(cfx_dataset_row(test, i, raw, 64, &n));
    CHECK(cfx_model_predict_raw(model, schema, raw, n, NULL, &p, &accepted));
  }
  printf("applicant %zu: probability %.3f, declined\n", i - 1, p);
  CHECK(cfx_policy_answer(policy, schema, model, raw, n, &plan));
  CHECK(cfx_plan_n_steps(plan, &n_steps));
  CHECK(cfx_plan_success(plan, &success, NULL));
  for (k = 0; k < n_steps; k++) {
    double after = 0.0;
    GET_STRING(text, cfx_plan_step_text, plan, k);
    CHECK(cfx_plan_step(plan, k, NULL, NULL, NULL, &after));
    printf("  step %zu: %s (probability %.3f)\n", k + 1, text, after);
    free(text);
  }
  printf("plan %s\n", success ? "reaches acceptance" : "finds no counterfactual");
  st = cfx_plan_step(plan, n_steps, NULL, NULL, NULL, NULL);
  printf("step past the end: %s\n", cfx_status_str(st));

  /* JSON round trip: the copy gives the same plan, bit for bit. */
  GET_STRING(json, cfx_policy_to_json, policy);
  CHECK(cfx_policy_from_json(json, &copy));
  CHECK(cfx_policy_answer(copy, schema, model, raw, n, &plan2));
  CHECK(cfx_plan_n_steps(plan2, &n_steps2));
  same = n_steps == n_steps2;
  for (k = 0; same && k < n_steps; k++) {
    double a = 0.0, b = 0.0;
    CHECK(cfx_plan_step(plan, k, NULL, NULL, &a, NULL));
    CHECK(cfx_plan_step(plan2, k, NULL, NULL, &b, NULL));
    same = a == b;
  }
  printf("policy JSON round trip: %s\n", same ? "identical plan" : "DIFFERENT");
  free(json);
  GET_STRING(json, cfx_plan_to_json, plan);
  printf("plan JSON is a cfx-result: %s\n", strstr(json, "\"sequential_plan\"") ? "yes" : "no");
  free(json);

  CHECK(cfx_policy_evaluate(policy, model, test, &m));
  printf("hold-out: %zu declined, satisfiability %.3f, entropy in [0, 1]: %s\n", m.n_instances,
         m.satisfiability, m.entropy >= 0.0 && m.entropy <= 1.0 ? "yes" : "no");

  cfx_plan_free(plan2);
  cfx_plan_free(plan);
  cfx_policy_free(copy);
  cfx_policy_free(policy);
  cfx_config_free(config);
  cfx_model_free(model);
  cfx_schema_free(schema);
  cfx_dataset_free(test);
  cfx_dataset_free(train);
  cfx_dataset_free(data);
  return 0;
}
