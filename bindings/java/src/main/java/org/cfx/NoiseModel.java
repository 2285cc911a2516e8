package org.cfx;

/** Noise models for robustness estimates ({@code cfx_noise_model}). */
public enum NoiseModel {
    /** ε ~ N(0, σ² I) on the encoded space. */
    GAUSSIAN(0),
    /** ε uniform on [−σ, σ] per coordinate. */
    UNIFORM(1);

    final int code;

    NoiseModel(int code) {
        this.code = code;
    }
}
