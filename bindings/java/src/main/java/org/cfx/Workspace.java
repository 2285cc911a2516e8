package org.cfx;

import java.lang.ref.Reference;

/**
 * Buffers and a seeded generator for estimates ({@code cfx_workspace}). Not thread-safe: one per
 * thread; the same seed gives the same bits.
 */
public final class Workspace extends NativeResource {
    Workspace(long handle) {
        super(Native.KIND_WORKSPACE, handle);
    }

    /** A workspace sized for {@code model}, seeded with {@code seed}. */
    public static Workspace create(Model model, long seed) {
        Robustness.require();
        try {
            return new Workspace(NativeGenerated.workspaceNew(model.handle(), seed));
        } finally {
            Reference.reachabilityFence(model);
        }
    }

    /** Restarts the generator from {@code seed}. */
    public void reseed(long seed) {
        try {
            NativeGenerated.workspaceReseed(handle(), seed);
        } finally {
            Reference.reachabilityFence(this);
        }
    }
}
