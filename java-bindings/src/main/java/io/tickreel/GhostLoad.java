package io.tickreel;

import java.time.Duration;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.locks.LockSupport;

/**
 * A {@link Ghost} being loaded on a background thread ({@link Ghost#loadAsync}). {@link #isReady()}
 * and {@link #take()} never block, so a server's tick loop can poll them; {@link #await(Duration)}
 * waits. Closing before the result is taken cancels the load.
 */
public final class GhostLoad implements AutoCloseable {
    private final NativeHandle handle;

    GhostLoad(long h) {
        this.handle = new NativeHandle(this, h, "GhostLoad");
    }

    /**
     * Whether the load has finished (loaded or failed) and its result is waiting to be taken
     * ({@code false} again once taken). Never blocks.
     *
     * @throws IllegalStateException if this load is closed
     */
    public boolean isReady() {
        return NativeBridge.ghostLoadPoll(handle.get());
    }

    /**
     * The loaded ghost once ready, empty while loading. Never blocks. The ghost can be taken once.
     *
     * @throws TickreelException or {@link IllegalArgumentException} if the load failed
     * @throws IllegalStateException if the ghost was already taken
     */
    public Optional<Ghost> take() {
        long g = NativeBridge.ghostLoadTake(handle.get());
        return g == 0 ? Optional.empty() : Optional.of(new Ghost(g));
    }

    /**
     * Waits up to {@code timeout} for the load and takes the ghost; empty if still loading.
     *
     * @throws TickreelException or {@link IllegalArgumentException} if the load failed
     */
    public Optional<Ghost> await(Duration timeout) {
        Objects.requireNonNull(timeout, "timeout");
        long deadline = System.nanoTime() + Math.max(0, timeout.toNanos());
        while (!isReady()) {
            if (System.nanoTime() - deadline >= 0) {
                return Optional.empty();
            }
            LockSupport.parkNanos(200_000);
        }
        return take();
    }

    /** Cancels the load if it is still running and releases the handle. Idempotent. */
    @Override
    public void close() {
        handle.close();
    }
}
