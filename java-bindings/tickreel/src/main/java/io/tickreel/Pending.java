package io.tickreel;

import java.nio.file.Path;
import java.time.Duration;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.locks.LockSupport;

/**
 * A result that comes later: work running on a background thread of the library (a recording's
 * finish, a report, a ghost load, an upload). The one polling style is {@link #poll()} (never
 * blocks, so a server's tick loop can call it every tick; {@link #isReady()} says whether it would
 * return the result); the one future style is {@link #future()}; {@link #await()} and {@link
 * #await(Duration)} block, for threads that may.
 *
 * <p>The result, once there, is the same on every call (a loaded {@link Ghost} is the same object:
 * close it when done). A failure is thrown by {@link #poll()} and the waits, every time, as
 * {@link TickreelException}, or as {@link IllegalArgumentException} / {@link
 * IllegalStateException} for a bad argument or state found by the work (a report onto an existing
 * file, an engine closed first).
 *
 * <p>Closing releases the handle (later calls throw {@link IllegalStateException}, as on every
 * handle): a ghost load still running is cancelled; a finish, a report or an upload goes on
 * (nobody hears how it went). Closing does not close a result already returned, nor affect a
 * finish's or report's {@link #future()} already asked for.
 *
 * @param <T> the result: {@link Path} (the file a finish or report wrote), {@link Ghost}, {@link
 *     Uploaded}
 */
public final class Pending<T> implements AutoCloseable {
    /** How one kind of background work is read natively. */
    interface Source<T> {
        /** The result once the work has ended (throws its failure), {@code null} while it runs. Never blocks. */
        T poll(long handle);

        /** Whether the work has ended (never throws the work's failure). Never blocks. */
        boolean ended(long handle);

        /**
         * Waits up to {@code nanos} ({@code -1}: no limit) for the work to end. Returns the result
         * if the wait read it (then it throws the failure too), else {@code null}: the caller
         * reads it with {@link #poll}. By default waits for {@link #ended} without reading.
         */
        default T await(long handle, long nanos) {
            long deadline = System.nanoTime() + Math.max(0, nanos);
            while (!ended(handle) && (nanos < 0 || System.nanoTime() - deadline < 0)) {
                LockSupport.parkNanos(200_000);
            }
            return null;
        }
    }

    /** A recording's finish or a report: the file written. */
    static final Source<Path> FINISH = new Source<>() {
        @Override
        public Path poll(long h) {
            return path(NativeBridge.finishHandlePoll(h));
        }

        @Override
        public boolean ended(long h) {
            return NativeBridge.finishHandleIsDone(h);
        }

        @Override
        public Path await(long h, long nanos) {
            return path(NativeBridge.finishHandleAwait(h, nanos));
        }
    };

    /** A ghost load: the ghost, taken from the load once. */
    static final Source<Ghost> GHOST = new Source<>() {
        @Override
        public Ghost poll(long h) {
            long g = NativeBridge.ghostLoadTake(h);
            return g == 0 ? null : new Ghost(g);
        }

        @Override
        public boolean ended(long h) {
            return NativeBridge.ghostLoadPoll(h);
        }
    };

    /** A finish followed by an upload: the object. */
    static final Source<Uploaded> UPLOAD = new Source<>() {
        @Override
        public Uploaded poll(long h) {
            String url = NativeBridge.pendingUploadPoll(h);
            return url == null ? null : new Uploaded(url, NativeBridge.pendingUploadBytes(h));
        }

        @Override
        public boolean ended(long h) {
            try {
                return NativeBridge.pendingUploadPoll(h) != null;
            } catch (TickreelException | IllegalArgumentException e) {
                return true;
            }
        }
    };

    private final NativeHandle handle;
    private final Source<T> source;
    /** The result once read (then never read natively again), or the failure. */
    private T result;
    private RuntimeException failure;
    private CompletableFuture<T> future;

    Pending(long h, Source<T> source, String what) {
        this.handle = new NativeHandle(this, h, what);
        this.source = source;
    }

    /**
     * The result once the work has ended, empty while it runs. Never blocks.
     *
     * @throws TickreelException or another {@link RuntimeException} if the work failed
     * @throws IllegalStateException if this handle is closed
     */
    public synchronized Optional<T> poll() {
        long h = handle.get();
        if (result == null && failure == null) {
            try {
                result = source.poll(h);
            } catch (RuntimeException e) {
                failure = e;
            }
        }
        return current();
    }

    /**
     * Whether the work has ended (successfully or not): {@link #poll()} would return or throw its
     * result. Never blocks.
     *
     * @throws IllegalStateException if this handle is closed
     */
    public synchronized boolean isReady() {
        long h = handle.get();
        return result != null || failure != null || source.ended(h);
    }

    /**
     * Waits for the work to end and returns its result.
     *
     * @throws TickreelException or another {@link RuntimeException} if the work failed
     * @throws IllegalStateException if this handle is closed
     */
    public T await() {
        return awaitNanos(-1).orElseThrow();
    }

    /**
     * Waits up to {@code timeout}; the result, or empty if the work still runs.
     *
     * @throws TickreelException or another {@link RuntimeException} if the work failed
     * @throws IllegalStateException if this handle is closed
     */
    public Optional<T> await(Duration timeout) {
        Objects.requireNonNull(timeout, "timeout");
        return awaitNanos(timeout.isNegative() ? 0 : saturatedNanos(timeout));
    }

    /**
     * A future completed with the result, or exceptionally with the failure (the exception {@link
     * #await()} would throw), for schedulers that chain on futures. The same future every call. One
     * daemon thread waits for it and ends with the work; cancelling the future does not cancel the
     * work.
     *
     * @throws IllegalStateException if this handle was closed before the first call
     */
    public synchronized CompletableFuture<T> future() {
        if (future == null) {
            handle.get();
            CompletableFuture<T> f = new CompletableFuture<>();
            Thread waiter = new Thread(() -> {
                try {
                    f.complete(await());
                } catch (Throwable t) {
                    f.completeExceptionally(t);
                }
            }, "tickreel-pending-waiter");
            waiter.setDaemon(true);
            waiter.start();
            future = f;
        }
        return future;
    }

    /** Releases the handle (a ghost load is cancelled; other work goes on). Idempotent. */
    @Override
    public void close() {
        handle.close();
    }

    /** The native handle of a finish or report, for calls that take one (throws once closed). */
    long finishHandle() {
        if (source != FINISH) {
            throw new IllegalArgumentException("not a recording's finish or a report");
        }
        return handle.get();
    }

    /** The native handle of an upload, for calls that take one (throws once closed). */
    long uploadHandle() {
        if (source != UPLOAD) {
            throw new IllegalArgumentException("not an upload");
        }
        return handle.get();
    }

    private Optional<T> awaitNanos(long nanos) {
        long h;
        synchronized (this) {
            h = handle.get();
            if (result != null || failure != null) {
                return current();
            }
        }
        // The wait runs outside the lock, so that poll() from another thread never blocks on it.
        T r;
        try {
            r = source.await(h, nanos);
        } catch (RuntimeException e) {
            synchronized (this) {
                if (result == null && failure == null) {
                    failure = e;
                }
                return current();
            }
        }
        synchronized (this) {
            if (r != null && result == null && failure == null) {
                result = r;
            }
            if (r != null || result != null || failure != null) {
                return current();
            }
        }
        return poll();
    }

    private Optional<T> current() {
        if (failure != null) {
            throw failure;
        }
        return Optional.ofNullable(result);
    }

    private static long saturatedNanos(Duration d) {
        try {
            return d.toNanos();
        } catch (ArithmeticException e) {
            return Long.MAX_VALUE;
        }
    }

    private static Path path(String p) {
        return p == null ? null : Path.of(p);
    }
}
