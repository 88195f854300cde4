package io.tickreel;

import java.nio.file.Path;
import java.util.Objects;

/**
 * The recording runtime of a server: background writer thread(s) and a compaction worker shared by
 * every {@link Recorder}. Create one when the plugin enables, close it when it disables.
 *
 * <pre>{@code
 * try (Engine engine = new Engine(EngineOptions.defaults())) {
 *     Recorder rec = engine.startRecording(path, RecorderOptions.defaults());
 *     ...
 * }
 * }</pre>
 *
 * <p>{@link #close()} flushes and closes the recordings still open (they stay resumable), lets
 * pending compactions complete and joins every background thread before it returns, so no native
 * thread outlives it (the JVM may unload the library once the plugin's class loader is collected).
 * Playback ({@link Playhead}) decodes ahead on the library's shared prefetch threads, which exit
 * after a second without work.
 * It is idempotent and safe while other threads call the engine or its recorders: those calls
 * complete or fail with {@link IllegalStateException}. A {@link java.lang.ref.Cleaner} shuts a
 * forgotten engine down.
 */
public final class Engine implements AutoCloseable {
    private final NativeHandle handle;

    /** An engine with the {@linkplain EngineOptions#defaults() default options}. */
    public Engine() {
        this(EngineOptions.defaults());
    }

    /**
     * Starts an engine (its threads start now).
     *
     * @throws TickreelException if the native library cannot be loaded or a thread cannot start
     */
    public Engine(EngineOptions options) {
        Objects.requireNonNull(options, "options");
        NativeLoader.ensureLoaded();
        long o = options.toNative();
        try {
            this.handle = new NativeHandle(this, NativeBridge.engineNew(o), "Engine", NativeBridge::engineClose);
        } finally {
            NativeBridge.close(o);
        }
    }

    /**
     * Starts the recording whose final file is {@code path}. Costs no file until the first flush.
     * If its live directory exists (after a crash or a {@link Recorder#close()}), the options'
     * {@link RecorderOptions.OnExisting} decides: by default it is set aside as {@code
     * STEM.previous-N.reel.live} (never deleted) and a new recording starts, whose ticks may start
     * again at 0; {@code RESUME} continues it after its last tick (recovered on a thread of its
     * own; {@link Recorder#waitResumed} says where it ends); {@code REFUSE} throws.
     *
     * @throws IllegalStateException if the engine is closed
     * @throws TickreelException of kind {@code LOCKED} if the path is already being recorded, of
     *     kind {@code BACKPRESSURE} if the writer's queue stayed full past the options'
     *     backpressure policy (at once with {@code DROP}): nothing was started, try again later;
     *     of kind {@code IO} if {@code path} is a finished recording and {@link
     *     RecorderOptions.Builder#overwrite(boolean)} is not set ({@code getCause()} is a {@link
     *     java.nio.file.FileAlreadyExistsException}), if the parent directory is missing (a
     *     {@link java.nio.file.NoSuchFileException}) or not a directory
     *     ({@link java.nio.file.NotDirectoryException}), {@code path} is a directory, or the
     *     directory takes no new file ({@link java.nio.file.AccessDeniedException}); {@link
     *     TickreelException#path()} names it
     * @throws IllegalArgumentException for an empty path or an invalid option (named by its
     *     builder method)
     * @throws NullPointerException if {@code path} or {@code options} is null
     */
    public Recorder startRecording(Path path, RecorderOptions options) {
        Objects.requireNonNull(path, "path");
        Objects.requireNonNull(options, "options");
        long o = options.toNative();
        try {
            long h = NativeBridge.recorderStartOn(handle.get(), options.server(), path.toString(), o);
            return new Recorder(this, path, h);
        } finally {
            NativeBridge.close(o);
        }
    }

    /** The live native handle (for {@link ShadowBuffer#start}); throws once closed. */
    long nativeHandle() {
        return handle.get();
    }

    /**
     * Engine-wide counters.
     *
     * @throws IllegalStateException if this engine is closed
     */
    public EngineStats stats() {
        return EngineStats.fromNative(NativeBridge.engineStats(handle.get()));
    }

    /** Whether {@link #close()} was called. */
    public boolean isClosed() {
        return handle.isClosed();
    }

    /**
     * Test hook, not an API: holds the writer threads before their next message while {@code
     * stalled} (used by the benchmark to measure the server thread's own cost).
     */
    void setWritersStalled(boolean stalled) {
        NativeBridge.engineSetWritersStalled(handle.get(), stalled);
    }

    /** Shuts the engine down and joins its threads. Idempotent. */
    @Override
    public void close() {
        handle.close();
    }
}
