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

    /** The file the native library was loaded from (loading it if needed). */
    public static String nativeLibraryPath() {
        return NativeLoader.loadedFrom();
    }
}
