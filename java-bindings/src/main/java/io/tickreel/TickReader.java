package io.tickreel;

import java.util.ArrayList;
import java.util.List;

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
                if (kind >= Batch.EXTENSION_FIRST && kind <= Batch.EXTENSION_LAST) {
                    return new Event.Extension(kind, bytes(length()));
                }
                throw corrupt(String.format("unknown event kind 0x%02x", kind));
        }
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
