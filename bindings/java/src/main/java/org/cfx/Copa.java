package org.cfx;

import java.lang.ref.Reference;
import java.util.Objects;

/**
 * COPA: counterfactual plans under model shift (Bui, Nguyen & Nguyen 2022), with distributionally robust bounds on
 * the probability that every option stays valid. Available when the JNI shim was built against a
 * cfx.h that declares these functions ({@link #available()}).
 */
public final class Copa {
    private Copa() {}

    /**
     * L* ≤ P(every option stays valid) ≤ U*, each with how it was obtained. A bound whose solve was
     * not usable is NaN (see {@link CopaStatus#usable()}); that is not an exception.
     */
    public record Bounds(double lower, double upper, CopaStatus lowerStatus, CopaStatus upperStatus) {}

    /**
     * A corrected plan: {@code options} in the layout given (encoded rows without the intercept),
     * and L* of the plan as given and as corrected (NaN when a solve was not usable).
     */
    public record Correction(double[][] options, double lowerBefore, double lowerAfter) {}

    public static boolean available() {
        Native.load();
        return Native.hasCopa();
    }

    /** Whether {@link #correct} is available (the shim's cfx.h declares {@code cfx_copa_correct}). */
    public static boolean correctAvailable() {
        return available() && Native.hasCopaCorrect();
    }

    static void require() {
        if (!available()) {
            throw new UnsupportedOperationException(
                    "this cfx JNI shim was built against a cfx.h without the COPA entry points");
        }
    }

    /**
     * The bounds of a plan under the future model, over every law within Gelbrich distance {@code
     * rho} of the moments. {@code options} holds encoded rows <b>without</b> the intercept, each of
     * {@code uncertainty.dim() − 1} values.
     */
    public static Bounds bounds(Uncertainty uncertainty, double[][] options, double rho) {
        Objects.requireNonNull(options, "options");
        require();
        int dim = options.length == 0 || options[0] == null ? 0 : options[0].length;
        double[] flat = flatten(options, dim, "options");
        double[] o = new double[4];
        try {
            NativeGenerated.copaBounds(uncertainty.handle(), flat, options.length, dim, rho, o);
        } finally {
            Reference.reachabilityFence(uncertainty);
        }
        return new Bounds(o[0], o[1], CopaStatus.of((int) o[2]), CopaStatus.of((int) o[3]));
    }

    /**
     * Corrects a plan (Bui, Nguyen & Nguyen 2022, §3): every option is projected onto {x : μ̂ᵀx̃ ≥ 0.1}, then the
     * ⌈J/2⌉ options with the largest dual weights of L* at radius {@code rho} get the Mahalanobis
     * improvement with perturbation limit {@code delta} (≥ 0). Every coordinate may move (no
     * schema constraints). {@code options} as in {@link #bounds}. Thread-safe.
     */
    public static Correction correct(Uncertainty uncertainty, double[][] options, double rho, double delta) {
        Objects.requireNonNull(options, "options");
        if (!correctAvailable()) {
            throw new UnsupportedOperationException(
                    "this cfx JNI shim was built against a cfx.h without cfx_copa_correct");
        }
        int dim = options.length == 0 || options[0] == null ? 0 : options[0].length;
        double[] flat = flatten(options, dim, "options");
        double[] o = new double[2];
        double[] fixed;
        try {
            fixed = NativeGenerated.copaCorrect(uncertainty.handle(), flat, options.length, dim, rho, delta, o);
        } finally {
            Reference.reachabilityFence(uncertainty);
        }
        double[][] rows = new double[options.length][];
        for (int i = 0; i < rows.length; i++) {
            rows[i] = java.util.Arrays.copyOfRange(fixed, i * dim, (i + 1) * dim);
        }
        return new Correction(rows, o[0], o[1]);
    }

    /**
     * A COPA plan for the raw applicant row {@code raw}; {@code uncertainty} must have {@code dim()
     * == 1 + schema.encodedDim()}. {@code config} may be null (5 options, weights diversity 50 /
     * validity 2, ρ = 0, seed 0); it supplies nDiverse (options), seed, copaWeights and copaRadius.
     */
    public static CopaResult plan(Schema schema, Uncertainty uncertainty, Config config, double[] raw) {
        Objects.requireNonNull(raw, "raw");
        require();
        try {
            long c = config == null ? 0 : config.handle();
            return new CopaResult(NativeGenerated.copaPlanNew(schema.handle(), uncertainty.handle(), c, raw));
        } finally {
            Reference.reachabilityFence(schema);
            Reference.reachabilityFence(uncertainty);
            Reference.reachabilityFence(config);
        }
    }

    /**
     * {@link #plan}, then every option checked with today's {@code model} (fitted on {@code schema}):
     * an option the model declines is repaired by the exact engine or is "no valid advice found";
     * read {@link CopaResult#adviceStatus} and {@link CopaResult#advice}.
     */
    public static CopaResult planChecked(
            Schema schema, Uncertainty uncertainty, Model model, Config config, double[] raw) {
        Objects.requireNonNull(raw, "raw");
        require();
        try {
            long c = config == null ? 0 : config.handle();
            return new CopaResult(
                    NativeGenerated.copaPlanNewChecked(schema.handle(), uncertainty.handle(), model.handle(), c, raw));
        } finally {
            Reference.reachabilityFence(schema);
            Reference.reachabilityFence(uncertainty);
            Reference.reachabilityFence(model);
            Reference.reachabilityFence(config);
        }
    }

    /** Row-major copy of rows that must all have {@code width} values. */
    static double[] flatten(double[][] rows, int width, String what) {
        double[] flat = new double[Math.multiplyExact(rows.length, width)];
        for (int i = 0; i < rows.length; i++) {
            double[] r = Objects.requireNonNull(rows[i], what + " row " + i);
            if (r.length != width) {
                throw new IllegalArgumentException(
                        what + " row " + i + " has " + r.length + " values, expected " + width);
            }
            System.arraycopy(r, 0, flat, i * width, width);
        }
        return flat;
    }
}
