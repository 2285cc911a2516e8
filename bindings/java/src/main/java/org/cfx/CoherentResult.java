package org.cfx;

import java.lang.ref.Reference;

/** The explanation of one applicant ({@code cfx_coherent_result}). Immutable, thread-safe. */
public final class CoherentResult extends NativeResource {
    /** What the solver said ({@code cfx_coherent_outcome}). */
    public enum Outcome {
        OPTIMAL,
        TIME_LIMIT,
        INFEASIBLE,
        UNKNOWN
    }

    /** Weighted L1 cost, model score and probability, objective, relative MIP gap, solve time. */
    public record Certificate(
            double cost, double score, double probability, double objective, double mipGap, double solveSeconds) {}

    CoherentResult(long handle) {
        super(Native.KIND_COHERENT_RESULT, handle);
    }

    private long[] outcomeAndMask() {
        long[] o = new long[2];
        try {
            NativeGenerated.coherentResultOutcome(handle(), o);
        } finally {
            Reference.reachabilityFence(this);
        }
        return o;
    }

    public Outcome outcome() {
        int k = (int) outcomeAndMask()[0];
        return k >= 0 && k < Outcome.values().length ? Outcome.values()[k] : Outcome.UNKNOWN;
    }

    /**
     * For an infeasible outcome, the blocking constraint groups (1 immutables, 2 directions, 4
     * bounds, 8 forbidden transitions; 0 = no recourse even with all relaxed); 0 otherwise.
     */
    public long blockingMask() {
        return outcomeAndMask()[1];
    }

    /** The solver that proved the result, optimum or infeasibility ({@code cfx_proved_by}). */
    public ProvedBy provedBy() {
        try {
            return ProvedBy.of(NativeGenerated.coherentResultProvedBy(handle()));
        } finally {
            Reference.reachabilityFence(this);
        }
    }

    /** The number of counterfactuals (0 when there is none). */
    public int count() {
        try {
            return Math.toIntExact(NativeGenerated.coherentResultCount(handle()));
        } finally {
            Reference.reachabilityFence(this);
        }
    }

    /** The raw row of counterfactual {@code k} (0 = the optimal one). */
    public double[] counterfactual(int k) {
        try {
            return NativeGenerated.coherentResultCounterfactual(handle(), Utf8.index(k, "counterfactual"));
        } finally {
            Reference.reachabilityFence(this);
        }
    }

    public Certificate certificate(int k) {
        double[] o = new double[6];
        try {
            NativeGenerated.coherentResultCertificate(handle(), Utf8.index(k, "counterfactual"), o);
        } finally {
            Reference.reachabilityFence(this);
        }
        return new Certificate(o[0], o[1], o[2], o[3], o[4], o[5]);
    }

    /**
     * The exact invalidation rate Γ of counterfactual {@code k} under the robust-advice noise
     * ({@link ConfigBuilder#robustAdvice}); NaN when computed without robust advice.
     */
    public double invalidationRate(int k) {
        try {
            return NativeGenerated.coherentResultInvalidationRate(handle(), Utf8.index(k, "counterfactual"));
        } finally {
            Reference.reachabilityFence(this);
        }
    }

    /** The explanation in plain words, one line per counterfactual. */
    public String describe() {
        try {
            return Utf8.str(NativeGenerated.coherentResultDescribe(handle()));
        } finally {
            Reference.reachabilityFence(this);
        }
    }

    /** Versioned JSON (kind "coherent"); solve times left out so the bytes depend only on the inputs. */
    public String toJson() {
        try {
            return Utf8.str(NativeGenerated.coherentResultToJson(handle()));
        } finally {
            Reference.reachabilityFence(this);
        }
    }
}
