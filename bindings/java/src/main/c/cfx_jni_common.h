/* Helpers shared by the JNI shim's hand-written (cfx_jni.c) and generated
 * (cfx_jni_generated.c) entry points.
 *
 * Rules (ffi-style.md §2.10), which every entry point keeps:
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
#ifndef CFX_JNI_COMMON_H
#define CFX_JNI_COMMON_H

#include <jni.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "cfx.h"

extern jclass g_cfx_exception_class;    /* org.cfx.CfxException (global ref), set by JNI_OnLoad */
extern jmethodID g_cfx_exception_ctor;  /* (ILjava/lang/String;[B)V */

#define HANDLE(ctype, h) ((ctype)(intptr_t)(h))
#define H(type, h) ((type *)(intptr_t)(h))
#define J(p) ((jlong)(intptr_t)(p))

static inline void throw_named(JNIEnv *env, const char *cls, const char *msg) {
    jclass c = (*env)->FindClass(env, cls);
    if (c != NULL) (*env)->ThrowNew(env, c, msg);
}

static inline jbyteArray bytes_out(JNIEnv *env, const char *s, size_t n) {
    jbyteArray a = (*env)->NewByteArray(env, (jsize)n);
    if (a != NULL && n > 0) (*env)->SetByteArrayRegion(env, a, 0, (jsize)n, (const jbyte *)s);
    return a;
}

/* The length of the text in a string buffer of `cap` bytes (up to its NUL). */
static inline size_t text_len(const char *buf, size_t cap) {
    size_t n = 0;
    while (buf != NULL && n < cap && buf[n] != '\0') n++;
    return n;
}

/* Throws CfxException for a non-OK status. Must be the first cfx call after
 * the failure on this thread (the last error is per thread). */
static inline void throw_status(JNIEnv *env, cfx_status st) {
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
    jobject ex = (*env)->NewObject(env, g_cfx_exception_class, g_cfx_exception_ctor, (jint)st, name, bytes);
    if (ex != NULL) (*env)->Throw(env, (jthrowable)ex);
}

/* 1 when OK; otherwise throws and returns 0. */
static inline int ok(JNIEnv *env, cfx_status st) {
    if (st == CFX_STATUS_OK) return 1;
    throw_status(env, st);
    return 0;
}

static inline int non_null(JNIEnv *env, const void *p, const char *what) {
    if (p != NULL) return 1;
    throw_named(env, "java/lang/NullPointerException", what);
    return 0;
}

/* A size_t argument passed as a Java long: negatives are refused. */
static inline int non_negative(JNIEnv *env, jlong v, const char *what) {
    if (v >= 0) return 1;
    throw_named(env, "java/lang/IllegalArgumentException", what);
    return 0;
}

/* A uint32_t argument passed as a Java long. */
static inline int fits_u32(JNIEnv *env, jlong v, const char *what) {
    if (v >= 0 && v <= (jlong)UINT32_MAX) return 1;
    throw_named(env, "java/lang/IllegalArgumentException", what);
    return 0;
}

/* An array of `len` values holds `rows` rows of `width` values. */
static inline int rows_fit(JNIEnv *env, size_t len, size_t rows, size_t width, const char *what) {
    if (width == 0 || rows <= len / width) return 1;
    throw_named(env, "java/lang/IllegalArgumentException", what);
    return 0;
}

/* A caller-provided output array of at least n values. */
static inline int out_fits(JNIEnv *env, jarray a, size_t n) {
    if (!non_null(env, a, "out")) return 0;
    if ((size_t)(*env)->GetArrayLength(env, a) >= n) return 1;
    throw_named(env, "java/lang/IllegalArgumentException", "out array too short");
    return 0;
}

/* A NUL-terminated copy of a Java byte[] (the Java side appends the NUL);
 * NULL array -> NULL string. *fail is set when an exception is pending. */
static inline char *cstr_in(JNIEnv *env, jbyteArray a, int *fail) {
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

/* A copy of a Java double[] (NULL for a NULL or empty array, *n its length);
 * *fail set when an exception is pending. */
static inline double *doubles_in(JNIEnv *env, jdoubleArray a, size_t *n, int *fail) {
    *fail = 0;
    *n = 0;
    if (a == NULL) return NULL;
    jsize len = (*env)->GetArrayLength(env, a);
    if (len == 0) return NULL;
    double *out = malloc(sizeof(double) * (size_t)len);
    if (out == NULL) {
        throw_named(env, "java/lang/OutOfMemoryError", "double array");
        *fail = 1;
        return NULL;
    }
    (*env)->GetDoubleArrayRegion(env, a, 0, len, out);
    *n = (size_t)len;
    return out;
}

/* Copies a Java long[] into a size_t array (NULL for a NULL or empty array);
 * negative values are refused. *fail set when an exception is pending. */
static inline size_t *sizes_in(JNIEnv *env, jlongArray a, const char *what, size_t *n, int *fail) {
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
        throw_named(env, "java/lang/OutOfMemoryError", what);
        *fail = 1;
        return NULL;
    }
    (*env)->GetLongArrayRegion(env, a, 0, len, tmp);
    for (jsize i = 0; i < len; i++) {
        if (tmp[i] < 0) {
            free(tmp);
            free(out);
            throw_named(env, "java/lang/IllegalArgumentException", what);
            *fail = 1;
            return NULL;
        }
        out[i] = (size_t)tmp[i];
    }
    free(tmp);
    *n = (size_t)len;
    return out;
}

/* NUL-terminated copies of a Java byte[][] (NULL entries pass as NULL, for the
 * C function to accept or refuse; a NULL array is 0 strings). Free with
 * free_cstrs. *fail set when an exception is pending. */
static inline char **cstrs_in(JNIEnv *env, jobjectArray a, const char *what, size_t *n, int *fail) {
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
    *n = (size_t)len;
    for (jsize i = 0; i < len && !*fail; i++) {
        jbyteArray one = (jbyteArray)(*env)->GetObjectArrayElement(env, a, i);
        if ((*env)->ExceptionCheck(env)) {
            *fail = 1;
            break;
        }
        if (one == NULL) continue;
        v[i] = cstr_in(env, one, fail);
        (*env)->DeleteLocalRef(env, one);
    }
    return v;
}

static inline void free_cstrs(char **v, size_t n) {
    if (v == NULL) return;
    for (size_t i = 0; i < n; i++) free(v[i]);
    free(v);
}

#endif /* CFX_JNI_COMMON_H */
