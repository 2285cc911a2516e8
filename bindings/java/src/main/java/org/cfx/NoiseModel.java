package org.cfx;

/**
 * Noise models for robustness estimates ({@code cfx_noise_model}). A Gaussian is always given by its
 * variance σ² (CROCO's {@code sigma2}), never by σ.
 */
public enum NoiseModel {
    /** ε_j ~ N(0, σ_j²), given by the variances σ_j². */
    GAUSSIAN(0),
    /** ε_j uniform on [−h_j, h_j], given by the half-widths h_j. */
    UNIFORM(1);

    final int code;

    NoiseModel(int code) {
        this.code = code;
    }
}
