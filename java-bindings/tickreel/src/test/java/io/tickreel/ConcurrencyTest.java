package io.tickreel;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.ref.WeakReference;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Closing while other threads' calls are in flight is safe. */
class ConcurrencyTest {
    @Test
    void closingAReplayDuringReadsIsSafe(@TempDir Path dir) throws Exception {
        Path reel = ReaderTest.record(dir, 8, 400);
        for (int round = 0; round < 5; round++) {
            Reader r = Reader.open(reel);
            AtomicInteger ok = new AtomicInteger();
            AtomicInteger closed = new AtomicInteger();
            AtomicReference<Throwable> unexpected = new AtomicReference<>();
            CountDownLatch started = new CountDownLatch(4);
            List<Thread> readers = new ArrayList<>();
            for (int i = 0; i < 4; i++) {
                int seed = i;
                Thread t = new Thread(() -> {
                    started.countDown();
                    for (int n = 0; ; n++) {
                        try {
                            if (n % 3 == 0) {
                                r.ticks(n % 300, n % 300 + 20);
                            } else {
                                assertEquals(8, r.seek((n * 37 + seed) % 90).entities().size());
                            }
                            ok.incrementAndGet();
                        } catch (IllegalStateException e) {
                            closed.incrementAndGet();
                            return;
                        } catch (Throwable e) {
                            unexpected.set(e);
                            return;
                        }
                    }
                });
                t.start();
                readers.add(t);
            }
            started.await();
            Thread.sleep(20);
            r.close();
            for (Thread t : readers) {
                t.join();
            }
            if (unexpected.get() != null) {
                throw new AssertionError(unexpected.get());
            }
            assertEquals(4, closed.get());
        }
    }

    @Test
    void closingAWriterDuringWritesIsSafe(@TempDir Path dir) throws Exception {
        for (int round = 0; round < 5; round++) {
            Path reel = dir.resolve("w" + round + ".reel");
            ReelWriter w = ReelWriter.create(reel, ReelOptions.builder().chunkTicks(10).build());
            AtomicReference<Throwable> unexpected = new AtomicReference<>();
            AtomicInteger written = new AtomicInteger();
            CountDownLatch started = new CountDownLatch(1);
            Thread writer = new Thread(() -> {
                Batch t = new Batch();
                started.countDown();
                for (int tick = 0; ; tick++) {
                    t.clear();
                    for (int p = 0; p < 20; p++) {
                        t.pose(p, p + tick, 64, 0, tick, 0);
                    }
                    try {
                        w.writeTick(tick, t);
                        written.incrementAndGet();
                    } catch (IllegalStateException e) {
                        return;
                    } catch (Throwable e) {
                        unexpected.set(e);
                        return;
                    }
                }
            });
            writer.start();
            started.await();
            Thread.sleep(10);
            w.close();
            writer.join();
            if (unexpected.get() != null) {
                throw new AssertionError(unexpected.get());
            }
            assertTrue(Files.notExists(reel), "a closed, unfinished writer leaves no file");
        }
    }

    @Test
    void concurrentFinishAndCloseIsSafe(@TempDir Path dir) throws Exception {
        for (int round = 0; round < 10; round++) {
            Path reel = dir.resolve("f" + round + ".reel");
            ReelWriter w = ReelWriter.create(reel, ReelOptions.defaults());
            Batch t = new Batch();
            for (int tick = 0; tick < 200; tick++) {
                w.writeTick(tick, t.clear().pose(1, tick, 64, 0, 0, 0));
            }
            AtomicReference<String> outcome = new AtomicReference<>();
            Thread finisher = new Thread(() -> {
                try {
                    w.finish();
                    outcome.set("finished");
                } catch (IllegalStateException e) {
                    outcome.set("closed");
                }
            });
            finisher.start();
            w.close();
            finisher.join();
            if (outcome.get().equals("finished")) {
                try (Reader r = Reader.open(reel)) {
                    assertEquals(200, r.header().tickCount());
                }
            } else {
                assertTrue(Files.notExists(reel));
            }
        }
    }

    @Test
    void theCleanerClosesForgottenHandles(@TempDir Path dir) throws Exception {
        Path reel = ReaderTest.record(dir, 1, 10);
        Reader r = Reader.open(reel);
        long h = handleOf(r);
        WeakReference<Reader> ref = new WeakReference<>(r);
        r = null;
        for (int i = 0; i < 200 && (ref.get() != null || isOpen(h)); i++) {
            System.gc();
            Thread.sleep(10);
        }
        assertTrue(ref.get() == null, "the replay was collected");
        assertTrue(!isOpen(h), "the cleaner closed its native handle");
    }

    private static boolean isOpen(long h) {
        try {
            NativeBridge.readerInfo(h);
            return true;
        } catch (IllegalStateException e) {
            return false;
        }
    }

    private static long handleOf(Reader r) throws ReflectiveOperationException {
        java.lang.reflect.Field f = Reader.class.getDeclaredField("handle");
        f.setAccessible(true);
        return ((NativeHandle) f.get(r)).get();
    }
}
