/* The hand-written part of the .Call shim between R and the cfx C API
 * (include/cfx.h). The entry points of nearly every header function are
 * generated into shim_generated.c (bindings/gen/emit_r.py, `make bindings`),
 * with their prototypes and the handle kinds in shim.h and their registration
 * in init.c. This file holds what they share (shim_common.h: the error path,
 * handle objects, argument readers), the handle housekeeping entry points, and
 * the header functions kept by hand (bindings/gen/overrides_r.toml says why).
 *
 * Rules this file and the generated one keep:
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
#include "shim_common.h"

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


void cfxr_check(cfx_status st)
{
    if (st != CFX_STATUS_OK)
        cfx_fail(st);
}

/* --------------------------------------------------------------- handles */

/* Number of handles this shim has released, per kind (finalizer or explicit
 * free): lets the tests prove "exactly once". */
static double freed_count[CFXR_K_COUNT];

static void release(int k, void *addr)
{
    cfxr_release_kind(k, addr);
    freed_count[k] += 1;
    /* Trace for the tests that prove finalizers also run at session end. */
    if (getenv("CFX_R_TRACE_FREE") != NULL)
        REprintf("cfx: released a %s\n", cfxr_kind_tag[k]);
}

static int kind_of(SEXP p)
{
    if (TYPEOF(p) != EXTPTRSXP)
        return -1;
    SEXP tag = R_ExternalPtrTag(p);
    for (int k = 0; k < CFXR_K_COUNT; k++)
        if (tag == Rf_install(cfxr_kind_tag[k]))
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
    release(k, addr);
}

SEXP cfxr_new_handle(int k, SEXP prot)
{
    SEXP p = PROTECT(R_MakeExternalPtr(NULL, Rf_install(cfxr_kind_tag[k]), prot));
    R_RegisterCFinalizerEx(p, finalize_handle, TRUE);
    SEXP cls = PROTECT(Rf_allocVector(STRSXP, 2));
    SET_STRING_ELT(cls, 0, Rf_mkChar(cfxr_kind_tag[k]));
    SET_STRING_ELT(cls, 1, Rf_mkChar("cfx_handle"));
    Rf_setAttrib(p, R_ClassSymbol, cls);
    UNPROTECT(1);
    return p; /* still protected once */
}

void *cfxr_handle(SEXP p, int k, const char *what, int nullable)
{
    if (nullable && Rf_isNull(p))
        return NULL;
    if (TYPEOF(p) != EXTPTRSXP || R_ExternalPtrTag(p) != Rf_install(cfxr_kind_tag[k]))
        Rf_errorcall(R_NilValue, "cfx: '%s' must be a %s handle%s", what, cfxr_kind_tag[k],
                     nullable ? " or NULL" : "");
    void *a = R_ExternalPtrAddr(p);
    if (a == NULL)
        Rf_errorcall(R_NilValue, "cfx: '%s' (%s) has been freed", what, cfxr_kind_tag[k]);
    return a;
}

SEXP cfxr_prot_of(SEXP p)
{
    return TYPEOF(p) == EXTPTRSXP ? R_ExternalPtrProtected(p) : R_NilValue;
}

SEXP cfxr_free_kind(SEXP p, int k)
{
    if (Rf_isNull(p))
        return Rf_ScalarLogical(FALSE);
    if (TYPEOF(p) != EXTPTRSXP || R_ExternalPtrTag(p) != Rf_install(cfxr_kind_tag[k]))
        Rf_errorcall(R_NilValue, "cfx: not a %s handle", cfxr_kind_tag[k]);
    int had = R_ExternalPtrAddr(p) != NULL;
    finalize_handle(p);
    return Rf_ScalarLogical(had);
}

/* The R object a handle keeps alive (e.g. the schema of a result). */
SEXP C_handle_prot(SEXP p)
{
    if (kind_of(p) < 0)
        Rf_errorcall(R_NilValue, "cfx: not a cfx handle");
    return R_ExternalPtrProtected(p);
}

/* Every method family of the header in this package's cfx tree is compiled
 * in; C_families still tells R which families it has, for code written when
 * they were optional. */
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
    SEXP out = PROTECT(Rf_allocVector(REALSXP, CFXR_K_COUNT));
    SEXP nm = PROTECT(Rf_allocVector(STRSXP, CFXR_K_COUNT));
    for (int k = 0; k < CFXR_K_COUNT; k++) {
        REAL(out)[k] = freed_count[k];
        SET_STRING_ELT(nm, k, Rf_mkChar(cfxr_kind_tag[k] + 4)); /* drop "cfx_" */
    }
    Rf_setAttrib(out, R_NamesSymbol, nm);
    UNPROTECT(2);
    return out;
}

/* ------------------------------------------------------- argument readers */

const char *cfxr_str(SEXP s, const char *what, int nullable)
{
    if (nullable && (Rf_isNull(s) || (TYPEOF(s) == STRSXP && XLENGTH(s) == 1 &&
                                      STRING_ELT(s, 0) == NA_STRING)))
        return NULL;
    if (TYPEOF(s) != STRSXP || XLENGTH(s) != 1 || STRING_ELT(s, 0) == NA_STRING)
        Rf_errorcall(R_NilValue, "cfx: '%s' must be a single string", what);
    return Rf_translateCharUTF8(STRING_ELT(s, 0));
}

double cfxr_double(SEXP s, const char *what)
{
    if (!Rf_isNumeric(s) || XLENGTH(s) != 1)
        Rf_errorcall(R_NilValue, "cfx: '%s' must be a single number", what);
    return Rf_asReal(s);
}

/* A whole number in [lo, hi] (both within 2^53). */
static double whole(SEXP s, const char *what, double lo, double hi)
{
    double v = cfxr_double(s, what);
    if (!R_FINITE(v) || v != floor(v) || v < lo || v > hi) {
        if (lo == 0)
            Rf_errorcall(R_NilValue, "cfx: '%s' must be a whole number >= 0%s", what,
                         hi < 9007199254740992.0 ? " that fits its C type" : "");
        Rf_errorcall(R_NilValue, "cfx: '%s' must be a whole number that fits its C type", what);
    }
    return v;
}

size_t cfxr_size(SEXP s, const char *what)
{
    return (size_t)whole(s, what, 0, 9007199254740992.0);
}

uint32_t cfxr_u32(SEXP s, const char *what)
{
    return (uint32_t)whole(s, what, 0, 4294967295.0);
}

int64_t cfxr_i64(SEXP s, const char *what)
{
    return (int64_t)whole(s, what, -9007199254740992.0, 9007199254740992.0);
}

int32_t cfxr_i32(SEXP s, const char *what)
{
    if (TYPEOF(s) == INTSXP && XLENGTH(s) == 1 && INTEGER(s)[0] != NA_INTEGER)
        return (int32_t)INTEGER(s)[0];
    return (int32_t)whole(s, what, -2147483648.0, 2147483647.0);
}

int32_t cfxr_bool(SEXP s, const char *what)
{
    if (!Rf_isLogical(s) || XLENGTH(s) != 1 || LOGICAL(s)[0] == NA_LOGICAL)
        Rf_errorcall(R_NilValue, "cfx: '%s' must be TRUE or FALSE", what);
    return LOGICAL(s)[0] ? 1 : 0;
}

char cfxr_char(SEXP s, const char *what)
{
    const char *t = cfxr_str(s, what, 0);
    if (strlen(t) != 1 || (unsigned char)t[0] > 127)
        Rf_errorcall(R_NilValue, "cfx: '%s' must be one ASCII character", what);
    return t[0];
}

/* A 64-bit seed: a whole number up to 2^53, or a decimal string for any
 * unsigned 64-bit value (R has no unsigned 64-bit integers). */
uint64_t cfxr_u64(SEXP s, const char *what)
{
    if (TYPEOF(s) == STRSXP && XLENGTH(s) == 1 && STRING_ELT(s, 0) != NA_STRING) {
        const char *t = CHAR(STRING_ELT(s, 0));
        uint64_t v = 0;
        if (*t == '\0')
            Rf_errorcall(R_NilValue, "cfx: '%s' must not be empty", what);
        for (; *t; t++) {
            if (*t < '0' || *t > '9')
                Rf_errorcall(R_NilValue, "cfx: '%s' must be decimal digits", what);
            uint64_t d = (uint64_t)(*t - '0');
            if (v > (UINT64_MAX - d) / 10)
                Rf_errorcall(R_NilValue, "cfx: '%s' does not fit in 64 bits", what);
            v = v * 10 + d;
        }
        return v;
    }
    return (uint64_t)cfxr_size(s, what);
}

/* A double vector's data (NULL for length 0), refusing non-numeric input. */
const double *cfxr_doubles(SEXP s, const char *what, size_t *len)
{
    if (TYPEOF(s) != REALSXP)
        Rf_errorcall(R_NilValue, "cfx: '%s' must be a double vector", what);
    *len = (size_t)XLENGTH(s);
    return *len ? REAL(s) : NULL;
}

/* The bytes of a raw vector (RAWSXP, e.g. readBin(path, "raw", n) or a model
 * registry's download), read in place; NULL for an empty vector. */
const uint8_t *cfxr_bytes(SEXP s, const char *what, size_t *len)
{
    if (TYPEOF(s) != RAWSXP)
        Rf_errorcall(R_NilValue, "cfx: '%s' must be a raw vector", what);
    *len = (size_t)XLENGTH(s);
    return *len ? (const uint8_t *)RAW(s) : NULL;
}

/* Whole numbers (a double or integer vector) as size_t scratch. */
const size_t *cfxr_sizes(SEXP s, const char *what, size_t *len)
{
    if (TYPEOF(s) != REALSXP && TYPEOF(s) != INTSXP)
        Rf_errorcall(R_NilValue, "cfx: '%s' must be a numeric vector", what);
    *len = (size_t)XLENGTH(s);
    if (*len == 0)
        return NULL;
    size_t *out = (size_t *)R_alloc(*len, sizeof(size_t));
    for (size_t i = 0; i < *len; i++) {
        double v = TYPEOF(s) == REALSXP ? REAL(s)[i]
                   : INTEGER(s)[i] == NA_INTEGER ? NA_REAL : (double)INTEGER(s)[i];
        if (!R_FINITE(v) || v < 0 || v != floor(v) || v > 9007199254740992.0)
            Rf_errorcall(R_NilValue, "cfx: '%s' must hold whole numbers >= 0", what);
        out[i] = (size_t)v;
    }
    return out;
}

/* UTF-8 strings of a character vector (NA passes NULL, which the library
 * refuses where it needs a string); NULL for an empty vector. */
const char **cfxr_strs(SEXP v, const char *what, size_t *n)
{
    if (TYPEOF(v) != STRSXP)
        Rf_errorcall(R_NilValue, "cfx: '%s' must be a character vector", what);
    *n = (size_t)XLENGTH(v);
    if (*n == 0)
        return NULL;
    const char **out = (const char **)R_alloc(*n, sizeof(char *));
    for (size_t i = 0; i < *n; i++) {
        SEXP el = STRING_ELT(v, (R_xlen_t)i);
        out[i] = el == NA_STRING ? NULL : Rf_translateCharUTF8(el);
    }
    return out;
}

/* ------------------------------------------------------------ result helpers */

/* character(1) of a string the library wrote (out_len counts the NUL). */
SEXP cfxr_utf8(const char *buf, size_t out_len)
{
    SEXP ch = PROTECT(Rf_mkCharLenCE(buf, (int)(out_len > 0 ? out_len - 1 : 0), CE_UTF8));
    SEXP out = Rf_ScalarString(ch);
    UNPROTECT(1);
    return out;
}

/* character(1) of a library-owned string (NA for NULL). */
SEXP cfxr_cstr(const char *s)
{
    if (s == NULL)
        return Rf_ScalarString(NA_STRING);
    SEXP ch = PROTECT(Rf_mkCharCE(s, CE_UTF8));
    SEXP out = Rf_ScalarString(ch);
    UNPROTECT(1);
    return out;
}

void cfxr_set_names(SEXP x, int n, const char **names)
{
    SEXP nm = PROTECT(Rf_allocVector(STRSXP, n));
    for (int i = 0; i < n; i++)
        SET_STRING_ELT(nm, i, Rf_mkChar(names[i]));
    Rf_setAttrib(x, R_NamesSymbol, nm);
    UNPROTECT(1);
}

/* The width of a row-counted input array of a model (its input_dim). */
size_t cfxr_model_input_dim(const cfx_model *m)
{
    size_t d = 0;
    cfxr_check(cfx_model_input_dim(m, &d));
    return d;
}

/* ------------------------------------------------------ version and errors */

SEXP C_version(void)
{
    const char *names[] = {"version", "major", "minor", "patch", "abi",
                           "header_abi", "header_version", "testing"};
    SEXP out = PROTECT(Rf_allocVector(VECSXP, 8));
    SET_VECTOR_ELT(out, 0, Rf_mkString(cfx_version_string()));
    SET_VECTOR_ELT(out, 1, Rf_ScalarInteger((int)cfx_version_major()));
    SET_VECTOR_ELT(out, 2, Rf_ScalarInteger((int)cfx_version_minor()));
    SET_VECTOR_ELT(out, 3, Rf_ScalarInteger((int)cfx_version_patch()));
    SET_VECTOR_ELT(out, 4, Rf_ScalarInteger((int)cfx_abi_version()));
    SET_VECTOR_ELT(out, 5, Rf_ScalarInteger(CFX_ABI_VERSION));
    SET_VECTOR_ELT(out, 6, Rf_mkString(CFX_VERSION_STRING));
    SET_VECTOR_ELT(out, 7, Rf_ScalarLogical(cfx_testing_panic != NULL));
    cfxr_set_names(out, 8, names);
    UNPROTECT(1);
    return out;
}

/* Kept by hand: the buffer has no out_len; its length is cfx_last_error_length(). */
SEXP C_cfx_last_error_message(void)
{
    size_t need = cfx_last_error_length();
    if (need == 0)
        return Rf_mkString("");
    char *buf = R_alloc(need, 1);
    if (cfx_last_error_message(buf, need) != CFX_STATUS_OK)
        return Rf_mkString("");
    return cfxr_utf8(buf, need);
}

/* Kept by hand: a weak reference, NULL in a production library. */
SEXP C_cfx_testing_panic(void)
{
    if (cfx_testing_panic == NULL)
        Rf_errorcall(R_NilValue, "cfx: this libcfx was built without the 'testing' feature");
    cfxr_check(cfx_testing_panic());
    return R_NilValue;
}

/* ------------------------------------------------- sequential (P-DQN RL) */

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

/* Kept by hand: the progress callback (overrides_r.toml). Arguments as the
 * uniform rules give them; the result is the policy handle. */
SEXP C_cfx_policy_train(SEXP train, SEXP model, SEXP config, SEXP reward, SEXP progress)
{
    const cfx_dataset *d = (const cfx_dataset *)cfxr_handle(train, CFXR_K_DATASET, "train", 0);
    const cfx_model *m = (const cfx_model *)cfxr_handle(model, CFXR_K_MODEL, "model", 0);
    const cfx_config *c = (const cfx_config *)cfxr_handle(config, CFXR_K_CONFIG, "config", 1);
    int32_t rw = cfxr_i32(reward, "reward");
    if (!Rf_isNull(progress) && !Rf_isFunction(progress))
        Rf_errorcall(R_NilValue, "cfx: 'progress' must be a function or NULL");
    struct progress_ctx *ctx = (struct progress_ctx *)R_alloc(1, sizeof(struct progress_ctx));
    memset(ctx, 0, sizeof *ctx);
    ctx->fun = progress;
    SEXP h = cfxr_new_handle(CFXR_K_POLICY, R_NilValue);
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
    cfxr_check(st);
    R_SetExternalPtrAddr(h, (void *)pol);
    UNPROTECT(1);
    return h;
}

/* ------------------------------------------------------------- portfolio */

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

/* Kept by hand: the progress callback (overrides_r.toml). Arguments as the
 * uniform rules give them; the result is c(rows, accepted, declined,
 * with_recourse, errors) of the finished run. */
SEXP C_cfx_portfolio_explain(SEXP schema, SEXP model, SEXP config, SEXP input, SEXP output,
                             SEXP ignore, SEXP threads, SEXP progress)
{
    const cfx_schema *s = (const cfx_schema *)cfxr_handle(schema, CFXR_K_SCHEMA, "schema", 0);
    const cfx_model *m = (const cfx_model *)cfxr_handle(model, CFXR_K_MODEL, "model", 0);
    const cfx_config *c = (const cfx_config *)cfxr_handle(config, CFXR_K_CONFIG, "config", 1);
    const char *in = cfxr_str(input, "input", 0);
    const char *out = cfxr_str(output, "output", 0);
    size_t n = 0;
    const char **names = cfxr_strs(ignore, "ignore_columns", &n);
    size_t t = cfxr_size(threads, "threads");
    if (!Rf_isNull(progress) && !Rf_isFunction(progress))
        Rf_errorcall(R_NilValue, "cfx: 'progress' must be a function or NULL");
    struct portfolio_ctx *ctx = (struct portfolio_ctx *)R_alloc(1, sizeof(struct portfolio_ctx));
    memset(ctx, 0, sizeof *ctx);
    ctx->fun = progress;
    SEXP res = PROTECT(Rf_allocVector(REALSXP, 5));
    cfx_portfolio_counts k = {0, 0, 0, 0, 0};
    cfx_status st = cfx_portfolio_explain(s, m, c, in, out, names, n, t,
                                          Rf_isNull(progress) ? NULL : portfolio_cb, ctx, &k);
    if (ctx->failed) {
        char msg[1100];
        snprintf(msg, sizeof msg, "cfx: the portfolio run stopped because the progress function failed: %s",
                 ctx->msg);
        Rf_errorcall(R_NilValue, "%s", msg);
    }
    cfxr_check(st);
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
