package io.tickreel;

import java.time.Duration;
import java.time.Instant;
import java.util.Objects;
import java.util.UUID;
import java.util.function.LongConsumer;

/**
 * Options of one live recording ({@link Engine#startRecording}): identity (world, tick rate, game
 * data version), chunking of the live segments, when they are flushed, what happens when the
 * writer falls behind (backpressure), and how {@link Recorder#finish()} compacts. Immutable; build
 * one with {@link #builder()}.
 */
public final class RecorderOptions {
    /**
     * What {@link Recorder#submit} does when the writer cannot keep up. The default, {@code BLOCK}
     * for 1 ms, holds the server thread about 1 ms at most (2% of a 50 ms tick), then drops the
     * tick: counted ({@link RecorderStats#droppedTicks()}, {@link EngineStats#droppedTicks()}),
     * recorded as a gap in the recording, and thrown as {@code BACKPRESSURE}.
     */
    public enum Backpressure {
        /**
         * Wait up to the deadline for room (returns within about the deadline + 1 ms); then drop the
         * tick and throw {@code BACKPRESSURE}. The default, 1 ms.
         */
        BLOCK,
        /** Drop the tick at once (counted, recorded as a gap); {@code submit} returns {@code false}. */
        DROP
    }

    /**
     * What {@link Engine#startRecording} does when a live recording of the path exists (one a
     * stopped or crashed server left open). The default, {@code START_FRESH}, never loses the old
     * recording and lets a restarted server's ticks start again at 0.
     */
    public enum OnExisting {
        /**
         * Continue it after its last tick (a tick at or before it is refused): for a server that
         * carries its tick count on across restarts.
         */
        RESUME,
        /**
         * Keep it aside (its live directory renamed to that of {@code STEM.previous-N.reel}, never
         * deleted; {@code tickreel recover} finishes it) and start a new recording. The default.
         */
        START_FRESH,
        /** Refuse to start ({@code FileAlreadyExistsException} cause naming the live directory). */
        REFUSE
    }

    /** The setters called, in order, on a native options handle. */
    private final OptionSetters setters;
    private final String server;

    private RecorderOptions(Builder b) {
        if (b.startedAtSet) {
            setters = b.setters.copy();
        } else {
            long now = Instant.now().toEpochMilli();
            setters = b.setters.copy(h -> NativeBridge.recorderOptionsSetTimestampMs(h, now));
        }
        server = b.server;
    }

    /** A builder with the defaults. */
    public static Builder builder() {
        return new Builder();
    }

    /**
     * The defaults (the core's, which the library holds: these options name only what was set): 20
     * ticks/s, 5 s chunks (zstd 3), flush every 5 s or 256 KiB or when a player leaves, wait up to 1
     * ms under backpressure (then drop the tick), start fresh where a live recording exists, compact
     * at zstd 9 and verify, started now.
     */
    public static RecorderOptions defaults() {
        return builder().build();
    }

    /** The game server that records it (kept in the recording's metadata), or null for none. */
    public String server() {
        return server;
    }

    /**
     * A native options handle (native/bridge/api/recorder_options.rs) holding these options, each
     * set through its native setter; the caller closes it. A value the library refuses throws here,
     * naming its setter.
     */
    long toNative() {
        return setters.applyTo(NativeBridge.recorderOptionsNew());
    }

    /**
     * Builds {@link RecorderOptions}. Each setter only records its value for the library's setter of the
     * same option (one per option, in milliseconds for durations); what is not set keeps the library's
     * default. The library checks them when they are used, {@link Engine#startRecording} throwing {@link
     * IllegalArgumentException} naming the option. Null arguments throw {@link NullPointerException} at
     * once. Durations are given to the millisecond.
     */
    public static final class Builder {
        private final OptionSetters setters = new OptionSetters();
        private boolean startedAtSet;
        private String server;

        private Builder set(LongConsumer setter) {
            setters.add(setter);
            return this;
        }

        private Builder() {}

        /** The world's id (default: all zero). */
        public Builder worldId(UUID id) {
            long[] uuid = OptionSetters.uuid(Objects.requireNonNull(id, "worldId"));
            return set(h -> NativeBridge.recorderOptionsSetWorldId(h, uuid));
        }

        /** The world's version (default: all zero). */
        public Builder worldVersion(UUID version) {
            long[] uuid = OptionSetters.uuid(Objects.requireNonNull(version, "worldVersion"));
            return set(h -> NativeBridge.recorderOptionsSetWorldVersion(h, uuid));
        }

        /**
         * A registered compression dictionary id ({@link Dictionaries}), 1..65535, or 0 for none
         * (default): the live segments and the compacted file are compressed with it.
         */
        public Builder dictionaryId(int id) {
            return set(h -> NativeBridge.recorderOptionsSetDictionaryId(h, id));
        }

        /** When the recording started (default: when {@link #build()} is called). */
        public Builder startedAt(Instant t) {
            long ms = Objects.requireNonNull(t, "startedAt").toEpochMilli();
            startedAtSet = true;
            return set(h -> NativeBridge.recorderOptionsSetTimestampMs(h, ms));
        }

        /** The game's tick rate (default 20). */
        public Builder ticksPerSecond(double rate) {
            int millihz = OptionSetters.millihz(rate);
            return set(h -> NativeBridge.recorderOptionsSetTickRateMillihz(h, millihz));
        }

        /** The game's own data version, e.g. a Minecraft data version (default 0). */
        public Builder gameDataVersion(int version) {
            return set(h -> NativeBridge.recorderOptionsSetGameDataVersion(h, version));
        }

        /** Most ticks one live chunk spans (default 100). */
        public Builder chunkTicks(int ticks) {
            return set(h -> NativeBridge.recorderOptionsSetChunkTicks(h, ticks));
        }

        /** Cut a live chunk once its uncompressed payload reaches this many bytes (default 1 MiB). */
        public Builder chunkBytes(int bytes) {
            return set(h -> NativeBridge.recorderOptionsSetChunkBytes(h, bytes));
        }

        /** Ticks between snapshots (default 600). */
        public Builder snapshotInterval(int ticks) {
            return set(h -> NativeBridge.recorderOptionsSetSnapshotInterval(h, ticks));
        }

        /** The zstd level of the live segments, -7..22 (default 3: fast). */
        public Builder compressionLevel(int level) {
            return set(h -> NativeBridge.recorderOptionsSetZstdLevel(h, level));
        }

        /** Flush once this many compressed bytes are waiting (default 256 KiB). */
        public Builder flushBytes(int bytes) {
            return set(h -> NativeBridge.recorderOptionsSetFlushMaxPendingBytes(h, bytes));
        }

        /**
         * Flush at least this often while ticks arrive (default 5 s). A zero or negative interval
         * is refused by {@link Engine#startRecording} with {@link IllegalArgumentException}.
         *
         * @throws NullPointerException if {@code interval} is null
         */
        public Builder flushInterval(Duration interval) {
            long ms = OptionSetters.millis(Objects.requireNonNull(interval, "interval"));
            return set(h -> NativeBridge.recorderOptionsSetFlushInterval(h, ms));
        }

        /** Flush when a player leaves (a {@code PlayerLeave} event or {@link Recorder#playerLeft}); default true. */
        public Builder flushOnPlayerLeave(boolean on) {
            return set(h -> NativeBridge.recorderOptionsSetFlushOnPlayerLeave(h, on));
        }

        /**
         * Under backpressure, wait up to {@code deadline} for room, then drop the tick and throw
         * {@link TickreelException} of kind {@code BACKPRESSURE} (the default, 1 ms). A whole tick (50
         * ms) or more lets a stalled writer stall the server.
         *
         * @throws NullPointerException if {@code deadline} is null
         */
        public Builder backpressureBlock(Duration deadline) {
            long ms = OptionSetters.millis(Objects.requireNonNull(deadline, "deadline"));
            set(h -> NativeBridge.recorderOptionsSetBackpressure(h, Backpressure.BLOCK.ordinal()));
            return set(h -> NativeBridge.recorderOptionsSetBlockDeadline(h, ms));
        }

        /** Under backpressure, drop the tick at once: {@link Recorder#submit} returns {@code false}. */
        public Builder backpressureDrop() {
            return set(h -> NativeBridge.recorderOptionsSetBackpressure(h, Backpressure.DROP.ordinal()));
        }

        /** The zstd level of the compacted file, -7..22 (default 9). */
        public Builder compactionLevel(int level) {
            return set(h -> NativeBridge.recorderOptionsSetCompactionZstdLevel(h, level));
        }

        /** Most ticks a chunk of the compacted file spans (default 12000; chunks are cut sooner at 64 KiB of payload). */
        public Builder compactionChunkTicks(int ticks) {
            return set(h -> NativeBridge.recorderOptionsSetCompactionChunkTicks(h, ticks));
        }

        /** Read the compacted file back and check it before reporting success (default true). */
        public Builder verifyCompaction(boolean verify) {
            return set(h -> NativeBridge.recorderOptionsSetCompactionVerify(h, verify));
        }

        /**
         * Largest accepted tick batch in bytes (default 1 MiB). Less than 2 (an empty tick) or more
         * than the format's limit for one tick is refused by {@link Engine#startRecording} with
         * {@link IllegalArgumentException}.
         */
        public Builder maxBatchBytes(int bytes) {
            return set(h -> NativeBridge.recorderOptionsSetMaxBatchBytes(h, bytes));
        }

        /**
         * Replace an existing finished file at the path instead of refusing (default false). A live
         * recording of the path is {@link #onExisting}'s (with {@link OnExisting#RESUME}, resumed,
         * and its finish replaces the file).
         */
        public Builder overwrite(boolean replace) {
            return set(h -> NativeBridge.recorderOptionsSetOverwrite(h, replace));
        }

        /** What starting does with a live recording of the path (default {@link OnExisting#START_FRESH}). */
        public Builder onExisting(OnExisting choice) {
            int ordinal = Objects.requireNonNull(choice, "choice").ordinal();
            return set(h -> NativeBridge.recorderOptionsSetOnExisting(h, ordinal));
        }

        /**
         * Names the game server that records it, in a network of servers (1 to 64 bytes of UTF-8
         * without control characters; null, the default, for none): the recording keeps it in its
         * metadata, and the {@link Catalog} stores it on its rows.
         */
        public Builder server(String id) {
            server = id;
            return this;
        }

        /** The options. */
        public RecorderOptions build() {
            return new RecorderOptions(this);
        }
    }
}
