package org.cfx;

import java.lang.ref.Cleaner;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A Java object owning one native cfx handle.
 *
 * <p>{@link #close()} frees it deterministically (idempotent). If the object is dropped without
 * closing, a {@link Cleaner} frees it after it becomes unreachable, on the Cleaner's own thread
 * (every cfx {@code _free} may run on any thread). Either way the handle is freed exactly once:
 * {@link Cleaner.Cleanable#clean()} runs its action at most once. The action ({@link Free}) holds
 * only the handle number and its kind, never the wrapper, so the wrapper can become unreachable.
 *
 * <p>Subclasses fence every native call with {@code Reference.reachabilityFence(this)}, so the
 * Cleaner cannot free the handle while a call that uses it is still running. Closing an object
 * while another thread is using it is a caller error (as freeing would be in C).
 */
public abstract class NativeResource implements AutoCloseable {
    private static final Cleaner CLEANER = Cleaner.create();
    private static final AtomicLong NEXT_ID = new AtomicLong(1);

    private final Free free;
    private final Cleaner.Cleanable cleanable;

    NativeResource(int kind, long handle) {
        Native.load();
        if (handle == 0) {
            throw new IllegalStateException("cfx returned a NULL handle");
        }
        this.free = new Free(kind, handle, NEXT_ID.getAndIncrement());
        this.cleanable = CLEANER.register(this, free);
    }

    /** The live handle; {@link IllegalStateException} once closed. */
    final long handle() {
        long h = free.handle;
        if (h == 0) {
            throw new IllegalStateException(getClass().getSimpleName() + " is closed");
        }
        return h;
    }

    /** Gives the handle up without freeing it (ownership moved into C, e.g. a consumed builder). */
    final long release() {
        long h = handle();
        free.handle = 0;
        cleanable.clean(); // unregisters; the action sees 0 and frees nothing
        return h;
    }

    /** A number unique to this wrapper (tests of "freed exactly once"). */
    final long resourceId() {
        return free.id;
    }

    /** True once closed (or consumed). */
    public final boolean isClosed() {
        return free.handle == 0;
    }

    /** Frees the native handle now; further calls do nothing. */
    @Override
    public final void close() {
        cleanable.clean();
    }

    /** The cleaning action: captures the handle number only. */
    private static final class Free implements Runnable {
        private final int kind;
        private final long id;
        private volatile long handle;

        Free(int kind, long handle, long id) {
            this.kind = kind;
            this.handle = handle;
            this.id = id;
        }

        @Override
        public void run() {
            long h = handle;
            handle = 0;
            if (h != 0) {
                Native.free(kind, h);
                Native.recordFree(id);
            }
        }
    }
}
