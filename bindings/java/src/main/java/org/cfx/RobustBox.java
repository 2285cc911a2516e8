package org.cfx;

/**
 * The neighbourhood robust advice on a tree ensemble proves accepted ({@code cfx_robust_box}), set
 * with {@link ConfigBuilder#robustBox(RobustBox)}.
 */
public enum RobustBox {
    /**
     * Every real value within each changeable value's half-width of the answer's, neither clipped to
     * the range nor rounded (the default).
     */
    REALS(0),
    /**
     * Every value the applicant can actually end at: a slip clipped to the feature's range and
     * rounded to the data's grid (whole numbers, or {@code lower + k·step}); Γ is estimated under the
     * same slips. A logistic model refuses it.
     */
    REACHABLE_VALUES(1);

    final int code;

    RobustBox(int code) {
        this.code = code;
    }
}
