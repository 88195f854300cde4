package io.tickreel;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The {@code io.tickreel:tickreel-network} jar beside {@code io.tickreel:tickreel}, as a network's
 * plugin declares them: its library is the one loaded, carries object storage and PostgreSQL, and
 * records straight into the S3 test server (started by java-bindings/test.sh, described in the
 * {@code tickreel.test.s3.*} properties; without them this fails, never skips).
 */
class NetworkJarIT {
    static String prop(String name) {
        String v = System.getProperty("tickreel.test.s3." + name);
        if (v == null || v.isEmpty()) {
            throw new AssertionError("system property tickreel.test.s3." + name
                    + " is not set: run java-bindings/test.sh, which starts the S3 test server");
        }
        return v;
    }

    @Test
    void theNetworkLibraryIsPreferredAndCarriesEverything() throws Exception {
        Tickreel.load();
        assertEquals(7, NativeBridge.features());
        assertTrue(Tickreel.hasObjectStorage());
        assertTrue(Tickreel.hasPostgres());
        // Both jars are on the class path: the network library is the one found first.
        ClassLoader cl = NetworkJarIT.class.getClassLoader();
        assertTrue(cl.getResource(NativeLoader.resourceName()) != null, "io.tickreel:tickreel's own library");
        try (InputStream in = cl.getResourceAsStream(NativeLoader.networkResourceName())) {
            byte[] lib = in.readAllBytes();
            if (NativeLoader.os().equals("linux")) {
                // The section names, from the ELF64 section headers and their string table.
                java.nio.ByteBuffer b = java.nio.ByteBuffer.wrap(lib).order(java.nio.ByteOrder.LITTLE_ENDIAN);
                long shoff = b.getLong(0x28);
                int entsize = Short.toUnsignedInt(b.getShort(0x3a));
                int count = Short.toUnsignedInt(b.getShort(0x3c));
                long strtab = b.getLong((int) (shoff + (long) Short.toUnsignedInt(b.getShort(0x3e)) * entsize + 0x18));
                java.util.List<String> names = new java.util.ArrayList<>();
                for (int i = 0; i < count; i++) {
                    int at = (int) (strtab + b.getInt((int) (shoff + (long) i * entsize)));
                    int end = at;
                    while (lib[end] != 0) {
                        end++;
                    }
                    names.add(new String(lib, at, end - at, StandardCharsets.US_ASCII));
                }
                assertFalse(names.stream().anyMatch(n -> n.startsWith(".debug_")), "debug sections left: " + names);
                assertTrue(names.contains(".gnu_debuglink"), "the packed library does not name its debug file: " + names);
            }
        }
        assertTrue(Files.size(Path.of(System.getProperty("tickreel.test.debug"))) > 0);
    }

    @Test
    void aRecordingFinishesIntoObjectStorageAndReadsBackByUrl(@TempDir Path dir) throws Exception {
        ObjectOptions options = ObjectOptions.fromEnv()
                .withEndpoint(prop("endpoint"))
                .withRegion("us-east-1")
                .withCredentials(prop("accessKeyId"), prop("secretAccessKey"), null)
                .withTimeouts(Duration.ofSeconds(2), Duration.ofSeconds(10), Duration.ofSeconds(20));
        String url = "s3://" + prop("bucket") + "/network-jar/" + UUID.randomUUID() + ".reel";
        try (Engine engine = new Engine();
                Recorder rec = engine.startRecording(dir.resolve("up.reel"), RecorderOptions.defaults())) {
            Batch b = new Batch();
            for (int tick = 0; tick < 120; tick++) {
                b.clear();
                if (tick == 0) {
                    b.entityAdd(1, 0, 0, 64, 0, 0, 0);
                } else {
                    b.pose(1, tick * 0.5, 64, 0, 0, 0);
                }
                rec.submit(tick, b);
            }
            try (Pending<Uploaded> up = rec.finishAndUpload(url, options, false, true)) {
                up.future().get(60, TimeUnit.SECONDS);
            }
        }
        try (Reader r = Reader.open(url, options)) {
            assertEquals(120, r.header().tickCount());
        }
    }
}
