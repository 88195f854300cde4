package probe;

import io.tickreel.Engine;
import io.tickreel.EntityInfo;
import io.tickreel.Ghost;
import io.tickreel.Pending;
import io.tickreel.GhostRange;
import io.tickreel.ObjectOptions;
import io.tickreel.Uploaded;
import io.tickreel.GhostCursor;
import io.tickreel.GhostSample;
import io.tickreel.Playhead;
import io.tickreel.Recorder;
import io.tickreel.RecorderOptions;
import io.tickreel.ReelOptions;
import io.tickreel.Reader;
import io.tickreel.SeekState;
import io.tickreel.ReelWriter;
import io.tickreel.Batch;
import io.tickreel.Catalog;
import io.tickreel.Placed;
import io.tickreel.ReportOptions;
import io.tickreel.ShadowBuffer;
import io.tickreel.ShadowOptions;
import io.tickreel.Tickreel;
import io.tickreel.TickreelException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;

/**
 * Stands in for a server plugin that bundles tickreel: loaded by the tests through its own class
 * loader (possibly with the bindings relocated to another package), it records a run, reads it
 * back, plays it, keeps a shadow-play window and reports a player from it, ranks the run in a
 * catalog (SQLite), provokes an error, and reports what it saw as one line. When the S3 test
 * server's system properties are set ({@code tickreel.test.s3.*}, as {@code java-bindings/test.sh}
 * sets them), it also finishes a recording straight into object storage and reads it back by URL
 * (a reader, a ghost loaded in the background): " s3=..." in the line.
 */
public final class PluginProbe implements Function<String, String> {
    /** An upload and reads by URL, if the S3 test server is described; else "". */
    /** One entity walking along x: added at tick 0, then half a block a tick; {@code t} refilled. */
    private static Batch walk(Batch t, int tick) {
        t.clear();
        if (tick == 0) {
            t.entityAdd(1, 0, 0, 64, 0, 0, 0);
        } else {
            t.pose(1, tick * 0.5, 64, 0, 0, 0);
        }
        return t;
    }

    private static String objectStorage(Path dir) throws Exception {
        String endpoint = System.getProperty("tickreel.test.s3.endpoint");
        if (endpoint == null) {
            return "";
        }
        ObjectOptions options = ObjectOptions.fromEnv()
                .withEndpoint(endpoint)
                .withRegion("us-east-1")
                .withCredentials(System.getProperty("tickreel.test.s3.accessKeyId"),
                        System.getProperty("tickreel.test.s3.secretAccessKey"), null)
                .withTimeouts(Duration.ofSeconds(2), Duration.ofSeconds(10), Duration.ofSeconds(20));
        String url = "s3://" + System.getProperty("tickreel.test.s3.bucket") + "/probe/"
                + UUID.randomUUID() + ".reel";
        int ticks = 60;
        try (Engine engine = new Engine();
                Recorder rec = engine.startRecording(dir.resolve("up.reel"), RecorderOptions.builder().build())) {
            Batch t = new Batch(64);
            for (int tick = 0; tick < ticks; tick++) {
                rec.submit(tick, walk(t, tick));
            }
            try (Pending<Uploaded> up = rec.finishAndUpload(url, options, false, true)) {
                up.future().get(60, TimeUnit.SECONDS);
            }
        }
        long read;
        try (Reader r = Reader.open(url, options)) {
            read = r.verify().ticks();
        }
        int ghost;
        try (Pending<Ghost> load = Ghost.loadAsync(url, options, 1, GhostRange.all());
                Ghost g = load.await(Duration.ofSeconds(30)).orElseThrow()) {
            ghost = g.durationTicks();
        }
        return " s3=" + read + "/" + ghost;
    }

    @Override
    public String apply(String directory) {
        try {
            Path dir = Path.of(directory);
            Path reel = dir.resolve("probe.reel");
            int players = 3;
            int ticks = 120;
            try (ReelWriter w = ReelWriter.create(reel, ReelOptions.builder().chunkTicks(40).build())) {
                for (int p = 1; p <= players; p++) {
                    w.registerEntity(EntityInfo.player(p, new UUID(7, p), "player" + p));
                }
                w.setUserMetadata("plugin", "probe");
                Batch t = new Batch(64);
                for (int tick = 0; tick < ticks; tick++) {
                    t.clear();
                    for (int p = 1; p <= players; p++) {
                        if (tick == 0) {
                            t.entityAdd(p, 0, p, 64, 0, 0, 0);
                        } else {
                            t.pose(p, p + tick * 0.25, 64, tick * 0.1, tick * 3.0, -10);
                        }
                    }
                    w.writeTick(tick, t);
                }
                w.finish();
            }
            String seen;
            try (Reader r = Reader.open(reel)) {
                SeekState s = r.seek(ticks - 1);
                double x = s.entity(2).orElseThrow().pose().x();
                seen = "ticks=" + r.header().tickCount()
                        + " entities=" + s.entities().size()
                        + " x2=" + x
                        + " names=" + r.entities().size()
                        + " meta=" + r.metadata().get("plugin")
                        + " read=" + r.ticks(0, ticks - 1).size();
            }
            // The live write path and a ghost of the recorded run.
            Path live = dir.resolve("live.reel");
            try (Engine engine = new Engine();
                    Recorder rec = engine.startRecording(live, RecorderOptions.builder().overwrite(true).build())) {
                rec.registerPlayer(1, new UUID(7, 1), "player1");
                Batch t = new Batch(64);
                for (int tick = 0; tick < ticks; tick++) {
                    if (!rec.submit(tick, walk(t, tick))) {
                        return "failed: tick " + tick + " dropped";
                    }
                }
                rec.finish().await();
            }
            try (Ghost ghost = Ghost.load(live, 1); GhostCursor cursor = ghost.cursor()) {
                GhostSample s = cursor.sample(100, new GhostSample());
                seen += " live=" + ghost.durationTicks() + " ghostX=" + s.x();
            }
            seen += objectStorage(dir);
            // Shadow play: a window kept in memory, the player reported from it. (The probe may
            // run twice in one directory: what it wrote before goes first.)
            Files.deleteIfExists(dir.resolve("report.reel"));
            for (String f : new String[] {"runs.db", "runs.db-wal", "runs.db-shm"}) {
                Files.deleteIfExists(dir.resolve(f));
            }
            try (Engine engine = new Engine();
                    ShadowBuffer.Started s = ShadowBuffer.start(engine, null, RecorderOptions.defaults(),
                            ShadowOptions.builder().blockTicks(20).build())) {
                Batch t = new Batch(64);
                for (int tick = 0; tick < ticks; tick++) {
                    s.recorder().submit(tick, walk(t, tick));
                }
                s.recorder().flush();
                try (Pending<Path> h = s.shadow().report(1, dir.resolve("report.reel"),
                        ReportOptions.builder().after(Duration.ZERO).build())) {
                    try (Reader r = Reader.open(h.await())) {
                        seen += " reported=" + r.verify().ticks();
                    }
                }
            }
            // The catalog: the live run registered and ranked, off this thread.
            try (Catalog catalog = Catalog.open("sqlite:" + dir.resolve("runs.db"))) {
                catalog.register(live, "course", new UUID(7, 1), "player1", 1, GhostRange.all())
                        .await(Duration.ofSeconds(30)).orElseThrow();
                List<Placed> top = catalog.top("course", 10).await(Duration.ofSeconds(30)).orElseThrow();
                seen += " top=" + top.size() + "/" + top.get(0).run().playerName();
            }
            // Playback, which decodes ahead on the library's prefetch threads.
            try (Playhead ph = Playhead.open(reel)) {
                ph.seek(10);
                ph.stepForward();
                seen += " played=" + ph.position();
                ph.play();
                ph.setSpeed(Playhead.MAX_SPEED);
                for (int i = 0; i < 20; i++) {
                    ph.advance();
                }
            }
            Path bad = dir.resolve("bad.reel");
            Files.write(bad, new byte[300]);
            String error = "none";
            try (Reader r = Reader.open(bad)) {
                error = "opened";
            } catch (TickreelException e) {
                error = e.getClass().getName() + ":" + e.kind();
            }
            return "ok " + seen + " error=" + error + " library=" + Tickreel.nativeLibraryPath();
        } catch (Exception e) {
            return "failed " + e;
        }
    }
}
