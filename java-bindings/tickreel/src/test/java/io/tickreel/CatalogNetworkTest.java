package io.tickreel;

import static io.tickreel.CatalogTest.ALICE;
import static io.tickreel.CatalogTest.BOB;
import static io.tickreel.CatalogTest.COURSE;
import static io.tickreel.CatalogTest.get;
import static io.tickreel.CatalogTest.record;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The catalog of a network from Java: rows give their recording's location and server, a row's
 * recording opens in one call, boards of one server and a player's reports on any server.
 */
class CatalogNetworkTest {
    static final UUID DAVE = new UUID(4, 4);

    @Test
    void rowsGiveTheirRecordingAndOpenIt(@TempDir Path dir) throws Exception {
        try (Catalog c = Catalog.open("sqlite:" + dir.resolve("net.db"))) {
            GhostRange lap = GhostRange.checkpoints(0, 3);
            Path a = record(dir, "a", 240).toRealPath();
            Run run = get(c.register(a, COURSE, ALICE, "Alice", 1, lap));
            assertEquals(a.toString(), run.location());
            assertEquals(Optional.empty(), run.server(), "the recording names no server");
            Placed top = get(c.top(COURSE, 1)).get(0);
            assertEquals(a.toString(), top.run().location());
            try (Reader r = c.openRecording(top.run())) {
                assertEquals(241, r.header().tickCount());
                assertEquals(a, r.path());
            }
            // the network's board, and a server's (no run was recorded on one)
            assertEquals(get(c.top(COURSE, 10)), get(c.topOn(null, COURSE, 10)));
            assertEquals(List.of(), get(c.topOn("eu-1", COURSE, 10)));
            assertEquals(1, get(c.personalBestOn(null, COURSE, ALICE)).orElseThrow().rank());
            assertEquals(Optional.empty(), get(c.personalBestOn("eu-1", COURSE, ALICE)));

            Path cut = record(dir, "cut", 60).toRealPath();
            Report filed = get(c.addReport(BOB, "Bob", DAVE, "fly", cut.toString()));
            assertEquals(Optional.of(cut.toString()), filed.location());
            Report bare = get(c.addReport(BOB, "Bob", DAVE, "speed", null));
            assertEquals(Optional.empty(), bare.location());
            List<Report> bobs = get(c.reportsOf(BOB, null));
            assertEquals(2, bobs.size());
            assertTrue(bobs.stream().anyMatch(r -> r.id() == filed.id() && r.location().equals(filed.location())));
            assertEquals(List.of(), get(c.reportsOf(BOB, "eu-1")));
            assertEquals(List.of(), get(c.reportsOf(ALICE, null)));
            try (Reader r = c.openRecording(filed)) {
                assertEquals(61, r.header().tickCount());
            }
            assertThrows(IllegalArgumentException.class, () -> c.openRecording(bare));
        }
    }

    @Test
    void aRecordingNamesItsServerOnEveryRow(@TempDir Path dir) throws Exception {
        Path reel = dir.resolve("eu.reel");
        try (Engine engine = new Engine();
                Recorder rec = engine.startRecording(reel, RecorderOptions.builder().server("eu-1").build())) {
            Batch b = new Batch();
            for (int t = 0; t <= 40; t++) {
                b.clear();
                if (t == 0) {
                    b.entityAdd(1, 0, 0, 64, 0, 0, 0);
                } else {
                    b.pose(1, t * 0.25, 64, 0, 0, 0);
                }
                rec.submit(t, b);
            }
            reel = rec.finish().await();
        }
        try (Catalog c = Catalog.open("sqlite:" + dir.resolve("net.db"))) {
            Run run = get(c.register(reel, COURSE, ALICE, "Alice", 1, GhostRange.all()));
            assertEquals(Optional.of("eu-1"), run.server());
            assertEquals(List.of(run.id()), get(c.topOn("eu-1", COURSE, 10)).stream().map(p -> p.run().id()).toList());
            assertEquals(List.of(), get(c.topOn("us-1", COURSE, 10)));
            Report filed = get(c.addReport(BOB, "Bob", DAVE, "fly", reel.toString()));
            assertEquals(Optional.of("eu-1"), filed.server(), "the report's recording names the server");
            assertEquals(1, get(c.reportsOf(BOB, "eu-1")).size());
        }
        try (Engine engine = new Engine()) {
            RecorderOptions tooLong = RecorderOptions.builder().server("x".repeat(65)).build();
            assertThrows(IllegalArgumentException.class, () -> engine.startRecording(dir.resolve("bad.reel"), tooLong));
        }
    }
}
