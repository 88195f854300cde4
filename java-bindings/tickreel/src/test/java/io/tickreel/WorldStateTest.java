package io.tickreel;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.UUID;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The world the library keeps, from Java: {@link Reader#worldAt}, {@link Playhead#worldState},
 * {@link Update}'s world changes (allocation-free accessors and records), and shadow-play reports
 * by UUID with the keeping options.
 */
class WorldStateTest {
    static final int STONE = 1, SIGN = 7, GLASS = 9, SWORD = 3;
    static final byte[] SIGN_NBT = WorldTest.SIGN_NBT;

    /**
     * Ticks 0..59 of player 1: the sign at tick 10, health 2000 at 5 and 1500 at 35, the sword at
     * 20, the sign turned to stone at 30, glass at 40.
     */
    static Path record(Path dir) {
        Path reel = dir.resolve("world-state.reel");
        ReelOptions o = ReelOptions.builder().chunkTicks(10).snapshotInterval(20).build();
        try (ReelWriter w = ReelWriter.create(reel, o)) {
            Batch b = new Batch();
            for (int t = 0; t < 60; t++) {
                b.clear();
                if (t == 0) {
                    b.entityAdd(1, 147, 0, 64, 0, 0, 0);
                } else {
                    b.pose(1, t * 0.1, 64, 0, 0, 0);
                }
                switch (t) {
                    case 5 -> b.health(1, 2000);
                    case 10 -> b.blockChange(1, 64, -2, SIGN, OptionalInt.of(1), SIGN_NBT);
                    case 20 -> b.equipment(1, Batch.SLOT_MAIN_HAND, SWORD, 1);
                    case 30 -> b.blockChange(1, 64, -2, STONE, OptionalInt.of(1), null);
                    case 35 -> b.health(1, 1500);
                    case 40 -> b.blockChange(-3, 70, 9, GLASS, OptionalInt.empty(), null);
                    default -> { }
                }
                w.writeTick(t, b);
            }
            w.finish();
        }
        return reel;
    }

    @Test
    void theWorldAtATickReadsWithoutParsing(@TempDir Path dir) {
        try (Reader r = Reader.open(record(dir))) {
            WorldState w = r.worldAt(25);
            assertEquals(25, w.tick());
            assertTrue(w.complete());
            assertEquals(List.of(new WorldState.Block(1, 64, -2, SIGN)), w.blocks());
            assertEquals(List.of(1, 64, -2, SIGN), List.of(w.blockX(0), w.blockY(0), w.blockZ(0), w.blockState(0)));
            assertEquals(SIGN, w.block(1, 64, -2));
            assertEquals(-1, w.block(0, 0, 0), "a block no event touched");
            assertArrayEquals(SIGN_NBT, w.blockEntity(1, 64, -2).orElseThrow());
            assertEquals(Optional.empty(), w.blockEntity(0, 0, 0));
            assertEquals(1, w.blockEntityCount());
            assertEquals(List.of(new WorldState.Entity(1, OptionalInt.of(2000), List.of(new WorldState.Slot(Batch.SLOT_MAIN_HAND, SWORD, 1)))),
                    w.entities());
            assertEquals(List.of(1, 2000, 1), List.of(w.entityId(0), w.entityHealth(0), w.entityEquipmentCount(0)));
            assertEquals(List.of(1, Batch.SLOT_MAIN_HAND, SWORD, 1),
                    List.of(w.equipmentEntity(0), w.equipmentSlot(0), w.equipmentItem(0), w.equipmentItemCount(0)));
            assertThrows(IndexOutOfBoundsException.class, () -> w.blockX(1));
            try (WorldState end = r.worldAt(1000)) {
                assertEquals(59, end.tick(), "clamped into the recording");
                assertEquals(List.of(new WorldState.Block(-3, 70, 9, GLASS), new WorldState.Block(1, 64, -2, STONE)), end.blocks());
                assertEquals(0, end.blockEntityCount());
                assertEquals(1500, end.entityHealth(0));
            }
            w.close();
            assertEquals(1, w.blockCount(), "what was read stays readable");
            assertEquals(1, w.blockY(0) - 63);
            assertThrows(IllegalStateException.class, () -> w.block(1, 64, -2));
            w.close();
        }
    }

    static List<WorldChange> sorted(List<WorldChange> changes) {
        List<WorldChange> out = new ArrayList<>(changes);
        out.sort(java.util.Comparator.comparing(Object::toString));
        return out;
    }

    @Test
    void seeksReportWorldChangesBothWays(@TempDir Path dir) {
        try (Playhead p = Playhead.open(record(dir), 0)) {
            Update u = p.seek(45);
            assertEquals(sorted(List.of(
                    new WorldChange.Block(-3, 70, 9, OptionalInt.empty(), OptionalInt.of(GLASS)),
                    new WorldChange.Block(1, 64, -2, OptionalInt.empty(), OptionalInt.of(STONE)),
                    new WorldChange.Health(1, OptionalInt.empty(), OptionalInt.of(1500)),
                    new WorldChange.Equipment(1, Batch.SLOT_MAIN_HAND, 0, 0, SWORD, 1))), sorted(u.worldChanges()));
            u = p.seek(25);
            List<WorldChange> back = u.worldChanges();
            assertTrue(back.contains(new WorldChange.Block(-3, 70, 9, OptionalInt.of(GLASS), OptionalInt.empty())), back.toString());
            assertTrue(back.contains(new WorldChange.Block(1, 64, -2, OptionalInt.of(STONE), OptionalInt.of(SIGN))), back.toString());
            assertTrue(back.contains(new WorldChange.Health(1, OptionalInt.of(1500), OptionalInt.of(2000))), back.toString());
            // The accessors read the same changes.
            assertEquals(back.size(), u.worldChangeCount());
            for (int i = 0; i < u.worldChangeCount(); i++) {
                if (u.worldChangeKind(i) == WorldChange.Kind.HEALTH) {
                    assertEquals(List.of(1, 1500L, 2000L), List.of(u.worldChangeEntity(i), u.worldChangeBefore(i), u.worldChangeAfter(i)));
                }
            }
            assertThrows(IndexOutOfBoundsException.class, () -> p.update().worldChangeKind(back.size()));
            try (WorldState w = p.worldState()) {
                assertEquals(25, w.tick());
                assertEquals(SIGN, w.block(1, 64, -2));
                assertEquals(1, w.blockCount());
            }
        }
    }

    /**
     * Reading every world change of every update, and a world state's lists and lookups, through
     * the accessors allocates nothing once the arrays are read.
     */
    @Test
    void worldChangeAndWorldStateAccessorsAllocateNothing(@TempDir Path dir) {
        try (Playhead p = Playhead.open(record(dir), 0)) {
            long[] sink = new long[1];
            p.seek(59);
            WorldState w = p.worldState();
            Runnable readWorld = () -> {
                for (int i = 0; i < w.blockCount(); i++) {
                    sink[0] += w.blockX(i) + w.blockY(i) + w.blockZ(i) + w.blockState(i) + w.block(w.blockX(i), w.blockY(i), w.blockZ(i));
                }
                for (int i = 0; i < w.entityCount(); i++) {
                    sink[0] += w.entityId(i) + w.entityHealth(i) + w.entityEquipmentCount(i);
                }
                for (int j = 0; j < w.equipmentCount(); j++) {
                    sink[0] += w.equipmentEntity(j) + w.equipmentSlot(j) + w.equipmentItem(j) + w.equipmentItemCount(j);
                }
            };
            for (int i = 0; i < 2000; i++) {
                readWorld.run();
            }
            long worldBytes = PlayheadTest.allocatedBy(() -> {
                for (int i = 0; i < 1000; i++) {
                    readWorld.run();
                }
            });
            assertTrue(worldBytes < 1024, "1000 reads of a world state allocated " + worldBytes + " bytes");
            w.close();
            Runnable readAll = () -> {
                for (int tick : new int[] {45, 25, 59, 0, 45, 25}) {
                    Update u = p.seek(tick);
                    for (int i = 0; i < u.worldChangeCount(); i++) {
                        sink[0] += u.worldChangeKind(i).ordinal() + u.worldChangeX(i) + u.worldChangeY(i) + u.worldChangeZ(i)
                                + u.worldChangeEntity(i) + u.worldChangeSlot(i) + u.worldChangeBefore(i)
                                + u.worldChangeBeforeCount(i) + u.worldChangeAfter(i) + u.worldChangeAfterCount(i);
                    }
                }
            };
            for (int i = 0; i < 200; i++) {
                readAll.run(); // warm up: the array grows, the JIT compiles
            }
            long bytes = PlayheadTest.allocatedBy(() -> {
                for (int i = 0; i < 100; i++) {
                    readAll.run();
                }
            });
            assertTrue(sink[0] != 0);
            assertTrue(bytes < 4096, "600 seeks read with the accessors allocated " + bytes + " bytes");
        }
    }

    @Test
    void aReportByUuidKeepsNearChatAndBlocksUnlessAskedForMore(@TempDir Path dir) throws Exception {
        UUID steve = new UUID(0x1234, 0x5678);
        try (Engine engine = new Engine();
                ShadowBuffer.Started s = ShadowBuffer.start(engine, null, RecorderOptions.defaults(), ShadowOptions.defaults())) {
            Recorder rec = s.recorder();
            rec.registerPlayer(1, steve, "Steve");
            Batch t = new Batch();
            for (int tick = 0; tick < 40; tick++) {
                t.clear();
                if (tick == 0) {
                    t.entityAdd(1, 147, 0, 64, 0, 0, 0).entityAdd(2, 147, 0, 64, 500, 0, 0);
                } else {
                    t.pose(1, tick * 0.1, 64, 0, 0, 0).pose(2, tick * 0.1, 64, 500, 0, 0);
                }
                if (tick == 20) {
                    t.chat(OptionalInt.of(1), Batch.CHANNEL_PRIVATE, "psst");
                    t.chat(OptionalInt.of(2), Batch.CHANNEL_PUBLIC, "far away");
                    t.blockChange(2, 63, 1, STONE, OptionalInt.of(1), null);
                    t.blockChange(2, 63, 501, STONE, OptionalInt.of(2), null);
                }
                assertTrue(rec.submit(tick, t));
            }
            rec.flush();
            ShadowBuffer shadow = s.shadow();
            ReportOptions near = ReportOptions.builder().after(Duration.ZERO).radius(48).build();
            Path nearPath = dir.resolve("near.reel");
            try (Pending<Path> h = shadow.report(steve, nearPath, near)) {
                assertEquals(nearPath, h.await());
            }
            assertEquals(List.of("psst"), chat(nearPath), "no chat of a player out of the radius");
            assertEquals(List.of(1), blockZs(nearPath), "no block change out of the radius");

            ReportOptions all = ReportOptions.builder().after(Duration.ZERO).radius(48).keepAllBlocks(true)
                    .chat(ReportChat.ALL).build();
            Path allPath = dir.resolve("all.reel");
            try (Pending<Path> h = shadow.report(steve, allPath, all)) {
                h.await();
            }
            assertEquals(List.of("psst", "far away"), chat(allPath));
            assertEquals(List.of(1, 501), blockZs(allPath));

            ReportOptions publicChat = ReportOptions.builder().after(Duration.ZERO).chat(ReportChat.PUBLIC).build();
            Path publicPath = dir.resolve("public.reel");
            try (Pending<Path> h = shadow.report(steve, publicPath, publicChat)) {
                h.await();
            }
            assertEquals(List.of("psst", "far away"), chat(publicPath), "public lines from anywhere");
            assertEquals(List.of(1), blockZs(publicPath));

            assertThrows(IllegalArgumentException.class,
                    () -> shadow.report(new UUID(9, 9), dir.resolve("nobody.reel"), near));
            assertThrows(NullPointerException.class, () -> shadow.report((UUID) null, dir.resolve("x.reel"), near));
        }
    }

    /**
     * The index accessors on a fresh update, before {@code entities()} or {@code worldChanges()}
     * grew their arrays: the first call reads the longs and must index the grown array (it indexed
     * the empty one, an ArrayIndexOutOfBoundsException, found by the Minestom adapter's replay).
     */
    @Test
    void theAccessorsWorkAsTheFirstCallOfAnUpdate(@TempDir Path dir) {
        Path reel = record(dir);
        try (Playhead p = Playhead.open(reel, 0)) {
            Update u = p.seek(45);
            assertTrue(u.entityCount() > 0);
            int id = u.entityId(0);
            assertEquals(u.entities().get(0).id(), id);
        }
        try (Playhead p = Playhead.open(reel, 0)) {
            Update u = p.seek(45);
            double x = u.entityX(0);
            assertEquals(u.entities().get(0).pose().x(), x);
        }
        try (Playhead p = Playhead.open(reel, 0)) {
            Update u = p.seek(45);
            WorldChange.Kind kind = u.worldChangeKind(0);
            assertTrue(u.worldChangeCount() > 0);
            WorldChange first = u.worldChanges().get(0);
            assertEquals(first instanceof WorldChange.Block ? WorldChange.Kind.BLOCK
                    : first instanceof WorldChange.Health ? WorldChange.Kind.HEALTH : WorldChange.Kind.EQUIPMENT, kind);
        }
    }

    static List<Event> events(Path reel) {
        try (Reader r = Reader.open(reel)) {
            List<Event> out = new ArrayList<>();
            for (DecodedTick t : r.ticks(r.header().firstTick().orElseThrow(), r.header().lastTick().orElseThrow())) {
                out.addAll(t.events());
            }
            return out;
        }
    }

    static List<String> chat(Path reel) {
        return events(reel).stream().filter(e -> e instanceof Event.Chat).map(e -> ((Event.Chat) e).text()).toList();
    }

    static List<Integer> blockZs(Path reel) {
        return events(reel).stream().filter(e -> e instanceof Event.BlockChange).map(e -> ((Event.BlockChange) e).z()).toList();
    }
}
