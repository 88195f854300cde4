package io.tickreel;

import java.util.OptionalInt;

/**
 * Counters of a {@link ShadowBuffer}, a snapshot taken by {@link ShadowBuffer#stats()}. Bytes are
 * the heap allocations the buffer holds, measured as they are made.
 *
 * @param bytes heap bytes of the retained blocks
 * @param blocks blocks retained
 * @param firstTick first tick retained (empty: none yet)
 * @param lastTick last tick retained in blocks (later ticks wait in the open block; empty: none yet)
 * @param aliveEntities entities alive now
 * @param departedPlayers players who left within their grace period
 * @param expiredBlocks blocks dropped because the window no longer needed them
 * @param budgetDroppedBlocks blocks given up for a memory budget while still inside the window
 * @param budgetDroppedTicks ticks of those blocks
 * @param reportsCapturing reports waiting for their capture to end
 * @param reportsStarted reports handed to the engine's background worker
 */
public record ShadowStats(
        long bytes,
        long blocks,
        OptionalInt firstTick,
        OptionalInt lastTick,
        long aliveEntities,
        long departedPlayers,
        long expiredBlocks,
        long budgetDroppedBlocks,
        long budgetDroppedTicks,
        long reportsCapturing,
        long reportsStarted) {
    // v: the fields of the C struct TickreelShadowStats in order, an absent value -1 (generated from one
    // declaration, native/bridge/codegen/records.rs).
    static ShadowStats fromNative(long[] v) {
        return new ShadowStats(v[0], v[1], tick(v[9]), tick(v[10]), v[2], v[3], v[5], v[6], v[7], v[4], v[8]);
    }

    private static OptionalInt tick(long v) {
        return v < 0 ? OptionalInt.empty() : OptionalInt.of((int) v);
    }
}
