package org.cfx;

import java.lang.ref.Reference;
import java.util.Objects;

/**
 * An immutable feature schema ({@code cfx_schema}): features, their encoding and actionability.
 * Thread-safe; close it when done (or let the Cleaner free it).
 *
 * <p>Raw rows have one value per feature (categorical = level index); encoded rows have {@link
 * #encodedDim()} values (the model's input).
 */
public final class Schema extends NativeResource {
    private final int nFeatures;
    private final int encodedDim;

    Schema(long handle) {
        super(Native.KIND_SCHEMA, handle);
        this.nFeatures = Math.toIntExact(NativeGenerated.schemaNFeatures(handle));
        this.encodedDim = Math.toIntExact(NativeGenerated.schemaEncodedDim(handle));
    }

    /** A builder for a schema defined in code (the alternative to {@link #fromJson}). */
    public static SchemaBuilder builder() {
        return new SchemaBuilder();
    }

    /** Reads and validates a schema from JSON ({@code cfx_schema_from_json}). */
    public static Schema fromJson(String json) {
        Native.load();
        return new Schema(NativeGenerated.schemaFromJson(Utf8.cstr(json, "json")));
    }

    /** The schema as JSON ({@code cfx_schema_to_json}). */
    public String toJson() {
        try {
            return Utf8.str(NativeGenerated.schemaToJson(handle()));
        } finally {
            Reference.reachabilityFence(this);
        }
    }

    /** {@code "fnv1a64:<hex>"} of the canonical JSON, as written in result exports. */
    public String fingerprint() {
        try {
            return Utf8.str(NativeGenerated.schemaFingerprint(handle()));
        } finally {
            Reference.reachabilityFence(this);
        }
    }

    /** The number of features (length of a raw row). */
    public int nFeatures() {
        handle();
        return nFeatures;
    }

    /** The encoded dimension (length of a model input). */
    public int encodedDim() {
        handle();
        return encodedDim;
    }

    /** The name of feature {@code index}. */
    public String featureName(int index) {
        try {
            return Utf8.str(NativeGenerated.schemaFeatureName(handle(), Utf8.index(index, "feature index")));
        } finally {
            Reference.reachabilityFence(this);
        }
    }

    /** The index of the feature called {@code name}; {@link CfxException} NOT_FOUND if none. */
    public int indexOf(String name) {
        try {
            return Math.toIntExact(NativeGenerated.schemaIndexOf(handle(), Utf8.cstr(name, "name")));
        } finally {
            Reference.reachabilityFence(this);
        }
    }

    /** Encodes a raw row into {@link #encodedDim()} values. */
    public double[] encode(double[] raw) {
        double[] out = new double[encodedDim];
        encodeInto(raw, out);
        return out;
    }

    /** Encodes into a caller array of at least {@link #encodedDim()} values (no allocation). */
    public void encodeInto(double[] raw, double[] out) {
        Objects.requireNonNull(raw, "raw");
        Objects.requireNonNull(out, "out");
        try {
            NativeGenerated.schemaEncode(handle(), raw, out);
        } finally {
            Reference.reachabilityFence(this);
        }
    }

    /** Decodes an encoded vector into a raw row; INCOHERENT when it is not a real applicant. */
    public double[] decode(double[] x) {
        Objects.requireNonNull(x, "x");
        double[] out = new double[nFeatures];
        try {
            NativeGenerated.schemaDecode(handle(), x, out);
        } finally {
            Reference.reachabilityFence(this);
        }
        return out;
    }

    /** The changes from raw row {@code from} to {@code to}, one line per changed feature. */
    public String describeChanges(double[] from, double[] to) {
        Objects.requireNonNull(from, "from");
        Objects.requireNonNull(to, "to");
        try {
            return Utf8.str(NativeGenerated.schemaDescribeChanges(handle(), from, to));
        } finally {
            Reference.reachabilityFence(this);
        }
    }

    /**
     * Which distance weights this schema carries: {@link WeightsKind#UNIT} for a schema built in code
     * or read from JSON without weights, until {@link #fitWeights} or {@link Dataset#fittedSchema()}.
     */
    public WeightsKind weightsKind() {
        try {
            return WeightsKind.of(NativeGenerated.schemaWeightsKind(handle()));
        } finally {
            Reference.reachabilityFence(this);
        }
    }

    /**
     * This schema (of {@link Dataset#loadGerman} or {@link Dataset#loadHeloc}) with the dataset's
     * actionability preset for advice (issue #16, {@code cfx_schema_advice_preset}): change limits,
     * features that move only by waiting, forbidden moves, and a waiting action costing {@code
     * waitingCostPerMonth} per month. NOT_FOUND when the schema lacks a feature the preset names.
     */
    public Schema advicePreset(AdvicePreset preset, double waitingCostPerMonth) {
        Objects.requireNonNull(preset, "preset");
        try {
            return new Schema(NativeGenerated.schemaAdvicePreset(handle(), preset.code, waitingCostPerMonth));
        } finally {
            Reference.reachabilityFence(this);
        }
    }

    /** A new schema with distance weights fitted on raw rows (this one is unchanged). */
    public Schema fitWeights(double[][] rows) {
        Objects.requireNonNull(rows, "rows");
        double[] flat = new double[rows.length * nFeatures];
        for (int i = 0; i < rows.length; i++) {
            if (rows[i].length != nFeatures) {
                throw new IllegalArgumentException(
                        "row " + i + " has " + rows[i].length + " values, the schema " + nFeatures);
            }
            System.arraycopy(rows[i], 0, flat, i * nFeatures, nFeatures);
        }
        try {
            return new Schema(NativeGenerated.schemaFitWeights(handle(), flat, rows.length, nFeatures));
        } finally {
            Reference.reachabilityFence(this);
        }
    }

    /** Encodes many raw rows into one row-major array (for {@link Model#probabilities}). */
    public double[] encodeRows(double[][] rows) {
        double[] flat = new double[rows.length * encodedDim];
        double[] one = new double[encodedDim];
        for (int i = 0; i < rows.length; i++) {
            encodeInto(rows[i], one);
            System.arraycopy(one, 0, flat, i * encodedDim, encodedDim);
        }
        return flat;
    }
}
