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

    Update(NativeHandle playhead) {
        this.playhead = playhead;
    }

    /** The array the next native call fills; forgets the entities of the previous update. */
    long[] refill() {
        entities = null;
        filled = false;
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
     * The id of live entity {@code i} (0 to {@link #entityCount()} - 1, sorted by id) at {@link
     * #position()}. The {@code entity...(i)} accessors read the same states as {@link #entities()}
     * without allocating (in steady state): for a plugin that reads every entity every tick.
     *
     * @throws IndexOutOfBoundsException if {@code i} is not below {@link #entityCount()}
     * @throws IllegalStateException if the playhead was closed
     */
    public int entityId(int i) {
        return (int) entityLongs[at(i)];
    }

    /** The game-defined kind of live entity {@code i} (see {@link #entityId(int)}). */
    public int entityKind(int i) {
        return (int) entityLongs[at(i) + 1];
    }

    /** The flags of live entity {@code i} (see {@link #entityId(int)}). */
    public int entityFlags(int i) {
        return (int) entityLongs[at(i) + 2];
    }

    /** The x position in blocks of live entity {@code i} (see {@link #entityId(int)}). */
    public double entityX(int i) {
        return entityLongs[at(i) + 3] / Pose.POSITION_SCALE;
    }

    /** The y position in blocks of live entity {@code i} (see {@link #entityId(int)}). */
    public double entityY(int i) {
        return entityLongs[at(i) + 4] / Pose.POSITION_SCALE;
    }

    /** The z position in blocks of live entity {@code i} (see {@link #entityId(int)}). */
    public double entityZ(int i) {
        return entityLongs[at(i) + 5] / Pose.POSITION_SCALE;
    }

    /** The yaw in degrees (unbounded) of live entity {@code i} (see {@link #entityId(int)}). */
    public double entityYaw(int i) {
        return entityLongs[at(i) + 6] * 360.0 / Pose.ANGLE_UNITS_PER_TURN;
    }

    /** The pitch in degrees of live entity {@code i} (see {@link #entityId(int)}). */
    public double entityPitch(int i) {
        return entityLongs[at(i) + 7] * 360.0 / Pose.ANGLE_UNITS_PER_TURN;
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
    public Optional<Rebuild> world() {
        long h = playhead.get();
        long[] w = NativeBridge.playheadWorld(h);
        if (w[0] == 0) {
            return Optional.empty();
        }
        Optional<byte[]> snapshot = w[1] != 0 ? Optional.of(NativeBridge.playheadWorldSnapshot(h)) : Optional.empty();
        OptionalInt snapshotTick = w[2] < 0 ? OptionalInt.empty() : OptionalInt.of((int) w[2]);
        List<DecodedTick> events = TickReader.decodeTicks(NativeBridge.playheadWorldEvents(h));
        return Optional.of(new Rebuild(snapshot, snapshotTick, events, w[3] != 0));
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
