package io.tickreel;

import java.util.List;
import java.util.OptionalInt;

/**
 * The sum of best segments of a course (of one player or of the whole board): the best time of
 * each segment between consecutive checkpoints, from any run.
 * @param totalTicks the sum, in ticks
 * @param tickRate ticks per second
 * @param runs the runs considered
 * @param segments each segment's best
 */
public record SumOfBest(long totalTicks, double tickRate, int runs, List<BestSegment> segments) {
    /** The sum in seconds. */
    public double seconds() {
        return totalTicks / tickRate;
    }

    /**
     * One segment's best.
     * @param from the checkpoint it starts at, empty for the run's start
     * @param to the checkpoint it ends at, empty for the run's end
     * @param ticks its best time in ticks
     * @param runId the run that holds that best
     */
    public record BestSegment(OptionalInt from, OptionalInt to, int ticks, long runId) {}
}
