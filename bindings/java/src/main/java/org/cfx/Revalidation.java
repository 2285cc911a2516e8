package org.cfx;

import java.io.IOException;
import java.lang.ref.Reference;
import java.nio.file.Path;
import java.util.Objects;

/**
 * Re-validating issued advice when the bank deploys a new model (issue 28; {@code
 * cfx_revalidate_record}, {@code cfx_revalidate_ledger}). A promise is kept when the new model
 * accepts the advised row; a broken one comes with the exact engine's cheapest repair from the
 * advised row (its cost is the extra cost of keeping the promise) and from the applicant's row.
 */
public final class Revalidation {
    private Revalidation() {}

    /**
     * The re-validation of one ledger line ({@link LedgerRecord#fromResult}) against {@code
     * newModel}, as JSON: {@code status} ("kept"/"broken"), {@code margin}, {@code probability},
     * {@code model_changed}, and for a broken promise {@code repair}, {@code extra_cost}, {@code
     * applicant_repair} (or {@code repair_outcome}), {@code robust_kept}. {@code schema} must be the
     * one the advice was issued under; {@code config} may be null.
     */
    public static String record(Schema schema, Model newModel, Config config, String record) {
        try {
            return Utf8.str(NativeGenerated.revalidateRecord(
                    schema.handle(),
                    newModel.handle(),
                    config == null ? 0 : config.handle(),
                    Utf8.cstr(record, "record")));
        } finally {
            Reference.reachabilityFence(schema);
            Reference.reachabilityFence(newModel);
            Reference.reachabilityFence(config);
        }
    }

    /**
     * Streams the ledger file {@code input} against {@code newModel} into {@code output}, one JSON
     * line per record in input order ({@link #record}'s JSON plus {@code record}, its number; or
     * {@code {"error", "record"}}), {@code chunkRows} records at a time (0 = 4096), {@code threads}
     * at once (0 = all cores; the output is the same on any count). Returns the deployment report
     * as JSON: {@code records}, {@code kept}, {@code broken}, {@code broken_share}, {@code errors},
     * {@code repaired}, {@code extra_cost}, {@code features_behind_breaks}, {@code robust_records},
     * {@code robust_broken}, {@code groups}. A ledger issued under another schema is refused
     * ({@link CfxException}) before anything is written.
     */
    public static String ledger(
            Schema schema, Model newModel, Config config, String input, String output, int threads, int chunkRows) {
        try {
            long report = NativeGenerated.revalidateLedger(
                    schema.handle(),
                    newModel.handle(),
                    config == null ? 0 : config.handle(),
                    Utf8.cstr(input, "input"),
                    Utf8.cstr(output, "output"),
                    Utf8.count(threads, "threads"),
                    Utf8.count(chunkRows, "chunkRows"));
            try {
                return Utf8.str(NativeGenerated.deploymentReportToJson(report));
            } finally {
                NativeGenerated.deploymentReportFree(report);
            }
        } finally {
            Reference.reachabilityFence(schema);
            Reference.reachabilityFence(newModel);
            Reference.reachabilityFence(config);
        }
    }

    /**
     * As {@link #ledger(Schema, Model, Config, String, String, int, int)}, and also writes the
     * deployment report to {@code htmlPath} as one self-contained HTML page ({@code
     * cfx_deployment_report_to_html}): the counts and SVG bar plots of the broken share per group,
     * the extra cost, the features behind the breaks and, when the ledger holds robust advice, the
     * issued against the robust advice; headed {@code title} (null = cfx's default title). Returns
     * the report's JSON. A {@code htmlPath} naming the ledger or the output is refused ({@link
     * Status#INVALID_ARGUMENT}); a page that cannot be written is {@link Status#IO_ERROR}.
     */
    public static String ledger(
            Schema schema,
            Model newModel,
            Config config,
            String input,
            String output,
            int threads,
            int chunkRows,
            Path htmlPath,
            String title)
            throws IOException {
        Objects.requireNonNull(htmlPath, "htmlPath");
        try {
            long report = NativeGenerated.revalidateLedger(
                    schema.handle(),
                    newModel.handle(),
                    config == null ? 0 : config.handle(),
                    Utf8.cstr(input, "input"),
                    Utf8.cstr(output, "output"),
                    Utf8.count(threads, "threads"),
                    Utf8.count(chunkRows, "chunkRows"));
            try {
                // Written by the library, which never writes over the ledger or the output.
                NativeGenerated.deploymentReportWriteHtml(
                        report, Utf8.cstrOrNull(title, "title"), Utf8.cstr(htmlPath.toString(), "htmlPath"));
                return Utf8.str(NativeGenerated.deploymentReportToJson(report));
            } finally {
                NativeGenerated.deploymentReportFree(report);
            }
        } finally {
            Reference.reachabilityFence(schema);
            Reference.reachabilityFence(newModel);
            Reference.reachabilityFence(config);
        }
    }

    /** A deployment report as JSON and as its HTML page. */
    public record ReportAndPage(String json, String html) {}

    /**
     * As {@link #ledger(Schema, Model, Config, String, String, int, int)}, returning the report's
     * JSON and its HTML page as text ({@code cfx_deployment_report_to_html}, headed {@code title};
     * null = cfx's default title), e.g. to attach to a message.
     */
    public static ReportAndPage ledgerWithPage(
            Schema schema, Model newModel, Config config, String input, String output, int threads, int chunkRows,
            String title) {
        try {
            long report = NativeGenerated.revalidateLedger(
                    schema.handle(),
                    newModel.handle(),
                    config == null ? 0 : config.handle(),
                    Utf8.cstr(input, "input"),
                    Utf8.cstr(output, "output"),
                    Utf8.count(threads, "threads"),
                    Utf8.count(chunkRows, "chunkRows"));
            try {
                return new ReportAndPage(
                        Utf8.str(NativeGenerated.deploymentReportToJson(report)),
                        Utf8.str(NativeGenerated.deploymentReportToHtml(report, Utf8.cstrOrNull(title, "title"))));
            } finally {
                NativeGenerated.deploymentReportFree(report);
            }
        } finally {
            Reference.reachabilityFence(schema);
            Reference.reachabilityFence(newModel);
            Reference.reachabilityFence(config);
        }
    }
}
