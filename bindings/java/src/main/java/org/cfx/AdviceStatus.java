package org.cfx;

/**
 * What a method's answer is as advice ({@code cfx_advice_status}, issue 25): the model accepts it, the
 * exact engine repaired it, or there is no valid advice (the method's row is kept for diagnosis only).
 */
public enum AdviceStatus {
    /** The method's own row: accepted by the model and actionable. */
    VALID(0),
    /** The exact engine's cheapest accepted row over the features the method moved. */
    REPAIRED_MOVED_FEATURES(1),
    /** The exact engine's cheapest accepted row over every actionable feature. */
    REPAIRED_WHOLE_SCHEMA(2),
    /** No valid advice found. */
    NO_ADVICE(3);

    /** The C value. */
    public final int code;

    AdviceStatus(int code) {
        this.code = code;
    }

    /** Whether there is advice (valid or repaired). */
    public boolean hasAdvice() {
        return this != NO_ADVICE;
    }

    static AdviceStatus of(int code) {
        for (AdviceStatus s : values()) {
            if (s.code == code) {
                return s;
            }
        }
        throw new IllegalStateException("unknown cfx_advice_status " + code);
    }
}
