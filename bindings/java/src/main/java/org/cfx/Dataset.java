package org.cfx;

import java.lang.ref.Reference;

/**
 * An immutable dataset ({@code cfx_dataset}): a schema, raw rows and labels (1 = favourable).
 * Thread-safe.
 */
public final class Dataset extends NativeResource {
    private final int nRows;
    private final int nFeatures;

    Dataset(long handle) {
        super(Native.KIND_DATASET, handle);
        this.nRows = Math.toIntExact(Native.datasetNRows(handle));
        long s = Native.datasetSchema(handle);
        try {
            this.nFeatures = Math.toIntExact(Native.schemaNFeatures(s));
        } finally {
            Native.free(Native.KIND_SCHEMA, s);
        }
    }

    /** The Statlog German credit data; {@code path == null} means the copy bundled with cfx. */
    public static Dataset loadGerman(String path) {
        Native.load();
        return new Dataset(Native.datasetLoadGerman(Utf8.cstrOrNull(path, "path")));
    }

    /** FICO HELOC; {@code path == null} means cfx's shared data folder. */
    public static Dataset loadHeloc(String path) {
        Native.load();
        return new Dataset(Native.datasetLoadHeloc(Utf8.cstrOrNull(path, "path")));
    }

    /** Taiwan credit-card default; {@code path == null} means cfx's shared data folder. */
    public static Dataset loadTaiwan(String path) {
        Native.load();
        return new Dataset(Native.datasetLoadTaiwan(Utf8.cstrOrNull(path, "path")));
    }

    /** A CSV read under {@code schema}; label 1 where column {@code target} equals {@code favourable}. */
    public static Dataset fromCsv(Schema schema, String path, String target, String favourable) {
        try {
            return new Dataset(
                    Native.datasetFromCsv(
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
                    Native.datasetFromCsvEx(
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

    /** A new handle to the dataset's schema (close it separately). */
    public Schema schema() {
        try {
            return new Schema(Native.datasetSchema(handle()));
        } finally {
            Reference.reachabilityFence(this);
        }
    }

    /** Raw row {@code index}. */
    public double[] row(int index) {
        double[] out = new double[nFeatures];
        try {
            Native.datasetRow(handle(), Utf8.index(index, "row"), out);
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
            return Native.datasetLabel(handle(), Utf8.index(index, "row"));
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
            Native.datasetHoldoutSplit(handle(), out);
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
