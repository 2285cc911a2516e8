package org.cfx;

/** How a COPA validity bound was obtained ({@code cfx_copa_status}): the solver's outcome or a closed form. */
public enum CopaStatus {
    /** Solved to the default tolerances. */
    OPTIMAL(0),
    /** Solved to reduced tolerances only; usable but less precise. */
    NEAR_OPTIMAL(1),
    /** No feasible point; the value is NaN. */
    INFEASIBLE(2),
    /** Unbounded; the value is NaN. */
    UNBOUNDED(3),
    /** The iteration or time limit stopped the solver; the value is NaN. */
    LIMIT(4),
    /** The solver failed numerically; the value is NaN. */
    NUMERICAL_FAILURE(5),
    /** Some option has μ̂ᵀx̃ ≤ 0, so L* = 0; no program ran. */
    TRIVIAL_MEAN_OUTSIDE(6),
    /** Every option has μ̂ᵀx̃ &gt; 0, so U* = 1; no program ran. */
    TRIVIAL_MEAN_INSIDE(7),
    /** A degenerate input decided the value in closed form; no program ran. */
    TRIVIAL(8);

    /** The C value. */
    public final int code;

    CopaStatus(int code) {
        this.code = code;
    }

    /** Whether the bound's value is usable (not NaN). */
    public boolean usable() {
        return this != INFEASIBLE && this != UNBOUNDED && this != LIMIT && this != NUMERICAL_FAILURE;
    }

    static CopaStatus of(int code) {
        for (CopaStatus s : values()) {
            if (s.code == code) {
                return s;
            }
        }
        throw new IllegalStateException("unknown cfx_copa_status " + code);
    }
}
