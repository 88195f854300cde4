package io.tickreel;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.management.ManagementFactory;
import java.nio.file.Path;
import java.util.List;
import java.util.OptionalInt;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** World events written with {@link Batch}, named by the palette, and read back typed; Update's allocation-free accessors. */
class WorldTest {
    static final int STONE = 1, SIGN = 7, SWORD = 3, FALL = 2;
    static final byte[] SIGN_NBT = {10, 0, 0, 8, 0, 4, 't', 'e', 'x', 't', 0, 2, 'h', 'i', 0};

    static Path record(Path dir) {
        Path reel = dir.resolve("world.reel");
        try (ReelWriter w = ReelWriter.create(reel, ReelOptions.defaults())) {
            w.registerName(PaletteKind.BLOCK, STONE, "minecraft:stone");
            w.registerName(PaletteKind.BLOCK, SIGN, "minecraft:oak_sign[rotation=4]");
            w.registerName(PaletteKind.ITEM, SWORD, "minecraft:iron_sword");
            w.registerName(PaletteKind.DAMAGE_CAUSE, FALL, "minecraft:fall");
            w.registerName(PaletteKind.BLOCK, STONE, "minecraft:stone");
            assertThrows(IllegalArgumentException.class, () -> w.registerName(PaletteKind.BLOCK, STONE, "minecraft:dirt"));
            Batch b = new Batch();
            b.entityAdd(1, 147, 0.5, 64, 0.5, 0, 0).entityAdd(2, 147, 2.5, 64, 0.5, 180, 0);
            w.writeTick(10, b);
            b.clear();
            b.blockChange(-3, 63, 1_000_000, 0, OptionalInt.of(1), null);
            b.blockChange(4, 64, -5, SIGN, OptionalInt.empty(), SIGN_NBT);
            b.blockChanges(OptionalInt.empty(), new int[] {0, 1, -7}, new int[] {60, 60, 59}, new int[] {0, 0, 2},
                    new int[] {STONE, STONE, 0});
            b.swing(1, Batch.HAND_MAIN).attack(1, 2).use(2, Batch.HAND_OFF, SWORD);
            b.useOnEntity(1, Batch.HAND_MAIN, 0, 2).useOnBlock(1, Batch.HAND_MAIN, 0, 4, 64, -5);
            b.damage(2, 350, FALL, OptionalInt.of(1)).health(2, 1650).equipment(1, Batch.SLOT_MAIN_HAND, SWORD, 1);
            b.chat(OptionalInt.of(1), Batch.CHANNEL_PUBLIC, "gg é");
            b.customAt(500, OptionalInt.empty(), new double[] {1.5, 64.25, -2}, "boom".getBytes());
            // a body over 127 bytes takes a two-byte length
            b.chat(OptionalInt.empty(), Batch.CHANNEL_SYSTEM, "x".repeat(300));
            int n = b.eventCount();
            assertThrows(IllegalArgumentException.class, () -> b.swing(1, 2));
            assertThrows(IllegalArgumentException.class, () -> b.equipment(1, 256, 1, 1));
            assertThrows(IllegalArgumentException.class, () -> b.chat(OptionalInt.empty(), 0, "a".repeat(4097)));
            assertThrows(IllegalArgumentException.class,
                    () -> b.blockChanges(OptionalInt.empty(), new int[0], new int[0], new int[0], new int[0]));
            assertThrows(IllegalArgumentException.class,
                    () -> b.customAt(1, OptionalInt.empty(), new double[] {Double.NaN, 0, 0}, new byte[0]));
            assertEquals(n, b.eventCount(), "refused events leave the batch unchanged");
            w.writeTick(11, b);
            w.finish();
        }
        return reel;
    }

    @Test
    void everyWorldEventIsReadBackAsWritten(@TempDir Path dir) {
        try (Reader r = Reader.open(record(dir))) {
            assertEquals("minecraft:stone", r.paletteName(PaletteKind.BLOCK, STONE));
            assertEquals("minecraft:oak_sign[rotation=4]", r.paletteName(PaletteKind.BLOCK, SIGN));
            assertEquals("minecraft:iron_sword", r.paletteName(PaletteKind.ITEM, SWORD));
            assertEquals("minecraft:fall", r.paletteName(PaletteKind.DAMAGE_CAUSE, FALL));
            assertNull(r.paletteName(PaletteKind.ITEM, 99));
            List<DecodedTick> ticks = r.ticks(11, 11);
            assertEquals(1, ticks.size());
            List<Event> e = ticks.get(0).events();
            assertEquals(14, e.size());
            Event.BlockChange broken = (Event.BlockChange) e.get(0);
            assertEquals(List.of(-3, 63, 1_000_000, 0, OptionalInt.of(1)),
                    List.of(broken.x(), broken.y(), broken.z(), broken.state(), broken.cause()));
            assertNull(broken.blockEntity());
            Event.BlockChange sign = (Event.BlockChange) e.get(1);
            assertEquals(SIGN, sign.state());
            assertArrayEquals(SIGN_NBT, sign.blockEntity());
            Event.BlockChanges many = (Event.BlockChanges) e.get(2);
            assertArrayEquals(new int[] {0, 1, -7}, many.xs());
            assertArrayEquals(new int[] {60, 60, 59}, many.ys());
            assertArrayEquals(new int[] {0, 0, 2}, many.zs());
            assertArrayEquals(new int[] {STONE, STONE, 0}, many.states());
            assertEquals(new Event.Swing(1, Batch.HAND_MAIN), e.get(3));
            assertEquals(new Event.Attack(1, 2), e.get(4));
            assertEquals(new Event.Use(2, Batch.HAND_OFF, SWORD, OptionalInt.empty(), null), e.get(5));
            assertEquals(new Event.Use(1, Batch.HAND_MAIN, 0, OptionalInt.of(2), null), e.get(6));
            assertArrayEquals(new int[] {4, 64, -5}, ((Event.Use) e.get(7)).targetBlock());
            assertEquals(new Event.Damage(2, 350, FALL, OptionalInt.of(1)), e.get(8));
            assertEquals(new Event.Health(2, 1650), e.get(9));
            assertEquals(new Event.Equipment(1, Batch.SLOT_MAIN_HAND, SWORD, 1), e.get(10));
            assertEquals(new Event.Chat(OptionalInt.of(1), Batch.CHANNEL_PUBLIC, "gg é"), e.get(11));
            Event.CustomAt at = (Event.CustomAt) e.get(12);
            assertEquals(500, at.typeId());
            assertArrayEquals(new double[] {1.5, 64.25, -2}, at.position());
            assertArrayEquals("boom".getBytes(), at.data());
            assertEquals(new Event.Chat(OptionalInt.empty(), Batch.CHANNEL_SYSTEM, "x".repeat(300)), e.get(13));
        }
    }

    @Test
    void theWorldEventsOfAForwardUpdateAreTyped(@TempDir Path dir) {
        try (Playhead p = Playhead.open(record(dir))) {
            Update u = p.stepForward();
            assertEquals(11, u.position());
            List<DecodedTick> ticks = u.ticks();
            assertEquals(1, ticks.size());
            assertTrue(ticks.get(0).events().contains(new Event.Attack(1, 2)));
        }
    }

    @Test
    void entityAccessorsReadWhatEntitiesReturnsWithoutAllocating(@TempDir Path dir) {
        Path reel = dir.resolve("many.reel");
        try (ReelWriter w = ReelWriter.create(reel, ReelOptions.defaults())) {
            Batch b = new Batch();
            for (int t = 0; t < 50; t++) {
                b.clear();
                for (int i = 0; i < 100; i++) {
                    if (t == 0) {
                        b.entityAdd(i, 7, i, 64, -i, t * 3, 10);
                    } else {
                        b.pose(i, i + t * 0.25, 64, -i, t * 3, 10);
                    }
                }
                w.writeTick(t, b);
            }
            w.finish();
        }
        com.sun.management.ThreadMXBean mx = (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
        try (Playhead p = Playhead.open(reel)) {
            Update u = p.seek(20);
            List<EntityState> states = u.entities();
            assertEquals(100, u.entityCount());
            for (int i = 0; i < u.entityCount(); i++) {
                EntityState s = states.get(i);
                assertEquals(s.id(), u.entityId(i));
                assertEquals(s.kind(), u.entityKind(i));
                assertEquals(s.flags(), u.entityFlags(i));
                assertEquals(s.pose().x(), u.entityX(i));
                assertEquals(s.pose().y(), u.entityY(i));
                assertEquals(s.pose().z(), u.entityZ(i));
                assertEquals(s.pose().yaw(), u.entityYaw(i));
                assertEquals(s.pose().pitch(), u.entityPitch(i));
            }
            assertThrows(IndexOutOfBoundsException.class, () -> u.entityId(100));
            long tid = Thread.currentThread().getId();
            double sink = 0;
            // warm up (JIT, the array's growth), then measure
            for (int round = 0; round < 2; round++) {
                long before = mx.getThreadAllocatedBytes(tid);
                for (int k = 0; k < 200; k++) {
                    Update v = p.seek(10 + k % 30);
                    for (int i = 0; i < v.entityCount(); i++) {
                        sink += v.entityX(i) + v.entityYaw(i) + v.entityId(i);
                    }
                }
                long allocated = mx.getThreadAllocatedBytes(tid) - before;
                if (round == 1) {
                    // 200 updates of 100 entities: List<EntityState> would take about 1 MB
                    assertTrue(allocated < 16 * 1024, "allocated " + allocated + " bytes in 200 updates");
                }
            }
            assertTrue(sink != 0);
        }
    }
}
