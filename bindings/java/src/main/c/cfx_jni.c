/* JNI shim over include/cfx.h for the org.cfx Java classes: the entry points kept by hand.
 *
 * Every other C function crosses through the generated cfx_jni_generated.c
 * (bindings/gen/emit_java.py, `make bindings`); the functions kept here are
 * listed with their reasons in bindings/gen/overrides_java.toml. The rules that
 * every entry point keeps (handles as jlong, CfxException thrown after the C
 * call returned, pinned arrays released before anything is thrown, strings as
 * UTF-8 byte[]) are stated in cfx_jni_common.h, with the shared helpers.
 */
#include <stdbool.h>

#include "cfx_jni_common.h"

jclass g_cfx_exception_class;    /* org.cfx.CfxException (global ref) */
jmethodID g_cfx_exception_ctor;  /* (ILjava/lang/String;[B)V */

JNIEXPORT jint JNICALL JNI_OnLoad(JavaVM *vm, void *reserved) {
    (void)reserved;
    JNIEnv *env;
    if ((*vm)->GetEnv(vm, (void **)&env, JNI_VERSION_1_8) != JNI_OK) return JNI_ERR;
    jclass local = (*env)->FindClass(env, "org/cfx/CfxException");
    if (local == NULL) return JNI_ERR;
    g_cfx_exception_class = (jclass)(*env)->NewGlobalRef(env, local);
    (*env)->DeleteLocalRef(env, local);
    if (g_cfx_exception_class == NULL) return JNI_ERR;
    g_cfx_exception_ctor =
        (*env)->GetMethodID(env, g_cfx_exception_class, "<init>", "(ILjava/lang/String;[B)V");
    if (g_cfx_exception_ctor == NULL) return JNI_ERR;
    return JNI_VERSION_1_8;
}

JNIEXPORT void JNICALL JNI_OnUnload(JavaVM *vm, void *reserved) {
    (void)reserved;
    JNIEnv *env;
    if ((*vm)->GetEnv(vm, (void **)&env, JNI_VERSION_1_8) == JNI_OK && g_cfx_exception_class)
        (*env)->DeleteGlobalRef(env, g_cfx_exception_class);
}

#define FN(name) JNICALL Java_org_cfx_Native_##name

/* ---------------------------------------------------------------- version */

/* Called by Native's static initializer (the ABI check) before anything else. */
JNIEXPORT jint FN(abiVersion)(JNIEnv *env, jclass c) { (void)env; (void)c; return (jint)cfx_abi_version(); }
JNIEXPORT jint FN(headerAbiVersion)(JNIEnv *env, jclass c) { (void)env; (void)c; return CFX_ABI_VERSION; }

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

/* ------------------------------------------------------------------ model */

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

/* ------------------------------------------------- sequential (P-DQN policy) */

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
