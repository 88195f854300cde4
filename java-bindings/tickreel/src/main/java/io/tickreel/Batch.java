package io.tickreel;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.Objects;
import java.util.OptionalInt;

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
    static final int BLOCK_CHANGE = 0x40;
    static final int BLOCK_CHANGES = 0x41;
    static final int SWING = 0x42;
    static final int ATTACK = 0x43;
    static final int USE = 0x44;
    static final int DAMAGE = 0x45;
    static final int HEALTH = 0x46;
    static final int EQUIPMENT = 0x47;
    static final int CHAT = 0x48;
    static final int CUSTOM_AT = 0x49;
    static final int EXTENSION_LAST = 0x7F;
    static final int CUSTOM = 0x80;

    /** Largest block-entity NBT of one block change, in bytes. */
    public static final int MAX_BLOCK_ENTITY_BYTES = 64 << 10;
    /** Largest chat text, in bytes of UTF-8. */
    public static final int MAX_CHAT_BYTES = 4 << 10;
    /** Most blocks in one multi-block change. */
    public static final int MAX_BLOCKS_PER_CHANGE = 32_768;
    /** The main hand ({@link #swing}, {@link #use}). */
    public static final int HAND_MAIN = 0;
    /** The off hand. */
    public static final int HAND_OFF = 1;
    /** Equipment slots (the order of Minecraft's {@code EquipmentSlot}); up to 255 are the game's own. */
    public static final int SLOT_MAIN_HAND = 0;
    /** Equipment slot: off hand. */
    public static final int SLOT_OFF_HAND = 1;
    /** Equipment slot: feet. */
    public static final int SLOT_FEET = 2;
    /** Equipment slot: legs. */
    public static final int SLOT_LEGS = 3;
    /** Equipment slot: chest. */
    public static final int SLOT_CHEST = 4;
    /** Equipment slot: head. */
    public static final int SLOT_HEAD = 5;
    /** Equipment slot: body. */
    public static final int SLOT_BODY = 6;
    /** Chat channel: public chat everyone sees (above {@link #CHANNEL_SYSTEM}: the game's own, kept private). */
    public static final int CHANNEL_PUBLIC = 0;
    /** Chat channel: to one player or a few. */
    public static final int CHANNEL_PRIVATE = 1;
    /** Chat channel: a team's chat. */
    public static final int CHANNEL_TEAM = 2;
    /** Chat channel: the server's messages. */
    public static final int CHANNEL_SYSTEM = 3;

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
    public Batch entityAdd(int entity, int kind, double x, double y, double z, double yaw, double pitch) {
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
    public Batch entityAdd(int entity, int kind, Pose pose) {
        Objects.requireNonNull(pose, "pose");
        begin(ENTITY_ADD, entity);
        u32(kind);
        pose(pose);
        return this;
    }

    /** An entity disappears. */
    public Batch entityRemove(int entity) {
        begin(ENTITY_REMOVE, entity);
        return this;
    }

    /** An entity's absolute pose in blocks and degrees (yaw unbounded). */
    public Batch pose(int entity, double x, double y, double z, double yaw, double pitch) {
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
    public Batch pose(int entity, Pose pose) {
        Objects.requireNonNull(pose, "pose");
        begin(POSE, entity);
        pose(pose);
        return this;
    }

    /** An entity's position in blocks (rotation unchanged). */
    public Batch position(int entity, double x, double y, double z) {
        quantise(x, y, z);
        begin(POSITION, entity);
        scratch(3);
        return this;
    }

    /** An entity's rotation in degrees (position unchanged). */
    public Batch rotation(int entity, double yaw, double pitch) {
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

    /**
     * A block changed to {@code state} (an id of the block palette, see
     * {@link Recorder#registerName}), with no causing entity and no block entity.
     */
    public Batch blockChange(int x, int y, int z, int state) {
        return blockChange(x, y, z, state, OptionalInt.empty(), null);
    }

    /**
     * A block changed to {@code state}, changed by {@code cause} if present, with the block
     * entity's NBT (a sign's text, a chest's contents) or {@code null} for none.
     *
     * @throws NullPointerException if {@code cause} is null
     * @throws IllegalArgumentException if {@code blockEntity} is over {@link #MAX_BLOCK_ENTITY_BYTES}
     * @throws IllegalStateException if the batch already holds {@link #MAX_EVENTS} events
     */
    public Batch blockChange(int x, int y, int z, int state, OptionalInt cause, byte[] blockEntity) {
        Objects.requireNonNull(cause, "cause");
        if (blockEntity != null && blockEntity.length > MAX_BLOCK_ENTITY_BYTES) {
            throw new IllegalArgumentException("block-entity data of " + blockEntity.length
                    + " bytes; at most " + MAX_BLOCK_ENTITY_BYTES);
        }
        int at = beginFramed(BLOCK_CHANGE, 4 * 5 + 1 + 5 + (blockEntity == null ? 0 : blockEntity.length));
        s64(x);
        s64(y);
        s64(z);
        u32(state);
        optEntity(cause);
        if (blockEntity == null) {
            bytes[pos++] = 0;
        } else {
            bytes[pos++] = 1;
            u32(blockEntity.length);
            System.arraycopy(blockEntity, 0, bytes, pos, blockEntity.length);
            pos += blockEntity.length;
        }
        endFramed(at);
        return this;
    }

    /**
     * Many blocks changed at once (a section update, a fill, an explosion): block {@code i} at
     * ({@code xs[i]}, {@code ys[i]}, {@code zs[i]}) is now {@code states[i]}, changed by
     * {@code cause} if present.
     *
     * @throws NullPointerException if an argument is null
     * @throws IllegalArgumentException if the arrays differ in length, are empty or hold more than
     *     {@link #MAX_BLOCKS_PER_CHANGE} blocks
     * @throws IllegalStateException if the batch already holds {@link #MAX_EVENTS} events
     */
    public Batch blockChanges(OptionalInt cause, int[] xs, int[] ys, int[] zs, int[] states) {
        Objects.requireNonNull(cause, "cause");
        int n = Objects.requireNonNull(xs, "xs").length;
        if (Objects.requireNonNull(ys, "ys").length != n || Objects.requireNonNull(zs, "zs").length != n
                || Objects.requireNonNull(states, "states").length != n) {
            throw new IllegalArgumentException("xs, ys, zs and states differ in length");
        }
        if (n == 0 || n > MAX_BLOCKS_PER_CHANGE) {
            throw new IllegalArgumentException("a change of " + n + " blocks; 1 to " + MAX_BLOCKS_PER_CHANGE);
        }
        int at = beginFramed(BLOCK_CHANGES, 10 + n * 20);
        optEntity(cause);
        u32(n);
        long px = 0, py = 0, pz = 0;
        for (int i = 0; i < n; i++) {
            s64(xs[i] - px);
            s64(ys[i] - py);
            s64(zs[i] - pz);
            u32(states[i]);
            px = xs[i];
            py = ys[i];
            pz = zs[i];
        }
        endFramed(at);
        return this;
    }

    /**
     * An entity swung a hand ({@link #HAND_MAIN} or {@link #HAND_OFF}).
     *
     * @throws IllegalArgumentException for another hand
     */
    public Batch swing(int entity, int hand) {
        checkHand(hand);
        int at = beginFramed(SWING, 6);
        u32(entity);
        bytes[pos++] = (byte) hand;
        endFramed(at);
        return this;
    }

    /** An entity attacked another (a hit, whether or not it did damage). */
    public Batch attack(int attacker, int target) {
        int at = beginFramed(ATTACK, 10);
        u32(attacker);
        u32(target);
        endFramed(at);
        return this;
    }

    /**
     * An entity used {@code item} (an id of the item palette, 0 for an empty hand) in a hand, on
     * nothing.
     *
     * @throws IllegalArgumentException for a hand other than {@link #HAND_MAIN} or {@link #HAND_OFF}
     */
    public Batch use(int entity, int hand, int item) {
        checkHand(hand);
        int at = beginFramed(USE, 12);
        useHead(entity, hand, item);
        bytes[pos++] = 0;
        endFramed(at);
        return this;
    }

    /**
     * An entity used {@code item} in a hand on entity {@code target}.
     *
     * @throws IllegalArgumentException for a hand other than {@link #HAND_MAIN} or {@link #HAND_OFF}
     */
    public Batch useOnEntity(int entity, int hand, int item, int target) {
        checkHand(hand);
        int at = beginFramed(USE, 17);
        useHead(entity, hand, item);
        bytes[pos++] = 1;
        u32(target);
        endFramed(at);
        return this;
    }

    /**
     * An entity used {@code item} in a hand on the block at ({@code x}, {@code y}, {@code z}).
     *
     * @throws IllegalArgumentException for a hand other than {@link #HAND_MAIN} or {@link #HAND_OFF}
     */
    public Batch useOnBlock(int entity, int hand, int item, int x, int y, int z) {
        checkHand(hand);
        int at = beginFramed(USE, 27);
        useHead(entity, hand, item);
        bytes[pos++] = 2;
        s64(x);
        s64(y);
        s64(z);
        endFramed(at);
        return this;
    }

    /**
     * An entity took {@code amount} hundredths of a health point of damage of {@code cause} (an
     * id of the damage-cause palette, 0 for unknown), dealt by {@code source} if present.
     *
     * @throws NullPointerException if {@code source} is null
     */
    public Batch damage(int entity, int amount, int cause, OptionalInt source) {
        Objects.requireNonNull(source, "source");
        int at = beginFramed(DAMAGE, 20);
        u32(entity);
        u32(amount);
        u32(cause);
        optEntity(source);
        endFramed(at);
        return this;
    }

    /** An entity's health is now {@code health} hundredths of a health point (a heart is 200). */
    public Batch health(int entity, int health) {
        int at = beginFramed(HEALTH, 10);
        u32(entity);
        u32(health);
        endFramed(at);
        return this;
    }

    /**
     * An entity's equipment in {@code slot} ({@code SLOT_*}, or the game's own up to 255) is now
     * {@code count} of {@code item} (an id of the item palette, 0 for nothing).
     *
     * @throws IllegalArgumentException if {@code slot} is not 0 to 255
     */
    public Batch equipment(int entity, int slot, int item, int count) {
        if (slot < 0 || slot > 255) {
            throw new IllegalArgumentException("equipment slot " + slot + "; 0 to 255");
        }
        int at = beginFramed(EQUIPMENT, 16);
        u32(entity);
        bytes[pos++] = (byte) slot;
        u32(item);
        u32(count);
        endFramed(at);
        return this;
    }

    /**
     * A chat line: its sender if an entity sent it, its channel ({@code CHANNEL_*}, or the game's
     * own above them, kept private) and its text.
     *
     * @throws NullPointerException if {@code sender} or {@code text} is null
     * @throws IllegalArgumentException if the text is over {@link #MAX_CHAT_BYTES} bytes of UTF-8
     */
    public Batch chat(OptionalInt sender, int channel, String text) {
        Objects.requireNonNull(sender, "sender");
        byte[] utf8 = Objects.requireNonNull(text, "text").getBytes(StandardCharsets.UTF_8);
        if (utf8.length > MAX_CHAT_BYTES) {
            throw new IllegalArgumentException("a chat text of " + utf8.length + " bytes; at most " + MAX_CHAT_BYTES);
        }
        int at = beginFramed(CHAT, 15 + utf8.length);
        optEntity(sender);
        u32(channel);
        u32(utf8.length);
        System.arraycopy(utf8, 0, bytes, pos, utf8.length);
        pos += utf8.length;
        endFramed(at);
        return this;
    }

    /**
     * A game-specific event of a registered type placed at an entity and/or a position in blocks
     * ({@code position} null for none, else {@code {x, y, z}}), so that a report's radius and a
     * viewer can place it.
     *
     * @throws NullPointerException if {@code entity} or {@code data} is null
     * @throws IllegalArgumentException if {@code position} is not 3 finite values in range, or
     *     {@code data} is over {@link #MAX_CUSTOM_BYTES}
     */
    public Batch customAt(int typeId, OptionalInt entity, double[] position, byte[] data) {
        Objects.requireNonNull(entity, "entity");
        Objects.requireNonNull(data, "data");
        if (data.length > MAX_CUSTOM_BYTES) {
            throw new IllegalArgumentException("custom event of " + data.length + " bytes; at most " + MAX_CUSTOM_BYTES);
        }
        if (position != null) {
            if (position.length != 3) {
                throw new IllegalArgumentException("a position is 3 values, got " + position.length);
            }
            quantise(position[0], position[1], position[2]);
        }
        int at = beginFramed(CUSTOM_AT, 50 + data.length);
        u32(typeId);
        optEntity(entity);
        if (position == null) {
            bytes[pos++] = 0;
        } else {
            bytes[pos++] = 1;
            scratch(3);
        }
        u32(data.length);
        System.arraycopy(data, 0, bytes, pos, data.length);
        pos += data.length;
        endFramed(at);
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

    /**
     * Starts a world event: its kind, then one byte for the body's length, patched by
     * {@link #endFramed}; room for {@code body} more bytes.
     *
     * @return where the length byte is
     */
    private int beginFramed(int kind, int body) {
        if (count == MAX_EVENTS) {
            throw new IllegalStateException("a tick holds at most " + MAX_EVENTS + " events");
        }
        ensure(2 + body + 5);
        count++;
        bytes[pos++] = (byte) kind;
        return pos++;
    }

    /** Writes the body's length as a varint at {@code at}, moving the body when it needs more than one byte. */
    private void endFramed(int at) {
        int len = pos - at - 1;
        if (len < 0x80) {
            bytes[at] = (byte) len;
            return;
        }
        int extra = len < (1 << 14) ? 1 : len < (1 << 21) ? 2 : len < (1 << 28) ? 3 : 4;
        ensure(extra);
        System.arraycopy(bytes, at + 1, bytes, at + 1 + extra, len);
        int end = pos + extra;
        pos = at;
        u32(len);
        pos = end;
    }

    private void useHead(int entity, int hand, int item) {
        u32(entity);
        bytes[pos++] = (byte) hand;
        u32(item);
    }

    private void optEntity(OptionalInt e) {
        if (e.isPresent()) {
            u64((e.getAsInt() & 0xFFFF_FFFFL) + 1);
        } else {
            bytes[pos++] = 0;
        }
    }

    private static void checkHand(int hand) {
        if (hand != HAND_MAIN && hand != HAND_OFF) {
            throw new IllegalArgumentException("hand " + hand + "; 0 (main) or 1 (off hand)");
        }
    }

    private void u64(long u) {
        while ((u & ~0x7FL) != 0) {
            bytes[pos++] = (byte) (u | 0x80);
            u >>>= 7;
        }
        bytes[pos++] = (byte) u;
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
