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
    /** The result once read (then never read natively again), or the failure. */
    private T result;
    private RuntimeException failure;
    private CompletableFuture<T> future;

    Pending(long h, Take<T> take, String what) {
        this.handle = new NativeHandle(this, h, what);
        this.take = take;
    }

    /**
     * The result once the work has ended, empty while it runs. Never blocks.
     *
     * @throws TickreelException or another {@link RuntimeException} if the work failed
     * @throws IllegalStateException if this handle is closed
     */
    public synchronized Optional<T> poll() {
        long h = handle.get();
        if (result == null && failure == null && NativeBridge.pendingPoll(h)) {
            try {
                result = take.take(h);
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
        return result != null || failure != null || NativeBridge.pendingPoll(h);
    }

    /**
     * Waits for the work to end and returns its result.
     *
     * @throws TickreelException or another {@link RuntimeException} if the work failed
     * @throws IllegalStateException if this handle is closed
     */
    public T await() {
        return awaitMillis(-1).orElseThrow();
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
        return awaitMillis(timeout.isNegative() ? 0 : ceilMillis(timeout));
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
    private boolean tryComplete() {
        CompletableFuture<T> f;
        synchronized (this) {
            f = future;
        }
        try {
            Optional<T> r = poll();
            if (r.isEmpty()) {
                return false;
            }
            f.complete(r.get());
        } catch (Throwable t) {
            f.completeExceptionally(t);
        }
        return true;
    }

    private Optional<T> awaitMillis(long millis) {
        long h;
        synchronized (this) {
            h = handle.get();
            if (result != null || failure != null) {
                return current();
            }
        }
        // The wait runs outside the lock, so that poll() from another thread never blocks on it;
        // the native wait never holds the native handle's lock either.
        NativeBridge.pendingWait(h, millis);
        return poll();
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
