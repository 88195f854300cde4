package io.tickreel;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.OptionalInt;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Terrain from Java: {@link TerrainSection}s offered with {@link ReelWriter#offerTerrain} and
 * {@link Recorder#offerTerrain}, read back with {@link WorldState#terrainSections()} and its
 * allocation-free accessors, a block looked up under the edited blocks; malformed sections
 * refused with the Java exceptions, nothing of them kept.
 */
class TerrainTest {
    static final int STONE = 1, GRASS = 8, DIRT = 9, GLASS = 42;

    /** Section (0, 4, 0): stone everywhere. */
    static final TerrainSection ALL_STONE = TerrainSection.single(0, 4, 0, STONE);

    /** Section (1, 4, 0): dirt at local x 0 of every row, grass elsewhere (4 bits per index). */
    static TerrainSection twoStates() {
        long[] packed = new long[256];
        // 16 indices per long; the first (lowest bits) of every 16 is lx 0: index 0, dirt.
        Arrays.fill(packed, 0x1111_1111_1111_1110L);
        return new TerrainSection(1, 4, 0, new int[] {DIRT, GRASS}, 4, packed);
    }

    static void ticks(ReelWriter w, int from, int to) {
        Batch b = new Batch();
        for (int t = from; t < to; t++) {
            b.clear();
            if (t == 0) {
                b.entityAdd(1, 7, 0, 64, 0, 0, 0);
            } else {
                b.pose(1, 0, 64, 0, 0, 0);
            }
            if (t == 5) {
                b.blockChange(17, 64, 0, GLASS, OptionalInt.empty(), null);
            }
            w.writeTick(t, b);
        }
    }

    @Test
    void terrainOfferedIsReadBackUnderTheEditedBlocks(@TempDir Path dir) {
        Path reel = dir.resolve("terrain.reel");
        try (ReelWriter w = ReelWriter.create(reel, ReelOptions.builder().chunkTicks(10).build())) {
            w.offerTerrain(List.of(ALL_STONE, twoStates()));
            ticks(w, 0, 20);
            w.finish();
        }
        try (Reader r = Reader.open(reel); WorldState world = r.worldAt(15)) {
            assertEquals(1, world.blockCount());
            assertEquals(2, world.terrainSectionCount());
            assertEquals(List.of(ALL_STONE, twoStates()), world.terrainSections());
            // The allocation-free accessors.
            assertEquals(List.of(1, 4, 0, 4, 2, 256),
                    List.of(world.terrainSectionX(1), world.terrainSectionY(1), world.terrainSectionZ(1),
                            world.terrainSectionBits(1), world.terrainPaletteLength(1), world.terrainPackedLength(1)));
            assertEquals(List.of(DIRT, GRASS), List.of(world.terrainPaletteState(1, 0), world.terrainPaletteState(1, 1)));
            assertEquals(0x1111_1111_1111_1110L, world.terrainPacked(1, 255));
            assertEquals(List.of(0, 1, 0), List.of(world.terrainSectionBits(0), world.terrainPaletteLength(0),
                    world.terrainPackedLength(0)));
            assertThrows(IndexOutOfBoundsException.class, () -> world.terrainPacked(0, 0));
            assertThrows(IndexOutOfBoundsException.class, () -> world.terrainSectionX(2));
            // Blocks: the terrain's, the edited block over it, nothing outside every section.
            assertEquals(STONE, world.block(3, 70, 5));
            assertEquals(DIRT, world.block(16, 64, 3));
            assertEquals(GRASS, world.block(18, 79, 15));
            assertEquals(GLASS, world.block(17, 64, 0));
            assertEquals(-1, world.block(40, 64, 0));
            try (WorldState before = r.worldAt(4)) {
                assertEquals(GRASS, before.block(17, 64, 0), "before its edit, the terrain's block");
            }
        }
    }

    @Test
    void aRecorderOffersTerrainToALiveRecording(@TempDir Path dir) throws Exception {
        Path reel = dir.resolve("live.reel");
        try (Engine engine = new Engine(); Recorder rec = engine.startRecording(reel, RecorderOptions.defaults())) {
            rec.offerTerrain(List.of(twoStates()));
            Batch b = new Batch();
            for (int t = 0; t < 30; t++) {
                b.clear();
                if (t == 0) {
                    b.entityAdd(1, 7, 0, 64, 0, 0, 0);
                } else {
                    b.pose(1, 0, 64, 0, 0, 0);
                }
                rec.submit(t, b);
                if (t == 10) {
                    rec.offerTerrain(List.of(ALL_STONE, TerrainSection.single(1, 4, 0, GLASS)));
                }
            }
            try (Pending<Path> done = rec.finish()) {
                assertEquals(reel, done.await());
            }
        }
        try (Reader r = Reader.open(reel)) {
            try (WorldState early = r.worldAt(5)) {
                assertEquals(List.of(twoStates()), early.terrainSections());
            }
            try (WorldState late = r.worldAt(29)) {
                // The later offer's section replaces the earlier one at the same position.
                assertEquals(List.of(ALL_STONE, TerrainSection.single(1, 4, 0, GLASS)), late.terrainSections());
                assertEquals(GLASS, late.block(16, 64, 3));
            }
        }
    }

    @Test
    void malformedSectionsAreRefusedAndNothingOfThemIsKept(@TempDir Path dir) {
        Path reel = dir.resolve("refused.reel");
        try (ReelWriter w = ReelWriter.create(reel, ReelOptions.builder().chunkTicks(10).build())) {
            IllegalArgumentException e;
            e = assertThrows(IllegalArgumentException.class,
                    () -> w.offerTerrain(List.of(new TerrainSection(0, 0, 0, new int[0], 0, new long[0]))));
            assertTrue(e.getMessage().contains("palette of 0 entries"), e.getMessage());
            TerrainSection two = twoStates();
            e = assertThrows(IllegalArgumentException.class,
                    () -> w.offerTerrain(List.of(new TerrainSection(1, 4, 0, two.palette(), 5, two.packed()))));
            assertTrue(e.getMessage().contains("bits"), e.getMessage());
            long[] past = two.packed().clone();
            past[3] = -1L; // indices 15 in a palette of 2
            e = assertThrows(IllegalArgumentException.class,
                    () -> w.offerTerrain(List.of(new TerrainSection(1, 4, 0, two.palette(), 4, past))));
            assertTrue(e.getMessage().contains("palette of 2"), e.getMessage());
            e = assertThrows(IllegalArgumentException.class,
                    () -> w.offerTerrain(List.of(two, two)));
            assertTrue(e.getMessage().contains("twice"), e.getMessage());
            List<TerrainSection> many = new ArrayList<>();
            for (int y = 0; y <= 16_384; y++) {
                many.add(TerrainSection.single(0, y, 0, STONE));
            }
            e = assertThrows(IllegalArgumentException.class, () -> w.offerTerrain(many));
            assertTrue(e.getMessage().contains("16385 sections"), e.getMessage());
            assertThrows(NullPointerException.class, () -> w.offerTerrain(Collections.singletonList(null)));
            assertThrows(NullPointerException.class, () -> w.offerTerrain(null));
            assertThrows(NullPointerException.class, () -> new TerrainSection(0, 0, 0, null, 0, new long[0]));
            ticks(w, 0, 20);
            w.finish();
        }
        try (Reader r = Reader.open(reel); WorldState world = r.worldAt(19)) {
            assertEquals(0, world.terrainSectionCount());
            assertEquals(List.of(), world.terrainSections());
            assertEquals(GLASS, world.block(17, 64, 0));
            assertEquals(-1, world.block(3, 70, 5));
        }
    }

    @Test
    void sectionsCompareByTheirContents() {
        TerrainSection a = twoStates();
        TerrainSection b = twoStates();
        assertEquals(a, b);
        assertEquals(a.hashCode(), b.hashCode());
        assertArrayEquals(a.packed(), b.packed());
        assertTrue(!a.equals(TerrainSection.single(1, 4, 0, DIRT)));
    }
}
