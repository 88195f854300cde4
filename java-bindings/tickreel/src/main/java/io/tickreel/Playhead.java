package io.tickreel;

import java.nio.file.Path;
import java.util.List;
import java.util.Objects;

/**
 * Steps through a finished recording, one server tick at a time: play and pause, 0.25x to 16x,
 * forward or in reverse, seek, and single steps. Made for a replay viewer on a game server:
 * call {@link #advance()} once per server tick and apply the returned {@link Update}
 * (for {@link Update.Motion#FORWARD FORWARD} the recorded ticks in order, otherwise the
 * entity states). {@code advance()} never blocks: chunks are decoded ahead on background threads,
 * and when they are late the update is {@link Update#stalled() stalled} and later calls
 * catch up. {@link #seek(int)} and the steps may block to decode a chunk.
 *
 * <p>A new playhead is paused at its start tick. Calls are serialised; the playhead returns the same
 * {@link Update} object from every call, so it is meant for one thread (the server's).
 * Closing is safe while another thread's call is in flight; later calls throw
 * {@link IllegalStateException}.
 */
public final class Playhead implements AutoCloseable {
    /** Slowest speed, in recorded ticks per {@link #advance()}. */
    public static final double MIN_SPEED = 0.25;
    /** Fastest speed, in recorded ticks per {@link #advance()}. */
    public static final double MAX_SPEED = 16.0;

    private final NativeHandle handle;
    private final Update update;

    private Playhead(long h) {
        this.handle = new NativeHandle(this, h, "Playhead");
        this.update = new Update(handle);
        NativeBridge.playheadCurrent(handle.get(), update.refill());
    }

    /**
     * Opens the recording at {@code path} with a paused playhead at its first tick. The first
     * {@link #update()} is a jump there that spawns every entity.
     *
     * @throws TickreelException if the file cannot be read or is not a valid recording
     */
    public static Playhead open(Path path) {
        Objects.requireNonNull(path, "path");
        NativeLoader.ensureLoaded();
        return new Playhead(NativeBridge.playheadOpen(path.toString(), 0));
    }

    /**
     * Opens the recording at {@code path} with a paused playhead at {@code startTick} (clamped into
     * the recording).
     *
     * @throws IllegalArgumentException if {@code startTick} is negative
     * @throws TickreelException if the file cannot be read or is not a valid recording
     */
    public static Playhead open(Path path, int startTick) {
        Objects.requireNonNull(path, "path");
        if (startTick < 0) {
            throw new IllegalArgumentException("start tick must not be negative (got " + startTick + ")");
        }
        NativeLoader.ensureLoaded();
        return new Playhead(NativeBridge.playheadOpen(path.toString(), startTick));
    }

    /**
     * Opens the recording at {@code location}, an object URL ({@code s3://bucket/key}) or a local
     * path, with {@code options} for the store, and a paused playhead at {@code startTick} (clamped
     * into the recording). Chunks are fetched by range requests on the playback prefetch threads,
     * so {@link #advance()} never waits on the network.
     *
     * @throws IllegalArgumentException if {@code startTick} is negative
     * @throws TickreelException if the object is missing, the store refuses (wrong credentials) or
     *     cannot be reached in time, or it is not a valid recording (the message never shows a
     *     secret)
     */
    public static Playhead open(String location, ObjectOptions options, int startTick) {
        Objects.requireNonNull(location, "location");
        Objects.requireNonNull(options, "options");
        if (startTick < 0) {
            throw new IllegalArgumentException("start tick must not be negative (got " + startTick + ")");
        }
        long o = options.toNative();
        try {
            return new Playhead(NativeBridge.playheadOpenUrl(location, o, startTick));
        } finally {
            NativeBridge.close(o);
        }
    }

    /**
     * Opens a playhead on a recording being written (by this process or another): {@code path}
     * is its final {@code .reel} path or its live directory. A background thread polls the live
     * directory (every 100 ms), so new ticks reach {@link #advance()} within the writer's flush
     * interval plus one poll while {@code advance()} still never does I/O. Before the first flush
     * the update is {@link Update#waiting() waiting}; at the live edge it is
     * {@link Update#atEdge() at the edge} and plays on as the recording grows; once the
     * recording is finished it goes on from the final file. {@link #close()} stops the thread.
     *
     * @throws IllegalArgumentException if {@code startTick} is negative
     * @throws TickreelException if neither the live directory nor the final file exists
     */
    public static Playhead follow(Path path, int startTick) {
        Objects.requireNonNull(path, "path");
        if (startTick < 0) {
            throw new IllegalArgumentException("start tick must not be negative (got " + startTick + ")");
        }
        NativeLoader.ensureLoaded();
        return new Playhead(NativeBridge.playheadFollow(path.toString(), startTick));
    }

    /** {@link #follow(Path, int)} from the first tick. */
    public static Playhead follow(Path path) {
        return follow(path, 0);
    }

    /**
     * Opens a playhead on a live recording shipped to object storage from any machine
     * ({@link Recorder#shipLive}): {@code location} is the compacted recording's URL
     * ({@code s3://bucket/key}), read with {@code options}. A background thread polls its manifest
     * (every 500 ms), so new ticks reach {@link #advance()} within the shipper's interval plus a
     * poll; once the recording is finished it goes on from the uploaded {@code .reel}, and one
     * whose shipper stopped reporting is reported ended. {@link #close()} stops the thread.
     *
     * @throws IllegalArgumentException for a malformed URL, or if {@code startTick} is negative
     * @throws TickreelException if neither the live objects nor the final object exist, or the
     *     store refuses or cannot be reached
     */
    public static Playhead followUrl(String location, ObjectOptions options, int startTick) {
        Objects.requireNonNull(location, "location");
        Objects.requireNonNull(options, "options");
        if (startTick < 0) {
            throw new IllegalArgumentException("start tick must not be negative (got " + startTick + ")");
        }
        long o = options.toNative();
        try {
            return new Playhead(NativeBridge.playheadFollowUrl(location, o, startTick));
        } finally {
            NativeBridge.close(o);
        }
    }

    /** The update of the last call (right after opening: the jump to the start tick). */
    public Update update() {
        handle.get();
        return update;
    }

    /**
     * Moves by one server tick's worth of playback (nothing while paused). Never blocks, and
     * allocates nothing on the Java heap (the update is refilled in place).
     *
     * @return this playhead's update object, refilled
     * @throws IllegalStateException if this playhead is closed
     * @throws TickreelException if the recording cannot be read or is damaged where it plays
     */
    public Update advance() {
        NativeBridge.playheadAdvance(handle.get(), update.refill());
        return update;
    }

    /**
     * Moves to {@code tick} (clamped into the recording), blocking until it is decoded. Playing
     * continues from there.
     *
     * @throws IllegalArgumentException if {@code tick} is negative
     * @throws TickreelException if the chunk holding {@code tick} cannot be read (the position is unchanged)
     */
    public Update seek(int tick) {
        if (tick < 0) {
            throw new IllegalArgumentException("tick must not be negative (got " + tick + ")");
        }
        NativeBridge.playheadSeek(handle.get(), tick, update.refill());
        return update;
    }

    /**
     * Moves one recorded tick forward, playing or not (may block to decode the next chunk).
     *
     * @throws IllegalStateException if this playhead is closed
     * @throws TickreelException if the recording cannot be read or is damaged there
     */
    public Update stepForward() {
        NativeBridge.playheadStepForward(handle.get(), update.refill());
        return update;
    }

    /**
     * Moves one recorded tick back, playing or not (may block to decode the chunk).
     *
     * @throws IllegalStateException if this playhead is closed
     * @throws TickreelException if the recording cannot be read or is damaged there
     */
    public Update stepBack() {
        NativeBridge.playheadStepBack(handle.get(), update.refill());
        return update;
    }

    /**
     * Starts playing, in the current direction at the current speed, from the next {@link #advance()}.
     *
     * @throws IllegalStateException if this playhead is closed
     */
    public void play() {
        NativeBridge.playheadPlay(handle.get());
    }

    /**
     * Stops playing: {@link #advance()} then returns {@link Update.Motion#STILL STILL} updates.
     *
     * @throws IllegalStateException if this playhead is closed
     */
    public void pause() {
        NativeBridge.playheadPause(handle.get());
    }

    /**
     * Sets the speed in recorded ticks per {@link #advance()}, from {@link #MIN_SPEED} to
     * {@link #MAX_SPEED}; fractions accumulate (at 0.25 one recorded tick every fourth call).
     *
     * @throws IllegalArgumentException if {@code speed} is outside that range or not a number
     */
    public void setSpeed(double speed) {
        NativeBridge.playheadSetSpeed(handle.get(), speed);
    }

    /**
     * Plays backward ({@code true}) or forward ({@code false}).
     *
     * @throws IllegalStateException if this playhead is closed
     */
    public void setReverse(boolean reverse) {
        NativeBridge.playheadSetReverse(handle.get(), reverse);
    }

    /**
     * The current position, or -1 while waiting for a live recording's first tick.
     *
     * @throws IllegalStateException if this playhead is closed
     */
    public int position() {
        long position = NativeBridge.playheadPosition(handle.get());
        return update.waiting() ? -1 : (int) position;
    }

    /** Every live entity at the current position (shorthand for {@code update().entities()}). */
    public List<EntityState> entities() {
        return update().entities();
    }

    /**
     * A copy of the world at the current position as the library keeps it from world events
     * (edited blocks, block entities, each entity's health and equipment), through forward and
     * reverse play, seeks and live following. The copy does not follow the playhead: to keep a
     * world current, take it once, then apply each update's {@link Update#worldChanges()} (or its
     * allocation-free {@code worldChange...(i)} accessors). Close it when done.
     *
     * @throws IllegalStateException if this playhead is closed
     */
    public WorldState worldState() {
        return new WorldState(NativeBridge.playheadWorldState(handle.get()));
    }

    /** Releases the playhead and its recording. Idempotent. */
    @Override
    public void close() {
        handle.close();
    }
}
