package io.tickreel;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.CompletionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The catalog from Java on SQLite (a temp file): register, the board's queries, ghosts, prune. */
class CatalogTest {
    static final String COURSE = "course-7";
    static final UUID ALICE = new UUID(1, 1);
    static final UUID BOB = new UUID(2, 2);
    static final UUID CAROL = new UUID(3, 3);

    /** A finished recording where entity 1 runs for {@code ticks} ticks with checkpoints at thirds. */
    static Path record(Path dir, String name, int ticks) {
        Path reel = dir.resolve(name + ".reel");
        try (Engine engine = new Engine();
                Recorder rec = engine.startRecording(reel, RecorderOptions.builder().build())) {
            Batch b = new Batch();
            for (int t = 0; t <= ticks; t++) {
                b.clear();
                if (t == 0) {
                    b.entityAdd(1, 0, 0, 64, 0, 0, 0);
                } else {
                    b.pose(1, t * 100.0 / ticks, 64, 0, 0, 0);
                }
                if (t == 0 || t == ticks / 3 || t == 2 * ticks / 3 || t == ticks) {
                    b.checkpoint(1, t == 0 ? 0 : t == ticks ? 3 : t == ticks / 3 ? 1 : 2);
                }
                rec.submit(t, b);
            }
            return rec.finish().await();
        }
    }

    /** A catalog call's result, awaited (a failure is thrown as the pending throws it). */
    static <T> T get(Pending<T> p) {
        try (p) {
            return p.await();
        }
    }

    @Test
    void runsRegisteredFromJavaMakeTheBoardAndItsGhosts(@TempDir Path dir) throws Exception {
        try (Catalog c = Catalog.open("sqlite:" + dir.resolve("runs.db"))) {
            GhostRange lap = GhostRange.checkpoints(0, 3);
            Run slow = get(c.register(record(dir, "a1", 300), COURSE, ALICE, "Alice", 1, lap));
            Run fast = get(c.register(record(dir, "a2", 240), COURSE, ALICE, "Alice", 1, lap));
            Run bob = get(c.register(record(dir, "b1", 270), COURSE, BOB, "Bob", 1, lap));
            Run carol = get(c.register(record(dir, "c1", 330), COURSE, CAROL, "Carol", 1, lap));
            assertEquals(300, slow.ticks());
            assertEquals(240, fast.ticks());
            assertEquals(12.0, fast.seconds(), 1e-9, "240 ticks at 20 ticks/s");
            assertNotEquals(slow.id(), fast.id());

            List<Placed> top = get(c.top(COURSE, 10));
            assertEquals(List.of(1L, 2L, 3L), top.stream().map(Placed::rank).toList());
            assertEquals(List.of("Alice", "Bob", "Carol"), top.stream().map(p -> p.run().playerName()).toList(),
                "one row per player: their best");
            assertEquals(fast.id(), top.get(0).run().id());

            Placed bobsBest = get(c.personalBest(COURSE, BOB)).orElseThrow();
            assertEquals(2, bobsBest.rank());
            assertEquals(bob.id(), bobsBest.run().id());
            assertEquals(Optional.empty(), get(c.personalBest(COURSE, new UUID(9, 9))));

            assertEquals(List.of(2L, 3L), get(c.around(COURSE, 3, 1)).stream().map(Placed::rank).toList());
            List<Run> recent = get(c.recent(ALICE, COURSE, 10));
            assertEquals(2, recent.size());
            assertTrue(recent.stream().anyMatch(r -> r.id() == slow.id()));

            SumOfBest sob = get(c.sumOfBest(COURSE, null)).orElseThrow();
            assertTrue(sob.segments().size() >= 3, "at least the three segments between four checkpoints: " + sob);
            assertTrue(sob.totalTicks() <= fast.ticks(), sob.toString());
            assertEquals(sob.segments().stream().mapToLong(SumOfBest.BestSegment::ticks).sum(), sob.totalTicks());

            try (Pending<Ghost> load = c.loadGhost(COURSE, 1);
                    Ghost ghost = load.await(Duration.ofSeconds(30)).orElseThrow()) {
                assertEquals(fast.ticks(), ghost.durationTicks(), "rank 1's ghost is Alice's 240-tick run");
            }
            try (Pending<Ghost> load = c.loadGhost(COURSE, CAROL);
                    Ghost ghost = load.await(Duration.ofSeconds(30)).orElseThrow()) {
                assertEquals(carol.ticks(), ghost.durationTicks());
            }
            CompletionException none = assertThrows(CompletionException.class, () -> c.loadGhost(COURSE, 7).future().join());
            assertInstanceOf(IllegalArgumentException.class, none.getCause());

            assertEquals(List.of(), get(c.prune(true)), "no retention policy: nothing to prune");
        }
    }

    @Test
    void aFailedRegistrationCompletesExceptionallyAndStoresNothing(@TempDir Path dir) throws Exception {
        try (Catalog c = Catalog.open("sqlite:" + dir.resolve("runs.db"))) {
            Path reel = record(dir, "r", 100);
            CompletionException e = assertThrows(CompletionException.class,
                () -> c.register(reel, COURSE, ALICE, "Alice", 42, GhostRange.all()).future().join());
            assertFalse(e.getCause() instanceof NullPointerException, String.valueOf(e.getCause()));
            CompletionException missing = assertThrows(CompletionException.class,
                () -> c.register(dir.resolve("missing.reel"), COURSE, ALICE, "Alice", 1, GhostRange.all()).future().join());
            assertInstanceOf(TickreelException.class, missing.getCause());
            assertEquals(List.of(), get(c.top(COURSE, 10)));
        }
    }

    @Test
    void aCallIsAPendingPolledWithoutBlockingWhoseFutureThreadEndsWithTheWork(@TempDir Path dir) throws Exception {
        try (Catalog c = Catalog.open("sqlite:" + dir.resolve("runs.db"))) {
            Path reel = record(dir, "p", 300);
            try (Pending<Run> reg = c.register(reel, COURSE, ALICE, "Alice", 1, GhostRange.checkpoints(0, 3))) {
                long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
                Optional<Run> run;
                while ((run = reg.poll()).isEmpty()) {
                    assertTrue(System.nanoTime() < deadline, "the registration never ended");
                    Thread.sleep(1);
                }
                assertTrue(reg.isReady());
                assertSame(run.get(), reg.poll().orElseThrow(), "the same result every call");
                assertSame(run.get(), reg.await(), "a wait after the poll gives it too");
            }
            // Futures are completed by one thread of these classes, which ends with the work.
            List<Placed> top = c.top(COURSE, 10).future().get(30, TimeUnit.SECONDS);
            assertEquals(1, top.size(), "the run registered above (300 ticks: never held)");
            assertEquals(null, c.clearRetention("runs").future().get(30, TimeUnit.SECONDS),
                "a call without rows completes with null");
            CompletionException none = assertThrows(CompletionException.class,
                () -> c.loadGhost(COURSE, 9).future().join());
            assertInstanceOf(IllegalArgumentException.class, none.getCause());
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
            while (Thread.getAllStackTraces().keySet().stream().anyMatch(t -> t.getName().equals("tickreel-pending"))) {
                assertTrue(System.nanoTime() < deadline, "the futures' thread is still running with nothing pending");
                Thread.sleep(5);
            }
            Pending<List<Placed>> closed = c.top(COURSE, 1);
            closed.close();
            assertThrows(IllegalStateException.class, closed::future, "closed before its future was asked for");
        }
    }

    @Test
    void closingCompletesQueuedCallsAndLaterCallsAreRefused(@TempDir Path dir) throws Exception {
        Catalog c = Catalog.open("sqlite:" + dir.resolve("runs.db"));
        var pending = c.top(COURSE, 5);
        c.close();
        assertEquals(List.of(), pending.future().get(10, TimeUnit.SECONDS), "a call queued before close still completes");
        assertThrows(IllegalStateException.class, () -> c.top(COURSE, 5));
        c.close(); // idempotent
        TickreelException other = assertThrows(TickreelException.class, () -> Catalog.open("mysql://nowhere/db"));
        assertEquals(TickreelException.Kind.UNSUPPORTED, other.kind());
    }
}
