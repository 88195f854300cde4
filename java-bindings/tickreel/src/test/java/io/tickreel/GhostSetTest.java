package io.tickreel;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.UUID;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Several ghosts at once ({@link GhostSet}) and splits against the gold ({@link GoldSplits}). */
class GhostSetTest {
    /**
     * The hand-computed table of the core's and C's gold splits tests: route 1, 2; gold 20, 30,
     * 30 ticks at 20 ticks a second (sum of best 80).
     *
     * <pre>
     * live | event        | segment | delta | new gold | best possible
     *   15 | -            |         |       |          | 80
     *   25 | -            |         |       |          | 85
     *   24 | checkpoint 2 | off the route: no split     | 84
     *   26 | checkpoint 1 | 0       | +6    | no       | 86
     *   51 | checkpoint 2 | 1       | -5    | yes      | 81
     *   90 | -            |         |       |          | 90
     *   83 | finish       | 2       | +2    | no       | 83
     *    0 | next attempt |         |       |          | 75
     * </pre>
     */
    @Test
    void goldSplitsAgainstAHandComputedTable() {
        try (GoldSplits g = new GoldSplits(new int[] {1, 2}, new int[] {20, 30, 30}, 20.0)) {
            GoldSplit s = new GoldSplit();
            assertEquals(80, g.sumOfBestTicks());
            assertEquals(80.0, g.bestPossibleTicks(15));
            assertEquals(85.0, g.bestPossibleTicks(25));
            assertFalse(g.checkpoint(2, 24, s), "off the route");
            assertEquals(84.0, s.bestPossibleTicks());
            assertTrue(g.checkpoint(1, 26, s));
            assertEquals(0, s.segment());
            assertEquals(26.0, s.segmentTicks());
            assertEquals(20.0, s.goldTicks());
            assertEquals(6.0, s.deltaTicks());
            assertEquals(0.3, s.deltaSeconds(), 1e-12);
            assertFalse(s.newGold());
            assertEquals(86.0, s.bestPossibleTicks());
            assertEquals(4.3, s.bestPossibleSeconds(), 1e-12);
            assertTrue(g.checkpoint(2, 51, s));
            assertEquals(1, s.segment());
            assertEquals(-5.0, s.deltaTicks());
            assertTrue(s.newGold());
            assertEquals(81.0, s.bestPossibleTicks());
            assertEquals("[20, 25, 30]", java.util.Arrays.toString(g.gold()));
            assertEquals(81.0, g.bestPossibleTicks(60));
            assertEquals(90.0, g.bestPossibleTicks(90));
            assertTrue(g.finish(83, s));
            assertEquals(2, s.segment());
            assertEquals(2.0, s.deltaTicks());
            assertFalse(s.newGold());
            assertEquals(83.0, s.bestPossibleTicks());
            g.reset();
            assertEquals(75.0, g.bestPossibleTicks(0));
            assertEquals(3.75, g.bestPossibleSeconds(0), 1e-12);
            assertThrows(IllegalArgumentException.class, () -> g.bestPossibleTicks(Double.NaN));
        }
        assertThrows(IllegalArgumentException.class, () -> new GoldSplits(new int[] {1, 2}, new int[] {20, 30}, 20));
        assertThrows(IllegalArgumentException.class, () -> new GoldSplits(new int[] {1}, new int[] {20, -1}, 20));
    }

    @Test
    void aSetSamplesEachGhostWithItsOwnCursorInOneCall(@TempDir Path dir) {
        Path reel = GhostTest.record(dir);
        try (Ghost whole = Ghost.load(reel, GhostTest.RUNNER);
                Ghost lap = Ghost.load(reel, GhostTest.RUNNER, GhostRange.checkpoints(0, 1));
                GhostSet set = new GhostSet();
                GhostCursor a = whole.cursor();
                GhostCursor b = lap.cursor()) {
            assertEquals(0, set.add(whole));
            assertEquals(1, set.add(lap));
            assertEquals(2, set.size());
            assertEquals(whole.durationTicks(), set.durationTicks(0));
            assertEquals(70, set.durationTicks(1));
            set.setTimeShift(1, 5);
            b.setTimeShift(5);
            GhostSample[] got = set.newSamples();
            GhostSample want = new GhostSample();
            for (double t = -3; t < 220; t += 2.5) {
                assertEquals(2, set.sample(t, got));
                a.sample(t, want);
                assertEquals(want.toString(), got[0].toString(), "ghost 0 at " + t);
                b.sample(t, want);
                assertEquals(want.toString(), got[1].toString(), "ghost 1 at " + t);
            }
            assertEquals(GhostSample.State.FINISHED, got[1].state());
            assertThrows(IllegalArgumentException.class, () -> set.setTimeShift(2, 1));
            assertThrows(IllegalArgumentException.class, () -> set.sample(Double.NaN, got));
            assertEquals(1, set.sample(1, new GhostSample[] {new GhostSample()}), "fewer samples than ghosts");
        }
    }

    /** A server tick of a ghost race allocates nothing: three ghosts sampled, a gold figure read. */
    @Test
    void aRaceTickAllocatesNothing(@TempDir Path dir) {
        Path reel = GhostTest.record(dir);
        try (Ghost ghost = Ghost.load(reel, GhostTest.RUNNER);
                GhostSet set = new GhostSet();
                GoldSplits gold = new GoldSplits(new int[] {1, 2}, new int[] {50, 70, 70}, 20.0)) {
            for (int i = 0; i < 3; i++) {
                set.add(ghost);
                set.setTimeShift(i, i * 3);
            }
            GhostSample[] samples = set.newSamples();
            GoldSplit split = new GoldSplit();
            double[] sink = new double[1];
            Runnable race = () -> {
                for (int t = 0; t < 200; t++) {
                    set.sample(t, samples);
                    sink[0] += samples[2].x();
                    gold.checkpoint(t == 60 ? 1 : 99, t, split);
                    sink[0] += gold.bestPossibleTicks(t) + split.bestPossibleTicks();
                }
                gold.reset();
            };
            for (int i = 0; i < 200; i++) { // warm up (JIT)
                race.run();
            }
            long bytes = PlayheadTest.allocatedBy(race);
            assertTrue(sink[0] > 0);
            assertEquals(0, bytes, "bytes allocated by 200 ticks of a three-ghost race");
        }
    }

    /** The catalog's top N, a player's best and a chosen rank, loaded at once into a set. */
    @Test
    void theCatalogLoadsTheTopAPersonalBestAndARankIntoOneSet(@TempDir Path dir) throws Exception {
        try (Catalog c = Catalog.open("sqlite:" + dir.resolve("runs.db"))) {
            GhostRange lap = GhostRange.checkpoints(0, 3);
            String course = CatalogTest.COURSE;
            CatalogTest.get(c.register(CatalogTest.record(dir, "a", 240), course, CatalogTest.ALICE, "Alice", 1, lap));
            CatalogTest.get(c.register(CatalogTest.record(dir, "b", 270), course, CatalogTest.BOB, "Bob", 1, lap));
            CatalogTest.get(c.register(CatalogTest.record(dir, "c", 330), course, CatalogTest.CAROL, "Carol", 1, lap));
            // A crafted run: 100 blocks in 10 ticks (200 blocks/s), the fastest time: held.
            UUID mallory = new UUID(6, 6);
            Run crafted = CatalogTest.get(c.register(CatalogTest.record(dir, "m", 10), course, mallory, "Mallory", 1, lap));
            assertTrue(crafted.held(), "the crafted run is held");
            // top 2 (Alice, Bob) + Bob's best (already there) + rank 3 (Carol)
            try (GhostSet set = CatalogTest.get(c.loadGhosts(course, 2, CatalogTest.BOB, 3))) {
                assertEquals(3, set.size());
                assertEquals(240, set.durationTicks(0));
                assertEquals(270, set.durationTicks(1));
                assertEquals(330, set.durationTicks(2));
                GhostSample[] s = set.newSamples();
                assertEquals(3, set.sample(250, s));
                assertEquals(GhostSample.State.FINISHED, s[0].state());
                assertEquals(GhostSample.State.RUNNING, s[1].state());
                assertEquals(GhostSample.State.RUNNING, s[2].state());
            }
            try (GhostSet all = CatalogTest.get(c.loadGhosts(course, 10, null, 0))) {
                assertEquals(3, all.size(), "the held run is never among the ghosts");
                assertEquals(240, all.durationTicks(0));
            }
            assertThrows(IllegalArgumentException.class, () -> c.loadGhosts(course, 0, mallory, 0).await(),
                "a held run is no one's best ghost");
            assertThrows(IllegalArgumentException.class, () -> c.loadGhosts(course, 1, new UUID(9, 9), 0).await());
            assertThrows(IllegalArgumentException.class, () -> c.loadGhosts(course, 1, null, 7).await());
        }
    }
}
