package io.tickreel;

import java.time.Duration;
import java.util.Objects;
import java.util.function.LongConsumer;

/**
 * How much a {@link ShadowBuffer} keeps: at least the last {@linkplain Builder#window window} of
 * game time (for a player who left less than the {@linkplain Builder#grace grace period} ago, at
 * least the window before the leave), within the memory budgets. Immutable; build one with {@link
 * #builder()}. Game time is converted to ticks at the recording's tick rate, rounded up.
 */
public final class ShadowOptions {
    /** The setters called, in order, on a native options handle. */
    private final OptionSetters setters;

    private ShadowOptions(Builder b) {
        setters = b.setters.copy();
    }

    /** A builder with the defaults. */
    public static Builder builder() {
        return new Builder();
    }

    /**
     * The library's defaults (these options name only what was set): a 5-minute window, a 2-minute
     * grace period, no byte limit of its own, 200-tick blocks.
     */
    public static ShadowOptions defaults() {
        return builder().build();
    }

    /**
     * A native options handle (native/bridge/api/shadow_options.rs) holding these options, each set
     * through its native setter; the caller closes it. A value the library refuses throws here,
     * naming its setter.
     */
    long toNative() {
        return setters.applyTo(NativeBridge.shadowOptionsNew());
    }

    /**
     * Builds {@link ShadowOptions}. Each setter only records its value for the library's setter of the
     * same option (durations to the millisecond); what is not set keeps the library's default. The
     * library checks them when they are used, {@link ShadowBuffer#start} throwing {@link
     * IllegalArgumentException} naming the option. Null arguments throw {@link NullPointerException}
     * at once.
     */
    public static final class Builder {
        private final OptionSetters setters = new OptionSetters();

        private Builder() {}

        private Builder set(LongConsumer setter) {
            setters.add(setter);
            return this;
        }

        /**
         * Game time always retained (default 5 minutes); positive, at most a day.
         *
         * @throws NullPointerException if {@code window} is null
         */
        public Builder window(Duration window) {
            long ms = OptionSetters.millis(Objects.requireNonNull(window, "window"));
            return set(h -> NativeBridge.shadowOptionsSetWindow(h, ms));
        }

        /**
         * How long a player who left (a {@code PlayerLeave} event or {@link Recorder#playerLeft})
         * keeps the window before their leave (default 2 minutes); at most a day.
         *
         * @throws NullPointerException if {@code grace} is null
         */
        public Builder grace(Duration grace) {
            long ms = OptionSetters.millis(Objects.requireNonNull(grace, "grace"));
            return set(h -> NativeBridge.shadowOptionsSetGrace(h, ms));
        }

        /**
         * Bytes this buffer may hold (default: no limit of its own, only the engine-wide {@link
         * EngineOptions.Builder#shadowBudgetBytes}); positive. Past it, its oldest blocks are given
         * up.
         */
        public Builder maxBytes(long bytes) {
            return set(h -> NativeBridge.shadowOptionsSetMaxBytes(h, bytes));
        }

        /**
         * Ticks per block of a stream without a file (default 200: 10 s at 20 ticks/s). A shadowed
         * recording's blocks are its own chunks ({@link RecorderOptions.Builder#chunkTicks}).
         */
        public Builder blockTicks(int ticks) {
            return set(h -> NativeBridge.shadowOptionsSetBlockTicks(h, ticks));
        }

        /** The options. */
        public ShadowOptions build() {
            return new ShadowOptions(this);
        }
    }
}
