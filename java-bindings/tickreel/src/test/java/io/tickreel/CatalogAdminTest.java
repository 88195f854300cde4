package io.tickreel;

import static io.tickreel.CatalogTest.ALICE;
import static io.tickreel.CatalogTest.BOB;
import static io.tickreel.CatalogTest.COURSE;
import static io.tickreel.CatalogTest.get;
import static io.tickreel.CatalogTest.record;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.List;
import java.util.OptionalInt;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.CompletionException;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The catalog's operator calls from Java on SQLite: reports, run validity, retention, register on finish. */
class CatalogAdminTest {
    static final UUID DAVE = new UUID(4, 4);

    @Test
    void reportsAreFiledListedAndClosed(@TempDir Path dir) throws Exception {
        try (Catalog c = Catalog.open("sqlite:" + dir.resolve("runs.db"))) {
            Path cut = record(dir, "cut", 60);
            Report filed = get(c.addReport(BOB, "Bob", DAVE, "fly", cut.toString()));
            assertTrue(filed.open());
            assertEquals(BOB, filed.reported());
            assertEquals(DAVE, filed.reporter());
            assertEquals("fly", filed.reason());
            assertTrue(filed.recordingId().isPresent(), "the report's recording is registered");
            Report bare = get(c.addReport(ALICE, "Alice", DAVE, "speed", null));
            assertFalse(bare.recordingId().isPresent());

            assertEquals(Set.of(filed.id(), bare.id()), ids(get(c.openReports())));
            get(c.setReportOpen(filed.id(), false));
            assertEquals(Set.of(bare.id()), ids(get(c.openReports())));
            List<Report> all = get(c.reports());
            assertEquals(2, all.size());
            assertFalse(all.stream().filter(r -> r.id() == filed.id()).findFirst().orElseThrow().open());
            CompletionException none = assertThrows(CompletionException.class,
                () -> c.setReportOpen(9999, false).future().join());
            assertInstanceOf(IllegalArgumentException.class, none.getCause());
        }
    }

    static Set<Long> ids(List<Report> reports) {
        return reports.stream().map(Report::id).collect(Collectors.toSet());
    }

    @Test
    void anInvalidRunLeavesTheBoardAndRetentionDecidesWhatPruneDeletes(@TempDir Path dir) throws Exception {
        try (Catalog c = Catalog.open("sqlite:" + dir.resolve("runs.db"))) {
            GhostRange lap = GhostRange.checkpoints(0, 3);
            Run slow = get(c.register(record(dir, "a1", 300), COURSE, ALICE, "Alice", 1, lap));
            Run fast = get(c.register(record(dir, "a2", 240), COURSE, ALICE, "Alice", 1, lap));
            Run bob = get(c.register(record(dir, "b1", 270), COURSE, BOB, "Bob", 1, lap));
            assertEquals(fast.id(), get(c.top(COURSE, 1)).get(0).run().id());

            get(c.setRunValid(fast.id(), false));
            List<Placed> top = get(c.top(COURSE, 10));
            assertEquals(List.of(bob.id(), slow.id()), top.stream().map(p -> p.run().id()).toList(),
                "Alice's best is now her slow run, behind Bob");
            get(c.setRunValid(fast.id(), true));
            assertEquals(fast.id(), get(c.top(COURSE, 1)).get(0).run().id());
            CompletionException none = assertThrows(CompletionException.class, () -> c.setRunValid(9999, true).future().join());
            assertInstanceOf(IllegalArgumentException.class, none.getCause());

            assertEquals(List.of(), get(c.prune(true)), "no policy: nothing pruned");
            RetentionPolicy topOnly = new RetentionPolicy("course:" + COURSE, OptionalInt.of(1), false,
                OptionalInt.empty(), true);
            get(c.setRetention(topOnly));
            assertEquals(List.of(topOnly), get(c.retention()));
            Set<Long> doomed = get(c.prune(true)).stream().map(Pruned::recordingId).collect(Collectors.toSet());
            assertEquals(Set.of(slow.recordingId(), bob.recordingId()), doomed, "only rank 1's recording is kept");
            List<Pruned> pruned = get(c.prune(false));
            assertEquals(2, pruned.size());
            assertFalse(java.nio.file.Files.exists(dir.resolve("a1.reel")), "the pruned file is deleted");
            assertTrue(java.nio.file.Files.exists(dir.resolve("a2.reel")), "the kept file stays");

            get(c.clearRetention("course:" + COURSE));
            assertEquals(List.of(), get(c.retention()));
            assertThrows(IllegalArgumentException.class, () -> c.clearRetention("nonsense"));
        }
    }

    @Test
    void aRunTooFastForItsCourseIsHeldUntilAModeratorClearsIt(@TempDir Path dir) throws Exception {
        try (Catalog c = Catalog.open("sqlite:" + dir.resolve("runs.db"))) {
            GhostRange lap = GhostRange.checkpoints(0, 3);
            // 100 blocks in 30 ticks: 3.33 blocks a tick, 67 a second
            Run fast = get(c.register(record(dir, "fast", 30), COURSE, BOB, "Bob", 1, lap));
            Run honest = get(c.register(record(dir, "honest", 300), COURSE, ALICE, "Alice", 1, lap));
            assertTrue(fast.held());
            assertFalse(honest.held());
            assertEquals(List.of(honest.id()), get(c.top(COURSE, 10)).stream().map(p -> p.run().id()).toList());
            assertTrue(get(c.personalBest(COURSE, BOB)).isEmpty(), "a held run is no one's best");
            CompletionException noGhost = assertThrows(CompletionException.class,
                () -> c.loadGhost(COURSE, BOB).future().join());
            assertInstanceOf(IllegalArgumentException.class, noGhost.getCause());

            RunCheck check = get(c.checkRun(fast.id()));
            assertTrue(check.held());
            assertEquals(1, check.holds().size());
            assertEquals("horizontal_speed", check.holds().get(0).reason());
            assertEquals(OptionalInt.of(1), check.holds().get(0).tick(), "the first tick it moved");
            assertTrue(check.holds().get(0).detail().contains("3.33 blocks a tick"), check.holds().get(0).detail());
            assertEquals(check, get(c.runCheck(fast.id())));
            assertFalse(get(c.checkRun(honest.id())).held());

            CompletionException noName = assertThrows(CompletionException.class, () -> c.clearRun(fast.id(), "").future().join());
            assertInstanceOf(IllegalArgumentException.class, noName.getCause());
            RunCheck cleared = get(c.clearRun(fast.id(), "mod-erin"));
            assertFalse(cleared.held());
            assertEquals(java.util.Optional.of("mod-erin"), cleared.clearedBy());
            assertTrue(cleared.clearedMs() > 0);
            assertEquals(fast.id(), get(c.top(COURSE, 1)).get(0).run().id(), "cleared, the fast run leads");
            CompletionException notHeld = assertThrows(CompletionException.class,
                () -> c.clearRun(fast.id(), "mod-erin").future().join());
            assertInstanceOf(IllegalStateException.class, notHeld.getCause());
            CompletionException none = assertThrows(CompletionException.class, () -> c.checkRun(9999).future().join());
            assertInstanceOf(IllegalArgumentException.class, none.getCause());

            // an elytra course: 3.33 blocks a tick is within its limits
            assertThrows(IllegalArgumentException.class, () -> c.setCourseLimits("sky", "rocket", 0, 0, 0, 0, 0, 0, 0));
            get(c.setCourseLimits("sky", "elytra", 0, 0, 0, 0, 0, 0, 0));
            assertFalse(get(c.register(record(dir, "glide", 30), "sky", BOB, "Bob", 1, lap)).held());
        }
    }

    @Test
    void aRunIsRegisteredStraightFromItsFinish(@TempDir Path dir) throws Exception {
        try (Catalog c = Catalog.open("sqlite:" + dir.resolve("runs.db"));
                Engine engine = new Engine();
                Recorder rec = engine.startRecording(dir.resolve("live.reel"), RecorderOptions.builder().build())) {
            Batch b = new Batch();
            for (int t = 0; t <= 90; t++) {
                b.clear();
                if (t == 0) {
                    b.entityAdd(1, 0, 0, 64, 0, 0, 0);
                } else {
                    b.pose(1, t * 0.25, 64, 0, 0, 0);
                }
                if (t == 0 || t == 90) {
                    b.checkpoint(1, t / 90);
                }
                rec.submit(t, b);
            }
            try (Pending<Path> finish = rec.finish()) {
                Run run = get(c.registerFinished(finish, COURSE, ALICE, "Alice", 1, GhostRange.checkpoints(0, 1)));
                assertEquals(90, run.ticks());
                assertEquals(run.id(), get(c.top(COURSE, 1)).get(0).run().id());
            }
        }
    }
}
