package org.cfx;

/** Robust counterfactual generators ({@code cfx_robust_method}). */
public enum RobustMethod {
    /** Wachter et al. in CARLA's form (validity only). */
    WACHTER(0),
    /** PROBE: hinge on the first-order invalidation rate. */
    PROBE(1),
    /** CROCO, Algorithm 1: the bound (m + Θ̃)/(1 − t) meets the target. */
    CROCO(2);

    final int code;

    RobustMethod(int code) {
        this.code = code;
    }
}
