package io.tickreel;

import java.util.function.LongConsumer;

/**
 * Options of an {@link Engine}: writer threads, queue size and memory budgets. Immutable; build one
 * with {@link #builder()}. {@link #defaults()} suits one server (one writer thread).
 */
public final class EngineOptions {
    /** The setters called, in order, on a native options handle. */
    private final OptionSetters setters;

    private EngineOptions(Builder b) {
        setters = b.setters.copy();
    }

    /** A builder with the defaults. */
    public static Builder builder() {
        return new Builder();
    }

    /**
     * The library's defaults (these options name only what was set): one writer thread, 65,536
     * queued ticks, 64 MiB in flight, 4,096 pooled buffers, 256 MiB of shadow buffers.
     */
    public static EngineOptions defaults() {
        return builder().build();
    }

    /**
     * A native options handle (native/bridge/api/engine_options.rs) holding these options, each set
     * through its native setter; the caller closes it. A value the library refuses throws here,
     * naming its setter.
     */
    long toNative() {
        return setters.applyTo(NativeBridge.engineOptionsNew());
    }

    /**
     * Builds {@link EngineOptions}. Each setter only records its value for the library's setter of the
     * same option; what is not set keeps the library's default. The library checks them when they are
     * used, {@link Engine#Engine(EngineOptions)} throwing {@link IllegalArgumentException} naming the
     * option.
     */
    public static final class Builder {
        private final OptionSetters setters = new OptionSetters();

        private Builder() {}

        private Builder set(LongConsumer setter) {
            setters.add(setter);
            return this;
        }

        /** Writer threads (default 1). */
        public Builder writerThreads(int n) {
            return set(h -> NativeBridge.engineOptionsSetWriterThreads(h, n));
        }

        /** Tick messages that may wait in each writer's queue (default 65,536). */
        public Builder queueCapacity(int n) {
            return set(h -> NativeBridge.engineOptionsSetQueueCapacity(h, n));
        }

        /** Bytes of submitted ticks that may be in flight before backpressure applies (default 64 MiB). */
        public Builder maxInflightBytes(long bytes) {
            return set(h -> NativeBridge.engineOptionsSetMaxInflightBytes(h, bytes));
        }

        /** Reusable tick buffers kept in the pool (default 4,096). */
        public Builder poolBuffers(int n) {
            return set(h -> NativeBridge.engineOptionsSetPoolBuffers(h, n));
        }

        /**
         * Bytes the engine's {@linkplain ShadowBuffer shadow buffers} may hold in all (default 256
         * MiB); past it, the oldest blocks of any buffer are given up first.
         */
        public Builder shadowBudgetBytes(long bytes) {
            return set(h -> NativeBridge.engineOptionsSetShadowBudgetBytes(h, bytes));
        }

        /** The options. */
        public EngineOptions build() {
            return new EngineOptions(this);
        }
    }
}
