package org.cfx;

import java.lang.ref.Reference;

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
            return Utf8.str(Native.revalidateRecord(
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
            return Utf8.str(Native.revalidateLedger(
                    schema.handle(),
                    newModel.handle(),
                    config == null ? 0 : config.handle(),
                    Utf8.cstr(input, "input"),
                    Utf8.cstr(output, "output"),
                    Utf8.count(threads, "threads"),
                    Utf8.count(chunkRows, "chunkRows")));
        } finally {
            Reference.reachabilityFence(schema);
            Reference.reachabilityFence(newModel);
            Reference.reachabilityFence(config);
        }
    }
}
