package io.tickreel;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.OptionalInt;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Shadow play through {@link ShadowBuffer}: reports read back with {@link Reader}, bad arguments, use after close. */
class ShadowTest {
    /** A 10 s window (200 ticks at 20 ticks/s) in 20-tick blocks. */
    static ShadowOptions tenSeconds() {
        return ShadowOptions.builder().window(Duration.ofSeconds(10)).blockTicks(20).build();
    }

    static ReportOptions now() {
        return ReportOptions.builder().after(Duration.ZERO).build();
    }

    /** Ticks {@code from..to-1}: players 1 and 2 walk side by side, 3 stands 1000 blocks away. */
    static void submit(Recorder rec, Batch t, int from, int to) {
        for (int tick = from; tick < to; tick++) {
            t.clear();
            for (int p = 1; p <= 3; p++) {
                double x = p == 3 ? 1000 : 10 + tick * 0.1;
                double z = p == 3 ? 1000 : p * 3;
                if (tick == 0) {
                    t.entityAdd(p, 0, x, 64, z, 0, 0);
                } else if (p != 3) {
                    t.pose(p, x, 64, z, 0, 0);
                }
            }
            assertTrue(rec.submit(tick, t), "queued");
        }
    }

    static List<Integer> ids(SeekState s) {
        return s.entities().stream().map(EntityState::id).toList();
    }

    /**
     * The recorder options' server names the stream and its reports (it was dropped on the way
     * into the library: reports and their catalog rows carried no server).
     */
    @Test
    void reportsCarryTheServerThatRecordedThem(@TempDir Path dir) throws Exception {
        try (Engine engine = new Engine();
                ShadowBuffer.Started s = ShadowBuffer.start(engine, dir.resolve("live.reel"),
                        RecorderOptions.builder().server("eu-2").build(), tenSeconds());
                Catalog catalog = Catalog.open("sqlite:" + dir.resolve("catalog.sqlite"))) {
            Batch t = new Batch();
            submit(s.recorder(), t, 0, 100);
            s.recorder().flush();
            Path report = dir.resolve("report.reel");
            s.shadow().report(1, report, now()).await();
            try (Reader r = Reader.open(report)) {
                assertEquals("eu-2", r.libraryMetadata().get("server"), r.libraryMetadata().toString());
            }
            java.util.UUID suspect = new java.util.UUID(1, 1);
            Report row = catalog.addReport(suspect, "suspect", new java.util.UUID(2, 2), "fly", report.toString())
                    .future().get(30, java.util.concurrent.TimeUnit.SECONDS);
            assertEquals(java.util.Optional.of("eu-2"), row.server());
            assertEquals(List.of(row.id()), catalog.reportsOf(suspect, "eu-2").future().get(30, java.util.concurrent.TimeUnit.SECONDS)
                    .stream().map(Report::id).toList());
        }
        assertThrows(IllegalArgumentException.class, () -> {
            try (Engine engine = new Engine()) {
                ShadowBuffer.start(engine, null, RecorderOptions.builder().server("x".repeat(65)).build(), tenSeconds());
            }
        });
    }

    @Test
    void aShadowOnlyReportOpensWithTheRightTickRange(@TempDir Path dir) throws Exception {
        try (Engine engine = new Engine();
                ShadowBuffer.Started s = ShadowBuffer.start(engine, null, RecorderOptions.defaults(), tenSeconds())) {
            Recorder rec = s.recorder();
            ShadowBuffer shadow = s.shadow();
            assertNull(rec.path());
            assertFalse(rec.isPersistent());
            assertTrue(shadow.isAttached());
            assertEquals(engine, shadow.engine());
            rec.registerPlayer(1, new java.util.UUID(7, 1), "suspect");
            Batch t = new Batch();
            submit(rec, t, 0, 300);
            rec.flush();
            ShadowStats st = shadow.stats();
            assertEquals(OptionalInt.of(299), st.lastTick(), st.toString());
            assertTrue(st.firstTick().orElseThrow() <= 100, st.toString());
            assertEquals(3, st.aliveEntities());
            assertTrue(st.bytes() > 0 && st.blocks() > 0, st.toString());
            assertEquals(st.bytes(), engine.stats().shadowBytes());

            Path near = dir.resolve("near.reel");
            ReportOptions withReason = ReportOptions.builder().after(Duration.ZERO)
                    .metadata("reporter", "Dave").metadata(Map.of("reason", "fly")).build();
            try (Pending<Path> h = shadow.report(1, near, withReason)) {
                assertEquals(near, h.await());
            }
            try (Reader r = Reader.open(near)) {
                Header info = r.header();
                assertEquals(OptionalInt.of(100), info.firstTick());
                assertEquals(OptionalInt.of(299), info.lastTick());
                assertEquals(200, info.tickCount());
                assertEquals(List.of(1, 2), ids(r.seek(299)), "3 is beyond the 48-block radius");
                assertEquals(Pose.of(10 + 299 * 0.1, 64, 3, 0, 0), r.seek(299).entity(1).orElseThrow().pose());
                @SuppressWarnings("unchecked")
                Map<String, Object> report = (Map<String, Object>) r.metadata().get("report");
                assertEquals("Dave", report.get("reporter"));
                assertEquals("fly", report.get("reason"));
                assertEquals(1, report.get("player"));
                assertEquals("suspect", report.get("player_name"));
                assertArrayEquals(new int[] {2}, (int[]) report.get("context_entities"));
                assertEquals(200, r.verify().ticks());
            }
            Path all = dir.resolve("all.reel");
            shadow.report(1, all, ReportOptions.builder().after(Duration.ZERO).everyEntity()
                    .before(Duration.ofSeconds(2)).build()).await();
            try (Reader r = Reader.open(all)) {
                assertEquals(OptionalInt.of(260), r.header().firstTick(), "2 s before: 40 ticks");
                assertEquals(List.of(1, 2, 3), ids(r.seek(299)));
            }
            assertEquals(2, shadow.stats().reportsStarted());

            // Nothing to finish; closing the recorder ends the stream, the buffer still reports.
            assertThrows(IllegalStateException.class, rec::finish);
            rec.close();
            long deadline = System.nanoTime() + 10_000_000_000L;
            while (shadow.isAttached() && System.nanoTime() < deadline) {
                Thread.sleep(2);
            }
            assertFalse(shadow.isAttached());
            Path late = dir.resolve("late.reel");
            shadow.report(2, late, now()).await();
            try (Reader r = Reader.open(late)) {
                assertEquals(OptionalInt.of(299), r.header().lastTick());
            }
        }
    }

    @Test
    void aRecordedWorldIsAlsoShadowed(@TempDir Path dir) {
        Path reel = dir.resolve("world.reel");
        RecorderOptions ro = RecorderOptions.builder().chunkTicks(25).build();
        try (Engine engine = new Engine(EngineOptions.builder().shadowBudgetBytes(32L << 20).build())) {
            ShadowBuffer.Started s = ShadowBuffer.start(engine, reel, ro, ShadowOptions.defaults());
            Recorder rec = s.recorder();
            assertEquals(reel, rec.path());
            assertTrue(rec.isPersistent());
            Batch t = new Batch();
            submit(rec, t, 0, 60);
            // Player 2 leaves at tick 60.
            rec.submit(60, t.clear().pose(1, 16, 64, 3, 0, 0).playerLeave(2));
            rec.playerLeft(2);
            for (int tick = 61; tick < 100; tick++) {
                rec.submit(tick, t.clear().pose(1, 10 + tick * 0.1, 64, 3, 0, 0));
            }
            rec.flush();
            assertEquals(1, s.shadow().stats().departedPlayers());
            Path left = dir.resolve("left.reel");
            s.shadow().report(2, left, ReportOptions.builder().after(Duration.ZERO)
                    .before(Duration.ofSeconds(2)).build()).await();
            try (Reader r = Reader.open(left)) {
                assertEquals(OptionalInt.of(21), r.header().firstTick(), "40 ticks up to the leave");
                assertEquals(OptionalInt.of(99), r.header().lastTick());
                assertTrue(r.seek(59).entity(2).isPresent());
                assertTrue(r.seek(60).entity(2).isEmpty());
                @SuppressWarnings("unchecked")
                Map<String, Object> report = (Map<String, Object>) r.metadata().get("report");
                assertEquals(60, report.get("left_tick"));
            }
            // The recording itself finishes as any, with every entity.
            assertEquals(reel, rec.finish().await());
            s.close();
            assertTrue(engine.stats().compactionsDone() >= 1);
        }
        try (Reader r = Reader.open(reel)) {
            assertEquals(100, r.header().tickCount());
            assertEquals(List.of(1, 2, 3), ids(r.seek(59)));
        }
    }

    @Test
    void theEngineBudgetGivesUpTheOldestBlocks() {
        try (Engine engine = new Engine(EngineOptions.builder().shadowBudgetBytes(8 << 10).build());
                ShadowBuffer.Started s = ShadowBuffer.start(engine, null, RecorderOptions.defaults(),
                        ShadowOptions.builder().blockTicks(10).build())) {
            Batch t = new Batch();
            for (int tick = 0; tick < 2000; tick++) {
                t.clear();
                for (int p = 1; p <= 4; p++) {
                    double a = tick * 0.05 * p;
                    if (tick == 0) {
                        t.entityAdd(p, 0, Math.cos(a) * 20, 64, Math.sin(a) * 20, 0, 0);
                    } else {
                        t.pose(p, Math.cos(a) * 20, 64 + (tick % 7) * 0.3, Math.sin(a) * 20, tick * 3.7, 0);
                    }
                }
                s.recorder().submit(tick, t);
            }
            s.recorder().flush();
            EngineStats e = engine.stats();
            ShadowStats st = s.shadow().stats();
            assertTrue(e.shadowBudgetDroppedBlocks() > 0, e.toString());
            assertTrue(e.shadowBytes() <= 8 << 10, e.toString());
            assertEquals(e.shadowBytes(), st.bytes());
            assertTrue(st.budgetDroppedBlocks() > 0 && st.budgetDroppedTicks() > 0, st.toString());
            assertTrue(st.firstTick().orElseThrow() > 0, st.toString());
        }
    }

    @Test
    void badArgumentsAreRefused(@TempDir Path dir) {
        // Builders only store; the library checks every value when the options are used.
        assertThrows(NullPointerException.class, () -> ShadowOptions.builder().window(null));
        assertThrows(NullPointerException.class, () -> ReportOptions.builder().metadata("k", null));
        IllegalArgumentException budget = assertThrows(IllegalArgumentException.class,
                () -> new Engine(EngineOptions.builder().shadowBudgetBytes(0).build()));
        assertTrue(budget.getMessage().contains("shadowBudgetBytes must be positive"), budget.getMessage());
        budget = assertThrows(IllegalArgumentException.class,
                () -> new Engine(EngineOptions.builder().shadowBudgetBytes(-1).build()));
        assertTrue(budget.getMessage().contains("shadowBudgetBytes must not be negative (got -1)"),
                budget.getMessage());

        try (Engine engine = new Engine()) {
            // The library checks the options.
            for (ShadowOptions bad : List.of(
                    ShadowOptions.builder().window(Duration.ZERO).build(),
                    ShadowOptions.builder().window(Duration.ofSeconds(-1)).build(),
                    ShadowOptions.builder().grace(Duration.ofMillis(-1)).build(),
                    ShadowOptions.builder().maxBytes(0).build(),
                    ShadowOptions.builder().blockTicks(0).build())) {
                assertThrows(IllegalArgumentException.class,
                        () -> ShadowBuffer.start(engine, null, RecorderOptions.defaults(), bad), bad.toString());
            }
            ShadowOptions twoDays = ShadowOptions.builder().window(Duration.ofDays(2)).build();
            assertThrows(IllegalArgumentException.class,
                    () -> ShadowBuffer.start(engine, null, RecorderOptions.defaults(), twoDays));
            ShadowOptions huge = ShadowOptions.builder().grace(Duration.ofSeconds(Long.MAX_VALUE)).build();
            assertThrows(IllegalArgumentException.class,
                    () -> ShadowBuffer.start(engine, null, RecorderOptions.defaults(), huge));
            assertThrows(NullPointerException.class,
                    () -> ShadowBuffer.start(engine, null, null, ShadowOptions.defaults()));
            // A negative duration is refused by its setter, named as the builder's method.
            IllegalArgumentException grace = assertThrows(IllegalArgumentException.class,
                    () -> ShadowBuffer.start(engine, null, RecorderOptions.defaults(),
                            ShadowOptions.builder().grace(Duration.ofMillis(-1)).build()));
            assertTrue(grace.getMessage().contains("grace must not be negative (got -1)"), grace.getMessage());
            IllegalArgumentException window = assertThrows(IllegalArgumentException.class,
                    () -> ShadowBuffer.start(engine, null, RecorderOptions.defaults(),
                            ShadowOptions.builder().window(Duration.ZERO).build()));
            assertTrue(window.getMessage().contains("the shadow window must be positive"), window.getMessage());
            assertThrows(IllegalArgumentException.class,
                    () -> NativeBridge.shadowBufferStart(engine.nativeHandle(), null, 0, engine.nativeHandle()),
                    "an engine's handle as the shadow's options");
            assertThrows(IllegalArgumentException.class,
                    () -> NativeBridge.shadowBufferStart(engine.nativeHandle(), null, engine.nativeHandle(), 0),
                    "an engine's handle as the recorder's options");

            ShadowBuffer.Started s = ShadowBuffer.start(engine, null, RecorderOptions.defaults(), tenSeconds());
            ShadowBuffer shadow = s.shadow();
            Path out = dir.resolve("r.reel");
            // Before the first tick there is nothing to report.
            assertThrows(IllegalStateException.class, () -> shadow.report(1, out, now()));
            submit(s.recorder(), new Batch(), 0, 50);
            s.recorder().flush();
            IllegalArgumentException unknown =
                    assertThrows(IllegalArgumentException.class, () -> shadow.report(99, out, now()));
            assertTrue(unknown.getMessage().contains("entity 99"), unknown.getMessage());
            assertThrows(IllegalArgumentException.class,
                    () -> shadow.report(1, out, ReportOptions.builder().metadata("player", "x").build()));
            assertThrows(IllegalArgumentException.class,
                    () -> shadow.report(1, out, ReportOptions.builder().after(Duration.ofDays(2)).build()));
            for (ReportOptions bad : List.of(
                    ReportOptions.builder().before(Duration.ofSeconds(-1)).build(),
                    ReportOptions.builder().after(Duration.ofNanos(-1)).build(),
                    ReportOptions.builder().radius(Double.NaN).build(),
                    ReportOptions.builder().radius(-1).build(),
                    ReportOptions.builder().radius(Double.POSITIVE_INFINITY).build(),
                    ReportOptions.builder().compressionLevel(99).build())) {
                assertThrows(IllegalArgumentException.class, () -> shadow.report(1, out, bad), bad.toString());
            }
            IllegalArgumentException radius = assertThrows(IllegalArgumentException.class,
                    () -> shadow.report(1, out, ReportOptions.builder().radius(-1).build()));
            assertTrue(radius.getMessage().contains("the context radius must be a finite number"), radius.getMessage());
            assertThrows(NullPointerException.class, () -> shadow.report(1, null, now()));
            IllegalArgumentException after = assertThrows(IllegalArgumentException.class,
                    () -> shadow.report(1, out, ReportOptions.builder().after(Duration.ofSeconds(-2)).build()));
            assertTrue(after.getMessage().contains("after must not be negative (got -2000)"), after.getMessage());
            // What the builders cannot produce, the library refuses too.
            String[] none = new String[0];
            long h = shadowHandle(shadow);
            long opts = now().toNative();
            try {
                IllegalArgumentException chat = assertThrows(IllegalArgumentException.class,
                        () -> NativeBridge.reportOptionsSetChat(opts, 3));
                assertTrue(chat.getMessage().contains("chat 3 is none of"), chat.getMessage());
                assertThrows(IllegalArgumentException.class,
                        () -> NativeBridge.shadowBufferReport(h, 1, out.toString(), h, none), "a shadow as the options");
                assertThrows(IllegalArgumentException.class,
                        () -> NativeBridge.shadowBufferReport(h, 1, out.toString(), opts, new String[] {"a"}));
                assertThrows(IllegalArgumentException.class,
                        () -> NativeBridge.shadowBufferReport(h, 1, out.toString(), opts, new String[] {null, "v"}));
                assertThrows(IllegalArgumentException.class,
                        () -> NativeBridge.shadowBufferReport(h, 1, null, opts, none));
                assertThrows(IllegalArgumentException.class,
                        () -> NativeBridge.shadowBufferReport(h, 1, out.toString(), opts, null));
            } finally {
                NativeBridge.close(opts);
            }
            // A recorder's handle is not a shadow's.
            assertThrows(IllegalArgumentException.class, () -> NativeBridge.shadowBufferStats(recorderHandle(s.recorder())));
            assertFalse(Files.exists(out), "no refused report wrote anything");

            // A report onto an existing file fails through its handle unless asked to overwrite.
            shadow.report(1, out, now()).await();
            Pending<Path> again = shadow.report(1, out, now());
            TickreelException exists = assertThrows(TickreelException.class, again::await);
            assertTrue(exists.getMessage().contains("already exists"), exists.getMessage());
            assertInstanceOf(java.nio.file.FileAlreadyExistsException.class, exists.getCause(), exists.getMessage());
            shadow.report(1, out, ReportOptions.builder().after(Duration.ZERO).overwrite(true).build()).await();
            s.close();
        }
    }

    @Test
    void useAfterClose(@TempDir Path dir) {
        Engine engine = new Engine();
        ShadowBuffer.Started s = ShadowBuffer.start(engine, null, RecorderOptions.defaults(), tenSeconds());
        ShadowBuffer shadow = s.shadow();
        Batch t = new Batch();
        submit(s.recorder(), t, 0, 40);
        s.recorder().flush();

        // The engine closes first: the stream ends, later reports are refused.
        engine.close();
        assertThrows(IllegalStateException.class,
                () -> ShadowBuffer.start(engine, null, RecorderOptions.defaults(), tenSeconds()));
        assertThrows(IllegalStateException.class, () -> s.recorder().submit(40, t));
        assertFalse(shadow.isAttached());
        assertEquals(OptionalInt.of(39), shadow.stats().lastTick());
        Path late = dir.resolve("late.reel");
        assertThrows(IllegalStateException.class, () -> shadow.report(1, late, now()));
        assertFalse(Files.exists(late));

        // Closed: every call throws, closing again is harmless.
        shadow.close();
        shadow.close();
        assertThrows(IllegalStateException.class, shadow::stats);
        assertThrows(IllegalStateException.class, shadow::isAttached);
        assertThrows(IllegalStateException.class, () -> shadow.report(1, dir.resolve("x.reel"), now()));
        s.close();
        s.close();
        assertThrows(IllegalStateException.class, () -> s.recorder().flush());
    }

    /** The native handle behind a public object, for calls the public API cannot make. */
    private static long shadowHandle(ShadowBuffer b) {
        return field(b);
    }

    private static long recorderHandle(Recorder r) {
        return field(r);
    }

    private static long field(Object owner) {
        try {
            java.lang.reflect.Field f = owner.getClass().getDeclaredField("handle");
            f.setAccessible(true);
            return ((NativeHandle) f.get(owner)).get();
        } catch (ReflectiveOperationException e) {
            throw new AssertionError(e);
        }
    }
}
