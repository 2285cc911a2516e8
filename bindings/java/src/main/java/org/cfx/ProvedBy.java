package org.cfx;

/** The solver that proved a coherent result ({@code cfx_proved_by}). */
public enum ProvedBy {
    /** HiGHS on the mixed-integer program (Russell 2019). */
    HIGHS,
    /** The exact separable branch and bound (multiple-choice knapsack over per-feature options). */
    SEPARABLE
}
