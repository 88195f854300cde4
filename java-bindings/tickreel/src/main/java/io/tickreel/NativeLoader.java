package io.tickreel;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.Locale;

/**
 * Finds, extracts, loads and binds the native library, once per class loader.
 *
 * <p>The jar carries the library as the resource {@code META-INF/native/<os>-<arch>/<libname>};
 * the {@code io.tickreel:tickreel-network} jar, beside it, carries one with object storage and
 * PostgreSQL as {@code META-INF/native-network/<os>-<arch>/<libname>}, which is preferred.
 * It is copied to a unique temporary file, so that two plugins bundling tickreel in separate class
 * loaders each load their own instance (the JVM lets one library file be loaded by one class
 * loader only). The system property {@value #PATH_PROPERTY} names a library file to load instead;
 * if that file is already loaded by another class loader, a private copy is loaded.
 *
 * <p>Binding survives relocation: before {@code System.load}, the loader sets the system property
 * {@code tickreel.jni.bridge.<thread id>} to the binary name of {@link NativeBridge} as it is at
 * run time (after any shading). The library's {@code JNI_OnLoad}, which runs on this thread during
 * {@code System.load}, reads it and registers the native methods on that class.
 */
final class NativeLoader {
    /** System property naming a native library file to load instead of the bundled one. */
    static final String PATH_PROPERTY = "tickreel.library.path";
    /** System property naming the directory to extract the library to (default: java.io.tmpdir). */
    static final String TMPDIR_PROPERTY = "tickreel.library.tmpdir";
    /** Prefix of the per-thread property read by {@code JNI_OnLoad}. */
    static final String BRIDGE_PROPERTY_PREFIX = "tickreel.jni.bridge.";

    private static volatile boolean loaded;
    private static String loadedFrom;
    private static TickreelException failure;

    private NativeLoader() {}

    /** Loads the library if this class loader has not yet; throws {@link TickreelException}. */
    static void ensureLoaded() {
        if (!loaded) {
            load();
        }
    }

    /** The file the library was loaded from (after {@link #ensureLoaded()}). */
    static synchronized String loadedFrom() {
        ensureLoaded();
        return loadedFrom;
    }

    private static synchronized void load() {
        if (loaded) {
            return;
        }
        if (failure != null) {
            throw new TickreelException(failure.kind(), failure.getMessage(), failure);
        }
        try {
            loadedFrom = doLoad();
            loaded = true;
        } catch (TickreelException e) {
            failure = e;
            throw e;
        } catch (IOException | RuntimeException | LinkageError e) {
            failure = new TickreelException(
                    TickreelException.Kind.LIBRARY, "cannot load the tickreel native library: " + e, e);
            throw failure;
        }
    }

    private static String doLoad() throws IOException {
        String explicit = System.getProperty(PATH_PROPERTY);
        Path library;
        boolean temporary;
        if (explicit != null && !explicit.isEmpty()) {
            library = Path.of(explicit).toAbsolutePath();
            temporary = false;
        } else {
            library = extract();
            temporary = true;
        }
        try {
            try {
                loadBound(library);
            } catch (UnsatisfiedLinkError e) {
                String msg = String.valueOf(e.getMessage());
                if (temporary || !msg.contains("already loaded in another classloader")) {
                    throw e;
                }
                // The configured file is another class loader's: load a private copy of it.
                try (InputStream in = Files.newInputStream(library)) {
                    library = extractFrom(in, library.getFileName().toString());
                }
                temporary = true;
                loadBound(library);
            }
        } finally {
            if (temporary) {
                deleteLoaded(library);
            }
        }
        int abi;
        try {
            abi = NativeBridge.abiVersion();
        } catch (UnsatisfiedLinkError e) {
            throw new TickreelException(
                    TickreelException.Kind.LIBRARY,
                    "loaded " + library + " but its native methods are not bound to "
                            + NativeBridge.class.getName()
                            + " (was the same file loaded before by this class loader without tickreel's loader?)",
                    e);
        }
        String classesVersion = classesVersion();
        if (abi != NativeBridge.ABI_VERSION) {
            throw new TickreelException(
                    TickreelException.Kind.LIBRARY,
                    "native library " + library + " (tickreel " + NativeBridge.libraryVersion() + ") has ABI version "
                            + abi + ", these classes (tickreel " + (classesVersion != null ? classesVersion : "unknown")
                            + ") need " + NativeBridge.ABI_VERSION + " (jar and library from different builds)");
        }
        String libraryVersion = NativeBridge.libraryVersion();
        if (classesVersion != null && !classesVersion.equals(libraryVersion)) {
            throw new TickreelException(
                    TickreelException.Kind.LIBRARY,
                    "native library " + library + " is tickreel " + libraryVersion + ", these classes are tickreel "
                            + classesVersion + " (jar and library from different releases; each plugin must load "
                            + "the library of its own jar: unset -D" + PATH_PROPERTY + ")");
        }
        Dictionaries.registerBundled(NativeLoader.class.getClassLoader());
        return library.toString();
    }

    /** {@code System.load} with the bridge class named for {@code JNI_OnLoad} on this thread. */
    private static void loadBound(Path library) {
        String key = BRIDGE_PROPERTY_PREFIX + Thread.currentThread().getId();
        System.setProperty(key, NativeBridge.class.getName());
        try {
            System.load(library.toString());
        } finally {
            System.clearProperty(key);
        }
    }

    /** A loaded library file may go (the mapping stays) except on Windows, which locks it. */
    private static void deleteLoaded(Path library) {
        if (os().equals("windows")) {
            library.toFile().deleteOnExit();
            return;
        }
        try {
            Files.deleteIfExists(library);
        } catch (IOException e) {
            library.toFile().deleteOnExit();
        }
    }

    /** The folder of the {@code io.tickreel:tickreel} jar's library. */
    static final String NATIVE_DIR = "META-INF/native/";
    /** The folder of the {@code io.tickreel:tickreel-network} jar's library, preferred when present. */
    static final String NETWORK_DIR = "META-INF/native-network/";

    /** The platform this JVM runs on, as the jars name it: {@code <os>-<arch>}. */
    static String platform() {
        return os() + "-" + arch();
    }

    static String resourceName() {
        return NATIVE_DIR + platform() + "/" + System.mapLibraryName("tickreel");
    }

    static String networkResourceName() {
        return NETWORK_DIR + platform() + "/" + System.mapLibraryName("tickreel");
    }

    private static InputStream resource(String name) {
        ClassLoader cl = NativeLoader.class.getClassLoader();
        return cl != null ? cl.getResourceAsStream(name) : ClassLoader.getSystemResourceAsStream(name);
    }

    private static Path extract() throws IOException {
        InputStream network = resource(networkResourceName());
        InputStream in = network != null ? network : resource(resourceName());
        if (in == null) {
            java.util.SortedSet<String> have = bundledPlatforms();
            throw new TickreelException(
                    TickreelException.Kind.LIBRARY,
                    "no tickreel native library for this platform, " + platform() + " (os.name="
                            + System.getProperty("os.name") + ", os.arch=" + System.getProperty("os.arch")
                            + "): the jar carries " + (have.isEmpty() ? "none" : String.join(", ", have))
                            + " (looked for " + resourceName() + "); build one for " + platform()
                            + " or set -D" + PATH_PROPERTY + "=/path/to/" + System.mapLibraryName("tickreel"));
        }
        try (in) {
            return extractFrom(in, System.mapLibraryName("tickreel"));
        }
    }

    /**
     * The platforms whose library the jar (or folder) holding these classes carries: the names of
     * the folders under {@link #NATIVE_DIR} and {@link #NETWORK_DIR} that hold a file. For the
     * message of a failed load; empty when the classes' location cannot be read.
     */
    static java.util.SortedSet<String> bundledPlatforms() {
        java.util.SortedSet<String> found = new java.util.TreeSet<>();
        try {
            java.security.CodeSource source = NativeLoader.class.getProtectionDomain().getCodeSource();
            if (source == null || source.getLocation() == null) {
                return found;
            }
            Path at = Path.of(source.getLocation().toURI());
            if (Files.isDirectory(at)) {
                for (String dir : new String[] {NATIVE_DIR, NETWORK_DIR}) {
                    Path root = at.resolve(dir);
                    if (Files.isDirectory(root)) {
                        try (java.util.stream.Stream<Path> platforms = Files.list(root)) {
                            platforms.filter(Files::isDirectory).forEach(p -> found.add(p.getFileName().toString()));
                        }
                    }
                }
            } else {
                try (java.util.jar.JarFile jar = new java.util.jar.JarFile(at.toFile())) {
                    jar.stream().map(java.util.jar.JarEntry::getName).forEach(name -> {
                        for (String dir : new String[] {NATIVE_DIR, NETWORK_DIR}) {
                            int slash = name.indexOf('/', dir.length());
                            if (name.startsWith(dir) && slash > dir.length() && slash < name.length() - 1) {
                                found.add(name.substring(dir.length(), slash));
                            }
                        }
                    });
                }
            }
        } catch (IOException | RuntimeException | java.net.URISyntaxException e) {
            // the message says "none" rather than failing differently
        }
        return found;
    }

    /**
     * The version of these classes, from {@code tickreel.properties} beside them (written by the
     * Maven build), or null when absent (classes compiled otherwise, or relocated by a shade
     * without their resources).
     */
    static String classesVersion() {
        try (InputStream in = NativeLoader.class.getResourceAsStream("tickreel.properties")) {
            if (in == null) {
                return null;
            }
            java.util.Properties p = new java.util.Properties();
            p.load(in);
            String v = p.getProperty("version");
            return v == null || v.isEmpty() || v.startsWith("${") ? null : v;
        } catch (IOException e) {
            return null;
        }
    }

    private static Path extractFrom(InputStream in, String name) throws IOException {
        String dir = System.getProperty(TMPDIR_PROPERTY);
        Path tmp = dir != null && !dir.isEmpty()
                ? Files.createTempFile(Path.of(dir), "tickreel-", "-" + name)
                : Files.createTempFile("tickreel-", "-" + name);
        tmp.toFile().deleteOnExit();
        Files.copy(in, tmp, StandardCopyOption.REPLACE_EXISTING);
        return tmp;
    }

    static String os() {
        String name = System.getProperty("os.name", "").toLowerCase(Locale.ROOT);
        if (name.startsWith("linux")) {
            return "linux";
        }
        if (name.startsWith("mac") || name.startsWith("darwin")) {
            return "macos";
        }
        if (name.startsWith("windows")) {
            return "windows";
        }
        return name.replaceAll("[^a-z0-9]", "");
    }

    static String arch() {
        String arch = System.getProperty("os.arch", "").toLowerCase(Locale.ROOT);
        switch (arch) {
            case "amd64":
            case "x86_64":
                return "x86_64";
            case "aarch64":
            case "arm64":
                return "aarch64";
            default:
                return arch.replaceAll("[^a-z0-9_]", "");
        }
    }
}
