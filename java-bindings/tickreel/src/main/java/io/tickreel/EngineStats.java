package io.tickreel;

/**
 * Engine-wide counters, a snapshot taken by {@link Engine#stats()}.
 *
 * @param activeRecordings recordings open in the engine
 * @param queueDepth messages waiting in the writers' queues, and ticks staged in the recordings' rings
 * @param inflightBytes bytes of submitted ticks not yet written
 * @param droppedTicks ticks dropped by backpressure, all recordings
 * @param bytesWritten compressed bytes written to live recordings
 * @param lastFlushLatencyMicros duration of the last flush
 * @param compactionsPending finished recordings waiting for or in compaction
 * @param compactionsDone compactions completed
 * @param compactionsFailed compactions that failed
 * @param shadowBytes heap bytes the {@linkplain ShadowBuffer shadow buffers} hold in all, against
 *     {@link EngineOptions.Builder#shadowBudgetBytes}
 * @param shadowBudgetDroppedBlocks blocks the shadow buffers gave up for that budget
 * @param syncs file-system syncs ({@code fsync}, {@code fdatasync}, {@code syncfs}) the engine's
 *     recordings made since it started: flushes (two per group commit, whatever the number of
 *     recordings flushed together), compaction, publication, recovery
 */
public record EngineStats(
        long activeRecordings,
        long queueDepth,
        long inflightBytes,
        long droppedTicks,
        long bytesWritten,
        long lastFlushLatencyMicros,
        long compactionsPending,
        long compactionsDone,
        long compactionsFailed,
        long shadowBytes,
        long shadowBudgetDroppedBlocks,
        long syncs) {
    // v: the fields of the C struct TickreelEngineStats in order, an absent value -1 (generated from one
    // declaration, native/bridge/codegen/records.rs).
    static EngineStats fromNative(long[] v) {
        return new EngineStats(v[0], v[1], v[2], v[3], v[4], v[5], v[6], v[7], v[8], v[9], v[10], v[11]);
    }
}
