package io.tickreel;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Objects;

/**
 * A previous run of one entity, decoded once from a finished recording into compact arrays, to be
 * raced: sample it with a {@link GhostCursor} (interpolated pose at any fractional tick, exact at
 * recorded ticks, never across a teleport) and compare a live player with a {@link LiveDelta}.
 * Time is counted in ticks from the run's start ({@code t = 0}).
 *
 * <pre>{@code
 * try (Ghost best = Ghost.load(bestRun, playerEntity);
 *         GhostCursor cursor = best.cursor()) {
 *     GhostSample s = new GhostSample();      // reused every tick
 *     cursor.sample(elapsedTicks, s);         // s.x(), s.y(), s.z(), s.yaw(), s.pitch()
 * }
 * }</pre>
 *
 * <p>Loading reads the file; on a server thread use {@link #loadAsync(Path, int, GhostRange)} and
 * poll. Cursors and deltas keep their own reference to the data: closing the ghost does not affect
 * them. Thread-safe.
 */
public final class Ghost implements AutoCloseable {
    private final NativeHandle handle;
    private final int entity;
    private final int originTick;
    private final int durationTicks;
    private final int samples;
    private final double tickRate;
    private final List<Split> splits;

    Ghost(long h) {
        this.handle = new NativeHandle(this, h, "Ghost");
        // The fields of C's TickreelGhostInfo in its order (the record GhostInfo of
        // native/bridge/api/ghost.rs): entity, origin tick, duration ticks, samples, splits,
        // tick rate, duration in seconds.
        double[] info = NativeBridge.ghostInfo(h);
        entity = (int) info[0];
        originTick = (int) info[1];
        durationTicks = (int) info[2];
        samples = (int) info[3];
        tickRate = info[5];
        long[] s = NativeBridge.ghostSplits(h);
        List<Split> list = new ArrayList<>(s.length / 2);
        for (int i = 0; i + 1 < s.length; i += 2) {
            list.add(new Split((int) s[i], (int) s[i + 1], s[i + 1] / tickRate));
        }
        splits = Collections.unmodifiableList(list);
    }

    /**
     * Loads {@code entity}'s whole run from the finished recording at {@code path}.
     *
     * @throws TickreelException if the file cannot be read
     * @throws IllegalArgumentException if the entity has no pose in the recording
     */
    public static Ghost load(Path path, int entity) {
        return load(path, entity, GhostRange.all());
    }

    /**
     * Loads {@code entity}'s run from checkpoint {@code from} to checkpoint {@code to}.
     *
     * @throws TickreelException if the file cannot be read (kind {@code IO}, with a {@code java.nio.file} cause) or is not a valid recording
     * @throws IllegalArgumentException if the entity or a checkpoint is not in the recording
     */
    public static Ghost load(Path path, int entity, int fromCheckpoint, int toCheckpoint) {
        return load(path, entity, GhostRange.checkpoints(fromCheckpoint, toCheckpoint));
    }

    /**
     * Loads {@code entity}'s run in {@code range}.
     *
     * @throws TickreelException if the file cannot be read
     * @throws IllegalArgumentException if the entity or a checkpoint of the range is not found
     */
    public static Ghost load(Path path, int entity, GhostRange range) {
        Objects.requireNonNull(path, "path");
        Objects.requireNonNull(range, "range");
        NativeLoader.ensureLoaded();
        return new Ghost(NativeBridge.ghostLoad(path.toString(), entity, range.toNative()));
    }

    /**
     * Loads {@code entity}'s run in {@code range} from the recording at {@code location} (an
     * object URL, {@code s3://bucket/key}, or a local path) on a background thread, opening it
     * there too: the returned handle is polled without ever waiting. A missing object or refused
     * credentials are thrown by its {@link Pending#poll()}.
     *
     * @throws IllegalArgumentException for a malformed URL
     */
    public static Pending<Ghost> loadAsync(String location, ObjectOptions options, int entity, GhostRange range) {
        Objects.requireNonNull(location, "location");
        Objects.requireNonNull(options, "options");
        Objects.requireNonNull(range, "range");
        long o = options.toNative();
        try {
            return new Pending<>(NativeBridge.ghostLoadAsyncUrl(location, o, entity, range.toNative()),
                    Pending.GHOST, "ghost load");
        } finally {
            NativeBridge.close(o);
        }
    }

    /** Loads in the background; see {@link #loadAsync(Path, int, GhostRange)}. */
    public static Pending<Ghost> loadAsync(Path path, int entity) {
        return loadAsync(path, entity, GhostRange.all());
    }

    /**
     * Loads on a background thread; the returned handle is polled from the server thread without
     * ever waiting ({@link Pending#poll()}). Closing it cancels
     * the load.
     *
     * @throws NullPointerException if {@code path} or {@code range} is null
     * @throws IllegalArgumentException for an empty path (what the load finds wrong is its {@link Pending}'s to report)
     */
    public static Pending<Ghost> loadAsync(Path path, int entity, GhostRange range) {
        Objects.requireNonNull(path, "path");
        Objects.requireNonNull(range, "range");
        NativeLoader.ensureLoaded();
        return new Pending<>(NativeBridge.ghostLoadAsync(path.toString(), entity, range.toNative()),
                Pending.GHOST, "ghost load");
    }

    /** The entity whose run this is. */
    public int entity() {
        return entity;
    }

    /** The recording's tick at which the run starts ({@code t = 0}). */
    public int originTick() {
        return originTick;
    }

    /** The run's length in ticks. */
    public int durationTicks() {
        return durationTicks;
    }

    /** The run's length in seconds. */
    public double durationSeconds() {
        return durationTicks / tickRate;
    }

    /** Ticks per second of the source recording. */
    public double tickRate() {
        return tickRate;
    }

    /** Number of pose samples. */
    public int sampleCount() {
        return samples;
    }

    /** The run's checkpoint crossings in recorded order. */
    public List<Split> splits() {
        return splits;
    }

    /** The native handle, for a {@link GhostSet} to add this ghost. */
    long nativeHandle() {
        return handle.get();
    }

    /**
     * A new cursor at the start of the run (one per viewer or per live run).
     *
     * @throws IllegalStateException if this ghost is closed
     */
    public GhostCursor cursor() {
        return new GhostCursor(NativeBridge.ghostCursorNew(handle.get()), tickRate);
    }

    /**
     * A new live delta against this run (one per live run).
     *
     * @throws IllegalStateException if this ghost is closed
     */
    public LiveDelta liveDelta() {
        return new LiveDelta(NativeBridge.liveDeltaNew(handle.get()));
    }

    /** Releases the ghost's data once no cursor or delta uses it. Idempotent. */
    @Override
    public void close() {
        handle.close();
    }

    @Override
    public String toString() {
        return "Ghost[entity=" + entity + ", " + durationTicks + " ticks from tick " + originTick + ", splits="
                + splits + "]";
    }
}
