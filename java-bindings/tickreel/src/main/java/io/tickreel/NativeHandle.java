package io.tickreel;

import java.lang.ref.Cleaner;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongConsumer;

/**
 * One native handle owned by a public object: closed explicitly by {@link #close()}, or by a
 * {@link Cleaner} once the owner is unreachable (a safety net, not the normal path). Closing is
 * idempotent and safe while another thread's call is in flight: the native side keeps the object
 * alive until that call returns, and later calls fail with {@link IllegalStateException}.
 */
final class NativeHandle {
    private static final Cleaner CLEANER = Cleaner.create();

    /** The cleaning action; must not reference the owner. */
    private static final class State implements Runnable {
        final AtomicLong handle;
        final LongConsumer closer;

        State(long handle, LongConsumer closer) {
            this.handle = new AtomicLong(handle);
            this.closer = closer;
        }

        @Override
        public void run() {
            long h = handle.getAndSet(0);
            if (h != 0) {
                closer.accept(h);
            }
        }
    }

    private final State state;
    private final Cleaner.Cleanable cleanable;
    private final String what;

    NativeHandle(Object owner, long handle, String what) {
        this(owner, handle, what, NativeBridge::close);
    }

    /** A handle closed by {@code closer} (which must not reference the owner). */
    NativeHandle(Object owner, long handle, String what, LongConsumer closer) {
        if (handle == 0) {
            throw new TickreelException(TickreelException.Kind.INTERNAL, "native returned no handle for " + what);
        }
        this.state = new State(handle, closer);
        this.cleanable = CLEANER.register(owner, state);
        this.what = what;
    }

    /** The live handle; throws {@link IllegalStateException} once closed. */
    long get() {
        long h = state.handle.get();
        if (h == 0) {
            throw new IllegalStateException("the " + what + " is closed");
        }
        return h;
    }

    boolean isClosed() {
        return state.handle.get() == 0;
    }

    void close() {
        cleanable.clean();
    }
}
