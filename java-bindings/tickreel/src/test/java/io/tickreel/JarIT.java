package io.tickreel;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.jar.JarEntry;
import java.util.jar.JarFile;
import java.util.jar.JarOutputStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The jar this build packs ({@code io.tickreel:tickreel}), as a plugin ships it: its size, its
 * stripped library and the debug file beside it, what its library carries, and its loader in a
 * plugin host (a platform it lacks, two builds in one JVM, releases that disagree, 100 reloads).
 * Run by Failsafe after {@code package}, with the jar on the class path in place of the classes.
 */
class JarIT {
    /** The default jar's limit (BENCHMARKS.md, "The jar"). */
    static final long MAX_JAR_BYTES = 8_000_000;

    static Path jar() {
        return TestSupport.property("tickreel.test.jar");
    }

    static byte[] packedLibrary() throws IOException {
        try (JarFile jar = new JarFile(jar().toFile())) {
            JarEntry e = jar.getJarEntry(NativeLoader.resourceName());
            assertNotNull(e, "the jar has no " + NativeLoader.resourceName());
            try (InputStream in = jar.getInputStream(e)) {
                return in.readAllBytes();
            }
        }
    }

    /** The section names of a little-endian ELF64 file (a shared library on linux-x86_64/aarch64). */
    static List<String> elfSections(byte[] elf) {
        java.nio.ByteBuffer b = java.nio.ByteBuffer.wrap(elf).order(java.nio.ByteOrder.LITTLE_ENDIAN);
        assertEquals(0x464c457f, b.getInt(0), "not an ELF file");
        assertEquals(2, elf[4], "not a 64-bit ELF file");
        long shoff = b.getLong(0x28);
        int shentsize = Short.toUnsignedInt(b.getShort(0x3a));
        int shnum = Short.toUnsignedInt(b.getShort(0x3c));
        int shstrndx = Short.toUnsignedInt(b.getShort(0x3e));
        long strOff = b.getLong((int) (shoff + (long) shstrndx * shentsize + 0x18));
        List<String> names = new java.util.ArrayList<>();
        for (int i = 0; i < shnum; i++) {
            int name = b.getInt((int) (shoff + (long) i * shentsize));
            int start = (int) (strOff + name);
            int end = start;
            while (elf[end] != 0) {
                end++;
            }
            names.add(new String(elf, start, end - start, StandardCharsets.US_ASCII));
        }
        return names;
    }

    static boolean contains(byte[] haystack, String needle) {
        byte[] n = needle.getBytes(StandardCharsets.US_ASCII);
        outer:
        for (int i = 0; i + n.length <= haystack.length; i++) {
            for (int j = 0; j < n.length; j++) {
                if (haystack[i + j] != n[j]) {
                    continue outer;
                }
            }
            return true;
        }
        return false;
    }

    @Test
    void theJarIsSmallAndItsLibraryStrippedWithItsDebugInfoBeside() throws Exception {
        long size = Files.size(jar());
        System.out.println("jar " + jar().getFileName() + ": " + size + " bytes");
        assertTrue(size <= MAX_JAR_BYTES, "the jar is " + size + " bytes, over " + MAX_JAR_BYTES);
        byte[] lib = packedLibrary();
        Path debug = TestSupport.property("tickreel.test.debug");
        byte[] debugInfo = Files.readAllBytes(debug);
        if (NativeLoader.os().equals("linux")) {
            // The line tables live in the debug file; the packed library links to it by name.
            List<String> sections = elfSections(lib);
            assertFalse(sections.stream().anyMatch(n -> n.startsWith(".debug_")), "debug sections left: " + sections);
            assertFalse(sections.contains(".symtab"), "the packed library keeps its local symbol table");
            assertTrue(sections.contains(".gnu_debuglink"), "the packed library does not name its debug file: " + sections);
            assertTrue(contains(lib, debug.getFileName().toString()), "the debug link names another file");
            assertTrue(elfSections(debugInfo).contains(".debug_line"), "the debug file has no line tables");
            assertTrue(debugInfo.length > lib.length, "debug file " + debugInfo.length + " bytes, library " + lib.length);
        }
        // Java 17 bytecode (class file major version 61), whatever JDK built it.
        try (JarFile jar = new JarFile(jar().toFile());
                InputStream in = jar.getInputStream(jar.getJarEntry("io/tickreel/Recorder.class"))) {
            byte[] head = in.readNBytes(8);
            assertEquals(61, ((head[6] & 0xff) << 8) | (head[7] & 0xff), "class file major version");
        }
    }

    @Test
    void theJarsLibraryRecordsPlaysAndKeepsASqliteCatalogButNoNetworkParts(@TempDir Path dir) throws Exception {
        Tickreel.load();
        assertEquals(TestSupport.property("tickreel.test.version").toString(), Tickreel.libraryVersion());
        assertTrue(Tickreel.hasCatalog());
        assertFalse(Tickreel.hasObjectStorage());
        assertFalse(Tickreel.hasPostgres());
        assertEquals(2, NativeBridge.features());
        Path reel = dir.resolve("run.reel");
        try (Engine engine = new Engine()) {
            Recorder rec = engine.startRecording(reel, RecorderOptions.defaults());
            Batch b = new Batch();
            for (int tick = 0; tick < 200; tick++) {
                b.clear();
                if (tick == 0) {
                    b.entityAdd(7, 0, 0, 64, 0, 0, 0);
                } else {
                    b.pose(7, tick * 0.25, 64, 0, 0, 0);
                }
                rec.submit(tick, b);
            }
            assertEquals(reel, rec.finish().future().get(60, TimeUnit.SECONDS));
        }
        try (Reader r = Reader.open(reel)) {
            assertEquals(200, r.header().tickCount());
        }
        try (Catalog c = Catalog.open("sqlite:" + dir.resolve("catalog.sqlite"))) {
            Run run = c.register(reel, "course", new java.util.UUID(0, 7), "Seven", 7, GhostRange.all())
                    .future().get(60, TimeUnit.SECONDS);
            assertEquals(1, c.top("course", 10).future().get(30, TimeUnit.SECONDS).size());
            assertEquals(run.id(), c.top("course", 10).future().get(30, TimeUnit.SECONDS).get(0).run().id());
        }
        // What it lacks is refused by name, with the artifact that has it.
        TickreelException pg = assertThrows(TickreelException.class,
                () -> Catalog.open("postgres://tickreel@127.0.0.1:1/none"));
        assertEquals(TickreelException.Kind.UNSUPPORTED, pg.kind());
        assertTrue(pg.getMessage().contains("tickreel-network"), pg.getMessage());
        TickreelException s3 = assertThrows(TickreelException.class,
                () -> Reader.open("s3://bucket/run.reel", ObjectOptions.fromEnv()));
        assertEquals(TickreelException.Kind.UNSUPPORTED, s3.kind());
        assertTrue(s3.getMessage().contains("tickreel-network"), s3.getMessage());
    }

    /** A copy of the shipped jar with its entries changed by {@code edit} (null drops an entry). */
    interface Edit {
        byte[] apply(String name, byte[] content);
    }

    static Path copyJar(Path to, Edit edit, String... extra) throws IOException {
        try (JarFile in = new JarFile(jar().toFile()); OutputStream os = Files.newOutputStream(to);
                JarOutputStream out = new JarOutputStream(os)) {
            for (JarEntry e : (Iterable<JarEntry>) in.stream()::iterator) {
                if (e.getName().equals("META-INF/MANIFEST.MF")) {
                    continue;
                }
                byte[] content;
                try (InputStream s = in.getInputStream(e)) {
                    content = s.readAllBytes();
                }
                byte[] changed = e.isDirectory() ? content : edit.apply(e.getName(), content);
                if (changed != null) {
                    out.putNextEntry(new JarEntry(e.getName()));
                    out.write(changed);
                    out.closeEntry();
                }
            }
            for (String name : extra) {
                out.putNextEntry(new JarEntry(name));
                out.write(new byte[] {0x7f, 'E', 'L', 'F'});
                out.closeEntry();
            }
        }
        return to;
    }

    /** {@code Tickreel.load()} in a plugin class loader over {@code jars}; its failure or null. */
    static Throwable loadIn(URLClassLoader loader) throws Exception {
        Method load = loader.loadClass("io.tickreel.Tickreel").getMethod("load");
        try {
            load.invoke(null);
            return null;
        } catch (InvocationTargetException e) {
            return e.getCause();
        }
    }

    static URLClassLoader plugin(Path... jars) throws IOException {
        URL[] urls = new URL[jars.length];
        for (int i = 0; i < jars.length; i++) {
            urls[i] = jars[i].toUri().toURL();
        }
        return new URLClassLoader(urls, ClassLoader.getPlatformClassLoader());
    }

    @Test
    void aJarWithoutThisPlatformsLibraryNamesThePlatformAndTheOnesItHas(@TempDir Path dir) throws Exception {
        Path other = copyJar(dir.resolve("other-platforms.jar"),
                (name, content) -> name.startsWith(NativeLoader.NATIVE_DIR) ? null : content,
                "META-INF/native/freebsd-riscv64/libtickreel.so", "META-INF/native/windows-aarch64/tickreel.dll");
        try (URLClassLoader loader = plugin(other)) {
            Throwable t = loadIn(loader);
            assertNotNull(t, "the library loaded from a jar without it");
            String msg = t.getMessage();
            assertEquals("LIBRARY", t.getClass().getMethod("kind").invoke(t).toString(), msg);
            assertTrue(msg.contains("this platform, " + NativeLoader.platform()), msg);
            assertTrue(msg.contains("the jar carries freebsd-riscv64, windows-aarch64"), msg);
            assertTrue(msg.contains(NativeLoader.PATH_PROPERTY), msg);
        }
        Path none = copyJar(dir.resolve("no-platforms.jar"),
                (name, content) -> name.startsWith(NativeLoader.NATIVE_DIR) ? null : content);
        try (URLClassLoader loader = plugin(none)) {
            String msg = loadIn(loader).getMessage();
            assertTrue(msg.contains("the jar carries none"), msg);
        }
    }

    @Test
    void twoBuildsInOneJvmEachLoadTheirOwnLibrary(@TempDir Path dir) throws Exception {
        // This jar (catalog only) and the test build's (every feature), as two plugins shading
        // two builds: both loaded at once, each its own library file and features.
        Path testJar = TestSupport.property("tickreel.test.testJar");
        try (URLClassLoader a = plugin(jar()); URLClassLoader b = plugin(testJar)) {
            assertNotEquals(null, a.loadClass("io.tickreel.Tickreel"));
            assertEquals(null, loadIn(a));
            assertEquals(null, loadIn(b));
            Method path = a.loadClass("io.tickreel.Tickreel").getMethod("nativeLibraryPath");
            Method pg = a.loadClass("io.tickreel.Tickreel").getMethod("hasPostgres");
            assertNotEquals(path.invoke(null), b.loadClass("io.tickreel.Tickreel").getMethod("nativeLibraryPath").invoke(null));
            assertEquals(false, pg.invoke(null));
            assertEquals(true, b.loadClass("io.tickreel.Tickreel").getMethod("hasPostgres").invoke(null));
        }
        // Classes of one release and a library of another: refused, naming both.
        Path mismatched = copyJar(dir.resolve("other-release.jar"), (name, content) ->
                name.equals("io/tickreel/tickreel.properties")
                        ? "version=0.0.1-other\n".getBytes(StandardCharsets.UTF_8) : content);
        try (URLClassLoader loader = plugin(mismatched)) {
            Throwable t = loadIn(loader);
            assertNotNull(t, "classes of 0.0.1-other loaded a library of " + Tickreel.libraryVersion());
            assertTrue(t.getMessage().contains("is tickreel " + Tickreel.libraryVersion()), t.getMessage());
            assertTrue(t.getMessage().contains("these classes are tickreel 0.0.1-other"), t.getMessage());
        }
    }

    /**
     * The shipped jar through 100 plugin reloads in a plain JVM whose {@code main} returns
     * ({@code src/test/reload/ReloadMain.java}): each round loads it in a fresh class loader,
     * records, plays, races a ghost and uses the catalog on three threads, unloads it, and waits
     * until the loader is collected and the library unmapped; a thread-exit callback left by the
     * library kills the JVM after an unload.
     */
    @Test
    void theShippedJarSurvivesAHundredReloads(@TempDir Path dir) throws Exception {
        Path probe = dir.resolve("probe-classes");
        Files.createDirectories(probe);
        TestSupport.compile(List.of(TestSupport.probeSources()), jar().toString(), probe);
        Path reloadClasses = dir.resolve("reload-classes");
        Files.createDirectories(reloadClasses);
        TestSupport.compile(List.of(TestSupport.property("tickreel.test.reload")), null, reloadClasses);
        Path work = dir.resolve("work");
        Files.createDirectories(work);
        Path log = dir.resolve("reload.log");
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        Process p = new ProcessBuilder(java, "-XX:ErrorFile=" + dir.resolve("hs_err_%p.log"),
                "-cp", reloadClasses.toString(), "ReloadMain", jar().toString(), probe.toString(), work.toString(), "100")
                .directory(work.toFile())
                .redirectErrorStream(true)
                .redirectOutput(log.toFile())
                .start();
        boolean ended = p.waitFor(10, TimeUnit.MINUTES);
        if (!ended) {
            p.destroyForcibly();
        }
        String out = Files.readString(log);
        System.out.println(out.length() > 4000 ? out.substring(out.length() - 4000) : out);
        assertTrue(ended, "the reload JVM did not end in 10 minutes");
        try (var files = Files.list(dir)) {
            assertEquals(List.of(), files.filter(f -> f.getFileName().toString().startsWith("hs_err")).toList(),
                    "the JVM crashed");
        }
        assertEquals(0, p.exitValue(), out);
        assertTrue(out.contains("reload: 100 rounds passed; main returns"), out);
    }
}
