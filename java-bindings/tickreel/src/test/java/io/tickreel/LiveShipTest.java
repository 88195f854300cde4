package io.tickreel;

import static io.tickreel.ObjectStorageTest.RUNNER;
import static io.tickreel.ObjectStorageTest.TICKS;
import static io.tickreel.ObjectStorageTest.options;
import static io.tickreel.ObjectStorageTest.url;
import static io.tickreel.ObjectStorageTest.x;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.OptionalInt;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A live recording shipped to object storage from Java ({@link Recorder#shipLive}), against the
 * S3 test server of {@link ObjectStorageTest}: a follower of its URL sees the shipped ticks, and
 * its finish leaves one {@code .reel} at the key and no live objects.
 */
class LiveShipTest {
    static void submit(Recorder rec, Batch b, int from, int to) {
        for (int tick = from; tick < to; tick++) {
            b.clear();
            if (tick == 0) {
                b.entityAdd(RUNNER, 0, x(0), 64, 0, 0, 0);
            } else {
                b.pose(RUNNER, x(tick), 64, 0, 0, 0);
            }
            rec.submit(tick, b);
        }
    }

    @Test
    void aShippedRecordingIsFollowedByUrlAndFinishesIntoOneReel(@TempDir Path dir) throws Exception {
        String key = "java/live-" + System.nanoTime() + ".reel";
        Path reel = dir.resolve("live.reel");
        try (Engine engine = new Engine();
                Recorder rec = engine.startRecording(reel, RecorderOptions.builder().chunkTicks(50).build())) {
            assertThrows(IllegalArgumentException.class, () -> rec.shipLive(url(key), options(), Duration.ZERO));
            assertThrows(IllegalArgumentException.class, () -> rec.shipLive("s3://", options(), Duration.ofSeconds(1)));
            // a long interval: only shipNow ships, so the test decides what is in the bucket
            try (LiveShipper ship = rec.shipLive(url(key), options(), Duration.ofMinutes(10))) {
                Batch b = new Batch();
                submit(rec, b, 0, 150);
                rec.flush();
                ship.shipNow();
                ShipStats s = ship.stats();
                assertEquals(OptionalInt.of(149), s.lastTick(), s.toString());
                assertTrue(s.batches() >= 1 && s.requests() >= 2 && s.segmentBytes() > 0, s.toString());
                assertEquals(0, s.errors(), s.toString());
                // the key now holds a live recording: a second shipper is refused
                assertThrows(TickreelException.class, () -> rec.shipLive(url(key), options(), Duration.ofSeconds(1)));

                try (Playhead follower = Playhead.followUrl(url(key), options(), 0)) {
                    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
                    while (follower.seek(149).waiting() || follower.position() != 149) {
                        assertTrue(System.nanoTime() < deadline, "the follower never saw tick 149: " + follower.update());
                        Thread.sleep(50);
                    }
                    EntityState e = follower.entities().stream().filter(st -> st.id() == RUNNER).findFirst().orElseThrow();
                    assertEquals(x(149), e.pose().x(), 1e-3, "the shipped pose at tick 149");
                }

                submit(rec, b, 150, TICKS);
                try (Engine other = new Engine();
                        Recorder stranger = other.startRecording(dir.resolve("other.reel"), RecorderOptions.builder().build())) {
                    assertThrows(IllegalArgumentException.class, () -> ship.finish(stranger, false, true),
                        "a finish names the recorder the shipper ships");
                    stranger.abort();
                }
                try (Pending<Uploaded> up = ship.finish(rec, false, true)) {
                    assertEquals(url(key), up.future().get(60, TimeUnit.SECONDS).url());
                }
                assertThrows(IllegalStateException.class, ship::shipNow);
                assertThrows(IllegalStateException.class, () -> ship.finish(rec, false, true));
                assertEquals(OptionalInt.of(149), ship.stats().lastTick(), "the counters as shipping stopped");
            }
        }
        try (var files = Files.list(dir)) {
            assertFalse(files.anyMatch(p -> p.getFileName().toString().startsWith("live.reel")),
                "the local file is removed after the upload");
        }
        try (Reader r = Reader.open(url(key), options())) {
            assertEquals(TICKS, r.header().tickCount(), "every tick in the uploaded .reel");
        }
        for (String live : new String[] {".live/manifest", ".live/batch-00000000"}) {
            TickreelException gone = assertThrows(TickreelException.class,
                () -> Reader.open(url(key) + live, options()).close(), live);
            assertTrue(gone.getMessage().contains("no such object"), gone.getMessage());
        }
    }
}
