package io.tickreel;

import java.time.Duration;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalDouble;

/**
 * What a {@linkplain ShadowBuffer#report report} holds: how much game time before and after the
 * report, which entities beside the reported player, the caller's metadata (reporter, reason...)
 * and how the file is written. Immutable; build one with {@link #builder()}.
 */
public final class ReportOptions {
    private final Duration before;
    private final Duration after;
    private final double radius;
    private final boolean everyEntity;
    private final Map<String, String> metadata;
    private final boolean overwrite;
    private final int compressionLevel;
    private final boolean keepAllBlocks;
    private final ReportChat chat;

    private ReportOptions(Builder b) {
        before = b.before;
        after = b.after;
        radius = b.radius;
        everyEntity = b.everyEntity;
        metadata = Collections.unmodifiableMap(new LinkedHashMap<>(b.metadata));
        overwrite = b.overwrite;
        compressionLevel = b.compressionLevel;
        keepAllBlocks = b.keepAllBlocks;
        chat = b.chat;
    }

    /** A builder with the defaults. */
    public static Builder builder() {
        return new Builder();
    }

    /**
     * All that is retained before the report, 30 s captured after it, the entities that came
     * within 48 blocks of the player, no metadata, no overwrite, zstd level 3.
     */
    public static ReportOptions defaults() {
        return builder().build();
    }

    /** Game time before the report to include; empty: all that is retained, up to the window. */
    public Optional<Duration> before() {
        return Optional.ofNullable(before);
    }

    /** Game time captured after the report. */
    public Duration after() {
        return after;
    }

    /** The context radius in blocks; empty: every entity is included. */
    public OptionalDouble radius() {
        return everyEntity ? OptionalDouble.empty() : OptionalDouble.of(radius);
    }

    /** The caller's keys, stored as strings in the report compound of the file's metadata. */
    public Map<String, String> metadata() {
        return metadata;
    }

    /** Whether a file at the report's path is replaced. */
    public boolean overwrite() {
        return overwrite;
    }

    /** The zstd level of the report file. */
    public int compressionLevel() {
        return compressionLevel;
    }

    /**
     * Whether every block change and placed event of the window is kept, wherever it happened
     * (false: those within the radius of the reported player, and those of kept entities).
     */
    public boolean keepAllBlocks() {
        return keepAllBlocks;
    }

    /** Which chat lines are kept. */
    public ReportChat chat() {
        return chat;
    }

    /** The native options array (layout: native/bridge/jni/shadow.rs {@code REPORT_OPTIONS_LEN}). */
    long[] toNative() {
        return NativeBridge.reportOptions(
                before == null ? -1 : ShadowOptions.nanos(before),
                ShadowOptions.nanos(after),
                everyEntity ? 0 : 1,
                overwrite ? 1 : 0,
                compressionLevel,
                keepAllBlocks ? 1 : 0,
                chat.ordinal());
    }

    /** {@link #toNative()} followed by the radius's {@code double} bits, as a report takes them. */
    long[] toNativeWithRadius() {
        long[] base = toNative();
        long[] a = java.util.Arrays.copyOf(base, base.length + 1);
        a[a.length - 1] = Double.doubleToRawLongBits(nativeRadius());
        return a;
    }

    /** The radius argument of the native call (ignored when {@link #toNative()} says none). */
    double nativeRadius() {
        return everyEntity ? 0 : radius;
    }

    /**
     * Builds {@link ReportOptions}. The setters only store their values: the library checks them (its
     * {@code validate()}) when they are used, {@link ShadowBuffer#report} throwing {@link IllegalArgumentException}
     * with its message. Null arguments throw {@link NullPointerException} at once.
     */
    public static final class Builder {
        private Duration before;
        private Duration after = Duration.ofSeconds(30);
        /** NaN: every entity. */
        private double radius = 48;
        private boolean everyEntity;
        private final Map<String, String> metadata = new LinkedHashMap<>();
        private boolean overwrite;
        private int compressionLevel = 3;
        private boolean keepAllBlocks;
        private ReportChat chat = ReportChat.NEAR;

        private Builder() {}

        /**
         * Game time before the report (for a player who left: before the leave) to include
         * (default: all that is retained, up to the buffer's window); at most a day.
         *
         * @throws NullPointerException if {@code before} is null
         */
        public Builder before(Duration before) {
            Objects.requireNonNull(before, "before");
            this.before = before;
            return this;
        }

        /**
         * Game time to keep capturing after the report (default 30 s; zero writes the report
         * from what is there now); at most a day.
         *
         * @throws NullPointerException if {@code after} is null
         */
        public Builder after(Duration after) {
            Objects.requireNonNull(after, "after");
            this.after = after;
            return this;
        }

        /**
         * Entities that came within this many blocks of the reported player at any tick of the
         * report are included with their whole track (default 48).
         */
        public Builder radius(double blocks) {
            radius = blocks;
            everyEntity = false;
            return this;
        }

        /** Includes every entity of the stream (no context radius). */
        public Builder everyEntity() {
            everyEntity = true;
            return this;
        }

        /**
         * Adds one key of the report compound (the library's own keys, such as {@code player} or
         * {@code first_tick}, are refused by {@link ShadowBuffer#report}).
         *
         * @throws NullPointerException if {@code key} or {@code value} is null
         */
        public Builder metadata(String key, String value) {
            Objects.requireNonNull(key, "key");
            Objects.requireNonNull(value, "value");
            metadata.put(key, value);
            return this;
        }

        /**
         * Adds several keys of the report compound.
         *
         * @throws NullPointerException if {@code entries}, a key or a value is null
         */
        public Builder metadata(Map<String, String> entries) {
            Objects.requireNonNull(entries, "entries");
            entries.forEach(this::metadata);
            return this;
        }

        /** Replace a file at the report's path instead of failing (default false). */
        public Builder overwrite(boolean replace) {
            overwrite = replace;
            return this;
        }

        /** The zstd level of the report file, -7..22 (default 3). */
        public Builder compressionLevel(int level) {
            compressionLevel = level;
            return this;
        }

        /**
         * Keep every block change and placed event of the window, wherever it happened (default
         * false: those within the radius of the reported player at the tick, and those of kept
         * entities).
         */
        public Builder keepAllBlocks(boolean all) {
            keepAllBlocks = all;
            return this;
        }

        /**
         * Which chat lines the report keeps (default {@link ReportChat#NEAR}: the reported
         * player's and the public lines of players within the radius).
         *
         * @throws NullPointerException if {@code chat} is null
         */
        public Builder chat(ReportChat chat) {
            Objects.requireNonNull(chat, "chat");
            this.chat = chat;
            return this;
        }

        /** The options. */
        public ReportOptions build() {
            return new ReportOptions(this);
        }
    }
}
