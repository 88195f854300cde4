package io.tickreel;

/**
 * A checkpoint crossing of a {@link Ghost}'s run.
 *
 * @param checkpoint the checkpoint index (as recorded with {@link Batch#checkpoint})
 * @param tick ticks from the run's start
 * @param seconds seconds from the run's start
 */
public record Split(int checkpoint, int tick, double seconds) {}
