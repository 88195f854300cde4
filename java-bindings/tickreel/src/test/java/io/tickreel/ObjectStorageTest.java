package io.tickreel;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Recordings in object storage from Java, against the real S3-protocol test server (moto_server
 * with signatures checked) that {@code java-bindings/test.sh} starts on loopback and describes in
 * the system properties {@code tickreel.test.s3.*}. Without them the tests fail, never skip.
 */
class ObjectStorageTest {
    static final int TICKS = 300;
    static final int RUNNER = 3;

    static String prop(String name) {
        String v = System.getProperty("tickreel.test.s3." + name);
        if (v == null || v.isEmpty()) {
            throw new AssertionError("system property tickreel.test.s3." + name
                + " is not set: run the tests with java-bindings/test.sh, which starts the S3 test server");
        }
        return v;
    }

    static ObjectOptions options() {
        return ObjectOptions.fromEnv()
            .withEndpoint(prop("endpoint"))
            .withRegion("us-east-1")
            .withCredentials(prop("accessKeyId"), prop("secretAccessKey"), null)
            .withTimeouts(Duration.ofSeconds(2), Duration.ofSeconds(10), Duration.ofSeconds(20))
            .withRetries(1, Duration.ofMillis(50), Duration.ofMillis(200));
    }

    static String url(String key) {
        return "s3://" + prop("bucket") + "/" + key;
    }

    static double x(int tick) {
        return tick * 0.5;
    }

    /** Records RUNNER moving for TICKS ticks and finishes it straight into {@code key}. */
    static Pending<Uploaded> recordAndUpload(Path dir, String key, boolean removeLocal) throws java.io.IOException {
        Files.createDirectories(dir);
        Path reel = dir.resolve(key.replace('/', '_'));
        try (Engine engine = new Engine();
                Recorder rec = engine.startRecording(reel, RecorderOptions.builder().chunkTicks(50).build())) {
            Batch b = new Batch();
            for (int tick = 0; tick < TICKS; tick++) {
                b.clear();
                if (tick == 0) {
                    b.entityAdd(RUNNER, 0, x(0), 64, 0, 0, 0);
                } else {
                    b.pose(RUNNER, x(tick), 64, 0, 0, 0);
                }
                if (tick == 100 || tick == 200) {
                    b.checkpoint(RUNNER, tick / 100 - 1);
                }
                rec.submit(tick, b);
            }
            return rec.finishAndUpload(url(key), options(), false, removeLocal);
        }
    }

    /**
     * A run registered once its upload succeeded points at the object (read back through the
     * upload's options); a failed upload registers nothing; a location that is neither a path nor
     * an s3:// URL with a key is refused.
     */
    @Test
    void aRunRegisteredAfterItsUploadPointsAtTheObject(@TempDir Path dir) throws Exception {
        java.util.UUID alice = new java.util.UUID(0, 1);
        String key = "java/catalog-" + System.nanoTime() + ".reel";
        try (Catalog c = Catalog.open("sqlite:" + dir.resolve("cat.db"));
                Pending<Uploaded> up = recordAndUpload(dir.resolve("a"), key, true)) {
            Run run = c.registerUploaded(up, "course", alice, "Alice", RUNNER, GhostRange.checkpoints(0, 1))
                .future().get(60, TimeUnit.SECONDS);
            assertEquals(url(key), run.location());
            assertEquals(100, run.ticks(), "checkpoint 0 at tick 100 to checkpoint 1 at tick 200");
            assertEquals(url(key), c.top("course", 1).future().get(30, TimeUnit.SECONDS).get(0).run().location());
            try (Reader r = Reader.open(run.location(), options())) {
                assertEquals(TICKS, r.header().tickCount());
            }
            // the same key again: the upload fails (no overwrite), nothing more is registered
            try (Pending<Uploaded> again = recordAndUpload(dir.resolve("b"), key, false)) {
                ExecutionException e = assertThrows(ExecutionException.class,
                    () -> c.registerUploaded(again, "course", new java.util.UUID(0, 2), "Bob", RUNNER, GhostRange.all())
                        .future().get(60, TimeUnit.SECONDS));
                assertTrue(e.getCause() instanceof TickreelException, e.getCause().toString());
            }
            assertEquals(1, c.top("course", 10).future().get(30, TimeUnit.SECONDS).size());
            for (String bad : new String[] {"gs://bucket/a.reel", "s3://" + prop("bucket"), ""}) {
                ExecutionException e = assertThrows(ExecutionException.class,
                    () -> c.registerAt(bad, "course", alice, "Alice", RUNNER, GhostRange.all()).future().get(30, TimeUnit.SECONDS));
                assertTrue(e.getCause() instanceof IllegalArgumentException, bad + ": " + e.getCause());
            }
        }
    }

    @Test
    void aRecordingFinishedIntoS3OpensSeeksAndLoadsAsAGhostByUrl(@TempDir Path dir) throws Exception {
        String key = "java/run-" + System.nanoTime() + ".reel";
        try (Pending<Uploaded> up = recordAndUpload(dir, key, true)) {
            String uploaded = up.future().get(60, TimeUnit.SECONDS).url();
            assertEquals(url(key), uploaded);
            assertTrue(up.poll().orElseThrow().bytes() > 0);
        }
        try (var files = Files.list(dir)) {
            assertFalse(files.anyMatch(p -> p.toString().endsWith(".reel")), "the local copy is removed after the upload");
        }
        try (Reader r = Reader.open(url(key), options())) {
            assertEquals(url(key), r.location());
            assertThrows(UnsupportedOperationException.class, r::path);
            assertEquals(TICKS, r.header().tickCount());
            for (int tick : new int[] {250, 7, 151}) {
                SeekState s = r.seek(tick);
                assertEquals(x(tick), s.entity(RUNNER).orElseThrow().pose().x(), 1e-3, "tick " + tick);
            }
            assertEquals(TICKS, r.verify().ticks(), "every tick verified through range reads");
        }
        try (Playhead p = Playhead.open(url(key), options(), 0)) {
            for (int tick : new int[] {250, 7, 151}) {
                p.seek(tick);
                assertEquals(tick, p.position());
                EntityState e = p.entities().stream().filter(s -> s.id() == RUNNER).findFirst().orElseThrow();
                assertEquals(x(tick), e.pose().x(), 1e-3, "playhead at tick " + tick);
            }
            p.play();
            p.setReverse(true);
            assertTrue(p.advance().position() <= 151, "playing backward from tick 151");
        }
        try (Pending<Ghost> load = Ghost.loadAsync(url(key), options(), RUNNER, GhostRange.checkpoints(0, 1));
                Ghost ghost = load.await(Duration.ofSeconds(30)).orElseThrow()) {
            assertEquals(100, ghost.durationTicks(), "checkpoint 0 at tick 100 to checkpoint 1 at tick 200");
        }
    }

    @Test
    void aMissingObjectAndWrongCredentialsFailCleanlyWithoutTheSecret(@TempDir Path dir) throws Exception {
        TickreelException missing = assertThrows(TickreelException.class,
            () -> Reader.open(url("java/no-such-" + System.nanoTime() + ".reel"), options()));
        assertTrue(missing.getMessage().contains("no such object"), missing.getMessage());
        TickreelException missingPlayhead = assertThrows(TickreelException.class,
            () -> Playhead.open(url("java/no-such-" + System.nanoTime() + ".reel"), options(), 0));
        assertTrue(missingPlayhead.getMessage().contains("no such object"), missingPlayhead.getMessage());

        String key = "java/creds-" + System.nanoTime() + ".reel";
        try (Pending<Uploaded> up = recordAndUpload(dir, key, false)) {
            up.await(Duration.ofSeconds(60)).orElseThrow();
        }
        String secret = "wrong-secret-value-" + System.nanoTime();
        ObjectOptions wrong = options().withCredentials("AKIAWRONGTESTKEY0000", secret, null);
        TickreelException refused = assertThrows(TickreelException.class, () -> Reader.open(url(key), wrong));
        assertFalse(refused.getMessage().contains(secret), refused.getMessage());
        assertFalse(refused.getMessage().contains(prop("secretAccessKey")), refused.getMessage());

        try (Pending<Ghost> load = Ghost.loadAsync(url(key), wrong, RUNNER, GhostRange.all())) {
            TickreelException e = assertThrows(TickreelException.class, () -> load.await(Duration.ofSeconds(30)));
            assertFalse(e.getMessage().contains(secret), e.getMessage());
        }
    }

    @Test
    void anUploadOntoAnExistingObjectFailsAndKeepsTheLocalFile(@TempDir Path dir) throws Exception {
        String key = "java/twice-" + System.nanoTime() + ".reel";
        try (Pending<Uploaded> first = recordAndUpload(dir.resolve("a"), key, false)) {
            first.await(Duration.ofSeconds(60)).orElseThrow();
        }
        Path second = dir.resolve("b");
        try (Pending<Uploaded> up = recordAndUpload(second, key, true)) {
            ExecutionException e = assertThrows(ExecutionException.class,
                () -> up.future().get(60, TimeUnit.SECONDS));
            assertTrue(e.getCause() instanceof TickreelException, String.valueOf(e.getCause()));
            assertTrue(e.getCause().getMessage().contains("local file is kept"), e.getCause().getMessage());
            // as java.nio would say it: the cause is a FileAlreadyExistsException
            assertTrue(e.getCause().getCause() instanceof java.nio.file.FileAlreadyExistsException,
                String.valueOf(e.getCause().getCause()));
        }
        assertTrue(Files.exists(second.resolve(key.replace('/', '_'))), "the local file stays");
    }

    @Test
    void aMalformedUrlIsRefusedBeforeTheRecordingEnds(@TempDir Path dir) {
        try (Engine engine = new Engine();
                Recorder rec = engine.startRecording(dir.resolve("x.reel"), RecorderOptions.builder().build())) {
            rec.submit(0, new Batch().entityAdd(1, 0, 0, 64, 0, 0, 0));
            assertThrows(IllegalArgumentException.class, () -> rec.finishAndUpload("s3://", options(), false, false));
            rec.finish().await(); // still open: the malformed URL did not end it
        }
    }
    @Test
    void aShadowReportGoesStraightToObjectStorage(@TempDir Path dir) throws Exception {
        String key = "java/report-" + System.nanoTime() + ".reel";
        Path local = dir.resolve("report.reel");
        try (Engine engine = new Engine();
                ShadowBuffer.Started s = ShadowBuffer.start(engine, null, RecorderOptions.defaults(),
                        ShadowTest.tenSeconds())) {
            Recorder rec = s.recorder();
            ShadowTest.submit(rec, new Batch(), 0, 300);
            rec.flush();
            ReportOptions ro = ReportOptions.builder().after(Duration.ZERO).metadata("reason", "fly").build();
            assertThrows(IllegalArgumentException.class,
                () -> s.shadow().reportAndUpload(1, local, ro, "s3://", options(), false, true));
            assertEquals(0, s.shadow().stats().reportsStarted(), "a malformed URL reports nothing");
            try (Pending<Uploaded> up = s.shadow().reportAndUpload(1, local, ro, url(key), options(), false, true)) {
                assertEquals(url(key), up.future().get(60, TimeUnit.SECONDS).url());
                assertTrue(up.poll().orElseThrow().bytes() > 0);
            }
            assertFalse(Files.exists(local), "the local report is removed after the upload");
            // a second report onto the same object fails and keeps its local file
            Path again = dir.resolve("again.reel");
            try (Pending<Uploaded> up = s.shadow().reportAndUpload(2, again, ro, url(key), options(), false, true)) {
                ExecutionException e = assertThrows(ExecutionException.class,
                    () -> up.future().get(60, TimeUnit.SECONDS));
                assertTrue(e.getCause().getMessage().contains("local file is kept"), e.getCause().getMessage());
            }
            assertTrue(Files.exists(again), "the local report stays when its upload fails");
        }
        try (Reader r = Reader.open(url(key), options())) {
            assertEquals(200, r.header().tickCount(), "the 10 s window around the report");
            @SuppressWarnings("unchecked")
            java.util.Map<String, Object> report = (java.util.Map<String, Object>) r.metadata().get("report");
            assertEquals("fly", report.get("reason"));
            assertEquals(1, report.get("player"));
            assertEquals(200, r.verify().ticks());
        }
    }
}
