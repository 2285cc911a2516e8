package org.cfx;

import java.lang.ref.Reference;

/**
 * The explanations of many applicants ({@code cfx_coherent_batch}), in input order. Each applicant
 * has a status ({@link Status#OK} when explained) and, when explained, a {@link CoherentResult}.
 * Immutable, thread-safe.
 */
public final class CoherentBatch extends NativeResource {
    CoherentBatch(long handle) {
        super(Native.KIND_COHERENT_BATCH, handle);
    }

    /** The number of applicants. */
    public int count() {
        try {
            return Math.toIntExact(NativeGenerated.coherentBatchCount(handle()));
        } finally {
            Reference.reachabilityFence(this);
        }
    }

    /** {@link Status#OK} when applicant {@code i} was explained, else why not. */
    public Status status(int i) {
        try {
            return Status.of(NativeGenerated.coherentBatchStatus(handle(), Utf8.index(i, "applicant")));
        } finally {
            Reference.reachabilityFence(this);
        }
    }

    /** Why applicant {@code i} was not explained ("" when it was). */
    public String error(int i) {
        try {
            return Utf8.str(NativeGenerated.coherentBatchError(handle(), Utf8.index(i, "applicant")));
        } finally {
            Reference.reachabilityFence(this);
        }
    }

    /**
     * The result of applicant {@code i}, owned by the caller (close it; it outlives the batch).
     * {@link CfxException} with the applicant's status when it was not explained.
     */
    public CoherentResult result(int i) {
        try {
            return new CoherentResult(NativeGenerated.coherentBatchResult(handle(), Utf8.index(i, "applicant")));
        } finally {
            Reference.reachabilityFence(this);
        }
    }

    /** Versioned JSON (kind "coherent_batch"): each applicant's status, error and explanation. */
    public String toJson() {
        try {
            return Utf8.str(NativeGenerated.coherentBatchToJson(handle()));
        } finally {
            Reference.reachabilityFence(this);
        }
    }
}
