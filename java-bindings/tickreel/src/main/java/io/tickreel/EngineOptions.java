package io.tickreel;

/**
 * Options of an {@link Engine}: writer threads, queue size and memory budgets. Immutable; build one
 * with {@link #builder()}. {@link #defaults()} suits one server (one writer thread).
 */
public final class EngineOptions {
    private final int writerThreads;
    private final int queueCapacity;
    private final long maxInflightBytes;
    private final int poolBuffers;
    private final long shadowBudgetBytes;

    private EngineOptions(Builder b) {
        writerThreads = b.writerThreads;
        queueCapacity = b.queueCapacity;
        maxInflightBytes = b.maxInflightBytes;
        poolBuffers = b.poolBuffers;
        shadowBudgetBytes = b.shadowBudgetBytes;
    }

    /** A builder with the defaults. */
    public static Builder builder() {
        return new Builder();
    }

    /**
     * One writer thread, 65,536 queued ticks, 64 MiB in flight, 4,096 pooled buffers, 256 MiB of
     * shadow buffers.
     */
    public static EngineOptions defaults() {
        return builder().build();
    }

    /** Writer threads; recordings are spread over them. */
    public int writerThreads() {
        return writerThreads;
    }

    /** Tick messages that may wait in each writer's queue. */
    public int queueCapacity() {
        return queueCapacity;
    }

    /** Bytes of submitted ticks that may be in flight, engine-wide. */
    public long maxInflightBytes() {
        return maxInflightBytes;
    }

    /** Reusable tick buffers kept in the pool. */
    public int poolBuffers() {
        return poolBuffers;
    }

    /** Bytes the engine's {@linkplain ShadowBuffer shadow buffers} may hold in all. */
    public long shadowBudgetBytes() {
        return shadowBudgetBytes;
    }

    /** The native options array (layout: native/bridge/jni/recorder.rs {@code ENGINE_OPTIONS_LEN}). */
    long[] toNative() {
        return NativeBridge.engineOptions(writerThreads, queueCapacity, maxInflightBytes, poolBuffers, shadowBudgetBytes);
    }

    /**
     * Builds {@link EngineOptions}. The setters only store their values: the library checks them (its
     * {@code validate()}) when they are used, {@link Engine#Engine(EngineOptions)} throwing {@link IllegalArgumentException}
     * with its message. Null arguments throw {@link NullPointerException} at once.
     */
    public static final class Builder {
        private int writerThreads = 1;
        private int queueCapacity = 65_536;
        private long maxInflightBytes = 64L << 20;
        private int poolBuffers = 4096;
        private long shadowBudgetBytes = 256L << 20;

        private Builder() {}

        /** Writer threads (default 1). */
        public Builder writerThreads(int n) {
            writerThreads = n;
            return this;
        }

        /** Tick messages that may wait in each writer's queue (default 65,536). */
        public Builder queueCapacity(int n) {
            queueCapacity = n;
            return this;
        }

        /** Bytes of submitted ticks that may be in flight before backpressure applies (default 64 MiB). */
        public Builder maxInflightBytes(long bytes) {
            maxInflightBytes = bytes;
            return this;
        }

        /** Reusable tick buffers kept in the pool (default 4,096). */
        public Builder poolBuffers(int n) {
            poolBuffers = n;
            return this;
        }

        /**
         * Bytes the engine's {@linkplain ShadowBuffer shadow buffers} may hold in all (default 256
         * MiB); past it, the oldest blocks of any buffer are given up first.
         */
        public Builder shadowBudgetBytes(long bytes) {
            shadowBudgetBytes = bytes;
            return this;
        }

        /** The options. */
        public EngineOptions build() {
            return new EngineOptions(this);
        }
    }
}
