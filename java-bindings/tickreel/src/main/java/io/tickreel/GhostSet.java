package io.tickreel;

import java.util.Objects;

/**
 * Several {@link Ghost}s raced together (the top N, a personal best, a chosen rank), each with its
 * own cursor and time shift, sampled in one native call per tick. {@link #sample(double,
 * GhostSample[])} fills caller-held samples and allocates nothing. Get a course's from {@link
 * Catalog#loadGhosts(String, int, java.util.UUID, int)}, or add ghosts one by one. Not meant to be
 * shared between threads (calls are serialised; the sampling buffer is this object's).
 */
public final class GhostSet implements AutoCloseable {
    /** Doubles per ghost in the native buffer ({@code GHOST_SAMPLE_VALUES}, as {@link GhostSample}). */
    private static final int VALUES = 8;

    private final NativeHandle handle;
    private double[] buffer = new double[0];

    /** An empty set. */
    public GhostSet() {
        this(NativeBridge.ghostSetNew());
    }

    GhostSet(long h) {
        this.handle = new NativeHandle(this, h, "GhostSet");
        this.buffer = new double[VALUES * size()];
    }

    /**
     * Adds {@code ghost} with a cursor of its own (no time shift) and returns its index. The set
     * keeps the ghost's data; closing the {@link Ghost} afterwards is fine.
     *
     * @throws IllegalStateException if this set or the ghost is closed
     */
    public int add(Ghost ghost) {
        Objects.requireNonNull(ghost, "ghost");
        int i = (int) NativeBridge.ghostSetPush(handle.get(), ghost.nativeHandle());
        buffer = new double[VALUES * (i + 1)];
        return i;
    }

    /** Number of ghosts. */
    public int size() {
        return (int) NativeBridge.ghostSetLen(handle.get());
    }

    /**
     * Ghost {@code index}'s run length in ticks.
     *
     * @throws IllegalArgumentException if there is no ghost {@code index}
     */
    public long durationTicks(int index) {
        return NativeBridge.ghostSetDuration(handle.get(), index);
    }

    /**
     * Delays ghost {@code index} by {@code ticks} (negative: it starts earlier).
     *
     * @throws IllegalArgumentException if {@code ticks} is not finite or there is no ghost {@code index}
     */
    public void setTimeShift(int index, double ticks) {
        NativeBridge.ghostSetSetTimeShift(handle.get(), index, ticks);
    }

    /**
     * Samples every ghost {@code ticks} after the (shifted) start of its run, in one native call,
     * into {@code into[i]} for ghost {@code i}, and returns how many were filled (the smaller of the
     * set's size and {@code into.length}). Allocates nothing.
     *
     * @throws NullPointerException if {@code into} or one of its first {@code size()} elements is null
     * @throws IllegalArgumentException if {@code ticks} is not finite
     */
    public int sample(double ticks, GhostSample[] into) {
        Objects.requireNonNull(into, "into");
        int n = (int) NativeBridge.ghostSetSample(handle.get(), ticks, buffer);
        n = Math.min(n, into.length);
        for (int i = 0; i < n; i++) {
            System.arraycopy(buffer, i * VALUES, into[i].raw, 0, VALUES);
        }
        return n;
    }

    /** New samples, one per ghost, to pass to {@link #sample(double, GhostSample[])} (allocates). */
    public GhostSample[] newSamples() {
        GhostSample[] s = new GhostSample[size()];
        for (int i = 0; i < s.length; i++) {
            s[i] = new GhostSample();
        }
        return s;
    }

    /** Releases the set (the ghosts' own handles are unaffected). Idempotent. */
    @Override
    public void close() {
        handle.close();
    }
}
