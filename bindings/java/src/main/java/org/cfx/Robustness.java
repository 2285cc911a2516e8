package org.cfx;

/**
 * Entry to the robustness API of cfx (invalidation estimates under implementation noise, CROCO's
 * bound, PROBE's rate, robust counterfactual generators). Available when the JNI shim was built
 * against a cfx.h that declares these functions ({@link #available()}).
 */
public final class Robustness {
    private Robustness() {}

    /** Whether the loaded shim wraps the robustness entry points. */
    public static boolean available() {
        Native.load();
        return Native.hasRobust();
    }

    static void require() {
        if (!available()) {
            throw new UnsupportedOperationException(
                    "this cfx JNI shim was built against a cfx.h without the robustness entry points");
        }
    }

    /** {@code 1 − exp(−2Km²)}, the confidence of CROCO's bound (NaN for m ≤ 0). */
    public static double boundConfidence(long k, double m) {
        require();
        return NativeGenerated.robustBoundConfidence(Utf8.count(k, "k"), m);
    }

    /**
     * A robust counterfactual for raw row {@code raw}, seeded; {@code config} may be null (the
     * paper's defaults). A target that was not met is not an error: see {@link
     * RobustResult.Summary#targetMet()}.
     */
    public static RobustResult generate(
            Schema schema, Model model, Noise noise, RobustMethod method, Config config, double[] raw) {
        require();
        java.util.Objects.requireNonNull(method, "method");
        java.util.Objects.requireNonNull(raw, "raw");
        try {
            long c = config == null ? 0 : config.handle();
            return new RobustResult(
                    NativeGenerated.robustGenerate(schema.handle(), model.handle(), noise.handle(), method.code, c, raw));
        } finally {
            java.lang.ref.Reference.reachabilityFence(schema);
            java.lang.ref.Reference.reachabilityFence(model);
            java.lang.ref.Reference.reachabilityFence(noise);
            java.lang.ref.Reference.reachabilityFence(config);
        }
    }
}
