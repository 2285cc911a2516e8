package org.cfx;

import java.lang.ref.Reference;
import java.util.Optional;

/**
 * The cheapest advice for a declined applicant when waiting is one of the actions
 * ({@code cfx_waiting_advice}, issue #16): wait some months, then move, or both. When no wait
 * and no move is accepted, {@link #found()} is false and every accessor but {@link #describe()}
 * and {@link #toJson()} throws a {@link CfxException} with status NOT_FOUND. Immutable,
 * thread-safe.
 */
public final class WaitingAdvice extends NativeResource {
    /** Months, the wait's cost, the total cost and the solver of the moves. */
    public record Summary(int months, double waitCost, double totalCost, Optional<ProvedBy> provedBy) {}

    WaitingAdvice(long handle) {
        super(Native.KIND_WAITING_ADVICE, handle);
    }

    /** Whether there is advice ({@code cfx_waiting_advice_outcome} is FOUND). */
    public boolean found() {
        try {
            return Native.waitingOutcome(handle()) == 0;
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
            Native.waitingSummary(handle(), o);
        } finally {
            Reference.reachabilityFence(this);
        }
        Optional<ProvedBy> by =
                o[3] < 0 ? Optional.empty() : Optional.of(o[3] == 1 ? ProvedBy.SEPARABLE : ProvedBy.HIGHS);
        return new Summary((int) o[0], o[1], o[2], by);
    }

    /** The applicant's raw row after waiting, before any move. */
    public double[] waitedRow() {
        try {
            return Native.waitingRow(handle(), false);
        } finally {
            Reference.reachabilityFence(this);
        }
    }

    /** The raw row to reach: the waited row, moved. */
    public double[] finalRow() {
        try {
            return Native.waitingRow(handle(), true);
        } finally {
            Reference.reachabilityFence(this);
        }
    }

    /** In words, e.g. "wait 24 months (age_in_years: 28 → 30), then duration_in_month: 30 → 25". */
    public String describe() {
        try {
            return Utf8.str(Native.waitingDescribe(handle()));
        } finally {
            Reference.reachabilityFence(this);
        }
    }

    /** Versioned JSON (kind "waiting_advice"; result null when there is no advice). */
    public String toJson() {
        try {
            return Utf8.str(Native.waitingToJson(handle()));
        } finally {
            Reference.reachabilityFence(this);
        }
    }
}
