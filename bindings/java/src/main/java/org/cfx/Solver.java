package org.cfx;

/** Which solver proves coherent counterfactuals ({@code cfx_solver_choice}). */
public enum Solver {
    /**
     * The exact separable solver for linear models and scorecards, the exact tree search for tree
     * ensembles, when every constraint is per feature; else HiGHS.
     */
    AUTO(0),
    /** Always the HiGHS mixed-integer program. */
    MIP(1),
    /** Always the separable solver (a call it cannot express is refused). */
    SEPARABLE(2),
    /** Always the tree-ensemble search (tree models only; a call it cannot express is refused). */
    TREE_SEARCH(3);

    final int code;

    Solver(int code) {
        this.code = code;
    }
}
