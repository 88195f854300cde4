package io.tickreel;

import java.time.Duration;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.locks.LockSupport;

/**
 * A recording's finish followed by its upload to object storage ({@link Recorder#finishAndUpload}),
 * running in the background: the server thread polls ({@link #poll()}, never blocking), another
 * thread waits ({@link #await(Duration)}) or chains ({@link #toCompletableFuture()}). A failed
 * finish or upload is thrown by these methods as {@link TickreelException}; a failed upload keeps
 * the local file ({@code tickreel upload FILE URL} retries it). Closing the handle does not stop
 * the upload.
 */
public final class PendingUpload implements AutoCloseable {
    private final NativeHandle handle;
    private CompletableFuture<String> future;

    PendingUpload(long h) {
        this.handle = new NativeHandle(this, h, "PendingUpload");
    }

    /**
     * The uploaded object's URL once the upload has completed, empty while it runs. Never blocks.
     *
     * @throws TickreelException if the finish or the upload failed
     */
    public Optional<String> poll() {
        return Optional.ofNullable(NativeBridge.pendingUploadPoll(handle.get()));
    }

    /**
     * The size in bytes of the uploaded object, empty while the upload runs. Never blocks.
     *
     * @throws TickreelException if the finish or the upload failed
     */
    public Optional<Long> bytes() {
        return poll().map(url -> NativeBridge.pendingUploadBytes(handle.get()));
    }

    /**
     * Waits up to {@code timeout} for the upload; its URL, or empty if it is still running.
     *
     * @throws TickreelException if the finish or the upload failed
     */
    public Optional<String> await(Duration timeout) {
        Objects.requireNonNull(timeout, "timeout");
        long deadline = System.nanoTime() + Math.max(0, timeout.toNanos());
        while (true) {
            Optional<String> url = poll();
            if (url.isPresent() || System.nanoTime() - deadline >= 0) {
                return url;
            }
            LockSupport.parkNanos(1_000_000);
        }
    }

    /**
     * A future completed with the object's URL (or the failure) by a daemon thread that waits for
     * it; the same future on every call.
     */
    public synchronized CompletableFuture<String> toCompletableFuture() {
        if (future == null) {
            CompletableFuture<String> f = new CompletableFuture<>();
            Thread waiter = new Thread(() -> {
                try {
                    f.complete(await(Duration.ofDays(365)).orElseThrow());
                } catch (Throwable t) {
                    f.completeExceptionally(t);
                }
            }, "tickreel-upload-waiter");
            waiter.setDaemon(true);
            waiter.start();
            future = f;
        }
        return future;
    }

    /** Releases the handle (the upload goes on). Idempotent. */
    @Override
    public void close() {
        handle.close();
    }
}
