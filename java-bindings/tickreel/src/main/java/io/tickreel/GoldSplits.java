package io.tickreel;

import java.util.Objects;

/**
 * A live attempt's splits against the player's best segments ("gold"): at each split, the
 * segment's time against its gold and whether it is a new gold, and at any moment the best
 * possible time (the time so far plus the gold of what is left). Beside a {@link LiveDelta} (the
 * delta against a ghost), these are the figures speedrunners read during a run. The route is the
 * checkpoints crossed in order between the start and the finish; a route of n checkpoints has n + 1
 * segments, each with its gold in ticks ({@link Catalog#sumOfBest} gives them). Per-tick calls
 * allocate nothing. Not meant to be shared between threads (calls are serialised).
 */
public final class GoldSplits implements AutoCloseable {
    private final NativeHandle handle;
    private final double tickRate;
    private final int segments;

    /**
     * Splits along {@code route} with {@code gold} ticks per segment ({@code route.length + 1}
     * of them), at {@code tickRate} ticks a second.
     *
     * @throws IllegalArgumentException if {@code gold} does not have {@code route.length + 1}
     *     values, a value is negative, or the tick rate is not a positive number
     */
    public GoldSplits(int[] route, int[] gold, double tickRate) {
        Objects.requireNonNull(route, "route");
        Objects.requireNonNull(gold, "gold");
        this.handle = new NativeHandle(this, NativeBridge.goldSplitsNew(route, gold, tickRate), "GoldSplits");
        this.tickRate = tickRate;
        this.segments = gold.length;
    }

    /**
     * The live player crossed {@code checkpoint} {@code liveTicks} after their start: fills {@code
     * into} and returns whether a split was counted (only the route's next checkpoint counts;
     * otherwise only the best possible time is filled).
     *
     * @throws IllegalArgumentException if {@code liveTicks} is not finite
     */
    public boolean checkpoint(int checkpoint, double liveTicks, GoldSplit into) {
        Objects.requireNonNull(into, "into");
        NativeBridge.goldSplitsCheckpoint(handle.get(), checkpoint, liveTicks, into.raw);
        return into.split();
    }

    /**
     * The live player finished {@code liveTicks} after their start: fills {@code into} with the
     * last segment's split and returns true, or false when a checkpoint of the route was missed.
     *
     * @throws IllegalArgumentException if {@code liveTicks} is not finite
     */
    public boolean finish(double liveTicks, GoldSplit into) {
        Objects.requireNonNull(into, "into");
        NativeBridge.goldSplitsFinish(handle.get(), liveTicks, into.raw);
        return into.split();
    }

    /**
     * The best possible time in ticks when the live player is {@code liveTicks} into the run: the
     * last split, the current segment's elapsed time or its gold (the larger), and the gold after
     * it. Call every tick; allocates nothing.
     */
    public double bestPossibleTicks(double liveTicks) {
        return NativeBridge.goldSplitsBestPossible(handle.get(), liveTicks);
    }

    /** {@link #bestPossibleTicks(double)} in seconds. */
    public double bestPossibleSeconds(double liveTicks) {
        return bestPossibleTicks(liveTicks) / tickRate;
    }

    /** The sum of the gold segments in ticks (new golds included). */
    public long sumOfBestTicks() {
        return NativeBridge.goldSplitsSumOfBest(handle.get());
    }

    /** The gold of each segment in ticks, new golds included (allocates). */
    public long[] gold() {
        long[] g = new long[segments];
        NativeBridge.goldSplitsGold(handle.get(), g);
        return g;
    }

    /** Starts a new attempt (the gold, new golds included, is kept). */
    public void reset() {
        NativeBridge.goldSplitsReset(handle.get());
    }

    /** Releases the splits. Idempotent. */
    @Override
    public void close() {
        handle.close();
    }
}
