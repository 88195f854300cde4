package io.tickreel;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Optional;
import java.util.OptionalInt;

/**
 * What one {@link Playhead} call did: the position before and after, how it moved, and every live
 * entity at the new position. A playhead returns the same object from every call, refilled in
 * place, so a plugin that reads it each tick allocates nothing until it asks for {@link
 * #entities()} (read from the playhead then: ask before its next call). Copy what you need before
 * the next call on the same playhead.
 */
public final class Update {
    /** How the position moved in one update. */
    public enum Motion {
        /** The position did not change (paused, at an edge, or stalled with nothing ready). */
        STILL,
        /** Forward play: the recorded ticks after {@link #from()} up to {@link #position()} happened in order. */
        FORWARD,
        /** Any other move (reverse play, seek, step back, a skipped unreadable chunk): apply {@link #entities()}. */
        JUMP
    }

    private static final int HEADER = 9;
    private static final int ENTITY_LONGS = 8;
    private static final Motion[] MOTIONS = Motion.values();
    /** Longs per world change (layout: native/bridge/jni/world_state.rs). */
    private static final int WORLD_CHANGE_LONGS = 10;
    private static final WorldChange.Kind[] WORLD_CHANGE_KINDS = WorldChange.Kind.values();

    /** The header the native calls fill (layout: native/bridge/jni/playhead.rs). Reused. */
    private final long[] raw = new long[HEADER];
    /** The entities' longs, filled on demand by {@link #entities()}; grown, then reused. */
    private long[] entityLongs = new long[0];
    private final NativeHandle playhead;
    private List<EntityState> entities;
    /** Whether {@link #entityLongs} holds this update's entities (filled by {@link #fill()}). */
    private boolean filled;
    /** How many entities {@link #fill()} read. */
    private int filledCount;
    /** The world changes' longs, filled on demand by {@link #fillWorld()}; grown, then reused. */
    private long[] worldLongs = new long[0];
    /** Whether {@link #worldLongs} holds this update's world changes. */
    private boolean worldFilled;
    /** How many world changes {@link #fillWorld()} read. */
    private int worldCount;

    Update(NativeHandle playhead) {
        this.playhead = playhead;
    }

    /** The array the next native call fills; forgets the entities of the previous update. */
    long[] refill() {
        entities = null;
        filled = false;
        worldFilled = false;
        return raw;
    }

    /** The position before the call. */
    public int from() {
        return (int) raw[0];
    }

    /** The position after the call. */
    public int position() {
        return (int) raw[1];
    }

    /** How the position moved. */
    public Motion motion() {
        int m = (int) raw[2];
        return m >= 0 && m < MOTIONS.length ? MOTIONS[m] : Motion.STILL;
    }

    /** Whether play was running backward at the time of the call. */
    public boolean reverse() {
        return raw[3] != 0;
    }

    /**
     * The data for the next ticks was not decoded yet: the position moved less than asked (maybe
     * not at all). The playhead catches up on later calls.
     */
    public boolean stalled() {
        return raw[4] != 0;
    }

    /**
     * The position is the last tick (playing forward) or the first (backward): further
     * {@link Playhead#advance()} calls stay still until the direction changes.
     */
    public boolean atEdge() {
        return raw[5] != 0;
    }

    /** The recording has no tick yet (a live recording before its first flush): no position, no entity. */
    public boolean waiting() {
        return raw[6] != 0;
    }

    /** Chunks that could not be read or decoded during this call (they were skipped). */
    public int faultCount() {
        return (int) raw[7];
    }

    /** Number of live entities at {@link #position()}. */
    public int entityCount() {
        return (int) raw[8];
    }

    /**
     * Every live entity at {@link #position()}, sorted by id, with kind, flags and pose (the same
     * states {@link Reader#seek(int)} returns for that tick). Read from the playhead and built on
     * first use, then cached until the next call on the playhead; call it before that call.
     *
     * @throws IllegalStateException if the playhead was closed
     */
    public List<EntityState> entities() {
        List<EntityState> e = entities;
        if (e == null) {
            int n = fill(); // first: it may replace the array
            e = states(entityLongs, n);
            entities = e;
        }
        return e;
    }

    /**
     * Reads the entities' longs from the playhead once per update into the reused array (grown
     * only when more entities than ever before are live): no allocation in steady state.
     *
     * @return the number of entities
     */
    private int fill() {
        if (!filled) {
            long h = playhead.get();
            int n;
            while ((long) (n = NativeBridge.playheadEntities(h, entityLongs)) * ENTITY_LONGS > entityLongs.length) {
                entityLongs = new long[n * ENTITY_LONGS]; // filled only when it fits: grow and ask again
            }
            filledCount = n;
            filled = true;
        }
        return filledCount;
    }

    /** Offset of entity {@code i}'s longs, reading them first if needed. */
    private int at(int i) {
        int n = fill();
        java.util.Objects.checkIndex(i, n);
        return i * ENTITY_LONGS;
    }

    /**
     * Long {@code field} of entity {@code i}. The offset first: reading it may replace the array,
     * and {@code entityLongs[at(i)]} would index the array as it was before (Java evaluates the
     * array reference before the index), so the first call after the array grew failed.
     */
    private long entityLong(int i, int field) {
        int offset = at(i);
        return entityLongs[offset + field];
    }

    /**
     * The id of live entity {@code i} (0 to {@link #entityCount()} - 1, sorted by id) at {@link
     * #position()}. The {@code entity...(i)} accessors read the same states as {@link #entities()}
     * without allocating (in steady state): for a plugin that reads every entity every tick.
     *
     * @throws IndexOutOfBoundsException if {@code i} is not below {@link #entityCount()}
     * @throws IllegalStateException if the playhead was closed
     */
    public int entityId(int i) {
        return (int) entityLong(i, 0);
    }

    /** The game-defined kind of live entity {@code i} (see {@link #entityId(int)}). */
    public int entityKind(int i) {
        return (int) entityLong(i, 1);
    }

    /** The flags of live entity {@code i} (see {@link #entityId(int)}). */
    public int entityFlags(int i) {
        return (int) entityLong(i, 2);
    }

    /** The x position in blocks of live entity {@code i} (see {@link #entityId(int)}). */
    public double entityX(int i) {
        return entityLong(i, 3) / Pose.POSITION_SCALE;
    }

    /** The y position in blocks of live entity {@code i} (see {@link #entityId(int)}). */
    public double entityY(int i) {
        return entityLong(i, 4) / Pose.POSITION_SCALE;
    }

    /** The z position in blocks of live entity {@code i} (see {@link #entityId(int)}). */
    public double entityZ(int i) {
        return entityLong(i, 5) / Pose.POSITION_SCALE;
    }

    /** The yaw in degrees (unbounded) of live entity {@code i} (see {@link #entityId(int)}). */
    public double entityYaw(int i) {
        return entityLong(i, 6) * 360.0 / Pose.ANGLE_UNITS_PER_TURN;
    }

    /** The pitch in degrees of live entity {@code i} (see {@link #entityId(int)}). */
    public double entityPitch(int i) {
        return entityLong(i, 7) * 360.0 / Pose.ANGLE_UNITS_PER_TURN;
    }

    /**
     * {@link Motion#FORWARD FORWARD} updates: the recorded ticks covered, in order, each with its
     * events (pose changes first, then the others as recorded: world events such as
     * {@link Event.BlockChange}, {@link Event.Attack} and {@link Event.Chat} among them); empty
     * for other motions. Read
     * from the playhead when called (allocates): call it before the playhead's next call.
     *
     * @throws IllegalStateException if the playhead was closed
     */
    public List<DecodedTick> ticks() {
        return TickReader.decodeTicks(NativeBridge.playheadTicks(playhead.get()));
    }

    /**
     * {@link Motion#JUMP JUMP} updates: the entities that disappeared (despawn them), by id. Read
     * from the playhead when called.
     *
     * @throws IllegalStateException if the playhead was closed
     */
    public int[] removed() {
        long[] ids = NativeBridge.playheadRemoved(playhead.get());
        int[] out = new int[ids.length];
        for (int i = 0; i < ids.length; i++) {
            out[i] = (int) ids[i];
        }
        return out;
    }

    /**
     * {@link Motion#JUMP JUMP} updates: the entities that appeared (spawn them), sorted by id. Read
     * from the playhead when called.
     *
     * @throws IllegalStateException if the playhead was closed
     */
    public List<EntityState> added() {
        long[] a = NativeBridge.playheadAdded(playhead.get());
        return states(a, a.length / ENTITY_LONGS);
    }

    /**
     * What a {@link Motion#JUMP JUMP} does to the world (the custom events: blocks, ...): a rebuild
     * to apply (restore its snapshot, then re-apply its events in order), or empty to keep the
     * world as it is. Read from the playhead when called.
     *
     * @throws IllegalStateException if the playhead was closed
     */
    public Optional<Rebuild> rebuild() {
        long h = playhead.get();
        long[] w = NativeBridge.playheadRebuild(h);
        if (w[0] == 0) {
            return Optional.empty();
        }
        Optional<byte[]> snapshot = w[1] != 0 ? Optional.of(NativeBridge.playheadRebuildSnapshot(h)) : Optional.empty();
        OptionalInt snapshotTick = w[2] < 0 ? OptionalInt.empty() : OptionalInt.of((int) w[2]);
        List<DecodedTick> events = TickReader.decodeTicks(NativeBridge.playheadRebuildEvents(h));
        return Optional.of(new Rebuild(snapshot, snapshotTick, events, w[3] != 0));
    }

    /**
     * Reads the world changes' longs from the playhead once per update into the reused array
     * (grown only when an update has more changes than any before): no allocation in steady state.
     */
    private int fillWorld() {
        if (!worldFilled) {
            long h = playhead.get();
            int n;
            while ((long) (n = NativeBridge.playheadWorldChanges(h, worldLongs)) * WORLD_CHANGE_LONGS > worldLongs.length) {
                worldLongs = new long[n * WORLD_CHANGE_LONGS]; // filled only when it fits: grow and ask again
            }
            worldCount = n;
            worldFilled = true;
        }
        return worldCount;
    }

    private int worldAt(int i) {
        int n = fillWorld();
        java.util.Objects.checkIndex(i, n);
        return i * WORLD_CHANGE_LONGS;
    }

    /** Long {@code field} of world change {@code i}, the offset first (see {@link #entityLong}). */
    private long worldLong(int i, int field) {
        int offset = worldAt(i);
        return worldLongs[offset + field];
    }

    /**
     * How many changes of the world the library keeps ({@link Playhead#worldState()}: edited
     * blocks, health, equipment) this update made, whatever the motion (forward play, reverse
     * play, a seek). Applying them in order takes a world that was as at {@link #from()} to
     * {@link #position()}. Read from the playhead on first use (then kept until its next call):
     * call it before that call. The {@code worldChange...(i)} accessors read them without
     * allocating (in steady state).
     *
     * @throws IllegalStateException if the playhead was closed
     */
    public int worldChangeCount() {
        return fillWorld();
    }

    /**
     * What world change {@code i} (0 to {@link #worldChangeCount()} - 1) is about.
     *
     * @throws IndexOutOfBoundsException if {@code i} is not below {@link #worldChangeCount()}
     * @throws IllegalStateException if the playhead was closed
     */
    public WorldChange.Kind worldChangeKind(int i) {
        return WORLD_CHANGE_KINDS[(int) worldLong(i, 0)];
    }

    /** The block x of world change {@code i} ({@link WorldChange.Kind#BLOCK BLOCK}; otherwise 0). */
    public int worldChangeX(int i) {
        return (int) worldLong(i, 1);
    }

    /** The block y of world change {@code i} ({@link WorldChange.Kind#BLOCK BLOCK}; otherwise 0). */
    public int worldChangeY(int i) {
        return (int) worldLong(i, 2);
    }

    /** The block z of world change {@code i} ({@link WorldChange.Kind#BLOCK BLOCK}; otherwise 0). */
    public int worldChangeZ(int i) {
        return (int) worldLong(i, 3);
    }

    /** The entity of world change {@code i} ({@link WorldChange.Kind#HEALTH HEALTH}, {@link WorldChange.Kind#EQUIPMENT EQUIPMENT}). */
    public int worldChangeEntity(int i) {
        return (int) worldLong(i, 4);
    }

    /** The equipment slot of world change {@code i} ({@link WorldChange.Kind#EQUIPMENT EQUIPMENT}). */
    public int worldChangeSlot(int i) {
        return (int) worldLong(i, 5);
    }

    /**
     * What world change {@code i} had before: the block state, the health or the item (unsigned
     * 32-bit), or -1 for a block not edited, no health, an empty slot.
     */
    public long worldChangeBefore(int i) {
        return worldLong(i, 6);
    }

    /** The item count before of world change {@code i} ({@link WorldChange.Kind#EQUIPMENT EQUIPMENT}; 0 if empty). */
    public int worldChangeBeforeCount(int i) {
        return (int) worldLong(i, 7);
    }

    /**
     * What world change {@code i} has now: the block state, the health or the item (unsigned
     * 32-bit), or -1 for a block no longer edited (restore the world's own), no health, an empty
     * slot.
     */
    public long worldChangeAfter(int i) {
        return worldLong(i, 8);
    }

    /** The item count now of world change {@code i} ({@link WorldChange.Kind#EQUIPMENT EQUIPMENT}; 0 if empty). */
    public int worldChangeAfterCount(int i) {
        return (int) worldLong(i, 9);
    }

    /**
     * The world changes of this update as records (see {@link #worldChangeCount()}; allocates).
     *
     * @throws IllegalStateException if the playhead was closed
     */
    public List<WorldChange> worldChanges() {
        int n = fillWorld();
        List<WorldChange> out = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
            long before = worldChangeBefore(i);
            long after = worldChangeAfter(i);
            out.add(switch (worldChangeKind(i)) {
                case BLOCK -> new WorldChange.Block(worldChangeX(i), worldChangeY(i), worldChangeZ(i), opt(before), opt(after));
                case HEALTH -> new WorldChange.Health(worldChangeEntity(i), opt(before), opt(after));
                case EQUIPMENT -> new WorldChange.Equipment(worldChangeEntity(i), worldChangeSlot(i),
                        before < 0 ? 0 : (int) before, worldChangeBeforeCount(i),
                        after < 0 ? 0 : (int) after, worldChangeAfterCount(i));
            });
        }
        return Collections.unmodifiableList(out);
    }

    private static OptionalInt opt(long v) {
        return v < 0 ? OptionalInt.empty() : OptionalInt.of((int) v);
    }

    private static List<EntityState> states(long[] a, int n) {
        List<EntityState> out = new ArrayList<>(n);
        for (int i = 0, o = 0; i < n; i++, o += ENTITY_LONGS) {
            out.add(new EntityState(
                    (int) a[o], (int) a[o + 1], (int) a[o + 2], new Pose(a[o + 3], a[o + 4], a[o + 5], a[o + 6], a[o + 7])));
        }
        return Collections.unmodifiableList(out);
    }

    @Override
    public String toString() {
        return "Update[" + from() + " -> " + position() + ", " + motion()
                + (stalled() ? ", stalled" : "") + (atEdge() ? ", at edge" : "") + (waiting() ? ", waiting" : "")
                + ", faults=" + faultCount() + ", entities=" + entityCount() + "]";
    }
}
