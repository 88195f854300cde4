package io.tickreel;

import java.time.Instant;
import java.util.Objects;
import java.util.UUID;

/**
 * How a recording is identified and chunked: world identity, start time, tick rate, the game's
 * data version, compression dictionary, and the chunking policy. Immutable; build one with
 * {@link #builder()}. {@link #defaults()} suits a 20 ticks/s server.
 */
public final class ReelOptions {
    private final UUID worldId;
    private final UUID worldVersion;
    private final Instant startedAt;
    private final double ticksPerSecond;
    private final int gameDataVersion;
    private final int dictionaryId;
    private final int chunkTicks;
    private final int chunkBytes;
    private final int snapshotInterval;
    private final int compressionLevel;

    private ReelOptions(Builder b) {
        worldId = b.worldId;
        worldVersion = b.worldVersion;
        startedAt = b.startedAt != null ? b.startedAt : Instant.now();
        ticksPerSecond = b.ticksPerSecond;
        gameDataVersion = b.gameDataVersion;
        dictionaryId = b.dictionaryId;
        chunkTicks = b.chunkTicks;
        chunkBytes = b.chunkBytes;
        snapshotInterval = b.snapshotInterval;
        compressionLevel = b.compressionLevel;
    }

    /** A builder with the defaults. */
    public static Builder builder() {
        return new Builder();
    }

    /** The defaults (the core's, checked by a test): 20 ticks/s, 5 s chunks, a snapshot every 30 s, started now. */
    public static ReelOptions defaults() {
        return builder().build();
    }

    /** The world's id. */
    public UUID worldId() {
        return worldId;
    }

    /** The world's version. */
    public UUID worldVersion() {
        return worldVersion;
    }

    /** When the recording started. */
    public Instant startedAt() {
        return startedAt;
    }

    /** The game's tick rate. */
    public double ticksPerSecond() {
        return ticksPerSecond;
    }

    /** The game's own data version. */
    public int gameDataVersion() {
        return gameDataVersion;
    }

    /** The compression dictionary id (0 = none). */
    public int dictionaryId() {
        return dictionaryId;
    }

    /** Most ticks one chunk spans. */
    public int chunkTicks() {
        return chunkTicks;
    }

    /** Uncompressed bytes after which a chunk is cut. */
    public int chunkBytes() {
        return chunkBytes;
    }

    /** Ticks between snapshots. */
    public int snapshotInterval() {
        return snapshotInterval;
    }

    /** The zstd compression level. */
    public int compressionLevel() {
        return compressionLevel;
    }

    /** The native options array (layout: native/bridge/jni/writer.rs {@code OPTIONS_LEN}). */
    long[] toNative() {
        return NativeBridge.reelOptions(
                worldId.getMostSignificantBits(),
                worldId.getLeastSignificantBits(),
                worldVersion.getMostSignificantBits(),
                worldVersion.getLeastSignificantBits(),
                startedAt.toEpochMilli(),
                Math.round(ticksPerSecond * 1000.0),
                gameDataVersion & 0xFFFF_FFFFL,
                dictionaryId,
                chunkTicks,
                chunkBytes,
                snapshotInterval,
                compressionLevel);
    }

    /**
     * Builds {@link ReelOptions}. The setters only store their values: the library checks them (its
     * {@code validate()}) when they are used, {@link ReelWriter#create} throwing {@link IllegalArgumentException}
     * with its message. Null arguments throw {@link NullPointerException} at once.
     */
    public static final class Builder {
        private UUID worldId = new UUID(0, 0);
        private UUID worldVersion = new UUID(0, 0);
        private Instant startedAt;
        private double ticksPerSecond = 20.0;
        private int gameDataVersion;
        private int dictionaryId;
        private int chunkTicks = 100;
        private int chunkBytes = 1 << 20;
        private int snapshotInterval = 600;
        private int compressionLevel = 3;

        private Builder() {}

        /**
         * The world's id (default: all zero).
         *
         * @throws NullPointerException if {@code id} is null
         */
        public Builder worldId(UUID id) {
            worldId = Objects.requireNonNull(id, "worldId");
            return this;
        }

        /**
         * The world's version (default: all zero).
         *
         * @throws NullPointerException if {@code version} is null
         */
        public Builder worldVersion(UUID version) {
            worldVersion = Objects.requireNonNull(version, "worldVersion");
            return this;
        }

        /**
         * When the recording started (default: when {@link #build()} is called).
         *
         * @throws NullPointerException if {@code t} is null
         */
        public Builder startedAt(Instant t) {
            startedAt = Objects.requireNonNull(t, "startedAt");
            return this;
        }

        /** The game's tick rate (default 20). */
        public Builder ticksPerSecond(double rate) {
            ticksPerSecond = rate;
            return this;
        }

        /** The game's own data version, e.g. a Minecraft data version (default 0). */
        public Builder gameDataVersion(int version) {
            gameDataVersion = version;
            return this;
        }

        /** A registered compression dictionary id, 1..65535, or 0 for none (default). */
        public Builder dictionaryId(int id) {
            dictionaryId = id;
            return this;
        }

        /** Most ticks one chunk spans (default 100). */
        public Builder chunkTicks(int ticks) {
            chunkTicks = ticks;
            return this;
        }

        /** Cut a chunk once its uncompressed payload reaches this many bytes (default 1 MiB). */
        public Builder chunkBytes(int bytes) {
            chunkBytes = bytes;
            return this;
        }

        /** Ticks between snapshots (default 600). */
        public Builder snapshotInterval(int ticks) {
            snapshotInterval = ticks;
            return this;
        }

        /** The zstd level, -7..22 (default 3). */
        public Builder compressionLevel(int level) {
            compressionLevel = level;
            return this;
        }

        /** The options. */
        public ReelOptions build() {
            return new ReelOptions(this);
        }
    }
}
