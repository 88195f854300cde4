package io.tickreel;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.InputStream;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.function.Function;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Plugin environments: several class loaders each bundling tickreel, and a copy of the bindings
 * relocated into another package (as the shade plugin does).
 */
class ClassLoaderTest {
    private static final String EXPECTED = "ok ticks=120 entities=3 x2=31.75 names=3 meta=probe read=120 live=119 ghostX=50.0 s3=60/59 reported=120 top=1/player1 played=11";

    /** Compiles the probe against the given bindings classpath. */
    private static Path compileProbe(Path probeSources, String classPath, Path out) throws Exception {
        Files.createDirectories(out);
        TestSupport.compile(List.of(probeSources), classPath, out);
        return out;
    }

    @SuppressWarnings("unchecked")
    private static String runProbe(ClassLoader loader, Path workDir) throws Exception {
        Files.createDirectories(workDir);
        Class<?> c = Class.forName("probe.PluginProbe", true, loader);
        Function<String, String> probe = (Function<String, String>) c.getConstructor().newInstance();
        return probe.apply(workDir.toString());
    }

    private static URLClassLoader pluginLoader(Path... entries) throws Exception {
        URL[] urls = new URL[entries.length];
        for (int i = 0; i < entries.length; i++) {
            urls[i] = entries[i].toUri().toURL();
        }
        // The platform loader as parent: nothing of tickreel is visible from above, as in a server.
        return new URLClassLoader(urls, ClassLoader.getPlatformClassLoader());
    }

    private static String libraryOf(String result) {
        return result.substring(result.indexOf(" library=") + 9);
    }

    @Test
    void twoPluginsWithTheirOwnCopyWorkAtOnce(@TempDir Path dir) throws Exception {
        Path jar = TestSupport.jar();
        Path probe = compileProbe(TestSupport.probeSources(), jar.toString(), dir.resolve("probe"));
        List<URLClassLoader> loaders = List.of(pluginLoader(jar, probe), pluginLoader(jar, probe));
        ExecutorService pool = Executors.newFixedThreadPool(2);
        try {
            List<Future<String>> results = new ArrayList<>();
            for (int i = 0; i < loaders.size(); i++) {
                ClassLoader l = loaders.get(i);
                Path work = dir.resolve("plugin" + i);
                results.add(pool.submit((Callable<String>) () -> runProbe(l, work)));
            }
            String a = results.get(0).get();
            String b = results.get(1).get();
            String wantError = " error=io.tickreel.TickreelException:CORRUPT library=";
            assertTrue(a.startsWith(EXPECTED + wantError), a);
            assertTrue(b.startsWith(EXPECTED + wantError), b);
            assertNotEquals(libraryOf(a), libraryOf(b), "each class loader loads its own library file");
            assertNotEquals(libraryOf(a), Tickreel.nativeLibraryPath());
            // Each loader's classes are distinct from ours and from each other's.
            Class<?> ca = Class.forName("io.tickreel.Reader", false, loaders.get(0));
            Class<?> cb = Class.forName("io.tickreel.Reader", false, loaders.get(1));
            assertNotEquals(ca, cb);
            assertNotEquals(Reader.class, ca);
            // Running again in the same loaders reuses the loaded library.
            assertEquals(a.replace("plugin0", "x"), runProbe(loaders.get(0), dir.resolve("plugin0")).replace("plugin0", "x"));
        } finally {
            pool.shutdown();
            for (URLClassLoader l : loaders) {
                l.close();
            }
        }
    }

    @Test
    void aRelocatedCopyOfTheBindingsWorks(@TempDir Path dir) throws Exception {
        String pkg = "shaded.plugin.tickreel";
        Path sources = dir.resolve("relocated-src");
        TestSupport.relocate(TestSupport.mainSources(), sources, pkg);
        Path probeSources = dir.resolve("relocated-probe");
        TestSupport.relocate(TestSupport.probeSources(), probeSources, pkg);
        Path classes = dir.resolve("relocated-classes");
        Files.createDirectories(classes);
        TestSupport.compile(List.of(sources), null, classes);
        assertTrue(Files.exists(classes.resolve("shaded/plugin/tickreel/NativeBridge.class")));
        assertTrue(Files.notExists(classes.resolve("io")));
        // The native library goes along as a resource, as a shaded jar carries it.
        String resource = NativeLoader.resourceName();
        try (URLClassLoader jar = new URLClassLoader(new URL[] {TestSupport.jar().toUri().toURL()}, null);
                InputStream in = jar.getResourceAsStream(resource)) {
            Path dest = classes.resolve(resource);
            Files.createDirectories(dest.getParent());
            Files.copy(in, dest);
        }
        Path probe = compileProbe(probeSources, classes.toString(), dir.resolve("probe"));
        try (URLClassLoader loader = pluginLoader(classes, probe)) {
            String result = runProbe(loader, dir.resolve("work"));
            assertTrue(result.startsWith(EXPECTED + " error=shaded.plugin.tickreel.TickreelException:CORRUPT library="),
                    result);
            // Misuse in the relocated copy raises the JDK exceptions, as in the original.
            Class<?> engine = loader.loadClass(pkg + ".Engine");
            Object eng = engine.getConstructor().newInstance();
            engine.getMethod("close").invoke(eng);
            try {
                engine.getMethod("stats").invoke(eng);
                throw new AssertionError("stats after close succeeded");
            } catch (java.lang.reflect.InvocationTargetException x) {
                assertEquals(IllegalStateException.class, x.getCause().getClass());
            }
            Class<?> writer = loader.loadClass(pkg + ".ReelWriter");
            Class<?> options = loader.loadClass(pkg + ".ReelOptions");
            Object w = writer.getMethod("create", Path.class, options)
                    .invoke(null, dir.resolve("r.reel"), options.getMethod("defaults").invoke(null));
            writer.getMethod("close").invoke(w);
            try {
                writer.getMethod("finish").invoke(w);
                throw new AssertionError("finish after close succeeded");
            } catch (java.lang.reflect.InvocationTargetException e) {
                assertEquals(IllegalStateException.class, e.getCause().getClass());
            }
        }
    }

    @Test
    void theLibraryPathPropertyIsHonouredAndShared(@TempDir Path dir) throws Exception {
        Path jar = TestSupport.jar();
        Path lib = dir.resolve("given").resolve(System.mapLibraryName("tickreel"));
        Files.createDirectories(lib.getParent());
        try (URLClassLoader l = new URLClassLoader(new URL[] {jar.toUri().toURL()}, null);
                InputStream in = l.getResourceAsStream(NativeLoader.resourceName())) {
            Files.copy(in, lib);
        }
        Path probe = compileProbe(TestSupport.probeSources(), jar.toString(), dir.resolve("probe"));
        String previous = System.getProperty(NativeLoader.PATH_PROPERTY);
        System.setProperty(NativeLoader.PATH_PROPERTY, lib.toString());
        try (URLClassLoader first = pluginLoader(jar, probe); URLClassLoader second = pluginLoader(jar, probe)) {
            String a = runProbe(first, dir.resolve("a"));
            assertTrue(a.startsWith(EXPECTED), a);
            assertEquals(lib.toString(), libraryOf(a), "the given file is loaded as it is");
            assertTrue(Files.exists(lib), "a given file is not deleted");
            // The JVM refuses one file in two class loaders: the second gets a private copy.
            String b = runProbe(second, dir.resolve("b"));
            assertTrue(b.startsWith(EXPECTED), b);
            assertNotEquals(lib.toString(), libraryOf(b));
        } finally {
            if (previous == null) {
                System.clearProperty(NativeLoader.PATH_PROPERTY);
            } else {
                System.setProperty(NativeLoader.PATH_PROPERTY, previous);
            }
        }
    }

    /** Loads a modified copy of the bindings and returns the failure of {@code Tickreel.load()}. */
    private static Throwable loadModifiedCopy(Path dir, String pkg, String from, String to) throws Exception {
        Path sources = dir.resolve(pkg + "-src");
        TestSupport.relocate(TestSupport.mainSources(), sources, pkg);
        int changed = 0;
        try (java.util.stream.Stream<Path> files = Files.walk(sources)) {
            for (Path f : (Iterable<Path>) files.filter(Files::isRegularFile)::iterator) {
                String text = Files.readString(f);
                if (text.contains(from)) {
                    Files.writeString(f, text.replace(from, to));
                    changed++;
                }
            }
        }
        assertTrue(changed > 0, from);
        Path classes = dir.resolve(pkg + "-classes");
        Files.createDirectories(classes);
        TestSupport.compile(List.of(sources), null, classes);
        Path lib = classes.resolve(NativeLoader.resourceName());
        Files.createDirectories(lib.getParent());
        try (URLClassLoader jar = new URLClassLoader(new URL[] {TestSupport.jar().toUri().toURL()}, null);
                InputStream in = jar.getResourceAsStream(NativeLoader.resourceName())) {
            Files.copy(in, lib);
        }
        try (URLClassLoader loader = pluginLoader(classes)) {
            java.lang.reflect.Method load = loader.loadClass(pkg + ".Tickreel").getMethod("load");
            try {
                load.invoke(null);
                return null;
            } catch (java.lang.reflect.InvocationTargetException e) {
                // A second attempt reports the same failure instead of retrying.
                try {
                    load.invoke(null);
                    throw new AssertionError("second load succeeded");
                } catch (java.lang.reflect.InvocationTargetException again) {
                    assertEquals(e.getCause().getMessage(), again.getCause().getMessage());
                }
                return e.getCause();
            }
        }
    }

    @Test
    void aJarAndLibraryFromDifferentBuildsGiveAClearError(@TempDir Path dir) throws Exception {
        // A native method the library does not have: RegisterNatives fails inside JNI_OnLoad.
        Throwable renamed = loadModifiedCopy(dir, "mismatch.methods", "readerTicks(", "replayTicksV2(");
        assertEquals("mismatch.methods.TickreelException", renamed.getClass().getName());
        assertEquals("LIBRARY", renamed.getClass().getMethod("kind").invoke(renamed).toString());
        assertTrue(renamed.getMessage().contains("readerTicks"), renamed.getMessage());
        // Same methods, different contract version.
        Throwable abi = loadModifiedCopy(dir, "mismatch.abi",
                "static final int ABI_VERSION = " + NativeBridge.ABI_VERSION + ";",
                "static final int ABI_VERSION = 999;");
        assertEquals("mismatch.abi.TickreelException", abi.getClass().getName());
        assertTrue(abi.getMessage().contains("ABI version " + NativeBridge.ABI_VERSION), abi.getMessage());
    }

    /**
     * A plugin that recorded, read, played (a {@link Playhead}, so prefetch threads started),
     * loaded a ghost and got a {@link TickreelException} from native code, then was unloaded, 50
     * times in fresh class loaders: every loader is collected (nothing process-wide, such as a
     * global reference to the exception class, holds it), the threads return to their baseline
     * and so do the mapped copies of the library, also those called from a thread that lives on
     * (here the test's, in a server its main thread).
     *
     * <p>The last needs the library to register no thread-local destructor on a caller's thread:
     * glibc does not unmap a library while a live thread holds one (they were a zstd context, the
     * encoder's buffers, std's spawn hooks from starting the engine's threads, and parking_lot's
     * per-thread parking data; see {@code tickreel::threads}). Before that, each reload called
     * from this thread left one copy mapped.
     */
    @Test
    void reloadedPluginLoadersAreCollected(@TempDir Path dir) throws Exception {
        Path jar = TestSupport.jar();
        Path probe = compileProbe(TestSupport.probeSources(), jar.toString(), dir.resolve("probe"));
        // One plugin first, so that the JVM's own lazily started threads are in the baseline.
        try (URLClassLoader warm = pluginLoader(jar, probe)) {
            assertTrue(runProbe(warm, dir.resolve("warm")).startsWith("ok "));
        }
        collect(List.of());
        Thread.sleep(1500); // idle prefetch workers exit after a second
        int baseline = threadCount();
        int mappedBaseline = mappedLibraryCopies();
        List<java.lang.ref.WeakReference<ClassLoader>> refs = new java.util.ArrayList<>();
        int reloads = 50;
        int peak = 0;
        int mappedPeak = 0;
        for (int i = 0; i < reloads; i++) {
            try (URLClassLoader loader = pluginLoader(jar, probe)) {
                // Odd reloads call the plugin on a thread that then ends, even ones on this
                // (long-lived) thread, as a server's main thread would.
                String result = i % 2 == 1
                        ? onThreadThatEnds(loader, dir.resolve("run" + i))
                        : runProbe(loader, dir.resolve("run" + i));
                assertTrue(result.startsWith("ok ") && result.contains(":CORRUPT") && result.contains(" s3=60/59 "), result);
                refs.add(new java.lang.ref.WeakReference<>(loader));
            }
            peak = Math.max(peak, threadCount());
            mappedPeak = Math.max(mappedPeak, mappedLibraryCopies());
        }
        collect(refs);
        long alive = refs.stream().filter(r -> r.get() != null).count();
        assertEquals(0, alive, alive + " of " + refs.size() + " plugin class loaders were never collected");
        // Every thread a plugin caused (prefetch workers, engine writers, its Cleaner) ends once its
        // engine and handles are closed and its loader is gone.
        int margin = 4;
        int after = waitForThreads(baseline + margin);
        assertTrue(after <= baseline + margin, "threads: " + baseline + " before " + reloads
                + " reloads, " + after + " after (peak " + peak + "): " + threadNames());
        int mapped = waitForUnmapped(mappedBaseline);
        System.out.println("reloads=" + reloads + " threads: baseline=" + baseline + " peak=" + peak
                + " after=" + after + "; mapped library copies: baseline=" + mappedBaseline
                + " peak=" + mappedPeak + " after=" + mapped);
        assertTrue(mappedPeak > mappedBaseline, "each plugin maps its own copy: " + mappedPeak);
        // At most the baseline: a copy still mapped when the baseline was counted (the warm-up's,
        // its loader not yet collected) may be gone by now.
        assertTrue(mapped <= mappedBaseline, "library copies mapped after " + reloads
                + " reloads, half of them called from this long-lived thread: " + mapped + ", baseline "
                + mappedBaseline + " (peak " + mappedPeak + ")");
    }

    /** {@link #runProbe} on a new thread, which has ended when this returns. */
    private static String onThreadThatEnds(ClassLoader loader, Path workDir) throws Exception {
        java.util.concurrent.atomic.AtomicReference<Object> out = new java.util.concurrent.atomic.AtomicReference<>();
        Thread t = new Thread(() -> {
            try {
                out.set(runProbe(loader, workDir));
            } catch (Exception e) {
                out.set(e);
            }
        }, "plugin-call");
        t.start();
        t.join();
        if (out.get() instanceof Exception e) {
            throw e;
        }
        return (String) out.get();
    }

    /**
     * Distinct copies of the native library mapped into the process: the files named in
     * /proc/self/maps that {@link NativeLoader} extracted ({@code tickreel-*-libtickreel.so},
     * deleted once loaded).
     */
    private static int mappedLibraryCopies() throws java.io.IOException {
        String name = System.mapLibraryName("tickreel");
        java.util.Set<String> files = new java.util.HashSet<>();
        for (String line : Files.readAllLines(Path.of("/proc/self/maps"))) {
            int slash = line.indexOf('/');
            if (slash < 0) {
                continue;
            }
            String path = line.substring(slash);
            String file = path.substring(path.lastIndexOf('/') + 1);
            if (file.startsWith("tickreel-") && file.replace(" (deleted)", "").endsWith("-" + name)) {
                files.add(path);
            }
        }
        return files.size();
    }

    /** Waits (up to ten seconds, collecting garbage) until at most {@code target} copies are mapped. */
    private static int waitForUnmapped(int target) throws Exception {
        int count = mappedLibraryCopies();
        for (int i = 0; i < 100 && count > target; i++) {
            System.gc();
            Thread.sleep(100);
            count = mappedLibraryCopies();
        }
        return count;
    }

    /** Collects until every reference is cleared (or five seconds have passed). */
    private static void collect(List<java.lang.ref.WeakReference<ClassLoader>> refs) throws InterruptedException {
        for (int attempt = 0; attempt < 50; attempt++) {
            System.gc();
            Thread.sleep(100);
            if (attempt >= 3 && refs.stream().allMatch(r -> r.get() == null)) {
                return;
            }
        }
    }

    /**
     * The JVM's own worker threads, which it starts lazily (as garbage collections and compilations
     * need them) and keeps: how many depends on the machine's cores (on 16 cores, a dozen GC workers
     * alone), so they are no plugin's doing and are not counted. Names as in
     * {@code /proc/self/task/N/comm} (cut at 15 characters).
     */
    private static final List<String> JVM_WORKERS =
            List.of("GC Thread#", "G1 Conc#", "G1 Refine#", "G1 Main Marker", "C1 CompilerThre", "C2 CompilerThre");

    /**
     * The names of the process's threads (Java and native), but the JVM's own workers. A thread
     * that ends while the directory is read can make the read of its {@code comm} fail in more than
     * one way (no such file, no such process) or the listing itself fail: such a thread is skipped,
     * and a failed listing is read again (the threads counted are the ones alive at one reading).
     */
    private static List<String> threadNames() throws java.io.IOException {
        java.io.UncheckedIOException last = null;
        for (int attempt = 0; attempt < 5; attempt++) {
            try {
                return readThreadNames();
            } catch (java.io.UncheckedIOException listingFailed) {
                last = listingFailed;
            }
        }
        throw last.getCause();
    }

    private static List<String> readThreadNames() throws java.io.IOException {
        List<String> names = new java.util.ArrayList<>();
        try (java.util.stream.Stream<Path> tasks = Files.list(Path.of("/proc/self/task"))) {
            for (Path task : (Iterable<Path>) tasks::iterator) {
                String name;
                try {
                    name = Files.readString(task.resolve("comm")).strip();
                } catch (java.io.IOException gone) {
                    continue; // ended while listed (ENOENT or ESRCH)
                }
                if (JVM_WORKERS.stream().noneMatch(name::startsWith)) {
                    names.add(name);
                }
            }
        }
        return names;
    }

    /** The process's threads (Java and native), but the JVM's own workers. */
    private static int threadCount() throws java.io.IOException {
        return threadNames().size();
    }

    /** Waits (up to ten seconds, collecting garbage) until at most {@code target} threads are left. */
    private static int waitForThreads(int target) throws Exception {
        int count = threadCount();
        for (int i = 0; i < 100 && count > target; i++) {
            System.gc();
            Thread.sleep(100);
            count = threadCount();
        }
        return count;
    }
}
