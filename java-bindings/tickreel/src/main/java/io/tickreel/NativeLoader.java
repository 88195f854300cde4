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
 * <p>The jar carries the library as the resource {@code META-INF/native/<os>-<arch>/<libname>}.
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
            library = extract(resourceName());
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
        if (abi != NativeBridge.ABI_VERSION) {
            throw new TickreelException(
                    TickreelException.Kind.LIBRARY,
                    "native library " + library + " has ABI version " + abi + ", these classes need "
                            + NativeBridge.ABI_VERSION + " (jar and library from different builds)");
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

    static String resourceName() {
        return "META-INF/native/" + os() + "-" + arch() + "/" + System.mapLibraryName("tickreel");
    }

    private static Path extract(String resource) throws IOException {
        ClassLoader cl = NativeLoader.class.getClassLoader();
        InputStream in = cl != null ? cl.getResourceAsStream(resource) : ClassLoader.getSystemResourceAsStream(resource);
        if (in == null) {
            throw new TickreelException(
                    TickreelException.Kind.LIBRARY,
                    "no native library for this platform in the jar (looked for " + resource
                            + "); set -D" + PATH_PROPERTY + "=/path/to/" + System.mapLibraryName("tickreel"));
        }
        try (in) {
            return extractFrom(in, System.mapLibraryName("tickreel"));
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
