package io.tickreel;

import java.util.Locale;

/**
 * How far behind ({@code +}) or ahead ({@code -}) of a {@link Ghost} a live player is: the live
 * position is matched to the nearest point of the ghost's path and the times compared. What is
 * shown goes through hysteresis, so neither the number nor its sign flickers while the player runs
 * level with the ghost. Call {@link #update} once per tick; it allocates nothing. Not meant to be
 * shared between threads.
 */
public final class LiveDelta implements AutoCloseable {
    private final NativeHandle handle;
    /** The last reading: raw ticks, shown ticks, ahead (0/1), ghost ticks, distance, tick rate. */
    private final double[] reading = new double[6];
    private double shownSeconds;

    LiveDelta(long h) {
        this.handle = new NativeHandle(this, h, "LiveDelta");
    }

    /**
     * The delta when the live player, {@code liveTicks} after the start of their run, is at
     * {@code (x, y, z)}.
     *
     * @return the delta to show in seconds: positive behind the ghost, negative ahead
     * @throws IllegalArgumentException if an argument is not a finite number
     * @throws IllegalStateException if this delta is closed
     */
    public double update(double liveTicks, double x, double y, double z) {
        shownSeconds = NativeBridge.liveDeltaUpdate(handle.get(), liveTicks, x, y, z, reading);
        return shownSeconds;
    }

    /** The last shown delta in seconds (positive: behind). */
    public double seconds() {
        return shownSeconds;
    }

    /** The last raw delta in seconds, before hysteresis. */
    public double rawSeconds() {
        return reading[0] / reading[5];
    }

    /** Whether the live player was shown ahead of the ghost at the last update. */
    public boolean ahead() {
        return reading[2] != 0;
    }

    /** The ghost's own time at the matched point, in ticks from its start. */
    public double ghostTicks() {
        return reading[3];
    }

    /** Distance from the live player to the matched point of the path, in blocks. */
    public double distance() {
        return reading[4];
    }

    /**
     * The last shown delta for display, with its sticky sign: {@code +0.35 s}, {@code -1.20 s}.
     *
     * @throws IllegalStateException if this delta is closed
     */
    public String formatted() {
        return String.format(Locale.ROOT, "%s%.2f s", ahead() ? "-" : "+", Math.abs(shownSeconds));
    }

    /**
     * The ghost's time shift in ticks (as {@link GhostCursor#setTimeShift}).
     *
     * @throws IllegalArgumentException if {@code ticks} is not finite (the shift is unchanged)
     */
    public void setTimeShift(double ticks) {
        NativeBridge.liveDeltaSetTimeShift(handle.get(), ticks);
    }

    /**
     * Forgets the previous match (a new live attempt).
     *
     * @throws IllegalStateException if this delta is closed
     */
    public void reset() {
        NativeBridge.liveDeltaReset(handle.get());
    }

    /** Releases the delta. Idempotent. */
    @Override
    public void close() {
        handle.close();
    }
}
