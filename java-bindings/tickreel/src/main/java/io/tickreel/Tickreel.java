package io.tickreel;

/**
 * Library-wide entry points: loading the native library ahead of time and reporting versions.
 *
 * <p>Loading is automatic on first use of any class that needs it; a plugin may call
 * {@link #load()} in its enable hook to fail early with a clear {@link TickreelException}.
 * The system property {@code tickreel.library.path} loads a given library file instead of the
 * one bundled in the jar, and {@code tickreel.library.tmpdir} chooses where the bundled one is
 * extracted (each class loader extracts its own uniquely named copy).
 */
public final class Tickreel {
    private Tickreel() {}

    /**
     * Loads and binds the native library for this class loader, if not yet done.
     *
     * @throws TickreelException of kind {@link TickreelException.Kind#LIBRARY} if it cannot be
     *     loaded
     */
    public static void load() {
        NativeLoader.ensureLoaded();
    }

    /**
     * The version of the native library (loading it if needed).
     *
     * @throws TickreelException if the native library cannot be loaded (kind {@code LIBRARY})
     */
    public static String libraryVersion() {
        NativeLoader.ensureLoaded();
        return NativeBridge.libraryVersion();
    }

    /**
     * Whether the loaded library carries object storage ({@link ObjectOptions}, recordings by
     * {@code s3://} URL): true with the {@code io.tickreel:tickreel-network} jar beside
     * {@code io.tickreel:tickreel}; false for the library of {@code io.tickreel:tickreel} alone and
     * for one built for recording and playing only (Cargo's {@code --no-default-features}).
     */
    public static boolean hasObjectStorage() {
        NativeLoader.ensureLoaded();
        return (NativeBridge.features() & 1) != 0;
    }

    /** Whether the loaded library carries the {@link Catalog} (see {@link #hasObjectStorage()}). */
    public static boolean hasCatalog() {
        NativeLoader.ensureLoaded();
        return (NativeBridge.features() & 2) != 0;
    }

    /**
     * Whether the loaded library's {@link Catalog} opens {@code postgres://} URLs besides
     * {@code sqlite:} ones: true with the {@code io.tickreel:tickreel-network} jar beside
     * {@code io.tickreel:tickreel} (whose own library carries the catalog on SQLite only).
     */
    public static boolean hasPostgres() {
        NativeLoader.ensureLoaded();
        return (NativeBridge.features() & 4) != 0;
    }

    /**
     * Throws unless the loaded library carries {@code feature} (bit of {@code NativeBridge.features()},
     * Cargo feature {@code name}): a clear error instead of an {@link UnsatisfiedLinkError}.
     */
    static void require(int feature, String name) {
        NativeLoader.ensureLoaded();
        if ((NativeBridge.features() & feature) == 0) {
            throw new TickreelException(
                    TickreelException.Kind.UNSUPPORTED,
                    "the tickreel native library at " + NativeLoader.loadedFrom()
                            + " was built without the Cargo feature \"" + name + "\""
                            + (feature == 2 ? "" : "; add io.tickreel:tickreel-network beside io.tickreel:tickreel"));
        }
    }

    /** The file the native library was loaded from (loading it if needed). */
    public static String nativeLibraryPath() {
        return NativeLoader.loadedFrom();
    }
}
