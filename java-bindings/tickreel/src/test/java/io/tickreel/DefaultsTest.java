package io.tickreel;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.UUID;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Java holds no option defaults (the library's are the one set), and the core validates. */
class DefaultsTest {
    @BeforeAll
    static void load() {
        NativeLoader.ensureLoaded();
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
