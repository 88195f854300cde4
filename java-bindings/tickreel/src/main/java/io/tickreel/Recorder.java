package io.tickreel;

import java.lang.ref.Reference;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.Map;
import java.util.Objects;
import java.util.UUID;

/**
 * One live recording, started by {@link Engine#startRecording} (or, shadowed, by {@link
 * ShadowBuffer#start}). The server thread encodes each
 * tick with a reused {@link Batch} and hands it over with {@link #submit(int, Batch)}:
 * one native call that copies the bytes (a small tick into its queue slot, a larger one into a pooled
 * buffer) and pushes them onto the writer's
 * queue (no I/O, no compression on the server thread). Ticks must be submitted in increasing order,
 * from one thread at a time; the other methods may be called from any thread.
 *
 * <pre>{@code
 * Recorder rec = engine.startRecording(path, RecorderOptions.defaults());
 * rec.registerPlayer(7, player.getUniqueId(), player.getName());
 * Batch t = new Batch();
 * for (...) rec.submit(tick, t.clear().pose(7, x, y, z, yaw, pitch));
 * Path file = rec.finish().await();   // or poll() from the tick loop
 * }</pre>
 *
 * <p>{@link #finish()} compacts into the final file; {@link #abort()} throws the recording away;
 * {@link #close()} on a recording still open flushes it and leaves it resumable ({@code
 * startRecording} on the same path with {@code onExisting(RESUME)} continues it). After finish, abort or close, calls throw
 * {@link IllegalStateException}, as do calls after the engine was closed.
 *
 * <p>The recorder of a stream written nowhere but a {@link ShadowBuffer} ({@link
 * ShadowBuffer#start} without a path) has no {@linkplain #path() path}, refuses {@link #finish()}
 * and is ended by {@link #close()} or {@link #abort()}.
 */
public final class Recorder implements AutoCloseable {
    private final NativeHandle handle;
    private final Path path;
    /** Keeps the engine reachable (its cleaner would shut it down) while this recorder is. */
    private final Engine engine;

    Recorder(Engine engine, Path path, long h) {
        this.engine = engine;
        this.path = path;
        this.handle = new NativeHandle(this, h, "Recorder");
    }

    /** The final {@code .reel} path of this recording; {@code null} for a stream without a file. */
    public Path path() {
        return path;
    }

    /** Whether this recording is written to a file ({@code false} for a shadow-only stream). */
    public boolean isPersistent() {
        return path != null;
    }

    /** The engine this recording runs in. */
    public Engine engine() {
        return engine;
    }

    /**
     * Queues one tick's events: one native call, a copy and a queue push.
     *
     * @param tick the tick number, after the previous one submitted
     * @param events the tick's events; may be cleared and reused once this returns
     * @return {@code true} if queued, {@code false} if dropped by the {@linkplain
     *     RecorderOptions.Builder#backpressureDrop() drop policy} (counted and recorded as a gap)
     * @throws TickreelException of kind {@code BACKPRESSURE} if the {@linkplain
     *     RecorderOptions.Builder#backpressureBlock block policy}'s deadline expired (the tick is
     *     dropped and recorded as a gap)
     * @throws IllegalArgumentException for a tick not after the previous one, or an oversized batch
     * @throws NullPointerException if {@code events} is null
     * @throws IllegalStateException if the recording or its engine is closed or finished
     */
    public boolean submit(int tick, Batch events) {
        Objects.requireNonNull(events, "events");
        long h = handle.get();
        ByteBuffer buf = events.sealDirect();
        long pinned = events.pinned(buf);
        try {
            return pinned != 0
                    ? NativeBridge.recorderSubmitPinned(h, tick, pinned, 0, events.size())
                    : NativeBridge.recorderSubmit(h, tick, buf, 0, events.size());
        } finally {
            // The batch's cleaner closes its pin: not before the native call has read it.
            Reference.reachabilityFence(events);
        }
    }

    /**
     * Queues one tick already in the tick batch encoding: the bytes between the buffer's position
     * and limit. The buffer must be direct and must not change during the call.
     *
     * @return {@code true} if queued, {@code false} if dropped by the drop policy
     * @throws IllegalArgumentException for a heap buffer
     */
    public boolean submit(int tick, ByteBuffer batch) {
        Objects.requireNonNull(batch, "batch");
        long h = handle.get();
        if (!batch.isDirect()) {
            throw new IllegalArgumentException("the batch must be a direct ByteBuffer");
        }
        return NativeBridge.recorderSubmit(h, tick, batch, batch.position(), batch.remaining());
    }

    /**
     * A player left: triggers a flush (per the flush policy) so that their part is durable, and
     * starts the player's grace period in a {@link ShadowBuffer} this recorder feeds. Record the
     * {@code PlayerLeave} event itself in the tick ({@link Batch#playerLeave}).
     *
     * @throws IllegalStateException if the recording is closed, finished or aborted, or its engine
     *     is closed
     */
    public void playerLeft(int entity) {
        NativeBridge.recorderPlayerLeft(handle.get(), entity);
    }

    /**
     * Supplies snapshot bytes (the game's blocks and entities); the next tick starts a chunk with them.
     *
     * @throws NullPointerException if {@code snapshot} is null
     * @throws TickreelException if it is larger than a chunk carries (kind {@code LIMIT_EXCEEDED})
     *     or the writer's queue stays full (kind {@code BACKPRESSURE})
     * @throws IllegalStateException if the recording is closed, finished or aborted
     */
    public void offerSnapshot(byte[] snapshot) {
        Objects.requireNonNull(snapshot, "snapshot");
        NativeBridge.recorderSnapshot(handle.get(), snapshot);
    }

    /**
     * Supplies terrain: the blocks of an area as chunk sections in Minecraft's layout ({@link
     * TerrainSection}; copied), at the recording's start or whenever the game loads or changes an
     * area. The next tick starts a chunk carrying it, stored once, compressed; readers return it
     * with the world from that tick on ({@link WorldState#terrainSections()}, {@link
     * WorldState#block}), a later offer's section replacing an earlier one at the same position. A
     * {@link ShadowBuffer} fed by this recorder puts the sections around a reported player into the
     * report. Checks every section on the calling thread; never does I/O; waits only while the
     * writer's queue is full (per the backpressure policy).
     *
     * @throws NullPointerException if {@code sections} or one of them is null
     * @throws IllegalArgumentException (nothing queued) for an invalid section (a palette of 0 or
     *     more than 4096 states, {@code bits} not matching it, the longs not matching {@code bits},
     *     an index past the palette), a section position twice, or more than 16,384 sections
     * @throws TickreelException for terrain whose coded form would exceed 16 MiB (kind {@code
     *     LIMIT_EXCEEDED}) or when the writer's queue stays full (kind {@code BACKPRESSURE})
     * @throws IllegalStateException if the recording is closed, finished or aborted
     */
    public void offerTerrain(java.util.Collection<TerrainSection> sections) {
        long[] terrain = TerrainSection.toNative(sections);
        NativeBridge.recorderTerrain(handle.get(), terrain);
    }

    /**
     * Records who an entity is (replaces an earlier registration of the same id).
     *
     * @throws NullPointerException if {@code entity} is null
     * @throws IllegalStateException if the recording is closed, finished or aborted
     */
    public void registerEntity(EntityInfo entity) {
        Objects.requireNonNull(entity, "entity");
        NativeBridge.recorderRegisterEntity(
                handle.get(), entity.id(), entity.kind(), entity.uuidLongs(), entity.name());
    }

    /** Records a player: {@code registerEntity(EntityInfo.player(entity, uuid, name))}. */
    public void registerPlayer(int entity, UUID uuid, String name) {
        registerEntity(EntityInfo.player(entity, uuid, name));
    }

    /**
     * Registers a custom event type (replaces an earlier registration of the same id).
     *
     * @throws NullPointerException if {@code type} is null
     * @throws IllegalArgumentException if the type's id is not an extension kind
     * @throws IllegalStateException if the recording is closed, finished or aborted
     */
    public void registerEventType(EventType type) {
        Objects.requireNonNull(type, "type");
        NativeBridge.recorderRegisterEventType(handle.get(), type.id(), type.name(), type.version());
    }

    /**
     * Names id {@code id} of a palette, e.g. block state 1 as {@code "minecraft:stone"}, so that
     * the recording explains its world events across game versions. The same name again does
     * nothing.
     *
     * @throws NullPointerException if {@code kind} or {@code name} is null
     * @throws IllegalArgumentException if the name is empty, over 256 bytes, or the id is named
     *     otherwise already
     * @throws IllegalStateException if the recording is closed, finished or aborted
     */
    public void registerName(PaletteKind kind, int id, String name) {
        Objects.requireNonNull(kind, "kind");
        Objects.requireNonNull(name, "name");
        NativeBridge.recorderRegisterName(handle.get(), kind.code(), id, name);
    }

    /**
     * Sets one user metadata key (NBT-friendly values: numbers, strings, arrays, lists, maps,
     * UUIDs; see {@link Reader#metadata()}). The key {@code "tickreel"} is reserved.
     *
     * @throws NullPointerException if {@code key} or {@code value} is null
     * @throws IllegalArgumentException if {@code key} is reserved or {@code value} has no NBT form
     * @throws IllegalStateException if the recording is closed, finished or aborted
     */
    public void setUserMetadata(String key, Object value) {
        Objects.requireNonNull(key, "key");
        Objects.requireNonNull(value, "value");
        setUserMetadata(Map.of(key, value));
    }

    /**
     * Sets several user metadata keys at once.
     *
     * @throws IllegalArgumentException for the key {@code "tickreel"} (the library's own) or a value
     *     NBT cannot hold
     */
    public void setUserMetadata(Map<String, ?> entries) {
        Objects.requireNonNull(entries, "entries");
        NativeBridge.recorderSetUserMetadata(handle.get(), Nbt.writeRoot(entries));
    }

    /**
     * Asks the writer to flush now; returns once every tick submitted so far is durable.
     *
     * @throws TickreelException of kind {@code IO} if the flush failed (its {@link
     *     TickreelException#path() path} names the file or directory; the writer keeps the ticks
     *     in memory, up to about 1 MiB, and retries)
     * @throws IllegalStateException if this recorder was closed or its engine shut down
     */
    public void flush() {
        NativeBridge.recorderFlush(handle.get());
    }

    /**
     * Counters of this recording.
     *
     * @throws IllegalStateException if this recorder is closed
     */
    public RecorderStats stats() {
        return RecorderStats.fromNative(NativeBridge.recorderStats(handle.get()));
    }

    /**
     * Waits up to {@code timeout} for a resumed recording to be recovered ({@link
     * Engine#startRecording} on an existing live directory returns at once and recovers it on a
     * thread of its own) and returns its last recorded tick (empty for a recording without ticks,
     * and at once for a fresh one). Ticks submitted must come after it.
     *
     * @throws TickreelException of kind NOT_READY if the recovery still runs at the timeout
     * @throws IllegalStateException with the recovery's error if it failed
     */
    public java.util.OptionalInt waitResumed(java.time.Duration timeout) {
        // Whole milliseconds, at most about 24 days (an int); a negative timeout is refused.
        long ms = timeout.toMillis();
        long t = NativeBridge.recorderWaitResumed(handle.get(), (int) Math.max(-1, Math.min(ms, Integer.MAX_VALUE)));
        return t < 0 ? java.util.OptionalInt.empty() : java.util.OptionalInt.of((int) t);
    }

    /**
     * The writer's status for this recording: empty while everything went well, otherwise its
     * last error (a malformed tick refused, an I/O error) as a {@link TickreelException} whose
     * {@link TickreelException#kind() kind} says what happened: {@code IO} for a failed flush,
     * with the {@link TickreelException#path() path} it failed on, {@code INVALID_STATE} for a
     * tick or snapshot the writer refused. Returned, not thrown: a server checks it each tick or
     * second without a try block. Never blocks.
     *
     * @throws IllegalStateException if this recorder was closed
     */
    public java.util.Optional<TickreelException> status() {
        Object error = NativeBridge.recorderStatus(handle.get());
        return java.util.Optional.ofNullable((TickreelException) error);
    }

    /**
     * Ends the recording: remaining ticks are written, then the compaction worker produces the
     * final file. Returns at once; the {@link Pending} result is the final file once it is ready.
     *
     * @throws IllegalStateException if the recording was already finished, aborted or closed, or
     *     is a stream without a file
     */
    public Pending<java.nio.file.Path> finish() {
        return new Pending<>(NativeBridge.recorderFinish(handle.get()), Pending.FINISH, "finish");
    }

    /**
     * Ends the recording as {@link #finish()} does and, once its {@code .reel} file is written,
     * uploads it to the object URL {@code url} ({@code s3://bucket/key}) on a background thread:
     * multipart for large files, never over an existing object unless {@code overwrite}, the
     * uploaded size checked, then the local file removed if {@code removeLocal}. A failed upload
     * keeps the local file. Returns at once; the {@link Pending} result is the uploaded object.
     *
     * @throws IllegalArgumentException for a malformed URL (checked first: the recording then goes on)
     * @throws IllegalStateException as {@link #finish()}
     */
    public Pending<Uploaded> finishAndUpload(String url, ObjectOptions options, boolean overwrite, boolean removeLocal) {
        java.util.Objects.requireNonNull(url, "url");
        java.util.Objects.requireNonNull(options, "options");
        long o = options.toNative();
        try {
            return new Pending<>(NativeBridge.recorderFinishUpload(handle.get(), url, o, overwrite, removeLocal),
                    Pending.UPLOAD, "upload");
        } finally {
            NativeBridge.close(o);
        }
    }

    /**
     * Starts shipping this recording to the object URL {@code url} ({@code s3://bucket/key}, the
     * key the compacted recording will have; the live objects go under {@code <key>.live/}) every
     * {@code interval} on a background thread, so that others follow it from any machine with
     * {@link Playhead#followUrl}. End it with {@link LiveShipper#finish}, which finishes this
     * recording too. Waits on two requests (nothing may be at the key yet); call it where the
     * recording starts, not on every tick.
     *
     * @throws IllegalArgumentException for a malformed URL or an interval under 1 ms or over
     *     {@code Integer.MAX_VALUE} ms
     * @throws IllegalStateException for a stream without a file, or a closed recorder
     * @throws TickreelException if a recording or live objects are already at the key, or the
     *     store refuses or cannot be reached
     */
    public LiveShipper shipLive(String url, ObjectOptions options, java.time.Duration interval) {
        java.util.Objects.requireNonNull(url, "url");
        java.util.Objects.requireNonNull(options, "options");
        java.util.Objects.requireNonNull(interval, "interval");
        long ms = interval.toMillis();
        if (ms < 1 || ms > Integer.MAX_VALUE) {
            throw new IllegalArgumentException("ship interval must be 1 ms to " + Integer.MAX_VALUE + " ms (got " + interval + ")");
        }
        long o = options.toNative();
        try {
            return new LiveShipper(NativeBridge.recorderShipLive(handle.get(), url, o, (int) ms));
        } finally {
            NativeBridge.close(o);
        }
    }

    /** The live native handle (for {@link LiveShipper#finish}); throws once closed. */
    long nativeHandle() {
        return handle.get();
    }

    /**
     * Throws the recording away: queued ticks are discarded and its live directory is removed.
     *
     * @throws IllegalStateException if the recording was already finished or aborted, or this recorder is closed
     */
    public void abort() {
        NativeBridge.recorderAbort(handle.get());
    }

    /**
     * Releases the recorder. A recording still open is flushed and closed and stays resumable;
     * after {@link #finish()} or {@link #abort()} this only releases the handle. Idempotent.
     * The writer releases the path asynchronously: to resume the recording at once in the same
     * process, do it after {@link Engine#close()} (in a new engine).
     */
    @Override
    public void close() {
        handle.close();
    }
}
