package io.tickreel;

import java.time.Duration;
import java.util.Objects;
import java.util.OptionalLong;

/**
 * How much a {@link ShadowBuffer} keeps: at least the last {@linkplain #window() window} of game
 * time (for a player who left less than the {@linkplain #grace() grace period} ago, at least the
 * window before the leave), within the memory budgets. Immutable; build one with {@link
 * #builder()}. Game time is converted to ticks at the recording's tick rate, rounded up.
 */
public final class ShadowOptions {
    private final Duration window;
    private final Duration grace;
    private final long maxBytes;
    private final int blockTicks;

    private ShadowOptions(Builder b) {
        window = b.window;
        grace = b.grace;
        maxBytes = b.maxBytes;
        blockTicks = b.blockTicks;
    }

    /** A builder with the defaults. */
    public static Builder builder() {
        return new Builder();
    }

    /** A 5-minute window, a 2-minute grace period, no byte limit of its own, 200-tick blocks. */
    public static ShadowOptions defaults() {
        return builder().build();
    }

    /** Game time always retained. */
    public Duration window() {
        return window;
    }

    /** How long a player who left keeps the window before their leave. */
    public Duration grace() {
        return grace;
    }

    /** Bytes this buffer may hold; empty: only the engine-wide {@link EngineOptions.Builder#shadowBudgetBytes}. */
    public OptionalLong maxBytes() {
        return maxBytes < 0 ? OptionalLong.empty() : OptionalLong.of(maxBytes);
    }

    /** Ticks per block of a stream without a file. */
    public int blockTicks() {
        return blockTicks;
    }

    /** The native options array (layout: native/bridge/jni/shadow.rs {@code SHADOW_OPTIONS_LEN}). */
    long[] toNative() {
        return NativeBridge.shadowOptions(nanos(window), nanos(grace), maxBytes, blockTicks);
    }

    /** Nanoseconds, saturated (the library refuses anything over a day). */
    static long nanos(Duration d) {
        try {
            return d.toNanos();
        } catch (ArithmeticException e) {
            return Long.MAX_VALUE;
        }
    }

    /**
     * Builds {@link ShadowOptions}. The setters only store their values: the library checks them (its
     * {@code validate()}) when they are used, {@link ShadowBuffer#start} throwing {@link IllegalArgumentException}
     * with its message. Null arguments throw {@link NullPointerException} at once.
     */
    public static final class Builder {
        private Duration window = Duration.ofMinutes(5);
        private Duration grace = Duration.ofMinutes(2);
        private long maxBytes = -1;
        private int blockTicks = 200;

        private Builder() {}

        /**
         * Game time always retained (default 5 minutes); positive, at most a day.
         *
         * @throws NullPointerException if {@code window} is null
         */
        public Builder window(Duration window) {
            Objects.requireNonNull(window, "window");
            this.window = window;
            return this;
        }

        /**
         * How long a player who left (a {@code PlayerLeave} event or {@link Recorder#playerLeft})
         * keeps the window before their leave (default 2 minutes); at most a day.
         *
         * @throws NullPointerException if {@code grace} is null
         */
        public Builder grace(Duration grace) {
            Objects.requireNonNull(grace, "grace");
            this.grace = grace;
            return this;
        }

        /**
         * Bytes this buffer may hold (default: no limit of its own, only the engine-wide budget);
         * past it, its oldest blocks are given up.
         */
        public Builder maxBytes(long bytes) {
            maxBytes = bytes;
            return this;
        }

        /**
         * Ticks per block of a stream without a file (default 200: 10 s at 20 ticks/s). A shadowed
         * recording's blocks are its own chunks ({@link RecorderOptions.Builder#chunkTicks}).
         */
        public Builder blockTicks(int ticks) {
            blockTicks = ticks;
            return this;
        }

        /** The options. */
        public ShadowOptions build() {
            return new ShadowOptions(this);
        }
    }
}
