package org.cfx;

/**
 * The largest move of a contiguous feature away from the applicant's own value (issue #16): none, in
 * the feature's raw units, or as a fraction of the applicant's value ({@code cfx_change_limit}).
 * Immutable.
 */
public final class ChangeLimit {
    /** How the limit is given ({@code cfx_change_limit}). */
    public enum Kind {
        NONE(0),
        UNITS(1),
        FRACTION(2);

        final int code;

        Kind(int code) {
            this.code = code;
        }
    }

    /** No limit. */
    public static final ChangeLimit NONE = new ChangeLimit(Kind.NONE, 0);

    final Kind kind;
    final double value;

    private ChangeLimit(Kind kind, double value) {
        this.kind = kind;
        this.value = value;
    }

    /** At most {@code units} raw units (e.g. 12 months). */
    public static ChangeLimit units(double units) {
        return new ChangeLimit(Kind.UNITS, units);
    }

    /** At most {@code fraction} of the applicant's value (e.g. 0.5: half of it). */
    public static ChangeLimit fraction(double fraction) {
        return new ChangeLimit(Kind.FRACTION, fraction);
    }

    public Kind kind() {
        return kind;
    }

    public double value() {
        return value;
    }

    @Override
    public String toString() {
        return kind == Kind.NONE ? "no limit" : kind == Kind.UNITS ? value + " units" : value + " of the value";
    }
}
