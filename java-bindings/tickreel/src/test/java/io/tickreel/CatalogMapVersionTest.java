package io.tickreel;

import static io.tickreel.CatalogTest.ALICE;
import static io.tickreel.CatalogTest.BOB;
import static io.tickreel.CatalogTest.get;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.CompletionException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Boards bound to a map version from Java: runs recorded with a world id and version carry them,
 * top / a player's best / a rank per map version, and a ghost recorded on another version than
 * the one played refused (naming both) unless allowed.
 */
class CatalogMapVersionTest {
    static final String COURSE = "course-m";
    static final UUID WORLD = new UUID(0x77, 1);
    static final MapVersion V1 = new MapVersion(WORLD, new UUID(0x71, 1));
    static final MapVersion V2 = new MapVersion(WORLD, new UUID(0x72, 2));

    /** A finished recording on map version {@code v} where entity 1 runs for {@code ticks} ticks. */
    static Path record(Path dir, String name, MapVersion v, int ticks) {
        Path reel = dir.resolve(name + ".reel");
        RecorderOptions o = RecorderOptions.builder().worldId(v.world()).worldVersion(v.version()).build();
        try (Engine engine = new Engine(); Recorder rec = engine.startRecording(reel, o)) {
            Batch b = new Batch();
            for (int t = 0; t <= ticks; t++) {
                b.clear();
                if (t == 0) {
                    b.entityAdd(1, 0, 0, 64, 0, 0, 0);
                } else {
                    b.pose(1, t * 0.2, 64, 0, 0, 0);
                }
                rec.submit(t, b);
            }
            return rec.finish().await();
        }
    }

    @Test
    void boardsAndGhostsFollowTheMapVersion(@TempDir Path dir) throws Exception {
        try (Catalog c = Catalog.open("sqlite:" + dir.resolve("maps.db"))) {
            GhostRange whole = GhostRange.all();
            // Alice set 100 ticks on the old layout; on the new one Bob 150, Alice 180.
            Run old = get(c.register(record(dir, "a1", V1, 100), COURSE, ALICE, "Alice", 1, whole));
            get(c.register(record(dir, "b2", V2, 150), COURSE, BOB, "Bob", 1, whole));
            get(c.register(record(dir, "a2", V2, 180), COURSE, ALICE, "Alice", 1, whole));
            assertEquals(Optional.of(V1), old.mapVersion());
            assertEquals(Optional.of(WORLD), old.world());
            assertEquals(Optional.of(V1.version()), old.worldVersion());

            // The network of any version: Alice's old 100 leads.
            List<Placed> any = get(c.topOn(null, null, COURSE, 10));
            assertEquals(List.of(100, 150), any.stream().map(p -> p.run().ticks()).toList());
            // The new version's board: Bob first, Alice's 180 second.
            List<Placed> v2 = get(c.topOn(null, V2, COURSE, 10));
            assertEquals(List.of("Bob", "Alice"), v2.stream().map(p -> p.run().playerName()).toList());
            assertEquals(List.of(Optional.of(V2), Optional.of(V2)), v2.stream().map(p -> p.run().mapVersion()).toList());
            assertEquals(2, get(c.personalBestOn(null, V2, COURSE, ALICE)).orElseThrow().rank());
            assertEquals(180, get(c.personalBestOn(null, V2, COURSE, ALICE)).orElseThrow().run().ticks());
            assertEquals(1, get(c.personalBestOn(null, V1, COURSE, ALICE)).orElseThrow().rank());
            assertEquals(Optional.empty(), get(c.personalBestOn(null, V1, COURSE, BOB)));
            assertEquals("Alice", get(c.atRankOn(null, V2, COURSE, 2)).orElseThrow().run().playerName());
            assertEquals(Optional.empty(), get(c.atRankOn(null, V2, COURSE, 3)));
            assertEquals(List.of(), get(c.topOn("eu-1", V2, COURSE, 10)), "no run on server eu-1");
            assertThrows(IllegalArgumentException.class, () -> c.atRankOn(null, V2, COURSE, 0));

            // The network's best, played on the new version: refused, naming both versions.
            CompletionException refused = assertThrows(CompletionException.class,
                () -> c.loadGhostOn(null, null, COURSE, 1, V2, false).future().join());
            IllegalArgumentException e = assertInstanceOf(IllegalArgumentException.class, refused.getCause());
            assertTrue(e.getMessage().contains(V1.version().toString()) && e.getMessage().contains(V2.version().toString()),
                e.getMessage());
            // Unless allowed.
            try (Pending<Ghost> load = c.loadGhostOn(null, null, COURSE, 1, V2, true);
                    Ghost ghost = load.await(Duration.ofSeconds(30)).orElseThrow()) {
                assertEquals(100, ghost.durationTicks());
            }
            // The new version's best, played on it; a player's best on it.
            try (Pending<Ghost> load = c.loadGhostOn(null, V2, COURSE, 1, V2, false);
                    Ghost ghost = load.await(Duration.ofSeconds(30)).orElseThrow()) {
                assertEquals(150, ghost.durationTicks());
            }
            try (Pending<Ghost> load = c.loadGhostOn(null, V2, COURSE, ALICE, V2, false);
                    Ghost ghost = load.await(Duration.ofSeconds(30)).orElseThrow()) {
                assertEquals(180, ghost.durationTicks());
            }
        }
    }
}
