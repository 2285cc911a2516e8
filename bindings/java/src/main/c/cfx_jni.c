/* JNI shim over include/cfx.h for the org.cfx Java classes.
 *
 * Rules (ffi-style.md §2.10):
 * - Handles travel as jlong; the Java side owns them (AutoCloseable + Cleaner)
 *   and only ever passes live, non-zero handles (it checks before calling).
 * - Every non-OK status becomes an org.cfx.CfxException thrown from here,
 *   built from the status number, cfx_status_str() and the last-error message
 *   read on this same thread right after the failed call.
 * - Hot paths (predict, batch probabilities, encode/decode) pin the Java
 *   arrays with Get/ReleasePrimitiveArrayCritical: no copy, and no JNI call
 *   between Get and Release (errors are thrown after the release).
 * - Strings cross as UTF-8 byte[] (NUL-terminated on the way in), never as
 *   JNI "modified UTF-8", so every character survives the round trip.
 */
#include <jni.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "cfx.h"

static jclass g_exception_class;     /* org.cfx.CfxException (global ref) */
static jmethodID g_exception_ctor;   /* (ILjava/lang/String;[B)V */

JNIEXPORT jint JNICALL JNI_OnLoad(JavaVM *vm, void *reserved) {
    (void)reserved;
    JNIEnv *env;
    if ((*vm)->GetEnv(vm, (void **)&env, JNI_VERSION_1_8) != JNI_OK) return JNI_ERR;
    jclass local = (*env)->FindClass(env, "org/cfx/CfxException");
    if (local == NULL) return JNI_ERR;
    g_exception_class = (jclass)(*env)->NewGlobalRef(env, local);
    (*env)->DeleteLocalRef(env, local);
    if (g_exception_class == NULL) return JNI_ERR;
    g_exception_ctor =
        (*env)->GetMethodID(env, g_exception_class, "<init>", "(ILjava/lang/String;[B)V");
    if (g_exception_ctor == NULL) return JNI_ERR;
    return JNI_VERSION_1_8;
}

JNIEXPORT void JNICALL JNI_OnUnload(JavaVM *vm, void *reserved) {
    (void)reserved;
    JNIEnv *env;
    if ((*vm)->GetEnv(vm, (void **)&env, JNI_VERSION_1_8) == JNI_OK && g_exception_class)
        (*env)->DeleteGlobalRef(env, g_exception_class);
}

static void throw_named(JNIEnv *env, const char *cls, const char *msg) {
    jclass c = (*env)->FindClass(env, cls);
    if (c != NULL) (*env)->ThrowNew(env, c, msg);
}

static jbyteArray bytes_out(JNIEnv *env, const char *s, size_t n) {
    jbyteArray a = (*env)->NewByteArray(env, (jsize)n);
    if (a != NULL && n > 0) (*env)->SetByteArrayRegion(env, a, 0, (jsize)n, (const jbyte *)s);
    return a;
}

/* Throws CfxException for a non-OK status. Must be the first cfx call after
 * the failure on this thread (the last error is per thread). */
static void throw_status(JNIEnv *env, cfx_status st) {
    size_t n = cfx_last_error_length();
    char *msg = malloc(n > 0 ? n : 1);
    if (msg == NULL) {
        throw_named(env, "java/lang/OutOfMemoryError", "cfx error message");
        return;
    }
    msg[0] = '\0';
    if (n > 0 && cfx_last_error_message(msg, n) != CFX_STATUS_OK) msg[0] = '\0';
    jstring name = (*env)->NewStringUTF(env, cfx_status_str((int32_t)st));
    jbyteArray bytes = name ? bytes_out(env, msg, strlen(msg)) : NULL;
    free(msg);
    if (name == NULL || bytes == NULL) return; /* OutOfMemoryError pending */
    jobject ex = (*env)->NewObject(env, g_exception_class, g_exception_ctor, (jint)st, name, bytes);
    if (ex != NULL) (*env)->Throw(env, (jthrowable)ex);
}

/* 1 when OK; otherwise throws and returns 0. */
static int ok(JNIEnv *env, cfx_status st) {
    if (st == CFX_STATUS_OK) return 1;
    throw_status(env, st);
    return 0;
}

static int non_null(JNIEnv *env, const void *p, const char *what) {
    if (p != NULL) return 1;
    throw_named(env, "java/lang/NullPointerException", what);
    return 0;
}

/* A NUL-terminated copy of a Java byte[] (the Java side appends the NUL);
 * NULL array -> NULL string. *fail is set when an exception is pending. */
static char *cstr_in(JNIEnv *env, jbyteArray a, int *fail) {
    *fail = 0;
    if (a == NULL) return NULL;
    jsize n = (*env)->GetArrayLength(env, a);
    char *s = malloc((size_t)n + 1);
    if (s == NULL) {
        throw_named(env, "java/lang/OutOfMemoryError", "string argument");
        *fail = 1;
        return NULL;
    }
    (*env)->GetByteArrayRegion(env, a, 0, n, (jbyte *)s);
    s[n] = '\0';
    return s;
}

/* Runs EXPR (which may use buf_, cap_ and &len_) with a growing buffer until
 * it fits (string buffer protocol) and returns the text as a UTF-8 byte[]
 * without its NUL, or NULL with an exception pending. */
#define RETURN_STRING(env, EXPR)                                                   \
    do {                                                                           \
        char *buf_ = NULL;                                                         \
        size_t cap_ = 0, len_ = 0;                                                 \
        cfx_status st_;                                                            \
        for (;;) {                                                                 \
            st_ = (EXPR);                                                          \
            if (st_ == CFX_STATUS_BUFFER_TOO_SMALL && len_ > cap_) {               \
                free(buf_);                                                        \
                cap_ = len_;                                                       \
                buf_ = malloc(cap_);                                               \
                if (buf_ == NULL) {                                                \
                    throw_named(env, "java/lang/OutOfMemoryError", "cfx string");  \
                    return NULL;                                                   \
                }                                                                  \
                continue;                                                          \
            }                                                                      \
            break;                                                                 \
        }                                                                          \
        if (st_ != CFX_STATUS_OK) {                                                \
            free(buf_);                                                            \
            throw_status(env, st_);                                                \
            return NULL;                                                           \
        }                                                                          \
        jbyteArray r_ = bytes_out(env, buf_ ? buf_ : "", buf_ ? strlen(buf_) : 0); \
        free(buf_);                                                                \
        return r_;                                                                 \
    } while (0)

#define H(type, h) ((type *)(intptr_t)(h))
#define J(p) ((jlong)(intptr_t)(p))
#define FN(name) JNICALL Java_org_cfx_Native_##name

/* ---------------------------------------------------------------- version */

JNIEXPORT jint FN(abiVersion)(JNIEnv *env, jclass c) { (void)env; (void)c; return (jint)cfx_abi_version(); }
JNIEXPORT jint FN(headerAbiVersion)(JNIEnv *env, jclass c) { (void)env; (void)c; return CFX_ABI_VERSION; }
JNIEXPORT jint FN(versionMajor)(JNIEnv *env, jclass c) { (void)env; (void)c; return (jint)cfx_version_major(); }
JNIEXPORT jint FN(versionMinor)(JNIEnv *env, jclass c) { (void)env; (void)c; return (jint)cfx_version_minor(); }
JNIEXPORT jint FN(versionPatch)(JNIEnv *env, jclass c) { (void)env; (void)c; return (jint)cfx_version_patch(); }

JNIEXPORT jstring FN(versionString)(JNIEnv *env, jclass c) {
    (void)c;
    return (*env)->NewStringUTF(env, cfx_version_string());
}

JNIEXPORT jstring FN(statusName)(JNIEnv *env, jclass c, jint status) {
    (void)c;
    return (*env)->NewStringUTF(env, cfx_status_str((int32_t)status));
}

JNIEXPORT jboolean FN(hasTestingPanic)(JNIEnv *env, jclass c) {
    (void)env; (void)c;
#if defined(CFX_TESTING)
    return JNI_TRUE;
#else
    return JNI_FALSE;
#endif
}

/* The has* queries below answer whether a family of entry points is compiled into this shim. The
 * shim is built from the header of its own source tree, which declares every family, so they all
 * answer true; the Java side keeps asking (Robustness.available() etc.) for shims built before.
 *
 * Whether the robustness entry points (cfx_noise_*, cfx_estimator_*,
 * cfx_robust_*) were in the header this shim was compiled against. */
JNIEXPORT jboolean FN(hasRobust)(JNIEnv *env, jclass c) {
    (void)env; (void)c;
    return JNI_TRUE;
}

/* Whether the coherent (MIP) entry points were in the header. */
JNIEXPORT jboolean FN(hasCoherent)(JNIEnv *env, jclass c) {
    (void)env; (void)c;
    return JNI_TRUE;
}

/* Whether cfx_coherent_explain_batch and the cfx_coherent_batch getters were in the header. */
JNIEXPORT jboolean FN(hasCoherentBatch)(JNIEnv *env, jclass c) {
    (void)env; (void)c;
    return JNI_TRUE;
}

/* Whether cfx_copa_correct was in the header. */
JNIEXPORT jboolean FN(hasCopaCorrect)(JNIEnv *env, jclass c) {
    (void)env; (void)c;
    return JNI_TRUE;
}

/* Whether the COPA entry points (cfx_uncertainty_*, cfx_copa_*) were in the header. */
JNIEXPORT jboolean FN(hasCopa)(JNIEnv *env, jclass c) {
    (void)env; (void)c;
    return JNI_TRUE;
}

/* Whether the sequential (P-DQN policy) entry points were in the header. */
JNIEXPORT jboolean FN(hasSequential)(JNIEnv *env, jclass c) {
    (void)env; (void)c;
    return JNI_TRUE;
}

JNIEXPORT void FN(testingPanic)(JNIEnv *env, jclass c) {
    (void)c;
#if defined(CFX_TESTING)
    ok(env, cfx_testing_panic());
#else
    throw_named(env, "java/lang/UnsupportedOperationException",
                "cfx_testing_panic needs a library built with the `testing` feature");
#endif
}

/* Reads the last error of this thread (for the tests of the error slot). */
JNIEXPORT jbyteArray FN(lastErrorMessage)(JNIEnv *env, jclass c) {
    (void)c;
    size_t n = cfx_last_error_length();
    if (n == 0) return bytes_out(env, "", 0);
    char *msg = malloc(n);
    if (msg == NULL) {
        throw_named(env, "java/lang/OutOfMemoryError", "cfx error message");
        return NULL;
    }
    if (cfx_last_error_message(msg, n) != CFX_STATUS_OK) msg[0] = '\0';
    jbyteArray r = bytes_out(env, msg, strlen(msg));
    free(msg);
    return r;
}

/* ------------------------------------------------------------------- free */

/* kind: 0 schema, 1 dataset, 2 model, 3 config, 4 config builder, 5 schema builder, ... 13 uncertainty,
 * 14 copa result, 15 coherent batch, 16 scorecard import, 17 plausibility, 18 portfolio summary,
 * 19 waiting advice (Native.java). */
JNIEXPORT void FN(free)(JNIEnv *env, jclass c, jint kind, jlong h) {
    (void)env; (void)c;
    switch (kind) {
    case 0: cfx_schema_free(H(const cfx_schema, h)); break;
    case 1: cfx_dataset_free(H(const cfx_dataset, h)); break;
    case 2: cfx_model_free(H(const cfx_model, h)); break;
    case 3: cfx_config_free(H(const cfx_config, h)); break;
    case 4: cfx_config_builder_free(H(cfx_config_builder, h)); break;
    case 5: cfx_schema_builder_free(H(cfx_schema_builder, h)); break;
    case 11: cfx_policy_free(H(const cfx_policy, h)); break;
    case 12: cfx_plan_free(H(const cfx_plan, h)); break;
    case 13: cfx_uncertainty_free(H(const cfx_uncertainty, h)); break;
    case 14: cfx_copa_result_free(H(const cfx_copa_result, h)); break;
    case 10: cfx_coherent_result_free(H(const cfx_coherent_result, h)); break;
    case 15: cfx_coherent_batch_free(H(const cfx_coherent_batch, h)); break;
    case 6: cfx_noise_free(H(const cfx_noise, h)); break;
    case 7: cfx_estimator_free(H(const cfx_estimator, h)); break;
    case 8: cfx_workspace_free(H(cfx_workspace, h)); break;
    case 9: cfx_robust_result_free(H(const cfx_robust_result, h)); break;
    case 16: cfx_scorecard_import_free(H(const cfx_scorecard_import, h)); break;
    case 17: cfx_plausibility_free(H(const cfx_plausibility, h)); break;
    case 18: cfx_portfolio_summary_free(H(const cfx_portfolio_summary, h)); break;
    case 19: cfx_waiting_advice_free(H(const cfx_waiting_advice, h)); break;
    default: break;
    }
}

/* ----------------------------------------------------------------- config */

JNIEXPORT jlong FN(configBuilderNew)(JNIEnv *env, jclass c) {
    (void)c;
    cfx_config_builder *b = NULL;
    if (!ok(env, cfx_config_builder_new(&b))) return 0;
    return J(b);
}

#define B(h) H(cfx_config_builder, h)
JNIEXPORT void FN(cbSetTimeLimit)(JNIEnv *env, jclass c, jlong b, jdouble s) { (void)c; ok(env, cfx_config_builder_set_time_limit(B(b), s)); }
JNIEXPORT void FN(cbSetThreads)(JNIEnv *env, jclass c, jlong b, jlong n) { (void)c; ok(env, cfx_config_builder_set_threads(B(b), (size_t)n)); }
JNIEXPORT void FN(cbSetMipGap)(JNIEnv *env, jclass c, jlong b, jdouble g) { (void)c; ok(env, cfx_config_builder_set_mip_gap(B(b), g)); }
JNIEXPORT void FN(cbSetMargin)(JNIEnv *env, jclass c, jlong b, jdouble m) { (void)c; ok(env, cfx_config_builder_set_margin(B(b), m)); }
JNIEXPORT void FN(cbSetNDiverse)(JNIEnv *env, jclass c, jlong b, jlong n) { (void)c; ok(env, cfx_config_builder_set_n_diverse(B(b), (size_t)n)); }
JNIEXPORT void FN(cbSetSolver)(JNIEnv *env, jclass c, jlong b, jint v) { (void)c; ok(env, cfx_config_builder_set_solver(B(b), v)); }
JNIEXPORT void FN(cbSetNodeLimit)(JNIEnv *env, jclass c, jlong b, jlong n) { (void)c; ok(env, cfx_config_builder_set_node_limit(B(b), (size_t)n)); }
JNIEXPORT void FN(cbSetDiversityRule)(JNIEnv *env, jclass c, jlong b, jint r) { (void)c; ok(env, cfx_config_builder_set_diversity_rule(B(b), r)); }
JNIEXPORT void FN(cbSetNSamples)(JNIEnv *env, jclass c, jlong b, jlong k) { (void)c; ok(env, cfx_config_builder_set_n_samples(B(b), (size_t)k)); }
JNIEXPORT void FN(cbSetBoundM)(JNIEnv *env, jclass c, jlong b, jdouble m) { (void)c; ok(env, cfx_config_builder_set_bound_m(B(b), m)); }
JNIEXPORT void FN(cbSetTarget)(JNIEnv *env, jclass c, jlong b, jdouble t, jdouble e) { (void)c; ok(env, cfx_config_builder_set_target(B(b), t, e)); }
JNIEXPORT void FN(cbSetSeed)(JNIEnv *env, jclass c, jlong b, jlong s) { (void)c; ok(env, cfx_config_builder_set_seed(B(b), (uint64_t)s)); }
JNIEXPORT void FN(cbSetCopaWeights)(JNIEnv *env, jclass c, jlong b, jdouble r, jdouble d) { (void)c; ok(env, cfx_config_builder_set_copa_weights(B(b), r, d)); }
JNIEXPORT void FN(cbSetCopaRadius)(JNIEnv *env, jclass c, jlong b, jdouble r) { (void)c; ok(env, cfx_config_builder_set_copa_radius(B(b), r)); }
JNIEXPORT void FN(cbSetRobustAdvice)(JNIEnv *env, jclass c, jlong b, jdouble s2, jdouble t) { (void)c; ok(env, cfx_config_builder_set_robust_advice(B(b), s2, t)); }
JNIEXPORT void FN(cbSetRlEpisodes)(JNIEnv *env, jclass c, jlong b, jlong e, jlong s) { (void)c; ok(env, cfx_config_builder_set_rl_episodes(B(b), (size_t)e, (size_t)s)); }
JNIEXPORT void FN(cbSetRlTraining)(JNIEnv *env, jclass c, jlong b, jdouble g, jdouble la, jdouble lp, jlong bs, jlong cap) {
    (void)c;
    ok(env, cfx_config_builder_set_rl_training(B(b), g, la, lp, (size_t)bs, (size_t)cap));
}
JNIEXPORT void FN(cbSetRlExploration)(JNIEnv *env, jclass c, jlong b, jdouble s, jdouble e) { (void)c; ok(env, cfx_config_builder_set_rl_exploration(B(b), s, e)); }

/* Copies a Java long[] of widths into a size_t array (NULL for a NULL or
 * empty array); *fail set when an exception is pending. */
static size_t *sizes_in(JNIEnv *env, jlongArray a, size_t *n, int *fail) {
    *fail = 0;
    *n = 0;
    if (a == NULL) return NULL;
    jsize len = (*env)->GetArrayLength(env, a);
    if (len == 0) return NULL;
    jlong *tmp = malloc(sizeof(jlong) * (size_t)len);
    size_t *out = malloc(sizeof(size_t) * (size_t)len);
    if (tmp == NULL || out == NULL) {
        free(tmp);
        free(out);
        throw_named(env, "java/lang/OutOfMemoryError", "size array");
        *fail = 1;
        return NULL;
    }
    (*env)->GetLongArrayRegion(env, a, 0, len, tmp);
    for (jsize i = 0; i < len; i++) out[i] = (size_t)tmp[i];
    free(tmp);
    *n = (size_t)len;
    return out;
}

JNIEXPORT void FN(cbSetRlHidden)(JNIEnv *env, jclass c, jlong b, jlongArray hidden) {
    (void)c;
    size_t n;
    int fail;
    size_t *h = sizes_in(env, hidden, &n, &fail);
    if (fail) return;
    cfx_status st = cfx_config_builder_set_rl_hidden(B(b), h, n);
    free(h);
    ok(env, st);
}

JNIEXPORT jlong FN(configBuild)(JNIEnv *env, jclass c, jlong b) {
    (void)c;
    const cfx_config *cfg = NULL;
    if (!ok(env, cfx_config_build(B(b), &cfg))) return 0;
    return J(cfg);
}
#undef B

JNIEXPORT jbyteArray FN(configToJson)(JNIEnv *env, jclass c, jlong h) {
    (void)c;
    RETURN_STRING(env, cfx_config_to_json(H(const cfx_config, h), buf_, cap_, &len_));
}

/* ---------------------------------------------------------------- dataset */

typedef cfx_status (*loader_fn)(const char *, const cfx_dataset **);

static jlong load_with(JNIEnv *env, loader_fn f, jbyteArray path) {
    int fail;
    char *p = cstr_in(env, path, &fail);
    if (fail) return 0;
    const cfx_dataset *d = NULL;
    cfx_status st = f(p, &d);
    free(p);
    if (!ok(env, st)) return 0;
    return J(d);
}

JNIEXPORT jlong FN(datasetLoadGerman)(JNIEnv *env, jclass c, jbyteArray path) { (void)c; return load_with(env, cfx_dataset_load_german, path); }
JNIEXPORT jlong FN(datasetLoadHeloc)(JNIEnv *env, jclass c, jbyteArray path) { (void)c; return load_with(env, cfx_dataset_load_heloc, path); }
JNIEXPORT jlong FN(datasetLoadTaiwan)(JNIEnv *env, jclass c, jbyteArray path) { (void)c; return load_with(env, cfx_dataset_load_taiwan, path); }

JNIEXPORT jlong FN(datasetFromCsv)(JNIEnv *env, jclass c, jlong schema, jbyteArray path,
                                    jbyteArray target, jbyteArray favourable) {
    (void)c;
    int f1, f2 = 0, f3 = 0;
    char *p = cstr_in(env, path, &f1);
    char *t = f1 ? NULL : cstr_in(env, target, &f2);
    char *v = (f1 || f2) ? NULL : cstr_in(env, favourable, &f3);
    jlong r = 0;
    if (!f1 && !f2 && !f3) {
        const cfx_dataset *d = NULL;
        cfx_status st = cfx_dataset_from_csv(H(const cfx_schema, schema), p, t, v, &d);
        if (ok(env, st)) r = J(d);
    }
    free(p);
    free(t);
    free(v);
    return r;
}

JNIEXPORT jlong FN(datasetFromCsvEx)(JNIEnv *env, jclass c, jlong schema, jbyteArray path,
                                      jbyteArray target, jbyteArray favourable, jbyte delimiter,
                                      jboolean hasHeader) {
    (void)c;
    int f1, f2 = 0, f3 = 0;
    char *p = cstr_in(env, path, &f1);
    char *t = f1 ? NULL : cstr_in(env, target, &f2);
    char *v = (f1 || f2) ? NULL : cstr_in(env, favourable, &f3);
    jlong r = 0;
    if (!f1 && !f2 && !f3) {
        const cfx_dataset *d = NULL;
        cfx_status st = cfx_dataset_from_csv_ex(H(const cfx_schema, schema), p, t, v, (char)delimiter,
                                                hasHeader ? 1 : 0, &d);
        if (ok(env, st)) r = J(d);
    }
    free(p);
    free(t);
    free(v);
    return r;
}

/* NUL-terminated copies of a Java byte[][] (NULL entries allowed only when
 * nulls_ok; a NULL array is 0 strings). Free with free_cstrs. NULL with
 * *fail set when an exception is pending; NULL with *fail 0 for 0 strings. */
static char **cstrs_in(JNIEnv *env, jobjectArray a, int nulls_ok, const char *what, size_t *n, int *fail) {
    *fail = 0;
    *n = 0;
    if (a == NULL) return NULL;
    jsize len = (*env)->GetArrayLength(env, a);
    if (len == 0) return NULL;
    char **v = calloc((size_t)len, sizeof(char *));
    if (v == NULL) {
        throw_named(env, "java/lang/OutOfMemoryError", what);
        *fail = 1;
        return NULL;
    }
    for (jsize i = 0; i < len && !*fail; i++) {
        jbyteArray one = (jbyteArray)(*env)->GetObjectArrayElement(env, a, i);
        if ((*env)->ExceptionCheck(env)) {
            *fail = 1;
            break;
        }
        if (one == NULL) {
            if (!nulls_ok) {
                throw_named(env, "java/lang/NullPointerException", what);
                *fail = 1;
            }
            continue;
        }
        v[i] = cstr_in(env, one, fail);
        (*env)->DeleteLocalRef(env, one);
    }
    *n = (size_t)len;
    return v;
}

static void free_cstrs(char **v, size_t n) {
    if (v == NULL) return;
    for (size_t i = 0; i < n; i++) free(v[i]);
    free(v);
}

JNIEXPORT jlong FN(datasetInferCsv)(JNIEnv *env, jclass c, jbyteArray path, jbyteArray target,
                                     jbyteArray favourable, jbyte delimiter, jboolean hasHeader,
                                     jobjectArray drop, jobjectArray categorical, jdoubleArray codes,
                                     jobjectArray labels, jobjectArray columns) {
    (void)c;
    int f1 = 0, f2 = 0, f3 = 0, f4 = 0, f5 = 0, f6 = 0, f7 = 0;
    size_t n_drop = 0, n_cat = 0, n_lab = 0, n_col = 0;
    char *p = cstr_in(env, path, &f1);
    char *t = f1 ? NULL : cstr_in(env, target, &f2);
    char *v = (f1 || f2) ? NULL : cstr_in(env, favourable, &f3);
    char **dr = (f1 || f2 || f3) ? NULL : cstrs_in(env, drop, 0, "drop", &n_drop, &f4);
    char **ca = (f1 || f2 || f3 || f4) ? NULL : cstrs_in(env, categorical, 0, "categorical", &n_cat, &f5);
    char **la = (f1 || f2 || f3 || f4 || f5) ? NULL : cstrs_in(env, labels, 0, "labels", &n_lab, &f6);
    char **co = (f1 || f2 || f3 || f4 || f5 || f6) ? NULL : cstrs_in(env, columns, 1, "columns", &n_col, &f7);
    jlong r = 0;
    if (!f1 && !f2 && !f3 && !f4 && !f5 && !f6 && !f7 && non_null(env, codes, "codes")) {
        jsize n_codes = (*env)->GetArrayLength(env, codes);
        if ((size_t)n_codes != n_lab || (size_t)n_codes != n_col) {
            throw_named(env, "java/lang/IllegalArgumentException", "special codes, labels and columns differ in length");
        } else {
            double *cd = n_codes ? malloc((size_t)n_codes * sizeof(double)) : NULL;
            if (n_codes && cd == NULL) {
                throw_named(env, "java/lang/OutOfMemoryError", "codes");
            } else {
                if (n_codes) (*env)->GetDoubleArrayRegion(env, codes, 0, n_codes, cd);
                const cfx_dataset *d = NULL;
                cfx_status st = cfx_dataset_infer_csv(p, t, v, (char)delimiter, hasHeader ? 1 : 0,
                                                      (const char *const *)dr, n_drop,
                                                      (const char *const *)ca, n_cat, cd,
                                                      (const char *const *)la, (const char *const *)co,
                                                      (size_t)n_codes, &d);
                if (ok(env, st)) r = J(d);
                free(cd);
            }
        }
    }
    free(p);
    free(t);
    free(v);
    free_cstrs(dr, n_drop);
    free_cstrs(ca, n_cat);
    free_cstrs(la, n_lab);
    free_cstrs(co, n_col);
    return r;
}

JNIEXPORT jlong FN(datasetFittedSchema)(JNIEnv *env, jclass c, jlong h) {
    (void)c;
    const cfx_schema *s = NULL;
    if (!ok(env, cfx_dataset_fitted_schema(H(const cfx_dataset, h), &s))) return 0;
    return J(s);
}

JNIEXPORT jlong FN(datasetNRows)(JNIEnv *env, jclass c, jlong h) {
    (void)c;
    size_t n = 0;
    if (!ok(env, cfx_dataset_n_rows(H(const cfx_dataset, h), &n))) return 0;
    return (jlong)n;
}

JNIEXPORT jlong FN(datasetSchema)(JNIEnv *env, jclass c, jlong h) {
    (void)c;
    const cfx_schema *s = NULL;
    if (!ok(env, cfx_dataset_schema(H(const cfx_dataset, h), &s))) return 0;
    return J(s);
}

JNIEXPORT void FN(datasetRow)(JNIEnv *env, jclass c, jlong h, jlong index, jdoubleArray out) {
    (void)c;
    if (!non_null(env, out, "out")) return;
    jsize cap = (*env)->GetArrayLength(env, out);
    double *o = (*env)->GetPrimitiveArrayCritical(env, out, NULL);
    if (o == NULL) return;
    size_t len = 0;
    cfx_status st = cfx_dataset_row(H(const cfx_dataset, h), (size_t)index, o, (size_t)cap, &len);
    (*env)->ReleasePrimitiveArrayCritical(env, out, o, 0);
    ok(env, st);
}

JNIEXPORT jdouble FN(datasetLabel)(JNIEnv *env, jclass c, jlong h, jlong index) {
    (void)c;
    double label = 0;
    if (!ok(env, cfx_dataset_label(H(const cfx_dataset, h), (size_t)index, &label))) return 0;
    return label;
}

JNIEXPORT void FN(datasetHoldoutSplit)(JNIEnv *env, jclass c, jlong h, jlongArray out2) {
    (void)c;
    if (!non_null(env, out2, "out")) return;
    const cfx_dataset *train = NULL, *test = NULL;
    if (!ok(env, cfx_dataset_holdout_split(H(const cfx_dataset, h), &train, &test))) return;
    jlong v[2] = {J(train), J(test)};
    (*env)->SetLongArrayRegion(env, out2, 0, 2, v);
}

/* -------------------------------------------------------- scorecard import */

/* cfx_scorecard_import_csv (from_path 0: `text` is the CSV) or
 * cfx_scorecard_import_path (from_path 1: `text` is the file's path). */
JNIEXPORT jlong FN(scorecardImport)(JNIEnv *env, jclass c, jlong schema, jint format, jbyteArray text,
                                    jboolean from_path, jdouble cutoff, jboolean has_scaling,
                                    jdouble factor, jdouble offset) {
    (void)c;
    int fail;
    char *s = cstr_in(env, text, &fail);
    if (fail) return 0;
    const cfx_scorecard_import *imp = NULL;
    cfx_status st = from_path
        ? cfx_scorecard_import_path(H(const cfx_schema, schema), (int32_t)format, s, cutoff,
                                    has_scaling ? 1 : 0, factor, offset, &imp)
        : cfx_scorecard_import_csv(H(const cfx_schema, schema), (int32_t)format, s, cutoff,
                                   has_scaling ? 1 : 0, factor, offset, &imp);
    free(s);
    if (!ok(env, st)) return 0;
    return J(imp);
}

/* cfx_scorecard_import_csv_with_options: `options` is the JSON object. */
JNIEXPORT jlong FN(scorecardImportWithOptions)(JNIEnv *env, jclass c, jlong schema, jint format,
                                               jbyteArray csv, jbyteArray options) {
    (void)c;
    int fail;
    char *s = cstr_in(env, csv, &fail);
    if (fail) return 0;
    char *o = cstr_in(env, options, &fail);
    if (fail) {
        free(s);
        return 0;
    }
    const cfx_scorecard_import *imp = NULL;
    cfx_status st = cfx_scorecard_import_csv_with_options(H(const cfx_schema, schema), (int32_t)format,
                                                          s, o, &imp);
    free(s);
    free(o);
    if (!ok(env, st)) return 0;
    return J(imp);
}

/* cfx_scorecard_load_german (path NULL: the bundled table). */
JNIEXPORT jlong FN(scorecardLoadGerman)(JNIEnv *env, jclass c, jlong schema, jbyteArray path) {
    (void)c;
    int fail;
    char *p = cstr_in(env, path, &fail);
    if (fail) return 0;
    const cfx_scorecard_import *imp = NULL;
    cfx_status st = cfx_scorecard_load_german(H(const cfx_schema, schema), p, &imp);
    free(p);
    if (!ok(env, st)) return 0;
    return J(imp);
}

JNIEXPORT jlong FN(scorecardImportModel)(JNIEnv *env, jclass c, jlong h) {
    (void)c;
    const cfx_model *m = NULL;
    if (!ok(env, cfx_scorecard_import_model(H(const cfx_scorecard_import, h), &m))) return 0;
    return J(m);
}

JNIEXPORT jbyteArray FN(scorecardImportReport)(JNIEnv *env, jclass c, jlong h) {
    (void)c;
    RETURN_STRING(env, cfx_scorecard_import_report(H(const cfx_scorecard_import, h), buf_, cap_, &len_));
}

/* ------------------------------------------------------------------ model */

JNIEXPORT jlong FN(modelLinearNew)(JNIEnv *env, jclass c, jdoubleArray w, jdouble bias, jdouble threshold) {
    (void)c;
    if (!non_null(env, w, "weights")) return 0;
    jsize n = (*env)->GetArrayLength(env, w);
    double *pw = (*env)->GetPrimitiveArrayCritical(env, w, NULL);
    if (pw == NULL) return 0;
    const cfx_model *m = NULL;
    cfx_status st = cfx_model_linear_new(pw, (size_t)n, bias, threshold, &m);
    (*env)->ReleasePrimitiveArrayCritical(env, w, pw, JNI_ABORT);
    if (!ok(env, st)) return 0;
    return J(m);
}

JNIEXPORT jlong FN(modelFromJson)(JNIEnv *env, jclass c, jlong schema, jbyteArray json) {
    (void)c;
    int fail;
    char *s = cstr_in(env, json, &fail);
    if (fail) return 0;
    const cfx_model *m = NULL;
    cfx_status st = cfx_model_from_json(H(const cfx_schema, schema), s, &m);
    free(s);
    if (!ok(env, st)) return 0;
    return J(m);
}

JNIEXPORT jbyteArray FN(modelToJson)(JNIEnv *env, jclass c, jlong h) {
    (void)c;
    RETURN_STRING(env, cfx_model_to_json(H(const cfx_model, h), buf_, cap_, &len_));
}

JNIEXPORT jbyteArray FN(modelFingerprint)(JNIEnv *env, jclass c, jlong h) {
    (void)c;
    RETURN_STRING(env, cfx_model_fingerprint(H(const cfx_model, h), buf_, cap_, &len_));
}

JNIEXPORT jlong FN(modelFitLinear)(JNIEnv *env, jclass c, jlong ds, jdouble cc) {
    (void)c;
    const cfx_model *m = NULL;
    if (!ok(env, cfx_model_fit_linear(H(const cfx_dataset, ds), cc, &m))) return 0;
    return J(m);
}

JNIEXPORT jlong FN(modelTrainMlp)(JNIEnv *env, jclass c, jlong ds, jlongArray hidden, jlong epochs,
                                   jlong batch, jdouble lr, jdouble l2, jlong seed) {
    (void)c;
    size_t n;
    int fail;
    size_t *h = sizes_in(env, hidden, &n, &fail);
    if (fail) return 0;
    const cfx_model *m = NULL;
    cfx_status st = cfx_model_train_mlp(H(const cfx_dataset, ds), h, n, (size_t)epochs,
                                        (size_t)batch, lr, l2, (uint64_t)seed, &m);
    free(h);
    if (!ok(env, st)) return 0;
    return J(m);
}

/* Tree-ensemble importers (cfx_model_from_{xgboost,lightgbm}_*): the model
 * text or a file path, and the optional import options as JSON (NULL array ->
 * NULL, the defaults). */
typedef cfx_status (*tree_import_fn)(const cfx_schema *, const char *, const char *,
                                     const cfx_model **);

static jlong tree_import(JNIEnv *env, tree_import_fn f, jlong schema, jbyteArray text,
                         jbyteArray options) {
    int f1, f2 = 0;
    char *t = cstr_in(env, text, &f1);
    char *o = f1 ? NULL : cstr_in(env, options, &f2);
    jlong r = 0;
    if (!f1 && !f2) {
        const cfx_model *m = NULL;
        if (ok(env, f(H(const cfx_schema, schema), t, o, &m))) r = J(m);
    }
    free(t);
    free(o);
    return r;
}

JNIEXPORT jlong FN(modelFromXgboostJson)(JNIEnv *env, jclass c, jlong schema, jbyteArray json, jbyteArray options) { (void)c; return tree_import(env, cfx_model_from_xgboost_json, schema, json, options); }
JNIEXPORT jlong FN(modelFromXgboostFile)(JNIEnv *env, jclass c, jlong schema, jbyteArray path, jbyteArray options) { (void)c; return tree_import(env, cfx_model_from_xgboost_file, schema, path, options); }
JNIEXPORT jlong FN(modelFromLightgbmText)(JNIEnv *env, jclass c, jlong schema, jbyteArray text, jbyteArray options) { (void)c; return tree_import(env, cfx_model_from_lightgbm_text, schema, text, options); }
JNIEXPORT jlong FN(modelFromLightgbmFile)(JNIEnv *env, jclass c, jlong schema, jbyteArray path, jbyteArray options) { (void)c; return tree_import(env, cfx_model_from_lightgbm_file, schema, path, options); }

JNIEXPORT jint FN(modelKind)(JNIEnv *env, jclass c, jlong h) {
    (void)c;
    int32_t k = -1;
    if (!ok(env, cfx_model_get_kind(H(const cfx_model, h), &k))) return -1;
    return k;
}

JNIEXPORT jlong FN(modelInputDim)(JNIEnv *env, jclass c, jlong h) {
    (void)c;
    size_t d = 0;
    if (!ok(env, cfx_model_input_dim(H(const cfx_model, h), &d))) return 0;
    return (jlong)d;
}

JNIEXPORT jdouble FN(modelThreshold)(JNIEnv *env, jclass c, jlong h) {
    (void)c;
    double t = 0;
    if (!ok(env, cfx_model_threshold(H(const cfx_model, h), &t))) return 0;
    return t;
}

/* Hot path: x pinned without copy; (score, probability, accepted) into out3. */
JNIEXPORT void FN(modelPredict)(JNIEnv *env, jclass c, jlong h, jdoubleArray x, jdoubleArray out3) {
    (void)c;
    if (!non_null(env, x, "x") || !non_null(env, out3, "out")) return;
    jsize n = (*env)->GetArrayLength(env, x);
    double score = 0, prob = 0;
    int32_t acc = 0;
    double *px = (*env)->GetPrimitiveArrayCritical(env, x, NULL);
    if (px == NULL) return;
    cfx_status st = cfx_model_predict(H(const cfx_model, h), px, (size_t)n, &score, &prob, &acc);
    (*env)->ReleasePrimitiveArrayCritical(env, x, px, JNI_ABORT);
    if (!ok(env, st)) return;
    double v[3] = {score, prob, (double)acc};
    (*env)->SetDoubleArrayRegion(env, out3, 0, 3, v);
}

JNIEXPORT void FN(modelPredictRaw)(JNIEnv *env, jclass c, jlong h, jlong schema, jdoubleArray raw,
                                    jdoubleArray out3) {
    (void)c;
    if (!non_null(env, raw, "raw") || !non_null(env, out3, "out")) return;
    jsize n = (*env)->GetArrayLength(env, raw);
    double score = 0, prob = 0;
    int32_t acc = 0;
    double *pr = (*env)->GetPrimitiveArrayCritical(env, raw, NULL);
    if (pr == NULL) return;
    cfx_status st = cfx_model_predict_raw(H(const cfx_model, h), H(const cfx_schema, schema), pr,
                                          (size_t)n, &score, &prob, &acc);
    (*env)->ReleasePrimitiveArrayCritical(env, raw, pr, JNI_ABORT);
    if (!ok(env, st)) return;
    double v[3] = {score, prob, (double)acc};
    (*env)->SetDoubleArrayRegion(env, out3, 0, 3, v);
}

/* Hot path: rows [x_off/dim, +n_rows) of x, pinned (read-only, never written
 * back), into out[out_off, +n_rows). The results go through a native buffer
 * and SetDoubleArrayRegion, which writes only that region: threads may fill
 * disjoint slices of one shared out array at once (a pinned out array could be
 * a copy written back whole on release, e.g. under -Xcheck:jni, and would
 * overwrite the other threads' slices). The Java side has checked every bound. */
JNIEXPORT void FN(modelProbabilityBatch)(JNIEnv *env, jclass c, jlong h, jdoubleArray x, jlong x_off,
                                          jlong n_rows, jdoubleArray out, jlong out_off) {
    (void)c;
    if (!non_null(env, x, "x") || !non_null(env, out, "out")) return;
    double small[256];
    double *res = n_rows <= 256 ? small : malloc(sizeof(double) * (size_t)n_rows);
    if (res == NULL) {
        throw_named(env, "java/lang/OutOfMemoryError", "probabilities");
        return;
    }
    double *px = (*env)->GetPrimitiveArrayCritical(env, x, NULL);
    if (px == NULL) {
        if (res != small) free(res);
        return;
    }
    size_t len = 0;
    cfx_status st = cfx_model_probability_batch(H(const cfx_model, h), px + x_off, (size_t)n_rows, res,
                                                (size_t)n_rows, &len);
    (*env)->ReleasePrimitiveArrayCritical(env, x, px, JNI_ABORT);
    if (ok(env, st) && n_rows > 0)
        (*env)->SetDoubleArrayRegion(env, out, (jsize)out_off, (jsize)n_rows, res);
    if (res != small) free(res);
}

/* ----------------------------------------------------------------- schema */

JNIEXPORT jlong FN(schemaFromJson)(JNIEnv *env, jclass c, jbyteArray json) {
    (void)c;
    int fail;
    char *s = cstr_in(env, json, &fail);
    if (fail) return 0;
    const cfx_schema *out = NULL;
    cfx_status st = cfx_schema_from_json(s, &out);
    free(s);
    if (!ok(env, st)) return 0;
    return J(out);
}

JNIEXPORT jbyteArray FN(schemaToJson)(JNIEnv *env, jclass c, jlong h) {
    (void)c;
    RETURN_STRING(env, cfx_schema_to_json(H(const cfx_schema, h), buf_, cap_, &len_));
}

JNIEXPORT jbyteArray FN(schemaFingerprint)(JNIEnv *env, jclass c, jlong h) {
    (void)c;
    RETURN_STRING(env, cfx_schema_fingerprint(H(const cfx_schema, h), buf_, cap_, &len_));
}

JNIEXPORT jlong FN(schemaNFeatures)(JNIEnv *env, jclass c, jlong h) {
    (void)c;
    size_t n = 0;
    if (!ok(env, cfx_schema_n_features(H(const cfx_schema, h), &n))) return 0;
    return (jlong)n;
}

JNIEXPORT jlong FN(schemaEncodedDim)(JNIEnv *env, jclass c, jlong h) {
    (void)c;
    size_t n = 0;
    if (!ok(env, cfx_schema_encoded_dim(H(const cfx_schema, h), &n))) return 0;
    return (jlong)n;
}

JNIEXPORT jbyteArray FN(schemaFeatureName)(JNIEnv *env, jclass c, jlong h, jlong index) {
    (void)c;
    RETURN_STRING(env, cfx_schema_feature_name(H(const cfx_schema, h), (size_t)index, buf_, cap_, &len_));
}

JNIEXPORT jlong FN(schemaIndexOf)(JNIEnv *env, jclass c, jlong h, jbyteArray name) {
    (void)c;
    int fail;
    char *s = cstr_in(env, name, &fail);
    if (fail) return -1;
    size_t idx = 0;
    cfx_status st = cfx_schema_index_of(H(const cfx_schema, h), s, &idx);
    free(s);
    if (!ok(env, st)) return -1;
    return (jlong)idx;
}

typedef cfx_status (*transcode_fn)(const cfx_schema *, const double *, size_t, double *, size_t,
                                   size_t *);

/* Encode/decode: input and output pinned without copies. */
static void transcode(JNIEnv *env, transcode_fn f, jlong h, jdoubleArray in, jdoubleArray out) {
    if (!non_null(env, in, "input") || !non_null(env, out, "out")) return;
    jsize n = (*env)->GetArrayLength(env, in);
    jsize cap = (*env)->GetArrayLength(env, out);
    double *pi = (*env)->GetPrimitiveArrayCritical(env, in, NULL);
    if (pi == NULL) return;
    double *po = (*env)->GetPrimitiveArrayCritical(env, out, NULL);
    if (po == NULL) {
        (*env)->ReleasePrimitiveArrayCritical(env, in, pi, JNI_ABORT);
        return;
    }
    size_t len = 0;
    cfx_status st = f(H(const cfx_schema, h), pi, (size_t)n, po, (size_t)cap, &len);
    (*env)->ReleasePrimitiveArrayCritical(env, out, po, 0);
    (*env)->ReleasePrimitiveArrayCritical(env, in, pi, JNI_ABORT);
    ok(env, st);
}

JNIEXPORT void FN(schemaEncode)(JNIEnv *env, jclass c, jlong h, jdoubleArray raw, jdoubleArray out) {
    (void)c;
    transcode(env, cfx_schema_encode, h, raw, out);
}

JNIEXPORT void FN(schemaDecode)(JNIEnv *env, jclass c, jlong h, jdoubleArray x, jdoubleArray out) {
    (void)c;
    transcode(env, cfx_schema_decode, h, x, out);
}

JNIEXPORT jbyteArray FN(schemaDescribeChanges)(JNIEnv *env, jclass c, jlong h, jdoubleArray from,
                                                jdoubleArray to) {
    (void)c;
    if (!non_null(env, from, "from") || !non_null(env, to, "to")) return NULL;
    /* Copies (not critical): the string protocol may loop and allocate. */
    jsize nf = (*env)->GetArrayLength(env, from), nt = (*env)->GetArrayLength(env, to);
    double *pf = (*env)->GetDoubleArrayElements(env, from, NULL);
    if (pf == NULL) return NULL;
    double *pt = (*env)->GetDoubleArrayElements(env, to, NULL);
    if (pt == NULL) {
        (*env)->ReleaseDoubleArrayElements(env, from, pf, JNI_ABORT);
        return NULL;
    }
    char *buf = NULL;
    size_t cap = 0, len = 0;
    cfx_status st;
    for (;;) {
        st = cfx_schema_describe_changes(H(const cfx_schema, h), pf, (size_t)nf, pt, (size_t)nt, buf,
                                         cap, &len);
        if (st == CFX_STATUS_BUFFER_TOO_SMALL && len > cap) {
            free(buf);
            cap = len;
            buf = malloc(cap);
            if (buf == NULL) break;
            continue;
        }
        break;
    }
    (*env)->ReleaseDoubleArrayElements(env, to, pt, JNI_ABORT);
    (*env)->ReleaseDoubleArrayElements(env, from, pf, JNI_ABORT);
    if (buf == NULL && st == CFX_STATUS_BUFFER_TOO_SMALL) {
        throw_named(env, "java/lang/OutOfMemoryError", "cfx string");
        return NULL;
    }
    if (st != CFX_STATUS_OK) {
        free(buf);
        throw_status(env, st);
        return NULL;
    }
    jbyteArray r = bytes_out(env, buf ? buf : "", buf ? strlen(buf) : 0);
    free(buf);
    return r;
}

JNIEXPORT jint FN(schemaWeightsKind)(JNIEnv *env, jclass c, jlong h) {
    (void)c;
    int32_t k = 0;
    if (!ok(env, cfx_schema_weights_kind(H(const cfx_schema, h), &k))) return 0;
    return (jint)k;
}

JNIEXPORT jlong FN(schemaAdvicePreset)(JNIEnv *env, jclass c, jlong h, jint preset, jdouble waiting_cost) {
    (void)c;
    const cfx_schema *out = NULL;
    if (!ok(env, cfx_schema_advice_preset(H(const cfx_schema, h), preset, waiting_cost, &out))) return 0;
    return J(out);
}

JNIEXPORT jlong FN(schemaFitWeights)(JNIEnv *env, jclass c, jlong h, jdoubleArray rows, jlong n_rows,
                                      jlong n_cols) {
    (void)c;
    if (!non_null(env, rows, "rows")) return 0;
    double *pr = (*env)->GetPrimitiveArrayCritical(env, rows, NULL);
    if (pr == NULL) return 0;
    const cfx_schema *out = NULL;
    cfx_status st = cfx_schema_fit_weights(H(const cfx_schema, h), pr, (size_t)n_rows, (size_t)n_cols, &out);
    (*env)->ReleasePrimitiveArrayCritical(env, rows, pr, JNI_ABORT);
    if (!ok(env, st)) return 0;
    return J(out);
}

/* --------------------------------------------------------- schema builder */

#define SB(h) H(cfx_schema_builder, h)

JNIEXPORT jlong FN(schemaBuilderNew)(JNIEnv *env, jclass c) {
    (void)c;
    cfx_schema_builder *b = NULL;
    if (!ok(env, cfx_schema_builder_new(&b))) return 0;
    return J(b);
}

JNIEXPORT void FN(sbAddContiguous)(JNIEnv *env, jclass c, jlong b, jbyteArray name, jdouble lower,
                                    jdouble upper, jboolean integer) {
    (void)c;
    int fail;
    char *n = cstr_in(env, name, &fail);
    if (fail) return;
    cfx_status st = cfx_schema_builder_add_contiguous(SB(b), n, lower, upper, integer ? 1 : 0);
    free(n);
    ok(env, st);
}

/* levels: a Java byte[][] of NUL-terminated UTF-8 names, copied into a char* array. */
JNIEXPORT void FN(sbAddCategorical)(JNIEnv *env, jclass c, jlong b, jbyteArray name,
                                     jobjectArray levels) {
    (void)c;
    if (!non_null(env, levels, "levels")) return;
    jsize n = (*env)->GetArrayLength(env, levels);
    char **lv = calloc(n > 0 ? (size_t)n : 1, sizeof(char *));
    if (lv == NULL) {
        throw_named(env, "java/lang/OutOfMemoryError", "levels");
        return;
    }
    int fail = 0;
    char *nm = NULL;
    for (jsize i = 0; i < n && !fail; i++) {
        jbyteArray one = (jbyteArray)(*env)->GetObjectArrayElement(env, levels, i);
        if ((*env)->ExceptionCheck(env)) {
            fail = 1;
            break;
        }
        if (!non_null(env, one, "levels[i]")) {
            fail = 1;
            break;
        }
        lv[i] = cstr_in(env, one, &fail);
        (*env)->DeleteLocalRef(env, one);
    }
    if (!fail) nm = cstr_in(env, name, &fail);
    if (!fail) {
        cfx_status st = cfx_schema_builder_add_categorical(SB(b), nm, (const char *const *)lv, (size_t)n);
        ok(env, st);
    }
    for (jsize i = 0; i < n; i++) free(lv[i]);
    free(lv);
    free(nm);
}

/* Level order of the last (categorical) feature, worst to best. */
JNIEXPORT void FN(sbSetLevelOrder)(JNIEnv *env, jclass c, jlong b, jobjectArray levels) {
    (void)c;
    if (!non_null(env, levels, "levels")) return;
    jsize n = (*env)->GetArrayLength(env, levels);
    char **lv = calloc(n > 0 ? (size_t)n : 1, sizeof(char *));
    if (lv == NULL) {
        throw_named(env, "java/lang/OutOfMemoryError", "levels");
        return;
    }
    int fail = 0;
    for (jsize i = 0; i < n && !fail; i++) {
        jbyteArray one = (jbyteArray)(*env)->GetObjectArrayElement(env, levels, i);
        if ((*env)->ExceptionCheck(env) || !non_null(env, one, "levels[i]")) {
            fail = 1;
            break;
        }
        lv[i] = cstr_in(env, one, &fail);
        (*env)->DeleteLocalRef(env, one);
    }
    if (!fail) ok(env, cfx_schema_builder_set_level_order(SB(b), (const char *const *)lv, (size_t)n));
    for (jsize i = 0; i < n; i++) free(lv[i]);
    free(lv);
}

JNIEXPORT void FN(sbAddSpecialState)(JNIEnv *env, jclass c, jlong b, jdouble code, jbyteArray label) {
    (void)c;
    int fail;
    char *l = cstr_in(env, label, &fail);
    if (fail) return;
    cfx_status st = cfx_schema_builder_add_special_state(SB(b), code, l);
    free(l);
    ok(env, st);
}

JNIEXPORT void FN(sbSetActionability)(JNIEnv *env, jclass c, jlong b, jboolean mutable_, jint direction) {
    (void)c;
    ok(env, cfx_schema_builder_set_actionability(SB(b), mutable_ ? 1 : 0, direction));
}

JNIEXPORT void FN(sbSetActionableBounds)(JNIEnv *env, jclass c, jlong b, jdouble lower, jdouble upper) {
    (void)c;
    ok(env, cfx_schema_builder_set_actionable_bounds(SB(b), lower, upper));
}

JNIEXPORT void FN(sbSetCostScale)(JNIEnv *env, jclass c, jlong b, jdouble cost_scale) {
    (void)c;
    ok(env, cfx_schema_builder_set_cost_scale(SB(b), cost_scale));
}

JNIEXPORT void FN(sbAddForbiddenTransition)(JNIEnv *env, jclass c, jlong b, jbyteArray from, jbyteArray to) {
    (void)c;
    int f1 = 0, f2 = 0;
    char *f = cstr_in(env, from, &f1);
    char *t = f1 ? NULL : cstr_in(env, to, &f2);
    if (!f1 && !f2) ok(env, cfx_schema_builder_add_forbidden_transition(SB(b), f, t));
    free(f);
    free(t);
}

JNIEXPORT void FN(sbSetStep)(JNIEnv *env, jclass c, jlong b, jdouble step) {
    (void)c;
    ok(env, cfx_schema_builder_set_step(SB(b), step));
}

/* Change limits of the last feature: each a cfx_change_limit kind (0 none, 1 units, 2 fraction)
 * and its value. */
JNIEXPORT void FN(sbSetChangeLimits)(JNIEnv *env, jclass c, jlong b, jint inc_kind, jdouble max_inc,
                                     jint dec_kind, jdouble max_dec) {
    (void)c;
    ok(env, cfx_schema_builder_set_change_limits(SB(b), inc_kind, max_inc, dec_kind, max_dec));
}

/* ends_in: NULL array -> NULL (the feature stays at its upper bound). */
JNIEXPORT void FN(sbSetTimeGrowth)(JNIEnv *env, jclass c, jlong b, jdouble per_month, jbyteArray ends_in) {
    (void)c;
    int fail;
    char *e = cstr_in(env, ends_in, &fail);
    if (fail) return;
    cfx_status st = cfx_schema_builder_set_time_growth(SB(b), per_month, e);
    free(e);
    ok(env, st);
}

JNIEXPORT void FN(sbSetWaiting)(JNIEnv *env, jclass c, jlong b, jdouble cost_per_month, jlong max_months) {
    (void)c;
    ok(env, cfx_schema_builder_set_waiting(SB(b), cost_per_month, (uint32_t)max_months));
}

JNIEXPORT jlong FN(schemaBuild)(JNIEnv *env, jclass c, jlong b) {
    (void)c;
    const cfx_schema *s = NULL;
    if (!ok(env, cfx_schema_build(SB(b), &s))) return 0;
    return J(s);
}
#undef SB

/* ------------------------------------------------------------- robustness */

JNIEXPORT jlong FN(noiseGaussianNew)(JNIEnv *env, jclass c, jlong schema, jdouble sigma2) {
    (void)c;
    const cfx_noise *n = NULL;
    if (!ok(env, cfx_noise_gaussian_new(H(const cfx_schema, schema), sigma2, &n))) return 0;
    return J(n);
}

JNIEXPORT jlong FN(noiseNew)(JNIEnv *env, jclass c, jint kind, jlongArray columns, jdoubleArray scale) {
    (void)c;
    if (!non_null(env, scale, "scale")) return 0;
    size_t nc;
    int fail;
    size_t *cols = sizes_in(env, columns, &nc, &fail);
    if (fail) return 0;
    jsize ns = (*env)->GetArrayLength(env, scale);
    double *ps = (*env)->GetDoubleArrayElements(env, scale, NULL);
    if (ps == NULL) {
        free(cols);
        return 0;
    }
    const cfx_noise *n = NULL;
    cfx_status st = cfx_noise_new(kind, cols, nc, ps, (size_t)ns, &n);
    (*env)->ReleaseDoubleArrayElements(env, scale, ps, JNI_ABORT);
    free(cols);
    if (!ok(env, st)) return 0;
    return J(n);
}

JNIEXPORT jlong FN(estimatorNew)(JNIEnv *env, jclass c, jlong noise, jlong k, jint sampling) {
    (void)c;
    const cfx_estimator *e = NULL;
    if (!ok(env, cfx_estimator_new(H(const cfx_noise, noise), (size_t)k, sampling, &e))) return 0;
    return J(e);
}

JNIEXPORT jlong FN(workspaceNew)(JNIEnv *env, jclass c, jlong model, jlong seed) {
    (void)c;
    cfx_workspace *w = NULL;
    if (!ok(env, cfx_workspace_new(H(const cfx_model, model), (uint64_t)seed, &w))) return 0;
    return J(w);
}

JNIEXPORT void FN(workspaceReseed)(JNIEnv *env, jclass c, jlong ws, jlong seed) {
    (void)c;
    ok(env, cfx_workspace_reseed(H(cfx_workspace, ws), (uint64_t)seed));
}

#define EST(h) H(const cfx_estimator, h)
#define MOD(h) H(const cfx_model, h)
#define WS(h) H(cfx_workspace, h)

/* Hot path: x pinned; {gamma, gamma_se, theta, theta_se} into out4. */
JNIEXPORT void FN(estimatorEstimate)(JNIEnv *env, jclass c, jlong e, jlong m, jlong ws, jdoubleArray x,
                                      jdoubleArray out4) {
    (void)c;
    if (!non_null(env, x, "x") || !non_null(env, out4, "out")) return;
    jsize n = (*env)->GetArrayLength(env, x);
    double v[4] = {0, 0, 0, 0};
    double *px = (*env)->GetPrimitiveArrayCritical(env, x, NULL);
    if (px == NULL) return;
    cfx_status st = cfx_estimator_estimate(EST(e), MOD(m), WS(ws), px, (size_t)n, &v[0], &v[1], &v[2], &v[3]);
    (*env)->ReleasePrimitiveArrayCritical(env, x, px, JNI_ABORT);
    if (!ok(env, st)) return;
    (*env)->SetDoubleArrayRegion(env, out4, 0, 4, v);
}

/* {theta, bound, confidence} into out3. */
JNIEXPORT void FN(estimatorBound)(JNIEnv *env, jclass c, jlong e, jlong m, jlong ws, jdoubleArray x,
                                   jdouble mm, jdoubleArray out3) {
    (void)c;
    if (!non_null(env, x, "x") || !non_null(env, out3, "out")) return;
    jsize n = (*env)->GetArrayLength(env, x);
    double v[3] = {0, 0, 0};
    double *px = (*env)->GetPrimitiveArrayCritical(env, x, NULL);
    if (px == NULL) return;
    cfx_status st = cfx_estimator_bound(EST(e), MOD(m), WS(ws), px, (size_t)n, mm, &v[0], &v[1], &v[2]);
    (*env)->ReleasePrimitiveArrayCritical(env, x, px, JNI_ABORT);
    if (!ok(env, st)) return;
    (*env)->SetDoubleArrayRegion(env, out3, 0, 3, v);
}

JNIEXPORT jdouble FN(estimatorProbeRate)(JNIEnv *env, jclass c, jlong e, jlong m, jlong ws, jdoubleArray x) {
    (void)c;
    if (!non_null(env, x, "x")) return 0;
    jsize n = (*env)->GetArrayLength(env, x);
    double r = 0;
    double *px = (*env)->GetPrimitiveArrayCritical(env, x, NULL);
    if (px == NULL) return 0;
    cfx_status st = cfx_estimator_probe_rate(EST(e), MOD(m), WS(ws), px, (size_t)n, &r);
    (*env)->ReleasePrimitiveArrayCritical(env, x, px, JNI_ABORT);
    ok(env, st);
    return r;
}

JNIEXPORT jdouble FN(estimatorExactRate)(JNIEnv *env, jclass c, jlong e, jlong m, jdoubleArray x) {
    (void)c;
    if (!non_null(env, x, "x")) return 0;
    jsize n = (*env)->GetArrayLength(env, x);
    double r = 0;
    double *px = (*env)->GetPrimitiveArrayCritical(env, x, NULL);
    if (px == NULL) return 0;
    cfx_status st = cfx_estimator_exact_rate(EST(e), MOD(m), px, (size_t)n, &r);
    (*env)->ReleasePrimitiveArrayCritical(env, x, px, JNI_ABORT);
    ok(env, st);
    return r;
}

/* points: n_points x input_dim (checked by Java); outputs of n_points values (either may be null). */
JNIEXPORT void FN(estimatorEstimateBatch)(JNIEnv *env, jclass c, jlong e, jlong m, jdoubleArray points,
                                           jlong n_points, jlong seed, jlong threads, jdoubleArray gamma,
                                           jdoubleArray theta) {
    (void)c;
    if (!non_null(env, points, "points")) return;
    /* Copies, not critical sections: the call runs threads of its own for a while. */
    double *pp = (*env)->GetDoubleArrayElements(env, points, NULL);
    if (pp == NULL) return;
    double *pg = gamma ? (*env)->GetDoubleArrayElements(env, gamma, NULL) : NULL;
    double *pt = theta ? (*env)->GetDoubleArrayElements(env, theta, NULL) : NULL;
    cfx_status st = CFX_STATUS_OK;
    int oom = (gamma && !pg) || (theta && !pt);
    if (!oom)
        st = cfx_estimator_estimate_batch(EST(e), MOD(m), pp, (size_t)n_points, (uint64_t)seed,
                                          (size_t)threads, pg, pt);
    if (pt) (*env)->ReleaseDoubleArrayElements(env, theta, pt, st == CFX_STATUS_OK ? 0 : JNI_ABORT);
    if (pg) (*env)->ReleaseDoubleArrayElements(env, gamma, pg, st == CFX_STATUS_OK ? 0 : JNI_ABORT);
    (*env)->ReleaseDoubleArrayElements(env, points, pp, JNI_ABORT);
    if (!oom) ok(env, st);
}

JNIEXPORT jlong FN(robustGenerate)(JNIEnv *env, jclass c, jlong schema, jlong m, jlong noise, jint method,
                                    jlong config, jdoubleArray raw) {
    (void)c;
    if (!non_null(env, raw, "raw")) return 0;
    jsize n = (*env)->GetArrayLength(env, raw);
    /* Copy, not critical: the search runs for a while. */
    double *pr = (*env)->GetDoubleArrayElements(env, raw, NULL);
    if (pr == NULL) return 0;
    const cfx_robust_result *r = NULL;
    cfx_status st = cfx_robust_generate(H(const cfx_schema, schema), MOD(m), H(const cfx_noise, noise), method,
                                        H(const cfx_config, config), pr, (size_t)n, &r);
    (*env)->ReleaseDoubleArrayElements(env, raw, pr, JNI_ABORT);
    if (!ok(env, st)) return 0;
    return J(r);
}

/* {valid, target_met, probability, distance, gamma, theta, bound, confidence} into out8. */
JNIEXPORT void FN(robustResultSummary)(JNIEnv *env, jclass c, jlong r, jdoubleArray out8) {
    (void)c;
    if (!non_null(env, out8, "out")) return;
    int32_t valid = 0, met = 0;
    double v[8] = {0, 0, 0, 0, 0, 0, 0, 0};
    if (!ok(env, cfx_robust_result_summary(H(const cfx_robust_result, r), &valid, &met, &v[2], &v[3], &v[4],
                                           &v[5], &v[6], &v[7])))
        return;
    v[0] = valid;
    v[1] = met;
    (*env)->SetDoubleArrayRegion(env, out8, 0, 8, v);
}

typedef cfx_status (*result_array_fn)(const cfx_robust_result *, double *, size_t, size_t *);

static void result_array(JNIEnv *env, result_array_fn f, jlong r, jdoubleArray out) {
    if (!non_null(env, out, "out")) return;
    jsize cap = (*env)->GetArrayLength(env, out);
    double *po = (*env)->GetPrimitiveArrayCritical(env, out, NULL);
    if (po == NULL) return;
    size_t len = 0;
    cfx_status st = f(H(const cfx_robust_result, r), po, (size_t)cap, &len);
    (*env)->ReleasePrimitiveArrayCritical(env, out, po, 0);
    ok(env, st);
}

JNIEXPORT void FN(robustResultRaw)(JNIEnv *env, jclass c, jlong r, jdoubleArray out) {
    (void)c;
    result_array(env, cfx_robust_result_raw, r, out);
}

JNIEXPORT void FN(robustResultEncoded)(JNIEnv *env, jclass c, jlong r, jdoubleArray out) {
    (void)c;
    result_array(env, cfx_robust_result_encoded, r, out);
}

/* The advice check of a robust result (issue 25): a cfx_advice_status code. */
JNIEXPORT jint FN(robustResultAdviceStatus)(JNIEnv *env, jclass c, jlong r) {
    (void)c;
    int32_t status = -1;
    if (!ok(env, cfx_robust_result_advice_status(H(const cfx_robust_result, r), &status))) return -1;
    return status;
}

/* A row sized by the buffer protocol: f(ctx, k, buf, cap, &len) twice; an empty row is an empty array. */
typedef cfx_status (*sized_row_fn)(const void *, size_t, double *, size_t, size_t *);

static jdoubleArray sized_row(JNIEnv *env, sized_row_fn f, const void *h, size_t k) {
    size_t len = 0;
    cfx_status st = f(h, k, NULL, 0, &len);
    if (st != CFX_STATUS_OK && st != CFX_STATUS_BUFFER_TOO_SMALL) {
        throw_status(env, st);
        return NULL;
    }
    double *buf = malloc(sizeof(double) * (len > 0 ? len : 1));
    if (buf == NULL) {
        throw_named(env, "java/lang/OutOfMemoryError", "advice row");
        return NULL;
    }
    size_t got = 0;
    st = f(h, k, len > 0 ? buf : NULL, len, &got);
    if (st != CFX_STATUS_OK) {
        free(buf);
        throw_status(env, st);
        return NULL;
    }
    jdoubleArray a = (*env)->NewDoubleArray(env, (jsize)got);
    if (a != NULL && got > 0) (*env)->SetDoubleArrayRegion(env, a, 0, (jsize)got, buf);
    free(buf);
    return a;
}

static cfx_status robust_advice_row(const void *h, size_t k, double *buf, size_t cap, size_t *len) {
    (void)k;
    return cfx_robust_result_advice_raw((const cfx_robust_result *)h, buf, cap, len);
}

static cfx_status copa_advice_row(const void *h, size_t k, double *buf, size_t cap, size_t *len) {
    return cfx_copa_result_option_advice_raw((const cfx_copa_result *)h, k, buf, cap, len);
}

/* The advice row of a robust result (empty when there is no valid advice). */
JNIEXPORT jdoubleArray FN(robustResultAdviceRaw)(JNIEnv *env, jclass c, jlong r) {
    (void)c;
    return sized_row(env, robust_advice_row, H(const cfx_robust_result, r), 0);
}

JNIEXPORT jbyteArray FN(robustResultAdviceDescribe)(JNIEnv *env, jclass c, jlong r) {
    (void)c;
    RETURN_STRING(env, cfx_robust_result_advice_describe(H(const cfx_robust_result, r), buf_, cap_, &len_));
}

JNIEXPORT jbyteArray FN(robustResultToJson)(JNIEnv *env, jclass c, jlong r, jlong schema, jlong m) {
    (void)c;
    RETURN_STRING(env, cfx_robust_result_to_json(H(const cfx_robust_result, r), H(const cfx_schema, schema),
                                                 MOD(m), buf_, cap_, &len_));
}

JNIEXPORT jdouble FN(robustBoundConfidence)(JNIEnv *env, jclass c, jlong k, jdouble m) {
    (void)env; (void)c;
    return cfx_robust_bound_confidence((size_t)k, m);
}

#undef EST
#undef MOD
#undef WS

/* ------------------------------------------------------- coherent (MIP) */

#define CR(h) H(const cfx_coherent_result, h)

JNIEXPORT jlong FN(coherentExplain)(JNIEnv *env, jclass c, jlong schema, jlong m, jlong config,
                                     jdoubleArray row, jboolean diverse) {
    (void)c;
    if (!non_null(env, row, "row")) return 0;
    jsize n = (*env)->GetArrayLength(env, row);
    /* Copy, not critical: the solver runs for a while. */
    double *pr = (*env)->GetDoubleArrayElements(env, row, NULL);
    if (pr == NULL) return 0;
    const cfx_coherent_result *r = NULL;
    cfx_status st = diverse
        ? cfx_coherent_explain_diverse(H(const cfx_schema, schema), H(const cfx_model, m),
                                       H(const cfx_config, config), pr, (size_t)n, &r)
        : cfx_coherent_explain(H(const cfx_schema, schema), H(const cfx_model, m),
                               H(const cfx_config, config), pr, (size_t)n, &r);
    (*env)->ReleaseDoubleArrayElements(env, row, pr, JNI_ABORT);
    if (!ok(env, st)) return 0;
    return J(r);
}

/* {outcome, blocking mask} into out2 (a long[]). */
JNIEXPORT void FN(coherentOutcome)(JNIEnv *env, jclass c, jlong r, jlongArray out2) {
    (void)c;
    if (!non_null(env, out2, "out")) return;
    int32_t outcome = -1;
    uint32_t mask = 0;
    if (!ok(env, cfx_coherent_result_outcome(CR(r), &outcome, &mask))) return;
    jlong v[2] = {outcome, (jlong)mask};
    (*env)->SetLongArrayRegion(env, out2, 0, 2, v);
}

JNIEXPORT jint FN(coherentProvedBy)(JNIEnv *env, jclass c, jlong r) {
    (void)c;
    int32_t v = -1;
    if (!ok(env, cfx_coherent_result_proved_by(CR(r), &v))) return -1;
    return (jint)v;
}

JNIEXPORT jlong FN(coherentCount)(JNIEnv *env, jclass c, jlong r) {
    (void)c;
    size_t n = 0;
    if (!ok(env, cfx_coherent_result_count(CR(r), &n))) return 0;
    return (jlong)n;
}

/* The raw row of counterfactual k, sized by the buffer protocol. */
JNIEXPORT jdoubleArray FN(coherentCounterfactual)(JNIEnv *env, jclass c, jlong r, jlong k) {
    (void)c;
    size_t len = 0;
    cfx_status st = cfx_coherent_result_counterfactual(CR(r), (size_t)k, NULL, 0, &len);
    if (st != CFX_STATUS_OK && st != CFX_STATUS_BUFFER_TOO_SMALL) {
        throw_status(env, st);
        return NULL;
    }
    double *buf = malloc(sizeof(double) * (len > 0 ? len : 1));
    if (buf == NULL) {
        throw_named(env, "java/lang/OutOfMemoryError", "counterfactual");
        return NULL;
    }
    size_t got = 0;
    st = cfx_coherent_result_counterfactual(CR(r), (size_t)k, buf, len, &got);
    if (st != CFX_STATUS_OK) {
        free(buf);
        throw_status(env, st);
        return NULL;
    }
    jdoubleArray a = (*env)->NewDoubleArray(env, (jsize)got);
    if (a != NULL) (*env)->SetDoubleArrayRegion(env, a, 0, (jsize)got, buf);
    free(buf);
    return a;
}

JNIEXPORT jdouble FN(coherentInvalidationRate)(JNIEnv *env, jclass c, jlong r, jlong k) {
    (void)c;
    double g = 0.0;
    if (!ok(env, cfx_coherent_result_invalidation_rate(CR(r), (size_t)k, &g))) return 0.0;
    return g;
}

/* ----------------------------------------------------------- plausibility */

JNIEXPORT jlong FN(plausibilityFit)(JNIEnv *env, jclass c, jlong schema, jdoubleArray rows, jlong n_rows,
                                    jdoubleArray labels) {
    (void)c;
    if (!non_null(env, rows, "rows") || !non_null(env, labels, "labels")) return 0;
    jsize n = (*env)->GetArrayLength(env, rows);
    jsize nl = (*env)->GetArrayLength(env, labels);
    double *pr = (*env)->GetDoubleArrayElements(env, rows, NULL);
    if (pr == NULL) return 0;
    double *pl = (*env)->GetDoubleArrayElements(env, labels, NULL);
    if (pl == NULL) {
        (*env)->ReleaseDoubleArrayElements(env, rows, pr, JNI_ABORT);
        return 0;
    }
    const cfx_plausibility *p = NULL;
    cfx_status st = cfx_plausibility_fit(H(const cfx_schema, schema), pr, (size_t)n, (size_t)n_rows, pl,
                                         (size_t)nl, &p);
    (*env)->ReleaseDoubleArrayElements(env, labels, pl, JNI_ABORT);
    (*env)->ReleaseDoubleArrayElements(env, rows, pr, JNI_ABORT);
    if (!ok(env, st)) return 0;
    return J(p);
}

/* Flags and distances into out arrays of the schema's width (checked by the library). */
JNIEXPORT void FN(plausibilityAssess)(JNIEnv *env, jclass c, jlong p, jdoubleArray factual, jdoubleArray advice,
                                      jintArray out_flags, jdoubleArray out_distances) {
    (void)c;
    if (!non_null(env, factual, "factual") || !non_null(env, advice, "advice") ||
        !non_null(env, out_flags, "out_flags") || !non_null(env, out_distances, "out_distances"))
        return;
    jsize nf = (*env)->GetArrayLength(env, factual);
    jsize na = (*env)->GetArrayLength(env, advice);
    jsize cap = (*env)->GetArrayLength(env, out_flags);
    if ((*env)->GetArrayLength(env, out_distances) != cap) {
        throw_named(env, "java/lang/IllegalArgumentException", "out arrays differ in length");
        return;
    }
    double *pf = (*env)->GetDoubleArrayElements(env, factual, NULL);
    if (pf == NULL) return;
    double *pa = (*env)->GetDoubleArrayElements(env, advice, NULL);
    int32_t *flags = malloc(sizeof(int32_t) * (cap > 0 ? (size_t)cap : 1));
    double *dist = malloc(sizeof(double) * (cap > 0 ? (size_t)cap : 1));
    if (pa == NULL || flags == NULL || dist == NULL) {
        if (pa != NULL) (*env)->ReleaseDoubleArrayElements(env, advice, pa, JNI_ABORT);
        (*env)->ReleaseDoubleArrayElements(env, factual, pf, JNI_ABORT);
        free(flags);
        free(dist);
        if (!(*env)->ExceptionCheck(env)) throw_named(env, "java/lang/OutOfMemoryError", "plausibility");
        return;
    }
    size_t got = 0;
    cfx_status st = cfx_plausibility_assess(H(const cfx_plausibility, p), pf, (size_t)nf, pa, (size_t)na, flags,
                                            dist, (size_t)cap, &got);
    (*env)->ReleaseDoubleArrayElements(env, advice, pa, JNI_ABORT);
    (*env)->ReleaseDoubleArrayElements(env, factual, pf, JNI_ABORT);
    if (ok(env, st)) {
        jint *jf = malloc(sizeof(jint) * (got > 0 ? got : 1));
        if (jf == NULL) {
            throw_named(env, "java/lang/OutOfMemoryError", "plausibility");
        } else {
            for (size_t i = 0; i < got; i++) jf[i] = (jint)flags[i];
            (*env)->SetIntArrayRegion(env, out_flags, 0, (jsize)got, jf);
            (*env)->SetDoubleArrayRegion(env, out_distances, 0, (jsize)got, dist);
            free(jf);
        }
    }
    free(flags);
    free(dist);
}

/* {cost, score, probability, objective, mip_gap, solve_seconds} into out6. */
JNIEXPORT void FN(coherentCertificate)(JNIEnv *env, jclass c, jlong r, jlong k, jdoubleArray out6) {
    (void)c;
    if (!non_null(env, out6, "out")) return;
    double v[6] = {0, 0, 0, 0, 0, 0};
    if (!ok(env, cfx_coherent_result_certificate(CR(r), (size_t)k, &v[0], &v[1], &v[2], &v[3], &v[4], &v[5])))
        return;
    (*env)->SetDoubleArrayRegion(env, out6, 0, 6, v);
}

JNIEXPORT jbyteArray FN(coherentDescribe)(JNIEnv *env, jclass c, jlong r) {
    (void)c;
    RETURN_STRING(env, cfx_coherent_result_describe(CR(r), buf_, cap_, &len_));
}

JNIEXPORT jbyteArray FN(coherentToJson)(JNIEnv *env, jclass c, jlong r) {
    (void)c;
    RETURN_STRING(env, cfx_coherent_result_to_json(CR(r), buf_, cap_, &len_));
}

#undef CR

#define CB(h) H(const cfx_coherent_batch, h)

/* rows: n_rows x n_features raw values, row-major (length checked by C). */
JNIEXPORT jlong FN(coherentExplainBatch)(JNIEnv *env, jclass c, jlong schema, jlong m, jlong config,
                                          jdoubleArray rows, jlong n_rows) {
    (void)c;
    if (!non_null(env, rows, "rows")) return 0;
    jsize n = (*env)->GetArrayLength(env, rows);
    /* Copy, not critical: the solves run for a while. */
    double *pr = (*env)->GetDoubleArrayElements(env, rows, NULL);
    if (pr == NULL) return 0;
    const cfx_coherent_batch *b = NULL;
    cfx_status st = cfx_coherent_explain_batch(H(const cfx_schema, schema), H(const cfx_model, m),
                                               H(const cfx_config, config), pr, (size_t)n, (size_t)n_rows, &b);
    (*env)->ReleaseDoubleArrayElements(env, rows, pr, JNI_ABORT);
    if (!ok(env, st)) return 0;
    return J(b);
}

JNIEXPORT jlong FN(coherentBatchCount)(JNIEnv *env, jclass c, jlong b) {
    (void)c;
    size_t n = 0;
    if (!ok(env, cfx_coherent_batch_count(CB(b), &n))) return 0;
    return (jlong)n;
}

JNIEXPORT jint FN(coherentBatchStatus)(JNIEnv *env, jclass c, jlong b, jlong i) {
    (void)c;
    int32_t st = -1;
    if (!ok(env, cfx_coherent_batch_status(CB(b), (size_t)i, &st))) return -1;
    return (jint)st;
}

JNIEXPORT jbyteArray FN(coherentBatchError)(JNIEnv *env, jclass c, jlong b, jlong i) {
    (void)c;
    RETURN_STRING(env, cfx_coherent_batch_error(CB(b), (size_t)i, buf_, cap_, &len_));
}

/* A new reference to applicant i's result (owned by the Java CoherentResult). */
JNIEXPORT jlong FN(coherentBatchResult)(JNIEnv *env, jclass c, jlong b, jlong i) {
    (void)c;
    const cfx_coherent_result *r = NULL;
    if (!ok(env, cfx_coherent_batch_result(CB(b), (size_t)i, &r))) return 0;
    return J(r);
}

JNIEXPORT jbyteArray FN(coherentBatchToJson)(JNIEnv *env, jclass c, jlong b) {
    (void)c;
    RETURN_STRING(env, cfx_coherent_batch_to_json(CB(b), buf_, cap_, &len_));
}

#undef CB

/* ------------------------------------------------------ waiting advice */

#define WA(h) H(const cfx_waiting_advice, h)

JNIEXPORT jlong FN(waitingExplain)(JNIEnv *env, jclass c, jlong schema, jlong m, jlong config, jdoubleArray row) {
    (void)c;
    if (!non_null(env, row, "row")) return 0;
    jsize n = (*env)->GetArrayLength(env, row);
    /* Copy, not critical: the solver runs for a while. */
    double *pr = (*env)->GetDoubleArrayElements(env, row, NULL);
    if (pr == NULL) return 0;
    const cfx_waiting_advice *a = NULL;
    cfx_status st = cfx_coherent_explain_with_waiting(H(const cfx_schema, schema), H(const cfx_model, m),
                                                      H(const cfx_config, config), pr, (size_t)n, &a);
    (*env)->ReleaseDoubleArrayElements(env, row, pr, JNI_ABORT);
    if (!ok(env, st)) return 0;
    return J(a);
}

JNIEXPORT jint FN(waitingOutcome)(JNIEnv *env, jclass c, jlong a) {
    (void)c;
    int32_t v = -1;
    if (!ok(env, cfx_waiting_advice_outcome(WA(a), &v))) return -1;
    return (jint)v;
}

JNIEXPORT jboolean FN(waitingProven)(JNIEnv *env, jclass c, jlong a) {
    (void)c;
    int32_t v = 0;
    if (!ok(env, cfx_waiting_advice_proven(WA(a), &v))) return JNI_FALSE;
    return v ? JNI_TRUE : JNI_FALSE;
}

/* {months, wait cost, total cost, proved_by (-1: waiting alone)} into out4. */
JNIEXPORT void FN(waitingSummary)(JNIEnv *env, jclass c, jlong a, jdoubleArray out4) {
    (void)c;
    if (!non_null(env, out4, "out")) return;
    uint32_t months = 0;
    int32_t by = -1;
    double v[4] = {0, 0, 0, 0};
    if (!ok(env, cfx_waiting_advice_summary(WA(a), &months, &v[1], &v[2], &by))) return;
    v[0] = (double)months;
    v[3] = (double)by;
    (*env)->SetDoubleArrayRegion(env, out4, 0, 4, v);
}

/* The waited row (final_row false) or the final row, sized by the buffer protocol. */
JNIEXPORT jdoubleArray FN(waitingRow)(JNIEnv *env, jclass c, jlong a, jboolean final_row) {
    (void)c;
    cfx_status (*get)(const cfx_waiting_advice *, double *, size_t, size_t *) =
        final_row ? cfx_waiting_advice_final_row : cfx_waiting_advice_waited_row;
    size_t len = 0;
    cfx_status st = get(WA(a), NULL, 0, &len);
    if (st != CFX_STATUS_OK && st != CFX_STATUS_BUFFER_TOO_SMALL) {
        throw_status(env, st);
        return NULL;
    }
    double *buf = malloc(sizeof(double) * (len > 0 ? len : 1));
    if (buf == NULL) {
        throw_named(env, "java/lang/OutOfMemoryError", "waiting row");
        return NULL;
    }
    size_t got = 0;
    st = get(WA(a), buf, len, &got);
    if (st != CFX_STATUS_OK) {
        free(buf);
        throw_status(env, st);
        return NULL;
    }
    jdoubleArray r = (*env)->NewDoubleArray(env, (jsize)got);
    if (r != NULL) (*env)->SetDoubleArrayRegion(env, r, 0, (jsize)got, buf);
    free(buf);
    return r;
}

JNIEXPORT jbyteArray FN(waitingDescribe)(JNIEnv *env, jclass c, jlong a) {
    (void)c;
    RETURN_STRING(env, cfx_waiting_advice_describe(WA(a), buf_, cap_, &len_));
}

JNIEXPORT jbyteArray FN(waitingToJson)(JNIEnv *env, jclass c, jlong a) {
    (void)c;
    RETURN_STRING(env, cfx_waiting_advice_to_json(WA(a), buf_, cap_, &len_));
}

#undef WA

/* ------------------------------------------------- sequential (P-DQN policy) */

#define POL(h) H(const cfx_policy, h)
#define PLAN(h) H(const cfx_plan, h)

/* The Java listener behind a cfx_progress_fn. The callback may run on a
 * thread the JVM does not know (then it is attached for the call). A Java
 * exception thrown by the listener stops training; it is kept and rethrown
 * after cfx returns, instead of CFX_STATUS_CANCELLED. */
typedef struct {
    JavaVM *vm;
    jobject listener;   /* global ref: org.cfx.Sequential$Listener */
    jmethodID on_progress; /* (JJJDDD)Z */
    jthrowable thrown;  /* global ref, or NULL */
} progress_ctx;

static bool progress_trampoline(const cfx_progress *p, void *user_data) {
    progress_ctx *ctx = user_data;
    JNIEnv *env = NULL;
    int attached = 0;
    if (ctx->thrown != NULL) return false;
    if ((*ctx->vm)->GetEnv(ctx->vm, (void **)&env, JNI_VERSION_1_8) == JNI_EDETACHED) {
        if ((*ctx->vm)->AttachCurrentThread(ctx->vm, (void **)&env, NULL) != JNI_OK) return false;
        attached = 1;
    }
    jboolean go = (*env)->CallBooleanMethod(env, ctx->listener, ctx->on_progress, (jlong)p->episodes_done,
                                           (jlong)p->episodes_total, (jlong)p->steps, p->epsilon,
                                           p->success_rate, p->mean_reward);
    bool result = go == JNI_TRUE;
    jthrowable ex = (*env)->ExceptionOccurred(env);
    if (ex != NULL) {
        (*env)->ExceptionClear(env);
        ctx->thrown = (jthrowable)(*env)->NewGlobalRef(env, ex);
        (*env)->DeleteLocalRef(env, ex);
        result = false;
    }
    if (attached) (*ctx->vm)->DetachCurrentThread(ctx->vm);
    return result;
}

JNIEXPORT jlong FN(policyTrain)(JNIEnv *env, jclass c, jlong train, jlong m, jlong config, jint reward,
                                 jobject listener) {
    (void)c;
    progress_ctx ctx = {NULL, NULL, NULL, NULL};
    if (listener != NULL) {
        if ((*env)->GetJavaVM(env, &ctx.vm) != JNI_OK) return 0;
        jclass lc = (*env)->GetObjectClass(env, listener);
        ctx.on_progress = (*env)->GetMethodID(env, lc, "onProgress", "(JJJDDD)Z");
        (*env)->DeleteLocalRef(env, lc);
        if (ctx.on_progress == NULL) return 0;
        ctx.listener = (*env)->NewGlobalRef(env, listener);
        if (ctx.listener == NULL) return 0;
    }
    const cfx_policy *p = NULL;
    cfx_status st = cfx_policy_train(H(const cfx_dataset, train), H(const cfx_model, m),
                                     H(const cfx_config, config), reward,
                                     listener ? progress_trampoline : NULL, listener ? &ctx : NULL, &p);
    jlong r = 0;
    if (ctx.thrown != NULL) {
        /* The listener's own exception wins over CANCELLED. */
        if (st == CFX_STATUS_OK && p != NULL) cfx_policy_free(p);
        (*env)->Throw(env, ctx.thrown);
        (*env)->DeleteGlobalRef(env, ctx.thrown);
    } else if (ok(env, st)) {
        r = J(p);
    }
    if (ctx.listener != NULL) (*env)->DeleteGlobalRef(env, ctx.listener);
    return r;
}

JNIEXPORT jlong FN(policyFromJson)(JNIEnv *env, jclass c, jbyteArray json) {
    (void)c;
    int fail;
    char *s = cstr_in(env, json, &fail);
    if (fail) return 0;
    const cfx_policy *p = NULL;
    cfx_status st = cfx_policy_from_json(s, &p);
    free(s);
    if (!ok(env, st)) return 0;
    return J(p);
}

JNIEXPORT jbyteArray FN(policyToJson)(JNIEnv *env, jclass c, jlong p) {
    (void)c;
    RETURN_STRING(env, cfx_policy_to_json(POL(p), buf_, cap_, &len_));
}

JNIEXPORT void FN(policySave)(JNIEnv *env, jclass c, jlong p, jbyteArray path) {
    (void)c;
    int fail;
    char *s = cstr_in(env, path, &fail);
    if (fail) return;
    cfx_status st = cfx_policy_save(POL(p), s);
    free(s);
    ok(env, st);
}

JNIEXPORT jlong FN(policyLoad)(JNIEnv *env, jclass c, jbyteArray path) {
    (void)c;
    int fail;
    char *s = cstr_in(env, path, &fail);
    if (fail) return 0;
    const cfx_policy *p = NULL;
    cfx_status st = cfx_policy_load(s, &p);
    free(s);
    if (!ok(env, st)) return 0;
    return J(p);
}

JNIEXPORT jlong FN(policyNActions)(JNIEnv *env, jclass c, jlong p) {
    (void)c;
    size_t n = 0;
    if (!ok(env, cfx_policy_n_actions(POL(p), &n))) return 0;
    return (jlong)n;
}

JNIEXPORT jlong FN(policyAnswer)(JNIEnv *env, jclass c, jlong p, jlong schema, jlong m, jdoubleArray raw) {
    (void)c;
    if (!non_null(env, raw, "raw")) return 0;
    jsize n = (*env)->GetArrayLength(env, raw);
    double *pr = (*env)->GetDoubleArrayElements(env, raw, NULL);
    if (pr == NULL) return 0;
    const cfx_plan *plan = NULL;
    cfx_status st = cfx_policy_answer(POL(p), H(const cfx_schema, schema), H(const cfx_model, m), pr, (size_t)n,
                                      &plan);
    (*env)->ReleaseDoubleArrayElements(env, raw, pr, JNI_ABORT);
    if (!ok(env, st)) return 0;
    return J(plan);
}

/* {n_instances, n_already_accepted, satisfiability, sparsity, distance, target_probability, entropy} */
JNIEXPORT void FN(policyEvaluate)(JNIEnv *env, jclass c, jlong p, jlong m, jlong test, jdoubleArray out7) {
    (void)c;
    if (!non_null(env, out7, "out")) return;
    cfx_sequential_metrics mt;
    memset(&mt, 0, sizeof mt);
    if (!ok(env, cfx_policy_evaluate(POL(p), H(const cfx_model, m), H(const cfx_dataset, test), &mt))) return;
    double v[7] = {(double)mt.n_instances, (double)mt.n_already_accepted, mt.satisfiability, mt.sparsity,
                   mt.distance, mt.target_probability, mt.entropy};
    (*env)->SetDoubleArrayRegion(env, out7, 0, 7, v);
}

JNIEXPORT jlong FN(planNSteps)(JNIEnv *env, jclass c, jlong p) {
    (void)c;
    size_t n = 0;
    if (!ok(env, cfx_plan_n_steps(PLAN(p), &n))) return 0;
    return (jlong)n;
}

/* {success, initial probability} */
JNIEXPORT void FN(planSuccess)(JNIEnv *env, jclass c, jlong p, jdoubleArray out2) {
    (void)c;
    if (!non_null(env, out2, "out")) return;
    int32_t success = 0;
    double p0 = 0;
    if (!ok(env, cfx_plan_success(PLAN(p), &success, &p0))) return;
    double v[2] = {(double)success, p0};
    (*env)->SetDoubleArrayRegion(env, out2, 0, 2, v);
}

/* {feature, from, to, probability} */
JNIEXPORT void FN(planStep)(JNIEnv *env, jclass c, jlong p, jlong index, jdoubleArray out4) {
    (void)c;
    if (!non_null(env, out4, "out")) return;
    size_t feature = 0;
    double v[4] = {0, 0, 0, 0};
    if (!ok(env, cfx_plan_step(PLAN(p), (size_t)index, &feature, &v[1], &v[2], &v[3]))) return;
    v[0] = (double)feature;
    (*env)->SetDoubleArrayRegion(env, out4, 0, 4, v);
}

JNIEXPORT jbyteArray FN(planStepText)(JNIEnv *env, jclass c, jlong p, jlong index) {
    (void)c;
    RETURN_STRING(env, cfx_plan_step_text(PLAN(p), (size_t)index, buf_, cap_, &len_));
}

JNIEXPORT jbyteArray FN(planToJson)(JNIEnv *env, jclass c, jlong p) {
    (void)c;
    RETURN_STRING(env, cfx_plan_to_json(PLAN(p), buf_, cap_, &len_));
}

#undef POL
#undef PLAN

/* ------------------------------------------- COPA (plans under model shift) */

#define UNC(h) H(const cfx_uncertainty, h)
#define COPA(h) H(const cfx_copa_result, h)

/* mean: d values; cov: d*d values row-major (lengths checked by C). */
JNIEXPORT jlong FN(uncertaintyNew)(JNIEnv *env, jclass c, jdoubleArray mean, jdoubleArray cov) {
    (void)c;
    if (!non_null(env, mean, "mean") || !non_null(env, cov, "cov")) return 0;
    jsize d = (*env)->GetArrayLength(env, mean);
    jsize nc = (*env)->GetArrayLength(env, cov);
    double *pm = (*env)->GetDoubleArrayElements(env, mean, NULL);
    if (pm == NULL) return 0;
    double *pc = (*env)->GetDoubleArrayElements(env, cov, NULL);
    if (pc == NULL) {
        (*env)->ReleaseDoubleArrayElements(env, mean, pm, JNI_ABORT);
        return 0;
    }
    const cfx_uncertainty *u = NULL;
    cfx_status st = cfx_uncertainty_new(pm, (size_t)d, pc, (size_t)nc, &u);
    (*env)->ReleaseDoubleArrayElements(env, cov, pc, JNI_ABORT);
    (*env)->ReleaseDoubleArrayElements(env, mean, pm, JNI_ABORT);
    if (!ok(env, st)) return 0;
    return J(u);
}

JNIEXPORT jlong FN(uncertaintyFromDataset)(JNIEnv *env, jclass c, jlong train, jlong refits, jlong seed) {
    (void)c;
    const cfx_uncertainty *u = NULL;
    if (!ok(env, cfx_uncertainty_from_dataset(H(const cfx_dataset, train), (size_t)refits, (uint64_t)seed, &u)))
        return 0;
    return J(u);
}

JNIEXPORT jlong FN(uncertaintyDim)(JNIEnv *env, jclass c, jlong u) {
    (void)c;
    size_t d = 0;
    if (!ok(env, cfx_uncertainty_dim(UNC(u), &d))) return 0;
    return (jlong)d;
}

/* options: n_options x dim row-major; {lower, upper, lower status, upper status} into out4. */
JNIEXPORT void FN(copaBounds)(JNIEnv *env, jclass c, jlong u, jdoubleArray options, jlong n_options, jlong dim,
                               jdouble rho, jdoubleArray out4) {
    (void)c;
    if (!non_null(env, options, "options") || !non_null(env, out4, "out")) return;
    /* Copy, not critical: the conic programs run for a while. */
    double *po = (*env)->GetDoubleArrayElements(env, options, NULL);
    if (po == NULL) return;
    double lo = 0, up = 0;
    int32_t ls = -1, us = -1;
    cfx_status st = cfx_copa_bounds(UNC(u), po, (size_t)n_options, (size_t)dim, rho, &lo, &up, &ls, &us);
    (*env)->ReleaseDoubleArrayElements(env, options, po, JNI_ABORT);
    if (!ok(env, st)) return;
    double v[4] = {lo, up, (double)ls, (double)us};
    (*env)->SetDoubleArrayRegion(env, out4, 0, 4, v);
}

JNIEXPORT jlong FN(copaPlanNew)(JNIEnv *env, jclass c, jlong schema, jlong u, jlong config, jdoubleArray raw) {
    (void)c;
    if (!non_null(env, raw, "raw")) return 0;
    jsize n = (*env)->GetArrayLength(env, raw);
    /* Copy, not critical: the plan search runs for a while. */
    double *pr = (*env)->GetDoubleArrayElements(env, raw, NULL);
    if (pr == NULL) return 0;
    const cfx_copa_result *r = NULL;
    cfx_status st = cfx_copa_plan_new(H(const cfx_schema, schema), UNC(u), H(const cfx_config, config), pr,
                                      (size_t)n, &r);
    (*env)->ReleaseDoubleArrayElements(env, raw, pr, JNI_ABORT);
    if (!ok(env, st)) return 0;
    return J(r);
}

/* cfx_copa_plan_new_checked: the plan's options checked with today's model (issue 25). */
JNIEXPORT jlong FN(copaPlanNewChecked)(JNIEnv *env, jclass c, jlong schema, jlong u, jlong m, jlong config,
                                       jdoubleArray raw) {
    (void)c;
    if (!non_null(env, raw, "raw")) return 0;
    jsize n = (*env)->GetArrayLength(env, raw);
    double *pr = (*env)->GetDoubleArrayElements(env, raw, NULL);
    if (pr == NULL) return 0;
    const cfx_copa_result *r = NULL;
    cfx_status st = cfx_copa_plan_new_checked(H(const cfx_schema, schema), UNC(u), H(const cfx_model, m),
                                              H(const cfx_config, config), pr, (size_t)n, &r);
    (*env)->ReleaseDoubleArrayElements(env, raw, pr, JNI_ABORT);
    if (!ok(env, st)) return 0;
    return J(r);
}

JNIEXPORT jint FN(copaOptionAdviceStatus)(JNIEnv *env, jclass c, jlong r, jlong k) {
    (void)c;
    int32_t status = -1;
    if (!ok(env, cfx_copa_result_option_advice_status(COPA(r), (size_t)k, &status))) return -1;
    return status;
}

JNIEXPORT jdoubleArray FN(copaOptionAdviceRaw)(JNIEnv *env, jclass c, jlong r, jlong k) {
    (void)c;
    return sized_row(env, copa_advice_row, COPA(r), (size_t)k);
}

JNIEXPORT jlong FN(copaNOptions)(JNIEnv *env, jclass c, jlong r) {
    (void)c;
    size_t n = 0;
    if (!ok(env, cfx_copa_result_n_options(COPA(r), &n))) return 0;
    return (jlong)n;
}

/* Option k as a raw row, sized by the buffer protocol. */
JNIEXPORT jdoubleArray FN(copaOptionRaw)(JNIEnv *env, jclass c, jlong r, jlong k) {
    (void)c;
    size_t len = 0;
    cfx_status st = cfx_copa_result_option_raw(COPA(r), (size_t)k, NULL, 0, &len);
    if (st != CFX_STATUS_OK && st != CFX_STATUS_BUFFER_TOO_SMALL) {
        throw_status(env, st);
        return NULL;
    }
    double *buf = malloc(sizeof(double) * (len > 0 ? len : 1));
    if (buf == NULL) {
        throw_named(env, "java/lang/OutOfMemoryError", "copa option");
        return NULL;
    }
    size_t got = 0;
    st = cfx_copa_result_option_raw(COPA(r), (size_t)k, buf, len, &got);
    if (st != CFX_STATUS_OK) {
        free(buf);
        throw_status(env, st);
        return NULL;
    }
    jdoubleArray a = (*env)->NewDoubleArray(env, (jsize)got);
    if (a != NULL) (*env)->SetDoubleArrayRegion(env, a, 0, (jsize)got, buf);
    free(buf);
    return a;
}

/* {proximity, diversity, validity, lower, upper} into out5. */
JNIEXPORT void FN(copaMetrics)(JNIEnv *env, jclass c, jlong r, jdoubleArray out5) {
    (void)c;
    if (!non_null(env, out5, "out")) return;
    double v[5] = {0, 0, 0, 0, 0};
    if (!ok(env, cfx_copa_result_metrics(COPA(r), &v[0], &v[1], &v[2], &v[3], &v[4]))) return;
    (*env)->SetDoubleArrayRegion(env, out5, 0, 5, v);
}

JNIEXPORT jbyteArray FN(copaDescribe)(JNIEnv *env, jclass c, jlong r) {
    (void)c;
    RETURN_STRING(env, cfx_copa_result_describe(COPA(r), buf_, cap_, &len_));
}

JNIEXPORT jbyteArray FN(copaToJson)(JNIEnv *env, jclass c, jlong r) {
    (void)c;
    RETURN_STRING(env, cfx_copa_result_to_json(COPA(r), buf_, cap_, &len_));
}

/* options: n_options x dim row-major; returns the corrected options in the same layout and
 * writes {L* before, L* after} into out2. */
JNIEXPORT jdoubleArray FN(copaCorrect)(JNIEnv *env, jclass c, jlong u, jdoubleArray options, jlong n_options,
                                        jlong dim, jdouble rho, jdouble delta, jdoubleArray out2) {
    (void)c;
    if (!non_null(env, options, "options") || !non_null(env, out2, "out")) return NULL;
    if (n_options < 0 || dim < 0 || (dim > 0 && n_options > (jlong)(INT32_MAX / dim))) {
        throw_named(env, "java/lang/IllegalArgumentException", "n_options x dim does not fit a Java array");
        return NULL;
    }
    size_t cap = (size_t)n_options * (size_t)dim;
    double *out = malloc(sizeof(double) * (cap > 0 ? cap : 1));
    if (out == NULL) {
        throw_named(env, "java/lang/OutOfMemoryError", "copa correction");
        return NULL;
    }
    /* Copy, not critical: the conic programs run for a while. */
    double *po = (*env)->GetDoubleArrayElements(env, options, NULL);
    if (po == NULL) {
        free(out);
        return NULL;
    }
    size_t len = 0;
    double v[2] = {0, 0};
    cfx_status st = cfx_copa_correct(UNC(u), po, (size_t)n_options, (size_t)dim, rho, delta, out, cap, &len,
                                     &v[0], &v[1]);
    (*env)->ReleaseDoubleArrayElements(env, options, po, JNI_ABORT);
    if (!ok(env, st)) {
        free(out);
        return NULL;
    }
    jdoubleArray a = (*env)->NewDoubleArray(env, (jsize)len);
    if (a != NULL) (*env)->SetDoubleArrayRegion(env, a, 0, (jsize)len, out);
    free(out);
    if (a != NULL) (*env)->SetDoubleArrayRegion(env, out2, 0, 2, v);
    return a;
}

#undef UNC
#undef COPA

/* ------------------------------------------------------------- portfolio */

/* The Java listener behind a cfx_portfolio_progress_fn. cfx calls it on the
 * caller's (this JVM) thread; a Java exception thrown by the listener stops
 * the run and is rethrown after cfx returns, instead of CFX_STATUS_CANCELLED. */
typedef struct {
    JNIEnv *env;
    jobject listener;      /* org.cfx.Portfolio$ProgressListener (local ref, valid for the call) */
    jmethodID on_progress; /* (J)Z */
    jthrowable thrown;     /* local ref, or NULL */
} portfolio_ctx;

static bool portfolio_trampoline(size_t rows_done, void *user_data) {
    portfolio_ctx *ctx = user_data;
    JNIEnv *env = ctx->env;
    if (ctx->thrown != NULL) return false;
    jboolean go = (*env)->CallBooleanMethod(env, ctx->listener, ctx->on_progress, (jlong)rows_done);
    jthrowable ex = (*env)->ExceptionOccurred(env);
    if (ex != NULL) {
        (*env)->ExceptionClear(env);
        ctx->thrown = ex;
        return false;
    }
    return go == JNI_TRUE;
}

/* {rows, accepted, declined, with_recourse, errors} into out5 (a long[]). ignore: byte[][] of
 * NUL-terminated UTF-8 column names. */
JNIEXPORT void FN(portfolioExplain)(JNIEnv *env, jclass c, jlong schema, jlong m, jlong config,
                                     jbyteArray input, jbyteArray output, jobjectArray ignore,
                                     jlong threads, jobject listener, jlongArray out5) {
    (void)c;
    if (!non_null(env, out5, "out") || !non_null(env, ignore, "ignore")) return;
    portfolio_ctx ctx = {env, listener, NULL, NULL};
    if (listener != NULL) {
        jclass lc = (*env)->GetObjectClass(env, listener);
        ctx.on_progress = (*env)->GetMethodID(env, lc, "onProgress", "(J)Z");
        (*env)->DeleteLocalRef(env, lc);
        if (ctx.on_progress == NULL) return;
    }
    jsize n = (*env)->GetArrayLength(env, ignore);
    char **names = calloc((size_t)n + 1, sizeof(char *));
    if (names == NULL) {
        throw_named(env, "java/lang/OutOfMemoryError", "ignored columns");
        return;
    }
    int fail = 0;
    for (jsize i = 0; i < n && !fail; i++) {
        jbyteArray b = (jbyteArray)(*env)->GetObjectArrayElement(env, ignore, i);
        names[i] = cstr_in(env, b, &fail);
        if (b != NULL) (*env)->DeleteLocalRef(env, b);
    }
    char *in = fail ? NULL : cstr_in(env, input, &fail);
    char *out = fail ? NULL : cstr_in(env, output, &fail);
    if (!fail) {
        cfx_portfolio_counts counts = {0, 0, 0, 0, 0};
        cfx_status st = cfx_portfolio_explain(
            H(const cfx_schema, schema), H(const cfx_model, m), H(const cfx_config, config), in, out,
            (const char *const *)names, (size_t)n, (size_t)threads, listener ? portfolio_trampoline : NULL,
            listener ? &ctx : NULL, &counts);
        if (ctx.thrown != NULL) {
            (*env)->Throw(env, ctx.thrown); /* the listener's own exception wins over CANCELLED */
        } else if (ok(env, st)) {
            jlong v[5] = {(jlong)counts.rows, (jlong)counts.accepted, (jlong)counts.declined,
                          (jlong)counts.with_recourse, (jlong)counts.errors};
            (*env)->SetLongArrayRegion(env, out5, 0, 5, v);
        }
    }
    for (jsize i = 0; i < n; i++) free(names[i]);
    free(names);
    free(in);
    free(out);
}

#define PS(h) H(const cfx_portfolio_summary, h)

/* group: NULL = no breakdown; edges: NULL or empty = one group per distinct cell. */
JNIEXPORT jlong FN(portfolioSummarize)(JNIEnv *env, jclass c, jlong schema, jbyteArray input,
                                        jbyteArray output, jbyteArray group, jdoubleArray edges) {
    (void)c;
    int f1 = 0, f2 = 0, f3 = 0;
    char *in = cstr_in(env, input, &f1);
    char *out = f1 ? NULL : cstr_in(env, output, &f2);
    char *g = (f1 || f2) ? NULL : cstr_in(env, group, &f3);
    jlong r = 0;
    if (!f1 && !f2 && !f3) {
        jsize n = edges ? (*env)->GetArrayLength(env, edges) : 0;
        double *pe = n > 0 ? (*env)->GetDoubleArrayElements(env, edges, NULL) : NULL;
        if (n == 0 || pe != NULL) {
            const cfx_portfolio_summary *s = NULL;
            cfx_status st = cfx_portfolio_summarize(H(const cfx_schema, schema), in, out, g, pe, (size_t)n, &s);
            if (pe != NULL) (*env)->ReleaseDoubleArrayElements(env, edges, pe, JNI_ABORT);
            if (ok(env, st)) r = J(s);
        }
    }
    free(in);
    free(out);
    free(g);
    return r;
}

JNIEXPORT jlong FN(portfolioSummaryNGroups)(JNIEnv *env, jclass c, jlong s) {
    (void)c;
    size_t n = 0;
    if (!ok(env, cfx_portfolio_summary_n_groups(PS(s), &n))) return 0;
    return (jlong)n;
}

/* {rows, accepted, declined, with_recourse, errors, share, median cost, p90 cost} into out8. */
JNIEXPORT void FN(portfolioSummaryCounts)(JNIEnv *env, jclass c, jlong s, jlong group, jdoubleArray out8) {
    (void)c;
    if (!non_null(env, out8, "out")) return;
    cfx_portfolio_counts k = {0, 0, 0, 0, 0};
    double share = 0, median = 0, p90 = 0;
    if (!ok(env, cfx_portfolio_summary_counts(PS(s), (int64_t)group, &k, &share, &median, &p90))) return;
    double v[8] = {(double)k.rows, (double)k.accepted, (double)k.declined, (double)k.with_recourse,
                   (double)k.errors, share, median, p90};
    (*env)->SetDoubleArrayRegion(env, out8, 0, 8, v);
}

/* {n, mean, min, p10, p25, median, p75, p90, max} into out9. */
JNIEXPORT void FN(portfolioSummaryCostQuantiles)(JNIEnv *env, jclass c, jlong s, jlong group, jdoubleArray out9) {
    (void)c;
    if (!non_null(env, out9, "out")) return;
    double v[9];
    size_t len = 0;
    if (!ok(env, cfx_portfolio_summary_cost_quantiles(PS(s), (int64_t)group, v, 9, &len))) return;
    (*env)->SetDoubleArrayRegion(env, out9, 0, 9, v);
}

JNIEXPORT jbyteArray FN(portfolioSummaryGroupName)(JNIEnv *env, jclass c, jlong s, jlong group) {
    (void)c;
    RETURN_STRING(env, cfx_portfolio_summary_group_name(PS(s), (int64_t)group, buf_, cap_, &len_));
}

JNIEXPORT jbyteArray FN(portfolioSummaryDescribe)(JNIEnv *env, jclass c, jlong s, jlong top) {
    (void)c;
    RETURN_STRING(env, cfx_portfolio_summary_describe(PS(s), (size_t)top, buf_, cap_, &len_));
}

JNIEXPORT jbyteArray FN(portfolioSummaryToJson)(JNIEnv *env, jclass c, jlong s) {
    (void)c;
    RETURN_STRING(env, cfx_portfolio_summary_to_json(PS(s), buf_, cap_, &len_));
}

JNIEXPORT void FN(portfolioSummaryWriteSvg)(JNIEnv *env, jclass c, jlong s, jbyteArray title, jlong top,
                                             jbyteArray path) {
    (void)c;
    int f1 = 0, f2 = 0;
    char *t = cstr_in(env, title, &f1);
    char *p = f1 ? NULL : cstr_in(env, path, &f2);
    if (!f1 && !f2) ok(env, cfx_portfolio_summary_write_svg(PS(s), t, (size_t)top, p));
    free(t);
    free(p);
}

/* ------------------------------------------ advice ledger and re-validation (issue 28) */

/* robust may be 0 (no robust version); issued and group may be null. */
JNIEXPORT jbyteArray FN(ledgerRecordFromResult)(JNIEnv *env, jclass c, jlong r, jlong robust, jbyteArray id,
                                                 jbyteArray issued, jbyteArray group) {
    (void)c;
    int f1 = 0, f2 = 0, f3 = 0;
    char *i = cstr_in(env, id, &f1);
    char *d = f1 ? NULL : cstr_in(env, issued, &f2);
    char *g = (f1 || f2) ? NULL : cstr_in(env, group, &f3);
    jbyteArray out = NULL;
    if (!f1 && !f2 && !f3) {
        size_t len = 0;
        cfx_status st = cfx_ledger_record_from_coherent_result(
            H(const cfx_coherent_result, r), H(const cfx_coherent_result, robust), i, d, g, NULL, 0, &len);
        char *buf = NULL;
        if (st == CFX_STATUS_BUFFER_TOO_SMALL) {
            buf = malloc(len);
            if (buf == NULL) {
                throw_named(env, "java/lang/OutOfMemoryError", "ledger record");
            } else {
                st = cfx_ledger_record_from_coherent_result(H(const cfx_coherent_result, r),
                                                            H(const cfx_coherent_result, robust), i, d, g, buf,
                                                            len, &len);
            }
        }
        if (buf != NULL || st != CFX_STATUS_BUFFER_TOO_SMALL) {
            if (ok(env, st)) out = bytes_out(env, buf ? buf : "", buf ? strlen(buf) : 0);
        }
        free(buf);
    }
    free(i);
    free(d);
    free(g);
    return out;
}

/* The re-validation JSON of one ledger line. */
JNIEXPORT jbyteArray FN(revalidateRecord)(JNIEnv *env, jclass c, jlong schema, jlong m, jlong config,
                                           jbyteArray record) {
    (void)c;
    int f = 0;
    char *rec = cstr_in(env, record, &f);
    if (f) return NULL;
    size_t len = 0;
    cfx_status st = cfx_revalidate_record(H(const cfx_schema, schema), H(const cfx_model, m),
                                          H(const cfx_config, config), rec, NULL, 0, &len);
    char *buf = NULL;
    if (st == CFX_STATUS_BUFFER_TOO_SMALL) {
        buf = malloc(len);
        if (buf == NULL) {
            free(rec);
            throw_named(env, "java/lang/OutOfMemoryError", "re-validation");
            return NULL;
        }
        st = cfx_revalidate_record(H(const cfx_schema, schema), H(const cfx_model, m), H(const cfx_config, config),
                                   rec, buf, len, &len);
    }
    free(rec);
    jbyteArray out = NULL;
    if (ok(env, st)) out = bytes_out(env, buf ? buf : "", buf ? strlen(buf) : 0);
    free(buf);
    return out;
}

/* Streams the ledger file and returns the deployment report's JSON (the report handle is
 * read and freed here). */
JNIEXPORT jbyteArray FN(revalidateLedger)(JNIEnv *env, jclass c, jlong schema, jlong m, jlong config,
                                           jbyteArray input, jbyteArray output, jlong threads, jlong chunkRows) {
    (void)c;
    int f1 = 0, f2 = 0;
    char *in = cstr_in(env, input, &f1);
    char *out = f1 ? NULL : cstr_in(env, output, &f2);
    jbyteArray json = NULL;
    if (!f1 && !f2) {
        const cfx_deployment_report *report = NULL;
        cfx_status st = cfx_revalidate_ledger(H(const cfx_schema, schema), H(const cfx_model, m),
                                              H(const cfx_config, config), in, out, (size_t)threads,
                                              (size_t)chunkRows, &report);
        if (ok(env, st)) {
            size_t len = 0;
            char *buf = NULL;
            st = cfx_deployment_report_to_json(report, NULL, 0, &len);
            if (st == CFX_STATUS_BUFFER_TOO_SMALL) {
                buf = malloc(len);
                if (buf == NULL) {
                    throw_named(env, "java/lang/OutOfMemoryError", "deployment report");
                } else {
                    st = cfx_deployment_report_to_json(report, buf, len, &len);
                    if (ok(env, st)) json = bytes_out(env, buf, strlen(buf));
                }
            } else {
                ok(env, st);
            }
            free(buf);
            cfx_deployment_report_free(report);
        }
    }
    free(in);
    free(out);
    return json;
}

/* The ledger line of counterfactual k of a diverse result; robust may be 0, issued and
 * group may be null. */
JNIEXPORT jbyteArray FN(ledgerRecordFromResultAt)(JNIEnv *env, jclass c, jlong r, jlong k, jlong robust,
                                                   jbyteArray id, jbyteArray issued, jbyteArray group) {
    (void)c;
    int f1 = 0, f2 = 0, f3 = 0;
    char *i = cstr_in(env, id, &f1);
    char *d = f1 ? NULL : cstr_in(env, issued, &f2);
    char *g = (f1 || f2) ? NULL : cstr_in(env, group, &f3);
    jbyteArray out = NULL;
    if (!f1 && !f2 && !f3) {
        size_t len = 0;
        cfx_status st = cfx_ledger_record_from_coherent_result_at(
            H(const cfx_coherent_result, r), (size_t)k, H(const cfx_coherent_result, robust), i, d, g, NULL, 0,
            &len);
        char *buf = NULL;
        if (st == CFX_STATUS_BUFFER_TOO_SMALL) {
            buf = malloc(len);
            if (buf == NULL) {
                throw_named(env, "java/lang/OutOfMemoryError", "ledger record");
            } else {
                st = cfx_ledger_record_from_coherent_result_at(H(const cfx_coherent_result, r), (size_t)k,
                                                               H(const cfx_coherent_result, robust), i, d, g, buf,
                                                               len, &len);
            }
        }
        if (buf != NULL || st != CFX_STATUS_BUFFER_TOO_SMALL) {
            if (ok(env, st)) out = bytes_out(env, buf ? buf : "", buf ? strlen(buf) : 0);
        }
        free(buf);
    }
    free(i);
    free(d);
    free(g);
    return out;
}

static jbyteArray report_json(JNIEnv *env, const cfx_deployment_report *report) {
    RETURN_STRING(env, cfx_deployment_report_to_json(report, buf_, cap_, &len_));
}

static jbyteArray report_html(JNIEnv *env, const cfx_deployment_report *report, const char *title) {
    RETURN_STRING(env, cfx_deployment_report_to_html(report, title, buf_, cap_, &len_));
}

/* Streams the ledger file and returns {report JSON, report HTML page headed title (null =
 * cfx's default)} (the report handle is read and freed here). */
JNIEXPORT jobjectArray FN(revalidateLedgerWithHtml)(JNIEnv *env, jclass c, jlong schema, jlong m, jlong config,
                                                    jbyteArray input, jbyteArray output, jlong threads,
                                                    jlong chunkRows, jbyteArray title) {
    (void)c;
    int f1 = 0, f2 = 0, f3 = 0;
    char *in = cstr_in(env, input, &f1);
    char *out = f1 ? NULL : cstr_in(env, output, &f2);
    char *t = (f1 || f2) ? NULL : cstr_in(env, title, &f3);
    jobjectArray pair = NULL;
    if (!f1 && !f2 && !f3) {
        const cfx_deployment_report *report = NULL;
        cfx_status st = cfx_revalidate_ledger(H(const cfx_schema, schema), H(const cfx_model, m),
                                              H(const cfx_config, config), in, out, (size_t)threads,
                                              (size_t)chunkRows, &report);
        if (ok(env, st)) {
            jbyteArray json = report_json(env, report);
            jbyteArray html = json ? report_html(env, report, t) : NULL;
            jclass bytes = html ? (*env)->FindClass(env, "[B") : NULL;
            if (bytes != NULL) pair = (*env)->NewObjectArray(env, 2, bytes, NULL);
            if (pair != NULL) {
                (*env)->SetObjectArrayElement(env, pair, 0, json);
                (*env)->SetObjectArrayElement(env, pair, 1, html);
            }
            cfx_deployment_report_free(report);
        }
    }
    free(in);
    free(out);
    free(t);
    return pair;
}

/* The ledger line of waiting advice; issued and group may be null. */
JNIEXPORT jbyteArray FN(ledgerRecordFromAdvice)(JNIEnv *env, jclass c, jlong a, jbyteArray id, jbyteArray issued,
                                                 jbyteArray group) {
    (void)c;
    int f1 = 0, f2 = 0, f3 = 0;
    char *i = cstr_in(env, id, &f1);
    char *d = f1 ? NULL : cstr_in(env, issued, &f2);
    char *g = (f1 || f2) ? NULL : cstr_in(env, group, &f3);
    jbyteArray out = NULL;
    if (!f1 && !f2 && !f3) {
        size_t len = 0;
        cfx_status st = cfx_ledger_record_from_waiting_advice(H(const cfx_waiting_advice, a), i, d, g, NULL, 0, &len);
        char *buf = NULL;
        if (st == CFX_STATUS_BUFFER_TOO_SMALL) {
            buf = malloc(len);
            if (buf == NULL) {
                throw_named(env, "java/lang/OutOfMemoryError", "ledger record");
            } else {
                st = cfx_ledger_record_from_waiting_advice(H(const cfx_waiting_advice, a), i, d, g, buf, len, &len);
            }
        }
        if (buf != NULL || st != CFX_STATUS_BUFFER_TOO_SMALL) {
            if (ok(env, st)) out = bytes_out(env, buf ? buf : "", buf ? strlen(buf) : 0);
        }
        free(buf);
    }
    free(i);
    free(d);
    free(g);
    return out;
}
