package org.cfx;

import java.lang.ref.Reference;
import java.util.Objects;

/**
 * A Monte Carlo estimator of the invalidation rate Γ̃ and its soft form Θ̃ under a {@link Noise}
 * ({@code cfx_estimator}). Immutable and thread-safe; the {@link Workspace} passed to the
 * sampling calls is not (one per thread).
 */
public final class Estimator extends NativeResource {
    /** Γ̃ and Θ̃ with their standard errors. */
    public record Estimate(double gamma, double gammaSe, double theta, double thetaSe) {}

    /** CROCO's bound {@code (m + Θ̃)/(1 − t)} with Θ̃ and the bound's confidence. */
    public record Bound(double theta, double bound, double confidence) {}

    /** Γ̃ and Θ̃ of many points. */
    public record Batch(double[] gamma, double[] theta) {}

    Estimator(long handle) {
        super(Native.KIND_ESTIMATOR, handle);
    }

    /** An estimator with {@code k ≥ 2} samples. */
    public static Estimator create(Noise noise, int k, Sampling sampling) {
        Objects.requireNonNull(sampling, "sampling");
        Robustness.require();
        try {
            return new Estimator(NativeGenerated.estimatorNew(noise.handle(), Utf8.count(k, "k"), sampling.code));
        } finally {
            Reference.reachabilityFence(noise);
        }
    }

    /** Γ̃, Θ̃ and their standard errors at encoded point {@code x} (pinned; no allocation in cfx). */
    public Estimate estimate(Model model, Workspace ws, double[] x) {
        Objects.requireNonNull(x, "x");
        double[] o = new double[4];
        try {
            NativeGenerated.estimatorEstimate(handle(), model.handle(), ws.handle(), x, o);
        } finally {
            Reference.reachabilityFence(this);
            Reference.reachabilityFence(model);
            Reference.reachabilityFence(ws);
        }
        return new Estimate(o[0], o[1], o[2], o[3]);
    }

    /** CROCO's bound with margin {@code m > 0}. */
    public Bound bound(Model model, Workspace ws, double[] x, double m) {
        Objects.requireNonNull(x, "x");
        double[] o = new double[3];
        try {
            NativeGenerated.estimatorBound(handle(), model.handle(), ws.handle(), x, m, o);
        } finally {
            Reference.reachabilityFence(this);
            Reference.reachabilityFence(model);
            Reference.reachabilityFence(ws);
        }
        return new Bound(o[0], o[1], o[2]);
    }

    /** PROBE's first-order invalidation rate (no sampling). */
    public double probeRate(Model model, Workspace ws, double[] x) {
        Objects.requireNonNull(x, "x");
        try {
            return NativeGenerated.estimatorProbeRate(handle(), model.handle(), ws.handle(), x);
        } finally {
            Reference.reachabilityFence(this);
            Reference.reachabilityFence(model);
            Reference.reachabilityFence(ws);
        }
    }

    /** The exact Γ of a logistic model under Gaussian noise (INVALID_ARGUMENT otherwise). */
    public double exactRate(Model model, double[] x) {
        Objects.requireNonNull(x, "x");
        try {
            return NativeGenerated.estimatorExactRate(handle(), model.handle(), x);
        } finally {
            Reference.reachabilityFence(this);
            Reference.reachabilityFence(model);
        }
    }

    /**
     * Γ̃ and Θ̃ of the rows of a row-major array on {@code threads} threads (0 = all cores); the
     * same seed gives the same bits for any thread count.
     */
    public Batch estimateBatch(Model model, double[] points, long seed, int threads) {
        Objects.requireNonNull(points, "points");
        int d = model.inputDim();
        if (d == 0 || points.length % d != 0) {
            throw new IllegalArgumentException(points.length + " values are not whole rows of " + d);
        }
        int n = points.length / d;
        double[] g = new double[n];
        double[] t = new double[n];
        try {
            NativeGenerated.estimatorEstimateBatch(handle(), model.handle(), points, n, seed, Utf8.count(threads, "threads"), g, t);
        } finally {
            Reference.reachabilityFence(this);
            Reference.reachabilityFence(model);
        }
        return new Batch(g, t);
    }
}
