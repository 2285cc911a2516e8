package org.cfx;

import java.lang.ref.Reference;
import java.util.List;
import java.util.Objects;

/**
 * A whole book of applicants explained from a CSV file into a JSON-lines file ({@code
 * cfx_portfolio_explain}): one line per applicant, in input order, with the decision and, for a
 * declined applicant, the optimal counterfactual and the solver that proved it. Memory stays flat
 * however many rows the file has.
 */
public final class Portfolio {
    private Portfolio() {}

    /** What a finished run wrote. */
    public record Counts(long rows, long accepted, long declined, long withRecourse, long errors) {}

    /**
     * Hears, on the calling thread, how many rows are written after each chunk; return false to stop
     * the run ({@link CfxException} with {@link Status#CANCELLED}; the output is then untouched
     * and {@code output + ".cfx-partial"} holds exactly those rows, each line whole).
     */
    @FunctionalInterface
    public interface ProgressListener {
        boolean onProgress(long rowsDone);
    }

    /**
     * Explains every applicant of {@code input} (a CSV whose header names the schema's features;
     * the {@code ignoreColumns}, e.g. the outcome label, are skipped) into {@code output}, on {@code
     * threads} worker threads (0 = all cores). {@code config} and {@code listener} may be null. An
     * exception thrown by the listener stops the run and propagates as is.
     */
    public static Counts explain(
            Schema schema,
            Model model,
            Config config,
            String input,
            String output,
            List<String> ignoreColumns,
            int threads,
            ProgressListener listener) {
        Objects.requireNonNull(ignoreColumns, "ignoreColumns");
        byte[][] ignore = new byte[ignoreColumns.size()][];
        for (int i = 0; i < ignore.length; i++) {
            ignore[i] = Utf8.cstr(ignoreColumns.get(i), "ignore column");
        }
        long[] out = new long[5];
        try {
            Native.portfolioExplain(
                    schema.handle(),
                    model.handle(),
                    config == null ? 0 : config.handle(),
                    Utf8.cstr(input, "input"),
                    Utf8.cstr(output, "output"),
                    ignore,
                    Utf8.count(threads, "threads"),
                    listener,
                    out);
        } finally {
            Reference.reachabilityFence(schema);
            Reference.reachabilityFence(model);
            Reference.reachabilityFence(config);
        }
        return new Counts(out[0], out[1], out[2], out[3], out[4]);
    }
}
