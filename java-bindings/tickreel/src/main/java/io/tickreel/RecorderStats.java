package io.tickreel;

import java.util.OptionalInt;

/**
 * Counters of one recording, a snapshot taken by {@link Recorder#stats()}.
 *
 * @param submittedTicks ticks queued
 * @param droppedTicks ticks dropped by backpressure (recorded as gaps)
 * @param rejectedTicks ticks the writer refused (malformed, out of order); see {@link Recorder#status()}
 * @param bytesWritten compressed bytes written to the live directory
 * @param flushes flushes done
 * @param lastFlushLatencyMicros duration of the last flush
 * @param flushedTick every tick up to and including this one is durably on disk (empty: none yet)
 * @param queueDepth messages waiting in this recording's writer queue (shared with other recordings),
 *     and the ticks it staged that the writer has not taken yet
 */
public record RecorderStats(
        long submittedTicks,
        long droppedTicks,
        long rejectedTicks,
        long bytesWritten,
        long flushes,
        long lastFlushLatencyMicros,
        OptionalInt flushedTick,
        long queueDepth) {
    // v: the fields of the C struct TickreelRecorderStats in order, an absent value -1 (generated from one
    // declaration, native/bridge/codegen/records.rs).
    static RecorderStats fromNative(long[] v) {
        return new RecorderStats(v[0], v[1], v[2], v[3], v[4], v[5],
                v[7] < 0 ? OptionalInt.empty() : OptionalInt.of((int) v[7]), v[6]);
    }
}
