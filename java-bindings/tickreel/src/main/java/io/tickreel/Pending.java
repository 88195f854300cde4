package io.tickreel;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.locks.LockSupport;
import java.util.function.Function;

/**
 * A result that comes later: work running on a background thread of the library (a recording's
 * finish, a report, an upload, a ghost load, every {@link Catalog} call). One native handle type
 * stands behind every kind; the kind only decides how the result is read. The one polling style
 * is {@link #poll()} (never blocks, so a server's tick loop can call it every tick; {@link
 * #isReady()} says whether it would return the result); the one future style is {@link
 * #future()}; {@link #await()} and {@link #await(Duration)} block, for threads that may.
 *
 * <p>The result, once there, is the same on every call (a loaded {@link Ghost} is the same object:
 * close it when done). A failure is thrown by {@link #poll()} and the waits, every time, as
 * {@link TickreelException}, or as {@link IllegalArgumentException} / {@link
 * IllegalStateException} for a bad argument or state found by the work (a report onto an existing
 * file, an engine closed first, a board without such a rank).
 *
 * <p>Closing releases the handle (later calls throw {@link IllegalStateException}, as on every
 * handle): a ghost load still running is cancelled; a finish, a report, an upload or a catalog call
 * goes on (nobody hears how it went), and a {@link #future()} not yet completed completes
 * exceptionally. Closing does not close a result already returned. A pending nobody closes is
 * released once unreachable.
 *
 * @param <T> the result: {@link Path} (the file a finish or report wrote), {@link Uploaded},
 *     {@link Ghost}, {@link GhostSet}, or what a {@link Catalog} call answers
 */
public final class Pending<T> implements AutoCloseable {
    /** How one kind of result is read from the native handle (throws the work's failure). */
    interface Take<T> {
        T take(long handle);
    }

    /** A recording's finish or a report: the file written. */
    static final Take<Path> FINISH = h -> Path.of(NativeBridge.pendingTakePath(h));

    /** A ghost load: the ghost. */
    static final Take<Ghost> GHOST = h -> new Ghost(NativeBridge.pendingTakeGhost(h));

    /** A catalog lookup of several ghosts: a ghost set. */
    static final Take<GhostSet> GHOST_SET = h -> new GhostSet(NativeBridge.pendingTakeGhostSet(h));

    /** A finish or report followed by its upload: the object. */
    static final Take<Uploaded> UPLOAD = h -> Uploaded.fromNative(NativeBridge.pendingTakeUpload(h));

    /** A catalog call: its rows, decoded by {@code decode}. */
    static <T> Take<T> rows(Function<byte[], T> decode) {
        return h -> decode.apply(NativeBridge.pendingTakeRows(h));
    }

    private final NativeHandle handle;
    private final Take<T> take;
    /** Whether the result (or the failure) was read: then never read natively again. */
    private boolean done;
    private T result;
    private RuntimeException failure;
    private CompletableFuture<T> future;

    Pending(long h, Take<T> take, String what) {
        this.handle = new NativeHandle(this, h, what);
        this.take = take;
    }

    /**
     * The result once the work has ended, empty while it runs (and for a call without a result,
     * a {@code Pending<Void>}: ask {@link #isReady()}). Never blocks.
     *
     * @throws TickreelException or another {@link RuntimeException} if the work failed
     * @throws IllegalStateException if this handle is closed
     */
    public synchronized Optional<T> poll() {
        read();
        return current();
    }

    /** Reads the result if the work has ended (and it was not read yet). Never blocks. */
    private synchronized void read() {
        long h = handle.get();
        if (!done && NativeBridge.pendingPoll(h)) {
            done = true;
            try {
                result = take.take(h);
            } catch (RuntimeException e) {
                failure = e;
            }
        }
    }

    /**
     * Whether the work has ended (successfully or not): {@link #poll()} would return or throw its
     * result. Never blocks.
     *
     * @throws IllegalStateException if this handle is closed
     */
    public synchronized boolean isReady() {
        long h = handle.get();
        return done || NativeBridge.pendingPoll(h);
    }

    /**
     * Waits for the work to end and returns its result.
     *
     * @throws TickreelException or another {@link RuntimeException} if the work failed
     * @throws IllegalStateException if this handle is closed
     */
    public T await() {
        while (!settle(-1)) {
            // the wait ended without a result: only if the work's thread ended unexpectedly late
        }
        synchronized (this) {
            if (failure != null) {
                throw failure;
            }
            return result;
        }
    }

    /**
     * Waits up to {@code timeout} (to the millisecond above); the result, or empty if the work still
     * runs.
     *
     * @throws TickreelException or another {@link RuntimeException} if the work failed
     * @throws IllegalStateException if this handle is closed
     */
    public Optional<T> await(Duration timeout) {
        Objects.requireNonNull(timeout, "timeout");
        settle(timeout.isNegative() ? 0 : ceilMillis(timeout));
        synchronized (this) {
            return done ? current() : Optional.empty();
        }
    }

    /**
     * A future completed with the result, or exceptionally with the failure (the exception {@link
     * #await()} would throw), for schedulers that chain on futures. The same future every call;
     * cancelling it does not cancel the work.
     *
     * <p>It is completed by one daemon thread of these classes ({@code tickreel-pending}), which
     * polls every pending that has a future without blocking and ends when none is left: no
     * thread of the library calls back into Java, and the library registers nothing on any
     * caller's thread.
     *
     * @throws IllegalStateException if this handle was closed before the first call
     */
    public synchronized CompletableFuture<T> future() {
        if (future == null) {
            handle.get();
            future = new CompletableFuture<>();
            Completer.add(this);
        }
        return future;
    }

    /**
     * Releases the handle (a ghost load is cancelled; other work goes on; an open {@link #future()}
     * completes exceptionally). Idempotent.
     */
    @Override
    public void close() {
        handle.close();
    }

    /** The native handle of a finish or report, for calls that take one (throws once closed). */
    long finishHandle() {
        if (take != FINISH) {
            throw new IllegalArgumentException("not a recording's finish or a report");
        }
        return handle.get();
    }

    /** The native handle of an upload, for calls that take one (throws once closed). */
    long uploadHandle() {
        if (take != UPLOAD) {
            throw new IllegalArgumentException("not an upload");
        }
        return handle.get();
    }

    /** Completes the future if the work has ended (or this handle is closed): whether it did. */
    private synchronized boolean tryComplete() {
        try {
            read();
        } catch (Throwable t) {
            future.completeExceptionally(t); // closed first
            return true;
        }
        if (!done) {
            return false;
        }
        if (failure != null) {
            future.completeExceptionally(failure);
        } else {
            future.complete(result);
        }
        return true;
    }

    /** Waits up to {@code millis} (-1: no limit) and reads the result: whether it is read. */
    private boolean settle(long millis) {
        long h;
        synchronized (this) {
            h = handle.get();
            if (done) {
                return true;
            }
        }
        // The wait runs outside the lock, so that poll() from another thread never blocks on it;
        // the native wait never holds the native handle's lock either.
        NativeBridge.pendingWait(h, millis);
        read();
        synchronized (this) {
            return done;
        }
    }

    private Optional<T> current() {
        if (failure != null) {
            throw failure;
        }
        return Optional.ofNullable(result);
    }

    private static long ceilMillis(Duration d) {
        try {
            long ms = d.toMillis();
            return d.minusMillis(ms).isZero() ? ms : ms + 1;
        } catch (ArithmeticException e) {
            return Long.MAX_VALUE;
        }
    }

    /**
     * The thread that completes futures: polls each open one (never blocking on the work), parks
     * a millisecond between rounds, and ends as soon as no future is open, so that nothing of a
     * plugin's class loader stays running after its work is done.
     */
    private static final class Completer {
        private static final long ROUND_NANOS = 1_000_000;
        private static final List<Pending<?>> OPEN = new ArrayList<>();
        private static Thread thread;

        static synchronized void add(Pending<?> p) {
            OPEN.add(p);
            if (thread == null) {
                thread = new Thread(Completer::run, "tickreel-pending");
                thread.setDaemon(true);
                thread.start();
            }
        }

        private static void run() {
            while (true) {
                List<Pending<?>> round;
                synchronized (Completer.class) {
                    if (OPEN.isEmpty()) {
                        thread = null;
                        return;
                    }
                    round = new ArrayList<>(OPEN);
                }
                List<Pending<?>> done = new ArrayList<>();
                for (Pending<?> p : round) {
                    if (p.tryComplete()) {
                        done.add(p);
                    }
                }
                synchronized (Completer.class) {
                    OPEN.removeAll(done);
                }
                if (done.isEmpty()) {
                    LockSupport.parkNanos(ROUND_NANOS);
                }
            }
        }
    }
}
