package io.tickreel;

/**
 * A reading of {@link GoldSplits}, filled in place by {@link GoldSplits#checkpoint(int, double,
 * GoldSplit)} and {@link GoldSplits#finish(double, GoldSplit)} so that a tick allocates nothing.
 * Mutable and not thread-safe: keep one per live player.
 */
public final class GoldSplit {
    /**
     * The fields of C's {@code TickreelGoldSplit} in its order, as doubles: {@code split (0/1),
     * segment, new gold (0/1), live ticks, segment ticks, gold ticks, delta ticks, delta seconds,
     * best possible ticks, best possible seconds} (the record {@code GoldReading} of
     * native/bridge/api/ghost.rs).
     */
    final double[] raw = new double[10];

    /** An empty reading, to be filled. */
    public GoldSplit() {}

    /** Whether a split was counted (the route's next checkpoint, or the finish after all of them). */
    public boolean split() {
        return raw[0] != 0;
    }

    /** The segment the split ended (0: from the start to the route's first checkpoint). */
    public int segment() {
        return (int) raw[1];
    }

    /** Whether the segment beat its gold (it is now the gold). */
    public boolean newGold() {
        return raw[2] != 0;
    }

    /** Ticks from the live run's start to the split. */
    public double liveTicks() {
        return raw[3];
    }

    /** Ticks the live run took for the segment. */
    public double segmentTicks() {
        return raw[4];
    }

    /** The segment's gold before this split, in ticks. */
    public double goldTicks() {
        return raw[5];
    }

    /** {@code segmentTicks - goldTicks}: negative when faster than the gold. */
    public double deltaTicks() {
        return raw[6];
    }

    /** {@link #deltaTicks()} in seconds. */
    public double deltaSeconds() {
        return raw[7];
    }

    /** The best possible time in ticks: at a split, the time so far plus the remaining gold. */
    public double bestPossibleTicks() {
        return raw[8];
    }

    /** {@link #bestPossibleTicks()} in seconds. */
    public double bestPossibleSeconds() {
        return raw[9];
    }

    @Override
    public String toString() {
        return split()
            ? String.format("GoldSplit[segment %d, %+.2f s%s, best possible %.2f s]", segment(), deltaSeconds(),
                newGold() ? ", new gold" : "", bestPossibleSeconds())
            : String.format("GoldSplit[no split, best possible %.2f s]", bestPossibleSeconds());
    }
}
