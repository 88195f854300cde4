package io.tickreel;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Writes recordings through {@link ReelWriter} and reads them back through {@link Reader}. */
class ReaderTest {
    static final UUID WORLD = UUID.fromString("8f1c2a44-0000-4000-8000-00000000abcd");

    /** x of player {@code p} at {@code tick}: a run along x with a sway in z. */
    static double x(int p, int tick) {
        return p * 10 + tick * 0.2806;
    }

    static Path record(Path dir, int players, int ticks) {
        Path reel = dir.resolve("run.reel");
        ReelOptions options = ReelOptions.builder()
                .worldId(WORLD)
                .worldVersion(new UUID(1, 2))
                .startedAt(Instant.ofEpochMilli(1_700_000_000_123L))
                .gameDataVersion(3955)
                .chunkTicks(50)
                .snapshotInterval(100)
                .compressionLevel(5)
                .build();
        try (ReelWriter w = ReelWriter.create(reel, options)) {
            assertEquals(reel, w.path());
            for (int p = 1; p <= players; p++) {
                w.registerEntity(EntityInfo.player(p, new UUID(42, p), "runner" + p));
            }
            w.registerEntity(new EntityInfo(1000, 55, null, null));
            w.registerEventType(new EventType(1, "block_change", 2));
            w.setUserMetadata("course", "lava-run");
            w.setUserMetadata(Map.of("best", 1234L, "tags", List.of("a", "b"), "author", new UUID(5, 6)));
            Batch t = new Batch();
            for (int tick = 0; tick < ticks; tick++) {
                t.clear();
                if (tick == 0) {
                    w.offerSnapshot(new byte[] {1, 2, 3});
                    for (int p = 1; p <= players; p++) {
                        t.entityAdd(p, 0, x(p, 0), 64, 0, 0, 0);
                    }
                } else {
                    for (int p = 1; p <= players; p++) {
                        if (tick > 100 && p == players) {
                            continue; // left at tick 100
                        }
                        t.pose(p, x(p, tick), 64 + (tick % 10) * 0.1, Math.sin(tick * 0.1), tick * 2.5, -5);
                    }
                }
                if (tick == 30) {
                    t.flags(1, EntityFlags.ON_GROUND | EntityFlags.SPRINTING).checkpoint(1, 1);
                    t.custom(1, new byte[] {9, 9});
                }
                if (tick == 60) {
                    t.teleport(2, 0, 100, 0, 0, 0);
                }
                if (tick == 100) {
                    t.playerLeave(players);
                }
                w.writeTick(tick, t);
            }
            long size = w.finish();
            assertEquals(size, reel.toFile().length());
        }
        return reel;
    }

    @Test
    void writesAndReadsBack(@TempDir Path dir) {
        Path reel = record(dir, 4, 150);
        try (Reader r = Reader.open(reel)) {
            assertEquals(reel, r.path());
            Header info = r.header();
            assertEquals(0, info.firstTick().getAsInt());
            assertEquals(149, info.lastTick().getAsInt());
            assertEquals(150, info.tickCount());
            assertEquals(3, info.chunkCount());
            assertEquals(20.0, info.ticksPerSecond());
            assertEquals(7.5, info.durationSeconds());
            assertEquals(Instant.ofEpochMilli(1_700_000_000_123L), info.startedAt());
            assertEquals(WORLD, info.worldId());
            assertEquals(new UUID(1, 2), info.worldVersion());
            assertEquals(3955, info.gameDataVersion());
            assertEquals(0, info.dictionaryId());
            assertEquals(1, info.formatVersion());
            assertTrue(info.dataVersion() >= 1);
            assertEquals(info.fileSize(), reel.toFile().length());

            Map<String, Object> meta = r.metadata();
            assertEquals("lava-run", meta.get("course"));
            assertEquals(1234L, meta.get("best"));
            assertEquals(List.of("a", "b"), meta.get("tags"));
            assertArrayEquals(new int[] {0, 5, 0, 6}, (int[]) meta.get("author"));
            assertFalse(meta.containsKey("tickreel"));
            // the writer's counters are in the header, no longer in the metadata
            assertFalse(r.libraryMetadata().containsKey("stats"));
            assertEquals(150, info.ticksWritten());
            assertEquals(0, info.droppedTicks());
            assertTrue(info.poseSamples() >= 149 * 3, "pose samples " + info.poseSamples());
            assertTrue(info.events() > 0, "events " + info.events());

            List<EntityInfo> entities = r.entities();
            assertEquals(5, entities.size());
            assertTrue(entities.contains(EntityInfo.player(3, new UUID(42, 3), "runner3")));
            EntityInfo npc = entities.stream().filter(e -> e.id() == 1000).findFirst().orElseThrow();
            assertEquals(55, npc.kind());
            assertTrue(npc.optionalUuid().isEmpty());
            assertTrue(npc.optionalName().isEmpty());
            assertEquals(List.of(new EventType(1, "block_change", 2)), r.eventTypes());

            SeekState s = r.seek(75);
            assertEquals(75, s.tick());
            assertEquals(4, s.entities().size());
            EntityState p1 = s.entity(1).orElseThrow();
            assertEquals(Pose.of(x(1, 75), 64 + 5 * 0.1, Math.sin(75 * 0.1), 187.5, -5), p1.pose());
            assertTrue(p1.has(EntityFlags.SPRINTING));
            assertEquals(EntityFlags.ON_GROUND | EntityFlags.SPRINTING, p1.flags());
            assertEquals(0, s.entity(2).orElseThrow().kind());
            assertTrue(s.entity(99).isEmpty());
            // The player who left at tick 100 is gone afterwards; seeking is clamped.
            assertEquals(3, r.seek(120).entities().size());
            assertEquals(149, r.seek(1_000_000).tick());
            assertEquals(Pose.of(x(2, 0), 64, 0, 0, 0), r.seek(0).entity(2).orElseThrow().pose());

            List<DecodedTick> ticks = r.ticks(29, 31);
            assertEquals(List.of(29, 30, 31), ticks.stream().map(DecodedTick::tick).toList());
            List<Event> at30 = ticks.get(1).events();
            assertTrue(at30.contains(new Event.Flags(1, EntityFlags.ON_GROUND | EntityFlags.SPRINTING)));
            assertTrue(at30.contains(new Event.Checkpoint(1, 1)));
            assertTrue(at30.contains(new Event.Moved(3, Pose.of(x(3, 30), 64, Math.sin(30 * 0.1), 75, -5))));
            Event.Custom custom = (Event.Custom) at30.stream().filter(e -> e instanceof Event.Custom).findFirst().orElseThrow();
            assertArrayEquals(new byte[] {9, 9}, custom.data());
            assertTrue(r.ticks(60, 60).get(0).events().contains(new Event.Teleport(2, Pose.of(0, 100, 0, 0, 0))));
            assertEquals(150, r.ticks(0, 149).size());
            int[] count = {0};
            r.forEachTick(140, Integer.MAX_VALUE, t -> count[0]++);
            assertEquals(10, count[0]);

            VerifyReport v = r.verify();
            assertEquals(3, v.chunks());
            assertEquals(150, v.ticks());
            assertTrue(v.poseSamples() >= 4 * 100);
        }
    }

    @Test
    void longRecordingsAreReadInSeveralNativeCalls(@TempDir Path dir) {
        // 200 players x 600 ticks is over the 4 MiB a single native call returns.
        Path reel = dir.resolve("big.reel");
        try (ReelWriter w = ReelWriter.create(reel, ReelOptions.defaults())) {
            Batch t = new Batch();
            for (int tick = 0; tick < 600; tick++) {
                t.clear();
                for (int p = 0; p < 200; p++) {
                    t.pose(p, p + tick * 0.3, 64, tick * 0.01 * p, tick * 7.0 + p, 0);
                }
                w.writeTick(tick, t);
            }
            w.finish();
        }
        try (Reader r = Reader.open(reel)) {
            int[] seen = {0, -1};
            r.forEachTick(0, 599, t -> {
                assertEquals(seen[1] + 1, t.tick());
                assertEquals(200, t.events().size());
                seen[0]++;
                seen[1] = t.tick();
            });
            assertEquals(600, seen[0]);
        }
    }

    @Test
    void anEmptyRecordingHasNoTicks(@TempDir Path dir) {
        Path reel = dir.resolve("empty.reel");
        try (ReelWriter w = ReelWriter.create(reel, ReelOptions.defaults())) {
            w.finish();
        }
        try (Reader r = Reader.open(reel)) {
            assertTrue(r.header().firstTick().isEmpty());
            assertEquals(0, r.header().tickCount());
            assertEquals(List.of(), r.ticks(0, 100));
            assertEquals(Map.of(), r.metadata());
            org.junit.jupiter.api.Assertions.assertThrows(IllegalStateException.class, () -> r.seek(0));
        }
    }
}
