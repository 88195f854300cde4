package io.tickreel;

import java.time.Instant;
import java.util.OptionalInt;
import java.util.UUID;

/**
 * What a recording's header says: its tick range, size, rate, world identity and versions.
 *
 * @param firstTick the first tick with data, empty for a recording without ticks
 * @param lastTick the last tick covered, empty for a recording without ticks
 * @param tickCount ticks spanned (last - first + 1), 0 when empty
 * @param chunkCount number of chunks
 * @param ticksPerSecond the game's tick rate
 * @param startedAt when the recording started
 * @param worldId the world's id as given when recording
 * @param worldVersion the world's version as given when recording
 * @param gameDataVersion the game's own data version, opaque to tickreel
 * @param dictionaryId the compression dictionary id, 0 for none
 * @param formatVersion the file format version
 * @param dataVersion the event and chunk payload version used by the writer
 * @param fileSize the file's length in bytes
 * @param ticksWritten non-empty ticks the writer wrote (the writer's counters: the header's, or
 *     the metadata's {@code stats} in files of earlier builds)
 * @param events events written, pose samples excluded
 * @param poseSamples pose samples written
 * @param droppedTicks ticks dropped by backpressure
 */
public record Header(
        OptionalInt firstTick,
        OptionalInt lastTick,
        long tickCount,
        long chunkCount,
        double ticksPerSecond,
        Instant startedAt,
        UUID worldId,
        UUID worldVersion,
        int gameDataVersion,
        int dictionaryId,
        int formatVersion,
        int dataVersion,
        long fileSize,
        long ticksWritten,
        long events,
        long poseSamples,
        long droppedTicks) {
    static Header fromNative(long[] a) {
        return new Header(
                a[0] < 0 ? OptionalInt.empty() : OptionalInt.of((int) a[0]),
                a[1] < 0 ? OptionalInt.empty() : OptionalInt.of((int) a[1]),
                a[2],
                a[3],
                a[4] / 1000.0,
                Instant.ofEpochMilli(a[5]),
                new UUID(a[6], a[7]),
                new UUID(a[8], a[9]),
                (int) a[10],
                (int) a[11],
                (int) a[12],
                (int) a[13],
                a[14],
                a[15],
                a[16],
                a[17],
                a[18]);
    }

    /** The recording's duration in seconds (tick count over tick rate). */
    public double durationSeconds() {
        return tickCount / ticksPerSecond;
    }
}
