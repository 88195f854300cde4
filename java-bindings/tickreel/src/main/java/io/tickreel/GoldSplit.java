package io.tickreel;

/**
 * A reading of {@link GoldSplits}, filled in place by {@link GoldSplits#checkpoint(int, double,
 * GoldSplit)} and {@link GoldSplits#finish(double, GoldSplit)} so that a tick allocates nothing.
 * Mutable and not thread-safe: keep one per live player.
 */
public final class GoldSplit {
    /**
     * {@code segment, new gold (0/1), live ticks, segment ticks, gold ticks, delta ticks, delta
     * seconds, best possible ticks, best possible seconds} (native/bridge/jni/ghost.rs {@code GOLD_LEN}).
     */
    final double[] raw = new double[9];
    boolean split;

    /** An empty reading, to be filled. */
    public GoldSplit() {}

    /** Whether a split was counted (the route's next checkpoint, or the finish after all of them). */
    public boolean split() {
        return split;
    }

    /** The segment the split ended (0: from the start to the route's first checkpoint). */
    public int segment() {
        return (int) raw[0];
    }

    /** Whether the segment beat its gold (it is now the gold). */
    public boolean newGold() {
        return raw[1] != 0;
    }

    /** Ticks from the live run's start to the split. */
    public double liveTicks() {
        return raw[2];
    }

    /** Ticks the live run took for the segment. */
    public double segmentTicks() {
        return raw[3];
    }

    /** The segment's gold before this split, in ticks. */
    public double goldTicks() {
        return raw[4];
    }

    /** {@code segmentTicks - goldTicks}: negative when faster than the gold. */
    public double deltaTicks() {
        return raw[5];
    }

    /** {@link #deltaTicks()} in seconds. */
    public double deltaSeconds() {
        return raw[6];
    }

    /** The best possible time in ticks: at a split, the time so far plus the remaining gold. */
    public double bestPossibleTicks() {
        return raw[7];
    }

    /** {@link #bestPossibleTicks()} in seconds. */
    public double bestPossibleSeconds() {
        return raw[8];
    }

    @Override
    public String toString() {
        return split
            ? String.format("GoldSplit[segment %d, %+.2f s%s, best possible %.2f s]", segment(), deltaSeconds(),
                newGold() ? ", new gold" : "", bestPossibleSeconds())
            : String.format("GoldSplit[no split, best possible %.2f s]", bestPossibleSeconds());
    }
}
