/* The last-error slot across thread teardown (see src/ffi/error.rs):
 * - a thread that fails a call reads its own message before it exits, and
 *   the main thread's message is its own before and after;
 * - calls made while a thread is being torn down (from a pthread_key
 *   destructor, which glibc runs after the thread's thread-local
 *   destructors) return their status, do not crash, and still record and
 *   report their message: the slot has no destructor to have run;
 * - the same from a thread whose first cfx call happens in that destructor;
 * - under valgrind no byte leaks (tests/c_abi.rs runs it there).
 * Usage: thread_teardown <schema.json> <model.json> */
#include "common.h"

#include <pthread.h>

static const cfx_schema *schema;
static pthread_key_t key;

struct report {
  int before_exit_ok;         /* message read by the failing thread itself */
  cfx_status late_status;     /* a failing call from the key destructor */
  size_t late_length;         /* cfx_last_error_length() right after it */
  cfx_status late_copy;       /* cfx_last_error_message() right after it */
  char late_message[256];
  cfx_status late_ok_status;  /* a succeeding call from the key destructor */
};

static struct report reports[2];
static int failures = 0;

static void at_teardown(void *arg) {
  struct report *r = (struct report *)arg;
  size_t index = 0;
  r->late_status = cfx_schema_index_of(schema, "late", &index);
  r->late_length = cfx_last_error_length();
  r->late_copy = cfx_last_error_message(r->late_message, sizeof r->late_message);
  r->late_ok_status = cfx_schema_index_of(schema, "age", &index);
}

/* Fails a call, reads its message, then exits (the key destructor runs). */
static void *fail_and_exit(void *arg) {
  struct report *r = (struct report *)arg;
  size_t index = 0;
  char msg[256];
  pthread_setspecific(key, r);
  r->before_exit_ok = cfx_schema_index_of(schema, "early", &index) == CFX_STATUS_NOT_FOUND &&
                      cfx_last_error_length() > 0 &&
                      cfx_last_error_message(msg, sizeof msg) == CFX_STATUS_OK &&
                      strstr(msg, "early") != NULL;
  return NULL;
}

/* Makes no cfx call before the key destructor. */
static void *exit_at_once(void *arg) {
  pthread_setspecific(key, arg);
  return NULL;
}

static void print_late(const char *who, const struct report *r) {
  int ok = r->late_status == CFX_STATUS_NOT_FOUND && r->late_length > 0 &&
           r->late_copy == CFX_STATUS_OK && strstr(r->late_message, "'late'") != NULL &&
           r->late_ok_status == CFX_STATUS_OK;
  printf("%s %s: a failing call during teardown gives %s and its message: %s; then %s\n",
         ok ? "PASS" : "FAIL", who, cfx_status_str(r->late_status), r->late_message,
         cfx_status_str(r->late_ok_status));
  if (!ok) failures++;
}

int main(int argc, char **argv) {
  char *schema_json;
  pthread_t t;
  size_t index = 0;
  int i, main_ok;

  if (argc != 3) return 2;
  schema_json = read_file(argv[1]);
  CHECK(cfx_schema_from_json(schema_json, &schema));
  if (pthread_key_create(&key, at_teardown) != 0) return 1;
  memset(reports, 0, sizeof reports);
  for (i = 0; i < 2; i++) reports[i].late_message[0] = 'x'; /* must be overwritten */

  /* the main thread's own error, which the threads must not touch */
  cfx_schema_index_of(schema, "main", &index);

  if (pthread_create(&t, NULL, fail_and_exit, &reports[0]) != 0) return 1;
  pthread_join(t, NULL);
  printf("%s failing thread read its own message before exiting\n",
         reports[0].before_exit_ok ? "PASS" : "FAIL");
  print_late("failing thread", &reports[0]);

  if (pthread_create(&t, NULL, exit_at_once, &reports[1]) != 0) return 1;
  pthread_join(t, NULL);
  print_late("fresh thread", &reports[1]);

  main_ok = strstr(last_error(), "main") != NULL;
  printf("%s the main thread's message is its own\n", main_ok ? "PASS" : "FAIL");

  pthread_key_delete(key);
  cfx_schema_free(schema);
  free(schema_json);
  if (!reports[0].before_exit_ok || !main_ok) failures++;
  printf("%d failures\n", failures);
  return failures == 0 ? 0 : 1;
}
