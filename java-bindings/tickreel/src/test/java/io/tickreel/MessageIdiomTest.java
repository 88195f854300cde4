package io.tickreel;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.nio.ByteBuffer;
import java.nio.file.AccessDeniedException;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.FileSystemException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.NotDirectoryException;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.function.Consumer;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.function.Executable;
import org.junit.jupiter.api.io.TempDir;

/**
 * Messages reaching Java read as Java: the Java names of options and methods, no Rust syntax
 * ({@code 1..=64}, {@code Some(..)}, {@code ::} paths, snake_case names, Debug durations such as
 * {@code 5s}) and no {@code (os error N)}; an I/O {@link TickreelException} reads as java.nio's
 * ("PATH: reason") and has as its cause the java.nio.file exception a JDK call would have thrown.
 */
class MessageIdiomTest {
    /** What a Rust-flavoured message would show, each with why. */
    private static final Map<String, Pattern> RUST_ISMS = Map.of(
            "a Rust range", Pattern.compile("\\.\\.=?\\d|\\d\\.\\.=?"),
            "an OS error number", Pattern.compile("os error"),
            "an Option", Pattern.compile("\\bSome\\(|\\bNone\\b"),
            "a Rust path", Pattern.compile("::"),
            "a snake_case name", Pattern.compile("\\b[a-z]+(_[a-z]+)+\\b"),
            "a Debug duration", Pattern.compile("\\b\\d+(\\.\\d+)?(ms|s|µs|ns)\\b"),
            "a Rust type", Pattern.compile("\\b(Duration|usize|u32|u64|i64|f64|Vec<|Option<|Result<)"));

    private final List<String> seen = new ArrayList<>();

    /** Runs {@code call}, which must throw {@code type}, and checks the message's idiom. */
    private <T extends Throwable> T idiomatic(Class<T> type, Executable call) {
        T e = assertThrows(type, call);
        String m = e.getMessage();
        assertTrue(m != null && !m.isBlank(), "no message: " + e);
        for (var r : RUST_ISMS.entrySet()) {
            assertFalse(r.getValue().matcher(m).find(), "the message shows " + r.getKey() + ": " + m);
        }
        seen.add(type.getSimpleName() + ": " + m);
        return e;
    }

    /** An option out of range, refused where it is given or where it is used; names the Java option. */
    private void refusedOption(String javaName, Executable call) {
        IllegalArgumentException e = idiomatic(IllegalArgumentException.class, call);
        assertTrue(e.getMessage().contains(javaName), "names " + javaName + ": " + e.getMessage());
    }

    private static Recorder start(Engine engine, Path path, Consumer<RecorderOptions.Builder> set) {
        RecorderOptions.Builder b = RecorderOptions.builder();
        set.accept(b);
        return engine.startRecording(path, b.build());
    }

    /** A directory this process cannot create anything in (a read-only place even for root). */
    private static Path readOnlyDirectory(Path dir) throws Exception {
        Path ro = Files.createDirectory(dir.resolve("ro"));
        Files.setPosixFilePermissions(ro, PosixFilePermissions.fromString("r-xr-xr-x"));
        try {
            Files.createFile(ro.resolve("probe"));
            Files.delete(ro.resolve("probe"));
            return Path.of("/sys"); // root ignores permissions; sysfs refuses new entries
        } catch (AccessDeniedException expected) {
            return ro;
        }
    }

    @Test
    void ioErrorsReadAsJavaNioAndCarryItsException(@TempDir Path dir) throws Exception {
        Path missing = dir.resolve("missing.reel");
        TickreelException e = idiomatic(TickreelException.class, () -> Reader.open(missing));
        assertEquals(TickreelException.Kind.IO, e.kind());
        assertEquals(missing + ": No such file or directory", e.getMessage());
        NoSuchFileException nsf = assertInstanceOf(NoSuchFileException.class, e.getCause());
        assertEquals(missing.toString(), nsf.getFile());
        assertEquals(e.getMessage(), nsf.getMessage(), "the cause reads as the JDK's own");

        try (Engine engine = new Engine()) {
            // a missing parent directory
            e = idiomatic(TickreelException.class, () -> start(engine, dir.resolve("nowhere/run.reel"), b -> { }));
            assertInstanceOf(NoSuchFileException.class, e.getCause(), e.getMessage());
            assertTrue(e.getMessage().startsWith(dir.resolve("nowhere").toString()), e.getMessage());

            // a read-only directory
            Path ro = readOnlyDirectory(dir);
            e = idiomatic(TickreelException.class, () -> start(engine, ro.resolve("run.reel"), b -> { }));
            FileSystemException denied = assertInstanceOf(FileSystemException.class, e.getCause(), e.getMessage());
            assertTrue(denied instanceof AccessDeniedException, "an AccessDeniedException: " + denied);
            assertTrue(denied.getFile().startsWith(ro.toString()), denied.getFile());
            assertTrue(e.getMessage().startsWith(ro + ": ") && !e.getMessage().contains("at path"),
                    "names the directory once, as java.nio would: " + e.getMessage());

            // an existing (finished) recording, without overwrite: a file in the way, as java.nio
            // says it (FileAlreadyExistsException), naming the path once and the Java option
            Path existing = Files.writeString(dir.resolve("existing.reel"), "x");
            e = idiomatic(TickreelException.class, () -> start(engine, existing, b -> { }));
            FileAlreadyExistsException exists = assertInstanceOf(FileAlreadyExistsException.class, e.getCause(), e.getMessage());
            assertEquals(existing.toString(), exists.getFile());
            assertTrue(e.getMessage().startsWith(existing + ": already exists"), e.getMessage());
            assertTrue(e.getMessage().contains("overwrite(true)"), "names the Java option: " + e.getMessage());

            // a directory given as the recording's path
            Path directory = Files.createDirectory(dir.resolve("adir.reel"));
            e = idiomatic(TickreelException.class, () -> start(engine, directory, b -> { }));
            FileSystemException isDir = assertInstanceOf(FileSystemException.class, e.getCause(), e.getMessage());
            assertEquals(directory.toString(), isDir.getFile());

            // a file where a directory should be
            Path file = Files.writeString(dir.resolve("file"), "x");
            e = idiomatic(TickreelException.class, () -> start(engine, file.resolve("run.reel"), b -> { }));
            assertInstanceOf(NotDirectoryException.class, e.getCause(), e.getMessage());
        }
        // Not I/O: no java.nio cause, no path.
        Path bad = Files.write(dir.resolve("bad.reel"), new byte[300]);
        e = idiomatic(TickreelException.class, () -> Reader.open(bad));
        assertEquals(TickreelException.Kind.CORRUPT, e.kind());
        assertEquals(null, e.getCause());
        System.out.println(String.join("\n", seen));
    }

    @Test
    void optionsOutOfRangeNameTheJavaOption(@TempDir Path dir) {
        Path run = dir.resolve("run.reel");
        try (Engine engine = new Engine()) {
            refusedOption("chunkTicks", () -> start(engine, run, b -> b.chunkTicks(0)));
            refusedOption("chunkTicks", () -> start(engine, run, b -> b.chunkTicks(1 << 30)));
            refusedOption("chunkBytes", () -> start(engine, run, b -> b.chunkBytes(0)));
            refusedOption("snapshotInterval", () -> start(engine, run, b -> b.snapshotInterval(0)));
            refusedOption("compressionLevel", () -> start(engine, run, b -> b.compressionLevel(99)));
            refusedOption("compactionLevel", () -> start(engine, run, b -> b.compactionLevel(99)));
            refusedOption("compactionChunkTicks", () -> start(engine, run, b -> b.compactionChunkTicks(0)));
            refusedOption("flushBytes", () -> start(engine, run, b -> b.flushBytes(0)));
            refusedOption("flushInterval", () -> start(engine, run, b -> b.flushInterval(Duration.ZERO)));
            refusedOption("maxBatchBytes", () -> start(engine, run, b -> b.maxBatchBytes(1)));
            refusedOption("ticksPerSecond", () -> start(engine, run, b -> b.ticksPerSecond(0)));
            refusedOption("ticksPerSecond", () -> start(engine, run, b -> b.ticksPerSecond(Double.NaN)));
            refusedOption("window", () -> ShadowBuffer.start(engine, run, RecorderOptions.defaults(),
                    ShadowOptions.builder().window(Duration.ZERO).build()));
            refusedOption("blockTicks", () -> ShadowBuffer.start(engine, run, RecorderOptions.defaults(),
                    ShadowOptions.builder().blockTicks(0).build()));
            refusedOption("maxBytes", () -> ShadowBuffer.start(engine, run, RecorderOptions.defaults(),
                    ShadowOptions.builder().maxBytes(0).build()));
        }
        refusedOption("writerThreads", () -> new Engine(EngineOptions.builder().writerThreads(0).build()).close());
        refusedOption("writerThreads", () -> new Engine(EngineOptions.builder().writerThreads(1000).build()).close());
        refusedOption("queueCapacity", () -> new Engine(EngineOptions.builder().queueCapacity(0).build()).close());
        refusedOption("shadowBudgetBytes",
                () -> new Engine(EngineOptions.builder().shadowBudgetBytes(0).build()).close());
        refusedOption("compressionLevel", () -> ReelWriter.create(run, ReelOptions.builder().compressionLevel(99).build()));
        System.out.println(String.join("\n", seen));
    }

    @Test
    void misuseAndBadInputReadAsJava(@TempDir Path dir) throws Exception {
        Path reel = dir.resolve("run.reel");
        try (Engine engine = new Engine(); Recorder rec = engine.startRecording(reel, RecorderOptions.defaults())) {
            rec.registerPlayer(1, new UUID(1, 1), "p1");
            // a malformed batch: one byte, shorter than its event count
            ByteBuffer one = ByteBuffer.allocateDirect(1);
            idiomatic(IllegalArgumentException.class, () -> rec.submit(0, one));
            // trailing bytes after the events (a writer decodes the batch in the call)
            try (ReelWriter w = ReelWriter.create(dir.resolve("w.reel"), ReelOptions.defaults())) {
                ByteBuffer trailing = ByteBuffer.allocateDirect(5);
                idiomatic(IllegalArgumentException.class, () -> w.writeTick(0, trailing));
            }
            // a NaN position
            idiomatic(IllegalArgumentException.class, () -> rec.submit(0, new Batch().pose(1, Double.NaN, 64, 0, 0, 0)));
            idiomatic(IllegalArgumentException.class, () -> rec.submit(0, new Batch().entityAdd(1, 0, 1e300, 64, 0, 0, 0)));
            assertTrue(rec.submit(0, new Batch().entityAdd(1, 0, 0, 64, 0, 0, 0)));
            // a tick going backwards
            idiomatic(IllegalArgumentException.class, () -> rec.submit(0, new Batch()));
            rec.finish().await();
            idiomatic(IllegalStateException.class, () -> rec.submit(1, new Batch()));
        }
        Reader r = Reader.open(reel);
        r.close();
        // a closed handle
        idiomatic(IllegalStateException.class, r::header);
        try (Playhead p = Playhead.open(reel)) {
            refusedOption("speed", () -> p.setSpeed(100));
            idiomatic(IllegalArgumentException.class, () -> p.setSpeed(Double.NaN));
        }
        try (Reader open = Reader.open(reel)) {
            idiomatic(IllegalArgumentException.class, () -> open.ticks(5, 2));
        }
        idiomatic(IllegalArgumentException.class, () -> GhostRange.ticks(5, 2));
        System.out.println(String.join("\n", seen));
    }

    @Test
    void theChecksCanFail() {
        // The checks above find what they look for (a check that matches nothing proves nothing).
        String[] rustIsms = {"chunk_ticks 0 must be 1..=4096", "I/O error: /x: denied (os error 13)",
            "got Some(3)", "tickreel::Error", "5s", "Duration"};
        for (String m : rustIsms) {
            if (RUST_ISMS.values().stream().noneMatch(p -> p.matcher(m).find())) {
                fail("no pattern matches " + m);
            }
        }
        assertTrue(RUST_ISMS.values().stream().noneMatch(p -> p.matcher(
                "/tmp/run.reel: No such file or directory; chunkTicks must be between 1 and 4096 (was 0)").find()));
    }
}
