package io.tickreel;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.UUID;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Java's option defaults are the core's (one set of defaults in every language), and the core validates. */
class DefaultsTest {
    /** Index of the start timestamp in the recording arrays: Java's default is "now", the core's 0. */
    private static final int TIMESTAMP = 4;

    @BeforeAll
    static void load() {
        NativeLoader.ensureLoaded();
    }

    private static long[] withoutTimestamp(long[] a) {
        long[] copy = a.clone();
        copy[TIMESTAMP] = 0;
        return copy;
    }

    @Test
    void builderDefaultsAreTheCoreDefaults() {
        assertArrayEquals(NativeBridge.defaultOptions(0), withoutTimestamp(ReelOptions.defaults().toNative()),
                "ReelOptions");
        assertArrayEquals(NativeBridge.defaultOptions(3), ShadowOptions.defaults().toNative(), "ShadowOptions");
        long[] report = NativeBridge.defaultOptions(4);
        ReportOptions r = ReportOptions.defaults();
        int n = r.toNative().length; // the array, then the radius's bits
        assertEquals(n + 1, report.length, "ReportOptions layout");
        assertArrayEquals(Arrays.copyOf(report, n), r.toNative(), "ReportOptions");
        assertEquals(Double.longBitsToDouble(report[n]), r.nativeRadius(), "ReportOptions radius");
        assertThrows(IllegalArgumentException.class, () -> NativeBridge.defaultOptions(99));
    }

    /** What the core's RecorderOptions::validate refuses, Java reaches it with and gets refused. */
    @Test
    void theCoreValidatesRecorderOptions(@TempDir Path dir) throws Exception {
        try (Engine engine = new Engine(EngineOptions.defaults())) {
            RecorderOptions zeroInterval = RecorderOptions.builder().flushInterval(Duration.ZERO).build();
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                    () -> engine.startRecording(dir.resolve("a.reel"), zeroInterval));
            assertEquals(true, e.getMessage().contains("flushInterval must be positive"), e.getMessage());
            RecorderOptions tinyBatch = RecorderOptions.builder().maxBatchBytes(1).build();
            e = assertThrows(IllegalArgumentException.class,
                    () -> engine.startRecording(dir.resolve("b.reel"), tinyBatch));
            assertEquals(true, e.getMessage().contains("maxBatchBytes must be between 2 and"), e.getMessage());
            assertEquals(false, Files.exists(dir.resolve("a.reel.live")));
            // A value out of the native setter's type is refused by that setter, named as Java's.
            RecorderOptions negative = RecorderOptions.builder().flushBytes(-1).build();
            e = assertThrows(IllegalArgumentException.class,
                    () -> engine.startRecording(dir.resolve("c.reel"), negative));
            assertEquals(true, e.getMessage().contains("flushBytes must not be negative (got -1)"), e.getMessage());
            // What is not set keeps the library's defaults; what is set reaches the recording.
            UUID world = UUID.randomUUID();
            RecorderOptions set = RecorderOptions.builder().worldId(world).gameDataVersion(-2).build();
            Path reel = dir.resolve("d.reel");
            try (Recorder rec = engine.startRecording(reel, set)) {
                rec.submit(0, new Batch());
                rec.finish().await();
            }
            try (Reader r = Reader.open(reel)) {
                assertEquals(world, r.header().worldId());
                assertEquals(-2, r.header().gameDataVersion(), "any 32 bits");
                assertEquals(20.0, r.header().ticksPerSecond(), "the default tick rate");
            }
        }
    }
}
