package org.cfx;

import java.lang.ref.Reference;

/** A COPA plan with its figures, bounds and description ({@code cfx_copa_result}). Immutable, thread-safe. */
public final class CopaResult extends NativeResource {
    /**
     * Proximity (mean ℓ2 distance to the applicant, encoded), diversity (det K), the validity proxy
     * min_j μ̂ᵀx̃_j/‖Σ̂^{1/2}x̃_j‖, and the bounds L* and U* at the configured ρ (NaN when unusable).
     */
    public record Metrics(double proximity, double diversity, double validity, double lower, double upper) {}

    CopaResult(long handle) {
        super(Native.KIND_COPA_RESULT, handle);
    }

    /** The number of options J. */
    public int nOptions() {
        try {
            return Math.toIntExact(NativeGenerated.copaResultNOptions(handle()));
        } finally {
            Reference.reachabilityFence(this);
        }
    }

    /** Option {@code k} (0-based) as a raw row; {@link CfxException} NOT_FOUND when k ≥ nOptions(). */
    public double[] option(int k) {
        try {
            return NativeGenerated.copaResultOptionRaw(handle(), Utf8.index(k, "option"));
        } finally {
            Reference.reachabilityFence(this);
        }
    }

    /** Every option as a raw row. */
    public double[][] options() {
        int n = nOptions();
        double[][] out = new double[n][];
        for (int k = 0; k < n; k++) {
            out[k] = option(k);
        }
        return out;
    }

    public Metrics metrics() {
        double[] o = new double[5];
        try {
            NativeGenerated.copaResultMetrics(handle(), o);
        } finally {
            Reference.reachabilityFence(this);
        }
        return new Metrics(o[0], o[1], o[2], o[3], o[4]);
    }

    /**
     * The plan in plain words, one line per option ({@code "option 1: …"}); for a plan made with
     * {@link Copa#planChecked}, the advice each option became.
     */
    public String describe() {
        try {
            return Utf8.str(NativeGenerated.copaResultDescribe(handle()));
        } finally {
            Reference.reachabilityFence(this);
        }
    }

    /** Versioned result JSON (kind "copa_plan"; same bytes in every language). */
    public String toJson() {
        try {
            return Utf8.str(NativeGenerated.copaResultToJson(handle()));
        } finally {
            Reference.reachabilityFence(this);
        }
    }

    /**
     * What option {@code k} is as advice, for a plan made with {@link Copa#planChecked} (else
     * {@link CfxException} INVALID_ARGUMENT): valid, repaired by the exact engine, or no valid advice.
     */
    public AdviceStatus adviceStatus(int k) {
        try {
            return AdviceStatus.of(NativeGenerated.copaResultOptionAdviceStatus(handle(), Utf8.index(k, "option")));
        } finally {
            Reference.reachabilityFence(this);
        }
    }

    /** Option {@code k}'s advice as a raw row (the option, or its repair; empty when there is none). */
    public double[] advice(int k) {
        try {
            return NativeGenerated.copaResultOptionAdviceRaw(handle(), Utf8.index(k, "option"));
        } finally {
            Reference.reachabilityFence(this);
        }
    }
}
