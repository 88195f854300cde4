package io.tickreel;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.function.Executable;
import org.junit.jupiter.api.io.TempDir;

/** Misuse and damaged input give clear exceptions, never a crash. */
class BadInputTest {
    private static void assertClosed(Executable call) {
        IllegalStateException e = assertThrows(IllegalStateException.class, call);
        assertTrue(e.getMessage().contains("closed"), e.getMessage());
    }

    @Test
    void closedWriterThrowsIllegalState(@TempDir Path dir) {
        ReelWriter w = ReelWriter.create(dir.resolve("a.reel"), ReelOptions.defaults());
        w.close();
        w.close(); // idempotent
        Batch t = new Batch().pose(1, 0, 0, 0, 0, 0);
        assertClosed(() -> w.writeTick(0, t));
        assertClosed(() -> w.writeTick(0, ByteBuffer.allocateDirect(2)));
        assertClosed(() -> w.offerSnapshot(new byte[1]));
        assertClosed(() -> w.registerEntity(new EntityInfo(1, 0, null, null)));
        assertClosed(() -> w.registerEventType(new EventType(1, "x", 1)));
        assertClosed(() -> w.setUserMetadata("k", 1));
        assertClosed(w::finish);
        // Closing without finishing discards the recording.
        assertTrue(Files.notExists(dir.resolve("a.reel")));
    }

    @Test
    void finishedWriterThrowsIllegalState(@TempDir Path dir) {
        try (ReelWriter w = ReelWriter.create(dir.resolve("a.reel"), ReelOptions.defaults())) {
            w.writeTick(0, new Batch().entityAdd(1, 0, 0, 0, 0, 0, 0));
            w.finish();
            IllegalStateException e = assertThrows(IllegalStateException.class,
                    () -> w.writeTick(1, new Batch()));
            assertTrue(e.getMessage().contains("finished"), e.getMessage());
            assertThrows(IllegalStateException.class, w::finish);
            assertThrows(IllegalStateException.class, () -> w.setUserMetadata("k", 1));
        }
    }

    @Test
    void closedReplayThrowsIllegalState(@TempDir Path dir) {
        Path reel = ReaderTest.record(dir, 2, 20);
        Reader r = Reader.open(reel);
        r.close();
        r.close();
        assertClosed(r::header);
        assertClosed(r::metadata);
        assertClosed(r::entities);
        assertClosed(r::eventTypes);
        assertClosed(() -> r.seek(0));
        assertClosed(() -> r.ticks(0, 1));
        assertClosed(r::verify);
    }

    @Test
    void staleForeignAndBogusHandles(@TempDir Path dir) {
        Path reel = ReaderTest.record(dir, 1, 5);
        Reader r = Reader.open(reel);
        long h = handleOf(r);
        r.close();
        // A stale handle (closed) stays closed even after its slot is reused.
        try (Reader again = Reader.open(reel)) {
            assertThrows(IllegalStateException.class, () -> NativeBridge.readerInfo(h));
            assertEquals(1, again.seek(0).entities().size());
            // A handle of another type is refused.
            long other = handleOf(again);
            assertThrows(IllegalArgumentException.class, () -> NativeBridge.reelWriterFinish(other));
        }
        for (long bogus : new long[] {0, -1, 1, Long.MAX_VALUE, Long.MIN_VALUE, 12345L << 32 | 7}) {
            assertThrows(IllegalStateException.class, () -> NativeBridge.readerInfo(bogus));
            NativeBridge.close(bogus); // harmless
        }
    }

    /** The native handle behind a replay (white-box, through the package-private field). */
    private static long handleOf(Reader r) {
        try {
            java.lang.reflect.Field f = Reader.class.getDeclaredField("handle");
            f.setAccessible(true);
            return ((NativeHandle) f.get(r)).get();
        } catch (ReflectiveOperationException e) {
            throw new AssertionError(e);
        }
    }

    @Test
    void pinnedBuffersAreCheckedLikeBuffers(@TempDir Path dir) throws InterruptedException {
        assertThrows(IllegalArgumentException.class, () -> NativeBridge.pinDirect(null));
        IllegalArgumentException heap = assertThrows(IllegalArgumentException.class,
                () -> NativeBridge.pinDirect(ByteBuffer.allocate(8)));
        assertTrue(heap.getMessage().contains("direct"), heap.getMessage());
        try (ReelWriter w = ReelWriter.create(dir.resolve("p.reel"), ReelOptions.defaults())) {
            long h = handleOfWriter(w);
            byte[] one = new Batch().pose(1, 1, 2, 3, 4, 5).toByteArray();
            ByteBuffer small = ByteBuffer.allocateDirect(one.length).put(0, one);
            long pin = NativeBridge.pinDirect(small);
            // A range beyond the pinned buffer's capacity, or negative.
            assertThrows(IllegalArgumentException.class, () -> NativeBridge.reelWriterTickPinned(h, 0, pin, 0, one.length + 1));
            assertThrows(IllegalArgumentException.class, () -> NativeBridge.reelWriterTickPinned(h, 0, pin, 3, one.length - 2));
            assertThrows(IllegalArgumentException.class, () -> NativeBridge.reelWriterTickPinned(h, 0, pin, -1, 2));
            assertThrows(IllegalArgumentException.class, () -> NativeBridge.reelWriterTickPinned(h, 0, pin, 0, -2));
            // Handles of the wrong type, either way round.
            assertThrows(IllegalArgumentException.class, () -> NativeBridge.reelWriterTickPinned(h, 0, h, 0, 2));
            assertThrows(IllegalArgumentException.class, () -> NativeBridge.reelWriterTickPinned(pin, 0, pin, 0, 2));
            // The pinned bytes are what is written.
            NativeBridge.reelWriterTickPinned(h, 0, pin, 0, one.length);
            // A closed pin is refused, for ever.
            NativeBridge.close(pin);
            IllegalStateException closed = assertThrows(IllegalStateException.class,
                    () -> NativeBridge.reelWriterTickPinned(h, 1, pin, 0, one.length));
            assertTrue(closed.getMessage().contains("pinned buffer is closed"), closed.getMessage());
            NativeBridge.close(pin); // harmless
            // A batch's pin is released once the batch is gone (its cleaner closes it): probed
            // with a 0-byte range, refused by the core once the pin is found, or else "closed".
            Batch b = new Batch().pose(1, 1, 2, 3, 4, 5);
            w.writeTick(1, b);
            w.writeTick(2, b);
            long batchPin = RecorderTest.pinOf(b);
            assertTrue(batchPin != 0, "pinned at its second tick");
            assertThrows(IllegalArgumentException.class, () -> NativeBridge.reelWriterTickPinned(h, 3, batchPin, 0, 0));
            b = null;
            boolean released = false;
            for (int i = 0; i < 200 && !released; i++) {
                System.gc();
                try {
                    NativeBridge.reelWriterTickPinned(h, 3, batchPin, 0, 0);
                    throw new AssertionError("a 0-byte tick was accepted");
                } catch (IllegalArgumentException stillPinned) {
                    Thread.sleep(20);
                } catch (IllegalStateException gone) {
                    released = true;
                }
            }
            assertTrue(released, "the pin of a collected batch was never closed");
            w.finish();
        }
        try (Reader r = Reader.open(dir.resolve("p.reel"))) {
            List<DecodedTick> ticks = r.ticks(0, 3);
            assertEquals(3, ticks.size());
            for (DecodedTick d : ticks) {
                assertEquals(1, d.events().size());
            }
        }
    }

    @Test
    void wrongBuffersThrowIllegalArgument(@TempDir Path dir) {
        try (ReelWriter w = ReelWriter.create(dir.resolve("b.reel"), ReelOptions.defaults())) {
            // A heap buffer, checked in Java and (bypassing that) in native code.
            ByteBuffer heap = ByteBuffer.wrap(new Batch().pose(1, 0, 0, 0, 0, 0).toByteArray());
            assertThrows(IllegalArgumentException.class, () -> w.writeTick(0, heap));
            long h = handleOfWriter(w);
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                    () -> NativeBridge.reelWriterTick(h, 0, heap, 0, heap.remaining()));
            assertTrue(e.getMessage().contains("direct"), e.getMessage());
            assertThrows(IllegalArgumentException.class, () -> NativeBridge.reelWriterTick(h, 0, null, 0, 0));
            // A range beyond the buffer's capacity, or negative.
            ByteBuffer small = ByteBuffer.allocateDirect(4);
            assertThrows(IllegalArgumentException.class, () -> NativeBridge.reelWriterTick(h, 0, small, 0, 5));
            assertThrows(IllegalArgumentException.class, () -> NativeBridge.reelWriterTick(h, 0, small, 3, 2));
            assertThrows(IllegalArgumentException.class, () -> NativeBridge.reelWriterTick(h, 0, small, -1, 2));
            assertThrows(IllegalArgumentException.class, () -> NativeBridge.reelWriterTick(h, 0, small, 0, -2));
            // Too short for what it claims: two events announced, one present; empty; trailing bytes.
            byte[] one = new Batch().pose(1, 1, 2, 3, 4, 5).toByteArray();
            ByteBuffer lying = ByteBuffer.allocateDirect(one.length).put(one).flip();
            lying.put(1, (byte) 2);
            assertThrows(IllegalArgumentException.class, () -> w.writeTick(0, lying));
            assertThrows(IllegalArgumentException.class, () -> w.writeTick(0, ByteBuffer.allocateDirect(0)));
            assertThrows(IllegalArgumentException.class, () -> w.writeTick(0, ByteBuffer.allocateDirect(1)));
            ByteBuffer trailing = ByteBuffer.allocateDirect(one.length + 1).put(one).put((byte) 0).flip();
            assertThrows(IllegalArgumentException.class, () -> w.writeTick(0, trailing));
            ByteBuffer unknownKind = ByteBuffer.allocateDirect(3).put(new byte[] {0, 1, 0x33}).flip();
            assertThrows(IllegalArgumentException.class, () -> w.writeTick(0, unknownKind));
            // A valid direct buffer with position/limit is accepted; ticks must increase.
            ByteBuffer framed = ByteBuffer.allocateDirect(one.length + 3);
            framed.position(3);
            framed.put(one).flip().position(3);
            w.writeTick(5, framed);
            assertThrows(IllegalArgumentException.class, () -> w.writeTick(5, new Batch()));
            assertThrows(IllegalArgumentException.class, () -> w.writeTick(4, new Batch()));
            assertThrows(IllegalArgumentException.class, () -> w.writeTick(-1, new Batch()));
            w.writeTick(6, new Batch());
            w.finish();
        }
    }

    private static long handleOfWriter(ReelWriter w) {
        try {
            java.lang.reflect.Field f = ReelWriter.class.getDeclaredField("handle");
            f.setAccessible(true);
            return ((NativeHandle) f.get(w)).get();
        } catch (ReflectiveOperationException e) {
            throw new AssertionError(e);
        }
    }

    @Test
    void badArgumentsThrowIllegalArgument(@TempDir Path dir) {
        assertThrows(NullPointerException.class, () -> ReelWriter.create(null, ReelOptions.defaults()));
        // Builders only store; the core checks the values when the writer is created.
        Path refused = dir.resolve("refused.reel");
        for (ReelOptions o : List.of(
                ReelOptions.builder().ticksPerSecond(0).build(),
                ReelOptions.builder().ticksPerSecond(Double.NaN).build(),
                ReelOptions.builder().chunkTicks(0).build(),
                ReelOptions.builder().chunkTicks(-5).build(),
                ReelOptions.builder().dictionaryId(70000).build(),
                ReelOptions.builder().compressionLevel(99).build())) {
            assertThrows(IllegalArgumentException.class, () -> ReelWriter.create(refused, o));
        }
        IllegalArgumentException level = assertThrows(IllegalArgumentException.class,
                () -> ReelWriter.create(refused, ReelOptions.builder().compressionLevel(99).build()));
        assertTrue(level.getMessage().matches("compressionLevel must be between -?\\d+ and \\d+ \\(got 99\\)"), level.getMessage());
        IllegalArgumentException negative = assertThrows(IllegalArgumentException.class,
                () -> ReelWriter.create(refused, ReelOptions.builder().chunkTicks(-5).build()));
        assertTrue(negative.getMessage().contains("chunkTicks must not be negative (got -5)"), negative.getMessage());
        assertFalse(Files.exists(refused));
        // The native side checks the options handle too: another type's, a closed one.
        long bad = ReelOptions.defaults().toNative();
        NativeBridge.close(bad);
        assertThrows(IllegalStateException.class,
                () -> NativeBridge.reelWriterCreate(dir.resolve("x.reel").toString(), bad));
        try (ReelWriter w = ReelWriter.create(dir.resolve("y.reel"), ReelOptions.defaults())) {
            long other = handleOfWriter(w);
            assertThrows(IllegalArgumentException.class,
                    () -> NativeBridge.reelWriterCreate(dir.resolve("x.reel").toString(), other));
        }
        assertThrows(IllegalArgumentException.class, () -> NativeBridge.reelWriterCreate(null, 0));
        assertThrows(IllegalArgumentException.class, () -> NativeBridge.readerOpen(null));
        // An unknown dictionary is a TickreelException from the core.
        TickreelException dict = assertThrows(TickreelException.class, () -> ReelWriter.create(
                dir.resolve("d.reel"), ReelOptions.builder().dictionaryId(4242).build()));
        assertTrue(dict.getMessage().contains("4242"), dict.getMessage());
        try (ReelWriter w = ReelWriter.create(dir.resolve("m.reel"), ReelOptions.defaults())) {
            assertThrows(IllegalArgumentException.class, () -> w.setUserMetadata("tickreel", 1));
            assertThrows(IllegalArgumentException.class, () -> w.setUserMetadata("k", new Object()));
            assertThrows(IllegalArgumentException.class, () -> w.setUserMetadata("k", List.of(1, "two")));
            long h = handleOfWriter(w);
            assertThrows(IllegalArgumentException.class, () -> NativeBridge.reelWriterSetUserMetadata(h, new byte[] {1, 2}));
            assertThrows(IllegalArgumentException.class,
                    () -> NativeBridge.reelWriterSetUserMetadata(h, Nbt.writeRoot(Map.of("tickreel", 1))));
            assertThrows(IllegalArgumentException.class, () -> NativeBridge.reelWriterSnapshot(h, null));
            assertThrows(IllegalArgumentException.class, () -> NativeBridge.reelWriterRegisterEventType(h, 1, null, 1));
            w.registerEntity(new EntityInfo(-1, -1, new UUID(-1, -1), "max"));
            w.finish();
        }
        try (Reader r = Reader.open(dir.resolve("m.reel"))) {
            assertEquals(List.of(new EntityInfo(-1, -1, new UUID(-1, -1), "max")), r.entities());
            assertThrows(IllegalArgumentException.class, () -> r.seek(-1));
            assertThrows(IllegalArgumentException.class, () -> r.ticks(5, 4));
            assertThrows(IllegalArgumentException.class, () -> r.ticks(-1, 4));
        }
    }

    @Test
    void corruptFilesThrowTickreelException(@TempDir Path dir) throws IOException {
        Path missing = dir.resolve("missing.reel");
        assertEquals(TickreelException.Kind.IO,
                assertThrows(TickreelException.class, () -> Reader.open(missing)).kind());

        Path garbage = dir.resolve("garbage.reel");
        Files.write(garbage, "this is not a replay at all, just text".repeat(20).getBytes());
        assertEquals(TickreelException.Kind.CORRUPT,
                assertThrows(TickreelException.class, () -> Reader.open(garbage)).kind());

        Path reel = ReaderTest.record(dir, 3, 150);
        byte[] good = Files.readAllBytes(reel);

        Path truncated = dir.resolve("truncated.reel");
        Files.write(truncated, java.util.Arrays.copyOf(good, good.length - 10));
        TickreelException t = assertThrows(TickreelException.class, () -> Reader.open(truncated));
        assertEquals(TickreelException.Kind.TRUNCATED, t.kind());

        Path empty = dir.resolve("empty.reel");
        Files.write(empty, new byte[0]);
        assertThrows(TickreelException.class, () -> Reader.open(empty));

        // Damage in the metadata/index area fails the checksum on open.
        byte[] meta = good.clone();
        meta[300] ^= 0x40;
        Path badMeta = dir.resolve("meta.reel");
        Files.write(badMeta, meta);
        assertEquals(TickreelException.Kind.CORRUPT,
                assertThrows(TickreelException.class, () -> Reader.open(badMeta)).kind());

        // Damage in the last chunk opens fine but fails when that chunk is read.
        byte[] chunk = good.clone();
        chunk[chunk.length - 5] ^= 0x01;
        Path badChunk = dir.resolve("chunk.reel");
        Files.write(badChunk, chunk);
        try (Reader r = Reader.open(badChunk)) {
            assertEquals(3, r.seek(10).entities().size());
            assertEquals(TickreelException.Kind.CORRUPT,
                    assertThrows(TickreelException.class, () -> r.seek(149)).kind());
            assertThrows(TickreelException.class, r::verify);
            assertThrows(TickreelException.class, () -> r.ticks(0, 149));
            // Still usable after the error.
            assertEquals(20, r.ticks(0, 19).size());
        }
    }

    @Test
    void corruptBatchesFromNativeAreReported() {
        byte[] bad = {0, 0, 0, 5, 0, 0, 0, 9, 0, 1};
        assertEquals(TickreelException.Kind.CORRUPT,
                assertThrows(TickreelException.class, () -> TickReader.decodeTicks(bad)).kind());
    }

    @Test
    void exceptionKindsMapFromNativeCodes() {
        for (TickreelException.Kind k : TickreelException.Kind.values()) {
            assertEquals(k, new TickreelException("x", k.code()).kind());
        }
        assertEquals(TickreelException.Kind.INTERNAL, new TickreelException("x", 999).kind());
    }
}
