package org.cfx;

import java.lang.ref.Reference;
import java.util.List;
import java.util.Objects;

/**
 * An immutable dataset ({@code cfx_dataset}): a schema, raw rows and labels (1 = favourable).
 * Thread-safe.
 */
public final class Dataset extends NativeResource {
    private final int nRows;
    private final int nFeatures;

    Dataset(long handle) {
        super(Native.KIND_DATASET, handle);
        this.nRows = Math.toIntExact(NativeGenerated.datasetNRows(handle));
        long s = NativeGenerated.datasetSchema(handle);
        try {
            this.nFeatures = Math.toIntExact(NativeGenerated.schemaNFeatures(s));
        } finally {
            Native.free(Native.KIND_SCHEMA, s);
        }
    }

    /** The Statlog German credit data; {@code path == null} means the copy bundled with cfx. */
    public static Dataset loadGerman(String path) {
        Native.load();
        return new Dataset(NativeGenerated.datasetLoadGerman(Utf8.cstrOrNull(path, "path")));
    }

    /** FICO HELOC; {@code path == null} means cfx's shared data folder. */
    public static Dataset loadHeloc(String path) {
        Native.load();
        return new Dataset(NativeGenerated.datasetLoadHeloc(Utf8.cstrOrNull(path, "path")));
    }

    /** Taiwan credit-card default; {@code path == null} means cfx's shared data folder. */
    public static Dataset loadTaiwan(String path) {
        Native.load();
        return new Dataset(NativeGenerated.datasetLoadTaiwan(Utf8.cstrOrNull(path, "path")));
    }

    /** A CSV read under {@code schema}; label 1 where column {@code target} equals {@code favourable}. */
    public static Dataset fromCsv(Schema schema, String path, String target, String favourable) {
        try {
            return new Dataset(
                    NativeGenerated.datasetFromCsv(
                            schema.handle(),
                            Utf8.cstr(path, "path"),
                            Utf8.cstr(target, "target"),
                            Utf8.cstr(favourable, "favourable")));
        } finally {
            Reference.reachabilityFence(schema);
        }
    }

    /**
     * A CSV read under {@code schema} with the field {@code delimiter} (an ASCII character such as
     * {@code ';'}, common in European credit files) and, when {@code hasHeader} is false, the
     * columns in the order: the schema's features, then the label column {@code target}.
     */
    public static Dataset fromCsv(
            Schema schema, String path, String target, String favourable, char delimiter, boolean hasHeader) {
        if (delimiter > 127) {
            throw new IllegalArgumentException("the delimiter must be an ASCII character, got '" + delimiter + "'");
        }
        try {
            return new Dataset(
                    NativeGenerated.datasetFromCsvEx(
                            schema.handle(),
                            Utf8.cstr(path, "path"),
                            Utf8.cstr(target, "target"),
                            Utf8.cstr(favourable, "favourable"),
                            (byte) delimiter,
                            hasHeader));
        } finally {
            Reference.reachabilityFence(schema);
        }
    }

    public int nRows() {
        handle();
        return nRows;
    }

    /**
     * Infers a schema from a CSV file and reads its rows under it; the schema ({@link #schema()}) has
     * distance weights fitted on the rows. A column is categorical when listed in {@code
     * categorical} or when a cell is not a number; columns in {@code drop} are left out; special
     * codes are given by the caller. Without a header the columns are named "column 1", "column 2", ….
     */
    public static Dataset inferCsv(
            String path,
            String target,
            String favourable,
            char delimiter,
            boolean hasHeader,
            List<String> drop,
            List<String> categorical,
            List<SpecialCode> specialCodes) {
        return inferCsv(path, target, favourable, delimiter, hasHeader, drop, categorical, specialCodes, null);
    }

    /**
     * {@link #inferCsv(String, String, String, char, boolean, List, List, List)} with the advice rules
     * the caller already knows ({@code cfx_dataset_infer_csv_with_rules}): {@code rulesJson} is null
     * (every feature mutable in any direction) or a JSON object with the optional keys {@code
     * actionability} (feature name → the schema's actionability object, e.g. {@code {"SEX":
     * {"mutable": false}}}) and {@code waiting} ({@code {"max_months": 24, "cost_per_month":
     * 0.01}}), as {@code cfx schema infer} takes them. A rule naming no feature: {@link
     * Status#NOT_FOUND}; rules that are not such an object: {@link Status#FORMAT_ERROR}.
     */
    public static Dataset inferCsv(
            String path,
            String target,
            String favourable,
            char delimiter,
            boolean hasHeader,
            List<String> drop,
            List<String> categorical,
            List<SpecialCode> specialCodes,
            String rulesJson) {
        Objects.requireNonNull(drop, "drop");
        Objects.requireNonNull(categorical, "categorical");
        Objects.requireNonNull(specialCodes, "specialCodes");
        if (delimiter > 127) {
            throw new IllegalArgumentException("the delimiter must be an ASCII character, got '" + delimiter + "'");
        }
        Native.load();
        int n = specialCodes.size();
        double[] codes = new double[n];
        byte[][] labels = new byte[n][];
        byte[][] columns = new byte[n][];
        for (int i = 0; i < n; i++) {
            SpecialCode s = Objects.requireNonNull(specialCodes.get(i), "specialCodes[" + i + "]");
            codes[i] = s.code();
            labels[i] = Utf8.cstr(s.label(), "label");
            columns[i] = Utf8.cstrOrNull(s.column(), "column");
        }
        if (rulesJson != null) {
            return new Dataset(
                    NativeGenerated.datasetInferCsvWithRules(
                            Utf8.cstr(path, "path"),
                            Utf8.cstr(target, "target"),
                            Utf8.cstr(favourable, "favourable"),
                            (byte) delimiter,
                            hasHeader,
                            names(drop, "drop"),
                            names(categorical, "categorical"),
                            codes,
                            labels,
                            columns,
                            Utf8.cstr(rulesJson, "rulesJson")));
        }
        return new Dataset(
                NativeGenerated.datasetInferCsv(
                        Utf8.cstr(path, "path"),
                        Utf8.cstr(target, "target"),
                        Utf8.cstr(favourable, "favourable"),
                        (byte) delimiter,
                        hasHeader,
                        names(drop, "drop"),
                        names(categorical, "categorical"),
                        codes,
                        labels,
                        columns));
    }

    private static byte[][] names(List<String> v, String what) {
        byte[][] out = new byte[v.size()][];
        for (int i = 0; i < out.length; i++) {
            out[i] = Utf8.cstr(v.get(i), what + "[" + i + "]");
        }
        return out;
    }

    /**
     * A new schema: this dataset's schema with distance weights fitted on its rows (close it
     * separately). A schema built in code or read from JSON has unit weights, which changes most
     * answers; build the model and every method on this one.
     */
    public Schema fittedSchema() {
        try {
            return new Schema(NativeGenerated.datasetFittedSchema(handle()));
        } finally {
            Reference.reachabilityFence(this);
        }
    }

    /** A new handle to the dataset's schema (close it separately). */
    public Schema schema() {
        try {
            return new Schema(NativeGenerated.datasetSchema(handle()));
        } finally {
            Reference.reachabilityFence(this);
        }
    }

    /** Raw row {@code index}. */
    public double[] row(int index) {
        double[] out = new double[nFeatures];
        try {
            NativeGenerated.datasetRow(handle(), Utf8.index(index, "row"), out);
        } finally {
            Reference.reachabilityFence(this);
        }
        return out;
    }

    /** All raw rows. */
    public double[][] rows() {
        double[][] r = new double[nRows][];
        for (int i = 0; i < nRows; i++) {
            r[i] = row(i);
        }
        return r;
    }

    /** The label of row {@code index} (1 favourable, 0 otherwise). */
    public double label(int index) {
        try {
            return NativeGenerated.datasetLabel(handle(), Utf8.index(index, "row"));
        } finally {
            Reference.reachabilityFence(this);
        }
    }

    /** All labels. */
    public double[] labels() {
        double[] y = new double[nRows];
        for (int i = 0; i < nRows; i++) {
            y[i] = label(i);
        }
        return y;
    }

    /** The rows encoded through the dataset's schema, row-major ({@code nRows × encodedDim}). */
    public double[] encodedRows() {
        try (Schema s = schema()) {
            return s.encodeRows(rows());
        }
    }

    /** The two parts of {@link #holdoutSplit()}; closing it closes both. */
    public record Split(Dataset train, Dataset test) implements AutoCloseable {
        @Override
        public void close() {
            train.close();
            test.close();
        }
    }

    /** The fixed 70/30 hold-out split (row i held out when i mod 10 ≥ 7). */
    public Split holdoutSplit() {
        long[] out = new long[2];
        try {
            NativeGenerated.datasetHoldoutSplit(handle(), out);
        } finally {
            Reference.reachabilityFence(this);
        }
        Dataset train;
        try {
            train = new Dataset(out[0]);
        } catch (RuntimeException e) {
            Native.free(Native.KIND_DATASET, out[1]);
            throw e;
        }
        return new Split(train, new Dataset(out[1]));
    }
}
