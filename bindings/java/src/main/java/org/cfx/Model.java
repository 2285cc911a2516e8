package org.cfx;

import java.lang.ref.Reference;
import java.util.Objects;

/**
 * An immutable scoring model ({@code cfx_model}): logistic regression, an MLP, a points
 * scorecard ({@link ScorecardImport#model()}) or a bank's gradient-boosted tree ensemble
 * (XGBoost, LightGBM) over a schema's encoded space. Thread-safe: one handle can serve many
 * threads at once (see org.cfx.examples.ParallelBatch). Scores are log-odds of the favourable
 * outcome; an applicant is accepted when the probability is strictly above {@link #threshold()}.
 * A scorecard's score is its points total and it accepts when points ≥ its cutoff (its
 * probability is NaN without a scaling).
 */
public final class Model extends NativeResource {
    /** Model kinds ({@code cfx_model_kind}). */
    public enum Kind {
        LINEAR,
        MLP,
        /** A points scorecard ({@link ScorecardImport}): score = points, accepted when points ≥ cutoff. */
        SCORECARD,
        /** A gradient-boosted tree ensemble imported from XGBoost or LightGBM. */
        TREES
    }

    /** Score (log-odds), probability and decision of one applicant. */
    public record Prediction(double score, double probability, boolean accepted) {}

    private final int inputDim;

    Model(long handle) {
        super(Native.KIND_MODEL, handle);
        this.inputDim = Math.toIntExact(NativeGenerated.modelInputDim(handle));
    }

    /** Logistic regression {@code score = w·x + b}, accepted when sigmoid(score) > threshold. */
    public static Model linear(double[] weights, double bias, double threshold) {
        Objects.requireNonNull(weights, "weights");
        Native.load();
        return new Model(NativeGenerated.modelLinearNew(weights, bias, threshold));
    }

    /** Reads a model from JSON, checking its input dimension against {@code schema}. */
    public static Model fromJson(Schema schema, String json) {
        try {
            return new Model(NativeGenerated.modelFromJson(schema.handle(), Utf8.cstr(json, "json")));
        } finally {
            Reference.reachabilityFence(schema);
        }
    }

    /**
     * Imports an XGBoost model saved as JSON ({@code Booster.save_model("m.json")}, objective
     * {@code binary:logistic}) onto {@code schema}: model columns map to features by name, one-hot
     * columns {@code <feature>=<level>} to levels. {@code optionsJson} may be null (defaults) or a
     * JSON object with the optional keys {@code columns}, {@code special_as_missing},
     * {@code threshold} (the cutoff on the library's probability), {@code favourable_class} (0 for a
     * model of the probability of default, whose margin cfx negates; 1 for a model of repayment;
     * undeclared, 1 is assumed and the import report says so) or {@code score_is}
     * ({@code "probability_of_default"}), {@code missing} (XGBoost's {@code missing} value, which the
     * JSON does not record), {@code trees}, {@code category_codes}, {@code unseen_levels} and
     * {@code missing_levels} (docs/guide/gradient-boosted-models.md); check the favourable class on
     * labelled applicants with {@link #checkFavourable}. A model or option the importer does not
     * understand is a {@link CfxException} with {@link Status#FORMAT_ERROR} naming it.
     */
    public static Model fromXgboostJson(Schema schema, String json, String optionsJson) {
        return importTrees(schema, json, "json", optionsJson, NativeGenerated::modelFromXgboostJson);
    }

    /** {@link #fromXgboostJson} of the file at {@code path} ({@link Status#IO_ERROR} when unreadable). */
    public static Model fromXgboostFile(Schema schema, String path, String optionsJson) {
        return importTrees(schema, path, "path", optionsJson, NativeGenerated::modelFromXgboostFile);
    }

    /**
     * Imports a LightGBM text model ({@code Booster.save_model("m.txt")}, objective {@code binary})
     * onto {@code schema}; {@code optionsJson} as in {@link #fromXgboostJson}.
     */
    public static Model fromLightgbmText(Schema schema, String text, String optionsJson) {
        return importTrees(schema, text, "text", optionsJson, NativeGenerated::modelFromLightgbmText);
    }

    /** {@link #fromLightgbmText} of the file at {@code path} ({@link Status#IO_ERROR} when unreadable). */
    public static Model fromLightgbmFile(Schema schema, String path, String optionsJson) {
        return importTrees(schema, path, "path", optionsJson, NativeGenerated::modelFromLightgbmFile);
    }

    /**
     * Imports a PMML 4.x document (a {@code Scorecard} or a binary logit {@code RegressionModel})
     * onto {@code schema}, exactly or refused ({@link Status#FORMAT_ERROR} naming the element and
     * its line). {@code optionsJson} declares what the file does not say: {@code favourable_class}
     * (a classifier), {@code accept} and {@code cutoff} (a scorecard), optional {@code threshold},
     * {@code scaling}, {@code special_as_missing} (docs/guide/pmml.md).
     */
    public static Model fromPmmlString(Schema schema, String pmml, String optionsJson) {
        return importTrees(schema, pmml, "pmml", optionsJson, NativeGenerated::modelFromPmmlStr);
    }

    /** {@link #fromPmmlString} of the file at {@code path} ({@link Status#IO_ERROR} when unreadable). */
    public static Model fromPmmlFile(Schema schema, String path, String optionsJson) {
        return importTrees(schema, path, "path", optionsJson, NativeGenerated::modelFromPmmlFile);
    }

    /**
     * Imports a CatBoost JSON model ({@code save_model("m.json", format="json", pool=...)}, loss
     * {@code Logloss}, symmetric trees) onto {@code schema}, exactly or refused ({@link
     * Status#FORMAT_ERROR}: CTR categorical features, non-symmetric trees, other losses).
     * {@code optionsJson} as in {@link #fromXgboostJson} ({@code favourable_class},
     * {@code special_as_missing}, {@code unseen_levels}, {@code threshold}, {@code columns};
     * docs/guide/catboost.md).
     */
    public static Model fromCatboostJson(Schema schema, String json, String optionsJson) {
        return importTrees(schema, json, "json", optionsJson, NativeGenerated::modelFromCatboostJsonStr);
    }

    /** {@link #fromCatboostJson} of the file at {@code path} ({@link Status#IO_ERROR} when unreadable). */
    public static Model fromCatboostFile(Schema schema, String path, String optionsJson) {
        return importTrees(schema, path, "path", optionsJson, NativeGenerated::modelFromCatboostJsonFile);
    }

    /**
     * Imports an Explainable Boosting Machine (interpret's JSON, {@code ebm.to_json(...)}, version
     * 1.0, binary, logit link) onto {@code schema} as one tree per main term or pair, exactly or
     * refused ({@link Status#FORMAT_ERROR}: regression, multiclass, terms of three features).
     * {@code optionsJson} as in {@link #fromCatboostJson} (docs/guide/ebm.md).
     */
    public static Model fromEbmJson(Schema schema, String json, String optionsJson) {
        return importTrees(schema, json, "json", optionsJson, NativeGenerated::modelFromEbmJsonStr);
    }

    /** {@link #fromEbmJson} of the file at {@code path} ({@link Status#IO_ERROR} when unreadable). */
    public static Model fromEbmFile(Schema schema, String path, String optionsJson) {
        return importTrees(schema, path, "path", optionsJson, NativeGenerated::modelFromEbmJsonFile);
    }

    /**
     * An ONNX binary classifier ({@code .onnx} file): {@code LinearClassifier}, MatMul/Gemm layers
     * (a linear model or an MLP) or {@code TreeEnsembleClassifier}/{@code Regressor}, read exactly
     * as onnxruntime evaluates it or refused naming the node ({@link Status#FORMAT_ERROR}). {@code
     * optionsJson} declares what the graph does not say: {@code favourable_class} (required), the
     * input's {@code columns} in order (default: the schema's features), optional {@code
     * threshold}, {@code special_as_missing}, {@code category_codes} (docs/guide/onnx.md).
     */
    public static Model fromOnnxFile(Schema schema, String path, String optionsJson) {
        return importTrees(schema, path, "path", optionsJson, NativeGenerated::modelFromOnnxFile);
    }

    /**
     * An ONNX binary classifier from its bytes in memory (the content of a {@code .onnx} file, as a
     * model registry returns it), read as {@link #fromOnnxFile}. Empty, garbage or truncated bytes
     * are {@link Status#FORMAT_ERROR} with the reason; the array is only read during the call.
     *
     * @throws NullPointerException when {@code bytes} is null
     */
    public static Model fromOnnxBytes(Schema schema, byte[] bytes, String optionsJson) {
        java.util.Objects.requireNonNull(bytes, "bytes");
        byte[] o = Utf8.cstrOrNull(optionsJson, "optionsJson");
        try {
            return new Model(NativeGenerated.modelFromOnnxBytes(schema.handle(), bytes, o));
        } finally {
            Reference.reachabilityFence(schema);
        }
    }

    /** One of the model-file importers of the shim (trees, PMML): the same signature. */
    private interface TreeImporter {
        long call(long schema, byte[] textOrPath, byte[] options);
    }

    private static Model importTrees(
            Schema schema, String textOrPath, String what, String optionsJson, TreeImporter importer) {
        byte[] t = Utf8.cstr(textOrPath, what);
        byte[] o = Utf8.cstrOrNull(optionsJson, "optionsJson");
        try {
            return new Model(importer.call(schema.handle(), t, o));
        } finally {
            Reference.reachabilityFence(schema);
        }
    }

    /** L2-regularised logistic regression fitted on the encoded rows (sklearn's {@code C}). */
    public static Model fitLinear(Dataset data, double c) {
        try {
            return new Model(NativeGenerated.modelFitLinear(data.handle(), c));
        } finally {
            Reference.reachabilityFence(data);
        }
    }

    /** An MLP trained with Adam; the same seed gives the same bits. */
    public static Model trainMlp(
            Dataset data, int[] hidden, int epochs, int batchSize, double learningRate, double l2, long seed) {
        Objects.requireNonNull(hidden, "hidden");
        long[] h = new long[hidden.length];
        for (int i = 0; i < hidden.length; i++) {
            h[i] = Utf8.count(hidden[i], "hidden width");
        }
        try {
            return new Model(
                    NativeGenerated.modelTrainMlp(
                            data.handle(),
                            h,
                            Utf8.count(epochs, "epochs"),
                            Utf8.count(batchSize, "batch size"),
                            learningRate,
                            l2,
                            seed));
        } finally {
            Reference.reachabilityFence(data);
        }
    }

    /** The model as JSON. */
    public String toJson() {
        try {
            return Utf8.str(NativeGenerated.modelToJson(handle()));
        } finally {
            Reference.reachabilityFence(this);
        }
    }

    /** {@code "fnv1a64:<hex>"} of the canonical JSON, as written in result exports. */
    public String fingerprint() {
        try {
            return Utf8.str(NativeGenerated.modelFingerprint(handle()));
        } finally {
            Reference.reachabilityFence(this);
        }
    }

    public Kind kind() {
        try {
            int k = NativeGenerated.modelGetKind(handle());
            return switch (k) {
                case 0 -> Kind.LINEAR;
                case 1 -> Kind.MLP;
                case 2 -> Kind.SCORECARD;
                case 3 -> Kind.TREES;
                default -> throw new IllegalStateException("cfx reported an unknown model kind " + k);
            };
        } finally {
            Reference.reachabilityFence(this);
        }
    }

    /** The input dimension (= the schema's encoded dimension). */
    public int inputDim() {
        handle();
        return inputDim;
    }

    /**
     * The area under the ROC curve of this model's score on the labelled applicants of {@code data}
     * (labels 1 = the favourable outcome); a {@link CfxException} when the model ranks the
     * favourable applicants below the others (AUC ≤ 0.5: a model of default imported as a model of
     * repayment, or the reverse), saying which class to declare at import ({@code favourable_class}).
     */
    public double checkFavourable(Dataset data) {
        Objects.requireNonNull(data, "data");
        try {
            return NativeGenerated.modelCheckFavourable(handle(), data.handle());
        } finally {
            Reference.reachabilityFence(this);
            Reference.reachabilityFence(data);
        }
    }

    public double threshold() {
        try {
            return NativeGenerated.modelThreshold(handle());
        } finally {
            Reference.reachabilityFence(this);
        }
    }

    /** Score, probability and decision of one encoded row (pinned, not copied). */
    public Prediction predict(double[] x) {
        Objects.requireNonNull(x, "x");
        double[] out = new double[3];
        try {
            NativeGenerated.modelPredict(handle(), x, out);
        } finally {
            Reference.reachabilityFence(this);
        }
        return new Prediction(out[0], out[1], out[2] != 0.0);
    }

    /** Like {@link #predict} for a raw row, encoded through {@code schema} first. */
    public Prediction predictRaw(Schema schema, double[] raw) {
        Objects.requireNonNull(raw, "raw");
        double[] out = new double[3];
        try {
            NativeGenerated.modelPredictRaw(handle(), schema.handle(), raw, out);
        } finally {
            Reference.reachabilityFence(this);
            Reference.reachabilityFence(schema);
        }
        return new Prediction(out[0], out[1], out[2] != 0.0);
    }

    /** Probabilities of the rows of a row-major array ({@code n × inputDim} values). */
    public double[] probabilities(double[] rowMajor) {
        Objects.requireNonNull(rowMajor, "rows");
        int n = rowsOf(rowMajor.length);
        double[] out = new double[n];
        probabilitiesInto(rowMajor, 0, n, out, 0);
        return out;
    }

    /**
     * Probabilities of {@code nRows} rows starting at row {@code firstRow} of a row-major array,
     * written into {@code out[outOffset .. outOffset + nRows)}. The input is pinned, not copied, and
     * only that region of {@code out} is written, so threads can score disjoint slices of one big
     * batch into one shared output array (the hot path).
     */
    public void probabilitiesInto(double[] rowMajor, int firstRow, int nRows, double[] out, int outOffset) {
        Objects.requireNonNull(rowMajor, "rows");
        Objects.requireNonNull(out, "out");
        int total = rowsOf(rowMajor.length);
        if (firstRow < 0 || nRows < 0 || firstRow > total - nRows || outOffset < 0 || outOffset > out.length - nRows) {
            throw new IndexOutOfBoundsException(
                    "rows " + firstRow + "+" + nRows + " of " + total + " into out[" + outOffset + "..] of "
                            + out.length);
        }
        try {
            Native.modelProbabilityBatch(handle(), rowMajor, (long) firstRow * inputDim, nRows, out, outOffset);
        } finally {
            Reference.reachabilityFence(this);
        }
    }

    private int rowsOf(int length) {
        if (inputDim == 0 || length % inputDim != 0) {
            throw new IllegalArgumentException(
                    length + " values are not whole rows of " + inputDim + " (the model's input dimension)");
        }
        return length / inputDim;
    }
}
