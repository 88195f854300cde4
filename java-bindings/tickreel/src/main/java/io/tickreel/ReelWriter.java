package io.tickreel;

import java.lang.ref.Reference;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.Map;
import java.util.Objects;

/**
 * Writes a finished {@code .reel} file from ticks submitted in order, on the calling thread:
 * encoding and compression happen inside {@link #writeTick}, and the file appears atomically on
 * {@link #finish()}. Suited to tools, tests and offline conversion; a live server records through
 * the background write path instead.
 *
 * <pre>{@code
 * try (ReelWriter w = ReelWriter.create(path, ReelOptions.defaults())) {
 *     Batch t = new Batch();
 *     w.writeTick(0, t.clear().entityAdd(1, 0, 0.5, 64, 0.5, 90, 0));
 *     w.writeTick(1, t.clear().pose(1, 0.6, 64, 0.5, 91, 0));
 *     w.finish();
 * }
 * }</pre>
 *
 * <p>Closing without {@link #finish()} discards the recording. Safe to share between threads
 * (calls are serialised), though ticks must still arrive in increasing order.
 */
public final class ReelWriter implements AutoCloseable {
    private final NativeHandle handle;
    private final Path path;

    private ReelWriter(Path path, long h) {
        this.path = path;
        this.handle = new NativeHandle(this, h, "ReelWriter");
    }

    /**
     * Starts a recording to be written to {@code path} on {@link #finish()}.
     *
     * @throws TickreelException if the native library cannot be loaded or the dictionary is unknown
     */
    public static ReelWriter create(Path path, ReelOptions options) {
        Objects.requireNonNull(path, "path");
        Objects.requireNonNull(options, "options");
        NativeLoader.ensureLoaded();
        long o = options.toNative();
        try {
            return new ReelWriter(path, NativeBridge.reelWriterCreate(path.toString(), o));
        } finally {
            NativeBridge.close(o);
        }
    }

    /** Where the file is written. */
    public Path path() {
        return path;
    }

    /**
     * Appends one tick (ticks strictly increasing; empty ticks may be skipped).
     *
     * @param tick the tick number, not negative
     * @param events the tick's events; may be cleared and reused once this returns
     * @throws IllegalArgumentException for a tick not after the previous one
     */
    public void writeTick(int tick, Batch events) {
        Objects.requireNonNull(events, "events");
        long h = handle.get();
        ByteBuffer buf = events.sealDirect();
        long pinned = events.pinned(buf);
        try {
            if (pinned != 0) {
                NativeBridge.reelWriterTickPinned(h, tick, pinned, 0, events.size());
            } else {
                NativeBridge.reelWriterTick(h, tick, buf, 0, events.size());
            }
        } finally {
            // The batch's cleaner closes its pin: not before the native call has read it.
            Reference.reachabilityFence(events);
        }
    }

    /**
     * Appends one tick already in the tick batch encoding: the bytes between the buffer's position
     * and limit. The buffer must be direct and must not change during the call.
     *
     * @throws IllegalArgumentException for a heap buffer or a malformed batch
     */
    public void writeTick(int tick, ByteBuffer batch) {
        Objects.requireNonNull(batch, "batch");
        long h = handle.get();
        if (!batch.isDirect()) {
            throw new IllegalArgumentException("the batch must be a direct ByteBuffer");
        }
        NativeBridge.reelWriterTick(h, tick, batch, batch.position(), batch.remaining());
    }

    /**
     * Supplies snapshot bytes (the game's blocks and entities); the next tick starts a chunk with them.
     *
     * @throws NullPointerException if {@code snapshot} is null
     * @throws IllegalStateException if this writer is closed or finished
     */
    public void offerSnapshot(byte[] snapshot) {
        Objects.requireNonNull(snapshot, "snapshot");
        NativeBridge.reelWriterSnapshot(handle.get(), snapshot);
    }

    /**
     * Supplies terrain: the blocks of an area as chunk sections in Minecraft's layout ({@link
     * TerrainSection}; copied). The next tick starts a chunk carrying it, stored once, compressed;
     * readers return it with the world from that tick on, a later offer's section replacing an
     * earlier one at the same position (see {@link Recorder#offerTerrain}).
     *
     * @throws NullPointerException if {@code sections} or one of them is null
     * @throws IllegalArgumentException (nothing kept) for an invalid section, a section position
     *     twice, or more than 16,384 sections
     * @throws TickreelException for terrain whose coded form would exceed 16 MiB (kind {@code
     *     LIMIT_EXCEEDED})
     * @throws IllegalStateException if this writer is closed or finished
     */
    public void offerTerrain(java.util.Collection<TerrainSection> sections) {
        long[] terrain = TerrainSection.toNative(sections);
        NativeBridge.reelWriterTerrain(handle.get(), terrain);
    }

    /**
     * Records who an entity is (replaces an earlier registration of the same id).
     *
     * @throws NullPointerException if {@code entity} is null
     * @throws IllegalStateException if this writer is closed or finished
     */
    public void registerEntity(EntityInfo entity) {
        Objects.requireNonNull(entity, "entity");
        NativeBridge.reelWriterRegisterEntity(
                handle.get(), entity.id(), entity.kind(), entity.uuidLongs(), entity.name());
    }

    /**
     * Registers a custom event type (replaces an earlier registration of the same id).
     *
     * @throws NullPointerException if {@code type} is null
     * @throws IllegalArgumentException if the type's id is not an extension kind
     * @throws IllegalStateException if this writer is closed or finished
     */
    public void registerEventType(EventType type) {
        Objects.requireNonNull(type, "type");
        NativeBridge.reelWriterRegisterEventType(handle.get(), type.id(), type.name(), type.version());
    }

    /**
     * Names id {@code id} of a palette, e.g. block state 1 as {@code "minecraft:stone"}, so that
     * the recording explains its world events across game versions. The same name again does
     * nothing.
     *
     * @throws NullPointerException if {@code kind} or {@code name} is null
     * @throws IllegalArgumentException if the name is empty, over 256 bytes, or the id is named
     *     otherwise already
     * @throws IllegalStateException if this writer is closed or finished
     */
    public void registerName(PaletteKind kind, int id, String name) {
        Objects.requireNonNull(kind, "kind");
        Objects.requireNonNull(name, "name");
        NativeBridge.reelWriterRegisterName(handle.get(), kind.code(), id, name);
    }

    /**
     * Sets one user metadata key (NBT-friendly values: numbers, strings, arrays, lists, maps,
     * UUIDs; see {@link Reader#metadata()}). The key {@code "tickreel"} is reserved.
     *
     * @throws NullPointerException if {@code key} or {@code value} is null
     * @throws IllegalArgumentException if {@code key} is reserved or {@code value} has no NBT form
     * @throws IllegalStateException if this writer is closed or finished
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
        byte[] nbt = Nbt.writeRoot(entries);
        NativeBridge.reelWriterSetUserMetadata(handle.get(), nbt);
    }

    /**
     * Writes the file (temporary file, fsync, atomic rename) and returns its size in bytes.
     * The writer cannot be used afterwards except to {@link #close()} it.
     *
     * @throws IllegalStateException if this writer is closed or already finished
     * @throws TickreelException if the file cannot be written (kind {@code IO}, with a {@code java.nio.file} cause)
     */
    public long finish() {
        return NativeBridge.reelWriterFinish(handle.get());
    }

    /** Releases the writer; discards the recording if it was not finished. Idempotent. */
    @Override
    public void close() {
        handle.close();
    }
}
