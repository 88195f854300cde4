package io.tickreel;

import java.time.Duration;
import java.time.Instant;
import java.util.Objects;
import java.util.UUID;

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

    private final ReelOptions recording;
    private final int flushBytes;
    private final Duration flushInterval;
    private final boolean flushOnPlayerLeave;
    private final Backpressure backpressure;
    private final Duration blockDeadline;
    private final int compactionLevel;
    private final int compactionChunkTicks;
    private final boolean verifyCompaction;
    private final int maxBatchBytes;
    private final boolean overwrite;
    private final OnExisting onExisting;
    private final String server;

    private RecorderOptions(Builder b) {
        recording = b.recording.build();
        flushBytes = b.flushBytes;
        flushInterval = b.flushInterval;
        flushOnPlayerLeave = b.flushOnPlayerLeave;
        backpressure = b.backpressure;
        blockDeadline = b.blockDeadline;
        compactionLevel = b.compactionLevel;
        compactionChunkTicks = b.compactionChunkTicks;
        verifyCompaction = b.verifyCompaction;
        maxBatchBytes = b.maxBatchBytes;
        overwrite = b.overwrite;
        onExisting = b.onExisting;
        server = b.server;
    }

    /** A builder with the defaults. */
    public static Builder builder() {
        return new Builder();
    }

    /**
     * The defaults (the core's, checked by a test): 20 ticks/s, 5 s chunks (zstd 3), flush every 5 s or 256 KiB or when a player
     * leaves, wait up to 1 ms under backpressure (then drop the tick), start fresh where a live recording exists, compact at zstd 9 and verify, started now.
     */
    public static RecorderOptions defaults() {
        return builder().build();
    }

    /** Identity and chunking (as for a {@link ReelWriter}). */
    public ReelOptions recording() {
        return recording;
    }

    /** Compressed bytes waiting that trigger a flush. */
    public int flushBytes() {
        return flushBytes;
    }

    /** Longest time between flushes while ticks arrive. */
    public Duration flushInterval() {
        return flushInterval;
    }

    /** Whether a leaving player triggers a flush. */
    public boolean flushOnPlayerLeave() {
        return flushOnPlayerLeave;
    }

    /** The backpressure policy. */
    public Backpressure backpressure() {
        return backpressure;
    }

    /** How long {@link Backpressure#BLOCK} waits for room. */
    public Duration blockDeadline() {
        return blockDeadline;
    }

    /** The zstd level of the compacted file. */
    public int compactionLevel() {
        return compactionLevel;
    }

    /** Chunk span of the compacted file, in ticks. */
    public int compactionChunkTicks() {
        return compactionChunkTicks;
    }

    /** Whether the compacted file is read back and checked before {@code finish} reports success. */
    public boolean verifyCompaction() {
        return verifyCompaction;
    }

    /** Largest accepted tick batch in bytes. */
    public int maxBatchBytes() {
        return maxBatchBytes;
    }

    /** Whether an existing finished file at the path is replaced. */
    public boolean overwrite() {
        return overwrite;
    }

    /** What starting does with a live recording of the path. */
    public OnExisting onExisting() {
        return onExisting;
    }

    /** The game server that records it (kept in the recording's metadata), or null for none. */
    public String server() {
        return server;
    }

    /** The native options array (layout: native/bridge/jni/recorder.rs {@code RECORDER_OPTIONS_LEN}). */
    long[] toNative() {
        long[] base = recording.toNative();
        long[] own = NativeBridge.recorderOptions(
                flushBytes,
                flushInterval.toMillis(),
                flushOnPlayerLeave ? 1 : 0,
                backpressure == Backpressure.DROP ? 1 : 0,
                blockDeadline.toNanos(),
                compactionLevel,
                compactionChunkTicks,
                verifyCompaction ? 1 : 0,
                maxBatchBytes,
                overwrite ? 1 : 0,
                onExisting.ordinal());
        long[] all = java.util.Arrays.copyOf(base, base.length + own.length);
        System.arraycopy(own, 0, all, base.length, own.length);
        return all;
    }

    /**
     * Builds {@link RecorderOptions}. The setters only store their values: the library checks them (its
     * {@code validate()}) when they are used, {@link Engine#startRecording} throwing {@link IllegalArgumentException}
     * with its message. Null arguments throw {@link NullPointerException} at once.
     */
    public static final class Builder {
        private final ReelOptions.Builder recording = ReelOptions.builder();
        private int flushBytes = 256 << 10;
        private Duration flushInterval = Duration.ofSeconds(5);
        private boolean flushOnPlayerLeave = true;
        private Backpressure backpressure = Backpressure.BLOCK;
        private Duration blockDeadline = Duration.ofMillis(1);
        private int compactionLevel = 9;
        private int compactionChunkTicks = 12000;
        private boolean verifyCompaction = true;
        private int maxBatchBytes = 1 << 20;
        private boolean overwrite;
        private OnExisting onExisting = OnExisting.START_FRESH;
        private String server;

        private Builder() {}

        /** The world's id (default: all zero). */
        public Builder worldId(UUID id) {
            recording.worldId(id);
            return this;
        }

        /** The world's version (default: all zero). */
        public Builder worldVersion(UUID version) {
            recording.worldVersion(version);
            return this;
        }

        /**
         * A registered compression dictionary id ({@link Dictionaries}), 1..65535, or 0 for none
         * (default): the live segments and the compacted file are compressed with it.
         */
        public Builder dictionaryId(int id) {
            recording.dictionaryId(id);
            return this;
        }

        /** When the recording started (default: when {@link #build()} is called). */
        public Builder startedAt(Instant t) {
            recording.startedAt(t);
            return this;
        }

        /** The game's tick rate (default 20). */
        public Builder ticksPerSecond(double rate) {
            recording.ticksPerSecond(rate);
            return this;
        }

        /** The game's own data version, e.g. a Minecraft data version (default 0). */
        public Builder gameDataVersion(int version) {
            recording.gameDataVersion(version);
            return this;
        }

        /** Most ticks one live chunk spans (default 100). */
        public Builder chunkTicks(int ticks) {
            recording.chunkTicks(ticks);
            return this;
        }

        /** Cut a live chunk once its uncompressed payload reaches this many bytes (default 1 MiB). */
        public Builder chunkBytes(int bytes) {
            recording.chunkBytes(bytes);
            return this;
        }

        /** Ticks between snapshots (default 600). */
        public Builder snapshotInterval(int ticks) {
            recording.snapshotInterval(ticks);
            return this;
        }

        /** The zstd level of the live segments, -7..22 (default 3: fast). */
        public Builder compressionLevel(int level) {
            recording.compressionLevel(level);
            return this;
        }

        /** Flush once this many compressed bytes are waiting (default 256 KiB). */
        public Builder flushBytes(int bytes) {
            flushBytes = bytes;
            return this;
        }

        /**
         * Flush at least this often while ticks arrive (default 5 s). A zero or negative interval
         * is refused by {@link Engine#startRecording} with {@link IllegalArgumentException}.
         *
         * @throws NullPointerException if {@code interval} is null
         */
        public Builder flushInterval(Duration interval) {
            flushInterval = Objects.requireNonNull(interval, "interval");
            return this;
        }

        /** Flush when a player leaves (a {@code PlayerLeave} event or {@link Recorder#playerLeft}); default true. */
        public Builder flushOnPlayerLeave(boolean on) {
            flushOnPlayerLeave = on;
            return this;
        }

        /**
         * Under backpressure, wait up to {@code deadline} for room, then drop the tick and throw
         * {@link TickreelException} of kind {@code BACKPRESSURE} (the default, 1 ms). A whole tick (50
         * ms) or more lets a stalled writer stall the server.
         *
         * @throws NullPointerException if {@code deadline} is null
         */
        public Builder backpressureBlock(Duration deadline) {
            Objects.requireNonNull(deadline, "deadline");
            backpressure = Backpressure.BLOCK;
            blockDeadline = deadline;
            return this;
        }

        /** Under backpressure, drop the tick at once: {@link Recorder#submit} returns {@code false}. */
        public Builder backpressureDrop() {
            backpressure = Backpressure.DROP;
            return this;
        }

        /** The zstd level of the compacted file, -7..22 (default 9). */
        public Builder compactionLevel(int level) {
            compactionLevel = level;
            return this;
        }

        /** Most ticks a chunk of the compacted file spans (default 12000; chunks are cut sooner at 64 KiB of payload). */
        public Builder compactionChunkTicks(int ticks) {
            compactionChunkTicks = ticks;
            return this;
        }

        /** Read the compacted file back and check it before reporting success (default true). */
        public Builder verifyCompaction(boolean verify) {
            verifyCompaction = verify;
            return this;
        }

        /**
         * Largest accepted tick batch in bytes (default 1 MiB). Less than 2 (an empty tick) or more
         * than the format's limit for one tick is refused by {@link Engine#startRecording} with
         * {@link IllegalArgumentException}.
         */
        public Builder maxBatchBytes(int bytes) {
            maxBatchBytes = bytes;
            return this;
        }

        /**
         * Replace an existing finished file at the path instead of refusing (default false). A live
         * recording of the path is {@link #onExisting}'s (with {@link OnExisting#RESUME}, resumed,
         * and its finish replaces the file).
         */
        public Builder overwrite(boolean replace) {
            overwrite = replace;
            return this;
        }

        /** What starting does with a live recording of the path (default {@link OnExisting#START_FRESH}). */
        public Builder onExisting(OnExisting choice) {
            onExisting = java.util.Objects.requireNonNull(choice, "choice");
            return this;
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
