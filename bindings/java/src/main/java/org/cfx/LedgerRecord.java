package org.cfx;

import java.lang.ref.Reference;
import java.util.List;
import java.util.Objects;

/**
 * The advice ledger (issue 28): one issued piece of advice as one JSON line ({@code "format":
 * "cfx-ledger"}, version 1) — the applicant's row, the advised row, its cost and the fingerprints
 * of the schema and model it was issued under — kept so that {@link Revalidation} can tell, when
 * the bank deploys a new model, which promises it breaks.
 */
public final class LedgerRecord {
    private LedgerRecord() {}

    /**
     * The ledger line (no line end) of the optimal counterfactual of {@code result} (which knows
     * its schema and model). {@code id} is the issuer's opaque id (an application number); {@code
     * issued} (an opaque date) and {@code group} (a label for the report's breakdown) may be null;
     * {@code robust} may be null, or the result of the same applicant computed with {@link
     * ConfigBuilder}'s robust advice, kept as the record's robust version. Throws {@link
     * CfxException} with {@link Status#NOT_FOUND} when {@code result} holds no counterfactual.
     */
    public static String fromResult(
            CoherentResult result, String id, String issued, String group, CoherentResult robust) {
        try {
            return Utf8.str(NativeGenerated.ledgerRecordFromCoherentResult(
                    result.handle(),
                    robust == null ? 0 : robust.handle(),
                    Utf8.cstr(id, "id"),
                    Utf8.cstrOrNull(issued, "issued"),
                    Utf8.cstrOrNull(group, "group")));
        } finally {
            Reference.reachabilityFence(result);
            Reference.reachabilityFence(robust);
        }
    }

    /**
     * The ledger line of counterfactual {@code k} of a diverse result ({@link
     * Coherent#explainDiverse}): id {@code "<id>/<k>"}, kind "explain" for the optimal one ({@code k
     * = 0}) and "diverse" for the others, so every option the applicant was shown can be
     * re-validated. The other arguments as {@link #fromResult(CoherentResult, String, String,
     * String, CoherentResult)}. Throws {@link CfxException} with {@link Status#NOT_FOUND} when
     * {@code result} has no counterfactual {@code k}, {@link IndexOutOfBoundsException} when
     * {@code k} is negative.
     */
    public static String fromResult(
            CoherentResult result, long k, String id, String issued, String group, CoherentResult robust) {
        try {
            return Utf8.str(NativeGenerated.ledgerRecordFromCoherentResultAt(
                    result.handle(),
                    Utf8.index(k, "k"),
                    robust == null ? 0 : robust.handle(),
                    Utf8.cstr(id, "id"),
                    Utf8.cstrOrNull(issued, "issued"),
                    Utf8.cstrOrNull(group, "group")));
        } finally {
            Reference.reachabilityFence(result);
            Reference.reachabilityFence(robust);
        }
    }

    /**
     * The ledger line of waiting advice (kind "waiting": the advised row is the row after waiting
     * and moving). {@code issued} and {@code group} may be null. Throws {@link CfxException} with
     * {@link Status#NOT_FOUND} when the advice holds none.
     */
    public static String fromAdvice(WaitingAdvice advice, String id, String issued, String group) {
        try {
            return Utf8.str(NativeGenerated.ledgerRecordFromWaitingAdvice(
                    advice.handle(),
                    Utf8.cstr(id, "id"),
                    Utf8.cstrOrNull(issued, "issued"),
                    Utf8.cstrOrNull(group, "group")));
        } finally {
            Reference.reachabilityFence(advice);
        }
    }

    /**
     * Keeps a portfolio run's answers ({@link Portfolio#explain}) as the ledger file {@code
     * ledger}: one line per declined applicant with a counterfactual (kind "explain", or "robust"
     * for a line whose counterfactual carries its {@code invalidation_rate}), the applicant's row
     * read from the run's input {@code csv}, the advice from its output {@code explanations}, both
     * read in lockstep. {@code schema}, {@code model} and {@code ignoreColumns} must be the run's.
     * The id is the {@code idColumn} cell (null: {@code "row-<k>"}), the group the {@code
     * groupColumn} cell (null: none), {@code issued} every record's issue text (null: none). {@code
     * config} may be null, or the run's configuration: when it sets robust advice ({@link
     * ConfigBuilder#robustAdvice}, {@link ConfigBuilder#robustBox}), its target becomes the {@code
     * robustness} of every "robust" record ({@code sigma2}, {@code invalidation_target}, and {@code
     * box_kind} when not the reals; the library reads it from the configuration's JSON); the run's lines do not
     * carry it, so without the configuration those records have none. Returns the number of
     * records written. Files that are not one run's input and output under {@code model} throw
     * {@link CfxException} ({@link Status#DATA_ERROR}) and leave no ledger.
     */
    public static long fromPortfolio(
            Schema schema,
            Model model,
            String csv,
            String explanations,
            String ledger,
            List<String> ignoreColumns,
            String idColumn,
            String groupColumn,
            String issued,
            Config config) {
        Objects.requireNonNull(ignoreColumns, "ignoreColumns");
        StringBuilder o = new StringBuilder("{\"ignore_columns\":[");
        for (int i = 0; i < ignoreColumns.size(); i++) {
            if (i > 0) o.append(',');
            o.append(json(Objects.requireNonNull(ignoreColumns.get(i), "ignore column")));
        }
        o.append(']');
        if (idColumn != null) o.append(",\"id_column\":").append(json(idColumn));
        if (groupColumn != null) o.append(",\"group_column\":").append(json(groupColumn));
        if (issued != null) o.append(",\"issued\":").append(json(issued));
        // The configuration's own JSON: the library reads the robustness target from it.
        if (config != null) o.append(",\"config\":").append(config.toJson());
        o.append('}');
        try {
            return NativeGenerated.ledgerFromPortfolio(
                    schema.handle(),
                    model.handle(),
                    Utf8.cstr(csv, "csv"),
                    Utf8.cstr(explanations, "explanations"),
                    Utf8.cstr(ledger, "ledger"),
                    Utf8.cstr(o.toString(), "options"));
        } finally {
            Reference.reachabilityFence(schema);
            Reference.reachabilityFence(model);
            Reference.reachabilityFence(config);
        }
    }

    /**
     * {@link #fromPortfolio(Schema, Model, String, String, String, List, String, String, String,
     * Config)} without the run's configuration: its "robust" records carry no {@code robustness}.
     */
    public static long fromPortfolio(
            Schema schema,
            Model model,
            String csv,
            String explanations,
            String ledger,
            List<String> ignoreColumns,
            String idColumn,
            String groupColumn,
            String issued) {
        return fromPortfolio(schema, model, csv, explanations, ledger, ignoreColumns, idColumn, groupColumn, issued, null);
    }

    /**
     * The ledger line {@code record} with its COPA-corrected version kept as {@code copa_advised}
     * (Bui, Nguyen &amp; Nguyen 2022, §3): the advised row moved, inside what the applicant may
     * change, so that it stays valid under more of the models {@code uncertainty} suggests
     * (Gelbrich radius {@code rho}, perturbation limit {@code delta}). {@code schema} must be the
     * one the record was issued under. Throws {@link CfxException} with {@link Status#NOT_FOUND}
     * when the corrected row breaks a rule of the schema for the applicant: no version is kept, the
     * record stays as it was.
     */
    public static String withCopaVersion(
            Schema schema, Uncertainty uncertainty, String record, double rho, double delta) {
        try {
            return Utf8.str(NativeGenerated.ledgerRecordAddCopaVersion(
                    schema.handle(), uncertainty.handle(), Utf8.cstr(record, "record"), rho, delta));
        } finally {
            Reference.reachabilityFence(schema);
            Reference.reachabilityFence(uncertainty);
        }
    }

    /** A JSON string literal of {@code s}. */
    private static String json(String s) {
        StringBuilder b = new StringBuilder("\"");
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            if (c == '"' || c == '\\') {
                b.append('\\').append(c);
            } else if (c < 0x20) {
                b.append(String.format("\\u%04x", (int) c));
            } else {
                b.append(c);
            }
        }
        return b.append('"').toString();
    }
}
