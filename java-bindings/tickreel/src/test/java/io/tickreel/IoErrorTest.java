package io.tickreel;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.UUID;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** I/O failures reach Java as {@link TickreelException} of kind IO that names the path. */
class IoErrorTest {
    @Test
    void aFailedFlushNamesItsPathInTheExceptionAndTheStatus(@TempDir Path dir) throws Exception {
        Path runs = dir.resolve("runs");
        Files.createDirectory(runs);
        try (Engine engine = new Engine();
                Recorder rec = engine.startRecording(runs.resolve("run.reel"), RecorderOptions.builder().build())) {
            // The directory goes away and a file takes its name before the first flush.
            Files.delete(runs);
            Files.writeString(runs, "not a directory");
            rec.registerPlayer(1, new UUID(1, 1), "player1");
            // A tick without events: a batch is its event count (big-endian u16), here 0.
            assertTrue(rec.submit(0, java.nio.ByteBuffer.allocateDirect(2)));
            TickreelException e = assertThrows(TickreelException.class, rec::flush);
            assertEquals(TickreelException.Kind.IO, e.kind(), e.getMessage());
            Path path = e.path().orElseThrow(() -> new AssertionError("no path: " + e.getMessage()));
            assertTrue(path.startsWith(runs), path.toString());
            assertTrue(e.getMessage().contains(runs.toString()), e.getMessage());
            TickreelException status = rec.status().orElseThrow();
            assertEquals(TickreelException.Kind.IO, status.kind(), status.getMessage());
            assertEquals(e.path(), status.path());
            rec.abort();
        }
    }

    @Test
    void errorsThatAreNotAboutAFileHaveNoPath(@TempDir Path dir) throws Exception {
        Path bad = dir.resolve("bad.reel");
        Files.write(bad, new byte[300]);
        TickreelException e = assertThrows(TickreelException.class, () -> Reader.open(bad).close());
        assertEquals(TickreelException.Kind.CORRUPT, e.kind());
        assertTrue(e.path().isEmpty(), e.getMessage());
        assertEquals(12, TickreelException.Kind.DATABASE.code());
    }
}
