package io.tickreel;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.Arrays;
import java.util.Objects;

/**
 * Encodes one tick's events in pure Java, so that recording a tick costs one native call per
 * recording however many events it has. Reuse one writer per recording (or per thread): call
 * {@link #clear()}, add the tick's events, then submit it, e.g. with
 * {@link ReelWriter#writeTick(int, Batch)}. In steady state it allocates nothing.
 *
 * <p>The encoding is tickreel's tick batch: a big-endian {@code u16} event count, then each event
 * as a kind byte and a body of unsigned LEB128 varints (signed values zigzag-coded). Positions are
 * quantised to 1/4096 block and angles to 1/65536 turn exactly as {@link Pose#of}; velocities to
 * 1/8000 block per tick. A non-finite value or one beyond the format's range is refused with
 * an {@link IllegalArgumentException} from the library's one check (as in C and Rust). Entity ids, kinds, flags and indices are unsigned 32-bit values carried
 * in {@code int}s.
 *
 * <p>A call that throws leaves the events added before it intact. Not thread-safe: one thread
 * fills and submits a writer at a time.
 */
public final class Batch {
    /** Most events in one tick (the count is a u16). */
    public static final int MAX_EVENTS = 0xFFFF;
    /** Largest custom event payload in bytes. */
    public static final int MAX_CUSTOM_BYTES = 1 << 20;

    static final int ENTITY_ADD = 0x01;
    static final int ENTITY_REMOVE = 0x02;
    static final int POSE = 0x03;
    static final int POSITION = 0x04;
    static final int ROTATION = 0x05;
    static final int TELEPORT = 0x06;
    static final int FLAGS = 0x07;
    static final int CHECKPOINT = 0x08;
    static final int VELOCITY = 0x09;
    static final int PLAYER_LEAVE = 0x0A;
    static final int EXTENSION_FIRST = 0x40;
    static final int EXTENSION_LAST = 0x7F;
    static final int CUSTOM = 0x80;

    /** Largest fixed-size event: kind + 2 varint32 + 5 varint64. */
    private static final int MAX_FIXED_EVENT = 1 + 2 * 5 + 5 * 10;

    private byte[] bytes;
    private int pos;
    private int count;
    private ByteBuffer direct;
    /**
     * The pin of {@code direct} ({@link NativeBridge#pinDirect}), through which the native call
     * reads it without calling back into the JVM; made at its second submission, so that a batch
     * submitted once costs no pin. Closed when the buffer is replaced, or by a cleaner with this
     * batch.
     */
    private NativeHandle pin;
    /** Submissions of {@code direct} so far (while it has no pin). */
    private int submissions;
    /** Quantised values of the event being added, checked before any byte is written. */
    private final long[] q = new long[5];

    /** A writer with room for about a hundred players' movement before it grows. */
    public Batch() {
        this(4096);
    }

    /**
     * A writer with an initial capacity in bytes (it grows as needed).
     *
     * @param initialCapacity bytes to reserve, at least 2
     * @throws IllegalArgumentException if {@code initialCapacity} is less than 2
     */
    public Batch(int initialCapacity) {
        if (initialCapacity < 2) {
            throw new IllegalArgumentException("capacity must be at least 2 bytes, got " + initialCapacity);
        }
        bytes = new byte[initialCapacity];
        direct = ByteBuffer.allocateDirect(initialCapacity).order(ByteOrder.BIG_ENDIAN);
        pos = 2;
    }

    /** Starts a new tick: forgets the events added so far. */
    public Batch clear() {
        pos = 2;
        count = 0;
        return this;
    }

    /** Events added since the last {@link #clear()}. */
    public int eventCount() {
        return count;
    }

    /** Encoded size in bytes, count included. */
    public int size() {
        return pos;
    }

    /** An entity appears with a kind and a pose given in blocks and degrees. */
    public Batch addEntity(int entity, int kind, double x, double y, double z, double yaw, double pitch) {
        quantise(x, y, z);
        quantiseAngles(yaw, pitch);
        begin(ENTITY_ADD, entity);
        u32(kind);
        scratch(5);
        return this;
    }

    /**
     * An entity appears with a kind and a quantised pose.
     *
     * @throws NullPointerException if {@code pose} is null
     * @throws IllegalStateException if the batch already holds {@link #MAX_EVENTS} events
     */
    public Batch addEntity(int entity, int kind, Pose pose) {
        Objects.requireNonNull(pose, "pose");
        begin(ENTITY_ADD, entity);
        u32(kind);
        pose(pose);
        return this;
    }

    /** An entity disappears. */
    public Batch removeEntity(int entity) {
        begin(ENTITY_REMOVE, entity);
        return this;
    }

    /** An entity's absolute pose in blocks and degrees (yaw unbounded). */
    public Batch addPose(int entity, double x, double y, double z, double yaw, double pitch) {
        quantise(x, y, z);
        quantiseAngles(yaw, pitch);
        begin(POSE, entity);
        scratch(5);
        return this;
    }

    /**
     * An entity's absolute quantised pose.
     *
     * @throws NullPointerException if {@code pose} is null
     * @throws IllegalStateException if the batch already holds {@link #MAX_EVENTS} events
     */
    public Batch addPose(int entity, Pose pose) {
        Objects.requireNonNull(pose, "pose");
        begin(POSE, entity);
        pose(pose);
        return this;
    }

    /** An entity's position in blocks (rotation unchanged). */
    public Batch addPosition(int entity, double x, double y, double z) {
        quantise(x, y, z);
        begin(POSITION, entity);
        scratch(3);
        return this;
    }

    /** An entity's rotation in degrees (position unchanged). */
    public Batch addRotation(int entity, double yaw, double pitch) {
        quantiseAngles(yaw, pitch);
        begin(ROTATION, entity);
        s64(q[3]);
        s64(q[4]);
        return this;
    }

    /** A discontinuity: the entity jumped to this pose (ghosts never interpolate across it). */
    public Batch teleport(int entity, double x, double y, double z, double yaw, double pitch) {
        quantise(x, y, z);
        quantiseAngles(yaw, pitch);
        begin(TELEPORT, entity);
        scratch(5);
        return this;
    }

    /**
     * A discontinuity to a quantised pose.
     *
     * @throws NullPointerException if {@code pose} is null
     * @throws IllegalStateException if the batch already holds {@link #MAX_EVENTS} events
     */
    public Batch teleport(int entity, Pose pose) {
        Objects.requireNonNull(pose, "pose");
        begin(TELEPORT, entity);
        pose(pose);
        return this;
    }

    /** The entity's full flags value (see {@link EntityFlags}; other bits are the game's). */
    public Batch flags(int entity, int flags) {
        begin(FLAGS, entity);
        u32(flags);
        return this;
    }

    /**
     * The entity reached checkpoint {@code index} (a split for ghosts).
     *
     * @throws IllegalStateException if the batch already holds {@link #MAX_EVENTS} events
     */
    public Batch checkpoint(int entity, int index) {
        begin(CHECKPOINT, entity);
        u32(index);
        return this;
    }

    /** The entity's velocity in blocks per tick (e.g. knockback). */
    public Batch velocity(int entity, double vx, double vy, double vz) {
        q[0] = Pose.quantiseVelocity("vx", vx);
        q[1] = Pose.quantiseVelocity("vy", vy);
        q[2] = Pose.quantiseVelocity("vz", vz);
        begin(VELOCITY, entity);
        scratch(3);
        return this;
    }

    /** A player left: removes the entity (and flushes a live recording). */
    public Batch playerLeave(int entity) {
        begin(PLAYER_LEAVE, entity);
        return this;
    }

    /**
     * A game-specific event of a registered type with opaque bytes.
     *
     * @throws NullPointerException if {@code data} is null
     * @throws IllegalArgumentException if {@code data} is longer than {@link #MAX_CUSTOM_BYTES}
     */
    public Batch custom(int typeId, byte[] data) {
        Objects.requireNonNull(data, "data");
        return custom(typeId, data, 0, data.length);
    }

    /**
     * A game-specific event of a registered type with {@code length} bytes of {@code data}.
     *
     * @throws NullPointerException if {@code data} is null
     * @throws IndexOutOfBoundsException if {@code offset} and {@code length} do not fit {@code data}
     * @throws IllegalArgumentException if {@code length} is over {@link #MAX_CUSTOM_BYTES}
     */
    public Batch custom(int typeId, byte[] data, int offset, int length) {
        Objects.requireNonNull(data, "data");
        Objects.checkFromIndexSize(offset, length, data.length);
        if (length > MAX_CUSTOM_BYTES) {
            throw new IllegalArgumentException(
                    "custom event of " + length + " bytes; at most " + MAX_CUSTOM_BYTES);
        }
        begin(CUSTOM, typeId);
        u32(length);
        ensure(length);
        System.arraycopy(data, offset, bytes, pos, length);
        pos += length;
        return this;
    }

    /** The encoded tick as a new array (for tests and tools; submitting does not copy). */
    public byte[] toByteArray() {
        seal();
        return Arrays.copyOf(bytes, pos);
    }

    /**
     * Writes the count and copies the encoding into the reusable direct buffer.
     *
     * @return the direct buffer holding {@link #size()} bytes from position 0
     */
    ByteBuffer sealDirect() {
        seal();
        if (direct.capacity() < pos) {
            if (pin != null) {
                pin.close();
                pin = null;
            }
            submissions = 0;
            direct = ByteBuffer.allocateDirect(bytes.length).order(ByteOrder.BIG_ENDIAN);
        }
        direct.put(0, bytes, 0, pos);
        return direct;
    }

    /**
     * The handle of the pinned direct buffer {@link #sealDirect()} filled, for the {@code ...Pinned}
     * native methods; 0 when it is not pinned (its first submission: use the buffer itself).
     *
     * @param sealed the buffer {@link #sealDirect()} returned for this submission
     */
    long pinned(ByteBuffer sealed) {
        if (pin == null) {
            if (++submissions < 2) {
                return 0;
            }
            // The buffer just filled (not the field, which another thread misusing this batch
            // may have replaced since).
            pin = new NativeHandle(this, NativeBridge.pinDirect(sealed), "pinned buffer");
        }
        return pin.get();
    }

    private void seal() {
        bytes[0] = (byte) (count >>> 8);
        bytes[1] = (byte) count;
    }

    private void begin(int kind, int entity) {
        if (count == MAX_EVENTS) {
            throw new IllegalStateException("a tick holds at most " + MAX_EVENTS + " events");
        }
        ensure(MAX_FIXED_EVENT);
        count++;
        bytes[pos++] = (byte) kind;
        u32(entity);
    }

    private void ensure(int more) {
        if (bytes.length - pos < more) {
            int want = Math.max(bytes.length * 2, pos + more);
            bytes = Arrays.copyOf(bytes, want);
        }
    }

    /** Quantises a position into {@code q[0..3]}; throws before anything is written. */
    private void quantise(double x, double y, double z) {
        q[0] = Pose.quantisePosition("x", x);
        q[1] = Pose.quantisePosition("y", y);
        q[2] = Pose.quantisePosition("z", z);
    }

    /** Quantises angles into {@code q[3..5]}; throws before anything is written. */
    private void quantiseAngles(double yaw, double pitch) {
        q[3] = Pose.quantiseAngle("yaw", yaw);
        q[4] = Pose.quantiseAngle("pitch", pitch);
    }

    /** Writes {@code q[0..n]}. */
    private void scratch(int n) {
        for (int i = 0; i < n; i++) {
            s64(q[i]);
        }
    }

    private void pose(Pose p) {
        s64(p.rawX());
        s64(p.rawY());
        s64(p.rawZ());
        s64(p.rawYaw());
        s64(p.rawPitch());
    }

    private void u32(int v) {
        long u = v & 0xFFFF_FFFFL;
        while (u >= 0x80) {
            bytes[pos++] = (byte) (u | 0x80);
            u >>>= 7;
        }
        bytes[pos++] = (byte) u;
    }

    private void s64(long v) {
        long u = (v << 1) ^ (v >> 63);
        while ((u & ~0x7FL) != 0) {
            bytes[pos++] = (byte) (u | 0x80);
            u >>>= 7;
        }
        bytes[pos++] = (byte) u;
    }
}
