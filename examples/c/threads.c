/* Eight threads share one schema and one model handle (immutable handles are
 * thread-safe): each encodes and scores applicants concurrently, provokes an
 * error of its own and reads its own last-error message, and the last thread
 * to finish frees nothing: the main thread frees the shared handles once.
 * Usage: threads <schema.json> <model.json> */
#include "common.h"

#include <pthread.h>

#define N_THREADS 8
#define N_ROUNDS 2000

static const cfx_schema *schema;
static const cfx_model *model;
static double reference[N_ROUNDS];

struct job {
  int id;
  int mismatches;
  int error_ok;
};

static double income(int round) { return 1000.0 * (double)(round % 100); }

static void *work(void *arg) {
  struct job *job = (struct job *)arg;
  int r;
  for (r = 0; r < N_ROUNDS; r++) {
    double raw[4], x[7], p = 0.0;
    size_t n = 0;
    char msg[256];
    char name[16];
    raw[0] = income(r);
    raw[1] = (double)(r % 2 == 0 ? -7 : r % 120);
    raw[2] = (double)(r % 3);
    raw[3] = 18.0 + (double)(r % 70);
    if (cfx_schema_encode(schema, raw, 4, x, 7, &n) != CFX_STATUS_OK ||
        cfx_model_predict(model, x, n, NULL, &p, NULL) != CFX_STATUS_OK || p != reference[r])
      job->mismatches++;
    if (r % 100 == job->id) {
      /* each thread's own error: a name only this thread asks for */
      sprintf(name, "nope%d", job->id);
      if (cfx_schema_index_of(schema, name, &n) == CFX_STATUS_NOT_FOUND &&
          cfx_last_error_message(msg, sizeof msg) == CFX_STATUS_OK && strstr(msg, name) != NULL)
        job->error_ok++;
    }
  }
  return NULL;
}

int main(int argc, char **argv) {
  pthread_t threads[N_THREADS];
  struct job jobs[N_THREADS];
  char *schema_json, *model_json;
  int i, r, mismatches = 0, errors_ok = 0;

  if (argc != 3) return 2;
  schema_json = read_file(argv[1]);
  model_json = read_file(argv[2]);
  CHECK(cfx_schema_from_json(schema_json, &schema));
  CHECK(cfx_model_from_json(schema, model_json, &model));
  for (r = 0; r < N_ROUNDS; r++) {
    double raw[4];
    raw[0] = income(r);
    raw[1] = (double)(r % 2 == 0 ? -7 : r % 120);
    raw[2] = (double)(r % 3);
    raw[3] = 18.0 + (double)(r % 70);
    CHECK(cfx_model_predict_raw(model, schema, raw, 4, NULL, &reference[r], NULL));
  }
  for (i = 0; i < N_THREADS; i++) {
    jobs[i].id = i;
    jobs[i].mismatches = 0;
    jobs[i].error_ok = 0;
    if (pthread_create(&threads[i], NULL, work, &jobs[i]) != 0) return 1;
  }
  for (i = 0; i < N_THREADS; i++) {
    pthread_join(threads[i], NULL);
    mismatches += jobs[i].mismatches;
    errors_ok += jobs[i].error_ok;
  }
  printf("%d threads x %d rounds: %d mismatches, %d/%d own error messages\n", N_THREADS, N_ROUNDS,
         mismatches, errors_ok, N_THREADS * (N_ROUNDS / 100));
  cfx_model_free(model);
  cfx_schema_free(schema);
  free(schema_json);
  free(model_json);
  return mismatches == 0 && errors_ok == N_THREADS * (N_ROUNDS / 100) ? 0 : 1;
}
