package org.cfx;

/** Sampling paths of an {@link Estimator} ({@code cfx_sampling}). */
public enum Sampling {
    /** The exact one-dimensional projection for linear + Gaussian, the generic loop otherwise. */
    AUTO(0),
    /** Always perturb every noisy column and evaluate the model. */
    GENERIC(1);

    final int code;

    Sampling(int code) {
        this.code = code;
    }
}
