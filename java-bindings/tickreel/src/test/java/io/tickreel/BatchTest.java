package io.tickreel;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;
import java.util.List;
import org.junit.jupiter.api.Test;

class BatchTest {
    @Test
    void encodesTheDocumentedBatchLayout() {
        Batch w = new Batch(2);
        // Empty tick: just the u16 count.
        assertArrayEquals(new byte[] {0, 0}, w.toByteArray());
        // Pose of entity 1 at the origin: kind 0x03, varint 1, five zigzag zeros.
        w.pose(1, 0, 0, 0, 0, 0);
        assertArrayEquals(new byte[] {0, 1, 3, 1, 0, 0, 0, 0, 0}, w.toByteArray());
        w.clear();
        // Flags of entity 300 (varint AC 02), value 1; then x = -1/4096 (zigzag 1), y = 64 blocks
        // (262144 -> zigzag 524288 = 80 80 20), yaw 180 degrees (32768 -> 65536 = 80 80 04).
        w.flags(300, EntityFlags.ON_GROUND).position(2, -1 / 4096.0, 64, 0).rotation(3, 180, -90);
        assertArrayEquals(
                new byte[] {
                    0, 3,
                    7, (byte) 0xAC, 0x02, 1,
                    4, 2, 1, (byte) 0x80, (byte) 0x80, 0x20, 0,
                    5, 3, (byte) 0x80, (byte) 0x80, 0x04, (byte) 0xFF, (byte) 0xFF, 0x01
                },
                w.toByteArray());
        assertEquals(3, w.eventCount());
        assertEquals(21, w.size());
        // Entity ids are unsigned: -1 is 2^32-1, five varint bytes.
        w.clear().entityRemove(-1);
        assertArrayEquals(new byte[] {0, 1, 2, (byte) 0xFF, (byte) 0xFF, (byte) 0xFF, (byte) 0xFF, 0x0F}, w.toByteArray());
    }

    @Test
    void quantisesLikeTheNativePose() {
        // Halves round away from zero (Rust's f64::round), not up (Math.round).
        assertEquals(1, Pose.quantisePosition(0.5 / 4096));
        assertEquals(-1, Pose.quantisePosition(-0.5 / 4096));
        assertEquals(-2, Pose.quantisePosition(-1.5 / 4096));
        assertEquals(3, Pose.quantisePosition(2.5 / 4096));
        assertEquals(0, Pose.quantisePosition(0.49999999999999994 / 4096));
        assertEquals(1L << 62, Pose.quantisePosition(0x1p62 / 4096)); // the format's limit
        assertEquals(-(1L << 62), Pose.quantiseAngle(-0x1p62 * 360 / 65536));
        assertEquals(65536, Pose.quantiseAngle(360));
        assertEquals(-131163, Pose.quantiseAngle(-720.5)); // -131163.02
        assertEquals(1, Pose.quantiseAngle(360.0 / 65536 / 2));
        assertEquals(-1, Pose.quantiseAngle(-360.0 / 65536 / 2));
        assertEquals(-8000, Pose.quantiseVelocity(-1));
        Pose p = Pose.of(123.456789, 64, -9876.54321, 7200.5, -45.25);
        assertTrue(Math.abs(p.x() - 123.456789) <= 0.5 / 4096);
        assertTrue(Math.abs(p.yaw() - 7200.5) <= 0.5 * 360 / 65536);
        assertEquals(64 * 4096, p.rawY());
        assertEquals(-45.25, p.pitch(), 0.5 * 360 / 65536);
    }

    @Test
    void everyEventKindRoundTripsThroughTheDecoder() {
        Batch w = new Batch(8);
        Pose pose = new Pose(-5, 64 * 4096, 1L << 40, -65536L * 30 + 7, 1234);
        w.entityAdd(7, 122, pose)
                .entityAdd(8, 1, 1.5, 2.5, -3.5, 90, 45)
                .entityRemove(3)
                .pose(7, pose)
                .position(7, 0.25, -0.5, 1)
                .rotation(7, 1e6, -90)
                .teleport(9, pose)
                .teleport(9, 1, 2, 3, 4, 5)
                .flags(7, EntityFlags.ON_GROUND | EntityFlags.SNEAKING | (1 << 20))
                .checkpoint(7, 4)
                .velocity(7, -1, 0.42, 0)
                .playerLeave(-1)
                .custom(1000, new byte[] {1, 2, 3})
                .custom(1001, new byte[] {9, 8, 7, 6}, 1, 2);
        byte[] bytes = w.toByteArray();
        List<Event> events = TickReader.decodeBatch(bytes, 0, bytes.length);
        assertEquals(14, events.size());
        assertEquals(new Event.EntityAdd(7, 122, pose), events.get(0));
        assertEquals(new Event.EntityAdd(8, 1, Pose.of(1.5, 2.5, -3.5, 90, 45)), events.get(1));
        assertEquals(new Event.EntityRemove(3), events.get(2));
        assertEquals(new Event.Moved(7, pose), events.get(3));
        assertEquals(new Event.Position(7, 1024, -2048, 4096), events.get(4));
        assertEquals(new Event.Rotation(7, Pose.quantiseAngle(1e6), -16384), events.get(5));
        assertEquals(new Event.Teleport(9, pose), events.get(6));
        assertEquals(new Event.Teleport(9, Pose.of(1, 2, 3, 4, 5)), events.get(7));
        assertEquals(new Event.Flags(7, 1 | 2 | (1 << 20)), events.get(8));
        assertEquals(new Event.Checkpoint(7, 4), events.get(9));
        Event.Velocity v = (Event.Velocity) events.get(10);
        assertEquals(new Event.Velocity(7, -8000, 3360, 0), v);
        assertEquals(0.42, v.y(), 1e-9);
        assertEquals(new Event.PlayerLeave(-1), events.get(11));
        assertArrayEquals(new byte[] {1, 2, 3}, ((Event.Custom) events.get(12)).data());
        assertArrayEquals(new byte[] {8, 7}, ((Event.Custom) events.get(13)).data());
        assertEquals(1001, ((Event.Custom) events.get(13)).typeId());
    }

    @Test
    void growsAndIsReusable() {
        Batch w = new Batch(2);
        for (int i = 0; i < 10_000; i++) {
            w.pose(i, i, 64, -i, i, 0);
        }
        assertEquals(10_000, w.eventCount());
        ByteBuffer direct = w.sealDirect();
        assertTrue(direct.isDirect());
        assertTrue(direct.capacity() >= w.size());
        byte[] a = w.toByteArray();
        byte[] b = new byte[a.length];
        direct.get(0, b);
        assertArrayEquals(a, b);
        assertEquals(10_000, TickReader.decodeBatch(a, 0, a.length).size());
        w.clear();
        assertEquals(0, w.eventCount());
        assertEquals(2, w.size());
        assertArrayEquals(new byte[] {0, 0}, w.toByteArray());
    }

    @Test
    void rejectsBadArguments() {
        assertThrows(IllegalArgumentException.class, () -> new Batch(1));
        Batch w = new Batch();
        assertThrows(NullPointerException.class, () -> w.custom(1, null));
        assertThrows(IndexOutOfBoundsException.class, () -> w.custom(1, new byte[4], 3, 2));
        assertThrows(IllegalArgumentException.class, () -> w.custom(1, new byte[Batch.MAX_CUSTOM_BYTES + 1]));
        assertThrows(NullPointerException.class, () -> w.pose(1, null));
        assertThrows(NullPointerException.class, () -> w.entityAdd(1, 0, null));
        assertThrows(NullPointerException.class, () -> w.teleport(1, null));
        // Failed calls added nothing.
        assertEquals(0, w.eventCount());
        assertArrayEquals(new byte[] {0, 0}, w.toByteArray());
        for (int i = 0; i < Batch.MAX_EVENTS; i++) {
            w.entityRemove(i);
        }
        assertThrows(IllegalStateException.class, () -> w.entityRemove(1));
        byte[] bytes = w.toByteArray();
        assertEquals((byte) 0xFF, bytes[0]);
        assertEquals((byte) 0xFF, bytes[1]);
    }

    @Test
    void decoderRejectsMalformedBatches() {
        byte[] good = new Batch().pose(1, 1, 2, 3, 4, 5).custom(2, new byte[] {1}).toByteArray();
        for (int cut = 0; cut < good.length; cut++) {
            int n = cut;
            TickreelException e = assertThrows(TickreelException.class, () -> TickReader.decodeBatch(good, 0, n));
            assertEquals(TickreelException.Kind.CORRUPT, e.kind());
        }
        byte[] trailing = java.util.Arrays.copyOf(good, good.length + 1);
        assertThrows(TickreelException.class, () -> TickReader.decodeBatch(trailing, 0, trailing.length));
        assertThrows(TickreelException.class, () -> TickReader.decodeBatch(new byte[] {0, 1, 0x33}, 0, 3));
    }

    /** The core's one NaN/range policy: refused with its short message, nothing half-written. */
    @Test
    void nonFiniteAndOutOfRangeValuesAreRefusedByTheCore() {
        Batch w = new Batch().position(1, 1, 2, 3);
        byte[] before = w.toByteArray();
        IllegalArgumentException e =
                assertThrows(IllegalArgumentException.class, () -> w.position(1, 1e300, 0, 0));
        assertTrue(e.getMessage().contains("x is 1e300 blocks"), e.getMessage());
        assertTrue(e.getMessage().length() < 120, e.getMessage());
        e = assertThrows(IllegalArgumentException.class, () -> w.pose(1, 0, 0, 0, 0, Double.NaN));
        assertTrue(e.getMessage().contains("pitch must be a finite number (got NaN)"), e.getMessage());
        e = assertThrows(IllegalArgumentException.class, () -> w.teleport(1, 0, -1.2e15, 0, 0, 0));
        assertTrue(e.getMessage().contains("y is -1.2e15 blocks"), e.getMessage());
        e = assertThrows(
                IllegalArgumentException.class, () -> w.velocity(1, 0, 0, Double.NEGATIVE_INFINITY));
        assertTrue(e.getMessage().contains("vz must be a finite number"), e.getMessage());
        assertThrows(IllegalArgumentException.class, () -> w.entityAdd(2, 1, 0, 0, 0, 1e300, 0));
        assertThrows(IllegalArgumentException.class, () -> w.rotation(2, Double.POSITIVE_INFINITY, 0));
        assertEquals(1, w.eventCount());
        assertArrayEquals(before, w.toByteArray());
        e = assertThrows(IllegalArgumentException.class, () -> Pose.of(0, 0, Double.NaN, 0, 0));
        assertTrue(e.getMessage().contains("z must be a finite number (got NaN)"), e.getMessage());
        assertThrows(IllegalArgumentException.class, () -> Pose.quantisePosition(Math.nextUp(0x1p62 / 4096)));
        assertThrows(IllegalArgumentException.class, () -> Pose.quantiseVelocity(Double.NaN));
    }
}
