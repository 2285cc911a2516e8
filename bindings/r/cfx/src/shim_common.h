/* What the hand-written shim.c gives the generated shim_generated.c (and
 * itself): the error path, handle objects and the argument readers. The rules
 * they keep are stated at the top of shim.c. */
#ifndef CFX_R_SHIM_COMMON_H
#define CFX_R_SHIM_COMMON_H
#include <stdint.h>
#include <stddef.h>
#include <Rinternals.h>
#include "cfx.h"

/* Elements (numbers) or bytes (strings) of the first buffer of a
 * caller-buffer call, on the C stack; a longer result is fetched again into
 * R_alloc scratch with the length the library asked for (the old shim always
 * called twice). */
#define CFXR_FIRST_CAP 512
#define CFXR_FIRST_CAP_CHAR 8192

/* Raises the R error of a non-OK status (only ever after the cfx call returned). */
void cfxr_check(cfx_status st);

/* A new, still empty, handle object of kind k: tagged, classed, with its
 * finalizer, keeping `prot` alive. Returned PROTECTed once. */
SEXP cfxr_new_handle(int k, SEXP prot);
/* The address of a live handle of kind k (R NULL gives NULL when nullable). */
void *cfxr_handle(SEXP p, int k, const char *what, int nullable);
/* What a handle keeps alive (R NULL for anything else). */
SEXP cfxr_prot_of(SEXP p);
/* Frees a handle of kind k now (once); TRUE when it was live. */
SEXP cfxr_free_kind(SEXP p, int k);

const char *cfxr_str(SEXP s, const char *what, int nullable);
double cfxr_double(SEXP s, const char *what);
size_t cfxr_size(SEXP s, const char *what);
uint32_t cfxr_u32(SEXP s, const char *what);
int64_t cfxr_i64(SEXP s, const char *what);
uint64_t cfxr_u64(SEXP s, const char *what);
int32_t cfxr_i32(SEXP s, const char *what);
int32_t cfxr_bool(SEXP s, const char *what);
char cfxr_char(SEXP s, const char *what);
const double *cfxr_doubles(SEXP s, const char *what, size_t *len);
const size_t *cfxr_sizes(SEXP s, const char *what, size_t *len);
const uint8_t *cfxr_bytes(SEXP s, const char *what, size_t *len);
const char **cfxr_strs(SEXP v, const char *what, size_t *n);

SEXP cfxr_utf8(const char *buf, size_t out_len);
SEXP cfxr_cstr(const char *s);
void cfxr_set_names(SEXP x, int n, const char **names);
size_t cfxr_model_input_dim(const cfx_model *m);

#endif
