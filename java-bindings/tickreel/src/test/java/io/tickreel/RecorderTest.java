package io.tickreel;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Records through {@link Engine} and {@link Recorder} (the live write path) and reads back with {@link Reader}. */
class RecorderTest {
    static final int PLAYERS = 3;

    static double x(int p, int tick) {
        return p * 10 + tick * 0.2806;
    }

    static double z(int tick) {
        return Math.sin(tick * 0.1);
    }

    /** Submits ticks {@code from..to-1} of a three-player run. */
    static void submitTicks(Recorder rec, Batch t, int from, int to) {
        for (int tick = from; tick < to; tick++) {
            t.clear();
            for (int p = 1; p <= PLAYERS; p++) {
                if (tick == 0) {
                    t.entityAdd(p, 0, x(p, 0), 64, z(0), 0, 0);
                } else {
                    t.pose(p, x(p, tick), 64 + (tick % 10) * 0.1, z(tick), tick * 2.5, -5);
                }
            }
            if (tick == 30) {
                t.flags(1, EntityFlags.ON_GROUND).checkpoint(1, 0);
            }
            assertTrue(rec.submit(tick, t), "queued");
        }
    }

    static RecorderOptions options() {
        return builder().build();
    }

    static RecorderOptions.Builder builder() {
        return RecorderOptions.builder()
                .worldId(ReaderTest.WORLD)
                .gameDataVersion(3955)
                .chunkTicks(50)
                .compactionChunkTicks(100)
                .flushInterval(Duration.ofMillis(200));
    }

    /** {@link #options()} that resume a live recording of the path (the default starts fresh). */
    static RecorderOptions resuming() {
        return builder().onExisting(RecorderOptions.OnExisting.RESUME).build();
    }

    @Test
    void recordsThroughTheEngineAndReadsBack(@TempDir Path dir) throws Exception {
        Path reel = dir.resolve("live.reel");
        int ticks = 150;
        try (Engine engine = new Engine(EngineOptions.builder().queueCapacity(1024).build());
                Recorder rec = engine.startRecording(reel, options())) {
            assertEquals(reel, rec.path());
            for (int p = 1; p <= PLAYERS; p++) {
                rec.registerPlayer(p, new UUID(42, p), "runner" + p);
            }
            rec.registerEventType(new EventType(1, "block_change", 2));
            rec.setUserMetadata("course", "lava-run");
            rec.setUserMetadata(Map.of("best", 1234L, "tags", List.of("a", "b")));
            Batch t = new Batch();
            submitTicks(rec, t, 0, 100);
            rec.flush();
            RecorderStats mid = rec.stats();
            assertEquals(100, mid.submittedTicks());
            assertEquals(99, mid.flushedTick().orElseThrow(), "flush is durable up to the last tick");
            assertTrue(mid.flushes() >= 1 && mid.bytesWritten() > 0, mid.toString());
            assertTrue(Files.isDirectory(dir.resolve("live.reel.live")), "a live recording is a directory");
            try (Reader live = Reader.open(dir.resolve("live.reel.live"))) {
                assertEquals(99, live.header().lastTick().orElseThrow(), "a live directory reads what was flushed");
            }
            // A playhead follows the recording while it is written.
            try (Playhead follower = Playhead.follow(reel)) {
                assertEquals(0, follower.position());
                follower.play();
                follower.setSpeed(16);
                long deadline = System.nanoTime() + 20_000_000_000L;
                while (follower.position() < 99 && System.nanoTime() < deadline) {
                    follower.advance();
                    Thread.sleep(1);
                }
                assertEquals(99, follower.position(), "followed to the last flushed tick");
            }
            rec.playerLeft(3);
            submitTicks(rec, t, 100, ticks);
            assertTrue(rec.status().isEmpty(), "no writer error");
            assertEquals(1, engine.stats().activeRecordings());
            try (Pending<Path> done = rec.finish()) {
                // A scheduler chains on the future; the waiter thread ends with the compaction.
                java.util.concurrent.CompletableFuture<Path> future = done.future();
                assertSame(future, done.future());
                assertEquals(reel, future.thenApply(p -> p).get(60, java.util.concurrent.TimeUnit.SECONDS));
                Path file = done.await();
                assertEquals(reel, file);
                assertTrue(done.isReady());
                assertEquals(reel, done.poll().orElseThrow());
                assertEquals(reel, done.await(Duration.ZERO).orElseThrow());
            }
            RecorderStats s = rec.stats();
            assertEquals(ticks, s.submittedTicks());
            assertEquals(0, s.droppedTicks());
            assertEquals(0, s.rejectedTicks());
            EngineStats es = engine.stats();
            assertEquals(0, es.activeRecordings());
            // The flushes' group commits and the compacted file were made durable.
            assertTrue(es.syncs() >= 2, "syncs: " + es);
        }
        try (Reader r = Reader.open(reel)) {
            Header info = r.header();
            assertEquals(ticks, info.tickCount());
            assertEquals(0, info.firstTick().orElseThrow());
            assertEquals(ticks - 1, info.lastTick().orElseThrow());
            assertEquals(ReaderTest.WORLD, info.worldId());
            assertEquals(3955, info.gameDataVersion());
            assertEquals("lava-run", r.metadata().get("course"));
            assertEquals(1234L, r.metadata().get("best"));
            assertEquals(PLAYERS, r.entities().size());
            assertEquals("runner2", r.entities().get(1).name());
            assertEquals(List.of(new EventType(1, "block_change", 2)), r.eventTypes());
            for (int tick : new int[] {0, 1, 49, 50, 99, 100, 149}) {
                SeekState st = r.seek(tick);
                assertEquals(PLAYERS, st.entities().size());
                for (int p = 1; p <= PLAYERS; p++) {
                    Pose want = tick == 0
                            ? Pose.of(x(p, 0), 64, z(0), 0, 0)
                            : Pose.of(x(p, tick), 64 + (tick % 10) * 0.1, z(tick), tick * 2.5, -5);
                    assertEquals(want, st.entity(p).orElseThrow().pose(), "player " + p + " at " + tick);
                }
            }
            assertTrue(r.seek(31).entity(1).orElseThrow().has(EntityFlags.ON_GROUND));
            assertEquals(ticks, r.verify().ticks());
        }
    }

    @Test
    void submitAfterFinishOrAbortIsIllegalState(@TempDir Path dir) {
        try (Engine engine = new Engine()) {
            Batch t = new Batch();
            Recorder rec = engine.startRecording(dir.resolve("a.reel"), options());
            submitTicks(rec, t, 0, 10);
            Pending<Path> h = rec.finish();
            assertThrows(IllegalStateException.class, () -> rec.submit(10, t));
            assertThrows(IllegalStateException.class, rec::finish);
            assertThrows(IllegalStateException.class, rec::abort);
            assertThrows(IllegalStateException.class, rec::flush);
            assertEquals(dir.resolve("a.reel"), h.await());
            rec.close();
            rec.close();
            assertThrows(IllegalStateException.class, () -> rec.submit(11, t));
            assertThrows(IllegalStateException.class, rec::stats);
            h.close();
            assertThrows(IllegalStateException.class, h::isReady);

            Recorder aborted = engine.startRecording(dir.resolve("b.reel"), options());
            submitTicks(aborted, t, 0, 10);
            aborted.flush();
            aborted.abort();
            assertThrows(IllegalStateException.class, () -> aborted.submit(10, t));
            assertFalse(Files.exists(dir.resolve("b.reel")));
            assertFalse(Files.exists(dir.resolve("b.reel.live")));
            aborted.close();
        }
    }

    @Test
    void aClosedEngineRefusesEverything(@TempDir Path dir) {
        Engine engine = new Engine();
        Batch t = new Batch();
        Recorder rec = engine.startRecording(dir.resolve("open.reel"), options());
        submitTicks(rec, t, 0, 20);
        engine.close();
        assertTrue(engine.isClosed());
        engine.close(); // idempotent
        assertThrows(IllegalStateException.class, () -> engine.startRecording(dir.resolve("x.reel"), options()));
        assertThrows(IllegalStateException.class, engine::stats);
        assertThrows(IllegalStateException.class, () -> rec.submit(20, t));
        assertThrows(IllegalStateException.class, rec::flush);
        rec.close();
        // The open recording was flushed and closed by the shutdown: it resumes in a new engine.
        try (Engine again = new Engine(); Recorder resumed = again.startRecording(dir.resolve("open.reel"), resuming())) {
            // Recovered on a thread of its own: where it ends is known once that is done.
            assertEquals(19, resumed.waitResumed(java.time.Duration.ofSeconds(30)).orElseThrow());
            assertThrows(IllegalArgumentException.class, () -> resumed.submit(19, t), "ticks continue after 19");
            submitTicks(resumed, t, 20, 40);
            assertEquals(dir.resolve("open.reel"), resumed.finish().await());
        }
        try (Reader r = Reader.open(dir.resolve("open.reel"))) {
            assertEquals(40, r.header().tickCount());
        }
    }

    @Test
    void closeLeavesARecordingResumable(@TempDir Path dir) {
        Path reel = dir.resolve("resume.reel");
        Batch t = new Batch();
        try (Engine engine = new Engine(); Recorder rec = engine.startRecording(reel, options())) {
            submitTicks(rec, t, 0, 60);
            rec.flush();
        }
        try (Engine engine = new Engine()) {
            try (Recorder rec = engine.startRecording(reel, resuming())) {
                assertEquals(59, rec.waitResumed(java.time.Duration.ofSeconds(30)).orElseThrow(), "resumed after tick 59");
                assertEquals(59, rec.stats().flushedTick().orElseThrow(), "resumed after tick 59");
                submitTicks(rec, t, 60, 120);
                rec.finish().await();
            }
            // Finished: starting again on the path is refused unless overwriting.
            TickreelException exists = assertThrows(TickreelException.class, () -> engine.startRecording(reel, options()));
            assertTrue(exists.getCause() instanceof java.nio.file.FileAlreadyExistsException, exists.getMessage());
            try (Recorder rec = engine.startRecording(reel, RecorderOptions.builder().overwrite(true).build())) {
                rec.abort();
            }
        }
        try (Reader r = Reader.open(reel)) {
            assertEquals(120, r.header().tickCount());
            assertEquals(Pose.of(x(2, 90), 64, z(90), 90 * 2.5, -5), r.seek(90).entity(2).orElseThrow().pose());
        }
    }

    /**
     * A server restarted with the defaults: its ticks start again at 0 and are taken, and the old
     * recording is kept aside whole; REFUSE refuses, naming the choice.
     */
    @Test
    void aRestartWithTheDefaultsStartsFreshAndKeepsTheOldRecording(@TempDir Path dir) throws Exception {
        Path reel = dir.resolve("restart.reel");
        Batch t = new Batch();
        try (Engine engine = new Engine(); Recorder rec = engine.startRecording(reel, options())) {
            submitTicks(rec, t, 0, 30);
            rec.flush();
        }
        try (Engine engine = new Engine()) {
            TickreelException refused = assertThrows(TickreelException.class, () -> engine.startRecording(reel,
                    builder().onExisting(RecorderOptions.OnExisting.REFUSE).build()));
            assertTrue(refused.getCause() instanceof java.nio.file.FileAlreadyExistsException, refused.getMessage());
            assertTrue(refused.getMessage().contains("onExisting"), refused.getMessage());
            try (Recorder rec = engine.startRecording(reel, options())) {
                assertTrue(rec.waitResumed(java.time.Duration.ofSeconds(30)).isEmpty(), "a new recording");
                submitTicks(rec, t, 0, 10);
                rec.finish().await();
            }
        }
        assertTrue(java.nio.file.Files.isDirectory(dir.resolve("restart.previous-1.reel.live")), "kept aside");
        try (Reader r = Reader.open(reel)) {
            assertEquals(10, r.header().tickCount());
        }
    }

    /** The handle of the batch's pinned buffer, or 0 (white-box, through the private field). */
    static long pinOf(Batch b) {
        try {
            java.lang.reflect.Field f = Batch.class.getDeclaredField("pin");
            f.setAccessible(true);
            NativeHandle pin = (NativeHandle) f.get(b);
            return pin == null ? 0 : pin.get();
        } catch (ReflectiveOperationException e) {
            throw new AssertionError(e);
        }
    }

    /**
     * Tick {@code t} of {@link #aReusedBatchIsPinnedAndEveryTickReadsBack}: {@code t + 1} players,
     * player {@code p} at x = t + p / 8.
     */
    private static Batch growingTick(Batch b, int t) {
        b.clear();
        for (int p = 0; p <= t; p++) {
            b.pose(p, t + p / 8.0, 64, 0, 0, 0);
        }
        return b;
    }

    private static void assertGrowingTicks(Path reel, int ticks) {
        try (Reader r = Reader.open(reel)) {
            List<DecodedTick> read = r.ticks(0, ticks);
            assertEquals(ticks, read.size());
            for (DecodedTick d : read) {
                int t = d.tick();
                assertEquals(t + 1, d.events().size(), "tick " + t);
                for (int p = 0; p <= t; p++) {
                    // (a player's first pose reads as its appearance)
                    Event e = d.events().get(p);
                    Pose pose = e instanceof Event.EntityAdd a && a.entity() == p ? a.pose() : ((Event.Moved) e).pose();
                    if (e instanceof Event.Moved m) {
                        assertEquals(p, m.entity());
                    }
                    assertEquals(t + p / 8.0, pose.x(), 0.5 / 4096, "tick " + t + ", player " + p);
                }
            }
        }
    }

    @Test
    void aReusedBatchIsPinnedAndEveryTickReadsBack(@TempDir Path dir) throws Exception {
        // One batch for every tick, from 16 bytes up: its direct buffer grows (and is pinned
        // again) several times; the first submission of each buffer passes the buffer itself.
        int ticks = 120;
        Batch b = new Batch(16);
        java.util.Set<Long> pins = new java.util.HashSet<>();
        Path reel = dir.resolve("pinned.reel");
        try (Engine engine = new Engine(); Recorder rec = engine.startRecording(reel, options())) {
            for (int t = 0; t < ticks; t++) {
                assertTrue(rec.submit(t, growingTick(b, t)));
                if (pinOf(b) != 0) {
                    pins.add(pinOf(b));
                }
            }
            assertEquals(reel, rec.finish().await());
        }
        assertTrue(pins.size() >= 3, "pinned again as it grew: " + pins);
        assertGrowingTicks(reel, ticks);
        // The same through a ReelWriter, with the same (now large) batch: pinned from its second tick.
        Batch again = new Batch(16);
        Path written = dir.resolve("written.reel");
        try (ReelWriter w = ReelWriter.create(written, ReelOptions.defaults())) {
            for (int t = 0; t < ticks; t++) {
                w.writeTick(t, growingTick(again, t));
            }
            w.finish();
        }
        assertTrue(pinOf(again) != 0);
        assertGrowingTicks(written, ticks);
    }

    @Test
    void badArgumentsAreRejected(@TempDir Path dir) {
        try (Engine engine = new Engine(); Recorder rec = engine.startRecording(dir.resolve("bad.reel"), options())) {
            Batch t = new Batch().pose(1, 0, 0, 0, 0, 0);
            assertThrows(IllegalArgumentException.class, () -> rec.submit(-1, t));
            assertThrows(IllegalArgumentException.class, () -> rec.submit(0, ByteBuffer.allocate(8)));
            ByteBuffer tooShort = ByteBuffer.allocateDirect(1);
            assertThrows(IllegalArgumentException.class, () -> rec.submit(0, tooShort));
            assertTrue(rec.submit(5, t));
            assertThrows(IllegalArgumentException.class, () -> rec.submit(5, t), "not after the last tick");
            assertThrows(IllegalArgumentException.class, () -> rec.setUserMetadata("tickreel", 1));
            assertThrows(TickreelException.class, () -> engine.startRecording(dir.resolve("bad.reel"), options()),
                    "already recorded in this process");
            try {
                engine.startRecording(dir.resolve("bad.reel"), options());
            } catch (TickreelException e) {
                assertEquals(TickreelException.Kind.LOCKED, e.kind());
            }
            // A batch that is not a tick batch: accepted by the O(1) checks, refused by the writer.
            ByteBuffer garbage = ByteBuffer.allocateDirect(4).put(0, (byte) 0).put(1, (byte) 9);
            assertTrue(rec.submit(6, garbage));
            rec.flush();
            assertEquals(1, rec.stats().rejectedTicks());
            // The writer's error is a value: a TickreelException with the core's kind, not thrown.
            TickreelException error = rec.status().orElseThrow();
            assertEquals(TickreelException.Kind.INVALID_STATE, error.kind());
            assertTrue(error.getMessage().contains("writer error"), error.getMessage());
            rec.abort();
        }
        // Builders only store; the core checks (EngineOptions::validate, RecorderOptions::validate).
        IllegalArgumentException threads = assertThrows(IllegalArgumentException.class,
                () -> new Engine(EngineOptions.builder().writerThreads(0).build()));
        assertTrue(threads.getMessage().contains("writerThreads must be between 1 and 64 (got 0)"), threads.getMessage());
        assertThrows(IllegalArgumentException.class, () -> new Engine(EngineOptions.builder().writerThreads(65).build()));
        assertThrows(IllegalArgumentException.class, () -> new Engine(EngineOptions.builder().queueCapacity(0).build()));
        try (Engine engine = new Engine()) {
            IllegalArgumentException level = assertThrows(IllegalArgumentException.class, () -> engine.startRecording(
                    dir.resolve("level.reel"), RecorderOptions.builder().compactionLevel(99).build()));
            assertTrue(level.getMessage().contains("compactionLevel must be between") && level.getMessage().endsWith("(got 99)"), level.getMessage());
            assertThrows(IllegalArgumentException.class, () -> engine.startRecording(
                    dir.resolve("span.reel"), RecorderOptions.builder().compactionChunkTicks(0).build()));
            assertThrows(IllegalArgumentException.class, () -> engine.startRecording(
                    dir.resolve("flush.reel"), RecorderOptions.builder().flushBytes(0).build()));
        }
    }

    @Test
    void theDropPolicyDropsWhileTheWriterIsStalled(@TempDir Path dir) {
        EngineOptions small = EngineOptions.builder().maxInflightBytes(2_000).build();
        try (Engine engine = new Engine(small)) {
            Batch t = new Batch();
            Recorder drop = engine.startRecording(dir.resolve("drop.reel"),
                    RecorderOptions.builder().backpressureDrop().build());
            Recorder block = engine.startRecording(dir.resolve("block.reel"),
                    RecorderOptions.builder().backpressureBlock(Duration.ofMillis(5)).build());
            engine.setWritersStalled(true);
            int queued = 0;
            int dropped = 0;
            for (int tick = 0; tick < 200; tick++) {
                t.clear();
                for (int p = 0; p < 10; p++) {
                    t.pose(p, p + tick, 64, 0, 0, 0);
                }
                if (drop.submit(tick, t)) {
                    queued++;
                } else {
                    dropped++;
                }
            }
            assertTrue(queued > 0 && dropped > 0, queued + " queued, " + dropped + " dropped");
            assertEquals(dropped, drop.stats().droppedTicks());
            assertEquals(queued, drop.stats().submittedTicks());
            TickreelException e = assertThrows(TickreelException.class, () -> block.submit(0, t));
            assertEquals(TickreelException.Kind.BACKPRESSURE, e.kind());
            assertEquals(1, block.stats().droppedTicks());
            assertTrue(engine.stats().droppedTicks() >= dropped + 1);
            engine.setWritersStalled(false);
            long waitUntil = System.nanoTime() + 30_000_000_000L;
            while (engine.stats().inflightBytes() > 0 && System.nanoTime() < waitUntil) {
                Thread.onSpinWait();
            }
            assertTrue(block.submit(1, t), "room again once the writer has caught up");
            block.abort();
            Path file = drop.finish().await();
            try (Reader r = Reader.open(file)) {
                assertTrue(r.header().tickCount() <= queued, r.header().toString());
            }
        }
    }

    @Test
    void closingTheEngineWhileAnotherThreadSubmitsIsSafe(@TempDir Path dir) throws Exception {
        for (int round = 0; round < 5; round++) {
            Engine engine = new Engine();
            Recorder rec = engine.startRecording(dir.resolve("race" + round + ".reel"), options());
            AtomicReference<Throwable> ended = new AtomicReference<>();
            Thread server = new Thread(() -> {
                Batch t = new Batch();
                try {
                    for (int tick = 0; ; tick++) {
                        try {
                            rec.submit(tick, t.clear().pose(1, tick, 64, 0, 0, 0));
                        } catch (TickreelException busy) {
                            // the writer fell behind this tight loop: the tick was dropped, go on
                            assertEquals(TickreelException.Kind.BACKPRESSURE, busy.kind());
                        }
                    }
                } catch (Throwable x) {
                    ended.set(x);
                }
            });
            server.start();
            Thread.sleep(5);
            engine.close();
            server.join(10_000);
            assertFalse(server.isAlive());
            assertEquals(IllegalStateException.class, ended.get().getClass(), String.valueOf(ended.get()));
            rec.close();
        }
    }
}
