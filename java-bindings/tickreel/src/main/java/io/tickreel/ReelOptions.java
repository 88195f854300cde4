package io.tickreel;

import java.time.Instant;
import java.util.Objects;
import java.util.UUID;
import java.util.function.LongConsumer;

/**
 * How a file written by {@link ReelWriter} is identified and chunked: world identity, start time,
 * tick rate, the game's data version, compression dictionary, and the chunking policy. Immutable;
 * build one with {@link #builder()}. {@link #defaults()} suits a 20 ticks/s server.
 */
public final class ReelOptions {
    /** The setters called, in order, on a native options handle. */
    private final OptionSetters setters;

    private ReelOptions(Builder b) {
        if (b.startedAtSet) {
            setters = b.setters.copy();
        } else {
            long now = Instant.now().toEpochMilli();
            setters = b.setters.copy(h -> NativeBridge.reelOptionsSetTimestampMs(h, now));
        }
    }

    /** A builder with the defaults. */
    public static Builder builder() {
        return new Builder();
    }

    /**
     * The defaults for a finished file (the library's, which it holds: these options name only what
     * was set): 20 ticks/s, zstd level 9, chunks of up to 12,000 ticks cut at 64 KiB of payload, a
     * snapshot every 600 ticks, started now.
     */
    public static ReelOptions defaults() {
        return builder().build();
    }

    /**
     * A native options handle (native/bridge/api/reel_options.rs) holding these options, each set
     * through its native setter; the caller closes it. A value the library refuses throws here,
     * naming its setter.
     */
    long toNative() {
        return setters.applyTo(NativeBridge.reelOptionsNew());
    }

    /**
     * Builds {@link ReelOptions}. Each setter only records its value for the library's setter of the
     * same option; what is not set keeps the library's default. The library checks them when they are
     * used, {@link ReelWriter#create} throwing {@link IllegalArgumentException} naming the option.
     * Null arguments throw {@link NullPointerException} at once.
     */
    public static final class Builder {
        private final OptionSetters setters = new OptionSetters();
        private boolean startedAtSet;

        private Builder() {}

        private Builder set(LongConsumer setter) {
            setters.add(setter);
            return this;
        }

        /**
         * The world's id (default: all zero).
         *
         * @throws NullPointerException if {@code id} is null
         */
        public Builder worldId(UUID id) {
            long[] uuid = OptionSetters.uuid(Objects.requireNonNull(id, "worldId"));
            return set(h -> NativeBridge.reelOptionsSetWorldId(h, uuid));
        }

        /**
         * The world's version (default: all zero).
         *
         * @throws NullPointerException if {@code version} is null
         */
        public Builder worldVersion(UUID version) {
            long[] uuid = OptionSetters.uuid(Objects.requireNonNull(version, "worldVersion"));
            return set(h -> NativeBridge.reelOptionsSetWorldVersion(h, uuid));
        }

        /**
         * When the recording started (default: when {@link #build()} is called).
         *
         * @throws NullPointerException if {@code t} is null
         */
        public Builder startedAt(Instant t) {
            long ms = Objects.requireNonNull(t, "startedAt").toEpochMilli();
            startedAtSet = true;
            return set(h -> NativeBridge.reelOptionsSetTimestampMs(h, ms));
        }

        /** The game's tick rate (default 20). */
        public Builder ticksPerSecond(double rate) {
            int millihz = OptionSetters.millihz(rate);
            return set(h -> NativeBridge.reelOptionsSetTickRateMillihz(h, millihz));
        }

        /** The game's own data version, e.g. a Minecraft data version (default 0; any 32 bits). */
        public Builder gameDataVersion(int version) {
            return set(h -> NativeBridge.reelOptionsSetGameDataVersion(h, version));
        }

        /** A registered compression dictionary id ({@link Dictionaries}), 1..65535, or 0 for none (default). */
        public Builder dictionaryId(int id) {
            return set(h -> NativeBridge.reelOptionsSetDictionaryId(h, id));
        }

        /** Most ticks one chunk spans (default 12,000). */
        public Builder chunkTicks(int ticks) {
            return set(h -> NativeBridge.reelOptionsSetChunkTicks(h, ticks));
        }

        /** Cut a chunk once its uncompressed payload reaches this many bytes (default 64 KiB). */
        public Builder chunkBytes(int bytes) {
            return set(h -> NativeBridge.reelOptionsSetChunkBytes(h, bytes));
        }

        /** Ticks between snapshots (default 600). */
        public Builder snapshotInterval(int ticks) {
            return set(h -> NativeBridge.reelOptionsSetSnapshotInterval(h, ticks));
        }

        /** The zstd level, -7..22 (default 9). */
        public Builder compressionLevel(int level) {
            return set(h -> NativeBridge.reelOptionsSetZstdLevel(h, level));
        }

        /** The options. */
        public ReelOptions build() {
            return new ReelOptions(this);
        }
    }
}
