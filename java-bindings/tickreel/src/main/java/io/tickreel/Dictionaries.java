package io.tickreel;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;

/**
 * Trained zstd dictionaries ({@code tickreel dict train}'s output), registered with the native
 * library by the id their zstd header names (1..65535). A recording written with
 * {@link ReelOptions.Builder#dictionaryId(int)} or {@link RecorderOptions} naming an id is
 * compressed with that dictionary and names its id in its header; reading it needs the same
 * dictionary registered, else opening it throws a {@link TickreelException} of kind
 * {@link TickreelException.Kind#UNSUPPORTED} whose message names the id.
 *
 * <p>A jar may carry one dictionary as the resource {@value #RESOURCE}: it is registered when
 * the library is loaded (a damaged one makes loading fail, naming the resource).
 */
public final class Dictionaries {
    /** The resource a jar carries its dictionary as, registered when the library is loaded. */
    public static final String RESOURCE = "META-INF/tickreel/dictionary.zdict";

    /** The largest dictionary the library accepts (1 MiB). */
    static final int MAX_BYTES = 1 << 20;

    private Dictionaries() {}

    /**
     * Registers a dictionary (its bytes are checked and copied) and returns its id. The same
     * bytes again are harmless.
     *
     * @throws IllegalArgumentException if the bytes are not a zstd dictionary with an id in
     *     1..65535 (or its tables are damaged)
     * @throws IllegalStateException if other bytes are registered under its id
     * @throws TickreelException of kind {@code LIMIT_EXCEEDED} if it is larger than 1 MiB
     * @throws NullPointerException if {@code dictionary} is null
     */
    public static int register(byte[] dictionary) {
        if (dictionary == null) {
            throw new NullPointerException("dictionary");
        }
        NativeLoader.ensureLoaded();
        return (int) NativeBridge.dictionaryRegister(dictionary);
    }

    /** Whether a dictionary is registered under {@code id} (0, no dictionary, never is). */
    public static boolean isRegistered(int id) {
        NativeLoader.ensureLoaded();
        return id > 0 && NativeBridge.dictionaryIsRegistered(id);
    }

    /**
     * Registers the jar's dictionary ({@value #RESOURCE}) if this class loader sees one: called
     * once the library is loaded. Reads at most {@link #MAX_BYTES} + 1 bytes.
     */
    static void registerBundled(ClassLoader cl) throws IOException {
        InputStream in = cl != null ? cl.getResourceAsStream(RESOURCE) : ClassLoader.getSystemResourceAsStream(RESOURCE);
        if (in == null) {
            return;
        }
        byte[] bytes;
        try (in) {
            ByteArrayOutputStream out = new ByteArrayOutputStream();
            byte[] buf = new byte[16384];
            int n;
            while ((n = in.read(buf)) > 0 && out.size() <= MAX_BYTES) {
                out.write(buf, 0, n);
            }
            bytes = out.toByteArray();
        }
        try {
            NativeBridge.dictionaryRegister(bytes);
        } catch (RuntimeException e) {
            throw new TickreelException(
                    TickreelException.Kind.LIBRARY,
                    "the dictionary the jar carries (" + RESOURCE + ") cannot be registered: " + e.getMessage(),
                    e);
        }
    }
}
