package org.cfx;

import java.lang.ref.Reference;
import java.util.Objects;

/**
 * Optimal coherent counterfactuals of a logistic model by mixed-integer programming (and diverse
 * alternatives), or a proof that none exists. Available when the JNI shim was built against a
 * cfx.h that declares them ({@link #available()}).
 */
public final class Coherent {
    private Coherent() {}

    public static boolean available() {
        Native.load();
        return Native.hasCoherent();
    }

    private static void require() {
        if (!available()) {
            throw new UnsupportedOperationException(
                    "this cfx JNI shim was built against a cfx.h without the coherent entry points");
        }
    }

    /** The optimal coherent counterfactual of a declined applicant; {@code config} may be null. */
    public static CoherentResult explain(Schema schema, Model model, Config config, double[] raw) {
        return run(schema, model, config, raw, false);
    }

    /** The optimal counterfactual followed by diverse alternatives (config: nDiverse, diversityRule). */
    public static CoherentResult explainDiverse(Schema schema, Model model, Config config, double[] raw) {
        return run(schema, model, config, raw, true);
    }

    private static CoherentResult run(Schema schema, Model model, Config config, double[] raw, boolean diverse) {
        require();
        Objects.requireNonNull(raw, "raw");
        try {
            long c = config == null ? 0 : config.handle();
            return new CoherentResult(Native.coherentExplain(schema.handle(), model.handle(), c, raw, diverse));
        } finally {
            Reference.reachabilityFence(schema);
            Reference.reachabilityFence(model);
            Reference.reachabilityFence(config);
        }
    }
}
