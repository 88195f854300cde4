package io.tickreel;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

class TickreelTest {
    @Test
    void loadsTheBundledLibrary() {
        Tickreel.load();
        Tickreel.load(); // idempotent
        assertTrue(Tickreel.libraryVersion().matches("\\d+\\.\\d+\\.\\d+.*"), Tickreel.libraryVersion());
        assertEquals(NativeBridge.ABI_VERSION, NativeBridge.abiVersion());
        String path = Tickreel.nativeLibraryPath();
        assertTrue(path.contains("tickreel-"), path);
        // The extracted copy is deleted once loaded (the mapping stays).
        assertTrue(Files.notExists(Path.of(path)), path);
    }

    @Test
    void theTestLibraryCarriesObjectStorageAndTheCatalog() {
        // The tests load the test build (every Cargo feature: object, catalog, postgres); the jar's
        // own library (catalog only) is checked by JarIT, the network jar's by NetworkJarIT, and
        // the build without any by tests/lean.sh.
        assertTrue(Tickreel.hasObjectStorage());
        assertTrue(Tickreel.hasCatalog());
        assertTrue(Tickreel.hasPostgres());
        assertEquals(7, NativeBridge.features());
    }

    @Test
    void platformNames() {
        assertTrue(NativeLoader.resourceName().startsWith("META-INF/native/"));
        assertTrue(NativeLoader.resourceName().endsWith(System.mapLibraryName("tickreel")));
        assertTrue(NativeLoader.os().matches("[a-z0-9]+"));
        assertTrue(NativeLoader.arch().matches("[a-z0-9_]+"));
    }
}
