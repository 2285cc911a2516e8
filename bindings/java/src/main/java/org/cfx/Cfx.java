package org.cfx;

/** Library-wide facts: versions, status names, and the panic self-test. */
public final class Cfx {
    private Cfx() {}

    /** The C ABI this binding was built for; loading refuses any other. */
    public static final int BUILT_FOR_ABI = Native.BUILT_FOR_ABI;

    /** {@code cfx_version_string()}, e.g. "0.1.0". */
    public static String version() {
        Native.load();
        return Utf8.str(NativeGenerated.versionString());
    }

    /** {@code {major, minor, patch}} from {@code cfx_version_major/minor/patch()}. */
    public static int[] versionNumbers() {
        Native.load();
        return new int[] {
            (int) NativeGenerated.versionMajor(), (int) NativeGenerated.versionMinor(), (int) NativeGenerated.versionPatch()
        };
    }

    /** {@code cfx_abi_version()} of the loaded library. */
    public static int abiVersion() {
        Native.load();
        return Native.abiVersion();
    }

    /** {@code cfx_status_str(status)}: the C name of any number ("CFX_STATUS_UNKNOWN" if none). */
    public static String statusName(int status) {
        Native.load();
        return Utf8.str(NativeGenerated.statusStr(status));
    }

    /**
     * The calling thread's last error message ({@code cfx_last_error_length/message}); empty when
     * the last cfx call on this thread succeeded. Failed calls already put it in their {@link
     * CfxException}.
     */
    public static String lastErrorMessage() {
        Native.load();
        return Utf8.str(Native.lastErrorMessage());
    }

    /** Whether the loaded library has {@code cfx_testing_panic} (built with feature `testing`). */
    public static boolean hasTestingPanic() {
        Native.load();
        return Native.hasTestingPanic();
    }

    /**
     * Calls {@code cfx_testing_panic()}: a deliberate Rust panic, caught at the C boundary and
     * thrown here as a {@link CfxException} with status {@link Status#PANIC}.
     */
    public static void testingPanic() {
        Native.load();
        NativeGenerated.testingPanic();
    }
}
