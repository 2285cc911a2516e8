package org.cfx;

import java.lang.ref.Reference;

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
}
