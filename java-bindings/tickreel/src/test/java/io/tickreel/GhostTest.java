package io.tickreel;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Records a course run through the live recorder and races it as a {@link Ghost}. */
class GhostTest {
    static final int RUNNER = 7;
    static final int START = 40; // the runner appears at this tick of the recording
    static final int TICKS = 200;
    static final int[] CHECKPOINT_TICKS = {START + 50, START + 120, START + 190};

    static double x(int t) {
        return t * 0.25;
    }

    static double z(int t) {
        return Math.sin(t * 0.05) * 2;
    }

    /** A recording where entity 7 runs for 200 ticks from tick 40, with three checkpoints. */
    static Path record(Path dir) {
        Path reel = dir.resolve("course.reel");
        try (Engine engine = new Engine();
                Recorder rec = engine.startRecording(reel, RecorderOptions.builder().chunkTicks(64).build())) {
            Batch w = new Batch();
            for (int tick = 0; tick < START + TICKS; tick++) {
                w.clear().pose(1, 0, 64, tick * 0.01, 0, 0); // a bystander
                int t = tick - START;
                if (t == 0) {
                    w.entityAdd(RUNNER, 0, x(0), 64, z(0), 0, 0);
                } else if (t > 0) {
                    w.pose(RUNNER, x(t), 64 + (t % 8 == 0 ? 0.5 : 0), z(t), t * 1.5, -10);
                }
                if (t == 100) {
                    w.flags(RUNNER, EntityFlags.SPRINTING);
                }
                for (int i = 0; i < CHECKPOINT_TICKS.length; i++) {
                    if (tick == CHECKPOINT_TICKS[i]) {
                        w.checkpoint(RUNNER, i);
                    }
                }
                rec.submit(tick, w);
            }
            return rec.finish().await();
        }
    }

    @Test
    void aGhostSampledAtRecordedTicksIsAtTheRecordedPose(@TempDir Path dir) {
        Path reel = record(dir);
        try (Ghost ghost = Ghost.load(reel, RUNNER); GhostCursor cursor = ghost.cursor(); Reader replay = Reader.open(reel)) {
            assertEquals(RUNNER, ghost.entity());
            assertEquals(START, ghost.originTick());
            assertEquals(TICKS - 1, ghost.durationTicks());
            assertEquals(20.0, ghost.tickRate());
            assertEquals((TICKS - 1) / 20.0, ghost.durationSeconds(), 1e-12);
            assertEquals(List.of(new Split(0, 50, 2.5), new Split(1, 120, 6.0), new Split(2, 190, 9.5)),
                    ghost.splits());
            GhostSample s = new GhostSample();
            for (int t = 0; t < TICKS; t += 7) {
                assertSame(s, cursor.sample(t, s));
                Pose want = replay.seek(START + t).entity(RUNNER).orElseThrow().pose();
                assertEquals(want.x(), s.x(), 1e-9, "x at " + t);
                assertEquals(want.y(), s.y(), 1e-9, "y at " + t);
                assertEquals(want.z(), s.z(), 1e-9, "z at " + t);
                assertEquals(want.yaw(), s.yaw(), 1e-9, "yaw at " + t);
                assertEquals(want.pitch(), s.pitch(), 1e-9, "pitch at " + t);
                assertEquals(want, s.toPose());
                assertEquals(t, s.t());
                assertEquals(GhostSample.State.RUNNING, s.state());
                assertEquals(t >= 100, s.has(EntityFlags.SPRINTING), "flags at " + t);
            }
            // Between ticks: interpolated, within the segment.
            cursor.sample(10.5, s);
            assertTrue(s.x() > x(10) && s.x() < x(11), s.toString());
            assertEquals(GhostSample.State.NOT_STARTED, cursor.sample(-3).state());
            assertEquals(x(0), cursor.sample(-3).x(), 1e-9);
            GhostSample end = cursor.sample(TICKS + 50);
            assertEquals(GhostSample.State.FINISHED, end.state());
            assertEquals(x(TICKS - 1), end.x(), 1e-3);
            // A time shift delays the ghost.
            cursor.setTimeShift(20);
            assertEquals(20, cursor.timeShift());
            assertEquals(Pose.of(x(30), 64, z(30), 45, -10).x(), cursor.sample(50, s).x(), 1e-9);
            // A shift that is not a number is refused, as in C, and changes nothing.
            assertThrows(IllegalArgumentException.class, () -> cursor.setTimeShift(Double.NaN));
            assertEquals(20, cursor.timeShift());
        }
    }

    @Test
    void aRunBetweenCheckpointsAndALiveDelta(@TempDir Path dir) {
        Path reel = record(dir);
        try (Ghost lap = Ghost.load(reel, RUNNER, 0, 2)) {
            assertEquals(CHECKPOINT_TICKS[2] - CHECKPOINT_TICKS[0], lap.durationTicks());
            assertEquals(CHECKPOINT_TICKS[0], lap.originTick());
            assertEquals(List.of(0, 1, 2), lap.splits().stream().map(Split::checkpoint).toList());
            assertEquals(0, lap.splits().get(0).tick());
        }
        try (Ghost ghost = Ghost.load(reel, RUNNER, GhostRange.ticks(START, START + 150));
                LiveDelta delta = ghost.liveDelta()) {
            assertEquals(150, ghost.durationTicks());
            // A live player exactly one second (20 ticks) behind the ghost along its path.
            double shown = 0;
            for (int t = 20; t < 140; t++) {
                shown = delta.update(t, x(t - 20), 64, z(t - 20));
            }
            assertEquals(1.0, shown, 0.05);
            assertEquals(1.0, delta.rawSeconds(), 0.05);
            assertFalse(delta.ahead());
            assertTrue(delta.distance() < 0.6, "distance " + delta.distance());
            assertTrue(delta.formatted().startsWith("+1.0"), delta.formatted());
            delta.reset();
            delta.setTimeShift(0);
            // Ahead: at the ghost's position of 10 ticks later.
            for (int t = 0; t < 100; t++) {
                shown = delta.update(t, x(t + 10), 64, z(t + 10));
            }
            assertTrue(delta.ahead());
            assertEquals(-0.5, shown, 0.05);
            // Not a number is refused by the core's check, as in C (no made-up delta).
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                    () -> delta.update(100, Double.NaN, 64, 0));
            assertEquals("x must be a finite number (got NaN)", e.getMessage());
            assertThrows(IllegalArgumentException.class,
                    () -> delta.update(Double.POSITIVE_INFINITY, 0, 64, 0));
            assertEquals(-0.5, delta.seconds(), 0.05, "a refused update changes nothing");
        }
    }

    @Test
    void loadsInTheBackground(@TempDir Path dir) {
        Path reel = record(dir);
        try (Pending<Ghost> loading = Ghost.loadAsync(reel, RUNNER)) {
            Optional<Ghost> ghost = loading.await(Duration.ofSeconds(60));
            assertTrue(ghost.isPresent());
            try (Ghost g = ghost.get()) {
                assertEquals(TICKS - 1, g.durationTicks());
                assertEquals(3, g.splits().size());
            }
            assertSame(ghost.get(), loading.poll().orElseThrow(), "the same ghost on every call");
        }
        try (Pending<Ghost> missing = Ghost.loadAsync(dir.resolve("missing.reel"), RUNNER)) {
            TickreelException e = assertThrows(TickreelException.class,
                    () -> missing.await(Duration.ofSeconds(60)));
            assertEquals(TickreelException.Kind.IO, e.kind());
        }
        Pending<Ghost> closed = Ghost.loadAsync(reel, RUNNER);
        closed.close();
        assertThrows(IllegalStateException.class, closed::isReady);
    }

    @Test
    void badGhostInput(@TempDir Path dir) {
        Path reel = record(dir);
        assertThrows(IllegalArgumentException.class, () -> Ghost.load(reel, 999), "no such entity");
        assertThrows(IllegalArgumentException.class, () -> Ghost.load(reel, RUNNER, 0, 9), "no such checkpoint");
        assertThrows(TickreelException.class, () -> Ghost.load(dir.resolve("missing.reel"), RUNNER));
        assertThrows(IllegalArgumentException.class, () -> GhostRange.ticks(10, 5));
        Ghost ghost = Ghost.load(reel, RUNNER);
        GhostCursor cursor = ghost.cursor();
        ghost.close();
        ghost.close();
        assertThrows(IllegalStateException.class, ghost::cursor);
        // The cursor holds its own reference to the data.
        assertEquals(x(10), cursor.sample(10).x(), 1e-9);
        cursor.close();
        assertThrows(IllegalStateException.class, () -> cursor.sample(1));
    }
}
