package io.tickreel;

import java.nio.file.Path;
import java.time.Duration;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;

/**
 * The completion of {@link Recorder#finish()} or {@link ShadowBuffer#report}: the engine's
 * background worker writes the {@code .reel} file; the server thread polls ({@link #poll()},
 * {@link #isDone()}, never blocking) or another thread waits ({@link #await()}). A failed
 * compaction is thrown by these methods as {@link TickreelException} (the live directory is then
 * kept for {@code tickreel recover}); a failure that is a state (a report onto an existing file,
 * an engine closed first) as {@link IllegalStateException}.
 */
public final class FinishHandle implements AutoCloseable {
    private final NativeHandle handle;
    private CompletableFuture<Path> future;

    FinishHandle(long h) {
        this.handle = new NativeHandle(this, h, "FinishHandle");
    }

    /**
     * Whether compaction has completed (successfully or not). Never blocks.
     *
     * @throws IllegalStateException if this handle is closed
     */
    public boolean isDone() {
        return NativeBridge.finishHandleIsDone(handle.get());
    }

    /**
     * The final file once compaction has completed, empty while it runs. Never blocks.
     *
     * @throws TickreelException if compaction failed
     */
    public Optional<Path> poll() {
        return path(NativeBridge.finishHandlePoll(handle.get()));
    }

    /**
     * Waits for compaction to complete and returns the final file.
     *
     * @throws TickreelException if compaction failed
     */
    public Path await() {
        return path(NativeBridge.finishHandleAwait(handle.get(), -1)).orElseThrow();
    }

    /**
     * Waits up to {@code timeout}; the final file, or empty if compaction is still running.
     *
     * @throws TickreelException if compaction failed
     */
    public Optional<Path> await(Duration timeout) {
        Objects.requireNonNull(timeout, "timeout");
        long nanos = timeout.isNegative() ? 0 : saturatedNanos(timeout);
        return path(NativeBridge.finishHandleAwait(handle.get(), nanos));
    }

    /**
     * A future completed with the final file when compaction completes, or exceptionally with
     * its failure (the exception {@link #await()} would throw), for schedulers that chain on
     * futures. The same future every call. One daemon thread waits for it and ends with the
     * compaction (a failed or cancelled one included); cancelling the future does not cancel the
     * compaction. Closing this handle afterwards does not affect the future.
     *
     * @throws IllegalStateException if this handle was closed before the first call
     */
    public synchronized CompletableFuture<Path> toCompletableFuture() {
        if (future == null) {
            long h = handle.get();
            CompletableFuture<Path> f = new CompletableFuture<>();
            Thread waiter = new Thread(() -> {
                try {
                    f.complete(path(NativeBridge.finishHandleAwait(h, -1)).orElseThrow());
                } catch (Throwable t) {
                    f.completeExceptionally(t);
                }
            }, "tickreel-finish-waiter");
            waiter.setDaemon(true);
            waiter.start();
            future = f;
        }
        return future;
    }

    private static long saturatedNanos(Duration d) {
        try {
            return d.toNanos();
        } catch (ArithmeticException e) {
            return Long.MAX_VALUE;
        }
    }

    private static Optional<Path> path(String p) {
        return p == null ? Optional.empty() : Optional.of(Path.of(p));
    }

    /** The native handle, for calls that take this finish (throws once closed). */
    long nativeHandle() {
        return handle.get();
    }

    /** Releases the handle (compaction goes on). Idempotent. */
    @Override
    public void close() {
        handle.close();
    }
}
