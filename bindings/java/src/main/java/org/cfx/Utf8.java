package org.cfx;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.Objects;

/** UTF-8 conversions for the JNI shim (never JNI's modified UTF-8). */
final class Utf8 {
    private Utf8() {}

    /** NUL-terminated UTF-8 of {@code s}; refuses an embedded NUL (C would cut the string there). */
    static byte[] cstr(String s, String what) {
        Objects.requireNonNull(s, what);
        if (s.indexOf('\0') >= 0) {
            throw new IllegalArgumentException(what + " contains a NUL character");
        }
        byte[] b = s.getBytes(StandardCharsets.UTF_8);
        return Arrays.copyOf(b, b.length + 1);
    }

    /** Like {@link #cstr} but {@code null} stays {@code null}. */
    static byte[] cstrOrNull(String s, String what) {
        return s == null ? null : cstr(s, what);
    }

    static String str(byte[] b) {
        return new String(b, StandardCharsets.UTF_8);
    }

    static long index(long i, String what) {
        if (i < 0) {
            throw new IndexOutOfBoundsException(what + " " + i + " is negative");
        }
        return i;
    }

    static long count(long n, String what) {
        if (n < 0) {
            throw new IllegalArgumentException(what + " " + n + " is negative");
        }
        return n;
    }
}
