package org.cfx;

import java.lang.ref.Reference;

/** A robust counterfactual with its figures ({@code cfx_robust_result}). Immutable, thread-safe. */
public final class RobustResult extends NativeResource {
    /**
     * Validity, whether the method's target was met, probability, L1 distance (encoded), Γ̃ and Θ̃
     * on fresh draws, the bound and its confidence.
     */
    public record Summary(
            boolean valid,
            boolean targetMet,
            double probability,
            double distance,
            double gamma,
            double theta,
            double bound,
            double confidence) {}

    RobustResult(long handle) {
        super(Native.KIND_ROBUST_RESULT, handle);
    }

    public Summary summary() {
        double[] o = new double[8];
        try {
            NativeGenerated.robustResultSummary(handle(), o);
        } finally {
            Reference.reachabilityFence(this);
        }
        return new Summary(o[0] != 0, o[1] != 0, o[2], o[3], o[4], o[5], o[6], o[7]);
    }

    /** The counterfactual as a raw row of {@code schema.nFeatures()} values. */
    public double[] raw(Schema schema) {
        double[] out = new double[schema.nFeatures()];
        try {
            NativeGenerated.robustResultRaw(handle(), out);
        } finally {
            Reference.reachabilityFence(this);
        }
        return out;
    }

    /** The counterfactual encoded ({@code schema.encodedDim()} values). */
    public double[] encoded(Schema schema) {
        double[] out = new double[schema.encodedDim()];
        try {
            NativeGenerated.robustResultEncoded(handle(), out);
        } finally {
            Reference.reachabilityFence(this);
        }
        return out;
    }

    /** Versioned JSON with the schema and model fingerprints (same bytes in every language). */
    public String toJson(Schema schema, Model model) {
        try {
            return Utf8.str(NativeGenerated.robustResultToJson(handle(), schema.handle(), model.handle()));
        } finally {
            Reference.reachabilityFence(this);
            Reference.reachabilityFence(schema);
            Reference.reachabilityFence(model);
        }
    }

    /**
     * What the counterfactual is as advice: {@link AdviceStatus#VALID} (the model accepts it),
     * repaired by the exact engine, or {@link AdviceStatus#NO_ADVICE} ({@link #raw} is then the
     * method's best effort, for diagnosis only, never advice).
     */
    public AdviceStatus adviceStatus() {
        try {
            return AdviceStatus.of(NativeGenerated.robustResultAdviceStatus(handle()));
        } finally {
            Reference.reachabilityFence(this);
        }
    }

    /** The advice as a raw row: the method's row, or the exact engine's repair; empty when there is none. */
    public double[] advice() {
        try {
            return NativeGenerated.robustResultAdviceRaw(handle());
        } finally {
            Reference.reachabilityFence(this);
        }
    }

    /** The advice in one line for a person, and how it was obtained; or "no valid advice found (…)". */
    public String describe() {
        try {
            return Utf8.str(NativeGenerated.robustResultAdviceDescribe(handle()));
        } finally {
            Reference.reachabilityFence(this);
        }
    }

    @Override
    public String toString() {
        return "RobustResult[" + adviceStatus() + ": " + describe() + "]";
    }
}
