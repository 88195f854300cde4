package io.tickreel;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.reflect.Method;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Trained dictionaries: registered from bytes or carried in the jar, used to write and read a
 * recording; a recording whose dictionary is missing refused naming its id; crafted dictionaries
 * refused. Fixtures (native/core/tests/data): sample.dict is dictionary 4711; dict-4712.reel a
 * recording compressed with dictionary 4712, which nobody registers.
 */
class DictionaryTest {
    static Path data(String name) {
        return TestSupport.property("tickreel.test.data").resolve(name);
    }

    @Test
    void registeredDictionaryRecordsAndReadsBack(@TempDir Path dir) throws Exception {
        byte[] dict = Files.readAllBytes(data("sample.dict"));
        assertEquals(4711, Dictionaries.register(dict));
        assertEquals(4711, Dictionaries.register(dict)); // again: harmless
        assertTrue(Dictionaries.isRegistered(4711));
        assertFalse(Dictionaries.isRegistered(0));
        Path reel = ReaderTest.record(dir, 3, 150);
        Path withDict = dir.resolve("dict.reel");
        try (ReelWriter w = ReelWriter.create(withDict, ReelOptions.builder().dictionaryId(4711).chunkTicks(50).build())) {
            Batch t = new Batch();
            for (int tick = 0; tick < 150; tick++) {
                t.clear();
                for (int p = 1; p <= 3; p++) {
                    if (tick == 0) {
                        t.entityAdd(p, 0, ReaderTest.x(p, 0), 64, 0, 0, 0);
                    } else {
                        t.pose(p, ReaderTest.x(p, tick), 64, Math.sin(tick * 0.1), tick * 2.5, -5);
                    }
                }
                w.writeTick(tick, t);
            }
            w.finish();
        }
        try (Reader r = Reader.open(withDict)) {
            assertEquals(4711, r.header().dictionaryId());
            assertEquals(150, r.header().tickCount());
            VerifyReport v = r.verify();
            assertEquals(450, v.poseSamples());
        }
        try (Reader r = Reader.open(reel)) {
            assertEquals(0, r.header().dictionaryId());
        }
        // a live recording compressed with it
        Path live = dir.resolve("live.reel");
        try (Engine engine = new Engine()) {
            Recorder rec = engine.startRecording(live, RecorderOptions.builder().dictionaryId(4711).build());
            Batch t = new Batch();
            for (int tick = 0; tick < 100; tick++) {
                t.clear();
                if (tick == 0) {
                    t.entityAdd(1, 0, 0, 64, 0, 0, 0);
                } else {
                    t.pose(1, tick * 0.25, 64, 0, tick, 0);
                }
                rec.submit(tick, t);
            }
            rec.finish().await();
        }
        try (Reader r = Reader.open(live)) {
            assertEquals(4711, r.header().dictionaryId());
            assertEquals(100, r.verify().poseSamples()); // the add carries a pose too
        }
    }

    @Test
    void aMissingDictionaryIsNamed() {
        TickreelException e = assertThrows(TickreelException.class, () -> Reader.open(data("dict-4712.reel")));
        assertEquals(TickreelException.Kind.UNSUPPORTED, e.kind());
        assertTrue(e.getMessage().contains("dictionary 4712 is not registered"), e.getMessage());
        assertFalse(Dictionaries.isRegistered(4712));
    }

    @Test
    void craftedDictionariesAreRefused() throws Exception {
        assertThrows(NullPointerException.class, () -> Dictionaries.register(null));
        assertThrows(IllegalArgumentException.class, () -> Dictionaries.register(new byte[] {1, 2, 3}));
        byte[] dict = Files.readAllBytes(data("sample.dict"));
        byte[] wideId = dict.clone();
        wideId[6] = 1; // id 4711 + 65536
        IllegalArgumentException wide = assertThrows(IllegalArgumentException.class, () -> Dictionaries.register(wideId));
        assertTrue(wide.getMessage().contains("70247"), wide.getMessage());
        Dictionaries.register(dict);
        byte[] other = dict.clone();
        other[other.length - 1] ^= 0x5A;
        assertThrows(IllegalStateException.class, () -> Dictionaries.register(other));
        TickreelException big = assertThrows(TickreelException.class, () -> {
            byte[] b = new byte[(1 << 20) + 1];
            System.arraycopy(dict, 0, b, 0, 8);
            Dictionaries.register(b);
        });
        assertEquals(TickreelException.Kind.LIMIT_EXCEEDED, big.kind());
    }

    @Test
    void theJarsDictionaryIsRegisteredWhenTheLibraryLoads(@TempDir Path dir) throws Exception {
        Path resources = dir.resolve("res");
        Path at = resources.resolve(Dictionaries.RESOURCE);
        Files.createDirectories(at.getParent());
        Files.copy(data("sample.dict"), at);
        URL[] urls = {TestSupport.jar().toUri().toURL(), resources.toUri().toURL()};
        try (URLClassLoader plugin = new URLClassLoader(urls, ClassLoader.getPlatformClassLoader());
                URLClassLoader bare = new URLClassLoader(new URL[] {urls[0]}, ClassLoader.getPlatformClassLoader())) {
            // each loader loads its own copy of the library, with its own registry
            assertTrue(registered(plugin, 4711));
            assertFalse(registered(bare, 4711));
        }
        // a damaged dictionary in the jar fails the load, naming the resource
        Files.write(at, new byte[] {1, 2, 3});
        try (URLClassLoader broken = new URLClassLoader(urls, ClassLoader.getPlatformClassLoader())) {
            Exception e = assertThrows(Exception.class, () -> registered(broken, 4711));
            Throwable cause = e.getCause() != null ? e.getCause() : e;
            assertTrue(String.valueOf(cause.getMessage()).contains(Dictionaries.RESOURCE), String.valueOf(cause));
        }
    }

    private static boolean registered(ClassLoader loader, int id) throws Exception {
        Class<?> c = Class.forName("io.tickreel.Dictionaries", true, loader);
        Method m = c.getMethod("isRegistered", int.class);
        return (Boolean) m.invoke(null, id);
    }
}
