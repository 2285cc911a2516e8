/* Helpers shared by the cfx C examples: fail loudly on an unexpected status. */
#ifndef CFX_EXAMPLES_COMMON_H
#define CFX_EXAMPLES_COMMON_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cfx.h"

/* The last error message of this thread, copied into a static buffer. */
static inline const char *last_error(void) {
  static char msg[1024];
  size_t need = cfx_last_error_length();
  if (need == 0) return "";
  if (need > sizeof msg || cfx_last_error_message(msg, sizeof msg) != CFX_STATUS_OK)
    return "(message too long)";
  return msg;
}

/* Runs a call that must succeed; on failure prints the status and message and exits. */
#define CHECK(call)                                                                      \
  do {                                                                                   \
    cfx_status check_status_ = (call);                                                   \
    if (check_status_ != CFX_STATUS_OK) {                                                \
      fprintf(stderr, "%s:%d: %s failed: %s: %s\n", __FILE__, __LINE__, #call,          \
              cfx_status_str(check_status_), last_error());                              \
      exit(1);                                                                           \
    }                                                                                    \
  } while (0)

/* Reads a whole text file into a malloc'ed NUL-terminated string. */
static inline char *read_file(const char *path) {
  FILE *f = fopen(path, "rb");
  long n;
  char *buf;
  if (!f) {
    fprintf(stderr, "cannot open %s\n", path);
    exit(1);
  }
  fseek(f, 0, SEEK_END);
  n = ftell(f);
  fseek(f, 0, SEEK_SET);
  buf = (char *)malloc((size_t)n + 1);
  if (!buf || fread(buf, 1, (size_t)n, f) != (size_t)n) {
    fprintf(stderr, "cannot read %s\n", path);
    exit(1);
  }
  buf[n] = '\0';
  fclose(f);
  return buf;
}

/* Copies a string result with the size-query protocol into a malloc'ed buffer. */
#define GET_STRING(out_ptr, fn, ...)                                                     \
  do {                                                                                   \
    size_t need_ = 0;                                                                    \
    cfx_status st_ = fn(__VA_ARGS__, NULL, 0, &need_);                                   \
    if (st_ != CFX_STATUS_BUFFER_TOO_SMALL) {                                            \
      fprintf(stderr, "%s size query: %s\n", #fn, cfx_status_str(st_));                 \
      exit(1);                                                                           \
    }                                                                                    \
    (out_ptr) = (char *)malloc(need_);                                                   \
    CHECK(fn(__VA_ARGS__, (out_ptr), need_, &need_));                                    \
  } while (0)

#endif
