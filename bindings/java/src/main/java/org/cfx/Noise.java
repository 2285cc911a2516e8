package org.cfx;

import java.lang.ref.Reference;
import java.util.Objects;

/** A noise distribution over the encoded space ({@code cfx_noise}). Immutable, thread-safe. */
public final class Noise extends NativeResource {
    Noise(long handle) {
        super(Native.KIND_NOISE, handle);
    }

    /** N(0, σ²I) on the value slots of the mutable contiguous features; {@code sigma2} is the variance. */
    public static Noise gaussian(Schema schema, double sigma2) {
        Robustness.require();
        try {
            return new Noise(NativeGenerated.noiseGaussianNew(schema.handle(), sigma2));
        } finally {
            Reference.reachabilityFence(schema);
        }
    }

    /**
     * Noise on chosen encoded columns (sorted, distinct): Gaussian with variance σ_j² =
     * {@code scale[j]} (a variance, as {@link #gaussian}'s {@code sigma2}), or uniform on
     * [−scale[j], scale[j]].
     */
    public static Noise onColumns(NoiseModel kind, int[] columns, double[] scale) {
        Objects.requireNonNull(kind, "kind");
        Objects.requireNonNull(columns, "columns");
        Objects.requireNonNull(scale, "scale");
        Robustness.require();
        long[] c = new long[columns.length];
        for (int i = 0; i < c.length; i++) {
            c[i] = Utf8.count(columns[i], "column");
        }
        return new Noise(NativeGenerated.noiseNew(kind.code, c, scale));
    }
}
