package org.cfx;

import java.nio.charset.StandardCharsets;

/**
 * A non-OK {@code cfx_status} from the native library: carries the status number, its name
 * ({@code CFX_STATUS_...}) and the library's last-error message, read on the calling thread right
 * after the failed call.
 */
public final class CfxException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    private final int status;
    private final String statusName;
    private final String detail;

    /** Called from the JNI shim. */
    CfxException(int status, String statusName, byte[] utf8Message) {
        this(status, statusName, new String(utf8Message, StandardCharsets.UTF_8));
    }

    CfxException(int status, String statusName, String detail) {
        super(statusName + ": " + detail);
        this.status = status;
        this.statusName = statusName;
        this.detail = detail;
    }

    /** The {@code cfx_status} number (stable across versions). */
    public int status() {
        return status;
    }

    /** The status as an enum constant ({@link Status#UNKNOWN} for a number this binding does not know). */
    public Status statusCode() {
        return Status.of(status);
    }

    /** The status name, e.g. {@code "CFX_STATUS_DIMENSION_MISMATCH"}. */
    public String statusName() {
        return statusName;
    }

    /** The library's readable explanation (without the status name). */
    public String detail() {
        return detail;
    }
}
