package io.tickreel;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.UUID;
import java.util.function.Consumer;

/**
 * A finished recording opened for reading: its header, metadata, the state at any tick, and its
 * ticks. Opening reads only the header, metadata and index; chunks are read on demand.
 * Safe to use from many threads at once; closing while another thread's call is in flight is safe
 * (that call completes, later ones throw {@link IllegalStateException}).
 */
public final class Reader implements AutoCloseable {
    private final NativeHandle handle;
    private final Path path;
    private final String location;
    private volatile Map<String, Object> rawMetadata;

    private Reader(Path path, long h) {
        this(path, path.toString(), h);
    }

    private Reader(Path path, String location, long h) {
        this.path = path;
        this.location = location;
        this.handle = new NativeHandle(this, h, "Reader");
    }

    /**
     * Opens a {@code .reel} file, or a live recording's directory ({@code <name>.reel.live}: what
     * was flushed when it is opened).
     *
     * @throws TickreelException if it cannot be read or is not a valid recording
     */
    public static Reader open(Path path) {
        Objects.requireNonNull(path, "path");
        NativeLoader.ensureLoaded();
        return new Reader(path, NativeBridge.readerOpen(path.toString()));
    }

    /**
     * Opens a recording by URL ({@code s3://bucket/key}: the header, metadata and index in one
     * request when they fit in the first 256 KiB, then one request per chunk needed) or by local
     * path, with {@code options} for the store.
     *
     * @throws TickreelException if the object is missing, the store refuses (wrong credentials)
     *     or cannot be reached in time, or it is not a valid recording (the message never shows
     *     a secret)
     * @throws IllegalArgumentException for a malformed URL
     */
    public static Reader open(String location, ObjectOptions options) {
        Objects.requireNonNull(location, "location");
        Objects.requireNonNull(options, "options");
        long o = options.toNative();
        try {
            long h = NativeBridge.readerOpenUrl(location, o);
            return new Reader(location.startsWith("s3://") ? null : Path.of(location), location, h);
        } finally {
            NativeBridge.close(o);
        }
    }

    /** A reader the native side opened at {@code location} (a catalog row's). */
    static Reader opened(String location, long h) {
        return new Reader(location.startsWith("s3://") ? null : Path.of(location), location, h);
    }

    /**
     * The file this reader was opened from.
     *
     * @throws UnsupportedOperationException for a reader opened by object URL (see {@link #location()})
     */
    public Path path() {
        if (path == null) {
            throw new UnsupportedOperationException(location + " is an object URL, not a path");
        }
        return path;
    }

    /** Where this reader was opened from: the path or the object URL as given. */
    public String location() {
        return location;
    }

    /**
     * What the header says.
     *
     * @throws IllegalStateException if this reader is closed
     */
    public Header header() {
        return Header.fromNative(NativeBridge.readerInfo(handle.get()));
    }

    /**
     * The user's metadata: the root compound without the library's {@code "tickreel"} key, as
     * Java values ({@link Byte}, {@link Short}, {@link Integer}, {@link Long}, {@link Float},
     * {@link Double}, {@code byte[]}, {@link String}, {@link List}, {@link Map}, {@code int[]},
     * {@code long[]}). Unmodifiable.
     */
    public Map<String, Object> metadata() {
        Map<String, Object> user = new LinkedHashMap<>(raw());
        user.remove("tickreel");
        return Collections.unmodifiableMap(user);
    }

    /**
     * The library's own metadata compound (entities, event types, gaps, palette), as Java values.
     * The writer's counters are in {@link #header()}.
     *
     * @throws IllegalStateException if this reader is closed
     * @throws TickreelException if the metadata is not valid NBT (kind {@code METADATA})
     */
    public Map<String, Object> libraryMetadata() {
        Object lib = raw().get("tickreel");
        if (lib instanceof Map) {
            @SuppressWarnings("unchecked")
            Map<String, Object> m = (Map<String, Object>) lib;
            return m;
        }
        return Map.of();
    }

    /**
     * The name of id {@code id} of a palette (e.g. {@code "minecraft:stone"}), or {@code null} if
     * the recording does not name it.
     *
     * @throws NullPointerException if {@code kind} is null
     * @throws IllegalStateException if this reader is closed
     */
    public String paletteName(PaletteKind kind, int id) {
        Objects.requireNonNull(kind, "kind");
        return NativeBridge.readerPaletteName(handle.get(), kind.code(), id);
    }

    /**
     * The world at {@code tick} (clamped into the recording) as the library keeps it from world
     * events: the nearest snapshot's world, then every world event from there through the tick.
     * Close it when done (its lists stay readable).
     *
     * @throws IllegalStateException if this reader is closed or the recording has no ticks
     * @throws TickreelException if a chunk on the way is damaged
     */
    public WorldState worldAt(int tick) {
        return new WorldState(NativeBridge.readerWorldAt(handle.get(), tick));
    }

    /** The registered entities (who is who). */
    public List<EntityInfo> entities() {
        List<EntityInfo> out = new ArrayList<>();
        for (Map<String, Object> c : compounds("entities")) {
            UUID uuid = c.get("uuid_most") instanceof Number && c.get("uuid_least") instanceof Number
                    ? new UUID(((Number) c.get("uuid_most")).longValue(), ((Number) c.get("uuid_least")).longValue())
                    : null;
            Object name = c.get("name");
            out.add(new EntityInfo(intOf(c, "id"), intOf(c, "kind"), uuid, name instanceof String ? (String) name : null));
        }
        return Collections.unmodifiableList(out);
    }

    /** The registered custom event types. */
    public List<EventType> eventTypes() {
        List<EventType> out = new ArrayList<>();
        for (Map<String, Object> c : compounds("event_types")) {
            Object name = c.get("name");
            out.add(new EventType(intOf(c, "id"), name instanceof String ? (String) name : "", intOf(c, "version")));
        }
        return Collections.unmodifiableList(out);
    }

    /**
     * The state at {@code tick} (clamped into the recording): every live entity with its kind,
     * flags and pose. Decodes only the chunk holding the tick.
     *
     * @throws IllegalStateException if the recording has no ticks
     */
    public SeekState seek(int tick) {
        long[] a = NativeBridge.readerSeek(handle.get(), tick);
        int n = (int) a[3];
        List<EntityState> entities = new ArrayList<>(n);
        for (int i = 0, o = 4; i < n; i++, o += 8) {
            entities.add(new EntityState(
                    (int) a[o], (int) a[o + 1], (int) a[o + 2], new Pose(a[o + 3], a[o + 4], a[o + 5], a[o + 6], a[o + 7])));
        }
        return new SeekState((int) a[0], entities);
    }

    /** The recorded ticks in {@code from..to} (inclusive), in order. */
    public List<DecodedTick> ticks(int from, int to) {
        List<DecodedTick> out = new ArrayList<>();
        forEachTick(from, to, out::add);
        return out;
    }

    /**
     * Calls {@code action} for each recorded tick in {@code from..to} (inclusive), in order.
     *
     * @throws NullPointerException if {@code action} is null
     * @throws IllegalArgumentException if {@code from} is negative or {@code to} is before it
     * @throws IllegalStateException if this reader is closed
     * @throws TickreelException if a chunk cannot be read or is damaged
     */
    public void forEachTick(int from, int to, Consumer<? super DecodedTick> action) {
        Objects.requireNonNull(action, "action");
        if (from < 0 || to < from) {
            throw new IllegalArgumentException(from < 0
                    ? "from must not be negative (got " + from + ")"
                    : "tick range " + from + " to " + to + " is empty");
        }
        int next = from;
        while (true) {
            byte[] bytes = NativeBridge.readerTicks(handle.get(), next, to);
            List<DecodedTick> ticks = TickReader.decodeTicks(bytes);
            if (ticks.isEmpty()) {
                return;
            }
            for (DecodedTick t : ticks) {
                action.accept(t);
            }
            int last = ticks.get(ticks.size() - 1).tick();
            if (last >= to) {
                return;
            }
            next = last + 1;
        }
    }

    /**
     * Reads, checks and decodes every chunk.
     *
     * @throws TickreelException describing the first damaged chunk
     */
    public VerifyReport verify() {
        long[] a = NativeBridge.readerVerify(handle.get());
        return new VerifyReport(a[0], a[1], a[2], a[3]);
    }

    /** Releases the recording. Idempotent. */
    @Override
    public void close() {
        handle.close();
    }

    private Map<String, Object> raw() {
        long h = handle.get();
        Map<String, Object> m = rawMetadata;
        if (m == null) {
            m = Nbt.readRoot(NativeBridge.readerMetadata(h));
            rawMetadata = m;
        }
        return m;
    }

    private List<Map<String, Object>> compounds(String key) {
        Object list = libraryMetadata().get(key);
        List<Map<String, Object>> out = new ArrayList<>();
        if (list instanceof List) {
            for (Object o : (List<?>) list) {
                if (o instanceof Map) {
                    @SuppressWarnings("unchecked")
                    Map<String, Object> c = (Map<String, Object>) o;
                    out.add(c);
                }
            }
        }
        return out;
    }

    private static int intOf(Map<String, Object> c, String key) {
        Object v = c.get(key);
        return v instanceof Number ? ((Number) v).intValue() : 0;
    }
}
