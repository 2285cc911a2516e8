package org.cfx;

/** Diversity rules for sets of counterfactuals ({@code cfx_diversity_rule}). */
public enum DiversityRule {
    /** Russell's fix_values as published in the reference code. */
    RUSSELL_CODE(0),
    /** Russell's procedure with rule (b) read as intended: forbid the change. */
    RUSSELL_INTENDED(1),
    /** Each new explanation leaves a feature of every earlier changed set unchanged (flipsets). */
    DISTINCT_SUBSETS(2);

    final int code;

    DiversityRule(int code) {
        this.code = code;
    }
}
