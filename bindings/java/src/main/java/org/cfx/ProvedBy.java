package org.cfx;

/** The solver that proved a coherent result ({@code cfx_proved_by}). */
public enum ProvedBy {
    /** HiGHS on the mixed-integer program (Russell 2019). */
    HIGHS,
    /** The exact separable branch and bound (multiple-choice knapsack over per-feature options). */
    SEPARABLE,
    /** The exact best-first search over a tree ensemble's split cells. */
    TREE_SEARCH;

    /** The value of a {@code cfx_proved_by} code. */
    static ProvedBy of(long code) {
        return values()[(int) code];
    }
}
