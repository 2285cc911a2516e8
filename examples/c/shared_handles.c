/* Eight threads share one schema, model, configuration, uncertainty and
 * policy handle and run coherent, COPA and policy calls at the same time
 * (German credit). Every thread's answers must equal the answers computed
 * on one thread beforehand, byte for byte: the result JSON of the diverse
 * coherent explanation, of the COPA plan and of the policy's plan, and the
 * COPA bounds of a fixed plan. */
#include "common.h"

#include <pthread.h>

#define N_THREADS 8
#define N_APPLICANTS 2

static const cfx_schema *schema;
static const cfx_model *model;
static const cfx_config *config;
static const cfx_uncertainty *uncertainty;
static const cfx_policy *policy;
static double applicants[N_APPLICANTS][64];
static size_t n_features;

/* One applicant's answers as text: three JSON documents and the bounds. */
struct answers {
  char *coherent;
  char *copa;
  char *plan;
  double bounds[2];
};

static struct answers reference[N_APPLICANTS];

/* A fixed two-option plan in the encoded space (no intercept): the first two
 * declined applicants' encodings. */
static double options[2 * 64];
static size_t dim;

/* Computes every answer for applicant `a`; returns the number of failed calls. */
static int answer(int a, struct answers *out) {
  const cfx_coherent_result *c = NULL;
  const cfx_copa_result *p = NULL;
  const cfx_plan *plan = NULL;
  size_t need = 0;
  int failed = 0;
  out->coherent = out->copa = out->plan = NULL;
  if (cfx_coherent_explain_diverse(schema, model, config, applicants[a], n_features, &c) ==
          CFX_STATUS_OK &&
      cfx_coherent_result_to_json(c, NULL, 0, &need) == CFX_STATUS_BUFFER_TOO_SMALL) {
    out->coherent = (char *)malloc(need);
    failed += cfx_coherent_result_to_json(c, out->coherent, need, &need) != CFX_STATUS_OK;
  } else
    failed++;
  cfx_coherent_result_free(c);
  if (cfx_copa_plan_new(schema, uncertainty, config, applicants[a], n_features, &p) ==
          CFX_STATUS_OK &&
      cfx_copa_result_to_json(p, NULL, 0, &need) == CFX_STATUS_BUFFER_TOO_SMALL) {
    out->copa = (char *)malloc(need);
    failed += cfx_copa_result_to_json(p, out->copa, need, &need) != CFX_STATUS_OK;
  } else
    failed++;
  cfx_copa_result_free(p);
  if (cfx_policy_answer(policy, schema, model, applicants[a], n_features, &plan) ==
          CFX_STATUS_OK &&
      cfx_plan_to_json(plan, NULL, 0, &need) == CFX_STATUS_BUFFER_TOO_SMALL) {
    out->plan = (char *)malloc(need);
    failed += cfx_plan_to_json(plan, out->plan, need, &need) != CFX_STATUS_OK;
  } else
    failed++;
  cfx_plan_free(plan);
  failed += cfx_copa_bounds(uncertainty, options, 2, dim, 0.05 * (double)(a + 1), &out->bounds[0],
                            &out->bounds[1], NULL, NULL) != CFX_STATUS_OK;
  return failed;
}

static void release(struct answers *x) {
  free(x->coherent);
  free(x->copa);
  free(x->plan);
}

static int same_text(const char *a, const char *b) { return a && b && strcmp(a, b) == 0; }

/* Mismatches per kind of answer: coherent, COPA plan, policy plan, bounds. */
#define N_KINDS 4

struct job {
  int id;
  int failed;
  int mismatches[N_KINDS];
};

static void *work(void *arg) {
  struct job *job = (struct job *)arg;
  int k;
  for (k = 0; k < N_APPLICANTS; k++) {
    /* threads start on different applicants, so different calls overlap */
    int a = (job->id + k) % N_APPLICANTS;
    struct answers got;
    job->failed += answer(a, &got);
    job->mismatches[0] += !same_text(got.coherent, reference[a].coherent);
    job->mismatches[1] += !same_text(got.copa, reference[a].copa);
    job->mismatches[2] += !same_text(got.plan, reference[a].plan);
    job->mismatches[3] += got.bounds[0] != reference[a].bounds[0] || got.bounds[1] != reference[a].bounds[1];
    release(&got);
  }
  return NULL;
}

int main(void) {
  const cfx_dataset *data = NULL, *train = NULL, *test = NULL;
  cfx_config_builder *builder = NULL;
  pthread_t threads[N_THREADS];
  struct job jobs[N_THREADS];
  size_t hidden[1] = {16}, n_test = 0, i, n = 0, found = 0;
  int a, j, failed = 0, mismatches[N_KINDS] = {0, 0, 0, 0};
  int32_t accepted = 0;
  double p = 0.0;

  CHECK(cfx_dataset_load_german(NULL, &data));
  CHECK(cfx_dataset_holdout_split(data, &train, &test));
  CHECK(cfx_dataset_schema(data, &schema));
  CHECK(cfx_schema_n_features(schema, &n_features));
  CHECK(cfx_schema_encoded_dim(schema, &dim));
  CHECK(cfx_model_fit_linear(train, 1.0, &model));
  CHECK(cfx_uncertainty_from_dataset(train, 10, 1, &uncertainty));
  CHECK(cfx_config_builder_new(&builder));
  /* A wall-clock limit would make the answers depend on the machine's load
   * (valgrind runs the eight threads one at a time, each ~50x slower). */
  CHECK(cfx_config_builder_set_time_limit(builder, 1e5));
  CHECK(cfx_config_builder_set_n_diverse(builder, 3));
  CHECK(cfx_config_builder_set_seed(builder, 7));
  CHECK(cfx_config_builder_set_rl_episodes(builder, 60, 18));
  CHECK(cfx_config_builder_set_rl_training(builder, 0.8, 1e-3, 1e-3, 16, 100));
  CHECK(cfx_config_builder_set_rl_hidden(builder, hidden, 1));
  CHECK(cfx_config_build(builder, &config));
  CHECK(cfx_policy_train(train, model, config, CFX_REWARD_KIND_PROBABILITY, NULL, NULL, &policy));

  /* the first declined applicants of the hold-out part */
  CHECK(cfx_dataset_n_rows(test, &n_test));
  for (i = 0; i < n_test && found < N_APPLICANTS; i++) {
    double x[64];
    size_t len = 0;
    CHECK(cfx_dataset_row(test, i, applicants[found], 64, &n));
    CHECK(cfx_model_predict_raw(model, schema, applicants[found], n, NULL, &p, &accepted));
    if (accepted) continue;
    CHECK(cfx_schema_encode(schema, applicants[found], n, x, 64, &len));
    memcpy(options + found * dim, x, dim * sizeof(double));
    found++;
  }
  if (found < N_APPLICANTS) return 1;

  for (a = 0; a < N_APPLICANTS; a++) failed += answer(a, &reference[a]);
  for (i = 0; i < N_THREADS; i++) {
    jobs[i].id = (int)i;
    jobs[i].failed = 0;
    for (j = 0; j < N_KINDS; j++) jobs[i].mismatches[j] = 0;
    if (pthread_create(&threads[i], NULL, work, &jobs[i]) != 0) return 1;
  }
  for (i = 0; i < N_THREADS; i++) {
    pthread_join(threads[i], NULL);
    failed += jobs[i].failed;
    for (j = 0; j < N_KINDS; j++) mismatches[j] += jobs[i].mismatches[j];
  }
  printf("%d threads x %d applicants: %d failed calls; answers that differ from one thread's: "
         "coherent %d, COPA plan %d, policy plan %d, COPA bounds %d\n",
         N_THREADS, N_APPLICANTS, failed, mismatches[0], mismatches[1], mismatches[2],
         mismatches[3]);

  for (a = 0; a < N_APPLICANTS; a++) release(&reference[a]);
  cfx_policy_free(policy);
  cfx_config_free(config);
  cfx_uncertainty_free(uncertainty);
  cfx_model_free(model);
  cfx_schema_free(schema);
  cfx_dataset_free(test);
  cfx_dataset_free(train);
  cfx_dataset_free(data);
  for (j = 0; j < N_KINDS; j++) failed += mismatches[j];
  return failed == 0 ? 0 : 1;
}
