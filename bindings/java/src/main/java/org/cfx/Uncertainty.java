package org.cfx;

import java.lang.ref.Reference;
import java.util.Objects;

/**
 * The nominal mean μ̂ and covariance Σ̂ of the future model parameters θ̃ = (bias, w), intercept
 * first ({@code cfx_uncertainty}). Immutable, thread-safe.
 */
public final class Uncertainty extends NativeResource {
    Uncertainty(long handle) {
        super(Native.KIND_UNCERTAINTY, handle);
    }

    /**
     * Moments given by the caller: {@code mean} has d ≥ 2 values, {@code cov} is Σ̂ as d rows of d
     * values (symmetric positive semidefinite). Non-finite values are refused ({@link CfxException}).
     */
    public static Uncertainty fromMoments(double[] mean, double[][] cov) {
        Objects.requireNonNull(mean, "mean");
        Objects.requireNonNull(cov, "cov");
        Copa.require();
        return new Uncertainty(NativeGenerated.uncertaintyNew(mean, Copa.flatten(cov, mean.length, "cov")));
    }

    /** Like {@link #fromMoments(double[], double[][])} with Σ̂ row-major ({@code d·d} values). */
    public static Uncertainty fromMoments(double[] mean, double[] cov) {
        Objects.requireNonNull(mean, "mean");
        Objects.requireNonNull(cov, "cov");
        Copa.require();
        return new Uncertainty(NativeGenerated.uncertaintyNew(mean, cov));
    }

    /**
     * Moments estimated from {@code refits} (≥ 2) logistic regressions, each refitted on a random
     * half of {@code train} (seeded); Σ̂ is 1.5 × the sample covariance.
     */
    public static Uncertainty fromDataset(Dataset train, long refits, long seed) {
        Copa.require();
        try {
            return new Uncertainty(NativeGenerated.uncertaintyFromDataset(train.handle(), Utf8.count(refits, "refits"), seed));
        } finally {
            Reference.reachabilityFence(train);
        }
    }

    /** The dimension d of θ (1 + the encoded dimension). */
    public int dim() {
        try {
            return Math.toIntExact(NativeGenerated.uncertaintyDim(handle()));
        } finally {
            Reference.reachabilityFence(this);
        }
    }
}
