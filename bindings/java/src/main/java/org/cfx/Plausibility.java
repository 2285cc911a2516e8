package org.cfx;

import java.lang.ref.Reference;
import java.util.Objects;

/**
 * Plausible ranges ({@code cfx_plausibility}): per feature, the 1–99% range of the training data's
 * accepted applicants' values and the shares of their states and levels. {@link #assess} flags
 * the changed values of any advice row (coherent, robust, COPA or sequential). Immutable,
 * thread-safe.
 */
public final class Plausibility extends NativeResource {
    /** Per feature: −1 unchanged, 0 plausible, 1 implausible; and how far outside (feature units). */
    public record Assessment(int[] flags, double[] distances) {
        /** Whether any changed value is implausible. */
        public boolean anyImplausible() {
            for (int f : flags) {
                if (f == 1) {
                    return true;
                }
            }
            return false;
        }
    }

    private final int width;

    private Plausibility(long handle, int width) {
        super(Native.KIND_PLAUSIBILITY, handle);
        this.width = width;
    }

    /** Fits the ranges on raw training rows and their 0/1 labels (1 = accepted). */
    public static Plausibility fit(Schema schema, double[][] rows, double[] labels) {
        Objects.requireNonNull(rows, "rows");
        Objects.requireNonNull(labels, "labels");
        try {
            int width = schema.nFeatures();
            double[] flat = Copa.flatten(rows, width, "rows");
            return new Plausibility(NativeGenerated.plausibilityFit(schema.handle(), flat, rows.length, labels), width);
        } finally {
            Reference.reachabilityFence(schema);
        }
    }

    /** The flags of {@code advice} against the applicant's raw row {@code factual}. */
    public Assessment assess(double[] factual, double[] advice) {
        Objects.requireNonNull(factual, "factual");
        Objects.requireNonNull(advice, "advice");
        int[] flags = new int[width];
        double[] distances = new double[width];
        try {
            NativeGenerated.plausibilityAssess(handle(), factual, advice, flags, distances);
        } finally {
            Reference.reachabilityFence(this);
        }
        return new Assessment(flags, distances);
    }

    /**
     * The schema these ranges were fitted for, with every contiguous feature that grows with time
     * limited to waits that land it inside its plausible range (its advised range, {@link
     * SchemaBuilder#timeGrowthAdvisedRange}, set to the accepted applicants' 1–99% range): no method
     * then advises a wait that moves a month counter to where accepted applicants are not. A feature
     * with no accepted applicant in range keeps its own. A new schema, owned by the caller.
     */
    public Schema adviseWaits() {
        try {
            return new Schema(NativeGenerated.plausibilityAdviseWaits(handle()));
        } finally {
            Reference.reachabilityFence(this);
        }
    }
}
