package io.tickreel;

import java.time.Duration;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import java.util.function.LongConsumer;

/**
 * What a {@linkplain ShadowBuffer#report report} holds: how much game time before and after the
 * report, which entities beside the reported player, the caller's metadata (reporter, reason...)
 * and how the file is written. Immutable; build one with {@link #builder()}.
 */
public final class ReportOptions {
    /** The setters called, in order, on a native options handle. */
    private final OptionSetters setters;
    private final Map<String, String> metadata;

    private ReportOptions(Builder b) {
        setters = b.setters.copy();
        metadata = Collections.unmodifiableMap(new LinkedHashMap<>(b.metadata));
    }

    /** A builder with the defaults. */
    public static Builder builder() {
        return new Builder();
    }

    /**
     * The library's defaults (these options name only what was set): all that is retained before
     * the report, 30 s captured after it, the entities that came within 48 blocks of the player,
     * the chat lines near them, no metadata, no overwrite, zstd level 3.
     */
    public static ReportOptions defaults() {
        return builder().build();
    }

    /** The caller's keys, stored as strings in the report compound of the file's metadata. */
    public Map<String, String> metadata() {
        return metadata;
    }

    /**
     * A native options handle (native/bridge/api/report_options.rs) holding these options, each set
     * through its native setter; the caller closes it. A value the library refuses throws here,
     * naming its setter. The metadata is an argument of the report itself.
     */
    long toNative() {
        return setters.applyTo(NativeBridge.reportOptionsNew());
    }

    /**
     * Builds {@link ReportOptions}. Each setter only records its value for the library's setter of the
     * same option (durations to the millisecond); what is not set keeps the library's default. The
     * library checks them when they are used, {@link ShadowBuffer#report} throwing {@link
     * IllegalArgumentException} naming the option. Null arguments throw {@link NullPointerException}
     * at once.
     */
    public static final class Builder {
        private final OptionSetters setters = new OptionSetters();
        private final Map<String, String> metadata = new LinkedHashMap<>();

        private Builder() {}

        private Builder set(LongConsumer setter) {
            setters.add(setter);
            return this;
        }

        /**
         * Game time before the report (for a player who left: before the leave) to include
         * (default: all that is retained, up to the buffer's window); at most a day.
         *
         * @throws NullPointerException if {@code before} is null
         */
        public Builder before(Duration before) {
            long ms = OptionSetters.millis(Objects.requireNonNull(before, "before"));
            return set(h -> NativeBridge.reportOptionsSetBefore(h, ms));
        }

        /**
         * Game time to keep capturing after the report (default 30 s; zero writes the report
         * from what is there now); at most a day.
         *
         * @throws NullPointerException if {@code after} is null
         */
        public Builder after(Duration after) {
            long ms = OptionSetters.millis(Objects.requireNonNull(after, "after"));
            return set(h -> NativeBridge.reportOptionsSetAfter(h, ms));
        }

        /**
         * Entities that came within this many blocks of the reported player at any tick of the
         * report are included with their whole track (default 48; finite, at least 0). Undoes
         * {@link #everyEntity()}.
         */
        public Builder radius(double blocks) {
            return set(h -> NativeBridge.reportOptionsSetRadius(h, blocks));
        }

        /** Includes every entity of the stream (no context radius). */
        public Builder everyEntity() {
            return set(h -> NativeBridge.reportOptionsSetEveryEntity(h, true));
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
            return set(h -> NativeBridge.reportOptionsSetOverwrite(h, replace));
        }

        /** The zstd level of the report file, -7..22 (default 3). */
        public Builder compressionLevel(int level) {
            return set(h -> NativeBridge.reportOptionsSetZstdLevel(h, level));
        }

        /**
         * Keep every block change and placed event of the window, wherever it happened (default
         * false: those within the radius of the reported player at the tick, and those of kept
         * entities).
         */
        public Builder keepAllBlocks(boolean all) {
            return set(h -> NativeBridge.reportOptionsSetKeepAllBlocks(h, all));
        }

        /**
         * Which chat lines the report keeps (default {@link ReportChat#NEAR}: the reported
         * player's and the public lines of players within the radius).
         *
         * @throws NullPointerException if {@code chat} is null
         */
        public Builder chat(ReportChat chat) {
            int ordinal = Objects.requireNonNull(chat, "chat").ordinal();
            return set(h -> NativeBridge.reportOptionsSetChat(h, ordinal));
        }

        /** The options. */
        public ReportOptions build() {
            return new ReportOptions(this);
        }
    }
}
