package io.tickreel;

/**
 * Which part of an entity's recorded life is the run a {@link Ghost} shows: from its first pose, a
 * tick or a checkpoint, to its last pose, a tick or a checkpoint. Immutable.
 */
public final class GhostRange {
    static final int FIRST_OR_LAST = 0;
    static final int TICK = 1;
    static final int CHECKPOINT = 2;

    private static final GhostRange ALL = new GhostRange(FIRST_OR_LAST, 0, FIRST_OR_LAST, 0);

    final int startKind;
    final int start;
    final int endKind;
    final int end;

    private GhostRange(int startKind, int start, int endKind, int end) {
        this.startKind = startKind;
        this.start = start;
        this.endKind = endKind;
        this.end = end;
    }

    /** The entity's whole presence in the recording. */
    public static GhostRange all() {
        return ALL;
    }

    /**
     * From checkpoint {@code from} (its last crossing before the end) to the first crossing of
     * checkpoint {@code to} after it (strictly after when they are equal: a lap).
     *
     * @throws IllegalArgumentException if a checkpoint is negative
     */
    public static GhostRange checkpoints(int from, int to) {
        return new GhostRange(CHECKPOINT, nonNegative(from, "from checkpoint"), CHECKPOINT,
                nonNegative(to, "to checkpoint"));
    }

    /**
     * Absolute ticks {@code from..=to} of the recording.
     *
     * @throws IllegalArgumentException if a tick is negative or {@code to} is before {@code from}
     */
    public static GhostRange ticks(int from, int to) {
        if (to < from) {
            throw new IllegalArgumentException("tick range " + from + " to " + to + " is empty");
        }
        return new GhostRange(TICK, nonNegative(from, "from tick"), TICK, nonNegative(to, "to tick"));
    }

    private static int nonNegative(int v, String what) {
        if (v < 0) {
            throw new IllegalArgumentException(what + " must not be negative, got " + v);
        }
        return v;
    }

    /** {@code {startKind, start, endKind, end}}, as the native ghost loads take it. */
    int[] toNative() {
        return new int[] {startKind, start, endKind, end};
    }

    @Override
    public String toString() {
        return "GhostRange[" + describe(startKind, start, "first") + ".." + describe(endKind, end, "last") + "]";
    }

    private static String describe(int kind, int v, String none) {
        return kind == TICK ? "tick " + v : kind == CHECKPOINT ? "checkpoint " + v : none;
    }
}
