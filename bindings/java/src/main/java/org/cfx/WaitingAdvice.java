package org.cfx;

import java.lang.ref.Reference;
import java.util.Optional;

/**
 * The cheapest advice for a declined applicant when waiting is one of the actions
 * ({@code cfx_waiting_advice}, issue #16): wait some months, then move, or both. Without
 * advice ({@link #outcome()} NO_ADVICE or UNPROVEN), {@link #found()} is false and every accessor
 * but {@link #outcome()}, {@link #proven()}, {@link #describe()} and {@link #toJson()} throws a
 * {@link CfxException} with status NOT_FOUND. A solve stopped at a limit is not an error: the
 * advice then says it is not proven. Immutable, thread-safe.
 */
public final class WaitingAdvice extends NativeResource {
    /** Months, the wait's cost, the total cost and the solver of the moves. */
    public record Summary(int months, double waitCost, double totalCost, Optional<ProvedBy> provedBy) {}

    /** Whether there is advice ({@code cfx_waiting_outcome}). */
    public enum Outcome {
        /** Advice was found: the proven optimum, unless {@link #proven()} is false. */
        FOUND,
        /** Proven: no wait within the schema's maximum and no move is accepted. */
        NO_ADVICE,
        /**
         * No advice was found and none was proven impossible: a solve stopped at a limit (time,
         * nodes) or with another status first ({@link #describe()} says which).
         */
        UNPROVEN
    }

    WaitingAdvice(long handle) {
        super(Native.KIND_WAITING_ADVICE, handle);
    }

    /** Whether there is advice ({@code cfx_waiting_advice_outcome}). */
    public Outcome outcome() {
        int k;
        try {
            k = NativeGenerated.waitingAdviceOutcome(handle());
        } finally {
            Reference.reachabilityFence(this);
        }
        if (k < 0 || k >= Outcome.values().length) {
            throw new IllegalStateException("unknown cfx_waiting_outcome " + k);
        }
        return Outcome.values()[k];
    }

    /** Whether there is advice ({@link #outcome()} is FOUND, proven or not). */
    public boolean found() {
        return outcome() == Outcome.FOUND;
    }

    /**
     * Whether the outcome is proven ({@code cfx_waiting_advice_proven}): with FOUND, true when the
     * advice is the proven optimum over every allowed wait, false when a solve stopped at a limit
     * (the best advice found, accepted but perhaps not the cheapest); always true with NO_ADVICE
     * and false with UNPROVEN.
     */
    public boolean proven() {
        try {
            return NativeGenerated.waitingAdviceProven(handle());
        } finally {
            Reference.reachabilityFence(this);
        }
    }

    /**
     * Months to wait (0: act now), the wait's cost, the total cost (wait plus moves), and the
     * solver that proved the moves' optimum (empty when waiting alone is accepted).
     */
    public Summary summary() {
        double[] o = new double[4];
        try {
            NativeGenerated.waitingAdviceSummary(handle(), o);
        } finally {
            Reference.reachabilityFence(this);
        }
        Optional<ProvedBy> by =
                o[3] < 0 ? Optional.empty() : Optional.of(ProvedBy.of((long) o[3]));
        return new Summary((int) o[0], o[1], o[2], by);
    }

    /** The applicant's raw row after waiting, before any move. */
    public double[] waitedRow() {
        try {
            return NativeGenerated.waitingAdviceWaitedRow(handle());
        } finally {
            Reference.reachabilityFence(this);
        }
    }

    /** The raw row to reach: the waited row, moved. */
    public double[] finalRow() {
        try {
            return NativeGenerated.waitingAdviceFinalRow(handle());
        } finally {
            Reference.reachabilityFence(this);
        }
    }

    /**
     * In words, e.g. "wait 24 months (age_in_years: 28 → 30), then duration_in_month: 30 → 25",
     * followed by "(not proven optimal: …)" when not proven; without advice, a sentence saying so
     * and, for UNPROVEN, which limit stopped a solve.
     */
    public String describe() {
        try {
            return Utf8.str(NativeGenerated.waitingAdviceDescribe(handle()));
        } finally {
            Reference.reachabilityFence(this);
        }
    }

    /**
     * Versioned JSON (kind "waiting_advice"): result null with NO_ADVICE, else an object with
     * "proven" and, when not proven, "unproven" (the solve's outcome), plus the advice's fields.
     */
    public String toJson() {
        try {
            return Utf8.str(NativeGenerated.waitingAdviceToJson(handle()));
        } finally {
            Reference.reachabilityFence(this);
        }
    }
}
