package io.tickreel;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Plays recordings written by {@link ReaderTest#record} through {@link Playhead}, checked against {@link Reader#seek}. */
class PlayheadTest {
    static final int TICKS = 240;

    /**
     * Advances a playing playhead until it reaches the edge in its direction (or, forward, passes
     * {@code stopAt}), checking every update against {@link Reader#seek}. An update that follows
     * a stall may cover more ticks (the playhead catches up); every other update must cover exactly
     * {@code step} ticks. Returns how many such exact updates were seen.
     */
    static int playThrough(Reader r, Playhead p, int step, int stopAt) {
        boolean owed = false;
        int exact = 0;
        for (int calls = 0; calls < 1_000_000; calls++) {
            Update u = p.advance();
            int moved = u.position() - u.from();
            if (u.motion() == Update.Motion.STILL) {
                assertEquals(0, moved);
                if (u.atEdge()) {
                    return exact;
                }
                assertTrue(u.stalled(), "a playing playhead away from the edge only stands still when stalled");
                owed = true;
                Thread.onSpinWait();
                continue;
            }
            assertEquals(u.reverse() ? Update.Motion.JUMP : Update.Motion.FORWARD, u.motion());
            assertTrue(u.reverse() ? moved < 0 : moved > 0, "moves in the direction of play: " + u);
            assertMatchesSeek(r, u);
            if (!owed && !u.stalled() && !u.atEdge()) {
                assertEquals(step, Math.abs(moved), "ticks covered by one advance: " + u);
                exact++;
            }
            owed = u.stalled();
            if (u.atEdge() || (!u.reverse() && u.position() >= stopAt)) {
                return exact;
            }
        }
        throw new AssertionError("the playhead never reached the edge");
    }

    static void assertMatchesSeek(Reader r, Update u) {
        assertEquals(r.seek(u.position()).entities(), u.entities(), "entities at tick " + u.position());
        assertEquals(u.entities().size(), u.entityCount());
        assertEquals(0, u.faultCount());
        assertFalse(u.waiting());
    }

    @Test
    void forwardToTheEndAndBackMatchesSeek(@TempDir Path dir) {
        Path reel = ReaderTest.record(dir, 3, TICKS);
        try (Reader r = Reader.open(reel); Playhead p = Playhead.open(reel)) {
            Update first = p.update();
            assertEquals(0, first.position());
            assertEquals(0, p.position());
            assertEquals(Update.Motion.JUMP, first.motion());
            assertMatchesSeek(r, first);
            assertEquals(3, first.entityCount());

            // Paused: advance does not move.
            Update still = p.advance();
            assertSame(first, still);
            assertEquals(Update.Motion.STILL, still.motion());
            assertEquals(0, still.position());

            p.play();
            assertTrue(playThrough(r, p, 1, Integer.MAX_VALUE) > 0, "some advance covered exactly one tick");
            assertEquals(TICKS - 1, p.position());
            assertTrue(p.update().atEdge());
            // Player 3 left at tick 100.
            assertEquals(2, p.entities().size());

            p.setReverse(true);
            assertTrue(playThrough(r, p, 1, Integer.MAX_VALUE) > 0, "some reverse advance covered exactly one tick");
            assertEquals(0, p.position());
            assertTrue(p.update().atEdge());
            assertTrue(p.update().reverse());
            assertEquals(3, p.entities().size());
        }
    }

    @Test
    void doubleSpeedCoversTwoTicksPerAdvance(@TempDir Path dir) {
        Path reel = ReaderTest.record(dir, 2, TICKS);
        try (Reader r = Reader.open(reel); Playhead p = Playhead.open(reel, 10)) {
            assertEquals(10, p.position());
            p.setSpeed(2.0);
            p.play();
            assertTrue(playThrough(r, p, 2, 200) > 0, "some advance covered exactly two ticks");
            assertTrue(p.position() >= 200);
            // Stepping and seeking.
            p.pause();
            assertEquals(100, p.seek(100).position());
            Update f = p.stepForward();
            assertEquals(101, f.position());
            assertMatchesSeek(r, f);
            Update b = p.stepBack();
            assertEquals(100, b.position());
            assertMatchesSeek(r, b);
            assertEquals(Update.Motion.STILL, p.advance().motion());
            Update s = p.seek(50);
            assertEquals(50, s.position());
            assertEquals(Update.Motion.JUMP, s.motion());
            assertMatchesSeek(r, s);
            assertEquals(TICKS - 1, p.seek(1_000_000).position());
        }
    }

    /** A jump says what to spawn and rebuild; forward play gives the recorded ticks with their events. */
    @Test
    void updatesCarryTheirTicksAddedEntitiesAndWorldRebuilds(@TempDir Path dir) {
        Path reel = ReaderTest.record(dir, 3, TICKS);
        try (Reader r = Reader.open(reel); Playhead p = Playhead.open(reel)) {
            Update first = p.update();
            assertEquals(Update.Motion.JUMP, first.motion());
            assertEquals(first.entities(), first.added(), "the opening jump spawns everything");
            assertEquals(0, first.removed().length);
            Rebuild world = first.rebuild().orElseThrow();
            assertTrue(world.complete());
            assertTrue(first.ticks().isEmpty());
            p.play();
            p.setSpeed(2);
            Update u;
            do {
                u = p.advance();
            } while (u.motion() != Update.Motion.FORWARD);
            List<DecodedTick> ticks = u.ticks();
            assertEquals(u.position() - u.from(), ticks.size(), u.toString());
            assertEquals(r.ticks(u.from() + 1, u.position()), ticks, "the same ticks as Reader.ticks");
            assertTrue(u.rebuild().isEmpty(), "forward play keeps the world");
        }
    }

    /** Bytes the calling thread allocated on the Java heap while running {@code body}. */
    static long allocatedBy(Runnable body) {
        com.sun.management.ThreadMXBean mx =
                (com.sun.management.ThreadMXBean) java.lang.management.ManagementFactory.getThreadMXBean();
        long id = Thread.currentThread().getId();
        long before = mx.getThreadAllocatedBytes(id);
        body.run();
        return mx.getThreadAllocatedBytes(id) - before;
    }

    /**
     * {@code advance()} refills the playhead's update in place: a server tick that does not ask
     * for {@code entities()} allocates nothing on the Java heap (200 entities here; before the
     * update was generated as a fill, each call allocated a new long[] of 1,609 longs).
     */
    @Test
    void advanceAllocatesNothingWithoutEntities(@TempDir Path dir) {
        Path reel = ReaderTest.record(dir, 200, TICKS);
        try (Playhead p = Playhead.open(reel)) {
            p.play();
            for (int i = 0; i < 2_000; i++) { // warm up (JIT) and wrap around
                if (p.advance().atEdge()) {
                    p.seek(0);
                    p.play();
                }
            }
            p.seek(0);
            p.play();
            long[] moved = new long[1];
            long bytes = allocatedBy(() -> {
                for (int i = 0; i < 100; i++) {
                    Update u = p.advance();
                    moved[0] += u.position() - u.from();
                }
            });
            assertTrue(moved[0] > 0, "the playhead moved");
            assertEquals(0, bytes, "bytes allocated by 100 advance() calls");
            // entities() still works, from the playhead at that moment, into a reused array.
            assertTrue(p.update().entityCount() > 150, p.update().toString());
            assertEquals(p.update().entityCount(), p.update().entities().size());
        }
    }

    @Test
    void badSpeedAndClosedHandle(@TempDir Path dir) {
        Path reel = ReaderTest.record(dir, 1, 60);
        Playhead p = Playhead.open(reel);
        assertThrows(IllegalArgumentException.class, () -> p.setSpeed(0.1));
        assertThrows(IllegalArgumentException.class, () -> p.setSpeed(16.5));
        assertThrows(IllegalArgumentException.class, () -> p.setSpeed(Double.NaN));
        assertThrows(IllegalArgumentException.class, () -> p.seek(-1));
        assertThrows(IllegalArgumentException.class, () -> Playhead.open(reel, -5));
        p.setSpeed(Playhead.MIN_SPEED);
        p.setSpeed(Playhead.MAX_SPEED);
        p.close();
        p.close();
        assertThrows(IllegalStateException.class, p::advance);
        assertThrows(IllegalStateException.class, () -> p.seek(3));
        assertThrows(IllegalStateException.class, p::stepForward);
        assertThrows(IllegalStateException.class, p::stepBack);
        assertThrows(IllegalStateException.class, p::play);
        assertThrows(IllegalStateException.class, p::pause);
        assertThrows(IllegalStateException.class, () -> p.setSpeed(2));
        assertThrows(IllegalStateException.class, () -> p.setReverse(true));
        assertThrows(IllegalStateException.class, p::position);
        assertThrows(IllegalStateException.class, p::update);
        assertThrows(TickreelException.class, () -> Playhead.open(dir.resolve("missing.reel")));
    }
}
