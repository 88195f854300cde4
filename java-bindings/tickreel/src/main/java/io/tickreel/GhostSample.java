package io.tickreel;

/**
 * A {@link Ghost}'s pose at one moment, filled in place by {@link GhostCursor#sample(double,
 * GhostSample)} so that sampling every tick allocates nothing. Mutable and not thread-safe: keep
 * one per cursor user.
 */
public final class GhostSample {
    /** Where the ghost is in its run. */
    public enum State {
        /** Before the start: the ghost waits at its first pose. */
        NOT_STARTED,
        /** Running. */
        RUNNING,
        /** At or after the finish: the ghost stays at its last pose. */
        FINISHED
    }

    private static final State[] STATES = State.values();

    /** {@code t, x, y, z, yaw, pitch, flags, state} (native/bridge/jni/ghost.rs {@code SAMPLE_LEN}). */
    final double[] raw = new double[8];

    /** An empty sample (all zero, {@link State#NOT_STARTED}) to be filled by a cursor. */
    public GhostSample() {}

    /** The time sampled on the ghost's own clock (after its time shift), in ticks. */
    public double t() {
        return raw[0];
    }

    /** Blocks. */
    public double x() {
        return raw[1];
    }

    /** Blocks. */
    public double y() {
        return raw[2];
    }

    /** Blocks. */
    public double z() {
        return raw[3];
    }

    /** Degrees, unbounded (continuous with the recorded values). */
    public double yaw() {
        return raw[4];
    }

    /** Degrees. */
    public double pitch() {
        return raw[5];
    }

    /** The entity flags in effect ({@link EntityFlags}). */
    public int flags() {
        return (int) (long) raw[6];
    }

    /** Whether every bit of {@code flag} is set. */
    public boolean has(int flag) {
        return (flags() & flag) == flag;
    }

    /** Where the ghost is in its run. */
    public State state() {
        return STATES[(int) raw[7]];
    }

    /** The pose, quantised as recorded (allocates). */
    public Pose toPose() {
        return Pose.of(x(), y(), z(), yaw(), pitch());
    }

    @Override
    public String toString() {
        return String.format("GhostSample[t=%.2f, %.3f %.3f %.3f, yaw=%.1f, pitch=%.1f, flags=%d, %s]", t(), x(), y(),
                z(), yaw(), pitch(), flags(), state());
    }
}
