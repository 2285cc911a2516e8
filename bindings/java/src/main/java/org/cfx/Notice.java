package org.cfx;

import java.lang.ref.Reference;
import java.util.Objects;

/**
 * The adverse-action notice of a declined applicant ({@code cfx_notice}): the principal reasons,
 * ranked against a reference population, and the exact engine's advice, consistent by
 * construction. Read it as versioned JSON or as a self-contained HTML page. Immutable,
 * thread-safe.
 */
public final class Notice extends NativeResource {
    Notice(long handle) {
        super(Native.KIND_NOTICE, handle);
    }

    /**
     * The notice of a declined applicant ({@code raw}: one value per feature). {@code reference}
     * is the dataset the reasons are ranked against; {@code config} may be null (defaults);
     * {@code optionsJson} may be null or a JSON object with the optional keys {@code max_reasons}
     * (4), {@code reference} ({@code {"kind":"all_applicants"}} or {@code
     * {"kind":"at_cutoff","band":b}}), {@code reason_table_path} or {@code reason_table} (the
     * bank's codes and statements), {@code necessity} (true), {@code tree_shap}, {@code
     * scorecard_baseline}, {@code mlp_max_features}. An accepted applicant is refused ({@link
     * Status#INVALID_ARGUMENT}).
     */
    public static Notice explain(
            Schema schema, Model model, Dataset reference, Config config, double[] raw, String optionsJson) {
        Objects.requireNonNull(raw, "raw");
        byte[] o = Utf8.cstrOrNull(optionsJson, "optionsJson");
        try {
            long c = config == null ? 0 : config.handle();
            return new Notice(
                    NativeGenerated.noticeExplain(schema.handle(), model.handle(), reference.handle(), c, raw, o));
        } finally {
            Reference.reachabilityFence(schema);
            Reference.reachabilityFence(model);
            Reference.reachabilityFence(reference);
            Reference.reachabilityFence(config);
        }
    }

    /**
     * Notices for a whole book: one JSON line in {@code output} per declined applicant of the CSV
     * file {@code input} ({@code {"notice": {...}, "row": k}}, or {@code {"error": ..., "row": k}}),
     * each the notice {@link #explain} makes for that row. With {@code ledger} (may be null) the
     * notices' advice is also written as an advice ledger, each record carrying its notice's id,
     * for {@link Revalidation}. {@code optionsJson} (may be null) takes the keys of {@link
     * #explain} plus {@code ignore_columns} and {@code id_column}. Both files are replaced only
     * once the whole book is done and may not be an input. Returns the number of lines written.
     */
    public static long book(
            Schema schema,
            Model model,
            Dataset reference,
            Config config,
            String input,
            String output,
            String ledger,
            String optionsJson) {
        byte[] in = Utf8.cstr(Objects.requireNonNull(input, "input"), "input");
        byte[] out = Utf8.cstr(Objects.requireNonNull(output, "output"), "output");
        byte[] l = Utf8.cstrOrNull(ledger, "ledger");
        byte[] o = Utf8.cstrOrNull(optionsJson, "optionsJson");
        try {
            long c = config == null ? 0 : config.handle();
            return NativeGenerated.noticeBook(
                    schema.handle(), model.handle(), reference.handle(), c, in, out, l, o);
        } finally {
            Reference.reachabilityFence(schema);
            Reference.reachabilityFence(model);
            Reference.reachabilityFence(reference);
            Reference.reachabilityFence(config);
        }
    }

    /** The versioned JSON (kind {@code "notice"}): {@code result} is the notice itself. */
    public String toJson() {
        try {
            return Utf8.str(NativeGenerated.noticeToJson(handle()));
        } finally {
            Reference.reachabilityFence(this);
        }
    }

    /** A printable HTML page: no script, no external resource, an inline SVG chart. */
    public String toHtml() {
        try {
            return Utf8.str(NativeGenerated.noticeToHtml(handle()));
        } finally {
            Reference.reachabilityFence(this);
        }
    }
}
