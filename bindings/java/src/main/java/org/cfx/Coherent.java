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

    /** The optimal counterfactual followed by up to nDiverse − 1 diverse alternatives (config: nDiverse, diversityRule). */
    public static CoherentResult explainDiverse(Schema schema, Model model, Config config, double[] raw) {
        return run(schema, model, config, raw, true);
    }

    /**
     * The cheapest advice when waiting is an action of the schema ({@link Schema#advicePreset},
     * {@link SchemaBuilder}'s waiting): the exact minimum over every allowed wait of the wait's cost
     * plus the optimal coherent counterfactual of the waited row. {@code config} may be null.
     */
    public static WaitingAdvice explainWithWaiting(Schema schema, Model model, Config config, double[] raw) {
        require();
        Objects.requireNonNull(raw, "raw");
        try {
            long c = config == null ? 0 : config.handle();
            return new WaitingAdvice(NativeGenerated.coherentExplainWithWaiting(schema.handle(), model.handle(), c, raw));
        } finally {
            Reference.reachabilityFence(schema);
            Reference.reachabilityFence(model);
            Reference.reachabilityFence(config);
        }
    }

    /** Whether {@link #explainBatch} is available (the shim's cfx.h declares it). */
    public static boolean batchAvailable() {
        return available() && Native.hasCoherentBatch();
    }

    /**
     * The optimal coherent counterfactual of each raw row (all of {@code schema.nFeatures()}
     * values), solved {@code config.threads} applicants at a time (default 1), one HiGHS thread
     * each: applicant i's answer equals {@link #explain} of row i. An applicant that cannot be
     * explained has its own status in the batch instead of failing the call. {@code config} may be
     * null.
     */
    public static CoherentBatch explainBatch(Schema schema, Model model, Config config, double[][] rows) {
        Objects.requireNonNull(rows, "rows");
        if (!batchAvailable()) {
            throw new UnsupportedOperationException(
                    "this cfx JNI shim was built against a cfx.h without cfx_coherent_explain_batch");
        }
        try {
            int width = schema.nFeatures();
            double[] flat = Copa.flatten(rows, width, "rows");
            long c = config == null ? 0 : config.handle();
            return new CoherentBatch(
                    NativeGenerated.coherentExplainBatch(schema.handle(), model.handle(), c, flat, rows.length));
        } finally {
            Reference.reachabilityFence(schema);
            Reference.reachabilityFence(model);
            Reference.reachabilityFence(config);
        }
    }

    private static CoherentResult run(Schema schema, Model model, Config config, double[] raw, boolean diverse) {
        require();
        Objects.requireNonNull(raw, "raw");
        try {
            long c = config == null ? 0 : config.handle();
            return new CoherentResult(
                    diverse
                            ? NativeGenerated.coherentExplainDiverse(schema.handle(), model.handle(), c, raw)
                            : NativeGenerated.coherentExplain(schema.handle(), model.handle(), c, raw));
        } finally {
            Reference.reachabilityFence(schema);
            Reference.reachabilityFence(model);
            Reference.reachabilityFence(config);
        }
    }
}
