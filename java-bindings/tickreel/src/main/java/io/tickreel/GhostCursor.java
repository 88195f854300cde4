package io.tickreel;

import java.util.Objects;

/**
 * Samples a {@link Ghost}: its pose at any fractional tick (cubic Hermite between samples, exact
 * at recorded ticks, never across a teleport). O(1) when sampled forward, no allocation when given
 * a reused {@link GhostSample}. Not meant to be shared between threads (calls are serialised).
 */
public final class GhostCursor implements AutoCloseable {
    private final NativeHandle handle;
    private final double tickRate;
    private double timeShift;

    GhostCursor(long h, double tickRate) {
        this.handle = new NativeHandle(this, h, "GhostCursor");
        this.tickRate = tickRate;
    }

    /**
     * Fills {@code into} with the ghost {@code ticks} after the (shifted) start of its run and
     * returns it. Before the start the ghost waits at its first pose, after the finish at its last.
     *
     * @throws NullPointerException if {@code into} is null
     * @throws IllegalArgumentException if {@code ticks} is not a finite number
     * @throws IllegalStateException if this cursor is closed
     */
    public GhostSample sample(double ticks, GhostSample into) {
        Objects.requireNonNull(into, "into");
        NativeBridge.ghostCursorSample(handle.get(), ticks, into.raw);
        return into;
    }

    /** The ghost {@code ticks} after the start, in a new sample (allocates). */
    public GhostSample sample(double ticks) {
        return sample(ticks, new GhostSample());
    }

    /**
     * Delays the ghost by {@code ticks} (negative: it starts earlier).
     *
     * @throws IllegalArgumentException if {@code ticks} is not finite (the shift is unchanged)
     */
    public void setTimeShift(double ticks) {
        NativeBridge.ghostCursorSetTimeShift(handle.get(), ticks);
        timeShift = ticks;
    }

    /** The time shift in ticks. */
    public double timeShift() {
        return timeShift;
    }

    /** Ticks per second of the ghost's recording (to convert seconds to the ticks sampled). */
    public double tickRate() {
        return tickRate;
    }

    /** Releases the cursor. Idempotent. */
    @Override
    public void close() {
        handle.close();
    }
}
