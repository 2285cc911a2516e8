package org.cfx;

/** The {@code cfx_status} numbers of include/cfx.h (stable: never renumbered). */
public enum Status {
    OK(0),
    NULL_ARGUMENT(1),
    INVALID_ARGUMENT(2),
    DIMENSION_MISMATCH(3),
    BUFFER_TOO_SMALL(4),
    NOT_FOUND(5),
    INVALID_SCHEMA(6),
    INCOHERENT(7),
    DATA_ERROR(8),
    FORMAT_ERROR(9),
    IO_ERROR(10),
    SOLVER_ERROR(11),
    CANCELLED(12),
    PANIC(99),
    /** A number this binding does not know (a newer library). */
    UNKNOWN(-1);

    private final int code;

    Status(int code) {
        this.code = code;
    }

    /** The C value. */
    public int code() {
        return code;
    }

    /** The constant for a C value, {@link #UNKNOWN} when there is none. */
    public static Status of(int code) {
        for (Status s : values()) {
            if (s.code == code) {
                return s;
            }
        }
        return UNKNOWN;
    }

    /** The library's own name for this status ({@code cfx_status_str}). */
    public String cName() {
        return Utf8.str(NativeGenerated.statusStr(code));
    }
}
