package io.tickreel;

import java.util.ArrayList;
import java.util.List;
import java.util.OptionalInt;

/**
 * Decodes the tick batch encoding (the inverse of {@link Batch}). Malformed input raises
 * {@link TickreelException} of kind {@link TickreelException.Kind#CORRUPT}: batches come from the
 * native library, so a bad one means a damaged file or a mismatched build.
 */
final class TickReader {
    private final byte[] b;
    private int pos;
    private final int end;

    private TickReader(byte[] b, int offset, int length) {
        this.b = b;
        this.pos = offset;
        this.end = offset + length;
    }

    /** Decodes one batch of exactly {@code length} bytes at {@code offset}. */
    static List<Event> decodeBatch(byte[] b, int offset, int length) {
        TickReader r = new TickReader(b, offset, length);
        int n = (r.u8() << 8) | r.u8();
        List<Event> out = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
            out.add(r.event());
        }
        if (r.pos != r.end) {
            throw corrupt((r.end - r.pos) + " trailing bytes after " + n + " events");
        }
        return out;
    }

    /**
     * Decodes the native {@code readerTicks} result: per tick, u32 BE tick, u32 BE length, batch.
     */
    static List<DecodedTick> decodeTicks(byte[] b) {
        List<DecodedTick> out = new ArrayList<>();
        TickReader r = new TickReader(b, 0, b.length);
        while (r.pos < r.end) {
            int tick = r.u32be();
            int len = r.u32be();
            if (len < 0 || len > r.end - r.pos) {
                throw corrupt("tick " + tick + " claims " + len + " bytes");
            }
            out.add(new DecodedTick(tick, decodeBatch(b, r.pos, len)));
            r.pos += len;
        }
        return out;
    }

    private Event event() {
        int kind = u8();
        switch (kind) {
            case Batch.ENTITY_ADD:
                return new Event.EntityAdd(u32(), u32(), pose());
            case Batch.ENTITY_REMOVE:
                return new Event.EntityRemove(u32());
            case Batch.POSE:
                return new Event.Moved(u32(), pose());
            case Batch.POSITION:
                return new Event.Position(u32(), s64(), s64(), s64());
            case Batch.ROTATION:
                return new Event.Rotation(u32(), s64(), s64());
            case Batch.TELEPORT:
                return new Event.Teleport(u32(), pose());
            case Batch.FLAGS:
                return new Event.Flags(u32(), u32());
            case Batch.CHECKPOINT:
                return new Event.Checkpoint(u32(), u32());
            case Batch.VELOCITY:
                return new Event.Velocity(u32(), s64(), s64(), s64());
            case Batch.PLAYER_LEAVE:
                return new Event.PlayerLeave(u32());
            case Batch.CUSTOM: {
                int type = u32();
                return new Event.Custom(type, bytes(length()));
            }
            default:
                if (kind >= Batch.BLOCK_CHANGE && kind <= Batch.CUSTOM_AT) {
                    int len = length();
                    if (len > end - pos) {
                        throw corrupt("world event runs past the batch");
                    }
                    int bodyEnd = pos + len;
                    Event e = world(kind);
                    if (pos != bodyEnd) {
                        throw corrupt(String.format("event kind 0x%02x has %d bytes after its fields", kind, bodyEnd - pos));
                    }
                    return e;
                }
                if (kind >= Batch.EXTENSION_FIRST && kind <= Batch.EXTENSION_LAST) {
                    return new Event.Extension(kind, bytes(length()));
                }
                throw corrupt(String.format("unknown event kind 0x%02x", kind));
        }
    }

    /** The body of world event {@code kind} (FORMAT.md, "World events"). */
    private Event world(int kind) {
        switch (kind) {
            case Batch.BLOCK_CHANGE: {
                int x = i32(), y = i32(), z = i32(), state = u32();
                OptionalInt cause = optEntity();
                int tag = u8();
                if (tag > 1) {
                    throw corrupt("block-entity tag " + tag);
                }
                return new Event.BlockChange(x, y, z, state, cause, tag == 1 ? bytes(length()) : null);
            }
            case Batch.BLOCK_CHANGES: {
                OptionalInt cause = optEntity();
                long n = uvarint();
                if (n < 1 || n > Batch.MAX_BLOCKS_PER_CHANGE || n > (end - pos) / 4) {
                    throw corrupt("a multi-block change of " + Long.toUnsignedString(n) + " blocks");
                }
                int[] xs = new int[(int) n], ys = new int[(int) n], zs = new int[(int) n], states = new int[(int) n];
                long px = 0, py = 0, pz = 0;
                for (int i = 0; i < n; i++) {
                    px = coordinate(px + s64());
                    py = coordinate(py + s64());
                    pz = coordinate(pz + s64());
                    xs[i] = (int) px;
                    ys[i] = (int) py;
                    zs[i] = (int) pz;
                    states[i] = u32();
                }
                return new Event.BlockChanges(cause, xs, ys, zs, states);
            }
            case Batch.SWING:
                return new Event.Swing(u32(), hand());
            case Batch.ATTACK:
                return new Event.Attack(u32(), u32());
            case Batch.USE: {
                int entity = u32(), hand = hand(), item = u32();
                int tag = u8();
                switch (tag) {
                    case 0:
                        return new Event.Use(entity, hand, item, OptionalInt.empty(), null);
                    case 1:
                        return new Event.Use(entity, hand, item, OptionalInt.of(u32()), null);
                    case 2:
                        return new Event.Use(entity, hand, item, OptionalInt.empty(), new int[] {i32(), i32(), i32()});
                    default:
                        throw corrupt("unknown use target " + tag);
                }
            }
            case Batch.DAMAGE:
                return new Event.Damage(u32(), u32(), u32(), optEntity());
            case Batch.HEALTH:
                return new Event.Health(u32(), u32());
            case Batch.EQUIPMENT:
                return new Event.Equipment(u32(), u8(), u32(), u32());
            case Batch.CHAT: {
                OptionalInt sender = optEntity();
                int channel = u32();
                long n = uvarint();
                if (n > Batch.MAX_CHAT_BYTES) {
                    throw corrupt("a chat text of " + Long.toUnsignedString(n) + " bytes");
                }
                byte[] text = bytes((int) n);
                java.nio.charset.CharsetDecoder utf8 = java.nio.charset.StandardCharsets.UTF_8.newDecoder();
                try {
                    return new Event.Chat(sender, channel, utf8.decode(java.nio.ByteBuffer.wrap(text)).toString());
                } catch (java.nio.charset.CharacterCodingException e) {
                    throw corrupt("chat text is not UTF-8");
                }
            }
            default: { // CUSTOM_AT
                int type = u32();
                OptionalInt entity = optEntity();
                int tag = u8();
                if (tag > 1) {
                    throw corrupt("position tag " + tag);
                }
                double[] position = tag == 1
                        ? new double[] {s64() / Pose.POSITION_SCALE, s64() / Pose.POSITION_SCALE, s64() / Pose.POSITION_SCALE}
                        : null;
                return new Event.CustomAt(type, entity, position, bytes(length()));
            }
        }
    }

    private OptionalInt optEntity() {
        long v = uvarint();
        if (v == 0) {
            return OptionalInt.empty();
        }
        if (Long.compareUnsigned(v - 1, 0xFFFF_FFFFL) > 0) {
            throw corrupt("entity id " + Long.toUnsignedString(v - 1) + " does not fit in 32 bits");
        }
        return OptionalInt.of((int) (v - 1));
    }

    private int hand() {
        int h = u8();
        if (h > Batch.HAND_OFF) {
            throw corrupt("unknown hand " + h);
        }
        return h;
    }

    private int i32() {
        return (int) coordinate(s64());
    }

    private static long coordinate(long v) {
        if (v < Integer.MIN_VALUE || v > Integer.MAX_VALUE) {
            throw corrupt("block coordinate " + v + " outside 32 bits");
        }
        return v;
    }

    private Pose pose() {
        return new Pose(s64(), s64(), s64(), s64(), s64());
    }

    private int u8() {
        if (pos >= end) {
            throw corrupt("batch ends early");
        }
        return b[pos++] & 0xFF;
    }

    private int u32be() {
        return (u8() << 24) | (u8() << 16) | (u8() << 8) | u8();
    }

    private long uvarint() {
        long result = 0;
        for (int shift = 0; shift < 64; shift += 7) {
            int x = u8();
            result |= (long) (x & 0x7F) << shift;
            if ((x & 0x80) == 0) {
                return result;
            }
        }
        throw corrupt("varint longer than 10 bytes");
    }

    private int u32() {
        long v = uvarint();
        if ((v >>> 32) != 0) {
            throw corrupt("varint " + Long.toUnsignedString(v) + " does not fit in 32 bits");
        }
        return (int) v;
    }

    private long s64() {
        long u = uvarint();
        return (u >>> 1) ^ -(u & 1);
    }

    private int length() {
        long v = uvarint();
        if (v < 0 || v > Batch.MAX_CUSTOM_BYTES) {
            throw corrupt("payload of " + Long.toUnsignedString(v) + " bytes");
        }
        return (int) v;
    }

    private byte[] bytes(int n) {
        if (n > end - pos) {
            throw corrupt("payload runs past the batch");
        }
        byte[] out = java.util.Arrays.copyOfRange(b, pos, pos + n);
        pos += n;
        return out;
    }

    private static TickreelException corrupt(String msg) {
        return new TickreelException(TickreelException.Kind.CORRUPT, "malformed tick batch: " + msg);
    }
}
